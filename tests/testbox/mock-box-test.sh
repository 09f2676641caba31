#!/usr/bin/env bash
# CI test of the real (not dry) path of scripts/testbox.sh on a fake box:
# stub insmod/rmmod/modprobe/modinfo/dmesg/uname/id/lsof on PATH keep a fake
# /sys/module/amdgpu, KFD topology, debugfs and /dev/kfd in a temporary
# directory (the KFDMP_* overrides of testbox.sh), and a fake kfdmp writes
# the sample's results. Nothing on this machine is loaded or unloaded.
#
#   full       two configurations load, run, report; the stock driver is back
#              at the end and the state file is gone
#   failure    a configuration whose insmod is refused: recorded, the sweep
#              goes on, exit 1, the stock driver is back
#   ctrl-c     SIGINT to the process group during kfdmp: exit 130, the stock
#              driver is back, restore.env says ok
#   restore    rmmod fails: the run says RESTORE FAILED and keeps the state;
#              `testbox.sh restore` later puts the stock driver back, and a
#              second restore is a no-op
#   refusals   a box check that fails (amdgpu in use) loads nothing
#   partition  (issue 17) a mock driver keeps the GPU's partition sysfs and
#              re-enumerates the KFD nodes (one per partition) after a mode
#              write: a CPX arm switches, waits for 4 nodes, runs kfdmp with the
#              arm's options and records the mode; a DPX switch the driver
#              refuses fails that arm only; an unsupported QPX and a KFD user
#              present refuse the switch; SPX is back at the end, after a
#              failure and after Ctrl-C; an optional parameter the module lacks
#              skips its arm with the reason
#   tenant     (issue 18) --tenant: the series' driver with stock
#              parameters, then kfd_short_dequeue_wait=on; the critical
#              tenant alone picks the rate (u <= 0.3), or TENANT_RATE; kfdmp's
#              tenant mode with the three arms; the report's tenant section
#              (p99 ratio, best-effort kept, suspend p99, each target); the
#              sched arm skipped, the harness failing and the rate measurement
#              failing are reported with the reason, and the stock driver is
#              back after each; a bad TENANT_RATE loads nothing
#   phase1     (issue 24) the default run on an 8-GPU box on its stock driver
#              with services on two other GPUs: make testbox WORKLOAD="docker
#              exec -i svc ..." GPU=3 calls no rmmod/insmod/modprobe, writes no
#              partition attribute, hands --devices 3 to every kfdmp, a docker
#              stand-in runs the service, --graph answered "unsupported" is
#              skipped with the reason, driver arms are listed as phase 2; a
#              process with queues on GPU 3 refuses; GPU 3 in CPX skips the SPX
#              arm without a write; REFERENCE=gpt2 CONTAINER=svc copies the
#              script and helper into svc and runs them there; PHASE=driver
#              says first that every GPU stops; with KFDMP_MOCK_HARNESS (the
#              harness build) the same with the real kfdmp --exec
#   dkms       the box's amdgpu-dkms stack on a 5.10 kernel (MOCK_DKMS=1: the
#              stubs know amdgpu's six companions and their dependencies,
#              rmmod refuses a module in use, modprobe amdgpu loads the whole
#              stock stack): box checks (any kernel the DKMS source builds
#              for, dkms status, /sys/module/amdgpu/version); the stock stack
#              unloaded amdgpu first, then amdxcp amddrm_ttm_helper
#              amddrm_buddy amd-sched amdttm amdkcl; ours loaded in the
#              reverse order; the stock stack back at the end, after a
#              refused companion, a refused amdgpu, and SIGINT; the dry run
#              builds with make modules KSRC=<the box's /usr/src/amdgpu-*>;
#              make testbox typed as on the box (no KSRC, --stack, --module):
#              the inner make modules gets the registered tree and no SERIES;
#              as root with SUDO_UID/SUDO_GID set (sudo make testbox), what
#              the run wrote under BUILD is handed back to that user, and a
#              file another user owns there is left alone
# ok and bad always succeed (tests/test-lib.sh): `cond && ok .. || bad ..` is an if-else.
# The stubs are written in single quotes on purpose: they expand when they run.
# shellcheck disable=SC2015,SC2016
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../test-lib.sh
. "$(dirname "$0")/../test-lib.sh"
scratch mock-box

export MOCK=$tmp/box
export KFDMP_MOD_SYSFS=$MOCK/sys/module/amdgpu KFDMP_KFD_SYSFS=$MOCK/sys/class/kfd/kfd
export KFDMP_KFD_DEBUGFS=$MOCK/debug/kfd KFDMP_KFD_DEV=$MOCK/dev/kfd KFDMP_KMSG=$MOCK/kmsg
export KFDMP_TESTBOX_STATE=$MOCK/run/kfdmp-testbox KFDMP_RMMOD_TRIES=1 KFDMP_RESTORE_TIMEOUT=2
export KVER=$KVER_DEFAULT KDIR=$MOCK/kdir MOCK_SAMPLE=$root/tests/testbox/sample MOCK_FIXTURES=$root/tests/testbox/fixtures
mkdir -p "$MOCK/run" "$KDIR" "$tmp/bin" "$tmp/harness"
touch "$KDIR/Makefile" "$KFDMP_KMSG"
echo "fake module" >"$tmp/amdgpu.ko"

# --- stubs ----------------------------------------------------------------------------
# Every stub logs its call to $MOCK/calls.log first (phase 1: "nothing is
# unloaded" is no rmmod/modprobe/insmod/dkms line there).
stub() { printf '#!/usr/bin/env bash\nset -eu\necho "%s $*" >>"$MOCK/calls.log"\n%s\n' "$1" "$2" >"$tmp/bin/$1"; chmod +x "$tmp/bin/$1"; }
# load_driver ours|stock [PARAM=VALUE...]: the fake driver appears.
cat >"$tmp/bin/mock-load" <<'EOF'
#!/usr/bin/env bash
set -eu
kind=$1; shift
m=$KFDMP_MOD_SYSFS
mkdir -p "$m/parameters" "$m/holders" "$KFDMP_KFD_SYSFS/topology/nodes/1" "$(dirname "$KFDMP_KFD_DEV")" "$KFDMP_KFD_DEBUGFS"
echo 0 >"$m/refcnt"
echo 0 >"$m/parameters/sched_policy"; echo 0 >"$m/parameters/mes"; echo -1 >"$m/parameters/hws_max_conc_proc"
if [ "$kind" = ours ]; then
	echo 0 >"$m/parameters/kfd_mp"; echo 8 >"$m/parameters/kfd_queue_slot_range"
	for w in kfd_queue_slot_policy kfd_doorbell_placement kfd_queued_runlist; do echo default >"$m/parameters/$w"; done
	cp "$MOCK_SAMPLE/configs/stock/mp_stats.before" "$KFDMP_KFD_DEBUGFS/mp_stats"
	echo "hqds" >"$KFDMP_KFD_DEBUGFS/hqds"; echo "rls" >"$KFDMP_KFD_DEBUGFS/rls"
else
	rm -f "$KFDMP_KFD_DEBUGFS/mp_stats"
fi
for p in "$@"; do echo "${p#*=}" >"$m/parameters/${p%%=*}"; done
printf 'gfx_target_version 90402\nsimd_count 1216\n' >"$KFDMP_KFD_SYSFS/topology/nodes/1/properties"
echo 53241 >"$KFDMP_KFD_SYSFS/topology/nodes/1/gpu_id"
touch "$KFDMP_KFD_DEV"
[ ! -e "$MOCK/kfd-user" ] || mkdir -p "$KFDMP_KFD_SYSFS/proc/4242"
[ "${MOCK_DKMS:-0}" = 0 ] || echo "6.12.12-2194681.el8" >"$m/version"
echo "[drm] amdgpu ($kind) loaded" >>"$KFDMP_KMSG"
EOF
chmod +x "$tmp/bin/mock-load"
# mock-deps NAME: the modules NAME needs (sysfs names), on the DKMS mock box.
cat >"$tmp/bin/mock-deps" <<'EOF'
#!/usr/bin/env bash
case ${1//-/_} in
amdttm|amd_sched|amddrm_buddy) echo amdkcl ;;
amddrm_ttm_helper) echo amdttm amdkcl ;;
amdgpu) [ "${MOCK_DKMS:-0}" = 0 ] || echo amdkcl amdttm amd_sched amddrm_buddy amddrm_ttm_helper amdxcp ;;
esac
EOF
chmod +x "$tmp/bin/mock-deps"
stub insmod 'ko=$1; name=$(basename "$ko" .ko); sys=$(dirname "$KFDMP_MOD_SYSFS")
echo "insmod $name" >>"$MOCK/ops.log"
[ "${MOCK_FAIL_INSMOD:-}" != "$name" ] || { echo "$name: disagrees about version of symbol ttm_bo_init (mock)" >>"$KFDMP_KMSG"; echo "insmod: Invalid module format" >&2; exit 1; }
for d in $(mock-deps "$name"); do [ -d "$sys/$d" ] || { echo "$name: Unknown symbol from $d (mock)" >>"$KFDMP_KMSG"; echo "insmod: Unknown symbol in module" >&2; exit 1; }; done
if [ "$name" != amdgpu ]; then
	[ ! -d "$sys/${name//-/_}" ] || { echo "insmod: File exists" >&2; exit 1; }
	mkdir -p "$sys/${name//-/_}/holders"; exit 0
fi
[ -d "$KFDMP_MOD_SYSFS" ] && { echo "insmod: module exists" >&2; exit 1; }
shift
took=()
for p in "$@"; do
	case $p in kfd_queue_slot_range=512) echo "amdgpu: probe of the test GPU failed with -ENOMEM (mock)" >>"$KFDMP_KMSG"; echo "insmod: Cannot allocate memory" >&2; exit 1 ;; esac
	# a driver built with a smaller range: it warns and takes its default, as kfd_mp_param.c does
	case $p in kfd_queue_slot_range=256) echo "amdgpu: kfd_queue_slot_range: invalid value '"'"'256'"'"'; valid values: 1..128, a power of 2; using the default 8 (mock)" >>"$KFDMP_KMSG"; p=kfd_queue_slot_range=8 ;; esac
	took+=("$p")
done
echo "$*" >>"$MOCK/insmod.log"
mock-load ours ${took[@]+"${took[@]}"}'
stub rmmod 'name=$1; sys=$(dirname "$KFDMP_MOD_SYSFS")
echo "rmmod $name" >>"$MOCK/ops.log"
if [ "$name" != amdgpu ]; then
	[ -d "$sys/${name//-/_}" ] || { echo "rmmod: not loaded" >&2; exit 1; }
	for m in "$sys"/*; do for d in $(mock-deps "$(basename "$m")"); do
		[ "$d" != "${name//-/_}" ] || { echo "rmmod: ERROR: Module $name is in use by: $(basename "$m")" >&2; exit 1; }
	done; done
	rm -rf "${sys:?}/${name//-/_}"; exit 0
fi
[ -d "$KFDMP_MOD_SYSFS" ] || { echo "rmmod: not loaded" >&2; exit 1; }
[ ! -e "$MOCK/rmmod-fails" ] || { echo "rmmod: ERROR: Module amdgpu is in use" >&2; exit 1; }
rm -rf "$KFDMP_MOD_SYSFS" "$KFDMP_KFD_SYSFS" "$KFDMP_KFD_DEV"'
stub modprobe 'sys=$(dirname "$KFDMP_MOD_SYSFS")
case $* in
"amdgpu") if [ "${MOCK_DKMS:-0}" = 1 ]; then for m in amdkcl amdttm amd-sched amddrm_buddy amddrm_ttm_helper amdxcp; do
		[ -d "$sys/${m//-/_}" ] || { mkdir -p "$sys/${m//-/_}/holders"; echo "modprobe-load $m" >>"$MOCK/ops.log"; }; done; fi
	[ -d "$KFDMP_MOD_SYSFS" ] || { mock-load stock; echo "modprobe-load amdgpu" >>"$MOCK/ops.log"; }; echo stock >>"$MOCK/modprobe.log" ;;
"-a "*) echo "modprobe $*" >>"$MOCK/ops.log" ;;
*) ;;
esac'
stub modinfo 'while [ $# -gt 0 ]; do case $1 in -k) shift 2 ;; -F) f=$2; shift 2 ;; -p) f=params; shift ;; -n) f=path; shift ;; *) break ;; esac; done
case ${f:-} in
vermagic) echo "$KVER SMP preempt mod_unload modversions" ;;
depends) if [ "${MOCK_DKMS:-0}" = 0 ]; then echo "drm_ttm_helper,ttm,gpu-sched"; else
	case $(basename "${1:-x}" .ko) in
	amdgpu) echo "amdxcp,amddrm_ttm_helper,amdttm,amddrm_buddy,amd-sched,amdkcl,drm_kms_helper,drm,i2c-algo-bit" ;;
	amdttm|amd-sched|amddrm_buddy) echo "amdkcl,drm" ;;
	amddrm_ttm_helper) echo "amdttm,amdkcl,drm" ;;
	*) echo "" ;;
	esac; fi ;;
srcversion) echo "" ;;
path) if [ "${MOCK_DKMS:-0}" = 0 ]; then echo "/lib/modules/$KVER/kernel/drivers/gpu/drm/amd/amdgpu/amdgpu.ko.xz"
	else echo "/lib/modules/$KVER/extra/amdgpu.ko.xz"; fi ;;
params) printf "%s\n" "sched_policy:Scheduling policy (int)" "kfd_mp:Multi-process scheduling changes" \
	"kfd_queue_slot_policy:queue slots" "kfd_queue_slot_range:slots per range" \
	"kfd_doorbell_placement:doorbells" "kfd_queued_runlist:runlist" ${MOCK_MORE_PARAMS:-} ;;
esac'
stub dmesg 'cat "$KFDMP_KMSG"'
stub uname '[ "${1:-}" = -r ] && echo "$KVER" || /bin/uname "$@"'
stub id '[ "${1:-}" = -u ] && echo 0 || /usr/bin/id "$@"'
stub dkms '[ "${1:-}" = status ] && echo "amdgpu/6.12.12-2194681.el8, $KVER, x86_64: installed"; exit 0'
stub lsof '[ -e "$MOCK/kfd-open" ] && printf "COMMAND PID\nrocm-smi 4242\n"; exit 0'
# docker (issue 24): containers are directories $MOCK/containers/NAME; a
# path inside one is that directory + the path. inspect, cp and exec -i
# (which runs the command here, its paths mapped) are logged to docker.log.
# ctest (testbox.sh --ctest): which GPUs the scaling tests may see.
stub ctest 'echo "ROCR_VISIBLE_DEVICES=${ROCR_VISIBLE_DEVICES-unset} $*" >>"$MOCK/ctest.log"; echo "100% tests passed, 0 tests failed out of 1"'
stub docker 'case $1 in
inspect) c=${!#}; [ -d "$MOCK/containers/$c" ] || { echo "Error: No such object: $c" >&2; exit 1; }; echo true ;;
cp) c=${3%%:*}; [ -d "$MOCK/containers/$c" ] || { echo "Error: No such container: $c" >&2; exit 1; }
	echo "cp $2 $3" >>"$MOCK/docker.log"; mkdir -p "$MOCK/containers/$c${3#*:}"; cp -r "$2" "$MOCK/containers/$c${3#*:}" ;;
exec) shift; while [ "${1#-}" != "$1" ]; do shift; done; c=$1; shift
	[ -d "$MOCK/containers/$c" ] || { echo "Error: No such container: $c" >&2; exit 1; }
	echo "exec $c $*" >>"$MOCK/docker.log"
	args=(); for a in "$@"; do case $a in /*) [ ! -e "$MOCK/containers/$c$a" ] && [ "$1" != mkdir ] || a=$MOCK/containers/$c$a ;; esac; args+=("$a"); done
	exec "${args[@]}" ;;
*) echo "docker $1: not in the mock" >&2; exit 1 ;;
esac'
# The harness: kfdmp copies the sample's results; MOCK_KFDMP_SLEEP makes it wait.
# Tenant mode (--critical): MOCK_TENANT ok (default) copies the fixture,
# skip the one whose sched arm the harness skipped, fail exits 1 with no
# results; fail-alone fails the critical tenant's run alone (--workload).
cat >"$tmp/harness/kfdmp" <<'EOF'
#!/usr/bin/env bash
set -eu
out= wl= crit= exe=
echo "$*" >>"$MOCK/kfdmp-args.log"
env_lines=() opt_lines=()
while [ $# -gt 0 ]; do case $1 in --out) out=$2; shift ;; --workload) wl=$2; shift ;; --critical) crit=$2; shift ;;
	--exec) exe=$2; shift ;;
	--hw-queues) env_lines+=("env GPU_MAX_HW_QUEUES=$2"); shift ;;
	--cpu-threads) env_lines+=("env OMP_NUM_THREADS=$2"); opt_lines+=("option threads=$2"); shift ;;
	--graph) opt_lines+=("option graph=1") ;;
	esac; shift; done
mkdir -p "$out"
# An exec workload (issue 24), as kfdmp --exec drives it (docs/exec-workers.md,
# one worker, one query): an "unsupported" answer makes the run unavailable.
if [ -n "$exe" ]; then
	echo "$exe" >>"$MOCK/exec.log"
	coproc W { sh -c "$exe"; }
	{ echo "kfdmp 1 hello index=0 workers=1"; for l in "${env_lines[@]}" "${opt_lines[@]}"; do echo "$l"; done; echo "config end"; } >&"${W[1]}"
	read -r -t 10 line <&"${W[0]}" || line="(nothing)"
	case $line in
	"kfdmp 1 ready"*) ;;
	"kfdmp 1 unsupported "*) set -- $line
		# as kfdmp writes it: the sweep stops at its first run, status unavailable
		python3 - "$MOCK_SAMPLE/configs/stock/latency/results.json" "$out/results.json" "the workload cannot take ${4}: ${*:5}" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = d["runs"][0]
r.update(status="unavailable", reason=sys.argv[3], aggregate_qps=None, scaling_ratio=None)
d["runs"], d["summary"] = [r], []
json.dump(d, open(sys.argv[2], "w"))
PY
		echo stop >&"${W[1]}"; wait "$W_PID" || true; echo "kfdmp: unavailable"; exit 77 ;;
	*) echo "kfdmp: worker 0 broke the protocol: $line" >&2; exit 1 ;;
	esac
	echo "query 1" >&"${W[1]}"; read -r -t 10 line <&"${W[0]}"
	[ "$line" = "done 1" ] || { echo "kfdmp: worker 0: $line" >&2; exit 1; }
	echo stop >&"${W[1]}"; wait "$W_PID" || true
	wl=latency
fi
if [ -n "$crit" ]; then
	case ${MOCK_TENANT:-ok} in
	fail) echo "kfdmp: worker 3 exited with status 134 (mock)" >&2; exit 1 ;;
	skip) cp "$MOCK_FIXTURES/tenant-results-sched-skipped.json" "$out/results.json" ;;
	*) cp "$MOCK_FIXTURES/tenant-results.json" "$out/results.json" ;;
	esac
	echo "kfdmp: tenant mode done"; exit 0
fi
[ "${MOCK_TENANT:-}" != fail-alone ] || { echo "kfdmp: hipMalloc failed (mock)" >&2; exit 1; }
if [ -n "${MOCK_KFDMP_SLEEP:-}" ]; then
	touch "$MOCK/kfdmp-started"
	trap 'echo "kfdmp: interrupted"; exit 130' INT
	sleep "$MOCK_KFDMP_SLEEP" & wait
fi
[ -z "${MOCK_BREAK_RMMOD:-}" ] || touch "$MOCK/rmmod-fails"
# Both queues appear at once (a rename), for two sampling periods: on a
# loaded machine a sampler that saw the directory half made, or not at
# all, failed the queues.tsv check.
mkdir -p "$KFDMP_KFD_SYSFS/proc/.777/queues/0" "$KFDMP_KFD_SYSFS/proc/.777/queues/1"
[ -z "${MOCK_GPU_ID:-}" ] || for q in 0 1; do echo "$MOCK_GPU_ID" >"$KFDMP_KFD_SYSFS/proc/.777/queues/$q/gpuid"; done
mv "$KFDMP_KFD_SYSFS/proc/.777" "$KFDMP_KFD_SYSFS/proc/777"
sleep 2
cp "$MOCK_SAMPLE/configs/stock/$wl/results.json" "$out/results.json"
cp "$MOCK_SAMPLE/configs/stock/mp_stats.after" "$KFDMP_KFD_DEBUGFS/mp_stats"
rm -rf "$KFDMP_KFD_SYSFS/proc/777"
echo "kfdmp: $wl done"
EOF
printf '#!/bin/sh\nexit 0\n' >"$tmp/harness/kfdmp-worker"
chmod +x "$tmp/harness/kfdmp" "$tmp/harness/kfdmp-worker"
export PATH=$tmp/bin:$PATH
export KFDMP_USR_SRC=$MOCK/usr/src
# scripts/check-box.sh is tested by box-path-test.sh; here it would only add
# its 3-8 s to every run.
export KFDMP_PREFLIGHT_DONE=1
# This machine's Secure Boot state and processes are not the mock box's.
export KFDMP_EFIVARS=$MOCK/efivars KFDMP_LOCKDOWN=$MOCK/lockdown KFDMP_SIG_ENFORCE=$MOCK/sig_enforce KFDMP_PROC=$MOCK/proc

cat >"$tmp/matrix.conf" <<'EOF'
stock | - | defaults | baseline | - |
all   | kfd_mp=1 | everything
bad   | kfd_queue_slot_range=512 | a valid value whose insmod the mock box refuses
shrunk | kfd_queue_slot_range=256 | a valid value that the mock box's driver replaces by its default
EOF
# The sections below (full ... partition, dkms) are the driver way: every
# arm a load of ours (--phase all; phase 2's path).
tb() { "$root/scripts/testbox.sh" "$@" --phase all --matrix "$tmp/matrix.conf" --module "$tmp/amdgpu.ko" --harness-dir "$tmp/harness" \
	--no-trace --workloads latency --repeat 1 --load-timeout 3; }
stock_back() { [ -d "$KFDMP_MOD_SYSFS" ] && [ ! -e "$KFDMP_MOD_SYSFS/parameters/kfd_mp" ] && [ -e "$KFDMP_KFD_DEV" ]; }

# --- phase 1 (issue 24): the default run leaves the box serving ----------------------------
# Another fake box, on its stock driver: 8 GPUs (KFD nodes 2-9 after two CPU
# nodes), each with its PCI device (partition attributes, NUMA node);
# services with KFD queues and memory on GPUs 0 and 5, one in a Docker
# container; the user's container "svc" with the service's bench.py, which
# speaks the exec protocol and cannot take --graph. GPU=3 is under test.
B=$tmp/box1
p1env() {
	MOCK=$B KFDMP_MOD_SYSFS=$B/sys/module/amdgpu KFDMP_KFD_SYSFS=$B/sys/class/kfd/kfd KFDMP_KFD_DEV=$B/dev/kfd \
		KFDMP_KFD_DEBUGFS=$B/debug/kfd KFDMP_KMSG=$B/kmsg KFDMP_TESTBOX_STATE=$B/run/kfdmp-testbox \
		KFDMP_PCI_DEVICES=$B/sys/bus/pci/devices KFDMP_PROC=$B/proc KFDMP_PYTHON_DIR=$B/python MOCK_GPU_ID=13333 "$@"
}
mkbox1() {
	local i n k d pci
	rm -rf "$B"
	k=$B/sys/class/kfd/kfd
	mkdir -p "$B/sys/module/amdgpu/parameters" "$B/sys/module/amdgpu/holders" "$B/dev" "$B/run" "$B/debug/kfd" "$k/proc" \
		"$B/containers/svc/srv" "$B/python"
	echo 0 >"$B/sys/module/amdgpu/parameters/sched_policy"; echo 0 >"$B/sys/module/amdgpu/parameters/mes"
	echo 6.12.12-2194681.el8 >"$B/sys/module/amdgpu/version"; echo 14 >"$B/sys/module/amdgpu/refcnt"
	touch "$B/dev/kfd" "$B/kmsg"
	for n in 0 1; do mkdir -p "$k/topology/nodes/$n"; echo 0 >"$k/topology/nodes/$n/gpu_id"; echo "cpu_cores_count 112" >"$k/topology/nodes/$n/properties"; done
	for i in 0 1 2 3 4 5 6 7; do
		n=$((i + 2)) d=$k/topology/nodes/$((i + 2)) pci=$(printf '0000:%02x:00.0' $((0x0c + i * 0x10)))
		mkdir -p "$d" "$B/sys/bus/pci/devices/$pci"
		echo $((10000 + i * 1111)) >"$d/gpu_id"
		printf 'gfx_target_version 90402\nlocation_id %d\ndomain 0\ndrm_render_minor %d\n' $(((0x0c + i * 0x10) << 8)) $((128 + i)) >"$d/properties"
		echo SPX >"$B/sys/bus/pci/devices/$pci/current_compute_partition"
		echo "SPX, DPX, CPX" >"$B/sys/bus/pci/devices/$pci/available_compute_partition"
		echo NPS1 >"$B/sys/bus/pci/devices/$pci/current_memory_partition"
		echo $((i / 4)) >"$B/sys/bus/pci/devices/$pci/numa_node"
	done
	# services on GPU 0 (in a container) and GPU 5: queues and memory
	for i in 5001:10000 5002:15555; do
		n=${i%%:*} d=$k/proc/${i%%:*}
		mkdir -p "$d/queues/0" "$d/queues/1" "$B/proc/$n"
		echo "${i#*:}" >"$d/queues/0/gpuid"; echo "${i#*:}" >"$d/queues/1/gpuid"
		for g in 10000 11111 12222 13333 14444 15555 16666 17777; do echo 0 >"$d/vram_$g"; done
		echo 2147483648 >"$d/vram_${i#*:}"
		echo python3 >"$B/proc/$n/comm"
	done
	echo "0::/system.slice/docker-aaaaaaaaaaaabbbbbbbbbbbb.scope" >"$B/proc/5001/cgroup"
	cat >"$B/containers/svc/srv/bench.py" <<'PY'
import sys
opts = {}
for line in sys.stdin:
    w = line.split()
    if not w or w[0] == "kfdmp":
        continue
    if w[0] == "option":
        k, _, v = w[1].partition("=")
        opts[k] = v
    elif w[0] == "config":
        if opts.get("graph") == "1":
            print("kfdmp 1 unsupported graph this service does not capture graphs")
            sys.stdout.flush()
            sys.exit(0)
        print("kfdmp 1 ready device=mock")
    elif w[0] == "query":
        print("done " + w[1])
    elif w[0] == "stop":
        break
    sys.stdout.flush()
PY
	cp "$B/containers/svc/srv/bench.py" "$B/python/kfdmp_reference.py"
	echo "# stand-in of the harness's helper" >"$B/python/kfdmp_worker.py"
}
# parts: every GPU's partition attributes with their modification times.
parts() { find "$B/sys/bus/pci/devices" -name '*_partition' -printf '%p %TY-%Tm-%Td %TT\n' | sort; for f in "$B"/sys/bus/pci/devices/*/current_compute_partition; do cat "$f"; done; }
cat >"$tmp/p1.conf" <<'EOF'
stock  | -        | reference | baseline | SPX |
hwq1   | -        | hardware queues | hws_oversubscription | SPX | --hw-queues 1
graph  | -        | graph replay | submit_path | SPX | --graph
cpx    | -        | partition arm | xcc_l2_sharing | CPX | --procs 1,4 --devices 0,1,2,3
all    | kfd_mp=1 | the switches | switches | SPX |
EOF
p1a=(--matrix "$tmp/p1.conf" --harness-dir "$tmp/harness" --no-trace --repeat 1)
gmk=$(command -v make)
mkbox1
parts >"$tmp/parts.before"
rc=0; p1env "$gmk" -s -C "$root" testbox WORKLOAD="docker exec -i svc python3 /srv/bench.py" GPU=3 \
	TESTBOX_ARGS="${p1a[*]} --out $tmp/p1" >"$tmp/p1.log" 2>&1 || rc=$?
[ "$rc" = 0 ] && ok "phase 1: sudo make testbox WORKLOAD=\"docker exec -i svc python3 /srv/bench.py\" GPU=3: exit 0" ||
	{ tail -n 30 "$tmp/p1.log"; bad "phase 1: exit $rc"; }
head -n 1 "$tmp/p1.log" | grep -q '^testbox: phase 1 (the host arms): on the driver already loaded, on GPU 3 only\. Nothing is built, unloaded, loaded or switched' &&
	ok "phase 1: says what it does to the box before anything else" || bad "phase 1: first line: $(head -n 1 "$tmp/p1.log")"
! grep -qE '^(rmmod|insmod|modprobe) |^dkms (add|build|install|remove)' "$B/calls.log" && [ -d "$B/sys/module/amdgpu" ] && [ -e "$B/dev/kfd" ] &&
	[ "$(cat "$B/sys/module/amdgpu/refcnt")" = 14 ] && grep -q 'no driver is built or loaded' "$tmp/p1.log" &&
	ok "phase 1: nothing unloaded or loaded: no rmmod/insmod/modprobe call, no dkms but status, no module build, amdgpu and /dev/kfd still there" ||
	bad "phase 1: module operations: $(grep -E '^(rmmod|insmod|modprobe) |^dkms (add|build|install|remove)' "$B/calls.log" | head -3)"
parts | cmp -s - "$tmp/parts.before" && ok "phase 1: no partition attribute of any GPU written (modes and times unchanged)" || bad "phase 1: a partition attribute changed"
n=$(grep -c . "$B/kfdmp-args.log" || true)
[ "$n" = 3 ] && [ "$(grep -c -- '^--exec docker exec -i svc python3 /srv/bench.py --procs 1,2,4,8 --repeat 1 .* --devices 3\( \|$\)' "$B/kfdmp-args.log")" = 3 ] &&
	ok "phase 1: kfdmp --exec \"docker exec -i svc python3 /srv/bench.py\" --devices 3, once per host arm (stock, hwq1, graph)" ||
	bad "phase 1: kfdmp calls: $(cat "$B/kfdmp-args.log")"
[ "$(grep -c '^exec svc python3 /srv/bench.py$' "$B/docker.log")" = 3 ] && ! grep '^docker ' "$B/calls.log" | grep -qv ' svc ' &&
	ok "phase 1: the docker stand-in received the exec of the service (3 times), and no docker call named another container" ||
	bad "phase 1: docker log: $(cat "$B/docker.log" 2>/dev/null)"
st() { cat "$1/configs/$2/status" 2>/dev/null; }
[ "$(st "$tmp/p1" stock)" = ok ] && [ "$(st "$tmp/p1" hwq1)" = ok ] && ok "phase 1: stock and hwq1 ran (ok)" || bad "phase 1: stock $(st "$tmp/p1" stock), hwq1 $(st "$tmp/p1" hwq1)"
[ "$(st "$tmp/p1" graph)" = "skipped: exec: the workload cannot take graph: this service does not capture graphs" ] &&
	grep -q '^unavailable=' "$tmp/p1/configs/graph/exec/workload.env" &&
	ok "phase 1: --graph on a service that answers unsupported: skipped with its reason, not run as stock" || bad "phase 1: graph: $(st "$tmp/p1" graph)"
grep -q '^skipped: phase 2 (driver arm: it switches the compute partition to CPX: the driver refuses the switch while any process on any GPU' "$tmp/p1/configs/cpx/status" &&
	grep -q '^skipped: phase 2 (driver arm: it loads amdgpu with kfd_mp=1); it needs the whole box: PHASE=driver' "$tmp/p1/configs/all/status" &&
	grep -q '^phase=driver$' "$tmp/p1/configs/cpx/arm.env" && grep -q '^phase=host$' "$tmp/p1/configs/stock/arm.env" &&
	ok "phase 1: the partition and switches arms are listed as phase 2, with why" || bad "phase 1: cpx $(st "$tmp/p1" cpx); all $(st "$tmp/p1" all)"
grep -q '^compute=SPX$' "$tmp/p1/configs/stock/partition.env" && grep -q '^detail=read only (phase 1): SPX$' "$tmp/p1/configs/stock/partition.env" &&
	ok "phase 1: GPU 3's mode read (SPX), not written" || bad "phase 1: partition.env: $(cat "$tmp/p1/configs/stock/partition.env")"
[ "$(cut -f2,3 "$tmp/p1/configs/stock/queues.tsv" | sort -u | tr '\t\n' ': ')" = "777:2 " ] &&
	ok "phase 1: queues.tsv counts the queues on GPU 3 only (the run's 2; not the services of GPUs 0 and 5)" ||
	bad "phase 1: queues.tsv: $(sort -u "$tmp/p1/configs/stock/queues.tsv" | head -5)"
grep -qP '^gpu\tok\tGPU 3: KFD node 5, gpu_id 13333, PCI 0000:3c:00.0, /dev/dri/renderD131, NUMA node 0; 8 GPU\(s\) on the box$' "$tmp/p1/box-checks.tsv" &&
	grep -qP '^gpu-users\tok\tGPU 3 \(gpu_id 13333\): no process has KFD queues or memory on it' "$tmp/p1/box-checks.tsv" &&
	grep -qP '^other-gpus\tinfo\tleft serving, not touched: python3\(5001, container docker-aaaaaaaaaaaa\) python3\(5002\)$' "$tmp/p1/box-checks.tsv" &&
	ok "phase 1: box checks: GPU 3 found from the KFD topology, no user on it; the services on GPUs 0 and 5 named and left alone" ||
	{ cat "$tmp/p1/box-checks.tsv"; bad "phase 1: box checks"; }
grep -q '^detail=phase 1 changed no driver state' "$tmp/p1/restore.env" && grep -q '^phase=host$' "$tmp/p1/run.env" &&
	grep -q '^exec_exec=docker exec -i svc python3 /srv/bench.py$' "$tmp/p1/run.env" && [ -s "$tmp/p1/report/testbox.json" ] &&
	[ ! -e "$B/run/kfdmp-testbox/state" ] &&
	ok "phase 1: nothing to restore, no state file; run.env records the phase and the command; the report is written" ||
	{ cat "$tmp/p1/restore.env"; bad "phase 1: restore/run.env/report"; }

# A process with queues on GPU 3 stops phase 1 before anything runs; GPU 3
# in CPX skips the arms that need SPX (read, never written); no GPU 9.
mkdir -p "$B/sys/class/kfd/kfd/proc/5003/queues/0" "$B/proc/5003"
echo 13333 >"$B/sys/class/kfd/kfd/proc/5003/queues/0/gpuid"; echo rdc-monitor >"$B/proc/5003/comm"
: >"$B/kfdmp-args.log"
rc=0; p1env "$root/scripts/testbox.sh" run "${p1a[@]}" --gpu 3 --out "$tmp/p1busy" >"$tmp/p1busy.log" 2>&1 || rc=$?
[ "$rc" = 1 ] && grep -qE 'gpu-users +fail +GPU 3 \(gpu_id 13333\) has KFD queues of rdc-monitor\(5003\) \[1 queue\(s\)\]' "$tmp/p1busy.log" &&
	[ ! -s "$B/kfdmp-args.log" ] && ok "phase 1: a process with queues on GPU 3 (an idle monitor) refuses the run, named; nothing ran" ||
	{ tail -n 20 "$tmp/p1busy.log"; bad "phase 1: busy GPU 3: exit $rc"; }
rm -rf "$B/sys/class/kfd/kfd/proc/5003"
echo CPX >"$B/sys/bus/pci/devices/0000:3c:00.0/current_compute_partition"
parts >"$tmp/parts.before"
rc=0; p1env "$root/scripts/testbox.sh" run "${p1a[@]}" --gpu 3 --configs stock --out "$tmp/p1cpx" >"$tmp/p1cpx.log" 2>&1 || rc=$?
[ "$rc" = 0 ] && [ "$(st "$tmp/p1cpx" stock)" = "skipped: GPU 3 is in CPX, the arm needs SPX: a switch is a phase-2 step (PHASE=driver)" ] &&
	parts | cmp -s - "$tmp/parts.before" && ok "phase 1: GPU 3 in CPX: the SPX arm is skipped with the reason, nothing written" ||
	{ tail -n 10 "$tmp/p1cpx.log"; bad "phase 1: cpx gpu: exit $rc, $(st "$tmp/p1cpx" stock)"; }
echo SPX >"$B/sys/bus/pci/devices/0000:3c:00.0/current_compute_partition"
rc=0; p1env "$root/scripts/testbox.sh" run "${p1a[@]}" --gpu 9 --out "$tmp/p1g9" >"$tmp/p1g9.log" 2>&1 || rc=$?
[ "$rc" = 1 ] && grep -qE 'gpu +fail +no GPU 9: the KFD topology .* has 8 GPU node\(s\) \(GPU=0\.\.7\)' "$tmp/p1g9.log" &&
	ok "phase 1: GPU=9 on an 8-GPU box is refused with the range" || { tail -n 10 "$tmp/p1g9.log"; bad "phase 1: GPU 9: exit $rc"; }

# The reference workloads inside the user's container: the script and the
# helper are copied in (docker cp), then run there with docker exec -i.
: >"$B/docker.log"; : >"$B/kfdmp-args.log"
rc=0; p1env "$gmk" -s -C "$root" testbox REFERENCE=gpt2 CONTAINER=svc GPU=3 TESTBOX_ARGS="${p1a[*]} --configs stock --ctest --out $tmp/p1ref" >"$tmp/p1ref.log" 2>&1 || rc=$?
[ "$rc" = 0 ] && [ -f "$B/containers/svc/tmp/kfdmp-testbox/kfdmp_reference.py" ] && [ -f "$B/containers/svc/tmp/kfdmp-testbox/kfdmp_worker.py" ] &&
	grep -q "^cp $B/python/kfdmp_reference.py svc:/tmp/kfdmp-testbox/$" "$B/docker.log" &&
	ok "reference: sudo make testbox REFERENCE=gpt2 CONTAINER=svc GPU=3: kfdmp_reference.py and kfdmp_worker.py copied into svc:/tmp/kfdmp-testbox" ||
	{ tail -n 20 "$tmp/p1ref.log"; bad "reference: exit $rc; docker log: $(cat "$B/docker.log")"; }
grep -q -- '^--exec docker exec -i svc python3 /tmp/kfdmp-testbox/kfdmp_reference.py --model gpt2 .* --devices 3$' "$B/kfdmp-args.log" &&
	grep -q '^exec svc python3 /tmp/kfdmp-testbox/kfdmp_reference.py --model gpt2$' "$B/docker.log" && [ -s "$tmp/p1ref/configs/stock/gpt2/results.json" ] &&
	ok "reference: kfdmp --exec \"docker exec -i svc python3 /tmp/kfdmp-testbox/kfdmp_reference.py --model gpt2\": run in the container, results under configs/stock/gpt2" ||
	bad "reference: kfdmp: $(cat "$B/kfdmp-args.log"); docker: $(cat "$B/docker.log")"
grep -q '^ROCR_VISIBLE_DEVICES=3 -L scaling' "$B/ctest.log" && ok "phase 1 --ctest: the scaling tests see GPU 3 only (ROCR_VISIBLE_DEVICES=3)" ||
	bad "phase 1 --ctest: $(cat "$B/ctest.log" 2>/dev/null)"
rc=0; p1env "$root/scripts/testbox.sh" run "${p1a[@]}" --reference gpt2 --container nosuch --out "$tmp/p1nc" >"$tmp/p1nc.log" 2>&1 || rc=$?
[ "$rc" = 1 ] && grep -qE 'container +fail +container nosuch is not running' "$tmp/p1nc.log" && ! grep -q nosuch "$B/docker.log" &&
	ok "reference: a container that is not there refuses the run before anything is copied" || { tail -n 10 "$tmp/p1nc.log"; bad "reference: no container: exit $rc"; }
rc=0; out=$(p1env "$root/scripts/testbox.sh" run "${p1a[@]}" --container svc --out "$tmp/p1x" 2>&1) || rc=$?
[ "$rc" != 0 ] && grep -q 'CONTAINER (--container) names where the reference workloads run: give REFERENCE=gpt2' <<<"$out" &&
	ok "reference: CONTAINER without REFERENCE is refused, saying what to give" || bad "CONTAINER alone: exit $rc: $out"
# Phase 2 says so before anything else, and is the old full path (the sections below).
rc=0; out=$(p1env "$root/scripts/testbox.sh" run --phase driver "${p1a[@]}" --dry-run --out "$tmp/p2dry" 2>&1) || rc=$?
head -n 1 <<<"$out" | grep -q '^testbox: phase 2 (the driver arms): every arm unloads amdgpu and loads the series. driver: ALL 8 GPU(s) of this box stop' &&
	grep -q 'would run: insmod .*amdgpu.ko kfd_mp=1$' <<<"$out" && grep -q '^== configuration stock: ' <<<"$out" &&
	grep -q 'hwq1: skipped: phase 1 (host arm' <<<"$out" &&
	ok "phase 2: PHASE=driver says first that all 8 GPUs stop; the reference and the driver arms, each an insmod; host arms listed as phase 1" ||
	{ printf '%s\n' "$out" | head -n 40; bad "phase 2 dry run: exit $rc"; }

# Phase 1 with the real kfdmp (issue 24), where the ctest build has it
# (KFDMP_MOCK_HARNESS: the directory of kfdmp and kfdmp-exec-worker): the
# service in the container through kfdmp --exec and the docker stand-in, the
# arm it cannot take skipped with the reason kfdmp gives.
if [ -n "${KFDMP_MOCK_HARNESS:-}" ] && [ -x "$KFDMP_MOCK_HARNESS/kfdmp" ] && [ -x "$KFDMP_MOCK_HARNESS/kfdmp-exec-worker" ] &&
	"$KFDMP_MOCK_HARNESS/kfdmp" --help 2>&1 | grep -q -- '--exec'; then
	mkbox1
	: >"$B/docker.log"
	rc=0; p1env "$gmk" -s -C "$root" testbox WORKLOAD="docker exec -i svc python3 /srv/bench.py" GPU=3 \
		TESTBOX_ARGS="--matrix $tmp/p1.conf --configs stock,graph --harness-dir $KFDMP_MOCK_HARNESS --no-trace --repeat 1 --procs 1,2 --duration 0.5 --warmup 0.2 --no-report --out $tmp/p1real" \
		>"$tmp/p1real.log" 2>&1 || rc=$?
	[ "$rc" = 0 ] && [ "$(st "$tmp/p1real" stock)" = ok ] &&
		python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
runs = d["runs"]
assert [r["procs"] for r in runs] == [1, 2] and all(r["status"] == "ok" and r["aggregate_qps"] > 0 for r in runs), runs' \
			"$tmp/p1real/configs/stock/exec/results.json" &&
		[ "$(grep -c '^exec svc python3 /srv/bench.py$' "$B/docker.log")" -ge 3 ] && ! grep -qE '^(rmmod|insmod|modprobe) ' "$B/calls.log" &&
		ok "phase 1, real kfdmp: the service ran in svc through kfdmp --exec and docker exec -i (N = 1, 2), nothing unloaded" ||
		{ tail -n 30 "$tmp/p1real.log"; bad "phase 1, real kfdmp: exit $rc, stock $(st "$tmp/p1real" stock)"; }
	# The report and its verdict on real kfdmp results (no GPU here: kfd.queues
	# holds a null per process): they must not crash, and the graph arm the
	# service cannot take shows its reason in the verdict.
	rc=0; python3 "$root/scripts/report/testbox_report.py" "$tmp/p1real" --no-plots --check >"$tmp/p1real-report.log" 2>&1 || rc=$?
	[ "$rc" = 0 ] && grep -q '^testbox_report: verdict: ' "$tmp/p1real-report.log" &&
		grep -qE '^\| submit_path \| `graph` \| not tested: `graph`: skipped: exec: .*this service does not capture graphs' "$tmp/p1real/report/summary.md" &&
		ok "phase 1, real kfdmp: the report and its verdict read the real results (kfd.queues null without KFD); submit_path shows graph's skip reason" ||
		{ tail -n 20 "$tmp/p1real-report.log"; grep '^| submit_path' "$tmp/p1real/report/summary.md" 2>/dev/null; bad "phase 1, real kfdmp: report exit $rc"; }
	case $(st "$tmp/p1real" graph) in
	"skipped: exec: "*"this service does not capture graphs"*) ok "phase 1, real kfdmp: --graph skipped with the service's reason: $(st "$tmp/p1real" graph | cut -c1-120)" ;;
	*) bad "phase 1, real kfdmp: graph: $(st "$tmp/p1real" graph)" ;;
	esac
else
	echo "skip: phase 1 with the real kfdmp: KFDMP_MOCK_HARNESS names no kfdmp with --exec (ctest sets it to the harness build)"
fi

# --- full ---------------------------------------------------------------------------------
mock-load stock
rc=0; tb --configs stock,all --out "$tmp/full" >"$tmp/full.log" 2>&1 || rc=$?
[ "$rc" = 0 ] && ok "full: exit 0" || { tail -n 30 "$tmp/full.log"; bad "full: exit $rc"; }
[ "$(cat "$MOCK/insmod.log")" = "$(printf '%s\n' "" "kfd_mp=1")" ] && ok "full: insmod with no parameters, then kfd_mp=1" || bad "full: insmod log: $(cat "$MOCK/insmod.log")"
stock_back && ok "full: the stock driver is loaded at the end" || bad "full: stock driver not back"
[ ! -e "$KFDMP_TESTBOX_STATE/state" ] && ok "full: no state file left" || bad "full: state file left"
grep -q '^status=ok$' "$tmp/full/restore.env" && ok "full: restore.env status=ok" || bad "full: restore.env"
for f in configs/all/params.effective configs/all/kernel.log configs/all/mp_stats.before configs/all/mp_stats.after \
	configs/all/hqds.before configs/all/rls.after configs/all/queues.tsv configs/all/latency/results.json \
	configs/all/latency/trace/mp_stats.after report/summary.md report/testbox.json; do
	[ -s "$tmp/full/$f" ] && continue
	bad "full: no $f"
done
ok "full: params, kernel log, mp_stats/hqds/rls before+after, queues, results, report written"
grep -q '^kfd_mp=1$' "$tmp/full/configs/all/params.effective" && ok "full: kfd_mp=1 read back" || bad "full: read-back"
grep -q 'kfdmp-testbox: load all kfd_mp=1' "$tmp/full/configs/all/kernel.log" &&
	! grep -q 'load stock' "$tmp/full/configs/all/kernel.log" && ok "full: the kernel log starts at the configuration's load marker" ||
	bad "full: kernel.log does not start at the marker"
grep -qP '^\d+\t777\t2$' "$tmp/full/configs/all/queues.tsv" && ok "full: per-process queue counts sampled (pid 777: 2 queues)" || bad "full: queues.tsv: $(head -3 "$tmp/full/configs/all/queues.tsv")"
python3 - "$tmp/full/report/testbox.json" <<'EOF' && ok "full: the report has both configurations, with mp_stats deltas" || bad "full: report content"
import json, sys
d = json.load(open(sys.argv[1]))
assert not d["synthetic"] and d["run"]["dry_run"] == "0", d["run"]
c = {x["name"]: x for x in d["configurations"]}
assert list(c) == ["stock", "all"], list(c)
assert c["all"]["status"] == "ok" and c["all"]["effective_params"]["kfd_mp"] == "1"
assert c["all"]["mp_stats"]["runlists"] > 0 and c["all"]["queues"]["max_queues_per_process"] == 2
assert d["restore"]["status"] == "ok"
EOF

# --- failure --------------------------------------------------------------------------------
rm -f "$MOCK/insmod.log"
rc=0; tb --configs stock,bad,all --out "$tmp/fail" >"$tmp/fail.log" 2>&1 || rc=$?
cat "$tmp/fail.log" >&2
[ "$rc" = 1 ] && ok "failure: exit 1" || { tail -n 30 "$tmp/fail.log"; bad "failure: exit $rc"; }
grep -q "^failed: insmod refused kfd_queue_slot_range=512" "$tmp/fail/configs/bad/status" &&
	ok "failure: recorded: $(cut -c1-90 "$tmp/fail/configs/bad/status")" || { tail -n 20 "$tmp/fail.log"; bad "failure: status $(cat "$tmp/fail/configs/bad/status" 2>/dev/null)"; }
[ "$(cat "$tmp/fail/configs/all/status")" = ok ] && ok "failure: the sweep went on to the next configuration" || bad "failure: 'all' did not run"
stock_back && ok "failure: the stock driver is back" || bad "failure: stock driver not back"

# --- a parameter the driver did not take ----------------------------------------------------
# The series' switches warn and fall back to their default on a bad value,
# so insmod succeeds: the read-back of /sys/module/amdgpu/parameters must
# stop the arm before its workloads run, and say why.
rm -f "$MOCK/insmod.log"
rc=0; tb --configs shrunk,all --out "$tmp/fb" >"$tmp/fb.log" 2>&1 || rc=$?
st=$(cat "$tmp/fb/configs/shrunk/status" 2>/dev/null || true)
[ "$rc" = 1 ] && [[ $st == "failed: the driver did not take the arm's parameters, so the arm is not run: kfd_queue_slot_range reads back '8', asked '256' (kernel log: amdgpu: kfd_queue_slot_range: invalid value '256'; valid values: 1..128, a power of 2; using the default 8 (mock))" ]] &&
	[ ! -e "$tmp/fb/configs/shrunk/latency" ] &&
	ok "fallback: the read-back stops the arm: $(cut -c1-100 <<<"$st")" || { tail -n 20 "$tmp/fb.log"; bad "fallback: exit $rc, status '$st'"; }
[ "$(cat "$tmp/fb/configs/all/status" 2>/dev/null)" = ok ] && ok "fallback: the sweep went on to the next configuration" || bad "fallback: 'all' did not run"
stock_back && ok "fallback: the stock driver is back" || bad "fallback: stock driver not back"

# --- ctrl-c ----------------------------------------------------------------------------------
rm -f "$MOCK/kfdmp-started"
export root tmp
# A background job of a script starts with SIGINT ignored, and bash cannot
# un-ignore it: start the run in its own session with SIGINT at its default,
# as a terminal's foreground job has it; then SIGINT its process group, as
# Ctrl-C does.
MOCK_KFDMP_SLEEP=30 python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.setsid()
os.execvp(sys.argv[1], sys.argv[1:])' bash -c "$(declare -f tb); tb --configs all,stock --out '$tmp/int'" >"$tmp/int.log" 2>&1 &
pid=$!
for _ in $(seq 300); do [ -e "$MOCK/kfdmp-started" ] && break; sleep 0.1; done
[ -e "$KFDMP_MOD_SYSFS/parameters/kfd_mp" ] && ok "ctrl-c: the module under test is loaded while kfdmp runs" || bad "ctrl-c: ours not loaded"
kill -INT -- "-$pid" || bad "ctrl-c: no process group $pid"
rc=0; wait "$pid" || rc=$?
[ "$rc" = 130 ] && ok "ctrl-c: exit 130" || { tail -n 20 "$tmp/int.log"; bad "ctrl-c: exit $rc"; }
stock_back && ok "ctrl-c: the stock driver is back" || bad "ctrl-c: stock driver not back"
grep -q '^status=ok$' "$tmp/int/restore.env" && [ ! -e "$KFDMP_TESTBOX_STATE/state" ] && ok "ctrl-c: restore.env ok, no state left" || bad "ctrl-c: restore record"
grep -q 'interrupted; restoring' "$tmp/int.log" && ok "ctrl-c: says it restores" || bad "ctrl-c: message"

# --- restore failure, then restore -----------------------------------------------------------------
rc=0; MOCK_BREAK_RMMOD=1 tb --configs all --out "$tmp/rf" >"$tmp/rf.log" 2>&1 || rc=$?
[ "$rc" = 1 ] && grep -q 'RESTORE FAILED' "$tmp/rf.log" && ok "restore failure: exit 1 and RESTORE FAILED" || { tail -n 20 "$tmp/rf.log"; bad "restore failure: exit $rc"; }
grep -q '^status=failed' "$tmp/rf/restore.env" && [ -e "$KFDMP_TESTBOX_STATE/state" ] && ok "restore failure: recorded, state kept" || bad "restore failure: record/state"
grep -q '^- status: failed' "$tmp/rf/report/summary.md" && ok "restore failure: the report says so" || bad "restore failure: not in the report"
rc=0; tb --configs all --out "$tmp/rf2" >"$tmp/rf2.log" 2>&1 || rc=$?
[ "$rc" != 0 ] && grep -q 'restoring first' "$tmp/rf2.log" && ok "restore failure: the next run restores first and refuses while that fails" || bad "next run after a failed restore: exit $rc"
rm "$MOCK/rmmod-fails"
"$root/scripts/testbox.sh" restore >"$tmp/r.log" 2>&1 && stock_back && [ ! -e "$KFDMP_TESTBOX_STATE/state" ] &&
	ok "testbox.sh restore: the stock driver is back, state removed" || { cat "$tmp/r.log"; bad "testbox.sh restore"; }
"$root/scripts/testbox.sh" restore >/dev/null 2>&1 && stock_back && ok "a second restore is a no-op" || bad "second restore"

# --- refusals -------------------------------------------------------------------------------------------
rm -f "$MOCK/insmod.log"
touch "$MOCK/kfd-open"
rc=0; tb --configs all --out "$tmp/busy" >"$tmp/busy.log" 2>&1 || rc=$?
[ "$rc" = 1 ] && grep -q 'amdgpu-users .*fail.*rocm-smi(4242)' "$tmp/busy.log" && [ ! -e "$MOCK/insmod.log" ] &&
	ok "refusal: /dev/kfd open by rocm-smi: nothing loaded, exit 1" || { tail -n 20 "$tmp/busy.log"; bad "busy: exit $rc"; }
rm "$MOCK/kfd-open"
rc=0; KVER=6.1.0-30-amd64 tb --configs all --out "$tmp/k" >"$tmp/k.log" 2>&1 || rc=$?
[ "$rc" = 1 ] && grep -q 'kernel .*fail' "$tmp/k.log" && [ ! -e "$MOCK/insmod.log" ] && ok "refusal: KVER other than the running kernel" || bad "kernel refusal: exit $rc"
stock_back && ok "refusals left the stock driver alone" || bad "refusals touched the driver"

# --- tenant (issue 18) -----------------------------------------------------------------------------------
tbt() { "$root/scripts/testbox.sh" run --tenant --phase all "$@" --module "$tmp/amdgpu.ko" --harness-dir "$tmp/harness" \
	--no-trace --repeat 1 --load-timeout 3; }
# ten_json DIR PYTHON: assert on DIR/report/testbox.json (d), its configurations (c[name]) and
# their tenant workloads (t[name]).
ten_json() {
	python3 - "$1/report/testbox.json" "$2" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
t = {c["name"]: ([w for w in c["workloads"] if w["workload"] == "tenant"] or [None])[0] for c in d["configurations"]}
c = {x["name"]: x for x in d["configurations"]}
exec(sys.argv[2])
EOF
}
rm -f "$MOCK/insmod.log"; : >"$MOCK/kfdmp-args.log"
rc=0; MOCK_MORE_PARAMS=kfd_short_dequeue_wait:dequeue tbt --out "$tmp/ten" >"$tmp/ten.log" 2>&1 || rc=$?
[ "$rc" = 0 ] && ok "tenant: exit 0" || { tail -n 30 "$tmp/ten.log"; bad "tenant: exit $rc"; }
[ "$(cat "$MOCK/insmod.log")" = "$(printf '%s\n' "" "kfd_short_dequeue_wait=on")" ] &&
	ok "tenant: the series' driver with stock parameters, then kfd_short_dequeue_wait=on" || bad "tenant: insmod log: $(cat "$MOCK/insmod.log")"
! grep -q -- 'critical-alone' "$MOCK/kfdmp-args.log" &&
	grep -q -- '^--critical latency --mix saturate:5 --critical-busy 0.1,0.3 --arms none,priority,sched-drain,sched-kfd --repeat 1 --duration 10 --warmup 2 --out .*/configs/stock/tenant$' "$MOCK/kfdmp-args.log" &&
	ok "tenant: one kfdmp per configuration, the four arms, rates from busy fractions 0.1,0.3 (kfdmp measures the service time alone), 10 s + 2 s" ||
	bad "tenant: kfdmp args: $(cat "$MOCK/kfdmp-args.log")"
grep -qx 'busy=0.1,0.3' "$tmp/ten/configs/stock/tenant/rate.env" && grep -q '^rate_from=busy fraction alone' "$tmp/ten/configs/stock/tenant/rate.env" &&
	ok "tenant: rate.env: busy fractions 0.1,0.3" || bad "tenant: rate.env: $(cat "$tmp/ten/configs/stock/tenant/rate.env")"
stock_back && [ ! -e "$KFDMP_TESTBOX_STATE/state" ] && ok "tenant: the stock driver is back, no state left" || bad "tenant: stock driver not back"
ten_json "$tmp/ten" '
assert d["run"]["tenant"] == "1" and d["verdict"] is None, d["run"]
assert list(c) == ["stock", "dequeue-wait"] and all(x["status"] == "ok" for x in c.values()), [x["status"] for x in c.values()]
a = {x["arm"]: x for x in t["stock"]["tenant"]["arms"]}
assert list(a) == ["none", "sched", "priority"], list(a)
assert a["sched"]["latency_state"] == "pass" and a["sched"]["suspend_state"] == "pass", a["sched"]
assert a["sched"]["suspend_to_unmapped"]["p99_us"] == 840.0 and a["sched"]["critical_p99_ratio"] == 1.21
assert a["none"]["latency_state"] == "fail" and a["none"]["suspend_state"] == "unavailable", a["none"]
assert t["stock"]["tenant"]["rate"]["busy"] == "0.1,0.3" and t["stock"]["summary"] == []
assert not d["comparison"], d["comparison"]
' && ok "tenant: testbox.json holds the harness's arms and checks (sched pass/pass, none fail/unavailable)" || bad "tenant: testbox.json"
sm=$tmp/ten/report/summary.md
grep -q '^## Tenant control (issue 18)' "$sm" &&
	grep -q '^\*\*`stock`\*\* (stock parameters)' "$sm" &&
	grep -q '^| sched | – | 0 | ok | 1.21 | 0.62 | 840 µs | pass | pass |$' "$sm" &&
	grep -q '^| none | – | 0 | ok | 9.80 | 0.97 | unavailable: no suspends in the none arm | fail: critical p99 9.80x alone > 1.50x |' "$sm" &&
	grep -q '^- `sched`, each repeat on its own, over 1 repeat(s): p99 + kept pass 1; suspend pass 1$' "$sm" &&
	grep -q '^\*\*`dequeue-wait`\*\* (kfd_short_dequeue_wait=on)' "$sm" &&
	ok "tenant: summary.md: p99 ratio, kept, suspend p99, each target per arm and configuration" ||
	{ sed -n '/^## Tenant/,/^## Driver/p' "$sm"; bad "tenant: summary.md tenant section"; }

# TENANT_RATE: no measurement; the optional parameter the module lacks skips dequeue-wait.
: >"$MOCK/kfdmp-args.log"
rc=0; TENANT_RATE=25 tbt --out "$tmp/ten-r" >"$tmp/ten-r.log" 2>&1 || rc=$?
[ "$rc" = 0 ] && [ "$(grep -c . "$MOCK/kfdmp-args.log")" = 1 ] && grep -q -- '^--critical latency --mix saturate:5 --rate 25 ' "$MOCK/kfdmp-args.log" &&
	grep -q '^rate_from=given' "$tmp/ten-r/configs/stock/tenant/rate.env" &&
	ok "tenant: TENANT_RATE=25: no measurement alone, --rate 25" || { tail -n 20 "$tmp/ten-r.log"; bad "tenant: TENANT_RATE: exit $rc, $(cat "$MOCK/kfdmp-args.log")"; }
grep -q '^skipped: the module .* has no parameter kfd_short_dequeue_wait' "$tmp/ten-r/configs/dequeue-wait/status" &&
	grep -q '^- `dequeue-wait`: no tenant measurement (skipped: the module' "$tmp/ten-r/report/summary.md" &&
	ok "tenant: a module without kfd_short_dequeue_wait skips that configuration, and the report says so" ||
	bad "tenant: dequeue-wait skip: $(cat "$tmp/ten-r/configs/dequeue-wait/status" 2>/dev/null)"

# The sched arm skipped by the harness: the run succeeds, the report says why.
rc=0; MOCK_TENANT=skip tbt --configs stock --out "$tmp/ten-s" >"$tmp/ten-s.log" 2>&1 || rc=$?
[ "$rc" = 0 ] && grep -q '^| sched | – | 0 | skipped: kfdmp-sched: the loaded driver has no tenant-control interface (AMDKFD_IOC_TENANT_CTL: not supported) | – | – | – | unavailable (see status) | unavailable (see status) |$' "$tmp/ten-s/report/summary.md" &&
	grep -q '^- `sched`, each repeat on its own, over 1 repeat(s): p99 + kept unavailable 1; suspend unavailable 1$' "$tmp/ten-s/report/summary.md" &&
	stock_back && ok "tenant: the sched arm skipped: exit 0, the report gives the harness's reason, the stock driver is back" ||
	{ tail -n 20 "$tmp/ten-s.log"; sed -n '/^## Tenant/,/^## Driver/p' "$tmp/ten-s/report/summary.md"; bad "tenant: sched skipped: exit $rc"; }

# The harness fails: exit 1, the configuration and the report say why, restored.
rc=0; MOCK_TENANT=fail tbt --configs stock --out "$tmp/ten-f" >"$tmp/ten-f.log" 2>&1 || rc=$?
[ "$rc" = 1 ] && grep -qx 'failed: kfdmp tenant exited 1' "$tmp/ten-f/configs/stock/status" &&
	grep -q '^Not measured: kfdmp exited 1 and wrote no results.json. Configuration status: failed: kfdmp tenant exited 1.$' "$tmp/ten-f/report/summary.md" &&
	stock_back && [ ! -e "$KFDMP_TESTBOX_STATE/state" ] && grep -q '^status=ok$' "$tmp/ten-f/restore.env" &&
	ok "tenant: the harness fails: exit 1, the report says kfdmp exited 1, the stock driver is back" ||
	{ tail -n 20 "$tmp/ten-f.log"; bad "tenant: harness failure: exit $rc"; }

# (Issue 26: no separate measurement alone: kfdmp --critical-busy measures the
# critical tenant's service time itself and exits 1 when it cannot; the case
# of a failing kfdmp is above.)

# A bad TENANT_RATE is refused before anything is loaded.
rm -f "$MOCK/insmod.log"
rc=0; TENANT_RATE=fast tbt --out "$tmp/ten-b" >"$tmp/ten-b.log" 2>&1 || rc=$?
[ "$rc" != 0 ] && grep -q "TENANT_RATE: a rate per second > 0, e.g. 30 (got 'fast')" "$tmp/ten-b.log" && [ ! -e "$MOCK/insmod.log" ] &&
	ok "tenant: TENANT_RATE=fast: refused, nothing loaded" || { cat "$tmp/ten-b.log"; bad "tenant: bad rate: exit $rc"; }

# --- partition (issue 17) -------------------------------------------------------------------------------
export KFDMP_GPU_SYSFS=$MOCK/sys/gpu0 KFDMP_PART_TIMEOUT=5
mkdir -p "$KFDMP_GPU_SYSFS"
echo SPX >"$KFDMP_GPU_SYSFS/current_compute_partition"
echo "SPX, DPX, CPX" >"$KFDMP_GPU_SYSFS/available_compute_partition"
echo NPS1 >"$KFDMP_GPU_SYSFS/current_memory_partition"
echo "NPS1, NPS4" >"$KFDMP_GPU_SYSFS/available_memory_partition"
# The mock driver: after a mode write, the mode named in part-refuse is
# written back (refused) with a kernel message; any other re-enumerates the
# KFD nodes half a second later, one per partition (also after a reload).
touch "$MOCK/part-watch"
(
	last=SPX
	while [ -e "$MOCK/part-watch" ]; do
		now=$(cat "$KFDMP_GPU_SYSFS/current_compute_partition" 2>/dev/null || echo "$last")
		if [ "$now" != "$last" ]; then
			if [ "$now" = "$(cat "$MOCK/part-refuse" 2>/dev/null)" ]; then
				echo "$last" >"$KFDMP_GPU_SYSFS/current_compute_partition"
				echo "amdgpu: compute partition switch to $now failed (mock)" >>"$KFDMP_KMSG"
				continue
			fi
			echo "partition $last -> $now" >>"$MOCK/ops.log"
			sleep 0.5
			last=$now
		fi
		case $last in DPX) n=2 ;; CPX) n=4 ;; *) n=1 ;; esac
		if [ -d "$KFDMP_KFD_SYSFS/topology/nodes/1" ]; then
			for i in 1 2 3 4; do
				d=$KFDMP_KFD_SYSFS/topology/nodes/$i
				if [ "$i" -le "$n" ]; then
					[ -e "$d/properties" ] || { mkdir -p "$d"; printf 'gfx_target_version 90402\n' >"$d/properties"; echo $((53240 + i)) >"$d/gpu_id"; }
				else rm -rf "$d"; fi
			done
		fi
		sleep 0.1
	done
) &
watcher=$!
cat >"$tmp/part.conf" <<'EOF'
stock | - | reference | baseline | SPX |
cpx   | - | one process per partition | xcc_l2_sharing | CPX | --procs 1,4 --devices 0,1,2,3
dpx   | - | refused by the mock driver | xcc_l2_sharing | DPX | --devices 0,1
qpx   | - | not in available_compute_partition | xcc_l2_sharing | QPX |
wait  | ?kfd_dequeue_wait_short=1 | optional parameter the mock module lacks | preemption | SPX |
EOF
tbp() { "$root/scripts/testbox.sh" "$@" --phase all --matrix "$tmp/part.conf" --module "$tmp/amdgpu.ko" --harness-dir "$tmp/harness" \
	--no-trace --workloads latency --repeat 1 --load-timeout 3; }
mode() { cat "$KFDMP_GPU_SYSFS/current_compute_partition"; }
pe() { sed -n "s/^$2=//p" "$tmp/part/configs/$1/partition.env"; }
echo DPX >"$MOCK/part-refuse"
: >"$MOCK/kfdmp-args.log"
rc=0; tbp --out "$tmp/part" >"$tmp/part.log" 2>&1 || rc=$?
[ "$rc" = 1 ] && ok "partition: exit 1 (the refused and unsupported arms failed)" || { tail -n 30 "$tmp/part.log"; bad "partition: exit $rc"; }
[ "$(pe cpx compute)" = CPX ] && [ "$(pe cpx status)" = ok ] && [ "$(pe cpx nodes)" = 4 ] && [ "$(pe cpx memory)" = NPS1 ] &&
	ok "partition: the CPX arm ran in CPX with 4 KFD nodes (partition.env)" || bad "partition: cpx partition.env: $(cat "$tmp/part/configs/cpx/partition.env")"
grep -q -- '--procs 1,4 --devices 0,1,2,3$' "$MOCK/kfdmp-args.log" &&
	ok "partition: kfdmp got the arm's options after the run's" || bad "partition: kfdmp args: $(cat "$MOCK/kfdmp-args.log")"
[ "$(cat "$tmp/part/configs/cpx/status")" = ok ] && ok "partition: the CPX arm is ok" || bad "partition: cpx status $(cat "$tmp/part/configs/cpx/status")"
grep -q '^failed: compute partition DPX: the mode reads CPX after 5s, asked DPX (refused?)' "$tmp/part/configs/dpx/status" &&
	ok "partition: the refused DPX switch fails that arm with the reason" || bad "partition: dpx status: $(cat "$tmp/part/configs/dpx/status")"
grep -q 'QPX is not supported (available: SPX,DPX,CPX' "$tmp/part/configs/qpx/status" &&
	ok "partition: QPX (not available) is refused before any write" || bad "partition: qpx status: $(cat "$tmp/part/configs/qpx/status")"
grep -q '^skipped: the module .* has no parameter kfd_dequeue_wait_short' "$tmp/part/configs/wait/status" &&
	ok "partition: the optional-parameter arm is skipped with the reason" || bad "partition: wait status: $(cat "$tmp/part/configs/wait/status" 2>&1)"
[ "$(mode)" = SPX ] && grep -q 'compute partition restored to SPX' "$tmp/part/restore.env" && grep -q '^status=ok' "$tmp/part/restore.env" &&
	[ ! -e "$KFDMP_TESTBOX_STATE/partition" ] && stock_back &&
	ok "partition: SPX and the stock driver are back, restore.env says so, no partition state left" ||
	bad "partition: restore: mode $(mode), $(cat "$tmp/part/restore.env")"
python3 - "$tmp/part/report/testbox.json" <<'EOF' && ok "partition: the report records the mode of every arm and has a verdict" || bad "partition: report"
import json, sys
d = json.load(open(sys.argv[1]))
c = {x["name"]: x for x in d["configurations"]}
assert c["cpx"]["partition"]["compute"] == "CPX", c["cpx"]["partition"]
assert c["stock"]["partition"]["compute"] == "SPX", c["stock"]["partition"]
v = d["verdict"]
assert v["available"] and v["reference"] == "stock", v.get("reason")
assert [a["partition"] for a in v["arms"] if a["name"] == "cpx"] == ["CPX"]
pre = [h for h in v["hypotheses"] if h["hypothesis"] == "preemption"][0]
assert "no parameter" in pre["skipped_arms"][0][1], pre
EOF
rm -f "$MOCK/part-refuse"
# A KFD user present when the switch would happen (mock-load makes one).
touch "$MOCK/kfd-user"
rc=0; tbp --configs cpx --out "$tmp/pbusy" >"$tmp/pbusy.log" 2>&1 || rc=$?
rm -f "$MOCK/kfd-user"; rm -rf "$KFDMP_KFD_SYSFS/proc/4242"
[ "$rc" = 1 ] && grep -q 'KFD in use by pid(s) 4242' "$tmp/pbusy/configs/cpx/status" && [ "$(mode)" = SPX ] &&
	ok "partition: a KFD user present: no switch, the arm fails with the reason" || { tail -n 20 "$tmp/pbusy.log"; bad "partition busy: exit $rc, mode $(mode)"; }
# Ctrl-C during kfdmp in CPX: SPX is back.
rm -f "$MOCK/kfdmp-started"
MOCK_KFDMP_SLEEP=30 python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.setsid()
os.execvp(sys.argv[1], sys.argv[1:])' bash -c "$(declare -f tbp); tbp --configs cpx --out '$tmp/pint'" >"$tmp/pint.log" 2>&1 &
pid=$!
for _ in $(seq 100); do [ -e "$MOCK/kfdmp-started" ] && break; sleep 0.1; done
[ "$(mode)" = CPX ] && ok "partition ctrl-c: CPX while kfdmp runs" || bad "partition ctrl-c: mode $(mode) while kfdmp runs"
kill -INT -- "-$pid" || bad "partition ctrl-c: no process group $pid"
rc=0; wait "$pid" || rc=$?
[ "$rc" = 130 ] && [ "$(mode)" = SPX ] && grep -q 'compute partition restored to SPX' "$tmp/pint/restore.env" && stock_back &&
	ok "partition ctrl-c: exit 130, SPX and the stock driver back" || { tail -n 20 "$tmp/pint.log"; bad "partition ctrl-c: exit $rc, mode $(mode)"; }
rm -f "$MOCK/part-watch"; wait "$watcher" 2>/dev/null || true
unset KFDMP_GPU_SYSFS

# --- dkms: the box's amdgpu-dkms stack on a 5.10 kernel ------------------------------------------------
export MOCK_DKMS=1 KVER=5.10.134-13.an8.x86_64
src=$MOCK/usr/src/amdgpu-6.12.12-2194681.el8
mkdir -p "$src/amd/dkms" "$MOCK/kdir-510"
printf 'PACKAGE_NAME="amdgpu"\nPACKAGE_VERSION="6.12.12-2194681.el8"\nMAKE[0]="make KERNELVER=$kernelver"\n' >"$src/dkms.conf"
touch "$MOCK/kdir-510/Makefile"
stack=$tmp/stack
for m in amd/amdgpu/amdgpu ttm/amdttm amd/amdkcl/amdkcl scheduler/amd-sched amddrm_ttm_helper amddrm_buddy amd/amdxcp/amdxcp; do
	mkdir -p "$stack/$(dirname "$m")"; echo "fake $m" >"$stack/$m.ko"
done
# From the upstream sections: nothing loaded; the box starts on its stock DKMS stack.
rm -rf "$MOCK/sys/module" "$KFDMP_KFD_SYSFS" "$KFDMP_KFD_DEV"
modprobe amdgpu
stock_stack() {
	local m
	stock_back || return 1
	for m in amdkcl amdttm amd_sched amddrm_buddy amddrm_ttm_helper amdxcp; do [ -d "$MOCK/sys/module/$m" ] || return 1; done
	[ -s "$KFDMP_MOD_SYSFS/version" ]
}
stock_stack && ok "dkms: the mock box runs its stock amdgpu-dkms stack (7 modules)" || bad "dkms: mock stock stack"
tbd() { KDIR=$MOCK/kdir-510 "$root/scripts/testbox.sh" "$@" --phase all --matrix "$tmp/matrix.conf" --stack "$stack" --harness-dir "$tmp/harness" \
	--no-trace --workloads latency --repeat 1 --load-timeout 3; }
ops() { grep -E '^(insmod|rmmod|modprobe-load) ' "$MOCK/ops.log" | tr '\n' ',' | sed 's/,$//'; }
unload_stock="rmmod amdgpu,rmmod amdxcp,rmmod amddrm_ttm_helper,rmmod amddrm_buddy,rmmod amd-sched,rmmod amdttm,rmmod amdkcl"
load_ours="insmod amdkcl,insmod amdttm,insmod amd-sched,insmod amddrm_buddy,insmod amddrm_ttm_helper,insmod amdxcp,insmod amdgpu"
modprobe_stock="modprobe-load amdkcl,modprobe-load amdttm,modprobe-load amd-sched,modprobe-load amddrm_buddy,modprobe-load amddrm_ttm_helper,modprobe-load amdxcp,modprobe-load amdgpu"

: >"$MOCK/ops.log"
rc=0; KSRC=$src tbd --configs stock,all --out "$tmp/dk" >"$tmp/dk.log" 2>&1 || rc=$?
[ "$rc" = 0 ] && ok "dkms full: exit 0" || { tail -n 30 "$tmp/dk.log"; bad "dkms full: exit $rc"; }
grep -qP '^kernel\tok\t5\.10\.134-13\.an8\.x86_64: the amdgpu-dkms stack .*version 6\.12\.12-2194681\.el8' "$tmp/dk/box-checks.tsv" &&
	ok "dkms: box check accepts the 5.10 kernel the DKMS source builds for" || { cat "$tmp/dk/box-checks.tsv"; bad "dkms: kernel check"; }
grep -qP '^dkms\tok\tamdgpu/6\.12\.12-2194681\.el8, 5\.10\.134' "$tmp/dk/box-checks.tsv" && ok "dkms: box check reads dkms status" || bad "dkms: dkms status check"
grep -qP '^stock\tok\t.*/extra/amdgpu\.ko\.xz, version 6\.12\.12-2194681\.el8' "$tmp/dk/box-checks.tsv" && ok "dkms: box check names the DKMS-installed stock amdgpu and its version" ||
	bad "dkms: stock check: $(grep '^stock' "$tmp/dk/box-checks.tsv")"
want="$unload_stock,$load_ours,$unload_stock,$load_ours,$unload_stock,$modprobe_stock"
[ "$(ops)" = "$want" ] && ok "dkms full: stock stack unloaded amdgpu first, ours loaded companions first, twice; then ours out and the stock stack back" ||
	bad "dkms full: module operations
   got:  $(ops)
   want: $want"
grep -q '^modprobe -a .*drm_kms_helper' "$MOCK/ops.log" && ! grep -E '^modprobe -a ' "$MOCK/ops.log" | grep -qE 'amdttm|amdkcl|amd-sched|amdxcp' &&
	ok "dkms: the kernel's own dependencies are modprobed, not the companions: $(grep -m1 '^modprobe -a' "$MOCK/ops.log")" || bad "dkms: modprobe -a: $(grep '^modprobe' "$MOCK/ops.log" | head -2)"
stock_stack && ok "dkms full: the stock stack is back (7 modules, amdgpu stock)" || bad "dkms full: stock stack not back"
grep -q '^status=ok$' "$tmp/dk/restore.env" && grep -q 'stock amdgpu stack loaded' "$tmp/dk/restore.env" && ok "dkms full: restore.env: $(sed -n 's/^detail=//p' "$tmp/dk/restore.env")" || bad "dkms full: restore.env"
grep -q '^stack=dkms$' "$tmp/dk/run.env" && ok "dkms: run.env says stack=dkms" || bad "dkms: run.env"

# make testbox as the box's owner types it: no KSRC, no --stack, no
# --module. The inner make modules is a stub that logs the SERIES it gets
# (an argument wins over the environment) and prints the stack's modules.
gmake=$(command -v make)
cat >"$tmp/bin/make" <<STUB
#!/usr/bin/env bash
case " \$* " in
*" modules "*)
	eff=\${SERIES-unset}
	for a in "\$@"; do case \$a in SERIES=*) eff=\${a#SERIES=} ;; esac; done
	echo "series=[\$eff] \$*" >>"\$MOCK/make.log"
	for m in amdgpu amdkcl amdttm amd-sched amddrm_buddy amddrm_ttm_helper amdxcp; do
		printf '%s  %s\\n' "\$(find "$stack" -name "\$m.ko")" "\$KVER SMP mod_unload modversions"
	done ;;
*) exec "$gmake" "\$@" ;;
esac
STUB
chmod +x "$tmp/bin/make"
cp "$tmp/bin/make" "$tmp/make-stub"
rc=0; KDIR=$MOCK/kdir-510 "$gmake" -s -C "$root" testbox PHASE=driver TESTBOX_ARGS="--matrix $tmp/matrix.conf --configs stock --harness-dir $tmp/harness --no-trace --workloads latency --repeat 1 --load-timeout 3 --out $tmp/mk" >"$tmp/mk.log" 2>&1 || rc=$?
rm "$tmp/bin/make"
[ "$rc" = 0 ] && [ -s "$tmp/mk/report/summary.md" ] && ok "make testbox (no KSRC/--stack/--module): built, loaded, measured, restored, reported" ||
	{ tail -n 30 "$tmp/mk.log"; bad "make testbox: exit $rc"; }
grep -qF "series=[] -s -C $root modules KSRC=$src KVER=$KVER" "$MOCK/make.log" &&
	ok "make testbox: the inner make modules gets KSRC=<the registered tree> and no SERIES (the series follows the tree)" ||
	bad "make testbox: inner make: $(cat "$MOCK/make.log" 2>/dev/null)"
grep -qF -- "- driver tree: \`$src\` (dkms status: amdgpu 6.12.12-2194681.el8 installed for $KVER)" "$tmp/mk/report/summary.md" &&
	ok "make testbox: the report names the tree and where it came from" || { grep -i tree "$tmp/mk/report/summary.md" || true; bad "make testbox: no tree in summary.md"; }
stock_stack && ok "make testbox: the stock stack is back" || bad "make testbox: stock stack not back"

# sudo make testbox: what the run wrote under build/ (as root) goes back to
# the user who typed sudo (SUDO_UID/SUDO_GID), so their next make modules
# can write there; files root does not own are left alone (chown --from).
if [ "$(id -u)" = 0 ]; then
	bld=$tmp/sudo-build
	mkdir -p "$bld/theirs"
	touch "$bld/theirs/kept"
	chown 5555:5555 "$bld/theirs/kept"
	cp "$tmp/make-stub" "$tmp/bin/make"
	rc=0; SUDO_UID=4242 SUDO_GID=4343 SUDO_USER=owner BUILD=$bld KDIR=$MOCK/kdir-510 "$gmake" -s -C "$root" testbox PHASE=driver \
		TESTBOX_ARGS="--matrix $tmp/matrix.conf --configs stock --harness-dir $tmp/harness --no-trace --workloads latency --repeat 1 --load-timeout 3" \
		>"$tmp/su.log" 2>&1 || rc=$?
	rm "$tmp/bin/make"
	rootfiles=$(find "$bld" \( -uid 0 -o -gid 0 \) -printf '%P %u:%g\n' | head -n 5)
	summary=$(find "$bld" -path '*/report/summary.md' | head -n 1)
	[ "$rc" = 0 ] && [ -n "$summary" ] && [ -z "$rootfiles" ] && [ "$(stat -c %u:%g "$bld/theirs/kept")" = 5555:5555 ] &&
		ok "sudo make testbox: build/ handed back to SUDO_UID:SUDO_GID (4242:4343, $(find "$bld" | wc -l) paths), another user's file left alone" ||
		{ tail -n 10 "$tmp/su.log"; bad "sudo make testbox: exit $rc, report ${summary:-none}; still root's: ${rootfiles:-none}; other user's file: $(stat -c %u:%g "$bld/theirs/kept")"; }
else
	echo "skip: the SUDO_UID hand-back needs root (chown)"
fi

# A companion that insmod refuses: the half-loaded stack goes, the stock one comes back.
: >"$MOCK/ops.log"
rc=0; MOCK_FAIL_INSMOD=amddrm_buddy tbd --configs all --out "$tmp/dkc" >"$tmp/dkc.log" 2>&1 || rc=$?
[ "$rc" = 1 ] && grep -q '^failed: insmod refused the companion module amddrm_buddy' "$tmp/dkc/configs/all/status" &&
	ok "dkms: a refused companion fails the configuration: $(cut -c1-100 "$tmp/dkc/configs/all/status")" || { tail -n 20 "$tmp/dkc.log"; bad "dkms companion failure: exit $rc"; }
want="$unload_stock,insmod amdkcl,insmod amdttm,insmod amd-sched,insmod amddrm_buddy,rmmod amd-sched,rmmod amdttm,rmmod amdkcl,$modprobe_stock"
[ "$(ops)" = "$want" ] && ok "dkms: after the refused companion ours are unloaded in order and the stock stack is loaded" ||
	bad "dkms companion failure: module operations
   got:  $(ops)
   want: $want"
stock_stack && ok "dkms: stock stack back after a refused companion" || bad "dkms: stock stack not back after a refused companion"

# amdgpu refused (a parameter value the mock box fails): the sweep goes on, the stock stack comes back.
rc=0; tbd --configs bad,all --out "$tmp/dkb" >"$tmp/dkb.log" 2>&1 || rc=$?
[ "$rc" = 1 ] && grep -q '^failed: insmod refused kfd_queue_slot_range=512' "$tmp/dkb/configs/bad/status" && [ "$(cat "$tmp/dkb/configs/all/status")" = ok ] &&
	ok "dkms: a refused amdgpu fails its configuration, the next one runs" || { tail -n 20 "$tmp/dkb.log"; bad "dkms amdgpu refused: exit $rc"; }
stock_stack && ok "dkms: stock stack back after a refused amdgpu" || bad "dkms: stock stack not back after a refused amdgpu"

# Ctrl-C while our stack runs kfdmp.
rm -f "$MOCK/kfdmp-started"
export stack
MOCK_KFDMP_SLEEP=30 python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.setsid()
os.execvp(sys.argv[1], sys.argv[1:])' bash -c "$(declare -f tbd); tbd --configs all --out '$tmp/dki'" >"$tmp/dki.log" 2>&1 &
pid=$!
for _ in $(seq 300); do [ -e "$MOCK/kfdmp-started" ] && break; sleep 0.1; done
[ -e "$KFDMP_MOD_SYSFS/parameters/kfd_mp" ] && [ -d "$MOCK/sys/module/amdkcl" ] && ok "dkms ctrl-c: our stack is loaded while kfdmp runs" || bad "dkms ctrl-c: ours not loaded"
kill -INT -- "-$pid" || bad "dkms ctrl-c: no process group $pid"
rc=0; wait "$pid" || rc=$?
[ "$rc" = 130 ] && ok "dkms ctrl-c: exit 130" || { tail -n 20 "$tmp/dki.log"; bad "dkms ctrl-c: exit $rc"; }
stock_stack && [ ! -e "$KFDMP_TESTBOX_STATE/state" ] && ok "dkms ctrl-c: the stock stack is back, no state left" || bad "dkms ctrl-c: stock stack not back"

# The dry run on the box: builds from the tree dkms status names for KVER (a sibling is never picked by name).
mkdir -p "$MOCK/usr/src/amdgpu-6.12.12-2164967.el8/amd/dkms"
cp "$src/dkms.conf" "$MOCK/usr/src/amdgpu-6.12.12-2164967.el8/"
rc=0; out=$(KDIR=$MOCK/kdir-510 "$root/scripts/testbox.sh" --dry-run --phase driver --matrix "$tmp/matrix.conf" --configs all --no-trace --out "$tmp/dkd" \
	--harness-dir "$tmp/harness" --params-from series 2>&1) || rc=$?
grep -qF "would run: make -C $root modules KSRC=$src KVER=$KVER" <<<"$out" &&
	ok "dkms dry run: builds from the tree dkms status names, make modules KSRC=... KVER=$KVER" || { printf '%s\n' "$out" | tail -n 30; bad "dkms dry run: no make modules KSRC= line (exit $rc)"; }
grep -q 'would run: rmmod amdxcp' <<<"$out" && grep -q 'would run: insmod <amdkcl.ko of the build>' <<<"$out" &&
	ok "dkms dry run: prints the companions' unloads and loads" || bad "dkms dry run: companions"
rc=0; out=$(KSRC=/usr/src/linux-source-6.12.tar.xz KDIR=$MOCK/kdir-510 "$root/scripts/testbox.sh" check --phase driver --no-trace 2>&1) || rc=$?
grep -q 'kernel .*fail.*is not 6.12' <<<"$out" && ok "upstream path kept: KSRC=<linux source> on a 5.10 kernel is refused by the 6.12 check" || { printf '%s\n' "$out"; bad "upstream path on 5.10: not refused"; }
unset MOCK_DKMS

verdict "mock box test"
