#!/usr/bin/env bash
# Issue 18 on the lent H200 (device `run` tool): the harness's tenant mode,
# the no-control arm and the CUDA-stream-priority arm (the sched arm skips
# itself with its reason: CUDA build), time-sliced and under MPS. Run from
# the repository root as
#   run.sh HARNESS_SRC BUILD_DIR OUT
# (the run tool copies the main checkout, so the branch's harness travels in
# .devrun/). Everything goes to OUT/issue18.tar.gz, even when a step fails.
set -uo pipefail
src=$1 b=$2 out=$3
res=/tmp/issue18
mkdir -p "$res" "$out"
trap 'tar -czf "$out/issue18.tar.gz" -C /tmp issue18' EXIT
exec > >(tee "$res/console.log") 2>&1
step() { echo "=== $(date -u +%T) $*"; }
common=(--duration 3 --warmup 1 --repeat 2)

step build
cmake -S "$src" -B "$b" -DKFDMP_GPU=cuda -DCMAKE_BUILD_TYPE=Release > "$res/build.log" 2>&1 &&
	cmake --build "$b" -j16 >> "$res/build.log" 2>&1 || { tail -40 "$res/build.log"; exit 1; }
nvidia-smi > "$res/nvidia-smi.txt" 2>&1
step unit tests
(cd "$b" && ctest -L unit -R 'Tenant|Options' --output-on-failure > "$res/ctest-unit.log" 2>&1; tail -3 "$res/ctest-unit.log")

tenants() { # MODE
	# A launch-bound critical tenant (latency: 8 short kernels) and a
	# compute-bound one (saturate, about 1 ms), each beside 3 saturating
	# best-effort processes; rates keep the critical busy fraction alone low.
	step "$1 critical latency at 500/s, best-effort saturate:3"
	"$b/kfdmp" --critical latency --rate 500 --mix saturate:3 "${common[@]}" --out "$res/$1/latency" |
		sed -n '/^tenant mode/,$p'
	step "$1 critical saturate at 200/s, best-effort saturate:3"
	"$b/kfdmp" --critical saturate --rate 200 --mix saturate:3 "${common[@]}" --out "$res/$1/saturate" |
		sed -n '/^tenant mode/,$p'
}

tenants timesliced

step mps start
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log
mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
if nvidia-cuda-mps-control -d; then
	tenants mps
	echo quit | nvidia-cuda-mps-control
	step mps stopped
else
	echo "MPS did not start"
fi
step done
