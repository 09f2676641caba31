// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A fake GFX 9.4.3 KFD node; see kfd_fake_node.h. Included by
 * kfd_dqm_test.c.
 */
#include <kunit/device.h>
#include <kunit/static_stub.h>
#include <linux/vmalloc.h>
#include "amdgpu.h"

static const struct kfd_fake_model kfd_fake_mi300x = {
	.name = "MI300X SPX", .xcc_mask = 0xff, .sdma_instances = 16,
};

static const struct kfd_fake_model kfd_fake_mi308x = {
	.name = "MI308X SPX", .xcc_mask = 0x0f, .sdma_instances = 8,
};

static atomic_t kfd_fake_nodes = ATOMIC_INIT(0);

/* the one fake node of the running test, for the callbacks */
static struct kfd_fake_node *kfd_fake;

/* amdgpu_amdkfd_alloc_gtt_mem(): kernel memory at a made-up GPU address */
struct kfd_fake_gtt_bo {
	void *cpu;
	u64 gpu;
};

static atomic64_t kfd_fake_gpu_next = ATOMIC64_INIT(0x7f0000000000ULL);

static int kfd_fake_alloc_gtt_mem(struct amdgpu_device *adev, size_t size,
				  void **mem_obj, u64 *gpu_addr, void **cpu_ptr,
				  KFD_FAKE_GTT_MEM_ARGS)
{
	struct kfd_fake_gtt_bo *bo = kzalloc(sizeof(*bo), GFP_KERNEL);

	if (!bo)
		return -ENOMEM;
	bo->cpu = kvzalloc(size, GFP_KERNEL);
	if (!bo->cpu) {
		kfree(bo);
		return -ENOMEM;
	}
	bo->gpu = atomic64_add_return(ALIGN(size, PAGE_SIZE) + PAGE_SIZE,
				      &kfd_fake_gpu_next);
	*mem_obj = bo;
	*gpu_addr = bo->gpu;
	*cpu_ptr = bo->cpu;
	return 0;
}

/*
 * amdgpu_bo_free_kernel() of a process's doorbell page (the process's
 * kfd_free_process_doorbells(), or the dqm's after a hung exit): the page
 * is the fake's, only marked given back
 */
static void kfd_fake_bo_free_kernel(struct amdgpu_bo **bo, u64 *gpu_addr,
				    void **cpu_addr)
{
	struct kfd_fake_node *fake = kfd_fake;
	unsigned int i;

	if (!*bo)
		return;
	for (i = 0; i < KFD_FAKE_MAX_PROCS; i++) {
		if (*bo == &fake->procs[i].db_bo) {
			fake->procs[i].db_freed = true;
			break;
		}
	}
	KUNIT_EXPECT_LT_MSG(fake->test, i, KFD_FAKE_MAX_PROCS,
			    "amdgpu_bo_free_kernel() of a BO that is no process's doorbell page");
	*bo = NULL;
}

static void kfd_fake_free_gtt_mem(struct amdgpu_device *adev, void **mem_obj)
{
	struct kfd_fake_gtt_bo *bo = *mem_obj;

	if (!bo)
		return;
	kvfree(bo->cpu);
	kfree(bo);
	*mem_obj = NULL;
}

/*
 * kfd2kgd: the registers are not there; the per-queue reset asks the HWS,
 * and the KIQ's load of the first XCC's HIQ starts the software HWS on it
 */
static int kfd_fake_hiq_mqd_load(struct amdgpu_device *adev, void *mqd,
				 u32 pipe_id, u32 queue_id, u32 doorbell_off,
				 u32 inst)
{
	if (inst == ffs(kfd_fake->node->xcc_mask) - 1)
		soft_hws_load(kfd_fake, mqd);
	return 0;
}

static int kfd_fake_init_interrupts(struct amdgpu_device *adev, u32 pipe_id,
				    u32 inst)
{
	return 0;
}

static void kfd_fake_get_iq_wait_times(struct amdgpu_device *adev,
				       u32 *wait_times, u32 inst)
{
	*wait_times = 0;
}

static void kfd_fake_build_grace_period(struct amdgpu_device *adev,
					u32 wait_times, u32 grace_period,
					u32 *reg_offset, u32 *reg_data)
{
	*reg_offset = 0;
	*reg_data = wait_times;
}

static bool kfd_fake_get_atc_vmid_pasid(struct amdgpu_device *adev,
					u8 vmid, u16 *p_pasid)
{
	return false;
}

/* the first HQD of XCC 0 holds the hung queue, if any */
static u64 kfd_fake_hqd_get_pq_addr(struct amdgpu_device *adev, u32 pipe_id,
				    u32 queue_id, u32 inst)
{
	struct soft_hws *hws = &kfd_fake->hws;
	u64 addr = 0;

	spin_lock(&hws->lock);
	if (hws->hung && inst == 0 && pipe_id == 0 && queue_id == 2)
		addr = hws->hung_pq_addr;
	spin_unlock(&hws->lock);
	return addr;
}

static u64 kfd_fake_hqd_reset(struct amdgpu_device *adev, u32 pipe_id,
			      u32 queue_id, u32 inst, unsigned int utimeout)
{
	struct soft_hws *hws = &kfd_fake->hws;
	u64 addr = 0;
	unsigned int i;

	spin_lock(&hws->lock);
	if (hws->hung && inst == 0 && pipe_id == 0 && queue_id == 2) {
		addr = hws->hung_pq_addr;
		hws->hung = false;
		hws->queue_resets++;
		for (i = 0; i < hws->nmapped; i++)
			if (hws->mapped[i].doorbell_off == hws->hung_doorbell) {
				soft_hws_drop(hws, i);
				break;
			}
	}
	spin_unlock(&hws->lock);
	return addr;
}

static const struct kfd2kgd_calls kfd_fake_kfd2kgd = {
	.hiq_mqd_load = kfd_fake_hiq_mqd_load,
	.init_interrupts = kfd_fake_init_interrupts,
	.get_iq_wait_times = kfd_fake_get_iq_wait_times,
	.build_grace_period_packet_info = kfd_fake_build_grace_period,
	.get_atc_vmid_pasid_mapping_info = kfd_fake_get_atc_vmid_pasid,
	.hqd_get_pq_addr = kfd_fake_hqd_get_pq_addr,
	.hqd_reset = kfd_fake_hqd_reset,
};

/*
 * HIQ teardown (kq_uninitialize() from pm_uninit(), unless a GPU reset
 * holds the reset domain) talks to the KIQ: the HQD is unloaded, so the
 * software HWS stops before pm_uninit() frees the ring it reads.
 */
static int kfd_fake_destroy_hiq_mqd(struct mqd_manager *mm, void *mqd,
				    enum kfd_preempt_type type,
				    unsigned int timeout, u32 pipe_id,
				    u32 queue_id)
{
	soft_hws_stop(kfd_fake);
	return 0;
}

/*
 * invariant: no MQD is (re)initialised or freed while the HWS maps it;
 * @what: init_mqd, or restore_mqd (a CRIU restore)
 */
static void kfd_fake_mqd_live(const char *what, int type,
			      struct kfd_mem_obj *mqd_mem_obj,
			      struct queue_properties *q)
{
	struct soft_hws *hws = &kfd_fake->hws;
	unsigned int i;

	spin_lock(&hws->lock);
	if (soft_hws_find(hws, mqd_mem_obj->gpu_addr) >= 0)
		soft_hws_violation(hws, what, mqd_mem_obj->gpu_addr);
	if (type == KFD_MQD_TYPE_CP || type == KFD_MQD_TYPE_SDMA ||
	    type == KFD_MQD_TYPE_DIQ) {
		for (i = 0; i < ARRAY_SIZE(kfd_fake->mqds); i++)
			if (!kfd_fake->mqds[i].obj ||
			    kfd_fake->mqds[i].obj == mqd_mem_obj)
				break;
		if (i == ARRAY_SIZE(kfd_fake->mqds)) {
			soft_hws_fail(hws, "%s: more than %zu live MQDs", what,
				      ARRAY_SIZE(kfd_fake->mqds));
		} else {
			kfd_fake->mqds[i] = (struct kfd_fake_mqd) {
				.obj = mqd_mem_obj,
				.gpu_addr = mqd_mem_obj->gpu_addr,
				.doorbell_off = q->doorbell_off,
				.sdma_engine_id = q->sdma_engine_id,
				.sdma = type == KFD_MQD_TYPE_SDMA,
				.debug = type == KFD_MQD_TYPE_DIQ,
			};
		}
	}
	spin_unlock(&hws->lock);
}

static void kfd_fake_init_mqd(struct mqd_manager *mm, void **mqd,
			      struct kfd_mem_obj *mqd_mem_obj,
			      u64 *gart_addr, struct queue_properties *q)
{
	int type = get_mqd_type_from_queue_type(q->type);

	kfd_fake_mqd_live("init_mqd", type, mqd_mem_obj, q);
	kfd_fake->init_mqd[type](mm, mqd, mqd_mem_obj, gart_addr, q);
}

/* a CRIU restore makes a live MQD from a checkpoint (create_queue()) */
static void kfd_fake_restore_mqd(struct mqd_manager *mm, void **mqd,
				 struct kfd_mem_obj *mqd_mem_obj,
				 u64 *gart_addr, struct queue_properties *q,
				 const void *mqd_src, const void *ctl_stack_src,
				 const u32 ctl_stack_size)
{
	int type = get_mqd_type_from_queue_type(q->type);

	kfd_fake_mqd_live("restore_mqd", type, mqd_mem_obj, q);
	kfd_fake->restore_mqd[type](mm, mqd, mqd_mem_obj, gart_addr, q,
				    mqd_src, ctl_stack_src, ctl_stack_size);
}

static void kfd_fake_free_mqd(struct mqd_manager *mm, void *mqd,
			      struct kfd_mem_obj *mqd_mem_obj)
{
	struct soft_hws *hws = &kfd_fake->hws;
	struct kfd_fake_mqd *live = NULL;
	unsigned int j;
	int type, i;

	for (type = 0; type < KFD_MQD_TYPE_MAX; type++)
		if (mm == kfd_fake->dqm->mqd_mgrs[type])
			break;
	/*
	 * SDMA included: its MQD has a fixed slot per (engine, queue) and
	 * freeing it only drops the handle, but a driver that frees it while
	 * the HWS maps it for the same queue has also given the SDMA ID, and
	 * so the slot, away. (The slot may legitimately serve a new queue by
	 * the time the old handle is dropped: init_mqd is checked for that.)
	 */
	spin_lock(&hws->lock);
	for (j = 0; j < ARRAY_SIZE(kfd_fake->mqds); j++)
		if (kfd_fake->mqds[j].obj == mqd_mem_obj)
			live = &kfd_fake->mqds[j];
	i = soft_hws_find(hws, mqd_mem_obj->gpu_addr);
	/* an SDMA slot counts only when mapped for the queue it was set up for */
	if (type == KFD_MQD_TYPE_SDMA &&
	    (!live || (i >= 0 && hws->mapped[i].doorbell_off != live->doorbell_off)))
		i = -1;	/* not known to be this queue's mapping */
	if (live)
		live->obj = NULL;
	if (i >= 0)
		soft_hws_violation(hws, "free_mqd", mqd_mem_obj->gpu_addr);
	spin_unlock(&hws->lock);
	kfd_fake->free_mqd[type](mm, mqd, mqd_mem_obj);
}

/*
 * and no compute MQD is read for a checkpoint while the HWS runs it
 * (checkpoint_mqd() holds dqm_lock: the queue lists are stable)
 */
static void kfd_fake_checkpoint_mqd(struct mqd_manager *mm, void *mqd,
				    void *mqd_dst, void *ctl_stack_dst)
{
	struct device_queue_manager *dqm = kfd_fake->dqm;
	struct soft_hws *hws = &kfd_fake->hws;
	struct device_process_node *cur;
	struct queue *q;
	u64 addr = 0;

	list_for_each_entry(cur, &dqm->queues, list)
		list_for_each_entry(q, &cur->qpd->queues_list, list)
			if (q->mqd == mqd)
				addr = q->gart_mqd_addr;
	soft_hws_sync(hws);
	spin_lock(&hws->lock);
	if (addr && soft_hws_find(hws, addr) >= 0)
		soft_hws_violation(hws, "checkpoint_mqd", addr);
	spin_unlock(&hws->lock);
	kfd_fake->checkpoint_mqd(mm, mqd, mqd_dst, ctl_stack_dst);
}

static int kfd_fake_gpu_reset(struct kfd_fake_node *fake);

/*
 * kfd_process_hw_exception() asks amdgpu for a GPU reset, which amdgpu's
 * reset work runs (amdgpu_amdkfd_reset_work(), amdgpu_device_gpu_recover()).
 * Count it; with auto_reset, run it as amdgpu does (kfd_fake_gpu_reset()).
 * The reset frees MQDs (the hung queues' ones, in start_cpsch()): the
 * worker runs as the test, so that amdgpu_amdkfd_free_gtt_mem() takes the
 * fake's stub (a static stub redirects only a test's own threads) and a
 * KASAN report fails the test.
 */
static void kfd_fake_hw_exception(struct work_struct *work)
{
	atomic_inc(&kfd_fake->gpu_resets);
	if (READ_ONCE(kfd_fake->auto_reset)) {
		current->kunit_test = kfd_fake->test;
		kfd_fake_gpu_reset(kfd_fake);
		current->kunit_test = NULL;
	}
}

#ifdef KFD_FAKE_NODE_ROCM
/* ROCm's kfd_hws_hang(): the reset amdgpu_amdkfd_gpu_reset() schedules */
static void kfd_fake_amdkfd_gpu_reset(struct amdgpu_device *adev)
{
	schedule_work(&kfd_fake->hw_exception_work);
}

/*
 * amdgpu_file_to_fpriv() of a process's DRM file: after a queue reset,
 * ROCm's kfd_signal_reset_event() names the process from its VM's task.
 * The fake's file is no amdgpu file (no f_op), so amdgpu's test fails.
 */
static int kfd_fake_file_to_fpriv(struct file *filp,
				  struct amdgpu_fpriv **fpriv)
{
	struct kfd_fake_node *fake = kfd_fake;
	unsigned int i;

	for (i = 0; filp && i < KFD_FAKE_MAX_PROCS; i++) {
		if (filp == &fake->procs[i].filp && fake->procs[i].fpriv) {
			*fpriv = fake->procs[i].fpriv;
			return 0;
		}
	}
	return -EINVAL;
}
#endif

/*
 * A GPU reset of this device, as amdgpu_device_gpu_recover() runs it for
 * a reset that amdgpu_amdkfd_gpu_reset() asked (source: HWS hang), KFD's
 * part through amdgpu's own entry points:
 *
 * 1. amdgpu_device_lock_reset_domain(): the reset domain is write-locked
 *    once the preemptions in flight have ended. Every HWS path of the
 *    dqm trylocks it and fails with -EIO from the moment the writer
 *    waits (a waiting writer fails down_read_trylock()), not only once
 *    it holds the lock, and lets go of what the reset cleans up (a
 *    destroy frees the MQD of a queue that the HWS still runs); so what
 *    the driver frees from here on is not held against it (reset_begun),
 *    while the HWS still runs the preemptions in flight;
 * 2. the MEC stops. On hardware it runs on until amdgpu halts it for the
 *    ASIC reset, but nothing reaches it any more (1.), and pm_uninit()
 *    in step 3 frees the HIQ ring without destroying the HIQ
 *    (kq_uninitialize() skips destroy_mqd under the reset lock), so the
 *    software HWS stops here, its state frozen (stalled);
 * 3. amdgpu_amdkfd_pre_reset(): kgd2kfd_pre_reset(): the SMI event,
 *    kgd2kfd_suspend() (kfd_locked, kfd_suspend_all_processes(): every
 *    process in kfd_processes_table evicted; the dqm's stop: unmap,
 *    pm_release_ib(), pm_uninit()), kfd_signal_reset_event();
 * 4. the ASIC reset: the HWS forgets its runlist (soft_hws_reset());
 * 5. amdgpu_amdkfd_post_reset(): kgd2kfd_post_reset(): kfd_resume() (the
 *    dqm's start: pm_init() with a new HIQ, which the KIQ loads, and the
 *    software HWS with it), kfd_locked dropped, the SMI event. Processes
 *    stay evicted (6.12 does not resume them: "Fix me" there);
 * 6. amdgpu_device_unlock_reset_domain().
 *
 * Returns the pre/post-reset result (also in fake->reset_ret).
 */
static int kfd_fake_gpu_reset(struct kfd_fake_node *fake)
{
	struct amdgpu_reset_context ctx;
	struct soft_hws *hws = &fake->hws;
	ktime_t t0;
	int ret;

	memset(&ctx, 0, sizeof(ctx));
	ctx.method = AMD_RESET_METHOD_NONE;
	ctx.reset_req_dev = fake->adev;
	ctx.src = AMDGPU_RESET_SRC_HWS;

	mutex_lock(&fake->reset_lock);
	t0 = ktime_get();
	spin_lock(&hws->lock);
	hws->reset_begun = true;
	spin_unlock(&hws->lock);
	amdgpu_device_lock_reset_domain(fake->adev->reset_domain);
	spin_lock(&hws->lock);
	hws->stalled = true;
	spin_unlock(&hws->lock);
	soft_hws_stop(fake);
	/* before kfd_suspend_all_processes() can see a process */
	atomic_inc(&fake->resets_started);
	ret = amdgpu_amdkfd_pre_reset(fake->adev, &ctx);
	soft_hws_reset(hws);
	atomic_inc(&fake->adev->gpu_reset_counter);
	if (!ret)
		ret = amdgpu_amdkfd_post_reset(fake->adev);
	amdgpu_device_unlock_reset_domain(fake->adev->reset_domain);
	fake->reset_us_max = max_t(u64, fake->reset_us_max,
				   ktime_us_delta(ktime_get(), t0));
	fake->reset_ret = ret;
	atomic_inc(&fake->resets_done);
	mutex_unlock(&fake->reset_lock);
	return ret;
}

/*
 * System suspend and resume as amdgpu_device_suspend()/resume() call KFD:
 * amdgpu_amdkfd_suspend(): kgd2kfd_suspend() evicts every process
 * (kfd_suspend_all_processes()) and stops the dqm, whose pm_uninit()
 * destroys the HIQ (the software HWS stops); the GPU is powered off (the
 * HWS forgets everything); amdgpu_amdkfd_resume(): kgd2kfd_resume()
 * starts the dqm (a new HIQ, loaded) and restores every process
 * (kfd_resume_all_processes()).
 */
static unsigned int kfd_fake_suspend(struct kfd_fake_node *fake)
{
	unsigned int mapped;

	mutex_lock(&fake->reset_lock);
	amdgpu_amdkfd_suspend(fake->adev, false);
	/* what the HWS still ran when the dqm had stopped: nothing */
	spin_lock(&fake->hws.lock);
	mapped = fake->hws.nmapped;
	spin_unlock(&fake->hws.lock);
	soft_hws_reset(&fake->hws);
	fake->suspended = true;
	mutex_unlock(&fake->reset_lock);
	return mapped;
}

static int kfd_fake_resume(struct kfd_fake_node *fake)
{
	int ret;

	mutex_lock(&fake->reset_lock);
	ret = amdgpu_amdkfd_resume(fake->adev, false);
	fake->suspended = false;
	mutex_unlock(&fake->reset_lock);
	return ret;
}

/* kfd_locked > 0: KFD is suspended or in a GPU reset */
static bool kfd_fake_kfd_locked(void)
{
	bool locked;

	mutex_lock(&kfd_processes_mutex);
	locked = kfd_is_locked();
	mutex_unlock(&kfd_processes_mutex);
	return locked;
}

static void kfd_fake_bo(struct kfd_fake_node *fake, struct amdgpu_bo *bo,
			struct ttm_resource *res, unsigned long page)
{
	res->mem_type = AMDGPU_PL_DOORBELL;
	res->start = page;
	bo->tbo.bdev = &fake->adev->mman.bdev;
	bo->tbo.resource = res;
}

/*
 * Build the node, initialise and start its device queue manager with the
 * software HWS running; @queued turns the queued runlist on.
 */
static int kfd_fake_node_init(struct kunit *test, struct kfd_fake_node *fake,
			      const struct kfd_fake_model *model, bool queued)
{
	struct amdgpu_device *adev;
	struct kfd_dev *kfd;
	struct kfd_node *node;
	struct device *dev;
	unsigned int i;

	fake->test = test;
	fake->model = model;
	kfd_fake = fake;
	spin_lock_init(&fake->hws.lock);
	mutex_init(&fake->reset_lock);
	fake->hws.fake = fake;
	kunit_activate_static_stub(test, amdgpu_amdkfd_alloc_gtt_mem,
				   kfd_fake_alloc_gtt_mem);
	kunit_activate_static_stub(test, amdgpu_amdkfd_free_gtt_mem,
				   kfd_fake_free_gtt_mem);
#ifdef KFD_FAKE_NODE_ROCM
	kunit_activate_static_stub(test, amdgpu_amdkfd_gpu_reset,
				   kfd_fake_amdkfd_gpu_reset);
	kunit_activate_static_stub(test, amdgpu_file_to_fpriv,
				   kfd_fake_file_to_fpriv);
#endif
	kunit_activate_static_stub(test, amdgpu_bo_free_kernel,
				   kfd_fake_bo_free_kernel);

	snprintf(fake->name, sizeof(fake->name), "kfd_fake_node%u",
		 atomic_inc_return(&kfd_fake_nodes));
	dev = kunit_device_register(test, fake->name);
	if (IS_ERR(dev))
		return PTR_ERR(dev);
	adev = kvzalloc(sizeof(*adev), GFP_KERNEL);
	kfd = kzalloc(sizeof(*kfd), GFP_KERNEL);
	node = kzalloc(sizeof(*node), GFP_KERNEL);
	fake->gtt = vzalloc(KFD_FAKE_GTT_SIZE);
	fake->doorbells = kzalloc(PAGE_SIZE, GFP_KERNEL);
	if (!adev || !kfd || !node || !fake->gtt || !fake->doorbells)
		return -ENOMEM;
	fake->adev = adev;
	fake->kfd = kfd;
	fake->node = node;

	adev->dev = dev;
	adev->asic_type = CHIP_IP_DISCOVERY;
	adev->ip_versions[GC_HWIP][0] = IP_VERSION(9, 4, 3);
	adev->ip_versions[SDMA0_HWIP][0] = IP_VERSION(4, 4, 2);
	adev->gfx.mec.num_mec = 2;
	adev->gfx.mec.num_pipe_per_mec = 4;
	adev->gfx.mec.num_queue_per_pipe = 8;
	adev->sdma.num_instances = model->sdma_instances;
	adev->gmc.xgmi.supported = true;
	init_rwsem(&fake->reset_domain.sem);
	adev->reset_domain = &fake->reset_domain;
	/* kfd_signal_reset_event() looks a reset process's PASID up */
	xa_init_flags(&adev->vm_manager.pasids, XA_FLAGS_LOCK_IRQ);

	kfd->adev = adev;
	kfd->kfd2kgd = &kfd_fake_kfd2kgd;
	kfd->num_nodes = 1;
	kfd->nodes[0] = node;
	kfd->cwsr_enabled = true;
	kfd->device_info.doorbell_size = 8;
	kfd->device_info.num_sdma_queues_per_engine = 8;
	kfd->device_info.ih_ring_entry_size = 8 * sizeof(u32);
	kfd->shared_resources.compute_vmid_bitmap = 0xff00;
	kfd->shared_resources.num_pipe_per_mec = 4;
	kfd->shared_resources.num_queue_per_pipe = 8;
	/* MEC 0, 4 pipes x queues 2..7: the 24 HQDs amdgpu leaves to KFD */
	for (i = 0; i < 32; i++)
		if (i % 8 >= 2)
			set_bit(i, kfd->shared_resources.cp_queue_bitmap);
	for (i = 0; i < ARRAY_SIZE(fake->sdma_doorbell_idx); i++)
		fake->sdma_doorbell_idx[i] = 0x100 + i * 0xa;
	kfd->shared_resources.sdma_doorbell_idx = fake->sdma_doorbell_idx;
	kfd->shared_resources.enable_mes = false;
	/* never the first compute user: no power-profile switch in amdgpu */
	atomic_set(&kfd->compute_profile, 1);

	mutex_init(&kfd->doorbell_mutex);
	kfd->doorbell_bitmap = bitmap_zalloc(PAGE_SIZE / sizeof(u32), GFP_KERNEL);
	if (!kfd->doorbell_bitmap)
		return -ENOMEM;
	kfd->doorbell_kernel_ptr = (u32 __iomem *)fake->doorbells;
	kfd_fake_bo(fake, &fake->db_bo, &fake->db_res, 0);
	kfd->doorbells = &fake->db_bo;

	/* kfd_gtt_sa_init() on kernel memory */
	fake->gtt_gpu = 0x100000000ULL;
	kfd->gtt_start_cpu_ptr = fake->gtt;
	kfd->gtt_start_gpu_addr = fake->gtt_gpu;
	kfd->gtt_sa_chunk_size = 512;
	kfd->gtt_sa_num_of_chunks = KFD_FAKE_GTT_SIZE / 512;
	kfd->gtt_sa_bitmap = bitmap_zalloc(kfd->gtt_sa_num_of_chunks, GFP_KERNEL);
	if (!kfd->gtt_sa_bitmap)
		return -ENOMEM;
	mutex_init(&kfd->gtt_sa_lock);
#ifdef KFD_FAKE_NODE_ROCM
	/* ROCm's profiler: init_mqd() and set_perfcount() take it */
	mutex_init(&kfd->profiler_lock);
#endif

	node->adev = adev;
	node->kfd = kfd;
	node->kfd2kgd = kfd->kfd2kgd;
	node->node_id = 0;
	node->id = 1;
	node->xcc_mask = model->xcc_mask;
	node->compute_vmid_bitmap = 0xff00;
	node->vm_info.first_vmid_kfd = 8;
	node->vm_info.last_vmid_kfd = 15;
	node->vm_info.vmid_num_kfd = 8;
	node->max_proc_per_quantum = 8;
	/* the SMI events of evictions and resets: no client */
	INIT_LIST_HEAD(&node->smi_clients);
	spin_lock_init(&node->smi_lock);

	fake->dqm = device_queue_manager_init(node);
	if (!fake->dqm)
		return -ENODEV;
	node->dqm = fake->dqm;
	fake->dqm->mp_rlq_on = queued;
	INIT_WORK(kfd_fake_hw_exception_work(fake), kfd_fake_hw_exception);
	fake->dqm->mqd_mgrs[KFD_MQD_TYPE_HIQ]->destroy_mqd =
		kfd_fake_destroy_hiq_mqd;
	for (i = 0; i < KFD_MQD_TYPE_MAX; i++) {
		struct mqd_manager *mm = fake->dqm->mqd_mgrs[i];

		if (!mm || i == KFD_MQD_TYPE_HIQ)
			continue;
		fake->init_mqd[i] = mm->init_mqd;
		fake->free_mqd[i] = mm->free_mqd;
		mm->init_mqd = kfd_fake_init_mqd;
		mm->free_mqd = kfd_fake_free_mqd;
		fake->restore_mqd[i] = mm->restore_mqd;
		if (mm->restore_mqd)
			mm->restore_mqd = kfd_fake_restore_mqd;
	}
	fake->checkpoint_mqd = fake->dqm->mqd_mgrs[KFD_MQD_TYPE_CP]->checkpoint_mqd;
	fake->dqm->mqd_mgrs[KFD_MQD_TYPE_CP]->checkpoint_mqd =
		kfd_fake_checkpoint_mqd;

	/* the KIQ's load of the HIQ (pm_init()) starts the software HWS */
	if (fake->dqm->ops.start(fake->dqm))
		return -EIO;
	if (!fake->hws.thread)
		return -EIO;
	/* what amdgpu's KFD entry points look at (amdgpu_amdkfd_pre_reset()) */
	adev->kfd.dev = kfd;
	kfd->init_complete = true;
	return 0;
}

static void kfd_fake_proc_fini(struct kfd_fake_node *fake,
			       struct kfd_fake_proc *fp);

static void kfd_fake_node_fini(struct kfd_fake_node *fake)
{
	unsigned int i;

	/* no GPU reset after this point */
	WRITE_ONCE(fake->auto_reset, false);
	if (fake->dqm)
		flush_work(kfd_fake_hw_exception_work(fake));
	/* a case that stopped half-way does not leave KFD locked */
	if (fake->suspended)
		kfd_fake_resume(fake);
	if (fake->kfd)
		fake->kfd->init_complete = false;
	for (i = 0; i < fake->nprocs; i++)
		kfd_fake_proc_fini(fake, &fake->procs[i]);
	if (fake->dqm) {
		fake->dqm->ops.stop(fake->dqm);
		soft_hws_stop(fake);
		flush_work(kfd_fake_hw_exception_work(fake));
		device_queue_manager_uninit(fake->dqm);
	}
	soft_hws_stop(fake);
	if (fake->kfd) {
		bitmap_free(fake->kfd->gtt_sa_bitmap);
		bitmap_free(fake->kfd->doorbell_bitmap);
	}
	kfree(fake->node);
	kfree(fake->kfd);
	kvfree(fake->adev);
	vfree(fake->gtt);
	kfree(fake->doorbells);
	kfd_fake = NULL;
}

/*
 * kfd_processes_table is where kfd_suspend_all_processes(),
 * kfd_resume_all_processes() and kfd_signal_reset_event() find processes:
 * kfd_create_process() adds one (kfd_fake_proc_add()),
 * kfd_process_notifier_release_internal() removes it before its queues
 * are terminated. Keyed by mm, which a fake process has none of.
 */
static void kfd_fake_proc_unpublish(struct kfd_fake_proc *fp)
{
	if (!fp->published)
		return;
	mutex_lock(&kfd_processes_mutex);
	hash_del_rcu(&fp->p->kfd_processes);
	fp->published = false;
	mutex_unlock(&kfd_processes_mutex);
	synchronize_srcu(&kfd_processes_srcu);
}

/*
 * a process with its device data on the node, registered with the dqm
 * and in kfd_processes_table; from any thread. NULL while KFD is locked
 * (suspended or in a GPU reset), as kfd_create_process() refuses then.
 */
static struct kfd_fake_proc *kfd_fake_proc_add(struct kfd_fake_node *fake)
{
	struct kfd_fake_proc *fp;
	struct kfd_process_device *pdd;
	struct kfd_process *p;
	unsigned int idx;

	mutex_lock(&kfd_processes_mutex);
	if (kfd_is_locked()) {
		mutex_unlock(&kfd_processes_mutex);
		return NULL;
	}
	/* kfd_processes_mutex: from any thread */
	idx = fake->nprocs;
	if (idx < KFD_FAKE_MAX_PROCS)
		WRITE_ONCE(fake->nprocs, idx + 1);
	if (idx >= KFD_FAKE_MAX_PROCS) {
		mutex_unlock(&kfd_processes_mutex);
		return NULL;
	}
	fp = &fake->procs[idx];
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	pdd = kzalloc(sizeof(*pdd), GFP_KERNEL);
	fp->fpriv = kzalloc(sizeof(*fp->fpriv), GFP_KERNEL);
	if (!p || !pdd || !fp->fpriv)
		goto fail;
	pdd->qpd.doorbell_bitmap =
		bitmap_zalloc(KFD_MAX_NUM_OF_QUEUES_PER_PROCESS, GFP_KERNEL);
	if (!pdd->qpd.doorbell_bitmap)
		goto fail;
	fp->p = p;
	fp->pdd = pdd;

	mutex_init(&p->mutex);
	mutex_init(&p->event_mutex);
	idr_init(&p->event_idr);
	/* the SMI events name it by its lead thread's pid */
	p->lead_thread = get_task_struct(current);
#ifdef KFD_FAKE_NODE_ROCM
	pdd->pasid = 0x8000 + idx;
#else
	p->pasid = 0x8000 + idx;
#endif
	p->pdds[0] = pdd;
	p->n_pdds = 1;
	p->pqm.process = p;

	INIT_LIST_HEAD(&pdd->qpd.queues_list);
	INIT_LIST_HEAD(&pdd->qpd.priv_queue_list);
	pdd->qpd.dqm = fake->dqm;
	pdd->qpd.pqm = &p->pqm;
	pdd->process = p;
	pdd->dev = fake->node;
	pdd->mp_index = -1;
	/* the process's doorbell page: page 1 + idx of the BAR */
	kfd_fake_bo(fake, &fp->db_bo, &fp->db_res, 1 + idx);
	pdd->qpd.proc_doorbells = &fp->db_bo;
	/* its VM: amdgpu_amdkfd_gpuvm_get_process_page_dir() reads the PD */
	fp->fpriv->vm.root.bo = &fp->db_bo;
	fp->fpriv->vm.pd_phys_addr = 0x200000ULL * (idx + 1);
	fp->file.driver_priv = fp->fpriv;
	pdd->drm_priv = &fp->file;
#ifdef KFD_FAKE_NODE_ROCM
	pdd->drm_file = &fp->filp;
	strscpy(fp->task_info.process_name, current->comm,
		sizeof(fp->task_info.process_name));
	strscpy(fp->task_info.task_name, current->comm,
		sizeof(fp->task_info.task_name));
	fp->task_info.pid = task_pid_nr(current);
	fp->task_info.tgid = task_tgid_nr(current);
	kref_init(&fp->task_info.refcount);
	fp->fpriv->vm.task_info = &fp->task_info;
#endif

	if (fake->dqm->ops.register_process(fake->dqm, &pdd->qpd)) {
		mutex_unlock(&kfd_processes_mutex);
		return NULL;
	}
	fp->registered = true;
	hash_add_rcu(kfd_processes_table, &p->kfd_processes, (uintptr_t)p->mm);
	fp->published = true;
	mutex_unlock(&kfd_processes_mutex);
	return fp;
fail:
	mutex_unlock(&kfd_processes_mutex);
	kfree(fp->fpriv);
	kfree(pdd);
	kfree(p);
	fp->fpriv = NULL;
	return NULL;
}

/*
 * process termination: out of kfd_processes_table, then the real
 * process_termination_cpsch()
 */
static int kfd_fake_proc_terminate(struct kfd_fake_node *fake,
				   struct kfd_fake_proc *fp)
{
	int ret;

	kfd_fake_proc_unpublish(fp);
	if (!fp->registered)
		return 0;
	ret = fake->dqm->ops.process_termination(fake->dqm, &fp->pdd->qpd);
	fp->registered = false;
	return ret;
}

static void kfd_fake_proc_fini(struct kfd_fake_node *fake,
			       struct kfd_fake_proc *fp)
{
	if (!fp->pdd)
		return;
	kfd_fake_proc_terminate(fake, fp);
	bitmap_free(fp->pdd->qpd.doorbell_bitmap);
	idr_destroy(&fp->p->event_idr);
	put_task_struct(fp->p->lead_thread);
	kfree(fp->pdd);
	kfree(fp->p);
	kfree(fp->fpriv);
	fp->pdd = NULL;
	fp->p = NULL;
	fp->fpriv = NULL;
}

/* a user queue as pqm_create_queue() makes it, created by the real dqm */
static int kfd_fake_queue_create(struct kfd_fake_node *fake,
				 struct kfd_fake_proc *fp,
				 enum kfd_queue_type type, struct queue **qp)
{
	struct queue_properties prop = {};
	unsigned int qid = fp->next_qid++;
	struct queue *q;
	int ret;

	prop.type = type;
	prop.format = type == KFD_QUEUE_TYPE_COMPUTE ?
		KFD_QUEUE_FORMAT_AQL : KFD_QUEUE_FORMAT_PM4;
	prop.queue_size = 4096;
	prop.queue_address = 0x10000000000ULL +
			     ((u64)kfd_mp_pdd_pasid(fp->pdd) << 24) +
			     ((u64)qid << 12);
	prop.queue_percent = 100;
	prop.priority = 7;
	prop.queue_id = qid;
	prop.sdma_engine_id = 0;
	ret = init_queue(&q, &prop);
	if (ret)
		return ret;
	q->device = fake->node;
	q->process = fp->p;
	ret = fake->dqm->ops.create_queue(fake->dqm, q, &fp->pdd->qpd, NULL,
					  NULL, NULL);
	if (ret) {
		uninit_queue(q);
		return ret;
	}
	*qp = q;
	return 0;
}

/*
 * a CRIU restore of a queue (kfd_criu_restore_queue(): pqm_create_queue()
 * with the checkpoint): the queue of properties @old made again with the
 * doorbell ID @doorbell_id (and SDMA ID @sdma_id) it had, from the MQD and
 * control stack that checkpoint_mqd() copied
 */
static int kfd_fake_queue_restore(struct kfd_fake_node *fake,
				  struct kfd_fake_proc *fp,
				  const struct queue_properties *old,
				  u32 doorbell_id, u32 sdma_id,
				  const void *mqd, const void *ctl_stack,
				  u32 ctl_stack_size, struct queue **qp)
{
	struct kfd_criu_queue_priv_data qd = {};
	struct queue_properties prop = {};
	struct queue *q;
	int ret;

	prop.type = old->type;
	prop.format = old->format;
	prop.queue_size = old->queue_size;
	prop.queue_address = old->queue_address;
	prop.queue_percent = old->queue_percent;
	prop.priority = old->priority;
	prop.queue_id = old->queue_id;
	prop.sdma_engine_id = old->sdma_engine_id;
	qd.type = old->type;
	qd.q_id = old->queue_id;
	qd.doorbell_id = doorbell_id;
	qd.sdma_id = sdma_id;
	qd.ctl_stack_size = ctl_stack_size;
	ret = init_queue(&q, &prop);
	if (ret)
		return ret;
	q->device = fake->node;
	q->process = fp->p;
	ret = fake->dqm->ops.create_queue(fake->dqm, q, &fp->pdd->qpd, &qd,
					  mqd, ctl_stack);
	if (ret) {
		uninit_queue(q);
		return ret;
	}
	*qp = q;
	return 0;
}

static int kfd_fake_queue_destroy(struct kfd_fake_node *fake,
				  struct kfd_fake_proc *fp, struct queue *q)
{
	int ret = fake->dqm->ops.destroy_queue(fake->dqm, &fp->pdd->qpd, q);

	/* as pqm_destroy_queue(): only these leave the queue in place */
	if (ret != -EBUSY && ret != -ERESTARTSYS)
		uninit_queue(q);
	return ret;
}
