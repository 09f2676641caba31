#!/usr/bin/env python3
"""Summary of the issue-26 tenant runs under OUT (run.sh): for each part,
each arm at each busy fraction over its repeats, from results.json's
tenant.summary (the harness's own intervals and target checks).

    summarize.py OUT
"""
import json
import os
import sys


def iv(x, fmt="%.2f"):
    """mean [lo, hi] (n) of an interval object, or what it says instead."""
    if not isinstance(x, dict):
        return "-"
    if "unavailable" in x:
        return "unavailable"
    if x.get("n", 0) == 0 or x.get("mean") is None:
        return "-"
    s = fmt % x["mean"]
    if x["n"] >= 2 and x.get("lo95") is not None:
        s += " [" + fmt % x["lo95"] + ", " + fmt % x["hi95"] + "]"
    return s


def verdict(text):
    return (text or "-").split(":")[0]


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: summarize.py OUT\n")
        return 64
    out = sys.argv[1]
    found = False
    for part in ("ts", "mps", "torch"):
        path = os.path.join(out, part, "results.json")
        if not os.path.exists(path):
            continue
        found = True
        try:
            with open(path) as f:
                doc = json.load(f)
        except ValueError as e:
            print("%s: unreadable results.json: %s" % (part, e))
            continue
        t = doc.get("tenant") or {}
        print("\n== %s: critical %s beside %s" % (part, t.get("critical"), t.get("best_effort")))
        print("%-12s %5s %7s %22s %20s %8s %7s %16s  %s" % (
            "arm", "busy", "rate/s", "crit p99/alone", "be kept (min)", "susp/s", "susp%",
            "stopped p99 us", "latency / throughput / suspend"))
        for s in t.get("summary", []):
            busy = s.get("busy_fraction")
            share = s.get("suspended_share") or {}
            print("%-12s %5s %7s %22s %20s %8s %7s %16s  %s / %s / %s  (%s/%s ok)" % (
                s.get("arm"),
                "-" if busy is None else "%.2f" % busy,
                "-" if s.get("rate_per_s") is None else "%.1f" % s["rate_per_s"],
                iv(s.get("critical_p99_ratio")),
                iv(s.get("best_effort_kept_min")),
                iv(s.get("suspends_per_s"), "%.1f") if "suspends_per_s" in s else "-",
                ("%.1f" % (100 * share["mean"])) if share.get("mean") is not None else "-",
                iv(s.get("decision_to_stopped_p99_us"), "%.0f") if "decision_to_stopped_p99_us" in s else "-",
                verdict(s.get("latency_target")), verdict(s.get("throughput_target")),
                verdict(s.get("suspend_target")), s.get("repeats_ok"), s.get("repeats")))
        for s in t.get("summary", []):
            d = s.get("decision_to_drained_p99_us")
            if isinstance(d, dict) and "unavailable" in d:
                print("decision-to-drained (%s): unavailable: %s" % (s.get("arm"), d["unavailable"]))
                break
        for a in t.get("arms", []):
            if a.get("status") != "ok":
                print("  %s busy %s repeat %s: %s: %s" % (a.get("arm"), a.get("busy_fraction"), a.get("repeat"),
                                                        a.get("status"), a.get("reason")))
    skipped = os.path.join(out, "skipped.txt")
    if os.path.exists(skipped):
        with open(skipped) as f:
            print("\n" + f.read().rstrip())
    if not found:
        print("no results under %s" % out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
