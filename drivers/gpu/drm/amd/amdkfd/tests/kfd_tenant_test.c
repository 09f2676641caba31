// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * KUnit tests of tenant control (AMDKFD_IOC_TENANT_CTL, kfd_mp_tenant.c)
 * on the fake MI300 node: included by kfd_dqm_test.c, whose node, software
 * HWS and helpers it uses. Each case runs stock and with the queued
 * runlist, and checks after each step that the HWS maps exactly the
 * active queues (kfd_dqm_check()).
 *
 * The cases call kfd_tenant_ctl_targets(), the function behind the ioctl,
 * with the fake processes as targets (they have no pid), as controllers
 * A and B (two /dev/kfd files); kfd_dqm_test_tenant_ioctl calls the ioctl
 * handler itself for what it checks before that: the privilege, the
 * arguments, the user memory and the pidfds. kfd_dqm_test_tenant_dispatch
 * goes through the driver's ioctl dispatcher, kfd_ioctl(), to a fake
 * process that a pidfd names.
 */
#include <linux/anon_inodes.h>
#include <linux/cred.h>
#include <linux/fdtable.h>
#include <linux/file.h>
#include <linux/pid.h>
#include <linux/mman.h>
#include <uapi/linux/kfd_ioctl.h>
#include <uapi/linux/magic.h>

#define KFD_TENANT_TEST_GPU	0x4242

/* two controllers: their /dev/kfd files, compared, never dereferenced */
static int kfd_tenant_file_a, kfd_tenant_file_b;
#define KFD_TENANT_A	((struct file *)&kfd_tenant_file_a)
#define KFD_TENANT_B	((struct file *)&kfd_tenant_file_b)

/* the fake processes' mm: set means "not exiting", never dereferenced */
static struct mm_struct kfd_tenant_mm;

/* a fake process that a call can pin (a reference) and that is alive */
static struct kfd_fake_proc *kfd_tenant_proc_add(struct kunit *test,
						 struct kfd_fake_node *fake)
{
	struct kfd_fake_proc *fp = kfd_fake_proc_add(fake);

	KUNIT_ASSERT_NOT_NULL(test, fp);
	kref_init(&fp->p->ref);
	fp->p->mm = &kfd_tenant_mm;
	return fp;
}

/*
 * @op as the controller @owner on @n fake processes, every GPU of theirs
 * (or @gpu_id if nonzero); returns as the ioctl: 0 or the first failing
 * target's errno, or the call's error.
 */
static int kfd_tenant_call_as(struct file *owner, struct kfd_fake_proc **fps,
			      unsigned int n, u32 op, u32 gpu_id, s32 *status,
			      u64 *wait_ns)
{
	struct kfd_ioctl_tenant_ctl_args args = {
		.op = op,
		.flags = gpu_id ? 0 : KFD_IOC_TENANT_FLAG_ALL_GPUS,
		.gpu_id = gpu_id,
	};
	struct kfd_tenant_target tg[8] = {};
	s32 st[8] = {};
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++)
		tg[i].p = fps[i]->p;
	ret = kfd_tenant_ctl_targets(owner, tg, n, &args, st, NULL);
	if (status)
		memcpy(status, st, n * sizeof(*st));
	if (wait_ns)
		*wait_ns = args.wait_ns;
	for (i = 0; i < n && !ret; i++)
		ret = st[i];
	return ret;
}

static int kfd_tenant_call(struct kfd_fake_proc **fps, unsigned int n,
			   u32 op, u32 gpu_id, s32 *status, u64 *wait_ns)
{
	return kfd_tenant_call_as(KFD_TENANT_A, fps, n, op, gpu_id, status,
				  wait_ns);
}

/* a fake process is never freed through its reference */
static void kfd_tenant_test_noop_release(struct kref *ref)
{
}

static int kfd_tenant_test_exit_fn(void *data)
{
	return 0;
}

static int kfd_tenant_one(struct kfd_fake_proc *fp, u32 op)
{
	return kfd_tenant_call(&fp, 1, op, 0, NULL, NULL);
}

/* GET_STATE of @fp as @owner: KFD_IOC_TENANT_STATE_* or -errno */
static int kfd_tenant_state_as(struct file *owner, struct kfd_fake_proc *fp)
{
	struct kfd_ioctl_tenant_ctl_args args = {
		.op = KFD_IOC_TENANT_OP_GET_STATE,
		.flags = KFD_IOC_TENANT_FLAG_ALL_GPUS,
	};
	struct kfd_tenant_target tg = { .p = fp->p };
	s32 st = 0;
	u32 state = 0;
	int ret;

	ret = kfd_tenant_ctl_targets(owner, &tg, 1, &args, &st, &state);
	return ret ? ret : st ? st : state;
}

static unsigned int kfd_tenant_runlists(struct kfd_fake_node *fake)
{
	unsigned int n;

	soft_hws_sync(&fake->hws);
	spin_lock(&fake->hws.lock);
	n = fake->hws.runlists;
	spin_unlock(&fake->hws.lock);
	return n;
}

/*
 * Suspend two of three processes in one call: one preemption cycle (one
 * unmap, one runlist) for both, stock and queued; their queues are off
 * the HWS, the third's stay. A second suspend and a resume without
 * suspend change nothing and cost no cycle.
 */
static void kfd_dqm_test_tenant_suspend_resume(struct kunit *test)
{
	const struct kfd_dqm_param *param = test->param_value;
	struct kfd_fake_proc *fp[3];
	struct kfd_fake_node *fake;
	unsigned int i, unmaps, runlists;
	struct queue *q[3][2];
	s32 status[2];
	u64 wait_ns;

	fake = kfd_dqm_setup(test, param->model, param->queued, 50);
	for (i = 0; i < 3; i++) {
		fp[i] = kfd_tenant_proc_add(test, fake);
		q[i][0] = kfd_dqm_mkq(test, fake, fp[i], KFD_QUEUE_TYPE_COMPUTE);
		q[i][1] = kfd_dqm_mkq(test, fake, fp[i], KFD_QUEUE_TYPE_SDMA);
	}
	kfd_dqm_check(test, fake);
	unmaps = kfd_dqm_unmaps(fake);
	runlists = kfd_tenant_runlists(fake);

	status[0] = status[1] = 1;
	KUNIT_EXPECT_EQ(test, kfd_tenant_call(fp, 2, KFD_IOC_TENANT_OP_SUSPEND,
					      0, status, &wait_ns), 0);
	KUNIT_EXPECT_EQ(test, status[0], 0);
	KUNIT_EXPECT_EQ(test, status[1], 0);
	KUNIT_EXPECT_EQ_MSG(test, kfd_dqm_unmaps(fake) - unmaps, 1,
			    "one preemption for two processes");
	KUNIT_EXPECT_EQ(test, kfd_tenant_runlists(fake) - runlists, 1);
	/* the soft HWS takes 50 us to preempt: the call waited for it */
	KUNIT_EXPECT_GE(test, wait_ns, 50 * NSEC_PER_USEC);
	KUNIT_EXPECT_EQ(test, kfd_dqm_mapped_of(fake, fp[0]), 0);
	KUNIT_EXPECT_EQ(test, kfd_dqm_mapped_of(fake, fp[1]), 0);
	KUNIT_EXPECT_EQ(test, kfd_dqm_mapped_of(fake, fp[2]), 2);
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_TRUE(test, fp[i]->pdd->tenant_suspended);
		KUNIT_EXPECT_EQ(test, fp[i]->pdd->qpd.evicted, 1);
		KUNIT_EXPECT_TRUE(test, q[i][0]->properties.is_evicted);
	}
	kfd_dqm_check(test, fake);

	/* double suspend: no second reference, no cycle */
	unmaps = kfd_dqm_unmaps(fake);
	KUNIT_EXPECT_EQ(test, kfd_tenant_call(fp, 2, KFD_IOC_TENANT_OP_SUSPEND,
					      0, status, &wait_ns), 0);
	KUNIT_EXPECT_EQ(test, wait_ns, 0);
	KUNIT_EXPECT_EQ(test, kfd_dqm_unmaps(fake), unmaps);
	KUNIT_EXPECT_EQ(test, fp[0]->pdd->qpd.evicted, 1);

	KUNIT_EXPECT_EQ(test, kfd_tenant_call(fp, 2, KFD_IOC_TENANT_OP_RESUME,
					      0, status, NULL), 0);
	KUNIT_EXPECT_EQ(test, kfd_dqm_unmaps(fake) - unmaps, 1);
	KUNIT_EXPECT_EQ(test, kfd_dqm_mapped_of(fake, fp[0]), 2);
	KUNIT_EXPECT_EQ(test, kfd_dqm_mapped_of(fake, fp[1]), 2);
	KUNIT_EXPECT_EQ(test, fp[0]->pdd->qpd.evicted, 0);
	KUNIT_EXPECT_FALSE(test, fp[0]->pdd->tenant_suspended);
	kfd_dqm_check(test, fake);

	/* resume without suspend: nothing, no warning about the count */
	unmaps = kfd_dqm_unmaps(fake);
	KUNIT_EXPECT_EQ(test, kfd_tenant_one(fp[2], KFD_IOC_TENANT_OP_RESUME), 0);
	KUNIT_EXPECT_EQ(test, kfd_dqm_unmaps(fake), unmaps);
	KUNIT_EXPECT_EQ(test, fp[2]->pdd->qpd.evicted, 0);
	KUNIT_EXPECT_EQ(test, kfd_dqm_mapped_of(fake, fp[2]), 2);

	for (i = 0; i < 3; i++) {
		kfd_dqm_rmq(test, fake, fp[i], q[i][0]);
		kfd_dqm_rmq(test, fake, fp[i], q[i][1]);
	}
	kfd_dqm_check(test, fake);
	kfd_dqm_teardown(test, fake);
}

/*
 * Memory eviction and tenant suspension are two references: whichever
 * comes second costs no cycle, and the queues come back only when both
 * are gone. GET_STATE tells them apart.
 */
static void kfd_dqm_test_tenant_evict(struct kunit *test)
{
	const struct kfd_dqm_param *param = test->param_value;
	struct kfd_fake_node *fake;
	struct kfd_fake_proc *fp;
	unsigned int unmaps;
	struct queue *q;
	u64 wait_ns;

	fake = kfd_dqm_setup(test, param->model, param->queued, 20);
	fp = kfd_tenant_proc_add(test, fake);
	q = kfd_dqm_mkq(test, fake, fp, KFD_QUEUE_TYPE_COMPUTE);

	/* suspend while evicted for memory */
	KUNIT_EXPECT_EQ(test, kfd_dqm_evict(fake, fp, true), 0);
	unmaps = kfd_dqm_unmaps(fake);
	KUNIT_EXPECT_EQ(test, kfd_tenant_call(&fp, 1, KFD_IOC_TENANT_OP_SUSPEND,
					      0, NULL, &wait_ns), 0);
	KUNIT_EXPECT_EQ(test, wait_ns, 0);
	KUNIT_EXPECT_EQ(test, kfd_dqm_unmaps(fake), unmaps);
	KUNIT_EXPECT_EQ(test, fp->pdd->qpd.evicted, 2);
	KUNIT_EXPECT_EQ(test, kfd_tenant_state_as(KFD_TENANT_A, fp),
			KFD_IOC_TENANT_STATE_SUSPENDED |
			KFD_IOC_TENANT_STATE_OWNED |
			KFD_IOC_TENANT_STATE_EVICTED |
			KFD_IOC_TENANT_STATE_HAS_QUEUES);
	/* the memory restore leaves the tenant's reference */
	KUNIT_EXPECT_EQ(test, kfd_dqm_evict(fake, fp, false), 0);
	KUNIT_EXPECT_EQ(test, fp->pdd->qpd.evicted, 1);
	KUNIT_EXPECT_EQ(test, kfd_dqm_mapped_of(fake, fp), 0);
	KUNIT_EXPECT_FALSE(test, q->properties.is_active);
	kfd_dqm_check(test, fake);
	KUNIT_EXPECT_EQ(test, kfd_tenant_one(fp, KFD_IOC_TENANT_OP_RESUME), 0);
	KUNIT_EXPECT_EQ(test, kfd_dqm_mapped_of(fake, fp), 1);
	kfd_dqm_check(test, fake);

	/* eviction while suspended */
	KUNIT_EXPECT_EQ(test, kfd_tenant_one(fp, KFD_IOC_TENANT_OP_SUSPEND), 0);
	unmaps = kfd_dqm_unmaps(fake);
	KUNIT_EXPECT_EQ(test, kfd_dqm_evict(fake, fp, true), 0);
	KUNIT_EXPECT_EQ(test, kfd_dqm_unmaps(fake), unmaps);
	KUNIT_EXPECT_EQ(test, kfd_dqm_evict(fake, fp, false), 0);
	KUNIT_EXPECT_EQ(test, kfd_dqm_mapped_of(fake, fp), 0);
	KUNIT_EXPECT_EQ(test, kfd_tenant_state_as(KFD_TENANT_A, fp),
			KFD_IOC_TENANT_STATE_SUSPENDED |
			KFD_IOC_TENANT_STATE_OWNED |
			KFD_IOC_TENANT_STATE_HAS_QUEUES);
	/* another controller sees the suspension, not as its own */
	KUNIT_EXPECT_EQ(test, kfd_tenant_state_as(KFD_TENANT_B, fp),
			KFD_IOC_TENANT_STATE_SUSPENDED |
			KFD_IOC_TENANT_STATE_HAS_QUEUES);
	KUNIT_EXPECT_EQ(test, kfd_tenant_one(fp, KFD_IOC_TENANT_OP_RESUME), 0);
	KUNIT_EXPECT_EQ(test, kfd_dqm_mapped_of(fake, fp), 1);
	KUNIT_EXPECT_EQ(test, fp->pdd->qpd.evicted, 0);
	kfd_dqm_check(test, fake);

	kfd_dqm_rmq(test, fake, fp, q);
	kfd_dqm_teardown(test, fake);
}

/*
 * Queues created while suspended start off the HWS and cost no cycle;
 * destroying them costs none either. With no queue left the process stays
 * suspended until RESUME, and a queue created after it runs.
 */
static void kfd_dqm_test_tenant_queues(struct kunit *test)
{
	const struct kfd_dqm_param *param = test->param_value;
	struct kfd_fake_node *fake;
	struct kfd_fake_proc *fp;
	unsigned int unmaps;
	struct queue *q[3];

	fake = kfd_dqm_setup(test, param->model, param->queued, 20);
	fp = kfd_tenant_proc_add(test, fake);
	q[0] = kfd_dqm_mkq(test, fake, fp, KFD_QUEUE_TYPE_COMPUTE);
	KUNIT_EXPECT_EQ(test, kfd_tenant_one(fp, KFD_IOC_TENANT_OP_SUSPEND), 0);

	unmaps = kfd_dqm_unmaps(fake);
	q[1] = kfd_dqm_mkq(test, fake, fp, KFD_QUEUE_TYPE_COMPUTE);
	q[2] = kfd_dqm_mkq(test, fake, fp, KFD_QUEUE_TYPE_SDMA);
	KUNIT_EXPECT_FALSE(test, q[1]->properties.is_active);
	KUNIT_EXPECT_TRUE(test, q[2]->properties.is_evicted);
	KUNIT_EXPECT_EQ(test, kfd_dqm_mapped_of(fake, fp), 0);
	kfd_dqm_check(test, fake);
	kfd_dqm_rmq(test, fake, fp, q[0]);
	kfd_dqm_rmq(test, fake, fp, q[1]);
	kfd_dqm_rmq(test, fake, fp, q[2]);
	KUNIT_EXPECT_EQ(test, kfd_dqm_unmaps(fake), unmaps);
	kfd_dqm_check(test, fake);

	/* no queue, but suspended: SUSPEND is still accepted, a no-op */
	KUNIT_EXPECT_EQ(test, kfd_tenant_one(fp, KFD_IOC_TENANT_OP_SUSPEND), 0);
	q[0] = kfd_dqm_mkq(test, fake, fp, KFD_QUEUE_TYPE_COMPUTE);
	KUNIT_EXPECT_EQ(test, kfd_dqm_mapped_of(fake, fp), 0);
	KUNIT_EXPECT_EQ(test, kfd_tenant_one(fp, KFD_IOC_TENANT_OP_RESUME), 0);
	KUNIT_EXPECT_EQ(test, kfd_dqm_mapped_of(fake, fp), 1);
	kfd_dqm_check(test, fake);
	kfd_dqm_rmq(test, fake, fp, q[0]);

	/*
	 * no queue, not suspended: SUSPEND succeeds (it got -ENOENT, racing
	 * with the first queue), and that queue starts suspended
	 */
	unmaps = kfd_dqm_unmaps(fake);
	KUNIT_EXPECT_EQ(test, kfd_tenant_one(fp, KFD_IOC_TENANT_OP_SUSPEND), 0);
	KUNIT_EXPECT_TRUE(test, fp->pdd->tenant_suspended);
	KUNIT_EXPECT_EQ(test, fp->pdd->qpd.evicted, 1);
	KUNIT_EXPECT_EQ(test, kfd_tenant_state_as(KFD_TENANT_A, fp),
			KFD_IOC_TENANT_STATE_SUSPENDED |
			KFD_IOC_TENANT_STATE_OWNED);
	q[0] = kfd_dqm_mkq(test, fake, fp, KFD_QUEUE_TYPE_COMPUTE);
	KUNIT_EXPECT_FALSE(test, q[0]->properties.is_active);
	KUNIT_EXPECT_EQ(test, kfd_dqm_mapped_of(fake, fp), 0);
	KUNIT_EXPECT_EQ(test, kfd_dqm_unmaps(fake), unmaps);
	kfd_dqm_check(test, fake);
	KUNIT_EXPECT_EQ(test, kfd_tenant_one(fp, KFD_IOC_TENANT_OP_RESUME), 0);
	KUNIT_EXPECT_EQ(test, kfd_dqm_mapped_of(fake, fp), 1);
	kfd_dqm_check(test, fake);
	kfd_dqm_rmq(test, fake, fp, q[0]);
	/* resume of a process with no queue, not suspended: 0 */
	KUNIT_EXPECT_EQ(test, kfd_tenant_one(fp, KFD_IOC_TENANT_OP_RESUME), 0);
	kfd_dqm_teardown(test, fake);
}

/*
 * A suspended process exits: termination removes its inactive queues and
 * needs no resume (here nothing is mapped, so no preemption either); a
 * later call naming it gets -ESRCH for it and changes the others.
 */
static void kfd_dqm_test_tenant_exit(struct kunit *test)
{
	const struct kfd_dqm_param *param = test->param_value;
	struct kfd_fake_proc *fp[2];
	struct kfd_fake_node *fake;
	unsigned int i, unmaps;
	struct queue *q[2][2];
	s32 status[2];

	fake = kfd_dqm_setup(test, param->model, param->queued, 20);
	for (i = 0; i < 2; i++) {
		fp[i] = kfd_tenant_proc_add(test, fake);
		q[i][0] = kfd_dqm_mkq(test, fake, fp[i], KFD_QUEUE_TYPE_COMPUTE);
		q[i][1] = kfd_dqm_mkq(test, fake, fp[i], KFD_QUEUE_TYPE_SDMA);
	}
	KUNIT_EXPECT_EQ(test, kfd_tenant_call(fp, 2, KFD_IOC_TENANT_OP_SUSPEND,
					      0, status, NULL), 0);
	unmaps = kfd_dqm_unmaps(fake);
	KUNIT_EXPECT_EQ(test, kfd_fake_proc_terminate(fake, fp[0]), 0);
	/* as kfd_process_dequeue_from_device() */
	fp[0]->pdd->already_dequeued = true;
	uninit_queue(q[0][0]);
	uninit_queue(q[0][1]);
	KUNIT_EXPECT_EQ(test, kfd_dqm_unmaps(fake), unmaps);
	kfd_dqm_check(test, fake);

	status[0] = status[1] = 1;
	KUNIT_EXPECT_EQ(test, kfd_tenant_call(fp, 2, KFD_IOC_TENANT_OP_RESUME,
					      0, status, NULL), -ESRCH);
	KUNIT_EXPECT_EQ(test, status[0], -ESRCH);
	KUNIT_EXPECT_EQ(test, status[1], 0);
	KUNIT_EXPECT_EQ(test, kfd_dqm_mapped_of(fake, fp[1]), 2);
	kfd_dqm_check(test, fake);

	/*
	 * Exiting, not yet terminated (6.12 terminates the queues when the
	 * last reference goes): the mm is gone (p->mm = NULL, as
	 * kfd_process_notifier_release_internal() does after it cancelled
	 * restore_work). RESUME is refused and maps nothing; the suspension
	 * leaves its owner, so that the owner's release does not retry it.
	 */
	KUNIT_EXPECT_EQ(test, kfd_tenant_one(fp[1], KFD_IOC_TENANT_OP_SUSPEND), 0);
	unmaps = kfd_dqm_unmaps(fake);
	fp[1]->p->mm = NULL;
	KUNIT_EXPECT_EQ(test, kfd_tenant_one(fp[1], KFD_IOC_TENANT_OP_RESUME),
			-ESRCH);
	KUNIT_EXPECT_EQ(test, kfd_dqm_mapped_of(fake, fp[1]), 0);
	KUNIT_EXPECT_EQ(test, kfd_dqm_unmaps(fake), unmaps);
	KUNIT_EXPECT_EQ(test, fp[1]->pdd->qpd.evicted, 1);
	KUNIT_EXPECT_NULL(test, fp[1]->pdd->tenant_owner);
	KUNIT_EXPECT_EQ(test, kfd_tenant_one(fp[1], KFD_IOC_TENANT_OP_SUSPEND),
			-ESRCH);
	KUNIT_EXPECT_EQ(test, kfd_tenant_state_as(KFD_TENANT_A, fp[1]), -ESRCH);
	kfd_dqm_check(test, fake);
	kfd_dqm_rmq(test, fake, fp[1], q[1][0]);
	kfd_dqm_rmq(test, fake, fp[1], q[1][1]);
	kfd_dqm_teardown(test, fake);
}

/*
 * A hung preemption: the fence times out, the caller gets -ETIME and the
 * target's status says so, a GPU reset is asked, and the suspension stays
 * recorded (the queues are off for the driver; RESUME after the reset
 * maps them). A reset in progress: -EIO, the same state.
 */
static void kfd_dqm_test_tenant_hang(struct kunit *test)
{
	const struct kfd_dqm_param *param = test->param_value;
	int saved_timeout = queue_preemption_timeout_ms;
	struct device_queue_manager *dqm;
	struct kfd_fake_proc *fp[2];
	struct kfd_fake_node *fake;
	struct queue *q[2];
	unsigned int i;
	s32 status;

	fake = kfd_dqm_setup(test, param->model, param->queued, 20);
	dqm = fake->dqm;
	for (i = 0; i < 2; i++) {
		fp[i] = kfd_tenant_proc_add(test, fake);
		q[i] = kfd_dqm_mkq(test, fake, fp[i], KFD_QUEUE_TYPE_COMPUTE);
	}

	queue_preemption_timeout_ms = 50;
	soft_hws_set(&fake->hws, 20, SOFT_HWS_INJECT_HANG, 0, 0);
	KUNIT_EXPECT_EQ(test, kfd_tenant_call(&fp[0], 1,
					      KFD_IOC_TENANT_OP_SUSPEND, 0,
					      &status, NULL), -ETIME);
	KUNIT_EXPECT_EQ(test, status, -ETIME);
	KUNIT_EXPECT_TRUE(test, fp[0]->pdd->tenant_suspended);
	KUNIT_EXPECT_EQ(test, fp[0]->pdd->qpd.evicted, 1);
	KUNIT_EXPECT_FALSE(test, q[0]->properties.is_active);
	flush_work(kfd_fake_hw_exception_work(fake));
	KUNIT_EXPECT_EQ(test, atomic_read(&fake->gpu_resets), 1);

	/* the GPU reset, as kfd_dqm_test_hws_hang */
	soft_hws_reset(&fake->hws);
	dqm->active_runlist = false;
	pm_release_ib(&dqm->packet_mgr);
	queue_preemption_timeout_ms = saved_timeout;
	soft_hws_set(&fake->hws, 20, SOFT_HWS_INJECT_NONE, 0, 0);
	KUNIT_EXPECT_EQ(test, kfd_tenant_one(fp[0], KFD_IOC_TENANT_OP_RESUME), 0);
	KUNIT_EXPECT_TRUE(test, q[0]->properties.is_active);
	fp[0]->pdd->has_reset_queue = false;
	fp[0]->pdd->qpd.reset_wavefronts = false;
	kfd_dqm_check(test, fake);

	/* a reset in progress holds the reset domain: -EIO, state recorded */
	down_write(&fake->adev->reset_domain->sem);
	KUNIT_EXPECT_EQ(test, kfd_tenant_call(&fp[1], 1,
					      KFD_IOC_TENANT_OP_SUSPEND, 0,
					      &status, NULL), -EIO);
	up_write(&fake->adev->reset_domain->sem);
	KUNIT_EXPECT_EQ(test, status, -EIO);
	KUNIT_EXPECT_TRUE(test, fp[1]->pdd->tenant_suspended);
	KUNIT_EXPECT_FALSE(test, q[1]->properties.is_active);
	KUNIT_EXPECT_EQ(test, kfd_tenant_one(fp[1], KFD_IOC_TENANT_OP_RESUME), 0);
	kfd_dqm_check(test, fake);

	for (i = 0; i < 2; i++)
		kfd_dqm_rmq(test, fake, fp[i], q[i]);
	kfd_dqm_check(test, fake);
	kfd_dqm_teardown(test, fake);
}

/*
 * Per-queue reset: one queue of the process fails the suspend's
 * preemption (the MEC reports it through the HIQ MQD); it is reset alone,
 * no GPU reset. The target's status (and the call) -EIO: that queue's
 * waves were killed, not saved.
 */
static void kfd_dqm_test_tenant_queue_reset(struct kunit *test)
{
	const struct kfd_dqm_param *param = test->param_value;
	struct kfd_fake_proc *fp, *two[2];
	struct kfd_fake_node *fake;
	struct queue *q[3];
	s32 status = 1, st[2];

	fake = kfd_dqm_setup(test, param->model, param->queued, 20);
	fp = kfd_tenant_proc_add(test, fake);
	q[0] = kfd_dqm_mkq(test, fake, fp, KFD_QUEUE_TYPE_COMPUTE);
	q[1] = kfd_dqm_mkq(test, fake, fp, KFD_QUEUE_TYPE_COMPUTE);

	soft_hws_set(&fake->hws, 20, SOFT_HWS_INJECT_FAIL_PREEMPT,
		     q[0]->properties.doorbell_off,
		     q[0]->properties.queue_address);
	KUNIT_EXPECT_EQ(test, kfd_tenant_call(&fp, 1,
					      KFD_IOC_TENANT_OP_SUSPEND, 0,
					      &status, NULL), -EIO);
	KUNIT_EXPECT_EQ(test, status, -EIO);
	flush_work(kfd_fake_hw_exception_work(fake));
	KUNIT_EXPECT_EQ(test, fake->hws.queue_resets, 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fake->gpu_resets), 0);
	KUNIT_EXPECT_TRUE(test, fp->pdd->tenant_suspended);
	KUNIT_EXPECT_EQ(test, kfd_dqm_mapped_of(fake, fp), 0);
	kfd_dqm_check(test, fake);

	/* a second suspend reports nothing new */
	KUNIT_EXPECT_EQ(test, kfd_tenant_call(&fp, 1,
					      KFD_IOC_TENANT_OP_SUSPEND, 0,
					      &status, NULL), 0);
	KUNIT_EXPECT_EQ(test, status, 0);
	/*
	 * nor in a call whose other target changes and runs a cycle: the
	 * reset process was already suspended (this was a stale -EIO)
	 */
	two[0] = fp;
	two[1] = kfd_tenant_proc_add(test, fake);
	q[2] = kfd_dqm_mkq(test, fake, two[1], KFD_QUEUE_TYPE_COMPUTE);
	st[0] = st[1] = 1;
	KUNIT_EXPECT_EQ(test, kfd_tenant_call(two, 2,
					      KFD_IOC_TENANT_OP_SUSPEND, 0,
					      st, NULL), 0);
	KUNIT_EXPECT_EQ(test, st[0], 0);
	KUNIT_EXPECT_EQ(test, st[1], 0);
	KUNIT_EXPECT_EQ(test, kfd_dqm_mapped_of(fake, two[1]), 0);
	KUNIT_EXPECT_EQ(test, kfd_tenant_call(two, 2, KFD_IOC_TENANT_OP_RESUME,
					      0, st, NULL), 0);
	kfd_dqm_check(test, fake);
	kfd_dqm_rmq(test, fake, fp, q[0]);
	kfd_dqm_rmq(test, fake, fp, q[1]);
	kfd_dqm_rmq(test, fake, two[1], q[2]);
	kfd_dqm_teardown(test, fake);
}

/*
 * CRIU checkpoint of a suspended process: the checkpoint's eviction is a
 * second reference with no cycle, the MQD dump works on the preempted
 * queue, and the checkpoint's restore leaves the process suspended.
 */
static void kfd_dqm_test_tenant_checkpoint(struct kunit *test)
{
	const struct kfd_dqm_param *param = test->param_value;
	static u8 mqd[KFD_FAKE_MAX_XCC * sizeof(struct v9_mqd)], ctl[PAGE_SIZE];
	struct kfd_fake_node *fake;
	struct kfd_fake_proc *fp;
	unsigned int unmaps;
	struct queue *q;

	fake = kfd_dqm_setup(test, param->model, param->queued, 20);
	fp = kfd_tenant_proc_add(test, fake);
	q = kfd_dqm_mkq(test, fake, fp, KFD_QUEUE_TYPE_COMPUTE);
	KUNIT_EXPECT_EQ(test, kfd_tenant_one(fp, KFD_IOC_TENANT_OP_SUSPEND), 0);

	unmaps = kfd_dqm_unmaps(fake);
	KUNIT_EXPECT_EQ(test, kfd_dqm_evict(fake, fp, true), 0);
	KUNIT_EXPECT_EQ(test, fake->dqm->ops.checkpoint_mqd(fake->dqm, q, mqd,
							   ctl), 0);
	KUNIT_EXPECT_EQ(test, kfd_dqm_evict(fake, fp, false), 0);
	KUNIT_EXPECT_EQ(test, kfd_dqm_unmaps(fake), unmaps);
	KUNIT_EXPECT_EQ(test, fp->pdd->qpd.evicted, 1);
	KUNIT_EXPECT_EQ(test, kfd_dqm_mapped_of(fake, fp), 0);
	kfd_dqm_check(test, fake);
	KUNIT_EXPECT_EQ(test, kfd_tenant_one(fp, KFD_IOC_TENANT_OP_RESUME), 0);
	KUNIT_EXPECT_EQ(test, kfd_dqm_mapped_of(fake, fp), 1);
	kfd_dqm_check(test, fake);
	kfd_dqm_rmq(test, fake, fp, q);
	kfd_dqm_teardown(test, fake);
}

/*
 * GPU reset while suspended: kgd2kfd_pre_reset() evicts every process
 * (kfd_suspend_all_processes()), post-reset does not restore them. A
 * RESUME during that time drops only the tenant's reference and reports
 * -EIO and STATE_RESET, a SUSPEND adds one, neither touches the HWS; the
 * queues come back when the last reference goes (here by hand: 6.12 never
 * restores them).
 */
static void kfd_dqm_test_tenant_gpu_reset(struct kunit *test)
{
	const struct kfd_dqm_param *param = test->param_value;
	struct kfd_fake_proc *fp[2];
	struct kfd_fake_node *fake;
	unsigned int i, unmaps;
	struct queue *q[2];

	fake = kfd_dqm_setup(test, param->model, param->queued, 20);
	for (i = 0; i < 2; i++) {
		fp[i] = kfd_tenant_proc_add(test, fake);
		q[i] = kfd_dqm_mkq(test, fake, fp[i], KFD_QUEUE_TYPE_COMPUTE);
	}
	KUNIT_EXPECT_EQ(test, kfd_tenant_one(fp[0], KFD_IOC_TENANT_OP_SUSPEND), 0);
	/* the reset: every process evicted, the reset counted */
	for (i = 0; i < 2; i++)
		KUNIT_EXPECT_EQ(test, kfd_dqm_evict(fake, fp[i], true), 0);
	atomic_inc(&fake->adev->gpu_reset_counter);
	unmaps = kfd_dqm_unmaps(fake);
	/*
	 * RESUME gives the suspension back but the queues stay evicted by
	 * the reset: -EIO and STATE_RESET (it returned 0, as if they ran)
	 */
	KUNIT_EXPECT_EQ(test, kfd_tenant_one(fp[0], KFD_IOC_TENANT_OP_RESUME),
			-EIO);
	KUNIT_EXPECT_FALSE(test, fp[0]->pdd->tenant_suspended);
	KUNIT_EXPECT_EQ(test, kfd_tenant_state_as(KFD_TENANT_A, fp[0]),
			KFD_IOC_TENANT_STATE_EVICTED |
			KFD_IOC_TENANT_STATE_RESET |
			KFD_IOC_TENANT_STATE_HAS_QUEUES);
	/* RESUME again: not suspended, 0 */
	KUNIT_EXPECT_EQ(test, kfd_tenant_one(fp[0], KFD_IOC_TENANT_OP_RESUME), 0);
	/* a suspension made after the reset does not report it */
	KUNIT_EXPECT_EQ(test, kfd_tenant_one(fp[1], KFD_IOC_TENANT_OP_SUSPEND), 0);
	KUNIT_EXPECT_EQ(test, kfd_tenant_state_as(KFD_TENANT_A, fp[1]),
			KFD_IOC_TENANT_STATE_SUSPENDED |
			KFD_IOC_TENANT_STATE_OWNED |
			KFD_IOC_TENANT_STATE_EVICTED |
			KFD_IOC_TENANT_STATE_HAS_QUEUES);
	KUNIT_EXPECT_EQ(test, kfd_dqm_unmaps(fake), unmaps);
	KUNIT_EXPECT_EQ(test, fp[0]->pdd->qpd.evicted, 1);
	KUNIT_EXPECT_EQ(test, fp[1]->pdd->qpd.evicted, 2);
	kfd_dqm_check(test, fake);

	/* the reset's references go */
	for (i = 0; i < 2; i++)
		KUNIT_EXPECT_EQ(test, kfd_dqm_evict(fake, fp[i], false), 0);
	KUNIT_EXPECT_EQ(test, kfd_dqm_mapped_of(fake, fp[0]), 1);
	KUNIT_EXPECT_EQ(test, kfd_dqm_mapped_of(fake, fp[1]), 0);
	KUNIT_EXPECT_EQ(test, kfd_tenant_one(fp[1], KFD_IOC_TENANT_OP_RESUME), 0);
	KUNIT_EXPECT_EQ(test, kfd_dqm_mapped_of(fake, fp[1]), 1);
	kfd_dqm_check(test, fake);
	for (i = 0; i < 2; i++)
		kfd_dqm_rmq(test, fake, fp[i], q[i]);
	kfd_dqm_teardown(test, fake);
}

/* a tenant call in its own thread */
struct kfd_tenant_thread {
	struct kunit *test;
	struct file *owner;
	struct kfd_fake_proc **fps;
	unsigned int n;
	u32 op;
	bool signals;	/* SIGKILL may interrupt it */
	int ret;
	struct completion started;	/* signals allowed */
	struct completion done;
};

static int kfd_tenant_thread_fn(void *data)
{
	struct kfd_tenant_thread *t = data;

	current->kunit_test = t->test;
	if (t->signals)
		allow_signal(SIGKILL);
	complete(&t->started);
	t->ret = kfd_tenant_call_as(t->owner ? t->owner : KFD_TENANT_A,
				    t->fps, t->n, t->op, 0, NULL, NULL);
	current->kunit_test = NULL;
	complete(&t->done);
	return 0;
}

/*
 * Queued runlist: a suspend of four processes and another process's queue
 * create, pending together, are served by one cycle. The next cycle is
 * held back (kfd_dqm_hold()) until both are recorded.
 */
static void kfd_dqm_test_tenant_batch(struct kunit *test)
{
	const struct kfd_dqm_param *param = test->param_value;
	struct kfd_tenant_thread susp = { .op = KFD_IOC_TENANT_OP_SUSPEND };
	struct device_queue_manager *dqm;
	struct kfd_fake_proc *fp[5];
	struct completion *done[3];
	struct kfd_fake_node *fake;
	struct task_struct *t;
	struct kfd_dqm_op op;
	unsigned int i, unmaps;
	struct queue *q[4];
	u64 cycles;
	long timeout;

	fake = kfd_dqm_setup(test, param->model, param->queued, 50);
	dqm = fake->dqm;
	for (i = 0; i < 5; i++) {
		fp[i] = kfd_tenant_proc_add(test, fake);
		if (i < 4)
			q[i] = kfd_dqm_mkq(test, fake, fp[i],
					   KFD_QUEUE_TYPE_COMPUTE);
	}
	unmaps = kfd_dqm_unmaps(fake);
	cycles = dqm->mp_rlq.cycles;

	timeout = kfd_dqm_hold(dqm);
	kfd_dqm_op_start(test, &op, fake, fp[4], true, KFD_QUEUE_TYPE_COMPUTE,
			 NULL);
	done[0] = &op.done;
	done[1] = NULL;
	KUNIT_EXPECT_TRUE_MSG(test, kfd_dqm_wait_pending(dqm, 1, done),
			      "interleaving not reached: create not pending");
	susp.test = test;
	susp.fps = fp;
	susp.n = 4;
	init_completion(&susp.done);
	init_completion(&susp.started);
	t = kthread_run(kfd_tenant_thread_fn, &susp, "kfd_tenant");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	done[1] = &susp.done;
	done[2] = NULL;
	KUNIT_EXPECT_TRUE_MSG(test, kfd_dqm_wait_pending(dqm, 2, done),
			      "interleaving not reached: suspend not pending");
	kfd_dqm_unhold(dqm, timeout);
	wait_for_completion(&op.done);
	wait_for_completion(&susp.done);

	KUNIT_EXPECT_EQ(test, op.ret, 0);
	KUNIT_EXPECT_EQ(test, susp.ret, 0);
	KUNIT_EXPECT_EQ(test, dqm->mp_rlq.cycles - cycles, 1);
	KUNIT_EXPECT_EQ_MSG(test, kfd_dqm_unmaps(fake) - unmaps, 1,
			    "one preemption for a create and four suspends");
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, kfd_dqm_mapped_of(fake, fp[i]), 0);
	KUNIT_EXPECT_EQ(test, kfd_dqm_mapped_of(fake, fp[4]), 1);
	kfd_dqm_check(test, fake);

	KUNIT_EXPECT_EQ(test, kfd_tenant_call(fp, 4, KFD_IOC_TENANT_OP_RESUME,
					      0, NULL, NULL), 0);
	kfd_dqm_check(test, fake);
	for (i = 0; i < 4; i++)
		kfd_dqm_rmq(test, fake, fp[i], q[i]);
	if (!op.ret)
		kfd_dqm_rmq(test, fake, fp[4], op.q);
	kfd_dqm_teardown(test, fake);
}

/*
 * Targets that fail their checks get their errno and change nothing (no
 * reference, no cycle, queues as before); the others change. The same
 * process named twice is changed once and both get its result.
 */
static void kfd_dqm_test_tenant_bad_input(struct kunit *test)
{
	const struct kfd_dqm_param *param = test->param_value;
	struct kfd_fake_proc *fp[2], *two[2];
	struct kfd_fake_node *fake;
	unsigned int unmaps;
	struct queue *q;
	s32 status[2];

	fake = kfd_dqm_setup(test, param->model, param->queued, 20);
	fp[0] = kfd_tenant_proc_add(test, fake);
	fp[1] = kfd_tenant_proc_add(test, fake);
	fp[0]->pdd->user_gpu_id = KFD_TENANT_TEST_GPU;
	fp[1]->pdd->user_gpu_id = KFD_TENANT_TEST_GPU;
	q = kfd_dqm_mkq(test, fake, fp[0], KFD_QUEUE_TYPE_COMPUTE);
	unmaps = kfd_dqm_unmaps(fake);

	/* a GPU that is not the process's: -EINVAL, nothing changed */
	status[0] = status[1] = 1;
	KUNIT_EXPECT_EQ(test, kfd_tenant_call(fp, 2, KFD_IOC_TENANT_OP_SUSPEND,
					      KFD_TENANT_TEST_GPU + 1, status,
					      NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, status[0], -EINVAL);
	KUNIT_EXPECT_EQ(test, status[1], -EINVAL);
	KUNIT_EXPECT_FALSE(test, fp[0]->pdd->tenant_suspended);
	KUNIT_EXPECT_EQ(test, fp[0]->pdd->qpd.evicted, 0);
	KUNIT_EXPECT_EQ(test, kfd_dqm_unmaps(fake), unmaps);
	KUNIT_EXPECT_EQ(test, kfd_dqm_mapped_of(fake, fp[0]), 1);
	/* an exited process (no reference to be had): -ESRCH, the other runs */
	kref_put(&fp[1]->p->ref, kfd_tenant_test_noop_release);
	status[0] = status[1] = 1;
	KUNIT_EXPECT_EQ(test, kfd_tenant_call(fp, 2, KFD_IOC_TENANT_OP_SUSPEND,
					      KFD_TENANT_TEST_GPU, status,
					      NULL), -ESRCH);
	KUNIT_EXPECT_EQ(test, status[0], 0);
	KUNIT_EXPECT_EQ(test, status[1], -ESRCH);
	KUNIT_EXPECT_TRUE(test, fp[0]->pdd->tenant_suspended);
	KUNIT_EXPECT_EQ(test, kfd_tenant_one(fp[0], KFD_IOC_TENANT_OP_RESUME), 0);
	kref_init(&fp[1]->p->ref);
	/* the same process twice: one reference, both statuses 0 */
	two[0] = two[1] = fp[0];
	status[0] = status[1] = 1;
	KUNIT_EXPECT_EQ(test, kfd_tenant_call(two, 2, KFD_IOC_TENANT_OP_SUSPEND,
					      0, status, NULL), 0);
	KUNIT_EXPECT_EQ(test, status[0], 0);
	KUNIT_EXPECT_EQ(test, status[1], 0);
	KUNIT_EXPECT_EQ(test, fp[0]->pdd->qpd.evicted, 1);
	KUNIT_EXPECT_EQ(test, kfd_tenant_call(two, 2, KFD_IOC_TENANT_OP_RESUME,
					      0, status, NULL), 0);
	KUNIT_EXPECT_EQ(test, fp[0]->pdd->qpd.evicted, 0);
	/* the calls' references are all given back */
	KUNIT_EXPECT_EQ(test, kref_read(&fp[0]->p->ref), 1);
	KUNIT_EXPECT_EQ(test, kfd_tenant_state_as(KFD_TENANT_A, fp[0]),
			KFD_IOC_TENANT_STATE_HAS_QUEUES);
	KUNIT_EXPECT_EQ(test, q->properties.priority, 7);
	kfd_dqm_check(test, fake);
	kfd_dqm_rmq(test, fake, fp[0], q);
	kfd_dqm_teardown(test, fake);
}

/*
 * Two controllers: a suspension belongs to the file that made it. The
 * other gets -EBUSY for SUSPEND and RESUME and sees it as not its own;
 * the owner's release (its /dev/kfd closed: it exited or was killed)
 * resumes everything it suspended, and nothing of the other's.
 */
static void kfd_dqm_test_tenant_owner(struct kunit *test)
{
	const struct kfd_dqm_param *param = test->param_value;
	struct kfd_fake_proc *fp[3];
	struct kfd_fake_node *fake;
	unsigned int i;
	struct queue *q[3];
	s32 status[2];

	fake = kfd_dqm_setup(test, param->model, param->queued, 20);
	for (i = 0; i < 3; i++) {
		fp[i] = kfd_tenant_proc_add(test, fake);
		q[i] = kfd_dqm_mkq(test, fake, fp[i], KFD_QUEUE_TYPE_COMPUTE);
	}
	KUNIT_EXPECT_EQ(test, kfd_tenant_call_as(KFD_TENANT_A, fp, 2,
						 KFD_IOC_TENANT_OP_SUSPEND, 0,
						 status, NULL), 0);
	KUNIT_EXPECT_EQ(test, kfd_tenant_call_as(KFD_TENANT_B, &fp[2], 1,
						 KFD_IOC_TENANT_OP_SUSPEND, 0,
						 NULL, NULL), 0);
	/* B cannot take or give back A's */
	KUNIT_EXPECT_EQ(test, kfd_tenant_call_as(KFD_TENANT_B, fp, 1,
						 KFD_IOC_TENANT_OP_SUSPEND, 0,
						 NULL, NULL), -EBUSY);
	KUNIT_EXPECT_EQ(test, kfd_tenant_call_as(KFD_TENANT_B, fp, 2,
						 KFD_IOC_TENANT_OP_RESUME, 0,
						 status, NULL), -EBUSY);
	KUNIT_EXPECT_EQ(test, status[0], -EBUSY);
	KUNIT_EXPECT_EQ(test, status[1], -EBUSY);
	KUNIT_EXPECT_EQ(test, fp[0]->pdd->qpd.evicted, 1);
	KUNIT_EXPECT_EQ(test, kfd_tenant_state_as(KFD_TENANT_B, fp[0]),
			KFD_IOC_TENANT_STATE_SUSPENDED |
			KFD_IOC_TENANT_STATE_HAS_QUEUES);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, kfd_dqm_mapped_of(fake, fp[i]), 0);
	kfd_dqm_check(test, fake);

	/* A is killed: its file's release resumes its two, not B's */
	kfd_tenant_release(KFD_TENANT_A);
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_EQ(test, kfd_dqm_mapped_of(fake, fp[i]), 1);
		KUNIT_EXPECT_FALSE(test, fp[i]->pdd->tenant_suspended);
		KUNIT_EXPECT_EQ(test, fp[i]->pdd->qpd.evicted, 0);
		KUNIT_EXPECT_NULL(test, fp[i]->pdd->tenant_owner);
		KUNIT_EXPECT_EQ(test, kref_read(&fp[i]->p->ref), 1);
	}
	KUNIT_EXPECT_EQ(test, kfd_dqm_mapped_of(fake, fp[2]), 0);
	KUNIT_EXPECT_PTR_EQ(test, fp[2]->pdd->tenant_owner, KFD_TENANT_B);
	kfd_dqm_check(test, fake);
	/* B may now take them */
	KUNIT_EXPECT_EQ(test, kfd_tenant_call_as(KFD_TENANT_B, fp, 1,
						 KFD_IOC_TENANT_OP_SUSPEND, 0,
						 NULL, NULL), 0);
	/*
	 * B's tenant fp[2] exits while suspended: its termination takes it
	 * off B's list; B's release resumes the rest.
	 */
	KUNIT_EXPECT_EQ(test, kfd_fake_proc_terminate(fake, fp[2]), 0);
	fp[2]->pdd->already_dequeued = true;
	uninit_queue(q[2]);
	KUNIT_EXPECT_NULL(test, fp[2]->pdd->tenant_owner);
	kfd_tenant_release(KFD_TENANT_B);
	KUNIT_EXPECT_EQ(test, kfd_dqm_mapped_of(fake, fp[0]), 1);
	KUNIT_EXPECT_EQ(test, fp[0]->pdd->qpd.evicted, 0);
	/* releasing a file that holds nothing changes nothing */
	kfd_tenant_release(KFD_TENANT_A);
	kfd_dqm_check(test, fake);
	for (i = 0; i < 2; i++)
		kfd_dqm_rmq(test, fake, fp[i], q[i]);
	kfd_dqm_teardown(test, fake);
}

/* the soft HWS hangs the next preemption; a fence timeout of @ms */
static void kfd_tenant_hang_next(struct kfd_fake_node *fake, int ms)
{
	queue_preemption_timeout_ms = ms;
	soft_hws_set(&fake->hws, 20, SOFT_HWS_INJECT_HANG, 0, 0);
}

/* the GPU reset after a hang, by hand as kfd_dqm_test_tenant_hang */
static void kfd_tenant_hand_reset(struct kfd_fake_node *fake,
				  int saved_timeout)
{
	struct device_queue_manager *dqm = fake->dqm;

	flush_work(kfd_fake_hw_exception_work(fake));
	soft_hws_reset(&fake->hws);
	dqm->active_runlist = false;
	pm_release_ib(&dqm->packet_mgr);
	queue_preemption_timeout_ms = saved_timeout;
	soft_hws_set(&fake->hws, 20, SOFT_HWS_INJECT_NONE, 0, 0);
}

static bool kfd_tenant_waiting(struct device_queue_manager *dqm)
{
	unsigned int i;

	for (i = 0; i < 4000; i++) {
		if (!list_empty(&dqm->mp_tenant_calls))
			return true;
		usleep_range(500, 1000);
	}
	return false;
}

/*
 * While a SUSPEND waits for a hung preemption (3 s here, 9 s and more per
 * GPU on hardware), it holds no reference of its target: a target that
 * exits meanwhile is released, not held back until the call returns
 * (the call kept every reference to its end). Its status says -ESRCH if
 * its termination ran meanwhile.
 */
static void kfd_dqm_test_tenant_no_pin(struct kunit *test)
{
	const struct kfd_dqm_param *param = test->param_value;
	int saved_timeout = queue_preemption_timeout_ms;
	struct kfd_tenant_thread susp = { .op = KFD_IOC_TENANT_OP_SUSPEND };
	struct kfd_fake_proc *fp[2];
	struct kfd_fake_node *fake;
	struct task_struct *t;
	struct queue *q[2];
	unsigned int i;

	fake = kfd_dqm_setup(test, param->model, param->queued, 20);
	for (i = 0; i < 2; i++) {
		fp[i] = kfd_tenant_proc_add(test, fake);
		q[i] = kfd_dqm_mkq(test, fake, fp[i], KFD_QUEUE_TYPE_COMPUTE);
	}
	kfd_tenant_hang_next(fake, 3000);
	susp.test = test;
	susp.fps = fp;
	susp.n = 2;
	init_completion(&susp.done);
	init_completion(&susp.started);
	t = kthread_run(kfd_tenant_thread_fn, &susp, "kfd_tenant");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	KUNIT_EXPECT_TRUE_MSG(test, kfd_tenant_waiting(fake->dqm),
			      "the call did not reach its preemption");
	KUNIT_EXPECT_FALSE(test, completion_done(&susp.done));
	for (i = 0; i < 2; i++)
		KUNIT_EXPECT_EQ_MSG(test, kref_read(&fp[i]->p->ref), 1,
				    "the call pins process %u while it waits",
				    i);
	KUNIT_ASSERT_TRUE_MSG(test, wait_for_completion_timeout(&susp.done,
								60 * HZ) > 0,
			      "the call did not return");
	KUNIT_EXPECT_EQ(test, susp.ret, -ETIME);
	KUNIT_EXPECT_TRUE(test, list_empty(&fake->dqm->mp_tenant_calls));
	kfd_tenant_hand_reset(fake, saved_timeout);
	KUNIT_EXPECT_EQ(test, kfd_tenant_call(fp, 2, KFD_IOC_TENANT_OP_RESUME,
					      0, NULL, NULL), 0);
	for (i = 0; i < 2; i++) {
		fp[i]->pdd->has_reset_queue = false;
		fp[i]->pdd->qpd.reset_wavefronts = false;
	}
	kfd_dqm_check(test, fake);
	for (i = 0; i < 2; i++)
		kfd_dqm_rmq(test, fake, fp[i], q[i]);
	kfd_dqm_teardown(test, fake);
}

/*
 * The tenant lock is per GPU and interruptible. While a SUSPEND waits for
 * a hung preemption on this GPU (10 s: long enough for the checks on a
 * loaded machine), a call whose target has no device here is answered at
 * once (one global mutex held it back for the whole hang), and a second
 * call on this GPU waits for its lock and a signal ends it with -EINTR
 * and nothing changed (it waited uninterruptibly and then suspended its
 * target; with mutex_lock_interruptible(), a waiter that the signal woke
 * spun on the holder, busy in the fence wait, until the hang ended, and
 * then took the lock: -ETIME after 20 s, now and then under load).
 */
static void kfd_dqm_test_tenant_lock(struct kunit *test)
{
	const struct kfd_dqm_param *param = test->param_value;
	int saved_timeout = queue_preemption_timeout_ms;
	struct kfd_tenant_thread susp = { .op = KFD_IOC_TENANT_OP_SUSPEND };
	struct kfd_tenant_thread second = { .op = KFD_IOC_TENANT_OP_SUSPEND,
					    .signals = true };
	struct kfd_fake_proc *fp[3];
	struct kfd_fake_node *fake;
	struct task_struct *t, *t2;
	struct queue *q[2];
	unsigned int i, n_pdds;
	ktime_t start;

	fake = kfd_dqm_setup(test, param->model, param->queued, 20);
	for (i = 0; i < 3; i++)
		fp[i] = kfd_tenant_proc_add(test, fake);
	for (i = 0; i < 2; i++)
		q[i] = kfd_dqm_mkq(test, fake, fp[i], KFD_QUEUE_TYPE_COMPUTE);
	/* fp[2] has no device on this GPU (nor any other) */
	n_pdds = fp[2]->p->n_pdds;
	fp[2]->p->n_pdds = 0;

	kfd_tenant_hang_next(fake, 10000);
	susp.test = test;
	susp.fps = fp;
	susp.n = 1;
	init_completion(&susp.done);
	init_completion(&susp.started);
	t = kthread_run(kfd_tenant_thread_fn, &susp, "kfd_tenant");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	KUNIT_EXPECT_TRUE_MSG(test, kfd_tenant_waiting(fake->dqm),
			      "the call did not reach its preemption");

	start = ktime_get();
	KUNIT_EXPECT_EQ(test, kfd_tenant_one(fp[2], KFD_IOC_TENANT_OP_SUSPEND),
			-ENOENT);
	KUNIT_EXPECT_FALSE_MSG(test, completion_done(&susp.done),
			       "answered only after the hung call (%lld ms)",
			       ktime_ms_delta(ktime_get(), start));

	second.test = test;
	second.fps = &fp[1];
	second.n = 1;
	init_completion(&second.done);
	init_completion(&second.started);
	t2 = kthread_create(kfd_tenant_thread_fn, &second, "kfd_tenant2");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t2));
	get_task_struct(t2);
	wake_up_process(t2);
	wait_for_completion(&second.started);
	/* until it sleeps for the GPU's tenant lock */
	for (i = 0; i < 1000 && !completion_done(&second.done) &&
	     task_state_index(t2) != fls(TASK_INTERRUPTIBLE); i++)
		usleep_range(500, 1000);
	KUNIT_EXPECT_FALSE(test, completion_done(&second.done));
	KUNIT_EXPECT_FALSE_MSG(test, completion_done(&susp.done),
			       "the hung call ended before the check");
	send_sig(SIGKILL, t2, 1);
	KUNIT_ASSERT_TRUE_MSG(test, wait_for_completion_timeout(&second.done,
								60 * HZ) > 0,
			      "the second call did not return");
	put_task_struct(t2);
	KUNIT_EXPECT_FALSE_MSG(test, completion_done(&susp.done),
			       "the second call ended only after the hung one");
	KUNIT_EXPECT_EQ(test, second.ret, -EINTR);
	KUNIT_EXPECT_FALSE(test, fp[1]->pdd->tenant_suspended);
	KUNIT_EXPECT_EQ(test, fp[1]->pdd->qpd.evicted, 0);
	KUNIT_EXPECT_EQ(test, kref_read(&fp[1]->p->ref), 1);

	KUNIT_ASSERT_TRUE_MSG(test, wait_for_completion_timeout(&susp.done,
								60 * HZ) > 0,
			      "the hung call did not return");
	KUNIT_EXPECT_EQ(test, susp.ret, -ETIME);
	kfd_tenant_hand_reset(fake, saved_timeout);
	KUNIT_EXPECT_EQ(test, kfd_tenant_one(fp[0], KFD_IOC_TENANT_OP_RESUME), 0);
	fp[0]->pdd->has_reset_queue = false;
	fp[0]->pdd->qpd.reset_wavefronts = false;
	fp[1]->pdd->has_reset_queue = false;
	fp[1]->pdd->qpd.reset_wavefronts = false;
	KUNIT_EXPECT_FALSE(test, mutex_is_locked(&fake->dqm->mp_tenant_lock));
	fp[2]->p->n_pdds = n_pdds;
	kfd_dqm_check(test, fake);
	for (i = 0; i < 2; i++)
		kfd_dqm_rmq(test, fake, fp[i], q[i]);
	kfd_dqm_teardown(test, fake);
}

/*
 * A call with nothing of its own to change (a RESUME of a target that is
 * not suspended) costs no cycle and returns 0, as in stock. With the
 * queued runlist it still flushes the request queue (an eviction of its
 * targets may wait there), and that flush may run another process's
 * cycle: here A's create, whose preemption hangs. The call returned that
 * cycle's -ETIME (dqm->mp_rlq_unmap_ret), as a nested eviction did
 * (kfd_dqm_test_nested_evict_hang). The create is held back
 * (kfd_dqm_hold()) so that it is pending when the call flushes; stock
 * runs it first.
 */
static void kfd_dqm_test_tenant_noop_hang(struct kunit *test)
{
	const struct kfd_dqm_param *param = test->param_value;
	int saved_timeout = queue_preemption_timeout_ms;
	struct kfd_fake_proc *fa, *fc, *fe;
	struct device_queue_manager *dqm;
	struct completion *done[2];
	struct kfd_fake_node *fake;
	struct kfd_dqm_op op_a;
	struct queue *qc, *qe;
	s32 status = 1;
	long timeout;
	int ret;

	fake = kfd_dqm_setup(test, param->model, param->queued, 20);
	dqm = fake->dqm;
	fa = kfd_tenant_proc_add(test, fake);
	fc = kfd_tenant_proc_add(test, fake);
	fe = kfd_tenant_proc_add(test, fake);
	/* C's queue keeps a runlist active, so A's cycle preempts */
	qc = kfd_dqm_mkq(test, fake, fc, KFD_QUEUE_TYPE_COMPUTE);
	qe = kfd_dqm_mkq(test, fake, fe, KFD_QUEUE_TYPE_COMPUTE);
	soft_hws_sync(&fake->hws);

	kfd_tenant_hang_next(fake, 200);
	if (dqm->mp_rlq_on) {
		timeout = kfd_dqm_hold(dqm);
		kfd_dqm_op_start(test, &op_a, fake, fa, true,
				 KFD_QUEUE_TYPE_COMPUTE, NULL);
		done[0] = &op_a.done;
		done[1] = NULL;
		KUNIT_EXPECT_TRUE_MSG(test, kfd_dqm_wait_pending(dqm, 1, done),
				      "interleaving not reached: A's create not pending");
		ret = kfd_tenant_call(&fe, 1, KFD_IOC_TENANT_OP_RESUME, 0,
				      &status, NULL);
		wait_for_completion(&op_a.done);
		kfd_dqm_unhold(dqm, timeout);
	} else {
		kfd_dqm_op_start(test, &op_a, fake, fa, true,
				 KFD_QUEUE_TYPE_COMPUTE, NULL);
		wait_for_completion(&op_a.done);
		ret = kfd_tenant_call(&fe, 1, KFD_IOC_TENANT_OP_RESUME, 0,
				      &status, NULL);
	}

	KUNIT_EXPECT_EQ(test, op_a.ret, -ETIME);
	KUNIT_EXPECT_EQ_MSG(test, ret, 0,
			    "the call with nothing to change returned the error of A's cycle");
	KUNIT_EXPECT_EQ(test, status, 0);
	KUNIT_EXPECT_FALSE(test, fe->pdd->tenant_suspended);
	KUNIT_EXPECT_EQ(test, fe->pdd->qpd.evicted, 0);

	/* the GPU reset by hand, as kfd_dqm_test_nested_evict_hang */
	kfd_tenant_hand_reset(fake, saved_timeout);
	kfd_dqm_rmq(test, fake, fe, qe);
	kfd_dqm_rmq(test, fake, fc, qc);
	kfd_dqm_check(test, fake);
	kfd_dqm_teardown(test, fake);
}

#ifndef PID_FS_MAGIC
static int kfd_tenant_test_pidfd_release(struct inode *inode, struct file *f)
{
	put_pid(f->private_data);
	return 0;
}

static const struct file_operations kfd_tenant_test_pidfd_fops = {
	.release = kfd_tenant_test_pidfd_release,
};

/*
 * a pidfd of @pid in this thread's file table, or -errno: before pidfs
 * (6.9) an anon inode file "[pidfd]" holding the pid, as
 * pidfd_create() makes it there
 */
static int kfd_tenant_test_pidfd(struct pid *pid)
{
	int fd = anon_inode_getfd("[pidfd]", &kfd_tenant_test_pidfd_fops,
				  get_pid(pid), O_RDWR | O_CLOEXEC);

	if (fd < 0)
		put_pid(pid);
	return fd;
}
#else
/* a pidfd of @pid in this thread's file table, or -errno */
static int kfd_tenant_test_pidfd(struct pid *pid)
{
	struct file *f;
	int fd = pidfd_prepare(pid, 0, &f);

	if (fd >= 0)
		fd_install(fd, f);
	return fd;
}
#endif

/*
 * The ioctl handler's own checks: a probe (no targets) answers 0 without
 * privilege, for each op; every op with targets needs CAP_SYS_ADMIN; bad
 * op, flags (ALL_GPUS with a gpu_id too), count; unreadable pidfds and
 * unwritable status or state; per target: -EBADF for what is not a pidfd,
 * -ENOENT for a live process without KFD (this thread), -ESRCH for one
 * that has exited.
 */
static void kfd_dqm_test_tenant_ioctl(struct kunit *test)
{
	struct kfd_ioctl_tenant_ctl_args args = {};
	struct pid *gone_pid;
	struct task_struct *gone;
	const struct cred *old;
	struct cred *cred;
	unsigned long user;
	s32 fds[3], status[3];
	u32 op;

	for (op = KFD_IOC_TENANT_OP_SUSPEND; op <= KFD_IOC_TENANT_OP_GET_STATE;
	     op++) {
		memset(&args, 0, sizeof(args));
		args.op = op;
		args.flags = KFD_IOC_TENANT_FLAG_ALL_GPUS;
		KUNIT_EXPECT_EQ(test, kfd_ioctl_tenant_ctl(NULL, NULL, &args),
				0);
	}

	/* the user memory the pidfds, the status and the state live in */
	user = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_READ | PROT_WRITE,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_TRUE_MSG(test, user && !IS_ERR_VALUE(user),
			      "no user memory");
	/* a pidfd of a task that then exits */
	gone = kthread_create(kfd_tenant_test_exit_fn, NULL, "kfd_tenant_gone");
	KUNIT_ASSERT_FALSE(test, IS_ERR(gone));
	gone_pid = get_task_pid(gone, PIDTYPE_PID);
	fds[2] = kfd_tenant_test_pidfd(gone_pid);
	wake_up_process(gone);
	KUNIT_ASSERT_GE(test, fds[2], 0);
	while (pid_has_task(gone_pid, PIDTYPE_PID))
		usleep_range(5000, 10000);
	fds[0] = -1;
	fds[1] = kfd_tenant_test_pidfd(task_pid(current));
	KUNIT_ASSERT_GE(test, fds[1], 0);
	KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)user, fds,
					   sizeof(fds)), 0);

	memset(&args, 0, sizeof(args));
	args.op = KFD_IOC_TENANT_OP_SUSPEND;
	args.flags = KFD_IOC_TENANT_FLAG_ALL_GPUS;
	args.num_targets = 3;
	args.pidfds_ptr = user;
	args.status_ptr = user + 64;

	/* without CAP_SYS_ADMIN */
	cred = prepare_creds();
	KUNIT_ASSERT_NOT_NULL(test, cred);
	cap_lower(cred->cap_effective, CAP_SYS_ADMIN);
	old = override_creds(cred);
	KUNIT_EXPECT_EQ(test, kfd_ioctl_tenant_ctl(NULL, NULL, &args), -EPERM);
	args.op = KFD_IOC_TENANT_OP_GET_STATE;
	KUNIT_EXPECT_EQ(test, kfd_ioctl_tenant_ctl(NULL, NULL, &args), -EPERM);
	args.num_targets = 0;
	KUNIT_EXPECT_EQ(test, kfd_ioctl_tenant_ctl(NULL, NULL, &args), 0);
	revert_creds(old);
	put_cred(cred);

	args.op = KFD_IOC_TENANT_OP_SUSPEND;
	args.num_targets = KFD_IOC_TENANT_MAX_TARGETS + 1;
	KUNIT_EXPECT_EQ(test, kfd_ioctl_tenant_ctl(NULL, NULL, &args), -EINVAL);
	args.num_targets = 3;
	args.op = 0;
	KUNIT_EXPECT_EQ(test, kfd_ioctl_tenant_ctl(NULL, NULL, &args), -EINVAL);
	args.op = 4;
	KUNIT_EXPECT_EQ(test, kfd_ioctl_tenant_ctl(NULL, NULL, &args), -EINVAL);
	args.op = KFD_IOC_TENANT_OP_SUSPEND;
	args.flags = 0x80;
	KUNIT_EXPECT_EQ(test, kfd_ioctl_tenant_ctl(NULL, NULL, &args), -EINVAL);
	args.flags = KFD_IOC_TENANT_FLAG_ALL_GPUS;
	args.gpu_id = 1;
	KUNIT_EXPECT_EQ(test, kfd_ioctl_tenant_ctl(NULL, NULL, &args), -EINVAL);
	args.num_targets = 0;
	KUNIT_EXPECT_EQ(test, kfd_ioctl_tenant_ctl(NULL, NULL, &args), -EINVAL);
	args.num_targets = 3;
	args.gpu_id = 0;
	args.pidfds_ptr = 0;
	KUNIT_EXPECT_EQ(test, kfd_ioctl_tenant_ctl(NULL, NULL, &args), -EFAULT);
	args.pidfds_ptr = user;
	args.status_ptr = 8;
	KUNIT_EXPECT_EQ(test, kfd_ioctl_tenant_ctl(NULL, NULL, &args), -EFAULT);
	args.status_ptr = user + 64;
	args.op = KFD_IOC_TENANT_OP_GET_STATE;
	args.state_ptr = 8;
	KUNIT_EXPECT_EQ(test, kfd_ioctl_tenant_ctl(NULL, NULL, &args), -EFAULT);
	args.state_ptr = user + 128;
	args.op = KFD_IOC_TENANT_OP_SUSPEND;

	KUNIT_EXPECT_EQ(test, kfd_ioctl_tenant_ctl(NULL, NULL, &args), -EBADF);
	KUNIT_ASSERT_EQ(test, copy_from_user(status,
					     (void __user *)(user + 64),
					     sizeof(status)), 0);
	KUNIT_EXPECT_EQ(test, status[0], -EBADF);
	KUNIT_EXPECT_EQ(test, status[1], -ENOENT);
	KUNIT_EXPECT_EQ(test, status[2], -ESRCH);
	args.op = KFD_IOC_TENANT_OP_GET_STATE;
	KUNIT_EXPECT_EQ(test, kfd_ioctl_tenant_ctl(NULL, NULL, &args), -EBADF);
	args.op = KFD_IOC_TENANT_OP_RESUME;
	KUNIT_EXPECT_EQ(test, kfd_ioctl_tenant_ctl(NULL, NULL, &args), -EBADF);
	KUNIT_EXPECT_EQ(test, args.wait_ns, 0);
	close_fd(fds[1]);
	close_fd(fds[2]);
	put_pid(gone_pid);
}

/* @fp (data) out of kfd_processes_table, if it is there */
static void kfd_tenant_unpublish(void *data)
{
	struct kfd_fake_proc *fp = data;

	mutex_lock(&kfd_processes_mutex);
	hash_del_rcu(&fp->p->kfd_processes);
	mutex_unlock(&kfd_processes_mutex);
	synchronize_srcu(&kfd_processes_srcu);
}

/*
 * @fp is the KFD process of @mm, in kfd_processes_table as
 * kfd_create_process() puts it, until kfd_tenant_unpublish()
 */
static void kfd_tenant_publish(struct kunit *test, struct kfd_fake_proc *fp,
			       struct mm_struct *mm)
{
	kfd_tenant_unpublish(fp);
	mutex_lock(&kfd_processes_mutex);
	fp->p->mm = mm;
	hash_add_rcu(kfd_processes_table, &fp->p->kfd_processes,
		     (uintptr_t)mm);
	mutex_unlock(&kfd_processes_mutex);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							kfd_tenant_unpublish,
							fp), 0);
}

/*
 * @cmd with @args through the ioctl dispatcher as @filp: the args at @user
 * (user memory), read back after the call
 */
static long kfd_tenant_dispatch(struct kunit *test, struct file *filp,
				unsigned int cmd, unsigned long user,
				struct kfd_ioctl_tenant_ctl_args *args)
{
	long ret;

	KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)user, args,
					   sizeof(*args)), 0);
	ret = kfd_chardev_test_ioctl(filp, cmd, user);
	KUNIT_ASSERT_EQ(test, copy_from_user(args, (void __user *)user,
					     sizeof(*args)), 0);
	return ret;
}

/* an s32 or u32 of user memory (0 if it cannot be read) */
static u32 kfd_tenant_user_u32(struct kunit *test, unsigned long uptr)
{
	u32 v;

	KUNIT_EXPECT_EQ(test, get_user(v, (u32 __user *)uptr), 0);
	return v;
}

/* the dispatcher's answer to a number it has no entry for */
#ifdef KFD_FAKE_NODE_ROCM
#define KFD_TENANT_NO_IOCTL	(-EINVAL)
#else
#define KFD_TENANT_NO_IOCTL	(-ENOTTY)
#endif

/* the release of a /dev/kfd file (data): what kfd_release() does of ours */
static void kfd_tenant_test_release(void *data)
{
	kfd_tenant_release(data);
}

/* the ioctl dispatcher called from another thread */
struct kfd_tenant_ioctl_thread {
	struct file *filp;
	unsigned long arg;
	long ret;
	struct completion done;
};

static int kfd_tenant_ioctl_thread_fn(void *data)
{
	struct kfd_tenant_ioctl_thread *t = data;

	t->ret = kfd_chardev_test_ioctl(t->filp, AMDKFD_IOC_TENANT_CTL, t->arg);
	complete(&t->done);
	return 0;
}

/*
 * AMDKFD_IOC_TENANT_CTL through the driver's ioctl dispatcher, kfd_ioctl()
 * (kfd_chardev_test_ioctl()), the args themselves in user memory. The
 * controller is a fake process whose lead thread is this one, and its
 * /dev/kfd file one whose private data is that process; the target is
 * the fake process of this thread's mm, named by this thread's pidfd.
 * SUSPEND takes the target's queues off the HWS and wait_ns comes back
 * through the dispatcher's copy-out; GET_STATE; RESUME maps them again.
 * The dispatcher's own answers: the file used from a thread that is not
 * its process's lead thread gets -EBADF, a number past the table -ENOTTY
 * (ROCm: -EINVAL); neither changes anything. The file's release, as
 * kfd_release(), resumes what it holds.
 */
static void kfd_dqm_test_tenant_dispatch(struct kunit *test)
{
	const struct kfd_dqm_param *param = test->param_value;
	struct kfd_tenant_ioctl_thread other = {};
	struct kfd_ioctl_tenant_ctl_args args;
	struct kfd_fake_proc *ctl, *fp, *by;
	struct kfd_fake_node *fake;
	struct task_struct *t;
	unsigned long user;
	struct queue *q[3];
	struct file *filp;
	unsigned int cmd;
	int pidfd;

	fake = kfd_dqm_setup(test, param->model, param->queued, 50);
	/* the args, pidfds, status and state; this gives the thread an mm */
	user = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_READ | PROT_WRITE,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_TRUE_MSG(test, user && !IS_ERR_VALUE(user),
			      "no user memory");
	KUNIT_ASSERT_NOT_NULL(test, current->mm);

	ctl = kfd_tenant_proc_add(test, fake);
	fp = kfd_tenant_proc_add(test, fake);
	by = kfd_tenant_proc_add(test, fake);
	q[0] = kfd_dqm_mkq(test, fake, fp, KFD_QUEUE_TYPE_COMPUTE);
	q[1] = kfd_dqm_mkq(test, fake, fp, KFD_QUEUE_TYPE_SDMA);
	q[2] = kfd_dqm_mkq(test, fake, by, KFD_QUEUE_TYPE_COMPUTE);
	kfd_tenant_publish(test, fp, current->mm);
	/*
	 * the controller's /dev/kfd, opened by this thread (kfd_open()): its
	 * lead thread is this one (kfd_fake_proc_add())
	 */
	filp = kunit_kzalloc(test, sizeof(*filp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, filp);
	filp->private_data = ctl->p;
	/* released at the end, or when the case stops early */
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							kfd_tenant_test_release,
							filp), 0);

	pidfd = kfd_tenant_test_pidfd(task_pid(current));
	KUNIT_ASSERT_GE(test, pidfd, 0);
	KUNIT_ASSERT_EQ(test, put_user(pidfd, (s32 __user *)(user + 64)), 0);
	KUNIT_ASSERT_EQ(test, put_user(1, (s32 __user *)(user + 128)), 0);
	KUNIT_ASSERT_EQ(test, put_user(~0u, (u32 __user *)(user + 192)), 0);

	args = (struct kfd_ioctl_tenant_ctl_args) {
		.pidfds_ptr = user + 64,
		.status_ptr = user + 128,
		.state_ptr = user + 192,
		.wait_ns = U64_MAX,
		.op = KFD_IOC_TENANT_OP_SUSPEND,
		.flags = KFD_IOC_TENANT_FLAG_ALL_GPUS,
		.num_targets = 1,
	};
	KUNIT_EXPECT_EQ(test, kfd_tenant_dispatch(test, filp,
						  AMDKFD_IOC_TENANT_CTL,
						  user, &args), 0);
	/* the soft HWS takes 50 us to preempt; written back by the dispatcher */
	KUNIT_EXPECT_NE(test, args.wait_ns, U64_MAX);
	KUNIT_EXPECT_GE(test, args.wait_ns, 50 * NSEC_PER_USEC);
	KUNIT_EXPECT_EQ(test, args.pidfds_ptr, (u64)user + 64);
	KUNIT_EXPECT_EQ(test, args.num_targets, 1);
	KUNIT_EXPECT_EQ(test, (s32)kfd_tenant_user_u32(test, user + 128), 0);
	KUNIT_EXPECT_EQ(test, kfd_dqm_mapped_of(fake, fp), 0);
	KUNIT_EXPECT_EQ(test, kfd_dqm_mapped_of(fake, by), 1);
	KUNIT_EXPECT_TRUE(test, fp->pdd->tenant_suspended);
	KUNIT_EXPECT_PTR_EQ(test, fp->pdd->tenant_owner, filp);
	KUNIT_EXPECT_EQ(test, fp->pdd->qpd.evicted, 1);
	KUNIT_EXPECT_EQ(test, kref_read(&fp->p->ref), 1);
	kfd_dqm_check(test, fake);

	args.op = KFD_IOC_TENANT_OP_GET_STATE;
	args.wait_ns = U64_MAX;
	KUNIT_EXPECT_EQ(test, kfd_tenant_dispatch(test, filp,
						  AMDKFD_IOC_TENANT_CTL,
						  user, &args), 0);
	KUNIT_EXPECT_EQ(test, args.wait_ns, 0);
	KUNIT_EXPECT_EQ(test, kfd_tenant_user_u32(test, user + 192),
			KFD_IOC_TENANT_STATE_SUSPENDED |
			KFD_IOC_TENANT_STATE_OWNED |
			KFD_IOC_TENANT_STATE_HAS_QUEUES);

	/* the file in a thread that is not its lead thread: -EBADF */
	args.op = KFD_IOC_TENANT_OP_RESUME;
	args.wait_ns = U64_MAX;
	KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)user, &args,
					   sizeof(args)), 0);
	other.filp = filp;
	other.arg = user;
	init_completion(&other.done);
	t = kthread_run(kfd_tenant_ioctl_thread_fn, &other, "kfd_tenant_fd");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	KUNIT_ASSERT_TRUE_MSG(test, wait_for_completion_timeout(&other.done,
								60 * HZ) > 0,
			      "the other thread's call did not return");
	KUNIT_EXPECT_EQ(test, other.ret, -EBADF);
	/* the number past the table's first range (TENANT_CTL's + 1) */
	cmd = AMDKFD_IOWR(AMDKFD_COMMAND_END, struct kfd_ioctl_tenant_ctl_args);
	KUNIT_EXPECT_EQ(test, kfd_chardev_test_ioctl(filp, cmd, user),
			KFD_TENANT_NO_IOCTL);
#ifdef KFD_FAKE_NODE_ROCM
	/* and past its second */
	cmd = AMDKFD_IOWR(AMDKFD_COMMAND_END_2,
			  struct kfd_ioctl_tenant_ctl_args);
	KUNIT_EXPECT_EQ(test, kfd_chardev_test_ioctl(filp, cmd, user), -EINVAL);
#endif
	KUNIT_ASSERT_EQ(test, copy_from_user(&args, (void __user *)user,
					     sizeof(args)), 0);
	KUNIT_EXPECT_EQ(test, args.wait_ns, U64_MAX);
	KUNIT_EXPECT_TRUE(test, fp->pdd->tenant_suspended);
	KUNIT_EXPECT_EQ(test, kfd_dqm_mapped_of(fake, fp), 0);

	KUNIT_ASSERT_EQ(test, put_user(1, (s32 __user *)(user + 128)), 0);
	KUNIT_EXPECT_EQ(test, kfd_tenant_dispatch(test, filp,
						  AMDKFD_IOC_TENANT_CTL,
						  user, &args), 0);
	KUNIT_EXPECT_NE(test, args.wait_ns, U64_MAX);
	KUNIT_EXPECT_EQ(test, (s32)kfd_tenant_user_u32(test, user + 128), 0);
	KUNIT_EXPECT_EQ(test, kfd_dqm_mapped_of(fake, fp), 2);
	KUNIT_EXPECT_FALSE(test, fp->pdd->tenant_suspended);
	KUNIT_EXPECT_NULL(test, fp->pdd->tenant_owner);
	KUNIT_EXPECT_EQ(test, fp->pdd->qpd.evicted, 0);
	kfd_dqm_check(test, fake);

	/* suspended again, the file's release resumes it */
	args.op = KFD_IOC_TENANT_OP_SUSPEND;
	KUNIT_EXPECT_EQ(test, kfd_tenant_dispatch(test, filp,
						  AMDKFD_IOC_TENANT_CTL,
						  user, &args), 0);
	KUNIT_EXPECT_EQ(test, kfd_dqm_mapped_of(fake, fp), 0);
	kunit_release_action(test, kfd_tenant_test_release, filp);
	KUNIT_EXPECT_EQ(test, kfd_dqm_mapped_of(fake, fp), 2);
	KUNIT_EXPECT_NULL(test, fp->pdd->tenant_owner);
	KUNIT_EXPECT_EQ(test, fp->pdd->qpd.evicted, 0);
	KUNIT_EXPECT_EQ(test, kref_read(&fp->p->ref), 1);
	KUNIT_EXPECT_EQ(test, kref_read(&ctl->p->ref), 1);
	kfd_dqm_check(test, fake);

	close_fd(pidfd);
	kunit_release_action(test, kfd_tenant_unpublish, fp);
	kfd_dqm_rmq(test, fake, fp, q[0]);
	kfd_dqm_rmq(test, fake, fp, q[1]);
	kfd_dqm_rmq(test, fake, by, q[2]);
	kfd_dqm_teardown(test, fake);
}

static struct kunit_case kfd_tenant_test_cases[] = {
	KUNIT_CASE_PARAM(kfd_dqm_test_tenant_suspend_resume, kfd_dqm_gen_params),
	KUNIT_CASE_PARAM(kfd_dqm_test_tenant_evict, kfd_dqm_gen_params),
	KUNIT_CASE_PARAM(kfd_dqm_test_tenant_queues, kfd_dqm_gen_params),
	KUNIT_CASE_PARAM(kfd_dqm_test_tenant_exit, kfd_dqm_gen_params),
	KUNIT_CASE_PARAM(kfd_dqm_test_tenant_hang, kfd_dqm_gen_params),
	KUNIT_CASE_PARAM(kfd_dqm_test_tenant_queue_reset, kfd_dqm_gen_params),
	KUNIT_CASE_PARAM(kfd_dqm_test_tenant_checkpoint, kfd_dqm_gen_params),
	KUNIT_CASE_PARAM(kfd_dqm_test_tenant_gpu_reset, kfd_dqm_gen_params),
	KUNIT_CASE_PARAM(kfd_dqm_test_tenant_batch, kfd_dqm_queued_gen_params),
	KUNIT_CASE_PARAM(kfd_dqm_test_tenant_bad_input, kfd_dqm_gen_params),
	KUNIT_CASE_PARAM(kfd_dqm_test_tenant_owner, kfd_dqm_gen_params),
	KUNIT_CASE_PARAM(kfd_dqm_test_tenant_no_pin, kfd_dqm_gen_params),
	KUNIT_CASE_PARAM(kfd_dqm_test_tenant_lock, kfd_dqm_gen_params),
	KUNIT_CASE_PARAM(kfd_dqm_test_tenant_noop_hang, kfd_dqm_gen_params),
	KUNIT_CASE(kfd_dqm_test_tenant_ioctl),
	KUNIT_CASE_PARAM(kfd_dqm_test_tenant_dispatch, kfd_dqm_gen_params),
	{}
};

static struct kunit_suite kfd_tenant_test_suite = {
	.name = "kfd_tenant",
	.test_cases = kfd_tenant_test_cases,
};

kunit_test_suite(kfd_tenant_test_suite);
