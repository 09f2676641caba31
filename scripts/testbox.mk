# Test-box targets; the top-level Makefile includes this file:
#   include scripts/testbox.mk
#
#   make testbox          phase 1 (the default): the arms that change no
#                         driver parameter, on the driver already loaded, on
#                         GPU=N only (default 0); nothing is built, unloaded
#                         or loaded, the other GPUs keep serving. PHASE=driver:
#                         phase 2, build and load the series' driver for each
#                         driver arm (all GPUs stop), restore the stock driver.
#                         WORKLOAD="CMD": measure CMD (kfdmp --exec), e.g.
#                         WORKLOAD="docker exec -i svc python3 bench.py";
#                         REFERENCE=gpt2 [CONTAINER=svc]: the reference
#                         PyTorch workloads, inside the container;
#                         WORKLOAD_GPU=, REFERENCE_ARGS= (root, a gfx9.4.x
#                         GPU; see scripts/testbox.sh --help and
#                         docs/box-run.md)
#   make testbox-dry-run  the same walk without changing anything (any machine)
#   make testbox-tenant   the same run in tenant mode (issues 18, 26): the
#                         series' driver with stock parameters, then with
#                         kfd_short_dequeue_wait=on (PHASE=host: the driver
#                         already loaded, e.g. the stock one); per
#                         configuration kfdmp's tenant mode, arms none,
#                         priority, sched-drain, sched-kfd (TENANT_ARMS), under
#                         the trace; the report checks the tenant targets.
#                         Tenants: built-in, or CRITICAL="CMD" BEST_EFFORT="CMD"
#                         (BEST_EFFORT_PROCS=3; e.g. "docker exec -i online
#                         python3 serve.py"), or REFERENCE=gpt2. The critical
#                         rate from its busy fraction alone (TENANT_BUSY=
#                         0.1,0.3), or TENANT_RATE=R; = testbox.sh run --tenant
#   make dkms-install     stage the patched tree for DKMS under its own name,
#                         amdgpu-kfdmp, and dkms add/build/install: on an
#                         amdgpu-dkms box the patched vendor tree (version
#                         <vendor version>-kfdmp), else build/tree (DRY_RUN=1:
#                         print the steps)
#   make dkms-remove      dkms remove it again (and reinstall the stock
#                         amdgpu-dkms modules it replaced)
#   make port DEST=DIR    apply the series to another driver tree (PORT_ARGS:
#                         --layout dkms, --keep-going, --build, ...)
#
# TESTBOX_ARGS go to scripts/testbox.sh, e.g.
#   make testbox TESTBOX_ARGS="--configs stock,hwq1 --repeat 5" GPU=3
# PHASE, GPU, WORKLOAD, WORKLOAD_GPU, REFERENCE, REFERENCE_ARGS, CONTAINER and
# the tenant run's CRITICAL, BEST_EFFORT, BEST_EFFORT_PROCS, TENANT_BUSY and
# TENANT_ARMS reach scripts/testbox.sh through the environment (make exports
# variables given on its command line).
# KVER defaults to the running kernel for these targets (the module is
# loaded here); KSRC picks the amdgpu-dkms source (default: the newest
# /usr/src/amdgpu-*); DRY_RUN and FORCE are passed through the environment.
TESTBOX_ARGS ?=
TENANT_RATE ?=
PORT_ARGS ?=
TESTBOX_KVER = $(if $(KVER),$(KVER),$(shell uname -r))

.PHONY: testbox testbox-tenant testbox-dry-run testbox-restore dkms-install dkms-remove port

testbox:
	TESTBOX_ARGS_GIVEN='$(TESTBOX_ARGS)' KVER=$(TESTBOX_KVER) scripts/testbox.sh run $(TESTBOX_ARGS)

# A target of its own, like testbox-dry-run: the tenant run replaces the
# matrix and the workloads, so it is another run, not one more option.
testbox-tenant:
	TESTBOX_ARGS_GIVEN='$(TESTBOX_ARGS)' TENANT_RATE='$(TENANT_RATE)' KVER=$(TESTBOX_KVER) scripts/testbox.sh run --tenant $(TESTBOX_ARGS)

testbox-dry-run:
	KVER=$(TESTBOX_KVER) scripts/testbox.sh --dry-run $(TESTBOX_ARGS)

testbox-restore:
	scripts/testbox.sh restore

dkms-install:
	KVER=$(TESTBOX_KVER) DRY_RUN=$(DRY_RUN) FORCE=$(FORCE) scripts/testbox.sh dkms-install

dkms-remove:
	KVER=$(TESTBOX_KVER) DRY_RUN=$(DRY_RUN) scripts/testbox.sh dkms-remove

port:
	@test -n "$(DEST)" || { echo "usage: make port DEST=DIR [PORT_ARGS=...]" >&2; exit 2; }
	scripts/port-series.sh $(PORT_ARGS) $(DEST)
