#pragma once
#include "clock.h"

namespace kfdmp::sched {

class FakeClock : public Clock {
public:
	TimePoint now() const override { return t_; }
	void advance(Duration d) { t_ += d; }
	void set(TimePoint t) { t_ = t; }

private:
	TimePoint t_ = TimePoint(std::chrono::seconds(1000));
};

} // namespace kfdmp::sched
