// Locale-independent double <-> text, without the floating-point
// std::from_chars / std::to_chars that arrived in GCC 11 (libstdc++ 11): the
// test box's system compiler is GCC 10.2.1. strtod and snprintf under the
// "C" numeric locale, whatever the process's locale is.
#pragma once

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <locale.h>
#include <string>
#include <string_view>

namespace kfdmp {

inline locale_t c_numeric_locale()
{
	static const locale_t c = newlocale(LC_NUMERIC_MASK, "C", static_cast<locale_t>(nullptr));
	return c;
}

// parse_double: all of s is one decimal number (as std::from_chars accepts
// it: no leading space or '+', no hexadecimal); false otherwise or when it
// is out of range.
inline bool parse_double(std::string_view s, double& d)
{
	if (s.empty() || s[0] == '+' || s[0] == ' ' || s[0] == '\t' || s[0] == '\n' ||
	    s.find_first_of("xXpP") != std::string_view::npos)
		return false;
	const std::string buf(s);
	char* end = nullptr;
	errno = 0;
	const double v = strtod_l(buf.c_str(), &end, c_numeric_locale());
	if (end != buf.c_str() + buf.size() || errno == ERANGE)
		return false;
	d = v;
	return true;
}

// format_double: the shortest "%.Ng" text that reads back as d (integral
// values below 2^53 in plain digits), "C" locale. d must be finite.
inline std::string format_double(double d)
{
	char buf[40];
	const locale_t old = uselocale(c_numeric_locale());
	if (d == std::trunc(d) && std::fabs(d) < 9007199254740992.0) {
		std::snprintf(buf, sizeof buf, "%.0f", d);
		if (d == 0 && std::signbit(d))
			std::snprintf(buf, sizeof buf, "-0");
	} else {
		for (int p = 1; p <= 17; ++p) {
			std::snprintf(buf, sizeof buf, "%.*g", p, d);
			if (std::strtod(buf, nullptr) == d)
				break;
		}
	}
	uselocale(old);
	return buf;
}

} // namespace kfdmp
