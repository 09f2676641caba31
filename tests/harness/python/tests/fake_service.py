"""A service for the kfdmp_worker tests: no GPU, no torch (a fake torch can
be put on PYTHONPATH). Options:
  --sleep-ms X       each query sleeps X ms
  --fail-at SEQ      query number SEQ (counting from 1) raises
  --print            print() and os.write(1, ...) in setup and in every query
  --state FILE       setup writes what it saw (JSON) to FILE
  --supports LIST    serve(..., supports=LIST.split(','))
  --import-torch     import torch before serve() (as a real service does)
  --setup-raises unsupported|error   setup raises Unsupported / RuntimeError
"""
import argparse
import json
import os
import sys
import time

# kfdmp_worker from the directory above, also where PYTHONPATH does not
# arrive (a `docker exec` stand-in that empties the environment)
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

ap = argparse.ArgumentParser()
ap.add_argument("--sleep-ms", type=float, default=0.0)
ap.add_argument("--fail-at", type=int, default=0)
ap.add_argument("--print", action="store_true")
ap.add_argument("--state")
ap.add_argument("--supports", default="")
ap.add_argument("--import-torch", action="store_true")
ap.add_argument("--setup-raises", choices=("unsupported", "error"))
args = ap.parse_args()

if args.import_torch:
    import torch  # noqa: F401  (the fake one from the tests' PYTHONPATH)

import kfdmp_worker  # noqa: E402

counter = {"n": 0}


def setup(cfg):
    if args.print:
        print("setup: a print of the service")
        os.write(1, b"setup: a native write to fd 1\n")
    if args.setup_raises == "unsupported":
        raise kfdmp_worker.Unsupported("graph", "the fake service says no")
    if args.setup_raises == "error":
        raise RuntimeError("the fake service cannot start")
    if args.state:
        torch = sys.modules.get("torch")
        state = {
            "pid": os.getpid(),
            "index": cfg.index,
            "workers": cfg.workers,
            "env": cfg.env,
            "environ": dict((k, os.environ.get(k)) for k in cfg.env),
            "omp": os.environ.get("OMP_NUM_THREADS"),
            "options": cfg.options,
            "threads": cfg.threads,
            "cpus": cfg.cpus,
            "affinity": sorted(os.sched_getaffinity(0)),
            "graph": cfg.graph,
            "config_var_left": os.environ.get(kfdmp_worker.CONFIG_VAR),
            "torch_threads": getattr(torch, "threads_set", None) if torch else None,
            "standalone": cfg.standalone,
        }
        with open(args.state, "w") as f:
            json.dump(state, f)
    return counter


def query(state):
    state["n"] += 1
    if args.print:
        print("query %d: a print of the service" % state["n"])
        sys.stdout.flush()
        os.write(1, b"query: a native write to fd 1\n")
    if args.fail_at and state["n"] == args.fail_at:
        raise ValueError("query %d broke on purpose\nsecond line" % state["n"])
    if args.sleep_ms:
        time.sleep(args.sleep_ms / 1e3)


kfdmp_worker.serve(query, setup, supports=tuple(s for s in args.supports.split(",") if s))
