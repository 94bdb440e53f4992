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

#include <linux/migrate.h>
#include <linux/mm.h>
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
#else
	return -EOPNOTSUPP;
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
