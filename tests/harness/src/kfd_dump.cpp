#include "kfd_dump.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <map>

namespace kfdmp {
namespace {

constexpr uint32_t reg_stride = 4; // seq_reg_dump() prints byte addresses

template <typename F>
void for_each_line(std::string_view text, F f)
{
	size_t no = 0;
	while (!text.empty()) {
		const auto nl = text.find('\n');
		std::string_view line = text.substr(0, nl);
		if (!line.empty() && line.back() == '\r')
			line.remove_suffix(1);
		f(line, ++no);
		text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
	}
}

[[noreturn]] void fail(const char* what, size_t no, std::string_view line)
{
	throw DumpParseError(std::string(what) + " at line " + std::to_string(no) + ": \"" + std::string(line) + "\"");
}

bool blank(std::string_view l) { return l.find_first_not_of(" \t") == std::string_view::npos; }

// "<spaces>%08x: %08x %08x ..." -> address and values. false if not such a row.
bool hex_row(std::string_view line, uint32_t& addr, std::vector<uint32_t>& values)
{
	const std::string s(line);
	const char* p = s.c_str();
	while (*p == ' ')
		++p;
	unsigned a = 0;
	int n = 0;
	if (std::sscanf(p, "%8x:%n", &a, &n) != 1 || n != 9)
		return false;
	p += n;
	values.clear();
	while (*p) {
		unsigned v = 0;
		int m = 0;
		if (std::sscanf(p, " %8x%n", &v, &m) != 1)
			return false;
		values.push_back(v);
		p += m;
	}
	addr = a;
	return !values.empty();
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// "Node %u, gpu_id %x:" (both hqds and rls)
bool node_header(const std::string& l, uint32_t& node, uint32_t& gpu)
{
	char colon = 0;
	return std::sscanf(l.c_str(), "Node %u, gpu_id %x%c", &node, &gpu, &colon) == 3 && colon == ':';
}

uint32_t reg_at(const RegRows& regs, uint32_t addr, bool& found)
{
	for (const auto& [a, v] : regs)
		if (a == addr) {
			found = true;
			return v;
		}
	found = false;
	return 0;
}

json::Value count_map(const std::map<int, int>& m)
{
	json::Value o = json::Value::Object{};
	for (const auto& [k, v] : m)
		o.set(std::to_string(k), v);
	return o;
}

std::string hex64(uint64_t v)
{
	char buf[24];
	std::snprintf(buf, sizeof buf, "0x%" PRIx64, v);
	return buf;
}

} // namespace

std::string queue_type_name(long type)
{
	switch (type) {
	case 0: return "compute";
	case 1: return "sdma";
	case 2: return "hiq";
	case 3: return "diq";
	case 4: return "sdma_xgmi";
	case 5: return "sdma_by_eng_id";
	default: return "type_" + std::to_string(type);
	}
}

HqdDump parse_hqds(std::string_view text)
{
	HqdDump d;
	HqdSlot* cur = nullptr;
	bool have_node = false;
	std::vector<uint32_t> values;
	for_each_line(text, [&](std::string_view line, size_t no) {
		if (blank(line))
			return;
		const std::string l(line);
		uint32_t node = 0, gpu = 0;
		int inst = 0, a = 0, b = 0, c = 0;
		uint32_t addr = 0;
		if (node_header(l, node, gpu)) {
			d.nodes.push_back({node, gpu, false});
			have_node = true;
			cur = nullptr;
			return;
		}
		if (!have_node)
			fail("hqds: text before the first \"Node N, gpu_id G:\"", no, line);
		HqdSlot s;
		s.node = d.nodes.back().node;
		s.gpu_id = d.nodes.back().gpu_id;
		if (std::sscanf(l.c_str(), " Inst %d, HIQ on MEC %d Pipe %d Queue %d", &inst, &a, &b, &c) == 4) {
			s.kind = HqdSlot::Kind::hiq;
			s.inst = inst;
			s.mec = a;
			s.pipe = b;
			s.queue = c;
		} else if (std::sscanf(l.c_str(), " Inst %d, CP Pipe %d, Queue %d", &inst, &b, &c) == 3) {
			s.kind = HqdSlot::Kind::cp;
			s.inst = inst;
			s.pipe = b;
			s.queue = c;
		} else if (std::sscanf(l.c_str(), " SDMA Engine %d, RLC %d", &a, &b) == 2) {
			s.kind = HqdSlot::Kind::sdma;
			s.engine = a;
			s.rlc = b;
		} else if (starts_with(l, " Device is stopped")) {
			d.nodes.back().stopped = true;
			cur = nullptr;
			return;
		} else if (hex_row(line, addr, values)) {
			if (!cur)
				fail("hqds: register row outside a queue block", no, line);
			for (size_t i = 0; i < values.size(); ++i)
				cur->regs.emplace_back(addr + uint32_t(i) * reg_stride, values[i]);
			return;
		} else {
			fail("hqds: unrecognised line", no, line);
		}
		d.slots.push_back(std::move(s));
		cur = &d.slots.back();
	});
	for (auto& s : d.slots) {
		if (s.regs.empty())
			continue;
		const uint32_t base = s.regs.front().first;
		bool ok = false;
		if (s.kind == HqdSlot::Kind::sdma) {
			s.active = s.regs.front().second & 1; // SDMA_RLC0_RB_CNTL.RB_ENABLE
			continue;
		}
		// CP_MQD_BASE_ADDR, CP_MQD_BASE_ADDR_HI, CP_HQD_ACTIVE
		const uint32_t active = reg_at(s.regs, base + 2 * reg_stride, ok);
		s.active = ok && (active & 1);
		const uint32_t hi = reg_at(s.regs, base + reg_stride, ok);
		s.mqd_addr = (uint64_t(ok ? hi : 0) << 32) | s.regs.front().second;
	}
	return d;
}

json::Value hqds_json(const HqdDump& d)
{
	json::Value nodes = json::Value::Array{};
	int total_active = 0;
	for (const auto& n : d.nodes) {
		int cp = 0, cp_active = 0, cp_addr = 0, hiq = 0, hiq_active = 0, sdma = 0, sdma_active = 0;
		std::map<int, int> by_inst, by_pipe;
		json::Value active = json::Value::Array{};
		for (const auto& s : d.slots) {
			if (s.node != n.node || s.gpu_id != n.gpu_id)
				continue;
			switch (s.kind) {
			case HqdSlot::Kind::hiq:
				++hiq;
				hiq_active += s.active;
				break;
			case HqdSlot::Kind::sdma:
				++sdma;
				sdma_active += s.active;
				break;
			case HqdSlot::Kind::cp:
				++cp;
				cp_addr += s.mqd_addr != 0;
				if (s.active) {
					++cp_active;
					++by_inst[s.inst];
					++by_pipe[s.pipe];
					active.push(json::Value::Object{{"inst", s.inst},
									{"pipe", s.pipe},
									{"queue", s.queue},
									{"mqd_addr", hex64(s.mqd_addr)}});
				}
				break;
			}
		}
		total_active += cp_active;
		json::Value j;
		j.set("node", n.node);
		j.set("gpu_id", n.gpu_id);
		j.set("stopped", n.stopped);
		j.set("cp_slots", cp);
		j.set("cp_active", cp_active);
		j.set("cp_nonzero_mqd_addr", cp_addr);
		j.set("cp_active_by_inst", count_map(by_inst));
		j.set("cp_active_by_pipe", count_map(by_pipe));
		j.set("hiq", hiq);
		j.set("hiq_active", hiq_active);
		j.set("sdma_slots", sdma);
		// RB_ENABLE of the RLC queue. Under HWS it is not a liveness flag:
		// the MI308X capture shows 7 RLCs with it set on node 2 while the
		// only process there holds no SDMA queue (kfd/mqds).
		j.set("sdma_rb_enabled", sdma_active);
		j.set("active", std::move(active));
		nodes.push(std::move(j));
	}
	json::Value out;
	out.set("cp_active", total_active);
	out.set("nodes", std::move(nodes));
	return out;
}

std::vector<MqdProcess> parse_mqds(std::string_view text)
{
	std::vector<MqdProcess> procs;
	MqdQueue* q = nullptr;
	std::vector<uint32_t> values;
	for_each_line(text, [&](std::string_view line, size_t no) {
		if (blank(line))
			return;
		const std::string l(line);
		long long pid = 0;
		unsigned gpu = 0;
		char colon = 0;
		uint32_t addr = 0;
		if (starts_with(l, "Process ")) {
			// ROCm: "PASID %d:", 6.12: "PASID 0x%x:" (%i reads both)
			int p = 0;
			if (std::sscanf(l.c_str(), "Process %lld PASID %i%c", &pid, &p, &colon) != 3 || colon != ':')
				fail("mqds: bad process line", no, line);
			procs.push_back({pid, uint32_t(p), {}});
			q = nullptr;
			return;
		}
		if (procs.empty())
			fail("mqds: text before the first \"Process\" line", no, line);
		MqdQueue nq;
		if (std::sscanf(l.c_str(), " Compute queue on device %x", &gpu) == 1)
			nq.type = "compute";
		else if (std::sscanf(l.c_str(), " SDMA queue on device %x", &gpu) == 1)
			nq.type = "sdma";
		else if (std::sscanf(l.c_str(), " DIQ on device %x", &gpu) == 1)
			nq.type = "diq";
		else if (l.find("Bad user queue type") != std::string::npos ||
			 l.find("Bad kernel queue type") != std::string::npos || l.find("Weird:") != std::string::npos) {
			procs.back().queues.push_back({"bad", 0, {}, {}, false});
			q = nullptr;
			return;
		} else if (hex_row(line, addr, values)) {
			if (!q)
				fail("mqds: hex row outside a queue", no, line);
			if (addr == 0 || q->mqds.empty())
				q->mqds.emplace_back();
			auto& m = q->mqds.back();
			if (addr % 4 || addr / 4 != m.size())
				fail("mqds: hex row out of sequence", no, line);
			m.insert(m.end(), values.begin(), values.end());
			return;
		} else {
			fail("mqds: unrecognised line", no, line);
		}
		nq.gpu_id = gpu;
		procs.back().queues.push_back(std::move(nq));
		q = &procs.back().queues.back();
	});
	for (auto& p : procs)
		for (auto& qq : p.queues) {
			if (qq.type != "compute")
				continue;
			for (const auto& m : qq.mqds)
				if (m.size() > 130) {
					qq.mqd_addrs.push_back((uint64_t(m[129]) << 32) | m[128]);
					qq.active = qq.active || (m[130] & 1);
				}
		}
	return procs;
}

json::Value mqds_json(const std::vector<MqdProcess>& procs)
{
	json::Value out = json::Value::Array{};
	for (const auto& p : procs) {
		std::map<std::string, int> by_type;
		json::Value queues = json::Value::Array{};
		for (const auto& q : p.queues) {
			++by_type[q.type];
			json::Value addrs = json::Value::Array{};
			for (uint64_t a : q.mqd_addrs)
				addrs.push(hex64(a));
			queues.push(json::Value::Object{{"type", q.type},
							{"gpu_id", q.gpu_id},
							{"mqds", uint64_t(q.mqds.size())},
							{"mqd_addrs", std::move(addrs)},
							{"active", q.active}});
		}
		json::Value types = json::Value::Object{};
		for (const auto& [t, n] : by_type)
			types.set(t, n);
		out.push(json::Value::Object{{"pid", p.pid},
					     {"pasid", p.pasid},
					     {"queues_total", uint64_t(p.queues.size())},
					     {"by_type", std::move(types)},
					     {"queues", std::move(queues)}});
	}
	return out;
}

json::Value map_mqds_to_hqds(const std::vector<MqdProcess>& procs, const HqdDump& h)
{
	json::Value out = json::Value::Array{};
	for (const auto& p : procs)
		for (size_t qi = 0; qi < p.queues.size(); ++qi)
			for (size_t x = 0; x < p.queues[qi].mqd_addrs.size(); ++x) {
				const uint64_t a = p.queues[qi].mqd_addrs[x];
				json::Value j;
				j.set("pid", p.pid);
				j.set("queue", uint64_t(qi));
				j.set("xcc", uint64_t(x));
				j.set("mqd_addr", hex64(a));
				const HqdSlot* hit = nullptr;
				for (const auto& s : h.slots)
					if (s.kind == HqdSlot::Kind::cp && s.mqd_addr == a && a != 0 &&
					    s.gpu_id == p.queues[qi].gpu_id && (!hit || s.active))
						hit = &s;
				if (hit) {
					j.set("node", hit->node);
					j.set("inst", hit->inst);
					j.set("pipe", hit->pipe);
					j.set("hqd_queue", hit->queue);
					j.set("active", hit->active);
				} else {
					j.set("node", nullptr);
				}
				out.push(std::move(j));
			}
	return out;
}

std::vector<RlNode> parse_rls(std::string_view text)
{
	std::vector<RlNode> nodes;
	std::vector<uint32_t> values;
	for_each_line(text, [&](std::string_view line, size_t no) {
		if (blank(line))
			return;
		const std::string l(line);
		uint32_t node = 0, gpu = 0, addr = 0;
		if (node_header(l, node, gpu)) {
			nodes.push_back({node, gpu, false, {}, {}});
			return;
		}
		if (nodes.empty())
			fail("rls: text before the first \"Node N, gpu_id G:\"", no, line);
		if (starts_with(l, "  No active runlist"))
			return;
		if (!hex_row(line, addr, values))
			fail("rls: unrecognised line", no, line);
		auto& ib = nodes.back().ib;
		if (addr % 4 || addr / 4 != ib.size())
			fail("rls: hex row out of sequence", no, line);
		ib.insert(ib.end(), values.begin(), values.end());
		nodes.back().active = true;
	});
	for (auto& n : nodes) {
		for (size_t i = 0; i < n.ib.size();) {
			const uint32_t h = n.ib[i];
			if (h == 0)
				break; // the unused tail of the IB
			if (h >> 30 == 2) {
				++i; // type-2 filler
				continue;
			}
			if (h >> 30 != 3)
				throw DumpParseError("rls: node " + std::to_string(n.node) + ": not a PM4 type-3 header at dword " +
						     std::to_string(i));
			const size_t len = ((h >> 16) & 0x3fff) + 2;
			RlPacket p;
			p.opcode = (h >> 8) & 0xff;
			p.dwords.assign(n.ib.begin() + long(i), n.ib.begin() + long(std::min(i + len, n.ib.size())));
			n.packets.push_back(std::move(p));
			i += len;
		}
	}
	return nodes;
}

json::Value rls_json(const std::vector<RlNode>& nodes)
{
	json::Value out = json::Value::Array{};
	for (const auto& n : nodes) {
		json::Value procs = json::Value::Array{};
		json::Value queues = json::Value::Array{};
		int n_proc = 0, n_queues = 0, run_list = 0, other = 0;
		for (const auto& p : n.packets) {
			const auto& d = p.dwords;
			if (p.opcode == 0xa1 && d.size() > 1) { // MAP_PROCESS
				++n_proc;
				procs.push(json::Value::Object{{"pasid", d[1] & 0xffff}});
			} else if (p.opcode == 0xa2 && d.size() > 4) { // MAP_QUEUES
				const uint32_t o2 = d[1];
				const uint32_t engine = (o2 >> 26) & 7;
				n_queues += int((o2 >> 29) & 7);
				queues.push(json::Value::Object{
					{"engine", engine == 0 ? "compute" : (engine == 2 || engine == 3) ? "sdma" : "other"},
					{"engine_sel", engine},
					{"extended_engine_sel", (o2 >> 2) & 3},
					{"queue_type", (o2 >> 21) & 7},
					{"num_queues", (o2 >> 29) & 7},
					{"doorbell_offset", (d[2] >> 2) & 0x3ffffff},
					{"mqd_addr", hex64((uint64_t(d[4]) << 32) | d[3])},
					{"process", n_proc - 1}});
			} else if (p.opcode == 0xa5) {
				++run_list;
			} else {
				++other;
			}
		}
		out.push(json::Value::Object{{"node", n.node},
					     {"gpu_id", n.gpu_id},
					     {"active", n.active},
					     {"ib_dwords", uint64_t(n.ib.size())},
					     {"processes", n_proc},
					     {"queues", n_queues},
					     {"chained", run_list > 0},
					     {"other_packets", other},
					     {"process_list", std::move(procs)},
					     {"queue_list", std::move(queues)}});
	}
	return out;
}

} // namespace kfdmp
