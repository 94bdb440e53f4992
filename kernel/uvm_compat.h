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

#include <linux/mm.h>
#include <linux/shrinker.h>
#include <linux/slab.h>

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

#endif /* _UVM_COMPAT_H_ */
