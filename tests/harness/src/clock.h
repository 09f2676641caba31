// CLOCK_MONOTONIC is system-wide, so timestamps taken in different worker
// processes are directly comparable (start skew, release time).
#pragma once
#include <cstdint>
#include <ctime>

namespace kfdmp {

inline uint64_t now_ns()
{
	timespec ts{};
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

inline uint64_t seconds_to_ns(double s) { return uint64_t(s * 1e9); }

} // namespace kfdmp
