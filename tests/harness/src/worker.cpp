#include "worker.h"

#include "clock.h"
#include "shared_region.h"
#include "signal_socket.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <random>
#include <string_view>
#include <ctime>
#include <unistd.h>

namespace kfdmp {
namespace {

WorkerSlot* g_slot = nullptr;
uint32_t g_index = 0, g_workers = 0;

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

void sleep_until(uint64_t t_ns)
{
	timespec ts{time_t(t_ns / 1000000000), long(t_ns % 1000000000)};
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
	}
}

// Warm-up and measurement. A query counts for QPS when it starts inside the
// window; every query that ends after the window opened is recorded (start,
// end), so the launcher can count completions inside the common window. In
// open-loop mode (params.rate > 0) arrivals follow a Poisson process and a
// query's start is its scheduled arrival, so latency includes queueing.
void run_window(Workload& w, const RunConfig& cfg, const WorkloadParams& p, uint64_t release_ns,
		WorkerSlot& slot, QueryRecord* records)
{
	const uint64_t measure_from = release_ns + cfg.warmup_ns;
	const uint64_t end = measure_from + cfg.duration_ns;
	const bool stamping = cfg.stamp_every && cfg.bin_ns && p.stamp_capacity && w.stamps();
	std::mt19937_64 rng(uint64_t(getpid()) * 0x9e3779b97f4a7c15ull);
	std::exponential_distribution<double> gap(p.rate > 0 ? p.rate : 1.0);
	uint64_t queries = 0, samples = 0, dropped = 0, next_arrival = now_ns();
	int64_t stamped_bin = -1;
	// Tenant mode's sched arm: tell kfdmp-sched when outstanding critical
	// work goes 0 -> 1 (busy) and 1 -> 0 (idle).
	std::unique_ptr<sched::CriticalNotifier> notifier;
	if (p.rate > 0 && p.notify_socket[0])
		notifier = std::make_unique<sched::CriticalNotifier>(p.notify_socket);
	bool busy = false;
	slot.first_query_ns = now_ns();
	for (;;) {
		uint64_t t0 = now_ns();
		uint64_t start = t0;
		if (p.rate > 0) {
			// Arrivals still waiting at the end of the window are not served.
			if (next_arrival >= end || t0 >= end)
				break;
			if (next_arrival > t0) {
				sleep_until(next_arrival);
				t0 = now_ns();
			}
			start = next_arrival;
			next_arrival += uint64_t(gap(rng) * 1e9);
		} else if (t0 >= end) {
			break;
		}
		const int64_t bin = stamping && t0 >= measure_from ? int64_t((t0 - measure_from) / cfg.bin_ns) : -1;
		const bool stamp = stamping && bin >= 0 && bin % cfg.stamp_every == cfg.stamp_every / 2;
		if ((stamp ? bin : -1) != stamped_bin) {
			stamped_bin = stamp ? bin : -1;
			w.stamp_queries(stamped_bin);
		}
		if (notifier && !busy)
			busy = notifier->busy() == 0;
		w.query();
		const uint64_t t1 = now_ns();
		if (notifier && busy && next_arrival > t1)
			busy = notifier->idle() != 0;
		if (t1 < measure_from)
			continue;
		if (start >= measure_from) {
			if (queries++ == 0)
				slot.measure_begin_ns = start;
			slot.measure_end_ns = t1;
		}
		if (samples < cfg.latency_capacity)
			records[samples++] = {start, t1, uint32_t(std::min<uint64_t>(w.last_submit_ns(), UINT32_MAX)),
					      stamp ? 1u : 0u, w.last_gpu_ns()};
		else
			++dropped;
	}
	if (notifier && busy)
		notifier->idle();
	if (stamped_bin >= 0)
		w.stamp_queries(-1);
	slot.queries = queries;
	slot.samples = samples;
	slot.records_dropped = dropped;
}

int run(const SharedRegion& region, uint32_t index, WorkloadFactory make)
{
	const RunConfig& cfg = region.header().config;
	WorkerSlot& slot = region.slot(index);
	const WorkloadParams params = slot.params;
	slot.state.store(WorkerState::initialising, std::memory_order_release);

	std::unique_ptr<Workload> w;
	try {
		w = make(params);
		set_text(slot.device, sizeof slot.device, w->device());
		slot.work_per_query = w->work_per_query();
		slot.peak_work_rate = w->peak_work_rate();
		set_text(slot.work_unit, sizeof slot.work_unit, w->work_unit());
		slot.gpu_time = w->gpu_time() ? 1 : 0;
		w->query(); // first-use costs (module load, page mapping) stay out of the window
	} catch (const Unavailable& e) {
		return fail(slot, worker_unavailable, e.what());
	} catch (const std::exception& e) {
		return fail(slot, worker_error, std::string("initialisation: ") + e.what());
	}

	// Fault the record buffer in now, so page faults stay out of the window.
	std::memset(static_cast<void*>(region.records(index)), 0, cfg.latency_capacity * sizeof(QueryRecord));
	slot.state.store(WorkerState::ready, std::memory_order_release);
	switch (region.header().barrier.arrive_and_wait(now_ns() + cfg.init_timeout_ns)) {
	case ShmBarrier::Result::released: break;
	case ShmBarrier::Result::broken: return fail(slot, worker_no_start, "start barrier broken by the launcher");
	case ShmBarrier::Result::timed_out: return fail(slot, worker_no_start, "timed out at the start barrier");
	}
	slot.state.store(WorkerState::running, std::memory_order_release);
	try {
		run_window(*w, cfg, params, region.header().barrier.release_ns(), slot, region.records(index));
		slot.stamps = w->collect_stamps(region.stamps(index), params.stamp_capacity);
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
		g_slot = &region.slot(uint32_t(index));
		g_index = uint32_t(index);
		g_workers = region.header().config.workers;
		const int rc = run(region, uint32_t(index), make);
		g_slot = nullptr;
		return rc;
	} catch (const std::exception& e) {
		std::fprintf(stderr, "kfdmp worker: %s\n", e.what());
		return worker_error;
	}
}

uint32_t worker_index() { return g_index; }
uint32_t worker_count() { return g_workers; }

void worker_set_child_pgid(int pgid)
{
	if (g_slot)
		g_slot->child_pgid = pgid;
}

void worker_set_activity(const std::string& what)
{
	if (g_slot)
		set_text(g_slot->activity, sizeof g_slot->activity, what);
}

} // namespace kfdmp
