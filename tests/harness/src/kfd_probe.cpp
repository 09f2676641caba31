#include "kfd_probe.h"

#include "kfd_dump.h"
#include "num_text.h"

#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <fstream>
#include <memory>
#include <set>
#include <sys/stat.h>
#include <sstream>
#include <unistd.h>

namespace kfdmp {
namespace {

std::string_view trim(std::string_view s)
{
	const auto b = s.find_first_not_of(" \t\r\n");
	if (b == std::string_view::npos)
		return {};
	return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

template <typename F>
void for_each_line(std::string_view text, F f)
{
	while (!text.empty()) {
		const auto nl = text.find('\n');
		f(trim(text.substr(0, nl)));
		text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
	}
}

std::vector<std::string> subdirectories(const std::string& path)
{
	std::vector<std::string> names;
	std::unique_ptr<DIR, int (*)(DIR*)> d(opendir(path.c_str()), closedir);
	if (!d)
		return names;
	while (dirent* e = readdir(d.get())) {
		const std::string name = e->d_name;
		if (name != "." && name != ".." && e->d_type == DT_DIR)
			names.push_back(name);
	}
	return names;
}

std::optional<double> as_number(std::string_view s)
{
	double d = 0;
	if (!kfdmp::parse_double(s, d))
		return std::nullopt;
	return d;
}

} // namespace

std::optional<std::string> read_text(const std::string& path)
{
	std::ifstream f(path);
	if (!f)
		return std::nullopt;
	std::ostringstream ss;
	ss << f.rdbuf();
	return ss.str();
}

std::optional<std::vector<SysfsQueue>> process_queue_list(const KfdPaths& p, pid_t pid)
{
	const std::string dir = p.sysfs + "/proc/" + std::to_string(pid) + "/queues";
	if (access(dir.c_str(), F_OK) != 0)
		return std::nullopt;
	std::vector<SysfsQueue> list;
	for (const auto& q : subdirectories(dir)) {
		SysfsQueue sq;
		sq.id = q;
		auto number = [&](const char* file) -> std::optional<double> {
			const auto t = read_text(dir + "/" + q + "/" + file);
			return t ? as_number(trim(*t)) : std::nullopt;
		};
		const auto type = number("type");
		sq.type = type ? queue_type_name(long(*type)) : "unknown";
		if (const auto g = number("gpuid"))
			sq.gpuid = long(*g);
		if (const auto z = number("size"))
			sq.size = (unsigned long long)(*z);
		list.push_back(std::move(sq));
	}
	return list;
}

std::optional<std::map<std::string, int>> process_queues(const KfdPaths& p, pid_t pid)
{
	const auto list = process_queue_list(p, pid);
	if (!list)
		return std::nullopt;
	std::map<std::string, int> count;
	for (const auto& q : *list)
		++count[q.type];
	return count;
}

KeyValues parse_properties(std::string_view text)
{
	KeyValues kv;
	for_each_line(text, [&](std::string_view line) {
		const auto sp = line.find_first_of(" \t");
		if (!line.empty() && sp != std::string_view::npos)
			kv.emplace_back(std::string(line.substr(0, sp)), std::string(trim(line.substr(sp))));
	});
	return kv;
}

KeyValues parse_sectioned(std::string_view text)
{
	KeyValues kv;
	std::string section;
	for_each_line(text, [&](std::string_view line) {
		const auto colon = line.find(':');
		if (colon == std::string_view::npos || colon == 0 || line[0] == '#')
			return;
		const std::string key(trim(line.substr(0, colon)));
		const std::string_view value = trim(line.substr(colon + 1));
		if (value.empty())
			section = key;
		else
			kv.emplace_back(section.empty() ? key : section + "/" + key, std::string(value));
	});
	return kv;
}

bool is_level_key(const std::string& key, const std::string& value)
{
	const auto slash = key.rfind('/');
	const std::string name = slash == std::string::npos ? key : key.substr(slash + 1);
	auto ends = [&](const char* suffix) {
		const size_t n = std::strlen(suffix);
		return name.size() >= n && name.compare(name.size() - n, n, suffix) == 0;
	};
	return name.rfind("peak_", 0) == 0 || ends("_max") || ends("_hist") || name == "since_reset_ms" ||
	       !as_number(value);
}

json::Value deltas(const KeyValues& before, const KeyValues& after)
{
	std::map<std::string, std::string> old(before.begin(), before.end());
	json::Value out = json::Value::Object{};
	for (const auto& [key, now] : after) {
		if (is_level_key(key, now))
			continue;
		const auto it = old.find(key);
		const auto n1 = as_number(now);
		const auto n0 = it == old.end() ? std::optional<double>(0) : as_number(it->second);
		if (n1 && n0)
			out.set(key, *n1 - *n0);
	}
	return out;
}

json::Value levels(const KeyValues& after)
{
	json::Value out = json::Value::Object{};
	for (const auto& [key, now] : after)
		if (is_level_key(key, now)) {
			const auto n = as_number(now);
			out.set(key, n ? json::Value(*n) : json::Value(now));
		}
	return out;
}

json::Value gpu_topology(const KfdPaths& p)
{
	json::Value nodes = json::Value::Array{};
	const std::string root = p.sysfs + "/topology/nodes/";
	for (const auto& n : subdirectories(root)) {
		const auto gpu_id = read_text(root + n + "/gpu_id");
		const auto id = gpu_id ? as_number(trim(*gpu_id)) : std::nullopt;
		if (!id || *id == 0)
			continue; // a CPU node, or unreadable
		json::Value node;
		node.set("node", n);
		node.set("gpu_id", *id);
		json::Value props = json::Value::Object{};
		for (const auto& [k, v] : parse_properties(read_text(root + n + "/properties").value_or(""))) {
			const auto num = as_number(v);
			props.set(k, num ? json::Value(*num) : json::Value(v));
		}
		node.set("properties", std::move(props));
		nodes.push(std::move(node));
	}
	return nodes;
}

std::string_view kmsg_message(std::string_view record)
{
	const auto semi = record.find(';');
	std::string_view msg = semi == std::string_view::npos ? record : record.substr(semi + 1);
	return msg.substr(0, msg.find('\n')); // continuation lines (" KEY=value") follow
}

KmsgWatch::KmsgWatch(const std::string& path) : fd_(open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC))
{
	if (fd_ >= 0)
		lseek(fd_, 0, SEEK_END);
}

KmsgWatch::~KmsgWatch()
{
	if (fd_ >= 0)
		close(fd_);
}

std::vector<std::string> KmsgWatch::matching(std::string_view needle)
{
	std::vector<std::string> hits;
	char buf[8192]; // one record per read(); records are at most ~1 KiB
	for (;;) {
		const ssize_t n = read(fd_, buf, sizeof buf);
		if (n < 0 && errno == EPIPE)
			continue; // records were overwritten before we read them
		if (n <= 0)
			break;
		const std::string_view msg = kmsg_message(std::string_view(buf, size_t(n)));
		if (msg.find(needle) != std::string_view::npos)
			hits.emplace_back(msg);
	}
	return hits;
}

KfdObserver::KfdObserver(const KfdPaths& paths, const std::string& out_dir, const std::string& tag)
    : paths_(paths), out_dir_(out_dir), tag_(tag), kmsg_(paths.kmsg)
{
	if (const auto text = read_text(paths_.debugfs + "/mp_stats"))
		mp_stats_before_ = parse_sectioned(*text);
	snapshots("before");
}

void KfdObserver::snapshot(const char* name, const char* when)
{
	const auto text = read_text(paths_.debugfs + "/" + name);
	if (!text) {
		absent_.push_back(paths_.debugfs + "/" + name);
		return;
	}
	const std::string rel = "kfd/" + tag_ + "-" + name + "-" + when + ".txt";
	mkdir((out_dir_ + "/kfd").c_str(), 0755);
	std::ofstream(out_dir_ + "/" + rel) << *text;
	snapshots_.push(rel);
	json::Value parsed;
	if (const json::Value* p = parsed_.find(when))
		parsed = *p;
	try {
		const std::string n = name;
		if (n == "hqds")
			parsed.set(n, hqds_json(parse_hqds(*text)));
		else if (n == "mqds")
			parsed.set(n, mqds_json(parse_mqds(*text)));
		else if (n == "rls")
			parsed.set(n, rls_json(parse_rls(*text)));
	} catch (const DumpParseError& e) {
		parsed.set(name, json::Value::Object{{"parse_error", e.what()}});
	}
	if (std::string(name) == "hqds")
		last_hqds_ = *text;
	if (std::string(name) == "mqds" && !last_hqds_.empty()) {
		try { // the hqds snapshot taken just before this one
			parsed.set("mqd_to_hqd", map_mqds_to_hqds(parse_mqds(*text), parse_hqds(last_hqds_)));
		} catch (const DumpParseError&) {
		}
	}
	parsed_.set(when, std::move(parsed));
}

void KfdObserver::snapshots(const char* when)
{
	last_hqds_.clear();
	for (const char* name : {"hqds", "mqds", "rls"})
		snapshot(name, when);
}

void KfdObserver::during_window(const std::vector<pid_t>& pids)
{
	sample_queues(pids);
	snapshots("mid");
}

void KfdObserver::sample_queues(const std::vector<pid_t>& pids)
{
	for (pid_t pid : pids) {
		json::Value q;
		if (const auto list = process_queue_list(paths_, pid)) {
			std::map<std::string, int> count;
			json::Value items = json::Value::Array{};
			for (const auto& sq : *list) {
				++count[sq.type];
				items.push(json::Value::Object{
					{"id", sq.id},
					{"type", sq.type},
					{"gpuid", sq.gpuid ? json::Value(int64_t(*sq.gpuid)) : json::Value()},
					{"size", sq.size ? json::Value(uint64_t(*sq.size)) : json::Value()}});
			}
			json::Value by_type = json::Value::Object{};
			for (const auto& [type, n] : count)
				by_type.set(type, n);
			q.set("pid", int64_t(pid));
			q.set("total", int(list->size()));
			q.set("by_type", std::move(by_type));
			q.set("list", std::move(items));
		} else {
			absent_.push_back(paths_.sysfs + "/proc/" + std::to_string(pid) + "/queues");
		}
		queues_.push(std::move(q));
	}
}

json::Value KfdObserver::finish()
{
	snapshots("after");
	json::Value out;
	out.set("queues", std::move(queues_));
	if (kmsg_.available()) {
		json::Value lines = json::Value::Array{};
		for (auto& l : kmsg_.matching("Runlist is getting oversubscribed"))
			lines.push(std::move(l));
		out.set("oversubscribed_lines", std::move(lines));
	} else {
		out.set("oversubscribed_lines", nullptr);
		absent_.push_back(paths_.kmsg);
	}
	const auto mp_after = read_text(paths_.debugfs + "/mp_stats");
	if (mp_stats_before_ && mp_after) {
		out.set("mp_stats_delta", deltas(*mp_stats_before_, parse_sectioned(*mp_after)));
		out.set("mp_stats_levels", levels(parse_sectioned(*mp_after)));
	} else {
		out.set("mp_stats_delta", nullptr);
		out.set("mp_stats_levels", nullptr);
		absent_.push_back(paths_.debugfs + "/mp_stats");
	}
	out.set("snapshots", std::move(snapshots_));
	out.set("parsed", std::move(parsed_));
	json::Value absent = json::Value::Array{};
	for (const auto& a : std::set<std::string>(absent_.begin(), absent_.end()))
		absent.push(a);
	out.set("absent", std::move(absent));
	return out;
}

} // namespace kfdmp
