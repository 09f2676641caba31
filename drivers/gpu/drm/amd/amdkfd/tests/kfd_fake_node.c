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
				  bool cp_mqd_gfx9)
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

static void kfd_fake_free_gtt_mem(struct amdgpu_device *adev, void **mem_obj)
{
	struct kfd_fake_gtt_bo *bo = *mem_obj;

	if (!bo)
		return;
	kvfree(bo->cpu);
	kfree(bo);
	*mem_obj = NULL;
}

/* kfd2kgd: the registers are not there; the per-queue reset asks the HWS */
static int kfd_fake_hiq_mqd_load(struct amdgpu_device *adev, void *mqd,
				 u32 pipe_id, u32 queue_id, u32 doorbell_off,
				 u32 inst)
{
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

/* HIQ teardown talks to the KIQ: nothing to do here */
static int kfd_fake_destroy_hiq_mqd(struct mqd_manager *mm, void *mqd,
				    enum kfd_preempt_type type,
				    unsigned int timeout, u32 pipe_id,
				    u32 queue_id)
{
	return 0;
}

/* invariant: no MQD is (re)initialised or freed while the HWS maps it */
static void kfd_fake_init_mqd(struct mqd_manager *mm, void **mqd,
			      struct kfd_mem_obj *mqd_mem_obj,
			      u64 *gart_addr, struct queue_properties *q)
{
	struct soft_hws *hws = &kfd_fake->hws;
	int type = get_mqd_type_from_queue_type(q->type);
	unsigned int i;

	spin_lock(&hws->lock);
	if (soft_hws_find(hws, mqd_mem_obj->gpu_addr) >= 0)
		soft_hws_violation(hws, "init_mqd", mqd_mem_obj->gpu_addr);
	if (type == KFD_MQD_TYPE_CP || type == KFD_MQD_TYPE_SDMA ||
	    type == KFD_MQD_TYPE_DIQ) {
		for (i = 0; i < ARRAY_SIZE(kfd_fake->mqds); i++)
			if (!kfd_fake->mqds[i].obj ||
			    kfd_fake->mqds[i].obj == mqd_mem_obj)
				break;
		if (i == ARRAY_SIZE(kfd_fake->mqds)) {
			soft_hws_fail(hws, "init_mqd: more than %zu live MQDs",
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
	kfd_fake->init_mqd[type](mm, mqd, mqd_mem_obj, gart_addr, q);
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

/* kfd_process_hw_exception() would reset the GPU: count it instead */
static void kfd_fake_hw_exception(struct work_struct *work)
{
	atomic_inc(&kfd_fake->gpu_resets);
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
	fake->hws.fake = fake;
	kunit_activate_static_stub(test, amdgpu_amdkfd_alloc_gtt_mem,
				   kfd_fake_alloc_gtt_mem);
	kunit_activate_static_stub(test, amdgpu_amdkfd_free_gtt_mem,
				   kfd_fake_free_gtt_mem);

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

	fake->dqm = device_queue_manager_init(node);
	if (!fake->dqm)
		return -ENODEV;
	node->dqm = fake->dqm;
	fake->dqm->mp_rlq_on = queued;
	INIT_WORK(&fake->dqm->hw_exception_work, kfd_fake_hw_exception);
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
	}
	fake->checkpoint_mqd = fake->dqm->mqd_mgrs[KFD_MQD_TYPE_CP]->checkpoint_mqd;
	fake->dqm->mqd_mgrs[KFD_MQD_TYPE_CP]->checkpoint_mqd =
		kfd_fake_checkpoint_mqd;

	if (fake->dqm->ops.start(fake->dqm))
		return -EIO;
	soft_hws_start(fake);
	return 0;
}

static void kfd_fake_proc_fini(struct kfd_fake_node *fake,
			       struct kfd_fake_proc *fp);

static void kfd_fake_node_fini(struct kfd_fake_node *fake)
{
	unsigned int i;

	for (i = 0; i < fake->nprocs; i++)
		kfd_fake_proc_fini(fake, &fake->procs[i]);
	if (fake->dqm) {
		fake->dqm->ops.stop(fake->dqm);
		soft_hws_stop(fake);
		flush_work(&fake->dqm->hw_exception_work);
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

/* a process with its device data on the node, registered with the dqm */
static struct kfd_fake_proc *kfd_fake_proc_add(struct kfd_fake_node *fake)
{
	struct kfd_fake_proc *fp;
	struct kfd_process_device *pdd;
	struct kfd_process *p;
	unsigned int idx = fake->nprocs;

	if (idx >= KFD_FAKE_MAX_PROCS)
		return NULL;
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
	fake->nprocs++;

	mutex_init(&p->mutex);
	mutex_init(&p->event_mutex);
	p->pasid = 0x8000 + idx;
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

	if (fake->dqm->ops.register_process(fake->dqm, &pdd->qpd))
		return NULL;
	fp->registered = true;
	return fp;
fail:
	kfree(fp->fpriv);
	kfree(pdd);
	kfree(p);
	fp->fpriv = NULL;
	return NULL;
}

/* process termination: the real process_termination_cpsch() */
static int kfd_fake_proc_terminate(struct kfd_fake_node *fake,
				   struct kfd_fake_proc *fp)
{
	int ret;

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
	prop.queue_address = 0x10000000000ULL + ((u64)fp->p->pasid << 24) +
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

static int kfd_fake_queue_destroy(struct kfd_fake_node *fake,
				  struct kfd_fake_proc *fp, struct queue *q)
{
	int ret = fake->dqm->ops.destroy_queue(fake->dqm, &fp->pdd->qpd, q);

	/* as pqm_destroy_queue(): only these leave the queue in place */
	if (ret != -EBUSY && ret != -ERESTARTSYS)
		uninit_queue(q);
	return ret;
}
