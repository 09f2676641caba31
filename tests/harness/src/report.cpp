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

	m.status = "ok";
	if (r.interrupted)
		m.status = "interrupted";
	else if (std::any_of(r.workers.begin(), r.workers.end(), [](auto& w) { return w.status == "unavailable"; }))
		m.status = "unavailable";
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
	};
	std::map<std::string, Solo> solo;
	for (auto& r : runs) {
		r.m = metrics_of(r.launch, bin_ns);
		if (r.procs == 1 && r.m.status == "ok" && r.tenant_mix.empty() && !r.launch.workers.empty()) {
			Solo& s = solo[r.launch.workers[0].workload];
			s.qps.push_back(r.m.qps);
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
		uint32_t starved = 0;
		for (const Run* r : rs) {
			qps.push_back(r->m.qps);
			starved += r->m.win.any_starved();
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
		if (!r.m.reason.empty())
			std::fprintf(out, "      %s\n", r.m.reason.c_str());
	}
}

void write_csv(const std::string& path, const std::vector<Run>& runs)
{
	std::ofstream f(path);
	f << "procs,repeat,status,aggregate_qps,scaling_ratio,jain_index,start_skew_us,p50_us,p99_us,"
	     "oversubscribed_lines,any_kernel_resident_fraction,concurrency,mean_kernel_us,kernel_slowdown,mean_gap_us,"
	     "mean_submit_us,starved\n";
	for (const auto& r : runs) {
		const json::Value* lines = r.kfd.find("oversubscribed_lines");
		f << r.procs << ',' << r.repeat << ',' << r.m.status << ',' << r.m.qps << ',' << r.m.ratio << ','
		  << r.m.jain << ',' << r.m.skew_us << ',' << r.m.lat.p50_us << ',' << r.m.lat.p99_us << ','
		  << (lines && lines->is_array() ? std::to_string(lines->array().size()) : "") << ','
		  << (r.m.gpu.available ? r.m.gpu.any_resident_fraction : NAN) << ','
		  << (r.m.gpu.available ? r.m.gpu.concurrency : NAN) << ',' << r.m.gpu.mean_kernel_us << ','
		  << r.m.loss.slowdown << ',' << r.m.gpu.mean_gap_us << ',' << r.m.gpu.mean_submit_us << ','
		  << (r.m.win.any_starved() ? 1 : 0) << '\n';
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

namespace {

// (workload, mean QPS per process) over workers first.. of a run, in the
// order the workloads first appear.
std::vector<std::pair<std::string, double>> mean_qps_per_workload(const Run& r, size_t first)
{
	std::vector<std::pair<std::string, double>> sum;
	std::vector<uint32_t> n;
	for (size_t i = first; i < r.launch.workers.size() && i < r.m.workers.size(); ++i) {
		const std::string& w = r.launch.workers[i].workload;
		size_t k = 0;
		while (k < sum.size() && sum[k].first != w)
			++k;
		if (k == sum.size()) {
			sum.emplace_back(w, 0.0);
			n.push_back(0);
		}
		sum[k].second += r.m.workers[i].qps;
		++n[k];
	}
	for (size_t k = 0; k < sum.size(); ++k)
		sum[k].second /= n[k];
	return sum;
}

// kfdmp-sched's log: suspend/resume decisions and their latency_us, and
// the shutdown line's left_suspended (-1: no shutdown line).
int64_t read_sched_log(const std::string& path, TenantArmInput& in)
{
	std::ifstream f(path);
	int64_t left = -1;
	for (std::string line; std::getline(f, line);) {
		json::Value v;
		try {
			v = json::parse(line);
		} catch (const std::exception&) {
			continue;
		}
		const json::Value* ev = v.find("event");
		if (!ev || !ev->is_string())
			continue;
		const std::string& e = ev->string();
		if (e == "shutdown") {
			const json::Value* l = v.find("left_suspended");
			left = l && l->is_number() ? int64_t(l->number()) : -1;
		}
		if (e != "suspend" && e != "resume")
			continue;
		const json::Value* res = v.find("result");
		if (!res || !res->is_string() || res->string() != "ok")
			continue;
		++(e == "suspend" ? in.suspends : in.resumes);
		const json::Value* lat = v.find("latency_us");
		if (lat && lat->is_number())
			in.decision_ns.push_back(uint64_t(lat->number() * 1000));
	}
	return left;
}

} // namespace

std::vector<TenantReport> tenant_reports(const std::vector<Run>& runs,
					 const std::vector<std::pair<uint32_t, TenantArmInput>>& skipped,
					 const std::vector<std::string>& arms, const std::string& transition_reason)
{
	std::vector<TenantReport> out;
	uint32_t repeats = 0;
	for (const Run& r : runs)
		if (!r.tenant_role.empty())
			repeats = std::max(repeats, r.repeat + 1);
	for (const auto& [rep, in] : skipped)
		repeats = std::max(repeats, rep + 1);
	for (uint32_t rep = 0; rep < repeats; ++rep) {
		TenantAlone alone;
		for (const Run& r : runs) {
			if (r.repeat != rep || r.m.status != "ok" || r.launch.workers.empty())
				continue;
			if (r.tenant_role == "critical_alone")
				alone.critical_ns = r.launch.workers[0].latencies_ns;
			else if (r.tenant_role == "best_effort_alone")
				alone.be_qps = mean_qps_per_workload(r, 0);
		}
		for (const std::string& arm : arms) {
			TenantArmInput in;
			in.arm = arm;
			bool found = false;
			for (const auto& [srep, s] : skipped)
				if (srep == rep && s.arm == arm) {
					in = s;
					found = true;
				}
			for (const Run& r : runs) {
				if (found || r.repeat != rep || r.tenant_role != "arm" || r.tenant_arm != arm)
					continue;
				found = true;
				in.status = r.m.status == "ok" ? "ok" : "failed";
				in.reason = r.m.reason;
				if (!r.launch.error.empty() && r.launch.error.find("not supported") != std::string::npos)
					in.status = "skipped"; // the daemon's probe: the driver lacks the interface
				if (arm == "sched" && in.status == "ok") {
					in.sched_log = r.sched_log;
					const int64_t left = read_sched_log(r.sched_log, in);
					if (r.sched_status != 0) {
						in.status = "failed";
						in.reason = "kfdmp-sched exited with status " + std::to_string(r.sched_status) +
							    " (" + r.sched_log + ")";
					} else if (left != 0) {
						in.status = "failed";
						in.reason = left < 0 ? "kfdmp-sched wrote no shutdown line (" + r.sched_log + ")"
								     : "kfdmp-sched left " + std::to_string(left) +
									       " tenants suspended";
					}
				}
				if (in.status != "ok")
					continue;
				in.critical_ns = r.launch.workers[0].latencies_ns;
				in.critical_qps = r.m.workers.empty() ? NAN : r.m.workers[0].qps;
				in.be_qps = mean_qps_per_workload(r, 1);
				if (arm == "sched") {
					in.transition_reason = transition_reason;
					in.sched_pid = r.sched_pid;
				}
			}
			if (!found) {
				in.status = "failed";
				in.reason = "not run (an earlier run stopped the invocation)";
			}
			out.push_back({rep, judge_tenant_arm(alone, in)});
		}
	}
	return out;
}

namespace {

json::Value percentiles_json(const Percentiles& p)
{
	json::Value v;
	v.set("p50_us", p.p50_us);
	v.set("p99_us", p.p99_us);
	v.set("p999_us", p.p999_us);
	v.set("samples", p.samples);
	return v;
}

} // namespace

json::Value transition_json(const Transition& t)
{
	json::Value v;
	if (!t.available) {
		v.set("unavailable", t.reason);
	} else {
		v.set("p50_us", t.p50_us);
		v.set("p99_us", t.p99_us);
		v.set("samples", t.samples);
	}
	if (t.counts.events) {
		v.set("tenant_ctl_events", t.counts.events);
		json::Value left;
		left.set("failed", t.counts.errors);
		left.set("no_cycle", t.counts.no_cycle);
		left.set("unpaired", t.counts.unpaired);
		v.set("left_out", left);
	}
	return v;
}

json::Value tenant_json(const Options& o, const std::vector<TenantReport>& reports)
{
	const TenantTargets t;
	json::Value doc;
	doc.set("critical", o.critical);
	doc.set("rate_per_s", o.params.rate);
	doc.set("best_effort", o.mix);
	json::Value targets;
	targets.set("critical_p99_ratio_max", t.p99_ratio_max);
	targets.set("best_effort_kept_min", t.be_kept_min);
	targets.set("suspend_p99_max_us", t.suspend_p99_max_us);
	doc.set("targets", targets);
	json::Value arms = json::Value::Array{};
	for (const TenantReport& rep : reports) {
		const TenantArmResult& r = rep.r;
		json::Value a;
		a.set("arm", r.arm);
		a.set("repeat", rep.repeat);
		a.set("status", r.status);
		if (!r.reason.empty())
			a.set("reason", r.reason);
		a.set("critical_alone", percentiles_json(r.alone));
		a.set("critical", percentiles_json(r.critical));
		a.set("critical_p99_ratio", r.p99_ratio);
		a.set("critical_qps", r.critical_qps);
		json::Value be = json::Value::Array{};
		for (const BestEffortKept& k : r.best_effort) {
			json::Value b;
			b.set("workload", k.workload);
			b.set("qps", k.qps);
			b.set("alone_qps", k.alone_qps);
			b.set("kept", k.kept);
			be.push(b);
		}
		a.set("best_effort", be);
		a.set("best_effort_kept_min", r.be_kept_min);
		if (r.arm == "sched" && r.status == "ok") {
			json::Value sd;
			sd.set("log", r.sched_log);
			sd.set("daemon_pid", r.sched_pid);
			sd.set("suspends", r.suspends);
			sd.set("resumes", r.resumes);
			sd.set("decision_latency", percentiles_json(r.decision));
			a.set("sched", sd);
		}
		a.set("suspend_to_unmapped", transition_json(r.suspend));
		a.set("resume_to_running", transition_json(r.resume));
		a.set("latency_target", r.latency_target);
		a.set("suspend_target", r.suspend_target);
		arms.push(a);
	}
	doc.set("arms", arms);
	return doc;
}

namespace {

std::string transition_text(const Transition& t)
{
	if (!t.available)
		return "unavailable: " + t.reason;
	char buf[128];
	std::snprintf(buf, sizeof buf, "p50 %.0f us, p99 %.0f us (%llu samples)", t.p50_us, t.p99_us,
		      (unsigned long long)t.samples);
	return buf;
}

} // namespace

void print_tenant_table(std::FILE* out, const Options& o, const std::vector<TenantReport>& reports)
{
	std::fprintf(out, "\ntenant mode: critical %s at %.1f/s beside %s (targets: p99 <= %.1fx alone, "
			  "best-effort kept >= %.1f, suspend p99 < %.0f us)\n",
		     o.critical.c_str(), o.params.rate, o.mix.c_str(), TenantTargets{}.p99_ratio_max,
		     TenantTargets{}.be_kept_min, TenantTargets{}.suspend_p99_max_us);
	std::fprintf(out, "%-8s %3s %8s %9s %9s %9s %9s %7s %8s  %s\n", "arm", "rep", "crit_qps", "alone_p99", "p50_us",
		     "p99_us", "p999_us", "p99/alo", "be_kept", "targets");
	for (const TenantReport& rep : reports) {
		const TenantArmResult& r = rep.r;
		if (r.status != "ok") {
			std::fprintf(out, "%-8s %3u %s: %s\n", r.arm.c_str(), rep.repeat, r.status.c_str(), r.reason.c_str());
			continue;
		}
		std::fprintf(out, "%-8s %3u %8.1f %9.0f %9.0f %9.0f %9.0f %7.2f %8.2f  latency %s; suspend %s\n",
			     r.arm.c_str(), rep.repeat, r.critical_qps, r.alone.p99_us, r.critical.p50_us, r.critical.p99_us, r.critical.p999_us,
			     r.p99_ratio, r.be_kept_min, r.latency_target.c_str(), r.suspend_target.c_str());
		if (r.arm == "sched")
			std::fprintf(out, "         kfdmp-sched: %llu suspends, %llu resumes, decision latency p50 %.0f us, "
					  "p99 %.0f us (%s)\n",
				     (unsigned long long)r.suspends, (unsigned long long)r.resumes, r.decision.p50_us,
				     r.decision.p99_us, r.sched_log.c_str());
		if (r.arm == "sched" && !r.suspend.available && !r.resume.available && r.suspend.reason == r.resume.reason)
			std::fprintf(out, "         suspend-to-unmapped, resume-to-running: %s\n",
				     transition_text(r.suspend).c_str());
		else if (r.arm == "sched")
			std::fprintf(out, "         suspend-to-unmapped: %s; resume-to-running: %s\n",
				     transition_text(r.suspend).c_str(), transition_text(r.resume).c_str());
	}
}

} // namespace kfdmp
