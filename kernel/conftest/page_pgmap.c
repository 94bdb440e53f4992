// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * page_pgmap() exists: a ZONE_DEVICE page's pagemap is read through it, the
 * pgmap field having moved from struct page to struct folio (6.14+).
 */
#include <linux/mm.h>

struct dev_pagemap *uvm_conftest(const struct page *page);
struct dev_pagemap *uvm_conftest(const struct page *page)
{
	return page_pgmap(page);
}
