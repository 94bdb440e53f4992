// SPDX-License-Identifier: MIT
/*
 * host.cpp - page-locked host memory (cuMemAllocHost, cuMemHostAlloc,
 * cuMemFreeHost) and registered host memory (cuMemHostRegister,
 * cuMemHostUnregister), their flags and device pointers.
 *
 * Page-locked memory is anonymous memory the driver pins and maps for every
 * GPU (UVM_IOC_HOST_REGISTER).  As NVIDIA's driver does (probe_copy.txt,
 * "cp.allochost.*", "cp.pa.host1000.18"), requests below 2 MiB share 2 MiB
 * chunks, registered whole, placed as small cuMemAlloc requests are; larger
 * ones get pages of their own.  A chunk is unregistered and unmapped when
 * its last allocation is freed.
 *
 * Registration pins exactly the caller's bytes (two registrations may share
 * a page, not a byte: "cp.reg.samepage.*").  With unified addressing the
 * device pointer of host memory is the host pointer ("dm.allochost.devptr",
 * "cp.devptr.*").  CU_MEMHOSTALLOC_WRITECOMBINED is accepted and reported
 * by cuMemHostGetFlags; the memory is ordinary cached memory, with no
 * separate device alias.  CU_MEMHOSTREGISTER_IOMEMORY is refused with
 * CUDA_ERROR_INVALID_VALUE, as NVIDIA's driver refuses it for memory that is
 * not I/O memory ("cp.reg.flags4"): the driver cannot pin I/O memory.
 *
 * A READ_ONLY registration of writable memory sees the CPU's later writes:
 * the driver pins such memory for writing (breaking copy-on-write of memory
 * never written), see Documentation/memory.rst.
 *
 * The flags cuMemHostGetFlags reports are the caller's plus
 * CU_MEMHOSTALLOC_DEVICEMAP (every context maps host memory); for
 * registrations PORTABLE is kept and READ_ONLY is not reported
 * ("cp.reg.flags*.getflags"); managed memory answers DEVICEMAP
 * ("cp.hostflags.managed").
 */
#include <cerrno>
#include <sys/mman.h>

#include "context.h"
#include "device.h"
#include "memory.h"

namespace uvm {
namespace {

/**
 * map_host() - a chunk of pinned anonymous memory
 * @size:	bytes, a multiple of the page size
 * @shared:	for sub-allocations
 * @out:	the chunk
 *
 * Context: MemoryRegistry::mu held.
 * Return: 0 or -errno.
 */
int map_host(uint64_t size, bool shared, Chunk **out)
{
	void *p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return -ENOMEM;
	struct uvm_ioc_host_register reg {};
	reg.address = reinterpret_cast<uintptr_t>(p);
	reg.length = size;
	if (int r = driver().ioctl(UVM_IOC_HOST_REGISTER, &reg)) {
		::munmap(p, size);
		return r;
	}
	Chunk c;
	c.base = reg.address;
	c.size = size;
	c.kind = Kind::host;
	c.shared = shared;
	c.block_id = reg.buffer_id;
	*out = add_chunk(c);
	return 0;
}

/**
 * alloc_host() - page-locked host memory
 * @size:	bytes, > 0
 * @flags:	CU_MEMHOSTALLOC_*
 * @ctx:	the owner
 * @out:	the address
 *
 * Context: MemoryRegistry::mu held.
 * Return: 0 or -errno.
 */
int alloc_host(uint64_t size, unsigned int flags, Context *ctx, uint64_t *out)
{
	Chunk *chunk;
	uint64_t p;

	if (size >= kChunkSize) {
		uint64_t len = round_up(size, page_size());

		if (len < size)
			return -ENOMEM;
		if (int r = map_host(len, false, &chunk))
			return r;
		p = chunk->base;
		chunk->used[p] = len;
	} else if (!(p = sub_allocate(Kind::host, 0, size, &chunk))) {
		if (int r = map_host(kChunkSize, true, &chunk))
			return r;
		p = chunk->base;
		chunk->used[p] = round_up(size, kSubAllocAlign);
	}
	Allocation &a = add_allocation(p, size, Kind::host, chunk, ctx);
	a.host_flags = flags | CU_MEMHOSTALLOC_DEVICEMAP;
	*out = p;
	return 0;
}

/* The allocation at exactly p, when it is of kind k.  MemoryRegistry::mu held. */
std::map<uint64_t, Allocation>::iterator find_base(uint64_t p, Kind k)
{
	auto &t = mem_reg().allocations;
	auto it = t.find(p);

	return it != t.end() && it->second.kind == k ? it : t.end();
}

/**
 * free_host_memory() - wait for queued work, then free an allocation
 * @p:		its address
 * @k:		Kind::host or Kind::registered
 *
 * Return: CUDA_SUCCESS, or CUDA_ERROR_INVALID_VALUE when p does not start
 * an allocation of that kind.
 */
CUresult free_host_memory(uint64_t p, Kind k)
{
	{
		std::lock_guard<std::mutex> lock(mem_reg().mu);
		if (find_base(p, k) == mem_reg().allocations.end())
			return CUDA_ERROR_INVALID_VALUE;
	}
	/* Copies queued on the memory finish before it goes. */
	wait_all();
	std::lock_guard<std::mutex> lock(mem_reg().mu);
	auto it = find_base(p, k);
	if (it == mem_reg().allocations.end())
		return CUDA_ERROR_INVALID_VALUE;
	free_allocation(it);
	return CUDA_SUCCESS;
}

/**
 * check_register() - may [p, p + size) be registered?
 *
 * Overlapping a registration is CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
 * overlapping any other memory of the library (page-locked, managed or
 * device memory, or a chunk's free space) is CUDA_ERROR_INVALID_VALUE
 * (probe_devmem.txt "dm.reg.overlap", "dm.reg.managed"; probe_copy.txt
 * "cp.allochost.register", "cp.reg.device").
 *
 * Context: MemoryRegistry::mu and VmmRegistry::mu held.
 */
CUresult check_register(uint64_t p, uint64_t size)
{
	const auto &t = mem_reg().allocations;
	bool registered = false, other = false;

	auto it = t.upper_bound(p);
	if (it != t.begin())
		--it;
	for (; it != t.end() && it->first < p + size; ++it) {
		if (it->first + it->second.size <= p)
			continue;
		if (it->second.kind == Kind::registered)
			registered = true;
		else
			other = true;
	}
	if (registered)
		return CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
	if (other || touches_library_memory(p, size))
		return CUDA_ERROR_INVALID_VALUE;
	return CUDA_SUCCESS;
}

} // namespace
} // namespace uvm

using namespace uvm;

extern "C" CUresult cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags) noexcept
{
	return guard([&]() -> CUresult {
		const unsigned int known = CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP |
					   CU_MEMHOSTALLOC_WRITECOMBINED;
		Context *ctx;
		uint64_t p;

		if (CUresult r = current_context(&ctx))
			return r;
		if (!pp || (Flags & ~known))
			return CUDA_ERROR_INVALID_VALUE;
		/* NVIDIA's driver, not its documentation: 0 bytes are a NULL
		 * pointer (probe_copy.txt "cp.hostalloc.0"). */
		if (!bytesize) {
			*pp = nullptr;
			return CUDA_SUCCESS;
		}
		if (!driver_has_memory_api())
			return CUDA_ERROR_NOT_SUPPORTED;
		std::lock_guard<std::mutex> lock(mem_reg().mu);
		if (int r = alloc_host(bytesize, Flags, ctx, &p))
			return from_errno(r == -EINVAL || r == -EFAULT ? -ENOMEM : r);
		*pp = reinterpret_cast<void *>(p);
		return CUDA_SUCCESS;
	});
}

extern "C" CUresult cuMemAllocHost_v2(void **pp, size_t bytesize) noexcept
{
	return cuMemHostAlloc(pp, bytesize, 0);
}

extern "C" CUresult cuMemFreeHost(void *p) noexcept
{
	return guard([&]() -> CUresult {
		Context *ctx;

		if (CUresult r = check_init())
			return r;
		if (!p)
			return CUDA_SUCCESS;
		if (CUresult r = current_context(&ctx))
			return r;
		return free_host_memory(reinterpret_cast<uintptr_t>(p), Kind::host);
	});
}

extern "C" CUresult cuMemHostRegister_v2(void *p, size_t bytesize, unsigned int Flags) noexcept
{
	return guard([&]() -> CUresult {
		const unsigned int known = CU_MEMHOSTREGISTER_PORTABLE |
					   CU_MEMHOSTREGISTER_DEVICEMAP |
					   CU_MEMHOSTREGISTER_IOMEMORY | CU_MEMHOSTREGISTER_READ_ONLY;
		const uint64_t addr = reinterpret_cast<uintptr_t>(p);
		Context *ctx;

		if (CUresult r = current_context(&ctx))
			return r;
		if (!p || !bytesize || addr + bytesize < addr || (Flags & ~known) ||
		    (Flags & CU_MEMHOSTREGISTER_IOMEMORY))
			return CUDA_ERROR_INVALID_VALUE;
		if (!driver_has_memory_api())
			return CUDA_ERROR_NOT_SUPPORTED;
		/* A registration must not overlap a reservation either. */
		DomainLock lock(kMemoryDomain | kVmmDomain);
		if (CUresult r = check_register(addr, bytesize))
			return r;
		struct uvm_ioc_host_register reg {};
		reg.address = addr;
		reg.length = bytesize;
		if (Flags & CU_MEMHOSTREGISTER_READ_ONLY)
			reg.flags = UVM_HOST_REGISTER_READ_ONLY;
		int r = driver().ioctl(UVM_IOC_HOST_REGISTER, &reg);
		if (r == -EEXIST)
			return CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
		/* -EFAULT: not mapped, or read-only memory without READ_ONLY
		 * ("dm.reg.unmapped", "cp.reg.readonly_mem"). */
		if (r)
			return from_errno(r);
		Allocation &a = add_allocation(addr, bytesize, Kind::registered, nullptr, ctx);
		a.host_flags = (Flags & CU_MEMHOSTREGISTER_PORTABLE) | CU_MEMHOSTALLOC_DEVICEMAP;
		a.read_only = Flags & CU_MEMHOSTREGISTER_READ_ONLY;
		a.map_base = round_down(addr, page_size());
		a.map_size = round_up(addr + bytesize, page_size()) - a.map_base;
		a.block_id = reg.buffer_id;
		return CUDA_SUCCESS;
	});
}

extern "C" CUresult cuMemHostUnregister(void *p) noexcept
{
	return guard([&]() -> CUresult {
		const uint64_t addr = reinterpret_cast<uintptr_t>(p);
		Context *ctx;

		if (CUresult r = current_context(&ctx))
			return r;
		if (!p)
			return CUDA_ERROR_INVALID_VALUE;
		{
			std::lock_guard<std::mutex> lock(mem_reg().mu);
			Allocation *a = find_allocation(addr);

			/* Inside a registration, or page-locked memory:
			 * INVALID_VALUE; elsewhere NOT_REGISTERED
			 * ("dm.reg.unregister.*", "cp.allochost.unregister"). */
			if (!a)
				return CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
			if (a->kind != Kind::registered || a->base != addr)
				return CUDA_ERROR_INVALID_VALUE;
		}
		return free_host_memory(addr, Kind::registered);
	});
}

extern "C" CUresult cuMemHostGetFlags(unsigned int *pFlags, void *p) noexcept
{
	return guard([&]() -> CUresult {
		Context *ctx;

		if (CUresult r = current_context(&ctx))
			return r;
		if (!pFlags || !p)
			return CUDA_ERROR_INVALID_VALUE;
		std::lock_guard<std::mutex> lock(mem_reg().mu);
		Allocation *a = find_allocation(reinterpret_cast<uintptr_t>(p));
		if (!a || a->kind == Kind::device)
			return CUDA_ERROR_INVALID_VALUE;
		*pFlags = a->kind == Kind::managed ? CU_MEMHOSTALLOC_DEVICEMAP : a->host_flags;
		return CUDA_SUCCESS;
	});
}

extern "C" CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *pdptr, void *p,
						 unsigned int Flags) noexcept
{
	return guard([&]() -> CUresult {
		Context *ctx;

		if (CUresult r = current_context(&ctx))
			return r;
		if (!pdptr || !p || Flags)
			return CUDA_ERROR_INVALID_VALUE;
		std::lock_guard<std::mutex> lock(mem_reg().mu);
		Allocation *a = find_allocation(reinterpret_cast<uintptr_t>(p));
		if (!a || (a->kind != Kind::host && a->kind != Kind::registered))
			return CUDA_ERROR_INVALID_VALUE;
		*pdptr = reinterpret_cast<uintptr_t>(p);
		return CUDA_SUCCESS;
	});
}
