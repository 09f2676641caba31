#!/usr/bin/env python3
"""scripts/report/verdict.py on synthetic runs (an oversubscribed, an
L2-contention and a time-sliced one each get their verdict), on the H200's
real time-sliced and MPS runs (issue 17 run 1), and the ranking with its
confidence intervals. Python 3.6, standard library."""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "scripts", "report"))
import verdict as V  # noqa: E402

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


def arm(name, hyp, qps, partition="SPX", reps=3, per_n=None):
    """qps: {N: value}; repeats with +-1% noise."""
    runs = []
    for rep in range(reps):
        for n, q in sorted(qps.items()):
            runs.append(run(n, q * (1 + 0.01 * (rep - 1)), repeat=rep, ratio=q / qps[1], **(per_n or {}).get(n, {})))
    return {"name": name, "hypothesis": hyp, "partition": partition, "reproduce": "scripts/testbox.sh --configs " + name,
            "status": "ok", "workloads": {"saturate": runs}}


class Ranking(unittest.TestCase):
    def test_partition_remedy_ranks_first_with_an_interval(self):
        cont = {n: {"infl": 1.5, "conc": 1.8, "notres": 0.2} for n in (2, 4, 8)}
        arms = [
            arm("spx-shared", "baseline", {1: 115.5, 2: 85.0, 4: 58.5, 8: 91.1}, per_n=cont),
            arm("cpx", "xcc_l2_sharing", {1: 30, 2: 60, 4: 110, 8: 112}, partition="CPX"),
            arm("hwq1", "hws_oversubscription", {1: 115, 2: 86, 4: 60, 8: 95}),
            arm("graph", "submit_path", {1: 116, 2: 85, 4: 58, 8: 91}, reps=2),
            {"name": "dequeue-wait", "hypothesis": "preemption", "status": "skipped: the loaded amdgpu has no "
             "parameter kfd_dequeue_wait", "workloads": {}},
        ]
        arms[0]["mp_stats"] = {"preemptions": 900, "preempt_wait_us_mean": 195.2, "preempt_wait_us_p99_bound": 1024,
                               "preempt_wait_us_max": 1384}
        v = V.verdict(arms, reference="spx-shared")
        self.assertTrue(v["available"])
        top = v["hypotheses"][0]
        self.assertEqual(top["hypothesis"], "xcc_l2_sharing")
        self.assertEqual(top["best_arm"], "cpx")
        self.assertTrue(any("contention" in e for e in top["evidence"]))
        e4 = [e for e in top["effects"] if e["procs"] == 4][0]
        lo, hi = e4["ci95"]
        self.assertLess(lo, e4["effect"])
        self.assertGreater(lo, 0.3)  # (110 - 58.5) / 115.5 = 0.446
        self.assertAlmostEqual(e4["effect"], (110 - 58.5) / 115.5, places=2)
        self.assertAlmostEqual(e4["explains"], 51.5 / 57, places=2)  # of the 57 QPS lost at N=4
        graph = [h for h in v["hypotheses"] if h["hypothesis"] == "submit_path"][0]
        self.assertIn("3 repeats", graph["effects"][0]["why_no_ci"])
        pre = [h for h in v["hypotheses"] if h["hypothesis"] == "preemption"][0]
        self.assertIsNone(pre["best_arm"])
        self.assertIn("no parameter", pre["skipped_arms"][0][1])
        self.assertEqual(pre["evidence"], ["900 unmaps, wait mean 195 us, p99 <= 1024 us, max 1384 us (mp_stats)"])
        self.assertEqual(v["hypotheses"][-1]["rank"], len(v["hypotheses"]))
        cpx = [a for a in v["arms"] if a["name"] == "cpx"][0]
        self.assertAlmostEqual(cpx["workloads"]["saturate"]["1"]["mission_ratio"], 30 / 115.5, places=2)
        md = "\n".join(V.markdown(v))
        self.assertIn("| 1 | xcc_l2_sharing |", md)
        self.assertIn("scripts/testbox.sh --configs cpx", md)

    def test_nothing_ran(self):
        v = V.verdict([{"name": "stock", "workloads": {}}])
        self.assertFalse(v["available"])
        self.assertIn("No verdict", "\n".join(V.markdown(v)))


if __name__ == "__main__":
    unittest.main()
