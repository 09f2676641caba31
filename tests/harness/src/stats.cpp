#include "stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace kfdmp {
namespace {
constexpr double nan = std::numeric_limits<double>::quiet_NaN();
}

double percentile(std::vector<uint64_t>& v, double p)
{
	if (v.empty())
		return nan;
	std::sort(v.begin(), v.end());
	const double rank = std::clamp(p, 0.0, 100.0) / 100.0 * double(v.size() - 1);
	const size_t lo = size_t(std::floor(rank));
	const size_t hi = std::min(lo + 1, v.size() - 1);
	return double(v[lo]) + (rank - double(lo)) * (double(v[hi]) - double(v[lo]));
}

double jain_index(const std::vector<double>& x)
{
	double sum = 0, sq = 0;
	for (double v : x) {
		sum += v;
		sq += v * v;
	}
	return sq > 0 ? sum * sum / (double(x.size()) * sq) : nan;
}

double ratio(double value, double base) { return base > 0 ? value / base : nan; }

Spread spread(const std::vector<double>& x)
{
	if (x.empty())
		return {nan, nan, nan, nan};
	const auto [lo, hi] = std::minmax_element(x.begin(), x.end());
	const double mean = std::accumulate(x.begin(), x.end(), 0.0) / double(x.size());
	return {*lo, *hi, mean, ratio(*hi - *lo, mean) * 100.0};
}

} // namespace kfdmp

namespace kfdmp {

double t975(unsigned df)
{
	static const double table[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
				       2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
				       2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
	if (df == 0)
		return std::nan("");
	return table[std::min<size_t>(df, sizeof table / sizeof *table) - 1];
}

ScalingJudgement judge_scaling(const std::vector<double>& base, const std::vector<double>& at_n, double collapse_floor,
			       double target)
{
	ScalingJudgement j;
	std::vector<double> r;
	for (size_t i = 0; i < base.size() && i < at_n.size(); ++i)
		r.push_back(ratio(at_n[i], base[i]));
	const double nan = std::nan("");
	auto mean_sd = [](const std::vector<double>& v, double& m, double& sd) {
		m = 0;
		for (double x : v)
			m += x;
		m /= double(v.size());
		double ss = 0;
		for (double x : v)
			ss += (x - m) * (x - m);
		sd = v.size() > 1 ? std::sqrt(ss / double(v.size() - 1)) : std::nan("");
	};
	if (target > 0)
		j.target_verdict = "cannot tell";
	if (r.empty()) {
		j.ratio = j.noise = j.ci95_lo = j.ci95_hi = j.baseline_rsd_pct = nan;
		return j;
	}
	double sd = 0, bm = 0, bsd = 0;
	mean_sd(r, j.ratio, sd);
	j.noise = sd / std::sqrt(double(r.size()));
	const double half = t975(unsigned(r.size() - 1)) * j.noise; // NaN with one round
	j.ci95_lo = j.ratio - half;
	j.ci95_hi = j.ratio + half;
	mean_sd(base, bm, bsd);
	j.baseline_rsd_pct = bsd / bm * 100;
	j.above_floor = j.ratio >= collapse_floor;
	if (target > 0 && std::isfinite(half)) {
		j.below_target = j.ci95_hi < target;
		j.target_verdict = j.below_target ? "below" : j.ci95_lo >= target ? "meets" : "cannot tell";
	}
	return j;
}

} // namespace kfdmp
