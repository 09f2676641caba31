#include "daemon.h"

#include <cerrno>
#include <csignal>
#include <algorithm>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

namespace kfdmp::sched {

namespace {

int stop_pipe[2] = {-1, -1};

extern "C" void on_stop_signal(int sig)
{
	int saved = errno;
	unsigned char b = static_cast<unsigned char>(sig);
	if (write(stop_pipe[1], &b, 1) < 0) {
		// The pipe is full: a stop is already pending.
	}
	errno = saved;
}

} // namespace

bool process_alive(pid_t pid) { return kill(pid, 0) == 0 || errno == EPERM; }

Daemon::Daemon(Scheduler& s, SignalSocket& sock, const Clock& clock, DecisionLog& log, std::set<pid_t> critical,
	       std::function<bool(pid_t)> alive)
    : s_(s), sock_(sock), clock_(clock), log_(log), critical_(std::move(critical)), alive_(std::move(alive))
{
}

void Daemon::drain()
{
	while (auto r = sock_.receive()) {
		TimePoint at = clock_.now();
		// The sender's stamp, when it is plausible (not in the future, not
		// older than a second), is when the work became pending.
		if (r->sent_ns >= 0) {
			TimePoint sent{Duration(r->sent_ns)};
			if (sent <= at && at - sent < std::chrono::seconds(1))
				at = sent;
		}
		if (!r->valid || !critical_.count(r->pid)) {
			log_.write(JsonLine()
					   .integer("t_ns", to_ns(at))
					   .str("event", "ignored_report")
					   .pids("pids", {r->pid})
					   .str("text", r->text)
					   .str("why", !r->valid ? "not busy or idle [ns]" : "sender is not a critical tenant")
					   .done());
			continue;
		}
		bool before = s_.critical_pending();
		s_.critical_report(r->pid, r->busy, at);
		if (before != s_.critical_pending())
			log_.write(JsonLine()
					   .integer("t_ns", to_ns(at))
					   .str("event", "critical")
					   .str("state", r->busy ? "pending" : "idle")
					   .pids("pids", {r->pid})
					   .done());
	}
}

int Daemon::run()
{
	if (stop_pipe[0] < 0 && pipe2(stop_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
		log_.write(JsonLine().str("event", "error").str("error", std::strerror(errno)).done());
		return 1;
	}
	struct sigaction sa;
	std::memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	sa.sa_flags = SA_RESTART; // an ioctl in flight completes; ppoll() still wakes
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, nullptr);
	sigaction(SIGTERM, &sa, nullptr);
	signal(SIGPIPE, SIG_IGN);

	std::string reason = "fatal";
	TimePoint next_reap = clock_.now() + reap_interval;
	TimePoint next_rescan = rescan ? clock_.now() + rescan_interval : TimePoint::max();
	while (!s_.fatal()) {
		TimePoint now = clock_.now();
		TimePoint wake = std::min({s_.next_deadline(), next_reap, next_rescan});
		Duration wait = wake > now ? wake - now : Duration(0);
		timespec ts;
		ts.tv_sec = time_t(wait.count() / 1000000000);
		ts.tv_nsec = long(wait.count() % 1000000000);
		pollfd fds[2] = {{sock_.fd(), POLLIN, 0}, {stop_pipe[0], POLLIN, 0}};
		int n = ppoll(fds, 2, &ts, nullptr);
		if (n < 0 && errno != EINTR) {
			reason = std::string("ppoll: ") + std::strerror(errno);
			break;
		}
		if (n > 0 && (fds[1].revents & POLLIN)) {
			unsigned char sig = 0;
			if (read(stop_pipe[0], &sig, 1) == 1)
				reason = sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "signal";
			break;
		}
		if (n > 0 && (fds[0].revents & POLLIN))
			drain();
		if (clock_.now() >= next_reap) {
			s_.reap(alive_);
			next_reap = clock_.now() + reap_interval;
		}
		if (rescan && clock_.now() >= next_rescan) {
			rescan();
			next_rescan = clock_.now() + rescan_interval;
		}
		s_.tick();
	}
	bool fatal = s_.fatal();
	if (fatal)
		log_.write(JsonLine()
				   .integer("t_ns", to_ns(clock_.now()))
				   .str("event", "error")
				   .str("error", s_.fatal_message())
				   .done());
	bool resumed = s_.shutdown(reason.c_str());
	return fatal || !resumed ? 1 : 0;
}

} // namespace kfdmp::sched
