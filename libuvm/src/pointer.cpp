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
 * One table (kAttributes) maps each attribute to its getter, which answers
 * for the three kinds of pointer (an allocation of the table, VMM memory,
 * no memory of the library) in the two forms (cuPointerGetAttribute's,
 * and the list form of cuPointerGetAttributes, which cudaPointerGetAttributes
 * reads too); the three calls only look the pointer up and ask the table.
 *
 * VMM memory (vmm.cpp) is described by the driver (vmm_describe()), with
 * NVIDIA's answers (probe_vmm.txt "vmm.pa.*"): no context, the reservation
 * as the range and the cuMemMap as the mapping, the access flags and the
 * device pointer of the current device, the handle types it was created
 * with (none for an import), the allocation as MEMORY_BLOCK_ID.
 */
#include <cstring>
#include <iterator>
#include <unistd.h>

#include "context.h"
#include "memory.h"
#include "vmm.h"

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
 * struct Query - a pointer as the getters see it
 * @ptr:	the pointer asked about
 * @a:		its allocation: the table's, or a VMM mapping described as
 *		one (Kind::vmm); nullptr: no memory of the library
 * @list:	the list form (cuPointerGetAttributes, cudaPointerGetAttributes):
 *		NVIDIA's defaults for no memory, 0 instead of an error for a
 *		pointer the memory does not have
 */
struct Query {
	uint64_t ptr = 0;
	Allocation *a = nullptr;
	bool list = false;

	bool vmm() const { return a && a->kind == Kind::vmm; }
	/* Memory located on the host (page-locked, registered, host VMM). */
	bool host() const
	{
		if (vmm())
			return a->location.type != UVM_LOCATION_GPU;
		return a && (a->kind == Kind::host || a->kind == Kind::registered);
	}
	bool device() const { return a && a->kind == Kind::device; }
	/* VMM memory: the access of the current device. */
	uint32_t vmm_current_access() const
	{
		return vmm_access(*a, UVM_PROCESSOR_GPU(current_device()));
	}
};

/*
 * The getters, one per attribute: each writes @data or returns
 * CUDA_ERROR_INVALID_VALUE for an attribute the memory does not have.  A
 * getter is called without memory (q.a nullptr) only in the list form.
 */
CUresult get_context(const Query &q, void *data)
{
	put64(data, q.a && !q.vmm() ? reinterpret_cast<uintptr_t>(to_handle(q.a->ctx)) : 0);
	return CUDA_SUCCESS;
}

CUresult get_memory_type(const Query &q, void *data)
{
	put32(data, !q.a ? 0 : q.host() ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE);
	return CUDA_SUCCESS;
}

CUresult get_device_pointer(const Query &q, void *data)
{
	/* VMM memory: only where the current device may access it
	 * ("vmm.pa.noaccess.3"). */
	if (q.vmm() && q.vmm_current_access() == CU_MEM_ACCESS_FLAGS_PROT_NONE) {
		if (!q.list)
			return CUDA_ERROR_INVALID_VALUE;
		put64(data, 0);
		return CUDA_SUCCESS;
	}
	put64(data, q.a ? q.ptr : 0);
	return CUDA_SUCCESS;
}

CUresult get_host_pointer(const Query &q, void *data)
{
	/* Device memory has no host pointer, nor GPU-located VMM memory: the
	 * list form's default (not probed; cudaPointerGetAttributes'
	 * hostPointer is NULL). */
	if (q.device() || (q.vmm() && !q.host())) {
		if (!q.list)
			return CUDA_ERROR_INVALID_VALUE;
		put64(data, 0);
		return CUDA_SUCCESS;
	}
	put64(data, q.ptr);
	return CUDA_SUCCESS;
}

CUresult get_p2p_tokens(const Query &q, void *data)
{
	auto *t = static_cast<CUDA_POINTER_ATTRIBUTE_P2P_TOKENS *>(data);

	/* Refused in a list ("pas.p2p"), for host and VMM memory. */
	if (q.list || q.vmm() || q.host())
		return CUDA_ERROR_INVALID_VALUE;
	/* Field by field: NVIDIA writes 12 bytes, not the padding. */
	put64(&t->p2pToken, 0);
	put32(&t->vaSpaceToken, va_space_token());
	q.a->sync_memops = true;
	return CUDA_SUCCESS;
}

CUresult get_sync_memops(const Query &q, void *data)
{
	put32(data, q.a && !q.vmm() && q.a->sync_memops);
	return CUDA_SUCCESS;
}

CUresult get_buffer_id(const Query &q, void *data)
{
	put64(data, q.a ? q.a->buffer_id : 0);
	return CUDA_SUCCESS;
}

CUresult get_is_managed(const Query &q, void *data)
{
	put32(data, q.a && q.a->kind == Kind::managed);
	return CUDA_SUCCESS;
}

CUresult get_device_ordinal(const Query &q, void *data)
{
	put32(data, static_cast<uint32_t>(q.a ? q.a->device : CU_DEVICE_INVALID));
	return CUDA_SUCCESS;
}

/* IS_LEGACY_CUDA_IPC_CAPABLE, IS_GPU_DIRECT_RDMA_CAPABLE,
 * IS_HW_DECOMPRESS_CAPABLE: device memory of the table. */
CUresult get_device_capable(const Query &q, void *data)
{
	put32(data, q.device());
	return CUDA_SUCCESS;
}

/* The range: what the caller asked for; VMM memory: the reservation.  Not
 * written for no memory. */
CUresult get_range_start(const Query &q, void *data)
{
	if (q.a)
		put64(data, q.vmm() ? q.a->res_base : q.a->base);
	return CUDA_SUCCESS;
}

CUresult get_range_size(const Query &q, void *data)
{
	if (q.a)
		put64(data, q.vmm() ? q.a->res_size : q.a->size);
	return CUDA_SUCCESS;
}

CUresult get_mapped(const Query &q, void *data)
{
	put32(data, q.a ? 1 : 0);
	return CUDA_SUCCESS;
}

CUresult get_allowed_handle_types(const Query &q, void *data)
{
	put64(data, q.vmm() ? q.a->handle_types : 0);
	return CUDA_SUCCESS;
}

CUresult get_access_flags(const Query &q, void *data)
{
	uint32_t v = 0;

	/* CU_MEM_ACCESS_FLAGS_PROT_READ(WRITE); VMM memory: the current
	 * device's. */
	if (q.vmm())
		v = q.vmm_current_access();
	else if (q.a)
		v = q.a->read_only ? 1 : 3;
	put32(data, v);
	return CUDA_SUCCESS;
}

CUresult get_mempool_handle(const Query &, void *data)
{
	put64(data, 0);
	return CUDA_SUCCESS;
}

/* The mapping: the chunk it lives in; VMM memory: the cuMemMap. */
CUresult get_mapping_size(const Query &q, void *data)
{
	put64(data, q.a ? q.a->map_size : 0);
	return CUDA_SUCCESS;
}

CUresult get_mapping_base(const Query &q, void *data)
{
	put64(data, q.a ? q.a->map_base : 0);
	return CUDA_SUCCESS;
}

CUresult get_memory_block_id(const Query &q, void *data)
{
	put64(data, q.a ? q.a->block_id : 0);
	return CUDA_SUCCESS;
}

using Getter = CUresult (*)(const Query &q, void *data);

struct AttributeEntry {
	int attr;
	Getter get;
};

/* Every CU_POINTER_ATTRIBUTE_*, in the order of their numbers (1 ..). */
constexpr AttributeEntry kAttributes[] = {
	{ CU_POINTER_ATTRIBUTE_CONTEXT, get_context },
	{ CU_POINTER_ATTRIBUTE_MEMORY_TYPE, get_memory_type },
	{ CU_POINTER_ATTRIBUTE_DEVICE_POINTER, get_device_pointer },
	{ CU_POINTER_ATTRIBUTE_HOST_POINTER, get_host_pointer },
	{ CU_POINTER_ATTRIBUTE_P2P_TOKENS, get_p2p_tokens },
	{ CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, get_sync_memops },
	{ CU_POINTER_ATTRIBUTE_BUFFER_ID, get_buffer_id },
	{ CU_POINTER_ATTRIBUTE_IS_MANAGED, get_is_managed },
	{ CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, get_device_ordinal },
	{ CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE, get_device_capable },
	{ CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, get_range_start },
	{ CU_POINTER_ATTRIBUTE_RANGE_SIZE, get_range_size },
	{ CU_POINTER_ATTRIBUTE_MAPPED, get_mapped },
	{ CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES, get_allowed_handle_types },
	{ CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE, get_device_capable },
	{ CU_POINTER_ATTRIBUTE_ACCESS_FLAGS, get_access_flags },
	{ CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, get_mempool_handle },
	{ CU_POINTER_ATTRIBUTE_MAPPING_SIZE, get_mapping_size },
	{ CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR, get_mapping_base },
	{ CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID, get_memory_block_id },
	{ CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE, get_device_capable },
};

constexpr bool table_in_order()
{
	for (size_t i = 0; i < std::size(kAttributes); i++)
		if (kAttributes[i].attr != static_cast<int>(i) + 1)
			return false;
	return true;
}
static_assert(table_in_order());

/**
 * attribute() - one attribute of a pointer, from the table
 * @q:		the pointer
 * @attr:	CU_POINTER_ATTRIBUTE_*
 * @data:	where to write
 *
 * Context: MemoryRegistry::mu and VmmRegistry::mu held (q.a points into
 * the table).
 * Return: the getter's answer; CUDA_ERROR_INVALID_VALUE for an unknown
 * attribute.
 */
CUresult attribute(const Query &q, int attr, void *data)
{
	if (attr < 1 || attr > static_cast<int>(std::size(kAttributes)))
		return CUDA_ERROR_INVALID_VALUE;
	return kAttributes[attr - 1].get(q, data);
}

/* The allocation holding ptr: libuvm's table, or a VMM mapping described
 * by the driver into *scratch.  MemoryRegistry::mu and VmmRegistry::mu
 * held. */
Allocation *lookup(uint64_t ptr, Allocation *scratch)
{
	if (Allocation *a = find_allocation(ptr))
		return a;
	return vmm_describe(ptr, scratch) ? scratch : nullptr;
}

/* An attribute of 32 or 64 bits in the list form, as a number. */
uint64_t list_value(const Query &q, int attr)
{
	uint64_t v = 0;

	attribute(q, attr, &v);
	return v;
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
		DomainLock lock(kMemoryDomain | kVmmDomain);
		Allocation vmm;
		Query q{ ptr, lookup(ptr, &vmm), false };
		if (!q.a)
			return CUDA_ERROR_INVALID_VALUE;
		return uvm::attribute(q, attribute, data);
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
		DomainLock lock(kMemoryDomain | kVmmDomain);
		Allocation vmm;
		Query q{ ptr, lookup(ptr, &vmm), true };
		/* In order; a bad entry stops the call, the ones before it
		 * are written (probe_mem.txt "pas.p2p"). */
		for (unsigned int i = 0; i < numAttributes; i++) {
			if (!data[i])
				return CUDA_ERROR_INVALID_VALUE;
			if (CUresult r = uvm::attribute(q, attributes[i], data[i]))
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
			std::lock_guard<std::mutex> lock(mem_reg().mu);
			if (!find_allocation(ptr))
				return CUDA_ERROR_INVALID_VALUE;
		}
		/* Setting it waits for the synchronous copies and sets that
		 * returned early (PA-21; copy.cpp); later ones wait. */
		if (v)
			wait_all();
		std::lock_guard<std::mutex> lock(mem_reg().mu);
		Allocation *a = find_allocation(ptr);
		if (!a)
			return CUDA_ERROR_INVALID_VALUE;
		a->sync_memops = v != 0;
		return CUDA_SUCCESS;
	});
}

/*
 * cudaPointerGetAttributes: the list form's answers (probe_copy.txt
 * "rc.pa.*"): managed, device or host memory by IS_MANAGED and MEMORY_TYPE
 * (VMM memory by its location), "unregistered" for memory CUDA does not
 * know; the device ordinal, and the host pointer (none for device memory);
 * the device pointer is the pointer for any memory of the library.
 */
extern "C" cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes,
						const void *ptr) noexcept
{
	return rt([&]() -> CUresult {
		if (!attributes)
			return CUDA_ERROR_INVALID_VALUE;
		std::memset(attributes, 0, sizeof(*attributes));
		DomainLock lock(kMemoryDomain | kVmmDomain);
		const uint64_t p = reinterpret_cast<uintptr_t>(ptr);
		Allocation vmm;
		Query q{ p, lookup(p, &vmm), true };

		if (list_value(q, CU_POINTER_ATTRIBUTE_IS_MANAGED))
			attributes->type = cudaMemoryTypeManaged;
		else if (list_value(q, CU_POINTER_ATTRIBUTE_MEMORY_TYPE) == CU_MEMORYTYPE_HOST)
			attributes->type = cudaMemoryTypeHost;
		else if (list_value(q, CU_POINTER_ATTRIBUTE_MEMORY_TYPE) == CU_MEMORYTYPE_DEVICE)
			attributes->type = cudaMemoryTypeDevice;
		else
			attributes->type = cudaMemoryTypeUnregistered;
		attributes->device = static_cast<int>(
			static_cast<uint32_t>(list_value(q, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL)));
		attributes->devicePointer = q.a ? const_cast<void *>(ptr) : nullptr;
		attributes->hostPointer = reinterpret_cast<void *>(
			static_cast<uintptr_t>(list_value(q, CU_POINTER_ATTRIBUTE_HOST_POINTER)));
		return CUDA_SUCCESS;
	});
}
