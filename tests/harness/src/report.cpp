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

RunMetrics metrics_of(const LaunchResult& r)
{
	RunMetrics m{};
	std::vector<uint64_t> all;
	std::vector<double> qps;
	uint64_t first_min = UINT64_MAX, first_max = 0;
	for (const auto& w : r.workers) {
		WorkerMetrics wm{};
		const uint64_t span = w.measure_end_ns - w.measure_begin_ns;
		wm.qps = w.queries && span ? double(w.queries) * 1e9 / double(span) : 0;
		std::vector<uint64_t> lat = w.latencies_ns;
		wm.p50_us = percentile(lat, 50) / 1000.0;
		wm.p99_us = percentile(lat, 99) / 1000.0;
		wm.start_offset_us = w.first_query_ns ? us(w.first_query_ns - r.release_ns) : NAN;
		if (w.first_query_ns) {
			first_min = std::min(first_min, w.first_query_ns);
			first_max = std::max(first_max, w.first_query_ns);
		}
		all.insert(all.end(), w.latencies_ns.begin(), w.latencies_ns.end());
		qps.push_back(wm.qps);
		m.qps += wm.qps;
		m.workers.push_back(wm);
	}
	m.jain = jain_index(qps);
	m.skew_us = first_max >= first_min ? us(first_max - first_min) : NAN;
	m.p50_us = percentile(all, 50) / 1000.0;
	m.p99_us = percentile(all, 99) / 1000.0;
	m.ratio = NAN;

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

json::Value latency_json(double p50_us, double p99_us)
{
	return json::Value::Object{{"p50", num_or_null(p50_us)}, {"p99", num_or_null(p99_us)}};
}

json::Value worker_json(const WorkerOutcome& w, const WorkerMetrics& m)
{
	json::Value j;
	j.set("index", w.index);
	j.set("pid", int64_t(w.pid));
	j.set("assigned_device", w.assigned_device);
	j.set("device", w.device);
	j.set("status", w.status);
	j.set("detail", w.detail);
	j.set("queries", w.queries);
	j.set("qps", m.qps);
	j.set("latency_us", latency_json(m.p50_us, m.p99_us));
	j.set("latency_samples", uint64_t(w.latencies_ns.size()));
	j.set("start_offset_us", num_or_null(m.start_offset_us));
	return j;
}

std::string timestamp()
{
	char buf[32];
	const time_t t = time(nullptr);
	tm tm{};
	strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
	return buf;
}

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
	c.set("params", std::move(params));
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

void compute_metrics(std::vector<Run>& runs)
{
	std::vector<double> base;
	for (auto& r : runs) {
		r.m = metrics_of(r.launch);
		if (r.procs == 1 && r.m.status == "ok")
			base.push_back(r.m.qps);
	}
	const double base_qps = spread(base).mean;
	for (auto& r : runs)
		if (r.m.status == "ok")
			r.m.ratio = ratio(r.m.qps, base_qps);
}

json::Value to_json(const Options& o, const std::string& backend, const json::Value& topology,
		    const std::vector<Run>& runs)
{
	json::Value doc;
	doc.set("schema_version", schema_version);
	doc.set("tool", "kfdmp");
	doc.set("backend", backend);
	char host[256] = "";
	gethostname(host, sizeof host - 1);
	doc.set("host", host);
	doc.set("started_at", timestamp());
	doc.set("config", config_json(o));
	doc.set("kfd_topology", topology);

	json::Value jruns = json::Value::Array{};
	std::map<uint32_t, std::vector<double>> by_procs;
	for (const auto& r : runs) {
		json::Value j;
		j.set("procs", r.procs);
		j.set("repeat", r.repeat);
		j.set("status", r.m.status);
		j.set("reason", r.m.reason);
		j.set("aggregate_qps", r.m.qps);
		j.set("scaling_ratio", num_or_null(r.m.ratio));
		j.set("jain_index", num_or_null(r.m.jain));
		j.set("start_skew_us", num_or_null(r.m.skew_us));
		j.set("latency_us", latency_json(r.m.p50_us, r.m.p99_us));
		json::Value workers = json::Value::Array{};
		for (size_t i = 0; i < r.launch.workers.size(); ++i)
			workers.push(worker_json(r.launch.workers[i], r.m.workers[i]));
		j.set("workers", std::move(workers));
		j.set("kfd", r.kfd);
		jruns.push(std::move(j));
		if (r.m.status == "ok")
			by_procs[r.procs].push_back(r.m.qps);
	}
	doc.set("runs", std::move(jruns));

	json::Value summary = json::Value::Array{};
	const double base = by_procs.count(1) ? spread(by_procs[1]).mean : NAN;
	for (const auto& [procs, qps] : by_procs) {
		const Spread s = spread(qps);
		json::Value j;
		j.set("procs", procs);
		j.set("runs", uint64_t(qps.size()));
		j.set("qps_mean", s.mean);
		j.set("qps_min", s.min);
		j.set("qps_max", s.max);
		j.set("spread_pct", num_or_null(s.spread_pct));
		j.set("scaling_ratio", num_or_null(ratio(s.mean, base)));
		summary.push(std::move(j));
	}
	doc.set("summary", std::move(summary));
	return doc;
}

void print_table(std::FILE* out, const std::vector<Run>& runs)
{
	std::fprintf(out, "%5s %3s %-11s %12s %7s %6s %9s %10s %10s\n", "procs", "rep", "status", "agg_qps",
		     "ratio", "jain", "skew_us", "p50_us", "p99_us");
	for (const auto& r : runs) {
		std::fprintf(out, "%5u %3u %-11s %12.1f %7.3f %6.3f %9.1f %10.1f %10.1f\n", r.procs, r.repeat,
			     r.m.status.c_str(), r.m.qps, r.m.ratio, r.m.jain, r.m.skew_us, r.m.p50_us, r.m.p99_us);
		if (!r.m.reason.empty())
			std::fprintf(out, "      %s\n", r.m.reason.c_str());
	}
}

void write_csv(const std::string& path, const std::vector<Run>& runs)
{
	std::ofstream f(path);
	f << "procs,repeat,status,aggregate_qps,scaling_ratio,jain_index,start_skew_us,p50_us,p99_us,"
	     "oversubscribed_lines\n";
	for (const auto& r : runs) {
		const json::Value* lines = r.kfd.find("oversubscribed_lines");
		f << r.procs << ',' << r.repeat << ',' << r.m.status << ',' << r.m.qps << ',' << r.m.ratio << ','
		  << r.m.jain << ',' << r.m.skew_us << ',' << r.m.p50_us << ',' << r.m.p99_us << ','
		  << (lines && lines->is_array() ? std::to_string(lines->array().size()) : "") << '\n';
	}
}

std::string write_plot(const std::string& dir, const std::string& title, const std::vector<Run>& runs)
{
	std::map<uint32_t, std::vector<double>> by_procs;
	for (const auto& r : runs)
		if (r.m.status == "ok")
			by_procs[r.procs].push_back(r.m.qps);
	if (by_procs.empty())
		return "plot: skipped, no successful run";
	{
		std::ofstream dat(dir + "/qps.dat");
		dat << "# procs mean_qps min_qps max_qps\n";
		for (const auto& [procs, qps] : by_procs) {
			const Spread s = spread(qps);
			dat << procs << ' ' << s.mean << ' ' << s.min << ' ' << s.max << '\n';
		}
		std::ofstream gp(dir + "/qps.gp");
		gp << "set terminal pngcairo size 800,500\n"
		   << "set output 'qps.png'\n"
		   << "set title '" << title << "'\n"
		   << "set xlabel 'processes'\nset ylabel 'aggregate queries/s'\n"
		   << "set logscale x 2\nset key left top\nset grid\nset yrange [0:*]\n"
		   << "plot 'qps.dat' using 1:2:3:4 with yerrorlines title 'aggregate QPS (min/max over repeats)'";
		if (by_procs.count(1))
			gp << ", " << spread(by_procs[1]).mean << " with lines dashtype 2 title '1 process (ratio 1.0)'";
		gp << '\n';
	}
	if (std::system("command -v gnuplot >/dev/null 2>&1") != 0)
		return "plot: skipped, gnuplot not found (data and script are in qps.dat and qps.gp)";
	const std::string cmd = "cd '" + dir + "' && gnuplot qps.gp";
	return std::system(cmd.c_str()) == 0 ? "plot: " + dir + "/qps.png" : "plot: gnuplot failed";
}

} // namespace kfdmp
