// Tenant mode's statistics and target checks (issue 18) on synthetic data.
#include "report.h"
#include "tenant.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace kfdmp;

namespace {

// n samples, each `us` microseconds, plus `tail` samples of `tail_us`.
std::vector<uint64_t> lat(size_t n, double us, size_t tail = 0, double tail_us = 0)
{
	std::vector<uint64_t> v(n, uint64_t(us * 1000));
	v.insert(v.end(), tail, uint64_t(tail_us * 1000));
	return v;
}

TenantAlone alone()
{
	return {lat(1000, 6400), {{"saturate", 100.0}, {"gemm", 50.0}}};
}

TenantArmInput arm(const std::string& name, std::vector<uint64_t> crit, double sat_qps, double gemm_qps)
{
	TenantArmInput in;
	in.arm = name;
	in.status = "ok";
	in.critical_ns = std::move(crit);
	in.be_qps = {{"saturate", sat_qps}, {"gemm", gemm_qps}};
	return in;
}

} // namespace

TEST(Tenant, PassesWithinBothTargets)
{
	const auto r = judge_tenant_arm(alone(), arm("priority", lat(1000, 8000), 60, 30));
	EXPECT_NEAR(r.p99_ratio, 8000.0 / 6400.0, 1e-9);
	ASSERT_EQ(r.best_effort.size(), 2u);
	EXPECT_NEAR(r.best_effort[0].kept, 0.6, 1e-9);
	EXPECT_NEAR(r.be_kept_min, 0.6, 1e-9);
	EXPECT_EQ(r.latency_target, "pass");
	EXPECT_EQ(r.suspend_target, "unavailable: no suspends in the priority arm");
}

TEST(Tenant, FailsOnTheCriticalTail)
{
	// 2% of queries at 30 ms puts p99 at 30 ms: 4.7x alone.
	const auto r = judge_tenant_arm(alone(), arm("none", lat(980, 6400, 20, 30000), 90, 45));
	EXPECT_NEAR(r.critical.p50_us, 6400, 1e-6);
	EXPECT_NEAR(r.critical.p99_us, 30000, 1e-6);
	EXPECT_EQ(r.latency_target.rfind("fail: critical p99 4.69x", 0), 0u) << r.latency_target;
}

TEST(Tenant, FailsWhenOneBestEffortTenantStarves)
{
	const auto r = judge_tenant_arm(alone(), arm("sched", lat(1000, 6400), 90, 20));
	EXPECT_NEAR(r.be_kept_min, 0.4, 1e-9);
	EXPECT_EQ(r.latency_target.rfind("fail: a best-effort tenant keeps 0.40", 0), 0u) << r.latency_target;
}

TEST(Tenant, BoundaryValuesPass)
{
	// Exactly 1.5x and exactly 0.5 meet the targets (<= and >=).
	const auto r = judge_tenant_arm(alone(), arm("priority", lat(1000, 9600), 50, 25));
	EXPECT_EQ(r.latency_target, "pass");
}

TEST(Tenant, MissingAloneFiguresAreUnavailableNotZero)
{
	TenantAlone a = alone();
	a.be_qps.pop_back(); // gemm never ran alone
	auto r = judge_tenant_arm(a, arm("none", lat(100, 7000), 60, 30));
	EXPECT_TRUE(std::isnan(r.best_effort[1].kept));
	EXPECT_TRUE(std::isnan(r.be_kept_min));
	EXPECT_EQ(r.latency_target, "unavailable: a best-effort tenant has no throughput alone");

	r = judge_tenant_arm({{}, alone().be_qps}, arm("none", lat(100, 7000), 60, 30));
	EXPECT_TRUE(std::isnan(r.p99_ratio));
	EXPECT_EQ(r.latency_target, "unavailable: no critical latencies alone");

	r = judge_tenant_arm(alone(), arm("none", {}, 60, 30));
	EXPECT_EQ(r.latency_target, "unavailable: the critical tenant completed no query in this arm");
}

TEST(Tenant, SkippedArmSaysWhy)
{
	TenantArmInput in;
	in.arm = "sched";
	in.status = "skipped";
	in.reason = "no /dev/kfd";
	const auto r = judge_tenant_arm(alone(), in);
	EXPECT_EQ(r.latency_target, "unavailable: arm skipped: no /dev/kfd");
	EXPECT_EQ(r.suspend_target, "unavailable: arm skipped: no /dev/kfd");
}

// An arm skipped before its launch (runs[].skipped, status unavailable: the
// priority arm on an exec worker, which cannot set stream priority) is
// reported as skipped with its reason, never as failed.
TEST(Tenant, ArmSkippedBeforeLaunchIsReportedAsSkipped)
{
	kfdmp::Run r;
	r.procs = 2;
	r.repeat = 0;
	r.tenant_role = "arm";
	r.tenant_arm = "priority";
	r.skipped = "exec workers have no way to set stream priority";
	r.m.status = "unavailable";
	r.m.reason = r.skipped;
	kfdmp::Run failed = r; // a run that started and failed stays failed
	failed.tenant_arm = "none";
	failed.skipped.clear();
	failed.m.status = "failed";
	failed.m.reason = "worker 1 exited 3";
	const auto reps = tenant_reports({r, failed}, {}, {"none", "priority"});
	ASSERT_EQ(reps.size(), 2u);
	EXPECT_EQ(reps[0].r.arm, "none");
	EXPECT_EQ(reps[0].r.status, "failed");
	EXPECT_EQ(reps[1].r.arm, "priority");
	EXPECT_EQ(reps[1].r.status, "skipped");
	EXPECT_EQ(reps[1].r.reason, "exec workers have no way to set stream priority");
	EXPECT_EQ(reps[1].r.latency_target,
		  "unavailable: arm skipped: exec workers have no way to set stream priority");
	const auto sums = tenant_summaries(reps);
	ASSERT_EQ(sums.size(), 2u);
	EXPECT_NE(sums[1].latency_target.find("skipped: exec workers"), std::string::npos) << sums[1].latency_target;
}

TEST(Tenant, SuspendTargetFromTransitions)
{
	auto in = arm("sched", lat(1000, 6400), 60, 30);
	in.suspend_ns = lat(990, 300, 10, 900);  // p99 between 300 and 900 us: under 1 ms
	in.resume_ns = lat(100, 150);
	auto r = judge_tenant_arm(alone(), in);
	ASSERT_TRUE(r.suspend.available);
	EXPECT_EQ(r.suspend.samples, 1000u);
	EXPECT_NEAR(r.suspend.p50_us, 300, 1e-6);
	EXPECT_LT(r.suspend.p99_us, 1000);
	EXPECT_NEAR(r.resume.p99_us, 150, 1e-6);
	EXPECT_EQ(r.suspend_target, "pass");

	in.suspend_ns = lat(900, 300, 100, 2500);
	r = judge_tenant_arm(alone(), in);
	EXPECT_EQ(r.suspend_target, "fail: suspend-to-unmapped p99 2500 us >= 1000 us");

	in.suspend_ns.clear();
	in.resume_ns.clear();
	in.transition_reason = "no amdkfd kfd_tenant_ctl trace event";
	r = judge_tenant_arm(alone(), in);
	EXPECT_FALSE(r.suspend.available);
	EXPECT_FALSE(r.resume.available);
	EXPECT_EQ(r.suspend_target, "unavailable: no amdkfd kfd_tenant_ctl trace event");
}

// --- Issue 26: arms, busy fraction, the daemon's log, repeats ---

#include "json.h"
#include "options.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

TEST(TenantArms, NamesAndBackends)
{
	std::string note;
	EXPECT_EQ(canonical_arm("sched-drain", &note), "sched-drain");
	EXPECT_TRUE(note.empty());
	EXPECT_EQ(canonical_arm("sched", &note), "sched-kfd");
	EXPECT_NE(note.find("issue 18's name of sched-kfd"), std::string::npos) << note;
	EXPECT_EQ(canonical_arm("fast"), "");
	EXPECT_TRUE(is_sched_arm("sched-drain"));
	EXPECT_TRUE(is_sched_arm("sched-kfd"));
	EXPECT_FALSE(is_sched_arm("priority"));
	EXPECT_EQ(sched_arm_backend("sched-drain"), "drain");
	EXPECT_EQ(sched_arm_backend("sched-kfd"), "kfd");
	EXPECT_EQ(sched_arm_backend("sched-drain", "fake"), "fake");
}

TEST(TenantArms, RateFromTheBusyFractionAlone)
{
	// 6.4 ms per query alone: 30% busy is 46.875 queries/s.
	EXPECT_NEAR(rate_from_busy(0.3, 6.4e6), 46.875, 1e-9);
	EXPECT_NEAR(rate_from_busy(0.5, mean_ns({1000000, 3000000})), 250, 1e-9);
	EXPECT_TRUE(std::isnan(rate_from_busy(0.3, NAN)));
	EXPECT_TRUE(std::isnan(rate_from_busy(0.3, 0)));
	EXPECT_TRUE(std::isnan(mean_ns({})));
}

TEST(TenantArms, OptionsTakeTheNewArmsAndBusyFractions)
{
	auto parse = [](std::vector<std::string> args) {
		std::vector<char*> argv = {const_cast<char*>("kfdmp")};
		for (auto& a : args)
			argv.push_back(const_cast<char*>(a.c_str()));
		bool help = false;
		return parse_options(Program::launcher, int(argv.size()), argv.data(), help);
	};
	Options o = parse({"--critical", "latency", "--critical-busy", "0.1,0.3,0.5", "--mix", "saturate:3", "--arms",
			   "none,priority,sched-drain,sched"});
	EXPECT_EQ(o.critical_busy, (std::vector<double>{0.1, 0.3, 0.5}));
	EXPECT_EQ(o.arms, (std::vector<std::string>{"none", "priority", "sched-drain", "sched-kfd"}));
	EXPECT_EQ(parse({"--critical", "latency", "--rate", "5", "--mix", "saturate:1", "--sched-backend", "drain"})
			  .sched_backend,
		  "drain");
	for (const auto& args : std::vector<std::vector<std::string>>{
		     {"--critical", "latency", "--critical-busy", "0.3", "--rate", "5", "--mix", "saturate:1"},
		     {"--critical", "latency", "--critical-busy", "1.2", "--mix", "saturate:1"},
		     {"--critical", "latency", "--critical-busy", "0,0.3", "--mix", "saturate:1"},
		     {"--critical", "latency", "--critical-busy", "x", "--mix", "saturate:1"},
		     {"--critical", "latency", "--rate", "5", "--mix", "saturate:1", "--sched-backend", "cgroup"}})
		EXPECT_THROW(parse(args), UsageError) << args[2] << " " << args[3];
}

TEST(TenantSchedLog, SuspensionsAndTheirShareOfTheWindow)
{
	// Window [1 s, 2 s); two tenants suspended 1.1-1.3 s and from 1.8 s to
	// the shutdown at 2.5 s (clipped at 2 s): 0.4 s each, share 0.4.
	const std::vector<std::string> lines = {
		R"J({"t_ns":900000000,"event":"start","pid":9,"backend":"drain","watchdog_pid":10,"best_effort":[1,2],"critical":[3]})J",
		R"J({"t_ns":1100000000,"event":"suspend","reason":"critical_pending","pids":[1,2],"gpus":"all","result":"ok","latency_us":50.0,"call_us":40.0,"stopped_us":30.0})J",
		R"J({"t_ns":1300000000,"event":"resume","reason":"critical_idle","pids":[1,2],"gpus":"all","result":"ok","latency_us":20.0,"call_us":10.0})J",
		R"J({"t_ns":1800000000,"event":"suspend","reason":"critical_pending","pids":[1,2],"gpus":"all","result":"ok","latency_us":70.0,"call_us":40.0,"stopped_us":35.0})J",
		R"J({"t_ns":1850000000,"event":"suspend","reason":"critical_pending","pids":[1],"gpus":"all","result":"EPERM (x)"})J",
		R"J({"t_ns":2500000000,"event":"resume","reason":"SIGTERM","pids":[1,2],"gpus":"all","result":"ok","latency_us":20.0,"call_us":10.0})J",
		R"J({"t_ns":2500000001,"event":"shutdown","reason":"SIGTERM","left_suspended":0})J",
		"not json"};
	const SchedLogSummary s = summarize_sched_log(lines, 1000000000, 2000000000);
	EXPECT_EQ(s.backend, "drain");
	EXPECT_EQ(s.tenants, 2u);
	EXPECT_EQ(s.suspends, 2u);
	EXPECT_EQ(s.resumes, 2u);
	EXPECT_EQ(s.suspends_in_window, 2u);
	EXPECT_EQ(s.suspend_decision_ns, (std::vector<uint64_t>{50000, 70000}));
	EXPECT_EQ(s.stopped_ns, (std::vector<uint64_t>{30000, 35000}));
	EXPECT_EQ(s.decision_ns.size(), 4u);
	EXPECT_NEAR(s.suspended_share, 0.4, 1e-9);
	EXPECT_EQ(s.left_suspended, 0);
}

TEST(TenantSchedLog, DrainArmSaysWhyNoDrainedLatency)
{
	TenantArmInput in = arm("sched-drain", lat(1000, 6400), 60, 30);
	in.sched_backend = "drain";
	in.suspend_decision_ns = lat(10, 50);
	in.stopped_ns = lat(10, 30);
	in.window_s = 2;
	in.suspends_in_window = 10;
	in.suspended_share = 0.25;
	const auto r = judge_tenant_arm(alone(), in);
	EXPECT_FALSE(r.drained.available);
	EXPECT_NE(r.drained.reason.find("not measurable with the drain backend"), std::string::npos);
	ASSERT_TRUE(r.stopped.available);
	EXPECT_NEAR(r.stopped.p99_us, 30, 1e-6);
	EXPECT_NEAR(r.suspends_per_s, 5, 1e-9);
	EXPECT_EQ(r.suspend_target,
		  "unavailable: the drain backend takes no queue off the GPU (it stops the tenant's processes)");

	in.arm = "sched-kfd";
	in.sched_backend = "kfd";
	const auto k = judge_tenant_arm(alone(), in);
	ASSERT_TRUE(k.drained.available); // the ioctl returns with the queues off
	EXPECT_NEAR(k.drained.p99_us, 50, 1e-6);
	EXPECT_FALSE(k.stopped.available);
}

TEST(TenantRepeats, IntervalsAndTargetsOverRepeats)
{
	const Interval iv = interval_of({1, 2, 3, NAN});
	EXPECT_EQ(iv.n, 3u);
	EXPECT_NEAR(iv.mean, 2, 1e-12);
	EXPECT_NEAR(iv.hi - iv.mean, 4.303 / std::sqrt(3.0), 1e-9);
	EXPECT_EQ(interval_of({}).n, 0u);
	EXPECT_EQ(interval_of({5}).lo, 5);

	auto result = [](double ratio, double kept) {
		TenantArmResult r;
		r.arm = "sched-drain";
		r.status = "ok";
		r.p99_ratio = ratio;
		r.be_kept_min = kept;
		r.suspend.reason = "the drain backend takes no queue off the GPU (it stops the tenant's processes)";
		r.drained.reason = "not measurable";
		return r;
	};
	TenantArmSummary s = summarize_arm({result(1.2, 0.8), result(1.3, 0.7), result(1.25, 0.75)}, 0.3, 47);
	EXPECT_EQ(s.repeats_ok, 3u);
	EXPECT_EQ(s.latency_target.rfind("pass: critical p99/alone 1.25 [", 0), 0u) << s.latency_target;
	EXPECT_EQ(s.throughput_target.rfind("pass:", 0), 0u) << s.throughput_target;
	EXPECT_EQ(s.suspend_target.rfind("unavailable: the drain backend", 0), 0u) << s.suspend_target;
	EXPECT_EQ(s.drained_reason, "not measurable");

	s = summarize_arm({result(1.0, 0.8), result(2.0, 0.7), result(1.5, 0.75)}, 0.3, 47);
	EXPECT_EQ(s.latency_target.rfind("inconclusive:", 0), 0u) << s.latency_target;
	s = summarize_arm({result(3.0, 0.2), result(3.1, 0.3), result(3.2, 0.25)}, 0.3, 47);
	EXPECT_EQ(s.latency_target.rfind("fail:", 0), 0u) << s.latency_target;
	EXPECT_EQ(s.throughput_target.rfind("fail:", 0), 0u) << s.throughput_target;
	TenantArmResult skipped = result(NAN, NAN);
	skipped.status = "skipped";
	skipped.reason = "no /dev/kfd";
	s = summarize_arm({skipped}, NAN, 50);
	EXPECT_EQ(s.latency_target, "unavailable: no repeat ran ok (skipped: no /dev/kfd)");
	EXPECT_EQ(s.drained_reason, "no repeat ran ok (skipped: no /dev/kfd)"); // never empty
}

namespace {

std::string slurp_file(const std::string& path)
{
	std::ifstream in(path);
	std::stringstream ss;
	ss << in.rdbuf();
	return ss.str();
}

} // namespace

// The sched-drain arm end to end on the CPU (sleeping test workers): the
// critical rate from its busy fraction, kfdmp-sched's drain backend stopping
// and continuing the best-effort workers, nothing left stopped, the summary
// over repeats.
TEST(TenantLauncher, SchedDrainArmAtABusyFraction)
{
	char dir[] = "/tmp/kfdmp-tenant-XXXXXX";
	ASSERT_NE(mkdtemp(dir), nullptr);
	const std::string out = dir;
	const std::string cmd = std::string(KFDMP_LAUNCHER) + " --worker-bin " + KFDMP_TEST_WORKER +
				" --critical sleep --critical-busy 0.3 --mix slow:2 --iters 2000 --duration 0.5"
				" --warmup 0.05 --repeat 2 --arms none,sched-drain --sched-bin " + KFDMP_SCHED_BIN +
				" --out " + out + " > " + out + "/stdout.txt 2>&1";
	const int st = std::system(cmd.c_str());
	const std::string stdout_text = slurp_file(out + "/stdout.txt");
	ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << stdout_text;
	EXPECT_NE(stdout_text.find("mean service time"), std::string::npos) << stdout_text;
	const json::Value doc = json::parse(slurp_file(out + "/results.json"));
	const json::Value& t = doc.at("tenant");
	const auto& arms = t.at("arms").array();
	ASSERT_EQ(arms.size(), 4u); // 2 arms x 2 repeats
	bool drained_seen = false;
	for (const auto& a : arms) {
		EXPECT_EQ(a.at("busy_fraction").number(), 0.3);
		// 2 ms per query alone: about 150/s (the worker's own overhead lowers it).
		EXPECT_GT(a.at("rate_per_s").number(), 50);
		EXPECT_LT(a.at("rate_per_s").number(), 151);
		if (a.at("arm").string() != "sched-drain")
			continue;
		ASSERT_EQ(a.at("status").string(), "ok") << stdout_text;
		const json::Value& sd = a.at("sched");
		EXPECT_EQ(sd.at("backend").string(), "drain");
		EXPECT_GE(sd.at("suspends").number(), 1) << stdout_text;
		EXPECT_TRUE(sd.at("suspended_share").is_number());
		EXPECT_TRUE(sd.at("decision_to_drained").at("unavailable").is_string());
		drained_seen = true;
		const std::string log = slurp_file(sd.at("log").string());
		EXPECT_NE(log.find("\"left_suspended\":0"), std::string::npos) << log;
		// Workers share one process group with the critical one: stopped alone.
		EXPECT_NE(log.find("stopped the process alone"), std::string::npos) << log;
	}
	EXPECT_TRUE(drained_seen);
	const auto& sums = t.at("summary").array();
	ASSERT_EQ(sums.size(), 2u);
	EXPECT_EQ(sums[1].at("arm").string(), "sched-drain");
	EXPECT_EQ(sums[1].at("repeats_ok").number(), 2);
	EXPECT_TRUE(sums[1].at("latency_target").is_string());
	EXPECT_NE(stdout_text.find("tenant targets per arm over repeats"), std::string::npos) << stdout_text;
	std::system(("rm -rf '" + out + "'").c_str());
}

// --critical-busy with a critical tenant that cannot run: no rate, no arm; each
// arm says why (the service time alone), not just "not run".
TEST(TenantLauncher, NoServiceTimeNoArmsAndTheReasonSaysWhy)
{
	char dir[] = "/tmp/kfdmp-tenant-XXXXXX";
	ASSERT_NE(mkdtemp(dir), nullptr);
	const std::string out = dir;
	const std::string cmd = std::string(KFDMP_LAUNCHER) + " --worker-bin " + KFDMP_TEST_WORKER +
				" --critical wrong --critical-busy 0.3 --mix slow:1 --iters 200 --duration 0.2"
				" --warmup 0.02 --arms none,sched-drain --sched-bin " + KFDMP_SCHED_BIN + " --out " + out +
				" > " + out + "/stdout.txt 2>&1";
	const int st = std::system(cmd.c_str());
	const std::string text = slurp_file(out + "/stdout.txt");
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) != 0) << text;
	EXPECT_NE(text.find("service time alone could not be measured"), std::string::npos) << text;
	const json::Value doc = json::parse(slurp_file(out + "/results.json"));
	for (const auto& a : doc.at("tenant").at("arms").array()) {
		EXPECT_EQ(a.at("status").string(), "failed");
		EXPECT_NE(a.at("reason").string().find("service time alone could not be measured"), std::string::npos)
			<< a.at("reason").string();
	}
	std::system(("rm -rf '" + out + "'").c_str());
}
