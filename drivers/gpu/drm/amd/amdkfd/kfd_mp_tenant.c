// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Multi-process scheduling: tenant control (AMDKFD_IOC_TENANT_CTL).
 *
 * A privileged scheduler suspends and resumes every user queue of other
 * processes on one GPU or all of theirs, without being their debugger.
 * The targets are pidfds. A suspension is one reference of the eviction
 * count of each process device (kfd_dqm_tenant_set()), held at most once,
 * so it composes with memory evictions, GPU suspend/reset and CRIU the way
 * their references compose with each other, and queues created while
 * suspended start off.
 *
 * A suspension belongs to the /dev/kfd file of the caller that made it
 * (pdd->tenant_owner, on kfd_tenant_owned): another file gets -EBUSY for
 * it, and the release of the file resumes it (kfd_tenant_release()).
 *
 * A call resolves and checks every target first; those that fail get
 * their errno in the status and change nothing. Then it takes the tenant
 * lock of every GPU it will change (interruptible, in the order of the
 * dqms' GPU IDs; a signal returns -EINTR with nothing changed), and per
 * GPU changes all the targets' process devices in one preemption cycle,
 * dropping the GPU's lock after it. The process references are taken per
 * GPU and dropped before the cycle's wait, so that a target that exits
 * meanwhile is released at once; the termination takes it out of the call
 * (kfd_dqm_tenant_gone()).
 *
 * Locks: dqm->mp_tenant_lock -> p->mutex (alone) and dqm->mp_tenant_lock
 * -> dqm_lock -> kfd_tenant_owned_lock. The tenant lock is taken with
 * kfd_tenant_lock() and dropped with kfd_tenant_unlock(), not with
 * mutex_lock_interruptible() (see there).
 */
#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/capability.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/spinlock.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <uapi/linux/kfd_ioctl.h>
#include <uapi/linux/magic.h>

#include "kfd_device_queue_manager.h"
#include "kfd_mp.h"
#include "kfd_priv.h"
#include "kfd_trace.h"

/* the uapi struct: no implicit padding, the same on 32- and 64-bit */
static_assert(sizeof(struct kfd_ioctl_tenant_ctl_args) == 48);
static_assert(offsetof(struct kfd_ioctl_tenant_ctl_args, state_ptr) == 16);
static_assert(offsetof(struct kfd_ioctl_tenant_ctl_args, wait_ns) == 24);
static_assert(offsetof(struct kfd_ioctl_tenant_ctl_args, op) == 32);
static_assert(offsetof(struct kfd_ioctl_tenant_ctl_args, num_targets) == 44);
/* a call's targets fit the u64 masks of the code */
static_assert(KFD_IOC_TENANT_MAX_TARGETS <= 64);

/* the suspended process devices of every owner (pdd->tenant_node) */
static LIST_HEAD(kfd_tenant_owned);
static DEFINE_SPINLOCK(kfd_tenant_owned_lock);

/**
 * kfd_tenant_own - record the owner of a process device's suspension
 * @pdd: the process device, dqm_lock held
 * @owner: the /dev/kfd file that holds it, NULL when it is given back
 */
void kfd_tenant_own(struct kfd_process_device *pdd, struct file *owner)
{
	spin_lock(&kfd_tenant_owned_lock);
	if (pdd->tenant_owner && !owner)
		list_del(&pdd->tenant_node);
	else if (!pdd->tenant_owner && owner)
		list_add_tail(&pdd->tenant_node, &kfd_tenant_owned);
	pdd->tenant_owner = owner;
	spin_unlock(&kfd_tenant_owned_lock);
}

/* @pdd's process terminates on its device (dqm_lock held) */
void kfd_tenant_disown(struct kfd_process_device *pdd)
{
	kfd_tenant_own(pdd, NULL);
}

/* -ESRCH if the task of @pid has exited or is exiting, else -ENOENT */
static int kfd_tenant_no_process(struct pid *pid)
{
	struct task_struct *task = get_pid_task(pid, PIDTYPE_PID);
	int ret = -ESRCH;

	if (task) {
		if (!(task->flags & PF_EXITING))
			ret = -ENOENT;
		put_task_struct(task);
	}
	return ret;
}

/* A pin of a target's process for one GPU's part of a call */
static struct kfd_process *kfd_tenant_get(struct kfd_tenant_target *t)
{
	if (t->pid)
		return kfd_lookup_process_by_pid(t->pid);
	/* in-kernel callers (KUnit) name the process itself */
	return kref_get_unless_zero(&t->p->ref) ? t->p : NULL;
}

/*
 * A GPU's tenant lock is held across the call's preemption cycle, and the
 * holder busy-waits for the HWS's fence (amdkfd_fence_wait_timeout() loops
 * on schedule()), so it stays on its CPU. mutex_lock_interruptible() would
 * spin on such an owner, also after a signal woke it as the first waiter,
 * for as long as the preemption takes (up to its timeout), and then take
 * the lock with the signal pending. Waiters sleep here instead and take
 * the lock with mutex_trylock(); every unlock wakes them.
 */
static DECLARE_WAIT_QUEUE_HEAD(kfd_tenant_lock_wq);

static int kfd_tenant_lock(struct device_queue_manager *dqm, bool intr)
{
	if (!intr) {
		wait_event(kfd_tenant_lock_wq,
			   mutex_trylock(&dqm->mp_tenant_lock));
		return 0;
	}
	if (wait_event_interruptible(kfd_tenant_lock_wq,
				     mutex_trylock(&dqm->mp_tenant_lock)))
		return -EINTR;
	return 0;
}

static void kfd_tenant_unlock(struct device_queue_manager *dqm)
{
	mutex_unlock(&dqm->mp_tenant_lock);
	wake_up_all(&kfd_tenant_lock_wq);
}

/* The process device of @p on @dqm's GPU that the call selects */
static struct kfd_process_device *
kfd_tenant_pdd(struct kfd_process *p, const struct kfd_ioctl_tenant_ctl_args *args,
	       struct device_queue_manager *dqm)
{
	struct kfd_process_device *pdd, *found = NULL;
	unsigned int i;

	mutex_lock(&p->mutex);
	for (i = 0; i < p->n_pdds; i++) {
		pdd = p->pdds[i];
		if (!(args->flags & KFD_IOC_TENANT_FLAG_ALL_GPUS) &&
		    pdd->user_gpu_id != args->gpu_id)
			continue;
		if (pdd->dev->dqm == dqm) {
			found = pdd;
			break;
		}
	}
	mutex_unlock(&p->mutex);
	return found;
}

/* Resolve and check one target; the GPUs it selects go into @dqms */
static int kfd_tenant_select(struct kfd_process *p,
			     const struct kfd_ioctl_tenant_ctl_args *args,
			     struct device_queue_manager **dqms,
			     unsigned int *ndqms)
{
	bool all = args->flags & KFD_IOC_TENANT_FLAG_ALL_GPUS;
	struct device_queue_manager *dqm;
	unsigned int i, j;
	int ret = all ? -ENOENT : -EINVAL;

	mutex_lock(&p->mutex);
	for (i = 0; i < p->n_pdds; i++) {
		if (!all && p->pdds[i]->user_gpu_id != args->gpu_id)
			continue;
		ret = 0;
		dqm = p->pdds[i]->dev->dqm;
		for (j = 0; j < *ndqms && dqms[j] != dqm; j++)
			;
		if (j == *ndqms)
			dqms[(*ndqms)++] = dqm;
	}
	mutex_unlock(&p->mutex);
	return ret;
}

static int kfd_tenant_dqm_cmp(const void *a, const void *b)
{
	const struct device_queue_manager *x =
		*(const struct device_queue_manager * const *)a;
	const struct device_queue_manager *y =
		*(const struct device_queue_manager * const *)b;

	return x->dev->id < y->dev->id ? -1 : x->dev->id > y->dev->id;
}

/* One GPU's part of a call, with the pins it drops before its wait */
struct kfd_tenant_step {
	struct kfd_tenant_call call;
	struct kfd_process *procs[KFD_IOC_TENANT_MAX_TARGETS];
	struct kfd_process_device *pdds[KFD_IOC_TENANT_MAX_TARGETS];
	int res[KFD_IOC_TENANT_MAX_TARGETS];
	unsigned int idx[KFD_IOC_TENANT_MAX_TARGETS];
	unsigned int nprocs;
};

static void kfd_tenant_unpin(struct kfd_tenant_call *c)
{
	struct kfd_tenant_step *s = container_of(c, struct kfd_tenant_step,
						 call);

	while (s->nprocs)
		kfd_unref_process(s->procs[--s->nprocs]);
}

/* SUSPEND or RESUME on @dqm, its tenant lock held */
static int kfd_tenant_step(struct kfd_tenant_step *s, struct file *owner,
			   struct device_queue_manager *dqm,
			   struct kfd_tenant_target *tg, const int *first,
			   unsigned int n,
			   const struct kfd_ioctl_tenant_ctl_args *args,
			   s32 *status, u64 *skip, u64 *wait_ns)
{
	struct kfd_process_device *pdd;
	struct kfd_process *p;
	unsigned int i, m = 0;
	u64 start;
	int err;

	s->nprocs = 0;
	for (i = 0; i < n; i++) {
		if ((*skip & BIT_ULL(i)) || first[i] != i)
			continue;
		p = kfd_tenant_get(&tg[i]);
		if (!p) {
			/* it exited since an earlier GPU's part */
			if (!status[i])
				status[i] = -ESRCH;
			*skip |= BIT_ULL(i);
			continue;
		}
		s->procs[s->nprocs++] = p;
		pdd = kfd_tenant_pdd(p, args, dqm);
		if (!pdd)
			continue;
		s->pdds[m] = pdd;
		s->idx[m++] = i;
	}
	if (!m) {
		kfd_tenant_unpin(&s->call);
		return 0;
	}
	s->call = (struct kfd_tenant_call) {
		.pdds = s->pdds, .status = s->res, .n = m,
		.suspend = args->op == KFD_IOC_TENANT_OP_SUSPEND,
		.owner = owner, .unpin = kfd_tenant_unpin,
	};
	start = ktime_get_ns();
	err = kfd_dqm_tenant_set(dqm, &s->call);
	trace_kfd_tenant_ctl(dqm->dev->id, s->call.suspend, m, err,
			     s->call.wait_ns, ktime_get_ns() - start);
	*wait_ns += s->call.wait_ns;
	/* per target its first error: its own errno, else the cycle's */
	for (i = 0; i < m; i++)
		if (!status[s->idx[i]])
			status[s->idx[i]] = s->res[i] ? s->res[i] : err;
	return err;
}

/**
 * kfd_tenant_ctl_targets - AMDKFD_IOC_TENANT_CTL on resolved targets
 * @owner: the caller's /dev/kfd file, which owns its suspensions
 * @tg: the targets; @tg[i].pid or, from the kernel, @tg[i].p
 * @n: their number, 1..KFD_IOC_TENANT_MAX_TARGETS
 * @args: op, flags and gpu_id, checked by the caller; wait_ns out
 * @status: per target, in: 0 or an errno found by the caller (the target
 *	is left out); out: 0 or -errno
 * @state: GET_STATE: per target, KFD_IOC_TENANT_STATE_*; else NULL
 *
 * The same process named twice gets the first one's result.
 *
 * Return: 0 or -EINTR (a signal while waiting for a GPU's tenant lock:
 * nothing changed); the targets' errors are in @status.
 */
int kfd_tenant_ctl_targets(struct file *owner, struct kfd_tenant_target *tg,
			   unsigned int n,
			   struct kfd_ioctl_tenant_ctl_args *args,
			   s32 *status, u32 *state)
{
	struct device_queue_manager **dqms;
	struct kfd_process_device *pdd;
	struct kfd_process **procs;
	struct kfd_tenant_step *s;
	unsigned int i, j, ndqms = 0, locked;
	int *first, ret = 0, err;
	u64 skip = 0;

	args->wait_ns = 0;
	procs = kcalloc(n, sizeof(*procs), GFP_KERNEL);
	first = kcalloc(n, sizeof(*first), GFP_KERNEL);
	dqms = kcalloc(n * MAX_GPU_INSTANCE, sizeof(*dqms), GFP_KERNEL);
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!procs || !first || !dqms || !s) {
		ret = -ENOMEM;
		goto out;
	}
	/* resolve and check, each process once */
	for (i = 0; i < n; i++) {
		first[i] = i;
		if (state)
			state[i] = 0;
		if (status[i])
			continue;
		procs[i] = kfd_tenant_get(&tg[i]);
		if (!procs[i]) {
			status[i] = tg[i].pid ? kfd_tenant_no_process(tg[i].pid) :
				-ESRCH;
			continue;
		}
		for (j = 0; j < i; j++)
			if (procs[j] == procs[i])
				break;
		if (j < i) {
			first[i] = j;
			continue;
		}
		status[i] = kfd_tenant_select(procs[i], args, dqms, &ndqms);
	}

	if (args->op == KFD_IOC_TENANT_OP_GET_STATE) {
		for (i = 0; i < n; i++) {
			if (!procs[i] || status[i] || first[i] != i)
				continue;
			for (j = 0; j < ndqms; j++) {
				pdd = kfd_tenant_pdd(procs[i], args, dqms[j]);
				if (!pdd)
					continue;
				err = kfd_dqm_tenant_state(pdd, owner);
				if (err < 0) {
					status[i] = err;
					break;
				}
				state[i] |= err;
			}
		}
		goto copy;
	}
	/*
	 * No pin across the wait for a GPU's lock either. A target that
	 * failed its checks is left out on every GPU; one that fails on a
	 * GPU (a hung preemption there) still changes on the others.
	 */
	for (i = 0; i < n; i++) {
		if (status[i])
			skip |= BIT_ULL(i);
		if (procs[i]) {
			kfd_unref_process(procs[i]);
			procs[i] = NULL;
		}
	}

	sort(dqms, ndqms, sizeof(*dqms), kfd_tenant_dqm_cmp, NULL);
	for (locked = 0; locked < ndqms; locked++) {
		if (kfd_tenant_lock(dqms[locked], true)) {
			while (locked)
				kfd_tenant_unlock(dqms[--locked]);
			ret = -EINTR;
			goto out;
		}
	}
	for (j = 0; j < ndqms; j++) {
		kfd_tenant_step(s, owner, dqms[j], tg, first, n, args, status,
				&skip, &args->wait_ns);
		kfd_tenant_unlock(dqms[j]);
	}
copy:
	for (i = 0; i < n; i++) {
		if (first[i] == i)
			continue;
		status[i] = status[first[i]];
		if (state)
			state[i] = state[first[i]];
	}
out:
	if (procs)
		for (i = 0; i < n; i++)
			if (procs[i])
				kfd_unref_process(procs[i]);
	kfree(s);
	kfree(dqms);
	kfree(first);
	kfree(procs);
	return ret;
}

/*
 * The struct pid of a pidfd, referenced. pidfd_get_pid() is not exported
 * to modules: a pidfd is a pidfs file (the pid in its inode) since 6.9,
 * before that an anon inode file "[pidfd]" (the pid in its private data).
 */
static struct pid *kfd_tenant_pidfd(int fd)
{
	struct pid *pid = ERR_PTR(-EBADF);
	struct file *f;

	if (fd < 0)
		return pid;
	f = fget(fd);
	if (!f)
		return pid;
#ifdef PID_FS_MAGIC
	if (file_inode(f)->i_sb->s_magic == PID_FS_MAGIC)
		pid = get_pid(file_inode(f)->i_private);
#else
	if (file_inode(f)->i_sb->s_magic == ANON_INODE_FS_MAGIC &&
	    !strcmp(f->f_path.dentry->d_name.name, "[pidfd]"))
		pid = get_pid(f->private_data);
#endif
	fput(f);
	return pid;
}

/**
 * kfd_tenant_release - the release of a /dev/kfd file
 * @owner: the file
 *
 * Resumes every process device whose suspension @owner holds. A process
 * that is exiting is left to its termination (no reference can be taken,
 * or kfd_dqm_tenant_set() refuses it and drops the suspension's owner).
 */
void kfd_tenant_release(struct file *owner)
{
	struct kfd_process_device *pdd, *found;
	struct kfd_tenant_step *s = NULL;
	struct device_queue_manager *dqm;
	struct kfd_process *p;

	for (;;) {
		found = NULL;
		spin_lock(&kfd_tenant_owned_lock);
		list_for_each_entry(pdd, &kfd_tenant_owned, tenant_node) {
			if (pdd->tenant_owner != owner)
				continue;
			p = pdd->process;
			if (kref_get_unless_zero(&p->ref)) {
				found = pdd;
				break;
			}
		}
		/* exiting: the termination drops it */
		spin_unlock(&kfd_tenant_owned_lock);
		if (!found)
			break;
		/* only a file that holds suspensions gets here */
		if (!s)
			s = kzalloc(sizeof(*s), GFP_KERNEL | __GFP_NOFAIL);
		dqm = found->dev->dqm;
		s->procs[0] = p;
		s->nprocs = 1;
		s->pdds[0] = found;
		s->call = (struct kfd_tenant_call) {
			.pdds = s->pdds, .status = s->res, .n = 1,
			.suspend = false, .owner = owner,
			.unpin = kfd_tenant_unpin,
		};
		/* not interruptible: the file is gone after this */
		kfd_tenant_lock(dqm, false);
		kfd_dqm_tenant_set(dqm, &s->call);
		kfd_tenant_unlock(dqm);
		trace_kfd_tenant_ctl(dqm->dev->id, false, 1, s->res[0],
				     s->call.wait_ns, 0);
	}
	kfree(s);
}

/*
 * An array of @n 32-bit entries at @uptr is writable: its first and last
 * entries (at most two pages) are read and written back unchanged, so that
 * a call fails with -EFAULT before it changes anything, and writes nothing.
 */
static int kfd_tenant_probe_user(u64 uptr, unsigned int n)
{
	u32 __user *p = u64_to_user_ptr(uptr);
	u32 v;

	if (get_user(v, p) || put_user(v, p) ||
	    get_user(v, p + n - 1) || put_user(v, p + n - 1))
		return -EFAULT;
	return 0;
}

/**
 * kfd_ioctl_tenant_ctl - AMDKFD_IOC_TENANT_CTL
 * @filep: /dev/kfd of the caller, the owner of its suspensions
 * @p: the caller's own KFD process (unused: the targets are the pidfds)
 * @data: struct kfd_ioctl_tenant_ctl_args
 *
 * num_targets 0 with a valid op and flags is a probe: 0, no privilege
 * needed. Otherwise CAP_SYS_ADMIN (-EPERM), and a target must be visible
 * in the caller's pid namespace (its status -EPERM). The status and state
 * arrays are checked writable first, so an unwritable one fails (-EFAULT)
 * before anything changes; an error of the call writes nothing.
 *
 * Return: 0 when every target succeeded, else the first failing target's
 * errno; -EFAULT, -EINVAL, -EPERM, -EINTR, -ENOMEM for the call itself.
 */
int kfd_ioctl_tenant_ctl(struct file *filep, struct kfd_process *p,
			 void *data)
{
	struct kfd_ioctl_tenant_ctl_args *args = data;
	unsigned int i, n = args->num_targets;
	bool get_state = args->op == KFD_IOC_TENANT_OP_GET_STATE;
	struct kfd_tenant_target *tg = NULL;
	s32 *pidfds, *status = NULL;
	u32 *state = NULL;
	struct pid *pid;
	int ret;

	args->wait_ns = 0;
	if (args->op < KFD_IOC_TENANT_OP_SUSPEND ||
	    args->op > KFD_IOC_TENANT_OP_GET_STATE ||
	    args->flags & ~KFD_IOC_TENANT_FLAG_ALL_GPUS ||
	    (args->flags & KFD_IOC_TENANT_FLAG_ALL_GPUS && args->gpu_id) ||
	    n > KFD_IOC_TENANT_MAX_TARGETS)
		return -EINVAL;
	if (!n)
		return 0;
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;

	pidfds = memdup_user(u64_to_user_ptr(args->pidfds_ptr),
			     n * sizeof(*pidfds));
	if (IS_ERR(pidfds))
		return PTR_ERR(pidfds);
	if ((args->status_ptr && kfd_tenant_probe_user(args->status_ptr, n)) ||
	    (get_state && args->state_ptr &&
	     kfd_tenant_probe_user(args->state_ptr, n))) {
		ret = -EFAULT;
		goto out;
	}
	status = kcalloc(n, sizeof(*status), GFP_KERNEL);
	tg = kcalloc(n, sizeof(*tg), GFP_KERNEL);
	if (get_state)
		state = kcalloc(n, sizeof(*state), GFP_KERNEL);
	if (!status || !tg || (get_state && !state)) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		pid = kfd_tenant_pidfd(pidfds[i]);
		if (IS_ERR(pid)) {
			status[i] = PTR_ERR(pid);
			continue;
		}
		tg[i].pid = pid;
		/* a pidfd passed in from outside the caller's namespace */
		if (!pid_vnr(pid))
			status[i] = -EPERM;
	}
	ret = kfd_tenant_ctl_targets(filep, tg, n, args, status, state);
	if (ret)
		goto out;
	if ((args->status_ptr &&
	     copy_to_user(u64_to_user_ptr(args->status_ptr), status,
			  n * sizeof(*status))) ||
	    (state && args->state_ptr &&
	     copy_to_user(u64_to_user_ptr(args->state_ptr), state,
			  n * sizeof(*state)))) {
		ret = -EFAULT;
		goto out;
	}
	for (i = 0; i < n && !ret; i++)
		ret = status[i];
out:
	if (tg)
		for (i = 0; i < n; i++)
			put_pid(tg[i].pid);
	kfree(tg);
	kfree(state);
	kfree(status);
	kfree(pidfds);
	return ret;
}
