// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * dev_pagemap_ops frees device memory per folio, .folio_free (6.19+),
 * where older kernels call .page_free per page.
 */
#include <linux/memremap.h>

static void uvm_conftest_free(struct folio *folio)
{
}

const struct dev_pagemap_ops uvm_conftest_ops;
const struct dev_pagemap_ops uvm_conftest_ops = {
	.folio_free = uvm_conftest_free,
};
