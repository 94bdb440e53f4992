// SPDX-License-Identifier: GPL-2.0 OR MIT
/* zap_page_range_single() is exported (6.3+, replacing zap_page_range()). */
#include <linux/mm.h>

void uvm_conftest(struct vm_area_struct *vma, unsigned long start,
		  unsigned long size);
void uvm_conftest(struct vm_area_struct *vma, unsigned long start,
		  unsigned long size)
{
	zap_page_range_single(vma, start, size, NULL);
}
