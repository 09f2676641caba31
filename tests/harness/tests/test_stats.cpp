#include "stats.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace kfdmp;

TEST(Percentile, InterpolatesBetweenClosestRanks)
{
	std::vector<uint64_t> v = {40, 10, 30, 20}; // sorted: 10 20 30 40
	EXPECT_DOUBLE_EQ(percentile(v, 0), 10);
	EXPECT_DOUBLE_EQ(percentile(v, 50), 25);
	EXPECT_DOUBLE_EQ(percentile(v, 100), 40);
	EXPECT_DOUBLE_EQ(percentile(v, 99), 39.7);
}

TEST(Percentile, HandlesOneSampleAndNone)
{
	std::vector<uint64_t> one = {7}, none;
	EXPECT_DOUBLE_EQ(percentile(one, 99), 7);
	EXPECT_TRUE(std::isnan(percentile(none, 50)));
}

TEST(Percentile, P99OfAHundredSamples)
{
	std::vector<uint64_t> v;
	for (uint64_t i = 1; i <= 100; ++i)
		v.push_back(i);
	EXPECT_DOUBLE_EQ(percentile(v, 50), 50.5);
	EXPECT_DOUBLE_EQ(percentile(v, 99), 99.01);
}

TEST(Jain, IsOneForEqualSharesAndOneOverNForOneHog)
{
	EXPECT_DOUBLE_EQ(jain_index({5, 5, 5, 5}), 1.0);
	EXPECT_DOUBLE_EQ(jain_index({8, 0, 0, 0}), 0.25);
	EXPECT_DOUBLE_EQ(jain_index({1, 3}), 16.0 / 20.0);
	EXPECT_TRUE(std::isnan(jain_index({})));
	EXPECT_TRUE(std::isnan(jain_index({0, 0})));
}

TEST(Ratio, DividesAndRejectsAZeroBase)
{
	EXPECT_DOUBLE_EQ(ratio(85.0, 115.5 / 0.5), 85.0 * 0.5 / 115.5);
	EXPECT_TRUE(std::isnan(ratio(1, 0)));
}

TEST(Spread, ReportsRangeRelativeToMean)
{
	const Spread s = spread({98, 100, 102});
	EXPECT_DOUBLE_EQ(s.min, 98);
	EXPECT_DOUBLE_EQ(s.max, 102);
	EXPECT_DOUBLE_EQ(s.mean, 100);
	EXPECT_DOUBLE_EQ(s.spread_pct, 4);
	EXPECT_TRUE(std::isnan(spread({}).mean));
}
