#!/usr/bin/env python3
"""scripts/report/verdict.py: the run signatures on synthetic runs and on the
H200's real time-sliced and MPS runs (issue 17 run 1); the decision rule
(issue 25) on run directories that tests/testbox/verdict_model.py writes from
a stated model: pure noise over many seeds, a loss no arm fixes, idle-queue
oversubscription, CU sharing, a confounded partition effect, a trade-off, a
missing arm, too few repeats; the t quantile and Holm's procedure; the
recorded sample and the command line. Python 3.6, standard library."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "scripts", "report"))
import verdict as V  # noqa: E402
sys.path.insert(0, HERE)
import verdict_model as M  # noqa: E402

H200 = os.path.join(ROOT, "tests", "harness", "results", "h200", "issue17", "run1")


def run(procs, qps, repeat=0, infl=1.0, conc=1.0, notres=0.05, s2s=10.0, kfd=None, ratio=None, query_us=None):
    per = []
    if query_us:
        per = [{"query_us": query_us[0], "resident_us": query_us[1], "submit_to_start_us": query_us[2],
                "in_query_gap_us": query_us[3], "end_to_host_us": query_us[4]}] * procs
    return {"procs": procs, "repeat": repeat, "status": "ok", "aggregate_qps": qps, "scaling_ratio": ratio,
            "gpu": {"available": True, "kernel_inflation": infl, "concurrency": conc,
                    "not_resident_fraction": notres, "submit_to_start_us": s2s, "per_process": per},
            "kfd": kfd or {}}


class Oversubscription(unittest.TestCase):
    def test_driver_and_counts(self):
        kfd = {"queues": [{"pid": i, "total": 5, "by_type": {"compute": 5}} for i in range(8)],
               "oversubscribed_lines": ["amdgpu 0000:0c:00.0: Runlist is getting oversubscribed."],
               "mp_stats_delta": {"node 0 gpu_id 1/oversub_runlists": 31, "node 0 gpu_id 1/oversub_queues": 31,
                                  "node 0 gpu_id 1/oversub_processes": 0}}
        o = V.oversubscription(run(8, 90, kfd=kfd))
        self.assertTrue(o["oversubscribed"])
        self.assertTrue(o["predicted"])
        self.assertEqual(o["queues_per_partition"], 40)
        self.assertTrue(any("40 > 24" in r for r in o["reasons"]))
        self.assertTrue(any("reasons: queues" in r for r in o["reasons"]))

    def test_counts_without_the_driver(self):
        # N=4 at the HIP default: 20 queues, fits; N=8: 40, does not.
        self.assertFalse(V.oversubscription(run(4, 1))["oversubscribed"])
        o = V.oversubscription(run(8, 1))
        self.assertTrue(o["oversubscribed"])
        self.assertIsNone(o["driver"])
        self.assertIn("HIP default", o["reasons"][0])
        # GPU_MAX_HW_QUEUES=1: 2 queues x 8 = 16 fit.
        self.assertFalse(V.oversubscription(run(8, 1), hw_queues="1")["oversubscribed"])
        # CPX: two processes per partition at N=8 fit in 24 HQDs and 6 VMIDs.
        o = V.oversubscription(run(8, 1), partition="CPX")
        self.assertEqual(o["processes_per_partition"], 2)
        self.assertFalse(o["oversubscribed"])
        # 14 processes on SPX with one queue each: more than 13 VMIDs.
        o = V.oversubscription(run(14, 1), hw_queues="0")
        self.assertTrue(any("VMIDs" in r for r in o["reasons"]))

    def test_queues_unreadable_without_kfd(self):
        """kfdmp on a machine without KFD writes kfd.queues as one null per
        process (the queues file could not be read): the counts fall back to
        the expectation, never a crash."""
        kfd = {"queues": [None, None], "oversubscribed_lines": [], "mp_stats_delta": None}
        o = V.oversubscription(run(8, 1, kfd=kfd))
        self.assertIn("HIP default", o["reasons"][0])
        kfd = {"queues": [None, {"pid": 2, "total": 3, "by_type": None}]}
        self.assertEqual(V.oversubscription(run(8, 1, kfd=kfd))["queues_per_partition"], 24)

    def test_the_driver_overrides_the_prediction(self):
        kfd = {"mp_stats_delta": {"n/oversub_runlists": 0}}
        o = V.oversubscription(run(8, 1, kfd=kfd))
        self.assertTrue(o["predicted"])
        self.assertFalse(o["oversubscribed"])


class Signatures(unittest.TestCase):
    solo = run(1, 100, notres=0.04, s2s=10)

    def test_oversubscribed_run(self):
        kfd = {"oversubscribed_lines": ["Runlist is getting oversubscribed"]}
        r = run(8, 60, notres=0.8, kfd=kfd, ratio=0.6)
        sig, _ = V.classify_run(r, self.solo, V.oversubscription(r))
        self.assertEqual(sig, "oversubscribed")

    def test_l2_contention_run(self):
        r = run(4, 60, infl=1.6, conc=2.4, notres=0.2, ratio=0.6)
        sig, ev = V.classify_run(r, self.solo, V.oversubscription(r))
        self.assertEqual(sig, "contention")
        self.assertLess(ev["turn_taking"], 0.5)

    def test_time_sliced_run(self):
        r = run(4, 80, infl=1.0, conc=1.0, notres=0.76, s2s=2400, ratio=0.8)
        sig, ev = V.classify_run(r, self.solo, V.oversubscription(r))
        self.assertEqual(sig, "time-sliced")
        self.assertGreater(ev["turn_taking"], 0.9)

    def test_submit_path_and_no_loss(self):
        r = run(2, 150, infl=1.02, conc=1.5, notres=0.3, s2s=40, ratio=0.75)
        self.assertEqual(V.classify_run(r, self.solo)[0], "submit-path")
        self.assertEqual(V.classify_run(run(2, 200, ratio=1.0), self.solo)[0], "no-loss")

    def test_loss_split(self):
        s = V.loss_split(run(4, 1, query_us=(200, 120, 40, 30, 10)), run(1, 1, query_us=(100, 80, 10, 5, 5)))
        self.assertAlmostEqual(s["added_us"], 100)
        self.assertAlmostEqual(s["slower_kernels"], 0.4)
        self.assertAlmostEqual(s["waiting_not_resident"], 0.55)
        self.assertAlmostEqual(s["host_side"], 0.05)


@unittest.skipUnless(os.path.isdir(H200), "no H200 results")
class RealH200Runs(unittest.TestCase):
    """The H200 (CUDA 13, driver 580): default time slicing and MPS."""

    def arm(self, mode, wl):
        import json
        with open(os.path.join(H200, mode, wl, "results.json")) as f:
            return json.load(f)["runs"]

    def test_time_slicing_is_recognised(self):
        runs = self.arm("timesliced", "saturate")
        solo = [r for r in runs if r["procs"] == 1][0]
        for r in runs:
            if r["procs"] in (2, 4):  # 8: 40 HIP-default queues would count as oversubscribed on AMD
                self.assertEqual(V.classify_run(r, solo)[0], "time-sliced", r["procs"])

    def test_mps_is_contention_not_time_slicing(self):
        runs = self.arm("mps", "saturate")
        solo = [r for r in runs if r["procs"] == 1][0]
        for r in runs:
            if r["procs"] in (2, 4):
                # QPS rose (ratio 1.09) but the kernels ran 1.3x slower side by side
                self.assertEqual(V.classify_run(r, solo)[0], "contention", r["procs"])
        # The latency workload under MPS scales: no loss.
        lat = self.arm("mps", "latency")
        solo = [r for r in lat if r["procs"] == 1][0]
        self.assertEqual(V.classify_run([r for r in lat if r["procs"] == 2][0], solo)[0], "no-loss")


class Statistics(unittest.TestCase):
    def test_t_quantiles(self):
        # printed tables of Student's t
        for p, df, t in ((0.975, 1, 12.706), (0.975, 2, 4.303), (0.975, 4, 2.776), (0.975, 10, 2.228),
                         (0.995, 3, 5.841), (0.95, 30, 1.697), (0.999, 5, 5.893), (0.975, 1e6, 1.960)):
            self.assertAlmostEqual(V.t_ppf(p, df), t, places=3, msg="t(%s, %s)" % (p, df))
        self.assertAlmostEqual(V.t_ppf(0.025, 4), -2.776, places=3)
        self.assertAlmostEqual(V.t_sf(2.776445, 4), 0.025, places=6)
        # a fractional Welch-Satterthwaite df lies between its neighbours
        self.assertTrue(V.t_ppf(0.975, 4) > V.t_ppf(0.975, 4.5) > V.t_ppf(0.975, 5))
        with self.assertRaises(ValueError):
            V.t_ppf(1.0, 3)

    def test_welch(self):
        w = V.welch([1.0, 2.0, 3.0], [1.0, 1.0, 1.3, 0.7])
        self.assertAlmostEqual(w["d"], 1.0)
        self.assertAlmostEqual(w["se"], (1.0 / 3 + 0.06 / 4) ** 0.5)
        va, vb = 1.0 / 3, 0.06 / 4
        self.assertAlmostEqual(w["df"], (va + vb) ** 2 / (va ** 2 / 2 + vb ** 2 / 3))

    def test_holm(self):
        # m = 4: 0.01 <= 0.0125 rejected, 0.02 > 0.0167 stops; 0.03 <= 0.05 is NOT rejected after the stop
        ts = V.holm([{"p": 0.03}, {"p": 0.01}, {"p": 0.02}, {"p": 0.5}])
        self.assertEqual([t["rejected"] for t in ts], [False, True, False, False])
        self.assertAlmostEqual(ts[1]["holm_level"], 0.0125)
        self.assertAlmostEqual(ts[0]["holm_level"], 0.05 / 3)  # the level where it stopped
        self.assertAlmostEqual(ts[2]["holm_p"], 0.06)

    def test_detectable_effect_and_repeats(self):
        # the smallest effect shrinks with the repeats, and repeats_needed is its inverse
        a, b = V.mde(0.03, 3, 60), V.mde(0.03, 10, 60)
        self.assertGreater(a, b)
        n = V.repeats_needed(0.03, b, 60)
        self.assertLessEqual(n, 10)
        self.assertGreater(V.mde(0.03, n - 1, 60), b)


class Model(object):
    """Writes scenario runs into a scratch directory and reads their verdict."""
    tmp = None

    @classmethod
    def setUpClass(cls):
        shm = "/dev/shm"  # many small files: memory where there is some
        cls.tmp = tempfile.mkdtemp(prefix="verdict-model-", dir=shm if os.access(shm, os.W_OK) else None)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def verdict(self, scenario, seed=1, quick=False, **kw):
        d = M.write_run(M.SCENARIOS[scenario], os.path.join(self.tmp, scenario), seed)
        v = V.verdict_of(None, d, **kw)
        if not quick:
            json.dumps(v, allow_nan=False)  # testbox.json takes it as it is
            self.md = "\n".join(V.markdown(v))
        return v


class NullAndNoFix(Model, unittest.TestCase):
    def test_pure_noise_names_nothing(self):
        """Every arm the same distribution (3% mean loss, 4% noise): a cause
        named in at most 5% of the seeds; the noise floor arm never."""
        seeds = 40
        named = [s for s in range(seeds) if self.verdict("null", s, quick=True)["causes"]]
        self.assertLessEqual(len(named), seeds // 20, "causes named on pure noise in seeds %s" % named)

    def test_null_is_a_full_answer(self):
        v = self.verdict("null", 3)
        self.assertEqual(v["causes"], [])
        nc = v["no_cause"]
        self.assertTrue(nc["why"])
        self.assertIn("No cause found", self.md)
        lo, hi = nc["smallest_detectable"]
        self.assertTrue(0 < lo <= hi)
        self.assertGreater(nc["repeats_for_detect"], 3)  # 4% noise: 3 repeats cannot name 0.10
        self.assertIn("repeats would name an effect of +0.10", self.md)
        self.assertIn("brings back at most", self.md)
        d = v["detectable"][0]
        self.assertGreater(d["mde"], 0)
        self.assertGreaterEqual(d["repeats_for_detect"], V.MIN_REPEATS)
        self.assertIn("What this run could detect", self.md)
        # what to run: nothing beats the reference beyond its interval, so keep it
        self.assertEqual({f["recommendation"]["arm"] for f in v["fronts"]}, {"stock"})

    def test_a_loss_no_arm_fixes(self):
        for seed in range(5):
            v = self.verdict("no_fix", seed)
            self.assertTrue(all(L["significant"] for L in v["losses"]), seed)  # the 30% loss is real
            self.assertEqual(v["causes"], [], seed)
            nc = v["no_cause"]
            self.assertIn("no remedy arm", nc["why"])
            # every remedy arm that ran at a lossy N is listed with the most it can bring back
            arms = {x["arm"] for x in nc["ruled_out"]}
            self.assertTrue({"hwq1", "hwq2", "spx-xcc-split", "graph", "all"} <= arms, arms)
            self.assertNotIn("hwq4", arms)
            for x in nc["ruled_out"]:
                self.assertLess(x["at_most_share"], 0.5, x)
            self.assertTrue([x for x in nc["ruled_out"] if x["at_most_share"] < V.RULED_OUT_SHARE])
        self.assertIn("ruled out", self.md)


class Causes(Model, unittest.TestCase):
    def test_idle_queue_oversubscription(self):
        """5 queues per process, 24 HQDs: the loss is at N=8 only; hwq1/hwq2 and
        CPX fix it. The queue budget ranks first; CPX's effect is attributed
        to it, not to L2; hwq4 (HIP's default) is the noise floor."""
        explained = 0
        for seed in range(8):
            v = self.verdict("idle_queue", seed)
            c = v["causes"]
            self.assertTrue(c, seed)
            self.assertEqual(c[0]["hypothesis"], "hws_oversubscription", (seed, c[0]))
            self.assertIn(c[0]["arm"], ("hwq1", "hwq2"))
            self.assertEqual(c[0]["procs"], 8)
            self.assertGreater(c[0]["lower_holm"], 0)
            self.assertEqual(len(c), 1, (seed, c))  # one entry per hypothesis
            self.assertTrue(all(x["procs"] == 8 for x in c[0]["also_at"]), seed)
            self.assertFalse([x for x in c if "xcc_l2_sharing" in x["hypotheses"]], (seed, c))
            self.assertNotIn("hwq4", [x["arm"] for x in c])
            cpx = [e for k in v["confounds"] if k["arm"] == "cpx" for e in k["explained_by"]]
            self.assertTrue(all(e["consistent_with"] == ["hws_oversubscription"] for e in cpx), seed)
            explained += bool(cpx)
            self.assertEqual({x["arm"] for x in v["noise_floor"]}, {"hwq4"})
            self.assertTrue(all("p99_ratio" in x and x["p99_ratio"] is not None for x in c))
        self.assertGreaterEqual(explained, 4)  # where CPX is named at N=8 too, it is the queue budget's
        # what to run at N=8: fewer queues or CPX, faster than stock beyond the interval, p99 within 1.5x
        for f in v["fronts"]:
            if f["procs"] == 8:
                self.assertIn(f["recommendation"]["arm"], ("hwq1", "hwq2", "cpx"), f)
                self.assertIsNone(f["recommendation"]["kept_reference_over"])
        self.assertIn("| 1 | hws_oversubscription |", self.md)

    def test_cu_only(self):
        for seed in range(6):
            v = self.verdict("cu_only", seed)
            c = v["causes"]
            self.assertTrue(c, seed)
            self.assertEqual((c[0]["hypothesis"], c[0]["arm"]), ("xcc_l2_sharing", "spx-xcc-split"), seed)
            self.assertFalse(c[0]["confounded"])
            self.assertFalse([x for x in c if x["hypothesis"] == "hws_oversubscription"], seed)
            res = [x["result"] for x in v["contrasts"]]
            self.assertIn("CUs, not L2", res, (seed, v["contrasts"]))
            self.assertNotIn("L2/XCC, not CUs", res)

    def test_confounded_cpx_only(self):
        """L2/XCC sharing at N=4/8 that only CPX (one process per partition at
        N=4) removes: the cause is named as confounded, with the arms that
        would separate it, and the contrast says L2/XCC, not CUs."""
        for seed in range(6):
            v = self.verdict("confounded", seed)
            c = v["causes"]
            self.assertTrue(c, seed)
            self.assertTrue(all(x["confounded"] and x["arm"] == "cpx" for x in c), (seed, c))
            self.assertEqual(c[0]["hypotheses"], ["xcc_l2_sharing", "hws_oversubscription"])
            self.assertEqual(c[0]["hypothesis"], "xcc_l2_sharing|hws_oversubscription")
            note = [k for k in v["confounds"] if k["arm"] == "cpx"][0]
            self.assertEqual(note["cannot_separate"], ["xcc_l2_sharing", "hws_oversubscription"])
            self.assertIn("spx-xcc-split", [s["arm"] for s in note["separating_arms"]["xcc_l2_sharing"]])
            self.assertIn("hwq1", [s["arm"] for s in note["separating_arms"]["hws_oversubscription"]])
            res = [x["result"] for x in v["contrasts"] if x["partition"] == "cpx" and x["procs"] == 4]
            self.assertIn("L2/XCC, not CUs", res, (seed, v["contrasts"]))
            self.assertNotIn("CUs, not L2", [x["result"] for x in v["contrasts"]])
        self.assertIn("it cannot separate xcc_l2_sharing from hws_oversubscription", self.md)
        self.assertIn("**L2/XCC, not CUs**", self.md)

    def test_trade_off(self):
        """Graph replay brings the throughput back and makes p99's tail 4x: a
        trade-off, not a fix, and not what the p99 target recommends."""
        v = self.verdict("trade_off", 2)
        c = v["causes"]
        self.assertTrue(c)
        self.assertEqual(c[0]["hypothesis"], "submit_path")
        self.assertTrue(all(x["kind"] == "trade-off" for x in c + c[0]["also_at"] if x["arm"] == "graph"), c)
        self.assertGreater(c[0]["p99_ratio"], 2.0)
        for f in v["fronts"]:
            rec = f["recommendation"]
            self.assertTrue(rec is None or rec["arm"] != "graph", f)
        self.assertIn("trade-off: p99 up", self.md)
        # without a latency target worth the name, graph has the highest throughput
        v = self.verdict("trade_off", 2, p99_target="1e12")
        self.assertEqual({f["recommendation"]["arm"] for f in v["fronts"]}, {"graph"})
        self.assertIn("scripts/testbox.sh --configs stock,graph --workloads ", v["fronts"][0]["recommendation"]["reproduce"])
        # a target nobody meets
        v = self.verdict("trade_off", 2, p99_target="1")
        self.assertTrue(all(f["none_meets"] for f in v["fronts"]))
        self.assertIn("none meets it", self.md)


class Degraded(Model, unittest.TestCase):
    def test_missing_and_skipped_arm(self):
        """idle_queue without hwq1 and with hwq2 skipped: the queue hypothesis
        is untested, CPX's effect stays confounded and says which arm would
        separate it."""
        v = self.verdict("missing_arm", 1)
        h = [x for x in v["hypotheses"] if x["hypothesis"] == "hws_oversubscription"][0]
        self.assertFalse(h["tested"])
        self.assertFalse(h["supported"])
        self.assertEqual(h["skipped_arms"][0][0], "hwq2")
        self.assertIn("no parameter kfd_example", h["skipped_arms"][0][1])
        c = v["causes"]
        self.assertTrue(c and all(x["confounded"] for x in c), c)
        note = [k for k in v["confounds"] if k["arm"] == "cpx"][0]
        self.assertEqual([(s["arm"], s["ran"]) for s in note["separating_arms"]["hws_oversubscription"]],
                         [("hwq2", False)])
        self.assertIn("`hwq2` (queues per process) - did not run: skipped:", self.md)

    def test_phase_one_run_without_partitions(self):
        """A phase-1 run (issue 24) skips the partition arms: the CU split
        still names CU sharing; the contrast cannot tell and says why."""
        v = self.verdict("phase1", 1)
        self.assertEqual((v["causes"][0]["hypothesis"], v["causes"][0]["arm"]), ("xcc_l2_sharing", "spx-xcc-split"))
        self.assertFalse(v["causes"][0]["confounded"])
        self.assertEqual({c["result"] for c in v["contrasts"]}, {"cannot tell"})
        self.assertTrue(all("did not run (skipped: phase 2" in c["why"] for c in v["contrasts"]))
        h = [x for x in v["hypotheses"] if x["hypothesis"] == "xcc_l2_sharing"][0]
        self.assertEqual(sorted(a for a, _ in h["skipped_arms"]), ["cpx", "dpx"])

    def test_arm_the_workloads_answered_unsupported(self):
        """scripts/testbox.sh skips an arm whose every workload answered
        unsupported ("skipped: <workload>: <reason>") yet leaves each
        workload's results.json: the hypothesis shows that reason, not "no
        arm of its own"."""
        d = M.write_run(M.SCENARIOS["idle_queue"], os.path.join(self.tmp, "unsupported"), 1)
        why = "exec workers have no graph replay (the protocol has no option for it)"
        status = "skipped: latency: %s; saturate: %s" % (why, why)
        with open(os.path.join(d, "configs", "graph", "status"), "w", encoding="utf-8") as f:
            f.write(status + "\n")
        for wl in M.WORKLOADS:
            with open(os.path.join(d, "configs", "graph", wl, "results.json"), "w", encoding="utf-8") as f:
                json.dump({"tool": "kfdmp", "schema_version": 2, "runs": [
                    {"procs": n, "repeat": 0, "status": "unavailable", "reason": why, "skipped": why,
                     "aggregate_qps": None} for n in (1, 2, 4, 8)]}, f)
        v = V.verdict_of(None, d)
        h = [x for x in v["hypotheses"] if x["hypothesis"] == "submit_path"][0]
        self.assertFalse(h["tested"])
        self.assertEqual(h["skipped_arms"], [("graph", status)])
        md = "\n".join(V.markdown(v))
        row = [x for x in md.splitlines() if x.startswith("| submit_path |")][0]
        self.assertIn("not tested: `graph`: " + status, row)
        self.assertNotIn("no arm of its own", row)

    def test_real_exec_run_without_kfd(self):
        """A real kfdmp --exec results.json from a machine without GPU or KFD
        (kfd.queues: [null, ...]; tests/testbox/fixtures/exec-no-kfd-results.json,
        1 repeat at N=1,2): the verdict reads it, says why nothing could be
        judged and says that an arm ran but was not judged."""
        d = os.path.join(self.tmp, "no-kfd")
        shutil.rmtree(d, ignore_errors=True)
        for arm, hyp in (("stock", "baseline"), ("hwq1", "hws_oversubscription")):
            cdir = os.path.join(d, "configs", arm)
            os.makedirs(os.path.join(cdir, "exec"))
            shutil.copy(os.path.join(HERE, "fixtures", "exec-no-kfd-results.json"),
                        os.path.join(cdir, "exec", "results.json"))
            M.write(os.path.join(cdir, "arm.env"), "hypothesis=%s\n" % hyp)
            M.write(os.path.join(cdir, "status"), "ok\n")
        with open(os.path.join(d, "configs", "stock", "exec", "results.json"), encoding="utf-8") as f:
            self.assertEqual(json.load(f)["runs"][1]["kfd"]["queues"], [None, None])
        v = V.verdict_of(None, d)
        json.dumps(v, allow_nan=False)
        self.assertTrue(v["available"])
        self.assertEqual(v["causes"], [])
        self.assertIn("needs >= 3 repeats", v["no_cause"]["why"])
        md = "\n".join(V.markdown(v))
        self.assertIn("not tested: `hwq1` ran, not judged: needs >= 3 repeats of both (have 1 and 1)", md)

    def test_fewer_than_three_repeats(self):
        v = self.verdict("few_repeats", 1)
        self.assertEqual(v["causes"], [])
        self.assertTrue(all(L["why_not_judged"] and "needs >= 3 repeats" in L["why_not_judged"] for L in v["losses"]))
        self.assertIn("no loss could be judged", v["no_cause"]["why"])
        self.assertTrue(v["no_cause"]["not_judged"])
        self.assertIn("No cause found", self.md)

    def test_new_and_unknown_hypotheses(self):
        """issue 24's arms: host_threads and cpu_placement are remedies,
        idle_queues a tax (the extra queues cost at N=4), noise_floor the noise
        floor; an unknown hypothesis is judged as a remedy, not an error."""
        v = self.verdict("new_arms", 1)
        roles = {t["arm"]: t["role"] for t in v["tests"]}
        self.assertEqual((roles["threads1"], roles["numa-pin"], roles["idle-q4"], roles["hwq4-floor"],
                          roles["mystery"], roles["hwq4"]), ("remedy", "remedy", "tax", "noise", "remedy", "noise"))
        tax = {(x["workload"], x["procs"]): x for x in v["taxes"]}
        self.assertTrue(tax[("latency", 4)]["significant"])
        self.assertLess(tax[("latency", 4)]["effect"], -0.2)
        self.assertEqual(v["causes"][0]["hypothesis"], "hws_oversubscription")
        self.assertNotIn("idle-q4", [c["arm"] for c in v["causes"]])
        self.assertIn("mystery_hypothesis", [h["hypothesis"] for h in v["hypotheses"]])

    def test_nothing_ran(self):
        v = V.verdict([{"name": "stock", "workloads": {}}])
        self.assertFalse(v["available"])
        self.assertEqual(v["causes"], [])
        self.assertIn("No verdict", "\n".join(V.markdown(v)))


class RecordedRuns(unittest.TestCase):
    def test_the_recorded_sample(self):
        """tests/testbox/sample, today's on-disk format: readable, the new
        sections are there and JSON has a causes list."""
        v = V.verdict_of(None, os.path.join(HERE, "sample"))
        json.dumps(v, allow_nan=False)
        self.assertTrue(v["available"])
        self.assertIsInstance(v["causes"], list)
        md = "\n".join(V.markdown(v))
        for s in ("### The reference's loss", "### Every arm against the reference", "### What this run could detect",
                  "### Throughput versus p99: what to run", "### Noise floor", "CU split"):
            self.assertIn(s, md)
        self.assertIn("hwq4", [x["arm"] for x in v["noise_floor"]])

    def test_the_report_of_the_sample(self):
        """What make testbox-dry-run shows: testbox_report.py on the sample
        prints the verdict's headline; summary.md and testbox.json carry it."""
        tmp = tempfile.mkdtemp(prefix="verdict-report-")
        try:
            p = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "report", "testbox_report.py"),
                                os.path.join(HERE, "sample"), "--out", tmp, "--no-plots", "--check"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            self.assertRegex(p.stdout, r"testbox_report: verdict: (\d+ hypothesis\(es\) named as a cause; first: |no cause found: )")
            with open(os.path.join(tmp, "testbox.json"), encoding="utf-8") as f:
                doc = json.load(f)
            self.assertIsInstance(doc["verdict"]["causes"], list)
            with open(os.path.join(tmp, "summary.md"), encoding="utf-8") as f:
                md = f.read()
            self.assertIn("**Verdict:** ", md)
            self.assertIn("### Throughput versus p99: what to run", md)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def test_today_format_hwq4_is_the_noise_floor(self):
        """A run recorded before noise_floor existed: hwq4 says hypothesis
        hws_oversubscription, yet it is HIP's default and never a remedy."""
        arms = [{"name": "stock", "hypothesis": "baseline", "workloads": {}},
                {"name": "hwq4", "hypothesis": "hws_oversubscription", "hw_queues": "4", "params": []},
                {"name": "hwq1", "hypothesis": "hws_oversubscription", "hw_queues": "1", "params": []}]
        self.assertEqual([V.arm_role(a, "stock") for a in arms], ["reference", "noise", "remedy"])

    def run_cli(self, *args):
        return subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "report", "verdict.py")] + list(args),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)

    def test_command_line(self):
        tmp = tempfile.mkdtemp(prefix="verdict-cli-")
        try:
            d = M.write_run(M.SCENARIOS["idle_queue"], os.path.join(tmp, "run"), 1)
            p = self.run_cli(d, "--json")
            self.assertEqual(p.returncode, 0, p.stderr)
            doc = json.loads(p.stdout)
            self.assertEqual(doc["causes"][0]["hypothesis"], "hws_oversubscription")
            for k in ("hypothesis", "arm", "procs", "workload", "ci95", "lower_holm", "share", "share_lower"):
                self.assertIn(k, doc["causes"][0])
            d0 = M.write_run(M.SCENARIOS["null"], os.path.join(tmp, "null"), 3)
            self.assertEqual(json.loads(self.run_cli(d0, "--json").stdout)["causes"], [])
            p = self.run_cli(d, "--p99-target", "fast")
            self.assertEqual(p.returncode, 2)
            self.assertIn("--p99-target 'fast'", p.stderr)
            p = self.run_cli(os.path.join(tmp, "nosuch"))
            self.assertEqual(p.returncode, 2)
            p = self.run_cli(d, "--p99-target", "2x")
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("2x the reference's p99 at the same N", p.stdout)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
