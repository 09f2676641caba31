#!/bin/bash
# The reference PyTorch workloads (tests/harness/python/kfdmp_reference.py)
# through `kfdmp --exec` on the lent NVIDIA H100 (issue 24, deliverable 6):
# N = 1/2/4/8, time-sliced and under MPS, 3 repeats, the host-side arms
# (--cpu-threads 1, --cpu-threads auto, --pin numa, --idle-procs 2) and the
# helper's standalone loop at N = 1 for the exec-vs-standalone agreement.
#
#   tests/harness/results/h100/2026-11-27-exec-reference/run.sh PART [PRESET...]
#
# Run from the repository root on the device machine (the run tool's
# working directory); everything is written under $OUT (default ./out-exec-ref).
# Every PART ends with summarize.py over all of $OUT, so the last part's
# summary covers the parts before it when they ran on the same machine and
# $OUT was copied back after each (the summary reads what is there).
#
# PART (each under 9 minutes of wall time). Estimates: a kfdmp run costs its
# 2 s warm-up + 4 s window + about 7 s of worker start-up and teardown
# (importing torch and transformers, building the model, the first forward;
# RUN_OVERHEAD_S, the figure the budget check uses) = about 13 s; a part
# starts no run that would take it past BUDGET_S = 510 s, and lists what it
# skipped in $OUT/PART/skipped.txt. The first call on a fresh machine also
# builds (about 2 min; later parts only build what changed).
#   build       configure (cmake -DKFDMP_GPU=cuda; -DKFDMP_GPU=none if that
#               fails) and build kfdmp, kfdmp-exec-worker, kfdmp-worker in
#               build/exec-ref, then a smoke test: every preset standalone
#               for 1+1 s with the installed libraries and with --impl
#               torch, gpt2-b8-s128 with --graph both ways, and one exec
#               sweep at N=1,2 (about 2 min build + 2 min smoke)
#   ts          time-sliced: gpt2-b8-s128 and resnet50-b32, N=1,2,4,8 x 3
#               repeats (24 runs, about 5.5 min)
#   mps         the same under MPS (nvidia-cuda-mps-control -d; 5.5 min)
#   field       mi300x-8.7ms (the preset sized for the field's 115 QPS on an
#               MI300X), time-sliced and under MPS, N=1,2,4,8 x 3 (24 runs,
#               about 5.5 min); the summary checks its sizing
#   arms        gpt2-b8-s128 time-sliced, N=1,2,4,8, ARM_REPEATS (1) each of
#               the stock arm (ARM_STOCK=1; ARM_ONLY='NAME...' picks arms),
#               --cpu-threads 1, --cpu-threads auto, --pin numa,
#               --idle-procs 2 (16 runs, about 3.5 min)
#   agree       exec N=1 and the standalone loop alternated, ROUNDS (3)
#               rounds of each of the three presets (18 runs, about 4 min)
#   overhead    the exec bridge's cost on a 1 ms query (no GPU involved):
#               tests/harness/bench/exec_overhead.py on $BUILD, --repeats 10
#               (about 2 min), on this otherwise idle machine
#   summary     only the summary of what is under $OUT
# Total about 28 min of device time for all six. Short of device time, run
# them in this order: build, ts, agree, field, mps, arms (or REPEATS=2).
# PRESET... replaces a part's presets (ts, mps, arms, agree).
#
# Environment: OUT, BUILD (default build/exec-ref), DURATION (4), WARMUP (2),
# REPEATS (3), ROUNDS (3), PROCS (1,2,4,8), BUDGET_S (510), PYTHON (python3), REF (the
# workload script; a dry run without a GPU can name one that takes --preset).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../../.." && pwd)
part=${1:-}
shift || true
OUT=${OUT:-$PWD/out-exec-ref}
BUILD=${BUILD:-$root/build/exec-ref}
DURATION=${DURATION:-4}
WARMUP=${WARMUP:-2}
REPEATS=${REPEATS:-3}
ROUNDS=${ROUNDS:-3}
PROCS=${PROCS:-1,2,4,8}
BUDGET_S=${BUDGET_S:-510}
PYTHON=${PYTHON:-python3}
PYDIR=$root/tests/harness/python
REF=${REF:-$PYDIR/kfdmp_reference.py} # another script taking --preset: for a dry run
KFDMP=$BUILD/kfdmp
START=$SECONDS
# seconds per kfdmp run beyond the window: worker start-up and teardown
RUN_OVERHEAD_S=${RUN_OVERHEAD_S:-7}

case "$part" in
build | ts | mps | field | arms | agree | overhead | summary) ;;
*)
	echo "usage: $0 build|ts|mps|field|arms|agree|overhead|summary [PRESET...]" >&2
	exit 64
	;;
esac
mkdir -p "$OUT/$part"
log=$OUT/$part/run.log
exec > >(tee -a "$log") 2>&1
echo "== $part: $(date -u +%FT%TZ) git $(git -C "$root" rev-parse --short HEAD 2>/dev/null) OUT=$OUT"

elapsed() { echo $((SECONDS - START)); }
# fits SECONDS_NEEDED: whether the part's budget has room for it
fits() {
	local need=$1
	if [ $(($(elapsed) + need)) -gt "$BUDGET_S" ]; then
		echo "SKIPPED (out of this part's time: $(elapsed) s used, $need s needed, budget $BUDGET_S s): $2" |
			tee -a "$OUT/$part/skipped.txt"
		return 1
	fi
}
# learn_overhead SECONDS RUNS WHAT: raise RUN_OVERHEAD_S to what the runs
# just measured took beyond their windows, so the budget check that follows
# uses it
learn_overhead() {
	local o
	o=$(awk -v t="$1" -v k="$2" -v w="$WARMUP" -v d="$DURATION" \
		'BEGIN { x = t / k - w - d; printf "%d\n", (x == int(x)) ? x : int(x) + 1 }')
	echo "   $1 s for $2 run(s): $o s each beyond the window ($3)"
	if [ "$o" -gt "$RUN_OVERHEAD_S" ]; then
		RUN_OVERHEAD_S=$o
	fi
}
# run_seconds K: the estimated wall time of K runs, whole seconds
run_seconds() { awk -v k="$1" -v w="$WARMUP" -v d="$DURATION" -v o="$RUN_OVERHEAD_S" \
	'BEGIN { t = k * (w + d + o); printf "%d\n", (t == int(t)) ? t : int(t) + 1 }'; }
has_exec() { [ -x "$KFDMP" ] && "$KFDMP" --help 2>&1 | grep -q -- '--exec'; }

mps_start() {
	export CUDA_MPS_PIPE_DIRECTORY=/tmp/kfdmp-exec-mps-pipe CUDA_MPS_LOG_DIRECTORY=/tmp/kfdmp-exec-mps-log
	mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
	# one left by an interrupted part would refuse a second
	echo quit | nvidia-cuda-mps-control >/dev/null 2>&1 && sleep 1
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
trap mps_stop EXIT

# exec_sweep DIR PRESET REPEATS PROCS [kfdmp options...]
exec_sweep() {
	local dir=$1 preset=$2 reps=$3 procs=$4
	shift 4
	local n
	n=$(echo "$procs" | tr ',' ' ' | wc -w)
	local need
	need=$(run_seconds $((reps * n)))
	fits "$need" "kfdmp --exec $preset $* -> $dir" || return 0
	if ! has_exec; then
		echo "SKIPPED: $KFDMP has no --exec (the launcher side of issue 24 is not in this tree yet): $dir" |
			tee -a "$OUT/$part/skipped.txt"
		return 0
	fi
	mkdir -p "$dir"
	local cmd="$PYTHON $REF --preset $preset"
	echo "-- $(elapsed) s: kfdmp --exec '$cmd' --procs $procs --repeat $reps $* -> $dir"
	printf '%s\n' "$KFDMP --exec '$cmd' --procs $procs --repeat $reps --duration $DURATION --warmup $WARMUP --init-timeout 180 $* --out $dir" >"$dir/command.txt"
	local t0=$SECONDS
	"$KFDMP" --exec "$cmd" --procs "$procs" --repeat "$reps" --duration "$DURATION" --warmup "$WARMUP" \
		--init-timeout 180 "$@" --out "$dir" >"$dir/stdout.txt" 2>"$dir/stderr.txt"
	local rc=$?
	echo "$rc" >"$dir/exit-status"
	learn_overhead $((SECONDS - t0)) $((reps * n)) "$dir"
	tail -n 25 "$dir/stdout.txt"
	[ "$rc" = 0 ] || { echo "kfdmp exit $rc; stderr:"; tail -n 20 "$dir/stderr.txt"; }
}

# standalone FILE PRESET [reference/helper options...]
standalone() {
	local json=$1 preset=$2
	shift 2
	fits "$(run_seconds 1)" "standalone $preset $* -> $json" || return 0
	mkdir -p "$(dirname "$json")"
	echo "-- $(elapsed) s: standalone $preset $*"
	local t0=$SECONDS
	PYTHONPATH=$PYDIR "$PYTHON" -m kfdmp_worker --standalone --duration "$DURATION" --warmup "$WARMUP" \
		--json "$json" -- "$REF" --preset "$preset" "$@" >"${json%.json}.out" 2>"${json%.json}.err"
	local rc=$?
	learn_overhead $((SECONDS - t0)) 1 "$json"
	cat "${json%.json}.out"
	[ "$rc" = 0 ] || { echo "standalone exit $rc:"; tail -n 20 "${json%.json}.err"; }
}

environment() {
	{
		date -u +%FT%TZ
		git -C "$root" log -1 --format='%H %s' 2>/dev/null
		nvidia-smi 2>&1 | head -20
		nvidia-smi -q 2>/dev/null | grep -iE 'product name|driver version|cuda version|mig mode' -A1 | head -20
		nproc
		lscpu 2>/dev/null | grep -iE 'model name|numa|socket'
		"$PYTHON" - <<'EOF'
import sys
print("python", sys.version.split()[0])
try:
    import torch
    print("torch", torch.__version__, "cuda", torch.version.cuda, "hip", getattr(torch.version, "hip", None),
          "gpu", torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
          "threads", torch.get_num_threads())
except Exception as e:
    print("torch: not importable:", e)
for m in ("transformers", "torchvision"):
    try:
        print(m, __import__(m).__version__)
    except Exception as e:
        print(m, "not importable:", e)
EOF
	} >"$OUT/environment.txt" 2>&1
}

summary() {
	"$PYTHON" "$here/summarize.py" "$OUT" | tee "$OUT/summary.txt"
}

# The harness in $BUILD: configured once, then every part builds what
# changed (seconds; about 2 min from scratch, e.g. on a fresh device machine).
ensure_built() {
	[ -f "$OUT/environment.txt" ] || environment
	mkdir -p "$OUT/build"
	if [ -f "$BUILD/CMakeCache.txt" ]; then
		echo "-- $(elapsed) s: $BUILD configured before: building what changed"
	elif echo "-- $(elapsed) s: cmake -DKFDMP_GPU=cuda in $BUILD" && ! cmake -S "$root/tests/harness" -B "$BUILD" -DKFDMP_GPU=cuda -DCMAKE_BUILD_TYPE=Release \
		>"$OUT/build/cmake.log" 2>&1; then
		tail -n 15 "$OUT/build/cmake.log"
		echo "NOTE: the CUDA configuration failed; building with -DKFDMP_GPU=none (no --idle-procs)"
		rm -rf "$BUILD/CMakeCache.txt" "$BUILD/CMakeFiles"
		cmake -S "$root/tests/harness" -B "$BUILD" -DKFDMP_GPU=none -DCMAKE_BUILD_TYPE=Release \
			>>"$OUT/build/cmake.log" 2>&1 || { tail -n 30 "$OUT/build/cmake.log"; exit 1; }
	fi
	# the targets this configuration has (no kfdmp-worker without a GPU backend)
	local targets=kfdmp t have
	have=$(cmake --build "$BUILD" --target help 2>/dev/null)
	for t in kfdmp-worker kfdmp-exec-worker kfdmp-test-worker kfdmp-exec-sleep-worker; do
		grep -qE "(^|[ .])$t\$" <<<"$have" && targets="$targets $t"
	done
	# shellcheck disable=SC2086
	cmake --build "$BUILD" -j "$(nproc)" --target $targets >"$OUT/build/build.log" 2>&1 ||
		{ tail -n 40 "$OUT/build/build.log"; exit 1; }
	echo "-- $(elapsed) s: built $targets"
	has_exec && echo "kfdmp has --exec" ||
		echo "NOTE: kfdmp has no --exec in this tree: only the standalone runs will measure"
}

case "$part" in
build)
	ensure_built
	# smoke: every preset for a second, both implementations, and the graph
	DURATION=1 WARMUP=1
	for p in gpt2-b8-s128 resnet50-b32 mi300x-8.7ms; do
		standalone "$OUT/build/smoke/$p-auto.json" "$p"
		standalone "$OUT/build/smoke/$p-torch.json" "$p" --impl torch
	done
	PYTHONPATH=$PYDIR "$PYTHON" -m kfdmp_worker --standalone --duration 1 --warmup 1 --graph \
		--json "$OUT/build/smoke/gpt2-b8-s128-graph.json" -- "$REF" --preset gpt2-b8-s128 \
		>"$OUT/build/smoke/graph.out" 2>"$OUT/build/smoke/graph.err"
	echo "graph (transformers): exit $? $(cat "$OUT/build/smoke/graph.out")"
	PYTHONPATH=$PYDIR "$PYTHON" -m kfdmp_worker --standalone --duration 1 --warmup 1 --graph \
		--json "$OUT/build/smoke/gpt2-b8-s128-torch-graph.json" -- "$REF" --preset gpt2-b8-s128 --impl torch \
		>"$OUT/build/smoke/graph-torch.out" 2>"$OUT/build/smoke/graph-torch.err"
	echo "graph (pure torch): exit $? $(cat "$OUT/build/smoke/graph-torch.out")"
	if has_exec; then
		exec_sweep "$OUT/build/smoke/exec" gpt2-b8-s128 1 1,2
	fi
	;;
ts | mps)
	ensure_built
	presets=${*:-gpt2-b8-s128 resnet50-b32}
	[ "$part" = mps ] && { mps_start || { echo "MPS did not start"; exit 1; }; }
	mode=$([ "$part" = mps ] && echo mps || echo timesliced)
	for p in $presets; do
		exec_sweep "$OUT/$part/$mode/$p" "$p" "$REPEATS" "$PROCS"
	done
	;;
field)
	ensure_built
	p=mi300x-8.7ms
	"$PYTHON" "$REF" --list-presets >"$OUT/field/presets.txt"
	"$PYTHON" "$REF" --flops --preset $p >"$OUT/field/flops.txt"
	exec_sweep "$OUT/field/timesliced/$p" "$p" "$REPEATS" "$PROCS"
	mps_start || { echo "MPS did not start"; exit 1; }
	exec_sweep "$OUT/field/mps/$p" "$p" "$REPEATS" "$PROCS"
	;;
arms)
	ensure_built
	presets=${*:-gpt2-b8-s128}
	for p in $presets; do
		# ARM_REPEATS (1) repeats each; ARM_STOCK=1 adds the stock arm in the
		# same part, for a comparison on the same machine and run
		# ARM_ONLY: a space-separated subset of the arms' names
		r=${ARM_REPEATS:-1}
		want() { [ -z "${ARM_ONLY:-}" ] || [[ " $ARM_ONLY " == *" $1 "* ]]; }
		[ "${ARM_STOCK:-0}" = 1 ] && want stock && exec_sweep "$OUT/arms/stock/$p" "$p" "$r" "$PROCS"
		want cpu-threads-1 && exec_sweep "$OUT/arms/cpu-threads-1/$p" "$p" "$r" "$PROCS" --cpu-threads 1
		want cpu-threads-auto && exec_sweep "$OUT/arms/cpu-threads-auto/$p" "$p" "$r" "$PROCS" --cpu-threads auto
		[ "${ARM_PIN:-1}" = 1 ] && want pin-numa && exec_sweep "$OUT/arms/pin-numa/$p" "$p" "$r" "$PROCS" --pin numa
		want idle-procs-2 && exec_sweep "$OUT/arms/idle-procs-2/$p" "$p" "$r" "$PROCS" --idle-procs 2
	done
	;;
agree)
	ensure_built
	presets=${*:-gpt2-b8-s128 resnet50-b32 mi300x-8.7ms}
	for r in $(seq 1 "$ROUNDS"); do
		for p in $presets; do
			exec_sweep "$OUT/agree/exec/$p/r$r" "$p" 1 1
			standalone "$OUT/agree/standalone/$p/r$r.json" "$p"
		done
	done
	;;
overhead)
	ensure_built
	"$PYTHON" "$root/tests/harness/bench/exec_overhead.py" "$BUILD" --repeats "${OVERHEAD_REPEATS:-10}" \
		>"$OUT/overhead/exec-overhead.txt" 2>&1
	echo "exec_overhead.py exit $?"
	cat "$OUT/overhead/exec-overhead.txt"
	;;
summary) ;;
esac
echo "== $part done in $(elapsed) s"
summary
