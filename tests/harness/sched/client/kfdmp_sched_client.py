"""Tell kfdmp-sched when a latency-critical service has work pending.

Standard library only, Python 3.6+. The daemon (tests/harness/sched,
docs/tenant-control.md) suspends the best-effort tenants while a critical
tenant is busy and resumes them when it is idle. A service marks each query:

    from kfdmp_sched_client import critical

    with critical():          # "busy" when the first query starts,
        answer = model(x)     # "idle" when the last one ends

`critical()` is also a decorator. Queries may overlap (threads): only the
transitions outstanding 0 -> 1 ("busy") and 1 -> 0 ("idle") are sent, one
unix datagram each (a send waits at most 10 ms when the daemon's queue is
full, so no transition is lost to a burst), with the sender's CLOCK_MONOTONIC time in ns
("busy 123456789"), so the daemon's decision latency starts when the work
became pending. The kernel attaches the sender's pid, and the daemon believes
only processes selected with --critical (a pid, process group, cgroup or
container).

The socket is KFDMP_SCHED_SOCKET, else /run/kfdmp-sched.sock. Without a
daemon listening the service runs as before: the send fails silently
(Notifier.last_error says why) unless strict=True, which raises OSError.

From a shell:  python3 kfdmp_sched_client.py busy|idle [--socket PATH]
"""
import contextlib
import errno
import os
import socket
import struct
import sys
import threading
import time

DEFAULT_SOCKET = "/run/kfdmp-sched.sock"

__all__ = ["Notifier", "critical", "default_socket", "DEFAULT_SOCKET"]


def default_socket():
    return os.environ.get("KFDMP_SCHED_SOCKET") or DEFAULT_SOCKET


def _now_ns():
    return int(time.clock_gettime(time.CLOCK_MONOTONIC) * 1e9)


class Notifier(object):
    """Counts outstanding critical work and sends busy/idle on 0 <-> 1."""

    def __init__(self, path=None, strict=False):
        self.path = path or default_socket()
        self.strict = strict
        self.last_error = None  # the errno of the last failed send, or None
        self.sent = 0
        self._outstanding = 0
        self._lock = threading.Lock()
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        # Blocking, but for at most 10 ms: a transition must not be lost
        # when the daemon's queue is momentarily full (EAGAIN), and a
        # missing daemon fails at once (ENOENT, ECONNREFUSED).
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, struct.pack("ll", 0, 10000))

    def close(self):
        self._sock.close()

    def send(self, word):
        """Sends "busy" or "idle" now, stamped; returns 0 or an errno."""
        if word not in ("busy", "idle"):
            raise ValueError("kfdmp_sched_client: %r is neither busy nor idle" % (word,))
        msg = ("%s %d" % (word, _now_ns())).encode("ascii")
        try:
            self._sock.sendto(msg, self.path)
        except OSError as e:
            self.last_error = e.errno
            if self.strict:
                raise
            return e.errno or errno.EIO
        self.last_error = None
        self.sent += 1
        return 0

    def begin(self):
        with self._lock:
            self._outstanding += 1
            if self._outstanding == 1:
                self.send("busy")

    def end(self):
        with self._lock:
            if self._outstanding == 0:
                raise RuntimeError("kfdmp_sched_client: end() without begin()")
            self._outstanding -= 1
            if self._outstanding == 0:
                self.send("idle")

    @property
    def outstanding(self):
        return self._outstanding

    @contextlib.contextmanager
    def critical(self):
        self.begin()
        try:
            yield self
        finally:
            self.end()


_notifiers = {}
_notifiers_lock = threading.Lock()


def _notifier(path):
    """One Notifier per socket path for the whole process (shared count)."""
    path = path or default_socket()
    with _notifiers_lock:
        if path not in _notifiers:
            _notifiers[path] = Notifier(path)
        return _notifiers[path]


class critical(contextlib.ContextDecorator):
    """with critical(): ...  or  @critical(): the process-wide Notifier of
    the socket (path, else KFDMP_SCHED_SOCKET, else the default), or the
    notifier given."""

    def __init__(self, path=None, notifier=None):
        self.notifier = notifier or _notifier(path)

    def __enter__(self):
        self.notifier.begin()
        return self.notifier

    def __exit__(self, *exc):
        self.notifier.end()
        return False


def main(argv):
    import argparse
    ap = argparse.ArgumentParser(description="send busy or idle to kfdmp-sched")
    ap.add_argument("word", choices=("busy", "idle"))
    ap.add_argument("--socket", default=None, help="default: KFDMP_SCHED_SOCKET or " + DEFAULT_SOCKET)
    args = ap.parse_args(argv)
    n = Notifier(args.socket)
    err = n.send(args.word)
    if err:
        sys.stderr.write("kfdmp_sched_client: %s: %s\n" % (n.path, os.strerror(err)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
