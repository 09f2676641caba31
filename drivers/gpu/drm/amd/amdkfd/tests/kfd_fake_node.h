/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * A fake GFX 9.4.3 KFD node for the device queue manager KUnit tests
 * (kfd_dqm_test.c): what the device queue manager, the packet manager and
 * the MQD managers read of an MI300X (SPX, 8 XCCs) or MI308X (SPX,
 * 4 XCCs), with RAM where the GPU would have memory:
 *
 * - a zeroed amdgpu_device with the IP versions, MEC and SDMA layout and
 *   a reset domain;
 * - the GTT sub-allocator (kfd_gtt_sa_*) on plain kernel memory;
 * - amdgpu_amdkfd_alloc_gtt_mem()/free_gtt_mem() redirected (static stub)
 *   to kernel memory, so KASAN sees every MQD as its own object;
 * - doorbells in RAM, with doorbell BOs whose offset the real
 *   amdgpu_doorbell_index_on_bar() computes; amdgpu_bo_free_kernel()
 *   redirected (static stub) to mark a process's doorbell page given back;
 * - a kfd2kgd table whose register accessors do nothing, except the
 *   per-queue reset pair, which asks the software HWS;
 * - CWSR on, so a compute MQD of the 8 XCCs gets its own allocation.
 *
 * The real device_queue_manager_init(), start/stop, pm_init() and
 * kernel_queue_init() run on it; the software HWS (kfd_soft_hws.h)
 * executes what they send.
 *
 * Its processes are in kfd_processes_table, and the node is the
 * kfd_dev's only node with init_complete set and adev->kfd.dev pointing
 * at it, so amdgpu's own KFD entry points for a GPU reset
 * (amdgpu_amdkfd_pre_reset()/post_reset(): kfd_suspend_all_processes(),
 * the dqm's stop and start, kfd_signal_reset_event()) and for system
 * suspend (amdgpu_amdkfd_suspend()/resume(): kfd_resume_all_processes()
 * too) run on it: kfd_fake_gpu_reset(), kfd_fake_suspend(),
 * kfd_fake_resume().
 */
#ifndef KFD_FAKE_NODE_H_INCLUDED
#define KFD_FAKE_NODE_H_INCLUDED

#include <kunit/test.h>
#include "kfd_soft_hws.h"

/*
 * What differs between the bases the suite runs on. The rocm-6.4 series
 * defines KFD_FAKE_NODE_ROCM where it includes the suite: ROCm's
 * amdgpu_amdkfd_alloc_gtt_mem() takes is_uswc_mode, its dqm asks for the
 * GPU reset of an HWS hang with amdgpu_amdkfd_gpu_reset() itself (no
 * hw_exception_work: the fake stubs it and runs the same work), and its
 * PASID lives in the pdd.
 */
#ifdef KFD_FAKE_NODE_ROCM
#define KFD_FAKE_GTT_MEM_ARGS	bool cp_mqd_gfx9, bool is_uswc_mode
#define kfd_fake_hw_exception_work(fake)	(&(fake)->hw_exception_work)
#else
#define KFD_FAKE_GTT_MEM_ARGS	bool cp_mqd_gfx9
#define kfd_fake_hw_exception_work(fake)	(&(fake)->dqm->hw_exception_work)
#endif

#define KFD_FAKE_MAX_PROCS	48
#define KFD_FAKE_GTT_SIZE	(4 << 20)
/*
 * the most XCCs of a model (MI300X SPX): a gfx 9.4.3 checkpoint holds an
 * MQD, and a control stack, per XCC
 */
#define KFD_FAKE_MAX_XCC	8

struct kfd_fake_model {
	const char *name;
	u32 xcc_mask;
	u32 sdma_instances;
};

struct kfd_fake_proc {
	struct kfd_process *p;
	struct kfd_process_device *pdd;
	struct amdgpu_bo db_bo;
	struct ttm_resource db_res;
	bool db_freed;		/* db_bo given back (amdgpu_bo_free_kernel()) */
	struct drm_file file;
	struct amdgpu_fpriv *fpriv;
#ifdef KFD_FAKE_NODE_ROCM
	/* ROCm's pdd->drm_file, and its VM's task (kfd_signal_reset_event()) */
	struct file filp;
	struct amdgpu_task_info task_info;
#endif
	unsigned int next_qid;
	bool registered;
	bool published;		/* in kfd_processes_table */
};

#define KFD_FAKE_MAX_MQDS	1024

struct kfd_fake_node {
	struct kunit *test;
	char name[32];
	const struct kfd_fake_model *model;
	struct amdgpu_device *adev;
	struct kfd_dev *kfd;
	struct kfd_node *node;
	struct device_queue_manager *dqm;
	struct amdgpu_reset_domain reset_domain;

	void *gtt;
	u64 gtt_gpu;
	u32 *doorbells;
	struct amdgpu_bo db_bo;
	struct ttm_resource db_res;
	u32 sdma_doorbell_idx[32];

	/* the MQD managers' own functions, wrapped by the invariant checks */
	void (*init_mqd[KFD_MQD_TYPE_MAX])(struct mqd_manager *mm, void **mqd,
					   struct kfd_mem_obj *mqd_mem_obj,
					   u64 *gart_addr,
					   struct queue_properties *q);
	void (*free_mqd[KFD_MQD_TYPE_MAX])(struct mqd_manager *mm, void *mqd,
					   struct kfd_mem_obj *mqd_mem_obj);
	void (*checkpoint_mqd)(struct mqd_manager *mm, void *mqd,
			       void *mqd_dst, void *ctl_stack_dst);
	void (*restore_mqd[KFD_MQD_TYPE_MAX])(struct mqd_manager *mm,
					      void **mqd,
					      struct kfd_mem_obj *mqd_mem_obj,
					      u64 *gart_addr,
					      struct queue_properties *p,
					      const void *mqd_src,
					      const void *ctl_stack_src,
					      const u32 ctl_stack_size);

	/*
	 * every user-queue MQD handle between init_mqd and free_mqd, with the
	 * doorbell of its queue (an SDMA slot's owner) and what the packet
	 * manager must write in a MAP_QUEUES for it (hws.lock)
	 */
	struct kfd_fake_mqd {
		struct kfd_mem_obj *obj;
		u64 gpu_addr;
		u32 doorbell_off;
		u32 sdma_engine_id;
		bool sdma;
		bool debug;		/* a DIQ */
	} mqds[KFD_FAKE_MAX_MQDS];
	atomic_t gpu_resets;	/* hw_exception_work runs (GPU reset asked) */
	/* ROCm: the work amdgpu_amdkfd_gpu_reset()'s stub queues */
	struct work_struct hw_exception_work;
	/*
	 * hw_exception_work resets the GPU (kfd_fake_gpu_reset()), as
	 * amdgpu's reset work does; off: it only counts
	 */
	bool auto_reset;
	atomic_t resets_started;	/* kfd_fake_gpu_reset() runs begun */
	atomic_t resets_done;	/* and ended */
	int reset_ret;		/* the last one's pre/post-reset result */
	u64 reset_us_max;	/* the longest one, reset domain locked to unlocked */
	bool suspended;		/* kfd_fake_suspend() without resume */
	/* one reset, suspend or resume at a time (amdgpu's reset domain) */
	struct mutex reset_lock;
	struct soft_hws hws;
	struct kfd_fake_proc procs[KFD_FAKE_MAX_PROCS];
	unsigned int nprocs;	/* kfd_processes_mutex */
};

#endif
