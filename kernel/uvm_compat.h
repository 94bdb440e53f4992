/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Kernel API differences, hidden behind one set of helpers.
 *
 * DOC: Compatibility
 *
 * The UVM_HAVE_* macros come from the conftests in kernel/conftest/, run by
 * kbuild against the kernel being built for.  Only this header looks at
 * them.
 */
#ifndef _UVM_COMPAT_H_
#define _UVM_COMPAT_H_

#include <linux/memremap.h>
#include <linux/migrate.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/coredump.h>
#ifdef UVM_HAVE_TASK_EXEC_STATE
#include <linux/sched/exec_state.h>
#endif
#include <linux/shrinker.h>
#include <linux/slab.h>
#ifdef UVM_HAVE_LINUX_UNALIGNED_H
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif
#include <net/genetlink.h>

#include "uvm_netlink.h"

/*
 * Pageable memory migrates to device-private vidmem only where the kernel
 * has CONFIG_DEVICE_PRIVATE (a Kconfig symbol) and migrate_device_range()
 * (needed to evict device pages by pfn, whatever mm maps them).
 */
#if IS_ENABLED(CONFIG_DEVICE_PRIVATE) && defined(UVM_HAVE_MIGRATE_DEVICE_RANGE)
#define UVM_HMM_MIGRATION	1
#else
#define UVM_HMM_MIGRATION	0
#endif

static inline void uvm_vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
#ifdef UVM_HAVE_VM_FLAGS_SET
	vm_flags_set(vma, flags);
#else
	vma->vm_flags |= flags;
#endif
}

static inline void uvm_vm_flags_clear(struct vm_area_struct *vma,
				      vm_flags_t flags)
{
#ifdef UVM_HAVE_VM_FLAGS_SET
	vm_flags_clear(vma, flags);
#else
	vma->vm_flags &= ~flags;
#endif
}

/*
 * A shrinker: allocated and registered (6.7+), or embedded and registered
 * with or without a name (older kernels).  NULL on failure.
 */
static inline struct shrinker *
uvm_shrinker_create(const char *name,
		    unsigned long (*count)(struct shrinker *, struct shrink_control *),
		    unsigned long (*scan)(struct shrinker *, struct shrink_control *))
{
#ifdef UVM_HAVE_SHRINKER_ALLOC
	struct shrinker *s = shrinker_alloc(0, "%s", name);

	if (!s)
		return NULL;
	s->count_objects = count;
	s->scan_objects = scan;
	shrinker_register(s);
	return s;
#else
	struct shrinker *s = kzalloc(sizeof(*s), GFP_KERNEL);

	if (!s)
		return NULL;
	s->count_objects = count;
	s->scan_objects = scan;
	s->seeks = DEFAULT_SEEKS;
#ifdef UVM_HAVE_REGISTER_SHRINKER_NAME
	if (register_shrinker(s, "%s", name)) {
#else
	if (register_shrinker(s)) {
#endif
		kfree(s);
		return NULL;
	}
	return s;
#endif
}

static inline void uvm_shrinker_destroy(struct shrinker *s)
{
#ifdef UVM_HAVE_SHRINKER_ALLOC
	shrinker_free(s);
#else
	unregister_shrinker(s);
	kfree(s);
#endif
}

#if UVM_HMM_MIGRATION
/* The pagemap of a ZONE_DEVICE page (a folio field on newer kernels). */
static inline struct dev_pagemap *uvm_page_pgmap(const struct page *page)
{
#ifdef UVM_HAVE_PAGE_PGMAP
	return page_pgmap(page);
#else
	return page->pgmap;
#endif
}

/*
 * Hand out a free device-private page of @pgmap as an order-0 folio: its
 * refcount 1, locked, a reference on the pagemap taken.
 */
static inline void uvm_zone_device_page_init(struct page *page, struct dev_pagemap *pgmap)
{
#ifdef UVM_HAVE_ZONE_DEVICE_PAGE_INIT_PGMAP
	zone_device_page_init(page, pgmap, 0);
#else
	zone_device_page_init(page);
#endif
}

/*
 * dev_pagemap_ops' free callback: per folio on newer kernels, per page
 * before.  UVM_DEFINE_PGMAP_FREE(name, fn) defines @name, the callback of
 * the kernel's type, calling void fn(struct page *) with the (head) page;
 * UVM_PGMAP_FREE_OP(name) is its initializer in struct dev_pagemap_ops.
 * Only order-0 device folios are handed out (uvm_zone_device_page_init()).
 */
#ifdef UVM_HAVE_PGMAP_FOLIO_FREE
#define UVM_DEFINE_PGMAP_FREE(name, fn) \
	static void name(struct folio *folio) { fn(&folio->page); }
#define UVM_PGMAP_FREE_OP(name)	.folio_free = (name)
#else
#define UVM_DEFINE_PGMAP_FREE(name, fn) \
	static void name(struct page *page) { fn(page); }
#define UVM_PGMAP_FREE_OP(name)	.page_free = (name)
#endif

/* The page a CPU fault holds a reference to (6.1+ count it as expected). */
static inline void uvm_migrate_vma_set_fault_page(struct migrate_vma *args,
						  struct page *page)
{
#ifdef UVM_HAVE_MIGRATE_VMA_FAULT_PAGE
	args->fault_page = page;
#endif
}
#endif

/*
 * Drop the PTEs of [start, start + size) inside @vma, as MADV_DONTNEED does;
 * mmap_lock held.  Return: 0, or -EOPNOTSUPP where the kernel exports no way.
 */
static inline int uvm_zap_range(struct vm_area_struct *vma, unsigned long start,
				unsigned long size)
{
#if defined(UVM_HAVE_ZAP_PAGE_RANGE)
	zap_page_range(vma, start, size);
	return 0;
#elif defined(UVM_HAVE_ZAP_PAGE_RANGE_SINGLE)
	zap_page_range_single(vma, start, size, NULL);
	return 0;
#elif defined(UVM_HAVE_ZAP_VMA_RANGE)
	zap_vma_range(vma, start, size);
	return 0;
#else
	return -EOPNOTSUPP;
#endif
}

/*
 * Is @task's process dumpable by its owner (SUID_DUMP_USER), the rule
 * /proc/PID/maps and ptrace apply before showing a process to another one
 * of its user?  Newer kernels keep it in the task's exec state, older ones
 * in @mm's flags (@mm: the process's mm, or NULL when there is none).
 *
 * Context: RCU read lock held (@task from pid_task()).
 */
static inline bool uvm_task_dumpable(struct task_struct *task, struct mm_struct *mm)
{
#ifdef UVM_HAVE_TASK_EXEC_STATE
	return READ_ONCE(rcu_dereference(task->exec_state)->dumpable) == TASK_DUMPABLE_OWNER;
#else
	return mm && get_dumpable(mm) == SUID_DUMP_USER;
#endif
}

/*
 * Who may listen to the netlink events group (uvm_nl.c): filtered per
 * listener where the kernel can (genlmsg_multicast_netns_filtered()), else
 * members need CAP_SYS_ADMIN; 0 where neither exists (no event is sent).
 */
#if defined(UVM_HAVE_GENLMSG_MULTICAST_FILTERED)
#define UVM_NL_EVENTS_ACCESS		UVM_NL_EVENT_ACCESS_FILTERED
#define UVM_NL_EVENTS_GROUP_FLAGS	0
#elif defined(UVM_HAVE_GENL_MCAST_CAP_SYS_ADMIN)
#define UVM_NL_EVENTS_ACCESS		UVM_NL_EVENT_ACCESS_ADMIN
#define UVM_NL_EVENTS_GROUP_FLAGS	GENL_MCAST_CAP_SYS_ADMIN
#else
#define UVM_NL_EVENTS_ACCESS		0
#define UVM_NL_EVENTS_GROUP_FLAGS	0
#endif

/* The parsed attributes of a generic netlink dump request. */
static inline struct nlattr **uvm_genl_dump_attrs(struct netlink_callback *cb)
{
#ifdef UVM_HAVE_GENL_INFO_DUMP
	return genl_info_dump(cb)->attrs;
#else
	return genl_dumpit_info(cb)->attrs;
#endif
}

#endif /* _UVM_COMPAT_H_ */
