// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * zap_vma_range() exists and is exported (7.2+ have it; it replaced
 * zap_page_range_single() and its unused details argument).
 */
#include <linux/mm.h>

void uvm_conftest(struct vm_area_struct *vma, unsigned long start, unsigned long size);
void uvm_conftest(struct vm_area_struct *vma, unsigned long start, unsigned long size)
{
	zap_vma_range(vma, start, size);
}
