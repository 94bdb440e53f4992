// SPDX-License-Identifier: GPL-2.0 OR MIT
/* vm_flags_set()/vm_flags_clear() exist (6.3+); vm_flags is read-only then. */
#include <linux/mm.h>

void uvm_conftest(struct vm_area_struct *vma);
void uvm_conftest(struct vm_area_struct *vma)
{
	vm_flags_set(vma, VM_DONTCOPY);
	vm_flags_clear(vma, VM_MAYEXEC);
}
