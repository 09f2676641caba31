#include "shared_region.h"

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kfdmp {
namespace {

constexpr uint64_t region_magic = 0x6b66646d70763032; // "kfdmpv02"

size_t slots_offset() { return (sizeof(RegionHeader) + 63) & ~size_t(63); }
size_t slot_stride() { return (sizeof(WorkerSlot) + 63) & ~size_t(63); }
size_t records_offset(uint32_t workers) { return slots_offset() + workers * slot_stride(); }
size_t records_size(const RunConfig& c) { return size_t(c.latency_capacity) * sizeof(QueryRecord); }
size_t stamps_offset(const RunConfig& c) { return records_offset(c.workers) + c.workers * records_size(c); }
size_t stamps_size(const RunConfig& c) { return size_t(c.params.stamp_capacity) * sizeof(KernelStamp); }

size_t region_size(const RunConfig& c) { return stamps_offset(c) + c.workers * stamps_size(c); }

[[noreturn]] void fail(const char* what)
{
	throw std::runtime_error(std::string("shared region: ") + what + ": " + std::strerror(errno));
}

void* map(int fd, size_t size)
{
	void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		fail("mmap");
	return p;
}

} // namespace

const char* to_string(WorkerState s)
{
	switch (s) {
	case WorkerState::spawned: return "spawned";
	case WorkerState::initialising: return "initialising";
	case WorkerState::ready: return "ready";
	case WorkerState::running: return "running";
	case WorkerState::verifying: return "verifying";
	case WorkerState::done: return "done";
	case WorkerState::failed: return "failed";
	}
	return "unknown";
}

SharedRegion SharedRegion::create(const RunConfig& config)
{
	// MFD_CLOEXEC: only the workers get the descriptor, explicitly.
	int fd = memfd_create("kfdmp", MFD_CLOEXEC);
	if (fd < 0)
		fail("memfd_create");
	size_t size = region_size(config);
	if (ftruncate(fd, off_t(size)) != 0) {
		close(fd);
		fail("ftruncate");
	}
	SharedRegion r(fd, map(fd, size), size); // zero-filled by ftruncate
	RegionHeader& h = r.header();
	h.magic = region_magic;
	h.size = size;
	h.config = config;
	h.barrier.init(config.workers + 1);
	for (uint32_t i = 0; i < config.workers; ++i)
		r.slot(i).params = config.params;
	return r;
}

SharedRegion SharedRegion::attach(int fd)
{
	struct stat st{};
	if (fstat(fd, &st) != 0)
		fail("fstat of the inherited descriptor");
	if (size_t(st.st_size) < sizeof(RegionHeader))
		throw std::runtime_error("shared region: descriptor too small");
	SharedRegion r(fd, map(fd, size_t(st.st_size)), size_t(st.st_size));
	if (r.header().magic != region_magic || r.header().size != r.size_ ||
	    region_size(r.header().config) != r.size_)
		throw std::runtime_error("shared region: bad magic or size (launcher/worker mismatch?)");
	return r;
}

SharedRegion::SharedRegion(SharedRegion&& o) noexcept : fd_(o.fd_), base_(o.base_), size_(o.size_)
{
	o.fd_ = -1;
	o.base_ = nullptr;
}

SharedRegion::~SharedRegion()
{
	if (base_)
		munmap(base_, size_);
	if (fd_ >= 0)
		close(fd_);
}

WorkerSlot& SharedRegion::slot(uint32_t i) const
{
	return *reinterpret_cast<WorkerSlot*>(static_cast<char*>(base_) + slots_offset() + i * slot_stride());
}

QueryRecord* SharedRegion::records(uint32_t i) const
{
	const RunConfig& c = header().config;
	return reinterpret_cast<QueryRecord*>(static_cast<char*>(base_) + records_offset(c.workers) +
					      i * records_size(c));
}

KernelStamp* SharedRegion::stamps(uint32_t i) const
{
	const RunConfig& c = header().config;
	return reinterpret_cast<KernelStamp*>(static_cast<char*>(base_) + stamps_offset(c) + i * stamps_size(c));
}

} // namespace kfdmp
