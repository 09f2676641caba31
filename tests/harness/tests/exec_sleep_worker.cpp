// kfdmp-exec-sleep-worker: a native exec worker (protocol 1,
// docs/exec-workers.md) whose query is usleep(US), the same as
// kfdmp-test-worker's `sleep` workload with --iters US. bench/exec_overhead.py
// runs both through kfdmp to measure what the exec bridge adds to a query.
// Usage: kfdmp-exec-sleep-worker [US]   (default 1000)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

int main(int argc, char** argv)
{
	const unsigned us = argc > 1 ? unsigned(std::strtoul(argv[1], nullptr, 10)) : 1000;
	char line[4096];
	while (std::fgets(line, sizeof line, stdin))
		if (std::strcmp(line, "config end\n") == 0)
			break;
	std::printf("kfdmp 1 ready device=sleep-%uus\n", us);
	std::fflush(stdout);
	while (std::fgets(line, sizeof line, stdin)) {
		unsigned long long seq = 0;
		if (std::sscanf(line, "query %llu", &seq) == 1) {
			usleep(us);
			std::printf("done %llu\n", seq);
			std::fflush(stdout);
		} else if (std::strcmp(line, "stop\n") == 0) {
			return 0;
		}
	}
	return 0; // EOF: the same as stop
}
