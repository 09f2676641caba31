#!/usr/bin/env python3
"""Prints the README tables from the kfdmp results under a directory:
summarise.py DIR, where DIR holds matrix/{timesliced,mps}/<workload>/results.json,
agreement/*.txt, overhead.txt and extras/<mode>/<name>/results.json."""
import glob
import json
import os
import re
import statistics
import sys

root = sys.argv[1]


def load(path):
    with open(path) as f:
        return json.load(f)


def fmt(x, spec=".2f"):
    return "–" if x is None else format(x, spec)


def breakdown(doc):
    rows = []
    for s in doc["summary"]:
        rows.append(s)
    return rows


print("## matrix")
for mode in ("timesliced", "mps"):
    for path in sorted(glob.glob(f"{root}/matrix/{mode}/*/results.json")):
        doc = load(path)
        w = os.path.basename(os.path.dirname(path))
        runs = [r for r in doc["runs"] if r["status"] == "ok"]
        starved = sum(1 for r in runs if r["window"]["any_starved"])
        jain = min((r["jain_index"] for r in runs if r["jain_index"] is not None), default=None)
        skew = max((r["start_skew_us"] for r in runs if r["start_skew_us"] is not None), default=None)
        print(f"### {mode} {w}  starved-runs={starved}/{len(runs)} min-jain={fmt(jain, '.3f')} max-skew-us={fmt(skew, '.0f')}")
        print("| N | QPS | ratio | spread% | busy | conc | kernel us | slowdown | gap us | submit us | model | idle share | contention share | work/peak | stamp ovh% |")
        for s in doc["summary"]:
            n = s["procs"]
            rs = [r for r in runs if r["procs"] == n]
            frac = [r["work"]["fraction_of_peak"] for r in rs if r["work"]["fraction_of_peak"] is not None]
            ovh = [r["gpu"]["stamp_overhead_pct"] for r in rs if r["gpu"]["stamp_overhead_pct"] is not None]
            print(f"| {n} | {s['qps_mean']:.0f} | {fmt(s['scaling_ratio'], '.3f')} | {fmt(s['spread_pct'], '.1f')} | "
                  f"{fmt(s['busy_fraction'], '.3f')} | {fmt(s['concurrency'], '.2f')} | {fmt(s['mean_kernel_us'], '.1f')} | "
                  f"{fmt(s['kernel_slowdown'], '.3f')} | {fmt(s['mean_gap_us'], '.1f')} | {fmt(s['mean_submit_us'], '.1f')} | "
                  f"{fmt(s['model_ratio'], '.3f')} | {fmt(s['idle_share'], '.2f')} | {fmt(s['contention_share'], '.2f')} | "
                  f"{fmt(statistics.mean(frac) if frac else None, '.3f')} | {fmt(statistics.mean(ovh) if ovh else None, '.2f')} |")
        p50 = {s['procs']: statistics.mean([r['latency_us']['p50'] for r in runs if r['procs'] == s['procs']]) for s in doc['summary']}
        print("p50 us:", " / ".join(f"{p50[n]:.0f}" for n in sorted(p50)))

print("## bare")
for path in sorted(glob.glob(f"{root}/matrix/bare/*.txt")):
    q = [float(m) for m in re.findall(r"qps=([0-9.]+)", open(path).read())]
    print(os.path.basename(path), q, fmt(statistics.mean(q) if q else None, ".1f"))

print("## agreement")
for name in ("reference", "bare", "harness"):
    path = f"{root}/agreement/{name}.txt"
    if os.path.exists(path):
        print(f"--- {name}")
        print(open(path).read())

print("## overhead")
if os.path.exists(f"{root}/overhead.txt"):
    print(open(f"{root}/overhead.txt").read())

print("## extras")
for path in sorted(glob.glob(f"{root}/extras/*/*/results.json")):
    doc = load(path)
    name = path[len(root) + 8:-13]
    print(f"### {name}")
    for r in doc["runs"]:
        line = (f"N={r['procs']} rep={r['repeat']} {r['status']} qps={r['aggregate_qps']:.0f} "
                f"ratio={fmt(r['scaling_ratio'], '.3f')} jain={fmt(r['jain_index'], '.3f')} "
                f"p50={fmt(r['latency_us']['p50'], '.0f')} p99={fmt(r['latency_us']['p99'], '.0f')} "
                f"p99.9={fmt(r['latency_us']['p99.9'], '.0f')} max={fmt(r['latency_us']['max'], '.0f')} "
                f"busy={fmt(r['gpu']['busy_fraction'], '.3f')} starved={r['window']['any_starved']}")
        if r["status"] != "ok":
            line += " reason=" + r["reason"][:160]
        print(line)
        for t in r["tenants"]:
            print(f"    tenant {t['workload']} procs={t['procs']} qps={t['qps']:.0f} per_proc={t['qps_per_proc']:.0f} "
                  f"solo={fmt(t['solo_qps'], '.0f')} ratio={fmt(t['ratio_per_proc_to_solo'], '.3f')} "
                  f"p50={fmt(t['latency_us']['p50'], '.0f')} p99={fmt(t['latency_us']['p99'], '.0f')}")
        if r["procs"] == 1 and r["workers"]:
            print("    device:", r["workers"][0]["device"])
