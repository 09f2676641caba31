// The launcher and the worker loop, driven through kfdmp-test-worker (CPU
// only). No assertion here depends on how fast anything runs.
#include "json.h"
#include "kfd_probe.h"
#include "launcher.h"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <dirent.h>
#include <set>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace kfdmp;

namespace {

LaunchSpec spec(const char* workload, uint32_t workers)
{
	LaunchSpec s;
	s.worker_bin = KFDMP_TEST_WORKER;
	s.config = {};
	s.config.workers = workers;
	s.config.latency_capacity = 1024;
	s.config.warmup_ns = 20'000'000;
	s.config.duration_ns = 100'000'000;
	s.config.init_timeout_ns = 30'000'000'000;
	std::snprintf(s.config.params.name, sizeof s.config.params.name, "%s", workload);
	s.device_env_vars = {"HIP_VISIBLE_DEVICES"};
	s.grace_ns = 300'000'000;
	return s;
}

bool alive(pid_t pid) { return kill(pid, 0) == 0; }

std::set<std::string> entries(const char* dir)
{
	std::set<std::string> names;
	if (DIR* d = opendir(dir)) {
		while (dirent* e = readdir(d))
			names.insert(e->d_name);
		closedir(d);
	}
	return names;
}

// Runs a command, returns its exit status (or 128 + signal).
int run_command(const std::string& cmd)
{
	const int s = std::system(cmd.c_str());
	return WIFEXITED(s) ? WEXITSTATUS(s) : 128 + WTERMSIG(s);
}

std::string temp_dir()
{
	char dir[] = "/tmp/kfdmp-test-XXXXXX";
	return mkdtemp(dir) ? dir : "";
}

} // namespace

TEST(Launcher, StartsWorkersTogetherAndCollectsTheirCounts)
{
	LaunchSpec s = spec("sleep", 4);
	std::vector<pid_t> seen;
	s.mid_window = [&](const std::vector<pid_t>& pids) { seen = pids; };
	const LaunchResult r = launch(s);
	ASSERT_TRUE(r.ok()) << r.error;
	ASSERT_EQ(r.workers.size(), 4u);
	EXPECT_NE(r.release_ns, 0u);
	std::set<pid_t> pids;
	for (const auto& w : r.workers) {
		EXPECT_EQ(w.status, "ok") << w.detail;
		EXPECT_GT(w.queries, 0u);
		EXPECT_EQ(w.latencies_ns.size(), w.queries);
		EXPECT_GE(w.first_query_ns, r.release_ns);
		EXPECT_GE(w.measure_begin_ns, r.release_ns + s.config.warmup_ns);
		EXPECT_GT(w.measure_end_ns, w.measure_begin_ns);
		pids.insert(w.pid);
		EXPECT_FALSE(alive(w.pid));
	}
	EXPECT_EQ(pids.size(), 4u);
	EXPECT_EQ(std::set<pid_t>(seen.begin(), seen.end()), pids);
}

TEST(Launcher, PassesDevicesRoundRobinAndTheEnvironment)
{
	LaunchSpec s = spec("sleep", 3);
	s.devices = {"4", "5"};
	s.env = {{"GPU_MAX_HW_QUEUES", "2"}};
	const LaunchResult r = launch(s);
	ASSERT_TRUE(r.ok()) << r.error;
	EXPECT_EQ(r.workers[0].device, "test worker; GPU_MAX_HW_QUEUES=2 HIP_VISIBLE_DEVICES=4");
	EXPECT_EQ(r.workers[1].device, "test worker; GPU_MAX_HW_QUEUES=2 HIP_VISIBLE_DEVICES=5");
	EXPECT_EQ(r.workers[2].assigned_device, "4");
}

TEST(Launcher, KeepsLatenciesUpToTheCapacity)
{
	LaunchSpec s = spec("sleep", 1);
	s.config.latency_capacity = 3;
	const LaunchResult r = launch(s);
	ASSERT_TRUE(r.ok()) << r.error;
	EXPECT_GT(r.workers[0].queries, 3u);
	EXPECT_EQ(r.workers[0].records.size(), 3u);
	EXPECT_LE(r.workers[0].latencies_ns.size(), 3u);
	EXPECT_GT(r.workers[0].records_dropped, 0u);
}

TEST(Launcher, KillsAWorkerThatHangsInTheWindow)
{
	const LaunchResult r = launch(spec("hang", 2));
	EXPECT_FALSE(r.ok());
	EXPECT_NE(r.error.find("still running"), std::string::npos) << r.error;
	for (const auto& w : r.workers) {
		EXPECT_EQ(w.status, "hung");
		EXPECT_NE(w.detail.find("state running"), std::string::npos) << w.detail;
		EXPECT_FALSE(alive(w.pid));
	}
}

TEST(Launcher, KillsAWorkerThatHangsBeforeTheStart)
{
	LaunchSpec s = spec("hang-init", 2);
	s.config.init_timeout_ns = 200'000'000;
	const LaunchResult r = launch(s);
	EXPECT_EQ(r.release_ns, 0u);
	EXPECT_NE(r.error.find("init timeout"), std::string::npos) << r.error;
	for (const auto& w : r.workers) {
		EXPECT_EQ(w.status, "hung");
		EXPECT_FALSE(alive(w.pid));
	}
}

TEST(Launcher, ReportsACrashedWorkerAndLetsTheOthersFinish)
{
	LaunchSpec s = spec("sleep", 2);
	s.devices = {"0", "crash"};
	const LaunchResult r = launch(s);
	EXPECT_FALSE(r.ok());
	EXPECT_EQ(r.workers[0].status, "ok");
	EXPECT_EQ(r.workers[1].status, "crashed");
	EXPECT_NE(r.workers[1].detail.find("signal 11"), std::string::npos) << r.workers[1].detail;
}

TEST(Launcher, ReportsWrongResults)
{
	const LaunchResult r = launch(spec("wrong", 1));
	EXPECT_EQ(r.workers[0].status, "wrong");
	EXPECT_NE(r.workers[0].detail.find("wrong on purpose"), std::string::npos);
}

TEST(Launcher, AWorkerWithoutItsDeviceStopsTheRunBeforeTheStart)
{
	const LaunchResult r = launch(spec("unavailable", 3));
	EXPECT_EQ(r.release_ns, 0u);
	EXPECT_NE(r.error.find("ended before the start"), std::string::npos) << r.error;
	size_t unavailable = 0;
	for (const auto& w : r.workers) {
		unavailable += w.status == "unavailable";
		EXPECT_FALSE(alive(w.pid));
	}
	EXPECT_GE(unavailable, 1u);
}

TEST(Launcher, ReportsAMissingWorkerBinary)
{
	LaunchSpec s = spec("sleep", 1);
	s.worker_bin = "/nonexistent/kfdmp-worker";
	const LaunchResult r = launch(s);
	EXPECT_EQ(r.workers[0].status, "failed");
	EXPECT_NE(r.workers[0].detail.find("cannot execute /nonexistent/kfdmp-worker"), std::string::npos)
		<< r.workers[0].detail;
}

TEST(Launcher, LeavesNoSharedMemoryDescriptorsOrProcessesBehind)
{
	const auto shm_before = entries("/dev/shm");
	const auto fds_before = entries("/proc/self/fd");
	for (const char* w : {"sleep", "hang", "wrong"})
		launch(spec(w, 2));
	EXPECT_EQ(entries("/dev/shm"), shm_before);
	EXPECT_EQ(entries("/proc/self/fd"), fds_before);
	errno = 0;
	EXPECT_EQ(waitpid(-1, nullptr, WNOHANG), -1); // no child left
	EXPECT_EQ(errno, ECHILD);
}

TEST(LauncherBinary, WritesTableJsonAndCsv)
{
	const std::string out = temp_dir();
	const std::string cmd = std::string(KFDMP_LAUNCHER) + " --worker-bin " + KFDMP_TEST_WORKER +
				" --workload sleep --procs 2 --repeat 2 --duration 0.1 --warmup 0.02 --out " + out +
				" > " + out + "/stdout.txt 2>&1";
	ASSERT_EQ(run_command(cmd), 0) << *read_text(out + "/stdout.txt");
	const json::Value doc = json::parse(*read_text(out + "/results.json"));
	EXPECT_EQ(doc.at("schema_version").number(), 3);
	const auto& runs = doc.at("runs").array();
	ASSERT_EQ(runs.size(), 4u); // 1 was added in front of 2, twice each
	// Interleaved: 1, 2, 1, 2 (repeat 0, 0, 1, 1).
	EXPECT_EQ(runs[0].at("procs").number(), 1);
	EXPECT_EQ(runs[1].at("procs").number(), 2);
	EXPECT_EQ(runs[2].at("procs").number(), 1);
	EXPECT_EQ(runs[2].at("repeat").number(), 1);
	EXPECT_EQ(runs[3].at("procs").number(), 2);
	EXPECT_EQ(runs[3].at("window").at("total_series").array().size(), 1u); // 0.1 s window, 100 ms bins
	EXPECT_EQ(runs[3].at("workers").array()[0].at("series").array().size(), 1u);
	EXPECT_FALSE(runs[3].at("gpu").at("available").boolean());
	EXPECT_TRUE(doc.at("environment").at("amd").at("parameters").at("mes").is_object());
	EXPECT_EQ(runs[3].at("workers").array().size(), 2u);
	EXPECT_EQ(runs[3].at("status").string(), "ok");
	EXPECT_TRUE(runs[3].at("scaling_ratio").is_number());
	EXPECT_TRUE(runs[3].at("kfd").at("absent").is_array());
	EXPECT_EQ(doc.at("summary").array().size(), 2u);
	EXPECT_EQ(doc.at("summary").array()[0].at("runs").number(), 2);
	const auto csv = *read_text(out + "/results.csv");
	EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 5);
	EXPECT_NE(read_text(out + "/stdout.txt")->find("agg_qps"), std::string::npos);
	std::filesystem::remove_all(out);
}

// The case of the issue end to end: worker 1 of 2 is blocked from the
// warm-up until half of the window (its first query is started in the
// warm-up and ends 0.4 s into the 0.8 s window). The aggregate counts what completed in the window, the
// worker's idle bins are flagged, and the old per-worker-span figure, kept
// for comparison, shows how much it would have overstated.
TEST(LauncherBinary, AWorkerStarvedForHalfTheWindowIsCountedAndFlagged)
{
	const std::string out = temp_dir();
	const std::string cmd = std::string(KFDMP_LAUNCHER) + " --worker-bin " + KFDMP_TEST_WORKER +
				" --workload sleep --iters 5000 --procs 2 --devices ok,stall450 --duration 0.8"
				" --warmup 0.05 --stamp-every 0 --out " + out + " > " + out + "/stdout.txt 2>&1";
	ASSERT_EQ(run_command(cmd), 0) << *read_text(out + "/stdout.txt");
	const json::Value doc = json::parse(*read_text(out + "/results.json"));
	const json::Value& run = doc.at("runs").array()[1];
	ASSERT_EQ(run.at("procs").number(), 2);
	const auto& w = run.at("workers").array();
	const double q0 = w[0].at("window_queries").number(), q1 = w[1].at("window_queries").number();
	EXPECT_LT(q1, 0.7 * q0); // blocked for half the window: about half the queries
	EXPECT_NEAR(run.at("aggregate_qps").number(), (q0 + q1) / 0.8, 1e-6);
	EXPECT_GT(run.at("sum_of_worker_span_qps").number(), 1.15 * run.at("aggregate_qps").number());
	// (worker 0 is not asserted spotless: a loaded CI machine can starve it too)
	EXPECT_LT(w[0].at("starved_bins").array().size(), w[1].at("starved_bins").array().size());
	ASSERT_GE(w[1].at("starved_bins").array().size(), 3u);
	EXPECT_EQ(w[1].at("starved_bins").array()[0].number(), 0);
	EXPECT_TRUE(run.at("window").at("any_starved").boolean());
	EXPECT_LT(run.at("jain_index").number(), 0.98);
	std::filesystem::remove_all(out);
}

// --mix: each tenant runs alone at 1 process first, then together; the
// mixed run reports per-tenant figures ("slow" queries take 4x as long).
TEST(LauncherBinary, MixReportsEachTenant)
{
	const std::string out = temp_dir();
	const std::string cmd = std::string(KFDMP_LAUNCHER) + " --worker-bin " + KFDMP_TEST_WORKER +
				" --mix sleep:2,slow:1 --iters 2000 --duration 0.4 --warmup 0.02 --out " + out + " > " +
				out + "/stdout.txt 2>&1";
	ASSERT_EQ(run_command(cmd), 0) << *read_text(out + "/stdout.txt");
	const json::Value doc = json::parse(*read_text(out + "/results.json"));
	const auto& runs = doc.at("runs").array();
	ASSERT_EQ(runs.size(), 3u); // sleep alone, slow alone, the mix
	EXPECT_EQ(runs[0].at("workers").array()[0].at("workload").string(), "sleep");
	EXPECT_EQ(runs[1].at("workers").array()[0].at("workload").string(), "slow");
	const json::Value& mix = runs[2];
	EXPECT_EQ(mix.at("mix").string(), "sleep:2,slow:1");
	EXPECT_EQ(mix.at("procs").number(), 3);
	EXPECT_TRUE(mix.at("scaling_ratio").is_null()); // a mix has no single baseline
	const auto& t = mix.at("tenants").array();
	ASSERT_EQ(t.size(), 2u);
	EXPECT_EQ(t[0].at("workload").string(), "sleep");
	EXPECT_EQ(t[0].at("procs").number(), 2);
	EXPECT_EQ(t[1].at("workload").string(), "slow");
	EXPECT_GT(t[0].at("qps_per_proc").number(), 2 * t[1].at("qps_per_proc").number());
	EXPECT_TRUE(t[1].at("solo_qps").is_number());
	EXPECT_TRUE(t[1].at("latency_us").at("p99.9").is_number());
	std::filesystem::remove_all(out);
}

// Tenant mode: the critical tenant alone, each best-effort workload alone,
// then one run per arm; the sched arm skips itself with the reason on a
// build without the tenant-control interface.
TEST(LauncherBinary, TenantModeJudgesEachArmAgainstAlone)
{
	const std::string out = temp_dir();
	const std::string cmd = std::string(KFDMP_LAUNCHER) + " --worker-bin " + KFDMP_TEST_WORKER +
				" --critical sleep --rate 400 --mix slow:2 --iters 300 --duration 0.4 --warmup 0.02"
				" --out " + out + " > " + out + "/stdout.txt 2>&1";
	ASSERT_EQ(run_command(cmd), 0) << *read_text(out + "/stdout.txt");
	EXPECT_NE(read_text(out + "/stdout.txt")->find("tenant mode: critical sleep at 400.0/s beside slow:2"), std::string::npos);
	const json::Value doc = json::parse(*read_text(out + "/results.json"));
	const auto& runs = doc.at("runs").array();
	ASSERT_EQ(runs.size(), 4u); // critical alone, best-effort alone, arms none and priority
	EXPECT_EQ(runs[0].at("tenant_role").string(), "critical_alone");
	EXPECT_EQ(runs[0].at("procs").number(), 1);
	EXPECT_EQ(runs[1].at("tenant_role").string(), "best_effort_alone");
	EXPECT_EQ(runs[1].at("procs").number(), 2);
	EXPECT_EQ(runs[2].at("tenant_arm").string(), "none");
	EXPECT_EQ(runs[3].at("tenant_arm").string(), "priority");
	EXPECT_EQ(runs[3].at("procs").number(), 3);
	// Open loop for the critical worker only: about 400/s x 0.4 s, while the
	// best-effort workers run closed loop (1.2 ms queries).
	const auto& w = runs[2].at("workers").array();
	EXPECT_LT(w[0].at("window_queries").number(), 250);
	const json::Value& t = doc.at("tenant");
	EXPECT_EQ(t.at("critical").string(), "sleep");
	const auto& arms = t.at("arms").array();
	ASSERT_EQ(arms.size(), 3u);
	EXPECT_EQ(arms[0].at("arm").string(), "none");
	EXPECT_EQ(arms[0].at("status").string(), "ok");
	EXPECT_TRUE(arms[0].at("critical_p99_ratio").is_number());
	const auto& be = arms[0].at("best_effort").array();
	ASSERT_EQ(be.size(), 1u); // one entry per workload: slow, mean over its 2 processes
	EXPECT_EQ(be[0].at("workload").string(), "slow");
	EXPECT_GT(be[0].at("kept").number(), 0.5); // sleeping workers barely slow each other
	EXPECT_EQ(arms[0].at("suspend_target").string(), "unavailable: no suspends in the none arm");
	EXPECT_EQ(arms[1].at("arm").string(), "sched-kfd");
	EXPECT_EQ(arms[1].at("status").string(), "skipped");
	EXPECT_FALSE(arms[1].at("reason").string().empty()); // the build, /dev/kfd or the driver says why
	EXPECT_TRUE(arms[1].at("suspend_to_unmapped").at("unavailable").is_string());
	EXPECT_EQ(arms[2].at("arm").string(), "priority");
	EXPECT_EQ(arms[2].at("best_effort").array().size(), 1u);
	std::filesystem::remove_all(out);
}

// The sched arm end to end with kfdmp-sched's fake backend: the daemon gets
// the workers' pids, the critical worker's busy/idle reach it, SIGTERM after
// the window leaves nothing suspended, and the arm reports its decisions.
TEST(LauncherBinary, TenantModeSchedArmDrivesKfdmpSched)
{
	const std::string out = temp_dir();
	const std::string cmd = std::string(KFDMP_LAUNCHER) + " --worker-bin " + KFDMP_TEST_WORKER +
				" --critical sleep --rate 50 --mix slow:2 --iters 2000 --duration 0.6 --warmup 0.05"
				" --arms sched --sched-backend fake --sched-bin " + KFDMP_SCHED_BIN + " --out " + out +
				" > " + out + "/stdout.txt 2>&1";
	ASSERT_EQ(run_command(cmd), 0) << *read_text(out + "/stdout.txt");
	const json::Value doc = json::parse(*read_text(out + "/results.json"));
	const auto& arms = doc.at("tenant").at("arms").array();
	ASSERT_EQ(arms.size(), 1u);
	ASSERT_EQ(arms[0].at("status").string(), "ok") << *read_text(out + "/stdout.txt");
	const json::Value& sd = arms[0].at("sched");
	EXPECT_GE(sd.at("suspends").number(), 1);
	EXPECT_GE(sd.at("resumes").number(), 1);
	EXPECT_TRUE(sd.at("decision_latency").at("p50_us").is_number());
	const std::string log = *read_text(sd.at("log").string());
	const auto& runs = doc.at("runs").array();
	const auto& w = runs.back().at("workers").array();
	// The daemon was told the worker pids: critical worker 0, best-effort 1 and 2.
	EXPECT_NE(log.find("\"critical\":[" + std::to_string(int64_t(w[0].at("pid").number())) + "]"),
		  std::string::npos) << log;
	EXPECT_NE(log.find("\"left_suspended\":0"), std::string::npos) << log;
	EXPECT_TRUE(arms[0].at("suspend_to_unmapped").at("unavailable").is_string());
	std::filesystem::remove_all(out);
}

// --trace in tenant mode: the trace wrapper writes trace.txt only after
// kfdmp has exited, so the launcher reads it then and rewrites the tenant
// section. A stand-in for scripts/trace.sh records lines of the daemon's
// pid in the raw tracefs format (the real one needs root and the driver).
TEST(LauncherBinary, TenantModeReadsTheTraceAfterTheTracedRun)
{
	const std::string out = temp_dir();
	const std::string script = out + "/fake-trace.sh";
	{
		std::FILE* f = std::fopen(script.c_str(), "w");
		ASSERT_NE(f, nullptr);
		std::fputs("#!/bin/sh\n"
			   "# record OUTDIR -- CMD...\n"
			   "dir=$2; shift 3; mkdir -p \"$dir\"; \"$@\"; rc=$?\n"
			   "pid=$(grep -o '\"daemon_pid\": *[0-9]*' \"$dir/../results.json\" | grep -o '[0-9]*$')\n"
			   "printf 'status=on\\nmethod=tracefs\\n' > \"$dir/trace.env\"\n"
			   "l=\"kfdmp-sched-$pid [001] .....\"\n"
			   "{ echo \"$l 10.000300: kfd_unmap_queues: gpu_id=5 filter=dynamic filter_param=0 ret=0 wait_us=250\"\n"
			   "  echo \"$l 10.000350: kfd_tenant_ctl: gpu_id=5 op=suspend procs=2 ret=0 wait_ns=300000 duration_ns=350000\"\n"
			   "  echo \"$l 10.020120: kfd_runlist_submit: gpu_id=5 processes=3 active_queues=9 oversubscribed=no reasons= duration_us=9 ret=0\"\n"
			   "  echo \"$l 10.020130: kfd_tenant_ctl: gpu_id=5 op=resume procs=2 ret=0 wait_ns=100000 duration_ns=130000\"\n"
			   "} > \"$dir/trace.txt\"\n"
			   "exit $rc\n",
			   f);
		std::fclose(f);
		chmod(script.c_str(), 0755);
	}
	const std::string cmd = std::string(KFDMP_LAUNCHER) + " --worker-bin " + KFDMP_TEST_WORKER +
				" --critical sleep --rate 50 --mix slow:2 --iters 2000 --duration 0.4 --warmup 0.05"
				" --arms sched --sched-backend fake --sched-bin " + KFDMP_SCHED_BIN + " --trace --trace-script " +
				script + " --out " + out + " > " + out + "/stdout.txt 2>&1";
	ASSERT_EQ(run_command(cmd), 0) << *read_text(out + "/stdout.txt");
	const std::string stdout_text = *read_text(out + "/stdout.txt");
	// The traced kfdmp said where the values would come from; the launcher then read them.
	EXPECT_NE(stdout_text.find("once the traced run has ended"), std::string::npos) << stdout_text;
	EXPECT_NE(stdout_text.find("tenant transitions from the kfd trace (" + out + "/trace/trace.txt)"),
		  std::string::npos) << stdout_text;
	const json::Value doc = json::parse(*read_text(out + "/results.json"));
	const auto& arms = doc.at("tenant").at("arms").array();
	ASSERT_EQ(arms.size(), 1u);
	ASSERT_EQ(arms[0].at("status").string(), "ok") << stdout_text;
	EXPECT_GT(arms[0].at("sched").at("daemon_pid").number(), 0);
	const json::Value& s = arms[0].at("suspend_to_unmapped");
	ASSERT_EQ(s.find("unavailable"), nullptr) << json::dump(s);
	EXPECT_NEAR(s.at("p50_us").number(), 300, 1e-9);
	EXPECT_EQ(s.at("samples").number(), 1);
	EXPECT_NEAR(arms[0].at("resume_to_running").at("p99_us").number(), 120, 1e-9);
	EXPECT_EQ(arms[0].at("suspend_target").string(), "pass");
	EXPECT_EQ(doc.at("tenant").at("trace").at("status").string(), "read");
	std::filesystem::remove_all(out);
}

// --cu-split gives worker i of N the range index i of N; --rate paces
// arrivals (open loop) and measures latency from the arrival.
TEST(LauncherBinary, CuSplitAndOpenLoopReachTheWorkers)
{
	const std::string out = temp_dir();
	const std::string cmd = std::string(KFDMP_LAUNCHER) + " --worker-bin " + KFDMP_TEST_WORKER +
				" --workload sleep --iters 500 --procs 3 --cu-split --rate 200 --duration 0.5 --warmup 0.02"
				" --out " + out + " > " + out + "/stdout.txt 2>&1";
	ASSERT_EQ(run_command(cmd), 0) << *read_text(out + "/stdout.txt");
	const json::Value doc = json::parse(*read_text(out + "/results.json"));
	const json::Value& run = doc.at("runs").array()[1];
	ASSERT_EQ(run.at("procs").number(), 3);
	for (int i = 0; i < 3; ++i) {
		const json::Value& w = run.at("workers").array()[i];
		EXPECT_NE(w.at("device").string().find("split=" + std::to_string(i) + "/3"), std::string::npos)
			<< w.at("device").string();
		// 200/s for 0.5 s: about 100 arrivals, far fewer than the ~1000
		// a closed loop of 0.5 ms queries would complete.
		EXPECT_GT(w.at("window_queries").number(), 40);
		EXPECT_LT(w.at("window_queries").number(), 200);
	}
	EXPECT_EQ(doc.at("config").at("params").at("rate").number(), 200);
	std::filesystem::remove_all(out);
}

TEST(LauncherBinary, ExitsWithTheSkipCodeWhenTheDeviceIsUnavailable)
{
	const std::string out = temp_dir();
	const std::string cmd = std::string(KFDMP_LAUNCHER) + " --worker-bin " + KFDMP_TEST_WORKER +
				" --workload unavailable --procs 1,2 --out " + out + " > /dev/null 2>&1";
	EXPECT_EQ(run_command(cmd), 77);
	const json::Value doc = json::parse(*read_text(out + "/results.json"));
	ASSERT_EQ(doc.at("runs").array().size(), 1u); // the sweep stops at the first
	EXPECT_NE(doc.at("runs").array()[0].at("reason").string().find("nothing to run on"), std::string::npos);
	std::filesystem::remove_all(out);
}

TEST(LauncherBinary, CtrlCKillsTheWorkersAndStillWritesResults)
{
	const std::string out = temp_dir();
	const pid_t pid = fork();
	if (pid == 0) {
		const std::string o = "--out=" + out;
		execl(KFDMP_LAUNCHER, KFDMP_LAUNCHER, "--worker-bin", KFDMP_TEST_WORKER, "--workload", "hang",
		      "--procs", "3", "--grace", "600", "--duration", "0.05", "--warmup", "0", o.c_str(), nullptr);
		_exit(127);
	}
	// Wait until the workers run (their queues hang), then interrupt.
	usleep(500'000);
	kill(pid, SIGINT);
	int status = 0;
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 130);
	const json::Value doc = json::parse(*read_text(out + "/results.json"));
	for (const auto& run : doc.at("runs").array()) {
		EXPECT_EQ(run.at("status").string(), "interrupted");
		for (const auto& w : run.at("workers").array())
			EXPECT_FALSE(alive(pid_t(w.at("pid").number())));
	}
	std::filesystem::remove_all(out);
}
