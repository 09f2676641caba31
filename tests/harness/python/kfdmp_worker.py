"""kfdmp_worker: make a Python service a process of a kfdmp sweep.

    import kfdmp_worker

    def setup(cfg):            # once, after the arm's env and options are in force
        model = build_model()
        return model            # handed to every query

    def query(model):          # one query; an exception fails it
        model(batch)

    kfdmp_worker.serve(query, setup, supports=("graph",))

`kfdmp --exec 'python3 service.py'` then runs the script as each process of
the sweep; it speaks version 1 of the line protocol of docs/exec-workers.md
on the process's real stdout (fd 1) and reads the launcher's lines on stdin.
The service's own prints go to stderr: `sys.stdout` is moved there, and so is
fd 1 itself, so a native library's printf cannot break the protocol.

Standalone (no launcher), the same loop for a direct comparison:

    python3 -m kfdmp_worker --standalone --duration 4 --warmup 2 [--rate R] \\
        [--threads N] [--cpus LIST] [--graph] [--env K=V]... [--json FILE] \\
        -- service.py ARGS...

Standard library only; Python 3.6 to 3.12. The full contract (setup's
argument, the re-execution for env lines, GPU timing, the standalone output):
docs/exec-workers.md, "The Python helper".
"""
import io
import json
import math
import os
import random
import sys
import time

PROTOCOL_VERSION = 1
# The config lines already read (hello .. config end, and whatever of stdin
# was read past them) travel to the re-executed interpreter in this variable,
# so stdin is never read twice.
CONFIG_VAR = "KFDMP_WORKER_CONFIG"
REEXEC_VAR = "KFDMP_WORKER_REEXEC"
# Standalone mode: a JSON object (duration, warmup, rate, options, json).
STANDALONE_VAR = "KFDMP_WORKER_STANDALONE"
OPTIONS = ("threads", "cpus", "graph")

__all__ = ["serve", "Config", "Unsupported", "parse_cpu_list", "PROTOCOL_VERSION"]


class Unsupported(Exception):
    """Raise from setup() when the service cannot apply an env or option KEY:
    the launcher skips the arm with the reason (status unavailable)."""

    def __init__(self, key, reason):
        Exception.__init__(self, "%s %s" % (key, reason))
        self.key = key
        self.reason = reason


class ProtocolError(Exception):
    pass


class Config(object):
    """What the launcher sent, given to setup(cfg).

    index, workers  this process is `index` (0-based) of `workers`
    env             dict of the `env KEY=VALUE` lines (already in os.environ)
    options         dict of the `option KEY=VALUE` lines, values as text
    threads         int from `option threads=N`, or None (the default)
    cpus            sorted list of CPUs from `option cpus=LIST`, or None
    graph           True for `option graph=1` (only when supports has 'graph')
    standalone      True when run by `python3 -m kfdmp_worker --standalone`
    device          setup may set it (text; spaces become '_') for `ready`;
                    by default the torch GPU's name when GPU timing is on
    gpu_time        None (default: on when torch is imported after setup and
                    torch.cuda.is_available()), or setup sets True/False
    """

    def __init__(self):
        self.index = 0
        self.workers = 1
        self.env = {}
        self.options = {}
        self.threads = None
        self.cpus = None
        self.graph = False
        self.standalone = False
        self.device = None
        self.gpu_time = None

    def __repr__(self):
        return "Config(index=%d, workers=%d, env=%r, options=%r)" % (
            self.index, self.workers, self.env, self.options)


def _one_line(text):
    text = " ".join(str(text).split())
    return text if text else "(no message)"


def parse_cpu_list(text):
    """sysfs list syntax ("0-3,8,10-11") -> sorted list of ints; ValueError."""
    cpus = set()
    if not text.strip():
        raise ValueError("empty CPU list")
    for part in text.strip().split(","):
        part = part.strip()
        if "-" in part:
            lo, hi = part.split("-", 1)
            lo, hi = int(lo), int(hi)
            if lo < 0 or hi < lo:
                raise ValueError("bad CPU range %r" % part)
            cpus.update(range(lo, hi + 1))
        else:
            if not part.isdigit():
                raise ValueError("bad CPU %r" % part)
            cpus.add(int(part))
    return sorted(cpus)


class _LineReader(object):
    """Lines from fd 0 through os.read, so that what was read and not yet
    used is known (and handed on at a re-exec)."""

    def __init__(self, fd, initial=b""):
        self.fd = fd
        self.buf = initial
        self.consumed = []  # raw lines read while `recording` (the config part)
        self.recording = True
        self.eof = False

    def readline(self):
        while b"\n" not in self.buf:
            if self.eof:
                break
            chunk = os.read(self.fd, 65536)
            if not chunk:
                self.eof = True
                break
            self.buf += chunk
        if not self.buf:
            return None
        if b"\n" in self.buf:
            line, self.buf = self.buf.split(b"\n", 1)
        else:
            line, self.buf = self.buf, b""
        if self.recording:
            self.consumed.append(line)
        return line.decode("utf-8", "replace").rstrip("\r")


class _Proto(object):
    """The protocol's output: the real stdout, saved before fd 1 is moved."""

    def __init__(self, fd):
        self.fd = fd

    def send(self, line):
        data = (line + "\n").encode("utf-8")
        while data:
            n = os.write(self.fd, data)
            data = data[n:]


def _take_stdout():
    """Keeps the real stdout for the protocol and points fd 1 and sys.stdout
    at stderr. Returns the protocol's fd."""
    try:
        sys.stdout.flush()
    except Exception:
        pass
    proto_fd = os.dup(1)  # not inherited by children (PEP 446)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return proto_fd


def _reexec_argv():
    """The command line that starts this interpreter again the same way, or
    (None, why)."""
    exe = sys.executable
    if not exe or not os.access(exe, os.X_OK):
        return None, "sys.executable is unknown"
    orig = getattr(sys, "orig_argv", None)  # 3.10+: interpreter options included
    if orig:
        return [exe] + list(orig[1:]), None
    argv = list(sys.argv)
    if not argv or argv[0] in ("", "-c"):
        return None, "the interpreter was not started from a script (python -c or stdin)"
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    flags = []
    if sys.flags.optimize:
        flags.append("-" + "O" * sys.flags.optimize)
    if sys.flags.dont_write_bytecode:
        flags.append("-B")
    if sys.flags.no_user_site:
        flags.append("-s")
    if sys.flags.ignore_environment:
        flags.append("-E")
    if spec is not None and getattr(spec, "name", None):
        return [exe] + flags + ["-m", spec.name] + argv[1:], None
    return [exe] + flags + argv, None


def _apply_affinity(cpus):
    """All threads of the process (a thread started before keeps its mask
    otherwise). Raises OSError."""
    os.sched_setaffinity(0, cpus)
    try:
        tids = os.listdir("/proc/self/task")
    except OSError:
        tids = []
    for tid in tids:
        try:
            os.sched_setaffinity(int(tid), cpus)
        except (OSError, ValueError):
            pass  # a thread that ended meanwhile


def _torch():
    return sys.modules.get("torch")


class _Session(object):
    def __init__(self, query_fn, setup, supports, proto, reader):
        self.query_fn = query_fn
        self.setup = setup
        self.supports = frozenset(supports or ())
        self.proto = proto
        self.reader = reader
        self.cfg = Config()
        self.timer = None
        self.state = None
        # `hello ... pipeline=1`: answered `ready ... pipeline=1`. Nothing else
        # changes: lines are read in order, so a query sent ahead waits in
        # stdin until the `done` before it is written (unbuffered, os.write).
        self.pipeline = False

    # --- configuration --------------------------------------------------------
    def read_config(self):
        """hello, env, option, config end. Returns False on EOF before hello."""
        line = self.reader.readline()
        if line is None:
            return False
        f = line.split()
        if len(f) < 3 or f[0] != "kfdmp" or f[2] != "hello":
            raise ProtocolError("expected `kfdmp 1 hello ...` first, got %r" % line)
        if f[1] != str(PROTOCOL_VERSION):
            raise ProtocolError("protocol version %s not supported (this helper speaks %d)"
                                % (f[1], PROTOCOL_VERSION))
        for field in f[3:]:  # fields it does not know are ignored (the protocol's rule)
            k, _, v = field.partition("=")
            if field == "pipeline=1":
                self.pipeline = True  # the launcher may send the next query ahead: answered in `ready`
            if k in ("index", "workers"):
                try:
                    setattr(self.cfg, k, int(v))
                except ValueError:
                    raise ProtocolError("hello: %s=%r is not an integer" % (k, v))
        while True:
            line = self.reader.readline()
            if line is None:
                raise EOFError("stdin closed before `config end`")
            f = line.split(None, 1)
            if not f:
                raise ProtocolError("empty line in the configuration")
            if f[0] == "config" and len(f) == 2 and f[1].strip() == "end":
                return True
            if f[0] in ("env", "option") and len(f) == 2 and "=" in f[1]:
                k, _, v = f[1].strip().partition("=")
                if not k:
                    raise ProtocolError("%s line without a key: %r" % (f[0], line))
                (self.cfg.env if f[0] == "env" else self.cfg.options)[k] = v
                continue
            raise ProtocolError("unexpected line in the configuration: %r" % line)

    def env_in_force(self):
        """None when every env line is in os.environ; else (key, why) when it
        cannot be made so. Re-executes the interpreter (does not return) when
        that makes it so."""
        missing = [k for k, v in sorted(self.cfg.env.items()) if os.environ.get(k) != v]
        if not missing:
            return None
        if os.environ.get(REEXEC_VAR):
            return (missing[0], "still differs after re-executing the interpreter with it "
                    "(something in the command resets it)")
        argv, why = _reexec_argv()
        if argv is None:
            return (missing[0], "cannot re-execute the interpreter to set it before the GPU "
                    "runtime starts: " + why)
        env = dict(os.environ)
        env.update(self.cfg.env)
        env[REEXEC_VAR] = "1"
        raw = b"\n".join(self.reader.consumed) + b"\n" + self.reader.buf
        env[CONFIG_VAR] = raw.decode("utf-8", "replace")
        try:
            sys.stderr.flush()
        except Exception:
            pass
        os.dup2(self.proto.fd, 1)  # the new interpreter finds the protocol on fd 1
        try:
            os.execve(argv[0], argv, env)
        except OSError as e:
            os.dup2(2, 1)
            return (missing[0], "re-executing %s failed: %s" % (argv[0], e))

    def apply_options(self):
        """Raises Unsupported or ValueError (a bad value)."""
        opts = self.cfg.options
        for key in sorted(opts):
            if key not in OPTIONS:
                raise Unsupported(key, "unknown option (this helper knows %s)" % ", ".join(OPTIONS))
        if "threads" in opts:
            try:
                n = int(opts["threads"])
            except ValueError:
                n = 0
            if n < 1:
                raise ValueError("option threads=%s: not a positive integer" % opts["threads"])
            self.cfg.threads = n
            os.environ["OMP_NUM_THREADS"] = str(n)  # for children; the env line sets our own
        if "cpus" in opts:
            try:
                cpus = parse_cpu_list(opts["cpus"])
            except ValueError as e:
                raise ValueError("option cpus=%s: %s" % (opts["cpus"], e))
            try:
                _apply_affinity(cpus)
            except (OSError, AttributeError) as e:
                raise Unsupported("cpus", "sched_setaffinity(%s) failed: %s" % (opts["cpus"], e))
            self.cfg.cpus = cpus
        if "graph" in opts:
            if opts["graph"] not in ("0", "1"):
                raise ValueError("option graph=%s: not 0 or 1" % opts["graph"])
            if opts["graph"] == "1":
                if "graph" not in self.supports:
                    raise Unsupported("graph", "this service cannot replay its query as a captured "
                                      "graph (serve(..., supports=('graph',)) not given)")
                self.cfg.graph = True

    def apply_threads_to_torch(self):
        torch = _torch()
        if torch is not None and self.cfg.threads:
            torch.set_num_threads(self.cfg.threads)

    def start_timer(self):
        """GPU timing: torch.cuda.Event pairs on the current stream (ROCm and
        CUDA builds). Sets cfg.device and cfg.gpu_time."""
        torch = _torch()
        want = self.cfg.gpu_time
        if want is None:
            want = bool(torch is not None and torch.cuda.is_available())
        if want:
            if torch is None or not torch.cuda.is_available():
                raise RuntimeError("gpu_time requested but torch.cuda is not available")
            self.timer = _EventTimer(torch)
            if self.cfg.device is None:
                self.cfg.device = torch.cuda.get_device_name(torch.cuda.current_device())
        self.cfg.gpu_time = bool(want)

    def initialise(self):
        """Returns the ready/unsupported/error line."""
        try:
            self.apply_options()
        except Unsupported as e:
            return "kfdmp 1 unsupported %s %s" % (e.key, _one_line(e.reason))
        except ValueError as e:
            return "kfdmp 1 error " + _one_line(e)
        try:
            self.apply_threads_to_torch()  # torch imported before serve()
            if self.setup is not None:
                self.state = self.setup(self.cfg)
            self.apply_threads_to_torch()  # or by setup
            self.start_timer()
        except Unsupported as e:
            return "kfdmp 1 unsupported %s %s" % (e.key, _one_line(e.reason))
        except Exception as e:
            return "kfdmp 1 error setup failed: %s: %s" % (type(e).__name__, _one_line(e))
        line = "kfdmp 1 ready"
        if self.cfg.device:
            line += " device=" + "_".join(str(self.cfg.device).split())
        if self.timer is not None:
            line += " gpu_time=1"
        if self.pipeline:
            line += " pipeline=1"
        return line

    # --- queries --------------------------------------------------------------
    def run_query(self):
        """Runs one query; returns its GPU ns (None without timing). Raises
        what the query raises."""
        if self.timer is None:
            self.query_fn(self.state)
            return None
        self.timer.begin()
        self.query_fn(self.state)
        return self.timer.end()


class _EventTimer(object):
    def __init__(self, torch):
        self.torch = torch
        self.start = torch.cuda.Event(enable_timing=True)
        self.stop = torch.cuda.Event(enable_timing=True)

    def begin(self):
        self.start.record()

    def end(self):
        """Waits for the query's work (the end event) and returns its span."""
        self.stop.record()
        self.stop.synchronize()
        return int(round(self.start.elapsed_time(self.stop) * 1e6))


def _read_standalone():
    text = os.environ.pop(STANDALONE_VAR, None)
    if text is None:
        return None
    try:
        sa = json.loads(text)
        if not isinstance(sa, dict):
            raise ValueError("not an object")
    except ValueError as e:
        sys.stderr.write("kfdmp_worker: %s is not a JSON object: %s\n" % (STANDALONE_VAR, e))
        sys.exit(2)
    return sa


def serve(query_fn, setup=None, supports=()):
    """Serves queries for kfdmp (or runs the standalone loop); never returns:
    exits 0 on `stop` or end of stdin, 2 on a protocol error, 1 when the
    launcher's pipe breaks.

    setup(cfg):     optional; called once with a Config after the env lines are
                    in force and the options applied; its return value is
                    passed to every query_fn call. Raise Unsupported(KEY, why)
                    for an option or env it cannot honour.
    query_fn(state): one query. With GPU timing the helper records a
                    torch.cuda.Event before and after it on the current
                    stream and waits for the second, so the query ends when
                    its GPU work has; without, query_fn must wait itself.
    supports:       options the service implements itself: ('graph',) lets
                    `option graph=1` through as cfg.graph (otherwise it is
                    answered `unsupported graph ...`).
    """
    standalone = _read_standalone()
    initial = os.environ.pop(CONFIG_VAR, None)
    if standalone is not None:
        code = _standalone(query_fn, setup, supports, standalone)
        sys.exit(code)
    proto = _Proto(_take_stdout())
    reader = _LineReader(0, initial.encode("utf-8") if initial is not None else b"")
    sess = _Session(query_fn, setup, supports, proto, reader)
    try:
        try:
            if not sess.read_config():
                sys.exit(0)  # EOF before hello: nothing asked
        except ProtocolError as e:
            proto.send("kfdmp 1 error " + _one_line(e))
            sys.exit(2)
        except EOFError:
            sys.exit(0)
        bad = sess.env_in_force()
        if bad is not None:
            proto.send("kfdmp 1 unsupported %s %s" % (bad[0], _one_line(bad[1])))
            sys.exit(0)
        os.environ.pop(REEXEC_VAR, None)
        reader.recording = False  # queries are not kept
        ready = sess.initialise()
        proto.send(ready)
        if ready.startswith("kfdmp 1 unsupported"):
            sys.exit(0)  # the arm is skipped; nothing more to do
        if not ready.startswith("kfdmp 1 ready"):
            sys.exit(1)
        while True:
            line = reader.readline()
            if line is None:
                break
            f = line.split()
            if f == ["stop"]:
                break
            if len(f) == 2 and f[0] == "query" and f[1].isdigit():
                seq = f[1]
                try:
                    gpu_ns = sess.run_query()
                except Exception as e:
                    proto.send("fail %s %s: %s" % (seq, type(e).__name__, _one_line(e)))
                    continue
                if gpu_ns is None:
                    proto.send("done " + seq)
                else:
                    proto.send("done %s gpu_ns=%d" % (seq, gpu_ns))
                continue
            proto.send("kfdmp 1 error unexpected line from the launcher: " + _one_line(line))
            sys.exit(2)
    except BrokenPipeError:
        os._exit(1)  # the launcher is gone; nothing left to tell
    sys.exit(0)


# --- standalone --------------------------------------------------------------
def _percentile(sorted_vals, q):
    if not sorted_vals:
        return float("nan")
    k = (len(sorted_vals) - 1) * q
    lo = int(math.floor(k))
    hi = min(lo + 1, len(sorted_vals) - 1)
    return sorted_vals[lo] + (sorted_vals[hi] - sorted_vals[lo]) * (k - lo)


def _standalone(query_fn, setup, supports, sa):
    """The launcher's loop in-process: one untimed query, warm-up, window;
    closed loop, or Poisson arrivals at `rate` with latency from the arrival
    and arrivals left at the window's end counted as unserved."""
    duration = float(sa.get("duration", 4))
    warmup = float(sa.get("warmup", 1))
    rate = float(sa.get("rate", 0) or 0)
    out = sa.get("json")
    sess = _Session(query_fn, setup, supports, None, None)
    sess.cfg.standalone = True
    sess.cfg.options = dict((str(k), str(v)) for k, v in (sa.get("options") or {}).items())
    sess.cfg.env = dict((str(k), str(v)) for k, v in (sa.get("env") or {}).items())
    ready = sess.initialise()
    print("kfdmp_worker standalone: " + ready)
    if not ready.startswith("kfdmp 1 ready"):
        return 77 if " unsupported " in ready else 1
    try:
        sess.run_query()  # first-use costs stay out of the window, as in kfdmp
    except Exception as e:
        print("kfdmp_worker standalone: the first query failed: %s: %s" % (type(e).__name__, e))
        return 1
    clock = time.perf_counter
    rng = random.Random(os.getpid())
    t_release = clock()
    measure_from = t_release + warmup
    end = measure_from + duration
    lat, gpu = [], []
    queries = completions = 0
    first_start = last_end = None
    next_arrival = clock()
    unserved = 0
    while True:
        t0 = clock()
        start = t0
        if rate > 0:
            if next_arrival >= end or t0 >= end:
                break
            if next_arrival > t0:
                time.sleep(next_arrival - t0)
            start = next_arrival
            next_arrival += rng.expovariate(rate)
        elif t0 >= end:
            break
        try:
            g = sess.run_query()
        except Exception as e:
            print("kfdmp_worker standalone: query failed: %s: %s" % (type(e).__name__, e))
            return 1
        t1 = clock()
        if measure_from <= t1 < end:
            completions += 1
        if start >= measure_from:
            queries += 1
            if first_start is None:
                first_start = start
            last_end = t1
            lat.append(t1 - start)
            if g is not None:
                gpu.append(g)
    if rate > 0:
        # arrivals inside the window that were never served
        t = next_arrival
        while t < end:
            if t >= measure_from:
                unserved += 1
            t += rng.expovariate(rate)
    if queries == 0:
        print("kfdmp_worker standalone: no query started inside the %.3f s window "
              "(a query takes longer than the window)" % duration)
        return 1
    span = (last_end - first_start) if queries > 1 else duration
    lat.sort()
    gpu.sort()
    res = {
        "mode": "open" if rate > 0 else "closed",
        "rate": rate,
        "duration_s": duration,
        "warmup_s": warmup,
        "queries": queries,
        # as kfdmp's per-worker span_qps (runs[].sum_of_worker_span_qps at N = 1)
        "qps": queries / duration if rate > 0 else queries / span,
        # as kfdmp's aggregate_qps: completions inside the window / window
        "qps_window": completions / duration,
        "span_s": span,
        "p50_ms": _percentile(lat, 0.5) * 1e3,
        "p99_ms": _percentile(lat, 0.99) * 1e3,
        "mean_ms": sum(lat) / len(lat) * 1e3,
        "unserved": unserved,
        "gpu_time": bool(gpu),
        "gpu_p50_ms": _percentile(gpu, 0.5) / 1e6 if gpu else None,
        "device": sess.cfg.device,
        "options": sess.cfg.options,
        "argv": sys.argv,
    }
    msg = ("kfdmp_worker standalone: queries=%d window_s=%.3f qps=%.2f qps_window=%.2f p50_ms=%.3f p99_ms=%.3f"
           % (queries, duration, res["qps"], res["qps_window"], res["p50_ms"], res["p99_ms"]))
    if rate > 0:
        msg += " rate=%g unserved=%d" % (rate, unserved)
    if gpu:
        msg += " gpu_p50_ms=%.3f" % res["gpu_p50_ms"]
    print(msg)
    if out:
        with io.open(out, "w", encoding="utf-8") as f:
            f.write(json.dumps(res, indent=1, sort_keys=True) + "\n")
    return 0


def _usage(msg):
    sys.stderr.write("kfdmp_worker: %s\nusage: python3 -m kfdmp_worker --standalone --duration S "
                     "--warmup S [--rate R] [--threads N] [--cpus LIST] [--graph] [--env K=V]... "
                     "[--json FILE] -- SCRIPT [ARGS...]\n" % msg)
    return 64


def main(argv):
    """`python3 -m kfdmp_worker --standalone ... -- SCRIPT ARGS`: runs SCRIPT
    (which calls serve()) with the standalone loop. `--python-path` prints the
    directory of this module."""
    if argv[:1] == ["--python-path"]:
        print(os.path.dirname(os.path.abspath(__file__)))
        return 0
    if "--" not in argv:
        return _usage("missing `-- SCRIPT`")
    cut = argv.index("--")
    opts, script = argv[:cut], argv[cut + 1:]
    if not script:
        return _usage("no SCRIPT after --")
    sa = {"duration": 4.0, "warmup": 1.0, "rate": 0.0, "options": {}, "env": {}}
    standalone = False
    i = 0
    value_opts = ("--duration", "--warmup", "--rate", "--threads", "--cpus", "--env", "--json")
    while i < len(opts):
        o = opts[i]
        if o == "--standalone":
            standalone = True
            i += 1
            continue
        if o == "--graph":
            sa["options"]["graph"] = "1"
            i += 1
            continue
        if o not in value_opts:
            return _usage("unknown option %s" % o)
        if i + 1 >= len(opts):
            return _usage("%s needs a value" % o)
        v = opts[i + 1]
        i += 2
        if o in ("--duration", "--warmup", "--rate"):
            try:
                x = float(v)
            except ValueError:
                x = -1.0
            if x < 0 or (o == "--duration" and x == 0) or x != x or x == float("inf"):
                return _usage("%s %s: not a %s number of %s" % (
                    o, v, "positive" if o == "--duration" else "non-negative",
                    "queries per second" if o == "--rate" else "seconds"))
            sa[o[2:]] = x
        elif o == "--threads":
            if not v.isdigit() or int(v) < 1:
                return _usage("--threads %s: not a positive integer" % v)
            sa["options"]["threads"] = v
            sa["env"]["OMP_NUM_THREADS"] = v
        elif o == "--cpus":
            try:
                parse_cpu_list(v)
            except ValueError as e:
                return _usage("--cpus %s: %s" % (v, e))
            sa["options"]["cpus"] = v
        elif o == "--env":
            k, eq, val = v.partition("=")
            if not k or not eq:
                return _usage("--env %s: not KEY=VALUE" % v)
            sa["env"][k] = val
        elif o == "--json":
            sa["json"] = os.path.abspath(v)
    if not standalone:
        return _usage("give --standalone (the launcher runs the service itself: kfdmp --exec)")
    env = dict(os.environ)
    env.update(sa["env"])
    env[STANDALONE_VAR] = json.dumps(sa)
    argv2 = [sys.executable] + script
    try:
        os.execve(sys.executable, argv2, env)
    except OSError as e:
        sys.stderr.write("kfdmp_worker: cannot run %s: %s\n" % (" ".join(argv2), e))
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
