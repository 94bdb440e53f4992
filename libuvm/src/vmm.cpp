// SPDX-License-Identifier: MIT
/*
 * vmm.cpp - virtual memory management: address reservations, physical
 * allocations by handle, mappings, access, sharing by file descriptor
 * (cuMemAddressReserve ... cuMemRetainAllocationHandle); the tile pools of
 * sparse arrays (struct TilePool; cuMemMapArrayAsync is sparse.cpp's).
 *
 * Everything lives in the driver (uapi/uvm.h, API 1.3): a reservation is an
 * mmap of /dev/uvm at UVM_MMAP_RESERVE, a physical allocation a handle of
 * the VA space (UVM_IOC_MEM_CREATE; CUDA's handle is the driver's), a
 * mapping UVM_IOC_MEM_MAP of a handle into a reservation, access
 * UVM_IOC_MEM_SET_ACCESS, sharing UVM_IOC_MEM_EXPORT/IMPORT.  What is mapped
 * where, with which rights, is asked of the driver (UVM_IOC_MEM_QUERY,
 * UVM_IOC_POINTER_INFO).  libuvm keeps only where its reservations are
 * (struct Reservation) and what the driver has no room for: the CUDA flags
 * of its handles (struct VmmHandle).
 *
 * Reservations are aligned in userspace: an anonymous PROT_NONE placeholder
 * of size + alignment is mapped first, the reservation is mapped MAP_FIXED
 * over its aligned part, and the rest is unmapped.  A hint is honoured when
 * it is free (MAP_FIXED_NOREPLACE), otherwise the reservation goes
 * elsewhere, as with NVIDIA's driver.
 *
 * The return codes and the checks' order are NVIDIA's, recorded on an H200
 * with CUDA 13.0 (tests/real-driver/results/probe_vmm.txt, "vmm.*"), which
 * differ from what the rest of the API would suggest: an unknown handle is
 * CUDA_ERROR_INVALID_VALUE, a mapping of part of an allocation
 * CUDA_ERROR_NOT_SUPPORTED, a file descriptor that is no exported
 * allocation CUDA_ERROR_UNKNOWN, unmapping where nothing is mapped
 * succeeds; cuMemSetAccess changes whole mappings only, cuMemAddressFree
 * refuses a reservation with mappings in it.
 */
#include <algorithm>
#include <cerrno>
#include <sys/mman.h>

#include "context.h"
#include "device.h"
#include "memory.h"
#include "vmm.h"

namespace uvm {

VmmRegistry &vmm_reg()
{
	/* Never destroyed: other libraries' destructors may still call us. */
	static VmmRegistry *r = new VmmRegistry;
	return *r;
}

bool driver_has_vmm()
{
	return driver().version.caps & UVM_CAP_VMM;
}

Reservation *find_reservation(uint64_t ptr, uint64_t *base)
{
	auto &t = vmm_reg().reservations;
	auto it = t.upper_bound(ptr);

	if (it == t.begin())
		return nullptr;
	--it;
	if (ptr - it->first >= it->second.size)
		return nullptr;
	*base = it->first;
	return &it->second;
}

int vmm_query(uint64_t ptr, struct uvm_ioc_mem_query *q)
{
	*q = {};
	q->address = ptr;
	return driver().ioctl(UVM_IOC_MEM_QUERY, q);
}

int current_device()
{
	const ThreadState &ts = thread_state();

	return !ts.stack.empty() && ts.stack.back() ? ts.stack.back()->device : 0;
}

uint32_t vmm_access(const Allocation &a, int proc)
{
	const uint64_t bit = UVM_PROCESSOR_MASK(proc);

	if (a.write_mask & bit)
		return CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	return (a.read_mask & bit) ? CU_MEM_ACCESS_FLAGS_PROT_READ : CU_MEM_ACCESS_FLAGS_PROT_NONE;
}

/**
 * vmm_describe() - a VMM mapping as the pointer attributes see it
 * @ptr:	any address
 * @out:	filled as an Allocation of Kind::vmm
 *
 * As NVIDIA's driver reports VMM memory (probe_vmm.txt "vmm.pa.*"): the
 * range (RANGE_START_ADDR/RANGE_SIZE) is the reservation, the mapping
 * (MAPPING_BASE_ADDR/MAPPING_SIZE, cuMemGetAddressRange) the cuMemMap
 * holding @ptr; BUFFER_ID is the mapping's, MEMORY_BLOCK_ID the physical
 * allocation's (shared by every mapping of it).
 *
 * Context: VmmRegistry::mu held.
 * Return: true when @ptr lies in a mapping of a reservation of libuvm.
 */
bool vmm_describe(uint64_t ptr, Allocation *out)
{
	struct uvm_ioc_pointer_info info {};
	struct uvm_ioc_mem_query q;
	uint64_t rbase;

	if (!find_reservation(ptr, &rbase))
		return false;
	info.address = ptr;
	if (driver().ioctl(UVM_IOC_POINTER_INFO, &info) || !(info.flags & UVM_POINTER_VMM))
		return false;
	if (vmm_query(ptr, &q) || !q.mapping_size)
		return false;
	auto h = vmm_reg().vmm_handles.find(q.handle);
	const bool imported = h != vmm_reg().vmm_handles.end() && h->second.imported;

	out->kind = Kind::vmm;
	out->base = q.mapping_start;
	out->size = q.mapping_size;
	out->map_base = q.mapping_start;
	out->map_size = q.mapping_size;
	out->res_base = q.reservation_start;
	out->res_size = q.reservation_size;
	out->buffer_id = info.buffer_id;
	out->block_id = q.alloc_id;
	out->location = q.location;
	/* Host memory: the current device ("vmm.pa.host.9"). */
	out->device = q.location.type == UVM_LOCATION_GPU ? q.location.id : current_device();
	out->handle_types = imported ? 0 : q.handle_types;
	out->read_mask = q.read_mask;
	out->write_mask = q.write_mask;
	out->sync_memops = false;
	return true;
}

namespace {

/* The CUDA handle types the driver knows; others are ignored
 * ("vmm.create.handletype0x10": created, reported as none). */
constexpr unsigned int kKnownHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;

/**
 * check_prop() - a CUmemAllocationProp as cuMemCreate checks it
 * @prop:	the properties (not NULL)
 * @c:		out: the driver's location and handle types
 *
 * In NVIDIA's order ("vmm.create.*"): type, location, handle types,
 * reserved fields.  A HOST location is any node (its id is ignored); a
 * HOST_NUMA id must be a node with memory.
 *
 * Return: CUDA_SUCCESS or NVIDIA's code for the first bad field.
 */
CUresult check_prop(const CUmemAllocationProp *prop, struct uvm_ioc_mem_create *c)
{
	const unsigned int types = prop->requestedHandleTypes;

	if (prop->type != CU_MEM_ALLOCATION_TYPE_PINNED)
		return CUDA_ERROR_INVALID_VALUE;
	switch (prop->location.type) {
	case CU_MEM_LOCATION_TYPE_DEVICE:
		if (!valid_device(prop->location.id))
			return CUDA_ERROR_INVALID_DEVICE;
		c->location.type = UVM_LOCATION_GPU;
		c->location.id = prop->location.id;
		break;
	case CU_MEM_LOCATION_TYPE_HOST:
		/* Not shareable ("vmm.create.host.posix_fd"). */
		if (types & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
			return CUDA_ERROR_INVALID_VALUE;
		c->location.type = UVM_LOCATION_HOST;
		break;
	case CU_MEM_LOCATION_TYPE_HOST_NUMA:
		if (!valid_numa_node(prop->location.id))
			return CUDA_ERROR_INVALID_VALUE;
		c->location.type = UVM_LOCATION_HOST_NUMA;
		c->location.id = prop->location.id;
		break;
	default:	/* HOST_NUMA_CURRENT included */
		return CUDA_ERROR_INVALID_VALUE;
	}
	if (types & (CU_MEM_HANDLE_TYPE_WIN32 | CU_MEM_HANDLE_TYPE_WIN32_KMT))
		return CUDA_ERROR_INVALID_VALUE;
	/* No fabric (IMEX) here, as on a machine without its daemon. */
	if (types & CU_MEM_HANDLE_TYPE_FABRIC)
		return CUDA_ERROR_NOT_PERMITTED;
	const auto &f = prop->allocFlags;
	if (f.reserved[0] | f.reserved[1] | f.reserved[2] | f.reserved[3] ||
	    prop->win32HandleMetaData)
		return CUDA_ERROR_INVALID_VALUE;
	c->handle_types = types & kKnownHandleTypes;
	return CUDA_SUCCESS;
}

/**
 * default_alignment() - where a reservation goes without an alignment
 * @size:	its bytes
 *
 * The largest power of two up to the size, between the granularity and
 * 1 GiB: a 2 MiB reservation is 2 MiB aligned, as NVIDIA's
 * ("env.vmm.reserve.size2m.align_log2"), a larger one more, so that its
 * large pages fit ("vmm.reserve.hint.align_conflict": a 4 MiB hint one
 * granule into a 4 MiB reservation is not 4 MiB aligned).
 */
uint64_t default_alignment(uint64_t size)
{
	uint64_t a = kVmmGranularity;

	while (a < (1ULL << 30) && a * 2 <= size)
		a *= 2;
	return a;
}

/**
 * reserve() - map a reservation of /dev/uvm
 * @size:	bytes, a multiple of the granularity
 * @align:	a power of two, at least the granularity
 * @hint:	the caller's wish (aligned), or 0
 * @out:	the address
 *
 * Context: VmmRegistry::mu held.
 * Return: 0 or -errno.
 */
int reserve(uint64_t size, uint64_t align, uint64_t hint, uint64_t *out)
{
	const int fd = driver().fd();
	const off_t off = static_cast<off_t>(UVM_MMAP_RESERVE);

	if (hint) {
		void *p = ::mmap(reinterpret_cast<void *>(hint), size, PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_FIXED_NOREPLACE, fd, off);
		if (p == reinterpret_cast<void *>(hint)) {
			*out = hint;
			return 0;
		}
		/* A kernel before 4.17 takes the flag as a mere hint. */
		if (p != MAP_FAILED)
			::munmap(p, size);
	}
	if (size + align < size)
		return -ENOMEM;
	void *ph = ::mmap(nullptr, size + align, PROT_NONE,
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

/**
 * whole_mappings() - does [ptr, end) consist of whole mappings, no hole?
 * @ptr:	first byte
 * @end:	the byte after the last
 * @gpu_memory:	out: one of them is GPU memory
 *
 * NVIDIA's driver changes the access of whole mappings only
 * ("vmm.setaccess.half.*", "vmm.setaccess.span2": CUDA_ERROR_INVALID_VALUE)
 * and of mapped memory only ("vmm.setaccess.hole"); the uvm driver would
 * change any granules.  One UVM_IOC_MEM_QUERY per mapping.
 *
 * Context: VmmRegistry::mu held.
 * Return: true if so.
 */
bool whole_mappings(uint64_t ptr, uint64_t end, bool *gpu_memory)
{
	uint64_t base;
	Reservation *res = find_reservation(ptr, &base);

	*gpu_memory = false;
	if (!res || end <= ptr || end - base > res->size)
		return false;
	for (uint64_t at = ptr; at < end;) {
		struct uvm_ioc_mem_query q;

		if (vmm_query(at, &q) || !q.mapping_size || q.mapping_start != at)
			return false;
		*gpu_memory |= q.location.type == UVM_LOCATION_GPU;
		at += q.mapping_size;
		if (at > end)
			return false;
	}
	return true;
}

/* The driver's processor of a CUmemLocation naming who accesses, or -1. */
int accessor(const CUmemLocation &l)
{
	switch (l.type) {
	case CU_MEM_LOCATION_TYPE_DEVICE:
		return valid_device(l.id) ? UVM_PROCESSOR_GPU(l.id) : -1;
	case CU_MEM_LOCATION_TYPE_HOST:
	case CU_MEM_LOCATION_TYPE_HOST_NUMA:
		return UVM_PROCESSOR_CPU;
	default:
		return -1;
	}
}

/**
 * to_access() - the driver's form of access descriptors
 * @desc:	CUDA's, @count of them
 * @count:	1 .. UVM_MEM_MAX_ACCESS_DESCS
 * @acc:	out
 * @host:	out: one of them names the host
 *
 * Return: CUDA_SUCCESS, or CUDA_ERROR_INVALID_VALUE for a bad flag,
 * location type or device ordinal ("vmm.setaccess.flags2",
 * "vmm.setaccess.device99", "vmm.setaccess.host_numa_current").
 */
CUresult to_access(const CUmemAccessDesc *desc, size_t count,
		   std::vector<struct uvm_mem_access> *acc, bool *host)
{
	*host = false;
	acc->assign(count, {});
	for (size_t i = 0; i < count; i++) {
		const CUmemAccessDesc &d = desc[i];
		struct uvm_mem_access &a = (*acc)[i];
		int proc = accessor(d.location);

		if (d.flags != CU_MEM_ACCESS_FLAGS_PROT_NONE &&
		    d.flags != CU_MEM_ACCESS_FLAGS_PROT_READ &&
		    d.flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
			return CUDA_ERROR_INVALID_VALUE;
		if (proc < 0)
			return CUDA_ERROR_INVALID_VALUE;
		if (proc == UVM_PROCESSOR_CPU) {
			*host = true;
			a.location.type = UVM_LOCATION_HOST;
		} else {
			a.location.type = UVM_LOCATION_GPU;
			a.location.id = d.location.id;
		}
		a.prot = d.flags;
	}
	return CUDA_SUCCESS;
}

/* The index of the first descriptor naming the host, or count. */
size_t first_host(const std::vector<struct uvm_mem_access> &acc)
{
	size_t i = 0;

	while (i < acc.size() && acc[i].location.type == UVM_LOCATION_GPU)
		i++;
	return i;
}

/* Forget a handle's flags once the driver has no such handle any more.
 * VmmRegistry::mu held. */
void forget_handle_if_gone(uint64_t handle)
{
	struct uvm_ioc_mem_props p {};

	p.handle = handle;
	if (driver().ioctl(UVM_IOC_MEM_PROPS, &p) == -ENOENT)
		vmm_reg().vmm_handles.erase(handle);
}

/* The initialisation and driver checks every call starts with. */
CUresult check_vmm()
{
	if (CUresult r = check_init())
		return r;
	return driver_has_vmm() ? CUDA_SUCCESS : CUDA_ERROR_NOT_SUPPORTED;
}

/**
 * map_tile_pool() - reach a tile pool's memory
 * @handle:	the new allocation
 * @size:	its bytes
 * @gpu:	its GPU, or -1 for host memory
 * @out:	the pool, mapped whole in a reservation of libuvm's own and
 *		readable and writable by @gpu (every GPU for host memory)
 *
 * A tile pool cannot be mapped by cuMemMap; libuvm maps it here once, and
 * the tiles of sparse arrays are copied to and from through this mapping.
 *
 * Context: VmmRegistry::mu held.
 * Return: 0 or -errno, nothing left behind.
 */
int map_tile_pool(uint64_t handle, uint64_t size, int gpu, std::shared_ptr<TilePool> *out)
{
	struct uvm_ioc_mem_set_access a {};
	struct uvm_ioc_mem_map m {};
	std::vector<struct uvm_mem_access> acc;
	uint64_t va;

	if (int r = reserve(size, default_alignment(size), 0, &va))
		return r;
	vmm_reg().reservations[va].size = size;
	auto pool = std::make_shared<TilePool>();
	pool->va = va;
	pool->size = size;
	pool->device = gpu;
	m.address = va;
	m.size = size;
	m.handle = handle;
	if (int r = driver().ioctl(UVM_IOC_MEM_MAP, &m))
		return r;	/* ~TilePool() unreserves */
	for (int g = 0; valid_device(g) && acc.size() < UVM_MEM_MAX_ACCESS_DESCS; g++) {
		struct uvm_mem_access d {};

		if (gpu >= 0 && g != gpu)
			continue;
		d.location.type = UVM_LOCATION_GPU;
		d.location.id = g;
		d.prot = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
		acc.push_back(d);
	}
	a.address = va;
	a.size = size;
	a.descs_ptr = reinterpret_cast<uintptr_t>(acc.data());
	a.count = static_cast<__u32>(acc.size());
	if (int r = driver().ioctl(UVM_IOC_MEM_SET_ACCESS, &a))
		return r;
	*out = std::move(pool);
	return 0;
}

} // namespace

TilePool::~TilePool()
{
	struct uvm_ioc_mem_query q;
	uint64_t base;

	if (!va)
		return;
	/* A pool whose mapping failed has only its reservation. */
	if (!vmm_query(va, &q) && q.mapping_size) {
		struct uvm_ioc_mem_unmap u {};

		u.address = va;
		u.size = q.mapping_size;
		driver().ioctl(UVM_IOC_MEM_UNMAP, &u);
	}
	if (find_reservation(va, &base)) {
		::munmap(reinterpret_cast<void *>(base), vmm_reg().reservations[base].size);
		vmm_reg().reservations.erase(base);
	}
}

std::shared_ptr<TilePool> find_tile_pool(uint64_t handle)
{
	auto it = vmm_reg().vmm_handles.find(handle);

	if (it == vmm_reg().vmm_handles.end())
		return nullptr;
	return it->second.pool;
}
} // namespace uvm

using namespace uvm;

extern "C" CUresult cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment,
					CUdeviceptr addr, unsigned long long flags) noexcept
{
	return guard([&]() -> CUresult {
		if (CUresult r = check_vmm())
			return r;
		/* "vmm.reserve.*": sizes and hints in whole granules, a power
		 * of two alignment (0: the default), hints aligned to it. */
		if (!ptr || !size || size % kVmmGranularity || flags ||
		    (alignment & (alignment - 1)) || addr % kVmmGranularity)
			return CUDA_ERROR_INVALID_VALUE;
		const uint64_t align = alignment ? std::max<uint64_t>(alignment, kVmmGranularity) :
						   default_alignment(size);
		if (addr % align && alignment)
			return CUDA_ERROR_INVALID_VALUE;
		uint64_t base = 0;

		std::lock_guard<std::mutex> lock(vmm_reg().mu);
		if (int r = reserve(size, align, addr, &base))
			return r == -ENOMEM || r == -EINVAL ? CUDA_ERROR_OUT_OF_MEMORY : from_errno(r);
		vmm_reg().reservations[base].size = size;
		*ptr = base;
		return CUDA_SUCCESS;
	});
}

extern "C" CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size) noexcept
{
	return guard([&]() -> CUresult {
		struct uvm_ioc_mem_query q;
		uint64_t base;

		if (CUresult r = check_vmm())
			return r;
		if (!ptr || !size)
			return CUDA_ERROR_INVALID_VALUE;
		std::lock_guard<std::mutex> lock(vmm_reg().mu);
		Reservation *res = find_reservation(ptr, &base);
		/* Exactly one reservation, as the driver has it. */
		if (!res || vmm_query(ptr, &q) || q.reservation_start != ptr ||
		    q.reservation_size != size)
			return CUDA_ERROR_INVALID_VALUE;
		/* With nothing mapped in it ("vmm.free.mapped"). */
		if (q.reservation_mappings)
			return CUDA_ERROR_INVALID_VALUE;
		if (::munmap(reinterpret_cast<void *>(ptr), size))
			return from_errno(-errno);
		vmm_reg().reservations.erase(base);
		return CUDA_SUCCESS;
	});
}

extern "C" CUresult cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
				const CUmemAllocationProp *prop, unsigned long long flags) noexcept
{
	return guard([&]() -> CUresult {
		struct uvm_ioc_mem_create c {};

		if (CUresult r = check_vmm())
			return r;
		if (!handle || !prop || !size || size % kVmmGranularity || flags)
			return CUDA_ERROR_INVALID_VALUE;
		if (CUresult r = check_prop(prop, &c))
			return r;
		/* Other usage bits are accepted and mean nothing, host memory
		 * may be a tile pool ("sp.pool.*"). */
		const bool tile_pool = prop->allocFlags.usage & CU_MEM_CREATE_USAGE_TILE_POOL;
		c.size = size;
		std::lock_guard<std::mutex> lock(vmm_reg().mu);
		if (int r = driver().ioctl(UVM_IOC_MEM_CREATE, &c))
			return r == -ENODEV && c.location.type != UVM_LOCATION_GPU ?
				       CUDA_ERROR_INVALID_VALUE : from_errno(r);
		std::shared_ptr<TilePool> pool;
		if (tile_pool) {
			const int gpu = c.location.type == UVM_LOCATION_GPU ? c.location.id : -1;
			int r = map_tile_pool(c.handle, size, gpu, &pool);

			if (r) {
				struct uvm_ioc_mem_release rel {};

				rel.handle = c.handle;
				driver().ioctl(UVM_IOC_MEM_RELEASE, &rel);
				return r == -ENOMEM ? CUDA_ERROR_OUT_OF_MEMORY : from_errno(r);
			}
		}
		VmmHandle &h = vmm_reg().vmm_handles[c.handle];
		h = {};
		h.compression = prop->allocFlags.compressionType;
		h.rdma = prop->allocFlags.gpuDirectRDMACapable;
		h.pool = std::move(pool);
		*handle = c.handle;
		return CUDA_SUCCESS;
	});
}

extern "C" CUresult cuMemRelease(CUmemGenericAllocationHandle handle) noexcept
{
	return guard([&]() -> CUresult {
		struct uvm_ioc_mem_release rel {};

		if (CUresult r = check_vmm())
			return r;
		rel.handle = handle;
		std::lock_guard<std::mutex> lock(vmm_reg().mu);
		if (int r = driver().ioctl(UVM_IOC_MEM_RELEASE, &rel))
			return r == -ENOENT ? CUDA_ERROR_INVALID_VALUE : from_errno(r);
		forget_handle_if_gone(handle);
		return CUDA_SUCCESS;
	});
}

extern "C" CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset,
			     CUmemGenericAllocationHandle handle, unsigned long long flags) noexcept
{
	return guard([&]() -> CUresult {
		struct uvm_ioc_mem_props p {};
		struct uvm_ioc_mem_map m {};
		uint64_t base;

		if (CUresult r = check_vmm())
			return r;
		if (!size || flags)
			return CUDA_ERROR_INVALID_VALUE;
		std::lock_guard<std::mutex> lock(vmm_reg().mu);
		p.handle = handle;
		if (driver().ioctl(UVM_IOC_MEM_PROPS, &p))
			return CUDA_ERROR_INVALID_VALUE;
		/* Whole allocations only ("vmm.map.partial", "offset2m"). */
		if (offset || size != p.size)
			return CUDA_ERROR_NOT_SUPPORTED;
		/* A tile pool backs sparse arrays only ("sp.t2.cumemmap_tile_pool"). */
		if (find_tile_pool(handle))
			return CUDA_ERROR_INVALID_VALUE;
		if (!find_reservation(ptr, &base))
			return CUDA_ERROR_INVALID_VALUE;
		m.address = ptr;
		m.size = size;
		m.handle = handle;
		int r = driver().ioctl(UVM_IOC_MEM_MAP, &m);
		if (r)
			return r == -ENOMEM ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_ERROR_INVALID_VALUE;
		return CUDA_SUCCESS;
	});
}

extern "C" CUresult cuMemUnmap(CUdeviceptr ptr, size_t size) noexcept
{
	return guard([&]() -> CUresult {
		struct uvm_ioc_mem_unmap u {};
		uint64_t base;

		if (CUresult r = check_vmm())
			return r;
		/* The size is taken in whole granules, rounded down
		 * ("vmm.unmap.unaligned_size_over" succeeds, "unaligned_size"
		 * is nothing). */
		size = round_down(size, kVmmGranularity);
		if (!ptr || !size)
			return CUDA_ERROR_INVALID_VALUE;
		/* Queued copies into the range finish first, as cuMemFree's. */
		wait_all();
		std::lock_guard<std::mutex> lock(vmm_reg().mu);
		if (!find_reservation(ptr, &base))
			return CUDA_ERROR_INVALID_VALUE;
		u.address = ptr;
		u.size = size;
		int r = driver().ioctl(UVM_IOC_MEM_UNMAP, &u);
		/* Nothing mapped there is no error ("vmm.unmap.hole", "twice"). */
		return r && r != -ENOENT ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
	});
}

extern "C" CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc,
				   size_t count) noexcept
{
	return guard([&]() -> CUresult {
		struct uvm_ioc_mem_set_access a {};
		std::vector<struct uvm_mem_access> acc;
		bool host, gpu_memory;

		if (CUresult r = check_vmm())
			return r;
		if (!ptr || !size || !desc || !count || count > UVM_MEM_MAX_ACCESS_DESCS)
			return CUDA_ERROR_INVALID_VALUE;
		if (CUresult r = to_access(desc, count, &acc, &host))
			return r;
		std::lock_guard<std::mutex> lock(vmm_reg().mu);
		if (ptr + size < ptr || !whole_mappings(ptr, ptr + size, &gpu_memory))
			return CUDA_ERROR_INVALID_VALUE;
		/* The host has no access to GPU memory ("vmm.setaccess.host";
		 * the driver's -EOPNOTSUPP); NVIDIA's driver applies the
		 * descriptors before the host's ("device_and_host.get"). */
		CUresult result = CUDA_SUCCESS;
		if (host && gpu_memory) {
			count = first_host(acc);
			result = CUDA_ERROR_NOT_SUPPORTED;
			if (!count)
				return result;
		}
		a.address = ptr;
		a.size = size;
		a.descs_ptr = reinterpret_cast<uintptr_t>(acc.data());
		a.count = static_cast<__u32>(count);
		int r = driver().ioctl(UVM_IOC_MEM_SET_ACCESS, &a);
		if (r)
			return r == -ENODEV || r == -EINVAL ? CUDA_ERROR_INVALID_VALUE :
			       r == -EOPNOTSUPP		    ? CUDA_ERROR_NOT_SUPPORTED :
							      from_errno(r);
		return result;
	});
}

extern "C" CUresult cuMemGetAccess(unsigned long long *flags, const CUmemLocation *location,
				   CUdeviceptr ptr) noexcept
{
	return guard([&]() -> CUresult {
		Allocation vmm;

		if (CUresult r = check_vmm())
			return r;
		if (!flags || !location)
			return CUDA_ERROR_INVALID_VALUE;
		/* "vmm.getaccess.loctype0", "host_numa_current", "device99". */
		const int proc = accessor(*location);
		if (proc < 0)
			return CUDA_ERROR_INVALID_DEVICE;
		DomainLock lock(kMemoryDomain | kVmmDomain);
		/* Other memory of CUDA: no access of this kind
		 * ("vmm.getaccess.memalloc", "managed"). */
		if (find_allocation(ptr)) {
			*flags = CU_MEM_ACCESS_FLAGS_PROT_NONE;
			return CUDA_SUCCESS;
		}
		if (!vmm_describe(ptr, &vmm))
			return CUDA_ERROR_INVALID_VALUE;
		uint32_t f = vmm_access(vmm, proc);
		/* NVIDIA's driver answers CU_MEM_LOCATION_TYPE_HOST with what
		 * the host or the current device may do ("vmm.getaccess.host",
		 * "vmm.host.cpu.getaccess.after_none.host"); HOST_NUMA is the
		 * host's own. */
		if (location->type == CU_MEM_LOCATION_TYPE_HOST)
			f |= vmm_access(vmm, UVM_PROCESSOR_GPU(current_device()));
		*flags = f;
		return CUDA_SUCCESS;
	});
}

extern "C" CUresult cuMemGetAllocationGranularity(size_t *gran, const CUmemAllocationProp *prop,
						  CUmemAllocationGranularity_flags option) noexcept
{
	return guard([&]() -> CUresult {
		if (CUresult r = check_vmm())
			return r;
		/* The properties are not looked at ("vmm.gran.loctype99",
		 * "type0", "device99": 2 MiB). */
		if (!gran || !prop ||
		    (option != CU_MEM_ALLOC_GRANULARITY_MINIMUM &&
		     option != CU_MEM_ALLOC_GRANULARITY_RECOMMENDED))
			return CUDA_ERROR_INVALID_VALUE;
		*gran = kVmmGranularity;
		return CUDA_SUCCESS;
	});
}

extern "C" CUresult cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp *prop,
							   CUmemGenericAllocationHandle handle) noexcept
{
	return guard([&]() -> CUresult {
		struct uvm_ioc_mem_props p {};

		if (CUresult r = check_vmm())
			return r;
		if (!prop)
			return CUDA_ERROR_INVALID_VALUE;
		p.handle = handle;
		std::lock_guard<std::mutex> lock(vmm_reg().mu);
		if (driver().ioctl(UVM_IOC_MEM_PROPS, &p))
			return CUDA_ERROR_INVALID_VALUE;
		VmmHandle h;
		auto it = vmm_reg().vmm_handles.find(handle);
		if (it != vmm_reg().vmm_handles.end())
			h = it->second;
		*prop = {};
		prop->type = CU_MEM_ALLOCATION_TYPE_PINNED;
		/* An import reports no handle types ("vmm.import.fd.props"). */
		prop->requestedHandleTypes =
			static_cast<CUmemAllocationHandleType>(h.imported ? 0 : p.handle_types);
		if (p.location.type == UVM_LOCATION_GPU) {
			prop->location.type = CU_MEM_LOCATION_TYPE_DEVICE;
			prop->location.id = p.location.id;
		} else {
			/* Host memory is on a node ("vmm.create.host.props"). */
			prop->location.type = CU_MEM_LOCATION_TYPE_HOST_NUMA;
			prop->location.id = p.location.type == UVM_LOCATION_HOST_NUMA ?
					    p.location.id : dev_state().numa_nodes.front();
		}
		prop->allocFlags.compressionType = h.compression;
		prop->allocFlags.gpuDirectRDMACapable = h.rdma;
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

		if (CUresult r = check_vmm())
			return r;
		if (!shareableHandle || flags || handleType != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
			return CUDA_ERROR_INVALID_VALUE;
		std::lock_guard<std::mutex> lock(vmm_reg().mu);
		/* An import is not exported again ("vmm.import.fd.reexport"). */
		auto it = vmm_reg().vmm_handles.find(handle);
		if (it != vmm_reg().vmm_handles.end() && it->second.imported)
			return CUDA_ERROR_INVALID_VALUE;
		e.handle = handle;
		e.handle_type = UVM_MEM_HANDLE_FD;
		if (int r = driver().ioctl(UVM_IOC_MEM_EXPORT, &e))
			return r == -EMFILE || r == -ENFILE ? CUDA_ERROR_OUT_OF_MEMORY :
			       r == -ENOMEM		    ? CUDA_ERROR_OUT_OF_MEMORY :
							      CUDA_ERROR_INVALID_VALUE;
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

		if (CUresult r = check_vmm())
			return r;
		if (!handle)
			return CUDA_ERROR_INVALID_VALUE;
		/* "vmm.import.fabric", "win32": not on this system. */
		if (shHandleType == CU_MEM_HANDLE_TYPE_FABRIC || shHandleType == CU_MEM_HANDLE_TYPE_WIN32 ||
		    shHandleType == CU_MEM_HANDLE_TYPE_WIN32_KMT)
			return CUDA_ERROR_NOT_SUPPORTED;
		if (shHandleType != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
			return CUDA_ERROR_INVALID_VALUE;
		im.fd = static_cast<__s32>(reinterpret_cast<uintptr_t>(osHandle));
		std::lock_guard<std::mutex> lock(vmm_reg().mu);
		if (int r = driver().ioctl(UVM_IOC_MEM_IMPORT, &im))
			/* Any descriptor that is no exported allocation
			 * ("vmm.import.badfd.*"). */
			return r == -ENOMEM || r == -ENOSPC ? CUDA_ERROR_OUT_OF_MEMORY :
							      CUDA_ERROR_UNKNOWN;
		VmmHandle &h = vmm_reg().vmm_handles[im.handle];
		h = {};
		h.imported = true;
		*handle = im.handle;
		return CUDA_SUCCESS;
	});
}

extern "C" CUresult cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *handle,
						void *addr) noexcept
{
	return guard([&]() -> CUresult {
		struct uvm_ioc_mem_query q {};
		uint64_t base;

		if (CUresult r = check_vmm())
			return r;
		if (!handle)
			return CUDA_ERROR_INVALID_VALUE;
		q.address = reinterpret_cast<uintptr_t>(addr);
		q.flags = UVM_MEM_QUERY_RETAIN;
		std::lock_guard<std::mutex> lock(vmm_reg().mu);
		if (!find_reservation(q.address, &base))
			return CUDA_ERROR_INVALID_VALUE;
		if (int r = driver().ioctl(UVM_IOC_MEM_QUERY, &q))
			return r == -ENOSPC ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_ERROR_INVALID_VALUE;
		*handle = q.handle;
		return CUDA_SUCCESS;
	});
}
