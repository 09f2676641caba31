// kfdmp-worker: runs one GPU workload for the launcher.
#include "gpu_workloads.h"
#include "worker.h"

int main(int argc, char** argv) { return kfdmp::worker_main(argc, argv, kfdmp::make_gpu_workload, kfdmp::probe_gpu); }
