// SPDX-License-Identifier: GPL-2.0 OR MIT
/* zap_page_range() exists (up to 6.2; zap_page_range_single() after). */
#include <linux/mm.h>

void uvm_conftest(struct vm_area_struct *vma, unsigned long start,
		  unsigned long size);
void uvm_conftest(struct vm_area_struct *vma, unsigned long start,
		  unsigned long size)
{
	zap_page_range(vma, start, size);
}
