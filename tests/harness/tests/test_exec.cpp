// Exec workers (docs/exec-workers.md) driven through the kfdmp binary with
// plain shell/Python scripts as the command (tests/exec/): no GPU, so they
// run in every build, -DKFDMP_GPU=none included. No assertion depends on
// how fast anything runs.
#include "arms.h"
#include "exec_bridge.h"
#include "json.h"
#include "kfd_probe.h"
#include "launcher.h"
#include "options.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <dirent.h>
#include <sched.h>
#include <filesystem>
#include <fstream>
#include <sys/wait.h>
#include <unistd.h>

using namespace kfdmp;

namespace {

const std::string scripts = KFDMP_EXEC_SCRIPTS;
const std::string py_worker = scripts + "/py_worker.py";
const std::string pipe_worker = scripts + "/pipe_worker.py";

std::string temp_dir()
{
	char dir[] = "/tmp/kfdmp-exec-test-XXXXXX";
	return mkdtemp(dir);
}

int run_command(const std::string& cmd)
{
	const int s = std::system(cmd.c_str());
	return WIFEXITED(s) ? WEXITSTATUS(s) : 128 + WTERMSIG(s);
}

// Runs kfdmp with `args` (short windows), output in `out`; returns its exit status.
int run_kfdmp(const std::string& out, const std::string& args, const std::string& env = "")
{
	return run_command(env + " " + KFDMP_LAUNCHER + " --duration 0.3 --warmup 0.05 --stamp-every 0 --out " + out +
			   " " + args + " > " + out + "/stdout.txt 2> " + out + "/stderr.txt");
}

std::string text(const std::string& path) { return read_text(path).value_or("(missing " + path + ")"); }

std::string output(const std::string& out) { return text(out + "/stdout.txt") + text(out + "/stderr.txt"); }

json::Value results(const std::string& out) { return json::parse(text(out + "/results.json")); }

// Processes whose command line contains `token` (other than this one).
int processes_with(const std::string& token)
{
	int n = 0;
	if (DIR* d = opendir("/proc")) {
		while (dirent* e = readdir(d)) {
			const std::string pid = e->d_name;
			if (pid.find_first_not_of("0123456789") != std::string::npos || std::stoi(pid) == getpid())
				continue;
			std::ifstream f("/proc/" + pid + "/cmdline");
			std::string cmd((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
			n += cmd.find(token) != std::string::npos;
		}
		closedir(d);
	}
	return n;
}

// A CPU this process may run on (CI may restrict the CPU set), for --pin.
std::string allowed_cpu()
{
	cpu_set_t set;
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof set, &set) == 0)
		for (int c = 0; c < CPU_SETSIZE; ++c)
			if (CPU_ISSET(c, &set))
				return std::to_string(c);
	return "0";
}

void write(const std::string& path, const std::string& content)
{
	std::filesystem::create_directories(std::filesystem::path(path).parent_path());
	std::ofstream(path) << content;
}

// A fake sysfs with one AMD GPU (KFD node 1, 80 CUs, render minor 128) on
// NUMA node `numa` whose CPUs are `cpus`.
void fake_sysfs(const std::string& root, const std::string& numa, const std::string& cpus)
{
	write(root + "/kfd/topology/nodes/0/gpu_id", "0\n");
	write(root + "/kfd/topology/nodes/0/properties", "cpu_cores_count 8\nsimd_count 0\n");
	write(root + "/kfd/topology/nodes/1/gpu_id", "1234\n");
	write(root + "/kfd/topology/nodes/1/properties", "simd_count 320\nsimd_per_cu 4\ndrm_render_minor 128\n");
	write(root + "/sys/class/drm/renderD128/device/numa_node", numa + "\n");
	write(root + "/sys/devices/system/node/node" + numa + "/cpulist", cpus + "\n");
}

} // namespace

TEST(ExecProtocol, ParsesEveryLineKind)
{
	ExecLine l = parse_exec_line("kfdmp 1 ready device=MI300X gpu_time=1");
	EXPECT_EQ(l.kind, "ready");
	EXPECT_EQ(l.device, "MI300X");
	EXPECT_TRUE(l.gpu_time);
	l = parse_exec_line("kfdmp 1 ready");
	EXPECT_EQ(l.kind, "ready");
	EXPECT_FALSE(l.gpu_time);
	l = parse_exec_line("kfdmp 1 unsupported graph=1 no CUDA graphs here");
	EXPECT_EQ(l.kind, "unsupported");
	EXPECT_EQ(l.key, "graph=1");
	EXPECT_EQ(l.text, "no CUDA graphs here");
	l = parse_exec_line("kfdmp 1 error out of memory");
	EXPECT_EQ(l.kind, "error");
	EXPECT_EQ(l.text, "out of memory");
	l = parse_exec_line("done 17 gpu_ns=123456");
	EXPECT_EQ(l.kind, "done");
	EXPECT_EQ(l.seq, 17u);
	EXPECT_TRUE(l.has_gpu_ns);
	EXPECT_EQ(l.gpu_ns, 123456u);
	l = parse_exec_line("done 18");
	EXPECT_EQ(l.kind, "done");
	EXPECT_FALSE(l.has_gpu_ns);
	l = parse_exec_line("fail 3 CUDA error: device-side assert");
	EXPECT_EQ(l.kind, "fail");
	EXPECT_EQ(l.seq, 3u);
	EXPECT_EQ(l.text, "CUDA error: device-side assert");
	for (const char* bad : {"", "hello", "kfdmp 2 ready", "kfdmp 1 ready speed=9", "done", "done x", "done 1 gpu_ns=-5",
				"done 1 extra", "kfdmp 1 shrug"})
		EXPECT_EQ(parse_exec_line(bad).kind, "bad") << bad;
	EXPECT_NE(parse_exec_line("kfdmp 2 ready").why.find("protocol version 2"), std::string::npos);
}

TEST(ExecProtocol, ConfigLinesStartWithHello)
{
	WorkloadParams p{};
	std::snprintf(p.exec_config, sizeof p.exec_config, "env OMP_NUM_THREADS=4\noption threads=4");
	const auto lines = exec_config_lines(p, 2, 8);
	ASSERT_EQ(lines.size(), 3u);
	EXPECT_EQ(lines[0], "kfdmp 1 hello index=2 workers=8");
	EXPECT_EQ(lines[1], "env OMP_NUM_THREADS=4");
	EXPECT_EQ(lines[2], "option threads=4");
	EXPECT_EQ(exec_config_lines(p, 2, 8, true)[0], "kfdmp 1 hello index=2 workers=8 pipeline=1");
}

// `pipeline=1`: offered in closed loop only, unless KFDMP_EXEC_PIPELINE=0;
// `ready pipeline=1` parses (and `pipeline=0`).
TEST(ExecProtocol, PipelineOfferAndAnswer)
{
	WorkloadParams p{};
	unsetenv("KFDMP_EXEC_PIPELINE");
	EXPECT_TRUE(exec_pipeline_offered(p));
	setenv("KFDMP_EXEC_PIPELINE", "0", 1);
	EXPECT_FALSE(exec_pipeline_offered(p));
	setenv("KFDMP_EXEC_PIPELINE", "1", 1);
	EXPECT_TRUE(exec_pipeline_offered(p));
	unsetenv("KFDMP_EXEC_PIPELINE");
	p.rate = 100;
	EXPECT_FALSE(exec_pipeline_offered(p));
	ExecLine l = parse_exec_line("kfdmp 1 ready device=x gpu_time=1 pipeline=1");
	EXPECT_EQ(l.kind, "ready");
	EXPECT_TRUE(l.pipeline);
	EXPECT_TRUE(l.gpu_time);
	EXPECT_FALSE(parse_exec_line("kfdmp 1 ready").pipeline);
	EXPECT_FALSE(parse_exec_line("kfdmp 1 ready pipeline=0").pipeline);
	EXPECT_EQ(parse_exec_line("kfdmp 1 ready pipeline=2").kind, "bad");
}

TEST(ExecArms, CuMaskInRocrSyntaxAndCpuThreads)
{
	// ROCr's CU_list: base-10 ids and ranges (src/core/util/flag.cpp).
	EXPECT_EQ(hsa_cu_mask_value(0, {0x0000000fu}), "0:0-3");
	EXPECT_EQ(hsa_cu_mask_value(3, {0x80000001u, 0x1u}), "3:0,31-32");
	EXPECT_EQ(mask_cus({0xffu, 0x1u}), 9u);
	EXPECT_EQ(cpu_threads_for("default", 4, 224), 0u);
	EXPECT_EQ(cpu_threads_for("auto", 8, 224), 28u);
	EXPECT_EQ(cpu_threads_for("auto", 8, 4), 1u);
	EXPECT_EQ(cpu_threads_for("3", 8, 224), 3u);
	EXPECT_EQ(parse_cpu_list("0-3,8,10-11"), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
	EXPECT_TRUE(parse_cpu_list("3-1").empty());
	EXPECT_TRUE(parse_cpu_list("a").empty());
}

TEST(ExecArms, NumaCpusFromSysfs)
{
	const std::string root = temp_dir();
	fake_sysfs(root, "1", "0-3,8-11");
	std::string why;
	EXPECT_EQ(gpu_numa_cpus(root + "/sys", root + "/kfd", 0, why), "0-3,8-11") << why;
	EXPECT_EQ(gpu_numa_cpus(root + "/sys", root + "/kfd", 1, why), "");
	EXPECT_NE(why.find("not in the KFD topology"), std::string::npos) << why;
	EXPECT_EQ(gpu_cu_count(root + "/kfd", 0, why), 80u);
	write(root + "/sys/class/drm/renderD128/device/numa_node", "-1\n");
	EXPECT_EQ(gpu_numa_cpus(root + "/sys", root + "/kfd", 0, why), "");
	EXPECT_NE(why.find("no NUMA node"), std::string::npos) << why;
	// NVIDIA: PCI functions of vendor 0x10de, class 0x03xxxx, in BDF order.
	const std::string nv = temp_dir();
	write(nv + "/sys/bus/pci/devices/0000:1b:00.0/vendor", "0x10de\n");
	write(nv + "/sys/bus/pci/devices/0000:1b:00.0/class", "0x030200\n");
	write(nv + "/sys/bus/pci/devices/0000:1b:00.0/numa_node", "0\n");
	write(nv + "/sys/bus/pci/devices/0000:1a:00.0/vendor", "0x8086\n");
	write(nv + "/sys/bus/pci/devices/0000:1a:00.0/class", "0x060400\n");
	write(nv + "/sys/devices/system/node/node0/cpulist", "0-7\n");
	EXPECT_EQ(gpu_numa_cpus(nv + "/sys", nv + "/kfd", 0, why), "0-7") << why;
	EXPECT_EQ(gpu_cu_count(nv + "/kfd", 0, why), 0u);
	EXPECT_NE(why.find("no AMD GPU"), std::string::npos) << why;
	std::filesystem::remove_all(root);
	std::filesystem::remove_all(nv);
}

// Closed loop through a plain sh script: gpu_ns recorded, workload and arm in
// the CSV, the command in the JSON.
TEST(ExecBinary, ShellWorkerClosedLoop)
{
	const std::string out = temp_dir();
	ASSERT_EQ(run_kfdmp(out, "--exec " + scripts + "/sh_worker.sh --procs 1,2"), 0) << output(out);
	const json::Value doc = results(out);
	EXPECT_EQ(doc.at("config").at("exec").at("exec").string(), scripts + "/sh_worker.sh");
	const auto& runs = doc.at("runs").array();
	ASSERT_EQ(runs.size(), 2u);
	for (const auto& r : runs) {
		EXPECT_EQ(r.at("status").string(), "ok");
		EXPECT_EQ(r.at("workload").string(), "exec");
		EXPECT_EQ(r.at("arm").string(), "stock");
		EXPECT_GT(r.at("aggregate_qps").number(), 0);
		EXPECT_EQ(r.at("workers").array()[0].at("device").string(), "sh-worker");
		EXPECT_EQ(r.at("gpu_time").at("mean_gpu_us").number(), 1.0); // done SEQ gpu_ns=1000
		EXPECT_TRUE(r.at("gpu_time").at("host_wait_us").at("p50").is_number());
	}
	EXPECT_EQ(runs[1].at("gpu_time").at("kernel_time_inflation").number(), 1.0);
	EXPECT_EQ(doc.at("summary").array()[1].at("gpu_time_inflation").number(), 1.0);
	const std::string csv = text(out + "/results.csv");
	EXPECT_EQ(csv.substr(0, 13), "workload,arm,");
	EXPECT_NE(csv.find("\nexec,stock,2,0,ok,"), std::string::npos) << csv;
	EXPECT_NE(text(out + "/stderr.txt").find("run 2 of 2 (elapsed "), std::string::npos) << output(out);
	std::filesystem::remove_all(out);
}

// Open loop (--rate): Poisson arrivals, latency from the arrival; without
// gpu_time=1 the GPU-time figures say why they are missing.
TEST(ExecBinary, PythonWorkerOpenLoopWithoutGpuTime)
{
	const std::string out = temp_dir();
	ASSERT_EQ(run_kfdmp(out, "--exec '" + py_worker + " no-gpu-time' --procs 2 --rate 100"), 0) << output(out);
	const json::Value doc = results(out);
	const auto& runs = doc.at("runs").array();
	ASSERT_EQ(runs.size(), 2u);
	EXPECT_EQ(runs[1].at("status").string(), "ok");
	EXPECT_GT(runs[1].at("aggregate_qps").number(), 0);
	EXPECT_NE(runs[1].at("gpu_time").at("unavailable").string().find("gpu_time=1"), std::string::npos);
	EXPECT_NE(doc.at("summary").array()[0].at("gpu_time_inflation").string().find("unavailable"),
		  std::string::npos);
	std::filesystem::remove_all(out);
}

struct BrokenCase {
	const char* mode;
	const char* expect; // in the run's reason
};

class ExecBroken : public ::testing::TestWithParam<BrokenCase> {};

// A worker that dies, hangs, prints garbage, never gets ready, fails a
// query or speaks another version stops the run with an error naming the
// worker and quoting the line; nothing is left running.
TEST_P(ExecBroken, StopsTheRunWithAClearError)
{
	const std::string out = temp_dir();
	const std::string token = "kfdmp-broken-" + std::to_string(getpid());
	const std::string cmd = "'" + py_worker + " " + GetParam().mode + " # " + token + "'";
	EXPECT_EQ(run_kfdmp(out, "--exec " + cmd + " --procs 1 --grace 0.5 --init-timeout 2"), 1) << output(out);
	const json::Value doc = results(out);
	const auto& r = doc.at("runs").array().at(0);
	EXPECT_EQ(r.at("status").string(), "failed");
	const std::string reason = r.at("reason").string();
	EXPECT_NE(reason.find("worker 0"), std::string::npos) << reason;
	EXPECT_NE(reason.find(GetParam().expect), std::string::npos) << reason;
	EXPECT_EQ(processes_with(token), 0);
	std::filesystem::remove_all(out);
}

INSTANTIATE_TEST_SUITE_P(
	Modes, ExecBroken,
	::testing::Values(BrokenCase{"die-at 20", "the command exited with status 5 during query 20"},
			  BrokenCase{"hang-at 20", "waiting for `done 20` from the command"},
			  BrokenCase{"garbage-at 20", "not a protocol line (logs go to stderr): \"tensor([1., 2.])\""},
			  BrokenCase{"no-ready", "not ready within the init timeout"},
			  BrokenCase{"garbage-init", "\"Loading model weights...\""},
			  BrokenCase{"error", "failed to initialise: cannot load the model"},
			  BrokenCase{"bad-version", "protocol version 2"},
			  BrokenCase{"fail-at 20", "query 20 failed: out of memory"},
			  BrokenCase{"no-gpu-ns", "`ready gpu_time=1` but a `done` without gpu_ns: \"done 1\""}),
	[](const auto& info) {
		std::string n = info.param.mode;
		for (auto& c : n)
			c = std::isalnum((unsigned char)c) ? c : '_';
		return n;
	});

// `unsupported` skips the arm with the worker's reason: never run as stock.
TEST(ExecBinary, UnsupportedArmIsSkippedWithTheReason)
{
	const std::string out = temp_dir();
	EXPECT_EQ(run_kfdmp(out, "--exec '" + py_worker + " unsupported' --procs 1 --graph"), 77) << output(out);
	const json::Value doc = results(out);
	const auto& r = doc.at("runs").array().at(0);
	EXPECT_EQ(r.at("status").string(), "unavailable");
	EXPECT_NE(r.at("reason").string().find("cannot apply graph=1: this service cannot capture graphs"),
		  std::string::npos)
		<< r.at("reason").string();
	EXPECT_EQ(r.at("arm").string(), "graph");
	std::filesystem::remove_all(out);
}

// Through a `docker exec -i` stand-in that gives the command an empty
// environment: the arm still arrives, in-band.
TEST(ExecBinary, ArmCrossesDockerExecInBand)
{
	const std::string out = temp_dir();
	const std::string log = out + "/lines";
	const std::string cmd = "'docker exec -i svc " + py_worker + " --log " + log + " ok 0'";
	ASSERT_EQ(run_kfdmp(out, "--exec " + cmd + " --procs 2 --cpu-threads 3 --hw-queues 2 --graph --devices 0,1",
			"PATH=" + scripts + ":$PATH"),
		  0)
		<< output(out);
	for (int i : {0, 1}) {
		const std::string got = text(log + "." + std::to_string(i));
		EXPECT_NE(got.find("kfdmp 1 hello index=" + std::to_string(i) + " workers=2"), std::string::npos) << got;
		EXPECT_NE(got.find("env OMP_NUM_THREADS=3\n"), std::string::npos) << got;
		EXPECT_NE(got.find("option threads=3\n"), std::string::npos) << got;
		EXPECT_NE(got.find("env GPU_MAX_HW_QUEUES=2\n"), std::string::npos) << got;
		EXPECT_NE(got.find("env HIP_VISIBLE_DEVICES=" + std::to_string(i) + "\n"), std::string::npos) << got;
		EXPECT_NE(got.find("option graph=1\n"), std::string::npos) << got;
		// The stand-in dropped the process environment: only the lines carried it.
		EXPECT_NE(got.find("environ OMP_NUM_THREADS= HSA_CU_MASK= GPU_MAX_HW_QUEUES=\n"), std::string::npos) << got;
	}
	EXPECT_EQ(processes_with(log), 0); // a run that ended well leaves nothing running either
	// Without the stand-in the bridge sets the same variables in the command's environment.
	const std::string out2 = temp_dir();
	ASSERT_EQ(run_kfdmp(out2, "--exec '" + py_worker + " --log " + out2 + "/lines ok 0' --procs 1 --cpu-threads 3"), 0)
		<< output(out2);
	EXPECT_NE(text(out2 + "/lines.0").find("environ OMP_NUM_THREADS=3 "), std::string::npos);
	std::filesystem::remove_all(out);
	std::filesystem::remove_all(out2);
}

// --cu-split-xcc on exec workers: HSA_CU_MASK per process from the KFD
// topology's CU count; 80 CUs over 8 XCCs at N = 3 do not divide evenly and
// the JSON says what each process got. --pin numa: `option cpus=LIST`.
TEST(ExecBinary, CuSplitAndPinReachTheCommand)
{
	const std::string out = temp_dir();
	const std::string root = temp_dir();
	const std::string cpu = allowed_cpu();
	fake_sysfs(root, "0", cpu);
	const std::string log = out + "/lines";
	ASSERT_EQ(run_kfdmp(out, "--exec '" + py_worker + " --log " + log + " ok 0' --procs 3 --cu-split-xcc 8 --pin numa" +
				     " --kfd-sysfs " + root + "/kfd --sysfs " + root + "/sys"),
		  0)
		<< output(out);
	const json::Value doc = results(out);
	const auto& runs = doc.at("runs").array();
	ASSERT_EQ(runs.size(), 2u);
	const auto& procs = runs[1].at("arms").at("processes").array();
	ASSERT_EQ(procs.size(), 3u);
	// 10 CUs per XCC: local [0,3), [3,6), [6,10) of every XCC.
	EXPECT_EQ(procs[0].at("cus").number(), 24);
	EXPECT_EQ(procs[1].at("cus").number(), 24);
	EXPECT_EQ(procs[2].at("cus").number(), 32);
	EXPECT_EQ(procs[0].at("hsa_cu_mask").string(), "0:0-23");
	EXPECT_EQ(procs[2].at("cus").number() + procs[0].at("cus").number() + procs[1].at("cus").number(), 80);
	EXPECT_EQ(procs[0].at("cpus").string(), cpu);
	const std::string got = text(log + ".2");
	EXPECT_NE(got.find("env HSA_CU_MASK=0:48-79\n"), std::string::npos) << got;
	EXPECT_NE(got.find("option cpus=" + cpu + "\n"), std::string::npos) << got;
	EXPECT_NE(got.find("environ OMP_NUM_THREADS= HSA_CU_MASK=0:48-79 "), std::string::npos) << got;
	EXPECT_EQ(runs[1].at("arm").string(), "pin=numa+cu-split-xcc=8");
	std::filesystem::remove_all(out);
	std::filesystem::remove_all(root);
}

// Built-in workers' uneven split is recorded as well (from the KFD topology).
TEST(ExecBinary, BuiltinCuSplitRecordsEachProcessShare)
{
	const std::string out = temp_dir();
	const std::string root = temp_dir();
	fake_sysfs(root, "0", allowed_cpu());
	ASSERT_EQ(run_kfdmp(out, std::string("--worker-bin ") + KFDMP_TEST_WORKER +
					 " --workload sleep --procs 3 --cu-split-xcc 8 --kfd-sysfs " + root + "/kfd"),
		  0)
		<< output(out);
	const json::Value doc = results(out);
	const auto& procs = doc.at("runs").array().at(1).at("arms").at("processes").array();
	ASSERT_EQ(procs.size(), 3u);
	EXPECT_EQ(procs[0].at("cus").number(), 24);
	EXPECT_EQ(procs[2].at("cus").number(), 32);
	EXPECT_EQ(doc.at("runs").array().at(1).at("arm").string(), "cu-split-xcc=8");
	std::filesystem::remove_all(out);
	std::filesystem::remove_all(root);
}

// Arms that cannot be taken skip with the reason (status unavailable, exit
// 77), never running as stock.
TEST(ExecBinary, ArmsThatCannotBeTakenSkip)
{
	const std::string root = temp_dir();
	fake_sysfs(root, "0", "0");
	write(root + "/sys/class/drm/renderD128/device/numa_node", "-1\n");
	const std::string out = temp_dir();
	EXPECT_EQ(run_kfdmp(out, "--exec '" + py_worker + " ok 0' --procs 1 --pin numa --kfd-sysfs " + root + "/kfd --sysfs " +
				     root + "/sys"),
		  77)
		<< output(out);
	json::Value r = results(out).at("runs").array().at(0);
	EXPECT_EQ(r.at("status").string(), "unavailable");
	EXPECT_NE(r.at("reason").string().find("--pin numa: process 0:"), std::string::npos) << r.at("reason").string();
	// No KFD topology: no CU count for HSA_CU_MASK.
	const std::string out2 = temp_dir();
	EXPECT_EQ(run_kfdmp(out2, "--exec '" + py_worker + " ok 0' --procs 2 --cu-split --kfd-sysfs " + root + "/none"), 77)
		<< output(out2);
	r = json::Value(results(out2).at("runs").array().at(0));
	EXPECT_NE(r.at("reason").string().find("--cu-split on exec workers: no AMD GPU"), std::string::npos)
		<< r.at("reason").string();
	std::filesystem::remove_all(root);
	std::filesystem::remove_all(out);
	std::filesystem::remove_all(out2);
}

// Closed loop with `pipeline=1` (docs/exec-workers.md, "Overhead"): from
// the second query on, query k+1 is in the command's stdin before it writes
// `done k` (pipe_worker.py `ahead` fails the query otherwise, as it did
// before the bridge pipelined); the query sent ahead of the last one is
// answered after `stop` and accepted; the window's figures stay those of
// a 2 ms query.
TEST(ExecPipeline, NextQueryIsQueuedAheadInClosedLoop)
{
	const std::string out = temp_dir();
	const std::string log = out + "/lines";
	ASSERT_EQ(run_kfdmp(out, "--exec '" + pipe_worker + " --log " + log + " ahead 2' --procs 2"), 0) << output(out);
	const json::Value doc = results(out);
	const auto& runs = doc.at("runs").array();
	ASSERT_EQ(runs.size(), 2u);
	const auto& r = runs[1];
	EXPECT_EQ(r.at("status").string(), "ok");
	for (const auto& w : r.at("workers").array()) {
		// A 2 ms sleep: never more than 500 queries a second, whatever
		// the bridge does with the query sent ahead.
		EXPECT_GT(w.at("queries").number(), 0);
		EXPECT_LE(w.at("span_qps").number(), 510);
		EXPECT_GE(w.at("latency_us").at("p50").number(), 1000);
		EXPECT_GE(w.at("latency_samples").number(), w.at("queries").number()); // every query of the window
	}
	EXPECT_LE(r.at("aggregate_qps").number(), 2 * 510);
	for (int i : {0, 1}) {
		const std::string got = text(log + "." + std::to_string(i));
		EXPECT_EQ(got.substr(0, got.find('\n')), "kfdmp 1 hello index=" + std::to_string(i) + " workers=2 pipeline=1");
		// answered 1 .. K, then K+1 followed by `stop`, then `stop`
		const auto extra = got.find("\nextra ");
		ASSERT_NE(extra, std::string::npos) << got;
		const uint64_t k = std::stoull(got.substr(extra + 7));
		EXPECT_NE(got.find("\nanswered " + std::to_string(k - 1) + "\nextra " + std::to_string(k) + "\nstop\n"),
			  std::string::npos)
			<< got;
		EXPECT_EQ(std::count(got.begin(), got.end(), '\n'), long(k) + 2) << got; // hello, 1 .. k, stop
		EXPECT_EQ(got.find("not-ahead"), std::string::npos) << got;
	}
	std::filesystem::remove_all(out);
}

struct ExtraCase {
	const char* opts; // pipe_worker.py options
	int rc;           // kfdmp's exit status
	const char* expect; // in the run's reason ("" = the run is ok)
};

class ExecPipelineStop : public ::testing::TestWithParam<ExtraCase> {};

// The query sent ahead of the last one: its `done` after `stop` is
// accepted, and so is no answer (the command exits 0); its `fail` fails
// the run with the reason; a `done` with another SEQ, after `stop` or in
// the window, is a protocol error as before. Nothing is left running.
TEST_P(ExecPipelineStop, TheQuerySentAheadAtStop)
{
	const std::string out = temp_dir();
	const std::string token = "kfdmp-pipe-" + std::to_string(getpid());
	const std::string cmd = "'" + pipe_worker + " ahead 1 " + GetParam().opts + " # " + token + "'";
	EXPECT_EQ(run_kfdmp(out, "--exec " + cmd + " --procs 1 --grace 2"), GetParam().rc) << output(out);
	const json::Value doc = results(out);
	const auto& r = doc.at("runs").array().at(0);
	if (!*GetParam().expect) {
		EXPECT_EQ(r.at("status").string(), "ok") << r.at("reason").string();
	} else {
		EXPECT_EQ(r.at("status").string(), "failed");
		const std::string reason = r.at("reason").string();
		EXPECT_NE(reason.find("worker 0"), std::string::npos) << reason;
		EXPECT_NE(reason.find(GetParam().expect), std::string::npos) << reason;
	}
	EXPECT_EQ(processes_with(token), 0);
	std::filesystem::remove_all(out);
}

INSTANTIATE_TEST_SUITE_P(
	Answers, ExecPipelineStop,
	::testing::Values(ExtraCase{"extra=done", 0, ""}, ExtraCase{"extra=none", 0, ""},
			  ExtraCase{"extra=fail", 1, "(sent ahead of the last one, answered after `stop`) failed: the extra query broke"},
			  ExtraCase{"extra=wrong", 1, "(the query sent ahead) or the exit after `stop`, got \"done "},
			  ExtraCase{"wrong-at=20", 1, "expected `done 20`, got \"done 21\""}),
	[](const auto& info) {
		std::string n = info.param.opts;
		for (auto& c : n)
			c = std::isalnum((unsigned char)c) ? c : '_';
		return n;
	});

// The old rule where pipelining is not on: a command that does not answer
// `ready pipeline=1` (offered or not), open loop (not offered, even to a
// command that announces it unasked) and KFDMP_EXEC_PIPELINE=0 never get a
// query before the previous `done` (pipe_worker.py `never-ahead` fails the
// query otherwise).
TEST(ExecPipeline, NeverAheadWithoutTheAnnouncementOrInOpenLoop)
{
	struct Case {
		std::string args, env, hello_tail;
	};
	for (const Case& c : {Case{"never-ahead 1' --procs 1", "", " pipeline=1"},
			      Case{"never-ahead 1 announce=1' --procs 1 --rate 300", "", ""},
			      Case{"never-ahead 1 announce=1' --procs 1", "KFDMP_EXEC_PIPELINE=0", ""}}) {
		const std::string out = temp_dir();
		const std::string log = out + "/lines";
		ASSERT_EQ(run_kfdmp(out, "--exec '" + pipe_worker + " --log " + log + " " + c.args, c.env), 0)
			<< c.args << "\n"
			<< output(out);
		const std::string got = text(log + ".0");
		EXPECT_EQ(got.substr(0, got.find('\n')), "kfdmp 1 hello index=0 workers=1" + c.hello_tail) << c.args;
		EXPECT_EQ(got.find("early"), std::string::npos) << got;
		EXPECT_NE(got.find("answered 2\n"), std::string::npos) << got;
		EXPECT_NE(got.find("\nstop\n"), std::string::npos) << got;
		EXPECT_EQ(results(out).at("runs").array().at(0).at("status").string(), "ok");
		std::filesystem::remove_all(out);
	}
}

// Named exec workloads as tenants of --mix.
TEST(ExecBinary, ExecAsTenantsOfAMix)
{
	const std::string out = temp_dir();
	ASSERT_EQ(run_kfdmp(out, "--exec-as fast='" + py_worker + " ok 0' --exec-as shell=" + scripts +
				     "/sh_worker.sh --mix fast:2,shell:1"),
		  0)
		<< output(out);
	const json::Value doc = results(out);
	const auto& runs = doc.at("runs").array();
	ASSERT_EQ(runs.size(), 3u); // fast alone, shell alone, the mix
	const auto& tenants = runs[2].at("tenants").array();
	ASSERT_EQ(tenants.size(), 2u);
	EXPECT_EQ(tenants[0].at("workload").string(), "fast");
	EXPECT_EQ(tenants[0].at("procs").number(), 2);
	EXPECT_EQ(tenants[1].at("workload").string(), "shell");
	std::filesystem::remove_all(out);
}

// Exec workloads as tenants of tenant mode: the priority arm cannot reach
// them (protocol 1 has no stream priority) and skips with the reason before
// its launch; the arms after it still run.
TEST(ExecBinary, ExecTenantsSkipThePriorityArmOnly)
{
	const std::string out = temp_dir();
	EXPECT_EQ(run_kfdmp(out, "--exec-as crit='" + py_worker + " ok 0.5' --exec-as be='" + py_worker +
					 " ok 1' --critical crit --rate 100 --mix be:2 --arms priority,none"),
		  77)
		<< output(out);
	const json::Value doc = results(out);
	const auto& runs = doc.at("runs").array();
	ASSERT_EQ(runs.size(), 4u); // critical alone, best-effort alone, priority, none
	EXPECT_EQ(runs[2].at("tenant_arm").string(), "priority");
	EXPECT_EQ(runs[2].at("status").string(), "unavailable");
	EXPECT_NE(runs[2].at("reason").string().find("stream priority"), std::string::npos);
	EXPECT_EQ(runs[3].at("tenant_arm").string(), "none");
	EXPECT_EQ(runs[3].at("status").string(), "ok") << runs[3].at("reason").string();
	EXPECT_EQ(runs[3].at("workers").array()[0].at("workload").string(), "crit");
	std::filesystem::remove_all(out);
}

// --idle-procs: extra processes outside the QPS; in a build without GPU
// workloads (or without a GPU) the arm skips with the reason.
TEST(ExecBinary, IdleProcsSkipWithoutAGpu)
{
	const std::string out = temp_dir();
	const int rc = run_kfdmp(out, "--exec " + scripts + "/sh_worker.sh --procs 1 --idle-procs 2");
	const json::Value doc = results(out);
	const auto& r = doc.at("runs").array().at(0);
	if (r.at("status").string() == "ok") { // a GPU is there
		EXPECT_EQ(rc, 0);
		EXPECT_EQ(r.at("workers").array().size(), 1u);
		EXPECT_EQ(r.at("idle_workers").array().size(), 2u);
	} else {
		EXPECT_EQ(rc, 77) << output(out);
		EXPECT_EQ(r.at("status").string(), "unavailable");
		EXPECT_NE(r.at("reason").string().find("idle"), std::string::npos) << r.at("reason").string();
	}
	std::filesystem::remove_all(out);
}

TEST(ExecBinary, UsageErrorsAreOneLine)
{
	const std::string out = temp_dir();
	for (const std::string args : {"--exec-as nope", "--cpu-threads lots", "--pin cores", "--exec-as latency=x",
				       "--workload exec", "--mix ghost:2"}) {
		EXPECT_EQ(run_command(std::string(KFDMP_LAUNCHER) + " " + args + " > " + out + "/o 2> " + out + "/e"), 64)
			<< args;
		const std::string e = text(out + "/e");
		EXPECT_EQ(std::count(e.begin(), e.end(), '\n'), 1) << e;
		EXPECT_NE(e.find("(see --help)"), std::string::npos) << e;
		EXPECT_EQ(e.find("usage:"), std::string::npos) << e;
	}
	EXPECT_EQ(run_command(std::string(KFDMP_LAUNCHER) + " --version > " + out + "/o"), 0);
	EXPECT_EQ(text(out + "/o").substr(0, 6), "kfdmp ");
	EXPECT_NE(text(out + "/o").find("exec protocol 1"), std::string::npos);
	std::filesystem::remove_all(out);
}

TEST(ExecOptions, ExecAsCpuThreadsPinIdle)
{
	std::vector<std::string> args = {"kfdmp", "--exec-as", "svc=docker exec -i svc python3 q.py", "--exec", "sh x.sh",
					 "--cpu-threads", "auto", "--pin", "numa", "--idle-procs", "3", "--mix", "svc:2"};
	std::vector<char*> argv;
	for (auto& a : args)
		argv.push_back(a.data());
	bool help = false;
	const Options o = parse_options(Program::launcher, int(argv.size()), argv.data(), help);
	EXPECT_EQ(o.workload, "exec");
	EXPECT_EQ(o.exec_commands.at("exec"), "sh x.sh");
	EXPECT_EQ(o.exec_commands.at("svc"), "docker exec -i svc python3 q.py");
	EXPECT_TRUE(o.is_exec("svc"));
	EXPECT_FALSE(o.is_exec("latency"));
	EXPECT_EQ(o.cpu_threads, "auto");
	EXPECT_EQ(o.pin, "numa");
	EXPECT_EQ(o.idle_procs, 3u);
	ASSERT_EQ(o.tenants.size(), 1u);
	EXPECT_EQ(o.tenants[0].first, "svc");
}

// The help text's defaults are the code's.
TEST(ExecBinary, HelpDefaultsMatchTheCode)
{
	const std::string help = usage_text(Program::launcher, "kfdmp");
	const Options o;
	EXPECT_NE(help.find("(default " + std::to_string(o.latency_samples) + ")"), std::string::npos);
	EXPECT_NE(help.find("--exec CMD"), std::string::npos);
	EXPECT_NE(help.find("--python-path"), std::string::npos);
}
