// SPDX-License-Identifier: GPL-2.0
/*
 * tenant-probe - AMDKFD_IOC_TENANT_CTL (patch 0026) on a node-less load.
 *
 * Runs in the qemu-smoke guest (scripts/qemu-smoke-init.sh, directive
 * `tenant CHECK` of tests/kernel/smoke.conf) as root with amdgpu loaded and
 * no GPU: /dev/kfd exists, the topology has only the CPU node, so the
 * probe's own KFD process (created by its open of /dev/kfd) has no process
 * device (p->n_pdds == 0). Built by scripts/qemu-smoke.sh with
 * `gcc -static` against the uapi header of the tree under test (the 6.12
 * tree after the series, or the ROCm stack's), so the number and layout
 * come from the patch itself; the asserts below pin them.
 *
 * Every expectation is read from kfd_mp_tenant.c (identical on both
 * bases) and the dispatchers in kfd_chardev.c:
 *  - kfd_ioctl_tenant_ctl(): QUERY (num_pids and flags must be 0) before
 *    anything else; op > GET_STATE EINVAL; then capable(CAP_SYS_ADMIN)
 *    (EPERM); then num_pids 1..64 and flags EINVAL; pids_ptr EFAULT;
 *    status_ptr probed with clear_user() EFAULT; each pid resolved, ESRCH
 *    with status[i] = -ESRCH; magic is written only on success (or
 *    ETIME/EIO).
 *  - kfd_tenant_ctl_procs(): a process named twice EINVAL; SET_CLASS
 *    class > BEST_EFFORT EINVAL, otherwise stored with no GPU involved;
 *    SUSPEND/RESUME/GET_STATE select the process devices:
 *    kfd_tenant_select() with none found answers ENOENT with
 *    KFD_IOC_TENANT_FLAG_ALL_GPUS and EINVAL without it.
 *  - trace_kfd_tenant_ctl() fires only in kfd_tenant_apply(), once per GPU
 *    of an applied SUSPEND/RESUME: never on a node-less load.
 *  - A driver without the command: upstream's kfd_ioctl() answers ENOTTY
 *    for nr 0x70, ROCm's EINVAL.
 *
 * Usage: tenant-probe CHECK | --list | --hold. Prints one line "ok: ..."
 * (exit 0), or the failures (exit 1); "no tenant-control ioctl ..." (exit
 * 3) when QUERY does not answer the magic; usage errors exit 2. --hold
 * opens /dev/kfd, prints "held PID" and waits for a signal: a KFD process
 * for the kfdmp-sched check to name.
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
#include <unistd.h>

#include <linux/kfd_ioctl.h>

typedef struct kfd_ioctl_tenant_ctl_args targs;

/* The ABI both bases must share (docs/tenant-control.md, section 2.3). */
_Static_assert(sizeof(targs) == 56, "struct kfd_ioctl_tenant_ctl_args is 56 bytes");
_Static_assert(offsetof(targs, pids_ptr) == 0 && offsetof(targs, status_ptr) == 8 &&
	       offsetof(targs, wait_ns) == 16 && offsetof(targs, op) == 24 &&
	       offsetof(targs, flags) == 28 && offsetof(targs, gpu_id) == 32 &&
	       offsetof(targs, num_pids) == 36 && offsetof(targs, tenant_class) == 40 &&
	       offsetof(targs, state) == 44 && offsetof(targs, magic) == 48 &&
	       offsetof(targs, version) == 52, "field offsets");
_Static_assert(_IOC_NR(AMDKFD_IOC_TENANT_CTL) == 0x70, "command number 0x70");
_Static_assert(_IOC_TYPE(AMDKFD_IOC_TENANT_CTL) == 'K', "ioctl type 'K'");
_Static_assert(_IOC_DIR(AMDKFD_IOC_TENANT_CTL) == (_IOC_READ | _IOC_WRITE), "IOWR");
_Static_assert(_IOC_SIZE(AMDKFD_IOC_TENANT_CTL) == 56, "size in the command word");
_Static_assert(KFD_IOC_TENANT_MAGIC == 0x4b464454u && KFD_IOC_TENANT_VERSION == 1,
	       "magic and version");
_Static_assert(KFD_IOC_TENANT_OP_QUERY == 0 && KFD_IOC_TENANT_OP_SUSPEND == 1 &&
	       KFD_IOC_TENANT_OP_RESUME == 2 && KFD_IOC_TENANT_OP_SET_CLASS == 3 &&
	       KFD_IOC_TENANT_OP_GET_STATE == 4, "ops");
_Static_assert(KFD_IOC_TENANT_FLAG_ALL_GPUS == 1 && KFD_IOC_TENANT_MAX_PIDS == 64 &&
	       KFD_IOC_TENANT_CLASS_BEST_EFFORT == 2, "flags, limits, classes");

#define NOBODY 65534
#define TRACEFS "/sys/kernel/tracing"
#define EVENT TRACEFS "/events/amdkfd/kfd_tenant_ctl/enable"
#define MARKER "tenant-probe: start"

static int kfd = -1;
static int nfail;
static int ncalls;
static char failures[4096];

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

static const char *ename(int e)
{
	static char buf[16];

	switch (e) {
	case 0: return "0";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case ESRCH: return "ESRCH";
	case EBADF: return "EBADF";
	case EFAULT: return "EFAULT";
	case EINVAL: return "EINVAL";
	case ENOTTY: return "ENOTTY";
	case EACCES: return "EACCES";
	case ETIME: return "ETIME";
	case EIO: return "EIO";
	case ENOMEM: return "ENOMEM";
	}
	snprintf(buf, sizeof(buf), "errno %d", e);
	return buf;
}

/* The ioctl; returns 0 or the errno. */
static int tctl(targs *a)
{
	ncalls++;
	return ioctl(kfd, AMDKFD_IOC_TENANT_CTL, a) ? errno : 0;
}

static targs mk(uint32_t op, uint32_t flags, const uint32_t *pids, uint32_t n, int32_t *status)
{
	targs a;

	memset(&a, 0, sizeof(a));
	a.op = op;
	a.flags = flags;
	a.pids_ptr = (uintptr_t)pids;
	a.num_pids = n;
	a.status_ptr = (uintptr_t)status;
	return a;
}

/* Expect errno `want` (0: success); for an error, magic must stay unset. */
static void expect(const char *what, targs *a, int want)
{
	int got;

	a->magic = 0;
	got = tctl(a);
	if (got != want)
		failf("%s: %s, expected %s", what, ename(got), ename(want));
	else if (want && a->magic)
		failf("%s: %s but magic 0x%x written", what, ename(got), a->magic);
}

static void open_kfd(void)
{
	kfd = open("/dev/kfd", O_RDWR | O_CLOEXEC);
	if (kfd < 0) {
		printf("FAIL: open /dev/kfd: %s\n", strerror(errno));
		exit(1);
	}
}

/* QUERY; exits 3 when the driver has no tenant-control command. */
static void query_or_exit(const char *who)
{
	targs a = mk(KFD_IOC_TENANT_OP_QUERY, 0, NULL, 0, NULL);
	int e = tctl(&a);

	if (e == ENOTTY || e == EINVAL || (!e && a.magic != KFD_IOC_TENANT_MAGIC)) {
		if (e)
			printf("no tenant-control ioctl: QUERY (nr 0x70) %s %s (%s)\n", who, ename(e),
			       e == ENOTTY ? "upstream's answer to an unknown command"
					   : "ROCm's answer to an unknown command");
		else
			printf("no tenant-control ioctl: QUERY (nr 0x70) %s returned 0 with magic 0x%08x, not 0x%08x\n",
			       who, a.magic, KFD_IOC_TENANT_MAGIC);
		exit(3);
	}
	if (e) {
		printf("FAIL: QUERY %s: %s\n", who, ename(e));
		exit(1);
	}
	if (a.version != KFD_IOC_TENANT_VERSION)
		failf("QUERY %s: version %u, expected %u", who, a.version, KFD_IOC_TENANT_VERSION);
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
	if (setresgid(NOBODY, NOBODY, NOBODY) || setresuid(NOBODY, NOBODY, NOBODY)) {
		printf("FAIL: setresuid(%d): %s\n", NOBODY, strerror(errno));
		exit(1);
	}
	if (cap_eff() != 0) {
		printf("FAIL: CapEff %llx after setresuid(%d), expected 0\n", cap_eff(), NOBODY);
		exit(1);
	}
}

static uint32_t self;

/* QUERY answers magic and version, as root and without any capability. */
static void check_query(void)
{
	targs a;

	query_or_exit("as root");
	a = mk(KFD_IOC_TENANT_OP_QUERY, 0, NULL, 1, NULL);
	expect("QUERY num_pids=1", &a, EINVAL);
	a = mk(KFD_IOC_TENANT_OP_QUERY, KFD_IOC_TENANT_FLAG_ALL_GPUS, NULL, 0, NULL);
	expect("QUERY flags=ALL_GPUS", &a, EINVAL);
	drop_privilege();
	query_or_exit("as uid 65534 with CapEff 0");
	a = mk(KFD_IOC_TENANT_OP_QUERY, 0, NULL, 0, NULL);
	a.wait_ns = 7;
	a.state = 7;
	if (tctl(&a) || a.wait_ns || a.state)
		failf("QUERY: wait_ns %llu state %u, expected both cleared",
		      (unsigned long long)a.wait_ns, a.state);
}

/* Every other op needs CAP_SYS_ADMIN; an unknown op is refused before. */
static void check_unprivileged(void)
{
	static const uint32_t ops[] = { KFD_IOC_TENANT_OP_SUSPEND, KFD_IOC_TENANT_OP_RESUME,
					KFD_IOC_TENANT_OP_SET_CLASS, KFD_IOC_TENANT_OP_GET_STATE };
	int32_t status[1] = { 12345 };
	char what[64];
	unsigned int i;
	targs a;

	query_or_exit("as root");
	drop_privilege();
	for (i = 0; i < 4; i++) {
		a = mk(ops[i], KFD_IOC_TENANT_FLAG_ALL_GPUS, &self, 1, status);
		snprintf(what, sizeof(what), "op %u on own pid as uid 65534", ops[i]);
		expect(what, &a, EPERM);
		/* the privilege check comes before the flags check */
		a = mk(ops[i], 0x80, &self, 1, status);
		snprintf(what, sizeof(what), "op %u flags=0x80 as uid 65534", ops[i]);
		expect(what, &a, EPERM);
	}
	if (status[0] != 12345)
		failf("EPERM wrote the status array (%d)", status[0]);
	a = mk(5, 0, &self, 1, NULL);
	expect("op 5 as uid 65534", &a, EINVAL);
}

/* Bad arguments from a privileged caller. */
static void check_einval(void)
{
	uint32_t pids[65], two[2] = { self, self };
	int32_t status[2] = { 7, 7 };
	unsigned int i;
	targs a;

	query_or_exit("as root");
	for (i = 0; i < 65; i++)
		pids[i] = self;
	a = mk(5, 0, &self, 1, NULL);
	expect("op 5", &a, EINVAL);
	a = mk(0xffffffffu, 0, &self, 1, NULL);
	expect("op 0xffffffff", &a, EINVAL);
	a = mk(KFD_IOC_TENANT_OP_SUSPEND, 2, &self, 1, NULL);
	expect("SUSPEND flags=2", &a, EINVAL);
	a = mk(KFD_IOC_TENANT_OP_GET_STATE, 0x80000001u, &self, 1, NULL);
	expect("GET_STATE flags=0x80000001", &a, EINVAL);
	a = mk(KFD_IOC_TENANT_OP_SUSPEND, KFD_IOC_TENANT_FLAG_ALL_GPUS, pids, 0, NULL);
	expect("SUSPEND num_pids=0", &a, EINVAL);
	a = mk(KFD_IOC_TENANT_OP_SUSPEND, KFD_IOC_TENANT_FLAG_ALL_GPUS, pids, 65, NULL);
	expect("SUSPEND num_pids=65", &a, EINVAL);
	a = mk(KFD_IOC_TENANT_OP_SET_CLASS, 0, &self, 1, NULL);
	a.tenant_class = 3;
	expect("SET_CLASS class=3", &a, EINVAL);
	a = mk(KFD_IOC_TENANT_OP_SET_CLASS, 0, two, 2, status);
	expect("SET_CLASS own pid twice", &a, EINVAL);
	if (status[0] != 0 || status[1] != -EINVAL)
		failf("SET_CLASS own pid twice: status {%d, %d}, expected {0, %d}",
		      status[0], status[1], -EINVAL);
}

/* A pid that no process has, or a process without KFD process. */
static void check_esrch(void)
{
	uint32_t none = 0, zero = 0, pid_max = 32768, mixed[3];
	int32_t status[3] = { 7, 7, 7 };
	FILE *f;
	targs a;

	query_or_exit("as root");
	f = fopen("/proc/sys/kernel/pid_max", "r");
	if (f) {
		if (fscanf(f, "%u", &pid_max) != 1)
			pid_max = 32768;
		fclose(f);
	}
	/* the highest free pid below pid_max */
	for (none = pid_max - 1; none > 2 && (kill(none, 0) == 0 || errno != ESRCH); none--)
		;
	mixed[0] = self;
	mixed[1] = none;
	mixed[2] = 1;	/* init: exists, never opened /dev/kfd */
	a = mk(KFD_IOC_TENANT_OP_SUSPEND, KFD_IOC_TENANT_FLAG_ALL_GPUS, mixed, 3, status);
	expect("SUSPEND {self, unused pid, 1}", &a, ESRCH);
	if (status[0] != 0 || status[1] != -ESRCH || status[2] != -ESRCH)
		failf("SUSPEND {self, %u, 1}: status {%d, %d, %d}, expected {0, %d, %d}", none,
		      status[0], status[1], status[2], -ESRCH, -ESRCH);
	a = mk(KFD_IOC_TENANT_OP_GET_STATE, KFD_IOC_TENANT_FLAG_ALL_GPUS, &mixed[1], 1, NULL);
	expect("GET_STATE unused pid", &a, ESRCH);
	a = mk(KFD_IOC_TENANT_OP_RESUME, KFD_IOC_TENANT_FLAG_ALL_GPUS, &mixed[2], 1, NULL);
	expect("RESUME pid 1", &a, ESRCH);
	a = mk(KFD_IOC_TENANT_OP_SET_CLASS, 0, &zero, 1, NULL);
	expect("SET_CLASS pid 0", &a, ESRCH);
}

/* Unreadable pids, unwritable status: EFAULT before anything else. */
static void check_efault(void)
{
	int32_t *ro;
	targs a;

	query_or_exit("as root");
	ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ro == MAP_FAILED) {
		printf("FAIL: mmap: %s\n", strerror(errno));
		exit(1);
	}
	a = mk(KFD_IOC_TENANT_OP_SUSPEND, KFD_IOC_TENANT_FLAG_ALL_GPUS, NULL, 1, NULL);
	a.pids_ptr = 8;
	expect("SUSPEND pids_ptr=8", &a, EFAULT);
	/* own pid: without the fault this would be ENOENT */
	a = mk(KFD_IOC_TENANT_OP_SUSPEND, KFD_IOC_TENANT_FLAG_ALL_GPUS, &self, 1, ro);
	expect("SUSPEND status_ptr read-only", &a, EFAULT);
	a = mk(KFD_IOC_TENANT_OP_SET_CLASS, 0, &self, 1, ro);
	expect("SET_CLASS status_ptr read-only", &a, EFAULT);
}

/* The probe's own KFD process: no process device on a node-less load. */
static void check_own_pid(void)
{
	static const uint32_t ops[] = { KFD_IOC_TENANT_OP_SUSPEND, KFD_IOC_TENANT_OP_RESUME,
					KFD_IOC_TENANT_OP_GET_STATE };
	static const char *const names[] = { "SUSPEND", "RESUME", "GET_STATE" };
	int32_t status[1];
	char what[80];
	unsigned int i;
	targs a;

	query_or_exit("as root");
	for (i = 0; i < 3; i++) {
		status[0] = 7;
		a = mk(ops[i], KFD_IOC_TENANT_FLAG_ALL_GPUS, &self, 1, status);
		snprintf(what, sizeof(what), "%s own pid ALL_GPUS", names[i]);
		expect(what, &a, ENOENT);
		if (status[0] != -ENOENT)
			failf("%s: status %d, expected %d", what, status[0], -ENOENT);
		status[0] = 7;
		a = mk(ops[i], 0, &self, 1, status);
		a.gpu_id = i ? 0x1234 : 0;
		snprintf(what, sizeof(what), "%s own pid gpu_id=0x%x", names[i], a.gpu_id);
		expect(what, &a, EINVAL);
		if (status[0] != -EINVAL)
			failf("%s: status %d, expected %d", what, status[0], -EINVAL);
	}
	/* SET_CLASS touches no GPU: it succeeds and reports the magic */
	for (i = KFD_IOC_TENANT_CLASS_BEST_EFFORT + 1; i-- > 0;) {
		status[0] = 7;
		a = mk(KFD_IOC_TENANT_OP_SET_CLASS, 0, &self, 1, status);
		a.tenant_class = i;
		snprintf(what, sizeof(what), "SET_CLASS own pid class=%u", i);
		expect(what, &a, 0);
		if (a.magic != KFD_IOC_TENANT_MAGIC || status[0] != 0)
			failf("%s: magic 0x%x status %d, expected 0x%x and 0", what, a.magic,
			      status[0], KFD_IOC_TENANT_MAGIC);
	}
}

/* GET_STATE of the own pid: everything it returns, for before/after. */
struct snap {
	int err;
	int32_t status;
	targs a;
};

static struct snap get_state(void)
{
	struct snap s;

	s.status = 7;
	s.a = mk(KFD_IOC_TENANT_OP_GET_STATE, KFD_IOC_TENANT_FLAG_ALL_GPUS, &self, 1, &s.status);
	s.a.tenant_class = 0xdead;
	s.a.magic = 0xbeef;
	s.err = tctl(&s.a);
	return s;
}

static void refused_calls(void)
{
	uint32_t two[2] = { self, self }, none = 0;
	targs a;

	a = mk(KFD_IOC_TENANT_OP_SUSPEND, KFD_IOC_TENANT_FLAG_ALL_GPUS, &self, 1, NULL);
	expect("SUSPEND own pid", &a, ENOENT);
	a = mk(KFD_IOC_TENANT_OP_RESUME, KFD_IOC_TENANT_FLAG_ALL_GPUS, &self, 1, NULL);
	expect("RESUME own pid", &a, ENOENT);
	a = mk(KFD_IOC_TENANT_OP_SUSPEND, 0, &self, 1, NULL);
	expect("SUSPEND own pid gpu_id=0", &a, EINVAL);
	a = mk(KFD_IOC_TENANT_OP_SUSPEND, 2, &self, 1, NULL);
	expect("SUSPEND flags=2", &a, EINVAL);
	a = mk(KFD_IOC_TENANT_OP_SET_CLASS, 0, two, 2, NULL);
	a.tenant_class = KFD_IOC_TENANT_CLASS_BEST_EFFORT;
	expect("SET_CLASS own pid twice", &a, EINVAL);
	a = mk(KFD_IOC_TENANT_OP_SET_CLASS, 0, &self, 1, NULL);
	a.tenant_class = 3;
	expect("SET_CLASS class=3", &a, EINVAL);
	a = mk(KFD_IOC_TENANT_OP_SUSPEND, KFD_IOC_TENANT_FLAG_ALL_GPUS, &none, 1, NULL);
	expect("SUSPEND pid 0", &a, ESRCH);
	a = mk(6, 0, &self, 1, NULL);
	expect("op 6", &a, EINVAL);
}

/* Refused calls change nothing that GET_STATE reports. On a node-less
 * load GET_STATE itself is refused (ENOENT, no process device), so what
 * is compared is that whole answer: errno, status, every out field. */
static void check_unchanged(void)
{
	struct snap before, after;

	query_or_exit("as root");
	before = get_state();
	refused_calls();
	after = get_state();
	if (before.err != ENOENT || before.status != -ENOENT)
		failf("GET_STATE own pid before: %s status %d, expected ENOENT and %d",
		      ename(before.err), before.status, -ENOENT);
	if (before.a.tenant_class != 0xdead || before.a.magic != 0xbeef || before.a.state ||
	    before.a.wait_ns)
		failf("refused GET_STATE wrote class 0x%x magic 0x%x state %u wait_ns %llu",
		      before.a.tenant_class, before.a.magic, before.a.state,
		      (unsigned long long)before.a.wait_ns);
	if (before.err != after.err || before.status != after.status ||
	    memcmp(&before.a, &after.a, sizeof(before.a)))
		failf("GET_STATE own pid changed across the refused calls: %s/%d/state %u/class 0x%x -> %s/%d/state %u/class 0x%x",
		      ename(before.err), before.status, before.a.state, before.a.tenant_class,
		      ename(after.err), after.status, after.a.state, after.a.tenant_class);
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

/* amdkfd:kfd_tenant_ctl is emitted per GPU of an applied SUSPEND/RESUME
 * (kfd_tenant_apply()): none of the calls a node-less load allows. */
static void check_trace(void)
{
	char buf[65536];
	ssize_t n, len = 0;
	int fd;

	query_or_exit("as root");
	if (access(EVENT, W_OK)) {
		printf("FAIL: %s: %s (amdkfd trace events not available)\n", EVENT, strerror(errno));
		exit(1);
	}
	if (write_file(TRACEFS "/trace", "", O_TRUNC) || write_file(EVENT, "1", 0) ||
	    write_file(TRACEFS "/tracing_on", "1", 0) ||
	    write_file(TRACEFS "/trace_marker", MARKER, 0)) {
		printf("FAIL: enabling %s: %s\n", EVENT, strerror(errno));
		exit(1);
	}
	check_own_pid();
	refused_calls();
	write_file(EVENT, "0", 0);
	fd = open(TRACEFS "/trace", O_RDONLY);
	if (fd < 0) {
		printf("FAIL: %s/trace: %s\n", TRACEFS, strerror(errno));
		exit(1);
	}
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
	{ "query", check_query, "QUERY answers magic and version as root and as uid 65534 (CapEff 0); num_pids/flags set: EINVAL" },
	{ "unprivileged", check_unprivileged, "SUSPEND, RESUME, SET_CLASS, GET_STATE without CAP_SYS_ADMIN: EPERM (bad flags too); op 5: EINVAL" },
	{ "einval", check_einval, "unknown op, unknown flags, num_pids 0/65, class 3, a pid twice: EINVAL" },
	{ "esrch", check_esrch, "an unused pid, pid 0 and pid 1 (no KFD process): ESRCH, status names them" },
	{ "efault", check_efault, "unreadable pids_ptr, read-only status_ptr: EFAULT" },
	{ "own-pid", check_own_pid, "own pid, no GPU: SUSPEND/RESUME/GET_STATE ENOENT (ALL_GPUS) or EINVAL (gpu_id); SET_CLASS 0" },
	{ "unchanged", check_unchanged, "GET_STATE of own pid identical before and after refused calls" },
	{ "trace", check_trace, "no amdkfd:kfd_tenant_ctl event for calls that reach no GPU (the trace_marker line read back)" },
};

int main(int argc, char **argv)
{
	unsigned int i;

	if (argc == 2 && !strcmp(argv[1], "--list")) {
		for (i = 0; i < sizeof(checks) / sizeof(checks[0]); i++)
			printf("%s\t%s\n", checks[i].name, checks[i].what);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "--hold")) {
		open_kfd();
		printf("held %d\n", (int)getpid());
		fflush(stdout);
		for (;;)
			pause();
	}
	for (i = 0; argc == 2 && i < sizeof(checks) / sizeof(checks[0]); i++)
		if (!strcmp(argv[1], checks[i].name))
			break;
	if (argc != 2 || i == sizeof(checks) / sizeof(checks[0])) {
		fprintf(stderr, "usage: tenant-probe CHECK | --list | --hold (--list names the checks)\n");
		return 2;
	}
	self = getpid();
	setvbuf(stdout, NULL, _IOLBF, 0);
	open_kfd();
	checks[i].fn();
	if (nfail) {
		printf("FAIL: %d of %d calls: %s\n", nfail, ncalls, failures);
		return 1;
	}
	printf("ok: %s (%d calls, pid %u)\n", checks[i].what, ncalls, self);
	return 0;
}
