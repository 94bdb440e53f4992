// SPDX-License-Identifier: MIT
/*
 * pointer.cpp - cuPointerGetAttribute(s), cuPointerSetAttribute.
 *
 * Answered from the allocation table.  Widths and values are NVIDIA's
 * (tests/real-driver/results/probe_mem.txt for managed memory,
 * probe_devmem.txt and probe_copy.txt "cp.pa.*" for device, page-locked and
 * registered memory): 4-byte booleans and enums, 8-byte pointers, sizes and
 * ids; CU_MEMORYTYPE_DEVICE for managed and device memory, HOST for host
 * memory; device memory has no host pointer, host memory no P2P tokens;
 * ACCESS_FLAGS read-write (read for READ_ONLY registrations); the range is
 * what the caller asked for, the mapping the chunk it lives in (a device
 * chunk shared by small allocations, a host chunk, the pages of a
 * registration); BUFFER_ID is the allocation's, MEMORY_BLOCK_ID the
 * chunk's.  For a pointer of no allocation, cuPointerGetAttribute
 * fails and cuPointerGetAttributes returns NVIDIA's defaults (the host
 * pointer is the pointer itself, the device ordinal CU_DEVICE_INVALID, the
 * range start and size are not written).
 *
 * VMM memory (vmm.cpp) is described by the driver (vmm_describe()), with
 * NVIDIA's answers (probe_vmm.txt "vmm.pa.*"): no context, the reservation
 * as the range and the cuMemMap as the mapping, the access flags and the
 * device pointer of the current device, the handle types it was created
 * with (none for an import), the allocation as MEMORY_BLOCK_ID.
 */
#include <cstring>
#include <unistd.h>

#include "internal.h"

namespace uvm {
namespace {

void put32(void *data, uint32_t v)
{
	std::memcpy(data, &v, sizeof(v));
}

void put64(void *data, uint64_t v)
{
	std::memcpy(data, &v, sizeof(v));
}

/* A token naming this process's VA space for nv-p2p style consumers. */
uint32_t va_space_token()
{
	return static_cast<uint32_t>(getpid()) & 0xffff;
}

/**
 * vmm_attribute() - one attribute of VMM memory
 * @a:		the mapping, as vmm_describe() gives it
 * @ptr:	the pointer asked about
 * @attr:	CU_POINTER_ATTRIBUTE_*
 * @data:	where to write
 *
 * Return: CUDA_SUCCESS, CUDA_ERROR_INVALID_VALUE for an attribute VMM
 * memory does not have.
 */
CUresult vmm_attribute(const Allocation *a, uint64_t ptr, int attr, void *data)
{
	const bool host = a->location.type != UVM_LOCATION_GPU;
	const uint32_t access = vmm_access(*a, UVM_PROCESSOR_GPU(current_device()));

	switch (attr) {
	case CU_POINTER_ATTRIBUTE_CONTEXT:
	case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:
		put64(data, 0);
		break;
	case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
		put32(data, host ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE);
		break;
	case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
		/* Only where the current device may access it
		 * ("vmm.pa.noaccess.3"). */
		if (access == CU_MEM_ACCESS_FLAGS_PROT_NONE)
			return CUDA_ERROR_INVALID_VALUE;
		put64(data, ptr);
		break;
	case CU_POINTER_ATTRIBUTE_HOST_POINTER:
		if (!host)
			return CUDA_ERROR_INVALID_VALUE;
		put64(data, ptr);
		break;
	case CU_POINTER_ATTRIBUTE_P2P_TOKENS:
		return CUDA_ERROR_INVALID_VALUE;
	case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS:
	case CU_POINTER_ATTRIBUTE_IS_MANAGED:
	case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE:
	case CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE:
	case CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE:
		put32(data, 0);
		break;
	case CU_POINTER_ATTRIBUTE_MAPPED:
		put32(data, 1);
		break;
	case CU_POINTER_ATTRIBUTE_BUFFER_ID:
		put64(data, a->buffer_id);
		break;
	case CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID:
		put64(data, a->block_id);
		break;
	case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
		put32(data, static_cast<uint32_t>(a->device));
		break;
	case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:	/* the reservation */
		put64(data, a->res_base);
		break;
	case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
		put64(data, a->res_size);
		break;
	case CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR:	/* the cuMemMap */
		put64(data, a->map_base);
		break;
	case CU_POINTER_ATTRIBUTE_MAPPING_SIZE:
		put64(data, a->map_size);
		break;
	case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES:
		put64(data, a->handle_types);
		break;
	case CU_POINTER_ATTRIBUTE_ACCESS_FLAGS:	/* the current device's */
		put32(data, access);
		break;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
	return CUDA_SUCCESS;
}

/**
 * attribute_of() - one attribute of an allocation
 * @a:		the allocation (State::mu held)
 * @ptr:	the pointer asked about
 * @attr:	CU_POINTER_ATTRIBUTE_*
 * @data:	where to write
 *
 * Return: CUDA_SUCCESS or CUDA_ERROR_INVALID_VALUE for an attribute this
 * memory does not have.
 */
CUresult attribute_of(Allocation *a, uint64_t ptr, int attr, void *data)
{
	const bool host = a->kind == Kind::host || a->kind == Kind::registered;
	const bool device = a->kind == Kind::device;

	if (a->kind == Kind::vmm)
		return vmm_attribute(a, ptr, attr, data);

	switch (attr) {
	case CU_POINTER_ATTRIBUTE_CONTEXT:
		put64(data, reinterpret_cast<uintptr_t>(to_handle(a->ctx)));
		break;
	case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
		put32(data, host ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE);
		break;
	case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
		put64(data, ptr);
		break;
	case CU_POINTER_ATTRIBUTE_HOST_POINTER:
		if (device)
			return CUDA_ERROR_INVALID_VALUE;
		put64(data, ptr);
		break;
	case CU_POINTER_ATTRIBUTE_P2P_TOKENS: {
		auto *t = static_cast<CUDA_POINTER_ATTRIBUTE_P2P_TOKENS *>(data);

		if (host)
			return CUDA_ERROR_INVALID_VALUE;

		/* Field by field: NVIDIA writes 12 bytes, not the padding. */
		put64(&t->p2pToken, 0);
		put32(&t->vaSpaceToken, va_space_token());
		a->sync_memops = true;
		break;
	}
	case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS:
		put32(data, a->sync_memops);
		break;
	case CU_POINTER_ATTRIBUTE_BUFFER_ID:
		put64(data, a->buffer_id);
		break;
	case CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID:
		put64(data, a->block_id);
		break;
	case CU_POINTER_ATTRIBUTE_IS_MANAGED:
		put32(data, a->kind == Kind::managed);
		break;
	case CU_POINTER_ATTRIBUTE_MAPPED:
		put32(data, 1);
		break;
	case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
		put32(data, static_cast<uint32_t>(a->device));
		break;
	case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE:
	case CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE:
	case CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE:
		put32(data, device);
		break;
	case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
		put64(data, a->base);
		break;
	case CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR:
		put64(data, a->map_base);
		break;
	case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
		put64(data, a->size);
		break;
	case CU_POINTER_ATTRIBUTE_MAPPING_SIZE:
		put64(data, a->map_size);
		break;
	case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES:
	case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:
		put64(data, 0);
		break;
	case CU_POINTER_ATTRIBUTE_ACCESS_FLAGS:
		/* CU_MEM_ACCESS_FLAGS_PROT_READ(WRITE) */
		put32(data, a->read_only ? 1 : 3);
		break;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
	return CUDA_SUCCESS;
}

/* The allocation holding ptr: libuvm's table, or a VMM mapping described
 * by the driver into *scratch.  State::mu held. */
Allocation *lookup(uint64_t ptr, Allocation *scratch)
{
	if (Allocation *a = find_allocation(ptr))
		return a;
	return vmm_describe(ptr, scratch) ? scratch : nullptr;
}

/* cuPointerGetAttributes' answer for memory that is no allocation. */
CUresult default_attribute(uint64_t ptr, int attr, void *data)
{
	switch (attr) {
	case CU_POINTER_ATTRIBUTE_HOST_POINTER:
		put64(data, ptr);
		break;
	case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
		put32(data, static_cast<uint32_t>(CU_DEVICE_INVALID));
		break;
	case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
	case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
		break;	/* not written */
	case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
	case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS:
	case CU_POINTER_ATTRIBUTE_IS_MANAGED:
	case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE:
	case CU_POINTER_ATTRIBUTE_MAPPED:
	case CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE:
	case CU_POINTER_ATTRIBUTE_ACCESS_FLAGS:
	case CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE:
		put32(data, 0);
		break;
	case CU_POINTER_ATTRIBUTE_CONTEXT:
	case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
	case CU_POINTER_ATTRIBUTE_BUFFER_ID:
	case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES:
	case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:
	case CU_POINTER_ATTRIBUTE_MAPPING_SIZE:
	case CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR:
	case CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID:
		put64(data, 0);
		break;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
	return CUDA_SUCCESS;
}

} // namespace
} // namespace uvm

using namespace uvm;

extern "C" CUresult cuPointerGetAttribute(void *data, CUpointer_attribute attribute,
					  CUdeviceptr ptr) noexcept
{
	return guard([&]() -> CUresult {
		if (CUresult r = check_init())
			return r;
		if (!data)
			return CUDA_ERROR_INVALID_VALUE;
		std::lock_guard<std::mutex> lock(state().mu);
		Allocation vmm;
		Allocation *a = lookup(ptr, &vmm);
		if (!a)
			return CUDA_ERROR_INVALID_VALUE;
		return attribute_of(a, ptr, attribute, data);
	});
}

extern "C" CUresult cuPointerGetAttributes(unsigned int numAttributes,
					   CUpointer_attribute *attributes, void **data,
					   CUdeviceptr ptr) noexcept
{
	return guard([&]() -> CUresult {
		if (CUresult r = check_init())
			return r;
		if (!numAttributes || !attributes || !data)
			return CUDA_ERROR_INVALID_VALUE;
		std::lock_guard<std::mutex> lock(state().mu);
		Allocation vmm;
		Allocation *a = lookup(ptr, &vmm);
		/* In order; a bad entry stops the call, the ones before it
		 * are written (probe_mem.txt "pas.p2p"). */
		for (unsigned int i = 0; i < numAttributes; i++) {
			int attr = attributes[i];

			if (!data[i] || attr == CU_POINTER_ATTRIBUTE_P2P_TOKENS)
				return CUDA_ERROR_INVALID_VALUE;
			/* Device memory has no host pointer: the default (not
			 * probed; cudaPointerGetAttributes' hostPointer is NULL);
			 * nor GPU-located VMM memory, nor a device pointer where
			 * the device has no access. */
			if (a && attr == CU_POINTER_ATTRIBUTE_HOST_POINTER &&
			    (a->kind == Kind::device ||
			     (a->kind == Kind::vmm && a->location.type == UVM_LOCATION_GPU))) {
				put64(data[i], 0);
				continue;
			}
			if (a && a->kind == Kind::vmm && attr == CU_POINTER_ATTRIBUTE_DEVICE_POINTER &&
			    vmm_access(*a, UVM_PROCESSOR_GPU(current_device())) ==
				    CU_MEM_ACCESS_FLAGS_PROT_NONE) {
				put64(data[i], 0);
				continue;
			}
			CUresult r = a ? attribute_of(a, ptr, attr, data[i]) :
					 default_attribute(ptr, attr, data[i]);
			if (r)
				return r;
		}
		return CUDA_SUCCESS;
	});
}

extern "C" CUresult cuPointerSetAttribute(const void *value, CUpointer_attribute attribute,
					  CUdeviceptr ptr) noexcept
{
	return guard([&]() -> CUresult {
		unsigned int v;

		if (CUresult r = check_init())
			return r;
		if (!value || attribute != CU_POINTER_ATTRIBUTE_SYNC_MEMOPS)
			return CUDA_ERROR_INVALID_VALUE;
		std::memcpy(&v, value, sizeof(v));
		{
			std::lock_guard<std::mutex> lock(state().mu);
			if (!find_allocation(ptr))
				return CUDA_ERROR_INVALID_VALUE;
		}
		/* Setting it waits for the synchronous copies and sets that
		 * returned early (PA-21; copy.cpp); later ones wait. */
		if (v)
			wait_all();
		std::lock_guard<std::mutex> lock(state().mu);
		Allocation *a = find_allocation(ptr);
		if (!a)
			return CUDA_ERROR_INVALID_VALUE;
		a->sync_memops = v != 0;
		return CUDA_SUCCESS;
	});
}
