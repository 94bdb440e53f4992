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
 */
#ifndef _UAPI_UVM_H_
#define _UAPI_UVM_H_

#include <linux/ioctl.h>
#include <linux/types.h>

#define UVM_API_VERSION_MAJOR	1
#define UVM_API_VERSION_MINOR	0

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
#define UVM_COUNTER_COUNT		17

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

#define UVM_IOC_GET_VERSION	_IOWR(UVM_IOC_MAGIC, 0x00, struct uvm_ioc_version)
#define UVM_IOC_GPU_INFO	_IOWR(UVM_IOC_MAGIC, 0x01, struct uvm_ioc_gpu_info)
#define UVM_IOC_GET_COUNTERS	_IOWR(UVM_IOC_MAGIC, 0x02, struct uvm_ioc_get_counters)

/*
 * Managed memory: mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
 * on an open /dev/uvm creates a managed range of @length bytes.  Its pages
 * are populated with zeros on first touch by any processor and migrate
 * between the CPU and the GPUs on demand.  The offset must be 0, the mapping
 * MAP_SHARED and not executable.  The range is not inherited by fork()
 * children (VM_DONTCOPY) and cannot be moved by mremap().
 */

#endif /* _UAPI_UVM_H_ */
