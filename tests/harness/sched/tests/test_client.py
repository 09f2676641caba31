"""The Python client (client/kfdmp_sched_client.py): transitions only, the
stamp, threads, no daemon; and end to end against kfdmp-sched --backend drain
(a sleeping best-effort process is stopped inside `with critical()` and runs
again after it) when KFDMP_SCHED_BIN names the daemon. Python 3.6+."""
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "client"))
import kfdmp_sched_client as kc  # noqa: E402


def state(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except (IOError, OSError):
        return "-"


def eventually(f, seconds=3.0):
    end = time.time() + seconds
    while time.time() < end:
        if f():
            return True
        time.sleep(0.005)
    return f()


class Listener(object):
    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="kfdmp-client-")
        self.path = os.path.join(self.dir, "s.sock")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.path)
        self.sock.settimeout(0.2)

    def messages(self):
        out = []
        while True:
            try:
                out.append(self.sock.recv(64).decode())
            except socket.timeout:
                return out

    def close(self):
        self.sock.close()
        os.unlink(self.path)
        os.rmdir(self.dir)


class ClientTest(unittest.TestCase):
    def setUp(self):
        self.l = Listener()

    def tearDown(self):
        self.l.close()

    def test_only_transitions_with_a_monotonic_stamp(self):
        n = kc.Notifier(self.l.path)
        with kc.critical(notifier=n):
            with kc.critical(notifier=n):
                pass
        msgs = self.l.messages()
        self.assertEqual([m.split()[0] for m in msgs], ["busy", "idle"])
        t0 = int(msgs[0].split()[1])
        now = int(time.clock_gettime(time.CLOCK_MONOTONIC) * 1e9)
        self.assertTrue(0 < now - t0 < 10 * 10**9, (now, t0))
        self.assertEqual(n.outstanding, 0)

    def test_decorator_and_environment(self):
        os.environ["KFDMP_SCHED_SOCKET"] = self.l.path
        try:
            @kc.critical(notifier=kc.Notifier())
            def query():
                return 42
            self.assertEqual(query(), 42)
        finally:
            del os.environ["KFDMP_SCHED_SOCKET"]
        self.assertEqual([m.split()[0] for m in self.l.messages()], ["busy", "idle"])

    def test_threads_send_in_order(self):
        n = kc.Notifier(self.l.path)
        barrier = threading.Barrier(8)
        got = []
        done = threading.Event()

        def reader():  # a daemon reads as they come
            self.l.sock.settimeout(0.01)
            while not done.is_set():
                got.extend(self.l.messages())
        rd = threading.Thread(target=reader)
        rd.start()

        def worker():
            barrier.wait()
            for _ in range(50):
                with kc.critical(notifier=n):
                    pass
        ts = [threading.Thread(target=worker) for _ in range(8)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        done.set()
        rd.join()
        self.l.sock.settimeout(0.2)
        words = [m.split()[0] for m in got + self.l.messages()]
        self.assertGreaterEqual(len(words), 2)
        self.assertEqual(words[0], "busy")
        self.assertEqual(words[-1], "idle")
        for a, b in zip(words, words[1:]):
            self.assertNotEqual(a, b, words)  # strictly alternating
        self.assertEqual(n.outstanding, 0)

    def test_no_daemon_is_not_an_error_unless_strict(self):
        n = kc.Notifier(self.l.path + ".none")
        with kc.critical(notifier=n):
            pass
        self.assertIsNotNone(n.last_error)
        strict = kc.Notifier(self.l.path + ".none", strict=True)
        with self.assertRaises(OSError):
            strict.begin()
        with self.assertRaises(RuntimeError):
            kc.Notifier(self.l.path).end()
        with self.assertRaises(ValueError):
            n.send("hello")


@unittest.skipUnless(os.environ.get("KFDMP_SCHED_BIN"), "KFDMP_SCHED_BIN not set")
class EndToEnd(unittest.TestCase):
    def test_best_effort_stops_inside_critical_and_runs_after(self):
        d = tempfile.mkdtemp(prefix="kfdmp-client-e2e-")
        sock, log = os.path.join(d, "s.sock"), os.path.join(d, "log")
        be = subprocess.Popen(["sleep", "30"], preexec_fn=os.setpgrp)
        daemon = subprocess.Popen([os.environ["KFDMP_SCHED_BIN"], "--backend", "drain", "--best-effort",
                                   str(be.pid), "--critical", str(os.getpid()), "--socket", sock,
                                   "--log", log, "--max-suspend-ms", "60000"])
        try:
            self.assertTrue(eventually(lambda: os.path.exists(sock)))
            with kc.critical(sock):
                self.assertTrue(eventually(lambda: state(be.pid) == "T"), state(be.pid))
            self.assertTrue(eventually(lambda: state(be.pid) not in ("T", "-")), state(be.pid))
        finally:
            daemon.send_signal(signal.SIGTERM)
            self.assertEqual(daemon.wait(10), 0)
            os.killpg(be.pid, signal.SIGKILL)
            be.wait()
            for f in os.listdir(d):
                os.unlink(os.path.join(d, f))
            os.rmdir(d)


if __name__ == "__main__":
    unittest.main()
