#!/usr/bin/env bash
# Build the kfdmp harness and run the scaling matrix of tests/harness/README.md.
#
#   scripts/run-scaling.sh build  BUILD_DIR [cmake -D options...]
#       (without cmake: a direct nvcc + g++ build of the CUDA binaries and
#       the exec worker only, no tests)
#   scripts/run-scaling.sh matrix BUILD_DIR OUT_DIR [--duration S --warmup S]
#       every workload (KFDMP_WORKLOADS, default "latency saturate copy mixed")
#       at 1,2,4,8 processes, KFDMP_REPEAT times each (default 3),
#       time-sliced and, where nvidia-cuda-mps-control exists, under MPS;
#       then kfdmp-bare at 1 process (KFDMP_REPEAT times) for the
#       harness-overhead comparison. The options go to kfdmp and kfdmp-bare.
#
#   scripts/run-scaling.sh agreement BUILD_DIR OUT_DIR
#       the reference-shape check of tests/harness/README.md: kfdmp-reference
#       (an independent textbook FMA loop), kfdmp-bare and kfdmp (1 process)
#       at the reference shape (8 x 4224 blocks x 256 threads x 2000 FMA) and
#       the small shape (8 x 4 x 256 x 20000), interleaved, KFDMP_REPEAT times
#       (default 3); KFDMP_DURATION seconds each (default 3)
#   scripts/run-scaling.sh extras BUILD_DIR OUT_DIR [--duration S --warmup S]
#       --streams, --graph, gemm, --mix latency:4,saturate:4, --rate and
#       --cu-split runs (under MPS too when nvidia-cuda-mps-control exists)
#
# KFDMP_MODES (default "timesliced mps") picks the modes of matrix and
# extras. KFDMP_OPTS_<workload> adds options for one workload in the matrix,
# e.g. KFDMP_OPTS_saturate="--blocks 4224 --iters 2000" (the reference shape).
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
	# kfdmp_core's sources, as tests/harness/CMakeLists.txt lists them.
	local core=()
	mapfile -t core < <(sed -n '/^add_library(kfdmp_core STATIC/,/)/p' "$here/tests/harness/CMakeLists.txt" |
		grep -o 'src/[a-z_]*\.cpp' | sed "s#^#$here/tests/harness/#")
	[ ${#core[@]} -gt 0 ] || { echo "run-scaling: no kfdmp_core sources in tests/harness/CMakeLists.txt" >&2; return 1; }
	core+=("$src"/../sched/src/signal_socket.cpp)
	local cxx=(g++ -std=c++17 -O2 -I"$src" -I"$src/../sched/src" -DKFDMP_DEFAULT_TRACE_SCRIPT="\"$here/scripts/trace.sh\"")
	local blas=() blas_lib=()
	if [ -e "$cuda/include/cublas_v2.h" ]; then
		blas=(-DKFDMP_HAVE_BLAS=1)
		blas_lib=(-lcublas)
	fi
	mkdir -p "$dir"
	"$cuda/bin/nvcc" -std=c++17 -O2 -arch=sm_90 -x cu -I"$src" "${blas[@]}" -c "$src/gpu_workloads.cpp" -o "$dir/gpu_workloads.o"
	"$cuda/bin/nvcc" -std=c++17 -O2 -arch=sm_90 -x cu -I"$src" "$src/reference_fma.cpp" -o "$dir/kfdmp-reference"
	"${cxx[@]}" -DKFDMP_BACKEND='"cuda"' "$src/kfdmp_main.cpp" "${core[@]}" -o "$dir/kfdmp"
	"${cxx[@]}" "$src/inspect_main.cpp" "${core[@]}" -o "$dir/kfdmp-inspect"
	# The exec worker (kfdmp --exec; docs/exec-workers.md): CPU only, as CMake builds it.
	"${cxx[@]}" "$src/exec_worker_main.cpp" "${core[@]}" -o "$dir/kfdmp-exec-worker"
	local main
	for main in worker_gpu_main:kfdmp-worker bare:kfdmp-bare; do
		"${cxx[@]}" "$src/${main%%:*}.cpp" "${core[@]}" "$dir/gpu_workloads.o" \
			-L"$cuda/lib64" -lcudart "${blas_lib[@]}" -Wl,-rpath,"$cuda/lib64" -o "$dir/${main##*:}"
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

workload_opts() {
	local var="KFDMP_OPTS_$1"
	echo "${!var:-}"
}

sweep() {
	local bin=$1 out=$2; shift 2
	local w
	for w in ${KFDMP_WORKLOADS:-latency saturate copy mixed}; do
		echo "== $(basename "$out") $w"
		# shellcheck disable=SC2046 # the per-workload options are words
		"$bin/kfdmp" --workload "$w" --procs 1,2,4,8 --repeat "${KFDMP_REPEAT:-3}" --out "$out/$w" \
			$(workload_opts "$w") "$@" || echo "run-scaling: kfdmp exited $?"
	done
}

# Runs "$@" in each mode of KFDMP_MODES; the mode's name is in $mode.
in_modes() {
	local fn=$1; shift
	for mode in ${KFDMP_MODES:-timesliced mps}; do
		if [ "$mode" = mps ]; then
			if ! command -v nvidia-cuda-mps-control >/dev/null; then
				echo "run-scaling: nvidia-cuda-mps-control not found; no MPS runs"
				continue
			fi
			mps_start
			trap mps_stop EXIT
		fi
		"$fn" "$@"
		if [ "$mode" = mps ]; then
			mps_stop
			trap - EXIT
		fi
	done
}

matrix_mode() { local bin=$1 out=$2; shift 2; sweep "$bin" "$out/$mode" "$@"; }

matrix() {
	local bin=$1 out=$2; shift 2
	[ -x "$bin/kfdmp" ] || die "$bin/kfdmp not built"
	mkdir -p "$out/bare"
	in_modes matrix_mode "$bin" "$out" "$@"
	local w i
	for w in ${KFDMP_WORKLOADS:-latency saturate copy mixed}; do
		for i in $(seq "${KFDMP_REPEAT:-3}"); do
			# shellcheck disable=SC2046
			"$bin/kfdmp-bare" --workload "$w" $(workload_opts "$w") "$@" | tee -a "$out/bare/$w.txt" ||
				echo "run-scaling: kfdmp-bare exited $?"
		done
	done
}

agreement() {
	local bin=$1 out=$2 d=${KFDMP_DURATION:-3} i shape b it
	[ -x "$bin/kfdmp-reference" ] || die "$bin/kfdmp-reference not built"
	mkdir -p "$out"
	for i in $(seq "${KFDMP_REPEAT:-3}"); do
		for shape in "4224 2000" "4 20000"; do
			read -r b it <<<"$shape"
			echo "== agreement round $i shape blocks=$b iters=$it"
			"$bin/kfdmp-reference" --kernels 8 --blocks "$b" --threads 256 --iters "$it" --duration "$d" --warmup 1 |
				tee -a "$out/reference.txt"
			"$bin/kfdmp-bare" --workload saturate --kernels 8 --blocks "$b" --threads 256 --iters "$it" \
				--duration "$d" --warmup 1 | tee -a "$out/bare.txt"
			"$bin/kfdmp" --workload saturate --kernels 8 --blocks "$b" --threads 256 --iters "$it" --procs 1 \
				--duration "$d" --warmup 1 --out "$out/harness-$b-$it-r$i" | sed -n 2p |
				sed "s/^/harness blocks=$b iters=$it: /" | tee -a "$out/harness.txt"
		done
	done
}

extras_mode() {
	local bin=$1 out=$2; shift 2
	local o=$out/$mode
	local run=("$bin/kfdmp" --procs "1,2,4,8" --repeat "${KFDMP_REPEAT:-2}")
	echo "== $mode streams"
	"${run[@]}" --workload latency --streams 4 --out "$o/latency-streams4" "$@" || true
	echo "== $mode graph"
	"${run[@]}" --workload latency --graph --out "$o/latency-graph" "$@" || true
	echo "== $mode gemm"
	"${run[@]}" --workload gemm --out "$o/gemm" "$@" || true
	echo "== $mode mix"
	"$bin/kfdmp" --mix latency:4,saturate:4 --repeat "${KFDMP_REPEAT:-2}" --out "$o/mix" "$@" || true
	echo "== $mode rate"
	"${run[@]}" --workload latency --rate 2000 --out "$o/latency-rate2000" "$@" || true
	echo "== $mode cu-split"
	"${run[@]}" --workload saturate --cu-split --out "$o/cu-split" "$@" || true
}

mix_mode() {
	local bin=$1 out=$2; shift 2
	"$bin/kfdmp" --mix latency:4,saturate:4 --repeat "${KFDMP_REPEAT:-2}" --out "$out/$mode/mix" "$@" || true
}

extras() {
	local bin=$1 out=$2; shift 2
	[ -x "$bin/kfdmp" ] || die "$bin/kfdmp not built"
	in_modes extras_mode "$bin" "$out" "$@"
}

case ${1:-} in
build) [ $# -ge 2 ] || die "usage: $0 build BUILD_DIR [cmake options]"; shift; build "$@" ;;
matrix) [ $# -ge 3 ] || die "usage: $0 matrix BUILD_DIR OUT_DIR [kfdmp options]"; shift; matrix "$@" ;;
agreement) [ $# -eq 3 ] || die "usage: $0 agreement BUILD_DIR OUT_DIR"; shift; agreement "$@" ;;
extras) [ $# -ge 3 ] || die "usage: $0 extras BUILD_DIR OUT_DIR [kfdmp options]"; shift; extras "$@" ;;
extras-mix) [ $# -ge 3 ] || die "usage: $0 extras-mix BUILD_DIR OUT_DIR [kfdmp options]"; shift; in_modes mix_mode "$@" ;;
*) die "usage: $0 build|matrix|agreement|extras ... (see the header of this script)" ;;
esac
