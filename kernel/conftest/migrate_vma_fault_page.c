// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * struct migrate_vma has fault_page (6.1): migrate_to_ram() must name the
 * page the CPU faulted on, which the fault path holds a reference to.
 */
#include <linux/migrate.h>

void uvm_conftest(struct migrate_vma *args, struct page *page);
void uvm_conftest(struct migrate_vma *args, struct page *page)
{
	args->fault_page = page;
}
