#!/usr/bin/env bash
# Test-box runner: the hypothesis matrix on the box, in two phases. Phase 1
# (the default, --phase host): every arm that changes no driver parameter,
# on the driver already loaded, on the GPU under test only (--gpu N): nothing
# is built, unloaded or loaded, the other GPUs and their containers keep
# serving. Phase 2 (--phase driver): the driver arms; each is a load of the
# series' driver with the arm's parameters (and partition), which takes
# every GPU of the box down until the stock driver is put back. The harness
# runs the built-in workloads, or any command (--exec, the user's service)
# or the reference PyTorch workloads (--reference, in a container with
# --container). A report and a verdict at the end.
#
#   scripts/testbox.sh [run] [OPTIONS]    the whole run (root, a gfx9.4.x GPU)
#   scripts/testbox.sh --dry-run [OPTIONS]
#                          walk every step without changing anything: run the
#                          box checks, check every configuration's parameters,
#                          print each command it would run, and generate the
#                          report from a recorded run (tests/testbox/sample)
#   scripts/testbox.sh check [OPTIONS]    the box checks only (read-only)
#   scripts/testbox.sh list [OPTIONS]     the selected configurations and the phase
#                                         of each (host or driver, and why)
#   scripts/testbox.sh validate [OPTIONS] the parameter check only
#   scripts/testbox.sh report RUN_DIR [OUT_DIR]   (re)generate a report
#   scripts/testbox.sh restore            put the stock amdgpu back (idempotent;
#                                         also what Ctrl-C and failures run)
#   scripts/testbox.sh dkms-stage DIR     stage the patched sources, Kbuild and
#                                         dkms.conf in DIR (kernel layout)
#   scripts/testbox.sh dkms-install       stage to /usr/src/NAME-VERSION, then
#                                         dkms add, build, install (DRY_RUN=1:
#                                         print the steps only)
#   scripts/testbox.sh dkms-remove        dkms remove it again (DRY_RUN=1 too)
#
# Options (run, --dry-run, check, list, validate):
#   --phase P          host (default; also PHASE=P): the arms that change no
#                      driver parameter (matrix.conf: no amdgpu parameter, no
#                      DPX/QPX/CPX partition), on the driver already loaded,
#                      on the GPU under test only; driver (--driver-arms): the
#                      driver arms and the reference arm, each a load of the
#                      series' driver: the whole box goes down; all: every
#                      arm the driver way. Arms of the other phase are listed
#                      in the report as skipped, with the phase and why
#   --gpu N            the GPU under test, as HIP numbers the host's GPUs
#                      (KFD topology order; default 0; also GPU=N); only its
#                      KFD users stop phase 1, its processes are kfdmp's
#   --workload-gpu N   that GPU as the workload's processes number it, when
#                      they run where HIP numbers GPUs otherwise (a container
#                      given only some GPUs; default: N)
#   --exec CMD         measure CMD instead of the built-in workloads: kfdmp
#                      --exec CMD (docs/exec-workers.md), e.g. "docker exec -i
#                      svc python3 bench.py"; also WORKLOAD=CMD
#   --reference LIST   measure the reference PyTorch workloads of
#                      tests/harness/python/kfdmp_reference.py: models (gpt2,
#                      resnet50) or its presets (gpt2-b8-s128, resnet50-b32,
#                      mi300x-8.7ms), comma separated; also REFERENCE=LIST
#                      (REFERENCE_ARGS: more of its options, e.g. --batch 16)
#   --container NAME   the reference workloads run inside this Docker
#                      container: kfdmp_reference.py and kfdmp_worker.py are
#                      copied into it (docker cp, to /tmp/kfdmp-testbox) and
#                      run with docker exec -i NAME python3 ...; also CONTAINER=
#   --matrix FILE      configurations (default tests/testbox/matrix.conf)
#   --configs A,B      run only these configurations, in this order
#   --workloads "W.."  harness workloads (default "latency saturate")
#   --procs LIST       process counts (default 1,2,4,8)
#   --repeat R         runs per process count (default 3)
#   --duration S       measurement window (default 3), --warmup S (default 1)
#   --devices LIST     passed to kfdmp --devices (default: none given)
#   --kfdmp-args "..." more kfdmp options, e.g. "--hw-queues 2"
#   --ctest            also run `ctest -L scaling` of the harness per configuration
#   --no-trace         no scripts/trace.sh (mp_stats are still read)
#   --no-build         use the module already built (or --module KO)
#   --module KO        load this amdgpu.ko instead of building one (the
#                      upstream 6.12 path)
#   --stack DIR        load the amdgpu-dkms module set built in DIR (amdgpu
#                      and its six companions, as make modules KSRC=... built
#                      them) instead of building one
#   --force-kernel     upstream path: run on a kernel that is not 6.12
#   --out DIR          run directory (default build/testbox/<run id>;
#                      dry run: build/testbox/dry-run)
#   --sample DIR       dry run: the recorded run to report (tests/testbox/sample)
#   --params-from SRC  parameter source: auto (default: modinfo -p of the built
#                      module if it exists, else the series), modinfo, series
#   --load-timeout S   wait for /dev/kfd and the GPU node after insmod (120)
#   --no-report        do not generate the report at the end
#   --harness-dir DIR  use the kfdmp harness built in DIR (default: build it in
#                      build/testbox-harness)
#   --pristine SRC     the box's amdgpu-dkms tree is modified: build from
#                      this pristine copy of it instead (a directory or the
#                      package's tarball; also PRISTINE=SRC)
#   --accept-local-edits  build on the modified tree as it is; the port tool's
#                      per-conflict report (scripts/port-series.sh
#                      --keep-going) is written to RUN_DIR/port-report.txt
#                      (also ACCEPT_LOCAL_EDITS=1)
#   --manifest FILE    sha256sum lines of the pristine tree, for a tree no
#                      package manager owns
#   --tenant           tenant mode (issues 18, 26; make testbox-tenant): the
#                      matrix tests/testbox/tenant.conf and, per configuration,
#                      kfdmp's tenant mode instead of the workloads: --critical
#                      latency --mix saturate:5, or the user's services
#                      CRITICAL="CMD" BEST_EFFORT="CMD" (BEST_EFFORT_PROCS=3
#                      processes of it; e.g. CRITICAL="docker exec -i online
#                      python3 serve.py"), or REFERENCE=gpt2 (a batch-1 GPT-2
#                      critical beside batch-32 ones); --arms
#                      none,priority,sched-drain,sched-kfd (TENANT_ARMS); the
#                      critical rate from its busy fraction alone, kfdmp
#                      --critical-busy 0.1,0.3 (TENANT_BUSY): rate = busy /
#                      its mean service time alone, measured by kfdmp first
#                      (docs/tenant-control.md section 6); default window
#                      --duration 10 --warmup 2. PHASE=host: the driver
#                      already loaded (stock: sched-kfd skips itself, the
#                      probe says why; the default); PHASE=driver: the
#                      series' driver, all GPUs stop (sched-kfd measures)
#   --tenant-rate R    tenant mode at this rate (per second) instead of the
#                      busy fractions (also TENANT_RATE=R)
#
# Which driver: the box's amdgpu-dkms source when there is one - KSRC, else
# the tree DKMS has installed for the running kernel (dkms status: amdgpu
# VERSION installed for KVER -> /usr/src/amdgpu-VERSION; never a sibling
# tree picked by name) - checked to be pristine (rpm -V of the package that
# owns it, dpkg --verify on Debian/Ubuntu, --manifest otherwise) and built with
# `make modules KSRC=... KVER=...` (the rocm-6.4 series; DC=0 builds without
# display): the whole DKMS stack is swapped, amdgpu and its companions
# amdxcp, amddrm_ttm_helper, amddrm_buddy, amd-sched, amdttm, amdkcl are
# unloaded in that order, ours loaded in the reverse order, and the stock
# stack restored with modprobe amdgpu. Any kernel that source builds for is
# accepted. Without one (or with --module), the upstream 6.12 path: our
# amdgpu.ko alone, on a 6.12 kernel.
# Environment: KVER (default $(uname -r)), KSRC, DC, BUILD, TREE, JOBS
# (scripts/lib.sh); KFDMP_GPU (harness backend, default auto); TENANT_RATE;
# PHASE, GPU, WORKLOAD, REFERENCE, CONTAINER, REFERENCE_ARGS (more options of
# kfdmp_reference.py). Exit status: 0 ok; 1 a check,
# a configuration or the restore failed; 2 usage; 130 interrupted.
# Layout of the run directory and the report's JSON schema:
# scripts/report/README.md.
set -euo pipefail
# KVER: the running kernel unless given. lib.sh would default it to the
# pinned base; keep what the caller set. The same for KSRC (lib.sh defaults
# it to the upstream source).
KVER=${KVER:-$(uname -r)}
USER_KSRC=${KSRC:-}
# SERIES: what the caller chose, or nothing. lib.sh sets it (linux-6.12
# without a DKMS KSRC), and make exports it, so without this the inner
# make modules KSRC=<amdgpu-dkms tree> inherited linux-6.12 (issue 15).
USER_SERIES=${SERIES:-}
# MAKE_VARS_GIVEN: the variables of the make targets the caller gave (from
# the environment, before any default is set), for the sudo line.
MAKE_VARS_GIVEN=
for v in PHASE GPU WORKLOAD_GPU WORKLOAD REFERENCE CONTAINER REFERENCE_ARGS CRITICAL BEST_EFFORT BEST_EFFORT_PROCS TENANT_BUSY TENANT_ARMS; do
	case ${!v:-} in
	"") ;;
	*[[:space:]]*) MAKE_VARS_GIVEN+=" $v=\"${!v}\"" ;;
	*) MAKE_VARS_GIVEN+=" $v=${!v}" ;;
	esac
done
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

REPORT_PY=$ROOT/scripts/report/testbox_report.py
PARAMS_PY=$ROOT/scripts/report/kfdmp_params.py
STATE_DIR=${KFDMP_TESTBOX_STATE:-/run/kfdmp-testbox}
# shellcheck source=scripts/testbox-partition.sh
. "$ROOT/scripts/testbox-partition.sh" # partition arms (issue 17)
# Where the driver shows itself. The KFDMP_* overrides exist for
# tests/testbox/mock-box-test.sh, which runs the real path on a fake box.
KFD_SYSFS=${KFDMP_KFD_SYSFS:-/sys/class/kfd/kfd}
KFD_DEBUGFS=${KFDMP_KFD_DEBUGFS:-/sys/kernel/debug/kfd}
KFD_DEV=${KFDMP_KFD_DEV:-/dev/kfd}
KMSG=${KFDMP_KMSG:-/dev/kmsg}
MOD_SYSFS=${KFDMP_MOD_SYSFS:-/sys/module/amdgpu}
SYS_MODULE=${KFDMP_SYS_MODULE:-$(dirname "$MOD_SYSFS")}
USR_SRC=${KFDMP_USR_SRC:-/usr/src}
# amdgpu-dkms's companion modules in load order; amdgpu comes after them.
DKMS_COMPANIONS="amdkcl amdttm amd-sched amddrm_buddy amddrm_ttm_helper amdxcp"
SERIES_BASE=${LINUX_SOURCE_VERSION%%-*}
SERIES_MAJMIN=${SERIES_BASE%.*}
DKMS_NAME=amdgpu-kfdmp
STACK=upstream
STACK_DIR=
SRC=
MODULE_GIVEN=0
declare -A STACK_KO=()
# Parameters read back after every load (those that exist).
READBACK_PARAMS="kfd_mp kfd_queue_slot_policy kfd_queue_slot_range kfd_doorbell_placement kfd_queued_runlist sched_policy mes hws_max_conc_proc"

# --- options ------------------------------------------------------------------
CMD=run
DRY=0
MATRIX=$ROOT/tests/testbox/matrix.conf
CONFIGS=
WORKLOADS="latency saturate"
PROCS=1,2,4,8
REPEAT=3
DURATION=3
WARMUP=1
DEVICES=
KFDMP_ARGS=
CTEST=0
TRACE=1
DO_BUILD=1
MODULE=
FORCE_KERNEL=0
OUT=
SAMPLE=$ROOT/tests/testbox/sample
PARAMS_FROM=auto
LOAD_TIMEOUT=120
REPORT=1
DEPENDS=
HARNESS_DIR=$BUILD/testbox-harness
BUILD_HARNESS=1
PRISTINE=${PRISTINE:-}
ACCEPT_LOCAL_EDITS=${ACCEPT_LOCAL_EDITS:-0}
TREE_MANIFEST=
TREE_FROM=
# Tenant mode (issue 18): docs/tenant-control.md section 6.
TENANT=0
TENANT_RATE=${TENANT_RATE:-}
TENANT_CRITICAL=latency
TENANT_MIX=saturate:5
# Issue 26: four arms; the rate from the critical tenant's busy fraction
# alone (kfdmp --critical-busy); the user's services as tenants.
TENANT_ARMS=${TENANT_ARMS:-none,priority,sched-drain,sched-kfd}
TENANT_BUSY=${TENANT_BUSY:-0.1,0.3}
CRITICAL=${CRITICAL:-}
BEST_EFFORT=${BEST_EFFORT:-}
BEST_EFFORT_PROCS=${BEST_EFFORT_PROCS:-3}
MATRIX_GIVEN=0
WINDOW_GIVEN=
# Phases (issue 24): host (phase 1, the default), driver (phase 2), all.
PHASE=${PHASE:-}
GPU=${GPU:-}
WORKLOAD_GPU=${WORKLOAD_GPU:-}
WORKLOAD_CMD=${WORKLOAD:-}
REFERENCE=${REFERENCE:-}
CONTAINER=${CONTAINER:-}
REFERENCE_ARGS=${REFERENCE_ARGS:-}
# Where kfdmp_reference.py and kfdmp_worker.py live (the harness's Python
# helpers), and where the run puts them inside the container.
PYTHON_DIR=${KFDMP_PYTHON_DIR:-$ROOT/tests/harness/python}
CONTAINER_DIR=/tmp/kfdmp-testbox
declare -A EXEC_CMD=()

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }

parse_options() {
	while [ $# -gt 0 ]; do
		case $1 in
		--dry-run) DRY=1 ;;
		--matrix) MATRIX=$2; MATRIX_GIVEN=1; shift ;;
		--configs) CONFIGS=$2; shift ;;
		--workloads) WORKLOADS=${2//,/ }; shift ;;
		--procs) PROCS=$2; shift ;;
		--repeat) REPEAT=$2; shift ;;
		--duration) DURATION=$2; WINDOW_GIVEN+=d; shift ;;
		--warmup) WARMUP=$2; WINDOW_GIVEN+=w; shift ;;
		--devices) DEVICES=$2; shift ;;
		--kfdmp-args) KFDMP_ARGS=$2; shift ;;
		--ctest) CTEST=1 ;;
		--no-trace) TRACE=0 ;;
		--no-build) DO_BUILD=0 ;;
		--module) MODULE=$2; DO_BUILD=0; MODULE_GIVEN=1; shift ;;
		--stack) STACK_DIR=$2; DO_BUILD=0; shift ;;
		--force-kernel) FORCE_KERNEL=1 ;;
		--out) OUT=$2; shift ;;
		--sample) SAMPLE=$2; shift ;;
		--params-from) PARAMS_FROM=$2; shift ;;
		--load-timeout) LOAD_TIMEOUT=$2; shift ;;
		--no-report) REPORT=0 ;;
		--harness-dir) HARNESS_DIR=$2; BUILD_HARNESS=0; shift ;;
		--pristine) PRISTINE=$2; shift ;;
		--accept-local-edits) ACCEPT_LOCAL_EDITS=1 ;;
		--manifest) TREE_MANIFEST=$2; shift ;;
		--tenant) TENANT=1 ;;
		--tenant-rate) TENANT_RATE=$2; shift ;;
		--phase) PHASE=$2; shift ;;
		--driver-arms) PHASE=driver ;;
		--gpu) GPU=$2; shift ;;
		--workload-gpu) WORKLOAD_GPU=$2; shift ;;
		--exec) WORKLOAD_CMD=$2; shift ;;
		--reference) REFERENCE=$2; shift ;;
		--container) CONTAINER=$2; shift ;;
		-h|--help) usage; exit 0 ;;
		*) printf 'testbox: unknown option %s (see --help)\n' "$1" >&2; exit 2 ;;
		esac
		shift
	done
	case $PARAMS_FROM in auto|modinfo|series) ;; *) die "--params-from: auto, modinfo or series" ;; esac
	[[ $REPEAT =~ ^[1-9][0-9]*$ ]] || die "--repeat: a positive integer"
	[[ $PROCS =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || die "--procs: a list like 1,2,4,8"
	if [ -n "$TENANT_RATE" ]; then
		if [[ ! $TENANT_RATE =~ ^[0-9]+(\.[0-9]+)?$ ]] || [[ $TENANT_RATE =~ ^0*(\.0*)?$ ]]; then
			die "--tenant-rate/TENANT_RATE: a rate per second > 0, e.g. 30 (got '$TENANT_RATE')"
		fi
		[ "$TENANT" = 1 ] || die "--tenant-rate/TENANT_RATE needs --tenant (make testbox-tenant)"
	fi
	if [ "$TENANT" = 1 ]; then
		# One harness invocation per configuration: the tenant mode.
		WORKLOADS=tenant
		[ "$MATRIX_GIVEN" = 1 ] || MATRIX=$ROOT/tests/testbox/tenant.conf
		[[ $WINDOW_GIVEN == *d* ]] || DURATION=10
		[[ $WINDOW_GIVEN == *w* ]] || WARMUP=2
	fi
	[ -f "$MATRIX" ] || die "no matrix file $MATRIX"
	# Phase 1 by default, the tenant run too: on the driver already loaded
	# (sched-drain needs no driver change; sched-kfd skips itself, with the
	# probe's reason, unless the series' driver is the loaded one).
	# PHASE=driver (or all) loads the series' driver for sched-kfd.
	[ -n "$PHASE" ] || PHASE=host
	case $PHASE in host|driver|all) ;; 1) PHASE=host ;; 2) PHASE=driver ;;
	*) die "--phase/PHASE: host (phase 1, the default), driver (phase 2, --driver-arms) or all (got '$PHASE')" ;; esac
	[ -z "$GPU" ] || [[ $GPU =~ ^[0-9]+$ ]] || die "--gpu/GPU: a GPU index as HIP numbers the host's GPUs, e.g. 3 (got '$GPU')"
	[ -z "$WORKLOAD_GPU" ] || [[ $WORKLOAD_GPU =~ ^[0-9]+$ ]] || die "--workload-gpu/WORKLOAD_GPU: a GPU index (got '$WORKLOAD_GPU')"
	[ "$PHASE" != host ] || : "${GPU:=0}"
	[ -z "$WORKLOAD_CMD" ] || [ -z "$REFERENCE" ] || die "WORKLOAD (--exec) and REFERENCE (--reference): one or the other"
	[ -z "$CONTAINER" ] || [ -n "$REFERENCE" ] || die "CONTAINER (--container) names where the reference workloads run: give REFERENCE=gpt2 (or resnet50) too; your own service takes WORKLOAD=\"docker exec -i $CONTAINER ...\""
	[ -z "$CONTAINER" ] || [[ $CONTAINER =~ ^[A-Za-z0-9][A-Za-z0-9_.-]*$ ]] || die "--container/CONTAINER: a Docker container name or ID (got '$CONTAINER')"
	if [ "$TENANT" = 1 ]; then
		tenant_services
	elif [ -n "$CRITICAL$BEST_EFFORT" ]; then
		die "CRITICAL/BEST_EFFORT: the tenant run's services (make testbox-tenant)"
	fi
	if [ -n "$WORKLOAD_CMD" ]; then
		WORKLOADS="exec"
		EXEC_CMD[exec]=$WORKLOAD_CMD
	elif [ -n "$REFERENCE" ]; then
		local r
		WORKLOADS=
		for r in ${REFERENCE//,/ }; do
			[[ $r =~ ^[A-Za-z0-9][A-Za-z0-9_.-]*$ ]] || die "--reference/REFERENCE: names like gpt2,resnet50 (got '$r')"
			WORKLOADS+="${WORKLOADS:+ }$r"
			EXEC_CMD[$r]=$(reference_cmd "$r")
		done
	fi
	[ -z "$STACK_DIR" ] || [ "$MODULE_GIVEN" = 0 ] || die "--module and --stack: one or the other"
	detect_stack
	: "${MODULE:=$TREE/$AMDGPU_DIR/amdgpu.ko}"
}

# --- which driver: the box's amdgpu-dkms stack, or upstream's amdgpu.ko -------------
# dkms_source PATH: an amdgpu-dkms source (a directory with dkms.conf and
# amd/dkms, or a tarball of one).
dkms_source() {
	if [ -d "$1" ]; then [ -f "$1/dkms.conf" ] && [ -d "$1/amd/dkms" ]
	else case ${1##*/} in amdgpu-dkms-*.tar*|amdgpu-[0-9]*.tar*) [ -f "$1" ] ;; *) return 1 ;; esac; fi
}
# dkms_conf_get FILE VAR: VAR's value in a dkms.conf.
dkms_conf_get() { sed -n "s/^$2=//p" "$1" 2>/dev/null | head -n1 | tr -d "\"'"; }
mod_loaded() { [ -d "$SYS_MODULE/${1//-/_}" ]; }
# shellcheck disable=SC2086 # a list of module names
reversed_companions() { printf '%s\n' $DKMS_COMPANIONS | tac | tr '\n' ' '; }

# stack_from DIR: our module set in DIR (the seven modules of a DKMS build).
stack_from() {
	local m f
	for m in amdgpu $DKMS_COMPANIONS; do
		f=$(find "$1" -name "$m.ko" -type f 2>/dev/null | head -n1)
		[ -n "$f" ] || die "--stack $1: no $m.ko in it (the seven modules of an amdgpu-dkms build)"
		STACK_KO[$m]=$f
	done
	MODULE=${STACK_KO[amdgpu]}
}

detect_stack() {
	if [ -n "$STACK_DIR" ]; then
		[ -d "$STACK_DIR" ] || die "--stack: no directory $STACK_DIR"
		STACK=dkms
		SRC=$USER_KSRC
		stack_from "$STACK_DIR"
		return
	fi
	SRC=$USER_KSRC
	TREE_FROM=${USER_KSRC:+KSRC}
	if [ -z "$SRC" ] && [ "$MODULE_GIVEN" = 0 ]; then
		local reg
		reg=$(stock_dkms)
		if [ -n "$reg" ]; then
			SRC=$USR_SRC/${reg%%/*}-${reg#*/}
			TREE_FROM="dkms status: ${reg%%/*} ${reg#*/} installed for $KVER"
		fi
	fi
	if [ "$MODULE_GIVEN" = 0 ] && [ -n "$SRC" ] && dkms_source "$SRC"; then
		STACK=dkms
	else
		STACK=upstream
		SRC=${USER_KSRC:-$KSRC}
	fi
}

# --- output helpers -------------------------------------------------------------
step() { printf '\n== %s\n' "$*"; }
# would CMD...: run it, or in a dry run print it.
would() {
	if [ "$DRY" = 1 ]; then
		printf '   [dry-run] would run: %s\n' "$*"
	else
		printf '   + %s\n' "$*"
		"$@"
	fi
}
q() { printf '%q ' "$@"; }

CHECKS_FILE=
CHECK_FAILS=0
# check NAME STATUS DETAIL: record one box check (ok|warn|fail|skip|info).
check() {
	local name=$1 status=$2 detail=$3
	printf '   %-14s %-5s %s\n' "$name" "$status" "$detail"
	[ -z "$CHECKS_FILE" ] || printf '%s\t%s\t%s\n' "$name" "$status" "${detail//$'\t'/ }" >>"$CHECKS_FILE"
	[ "$status" != fail ] || CHECK_FAILS=$((CHECK_FAILS + 1))
}

# --- box checks (read-only) -------------------------------------------------------
amdgpu_loaded() { [ -d "$MOD_SYSFS" ]; }

# gfx9.4.x GPU nodes of the KFD topology: "node gpu_id gfx_target_version" lines.
gfx94_nodes() {
	local p n v id
	for p in "$KFD_SYSFS"/topology/nodes/*/properties; do
		[ -r "$p" ] || continue
		n=$(basename "$(dirname "$p")")
		v=$(awk '$1 == "gfx_target_version" { print $2 }' "$p")
		id=$(cat "$(dirname "$p")/gpu_id" 2>/dev/null || echo 0)
		if [ -n "$v" ] && [ "$v" -ge 90400 ] && [ "$v" -le 90499 ]; then
			printf '%s %s %s\n' "$n" "$id" "$v"
		fi
	done
}

param_value() { cat "$MOD_SYSFS/parameters/$1" 2>/dev/null || true; }

# param_same ASKED READ: a parameter asked ASKED that reads back READ holds
# that value, as the kernel parses it (0x10 and 16; 1, y and Y of a bool).
param_same() {
	[ "$1" = "$2" ] && return 0
	case $1:$2 in [1yY]:Y | [0nN]:N) return 0 ;; esac
	[[ $1 =~ ^-?(0[xX][0-9a-fA-F]+|[0-9]+)$ && $2 =~ ^-?[0-9]+$ ]] && [ "$(($1))" = "$2" ]
}

# param_mismatch PARAM=VALUE...: the parameters of the loaded driver that do
# not read back the value asked, one per line. The series' switches log a
# bad value and fall back to their default instead of failing the load (as
# amdgpu's own parameters do), and the kernel ignores an unknown parameter,
# so a load that succeeded may still run another configuration.
param_mismatch() {
	local p name got
	for p in "$@"; do
		name=${p%%=*}
		if [ ! -e "$MOD_SYSFS/parameters/$name" ]; then
			echo "$name does not exist (asked ${p#*=})"
			continue
		fi
		got=$(param_value "$name")
		param_same "${p#*=}" "$got" || echo "$name reads back '$got', asked '${p#*=}'"
	done
}

# kfd_users: "comm(pid[, container ID])" of every process holding /dev/kfd
# or a DRM node open, from /proc: root sees the processes of containers
# too, which the host's lsof does not name as such.
PROC=${KFDMP_PROC:-/proc}
# proc_name PID: "comm(pid[, container ID])".
proc_name() {
	local comm ctr
	comm=$(cat "$PROC/$1/comm" 2>/dev/null || echo '?')
	ctr=$(grep -oE '(docker|containerd|libpod|crio|cri-containerd)[-/:]?[0-9a-f]{12}' "$PROC/$1/cgroup" 2>/dev/null | head -n1 || true)
	printf '%s(%s%s)' "$comm" "$1" "${ctr:+, container ${ctr}}"
}
kfd_users() {
	local d pid
	find "$PROC" -mindepth 3 -maxdepth 3 -path "$PROC/[0-9]*/fd/*" \( -lname "$KFD_DEV" -o -lname '/dev/dri/*' \) \
		-printf '%h\n' 2>/dev/null | sort -u | while read -r d; do
		pid=${d%/fd}; pid=${pid##*/}
		printf '%s ' "$(proc_name "$pid")"
	done || true
}

# --- the GPU under test (phase 1) --------------------------------------------------
# gpu_nodes: "node gpu_id" of every GPU node of the KFD topology, in node
# order: HIP (ROCr) numbers the GPUs in this order, so GPU=N is line N+1.
PCI_DEVICES=${KFDMP_PCI_DEVICES:-/sys/bus/pci/devices}
gpu_nodes() {
	local d id
	for d in "$KFD_SYSFS"/topology/nodes/*; do
		[ -r "$d/gpu_id" ] || continue
		id=$(cat "$d/gpu_id" 2>/dev/null || echo 0)
		[ "$id" = 0 ] || printf '%s %s\n' "${d##*/}" "$id"
	done | sort -n
}
# gpu_resolve N: GPU_NODE, GPU_ID, GPU_PCI (the PCI address, from the node's
# domain and location_id), GPU_PCI_DIR, GPU_RENDER (renderD minor),
# GPU_NUMA; GPU_WHY and return 1 when there is no GPU N.
GPU_NODE='' GPU_ID='' GPU_PCI='' GPU_PCI_DIR='' GPU_RENDER='' GPU_NUMA='' GPU_WHY=''
gpu_resolve() {
	local n=$1 line props loc dom all
	GPU_NODE='' GPU_ID='' GPU_PCI='' GPU_PCI_DIR='' GPU_RENDER='' GPU_NUMA='' GPU_WHY=''
	all=$(gpu_nodes)
	line=$(sed -n "$((n + 1))p" <<<"$all")
	if [ -z "$line" ]; then
		GPU_WHY="no GPU $n: the KFD topology ($KFD_SYSFS/topology/nodes) has $(grep -c . <<<"$all" || true) GPU node(s) (GPU=0..$(( $(grep -c . <<<"$all" || true) - 1 )))"
		return 1
	fi
	GPU_NODE=${line%% *} GPU_ID=${line#* }
	props=$KFD_SYSFS/topology/nodes/$GPU_NODE/properties
	loc=$(awk '$1 == "location_id" { print $2 }' "$props" 2>/dev/null)
	dom=$(awk '$1 == "domain" { print $2 }' "$props" 2>/dev/null)
	GPU_RENDER=$(awk '$1 == "drm_render_minor" { print $2 }' "$props" 2>/dev/null)
	if [ -n "$loc" ]; then
		GPU_PCI=$(printf '%04x:%02x:%02x.%x' "${dom:-0}" $((loc >> 8)) $(((loc >> 3) & 31)) $((loc & 7)))
		GPU_PCI_DIR=$PCI_DEVICES/$GPU_PCI
		GPU_NUMA=$(cat "$GPU_PCI_DIR/numa_node" 2>/dev/null || true)
	fi
}
# gpu_kfd_users ID: one line "pid queues vram_bytes" per process that has
# KFD queues or memory on the GPU with gpu_id ID, from the KFD process
# sysfs (/sys/class/kfd/kfd/proc/PID/queues/*/gpuid, vram_ID). Every ROCm
# process gets a per-device record and the render node of every GPU it can
# see, used or not, so neither an open /dev/kfd nor /dev/dri says which GPU
# a process uses; queues and memory do.
gpu_kfd_users() {
	local id=$1 d pid nq q vram
	for d in "$KFD_SYSFS"/proc/*; do
		[ -d "$d" ] || continue
		pid=${d##*/} nq=0
		for q in "$d"/queues/*/gpuid; do
			[ -r "$q" ] && [ "$(cat "$q" 2>/dev/null)" = "$id" ] && nq=$((nq + 1))
		done
		vram=$(cat "$d/vram_$id" 2>/dev/null || echo 0)
		[[ $vram =~ ^[0-9]+$ ]] || vram=0
		[ "$nq" = 0 ] && [ "$vram" = 0 ] || printf '%s %s %s\n' "$pid" "$nq" "$vram"
	done
}
# gpu_others ID: "comm(pid...)" of the processes with queues or memory on
# the other GPUs (left serving).
gpu_others() {
	local id=$1 d pid q v other
	for d in "$KFD_SYSFS"/proc/*; do
		[ -d "$d" ] || continue
		pid=${d##*/} other=0
		for q in "$d"/queues/*/gpuid; do
			[ -r "$q" ] && [ "$(cat "$q" 2>/dev/null)" != "$id" ] && other=1
		done
		for v in "$d"/vram_*; do
			[ -r "$v" ] && [ "${v##*/vram_}" != "$id" ] && [ "$(cat "$v" 2>/dev/null || echo 0)" != 0 ] && other=1
		done
		[ "$other" = 0 ] || printf '%s ' "$(proc_name "$pid")"
	done
}

# reference_cmd NAME: the command of a reference PyTorch workload
# (tests/harness/python/kfdmp_reference.py), on the host or, with
# --container, inside the container it was copied to.
# NAME: a model (gpt2, resnet50: --model, the script's default batch and
# sequence) or one of its presets (gpt2-b8-s128, resnet50-b32,
# mi300x-8.7ms: --preset); REFERENCE_ARGS are appended (--batch 16 ...).
reference_cmd() {
	local sel
	case $1 in gpt2|resnet50) sel="--model $1" ;; *) sel="--preset $1" ;; esac
	if [ -n "$CONTAINER" ]; then
		printf 'docker exec -i %s python3 %s/kfdmp_reference.py %s%s' "$CONTAINER" "$CONTAINER_DIR" "$sel" "${REFERENCE_ARGS:+ $REFERENCE_ARGS}"
	else
		printf 'python3 %s %s%s' "$(printf '%q' "$PYTHON_DIR/kfdmp_reference.py")" "$sel" "${REFERENCE_ARGS:+ $REFERENCE_ARGS}"
	fi
}

# secure_boot: why the kernel would refuse an unsigned module, or nothing.
EFIVARS=${KFDMP_EFIVARS:-/sys/firmware/efi/efivars}
LOCKDOWN=${KFDMP_LOCKDOWN:-/sys/kernel/security/lockdown}
SIG_ENFORCE=${KFDMP_SIG_ENFORCE:-/sys/module/module/parameters/sig_enforce}
secure_boot() {
	local f sb='' lock why=()
	f=$EFIVARS/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c
	if [ -r "$f" ]; then
		sb=$(od -An -t u1 -j4 -N1 "$f" 2>/dev/null | tr -d ' ')
	elif command -v mokutil >/dev/null; then
		mokutil --sb-state 2>/dev/null | grep -q 'SecureBoot enabled' && sb=1
	fi
	[ "$sb" != 1 ] || why+=("Secure Boot is enabled")
	lock=$(grep -oE '\[[a-z]+\]' "$LOCKDOWN" 2>/dev/null | tr -d '[]' || true)
	case $lock in integrity|confidentiality) why+=("kernel lockdown=$lock") ;; esac
	[ "$(cat "$SIG_ENFORCE" 2>/dev/null)" != Y ] || why+=("module.sig_enforce=Y")
	[ ${#why[@]} -eq 0 ] || (IFS=';'; echo "${why[*]}")
}

# tree_state DIR: is the amdgpu-dkms tree DIR as its package shipped it?
# Sets TREE_PKG (the owning package), TREE_HOW (how it was checked),
# TREE_STATE (pristine, modified, unknown) and TREE_MODIFIED (the files that
# differ, relative to DIR). Files added to the tree are not seen by rpm -V
# or dpkg --verify.
TREE_PKG='' TREE_HOW='' TREE_STATE='' TREE_MODIFIED=()
tree_state() {
	local dir=$1 owner out
	TREE_PKG='' TREE_HOW='' TREE_STATE=unknown TREE_MODIFIED=()
	if [ ! -d "$dir" ]; then
		TREE_STATE=pristine TREE_HOW="a tarball, used as shipped"
		return
	fi
	if command -v rpm >/dev/null && owner=$(rpm -qf "$dir/dkms.conf" 2>/dev/null) && [ -n "$owner" ]; then
		TREE_PKG=$owner TREE_HOW="rpm -V $owner"
		# "S.5....T.  c /path" or "missing     /path"
		out=$(rpm -V "$owner" 2>/dev/null || true)
	elif command -v dpkg-query >/dev/null && owner=$(dpkg-query -S "$dir/dkms.conf" 2>/dev/null | cut -d: -f1) && [ -n "$owner" ]; then
		TREE_PKG=$owner TREE_HOW="dpkg --verify $owner"
		out=$(dpkg --verify "$owner" 2>/dev/null || true)
	elif [ -n "$TREE_MANIFEST" ]; then
		[ -r "$TREE_MANIFEST" ] || die "--manifest $TREE_MANIFEST: cannot read it"
		TREE_HOW="sha256sum -c $TREE_MANIFEST"
		out=$(cd "$dir" || exit 0; sha256sum -c --quiet "$(realpath "$TREE_MANIFEST")" 2>/dev/null | sed -n "s|^\(.*\): FAILED.*|x $dir/\1|p")
	else
		TREE_HOW="no package owns $dir/dkms.conf (rpm -qf, dpkg -S) and no --manifest was given"
		return
	fi
	mapfile -t TREE_MODIFIED < <(awk '{ print $NF }' <<<"$out" | grep -F "$dir/" | sed "s|^$dir/||" | sort -u || true)
	if [ ${#TREE_MODIFIED[@]} -gt 0 ]; then TREE_STATE=modified; else TREE_STATE=pristine; fi
}

# check_tree: the box check of the amdgpu-dkms tree (dkms stack only).
check_tree() {
	[ "$STACK" = dkms ] && [ -n "$SRC" ] && [ "$DO_BUILD" = 1 ] || return 0
	tree_state "$SRC"
	local list
	list=$(printf '%s ' "${TREE_MODIFIED[@]:0:20}")
	[ ${#TREE_MODIFIED[@]} -le 20 ] || list="$list... ($((${#TREE_MODIFIED[@]} - 20)) more)"
	case $TREE_STATE in
	pristine) check tree ok "$SRC (${TREE_FROM:-given}): pristine ($TREE_HOW)" ;;
	unknown) check tree warn "$SRC (${TREE_FROM:-given}): cannot tell whether it is pristine: $TREE_HOW" ;;
	modified)
		if [ -n "$PRISTINE" ]; then
			[ -e "$PRISTINE" ] || die "--pristine $PRISTINE: no such directory or tarball"
			check tree ok "$SRC is modified (${#TREE_MODIFIED[@]} files, $TREE_HOW: ${list% }); building from the pristine source $PRISTINE (--pristine)"
			SRC_MODIFIED=$SRC
			SRC=$PRISTINE
		elif [ "$ACCEPT_LOCAL_EDITS" = 1 ]; then
			check tree warn "$SRC is modified (${#TREE_MODIFIED[@]} files, $TREE_HOW: ${list% }); building on the local edits (--accept-local-edits); per-conflict report: port-report.txt"
		else
			check tree fail "$SRC is modified: ${#TREE_MODIFIED[@]} files differ from ${TREE_PKG:-the manifest} ($TREE_HOW): ${list% }. Give --pristine SRC (PRISTINE=) to build from an unmodified copy, or --accept-local-edits (ACCEPT_LOCAL_EDITS=1) to build on the edits"
		fi ;;
	esac
}
SRC_MODIFIED=

# check_trace: tracing never stops a run: without it the report says why.
check_trace() {
	local tp
	[ "$TRACE" = 1 ] || return 0
	if tp=$("$ROOT/scripts/trace.sh" probe --no-events 2>&1); then check trace ok "${tp#trace.sh: }"
	else check trace warn "${tp#trace.sh: }: the run goes on without traces (each workload's trace/trace.env says why)"; fi
}

# check_root: a real run needs root (modules in phase 2; other users'
# /proc and the KFD process sysfs, and tracing, in phase 1).
check_root() {
	if [ "$(id -u)" = 0 ]; then check root ok "running as root"
	elif [ "$PHASE" = host ]; then check root fail "not root: phase 1 reads every process's GPU use (/proc, $KFD_SYSFS/proc) and traces"
	else check root fail "not root: loading modules needs root"; fi
}

# check_box_host: phase 1 (the arms that change no driver parameter): the
# driver already loaded, the GPU under test and who uses it. Users of the
# other GPUs are named and left alone.
check_box_host() {
	local pid nq vram busy='' mem='' others cur
	step "box checks (phase 1: the driver already loaded, GPU $GPU only)"
	check_root
	if amdgpu_loaded && [ -e "$KFD_DEV" ]; then
		check driver ok "amdgpu loaded$( [ -r "$MOD_SYSFS/version" ] && echo " (version $(cat "$MOD_SYSFS/version"))"), $KFD_DEV present: phase 1 runs on it; nothing is unloaded or loaded"
	else
		check driver fail "amdgpu is not loaded (no $MOD_SYSFS or no $KFD_DEV): phase 1 runs on the driver already loaded (modprobe amdgpu)"
	fi
	if gpu_resolve "$GPU"; then
		check gpu ok "GPU $GPU: KFD node $GPU_NODE, gpu_id $GPU_ID${GPU_PCI:+, PCI $GPU_PCI}${GPU_RENDER:+, /dev/dri/renderD$GPU_RENDER}${GPU_NUMA:+, NUMA node $GPU_NUMA}; $(gpu_nodes | wc -l) GPU(s) on the box"
	else
		check gpu fail "$GPU_WHY"
	fi
	if amdgpu_loaded; then
		local sp mes
		sp=$(param_value sched_policy) mes=$(param_value mes)
		if [ "$sp" = 0 ] && [ "${mes:-0}" = 0 ]; then check scheduler ok "sched_policy=0 (HWS/CPSCH), mes=${mes:-absent}"
		else check scheduler warn "sched_policy=${sp:-?} mes=${mes:-?}: the field's numbers are HWS without MES (sched_policy=0, mes=0)"; fi
	fi
	if [ -n "$GPU_ID" ]; then
		while read -r pid nq vram; do
			[ -n "$pid" ] || continue
			if [ "$nq" -gt 0 ]; then busy+="$(proc_name "$pid") [$nq queue(s)] "
			else mem+="$(proc_name "$pid") [$vram bytes] "; fi
		done < <(gpu_kfd_users "$GPU_ID")
		if [ -n "$busy" ]; then
			check gpu-users fail "GPU $GPU (gpu_id $GPU_ID) has KFD queues of ${busy% }: they would share the GPU with the measurement. Stop them (not their container, if it is the one the workload runs in), or pick an idle GPU (GPU=N); the other GPUs are not touched"
		elif [ -n "$mem" ]; then
			check gpu-users warn "GPU $GPU (gpu_id $GPU_ID): no KFD queues, but memory held by ${mem% } (it submits nothing while it has no queue)"
		else
			check gpu-users ok "GPU $GPU (gpu_id $GPU_ID): no process has KFD queues or memory on it ($KFD_SYSFS/proc/*/queues/*/gpuid, vram_$GPU_ID)"
		fi
		others=$(gpu_others "$GPU_ID")
		[ -z "$others" ] || check other-gpus info "left serving, not touched: ${others% }"
		cur=$(part_get current_compute_partition || true)
		check partition info "GPU $GPU: ${cur:-no current_compute_partition attribute (whole GPU)}; phase 1 never switches (an arm that needs another mode is skipped with the reason)"
	fi
	if [ -n "$CONTAINER" ] || [[ $WORKLOAD_CMD == docker\ * ]]; then
		if ! command -v docker >/dev/null; then
			check docker fail "no docker command: the workload runs through docker"
		elif [ -n "$CONTAINER" ]; then
			local running
			running=$(docker inspect -f '{{.State.Running}}' "$CONTAINER" 2>&1 || true)
			if [ "$running" = true ]; then check container ok "$CONTAINER is running: the reference workloads run inside it (docker exec -i)"
			else check container fail "container $CONTAINER is not running (docker inspect: ${running:-nothing})"; fi
		fi
	fi
	check_reference_files
	[ -z "$WORKLOAD_CMD" ] || check workload info "kfdmp --exec '$WORKLOAD_CMD' (the line protocol of docs/exec-workers.md), on GPU ${WORKLOAD_GPU:-$GPU} as the workload numbers GPUs"
	check_trace
}

# check_reference_files: the reference workloads' script and helper.
check_reference_files() {
	[ -n "$REFERENCE" ] || return 0
	if [ -f "$PYTHON_DIR/kfdmp_reference.py" ] && { [ -f "$PYTHON_DIR/kfdmp_worker.py" ] || [ -d "$PYTHON_DIR/kfdmp_worker" ]; }; then
		check reference ok "$REFERENCE: $PYTHON_DIR/kfdmp_reference.py and kfdmp_worker$([ -n "$CONTAINER" ] && echo ", copied into $CONTAINER:$CONTAINER_DIR")"
	else
		check reference fail "no kfdmp_reference.py and kfdmp_worker(.py) in $PYTHON_DIR (the harness's Python helpers; KFDMP_PYTHON_DIR)"
	fi
}

check_box() {
	local v nodes users lsof_out stock_path cmdline
	if [ "$PHASE" = host ]; then check_box_host; return; fi
	step "box checks (phase $([ "$PHASE" = driver ] && echo 2 || echo '1 and 2'): every arm loads the series' driver; the whole box)"
	check_root

	v=$(uname -r)
	local excl srcver
	if [ "$KVER" != "$v" ]; then
		check kernel fail "KVER=$KVER but the running kernel is $v: a module for another kernel cannot be loaded"
	elif [ "$STACK" = dkms ]; then
		excl='' srcver=''
		if [ -d "$SRC" ]; then
			excl=$(dkms_conf_get "$SRC/dkms.conf" BUILD_EXCLUSIVE_KERNEL)
			srcver=$(dkms_conf_get "$SRC/dkms.conf" PACKAGE_VERSION)
		fi
		if [ -n "$excl" ] && ! [[ $v =~ $excl ]]; then
			check kernel fail "$v: $SRC/dkms.conf builds only for kernels matching $excl"
		else
			check kernel ok "$v: the amdgpu-dkms stack is built for the running kernel (from ${SRC:-$STACK_DIR}${srcver:+, version $srcver})"
		fi
	elif [[ $v != "$SERIES_MAJMIN".* ]]; then
		if [ "$FORCE_KERNEL" = 1 ]; then
			check kernel warn "$v is not $SERIES_MAJMIN.y, the series base ($SERIES_BASE); going on (--force-kernel)"
		else
			check kernel fail "$v is not $SERIES_MAJMIN.y: the series is based on $SERIES_BASE (boot a $SERIES_MAJMIN kernel, e.g. $KVER_DEFAULT, or --force-kernel)"
		fi
	elif [ "$v" != "$KVER_DEFAULT" ]; then
		check kernel warn "$v: the series is built and tested against $KVER_DEFAULT ($SERIES_BASE sources); building the $SERIES_BASE driver against $v's headers, modversions decide whether it loads"
	else
		check kernel ok "$v is the series base ($SERIES_BASE)"
	fi
	if [ -f "$KDIR/Makefile" ]; then check headers ok "$KDIR"
	else check headers fail "no headers at $KDIR (apt-get install linux-headers-$KVER)"; fi

	nodes=$(gfx94_nodes)
	if [ -n "$nodes" ]; then
		check gpu ok "$(printf '%s\n' "$nodes" | wc -l) gfx9.4.x node(s): $(printf '%s\n' "$nodes" | awk '{printf "%snode %s gpu_id %s gfx_target_version %s", (NR > 1 ? "; " : ""), $1, $2, $3}')"
	elif [ -d "$KFD_SYSFS/topology/nodes" ]; then
		check gpu fail "no KFD topology node with gfx_target_version 90400..90499 (MI300-class); $(grep -h gfx_target_version "$KFD_SYSFS"/topology/nodes/*/properties 2>/dev/null | sort -u | tr '\n' ' ')"
	else
		check gpu fail "no KFD topology at $KFD_SYSFS: no AMD GPU, or amdgpu not loaded (load the stock driver first: modprobe amdgpu)"
	fi

	if amdgpu_loaded; then
		local sp mes
		sp=$(param_value sched_policy) mes=$(param_value mes)
		if [ "$sp" = 0 ] && [ "${mes:-0}" = 0 ]; then
			check scheduler ok "sched_policy=0 (HWS/CPSCH), mes=${mes:-absent}"
		else
			check scheduler fail "sched_policy=${sp:-?} mes=${mes:-?}: the series is about HWS without MES (sched_policy=0, mes=0)"
		fi
		users=$(cat "$MOD_SYSFS/refcnt" 2>/dev/null || echo '?')
		local holders
		holders=$(find "$MOD_SYSFS/holders" -mindepth 1 -maxdepth 1 -printf '%f ' 2>/dev/null || true)
		lsof_out=$(kfd_users)
		if command -v lsof >/dev/null; then
			lsof_out="$lsof_out$(lsof -w "$KFD_DEV" /dev/dri/* 2>/dev/null | awk 'NR > 1 { print $1 "(" $2 ")" }' | sort -u | tr '\n' ' ' || true)"
		fi
		if [ "$users" = 0 ] && [ -z "$holders" ] && [ -z "$lsof_out" ]; then
			check amdgpu-users ok "refcnt 0, no holders, nothing has /dev/kfd or /dev/dri/* open"
		else
			check amdgpu-users fail "amdgpu is in use: refcnt ${users}, holders [${holders}], open by [${lsof_out}] (stop ROCm jobs and the containers running them, monitoring agents, display managers; unbind fbcon)"
		fi
	else
		check scheduler info "amdgpu not loaded: sched_policy/mes are checked after each load"
		check amdgpu-users ok "amdgpu not loaded"
	fi
	local sbw
	sbw=$(secure_boot)
	if [ -z "$sbw" ]; then check secureboot ok "unsigned modules load (no Secure Boot, lockdown or sig_enforce)"
	else check secureboot fail "$sbw: the kernel refuses our unsigned modules. Sign each .ko with a key enrolled in MOK ($KDIR/scripts/sign-file sha256 KEY.priv KEY.der MODULE.ko; mokutil --import KEY.der, reboot to enroll) and load with --stack DIR, or turn Secure Boot off in the firmware"; fi
	stock_path=$(modinfo -k "$KVER" -n amdgpu 2>/dev/null || true)
	if [ "$STACK" = dkms ]; then
		local dk ver
		ver=$(cat "$MOD_SYSFS/version" 2>/dev/null || true)
		if command -v dkms >/dev/null; then
			dk=$(dkms status 2>/dev/null | grep -E '^amdgpu[/,]' | grep -F "$KVER" | grep -i 'installed' | head -n1 || true)
			if [ -n "$dk" ]; then check dkms ok "$dk"
			else check dkms warn "dkms status lists no installed amdgpu for $KVER: the restore loads whatever modprobe amdgpu finds ($stock_path)"; fi
		else
			check dkms warn "no dkms command: the stock stack is not known to be DKMS-installed"
		fi
		case $stock_path in
		"") check stock fail "no amdgpu module for $KVER in /lib/modules: nothing to restore to" ;;
		*/updates/*|*/extra/*) check stock ok "stock amdgpu is $stock_path${ver:+, version $ver}; the restore puts its stack back with modprobe amdgpu" ;;
		*) check stock warn "stock amdgpu is $stock_path (not under updates/ or extra/)${ver:+, version $ver}" ;;
		esac
		check_tree
		if [ ${#STACK_KO[@]} -eq 0 ] && [ "$DO_BUILD" = 1 ]; then
			check source ok "builds from $SRC${TREE_FROM:+ ($TREE_FROM)}: make modules KSRC=$SRC KVER=$KVER${DC:+ DC=$DC}"
		fi
		stock_path=skip
	fi
	if [ "$STACK" = upstream ] && [ -z "$USER_KSRC" ] && [ "$MODULE_GIVEN" = 0 ]; then
		local sib
		sib=$(find "$USR_SRC" -mindepth 1 -maxdepth 1 -name 'amdgpu-*' -printf '%f ' 2>/dev/null || true)
		[ -z "$sib" ] || check source warn "dkms status names no amdgpu installed for $KVER, so the upstream path; $USR_SRC holds ${sib% }: not picked by name, give KSRC=$USR_SRC/<the tree> to build one"
	fi
	case $stock_path in
	skip) ;;
	*/updates/*|*/extra/*) check vendor-dkms warn "stock amdgpu is $stock_path (DKMS/vendor): restore loads that one; ours uses the in-tree drm/ttm/sched modules" ;;
	"") check vendor-dkms warn "no amdgpu module for $KVER in /lib/modules: nothing to restore to" ;;
	*) check vendor-dkms ok "stock amdgpu is $stock_path" ;;
	esac
	cmdline=$(tr ' ' '\n' </proc/cmdline | grep -E '^amdgpu\.' | tr '\n' ' ' || true)
	if [ -n "$cmdline" ]; then
		check cmdline warn "kernel command line has $cmdline: modprobe applies them to the stock driver, insmod does not apply them to ours"
	fi
	check_reference_files
	check_trace
}

# --- matrix and parameters ---------------------------------------------------------
MATRIX_ROWS=()
load_matrix() {
	local out
	out=$(python3 "$PARAMS_PY" list "$MATRIX" --configs "$CONFIGS") || exit 2
	mapfile -t MATRIX_ROWS <<<"$out"
}

# validate_params [--strict]: check every parameter of the selected
# configurations. Without --strict (dry run) a parameter the source does not
# define is a warning; a real run refuses it (insmod would ignore it and the
# configuration would silently run stock).
PARAMS_SOURCE_DESC=
# params_series: the series the loaded driver carries (both define the same
# parameters): rocm-6.4 for the amdgpu-dkms stack, linux-6.12 otherwise,
# patches/ itself before the split.
params_series() {
	local c
	if [ "$STACK" = dkms ]; then c="rocm-6.4 linux-6.12"; else c="linux-6.12 rocm-6.4"; fi
	for c in $c; do [ -d "$ROOT/patches/$c" ] && { echo "$ROOT/patches/$c"; return; }; done
	echo "$ROOT/patches"
}
validate_params() {
	local args=(validate "$MATRIX" --configs "$CONFIGS" "$@") from=$PARAMS_FROM rc=0 out unknown
	if [ "$from" = auto ]; then
		if [ -f "$MODULE" ]; then from=modinfo; else from=series; fi
	fi
	case $from in
	modinfo)
		[ -f "$MODULE" ] || { check params fail "--params-from modinfo: no module at $MODULE"; return 1; }
		args+=(--modinfo "$MODULE" --series "$(params_series)")
		PARAMS_SOURCE_DESC="modinfo -p of the built module $MODULE ($(date -r "$MODULE" '+%F %T')), value rules from the series in $(params_series | sed "s|^$ROOT/||")" ;;
	series)
		args+=(--series "$(params_series)")
		PARAMS_SOURCE_DESC="the parameters the series in $(params_series | sed "s|^$ROOT/||") defines (no built module at $MODULE)" ;;
	esac
	step "parameters of ${#MATRIX_ROWS[@]} configurations"
	out=$(python3 "$PARAMS_PY" "${args[@]}") || rc=$?
	printf '%s\n' "$out" | sed 's/^/   /'
	unknown=$(printf '%s\n' "$out" | sed -n 's/^summary: .* \([0-9]*\) unknown.*/\1/p')
	case $rc in
	0)	if [ "${unknown:-0}" -gt 0 ]; then
			check params warn "$unknown parameter(s) not defined by $PARAMS_SOURCE_DESC: a real run refuses them"
		else
			check params ok "${#MATRIX_ROWS[@]} configurations, every parameter checked against $PARAMS_SOURCE_DESC"
		fi ;;
	1)	check params fail "a configuration has a value the parameter refuses, or a parameter $PARAMS_SOURCE_DESC does not define (see above)" ;;
	*)	check params fail "the parameter check could not run (see above)" ;;
	esac
	return "$rc"
}

# --- state and restore ------------------------------------------------------------------
STATE=$STATE_DIR/state
save_state() {
	mkdir -p "$STATE_DIR"
	{
		echo "stock_loaded_at_start=$1"
		echo "stack=$STACK"
		echo "module=$MODULE"
		echo "run_dir=$OUT"
		echo "pid=$$"
	} >"$STATE"
}

state_get() { [ -f "$STATE" ] || return 0; sed -n "s/^$1=//p" "$STATE" | head -n1; }

# Is the loaded amdgpu the module under test (not the stock one)?
ours_loaded() {
	amdgpu_loaded || return 1
	local ko=${1:-$MODULE} sv
	if [ -r "$MOD_SYSFS/srcversion" ] && [ -f "$ko" ]; then
		sv=$(modinfo -F srcversion "$ko" 2>/dev/null || true)
		[ -n "$sv" ] && { [ "$(cat "$MOD_SYSFS/srcversion")" = "$sv" ]; return; }
	fi
	[ -e "$MOD_SYSFS/parameters/kfd_mp" ] || [ -e "$KFD_DEBUGFS/mp_stats" ]
}

unload_amdgpu() {
	local i
	amdgpu_loaded || return 0
	for ((i = 1; i <= ${KFDMP_RMMOD_TRIES:-5}; i++)); do
		rmmod amdgpu 2>/dev/null && break
		[ "$i" = "${KFDMP_RMMOD_TRIES:-5}" ] || sleep $((i * 2))
	done
	! amdgpu_loaded || { echo "testbox: rmmod amdgpu failed: $(cat "$MOD_SYSFS/refcnt" 2>/dev/null) users" >&2; return 1; }
}

# unload_stack: amdgpu, then (amdgpu-dkms) its companions in dependency
# order: amdxcp amddrm_ttm_helper amddrm_buddy amd-sched amdttm amdkcl.
unload_stack() {
	local m
	unload_amdgpu || return 1
	[ "$STACK" = dkms ] || return 0
	for m in $(reversed_companions); do
		mod_loaded "$m" || continue
		if ! rmmod "$m" 2>/dev/null; then
			echo "testbox: rmmod $m failed (holders: $(find "$SYS_MODULE/${m//-/_}/holders" -mindepth 1 -maxdepth 1 -printf '%f ' 2>/dev/null))" >&2
			return 1
		fi
	done
}

# load_ours PARAM...: (amdgpu-dkms) the companions in load order, then our
# amdgpu with PARAMs. LOAD_FAILED names the module insmod refused.
LOAD_FAILED=
load_ours() {
	local m
	LOAD_FAILED=
	if [ "$STACK" = dkms ]; then
		for m in $DKMS_COMPANIONS; do
			echo "   + insmod ${STACK_KO[$m]}"
			insmod "${STACK_KO[$m]}" || { LOAD_FAILED=$m; return 1; }
		done
	fi
	echo "   + insmod $MODULE $*"
	insmod "$MODULE" "$@" || { LOAD_FAILED=amdgpu; return 1; }
}

RESTORING=0
# restore: put the stock driver back as it was at the start. Idempotent: it
# only acts on what the state file says this runner changed.
restore() {
	local detail=() st=ok stock ko i
	[ "$RESTORING" = 0 ] || return 0
	RESTORING=1
	if [ "$DRY" = 1 ] && [ "$PHASE" = host ]; then
		step "restore"
		echo "   [dry-run] phase 1: nothing to restore (no driver state is changed)"
		RESTORING=0
		return 0
	fi
	if [ "$DRY" = 1 ]; then
		step "restore"
		echo "   [dry-run] would: rmmod amdgpu$([ "$STACK" = dkms ] && echo " and its companions ($(reversed_companions | sed 's/ $//'))") if the module under test is loaded; modprobe amdgpu if the stock one was loaded at the start; check /dev/kfd"
		return 0
	fi
	if [ ! -f "$STATE" ]; then
		if [ -n "$OUT" ] && [ "$PHASE" = host ]; then
			printf 'status=ok\ndetail=phase 1 changed no driver state: nothing was unloaded, loaded or switched\n' >"$OUT/restore.env"
		elif [ -n "$OUT" ]; then
			printf 'status=ok\ndetail=nothing to restore (no state file %s)\n' "$STATE" >"$OUT/restore.env"
		fi
		RESTORING=0
		return 0
	fi
	step "restore the stock driver"
	stock=$(state_get stock_loaded_at_start)
	ko=$(state_get module)
	STACK=$(state_get stack)
	STACK=${STACK:-upstream}
	local pd
	pd=$(partition_restore try) || st=failed; [ -z "$pd" ] || detail+=("$pd")
	if ours_loaded "$ko"; then
		if unload_stack; then if [ "$STACK" = dkms ]; then detail+=("unloaded the modules under test"); else detail+=("unloaded the module under test"); fi
		else st=failed; detail+=("could not unload the module under test (in use?)"); fi
	elif [ "$STACK" = dkms ] && ! amdgpu_loaded; then
		# companions of ours left by a load that failed half-way
		if unload_stack; then detail+=("no amdgpu loaded; companions unloaded")
		else st=failed; detail+=("could not unload the companion modules"); fi
	fi
	if [ "$st" = ok ] && [ "$stock" = 1 ]; then
		if ! amdgpu_loaded; then
			if modprobe amdgpu; then detail+=("modprobe amdgpu")
			else st=failed; detail+=("modprobe amdgpu failed"); fi
		fi
		for ((i = 0; i < ${KFDMP_RESTORE_TIMEOUT:-60}; i++)); do [ -e "$KFD_DEV" ] && break; sleep 1; done
		local absent="" m
		if [ "$STACK" = dkms ]; then
			for m in $DKMS_COMPANIONS; do mod_loaded "$m" || absent="$absent $m"; done
		fi
		if ours_loaded "$ko"; then st=failed; detail+=("the loaded amdgpu is still the module under test (installed with DKMS?)")
		elif ! amdgpu_loaded; then st=failed; detail+=("amdgpu is not loaded")
		elif [ -n "$absent" ]; then st=failed; detail+=("stock amdgpu loaded without its companions:$absent")
		elif [ ! -e "$KFD_DEV" ]; then st=failed; detail+=("stock amdgpu loaded but no $KFD_DEV after ${KFDMP_RESTORE_TIMEOUT:-60} s")
		elif [ "$STACK" = dkms ]; then detail+=("stock amdgpu stack loaded (amdgpu and $(echo "$DKMS_COMPANIONS" | wc -w) companions), /dev/kfd present")
		else detail+=("stock amdgpu loaded, /dev/kfd present"); fi
	elif [ "$st" = ok ]; then
		detail+=("amdgpu was not loaded at the start; left unloaded")
	fi
	pd=$(partition_restore) || st=failed; [ -z "$pd" ] || detail+=("$pd")
	if [ -n "$OUT" ] && [ -d "$OUT" ]; then
		printf 'status=%s\ndetail=%s\n' "$st" "$(IFS=';'; echo "${detail[*]}")" >"$OUT/restore.env"
	fi
	if [ "$st" = ok ]; then
		rm -f "$STATE"
		echo "   restore: ok ($(IFS=';'; echo "${detail[*]}"))"
	else
		printf '\n!! RESTORE FAILED: %s\n!! The box is not back on its stock driver. By hand: rmmod amdgpu; modprobe amdgpu; or reboot.\n!! State kept in %s; %s tries again.\n' \
			"$(IFS=';'; echo "${detail[*]}")" "$STATE" "scripts/testbox.sh restore" >&2
	fi
	RESTORING=0
	[ "$st" = ok ]
}

# --- one configuration --------------------------------------------------------------
kernel_log_since() {
	# The kernel log from the last line holding the marker on.
	dmesg 2>/dev/null | awk -v m="$1" 'index($0, m) { n = 0; buf = "" } { lines[++n] = $0 } END { for (i = 1; i <= n; i++) print lines[i] }' || true
}

snapshot() {
	local src=$KFD_DEBUGFS/$1
	if [ -r "$src" ]; then cat "$src" >"$2" 2>/dev/null || echo "unreadable" >"$2"; else echo "absent" >"$2"; fi
}

QSAMPLER=
# start_queue_sampler FILE [GPU_ID]: every second, each KFD process's queue
# count; with GPU_ID (phase 1) only its queues on that GPU, and only the
# processes that have some (the other GPUs' services are not counted).
start_queue_sampler() {
	local file=$1 id=${2:-}
	(
		while :; do
			now=$(date +%s)
			for d in "$KFD_SYSFS"/proc/*/queues; do
				[ -d "$d" ] || continue
				pid=$(basename "$(dirname "$d")")
				if [ -n "$id" ]; then
					n=$(grep -lx "$id" "$d"/*/gpuid 2>/dev/null | wc -l)
					[ "$n" = 0 ] || printf '%s\t%s\t%s\n' "$now" "$pid" "$n"
				else
					printf '%s\t%s\t%s\n' "$now" "$pid" "$(find "$d" -mindepth 1 -maxdepth 1 -type d | wc -l)"
				fi
			done
			sleep 1
		done
	) >>"$file" 2>/dev/null &
	QSAMPLER=$!
}

stop_queue_sampler() {
	[ -z "$QSAMPLER" ] || { kill "$QSAMPLER" 2>/dev/null || true; wait "$QSAMPLER" 2>/dev/null || true; }
	QSAMPLER=
}

# kfdmp_cmd WORKLOAD OUT [RATE]: the harness command of one workload, NUL
# separated. WORKLOAD "tenant": the tenant mode at RATE (issue 18);
# "tenant-alone": the critical workload alone, closed loop, one process, the
# measurement the rate is picked from.
kfdmp_cmd() {
	local wl=$1 out=$2 rate=${3:-}
	local c=("$HARNESS_DIR/kfdmp")
	# an exec workload (--exec, --reference): kfdmp --exec CMD
	if [ -n "${EXEC_CMD[$wl]:-}" ]; then c+=(--exec "${EXEC_CMD[$wl]}"); else c+=(--workload "$wl"); fi
	c+=(--procs "$PROCS" --repeat "$REPEAT" --duration "$DURATION" --warmup "$WARMUP" --out "$out")
	case $wl in
	tenant)
		c=("$HARNESS_DIR/kfdmp")
		if [ -n "$CRITICAL" ]; then
			c+=(--exec-as "online=$CRITICAL" --exec-as "offline=$BEST_EFFORT" --critical online
				--mix "offline:$BEST_EFFORT_PROCS" --init-timeout 180)
		else
			c+=(--critical "$TENANT_CRITICAL" --mix "$TENANT_MIX")
		fi
		# RATE: busy:LIST (kfdmp measures the service time alone) or a rate
		if [[ $rate == busy:* ]]; then c+=(--critical-busy "${rate#busy:}"); else c+=(--rate "$rate"); fi
		c+=(--arms "$TENANT_ARMS" --repeat "$REPEAT" --duration "$DURATION" --warmup "$WARMUP" --out "$out") ;;
	tenant-alone) c=("$HARNESS_DIR/kfdmp" --workload "$TENANT_CRITICAL" --procs 1 --repeat 1
		--duration "$DURATION" --warmup "$WARMUP" --out "$out") ;;
	esac
	# The GPU under test: every process of the sweep on it (an arm's own
	# --devices, e.g. a partition arm's, comes later and wins).
	if [ -n "$DEVICES" ]; then c+=(--devices "$DEVICES")
	elif [ -n "$GPU" ]; then c+=(--devices "${WORKLOAD_GPU:-$GPU}"); fi
	# shellcheck disable=SC2206 # split on purpose: a list of options
	[ -z "$KFDMP_ARGS" ] || c+=($KFDMP_ARGS)
	# shellcheck disable=SC2206 # the arm's options (matrix.conf), after the run's
	[ -z "$ARM_KFDMP_ARGS" ] || c+=($ARM_KFDMP_ARGS)
	printf '%s\0' "${c[@]}"
}

# tenant_services: the tenant run's tenants (issue 26): the user's services
# CRITICAL and BEST_EFFORT (commands, e.g. "docker exec -i online python3
# serve.py"), or REFERENCE=gpt2's reference workloads, or the built-in ones.
tenant_services() {
	local ref=$ROOT/tests/harness/python/kfdmp_reference.py
	[ -z "$WORKLOAD_CMD" ] || die "WORKLOAD: not with --tenant: name the services CRITICAL=\"CMD\" BEST_EFFORT=\"CMD\""
	[ -z "$CONTAINER" ] || die "CONTAINER: not with --tenant: give CRITICAL=\"docker exec -i NAME ...\" BEST_EFFORT=\"docker exec -i NAME ...\""
	[[ $BEST_EFFORT_PROCS =~ ^[1-9][0-9]*$ ]] || die "BEST_EFFORT_PROCS: a positive number of processes (got '$BEST_EFFORT_PROCS')"
	[[ $TENANT_BUSY =~ ^0?\.[0-9]+(,0?\.[0-9]+)*$ ]] || die "TENANT_BUSY: busy fractions like 0.1,0.3 (got '$TENANT_BUSY')"
	if [ -n "$CRITICAL$BEST_EFFORT" ]; then
		if [ -z "$CRITICAL" ] || [ -z "$BEST_EFFORT" ]; then
			die "CRITICAL and BEST_EFFORT: both services, as commands (docs/exec-workers.md)"
		fi
		[ -z "$REFERENCE" ] || die "CRITICAL/BEST_EFFORT or REFERENCE: one or the other"
	elif [ -n "$REFERENCE" ]; then
		[ "$REFERENCE" = gpt2 ] || die "REFERENCE with --tenant: gpt2 (a batch-1 GPT-2 as the critical service beside batch-32 ones; got '$REFERENCE')"
		CRITICAL="python3 $ref --model gpt2 --batch 1 --seq 128"
		BEST_EFFORT="python3 $ref --model gpt2 --batch 32 --seq 256"
		REFERENCE=
	fi
}

# tenant_rate WDIR: the critical tenant's rate for this configuration, into
# WDIR/rate.env: TENANT_RATE when given; else busy:TENANT_BUSY, which kfdmp
# turns into rates itself (--critical-busy: it measures the critical
# tenant's mean service time alone, closed loop, then rate = busy / that;
# docs/tenant-control.md section 6). Sets RATE.
RATE='' RATE_WHY=''
tenant_rate() {
	local wdir=$1
	RATE='' RATE_WHY=''
	if [ -n "$TENANT_RATE" ]; then
		RATE=$TENANT_RATE
		printf 'rate=%s\nrate_from=given (TENANT_RATE/--tenant-rate)\n' "$RATE" >"$wdir/rate.env"
		echo "   tenant rate $RATE/s (given)"
		return 0
	fi
	RATE=busy:$TENANT_BUSY
	printf 'busy=%s\nrate_from=busy fraction alone (kfdmp --critical-busy: rate = busy / mean service time alone; per arm in results.json)\n' \
		"$TENANT_BUSY" >"$wdir/rate.env"
	echo "   tenant rates from busy fractions $TENANT_BUSY (kfdmp measures the service time alone first)"
}

TROUBLE_STOP='GPU reset|HWS hang|hws hang|ring .* timeout|Failed to evict|BUG:|Oops'
STOP_ALL=0

run_config() {
	local name=$1 params=$2 desc=$3 cdir=$OUT/configs/$1 marker wl wdir rc p i nodes m
	local -a kp argv
	read -r -a kp <<<"$params"
	step "configuration $name: ${params:-(defaults)} - $desc"
	mkdir -p "$cdir"
	printf 'name=%s\nparams=%s\ndescription=%s\n' "$name" "$params" "$desc" >"$cdir/config.env"
	if [ "$DRY" = 1 ] && [ "$PHASE" = host ]; then
		echo "   [dry-run] phase 1: no rmmod, modprobe or insmod; would read the loaded driver's $READBACK_PARAMS back from $MOD_SYSFS/parameters"
		partition_check "$cdir"
		echo "   [dry-run] would save $KFD_DEBUGFS/{mp_stats,hqds,rls} (where the loaded driver has them) to $cdir/*.before and sample the queues on GPU $GPU (gpu_id ${GPU_ID:-?}) of $KFD_SYSFS/proc/*/queues every second to $cdir/queues.tsv"
		for wl in $WORKLOADS; do
			mapfile -d '' -t argv < <(kfdmp_cmd "$wl" "$cdir/$wl" "${TENANT_RATE:-busy:$TENANT_BUSY}")
			if [ "$TRACE" = 1 ]; then would "$ROOT/scripts/trace.sh" record "$cdir/$wl/trace" -- "${argv[@]}"
			else would "${argv[@]}"; fi
		done
		[ "$CTEST" = 0 ] || would env ROCR_VISIBLE_DEVICES="$GPU" ctest --test-dir "$HARNESS_DIR" -L scaling --output-on-failure
		echo "   [dry-run] would save mp_stats/hqds/rls *.after, the kernel log since the marker, and $cdir/status"
		echo "dry-run" >"$cdir/status"
		return 0
	fi
	if [ "$DRY" = 1 ]; then
		would rmmod amdgpu
		if [ "$STACK" = dkms ]; then for m in $(reversed_companions); do would rmmod "$m"; done; fi
		would modprobe -a "${DEPENDS:-<the depends of amdgpu.ko>}"
		would sh -c "echo 'kfdmp-testbox: load $name ${params} run=$RUN_ID' >$KMSG"
		if [ "$STACK" = dkms ]; then for m in $DKMS_COMPANIONS; do would insmod "${STACK_KO[$m]:-<$m.ko of the build>}"; done; fi
		would insmod "$MODULE" "${kp[@]}"
		partition_apply "$cdir"
		echo "   [dry-run] would wait up to ${LOAD_TIMEOUT}s for /dev/kfd and a gfx9.4.x node; read back $READBACK_PARAMS from $MOD_SYSFS/parameters; require sched_policy=0, mes=0 and every requested value"
		would sh -c "echo 0 >$KFD_DEBUGFS/mp_stats"
		echo "   [dry-run] would save $KFD_DEBUGFS/{mp_stats,hqds,rls} to $cdir/*.before and sample $KFD_SYSFS/proc/*/queues every second to $cdir/queues.tsv"
		for wl in $WORKLOADS; do
			if [ "$wl" = tenant ] && [ -z "$TENANT_RATE" ]; then
				echo "   [dry-run] the critical rates from busy fractions $TENANT_BUSY: kfdmp measures the service time alone first"
			fi
			mapfile -d '' -t argv < <(kfdmp_cmd "$wl" "$cdir/$wl" "${TENANT_RATE:-busy:$TENANT_BUSY}")
			if [ "$TRACE" = 1 ]; then would "$ROOT/scripts/trace.sh" record "$cdir/$wl/trace" -- "${argv[@]}"
			else would "${argv[@]}"; fi
		done
		[ "$CTEST" = 0 ] || would ctest --test-dir "$HARNESS_DIR" -L scaling --output-on-failure
		echo "   [dry-run] would save mp_stats/hqds/rls *.after, the kernel log since the marker, and $cdir/status"
		echo "dry-run" >"$cdir/status"
		return 0
	fi

	if [ "$PHASE" = host ]; then
		# Phase 1: the driver already loaded; nothing is unloaded, loaded or
		# switched, and mp_stats (the whole driver's) is not reset.
		marker="kfdmp-testbox: arm $name on GPU $GPU run=$RUN_ID"
		echo "$marker" >"$KMSG" 2>/dev/null || true
		: >"$cdir/params.effective"
		for p in $READBACK_PARAMS; do
			[ -e "$MOD_SYSFS/parameters/$p" ] && printf '%s=%s\n' "$p" "$(param_value "$p")" >>"$cdir/params.effective"
		done
		if ! partition_check "$cdir"; then
			echo "skipped: $PART_WHY" >"$cdir/status"
			echo "   $name: $(cat "$cdir/status")"
			return 0
		fi
	else
		run_config_load || return 1
	fi
	for p in mp_stats hqds rls; do snapshot "$p" "$cdir/$p.before"; done
	: >"$cdir/queues.tsv"
	if [ "$PHASE" = host ]; then start_queue_sampler "$cdir/queues.tsv" "$GPU_ID"; else start_queue_sampler "$cdir/queues.tsv"; fi
	run_config_workloads
}

# run_config_load: phase 2 (and --phase all): the arm's driver: the stock
# stack out, ours in with the arm's parameters, read back, the partition.
# run_config's locals (name, params, cdir, kp, marker, ...) are in scope.
run_config_load() {
	marker="kfdmp-testbox: load $name ${params} run=$RUN_ID"
	if ! unload_stack; then
		echo "failed: could not unload amdgpu$([ "$STACK" = dkms ] && echo ' and its companions')" >"$cdir/status"; STOP_ALL=1; return 1
	fi
	# amdgpu's dependencies (drm helpers, ttm, gpu-sched, ...) from /lib/modules.
	# shellcheck disable=SC2086 # a list of module names
	modprobe -a $DEPENDS || true
	echo "$marker" >"$KMSG"
	if ! load_ours "${kp[@]}"; then
		kernel_log_since "$marker" >"$cdir/kernel.log"
		if [ "$LOAD_FAILED" = amdgpu ]; then
			echo "failed: insmod refused ${params:-the module}: $(grep -E 'invalid|unknown parameter|disagrees|Unknown symbol' "$cdir/kernel.log" | tail -n1)" >"$cdir/status"
		else
			echo "failed: insmod refused the companion module $LOAD_FAILED: $(grep -E 'disagrees|Unknown symbol|invalid' "$cdir/kernel.log" | tail -n1)" >"$cdir/status"
			STOP_ALL=1
		fi
		cat "$cdir/status"
		# what of ours got in goes out before the next configuration
		unload_stack || STOP_ALL=1
		return 1
	fi
	for i in $(seq "$LOAD_TIMEOUT"); do
		nodes=$(gfx94_nodes)
		[ -e "$KFD_DEV" ] && [ -n "$nodes" ] && break
		sleep 1
	done
	: >"$cdir/params.effective"
	for p in $READBACK_PARAMS; do
		[ -e "$MOD_SYSFS/parameters/$p" ] && printf '%s=%s\n' "$p" "$(param_value "$p")" >>"$cdir/params.effective"
	done
	local bad=
	[ -n "$nodes" ] || bad="no gfx9.4.x node after ${LOAD_TIMEOUT}s"
	[ "$(param_value sched_policy)" = 0 ] || bad="${bad:+$bad; }sched_policy=$(param_value sched_policy), not 0"
	[ "$(param_value mes)" = "" ] || [ "$(param_value mes)" = 0 ] || bad="${bad:+$bad; }mes=$(param_value mes), not 0"
	local mismatch why
	mismatch=$(param_mismatch "${kp[@]}" | awk 'NR > 1 { printf "; " } { printf "%s", $0 }')
	if [ -n "$mismatch" ]; then
		# the driver's own word on it (kfd_mp_param.c, kernel/params.c)
		why=$(kernel_log_since "$marker" | grep -E 'invalid value|unknown parameter' | sed 's/^\[[^]]*\] *//' | awk 'NR > 1 { printf "; " } { printf "%s", $0 }')
		bad="${bad:+$bad; }the driver did not take the arm's parameters, so the arm is not run: $mismatch${why:+ (kernel log: $why)}"
	fi
	if [ -n "$bad" ]; then
		kernel_log_since "$marker" >"$cdir/kernel.log"
		echo "failed: $bad" >"$cdir/status"; cat "$cdir/status"; return 1
	fi
	sed 's/^/   loaded: /' "$cdir/params.effective"
	partition_apply "$cdir" || { echo "failed: compute partition ${ARM_PART}: $PART_WHY" >"$cdir/status"; cat "$cdir/status"; return 1; }
	echo 0 >"$KFD_DEBUGFS/mp_stats" 2>/dev/null || echo "   note: could not reset $KFD_DEBUGFS/mp_stats (deltas are used anyway)"
}

# kfdmp_unavailable WDIR: the reason kfdmp gives in WDIR/results.json for
# a run it did not measure because the workload cannot take the arm's
# option (an exec worker's "unsupported" answer: status unavailable), or
# nothing.
kfdmp_unavailable() {
	[ -f "$1/results.json" ] || return 0
	python3 - "$1/results.json" <<'PY' || true
import json, sys
try:
    doc = json.load(open(sys.argv[1]))
except (OSError, ValueError):
    sys.exit(0)
def walk(x, depth):
    if depth > 5:
        return None
    if isinstance(x, dict):
        if x.get("status") in ("unavailable", "unsupported"):
            return str(x.get("reason") or x.get("why") or x.get("detail") or "the workload cannot take the arm's option")
        vals = list(x.values())
    elif isinstance(x, list):
        vals = x
    else:
        return None
    for v in vals:
        r = walk(v, depth + 1)
        if r:
            return r
    return None
r = walk(doc, 0)
if r:
    print(" ".join(r.split()))
PY
}

# run_config_workloads: the arm's workloads, then its evidence and status
# (run_config's locals are in scope).
run_config_workloads() {
	local st=ok why skipped='' nskip=0
	for wl in $WORKLOADS; do
		wdir=$cdir/$wl
		mkdir -p "$wdir/trace"
		if [ "$wl" = tenant ] && ! tenant_rate "$wdir"; then
			printf 'exit_code=\nnot_run=%s\n' "$RATE_WHY" >"$wdir/workload.env"
			st="failed: tenant mode not run: $RATE_WHY"
			echo "   $st"
			[ "$STOP_ALL" = 0 ] || break
			continue
		fi
		mapfile -d '' -t argv < <(kfdmp_cmd "$wl" "$wdir" "$RATE")
		rc=0
		if [ "$TRACE" = 1 ]; then
			echo "   + scripts/trace.sh record $wdir/trace -- $(q "${argv[@]}")"
			"$ROOT/scripts/trace.sh" record "$wdir/trace" -- "${argv[@]}" || rc=$?
			if grep -q '^status=unavailable' "$wdir/trace/trace.env" 2>/dev/null && ! grep -q '^trace_unavailable=' "$OUT/run.env"; then
				echo "trace_unavailable=$name/$wl: $(sed -n 's/^reason=//p' "$wdir/trace/trace.env")" >>"$OUT/run.env"
			fi
		else
			snapshot mp_stats "$wdir/trace/mp_stats.before"
			echo "   + $(q "${argv[@]}")"
			"${argv[@]}" || rc=$?
			snapshot mp_stats "$wdir/trace/mp_stats.after"
		fi
		echo "exit_code=$rc" >"$wdir/workload.env"
		[ "$rc" != 130 ] || { st="failed: kfdmp $wl exited $rc"; STOP_ALL=1; break; }
		# A workload that cannot take the arm's option: skipped with the
		# harness's reason, never counted as a stock run.
		why=''
		[ "$wl" = tenant ] || why=$(kfdmp_unavailable "$wdir")
		if [ -n "$why" ]; then
			echo "unavailable=$why" >>"$wdir/workload.env"
			skipped+="${skipped:+; }$wl: $why" nskip=$((nskip + 1))
			echo "   $name/$wl: skipped by the harness: $why"
		elif [ "$rc" != 0 ]; then
			st="failed: kfdmp $wl exited $rc"
		fi
		if kernel_log_since "$marker" | grep -Eq "$TROUBLE_STOP"; then
			st="failed: the kernel log reports a GPU reset or hang (see kernel.log); stopping the sweep"
			STOP_ALL=1
			break
		fi
	done
	if [ "$CTEST" = 1 ] && [ "$STOP_ALL" = 0 ]; then
		rc=0
		# Phase 1: the scaling tests see the GPU under test only (ROCr's filter).
		(cd "$HARNESS_DIR" && if [ "$PHASE" = host ]; then export ROCR_VISIBLE_DEVICES=$GPU; fi &&
			ctest -L scaling --output-on-failure) >"$cdir/ctest.log" 2>&1 || rc=$?  # not ctest --test-dir: CMake 3.20
		printf 'exit_code=%s\nsummary=%s\n' "$rc" "$(grep -E 'tests passed' "$cdir/ctest.log" | tail -n1)" >"$cdir/ctest.env"
	fi
	stop_queue_sampler
	for p in mp_stats hqds rls; do snapshot "$p" "$cdir/$p.after"; done
	kernel_log_since "$marker" >"$cdir/kernel.log"
	if [ "$st" = ok ] && [ -n "$skipped" ]; then
		if [ "$nskip" -ge "$(wc -w <<<"$WORKLOADS")" ]; then
			st="skipped: $skipped"
			echo "$st" >"$cdir/status"; echo "   $name: $st"
			return 0
		fi
		echo "partial=$skipped" >>"$cdir/config.env"
	fi
	echo "$st" >"$cdir/status"
	echo "   $name: $st"
	[ "$st" = ok ]
}

# --- the run ---------------------------------------------------------------------------
write_run_env() {
	local head series
	local t=$TREE
	[ "$STACK" != dkms ] || t=$VENDOR_TREE
	head=$(git -C "$t" rev-parse HEAD 2>/dev/null || echo unknown)
	series=$("$ROOT/scripts/tree.sh" series-id 2>/dev/null || echo unknown)
	{
		echo "synthetic=0"
		echo "run_id=$RUN_ID"
		echo "started_at=$STARTED"
		echo "host=$(hostname)"
		echo "kernel=$(uname -r)"
		echo "kver=$KVER"
		echo "stack=$STACK"
		echo "source=$([ "$PHASE" = host ] || echo "$SRC")"
		echo "tree=$([ "$PHASE" = host ] || echo "${SRC_MODIFIED:-$SRC}")"
		echo "tree_from=${TREE_FROM:-}"
		echo "tree_package=${TREE_PKG:-}"
		echo "tree_state=${TREE_STATE:-}${SRC_MODIFIED:+ (built from the pristine $SRC)}$([ "$TREE_STATE" = modified ] && [ "$ACCEPT_LOCAL_EDITS" = 1 ] && [ -z "$SRC_MODIFIED" ] && echo ' (local edits accepted)')"
		echo "tree_check=${TREE_HOW:-}"
		echo "tree_modified=${TREE_MODIFIED[*]:-}"
		echo "series_base=$SERIES_BASE"
		echo "series_id=$series"
		echo "tree_head=$head"
		if [ "$PHASE" = host ]; then
			echo "module=the amdgpu already loaded$( [ -r "$MOD_SYSFS/version" ] && echo " (version $(cat "$MOD_SYSFS/version"))") (phase 1: nothing built or loaded)"
			echo "module_vermagic=$(uname -r)"
		else
			echo "module=$MODULE"
			echo "module_vermagic=$(modinfo -F vermagic "$MODULE" 2>/dev/null || echo none)"
		fi
		echo "dry_run=$DRY"
		echo "procs=$PROCS"
		echo "repeat=$REPEAT"
		echo "duration=$DURATION"
		echo "warmup=$WARMUP"
		echo "trace=$([ "$TRACE" = 1 ] && echo on || echo off)"
		echo "matrix=${MATRIX#"$ROOT"/}"
		echo "configs=$(printf '%s\n' "${MATRIX_ROWS[@]}" | cut -f1 | tr '\n' ' ' | sed 's/ $//')"
		echo "workloads=$WORKLOADS"
		echo "phase=$PHASE"
		echo "gpu=${GPU:-}"
		echo "gpu_id=${GPU_ID:-}"
		echo "gpu_pci=${GPU_PCI:-}"
		echo "workload_gpu=${WORKLOAD_GPU:-${GPU:-}}"
		local w
		for w in $WORKLOADS; do
			[ -z "${EXEC_CMD[$w]:-}" ] || echo "exec_$w=${EXEC_CMD[$w]}"
		done
		echo "reference=${REFERENCE:-}"
		echo "container=${CONTAINER:-}"
		# the report prints note=: the phase, the GPU and what was measured
		echo "note=$(run_note)"
		if [ "$TENANT" = 1 ]; then
			echo "tenant=1"
			echo "tenant_critical=${CRITICAL:-$TENANT_CRITICAL}"
			echo "tenant_mix=$([ -n "$BEST_EFFORT" ] && echo "$BEST_EFFORT x $BEST_EFFORT_PROCS" || echo "$TENANT_MIX")"
			echo "tenant_arms=$TENANT_ARMS"
			echo "tenant_rate=${TENANT_RATE:-from busy fractions $TENANT_BUSY (kfdmp --critical-busy)}"
		fi
	} >"$OUT/run.env"
}

# run_note: one line for the report: the phase, the GPU under test, and
# the command of each exec workload.
run_note() {
	local w n=''
	case $PHASE in
	host) n="phase 1 (host arms, the driver already loaded, GPU ${GPU:-0}${GPU_ID:+ gpu_id $GPU_ID}${GPU_PCI:+ at $GPU_PCI} only; the other GPUs kept serving)" ;;
	driver) n="phase 2 (driver arms, each a load of the series' driver: the whole box)" ;;
	all) n="every arm a load of the series' driver (--phase all: the whole box)" ;;
	esac
	for w in $WORKLOADS; do
		[ -z "${EXEC_CMD[$w]:-}" ] || n+="; workload $w: kfdmp --exec '${EXEC_CMD[$w]}'"
	done
	printf '%s' "$n"
}

on_signal() {
	trap - INT TERM
	echo "testbox: interrupted; restoring the stock driver (what ran so far is in $OUT: scripts/testbox.sh report $OUT)" >&2
	stop_queue_sampler
	exit 130
}

# give_back_build: under sudo, what this run wrote in build/ (owned by root)
# goes back to the user who typed sudo, so that their next make modules can
# write there.
give_back_build() {
	[ "$(id -u)" = 0 ] && [ -n "${SUDO_UID:-}" ] && [ "$SUDO_UID" != 0 ] || return 0
	chown -R --from=0:0 "$SUDO_UID:${SUDO_GID:-$SUDO_UID}" "$BUILD" 2>/dev/null || true
}

on_exit() {
	local rc=$?
	stop_queue_sampler
	if [ "$DRY" = 0 ] && [ -f "$STATE" ]; then
		restore || rc=1
	fi
	give_back_build
	[ -z "${LOCK_FD:-}" ] || flock -u "$LOCK_FD" 2>/dev/null || true
	exit "$rc"
}

# sudo_line: how to run this as root, as the user typed it.
sudo_line() {
	if [ -n "${MAKELEVEL:-}" ]; then
		printf 'sudo make %s%s%s%s%s' "$([ "$TENANT" = 1 ] && echo testbox-tenant || echo testbox)" "${USER_KSRC:+ KSRC=$USER_KSRC}" \
			"$([ "$TENANT" = 1 ] && [ -n "$TENANT_RATE" ] && echo " TENANT_RATE=$TENANT_RATE")" "$MAKE_VARS_GIVEN" \
			"${TESTBOX_ARGS_GIVEN:+ TESTBOX_ARGS=\"$TESTBOX_ARGS_GIVEN\"}"
	else
		printf 'sudo %s' "$(q "$0" "${ORIG_ARGS[@]}" | sed 's/ $//')"
	fi
}

# preflight: before anything is built. A real run needs root (it loads
# modules), refused here rather than after a 10-minute build; then every
# tool of the box path (scripts/check-box.sh, read-only).
need_root() {
	if [ "$DRY" = 0 ] && [ "$(id -u)" != 0 ]; then
		if [ "$PHASE" = host ]; then
			die "a real run reads every process's GPU use (/proc, $KFD_SYSFS/proc) and traces, and needs root; nothing was built or changed. Run: $(sudo_line)"
		fi
		die "a real run loads and unloads kernel modules and needs root; nothing was built or changed. Run: $(sudo_line)"
	fi
}
preflight() {
	# sudo's secure_path drops ROCm's bin directory: find hipcc there.
	if ! command -v hipcc >/dev/null; then
		local d
		for d in ${ROCM_PATH:+"$ROCM_PATH/bin"} /opt/rocm/bin /opt/rocm-*/bin; do
			[ -x "$d/hipcc" ] || continue
			PATH=$PATH:$d
			echo "testbox: hipcc not on PATH (sudo's secure_path?); using $d/hipcc"
			break
		done
	fi
	[ "${KFDMP_PREFLIGHT_DONE:-0}" = 0 ] || return 0
	step "preflight (scripts/check-box.sh)"
	if ! KVER=$KVER KDIR=$KDIR "$ROOT/scripts/check-box.sh" "$([ "$PHASE" = host ] && echo host || echo testbox)" | sed 's/^/   /'; then
		if [ "$DRY" = 1 ]; then check preflight fail "a tool is missing or too old (above): a real run stops here"
		else die "the preflight failed (above): nothing was built or changed"; fi
	else
		check preflight ok "every required tool present (scripts/check-box.sh)"
	fi
}

# phase_banner: what this run does to the box, before it does anything.
phase_banner() {
	local n
	n=$(gpu_nodes | wc -l)
	if [ "$n" -gt 0 ]; then n="ALL $n GPU(s) of this box stop"; else n="EVERY GPU of this box stops"; fi
	case $PHASE in
	host) echo "testbox: phase 1 (the host arms): on the driver already loaded, on GPU $GPU only. Nothing is built, unloaded, loaded or switched; the other GPUs and their containers keep serving. The driver arms are phase 2 (PHASE=driver): they need the whole box." ;;
	driver) echo "testbox: phase 2 (the driver arms): every arm unloads amdgpu and loads the series' driver: $n until the stock driver is back, and every process using any GPU (in containers too) must be stopped first." ;;
	all) echo "testbox: every arm the driver way (--phase all): each unloads amdgpu and loads the series' driver: $n until the stock driver is back, and every process using any GPU (in containers too) must be stopped first." ;;
	esac
}

# arm_in_phase: does the current arm run in this run's phase? Phase 2
# runs the driver arms and the reference (baseline) arm, on the series'
# driver, so that every effect is against the same driver.
arm_in_phase() {
	case $PHASE in
	all) return 0 ;;
	host) [ "$ARM_PHASE" = host ] ;;
	driver) [ "$ARM_PHASE" = driver ] || [ "$ARM_HYP" = baseline ] ;;
	esac
}

# arm_skip_phase CDIR: an arm of the other phase: listed, with why.
arm_skip_phase() {
	local cdir=$1 why
	mkdir -p "$cdir"
	printf 'hypothesis=%s\npartition=%s\nkfdmp_args=%s\nphase=%s\nphase_why=%s\n' "$ARM_HYP" "${ARM_PART:--}" "$ARM_KFDMP_ARGS" \
		"$ARM_PHASE" "$ARM_PHASE_WHY" >"$cdir/arm.env"
	if [ "$ARM_PHASE" = driver ]; then
		why="phase 2 (driver arm: $ARM_PHASE_WHY); it needs the whole box: PHASE=driver (--driver-arms)"
	else
		why="phase 1 (host arm: no driver parameter): PHASE=host runs it on the driver already loaded"
	fi
	echo "skipped: $why" >"$cdir/status"
	echo "   $name: skipped: $why"
}

# reference_into_container: the reference workloads' script and helper
# into the container they run in.
reference_into_container() {
	local f
	[ -n "$CONTAINER" ] || return 0
	step "the reference workloads into container $CONTAINER ($CONTAINER_DIR)"
	if [ "$DRY" = 1 ]; then
		would docker exec "$CONTAINER" mkdir -p "$CONTAINER_DIR"
		would docker cp "$PYTHON_DIR/kfdmp_reference.py" "$CONTAINER:$CONTAINER_DIR/"
		would docker cp "$PYTHON_DIR/kfdmp_worker$([ -d "$PYTHON_DIR/kfdmp_worker" ] || echo .py)" "$CONTAINER:$CONTAINER_DIR/"
		return 0
	fi
	would docker exec "$CONTAINER" mkdir -p "$CONTAINER_DIR" || die "docker exec $CONTAINER mkdir -p $CONTAINER_DIR failed; nothing was measured"
	for f in kfdmp_reference.py kfdmp_worker; do
		[ -e "$PYTHON_DIR/$f" ] || f=$f.py
		would docker cp "$PYTHON_DIR/$f" "$CONTAINER:$CONTAINER_DIR/" || die "docker cp $PYTHON_DIR/$f $CONTAINER:$CONTAINER_DIR/ failed; nothing was measured"
	done
}

# build_driver: phase 2: the series' driver (or the module set given), its
# vermagic, and the parameters of the selected arms (cmd_run's locals:
# failed, rc, m).
build_driver() {
	step "build$([ "$STACK" = dkms ] && echo ": the amdgpu-dkms stack (amdgpu and its companions)")"
	if [ "$DO_BUILD" = 1 ] && [ "$STACK" = dkms ]; then
		# the other path of make modules: KSRC an amdgpu-dkms source
		if [ "$DRY" = 1 ]; then
			would make -C "$ROOT" modules KSRC="$SRC" KVER="$KVER" ${DC:+DC="$DC"}
		else
			local out ko
			out=$(KFDMP_PREFLIGHT_DONE=1 make -s -C "$ROOT" modules KSRC="$SRC" KVER="$KVER" SERIES="$USER_SERIES" ${DC:+DC="$DC"}) || die "make modules KSRC=$SRC failed (see above); nothing was loaded"
			printf '%s\n' "$out" | sed 's/^/   /'
			while read -r ko; do
				[ -f "$ko" ] && STACK_KO[$(basename "$ko" .ko)]=$ko
			done < <(grep -oE '[^[:space:]]+\.ko\b' <<<"$out")
			for m in amdgpu $DKMS_COMPANIONS; do
				[ -n "${STACK_KO[$m]:-}" ] || die "make modules KSRC=$SRC printed no $m.ko; nothing was loaded"
			done
			MODULE=${STACK_KO[amdgpu]}
		fi
	elif [ "$DO_BUILD" = 1 ]; then
		if [ "$DRY" = 1 ]; then
			would make -C "$ROOT" modules KVER="$KVER"
		else
			MODULE=$(KFDMP_PREFLIGHT_DONE=1 make -s -C "$ROOT" modules KVER="$KVER" SERIES="$USER_SERIES" | tail -n1) || die "make modules failed (see above); nothing was loaded"
			[ -f "$MODULE" ] || die "make modules did not print a module path"
		fi
	elif [ "$STACK" = dkms ]; then
		echo "   using the module set in $STACK_DIR (--stack): $(for m in $DKMS_COMPANIONS amdgpu; do printf '%s ' "${STACK_KO[$m]:-?}"; done)"
	else
		echo "   using $MODULE (--no-build/--module)"
	fi
	if [ -f "$MODULE" ]; then
		local vm
		DEPENDS=$(modinfo -F depends "$MODULE" | tr , ' ')
		if [ "$STACK" = dkms ]; then
			# the kernel's modules that ours need: the depends of all seven, less ours
			DEPENDS=$(for m in amdgpu $DKMS_COMPANIONS; do modinfo -F depends "${STACK_KO[$m]}"; done | tr , '\n' |
				grep -vxE "$(echo "amdgpu $DKMS_COMPANIONS" | sed 's/-/[-_]/g; s/ /|/g')" | grep . | sort -u | tr '\n' ' ' || true)
		fi
		vm=$(modinfo -F vermagic "$MODULE" | awk '{print $1}')
		if [ "$vm" = "$KVER" ]; then check module ok "$MODULE, vermagic $vm"
		elif [ "$DRY" = 1 ] && [ "$DO_BUILD" = 1 ]; then check module info "$MODULE exists with vermagic $vm; the run rebuilds it for $KVER"
		else check module fail "$MODULE has vermagic $vm, not $KVER"; fi
	else
		check module "$([ "$DRY" = 1 ] && echo info || echo fail)" "no module at $MODULE yet ($([ "$DO_BUILD" = 1 ] && echo 'make modules builds it' || echo 'give --module'))"
	fi
	if [ "$DRY" = 1 ]; then
		validate_params || failed=1
	else
		validate_params --strict || failed=1
	fi
}

cmd_run() {
	local row name params desc failed=0 rc m
	phase_banner
	need_root
	RUN_ID=$(date -u +%Y%m%dT%H%M%SZ)
	STARTED=$(date -u +%FT%TZ)
	if [ -z "$OUT" ]; then
		if [ "$DRY" = 1 ]; then OUT=$BUILD/testbox/dry-run; else OUT=$BUILD/testbox/$RUN_ID; fi
	fi
	# A dry run starts from an empty directory; it never deletes one it
	# did not make.
	if [ "$DRY" = 1 ] && [ -d "$OUT" ]; then
		if [ -f "$OUT/run.env" ] && grep -q '^dry_run=1$' "$OUT/run.env"; then rm -rf "$OUT"
		elif [ -n "$(ls -A "$OUT")" ]; then die "--out $OUT is not empty and not an earlier dry run"; fi
	fi
	mkdir -p "$OUT"
	OUT=$(cd "$OUT" && pwd)
	CHECKS_FILE=$OUT/box-checks.tsv
	: >"$CHECKS_FILE"
	echo "testbox: run $RUN_ID -> $OUT$([ "$DRY" = 1 ] && echo ' (dry run: nothing is built, loaded or measured)')"
	preflight
	load_matrix
	step "matrix ${MATRIX#"$ROOT"/}: ${#MATRIX_ROWS[@]} configurations"
	printf '   %s\n' "${MATRIX_ROWS[@]//$'\t'/ | }"

	check_box
	if [ "$DRY" = 0 ] && [ "$CHECK_FAILS" -gt 0 ]; then
		write_run_env
		echo "testbox: $CHECK_FAILS box check(s) failed; nothing was built or loaded" >&2
		exit 1
	fi
	if [ "$PHASE" = host ]; then
		step "build"
		echo "   phase 1: no driver is built or loaded (the arms run on the driver already loaded)"
	fi
	if [ "$PHASE" != host ] && [ "$STACK" = dkms ] && [ "$TREE_STATE" = modified ] && [ -z "$SRC_MODIFIED" ] && [ "$ACCEPT_LOCAL_EDITS" = 1 ]; then
		step "the series on the locally edited tree (scripts/port-series.sh)"
		local port=(scripts/port-series.sh --keep-going --force --work "$BUILD/port/testbox-$RUN_ID" --report "$OUT/port-report.txt" "$SRC")
		if [ "$DRY" = 1 ]; then would "${port[@]}"
		else
			rc=0
			(cd "$ROOT" && "${port[@]}") >"$OUT/port.log" 2>&1 || rc=$?
			check port "$([ "$rc" = 0 ] && echo ok || echo warn)" "$([ "$rc" = 0 ] && echo "every patch applies to the edited tree" || echo "conflicts with the local edits (exit $rc)"); $OUT/port-report.txt"
		fi
	fi
	[ "$PHASE" = host ] || build_driver
	step "harness"
	if [ "$BUILD_HARNESS" = 0 ]; then
		echo "   using the harness in $HARNESS_DIR (--harness-dir)"
		[ -x "$HARNESS_DIR/kfdmp" ] || check harness "$([ "$DRY" = 1 ] && echo info || echo fail)" "no kfdmp in $HARNESS_DIR"
	elif [ "$DRY" = 1 ]; then
		would cmake -S "$ROOT/tests/harness" -B "$HARNESS_DIR" -DKFDMP_GPU="${KFDMP_GPU:-auto}"
		would cmake --build "$HARNESS_DIR" -j"$JOBS"
	else
		if ! { cmake -S "$ROOT/tests/harness" -B "$HARNESS_DIR" -DKFDMP_GPU="${KFDMP_GPU:-auto}" &&
			cmake --build "$HARNESS_DIR" -j"$JOBS"; } >"$OUT/harness-build.log" 2>&1; then
			check harness fail "harness build failed (see $OUT/harness-build.log)"
		fi
		[ -x "$HARNESS_DIR/kfdmp-worker" ] || check harness fail "no kfdmp-worker in $HARNESS_DIR: the harness has no GPU backend (hipcc for gfx942 needs ROCm >= 6)"
	fi
	write_run_env

	if [ "$DRY" = 0 ]; then
		if [ "$CHECK_FAILS" -gt 0 ] || [ "$failed" = 1 ]; then
			echo "testbox: $CHECK_FAILS box check(s) failed; nothing was loaded" >&2
			exit 1
		fi
		mkdir -p "$(dirname "$STATE_DIR")"
		exec {LOCK_FD}>"$STATE_DIR.lock"
		flock -n "$LOCK_FD" || die "another testbox run holds $STATE_DIR.lock"
		if [ -f "$STATE" ] && [ "$PHASE" = host ]; then
			die "a previous phase-2 run left $STATE (the box may not be on its stock driver): sudo make testbox-restore first; phase 1 never unloads anything"
		fi
		if [ -f "$STATE" ]; then
			echo "testbox: a previous run left $STATE; restoring first"
			restore || die "restore of the previous run failed"
		fi
		trap on_exit EXIT
		trap on_signal INT TERM
		# Phase 1 changes no driver state: nothing to restore.
		[ "$PHASE" = host ] || save_state "$(amdgpu_loaded && ! ours_loaded && echo 1 || echo 0)"
	fi
	reference_into_container

	for row in "${MATRIX_ROWS[@]}"; do
		# Not `read`: a tab is IFS white space, and an empty field would vanish.
		arm_fields "$row"
		arm_in_phase || { arm_skip_phase "$OUT/configs/$name"; continue; }
		arm_begin "$OUT/configs/$name" || continue
		run_config "$name" "$params" "$desc" || failed=1
		[ "$STOP_ALL" = 0 ] || { echo "testbox: stopping the sweep after $name" >&2; break; }
	done

	restore || failed=1
	echo "finished_at=$(date -u +%FT%TZ)" >>"$OUT/run.env"
	step "report"
	if [ "$REPORT" = 0 ]; then
		echo "   skipped (--no-report); later: scripts/testbox.sh report $OUT"
	elif [ "$DRY" = 1 ]; then
		echo "   dry run: the run directory $OUT holds no measurement; reporting the recorded run ${SAMPLE#"$ROOT"/} instead"
		rc=0
		python3 "$REPORT_PY" "$SAMPLE" --out "$OUT/report-from-sample" --check || rc=$?
		[ "$rc" = 0 ] || { echo "testbox: the report generator failed on $SAMPLE" >&2; failed=1; }
	else
		python3 "$REPORT_PY" "$OUT" --check || failed=1
	fi
	give_back_build
	if [ "$DRY" = 1 ]; then
		echo
		echo "testbox: dry run done: $CHECK_FAILS box check(s) would refuse a real run on this machine; $OUT/box-checks.tsv"
	fi
	[ "$failed" = 0 ]
}

# --- DKMS -----------------------------------------------------------------------------------
# Two kinds of install, as detect_stack decides:
#   upstream  build/tree (drivers/gpu/drm/amd, kernel layout), the top-level
#             Kbuild and dkms.conf: amdgpu-kfdmp <series base>-kfdmp.<commit>
#   vendor    the patched amdgpu-dkms tree that make modules KSRC=... prepared
#             (VENDOR_TREE, default build/tree-rocm), whole, with its own
#             dkms.conf renamed: amdgpu-kfdmp <vendor version>-kfdmp, so the
#             stock amdgpu package stays registered beside it. Its modules
#             have the stock ones' names, so dkms install is forced, and
#             dkms-remove reinstalls the stock package's modules for KVER.
VENDOR_TREE=${VENDOR_TREE:-$BUILD/tree-rocm}
dkms_kind() {
	detect_stack
	if [ "$STACK" = dkms ]; then echo vendor; else echo upstream; fi
}

dkms_version() {
	local head ver
	detect_stack
	if [ "$STACK" = dkms ]; then
		git -C "$VENDOR_TREE" rev-parse -q --verify HEAD >/dev/null 2>&1 ||
			die "no patched amdgpu-dkms tree at $VENDOR_TREE (make modules KSRC=${SRC:-<amdgpu-dkms source>} prepares it)"
		ver=$(git -C "$VENDOR_TREE" show HEAD:dkms.conf 2>/dev/null | sed -n 's/^PACKAGE_VERSION=//p' | head -n1 | tr -d "\"'")
		[ -n "$ver" ] || die "$VENDOR_TREE has no PACKAGE_VERSION in its dkms.conf"
		echo "$ver-kfdmp"
		return
	fi
	head=$(git -C "$TREE" rev-parse --short=10 HEAD 2>/dev/null) || die "no prepared tree at $TREE (make tree)"
	echo "$SERIES_BASE-kfdmp.$head"
}

# stock_dkms: the stock amdgpu package DKMS installed for KVER, as NAME/VERSION.
stock_dkms() {
	command -v dkms >/dev/null || return 0
	# dkms 3: "amdgpu/VER, KVER, ARCH: installed"; dkms 2: "amdgpu, VER, KVER, ARCH: installed"
	dkms status 2>/dev/null | awk -v k="$KVER" -F', *' '
		/: installed/ && index($0, k) { n = $1; if (n !~ /\//) n = n "/" $2; if (n ~ /^amdgpu\//) { print n; exit } }'
}

cmd_dkms_stage() {
	local dir=$1 ver kind
	[ -n "$dir" ] || die "usage: $0 dkms-stage DIR"
	kind=$(dkms_kind)
	ver=$(dkms_version)
	if [ "$kind" = vendor ]; then
		[ -z "$(git -C "$VENDOR_TREE" status --porcelain --untracked-files=no)" ] ||
			note "warning: $VENDOR_TREE has uncommitted changes; staging HEAD without them"
		rm -rf "$dir"
		mkdir -p "$dir"
		git -C "$VENDOR_TREE" archive --format=tar HEAD | tar -x -C "$dir"
		sed -i -e "s/^PACKAGE_NAME=.*/PACKAGE_NAME=\"$DKMS_NAME\"/" \
			-e "s/^PACKAGE_VERSION=.*/PACKAGE_VERSION=\"$ver\"/" \
			-e "s/^AUTOINSTALL=.*/AUTOINSTALL=\"no\"/" "$dir/dkms.conf"
		grep -q '^AUTOINSTALL=' "$dir/dkms.conf" || echo 'AUTOINSTALL="no"' >>"$dir/dkms.conf"
		{
			echo "kind=vendor"
			echo "tree_head=$(git -C "$VENDOR_TREE" rev-parse HEAD)"
			echo "vendor_version=${ver%-kfdmp}"
			echo "series=$(git -C "$VENDOR_TREE" log --format='%h %s' "$BASE_TAG..HEAD" 2>/dev/null | tr '\n' ';')"
			echo "stock_dkms=$(stock_dkms)"
			echo "staged_at=$(date -u +%FT%TZ)"
		} >"$dir/kfdmp-stage.env"
		note "staged $DKMS_NAME $ver (the patched amdgpu-dkms tree, $(du -sh "$dir" | cut -f1)) in $dir"
		return
	fi
	git -C "$TREE" rev-parse --git-dir >/dev/null 2>&1 || die "no prepared tree at $TREE (make tree)"
	[ -z "$(git -C "$TREE" status --porcelain --untracked-files=no -- drivers/gpu/drm/amd)" ] ||
		note "warning: $TREE has uncommitted changes under drivers/gpu/drm/amd; staging HEAD without them"
	rm -rf "$dir"
	mkdir -p "$dir"
	git -C "$TREE" archive --format=tar HEAD drivers/gpu/drm/amd | tar -x -C "$dir"
	# The uapi headers the series changes (dkms.conf puts them first).
	uapi_overlay "$TREE" "$dir/kfdmp-include"
	cp "$ROOT/Kbuild" "$dir/Kbuild"
	sed -e "s/^PACKAGE_NAME=.*/PACKAGE_NAME=\"$DKMS_NAME\"/" \
		-e "s/^PACKAGE_VERSION=.*/PACKAGE_VERSION=\"$ver\"/" "$ROOT/dkms.conf" >"$dir/dkms.conf"
	{
		echo "kind=upstream"
		echo "tree_head=$(git -C "$TREE" rev-parse HEAD)"
		echo "series_base=$SERIES_BASE"
		echo "series=$(git -C "$TREE" log --format='%h %s' "$BASE_TAG..HEAD" | tr '\n' ';')"
		echo "staged_at=$(date -u +%FT%TZ)"
	} >"$dir/kfdmp-stage.env"
	note "staged $DKMS_NAME $ver in $dir ($(du -sh "$dir" | cut -f1))"
}

cmd_dkms_install() {
	local ver dst kind force=() stock
	kind=$(dkms_kind)
	ver=$(dkms_version)
	dst=/usr/src/$DKMS_NAME-$ver
	[ "$kind" = upstream ] || force=(--force)
	stock=$(stock_dkms)
	if [ "${DRY_RUN:-0}" = 1 ]; then
		DRY=1
		echo "dkms-install (DRY_RUN=1, $kind): would"
		if [ "$kind" = vendor ]; then
			echo "   stage $VENDOR_TREE HEAD (the patched amdgpu-dkms tree) in $dst, its dkms.conf renamed to $DKMS_NAME $ver (scripts/testbox.sh dkms-stage $dst)"
		else
			echo "   stage $TREE HEAD (drivers/gpu/drm/amd), Kbuild and dkms.conf in $dst (scripts/testbox.sh dkms-stage $dst)"
		fi
		would dkms add -m "$DKMS_NAME" -v "$ver"
		would dkms build -m "$DKMS_NAME" -v "$ver" -k "$KVER"
		would dkms install -m "$DKMS_NAME" -v "$ver" -k "$KVER" "${force[@]}"
		if [ "$kind" = vendor ]; then
			echo "   then: modprobe amdgpu loads $DKMS_NAME's seven modules; the stock package ${stock:-amdgpu (none installed for $KVER)} stays registered; make dkms-remove reinstalls its modules"
		else
			echo "   then: modprobe amdgpu loads $DKMS_NAME from /lib/modules/$KVER/updates/dkms; remove with make dkms-remove"
		fi
		return 0
	fi
	[ "$(id -u)" = 0 ] || die "dkms-install needs root"
	command -v dkms >/dev/null || die "dkms is missing (apt-get install dkms)"
	[ "$kind" = vendor ] || [[ $KVER == "$SERIES_MAJMIN".* ]] || die "KVER=$KVER is not a $SERIES_MAJMIN kernel (the upstream series; on an amdgpu-dkms box give KSRC=/usr/src/amdgpu-...)"
	if [ -e "$dst" ]; then
		[ "${FORCE:-0}" = 1 ] || die "$dst exists (FORCE=1 removes $DKMS_NAME/$ver from DKMS and stages again)"
		dkms remove -m "$DKMS_NAME" -v "$ver" --all || true
		rm -rf "$dst"
	fi
	cmd_dkms_stage "$dst"
	dkms add -m "$DKMS_NAME" -v "$ver"
	dkms build -m "$DKMS_NAME" -v "$ver" -k "$KVER"
	dkms install -m "$DKMS_NAME" -v "$ver" -k "$KVER" "${force[@]}"
	note "installed $DKMS_NAME $ver: the next modprobe amdgpu (and boot) loads the patched module$([ "$kind" = vendor ] && echo 's'); check: modinfo -n amdgpu; dkms status"
	note "if the initramfs holds amdgpu (lsinitramfs /boot/initrd.img-$KVER | grep amdgpu, or lsinitrd): update-initramfs -u -k $KVER, or dracut -f"
}

cmd_dkms_remove() {
	local ver dst stock=''
	ver=$(dkms_version)
	dst=/usr/src/$DKMS_NAME-$ver
	[ ! -f "$dst/kfdmp-stage.env" ] || stock=$(sed -n 's/^stock_dkms=//p' "$dst/kfdmp-stage.env")
	[ -n "$stock" ] || [ "$(dkms_kind)" = upstream ] || stock=$(stock_dkms)
	if [ "${DRY_RUN:-0}" = 1 ]; then
		DRY=1
		would dkms remove -m "$DKMS_NAME" -v "$ver" --all
		would rm -rf "$dst"
		[ -z "$stock" ] || would dkms install -m "${stock%%/*}" -v "${stock#*/}" -k "$KVER" --force
		return 0
	fi
	dkms remove -m "$DKMS_NAME" -v "$ver" --all
	rm -rf "$dst"
	if [ -n "$stock" ]; then
		# ours replaced the stock package's modules (same names): put them back
		dkms install -m "${stock%%/*}" -v "${stock#*/}" -k "$KVER" --force
		note "reinstalled the stock $stock for $KVER"
	fi
}

# --- main ----------------------------------------------------------------------------------------
case ${1:-} in
run|check|list|validate) CMD=$1; shift ;;
report) shift; [ $# -ge 1 ] || die "usage: $0 report RUN_DIR [OUT_DIR]"
	exec python3 "$REPORT_PY" "$1" ${2:+--out "$2"} --check ;;
restore) shift; parse_options "$@"; DRY=0; OUT=$(state_get run_dir); [ -d "$OUT" ] || OUT=
	restore; exit ;;
dkms-stage) shift; cmd_dkms_stage "${1:-}"; exit ;;
dkms-install) cmd_dkms_install; exit ;;
dkms-remove) cmd_dkms_remove; exit ;;
-h|--help|help) usage; exit 0 ;;
esac
ORIG_ARGS=("$@")
parse_options "$@"
case $CMD in
run) cmd_run ;;
check) check_box; [ "$CHECK_FAILS" = 0 ] ;;
list) load_matrix  # the matrix's fields, then the arm's phase (host|driver) and why
	for row in "${MATRIX_ROWS[@]}"; do arm_fields "$row"; printf '%s\t%s\t%s\n' "$row" "$ARM_PHASE" "$ARM_PHASE_WHY"; done ;;
validate) load_matrix; if [ "$DRY" = 1 ]; then validate_params; else validate_params --strict; fi ;;
esac
