// kfdmp-exec-sleep-worker: a native exec worker (protocol 1,
// docs/exec-workers.md) whose query is usleep(US), the same as
// kfdmp-test-worker's `sleep` workload with --iters US. bench/exec_overhead.py
// runs both through kfdmp to measure what the exec bridge adds to a query.
// It takes the launcher's `pipeline=1` offer (closed loop; KFDMP_EXEC_PIPELINE=0
// in kfdmp's environment withholds it).
// Usage: kfdmp-exec-sleep-worker [US]   (default 1000)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

int main(int argc, char** argv)
{
	const unsigned us = argc > 1 ? unsigned(std::strtoul(argv[1], nullptr, 10)) : 1000;
	char line[4096];
	bool pipeline = false; // `hello ... pipeline=1`: the next query may come ahead (it waits in stdin)
	while (std::fgets(line, sizeof line, stdin)) {
		if (std::strncmp(line, "kfdmp 1 hello ", 14) == 0)
			pipeline = std::strstr(line, " pipeline=1\n") || std::strstr(line, " pipeline=1 ");
		if (std::strcmp(line, "config end\n") == 0)
			break;
	}
	std::printf("kfdmp 1 ready device=sleep-%uus%s\n", us, pipeline ? " pipeline=1" : "");
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
