// One JSON object per line for every decision and every event that changes
// the scheduler's view (tenant gone, bad message, shutdown). Fields:
//   t_ns      CLOCK_MONOTONIC when the line was written
//   event     suspend | resume | tenant_gone | critical | error | start | shutdown | ...
//   reason    why (critical_pending, critical_idle, max_suspend, shutdown, ...)
//   pids      the tenants acted on
//   result    "ok" or the errno name; error: text
//   latency_us  trigger (the signal or deadline that caused it) to the call's return
//   call_us     the backend call alone; kernel_wait_us: the kernel's fence wait
#pragma once
#include "backend.h"
#include "clock.h"

#include <cstdio>
#include <string>
#include <vector>

namespace kfdmp::sched {

class JsonLine {
public:
	JsonLine& str(const char* key, const std::string& v);
	JsonLine& num(const char* key, double v);
	JsonLine& integer(const char* key, int64_t v);
	JsonLine& pids(const char* key, const std::vector<pid_t>& v);
	std::string done() const { return body_ + "}"; }

private:
	void key(const char* k);
	std::string body_ = "{";
};

std::string json_escape(const std::string& s);

class DecisionLog {
public:
	explicit DecisionLog(std::FILE* out) : out_(out) {}
	virtual ~DecisionLog() = default;
	virtual void write(const std::string& line);
	const std::vector<std::string>& lines() const { return lines_; }
	bool keep_lines = false; // tests read them back

private:
	std::FILE* out_;
	std::vector<std::string> lines_;
};

} // namespace kfdmp::sched
