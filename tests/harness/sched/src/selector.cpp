#include "selector.h"

#include "proc.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace kfdmp::sched {

namespace {

pid_t parse_id(const std::string& v, const std::string& whole)
{
	char* end = nullptr;
	errno = 0;
	long p = std::strtol(v.c_str(), &end, 10);
	if (v.empty() || *end || errno || p <= 0 || p > 0x3fffffff)
		throw std::invalid_argument("'" + whole + "' is not a pid (nor pid:N, pgid:N, cgroup:PATH, container:ID)");
	return pid_t(p);
}

bool is_hex(const std::string& s)
{
	return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isxdigit(c); });
}

std::string lower(std::string s)
{
	for (char& c : s)
		c = char(std::tolower(static_cast<unsigned char>(c)));
	return s;
}

bool is_dir(const std::string& p)
{
	struct stat st;
	return stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string read_file(const std::string& path)
{
	std::ifstream in(path);
	std::stringstream ss;
	ss << in.rdbuf();
	return ss.str();
}

// The first line of a command's output, "" when it fails.
std::string first_line_of(const std::string& cmd)
{
	std::FILE* f = popen(cmd.c_str(), "r");
	if (!f)
		return "";
	char buf[256] = {};
	std::string line = std::fgets(buf, sizeof(buf), f) ? buf : "";
	int rc = pclose(f);
	while (!line.empty() && (line.back() == '\n' || line.back() == '\r' || line.back() == ' '))
		line.pop_back();
	return rc == 0 ? line : "";
}

} // namespace

std::string container_id(const std::string& given)
{
	std::string l = lower(given);
	if (is_hex(l) && l.size() >= 12)
		return l;
	for (const char* cli : {"docker", "podman"}) {
		// Names are [a-zA-Z0-9][a-zA-Z0-9_.-]*: nothing for the shell to expand.
		bool safe = !given.empty() && std::all_of(given.begin(), given.end(), [](unsigned char c) {
			return std::isalnum(c) || c == '_' || c == '.' || c == '-';
		});
		if (!safe)
			break;
		std::string id = lower(first_line_of(std::string("command -v ") + cli + " >/dev/null 2>&1 && " + cli +
						      " inspect --format '{{.Id}}' '" + given + "' 2>/dev/null"));
		if (is_hex(id) && id.size() >= 12)
			return id;
	}
	throw std::invalid_argument("container:" + given +
				    ": neither a container id (12 or more hex digits) nor a name that docker or podman "
				    "inspect knows");
}

Selector parse_selector(const std::string& s)
{
	Selector sel;
	sel.text = s;
	size_t colon = s.find(':');
	std::string kind = colon == std::string::npos ? "pid" : s.substr(0, colon);
	std::string v = colon == std::string::npos ? s : s.substr(colon + 1);
	if (kind == "pid") {
		sel.kind = Selector::Kind::Pid;
		sel.id = parse_id(v, s);
	} else if (kind == "pgid") {
		sel.kind = Selector::Kind::Pgid;
		sel.id = parse_id(v, s);
	} else if (kind == "cgroup") {
		sel.kind = Selector::Kind::Cgroup;
		sel.path = cgroup_dir(v);
		if (v.empty() || sel.path.empty())
			throw std::invalid_argument("'" + s + "': no cgroup directory " + v +
						    " (absolute, or under /sys/fs/cgroup, /sys/fs/cgroup/unified, "
						    "/sys/fs/cgroup/systemd)");
	} else if (kind == "container") {
		sel.kind = Selector::Kind::Container;
		sel.path = container_id(v);
	} else {
		throw std::invalid_argument("'" + s + "': unknown selector '" + kind +
					    ":' (pid:N, pgid:N, cgroup:PATH, container:ID)");
	}
	return sel;
}

std::vector<Selector> parse_selectors(const std::string& list)
{
	std::vector<Selector> out;
	std::stringstream ss(list);
	std::string item;
	while (std::getline(ss, item, ','))
		out.push_back(parse_selector(item));
	if (out.empty())
		throw std::invalid_argument("no pid given");
	return out;
}

std::string cgroup_dir(const std::string& path)
{
	if (path.empty())
		return "";
	if (path[0] == '/' && is_dir(path) && access((path + "/cgroup.procs").c_str(), F_OK) == 0)
		return path;
	std::string rel = path[0] == '/' ? path : "/" + path;
	for (const char* root : {"/sys/fs/cgroup", "/sys/fs/cgroup/unified", "/sys/fs/cgroup/systemd"}) {
		std::string d = root + rel;
		if (is_dir(d) && access((d + "/cgroup.procs").c_str(), F_OK) == 0)
			return d;
	}
	return "";
}

std::set<pid_t> pids_in_cgroup(const std::string& dir)
{
	std::set<pid_t> out;
	std::istringstream procs(read_file(dir + "/cgroup.procs"));
	for (long p; procs >> p;)
		if (p > 0)
			out.insert(pid_t(p));
	if (DIR* d = opendir(dir.c_str())) {
		std::vector<std::string> subs;
		while (dirent* e = readdir(d)) {
			std::string n = e->d_name;
			if (n != "." && n != ".." && is_dir(dir + "/" + n))
				subs.push_back(dir + "/" + n);
		}
		closedir(d);
		for (const auto& s : subs)
			for (pid_t p : pids_in_cgroup(s))
				out.insert(p);
	}
	return out;
}

bool cgroup_names_container(const std::string& text, const std::string& id)
{
	if (id.size() < 12)
		return false;
	std::istringstream lines(text);
	for (std::string line; std::getline(lines, line);) {
		// "hierarchy-id:controllers:path"
		size_t c2 = line.find(':', line.find(':') + 1);
		if (c2 == std::string::npos)
			continue;
		std::stringstream comps(line.substr(c2 + 1));
		for (std::string c; std::getline(comps, c, '/');) {
			for (const char* pre : {"docker-", "libpod-", "crio-", "cri-containerd-"})
				if (c.rfind(pre, 0) == 0) {
					c = c.substr(std::string(pre).size());
					break;
				}
			if (c.size() > 6 && c.compare(c.size() - 6, 6, ".scope") == 0)
				c.resize(c.size() - 6);
			if (c.size() >= id.size() && is_hex(c) && lower(c).compare(0, id.size(), id) == 0)
				return true;
		}
	}
	return false;
}

std::set<pid_t> resolve(const Selector& s)
{
	std::set<pid_t> out;
	switch (s.kind) {
	case Selector::Kind::Pid:
		out.insert(s.id);
		break;
	case Selector::Kind::Pgid:
		for (pid_t p : all_pids()) {
			auto st = read_stat(p);
			if (st && st->pgid == s.id && st->state != 'Z')
				out.insert(p);
		}
		break;
	case Selector::Kind::Cgroup:
		out = pids_in_cgroup(s.path);
		break;
	case Selector::Kind::Container:
		for (pid_t p : all_pids())
			if (cgroup_names_container(read_file("/proc/" + std::to_string(p) + "/cgroup"), s.path))
				out.insert(p);
		break;
	}
	return out;
}

} // namespace kfdmp::sched
