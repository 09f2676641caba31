#!/usr/bin/env python3
"""An exec worker for the bridge's pipelining tests (protocol 1,
docs/exec-workers.md, `pipeline=1`), stdlib only, no GPU. It reads stdin
with os.read, so it knows what the launcher has sent and it has not yet
read. Usage: pipe_worker.py --log PATH MODE SLEEP_MS [KEY=VALUE...]

  ahead        needs `pipeline=1` in hello (else `kfdmp 1 error`), answers
               `ready pipeline=1`; from query 2 on, before it writes `done k`
               the next line (`query k+1`, or `stop` after the last one) must
               be in its stdin within 5 s, else it answers `fail k query k+1
               was not sent ahead` and exits 3
  never-ahead  after each query's sleep, nothing may be waiting in its stdin
               (the old rule: the next query comes after `done`), else
               `fail k query k+1 arrived before done k`
  options:
    announce=1   never-ahead: answer `ready pipeline=1` even unasked
    extra=done|fail|wrong|none   ahead: how the query found followed by
                 `stop` (the one sent ahead of the last) is answered: `done
                 k` (default), `fail k ...`, `done k+5`, or not at all
    wrong-at=N   ahead: answer query N with `done N+1`

PATH.INDEX gets the hello line, then `answered k` per query, `extra k` for
the query followed by `stop`, and `stop` or `eof` at the end.
"""
import os
import select
import sys
import time


class Reader(object):
    def __init__(self):
        self.buf = b""
        self.eof = False

    def fill(self, timeout):
        """Reads what is there within `timeout` s; False when nothing came."""
        if self.eof:
            return False
        r, _, _ = select.select([0], [], [], timeout)
        if not r:
            return False
        chunk = os.read(0, 65536)
        if not chunk:
            self.eof = True
            return False
        self.buf += chunk
        return True

    def has_line(self):
        return b"\n" in self.buf

    def wait_line(self, timeout):
        deadline = time.time() + timeout
        while not self.has_line() and not self.eof:
            left = deadline - time.time()
            if left <= 0:
                break
            self.fill(left)
        return self.has_line()

    def readline(self):
        while not self.has_line() and not self.eof:
            self.fill(3600)
        if not self.buf:
            return None
        line, _, self.buf = self.buf.partition(b"\n")
        return line.decode()

    def peek(self):
        return self.buf.partition(b"\n")[0].decode()


def main():
    argv = sys.argv[1:]
    log = None
    if argv[:1] == ["--log"]:
        log, argv = argv[1], argv[2:]
    mode, sleep_s = argv[0], float(argv[1]) / 1000.0
    opts = dict(a.split("=", 1) for a in argv[2:])
    rd = Reader()
    hello = rd.readline()
    while True:
        line = rd.readline()
        if line is None or line == "config end":
            break
    index = "x"
    for f in (hello or "").split()[3:]:
        if f.startswith("index="):
            index = f[6:]
    logf = open("%s.%s" % (log, index), "w") if log else open(os.devnull, "w")
    logf.write("%s\n" % hello)
    logf.flush()
    offered = "pipeline=1" in (hello or "").split()

    def send(text):
        os.write(1, (text + "\n").encode())

    if mode == "ahead" and not offered:
        send("kfdmp 1 error pipeline=1 was not offered: %s" % hello)
        return 0
    announce = mode == "ahead" or opts.get("announce") == "1"
    send("kfdmp 1 ready device=pipe-worker%s" % (" pipeline=1" if announce else ""))
    extra = opts.get("extra", "done")
    wrong_at = int(opts.get("wrong-at", "0"))
    while True:
        line = rd.readline()
        if line is None:
            logf.write("eof\n")
            return 0
        if line == "stop":
            logf.write("stop\n")
            return 0
        seq = int(line.split()[1])
        if sleep_s:
            time.sleep(sleep_s)
        if mode == "never-ahead":
            rd.fill(0)
            if rd.buf:
                send("fail %d query %d arrived before done %d: %r" % (seq, seq + 1, seq, rd.buf))
                logf.write("early %d\n" % seq)
                return 3
        elif seq >= 2:
            if not rd.wait_line(5.0):
                send("fail %d query %d was not sent ahead (nothing in stdin within 5 s)" % (seq, seq + 1))
                logf.write("not-ahead %d\n" % seq)
                return 3
            if rd.peek() == "stop":
                logf.write("extra %d\n" % seq)
                logf.flush()
                if extra == "fail":
                    send("fail %d the extra query broke" % seq)
                elif extra == "wrong":
                    send("done %d" % (seq + 5))
                elif extra == "done":
                    send("done %d" % seq)
                continue
        if seq == wrong_at:
            send("done %d" % (seq + 1))
            continue
        send("done %d" % seq)
        logf.write("answered %d\n" % seq)
        logf.flush()


if __name__ == "__main__":
    sys.exit(main())
