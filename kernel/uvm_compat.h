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

#endif /* _UVM_COMPAT_H_ */
