/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The per-open VA space.
 */
#ifndef _UVM_VA_SPACE_H_
#define _UVM_VA_SPACE_H_

#include <linux/atomic.h>
#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/jiffies.h>
#include <linux/list.h>
#include <linux/memcontrol.h>
#include <linux/mutex.h>
#include <linux/rbtree.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/uidgid.h>
#include <linux/xarray.h>

#include "uvm.h"
#include "uvm_gpu.h"
#include "uvm_hal.h"
#include "uvm_page_pool.h"
#include "uvm_hmm.h"
#include "uvm_queue.h"

struct mem_cgroup;
struct mm_struct;
struct uvm_copy_boxes;
struct uvm_va_block;
struct uvm_test_page_state;
struct uvm_test_page_state_sizes;

/**
 * struct uvm_va_space - the address space of one open of /dev/uvm
 * @kref:	references: the open file, fault servicing in progress
 * @mm:		the opener's mm (mmgrab()ed); ioctls and mmaps from any other
 *		mm are refused
 * @mapping:	address_space of the managed ranges' CPU mappings, so that
 *		unmap_mapping_range() can revoke CPU PTEs by virtual address
 *		(file offsets equal virtual addresses in our VMAs)
 * @lock:	see uvm_lock.h: protects @ranges and @blocks membership
 * @ranges:	managed ranges, an interval tree by virtual address; @lock
 * @policies:	memory policy (advice) by address range; @lock
 * @blocks:	VA block index (address >> 21) -> struct uvm_va_block; the
 *		xarray's own lock for stores, @lock (write) for erasing
 * @gpu_va_spaces: one per registered GPU, created at open; constant
 * @queue:	asynchronous jobs (migrations, copies) and their fences
 * @page_pool:	CPU pages freed by migrations, reused as copy destinations
 * @hmm:	pageable memory (uvm_hmm.c): regions, notifiers, device chunks
 * @mem_handles: VMM allocation handles (uvm_mem.c): id -> struct
 *		uvm_mem_handle; changed under @lock held for write
 * @mem_handle_next: next handle id to try; @lock
 * @nr_mem_handles: handles in @mem_handles; @lock
 * @nr_vmm_mappings: VMM mappings in all reservations; @lock
 * @copy_boxes: the box array of a finished copy batch, kept for the next
 *		(uvm_copy.c); taken and given back with xchg()/cmpxchg()
 * @test_gates_closed: UVM_TEST_IOC_QUEUE_GATE: gates closed (uvm_test.c)
 * @test_gates_opened: gates opened: those numbered up to it
 * @test_gates_locking: gates closed with UVM_TEST_GATE_HOLD_LOCK
 * @test_gates_locked: those of them whose job took the lock
 * @counters:	UVM_COUNTER_* values
 * @vidmem:	bytes of each GPU's memory held by the VA space's managed
 *		memory and device memory (atomic: chunks come and go under
 *		block locks of any thread)
 * @id:		unique id (from 1, never reused while the module is loaded),
 *		named by tracepoints and netlink events; constant
 * @tgid:	the opener's thread group id in the initial pid namespace,
 *		for events and dmesg; constant
 * @pid:	the opener's thread group (get_pid()), to report its pid as
 *		each netlink reader's namespace sees it; constant
 * @uid:	the opener's effective uid; visibility to netlink readers;
 *		constant
 * @memcg:	the opener's memory cgroup (referenced), charged for what
 *		work done for the VA space elsewhere allocates: its jobs in
 *		workers, its faults in the GPU's servicing, eviction of its
 *		memory by another process (uvm_va_space_charge_begin());
 *		constant
 * @comm:	the opener's command name at open; constant
 * @node:	in the list of VA spaces (uvm_va_space_list_lock)
 * @rcu:	deferred free: fault servicing looks us up under RCU
 */
struct uvm_va_space {
	struct kref kref;
	struct mm_struct *mm;
	struct address_space mapping;
	struct rw_semaphore lock; /* ranges, blocks membership */
	struct rb_root_cached ranges;
	struct rb_root_cached policies;
	struct xarray blocks;
	struct uvm_gpu_va_space gpu_va_spaces[UVM_MAX_GPUS];
	struct uvm_queue queue;
	struct uvm_page_pool page_pool;
	struct uvm_hmm_va_space hmm;
	struct xarray mem_handles;
	u32 mem_handle_next;
	u32 nr_mem_handles;
	u64 nr_vmm_mappings;
	struct uvm_copy_boxes *copy_boxes;
	atomic64_t test_gates_closed;
	atomic64_t test_gates_opened;
	atomic64_t test_gates_locking;
	atomic64_t test_gates_locked;
	atomic64_t counters[UVM_COUNTER_COUNT];
	atomic64_t vidmem[UVM_MAX_GPUS];
	u64 id;
	pid_t tgid;
	struct pid *pid;
	kuid_t uid;
	struct mem_cgroup *memcg;
	char comm[TASK_COMM_LEN];
	struct list_head node;
	struct rcu_head rcu;
};

static inline void uvm_va_space_count(struct uvm_va_space *va_space,
				      unsigned int counter, u64 n)
{
	atomic64_add(n, &va_space->counters[counter]);
}

/* The VA spaces of the module, in creation (id) order; see uvm_lock.h. */
extern struct list_head uvm_va_space_list;
extern struct mutex uvm_va_space_list_lock;

static inline void uvm_va_space_vidmem_add(struct uvm_va_space *va_space,
					   u32 gpu_index, s64 bytes)
{
	atomic64_add(bytes, &va_space->vidmem[gpu_index]);
}

/*
 * How long work that walks many blocks or windows under the VA space lock
 * held for read keeps it while a writer waits (uvm_va_space_read_yield()).
 */
#define UVM_VA_SPACE_HOLD_MS	100

/**
 * uvm_va_space_read_contended() - should a long reader let a writer in?
 * @va_space:	the VA space, its lock held for read
 * @held_since:	jiffies when the reader took the lock
 *
 * A writer waits (and readers queue behind it: fault servicing among them)
 * and the reader has held the lock UVM_VA_SPACE_HOLD_MS.
 *
 * Return: true when the reader should drop the lock now.
 */
static inline bool uvm_va_space_read_contended(struct uvm_va_space *va_space,
					       unsigned long held_since)
{
	return rwsem_is_contended(&va_space->lock) &&
	       time_after_eq(jiffies, held_since + msecs_to_jiffies(UVM_VA_SPACE_HOLD_MS));
}

/**
 * uvm_va_space_owner_exiting() - is the process owning a VA space going?
 * @va_space:	the VA space
 *
 * The opener's thread group is exiting (killed, or exit_group()), gone, or
 * no longer uses the VA space's mm (exec): nobody is left to see the
 * results of its work.
 *
 * Context: any.
 * Return: true when the owner is exiting or gone.
 */
static inline bool uvm_va_space_owner_exiting(struct uvm_va_space *va_space)
{
	struct task_struct *task;
	bool exiting;

	if (!atomic_read(&va_space->mm->mm_users))
		return true;
	/* the task and its signal_struct stay while RCU is held */
	rcu_read_lock();
	task = pid_task(va_space->pid, PIDTYPE_TGID);
	exiting = !task || (READ_ONCE(task->signal->flags) & SIGNAL_GROUP_EXIT);
	rcu_read_unlock();
	return exiting;
}

/**
 * uvm_va_space_charge_begin() - charge allocations to the VA space's owner
 * @va_space:	the VA space
 *
 * Until uvm_va_space_charge_end(), __GFP_ACCOUNT allocations of the caller
 * (a worker running the VA space's job or faults, another process evicting
 * its memory) are charged to the opener's memory cgroup, not to whoever
 * runs the code (a kernel thread is charged to nobody).
 *
 * Return: the charging scope to restore.
 */
static inline struct mem_cgroup *uvm_va_space_charge_begin(struct uvm_va_space *va_space)
{
	return set_active_memcg(va_space->memcg);
}

/**
 * uvm_va_space_charge_end() - end a scope of uvm_va_space_charge_begin()
 * @old:	what it returned
 */
static inline void uvm_va_space_charge_end(struct mem_cgroup *old)
{
	set_active_memcg(old);
}

/**
 * uvm_va_space_read_yield() - let a waiting writer in between two steps
 * @va_space:	the VA space, its lock held for read
 * @held_since:	in/out: jiffies when the lock was taken
 *
 * When uvm_va_space_read_contended() says so, drops the lock and takes it
 * again: what the caller found under it (allocations, blocks) must be
 * looked up again.
 *
 * Return: true when the lock was dropped.
 */
static inline bool uvm_va_space_read_yield(struct uvm_va_space *va_space, unsigned long *held_since)
{
	if (!uvm_va_space_read_contended(va_space, *held_since))
		return false;
	up_read(&va_space->lock);
	cond_resched();
	down_read(&va_space->lock);
	*held_since = jiffies;
	return true;
}

/**
 * uvm_va_space_get_by_instance() - find the VA space a fault belongs to
 * @gpu:	the GPU that faulted
 * @instance:	the instance id from the fault entry
 *
 * Context: any; takes a reference the caller drops with uvm_va_space_put().
 * Return: the VA space, or NULL when it is gone.
 */
static inline struct uvm_va_space *uvm_va_space_get_by_instance(struct uvm_gpu *gpu,
								u32 instance)
{
	struct uvm_gpu_va_space *gvs;
	struct uvm_va_space *va_space = NULL;

	rcu_read_lock();
	gvs = xa_load(&gpu->instances, instance);
	if (gvs && kref_get_unless_zero(&gvs->va_space->kref))
		va_space = gvs->va_space;
	rcu_read_unlock();
	return va_space;
}

/**
 * uvm_va_space_gpu_va_space() - a VA space as @gpu sees it
 * @va_space:	the VA space
 * @gpu:	the GPU
 *
 * Return: the GPU VA space; valid as long as @va_space.
 */
static inline struct uvm_gpu_va_space *uvm_va_space_gpu_va_space(struct uvm_va_space *va_space,
								 struct uvm_gpu *gpu)
{
	return &va_space->gpu_va_spaces[gpu->index];
}

/**
 * uvm_va_space_check_mm() - is the caller the VA space's process?
 * @va_space:	the VA space of the file
 *
 * Return: 0, or -EPERM for any other mm (fork child, passed descriptor).
 */
static inline int uvm_va_space_check_mm(struct uvm_va_space *va_space)
{
	return current->mm == va_space->mm ? 0 : -EPERM;
}

struct uvm_va_space *uvm_va_space_create(struct inode *inode);
void uvm_va_space_destroy(struct uvm_va_space *va_space);
void uvm_va_space_put(struct uvm_va_space *va_space);
int uvm_va_space_residency(struct uvm_va_space *va_space, u64 start, u64 npages,
			   struct uvm_test_page_state *states,
			   struct uvm_test_page_state_sizes *sizes);

#endif /* _UVM_VA_SPACE_H_ */
