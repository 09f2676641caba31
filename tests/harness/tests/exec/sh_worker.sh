#!/bin/sh
# A plain-shell exec worker (protocol 1, docs/exec-workers.md) for the
# harness's tests: no GPU. It echoes the env/option lines it got to stderr,
# answers `ready gpu_time=1` and reports 1000 ns of "GPU time" per query.
while read -r kind rest; do
	case "$kind" in
	config) break ;;
	env | option) echo "sh_worker: $kind $rest" >&2 ;;
	esac
done
echo "kfdmp 1 ready device=sh-worker gpu_time=1"
while read -r kind seq; do
	case "$kind" in
	query) echo "done $seq gpu_ns=1000" ;;
	stop) exit 0 ;;
	*) echo "sh_worker: unexpected line: $kind $seq" >&2; exit 3 ;;
	esac
done
exit 0
