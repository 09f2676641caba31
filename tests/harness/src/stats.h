// Statistics used by the report. Pure functions, no I/O.
#pragma once
#include <cstdint>
#include <vector>

namespace kfdmp {

// The p-th percentile (0..100) with linear interpolation between closest
// ranks (the common "type 7" definition). Sorts v. NaN for an empty sample.
double percentile(std::vector<uint64_t>& v, double p);

// Jain's fairness index (sum x)^2 / (n * sum x^2): 1 when all are equal,
// 1/n when one takes everything. NaN for an empty or all-zero input.
double jain_index(const std::vector<double>& x);

// value / base, NaN when base is not positive.
double ratio(double value, double base);

struct Spread {
	double min, max, mean;
	double spread_pct; // (max - min) / mean * 100
};
Spread spread(const std::vector<double>& x); // NaNs for an empty input

} // namespace kfdmp
