// The daemon's loop: wait in ppoll() for a critical tenant's report, the next
// scheduling deadline or a stop signal; on SIGINT/SIGTERM (or a fatal backend
// error) resume everything it suspended, then return.
#pragma once
#include "scheduler.h"
#include "signal_socket.h"

#include <set>

namespace kfdmp::sched {

class Daemon {
public:
	Daemon(Scheduler& s, SignalSocket& sock, const Clock& clock, DecisionLog& log, std::set<pid_t> critical,
	       std::function<bool(pid_t)> alive);
	// Installs the SIGINT/SIGTERM handlers (self-pipe) and runs until one
	// arrives. Returns 0 after a clean shutdown, 1 after a fatal backend error
	// or a resume that failed at shutdown.
	int run();
	// How often tenants' liveness is checked.
	Duration reap_interval = std::chrono::milliseconds(100);
	// Called every rescan_interval (and never when empty): tenant selection
	// follows processes that come and go (selector.h).
	std::function<void()> rescan;
	Duration rescan_interval = std::chrono::milliseconds(500);
	// The critical tenants whose reports are believed (the rescan updates it).
	std::set<pid_t>& critical() { return critical_; }

private:
	void drain();
	Scheduler& s_;
	SignalSocket& sock_;
	const Clock& clock_;
	DecisionLog& log_;
	std::set<pid_t> critical_;
	std::function<bool(pid_t)> alive_;
};

// kill(pid, 0) says the process exists (EPERM counts as existing).
bool process_alive(pid_t pid);

} // namespace kfdmp::sched
