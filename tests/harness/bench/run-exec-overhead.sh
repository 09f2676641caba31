#!/bin/sh
# The exec bridge's overhead benchmark in one command: builds the four
# programs it needs (CPU only, -DKFDMP_GPU=none: no GPU is involved) and runs
# exec_overhead.py. Usage:
#   tests/harness/bench/run-exec-overhead.sh [BUILD_DIR [exec_overhead.py options]]
# e.g. tests/harness/bench/run-exec-overhead.sh build/exec-overhead --repeats 10
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../../build/exec-overhead}
[ $# -gt 0 ] && shift
cmake -S "$here/.." -B "$build" -DKFDMP_GPU=none >/dev/null
cmake --build "$build" -j"$(nproc)" --target kfdmp kfdmp-exec-worker kfdmp-test-worker kfdmp-exec-sleep-worker >/dev/null
exec python3 "$here/exec_overhead.py" "$build" "$@"
