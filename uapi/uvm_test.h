/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * uvm_test.h - test and simulation ioctls of the UVM driver.
 *
 * These ioctls exist only when the module is built with CONFIG_UVM_TEST
 * (the default for the simulated GPU; UVM_CAP_TEST_IOCTLS tells).  They drive
 * the simulated GPU (launches of access programs) and expose internal state
 * (residency and mappings) for tests.  A real GPU backend never sees them.
 * Numbers 0x80-0xbf; the same rules as uvm.h apply to every structure.
 */
#ifndef _UAPI_UVM_TEST_H_
#define _UAPI_UVM_TEST_H_

#include <linux/ioctl.h>
#include <linux/types.h>

#include "uvm.h"

/* struct uvm_test_gpu_op::type */
#define UVM_TEST_OP_READ	1
#define UVM_TEST_OP_WRITE	2
#define UVM_TEST_OP_ATOMIC_ADD	3	/* 64-bit atomic add of @value per word */

/* struct uvm_test_gpu_op::order */
#define UVM_TEST_ORDER_SEQUENTIAL	1
#define UVM_TEST_ORDER_RANDOM		2	/* seeded permutation of the accesses */

#define UVM_TEST_MAX_WARPS	1024
#define UVM_TEST_MAX_OPS	4096
#define UVM_TEST_MAX_DATA	(64ULL << 20)	/* bytes of data_ptr buffers per launch */

/*
 * Words written by a WRITE op without a data buffer, and the checksum of a
 * READ op, both over naturally aligned 64-bit words at GPU virtual address
 * @addr.  The checksum is the wrapping sum of the terms of every word read,
 * so it does not depend on access order or warp count.
 */
#define UVM_TEST_PATTERN_WORD(value, addr)	((__u64)(value) ^ (__u64)(addr))
#define UVM_TEST_CHECKSUM_TERM(word, addr) \
	(((__u64)(word) + (__u64)(addr)) * 0x9E3779B97F4A7C15ULL)

/**
 * struct uvm_test_gpu_op - one operation of a GPU access program
 * @type:	(in) UVM_TEST_OP_*
 * @order:	(in) UVM_TEST_ORDER_*
 * @address:	(in) first byte accessed
 * @length:	(in) bytes covered by the op, > 0
 * @stride:	(in) distance between the first bytes of consecutive
 *		accesses; 0 means @access_size (dense)
 * @access_size: (in) bytes per access, 1 .. 4096, at most @stride
 * @seed:	(in) seed of the random order
 * @value:	(in) WRITE without data: pattern seed; ATOMIC_ADD: addend
 * @data_ptr:	(in) user buffer of @length bytes laid out like the memory
 *		covered: the source of a WRITE, the destination of a READ;
 *		0 for none (pattern write, checksum-only read)
 * @checksum:	(out) READ: sum of UVM_TEST_CHECKSUM_TERM over words read
 * @reserved:	must be zero
 *
 * Access k covers [@address + k * @stride, + @access_size) clipped to
 * @address + @length.  Pattern writes, checksum reads and atomics work on
 * 64-bit words: their @address, @length, @stride and @access_size must be
 * multiples of 8.
 */
struct uvm_test_gpu_op {
	__u32 type;
	__u32 order;
	__u64 address;
	__u64 length;
	__u64 stride;
	__u32 access_size;
	__u32 seed;
	__u64 value;
	__u64 data_ptr;
	__u64 checksum;
	__u64 reserved[2];
};

/**
 * struct uvm_test_launch - UVM_TEST_IOC_LAUNCH: run an access program
 * @gpu_index:	(in) GPU to run on
 * @num_warps:	(in) concurrent warps, 1 .. UVM_TEST_MAX_WARPS
 * @ops_ptr:	(in/out) user array of @num_ops struct uvm_test_gpu_op
 * @num_ops:	(in) 1 .. UVM_TEST_MAX_OPS
 * @flags:	(in) must be zero
 * @fault_address: (out) on -EREMOTEIO: the address of the fatal fault
 * @fault_access: (out) on -EREMOTEIO: UVM_TEST_OP_* of the faulting access
 * @fault_op:	(out) on -EREMOTEIO: index of the op that faulted
 * @faults_raised: (out) fault entries the warps of this launch wrote
 * @reserved:	must be zero
 *
 * The ops run one after the other, with a barrier in between, as separate
 * kernel launches would.  The accesses of one op are spread over the warps:
 * warp w performs accesses w, w + @num_warps, ... of the (possibly permuted)
 * access sequence.  A warp whose translation misses writes a replayable fault
 * and stalls until the driver replays.
 *
 * Return: 0 when every op completed; -EREMOTEIO when the driver cancelled a
 * fatal fault (the fault report is filled in and the launch is over);
 * -EINTR when a fatal signal ended the wait (the launch is cancelled first).
 */
struct uvm_test_launch {
	__u32 gpu_index;
	__u32 num_warps;
	__u64 ops_ptr;
	__u32 num_ops;
	__u32 flags;
	__u64 fault_address;
	__u32 fault_access;
	__u32 fault_op;
	__u64 faults_raised;
	__u64 reserved[4];
};

/**
 * struct uvm_test_page_state - residency and mappings of one page
 * @resident:	processors holding a valid copy (UVM_PROCESSOR_MASK bits)
 * @mapped_read: processors with at least a read mapping
 * @mapped_write: processors with at least a write mapping
 * @mapped_atomic: processors with an atomic mapping
 */
struct uvm_test_page_state {
	__u64 resident;
	__u64 mapped_read;
	__u64 mapped_write;
	__u64 mapped_atomic;
};

#define UVM_TEST_RESIDENCY_MAX_PAGES	(1U << 16)

/**
 * struct uvm_test_page_state_sizes - a page's state and GPU PTE sizes
 * @state:	(out) as reported without UVM_TEST_RESIDENCY_PTE_SIZES
 * @mapped_64k:	(out) GPUs (UVM_PROCESSOR_MASK bits) mapping the page with
 *		a 64 KiB PTE
 * @mapped_2m:	(out) GPUs mapping the page with a 2 MiB PTE
 *
 * A GPU in @state.mapped_read and in neither mask maps the page with a
 * 4 KiB PTE.
 */
struct uvm_test_page_state_sizes {
	struct uvm_test_page_state state;
	__u64 mapped_64k;
	__u64 mapped_2m;
};

/* struct uvm_test_residency::flags */
#define UVM_TEST_RESIDENCY_PAGEABLE	(1U << 0)	/* report pageable memory too */
/* states_ptr is an array of struct uvm_test_page_state_sizes */
#define UVM_TEST_RESIDENCY_PTE_SIZES	(1U << 1)

/**
 * struct uvm_test_residency - UVM_TEST_IOC_RESIDENCY: per-page state
 * @address:	(in) page-aligned start
 * @length:	(in) page multiple, at most UVM_TEST_RESIDENCY_MAX_PAGES pages
 * @states_ptr:	(in) user array of length / page size struct uvm_test_page_state
 *		(struct uvm_test_page_state_sizes with
 *		UVM_TEST_RESIDENCY_PTE_SIZES)
 * @flags:	(in) UVM_TEST_RESIDENCY_* flags or 0
 * @pad:	must be zero
 *
 * Pages outside any managed range report all-zero state, unless
 * UVM_TEST_RESIDENCY_PAGEABLE is given (needs UVM_CAP_HMM_MIRROR, else
 * -EOPNOTSUPP): pages outside every allocation then report pageable memory
 * as the CPU page tables and the GPUs' mirror see it.  Resident on the CPU
 * when the CPU maps the page (mapped read by the CPU, write if its PTE is
 * writable); resident on GPU g when the page is one of g's device-private
 * pages (not mapped by the CPU then); mapped by each GPU that has a PTE for
 * it (write and atomic together, as the CPU permits).  Unpopulated or
 * unmapped pages are all zero.
 */
struct uvm_test_residency {
	__u64 address;
	__u64 length;
	__u64 states_ptr;
	__u32 flags;
	__u32 pad;
};

/* struct uvm_test_queue_gate::op */
#define UVM_TEST_GATE_CLOSE	1
#define UVM_TEST_GATE_OPEN	2

/* struct uvm_test_queue_gate::flags */
#define UVM_TEST_GATE_HOLD_LOCK	(1U << 0)	/* CLOSE: hold the VA space lock */

/**
 * struct uvm_test_queue_gate - hold the VA space's job queue at a fence
 * @op:		(in) UVM_TEST_GATE_CLOSE: queue a job that runs until the
 *		gates are opened, so that the jobs queued after it wait;
 *		UVM_TEST_GATE_OPEN: open every gate closed so far
 * @flags:	(in) CLOSE: UVM_TEST_GATE_HOLD_LOCK makes the gate's job hold
 *		the VA space lock for reading while it waits, never yielding
 *		it (a job that misbehaves: writers, and readers behind them,
 *		wait until the gate opens); the ioctl returns once the job
 *		holds it (killably: jobs queued before run first); OPEN:
 *		must be zero
 * @fence:	(out) CLOSE: the fence of the gate's job (UVM_IOC_FENCE_WAIT)
 * @reserved:	must be zero
 *
 * A gate's job ends when opened, or as any job stops: when the file is
 * released or the process owning the VA space exits (-ECANCELED).  Tests
 * use it to change memory between the ioctl that queues a job and the
 * moment the job runs, and to hold a VA space's lock.
 */
struct uvm_test_queue_gate {
	__u32 op;
	__u32 flags;
	__u64 fence;
	__u64 reserved[2];
};

#define UVM_TEST_IOC_LAUNCH	_IOWR(UVM_IOC_MAGIC, 0x80, struct uvm_test_launch)
#define UVM_TEST_IOC_RESIDENCY	_IOWR(UVM_IOC_MAGIC, 0x81, struct uvm_test_residency)
#define UVM_TEST_IOC_QUEUE_GATE	_IOWR(UVM_IOC_MAGIC, 0x82, struct uvm_test_queue_gate)

#endif /* _UAPI_UVM_TEST_H_ */
