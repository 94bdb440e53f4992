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
 *  1.3  Virtual memory management: physical allocations (MEM_CREATE,
 *       MEM_RELEASE, MEM_PROPS), sharing them by file descriptor
 *       (MEM_EXPORT, MEM_IMPORT), address reservations (mmap at
 *       UVM_MMAP_RESERVE), MEM_MAP, MEM_UNMAP, MEM_SET_ACCESS, MEM_QUERY;
 *       POINTER_INFO reports UVM_POINTER_VMM.
 *  1.4  COPY_3D and MEMSET_3D: pitched, 2D and 3D copies and sets, each one
 *       copy-engine job.
 *  1.5  COPY_BATCH: a batch of copies, one job.
 */
#ifndef _UAPI_UVM_H_
#define _UAPI_UVM_H_

#include <linux/ioctl.h>
#include <linux/types.h>

#define UVM_API_VERSION_MAJOR	1
#define UVM_API_VERSION_MINOR	6

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
#define UVM_CAP_VMM		(1ULL << 3)	/* the MEM_* ioctls (API 1.3) */
#define UVM_CAP_COPY_3D		(1ULL << 4)	/* COPY_3D, MEMSET_3D (API 1.4) */
#define UVM_CAP_COPY_BATCH	(1ULL << 5)	/* COPY_BATCH (API 1.5) */
#define UVM_CAP_FENCE_TIME	(1ULL << 6)	/* FENCE_TIME (API 1.6) */

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
 * other in submission order, each completing its fence.  A range unmapped,
 * or replaced by another managed range, before the batch reached it is
 * skipped and the batch fails with -EFAULT.  The batch stops between
 * blocks when its synchronous caller is killed (-EINTR), its process exits
 * or the file is released (-ECANCELED).
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
 * Errors of failed jobs are kept for their waits, up to 1024 per VA space;
 * past that, the first error not kept is reported by the first wait on its
 * fence or a later one, and the errors of later failed jobs fold into it
 * until then.
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

/* How many completion times UVM_IOC_FENCE_TIME keeps per VA space. */
#define UVM_FENCE_TIMES_KEPT	256

/**
 * struct uvm_ioc_fence_time - UVM_IOC_FENCE_TIME: when a fence completed
 * @fence:	(in) a fence handed out by an asynchronous ioctl, not 0
 * @completed_ns: (out) the time its job completed, CLOCK_MONOTONIC in
 *		nanoseconds (clock_gettime(CLOCK_MONOTONIC) of the caller)
 * @reserved:	must be zero
 *
 * The completion times of the last UVM_FENCE_TIMES_KEPT fences of a VA
 * space are kept; asking does not wait and reports no error of the job.
 *
 * Return: 0; -EAGAIN while the fence is pending; -ENOENT once
 * UVM_FENCE_TIMES_KEPT later fences completed (its time is no longer
 * kept); -EINVAL for fence 0, a fence never handed out, or @reserved set.
 */
struct uvm_ioc_fence_time {
	__u64 fence;
	__u64 completed_ns;
	__u64 reserved[2];
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
#define UVM_POINTER_VMM		(1U << 4)	/* a mapping in a reservation */

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
 * For UVM_POINTER_VMM they are the mapping's (one UVM_IOC_MEM_MAP), its
 * @buffer_id is the mapping's, and @gpu_index is the GPU holding the
 * memory (UVM_IOC_MEM_QUERY tells the rest); a reserved address where
 * nothing is mapped is -ENOENT.
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
 * @address.  The pinned pages count against the caller's RLIMIT_MEMLOCK
 * (the process's VmPin, as RDMA registrations do) unless it has
 * CAP_IPC_LOCK.
 *
 * Return: 0; -EEXIST when the bytes overlap a registered range; -EINVAL
 * when they overlap managed or device memory, or for bad flags; -EFAULT when
 * the memory is not mapped (or not writable without READ_ONLY); -ENOMEM,
 * also when the pins would exceed RLIMIT_MEMLOCK.
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
 * registered host memory, or mapped VMM memory that @gpu_index has the
 * right to read (source) or write (destination), else -EPERM) or entirely
 * in ordinary process memory, which is pinned until the copy ran.  Managed
 * pages are accessed as a read (source) or write (destination) by
 * @gpu_index would be: the memory policy decides where they are (see
 * Documentation/policy.rst).  Sides may overlap only if
 * identical.  Ordered with the other jobs of the VA space by fence.
 *
 * A job runs against the allocations it was validated against: a side
 * whose allocation was unmapped, or replaced by another at the same
 * addresses (a new registration, device memory, managed range or VMM
 * mapping), before the job reached it fails the job with -EFAULT; a VMM
 * right lowered meanwhile, with -EPERM.  A job stops early when its
 * synchronous caller is killed (-EINTR), or when its process exits or the
 * file is released (-ECANCELED: not started, or stopped between windows).
 *
 * Return: 0; -EINVAL for bad flags, length, or a side partly inside an
 * allocation; -ENODEV for a bad GPU; -EFAULT for unmapped process memory
 * or a read-only destination, or memory gone or replaced before the job
 * ran; -EPERM to write read-only registered memory; -EINTR; -ENOMEM.
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

/*
 * Strided copies and sets (API 1.4).  A box is @depth slices of @height rows
 * of @width bytes; row y of slice z of a side starts at
 *
 *	addr + z * slice_pitch + y * pitch
 *
 * Rows of a side never overlap: @pitch >= @width where @height > 1, and
 * @slice_pitch >= (@height - 1) * @pitch + @width where @depth > 1 (each is
 * ignored otherwise).  A side's span, from its first byte to the last byte
 * of its last row, is at most UVM_COPY_MAX_SPAN; the whole span lies inside
 * one allocation or outside all of them, as one side of UVM_IOC_COPY does.
 * Ordinary process memory is pinned over the whole span (the gaps between
 * rows included, so they must be mapped) and then its span is at most
 * UVM_COPY_MAX_BYTES.  Mapped VMM memory must be mapped, with the right for
 * the copying GPU, over the whole span.
 */
#define UVM_COPY_MAX_SPAN	(1ULL << 36)

/**
 * struct uvm_box - one side of a strided copy or set
 * @addr:	first byte of the first row
 * @pitch:	bytes from the start of a row to the start of the next
 * @slice_pitch: bytes from the start of a slice to the start of the next
 */
struct uvm_box {
	__u64 addr;
	__u64 pitch;
	__u64 slice_pitch;
};

/**
 * struct uvm_ioc_copy_3d - UVM_IOC_COPY_3D: copy a box with a copy engine
 * @dst:	(in) destination box
 * @src:	(in) source box
 * @width:	(in) bytes per row, >= 1
 * @height:	(in) rows per slice, >= 1
 * @depth:	(in) slices, >= 1
 * @gpu_index:	(in) GPU whose copy engine copies
 * @flags:	(in) UVM_COPY_ASYNC or 0
 * @fence:	(out) the copy's fence (both modes)
 * @reserved:	must be zero
 *
 * One job of the VA space's queue: the engine walks the rows.  @width *
 * @height * @depth is at most UVM_COPY_MAX_BYTES.  Each side follows the
 * rules above and those of UVM_IOC_COPY.  The spans of the two sides may
 * overlap only where no byte is in both: identical boxes, or two 2D boxes
 * (@depth 1) with the same pitch whose rows interleave without touching.
 *
 * Return: as UVM_IOC_COPY; -EINVAL also for a zero dimension, overlapping
 * rows of a side, a span over its limit, or sides sharing bytes.
 */
struct uvm_ioc_copy_3d {
	struct uvm_box dst;
	struct uvm_box src;
	__u64 width;
	__u32 height;
	__u32 depth;
	__u32 gpu_index;
	__u32 flags;
	__u64 fence;
	__u64 reserved[2];
};

/**
 * struct uvm_ioc_memset_3d - UVM_IOC_MEMSET_3D: fill a box with a copy engine
 * @dst:	(in) the box; @dst.addr, and the pitches that are used,
 *		aligned to @element_size
 * @width:	(in) elements per row, >= 1
 * @height:	(in) rows per slice, >= 1
 * @depth:	(in) slices, >= 1
 * @value:	(in) the element (low @element_size bytes used)
 * @element_size: (in) 1, 2 or 4
 * @gpu_index:	(in) GPU whose copy engine fills
 * @flags:	(in) UVM_COPY_ASYNC or 0
 * @fence:	(out) its fence
 * @reserved:	must be zero
 *
 * Bytes between rows are not written.  The destination rules of
 * UVM_IOC_COPY_3D apply; @width * @element_size is the row's bytes.
 */
struct uvm_ioc_memset_3d {
	struct uvm_box dst;
	__u64 width;
	__u32 height;
	__u32 depth;
	__u32 value;
	__u32 element_size;
	__u32 gpu_index;
	__u32 flags;
	__u64 fence;
	__u64 reserved[2];
};

/**
 * struct uvm_copy_op - one copy of UVM_IOC_COPY_BATCH
 * @dst:	destination box
 * @src:	source box
 * @width:	bytes per row, >= 1
 * @height:	rows per slice, >= 1
 * @depth:	slices, >= 1
 * @reserved:	must be zero
 *
 * The members of struct uvm_ioc_copy_3d that describe the copy, with the
 * same rules; a 1D copy is a box of one row (@height and @depth 1).
 */
struct uvm_copy_op {
	struct uvm_box dst;
	struct uvm_box src;
	__u64 width;
	__u32 height;
	__u32 depth;
	__u64 reserved;
};

/* Copies in one UVM_IOC_COPY_BATCH. */
#define UVM_COPY_BATCH_MAX	16384

/**
 * struct uvm_ioc_copy_batch - UVM_IOC_COPY_BATCH: many copies, one job
 * @ops:	(in) user pointer to @count struct uvm_copy_op
 * @count:	(in) 1 .. UVM_COPY_BATCH_MAX
 * @gpu_index:	(in) GPU whose copy engine copies
 * @flags:	(in) UVM_COPY_ASYNC or 0
 * @failed:	(out) the index of the copy refused; @count when the refusal
 *		is not one copy's (flags, count, GPU, the batch's limits)
 * @fence:	(out) the batch's fence
 * @reserved:	must be zero
 *
 * Every copy is validated as UVM_IOC_COPY_3D validates its one before
 * anything is queued: a refused copy refuses the batch.  Ordinary process
 * memory of all the copies together spans at most UVM_COPY_MAX_BYTES.  The
 * batch is one job of the VA space's queue with one fence; its copies run
 * in order (a later copy sees what an earlier one wrote), and the engine
 * gathers the operations of consecutive copies into one submission.  A
 * failure while the job runs (an allocation freed meanwhile) ends it
 * there; the fence reports the error.
 *
 * Return: as UVM_IOC_COPY_3D; -EFAULT also when @ops cannot be read.
 */
struct uvm_ioc_copy_batch {
	__u64 ops;
	__u32 count;
	__u32 gpu_index;
	__u32 flags;
	__u32 failed;
	__u64 fence;
	__u64 reserved[2];
};

/*
 * Virtual memory management (API 1.3): physical allocations that have no
 * address, mapped into address reservations, with access set per processor.
 *
 * Reservations: mmap(hint, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
 * UVM_MMAP_RESERVE) reserves len bytes (page multiple) that nothing else can
 * take; munmap() of the whole reservation frees it with whatever is still
 * mapped there.  Partial munmap() and mremap() are refused (-EINVAL).  The
 * CPU can load and store only where a host-located allocation is mapped with
 * host access; any other touch is SIGSEGV.
 *
 * Allocations are named by handles local to the VA space (the open file);
 * UVM_IOC_MEM_EXPORT turns one into a file descriptor that another process
 * imports into its own VA space.  Memory lives while a handle, a mapping or
 * an exported file refers to it.
 */
#define UVM_MMAP_RESERVE	(2ULL << 40)

/* Size, offset and mapping-address unit of allocations and mappings. */
#define UVM_MEM_GRANULARITY	UVM_VA_BLOCK_SIZE

/* Handle types, the values of CUDA's CUmemAllocationHandleType. */
#define UVM_MEM_HANDLE_FD	(1U << 0)	/* exportable as a file descriptor */

/* Access protections, the values of CUDA's CUmemAccess_flags. */
#define UVM_MEM_PROT_NONE	0
#define UVM_MEM_PROT_READ	1
#define UVM_MEM_PROT_READ_WRITE	3

/* Live handles of one VA space, a bound on what userspace can pin. */
#define UVM_MEM_MAX_HANDLES	(1U << 20)

/**
 * struct uvm_ioc_mem_create - UVM_IOC_MEM_CREATE: allocate physical memory
 * @size:	(in) bytes, a non-zero multiple of UVM_MEM_GRANULARITY
 * @location:	(in) GPU (id: GPU index), HOST, or HOST_NUMA (id: a node with
 *		memory)
 * @handle_types: (in) UVM_MEM_HANDLE_* the allocation may be exported as;
 *		0 for UVM_LOCATION_HOST (HOST_NUMA allocations may be shared)
 * @flags:	(in) must be zero
 * @handle:	(out) the new handle, holding one reference
 * @reserved:	must be zero
 *
 * The memory is zeroed.  GPU memory is counted in the GPU's vidmem in use
 * (managed memory is evicted to make room) and is never evicted.
 *
 * Return: 0; -EINVAL for a bad size, location type, handle type or flag;
 * -ENODEV for a bad GPU or node; -ENOMEM (also at once for host memory
 * beyond what the machine could free); -ENOSPC past UVM_MEM_MAX_HANDLES;
 * -EINTR on a fatal signal.
 */
struct uvm_ioc_mem_create {
	__u64 size;
	struct uvm_location location;
	__u32 handle_types;
	__u32 flags;
	__u64 handle;
	__u64 reserved[2];
};

/**
 * struct uvm_ioc_mem_release - UVM_IOC_MEM_RELEASE: drop a handle reference
 * @handle:	(in) a handle of the VA space
 * @reserved:	must be zero
 *
 * The handle goes when its last reference does (MEM_CREATE, MEM_IMPORT and
 * MEM_QUERY with UVM_MEM_QUERY_RETAIN each add one); mappings made with it
 * stay valid.
 *
 * Return: 0, or -ENOENT for an unknown handle.
 */
struct uvm_ioc_mem_release {
	__u64 handle;
	__u64 reserved[1];
};

/**
 * struct uvm_ioc_mem_props - UVM_IOC_MEM_PROPS: describe an allocation
 * @handle:	(in) a handle of the VA space
 * @size:	(out) bytes
 * @location:	(out) where it lives
 * @handle_types: (out) UVM_MEM_HANDLE_* it was created with
 * @flags:	(in) must be zero
 * @alloc_id:	(out) id of the physical allocation, the same in every
 *		process that imported it, never reused while the module is
 *		loaded
 * @reserved:	must be zero
 *
 * Return: 0, or -ENOENT for an unknown handle.
 */
struct uvm_ioc_mem_props {
	__u64 handle;
	__u64 size;
	struct uvm_location location;
	__u32 handle_types;
	__u32 flags;
	__u64 alloc_id;
	__u64 reserved[2];
};

/**
 * struct uvm_ioc_mem_export - UVM_IOC_MEM_EXPORT: share an allocation
 * @handle:	(in) a handle of the VA space
 * @handle_type: (in) UVM_MEM_HANDLE_FD, one the allocation was created with
 * @flags:	(in) must be zero
 * @fd:		(out) a new O_CLOEXEC file descriptor holding a reference on
 *		the allocation; pass it to another process (SCM_RIGHTS)
 * @pad:	must be zero
 * @reserved:	must be zero
 *
 * Return: 0; -ENOENT for an unknown handle; -EINVAL for a type the
 * allocation was not created with, or a bad flag; -EMFILE, -ENOMEM.
 */
struct uvm_ioc_mem_export {
	__u64 handle;
	__u32 handle_type;
	__u32 flags;
	__s32 fd;
	__u32 pad;
	__u64 reserved[2];
};

/**
 * struct uvm_ioc_mem_import - UVM_IOC_MEM_IMPORT: a handle for a shared fd
 * @fd:		(in) a descriptor from UVM_IOC_MEM_EXPORT, in any process;
 *		it stays open (close it when done)
 * @flags:	(in) must be zero
 * @handle:	(out) a new handle of this VA space, holding one reference
 * @reserved:	must be zero
 *
 * Return: 0; -EBADF for a closed descriptor; -EINVAL for one that is not
 * an exported allocation; -ENOSPC past UVM_MEM_MAX_HANDLES; -ENOMEM.
 */
struct uvm_ioc_mem_import {
	__s32 fd;
	__u32 flags;
	__u64 handle;
	__u64 reserved[2];
};

/**
 * struct uvm_ioc_mem_map - UVM_IOC_MEM_MAP: map an allocation
 * @address:	(in) first byte, a multiple of UVM_MEM_GRANULARITY
 * @size:	(in) bytes, a non-zero multiple of UVM_MEM_GRANULARITY
 * @offset:	(in) into the allocation, a multiple of UVM_MEM_GRANULARITY;
 *		@offset + @size at most the allocation's size
 * @handle:	(in) a handle of the VA space
 * @flags:	(in) must be zero
 * @pad:	must be zero
 * @reserved:	must be zero
 *
 * [@address, @address + @size) must lie inside one reservation where
 * nothing is mapped.  The mapping holds a reference on the allocation and
 * starts with no access for any processor.
 *
 * Return: 0; -EINVAL for bad alignment, bounds or flags, or a range not
 * inside one reservation; -ENOENT for an unknown handle; -EEXIST when
 * part of the range is mapped; -ENOMEM.
 */
struct uvm_ioc_mem_map {
	__u64 address;
	__u64 size;
	__u64 offset;
	__u64 handle;
	__u32 flags;
	__u32 pad;
	__u64 reserved[2];
};

/**
 * struct uvm_ioc_mem_unmap - UVM_IOC_MEM_UNMAP: remove mappings
 * @address:	(in) first byte, a multiple of UVM_MEM_GRANULARITY
 * @size:	(in) bytes, a non-zero multiple of UVM_MEM_GRANULARITY
 * @flags:	(in) must be zero
 * @pad:	must be zero
 * @reserved:	must be zero
 *
 * Every mapping inside [@address, @address + @size) of one reservation is
 * removed: every processor's access is revoked (GPU PTEs invalidated, CPU
 * PTEs zapped) before the allocation's reference is dropped.  The range
 * may hold several mappings and holes; it must not cut a mapping.
 *
 * Return: 0; -EINVAL for bad alignment or flags, a range not inside one
 * reservation, or one that cuts a mapping; -ENOENT when nothing is mapped
 * in the range.
 */
struct uvm_ioc_mem_unmap {
	__u64 address;
	__u64 size;
	__u32 flags;
	__u32 pad;
	__u64 reserved[2];
};

/**
 * struct uvm_mem_access - the access of one processor
 * @location:	GPU (id: GPU index), or HOST / HOST_NUMA (the CPU; only for
 *		host-located allocations, id ignored)
 * @prot:	UVM_MEM_PROT_*
 * @pad:	must be zero
 */
struct uvm_mem_access {
	struct uvm_location location;
	__u32 prot;
	__u32 pad;
};

#define UVM_MEM_MAX_ACCESS_DESCS	(UVM_MAX_GPUS + 1)

/**
 * struct uvm_ioc_mem_set_access - UVM_IOC_MEM_SET_ACCESS
 * @address:	(in) first byte, a multiple of UVM_MEM_GRANULARITY
 * @size:	(in) bytes, a non-zero multiple of UVM_MEM_GRANULARITY
 * @descs_ptr:	(in) user array of @count struct uvm_mem_access
 * @count:	(in) 1 .. UVM_MEM_MAX_ACCESS_DESCS; a later entry for the same
 *		processor overrides an earlier one
 * @flags:	(in) must be zero
 * @bad_desc:	(out) on -EINVAL/-ENODEV: index of the offending entry, else
 *		0xffffffff
 * @pad:	must be zero
 * @reserved:	must be zero
 *
 * Every byte of the range must be mapped (one reservation, any number of
 * mappings).  Processors not named keep their access.  GPU PTEs are
 * written at once (a GPU access beyond its right is a fatal fault);
 * lowered rights are revoked, with a TLB invalidate, before the ioctl
 * returns.  Validated whole first: an error changes nothing.
 *
 * Return: 0; -EINVAL for bad alignment, flags, prot, location, or a range
 * not wholly mapped; -ENODEV for a bad GPU; -EOPNOTSUPP for the CPU on
 * GPU-located memory; -EFAULT.
 */
struct uvm_ioc_mem_set_access {
	__u64 address;
	__u64 size;
	__u64 descs_ptr;
	__u32 count;
	__u32 flags;
	__u32 bad_desc;
	__u32 pad;
	__u64 reserved[2];
};

/* struct uvm_ioc_mem_query::flags */
#define UVM_MEM_QUERY_RETAIN	(1U << 0)	/* add a reference to @handle */

/**
 * struct uvm_ioc_mem_query - UVM_IOC_MEM_QUERY: what is at an address
 * @address:	(in) any address inside a reservation
 * @flags:	(in) UVM_MEM_QUERY_RETAIN or 0
 * @pad:	must be zero
 * @reservation_start: (out) first byte of the reservation
 * @reservation_size: (out) its bytes
 * @mapping_start: (out) first byte of the mapping at @address, 0 if none
 * @mapping_size: (out) its bytes, 0 if nothing is mapped at @address
 * @mapping_offset: (out) its offset into the allocation
 * @handle:	(out) the handle the mapping was made with (with RETAIN it
 *		holds one more reference; a handle released since is made
 *		valid again, with the same value)
 * @alloc_size:	(out) bytes of the mapped allocation
 * @location:	(out) where the allocation lives
 * @handle_types: (out) its UVM_MEM_HANDLE_* types
 * @pad2:	must be zero
 * @read_mask:	(out) processors (UVM_PROCESSOR_MASK) that may read the
 *		page at @address
 * @write_mask:	(out) processors that may write it
 * @alloc_id:	(out) id of the allocation (see struct uvm_ioc_mem_props)
 * @reservation_mappings: (out) mappings in the reservation
 * @reserved:	must be zero
 *
 * Return: 0; -ENOENT when @address is in no reservation, or (with RETAIN)
 * nothing is mapped there; -EINVAL for bad flags; -ENOSPC.
 */
struct uvm_ioc_mem_query {
	__u64 address;
	__u32 flags;
	__u32 pad;
	__u64 reservation_start;
	__u64 reservation_size;
	__u64 mapping_start;
	__u64 mapping_size;
	__u64 mapping_offset;
	__u64 handle;
	__u64 alloc_size;
	struct uvm_location location;
	__u32 handle_types;
	__u32 pad2;
	__u64 read_mask;
	__u64 write_mask;
	__u64 alloc_id;
	__u64 reservation_mappings;
	__u64 reserved[1];
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
#define UVM_IOC_MEM_CREATE	_IOWR(UVM_IOC_MAGIC, 0x0c, struct uvm_ioc_mem_create)
#define UVM_IOC_MEM_RELEASE	_IOWR(UVM_IOC_MAGIC, 0x0d, struct uvm_ioc_mem_release)
#define UVM_IOC_MEM_PROPS	_IOWR(UVM_IOC_MAGIC, 0x0e, struct uvm_ioc_mem_props)
#define UVM_IOC_MEM_EXPORT	_IOWR(UVM_IOC_MAGIC, 0x0f, struct uvm_ioc_mem_export)
#define UVM_IOC_MEM_IMPORT	_IOWR(UVM_IOC_MAGIC, 0x10, struct uvm_ioc_mem_import)
#define UVM_IOC_MEM_MAP		_IOWR(UVM_IOC_MAGIC, 0x11, struct uvm_ioc_mem_map)
#define UVM_IOC_MEM_UNMAP	_IOWR(UVM_IOC_MAGIC, 0x12, struct uvm_ioc_mem_unmap)
#define UVM_IOC_MEM_SET_ACCESS	_IOWR(UVM_IOC_MAGIC, 0x13, struct uvm_ioc_mem_set_access)
#define UVM_IOC_MEM_QUERY	_IOWR(UVM_IOC_MAGIC, 0x14, struct uvm_ioc_mem_query)
#define UVM_IOC_COPY_3D		_IOWR(UVM_IOC_MAGIC, 0x15, struct uvm_ioc_copy_3d)
#define UVM_IOC_MEMSET_3D	_IOWR(UVM_IOC_MAGIC, 0x16, struct uvm_ioc_memset_3d)
#define UVM_IOC_COPY_BATCH	_IOWR(UVM_IOC_MAGIC, 0x17, struct uvm_ioc_copy_batch)
#define UVM_IOC_FENCE_TIME	_IOWR(UVM_IOC_MAGIC, 0x18, struct uvm_ioc_fence_time)

/*
 * Managed memory: mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
 * on an open /dev/uvm creates a managed range of @length bytes.  Its pages
 * are populated with zeros on first touch by any processor and migrate
 * between the CPU and the GPUs on demand.  The offset must be 0, the mapping
 * MAP_SHARED and not executable.  The range is not inherited by fork()
 * children (VM_DONTCOPY) and cannot be moved by mremap().
 */

#endif /* _UAPI_UVM_H_ */
