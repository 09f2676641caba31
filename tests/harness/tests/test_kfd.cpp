#include "kfd_probe.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <unistd.h>

using namespace kfdmp;

namespace {

const std::string fixtures = KFDMP_FIXTURES;

KfdPaths fixture_paths()
{
	KfdPaths p;
	p.sysfs = fixtures + "/sysfs/class/kfd/kfd";
	p.debugfs = fixtures + "/debugfs/kfd";
	p.kmsg = fixtures + "/no-such-kmsg";
	return p;
}

std::string value_of(const KeyValues& kv, const std::string& key)
{
	for (const auto& [k, v] : kv)
		if (k == key)
			return v;
	return "<absent>";
}

} // namespace

// The fixture's queue directories hold what kfd_procfs_queue_show() prints:
// gpuid, size and type (the number of enum kfd_queue_type).
TEST(KfdSysfs, CountsQueuesPerNamedTypeOfAProcess)
{
	const auto q = process_queues(fixture_paths(), 4242);
	ASSERT_TRUE(q);
	EXPECT_EQ(q->at("compute"), 4);
	EXPECT_EQ(q->at("sdma"), 1);
	EXPECT_EQ(q->at("sdma_xgmi"), 1);
	EXPECT_EQ(q->size(), 3u);
	const auto list = process_queue_list(fixture_paths(), 4242);
	ASSERT_TRUE(list);
	ASSERT_EQ(list->size(), 6u);
	for (const auto& e : *list) {
		EXPECT_EQ(e.gpuid.value_or(-1), 12345) << e.id;
		EXPECT_TRUE(e.size.has_value()) << e.id;
	}
}

TEST(KfdSysfs, TellsAnEmptyQueueDirectoryFromAnAbsentOne)
{
	const auto empty = process_queues(fixture_paths(), 4343);
	ASSERT_TRUE(empty);
	EXPECT_TRUE(empty->empty());
	EXPECT_FALSE(process_queues(fixture_paths(), 1));
	KfdPaths none;
	none.sysfs = "/nonexistent";
	EXPECT_FALSE(process_queues(none, 4242));
}

TEST(KfdSysfs, ParsesNodeProperties)
{
	const auto kv = parse_properties(*read_text(fixture_paths().sysfs + "/topology/nodes/1/properties"));
	EXPECT_EQ(value_of(kv, "simd_count"), "1216");
	EXPECT_EQ(value_of(kv, "gfx_target_version"), "90402");
	EXPECT_EQ(value_of(kv, "num_cp_queues"), "24");
	EXPECT_EQ(kv.size(), 9u);
}

TEST(KfdSysfs, ListsOnlyGpuNodesOfTheTopology)
{
	const json::Value nodes = gpu_topology(fixture_paths());
	ASSERT_EQ(nodes.array().size(), 1u);
	const json::Value& n = nodes.array()[0];
	EXPECT_EQ(n.at("node").string(), "1");
	EXPECT_EQ(n.at("gpu_id").number(), 12345);
	EXPECT_EQ(n.at("properties").at("num_cp_queues").number(), 24);
	KfdPaths none;
	none.sysfs = "/nonexistent";
	EXPECT_TRUE(gpu_topology(none).array().empty());
}

// Real text: /sys/class/kfd of the patched amdgpu.ko under QEMU, where KFD
// only adds the CPU node (fixtures/qemu-sysfs-kfd.txt, from scripts/qemu-smoke.sh).
TEST(KfdSysfs, QemuCaptureHasOnlyTheCpuNode)
{
	KfdPaths qemu;
	qemu.sysfs = fixtures + "/qemu-sysfs";
	const auto kv = parse_properties(*read_text(qemu.sysfs + "/topology/nodes/0/properties"));
	EXPECT_EQ(value_of(kv, "cpu_cores_count"), "1");
	EXPECT_EQ(value_of(kv, "simd_count"), "0");
	EXPECT_EQ(value_of(kv, "gfx_target_version"), "0");
	EXPECT_GT(kv.size(), 30u);
	EXPECT_TRUE(gpu_topology(qemu).array().empty());
	EXPECT_FALSE(process_queues(qemu, 1));
}

TEST(KfdDebugfs, ParsesSectionsAndPlainKeys)
{
	const auto kv = parse_sectioned("# comment: skipped\nversion: 2\nnode 1:\n  a: 5\n  b: x y\nnode 2:\n  a: 6\nno colon\n");
	ASSERT_EQ(kv.size(), 4u);
	EXPECT_EQ(value_of(kv, "version"), "2");
	EXPECT_EQ(value_of(kv, "node 1/a"), "5");
	EXPECT_EQ(value_of(kv, "node 1/b"), "x y");
	EXPECT_EQ(value_of(kv, "node 2/a"), "6");
}

TEST(KfdDebugfs, SubtractsCountersAndKeepsLevelsAsLevels)
{
	const auto before = parse_sectioned(*read_text(fixtures + "/mp_stats.before"));
	const auto after = parse_sectioned(*read_text(fixtures + "/mp_stats.after"));
	const json::Value d = deltas(before, after);
	EXPECT_EQ(d.at("node 1 gpu_id 12345/runlist_submissions").number(), 48);
	EXPECT_EQ(d.at("node 1 gpu_id 12345/oversubscribed_runlists").number(), 2);
	EXPECT_EQ(d.at("node 1 gpu_id 12345/preemptions").number(), 0);
	EXPECT_EQ(d.at("node 1 gpu_id 12345/new_counter").number(), 4);
	EXPECT_EQ(d.at("node 2 gpu_id 23456/runlist_submissions").number(), 0.5);
	EXPECT_EQ(d.find("node 1 gpu_id 12345/hws_state"), nullptr);
	EXPECT_EQ(d.find("node 1 gpu_id 12345/unmap_us_log2_hist"), nullptr);
	const json::Value l = levels(after);
	EXPECT_EQ(l.at("node 1 gpu_id 12345/hws_state").string(), "oversubscribed");
	EXPECT_EQ(l.at("node 1 gpu_id 12345/unmap_us_log2_hist").string(), "0 3 1");
	EXPECT_EQ(l.at("node 1 gpu_id 12345/firmware").string(), "0x1f");
}

// The names the series' kfd_debugfs_mp_stats_show() prints for levels.
TEST(KfdDebugfs, PeaksMaximaAndHistogramsAreLevels)
{
	const KeyValues before = {{"n/peak_active_queues", "40"}, {"n/unmap_us_max", "900"},
				  {"n/unmap_us_count", "10"}, {"n/since_reset_ms", "1000"}};
	const KeyValues after = {{"n/peak_active_queues", "24"}, {"n/unmap_us_max", "700"},
				 {"n/unmap_us_count", "15"}, {"n/since_reset_ms", "3000"}};
	const json::Value d = deltas(before, after);
	EXPECT_EQ(d.at("n/unmap_us_count").number(), 5);
	EXPECT_EQ(d.object().size(), 1u);
	const json::Value l = levels(after);
	EXPECT_EQ(l.at("n/peak_active_queues").number(), 24); // not 24 - 40
	EXPECT_EQ(l.at("n/unmap_us_max").number(), 700);
	EXPECT_EQ(l.at("n/since_reset_ms").number(), 3000);
	EXPECT_TRUE(is_level_key("node 1 gpu_id 2/unmap_us_log2_hist", "0 1"));
	EXPECT_FALSE(is_level_key("node 1 gpu_id 2/preemptions", "3"));
}

TEST(Kmsg, ExtractsTheMessageOfARecord)
{
	const auto record = *read_text(fixtures + "/kmsg-record.txt");
	EXPECT_EQ(kmsg_message(record), "amdgpu: Runlist is getting oversubscribed. Expect reduced ROCm performance.");
	EXPECT_EQ(kmsg_message("no header"), "no header");
}

TEST(Kmsg, AnUnreadableLogIsAbsentNotAnError)
{
	KmsgWatch w("/nonexistent/kmsg");
	EXPECT_FALSE(w.available());
	EXPECT_TRUE(w.matching("anything").empty());
}

TEST(KfdObserver, RecordsWhatExistsAndListsWhatIsAbsent)
{
	char dir[] = "/tmp/kfdmp-observer-XXXXXX";
	ASSERT_TRUE(mkdtemp(dir));
	KfdObserver obs(fixture_paths(), dir, "N2-r0");
	obs.during_window({4242, 1});
	const json::Value k = obs.finish();

	const auto& queues = k.at("queues").array();
	ASSERT_EQ(queues.size(), 2u);
	EXPECT_EQ(queues[0].at("total").number(), 6);
	EXPECT_EQ(queues[0].at("by_type").at("sdma").number(), 1);
	EXPECT_EQ(queues[0].at("list").array().size(), 6u);
	EXPECT_TRUE(queues[1].is_null());
	EXPECT_TRUE(k.at("oversubscribed_lines").is_null());
	EXPECT_EQ(k.at("mp_stats_delta").at("node 1 gpu_id 12345/runlist_submissions").number(), 0);
	// rls exists in the fixture, hqds and mqds do not: rls before, mid, after.
	ASSERT_EQ(k.at("snapshots").array().size(), 3u);
	EXPECT_EQ(k.at("snapshots").array()[1].string(), "kfd/N2-r0-rls-mid.txt");
	EXPECT_EQ(k.at("parsed").at("mid").at("rls").array()[0].at("processes").number(), 2);
	EXPECT_EQ(*read_text(std::string(dir) + "/kfd/N2-r0-rls-after.txt"), *read_text(fixture_paths().debugfs + "/rls"));
	EXPECT_EQ(k.at("parsed").at("after").at("rls").array()[0].at("queues").number(), 4);
	EXPECT_EQ(k.at("mp_stats_levels").at("node 1 gpu_id 12345/hws_state").string(), "running");
	const auto& absent = k.at("absent").array();
	ASSERT_EQ(absent.size(), 4u);
	EXPECT_EQ(absent[0].string(), fixture_paths().debugfs + "/hqds");
	EXPECT_EQ(absent[1].string(), fixture_paths().debugfs + "/mqds");
	EXPECT_EQ(absent[2].string(), fixture_paths().kmsg);
	EXPECT_EQ(absent[3].string(), fixture_paths().sysfs + "/proc/1/queues");
	std::filesystem::remove_all(dir);
}
