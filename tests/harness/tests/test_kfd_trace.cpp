// Tenant mode's transition latencies from the amdkfd trace (kfd_trace.h):
// the line format of the series' TP_printk strings, the pairing of each
// kfd_tenant_ctl with its unmap or runlist submit, the counts of what is
// left out, and the results.json rewrite.
#include "kfd_trace.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>
#include <vector>

using namespace kfdmp;

namespace {

const std::string fixture = std::string(KFDMP_FIXTURES) + "/trace/tenant-tracefs.txt";

KfdTrace parse_text(const std::string& text)
{
	std::istringstream in(text);
	return parse_kfd_trace(in);
}

KfdTrace fixture_trace()
{
	std::ifstream f(fixture);
	EXPECT_TRUE(f.good()) << fixture;
	KfdTrace t = parse_kfd_trace(f);
	t.file = fixture;
	return t;
}

std::string temp_dir()
{
	char dir[] = "/tmp/kfdmp-trace-test-XXXXXX";
	return mkdtemp(dir) ? dir : "";
}

void write(const std::string& path, const std::string& text)
{
	std::ofstream(path) << text;
}

// A results.json tenant section: a sched arm (daemon 4242), a none arm,
// and a failed sched arm of another repeat.
json::Value arm_doc(const char* arm, int repeat, const char* status)
{
	json::Value a;
	a.set("arm", arm);
	a.set("repeat", repeat);
	a.set("status", status);
	return a;
}

json::Value results_doc(int64_t daemon_pid = 4242)
{
	json::Value sched = arm_doc("sched", 0, "ok");
	json::Value sd;
	sd.set("log", "sched-r0.jsonl");
	if (daemon_pid)
		sd.set("daemon_pid", daemon_pid);
	sched.set("sched", sd);
	json::Value pending;
	pending.set("unavailable", "read from OUT/trace/trace.txt once the traced run has ended");
	sched.set("suspend_to_unmapped", pending);
	sched.set("resume_to_running", pending);
	sched.set("suspend_target", "unavailable: pending");
	json::Value none = arm_doc("none", 0, "ok");
	json::Value no;
	no.set("unavailable", "no suspends in the none arm");
	none.set("suspend_to_unmapped", no);
	none.set("suspend_target", "unavailable: no suspends in the none arm");
	json::Value failed = sched;
	failed.set("repeat", 1);
	failed.set("status", "failed");
	failed.set("suspend_target", "unavailable: arm failed: x");
	json::Value arms = json::Value::Array{};
	arms.push(none);
	arms.push(sched);
	arms.push(failed);
	json::Value tenant;
	tenant.set("critical", "latency");
	tenant.set("arms", arms);
	json::Value doc;
	doc.set("schema", 3);
	doc.set("tenant", tenant);
	return doc;
}

} // namespace

// Each event as the raw tracefs file prints it, and as trace-cmd report
// does (no flags column, optionally the system before the event name,
// nanoseconds with -t).
TEST(KfdTrace, ParsesTheThreeEventsInBothReportShapes)
{
	bool bad = true;
	auto e = parse_kfd_trace_line("     kfdmp-sched-4242    [001] .....   100.000480: kfd_tenant_ctl: gpu_id=43210 "
				      "op=suspend procs=2 ret=0 wait_ns=360000 duration_ns=380000",
				      bad);
	ASSERT_TRUE(e) << "malformed=" << bad;
	EXPECT_FALSE(bad);
	EXPECT_EQ(e->kind, KfdTraceEvent::tenant_ctl);
	EXPECT_EQ(e->pid, 4242);
	EXPECT_EQ(e->ts_ns, 100'000'480'000ull);
	EXPECT_EQ(e->gpu_id, 43210u);
	EXPECT_TRUE(e->suspend);
	EXPECT_EQ(e->procs, 2u);
	EXPECT_EQ(e->ret, 0);
	EXPECT_EQ(e->wait_ns, 360000u);
	EXPECT_EQ(e->duration_ns, 380000u);

	e = parse_kfd_trace_line("  kworker/u8:2-117   [003]  5678.123456789: amdkfd:kfd_unmap_queues: gpu_id=7 "
				 "filter=by_pasid filter_param=32770 ret=-62 wait_us=2000000",
				 bad);
	ASSERT_TRUE(e);
	EXPECT_EQ(e->kind, KfdTraceEvent::unmap_queues);
	EXPECT_EQ(e->pid, 117); // a comm with '-' and ':' in it: the pid follows the last '-'
	EXPECT_EQ(e->ts_ns, 5678'123'456'789ull);
	EXPECT_EQ(e->ret, -62);

	// __print_flags of no reason prints nothing: "reasons= "
	e = parse_kfd_trace_line("           <...>-99      [000] d..1.    12.000001: kfd_runlist_submit: gpu_id=1 "
				 "processes=9 active_queues=40 oversubscribed=yes reasons=processes|queues "
				 "duration_us=31 ret=0",
				 bad);
	ASSERT_TRUE(e);
	EXPECT_EQ(e->kind, KfdTraceEvent::runlist_submit);
	EXPECT_EQ(e->pid, 99);
	EXPECT_EQ(e->ts_ns, 12'000'001'000ull);

	e = parse_kfd_trace_line(" kfdmp-sched-1 [000] ..... 1.000000: kfd_tenant_ctl: gpu_id=1 op=resume procs=64 "
				 "ret=-5 wait_ns=0 duration_ns=5",
				 bad);
	ASSERT_TRUE(e);
	EXPECT_FALSE(e->suspend);
	EXPECT_EQ(e->ret, -5);
}

// The TP_printk format string of EVENT in the series' kfd_mp_trace.h.
static std::string driver_format(const std::string& event)
{
	std::ifstream f(KFDMP_TRACE_HEADER);
	std::stringstream ss;
	ss << f.rdbuf();
	const std::string h = ss.str();
	size_t at = h.find("TRACE_EVENT(" + event + ",");
	if (at == std::string::npos)
		return "";
	at = h.find("TP_printk(\"", at);
	if (at == std::string::npos)
		return "";
	at += 11;
	return h.substr(at, h.find('"', at) - at);
}

// FORMAT with each conversion (%u, %d, %llu, %s) replaced by the next of
// VALUES, as the kernel prints it; "" if their numbers differ.
static std::string render(const std::string& format, const std::vector<std::string>& values)
{
	std::string out;
	size_t n = 0;
	for (size_t i = 0; i < format.size(); i++) {
		if (format[i] != '%') {
			out += format[i];
			continue;
		}
		while (i + 1 < format.size() && std::isalpha(static_cast<unsigned char>(format[i + 1])) &&
		       format[i + 1] != 'u' && format[i + 1] != 'd' && format[i + 1] != 's')
			i++;
		i++;
		if (n == values.size())
			return "";
		out += values[n++];
	}
	return n == values.size() ? out : "";
}

// Lines made from the driver's own format strings, not from a copy of them:
// a change of a field's name, order or count in kfd_mp_trace.h fails here.
TEST(KfdTrace, ParsesLinesRenderedFromTheDriversFormats)
{
	const std::string prefix = "     kfdmp-sched-4242    [001] .....   100.000480: ";
	bool bad = true;

	std::string body = render(driver_format("kfd_tenant_ctl"),
				  {"43210", "suspend", "2", "0", "360000", "380000"});
	ASSERT_FALSE(body.empty()) << KFDMP_TRACE_HEADER << ": kfd_tenant_ctl's format has not 6 fields";
	auto e = parse_kfd_trace_line(prefix + "kfd_tenant_ctl: " + body, bad);
	ASSERT_TRUE(e) << body;
	EXPECT_FALSE(bad);
	EXPECT_EQ(e->kind, KfdTraceEvent::tenant_ctl);
	EXPECT_EQ(e->gpu_id, 43210u);
	EXPECT_TRUE(e->suspend);
	EXPECT_EQ(e->procs, 2u);
	EXPECT_EQ(e->wait_ns, 360000u);
	EXPECT_EQ(e->duration_ns, 380000u);

	body = render(driver_format("kfd_unmap_queues"), {"7", "by_pasid", "32770", "-62", "2000000"});
	ASSERT_FALSE(body.empty()) << "kfd_unmap_queues's format has not 5 fields";
	e = parse_kfd_trace_line(prefix + "kfd_unmap_queues: " + body, bad);
	ASSERT_TRUE(e) << body;
	EXPECT_EQ(e->kind, KfdTraceEvent::unmap_queues);
	EXPECT_EQ(e->gpu_id, 7u);
	EXPECT_EQ(e->ret, -62);

	body = render(driver_format("kfd_runlist_submit"),
		      {"1", "9", "40", "yes", "processes|queues", "31", "0"});
	ASSERT_FALSE(body.empty()) << "kfd_runlist_submit's format has not 7 fields";
	e = parse_kfd_trace_line(prefix + "kfd_runlist_submit: " + body, bad);
	ASSERT_TRUE(e) << body;
	EXPECT_EQ(e->kind, KfdTraceEvent::runlist_submit);
	EXPECT_EQ(e->gpu_id, 1u);
	EXPECT_EQ(e->ret, 0);
}

TEST(KfdTrace, OtherLinesAreIgnoredAndBrokenOnesCounted)
{
	bool bad = true;
	EXPECT_FALSE(parse_kfd_trace_line("# tracer: nop", bad));
	EXPECT_FALSE(bad);
	EXPECT_FALSE(parse_kfd_trace_line("  a-1 [000] ..... 1.000000: kfd_queue_create: pid=1 pasid=0x8001 gpu_id=1 "
					  "queue_id=0 type=compute doorbell_id=0 doorbell_off=0x0",
					  bad));
	EXPECT_FALSE(bad);
	EXPECT_FALSE(parse_kfd_trace_line("CPU 0 is empty", bad));
	EXPECT_FALSE(bad);
	// Each of these names an event of ours but does not read as its format.
	for (const char* line : {
		     "  a-1 [000] ..... 1.000000: kfd_tenant_ctl: gpu_id=1 op=pause procs=1 ret=0 wait_ns=1 duration_ns=1",
		     "  a-1 [000] ..... 1.000000: kfd_tenant_ctl: gpu_id=1 op=suspend procs=1 ret=0 wait_ns=1",
		     "  a-1 [000] ..... 1.000000: kfd_tenant_ctl: gpu_id=-1 op=suspend procs=1 ret=0 wait_ns=1 duration_ns=1",
		     "  a-1 [000] ..... 1.000000: kfd_unmap_queues: gpu_id=1 filter=all filter_param=0 ret=x wait_us=1",
		     "  a-1 [000] ..... 1.000000: kfd_runlist_submit: gpu_id=1 processes=1 duration_us=1 ret=0",
		     "  a-1 [000] ..... 1000: kfd_tenant_ctl: gpu_id=1 op=suspend procs=1 ret=0 wait_ns=1 duration_ns=1",
		     "  a [000] ..... 1.000000: kfd_tenant_ctl: gpu_id=1 op=suspend procs=1 ret=0 wait_ns=1 duration_ns=1",
		     "  a-1 ..... 1.000000: kfd_tenant_ctl: gpu_id=1 op=suspend procs=1 ret=0 wait_ns=1 duration_ns=1",
	     }) {
		EXPECT_FALSE(parse_kfd_trace_line(line, bad)) << line;
		EXPECT_TRUE(bad) << line;
	}
	const KfdTrace t = parse_text("CPU:1 [LOST 12 EVENTS]\n"
				      "  a-1 [000] ..... 1.000000: kfd_tenant_ctl: gpu_id=1 op=suspend\n"
				      "  a-1 [000] ..... 1.000000: kfd_unmap_queues: gpu_id=1 filter=all filter_param=0 "
				      "ret=0 wait_us=1\n");
	EXPECT_EQ(t.lost, 1u);
	EXPECT_EQ(t.malformed, 1u);
	EXPECT_NE(t.first_malformed.find("op=suspend"), std::string::npos);
	EXPECT_EQ(t.events.size(), 1u);
}

// The fixture: three suspends paired with the last kfd_unmap_queues of their
// GPU in their window, one resume with its kfd_runlist_submit; the rest left
// out and counted.
TEST(KfdTrace, PairsEachCallWithItsUnmapAndRunlistSubmit)
{
	const KfdTrace t = fixture_trace();
	EXPECT_EQ(t.malformed, 1u);
	EXPECT_EQ(t.events.size(), 18u);
	const TransitionSamples s = transition_samples(t.events, 4242);
	// 100.000100 -> 100.000420 (not the earlier submit of pid 5001);
	// 100.100000 -> 100.100600 (not the later unmap of 5001 on that GPU);
	// GPU 51234's part: 100.100650 -> 100.101100.
	ASSERT_EQ(s.suspend_ns, (std::vector<uint64_t>{320'000, 600'000, 450'000}));
	EXPECT_EQ(s.suspend.events, 5u);
	EXPECT_EQ(s.suspend.errors, 1u);   // ret=-62: the hung preemption
	EXPECT_EQ(s.suspend.no_cycle, 1u); // wait_ns=0
	EXPECT_EQ(s.suspend.unpaired, 0u);
	ASSERT_EQ(s.resume_ns, (std::vector<uint64_t>{150'000}));
	EXPECT_EQ(s.resume.events, 2u);
	EXPECT_EQ(s.resume.unpaired, 1u); // no runlist submit in its window
	// Another caller's events are not kfdmp-sched's.
	const TransitionSamples other = transition_samples(t.events, 777);
	EXPECT_EQ(other.suspend.events, 1u);
	EXPECT_EQ(other.suspend.unpaired, 1u);
	EXPECT_TRUE(transition_samples(t.events, 1).suspend_ns.empty());
}

// An unmap that failed while the call itself reported success (it cannot,
// by the patch; a trace could still show it) is not a latency.
TEST(KfdTrace, AFailedPairedEventIsLeftOutAsFailed)
{
	const KfdTrace t = parse_text(
		"  s-9 [000] ..... 1.000500: kfd_unmap_queues: gpu_id=1 filter=dynamic filter_param=0 ret=-5 wait_us=400\n"
		"  s-9 [000] ..... 1.000600: kfd_tenant_ctl: gpu_id=1 op=suspend procs=1 ret=0 wait_ns=500000 "
		"duration_ns=600000\n");
	const TransitionSamples s = transition_samples(t.events, 9);
	EXPECT_TRUE(s.suspend_ns.empty());
	EXPECT_EQ(s.suspend.errors, 1u);
}

TEST(KfdTrace, RewritesTheSchedArmsOfResultsJson)
{
	std::vector<std::string> summary;
	const json::Value doc = apply_kfd_trace(results_doc(), fixture_trace(), summary);
	const auto& arms = doc.at("tenant").at("arms").array();
	ASSERT_EQ(arms.size(), 3u);
	// none: untouched
	EXPECT_EQ(arms[0].at("suspend_target").string(), "unavailable: no suspends in the none arm");
	const json::Value& s = arms[1].at("suspend_to_unmapped");
	EXPECT_EQ(s.find("unavailable"), nullptr);
	EXPECT_NEAR(s.at("p50_us").number(), 450, 1e-9);
	EXPECT_NEAR(s.at("p99_us").number(), 450 + 0.98 * 150, 1e-9);
	EXPECT_EQ(s.at("samples").number(), 3);
	EXPECT_EQ(s.at("tenant_ctl_events").number(), 5);
	EXPECT_EQ(s.at("left_out").at("failed").number(), 1);
	EXPECT_EQ(s.at("left_out").at("no_cycle").number(), 1);
	EXPECT_EQ(s.at("left_out").at("unpaired").number(), 0);
	const json::Value& r = arms[1].at("resume_to_running");
	EXPECT_NEAR(r.at("p50_us").number(), 150, 1e-9);
	EXPECT_EQ(r.at("samples").number(), 1);
	EXPECT_EQ(r.at("left_out").at("unpaired").number(), 1);
	EXPECT_EQ(arms[1].at("suspend_target").string(), "pass"); // p99 597 us < 1 ms
	// a failed arm keeps its reason
	EXPECT_EQ(arms[2].at("suspend_target").string(), "unavailable: arm failed: x");
	const json::Value& tr = doc.at("tenant").at("trace");
	EXPECT_EQ(tr.at("status").string(), "read");
	EXPECT_EQ(tr.at("events").at("kfd_tenant_ctl").number(), 8);
	EXPECT_EQ(tr.at("events").at("kfd_unmap_queues").number(), 6);
	EXPECT_EQ(tr.at("events").at("kfd_runlist_submit").number(), 4);
	EXPECT_EQ(tr.at("tenant_ctl_of_other_callers").number(), 1);
	EXPECT_EQ(tr.at("malformed_lines").number(), 1);
	EXPECT_EQ(doc.at("schema").number(), 3); // the rest of the document stays
	ASSERT_EQ(summary.size(), 1u);
	EXPECT_NE(summary[0].find("suspend-to-unmapped p50 450 us p99 597 us (3 samples"), std::string::npos)
		<< summary[0];

	// The 1 ms target fails on a slow tail.
	TenantTargets tight;
	tight.suspend_p99_max_us = 500;
	const json::Value failed = apply_kfd_trace(results_doc(), fixture_trace(), summary, tight);
	EXPECT_EQ(failed.at("tenant").at("arms").array()[1].at("suspend_target").string(),
		  "fail: suspend-to-unmapped p99 597 us >= 500 us");
}

// Where nothing can be taken the values say why, never 0.
TEST(KfdTrace, UnavailableCasesSayWhy)
{
	const std::string dir = temp_dir();
	std::vector<std::string> summary;
	auto arm = [&](const KfdTrace& t, int64_t pid = 4242) {
		return apply_kfd_trace(results_doc(pid), t, summary).at("tenant").at("arms").array()[1];
	};

	// no trace file
	KfdTrace t = read_kfd_trace_dir(dir + "/trace");
	EXPECT_FALSE(t.available);
	json::Value a = arm(t);
	EXPECT_EQ(a.at("suspend_to_unmapped").at("unavailable").string(), "no trace in " + dir + "/trace (no trace.env, no trace.txt)");
	EXPECT_EQ(a.at("resume_to_running").find("p50_us"), nullptr);
	EXPECT_EQ(a.at("suspend_target").string().rfind("unavailable: no trace in", 0), 0u);

	// trace.sh could not trace: its reason
	write(dir + "/trace.env", "status=unavailable\nreason=tracing needs root\n");
	t = read_kfd_trace_dir(dir);
	EXPECT_EQ(arm(t).at("suspend_to_unmapped").at("unavailable").string(),
		  "the trace was not taken: tracing needs root");

	// traced, but the wrapper wrote no trace.txt
	write(dir + "/trace.env", "status=on\nmethod=tracefs\n");
	t = read_kfd_trace_dir(dir);
	EXPECT_EQ(arm(t).at("suspend_to_unmapped").at("unavailable").string(),
		  "no " + dir + "/trace.txt (the trace wrapper wrote none)");

	// a trace without tenant events (a driver without the tenant-control patch)
	write(dir + "/trace.txt", "# tracer: nop\n  a-1 [000] ..... 1.000000: kfd_unmap_queues: gpu_id=1 "
				  "filter=all filter_param=0 ret=0 wait_us=1\n");
	t = read_kfd_trace_dir(dir);
	ASSERT_TRUE(t.available);
	a = arm(t);
	EXPECT_EQ(a.at("suspend_to_unmapped").at("unavailable").string(),
		  "no kfd_tenant_ctl op=suspend event of kfdmp-sched (pid 4242) in " + dir +
			  "/trace.txt (0 kfd_tenant_ctl events in all)");
	EXPECT_EQ(a.at("suspend_to_unmapped").find("tenant_ctl_events"), nullptr);

	// events, none usable: the counts say why
	write(dir + "/trace.txt", "  s-4242 [000] ..... 1.000000: kfd_tenant_ctl: gpu_id=1 op=suspend procs=1 ret=-62 "
				  "wait_ns=1 duration_ns=1\n"
				  "  s-4242 [000] ..... 2.000000: kfd_tenant_ctl: gpu_id=1 op=suspend procs=1 ret=0 "
				  "wait_ns=0 duration_ns=1\n");
	t = read_kfd_trace_dir(dir);
	a = arm(t);
	EXPECT_EQ(a.at("suspend_to_unmapped").at("unavailable").string(),
		  "none of the 2 kfd_tenant_ctl op=suspend events of kfdmp-sched (pid 4242) is usable: 1 failed, "
		  "1 ran no preemption cycle, 0 had no kfd_unmap_queues on their GPU between their entry and the event");
	EXPECT_EQ(a.at("suspend_to_unmapped").at("tenant_ctl_events").number(), 2);

	// results.json without the daemon's pid (an older harness)
	a = arm(t, 0);
	EXPECT_EQ(a.at("suspend_to_unmapped").at("unavailable").string(),
		  "results.json names no kfdmp-sched pid (sched.daemon_pid) to find its events by");

	// no tenant section: unchanged
	json::Value plain;
	plain.set("schema", 3);
	EXPECT_EQ(json::dump(apply_kfd_trace(plain, t, summary)), json::dump(plain));
	std::filesystem::remove_all(dir);
}

// The kernel resuming a released /dev/kfd file's suspensions (the daemon
// killed) emits kfd_tenant_ctl op=resume with duration_ns 0, after that
// resume's own runlist submit: not a resume-to-running sample of 0 us, even
// when the submit reads within the microsecond before it.
TEST(KfdTrace, AReleasedFilesResumeIsNotALatency)
{
	const KfdTrace t = parse_text(
		"  s-9 [000] ..... 2.000100: kfd_runlist_submit: gpu_id=1 processes=3 active_queues=9 "
		"oversubscribed=no reasons= duration_us=12 ret=0\n"
		"  s-9 [000] ..... 2.000100: kfd_tenant_ctl: gpu_id=1 op=resume procs=1 ret=0 wait_ns=90000 "
		"duration_ns=0\n");
	ASSERT_EQ(t.malformed, 0u);
	const TransitionSamples s = transition_samples(t.events, 9);
	EXPECT_TRUE(s.resume_ns.empty());
	EXPECT_EQ(s.resume.events, 1u);
	EXPECT_EQ(s.resume.unpaired, 1u);
}

// Real kfd_tenant_ctl lines (fixtures/trace/real/kfd_tenant_ctl-*.txt),
// where they exist: every tenant-control line parses. A node-less QEMU load
// cannot emit it (kfd_tenant_step() fires it only for a SUSPEND or RESUME
// applied on a GPU, kfd_tenant_release() only for a suspension given back,
// and without a GPU every such call is refused first), so the first will
// come from a box run's OUT/trace/trace.txt.
TEST(KfdTrace, ParsesRealCaptures)
{
	const std::string dir = std::string(KFDMP_FIXTURES) + "/trace/real";
	size_t files = 0;
	std::error_code ec;
	for (const auto& f : std::filesystem::directory_iterator(dir, ec)) {
		const std::string name = f.path().filename().string();
		if (name.rfind("kfd_tenant_ctl-", 0) != 0)
			continue;
		++files;
		std::ifstream in(f.path());
		const KfdTrace t = parse_kfd_trace(in);
		EXPECT_EQ(t.malformed, 0u) << name << ": " << t.first_malformed;
		size_t ctl = 0;
		for (const auto& e : t.events)
			ctl += e.kind == KfdTraceEvent::tenant_ctl;
		EXPECT_GT(ctl, 0u) << name;
	}
	if (files == 0)
		GTEST_SKIP() << "no real capture of amdkfd:kfd_tenant_ctl yet (" << dir
			     << "/kfd_tenant_ctl-*.txt): it needs a GPU; a QEMU load without one cannot emit it";
}

// The testbox's synthetic sample (tests/testbox/make-sample.py, trace-cmd
// report shape: a "cpus=" header, no flags column) reads without a
// malformed line; it has no tenant event.
TEST(KfdTrace, ReadsTheTestboxSampleInTraceCmdShape)
{
	const std::string file =
		std::string(KFDMP_FIXTURES) + "/../../testbox/sample/configs/graph/latency/trace/trace.txt";
	std::ifstream f(file);
	if (!f)
		GTEST_SKIP() << "no " << file;
	const KfdTrace t = parse_kfd_trace(f);
	EXPECT_EQ(t.malformed, 0u) << t.first_malformed;
	ASSERT_FALSE(t.events.empty());
	EXPECT_EQ(t.events[0].kind, KfdTraceEvent::unmap_queues);
	EXPECT_EQ(t.events[0].gpu_id, 53241u);
	// The sample is regenerated with the matrix (tests/testbox/make-sample.py):
	// the first event's time is read from the file, not written here.
	std::ifstream again(file);
	uint64_t first_ts = 0;
	for (std::string line; first_ts == 0 && std::getline(again, line);) {
		const auto colon = line.find(": kfd_");
		const auto sp = colon == std::string::npos ? colon : line.rfind(' ', colon);
		if (sp != std::string::npos) {
			const std::string ts = line.substr(sp + 1, colon - sp - 1);
			const auto dot = ts.find('.');
			first_ts = std::stoull(ts.substr(0, dot)) * 1000000000ull + std::stoull(ts.substr(dot + 1)) * 1000ull;
		}
	}
	EXPECT_EQ(t.events[0].ts_ns, first_ts);
	EXPECT_TRUE(transition_samples(t.events, t.events[0].pid).suspend_ns.empty());
}
