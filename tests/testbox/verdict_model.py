#!/usr/bin/env python3
"""Run directories of scripts/testbox.sh, synthesised from a stated model, for
the verdict's tests (tests/testbox/test_verdict.py, issue 25).

    verdict_model.py SCENARIO OUT_DIR [--seed S] [--repeats R]   write one run

The model. Each arm runs the harness at N = 1, 2, 4, 8 (DPX: 1, 2; CPX: 1, 4,
8), `repeats` times per N. Repeat r of an arm at N has aggregate QPS

    qps = BASE_QPS[workload] * capacity(arm, N) * (1 - sum of the losses that
          apply to the arm at N) * (1 + e),   e ~ Normal(0, noise)

- capacity: 1 on SPX; a partition arm with P partitions uses min(N, P) / P of
  the GPU (CPX at N=1: a quarter);
- the losses (scenario parameters, each a share of one process's QPS):
  fixed      at every N >= 2 in every arm (nothing changes it);
  oversub    where the queues per partition exceed 24 HQDs: processes per
             partition x (GPU_MAX_HW_QUEUES + 1, HIP's default 5) (+ the queues
             of an idle-queue arm's extra processes);
  cu         where >= 2 processes share a partition's CUs (not with the CU split);
  l2         where >= 2 processes share a partition's L2, at N in l2_at;
  submit     at every N >= 2, unless the arm replays graphs;
- latency of a run (closed loop: each process issues its next query when the
  last returns): p50 = N / qps seconds, p99 = p50 * tail * (1 + e'), tail 1.4
  (an arm's own tail where the scenario gives one), e' ~ Normal(0, noise).

The arms are today's matrix (tests/testbox/matrix.conf, 13 arms), written as
scripts/testbox.sh writes them: configs/<arm>/{arm.env, config.env, status,
partition.env, <workload>/results.json (kfdmp schema 2), <workload>/workload.env}
and run.env. Scenarios (SCENARIOS): null, no_fix, idle_queue, cu_only,
confounded, trade_off, missing_arm, phase1, few_repeats, new_arms.
Python 3.6, standard library.
"""
import argparse
import json
import math
import os
import random
import shutil
import sys

BASE_QPS = {"latency": 115.5, "saturate": 41.8}
WORKLOADS = ("latency", "saturate")
HQDS = 24
HIP_QUEUES = 5

# name, hypothesis, partition, kfdmp options, amdgpu parameters: today's matrix
ARMS = [
    ("stock", "baseline", "SPX", "", ""),
    ("spx-xcc-split", "xcc_l2_sharing", "SPX", "--cu-split-xcc 4", ""),
    ("dpx", "xcc_l2_sharing", "DPX", "--procs 1,2 --devices 0,1", ""),
    ("cpx", "xcc_l2_sharing", "CPX", "--procs 1,4,8 --devices 0,1,2,3", ""),
    ("hwq1", "hws_oversubscription", "SPX", "--hw-queues 1", ""),
    ("hwq2", "hws_oversubscription", "SPX", "--hw-queues 2", ""),
    ("hwq4", "hws_oversubscription", "SPX", "--hw-queues 4", ""),
    ("graph", "submit_path", "SPX", "--graph", ""),
    ("dequeue-wait", "preemption", "SPX", "", "kfd_short_dequeue_wait=on"),
    ("slot-index", "switches", "SPX", "", "kfd_queue_slot_policy=index"),
    ("doorbell-index", "switches", "SPX", "", "kfd_doorbell_placement=index"),
    ("queued-rl", "switches", "SPX", "", "kfd_queued_runlist=on"),
    ("all", "switches", "SPX", "", "kfd_mp=1"),
]
# issue 24's hypotheses, and one verdict.py does not know
NEW_ARMS = [
    ("threads1", "host_threads", "SPX", "--threads 1", ""),
    ("numa-pin", "cpu_placement", "SPX", "--pin numa", ""),
    ("idle-q4", "idle_queues", "SPX", "--idle-procs 4", ""),
    ("hwq4-floor", "noise_floor", "SPX", "--hw-queues 4", ""),
    ("mystery", "mystery_hypothesis", "SPX", "", ""),
]
IDLE_PROCS = {"idle-q4": 4}
PARTS = {"SPX": 1, "DPX": 2, "CPX": 4}
PROCS = (1, 2, 4, 8)


def opt(args, name, default=None):
    a = args.split()
    return a[a.index(name) + 1] if name in a and a.index(name) + 1 < len(a) else default


class Scenario(object):
    """The stated model's parameters (see the module's docstring)."""

    def __init__(self, name, noise=0.02, fixed=0.0, oversub=0.0, cu=0.0, l2=0.0, l2_at=(2, 4, 8), submit=0.0,
                 tail=None, repeats=3, drop=(), skip=None, extra_arms=(), same=False):
        self.name, self.noise, self.fixed, self.oversub, self.cu, self.l2 = name, noise, fixed, oversub, cu, l2
        self.l2_at, self.submit, self.tail, self.repeats = tuple(l2_at), submit, dict(tail or {}), repeats
        self.drop, self.skip, self.extra_arms, self.same = set(drop), dict(skip or {}), list(extra_arms), same

    def arms(self):
        return [a for a in ARMS + self.extra_arms if a[0] not in self.drop]

    def mean_ratio(self, arm, n):
        """The model's mean mission ratio of arm at N (without noise)."""
        name, hyp, part, args, params = arm
        if self.same:  # every arm the same distribution
            return 1.0 - (self.fixed if n > 1 else 0.0)
        parts = PARTS[part]
        cap = min(n, parts) / float(parts)
        per_part = int(math.ceil(n / float(parts)))
        hwq = opt(args, "--hw-queues")
        qpp = int(hwq) + 1 if hwq else HIP_QUEUES
        queues = per_part * qpp + IDLE_PROCS.get(name, 0) * HIP_QUEUES
        loss = 0.0
        if n > 1:
            loss += self.fixed
            if "--graph" not in args.split():
                loss += self.submit
        if queues > HQDS:
            loss += self.oversub
        if per_part >= 2 and "--cu-split-xcc" not in args:
            loss += self.cu
        if per_part >= 2 and n in self.l2_at:
            loss += self.l2
        return cap * (1.0 - loss)

    def procs(self, arm):
        p = opt(arm[3], "--procs")
        return tuple(int(x) for x in p.split(",")) if p else PROCS


def results(sc, arm, wl, rng):
    runs, summary = [], []
    name, hyp, part, args, params = arm
    hwq = opt(args, "--hw-queues")
    qpp = int(hwq) + 1 if hwq else HIP_QUEUES
    for n in sc.procs(arm):
        mu = sc.mean_ratio(arm, n)
        qs = []
        for rep in range(sc.repeats):
            q = BASE_QPS[wl] * mu * (1 + rng.gauss(0, sc.noise))
            q = max(q, 1e-3)
            p50 = n / q * 1e6
            p99 = p50 * sc.tail.get(name, 1.4) * (1 + rng.gauss(0, sc.noise))
            qs.append(q)
            shared = n > 1 and mu < 1
            runs.append({"procs": n, "repeat": rep, "status": "ok", "reason": "", "aggregate_qps": q,
                         "scaling_ratio": None, "jain_index": 1.0,
                         "latency_us": {"p50": round(p50, 3), "p99": round(p99, 3)},
                         "gpu": {"available": True, "kernel_inflation": 1.5 if shared else 1.0,
                                 "concurrency": float(n) if shared else 1.0, "not_resident_fraction": 0.1,
                                 "submit_to_start_us": 12.0, "per_process": []},
                         "kfd": {"queues": [{"pid": 1000 + i, "total": qpp, "by_type": {"compute": qpp}}
                                            for i in range(n)], "oversubscribed_lines": [], "absent": []}})
        summary.append({"procs": n, "runs": len(qs), "qps_mean": sum(qs) / len(qs), "qps_min": min(qs),
                        "qps_max": max(qs), "spread_pct": (max(qs) - min(qs)) / (sum(qs) / len(qs)) * 100,
                        "scaling_ratio": None})
    one = [r["aggregate_qps"] for r in runs if r["procs"] == 1]
    b = sum(one) / len(one) if one else None
    for r in runs:
        r["scaling_ratio"] = r["aggregate_qps"] / b if b else None
    for s in summary:
        s["scaling_ratio"] = s["qps_mean"] / b if b else None
    return {"schema_version": 2, "tool": "kfdmp", "backend": "hip", "host": "MODEL-" + sc.name,
            "started_at": "2026-11-27T00:00:00Z",
            "config": {"workload": wl, "procs": list(sc.procs(arm)), "repeat": sc.repeats, "duration_s": 3,
                       "warmup_s": 1, "hw_queues": int(hwq) if hwq else None},
            "runs": runs, "summary": summary}


def write(path, text):
    d = os.path.dirname(path)
    if not os.path.isdir(d):
        os.makedirs(d)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def write_run(sc, out, seed):
    """Writes the run directory of scenario sc with the given seed; returns out."""
    rng = random.Random(seed)
    if os.path.isdir(out):
        shutil.rmtree(out)
    arms = sc.arms()
    write(os.path.join(out, "run.env"), "\n".join([
        "# MODEL run (tests/testbox/verdict_model.py), not a measurement", "synthetic=1",
        "run_id=model-%s-%d" % (sc.name, seed), "procs=1,2,4,8", "repeat=%d" % sc.repeats,
        "matrix=tests/testbox/matrix.conf", "configs=" + " ".join(a[0] for a in arms),
        "workloads=" + " ".join(WORKLOADS), ""]))
    for arm in arms:
        name, hyp, part, args, params = arm
        cdir = os.path.join(out, "configs", name)
        write(os.path.join(cdir, "arm.env"), "hypothesis=%s\npartition=%s\nkfdmp_args=%s\n" % (hyp, part, args))
        if name in sc.skip:
            write(os.path.join(cdir, "status"), "skipped: %s\n" % sc.skip[name])
            continue
        write(os.path.join(cdir, "config.env"), "name=%s\nparams=%s\ndescription=model arm\n" % (name, params))
        write(os.path.join(cdir, "status"), "ok\n")
        if part != "-":
            write(os.path.join(cdir, "partition.env"), "compute=%s\nmemory=NPS1\nnodes=%d\nstatus=ok\ndetail=\n"
                  % (part, PARTS[part]))
        for wl in WORKLOADS:
            write(os.path.join(cdir, wl, "results.json"), json.dumps(results(sc, arm, wl, rng)) + "\n")
            write(os.path.join(cdir, wl, "workload.env"), "exit_code=0\n")
    return out


SCENARIOS = {
    # the issue's pure noise: every arm the same distribution, 3% mean loss, 4% run-to-run noise
    "null": Scenario("null", noise=0.04, fixed=0.03, same=True),
    # a 30% loss at every N that no arm changes
    "no_fix": Scenario("no_fix", noise=0.015, fixed=0.30),
    # each process opens 5 queues and uses 1: a loss only past 24 queues per
    # partition (N=8 on SPX: 40); hwq1 (16) and hwq2 (24) and CPX (10) fix it
    "idle_queue": Scenario("idle_queue", noise=0.03, oversub=0.35),
    # tenants' kernels share CUs: the CU split and the partitions fix it
    "cu_only": Scenario("cu_only", noise=0.02, cu=0.25),
    # L2/XCC sharing at N = 4 and 8: only CPX (one process per partition at N=4) changes it
    "confounded": Scenario("confounded", noise=0.02, l2=0.30, l2_at=(4, 8)),
    # the submit path: graph replay brings the throughput back and quadruples p99's tail
    "trade_off": Scenario("trade_off", noise=0.02, submit=0.30, tail={"graph": 5.6}),
    # idle_queue without hwq1 and with hwq2 skipped
    "missing_arm": Scenario("missing_arm", noise=0.03, oversub=0.35, drop=("hwq1",),
                            skip={"hwq2": "the loaded amdgpu has no parameter kfd_example (optional ?kfd_example=1)"}),
    # cu_only in a phase-1 run (issue 24): the partition arms skipped with their reason
    "phase1": Scenario("phase1", noise=0.02, cu=0.25,
                       skip={"cpx": "phase 2 (driver) arm: a compute partition; run with PHASE=driver",
                             "dpx": "phase 2 (driver) arm: a compute partition; run with PHASE=driver"}),
    # idle_queue with 2 repeats
    "few_repeats": Scenario("few_repeats", noise=0.03, oversub=0.35, repeats=2),
    # idle_queue with issue 24's arms and an unknown hypothesis
    "new_arms": Scenario("new_arms", noise=0.03, oversub=0.35, extra_arms=NEW_ARMS),
}


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenario", choices=sorted(SCENARIOS))
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=None)
    a = ap.parse_args(argv)
    sc = SCENARIOS[a.scenario]
    if a.repeats:
        sc.repeats = a.repeats
    print("verdict_model: wrote %s" % write_run(sc, a.out, a.seed))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
