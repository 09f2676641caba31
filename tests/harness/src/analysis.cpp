#include "analysis.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace kfdmp {
namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

struct Interval {
	uint64_t a, b;
};

// Length of the union of the intervals (sorts them).
uint64_t union_length(std::vector<Interval>& v)
{
	std::sort(v.begin(), v.end(), [](const Interval& x, const Interval& y) { return x.a < y.a; });
	uint64_t total = 0, cur_a = 0, cur_b = 0;
	bool open = false;
	for (const auto& i : v) {
		if (open && i.a <= cur_b) {
			cur_b = std::max(cur_b, i.b);
			continue;
		}
		if (open)
			total += cur_b - cur_a;
		cur_a = i.a;
		cur_b = i.b;
		open = true;
	}
	if (open)
		total += cur_b - cur_a;
	return total;
}

// Stamped queries of each worker matched to its records, in order: the j-th
// record marked stamped is the j-th stamped query (queries past the stamp
// capacity come last and have no stamps).
std::vector<ProcessAttribution> process_attribution(const std::vector<std::vector<KernelStamp>>& stamps,
						    const std::vector<std::vector<QueryRecord>>& records)
{
	std::vector<ProcessAttribution> out(stamps.size());
	for (size_t w = 0; w < stamps.size(); ++w) {
		ProcessAttribution& p = out[w];
		std::map<uint32_t, std::vector<Interval>> by_query;
		uint64_t kernel_ns = 0;
		for (const auto& s : stamps[w]) {
			if (s.end_ns <= s.start_ns)
				continue;
			by_query[s.query].push_back({s.start_ns, s.end_ns});
			kernel_ns += s.end_ns - s.start_ns;
			++p.kernels;
		}
		p.mean_kernel_us = p.kernels ? double(kernel_ns) / double(p.kernels) / 1000.0 : nan;
		p.kernel_inflation = nan;
		std::vector<const QueryRecord*> stamped;
		if (w < records.size())
			for (const auto& q : records[w])
				if (q.stamped)
					stamped.push_back(&q);
		struct Q {
			const QueryRecord* rec;
			uint64_t first, last, resident;
		};
		std::vector<Q> qs;
		int64_t offset = INT64_MAX; // host - device, at the quickest completion
		for (auto& [idx, v] : by_query) {
			if (idx >= stamped.size())
				continue;
			uint64_t first = UINT64_MAX, last = 0;
			for (const auto& i : v) {
				first = std::min(first, i.a);
				last = std::max(last, i.b);
			}
			const QueryRecord* r = stamped[idx];
			qs.push_back({r, first, last, union_length(v)});
			offset = std::min(offset, int64_t(r->end_ns) - int64_t(last));
		}
		if (qs.empty()) {
			p.query_us = p.submit_to_start_us = p.resident_us = p.in_query_gap_us = p.end_to_host_us = nan;
			continue;
		}
		double lat = 0, sts = 0, res = 0, gap = 0, eth = 0;
		for (const auto& q : qs) {
			const double first_host = double(int64_t(q.first) + offset), last_host = double(int64_t(q.last) + offset);
			lat += double(q.rec->end_ns - q.rec->start_ns);
			sts += first_host - double(q.rec->start_ns);
			res += double(q.resident);
			gap += double(q.last - q.first) - double(q.resident);
			eth += double(q.rec->end_ns) - last_host;
		}
		const double n = double(qs.size()) * 1000.0;
		p.queries = qs.size();
		p.query_us = lat / n;
		p.submit_to_start_us = sts / n;
		p.resident_us = res / n;
		p.in_query_gap_us = gap / n;
		p.end_to_host_us = eth / n;
	}
	return out;
}

} // namespace

void set_kernel_inflation(GpuBreakdown& g, const std::vector<double>& solo_kernel_us)
{
	double sum = 0;
	uint64_t n = 0;
	for (size_t w = 0; w < g.procs.size(); ++w) {
		auto& p = g.procs[w];
		const double solo = w < solo_kernel_us.size() ? solo_kernel_us[w] : nan;
		p.kernel_inflation = solo > 0 && p.kernels ? p.mean_kernel_us / solo : nan;
		if (std::isfinite(p.kernel_inflation)) {
			sum += p.kernel_inflation * double(p.kernels);
			n += p.kernels;
		}
	}
	g.kernel_inflation = n ? sum / double(n) : nan;
}

bool WindowMetrics::any_starved() const
{
	return std::any_of(workers.begin(), workers.end(), [](const WorkerWindow& w) { return !w.starved_bins.empty(); });
}

WindowMetrics window_metrics(const std::vector<std::vector<QueryRecord>>& records, uint64_t begin_ns,
			     uint64_t end_ns, uint64_t bin_ns, uint64_t unrecorded)
{
	WindowMetrics m;
	m.unrecorded = unrecorded;
	if (end_ns <= begin_ns)
		return m;
	const uint64_t len = end_ns - begin_ns;
	if (bin_ns == 0) {
		// Long enough for min_expected_per_bin queries per worker at the
		// run's mean rate, in whole milliseconds.
		uint64_t done = 0;
		for (const auto& recs : records)
			for (const auto& q : recs)
				done += q.end_ns >= begin_ns && q.end_ns < end_ns;
		bin_ns = auto_min_bin_ns;
		if (done && !records.empty()) {
			const double per_worker_ns = double(len) * double(records.size()) / double(done);
			const uint64_t want = uint64_t(std::ceil(min_expected_per_bin * per_worker_ns / 1e6)) * 1'000'000;
			bin_ns = std::max(bin_ns, want);
		}
		m.auto_bin = true;
	}
	const size_t nbins = size_t((len + bin_ns - 1) / bin_ns);
	m.window_s = double(len) / 1e9;
	m.bin_ns = bin_ns;
	m.total_bins.assign(nbins, 0);
	uint64_t total = 0;
	for (const auto& recs : records) {
		WorkerWindow w;
		w.bins.assign(nbins, 0);
		uint64_t started = 0, first = UINT64_MAX, last = 0;
		for (const auto& q : recs) {
			if (q.end_ns >= begin_ns && q.end_ns < end_ns) {
				++w.completions;
				++w.bins[(q.end_ns - begin_ns) / bin_ns];
				++m.total_bins[(q.end_ns - begin_ns) / bin_ns];
			}
			if (q.start_ns >= begin_ns && q.start_ns < end_ns) {
				++started;
				first = std::min(first, q.start_ns);
				last = std::max(last, q.end_ns);
			}
		}
		w.qps = double(w.completions) / m.window_s;
		w.span_qps = started && last > first ? double(started) * 1e9 / double(last - first) : 0;
		m.sum_of_span_qps += w.span_qps;
		total += w.completions;
		m.workers.push_back(std::move(w));
	}
	m.aggregate_qps = double(total) / m.window_s;
	const double full_bins = double(len) / double(bin_ns);
	const double n = double(records.size());
	m.expected_per_bin = n > 0 ? double(total) / (n * full_bins) : 0;
	m.judged = m.expected_per_bin >= min_expected_per_bin && full_bins >= 3;
	for (size_t b = 0; b < nbins; ++b) {
		const double f = double(std::min<uint64_t>(bin_ns, len - b * bin_ns)) / double(bin_ns);
		if (m.expected_per_bin * n >= min_expected_per_bin && full_bins >= 3 &&
		    m.total_bins[b] < starve_fraction * m.expected_per_bin * n * f)
			m.stalled_bins.push_back(uint32_t(b));
		if (!m.judged)
			continue;
		for (auto& w : m.workers)
			if (w.bins[b] < starve_fraction * m.expected_per_bin * f)
				w.starved_bins.push_back(uint32_t(b));
	}
	return m;
}

GpuBreakdown gpu_breakdown(const std::vector<std::vector<KernelStamp>>& stamps,
			   const std::vector<std::vector<QueryRecord>>& records, uint64_t begin_ns, uint64_t end_ns)
{
	GpuBreakdown g;
	// bin -> worker -> stamps
	std::map<uint32_t, std::map<size_t, std::vector<Interval>>> by_bin;
	uint64_t kernel_ns = 0;
	for (size_t w = 0; w < stamps.size(); ++w)
		for (const auto& s : stamps[w]) {
			if (s.end_ns <= s.start_ns)
				continue; // not written (kernel did not run) or clock wrap
			by_bin[s.bin][w].push_back({s.start_ns, s.end_ns});
			kernel_ns += s.end_ns - s.start_ns;
			++g.kernels;
		}
	// Host side: submission time and the stamping overhead.
	uint64_t submit_sum = 0, submit_n = 0;
	double lat_st = 0, lat_un = 0;
	uint64_t n_st = 0, n_un = 0;
	for (const auto& recs : records)
		for (const auto& q : recs) {
			if (q.start_ns < begin_ns || q.start_ns >= end_ns)
				continue;
			++g.queries;
			if (q.submit_ns) {
				submit_sum += q.submit_ns;
				++submit_n;
			}
			if (q.stamped) {
				++g.stamped_queries;
				lat_st += double(q.end_ns - q.start_ns);
				++n_st;
			} else {
				lat_un += double(q.end_ns - q.start_ns);
				++n_un;
			}
		}
	g.mean_submit_us = submit_n ? double(submit_sum) / double(submit_n) / 1000.0 : nan;
	g.stamp_overhead_pct = n_st && n_un && lat_un > 0
				       ? (lat_st / double(n_st) / (lat_un / double(n_un)) - 1.0) * double(n_st) /
						 double(n_st + n_un) * 100.0
				       : nan;
	if (g.kernels == 0) {
		g.mean_gap_us = g.mean_kernel_us = nan;
		g.reason = "no GPU kernel stamps (the workload has none, or --stamp-every 0)";
		return g;
	}
	g.mean_kernel_us = double(kernel_ns) / double(g.kernels) / 1000.0;

	uint64_t sampled = 0, busy = 0, summed = 0, gap_sum = 0, gaps = 0;
	std::vector<uint64_t> own_resident(stamps.size(), 0), own_sampled(stamps.size(), 0);
	for (auto& [bin, workers] : by_bin) {
		uint64_t lo = 0, hi = UINT64_MAX;
		for (auto& [w, v] : workers) {
			std::sort(v.begin(), v.end(), [](const Interval& x, const Interval& y) { return x.a < y.a; });
			uint64_t last_end = v.front().b;
			for (size_t i = 1; i < v.size(); ++i) {
				gap_sum += v[i].a > last_end ? v[i].a - last_end : 0;
				++gaps;
				last_end = std::max(last_end, v[i].b);
			}
			lo = std::max(lo, v.front().a);
			uint64_t end = 0;
			for (const auto& i : v)
				end = std::max(end, i.b);
			hi = std::min(hi, end);
		}
		if (hi <= lo)
			continue; // the workers' stamped spans of this bin do not overlap
		std::vector<Interval> clipped;
		for (auto& [w, v] : workers)
			for (const auto& i : v) {
				const uint64_t a = std::max(i.a, lo), b = std::min(i.b, hi);
				if (b > a) {
					clipped.push_back({a, b});
					summed += b - a;
				}
			}
		sampled += hi - lo;
		busy += union_length(clipped);
		// Per process: how much of the same sampled span it had a kernel resident.
		for (size_t w = 0; w < stamps.size(); ++w) {
			own_sampled[w] += hi - lo;
			auto it = workers.find(w);
			if (it == workers.end())
				continue;
			std::vector<Interval> own;
			for (const auto& i : it->second) {
				const uint64_t a = std::max(i.a, lo), b = std::min(i.b, hi);
				if (b > a)
					own.push_back({a, b});
			}
			own_resident[w] += union_length(own);
		}
	}
	g.procs = process_attribution(stamps, records);
	double nr_sum = 0;
	for (size_t w = 0; w < stamps.size(); ++w) {
		auto& p = g.procs[w];
		p.not_resident_fraction = own_sampled[w] ? 1.0 - double(own_resident[w]) / double(own_sampled[w]) : nan;
		if (std::isfinite(p.not_resident_fraction))
			nr_sum += p.not_resident_fraction;
	}
	g.not_resident_fraction = stamps.empty() ? nan : nr_sum / double(stamps.size());
	{
		double sts = 0, gq = 0;
		uint64_t nq = 0;
		for (const auto& p : g.procs)
			if (p.queries) {
				sts += p.submit_to_start_us * double(p.queries);
				gq += p.in_query_gap_us * double(p.queries);
				nq += p.queries;
			}
		g.submit_to_start_us = nq ? sts / double(nq) : nan;
		g.in_query_gap_us = nq ? gq / double(nq) : nan;
		g.kernel_inflation = nan;
	}
	g.mean_gap_us = gaps ? double(gap_sum) / double(gaps) / 1000.0 : nan;
	if (sampled == 0) {
		g.reason = "the workers' stamped intervals never overlapped";
		return g;
	}
	g.available = true;
	g.sampled_s = double(sampled) / 1e9;
	g.any_resident_fraction = double(busy) / double(sampled);
	g.concurrency = busy ? double(summed) / double(busy) : nan;
	return g;
}

LossSplit loss_split(const GpuBreakdown& n1, const GpuBreakdown& n)
{
	LossSplit s;
	if (!n1.available || !n.available || n1.any_resident_fraction <= 0 || n1.concurrency <= 0 || n.mean_kernel_us <= 0 ||
	    n1.mean_kernel_us <= 0) {
		s.idle_factor = s.overlap_factor = s.slowdown = s.model_ratio = s.idle_share = s.contention_share = nan;
		return s;
	}
	s.idle_factor = n.any_resident_fraction / n1.any_resident_fraction;
	s.overlap_factor = n.concurrency / n1.concurrency;
	s.slowdown = n.mean_kernel_us / n1.mean_kernel_us;
	s.model_ratio = s.idle_factor * s.overlap_factor / s.slowdown;
	const double l = std::log(s.model_ratio);
	if (std::fabs(l) < 1e-9) {
		s.idle_share = s.contention_share = nan;
	} else {
		s.idle_share = std::log(s.idle_factor) / l;
		s.contention_share = std::log(s.overlap_factor / s.slowdown) / l;
	}
	return s;
}

} // namespace kfdmp
