// Best-effort observation of amdkfd while a run is in progress: per-process
// queues (sysfs), topology, oversubscription warnings (/dev/kmsg) and
// debugfs counters and snapshots. Every reader returns "absent" (nullopt or
// an empty result) instead of failing: most machines have no KFD at all.
#pragma once
#include "json.h"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <utility>
#include <vector>

namespace kfdmp {

// Where to look; tests point these at tests/harness/fixtures.
struct KfdPaths {
	std::string sysfs = "/sys/class/kfd/kfd";
	std::string debugfs = "/sys/kernel/debug/kfd";
	std::string kmsg = "/dev/kmsg";
};

using KeyValues = std::vector<std::pair<std::string, std::string>>;

std::optional<std::string> read_text(const std::string& path);

// One directory <sysfs>/proc/<pid>/queues/<queue id>/ as the driver
// creates it (kfd_procfs_add_queue): files gpuid, size and type, where type
// is the number of enum kfd_queue_type.
struct SysfsQueue {
	std::string id;
	std::string type;      // queue_type_name(), "unknown" when unreadable
	std::optional<long> gpuid;
	std::optional<unsigned long long> size;
};
// nullopt when the process has no queues directory.
std::optional<std::vector<SysfsQueue>> process_queue_list(const KfdPaths& p, pid_t pid);
// Count per queue type of process_queue_list().
std::optional<std::map<std::string, int>> process_queues(const KfdPaths& p, pid_t pid);

// "name value" lines (topology node properties).
KeyValues parse_properties(std::string_view text);

// "name: value" lines; a line "node N gpu_id G:" (or any "label:" without a
// value) opens a section and later keys are reported as "<label>/name".
// Lines starting with '#' are comments.
KeyValues parse_sectioned(std::string_view text);

// Whether an mp_stats key is a level (a value at one moment: peak_*, *_max,
// since_reset_ms, *_log2_hist and any other text) rather than a counter.
bool is_level_key(const std::string& key, const std::string& value);
// after - before for counters (a key missing in before counts from 0).
// Levels are left out: see levels().
json::Value deltas(const KeyValues& before, const KeyValues& after);
// The after values of the level keys (numbers as numbers, text as text).
json::Value levels(const KeyValues& after);

// GPU nodes of <sysfs>/topology/nodes (gpu_id != 0): node, gpu_id and all
// properties. Empty when there is no topology.
json::Value gpu_topology(const KfdPaths& p);

// The message of one /dev/kmsg record "prio,seq,usec,flags;message".
std::string_view kmsg_message(std::string_view record);

// Reads the kernel log from the position where it was opened.
class KmsgWatch {
public:
	explicit KmsgWatch(const std::string& path); // positions at the end
	KmsgWatch(const KmsgWatch&) = delete;
	KmsgWatch& operator=(const KmsgWatch&) = delete;
	~KmsgWatch();
	bool available() const { return fd_ >= 0; }
	// Messages logged since the last call that contain needle.
	std::vector<std::string> matching(std::string_view needle);

private:
	int fd_;
};

// Everything the harness records about KFD around one run.
class KfdObserver {
public:
	// Snapshots of hqds, mqds and rls go to
	// <out_dir>/kfd/<tag>-<name>-{before,mid,after}.txt and are parsed.
	KfdObserver(const KfdPaths& paths, const std::string& out_dir, const std::string& tag);
	// Halfway through the window: per-process sysfs queues and the mid
	// snapshots, while the workers' queues are live.
	void during_window(const std::vector<pid_t>& pids);
	void sample_queues(const std::vector<pid_t>& pids);
	// JSON object "kfd" of a run (see README: schema).
	json::Value finish();

private:
	void snapshot(const char* name, const char* when);
	void snapshots(const char* when);
	KfdPaths paths_;
	std::string out_dir_, tag_;
	std::string last_hqds_;
	json::Value parsed_ = json::Value::Object{}; // when -> {hqds, mqds, rls, mqd_to_hqd}
	std::optional<KeyValues> mp_stats_before_;
	KmsgWatch kmsg_;
	json::Value queues_ = json::Value::Array{};
	json::Value snapshots_ = json::Value::Array{};
	std::vector<std::string> absent_;
};

} // namespace kfdmp
