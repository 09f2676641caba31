// A small JSON value with a writer and a reader: enough for the results file
// and for tests that read it back. Objects keep their insertion order.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace kfdmp::json {

class Value {
public:
	using Array = std::vector<Value>;
	using Object = std::vector<std::pair<std::string, Value>>;

	Value() = default; // null
	Value(std::nullptr_t) {}
	Value(bool b) : v_(b) {}
	Value(double d) : v_(d) {}
	Value(int i) : v_(double(i)) {}
	Value(unsigned i) : v_(double(i)) {}
	Value(int64_t i) : v_(double(i)) {}
	Value(uint64_t i) : v_(double(i)) {}
	Value(const char* s) : v_(std::string(s)) {}
	Value(std::string s) : v_(std::move(s)) {}
	Value(Array a) : v_(std::move(a)) {}
	Value(Object o) : v_(std::move(o)) {}

	bool is_null() const { return std::holds_alternative<std::nullptr_t>(v_); }
	bool is_number() const { return std::holds_alternative<double>(v_); }
	bool is_string() const { return std::holds_alternative<std::string>(v_); }
	bool is_array() const { return std::holds_alternative<Array>(v_); }
	bool is_object() const { return std::holds_alternative<Object>(v_); }

	// Typed access; throws std::runtime_error on a type mismatch.
	bool boolean() const;
	double number() const;
	const std::string& string() const;
	const Array& array() const;
	const Object& object() const;

	// Object member, or nullptr when absent (or not an object).
	const Value* find(std::string_view key) const;
	// Object member; throws std::runtime_error naming the key when absent.
	const Value& at(std::string_view key) const;

	// Builders: set() replaces or appends a member (turning null into an
	// object); push() appends to an array (turning null into an array).
	Value& set(std::string_view key, Value v);
	Value& push(Value v);

private:
	std::variant<std::nullptr_t, bool, double, std::string, Array, Object> v_;
};

// Serialises with `indent` spaces per level (0: one line). NaN and infinities
// have no JSON form and are written as null.
std::string dump(const Value& v, int indent = 2);

struct ParseError : std::runtime_error {
	using std::runtime_error::runtime_error;
};
// Parses one JSON document (RFC 8259); throws ParseError with the offset.
Value parse(std::string_view text);

} // namespace kfdmp::json
