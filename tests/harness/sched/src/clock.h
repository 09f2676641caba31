// The scheduler reads time only through Clock, so tests drive it with a fake.
#pragma once
#include <chrono>
#include <cstdint>

namespace kfdmp::sched {

using Duration = std::chrono::nanoseconds;
using TimePoint = std::chrono::time_point<std::chrono::steady_clock, Duration>;

class Clock {
public:
	virtual ~Clock() = default;
	virtual TimePoint now() const = 0;
};

// CLOCK_MONOTONIC (std::chrono::steady_clock on Linux): comparable across
// processes, so the harness can align decision lines with its own stamps.
class SteadyClock : public Clock {
public:
	TimePoint now() const override { return std::chrono::steady_clock::now(); }
};

inline int64_t to_ns(TimePoint t) { return t.time_since_epoch().count(); }
inline double to_us(Duration d) { return double(d.count()) / 1e3; }

} // namespace kfdmp::sched
