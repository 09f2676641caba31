#!/usr/bin/env bash
# CI test of scripts/port-series.sh on the vendor tree (the amdgpu-dkms
# tarball in ../shared/vendor, unpacked at test time into build/; no vendor
# file is kept in the repository).
#
#   port-vendor-test.sh [upstream]   the upstream series (patches/linux-6.12,
#       or patches/) on a "box" tree: the vendor's amd/amdkfd with scripted
#       local edits like the test box's (its own find_available_queue_slot(),
#       counters inside map_queues_cpsch(), and a pm_calc_rlib_size() in
#       upstream's form that prints the reasons afterwards). The three wrong
#       merges are regression cases; each must be reported as a conflict,
#       with file, function and origin, wherever in the series it happens:
#         1. pm_calc_rlib_size(): the merge drops declarations the vendor
#            code still uses. The series no longer changes that function, so
#            the case is the first series' hunk, made at test time as a
#            one-patch series on the upstream base: git merges it by itself,
#            and the port must still report CONFLICT
#         2. kfd_priv.h: keeping both sides puts the new field of struct
#            kfd_dev into struct kfd_bo
#         3. update_queue(): the hunk lands in update_queue_locked(), which
#            then releases dqm_lock that its callers release again
#       Also: the local edits are reported as "local", the vendor's own
#       differences as "base"; DEST is unchanged; stop mode leaves the git am
#       session open in the work tree; the dkms --build runs the tree's own
#       Makefile, so pre-build.sh gets its four arguments and the sanity check
#       runs, on a copy (a stub pre-build.sh and kernel build dir).
#   port-vendor-test.sh rocm   the vendor series (patches/rocm-6.4) on the
#       pristine vendor source (every directory and file of it the series
#       touches, include/uapi/linux/kfd_ioctl.h too): no conflict, no
#       finding. Skipped (77) until that series exists.
# Both take their expectations from the series (which files its patches
# touch, where the survey first conflicts), not from patch numbers.
# Skipped (77) without the vendor tarball, or (upstream) without the
# upstream series' base (build/tree or /usr/src/linux-source-6.12.tar.xz).
# ok and bad always succeed (tests/test-lib.sh): `cond && ok .. || bad ..` is an if-else.
# shellcheck disable=SC2015
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../test-lib.sh
. "$(dirname "$0")/../test-lib.sh"
mode=${1:-upstream}
port=$root/scripts/port-series.sh
tarball=${VENDOR_TARBALL:-$(find "$root/../shared/vendor" -maxdepth 1 -name 'amdgpu-dkms-*.tar.xz' 2>/dev/null | sort -V | tail -n1 || true)}
if [ -z "$tarball" ] || [ ! -f "$tarball" ]; then
	echo "SKIP: no amdgpu-dkms tarball in $root/../shared/vendor (the vendor tree this test ports onto)"
	exit 77
fi
BUILD=${BUILD:-$root/build}
export BUILD
t0=$(date +%s)

case $mode in
rocm)
	series=$root/patches/rocm-6.4
	[ -d "$series" ] || { echo "SKIP: no vendor series at patches/rocm-6.4 yet"; exit 77; } ;;
upstream)
	series=$root/patches/linux-6.12
	[ -d "$series" ] || series=$root/patches
	tree=${TREE:-$BUILD/tree}
	if ! git -C "$tree" rev-parse -q --verify kfdmp-base >/dev/null 2>&1 && [ ! -f "${KSRC:-/usr/src/linux-source-6.12.tar.xz}" ]; then
		echo "SKIP: no base for the upstream series: neither $tree (make tree) nor ${KSRC:-/usr/src/linux-source-6.12.tar.xz}"
		exit 77
	fi ;;
*) echo "usage: $0 [upstream|rocm]" >&2; exit 2 ;;
esac
scratch "port-vendor-$mode"
work=$BUILD/port-vendor-test-$mode
rm -rf "$work"
mkdir -p "$work"
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp" "$work"' EXIT

# Upstream mode ports the Linux series without its KUnit stub patch and up to
# the tenant-control ioctl. The stub patch adds KUnit static-stub redirects to
# amdgpu_amdkfd.c, whose context differs on the vendor base (the rocm-6.4
# series has its own stub patch), so it conflicts there by design; the ioctl
# patch edits include/uapi/linux/kfd_ioctl.h, which this mode's pristine copy
# does not unpack (the rocm mode covers it). What is left is the part with
# hooks in the vendor's amdkfd files, where the three wrong merges live (the
# last one in the update_queue() patch of the queued runlist).
if [ "$mode" = upstream ]; then
	prefix=$tmp/series-prefix
	mkdir -p "$prefix"
	for p in "$series"/[0-9]*.patch; do
		case $p in */0000-*) cp "$p" "$prefix/"; continue ;; esac
		grep -q '^diff --git a/include/uapi/' "$p" && break
		grep -q '^diff --git a/drivers/gpu/drm/amd/amdgpu/amdgpu_amdkfd\.c ' "$p" && continue
		cp "$p" "$prefix/"
	done
	series=$prefix
fi

# What of the vendor tree the series touches, in its (dkms) layout: the
# directories amd/amdkfd, amd/amdgpu, ... whole, and every file outside amd/
# the tarball has (include/uapi/linux/kfd_ioctl.h); MAINTAINERS and
# drivers/gpu/drm/Makefile have no place there. Derived from the patches, so
# a patch that starts touching another file brings it along.
mapfile -t dirs < <(sed -n 's|^diff --git a/\([^ ]*\) .*|\1|p' "$series"/[0-9]*.patch | sed 's|^drivers/gpu/drm/amd/|amd/|' |
	awk -F/ '$1 == "amd" { print $1 "/" $2; next } $1 == "include" { print }' | sort -u)
pats=()
for d in "${dirs[@]}"; do pats+=("*/$d"); done
tar -x -C "$work" -f "$tarball" --wildcards --no-wildcards-match-slash "${pats[@]}" "*/amd/dkms" "*/Makefile" 2>/dev/null || true
vsrc=$(find "$work" -mindepth 1 -maxdepth 1 -type d | head -n1)
[ -n "$vsrc" ] && [ -d "$vsrc/amd/amdkfd" ] || { bad "no amd/amdkfd in $tarball"; verdict "port vendor test ($mode)"; }
have=()
for d in "${dirs[@]}"; do [ ! -e "$vsrc/$d" ] || have+=("$d"); done
dirs=("${have[@]}")
ok "unpacked ${dirs[*]} of $(basename "$tarball") into build/ ($(( $(date +%s) - t0 )) s)"

# vendor_repo DIR: a git repository of those parts of the vendor tree (pristine).
vendor_repo() {
	mkdir -p "$1"
	for d in "${dirs[@]}"; do mkdir -p "$1/$(dirname "$d")"; cp -a "$vsrc/$d" "$1/$d"; done
	git -C "$1" init -q -b vendor
	git -C "$1" add -A -f .
	git -C "$1" -c user.name=vendor -c user.email=vendor@example.org commit -q -m "amdgpu-dkms $(basename "$tarball") (${dirs[*]})"
}
finding() { # REPORT NNNN|any REGEX: the finding lines of patch NNNN (or of any) matching REGEX
	awk -v n="$2" '/^  [0-9][0-9][0-9][0-9]-/ { cur = (n == "any" || $1 ~ "^"n"-") ; next } cur && /^      / { print }' "$1" | grep -E "$3" || true
}
patch_of() { # REPORT REGEX: the NNNN of the patch under which a finding matches REGEX
	awk '/^  [0-9][0-9][0-9][0-9]-/ { cur = substr($1, 1, 4); next } /^      / { print cur "\t" $0 }' "$1" | grep -E "$2" | head -n1 | cut -f1
}
status_of() { awk -v n="$2" '$1 ~ "^"n"-" { $1 = ""; sub(/^ +/, ""); print; exit }' "$1"; }

if [ "$mode" = rocm ]; then
	vendor_repo "$tmp/pristine"
	rc=0
	"$port" "$tmp/pristine" --series "$series" --base "$tarball" --pristine "$tarball" --work "$work/port" \
		--report "$tmp/r.txt" >"$tmp/r.log" 2>&1 || rc=$?
	[ "$rc" = 0 ] && ok "the vendor series ports onto the pristine ROCm source: exit 0" || { cat "$tmp/r.log"; bad "exit $rc"; }
	grep -q '^result: 0 conflict(s)' "$tmp/r.txt" && ok "$(grep '^result:' "$tmp/r.txt")" || bad "report: $(grep '^result:' "$tmp/r.txt" || true)"
	! grep -q '^      !' "$tmp/r.txt" && ok "no finding" || { grep '^      !' "$tmp/r.txt"; bad "findings on the pristine source"; }
	echo "port vendor test (rocm): $(( $(date +%s) - t0 )) s"
	verdict "port vendor test (rocm)"
	exit 0
fi

# --- the box tree: the vendor's code with the box's local edits ------------------------------------------
vendor_repo "$tmp/box"
python3 - "$tmp/box/amd/amdkfd" <<'EOF'
import sys
d = sys.argv[1]

def edit(name, old, new, count=1):
    p = f"{d}/{name}"
    s = open(p).read()
    assert s.count(old) >= 1, (name, old)
    open(p, "w").write(s.replace(old, new, count))

# The box's own queue slot choice.
edit("kfd_process_queue_manager.c",
     "\tfound = find_first_zero_bit(pqm->queue_slot_bitmap,\n\t\t\tKFD_MAX_NUM_OF_QUEUES_PER_PROCESS);\n",
     "\t/* box experiment: start at a per-process offset */\n"
     "\tfound = find_next_zero_bit(pqm->queue_slot_bitmap,\n\t\t\tKFD_MAX_NUM_OF_QUEUES_PER_PROCESS,\n"
     "\t\t\t(pqm->process->pasid % 8) * 8);\n"
     "\tif (found >= KFD_MAX_NUM_OF_QUEUES_PER_PROCESS)\n"
     "\t\tfound = find_first_zero_bit(pqm->queue_slot_bitmap,\n\t\t\t\tKFD_MAX_NUM_OF_QUEUES_PER_PROCESS);\n")
# The box's counters inside map_queues_cpsch().
edit("kfd_device_queue_manager.c",
     "static int map_queues_cpsch(struct device_queue_manager *dqm)\n{",
     "static unsigned long box_runlists, box_runlist_failures;\n\n"
     "static int map_queues_cpsch(struct device_queue_manager *dqm)\n{")
edit("kfd_device_queue_manager.c",
     "\tretval = pm_send_runlist(&dqm->packet_mgr, &dqm->queues);\n\tpr_debug(\"%s sent runlist\\n\", __func__);\n",
     "\tbox_runlists++;\n\tretval = pm_send_runlist(&dqm->packet_mgr, &dqm->queues);\n"
     "\tif (retval)\n\t\tbox_runlist_failures++;\n\tpr_debug(\"%s sent runlist\\n\", __func__);\n")
# pm_calc_rlib_size(): the box went back to upstream's form of the check and
# prints the reasons afterwards, so git merges the first patch here alone.
edit("kfd_packet_manager.c",
     "\t*over_subscription = 0;\n\n\tif (node->max_proc_per_quantum > 1)\n\t\tmax_proc_per_quantum = node->max_proc_per_quantum;\n\n"
     "\tif (process_count > max_proc_per_quantum)\n\t\t*over_subscription |= OVER_SUBSCRIPTION_PROCESS_COUNT;\n"
     "\tif (compute_queue_count > get_cp_queues_num(pm->dqm))\n\t\t*over_subscription |= OVER_SUBSCRIPTION_COMPUTE_QUEUE_COUNT;\n"
     "\tif (gws_queue_count > 1)\n\t\t*over_subscription |= OVER_SUBSCRIPTION_GWS_QUEUE_COUNT;\n\n"
     "\tif (*over_subscription)\n\t\tdev_dbg(dev, \"Over subscribed runlist\\n\");\n",
     "\t*over_subscription = false;\n\n\tif (node->max_proc_per_quantum > 1)\n\t\tmax_proc_per_quantum = node->max_proc_per_quantum;\n\n"
     "\tif ((process_count > max_proc_per_quantum) ||\n\t    compute_queue_count > get_cp_queues_num(pm->dqm) ||\n"
     "\t    gws_queue_count > 1) {\n\t\t*over_subscription = true;\n\t\tdev_dbg(dev, \"Over subscribed runlist\\n\");\n\t}\n")
edit("kfd_packet_manager.c",
     "\tdev_dbg(dev, \"runlist ib size %d\\n\", *rlib_size);\n}",
     "\tdev_dbg(dev, \"runlist ib size %d\\n\", *rlib_size);\n"
     "\tdev_dbg(dev, \"box: %u compute queues, %u GWS queues\\n\", compute_queue_count, gws_queue_count);\n}")
EOF
git -C "$tmp/box" -c user.name=box -c user.email=box@example.org commit -q -a -m "box: local experiments"
box_head=$(git -C "$tmp/box" rev-parse HEAD)
ok "box tree: the vendor's ${dirs[*]} plus 3 local edits"

# --- keep-going survey, with --pristine ---------------------------------------------------------------------------
t1=$(date +%s)
rc=0
"$port" "$tmp/box" --series "$series" --keep-going --pristine "$tarball" --work "$work/box" --report "$tmp/k.txt" >"$tmp/k.log" 2>&1 || rc=$?
cat "$tmp/k.txt"
[ "$rc" = 1 ] && ok "survey: exit 1 ($(( $(date +%s) - t1 )) s)" || { tail -n 20 "$tmp/k.log"; bad "survey: exit $rc"; }

# 2. kfd_priv.h: keeping both sides would put the field into struct kfd_bo.
re2='! amd/amdkfd/kfd_priv.h:[0-9]+ struct kfd_dev \[base\] wrong-scope: .*struct kfd_bo.*struct kfd_dev'
f=$(finding "$tmp/k.txt" any "$re2") n2=$(patch_of "$tmp/k.txt" "$re2")
[ -n "$f" ] && ok "case 2 reported under $n2:${f#      }" || bad "case 2: kfd_priv.h struct kfd_bo not reported"
[[ $(status_of "$tmp/k.txt" "${n2:-none}") == CONFLICT* ]] && ok "$n2: CONFLICT" || bad "case 2: patch ${n2:-?} is '$(status_of "$tmp/k.txt" "${n2:-none}")'"
sed -n '/^struct kfd_bo {/,/^};/p' "$work/box/amd/amdkfd/kfd_priv.h" | grep -q 'kfd_mp_dev' &&
	bad "case 2: the survey branch has the field in struct kfd_bo" || ok "case 2: struct kfd_bo of the survey branch has no new field"
f=$(finding "$tmp/k.txt" any '  amd/amdkfd/kfd_priv.h:[0-9]+ struct kfd_process_device .* both-kept:')
[ -n "$f" ] && ok "the insert/insert in struct kfd_process_device is kept (right struct):${f#      }" || bad "struct kfd_process_device both-kept not reported"

# 3. update_queue(): the hunk lands in update_queue_locked().
re3='! amd/amdkfd/kfd_device_queue_manager.c:[0-9]+ update_queue_locked\(\) \[base\] wrong-scope: .*update_queue\(\)'
f=$(finding "$tmp/k.txt" any "$re3") n3=$(patch_of "$tmp/k.txt" "$re3")
[ -n "$f" ] && ok "case 3 reported:${f#      }" || bad "case 3: the hunk in update_queue_locked() is not reported"
f=$(finding "$tmp/k.txt" "${n3:-none}" 'update_queue_locked\(\) .*lock: .*release a lock it does not take.*update_queue\(\)')
[ -n "$f" ] && ok "case 3, lock balance:${f#      }" || bad "case 3: the lock imbalance is not reported"
[[ $(status_of "$tmp/k.txt" "${n3:-none}") == CONFLICT* ]] && ok "$n3: CONFLICT" || bad "case 3: patch ${n3:-?} is '$(status_of "$tmp/k.txt" "${n3:-none}")'"

# Local edits and the vendor's own differences.
f=$(finding "$tmp/k.txt" any 'kfd_process_queue_manager.c:[0-9]+ find_available_queue_slot\(\) \[local\] conflict:')
[ -n "$f" ] && ok "local edit reported:${f#      }" || bad "find_available_queue_slot() conflict not reported as local"
f=$(finding "$tmp/k.txt" any 'kfd_device_queue_manager.c:[0-9]+ map_queues_cpsch\(\) \[local\] conflict:')
[ -n "$f" ] && ok "local edit reported:${f#      }" || bad "map_queues_cpsch() conflict not reported as local"
f=$(finding "$tmp/k.txt" any 'amd/amdkfd/Makefile:[0-9]+ top level \[base\] conflict:')
[ -n "$f" ] && ok "vendor difference reported:${f#      }" || bad "the Makefile conflict (ROCm-only objects) not reported as base"
# Later patches do not fail just because an earlier one conflicted.
! grep -qE '^      ! amd/amdkfd/kfd_mp[a-z_]*\.[ch]:' "$tmp/k.txt" && ok "no conflict in the series' own kfd_mp*.[ch] files (no cascade)" ||
	bad "cascade: conflicts in kfd_mp*.[ch]"
[ "$(git -C "$tmp/box" rev-parse HEAD)" = "$box_head" ] && [ -z "$(git -C "$tmp/box" status --porcelain)" ] &&
	[ "$(git -C "$tmp/box" symbolic-ref --short HEAD)" = vendor ] && ok "DEST unchanged: same HEAD, branch, clean" || bad "DEST was changed"
grep -q "^DEST $tmp/box is unchanged" "$tmp/k.txt" && ok "the report says so" || bad "report: DEST line"

# --- stop mode: the session stays open in the work tree --------------------------------------------------------------
# Where it stops follows from the survey, whatever the series holds: at the
# survey's first CONFLICT, with every patch before it as the survey had it,
# the same findings there (origin ? without --pristine), the rest not tried.
rc=0
"$port" "$tmp/box" --series "$series" --work "$work/stop" --branch kfdmp-stop --report "$tmp/s.txt" >/dev/null 2>&1 || rc=$?
statuses() { awk '/^  [0-9][0-9][0-9][0-9]-/ { n = substr($1, 1, 4); $1 = ""; sub(/^ +/, ""); sub(/ - left out .*/, ""); print n "\t" $0 }' "$1"; }
nc=$(statuses "$tmp/k.txt" | awk -F'\t' '$2 ~ /^CONFLICT/ { print $1; exit }')
[ -n "$nc" ] || bad "stop mode: the survey has no conflict to stop at"
want=$(statuses "$tmp/k.txt" | awk -F'\t' -v nc="$nc" '$1 < nc { print; next } $1 == nc { print $1 "\tCONFLICT"; next } { print $1 "\tnot tried" }')
got=$(statuses "$tmp/s.txt" | sed 's/\tCONFLICT.*/\tCONFLICT/')
[ "$rc" = 1 ] && [ "$got" = "$want" ] &&
	ok "stop mode: exit 1, stopped at $nc (the survey's first conflict: $(status_of "$tmp/k.txt" "$nc")), the patches before it as in the survey, the rest not tried" ||
	{ cat "$tmp/s.txt"; diff <(echo "$want") <(echo "$got") || true; bad "stop mode: exit $rc, not stopped at ${nc:-?} as the survey says"; }
gd=$(git -C "$work/stop" rev-parse --absolute-git-dir)
if [ "$(status_of "$tmp/k.txt" "${nc:-none}")" = "CONFLICT (git merged it, wrongly)" ]; then
	grep -q "^stopped: git applied $nc-.* but the merge is wrong" "$tmp/s.txt" && ok "stop mode: $nc committed, the report says the merge is wrong" ||
		bad "stop mode: no 'merge is wrong' note for $nc"
else
	mapfile -t unmerged < <(git -C "$work/stop" diff --name-only --diff-filter=U)
	marked=$(cd "$work/stop" && grep -l '^<<<<<<<' -- "${unmerged[@]}" 2>/dev/null | head -n1 || true)
	queued=$(statuses "$tmp/s.txt" | awk -F'\t' -v nc="$nc" '$1 >= nc && $2 !~ /^nothing to apply/' | wc -l)
	[ -d "$gd/rebase-apply" ] && [ "$(cat "$gd/rebase-apply/last")" = "$queued" ] && [ -n "$marked" ] &&
		ok "stop mode: git am session open in the work tree with markers ($marked), $nc and the later patches queued ($queued in all)" ||
		bad "stop mode: no open session with markers and the $queued patches from $nc on queued"
fi
kf=$(finding "$tmp/k.txt" "${nc:-none}" '^      ! ' | sed -E 's/ \[(base|local|base\+local)\] / [?] /')
sf=$(finding "$tmp/s.txt" "${nc:-none}" '^      ! ')
[ -n "$sf" ] && [ "$sf" = "$kf" ] && ! grep -qvE ' \[\?\] ' <<<"$sf" &&
	ok "stop mode: without --pristine the origin is ?, the findings at $nc as in the survey ($(wc -l <<<"$sf"))" ||
	{ diff <(echo "$kf") <(echo "$sf") || true; bad "stop mode: the findings at ${nc:-?} differ from the survey's, or have an origin other than ?"; }
[ "$(git -C "$tmp/box" rev-parse HEAD)" = "$box_head" ] && [ -z "$(git -C "$tmp/box" status --porcelain)" ] && ok "stop mode: DEST unchanged" || bad "stop mode: DEST changed"

# --- case 1: pm_calc_rlib_size(), a merge git makes by itself -------------------------------------------------------
# The first series' hunk, on the upstream base, as a one-patch series: it
# drops the declarations of compute_queue_count, gws_queue_count and
# max_proc_per_quantum with the check that used them.
syn=$tmp/synbase
kpm=drivers/gpu/drm/amd/amdkfd/kfd_packet_manager.c
mkdir -p "$syn/$(dirname "$kpm")"
if git -C "$tree" rev-parse -q --verify kfdmp-base >/dev/null 2>&1; then git -C "$tree" show "kfdmp-base:$kpm" >"$syn/$kpm"
else tar -x -O -f "${KSRC:-/usr/src/linux-source-6.12.tar.xz}" --wildcards "*/$kpm" >"$syn/$kpm"; fi
git -C "$syn" init -q -b base && git -C "$syn" add -A && git -C "$syn" -c user.name=t -c user.email=t@t commit -q -m base && git -C "$syn" tag kfdmp-base
python3 - "$syn/$kpm" <<'EOF'
import sys
p = sys.argv[1]
s = open(p).read()
def edit(old, new):
    global s
    assert old in s, old
    s = s.replace(old, new)
edit("\tunsigned int process_count, queue_count, compute_queue_count, gws_queue_count;\n",
     "\tunsigned int process_count, queue_count;\n")
edit("\tunsigned int max_proc_per_quantum = 1;\n", "")
edit("\tcompute_queue_count = pm->dqm->active_cp_queue_count;\n\tgws_queue_count = pm->dqm->gws_queue_count;\n", "")
edit("\t*over_subscription = false;\n\n\tif (node->max_proc_per_quantum > 1)\n\t\tmax_proc_per_quantum = node->max_proc_per_quantum;\n\n"
     "\tif ((process_count > max_proc_per_quantum) ||\n\t    compute_queue_count > get_cp_queues_num(pm->dqm) ||\n"
     "\t    gws_queue_count > 1) {\n\t\t*over_subscription = true;\n\t\tdev_dbg(dev, \"Over subscribed runlist\\n\");\n\t}\n",
     "\t*over_subscription = kfd_mp_dqm_oversub_reasons(pm->dqm) != 0;\n\tif (*over_subscription)\n\t\tdev_dbg(dev, \"Over subscribed runlist\\n\");\n")
open(p, "w").write(s)
EOF
git -C "$syn" -c user.name=t -c user.email=t@t commit -q -a -m "drm/amdkfd: oversubscription reasons from kfd_mp (the first series' pm_calc_rlib_size() hunk)"
mkdir -p "$tmp/synseries"
git -C "$syn" format-patch -q -1 -o "$tmp/synseries" --start-number 1
rc=0
"$port" "$tmp/box" --series "$tmp/synseries" --base "$syn" --pristine "$tarball" --work "$work/c1" --branch kfdmp-c1 --report "$tmp/c1.txt" >"$tmp/c1.log" 2>&1 || rc=$?
cat "$tmp/c1.txt"
[ "$rc" = 1 ] && [ "$(status_of "$tmp/c1.txt" 0001)" = "CONFLICT (git merged it, wrongly)" ] &&
	ok "case 1: git merged the patch by itself, and the port reports CONFLICT (git merged it, wrongly), exit 1" || { cat "$tmp/c1.log"; bad "case 1: exit $rc, status '$(status_of "$tmp/c1.txt" 0001)'"; }
f=$(finding "$tmp/c1.txt" 0001 '! amd/amdkfd/kfd_packet_manager.c:[0-9]+ pm_calc_rlib_size\(\) \[local\] declaration: .*compute_queue_count')
[ -n "$f" ] && ok "case 1 reported:${f#      }" || bad "case 1: the dropped declaration of compute_queue_count in pm_calc_rlib_size() is not reported"
[ -n "$(finding "$tmp/c1.txt" 0001 'pm_calc_rlib_size\(\) .*declaration: .*gws_queue_count')" ] && ok "case 1: gws_queue_count too" || bad "case 1: gws_queue_count not reported"
grep -q "^stopped: git applied 0001-.* but the merge is wrong" "$tmp/c1.txt" && ok "case 1: the report says the last commit is wrong and how to go on" || bad "case 1: no 'merge is wrong' note"

# --- usage errors ---------------------------------------------------------------------------------------------------------
out=$("$port" "$tmp/box" --series "$series" --work "$work/box" 2>&1) && bad "an existing --work was not refused" ||
	{ grep -q 'exists (--force' <<<"$out" && ok "an existing --work is refused: $out" || bad "refusal message: $out"; }
out=$("$port" "$tmp/box" --series "$series" --base /nonexistent 2>&1) && bad "--base /nonexistent accepted" || ok "bad --base: $out"
out=$("$port" "$tmp/box" --series "$series" --base "$tarball" --work "$work/wb" 2>&1) && bad "a wrong base was accepted" ||
	{ grep -q 'is not the base of' <<<"$out" && ok "a base the series does not apply to is refused: ${out:0:150}" || bad "wrong base: $out"; }
out=$("$port" "$tmp/box" --series "$series" --keep-going --frobnicate 2>&1) && bad "unknown option accepted" || ok "unknown option: $out"

# --- the dkms build: the tree's own Makefile, pre-build.sh's four arguments, on a copy ------------------------------------
if [ -f "$vsrc/Makefile" ] && [ -f "$vsrc/amd/dkms/pre-build.sh" ]; then
	b=$tmp/buildable
	mkdir -p "$b/amd"
	# Every file the series changes, as the upstream series' base has it
	# (so that the series applies), in the dkms layout: amd/... and include/...
	mapfile -t bfiles < <(sed -n 's|^diff --git a/\([^ ]*\) .*|\1|p' "$series"/[0-9]*.patch | grep -E '^(drivers/gpu/drm/amd|include)/' | sort -u)
	if git -C "$tree" rev-parse -q --verify kfdmp-base >/dev/null 2>&1; then
		for f in "${bfiles[@]}"; do
			git -C "$tree" cat-file -e "kfdmp-base:$f" 2>/dev/null || continue
			mkdir -p "$tmp/ub/$(dirname "$f")"
			git -C "$tree" cat-file blob "kfdmp-base:$f" >"$tmp/ub/$f"
		done
	else
		mkdir -p "$tmp/ub"
		tar -x -C "$tmp/ub" -f "${KSRC:-/usr/src/linux-source-6.12.tar.xz}" --wildcards --no-wildcards-match-slash --strip-components=1 \
			"${bfiles[@]/#/*/}" 2>/dev/null || true
	fi
	mkdir -p "$tmp/ub/drivers/gpu/drm/amd" "$tmp/ub/include"
	cp -a "$tmp/ub/drivers/gpu/drm/amd/." "$b/amd/"
	cp -a "$tmp/ub/include" "$b/include"
	[ -f "$b/amd/amdkfd/kfd_priv.h" ] || bad "--build: no amd/amdkfd/kfd_priv.h of the upstream base"
	cp "$vsrc/Makefile" "$b/Makefile"
	mkdir -p "$b/amd/dkms/config"
	# pre-build.sh as far as the arguments go: it records them, links the
	# build directory, writes .env there and edits a source (sed -i), as the
	# real one does; configure's config.h is empty: the sanity check passes.
	cat >"$b/amd/dkms/pre-build.sh" <<'EOF'
#!/bin/bash
printf '%s\n' "$#" "$@" >"$KFDMP_TEST_ARGS"
mkdir -p amd/dkms/config
ln -s "$2" "$3" || exit 1
echo "PATH=$PATH" >"$3/.env" || exit 1
sed -i 's/^/\/\* edited by pre-build \*\/ /' amd/amdkfd/kfd_priv.h
: >amd/dkms/config/config.h
EOF
	# shellcheck disable=SC2016 # expands when it runs
	printf '#!/bin/sh\necho "post-build $1" >>"$KFDMP_TEST_ARGS.post"\n' >"$b/amd/dkms/post-build.sh"
	chmod +x "$b/amd/dkms/pre-build.sh" "$b/amd/dkms/post-build.sh"
	kd=$tmp/kdir
	mkdir -p "$kd/include/config"
	printf 'CONFIG_DRM=y\nCONFIG_KALLSYMS=y\n' >"$kd/include/config/auto.conf"
	# shellcheck disable=SC2016 # make's $(M)
	printf 'modules:\n\tmkdir -p $(M)/amd/amdgpu && echo fake >$(M)/amd/amdgpu/amdgpu.ko\n' >"$kd/Makefile"
	git -C "$b" init -q -b vendor && git -C "$b" add -A -f . && git -C "$b" -c user.name=v -c user.email=v@v commit -q -m v
	rc=0
	KFDMP_TEST_ARGS=$tmp/args KDIR=$kd KVER=5.10.0-32-amd64 "$port" "$b" --series "$series" --work "$work/b" --build >"$tmp/b.log" 2>&1 || rc=$?
	mapfile -t args 2>/dev/null <"$tmp/args" || args=()
	[ "$rc" = 0 ] && ok "--build on the dkms layout: exit 0" || { tail -n 20 "$tmp/b.log"; bad "--build: exit $rc"; }
	[ "${args[0]:-}" = 4 ] && [ "${args[1]}" = 5.10.0-32-amd64 ] && [ "${args[2]}" = "$work/b.build" ] && [[ ${args[3]} == /tmp/amd.* ]] && [ -n "${args[4]}" ] &&
		ok "pre-build.sh got its four arguments: ${args[*]:1}" || bad "pre-build.sh arguments: ${args[*]:-none}"
	[ -L "${args[3]:-/nonexistent}" ] && [ -f "${args[3]}/.env" ] && ok "its ln -s worked and .env is in the build directory" || bad "no link or .env"
	[ -f "$tmp/args.post" ] && ok "post-build.sh ran (the tree's Makefile did the build)" || bad "post-build.sh did not run"
	grep -q 'edited by pre-build' "$work/b.build/amd/amdkfd/kfd_priv.h" && ! grep -q 'edited by pre-build' "$work/b/amd/amdkfd/kfd_priv.h" "$b/amd/amdkfd/kfd_priv.h" &&
		ok "pre-build.sh edited the build copy only: the work tree and DEST are untouched" || bad "pre-build.sh edited the work tree or DEST"
	grep -q 'built .*/amd/amdgpu/amdgpu.ko' "$tmp/b.log" && ok "the built modules are listed" || bad "no module listed"
	rm -f "${args[3]:-/nonexistent}"
	# The sanity check: a config.h that says the headers lack dma_resv->seq stops the build.
	sed -i 's|^: >amd/dkms/config/config.h|echo "#define HAVE_DMA_RESV_SEQ_BUG 1" >amd/dkms/config/config.h|' "$b/amd/dkms/pre-build.sh"
	git -C "$b" -c user.name=v -c user.email=v@v commit -q -a -m "v2"
	rc=0
	KFDMP_TEST_ARGS=$tmp/args2 KDIR=$kd KVER=5.10.0-32-amd64 "$port" "$b" --series "$series" --work "$work/b2" --branch p2 --build >"$tmp/b2.log" 2>&1 || rc=$?
	[ "$rc" = 1 ] && grep -q 'dma_resv->seq is missing' "$tmp/b2.log" && ok "the headers' sanity check runs and stops the build" ||
		{ tail -n 10 "$tmp/b2.log"; bad "sanity check: exit $rc"; }
	rm -f "$(sed -n 4p "$tmp/args2" 2>/dev/null)"
else
	echo "SKIP part: the tarball has no top-level Makefile or amd/dkms/pre-build.sh"
fi
echo "port vendor test (upstream): $(( $(date +%s) - t0 )) s"
verdict "port vendor test (upstream)"
