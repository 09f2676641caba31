#!/usr/bin/env bash
# Issue 12, run 4 on the lent H200 (device `run` tool), from the repository
# root: run4.sh OUT. Build, the SASS of both FMA kernels, the agreement mode
# of scripts/run-scaling.sh (3 interleaved rounds, 2 s windows), the
# stamping overhead at the reference shape, and the operand forms of four
# alternative kernels (scratch/fma_variants.cu). Everything goes to
# OUT/run4.tar.gz (run4-agreement/), even when a step fails.
set -uo pipefail
out=$1
res=/tmp/run4-agreement
mkdir -p "$res" "$out"
trap 'tar -czf "$out/run4.tar.gz" -C /tmp run4-agreement' EXIT
exec > >(tee "$res/console.log") 2>&1
b=build/cuda
here=tests/harness/results/h200/issue12
step() { echo "=== $(date -u +%T) $*"; }
dis() { cuobjdump -sass "$@" 2>/dev/null || /usr/local/cuda/bin/cuobjdump -sass "$@"; }

step build
scripts/run-scaling.sh build "$b" -DKFDMP_GPU=cuda -DCMAKE_BUILD_TYPE=Release > "$res/build.log" 2>&1 ||
	{ tail -40 "$res/build.log"; exit 1; }
nvidia-smi > "$res/nvidia-smi.txt" 2>&1
nvidia-smi -q -d CLOCK > "$res/clocks.txt" 2>&1

step sass
dis "$b/kfdmp-reference" > "$res/sass-reference.txt"
dis "$b/kfdmp-worker" > "$res/sass-worker.txt"
for f in reference worker; do
	echo "--- $f: fma_chain functions and their first FFMAs"
	awk '/Function :/ {fn=$0; n=0} /Function : .*fma_chain/ {print fn} fn ~ /fma_chain/ && /FFMA/ && n++ < 4 {print}' \
		"$res/sass-$f.txt"
done

step agreement
KFDMP_REPEAT=3 KFDMP_DURATION=2 scripts/run-scaling.sh agreement "$b" "$res/agreement"

step stamping overhead at the reference shape
for i in 1 2; do
	for k in 0 10; do
		"$b/kfdmp" --workload saturate --blocks 4224 --iters 2000 --procs 1 --duration 2 --warmup 0.5 --stamp-every "$k" \
			--out "$res/overhead/stamp$k-r$i" | sed -n 2p | sed "s/^/saturate stamp-every=$k: /" | tee -a "$res/overhead.txt"
	done
done

step variants
/usr/local/cuda/bin/nvcc -O2 -arch=sm_90 "$here/scratch/fma_variants.cu" -o /tmp/fma_variants &&
	dis /tmp/fma_variants > "$res/sass-variants.txt" &&
	awk '/Function :/ {fn=$0; n=0; print} /FFMA/ && n++ < 3 {print}' "$res/sass-variants.txt" &&
	/tmp/fma_variants | tee "$res/variants.txt"

step summary
python3 - "$res/agreement" <<'PY' | tee "$res/summary.txt"
import re, sys, statistics as st
d = sys.argv[1]
def qps(f, pat):
    r = {}
    for l in open(f):
        m = re.search(pat, l)
        if m: r.setdefault((m.group(1), m.group(2)), []).append(float(m.group(3)))
    return r
ref = qps(d + "/reference.txt", r"blocks=(\d+) threads=\d+ iters=(\d+) .*qps=([\d.]+)")
bare = {}
for l in open(d + "/bare.txt"):
    m = re.search(r"qps=([\d.]+).* (\d+)x\d+ threads x (\d+) FMA", l)
    if m: bare.setdefault((m.group(2), m.group(3)), []).append(float(m.group(1)))
har = {}
for l in open(d + "/harness.txt"):
    m = re.search(r"blocks=(\d+) iters=(\d+):\s+\S+\s+\S+\s+\S+\s+([\d.]+)", l)
    if m: har.setdefault((m.group(1), m.group(2)), []).append(float(m.group(3)))
print("| shape | kfdmp-reference | kfdmp-bare | kfdmp (harness) | harness / reference |")
print("|---|---|---|---|---|")
for k in [("4224", "2000"), ("4", "20000")]:
    r, b, h = (st.mean(x.get(k, [0])) for x in (ref, bare, har))
    print(f"| 8 x {k[0]} x 256 x {k[1]} | {r:.1f} | {b:.1f} | {h:.1f} | {h / r if r else 0:.3f} |",
          " runs:", ref.get(k), bare.get(k), har.get(k))
PY
step finished
