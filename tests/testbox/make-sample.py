#!/usr/bin/env python3
"""Write tests/testbox/sample/: a SYNTHETIC recorded test-box run.

The numbers are made up (a fixed seed, shaped after the field measurements in
shared/reference/KFD-NOTES.md section 5) so that the report generator and the
dry run can be tested without a GPU. Every file says it is synthetic: run.env
has synthetic=1, the harness documents have host "SYNTHETIC-sample", the
kernel logs and mp_stats files start with a SYNTHETIC line that the parsers
skip as a comment. Layout: scripts/report/README.md.

    tests/testbox/make-sample.py [OUT_DIR]     (default: tests/testbox/sample)

Deterministic: the same script writes the same bytes.
"""
import json
import os
import random
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts", "report"))
import kfdmp_params  # noqa: E402

# The arms are the project's matrix (one source of truth):
# (name, [params], description, hypothesis, partition, kfdmp options).
CONFIGS = kfdmp_params.read_arms(os.path.join(HERE, "matrix.conf"))
# Arms skipped in the sample, with their reason (an optional parameter, '?name=v'
# in matrix.conf, that the loaded module lacks): none today.
SKIPPED = {}
EFFECTIVE = {
    "stock": {"kfd_mp": "0", "kfd_queue_slot_policy": "default", "kfd_doorbell_placement": "default",
              "kfd_queued_runlist": "default"},
}
# Scaling ratio at N = 1, 2, 4, 8 per configuration and workload, and the
# share of unmaps a configuration still does (the queued runlist batches).
RATIOS = {
    ("stock", "latency"): (1.0, 0.74, 0.51, 0.79),
    ("slot-index", "latency"): (1.0, 0.73, 0.52, 0.78),
    ("doorbell-index", "latency"): (1.0, 0.75, 0.52, 0.80),
    ("queued-rl", "latency"): (1.0, 0.91, 0.83, 0.85),
    ("all", "latency"): (1.0, 0.94, 0.89, 0.87),
    ("stock", "saturate"): (1.0, 0.97, 0.94, 0.88),
    ("slot-index", "saturate"): (1.0, 0.97, 0.95, 0.88),
    ("doorbell-index", "saturate"): (1.0, 0.96, 0.94, 0.89),
    ("queued-rl", "saturate"): (1.0, 0.99, 0.97, 0.92),
    ("all", "saturate"): (1.0, 0.99, 0.98, 0.93),
    # Hypothesis arms (issue 17), relative to the arm's own N=1; ARM_BASE
    # scales N=1 against the whole GPU (a DPX/CPX partition is a part of it).
    ("spx-xcc-split", "latency"): (0.99, 0.80, 0.60, 0.82),
    ("spx-xcc-split", "saturate"): (0.98, 0.97, 0.95, 0.89),
    ("dpx", "latency"): (1.0, 1.95),
    ("dpx", "saturate"): (1.0, 1.92),
    ("cpx", "latency"): (1.0, 3.8, 3.6),
    ("cpx", "saturate"): (1.0, 3.7, 3.5),
    ("hwq1", "latency"): (1.0, 0.76, 0.55, 0.92),
    ("hwq1", "saturate"): (1.0, 0.97, 0.95, 0.95),
    ("hwq2", "latency"): (1.0, 0.75, 0.53, 0.88),
    ("hwq2", "saturate"): (1.0, 0.97, 0.94, 0.93),
    ("hwq4", "latency"): (1.0, 0.74, 0.51, 0.79),
    ("hwq4", "saturate"): (1.0, 0.97, 0.94, 0.88),
    ("graph", "latency"): (1.0, 0.75, 0.52, 0.80),
    ("graph", "saturate"): (1.0, 0.97, 0.94, 0.88),
    # Host-side arms (issue 24): threads, NUMA pinning, the idle-queue tax.
    ("threads1", "latency"): (1.0, 0.80, 0.58, 0.83),
    ("threads1", "saturate"): (1.0, 0.97, 0.94, 0.88),
    ("threads-auto", "latency"): (1.0, 0.79, 0.57, 0.82),
    ("threads-auto", "saturate"): (1.0, 0.97, 0.94, 0.88),
    ("pin-numa", "latency"): (1.0, 0.76, 0.53, 0.80),
    ("pin-numa", "saturate"): (1.0, 0.97, 0.94, 0.88),
    ("idle-queues", "latency"): (1.0, 0.70, 0.47, 0.74),
    ("idle-queues", "saturate"): (1.0, 0.96, 0.92, 0.86),
}
ARM_BASE = {"dpx": 0.52, "cpx": 0.27, "idle-queues": 0.92}
BASE_QPS = {"latency": 115.5, "saturate": 41.8}
UNMAP_SHARE = {"queued-rl": 0.45, "all": 0.42}  # others: 1.0
PROCS = (1, 2, 4, 8)
REPEAT = 3
WORKLOADS = ("latency", "saturate")
GPU_ID = 53241
IDLE_GPU_ID = 8192
QUEUES_PER_PROCESS = 5  # GPU_MAX_HW_QUEUES 4 + 1
HW_QUEUES = 24
BUCKETS = 24
MARK = "SYNTHETIC sample data (tests/testbox/make-sample.py), not a measurement"


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def bucket(v):
    return min(v.bit_length(), BUCKETS - 1)


class Stats:
    """The counters of kfd_mp_stats.c for one node."""

    def __init__(self):
        self.c = dict.fromkeys(("runlists", "runlist_failures", "unmaps", "unmap_failures", "oversub_runlists",
                                "oversub_processes", "oversub_queues", "oversub_gws"), 0)
        self.peak_processes = self.peak_active_queues = 0
        self.h = {n: {"count": 0, "total": 0, "max": 0, "b": [0] * BUCKETS} for n in ("preempt_us", "runlist_us")}

    def sample(self, name, v):
        h = self.h[name]
        h["count"] += 1
        h["total"] += v
        h["max"] = max(h["max"], v)
        h["b"][bucket(v)] += 1

    def text(self, since_ms):
        lines = [f"  since_reset_ms: {since_ms}"]
        lines += [f"  {k}: {v}" for k, v in self.c.items()]
        lines += [f"  peak_processes: {self.peak_processes}", f"  peak_active_queues: {self.peak_active_queues}"]
        for n, h in self.h.items():
            lines += [f"  {n}_count: {h['count']}", f"  {n}_total: {h['total']}", f"  {n}_max: {h['max']}",
                      f"  {n}_log2_hist: " + " ".join(str(x) for x in h["b"])]
        return "\n".join(lines)

    def flat(self):
        d = dict(self.c)
        d["peak_processes"], d["peak_active_queues"] = self.peak_processes, self.peak_active_queues
        for n, h in self.h.items():
            d[f"{n}_count"], d[f"{n}_total"], d[f"{n}_max"] = h["count"], h["total"], h["max"]
            d[f"{n}_log2_hist"] = " ".join(str(x) for x in h["b"])
        return d


def mp_text(stats, idle, since_ms):
    return (f"# {MARK}\n# kfd mp_stats v1: write 0 to reset\n"
            f"node 0 gpu_id {GPU_ID}:\n{stats.text(since_ms)}\n"
            f"node 1 gpu_id {IDLE_GPU_ID}:\n{idle.text(since_ms)}\n")


def run_delta(before, after):
    out = {}
    for k, v in after.items():
        key = f"node 0 gpu_id {GPU_ID}/{k}"
        if isinstance(v, str):
            if before.get(k) != v:
                out[key] = v
        else:
            out[key] = v - before.get(k, 0)
    return out


def simulate_run(rng, st, cfg, procs, trace, t0, pid0, qpp=QUEUES_PER_PROCESS, per_part=None):
    """One kfdmp run of procs processes: queue creations and destructions,
    each an unmap + runlist (fewer unmaps with the queued runlist)."""
    events = []
    active = 0
    oversub_lines = []
    pasid = 0x8000 + (pid0 % 97)
    t = t0
    changes = [("create", p, q) for p in range(procs) for q in range(qpp)]
    changes += [("destroy", p, q) for p in range(procs) for q in range(qpp)]
    scale = procs / (per_part or procs)  # queues on this GPU's one runlist (per partition)
    was_oversub = False
    for kind, p, q in changes:
        t += rng.uniform(0.0002, 0.002)
        pid = pid0 + p
        active += 1 if kind == "create" else -1
        live_procs = procs if kind == "create" else max(1, procs - p)
        if rng.random() < UNMAP_SHARE.get(cfg, 1.0):
            load = active * (2 if procs >= 4 else 1)
            wait = int(rng.lognormvariate(4.6 + 0.35 * (procs >= 4) + 0.6 * (active > HW_QUEUES), 0.45)) + load
            st.c["unmaps"] += 1
            st.sample("preempt_us", wait)
            events.append((t, pid, f"kfd_unmap_queues: gpu_id={GPU_ID} filter=dynamic filter_param=0 ret=0 "
                                   f"wait_us={wait}"))
        over = active / scale > HW_QUEUES
        st.c["runlists"] += 1
        dur = int(rng.uniform(8, 30) + active)
        st.sample("runlist_us", dur)
        if over:
            st.c["oversub_runlists"] += 1
            st.c["oversub_queues"] += 1
            if not was_oversub:
                oversub_lines.append("amdgpu 0000:0c:00.0: Runlist is getting oversubscribed. "
                                     "Expect reduced ROCm performance.")
        was_oversub = over
        st.peak_processes = max(st.peak_processes, live_procs)
        st.peak_active_queues = max(st.peak_active_queues, active)
        events.append((t, pid, f"kfd_runlist_submit: gpu_id={GPU_ID} processes={live_procs} "
                               f"active_queues={active} oversubscribed={'yes' if over else 'no'} "
                               f"reasons={'queues' if over else ''} duration_us={dur} ret=0"))
        doorbell = q
        ev = "kfd_queue_create" if kind == "create" else "kfd_queue_destroy"
        events.append((t, pid, f"{ev}: pid={pid} pasid=0x{pasid + p:x} gpu_id={GPU_ID} queue_id={q} "
                               f"type=compute doorbell_id={doorbell} doorbell_off=0x{0x1000 * (p + 1) + 2 * q:x}"))
        if kind == "create" and q == 0:
            events.append((t, pid, f"kfd_doorbell_bo_alloc: pid={pid} pasid=0x{pasid + p:x} gpu_id={GPU_ID} "
                                   f"offset=0x{0x2000 * (p + 1):x} size=8192"))
    if trace is not None:
        for t, pid, text in events:
            trace.append(f"    kfdmp-worker-{pid:<6} [{pid % 16:03d}] {t:13.6f}: {text}")
    return oversub_lines, t


def option(kargs, name, default):
    a = kargs.split()
    return a[a.index(name) + 1] if name in a else default


def gpu_of(rng, cfg, n, over):
    """A schema-2 attribution shaped after the hypotheses: tenants sharing
    one SPX GPU overlap and their kernels run slower (contention); past 24
    queues the HWS time-slices the runlist (processes absent); a partition
    per process runs its kernels as fast as alone."""
    if n == 1 or cfg in ("dpx", "cpx"):
        infl, conc, notres = 1.0, 1.0 + 0.0 * n, 0.05
        if n > 1:
            conc = float(n)
    else:
        infl = {2: 1.3, 4: 1.6, 8: 1.4}[n] * (0.9 if cfg == "spx-xcc-split" else 1.0)
        conc = {2: 1.6, 4: 2.4, 8: 2.0}[n]
        notres = 0.7 if over else 0.2
    infl *= 1 + rng.uniform(-0.01, 0.01)
    s2s = 12.0 * (1 + (8 if over else 0.5 * (n > 1)))
    q = 8 * 1100.0 * infl
    per = [{"stamped_kernels": 80, "stamped_queries": 10, "mean_kernel_us": 1100.0 * infl,
            "kernel_inflation": infl, "query_us": q + s2s + 20, "submit_to_start_us": s2s, "resident_us": q,
            "in_query_gap_us": 20.0, "end_to_host_us": 0.0, "not_resident_fraction": notres} for _ in range(n)]
    return {"available": True, "reason": "", "concurrency": conc, "any_kernel_resident_fraction": min(1.0, 0.9 * conc),
            "kernel_inflation": infl, "submit_to_start_us": s2s, "in_query_gap_us": 20.0,
            "not_resident_fraction": notres, "per_process": per}


def harness_doc(rng, cfg, wl, st, trace, t0, pid_base, kargs=""):
    runs = []
    base = BASE_QPS[wl] * ARM_BASE.get(cfg, 1.0) * (1 + rng.uniform(-0.01, 0.01))
    ratios = RATIOS[(cfg if (cfg, wl) in RATIOS else "stock", wl)]
    procs_list = [int(x) for x in option(kargs, "--procs", ",".join(map(str, PROCS))).split(",")]
    hwq = option(kargs, "--hw-queues", None)
    qpp = int(hwq) + 1 if hwq else QUEUES_PER_PROCESS
    devs = len(option(kargs, "--devices", "0").split(","))
    all_lines = []
    t = t0
    pid = pid_base
    for n, target in zip(procs_list, ratios):
        for rep in range(REPEAT):
            before = st.flat()
            per_part = max(1, -(-n // devs))
            lines, t = simulate_run(rng, st, cfg, n, trace, t, pid, qpp, per_part)
            after = st.flat()
            all_lines += lines
            agg = base * target * (1 + rng.uniform(-0.012, 0.012))
            shares = [rng.uniform(0.9, 1.1) for _ in range(n)]
            tot = sum(shares)
            workers = []
            for i in range(n):
                q = agg * shares[i] / tot
                p50 = 1e6 / q * 0.97
                workers.append({"index": i, "pid": pid + i, "assigned_device": "0",
                                "device": f"AMD Instinct MI300X (SYNTHETIC, gfx942, 304 CUs, HIP); {wl}: "
                                          "8 kernels x 4x256 threads x 256 FMA",
                                "status": "ok", "detail": "", "queries": int(q * 3),
                                "qps": q, "latency_us": {"p50": round(p50, 3), "p99": round(p50 * 1.35, 3)},
                                "latency_samples": int(q * 3), "start_offset_us": round(rng.uniform(5, 60), 3)})
            jain = tot * tot / (n * sum(s * s for s in shares))
            p50 = 1e6 / (agg / n) * 0.97
            runs.append({"procs": n, "repeat": rep, "status": "ok", "reason": "", "aggregate_qps": agg,
                         "scaling_ratio": None, "jain_index": jain, "start_skew_us": round(rng.uniform(20, 90), 3),
                         "latency_us": {"p50": round(p50, 3), "p99": round(p50 * 1.4, 3)},
                         "workers": workers, "gpu": gpu_of(rng, cfg, n, bool(lines) or qpp * per_part > HW_QUEUES),
                         "kfd": {"queues": [{"pid": pid + i, "total": qpp,
                                             "by_type": {"compute": qpp}} for i in range(n)],
                                 "oversubscribed_lines": lines,
                                 "mp_stats_delta": run_delta(before, after),
                                 "snapshots": [f"kfd/N{n}-r{rep}-{x}-{w}.txt" for x in ("hqds", "rls")
                                               for w in ("before", "after")],
                                 "absent": []}})
            pid += n + 3
    one = [r["aggregate_qps"] for r in runs if r["procs"] == 1]
    b = sum(one) / len(one)
    for r in runs:
        r["scaling_ratio"] = r["aggregate_qps"] / b
    summary = []
    for n in procs_list:
        q = [r["aggregate_qps"] for r in runs if r["procs"] == n]
        m = sum(q) / len(q)
        summary.append({"procs": n, "runs": len(q), "qps_mean": m, "qps_min": min(q), "qps_max": max(q),
                        "spread_pct": (max(q) - min(q)) / m * 100, "scaling_ratio": m / b})
    doc = {"schema_version": 2, "tool": "kfdmp", "backend": "hip", "host": "SYNTHETIC-sample",
           "started_at": "2026-11-21T09:00:00Z",
           "config": {"workload": wl, "procs": procs_list, "repeat": REPEAT, "duration_s": 3, "warmup_s": 1,
                      "params": dict.fromkeys(("kernels", "iters", "blocks", "threads", "bytes", "cus",
                                               "hsa_queues"), 0),
                      "hw_queues": int(hwq) if hwq else None, "devices": option(kargs, "--devices", "0").split(","),
                      "environment": dict.fromkeys(("CUDA_MPS_PIPE_DIRECTORY", "CUDA_VISIBLE_DEVICES",
                                                    "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES",
                                                    "GPU_MAX_HW_QUEUES", "HSA_OVERRIDE_GFX_VERSION"))},
           "kfd_topology": [{"node": "1", "gpu_id": GPU_ID,
                             "properties": {"gfx_target_version": 90402, "simd_count": 1216, "max_waves_per_simd": 8,
                                            "num_cp_queues": 24, "cu_per_simd_array": 10, "device_id": 29857,
                                            "marketing_name": "SYNTHETIC"}}],
           "runs": runs, "summary": summary}
    return doc, all_lines, t, pid


def main(argv):
    out = argv[0] if argv else os.path.join(os.path.dirname(os.path.abspath(__file__)), "sample")
    rng = random.Random(20261121)
    if os.path.isdir(out):
        shutil.rmtree(out)
    os.makedirs(out)
    write(os.path.join(out, "README.md"), f"""# SYNTHETIC test-box run

{MARK}.

A recorded run in the layout scripts/testbox.sh writes (scripts/report/README.md),
with made-up numbers shaped after the field measurements: every arm of
tests/testbox/matrix.conf, workloads latency and saturate, N = 1, 2, 4, 8 (DPX: 1, 2; CPX: 1, 4, 8),
{REPEAT} repeats. It exists so that `scripts/testbox.sh --dry-run` and the ctest
tests can run the report generator without a GPU. Regenerate with
`tests/testbox/make-sample.py`; never mix it with measurements.
""")
    names = " ".join(c[0] for c in CONFIGS)
    write(os.path.join(out, "run.env"), "\n".join([
        f"# {MARK}", "synthetic=1", "run_id=sample-20261121T090000Z", "started_at=2026-11-21T09:00:00Z",
        "finished_at=2026-11-21T09:41:07Z", "host=SYNTHETIC-sample", "kernel=6.12.95+deb12-amd64",
        "kver=6.12.95+deb12-amd64", "series_base=6.12.95", "series_id=" + "0" * 64,
        "tree_head=" + "0" * 40, "module=build/tree/drivers/gpu/drm/amd/amdgpu/amdgpu.ko",
        "module_vermagic=6.12.95+deb12-amd64 SMP preempt mod_unload modversions", "dry_run=0",
        "procs=1,2,4,8", f"repeat={REPEAT}", "duration=3", "warmup=1", "trace=on",
        "matrix=tests/testbox/matrix.conf", f"configs={names}", "workloads=" + " ".join(WORKLOADS),
        "note=synthetic sample for the report generator's tests", ""]))
    write(os.path.join(out, "box-checks.tsv"), "\n".join([
        f"# {MARK}",
        "root\tok\trunning as root",
        "kernel\tok\t6.12.95+deb12-amd64 is the series base (6.12.95)",
        "headers\tok\t/lib/modules/6.12.95+deb12-amd64/build",
        "gpu\tok\t1 gfx9.4.x node(s): node 1 gpu_id 53241 gfx_target_version 90402 (SYNTHETIC)",
        "scheduler\tok\tsched_policy=0 (HWS), mes=0",
        "amdgpu-users\tok\trefcnt 0, no holders, nothing has /dev/kfd or /dev/dri/* open",
        "vendor-dkms\tok\tstock amdgpu is /lib/modules/6.12.95+deb12-amd64/kernel/drivers/gpu/drm/amd/amdgpu/amdgpu.ko.xz",
        f"params\tok\t{len(CONFIGS)} configurations, parameters checked against modinfo -p of the built module",
        "trace\tok\ttrace-cmd 3.1.6",
        ""]))
    t = 1000.0
    pid = 40000
    for name, plist, desc, hyp, part, kargs in CONFIGS:
        params = " ".join(p.lstrip("?") for p in plist)
        cdir = os.path.join(out, "configs", name)
        write(os.path.join(cdir, "arm.env"), f"hypothesis={hyp}\npartition={part}\nkfdmp_args={kargs}\n")
        if name in SKIPPED:
            write(os.path.join(cdir, "status"), SKIPPED[name] + "\n")
            continue
        write(os.path.join(cdir, "config.env"), f"name={name}\nparams={params}\ndescription={desc}\n")
        write(os.path.join(cdir, "status"), "ok\n")
        if part != "-":
            write(os.path.join(cdir, "partition.env"),
                  f"compute={part}\nmemory=NPS1\navailable=SPX,DPX,CPX\nnodes={ {'DPX': 2, 'CPX': 4}.get(part, 1) }\n"
                  "status=ok\ndetail=\n")
        eff = dict(EFFECTIVE["stock"])
        for p in params.split():
            k, v = p.split("=")
            eff[k] = v
        eff.update({"sched_policy": "0", "mes": "0", "hws_max_conc_proc": "-1"})
        write(os.path.join(cdir, "params.effective"), "".join(f"{k}={v}\n" for k, v in sorted(eff.items())))
        st, idle = Stats(), Stats()
        write(os.path.join(cdir, "mp_stats.before"), mp_text(st, idle, 12))
        klog = [f"# {MARK}",
                f"[ 1000.000001] kfdmp-testbox: load {name} {params}".rstrip(),
                "[ 1000.120000] [drm] amdgpu kernel modesetting enabled.",
                "[ 1003.402113] amdgpu 0000:0c:00.0: amdgpu: SYNTHETIC MI300X, gfx_target_version 90402",
                "[ 1009.877001] kfd kfd: amdgpu: added device 1002:74a1"]
        queues = []
        for wl in WORKLOADS:
            wdir = os.path.join(cdir, wl)
            trace = []
            tb = st.flat()
            write(os.path.join(wdir, "trace", "mp_stats.before"), mp_text(st, idle, 40))
            doc, lines, t, pid_next = harness_doc(rng, name, wl, st, trace, t, pid, kargs)
            for i, r in enumerate(doc["runs"]):
                for q in r["kfd"]["queues"]:
                    queues.append(f"{int(t) - 100 + i}\t{q['pid']}\t{q['total']}")
            pid = pid_next
            klog += [f"[{t:12.6f}] {line}" for line in lines]
            write(os.path.join(wdir, "trace", "mp_stats.after"), mp_text(st, idle, 40 + 30000))
            write(os.path.join(wdir, "results.json"), json.dumps(doc, indent=1) + "\n")
            write(os.path.join(wdir, "workload.env"), "exit_code=0\n")
            write(os.path.join(wdir, "trace", "trace.txt"),
                  f"# {MARK}\ncpus=16\n" + "\n".join(trace) + "\n")
            del tb
        write(os.path.join(cdir, "mp_stats.after"), mp_text(st, idle, 61000))
        write(os.path.join(cdir, "kernel.log"), "\n".join(klog) + "\n")
        write(os.path.join(cdir, "queues.tsv"), f"# {MARK}\n# epoch_s\tpid\tqueues\n" + "\n".join(queues) + "\n")
        for snap in ("hqds", "rls"):
            for when in ("before", "after"):
                write(os.path.join(cdir, f"{snap}.{when}"), f"# {MARK}\n(empty {snap} snapshot: no queues)\n")
    write(os.path.join(out, "restore.env"),
          f"# {MARK}\nstatus=ok\ndetail=stock amdgpu loaded again (modprobe amdgpu)\n")
    print(f"make-sample: wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
