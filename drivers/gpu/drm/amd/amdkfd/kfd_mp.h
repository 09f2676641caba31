/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Multi-process scheduling: the hooks the device queue manager calls.
 *
 * Each hook is one line in an upstream file; the work is done here, so the
 * series stays small in the files it shares with upstream and ports to
 * vendor trees.
 */
#ifndef KFD_MP_H_INCLUDED
#define KFD_MP_H_INCLUDED

#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/types.h>

#include "kfd_mp_slots.h"

struct device_queue_manager;
struct file;
struct kfd_dev;
struct kfd_ioctl_tenant_ctl_args;
struct kfd_mp_rlq;
struct kfd_process;
struct kfd_process_device;
struct pid;
struct qcm_process_device;
struct queue;
struct seq_file;

bool kfd_mp_enabled(void);
void kfd_mp_runlist_sent(struct device_queue_manager *dqm, int ret,
			 ktime_t start);
void kfd_mp_unmap_done(struct device_queue_manager *dqm, int filter,
		       u32 filter_param, int ret, ktime_t start);
void kfd_mp_queue_created(struct kfd_process_device *pdd, struct queue *q);
void kfd_mp_queue_destroyed(struct kfd_process_device *pdd, struct queue *q);
int kfd_mp_doorbells_alloc(struct kfd_process_device *pdd);

void kfd_mp_dev_init(struct kfd_dev *kfd);
void kfd_mp_db_init(struct kfd_dev *kfd);
void kfd_mp_dev_fini(struct kfd_dev *kfd);
void kfd_mp_pdd_release(struct kfd_process_device *pdd);
unsigned int kfd_mp_queue_slot(struct kfd_process_device *pdd,
			       const unsigned long *bitmap);
unsigned int kfd_mp_doorbell_id(struct qcm_process_device *qpd,
				struct queue *q);
void kfd_mp_rlq_dqm_init(struct device_queue_manager *dqm);
void kfd_mp_rlq_dqm_fini(struct device_queue_manager *dqm);
void kfd_mp_dqm_lock(struct device_queue_manager *dqm);
/* in kfd_device_queue_manager.c */
int kfd_dqm_rlq_cycle(struct kfd_mp_rlq *rlq, struct list_head *batch,
		      unsigned int n);

/**
 * struct kfd_tenant_call - one GPU's part of an AMDKFD_IOC_TENANT_CTL call
 * @node: on dqm->mp_tenant_calls while its state is committed
 * @pdds: process devices of one dqm, distinct; NULL once left out
 * @status: per pdd, 0 or -errno
 * @n: number of @pdds
 * @suspend: SUSPEND (true) or RESUME
 * @owner: the caller's /dev/kfd file
 * @wait_ns: out: time in the preemption cycle
 * @unpin: drops the caller's references of the @pdds' processes
 */
struct kfd_tenant_call {
	struct list_head node;
	struct kfd_process_device **pdds;
	int *status;
	unsigned int n;
	bool suspend;
	struct file *owner;
	u64 wait_ns;
	void (*unpin)(struct kfd_tenant_call *c);
};

int kfd_dqm_tenant_set(struct device_queue_manager *dqm,
		       struct kfd_tenant_call *c);
int kfd_dqm_tenant_state(struct kfd_process_device *pdd, struct file *owner);

/* kfd_mp_tenant.c: AMDKFD_IOC_TENANT_CTL */

/* a target: the pid of a pidfd, or (in-kernel callers) the process */
struct kfd_tenant_target {
	struct pid *pid;
	struct kfd_process *p;
};

int kfd_ioctl_tenant_ctl(struct file *filep, struct kfd_process *p,
			 void *data);
int kfd_tenant_ctl_targets(struct file *owner, struct kfd_tenant_target *tg,
			   unsigned int n,
			   struct kfd_ioctl_tenant_ctl_args *args,
			   s32 *status, u32 *state);
void kfd_tenant_release(struct file *owner);
void kfd_tenant_own(struct kfd_process_device *pdd, struct file *owner);
void kfd_tenant_disown(struct kfd_process_device *pdd);
#if IS_ENABLED(CONFIG_HSA_AMD_DQM_KUNIT_TEST)
/* kfd_chardev.c: kfd_ioctl(), for KUnit */
long kfd_chardev_test_ioctl(struct file *filep, unsigned int cmd,
			    unsigned long arg);
#endif

int kfd_debugfs_mp_stats_show(struct seq_file *m, void *data);
int kfd_debugfs_mp_stats_reset(const char *buf);

/* Shared by the kfd_mp*.c files, not for the rest of amdkfd */

/* Per-device state of the multi-process policies. */
struct kfd_mp_dev {
	struct kfd_mp_index_alloc index;
	struct kfd_mp_db_layout db;	/* no slots with MES */
};

extern const char * const kfd_mp_slot_policies[];
int kfd_mp_pdd_index(struct kfd_process_device *pdd);
pid_t kfd_mp_pid(struct kfd_process_device *pdd);

#endif
