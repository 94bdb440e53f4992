// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Recycled CPU pages for migration destinations.
 *
 * DOC: Page pool
 *
 * Migrating to the CPU needs a CPU page per page moved, and the kernel
 * zeroes every page it allocates when init_on_alloc is on (Debian's
 * default): most of the cost of a migration to host memory was zeroing a
 * page about to be overwritten.  So the CPU pages a VA space frees (pages
 * that moved to a GPU, evicted or discarded copies) go to the VA space's
 * pool, up to page_pool_mb, and migrations to the CPU take their
 * destination pages from it.  Only copy destinations come from the pool,
 * never pages that must read as zeros (first touch), and a pool serves only
 * its own VA space, so no data crosses processes and the memory stays
 * charged to the process that allocated it.  A shrinker gives pooled pages
 * back under memory pressure; releasing the VA space frees its pool.
 *
 * Locking: uvm_page_pool.lock (spinlock, leaf) protects one pool;
 * uvm_page_pools_lock (spinlock) the global list of pools, taken before a
 * pool's lock by the shrinker only.
 */
#include <linux/atomic.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>

#include "uvm_compat.h"
#include "uvm_page_pool.h"
#include "uvm_param.h"

#define UVM_PAGE_POOL_MB_DEFAULT	64
#define UVM_PAGE_POOL_MB_MAX		65536

static struct uvm_param_uint page_pool_mb = {
	.val = UVM_PAGE_POOL_MB_DEFAULT,
	.min = 0,
	.max = UVM_PAGE_POOL_MB_MAX,
};
module_param_cb(page_pool_mb, &uvm_param_uint_ops, &page_pool_mb, 0644);
MODULE_PARM_DESC(page_pool_mb,
		 "CPU pages per VA space kept for reuse by migrations to the CPU, MiB (default "
		 __stringify(UVM_PAGE_POOL_MB_DEFAULT) ", 0: off, at most "
		 __stringify(UVM_PAGE_POOL_MB_MAX) ")");

static LIST_HEAD(uvm_page_pools);
static DEFINE_SPINLOCK(uvm_page_pools_lock);	/* the list of pools */
static atomic_long_t uvm_page_pool_total;	/* pages in all pools */
static struct shrinker *uvm_page_pool_shrinker;

/**
 * uvm_page_pool_get() - a recycled page for a copy destination
 * @pool:	the VA space's pool
 * @nid:	the NUMA node it must be on, or NUMA_NO_NODE
 *
 * The page holds old data of the same VA space: only for pages that are
 * overwritten entirely before anyone can see them.
 *
 * Return: a page, or NULL (allocate one).
 */
struct page *uvm_page_pool_get(struct uvm_page_pool *pool, int nid)
{
	struct page *page = NULL;

	spin_lock(&pool->lock);
	if (pool->count) {
		page = list_first_entry(&pool->pages, struct page, lru);
		if (nid != NUMA_NO_NODE && page_to_nid(page) != nid) {
			page = NULL;
		} else {
			list_del(&page->lru);
			pool->count--;
		}
	}
	spin_unlock(&pool->lock);
	if (page)
		atomic_long_dec(&uvm_page_pool_total);
	return page;
}

/**
 * uvm_page_pool_put() - give a CPU page back
 * @pool:	the VA space's pool
 * @page:	a page nothing maps any more
 *
 * Kept for reuse while the pool is below page_pool_mb, else freed.
 */
void uvm_page_pool_put(struct uvm_page_pool *pool, struct page *page)
{
	unsigned long cap = (unsigned long)uvm_param_get(&page_pool_mb) << (20 - PAGE_SHIFT);
	bool kept = false;

	spin_lock(&pool->lock);
	if (pool->count < cap) {
		list_add(&page->lru, &pool->pages);
		pool->count++;
		kept = true;
	}
	spin_unlock(&pool->lock);
	if (kept)
		atomic_long_inc(&uvm_page_pool_total);
	else
		__free_page(page);
}

/**
 * uvm_page_pool_trim() - free up to @nr pages of a pool
 * @pool:	the pool
 * @nr:		pages
 *
 * Return: pages freed.
 */
static unsigned long uvm_page_pool_trim(struct uvm_page_pool *pool, unsigned long nr)
{
	unsigned long freed = 0;
	struct page *page;
	LIST_HEAD(victims);

	spin_lock(&pool->lock);
	while (freed < nr && pool->count) {
		page = list_first_entry(&pool->pages, struct page, lru);
		list_move(&page->lru, &victims);
		pool->count--;
		freed++;
	}
	spin_unlock(&pool->lock);
	atomic_long_sub(freed, &uvm_page_pool_total);
	while (!list_empty(&victims)) {
		page = list_first_entry(&victims, struct page, lru);
		list_del(&page->lru);
		__free_page(page);
	}
	return freed;
}

static unsigned long uvm_page_pool_count(struct shrinker *s, struct shrink_control *sc)
{
	long total = atomic_long_read(&uvm_page_pool_total);

	return total > 0 ? total : SHRINK_EMPTY;
}

static unsigned long uvm_page_pool_scan(struct shrinker *s, struct shrink_control *sc)
{
	struct uvm_page_pool *pool;
	unsigned long freed = 0;

	spin_lock(&uvm_page_pools_lock);
	list_for_each_entry(pool, &uvm_page_pools, link) {
		if (freed >= sc->nr_to_scan)
			break;
		freed += uvm_page_pool_trim(pool, sc->nr_to_scan - freed);
	}
	spin_unlock(&uvm_page_pools_lock);
	return freed ? freed : SHRINK_STOP;
}

/**
 * uvm_page_pool_init() - set up the pool of a new VA space
 * @pool:	the pool
 */
void uvm_page_pool_init(struct uvm_page_pool *pool)
{
	spin_lock_init(&pool->lock);
	INIT_LIST_HEAD(&pool->pages);
	spin_lock(&uvm_page_pools_lock);
	list_add(&pool->link, &uvm_page_pools);
	spin_unlock(&uvm_page_pools_lock);
}

/**
 * uvm_page_pool_destroy() - free a pool's pages
 * @pool:	the pool of a VA space being freed
 */
void uvm_page_pool_destroy(struct uvm_page_pool *pool)
{
	spin_lock(&uvm_page_pools_lock);
	list_del(&pool->link);
	spin_unlock(&uvm_page_pools_lock);
	uvm_page_pool_trim(pool, ULONG_MAX);
}

/**
 * uvm_page_pool_module_init() - register the shrinker
 *
 * Return: 0 or -ENOMEM.
 */
int uvm_page_pool_module_init(void)
{
	uvm_page_pool_shrinker = uvm_shrinker_create("uvm-page-pool", uvm_page_pool_count,
						     uvm_page_pool_scan);
	return uvm_page_pool_shrinker ? 0 : -ENOMEM;
}

/**
 * uvm_page_pool_module_exit() - unregister the shrinker
 */
void uvm_page_pool_module_exit(void)
{
	uvm_shrinker_destroy(uvm_page_pool_shrinker);
}
