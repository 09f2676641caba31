#include "watchdog.h"

#include "clock.h"
#include "decision_log.h"
#include "proc.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <map>
#include <poll.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace kfdmp::sched {

namespace {

int term_pipe[2] = {-1, -1};

extern "C" void on_watchdog_term(int)
{
	int saved = errno;
	char b = 1;
	if (write(term_pipe[1], &b, 1) < 0) {
	}
	errno = saved;
}

// Closes every descriptor but the ones kept (the helper must not hold the
// pipe's write end, the daemon's socket or /dev/kfd).
void close_all_but(int a, int b)
{
	std::vector<int> fds;
	if (DIR* d = opendir("/proc/self/fd")) {
		while (dirent* e = readdir(d)) {
			char* end = nullptr;
			long v = std::strtol(e->d_name, &end, 10);
			if (e->d_name[0] && !*end)
				fds.push_back(int(v));
		}
		closedir(d);
	} else {
		for (int fd = 3; fd < 1024; fd++)
			fds.push_back(fd);
	}
	for (int fd : fds)
		if (fd > 2 && fd != a && fd != b)
			close(fd);
}

} // namespace

Watchdog::~Watchdog()
{
	if (wfd_ >= 0)
		close(wfd_); // EOF: the helper resumes what is still recorded, and exits
	if (pid_ > 0)
		waitpid(pid_, nullptr, WNOHANG);
}

std::string Watchdog::start(int log_fd)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) != 0)
		return std::string("watchdog pipe: ") + std::strerror(errno);
	signal(SIGPIPE, SIG_IGN); // a gone helper is EPIPE from write(), not a death
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(p[0]);
		close(p[1]);
		return std::string("watchdog fork: ") + std::strerror(e);
	}
	if (pid == 0) {
		setsid();
		close(p[1]);
		int lfd = log_fd >= 0 ? log_fd : 2;
		close_all_but(p[0], lfd);
		_exit(watchdog_loop(p[0], lfd) >= 0 ? 0 : 1);
	}
	close(p[0]);
	pid_ = pid;
	wfd_ = p[1];
	return "";
}

int Watchdog::write_all(const std::string& s)
{
	if (wfd_ < 0)
		return EPIPE;
	size_t off = 0;
	while (off < s.size()) {
		ssize_t n = write(wfd_, s.data() + off, s.size() - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? errno : EIO;
		off += size_t(n);
	}
	return 0;
}

int Watchdog::record_stop(const std::vector<StopRecord>& rs)
{
	std::string s;
	for (const auto& r : rs)
		s += "S " + std::to_string(r.pid) + " " + std::to_string(r.pgid) + " " + std::to_string(r.starttime) + "\n";
	return write_all(s);
}

int Watchdog::record_resume(const std::vector<pid_t>& pids)
{
	std::string s;
	for (pid_t p : pids)
		s += "R " + std::to_string(p) + "\n";
	return write_all(s);
}

int watchdog_loop(int rfd, int log_fd)
{
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGTSTP, SIG_IGN);
	if (pipe2(term_pipe, O_CLOEXEC | O_NONBLOCK) == 0) {
		struct sigaction sa;
		std::memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_watchdog_term;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGTERM, &sa, nullptr);
	}
	std::map<pid_t, StopRecord> recorded;
	std::string buf, why = "the daemon is gone (its pipe reached EOF)";
	for (;;) {
		pollfd fds[2] = {{rfd, POLLIN, 0}, {term_pipe[0], POLLIN, 0}};
		int n = poll(fds, term_pipe[0] >= 0 ? 2 : 1, -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			why = std::string("poll: ") + std::strerror(errno);
			break;
		}
		if (term_pipe[0] >= 0 && (fds[1].revents & POLLIN)) {
			why = "SIGTERM to the watchdog";
			break;
		}
		char chunk[4096];
		ssize_t got = read(rfd, chunk, sizeof(chunk));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		buf.append(chunk, size_t(got));
		size_t nl;
		while ((nl = buf.find('\n')) != std::string::npos) {
			std::istringstream line(buf.substr(0, nl));
			buf.erase(0, nl + 1);
			char op = 0;
			StopRecord r;
			line >> op >> r.pid;
			if (op == 'S' && line >> r.pgid >> r.starttime)
				recorded[r.pid] = r;
			else if (op == 'R')
				recorded.erase(r.pid);
		}
	}
	if (recorded.empty())
		return 0;
	std::vector<pid_t> continued, gone;
	for (const auto& [pid, r] : recorded) {
		auto st = read_stat(pid);
		bool same = st && st->starttime == r.starttime;
		if (same)
			kill(pid, SIGCONT);
		// The group too: members stopped with it outlive its leader's exit.
		bool group = r.pgid > 0 && kill(-r.pgid, SIGCONT) == 0;
		(same || group ? continued : gone).push_back(pid);
	}
	JsonLine l;
	l.integer("t_ns", to_ns(SteadyClock().now()))
		.str("event", "watchdog_resume")
		.str("why", why)
		.pids("pids", continued);
	if (!gone.empty())
		l.pids("gone", gone);
	std::string text = l.done() + "\n";
	if (write(log_fd, text.data(), text.size()) < 0) {
	}
	return int(continued.size());
}

} // namespace kfdmp::sched
