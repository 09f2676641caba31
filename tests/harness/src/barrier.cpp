#include "barrier.h"

#include "clock.h"

#include <cerrno>
#include <climits>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace kfdmp {
namespace {

// Shared (not FUTEX_PRIVATE) operations: the word lives in memory mapped by
// several processes.
void futex_wait(std::atomic<uint32_t>* word, uint32_t expected, uint64_t timeout_ns)
{
	timespec ts{time_t(timeout_ns / 1000000000u), long(timeout_ns % 1000000000u)};
	syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT, expected, &ts, nullptr, 0);
}

void futex_wake_all(std::atomic<uint32_t>* word)
{
	syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
}

} // namespace

void ShmBarrier::init(uint32_t parties)
{
	parties_ = parties;
	arrived_.store(0);
	state_.store(waiting);
	release_ns_.store(0);
}

ShmBarrier::Result ShmBarrier::arrive_and_wait(uint64_t deadline_ns)
{
	if (arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 == parties_) {
		release_ns_.store(now_ns(), std::memory_order_release);
		uint32_t expected = waiting;
		state_.compare_exchange_strong(expected, released, std::memory_order_acq_rel);
		futex_wake_all(&state_);
	}
	for (;;) {
		uint32_t s = state_.load(std::memory_order_acquire);
		if (s == released)
			return Result::released;
		if (s == broken)
			return Result::broken;
		uint64_t now = now_ns();
		if (now >= deadline_ns)
			return Result::timed_out;
		futex_wait(&state_, waiting, deadline_ns - now);
	}
}

void ShmBarrier::break_barrier()
{
	uint32_t expected = waiting;
	state_.compare_exchange_strong(expected, broken, std::memory_order_acq_rel);
	futex_wake_all(&state_);
}

} // namespace kfdmp
