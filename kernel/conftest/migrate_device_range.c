// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * migrate_device_range() exists (6.2, and 6.1.y stable): device-private
 * pages can be evicted by pfn, whatever mm maps them.
 */
#include <linux/migrate.h>

int uvm_conftest(unsigned long *src, unsigned long start, unsigned long npages);
int uvm_conftest(unsigned long *src, unsigned long start, unsigned long npages)
{
	return migrate_device_range(src, start, npages);
}
