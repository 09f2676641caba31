// The clients for services outside the harness (client/): the C header, as a
// C program and from C++, against the daemon's socket.
#include "kfdmp_sched_client.h"
#include "signal_socket.h"

#include <chrono>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace kfdmp::sched;

namespace {

std::vector<Report> drain_socket(SignalSocket& s)
{
	std::vector<Report> out;
	for (int i = 0; i < 200 && out.size() < 16; i++) {
		while (auto r = s.receive())
			out.push_back(*r);
		if (!out.empty() && i > 20)
			break;
		std::this_thread::sleep_for(std::chrono::milliseconds(5));
	}
	return out;
}

} // namespace

TEST(ClientC, TheProgramSendsOnlyTheTransitionsWithItsPid)
{
	std::string path = "/tmp/kfdmp-sched-client-" + std::to_string(getpid()) + ".sock";
	SignalSocket s(path);
	pid_t child = fork();
	if (child == 0) {
		execl(KFDMP_SCHED_CLIENT_C, KFDMP_SCHED_CLIENT_C, path.c_str(), (char*)nullptr);
		_exit(127);
	}
	int st = 0;
	waitpid(child, &st, 0);
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(WEXITSTATUS(st), 0) << "a return value was not as expected";
	auto rs = drain_socket(s);
	ASSERT_EQ(rs.size(), 2u);
	EXPECT_TRUE(rs[0].valid && rs[0].busy);
	EXPECT_TRUE(rs[1].valid && !rs[1].busy);
	EXPECT_EQ(rs[0].pid, child);
	EXPECT_GT(rs[0].sent_ns, 0);
	EXPECT_GE(rs[1].sent_ns, rs[0].sent_ns);
}

TEST(ClientC, WithoutADaemonItSaysSoAndGoesOn)
{
	kfdmp_sched_client c;
	ASSERT_EQ(kfdmp_sched_client_open(&c, "/tmp/kfdmp-sched-nobody-listens.sock"), 0);
	EXPECT_EQ(kfdmp_sched_begin(&c), ENOENT);
	EXPECT_EQ(c.outstanding, 1);
	EXPECT_EQ(kfdmp_sched_end(&c), ENOENT);
	EXPECT_EQ(kfdmp_sched_end(&c), EINVAL);
	kfdmp_sched_client_close(&c);
	std::string longp(200, 'x');
	EXPECT_EQ(kfdmp_sched_client_open(&c, longp.c_str()), EINVAL);
}
