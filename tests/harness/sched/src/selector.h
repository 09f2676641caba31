// Which processes a tenant is: selected by pid, process group, cgroup or
// container, and resolved again every --rescan-ms so that processes that come
// (a worker respawned, a container restarted) and go are followed.
//
//   N | pid:N        that process (kept selected until it exits)
//   pgid:N          every process of process group N
//   cgroup:PATH     every process of the cgroup directory PATH and the
//                   cgroups below it (cgroup.procs); a relative PATH is looked
//                   up under /sys/fs/cgroup, /sys/fs/cgroup/unified and
//                   /sys/fs/cgroup/systemd (cgroup v2, hybrid, v1)
//   container:ID    every process whose /proc/PID/cgroup names the container:
//                   a path component docker-ID.scope, libpod-ID.scope,
//                   crio-ID.scope, cri-containerd-ID.scope or ID (cgroupfs
//                   drivers), ID being at least 12 hex digits of its id. A name
//                   instead of an id is resolved once at start with `docker
//                   inspect` (or `podman inspect`) where one is installed; no
//                   container CLI is needed for an id.
#pragma once
#include <set>
#include <stdexcept>
#include <string>
#include <sys/types.h>
#include <vector>

namespace kfdmp::sched {

struct Selector {
	enum class Kind { Pid, Pgid, Cgroup, Container } kind = Kind::Pid;
	pid_t id = 0;     // Pid, Pgid
	std::string path; // Cgroup: the directory; Container: the id (lower-case hex)
	std::string text; // as given
};

// Throws std::invalid_argument naming what is wrong.
Selector parse_selector(const std::string& s);
// A comma-separated list (a cgroup path with a comma cannot be given).
std::vector<Selector> parse_selectors(const std::string& list);

// The live processes a selector names now (Pid: always its pid; the
// scheduler's liveness check forgets it once it exits).
std::set<pid_t> resolve(const Selector& s);

// Whether a /proc/PID/cgroup text names container id (pure; for tests).
bool cgroup_names_container(const std::string& cgroup_text, const std::string& id);
// The pids listed in DIR/cgroup.procs and below it.
std::set<pid_t> pids_in_cgroup(const std::string& dir);
// The directory a cgroup:PATH names ("" when none exists).
std::string cgroup_dir(const std::string& path);
// A container name or id to its full id: an id (hex, >= 12) as it is, lower
// case; a name through `docker inspect`, else `podman inspect`. Throws
// std::invalid_argument with the reason when neither knows it.
std::string container_id(const std::string& name_or_id);

} // namespace kfdmp::sched
