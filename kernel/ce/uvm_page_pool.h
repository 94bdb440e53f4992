/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Recycled CPU pages for migration destinations.
 */
#ifndef _UVM_PAGE_POOL_H_
#define _UVM_PAGE_POOL_H_

#include <linux/list.h>
#include <linux/spinlock.h>

struct page;

/**
 * struct uvm_page_pool - CPU pages a VA space freed, for reuse
 * @lock:	protects @pages and @count; a leaf lock
 * @pages:	the pages, linked through page->lru
 * @count:	pages in @pages
 * @link:	in the global list of pools the shrinker walks
 */
struct uvm_page_pool {
	spinlock_t lock; /* see above */
	struct list_head pages;
	unsigned long count;
	struct list_head link;
};

int uvm_page_pool_module_init(void);
void uvm_page_pool_module_exit(void);
void uvm_page_pool_init(struct uvm_page_pool *pool);
void uvm_page_pool_destroy(struct uvm_page_pool *pool);
struct page *uvm_page_pool_get(struct uvm_page_pool *pool, int nid);
void uvm_page_pool_put(struct uvm_page_pool *pool, struct page *page);

#endif /* _UVM_PAGE_POOL_H_ */
