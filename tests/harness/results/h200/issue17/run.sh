#!/usr/bin/env bash
# Issue 17 on the lent H200 (device `run` tool): the analogs of the
# hypothesis arms that exist on NVIDIA, and the per-process attribution on
# time-sliced and MPS runs. Run from the repository root as
#   run.sh HARNESS_SRC BUILD_DIR OUT
# (the run tool copies the main checkout, so the branch's harness travels in
# .devrun/). Everything goes to OUT/issue17.tar.gz, even when a step fails.
set -uo pipefail
src=$1 b=$2 out=$3
res=/tmp/issue17
mkdir -p "$res" "$out"
trap 'tar -czf "$out/issue17.tar.gz" -C /tmp issue17' EXIT
exec > >(tee "$res/console.log") 2>&1
step() { echo "=== $(date -u +%T) $*"; }
common=(--duration 1.5 --warmup 0.5)

step build
cmake -S "$src" -B "$b" -DKFDMP_GPU=cuda -DCMAKE_BUILD_TYPE=Release > "$res/build.log" 2>&1 &&
	cmake --build "$b" -j16 >> "$res/build.log" 2>&1 || { tail -40 "$res/build.log"; exit 1; }
nvidia-smi > "$res/nvidia-smi.txt" 2>&1
step unit tests
(cd "$b" && ctest -L unit -j8 --output-on-failure > "$res/ctest-unit.log" 2>&1; tail -3 "$res/ctest-unit.log")

attribution() { # MODE
	for w in saturate latency; do
		step "$1 attribution $w"
		"$b/kfdmp" --workload "$w" --procs 1,2,4,8 --repeat 3 "${common[@]}" --out "$res/$1/$w" | sed -n '1,14p'
	done
	step "$1 mix latency:1,saturate:3"
	"$b/kfdmp" --mix latency:1,saturate:3 --repeat 2 "${common[@]}" --out "$res/$1/mix" | sed -n '1,20p'
}

attribution timesliced

# Hardware queues: HIP's GPU_MAX_HW_QUEUES has its CUDA analog in
# CUDA_DEVICE_MAX_CONNECTIONS (hardware work queues per context, default 8).
for c in 1 2 4 8; do
	step "queues: latency --streams 4, CUDA_DEVICE_MAX_CONNECTIONS=$c"
	CUDA_DEVICE_MAX_CONNECTIONS=$c "$b/kfdmp" --workload latency --streams 4 --procs 1,4 --repeat 3 "${common[@]}" \
		--out "$res/queues/conn$c" | sed -n '1,8p'
done
for g in stream graph; do
	step "submit path: latency $g"
	"$b/kfdmp" --workload latency --procs 1,4 --repeat 3 "${common[@]}" $([ $g = graph ] && echo --graph) \
		--out "$res/submit/$g" | sed -n '1,8p'
done

step mps start
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log
mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
if nvidia-cuda-mps-control -d; then
	attribution mps
	echo quit | nvidia-cuda-mps-control
	step mps stopped
else
	echo "MPS did not start"
fi
step done
