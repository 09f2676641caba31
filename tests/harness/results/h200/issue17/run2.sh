#!/usr/bin/env bash
# Issue 17 run 2 on the lent H200: the scaling suite with 3 rounds, its noise
# estimate and the target mode (KFDMP_SCALING_TARGET=0.9), latency and
# saturate, time-sliced and under MPS. run2.sh HARNESS_SRC BUILD_DIR OUT;
# everything goes to OUT/issue17-run2.tar.gz.
set -uo pipefail
src=$1 b=$2 out=$3
res=/tmp/run2
mkdir -p "$res" "$out"
trap 'tar -czf "$out/issue17-run2.tar.gz" -C /tmp run2' EXIT
exec > >(tee "$res/console.log") 2>&1
step() { echo "=== $(date -u +%T) $*"; }
step build
cmake -S "$src" -B "$b" -DKFDMP_GPU=cuda -DCMAKE_BUILD_TYPE=Release > "$res/build.log" 2>&1 &&
	cmake --build "$b" -j16 >> "$res/build.log" 2>&1 || { tail -40 "$res/build.log"; exit 1; }
suite() { # MODE
	step "$1: ctest -L scaling, target 0.9, 3 rounds of 1.5 s"
	(cd "$b" && KFDMP_SCALING_TARGET=0.9 KFDMP_SCALING_DURATION=1.5 ctest -L scaling -R 'latency|saturate' \
		--output-on-failure > "$res/$1-ctest.log" 2>&1)
	grep -E "tests passed|Passed|Failed|\*\*\*" "$res/$1-ctest.log" | grep -E "Test +#|tests passed" | sed 's/^/   /'
	grep -E "collapsed to|keep .* of the 1-process|spread .*% \(relative" "$res/$1-ctest.log" | sed 's/^/   /' | head -20
}
suite timesliced
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log
mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
if nvidia-cuda-mps-control -d; then
	suite mps
	echo quit | nvidia-cuda-mps-control
else
	echo "MPS did not start"
fi
step done
