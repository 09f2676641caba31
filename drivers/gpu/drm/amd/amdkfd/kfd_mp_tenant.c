// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Multi-process scheduling: tenant control (AMDKFD_IOC_TENANT_CTL).
 *
 * A privileged scheduler suspends and resumes every user queue of other
 * processes on one GPU or all of theirs, without being their debugger.
 * A suspension is one reference of the eviction count of each process
 * device (kfd_dqm_tenant_set()), held at most once, so it composes with
 * memory evictions, GPU suspend/reset and CRIU the way their references
 * compose with each other, and queues created while suspended start off.
 *
 * A call runs in two steps. Validate: every pid resolves to a KFD process
 * and every selected GPU is one of its devices; for SUSPEND each has a
 * user queue there or is already suspended there. Any failure returns
 * with nothing changed, the pid at fault named by its status. Apply: per
 * GPU, all the pids' process devices change in one preemption cycle.
 *
 * Calls are serialized by one mutex (kfd_tenant_mutex -> p->mutex, then
 * kfd_tenant_mutex -> dqm_lock; never both of the latter at once).
 */
#include <linux/capability.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <uapi/linux/kfd_ioctl.h>

#include "kfd_device_queue_manager.h"
#include "kfd_mp.h"
#include "kfd_priv.h"
#include "kfd_trace.h"

static DEFINE_MUTEX(kfd_tenant_mutex);

struct kfd_tenant_sel {
	struct kfd_process_device *pdd;
	unsigned int pid_idx;
	bool done;
};

/* Validate one process: p->mutex only. Returns 0 or the pid's errno. */
static int kfd_tenant_select(struct kfd_process *p,
			     const struct kfd_ioctl_tenant_ctl_args *args,
			     unsigned int pid_idx, struct kfd_tenant_sel *sel,
			     unsigned int *nsel)
{
	bool all = args->flags & KFD_IOC_TENANT_FLAG_ALL_GPUS;
	bool found = false, usable = false;
	struct kfd_process_device *pdd;
	unsigned int i, first = *nsel;

	mutex_lock(&p->mutex);
	for (i = 0; i < p->n_pdds; i++) {
		pdd = p->pdds[i];
		if (!all && (!args->gpu_id || pdd->user_gpu_id != args->gpu_id))
			continue;
		found = true;
		/* queues come and go under p->mutex (pqm_*) */
		if (!list_empty(&pdd->qpd.queues_list) || pdd->tenant_suspended)
			usable = true;
		sel[*nsel].pdd = pdd;
		sel[*nsel].pid_idx = pid_idx;
		sel[*nsel].done = false;
		(*nsel)++;
	}
	mutex_unlock(&p->mutex);
	if (!found) {
		*nsel = first;
		return all ? -ENOENT : -EINVAL;
	}
	if (args->op == KFD_IOC_TENANT_OP_SUSPEND && !usable) {
		*nsel = first;
		return -ENOENT;
	}
	return 0;
}

static u32 kfd_tenant_state(struct kfd_tenant_sel *sel, unsigned int nsel)
{
	struct device_queue_manager *dqm;
	struct kfd_process_device *pdd;
	unsigned int i;
	u32 state = 0;

	for (i = 0; i < nsel && sel[i].pid_idx == 0; i++) {
		pdd = sel[i].pdd;
		dqm = pdd->dev->dqm;
		dqm_lock(dqm);
		if (pdd->tenant_suspended)
			state |= KFD_IOC_TENANT_STATE_SUSPENDED;
		if (pdd->qpd.evicted > (pdd->tenant_suspended ? 1 : 0))
			state |= KFD_IOC_TENANT_STATE_EVICTED;
		if (!list_empty(&pdd->qpd.queues_list))
			state |= KFD_IOC_TENANT_STATE_HAS_QUEUES;
		dqm_unlock(dqm);
	}
	return state;
}

/* Apply: one kfd_dqm_tenant_set() per GPU, in the order of the selection. */
static int kfd_tenant_apply(struct kfd_tenant_sel *sel, unsigned int nsel,
			    bool suspend, s32 *status, u64 *wait_ns)
{
	struct kfd_process_device *pdds[KFD_IOC_TENANT_MAX_PIDS];
	unsigned int idx[KFD_IOC_TENANT_MAX_PIDS];
	int res[KFD_IOC_TENANT_MAX_PIDS];
	struct device_queue_manager *dqm;
	unsigned int i, j, m;
	u64 wait, start;
	int ret = 0, err;

	*wait_ns = 0;
	for (i = 0; i < nsel; i++) {
		if (sel[i].done)
			continue;
		dqm = sel[i].pdd->dev->dqm;
		m = 0;
		/* a pid has at most one pdd per GPU: m <= number of pids */
		for (j = i; j < nsel; j++) {
			if (sel[j].done || sel[j].pdd->dev->dqm != dqm)
				continue;
			sel[j].done = true;
			pdds[m] = sel[j].pdd;
			idx[m++] = sel[j].pid_idx;
		}
		start = ktime_get_ns();
		err = kfd_dqm_tenant_set(dqm, pdds, m, suspend, res, &wait);
		trace_kfd_tenant_ctl(sel[i].pdd->dev->id, suspend, m, err, wait,
				     ktime_get_ns() - start);
		*wait_ns += wait;
		for (j = 0; j < m; j++) {
			if (err && !status[idx[j]])
				status[idx[j]] = err;
			else if (res[j] && !status[idx[j]])
				status[idx[j]] = res[j];
		}
		if (err && !ret)
			ret = err;
	}
	return ret;
}

/**
 * kfd_tenant_ctl_procs - AMDKFD_IOC_TENANT_CTL on resolved processes
 * @procs: the processes, referenced by the caller, distinct
 * @n: their number, 1..KFD_IOC_TENANT_MAX_PIDS
 * @args: op, flags, gpu_id, tenant_class in; wait_ns, state,
 *	tenant_class out
 * @status: per process, 0 or -errno: -EINVAL (@gpu_id is none of its
 *	GPUs, or the process is given twice), -ENOENT (SUSPEND: no queue
 *	there), -ESRCH (it exited before its queues changed), -EIO (a queue
 *	of it was reset instead of preempted), or the call's hardware error
 *
 * The privilege check is the caller's (kfd_ioctl_tenant_ctl()).
 *
 * Return: 0; -EINVAL or -ENOENT with nothing changed; -ETIME or -EIO when
 * a preemption cycle failed, with the new state committed.
 */
int kfd_tenant_ctl_procs(struct kfd_process **procs, unsigned int n,
			 struct kfd_ioctl_tenant_ctl_args *args, s32 *status)
{
	struct kfd_tenant_sel *sel;
	unsigned int i, j, nsel = 0;
	int ret = 0, err;

	if (!n || n > KFD_IOC_TENANT_MAX_PIDS ||
	    args->flags & ~KFD_IOC_TENANT_FLAG_ALL_GPUS)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		status[i] = 0;
		for (j = 0; j < i; j++)
			if (procs[j] == procs[i])
				break;
		if (j < i) {	/* the same process twice (pid and thread id) */
			status[i] = -EINVAL;
			ret = -EINVAL;
		}
	}
	if (ret)
		return ret;
	switch (args->op) {
	case KFD_IOC_TENANT_OP_SET_CLASS:
		if (args->tenant_class > KFD_IOC_TENANT_CLASS_BEST_EFFORT)
			return -EINVAL;
		for (i = 0; i < n; i++)
			WRITE_ONCE(procs[i]->tenant_class, args->tenant_class);
		return 0;
	case KFD_IOC_TENANT_OP_SUSPEND:
	case KFD_IOC_TENANT_OP_RESUME:
	case KFD_IOC_TENANT_OP_GET_STATE:
		break;
	default:
		return -EINVAL;
	}

	sel = kvcalloc(n * MAX_GPU_INSTANCE, sizeof(*sel), GFP_KERNEL);
	if (!sel)
		return -ENOMEM;
	mutex_lock(&kfd_tenant_mutex);
	for (i = 0; i < n; i++) {
		err = kfd_tenant_select(procs[i], args, i, sel, &nsel);
		if (err) {
			status[i] = err;
			if (!ret)
				ret = err;
		}
	}
	if (ret)
		goto out;
	if (args->op == KFD_IOC_TENANT_OP_GET_STATE) {
		args->state = kfd_tenant_state(sel, nsel);
		args->tenant_class = READ_ONCE(procs[0]->tenant_class);
		goto out;
	}
	ret = kfd_tenant_apply(sel, nsel,
			       args->op == KFD_IOC_TENANT_OP_SUSPEND, status,
			       &args->wait_ns);
out:
	mutex_unlock(&kfd_tenant_mutex);
	kvfree(sel);
	return ret;
}

static struct kfd_process *kfd_tenant_lookup(u32 nr)
{
	struct kfd_process *p;
	struct pid *pid;

	if (!nr || nr > PID_MAX_LIMIT)
		return NULL;
	pid = find_get_pid(nr);	/* the caller's pid namespace */
	if (!pid)
		return NULL;
	p = kfd_lookup_process_by_pid(pid);
	put_pid(pid);
	return p;
}

/**
 * kfd_ioctl_tenant_ctl - AMDKFD_IOC_TENANT_CTL
 * @filep: /dev/kfd of the caller
 * @p: the caller's own KFD process (unused: the targets are the pids)
 * @data: struct kfd_ioctl_tenant_ctl_args
 *
 * QUERY needs no privilege, every other op CAP_SYS_ADMIN. Bad input
 * (-EINVAL, -EFAULT, -ESRCH for a pid without a KFD process, -ENOENT)
 * changes nothing; status_ptr, when given, names the pid at fault.
 */
int kfd_ioctl_tenant_ctl(struct file *filep, struct kfd_process *p,
			 void *data)
{
	struct kfd_ioctl_tenant_ctl_args *args = data;
	struct kfd_process **procs = NULL;
	unsigned int i, n = args->num_pids;
	s32 *status = NULL;
	u32 *pids = NULL;
	int ret = 0;

	args->wait_ns = 0;
	args->state = 0;
	if (args->op == KFD_IOC_TENANT_OP_QUERY) {
		if (args->num_pids || args->flags)
			return -EINVAL;
		args->magic = KFD_IOC_TENANT_MAGIC;
		args->version = KFD_IOC_TENANT_VERSION;
		return 0;
	}
	if (args->op > KFD_IOC_TENANT_OP_GET_STATE)
		return -EINVAL;
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (!n || n > KFD_IOC_TENANT_MAX_PIDS ||
	    args->flags & ~KFD_IOC_TENANT_FLAG_ALL_GPUS)
		return -EINVAL;

	pids = memdup_user(u64_to_user_ptr(args->pids_ptr), n * sizeof(*pids));
	if (IS_ERR(pids))
		return PTR_ERR(pids);
	/* an unwritable status array fails before anything changes */
	if (args->status_ptr &&
	    clear_user(u64_to_user_ptr(args->status_ptr), n * sizeof(*status))) {
		ret = -EFAULT;
		goto out;
	}
	status = kcalloc(n, sizeof(*status), GFP_KERNEL);
	procs = kcalloc(n, sizeof(*procs), GFP_KERNEL);
	if (!status || !procs) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		procs[i] = kfd_tenant_lookup(pids[i]);
		if (!procs[i]) {
			status[i] = -ESRCH;
			if (!ret)
				ret = -ESRCH;
		}
	}
	if (!ret)
		ret = kfd_tenant_ctl_procs(procs, n, args, status);
	if (!ret || ret == -ETIME || ret == -EIO)
		args->magic = KFD_IOC_TENANT_MAGIC;
	if (args->status_ptr &&
	    copy_to_user(u64_to_user_ptr(args->status_ptr), status,
			 n * sizeof(*status)) && !ret)
		ret = -EFAULT;
out:
	if (procs)
		for (i = 0; i < n; i++)
			if (procs[i])
				kfd_unref_process(procs[i]);
	kfree(procs);
	kfree(status);
	if (!IS_ERR(pids))
		kfree(pids);
	return ret;
}
