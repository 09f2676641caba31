#include "report.h"

#include "stats.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <map>
#include <unistd.h>

namespace kfdmp {
namespace {

double us(uint64_t ns) { return double(ns) / 1000.0; }

Latency latency_of(std::vector<uint64_t> v)
{
	Latency l;
	l.p50_us = percentile(v, 50) / 1000.0;
	l.p99_us = percentile(v, 99) / 1000.0;
	l.p999_us = percentile(v, 99.9) / 1000.0;
	l.max_us = v.empty() ? NAN : double(v.back()) / 1000.0; // sorted by percentile()
	return l;
}

RunMetrics metrics_of(const LaunchResult& r, uint64_t bin_ns)
{
	RunMetrics m{};
	std::vector<uint64_t> all;
	std::vector<std::vector<QueryRecord>> records;
	std::vector<std::vector<KernelStamp>> stamps;
	for (const auto& w : r.workers) {
		records.push_back(w.records);
		stamps.push_back(w.stamps);
	}
	uint64_t unrecorded = 0;
	for (const auto& w : r.workers)
		unrecorded += w.records_dropped;
	m.win = window_metrics(records, r.window_begin_ns, r.window_end_ns, bin_ns, unrecorded);
	m.gpu = gpu_breakdown(stamps, records, r.window_begin_ns, r.window_end_ns);
	m.qps = m.win.aggregate_qps;
	std::vector<double> qps;
	uint64_t first_min = UINT64_MAX, first_max = 0;
	for (size_t i = 0; i < r.workers.size(); ++i) {
		const auto& w = r.workers[i];
		WorkerMetrics wm{};
		wm.qps = i < m.win.workers.size() ? m.win.workers[i].qps : 0;
		wm.lat = latency_of(w.latencies_ns);
		wm.start_offset_us = w.first_query_ns ? us(w.first_query_ns - r.release_ns) : NAN;
		if (w.first_query_ns) {
			first_min = std::min(first_min, w.first_query_ns);
			first_max = std::max(first_max, w.first_query_ns);
		}
		all.insert(all.end(), w.latencies_ns.begin(), w.latencies_ns.end());
		qps.push_back(wm.qps);
		m.workers.push_back(wm);
		m.work_rate += w.work_per_query * wm.qps;
		if (m.peak_rate == 0 && w.peak_work_rate > 0) {
			m.peak_rate = w.peak_work_rate;
			m.work_unit = w.work_unit;
		}
	}
	m.jain = jain_index(qps);
	m.skew_us = first_max >= first_min ? us(first_max - first_min) : NAN;
	m.lat = latency_of(all);
	m.ratio = NAN;

	// Tenants of a --mix run: workers grouped by workload, in order of appearance.
	std::vector<std::string> names;
	for (const auto& w : r.workers)
		if (std::find(names.begin(), names.end(), w.workload) == names.end())
			names.push_back(w.workload);
	if (names.size() > 1)
		for (const auto& name : names) {
			TenantMetrics t;
			t.workload = name;
			std::vector<uint64_t> lat;
			std::vector<double> tq;
			for (size_t i = 0; i < r.workers.size(); ++i)
				if (r.workers[i].workload == name) {
					++t.procs;
					t.qps += m.workers[i].qps;
					tq.push_back(m.workers[i].qps);
					lat.insert(lat.end(), r.workers[i].latencies_ns.begin(), r.workers[i].latencies_ns.end());
				}
			t.qps_per_proc = t.qps / t.procs;
			t.jain = jain_index(tq);
			t.lat = latency_of(lat);
			t.solo_qps = t.ratio = NAN;
			m.tenants.push_back(t);
		}

	// Device time per query, where every worker reports it.
	GpuTimeMetrics& g = m.gpu_time;
	for (const auto& w : r.workers)
		if (!w.gpu_time && g.reason.empty())
			g.reason = "worker " + std::to_string(w.index) + " (" + w.workload +
				   ") reports no per-query GPU time (exec: `kfdmp 1 ready gpu_time=1`)";
	if (r.workers.empty())
		g.reason = "no worker ran";
	if (g.reason.empty()) {
		std::vector<uint64_t> wait;
		double gpu_sum = 0, wait_sum = 0;
		for (const auto& w : r.workers)
			for (const auto& q : w.records)
				if (q.start_ns >= r.window_begin_ns && q.start_ns < r.window_end_ns) {
					const uint64_t lat = q.end_ns - q.start_ns;
					const uint64_t wt = lat > q.gpu_ns ? lat - q.gpu_ns : 0;
					wait.push_back(wt);
					gpu_sum += double(q.gpu_ns);
					wait_sum += double(wt);
				}
		g.queries = wait.size();
		if (wait.empty()) {
			g.reason = "no query started in the window";
		} else {
			g.available = true;
			g.mean_gpu_us = gpu_sum / double(wait.size()) / 1000.0;
			g.host_wait_mean_us = wait_sum / double(wait.size()) / 1000.0;
			g.host_wait_p50_us = percentile(wait, 50) / 1000.0;
			g.host_wait_p99_us = percentile(wait, 99) / 1000.0;
		}
	}

	m.status = "ok";
	if (r.interrupted)
		m.status = "interrupted";
	else if (std::any_of(r.workers.begin(), r.workers.end(), [](auto& w) { return w.status == "unavailable"; }) ||
		 std::any_of(r.idle.begin(), r.idle.end(), [](auto& w) { return w.status == "unavailable"; }))
		m.status = "unavailable"; // an idle process (--idle-procs) without a GPU skips the arm too
	else if (!r.ok())
		m.status = "failed";
	if (m.status != "ok") {
		m.reason = r.error;
		for (const auto& w : r.workers)
			if (w.status != "ok" && w.status != "aborted") {
				m.reason += (m.reason.empty() ? "" : "; ") + std::string("worker ") +
					    std::to_string(w.index) + " " + w.status + ": " + w.detail;
				break;
			}
	}
	return m;
}

json::Value num_or_null(double d) { return std::isfinite(d) ? json::Value(d) : json::Value(); }

json::Value latency_json(const Latency& l)
{
	return json::Value::Object{{"p50", num_or_null(l.p50_us)},
				   {"p99", num_or_null(l.p99_us)},
				   {"p99.9", num_or_null(l.p999_us)},
				   {"max", num_or_null(l.max_us)}};
}

json::Value uint_array(const std::vector<uint32_t>& v)
{
	json::Value a = json::Value::Array{};
	for (uint32_t x : v)
		a.push(x);
	return a;
}

json::Value gpu_json(const GpuBreakdown& g, const LossSplit& l)
{
	json::Value j;
	j.set("available", g.available);
	j.set("reason", g.reason);
	j.set("stamped_kernels", g.kernels);
	j.set("stamped_queries", g.stamped_queries);
	j.set("queries", g.queries);
	j.set("sampled_s", g.sampled_s);
	j.set("any_kernel_resident_fraction", num_or_null(g.available ? g.any_resident_fraction : NAN));
	j.set("concurrency", num_or_null(g.available ? g.concurrency : NAN));
	j.set("mean_kernel_us", num_or_null(g.kernels ? g.mean_kernel_us : NAN));
	j.set("mean_gap_us", num_or_null(g.mean_gap_us));
	j.set("mean_submit_us", num_or_null(g.mean_submit_us));
	j.set("stamp_overhead_pct", num_or_null(g.stamp_overhead_pct));
	j.set("kernel_inflation", num_or_null(g.kernel_inflation));
	j.set("submit_to_start_us", num_or_null(g.submit_to_start_us));
	j.set("in_query_gap_us", num_or_null(g.in_query_gap_us));
	j.set("not_resident_fraction", num_or_null(g.not_resident_fraction));
	json::Value procs = json::Value::Array{};
	for (const auto& p : g.procs) {
		json::Value pj;
		pj.set("stamped_kernels", p.kernels);
		pj.set("stamped_queries", p.queries);
		pj.set("mean_kernel_us", num_or_null(p.mean_kernel_us));
		pj.set("kernel_inflation", num_or_null(p.kernel_inflation));
		pj.set("query_us", num_or_null(p.query_us));
		pj.set("submit_to_start_us", num_or_null(p.submit_to_start_us));
		pj.set("resident_us", num_or_null(p.resident_us));
		pj.set("in_query_gap_us", num_or_null(p.in_query_gap_us));
		pj.set("end_to_host_us", num_or_null(p.end_to_host_us));
		pj.set("not_resident_fraction", num_or_null(p.not_resident_fraction));
		procs.push(std::move(pj));
	}
	j.set("per_process", std::move(procs));
	json::Value loss;
	loss.set("idle_factor", num_or_null(l.idle_factor));
	loss.set("overlap_factor", num_or_null(l.overlap_factor));
	loss.set("kernel_slowdown", num_or_null(l.slowdown));
	loss.set("model_ratio", num_or_null(l.model_ratio));
	loss.set("idle_share", num_or_null(l.idle_share));
	loss.set("contention_share", num_or_null(l.contention_share));
	j.set("vs_1_process", std::move(loss));
	return j;
}

json::Value gpu_time_json(const GpuTimeMetrics& g)
{
	json::Value j;
	if (!g.available) {
		j.set("unavailable", g.reason);
		return j;
	}
	j.set("queries", g.queries);
	j.set("mean_gpu_us", g.mean_gpu_us);
	j.set("kernel_time_inflation", std::isfinite(g.inflation) ? json::Value(g.inflation)
								   : json::Value("unavailable: no ok 1-process run of this workload with GPU time"));
	json::Value w;
	w.set("mean", g.host_wait_mean_us);
	w.set("p50", g.host_wait_p50_us);
	w.set("p99", g.host_wait_p99_us);
	j.set("host_wait_us", std::move(w));
	return j;
}

json::Value worker_json(const WorkerOutcome& w, const WorkerMetrics& m, const WorkerWindow* win)
{
	json::Value j;
	j.set("index", w.index);
	j.set("pid", int64_t(w.pid));
	j.set("assigned_device", w.assigned_device);
	j.set("device", w.device);
	j.set("status", w.status);
	j.set("detail", w.detail);
	j.set("workload", w.workload);
	j.set("queries", w.queries);
	j.set("window_queries", win ? win->completions : 0);
	j.set("qps", m.qps);
	j.set("span_qps", win ? win->span_qps : 0.0);
	j.set("latency_us", latency_json(m.lat));
	j.set("latency_samples", uint64_t(w.latencies_ns.size()));
	j.set("records_dropped", w.records_dropped);
	j.set("series", win ? uint_array(win->bins) : json::Value::Array{});
	j.set("starved_bins", win ? uint_array(win->starved_bins) : json::Value::Array{});
	j.set("start_offset_us", num_or_null(m.start_offset_us));
	return j;
}

} // namespace

std::string utc_timestamp()
{
	char buf[32];
	const time_t t = time(nullptr);
	tm tm{};
	strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
	return buf;
}

namespace {

json::Value config_json(const Options& o)
{
	const WorkloadParams& p = o.params;
	json::Value c;
	c.set("workload", o.workload);
	json::Value procs = json::Value::Array{};
	for (uint32_t n : o.procs)
		procs.push(n);
	c.set("procs", std::move(procs));
	c.set("repeat", o.repeat);
	c.set("duration_s", o.duration_s);
	c.set("warmup_s", o.warmup_s);
	json::Value params;
	params.set("kernels", p.kernels);
	params.set("iters", p.iters);
	params.set("blocks", p.blocks);
	params.set("threads", p.threads);
	params.set("bytes", p.bytes);
	params.set("cus", p.cus);
	params.set("hsa_queues", p.hsa_queues);
	params.set("streams", p.streams);
	params.set("graph", p.graph != 0);
	params.set("gemm_m", p.gemm_m);
	params.set("gemm_n", p.gemm_n);
	params.set("gemm_k", p.gemm_k);
	params.set("rate", p.rate);
	params.set("stamp_capacity", p.stamp_capacity);
	c.set("params", std::move(params));
	c.set("mix", o.mix);
	c.set("cu_split", o.cu_split);
	c.set("cu_split_xccs", o.params.split_xccs);
	c.set("bin_ms", o.bin_ms > 0 ? json::Value(o.bin_ms) : json::Value("auto"));
	c.set("stamp_every", o.stamp_every);
	c.set("hw_queues", o.hw_queues ? json::Value(*o.hw_queues) : json::Value());
	json::Value devices = json::Value::Array{};
	for (const auto& d : o.devices)
		devices.push(d);
	c.set("devices", std::move(devices));
	json::Value env;
	for (const char* var : {"CUDA_MPS_PIPE_DIRECTORY", "CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES",
				"ROCR_VISIBLE_DEVICES", "GPU_MAX_HW_QUEUES", "HSA_OVERRIDE_GFX_VERSION"}) {
		const char* v = getenv(var);
		env.set(var, v ? json::Value(v) : json::Value());
	}
	c.set("environment", std::move(env));
	json::Value exec = json::Value::Object{};
	for (const auto& [name, cmd] : o.exec_commands)
		exec.set(name, cmd);
	c.set("exec", std::move(exec));
	c.set("cpu_threads", o.cpu_threads);
	c.set("pin", o.pin);
	c.set("idle_procs", o.idle_procs);
	return c;
}

} // namespace

void compute_metrics(std::vector<Run>& runs, uint64_t bin_ns)
{
	// Per workload: the ok 1-process runs alone (a --mix run starts with one
	// per tenant workload). Ratios, the loss split and kernel inflation are
	// against the same workload alone, never a mean over workloads.
	struct Solo {
		std::vector<double> qps;
		GpuBreakdown gpu; // mean of the available breakdowns
		uint32_t n_gpu = 0;
		double gpu_time_us = 0; // sum of the runs' mean per-query GPU time
		uint32_t n_gpu_time = 0;
	};
	std::map<std::string, Solo> solo;
	for (auto& r : runs) {
		r.m = metrics_of(r.launch, bin_ns);
		if (!r.skipped.empty()) { // an arm the workload cannot take: never run as stock
			r.m.status = "unavailable";
			r.m.reason = r.skipped;
		}
		if (r.procs == 1 && r.m.status == "ok" && r.tenant_mix.empty() && !r.launch.workers.empty()) {
			Solo& s = solo[r.launch.workers[0].workload];
			s.qps.push_back(r.m.qps);
			if (r.m.gpu_time.available) {
				s.gpu_time_us += r.m.gpu_time.mean_gpu_us;
				++s.n_gpu_time;
			}
			if (r.m.gpu.available) {
				s.gpu.available = true;
				s.gpu.any_resident_fraction += r.m.gpu.any_resident_fraction;
				s.gpu.concurrency += r.m.gpu.concurrency;
				s.gpu.mean_kernel_us += r.m.gpu.mean_kernel_us;
				++s.n_gpu;
			}
		}
	}
	for (auto& [name, s] : solo)
		if (s.n_gpu) {
			s.gpu.any_resident_fraction /= s.n_gpu;
			s.gpu.concurrency /= s.n_gpu;
			s.gpu.mean_kernel_us /= s.n_gpu;
		}
	for (auto& r : runs) {
		if (r.launch.workers.empty())
			continue;
		const std::string& first = r.launch.workers[0].workload;
		if (r.m.status == "ok" && r.tenant_mix.empty() && solo.count(first))
			r.m.ratio = ratio(r.m.qps, spread(solo[first].qps).mean);
		if (r.m.gpu_time.available && r.tenant_mix.empty() && solo.count(first) && solo[first].n_gpu_time)
			r.m.gpu_time.inflation = r.m.gpu_time.mean_gpu_us / (solo[first].gpu_time_us / solo[first].n_gpu_time);
		// The loss split compares whole runs of one workload; a mix has
		// no single 1-process run to compare with (its tenants have
		// per-process inflation instead).
		r.m.loss = loss_split(r.tenant_mix.empty() && solo.count(first) ? solo[first].gpu : GpuBreakdown{}, r.m.gpu);
		std::vector<double> solo_kernel;
		for (const auto& w : r.launch.workers)
			solo_kernel.push_back(solo.count(w.workload) && solo[w.workload].n_gpu ? solo[w.workload].gpu.mean_kernel_us
												: NAN);
		set_kernel_inflation(r.m.gpu, solo_kernel);
		for (auto& t : r.m.tenants) {
			t.solo_qps = solo.count(t.workload) ? spread(solo[t.workload].qps).mean : NAN;
			t.ratio = ratio(t.qps_per_proc, t.solo_qps);
			double sum = 0;
			uint64_t n = 0;
			for (size_t i = 0; i < r.launch.workers.size() && i < r.m.gpu.procs.size(); ++i) {
				const auto& p = r.m.gpu.procs[i];
				if (r.launch.workers[i].workload == t.workload && std::isfinite(p.kernel_inflation)) {
					sum += p.kernel_inflation * double(p.kernels);
					n += p.kernels;
				}
			}
			t.kernel_inflation = n ? sum / double(n) : NAN;
		}
	}
}

json::Value to_json(const Options& o, const std::string& backend, const std::string& started_at,
		    const json::Value& topology, const json::Value& environment, const std::vector<Run>& runs)
{
	json::Value doc;
	doc.set("schema_version", schema_version);
	doc.set("tool", "kfdmp");
	doc.set("backend", backend);
	char host[256] = "";
	gethostname(host, sizeof host - 1);
	doc.set("host", host);
	doc.set("started_at", started_at);
	doc.set("config", config_json(o));
	doc.set("environment", environment);
	doc.set("kfd_topology", topology);

	json::Value jruns = json::Value::Array{};
	std::map<uint32_t, std::vector<const Run*>> by_procs;
	for (const auto& r : runs) {
		json::Value j;
		j.set("procs", r.procs);
		j.set("repeat", r.repeat);
		j.set("mix", r.tenant_mix);
		j.set("workload", r.workload);
		j.set("arm", r.arm);
		if (!r.arms.is_null())
			j.set("arms", r.arms);
		if (!r.tenant_role.empty()) {
			j.set("tenant_role", r.tenant_role);
			if (!r.tenant_arm.empty())
				j.set("tenant_arm", r.tenant_arm);
		}
		j.set("status", r.m.status);
		j.set("reason", r.m.reason);
		j.set("aggregate_qps", r.m.qps);
		j.set("sum_of_worker_span_qps", r.m.win.sum_of_span_qps);
		j.set("scaling_ratio", num_or_null(r.m.ratio));
		j.set("jain_index", num_or_null(r.m.jain));
		j.set("start_skew_us", num_or_null(r.m.skew_us));
		j.set("latency_us", latency_json(r.m.lat));
		json::Value win;
		win.set("length_s", r.m.win.window_s);
		win.set("bin_ms", double(r.m.win.bin_ns) / 1e6);
		win.set("expected_per_worker_bin", r.m.win.expected_per_bin);
		win.set("judged", r.m.win.judged);
		win.set("bin_auto", r.m.win.auto_bin);
		win.set("unrecorded_queries", r.m.win.unrecorded);
		win.set("aggregate_is_lower_bound", r.m.win.unrecorded > 0);
		win.set("total_series", uint_array(r.m.win.total_bins));
		win.set("stalled_bins", uint_array(r.m.win.stalled_bins));
		win.set("any_starved", r.m.win.any_starved());
		j.set("window", std::move(win));
		j.set("gpu", gpu_json(r.m.gpu, r.m.loss));
		j.set("gpu_time", gpu_time_json(r.m.gpu_time));
		json::Value work;
		work.set("unit", r.m.work_unit);
		work.set("achieved_per_s", r.m.work_rate);
		work.set("peak_per_s", r.m.peak_rate > 0 ? json::Value(r.m.peak_rate) : json::Value());
		work.set("fraction_of_peak", r.m.peak_rate > 0 ? json::Value(r.m.work_rate / r.m.peak_rate) : json::Value());
		j.set("work", std::move(work));
		json::Value tenants = json::Value::Array{};
		for (const auto& t : r.m.tenants) {
			json::Value tj;
			tj.set("workload", t.workload);
			tj.set("procs", t.procs);
			tj.set("qps", t.qps);
			tj.set("qps_per_proc", t.qps_per_proc);
			tj.set("jain_index", num_or_null(t.jain));
			tj.set("latency_us", latency_json(t.lat));
			tj.set("solo_qps", num_or_null(t.solo_qps));
			tj.set("ratio_per_proc_to_solo", num_or_null(t.ratio));
			tj.set("kernel_inflation", num_or_null(t.kernel_inflation));
			tenants.push(std::move(tj));
		}
		j.set("tenants", std::move(tenants));
		json::Value workers = json::Value::Array{};
		for (size_t i = 0; i < r.launch.workers.size(); ++i)
			workers.push(worker_json(r.launch.workers[i], r.m.workers[i],
						 i < r.m.win.workers.size() ? &r.m.win.workers[i] : nullptr));
		j.set("workers", std::move(workers));
		json::Value idle = json::Value::Array{};
		for (const auto& w : r.launch.idle) {
			json::Value iw;
			iw.set("index", w.index);
			iw.set("pid", int64_t(w.pid));
			iw.set("status", w.status);
			iw.set("detail", w.detail);
			iw.set("device", w.device);
			idle.push(std::move(iw));
		}
		j.set("idle_workers", std::move(idle));
		j.set("kfd", r.kfd);
		jruns.push(std::move(j));
		if (r.m.status == "ok")
			by_procs[r.procs].push_back(&r);
	}
	doc.set("runs", std::move(jruns));

	json::Value summary = json::Value::Array{};
	const double base = by_procs.count(1) ? [&] {
		std::vector<double> q;
		for (const Run* r : by_procs[1])
			if (r->tenant_mix.empty())
				q.push_back(r->m.qps);
		return spread(q).mean;
	}() : NAN;
	for (const auto& [procs, rs] : by_procs) {
		std::vector<double> qps, busy, conc, kern, gap, sub, slow, idle_sh, cont_sh, model, infl, s2s, notres;
		std::vector<double> gt_infl, gt_wait, gt_gpu;
		uint32_t starved = 0;
		for (const Run* r : rs) {
			qps.push_back(r->m.qps);
			starved += r->m.win.any_starved();
			if (r->m.gpu_time.available) {
				gt_gpu.push_back(r->m.gpu_time.mean_gpu_us);
				gt_wait.push_back(r->m.gpu_time.host_wait_mean_us);
				if (std::isfinite(r->m.gpu_time.inflation))
					gt_infl.push_back(r->m.gpu_time.inflation);
			}
			if (r->m.gpu.available) {
				busy.push_back(r->m.gpu.any_resident_fraction);
				infl.push_back(r->m.gpu.kernel_inflation);
				s2s.push_back(r->m.gpu.submit_to_start_us);
				notres.push_back(r->m.gpu.not_resident_fraction);
				conc.push_back(r->m.gpu.concurrency);
				kern.push_back(r->m.gpu.mean_kernel_us);
				gap.push_back(r->m.gpu.mean_gap_us);
				sub.push_back(r->m.gpu.mean_submit_us);
				slow.push_back(r->m.loss.slowdown);
				idle_sh.push_back(r->m.loss.idle_share);
				cont_sh.push_back(r->m.loss.contention_share);
				model.push_back(r->m.loss.model_ratio);
			}
		}
		const Spread s = spread(qps);
		auto mean = [](const std::vector<double>& v) { return num_or_null(spread(v).mean); };
		json::Value j;
		j.set("procs", procs);
		j.set("runs", uint64_t(qps.size()));
		j.set("qps_mean", s.mean);
		j.set("qps_min", s.min);
		j.set("qps_max", s.max);
		j.set("spread_pct", num_or_null(s.spread_pct));
		j.set("scaling_ratio", num_or_null(ratio(s.mean, base)));
		j.set("runs_with_starved_worker", starved);
		j.set("any_kernel_resident_fraction", mean(busy));
		j.set("kernel_inflation", mean(infl));
		j.set("submit_to_start_us", mean(s2s));
		j.set("not_resident_fraction", mean(notres));
		j.set("concurrency", mean(conc));
		j.set("mean_kernel_us", mean(kern));
		j.set("kernel_slowdown", mean(slow));
		j.set("mean_gap_us", mean(gap));
		j.set("mean_submit_us", mean(sub));
		j.set("model_ratio", mean(model));
		j.set("idle_share", mean(idle_sh));
		j.set("contention_share", mean(cont_sh));
		if (gt_gpu.size() == qps.size()) {
			j.set("mean_gpu_us", mean(gt_gpu));
			j.set("gpu_time_inflation", mean(gt_infl));
			j.set("host_wait_mean_us", mean(gt_wait));
		} else {
			const std::string why = "unavailable: not every run reports per-query GPU time (see runs[].gpu_time)";
			j.set("mean_gpu_us", why);
			j.set("gpu_time_inflation", why);
			j.set("host_wait_mean_us", why);
		}
		summary.push(std::move(j));
	}
	doc.set("summary", std::move(summary));
	return doc;
}

void print_table(std::FILE* out, const std::vector<Run>& runs)
{
	std::fprintf(out, "%5s %3s %-11s %12s %7s %6s %9s %10s %10s %6s %6s %7s %6s %8s %6s %7s\n", "procs", "rep",
		     "status", "agg_qps", "ratio", "jain", "skew_us", "p50_us", "p99_us", "anyres", "conc", "slow", "infl",
		     "s2s_us", "notres", "starve");
	for (const auto& r : runs) {
		std::fprintf(out, "%5u %3u %-11s %12.1f %7.3f %6.3f %9.1f %10.1f %10.1f %6.3f %6.2f %7.3f %6.3f %8.1f %6.3f %7s\n",
			     r.procs, r.repeat, r.m.status.c_str(), r.m.qps, r.m.ratio, r.m.jain, r.m.skew_us,
			     r.m.lat.p50_us, r.m.lat.p99_us, r.m.gpu.available ? r.m.gpu.any_resident_fraction : NAN,
			     r.m.gpu.available ? r.m.gpu.concurrency : NAN, r.m.loss.slowdown,
			     r.m.gpu.available ? r.m.gpu.kernel_inflation : NAN,
			     r.m.gpu.available ? r.m.gpu.submit_to_start_us : NAN,
			     r.m.gpu.available ? r.m.gpu.not_resident_fraction : NAN,
			     !r.m.win.judged ? "n/j" : r.m.win.any_starved() ? "yes" : "no");
		if (r.m.win.unrecorded)
			std::fprintf(out, "      %llu queries ran but were not recorded (--latency-samples): agg_qps is a lower bound\n",
				     (unsigned long long)r.m.win.unrecorded);
		for (const auto& t : r.m.tenants)
			std::fprintf(out, "      tenant %-10s procs=%u qps=%.1f per_proc=%.1f ratio_to_solo=%.3f "
					  "kernel_inflation=%.3f p50=%.1f p99=%.1f us\n",
				     t.workload.c_str(), t.procs, t.qps, t.qps_per_proc, t.ratio, t.kernel_inflation,
				     t.lat.p50_us, t.lat.p99_us);
		if (r.m.gpu_time.available) // the command's own per-query GPU time (exec: done gpu_ns=)
			std::fprintf(out, "      gpu time per query %.1f us (x%.3f of 1 process), host-side wait mean %.1f p50 %.1f "
					  "p99 %.1f us\n",
				     r.m.gpu_time.mean_gpu_us, r.m.gpu_time.inflation, r.m.gpu_time.host_wait_mean_us,
				     r.m.gpu_time.host_wait_p50_us, r.m.gpu_time.host_wait_p99_us);
		if (!r.m.reason.empty())
			std::fprintf(out, "      %s\n", r.m.reason.c_str());
	}
}

void write_csv(const std::string& path, const std::vector<Run>& runs)
{
	std::ofstream f(path);
	f << "workload,arm,procs,repeat,status,aggregate_qps,scaling_ratio,jain_index,start_skew_us,p50_us,p99_us,"
	     "oversubscribed_lines,any_kernel_resident_fraction,concurrency,mean_kernel_us,kernel_slowdown,mean_gap_us,"
	     "mean_submit_us,starved,mean_gpu_us,gpu_time_inflation,host_wait_mean_us\n";
	auto csv_text = [](const std::string& v) {
		if (v.find_first_of(",\"\n") == std::string::npos)
			return v;
		std::string q = "\"";
		for (char c : v)
			q += c == '"' ? std::string("\"\"") : std::string(1, c);
		return q + "\"";
	};
	for (const auto& r : runs) {
		const GpuTimeMetrics& g = r.m.gpu_time;
		f << csv_text(r.workload) << ',' << csv_text(r.arm) << ',';
		const json::Value* lines = r.kfd.find("oversubscribed_lines");
		f << r.procs << ',' << r.repeat << ',' << r.m.status << ',' << r.m.qps << ',' << r.m.ratio << ','
		  << r.m.jain << ',' << r.m.skew_us << ',' << r.m.lat.p50_us << ',' << r.m.lat.p99_us << ','
		  << (lines && lines->is_array() ? std::to_string(lines->array().size()) : "") << ','
		  << (r.m.gpu.available ? r.m.gpu.any_resident_fraction : NAN) << ','
		  << (r.m.gpu.available ? r.m.gpu.concurrency : NAN) << ',' << r.m.gpu.mean_kernel_us << ','
		  << r.m.loss.slowdown << ',' << r.m.gpu.mean_gap_us << ',' << r.m.gpu.mean_submit_us << ','
		  << (r.m.win.any_starved() ? 1 : 0) << ',' << (g.available ? g.mean_gpu_us : NAN) << ','
		  << g.inflation << ',' << (g.available ? g.host_wait_mean_us : NAN) << '\n';
	}
}

std::string write_plot(const std::string& dir, const std::string& title, const std::vector<Run>& runs)
{
	std::map<uint32_t, std::vector<const Run*>> by_procs;
	for (const auto& r : runs)
		if (r.m.status == "ok" && r.tenant_mix.empty())
			by_procs[r.procs].push_back(&r);
	if (by_procs.empty())
		return "plot: skipped, no successful run";
	auto mean_of = [](const std::vector<const Run*>& rs, auto f) {
		std::vector<double> v;
		for (const Run* r : rs)
			if (r->m.gpu.available)
				v.push_back(f(*r));
		return spread(v).mean;
	};
	// The largest N's last run: its per-worker time series.
	const Run* last = by_procs.rbegin()->second.back();
	{
		std::ofstream dat(dir + "/qps.dat");
		dat << "# procs mean_qps min_qps max_qps any_kernel_resident_fraction concurrency kernel_slowdown\n";
		for (const auto& [procs, rs] : by_procs) {
			std::vector<double> qps;
			for (const Run* r : rs)
				qps.push_back(r->m.qps);
			const Spread s = spread(qps);
			dat << procs << ' ' << s.mean << ' ' << s.min << ' ' << s.max << ' '
			    << mean_of(rs, [](const Run& r) { return r.m.gpu.any_resident_fraction; }) << ' '
			    << mean_of(rs, [](const Run& r) { return r.m.gpu.concurrency; }) << ' '
			    << mean_of(rs, [](const Run& r) { return r.m.loss.slowdown; }) << '\n';
		}
		std::ofstream gp(dir + "/qps.gp");
		gp << "set terminal pngcairo size 800,500\n"
		   << "set output 'qps.png'\n"
		   << "set title '" << title << "'\n"
		   << "set xlabel 'processes'\nset ylabel 'aggregate queries/s'\n"
		   << "set logscale x 2\nset key left top\nset grid\nset yrange [0:*]\n"
		   << "plot 'qps.dat' using 1:2:3:4 with yerrorlines title 'aggregate QPS in the common window (min/max over repeats)'";
		if (by_procs.count(1)) {
			std::vector<double> q1;
			for (const Run* r : by_procs[1])
				q1.push_back(r->m.qps);
			gp << ", " << spread(q1).mean << " with lines dashtype 2 title '1 process (ratio 1.0)'";
		}
		gp << "\n";
		const bool have_gpu = std::any_of(runs.begin(), runs.end(), [](const Run& r) { return r.m.gpu.available; });
		if (have_gpu)
			gp << "set output 'breakdown.png'\n"
			   << "set title 'where the throughput goes (GPU-stamped kernels)'\n"
			   << "set ylabel 'fraction / factor'\nset yrange [0:*]\n"
			   << "plot 'qps.dat' using 1:5 with linespoints title 'some kernel resident (fraction)', "
			   << "'' using 1:6 with linespoints title 'kernel concurrency', "
			   << "'' using 1:7 with linespoints title 'kernel time vs 1 process'\n";
		std::ofstream sd(dir + "/series.dat");
		sd << "# bin_ms then completions per bin of each worker: " << last->procs << " processes, repeat "
		   << last->repeat << "\n";
		const auto& w = last->m.win;
		for (size_t b = 0; b < w.total_bins.size(); ++b) {
			sd << double(b) * double(w.bin_ns) / 1e6;
			for (const auto& wk : w.workers)
				sd << ' ' << wk.bins[b];
			sd << '\n';
		}
		gp << "set output 'series.png'\n"
		   << "set title 'completions per " << double(w.bin_ns) / 1e6 << " ms bin, " << last->procs
		   << " processes (repeat " << last->repeat << ")'\n"
		   << "set xlabel 'ms into the window'\nset ylabel 'queries'\nunset logscale x\nset key outside right\n"
		   << "plot for [i=2:" << (w.workers.size() + 1)
		   << "] 'series.dat' using 1:i with steps title sprintf('worker %d', i-2)\n";
	}
	if (std::system("command -v gnuplot >/dev/null 2>&1") != 0)
		return "plot: skipped, gnuplot not found (data and script are in qps.dat, series.dat and qps.gp)";
	const std::string cmd = "cd '" + dir + "' && gnuplot qps.gp";
	return std::system(cmd.c_str()) == 0 ? "plot: " + dir + "/{qps,series}.png" + (std::any_of(runs.begin(), runs.end(), [](const Run& r) { return r.m.gpu.available; }) ? " and breakdown.png" : "") : "plot: gnuplot failed";
}

// Tenant mode's report (tenant_reports, tenant_json, print_tenant_table) is in tenant.cpp.

} // namespace kfdmp
