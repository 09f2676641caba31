#!/usr/bin/env python3
"""An exec worker for the harness's tests (protocol 1, docs/exec-workers.md),
stdlib only, no GPU. Usage: py_worker.py [--log PATH] MODE [ARG]; MODE:

  ok            answers every query after SLEEP_MS (argv[2], default 0.2 ms)
                with gpu_ns = half the sleep
  (every mode writes the lines it got before `config end`, and its own
  environment's arm variables, to PATH.INDEX, PATH from --log or
  $KFDMP_TEST_LOG)
  die-at N      exits 5 at query N
  hang-at N     stops answering at query N (sleeps)
  garbage-at N  prints a non-protocol line at query N
  no-ready      never answers `ready` (sleeps)
  garbage-init  prints a log line on stdout instead of `ready`
  unsupported   answers `kfdmp 1 unsupported graph=1 ...` when it got option graph=1, else ok
  error         answers `kfdmp 1 error ...`
  no-gpu-time   ok, but `ready` without gpu_time=1
  bad-version   answers `kfdmp 2 ready`
  fail-at N     answers `fail N ...` at query N
  no-gpu-ns     `ready gpu_time=1`, then `done` lines without gpu_ns
"""
import os
import sys
import time


def main():
    argv = sys.argv[1:]
    log = os.environ.get("KFDMP_TEST_LOG")
    if argv[:1] == ["--log"]:
        log = argv[1]
        argv = argv[2:]
    mode = argv[0] if argv else "ok"
    arg = argv[1] if len(argv) > 1 else None
    out = sys.stdout
    got = []
    index = "x"
    for line in sys.stdin:
        line = line.rstrip("\n")
        got.append(line)
        if line.startswith("kfdmp 1 hello"):
            for f in line.split()[3:]:
                if f.startswith("index="):
                    index = f[6:]
        if line == "config end":
            break
    if log:
        with open("%s.%s" % (log, index), "w") as f:
            f.write("\n".join(got) + "\n")
            f.write("environ OMP_NUM_THREADS=%s HSA_CU_MASK=%s GPU_MAX_HW_QUEUES=%s\n" % (
                os.environ.get("OMP_NUM_THREADS", ""), os.environ.get("HSA_CU_MASK", ""),
                os.environ.get("GPU_MAX_HW_QUEUES", "")))
    if mode == "no-ready":
        time.sleep(3600)
    if mode == "garbage-init":
        out.write("Loading model weights...\n")
        out.flush()
        time.sleep(3600)
    if mode == "error":
        out.write("kfdmp 1 error cannot load the model\n")
        out.flush()
        return 0
    if mode == "unsupported" and "option graph=1" in got:
        out.write("kfdmp 1 unsupported graph=1 this service cannot capture graphs\n")
        out.flush()
        return 0
    if mode == "bad-version":
        out.write("kfdmp 2 ready\n")
        out.flush()
        return 0
    gpu = mode != "no-gpu-time"
    out.write("kfdmp 1 ready device=py-worker%s\n" % (" gpu_time=1" if gpu else ""))
    out.flush()
    sleep_s = (float(arg) if mode == "ok" and arg else 0.2) / 1000.0
    at = int(arg) if arg and mode.endswith("-at") else 0
    for line in sys.stdin:
        f = line.split()
        if not f:
            continue
        if f[0] == "stop":
            return 0
        seq = int(f[1])
        if seq == at and mode == "die-at":
            return 5
        if seq == at and mode == "hang-at":
            time.sleep(3600)
        if seq == at and mode == "garbage-at":
            out.write("tensor([1., 2.])\n")
            out.flush()
            continue
        if seq == at and mode == "fail-at":
            out.write("fail %d out of memory\n" % seq)
            out.flush()
            continue
        if sleep_s > 0:
            time.sleep(sleep_s)
        out.write("done %d%s\n" % (seq, " gpu_ns=%d" % int(sleep_s * 5e8) if gpu and mode != "no-gpu-ns" else ""))
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
