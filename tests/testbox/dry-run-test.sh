#!/usr/bin/env bash
# CI test of `scripts/testbox.sh --dry-run` on a machine without an AMD GPU:
# it walks every step, runs the box checks and the parameter check for real,
# prints what it would load and run, and generates the report from the
# recorded sample (tests/testbox/sample). It must fail when the report
# generator fails, when a configuration has a value its parameter refuses,
# and on a bad selection. Phase 1 (the default, issue 24): the host arms of
# the matrix, no module operation, the driver arms listed as phase 2;
# phase 2 and --phase all: an insmod per arm, as before.
# ok and bad always succeed (tests/test-lib.sh): `cond && ok .. || bad ..` is an if-else.
# shellcheck disable=SC2015
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../test-lib.sh
. "$(dirname "$0")/../test-lib.sh"
tb=$root/scripts/testbox.sh
scratch dry-run-test

# --- phase 1, the default (issue 24) ----------------------------------------------------------
# Host arms: no amdgpu parameter, partition SPX or none (the rule of matrix.conf).
mapfile -t host < <(python3 "$root/scripts/report/kfdmp_params.py" list "$root/tests/testbox/matrix.conf" | awk -F'\t' '$2 == "" && ($5 == "SPX" || $5 == "-") { print $1 }')
mapfile -t all < <(python3 "$root/scripts/report/kfdmp_params.py" list "$root/tests/testbox/matrix.conf" | cut -f1)
if "$tb" --dry-run --out "$tmp/p1" >"$tmp/p1.log" 2>&1; then ok "the phase-1 dry run exits 0"; else cat "$tmp/p1.log"; bad "the phase-1 dry run failed"; fi
head -n 1 "$tmp/p1.log" | grep -q '^testbox: phase 1 (the host arms): on the driver already loaded, on GPU 0 only' &&
	ok "phase 1 says so first" || bad "phase 1: first line $(head -n 1 "$tmp/p1.log")"
! grep -qE 'would run: (rmmod|insmod|modprobe|make -C .* modules)' "$tmp/p1.log" && ok "phase 1: no rmmod, insmod, modprobe or module build" ||
	bad "phase 1: $(grep -E 'would run: (rmmod|insmod|modprobe|make)' "$tmp/p1.log" | head -3)"
n=$(grep -c '\[dry-run\] would run: .*/scripts/trace.sh record .* -- .*/kfdmp --workload .* --devices 0' "$tmp/p1.log" || true)
[ "$n" = $((2 * ${#host[@]})) ] && ok "phase 1: a kfdmp per host arm (${#host[@]}: ${host[*]}) and workload, on GPU 0 ($n)" || bad "phase 1: $n kfdmp lines for ${#host[@]} host arms"
n=$(grep -c ': skipped: phase 2 (driver arm: ' "$tmp/p1.log" || true)
[ "$n" = $((${#all[@]} - ${#host[@]})) ] && ok "phase 1: the $n driver arms are listed as phase 2" || bad "phase 1: $n arms listed as phase 2"
for a in threads1:'--cpu-threads 1' threads-auto:'--cpu-threads auto' pin-numa:'--pin numa' idle-queues:'--idle-procs 2' hwq4:'--hw-queues 4'; do
	grep -q -- "configs/${a%%:*}/latency --devices 0 ${a#*:}\$" "$tmp/p1.log" || bad "phase 1: arm ${a%%:*} without ${a#*:}"
done
grep -q '^hypothesis=noise_floor$' "$tmp/p1/configs/hwq4/arm.env" && grep -q '^hypothesis=idle_queues$' "$tmp/p1/configs/idle-queues/arm.env" &&
	grep -q '^phase=driver$' "$tmp/p1/configs/cpx/arm.env" && ok "the host arms run with their options; arm.env has hypothesis and phase" || bad "arm.env"
rc=0; "$tb" --dry-run --out "$tmp/wl" --gpu 3 --configs stock --no-trace --exec "docker exec -i svc python3 bench.py" >"$tmp/wl.log" 2>&1 || rc=$?
[ "$rc" = 0 ] && grep -q 'would run: .*/kfdmp --exec docker exec -i svc python3 bench.py --procs 1,2,4,8 .* --out .*/configs/stock/exec --devices 3$' "$tmp/wl.log" &&
	ok "--exec CMD --gpu 3: kfdmp --exec CMD --devices 3, workload exec" || { tail -n 20 "$tmp/wl.log"; bad "--exec: exit $rc"; }
rc=0; "$tb" --dry-run --out "$tmp/ref" --configs stock --no-trace --reference gpt2,mi300x-8.7ms --container svc >"$tmp/ref.log" 2>&1 || rc=$?
[ "$rc" = 0 ] && grep -q "would run: docker cp $root/tests/harness/python/kfdmp_reference.py svc:/tmp/kfdmp-testbox/" "$tmp/ref.log" &&
	grep -q 'would run: .*/kfdmp --exec docker exec -i svc python3 /tmp/kfdmp-testbox/kfdmp_reference.py --model gpt2 .*/configs/stock/gpt2 ' "$tmp/ref.log" &&
	grep -q 'would run: .*/kfdmp --exec docker exec -i svc python3 /tmp/kfdmp-testbox/kfdmp_reference.py --preset mi300x-8.7ms .*/configs/stock/mi300x-8.7ms ' "$tmp/ref.log" &&
	grep -qE 'reference +ok +gpt2,mi300x-8.7ms: .*/tests/harness/python/kfdmp_reference.py and kfdmp_worker, copied into svc:/tmp/kfdmp-testbox' "$tmp/ref.log" &&
	ok "--reference gpt2,mi300x-8.7ms --container svc: the harness's script and helper copied in, one exec workload each (--model, --preset)" ||
	{ grep -E 'docker|reference|kfdmp ' "$tmp/ref.log" | head; bad "--reference: exit $rc"; }
rc=0; "$tb" --dry-run --out "$tmp/badp" --phase 3 >"$tmp/badp.log" 2>&1 || rc=$?
[ "$rc" != 0 ] && grep -q "PHASE: host (phase 1, the default), driver (phase 2, --driver-arms) or all (got '3')" "$tmp/badp.log" && ok "--phase 3: refused, naming the choices" || bad "--phase 3: exit $rc"

# --- the whole matrix the driver way (--phase all: every arm an insmod) ----------------------------
if "$tb" --dry-run --phase all --out "$tmp/dry" >"$tmp/dry.log" 2>&1; then
	ok "the dry run (--phase all) exits 0"
else
	cat "$tmp/dry.log"; bad "the dry run failed"
fi
configs=("${all[@]}")
for c in "${configs[@]}"; do
	grep -q "^== configuration $c:" "$tmp/dry.log" || bad "no step for configuration $c"
done
n=$(grep -c '\[dry-run\] would run: insmod ' "$tmp/dry.log" || true)
[ "$n" = "${#configs[@]}" ] && ok "one insmod per configuration (${#configs[@]})" || bad "$n insmod lines for ${#configs[@]} configurations"
n=$(grep -c '\[dry-run\] would run: .*/scripts/trace.sh record .* -- .*/kfdmp --workload ' "$tmp/dry.log" || true)
[ "$n" = $((2 * ${#configs[@]})) ] && ok "a traced kfdmp per configuration and workload ($n)" || bad "$n traced kfdmp lines"
for want in '== box checks' 'would run: make -C .* modules KVER=' 'would run: cmake -S .*/tests/harness' \
	'would run: rmmod amdgpu' 'would run: sh -c echo 0 >/sys/kernel/debug/kfd/mp_stats' '== restore' \
	'parameter names checked against: ' 'testbox.json passes the kfdmp-testbox v1 schema check'; do
	grep -q -- "$want" "$tmp/dry.log" && ok "the log has: $want" || bad "the log lacks: $want"
done
for f in box-checks.tsv run.env report-from-sample/summary.md report-from-sample/testbox.json; do
	[ -s "$tmp/dry/$f" ] && ok "wrote $f" || bad "no $f"
done
grep -qE '^(root|kernel|headers|gpu|amdgpu-users|params)	(ok|warn|fail|info|skip)	' "$tmp/dry/box-checks.tsv" &&
	ok "box-checks.tsv: $(cut -f1,2 "$tmp/dry/box-checks.tsv" | tr '\t\n' ': ')" || bad "box-checks.tsv format"
grep -q '^dry_run=1$' "$tmp/dry/run.env" && ok "run.env says dry_run=1" || bad "run.env"
# The same directory again: an earlier dry run is replaced.
"$tb" --dry-run --phase all --out "$tmp/dry" >/dev/null 2>&1 && ok "a second dry run into the same directory works" || bad "second dry run"
mkdir -p "$tmp/notempty" && echo x >"$tmp/notempty/keep"
"$tb" --dry-run --out "$tmp/notempty" >/dev/null 2>&1 && bad "the dry run used a non-empty directory" ||
	{ [ -f "$tmp/notempty/keep" ] && ok "a non-empty --out that is not a dry run is refused and left alone" || bad "deleted a user's file"; }

# --- selection ----------------------------------------------------------------------------
"$tb" --dry-run --phase all --out "$tmp/sel" --configs all,stock --workloads latency --no-trace >"$tmp/sel.log" 2>&1 || bad "--configs all,stock failed"
[ "$(grep '^== configuration ' "$tmp/sel.log" | cut -d' ' -f3 | tr '\n' ' ')" = "all: stock: " ] &&
	ok "--configs all,stock runs those two, in that order" || bad "--configs selection: $(grep '^== configuration ' "$tmp/sel.log")"
grep -q 'would run: .*/kfdmp --workload latency' "$tmp/sel.log" && ! grep -q 'trace.sh record' "$tmp/sel.log" &&
	ok "--workloads latency --no-trace: kfdmp without trace.sh" || bad "--no-trace / --workloads"
rc=0; "$tb" --dry-run --out "$tmp/x" --configs nosuch >"$tmp/x.log" 2>&1 || rc=$?
[ "$rc" = 2 ] && ok "--configs nosuch: exit 2 ($(grep -o "no configuration 'nosuch'.*" "$tmp/x.log" | cut -c1-60))" || bad "--configs nosuch: exit $rc"
"$tb" list --configs stock,all | cut -f1 | tr '\n' ' ' | grep -qx 'stock all ' && ok "list" || bad "list"

# --- tenant mode (issues 18, 26) -----------------------------------------------------------
"$tb" --dry-run --tenant --phase all --out "$tmp/ten" >"$tmp/ten.log" 2>&1 && ok "the tenant dry run exits 0" || { tail -n 20 "$tmp/ten.log"; bad "tenant dry run"; }
[ "$(grep '^== configuration ' "$tmp/ten.log" | cut -d' ' -f3 | tr '\n' ' ')" = "stock: dequeue-wait: " ] &&
	grep -q 'would run: insmod .*amdgpu.ko kfd_short_dequeue_wait=on$' "$tmp/ten.log" &&
	ok "--tenant: tests/testbox/tenant.conf: the series' driver with stock parameters, then kfd_short_dequeue_wait=on" ||
	bad "--tenant configurations: $(grep '^== configuration ' "$tmp/ten.log")"
n=$(grep -c 'critical-alone' "$tmp/ten.log" || true)
m=$(grep -c 'would run: .*/scripts/trace.sh record .*/tenant/trace -- .*/kfdmp --critical latency --mix saturate:5 --critical-busy 0.1,0.3 --arms none,priority,sched-drain,sched-kfd --repeat 3 --duration 10 --warmup 2 --out ' "$tmp/ten.log" || true)
[ "$n" = 0 ] && [ "$m" = 2 ] && ! grep -q -- '--workload saturate' "$tmp/ten.log" &&
	ok "--tenant: per configuration the traced tenant mode, four arms, rates from busy fractions 0.1,0.3 (kfdmp measures the service time alone; no workload sweep)" ||
	bad "--tenant: $n measurements alone, $m tenant runs"
# Issue 26: the user's services as tenants, or the reference workloads.
rc=0; CRITICAL="docker exec -i online python3 q.py" BEST_EFFORT="docker exec -i offline python3 b.py" BEST_EFFORT_PROCS=2 \
	TENANT_BUSY=0.2 "$tb" --dry-run --tenant --phase all --configs stock --out "$tmp/ten-svc" >"$tmp/ten-svc.log" 2>&1 || rc=$?
[ "$rc" = 0 ] && grep -q -- "kfdmp --exec-as online=docker exec -i online python3 q.py --exec-as offline=docker exec -i offline python3 b.py --critical online --mix offline:2 --init-timeout 180 --critical-busy 0.2 --arms none,priority,sched-drain,sched-kfd " "$tmp/ten-svc.log" &&
	ok "--tenant CRITICAL=... BEST_EFFORT=...: the services through --exec-as, busy 0.2" || { tail -n 20 "$tmp/ten-svc.log"; bad "--tenant services: exit $rc"; }
rc=0; REFERENCE=gpt2 "$tb" --dry-run --tenant --phase all --configs stock --out "$tmp/ten-ref" >"$tmp/ten-ref.log" 2>&1 || rc=$?
[ "$rc" = 0 ] && grep -q -- "--exec-as online=python3 .*/kfdmp_reference.py --model gpt2 --batch 1 --seq 128 --exec-as offline=python3 .*/kfdmp_reference.py --model gpt2 --batch 32 --seq 256 --critical online --mix offline:3 " "$tmp/ten-ref.log" &&
	ok "--tenant REFERENCE=gpt2: batch-1 GPT-2 critical beside 3 batch-32 ones" || { tail -n 20 "$tmp/ten-ref.log"; bad "--tenant REFERENCE: exit $rc"; }
rc=0; CRITICAL="x" "$tb" --dry-run --tenant --phase all --out "$tmp/ten-c" >"$tmp/ten-c.log" 2>&1 || rc=$?
[ "$rc" != 0 ] && grep -q 'CRITICAL and BEST_EFFORT: both services' "$tmp/ten-c.log" && ok "--tenant: CRITICAL without BEST_EFFORT is refused" || bad "--tenant CRITICAL alone: exit $rc"
rc=0; TENANT_BUSY=30 "$tb" --dry-run --tenant --phase all --out "$tmp/ten-u" >"$tmp/ten-u.log" 2>&1 || rc=$?
[ "$rc" != 0 ] && grep -q "TENANT_BUSY: busy fractions like 0.1,0.3 (got '30')" "$tmp/ten-u.log" && ok "--tenant: TENANT_BUSY=30 is refused" || bad "--tenant TENANT_BUSY=30: exit $rc"
# The tenant run defaults to phase 1 too: the driver already loaded, no load or unload
# (sched-drain measures on the stock driver), with the busy fractions reaching kfdmp.
rc=0; "$tb" --dry-run --tenant --out "$tmp/ten-h" >"$tmp/ten-h.log" 2>&1 || rc=$?
[ "$rc" = 0 ] && head -n 1 "$tmp/ten-h.log" | grep -q '^testbox: phase 1' &&
	! grep -Eq 'would run: (rmmod|insmod|modprobe)' "$tmp/ten-h.log" &&
	grep -q 'would run: .*/kfdmp --critical latency --mix saturate:5 --critical-busy 0.1,0.3 --arms none,priority,sched-drain,sched-kfd ' "$tmp/ten-h.log" &&
	ok "--tenant without PHASE: phase 1 (nothing loaded or unloaded), the four arms, rates from busy fractions" ||
	{ grep -E 'phase|would run' "$tmp/ten-h.log" | head -n 12; bad "--tenant default phase: exit $rc"; }
grep -q '^tenant=1$' "$tmp/ten/run.env" && grep -q '^workloads=tenant$' "$tmp/ten/run.env" && ok "--tenant: run.env records the tenant run" || bad "--tenant: run.env"
rc=0; out=$(TENANT_RATE=30 "$(command -v make)" -s -C "$root" testbox-tenant TESTBOX_ARGS="--dry-run --out $tmp/ten-mk --configs stock" 2>&1) || rc=$?
[ "$rc" = 0 ] && grep -q -- 'kfdmp --critical latency --mix saturate:5 --rate 30 ' <<<"$out" && ! grep -q 'critical-alone' <<<"$out" &&
	ok "make testbox-tenant TENANT_RATE=30 (dry): --rate 30, no measurement alone" || { printf '%s\n' "$out" | tail -n 15; bad "make testbox-tenant: exit $rc"; }
rc=0; "$tb" --dry-run --tenant-rate 30 --out "$tmp/ten-x" >"$tmp/ten-x.log" 2>&1 || rc=$?
[ "$rc" != 0 ] && grep -q 'needs --tenant' "$tmp/ten-x.log" && ok "--tenant-rate without --tenant is refused" || bad "--tenant-rate alone: exit $rc"

# --- a value the parameter refuses fails the dry run ------------------------------------------
if python3 "$root/scripts/report/kfdmp_params.py" known --series "$root/patches" | grep -q '^kfd_mp	uint 0..1'; then
	printf 'bad | kfd_mp=2 | out of range\n' >"$tmp/bad.conf"
	rc=0; "$tb" --dry-run --out "$tmp/bad" --matrix "$tmp/bad.conf" --params-from series >"$tmp/bad.log" 2>&1 || rc=$?
	[ "$rc" = 1 ] && grep -q 'kfd_mp=2 .*BAD' "$tmp/bad.log" && ok "kfd_mp=2 fails the dry run (BAD, outside 0..1)" ||
		{ tail -n 20 "$tmp/bad.log"; bad "kfd_mp=2: exit $rc"; }
else
	echo "note: the series does not define kfd_mp; the refused-value case is covered by test_testbox.py only"
fi

# --- a broken report fails the dry run ---------------------------------------------------------
cp -a "$root/tests/testbox/sample" "$tmp/broken"
python3 - "$tmp/broken/configs/stock/latency/results.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["summary"][0]["procs"] = "one"          # breaks the schema of the combined document
json.dump(d, open(sys.argv[1], "w"))
EOF
rc=0; "$tb" --dry-run --out "$tmp/br" --sample "$tmp/broken" >"$tmp/br.log" 2>&1 || rc=$?
[ "$rc" = 1 ] && grep -q 'the report generator failed' "$tmp/br.log" && ok "a sample that breaks the report schema fails the dry run" ||
	{ tail -n 20 "$tmp/br.log"; bad "broken sample: exit $rc"; }
rm "$tmp/broken/run.env"
rc=0; "$tb" --dry-run --out "$tmp/br2" --sample "$tmp/broken" >"$tmp/br2.log" 2>&1 || rc=$?
[ "$rc" = 1 ] && ok "a sample without run.env fails the dry run" || bad "sample without run.env: exit $rc"

# --- restore with nothing to restore is a no-op ----------------------------------------------------
if KFDMP_TESTBOX_STATE=$tmp/state "$tb" restore >"$tmp/restore.log" 2>&1; then
	ok "restore without a state file: nothing to do, exit 0"
else
	cat "$tmp/restore.log"; bad "restore without state"
fi
verdict "dry-run test"
