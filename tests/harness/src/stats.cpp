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
