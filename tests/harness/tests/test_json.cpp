#include "json.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace kfdmp::json;

TEST(Json, RoundTripsADocument)
{
	Value doc;
	doc.set("schema_version", 1);
	doc.set("name", "a \"quoted\"\\ line\n\ttab");
	doc.set("ratio", 0.7359);
	doc.set("big", uint64_t(1) << 40);
	doc.set("flag", true);
	doc.set("missing", nullptr);
	Value runs = Value::Array{};
	runs.push(Value::Object{{"procs", 1}, {"qps", 115.5}});
	runs.push(Value::Object{{"procs", 2}, {"qps", 85.0}});
	doc.set("runs", std::move(runs));

	for (int indent : {0, 2}) {
		const Value back = parse(dump(doc, indent));
		EXPECT_EQ(back.at("schema_version").number(), 1);
		EXPECT_EQ(back.at("name").string(), "a \"quoted\"\\ line\n\ttab");
		EXPECT_EQ(back.at("ratio").number(), 0.7359);
		EXPECT_EQ(back.at("big").number(), double(uint64_t(1) << 40));
		EXPECT_TRUE(back.at("flag").boolean());
		EXPECT_TRUE(back.at("missing").is_null());
		ASSERT_EQ(back.at("runs").array().size(), 2u);
		EXPECT_EQ(back.at("runs").array()[1].at("qps").number(), 85.0);
		EXPECT_EQ(dump(back, indent), dump(doc, indent));
	}
}

TEST(Json, KeepsMemberOrderAndReplacesOnSet)
{
	Value o;
	o.set("b", 1);
	o.set("a", 2);
	o.set("b", 3);
	EXPECT_EQ(dump(o, 0), R"({"b":3,"a":2})");
}

TEST(Json, WritesNonFiniteNumbersAsNull)
{
	Value a = Value::Array{};
	a.push(NAN);
	a.push(INFINITY);
	a.push(-0.5);
	EXPECT_EQ(dump(a, 0), "[null,null,-0.5]");
}

TEST(Json, ReadsEscapesAndUnicode)
{
	const Value v = parse(R"(["\u00e9\u20ac", "\ud83d\ude00", "\/\b\f\r", "\u0001"])");
	EXPECT_EQ(v.array()[0].string(), "\xc3\xa9\xe2\x82\xac");
	EXPECT_EQ(v.array()[1].string(), "\xf0\x9f\x98\x80");
	EXPECT_EQ(v.array()[2].string(), "/\b\f\r");
	EXPECT_EQ(dump(v.array()[3], 0), "\"\\u0001\"");
}

TEST(Json, ParsesNumbersAndNesting)
{
	const Value v = parse(" { \"a\" : [ -1.5e3 , 0, 12 ], \"b\": {}, \"c\": [] } ");
	EXPECT_EQ(v.at("a").array()[0].number(), -1500);
	EXPECT_TRUE(v.at("b").object().empty());
	EXPECT_TRUE(v.at("c").array().empty());
	EXPECT_EQ(v.find("zzz"), nullptr);
}

TEST(Json, RejectsMalformedInput)
{
	for (const char* bad : {"", "{", "[1,]", "{\"a\" 1}", "\"abc", "tru", "1 2", "{1:2}", "\"\\x\"", "[--1]"})
		EXPECT_THROW(parse(bad), ParseError) << bad;
}

TEST(Json, TypedAccessNamesTheProblem)
{
	const Value v = parse(R"({"a": 1})");
	EXPECT_THROW(v.at("a").string(), std::runtime_error);
	try {
		v.at("b");
		FAIL();
	} catch (const std::runtime_error& e) {
		EXPECT_NE(std::string(e.what()).find("\"b\""), std::string::npos);
	}
}
