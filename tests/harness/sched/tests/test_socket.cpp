// The critical tenants' signal: unix datagrams with the sender's pid.
#include "signal_socket.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <thread>
#include <fstream>
#include <gtest/gtest.h>
#include <unistd.h>

using namespace kfdmp::sched;

namespace {

std::string temp_path(const char* name)
{
	return "/tmp/kfdmp-sched-test-" + std::to_string(getpid()) + "-" + name;
}

} // namespace

TEST(SignalSocket, CarriesBusyIdleAndTheSendersPid)
{
	std::string path = temp_path("sock");
	SignalSocket s(path);
	EXPECT_FALSE(s.receive().has_value());
	CriticalNotifier n(path);
	ASSERT_EQ(n.busy(), 0);
	ASSERT_EQ(n.idle(), 0);
	ASSERT_EQ(n.send("hello"), 0);
	auto a = s.receive();
	ASSERT_TRUE(a.has_value());
	EXPECT_TRUE(a->valid && a->busy);
	EXPECT_EQ(a->pid, getpid());
	EXPECT_GT(a->sent_ns, 0) << "busy() stamps the datagram";
	EXPECT_LE(a->sent_ns, to_ns(SteadyClock().now()));
	auto b = s.receive();
	ASSERT_TRUE(b.has_value());
	EXPECT_TRUE(b->valid);
	EXPECT_FALSE(b->busy);
	auto c = s.receive();
	ASSERT_TRUE(c.has_value());
	EXPECT_FALSE(c->valid);
	EXPECT_EQ(c->text, "hello");
	ASSERT_EQ(n.send("busy"), 0); // the stamp is optional
	ASSERT_EQ(n.send("idle soon"), 0);
	auto d = s.receive();
	ASSERT_TRUE(d.has_value());
	EXPECT_TRUE(d->valid && d->busy);
	EXPECT_EQ(d->sent_ns, -1);
	auto e = s.receive();
	ASSERT_TRUE(e.has_value());
	EXPECT_FALSE(e->valid);
}

TEST(SignalSocket, RefusesToReplaceAFileThatIsNotASocket)
{
	std::string path = temp_path("file");
	std::ofstream(path) << "data";
	EXPECT_THROW(SignalSocket s(path), std::runtime_error);
	std::ifstream in(path);
	std::string kept;
	in >> kept;
	EXPECT_EQ(kept, "data");
	unlink(path.c_str());
}

TEST(SignalSocket, NotifierWithoutADaemonGetsAnError)
{
	CriticalNotifier n(temp_path("nobody"));
	int e = n.busy();
	EXPECT_TRUE(e == ENOENT || e == ECONNREFUSED) << e;
}

TEST(SignalSocket, ABurstLosesNoTransitionWhileTheDaemonReads)
{
	// net.unix.max_dgram_qlen is often 10: a burst beyond it waits (at most
	// 10 ms a send) for the daemon to read instead of being dropped.
	std::string path = temp_path("burst");
	SignalSocket s(path);
	std::atomic<int> got{0};
	std::atomic<bool> done{false};
	std::thread reader([&] {
		while (!done) {
			while (s.receive())
				got++;
			std::this_thread::sleep_for(std::chrono::microseconds(500));
		}
		while (s.receive())
			got++;
	});
	CriticalNotifier n(path);
	int failed = 0;
	for (int i = 0; i < 50; i++)
		failed += (i % 2 ? n.idle() : n.busy()) != 0;
	std::this_thread::sleep_for(std::chrono::milliseconds(20));
	done = true;
	reader.join();
	EXPECT_EQ(failed, 0);
	EXPECT_EQ(got.load(), 50);
}
