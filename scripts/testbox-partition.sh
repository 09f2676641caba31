# shellcheck shell=bash
# shellcheck disable=SC2034 # name/params/desc are cmd_run's, set here for it
# Compute-partition arms of the test-box hypothesis matrix (issue 17), sourced
# by scripts/testbox.sh. Not a program of its own.
#
# What it does, for an arm whose matrix line asks for a partition mode
# (SPX/DPX/QPX/CPX):
#   - reads the GPU's supported and current compute and memory partition
#     modes from sysfs (<pci device>/{available,current}_{compute,memory}_partition);
#     without them it saves `amd-smi partition` output when amd-smi exists
#     and the arm is skipped with the reason (nothing is switched blind);
#   - switches only when no process uses KFD (/sys/class/kfd/kfd/proc/* empty)
#     and the mode is in the supported list;
#   - waits for the mode to read back and for the KFD GPU nodes to come back
#     (one node per partition of this GPU), up to KFDMP_PART_TIMEOUT s (120);
#   - writes CONFIG_DIR/partition.env (compute, memory, status, detail,
#     nodes): the report records the mode of every result;
#   - saves the original mode in $STATE_DIR/partition before the first switch;
#     partition_restore (called by restore(): at the end, on failure and on
#     Ctrl-C, and by `testbox.sh restore` after a crash) switches it back.
# The GPU under test is the first PCI device with current_compute_partition
# (KFDMP_GPU_SYSFS overrides: the device directory). HIP numbers the
# partitions of one GPU consecutively, so the arms map process i to
# partition i with kfdmp --devices 0,1[,2,3] (matrix.conf).

PART_TIMEOUT=${KFDMP_PART_TIMEOUT:-120}
PART_STATE=$STATE_DIR/partition
ARM_HYP='' ARM_PART='' ARM_KFDMP_ARGS='' ARM_PHASE='' ARM_PHASE_WHY=''

# arm_fields ROW: name, params, desc (globals of cmd_run) and the arm's
# hypothesis, partition and kfdmp options from one `kfdmp_params.py list`
# row (tab separated; fields may be empty, so no `read`).
arm_fields() {
	local r=$1
	name=${r%%$'\t'*} r=${r#*$'\t'}
	params=${r%%$'\t'*} r=${r#*$'\t'}
	desc=${r%%$'\t'*} r=${r#*$'\t'}
	ARM_HYP=${r%%$'\t'*} r=${r#*$'\t'}
	ARM_PART=${r%%$'\t'*} ARM_KFDMP_ARGS=${r#*$'\t'}
	[ "$ARM_PART" != - ] || ARM_PART=
	arm_phase
}

# arm_phase: which phase of the box run the arm belongs to (the rule;
# docs/box-run.md "Phases"). ARM_PHASE=driver, with ARM_PHASE_WHY, when the
# arm loads amdgpu with parameters (the series' switches, the dequeue-wait
# backport), or switches the compute partition: on ROCm 6.4's driver
# (amdgpu-dkms 6.12.12) amdgpu_gfx_set_compute_partition() ->
# aqua_vanjaram_switch_partition_mode() -> kgd2kfd_check_and_lock_kfd()
# refuses with EBUSY while any process on any GPU of the box has KFD open
# (kfd_processes_table is global), locks KFD for every GPU while it runs
# (kfd_create_process() fails), and re-initialises the device's KFD nodes;
# so a switch is never "this GPU alone". Otherwise ARM_PHASE=host: the arm
# runs on the driver already loaded, on the GPU under test only.
arm_phase() {
	ARM_PHASE=host ARM_PHASE_WHY=
	if [ -n "$params" ] && [ "$params" != - ]; then
		ARM_PHASE=driver ARM_PHASE_WHY="it loads amdgpu with $params"
	else
		case $ARM_PART in
		DPX | QPX | CPX) ARM_PHASE=driver
			ARM_PHASE_WHY="it switches the compute partition to $ARM_PART: the driver refuses the switch while any process on any GPU of the box uses KFD and locks KFD for every GPU while it switches" ;;
		esac
	fi
}

part_dev() {
	local f
	if [ -n "${KFDMP_GPU_SYSFS:-}" ]; then echo "$KFDMP_GPU_SYSFS"; return; fi
	# the GPU under test (--gpu) when the topology named its PCI device
	if [ -n "${GPU_PCI_DIR:-}" ] && [ -r "$GPU_PCI_DIR/current_compute_partition" ]; then echo "$GPU_PCI_DIR"; return; fi
	for f in /sys/bus/pci/devices/*/current_compute_partition; do
		[ -r "$f" ] && { dirname "$f"; return; }
	done
}
part_get() { local d; d=$(part_dev); [ -n "$d" ] && tr -d ' \n' <"$d/$1" 2>/dev/null; }
part_count() { case $1 in DPX) echo 2 ;; QPX | CPX) echo 4 ;; *) echo 1 ;; esac; }
kfd_processes() { find "$KFD_SYSFS/proc" -mindepth 1 -maxdepth 1 -printf '%f ' 2>/dev/null; }
kfd_gpu_nodes() { gfx94_nodes | wc -l; }

# arm_begin CDIR: before the arm's load. Writes arm.env; an optional
# parameter (?NAME=VALUE) the module lacks skips the arm (status "skipped: ...",
# return 1); otherwise sets params to the arm's parameters without the "?".
arm_begin() {
	local cdir=$1 p out=() have
	mkdir -p "$cdir"
	printf 'hypothesis=%s\npartition=%s\nkfdmp_args=%s\nphase=%s\nphase_why=%s\n' "$ARM_HYP" "${ARM_PART:--}" "$ARM_KFDMP_ARGS" \
		"$ARM_PHASE" "$ARM_PHASE_WHY" >"$cdir/arm.env"
	for p in $params; do
		case $p in
		\?*)
			p=${p#\?}
			have=$(modinfo -p "$MODULE" 2>/dev/null | cut -d: -f1)
			if [ "$DRY" = 1 ]; then
				echo "   [dry-run] $name: ${p%%=*} is optional: a real run skips this arm when modinfo -p $MODULE does not list it"
			elif ! printf '%s\n' "$have" | grep -qx "${p%%=*}"; then
				echo "skipped: the module $MODULE has no parameter ${p%%=*} (the arm's change is not in this build)" >"$cdir/status"
				echo "   $name: $(cat "$cdir/status")"
				return 1
			fi ;;
		esac
		out+=("$p")
	done
	params="${out[*]}"
}

# partition_apply CDIR: after the arm's module is loaded, before its
# workloads. Returns 1 (status written by the caller) when the mode cannot
# be had.
PART_WHY=
partition_apply() {
	local cdir=$1 want=$ARM_PART dev cur avail mem i n0 n1
	PART_WHY=
	[ -n "$want" ] || return 0
	if [ "$DRY" = 1 ]; then
		dev=$(part_dev || true)
		echo "   [dry-run] would read ${dev:-<PCI sysfs directory of the GPU: none on this machine>}/{available,current}_{compute,memory}_partition; if the mode is not $want: require no KFD user, save the original to $PART_STATE, write $want to current_compute_partition, wait up to ${PART_TIMEOUT}s for it to read back and for $(part_count "$want") KFD node(s) of this GPU; record $cdir/partition.env"
		printf 'compute=%s\nmemory=\nstatus=dry-run\n' "$want" >"$cdir/partition.env"
		return 0
	fi
	dev=$(part_dev)
	if [ -z "$dev" ] || [ ! -r "$dev/current_compute_partition" ]; then
		PART_WHY="no current_compute_partition in sysfs"
		if command -v amd-smi >/dev/null; then
			amd-smi partition >"$cdir/amd-smi-partition.txt" 2>&1 || true
			PART_WHY="$PART_WHY (amd-smi partition saved to amd-smi-partition.txt; not switched blind)"
		fi
		printf 'compute=\nmemory=\nstatus=failed\ndetail=%s\n' "$PART_WHY" >"$cdir/partition.env"
		return 1
	fi
	cur=$(part_get current_compute_partition) avail=$(part_get available_compute_partition)
	mem=$(part_get current_memory_partition)
	if [ "$cur" != "$want" ]; then
		if ! printf '%s\n' "${avail//,/$'\n'}" | grep -qx "$want"; then
			PART_WHY="$want is not supported (available: ${avail:-none listed}; memory $mem)"
		elif [ -n "$(kfd_processes)" ]; then
			PART_WHY="KFD in use by pid(s) $(kfd_processes)- a partition switch needs no KFD user"
		fi
		if [ -z "$PART_WHY" ]; then
			[ -f "$PART_STATE" ] || { mkdir -p "$STATE_DIR"; printf 'compute=%s\nmemory=%s\ndevice=%s\n' "$cur" "$mem" "$dev" >"$PART_STATE"; }
			n0=$(kfd_gpu_nodes)
			echo "   + echo $want >$dev/current_compute_partition   (was $cur; $n0 gfx9.4 KFD node(s))"
			echo "$want" >"$dev/current_compute_partition" 2>/dev/null || PART_WHY="the driver refused $want (write failed)"
			n1=$((n0 - $(part_count "$cur") + $(part_count "$want")))
			for ((i = 0; i < PART_TIMEOUT * 2; i++)); do
				[ -z "$PART_WHY" ] || break
				[ "$(part_get current_compute_partition)" = "$want" ] && [ "$(kfd_gpu_nodes)" = "$n1" ] && break
				sleep 0.5
			done
			if [ -z "$PART_WHY" ] && [ "$(part_get current_compute_partition)" != "$want" ]; then
				PART_WHY="the mode reads $(part_get current_compute_partition) after ${PART_TIMEOUT}s, asked $want (refused?)"
			elif [ -z "$PART_WHY" ] && [ "$(kfd_gpu_nodes)" != "$n1" ]; then
				PART_WHY="$(kfd_gpu_nodes) gfx9.4 KFD node(s) after ${PART_TIMEOUT}s, expected $n1"
			fi
		fi
	fi
	cur=$(part_get current_compute_partition) mem=$(part_get current_memory_partition)
	printf 'compute=%s\nmemory=%s\navailable=%s\nnodes=%s\nstatus=%s\ndetail=%s\n' "$cur" "$mem" "$avail" \
		"$(kfd_gpu_nodes)" "$([ -z "$PART_WHY" ] && echo ok || echo failed)" "$PART_WHY" >"$cdir/partition.env"
	[ -z "$PART_WHY" ] || return 1
	echo "   partition: $cur (memory $mem), $(kfd_gpu_nodes) gfx9.4 KFD node(s)"
}

# partition_check CDIR: phase 1 (host arms, the driver already loaded):
# nothing is switched. The arm's mode (SPX, or none) must be the mode the
# GPU under test is in; otherwise the arm is skipped with the reason
# (PART_WHY; a switch is a phase-2 step). Records partition.env.
partition_check() {
	local cdir=$1 want=$ARM_PART dev cur mem avail
	PART_WHY=
	dev=$(part_dev || true)
	if [ "$DRY" = 1 ]; then
		echo "   [dry-run] would read ${dev:-<the PCI sysfs directory of GPU $GPU>}/current_compute_partition (no write: phase 1 never switches)${want:+; skip the arm unless it reads $want}"
		printf 'compute=%s\nmemory=\nstatus=dry-run\n' "${want:-}" >"$cdir/partition.env"
		return 0
	fi
	cur='' mem='' avail=''
	if [ -n "$dev" ] && [ -r "$dev/current_compute_partition" ]; then
		cur=$(tr -d ' \n' <"$dev/current_compute_partition") mem=$(tr -d ' \n' <"$dev/current_memory_partition" 2>/dev/null || true)
		avail=$(tr -d ' \n' <"$dev/available_compute_partition" 2>/dev/null || true)
	fi
	if [ -n "$want" ] && [ -z "$cur" ]; then
		# No partition attribute: a GPU without partitions runs whole (SPX).
		[ "$want" = SPX ] || PART_WHY="GPU $GPU has no current_compute_partition in sysfs; $want needs a switch (phase 2)"
	elif [ -n "$want" ] && [ "$cur" != "$want" ]; then
		PART_WHY="GPU $GPU is in $cur, the arm needs $want: a switch is a phase-2 step (PHASE=driver)"
	fi
	printf 'compute=%s\nmemory=%s\navailable=%s\nnodes=%s\nstatus=%s\ndetail=%s\n' "${cur:-${want:-}}" "$mem" "$avail" \
		"$(kfd_gpu_nodes)" "$([ -z "$PART_WHY" ] && echo ok || echo skipped)" "${PART_WHY:-read only (phase 1): ${cur:-no partition attribute}}" >"$cdir/partition.env"
	[ -z "$PART_WHY" ]
}

# partition_restore [try]: called by restore(): back to the mode saved before
# the first switch; prints one line for restore.env's detail, returns 1 on
# failure. No-op when nothing was switched. "try" (before the module under
# test is unloaded) leaves it to the call after the stock driver is back when
# the attribute is not there.
partition_restore() {
	local orig dev i now
	[ -f "$PART_STATE" ] || return 0
	orig=$(sed -n 's/^compute=//p' "$PART_STATE")
	dev=$(sed -n 's/^device=//p' "$PART_STATE")
	if [ ! -r "$dev/current_compute_partition" ]; then
		[ "${1:-}" != try ] || return 0
		echo "compute partition: cannot read $dev/current_compute_partition to put $orig back (no amdgpu loaded?)"
		return 1
	fi
	now=$(tr -d ' \n' <"$dev/current_compute_partition")
	if [ "$now" = "$orig" ]; then
		rm -f "$PART_STATE"
		echo "compute partition is $orig as at the start"
		return 0
	fi
	if [ -n "$(kfd_processes)" ]; then
		echo "compute partition: KFD in use by pid(s) $(kfd_processes)- $orig not restored"
		return 1
	fi
	echo "$orig" >"$dev/current_compute_partition" 2>/dev/null || true
	for ((i = 0; i < PART_TIMEOUT * 2; i++)); do
		now=$(tr -d ' \n' <"$dev/current_compute_partition")
		[ "$now" = "$orig" ] && break
		sleep 0.5
	done
	if [ "$now" != "$orig" ]; then
		echo "compute partition: still $now, could not restore $orig"
		return 1
	fi
	rm -f "$PART_STATE"
	echo "compute partition restored to $orig"
}
