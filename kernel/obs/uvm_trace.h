/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Tracepoints of the UVM driver (system "uvm").
 *
 * Defined once, in uvm_trace.c (CREATE_TRACE_POINTS); the call sites use
 * them through uvm_events.h, which also feeds the netlink event stream.
 * A disabled tracepoint costs a patched-out branch.  VA spaces are named by
 * their id (vs) and their opener's pid; processors by id (0 the CPU, 1 + n
 * GPU n).  See Documentation/observability.rst.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM uvm

#if !defined(_UVM_TRACE_H_) || defined(TRACE_HEADER_MULTI_READ)
#define _UVM_TRACE_H_

#include <linux/sched.h>
#include <linux/tracepoint.h>
#include <linux/types.h>

#include "uvm_netlink.h"

#define uvm_trace_cause_name(c)						\
	__print_symbolic(c,						\
			 { UVM_NL_CAUSE_FAULT, "fault" },		\
			 { UVM_NL_CAUSE_PREFETCH, "prefetch" },		\
			 { UVM_NL_CAUSE_EVICTION, "eviction" },		\
			 { UVM_NL_CAUSE_THRASHING, "thrashing" },	\
			 { UVM_NL_CAUSE_ACCESS_COUNTER, "access_counter" }, \
			 { UVM_NL_CAUSE_HMM, "hmm" },			\
			 { UVM_NL_CAUSE_POLICY, "policy" },		\
			 { UVM_NL_CAUSE_COPY, "copy" })

#define uvm_trace_access_name(a)					\
	__print_symbolic(a,						\
			 { UVM_NL_ACCESS_READ, "read" },		\
			 { UVM_NL_ACCESS_WRITE, "write" },		\
			 { UVM_NL_ACCESS_ATOMIC, "atomic" })

TRACE_EVENT(uvm_fault_batch_fetched,
	TP_PROTO(u32 gpu, u32 fetched, bool overflow),
	TP_ARGS(gpu, fetched, overflow),
	TP_STRUCT__entry(
		__field(u32, gpu)
		__field(u32, fetched)
		__field(bool, overflow)
	),
	TP_fast_assign(
		__entry->gpu = gpu;
		__entry->fetched = fetched;
		__entry->overflow = overflow;
	),
	TP_printk("gpu=%u fetched=%u overflow=%d",
		  __entry->gpu, __entry->fetched, __entry->overflow)
);

TRACE_EVENT(uvm_fault_batch_serviced,
	TP_PROTO(u32 gpu, u32 faults, u32 duplicates, u32 fatal, u64 duration_ns),
	TP_ARGS(gpu, faults, duplicates, fatal, duration_ns),
	TP_STRUCT__entry(
		__field(u32, gpu)
		__field(u32, faults)
		__field(u32, duplicates)
		__field(u32, fatal)
		__field(u64, duration_ns)
	),
	TP_fast_assign(
		__entry->gpu = gpu;
		__entry->faults = faults;
		__entry->duplicates = duplicates;
		__entry->fatal = fatal;
		__entry->duration_ns = duration_ns;
	),
	TP_printk("gpu=%u faults=%u duplicates=%u fatal=%u duration_ns=%llu",
		  __entry->gpu, __entry->faults, __entry->duplicates,
		  __entry->fatal, __entry->duration_ns)
);

TRACE_EVENT(uvm_block_serviced,
	TP_PROTO(u32 gpu, u64 vs, u64 addr, u32 faults, int ret),
	TP_ARGS(gpu, vs, addr, faults, ret),
	TP_STRUCT__entry(
		__field(u32, gpu)
		__field(u64, vs)
		__field(u64, addr)
		__field(u32, faults)
		__field(int, ret)
	),
	TP_fast_assign(
		__entry->gpu = gpu;
		__entry->vs = vs;
		__entry->addr = addr;
		__entry->faults = faults;
		__entry->ret = ret;
	),
	TP_printk("gpu=%u vs=%llu block=0x%llx faults=%u ret=%d",
		  __entry->gpu, __entry->vs, __entry->addr, __entry->faults,
		  __entry->ret)
);

TRACE_EVENT(uvm_replay,
	TP_PROTO(u32 gpu, u32 policy),
	TP_ARGS(gpu, policy),
	TP_STRUCT__entry(
		__field(u32, gpu)
		__field(u32, policy)
	),
	TP_fast_assign(
		__entry->gpu = gpu;
		__entry->policy = policy;
	),
	TP_printk("gpu=%u policy=%u", __entry->gpu, __entry->policy)
);

TRACE_EVENT(uvm_fatal_fault,
	TP_PROTO(u32 gpu, u64 addr, u32 access, pid_t pid, const char *comm),
	TP_ARGS(gpu, addr, access, pid, comm),
	TP_STRUCT__entry(
		__field(u32, gpu)
		__field(u64, addr)
		__field(u32, access)
		__field(pid_t, pid)
		__array(char, comm, TASK_COMM_LEN)
	),
	TP_fast_assign(
		__entry->gpu = gpu;
		__entry->addr = addr;
		__entry->access = access;
		__entry->pid = pid;
		strscpy(__entry->comm, comm, TASK_COMM_LEN);
	),
	TP_printk("gpu=%u addr=0x%llx access=%s pid=%d comm=%s",
		  __entry->gpu, __entry->addr,
		  uvm_trace_access_name(__entry->access), __entry->pid,
		  __entry->comm)
);

DECLARE_EVENT_CLASS(uvm_migration_class,
	TP_PROTO(u64 vs, u64 addr, u32 src, u32 dst, u64 bytes, u32 cause,
		 u64 duration_ns, int ret),
	TP_ARGS(vs, addr, src, dst, bytes, cause, duration_ns, ret),
	TP_STRUCT__entry(
		__field(u64, vs)
		__field(u64, addr)
		__field(u32, src)
		__field(u32, dst)
		__field(u64, bytes)
		__field(u32, cause)
		__field(u64, duration_ns)
		__field(int, ret)
	),
	TP_fast_assign(
		__entry->vs = vs;
		__entry->addr = addr;
		__entry->src = src;
		__entry->dst = dst;
		__entry->bytes = bytes;
		__entry->cause = cause;
		__entry->duration_ns = duration_ns;
		__entry->ret = ret;
	),
	TP_printk("vs=%llu addr=0x%llx src=%u dst=%u bytes=%llu cause=%s duration_ns=%llu ret=%d",
		  __entry->vs, __entry->addr, __entry->src, __entry->dst,
		  __entry->bytes, uvm_trace_cause_name(__entry->cause),
		  __entry->duration_ns, __entry->ret)
);

/* Copies queued: duration and ret are 0. */
DEFINE_EVENT(uvm_migration_class, uvm_migration_start,
	TP_PROTO(u64 vs, u64 addr, u32 src, u32 dst, u64 bytes, u32 cause,
		 u64 duration_ns, int ret),
	TP_ARGS(vs, addr, src, dst, bytes, cause, duration_ns, ret)
);

/* Copies completed (ret 0) or failed. */
DEFINE_EVENT(uvm_migration_class, uvm_migration_end,
	TP_PROTO(u64 vs, u64 addr, u32 src, u32 dst, u64 bytes, u32 cause,
		 u64 duration_ns, int ret),
	TP_ARGS(vs, addr, src, dst, bytes, cause, duration_ns, ret)
);

TRACE_EVENT(uvm_eviction,
	TP_PROTO(u32 gpu, u64 vs, u64 addr, u32 pages),
	TP_ARGS(gpu, vs, addr, pages),
	TP_STRUCT__entry(
		__field(u32, gpu)
		__field(u64, vs)
		__field(u64, addr)
		__field(u32, pages)
	),
	TP_fast_assign(
		__entry->gpu = gpu;
		__entry->vs = vs;
		__entry->addr = addr;
		__entry->pages = pages;
	),
	TP_printk("gpu=%u vs=%llu block=0x%llx pages=%u",
		  __entry->gpu, __entry->vs, __entry->addr, __entry->pages)
);

DECLARE_EVENT_CLASS(uvm_thrashing_class,
	TP_PROTO(u64 vs, u64 addr, u32 pages),
	TP_ARGS(vs, addr, pages),
	TP_STRUCT__entry(
		__field(u64, vs)
		__field(u64, addr)
		__field(u32, pages)
	),
	TP_fast_assign(
		__entry->vs = vs;
		__entry->addr = addr;
		__entry->pages = pages;
	),
	TP_printk("vs=%llu block=0x%llx pages=%u",
		  __entry->vs, __entry->addr, __entry->pages)
);

DEFINE_EVENT(uvm_thrashing_class, uvm_thrashing_detected,
	TP_PROTO(u64 vs, u64 addr, u32 pages),
	TP_ARGS(vs, addr, pages)
);

DEFINE_EVENT(uvm_thrashing_class, uvm_thrashing_pinned,
	TP_PROTO(u64 vs, u64 addr, u32 pages),
	TP_ARGS(vs, addr, pages)
);

DEFINE_EVENT(uvm_thrashing_class, uvm_thrashing_throttled,
	TP_PROTO(u64 vs, u64 addr, u32 pages),
	TP_ARGS(vs, addr, pages)
);

DECLARE_EVENT_CLASS(uvm_va_space_class,
	TP_PROTO(u64 vs, pid_t pid, const char *comm),
	TP_ARGS(vs, pid, comm),
	TP_STRUCT__entry(
		__field(u64, vs)
		__field(pid_t, pid)
		__array(char, comm, TASK_COMM_LEN)
	),
	TP_fast_assign(
		__entry->vs = vs;
		__entry->pid = pid;
		strscpy(__entry->comm, comm, TASK_COMM_LEN);
	),
	TP_printk("vs=%llu pid=%d comm=%s",
		  __entry->vs, __entry->pid, __entry->comm)
);

DEFINE_EVENT(uvm_va_space_class, uvm_va_space_create,
	TP_PROTO(u64 vs, pid_t pid, const char *comm),
	TP_ARGS(vs, pid, comm)
);

DEFINE_EVENT(uvm_va_space_class, uvm_va_space_destroy,
	TP_PROTO(u64 vs, pid_t pid, const char *comm),
	TP_ARGS(vs, pid, comm)
);

#endif /* _UVM_TRACE_H_ */

/* This part must be outside the include guard. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE uvm_trace
#include <trace/define_trace.h>
