#include "decision_log.h"

#include <cmath>
#include <cstring>

namespace kfdmp::sched {

std::string json_escape(const std::string& s)
{
	std::string o;
	for (unsigned char c : s) {
		if (c == '"' || c == '\\') {
			o += '\\';
			o += char(c);
		} else if (c < 0x20) {
			char b[8];
			std::snprintf(b, sizeof(b), "\\u%04x", c);
			o += b;
		} else {
			o += char(c);
		}
	}
	return o;
}

void JsonLine::key(const char* k)
{
	if (body_.size() > 1)
		body_ += ',';
	body_ += '"';
	body_ += k;
	body_ += "\":";
}

JsonLine& JsonLine::str(const char* k, const std::string& v)
{
	key(k);
	body_ += '"' + json_escape(v) + '"';
	return *this;
}

JsonLine& JsonLine::num(const char* k, double v)
{
	key(k);
	char b[32];
	if (std::isfinite(v))
		std::snprintf(b, sizeof(b), "%.1f", v);
	else
		std::strcpy(b, "null");
	body_ += b;
	return *this;
}

JsonLine& JsonLine::integer(const char* k, int64_t v)
{
	key(k);
	body_ += std::to_string(v);
	return *this;
}

JsonLine& JsonLine::pids(const char* k, const std::vector<pid_t>& v)
{
	key(k);
	body_ += '[';
	for (size_t i = 0; i < v.size(); i++)
		body_ += (i ? "," : "") + std::to_string(v[i]);
	body_ += ']';
	return *this;
}

void DecisionLog::write(const std::string& line)
{
	if (keep_lines)
		lines_.push_back(line);
	if (out_) {
		std::fputs(line.c_str(), out_);
		std::fputc('\n', out_);
		std::fflush(out_);
	}
}

} // namespace kfdmp::sched
