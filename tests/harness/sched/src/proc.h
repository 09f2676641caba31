// What /proc says about a process: its run state (stopped or not), its
// process group and its start time (which, with the pid, names one process
// for good: a reused pid has another start time). Used by the drain backend,
// its watchdog and tenant selection.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace kfdmp::sched {

struct ProcStat {
	pid_t pid = 0;
	char state = '?'; // R, S, D, T (stopped by a signal), t (traced), Z, X, ...
	pid_t ppid = 0, pgid = 0, sid = 0;
	uint64_t starttime = 0; // clock ticks after boot
};

// /proc/PID/stat, or nullopt when the process does not exist (or is a zombie
// already reaped). tid > 0: /proc/PID/task/TID/stat.
std::optional<ProcStat> read_stat(pid_t pid, pid_t tid = 0);

// The pid's threads, or empty when it is gone.
std::vector<pid_t> threads_of(pid_t pid);

// Whether every thread of pid is stopped by a signal (state T). A gone or
// zombie process counts as stopped (it runs nothing).
bool all_threads_stopped(pid_t pid);

// Every numeric entry of /proc.
std::vector<pid_t> all_pids();

} // namespace kfdmp::sched
