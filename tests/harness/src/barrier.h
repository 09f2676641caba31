// A single-use barrier for processes sharing one mapping (memfd or
// MAP_SHARED|MAP_ANONYMOUS). Waiters sleep on a shared futex, so it works
// across fork+exec as long as every process maps the same memory.
#pragma once
#include <atomic>
#include <cstdint>

namespace kfdmp {

class ShmBarrier {
public:
	enum class Result { released, timed_out, broken };

	// Not thread-safe; call once before any process uses the barrier.
	void init(uint32_t parties);

	// Arrives and blocks until all parties have arrived (released), the
	// barrier is broken by someone, or the CLOCK_MONOTONIC deadline passes.
	// The last party to arrive records release_ns() and wakes the others.
	Result arrive_and_wait(uint64_t deadline_ns);

	// Releases every current and future waiter with Result::broken.
	void break_barrier();

	uint32_t arrived() const { return arrived_.load(std::memory_order_acquire); }
	uint32_t parties() const { return parties_; }
	// CLOCK_MONOTONIC time at which the barrier was released (0 before).
	uint64_t release_ns() const { return release_ns_.load(std::memory_order_acquire); }

private:
	enum : uint32_t { waiting = 0, released = 1, broken = 2 };
	uint32_t parties_;
	std::atomic<uint32_t> arrived_;
	std::atomic<uint32_t> state_; // futex word
	std::atomic<uint64_t> release_ns_;
};

static_assert(std::atomic<uint32_t>::is_always_lock_free &&
		      std::atomic<uint64_t>::is_always_lock_free,
	      "process-shared atomics must be lock-free");

} // namespace kfdmp
