#!/usr/bin/env bash
# scripts/run-scaling.sh build without cmake (a GPU machine with only nvcc and
# g++): every harness program is built, the exec worker (kfdmp --exec) among
# them, from its main and kfdmp_core's sources as tests/harness/CMakeLists.txt
# lists them. nvcc and g++ are stand-ins that log their arguments; a PATH
# without cmake takes the script's cmake-less branch. About a second.
# ok and bad always succeed (tests/test-lib.sh): `cond && ok .. || bad ..` is an if-else.
# shellcheck disable=SC2015
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../../test-lib.sh
. "$(dirname "$0")/../../test-lib.sh"
scratch run-scaling-build
stub=$tmp/bin
mkdir -p "$stub" "$tmp/cuda/bin"
# the tools the build function uses, and nothing named cmake
for t in bash env dirname sed grep mkdir nproc cat; do
	p=$(command -v "$t") || { echo "run-scaling-build: no $t"; exit 1; }
	ln -s "$p" "$stub/$t"
done
cat >"$stub/g++" <<'SH'
#!/usr/bin/env bash
echo "g++ $*" >>"$LOG"
while [ $# -gt 0 ]; do [ "$1" = -o ] && : >"$2"; shift; done
SH
cp "$stub/g++" "$tmp/cuda/bin/nvcc"
sed -i 's/^echo "g++ /echo "nvcc /' "$tmp/cuda/bin/nvcc"
chmod +x "$stub/g++" "$tmp/cuda/bin/nvcc"
export LOG=$tmp/calls.log
rc=0
PATH=$stub CUDA_HOME=$tmp/cuda "$root/scripts/run-scaling.sh" build "$tmp/build" >"$tmp/out.log" 2>&1 || rc=$?
[ "$rc" = 0 ] && grep -q 'no cmake; building' "$tmp/out.log" && ok "build without cmake: exit 0, the cmake-less branch" ||
	{ cat "$tmp/out.log"; bad "build without cmake: exit $rc"; }
for prog in kfdmp kfdmp-inspect kfdmp-worker kfdmp-bare kfdmp-reference kfdmp-exec-worker; do
	[ -e "$tmp/build/$prog" ] && ok "$prog built" || bad "$prog not built: $(cat "$LOG" 2>/dev/null)"
done
line=$(grep -- "-o $tmp/build/kfdmp-exec-worker\$" "$LOG" || true)
grep -q "src/exec_worker_main.cpp " <<<"$line" && grep -q "src/launcher.cpp " <<<"$line" &&
	grep -q "src/exec_bridge.cpp " <<<"$line" && ! grep -q -- "-lcudart" <<<"$line" &&
	ok "kfdmp-exec-worker: exec_worker_main.cpp and kfdmp_core's sources, no CUDA library" ||
	bad "kfdmp-exec-worker's command: ${line:-none}"
verdict "run-scaling build without cmake"
