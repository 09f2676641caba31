// The workload of kfdmp-exec-worker: a bridge to `/bin/sh -c CMD` over the
// line protocol of docs/exec-workers.md (version 1). The start barrier,
// warm-up, window and open/closed loop stay in worker.cpp; this class only
// turns each query() into a `query SEQ` line out and a `done SEQ` line back.
#pragma once
#include "workload.h"

#include <string>
#include <vector>

namespace kfdmp {

constexpr int exec_protocol_version = 1;

// One line the command wrote, parsed. kind: ready | unsupported | error |
// done | fail | bad (not a protocol line; `why` says what is wrong).
struct ExecLine {
	std::string kind;
	uint64_t seq = 0;
	bool has_gpu_ns = false;
	uint64_t gpu_ns = 0;
	bool gpu_time = false;      // ready: gpu_time=1
	bool pipeline = false;      // ready: pipeline=1 (a query may be sent ahead)
	std::string device;         // ready: device=TEXT
	std::string key, text, why; // unsupported: KEY reason; error/fail: reason
};
ExecLine parse_exec_line(const std::string& line);

// Whether the bridge offers `pipeline=1` in `hello`: closed loop only
// (params.rate == 0), and not with KFDMP_EXEC_PIPELINE=0 in the environment.
bool exec_pipeline_offered(const WorkloadParams& p);

// The lines the bridge sends before `config end` for a process of the run:
// hello (with ` pipeline=1` when `pipeline`), then params.exec_config's
// env/option lines.
std::vector<std::string> exec_config_lines(const WorkloadParams& p, uint32_t index, uint32_t workers,
					   bool pipeline = false);

// Throws Unavailable (`unsupported`), std::runtime_error (anything else);
// index/workers: this worker of the run (for messages and `hello`).
std::unique_ptr<Workload> make_exec_workload(const WorkloadParams& p);

} // namespace kfdmp
