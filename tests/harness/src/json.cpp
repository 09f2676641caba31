#include "json.h"
#include "num_text.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace kfdmp::json {
namespace {

[[noreturn]] void type_error(const char* want) { throw std::runtime_error(std::string("json: not a ") + want); }

void write_string(std::string& out, std::string_view s)
{
	out += '"';
	for (unsigned char c : s) {
		switch (c) {
		case '"': out += "\\\""; break;
		case '\\': out += "\\\\"; break;
		case '\n': out += "\\n"; break;
		case '\r': out += "\\r"; break;
		case '\t': out += "\\t"; break;
		default:
			if (c < 0x20) {
				char buf[8];
				std::snprintf(buf, sizeof buf, "\\u%04x", c);
				out += buf;
			} else {
				out += char(c);
			}
		}
	}
	out += '"';
}

void write_number(std::string& out, double d)
{
	if (!std::isfinite(d)) {
		out += "null";
		return;
	}
	out += kfdmp::format_double(d); // shortest round-trip form
}

class Parser {
public:
	explicit Parser(std::string_view t) : t_(t) {}

	Value document()
	{
		Value v = value();
		skip_ws();
		if (i_ != t_.size())
			fail("trailing characters");
		return v;
	}

private:
	std::string_view t_;
	size_t i_ = 0;

	[[noreturn]] void fail(const std::string& what)
	{
		throw ParseError("json: " + what + " at offset " + std::to_string(i_));
	}
	void skip_ws()
	{
		while (i_ < t_.size() && (t_[i_] == ' ' || t_[i_] == '\n' || t_[i_] == '\r' || t_[i_] == '\t'))
			++i_;
	}
	char peek()
	{
		skip_ws();
		if (i_ >= t_.size())
			fail("unexpected end");
		return t_[i_];
	}
	void expect(char c)
	{
		if (peek() != c)
			fail(std::string("expected '") + c + "'");
		++i_;
	}
	bool literal(std::string_view word)
	{
		if (t_.substr(i_, word.size()) != word)
			return false;
		i_ += word.size();
		return true;
	}

	Value value()
	{
		const char c = peek();
		if (c == '{')
			return object();
		if (c == '[')
			return array();
		if (c == '"')
			return string();
		if (literal("true"))
			return true;
		if (literal("false"))
			return false;
		if (literal("null"))
			return nullptr;
		return number();
	}

	Value object()
	{
		Value::Object o;
		expect('{');
		if (peek() == '}') {
			++i_;
			return o;
		}
		for (;;) {
			if (peek() != '"')
				fail("expected a member name");
			std::string key = string();
			expect(':');
			o.emplace_back(std::move(key), value());
			if (peek() == '}') {
				++i_;
				return o;
			}
			expect(',');
		}
	}

	Value array()
	{
		Value::Array a;
		expect('[');
		if (peek() == ']') {
			++i_;
			return a;
		}
		for (;;) {
			a.push_back(value());
			if (peek() == ']') {
				++i_;
				return a;
			}
			expect(',');
		}
	}

	unsigned hex4()
	{
		unsigned cp = 0;
		auto r = std::from_chars(t_.data() + i_, t_.data() + std::min(i_ + 4, t_.size()), cp, 16);
		if (r.ptr != t_.data() + i_ + 4)
			fail("bad \\u escape");
		i_ += 4;
		return cp;
	}

	static void append_utf8(std::string& s, unsigned cp)
	{
		if (cp < 0x80) {
			s += char(cp);
		} else if (cp < 0x800) {
			s += char(0xc0 | cp >> 6);
			s += char(0x80 | (cp & 0x3f));
		} else if (cp < 0x10000) {
			s += char(0xe0 | cp >> 12);
			s += char(0x80 | (cp >> 6 & 0x3f));
			s += char(0x80 | (cp & 0x3f));
		} else {
			s += char(0xf0 | cp >> 18);
			s += char(0x80 | (cp >> 12 & 0x3f));
			s += char(0x80 | (cp >> 6 & 0x3f));
			s += char(0x80 | (cp & 0x3f));
		}
	}

	std::string string()
	{
		expect('"');
		std::string s;
		for (;;) {
			if (i_ >= t_.size())
				fail("unterminated string");
			const char c = t_[i_++];
			if (c == '"')
				return s;
			if (static_cast<unsigned char>(c) < 0x20)
				fail("control character in string");
			if (c != '\\') {
				s += c;
				continue;
			}
			if (i_ >= t_.size())
				fail("unterminated escape");
			switch (const char e = t_[i_++]) {
			case '"': case '\\': case '/': s += e; break;
			case 'b': s += '\b'; break;
			case 'f': s += '\f'; break;
			case 'n': s += '\n'; break;
			case 'r': s += '\r'; break;
			case 't': s += '\t'; break;
			case 'u': {
				unsigned cp = hex4();
				if (cp >= 0xd800 && cp < 0xdc00 && literal("\\u")) {
					const unsigned lo = hex4();
					if (lo < 0xdc00 || lo >= 0xe000)
						fail("bad surrogate pair");
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				}
				append_utf8(s, cp);
				break;
			}
			default: fail("bad escape");
			}
		}
	}

	Value number()
	{
		const size_t start = i_;
		if (i_ < t_.size() && t_[i_] == '-')
			++i_;
		while (i_ < t_.size() && std::string_view("0123456789.eE+-").find(t_[i_]) != std::string_view::npos)
			++i_;
		double d = 0;
		if (start == i_ || !kfdmp::parse_double(t_.substr(start, i_ - start), d)) {
			i_ = start;
			fail("bad value");
		}
		return d;
	}
};

void write(std::string& out, const Value& v, int indent, int depth);

void newline(std::string& out, int indent, int depth)
{
	if (indent > 0) {
		out += '\n';
		out.append(size_t(indent * depth), ' ');
	}
}

} // namespace

bool Value::boolean() const
{
	if (auto p = std::get_if<bool>(&v_))
		return *p;
	type_error("boolean");
}

double Value::number() const
{
	if (auto p = std::get_if<double>(&v_))
		return *p;
	type_error("number");
}

const std::string& Value::string() const
{
	if (auto p = std::get_if<std::string>(&v_))
		return *p;
	type_error("string");
}

const Value::Array& Value::array() const
{
	if (auto p = std::get_if<Array>(&v_))
		return *p;
	type_error("array");
}

const Value::Object& Value::object() const
{
	if (auto p = std::get_if<Object>(&v_))
		return *p;
	type_error("object");
}

const Value* Value::find(std::string_view key) const
{
	if (auto o = std::get_if<Object>(&v_))
		for (const auto& [k, v] : *o)
			if (k == key)
				return &v;
	return nullptr;
}

const Value& Value::at(std::string_view key) const
{
	if (const Value* v = find(key))
		return *v;
	throw std::runtime_error("json: no member \"" + std::string(key) + "\"");
}

Value& Value::set(std::string_view key, Value v)
{
	if (is_null())
		v_ = Object{};
	auto& o = std::get<Object>(v_);
	for (auto& [k, old] : o)
		if (k == key) {
			old = std::move(v);
			return old;
		}
	o.emplace_back(std::string(key), std::move(v));
	return o.back().second;
}

Value& Value::push(Value v)
{
	if (is_null())
		v_ = Array{};
	auto& a = std::get<Array>(v_);
	a.push_back(std::move(v));
	return a.back();
}

namespace {

void write(std::string& out, const Value& v, int indent, int depth)
{
	if (v.is_null()) {
		out += "null";
	} else if (v.is_number()) {
		write_number(out, v.number());
	} else if (v.is_string()) {
		write_string(out, v.string());
	} else if (v.is_array()) {
		const auto& a = v.array();
		out += '[';
		for (size_t i = 0; i < a.size(); ++i) {
			out += i ? "," : "";
			newline(out, indent, depth + 1);
			write(out, a[i], indent, depth + 1);
		}
		if (!a.empty())
			newline(out, indent, depth);
		out += ']';
	} else if (v.is_object()) {
		const auto& o = v.object();
		out += '{';
		for (size_t i = 0; i < o.size(); ++i) {
			out += i ? "," : "";
			newline(out, indent, depth + 1);
			write_string(out, o[i].first);
			out += indent > 0 ? ": " : ":";
			write(out, o[i].second, indent, depth + 1);
		}
		if (!o.empty())
			newline(out, indent, depth);
		out += '}';
	} else {
		out += v.boolean() ? "true" : "false";
	}
}

} // namespace

std::string dump(const Value& v, int indent)
{
	std::string out;
	write(out, v, indent, 0);
	return out;
}

Value parse(std::string_view text) { return Parser(text).document(); }

} // namespace kfdmp::json
