// SPDX-License-Identifier: GPL-2.0
/*
 * tenant-probe - AMDKFD_IOC_TENANT_CTL on a node-less load.
 *
 * Runs in the qemu-smoke guest (scripts/qemu-smoke-init.sh, directive
 * `tenant CHECK` of tests/kernel/smoke.conf) as root with amdgpu loaded and
 * no GPU: /dev/kfd exists, the topology has only the CPU node, so every KFD
 * process (the probe's own, created by its open of /dev/kfd, and those of
 * `tenant-probe --hold`) has no process device. Built by
 * scripts/qemu-smoke.sh with `gcc -static` against the uapi header of the
 * tree under test (the 6.12 tree after the series, or the ROCm stack's), so
 * the number and layout come from the patch itself; the asserts below pin
 * them (docs/tenant-control.md, section 2).
 *
 * What each check expects (the uapi's contract, docs/tenant-control.md
 * section 3, and kfd_mp_tenant.c, the same file on both bases):
 *  - num_targets 0 with a valid op and flags returns 0, without privilege:
 *    the probe for the command. A driver without it answers ENOTTY
 *    (upstream's kfd_ioctl(): nr at or past AMDKFD_COMMAND_END) or EINVAL
 *    (ROCm's dispatcher), and every check then exits 3, "no tenant-control
 *    ioctl".
 *  - Errors of the call itself fill nothing: EINVAL for an unknown op or
 *    flag, FLAG_ALL_GPUS with a gpu_id, num_targets > 64; EPERM without
 *    CAP_SYS_ADMIN; EFAULT for unreadable pidfds or an unwritable status
 *    array.
 *  - Per target, in status[] (the call returns the first one): EBADF not a
 *    pidfd; ESRCH the target has exited (a zombie or reaped); ENOENT not a
 *    KFD process, or with FLAG_ALL_GPUS a KFD process without a GPU (every
 *    process here); EINVAL a gpu_id that is not one of the target's GPUs.
 *  - A suspension belongs to the /dev/kfd file that made it and is given
 *    back when the file is released; here nothing can be suspended, so the
 *    release of a controller's file has nothing to resume, and the driver
 *    answers as before afterwards.
 *  - trace_kfd_tenant_ctl() fires once per GPU of an applied SUSPEND/RESUME:
 *    never on a node-less load.
 *
 * Usage: tenant-probe CHECK | --list | --hold [SOCKET]. Prints one line
 * "ok: ..." (exit 0), or the failures (exit 1); "no tenant-control ioctl
 * ..." (exit 3) when the probe (num_targets 0) is refused as by a driver
 * without the command; usage errors exit 2. --hold opens /dev/kfd, prints
 * "held PID" and waits for a signal: a KFD process to name as a target
 * (kfdmp-sched's check; the checks below fork their own). With SOCKET it
 * is a critical tenant of kfdmp-sched too: it sends "busy" to that unix
 * datagram socket once the daemon has made it (trying for 10 s), then
 * prints "busy sent" and waits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/kfd_ioctl.h>

/* glibc < 2.31 lacks the number; it is 434 on every architecture (5.3+). */
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

typedef struct kfd_ioctl_tenant_ctl_args targs;

/* The ABI both bases must share (docs/tenant-control.md, section 2). */
_Static_assert(sizeof(targs) == 48, "struct kfd_ioctl_tenant_ctl_args is 48 bytes");
_Static_assert(offsetof(targs, pidfds_ptr) == 0 && offsetof(targs, status_ptr) == 8 &&
	       offsetof(targs, state_ptr) == 16 && offsetof(targs, wait_ns) == 24 &&
	       offsetof(targs, op) == 32 && offsetof(targs, flags) == 36 &&
	       offsetof(targs, gpu_id) == 40 && offsetof(targs, num_targets) == 44,
	       "field offsets");
_Static_assert(_IOC_NR(AMDKFD_IOC_TENANT_CTL) == 0x29, "command number 0x29");
_Static_assert(_IOC_NR(AMDKFD_IOC_TENANT_CTL) < AMDKFD_COMMAND_END, "inside the core range");
_Static_assert(_IOC_TYPE(AMDKFD_IOC_TENANT_CTL) == 'K', "ioctl type 'K'");
_Static_assert(_IOC_DIR(AMDKFD_IOC_TENANT_CTL) == (_IOC_READ | _IOC_WRITE), "IOWR");
_Static_assert(_IOC_SIZE(AMDKFD_IOC_TENANT_CTL) == 48, "size in the command word");
_Static_assert(KFD_IOC_TENANT_OP_SUSPEND == 1 && KFD_IOC_TENANT_OP_RESUME == 2 &&
	       KFD_IOC_TENANT_OP_GET_STATE == 3, "ops");
_Static_assert(KFD_IOC_TENANT_FLAG_ALL_GPUS == 1 && KFD_IOC_TENANT_MAX_TARGETS == 64,
	       "flags, limits");
_Static_assert(KFD_IOC_TENANT_STATE_SUSPENDED == 1 && KFD_IOC_TENANT_STATE_OWNED == 2 &&
	       KFD_IOC_TENANT_STATE_EVICTED == 4 && KFD_IOC_TENANT_STATE_HAS_QUEUES == 8 &&
	       KFD_IOC_TENANT_STATE_RESET == 16, "states");
#if defined(KFD_IOC_TENANT_MAGIC) || defined(KFD_IOC_TENANT_OP_QUERY) || \
	defined(KFD_IOC_TENANT_OP_SET_CLASS) || defined(AMDKFD_COMMAND_START_MP)
#error "the header still has the private range, QUERY, SET_CLASS or the magic"
#endif

#define NOBODY 65534
#define TRACEFS "/sys/kernel/tracing"
#define EVENT TRACEFS "/events/amdkfd/kfd_tenant_ctl/enable"
#define MARKER "tenant-probe: start"
#define UNTOUCHED 0x55555555 /* a status entry the kernel did not write */

static const uint32_t ops[] = { KFD_IOC_TENANT_OP_SUSPEND, KFD_IOC_TENANT_OP_RESUME,
				KFD_IOC_TENANT_OP_GET_STATE };
static const char *const op_names[] = { "SUSPEND", "RESUME", "GET_STATE" };
#define NOPS 3

static int kfd = -1;
static int nfail;
static int ncalls;
static char failures[4096];
static int self_fd = -1;	/* pidfd of the probe itself */

static void failf(const char *fmt, ...)
{
	size_t len = strlen(failures);
	va_list ap;

	nfail++;
	if (len + 2 >= sizeof(failures))
		return;
	if (len)
		failures[len++] = ';', failures[len++] = ' ';
	va_start(ap, fmt);
	vsnprintf(failures + len, sizeof(failures) - len, fmt, ap);
	va_end(ap);
}

static void die(const char *fmt, ...)
{
	va_list ap;

	printf("FAIL: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	exit(1);
}

static const char *ename(int e)
{
	static char buf[4][16];
	static int n;

	switch (e) {
	case 0: return "0";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case ESRCH: return "ESRCH";
	case EBADF: return "EBADF";
	case EFAULT: return "EFAULT";
	case EBUSY: return "EBUSY";
	case EINVAL: return "EINVAL";
	case ENOTTY: return "ENOTTY";
	case EACCES: return "EACCES";
	case EINTR: return "EINTR";
	case ETIME: return "ETIME";
	case EIO: return "EIO";
	case ENOMEM: return "ENOMEM";
	}
	n = (n + 1) % 4;
	snprintf(buf[n], sizeof(buf[n]), "errno %d", e);
	return buf[n];
}

/* A status entry as text: "-ENOENT", "0", "untouched". */
static const char *sname(int32_t v)
{
	static char buf[4][24];
	static int n;

	if (v == UNTOUCHED)
		return "untouched";
	if (v >= 0) {
		n = (n + 1) % 4;
		snprintf(buf[n], sizeof(buf[n]), "%d", v);
		return buf[n];
	}
	n = (n + 1) % 4;
	snprintf(buf[n], sizeof(buf[n]), "-%s", ename(-v));
	return buf[n];
}

static int pidfd_open(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

/* The ioctl; returns 0 or the errno. */
static int tctl(targs *a)
{
	ncalls++;
	return ioctl(kfd, AMDKFD_IOC_TENANT_CTL, a) ? errno : 0;
}

static targs mk(uint32_t op, uint32_t flags, const int32_t *fds, uint32_t n, int32_t *status)
{
	targs a;

	memset(&a, 0, sizeof(a));
	a.op = op;
	a.flags = flags;
	a.pidfds_ptr = (uintptr_t)fds;
	a.num_targets = n;
	a.status_ptr = (uintptr_t)status;
	return a;
}

static void fill(int32_t *status, unsigned int n)
{
	while (n--)
		status[n] = UNTOUCHED;
}

/* Expect errno `want` (0: success) of the call. */
static int expect(const char *what, targs *a, int want)
{
	int got = tctl(a);

	if (got != want)
		failf("%s: %s, expected %s", what, ename(got), ename(want));
	return got;
}

/* A call-level error: `want`, and no status entry written. */
static void expect_call_error(const char *what, targs a, unsigned int n, int want)
{
	int32_t status[KFD_IOC_TENANT_MAX_TARGETS + 2];
	unsigned int i;

	fill(status, KFD_IOC_TENANT_MAX_TARGETS + 2);
	if (a.num_targets)
		a.status_ptr = (uintptr_t)status;
	expect(what, &a, want);
	for (i = 0; i < n && i < KFD_IOC_TENANT_MAX_TARGETS + 2; i++)
		if (status[i] != UNTOUCHED) {
			failf("%s: %s wrote status[%u] = %s", what, ename(want), i, sname(status[i]));
			break;
		}
}

/* Per-target errors: the call returns the first, status holds each. */
static void expect_targets(const char *what, uint32_t op, uint32_t flags, uint32_t gpu_id,
			   const int32_t *fds, unsigned int n, const int32_t *want)
{
	int32_t status[8];
	int first = 0, got;
	unsigned int i;
	targs a;

	fill(status, 8);
	for (i = 0; i < n; i++)
		if (want[i] && !first)
			first = -want[i];
	a = mk(op, flags, fds, n, status);
	a.gpu_id = gpu_id;
	got = tctl(&a);
	if (got != first)
		failf("%s: %s, expected %s", what, ename(got), ename(first));
	for (i = 0; i < n; i++)
		if (status[i] != want[i])
			failf("%s: status[%u] %s, expected %s", what, i, sname(status[i]),
			      sname(want[i]));
}

static void open_kfd(void)
{
	kfd = open("/dev/kfd", O_RDWR | O_CLOEXEC);
	if (kfd < 0)
		die("open /dev/kfd: %s", strerror(errno));
}

/* The probe: num_targets 0. Exits 3 when the driver has no such command. */
static void probe_or_exit(const char *who)
{
	targs a = mk(KFD_IOC_TENANT_OP_SUSPEND, KFD_IOC_TENANT_FLAG_ALL_GPUS, NULL, 0, NULL);
	int e = tctl(&a);

	if (e == ENOTTY || e == EINVAL) {
		printf("no tenant-control ioctl: probe (nr 0x%02x, num_targets 0) %s %s (%s)\n",
		       (unsigned int)_IOC_NR(AMDKFD_IOC_TENANT_CTL), who, ename(e),
		       e == ENOTTY ? "upstream's answer to an unknown command"
				   : "ROCm's answer to an unknown command");
		exit(3);
	}
	if (e)
		die("probe (num_targets 0) %s: %s", who, ename(e));
}

static unsigned long long cap_eff(void)
{
	unsigned long long v = ~0ULL;
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return v;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &v) == 1)
			break;
	fclose(f);
	return v;
}

/* Give up every capability: all uids nonzero, no SECBIT_KEEP_CAPS. The fd
 * stays usable: kfd_ioctl() only checks that the same process calls. */
static void drop_privilege(void)
{
	if (setresgid(NOBODY, NOBODY, NOBODY) || setresuid(NOBODY, NOBODY, NOBODY))
		die("setresuid(%d): %s", NOBODY, strerror(errno));
	if (cap_eff() != 0)
		die("CapEff %llx after setresuid(%d), expected 0", cap_eff(), NOBODY);
}

/* A child that opened /dev/kfd (a KFD process without a GPU here) and
 * waits; its pidfd in *fd. */
static pid_t hold_child(int *fd)
{
	int p[2];
	char c;
	pid_t pid;

	if (pipe(p))
		die("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (!pid) {
		int k = open("/dev/kfd", O_RDWR | O_CLOEXEC);

		c = k < 0 ? 'e' : 'k';
		if (write(p[1], &c, 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	if (read(p[0], &c, 1) != 1 || c != 'k')
		die("the holding child could not open /dev/kfd");
	close(p[0]);
	*fd = pidfd_open(pid);
	if (*fd < 0)
		die("pidfd_open(%d): %s", (int)pid, strerror(errno));
	return pid;
}

static void end_child(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* num_targets 0 with each valid op and flags: 0, as root and without any
 * capability; with an invalid op or flag it is no probe: EINVAL. */
static void check_probe(void)
{
	char what[96];
	unsigned int i, f;
	targs a;

	for (f = 0; f < 2; f++) {
		for (i = 0; i < NOPS; i++) {
			a = mk(ops[i], f, NULL, 0, NULL);
			snprintf(what, sizeof(what), "%s num_targets 0 flags %u as root", op_names[i], f);
			expect(what, &a, 0);
		}
	}
	a = mk(0, 0, NULL, 0, NULL);
	expect("op 0 num_targets 0", &a, EINVAL);
	a = mk(4, 0, NULL, 0, NULL);
	expect("op 4 num_targets 0", &a, EINVAL);
	a = mk(KFD_IOC_TENANT_OP_SUSPEND, 2, NULL, 0, NULL);
	expect("SUSPEND flags 2 num_targets 0", &a, EINVAL);
	drop_privilege();
	probe_or_exit("as uid 65534 with CapEff 0");
	for (i = 0; i < NOPS; i++) {
		a = mk(ops[i], KFD_IOC_TENANT_FLAG_ALL_GPUS, NULL, 0, NULL);
		snprintf(what, sizeof(what), "%s num_targets 0 as uid 65534", op_names[i]);
		expect(what, &a, 0);
	}
}

/* A target needs CAP_SYS_ADMIN: EPERM, nothing written. */
static void check_unprivileged(void)
{
	int32_t fds[1] = { self_fd };
	char what[96];
	unsigned int i;

	drop_privilege();
	for (i = 0; i < NOPS; i++) {
		snprintf(what, sizeof(what), "%s own pidfd as uid 65534", op_names[i]);
		expect_call_error(what, mk(ops[i], KFD_IOC_TENANT_FLAG_ALL_GPUS, fds, 1, NULL), 1,
				  EPERM);
	}
}

/* Bad arguments from a privileged caller: EINVAL, nothing written. */
static void check_einval(void)
{
	int32_t fds[KFD_IOC_TENANT_MAX_TARGETS + 1];
	targs a;
	unsigned int i;

	for (i = 0; i < KFD_IOC_TENANT_MAX_TARGETS + 1; i++)
		fds[i] = self_fd;
	expect_call_error("op 0", mk(0, KFD_IOC_TENANT_FLAG_ALL_GPUS, fds, 1, NULL), 1, EINVAL);
	expect_call_error("op 4", mk(4, KFD_IOC_TENANT_FLAG_ALL_GPUS, fds, 1, NULL), 1, EINVAL);
	expect_call_error("op 0xffffffff", mk(0xffffffffu, 0, fds, 1, NULL), 1, EINVAL);
	expect_call_error("SUSPEND flags 2", mk(KFD_IOC_TENANT_OP_SUSPEND, 2, fds, 1, NULL), 1, EINVAL);
	expect_call_error("GET_STATE flags 0x80000001",
			  mk(KFD_IOC_TENANT_OP_GET_STATE, 0x80000001u, fds, 1, NULL), 1, EINVAL);
	a = mk(KFD_IOC_TENANT_OP_SUSPEND, KFD_IOC_TENANT_FLAG_ALL_GPUS, fds, 1, NULL);
	a.gpu_id = 1;
	expect_call_error("SUSPEND ALL_GPUS with gpu_id 1", a, 1, EINVAL);
	expect_call_error("SUSPEND num_targets 65",
			  mk(KFD_IOC_TENANT_OP_SUSPEND, KFD_IOC_TENANT_FLAG_ALL_GPUS, fds, 65, NULL),
			  65, EINVAL);
	expect_call_error("RESUME num_targets 0xffffffff",
			  mk(KFD_IOC_TENANT_OP_RESUME, KFD_IOC_TENANT_FLAG_ALL_GPUS, fds, 0xffffffffu,
			     NULL), 65, EINVAL);
}

/* Not a pidfd: EBADF for that target. */
static void check_ebadf(void)
{
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC), closed, pipefd[2];
	int32_t fds[4], want[4] = { -EBADF, -EBADF, -EBADF, -EBADF };
	char what[64];
	unsigned int i;

	if (null < 0 || pipe(pipefd))
		die("open /dev/null or pipe: %s", strerror(errno));
	closed = pipefd[0];
	close(closed);
	fds[0] = -1;
	fds[1] = null;		/* a file, not a pidfd */
	fds[2] = kfd;		/* the caller's own /dev/kfd file */
	fds[3] = closed;	/* no file at all */
	for (i = 0; i < NOPS; i++) {
		snprintf(what, sizeof(what), "%s non-pidfds", op_names[i]);
		expect_targets(what, ops[i], KFD_IOC_TENANT_FLAG_ALL_GPUS, 0, fds, 4, want);
	}
	close(null);
	close(pipefd[1]);
}

/* A target that has exited: ESRCH, a zombie as a reaped one, RESUME too. */
static void check_esrch(void)
{
	int32_t fds[2], want[2] = { -ESRCH, -ESRCH };
	char what[64];
	pid_t zombie, reaped;
	unsigned int i;

	zombie = fork();
	if (!zombie)
		_exit(0);
	reaped = fork();
	if (!reaped)
		_exit(0);
	if (zombie < 0 || reaped < 0)
		die("fork: %s", strerror(errno));
	fds[0] = pidfd_open(zombie);
	fds[1] = pidfd_open(reaped);
	if (fds[0] < 0 || fds[1] < 0)
		die("pidfd_open: %s", strerror(errno));
	/* the zombie exits and stays unreaped; the other is reaped */
	if (waitid(P_PID, zombie, NULL, WEXITED | WNOWAIT) || waitpid(reaped, NULL, 0) != reaped)
		die("wait: %s", strerror(errno));
	for (i = 0; i < NOPS; i++) {
		snprintf(what, sizeof(what), "%s {zombie, reaped}", op_names[i]);
		expect_targets(what, ops[i], KFD_IOC_TENANT_FLAG_ALL_GPUS, 0, fds, 2, want);
	}
	waitpid(zombie, NULL, 0);
}

/* No GPU: a KFD process (the probe itself, a holding child) is ENOENT with
 * FLAG_ALL_GPUS and EINVAL with a gpu_id; pid 1 never opened /dev/kfd:
 * ENOENT either way. */
static void check_enoent(void)
{
	int32_t fds[3], all[3] = { -ENOENT, -ENOENT, -ENOENT },
			one[3] = { -EINVAL, -EINVAL, -ENOENT };
	char what[80];
	pid_t held = hold_child(&fds[1]);
	unsigned int i;

	fds[0] = self_fd;
	fds[2] = pidfd_open(1);
	if (fds[2] < 0)
		die("pidfd_open(1): %s", strerror(errno));
	for (i = 0; i < NOPS; i++) {
		snprintf(what, sizeof(what), "%s {self, KFD child, pid 1} ALL_GPUS", op_names[i]);
		expect_targets(what, ops[i], KFD_IOC_TENANT_FLAG_ALL_GPUS, 0, fds, 3, all);
		snprintf(what, sizeof(what), "%s {self, KFD child, pid 1} gpu_id 0x1234", op_names[i]);
		expect_targets(what, ops[i], 0, 0x1234, fds, 3, one);
	}
	end_child(held);
	close(fds[1]);
	close(fds[2]);
}

/* Unreadable pidfds, an unwritable status array: EFAULT. */
static void check_efault(void)
{
	int32_t *ro, fds[1] = { self_fd };
	targs a;

	ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ro == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	a = mk(KFD_IOC_TENANT_OP_SUSPEND, KFD_IOC_TENANT_FLAG_ALL_GPUS, NULL, 1, NULL);
	a.pidfds_ptr = 8;
	expect_call_error("SUSPEND pidfds_ptr 8", a, 1, EFAULT);
	a = mk(KFD_IOC_TENANT_OP_GET_STATE, KFD_IOC_TENANT_FLAG_ALL_GPUS, NULL, 1, NULL);
	a.pidfds_ptr = 8;
	expect_call_error("GET_STATE pidfds_ptr 8", a, 1, EFAULT);
	/* own pidfd: without the fault this would be ENOENT */
	a = mk(KFD_IOC_TENANT_OP_SUSPEND, KFD_IOC_TENANT_FLAG_ALL_GPUS, fds, 1, ro);
	expect("SUSPEND status_ptr read-only", &a, EFAULT);
	munmap(ro, 4096);
}

/* GET_STATE of the probe itself and a holding child: the whole answer
 * (errno, status, state, wait_ns). */
struct snap {
	int err;
	int32_t status[2];
	uint32_t state[2];
	unsigned long long wait_ns;
};

static struct snap get_state(const int32_t *fds)
{
	struct snap s;
	targs a;

	fill(s.status, 2);
	s.state[0] = s.state[1] = 0xdead;
	a = mk(KFD_IOC_TENANT_OP_GET_STATE, KFD_IOC_TENANT_FLAG_ALL_GPUS, fds, 2, s.status);
	a.state_ptr = (uintptr_t)s.state;
	a.wait_ns = 7;
	s.err = tctl(&a);
	s.wait_ns = a.wait_ns;
	return s;
}

/* Field by field: the struct has padding before wait_ns. */
static int same(const struct snap *a, const struct snap *b)
{
	return a->err == b->err && a->status[0] == b->status[0] && a->status[1] == b->status[1] &&
	       a->state[0] == b->state[0] && a->state[1] == b->state[1] && a->wait_ns == b->wait_ns;
}

static void refused_calls(const int32_t *fds)
{
	int32_t st[2];
	unsigned int i;
	targs a;

	for (i = 0; i < 2; i++) {
		a = mk(i ? KFD_IOC_TENANT_OP_RESUME : KFD_IOC_TENANT_OP_SUSPEND,
		       KFD_IOC_TENANT_FLAG_ALL_GPUS, fds, 2, st);
		tctl(&a);
		a.flags = 0;
		a.gpu_id = 0x1234;
		tctl(&a);
		a.flags = 2;
		tctl(&a);
	}
}

/* Refused calls change nothing that GET_STATE reports. On a node-less load
 * GET_STATE itself answers ENOENT per target (no process device), so what
 * is compared is that whole answer: a weak check. */
static void check_unchanged(void)
{
	int32_t fds[2];
	pid_t held = hold_child(&fds[1]);
	struct snap before, after;

	fds[0] = self_fd;
	before = get_state(fds);
	refused_calls(fds);
	after = get_state(fds);
	if (before.err != ENOENT || before.status[0] != -ENOENT || before.status[1] != -ENOENT)
		failf("GET_STATE {self, KFD child} before: %s status {%s, %s}, expected ENOENT and {-ENOENT, -ENOENT}",
		      ename(before.err), sname(before.status[0]), sname(before.status[1]));
	if (!same(&before, &after))
		failf("GET_STATE {self, KFD child} changed across the refused calls: %s {%s, %s} state {0x%x, 0x%x} -> %s {%s, %s} state {0x%x, 0x%x}",
		      ename(before.err), sname(before.status[0]), sname(before.status[1]),
		      before.state[0], before.state[1], ename(after.err), sname(after.status[0]),
		      sname(after.status[1]), after.state[0], after.state[1]);
	end_child(held);
	close(fds[1]);
}

/* A controller (a child with its own /dev/kfd file) calls SUSPEND on a KFD
 * process and is killed; the release of its file has nothing to resume.
 * Afterwards the driver answers as before, within 10 s (nothing left
 * locked), and the target's GET_STATE is unchanged. */
static void check_release(void)
{
	int32_t fds[2], st[2];
	pid_t held = hold_child(&fds[1]), ctl;
	struct snap before, after;
	int ws = 0, p[2];
	char c = 0;

	fds[0] = self_fd;
	before = get_state(fds);
	if (pipe(p))
		die("pipe: %s", strerror(errno));
	ctl = fork();
	if (ctl < 0)
		die("fork: %s", strerror(errno));
	if (!ctl) {
		int k = open("/dev/kfd", O_RDWR | O_CLOEXEC);
		targs a = mk(KFD_IOC_TENANT_OP_SUSPEND, KFD_IOC_TENANT_FLAG_ALL_GPUS, fds, 2, st);

		c = k < 0 ? 'o' : ioctl(k, AMDKFD_IOC_TENANT_CTL, &a) == 0 ? '0' :
			errno == ENOENT ? 'n' : 'e';
		if (write(p[1], &c, 1) != 1)
			_exit(1);
		for (;;)
			pause();	/* killed: its files are released by exit */
	}
	close(p[1]);
	if (read(p[0], &c, 1) != 1)
		c = '?';
	close(p[0]);
	kill(ctl, SIGKILL);
	if (waitpid(ctl, &ws, 0) != ctl || !WIFSIGNALED(ws))
		failf("the controller child did not end by SIGKILL");
	if (c != 'n')
		failf("the controller's SUSPEND {self, KFD child}: %s, expected ENOENT",
		      c == 'o' ? "open /dev/kfd failed" : c == '0' ? "0" : "another error");
	alarm(10);
	probe_or_exit("after the controller's file was released");
	after = get_state(fds);
	alarm(0);
	if (!same(&before, &after))
		failf("GET_STATE {self, KFD child} changed across the controller's release: %s {%s, %s} -> %s {%s, %s}",
		      ename(before.err), sname(before.status[0]), sname(before.status[1]),
		      ename(after.err), sname(after.status[0]), sname(after.status[1]));
	end_child(held);
	close(fds[1]);
}

static int write_file(const char *path, const char *s, int flags)
{
	int fd = open(path, O_WRONLY | flags), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, s, strlen(s)) == (ssize_t)strlen(s);
	close(fd);
	return ok ? 0 : -1;
}

/* amdkfd:kfd_tenant_ctl is emitted per GPU of an applied SUSPEND/RESUME:
 * none of the calls a node-less load allows. */
static void check_trace(void)
{
	char buf[65536];
	ssize_t n, len = 0;
	int fd;

	if (access(EVENT, W_OK))
		die("%s: %s (amdkfd trace events not available)", EVENT, strerror(errno));
	if (write_file(TRACEFS "/trace", "", O_TRUNC) || write_file(EVENT, "1", 0) ||
	    write_file(TRACEFS "/tracing_on", "1", 0) ||
	    write_file(TRACEFS "/trace_marker", MARKER, 0))
		die("enabling %s: %s", EVENT, strerror(errno));
	check_enoent();
	check_esrch();
	check_release();
	write_file(EVENT, "0", 0);
	fd = open(TRACEFS "/trace", O_RDONLY);
	if (fd < 0)
		die("%s/trace: %s", TRACEFS, strerror(errno));
	while (len < (ssize_t)sizeof(buf) - 1 && (n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += n;
	close(fd);
	buf[len] = 0;
	/* the buffer records and is read back: the marker is there */
	if (!strstr(buf, MARKER))
		failf("the trace_marker line '%s' is not in %s/trace", MARKER, TRACEFS);
	if (strstr(buf, "kfd_tenant_ctl:")) {
		char *l = strstr(buf, "kfd_tenant_ctl:"), *e = strchr(l, '\n');

		if (e)
			*e = 0;
		failf("amdkfd:kfd_tenant_ctl emitted, though no call reached a GPU: %s", l);
	}
}

static const struct {
	const char *name;
	void (*fn)(void);
	const char *what;
} checks[] = {
	{ "probe", check_probe, "num_targets 0 with each op and flags 0/ALL_GPUS returns 0, as root and as uid 65534 (CapEff 0); bad op/flags: EINVAL" },
	{ "unprivileged", check_unprivileged, "SUSPEND, RESUME, GET_STATE of a target without CAP_SYS_ADMIN: EPERM, status not written" },
	{ "einval", check_einval, "op 0/4/0xffffffff, flags 2/0x80000001, ALL_GPUS with a gpu_id, num_targets 65/0xffffffff: EINVAL, status not written" },
	{ "ebadf", check_ebadf, "-1, /dev/null, the /dev/kfd fd, a closed fd as targets: EBADF each" },
	{ "esrch", check_esrch, "the pidfd of a zombie and of a reaped child: ESRCH each, RESUME too" },
	{ "enoent", check_enoent, "self, a KFD child, pid 1, no GPU: ENOENT with ALL_GPUS; EINVAL, EINVAL, ENOENT with a gpu_id" },
	{ "efault", check_efault, "unreadable pidfds_ptr, read-only status_ptr: EFAULT" },
	{ "unchanged", check_unchanged, "GET_STATE of self and a KFD child identical before and after refused calls" },
	{ "release", check_release, "a controller killed after its SUSPEND: its file's release resumes nothing, the driver answers as before" },
	{ "trace", check_trace, "no amdkfd:kfd_tenant_ctl event for calls that reach no GPU (the trace_marker line read back)" },
};

/* "busy" to kfdmp-sched's socket, as a critical tenant's client does. */
static void send_busy(const char *path)
{
	struct sockaddr_un a;
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0), i;

	memset(&a, 0, sizeof(a));
	a.sun_family = AF_UNIX;
	if (fd < 0 || strlen(path) >= sizeof(a.sun_path)) {
		printf("FAIL: socket %s: %s\n", path, fd < 0 ? strerror(errno) : "path too long");
		return;
	}
	strcpy(a.sun_path, path);
	for (i = 0; i < 100; i++) {
		if (sendto(fd, "busy", 4, 0, (struct sockaddr *)&a, sizeof(a)) == 4) {
			printf("busy sent\n");
			fflush(stdout);
			close(fd);
			return;
		}
		usleep(100000);
	}
	printf("FAIL: sendto %s: %s\n", path, strerror(errno));
	fflush(stdout);
	close(fd);
}

static void on_alarm(int sig)
{
	(void)sig;
	printf("FAIL: no answer within 10 s\n");
	fflush(stdout);
	_exit(1);
}

int main(int argc, char **argv)
{
	unsigned int i;

	if (argc == 2 && !strcmp(argv[1], "--list")) {
		for (i = 0; i < sizeof(checks) / sizeof(checks[0]); i++)
			printf("%s\t%s\n", checks[i].name, checks[i].what);
		return 0;
	}
	if ((argc == 2 || argc == 3) && !strcmp(argv[1], "--hold")) {
		open_kfd();
		printf("held %d\n", (int)getpid());
		fflush(stdout);
		if (argc == 3)
			send_busy(argv[2]);
		for (;;)
			pause();
	}
	for (i = 0; argc == 2 && i < sizeof(checks) / sizeof(checks[0]); i++)
		if (!strcmp(argv[1], checks[i].name))
			break;
	if (argc != 2 || i == sizeof(checks) / sizeof(checks[0])) {
		fprintf(stderr, "usage: tenant-probe CHECK | --list | --hold [SOCKET] (--list names the checks)\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGALRM, on_alarm);
	open_kfd();
	self_fd = pidfd_open(getpid());
	if (self_fd < 0)
		die("pidfd_open(self): %s", strerror(errno));
	probe_or_exit("as root");
	checks[i].fn();
	if (nfail) {
		printf("FAIL: %d of %d calls: %s\n", nfail, ncalls, failures);
		return 1;
	}
	printf("ok: %s (%d calls, pid %d)\n", checks[i].what, ncalls, (int)getpid());
	return 0;
}
