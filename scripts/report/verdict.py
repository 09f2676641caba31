#!/usr/bin/env python3
"""The verdict of a hypothesis-matrix run: where the lost throughput goes, and
which remedy brings it back (issue 17).

    verdict.py RUN_DIR [--json]      print the verdict of a scripts/testbox.sh run

testbox_report.py calls verdict_of(doc, run_dir) and puts the result into
testbox.json ("verdict") and summary.md. Everything here is a pure function of
the harness's results.json files (kfdmp schema 2: per-process attribution in
gpu.*, the mid-run KFD observations in kfd.*) and of the matrix's arm
descriptions, so tests/testbox/test_verdict.py checks it on synthetic runs.

Terms (docs/box-run.md):
- mission ratio: aggregate QPS at N / the reference arm's QPS at N=1 (one
  process on the whole GPU, SPX shared). The owner's question is "N processes
  get less than one"; a partition arm is judged against the same whole-GPU
  baseline, not against one process on its own partition.
- lost: 1 - mission ratio of the reference arm at N.
- effect of an arm: its mission ratio - the reference's, with a 95% confidence
  interval (Welch, t quantile at min(n)-1 degrees of freedom) over the
  repeats; needs >= 3 repeats of both, otherwise the interval is null and
  says why. explains = effect / lost (share of the lost QPS the arm brings
  back; > 1: more than the loss).
- signature of a run (classify_run): oversubscribed (the driver says so, or
  the counts exceed the limits), time-sliced (tenants never overlap:
  concurrency ~ 1, each process absent most of the time, kernels not
  slower), contention (tenants overlap and their kernels run slower:
  shared CUs/L2), submit-path (kernels neither slower nor absent, the wait
  before the first kernel grew), or no-loss.
Python 3.6 and the standard library only.
"""
import argparse
import json
import math
import os
import sys

# Per KFD node (partition): a user queue takes one HQD on every XCC of its
# partition, 24 per XCC are left to user queues (KFD-NOTES.md section 8), so a
# partition holds 24 user compute queues whatever its XCC count.
HQDS_PER_PARTITION = 24
# Usable VMIDs per partition: 13 in the code on gfx 9.4.x (11 documented);
# CPX gives each partition 6. DPX/QPX are not documented: 6 is assumed, and
# said so in the evidence.
VMIDS = {"SPX": (13, "KFD VMIDs 3-15 on gfx 9.4.x"), "DPX": (6, "assumed as CPX (not documented)"),
         "QPX": (6, "assumed as CPX (not documented)"), "CPX": (6, "6 VMIDs per CPX partition")}
PARTITIONS = {"SPX": 1, "DPX": 2, "QPX": 4, "CPX": 4}  # MI308X: 4 XCCs
HIP_DEFAULT_QUEUES = 5  # GPU_MAX_HW_QUEUES (4) + 1

HYPOTHESES = [
    ("xcc_l2_sharing", "XCC/L2 and CU sharing: tenants' kernels run slower side by side"),
    ("hws_oversubscription", "HWS oversubscription: more queues than HQDs or processes than VMIDs, "
                             "the runlist is chained and time-sliced"),
    ("submit_path", "submit path: launches and doorbells, not the GPU"),
    ("preemption", "preemption cost: unmapping queues (dequeue retry wait)"),
    ("switches", "this project's switches (slot policy, doorbell placement, queued runlist)"),
]

# t quantiles, 97.5%, by degrees of freedom
_T975 = [None, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
         2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086]


def t975(df):
    if df < 1:
        return None
    return _T975[df] if df < len(_T975) else 1.96


def mean(v):
    return sum(v) / len(v) if v else None


def sd(v):
    if len(v) < 2:
        return None
    m = mean(v)
    return math.sqrt(sum((x - m) ** 2 for x in v) / (len(v) - 1))


def num(x):
    return x if isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) else None


# --- per run ------------------------------------------------------------------

def oversubscription(run, partition="SPX", procs_per_partition=None, hw_queues=None):
    """Oversubscribed or not, and why, for one harness run.

    The counts come from the run's mid-window KFD observations (kfd.queues:
    compute queues per process from sysfs), else from GPU_MAX_HW_QUEUES
    (hw_queues, + 1), else HIP's default of 5; the driver's own word comes from
    kfd.oversubscribed_lines and the mp_stats oversubscription reasons. When
    the driver's word is there it decides; the counts are the evidence."""
    mode = (partition or "SPX").upper()
    n = run.get("procs") or 0
    per_part = procs_per_partition or max(1, math.ceil(n / PARTITIONS.get(mode, 1)))
    kfd = run.get("kfd") or {}
    counts = [q.get("by_type", {}).get("compute", q.get("total", 0)) for q in (kfd.get("queues") or [])]
    if counts:
        qpp, source = max(counts), "read mid-run from /sys/class/kfd/kfd/proc/*/queues"
    elif hw_queues:
        qpp, source = int(hw_queues) + 1, "expected: GPU_MAX_HW_QUEUES=%s + 1" % hw_queues
    else:
        qpp, source = HIP_DEFAULT_QUEUES, "expected: HIP default (GPU_MAX_HW_QUEUES 4 + 1)"
    queues = qpp * per_part
    vmids, vmid_src = VMIDS.get(mode, VMIDS["SPX"])
    reasons = []
    if queues > HQDS_PER_PARTITION:
        reasons.append("queues: %d processes x %d compute queues = %d > %d HQDs per XCC (%s)"
                       % (per_part, qpp, queues, HQDS_PER_PARTITION, source))
    if per_part > vmids:
        reasons.append("processes: %d > %d usable VMIDs (%s)" % (per_part, vmids, vmid_src))
    driver = None
    lines = kfd.get("oversubscribed_lines")
    delta = kfd.get("mp_stats_delta") or {}
    oversub = {}
    for k, v in delta.items():
        key = k.rsplit("/", 1)[-1]
        if key.startswith("oversub_") and num(v) is not None:
            oversub[key] = oversub.get(key, 0) + v
    if oversub:
        driver = oversub.get("oversub_runlists", 0) > 0
        why = [k[len("oversub_"):] for k in ("oversub_processes", "oversub_queues", "oversub_gws")
               if oversub.get(k, 0) > 0]
        if driver:
            reasons.append("driver: %d oversubscribed runlists (mp_stats; reasons: %s)"
                           % (oversub.get("oversub_runlists", 0), ", ".join(why) or "none given"))
    if lines:
        driver = True
        reasons.append("driver: \"Runlist is getting oversubscribed\" logged during the run")
    predicted = queues > HQDS_PER_PARTITION or per_part > vmids
    return {"oversubscribed": driver if driver is not None else predicted,
            "predicted": predicted, "driver": driver, "reasons": reasons,
            "queues_per_process": qpp, "processes_per_partition": per_part,
            "queues_per_partition": queues, "hqds": HQDS_PER_PARTITION, "vmids": vmids}


def classify_run(run, solo=None, oversub=None):
    """Signature of one run at N > 1 from its attribution (gpu.*), against
    the same arm's 1-process run (solo) when given."""
    g = run.get("gpu") or {}
    n = run.get("procs") or 1
    infl = num(g.get("kernel_inflation"))
    conc = num(g.get("concurrency"))
    notres = num(g.get("not_resident_fraction"))
    s2s = num(g.get("submit_to_start_us"))
    ratio = num(run.get("scaling_ratio"))
    ev = {"kernel_inflation": infl, "concurrency": conc, "not_resident_fraction": notres,
          "submit_to_start_us": s2s, "scaling_ratio": ratio}
    if oversub and oversub["oversubscribed"]:
        return "oversubscribed", ev
    if n < 2:
        return "single", ev
    if ratio is not None and ratio >= 0.9 and (infl is None or infl < 1.15):
        return "no-loss", ev
    if None in (infl, notres):
        return "unknown", ev
    notres1 = num(((solo or {}).get("gpu") or {}).get("not_resident_fraction"))
    base = notres1 if notres1 is not None else 0.0
    turn = (notres - base) / max(1e-9, (1 - base) * (1 - 1.0 / n))  # 1: perfect turn-taking
    ev["turn_taking"] = turn
    if infl < 1.1 and (conc is None or conc < 1.1) and turn > 0.5:
        return "time-sliced", ev
    if infl >= 1.15 and (conc is None or conc >= 1.1):
        return "contention", ev
    s2s1 = num(((solo or {}).get("gpu") or {}).get("submit_to_start_us"))
    if s2s is not None and s2s1 and s2s > 2 * s2s1 and infl < 1.1:
        return "submit-path", ev
    return "mixed", ev


SIGNATURE_HYPOTHESIS = {"oversubscribed": "hws_oversubscription", "time-sliced": "hws_oversubscription",
                        "contention": "xcc_l2_sharing", "submit-path": "submit_path"}


def loss_split(run, solo):
    """Where one process's extra query time at N goes, against N=1 (means of
    the per-process attribution): kernels slower while resident, waiting with
    none of its kernels resident (before the first, between them), host side
    after the last. Shares of the added latency; None without attribution."""
    def parts(r):
        p = [x for x in ((r or {}).get("gpu") or {}).get("per_process") or [] if num(x.get("query_us"))]
        if not p:
            return None
        f = lambda k: mean([num(x.get(k)) or 0.0 for x in p])  # noqa: E731
        return {"query": f("query_us"), "resident": f("resident_us"),
                "waiting": f("submit_to_start_us") + f("in_query_gap_us"), "host": f("end_to_host_us")}
    a, b = parts(solo), parts(run)
    if not a or not b or b["query"] <= a["query"]:
        return None
    d = b["query"] - a["query"]
    return {"added_us": d, "slower_kernels": (b["resident"] - a["resident"]) / d,
            "waiting_not_resident": (b["waiting"] - a["waiting"]) / d, "host_side": (b["host"] - a["host"]) / d}


# --- per arm ------------------------------------------------------------------

def qps_by_procs(runs):
    out = {}
    for r in runs:
        if r.get("status") == "ok" and num(r.get("aggregate_qps")) is not None and not r.get("mix"):
            out.setdefault(r["procs"], []).append(r["aggregate_qps"])
    return out


def interval(a, b):
    """Mean difference a - b with a 95% interval (Welch), or a reason."""
    if len(a) < 3 or len(b) < 3:
        return {"effect": (mean(a) - mean(b)) if a and b else None, "ci95": None,
                "why_no_ci": "needs >= 3 repeats of both (have %d and %d)" % (len(a), len(b))}
    se = math.sqrt(sd(a) ** 2 / len(a) + sd(b) ** 2 / len(b))
    h = t975(min(len(a), len(b)) - 1) * se
    d = mean(a) - mean(b)
    return {"effect": d, "ci95": [d - h, d + h], "why_no_ci": None}


def verdict(arms, reference=None, workloads=None, mission_n=(2, 4, 8)):
    """arms: [{"name", "hypothesis", "partition", "reproduce", "status",
    "hw_queues", "workloads": {wl: [harness runs]}}]. Returns the verdict
    document (see docs/box-run.md)."""
    ok = [a for a in arms if a.get("workloads")]
    if not ok:
        return {"available": False, "reason": "no arm has results", "hypotheses": [], "arms": []}
    ref = next((a for a in ok if a["name"] == reference), None) or \
        next((a for a in ok if a.get("hypothesis") == "baseline"), ok[0])
    wls = workloads or sorted({w for a in ok for w in a["workloads"]})
    out_arms = []
    for a in arms:
        entry = {"name": a["name"], "hypothesis": a.get("hypothesis"), "partition": a.get("partition") or "SPX",
                 "reproduce": a.get("reproduce"), "status": a.get("status", "ok"), "workloads": {}}
        for wl in wls:
            runs = (a.get("workloads") or {}).get(wl)
            if not runs:
                continue
            q = qps_by_procs(runs)
            rq = qps_by_procs((ref["workloads"] or {}).get(wl) or [])
            base = mean(rq.get(1, []))
            solo = next((r for r in runs if r.get("procs") == 1 and r.get("status") == "ok"), None)
            per_n = {}
            for n in sorted(q):
                m = [x / base for x in q[n]] if base else []
                row = {"qps_mean": mean(q[n]), "repeats": len(q[n]),
                       "mission_ratio": mean(m) if m else None}
                if n in mission_n and base and rq.get(n):
                    iv = interval(m, [x / base for x in rq[n]])
                    lost = 1 - mean(rq[n]) / base
                    row.update(iv)
                    row["lost"] = lost
                    row["explains"] = iv["effect"] / lost if lost > 0.02 and iv["effect"] is not None else None
                runs_n = [r for r in runs if r.get("procs") == n and r.get("status") == "ok"]
                sigs = []
                for r in runs_n:
                    ov = oversubscription(r, entry["partition"], a.get("procs_per_partition", {}).get(n),
                                          a.get("hw_queues"))
                    sig, ev = classify_run(r, solo, ov)
                    sigs.append({"repeat": r.get("repeat"), "signature": sig, "evidence": ev, "oversubscription": ov})
                row["runs"] = sigs
                if sigs:
                    names = [s["signature"] for s in sigs]
                    row["signature"] = max(set(names), key=names.count)
                    row["loss_split"] = loss_split(runs_n[0], solo) if n > 1 else None
                per_n[str(n)] = row
            entry["workloads"][wl] = per_n
        out_arms.append(entry)

    # Hypotheses: evidence from the reference arm's signatures, effect from
    # the best remedy arm, ranked by the share of the lost QPS it explains.
    ref_entry = next(e for e in out_arms if e["name"] == ref["name"])
    hyps = []
    for key, text in HYPOTHESES:
        support = []
        if key == "preemption":
            # Unmap (preemption) cost of the reference arm, from its mp_stats.
            ms = ref.get("mp_stats") or {}
            if ms.get("preemptions"):
                support.append("%d unmaps, wait mean %s us, p99 <= %s us, max %s us (mp_stats)"
                               % (ms["preemptions"], fmt(num(ms.get("preempt_wait_us_mean")), "%.0f"),
                                  fmt(num(ms.get("preempt_wait_us_p99_bound")), "%.0f"),
                                  fmt(num(ms.get("preempt_wait_us_max")), "%.0f")))
        for wl, per_n in ref_entry["workloads"].items():
            for n, row in per_n.items():
                if SIGNATURE_HYPOTHESIS.get(row.get("signature")) == key:
                    support.append("%s N=%s: %s" % (wl, n, row["signature"]))
        remedies = [e for e in out_arms if e["hypothesis"] == key]
        best = None
        for e in remedies:
            shares = [row["explains"] for per_n in e["workloads"].values() for n, row in per_n.items()
                      if row.get("explains") is not None]
            if shares:
                s = mean(shares)
                if best is None or s > best[1]:
                    best = (e, s)
        effects = []
        if best:
            for wl, per_n in best[0]["workloads"].items():
                for n, row in per_n.items():
                    if row.get("effect") is not None and int(n) in mission_n:
                        effects.append({"workload": wl, "procs": int(n), "effect": row["effect"],
                                        "ci95": row["ci95"], "why_no_ci": row["why_no_ci"],
                                        "explains": row.get("explains")})
        skipped = [(e["name"], e["status"]) for e in remedies if e["status"] != "ok"]
        hyps.append({"hypothesis": key, "description": text, "evidence": support,
                     "remedy_arms": [e["name"] for e in remedies], "skipped_arms": skipped,
                     "best_arm": best[0]["name"] if best else None,
                     "explains_mean": best[1] if best else None, "effects": effects,
                     "reproduce": best[0]["reproduce"] if best else None})
    hyps.sort(key=lambda h: -(h["explains_mean"] if h["explains_mean"] is not None else -1e9))
    for i, h in enumerate(hyps):
        h["rank"] = i + 1
    return {"available": True, "reference": ref["name"], "workloads": wls, "hypotheses": hyps, "arms": out_arms}


# --- from a run directory -------------------------------------------------------

def read_env(path):
    env = {}
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                line = line.rstrip("\n")
                if line and not line.startswith("#") and "=" in line:
                    k, v = line.split("=", 1)
                    env[k.strip()] = v
    except OSError:
        pass
    return env


def arms_from_run(run_dir, doc=None):
    """The arms of a scripts/testbox.sh run: configs/<name>/config.env (with
    the matrix's hypothesis, partition and kfdmp options), partition.env
    (scripts/testbox-partition.sh: the mode the arm really ran in),
    <workload>/results.json. arm.env holds the matrix's hypothesis,
    partition and kfdmp options (scripts/testbox-partition.sh)."""
    cdir = os.path.join(run_dir, "configs")
    names = [c["name"] for c in (doc or {}).get("configurations", [])] or \
        (sorted(os.listdir(cdir)) if os.path.isdir(cdir) else [])
    arms = []
    for name in names:
        d = os.path.join(cdir, name)
        env = read_env(os.path.join(d, "config.env"))
        env.update(read_env(os.path.join(d, "arm.env")))  # hypothesis, partition, kfdmp_args
        part = read_env(os.path.join(d, "partition.env"))
        status = "ok"
        try:
            with open(os.path.join(d, "status"), encoding="utf-8") as f:
                status = f.read().strip() or "ok"
        except OSError:
            status = "not run"
        args = env.get("kfdmp_args", "").split()
        hwq = None
        if "--hw-queues" in args and args.index("--hw-queues") + 1 < len(args):
            hwq = args[args.index("--hw-queues") + 1]
        wls = {}
        for wl in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            p = os.path.join(d, wl, "results.json")
            if os.path.isfile(p):
                try:
                    with open(p, encoding="utf-8") as f:
                        wls[wl] = json.load(f).get("runs", [])
                except (OSError, ValueError):
                    continue
        arms.append({"name": name, "hypothesis": env.get("hypothesis") or "switches",
                     "partition": part.get("compute") or (env.get("partition") or "-").replace("-", "") or "SPX",
                     "memory_partition": part.get("memory"), "partition_status": part.get("status"),
                     "reproduce": "scripts/testbox.sh --configs %s" % name, "status": status,
                     "hw_queues": hwq, "workloads": wls})
    return arms


def verdict_of(doc, run_dir):
    arms = arms_from_run(run_dir, doc)
    by_name = {c["name"]: c for c in (doc or {}).get("configurations", [])}
    for a in arms:
        a["mp_stats"] = (by_name.get(a["name"]) or {}).get("mp_stats")
    ref = "spx-shared" if any(a["name"] == "spx-shared" for a in arms) else \
        ("stock" if any(a["name"] == "stock" for a in arms) else None)
    return verdict(arms, reference=ref)


def fmt(x, f="%.3f"):
    return "-" if x is None else f % x


def markdown(v):
    L = ["## Verdict: where the lost throughput goes", ""]
    if not v.get("available"):
        return L + ["No verdict: %s." % v.get("reason"), ""]
    L += ["Reference arm `%s` (one process on the whole GPU at N=1 is 1.0). Effects are mission-ratio "
          "differences to the reference with a 95%% interval over the repeats; \"explains\" is the share "
          "of the reference's lost QPS the arm brings back." % v["reference"], "",
          "| rank | hypothesis | evidence in the reference arm | best remedy arm | explains (mean) | reproduce |",
          "| --- | --- | --- | --- | --- | --- |"]
    for h in v["hypotheses"]:
        ev = "; ".join(h["evidence"][:4]) or "none"
        arm = h["best_arm"] or ("skipped: " + "; ".join("%s (%s)" % s for s in h["skipped_arms"])
                                if h["skipped_arms"] else "no arm ran")
        L.append("| %d | %s | %s | %s | %s | %s |" % (h["rank"], h["hypothesis"], ev, arm,
                                                      fmt(h["explains_mean"], "%.2f"),
                                                      "`%s`" % h["reproduce"] if h["reproduce"] else "-"))
    L += ["", "Mission ratio (aggregate QPS at N / reference at N=1) per arm:", ""]
    for wl in v["workloads"]:
        L += ["**%s**" % wl, "", "| arm | partition | N=1 | N=2 | N=4 | N=8 | signature at N=2/4/8 |",
              "| --- | --- | --- | --- | --- | --- | --- |"]
        for a in v["arms"]:
            per_n = a["workloads"].get(wl)
            if not per_n:
                L.append("| %s | %s | %s | | | | |" % (a["name"], a["partition"], a["status"]))
                continue
            cells = []
            for n in ("1", "2", "4", "8"):
                row = per_n.get(n)
                if not row:
                    cells.append("")
                    continue
                c = fmt(row["mission_ratio"])
                if row.get("ci95"):
                    c += " (%+.3f [%+.3f, %+.3f])" % (row["effect"], row["ci95"][0], row["ci95"][1])
                cells.append(c)
            sig = "/".join((per_n.get(n) or {}).get("signature", "-") for n in ("2", "4", "8"))
            L.append("| %s | %s | %s | %s |" % (a["name"], a["partition"], " | ".join(cells), sig))
        L.append("")
    return L


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run_dir")
    ap.add_argument("--json", action="store_true", help="print the verdict document")
    a = ap.parse_args(argv)
    if not os.path.isdir(a.run_dir):
        print("verdict.py: %s is not a directory" % a.run_dir, file=sys.stderr)
        return 2
    v = verdict_of(None, a.run_dir)
    print(json.dumps(v, indent=1, sort_keys=True) if a.json else "\n".join(markdown(v)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
