// The worker side of the harness: attaches to the launcher's shared region,
// creates the workload, waits at the start barrier, runs the warm-up and the
// measurement window and records counts and latencies. Each worker binary
// (GPU, HSA, test) is a one-line main() around worker_main().
#pragma once
#include "workload.h"

#include <string>

namespace kfdmp {

// Exit status of a worker; the launcher turns it into a per-worker status.
enum WorkerExit : int {
	worker_ok = 0,
	worker_error = 1,       // GPU or system error, see the slot's error text
	worker_unavailable = 2, // what the workload needs is absent (skip)
	worker_wrong = 3,       // results failed the CPU check
	worker_no_start = 4,    // start barrier broken or timed out
	worker_usage = 64,
};

// Describes the device a run would use; throws Unavailable when there is none.
using ProbeFn = std::string (*)();

// argv: --shm-fd FD --index I   (run as a worker; normally only the launcher
//                                 does this)
//       --probe                  (print the device, exit 0; or the reason
//                                 there is none, exit worker_unavailable)
int worker_main(int argc, char** argv, WorkloadFactory make, ProbeFn probe);

// For a workload running inside worker_main(): this worker's index and the
// number of workers of the run (0, 0 outside a run).
uint32_t worker_index();
uint32_t worker_count();
// Publishes the process group of a command the workload started (exec
// workers), so the launcher kills it with the worker; 0 when it is gone.
void worker_set_child_pgid(int pgid);
// What the workload is waiting for, for the launcher's "hung" message.
void worker_set_activity(const std::string& what);

} // namespace kfdmp
