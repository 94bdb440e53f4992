// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Physical allocations of virtual memory management, their handles, and
 * sharing them by file descriptor.
 *
 * DOC: VMM allocations
 *
 * UVM_IOC_MEM_CREATE (cuMemCreate) allocates memory that has no address: a
 * GPU's vidmem in 2 MiB chunks (zeroed by its copy engine, counted in the
 * GPU's vidmem in use, never evicted: managed memory of any VA space is
 * evicted to make room), or host pages (zeroed, charged to the caller's
 * memory cgroup), on any node or on one NUMA node.  A host allocation's
 * pages are made accessible to every GPU (DMA addresses) at creation.
 *
 * A &struct uvm_mem lives while anything refers to it: each handle of a VA
 * space (whatever number of references the handle has), each mapping
 * (uvm_vmm.c), each exported file.  The last reference frees the chunks or
 * pages; by then no GPU or CPU mapping of them is left, since every mapping
 * holds a reference and revokes its PTEs before dropping it.
 *
 * Handles are small integers local to a VA space (an xarray).  A handle
 * counts its own references: MEM_CREATE and MEM_IMPORT make one with one
 * reference, MEM_QUERY with UVM_MEM_QUERY_RETAIN (cuMemRetainAllocationHandle)
 * adds one, MEM_RELEASE drops one and removes the handle with the last.
 * A mapping remembers the handle it was made with, so retaining through a
 * mapping whose handle was released brings the same value back.
 *
 * UVM_IOC_MEM_EXPORT makes an anonymous-inode file ("[uvm_mem]", O_CLOEXEC)
 * holding a reference; the descriptor may go to other processes (fork,
 * SCM_RIGHTS).  UVM_IOC_MEM_IMPORT in any VA space checks that the
 * descriptor's file is one of these and makes a handle for its allocation;
 * the exporter may be gone by then.  The files keep the module loaded.
 *
 * Locking: the handle xarray and its count change under the VA space lock
 * held for write (lookups need it for read).  A &struct uvm_mem is immutable
 * once created; its reference count is atomic.  Its backing is allocated and
 * freed without the VA space lock (MEM_CREATE takes the lock only to add the
 * handle; MEM_RELEASE and MEM_UNMAP drop their references after unlocking):
 * gigabytes of pages take seconds, and the process's other ioctls and GPU
 * faults would wait for them.
 */
#include <linux/anon_inodes.h>
#include <linux/bitmap.h>
#include <linux/delay.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/nodemask.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "uvm_ce.h"
#include "uvm_device_range.h"
#include "uvm_gpu.h"
#include "uvm_ioctl.h"
#include "uvm_mem.h"
#include "uvm_param.h"
#include "uvm_pmm.h"
#include "uvm_va_range.h"
#include "uvm_va_space.h"

/* Host allocations take their pages in runs of 2 MiB where they can. */
#define UVM_MEM_HOST_ORDER	(21 - PAGE_SHIFT)

static atomic64_t uvm_mem_next_id = ATOMIC64_INIT(0);

static inline u64 uvm_mem_npages(const struct uvm_mem *mem)
{
	return mem->size >> PAGE_SHIFT;
}

static inline u64 uvm_mem_nchunks(const struct uvm_mem *mem)
{
	return mem->size / UVM_MEM_GRANULARITY;
}

/**
 * uvm_mem_free_backing() - free what an allocation holds
 * @mem:	the allocation; its arrays may be partly filled (zero / NULL
 *		entries are skipped)
 */
static void uvm_mem_free_backing(struct uvm_mem *mem)
{
	u64 i;
	u32 g;

	if (mem->chunks) {
		for (i = 0; i < uvm_mem_nchunks(mem); i++)
			if (mem->chunks[i] != U64_MAX)
				uvm_pmm_free_chunk(mem->gpu, mem->chunks[i]);
		kvfree(mem->chunks);
	}
	for (g = 0; g < uvm_gpu_count; g++) {
		if (!mem->dma[g])
			continue;
		for (i = 0; i < uvm_mem_npages(mem); i++) {
			if (mem->dma[g][i])
				uvm_gpus[g]->ops->sysmem_unmap(uvm_gpus[g], mem->dma[g][i]);
			if (!((i + 1) % 512))
				cond_resched();
		}
		kvfree(mem->dma[g]);
	}
	if (mem->pages) {
		for (i = 0; i < uvm_mem_npages(mem); i++) {
			if (mem->runs && test_bit(i, mem->runs)) {
				/* a run: one call, then let others run */
				__free_pages(mem->pages[i], UVM_MEM_HOST_ORDER);
				i += (1U << UVM_MEM_HOST_ORDER) - 1;
				cond_resched();
			} else if (mem->pages[i]) {
				__free_page(mem->pages[i]);
			}
		}
		kvfree(mem->pages);
	}
	bitmap_free(mem->runs);	/* also where the page array failed */
}

static void uvm_mem_release_kref(struct kref *kref)
{
	struct uvm_mem *mem = container_of(kref, struct uvm_mem, kref);

	uvm_mem_free_backing(mem);
	kfree(mem);
}

/**
 * uvm_mem_put() - drop a reference; the last frees the memory
 * @mem:	the allocation
 *
 * Context: process context, may sleep.
 */
void uvm_mem_put(struct uvm_mem *mem)
{
	kref_put(&mem->kref, uvm_mem_release_kref);
}

/**
 * uvm_mem_alloc_vidmem() - back an allocation with zeroed vidmem chunks
 * @mem:	the allocation, @gpu and @size set
 *
 * Managed memory of any VA space, the caller's included, is evicted to make
 * room.
 *
 * Context: no VA space lock held.
 * Return: 0, -ENOMEM, -EINTR.
 */
static int uvm_mem_alloc_vidmem(struct uvm_mem *mem)
{
	u64 i, n = uvm_mem_nchunks(mem);
	int ret;

	mem->chunks = kvmalloc_array(n, sizeof(*mem->chunks), GFP_KERNEL_ACCOUNT);
	if (!mem->chunks)
		return -ENOMEM;
	memset(mem->chunks, 0xff, n * sizeof(*mem->chunks));
	for (i = 0; i < n; i++) {
		if (fatal_signal_pending(current))
			return -EINTR;
		ret = uvm_device_chunk_alloc(NULL, mem->gpu, &mem->chunks[i]);
		if (ret)
			return ret;
	}
	return uvm_device_chunks_zero(mem->gpu, mem->chunks, n);
}

/**
 * uvm_mem_alloc_host() - back an allocation with zeroed host pages
 * @mem:	the allocation, @location and @size set
 *
 * The pages are charged to the caller's memory cgroup and made accessible
 * to every GPU.  They come in runs of 2 MiB where the allocator has such
 * runs free, allocated and freed as one: one call into the allocator and
 * one charge per 512 pages (page by page, an 8 GiB request took over 180 s
 * to allocate on the debug kernel under TCG, and as long to free; seed
 * 4303, debug612).  Nothing takes references on the pages: the CPU maps
 * them by PFN, the GPUs by DMA address, the copy engine by physical
 * address.  A page the allocator
 * cannot find after one round of reclaim fails the allocation
 * (__GFP_NORETRY): a request for gigabytes on a machine short of memory
 * answers -ENOMEM rather than reclaiming page after page.
 *
 * Return: 0, -ENOMEM, -EINTR, or -errno of a GPU's sysmem_map().
 */
static int uvm_mem_alloc_host(struct uvm_mem *mem)
{
	gfp_t gfp = GFP_HIGHUSER | __GFP_ZERO | __GFP_ACCOUNT | __GFP_NOWARN |
		    __GFP_NORETRY;
	u64 i, n = uvm_mem_npages(mem);
	int nid = NUMA_NO_NODE;
	unsigned int order = 0;
	u32 g;
	int ret;

	if (mem->location.type == UVM_LOCATION_HOST_NUMA) {
		nid = mem->location.id;
		gfp |= __GFP_THISNODE;
	}
	mem->pages = kvcalloc(n, sizeof(*mem->pages), GFP_KERNEL_ACCOUNT);
	mem->runs = bitmap_zalloc(n, GFP_KERNEL_ACCOUNT);
	if (!mem->pages || !mem->runs)
		return -ENOMEM;
	for (i = 0; i < n; i += 1U << order) {
		struct page *page = NULL;
		u32 j;

		if (fatal_signal_pending(current))
			return -EINTR;
		/* a run of 2 MiB if one is free (no reclaim for it), else a page */
		order = n - i >= 1U << UVM_MEM_HOST_ORDER ? UVM_MEM_HOST_ORDER : 0;
		if (order)
			page = alloc_pages_node(nid, (gfp & ~__GFP_DIRECT_RECLAIM) |
						__GFP_NOMEMALLOC, order);
		if (!page) {
			order = 0;
			page = alloc_pages_node(nid, gfp, 0);
		}
		if (!page)
			return -ENOMEM;
		if (order)
			__set_bit(i, mem->runs);
		for (j = 0; j < 1U << order; j++)
			mem->pages[i + j] = page + j;
		cond_resched();
	}
	for (g = 0; g < uvm_gpu_count; g++) {
		mem->dma[g] = kvcalloc(n, sizeof(**mem->dma), GFP_KERNEL_ACCOUNT);
		if (!mem->dma[g])
			return -ENOMEM;
		for (i = 0; i < n; i++) {
			ret = uvm_gpus[g]->ops->sysmem_map(uvm_gpus[g], mem->pages[i],
							   &mem->dma[g][i]);
			if (ret) {
				mem->dma[g][i] = 0;
				return ret;
			}
			if (!((i + 1) % 512))
				cond_resched();
		}
	}
	return 0;
}

#if IS_ENABLED(CONFIG_UVM_TEST)
/*
 * Test builds: a pause at the end of allocating the backing of a new
 * allocation, which stands for an allocation of gigabytes and lets a test
 * check what the rest of the process can do meanwhile.
 */
static struct uvm_param_uint mem_create_pause_ms = {
	.val = 0,
	.min = 0,
	.max = 5000,
};
module_param_cb(mem_create_pause_ms, &uvm_param_uint_ops, &mem_create_pause_ms, 0644);
MODULE_PARM_DESC(mem_create_pause_ms,
		 "Test builds: milliseconds MEM_CREATE pauses with the backing allocated (default 0)");

static void uvm_mem_create_pause(void)
{
	unsigned int ms = uvm_param_get(&mem_create_pause_ms);

	if (ms)
		msleep(ms);
}
#else
static void uvm_mem_create_pause(void)
{
}
#endif

/**
 * uvm_mem_create() - a new allocation
 * @args:	the validated request
 *
 * Context: process context, no VA space lock held (it may take seconds).
 * Return: the allocation with one reference, or ERR_PTR(-errno).
 */
static struct uvm_mem *uvm_mem_create(const struct uvm_ioc_mem_create *args)
{
	struct uvm_mem *mem;
	int ret;

	mem = kzalloc(sizeof(*mem), GFP_KERNEL_ACCOUNT);
	if (!mem)
		return ERR_PTR(-ENOMEM);
	kref_init(&mem->kref);
	mem->id = atomic64_inc_return(&uvm_mem_next_id);
	mem->size = args->size;
	mem->location = args->location;
	mem->handle_types = args->handle_types;
	if (args->location.type == UVM_LOCATION_GPU) {
		mem->gpu = uvm_gpu_get(args->location.id);
		ret = uvm_mem_alloc_vidmem(mem);
	} else {
		if (args->location.type == UVM_LOCATION_HOST)
			mem->location.id = 0;
		ret = uvm_mem_alloc_host(mem);
	}
	if (ret) {
		uvm_mem_put(mem);
		return ERR_PTR(ret);
	}
	uvm_mem_create_pause();
	return mem;
}

/**
 * uvm_mem_phys() - where a page of an allocation is, for a GPU
 * @mem:	the allocation
 * @offset:	page-aligned offset into it
 * @gpu:	the GPU that accesses it
 * @addr:	out: a vidmem address (local or peer) or a DMA address
 *
 * Return: 0.
 */
int uvm_mem_phys(struct uvm_mem *mem, u64 offset, struct uvm_gpu *gpu,
		 struct uvm_gpu_address *addr)
{
	if (!uvm_mem_is_host(mem)) {
		*addr = (struct uvm_gpu_address){
			.addr = mem->chunks[offset / UVM_MEM_GRANULARITY] +
				(offset & (UVM_MEM_GRANULARITY - 1)),
			.aperture = UVM_APERTURE_VID,
			.gpu = mem->gpu->index,
		};
		return 0;
	}
	*addr = (struct uvm_gpu_address){
		.addr = mem->dma[gpu->index][offset >> PAGE_SHIFT],
		.aperture = UVM_APERTURE_SYS,
	};
	return 0;
}

/**
 * uvm_mem_page() - the host page holding a byte of a host allocation
 * @mem:	a host-located allocation
 * @offset:	offset into it
 *
 * Return: the page.
 */
struct page *uvm_mem_page(struct uvm_mem *mem, u64 offset)
{
	return mem->pages[offset >> PAGE_SHIFT];
}

/* Handles */

/**
 * uvm_mem_handle_lookup() - the allocation behind a handle
 * @va_space:	the VA space; its lock held
 * @handle:	the handle value from userspace
 *
 * Return: the allocation (no reference taken), or NULL.
 */
struct uvm_mem *uvm_mem_handle_lookup(struct uvm_va_space *va_space, u64 handle)
{
	struct uvm_mem_handle *h;

	lockdep_assert_held(&va_space->lock);
	if (!handle || handle > U32_MAX)
		return NULL;
	h = xa_load(&va_space->mem_handles, handle);
	return h ? h->mem : NULL;
}

/**
 * uvm_mem_handle_new() - a new handle for an allocation
 * @va_space:	the VA space; its lock held for write
 * @mem:	the allocation; the handle takes its own reference
 * @handle:	in: the value wanted, or 0 for any; out: the value
 *
 * Return: 0, -ENOSPC past UVM_MEM_MAX_HANDLES, -EBUSY when the value wanted
 * is taken, -ENOMEM.
 */
static int uvm_mem_handle_new(struct uvm_va_space *va_space, struct uvm_mem *mem,
			      u64 *handle)
{
	struct uvm_mem_handle *h;
	u32 id = *handle;
	int ret;

	lockdep_assert_held_write(&va_space->lock);
	if (va_space->nr_mem_handles >= UVM_MEM_MAX_HANDLES)
		return -ENOSPC;
	h = kmalloc(sizeof(*h), GFP_KERNEL_ACCOUNT);
	if (!h)
		return -ENOMEM;
	h->mem = mem;
	h->refs = 1;
	if (id)
		ret = xa_insert(&va_space->mem_handles, id, h, GFP_KERNEL_ACCOUNT);
	else
		ret = xa_alloc_cyclic(&va_space->mem_handles, &id, h,
				      XA_LIMIT(1, INT_MAX), &va_space->mem_handle_next,
				      GFP_KERNEL_ACCOUNT);
	if (ret < 0) {
		kfree(h);
		return ret == -EBUSY && !*handle ? -ENOSPC : ret;
	}
	uvm_mem_get(mem);
	va_space->nr_mem_handles++;
	*handle = id;
	return 0;
}

/**
 * uvm_mem_handle_retain() - one more reference on the handle of a mapping
 * @va_space:	the VA space; its lock held for write
 * @handle:	in: the handle the mapping was made with; out: the handle
 *		retained (the same, unless that value now names another
 *		allocation)
 * @mem:	the mapping's allocation
 *
 * Return: 0, -ENOSPC, -ENOMEM.
 */
int uvm_mem_handle_retain(struct uvm_va_space *va_space, u64 *handle,
			  struct uvm_mem *mem)
{
	struct uvm_mem_handle *h;
	int ret;

	lockdep_assert_held_write(&va_space->lock);
	h = xa_load(&va_space->mem_handles, *handle);
	if (h && h->mem == mem) {
		h->refs++;
		return 0;
	}
	if (h)
		*handle = 0;
	ret = uvm_mem_handle_new(va_space, mem, handle);
	if (ret == -EBUSY) {
		*handle = 0;
		ret = uvm_mem_handle_new(va_space, mem, handle);
	}
	return ret;
}

/**
 * uvm_mem_handles_destroy() - drop every handle (release of the VA space)
 * @va_space:	the VA space, no longer reachable by ioctls
 */
void uvm_mem_handles_destroy(struct uvm_va_space *va_space)
{
	struct uvm_mem_handle *h;
	unsigned long id;

	xa_for_each(&va_space->mem_handles, id, h) {
		uvm_mem_put(h->mem);
		kfree(h);
		cond_resched();
	}
	xa_destroy(&va_space->mem_handles);
	va_space->nr_mem_handles = 0;
}

/* ioctls */

/**
 * uvm_mem_location_check() - validate where an allocation should live
 * @loc:	the location
 *
 * Return: 0, -EINVAL for a bad type, -ENODEV for a bad GPU or node.
 */
static int uvm_mem_location_check(const struct uvm_location *loc)
{
	switch (loc->type) {
	case UVM_LOCATION_GPU:
		return uvm_gpu_get(loc->id) ? 0 : -ENODEV;
	case UVM_LOCATION_HOST:
		return 0;
	case UVM_LOCATION_HOST_NUMA:
		if (loc->id < 0 || loc->id >= MAX_NUMNODES ||
		    !node_state(loc->id, N_MEMORY))
			return -ENODEV;
		return 0;
	default:
		return -EINVAL;
	}
}

/**
 * uvm_ioc_mem_create() - UVM_IOC_MEM_CREATE
 * @va_space:	the VA space
 * @data:	struct uvm_ioc_mem_create
 *
 * Return: 0 or -errno (see uapi/uvm.h).
 */
int uvm_ioc_mem_create(struct uvm_va_space *va_space, void *data)
{
	struct uvm_ioc_mem_create *args = data;
	struct uvm_mem *mem;
	int ret;

	args->handle = 0;
	if (args->flags || memchr_inv(args->reserved, 0, sizeof(args->reserved)))
		return -EINVAL;
	if (!args->size || !IS_ALIGNED(args->size, UVM_MEM_GRANULARITY))
		return -EINVAL;
	if (args->handle_types & ~UVM_MEM_HANDLE_FD)
		return -EINVAL;
	ret = uvm_mem_location_check(&args->location);
	if (ret)
		return ret;
	/* Memory of any node is not shareable, as with NVIDIA's driver. */
	if (args->location.type == UVM_LOCATION_HOST && args->handle_types)
		return -EINVAL;
	if (args->location.type == UVM_LOCATION_GPU &&
	    args->size > uvm_gpu_get(args->location.id)->props.vidmem_size)
		return -ENOMEM;
	/*
	 * Host memory: more than the machine could free for it fails at once,
	 * not after minutes of allocating (the estimate counts reclaimable
	 * caches; a request just below it may still fail, page by page).
	 */
	if (args->location.type != UVM_LOCATION_GPU &&
	    (args->size >> PAGE_SHIFT > totalram_pages() ||
	     args->size >> PAGE_SHIFT > (u64)max(si_mem_available(), 0L)))
		return -ENOMEM;

	/*
	 * Gigabytes of pages take long to allocate and zero: the VA space lock
	 * is not held meanwhile (only to add the handle), so that the process's
	 * other threads and its GPU faults go on.  The handle limit is checked
	 * first so as not to allocate for nothing, and again when adding.
	 */
	if (down_read_killable(&va_space->lock))
		return -EINTR;
	ret = va_space->nr_mem_handles >= UVM_MEM_MAX_HANDLES ? -ENOSPC : 0;
	up_read(&va_space->lock);
	if (ret)
		return ret;
	mem = uvm_mem_create(args);
	if (IS_ERR(mem))
		return PTR_ERR(mem);
	if (down_write_killable(&va_space->lock)) {
		ret = -EINTR;
	} else {
		ret = uvm_mem_handle_new(va_space, mem, &args->handle);
		up_write(&va_space->lock);
	}
	/* the handle's reference keeps it; on failure this frees it, unlocked */
	uvm_mem_put(mem);
	return ret;
}

/**
 * uvm_ioc_mem_release() - UVM_IOC_MEM_RELEASE
 * @va_space:	the VA space
 * @data:	struct uvm_ioc_mem_release
 *
 * Return: 0, -ENOENT, -EINVAL.
 */
int uvm_ioc_mem_release(struct uvm_va_space *va_space, void *data)
{
	struct uvm_ioc_mem_release *args = data;
	struct uvm_mem_handle *h = NULL;
	struct uvm_mem *mem = NULL;

	if (memchr_inv(args->reserved, 0, sizeof(args->reserved)))
		return -EINVAL;
	if (!args->handle || args->handle > U32_MAX)
		return -ENOENT;
	down_write(&va_space->lock);
	h = xa_load(&va_space->mem_handles, args->handle);
	if (h && !--h->refs) {
		xa_erase(&va_space->mem_handles, args->handle);
		va_space->nr_mem_handles--;
		mem = h->mem;
		kfree(h);
	}
	up_write(&va_space->lock);
	if (mem)
		uvm_mem_put(mem);
	return h ? 0 : -ENOENT;
}

/**
 * uvm_ioc_mem_props() - UVM_IOC_MEM_PROPS
 * @va_space:	the VA space
 * @data:	struct uvm_ioc_mem_props
 *
 * Return: 0, -ENOENT, -EINVAL.
 */
int uvm_ioc_mem_props(struct uvm_va_space *va_space, void *data)
{
	struct uvm_ioc_mem_props *args = data;
	struct uvm_mem *mem;

	if (args->flags || memchr_inv(args->reserved, 0, sizeof(args->reserved)))
		return -EINVAL;
	down_read(&va_space->lock);
	mem = uvm_mem_handle_lookup(va_space, args->handle);
	if (mem) {
		args->size = mem->size;
		args->location = mem->location;
		args->handle_types = mem->handle_types;
		args->alloc_id = mem->id;
	}
	up_read(&va_space->lock);
	return mem ? 0 : -ENOENT;
}

static int uvm_mem_file_release(struct inode *inode, struct file *file)
{
	uvm_mem_put(file->private_data);
	return 0;
}

/* Exported allocations: the file only carries the reference. */
static const struct file_operations uvm_mem_fops = {
	.owner = THIS_MODULE,
	.release = uvm_mem_file_release,
	.llseek = noop_llseek,
};

/**
 * uvm_ioc_mem_export() - UVM_IOC_MEM_EXPORT
 * @va_space:	the VA space
 * @data:	struct uvm_ioc_mem_export
 * @out:	the file carrying the reference and its descriptor, installed
 *		by the dispatcher once @data reached the caller
 *
 * Return: 0 or -errno (see uapi/uvm.h).
 */
int uvm_ioc_mem_export(struct uvm_va_space *va_space, void *data,
		       struct uvm_ioctl_file *out)
{
	struct uvm_ioc_mem_export *args = data;
	struct uvm_mem *mem;
	struct file *file;
	int fd;

	args->fd = -1;
	if (args->flags || args->pad ||
	    memchr_inv(args->reserved, 0, sizeof(args->reserved)))
		return -EINVAL;
	if (args->handle_type != UVM_MEM_HANDLE_FD)
		return -EINVAL;
	down_read(&va_space->lock);
	mem = uvm_mem_handle_lookup(va_space, args->handle);
	if (mem)
		uvm_mem_get(mem);
	up_read(&va_space->lock);
	if (!mem)
		return -ENOENT;
	if (!(mem->handle_types & args->handle_type)) {
		uvm_mem_put(mem);
		return -EINVAL;
	}
	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		uvm_mem_put(mem);
		return fd;
	}
	file = anon_inode_getfile("[uvm_mem]", &uvm_mem_fops, mem, O_RDWR | O_CLOEXEC);
	if (IS_ERR(file)) {
		put_unused_fd(fd);
		uvm_mem_put(mem);
		return PTR_ERR(file);
	}
	out->file = file;
	out->fd = fd;
	args->fd = fd;
	return 0;
}

/**
 * uvm_ioc_mem_import() - UVM_IOC_MEM_IMPORT
 * @va_space:	the VA space
 * @data:	struct uvm_ioc_mem_import
 *
 * Return: 0 or -errno (see uapi/uvm.h).
 */
int uvm_ioc_mem_import(struct uvm_va_space *va_space, void *data)
{
	struct uvm_ioc_mem_import *args = data;
	struct file *file;
	int ret;

	args->handle = 0;
	if (args->flags || memchr_inv(args->reserved, 0, sizeof(args->reserved)))
		return -EINVAL;
	if (args->fd < 0)
		return -EBADF;
	file = fget(args->fd);
	if (!file)
		return -EBADF;
	if (file->f_op != &uvm_mem_fops) {
		fput(file);
		return -EINVAL;
	}
	down_write(&va_space->lock);
	ret = uvm_mem_handle_new(va_space, file->private_data, &args->handle);
	up_write(&va_space->lock);
	fput(file);
	return ret;
}
