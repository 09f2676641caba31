// kfdmp-sched as a process (fake backend): it suspends on a critical
// tenant's report and resumes everything when stopped by SIGTERM or SIGINT.
#include "signal_socket.h"

#include <chrono>
#include <csignal>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace kfdmp::sched;

namespace {

struct DaemonRun {
	pid_t pid = -1;
	std::string log, sock, err;
};

DaemonRun start(const std::vector<std::string>& extra, const std::string& tag)
{
	DaemonRun r;
	std::string base = "/tmp/kfdmp-sched-daemon-" + std::to_string(getpid()) + "-" + tag;
	r.log = base + ".log";
	r.sock = base + ".sock";
	r.err = base + ".err";
	unlink(r.log.c_str());
	std::vector<std::string> args = {KFDMP_SCHED_BIN, "--backend", "fake", "--socket", r.sock, "--log", r.log};
	args.insert(args.end(), extra.begin(), extra.end());
	r.pid = fork();
	if (r.pid == 0) {
		std::vector<char*> argv;
		for (auto& a : args)
			argv.push_back(const_cast<char*>(a.c_str()));
		argv.push_back(nullptr);
		if (!freopen(r.err.c_str(), "w", stderr))
			_exit(126);
		execv(argv[0], argv.data());
		_exit(127);
	}
	return r;
}

std::string slurp(const std::string& path)
{
	std::ifstream in(path);
	std::stringstream ss;
	ss << in.rdbuf();
	return ss.str();
}

bool wait_for(const std::string& path, const std::string& needle)
{
	for (int i = 0; i < 500; i++) {
		if (slurp(path).find(needle) != std::string::npos)
			return true;
		std::this_thread::sleep_for(std::chrono::milliseconds(10));
	}
	return false;
}

int finish(DaemonRun& r)
{
	int st = 0;
	for (int i = 0; i < 500; i++) {
		if (waitpid(r.pid, &st, WNOHANG) == r.pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		std::this_thread::sleep_for(std::chrono::milliseconds(10));
	}
	kill(r.pid, SIGKILL);
	waitpid(r.pid, &st, 0);
	return -1;
}

void suspend_then_stop(int sig, const char* name)
{
	std::string me = std::to_string(getpid());
	DaemonRun r = start({"--best-effort", "3999001,3999002", "--critical", me, "--max-suspend-ms", "60000"}, name);
	ASSERT_TRUE(wait_for(r.log, "\"event\":\"start\"")) << slurp(r.err);
	CriticalNotifier n(r.sock);
	ASSERT_EQ(n.busy(), 0);
	ASSERT_TRUE(wait_for(r.log, "\"event\":\"suspend\"")) << slurp(r.log);
	EXPECT_NE(slurp(r.log).find("\"pids\":[3999001,3999002],\"gpus\":\"all\",\"result\":\"ok\""),
		  std::string::npos)
		<< slurp(r.log);
	kill(r.pid, sig);
	EXPECT_EQ(finish(r), 0) << slurp(r.err);
	std::string log = slurp(r.log);
	EXPECT_NE(log.find(std::string("\"event\":\"resume\",\"reason\":\"") + name + "\",\"pids\":[3999001,3999002]"),
		  std::string::npos)
		<< log;
	EXPECT_NE(log.find("\"event\":\"shutdown\",\"reason\":\"" + std::string(name) + "\",\"left_suspended\":0"),
		  std::string::npos)
		<< log;
	EXPECT_NE(access(r.sock.c_str(), F_OK), 0) << "socket file left behind";
	unlink(r.log.c_str());
	unlink(r.err.c_str());
}

} // namespace

TEST(Daemon, SigtermResumesEverythingItSuspended) { suspend_then_stop(SIGTERM, "SIGTERM"); }

TEST(Daemon, SigintResumesEverythingItSuspended) { suspend_then_stop(SIGINT, "SIGINT"); }

TEST(Daemon, ReportsFromOtherProcessesAreIgnored)
{
	DaemonRun r = start({"--best-effort", "3999001", "--critical", "1"}, "ignored");
	ASSERT_TRUE(wait_for(r.log, "\"event\":\"start\"")) << slurp(r.err);
	CriticalNotifier n(r.sock);
	ASSERT_EQ(n.busy(), 0);
	EXPECT_TRUE(wait_for(r.log, "\"why\":\"sender is not a critical tenant\"")) << slurp(r.log);
	kill(r.pid, SIGTERM);
	EXPECT_EQ(finish(r), 0);
	EXPECT_EQ(slurp(r.log).find("\"event\":\"suspend\""), std::string::npos);
	unlink(r.log.c_str());
	unlink(r.err.c_str());
}

TEST(Daemon, KernelBackendWithoutTheInterfaceFailsClearly)
{
	DaemonRun r = start({"--best-effort", "3999001", "--critical", "1", "--backend", "kfd", "--device", "/dev/null"},
		      "nokfd");
	EXPECT_EQ(finish(r), 1);
	EXPECT_NE(slurp(r.err).find("not supported by the loaded driver"), std::string::npos) << slurp(r.err);
	unlink(r.log.c_str());
	unlink(r.err.c_str());
}

TEST(Daemon, UsageErrorsExitWithTwo)
{
	DaemonRun r = start({"--best-effort", "12,x", "--critical", "1"}, "usage");
	EXPECT_EQ(finish(r), 2);
	EXPECT_NE(slurp(r.err).find("'x' is not a pid"), std::string::npos) << slurp(r.err);
	DaemonRun r2 = start({"--best-effort", "12", "--critical", "12"}, "usage2");
	EXPECT_EQ(finish(r2), 2);
	EXPECT_NE(slurp(r2.err).find("both critical and best-effort"), std::string::npos) << slurp(r2.err);
	for (auto* x : {&r, &r2}) {
		unlink(x->log.c_str());
		unlink(x->err.c_str());
	}
}
