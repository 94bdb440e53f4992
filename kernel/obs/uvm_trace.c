// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The tracepoints of the UVM driver, instantiated.
 *
 * DOC: Tracepoints
 *
 * uvm_trace.h declares the tracepoints of system "uvm"; this file is the
 * one translation unit that defines them (CREATE_TRACE_POINTS).  The call
 * sites reach them through uvm_events.h, which pairs each with its netlink
 * event.  They appear under /sys/kernel/tracing/events/uvm/ and work with
 * perf (``perf trace -e 'uvm:*'``), trace-cmd and bpftrace.
 *
 * Locking: none; tracepoints may fire under any lock of the driver,
 * including spinlocks (they never sleep).
 */
#define CREATE_TRACE_POINTS
#include "uvm_trace.h"
