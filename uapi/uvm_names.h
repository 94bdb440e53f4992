/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * uvm_names.h - the names userspace shows for the numbers of uvm.h and
 * uvm_netlink.h: VA space counters (UVM_COUNTER_*), GPU counters
 * (UVM_NL_GPU_*, which are also the names of the GPU's sysfs files
 * /sys/class/misc/uvm/gpuN/<name>) and processors (UVM_PROCESSOR_*).
 *
 * One table for every program that prints or looks these up (uvm-smi, the
 * kselftests, the benchmarks), so that they agree.  For userspace: the
 * module does not include it.  The GPU counter names are ABI as the sysfs
 * files are (Documentation/ABI/testing/sysfs-class-misc-uvm); the others
 * are how the tools spell them.
 */
#ifndef _UAPI_UVM_NAMES_H_
#define _UAPI_UVM_NAMES_H_

#include <linux/types.h>

#include "uvm.h"
#include "uvm_netlink.h"

/**
 * uvm_counter_name() - the name of a VA space counter
 * @i: UVM_COUNTER_*
 *
 * Return: "gpu_faults" for UVM_COUNTER_GPU_FAULTS and so on, "?" for a
 * number this header does not know.
 */
static inline const char *uvm_counter_name(unsigned int i)
{
	static const char *const names[UVM_COUNTER_COUNT] = {
		[UVM_COUNTER_GPU_FAULTS] = "gpu_faults",
		[UVM_COUNTER_GPU_FAULTS_DUP] = "gpu_faults_dup",
		[UVM_COUNTER_GPU_FAULT_BATCHES] = "gpu_fault_batches",
		[UVM_COUNTER_GPU_REPLAYS] = "gpu_replays",
		[UVM_COUNTER_GPU_FATAL_FAULTS] = "gpu_fatal_faults",
		[UVM_COUNTER_CPU_FAULTS] = "cpu_faults",
		[UVM_COUNTER_PAGES_H2D] = "pages_h2d",
		[UVM_COUNTER_PAGES_D2H] = "pages_d2h",
		[UVM_COUNTER_PAGES_D2D] = "pages_d2d",
		[UVM_COUNTER_BYTES_H2D] = "bytes_h2d",
		[UVM_COUNTER_BYTES_D2H] = "bytes_d2h",
		[UVM_COUNTER_BYTES_D2D] = "bytes_d2d",
		[UVM_COUNTER_PAGES_POPULATED_CPU] = "pages_populated_cpu",
		[UVM_COUNTER_PAGES_POPULATED_GPU] = "pages_populated_gpu",
		[UVM_COUNTER_GPU_PAGES_MAPPED] = "gpu_pages_mapped",
		[UVM_COUNTER_GPU_PAGES_UNMAPPED] = "gpu_pages_unmapped",
		[UVM_COUNTER_CPU_PAGES_UNMAPPED] = "cpu_pages_unmapped",
		[UVM_COUNTER_PAGES_DUPLICATED] = "pages_duplicated",
		[UVM_COUNTER_PAGES_DISCARDED] = "pages_discarded",
		[UVM_COUNTER_PAGES_PREFETCHED] = "pages_prefetched",
		[UVM_COUNTER_PAGES_EVICTED] = "pages_evicted",
		[UVM_COUNTER_PAGES_FAULT_PREFETCHED] = "pages_fault_prefetched",
		[UVM_COUNTER_THRASHING_DETECTED] = "thrashing_detected",
		[UVM_COUNTER_THRASHING_PINNED] = "thrashing_pinned",
		[UVM_COUNTER_ACCESS_COUNTER_MIGRATIONS] = "access_counter_migrations",
		[UVM_COUNTER_THRASHING_THROTTLED] = "thrashing_throttled",
	};

	return i < UVM_COUNTER_COUNT && names[i] ? names[i] : "?";
}

/**
 * uvm_gpu_counter_name() - the name of a GPU counter, and of its sysfs file
 * @i: UVM_NL_GPU_*
 *
 * Return: "faults" for UVM_NL_GPU_FAULTS and so on, "?" for a number this
 * header does not know.
 */
static inline const char *uvm_gpu_counter_name(unsigned int i)
{
	static const char *const names[UVM_NL_GPU_COUNTER_COUNT] = {
		[UVM_NL_GPU_FAULTS] = "faults",
		[UVM_NL_GPU_FAULTS_DUPLICATE] = "faults_duplicate",
		[UVM_NL_GPU_FAULT_BATCHES] = "fault_batches",
		[UVM_NL_GPU_REPLAYS] = "replays",
		[UVM_NL_GPU_FATAL_FAULTS] = "fatal_faults",
		[UVM_NL_GPU_FAULT_OVERFLOWS] = "fault_overflows",
		[UVM_NL_GPU_PAGES_IN] = "pages_in",
		[UVM_NL_GPU_PAGES_OUT] = "pages_out",
		[UVM_NL_GPU_EVICTIONS] = "evictions",
		[UVM_NL_GPU_FAULTS_FLUSHED] = "faults_flushed",
		[UVM_NL_GPU_FAULT_FETCH_NS] = "fault_fetch_ns",
		[UVM_NL_GPU_FAULT_COALESCE_NS] = "fault_coalesce_ns",
		[UVM_NL_GPU_FAULT_SERVICE_NS] = "fault_service_ns",
		[UVM_NL_GPU_FAULT_REPLAY_NS] = "fault_replay_ns",
		[UVM_NL_GPU_ACCESS_NOTIFICATIONS] = "access_notifications",
		[UVM_NL_GPU_MAPS_2M] = "maps_2m",
		[UVM_NL_GPU_MAPS_64K] = "maps_64k",
		[UVM_NL_GPU_PTE_SPLITS] = "pte_splits",
		[UVM_NL_GPU_FAULT_BATCHES_PARALLEL] = "fault_batches_parallel",
		[UVM_NL_GPU_FAULT_GROUPS_HELPED] = "fault_groups_helped",
		[UVM_NL_GPU_FAULT_GROUPS_DEFERRED] = "fault_groups_deferred",
	};

	return i < UVM_NL_GPU_COUNTER_COUNT && names[i] ? names[i] : "?";
}

/* Bytes of a processor's name: "gpu", any __u32 in decimal, the NUL. */
#define UVM_PROCESSOR_NAME_MAX	14

/**
 * uvm_processor_name() - the name of a processor id
 * @id: processor id: UVM_PROCESSOR_CPU (0) or UVM_PROCESSOR_GPU(n) (1 + n)
 * @buf: UVM_PROCESSOR_NAME_MAX bytes for the name
 *
 * The CPU is "cpu" and GPU n is "gpu<n>" (processor id 1 + n), as the
 * GPU's sysfs directory gpuN names it.
 *
 * Return: @buf.
 */
static inline char *uvm_processor_name(__u32 id, char *buf)
{
	char digits[10];
	__u32 n = id - 1;
	int len = 0, i = 0;

	if (id == UVM_PROCESSOR_CPU) {
		buf[0] = 'c';
		buf[1] = 'p';
		buf[2] = 'u';
		buf[3] = '\0';
		return buf;
	}
	do {
		digits[len++] = (char)('0' + n % 10);
		n /= 10;
	} while (n);
	buf[0] = 'g';
	buf[1] = 'p';
	buf[2] = 'u';
	while (len)
		buf[3 + i++] = digits[--len];
	buf[3 + i] = '\0';
	return buf;
}

#endif /* _UAPI_UVM_NAMES_H_ */
