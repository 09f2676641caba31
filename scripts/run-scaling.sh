#!/usr/bin/env bash
# Build the kfdmp harness and run the scaling matrix of tests/harness/README.md.
#
#   scripts/run-scaling.sh build  BUILD_DIR [cmake -D options...]
#       (without cmake: a direct nvcc + g++ build of the CUDA binaries only)
#   scripts/run-scaling.sh matrix BUILD_DIR OUT_DIR [--duration S --warmup S]
#       every workload (KFDMP_WORKLOADS, default "latency saturate copy mixed")
#       at 1,2,4,8 processes, KFDMP_REPEAT times each (default 3),
#       time-sliced and, where nvidia-cuda-mps-control exists, under MPS;
#       then kfdmp-bare at 1 process (KFDMP_REPEAT times) for the
#       harness-overhead comparison. The options go to kfdmp and kfdmp-bare.
#
# Results: OUT_DIR/{timesliced,mps}/<workload>/results.{json,csv} and
# OUT_DIR/bare/<workload>.txt; the console output of everything goes to stdout.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)

die() { echo "run-scaling: $*" >&2; exit 1; }

build() {
	local dir=$1; shift
	if command -v cmake >/dev/null; then
		cmake -S "$here/tests/harness" -B "$dir" "$@"
		cmake --build "$dir" -j"$(nproc)"
		return
	fi
	echo "run-scaling: no cmake; building the CUDA binaries with nvcc and g++ (no tests)"
	local src=$here/tests/harness/src cuda=${CUDA_HOME:-/usr/local/cuda}
	local core=("$src"/{barrier,json,kfd_probe,launcher,options,report,shared_region,stats,worker}.cpp)
	local cxx=(g++ -std=c++17 -O2 -I"$src" -DKFDMP_DEFAULT_TRACE_SCRIPT="\"$here/scripts/trace.sh\"")
	mkdir -p "$dir"
	"$cuda/bin/nvcc" -std=c++17 -O2 -arch=sm_90 -x cu -I"$src" -c "$src/gpu_workloads.cpp" -o "$dir/gpu_workloads.o"
	"${cxx[@]}" -DKFDMP_BACKEND='"cuda"' "$src/kfdmp_main.cpp" "${core[@]}" -o "$dir/kfdmp"
	local main
	for main in worker_gpu_main:kfdmp-worker bare:kfdmp-bare; do
		"${cxx[@]}" "$src/${main%%:*}.cpp" "${core[@]}" "$dir/gpu_workloads.o" \
			-L"$cuda/lib64" -lcudart -Wl,-rpath,"$cuda/lib64" -o "$dir/${main##*:}"
	done
}

mps_start() {
	export CUDA_MPS_PIPE_DIRECTORY=/tmp/kfdmp-mps-pipe CUDA_MPS_LOG_DIRECTORY=/tmp/kfdmp-mps-log
	mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
	nvidia-cuda-mps-control -d
}

mps_stop() {
	echo quit | nvidia-cuda-mps-control || true
	unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
}

sweep() {
	local bin=$1 out=$2; shift 2
	local w
	for w in ${KFDMP_WORKLOADS:-latency saturate copy mixed}; do
		echo "== $(basename "$out") $w"
		"$bin/kfdmp" --workload "$w" --procs 1,2,4,8 --repeat "${KFDMP_REPEAT:-3}" --out "$out/$w" "$@" ||
			echo "run-scaling: kfdmp exited $?"
	done
}

matrix() {
	local bin=$1 out=$2; shift 2
	[ -x "$bin/kfdmp" ] || die "$bin/kfdmp not built"
	mkdir -p "$out/bare"
	sweep "$bin" "$out/timesliced" "$@"
	if command -v nvidia-cuda-mps-control >/dev/null; then
		mps_start
		trap mps_stop EXIT
		sweep "$bin" "$out/mps" "$@"
		mps_stop
		trap - EXIT
	else
		echo "run-scaling: nvidia-cuda-mps-control not found; no MPS runs"
	fi
	local w i
	for w in ${KFDMP_WORKLOADS:-latency saturate copy mixed}; do
		for i in $(seq "${KFDMP_REPEAT:-3}"); do
			"$bin/kfdmp-bare" --workload "$w" "$@" | tee -a "$out/bare/$w.txt"
		done
	done
}

case ${1:-} in
build) [ $# -ge 2 ] || die "usage: $0 build BUILD_DIR [cmake options]"; shift; build "$@" ;;
matrix) [ $# -ge 3 ] || die "usage: $0 matrix BUILD_DIR OUT_DIR [kfdmp options]"; shift; matrix "$@" ;;
*) die "usage: $0 build|matrix ... (see the header of this script)" ;;
esac
