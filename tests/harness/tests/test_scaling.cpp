// The GPU scaling suite: for each workload and N in {1,2,4,8}, run kfdmp
// with 1 and N processes in KFDMP_SCALING_REPEAT (3) interleaved rounds and
// require a real baseline, fair workers, no starved interval and a ratio
// QPS(N) / QPS(1) above the collapse floor; in target mode
// (KFDMP_SCALING_TARGET, e.g. 0.9) fails where the ratio's 95% interval over
// the rounds lies below it (judge_scaling() in stats.h). Skips, with the reason, when the
// build has no GPU backend or no device is visible. The `exec` cases scale
// the command named by KFDMP_SCALING_EXEC (environment, else the CMake cache
// option of that name), e.g. KFDMP_SCALING_EXEC='python3 bench.py', through
// kfdmp --exec (docs/exec-workers.md); they skip when it is unset. Figures for reports come
// from kfdmp's own output (README.md), not from this test's timing.
#include "json.h"
#include "kfd_probe.h"
#include "stats.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace {

using namespace kfdmp;

double env_number(const char* name, double fallback)
{
	const char* v = std::getenv(name);
	return v && *v ? std::atof(v) : fallback;
}

// Runs cmd; returns its exit status and appends its output to out.
int run(const std::string& cmd, std::string& out)
{
	FILE* p = popen((cmd + " 2>&1").c_str(), "r");
	if (!p)
		return -1;
	char buf[512];
	while (fgets(buf, sizeof buf, p))
		out += buf;
	const int s = pclose(p);
	return WIFEXITED(s) ? WEXITSTATUS(s) : 128;
}

struct Case {
	const char* workload;
	unsigned procs;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.workload << " with " << c.procs << " processes"; }

class Scaling : public ::testing::TestWithParam<Case> {};

// For N > 1: kfdmp --procs 1,N --repeat R (interleaved 1, N, 1, N, ...).
// For N = 1: --procs 1 --repeat R. Asserts, from the results file:
//  - the 1-process baseline is real: every run ok, at least
//    KFDMP_MIN_BASELINE_QUERIES (default 50) queries completed in its window,
//    and its relative standard deviation over the rounds is at most
//    KFDMP_MAX_BASELINE_RSD percent (default 10);
//  - no run has a starved worker interval or a stalled interval (judged at
//    the rate-adapted bin);
//  - at N: Jain's index >= KFDMP_MIN_JAIN (default 0.9); the ratio (mean of
//    the per-round ratios) >= KFDMP_COLLAPSE_FLOOR (default 0.5; the old name
//    KFDMP_MIN_SCALING still works): "N processes did not collapse", a guard
//    that passes on the field's 0.74/0.51/0.79;
//  - target mode, KFDMP_SCALING_TARGET=T > 0: the ratio's 95% interval
//    over the rounds (t, R - 1 degrees of freedom) does not lie below T.
//    Only "below" fails (the field's curve at T = 0.9); "meets" (the interval
//    at or above T) and "cannot tell" (it holds T: more rounds would decide)
//    pass, recorded as the property target_verdict and said on stdout.
TEST_P(Scaling, BaselineFairnessNoStarvationAndRatioFloor)
{
	const Case c = GetParam();
	const bool hsa = std::string(c.workload) == "hsa";
	const std::string dir = KFDMP_BIN_DIR;
	std::string workload_args = std::string("--workload ") + c.workload;
	if (std::string(c.workload) == "exec") {
		const char* env = std::getenv("KFDMP_SCALING_EXEC");
		const std::string cmd = env && *env ? env : KFDMP_SCALING_EXEC_DEFAULT;
		if (cmd.empty())
			GTEST_SKIP() << "no exec workload: set KFDMP_SCALING_EXEC='CMD' (or -DKFDMP_SCALING_EXEC=CMD)";
		std::string quoted = "'";
		for (char ch : cmd)
			quoted += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
		workload_args = "--exec " + quoted + "'";
	} else {
		const std::string worker = dir + (hsa ? "/kfdmp-hsa-worker" : "/kfdmp-worker");
		if (access(worker.c_str(), X_OK) != 0)
			GTEST_SKIP() << worker << " was not built (KFDMP_GPU=" << KFDMP_GPU_BACKEND
				     << (hsa ? "; the hsa workload needs KFDMP_GPU=hip and the HSA headers)" : ")");
		std::string probe;
		if (run(worker + " --probe", probe) != 0)
			GTEST_SKIP() << "no GPU: " << probe;
	}

	const double floor = env_number("KFDMP_COLLAPSE_FLOOR", env_number("KFDMP_MIN_SCALING", 0.5));
	const double target = env_number("KFDMP_SCALING_TARGET", 0);
	const double min_jain = env_number("KFDMP_MIN_JAIN", 0.9);
	const double min_queries = env_number("KFDMP_MIN_BASELINE_QUERIES", 50);
	const double max_rsd = env_number("KFDMP_MAX_BASELINE_RSD", 10);
	const unsigned rounds = unsigned(std::max(2.0, env_number("KFDMP_SCALING_REPEAT", 3)));
	const std::string duration = std::to_string(env_number("KFDMP_SCALING_DURATION", 2.0));
	char tmp[] = "/tmp/kfdmp-scaling-XXXXXX";
	ASSERT_TRUE(mkdtemp(tmp));
	const std::string out = tmp;
	std::string log;
	const std::string procs = c.procs == 1 ? "1" : "1," + std::to_string(c.procs);
	const int rc = run(dir + "/kfdmp " + workload_args + " --procs " + procs + " --repeat " +
				   std::to_string(rounds) + " --duration " +
				   duration + " --warmup 0.5 --out " + out,
			   log);
	if (rc == 77)
		GTEST_SKIP() << "workload unavailable: " << log;
	ASSERT_EQ(rc, 0) << log;
	const json::Value doc = json::parse(*read_text(out + "/results.json"));
	std::filesystem::remove_all(out);

	std::vector<double> base(rounds, NAN), at_n(rounds, NAN);
	for (const auto& r : doc.at("runs").array()) {
		const unsigned n = unsigned(r.at("procs").number());
		const std::string what = std::string(c.workload) + " N=" + std::to_string(n) + " repeat " +
					 std::to_string(int(r.at("repeat").number()));
		ASSERT_EQ(r.at("status").string(), "ok") << what << ": " << r.at("reason").string();
		if (n == 1) {
			double q = 0;
			for (const auto& w : r.at("workers").array())
				q += w.at("window_queries").number();
			EXPECT_GE(q, min_queries) << what << ": a trivial baseline";
			base.at(size_t(r.at("repeat").number())) = r.at("aggregate_qps").number();
		} else {
			at_n.at(size_t(r.at("repeat").number())) = r.at("aggregate_qps").number();
		}
		EXPECT_FALSE(r.at("window").at("any_starved").boolean()) << what << ": a worker was starved in some bin\n"
									 << log;
		EXPECT_TRUE(r.at("window").at("stalled_bins").array().empty()) << what << ": the run stalled in some bin";
		if (n == c.procs && n > 1) {
			EXPECT_GE(r.at("jain_index").number(), min_jain) << what << ": unfair";
		}
	}
	for (double b : base) {
		ASSERT_TRUE(std::isfinite(b)) << "a round without its 1-process run\n" << log;
	}
	const ScalingJudgement j = judge_scaling(base, c.procs == 1 ? base : at_n, floor, target);
	RecordProperty("baseline_rsd_pct", std::to_string(j.baseline_rsd_pct));
	EXPECT_LE(j.baseline_rsd_pct, max_rsd) << "the " << rounds << " 1-process runs spread " << j.baseline_rsd_pct
					       << "% (relative standard deviation; KFDMP_MAX_BASELINE_RSD=" << max_rsd << ")";
	if (c.procs == 1)
		return;
	RecordProperty("scaling_ratio", std::to_string(j.ratio));
	RecordProperty("scaling_ratio_noise", std::to_string(j.noise));
	RecordProperty("scaling_ratio_ci95", std::to_string(j.ci95_lo) + " " + std::to_string(j.ci95_hi));
	if (target > 0) {
		RecordProperty("target_verdict", j.target_verdict);
		std::cout << c.workload << " N=" << c.procs << ": ratio " << j.ratio << " [" << j.ci95_lo << ", "
			  << j.ci95_hi << "] (95%, " << rounds << " rounds) against KFDMP_SCALING_TARGET=" << target
			  << ": " << j.target_verdict
			  << (std::string(j.target_verdict) == "cannot tell"
				      ? " (the interval holds the target; more rounds, KFDMP_SCALING_REPEAT, would decide)"
				      : "")
			  << "\n";
	}
	EXPECT_TRUE(j.above_floor) << c.workload << " with " << c.procs << " processes collapsed to " << j.ratio
				   << " of the 1-process QPS (+- " << j.noise << " over " << rounds
				   << " rounds; collapse floor KFDMP_COLLAPSE_FLOOR=" << floor << ")\n"
				   << log;
	EXPECT_FALSE(j.below_target) << c.workload << " with " << c.procs << " processes keep " << j.ratio
				     << " of the 1-process QPS, 95% interval [" << j.ci95_lo << ", " << j.ci95_hi
				     << "] over " << rounds << " rounds: all of it below the target KFDMP_SCALING_TARGET="
				     << target << "\n"
				     << log;
}

std::vector<Case> cases()
{
	std::vector<Case> v;
	for (const char* w : {"latency", "saturate", "copy", "mixed", "hsa", "exec"})
		for (unsigned n : {1u, 2u, 4u, 8u})
			v.push_back({w, n});
	return v;
}

INSTANTIATE_TEST_SUITE_P(Gpu, Scaling, ::testing::ValuesIn(cases()), [](const auto& info) {
	return std::string(info.param.workload) + "_N" + std::to_string(info.param.procs);
});

} // namespace
