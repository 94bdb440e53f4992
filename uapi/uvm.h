/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * uvm.h - the production ioctl ABI of the open Unified Virtual Memory driver.
 *
 * This header is the single source of the ABI: the kernel module, libuvm and
 * the tests all include it.  Rules every structure here follows:
 *
 *  - only fixed-width __u8/__u16/__u32/__u64 members, no enums, bools,
 *    pointers or bitfields;
 *  - user pointers travel as __u64 *_ptr fields, arrays as a pointer plus a
 *    count;
 *  - explicit padding, every size a multiple of 8 and identical on i386 and
 *    x86-64 (guarded by static_assert in the module and in libuvm);
 *  - flags, pad and reserved members must be zero, the module answers
 *    -EINVAL otherwise, so userspace can probe new flags by fallback;
 *  - enumerated values start at 1, 0 catches uninitialised fields;
 *  - structures grow only by appending members; the module copies in
 *    min(user size, kernel size) bytes and zero-extends.
 *
 * Changelog:
 *  1.0  GET_VERSION, GPU_INFO, GET_COUNTERS; managed memory by mmap().
 *  1.1  ADVISE, MIGRATE (prefetch, discard, discard-and-prefetch batches,
 *       synchronous or asynchronous with fences), FENCE_WAIT, RANGE_QUERY,
 *       POINTER_INFO.
 *  1.2  Device memory (mmap at UVM_MMAP_DEVICE(gpu)), HOST_REGISTER,
 *       HOST_UNREGISTER, COPY and MEMSET through the copy engines;
 *       POINTER_INFO reports the kind and GPU of an allocation.
 */
#ifndef _UAPI_UVM_H_
#define _UAPI_UVM_H_

#include <linux/ioctl.h>
#include <linux/types.h>

#define UVM_API_VERSION_MAJOR	1
#define UVM_API_VERSION_MINOR	2

/* Name of the device node under /dev. */
#define UVM_DEVICE_NAME		"uvm"

/* Production ioctls use numbers 0x00-0x7f, test ioctls (uvm_test.h) 0x80-0xbf. */
#define UVM_IOC_MAGIC		0xD5

/*
 * Processors.  A processor id is 0 for the CPU and 1 + GPU index for a GPU.
 * Processor masks are __u64 with bit (processor id) set; a mask therefore
 * covers the CPU and at most UVM_MAX_GPUS GPUs.
 */
#define UVM_PROCESSOR_CPU	0
#define UVM_MAX_GPUS		32
#define UVM_PROCESSOR_GPU(idx)	(1 + (idx))
#define UVM_PROCESSOR_MASK(id)	(1ULL << (id))

/* Size and alignment of a VA block: the unit of fault servicing and locking. */
#define UVM_VA_BLOCK_SHIFT	21
#define UVM_VA_BLOCK_SIZE	(1ULL << UVM_VA_BLOCK_SHIFT)

/* struct uvm_ioc_version::caps */
#define UVM_CAP_TEST_IOCTLS	(1ULL << 0)	/* uvm_test.h ioctls are built in */
#define UVM_CAP_DEVICE_PRIVATE	(1ULL << 1)	/* pageable memory can migrate */
#define UVM_CAP_HMM_MIRROR	(1ULL << 2)	/* pageable memory is mirrored */

/**
 * struct uvm_ioc_version - UVM_IOC_GET_VERSION
 * @major:	(out) UVM_API_VERSION_MAJOR of the module
 * @minor:	(out) UVM_API_VERSION_MINOR of the module
 * @num_gpus:	(out) number of GPUs the module drives
 * @page_size:	(out) the CPU page size the module manages memory in
 * @caps:	(out) UVM_CAP_* flags
 * @reserved:	must be zero
 */
struct uvm_ioc_version {
	__u32 major;
	__u32 minor;
	__u32 num_gpus;
	__u32 page_size;
	__u64 caps;
	__u64 reserved[4];
};

/* struct uvm_ioc_gpu_info::flags (out) */
#define UVM_GPU_SIMULATED	(1U << 0)	/* backed by the simulated GPU */

/**
 * struct uvm_ioc_gpu_info - UVM_IOC_GPU_INFO: describe one GPU
 * @gpu_index:		(in) 0 .. num_gpus - 1
 * @flags:		(out) UVM_GPU_* flags
 * @vidmem_size:	(out) bytes of GPU memory
 * @vidmem_used:	(out) bytes of GPU memory allocated by the driver now
 * @fault_buffer_entries: (out) entries of the replayable fault buffer
 * @fault_batch_size:	(out) faults fetched per servicing batch
 * @copy_engines:	(out) number of copy engines
 * @pad:		must be zero
 * @uuid:		(out) stable 16-byte identifier
 * @name:		(out) NUL-terminated marketing name
 * @reserved:		must be zero
 */
struct uvm_ioc_gpu_info {
	__u32 gpu_index;
	__u32 flags;
	__u64 vidmem_size;
	__u64 vidmem_used;
	__u32 fault_buffer_entries;
	__u32 fault_batch_size;
	__u32 copy_engines;
	__u32 pad;
	__u8  uuid[16];
	char  name[64];
	__u64 reserved[4];
};

/*
 * Counters of a VA space, indices into the array UVM_IOC_GET_COUNTERS fills.
 * New counters are only appended.
 */
#define UVM_COUNTER_GPU_FAULTS		0  /* fault entries fetched from fault buffers */
#define UVM_COUNTER_GPU_FAULTS_DUP	1  /* of those, duplicates coalesced away */
#define UVM_COUNTER_GPU_FAULT_BATCHES	2  /* servicing batches with at least one fault */
#define UVM_COUNTER_GPU_REPLAYS		3  /* replays issued after servicing */
#define UVM_COUNTER_GPU_FATAL_FAULTS	4  /* faults cancelled as fatal */
#define UVM_COUNTER_CPU_FAULTS		5  /* CPU page faults serviced */
#define UVM_COUNTER_PAGES_H2D		6  /* pages copied CPU -> GPU */
#define UVM_COUNTER_PAGES_D2H		7  /* pages copied GPU -> CPU */
#define UVM_COUNTER_PAGES_D2D		8  /* pages copied GPU -> GPU */
#define UVM_COUNTER_BYTES_H2D		9
#define UVM_COUNTER_BYTES_D2H		10
#define UVM_COUNTER_BYTES_D2D		11
#define UVM_COUNTER_PAGES_POPULATED_CPU	12 /* zero-filled on first CPU touch */
#define UVM_COUNTER_PAGES_POPULATED_GPU	13 /* zero-filled on first GPU touch */
#define UVM_COUNTER_GPU_PAGES_MAPPED	14 /* GPU PTEs written */
#define UVM_COUNTER_GPU_PAGES_UNMAPPED	15 /* GPU PTEs revoked */
#define UVM_COUNTER_CPU_PAGES_UNMAPPED	16 /* CPU PTE ranges revoked, in pages */
#define UVM_COUNTER_PAGES_DUPLICATED	17 /* read-only copies created (read-mostly) */
#define UVM_COUNTER_PAGES_DISCARDED	18 /* pages whose contents were dropped */
#define UVM_COUNTER_PAGES_PREFETCHED	19 /* pages made resident by MIGRATE */
#define UVM_COUNTER_PAGES_EVICTED	20 /* pages evicted from a full GPU */
#define UVM_COUNTER_PAGES_FAULT_PREFETCHED 21 /* pages the prefetcher added to faults */
#define UVM_COUNTER_THRASHING_DETECTED	22 /* pages found thrashing */
#define UVM_COUNTER_THRASHING_PINNED	23 /* accesses served by pinning to host */
#define UVM_COUNTER_ACCESS_COUNTER_MIGRATIONS 24 /* pages migrated by access counters */
#define UVM_COUNTER_THRASHING_THROTTLED	25 /* accesses delayed by thrashing throttling */
#define UVM_COUNTER_COUNT		26

/**
 * struct uvm_ioc_get_counters - UVM_IOC_GET_COUNTERS
 * @counters_ptr:	(in) user array of __u64, @count entries
 * @count:		(in/out) entries the caller provides; on return, the
 *			number the module knows (UVM_COUNTER_COUNT).  The module
 *			writes min(in, known) entries.
 * @flags:		(in) must be zero
 */
struct uvm_ioc_get_counters {
	__u64 counters_ptr;
	__u32 count;
	__u32 flags;
};

/*
 * Locations: where memory lives or should live.  The values are those of
 * CUDA's CUmemLocationType; 0 (UVM_LOCATION_INVALID) is only ever an output
 * ("not uniform over the range" or "none").
 */
#define UVM_LOCATION_INVALID		0
#define UVM_LOCATION_GPU		1	/* id: GPU index */
#define UVM_LOCATION_HOST		2	/* id ignored */
#define UVM_LOCATION_HOST_NUMA		3	/* id: NUMA node with memory */
#define UVM_LOCATION_HOST_NUMA_CURRENT	4	/* id ignored; the caller's node */

/**
 * struct uvm_location - a place for memory
 * @type:	UVM_LOCATION_*
 * @id:		GPU index or NUMA node, see @type
 */
struct uvm_location {
	__u32 type;
	__s32 id;
};

/* struct uvm_ioc_advise::advice, the values of CUDA's CUmem_advise */
#define UVM_ADVICE_SET_READ_MOSTLY		1
#define UVM_ADVICE_UNSET_READ_MOSTLY		2
#define UVM_ADVICE_SET_PREFERRED_LOCATION	3
#define UVM_ADVICE_UNSET_PREFERRED_LOCATION	4
#define UVM_ADVICE_SET_ACCESSED_BY		5
#define UVM_ADVICE_UNSET_ACCESSED_BY		6

/**
 * struct uvm_ioc_advise - UVM_IOC_ADVISE: set or clear advice on a range
 * @address:	(in) start; rounded down to a page
 * @length:	(in) bytes, > 0; the end is rounded up to a page.  The range
 *		must lie inside one managed range
 * @advice:	(in) UVM_ADVICE_*
 * @flags:	(in) must be zero
 * @location:	(in) SET_PREFERRED_LOCATION: GPU, HOST, HOST_NUMA or
 *		HOST_NUMA_CURRENT (resolved to the caller's node now);
 *		SET/UNSET_ACCESSED_BY: GPU or HOST; ignored by the others
 * @reserved:	must be zero
 */
struct uvm_ioc_advise {
	__u64 address;
	__u64 length;
	__u32 advice;
	__u32 flags;
	struct uvm_location location;
	__u64 reserved[2];
};

/**
 * struct uvm_range - a byte range of managed memory
 * @address:	start; rounded down to a page
 * @length:	bytes, > 0; the end is rounded up to a page
 */
struct uvm_range {
	__u64 address;
	__u64 length;
};

/* struct uvm_ioc_migrate::op */
#define UVM_MIGRATE_PREFETCH		1	/* make resident at a location */
#define UVM_MIGRATE_DISCARD		2	/* drop the contents everywhere */
#define UVM_MIGRATE_DISCARD_PREFETCH	3	/* both, without copying old data */

/* struct uvm_ioc_migrate::flags */
#define UVM_MIGRATE_ASYNC		(1U << 0)	/* queue it, return a fence */

#define UVM_MIGRATE_MAX_RANGES		(1U << 20)
#define UVM_MIGRATE_NO_INDEX		0xffffffffU

/**
 * struct uvm_ioc_migrate - UVM_IOC_MIGRATE: prefetch or discard a batch
 * @op:		(in) UVM_MIGRATE_*
 * @flags:	(in) UVM_MIGRATE_ASYNC or 0
 * @ranges_ptr:	(in) user array of @count struct uvm_range; each must lie
 *		inside one managed range; ranges may overlap (no order is
 *		guaranteed between the ranges of one batch)
 * @count:	(in) 1 .. UVM_MIGRATE_MAX_RANGES
 * @locations_ptr: (in) PREFETCH, DISCARD_PREFETCH: user array of
 *		@num_locations struct uvm_location (GPU, HOST, HOST_NUMA,
 *		HOST_NUMA_CURRENT); DISCARD: 0
 * @location_starts_ptr: (in) user array of @num_locations __u64: location
 *		k applies to ranges starts[k] .. starts[k + 1] - 1 (the last to
 *		the end); starts[0] is 0, the entries strictly increase and are
 *		below @count (CUDA's prefetchLocIdxs).  DISCARD: 0
 * @num_locations: (in) 1 .. @count for the prefetching ops, 0 for DISCARD
 * @bad_range:	(out) on -EINVAL: index of the offending range, else
 *		UVM_MIGRATE_NO_INDEX
 * @bad_location: (out) on -EINVAL/-ENODEV: index of the offending location
 *		or start, else UVM_MIGRATE_NO_INDEX
 * @pad:	must be zero
 * @fence:	(out) with UVM_MIGRATE_ASYNC: wait for it with
 *		UVM_IOC_FENCE_WAIT
 * @reserved:	must be zero
 *
 * The whole batch is validated before anything happens: an invalid entry
 * changes nothing.  Without UVM_MIGRATE_ASYNC the batch has run when the
 * ioctl returns.  Asynchronous batches of one VA space run one after the
 * other in submission order, each completing its fence.
 */
struct uvm_ioc_migrate {
	__u32 op;
	__u32 flags;
	__u64 ranges_ptr;
	__u64 count;
	__u64 locations_ptr;
	__u64 location_starts_ptr;
	__u32 num_locations;
	__u32 bad_range;
	__u32 bad_location;
	__u32 pad;
	__u64 fence;
	__u64 reserved[2];
};

/* struct uvm_ioc_fence_wait::flags */
#define UVM_FENCE_WAIT_POLL	(1U << 0)	/* do not wait: -EAGAIN if pending */

/**
 * struct uvm_ioc_fence_wait - UVM_IOC_FENCE_WAIT: wait for async work
 * @fence:	(in) a fence from UVM_IOC_MIGRATE, or 0 for "everything
 *		submitted so far"
 * @flags:	(in) UVM_FENCE_WAIT_POLL or 0
 * @pad:	must be zero
 * @completed:	(out) the highest fence completed
 *
 * Return: 0 when @fence completed successfully; the -errno of the batch
 * when it failed (reported once); -EAGAIN with UVM_FENCE_WAIT_POLL while
 * pending; -EINTR when a fatal signal ended the wait; -EINVAL for a fence
 * never handed out.
 */
struct uvm_ioc_fence_wait {
	__u64 fence;
	__u32 flags;
	__u32 pad;
	__u64 completed;
};

/**
 * struct uvm_ioc_range_query - UVM_IOC_RANGE_QUERY: policy of a range
 * @address:	(in) start; rounded down to a page
 * @length:	(in) bytes, > 0; the end is rounded up; inside one managed
 *		range
 * @flags:	(in) must be zero
 * @read_mostly: (out) 1 if every page is read-mostly, else 0
 * @preferred:	(out) the preferred location if every page has the same
 *		one, else type UVM_LOCATION_INVALID (also when none is set)
 * @last_prefetch: (out) the location of the last prefetch if every page was
 *		last prefetched to the same one, else UVM_LOCATION_INVALID
 * @accessed_by: (out) processor mask (UVM_PROCESSOR_MASK) of the processors
 *		set accessed-by on every page of the range
 * @reserved:	must be zero
 *
 * HOST_NUMA_CURRENT never appears: it was resolved when it was set.
 */
struct uvm_ioc_range_query {
	__u64 address;
	__u64 length;
	__u32 flags;
	__u32 read_mostly;
	struct uvm_location preferred;
	struct uvm_location last_prefetch;
	__u64 accessed_by;
	__u64 reserved[2];
};

/* struct uvm_ioc_pointer_info::flags (out) */
#define UVM_POINTER_MANAGED	(1U << 0)	/* managed memory (mmap of /dev/uvm) */
#define UVM_POINTER_DEVICE	(1U << 1)	/* device memory of GPU gpu_index */
#define UVM_POINTER_HOST	(1U << 2)	/* registered (pinned) host memory */
#define UVM_POINTER_READ_ONLY	(1U << 3)	/* GPUs may only read it */

/**
 * struct uvm_ioc_pointer_info - UVM_IOC_POINTER_INFO: what an address is
 * @address:	(in) any address
 * @start:	(out) first byte of the allocation containing @address
 * @size:	(out) its size in bytes
 * @buffer_id:	(out) unique id of the allocation, never reused while the
 *		module is loaded; the pieces left by a partial munmap keep it
 * @flags:	(out) UVM_POINTER_*
 * @gpu_index:	(in) must be zero; (out) for UVM_POINTER_DEVICE, the GPU
 *		owning the memory
 * @reserved:	must be zero
 *
 * For registered host memory @start and @size are the bytes registered.
 *
 * Return: 0, or -ENOENT when @address is in no allocation of the VA space.
 */
struct uvm_ioc_pointer_info {
	__u64 address;
	__u64 start;
	__u64 size;
	__u64 buffer_id;
	__u32 flags;
	__u32 gpu_index;
	__u64 reserved[2];
};

/*
 * Device memory: mmap(NULL, len, PROT_NONE, MAP_SHARED, fd, UVM_MMAP_DEVICE(g))
 * allocates len bytes (rounded up to pages) of GPU g's memory, zeroed, at the
 * returned address of the unified address space.  Every GPU can access it
 * (GPU g locally, the others as peers); it never migrates and is never
 * evicted; the CPU cannot access it (SIGBUS/SIGSEGV).  It is backed in 2 MiB
 * chunks per 2 MiB of address space it touches, allocated at mmap time:
 * -ENOMEM when the GPU lacks them.  Only whole mappings can be unmapped.
 */
#define UVM_MMAP_MANAGED	0ULL
#define UVM_MMAP_DEVICE(gpu)	((1ULL << 40) | ((__u64)(gpu) << 32))

/* struct uvm_ioc_host_register::flags */
#define UVM_HOST_REGISTER_READ_ONLY	(1U << 0)	/* GPUs may only read */

/**
 * struct uvm_ioc_host_register - UVM_IOC_HOST_REGISTER: pin host memory
 * @address:	(in) first byte of ordinary process memory (malloc, mmap)
 * @length:	(in) bytes, > 0
 * @flags:	(in) UVM_HOST_REGISTER_*
 * @pad:	must be zero
 * @buffer_id:	(out) its buffer id
 * @reserved:	must be zero
 *
 * The pages covering the bytes are pinned and every GPU can access them at
 * the same addresses (mapped on first access).  Unregister with the same
 * @address.
 *
 * Return: 0; -EEXIST when the bytes overlap a registered range; -EINVAL
 * when they overlap managed or device memory, or for bad flags; -EFAULT when
 * the memory is not mapped (or not writable without READ_ONLY); -ENOMEM.
 */
struct uvm_ioc_host_register {
	__u64 address;
	__u64 length;
	__u32 flags;
	__u32 pad;
	__u64 buffer_id;
	__u64 reserved[2];
};

/**
 * struct uvm_ioc_host_unregister - UVM_IOC_HOST_UNREGISTER
 * @address:	(in) the address given to UVM_IOC_HOST_REGISTER
 * @reserved:	must be zero
 *
 * GPU mappings are removed and the pages unpinned.
 *
 * Return: 0, or -ENOENT when no registration starts at @address.
 */
struct uvm_ioc_host_unregister {
	__u64 address;
	__u64 reserved[3];
};

/* struct uvm_ioc_copy::flags, struct uvm_ioc_memset::flags */
#define UVM_COPY_ASYNC		(1U << 0)	/* queue it, return a fence */

#define UVM_COPY_MAX_BYTES	(1ULL << 32)

/**
 * struct uvm_ioc_copy - UVM_IOC_COPY: copy bytes with a GPU's copy engine
 * @dst:	(in) destination address
 * @src:	(in) source address
 * @length:	(in) bytes, 1 .. UVM_COPY_MAX_BYTES
 * @gpu_index:	(in) GPU whose copy engine copies (the caller's device)
 * @flags:	(in) UVM_COPY_ASYNC or 0
 * @fence:	(out) the copy's fence (both modes)
 * @reserved:	must be zero
 *
 * Each side lies entirely inside one allocation (managed, device or
 * registered host memory) or entirely in ordinary process memory, which is
 * pinned until the copy ran.  Managed pages are accessed as a read (source)
 * or write (destination) by @gpu_index would be: the memory policy decides
 * where they are (see Documentation/policy.rst).  Sides may overlap only if
 * identical.  Ordered with the other jobs of the VA space by fence.
 *
 * Return: 0; -EINVAL for bad flags, length, or a side partly inside an
 * allocation; -ENODEV for a bad GPU; -EFAULT for unmapped process memory
 * or a read-only destination; -EPERM to write read-only registered memory;
 * -EINTR; -ENOMEM.
 */
struct uvm_ioc_copy {
	__u64 dst;
	__u64 src;
	__u64 length;
	__u32 gpu_index;
	__u32 flags;
	__u64 fence;
	__u64 reserved[2];
};

/**
 * struct uvm_ioc_memset - UVM_IOC_MEMSET: fill with a copy engine
 * @dst:	(in) first byte, aligned to @element_size
 * @count:	(in) elements, 1 .. UVM_COPY_MAX_BYTES / @element_size
 * @value:	(in) the element (low @element_size bytes used)
 * @element_size: (in) 1, 2 or 4
 * @gpu_index:	(in) GPU whose copy engine fills
 * @flags:	(in) UVM_COPY_ASYNC or 0
 * @fence:	(out) its fence
 * @reserved:	must be zero
 *
 * The destination rules of UVM_IOC_COPY apply.
 */
struct uvm_ioc_memset {
	__u64 dst;
	__u64 count;
	__u32 value;
	__u32 element_size;
	__u32 gpu_index;
	__u32 flags;
	__u64 fence;
	__u64 reserved[2];
};

#define UVM_IOC_GET_VERSION	_IOWR(UVM_IOC_MAGIC, 0x00, struct uvm_ioc_version)
#define UVM_IOC_GPU_INFO	_IOWR(UVM_IOC_MAGIC, 0x01, struct uvm_ioc_gpu_info)
#define UVM_IOC_GET_COUNTERS	_IOWR(UVM_IOC_MAGIC, 0x02, struct uvm_ioc_get_counters)
#define UVM_IOC_ADVISE		_IOWR(UVM_IOC_MAGIC, 0x03, struct uvm_ioc_advise)
#define UVM_IOC_MIGRATE		_IOWR(UVM_IOC_MAGIC, 0x04, struct uvm_ioc_migrate)
#define UVM_IOC_FENCE_WAIT	_IOWR(UVM_IOC_MAGIC, 0x05, struct uvm_ioc_fence_wait)
#define UVM_IOC_RANGE_QUERY	_IOWR(UVM_IOC_MAGIC, 0x06, struct uvm_ioc_range_query)
#define UVM_IOC_POINTER_INFO	_IOWR(UVM_IOC_MAGIC, 0x07, struct uvm_ioc_pointer_info)
#define UVM_IOC_HOST_REGISTER	_IOWR(UVM_IOC_MAGIC, 0x08, struct uvm_ioc_host_register)
#define UVM_IOC_HOST_UNREGISTER	_IOWR(UVM_IOC_MAGIC, 0x09, struct uvm_ioc_host_unregister)
#define UVM_IOC_COPY		_IOWR(UVM_IOC_MAGIC, 0x0a, struct uvm_ioc_copy)
#define UVM_IOC_MEMSET		_IOWR(UVM_IOC_MAGIC, 0x0b, struct uvm_ioc_memset)

/*
 * Managed memory: mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
 * on an open /dev/uvm creates a managed range of @length bytes.  Its pages
 * are populated with zeros on first touch by any processor and migrate
 * between the CPU and the GPUs on demand.  The offset must be 0, the mapping
 * MAP_SHARED and not executable.  The range is not inherited by fork()
 * children (VM_DONTCOPY) and cannot be moved by mremap().
 */

#endif /* _UAPI_UVM_H_ */
