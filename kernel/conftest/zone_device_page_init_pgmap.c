// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * zone_device_page_init() takes the pagemap and an order (6.19+): the page
 * becomes the head of a device folio of 2^order pages of that pagemap.
 */
#include <linux/memremap.h>

void uvm_conftest(struct page *page, struct dev_pagemap *pgmap);
void uvm_conftest(struct page *page, struct dev_pagemap *pgmap)
{
	zone_device_page_init(page, pgmap, 0);
}
