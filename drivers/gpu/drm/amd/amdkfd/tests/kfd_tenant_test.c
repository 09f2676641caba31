// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * KUnit tests of tenant control (AMDKFD_IOC_TENANT_CTL, kfd_mp_tenant.c)
 * on the fake MI300 node: included by kfd_dqm_test.c, whose node, software
 * HWS and helpers it uses. Each case runs stock and with the queued
 * runlist, and checks after each step that the HWS maps exactly the
 * active queues (kfd_dqm_check()).
 *
 * The cases call kfd_tenant_ctl_procs(), the function behind the ioctl,
 * with the fake processes (they have no pid); kfd_dqm_test_tenant_ioctl
 * calls the ioctl handler itself for what it checks before that: the
 * privilege, the arguments, the user memory and the pids.
 */
#include <linux/cred.h>
#include <linux/mman.h>
#include <uapi/linux/kfd_ioctl.h>

#define KFD_TENANT_TEST_GPU	0x4242

/* @op on @n fake processes, every GPU of theirs (or @gpu_id if nonzero) */
static int kfd_tenant_call(struct kfd_fake_proc **fps, unsigned int n,
			   u32 op, u32 gpu_id, s32 *status, u64 *wait_ns)
{
	struct kfd_ioctl_tenant_ctl_args args = {
		.op = op,
		.flags = gpu_id ? 0 : KFD_IOC_TENANT_FLAG_ALL_GPUS,
		.gpu_id = gpu_id,
	};
	struct kfd_process *procs[8];
	s32 st[8];
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++)
		procs[i] = fps[i]->p;
	ret = kfd_tenant_ctl_procs(procs, n, &args, status ? status : st);
	if (wait_ns)
		*wait_ns = args.wait_ns;
	return ret;
}

static int kfd_tenant_one(struct kfd_fake_proc *fp, u32 op)
{
	return kfd_tenant_call(&fp, 1, op, 0, NULL, NULL);
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
		fp[i] = kfd_fake_proc_add(fake);
		KUNIT_ASSERT_NOT_NULL(test, fp[i]);
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
	struct kfd_ioctl_tenant_ctl_args args = {
		.op = KFD_IOC_TENANT_OP_GET_STATE,
		.flags = KFD_IOC_TENANT_FLAG_ALL_GPUS,
	};
	struct kfd_fake_node *fake;
	struct kfd_fake_proc *fp;
	unsigned int unmaps;
	struct queue *q;
	u64 wait_ns;
	s32 st;

	fake = kfd_dqm_setup(test, param->model, param->queued, 20);
	fp = kfd_fake_proc_add(fake);
	KUNIT_ASSERT_NOT_NULL(test, fp);
	q = kfd_dqm_mkq(test, fake, fp, KFD_QUEUE_TYPE_COMPUTE);

	/* suspend while evicted for memory */
	KUNIT_EXPECT_EQ(test, kfd_dqm_evict(fake, fp, true), 0);
	unmaps = kfd_dqm_unmaps(fake);
	KUNIT_EXPECT_EQ(test, kfd_tenant_call(&fp, 1, KFD_IOC_TENANT_OP_SUSPEND,
					      0, NULL, &wait_ns), 0);
	KUNIT_EXPECT_EQ(test, wait_ns, 0);
	KUNIT_EXPECT_EQ(test, kfd_dqm_unmaps(fake), unmaps);
	KUNIT_EXPECT_EQ(test, fp->pdd->qpd.evicted, 2);
	KUNIT_EXPECT_EQ(test, kfd_tenant_ctl_procs(&fp->p, 1, &args, &st), 0);
	KUNIT_EXPECT_EQ(test, args.state, KFD_IOC_TENANT_STATE_SUSPENDED |
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
	KUNIT_EXPECT_EQ(test, kfd_tenant_ctl_procs(&fp->p, 1, &args, &st), 0);
	KUNIT_EXPECT_EQ(test, args.state, KFD_IOC_TENANT_STATE_SUSPENDED |
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
	fp = kfd_fake_proc_add(fake);
	KUNIT_ASSERT_NOT_NULL(test, fp);
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

	/* no queue, not suspended: ENOENT, nothing recorded */
	KUNIT_EXPECT_EQ(test, kfd_tenant_one(fp, KFD_IOC_TENANT_OP_SUSPEND),
			-ENOENT);
	KUNIT_EXPECT_FALSE(test, fp->pdd->tenant_suspended);
	KUNIT_EXPECT_EQ(test, fp->pdd->qpd.evicted, 0);
	/* resume of a process with no queue: 0 */
	KUNIT_EXPECT_EQ(test, kfd_tenant_one(fp, KFD_IOC_TENANT_OP_RESUME), 0);
	kfd_dqm_teardown(test, fake);
}

/*
 * A suspended process exits: termination removes its inactive queues and
 * needs no resume (here nothing is mapped, so no preemption either); a
 * later call naming it gets -ESRCH in its status and changes the others.
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
		fp[i] = kfd_fake_proc_add(fake);
		KUNIT_ASSERT_NOT_NULL(test, fp[i]);
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
					      0, status, NULL), 0);
	KUNIT_EXPECT_EQ(test, status[0], -ESRCH);
	KUNIT_EXPECT_EQ(test, status[1], 0);
	KUNIT_EXPECT_EQ(test, kfd_dqm_mapped_of(fake, fp[1]), 2);
	kfd_dqm_check(test, fake);
	kfd_dqm_rmq(test, fake, fp[1], q[1][0]);
	kfd_dqm_rmq(test, fake, fp[1], q[1][1]);
	kfd_dqm_teardown(test, fake);
}

/*
 * A hung preemption: the fence times out, the caller gets -ETIME and the
 * pid's status says so, a GPU reset is asked, and the suspension stays
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
		fp[i] = kfd_fake_proc_add(fake);
		KUNIT_ASSERT_NOT_NULL(test, fp[i]);
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
	flush_work(&dqm->hw_exception_work);
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
 * no GPU reset. The call returns 0, the pid's status -EIO: that queue's
 * waves were killed, not saved.
 */
static void kfd_dqm_test_tenant_queue_reset(struct kunit *test)
{
	const struct kfd_dqm_param *param = test->param_value;
	struct kfd_fake_node *fake;
	struct kfd_fake_proc *fp;
	struct queue *q[2];
	s32 status = 1;

	fake = kfd_dqm_setup(test, param->model, param->queued, 20);
	fp = kfd_fake_proc_add(fake);
	KUNIT_ASSERT_NOT_NULL(test, fp);
	q[0] = kfd_dqm_mkq(test, fake, fp, KFD_QUEUE_TYPE_COMPUTE);
	q[1] = kfd_dqm_mkq(test, fake, fp, KFD_QUEUE_TYPE_COMPUTE);

	soft_hws_set(&fake->hws, 20, SOFT_HWS_INJECT_FAIL_PREEMPT,
		     q[0]->properties.doorbell_off,
		     q[0]->properties.queue_address);
	KUNIT_EXPECT_EQ(test, kfd_tenant_call(&fp, 1,
					      KFD_IOC_TENANT_OP_SUSPEND, 0,
					      &status, NULL), 0);
	KUNIT_EXPECT_EQ(test, status, -EIO);
	flush_work(&fake->dqm->hw_exception_work);
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
	KUNIT_EXPECT_EQ(test, kfd_tenant_one(fp, KFD_IOC_TENANT_OP_RESUME), 0);
	kfd_dqm_check(test, fake);
	kfd_dqm_rmq(test, fake, fp, q[0]);
	kfd_dqm_rmq(test, fake, fp, q[1]);
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
	fp = kfd_fake_proc_add(fake);
	KUNIT_ASSERT_NOT_NULL(test, fp);
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
 * RESUME during that time drops only the tenant's reference, a SUSPEND
 * adds one, neither touches the HWS; the queues come back when the last
 * reference goes.
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
		fp[i] = kfd_fake_proc_add(fake);
		KUNIT_ASSERT_NOT_NULL(test, fp[i]);
		q[i] = kfd_dqm_mkq(test, fake, fp[i], KFD_QUEUE_TYPE_COMPUTE);
	}
	KUNIT_EXPECT_EQ(test, kfd_tenant_one(fp[0], KFD_IOC_TENANT_OP_SUSPEND), 0);
	for (i = 0; i < 2; i++)
		KUNIT_EXPECT_EQ(test, kfd_dqm_evict(fake, fp[i], true), 0);
	unmaps = kfd_dqm_unmaps(fake);
	KUNIT_EXPECT_EQ(test, kfd_tenant_one(fp[0], KFD_IOC_TENANT_OP_RESUME), 0);
	KUNIT_EXPECT_EQ(test, kfd_tenant_one(fp[1], KFD_IOC_TENANT_OP_SUSPEND), 0);
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
	struct kfd_fake_proc **fps;
	unsigned int n;
	u32 op;
	int ret;
	struct completion done;
};

static int kfd_tenant_thread_fn(void *data)
{
	struct kfd_tenant_thread *t = data;

	current->kunit_test = t->test;
	t->ret = kfd_tenant_call(t->fps, t->n, t->op, 0, NULL, NULL);
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
		fp[i] = kfd_fake_proc_add(fake);
		KUNIT_ASSERT_NOT_NULL(test, fp[i]);
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
 * Bad input to kfd_tenant_ctl_procs(): each error names the process at
 * fault, and nothing changes (no reference, no cycle, queues as before).
 */
static void kfd_dqm_test_tenant_bad_input(struct kunit *test)
{
	const struct kfd_dqm_param *param = test->param_value;
	struct kfd_ioctl_tenant_ctl_args args = {};
	struct kfd_fake_proc *fp[2], *two[2];
	struct kfd_process *procs[2];
	struct kfd_fake_node *fake;
	unsigned int unmaps;
	struct queue *q;
	s32 status[2];

	fake = kfd_dqm_setup(test, param->model, param->queued, 20);
	fp[0] = kfd_fake_proc_add(fake);
	fp[1] = kfd_fake_proc_add(fake);
	KUNIT_ASSERT_TRUE(test, fp[0] && fp[1]);
	fp[0]->pdd->user_gpu_id = KFD_TENANT_TEST_GPU;
	fp[1]->pdd->user_gpu_id = KFD_TENANT_TEST_GPU;
	q = kfd_dqm_mkq(test, fake, fp[0], KFD_QUEUE_TYPE_COMPUTE);
	unmaps = kfd_dqm_unmaps(fake);

	/* fp[1] has no queue: ENOENT, fp[0] not suspended either */
	status[0] = status[1] = 1;
	KUNIT_EXPECT_EQ(test, kfd_tenant_call(fp, 2, KFD_IOC_TENANT_OP_SUSPEND,
					      KFD_TENANT_TEST_GPU, status,
					      NULL), -ENOENT);
	KUNIT_EXPECT_EQ(test, status[0], 0);
	KUNIT_EXPECT_EQ(test, status[1], -ENOENT);
	/* a GPU that is not the process's */
	KUNIT_EXPECT_EQ(test, kfd_tenant_call(fp, 1, KFD_IOC_TENANT_OP_SUSPEND,
					      KFD_TENANT_TEST_GPU + 1, status,
					      NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, status[0], -EINVAL);
	/* the same process twice */
	two[0] = two[1] = fp[0];
	KUNIT_EXPECT_EQ(test, kfd_tenant_call(two, 2, KFD_IOC_TENANT_OP_SUSPEND,
					      0, status, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, status[1], -EINVAL);

	procs[0] = fp[0]->p;
	args.op = 9;
	KUNIT_EXPECT_EQ(test, kfd_tenant_ctl_procs(procs, 1, &args, status),
			-EINVAL);
	args.op = KFD_IOC_TENANT_OP_SUSPEND;
	args.flags = 2;
	KUNIT_EXPECT_EQ(test, kfd_tenant_ctl_procs(procs, 1, &args, status),
			-EINVAL);
	args.flags = KFD_IOC_TENANT_FLAG_ALL_GPUS;
	KUNIT_EXPECT_EQ(test, kfd_tenant_ctl_procs(procs, 0, &args, status),
			-EINVAL);
	args.op = KFD_IOC_TENANT_OP_SET_CLASS;
	args.tenant_class = 3;
	KUNIT_EXPECT_EQ(test, kfd_tenant_ctl_procs(procs, 1, &args, status),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, fp[0]->p->tenant_class, 0);

	KUNIT_EXPECT_FALSE(test, fp[0]->pdd->tenant_suspended);
	KUNIT_EXPECT_EQ(test, fp[0]->pdd->qpd.evicted, 0);
	KUNIT_EXPECT_EQ(test, kfd_dqm_unmaps(fake), unmaps);
	KUNIT_EXPECT_EQ(test, kfd_dqm_mapped_of(fake, fp[0]), 1);

	/* the class: stored, read back, not a queue priority */
	args.tenant_class = KFD_IOC_TENANT_CLASS_BEST_EFFORT;
	KUNIT_EXPECT_EQ(test, kfd_tenant_ctl_procs(procs, 1, &args, status), 0);
	args.op = KFD_IOC_TENANT_OP_GET_STATE;
	args.tenant_class = 0;
	KUNIT_EXPECT_EQ(test, kfd_tenant_ctl_procs(procs, 1, &args, status), 0);
	KUNIT_EXPECT_EQ(test, args.tenant_class,
			KFD_IOC_TENANT_CLASS_BEST_EFFORT);
	KUNIT_EXPECT_EQ(test, args.state, KFD_IOC_TENANT_STATE_HAS_QUEUES);
	KUNIT_EXPECT_EQ(test, q->properties.priority, 7);
	kfd_dqm_check(test, fake);
	kfd_dqm_rmq(test, fake, fp[0], q);
	kfd_dqm_teardown(test, fake);
}

/*
 * The ioctl handler's own checks: QUERY without privilege; every other
 * op needs CAP_SYS_ADMIN; bad counts, ops and flags; unreadable pids and
 * unwritable status; pids without a KFD process (this kthread's own, and
 * one that cannot exist) get -ESRCH in their status.
 */
static void kfd_dqm_test_tenant_ioctl(struct kunit *test)
{
	struct kfd_ioctl_tenant_ctl_args args = {};
	const struct cred *old;
	struct cred *cred;
	unsigned long user;
	u32 pids[2];
	s32 status[2];

	args.op = KFD_IOC_TENANT_OP_QUERY;
	KUNIT_EXPECT_EQ(test, kfd_ioctl_tenant_ctl(NULL, NULL, &args), 0);
	KUNIT_EXPECT_EQ(test, args.magic, KFD_IOC_TENANT_MAGIC);
	KUNIT_EXPECT_EQ(test, args.version, KFD_IOC_TENANT_VERSION);
	args.num_pids = 1;
	KUNIT_EXPECT_EQ(test, kfd_ioctl_tenant_ctl(NULL, NULL, &args), -EINVAL);

	/* the user memory the pids and the status live in */
	user = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_READ | PROT_WRITE,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_TRUE_MSG(test, user && !IS_ERR_VALUE(user),
			      "no user memory");
	pids[0] = task_pid_vnr(current);
	pids[1] = PID_MAX_LIMIT + 1;
	KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)user, pids,
					   sizeof(pids)), 0);

	memset(&args, 0, sizeof(args));
	args.op = KFD_IOC_TENANT_OP_SUSPEND;
	args.flags = KFD_IOC_TENANT_FLAG_ALL_GPUS;
	args.num_pids = 2;
	args.pids_ptr = user;
	args.status_ptr = user + 64;

	/* without CAP_SYS_ADMIN */
	cred = prepare_creds();
	KUNIT_ASSERT_NOT_NULL(test, cred);
	cap_lower(cred->cap_effective, CAP_SYS_ADMIN);
	old = override_creds(cred);
	KUNIT_EXPECT_EQ(test, kfd_ioctl_tenant_ctl(NULL, NULL, &args), -EPERM);
	args.op = KFD_IOC_TENANT_OP_QUERY;
	args.num_pids = 0;
	args.flags = 0;
	KUNIT_EXPECT_EQ(test, kfd_ioctl_tenant_ctl(NULL, NULL, &args), 0);
	revert_creds(old);
	put_cred(cred);

	args.op = KFD_IOC_TENANT_OP_SUSPEND;
	args.flags = KFD_IOC_TENANT_FLAG_ALL_GPUS;
	args.num_pids = 0;
	KUNIT_EXPECT_EQ(test, kfd_ioctl_tenant_ctl(NULL, NULL, &args), -EINVAL);
	args.num_pids = KFD_IOC_TENANT_MAX_PIDS + 1;
	KUNIT_EXPECT_EQ(test, kfd_ioctl_tenant_ctl(NULL, NULL, &args), -EINVAL);
	args.num_pids = 2;
	args.op = 5;
	KUNIT_EXPECT_EQ(test, kfd_ioctl_tenant_ctl(NULL, NULL, &args), -EINVAL);
	args.op = KFD_IOC_TENANT_OP_SUSPEND;
	args.flags = 0x80;
	KUNIT_EXPECT_EQ(test, kfd_ioctl_tenant_ctl(NULL, NULL, &args), -EINVAL);
	args.flags = KFD_IOC_TENANT_FLAG_ALL_GPUS;
	args.pids_ptr = 0;
	KUNIT_EXPECT_EQ(test, kfd_ioctl_tenant_ctl(NULL, NULL, &args), -EFAULT);
	args.pids_ptr = user;
	args.status_ptr = 8;
	KUNIT_EXPECT_EQ(test, kfd_ioctl_tenant_ctl(NULL, NULL, &args), -EFAULT);
	args.status_ptr = user + 64;

	KUNIT_EXPECT_EQ(test, kfd_ioctl_tenant_ctl(NULL, NULL, &args), -ESRCH);
	KUNIT_ASSERT_EQ(test, copy_from_user(status,
					     (void __user *)(user + 64),
					     sizeof(status)), 0);
	KUNIT_EXPECT_EQ(test, status[0], -ESRCH);
	KUNIT_EXPECT_EQ(test, status[1], -ESRCH);
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
	KUNIT_CASE(kfd_dqm_test_tenant_ioctl),
	{}
};

static struct kunit_suite kfd_tenant_test_suite = {
	.name = "kfd_tenant",
	.test_cases = kfd_tenant_test_cases,
};

kunit_test_suite(kfd_tenant_test_suite);
