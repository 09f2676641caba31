#!/usr/bin/env python3
"""Unit tests of the test-box report generator and parameter checker
(scripts/report/). Python 3 standard library only; no GPU.

    python3 tests/testbox/test_testbox.py [-v]
"""
import copy
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

import kfdmp_params  # noqa: E402
import testbox_report as tr  # noqa: E402

SAMPLE = os.path.join(HERE, "sample")
FIXTURES = os.path.join(HERE, "fixtures")
MATRIX = os.path.join(HERE, "matrix.conf")

MP_BEFORE = """# kfd mp_stats v1: write 0 to reset
node 0 gpu_id 53241:
  since_reset_ms: 10
  runlists: 5
  unmaps: 4
  oversub_runlists: 0
  peak_processes: 2
  preempt_us_count: 4
  preempt_us_total: 400
  preempt_us_max: 150
  preempt_us_log2_hist: 0 0 0 0 0 0 0 2 2 0
node 1 gpu_id 8192:
  runlists: 0
"""
MP_AFTER = """# kfd mp_stats v1: write 0 to reset
node 0 gpu_id 53241:
  since_reset_ms: 5010
  runlists: 25
  unmaps: 14
  oversub_runlists: 3
  peak_processes: 8
  preempt_us_count: 14
  preempt_us_total: 2400
  preempt_us_max: 900
  preempt_us_log2_hist: 0 0 0 0 0 0 0 4 6 4
  hws_state: oversubscribed
node 1 gpu_id 8192:
  runlists: 2
"""


class MpStats(unittest.TestCase):
    def test_parse_sections_numbers_lists_text(self):
        s = tr.parse_mp_stats(MP_AFTER)
        self.assertEqual(set(s), {"node 0 gpu_id 53241", "node 1 gpu_id 8192"})
        n0 = s["node 0 gpu_id 53241"]
        self.assertEqual(n0["runlists"], 25)
        self.assertEqual(n0["preempt_us_log2_hist"], [0, 0, 0, 0, 0, 0, 0, 4, 6, 4])
        self.assertEqual(n0["hws_state"], "oversubscribed")

    def test_absent(self):
        self.assertIsNone(tr.parse_mp_stats(None))
        self.assertIsNone(tr.parse_mp_stats("absent\n"))

    def test_delta_counts_levels_lists(self):
        d = tr.mp_delta(tr.parse_mp_stats(MP_BEFORE), tr.parse_mp_stats(MP_AFTER))
        n0 = d["node 0 gpu_id 53241"]
        self.assertEqual(n0["runlists"], 20)
        self.assertEqual(n0["unmaps"], 10)
        self.assertEqual(n0["preempt_us_total"], 2000)
        self.assertEqual(n0["preempt_us_max"], 900)        # a level: the after value
        self.assertEqual(n0["peak_processes"], 8)
        self.assertEqual(n0["since_reset_ms"], 5010)
        self.assertEqual(n0["preempt_us_log2_hist"], [0, 0, 0, 0, 0, 0, 0, 2, 4, 4])
        self.assertEqual(d["node 1 gpu_id 8192"]["runlists"], 2)

    def test_delta_without_before_counts_from_zero(self):
        d = tr.mp_delta(None, tr.parse_mp_stats(MP_AFTER))
        self.assertEqual(d["node 0 gpu_id 53241"]["runlists"], 25)

    def test_summary(self):
        s = tr.mp_summary(tr.mp_delta(tr.parse_mp_stats(MP_BEFORE), tr.parse_mp_stats(MP_AFTER)))
        self.assertEqual(s["runlists"], 22)                # both nodes
        self.assertEqual(s["preemptions"], 10)
        self.assertEqual(s["preempt_wait_us_total"], 2000)
        self.assertEqual(s["preempt_wait_us_mean"], 200)
        self.assertEqual(s["oversub_runlists"], 3)
        self.assertEqual(s["preempt_wait_us_p99_bound"], 512)  # bucket 9: [256, 512)

    def test_hist_quantile(self):
        self.assertIsNone(tr.hist_quantile([0, 0, 0], 0.5))
        self.assertEqual(tr.hist_quantile([5, 0, 0], 0.99), 0)
        self.assertEqual(tr.hist_quantile([0, 1, 1, 8], 0.5), 8)


class Params(unittest.TestCase):
    def rules(self):
        with open(os.path.join(FIXTURES, "kfd_mp_params.c"), encoding="utf-8") as f:
            return kfdmp_params.parse_params(f.read())

    def test_parse_fixture(self):
        r = self.rules()
        self.assertEqual(r["kfd_mp"], {"kind": "uint", "min": 0, "max": 1, "power_of_2": False})
        self.assertEqual(r["kfd_queue_slot_policy"]["words"], ["default", "first-fit", "pid", "index"])
        self.assertEqual(r["kfd_queue_slot_range"], {"kind": "uint", "min": 1, "max": 1024, "power_of_2": True})
        self.assertEqual(r["kfd_queued_runlist"]["words"], ["default", "off", "on"])
        self.assertEqual(r["sched_policy"], {"kind": "plain", "type": "int"})
        self.assertEqual(r["mp_debug"], {"kind": "plain", "type": "bool"})

    def test_values(self):
        r = self.rules()
        cases = [("kfd_queue_slot_policy", "index", "ok"), ("kfd_queue_slot_policy", "random", "bad"),
                 ("kfd_queue_slot_range", "8", "ok"), ("kfd_queue_slot_range", "3", "bad"),
                 ("kfd_queue_slot_range", "0x10", "ok"), ("kfd_queue_slot_range", "2048", "bad"),
                 ("kfd_mp", "1", "ok"), ("kfd_mp", "2", "bad"), ("kfd_mp", "on", "bad"),
                 ("sched_policy", "abc", "bad"), ("mp_debug", "Y", "ok")]
        for name, value, want in cases:
            self.assertEqual(kfdmp_params.check_value(r[name], value)[0], want, (name, value))
        self.assertEqual(kfdmp_params.check_value({"kind": "modinfo", "desc": "x"}, "7")[0], "unchecked")

    def test_series_parse_finds_the_master_switch(self):
        series = os.path.join(ROOT, "patches", "linux-6.12")
        if not os.path.isdir(series):
            series = os.path.join(ROOT, "patches")
        text, patches = kfdmp_params.series_text(series)
        self.assertTrue(patches)
        self.assertNotIn("0000-cover-letter.patch", [os.path.basename(p) for p in patches])
        r = kfdmp_params.parse_params(text)
        if "kfd_mp" not in r:
            self.skipTest("the series in patches/ does not define kfd_mp yet")
        self.assertEqual(r["kfd_mp"]["kind"], "uint")

    def run_cli(self, *args):
        return subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "report", "kfdmp_params.py"), *args],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)

    def test_validate_bad_matrix(self):
        p = self.run_cli("validate", os.path.join(FIXTURES, "matrix-bad.conf"),
                         "--source", os.path.join(FIXTURES, "kfd_mp_params.c"))
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        verdict = {}
        for line in p.stdout.splitlines():
            cols = line.split()
            if len(cols) >= 3 and cols[2] in ("OK", "BAD", "UNKNOWN", "UNCHECKED"):
                verdict[cols[0] + " " + cols[1]] = cols[2]
        self.assertEqual(verdict, {
            "good kfd_queue_slot_policy=pid": "OK", "good kfd_queue_slot_range=8": "OK", "good kfd_mp=1": "OK",
            "bad-word kfd_queue_slot_policy=random": "BAD", "bad-range kfd_queue_slot_range=3": "BAD",
            "too-big kfd_queue_slot_range=2048": "BAD", "bad-bool mp_debug=maybe": "BAD",
            "bad-int sched_policy=abc": "BAD", "unknown kfd_doorbell_placement=index": "UNKNOWN"})

    def test_unknown_fails_only_strict(self):
        args = ["validate", os.path.join(FIXTURES, "matrix-bad.conf"), "--configs", "good,unknown",
                "--source", os.path.join(FIXTURES, "kfd_mp_params.c")]
        self.assertEqual(self.run_cli(*args).returncode, 0)
        self.assertEqual(self.run_cli(*args, "--strict").returncode, 1)

    def test_matrix_of_the_project(self):
        rows = kfdmp_params.read_matrix(MATRIX)
        names = [r[0] for r in rows]
        self.assertEqual(names[0], "stock")
        self.assertEqual(rows[0][1], [])
        self.assertIn("all", names)
        self.assertEqual(dict(r[:2] for r in rows)["all"], ["kfd_mp=1"])
        for want in ("kfd_queue_slot_policy=index", "kfd_doorbell_placement=index", "kfd_queued_runlist=on"):
            self.assertIn([want], [r[1] for r in rows])
        self.assertEqual([r[0] for r in kfdmp_params.select(rows, "all,stock")], ["all", "stock"])
        with self.assertRaises(kfdmp_params.MatrixError):
            kfdmp_params.select(rows, "nosuch")

    def test_matrix_errors(self):
        bad = ["a | b\n", "x y | - | d\n", "a | - | d\na | - | e\n", "a | kfd_mp | d\n", "a | kfd_mp=1 kfd_mp=0 | d\n",
               "# only a comment\n"]
        for text in bad:
            with tempfile.NamedTemporaryFile("w", suffix=".conf", delete=False) as f:
                f.write(text)
            try:
                with self.assertRaises(kfdmp_params.MatrixError, msg=text):
                    kfdmp_params.read_matrix(f.name)
            finally:
                os.unlink(f.name)


class Report(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="kfdmp-report-test.")
        cls.doc = tr.build_document(SAMPLE)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def test_sample_document(self):
        d = self.doc
        self.assertEqual(tr.check_document(d), [])
        self.assertTrue(d["synthetic"])
        self.assertEqual(d["matrix"], [r[0] for r in kfdmp_params.read_matrix(MATRIX)])  # the hypothesis matrix
        self.assertEqual(d["workloads"], ["latency", "saturate"])
        stock = d["configurations"][0]
        self.assertEqual(stock["status"], "ok")
        self.assertEqual([w["workload"] for w in stock["workloads"]], ["latency", "saturate"])
        self.assertEqual([s["procs"] for s in stock["workloads"][0]["summary"]], [1, 2, 4, 8])
        # The configuration's mp_stats delta is the sum of its workloads' deltas.
        skipped = [c["name"] for c in d["configurations"] if c["status"].startswith("skipped")]
        self.assertEqual(skipped, [])  # every arm's parameters are in the series
        for c in d["configurations"]:
            if c["name"] in skipped:
                continue
            for k in ("runlists", "preemptions", "preempt_wait_us_total", "oversub_runlists"):
                self.assertEqual(c["mp_stats"][k], sum(w["mp_stats"][k] for w in c["workloads"]), (c["name"], k))
            # ... and the trace saw every unmap the counters saw.
            unmaps = sum(w["trace"]["events"]["kfd_unmap_queues"] for w in c["workloads"])
            self.assertEqual(unmaps, c["mp_stats"]["preemptions"], c["name"])
            wait = sum(w["trace"]["unmap_wait_us_total"] for w in c["workloads"])
            self.assertEqual(wait, c["mp_stats"]["preempt_wait_us_total"], c["name"])
            self.assertEqual(c["kernel_log"]["oversubscribed"],
                             sum(r["oversubscribed_lines"] for w in c["workloads"] for r in w["runs"]))
        rows = [r for r in d["comparison"] if r["config"] == "stock"]
        self.assertTrue(all(abs(r["vs_reference"] - 1) < 1e-12 for r in rows))

    def test_schema_check_catches_breakage(self):
        d = copy.deepcopy(self.doc)
        del d["configurations"][1]["workloads"][0]["summary"][0]["qps_mean"]
        d["box_checks"][0]["status"] = "great"
        d["schema_version"] = 2
        errs = tr.check_document(d)
        self.assertTrue(any("qps_mean" in e for e in errs), errs)
        self.assertTrue(any("box_checks[0].status" in e for e in errs), errs)
        self.assertTrue(any("schema_version" in e for e in errs), errs)

    def run_report(self, run_dir, *extra):
        out = os.path.join(self.tmp, os.path.basename(run_dir.rstrip("/")) + "-" + str(len(os.listdir(self.tmp))))
        p = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "report", "testbox_report.py"), run_dir,
                            "--out", out, "--check", *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
        return p, out

    def test_cli_writes_markdown_json(self):
        p, out = self.run_report(SAMPLE, "--no-plots")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        with open(os.path.join(out, "testbox.json"), encoding="utf-8") as f:
            doc = json.load(f)
        self.assertEqual(doc["schema"], "kfdmp-testbox")
        with open(os.path.join(out, "summary.md"), encoding="utf-8") as f:
            md = f.read()
        self.assertIn("SYNTHETIC SAMPLE DATA", md)
        self.assertIn("## Workload `latency`", md)
        self.assertIn("## Driver evidence", md)
        self.assertTrue(os.path.exists(os.path.join(out, "plots", "latency.dat")))
        self.assertIn("plots: skipped (--no-plots)", p.stdout)

    def test_plots_or_message(self):
        p, out = self.run_report(SAMPLE)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        if tr.gnuplot_terminal():
            for w in ("latency", "saturate"):
                for k in ("qps", "ratio"):
                    png = os.path.join(out, "plots", f"{w}-{k}.png")
                    with open(png, "rb") as f:
                        self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n", png)
        else:
            self.assertIn("plots: skipped, gnuplot", p.stdout)

    def test_no_gnuplot_skips_with_a_message(self):
        env = dict(os.environ, PATH="/nonexistent")
        p = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "report", "testbox_report.py"), SAMPLE,
                            "--out", os.path.join(self.tmp, "nognuplot"), "--check"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, env=env)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("plots: skipped, gnuplot with a PNG terminal not found", p.stdout)

    def test_partial_run(self):
        """A run that stopped after a failed load still reports."""
        run = os.path.join(self.tmp, "partial")
        shutil.copytree(SAMPLE, run)
        shutil.rmtree(os.path.join(run, "configs", "all"))
        with open(os.path.join(run, "configs", "queued-rl", "status"), "w", encoding="utf-8") as f:
            f.write("failed: insmod refused kfd_queued_runlist=on\n")
        shutil.rmtree(os.path.join(run, "configs", "queued-rl", "saturate"))
        os.remove(os.path.join(run, "configs", "queued-rl", "latency", "results.json"))
        p, out = self.run_report(run, "--no-plots")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        with open(os.path.join(out, "testbox.json"), encoding="utf-8") as f:
            doc = json.load(f)
        by = {c["name"]: c for c in doc["configurations"]}
        self.assertEqual(by["all"]["status"], "not run")
        self.assertTrue(by["queued-rl"]["status"].startswith("failed"))
        self.assertEqual(by["queued-rl"]["workloads"][0]["status"], "missing")

    def test_not_a_run_dir(self):
        p, _ = self.run_report(self.tmp)
        self.assertEqual(p.returncode, 1)
        self.assertIn("run.env", p.stderr)

    def test_sample_matches_its_generator(self):
        out = os.path.join(self.tmp, "regenerated")
        subprocess.run([sys.executable, os.path.join(HERE, "make-sample.py"), out], check=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        diff = subprocess.run(["diff", "-r", SAMPLE, out], stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
        self.assertEqual(diff.returncode, 0, "tests/testbox/sample differs from make-sample.py's output; "
                         "rerun tests/testbox/make-sample.py\n" + diff.stdout[:2000])


class Tenant(unittest.TestCase):
    """The tenant section (issue 18): scripts/testbox.sh --tenant runs kfdmp's
    tenant mode per configuration; the report takes each arm's figures and
    target checks from results.json's tenant section as they are."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="kfdmp-tenant-test.")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    @staticmethod
    def write(path, text):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)

    def make_run(self, name, results=None, second_exit=None, alone_failed=None):
        """A tenant run: stock ran kfdmp with RESULTS (a fixture name);
        dequeue-wait's kfdmp exited SECOND_EXIT with no results.json, or its
        measurement alone failed with ALONE_FAILED."""
        run = os.path.join(self.tmp, name)
        self.write(os.path.join(run, "run.env"),
                   "synthetic=0\nrun_id=t\ndry_run=0\ntenant=1\ntenant_mix=saturate:5\n"
                   "configs=stock dequeue-wait\nworkloads=tenant\n")
        self.write(os.path.join(run, "restore.env"), "status=ok\n")
        for c, params, status in (("stock", "", "ok"), ("dequeue-wait", "kfd_short_dequeue_wait=on",
                                                        "failed: kfdmp tenant exited %s" % second_exit
                                                        if second_exit else "failed: tenant mode not run")):
            cdir = os.path.join(run, "configs", c)
            self.write(os.path.join(cdir, "config.env"), "name=%s\nparams=%s\ndescription=d\n" % (c, params))
            self.write(os.path.join(cdir, "status"), status + "\n")
            wdir = os.path.join(cdir, "tenant")
            if c == "stock":
                os.makedirs(wdir, exist_ok=True)
                shutil.copy(os.path.join(FIXTURES, results), os.path.join(wdir, "results.json"))
                self.write(os.path.join(wdir, "workload.env"), "exit_code=0\n")
                self.write(os.path.join(wdir, "rate.env"), "critical_alone_qps=116.110\nrate=34\nu=0.293\n"
                           "u_max=0.3\nrate_from=measured (latency alone, closed loop, 1 process)\n")
            elif second_exit:
                self.write(os.path.join(wdir, "workload.env"), "exit_code=%s\n" % second_exit)
                self.write(os.path.join(wdir, "rate.env"), "rate=25\nrate_from=given (TENANT_RATE/--tenant-rate)\n")
            else:
                self.write(os.path.join(wdir, "workload.env"), "exit_code=\nnot_run=%s\n" % alone_failed)
        return run

    def test_target_state(self):
        for s, want in (("pass", "pass"), ("fail: critical p99 3.10x alone > 1.50x", "fail"),
                        ("unavailable: arm skipped: x", "unavailable"), ("", "unavailable"), (None, "unavailable"),
                        ("passed", "unavailable")):
            self.assertEqual(tr.target_state(s), want, s)

    def test_report_takes_the_harness_checks(self):
        run = self.make_run("ok", "tenant-results.json", second_exit=1)
        d = tr.build_document(run)
        self.assertEqual(tr.check_document(d), [])
        self.assertIsNone(d["verdict"])
        self.assertEqual(d["comparison"], [])  # no per-N QPS table for a tenant run
        with open(os.path.join(FIXTURES, "tenant-results.json"), encoding="utf-8") as f:
            want = json.load(f)["tenant"]["arms"]
        got = d["configurations"][0]["workloads"][0]["tenant"]
        self.assertEqual(got["rate"]["rate"], "34")
        self.assertEqual(got["rate_per_s"], 60.0)
        for g, w in zip(got["arms"], want):
            self.assertEqual((g["arm"], g["repeat"], g["status"]), (w["arm"], w["repeat"], w["status"]))
            self.assertEqual(g["critical_p99_ratio"], w["critical_p99_ratio"])
            self.assertEqual(g["best_effort_kept_min"], w["best_effort_kept_min"])
            self.assertEqual((g["latency_target"], g["suspend_target"]), (w["latency_target"], w["suspend_target"]))
        self.assertEqual([(a["latency_state"], a["suspend_state"]) for a in got["arms"]],
                         [("fail", "unavailable"), ("pass", "pass"), ("fail", "unavailable")])
        dw = d["configurations"][1]["workloads"][0]
        self.assertEqual(dw["status"], "failed")
        self.assertEqual(dw["why"], "kfdmp exited 1 and wrote no results.json")
        self.assertEqual(dw["tenant"]["arms"], [])
        md = tr.markdown(d, {})
        self.assertIn("# Test-box run: tenant control", md)
        self.assertIn("## Tenant control (issue 18)", md)
        self.assertIn("critical p99 ≤ 1.5× alone while each best-effort tenant keeps ≥ 0.5", md)
        self.assertIn("suspend-to-unmapped p99 < 1 ms", md)
        self.assertIn("| sched | – | 0 | ok | 1.21 | 0.62 | 840 µs | pass | pass |", md)
        self.assertIn("No per-arm summary over repeats in results.json", md)
        self.assertNotIn("arms none / sched / priority", md)
        self.assertIn("**`dequeue-wait`** (kfd_short_dequeue_wait=on): rate 25/s, given", md)
        self.assertIn("Not measured: kfdmp exited 1 and wrote no results.json. "
                      "Configuration status: failed: kfdmp tenant exited 1.", md)
        self.assertNotIn("## Verdict", md)

    def test_checks_are_not_recomputed(self):
        """A check the harness wrote is reported as written, even where the
        figures beside it would judge otherwise."""
        with open(os.path.join(FIXTURES, "tenant-results.json"), encoding="utf-8") as f:
            doc = json.load(f)
        doc["tenant"]["arms"][1]["latency_target"] = "fail: critical p99 1.21x alone > 1.00x"
        name = os.path.join(self.tmp, "edited.json")
        with open(name, "w", encoding="utf-8") as f:
            json.dump(doc, f)
        run = self.make_run("edited", name, alone_failed="the critical tenant alone failed (kfdmp exited 1, x)")
        d = tr.build_document(run)
        sched = d["configurations"][0]["workloads"][0]["tenant"]["arms"][1]
        self.assertEqual((sched["latency_state"], sched["latency_target"]),
                         ("fail", "fail: critical p99 1.21x alone > 1.00x"))
        md = tr.markdown(d, {})
        self.assertIn("Not measured: the critical tenant alone failed (kfdmp exited 1, x).", md)

    def test_sched_arm_skipped(self):
        run = self.make_run("skipped", "tenant-results-sched-skipped.json", second_exit=2)
        d = tr.build_document(run)
        self.assertEqual(tr.check_document(d), [])
        sched = d["configurations"][0]["workloads"][0]["tenant"]["arms"][1]
        self.assertEqual(sched["status"], "skipped")
        self.assertIn("no tenant-control interface", sched["reason"])
        self.assertEqual((sched["latency_state"], sched["suspend_state"]), ("unavailable", "unavailable"))
        self.assertIn("| sched | – | 0 | skipped: kfdmp-sched: the loaded driver has no tenant-control interface "
                      "(AMDKFD_IOC_TENANT_CTL: not supported) | – | – | – | unavailable (see status) | "
                      "unavailable (see status) |", tr.markdown(d, {}))

    def test_busy_fractions_and_the_summary_over_repeats(self):
        """The H100's tenant run of 2026-11-27 (issue 26): two busy fractions,
        three arms, three repeats. Each row says its busy fraction; the
        harness's per-arm checks over repeats (tenant.summary: pass, fail,
        inconclusive) are shown as written."""
        real = os.path.join(ROOT, "tests", "harness", "results", "h100", "2026-11-27-tenant-drain", "out", "ts",
                            "results.json")
        with open(real, encoding="utf-8") as f:
            want = json.load(f)["tenant"]
        run = self.make_run("busy", real, second_exit=1)
        d = tr.build_document(run)
        self.assertEqual(tr.check_document(d), [])
        got = d["configurations"][0]["workloads"][0]["tenant"]
        self.assertEqual([a["busy_fraction"] for a in got["arms"]], [a["busy_fraction"] for a in want["arms"]])
        self.assertEqual([(s["arm"], s["busy_fraction"]) for s in got["summary"]],
                         [(s["arm"], s["busy_fraction"]) for s in want["summary"]])
        states = {(s["arm"], s["busy_fraction"]): (s["latency_state"], s["throughput_state"]) for s in got["summary"]}
        self.assertEqual(states[("sched-drain", 0.1)], ("inconclusive", "pass"))
        self.assertEqual(states[("none", 0.3)], ("fail", "pass"))
        md = tr.markdown(d, {})
        self.assertIn("| arm | busy | rep | status |", md)
        self.assertIn("| none | 0.10 (158/s) | 0 | ok | 8.46 | 0.88 |", md)
        self.assertIn("Per arm over the repeats (results.json `tenant.summary`", md)
        self.assertIn("| sched-drain | 0.10 (158/s) | 3 of 3 | 6.38 [0.55, 12.20] | 0.82 [0.79, 0.85] | "
                      "inconclusive | pass | unavailable: the drain backend takes no queue off the GPU", md)
        self.assertIn("| none | 0.30 (", md)
        self.assertIn("- `sched-drain` at busy 0.30, each repeat on its own, over 3 repeat(s)", md)
        self.assertIn("sched-drain (kfdmp-sched stopping the best-effort processes)", md)
        # a summary check the report does not know is caught
        d["configurations"][0]["workloads"][0]["tenant"]["summary"][0]["latency_state"] = "maybe"
        self.assertTrue(any("summary[0].latency_state" in e for e in tr.check_document(d)))

    def test_schema_check_catches_a_bad_state(self):
        run = self.make_run("bad", "tenant-results.json", second_exit=1)
        d = tr.build_document(run)
        d["configurations"][0]["workloads"][0]["tenant"]["arms"][0]["latency_state"] = "maybe"
        self.assertTrue(any("latency_state" in e for e in tr.check_document(d)))

    def test_run_without_tenant_has_no_section(self):
        d = tr.build_document(SAMPLE)
        self.assertTrue(all(w["tenant"] is None for c in d["configurations"] for w in c["workloads"]))
        md = tr.markdown(d, {})
        self.assertNotIn("Tenant control", md)
        self.assertIn("# Test-box run: kfd-mp ablation", md)

    def test_tenant_matrix(self):
        rows = kfdmp_params.read_matrix(os.path.join(HERE, "tenant.conf"))
        self.assertEqual([(r[0], r[1]) for r in rows], [("stock", []), ("dequeue-wait", ["?kfd_short_dequeue_wait=on"])])


if __name__ == "__main__":
    unittest.main()
