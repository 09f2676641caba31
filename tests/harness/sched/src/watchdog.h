// The drain backend's watchdog: nothing stays stopped when the daemon dies.
//
// Design. At start the daemon forks a helper that calls setsid() (its own
// session and process group: a Ctrl-C, a SIGHUP or a kill of the daemon's
// group does not reach it) and keeps only the read end of a pipe whose write
// end only the daemon holds (O_CLOEXEC, never inherited by anything else).
// Before every SIGSTOP the daemon writes the target to the pipe
// ("S pid pgid starttime"); after every SIGCONT it writes "R pid". When the
// daemon dies for any reason, SIGKILL and the OOM killer included, the kernel
// closes its descriptors, the helper reads EOF and sends SIGCONT to every
// target still recorded (the process if its start time still matches, so a
// reused pid is left alone, and its process group when the stop was a
// group's), writes one "watchdog_resume" line to the daemon's log, and
// exits. A SIGTERM to the helper does the same. Why this and not the
// alternatives:
//  - PR_SET_PDEATHSIG on a child fires when the parent *thread* exits and
//    needs the child to outlive the parent's process group kills; the pipe
//    EOF is exact for the whole process, whatever killed it.
//  - A state file read by the next daemon leaves tenants stopped until a
//    daemon runs again (perhaps never); the helper resumes at once.
//  - The record is written before the stop, so a death between the two
//    leaves nothing stopped unrecorded (a SIGCONT to a running process is
//    harmless). A write that fails (EPIPE: the helper is gone) stops nothing:
//    the daemon then treats it as fatal and resumes everything itself.
#pragma once
#include <cstdint>
#include <string>
#include <sys/types.h>
#include <vector>

namespace kfdmp::sched {

struct StopRecord {
	pid_t pid = 0;
	pid_t pgid = 0; // > 0: the whole process group was stopped
	uint64_t starttime = 0;
};

class Watchdog {
public:
	Watchdog() = default;
	~Watchdog();
	Watchdog(const Watchdog&) = delete;
	Watchdog& operator=(const Watchdog&) = delete;
	// Forks the helper. log_fd: where it writes its one line (-1: stderr).
	// "" or why it could not start.
	std::string start(int log_fd);
	bool running() const { return wfd_ >= 0; }
	pid_t pid() const { return pid_; }
	// 0 or an errno (EPIPE: the helper is gone; nothing may be stopped).
	int record_stop(const std::vector<StopRecord>& r);
	int record_resume(const std::vector<pid_t>& pids);

private:
	int write_all(const std::string& s);
	pid_t pid_ = -1;
	int wfd_ = -1;
};

// The helper's side: reads records from rfd until EOF or SIGTERM, then
// resumes what is recorded. Returns the number of targets it continued.
// (Exposed for the unit tests; the daemon runs it in the forked helper.)
int watchdog_loop(int rfd, int log_fd);

} // namespace kfdmp::sched
