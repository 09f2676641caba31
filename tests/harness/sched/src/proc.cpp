#include "proc.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

namespace kfdmp::sched {

namespace {

bool read_small(const std::string& path, std::string& out)
{
	int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	char buf[1024];
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	out.assign(buf, size_t(n));
	return true;
}

std::vector<pid_t> numeric_entries(const std::string& dir)
{
	std::vector<pid_t> out;
	DIR* d = opendir(dir.c_str());
	if (!d)
		return out;
	while (dirent* e = readdir(d)) {
		char* end = nullptr;
		long v = std::strtol(e->d_name, &end, 10);
		if (e->d_name[0] && !*end && v > 0)
			out.push_back(pid_t(v));
	}
	closedir(d);
	return out;
}

} // namespace

std::optional<ProcStat> read_stat(pid_t pid, pid_t tid)
{
	std::string path = "/proc/" + std::to_string(pid) + (tid > 0 ? "/task/" + std::to_string(tid) : "") + "/stat";
	std::string s;
	if (pid <= 0 || !read_small(path, s))
		return std::nullopt;
	// "pid (comm) S ppid pgrp session tty_nr tpgid flags minflt cminflt
	// majflt cmajflt utime stime cutime cstime priority nice num_threads
	// itrealvalue starttime ..."; comm may hold spaces and parentheses.
	size_t close_paren = s.rfind(')');
	if (close_paren == std::string::npos || close_paren + 2 >= s.size())
		return std::nullopt;
	ProcStat st;
	st.pid = tid > 0 ? tid : pid;
	const char* p = s.c_str() + close_paren + 2;
	st.state = *p;
	std::vector<unsigned long long> f; // fields 4.. (ppid first)
	char* cur = const_cast<char*>(p + 1);
	while (f.size() < 19) {
		char* end = nullptr;
		unsigned long long v = std::strtoull(cur, &end, 10);
		if (end == cur)
			break;
		f.push_back(v);
		cur = end;
	}
	if (f.size() < 19)
		return std::nullopt;
	st.ppid = pid_t(f[0]);
	st.pgid = pid_t(f[1]);
	st.sid = pid_t(f[2]);
	st.starttime = f[18]; // field 22
	return st;
}

std::vector<pid_t> threads_of(pid_t pid) { return numeric_entries("/proc/" + std::to_string(pid) + "/task"); }

bool all_threads_stopped(pid_t pid)
{
	auto main = read_stat(pid);
	if (!main || main->state == 'Z' || main->state == 'X')
		return true;
	for (pid_t tid : threads_of(pid)) {
		auto t = read_stat(pid, tid);
		if (t && t->state != 'T' && t->state != 'Z' && t->state != 'X')
			return false;
	}
	return true;
}

std::vector<pid_t> all_pids() { return numeric_entries("/proc"); }

} // namespace kfdmp::sched
