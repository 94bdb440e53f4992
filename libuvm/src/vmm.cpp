// SPDX-License-Identifier: MIT
/*
 * vmm.cpp - virtual memory management: address reservations, physical
 * allocations by handle, mappings, access, sharing by file descriptor
 * (cuMemAddressReserve ... cuMemRetainAllocationHandle, cuMemMapArrayAsync).
 *
 * Everything lives in the driver (uapi/uvm.h, API 1.3): a reservation is an
 * mmap of /dev/uvm at UVM_MMAP_RESERVE, a physical allocation a handle of
 * the VA space (UVM_IOC_MEM_CREATE, the handle is the driver's), a mapping
 * UVM_IOC_MEM_MAP of a handle into a reservation, access UVM_IOC_MEM_SET_ACCESS.
 * libuvm keeps only the reservations it made (State::reservations), so that
 * copies, pointer attributes and host registration know the addresses; what
 * is mapped there, with which rights, is asked of the driver
 * (UVM_IOC_MEM_QUERY, UVM_IOC_POINTER_INFO), never shadowed.
 *
 * Reservations are aligned in userspace: an anonymous PROT_NONE placeholder
 * of size + alignment is mapped first, the reservation is mapped MAP_FIXED
 * over its aligned part, and the rest is unmapped.  A hint is honoured when
 * it is aligned and free (MAP_FIXED_NOREPLACE), otherwise it only steers the
 * placeholder, as CUDA treats it.
 *
 * The return codes are NVIDIA's, recorded on an H200 with CUDA 13.0
 * (tests/real-driver/results/probe_vmm.txt, keys "vmm.*"); the driver's
 * -errno are mapped where a call makes them, because the VMM calls name
 * errors differently from the rest of the API (an unknown handle is
 * CUDA_ERROR_INVALID_VALUE, a mapped range CUDA_ERROR_INVALID_VALUE, ...).
 */
#include <cerrno>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

namespace uvm {

bool driver_has_vmm()
{
	return state().dev.version.caps & UVM_CAP_VMM;
}

bool find_reservation(uint64_t ptr, uint64_t *base, uint64_t *size)
{
	const auto &t = state().reservations;
	auto it = t.upper_bound(ptr);

	if (it == t.begin())
		return false;
	--it;
	if (ptr - it->first >= it->second)
		return false;
	*base = it->first;
	*size = it->second;
	return true;
}

int vmm_query(uint64_t ptr, struct uvm_ioc_mem_query *q)
{
	*q = {};
	q->address = ptr;
	return state().dev.ioctl(UVM_IOC_MEM_QUERY, q);
}

/**
 * vmm_describe() - a VMM mapping as the pointer attributes see it
 * @ptr:	any address
 * @out:	filled as an Allocation of Kind::vmm
 *
 * The range (RANGE_START_ADDR/RANGE_SIZE, cuMemGetAddressRange) and the
 * mapping (MAPPING_BASE_ADDR/MAPPING_SIZE) are the mapping of one cuMemMap
 * holding @ptr; BUFFER_ID is the mapping's id, MEMORY_BLOCK_ID the physical
 * allocation's (shared by every mapping of it, in every process).
 *
 * Context: State::mu held.
 * Return: true when @ptr lies in a mapping of a reservation of libuvm.
 */
bool vmm_describe(uint64_t ptr, Allocation *out)
{
	struct uvm_ioc_pointer_info info {};
	struct uvm_ioc_mem_query q;
	uint64_t rbase, rsize;

	if (!find_reservation(ptr, &rbase, &rsize))
		return false;
	info.address = ptr;
	if (state().dev.ioctl(UVM_IOC_POINTER_INFO, &info) || !(info.flags & UVM_POINTER_VMM))
		return false;
	if (vmm_query(ptr, &q) || !q.mapping_size)
		return false;
	out->kind = Kind::vmm;
	out->base = q.mapping_start;
	out->size = q.mapping_size;
	out->map_base = q.mapping_start;
	out->map_size = q.mapping_size;
	out->buffer_id = info.buffer_id;
	out->block_id = q.alloc_id;
	out->location = q.location;
	out->device = q.location.type == UVM_LOCATION_GPU ? q.location.id : CU_DEVICE_INVALID;
	out->handle_types = q.handle_types;
	out->read_mask = q.read_mask;
	out->write_mask = q.write_mask;
	out->read_only = false;
	out->sync_memops = false;
	out->ctx = nullptr;
	out->chunk = nullptr;
	return true;
}

namespace {

/* CUmemAllocationProp.location -> the driver's; CUDA's code for a bad one. */
CUresult to_uvm_location(const CUmemLocation &l, struct uvm_location *out)
{
	switch (l.type) {
	case CU_MEM_LOCATION_TYPE_DEVICE:
		if (!valid_device(l.id))
			return CUDA_ERROR_INVALID_DEVICE;
		out->type = UVM_LOCATION_GPU;
		out->id = l.id;
		return CUDA_SUCCESS;
	case CU_MEM_LOCATION_TYPE_HOST:
		out->type = UVM_LOCATION_HOST;
		out->id = 0;
		return CUDA_SUCCESS;
	case CU_MEM_LOCATION_TYPE_HOST_NUMA:
		if (!valid_numa_node(l.id))
			return CUDA_ERROR_INVALID_VALUE;
		out->type = UVM_LOCATION_HOST_NUMA;
		out->id = l.id;
		return CUDA_SUCCESS;
	case CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT:
		out->type = UVM_LOCATION_HOST_NUMA_CURRENT;
		out->id = 0;
		return CUDA_SUCCESS;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
}

/**
 * check_prop() - a CUmemAllocationProp, as cuMemCreate and
 * cuMemGetAllocationGranularity check it
 * @prop:	the properties (not NULL)
 * @loc:	out: the driver's location
 *
 * Return: CUDA_SUCCESS or NVIDIA's code for the first bad field.
 */
CUresult check_prop(const CUmemAllocationProp *prop, struct uvm_location *loc)
{
	if (prop->type != CU_MEM_ALLOCATION_TYPE_PINNED)
		return CUDA_ERROR_INVALID_VALUE;
	if (CUresult r = to_uvm_location(prop->location, loc))
		return r;
	switch (prop->requestedHandleTypes) {
	case CU_MEM_HANDLE_TYPE_NONE:
	case CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR:
		break;
	case CU_MEM_HANDLE_TYPE_WIN32:
	case CU_MEM_HANDLE_TYPE_WIN32_KMT:
	case CU_MEM_HANDLE_TYPE_FABRIC:
		return CUDA_ERROR_NOT_SUPPORTED;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
	if (prop->allocFlags.compressionType != CU_MEM_ALLOCATION_COMP_NONE)
		return CUDA_ERROR_NOT_SUPPORTED;
	return CUDA_SUCCESS;
}

/**
 * reserve() - map a reservation of /dev/uvm
 * @size:	bytes, a multiple of the page size
 * @align:	a power of two, at least a page
 * @hint:	the caller's wish, or 0
 * @out:	the address
 *
 * Context: State::mu held.
 * Return: 0 or -errno.
 */
int reserve(uint64_t size, uint64_t align, uint64_t hint, uint64_t *out)
{
	const int fd = state().dev.fd();
	const off_t off = static_cast<off_t>(UVM_MMAP_RESERVE);

	if (hint && !(hint & (align - 1))) {
		void *p = ::mmap(reinterpret_cast<void *>(hint), size, PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_FIXED_NOREPLACE, fd, off);
		if (p != MAP_FAILED) {
			*out = hint;
			return 0;
		}
	}
	if (size + align < size)
		return -ENOMEM;
	void *ph = ::mmap(reinterpret_cast<void *>(hint), size + align, PROT_NONE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (ph == MAP_FAILED)
		return -errno;
	const uint64_t start = reinterpret_cast<uint64_t>(ph);
	const uint64_t base = round_up(start, align);
	void *p = ::mmap(reinterpret_cast<void *>(base), size, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_FIXED, fd, off);
	if (p == MAP_FAILED) {
		int e = -errno;
		::munmap(ph, size + align);
		return e;
	}
	if (base > start)
		::munmap(ph, base - start);
	if (start + align > base)
		::munmap(reinterpret_cast<void *>(base + size), start + align - base);
	*out = base;
	return 0;
}

/* The driver's processor of a CUmemLocation naming who accesses, or -1. */
int processor_of(const CUmemLocation &l)
{
	switch (l.type) {
	case CU_MEM_LOCATION_TYPE_DEVICE:
		return valid_device(l.id) ? UVM_PROCESSOR_GPU(l.id) : -1;
	case CU_MEM_LOCATION_TYPE_HOST:
	case CU_MEM_LOCATION_TYPE_HOST_NUMA:
	case CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT:
		return UVM_PROCESSOR_CPU;
	default:
		return -1;
	}
}

/* The common entry checks: initialised, and a driver with the MEM_* ioctls
 * (after the caller's argument checks). */
CUresult check_vmm()
{
	return driver_has_vmm() ? CUDA_SUCCESS : CUDA_ERROR_NOT_SUPPORTED;
}

/* The granularity NVIDIA reports for both options ("vmm.gran.*"). */
uint64_t granularity()
{
	return kVmmGranularity;
}

} // namespace
} // namespace uvm

using namespace uvm;

extern "C" CUresult cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment,
					CUdeviceptr addr, unsigned long long flags) noexcept
{
	return guard([&]() -> CUresult {
		if (CUresult r = check_init())
			return r;
		if (!ptr || !size || flags || (alignment & (alignment - 1)))
			return CUDA_ERROR_INVALID_VALUE;
		if (size % granularity() || addr % granularity())
			return CUDA_ERROR_INVALID_VALUE;
		if (CUresult r = check_vmm())
			return r;
		const uint64_t align = std::max<uint64_t>(alignment, granularity());
		uint64_t base = 0;

		std::lock_guard<std::mutex> lock(state().mu);
		if (int r = reserve(size, align, addr, &base))
			return r == -ENOMEM || r == -EINVAL ? CUDA_ERROR_OUT_OF_MEMORY : from_errno(r);
		state().reservations[base] = size;
		*ptr = base;
		return CUDA_SUCCESS;
	});
}

extern "C" CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size) noexcept
{
	return guard([&]() -> CUresult {
		struct uvm_ioc_mem_query q;
		uint64_t base, len;

		if (CUresult r = check_init())
			return r;
		if (!ptr || !size)
			return CUDA_ERROR_INVALID_VALUE;
		/* Queued copies into what is still mapped there finish first. */
		wait_all();
		std::lock_guard<std::mutex> lock(state().mu);
		if (!find_reservation(ptr, &base, &len))
			return CUDA_ERROR_INVALID_VALUE;
		/* The driver's reservation must be exactly the one asked for. */
		if (vmm_query(ptr, &q) || q.reservation_start != ptr || q.reservation_size != size)
			return CUDA_ERROR_INVALID_VALUE;
		if (::munmap(reinterpret_cast<void *>(ptr), size))
			return from_errno(-errno);
		state().reservations.erase(base);
		return CUDA_SUCCESS;
	});
}

extern "C" CUresult cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
				const CUmemAllocationProp *prop, unsigned long long flags) noexcept
{
	return guard([&]() -> CUresult {
		struct uvm_ioc_mem_create c {};

		if (CUresult r = check_init())
			return r;
		if (!handle || !prop || flags)
			return CUDA_ERROR_INVALID_VALUE;
		if (CUresult r = check_prop(prop, &c.location))
			return r;
		if (!size || size % granularity())
			return CUDA_ERROR_INVALID_VALUE;
		if (CUresult r = check_vmm())
			return r;
		c.size = size;
		c.handle_types = prop->requestedHandleTypes;
		int r = state().dev.ioctl(UVM_IOC_MEM_CREATE, &c);
		if (r)
			return r == -ENODEV ? CUDA_ERROR_INVALID_DEVICE : from_errno(r);
		*handle = c.handle;
		return CUDA_SUCCESS;
	});
}

extern "C" CUresult cuMemRelease(CUmemGenericAllocationHandle handle) noexcept
{
	return guard([&]() -> CUresult {
		struct uvm_ioc_mem_release rel {};

		if (CUresult r = check_init())
			return r;
		if (CUresult r = check_vmm())
			return r;
		rel.handle = handle;
		return from_errno(state().dev.ioctl(UVM_IOC_MEM_RELEASE, &rel));
	});
}

extern "C" CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset,
			     CUmemGenericAllocationHandle handle, unsigned long long flags) noexcept
{
	return guard([&]() -> CUresult {
		struct uvm_ioc_mem_map m {};

		if (CUresult r = check_init())
			return r;
		if (!ptr || !size || flags)
			return CUDA_ERROR_INVALID_VALUE;
		if (CUresult r = check_vmm())
			return r;
		m.address = ptr;
		m.size = size;
		m.offset = offset;
		m.handle = handle;
		std::lock_guard<std::mutex> lock(state().mu);
		int r = state().dev.ioctl(UVM_IOC_MEM_MAP, &m);
		return r == -EEXIST ? CUDA_ERROR_INVALID_VALUE : from_errno(r);
	});
}

extern "C" CUresult cuMemUnmap(CUdeviceptr ptr, size_t size) noexcept
{
	return guard([&]() -> CUresult {
		struct uvm_ioc_mem_unmap u {};

		if (CUresult r = check_init())
			return r;
		if (!ptr || !size)
			return CUDA_ERROR_INVALID_VALUE;
		if (CUresult r = check_vmm())
			return r;
		u.address = ptr;
		u.size = size;
		/* Queued copies into the range finish first, as cuMemFree's. */
		wait_all();
		std::lock_guard<std::mutex> lock(state().mu);
		return from_errno(state().dev.ioctl(UVM_IOC_MEM_UNMAP, &u));
	});
}

extern "C" CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc,
				   size_t count) noexcept
{
	return guard([&]() -> CUresult {
		struct uvm_ioc_mem_set_access a {};

		if (CUresult r = check_init())
			return r;
		if (!ptr || !size || !desc || !count || count > UVM_MEM_MAX_ACCESS_DESCS)
			return CUDA_ERROR_INVALID_VALUE;
		std::vector<struct uvm_mem_access> acc(count);
		for (size_t i = 0; i < count; i++) {
			const CUmemAccessDesc &d = desc[i];

			if (d.flags != CU_MEM_ACCESS_FLAGS_PROT_NONE &&
			    d.flags != CU_MEM_ACCESS_FLAGS_PROT_READ &&
			    d.flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
				return CUDA_ERROR_INVALID_VALUE;
			if (d.location.type == CU_MEM_LOCATION_TYPE_DEVICE) {
				if (!valid_device(d.location.id))
					return CUDA_ERROR_INVALID_DEVICE;
				acc[i].location.type = UVM_LOCATION_GPU;
				acc[i].location.id = d.location.id;
			} else if (d.location.type == CU_MEM_LOCATION_TYPE_HOST ||
				   d.location.type == CU_MEM_LOCATION_TYPE_HOST_NUMA) {
				acc[i].location.type = d.location.type;
				acc[i].location.id = 0;
			} else {
				return CUDA_ERROR_INVALID_VALUE;
			}
			acc[i].prot = d.flags;
		}
		if (CUresult r = check_vmm())
			return r;
		a.address = ptr;
		a.size = size;
		a.descs_ptr = reinterpret_cast<uintptr_t>(acc.data());
		a.count = static_cast<__u32>(count);
		std::lock_guard<std::mutex> lock(state().mu);
		int r = state().dev.ioctl(UVM_IOC_MEM_SET_ACCESS, &a);
		return r == -ENODEV ? CUDA_ERROR_INVALID_DEVICE : from_errno(r);
	});
}

extern "C" CUresult cuMemGetAccess(unsigned long long *flags, const CUmemLocation *location,
				   CUdeviceptr ptr) noexcept
{
	return guard([&]() -> CUresult {
		struct uvm_ioc_mem_query q;

		if (CUresult r = check_init())
			return r;
		if (!flags || !location)
			return CUDA_ERROR_INVALID_VALUE;
		int proc = processor_of(*location);
		if (proc < 0)
			return location->type == CU_MEM_LOCATION_TYPE_DEVICE ?
				       CUDA_ERROR_INVALID_DEVICE : CUDA_ERROR_INVALID_VALUE;
		if (CUresult r = check_vmm())
			return r;
		std::lock_guard<std::mutex> lock(state().mu);
		if (vmm_query(ptr, &q) || !q.mapping_size)
			return CUDA_ERROR_INVALID_VALUE;
		const uint64_t bit = UVM_PROCESSOR_MASK(proc);
		*flags = (q.write_mask & bit) ? CU_MEM_ACCESS_FLAGS_PROT_READWRITE :
			 (q.read_mask & bit)  ? CU_MEM_ACCESS_FLAGS_PROT_READ :
						 CU_MEM_ACCESS_FLAGS_PROT_NONE;
		return CUDA_SUCCESS;
	});
}

extern "C" CUresult cuMemGetAllocationGranularity(size_t *gran, const CUmemAllocationProp *prop,
						  CUmemAllocationGranularity_flags option) noexcept
{
	return guard([&]() -> CUresult {
		struct uvm_location loc {};

		if (CUresult r = check_init())
			return r;
		if (!gran || !prop)
			return CUDA_ERROR_INVALID_VALUE;
		if (option != CU_MEM_ALLOC_GRANULARITY_MINIMUM &&
		    option != CU_MEM_ALLOC_GRANULARITY_RECOMMENDED)
			return CUDA_ERROR_INVALID_VALUE;
		if (CUresult r = check_prop(prop, &loc))
			return r;
		*gran = granularity();
		return CUDA_SUCCESS;
	});
}

extern "C" CUresult cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp *prop,
							   CUmemGenericAllocationHandle handle) noexcept
{
	return guard([&]() -> CUresult {
		struct uvm_ioc_mem_props p {};

		if (CUresult r = check_init())
			return r;
		if (!prop)
			return CUDA_ERROR_INVALID_VALUE;
		if (CUresult r = check_vmm())
			return r;
		p.handle = handle;
		if (int r = state().dev.ioctl(UVM_IOC_MEM_PROPS, &p))
			return from_errno(r);
		*prop = {};
		prop->type = CU_MEM_ALLOCATION_TYPE_PINNED;
		prop->requestedHandleTypes = static_cast<CUmemAllocationHandleType>(p.handle_types);
		prop->location.type = static_cast<CUmemLocationType>(p.location.type);
		prop->location.id = p.location.id;
		return CUDA_SUCCESS;
	});
}

extern "C" CUresult cuMemExportToShareableHandle(void *shareableHandle,
						 CUmemGenericAllocationHandle handle,
						 CUmemAllocationHandleType handleType,
						 unsigned long long flags) noexcept
{
	return guard([&]() -> CUresult {
		struct uvm_ioc_mem_export e {};

		if (CUresult r = check_init())
			return r;
		if (!shareableHandle || flags)
			return CUDA_ERROR_INVALID_VALUE;
		if (handleType != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
			return CUDA_ERROR_INVALID_VALUE;
		if (CUresult r = check_vmm())
			return r;
		e.handle = handle;
		e.handle_type = UVM_MEM_HANDLE_FD;
		if (int r = state().dev.ioctl(UVM_IOC_MEM_EXPORT, &e))
			return from_errno(r);
		*static_cast<int *>(shareableHandle) = e.fd;
		return CUDA_SUCCESS;
	});
}

extern "C" CUresult cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *handle,
						   void *osHandle,
						   CUmemAllocationHandleType shHandleType) noexcept
{
	return guard([&]() -> CUresult {
		struct uvm_ioc_mem_import im {};

		if (CUresult r = check_init())
			return r;
		if (!handle || shHandleType != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
			return CUDA_ERROR_INVALID_VALUE;
		if (CUresult r = check_vmm())
			return r;
		im.fd = static_cast<__s32>(reinterpret_cast<uintptr_t>(osHandle));
		int r = state().dev.ioctl(UVM_IOC_MEM_IMPORT, &im);
		if (r)
			return r == -EBADF ? CUDA_ERROR_INVALID_VALUE : from_errno(r);
		*handle = im.handle;
		return CUDA_SUCCESS;
	});
}

extern "C" CUresult cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *handle,
						void *addr) noexcept
{
	return guard([&]() -> CUresult {
		struct uvm_ioc_mem_query q {};

		if (CUresult r = check_init())
			return r;
		if (!handle)
			return CUDA_ERROR_INVALID_VALUE;
		if (CUresult r = check_vmm())
			return r;
		q.address = reinterpret_cast<uintptr_t>(addr);
		q.flags = UVM_MEM_QUERY_RETAIN;
		std::lock_guard<std::mutex> lock(state().mu);
		if (int r = state().dev.ioctl(UVM_IOC_MEM_QUERY, &q))
			return from_errno(r);
		*handle = q.handle;
		return CUDA_SUCCESS;
	});
}

/* There are no CUDA arrays: every array handle is invalid. */
static CUresult map_array_async(CUarrayMapInfo *mapInfoList, unsigned int count, CUstream h,
				bool ptds)
{
	return guard([&]() -> CUresult {
		Stream *st;

		if (CUresult r = check_init())
			return r;
		if (!mapInfoList || !count)
			return CUDA_ERROR_INVALID_VALUE;
		std::lock_guard<std::mutex> lock(state().mu);
		if (CUresult r = resolve_stream(h, ptds, &st))
			return r;
		return CUDA_ERROR_INVALID_HANDLE;
	});
}

#undef cuMemMapArrayAsync

extern "C" CUresult cuMemMapArrayAsync(CUarrayMapInfo *mapInfoList, unsigned int count,
				       CUstream hStream) noexcept
{
	return map_array_async(mapInfoList, count, hStream, false);
}

extern "C" CUresult cuMemMapArrayAsync_ptsz(CUarrayMapInfo *mapInfoList, unsigned int count,
					    CUstream hStream) noexcept
{
	return map_array_async(mapInfoList, count, hStream, true);
}
