"""End to end: `kfdmp --exec` with the Python helper's fake service and the
native example worker (no GPU): N = 1, 2 closed loop, an open-loop run, and
an arm the service cannot take (--graph) skipped with its reason.

    KFDMP_LAUNCHER=build/.../kfdmp KFDMP_NATIVE_WORKER=build/.../kfdmp-example-worker \\
        python3 tests/test_exec_e2e.py [-v]
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PYDIR = os.path.dirname(HERE)
SERVICE = os.path.join(HERE, "fake_service.py")
KFDMP = os.environ.get("KFDMP_LAUNCHER")
NATIVE = os.environ.get("KFDMP_NATIVE_WORKER")


def quote(s):
    return "'" + s.replace("'", "'\\''") + "'"


@unittest.skipIf(not KFDMP, "KFDMP_LAUNCHER not set (ctest sets it)")
class ExecEndToEnd(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="kfdmp-exec-e2e-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def kfdmp(self, cmd, *args):
        out = os.path.join(self.tmp, "out%d" % len(os.listdir(self.tmp)))
        env = dict(os.environ)
        env["PYTHONPATH"] = PYDIR
        p = subprocess.Popen([KFDMP, "--exec", cmd, "--duration", "1", "--warmup", "0.3", "--out", out]
                             + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        so, se = p.communicate(timeout=120)
        doc = None
        path = os.path.join(out, "results.json")
        if os.path.exists(path):
            with open(path) as f:
                doc = json.load(f)
        return p.returncode, so.decode() + se.decode(), doc

    def qps(self, doc):
        by = {}
        for r in doc["runs"]:
            self.assertEqual(r["status"], "ok", r.get("reason"))
            by.setdefault(r["procs"], []).append(r["aggregate_qps"])
        return dict((n, sum(v) / len(v)) for n, v in by.items())

    def check_closed(self, cmd):
        rc, text, doc = self.kfdmp(cmd, "--procs", "1,2")
        self.assertEqual(rc, 0, text)
        q = self.qps(doc)
        # 5 ms sleeps: about 200 QPS a process (less the pipe round trip and
        # sleep overshoot), and two processes sleeping share nothing
        self.assertTrue(80 < q[1] <= 201, q)
        self.assertTrue(1.5 < q[2] / q[1] < 2.3, q)

    def test_python_service_closed_loop(self):
        self.check_closed("%s %s --sleep-ms 5" % (quote(sys.executable), quote(SERVICE)))

    @unittest.skipIf(not NATIVE, "KFDMP_NATIVE_WORKER not set")
    def test_native_worker_closed_loop(self):
        self.check_closed("%s --sleep-us 5000" % quote(NATIVE))

    def test_python_service_open_loop(self):
        rc, text, doc = self.kfdmp("%s %s --sleep-ms 2" % (quote(sys.executable), quote(SERVICE)),
                                   "--procs", "1", "--rate", "100")
        self.assertEqual(rc, 0, text)
        q = self.qps(doc)
        self.assertTrue(60 < q[1] < 140, q)

    def test_arm_through_docker_exec_stand_in(self):
        """Behind `docker exec -i` (the harness tests' stand-in: an empty
        environment) the arm's env arrives only as lines; the helper
        re-executes Python with it before setup."""
        docker_dir = os.path.join(PYDIR, "..", "tests", "exec")
        if not os.access(os.path.join(docker_dir, "docker"), os.X_OK):
            self.skipTest("no docker stand-in at tests/harness/tests/exec/docker")
        state = os.path.join(self.tmp, "state.json")
        os.environ["PATH"] = docker_dir + os.pathsep + os.environ["PATH"]
        try:
            rc, text, doc = self.kfdmp("docker exec -i svc %s %s --sleep-ms 2 --state %s"
                                       % (quote(sys.executable), quote(SERVICE), quote(state)),
                                       "--procs", "1", "--cpu-threads", "2", "--hw-queues", "3")
        finally:
            os.environ["PATH"] = os.environ["PATH"].split(os.pathsep, 1)[1]
        self.assertEqual(rc, 0, text)
        self.qps(doc)
        with open(state) as f:
            st = json.load(f)
        self.assertEqual(st["environ"], {"OMP_NUM_THREADS": "2", "GPU_MAX_HW_QUEUES": "3"})
        self.assertEqual((st["threads"], st["omp"]), (2, "2"))

    def test_graph_unsupported_is_skipped(self):
        rc, text, doc = self.kfdmp("%s %s" % (quote(sys.executable), quote(SERVICE)), "--procs", "1", "--graph")
        self.assertEqual(rc, 77, text)
        self.assertIn("graph", text)
        self.assertIn("cannot replay", text)


if __name__ == "__main__":
    unittest.main()
