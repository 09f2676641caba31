"""Tests of kfdmp_worker (and of kfdmp_worker.h's example program) under a
fake launcher: a pipe on stdin and stdout, the lines of protocol version 1
(docs/exec-workers.md). No GPU, no torch (a fake torch for the GPU timing).

    python3 tests/test_kfdmp_worker.py [-v]

KFDMP_NATIVE_WORKER: the example native worker (built by CMake); without
it those tests are skipped (ctest always sets it).
"""
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PYDIR = os.path.dirname(HERE)
SERVICE = os.path.join(HERE, "fake_service.py")
FAKE_TORCH = os.path.join(HERE, "fake_torch")
NATIVE = os.environ.get("KFDMP_NATIVE_WORKER")
TIMEOUT = 20.0


class FakeLauncher(object):
    """One worker: the bridge's side of the protocol."""

    def __init__(self, argv, env=None, torch=False):
        e = dict(os.environ)
        e.pop("KFDMP_WORKER_CONFIG", None)
        e.pop("KFDMP_WORKER_STANDALONE", None)
        paths = [PYDIR] + ([FAKE_TORCH] if torch else [])
        e["PYTHONPATH"] = os.pathsep.join(paths)
        if env:
            e.update(env)
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, env=e)
        self.buf = b""

    def send(self, *lines):
        self.p.stdin.write(("".join(l + "\n" for l in lines)).encode())
        self.p.stdin.flush()

    def line(self, timeout=TIMEOUT):
        """The next stdout line, None at EOF; fails on a timeout."""
        deadline = time.time() + timeout
        fd = self.p.stdout.fileno()
        while b"\n" not in self.buf:
            left = deadline - time.time()
            if left <= 0:
                raise AssertionError("no line from the worker within %.0f s (so far %r)" % (timeout, self.buf))
            r, _, _ = select.select([fd], [], [], left)
            if r:
                chunk = os.read(fd, 65536)
                if not chunk:
                    if self.buf:
                        out, self.buf = self.buf, b""
                        return out.decode()
                    return None
                self.buf += chunk
        out, self.buf = self.buf.split(b"\n", 1)
        return out.decode()

    def config(self, env=(), options=(), index=0, workers=1, hello_extra=""):
        self.send("kfdmp 1 hello index=%d workers=%d%s" % (index, workers, hello_extra),
                  *(["env " + e for e in env] + ["option " + o for o in options] + ["config end"]))

    def finish(self, stop=True, timeout=TIMEOUT):
        """stop (or EOF); returns (exit code, rest of stdout, stderr)."""
        if stop:
            try:
                self.send("stop")
            except (BrokenPipeError, OSError):
                pass
        try:
            self.p.stdin.close()
        except (BrokenPipeError, OSError):
            pass
        rest = []
        while True:
            l = self.line(timeout)
            if l is None:
                break
            rest.append(l)
        deadline = time.time() + timeout
        while self.p.poll() is None and time.time() < deadline:
            time.sleep(0.01)
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()
            raise AssertionError("the worker did not exit after stop/EOF")
        err = self.p.stderr.read().decode()
        self.p.stdout.close()
        self.p.stderr.close()
        return self.p.returncode, rest, err


def py(*args):
    return [sys.executable, SERVICE] + list(args)


class Pipeline(object):
    """`hello ... pipeline=1` (the launcher's closed loop): `ready` says
    pipeline=1, and queries sent ahead, before the previous `done`, are
    answered in order; without the offer, `ready` does not say it. Other
    fields of `hello` the helper does not know are ignored."""

    def argv(self):
        raise NotImplementedError

    def ready_prefix(self):
        raise NotImplementedError

    def test_pipeline_offered_and_queries_ahead(self):
        w = FakeLauncher(self.argv())
        w.config(hello_extra=" pipeline=1 some_future_field=7")
        ready = w.line()
        self.assertTrue(ready.startswith(self.ready_prefix()), ready)
        self.assertTrue(ready.endswith(" pipeline=1"), ready)
        w.send("query 1")
        self.assertTrue(w.line().split()[:2] == ["done", "1"])
        # query 3 is already in stdin when query 2 ends; the last one sent
        # ahead of `stop` is answered before the helper reads `stop`
        w.send("query 2", "query 3")
        self.assertEqual(w.line().split()[:2], ["done", "2"])
        w.send("query 4")
        self.assertEqual(w.line().split()[:2], ["done", "3"])
        w.send("stop")
        self.assertEqual(w.line().split()[:2], ["done", "4"])
        rc, rest, err = w.finish(stop=False)
        self.assertEqual((rc, rest), (0, []), err)

    def test_pipeline_not_offered(self):
        w = FakeLauncher(self.argv())
        w.config(hello_extra=" pipeline=0 other=x")
        ready = w.line()
        self.assertTrue(ready.startswith(self.ready_prefix()), ready)
        self.assertNotIn("pipeline", ready)
        w.send("query 1")
        self.assertEqual(w.line().split()[:2], ["done", "1"])
        rc, rest, err = w.finish()
        self.assertEqual((rc, rest), (0, []), err)


class PythonWorker(Pipeline, unittest.TestCase):
    def argv(self):
        return py("--sleep-ms", "5")

    def ready_prefix(self):
        return "kfdmp 1 ready"

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="kfdmp-worker-test-")
        self.state = os.path.join(self.tmp, "state.json")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def read_state(self):
        with open(self.state) as f:
            return json.load(f)

    def test_queries_and_stop(self):
        w = FakeLauncher(py("--state", self.state))
        w.config(index=2, workers=4)
        self.assertEqual(w.line(), "kfdmp 1 ready")
        for seq in range(1, 6):
            w.send("query %d" % seq)
            self.assertEqual(w.line(), "done %d" % seq)
        rc, rest, err = w.finish()
        self.assertEqual((rc, rest), (0, []), err)
        st = self.read_state()
        self.assertEqual((st["index"], st["workers"]), (2, 4))

    def test_env_reexec_keeps_the_pipeline_offer(self):
        """The hello line travels through the re-exec with the rest."""
        w = FakeLauncher(py())
        w.config(env=["KFDMP_TEST_A=1"], hello_extra=" pipeline=1")
        self.assertEqual(w.line(), "kfdmp 1 ready pipeline=1")
        rc, _, err = w.finish()
        self.assertEqual(rc, 0, err)

    def test_eof_exits_zero(self):
        w = FakeLauncher(py())
        w.config()
        self.assertEqual(w.line(), "kfdmp 1 ready")
        w.send("query 1")
        self.assertEqual(w.line(), "done 1")
        rc, rest, err = w.finish(stop=False)
        self.assertEqual((rc, rest), (0, []), err)

    def test_eof_before_hello(self):
        w = FakeLauncher(py())
        rc, rest, err = w.finish(stop=False)
        self.assertEqual((rc, rest), (0, []), err)

    def test_env_reexec(self):
        """An env line missing from the environment: the interpreter
        re-executes itself (same pid) with it, without re-reading stdin."""
        w = FakeLauncher(py("--state", self.state, "--import-torch"), torch=True,
                         env={"KFDMP_TEST_B": "old"})
        w.config(env=["KFDMP_TEST_A=1 2", "KFDMP_TEST_B=new"], options=["threads=3"])
        self.assertEqual(w.line(), "kfdmp 1 ready device=Fake_GPU_9000 gpu_time=1")
        w.send("query 1")
        self.assertTrue(w.line().startswith("done 1 gpu_ns="))
        pid = w.p.pid
        rc, rest, err = w.finish()
        self.assertEqual((rc, rest), (0, []), err)
        st = self.read_state()
        self.assertEqual(st["pid"], pid)
        self.assertEqual(st["environ"], {"KFDMP_TEST_A": "1 2", "KFDMP_TEST_B": "new"})
        self.assertIsNone(st["config_var_left"])
        self.assertEqual(st["torch_threads"], 3)
        self.assertEqual(st["omp"], "3")

    def test_env_already_set_no_reexec(self):
        w = FakeLauncher(py("--state", self.state), env={"KFDMP_TEST_A": "x"})
        w.config(env=["KFDMP_TEST_A=x"])
        self.assertEqual(w.line(), "kfdmp 1 ready")
        rc, _, err = w.finish()
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.read_state()["environ"], {"KFDMP_TEST_A": "x"})

    def test_env_reexec_impossible(self):
        """python -c: no script to start again -> unsupported KEY."""
        code = ("import kfdmp_worker; kfdmp_worker.serve(lambda s: None)")
        w = FakeLauncher([sys.executable, "-c", code])
        w.config(env=["KFDMP_TEST_A=1"])
        l = w.line()
        if sys.version_info >= (3, 10):
            # sys.orig_argv keeps `-c CODE`: the re-exec works there
            self.assertEqual(l, "kfdmp 1 ready")
        else:
            self.assertTrue(l.startswith("kfdmp 1 unsupported KFDMP_TEST_A cannot re-execute"), l)
        rc, _, err = w.finish()
        self.assertEqual(rc, 0, err)

    def test_env_reset_by_command(self):
        """Something in the interpreter's start resets the variable (here a
        sitecustomize): unsupported after one re-exec, never a loop."""
        site = os.path.join(self.tmp, "site")
        os.mkdir(site)
        with open(os.path.join(site, "sitecustomize.py"), "w") as f:
            f.write("import os\nos.environ['KFDMP_TEST_A'] = 'forced'\n")
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([site, PYDIR])
        p = subprocess.Popen(py(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env=env)
        out, err = p.communicate(b"kfdmp 1 hello index=0 workers=1\nenv KFDMP_TEST_A=1\nconfig end\n",
                                 timeout=TIMEOUT)
        self.assertEqual(p.returncode, 0, err)
        self.assertTrue(out.decode().startswith("kfdmp 1 unsupported KFDMP_TEST_A still differs"), out)

    def test_options_threads_cpus(self):
        cpu = sorted(os.sched_getaffinity(0))[0]
        w = FakeLauncher(py("--state", self.state))
        w.config(options=["threads=2", "cpus=%d" % cpu])
        self.assertEqual(w.line(), "kfdmp 1 ready")
        rc, _, err = w.finish()
        self.assertEqual(rc, 0, err)
        st = self.read_state()
        self.assertEqual((st["threads"], st["cpus"], st["affinity"], st["omp"]), (2, [cpu], [cpu], "2"))

    def test_cpus_not_available(self):
        w = FakeLauncher(py())
        w.config(options=["cpus=100000"])
        l = w.line()
        self.assertTrue(l.startswith("kfdmp 1 unsupported cpus sched_setaffinity(100000) failed"), l)
        rc, _, err = w.finish()
        self.assertEqual(rc, 0, err)

    def test_bad_option_values(self):
        for opt, want in (("threads=0", "kfdmp 1 error option threads=0: not a positive integer"),
                          ("cpus=3-1", "kfdmp 1 error option cpus=3-1: bad CPU range '3-1'"),
                          ("graph=yes", "kfdmp 1 error option graph=yes: not 0 or 1")):
            w = FakeLauncher(py("--supports", "graph"))
            w.config(options=[opt])
            self.assertEqual(w.line(), want)
            rc, _, err = w.finish()
            self.assertEqual(rc, 1, err)

    def test_graph_unsupported(self):
        w = FakeLauncher(py())
        w.config(options=["graph=1"])
        l = w.line()
        self.assertTrue(l.startswith("kfdmp 1 unsupported graph this service cannot replay"), l)
        rc, rest, err = w.finish()
        self.assertEqual((rc, rest), (0, []), err)

    def test_graph_supported(self):
        w = FakeLauncher(py("--supports", "graph", "--state", self.state))
        w.config(options=["graph=1"])
        self.assertEqual(w.line(), "kfdmp 1 ready")
        rc, _, err = w.finish()
        self.assertEqual(rc, 0, err)
        self.assertTrue(self.read_state()["graph"])

    def test_unknown_option(self):
        w = FakeLauncher(py())
        w.config(options=["turbo=1"])
        l = w.line()
        self.assertTrue(l.startswith("kfdmp 1 unsupported turbo unknown option"), l)
        self.assertEqual(w.finish()[0], 0)

    def test_setup_unsupported_and_error(self):
        w = FakeLauncher(py("--setup-raises", "unsupported"))
        w.config()
        self.assertEqual(w.line(), "kfdmp 1 unsupported graph the fake service says no")
        self.assertEqual(w.finish()[0], 0)
        w = FakeLauncher(py("--setup-raises", "error"))
        w.config()
        self.assertEqual(w.line(), "kfdmp 1 error setup failed: RuntimeError: the fake service cannot start")
        self.assertEqual(w.finish()[0], 1)

    def test_failing_query(self):
        w = FakeLauncher(py("--fail-at", "2"))
        w.config()
        self.assertEqual(w.line(), "kfdmp 1 ready")
        w.send("query 1")
        self.assertEqual(w.line(), "done 1")
        w.send("query 2")
        self.assertEqual(w.line(), "fail 2 ValueError: query 2 broke on purpose second line")
        w.send("query 3")
        self.assertEqual(w.line(), "done 3")
        self.assertEqual(w.finish()[0], 0)

    def test_prints_go_to_stderr(self):
        w = FakeLauncher(py("--print"))
        w.config()
        self.assertEqual(w.line(), "kfdmp 1 ready")
        w.send("query 1")
        self.assertEqual(w.line(), "done 1")
        rc, rest, err = w.finish()
        self.assertEqual((rc, rest), (0, []))
        for text in ("setup: a print of the service", "setup: a native write to fd 1",
                     "query 1: a print of the service", "query: a native write to fd 1"):
            self.assertIn(text, err)

    def test_protocol_errors(self):
        for first, want in (("kfdmp 2 hello index=0 workers=1",
                             "kfdmp 1 error protocol version 2 not supported (this helper speaks 1)"),
                            ("hello", "kfdmp 1 error expected `kfdmp 1 hello ...` first, got 'hello'")):
            w = FakeLauncher(py())
            w.send(first)
            self.assertEqual(w.line(), want)
            self.assertEqual(w.finish()[0], 2)
        w = FakeLauncher(py())
        w.config()
        self.assertEqual(w.line(), "kfdmp 1 ready")
        w.send("query one")
        self.assertEqual(w.line(), "kfdmp 1 error unexpected line from the launcher: query one")
        self.assertEqual(w.finish()[0], 2)

    def test_gpu_time_with_fake_torch(self):
        w = FakeLauncher(py("--import-torch", "--sleep-ms", "20"), torch=True)
        w.config()
        self.assertEqual(w.line(), "kfdmp 1 ready device=Fake_GPU_9000 gpu_time=1")
        w.send("query 1")
        l = w.line().split()
        self.assertEqual(l[:2], ["done", "1"])
        ns = int(l[2].split("=")[1])
        self.assertGreaterEqual(ns, 19000000)
        self.assertEqual(w.finish()[0], 0)

    def test_torch_without_gpu(self):
        w = FakeLauncher(py("--import-torch"), torch=True, env={"FAKE_TORCH_NO_GPU": "1"})
        w.config()
        self.assertEqual(w.line(), "kfdmp 1 ready")
        self.assertEqual(w.finish()[0], 0)

    def test_standalone(self):
        out = os.path.join(self.tmp, "sa.json")
        env = dict(os.environ)
        env["PYTHONPATH"] = PYDIR
        p = subprocess.Popen([sys.executable, "-m", "kfdmp_worker", "--standalone", "--duration", "0.4",
                              "--warmup", "0.1", "--threads", "2", "--json", out, "--", SERVICE,
                              "--sleep-ms", "5", "--state", self.state],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        so, se = p.communicate(timeout=TIMEOUT)
        self.assertEqual(p.returncode, 0, se)
        self.assertIn("kfdmp_worker standalone: queries=", so.decode())
        with open(out) as f:
            res = json.load(f)
        self.assertEqual(res["mode"], "closed")
        # 5 ms queries for 0.4 s: about 80 (sleep overshoots, more so on a
        # loaded CI machine; loose bounds)
        self.assertTrue(10 <= res["queries"] <= 81, res)
        self.assertTrue(20 < res["qps"] <= 201, res)
        self.assertTrue(0 < res["qps_window"] <= 201, res)
        self.assertGreaterEqual(res["p50_ms"], 5.0)
        st = self.read_state()
        self.assertEqual((st["threads"], st["omp"], st["standalone"]), (2, "2", True))

    def test_standalone_open_loop(self):
        out = os.path.join(self.tmp, "sa.json")
        env = dict(os.environ)
        env["PYTHONPATH"] = PYDIR
        p = subprocess.Popen([sys.executable, "-m", "kfdmp_worker", "--standalone", "--duration", "0.5",
                              "--warmup", "0.1", "--rate", "400", "--json", out, "--", SERVICE,
                              "--sleep-ms", "5"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        so, se = p.communicate(timeout=TIMEOUT)
        self.assertEqual(p.returncode, 0, se)
        with open(out) as f:
            res = json.load(f)
        # 400 arrivals/s against at most 200 served/s: about half unserved
        self.assertEqual(res["mode"], "open")
        self.assertGreater(res["unserved"], 20, res)
        self.assertLess(res["qps"], 210, res)

    def test_standalone_usage(self):
        env = dict(os.environ)
        env["PYTHONPATH"] = PYDIR
        for args, want in ((["--standalone", "--duration", "0", "--", SERVICE], "--duration 0: not a positive"),
                           (["--standalone", "--cpus", "x", "--", SERVICE], "--cpus x: bad CPU 'x'"),
                           (["--standalone", "--bogus", "--", SERVICE], "unknown option --bogus"),
                           (["--standalone"], "missing `-- SCRIPT`")):
            p = subprocess.Popen([sys.executable, "-m", "kfdmp_worker"] + args,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
            so, se = p.communicate(timeout=TIMEOUT)
            self.assertEqual(p.returncode, 64, se)
            self.assertIn(want, se.decode())


class LineReader(unittest.TestCase):
    def test_queries_are_not_kept(self):
        """The config lines are kept (for a re-exec), the query lines not: a
        long run does not grow the reader."""
        sys.path.insert(0, PYDIR)
        import kfdmp_worker
        r, w = os.pipe()
        try:
            data = b"kfdmp 1 hello index=0 workers=1\nenv A=1\nconfig end\n" + b"".join(
                b"query %d\n" % i for i in range(1, 2001))
            reader = kfdmp_worker._LineReader(r, data)
            for _ in range(3):
                reader.readline()
            self.assertEqual(len(reader.consumed), 3)
            reader.recording = False
            for i in range(1, 2001):
                self.assertEqual(reader.readline(), "query %d" % i)
            self.assertEqual(len(reader.consumed), 3)
            self.assertEqual(reader.buf, b"")
        finally:
            os.close(r)
            os.close(w)


@unittest.skipIf(not NATIVE, "KFDMP_NATIVE_WORKER not set (ctest sets it)")
class NativeWorker(Pipeline, unittest.TestCase):
    def argv(self):
        return [NATIVE, "--sleep-us", "5000"]

    def ready_prefix(self):
        return "kfdmp 1 ready device=example:threads=0,index=0 gpu_time=1"
    def test_queries_env_options(self):
        w = FakeLauncher([NATIVE, "--sleep-us", "100", "--report-env", "KFDMP_TEST_A"],
                         env={"KFDMP_TEST_A": "old"})
        w.config(env=["KFDMP_TEST_A=new"], options=["threads=2"], index=1, workers=2)
        self.assertEqual(w.line(), "kfdmp 1 ready device=example:KFDMP_TEST_A=new,threads=2,index=1 gpu_time=1")
        for seq in (1, 2, 3):
            w.send("query %d" % seq)
            self.assertEqual(w.line(), "done %d gpu_ns=100000" % seq)
        rc, rest, err = w.finish()
        self.assertEqual((rc, rest), (0, []), err)
        self.assertIn("example: a printf of the service", err)

    def test_eof_and_failure_and_unsupported(self):
        w = FakeLauncher([NATIVE, "--fail-at", "2"])
        w.config()
        self.assertTrue(w.line().startswith("kfdmp 1 ready"))
        w.send("query 1")
        self.assertTrue(w.line().startswith("done 1"))
        w.send("query 2")
        self.assertEqual(w.line(), "fail 2 query 2 broke on purpose")
        rc, rest, err = w.finish(stop=False)
        self.assertEqual((rc, rest), (0, []), err)
        w = FakeLauncher([NATIVE])
        w.config(options=["graph=1"])
        l = w.line()
        self.assertTrue(l.startswith("kfdmp 1 unsupported graph"), l)
        self.assertEqual(w.finish()[0], 0)
        w = FakeLauncher([NATIVE, "--supports-graph"])
        w.config(options=["graph=1", "turbo=2"])
        l = w.line()
        self.assertTrue(l.startswith("kfdmp 1 unsupported turbo"), l)
        self.assertEqual(w.finish()[0], 0)

    def test_long_run_does_not_grow(self):
        """200000 queries: the header keeps no query line (its buffer is
        compacted once the configuration is read), so the RSS stays put."""
        import threading
        w = FakeLauncher([NATIVE])
        w.config()
        self.assertTrue(w.line().startswith("kfdmp 1 ready"))

        def rss_kib():
            with open("/proc/%d/status" % w.p.pid) as f:
                for l in f:
                    if l.startswith("VmRSS:"):
                        return int(l.split()[1])

        n = 200000
        lines = b"".join(b"query %d\n" % i for i in range(1, n + 1))

        def feed():
            w.p.stdin.write(lines)
            w.p.stdin.flush()

        t = threading.Thread(target=feed)
        w.send("query 0")
        self.assertEqual(w.line(), "done 0 gpu_ns=0")
        before = rss_kib()
        t.start()
        got = 0
        while got < n:
            l = w.line()
            got += 1
        t.join()
        self.assertEqual(l, "done %d gpu_ns=0" % n)
        grew = rss_kib() - before
        # the lines sent are 2.3 MB; kept, they would all be resident
        self.assertLess(grew, 1024, "RSS grew by %d KiB over %d queries" % (grew, n))
        self.assertEqual(w.finish()[0], 0)

    def test_cpus_and_protocol_error(self):
        cpu = sorted(os.sched_getaffinity(0))[-1]
        w = FakeLauncher([NATIVE, "--report-cpus"])
        w.config(options=["cpus=%d" % cpu])
        self.assertEqual(w.line(), "kfdmp 1 ready device=example:cpus=%d gpu_time=1" % cpu)
        self.assertEqual(w.finish()[0], 0)
        w = FakeLauncher([NATIVE])
        w.send("kfdmp 7 hello index=0 workers=1")
        l = w.line()
        self.assertTrue(l.startswith("kfdmp 1 error protocol version 7"), l)
        self.assertEqual(w.finish()[0], 2)


if __name__ == "__main__":
    unittest.main()
