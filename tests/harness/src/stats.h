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

namespace kfdmp {

// The 97.5% quantile of Student's t with df degrees of freedom (a 95%
// two-sided interval): the printed table for df 1..30, the df = 30 value
// beyond (wider than the true interval: never claims more). NaN for df 0.
double t975(unsigned df);

// The scaling suite's decision for one N (tests/test_scaling.cpp), from R
// interleaved rounds: base[r] the 1-process QPS and at_n[r] the N-process
// QPS of round r. The per-round ratios at_n[r] / base[r] give the ratio, its
// standard error and its 95% interval (t with R - 1 degrees of freedom; the
// rounds pair N with the 1 run next to it, so drift cancels).
//  - collapse floor: ratio >= collapse_floor ("N processes did not
//    collapse"), the regression guard that passes on the field's curve;
//  - target (when > 0), judged on the interval, never on the mean alone:
//    "below" when the whole interval lies below the target (the only
//    outcome that fails: the field's 0.74/0.51/0.79 at 0.9), "meets" when it
//    lies at or above it, "cannot tell" when it contains the target or there
//    is one round (no interval): more rounds would decide.
struct ScalingJudgement {
	double ratio = 0;            // mean of the per-round ratios
	double noise = 0;            // their standard error (NaN with one round)
	double ci95_lo = 0, ci95_hi = 0; // the ratio's 95% interval (NaN with one round)
	double baseline_rsd_pct = 0; // relative standard deviation of base
	bool above_floor = false;
	bool below_target = false;   // target mode: the interval lies below the target
	const char* target_verdict = ""; // "meets", "below", "cannot tell"; "" without a target
};
ScalingJudgement judge_scaling(const std::vector<double>& base, const std::vector<double>& at_n, double collapse_floor,
			       double target);

} // namespace kfdmp
