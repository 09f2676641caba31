// kfdmp-inspect: runs the debugfs parsers on a saved dump and prints JSON.
//   kfdmp-inspect hqds FILE | mqds FILE [HQDS_FILE] | rls FILE
#include "json.h"
#include "kfd_dump.h"
#include "kfd_probe.h"

#include <cstdio>
#include <string>

using namespace kfdmp;

int main(int argc, char** argv)
{
	const std::string what = argc > 1 ? argv[1] : "";
	if (argc < 3 || (what != "hqds" && what != "mqds" && what != "rls") || (argc > 3 && what != "mqds") ||
	    argc > 4) {
		std::fprintf(stderr,
			     "usage: %s hqds FILE | mqds FILE [HQDS_FILE] | rls FILE\n"
			     "  parses a saved /sys/kernel/debug/kfd/{hqds,mqds,rls} and prints JSON;\n"
			     "  mqds with HQDS_FILE also maps each MQD to the HQD slot that holds it\n",
			     argv[0]);
		return 64;
	}
	const auto text = read_text(argv[2]);
	if (!text) {
		std::fprintf(stderr, "%s: cannot read %s\n", argv[0], argv[2]);
		return 1;
	}
	try {
		json::Value out;
		if (what == "hqds") {
			out = hqds_json(parse_hqds(*text));
		} else if (what == "rls") {
			out.set("nodes", rls_json(parse_rls(*text)));
		} else {
			const auto procs = parse_mqds(*text);
			out.set("processes", mqds_json(procs));
			if (argc == 4) {
				const auto h = read_text(argv[3]);
				if (!h) {
					std::fprintf(stderr, "%s: cannot read %s\n", argv[0], argv[3]);
					return 1;
				}
				out.set("mqd_to_hqd", map_mqds_to_hqds(procs, parse_hqds(*h)));
			}
		}
		std::printf("%s\n", json::dump(out).c_str());
		return 0;
	} catch (const DumpParseError& e) {
		std::fprintf(stderr, "%s: %s: %s\n", argv[0], argv[2], e.what());
		return 1;
	}
}
