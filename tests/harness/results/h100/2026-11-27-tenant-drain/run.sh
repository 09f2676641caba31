#!/bin/bash
# Issue 26 on the lent NVIDIA H100: the harness's tenant mode with the arms
# none, priority and sched-drain (kfdmp-sched --backend drain: SIGSTOP/SIGCONT
# of the best-effort workers, no driver change), the critical rate set from
# its busy fraction alone (--critical-busy), 3 repeats, time-sliced and under
# MPS; then the reference PyTorch workloads as tenants through --exec-as
# (a small-batch GPT-2 as the critical service, large-batch ones as
# best-effort), time-sliced.
#
#   tests/harness/results/h100/2026-11-27-tenant-drain/run.sh [PART...]
#
# Run from the repository root on the device machine (the run tool's
# working directory). Everything is written under $OUT (default
# ./out-tenant-drain); the last lines printed are the summary
# (summarize.py over $OUT, also in $OUT/summary.txt).
#
# PARTs (default: all, in this order), with wall-time estimates:
#   build   cmake -DKFDMP_GPU=cuda, build kfdmp, kfdmp-worker,
#           kfdmp-exec-worker, kfdmp-sched in $BUILD (about 90 s fresh)
#   ts      synthetic, time-sliced: critical `saturate` (about 1 ms a query)
#           at busy 0.1 and 0.3 beside saturate:3, arms none,priority,
#           sched-drain, 3 repeats: 1 + 3 x (1 + 2 x 4) = 28 runs of
#           0.5 s warm-up + 2 s window + about 1 s start-up = about 100 s
#   mps     the same at busy 0.3 under MPS: 16 runs, about 60 s
#   torch   PyTorch, time-sliced: critical gpt2 batch 1 seq 128 at busy 0.3
#           beside 2 x gpt2 batch 32 seq 256, arms none,sched-drain,priority
#           (priority last: an exec worker without stream priority makes
#           its run unavailable, which ends the invocation), 3 repeats:
#           16 runs of 1 s + 4 s + about 7 s (importing torch) = about 190 s
# Total about 440 s (7.3 min) on a fresh machine (a CUDA build of 2 min
# instead of 90 s makes it about 8 min); a part starts only if the budget
# (BUDGET_S, default 480 s from the script's start) leaves room for its
# estimate, else it says SKIPPED and why: then run the rest in a second call
# on the same warm machine (`run.sh torch`: the build is kept, about 3.5 min;
# the summary covers every part under $OUT). Without the reference workloads
# (tests/harness/python/kfdmp_reference.py) the torch part skips itself.
# Nothing is left stopped: kfdmp-sched's watchdog resumes the tenants if the
# daemon dies, and the script's exit lists any process of the run still
# stopped.
#
# Environment: OUT, BUILD (default build/tenant-drain), BUDGET_S (480),
# REPEATS (3), PYTHON (python3).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../../.." && pwd)
OUT=${OUT:-$PWD/out-tenant-drain}
BUILD=${BUILD:-$root/build/tenant-drain}
BUDGET_S=${BUDGET_S:-480}
REPEATS=${REPEATS:-3}
PYTHON=${PYTHON:-python3}
REF=$root/tests/harness/python/kfdmp_reference.py
KFDMP=$BUILD/kfdmp
START=$SECONDS
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(build ts mps torch)
for p in "${parts[@]}"; do
	case "$p" in
	build | ts | mps | torch) ;;
	*)
		echo "usage: $0 [build|ts|mps|torch]..." >&2
		exit 64
		;;
	esac
done
mkdir -p "$OUT"
exec > >(tee -a "$OUT/run.log") 2>&1
echo "== $(date -u +%FT%TZ) git $(git -C "$root" rev-parse --short HEAD 2>/dev/null) OUT=$OUT parts: ${parts[*]}"

elapsed() { echo $((SECONDS - START)); }
fits() { # SECONDS WHAT
	if [ $(($(elapsed) + $1)) -gt "$BUDGET_S" ]; then
		echo "SKIPPED (budget: $(elapsed) s used, about $1 s needed, $BUDGET_S s in all): $2" |
			tee -a "$OUT/skipped.txt"
		return 1
	fi
}

mps_start() {
	export CUDA_MPS_PIPE_DIRECTORY=/tmp/kfdmp-tenant-mps-pipe CUDA_MPS_LOG_DIRECTORY=/tmp/kfdmp-tenant-mps-log
	mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
	nvidia-cuda-mps-control -d && echo "MPS control daemon started"
}
mps_stop() {
	if [ -n "${CUDA_MPS_PIPE_DIRECTORY:-}" ]; then
		echo quit | nvidia-cuda-mps-control || true
		sleep 1
		unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
		echo "MPS control daemon stopped"
	fi
}
# Nothing stays stopped or running: the MPS daemon goes, and no process of
# this run is left stopped (the daemon's watchdog resumes them; this checks).
leftovers() {
	local t
	t=$(ps -eo pid,stat,args | awk '$2 ~ /^T/ && /kfdmp|kfdmp_reference/' | grep -v awk)
	[ -z "$t" ] || { echo "WARNING: stopped processes left:"; echo "$t"; }
}
trap 'mps_stop; leftovers' EXIT

build() {
	fits 150 "build" || return 0
	mkdir -p "$OUT/build"
	{
		date -u +%FT%TZ
		git -C "$root" log -1 --format='%H %s'
		nvidia-smi 2>&1 | head -20
		nproc
	} >"$OUT/environment.txt" 2>&1
	if [ ! -f "$BUILD/CMakeCache.txt" ]; then
		cmake -S "$root/tests/harness" -B "$BUILD" -DKFDMP_GPU=cuda -DCMAKE_BUILD_TYPE=Release \
			>"$OUT/build/cmake.log" 2>&1 || { tail -n 30 "$OUT/build/cmake.log"; exit 1; }
	fi
	local targets="kfdmp kfdmp-sched" t have
	have=$(cmake --build "$BUILD" --target help 2>/dev/null)
	for t in kfdmp-worker kfdmp-exec-worker; do
		grep -qE "(^|[ .])$t\$" <<<"$have" && targets="$targets $t"
	done
	# shellcheck disable=SC2086
	cmake --build "$BUILD" -j "$(nproc)" --target $targets >"$OUT/build/build.log" 2>&1 ||
		{ tail -n 40 "$OUT/build/build.log"; exit 1; }
	echo "-- $(elapsed) s: built $targets"
}

# tenant DIR SECONDS_ESTIMATE kfdmp-options...
tenant() {
	local dir=$1 need=$2
	shift 2
	fits "$need" "$dir" || return 0
	[ -x "$KFDMP" ] || { echo "SKIPPED: no $KFDMP (run the build part)" | tee -a "$OUT/skipped.txt"; return 0; }
	mkdir -p "$dir"
	printf '%q ' "$KFDMP" "$@" --out "$dir" >"$dir/command.txt"
	echo >>"$dir/command.txt"
	echo "-- $(elapsed) s: $(cat "$dir/command.txt")"
	local t0=$SECONDS
	"$KFDMP" "$@" --out "$dir" >"$dir/stdout.txt" 2>"$dir/stderr.txt"
	local rc=$?
	echo "$rc" >"$dir/exit-status"
	echo "   exit $rc after $((SECONDS - t0)) s (estimate $need s)"
	sed -n '/^tenant targets per arm/,$p' "$dir/stdout.txt" | head -n 60
	[ "$rc" = 0 ] || tail -n 15 "$dir/stderr.txt"
}

synthetic=(--critical saturate --mix saturate:3 --arms none,priority,sched-drain --repeat "$REPEATS"
	--duration 2 --warmup 0.5)

for p in "${parts[@]}"; do
	case "$p" in
	build) build ;;
	ts) tenant "$OUT/ts" 100 "${synthetic[@]}" --critical-busy 0.1,0.3 ;;
	mps)
		if fits 60 "mps"; then
			if mps_start; then
				tenant "$OUT/mps" 60 "${synthetic[@]}" --critical-busy 0.3
				mps_stop
			else
				echo "SKIPPED: nvidia-cuda-mps-control -d failed" | tee -a "$OUT/skipped.txt"
			fi
		fi
		;;
	torch)
		if [ ! -f "$REF" ]; then
			echo "SKIPPED: $REF is not in this tree" | tee -a "$OUT/skipped.txt"
		else
			tenant "$OUT/torch" 190 \
				--exec-as online="$PYTHON $REF --model gpt2 --batch 1 --seq 128" \
				--exec-as offline="$PYTHON $REF --model gpt2 --batch 32 --seq 256" \
				--critical online --mix offline:2 --critical-busy 0.3 --arms none,sched-drain,priority \
				--repeat "$REPEATS" --duration 4 --warmup 1 --init-timeout 180
		fi
		;;
	esac
done
echo "== $(elapsed) s in all"
"$PYTHON" "$here/summarize.py" "$OUT" | tee "$OUT/summary.txt"
