/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * What the driver reports as it works: tracepoints (uvm_trace.h) and the
 * netlink event stream (uvm_nl.c), behind one call per event.
 *
 * Each uvm_event_*() fires its tracepoint (a patched-out branch while
 * disabled) and, only while somebody listens to the netlink group
 * "events", builds and multicasts a message without blocking
 * (uvm_nl_listening() is one bitmap test).  Callers that would compute
 * something only for an event (a duration) ask uvm_events_timed() first.
 */
#ifndef _UVM_EVENTS_H_
#define _UVM_EVENTS_H_

#include <linux/ktime.h>
#include <linux/types.h>

#include "uvm_gpu.h"
#include "uvm_nl.h"
#include "uvm_trace.h"
#include "uvm_va_space.h"

/* Is a migration being watched (its duration worth measuring)? */
static inline bool uvm_events_timed(void)
{
	return trace_uvm_migration_end_enabled() || uvm_nl_listening();
}

/* ktime_get_ns() when events are timed, else 0. */
static inline u64 uvm_events_now(bool timed)
{
	return timed ? ktime_get_ns() : 0;
}

/**
 * uvm_event_fault_batch() - a batch serviced faults of one VA space
 * @gpu:	the GPU
 * @va_space:	the VA space
 * @faults:	fault entries of the VA space in the batch
 * @duplicates:	of those, merged into another
 * @fatal:	faults cancelled as fatal
 * @start_ns:	when the batch was fetched (ktime_get_ns())
 */
static inline void uvm_event_fault_batch(struct uvm_gpu *gpu,
					 struct uvm_va_space *va_space,
					 u32 faults, u32 duplicates, u32 fatal,
					 u64 start_ns)
{
	if (uvm_nl_listening())
		uvm_nl_event_fault_batch(gpu, va_space, faults, duplicates, fatal,
					 ktime_get_ns() - start_ns);
}

/* uvm_event_faults_flushed() - a buffer flush dropped @faults of @va_space */
static inline void uvm_event_faults_flushed(struct uvm_gpu *gpu,
					    struct uvm_va_space *va_space,
					    u32 faults)
{
	if (faults && uvm_nl_listening())
		uvm_nl_event_faults_flushed(gpu, va_space, faults);
}

/* uvm_event_migration_start() - copies of @pages pages were queued */
static inline void uvm_event_migration_start(struct uvm_va_space *va_space,
					     u64 addr, u32 src, u32 dst,
					     u32 pages, u32 cause)
{
	trace_uvm_migration_start(va_space->id, addr, src, dst,
				  (u64)pages << PAGE_SHIFT, cause, 0, 0);
}

/**
 * uvm_event_migration() - a migration's copies completed (or failed)
 * @va_space:	the VA space
 * @addr:	address of the first page
 * @src:	source processor id
 * @dst:	destination processor id
 * @pages:	pages copied (counted in the PAGES_* counters)
 * @cause:	UVM_NL_CAUSE_*
 * @start_ns:	uvm_events_now() before the copies
 * @ret:	0 or the copy engine's -errno
 */
static inline void uvm_event_migration(struct uvm_va_space *va_space, u64 addr,
				       u32 src, u32 dst, u32 pages, u32 cause,
				       u64 start_ns, int ret)
{
	u64 ns = start_ns ? ktime_get_ns() - start_ns : 0;

	trace_uvm_migration_end(va_space->id, addr, src, dst,
				(u64)pages << PAGE_SHIFT, cause, ns, ret);
	if (uvm_nl_listening())
		uvm_nl_event_migration(va_space, addr, src, dst, pages, cause, ns);
}

/* uvm_event_eviction() - @pages pages of a block left @gpu to make room */
static inline void uvm_event_eviction(struct uvm_gpu *gpu,
				      struct uvm_va_space *va_space, u64 addr,
				      u32 pages)
{
	trace_uvm_eviction(gpu->index, va_space->id, addr, pages);
	if (uvm_nl_listening())
		uvm_nl_event_eviction(gpu, va_space, addr, pages);
}

/**
 * uvm_event_thrashing() - thrashing detection or mitigation in a block
 * @va_space:	the VA space
 * @addr:	the block
 * @kind:	UVM_NL_THRASHING_*
 * @pages:	pages (or accesses) concerned; nothing is reported for 0
 */
static inline void uvm_event_thrashing(struct uvm_va_space *va_space, u64 addr,
				       u32 kind, u32 pages)
{
	if (!pages)
		return;
	if (kind == UVM_NL_THRASHING_DETECTED)
		trace_uvm_thrashing_detected(va_space->id, addr, pages);
	else if (kind == UVM_NL_THRASHING_PINNED)
		trace_uvm_thrashing_pinned(va_space->id, addr, pages);
	else
		trace_uvm_thrashing_throttled(va_space->id, addr, pages);
	if (uvm_nl_listening())
		uvm_nl_event_thrashing(va_space, addr, kind, pages);
}

/**
 * uvm_event_fatal_fault() - a fault was cancelled as fatal
 * @gpu:	the GPU
 * @va_space:	its VA space, or NULL when it is gone
 * @addr:	faulting address
 * @access:	UVM_NL_ACCESS_* (the same values as UVM_FAULT_ACCESS_*)
 */
static inline void uvm_event_fatal_fault(struct uvm_gpu *gpu,
					 struct uvm_va_space *va_space,
					 u64 addr, u32 access)
{
	trace_uvm_fatal_fault(gpu->index, addr, access,
			      va_space ? va_space->tgid : 0,
			      va_space ? va_space->comm : "");
	if (va_space && uvm_nl_listening())
		uvm_nl_event_fatal_fault(gpu, va_space, addr, access);
}

/* uvm_event_va_space() - a VA space was created (@create) or released */
static inline void uvm_event_va_space(struct uvm_va_space *va_space, bool create)
{
	if (create)
		trace_uvm_va_space_create(va_space->id, va_space->tgid, va_space->comm);
	else
		trace_uvm_va_space_destroy(va_space->id, va_space->tgid, va_space->comm);
	if (uvm_nl_listening())
		uvm_nl_event_va_space(va_space, create);
}

#endif /* _UVM_EVENTS_H_ */
