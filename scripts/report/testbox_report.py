#!/usr/bin/env python3
"""Report of a test-box run (scripts/testbox.sh): Markdown, one JSON document, PNG plots.

    testbox_report.py RUN_DIR [--out DIR] [--no-plots] [--check]

RUN_DIR is what scripts/testbox.sh writes (layout: scripts/report/README.md);
tests/testbox/sample/ is a recorded, synthetic one. The report goes to
DIR (default RUN_DIR/report): summary.md, testbox.json, plots/*.png (with
gnuplot; without it the .dat/.gp files are written and a message says the
PNGs were skipped). --check validates testbox.json against the schema
(scripts/report/README.md) and fails on any error.

Exit status: 0; 1 when the run directory cannot be read or the document
fails its own schema check; 2 usage. Python 3 standard library only.
"""
import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import verdict  # noqa: E402  (scripts/report/verdict.py, issue 17)

SCHEMA = "kfdmp-testbox"
SCHEMA_VERSION = 1
OVERSUB_TEXT = "Runlist is getting oversubscribed"
# Kernel log lines that mean the configuration's numbers are suspect.
TROUBLE_RE = re.compile(r"(GPU reset|HWS hang|hws hang|Failed to evict|[Pp]reemption failed|"
                        r"timeout|BUG:|WARNING:|Oops|Call Trace|invalid for parameter|"
                        r"invalid value|unknown parameter)")
TRACE_EVENTS = ("kfd_queue_create", "kfd_queue_destroy", "kfd_doorbell_bo_alloc",
                "kfd_runlist_submit", "kfd_unmap_queues")


class RunError(Exception):
    pass


# --- readers ---------------------------------------------------------------

def read_text(path, default=None):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return default


def read_env(path):
    """KEY=VALUE lines (no shell quoting; the value is the rest of the line)."""
    env = {}
    for line in (read_text(path, "") or "").splitlines():
        if line and not line.startswith("#") and "=" in line:
            k, v = line.split("=", 1)
            env[k.strip()] = v
    return env


def read_tsv(path, ncols):
    rows = []
    for line in (read_text(path, "") or "").splitlines():
        if line and not line.startswith("#"):
            cols = line.split("\t")
            rows.append((cols + [""] * ncols)[:ncols])
    return rows


def parse_number(s):
    try:
        return int(s, 0)
    except ValueError:
        try:
            return float(s)
        except ValueError:
            return None


def parse_mp_stats(text):
    """{section: {key: int | float | [int] | str}} of debugfs kfd/mp_stats.

    "node N gpu_id G:" (any line ending in ':' with no value) opens a
    section; "name: value" lines follow. A value of space-separated numbers
    (the log2 histograms) becomes a list. None when the text is absent."""
    if text is None or text.strip() in ("", "absent"):
        return None
    out = {}
    section = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or ":" not in line:
            continue
        key, _, value = line.partition(":")
        key, value = key.strip(), value.strip()
        if not value:
            section = key
            out.setdefault(section, {})
            continue
        parts = value.split()
        nums = [parse_number(p) for p in parts]
        if len(parts) > 1 and all(n is not None for n in nums):
            v = nums
        elif len(parts) == 1 and nums[0] is not None:
            v = nums[0]
        else:
            v = value
        out.setdefault(section, {})[key] = v
    return out


# Keys whose value is a level (since reset), not a count: report "after".
def is_level(key):
    return key.endswith("_max") or key.startswith("peak_") or key == "since_reset_ms"


def mp_delta(before, after):
    """after - before per section and key: counts subtract (lists element-wise),
    levels and text take the after value."""
    if after is None:
        return None
    before = before or {}
    out = {}
    for sec, kv in after.items():
        b = before.get(sec, {})
        d = {}
        for k, v in kv.items():
            old = b.get(k)
            if is_level(k) or isinstance(v, str):
                d[k] = v
            elif isinstance(v, list):
                old = old if isinstance(old, list) and len(old) == len(v) else [0] * len(v)
                d[k] = [x - y for x, y in zip(v, old)]
            else:
                d[k] = v - (old if isinstance(old, (int, float)) else 0)
        out[sec] = d
    return out


def hist_quantile(buckets, q):
    """Upper bound (us) of the bucket holding quantile q of a log2 histogram
    (bucket 0: value 0; bucket i: [2^(i-1), 2^i))."""
    total = sum(buckets)
    if total <= 0:
        return None
    seen = 0
    for i, n in enumerate(buckets):
        seen += n
        if seen >= q * total:
            return 0 if i == 0 else 2 ** i
    return 2 ** (len(buckets) - 1)


def mp_summary(delta):
    """Totals over the nodes of an mp_stats delta: what the report shows."""
    if delta is None:
        return None
    s = {"nodes": len(delta), "runlists": 0, "runlist_failures": 0, "preemptions": 0,
         "preemption_failures": 0, "preempt_wait_us_total": 0, "preempt_wait_us_max": 0,
         "oversub_runlists": 0, "oversub_processes": 0, "oversub_queues": 0, "oversub_gws": 0,
         "peak_processes": 0, "peak_active_queues": 0, "runlist_us_total": 0}
    hist = None
    keymap = {"runlists": "runlists", "runlist_failures": "runlist_failures", "unmaps": "preemptions",
              "unmap_failures": "preemption_failures", "preempt_us_total": "preempt_wait_us_total",
              "oversub_runlists": "oversub_runlists", "oversub_processes": "oversub_processes",
              "oversub_queues": "oversub_queues", "oversub_gws": "oversub_gws",
              "runlist_us_total": "runlist_us_total"}
    for kv in delta.values():
        for k, target in keymap.items():
            if isinstance(kv.get(k), (int, float)):
                s[target] += kv[k]
        for k, target in (("preempt_us_max", "preempt_wait_us_max"), ("peak_processes", "peak_processes"),
                          ("peak_active_queues", "peak_active_queues")):
            if isinstance(kv.get(k), (int, float)):
                s[target] = max(s[target], kv[k])
        h = kv.get("preempt_us_log2_hist")
        if isinstance(h, list):
            hist = h if hist is None else [a + b for a, b in zip(hist, h)]
    s["preempt_wait_us_mean"] = (s["preempt_wait_us_total"] / s["preemptions"]) if s["preemptions"] else None
    s["preempt_wait_us_p99_bound"] = hist_quantile(hist, 0.99) if hist else None
    s["preempt_wait_log2_hist"] = hist
    return s


def trace_counts(path):
    """Events per name in a trace-cmd text report, and the sum of wait_us of
    kfd_unmap_queues. None when there is no trace."""
    text = read_text(path)
    if text is None:
        return None
    counts = {e: 0 for e in TRACE_EVENTS}
    wait = 0
    for line in text.splitlines():
        m = re.search(r"\s(kfd_\w+):\s", line)
        if not m:
            continue
        counts[m.group(1)] = counts.get(m.group(1), 0) + 1
        if m.group(1) == "kfd_unmap_queues":
            w = re.search(r"wait_us=(\d+)", line)
            wait += int(w.group(1)) if w else 0
    return {"events": counts, "unmap_wait_us_total": wait}


def kernel_log_summary(path):
    text = read_text(path)
    if text is None:
        return None
    lines = text.splitlines()
    trouble = [l for l in lines if TROUBLE_RE.search(l) and OVERSUB_TEXT not in l]
    return {"lines": len(lines), "oversubscribed": sum(OVERSUB_TEXT in l for l in lines),
            "trouble": trouble[:20], "trouble_count": len(trouble)}


def queue_samples(path):
    """queues.tsv (epoch_s, pid, queues): the maximum per pid and the peak total."""
    rows = read_tsv(path, 3)
    if not rows:
        return None
    per_pid, per_t = {}, {}
    for t, pid, n in rows:
        n = parse_number(n) or 0
        per_pid[pid] = max(per_pid.get(pid, 0), n)
        per_t[t] = per_t.get(t, 0) + n
    return {"samples": len(per_t), "processes": len(per_pid), "max_queues_per_process": max(per_pid.values()),
            "peak_total_queues": max(per_t.values())}


def num(x):
    return x if isinstance(x, (int, float)) and not (isinstance(x, float) and not math.isfinite(x)) else None


def transition_of(t):
    """A results.json transition ({p50_us, p99_us, samples} or {unavailable})."""
    t = t if isinstance(t, dict) else {}
    return {"p50_us": num(t.get("p50_us")), "p99_us": num(t.get("p99_us")), "samples": t.get("samples"),
            "unavailable": t.get("unavailable") if isinstance(t.get("unavailable"), str) else None}


def target_state(s):
    """pass | fail | unavailable: the word a harness target check starts with."""
    s = s if isinstance(s, str) else ""
    for w in ("pass", "fail", "unavailable"):
        if s == w or s.startswith(w + ":"):
            return w
    return "unavailable"


SUMMARY_STATES = ("pass", "fail", "inconclusive", "unavailable")


def summary_state(s):
    """pass | fail | inconclusive | unavailable: the word a harness check over
    repeats (results.json tenant.summary) starts with."""
    s = s if isinstance(s, str) else ""
    for w in SUMMARY_STATES:
        if s == w or s.startswith(w + ":"):
            return w
    return "unavailable"


def interval_of(x):
    """A results.json interval over repeats ({mean, lo95, hi95, n})."""
    x = x if isinstance(x, dict) else {}
    return {"mean": num(x.get("mean")), "lo95": num(x.get("lo95")), "hi95": num(x.get("hi95")), "n": num(x.get("n"))}


def tenant_summary_of(t):
    """results.json tenant.summary (issue 26): each arm at each busy fraction
    (or rate) over its repeats, the targets checked on 95% intervals."""
    out = []
    for s in t.get("summary") or []:
        if not isinstance(s, dict):
            continue
        row = {"arm": s.get("arm") if isinstance(s.get("arm"), str) else "?",
               "busy_fraction": num(s.get("busy_fraction")), "rate_per_s": num(s.get("rate_per_s")),
               "repeats": num(s.get("repeats")), "repeats_ok": num(s.get("repeats_ok")),
               "critical_p99_ratio": interval_of(s.get("critical_p99_ratio")),
               "best_effort_kept_min": interval_of(s.get("best_effort_kept_min"))}
        for key in ("latency_target", "throughput_target", "suspend_target"):
            row[key] = s.get(key) if isinstance(s.get(key), str) else ""
            row[key.replace("_target", "_state")] = summary_state(s.get(key))
        out.append(row)
    return out


def tenant_of(t, rate_env):
    """The tenant section of a kfdmp results.json (harness schema 3, issue 18),
    as the harness judged it: nothing is recomputed here."""
    t = t if isinstance(t, dict) else {}
    arms = []
    for a in t.get("arms") or []:
        crit = a.get("critical") or {}
        alone = a.get("critical_alone") or {}
        arms.append({"arm": a.get("arm"), "repeat": a.get("repeat"), "status": a.get("status") or "?",
                     "reason": a.get("reason") or "",
                     "busy_fraction": num(a.get("busy_fraction")), "rate_per_s": num(a.get("rate_per_s")),
                     "critical_p99_us": num(crit.get("p99_us")), "critical_alone_p99_us": num(alone.get("p99_us")),
                     "critical_p99_ratio": num(a.get("critical_p99_ratio")), "critical_qps": num(a.get("critical_qps")),
                     "best_effort_kept_min": num(a.get("best_effort_kept_min")),
                     "best_effort": [{"workload": b.get("workload"), "kept": num(b.get("kept"))}
                                     for b in a.get("best_effort") or []],
                     "suspend_to_unmapped": transition_of(a.get("suspend_to_unmapped")),
                     "latency_target": a.get("latency_target") or "",
                     "suspend_target": a.get("suspend_target") or "",
                     "latency_state": target_state(a.get("latency_target")),
                     "suspend_state": target_state(a.get("suspend_target"))})
    return {"critical": t.get("critical"), "rate_per_s": num(t.get("rate_per_s")), "best_effort": t.get("best_effort"),
            "targets": t.get("targets") if isinstance(t.get("targets"), dict) else {},
            "rate": rate_env, "arms": arms, "summary": tenant_summary_of(t)}


def read_workload(run_dir, cdir, wl):
    wdir = os.path.join(cdir, wl)
    res_path = os.path.join(wdir, "results.json")
    out = {"workload": wl, "status": "missing", "exit_code": None, "results_json": None, "summary": [],
           "runs": [], "mp_stats": None, "trace": None, "harness": None, "tenant": None, "why": None}
    env = read_env(os.path.join(wdir, "workload.env"))
    if env.get("exit_code"):
        out["exit_code"] = parse_number(env["exit_code"])
    rate_env = read_env(os.path.join(wdir, "rate.env")) or None
    text = read_text(res_path)
    if text is None:
        out["status"] = "missing"
        if env.get("not_run"):
            out["status"], out["why"] = "not run", env["not_run"]
        elif out["exit_code"] not in (None, 0):
            out["status"] = "failed"
            out["why"] = f"kfdmp exited {out['exit_code']} and wrote no results.json"
        if rate_env:
            out["tenant"] = tenant_of({}, rate_env)
        return out
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        out["status"] = f"unreadable: {e}"
        return out
    if doc.get("tool") != "kfdmp" or doc.get("schema_version") not in (1, 2, 3):  # 2: the harness since issue 12; 3: + "tenant" (issue 18)
        out["status"] = "unreadable: not a kfdmp schema_version 1, 2 or 3 document"
        return out
    out["results_json"] = os.path.relpath(res_path, run_dir)
    if "tenant" in doc or rate_env:
        out["tenant"] = tenant_of(doc.get("tenant"), rate_env)
    if out["exit_code"] not in (None, 0):
        out["why"] = f"kfdmp exited {out['exit_code']}"
    out["harness"] = {"backend": doc.get("backend"), "host": doc.get("host"), "started_at": doc.get("started_at"),
                      "config": doc.get("config"), "kfd_topology": doc.get("kfd_topology", [])}
    # A tenant run's summary mixes the critical tenant, the best-effort
    # tenants and the arms at one process count: no per-N QPS table for it.
    for s in ([] if out["tenant"] else doc.get("summary", [])):
        out["summary"].append({"procs": s.get("procs"), "runs": s.get("runs"), "qps_mean": num(s.get("qps_mean")),
                               "qps_min": num(s.get("qps_min")), "qps_max": num(s.get("qps_max")),
                               "spread_pct": num(s.get("spread_pct")), "scaling_ratio": num(s.get("scaling_ratio"))})
    statuses = set()
    for r in doc.get("runs", []):
        kfd = r.get("kfd") or {}
        lines = kfd.get("oversubscribed_lines")
        queues = [q for q in (kfd.get("queues") or []) if q]
        statuses.add(r.get("status"))
        out["runs"].append({"procs": r.get("procs"), "repeat": r.get("repeat"), "status": r.get("status"),
                            "reason": r.get("reason", ""), "aggregate_qps": num(r.get("aggregate_qps")),
                            "scaling_ratio": num(r.get("scaling_ratio")), "jain_index": num(r.get("jain_index")),
                            "latency_us": r.get("latency_us"),
                            "oversubscribed_lines": len(lines) if isinstance(lines, list) else None,
                            "queues_per_process": [q.get("total") for q in queues] if queues else None})
    out["status"] = "ok" if statuses == {"ok"} else ("partial" if "ok" in statuses else
                                                       (sorted(s for s in statuses if s) or ["empty"])[0])
    tdir = os.path.join(wdir, "trace")
    before = parse_mp_stats(read_text(os.path.join(tdir, "mp_stats.before")))
    after = parse_mp_stats(read_text(os.path.join(tdir, "mp_stats.after")))
    if after is not None:
        out["mp_stats"] = mp_summary(mp_delta(before, after))
    out["trace"] = trace_counts(os.path.join(tdir, "trace.txt"))
    return out


def read_config(run_dir, name, workloads):
    cdir = os.path.join(run_dir, "configs", name)
    env = read_env(os.path.join(cdir, "config.env"))
    status = (read_text(os.path.join(cdir, "status"), "not run") or "not run").strip()
    eff = read_env(os.path.join(cdir, "params.effective"))
    before_t = read_text(os.path.join(cdir, "mp_stats.before"))
    after_t = read_text(os.path.join(cdir, "mp_stats.after"))
    before, after = parse_mp_stats(before_t), parse_mp_stats(after_t)
    delta = mp_delta(before, after)
    cfg = {
        "name": name,
        "params": env.get("params", "").split(),
        "description": env.get("description", ""),
        "status": status,
        "effective_params": eff,
        "kernel_log": kernel_log_summary(os.path.join(cdir, "kernel.log")),
        "mp_stats_delta": delta,
        "mp_stats": mp_summary(delta),
        "queues": queue_samples(os.path.join(cdir, "queues.tsv")),
        "partition": read_env(os.path.join(cdir, "partition.env")) or None,  # scripts/testbox-partition.sh
        "ctest": read_env(os.path.join(cdir, "ctest.env")) or None,
        "workloads": [read_workload(run_dir, cdir, w) for w in workloads if os.path.isdir(os.path.join(cdir, w))],
    }
    return cfg


def build_document(run_dir):
    env = read_env(os.path.join(run_dir, "run.env"))
    if not env:
        raise RunError(f"{run_dir}/run.env is missing or empty: not a test-box run directory")
    configs = env.get("configs", "").split()
    workloads = env.get("workloads", "").split()
    if not configs:
        raise RunError(f"{run_dir}/run.env names no configuration")
    doc = {
        "schema": SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "synthetic": env.get("synthetic", "0") == "1",
        "generated_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "run": {k: env.get(k) for k in ("run_id", "started_at", "finished_at", "host", "kernel", "kver",
                                        "series_base", "series_id", "tree_head", "module", "module_vermagic",
                                        "dry_run", "procs", "repeat", "duration", "warmup", "trace",
                                        "matrix", "note", "tree", "tree_from", "tree_package", "tree_state",
                                        "tree_check", "tree_modified", "trace_unavailable", "tenant",
                                        "tenant_critical", "tenant_mix", "tenant_arms", "tenant_rate")},
        "box_checks": [{"check": c, "status": s, "detail": d}
                       for c, s, d in read_tsv(os.path.join(run_dir, "box-checks.tsv"), 3)],
        "matrix": configs,
        "workloads": workloads,
        "configurations": [read_config(run_dir, c, workloads) for c in configs],
        "restore": read_env(os.path.join(run_dir, "restore.env")) or None,
    }
    doc["comparison"] = comparison(doc)
    # The verdict explains lost throughput over a hypothesis matrix; a tenant
    # run (testbox.sh --tenant) has its own section instead.
    doc["verdict"] = None if env.get("tenant") == "1" else verdict.verdict_of(doc, run_dir)
    return doc


def comparison(doc):
    """One row per workload, process count and configuration, with the
    ratio to the stock configuration (the first of the matrix, or 'stock')."""
    names = [c["name"] for c in doc["configurations"]]
    ref = "stock" if "stock" in names else names[0]
    table = {}
    for c in doc["configurations"]:
        for w in c["workloads"]:
            for s in w["summary"]:
                table[(w["workload"], s["procs"], c["name"])] = s
    rows = []
    for (wl, procs, name), s in sorted(table.items(), key=lambda kv: (kv[0][0], kv[0][1], names.index(kv[0][2]))):
        base = table.get((wl, procs, ref))
        vs = None
        if base and base.get("qps_mean") and s.get("qps_mean") is not None:
            vs = s["qps_mean"] / base["qps_mean"]
        rows.append({"workload": wl, "procs": procs, "config": name, "qps_mean": s.get("qps_mean"),
                     "scaling_ratio": s.get("scaling_ratio"), "spread_pct": s.get("spread_pct"),
                     "vs_reference": vs, "reference": ref})
    return rows


# --- schema check ------------------------------------------------------------

def check_document(doc):
    """Errors of doc against the schema of scripts/report/README.md."""
    errs = []

    def need(obj, key, types, where):
        if not isinstance(obj, dict) or key not in obj:
            errs.append(f"{where}: missing '{key}'")
            return None
        v = obj[key]
        if not isinstance(v, types):
            errs.append(f"{where}.{key}: {type(v).__name__} is not {types}")
        return v

    NUM = (int, float)
    OPT_NUM = (int, float, type(None))
    if need(doc, "schema", str, "$") != SCHEMA:
        errs.append(f"$.schema is not {SCHEMA!r}")
    if need(doc, "schema_version", int, "$") != SCHEMA_VERSION:
        errs.append(f"$.schema_version is not {SCHEMA_VERSION}")
    need(doc, "synthetic", bool, "$")
    need(doc, "generated_at", str, "$")
    need(doc, "run", dict, "$")
    for i, b in enumerate(need(doc, "box_checks", list, "$") or []):
        for k in ("check", "status", "detail"):
            need(b, k, str, f"$.box_checks[{i}]")
        if b.get("status") not in ("ok", "warn", "fail", "skip", "info"):
            errs.append(f"$.box_checks[{i}].status: {b.get('status')!r}")
    need(doc, "matrix", list, "$")
    need(doc, "workloads", list, "$")
    for i, c in enumerate(need(doc, "configurations", list, "$") or []):
        w0 = f"$.configurations[{i}]"
        need(c, "name", str, w0)
        need(c, "params", list, w0)
        need(c, "status", str, w0)
        need(c, "effective_params", dict, w0)
        need(c, "mp_stats_delta", (dict, type(None)), w0)
        mp = need(c, "mp_stats", (dict, type(None)), w0)
        if mp:
            for k in ("runlists", "preemptions", "preempt_wait_us_total", "oversub_runlists"):
                need(mp, k, NUM, w0 + ".mp_stats")
            need(mp, "preempt_wait_us_mean", OPT_NUM, w0 + ".mp_stats")
        kl = need(c, "kernel_log", (dict, type(None)), w0)
        if kl:
            need(kl, "oversubscribed", int, w0 + ".kernel_log")
            need(kl, "trouble", list, w0 + ".kernel_log")
        for j, w in enumerate(need(c, "workloads", list, w0) or []):
            w1 = f"{w0}.workloads[{j}]"
            need(w, "workload", str, w1)
            need(w, "status", str, w1)
            for k, s in enumerate(need(w, "summary", list, w1) or []):
                need(s, "procs", int, f"{w1}.summary[{k}]")
                need(s, "qps_mean", OPT_NUM, f"{w1}.summary[{k}]")
                need(s, "scaling_ratio", OPT_NUM, f"{w1}.summary[{k}]")
            for k, r in enumerate(need(w, "runs", list, w1) or []):
                need(r, "procs", int, f"{w1}.runs[{k}]")
                need(r, "status", str, f"{w1}.runs[{k}]")
                need(r, "aggregate_qps", OPT_NUM, f"{w1}.runs[{k}]")
                need(r, "oversubscribed_lines", (int, type(None)), f"{w1}.runs[{k}]")
            need(w, "mp_stats", (dict, type(None)), w1)
            need(w, "trace", (dict, type(None)), w1)
            t = need(w, "tenant", (dict, type(None)), w1)
            if t:
                need(t, "rate_per_s", OPT_NUM, w1 + ".tenant")
                need(t, "rate", (dict, type(None)), w1 + ".tenant")
                for k, a in enumerate(need(t, "arms", list, w1 + ".tenant") or []):
                    a1 = f"{w1}.tenant.arms[{k}]"
                    for key in ("arm", "status", "latency_target", "suspend_target"):
                        need(a, key, str, a1)
                    for key in ("critical_p99_ratio", "best_effort_kept_min"):
                        need(a, key, OPT_NUM, a1)
                    need(a, "suspend_to_unmapped", dict, a1)
                    need(a, "busy_fraction", OPT_NUM, a1)
                    for key in ("latency_state", "suspend_state"):
                        if a.get(key) not in ("pass", "fail", "unavailable"):
                            errs.append(f"{a1}.{key}: {a.get(key)!r}")
                for k, a in enumerate(need(t, "summary", list, w1 + ".tenant") or []):
                    a1 = f"{w1}.tenant.summary[{k}]"
                    for key in ("arm", "latency_target", "throughput_target", "suspend_target"):
                        need(a, key, str, a1)
                    for key in ("busy_fraction", "rate_per_s", "repeats", "repeats_ok"):
                        need(a, key, OPT_NUM, a1)
                    for key in ("latency_state", "throughput_state", "suspend_state"):
                        if a.get(key) not in SUMMARY_STATES:
                            errs.append(f"{a1}.{key}: {a.get(key)!r}")
    for i, r in enumerate(need(doc, "comparison", list, "$") or []):
        for k, t in (("workload", str), ("procs", int), ("config", str), ("qps_mean", OPT_NUM),
                     ("scaling_ratio", OPT_NUM), ("vs_reference", OPT_NUM), ("reference", str)):
            need(r, k, t, f"$.comparison[{i}]")
    need(doc, "restore", (dict, type(None)), "$")
    return errs


# --- Markdown ----------------------------------------------------------------

def fmt(x, spec=".1f", none="–"):
    if x is None:
        return none
    if isinstance(x, float) and not math.isfinite(x):
        return none
    return format(x, spec)


def md_table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return out


def tenant_markdown(doc):
    """The tenant-control section (issue 18): per configuration, the rate and
    each arm's figures and target checks, as kfdmp's results.json has them."""
    tenant_run = doc["run"].get("tenant") == "1"
    cw = [(c, w) for c in doc["configurations"] for w in c["workloads"] if w.get("tenant") or w["workload"] == "tenant"]
    if not cw and not tenant_run:
        return []
    L = ["## Tenant control (issue 18)", "",
         "kfdmp's tenant mode: one latency-critical tenant (open loop, Poisson; its rate set by a busy fraction "
         "of its service time alone, `--critical-busy`, or given) beside saturating best-effort tenants; arms "
         "none (no control), priority (stream priority), sched-drain (kfdmp-sched stopping the best-effort "
         "processes) and sched-kfd (kfdmp-sched with the tenant-control ioctl; issue 18 called it sched), as "
         "the run chose them. Targets per GPU: "
         "**critical p99 ≤ 1.5× alone while each best-effort tenant keeps ≥ 0.5 of its throughput alone**; "
         "**suspend-to-unmapped p99 < 1 ms**. Figures and checks are the harness's (results.json `tenant`): "
         "per repeat, then per arm and busy fraction over the repeats on 95% intervals "
         "(pass, fail, or inconclusive when the interval straddles the target).", ""]
    seen = {c["name"] for c, _ in cw}
    for c in doc["configurations"]:
        if c["name"] not in seen:
            L += [f"- `{c['name']}`: no tenant measurement ({c['status']})"]
    if len(seen) < len(doc["configurations"]):
        L.append("")
    for c, w in cw:
        t = w.get("tenant") or {}
        rate = t.get("rate") or {}
        head = f"**`{c['name']}`** ({' '.join(c['params']) or 'stock parameters'})"
        if rate.get("rate"):
            how = rate.get("rate_from") or "?"
            if rate.get("u"):
                how = f"u = {rate['u']} (critical alone {rate.get('critical_alone_qps')} QPS), {how}"
            head += f": rate {rate['rate']}/s, {how}"
        elif t.get("rate_per_s") is not None:
            head += f": rate {fmt(t['rate_per_s'])}/s"
        L += [head, ""]
        arms = t.get("arms") or []
        if not arms:
            why = w.get("why") or (f"results.json has no tenant section ({w['status']})" if w.get("results_json")
                                   else f"no results.json ({w['status']})")
            L += [f"Not measured: {why}. Configuration status: {c['status']}.", ""]
            continue
        if w.get("why"):
            L += [f"Note: {w['why']}.", ""]
        rows = []
        for a in arms:
            su = a["suspend_to_unmapped"]
            sus = fmt(su["p99_us"], ".0f") + " µs" if su["p99_us"] is not None else \
                ("unavailable: " + su["unavailable"] if su["unavailable"] else "–")
            status = a["status"] + (": " + a["reason"] if a["reason"] else "")
            lat, susp = a["latency_target"] or "–", a["suspend_target"] or "–"
            if a["status"] != "ok":
                # the harness's "unavailable: arm <status>: <reason>": the reason is in the status column
                sus = "–"
                lat, susp = (x if not x.startswith("unavailable: arm ") else "unavailable (see status)"
                             for x in (lat, susp))
            rows.append((a["arm"], busy_cell(a), a["repeat"], status, fmt(a["critical_p99_ratio"], ".2f"),
                         fmt(a["best_effort_kept_min"], ".2f"), sus, lat, susp))
        L += md_table(["arm", "busy", "rep", "status", "critical p99 / alone", "best-effort kept (min)",
                       "suspend-to-unmapped p99", "p99 + kept target", "suspend target"], rows)
        L.append("")
        summary = t.get("summary") or []
        if summary:
            L += ["Per arm over the repeats (results.json `tenant.summary`; mean [95% interval]):", ""]
            rows = [(s["arm"], busy_cell(s), "%s of %s" % (fmt(s["repeats_ok"], "d"), fmt(s["repeats"], "d")),
                     interval_cell(s["critical_p99_ratio"]), interval_cell(s["best_effort_kept_min"]),
                     check_cell(s["latency_target"], s["latency_state"]),
                     check_cell(s["throughput_target"], s["throughput_state"]),
                     check_cell(s["suspend_target"], s["suspend_state"])) for s in summary]
            L += md_table(["arm", "busy", "repeats ok", "critical p99 / alone", "best-effort kept (min)",
                           "p99 target", "kept target", "suspend target"], rows)
            L.append("")
        else:
            L += ["No per-arm summary over repeats in results.json (a harness before issue 26); per repeat:", ""]
        counts = []
        keys = []
        for a in arms:
            k = (a["arm"], a["busy_fraction"])
            if k not in keys:
                keys.append(k)
        for arm, busy in keys:
            mine = [a for a in arms if (a["arm"], a["busy_fraction"]) == (arm, busy)]
            parts = []
            for key, label in (("latency_state", "p99 + kept"), ("suspend_state", "suspend")):
                n = {s: sum(1 for a in mine if a[key] == s) for s in ("pass", "fail", "unavailable")}
                parts.append(f"{label} " + ", ".join(f"{s} {n[s]}" for s in ("pass", "fail", "unavailable") if n[s]))
            at = f" at busy {fmt(busy, '.2f')}" if busy is not None else ""
            counts.append(f"- `{arm}`{at}, each repeat on its own, over {len(mine)} repeat(s): " + "; ".join(parts))
        L += counts + [""]
    return L


def busy_cell(a):
    """The critical tenant's busy fraction and the rate it gave ("–" for a
    given rate, --rate, which has no busy fraction)."""
    busy = fmt(a.get("busy_fraction"), ".2f")
    if a.get("rate_per_s") is not None:
        busy += " (%s/s)" % fmt(a["rate_per_s"], ".0f")
    return busy


def interval_cell(x):
    if x.get("mean") is None:
        return "–"
    if x.get("lo95") is None or x.get("hi95") is None:
        return fmt(x["mean"], ".2f")
    return "%s [%s, %s]" % (fmt(x["mean"], ".2f"), fmt(x["lo95"], ".2f"), fmt(x["hi95"], ".2f"))


def check_cell(text, state):
    """A check over repeats: its word, or the whole text where it says why not."""
    if state == "unavailable" or not text:
        return text or "unavailable"
    return state


def markdown(doc, plots):
    run = doc["run"]
    L = ["# Test-box run: " + ("tenant control" if run.get("tenant") == "1" else "kfd-mp ablation"), ""]
    if doc["synthetic"]:
        L += ["> **SYNTHETIC SAMPLE DATA.** These figures were generated for testing the report",
              "> generator (tests/testbox/make-sample.py). They are not measurements of any GPU.", ""]
    if run.get("dry_run") == "1":
        L += ["> Dry run: nothing was loaded or measured.", ""]
    L += [f"- run: `{run.get('run_id') or '?'}` on `{run.get('host') or '?'}`, "
          f"{run.get('started_at') or '?'} .. {run.get('finished_at') or '?'}",
          f"- kernel: `{run.get('kernel') or '?'}` (series base {run.get('series_base') or '?'}); "
          f"module: `{run.get('module') or '?'}` ({run.get('module_vermagic') or 'vermagic ?'})",
          f"- series: id `{(run.get('series_id') or '?')[:12]}`, tree HEAD `{(run.get('tree_head') or '?')[:12]}`",
          f"- harness: processes {run.get('procs') or '?'}, repeat {run.get('repeat') or '?'}, "
          f"window {run.get('duration') or '?'} s (warm-up {run.get('warmup') or '?'} s), "
          f"trace {run.get('trace') or '?'}, workloads {', '.join(doc['workloads']) or '?'}",
          f"- matrix: `{run.get('matrix') or '?'}`"]
    if run.get("trace_unavailable"):
        L += [f"- tracing could not run (first at {run['trace_unavailable']}); the workloads ran without traces"]
    if run.get("tree"):
        L += [f"- driver tree: `{run['tree']}`{' (' + run['tree_from'] + ')' if run.get('tree_from') else ''}, "
              f"package {run.get('tree_package') or 'none known'}, state **{run.get('tree_state') or '?'}** "
              f"({run.get('tree_check') or '?'})"
              + (f"; modified: {run['tree_modified']}" if run.get("tree_modified") else "")]
    L += [""]
    if run.get("note"):
        L += [f"Note: {run['note']}", ""]
    if doc["box_checks"]:
        L += ["## Box checks", ""]
        L += md_table(["check", "status", "detail"],
                      [(b["check"], b["status"].upper() if b["status"] in ("fail", "warn") else b["status"],
                        b["detail"]) for b in doc["box_checks"]])
        L.append("")
    L += ["## Configurations", ""]
    rows = []
    for c in doc["configurations"]:
        eff = ", ".join(f"{k}={v}" for k, v in sorted(c["effective_params"].items())) or "–"
        rows.append((f"`{c['name']}`", " ".join(c["params"]) or "(defaults)", c["status"], eff, c["description"]))
    L += md_table(["configuration", "parameters", "status", "read back after load", "what it shows"], rows)
    L.append("")

    L += tenant_markdown(doc)
    ref = doc["comparison"][0]["reference"] if doc["comparison"] else None
    names = [c["name"] for c in doc["configurations"]]
    for wl in doc["workloads"]:
        rows_wl = [r for r in doc["comparison"] if r["workload"] == wl]
        if not rows_wl:
            continue
        procs = sorted({r["procs"] for r in rows_wl})
        by = {(r["procs"], r["config"]): r for r in rows_wl}
        L += [f"## Workload `{wl}`", "",
              f"Aggregate QPS (mean over repeats), scaling ratio to 1 process in parentheses, "
              f"and the ratio to `{ref}` at the same process count.", ""]
        trows = []
        for n in procs:
            row = [str(n)]
            for name in names:
                r = by.get((n, name))
                if not r:
                    row.append("–")
                    continue
                cell = f"{fmt(r['qps_mean'])} ({fmt(r['scaling_ratio'], '.2f')})"
                if name != ref and r["vs_reference"] is not None:
                    cell += f" ×{fmt(r['vs_reference'], '.2f')}"
                row.append(cell)
            trows.append(row)
        L += md_table(["N"] + [f"`{n}`" for n in names], trows)
        L.append("")
        for p in plots.get(wl, []):
            L += [f"![{os.path.basename(p)}]({p})", ""]

    L += ["## Driver evidence", "",
          "From debugfs `kfd/mp_stats` after − before each configuration (all nodes), the kernel log "
          "since the module was loaded, and the trace. Preemption cycles are unmaps; wait is send to fence.", ""]
    rows = []
    for c in doc["configurations"]:
        mp, kl, q = c["mp_stats"], c["kernel_log"], c["queues"]
        harness_lines = sum((r["oversubscribed_lines"] or 0) for w in c["workloads"] for r in w["runs"])
        ev = {}
        for w in c["workloads"]:
            for k, v in ((w["trace"] or {}).get("events") or {}).items():
                ev[k] = ev.get(k, 0) + v
        if mp:
            reasons = "/".join(str(mp[k]) for k in ("oversub_processes", "oversub_queues", "oversub_gws"))
            rows.append((f"`{c['name']}`", mp["runlists"], mp["preemptions"],
                         fmt(mp["preempt_wait_us_total"] / 1000.0, ".1f"), fmt(mp["preempt_wait_us_mean"], ".0f"),
                         fmt(mp["preempt_wait_us_p99_bound"], "d"), mp["preempt_wait_us_max"],
                         f"{mp['oversub_runlists']} ({reasons})",
                         kl["oversubscribed"] if kl else "–", harness_lines,
                         f"{mp['peak_processes']}/{mp['peak_active_queues']}",
                         q["max_queues_per_process"] if q else "–",
                         sum(ev.values()) if ev else "–",
                         (kl["trouble_count"] if kl else "–")))
        else:
            rows.append((f"`{c['name']}`",) + ("–",) * 8 + (harness_lines, "–",
                        q["max_queues_per_process"] if q else "–", sum(ev.values()) if ev else "–",
                        kl["trouble_count"] if kl else "–"))
    L += md_table(["configuration", "runlists", "preemptions", "wait total ms", "wait mean µs",
                   "wait p99 ≤ µs", "wait max µs", "oversub. runlists (proc/queue/gws)",
                   "kernel log 'oversubscribed'", "harness 'oversubscribed' lines", "peak procs/queues",
                   "queues per process (max)", "trace events", "kernel log trouble"], rows)
    L.append("")
    rows = []
    for c in doc["configurations"]:
        for w in c["workloads"]:
            mp = w["mp_stats"]
            if mp:
                rows.append((f"`{c['name']}`", w["workload"], w["status"], mp["runlists"], mp["preemptions"],
                             fmt(mp["preempt_wait_us_total"] / 1000.0), fmt(mp["preempt_wait_us_mean"], ".0f"),
                             mp["oversub_runlists"]))
            else:
                rows.append((f"`{c['name']}`", w["workload"], w["status"]) + ("–",) * 5)
    if rows:
        L += ["Per workload (mp_stats around each harness invocation):", ""]
        L += md_table(["configuration", "workload", "status", "runlists", "preemptions", "wait total ms",
                       "wait mean µs", "oversub. runlists"], rows)
        L.append("")
    trouble = [(c["name"], t) for c in doc["configurations"] for t in (c["kernel_log"] or {}).get("trouble", [])]
    if trouble:
        L += ["Kernel log lines that need a look (first 20 per configuration):", "", "```"]
        L += [f"{n}: {t}" for n, t in trouble] + ["```", ""]
    L += verdict.markdown(doc["verdict"]) if doc.get("verdict") else []
    r = doc["restore"]
    L += ["## Restore", ""]
    if r:
        L += [f"- {k}: {v}" for k, v in r.items()]
    else:
        L += ["- no restore record (restore.env missing)"]
    L += ["", f"Generated {doc['generated_at']} by scripts/report/testbox_report.py; "
          f"schema `{SCHEMA}` v{SCHEMA_VERSION} in testbox.json (scripts/report/README.md).", ""]
    return "\n".join(L)


# --- plots ---------------------------------------------------------------------

def gnuplot_terminal():
    """'pngcairo' or 'png' if gnuplot has it, else None."""
    gp = shutil.which("gnuplot")
    if not gp:
        return None
    try:
        out = subprocess.run([gp, "-e", "set terminal"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             universal_newlines=True, timeout=30)
        text = out.stdout + out.stderr
    except (OSError, subprocess.TimeoutExpired):
        return None
    for t in ("pngcairo", "png"):
        if re.search(rf"^\s*{t}\s", text, flags=re.M):
            return t
    return None


def write_plots(doc, out_dir, enabled):
    """{workload: [relative png paths]} and a message."""
    pdir = os.path.join(out_dir, "plots")
    os.makedirs(pdir, exist_ok=True)
    names = [c["name"] for c in doc["configurations"]]
    scripts = []
    for wl in doc["workloads"]:
        rows = [r for r in doc["comparison"] if r["workload"] == wl]
        if not rows:
            continue
        procs = sorted({r["procs"] for r in rows})
        by = {(r["procs"], r["config"]): r for r in rows}
        present = [n for n in names if any((p, n) in by for p in procs)]
        dat = os.path.join(pdir, f"{wl}.dat")
        with open(dat, "w", encoding="utf-8") as f:
            f.write("# N " + " ".join(f"qps:{n} ratio:{n}" for n in present) + "\n")
            for p in procs:
                cells = []
                for n in present:
                    r = by.get((p, n))
                    cells += [fmt(r and r["qps_mean"], ".3f", "NaN"), fmt(r and r["scaling_ratio"], ".4f", "NaN")]
                f.write(f"{p} " + " ".join(cells) + "\n")
        for kind, col, ylabel in (("qps", 0, "aggregate queries/s"), ("ratio", 1, "QPS(N) / QPS(1)")):
            gp = os.path.join(pdir, f"{wl}-{kind}.gp")
            plots = [f"'{wl}.dat' using 1:{2 + 2 * i + col} with linespoints title '{n}'"
                     for i, n in enumerate(present)]
            extra = "set yrange [0:*]\n"
            if kind == "ratio":
                plots.append("1 with lines dashtype 2 lc rgb 'gray' title 'linear (1.0)'")
                plots.append("0.95 with lines dashtype 3 lc rgb 'red' title 'target 0.95'")
            with open(gp, "w", encoding="utf-8") as f:
                f.write("set terminal TERMINAL size 800,500\n"
                        f"set output '{wl}-{kind}.png'\n"
                        f"set title '{wl}: {'aggregate QPS' if kind == 'qps' else 'scaling ratio'} by configuration"
                        f"{' (SYNTHETIC)' if doc['synthetic'] else ''}'\n"
                        f"set xlabel 'processes'\nset ylabel '{ylabel}'\nset logscale x 2\n"
                        f"set xtics ({', '.join(str(p) for p in procs)})\nset key outside right\nset grid\n{extra}"
                        "plot " + ", ".join(plots) + "\n")
            scripts.append((wl, gp))
    if not enabled:
        return {}, "plots: skipped (--no-plots); data and scripts in " + pdir
    term = gnuplot_terminal()
    if term is None:
        return {}, ("plots: skipped, gnuplot with a PNG terminal not found (Debian: gnuplot-nox); "
                    f"data and scripts are in {pdir}: sed s/TERMINAL/pngcairo/ and run gnuplot there")
    made = {}
    for wl, gp in scripts:
        with open(gp, encoding="utf-8") as f:
            text = f.read().replace("TERMINAL", term)
        with open(gp, "w", encoding="utf-8") as f:
            f.write(text)
        r = subprocess.run(["gnuplot", os.path.basename(gp)], cwd=pdir, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True)
        png = gp[:-3] + ".png"
        if r.returncode != 0 or not os.path.exists(png):
            return made, f"plots: gnuplot failed on {gp}: {r.stderr.strip()[:300]}"
        made.setdefault(wl, []).append(os.path.relpath(png, out_dir))
    return made, f"plots: {sum(len(v) for v in made.values())} PNGs in {pdir} (gnuplot terminal {term})"


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("run_dir")
    ap.add_argument("--out")
    ap.add_argument("--no-plots", action="store_true")
    ap.add_argument("--check", action="store_true", help="fail unless testbox.json passes the schema check")
    args = ap.parse_args(argv)
    out = args.out or os.path.join(args.run_dir, "report")
    try:
        doc = build_document(args.run_dir)
    except RunError as e:
        print(f"testbox_report: {e}", file=sys.stderr)
        return 1
    os.makedirs(out, exist_ok=True)
    plots, msg = write_plots(doc, out, not args.no_plots)
    doc["plots"] = plots
    errs = check_document(doc)
    with open(os.path.join(out, "testbox.json"), "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1, sort_keys=False, allow_nan=False)
        f.write("\n")
    with open(os.path.join(out, "summary.md"), "w", encoding="utf-8") as f:
        f.write(markdown(doc, plots))
    print(f"testbox_report: {out}/summary.md, {out}/testbox.json")
    print(f"testbox_report: {msg}")
    if doc.get("verdict"):
        print(f"testbox_report: verdict: {verdict.headline(doc['verdict'])} ({out}/summary.md, \"Verdict\")")
    if errs:
        for e in errs:
            print(f"testbox_report: schema: {e}", file=sys.stderr)
        if args.check:
            return 1
    elif args.check:
        print(f"testbox_report: testbox.json passes the {SCHEMA} v{SCHEMA_VERSION} schema check")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
