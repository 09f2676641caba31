// The drain backend and its watchdog with real processes as tenants (sleep
// loops in their own process groups): stop and continue, the group scope,
// and the daemon (kfdmp-sched --backend drain) dying by SIGKILL mid-
// suspension, a tenant exiting while suspended, a critical tenant dying while
// busy, a restarted daemon finding a tenant stopped. Nothing here may leave a
// process stopped: every tenant is killed with its group at the end.
#include "drain_backend.h"
#include "proc.h"
#include "signal_socket.h"

#include <chrono>
#include <csignal>
#include <fstream>
#include <functional>
#include <gtest/gtest.h>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace kfdmp::sched;

namespace {

// A tenant: a process leading its own group, sleeping in a loop; with
// child, a second process in the same group.
struct Tenant {
	pid_t pid = -1, child = -1;
	explicit Tenant(bool with_child = false, bool own_group = true)
	{
		int p[2];
		if (pipe(p) != 0)
			return;
		pid = fork();
		if (pid == 0) {
			close(p[0]);
			if (own_group)
				setpgid(0, 0);
			pid_t c = 0;
			if (with_child) {
				c = fork();
				if (c == 0)
					for (;;)
						usleep(2000);
			}
			if (write(p[1], &c, sizeof(c)) != sizeof(c))
				_exit(1);
			for (;;)
				usleep(2000);
		}
		close(p[1]);
		pid_t c = -1;
		if (read(p[0], &c, sizeof(c)) == sizeof(c) && with_child)
			child = c;
		close(p[0]);
	}
	~Tenant() { kill_all(); }
	void kill_all()
	{
		if (pid <= 0)
			return;
		if (child > 0)
			kill(child, SIGKILL);
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
		waitpid(pid, nullptr, 0);
		pid = -1;
	}
};

char state(pid_t pid)
{
	auto st = read_stat(pid);
	return st ? st->state : '-';
}

bool eventually(const std::function<bool()>& f, int ms = 3000)
{
	for (int i = 0; i < ms / 5; i++) {
		if (f())
			return true;
		std::this_thread::sleep_for(std::chrono::milliseconds(5));
	}
	return f();
}

bool stopped(pid_t pid) { return state(pid) == 'T'; }
bool running(pid_t pid) { char s = state(pid); return s != 'T' && s != '-' && s != 'Z'; }

std::string slurp(const std::string& path)
{
	std::ifstream in(path);
	std::stringstream ss;
	ss << in.rdbuf();
	return ss.str();
}

struct Daemon {
	pid_t pid = -1;
	std::string log, sock, err;
	Daemon(const std::vector<std::string>& extra, const std::string& tag)
	{
		std::string base = "/tmp/kfdmp-sched-drain-" + std::to_string(getpid()) + "-" + tag;
		log = base + ".log";
		sock = base + ".sock";
		err = base + ".err";
		unlink(log.c_str());
		std::vector<std::string> args = {KFDMP_SCHED_BIN, "--backend", "drain", "--socket", sock, "--log", log};
		args.insert(args.end(), extra.begin(), extra.end());
		pid = fork();
		if (pid == 0) {
			std::vector<char*> argv;
			for (auto& a : args)
				argv.push_back(const_cast<char*>(a.c_str()));
			argv.push_back(nullptr);
			if (!freopen(err.c_str(), "w", stderr))
				_exit(126);
			execv(argv[0], argv.data());
			_exit(127);
		}
	}
	~Daemon()
	{
		if (pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, nullptr, 0);
		}
		unlink(log.c_str());
		unlink(err.c_str());
		unlink(sock.c_str());
	}
	bool logged(const std::string& needle, int ms = 3000)
	{
		return eventually([&] { return slurp(log).find(needle) != std::string::npos; }, ms);
	}
	int wait_exit()
	{
		int st = 0;
		bool done = eventually([&] { return waitpid(pid, &st, WNOHANG) == pid; }, 5000);
		if (!done)
			return -1;
		pid = -1;
		return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	}
	pid_t watchdog_pid()
	{
		std::string l = slurp(log);
		size_t at = l.find("\"watchdog_pid\":");
		return at == std::string::npos ? -1 : pid_t(std::atoi(l.c_str() + at + 15));
	}
};

std::string csv(std::initializer_list<pid_t> pids)
{
	std::string s;
	for (pid_t p : pids)
		s += (s.empty() ? "" : ",") + std::to_string(p);
	return s;
}

} // namespace

TEST(Proc, ReadsStateGroupAndStartTime)
{
	Tenant t;
	ASSERT_GT(t.pid, 0);
	ASSERT_TRUE(eventually([&] { return read_stat(t.pid) && read_stat(t.pid)->pgid == t.pid; }));
	auto st = read_stat(t.pid);
	EXPECT_EQ(st->ppid, getpid());
	EXPECT_GT(st->starttime, 0u);
	EXPECT_FALSE(read_stat(0x3ffffff0).has_value());
}

TEST(DrainBackend, StopsTheWholeGroupAndContinuesIt)
{
	Tenant t(true);
	ASSERT_GT(t.child, 0);
	DrainBackend b(DrainBackend::Options{});
	ASSERT_TRUE(b.probe().ok());
	CallResult r = b.suspend({t.pid}, GpuSel{});
	ASSERT_TRUE(r.ok()) << r.message;
	EXPECT_TRUE(r.has_wait) << r.note; // every thread seen stopped
	EXPECT_STREQ(r.wait_key, "stopped_us");
	EXPECT_TRUE(stopped(t.pid));
	EXPECT_TRUE(eventually([&] { return stopped(t.child); })) << "the group's other process runs";
	EXPECT_EQ(b.observe(t.pid).state, Backend::Observed::Suspended);
	// A double suspend is a no-op.
	EXPECT_TRUE(b.suspend({t.pid}, GpuSel{}).ok());
	ASSERT_TRUE(b.resume({t.pid}, GpuSel{}).ok());
	EXPECT_TRUE(eventually([&] { return running(t.pid) && running(t.child); }));
	EXPECT_EQ(b.observe(t.pid).state, Backend::Observed::Running);
}

TEST(DrainBackend, RefusesAGonePidAndChangesNothing)
{
	Tenant t;
	DrainBackend b(DrainBackend::Options{});
	ASSERT_TRUE(b.probe().ok());
	CallResult r = b.suspend({t.pid, 0x3ffffff0}, GpuSel{});
	EXPECT_EQ(r.err, ESRCH);
	EXPECT_EQ(r.status, (std::vector<int>{0, ESRCH}));
	EXPECT_TRUE(running(t.pid));
}

TEST(DrainBackend, NeverStopsACriticalTenantsGroup)
{
	// Both in one group, as the harness starts its workers: the best-effort
	// process is stopped alone, the critical one keeps running.
	Tenant critical;
	pid_t be = fork();
	if (be == 0) {
		setpgid(0, critical.pid);
		for (;;)
			usleep(2000);
	}
	setpgid(be, critical.pid);
	ASSERT_TRUE(eventually([&] { return read_stat(be) && read_stat(be)->pgid == critical.pid; }));
	DrainBackend b(DrainBackend::Options{});
	ASSERT_TRUE(b.probe().ok());
	b.set_protected({critical.pid});
	CallResult r = b.suspend({be}, GpuSel{});
	ASSERT_TRUE(r.ok()) << r.message;
	EXPECT_NE(r.note.find("a critical tenant's process group"), std::string::npos) << r.note;
	EXPECT_TRUE(stopped(be));
	std::this_thread::sleep_for(std::chrono::milliseconds(20));
	EXPECT_TRUE(running(critical.pid));
	ASSERT_TRUE(b.resume({be}, GpuSel{}).ok());
	EXPECT_TRUE(eventually([&] { return running(be); }));
	kill(be, SIGKILL);
	waitpid(be, nullptr, 0);
}

TEST(DrainBackend, TwoTenantsOfOneGroupStayConsistent)
{
	// Both processes of one group are tenants. One exits while suspended:
	// the group stays stopped for the other, whose resume continues it.
	Tenant a;
	pid_t b = fork();
	if (b == 0) {
		setpgid(0, a.pid);
		for (;;)
			usleep(2000);
	}
	setpgid(b, a.pid);
	ASSERT_TRUE(eventually([&] { return read_stat(b) && read_stat(b)->pgid == a.pid; }));
	DrainBackend d(DrainBackend::Options{});
	ASSERT_TRUE(d.probe().ok());
	ASSERT_TRUE(d.suspend({a.pid, b}, GpuSel{}).ok());
	ASSERT_TRUE(stopped(a.pid) && stopped(b));
	kill(a.pid, SIGKILL);
	waitpid(a.pid, nullptr, 0);
	d.forget(a.pid);
	a.pid = -1;
	std::this_thread::sleep_for(std::chrono::milliseconds(20));
	EXPECT_TRUE(stopped(b)) << "the other tenant runs while counted as suspended";
	// A resume of one tenant while another of its group stays suspended
	// continues that process alone.
	Tenant c;
	pid_t e = fork();
	if (e == 0) {
		setpgid(0, c.pid);
		for (;;)
			usleep(2000);
	}
	setpgid(e, c.pid);
	ASSERT_TRUE(eventually([&] { return read_stat(e) && read_stat(e)->pgid == c.pid; }));
	ASSERT_TRUE(d.suspend({c.pid, e}, GpuSel{}).ok());
	ASSERT_TRUE(d.resume({e}, GpuSel{}).ok());
	EXPECT_TRUE(eventually([&] { return running(e); }));
	EXPECT_TRUE(stopped(c.pid));
	ASSERT_TRUE(d.resume({b, c.pid}, GpuSel{}).ok());
	EXPECT_TRUE(eventually([&] { return running(b) && running(c.pid); }));
	kill(b, SIGKILL);
	waitpid(b, nullptr, 0);
	kill(e, SIGKILL);
	waitpid(e, nullptr, 0);
}

TEST(DrainBackend, TheWatchdogResumesWhenItsPipeCloses)
{
	// The helper, given the recorded stop, continues the tenant on EOF.
	Tenant t;
	int p[2];
	ASSERT_EQ(pipe(p), 0);
	int logp[2];
	ASSERT_EQ(pipe(logp), 0);
	kill(t.pid, SIGSTOP);
	ASSERT_TRUE(eventually([&] { return stopped(t.pid); }));
	std::string rec = "S " + std::to_string(t.pid) + " 0 " + std::to_string(read_stat(t.pid)->starttime) + "\n";
	rec += "S 1073741800 0 5\nR 999999\n"; // a gone pid, a resume of nothing
	ASSERT_EQ(write(p[1], rec.data(), rec.size()), ssize_t(rec.size()));
	close(p[1]);
	EXPECT_EQ(watchdog_loop(p[0], logp[1]), 1);
	close(p[0]);
	close(logp[1]);
	char buf[512] = {};
	ASSERT_GT(read(logp[0], buf, sizeof(buf) - 1), 0);
	close(logp[0]);
	EXPECT_NE(std::string(buf).find("\"event\":\"watchdog_resume\""), std::string::npos) << buf;
	EXPECT_NE(std::string(buf).find("\"gone\":[1073741800]"), std::string::npos) << buf;
	EXPECT_TRUE(eventually([&] { return running(t.pid); }));
}

TEST(DrainDaemon, SigkillMidSuspensionLeavesNobodyStopped)
{
	Tenant a(true), b;
	Daemon d({"--best-effort", csv({a.pid, b.pid}), "--critical", std::to_string(getpid()), "--max-suspend-ms",
		  "60000"},
		 "sigkill");
	ASSERT_TRUE(d.logged("\"event\":\"start\"")) << slurp(d.err);
	pid_t wd = d.watchdog_pid();
	ASSERT_GT(wd, 0);
	CriticalNotifier n(d.sock);
	ASSERT_EQ(n.busy(), 0);
	ASSERT_TRUE(d.logged("\"event\":\"suspend\"")) << slurp(d.log);
	EXPECT_NE(slurp(d.log).find("\"result\":\"ok\""), std::string::npos) << slurp(d.log);
	ASSERT_TRUE(eventually([&] { return stopped(a.pid) && stopped(a.child) && stopped(b.pid); }));
	kill(d.pid, SIGKILL);
	EXPECT_EQ(d.wait_exit(), 128 + SIGKILL);
	EXPECT_TRUE(eventually([&] { return running(a.pid) && running(a.child) && running(b.pid); }))
		<< "stranded: " << state(a.pid) << state(a.child) << state(b.pid);
	EXPECT_TRUE(d.logged("\"event\":\"watchdog_resume\""));
	EXPECT_TRUE(d.logged("\"why\":\"the daemon is gone (its pipe reached EOF)\""));
	EXPECT_TRUE(eventually([&] { char s = state(wd); return s == '-' || s == 'Z'; })) << "the watchdog stays";
}

TEST(DrainDaemon, SigtermResumesAndTheWatchdogHasNothingLeft)
{
	Tenant a;
	Daemon d({"--best-effort", csv({a.pid}), "--critical", std::to_string(getpid()), "--max-suspend-ms", "60000"},
		 "sigterm");
	ASSERT_TRUE(d.logged("\"event\":\"start\"")) << slurp(d.err);
	CriticalNotifier n(d.sock);
	ASSERT_EQ(n.busy(), 0);
	ASSERT_TRUE(eventually([&] { return stopped(a.pid); }));
	kill(d.pid, SIGTERM);
	EXPECT_EQ(d.wait_exit(), 0) << slurp(d.err);
	EXPECT_TRUE(running(a.pid));
	EXPECT_NE(slurp(d.log).find("\"left_suspended\":0"), std::string::npos) << slurp(d.log);
	std::this_thread::sleep_for(std::chrono::milliseconds(50));
	EXPECT_EQ(slurp(d.log).find("watchdog_resume"), std::string::npos) << slurp(d.log);
}

TEST(DrainDaemon, ATenantExitingWhileSuspendedLeavesItsGroupRunning)
{
	// The leader dies stopped (SIGKILL works on a stopped process); the other
	// process of its group must not stay stopped. Both are this test's
	// children, so the group does not become orphaned when the leader goes
	// (the kernel would then send SIGHUP and SIGCONT itself): only the
	// daemon's release of the group can continue the survivor.
	Tenant a;
	pid_t b = fork();
	if (b == 0) {
		setpgid(0, a.pid);
		for (;;)
			usleep(2000);
	}
	setpgid(b, a.pid);
	ASSERT_TRUE(eventually([&] { return read_stat(b) && read_stat(b)->pgid == a.pid; }));
	Daemon d({"--best-effort", csv({a.pid}), "--critical", std::to_string(getpid()), "--max-suspend-ms", "60000"},
		 "exit");
	ASSERT_TRUE(d.logged("\"event\":\"start\"")) << slurp(d.err);
	CriticalNotifier n(d.sock);
	ASSERT_EQ(n.busy(), 0);
	ASSERT_TRUE(eventually([&] { return stopped(a.pid) && stopped(b); }));
	kill(a.pid, SIGKILL);
	waitpid(a.pid, nullptr, 0);
	a.pid = -1;
	EXPECT_TRUE(d.logged("\"event\":\"tenant_gone\""));
	EXPECT_TRUE(eventually([&] { return running(b); })) << "the group's survivor stays stopped " << slurp(d.log);
	kill(d.pid, SIGTERM);
	EXPECT_EQ(d.wait_exit(), 0) << slurp(d.err);
	kill(b, SIGKILL);
	waitpid(b, nullptr, 0);
}

TEST(DrainDaemon, ACriticalTenantDyingWhileBusyResumesTheOthers)
{
	Tenant be;
	int go[2];
	ASSERT_EQ(pipe(go), 0);
	pid_t critical = fork();
	if (critical == 0) {
		char c;
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		std::string sock = "/tmp/kfdmp-sched-drain-" + std::to_string(getppid()) + "-critdies.sock";
		CriticalNotifier n(sock);
		n.busy();
		for (;;)
			pause();
	}
	close(go[0]);
	Daemon d({"--best-effort", csv({be.pid}), "--critical", std::to_string(critical), "--max-suspend-ms", "60000"},
		 "critdies");
	ASSERT_TRUE(d.logged("\"event\":\"start\"")) << slurp(d.err);
	ASSERT_EQ(write(go[1], "x", 1), 1);
	close(go[1]);
	ASSERT_TRUE(eventually([&] { return stopped(be.pid); })) << slurp(d.log);
	kill(critical, SIGKILL);
	waitpid(critical, nullptr, 0);
	EXPECT_TRUE(d.logged("\"event\":\"critical_gone\"")) << slurp(d.log);
	EXPECT_TRUE(eventually([&] { return running(be.pid); })) << slurp(d.log);
	kill(d.pid, SIGTERM);
	EXPECT_EQ(d.wait_exit(), 0);
}

TEST(DrainDaemon, ARestartedDaemonTakesOverAStoppedTenant)
{
	// A tenant found stopped (a daemon died and nothing resumed it) is taken
	// over as suspended, and resumed once critical work is idle.
	Tenant a;
	kill(-a.pid, SIGSTOP);
	ASSERT_TRUE(eventually([&] { return stopped(a.pid); }));
	Daemon d({"--best-effort", csv({a.pid}), "--critical", std::to_string(getpid()), "--resume-hold-ms", "50"},
		 "takeover");
	ASSERT_TRUE(d.logged("\"event\":\"found_suspended\"")) << slurp(d.log) << slurp(d.err);
	EXPECT_TRUE(d.logged("\"reason\":\"found_suspended\""));
	EXPECT_TRUE(eventually([&] { return running(a.pid); })) << slurp(d.log);
	EXPECT_TRUE(d.logged("\"event\":\"resume\""));
	kill(d.pid, SIGTERM);
	EXPECT_EQ(d.wait_exit(), 0);
}

TEST(DrainDaemon, AGoneWatchdogStopsNothingAndEndsTheDaemon)
{
	Tenant a;
	Daemon d({"--best-effort", csv({a.pid}), "--critical", std::to_string(getpid())}, "nowd");
	ASSERT_TRUE(d.logged("\"event\":\"start\"")) << slurp(d.err);
	pid_t wd = d.watchdog_pid();
	ASSERT_GT(wd, 0);
	kill(wd, SIGKILL);
	ASSERT_TRUE(eventually([&] { char s = state(wd); return s == '-' || s == 'Z'; }));
	CriticalNotifier n(d.sock);
	ASSERT_EQ(n.busy(), 0);
	EXPECT_EQ(d.wait_exit(), 1) << slurp(d.log);
	EXPECT_TRUE(running(a.pid));
	EXPECT_NE(slurp(d.log).find("the watchdog is gone"), std::string::npos) << slurp(d.log);
}

TEST(DrainDaemon, GpuSelectionIsAUsageError)
{
	Daemon d({"--best-effort", "12", "--critical", "13", "--gpu", "4"}, "gpu");
	EXPECT_EQ(d.wait_exit(), 2);
	EXPECT_NE(slurp(d.err).find("only --gpu all"), std::string::npos) << slurp(d.err);
}
