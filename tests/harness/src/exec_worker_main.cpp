// kfdmp-exec-worker: a CPU-only worker whose workload is a bridge to a
// command (`--exec CMD`) over the line protocol of docs/exec-workers.md.
// Built in every configuration, -DKFDMP_GPU=none included.
#include "exec_bridge.h"
#include "worker.h"

#include <cstdlib>
#include <cstring>
#include <fcntl.h>

namespace {

std::string probe() { return "exec bridge (no GPU of its own: the command's device)"; }

} // namespace

int main(int argc, char** argv)
{
	// The shared region stays with this process: the command must not
	// inherit its descriptor (it would keep the memfd alive).
	for (int i = 1; i + 1 < argc; ++i)
		if (std::strcmp(argv[i], "--shm-fd") == 0)
			fcntl(std::atoi(argv[i + 1]), F_SETFD, FD_CLOEXEC);
	return kfdmp::worker_main(argc, argv, kfdmp::make_exec_workload, probe);
}
