// The debugfs parsers against the driver's real output: the MI308X captures
// in ../shared/reference/real (beside the repository; CI has them there).
// The tests skip, saying so, when the captures are absent.
#include "json.h"
#include "kfd_dump.h"
#include "kfd_probe.h"

#include <gtest/gtest.h>

#include <map>
#include <sstream>

using namespace kfdmp;

namespace {

const std::string real_dir = KFDMP_REAL_CAPTURES;
const std::string hqds_file = real_dir + "/mi308x-hqds-active-5queues.txt";
const std::string mqds_file = real_dir + "/mi308x-mqds-active-5queues.txt";

#define REQUIRE_CAPTURE(path, text)                                                                  \
	const auto text = read_text(path);                                                          \
	if (!text)                                                                                  \
		GTEST_SKIP() << "real capture " << path << " not found (../shared beside the repository)"

const json::Value& node_of(const json::Value& hq, double node)
{
	for (const auto& n : hq.at("nodes").array())
		if (n.at("node").number() == node)
			return n;
	throw std::runtime_error("no node " + std::to_string(node));
}

// The capture as an idle GPU would print it: every CP slot's CP_HQD_ACTIVE
// (third register of the slot's first row) cleared, addresses left as they
// are, which is what the driver shows after the queues are unmapped.
std::string without_active_bits(const std::string& text)
{
	std::istringstream in(text);
	std::string out, line;
	bool first_row = false;
	while (std::getline(in, line)) {
		if (first_row) {
			// "    %08x: %08x %08x %08x ..." -> third value at column 32
			EXPECT_EQ(line.substr(12, 2), ": ");
			line.replace(32, 8, "00000000");
			first_row = false;
		}
		first_row = line.find(",  CP Pipe ") != std::string::npos;
		out += line + "\n";
	}
	return out;
}

} // namespace

TEST(Hqds, RealCaptureHas20ActiveComputeHqdsOnNode2FivePerXcc)
{
	REQUIRE_CAPTURE(hqds_file, text);
	const HqdDump d = parse_hqds(*text);
	ASSERT_EQ(d.nodes.size(), 8u);
	const json::Value j = hqds_json(d);
	EXPECT_EQ(j.at("cp_active").number(), 20);
	const json::Value& n2 = node_of(j, 2);
	EXPECT_EQ(n2.at("gpu_id").number(), 0xf7bc);
	EXPECT_EQ(n2.at("cp_active").number(), 20);
	EXPECT_EQ(n2.at("cp_slots").number(), 4 * 24); // 4 XCCs x 24 CP slots (pipes 0-3, queues 2-7)
	for (const char* inst : {"0", "1", "2", "3"})
		EXPECT_EQ(n2.at("cp_active_by_inst").at(inst).number(), 5) << "XCC instance " << inst;
	EXPECT_EQ(n2.at("hiq").number(), 4);
	EXPECT_EQ(n2.at("hiq_active").number(), 4);
	EXPECT_EQ(n2.at("sdma_slots").number(), 64);
	// RB_ENABLE stays set on 7 RLC queues of engine 1 although the process
	// has no SDMA queue in the mqds capture: counted, not called active.
	EXPECT_EQ(n2.at("sdma_rb_enabled").number(), 7);
	for (double node = 3; node <= 9; ++node)
		EXPECT_EQ(node_of(j, node).at("cp_active").number(), 0) << "node " << node;
}

TEST(Hqds, RealRegisterRowsAreReadByAddress)
{
	REQUIRE_CAPTURE(hqds_file, text);
	const HqdDump d = parse_hqds(*text);
	// Node 2, Inst 0, CP Pipe 0, Queue 2 (lines 10-17 of the capture)
	const HqdSlot* s = nullptr;
	for (const auto& x : d.slots)
		if (x.node == 2 && x.kind == HqdSlot::Kind::cp && x.inst == 0 && x.pipe == 0 && x.queue == 2)
			s = &x;
	ASSERT_NE(s, nullptr);
	ASSERT_EQ(s->regs.size(), 56u); // CP_MQD_BASE_ADDR .. CP_HQD_PQ_WPTR_HI
	EXPECT_EQ(s->regs.front().first, 0xc914u);
	EXPECT_EQ(s->regs[2].first, 0xc91cu); // CP_HQD_ACTIVE = CP_MQD_BASE_ADDR + 2 registers
	EXPECT_EQ(s->regs[2].second, 1u);
	EXPECT_TRUE(s->active);
	EXPECT_EQ(s->mqd_addr, 0x17ba000u);
}

TEST(Hqds, IdleGpuHasNoActiveHqdAlthoughAddressesStay)
{
	REQUIRE_CAPTURE(hqds_file, text);
	const std::string idle = without_active_bits(*text);
	const json::Value busy = hqds_json(parse_hqds(*text));
	const json::Value j = hqds_json(parse_hqds(idle));
	EXPECT_EQ(j.at("cp_active").number(), 0);
	const json::Value& n2 = node_of(j, 2);
	EXPECT_EQ(n2.at("cp_active").number(), 0);
	EXPECT_EQ(n2.at("cp_nonzero_mqd_addr").number(), node_of(busy, 2).at("cp_nonzero_mqd_addr").number());
	EXPECT_GE(n2.at("cp_nonzero_mqd_addr").number(), 20);
	EXPECT_EQ(n2.at("hiq_active").number(), 4); // the HIQ rows were left alone
}

TEST(Hqds, RejectsALayoutTheDriverDoesNotPrint)
{
	EXPECT_THROW(parse_hqds("Node 1, gpu_id 3039:\n  Inst 0,  XCC 0, Pipe 0, Queue 0\n"), DumpParseError);
	EXPECT_THROW(parse_hqds("    0000c914: 00000001\n"), DumpParseError);
	const HqdDump stopped = parse_hqds("Node 1, gpu_id 3039:\n Device is stopped\n");
	ASSERT_EQ(stopped.nodes.size(), 1u);
	EXPECT_TRUE(stopped.nodes[0].stopped);
	EXPECT_TRUE(stopped.slots.empty());
}

TEST(Mqds, RealCaptureHasOneProcessWithFiveComputeQueuesOfFourXccs)
{
	REQUIRE_CAPTURE(mqds_file, text);
	const auto procs = parse_mqds(*text);
	ASSERT_EQ(procs.size(), 1u);
	EXPECT_EQ(procs[0].pid, 94314);
	size_t compute = 0;
	for (const auto& q : procs[0].queues)
		if (q.type == "compute") {
			++compute;
			EXPECT_EQ(q.gpu_id, 0xf7bcu);
			EXPECT_EQ(q.mqds.size(), 4u); // one MQD per XCC
			EXPECT_TRUE(q.active);
		}
	EXPECT_EQ(compute, 5u);
	EXPECT_EQ(procs[0].queues[0].mqd_addrs.front(), 0x17ba000u);
}

TEST(Mqds, EveryRealMqdMapsToAnActiveHqdOnNode2)
{
	REQUIRE_CAPTURE(mqds_file, mtext);
	REQUIRE_CAPTURE(hqds_file, htext);
	const json::Value map = map_mqds_to_hqds(parse_mqds(*mtext), parse_hqds(*htext));
	ASSERT_EQ(map.array().size(), 20u);
	std::map<int, int> per_inst;
	for (const auto& m : map.array()) {
		ASSERT_FALSE(m.at("node").is_null()) << json::dump(m, 0);
		EXPECT_EQ(m.at("node").number(), 2);
		EXPECT_TRUE(m.at("active").boolean());
		EXPECT_EQ(m.at("inst").number(), m.at("xcc").number()); // MQD of XCC x sits on instance x
		++per_inst[int(m.at("inst").number())];
	}
	EXPECT_EQ(per_inst.size(), 4u);
}

TEST(Mqds, ReadsThe612PasidFormatAndRejectsUnknownLines)
{
	const auto p = parse_mqds("Process 12 PASID 0x8001:\n  SDMA queue on device 3039\n    00000000: 00000001 00000002\n");
	ASSERT_EQ(p.size(), 1u);
	EXPECT_EQ(p[0].pasid, 0x8001u);
	ASSERT_EQ(p[0].queues.size(), 1u);
	EXPECT_EQ(p[0].queues[0].type, "sdma");
	EXPECT_EQ(p[0].queues[0].mqds.at(0).size(), 2u);
	EXPECT_THROW(parse_mqds("Process 12 PASID 1:\n  Something else\n"), DumpParseError);
}

// fixtures/debugfs/kfd/rls: a runlist IB laid out as pm_map_process_v9()
// and pm_map_queues_v9() write it (16- and 7-dword type-3 packets), printed
// as pm_debugfs_runlist()'s seq_hex_dump() does; node 2 has no runlist.
TEST(Rls, ParsesProcessesAndQueuesOfARunlist)
{
	const auto nodes = parse_rls(*read_text(std::string(KFDMP_FIXTURES) + "/debugfs/kfd/rls"));
	ASSERT_EQ(nodes.size(), 2u);
	const json::Value j = rls_json(nodes);
	const auto& n1 = j.array()[0];
	EXPECT_TRUE(n1.at("active").boolean());
	EXPECT_EQ(n1.at("processes").number(), 2);
	EXPECT_EQ(n1.at("queues").number(), 4);
	EXPECT_FALSE(n1.at("chained").boolean());
	EXPECT_EQ(n1.at("process_list").array()[1].at("pasid").number(), 0x8002);
	const auto& q = n1.at("queue_list").array();
	ASSERT_EQ(q.size(), 4u);
	EXPECT_EQ(q[0].at("engine").string(), "compute");
	EXPECT_EQ(q[0].at("mqd_addr").string(), "0x1017ba000");
	EXPECT_EQ(q[0].at("doorbell_offset").number(), 0x1000);
	EXPECT_EQ(q[2].at("engine").string(), "sdma");
	EXPECT_EQ(q[3].at("process").number(), 1);
	EXPECT_FALSE(j.array()[1].at("active").boolean());
	EXPECT_THROW(parse_rls("Node 1, gpu_id 1:\n  00000004: c0001000\n"), DumpParseError);
	EXPECT_THROW(parse_rls("Node 1, gpu_id 1:\n  00000000: 12345678\n"), DumpParseError);
}

TEST(SysfsQueues, NamesTheNumericQueueTypes)
{
	EXPECT_EQ(queue_type_name(0), "compute");
	EXPECT_EQ(queue_type_name(1), "sdma");
	EXPECT_EQ(queue_type_name(4), "sdma_xgmi");
	EXPECT_EQ(queue_type_name(5), "sdma_by_eng_id");
	EXPECT_EQ(queue_type_name(9), "type_9");
}
