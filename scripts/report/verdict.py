#!/usr/bin/env python3
"""The verdict of a hypothesis-matrix run: where the lost throughput goes, and
which arm brings it back, named only where the repeats support it (issues 17, 25).

    verdict.py RUN_DIR [--json] [--p99-target T] [--p99-bound B] [--detect E]

testbox_report.py calls verdict_of(doc, run_dir) and puts the result into
testbox.json ("verdict") and summary.md. Everything here is a pure function of
the harness's results.json files and of the matrix's arm descriptions, so
tests/testbox/test_verdict.py checks it on run directories synthesised from a
stated model (tests/testbox/verdict_model.py).

The decision rule (docs/box-run.md, "The verdict"):
- mission ratio of a repeat: its aggregate QPS / the reference arm's mean QPS
  at N=1 (one process on the whole GPU).
- loss of the reference at N: 1 - mean QPS(N) / mean QPS(1); tested one-sided
  (loss > 0) with a Welch t test over the repeats.
- effect of an arm at N: its mean mission ratio - the reference's, Welch t
  over the repeats (Welch-Satterthwaite degrees of freedom, the t quantile
  computed here from the regularized incomplete beta function). A remedy is
  tested one-sided (effect > 0).
- multiple comparisons: Holm's step-down procedure over ALL the remedy tests
  of the run (every remedy arm x workload x N) at a family-wise 5%, and
  separately over all the reference's loss tests. The family is the whole
  verdict because the verdict's claim is the list of causes: on pure noise
  it must name nothing in 95% of runs, whatever the number of hypotheses,
  arms and N. Holm and not Bonferroni: the same guarantee, never less power.
  Each test's lower bound is reported at the level of its Holm step, so a
  named cause always has a lower bound above 0.
- a hypothesis is a cause at (workload, N) only where the reference's loss is
  significant (Holm) AND one of its remedy arms' effects is (Holm). Arms equal
  to the reference by construction (hypothesis noise_floor; in runs recorded
  before it existed, the arm hwq4 = HIP's default GPU_MAX_HW_QUEUES=4) are the
  noise floor, never remedies. idle_queues arms add load: their effect is a
  tax (tested one-sided, effect < 0), never a remedy.
- share explained = effect / loss; ranked by its lower bound (the effect's
  Holm lower bound / the loss's 95% upper bound). Causes an arm could not
  attribute to one hypothesis (a partition changes CUs, L2/XCC and the HQD
  and VMID budgets at once) rank after those it could.
- latency: every effect carries p50 and p99 against the reference at the same
  N; a remedy whose mean p99 exceeds the reference's by more than the p99
  bound (1.25x) is a trade-off, not a fix.
- confounds: what each arm changes (a partition: CUs, L2/XCC, the HQD and
  VMID budgets; the CU split: CUs; --hw-queues: queues per process); an arm
  that changes several hypotheses' factors names the arms that would
  separate them, and the CU split is set against each partition ("CUs, not
  L2" / "L2/XCC, not CUs" / "CUs and L2/XCC" / "cannot tell").
- no cause: what each arm ruled out, the smallest effect the run could name
  and the repeats that would name a given one.
- what to run: per N the throughput-versus-p99 front and the fastest arm that
  meets --p99-target (the reference unless one is faster beyond its interval).
Python 3.6 and the standard library only.
"""
import argparse
import json
import math
import os
import sys

ALPHA = 0.05             # family-wise error of the verdict
P99_BOUND = 1.25         # a remedy's p99 / the reference's above this: a trade-off
P99_TARGET_X = 1.5       # default --p99-target: the reference's p99 alone (N=1) x this
POWER = 0.8              # for the smallest detectable effect
MIN_REPEATS = 3          # fewer: not judged
RULED_OUT_SHARE = 0.25   # an arm whose 95% upper bound is below this share of the loss rules it out
DETECT = 0.10            # default effect (mission ratio) for "repeats needed"

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
HIP_DEFAULT_HW_QUEUES = "4"

# hypothesis -> (role, description). Roles: reference, noise (equal to the
# reference by construction), tax (adds load: effect expected < 0), remedy.
HYPOTHESES = {
    "baseline": ("reference", "the reference: N processes share the whole GPU"),
    "noise_floor": ("noise", "equal to the reference by construction: the noise floor"),
    "xcc_l2_sharing": ("remedy", "XCC/L2 and CU sharing: tenants' kernels run slower side by side"),
    "hws_oversubscription": ("remedy", "HWS oversubscription: more queues than HQDs or processes than VMIDs, "
                                       "the runlist is chained and time-sliced"),
    "submit_path": ("remedy", "submit path: launches and doorbells, not the GPU"),
    "preemption": ("remedy", "preemption cost: unmapping queues (dequeue retry wait)"),
    "switches": ("remedy", "this project's switches (slot policy, doorbell placement, queued runlist)"),
    "host_threads": ("remedy", "host threads: OMP/torch intra-op threads per process oversubscribe the CPUs"),
    "cpu_placement": ("remedy", "CPU placement: processes not pinned to the GPU's NUMA node"),
    "idle_queues": ("tax", "idle queues: extra processes that only open queues (adds load; measures a tax)"),
}
HYPOTHESIS_ORDER = ["xcc_l2_sharing", "hws_oversubscription", "submit_path", "preemption", "host_threads",
                    "cpu_placement", "switches"]

# What an arm changes (its factors) and the hypothesis each factor belongs to.
FACTORS = {
    "cus": ("xcc_l2_sharing", "CUs per process"),
    "l2_xcc": ("xcc_l2_sharing", "L2/XCC sharing"),
    "hqd_budget": ("hws_oversubscription", "the HQD budget (24 per partition)"),
    "vmid_budget": ("hws_oversubscription", "the VMID budget per partition"),
    "queues_per_process": ("hws_oversubscription", "queues per process"),
    "submit_path": ("submit_path", "the submit path (graph replay)"),
}


# --- statistics (standard library only) ------------------------------------------------

def mean(v):
    return sum(v) / len(v) if v else None


def var(v):
    if len(v) < 2:
        return None
    m = mean(v)
    return sum((x - m) ** 2 for x in v) / (len(v) - 1)


def sd(v):
    s = var(v)
    return math.sqrt(s) if s is not None else None


def num(x):
    return x if isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) else None


def _ibeta_cf(a, b, x):
    """Continued fraction of the regularized incomplete beta function
    (modified Lentz evaluation)."""
    tiny = 1e-300
    c = 1.0
    d = 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 500):
        m2 = 2 * m
        for k in (m * (b - m) * x / ((a + m2 - 1.0) * (a + m2)),
                  -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0))):
            d = 1.0 + k * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + k / c
            c = c if abs(c) > tiny else tiny
            step = d * c
            h *= step
        if abs(step - 1.0) < 1e-15:
            break
    return h


def ibeta(a, b, x):
    """Regularized incomplete beta I_x(a, b)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    ln = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(ln) * _ibeta_cf(a, b, x) / a
    return 1.0 - math.exp(ln) * _ibeta_cf(b, a, 1.0 - x) / b


def t_sf(t, df):
    """P(T > t) for Student's t with df (> 0, not necessarily whole) degrees of freedom."""
    df = min(df, 1e4)
    tail = 0.5 * ibeta(df / 2.0, 0.5, df / (df + t * t))
    return tail if t >= 0 else 1.0 - tail


def t_pdf(t, df):
    df = min(df, 1e4)
    return math.exp(math.lgamma((df + 1) / 2.0) - math.lgamma(df / 2.0) - 0.5 * math.log(df * math.pi)
                    - (df + 1) / 2.0 * math.log1p(t * t / df))


_PPF = {}


def t_ppf(p, df):
    """The p quantile of Student's t (0 < p < 1): Newton's method on
    log P(T > t) against log t (nearly a line in the tail, so a few steps),
    kept inside a bracket that bisects when a step leaves it."""
    key = (p, df)
    if key in _PPF:
        return _PPF[key]
    if not 0 < p < 1 or not df > 0:
        raise ValueError("t_ppf(%r, %r): needs 0 < p < 1 and df > 0" % (p, df))
    if p == 0.5:
        return 0.0
    if p < 0.5:
        return -t_ppf(1 - p, df)
    lq = math.log(1 - p)
    lo, hi, t = 0.0, None, 2.0
    for _ in range(200):
        s = t_sf(t, df)
        g = math.log(s) - lq if s > 0 else -1e300
        if g > 0:
            lo = t
        else:
            hi = t
        if abs(g) < 1e-13:
            break
        slope = t_pdf(t, df) * t / s if s > 0 else 0.0
        nt = t * math.exp(min(50.0, g / slope)) if slope > 0 else None
        if nt is None or nt <= lo or (hi is not None and nt >= hi):
            nt = (lo + hi) / 2 if hi is not None else max(2 * t, 1.0)
        if abs(nt - t) <= 1e-14 * t:
            t = nt
            break
        t = nt
    if len(_PPF) > 100000:
        _PPF.clear()
    _PPF[key] = t
    return t


def welch(a, b):
    """mean(a) - mean(b): the difference, its standard error and the
    Welch-Satterthwaite degrees of freedom (both samples >= 2)."""
    na, nb = len(a), len(b)
    va, vb = var(a) / na, var(b) / nb
    se = math.sqrt(va + vb)
    den = va * va / (na - 1) + vb * vb / (nb - 1)
    df = (va + vb) ** 2 / den if den > 0 else float(na + nb - 2)
    return {"d": mean(a) - mean(b), "se": se, "df": max(1.0, df)}


def one_sided_p(w, sign=1):
    """p of the one-sided test sign * difference > 0."""
    d = sign * w["d"]
    if w["se"] == 0:
        return 0.0 if d > 0 else 1.0
    return t_sf(d / w["se"], w["df"])


def bounds(w, level):
    """Two-sided interval of coverage level."""
    h = t_ppf(1 - (1 - level) / 2, w["df"]) * w["se"]
    return [w["d"] - h, w["d"] + h]


def holm(tests, alpha=ALPHA):
    """Holm's step-down procedure over tests (dicts with "p"): sets
    holm_m, holm_level (the level of the test's step; after the first
    acceptance, the level of that step), holm_p (adjusted p) and rejected."""
    order = sorted(range(len(tests)), key=lambda i: tests[i]["p"])
    m = len(tests)
    going, stop_level, adj = True, None, 0.0
    for rank, i in enumerate(order):
        t = tests[i]
        level = alpha / (m - rank)
        adj = max(adj, min(1.0, (m - rank) * t["p"]))
        if going and t["p"] <= level:
            t["rejected"], t["holm_level"] = True, level
        else:
            if going:
                going, stop_level = False, level
            t["rejected"], t["holm_level"] = False, stop_level
        t["holm_m"], t["holm_p"] = m, adj
    return tests


def mde(sd_, n, m, alpha=ALPHA, power=POWER):
    """The smallest difference a one-sided Welch test at the first Holm step
    (alpha / m) detects with the given power, n repeats on both sides."""
    if sd_ is None or n < 2:
        return None
    df = 2 * n - 2
    return (t_ppf(1 - alpha / max(1, m), df) + t_ppf(power, df)) * sd_ * math.sqrt(2.0 / n)


def repeats_needed(sd_, effect, m, alpha=ALPHA, power=POWER, most=1000):
    if sd_ is None or not effect or effect <= 0:
        return None
    if sd_ == 0:
        return MIN_REPEATS
    if mde(sd_, most, m, alpha, power) > effect:
        return None
    lo, hi = MIN_REPEATS - 1, most  # mde falls with n: the first n that detects it
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if mde(sd_, mid, m, alpha, power) <= effect:
            hi = mid
        else:
            lo = mid
    return hi


# --- per run (the evidence) ------------------------------------------------------------

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
    counts = []
    for q in kfd.get("queues") or []:
        if not isinstance(q, dict):
            continue  # null: that process's queues file could not be read (no KFD on the machine)
        by_type = q.get("by_type") if isinstance(q.get("by_type"), dict) else {}
        c = num(by_type["compute"]) if "compute" in by_type else num(q.get("total", 0))
        if c is not None:
            counts.append(c)
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


# --- arms --------------------------------------------------------------------------------

_OK = {}


def ok_runs(runs, n=None):
    """The runs that count (status ok, a QPS, not a mix), at N when given;
    memoised within one verdict() call (cleared at its start and end)."""
    key = (id(runs), n)
    if runs and key in _OK:
        return _OK[key]
    out = [r for r in runs or [] if r.get("status") == "ok" and num(r.get("aggregate_qps")) is not None
           and not r.get("mix") and (n is None or r.get("procs") == n)]
    if runs:
        _OK[key] = out
    return out


def latency(r, key):
    return num((r.get("latency_us") or {}).get(key))


def qps_by_procs(runs):
    out = {}
    for r in ok_runs(runs):
        out.setdefault(r["procs"], []).append(r["aggregate_qps"])
    return out


def hypothesis_info(h):
    if h in HYPOTHESES:
        return HYPOTHESES[h]
    return ("remedy", "%s (a hypothesis verdict.py does not know: judged as a remedy arm)" % h)


def arm_role(a, ref_name):
    if a["name"] == ref_name:
        return "reference"
    h = a.get("hypothesis") or "switches"
    role = hypothesis_info(h)[0]
    if role == "reference":
        return "noise"  # a second baseline arm equals the reference by construction
    if role == "remedy" and h == "hws_oversubscription" and not a.get("params") and \
            a.get("hw_queues") == HIP_DEFAULT_HW_QUEUES:
        return "noise"  # runs recorded before noise_floor existed: hwq4 is HIP's default made explicit
    return role


def arm_factors(a, ref):
    """What an arm changes against the reference, as FACTORS keys; empty when
    it changes nothing this file can name (then its hypothesis stands alone)."""
    f = []
    part = (a.get("partition") or "SPX").upper()
    if part != (ref.get("partition") or "SPX").upper() and part in PARTITIONS and PARTITIONS[part] > 1:
        f += ["cus", "l2_xcc", "hqd_budget", "vmid_budget"]
    args = (a.get("kfdmp_args") or "").split()
    if any(x.startswith("--cu-split") for x in args):
        f.append("cus")
    if a.get("hw_queues") and a.get("hw_queues") != (ref.get("hw_queues") or HIP_DEFAULT_HW_QUEUES):
        f.append("queues_per_process")
    if "--graph" in args:
        f.append("submit_path")
    return sorted(set(f), key=list(FACTORS).index)


def covered(arms, ref):
    """The factors some single-factor arm that ran isolates (fewer queues per
    process also relieve the HQD budget)."""
    c = set()
    for a in arms:
        for f in arm_factors(a, ref):
            c.add(f)
            if f == "queues_per_process":
                c.add("hqd_budget")
    return c


def arm_hypotheses(a, ref):
    """The hypotheses an arm's effect can speak for."""
    hs = []
    for f in arm_factors(a, ref):
        if FACTORS[f][0] not in hs:
            hs.append(FACTORS[f][0])
    h = a.get("hypothesis") or "switches"
    if h not in hs and (not hs or a.get("params")):
        hs.insert(0, h)
    return hs


def reproduce(ref, arm, wl=None, n=None):
    names = ref if arm in (None, ref) else "%s,%s" % (ref, arm)
    cmd = "scripts/testbox.sh --configs %s" % names
    if wl:
        cmd += " --workloads %s" % wl
    if n:
        cmd += " --procs %s" % ("1" if n == 1 else "1,%d" % n)
    return cmd


def fmt(x, f="%.3f"):
    return "-" if x is None else f % x


def fmt_ci(ci, f="%+.3f"):
    return "-" if not ci else "[%s, %s]" % (f % ci[0], f % ci[1])


def ratio_or_none(a, b):
    return a / b if a is not None and b else None


# --- the verdict -------------------------------------------------------------------------

def verdict(arms, reference=None, workloads=None, mission_n=None, p99_target=None, p99_bound=P99_BOUND,
            alpha=ALPHA, detect=DETECT):
    _OK.clear()
    try:
        return _verdict(arms, reference, workloads, mission_n, p99_target, p99_bound, alpha, detect)
    finally:
        _OK.clear()


def _verdict(arms, reference, workloads, mission_n, p99_target, p99_bound, alpha, detect):
    """arms: [{"name", "hypothesis", "partition", "params", "kfdmp_args",
    "hw_queues", "status", "workloads": {wl: [harness runs]}}]. p99_target:
    None (1.5x the reference's p99 at the same N), "Kx" (K times it) or
    microseconds. Returns the verdict document (docs/box-run.md)."""
    ran = [a for a in arms if a.get("workloads")]
    if not ran:
        return {"available": False, "reason": "no arm has results", "hypotheses": [], "arms": [], "causes": []}
    ref = next((a for a in ran if a["name"] == reference), None) or \
        next((a for a in ran if a.get("hypothesis") == "baseline"), None)
    if ref is None:
        return {"available": False, "reason": "no reference arm (hypothesis baseline) has results: nothing to "
                "measure a loss against", "hypotheses": [], "arms": [], "causes": []}
    wls = workloads or sorted({w for a in ran for w in a["workloads"]})
    roles = {a["name"]: arm_role(a, ref["name"]) for a in arms}
    notes = []

    # Per workload and N: the reference's loss, every arm's effect and latency.
    losses, tests, per_arm = [], [], {}
    for wl in wls:
        rruns = (ref["workloads"] or {}).get(wl) or []
        rq = qps_by_procs(rruns)
        base = mean(rq.get(1, []))
        if not base:
            notes.append("%s: the reference has no 1-process run: no mission ratio, no loss" % wl)
            continue
        ns = mission_n or sorted(n for n in rq if n > 1)
        ref_lat = {n: ([latency(r, "p50") for r in ok_runs(rruns, n) if latency(r, "p50") is not None],
                       [latency(r, "p99") for r in ok_runs(rruns, n) if latency(r, "p99") is not None])
                   for n in set(ns) | {1}}
        for n in ns:
            if not rq.get(n):
                continue
            L = {"workload": wl, "procs": n, "lost": 1 - mean(rq[n]) / base, "repeats": [len(rq[1]), len(rq[n])],
                 "ci95": None, "p": None, "significant": False, "why_not_judged": None}
            if len(rq[1]) < MIN_REPEATS or len(rq[n]) < MIN_REPEATS:
                L["why_not_judged"] = "needs >= %d repeats at N=1 and N=%d (have %d and %d)" % (
                    MIN_REPEATS, n, len(rq[1]), len(rq[n]))
            else:
                w = welch(rq[1], rq[n])
                L["ci95"] = [x / base for x in bounds(w, 0.95)]
                L["p"] = one_sided_p(w)
                L["_w"] = w
            losses.append(L)
        for a in ran:
            runs = a["workloads"].get(wl)
            if not runs or a["name"] == ref["name"]:
                continue
            q = qps_by_procs(runs)
            for n in ns:
                if not q.get(n) or not rq.get(n):
                    continue
                m = [x / base for x in q[n]]
                mr = [x / base for x in rq[n]]
                p50 = [latency(r, "p50") for r in ok_runs(runs, n) if latency(r, "p50") is not None]
                p99 = [latency(r, "p99") for r in ok_runs(runs, n) if latency(r, "p99") is not None]
                rp50, rp99 = ref_lat[n]
                T = {"workload": wl, "procs": n, "arm": a["name"], "hypothesis": a.get("hypothesis") or "switches",
                     "role": roles[a["name"]], "effect": mean(m) - mean(mr), "repeats": [len(m), len(mr)],
                     "ci95": None, "p": None, "why_not_judged": None, "rejected": False,
                     "p50_ratio": ratio_or_none(mean(p50), mean(rp50)),
                     "p99_ratio": ratio_or_none(mean(p99), mean(rp99)), "p99_ratio_ci95": None}
                if len(p99) >= 2 and len(rp99) >= 2 and mean(rp99):
                    T["p99_ratio_ci95"] = [1 + x / mean(rp99) for x in bounds(welch(p99, rp99), 0.95)]
                T["trade_off"] = T["p99_ratio"] is not None and T["p99_ratio"] > p99_bound
                if not p99 or not rp99:
                    T["latency_note"] = "no p99 in the results: latency not judged"
                if len(m) < MIN_REPEATS or len(mr) < MIN_REPEATS:
                    T["why_not_judged"] = "needs >= %d repeats of both (have %d and %d)" % (MIN_REPEATS, len(m),
                                                                                            len(mr))
                else:
                    w = welch(m, mr)
                    T["_w"], T["_m"] = w, m
                    T["ci95"] = bounds(w, 0.95)
                    T["p"] = one_sided_p(w, -1 if T["role"] == "tax" else 1) if T["role"] != "noise" else \
                        min(1.0, 2 * min(one_sided_p(w), one_sided_p(w, -1)))
                tests.append(T)
                per_arm.setdefault((a["name"], wl), {})[n] = T

    judged_loss = [L for L in losses if L["p"] is not None]
    holm(judged_loss, alpha)
    for L in judged_loss:
        L["significant"] = L["rejected"]
        del L["rejected"]
    loss_at = {(L["workload"], L["procs"]): L for L in losses}
    remedy_tests = [T for T in tests if T["role"] == "remedy" and T["p"] is not None]
    tax_tests = [T for T in tests if T["role"] == "tax" and T["p"] is not None]
    holm(remedy_tests, alpha)
    holm(tax_tests, alpha)
    for T in remedy_tests + tax_tests:
        w = T["_w"]
        tq = t_ppf(1 - T["holm_level"], w["df"]) * w["se"]
        if T["role"] == "remedy":
            T["lower_holm"] = w["d"] - tq
        else:
            T["upper_holm"] = w["d"] + tq
    m_family = len(remedy_tests)

    # Shares of the loss, what each test rules out.
    for T in tests:
        L = loss_at.get((T["workload"], T["procs"]))
        T["lost"] = L["lost"] if L else None
        T["loss_significant"] = bool(L and L["significant"])
        T["share"] = T["effect"] / L["lost"] if L and L["lost"] > 0 and L["significant"] else None
        T["share_lower"] = None
        if T.get("lower_holm") is not None and T["share"] is not None and L["ci95"]:
            T["share_lower"] = T["lower_holm"] / L["ci95"][1]
        T["rules_out"] = None
        if T["role"] == "remedy" and T["ci95"] and L and L["lost"] > 0:
            T["rules_out"] = max(0.0, T["ci95"][1]) / L["lost"]  # brings back at most this share of the loss

    # Causes: a remedy test named by Holm where the reference's loss is significant.
    ref_info = {"name": ref["name"], "partition": ref.get("partition") or "SPX", "hw_queues": ref.get("hw_queues")}
    arm_by = {a["name"]: a for a in arms}
    hyps_of = {a["name"]: arm_hypotheses(a, ref_info) for a in arms}
    named = [T for T in remedy_tests if T["rejected"] and T["loss_significant"]]
    named_single = {}
    for T in named:
        hs = hyps_of[T["arm"]]
        if len(hs) == 1:
            named_single.setdefault((T["workload"], T["procs"]), set()).add(hs[0])
    causes = []
    confounds = []
    for T in named:
        hs = hyps_of[T["arm"]]
        c = {"hypothesis": hs[0] if len(hs) == 1 else "|".join(hs), "hypotheses": hs, "arm": T["arm"],
             "workload": T["workload"], "procs": T["procs"], "effect": T["effect"], "ci95": T["ci95"],
             "lower_holm": T["lower_holm"], "holm_level": T["holm_level"], "p": T["p"], "holm_p": T["holm_p"],
             "lost": T["lost"], "share": T["share"], "share_lower": T["share_lower"],
             "p50_ratio": T["p50_ratio"], "p99_ratio": T["p99_ratio"], "p99_ratio_ci95": T["p99_ratio_ci95"],
             "kind": "trade-off" if T["trade_off"] else "fix", "confounded": len(hs) > 1,
             "reproduce": reproduce(ref["name"], T["arm"], T["workload"], T["procs"])}
        if len(hs) > 1:
            single = named_single.get((T["workload"], T["procs"]), set()) & set(hs)
            if single:
                # Another arm isolates one of its hypotheses and recovers the loss
                # on its own: this arm's effect is consistent with that, not a cause
                # of its own.
                confounds.append({"arm": T["arm"], "workload": T["workload"], "procs": T["procs"],
                                  "consistent_with": sorted(single), "effect": T["effect"], "ci95": T["ci95"]})
                continue
        causes.append(c)
    causes.sort(key=lambda c: (c["confounded"], -(c["share_lower"] if c["share_lower"] is not None else -1e9)))
    best = {}
    for c in causes:
        k = (c["hypothesis"], c["workload"], c["procs"])
        if k in best:
            best[k]["also"].append({"arm": c["arm"], "effect": c["effect"], "lower_holm": c["lower_holm"],
                                    "share_lower": c["share_lower"], "kind": c["kind"]})
        else:
            c["also"] = []
            best[k] = c
    causes = [c for c in causes if "also" in c]
    # One entry per hypothesis: its best workload and N; the others in "also_at".
    by_h = {}
    for c in causes:
        if c["hypothesis"] in by_h:
            by_h[c["hypothesis"]]["also_at"].append({k: c[k] for k in (
                "workload", "procs", "arm", "effect", "ci95", "lower_holm", "lost", "share", "share_lower",
                "p50_ratio", "p99_ratio", "kind", "reproduce")})
        else:
            c["also_at"] = []
            by_h[c["hypothesis"]] = c
    causes = [c for c in causes if "also_at" in c]
    for i, c in enumerate(causes):
        c["rank"] = i + 1

    # Confounds: what each multi-factor arm cannot separate and which arm would.
    confound_notes = []
    for a in ran:
        if roles[a["name"]] != "remedy" or len(hyps_of[a["name"]]) < 2:
            continue
        fs = arm_factors(a, ref_info)
        seps = {}
        for h in hyps_of[a["name"]]:
            seps[h] = [b["name"] for b in arms if roles[b["name"]] == "remedy" and hyps_of[b["name"]] == [h]
                       and arm_factors(b, ref_info)]
        confound_notes.append({
            "arm": a["name"], "changes": [FACTORS[f][1] for f in fs], "cannot_separate": hyps_of[a["name"]],
            "separating_arms": {h: [{"arm": s, "ran": bool((arm_by[s].get("workloads") or {})),
                                     "status": arm_by[s].get("status", "ok"),
                                     "changes": [FACTORS[f][1] for f in arm_factors(arm_by[s], ref_info)]}
                                    for s in v] for h, v in seps.items()},
            "unseparated": [FACTORS[f][1] for f in fs if f not in covered(
                [arm_by[s] for v in seps.values() for s in v if (arm_by[s].get("workloads") or {})], ref_info)],
            "explained_by": [c for c in confounds if c["arm"] == a["name"]]})

    contrasts = cu_contrast(arms, roles, per_arm, loss_at, ref_info, hyps_of, wls, alpha)

    # Noise floor and taxes.
    noise = [{"arm": T["arm"], "workload": T["workload"], "procs": T["procs"], "effect": T["effect"],
              "ci95": T["ci95"], "p": T["p"], "why_not_judged": T["why_not_judged"],
              "excludes_zero": bool(T["ci95"] and (T["ci95"][0] > 0 or T["ci95"][1] < 0)),
              "p50_ratio": T["p50_ratio"], "p99_ratio": T["p99_ratio"]} for T in tests if T["role"] == "noise"]
    taxes = [{"arm": T["arm"], "hypothesis": T["hypothesis"], "workload": T["workload"], "procs": T["procs"],
              "effect": T["effect"], "ci95": T["ci95"], "upper_holm": T.get("upper_holm"),
              "significant": T["rejected"], "why_not_judged": T["why_not_judged"],
              "p50_ratio": T["p50_ratio"], "p99_ratio": T["p99_ratio"]} for T in tests if T["role"] == "tax"]

    # What this run could have detected.
    detectable = []
    for L in losses:
        wl, n = L["workload"], L["procs"]
        sds, reps = [], []
        for a in ran:
            q = qps_by_procs((a["workloads"] or {}).get(wl) or [])
            base = mean(qps_by_procs((ref["workloads"] or {}).get(wl) or []).get(1, []))
            if q.get(n) and len(q[n]) >= 2 and base:
                sds.append(var([x / base for x in q[n]]))
                reps.append(len(q[n]))
        s = math.sqrt(mean(sds)) if sds else None
        r = int(round(mean(reps))) if reps else 0
        mm = max(1, m_family)
        d = {"workload": wl, "procs": n, "noise_sd": s, "repeats": r, "family": mm,
             "mde": mde(s, r, mm, alpha) if s is not None and r >= 2 else None, "detect": detect,
             "repeats_for_detect": repeats_needed(s, detect, mm, alpha),
             "repeats_for_loss": repeats_needed(s, L["lost"] / 2, mm, alpha) if L["lost"] > 0 else None}
        detectable.append(d)

    # Hypotheses: tested or not, supported or not, what their arms ruled out.
    hyp_names = list(HYPOTHESIS_ORDER)
    for a in arms:
        h = a.get("hypothesis") or "switches"
        if roles.get(a["name"]) == "remedy" and h not in hyp_names:
            hyp_names.append(h)
    hyps = []
    for h in hyp_names:
        harms = [a for a in arms if (a.get("hypothesis") or "switches") == h and roles[a["name"]] == "remedy"]
        # arms of other hypotheses whose factors speak for this one (a partition for queues)
        also = [a["name"] for a in arms if roles[a["name"]] == "remedy" and a not in harms
                and h in hyps_of[a["name"]]]
        ts = [T for T in tests if T["role"] == "remedy" and T["arm"] in [a["name"] for a in harms]]
        mine = [c for c in causes if h in c["hypotheses"]]
        ruled = []
        for T in ts:
            if hyps_of[T["arm"]] != [h]:
                continue  # a confounded arm speaks for several hypotheses: it rules none out
            if T["rules_out"] is not None and T["loss_significant"]:
                ruled.append({"arm": T["arm"], "workload": T["workload"], "procs": T["procs"],
                              "at_most_share": T["rules_out"], "upper95": T["ci95"][1],
                              "ruled_out": T["rules_out"] < RULED_OUT_SHARE})
        hyps.append({"hypothesis": h, "description": hypothesis_info(h)[1],
                     "arms": [a["name"] for a in harms], "also_tested_by": also,
                     # skipped (status "skipped: ...", also when the workloads answered
                     # "unsupported" and left a results.json) or without results
                     "skipped_arms": [(a["name"], a.get("status", "ok")) for a in harms
                                      if not a.get("workloads") or str(a.get("status", "")).startswith("skipped")],
                     # ran, yet no test of them could be judged: why
                     "unjudged_arms": sorted({(T["arm"], T["why_not_judged"]) for T in ts if T["why_not_judged"]}),
                     "arm_status": {a["name"]: a.get("status", "ok") for a in harms},
                     "tested": any(T["p"] is not None for T in ts),
                     "supported": bool([c for c in mine if not c["confounded"]]),
                     "supported_confounded": bool([c for c in mine if c["confounded"]]),
                     "best": mine[0] if mine else None, "ruled_out": ruled,
                     "confounded_arms": [a["name"] for a in harms if len(hyps_of[a["name"]]) > 1],
                     "single_changes": sorted({FACTORS[f][1] for a in harms if hyps_of[a["name"]] == [h]
                                               for f in arm_factors(a, ref_info)}),
                     "evidence": evidence(h, ref, per_arm, wls, arms)})
    hyps.sort(key=lambda x: (x["best"]["rank"] if x["best"] else 1e9))
    for i, x in enumerate(hyps):
        x["rank"] = i + 1 if x["best"] else None

    fronts = front(arms, roles, ref, wls, p99_target)
    out = {"available": True, "reference": ref["name"], "workloads": wls, "notes": notes,
           "rule": {"alpha": alpha, "correction": "Holm over all %d remedy tests (arm x workload x N), and over "
                    "all %d loss tests of the reference" % (m_family, len(judged_loss)),
                    "interval": "Welch t over the repeats (Welch-Satterthwaite df)", "min_repeats": MIN_REPEATS,
                    "p99_bound": p99_bound, "ruled_out_share": RULED_OUT_SHARE, "power": POWER},
           "causes": [strip(c) for c in causes], "losses": [strip(L) for L in losses],
           "tests": [strip(T) for T in tests], "hypotheses": hyps, "confounds": confound_notes,
           "contrasts": contrasts, "noise_floor": noise, "taxes": taxes, "detectable": detectable,
           "fronts": fronts, "arms": arm_rows(arms, ref, wls, ns_all(ref, wls, mission_n))}
    out["no_cause"] = None if causes else no_cause(out)
    return out


def strip(d):
    return {k: v for k, v in d.items() if not k.startswith("_")}


def ns_all(ref, wls, mission_n):
    ns = set()
    for wl in wls:
        ns |= set(qps_by_procs((ref["workloads"] or {}).get(wl) or []))
    return sorted(ns | set(mission_n or ()))


def evidence(h, ref, per_arm, wls, arms):
    """The reference arm's own signatures that point at h (and its mp_stats
    for preemption): context, not the decision."""
    support = []
    if h == "preemption":
        ms = ref.get("mp_stats") or {}
        if ms.get("preemptions"):
            support.append("%d unmaps, wait mean %s us, p99 <= %s us, max %s us (mp_stats)"
                           % (ms["preemptions"], fmt(num(ms.get("preempt_wait_us_mean")), "%.0f"),
                              fmt(num(ms.get("preempt_wait_us_p99_bound")), "%.0f"),
                              fmt(num(ms.get("preempt_wait_us_max")), "%.0f")))
    for wl in wls:
        runs = (ref["workloads"] or {}).get(wl) or []
        solo = next(iter(ok_runs(runs, 1)), None)
        for n in sorted({r.get("procs") for r in ok_runs(runs)} - {1}):
            sigs = []
            for r in ok_runs(runs, n):
                ov = oversubscription(r, ref.get("partition") or "SPX", None, ref.get("hw_queues"))
                sigs.append(classify_run(r, solo, ov)[0])
            if sigs:
                s = max(set(sigs), key=sigs.count)
                if SIGNATURE_HYPOTHESIS.get(s) == h:
                    support.append("%s N=%d: %s" % (wl, n, s))
    return support


def cu_contrast(arms, roles, per_arm, loss_at, ref, hyps_of, wls, alpha):
    """The CU split against each partition arm where both ran at the same
    workload and N: "CUs, not L2", "L2/XCC, not CUs", "CUs and L2/XCC" or
    "cannot tell", each with the intervals that decide it."""
    split = [a for a in arms if "--cu-split" in (a.get("kfdmp_args") or "") and roles[a["name"]] == "remedy"]
    parts = [a for a in arms if roles[a["name"]] == "remedy" and "l2_xcc" in arm_factors(a, ref)]
    out = []
    if not parts:
        return out
    for p in parts:
        if not split:
            out.append({"split": None, "partition": p["name"], "workload": None, "procs": None,
                        "result": "cannot tell", "why": "no CU-split arm (spx-xcc-split) in this run: "
                        "the partition's effect cannot be split into CUs and L2/XCC"})
            continue
        s = split[0]
        common = False
        for wl in wls:
            for n, tp in sorted(per_arm.get((p["name"], wl), {}).items()):
                ts = per_arm.get((s["name"], wl), {}).get(n)
                if ts is None:
                    continue
                common = True
                L = loss_at.get((wl, n))
                row = {"split": s["name"], "partition": p["name"], "workload": wl, "procs": n,
                       "split_effect": ts["effect"], "split_ci95": ts["ci95"], "split_named": ts["rejected"],
                       "partition_effect": tp["effect"], "partition_ci95": tp["ci95"],
                       "partition_named": tp["rejected"], "difference": None, "difference_ci95": None}
                if not L or not L["significant"]:
                    row.update(result="cannot tell", why="no significant loss of the reference at this N to split")
                    out.append(row)
                    continue
                if "_w" not in ts or "_w" not in tp:
                    row.update(result="cannot tell", why=ts["why_not_judged"] or tp["why_not_judged"])
                    out.append(row)
                    continue
                w = welch(tp["_m"], ts["_m"])
                dci = bounds(w, 0.95)
                row["difference"], row["difference_ci95"] = w["d"], dci
                small = RULED_OUT_SHARE * L["lost"]
                if ts["rejected"] and dci[0] > 0:
                    res, why = "CUs and L2/XCC", "the split recovers %+.3f and partitioning adds %+.3f %s on top" % (
                        ts["effect"], w["d"], fmt_ci(dci))
                elif ts["rejected"] and dci[1] < small:
                    res, why = "CUs, not L2", ("the split alone (L2 still shared) recovers %+.3f %s; partitioning "
                                               "adds at most %+.3f (95%% upper bound, < %.0f%% of the %.3f loss)"
                                               % (ts["effect"], fmt_ci(ts["ci95"]), dci[1],
                                                  100 * RULED_OUT_SHARE, L["lost"]))
                elif tp["rejected"] and dci[0] > 0 and ts["ci95"][1] < small:
                    res, why = "L2/XCC, not CUs", ("the partition recovers %+.3f %s, the split at most %+.3f "
                                                   "(< %.0f%% of the %.3f loss)" % (
                                                       tp["effect"], fmt_ci(tp["ci95"]), ts["ci95"][1],
                                                       100 * RULED_OUT_SHARE, L["lost"]))
                    if "hws_oversubscription" in hyps_of[p["name"]]:
                        q = [t for (an, w_), d_ in per_arm.items() if w_ == wl for n_, t in d_.items()
                             if n_ == n and t["role"] == "remedy" and hyps_of[an] == ["hws_oversubscription"]]
                        qn = [t["arm"] for t in q if t["rejected"]]
                        if qn:
                            res = "cannot tell"
                            why += "; but %s also changes the HQD and VMID budgets and fewer queues alone (%s) " \
                                   "recover the loss too: L2/XCC or the queue budget" % (p["name"], and_list(qn))
                        elif q:
                            why += "; %s also changes the HQD and VMID budgets, but fewer queues alone (%s) do " \
                                   "not recover it" % (p["name"], and_list([t["arm"] for t in q]))
                        else:
                            why += "; %s also changes the HQD and VMID budgets and no queue arm ran to rule " \
                                   "that out" % p["name"]
                else:
                    res = "cannot tell"
                    why = "split %+.3f %s, partition - split %+.3f %s: the intervals decide neither way" % (
                        ts["effect"], fmt_ci(ts["ci95"]), w["d"], fmt_ci(dci))
                row.update(result=res, why=why)
                out.append(row)
        if not common:
            idle = [x for x in (p, s) if not x.get("workloads")]
            why = "; ".join("%s did not run (%s)" % (x["name"], x.get("status", "no results")) for x in idle) or \
                "%s and %s share no workload and N with results" % (s["name"], p["name"])
            out.append({"split": s["name"], "partition": p["name"], "workload": None, "procs": None,
                        "result": "cannot tell", "why": why})
    return out


def parse_target(t):
    """--p99-target: ("x", K) for "Kx" (K times the reference's p99 at the
    same N; default 1.5x) or ("us", microseconds)."""
    if t is None or t == "":
        return ("x", P99_TARGET_X)
    s = str(t).strip()
    try:
        if s.endswith("x"):
            v = float(s[:-1])
            kind = "x"
        else:
            v = float(s)
            kind = "us"
    except ValueError:
        raise ValueError("--p99-target %r: a multiple of the reference's p99 alone like 1.5x, or microseconds"
                         % t)
    if not v > 0 or not math.isfinite(v):
        raise ValueError("--p99-target %r: must be positive" % t)
    return (kind, v)


def front(arms, roles, ref, wls, p99_target):
    """Per workload and N: the throughput-versus-p99 front over the arms that
    ran (not the tax arms, which add load, nor the noise floor, which is the
    reference again), and the arm with the
    highest mean throughput whose mean p99 meets the target."""
    kind, val = parse_target(p99_target)
    out = []
    for wl in wls:
        rruns = (ref["workloads"] or {}).get(wl) or []
        ns = sorted({r["procs"] for a in arms for r in ok_runs((a.get("workloads") or {}).get(wl))} - {1})
        for n in ns:
            rn = [latency(r, "p99") for r in ok_runs(rruns, n) if latency(r, "p99") is not None]
            if kind == "x":
                target = mean(rn) * val if rn else None
                tdesc = "%.3gx the reference's p99 at the same N" % val
            else:
                target, tdesc = val, "%.0f us (given)" % val
            pts = []
            for a in arms:
                if roles.get(a["name"]) in ("tax", "noise"):  # adds load / the reference again
                    continue
                runs = ok_runs((a.get("workloads") or {}).get(wl), n)
                q = [r["aggregate_qps"] for r in runs]
                p99 = [latency(r, "p99") for r in runs if latency(r, "p99") is not None]
                if not q or not p99:
                    continue
                pts.append({"arm": a["name"], "_q": q, "qps": mean(q), "qps_ci95": ci1(q), "p99_us": mean(p99),
                            "p99_ci95": ci1(p99), "repeats": len(q),
                            "reproduce": reproduce(ref["name"], a["name"], wl, n)})
            if not pts:
                continue
            for p in pts:
                p["on_front"] = not any(o is not p and o["qps"] >= p["qps"] and o["p99_us"] <= p["p99_us"] and
                                        (o["qps"] > p["qps"] or o["p99_us"] < p["p99_us"]) for o in pts)
                p["meets_target"] = target is not None and p["p99_us"] <= target
            meet = [p for p in pts if p["meets_target"]]
            best = max(meet, key=lambda p: p["qps"]) if meet else None
            rec = None
            refp = next((p for p in meet if p["arm"] == ref["name"]), None)
            kept = None
            if best and refp and best is not refp:
                # faster than the reference beyond its interval (Bonferroni over the
                # arms that meet the target: the fastest of many is picked), or keep it
                k = max(1, len(meet) - 1)
                if len(best["_q"]) < 2 or len(refp["_q"]) < 2 or \
                        bounds(welch(best["_q"], refp["_q"]), 1 - ALPHA / k)[0] <= 0:
                    kept, best = best["arm"], refp
            if best:
                rec = {"arm": best["arm"], "qps": best["qps"], "qps_ci95": best["qps_ci95"], "p99_us": best["p99_us"],
                       "p99_ci95": best["p99_ci95"], "reproduce": best["reproduce"],
                       "p99_interval_crosses_target": bool(best["p99_ci95"] and best["p99_ci95"][1] > target)}
                # the runner-up whose QPS interval overlaps: not distinguishable
                rec["indistinguishable_from"] = [p["arm"] for p in meet if p is not best and p["qps_ci95"] and
                                                 best["qps_ci95"] and p["qps_ci95"][1] >= best["qps_ci95"][0]]
                rec["kept_reference_over"] = kept
            pts = [strip(p) for p in pts]
            out.append({"workload": wl, "procs": n, "p99_target_us": target, "target": tdesc,
                        "front": sorted([p for p in pts if p["on_front"]], key=lambda p: -p["qps"]),
                        "points": pts, "recommendation": rec,
                        "none_meets": best is None})
    return out


def ci1(v):
    if len(v) < 2:
        return None
    h = t_ppf(0.975, len(v) - 1) * sd(v) / math.sqrt(len(v))
    return [mean(v) - h, mean(v) + h]


def arm_rows(arms, ref, wls, ns):
    """Per arm, workload and N: the mission ratio, the signature of each run."""
    out = []
    for a in arms:
        entry = {"name": a["name"], "hypothesis": a.get("hypothesis"), "partition": a.get("partition") or "SPX",
                 "reproduce": a.get("reproduce"), "status": a.get("status", "ok"), "workloads": {}}
        for wl in wls:
            runs = (a.get("workloads") or {}).get(wl)
            if not runs:
                continue
            q = qps_by_procs(runs)
            base = mean(qps_by_procs((ref["workloads"] or {}).get(wl) or []).get(1, []))
            solo = next(iter(ok_runs(runs, 1)), None)
            per_n = {}
            for n in sorted(q):
                row = {"qps_mean": mean(q[n]), "repeats": len(q[n]),
                       "mission_ratio": mean(q[n]) / base if base else None,
                       "p50_us": mean([x for x in (latency(r, "p50") for r in ok_runs(runs, n)) if x is not None]),
                       "p99_us": mean([x for x in (latency(r, "p99") for r in ok_runs(runs, n)) if x is not None])}
                sigs = []
                for r in ok_runs(runs, n):
                    ov = oversubscription(r, entry["partition"], a.get("procs_per_partition", {}).get(n),
                                          a.get("hw_queues"))
                    sig, ev = classify_run(r, solo, ov)
                    sigs.append({"repeat": r.get("repeat"), "signature": sig, "evidence": ev, "oversubscription": ov})
                row["runs"] = sigs
                if sigs and n > 1:
                    names = [s["signature"] for s in sigs]
                    row["signature"] = max(set(names), key=names.count)
                    row["loss_split"] = loss_split(ok_runs(runs, n)[0], solo)
                per_n[str(n)] = row
            entry["workloads"][wl] = per_n
        out.append(entry)
    return out


def no_cause(v):
    """The full answer when nothing is named: why, what each arm ruled out,
    what the run could have detected."""
    sig = [L for L in v["losses"] if L["significant"]]
    judged = [L for L in v["losses"] if L["p"] is not None]
    if not judged:
        why = "no loss could be judged (%s)" % (v["losses"][0]["why_not_judged"] if v["losses"] else
                                                "the reference ran at N=1 only")
    elif not sig:
        why = "the reference's loss is significant at no N (Holm over %d tests): there is no loss to explain" % \
            len(judged)
    else:
        why = "the reference loses throughput (%s) but no remedy arm's effect has a lower bound above 0 after " \
              "Holm's correction" % ", ".join("%s N=%d: %.3f" % (L["workload"], L["procs"], L["lost"]) for L in sig)
    per_arm = {}
    for T in v["tests"]:
        if T["role"] != "remedy" or not T["ci95"]:
            continue
        cur = per_arm.setdefault(T["arm"], {"arm": T["arm"], "hypothesis": T["hypothesis"], "at_most_share": None,
                                            "workload": None, "procs": None, "upper95": None,
                                            "at_most_effect": None, "effect_at": None})
        if cur["at_most_effect"] is None or T["ci95"][1] > cur["at_most_effect"]:
            cur["at_most_effect"], cur["effect_at"] = T["ci95"][1], "%s N=%d" % (T["workload"], T["procs"])
        if T.get("rules_out") is not None and T["loss_significant"] and \
                (cur["at_most_share"] is None or T["rules_out"] > cur["at_most_share"]):
            cur.update(at_most_share=T["rules_out"], workload=T["workload"], procs=T["procs"], upper95=T["ci95"][1])
    mdes = [d["mde"] for d in v["detectable"] if d["mde"] is not None]
    reps = [d["repeats_for_detect"] for d in v["detectable"]]
    return {"why": why,
            "smallest_detectable": [min(mdes), max(mdes)] if mdes else None,
            "detect": v["detectable"][0]["detect"] if v["detectable"] else None,
            "repeats_for_detect": None if not reps or None in reps else max(reps),
            "ruled_out": sorted(per_arm.values(), key=lambda x: (
                x["at_most_share"] if x["at_most_share"] is not None else 1e9, x["at_most_effect"])),
            "not_judged": sorted({"%s: %s" % (T["arm"], T["why_not_judged"]) for T in v["tests"]
                                  if T["why_not_judged"]})}


# --- from a run directory ----------------------------------------------------------------

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
    """The arms of a scripts/testbox.sh run: configs/<name>/config.env
    (params), arm.env (the matrix's hypothesis, partition and kfdmp options;
    a skipped arm may give skip_reason), partition.env (the mode the arm
    really ran in), status (ok | failed: why | skipped: why) and
    <workload>/results.json."""
    cdir = os.path.join(run_dir, "configs")
    names = [c["name"] for c in (doc or {}).get("configurations", [])] or \
        (sorted(os.listdir(cdir)) if os.path.isdir(cdir) else [])
    arms = []
    for name in names:
        d = os.path.join(cdir, name)
        env = read_env(os.path.join(d, "config.env"))
        env.update(read_env(os.path.join(d, "arm.env")))
        part = read_env(os.path.join(d, "partition.env"))
        status = None
        try:
            with open(os.path.join(d, "status"), encoding="utf-8") as f:
                status = f.read().strip() or "ok"
        except OSError:
            pass
        if env.get("skip_reason") and (status is None or status == "ok"):
            status = "skipped: " + env["skip_reason"]
        status = status or "not run"
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
        params = [p for p in env.get("params", "").split() if p != "-"]
        arms.append({"name": name, "hypothesis": env.get("hypothesis") or "switches",
                     "partition": part.get("compute") or (env.get("partition") or "-").replace("-", "") or "SPX",
                     "memory_partition": part.get("memory"), "partition_status": part.get("status"),
                     "params": params, "kfdmp_args": env.get("kfdmp_args", ""),
                     "reproduce": "scripts/testbox.sh --configs %s" % name, "status": status,
                     "hw_queues": hwq, "workloads": wls})
    return arms


def verdict_of(doc, run_dir, p99_target=None, p99_bound=P99_BOUND, detect=DETECT):
    arms = arms_from_run(run_dir, doc)
    by_name = {c["name"]: c for c in (doc or {}).get("configurations", [])}
    for a in arms:
        a["mp_stats"] = (by_name.get(a["name"]) or {}).get("mp_stats")
    ref = next((a["name"] for a in arms if a.get("hypothesis") == "baseline"), None) or \
        ("spx-shared" if any(a["name"] == "spx-shared" for a in arms) else
         ("stock" if any(a["name"] == "stock" for a in arms) else None))
    return verdict(arms, reference=ref, p99_target=p99_target, p99_bound=p99_bound, detect=detect)


# --- markdown ------------------------------------------------------------------------------

def and_list(x):
    x = list(x)
    return x[0] if len(x) == 1 else ", ".join(x[:-1]) + " and " + x[-1] if x else ""


def pct(x):
    return "-" if x is None else "%.0f%%" % (100 * x)


def lat(t):
    s = "p50 %sx, p99 %sx" % (fmt(t.get("p50_ratio"), "%.2f"), fmt(t.get("p99_ratio"), "%.2f"))
    return s if t.get("p99_ratio") is not None else "latency not in the results"


def headline(v):
    """One line: what the verdict names (for the runner's terminal)."""
    if not v or not v.get("available"):
        return "no verdict: %s" % ((v or {}).get("reason") or "no document")
    if not v["causes"]:
        return "no cause found: %s" % v["no_cause"]["why"]
    c = v["causes"][0]
    return "%d hypothesis(es) named as a cause; first: %s (arm %s, %s N=%d, effect %+.3f, Holm lower bound %+.3f, share of the " \
        "loss >= %s, %s)" % (len(v["causes"]), " or ".join(c["hypotheses"]) +
                             (" (confounded)" if c["confounded"] else ""), c["arm"], c["workload"], c["procs"], c["effect"],
                             c["lower_holm"], pct(c["share_lower"]), c["kind"])


def hypothesis_state(h):
    if h["supported"]:
        return "**cause**"
    if h["supported_confounded"]:
        c = h["best"]
        others = [x for x in c["hypotheses"] if x != h["hypothesis"]]
        own = own_arms_state(h) if h["ruled_out"] else "none ran alone"
        what = " (changing %s alone)" % and_list(h["single_changes"]) if h["single_changes"] else ""
        return "**cause, confounded** with %s (`%s`: see Confounds); its own arms%s: %s" % (
            " and ".join(others), c["arm"], what, own)
    if not h["tested"]:
        parts = ["`%s`: %s" % x for x in h["skipped_arms"]]
        skipped = [x[0] for x in h["skipped_arms"]]
        parts += ["`%s` ran, not judged: %s" % x for x in h.get("unjudged_arms", []) if x[0] not in skipped]
        told = skipped + [x[0] for x in h.get("unjudged_arms", [])]
        parts += ["`%s`: no run of it to compare (status: %s)" % (a, h.get("arm_status", {}).get(a, "?"))
                  for a in h["arms"] if a not in told]
        why = "; ".join(parts) if parts else \
            ("no arm of its own in this run" + (" (`%s` changes it among other things)" % "`, `".join(
                h["also_tested_by"]) if h["also_tested_by"] else ""))
        return "not tested: " + why
    if not h["ruled_out"] and h["confounded_arms"]:
        return "not shown; its arms that ran change several things at once (%s: see Confounds)" % \
            ", ".join("`%s`" % a for a in h["confounded_arms"])
    return own_arms_state(h)


def own_arms_state(h):
    """What a hypothesis's own arms ruled out, per lossy workload and N."""
    # per workload and N with a significant loss: the most any of its arms could bring back
    at = {}
    for x in h["ruled_out"]:
        k = (x["workload"], x["procs"])
        if k not in at or x["at_most_share"] > at[k]["at_most_share"]:
            at[k] = x
    if not at:
        return "not shown (no significant loss where its arms ran)"
    out = sorted(k for k in at if at[k]["ruled_out"])
    rest = [at[k] for k in sorted(at) if not at[k]["ruled_out"]]
    most = max(rest or list(at.values()), key=lambda x: x["at_most_share"])
    where = "%s (%s, %s N=%d)" % (pct(most["at_most_share"]), most["arm"], most["workload"], most["procs"])
    if not rest:
        return "ruled out at every lossy workload and N: brings back at most %s of the loss" % where
    return "not shown: ruled out (< %s of the loss) at %d of %d lossy workload/N; elsewhere at most %s, " \
        "more repeats could tell" % (pct(RULED_OUT_SHARE), len(out), len(at), where)


def markdown(v):
    L = ["## Verdict: where the lost throughput goes", ""]
    if not v.get("available"):
        return L + ["No verdict: %s." % v.get("reason"), ""]
    r = v["rule"]
    L += ["Reference arm `%s`: N processes share the whole GPU; a **mission ratio** is an arm's aggregate QPS "
          "at N / the reference's at N=1. A hypothesis is named a cause at a workload and N only where the "
          "reference's own loss there is significant and one of its arms' effects has a lower bound above 0 "
          "after correction (%s; family-wise %.0f%%; %s, >= %d repeats). A p99 above %.2fx the reference's at "
          "the same N marks a **trade-off**, not a fix." % (v["reference"], r["correction"], 100 * r["alpha"],
                                                              r["interval"], r["min_repeats"], r["p99_bound"]), ""]
    L += ["- %s" % n for n in v.get("notes", [])] + ([""] if v.get("notes") else [])
    L += ["**Verdict:** %s." % headline(v), ""]
    L += ["| hypothesis | arms | state | evidence in the reference's runs |", "| --- | --- | --- | --- |"]
    for h in v["hypotheses"]:
        L.append("| %s | %s | %s | %s |" % (h["hypothesis"], ", ".join("`%s`" % a for a in h["arms"]) or "-",
                                           hypothesis_state(h), "; ".join(h["evidence"][:3]) or "-"))
    L.append("")
    if v["causes"]:
        L += ["### Causes the data supports", "",
              "One row per hypothesis, at its best workload and N; *also* lists the others where it is named.", "",
              "| rank | hypothesis | arm | workload | N | loss | effect [Holm lower bound] | share of the loss "
              "(lower bound) | latency vs reference | fix? | also | reproduce |",
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
        for c in v["causes"]:
            hyp = " or ".join(c["hypotheses"]) + (" (confounded: see below)" if c["confounded"] else "")
            also = ", ".join("%s N=%d `%s` >= %s%s" % (x["workload"], x["procs"], x["arm"], pct(x["share_lower"]),
                                                      " (trade-off)" if x["kind"] == "trade-off" else "")
                             for x in c["also_at"]) or "-"
            L.append("| %d | %s | `%s` | %s | %d | %.3f | %+.3f [%+.3f] | %s (%s) | %s | %s | %s | `%s` |" % (
                c["rank"], hyp, c["arm"], c["workload"], c["procs"], c["lost"], c["effect"], c["lower_holm"],
                pct(c["share"]), pct(c["share_lower"]), lat(c),
                "trade-off: p99 up" if c["kind"] == "trade-off" else "fix", also, c["reproduce"]))
        L.append("")
    else:
        nc = v["no_cause"]
        L += ["### No cause found", "", "**No cause found**: %s." % nc["why"], ""]
        if nc["smallest_detectable"]:
            L += ["The smallest effect this run could have named: %+.3f to %+.3f of one process's QPS, by workload "
                  "and N (80%% power; table below); %s repeats would name an effect of %+.2f everywhere." % (
                      nc["smallest_detectable"][0], nc["smallest_detectable"][1],
                      nc["repeats_for_detect"] if nc["repeats_for_detect"] else "more than 1000", nc["detect"]), ""]
        if nc["ruled_out"]:
            L += ["What each arm ruled out (its effect's 95% upper bound, at its worst workload and N: on the "
                  "mission ratio, and as a share of a significant loss):", ""]
            for x in nc["ruled_out"]:
                line = "- `%s` (%s): brings back at most %+.3f of one process's QPS (%s)" % (
                    x["arm"], x["hypothesis"], x["at_most_effect"], x["effect_at"])
                if x["at_most_share"] is not None:
                    line += "; at most %s of the loss (%s N=%d)%s" % (
                        pct(x["at_most_share"]), x["workload"], x["procs"],
                        ": ruled out" if x["at_most_share"] < RULED_OUT_SHARE else "")
                L.append(line)
            L.append("")
        if nc["not_judged"]:
            L += ["Not judged:", ""] + ["- %s" % x for x in nc["not_judged"][:20]] + [""]
    L += ["### The reference's loss", "", "| workload | N | lost | 95% interval | significant (Holm) | note |",
          "| --- | --- | --- | --- | --- | --- |"]
    for x in v["losses"]:
        L.append("| %s | %d | %.3f | %s | %s | %s |" % (x["workload"], x["procs"], x["lost"], fmt_ci(x["ci95"]),
                                                         "yes" if x["significant"] else "no",
                                                         x["why_not_judged"] or ""))
    L.append("")
    L += ["### Every arm against the reference", "",
          "Effect on the mission ratio with its 95% interval; *named*: a cause (Holm); *<= X%*: the most of the "
          "loss it can bring back; latency: p99 against the reference at the same N.", ""]
    for wl in v["workloads"]:
        ts = [t for t in v["tests"] if t["workload"] == wl]
        ns = sorted({t["procs"] for t in ts})
        if not ts:
            continue
        L += ["**%s**" % wl, "", "| arm | hypothesis | role | " + " | ".join("N=%d" % n for n in ns) + " |",
              "| --- | --- | --- | " + " | ".join("---" for _ in ns) + " |"]
        for name in [a["name"] for a in v["arms"]]:
            row = {t["procs"]: t for t in ts if t["arm"] == name}
            if not row:
                continue
            t0 = next(iter(row.values()))
            cells = []
            for n in ns:
                t = row.get(n)
                if not t:
                    cells.append("")
                    continue
                c = "%+.3f %s" % (t["effect"], fmt_ci(t["ci95"])) if t["ci95"] else \
                    "%+.3f (%s)" % (t["effect"], t["why_not_judged"])
                if t["role"] == "remedy" and t["rejected"] and t["loss_significant"]:
                    c += " **named**"
                elif t["role"] == "remedy" and t["rules_out"] is not None and t["loss_significant"]:
                    c += " <= %s" % pct(t["rules_out"])
                if t["p99_ratio"] is not None:
                    c += "; p99 %.2fx" % t["p99_ratio"] + (" **trade-off**" if t["trade_off"] else "")
                cells.append(c)
            L.append("| %s | %s | %s | %s |" % (name, t0["hypothesis"], t0["role"], " | ".join(cells)))
        L.append("")
    if v["confounds"] or v["contrasts"]:
        L += ["### Confounds", ""]
        for c in v["confounds"]:
            seps = "; ".join("%s: %s" % (h, ", ".join("`%s` (%s)%s" % (
                s["arm"], ", ".join(s["changes"]), "" if s["ran"] else " - did not run: " + s["status"])
                for s in ss) or "no arm in this run") for h, ss in c["separating_arms"].items())
            L.append("- `%s` changes %s at once: it cannot separate %s. Arms that would: %s.%s" % (
                c["arm"], and_list(c["changes"]), " from ".join(c["cannot_separate"]), seps,
                (" No arm that ran isolates %s." % and_list(c["unseparated"])) if c["unseparated"] else ""))
            for e in c["explained_by"]:
                L.append("  - %s N=%d: its effect %+.3f %s is consistent with %s (an arm isolating it recovers the "
                         "loss on its own)" % (e["workload"], e["procs"], e["effect"], fmt_ci(e["ci95"]),
                                               and_list(e["consistent_with"])))
        if v["contrasts"]:
            L += ["", "CU split (CUs isolated, L2 shared) against partitions (CUs and L2/XCC isolated):", ""]
            for c in v["contrasts"]:
                where = "%s N=%d, " % (c["workload"], c["procs"]) if c["workload"] else ""
                L.append("- %s`%s` vs `%s`: **%s** - %s" % (where, c["partition"], c["split"] or "-", c["result"],
                                                           c["why"]))
        L.append("")
    if v["noise_floor"]:
        L += ["### Noise floor", "", "Arms equal to the reference by construction (never remedies); an interval "
              "that excludes 0 shows drift between arms of this size:", ""]
        for x in v["noise_floor"]:
            L.append("- `%s` %s N=%d: %+.3f %s%s; %s" % (x["arm"], x["workload"], x["procs"], x["effect"],
                                                        fmt_ci(x["ci95"]) if x["ci95"] else "(%s)" % x["why_not_judged"],
                                                        " **excludes 0**" if x["excludes_zero"] else "", lat(x)))
        L.append("")
    if v["taxes"]:
        L += ["### Taxes (arms that add load)", ""]
        for x in v["taxes"]:
            L.append("- `%s` %s N=%d: %+.3f %s%s; %s" % (
                x["arm"], x["workload"], x["procs"], x["effect"], fmt_ci(x["ci95"]) if x["ci95"] else
                "(%s)" % x["why_not_judged"], " **a significant tax** (Holm)" if x["significant"] else "", lat(x)))
        L.append("")
    L += ["### What this run could detect", "",
          "Noise: the standard deviation of one repeat's mission ratio (mean over the arms); smallest "
          "detectable effect: with %.0f%% power at the first Holm step (one-sided, %.0f%% / %d tests)." % (
              100 * r["power"], 100 * r["alpha"], max(1, v["detectable"][0]["family"]) if v["detectable"] else 1), "",
          "| workload | N | noise | repeats | smallest detectable effect | repeats for %s | repeats for half the loss |"
          % fmt(v["detectable"][0]["detect"] if v["detectable"] else DETECT, "%.2f"),
          "| --- | --- | --- | --- | --- | --- | --- |"]
    for d in v["detectable"]:
        L.append("| %s | %d | %s | %d | %s | %s | %s |" % (d["workload"], d["procs"], fmt(d["noise_sd"]), d["repeats"],
                                                          fmt(d["mde"]), fmt(d["repeats_for_detect"], "%d"),
                                                          fmt(d["repeats_for_loss"], "%d")))
    L.append("")
    if v["fronts"]:
        L += ["### Throughput versus p99: what to run", "",
              "Per N the arms no other arm beats on both mean QPS and mean p99 (the front), and the arm with the "
              "highest mean QPS whose mean p99 meets the target (`--p99-target`).", "",
              "| workload | N | p99 target | recommended arm | QPS [95%] | p99 us [95%] | front (QPS / p99 us) | "
              "reproduce |", "| --- | --- | --- | --- | --- | --- | --- | --- |"]
        for f in v["fronts"]:
            rec = f["recommendation"]
            front_s = ", ".join("`%s` %.1f / %.0f" % (p["arm"], p["qps"], p["p99_us"]) for p in f["front"])
            if rec:
                note = ""
                if rec["kept_reference_over"]:
                    note += " (the fastest arm that meets the target, `%s`, is not faster beyond its " \
                            "interval)" % rec["kept_reference_over"]
                elif rec["indistinguishable_from"]:
                    ind = rec["indistinguishable_from"]
                    note += " (QPS interval overlaps %s%s)" % (", ".join("`%s`" % x for x in ind[:4]),
                                                                " and %d more" % (len(ind) - 4) if len(ind) > 4 else "")
                if rec["p99_interval_crosses_target"]:
                    note += " (p99 interval crosses the target)"
                L.append("| %s | %d | %s | `%s`%s | %.1f %s | %.0f %s | %s | `%s` |" % (
                    f["workload"], f["procs"], fmt(f["p99_target_us"], "%.0f"), rec["arm"], note, rec["qps"],
                    fmt_ci(rec["qps_ci95"], "%.1f"), rec["p99_us"], fmt_ci(rec["p99_ci95"], "%.0f"), front_s,
                    rec["reproduce"]))
            else:
                L.append("| %s | %d | %s | none meets it | | | %s | |" % (f["workload"], f["procs"],
                                                                         fmt(f["p99_target_us"], "%.0f"), front_s))
        L += ["", "p99 target: %s." % "; ".join(sorted({"%s: %s" % (f["workload"], f["target"])
                                                       for f in v["fronts"]})), ""]
    L += ["### Mission ratio per arm", ""]
    for wl in v["workloads"]:
        L += ["**%s**" % wl, "", "| arm | partition | status | N=1 | N=2 | N=4 | N=8 | signature at N=2/4/8 |",
              "| --- | --- | --- | --- | --- | --- | --- | --- |"]
        for a in v["arms"]:
            per_n = a["workloads"].get(wl)
            if not per_n:
                L.append("| %s | %s | %s | | | | | |" % (a["name"], a["partition"], a["status"]))
                continue
            cells = [fmt((per_n.get(n) or {}).get("mission_ratio")) if per_n.get(n) else "" for n in ("1", "2", "4", "8")]
            sig = "/".join((per_n.get(n) or {}).get("signature", "-") for n in ("2", "4", "8"))
            L.append("| %s | %s | %s | %s | %s |" % (a["name"], a["partition"], a["status"], " | ".join(cells), sig))
        L.append("")
    return L


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run_dir")
    ap.add_argument("--json", action="store_true", help="print the verdict document")
    ap.add_argument("--p99-target", default=None,
                    help="latency target for the recommendation: Kx (K times the reference's p99 alone, "
                         "default 1.5x) or microseconds")
    ap.add_argument("--p99-bound", type=float, default=P99_BOUND,
                    help="a remedy whose p99 exceeds the reference's by more than this factor is a trade-off "
                         "(default %(default)s)")
    ap.add_argument("--detect", type=float, default=DETECT,
                    help="effect (mission ratio) to size the repeats for (default %(default)s)")
    a = ap.parse_args(argv)
    if not os.path.isdir(a.run_dir):
        print("verdict.py: %s is not a directory" % a.run_dir, file=sys.stderr)
        return 2
    try:
        parse_target(a.p99_target)
    except ValueError as e:
        print("verdict.py: %s" % e, file=sys.stderr)
        return 2
    if not a.p99_bound > 1 or not a.detect > 0:
        print("verdict.py: --p99-bound must be > 1 and --detect > 0", file=sys.stderr)
        return 2
    v = verdict_of(None, a.run_dir, p99_target=a.p99_target, p99_bound=a.p99_bound, detect=a.detect)
    print(json.dumps(v, indent=1, sort_keys=True) if a.json else "\n".join(markdown(v)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
