// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * abi - the layout of every uapi structure and ioctl number.
 *
 * uapi/uvm.h and uapi/uvm_test.h promise sizes that are multiples of 8 and
 * identical on i386 and x86-64, fields that only move by appending, and
 * command numbers that encode those sizes.  These tests pin the layout the
 * module, libuvm and older binaries agree on; they need no module.
 */
#include <stddef.h>

#include "kselftest_harness.h"
#include "uvm_test_util.h"
#include "uvm_netlink.h"

#define ASSERT_FIELD(type, field, off, size) do {			\
	ASSERT_EQ((size_t)(off), offsetof(type, field));		\
	ASSERT_EQ((size_t)(size), sizeof(((type *)0)->field));		\
} while (0)

/* struct uvm_ioc_version: 56 bytes, fields in order */
TEST(version_layout)
{
	ASSERT_EQ(56, sizeof(struct uvm_ioc_version));
	ASSERT_FIELD(struct uvm_ioc_version, major, 0, 4);
	ASSERT_FIELD(struct uvm_ioc_version, minor, 4, 4);
	ASSERT_FIELD(struct uvm_ioc_version, num_gpus, 8, 4);
	ASSERT_FIELD(struct uvm_ioc_version, page_size, 12, 4);
	ASSERT_FIELD(struct uvm_ioc_version, caps, 16, 8);
	ASSERT_FIELD(struct uvm_ioc_version, reserved, 24, 32);
}

/* struct uvm_ioc_gpu_info: 152 bytes, fields in order */
TEST(gpu_info_layout)
{
	ASSERT_EQ(152, sizeof(struct uvm_ioc_gpu_info));
	ASSERT_FIELD(struct uvm_ioc_gpu_info, gpu_index, 0, 4);
	ASSERT_FIELD(struct uvm_ioc_gpu_info, flags, 4, 4);
	ASSERT_FIELD(struct uvm_ioc_gpu_info, vidmem_size, 8, 8);
	ASSERT_FIELD(struct uvm_ioc_gpu_info, vidmem_used, 16, 8);
	ASSERT_FIELD(struct uvm_ioc_gpu_info, fault_buffer_entries, 24, 4);
	ASSERT_FIELD(struct uvm_ioc_gpu_info, fault_batch_size, 28, 4);
	ASSERT_FIELD(struct uvm_ioc_gpu_info, copy_engines, 32, 4);
	ASSERT_FIELD(struct uvm_ioc_gpu_info, pad, 36, 4);
	ASSERT_FIELD(struct uvm_ioc_gpu_info, uuid, 40, 16);
	ASSERT_FIELD(struct uvm_ioc_gpu_info, name, 56, 64);
	ASSERT_FIELD(struct uvm_ioc_gpu_info, reserved, 120, 32);
}

/* struct uvm_ioc_get_counters: 16 bytes, fields in order */
TEST(get_counters_layout)
{
	ASSERT_EQ(16, sizeof(struct uvm_ioc_get_counters));
	ASSERT_FIELD(struct uvm_ioc_get_counters, counters_ptr, 0, 8);
	ASSERT_FIELD(struct uvm_ioc_get_counters, count, 8, 4);
	ASSERT_FIELD(struct uvm_ioc_get_counters, flags, 12, 4);
}

/* struct uvm_test_gpu_op: 80 bytes, fields in order */
TEST(gpu_op_layout)
{
	ASSERT_EQ(80, sizeof(struct uvm_test_gpu_op));
	ASSERT_FIELD(struct uvm_test_gpu_op, type, 0, 4);
	ASSERT_FIELD(struct uvm_test_gpu_op, order, 4, 4);
	ASSERT_FIELD(struct uvm_test_gpu_op, address, 8, 8);
	ASSERT_FIELD(struct uvm_test_gpu_op, length, 16, 8);
	ASSERT_FIELD(struct uvm_test_gpu_op, stride, 24, 8);
	ASSERT_FIELD(struct uvm_test_gpu_op, access_size, 32, 4);
	ASSERT_FIELD(struct uvm_test_gpu_op, seed, 36, 4);
	ASSERT_FIELD(struct uvm_test_gpu_op, value, 40, 8);
	ASSERT_FIELD(struct uvm_test_gpu_op, data_ptr, 48, 8);
	ASSERT_FIELD(struct uvm_test_gpu_op, checksum, 56, 8);
	ASSERT_FIELD(struct uvm_test_gpu_op, reserved, 64, 16);
}

/* struct uvm_test_launch: 80 bytes, fields in order */
TEST(launch_layout)
{
	ASSERT_EQ(80, sizeof(struct uvm_test_launch));
	ASSERT_FIELD(struct uvm_test_launch, gpu_index, 0, 4);
	ASSERT_FIELD(struct uvm_test_launch, num_warps, 4, 4);
	ASSERT_FIELD(struct uvm_test_launch, ops_ptr, 8, 8);
	ASSERT_FIELD(struct uvm_test_launch, num_ops, 16, 4);
	ASSERT_FIELD(struct uvm_test_launch, flags, 20, 4);
	ASSERT_FIELD(struct uvm_test_launch, fault_address, 24, 8);
	ASSERT_FIELD(struct uvm_test_launch, fault_access, 32, 4);
	ASSERT_FIELD(struct uvm_test_launch, fault_op, 36, 4);
	ASSERT_FIELD(struct uvm_test_launch, faults_raised, 40, 8);
	ASSERT_FIELD(struct uvm_test_launch, reserved, 48, 32);
}

/* struct uvm_test_page_state and uvm_test_residency: 32 bytes each */
TEST(residency_layout)
{
	ASSERT_EQ(32, sizeof(struct uvm_test_page_state));
	ASSERT_FIELD(struct uvm_test_page_state, resident, 0, 8);
	ASSERT_FIELD(struct uvm_test_page_state, mapped_read, 8, 8);
	ASSERT_FIELD(struct uvm_test_page_state, mapped_write, 16, 8);
	ASSERT_FIELD(struct uvm_test_page_state, mapped_atomic, 24, 8);
	ASSERT_EQ(32, sizeof(struct uvm_test_residency));
	ASSERT_FIELD(struct uvm_test_residency, address, 0, 8);
	ASSERT_FIELD(struct uvm_test_residency, length, 8, 8);
	ASSERT_FIELD(struct uvm_test_residency, states_ptr, 16, 8);
	ASSERT_FIELD(struct uvm_test_residency, flags, 24, 4);
	ASSERT_FIELD(struct uvm_test_residency, pad, 28, 4);
	ASSERT_EQ(48, sizeof(struct uvm_test_page_state_sizes));
	ASSERT_FIELD(struct uvm_test_page_state_sizes, state, 0, 32);
	ASSERT_FIELD(struct uvm_test_page_state_sizes, mapped_64k, 32, 8);
	ASSERT_FIELD(struct uvm_test_page_state_sizes, mapped_2m, 40, 8);
	ASSERT_EQ(1U, UVM_TEST_RESIDENCY_PAGEABLE);
	ASSERT_EQ(2U, UVM_TEST_RESIDENCY_PTE_SIZES);
}

/* struct uvm_test_queue_gate: 32 bytes */
TEST(queue_gate_layout)
{
	ASSERT_EQ(32, sizeof(struct uvm_test_queue_gate));
	ASSERT_FIELD(struct uvm_test_queue_gate, op, 0, 4);
	ASSERT_FIELD(struct uvm_test_queue_gate, flags, 4, 4);
	ASSERT_FIELD(struct uvm_test_queue_gate, fence, 8, 8);
	ASSERT_FIELD(struct uvm_test_queue_gate, reserved, 16, 16);
	ASSERT_EQ(1U, UVM_TEST_GATE_CLOSE);
	ASSERT_EQ(2U, UVM_TEST_GATE_OPEN);
	ASSERT_EQ(1U, UVM_TEST_GATE_HOLD_LOCK);
}

/* Command numbers: _IOWR, magic 0xD5, the numbers and sizes above */
TEST(ioctl_numbers)
{
	ASSERT_EQ(0xD5, UVM_IOC_MAGIC);
	ASSERT_EQ(0xC038D500U, (unsigned int)UVM_IOC_GET_VERSION);
	ASSERT_EQ(0xC098D501U, (unsigned int)UVM_IOC_GPU_INFO);
	ASSERT_EQ(0xC010D502U, (unsigned int)UVM_IOC_GET_COUNTERS);
	ASSERT_EQ(0xC050D580U, (unsigned int)UVM_TEST_IOC_LAUNCH);
	ASSERT_EQ(0xC020D581U, (unsigned int)UVM_TEST_IOC_RESIDENCY);
	ASSERT_EQ(0xC020D582U, (unsigned int)UVM_TEST_IOC_QUEUE_GATE);
}

/* API 1.6: fence completion times */
TEST(fence_time_layout)
{
	ASSERT_EQ(32, sizeof(struct uvm_ioc_fence_time));
	ASSERT_FIELD(struct uvm_ioc_fence_time, fence, 0, 8);
	ASSERT_FIELD(struct uvm_ioc_fence_time, completed_ns, 8, 8);
	ASSERT_FIELD(struct uvm_ioc_fence_time, reserved, 16, 16);
	ASSERT_EQ(0xC020D518U, (unsigned int)UVM_IOC_FENCE_TIME);
	ASSERT_EQ(64ULL, UVM_CAP_FENCE_TIME);
	ASSERT_EQ(256, UVM_FENCE_TIMES_KEPT);
}

/* Enumerations start at 1, counters keep their indices, limits as documented */
TEST(constants)
{
	ASSERT_EQ(1, UVM_API_VERSION_MAJOR);
	ASSERT_EQ(6, UVM_API_VERSION_MINOR);
	ASSERT_EQ(1, UVM_TEST_OP_READ);
	ASSERT_EQ(2, UVM_TEST_OP_WRITE);
	ASSERT_EQ(3, UVM_TEST_OP_ATOMIC_ADD);
	ASSERT_EQ(1, UVM_TEST_ORDER_SEQUENTIAL);
	ASSERT_EQ(2, UVM_TEST_ORDER_RANDOM);
	ASSERT_EQ(0, UVM_COUNTER_GPU_FAULTS);
	ASSERT_EQ(6, UVM_COUNTER_PAGES_H2D);
	ASSERT_EQ(12, UVM_COUNTER_PAGES_POPULATED_CPU);
	ASSERT_EQ(16, UVM_COUNTER_CPU_PAGES_UNMAPPED);
	ASSERT_EQ(25, UVM_COUNTER_THRASHING_THROTTLED);
	ASSERT_EQ(26, UVM_COUNTER_COUNT);
	ASSERT_EQ(1024, UVM_TEST_MAX_WARPS);
	ASSERT_EQ(4096, UVM_TEST_MAX_OPS);
	ASSERT_EQ(64ULL << 20, UVM_TEST_MAX_DATA);
	ASSERT_EQ(65536U, UVM_TEST_RESIDENCY_MAX_PAGES);
	ASSERT_EQ(2ULL << 20, UVM_VA_BLOCK_SIZE);
	ASSERT_EQ(1ULL, UVM_PROCESSOR_MASK(UVM_PROCESSOR_CPU));
	ASSERT_EQ(4ULL, UVM_PROCESSOR_MASK(UVM_PROCESSOR_GPU(1)));
}

/* API 1.1: struct uvm_location (8 bytes) and uvm_ioc_advise (48 bytes), fields in order */
TEST(advise_layout)
{
	ASSERT_EQ(8, sizeof(struct uvm_location));
	ASSERT_FIELD(struct uvm_location, type, 0, 4);
	ASSERT_FIELD(struct uvm_location, id, 4, 4);
	ASSERT_EQ(48, sizeof(struct uvm_ioc_advise));
	ASSERT_FIELD(struct uvm_ioc_advise, address, 0, 8);
	ASSERT_FIELD(struct uvm_ioc_advise, length, 8, 8);
	ASSERT_FIELD(struct uvm_ioc_advise, advice, 16, 4);
	ASSERT_FIELD(struct uvm_ioc_advise, flags, 20, 4);
	ASSERT_FIELD(struct uvm_ioc_advise, location, 24, 8);
	ASSERT_FIELD(struct uvm_ioc_advise, reserved, 32, 16);
}

/* API 1.1: struct uvm_range (16 bytes) and uvm_ioc_migrate (80 bytes), fields in order */
TEST(migrate_layout)
{
	ASSERT_EQ(16, sizeof(struct uvm_range));
	ASSERT_FIELD(struct uvm_range, address, 0, 8);
	ASSERT_FIELD(struct uvm_range, length, 8, 8);
	ASSERT_EQ(80, sizeof(struct uvm_ioc_migrate));
	ASSERT_FIELD(struct uvm_ioc_migrate, op, 0, 4);
	ASSERT_FIELD(struct uvm_ioc_migrate, flags, 4, 4);
	ASSERT_FIELD(struct uvm_ioc_migrate, ranges_ptr, 8, 8);
	ASSERT_FIELD(struct uvm_ioc_migrate, count, 16, 8);
	ASSERT_FIELD(struct uvm_ioc_migrate, locations_ptr, 24, 8);
	ASSERT_FIELD(struct uvm_ioc_migrate, location_starts_ptr, 32, 8);
	ASSERT_FIELD(struct uvm_ioc_migrate, num_locations, 40, 4);
	ASSERT_FIELD(struct uvm_ioc_migrate, bad_range, 44, 4);
	ASSERT_FIELD(struct uvm_ioc_migrate, bad_location, 48, 4);
	ASSERT_FIELD(struct uvm_ioc_migrate, pad, 52, 4);
	ASSERT_FIELD(struct uvm_ioc_migrate, fence, 56, 8);
	ASSERT_FIELD(struct uvm_ioc_migrate, reserved, 64, 16);
}

/* API 1.1: uvm_ioc_fence_wait (24), uvm_ioc_range_query (64), uvm_ioc_pointer_info (56) */
TEST(query_layouts)
{
	ASSERT_EQ(24, sizeof(struct uvm_ioc_fence_wait));
	ASSERT_FIELD(struct uvm_ioc_fence_wait, fence, 0, 8);
	ASSERT_FIELD(struct uvm_ioc_fence_wait, flags, 8, 4);
	ASSERT_FIELD(struct uvm_ioc_fence_wait, pad, 12, 4);
	ASSERT_FIELD(struct uvm_ioc_fence_wait, completed, 16, 8);
	ASSERT_EQ(64, sizeof(struct uvm_ioc_range_query));
	ASSERT_FIELD(struct uvm_ioc_range_query, address, 0, 8);
	ASSERT_FIELD(struct uvm_ioc_range_query, length, 8, 8);
	ASSERT_FIELD(struct uvm_ioc_range_query, flags, 16, 4);
	ASSERT_FIELD(struct uvm_ioc_range_query, read_mostly, 20, 4);
	ASSERT_FIELD(struct uvm_ioc_range_query, preferred, 24, 8);
	ASSERT_FIELD(struct uvm_ioc_range_query, last_prefetch, 32, 8);
	ASSERT_FIELD(struct uvm_ioc_range_query, accessed_by, 40, 8);
	ASSERT_FIELD(struct uvm_ioc_range_query, reserved, 48, 16);
	ASSERT_EQ(56, sizeof(struct uvm_ioc_pointer_info));
	ASSERT_FIELD(struct uvm_ioc_pointer_info, address, 0, 8);
	ASSERT_FIELD(struct uvm_ioc_pointer_info, start, 8, 8);
	ASSERT_FIELD(struct uvm_ioc_pointer_info, size, 16, 8);
	ASSERT_FIELD(struct uvm_ioc_pointer_info, buffer_id, 24, 8);
	ASSERT_FIELD(struct uvm_ioc_pointer_info, flags, 32, 4);
	ASSERT_FIELD(struct uvm_ioc_pointer_info, gpu_index, 36, 4);
	ASSERT_FIELD(struct uvm_ioc_pointer_info, reserved, 40, 16);
}

/* API 1.1 command numbers and enumerations: CUDA's values, 0 left invalid */
TEST(constants_1_1)
{
	ASSERT_EQ(0xC030D503U, (unsigned int)UVM_IOC_ADVISE);
	ASSERT_EQ(0xC050D504U, (unsigned int)UVM_IOC_MIGRATE);
	ASSERT_EQ(0xC018D505U, (unsigned int)UVM_IOC_FENCE_WAIT);
	ASSERT_EQ(0xC040D506U, (unsigned int)UVM_IOC_RANGE_QUERY);
	ASSERT_EQ(0xC038D507U, (unsigned int)UVM_IOC_POINTER_INFO);
	ASSERT_EQ(0, UVM_LOCATION_INVALID);
	ASSERT_EQ(1, UVM_LOCATION_GPU);
	ASSERT_EQ(2, UVM_LOCATION_HOST);
	ASSERT_EQ(3, UVM_LOCATION_HOST_NUMA);
	ASSERT_EQ(4, UVM_LOCATION_HOST_NUMA_CURRENT);
	ASSERT_EQ(1, UVM_ADVICE_SET_READ_MOSTLY);
	ASSERT_EQ(6, UVM_ADVICE_UNSET_ACCESSED_BY);
	ASSERT_EQ(1, UVM_MIGRATE_PREFETCH);
	ASSERT_EQ(2, UVM_MIGRATE_DISCARD);
	ASSERT_EQ(3, UVM_MIGRATE_DISCARD_PREFETCH);
	ASSERT_EQ(1U, UVM_MIGRATE_ASYNC);
	ASSERT_EQ(1U << 20, UVM_MIGRATE_MAX_RANGES);
	ASSERT_EQ(0xffffffffU, UVM_MIGRATE_NO_INDEX);
	ASSERT_EQ(1U, UVM_FENCE_WAIT_POLL);
	ASSERT_EQ(1U, UVM_POINTER_MANAGED);
	ASSERT_EQ(17, UVM_COUNTER_PAGES_DUPLICATED);
	ASSERT_EQ(18, UVM_COUNTER_PAGES_DISCARDED);
	ASSERT_EQ(19, UVM_COUNTER_PAGES_PREFETCHED);
}

/* API 1.3: the virtual memory management structures, fields in order */
TEST(vmm_layouts)
{
	ASSERT_EQ(48, sizeof(struct uvm_ioc_mem_create));
	ASSERT_FIELD(struct uvm_ioc_mem_create, size, 0, 8);
	ASSERT_FIELD(struct uvm_ioc_mem_create, location, 8, 8);
	ASSERT_FIELD(struct uvm_ioc_mem_create, handle_types, 16, 4);
	ASSERT_FIELD(struct uvm_ioc_mem_create, flags, 20, 4);
	ASSERT_FIELD(struct uvm_ioc_mem_create, handle, 24, 8);
	ASSERT_FIELD(struct uvm_ioc_mem_create, reserved, 32, 16);
	ASSERT_EQ(16, sizeof(struct uvm_ioc_mem_release));
	ASSERT_FIELD(struct uvm_ioc_mem_release, handle, 0, 8);
	ASSERT_EQ(56, sizeof(struct uvm_ioc_mem_props));
	ASSERT_FIELD(struct uvm_ioc_mem_props, handle, 0, 8);
	ASSERT_FIELD(struct uvm_ioc_mem_props, size, 8, 8);
	ASSERT_FIELD(struct uvm_ioc_mem_props, location, 16, 8);
	ASSERT_FIELD(struct uvm_ioc_mem_props, handle_types, 24, 4);
	ASSERT_FIELD(struct uvm_ioc_mem_props, flags, 28, 4);
	ASSERT_FIELD(struct uvm_ioc_mem_props, alloc_id, 32, 8);
	ASSERT_EQ(40, sizeof(struct uvm_ioc_mem_export));
	ASSERT_FIELD(struct uvm_ioc_mem_export, handle, 0, 8);
	ASSERT_FIELD(struct uvm_ioc_mem_export, handle_type, 8, 4);
	ASSERT_FIELD(struct uvm_ioc_mem_export, flags, 12, 4);
	ASSERT_FIELD(struct uvm_ioc_mem_export, fd, 16, 4);
	ASSERT_EQ(32, sizeof(struct uvm_ioc_mem_import));
	ASSERT_FIELD(struct uvm_ioc_mem_import, fd, 0, 4);
	ASSERT_FIELD(struct uvm_ioc_mem_import, handle, 8, 8);
	ASSERT_EQ(56, sizeof(struct uvm_ioc_mem_map));
	ASSERT_FIELD(struct uvm_ioc_mem_map, address, 0, 8);
	ASSERT_FIELD(struct uvm_ioc_mem_map, size, 8, 8);
	ASSERT_FIELD(struct uvm_ioc_mem_map, offset, 16, 8);
	ASSERT_FIELD(struct uvm_ioc_mem_map, handle, 24, 8);
	ASSERT_FIELD(struct uvm_ioc_mem_map, flags, 32, 4);
	ASSERT_EQ(40, sizeof(struct uvm_ioc_mem_unmap));
	ASSERT_EQ(16, sizeof(struct uvm_mem_access));
	ASSERT_FIELD(struct uvm_mem_access, location, 0, 8);
	ASSERT_FIELD(struct uvm_mem_access, prot, 8, 4);
	ASSERT_EQ(56, sizeof(struct uvm_ioc_mem_set_access));
	ASSERT_FIELD(struct uvm_ioc_mem_set_access, descs_ptr, 16, 8);
	ASSERT_FIELD(struct uvm_ioc_mem_set_access, count, 24, 4);
	ASSERT_FIELD(struct uvm_ioc_mem_set_access, bad_desc, 32, 4);
	ASSERT_EQ(128, sizeof(struct uvm_ioc_mem_query));
	ASSERT_FIELD(struct uvm_ioc_mem_query, reservation_start, 16, 8);
	ASSERT_FIELD(struct uvm_ioc_mem_query, handle, 56, 8);
	ASSERT_FIELD(struct uvm_ioc_mem_query, location, 72, 8);
	ASSERT_FIELD(struct uvm_ioc_mem_query, read_mask, 88, 8);
	ASSERT_FIELD(struct uvm_ioc_mem_query, alloc_id, 104, 8);
	ASSERT_FIELD(struct uvm_ioc_mem_query, reservation_mappings, 112, 8);
	ASSERT_FIELD(struct uvm_ioc_mem_query, reserved, 120, 8);
}

/* API 1.3 command numbers and constants: CUDA's values where CUDA has them */
TEST(constants_1_3)
{
	ASSERT_EQ(0xC030D50CU, (unsigned int)UVM_IOC_MEM_CREATE);
	ASSERT_EQ(0xC010D50DU, (unsigned int)UVM_IOC_MEM_RELEASE);
	ASSERT_EQ(0xC038D50EU, (unsigned int)UVM_IOC_MEM_PROPS);
	ASSERT_EQ(0xC028D50FU, (unsigned int)UVM_IOC_MEM_EXPORT);
	ASSERT_EQ(0xC020D510U, (unsigned int)UVM_IOC_MEM_IMPORT);
	ASSERT_EQ(0xC038D511U, (unsigned int)UVM_IOC_MEM_MAP);
	ASSERT_EQ(0xC028D512U, (unsigned int)UVM_IOC_MEM_UNMAP);
	ASSERT_EQ(0xC038D513U, (unsigned int)UVM_IOC_MEM_SET_ACCESS);
	ASSERT_EQ(0xC080D514U, (unsigned int)UVM_IOC_MEM_QUERY);
	ASSERT_EQ(8ULL, UVM_CAP_VMM);
	ASSERT_EQ(2ULL << 40, UVM_MMAP_RESERVE);
	ASSERT_EQ(2ULL << 20, UVM_MEM_GRANULARITY);
	ASSERT_EQ(1U, UVM_MEM_HANDLE_FD);
	ASSERT_EQ(0U, UVM_MEM_PROT_NONE);
	ASSERT_EQ(1U, UVM_MEM_PROT_READ);
	ASSERT_EQ(3U, UVM_MEM_PROT_READ_WRITE);
	ASSERT_EQ(33U, UVM_MEM_MAX_ACCESS_DESCS);
	ASSERT_EQ(16U, UVM_POINTER_VMM);
}

/* API 1.4: strided copies and sets */
TEST(copy_3d_layouts)
{
	ASSERT_EQ(24, sizeof(struct uvm_box));
	ASSERT_FIELD(struct uvm_box, addr, 0, 8);
	ASSERT_FIELD(struct uvm_box, pitch, 8, 8);
	ASSERT_FIELD(struct uvm_box, slice_pitch, 16, 8);
	ASSERT_EQ(96, sizeof(struct uvm_ioc_copy_3d));
	ASSERT_FIELD(struct uvm_ioc_copy_3d, dst, 0, 24);
	ASSERT_FIELD(struct uvm_ioc_copy_3d, src, 24, 24);
	ASSERT_FIELD(struct uvm_ioc_copy_3d, width, 48, 8);
	ASSERT_FIELD(struct uvm_ioc_copy_3d, height, 56, 4);
	ASSERT_FIELD(struct uvm_ioc_copy_3d, depth, 60, 4);
	ASSERT_FIELD(struct uvm_ioc_copy_3d, gpu_index, 64, 4);
	ASSERT_FIELD(struct uvm_ioc_copy_3d, flags, 68, 4);
	ASSERT_FIELD(struct uvm_ioc_copy_3d, fence, 72, 8);
	ASSERT_FIELD(struct uvm_ioc_copy_3d, reserved, 80, 16);
	ASSERT_EQ(80, sizeof(struct uvm_ioc_memset_3d));
	ASSERT_FIELD(struct uvm_ioc_memset_3d, dst, 0, 24);
	ASSERT_FIELD(struct uvm_ioc_memset_3d, width, 24, 8);
	ASSERT_FIELD(struct uvm_ioc_memset_3d, height, 32, 4);
	ASSERT_FIELD(struct uvm_ioc_memset_3d, depth, 36, 4);
	ASSERT_FIELD(struct uvm_ioc_memset_3d, value, 40, 4);
	ASSERT_FIELD(struct uvm_ioc_memset_3d, element_size, 44, 4);
	ASSERT_FIELD(struct uvm_ioc_memset_3d, gpu_index, 48, 4);
	ASSERT_FIELD(struct uvm_ioc_memset_3d, flags, 52, 4);
	ASSERT_FIELD(struct uvm_ioc_memset_3d, fence, 56, 8);
	ASSERT_FIELD(struct uvm_ioc_memset_3d, reserved, 64, 16);
	ASSERT_EQ(0xC060D515U, (unsigned int)UVM_IOC_COPY_3D);
	ASSERT_EQ(0xC050D516U, (unsigned int)UVM_IOC_MEMSET_3D);
	ASSERT_EQ(16ULL, UVM_CAP_COPY_3D);
	ASSERT_EQ(1ULL << 36, UVM_COPY_MAX_SPAN);
}

/* API 1.5: batch copies */
TEST(copy_batch_layout)
{
	ASSERT_EQ(72, sizeof(struct uvm_copy_op));
	ASSERT_FIELD(struct uvm_copy_op, dst, 0, 24);
	ASSERT_FIELD(struct uvm_copy_op, src, 24, 24);
	ASSERT_FIELD(struct uvm_copy_op, width, 48, 8);
	ASSERT_FIELD(struct uvm_copy_op, height, 56, 4);
	ASSERT_FIELD(struct uvm_copy_op, depth, 60, 4);
	ASSERT_FIELD(struct uvm_copy_op, reserved, 64, 8);
	ASSERT_EQ(48, sizeof(struct uvm_ioc_copy_batch));
	ASSERT_FIELD(struct uvm_ioc_copy_batch, ops, 0, 8);
	ASSERT_FIELD(struct uvm_ioc_copy_batch, count, 8, 4);
	ASSERT_FIELD(struct uvm_ioc_copy_batch, gpu_index, 12, 4);
	ASSERT_FIELD(struct uvm_ioc_copy_batch, flags, 16, 4);
	ASSERT_FIELD(struct uvm_ioc_copy_batch, failed, 20, 4);
	ASSERT_FIELD(struct uvm_ioc_copy_batch, fence, 24, 8);
	ASSERT_FIELD(struct uvm_ioc_copy_batch, reserved, 32, 16);
	ASSERT_EQ(0xC030D517U, (unsigned int)UVM_IOC_COPY_BATCH);
	ASSERT_EQ(32ULL, UVM_CAP_COPY_BATCH);
	ASSERT_EQ(16384, UVM_COPY_BATCH_MAX);
}

/* Pattern words and checksum terms: the formulas tests and module share */
/* uvm_netlink.h: the page state of GET_RESIDENCY and the numbers that are ABI */
TEST(netlink_layout)
{
	ASSERT_EQ(32, sizeof(struct uvm_nl_page_state));
	ASSERT_FIELD(struct uvm_nl_page_state, resident, 0, 8);
	ASSERT_FIELD(struct uvm_nl_page_state, mapped_read, 8, 8);
	ASSERT_FIELD(struct uvm_nl_page_state, mapped_write, 16, 8);
	ASSERT_FIELD(struct uvm_nl_page_state, mapped_atomic, 24, 8);
	ASSERT_STREQ("uvm", UVM_GENL_NAME);
	ASSERT_STREQ("events", UVM_GENL_MCGRP_EVENTS);
	ASSERT_EQ(1, UVM_GENL_VERSION);
	ASSERT_EQ(4, UVM_NL_CMD_MAX);
	ASSERT_EQ(35, UVM_NL_A_MAX);
	ASSERT_EQ(21, UVM_NL_GPU_COUNTER_COUNT);
	ASSERT_EQ(20, UVM_NL_GPU_FAULT_GROUPS_DEFERRED);
	ASSERT_EQ(8, UVM_NL_CAUSE_MAX);
	ASSERT_EQ(64, UVM_NL_RESIDENCY_CHUNK);
}

TEST(pattern_and_checksum_formulas)
{
	ASSERT_EQ(0x1234ULL ^ 0x7f0000001000ULL,
		  UVM_TEST_PATTERN_WORD(0x1234, 0x7f0000001000ULL));
	ASSERT_EQ((0x10ULL + 0x20ULL) * 0x9E3779B97F4A7C15ULL,
		  UVM_TEST_CHECKSUM_TERM(0x10, 0x20));
	/* The sum wraps modulo 2^64: order and warp count do not matter. */
	ASSERT_EQ(UVM_TEST_CHECKSUM_TERM(~0ULL, 1), 0ULL);
}

TEST_HARNESS_MAIN
