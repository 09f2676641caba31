#!/usr/bin/env bash
# CI test of `scripts/testbox.sh --dry-run` on a machine without an AMD GPU:
# it walks every step, runs the box checks and the parameter check for real,
# prints what it would load and run, and generates the report from the
# recorded sample (tests/testbox/sample). It must fail when the report
# generator fails, when a configuration has a value its parameter refuses,
# and on a bad selection.
# ok and bad always succeed (tests/test-lib.sh): `cond && ok .. || bad ..` is an if-else.
# shellcheck disable=SC2015
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../test-lib.sh
. "$(dirname "$0")/../test-lib.sh"
tb=$root/scripts/testbox.sh
scratch dry-run-test

# --- the whole dry run -----------------------------------------------------------------
if "$tb" --dry-run --out "$tmp/dry" >"$tmp/dry.log" 2>&1; then
	ok "the dry run exits 0"
else
	cat "$tmp/dry.log"; bad "the dry run failed"
fi
mapfile -t configs < <(python3 "$root/scripts/report/kfdmp_params.py" list "$root/tests/testbox/matrix.conf" | cut -f1)
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
"$tb" --dry-run --out "$tmp/dry" >/dev/null 2>&1 && ok "a second dry run into the same directory works" || bad "second dry run"
mkdir -p "$tmp/notempty" && echo x >"$tmp/notempty/keep"
"$tb" --dry-run --out "$tmp/notempty" >/dev/null 2>&1 && bad "the dry run used a non-empty directory" ||
	{ [ -f "$tmp/notempty/keep" ] && ok "a non-empty --out that is not a dry run is refused and left alone" || bad "deleted a user's file"; }

# --- selection ----------------------------------------------------------------------------
"$tb" --dry-run --out "$tmp/sel" --configs all,stock --workloads latency --no-trace >"$tmp/sel.log" 2>&1 || bad "--configs all,stock failed"
[ "$(grep '^== configuration ' "$tmp/sel.log" | cut -d' ' -f3 | tr '\n' ' ')" = "all: stock: " ] &&
	ok "--configs all,stock runs those two, in that order" || bad "--configs selection: $(grep '^== configuration ' "$tmp/sel.log")"
grep -q 'would run: .*/kfdmp --workload latency' "$tmp/sel.log" && ! grep -q 'trace.sh record' "$tmp/sel.log" &&
	ok "--workloads latency --no-trace: kfdmp without trace.sh" || bad "--no-trace / --workloads"
rc=0; "$tb" --dry-run --out "$tmp/x" --configs nosuch >"$tmp/x.log" 2>&1 || rc=$?
[ "$rc" = 2 ] && ok "--configs nosuch: exit 2 ($(grep -o "no configuration 'nosuch'.*" "$tmp/x.log" | cut -c1-60))" || bad "--configs nosuch: exit $rc"
"$tb" list --configs stock,all | cut -f1 | tr '\n' ' ' | grep -qx 'stock all ' && ok "list" || bad "list"

# --- tenant mode (issue 18) ---------------------------------------------------------------
"$tb" --dry-run --tenant --out "$tmp/ten" >"$tmp/ten.log" 2>&1 && ok "the tenant dry run exits 0" || { tail -n 20 "$tmp/ten.log"; bad "tenant dry run"; }
[ "$(grep '^== configuration ' "$tmp/ten.log" | cut -d' ' -f3 | tr '\n' ' ')" = "stock: dequeue-wait: " ] &&
	grep -q 'would run: insmod .*amdgpu.ko kfd_short_dequeue_wait=on$' "$tmp/ten.log" &&
	ok "--tenant: tests/testbox/tenant.conf: the series' driver with stock parameters, then kfd_short_dequeue_wait=on" ||
	bad "--tenant configurations: $(grep '^== configuration ' "$tmp/ten.log")"
n=$(grep -c 'would run: .*/kfdmp --workload latency --procs 1 --repeat 1 --duration 10 --warmup 2 --out .*/tenant/critical-alone$' "$tmp/ten.log" || true)
m=$(grep -c 'would run: .*/scripts/trace.sh record .*/tenant/trace -- .*/kfdmp --critical latency --rate R --mix saturate:5 --arms none,sched,priority --repeat 3 --duration 10 --warmup 2 --out ' "$tmp/ten.log" || true)
[ "$n" = 2 ] && [ "$m" = 2 ] && ! grep -q -- '--workload saturate' "$tmp/ten.log" &&
	ok "--tenant: per configuration the critical tenant alone, then the traced tenant mode with the three arms (no workload sweep)" ||
	bad "--tenant: $n measurements alone, $m tenant runs"
grep -q '^tenant=1$' "$tmp/ten/run.env" && grep -q '^workloads=tenant$' "$tmp/ten/run.env" && ok "--tenant: run.env records the tenant run" || bad "--tenant: run.env"
rc=0; out=$(TENANT_RATE=30 "$(command -v make)" -s -C "$root" testbox-tenant TESTBOX_ARGS="--dry-run --out $tmp/ten-mk --configs stock" 2>&1) || rc=$?
[ "$rc" = 0 ] && grep -q -- 'kfdmp --critical latency --rate 30 ' <<<"$out" && ! grep -q 'critical-alone' <<<"$out" &&
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
