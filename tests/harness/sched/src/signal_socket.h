// How the scheduler learns that latency-critical work is pending: the
// critical tenant sends one datagram on a unix socket when its first
// outstanding request is submitted ("busy") and one when its last completes
// ("idle"). The kernel attaches the sender's pid (SCM_CREDENTIALS), so only
// tenants named as critical are believed, and a sender that dies while busy
// is noticed by pid. A datagram costs a few microseconds, against
// milliseconds for a preemption, and wakes the daemon from poll(): no spinning.
#pragma once
#include "clock.h"

#include <optional>
#include <string>
#include <sys/types.h>

namespace kfdmp::sched {

struct Report {
	pid_t pid = 0;
	bool busy = false;
	bool valid = false; // false: a datagram that is neither "busy" nor "idle"
	std::string text;
};

class SignalSocket {
public:
	// Binds path (replacing a stale socket file) with the given mode.
	// Throws std::runtime_error with the reason on failure.
	SignalSocket(std::string path, unsigned mode = 0600);
	~SignalSocket();
	SignalSocket(const SignalSocket&) = delete;
	SignalSocket& operator=(const SignalSocket&) = delete;
	int fd() const { return fd_; }
	const std::string& path() const { return path_; }
	// One datagram if there is one (non-blocking).
	std::optional<Report> receive();

private:
	std::string path_;
	int fd_ = -1;
};

// The critical tenant's side (the harness's tenant mode links this).
class CriticalNotifier {
public:
	explicit CriticalNotifier(std::string path);
	~CriticalNotifier();
	CriticalNotifier(const CriticalNotifier&) = delete;
	CriticalNotifier& operator=(const CriticalNotifier&) = delete;
	// 0 or an errno (ENOENT/ECONNREFUSED: no daemon listening).
	int busy() { return send("busy"); }
	int idle() { return send("idle"); }
	int send(const std::string& text);

private:
	std::string path_;
	int fd_ = -1;
};

} // namespace kfdmp::sched
