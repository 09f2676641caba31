// Tenant selection: by pid, process group, cgroup or container, parsed,
// resolved, and followed by the daemon as processes come and go.
#include "proc.h"
#include "selector.h"
#include "signal_socket.h"

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <gtest/gtest.h>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace kfdmp::sched;

namespace {

const std::string id64 = "3f2a9c1b7d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f5061728394a5b6c7d8e";

std::string slurp(const std::string& path)
{
	std::ifstream in(path);
	std::stringstream ss;
	ss << in.rdbuf();
	return ss.str();
}

void write_file(const std::string& path, const std::string& text)
{
	std::ofstream(path) << text;
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

char state(pid_t pid)
{
	auto st = read_stat(pid);
	return st ? st->state : '-';
}

std::string temp_dir()
{
	char d[] = "/tmp/kfdmp-sched-sel-XXXXXX";
	return mkdtemp(d) ? d : "";
}

pid_t sleeper()
{
	pid_t p = fork();
	if (p == 0) {
		setpgid(0, 0);
		for (;;)
			usleep(2000);
	}
	setpgid(p, p);
	return p;
}

void reap(pid_t p)
{
	kill(-p, SIGKILL);
	kill(p, SIGKILL);
	waitpid(p, nullptr, 0);
}

pid_t start_daemon(const std::vector<std::string>& extra, const std::string& log, const std::string& sock)
{
	std::vector<std::string> args = {KFDMP_SCHED_BIN, "--backend", "drain", "--socket", sock, "--log", log,
					 "--max-suspend-ms", "60000", "--rescan-ms", "30"};
	args.insert(args.end(), extra.begin(), extra.end());
	pid_t pid = fork();
	if (pid == 0) {
		std::vector<char*> argv;
		for (auto& a : args)
			argv.push_back(const_cast<char*>(a.c_str()));
		argv.push_back(nullptr);
		if (!freopen((log + ".err").c_str(), "w", stderr))
			_exit(126);
		execv(argv[0], argv.data());
		_exit(127);
	}
	return pid;
}

} // namespace

TEST(Selector, ParsesEveryKindAndNamesWhatIsWrong)
{
	Selector s = parse_selector("42");
	EXPECT_EQ(s.kind, Selector::Kind::Pid);
	EXPECT_EQ(s.id, 42);
	EXPECT_EQ(parse_selector("pid:43").id, 43);
	s = parse_selector("pgid:7");
	EXPECT_EQ(s.kind, Selector::Kind::Pgid);
	EXPECT_EQ(s.id, 7);
	s = parse_selector("container:" + id64.substr(0, 12));
	EXPECT_EQ(s.kind, Selector::Kind::Container);
	EXPECT_EQ(s.path, id64.substr(0, 12));
	EXPECT_EQ(parse_selectors("1,pgid:2").size(), 2u);
	auto msg = [](const std::string& v) {
		try {
			parse_selector(v);
		} catch (const std::invalid_argument& e) {
			return std::string(e.what());
		}
		return std::string("accepted");
	};
	EXPECT_NE(msg("x").find("'x' is not a pid"), std::string::npos);
	EXPECT_NE(msg("pgid:-3").find("is not a pid"), std::string::npos);
	EXPECT_NE(msg("cgroup:/nonexistent/cg").find("no cgroup directory"), std::string::npos);
	EXPECT_NE(msg("vm:3").find("unknown selector 'vm:'"), std::string::npos);
	EXPECT_NE(msg("container:abc").find("neither a container id"), std::string::npos);
	EXPECT_NE(msg("container:a;b").find("neither a container id"), std::string::npos);
}

TEST(Selector, MatchesContainerCgroupPathsOfEveryRuntime)
{
	const std::string short_id = id64.substr(0, 12);
	for (const std::string& line : {"0::/system.slice/docker-" + id64 + ".scope",
					"12:memory:/docker/" + id64,
					"0::/machine.slice/libpod-" + id64 + ".scope/container",
					"0::/kubepods.slice/kubepods-besteffort.slice/cri-containerd-" + id64 + ".scope",
					"0::/kubepods/besteffort/pod1/crio-" + id64 + ".scope"}) {
		EXPECT_TRUE(cgroup_names_container("1:name=systemd:/\n" + line + "\n", id64)) << line;
		EXPECT_TRUE(cgroup_names_container(line, short_id)) << line;
	}
	EXPECT_FALSE(cgroup_names_container("0::/system.slice/docker-" + id64 + ".scope", "ffffffffffff"));
	EXPECT_FALSE(cgroup_names_container("0::/user.slice/session-3.scope", short_id));
	EXPECT_FALSE(cgroup_names_container("0::/docker/" + id64, "3f2a9c")); // too short to name one
}

TEST(Selector, ReadsACgroupTreeAndFindsItsDirectory)
{
	std::string d = temp_dir();
	ASSERT_FALSE(d.empty());
	mkdir((d + "/sub").c_str(), 0755);
	write_file(d + "/cgroup.procs", "11\n12\n");
	write_file(d + "/sub/cgroup.procs", "13\n");
	EXPECT_EQ(pids_in_cgroup(d), (std::set<pid_t>{11, 12, 13}));
	EXPECT_EQ(cgroup_dir(d), d);
	Selector s = parse_selector("cgroup:" + d);
	EXPECT_EQ(resolve(s), (std::set<pid_t>{11, 12, 13}));
	std::system(("rm -rf '" + d + "'").c_str());
}

TEST(Selector, ContainerNamesGoThroughDockerInspect)
{
	// A docker stand-in on PATH: `docker inspect --format '{{.Id}}' web`.
	std::string d = temp_dir();
	write_file(d + "/docker", "#!/bin/sh\n[ \"$1\" = inspect ] && [ \"$4\" = web ] && echo " + id64 +
					  " && exit 0\nexit 1\n");
	chmod((d + "/docker").c_str(), 0755);
	std::string old_path = std::getenv("PATH") ? std::getenv("PATH") : "";
	setenv("PATH", (d + ":/usr/bin:/bin").c_str(), 1);
	EXPECT_EQ(container_id("web"), id64);
	EXPECT_THROW(container_id("db"), std::invalid_argument);
	EXPECT_EQ(container_id(id64.substr(0, 16)), id64.substr(0, 16)); // an id needs no CLI
	setenv("PATH", old_path.c_str(), 1);
	std::system(("rm -rf '" + d + "'").c_str());
}

TEST(SelectorDaemon, FollowsATenantThatRestartsIntoANewPid)
{
	// A supervisor in its own process group respawns its worker; the daemon
	// selects the group and picks the new worker up at its next rescan.
	int p[2];
	ASSERT_EQ(pipe(p), 0);
	pid_t sup = fork();
	if (sup == 0) {
		setpgid(0, 0);
		close(p[0]);
		for (;;) {
			pid_t w = fork();
			if (w == 0)
				for (;;)
					usleep(2000);
			if (write(p[1], &w, sizeof(w)) != sizeof(w))
				_exit(1);
			waitpid(w, nullptr, 0);
		}
	}
	close(p[1]);
	pid_t w1 = -1, w2 = -1;
	ASSERT_EQ(read(p[0], &w1, sizeof(w1)), ssize_t(sizeof(w1)));
	std::string base = "/tmp/kfdmp-sched-sel-" + std::to_string(getpid());
	std::string log = base + ".log", sock = base + ".sock";
	unlink(log.c_str());
	pid_t d = start_daemon({"--best-effort", "pgid:" + std::to_string(sup), "--critical", std::to_string(getpid())},
			       log, sock);
	ASSERT_TRUE(eventually([&] { return slurp(log).find("\"event\":\"start\"") != std::string::npos; }))
		<< slurp(log + ".err");
	EXPECT_NE(slurp(log).find("\"best_effort_selected_by\":\"pgid:" + std::to_string(sup) + "\""), std::string::npos);
	kill(w1, SIGKILL);
	ASSERT_EQ(read(p[0], &w2, sizeof(w2)), ssize_t(sizeof(w2)));
	ASSERT_NE(w1, w2);
	EXPECT_TRUE(eventually([&] {
		std::string l = slurp(log);
		size_t at = l.find("\"best_effort_added\":[" + std::to_string(w2));
		return at != std::string::npos;
	})) << slurp(log);
	CriticalNotifier n(sock);
	ASSERT_EQ(n.busy(), 0);
	EXPECT_TRUE(eventually([&] { return state(w2) == 'T' && state(sup) == 'T'; })) << slurp(log);
	kill(d, SIGKILL);
	waitpid(d, nullptr, 0);
	EXPECT_TRUE(eventually([&] { return state(w2) != 'T' && state(sup) != 'T'; })) << "stranded";
	kill(w2, SIGKILL);
	reap(sup);
	close(p[0]);
	unlink(log.c_str());
	unlink((log + ".err").c_str());
}

TEST(SelectorDaemon, ACgroupsProcessesAreTenantsAsTheyComeAndGo)
{
	// A cgroup directory stand-in (cgroup.procs is what is read): a process
	// joins it while critical work is pending and is suspended; one that
	// leaves it while suspended runs again.
	std::string cg = temp_dir();
	pid_t a = sleeper(), b = sleeper();
	write_file(cg + "/cgroup.procs", std::to_string(a) + "\n");
	std::string base = "/tmp/kfdmp-sched-cg-" + std::to_string(getpid());
	std::string log = base + ".log", sock = base + ".sock";
	unlink(log.c_str());
	pid_t d = start_daemon({"--best-effort", "cgroup:" + cg, "--critical", std::to_string(getpid())}, log, sock);
	ASSERT_TRUE(eventually([&] { return slurp(log).find("\"event\":\"start\"") != std::string::npos; }))
		<< slurp(log + ".err");
	CriticalNotifier n(sock);
	ASSERT_EQ(n.busy(), 0);
	ASSERT_TRUE(eventually([&] { return state(a) == 'T'; })) << slurp(log);
	write_file(cg + "/cgroup.procs", std::to_string(b) + "\n"); // a leaves, b joins
	EXPECT_TRUE(eventually([&] { return state(b) == 'T'; })) << slurp(log);
	EXPECT_TRUE(eventually([&] { return state(a) != 'T'; })) << slurp(log);
	EXPECT_NE(slurp(log).find("\"reason\":\"deselected\""), std::string::npos) << slurp(log);
	kill(d, SIGTERM);
	int st = 0;
	waitpid(d, &st, 0);
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << slurp(log + ".err");
	EXPECT_NE(state(b), 'T');
	reap(a);
	reap(b);
	std::system(("rm -rf '" + cg + "'").c_str());
	unlink(log.c_str());
	unlink((log + ".err").c_str());
}
