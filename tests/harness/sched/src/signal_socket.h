// How the scheduler learns that latency-critical work is pending: the
// critical tenant sends one datagram on a unix socket when its first
// outstanding request is submitted ("busy") and one when its last completes
// ("idle"). The kernel attaches the sender's pid (SCM_CREDENTIALS), so only
// tenants named as critical are believed, and a sender that dies while busy
// is noticed by pid. A datagram costs a few microseconds, against
// milliseconds for a preemption, and wakes the daemon from poll(): no spinning.
#pragma once
#include "clock.h"

#include <cstdint>
#include <optional>
#include <string>
#include <sys/types.h>

namespace kfdmp::sched {

// A datagram is "busy" or "idle", optionally followed by the sender's
// CLOCK_MONOTONIC time in ns ("busy 123456789"), so a decision's latency
// starts when the tenant sent it, not when the daemon read it.
struct Report {
	pid_t pid = 0;
	bool busy = false;
	bool valid = false; // false: not "busy"/"idle" [ns]
	int64_t sent_ns = -1; // -1: no time given
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
	// 0 or an errno (ENOENT/ECONNREFUSED: no daemon listening). Both send
	// the current CLOCK_MONOTONIC time with the word.
	int busy() { return send_stamped("busy"); }
	int idle() { return send_stamped("idle"); }
	int send(const std::string& text);

private:
	int send_stamped(const char* word);
	std::string path_;
	int fd_ = -1;
};

} // namespace kfdmp::sched
