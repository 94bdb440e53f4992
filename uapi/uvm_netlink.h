/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * uvm_netlink.h - the generic netlink family "uvm" of the UVM driver.
 *
 * The family answers three queries and carries an event stream:
 *
 *  - UVM_NL_CMD_GET_GPUS (dump): one message per GPU with its properties,
 *    vidmem, counters and the family's event counters;
 *  - UVM_NL_CMD_GET_VA_SPACES (dump): one message per VA space (open of
 *    /dev/uvm) the caller may see: its owner's, counters, vidmem per GPU;
 *  - UVM_NL_CMD_GET_RESIDENCY (dump): the residency and mappings of a range
 *    of managed memory of one process, UVM_NL_RESIDENCY_CHUNK pages per
 *    message;
 *  - UVM_NL_CMD_EVENT: notifications on the multicast group "events", one
 *    per fault batch and VA space, per migration (a run of pages of one
 *    2 MiB block from one processor to another), per eviction, per
 *    thrashing decision, per fatal fault, per VA space created or destroyed.
 *
 * Permissions: GET_GPUS is open to everyone.  A VA space is visible to the
 * user that opened it (effective uid of the opener and of the netlink
 * socket); others' need CAP_SYS_ADMIN.  Events: where the kernel filters a
 * multicast per listener, anyone may join "events" and receives its own VA
 * spaces' events, everybody's with CAP_PERFMON or CAP_SYS_ADMIN; on older
 * kernels joining needs CAP_SYS_ADMIN.  GET_GPUS replies tell which
 * (UVM_NL_A_EVENT_ACCESS).  The family exists in the initial network
 * namespace only.
 *
 * Events are sent without blocking and without memory reserves; a listener
 * whose receive buffer is full loses them.  Such losses are counted
 * (UVM_NL_A_EVENTS_DROPPED in every GET_GPUS message, and the sysfs file
 * events_dropped of /dev/uvm's device), and every event carries a sequence
 * number (UVM_NL_A_SEQ) so that a listener can see its own gaps.  A loss
 * is counted when the kernel learns of it: for listeners that set
 * NETLINK_BROADCAST_ERROR on their socket (the others lose events all the
 * same, see ENOBUFS on their next receive and their drop count in
 * /proc/net/netlink, but the family is not told).
 *
 * Attribute rules: every attribute has a type and a length in the family's
 * policy; integers are host-endian; unknown attributes in requests are
 * refused.  Numbered values start at 1.
 *
 * Changelog:
 *  1  GET_GPUS, GET_VA_SPACES, GET_RESIDENCY, the "events" group.
 */
#ifndef _UAPI_UVM_NETLINK_H_
#define _UAPI_UVM_NETLINK_H_

#include <linux/types.h>

#define UVM_GENL_NAME		"uvm"
#define UVM_GENL_VERSION	1
#define UVM_GENL_MCGRP_EVENTS	"events"

/* Commands (genlmsghdr.cmd) */
#define UVM_NL_CMD_GET_GPUS		1
#define UVM_NL_CMD_GET_VA_SPACES	2
#define UVM_NL_CMD_GET_RESIDENCY	3
#define UVM_NL_CMD_EVENT		4
#define UVM_NL_CMD_MAX			4

/*
 * Attributes.  (req) marks what a request may carry; everything else is in
 * replies and events.
 */
#define UVM_NL_A_PAD		1	/* padding of 64-bit attributes */
#define UVM_NL_A_GPU_INDEX	2	/* u32 */
#define UVM_NL_A_GPU_NAME	3	/* string */
#define UVM_NL_A_GPU_UUID	4	/* binary, 16 bytes */
#define UVM_NL_A_VIDMEM_SIZE	5	/* u64, bytes */
#define UVM_NL_A_VIDMEM_USED	6	/* u64, bytes */
#define UVM_NL_A_GPU_COUNTERS	7	/* nested: type UVM_NL_GPU_* + 1, u64 */
#define UVM_NL_A_EVENTS_SENT	8	/* u64: events sent to listeners */
#define UVM_NL_A_EVENTS_DROPPED	9	/* u64: events some listener lost */
#define UVM_NL_A_VA_SPACE	10	/* u64: VA space id (req: GET_RESIDENCY) */
#define UVM_NL_A_PID		11	/* u32: owner's pid (req: GET_RESIDENCY) */
#define UVM_NL_A_COMM		12	/* string: owner's command name */
#define UVM_NL_A_UID		13	/* u32: owner's effective uid */
#define UVM_NL_A_COUNTERS	14	/* nested: type UVM_COUNTER_* + 1, u64 */
#define UVM_NL_A_VIDMEM		15	/* nested: type GPU index + 1, u64 bytes */
#define UVM_NL_A_ADDRESS	16	/* u64 (req: GET_RESIDENCY) */
#define UVM_NL_A_LENGTH		17	/* u64, bytes (req: GET_RESIDENCY) */
#define UVM_NL_A_PAGE_SIZE	18	/* u32 */
#define UVM_NL_A_PAGES		19	/* binary: struct uvm_nl_page_state[] */
#define UVM_NL_A_EVENT		20	/* u32: UVM_NL_EVENT_* */
#define UVM_NL_A_SEQ		21	/* u64: event sequence number, from 1 */
#define UVM_NL_A_TIMESTAMP	22	/* u64: CLOCK_MONOTONIC ns */
#define UVM_NL_A_SRC		23	/* u32: processor id (0 CPU, 1 + GPU) */
#define UVM_NL_A_DST		24	/* u32: processor id */
#define UVM_NL_A_NPAGES		25	/* u32: pages */
#define UVM_NL_A_BYTES		26	/* u64 */
#define UVM_NL_A_CAUSE		27	/* u32: UVM_NL_CAUSE_* */
#define UVM_NL_A_FAULTS		28	/* u32: fault entries */
#define UVM_NL_A_DUPLICATES	29	/* u32: of those, duplicates */
#define UVM_NL_A_FATAL		30	/* u32: faults cancelled as fatal */
#define UVM_NL_A_DURATION	31	/* u64: ns */
#define UVM_NL_A_ACCESS		32	/* u32: UVM_NL_ACCESS_* */
#define UVM_NL_A_THRASHING	33	/* u32: UVM_NL_THRASHING_* */
#define UVM_NL_A_NUM_GPUS	34	/* u32 */
#define UVM_NL_A_EVENT_ACCESS	35	/* u32: UVM_NL_EVENT_ACCESS_* */
#define UVM_NL_A_MAX		35

/*
 * UVM_NL_A_EVENT values.  Each event's own attributes:
 *
 * FAULT_BATCH      GPU, faults, duplicates, fatal, duration: one servicing
 *                  batch's faults of one VA space (it also counts one
 *                  replay)
 * FAULTS_FLUSHED   GPU, faults, duplicates: entries of the VA space a buffer
 *                  flush dropped, all counted as duplicates
 * MIGRATION        address (the 2 MiB block), src, dst, pages, bytes,
 *                  cause, duration
 * EVICTION         GPU, address (the block), pages
 * THRASHING        address (the block), pages, thrashing kind
 * FATAL_FAULT      GPU, comm, address, access
 * VA_SPACE_CREATE  comm, uid
 * VA_SPACE_DESTROY comm, uid, counters (final)
 */
#define UVM_NL_EVENT_FAULT_BATCH	1
#define UVM_NL_EVENT_FAULTS_FLUSHED	2
#define UVM_NL_EVENT_MIGRATION		3
#define UVM_NL_EVENT_EVICTION		4
#define UVM_NL_EVENT_THRASHING		5
#define UVM_NL_EVENT_FATAL_FAULT	6
#define UVM_NL_EVENT_VA_SPACE_CREATE	7
#define UVM_NL_EVENT_VA_SPACE_DESTROY	8

/*
 * UVM_NL_A_CAUSE values: why pages moved.  FAULT: a GPU or CPU fault (with
 * the pages the prefetcher added to it); PREFETCH: UVM_IOC_MIGRATE;
 * EVICTION: a full GPU made room; THRASHING: thrashing pages pinned to host
 * memory; ACCESS_COUNTER: access counters fired; HMM: pageable memory
 * (device-private pages); POLICY: advice (the end of read duplication);
 * COPY: UVM_IOC_COPY and UVM_IOC_MEMSET.
 */
#define UVM_NL_CAUSE_FAULT		1
#define UVM_NL_CAUSE_PREFETCH		2
#define UVM_NL_CAUSE_EVICTION		3
#define UVM_NL_CAUSE_THRASHING		4
#define UVM_NL_CAUSE_ACCESS_COUNTER	5
#define UVM_NL_CAUSE_HMM		6
#define UVM_NL_CAUSE_POLICY		7
#define UVM_NL_CAUSE_COPY		8
#define UVM_NL_CAUSE_MAX		8

/*
 * UVM_NL_A_EVENT_ACCESS values (in GET_GPUS replies): who may listen to
 * "events"; absent when this kernel sends no event at all.  ADMIN: joining
 * needs CAP_SYS_ADMIN, a member receives every event.  FILTERED: anyone may
 * join; a member receives the events of VA spaces of its socket's
 * effective uid, all of them with CAP_PERFMON or CAP_SYS_ADMIN.
 */
#define UVM_NL_EVENT_ACCESS_ADMIN	1
#define UVM_NL_EVENT_ACCESS_FILTERED	2

/* UVM_NL_A_ACCESS values */
#define UVM_NL_ACCESS_READ		1
#define UVM_NL_ACCESS_WRITE		2
#define UVM_NL_ACCESS_ATOMIC		3

/*
 * UVM_NL_A_THRASHING values: pages found thrashing, accesses served by a pin
 * to host memory, accesses delayed.
 */
#define UVM_NL_THRASHING_DETECTED	1
#define UVM_NL_THRASHING_PINNED		2
#define UVM_NL_THRASHING_THROTTLED	3

/*
 * GPU counters, nested in UVM_NL_A_GPU_COUNTERS with attribute type
 * index + 1; the same values as the sysfs files of the same names under
 * /sys/class/misc/uvm/gpuN/.  New counters are only appended.
 */
#define UVM_NL_GPU_FAULTS			0
#define UVM_NL_GPU_FAULTS_DUPLICATE		1
#define UVM_NL_GPU_FAULT_BATCHES		2
#define UVM_NL_GPU_REPLAYS			3
#define UVM_NL_GPU_FATAL_FAULTS			4
#define UVM_NL_GPU_FAULT_OVERFLOWS		5
#define UVM_NL_GPU_PAGES_IN			6
#define UVM_NL_GPU_PAGES_OUT			7
#define UVM_NL_GPU_EVICTIONS			8
#define UVM_NL_GPU_FAULTS_FLUSHED		9
#define UVM_NL_GPU_FAULT_FETCH_NS		10
#define UVM_NL_GPU_FAULT_COALESCE_NS		11
#define UVM_NL_GPU_FAULT_SERVICE_NS		12
#define UVM_NL_GPU_FAULT_REPLAY_NS		13
#define UVM_NL_GPU_ACCESS_NOTIFICATIONS		14
#define UVM_NL_GPU_MAPS_2M			15
#define UVM_NL_GPU_MAPS_64K			16
#define UVM_NL_GPU_PTE_SPLITS			17
#define UVM_NL_GPU_FAULT_BATCHES_PARALLEL	18
#define UVM_NL_GPU_FAULT_GROUPS_HELPED		19
#define UVM_NL_GPU_FAULT_GROUPS_DEFERRED	20
#define UVM_NL_GPU_COUNTER_COUNT		21

/* Pages per GET_RESIDENCY message, and pages per request at most. */
#define UVM_NL_RESIDENCY_CHUNK		64
#define UVM_NL_RESIDENCY_MAX_PAGES	(1U << 24)

/**
 * struct uvm_nl_page_state - residency and mappings of one page
 * @resident:	processors holding a valid copy (UVM_PROCESSOR_MASK bits)
 * @mapped_read: processors with at least a read mapping
 * @mapped_write: processors with at least a write mapping
 * @mapped_atomic: processors with an atomic mapping
 *
 * Pages outside every managed range of the VA space are all zero.
 */
struct uvm_nl_page_state {
	__u64 resident;
	__u64 mapped_read;
	__u64 mapped_write;
	__u64 mapped_atomic;
};

#endif /* _UAPI_UVM_NETLINK_H_ */
