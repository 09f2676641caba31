// kfdmp-bare: the same GPU workloads in a plain loop in one process, without
// launcher, barrier, shared memory or per-query timestamps. Its QPS is the
// reference for the harness's overhead at 1 process.
#include "clock.h"
#include "gpu_workloads.h"
#include "options.h"

#include <cstdio>

using namespace kfdmp;

int main(int argc, char** argv)
{
	int status = 0;
	const std::optional<Options> parsed = parse_command_line(Program::bare, argc, argv, status);
	if (!parsed)
		return status;
	const Options& o = *parsed;
	try {
		auto w = make_gpu_workload(o.params);
		w->query();
		const uint64_t warm_end = now_ns() + seconds_to_ns(o.warmup_s);
		while (now_ns() < warm_end)
			w->query();
		uint64_t queries = 0;
		const uint64_t begin = now_ns(), end = begin + seconds_to_ns(o.duration_s);
		uint64_t t = begin;
		for (; t < end; t = now_ns(), ++queries)
			w->query();
		w->verify();
		std::printf("bare: workload=%s queries=%llu seconds=%.3f qps=%.1f device=\"%s\"\n", o.workload.c_str(),
			    (unsigned long long)queries, double(t - begin) / 1e9, double(queries) * 1e9 / double(t - begin),
			    w->device().c_str());
		return 0;
	} catch (const Unavailable& e) {
		std::fprintf(stderr, "kfdmp-bare: unavailable: %s\n", e.what());
		return 77;
	} catch (const std::exception& e) {
		std::fprintf(stderr, "kfdmp-bare: %s\n", e.what());
		return 1;
	}
}
