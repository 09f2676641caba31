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
