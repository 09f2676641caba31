#include "options.h"

#include <gtest/gtest.h>

using namespace kfdmp;

namespace {

Options parse(Program prog, std::vector<std::string> args)
{
	args.insert(args.begin(), "kfdmp");
	std::vector<char*> argv;
	for (auto& a : args)
		argv.push_back(a.data());
	bool help = false;
	return parse_options(prog, int(argv.size()), argv.data(), help);
}

} // namespace

TEST(Options, ParsesListsNumbersAndInlineValues)
{
	const Options o = parse(Program::launcher, {"--workload", "mixed", "--procs=2,8", "--duration", "2.5",
						    "--hw-queues", "2", "--devices", "0,1", "--kernels", "16"});
	EXPECT_EQ(o.workload, "mixed");
	EXPECT_STREQ(o.params.name, "mixed");
	EXPECT_EQ(o.procs, (std::vector<uint32_t>{2, 8}));
	EXPECT_EQ(o.duration_s, 2.5);
	EXPECT_EQ(*o.hw_queues, 2u);
	EXPECT_EQ(o.devices, (std::vector<std::string>{"0", "1"}));
	EXPECT_EQ(o.params.kernels, 16u);
}

TEST(Options, RejectsBadInputWithTheOptionNamed)
{
	for (const auto& args : std::vector<std::vector<std::string>>{{"--procs", "1,x"},
								       {"--procs", "0"},
								       {"--duration", "-1"},
								       {"--workload", "nope"},
								       {"--kernels"},
								       {"--trace=yes"},
								       {"--bogus"}}) {
		try {
			parse(Program::launcher, args);
			ADD_FAILURE() << args[0] << " accepted";
		} catch (const UsageError& e) {
			EXPECT_NE(std::string(e.what()).find(args[0].substr(0, args[0].find('='))), std::string::npos)
				<< e.what();
		}
	}
}

TEST(Options, TheBareLoopTakesOnlyWorkloadOptions)
{
	EXPECT_NO_THROW(parse(Program::bare, {"--workload", "copy", "--bytes", "4096", "--duration", "1"}));
	EXPECT_THROW(parse(Program::bare, {"--procs", "2"}), UsageError);
	EXPECT_EQ(usage_text(Program::bare, "b").find("--procs"), std::string::npos);
	EXPECT_NE(usage_text(Program::launcher, "k").find("--procs"), std::string::npos);
}

TEST(Options, AnyWorkloadNameGoesToACustomWorker)
{
	EXPECT_NO_THROW(parse(Program::launcher, {"--worker-bin", "/bin/true", "--workload", "sleep"}));
}

TEST(Options, ParsesTheIssue12Options)
{
	std::vector<std::string> args = {"kfdmp", "--mix", "latency:4,saturate:4", "--streams", "3", "--graph",
					 "--gemm", "512x256x128", "--rate", "1500.5", "--bin", "50", "--stamp-every", "0",
					 "--cu-split"};
	std::vector<char*> argv;
	for (auto& a : args)
		argv.push_back(a.data());
	bool help = false;
	const Options o = parse_options(Program::launcher, int(argv.size()), argv.data(), help);
	ASSERT_EQ(o.tenants.size(), 2u);
	EXPECT_EQ(o.tenants[1].first, "saturate");
	EXPECT_EQ(o.tenants[1].second, 4u);
	EXPECT_EQ(o.params.streams, 3u);
	EXPECT_EQ(o.params.graph, 1u);
	EXPECT_EQ(o.params.gemm_m, 512u);
	EXPECT_EQ(o.params.gemm_k, 128u);
	EXPECT_DOUBLE_EQ(o.params.rate, 1500.5);
	EXPECT_DOUBLE_EQ(o.bin_ms, 50);
	EXPECT_DOUBLE_EQ(parse(Program::launcher, {"--bin", "auto"}).bin_ms, 0); // auto
	const Options x = parse(Program::launcher, {"--cu-split-xcc", "4"});
	EXPECT_TRUE(x.cu_split);
	EXPECT_EQ(x.params.split_xccs, 4u);
	EXPECT_EQ(o.stamp_every, 0u);
	EXPECT_TRUE(o.cu_split);
}

TEST(Options, RejectsBadIssue12Values)
{
	auto fails = [](std::vector<std::string> args) {
		args.insert(args.begin(), "kfdmp");
		std::vector<char*> argv;
		for (auto& a : args)
			argv.push_back(a.data());
		bool help = false;
		try {
			parse_options(Program::launcher, int(argv.size()), argv.data(), help);
		} catch (const UsageError& e) {
			return std::string(e.what());
		}
		return std::string();
	};
	EXPECT_NE(fails({"--mix", "latency"}).find("WORKLOAD:PROCS"), std::string::npos);
	EXPECT_NE(fails({"--mix", "bogus:2"}).find("unknown workload"), std::string::npos);
	EXPECT_NE(fails({"--mix", "hsa:2"}).find("cannot be a tenant"), std::string::npos);
	EXPECT_NE(fails({"--mix", "latency:0"}).find(">= 1"), std::string::npos);
	EXPECT_NE(fails({"--gemm", "12x3"}).find("MxNxK"), std::string::npos);
	EXPECT_NE(fails({"--rate", "-1"}).find("rate > 0"), std::string::npos);
	EXPECT_NE(fails({"--bin", "0.5"}).find("at least 1 ms"), std::string::npos);
	EXPECT_NE(fails({"--cu-split", "--cus", "4"}).find("exclude"), std::string::npos);
	EXPECT_NE(fails({"--cu-split-xcc", "0"}).find("--cu-split-xcc"), std::string::npos);
	EXPECT_NE(fails({"--cu-split-xcc", "4", "--cus", "4"}).find("exclude"), std::string::npos);
	EXPECT_NE(fails({"--streams", "0"}).find(">= 1"), std::string::npos);
}


TEST(Options, TenantMode)
{
	const Options o = parse(Program::launcher, {"--critical", "latency", "--rate", "50", "--mix", "saturate:3"});
	EXPECT_EQ(o.critical, "latency");
	EXPECT_EQ(o.arms, (std::vector<std::string>{"none", "sched-kfd", "priority"}));
	EXPECT_EQ(parse(Program::launcher, {"--critical", "latency", "--rate", "5", "--mix", "saturate:1", "--arms",
					    "priority,none,priority"})
			  .arms,
		  (std::vector<std::string>{"priority", "none"}));
	for (const auto& args : std::vector<std::vector<std::string>>{
		     {"--critical", "latency", "--mix", "saturate:3"},                           // no --rate
		     {"--critical", "latency", "--rate", "50"},                                  // no --mix
		     {"--critical", "nope", "--rate", "50", "--mix", "saturate:3"},              // unknown workload
		     {"--critical", "latency", "--rate", "50", "--mix", "saturate:3", "--arms", "fast"},
		     {"--critical", "latency", "--rate", "50", "--mix", "saturate:3", "--arms", ""}})
		EXPECT_THROW(parse(Program::launcher, args), UsageError) << args[0] << " " << args.back();
}
