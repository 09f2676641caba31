#!/usr/bin/env python3
"""What the exec bridge adds to a 1 ms query (issue 24): a benchmark, not a
timed test.

Runs, alternately and R times each, at one process:
  in-process: kfdmp --worker-bin kfdmp-test-worker --workload sleep --iters US
              (the worker's query is usleep(US), inside the worker process)
  exec:       kfdmp --exec 'kfdmp-exec-sleep-worker US'
              (the same usleep(US) in a command behind the line protocol:
              query line out, done line back, through kfdmp-exec-worker);
              the worker takes the closed loop's `pipeline=1` (the next
              query is sent ahead: docs/exec-workers.md, "Overhead")
  exec-nopipe: the same with KFDMP_EXEC_PIPELINE=0 in kfdmp's environment
              (no query sent ahead: both pipe hops on the critical path)
All go through the same launcher, window and aggregation, so the
difference is the bridge: two pipe writes, two reads, one more process hop.

Prints the per-query overhead (mean latency difference, and QPS loss) as a
percentage of the in-process query, with a 95% interval over the R rounds,
for each exec variant.

  tests/harness/bench/exec_overhead.py BUILD_DIR [--repeats R] [--us US] [--duration S]
                                       [--pipeline both|on|off]

BUILD_DIR holds kfdmp, kfdmp-exec-worker, kfdmp-test-worker and
kfdmp-exec-sleep-worker (any -DKFDMP_GPU configuration). Python 3.6+.
"""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

# Two-sided 95% Student t quantiles by degrees of freedom (1..30).
T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
       2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
       2.052, 2.048, 2.045, 2.042]


def interval(values):
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, float("nan")
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    t = T95[n - 2] if n - 2 < len(T95) else 1.96
    return mean, t * sd / math.sqrt(n)


def run(build, args, duration, env=None):
    out = tempfile.mkdtemp(prefix="kfdmp-bench-")
    try:
        cmd = [os.path.join(build, "kfdmp"), "--procs", "1", "--duration", str(duration), "--warmup", "0.5",
               "--stamp-every", "0", "--out", out] + args
        e = dict(os.environ)
        e.pop("KFDMP_EXEC_PIPELINE", None)
        e.update(env or {})
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=e)
        so, se = p.communicate()
        if p.returncode != 0:
            sys.exit("exec_overhead: %s failed (%d): %s" % (" ".join(cmd), p.returncode,
                                                           se.decode("utf-8", "replace")[-2000:]))
        with open(os.path.join(out, "results.json")) as f:
            r = json.load(f)["runs"][0]
        w = r["workers"][0]
        return r["aggregate_qps"], 1e6 / r["aggregate_qps"], r["latency_us"]["p50"], w["device"]
    finally:
        shutil.rmtree(out, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build")
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--us", type=int, default=1000, help="query length in microseconds (default 1000)")
    ap.add_argument("--duration", type=float, default=3.0, help="window per run, seconds (default 3)")
    ap.add_argument("--pipeline", choices=("both", "on", "off"), default="both",
                    help="exec variants: pipelined (on), KFDMP_EXEC_PIPELINE=0 (off), or both (default)")
    a = ap.parse_args()
    for b in ("kfdmp", "kfdmp-exec-worker", "kfdmp-test-worker", "kfdmp-exec-sleep-worker"):
        if not os.access(os.path.join(a.build, b), os.X_OK):
            sys.exit("exec_overhead: %s/%s is missing (build it)" % (a.build, b))
    inproc = ["--worker-bin", os.path.join(a.build, "kfdmp-test-worker"), "--workload", "sleep", "--iters", str(a.us)]
    execw = ["--exec", "%s %d" % (os.path.join(a.build, "kfdmp-exec-sleep-worker"), a.us)]
    variants = [("in", inproc, None)]
    if a.pipeline in ("both", "on"):
        variants.append(("exec", execw, None))
    if a.pipeline in ("both", "off"):
        variants.append(("exec-nopipe", execw, {"KFDMP_EXEC_PIPELINE": "0"}))
    names = [v[0] for v in variants[1:]]
    d_time, d_qps, d_p50, d_p50_pct = [dict((n, []) for n in names) for _ in range(4)]
    print("round  in-process qps" + "".join("  %16s  %8s  %8s" % (n + " qps", "us/query", "overhead") for n in names))
    for i in range(a.repeats):
        # Rotate the order, so drift does not fall on one side.
        k = i % len(variants)
        order = variants[k:] + variants[:k]
        res = {}
        for name, args, env in order:
            res[name] = run(a.build, args, a.duration, env)
        qi, ti, pi, _ = res["in"]
        row = "%5d  %14.1f" % (i + 1, qi)
        for n in names:
            qe, te, pe, _ = res[n]
            d_time[n].append(100.0 * (te - ti) / ti)
            d_qps[n].append(100.0 * (qi - qe) / qi)
            d_p50[n].append(pe - pi)
            d_p50_pct[n].append(100.0 * (pe - pi) / pi)
            row += "  %16.1f  %8.2f  %+7.3f%%" % (qe, te, d_time[n][-1])
        print(row)
    for n in names:
        m, h = interval(d_time[n])
        mq, hq = interval(d_qps[n])
        mp, hp = interval(d_p50[n])
        mpp, hpp = interval(d_p50_pct[n])
        print("")
        print("%s: bridge overhead on a %d us query, %d rounds, 95%% interval:" % (n, a.us, a.repeats))
        print("  time per query: %+.3f%% +- %.3f%%" % (m, h))
        print("  QPS loss:       %+.3f%% +- %.3f%%" % (mq, hq))
        print("  p50 latency:    %+.2f us +- %.2f us (%+.3f%% +- %.3f%%)" % (mp, hp, mpp, hpp))
        print("  target < 1%%: %s" % ("met" if m + h < 1.0 else "NOT met (upper bound %.3f%%)" % (m + h)))


if __name__ == "__main__":
    main()
