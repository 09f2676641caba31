// kfdmp-test-worker: CPU-only workloads that drive every launcher path
// without a GPU. The workload name picks the behaviour; a worker whose
// assigned device (HIP_VISIBLE_DEVICES, set by --devices) is "crash" crashes,
// so one worker of a run can fail while the others finish, and one whose
// device is "stall<ms>" is blocked for that long right after the start.
#include "worker.h"

#include <csignal>
#include <cstdlib>
#include <string>
#include <unistd.h>

namespace {

using namespace kfdmp;

std::string env(const char* name)
{
	const char* v = std::getenv(name);
	return v ? v : "";
}

class Fake final : public Workload {
public:
	explicit Fake(const WorkloadParams& p)
	    : mode_(p.name), sleep_us_((p.iters ? p.iters : 200) * (mode_ == "slow" ? 4 : 1)),
	      split_(std::to_string(p.split_index) + "/" + std::to_string(p.split_count))
	{
		if (mode_ == "unavailable")
			throw Unavailable("test worker: nothing to run on");
		if (mode_ == "hang-init")
			for (;;)
				pause();
		if (mode_ != "sleep" && mode_ != "slow" && mode_ != "hang" && mode_ != "wrong")
			throw std::invalid_argument("test worker: unknown workload " + mode_);
	}

	void query() override
	{
		// The first query runs before the start barrier.
		if (++calls_ > 1 && env("HIP_VISIBLE_DEVICES") == "crash")
			raise(SIGSEGV);
		if (calls_ > 1 && mode_ == "hang")
			for (;;)
				pause();
		// "stall<ms>": blocked for ms in the first query after the start,
		// like a process the scheduler does not run for a while.
		const std::string dev = env("HIP_VISIBLE_DEVICES");
		if (calls_ == 2 && dev.rfind("stall", 0) == 0)
			usleep(useconds_t(std::atoi(dev.c_str() + 5)) * 1000);
		usleep(sleep_us_);
	}

	void verify() override
	{
		if (mode_ == "wrong")
			throw VerifyError("test worker: wrong on purpose");
	}

	std::string device() const override
	{
		return "test worker; GPU_MAX_HW_QUEUES=" + env("GPU_MAX_HW_QUEUES") +
		       " HIP_VISIBLE_DEVICES=" + env("HIP_VISIBLE_DEVICES") + (split_ == "0/0" ? "" : " split=" + split_);
	}

private:
	std::string mode_;
	unsigned sleep_us_;
	std::string split_;
	unsigned calls_ = 0;
};

std::unique_ptr<Workload> make(const WorkloadParams& p) { return std::make_unique<Fake>(p); }
std::string probe() { return "CPU (test worker)"; }

} // namespace

int main(int argc, char** argv) { return worker_main(argc, argv, make, probe); }
