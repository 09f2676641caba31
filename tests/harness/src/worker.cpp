#include "worker.h"

#include "clock.h"
#include "shared_region.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string_view>
#include <unistd.h>

namespace kfdmp {
namespace {

void set_text(char* dst, size_t cap, const std::string& s)
{
	std::snprintf(dst, cap, "%s", s.c_str());
}

int fail(WorkerSlot& slot, int code, const std::string& why)
{
	set_text(slot.error, sizeof slot.error, why);
	slot.state.store(WorkerState::failed, std::memory_order_release);
	std::fprintf(stderr, "kfdmp worker %d: %s\n", int(getpid()), why.c_str());
	return code;
}

// Warm-up and measurement: a query counts when it starts inside the window.
void run_window(Workload& w, const RunConfig& cfg, uint64_t release_ns, WorkerSlot& slot,
		uint64_t* latencies)
{
	const uint64_t measure_from = release_ns + cfg.warmup_ns;
	const uint64_t end = measure_from + cfg.duration_ns;
	uint64_t queries = 0, samples = 0;
	slot.first_query_ns = now_ns();
	for (uint64_t t0 = slot.first_query_ns; t0 < end; t0 = now_ns()) {
		w.query();
		const uint64_t t1 = now_ns();
		if (t0 < measure_from)
			continue;
		if (queries++ == 0)
			slot.measure_begin_ns = t0;
		slot.measure_end_ns = t1;
		if (samples < cfg.latency_capacity)
			latencies[samples++] = t1 - t0;
	}
	slot.queries = queries;
	slot.samples = samples;
}

int run(const SharedRegion& region, uint32_t index, WorkloadFactory make)
{
	const RunConfig& cfg = region.header().config;
	WorkerSlot& slot = region.slot(index);
	slot.state.store(WorkerState::initialising, std::memory_order_release);

	std::unique_ptr<Workload> w;
	try {
		w = make(cfg.params);
		set_text(slot.device, sizeof slot.device, w->device());
		w->query(); // first-use costs (module load, page mapping) stay out of the window
	} catch (const Unavailable& e) {
		return fail(slot, worker_unavailable, e.what());
	} catch (const std::exception& e) {
		return fail(slot, worker_error, std::string("initialisation: ") + e.what());
	}

	// Fault the latency buffer in now, so page faults stay out of the window.
	std::memset(region.latencies(index), 0, cfg.latency_capacity * sizeof(uint64_t));
	slot.state.store(WorkerState::ready, std::memory_order_release);
	switch (region.header().barrier.arrive_and_wait(now_ns() + cfg.init_timeout_ns)) {
	case ShmBarrier::Result::released: break;
	case ShmBarrier::Result::broken: return fail(slot, worker_no_start, "start barrier broken by the launcher");
	case ShmBarrier::Result::timed_out: return fail(slot, worker_no_start, "timed out at the start barrier");
	}
	slot.state.store(WorkerState::running, std::memory_order_release);
	try {
		run_window(*w, cfg, region.header().barrier.release_ns(), slot, region.latencies(index));
		slot.state.store(WorkerState::verifying, std::memory_order_release);
		w->verify();
	} catch (const VerifyError& e) {
		return fail(slot, worker_wrong, std::string("verification failed: ") + e.what());
	} catch (const std::exception& e) {
		return fail(slot, worker_error, e.what());
	}
	slot.state.store(WorkerState::done, std::memory_order_release);
	return worker_ok;
}

bool parse_uint(const char* s, unsigned long& out)
{
	char* end = nullptr;
	errno = 0;
	out = std::strtoul(s, &end, 10);
	return errno == 0 && end != s && *end == '\0';
}

int usage(const char* prog)
{
	std::fprintf(stderr,
		     "usage: %s --probe\n"
		     "       %s --shm-fd FD --index I   (started by kfdmp)\n",
		     prog, prog);
	return worker_usage;
}

} // namespace

int worker_main(int argc, char** argv, WorkloadFactory make, ProbeFn probe)
{
	if (argc == 2 && std::string_view(argv[1]) == "--probe") {
		try {
			std::printf("%s\n", probe().c_str());
			return worker_ok;
		} catch (const std::exception& e) {
			std::printf("unavailable: %s\n", e.what());
			return worker_unavailable;
		}
	}
	unsigned long fd = 0, index = 0;
	if (argc != 5 || std::string_view(argv[1]) != "--shm-fd" || !parse_uint(argv[2], fd) ||
	    std::string_view(argv[3]) != "--index" || !parse_uint(argv[4], index))
		return usage(argv[0]);
	try {
		SharedRegion region = SharedRegion::attach(int(fd));
		if (index >= region.header().config.workers)
			return usage(argv[0]);
		return run(region, uint32_t(index), make);
	} catch (const std::exception& e) {
		std::fprintf(stderr, "kfdmp worker: %s\n", e.what());
		return worker_error;
	}
}

} // namespace kfdmp
