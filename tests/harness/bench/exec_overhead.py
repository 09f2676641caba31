#!/usr/bin/env python3
"""What the exec bridge adds to a 1 ms query (issue 24): a benchmark, not a
timed test.

Runs, alternately and R times each, at one process:
  in-process: kfdmp --worker-bin kfdmp-test-worker --workload sleep --iters US
              (the worker's query is usleep(US), inside the worker process)
  exec:       kfdmp --exec 'kfdmp-exec-sleep-worker US'
              (the same usleep(US) in a command behind the line protocol:
              query line out, done line back, through kfdmp-exec-worker)
Both go through the same launcher, window and aggregation, so the
difference is the bridge: two pipe writes, two reads, one more process hop.

Prints the per-query overhead (mean latency difference, and QPS loss) as a
percentage of the in-process query, with a 95% interval over the R pairs.

  tests/harness/bench/exec_overhead.py BUILD_DIR [--repeats R] [--us US] [--duration S]

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


def run(build, args, duration):
    out = tempfile.mkdtemp(prefix="kfdmp-bench-")
    try:
        cmd = [os.path.join(build, "kfdmp"), "--procs", "1", "--duration", str(duration), "--warmup", "0.5",
               "--stamp-every", "0", "--out", out] + args
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
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
    a = ap.parse_args()
    for b in ("kfdmp", "kfdmp-exec-worker", "kfdmp-test-worker", "kfdmp-exec-sleep-worker"):
        if not os.access(os.path.join(a.build, b), os.X_OK):
            sys.exit("exec_overhead: %s/%s is missing (build it)" % (a.build, b))
    inproc = ["--worker-bin", os.path.join(a.build, "kfdmp-test-worker"), "--workload", "sleep", "--iters", str(a.us)]
    execw = ["--exec", "%s %d" % (os.path.join(a.build, "kfdmp-exec-sleep-worker"), a.us)]
    d_time, d_qps, d_p50, d_p50_pct = [], [], [], []
    print("pair  in-process qps  exec qps   in-proc us/query  exec us/query  overhead")
    for i in range(a.repeats):
        # Alternate the order, so drift does not fall on one side.
        pair = [("in", inproc), ("exec", execw)] if i % 2 == 0 else [("exec", execw), ("in", inproc)]
        res = {}
        for name, args in pair:
            res[name] = run(a.build, args, a.duration)
        qi, ti, pi, _ = res["in"]
        qe, te, pe, _ = res["exec"]
        d_time.append(100.0 * (te - ti) / ti)
        d_qps.append(100.0 * (qi - qe) / qi)
        d_p50.append(pe - pi)
        d_p50_pct.append(100.0 * (pe - pi) / pi)
        print("%4d  %14.1f  %8.1f  %16.2f  %13.2f  %+7.3f%%" % (i + 1, qi, qe, ti, te, d_time[-1]))
    m, h = interval(d_time)
    mq, hq = interval(d_qps)
    mp, hp = interval(d_p50)
    mpp, hpp = interval(d_p50_pct)
    print("")
    print("exec bridge overhead on a %d us query, %d pairs, 95%% interval:" % (a.us, a.repeats))
    print("  time per query: %+.3f%% +- %.3f%%" % (m, h))
    print("  QPS loss:       %+.3f%% +- %.3f%%" % (mq, hq))
    print("  p50 latency:    %+.2f us +- %.2f us (%+.3f%% +- %.3f%%)" % (mp, hp, mpp, hpp))
    print("  target < 1%%: %s" % ("met" if m + h < 1.0 else "NOT met (upper bound %.3f%%)" % (m + h)))


if __name__ == "__main__":
    main()
