// Turns launcher results into metrics and writes them: the stdout table, the
// JSON document (schema in README.md), CSV and a gnuplot plot.
#pragma once
#include "json.h"
#include "launcher.h"
#include "options.h"

#include <cstdio>
#include <string>
#include <vector>

namespace kfdmp {

constexpr int schema_version = 1;

struct WorkerMetrics {
	double qps;      // queries / (end of last - start of first measured query)
	double p50_us, p99_us;
	double start_offset_us; // first query start - release
};

struct RunMetrics {
	std::string status; // ok | failed | unavailable | interrupted
	std::string reason; // why, when not ok
	double qps;         // sum of the workers' QPS
	double ratio;       // qps / mean qps of this invocation's ok 1-process runs
	double jain;        // fairness of the workers' QPS
	double skew_us;     // spread of the workers' first-query start times
	double p50_us, p99_us; // over all workers' samples
	std::vector<WorkerMetrics> workers;
};

struct Run {
	uint32_t procs = 0;
	uint32_t repeat = 0;
	LaunchResult launch;
	json::Value kfd;
	RunMetrics m{};
};

// Fills Run::m for every run (the ratio needs all of them).
void compute_metrics(std::vector<Run>& runs);

json::Value to_json(const Options& o, const std::string& backend, const json::Value& topology,
		    const std::vector<Run>& runs);
void print_table(std::FILE* out, const std::vector<Run>& runs);
void write_csv(const std::string& path, const std::vector<Run>& runs);
// Writes qps.dat and qps.gp into dir and runs gnuplot when it is on PATH;
// returns a line saying what happened.
std::string write_plot(const std::string& dir, const std::string& title, const std::vector<Run>& runs);

} // namespace kfdmp
