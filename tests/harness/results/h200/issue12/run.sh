#!/usr/bin/env bash
# The issue-12 measurements on the lent H200 (device `run` tool), from the
# repository root: run.sh PART OUT, PART = core (build, reference-shape
# agreement, stamping overhead, time-sliced and MPS matrix) or extras
# (build, streams, graph, gemm, mix, open loop, cu-split in both modes).
# Everything ends up in OUT/<part>.tar.gz, even when a step fails or the
# call runs out of time.
set -uo pipefail
part=$1 out=$2
res=/tmp/kfdmp-$part
mkdir -p "$res" "$out"
trap 'tar -czf "$out/$part.tar.gz" -C /tmp "kfdmp-$part"' EXIT
exec > >(tee "$res/console.log") 2>&1
b=build/cuda
step() { echo "=== $(date -u +%T) $*"; }

step build
scripts/run-scaling.sh build "$b" -DKFDMP_GPU=cuda || exit 1
nvidia-smi > "$res/nvidia-smi.txt" 2>&1
nvidia-smi -q -d CLOCK > "$res/clocks.txt" 2>&1
nproc > "$res/nproc.txt"

ref_shape=(--blocks 4224 --iters 2000)
if [ "$part" = core ]; then
	step agreement
	KFDMP_REPEAT=3 KFDMP_DURATION=2 scripts/run-scaling.sh agreement "$b" "$res/agreement"
	step stamping overhead
	for i in 1 2 3; do
		for w in latency saturate; do
			opts=()
			[ "$w" = saturate ] && opts=("${ref_shape[@]}")
			for k in 0 10; do
				"$b/kfdmp" --workload "$w" "${opts[@]}" --procs 1 --duration 2 --warmup 0.5 --stamp-every "$k" \
					--out "$res/overhead/$w-stamp$k-r$i" | sed -n 2p | sed "s/^/$w stamp-every=$k: /" |
					tee -a "$res/overhead.txt"
			done
		done
	done
	step sass
	(cuobjdump -sass "$b/kfdmp-worker" || /usr/local/cuda/bin/cuobjdump -sass "$b/kfdmp-worker") 2>&1 |
		grep -m 8 FFMA > "$res/fma-sass.txt"
	step mix
	KFDMP_MODES="timesliced mps" KFDMP_REPEAT=2 scripts/run-scaling.sh extras-mix "$b" "$res/extras" --duration 2 --warmup 0.5
	step matrix
	KFDMP_REPEAT=2 KFDMP_OPTS_saturate="${ref_shape[*]}" scripts/run-scaling.sh matrix "$b" "$res/matrix" \
		--duration 2 --warmup 0.5
elif [ "$part" = extras ]; then
	step extras
	KFDMP_REPEAT=2 scripts/run-scaling.sh extras "$b" "$res/extras" --duration 2 --warmup 0.5
	step scaling ctest
	if [ -x "$b/kfdmp-scaling-tests" ]; then
		KFDMP_SCALING_DURATION=1 timeout 120 "$b/kfdmp-scaling-tests" --gtest_filter='*latency_N1*:*saturate_N2*:*latency_N2*' \
			> "$res/scaling-tests.txt" 2>&1
	fi
fi
step finished
