// SPDX-License-Identifier: MIT
/*
 * memory.cpp - the allocation table, the library's mappings (chunks),
 * managed and device allocations, cuMemFree, cuMemGetAddressRange,
 * cuMemGetInfo.
 *
 * cuMemAllocManaged maps /dev/uvm (the driver's managed memory) in whole
 * 2 MiB VA blocks, aligned to a block: the caller's bytes start the mapping
 * and the rest of the last block is never handed out.  The table keeps what
 * CUDA reports: the requested size bounds every range check
 * (cuMemGetAddressRange, the pointer attributes, advise/prefetch ranges,
 * copies), as NVIDIA's driver bounds them (probe_advise.txt, "small.*";
 * probe_copy.txt, "cp.straddle.*"); the mapped size is
 * CU_POINTER_ATTRIBUTE_MAPPING_SIZE.
 *
 * cuMemAlloc maps device memory (mmap of /dev/uvm at UVM_MMAP_DEVICE(gpu)),
 * which the driver backs in whole 2 MiB chunks of vidmem.  As NVIDIA's
 * driver does (probe_copy.txt, "cp.place.*", "cp.pa.dev1000.*"), requests
 * below 2 MiB share 2 MiB device chunks: each starts at the lowest free
 * multiple of 512 bytes of the lowest chunk with room, so cuMemAlloc(1)
 * costs 512 bytes, not a chunk; larger requests get their own mapping in
 * whole 2 MiB.  A chunk goes back to the driver when its last allocation is
 * freed.  Every allocation gets its own buffer id; MEMORY_BLOCK_ID is the
 * driver's id of the chunk (shared by the allocations in it, as NVIDIA's
 * "cp.blockid.small_differ" is).
 */
#include <algorithm>
#include <cerrno>
#include <sys/mman.h>

#include "context.h"
#include "device.h"
#include "memory.h"
#include "vmm.h"

namespace uvm {

MemoryRegistry &mem_reg()
{
	/* Never destroyed: other libraries' destructors may still call us. */
	static MemoryRegistry *r = new MemoryRegistry;
	return *r;
}

Allocation *find_allocation(uint64_t ptr)
{
	auto &t = mem_reg().allocations;
	auto it = t.upper_bound(ptr);

	if (it == t.begin())
		return nullptr;
	--it;
	Allocation &a = it->second;
	return ptr - a.base < a.size ? &a : nullptr;
}

/* Does [ptr, ptr + len) intersect a map of [start, start + size) records? */
template <typename M>
static bool intersects(const M &m, uint64_t ptr, uint64_t len)
{
	auto it = m.lower_bound(ptr + len);

	if (it == m.begin())
		return false;
	--it;
	return it->second.base + it->second.size > ptr;
}

bool touches_library_memory(uint64_t ptr, uint64_t len)
{
	const MemoryRegistry &m = mem_reg();
	const auto &reservations = vmm_reg().reservations;

	if (intersects(m.allocations, ptr, len) || intersects(m.chunks, ptr, len))
		return true;
	auto it = reservations.lower_bound(ptr + len);
	if (it == reservations.begin())
		return false;
	--it;
	return it->first + it->second.size > ptr;
}

bool driver_has_memory_api()
{
	return driver().version.minor >= 2;
}

bool driver_has_copy_3d()
{
	return driver().version.caps & UVM_CAP_COPY_3D;
}

bool pageable_memory_access()
{
	return driver().version.caps & (UVM_CAP_HMM_MIRROR | UVM_CAP_DEVICE_PRIVATE);
}

/**
 * check_range() - a byte range of one managed allocation
 * @ptr:	first byte (not 0)
 * @count:	bytes (not 0)
 * @alloc:	out: the allocation
 *
 * Device and host memory are not managed: advice, prefetches, discards and
 * range attributes refuse them (probe_devmem.txt "dm.advise", "dm.prefetch",
 * "dm.rangeattr", "dm.discard", "dm.allochost.advise").
 *
 * A range that wraps around the address space is "empty": NVIDIA's driver
 * accepts it as a no-op in prefetches and answers range queries for it as
 * for no pages at all (probe_prefetch.txt "r2.wrap*", probe_rangeattr.txt
 * "ra.wrap*"); cuMemAdvise refuses it.
 *
 * Context: MemoryRegistry::mu held.
 * Return: ok, empty or invalid (not inside one allocation).
 */
RangeKind check_range(uint64_t ptr, uint64_t count, Allocation **alloc)
{
	Allocation *a = find_allocation(ptr);
	uint64_t end = ptr + count;

	if (!a || a->kind != Kind::managed)
		return RangeKind::invalid;
	*alloc = a;
	if (end < ptr || end == 0)
		return RangeKind::empty;
	return end - a->base <= a->size ? RangeKind::ok : RangeKind::invalid;
}

/*
 * class VaArena - where managed allocations go.
 *
 * Like NVIDIA's driver, which sub-allocates reserved address space, libuvm
 * reserves one large PROT_NONE region at the first allocation and places
 * allocations in it first-fit, in whole VA blocks: consecutive allocations
 * are adjacent and increasing, and a freed range is reused
 * (probe_advise.txt "env.adjacent", probe_mem.txt "env.bid.same_address").
 * A freed range is reserved again (PROT_NONE) so that nothing else lands in
 * the arena.  When the arena is full, allocations get their own aligned
 * reservation.  MemoryRegistry::mu protects it.
 */
class VaArena {
public:
	/* An aligned range of len bytes, still reserved, or 0. */
	uint64_t take(uint64_t len)
	{
		if (!reserve())
			return 0;
		for (auto it = free_.begin(); it != free_.end(); ++it) {
			if (it->second < len)
				continue;
			uint64_t addr = it->first, rest = it->second - len;

			free_.erase(it);
			if (rest)
				free_[addr + len] = rest;
			return addr;
		}
		return 0;
	}

	/* Return a range: reserve it again and merge it with its neighbours. */
	void give(uint64_t addr, uint64_t len)
	{
		::mmap(reinterpret_cast<void *>(addr), len, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
		auto next = free_.find(addr + len);
		if (next != free_.end()) {
			len += next->second;
			free_.erase(next);
		}
		auto it = free_.lower_bound(addr);
		if (it != free_.begin()) {
			auto prev = std::prev(it);
			if (prev->first + prev->second == addr) {
				prev->second += len;
				return;
			}
		}
		free_[addr] = len;
	}

	bool contains(uint64_t addr) const { return addr >= base_ && addr - base_ < size_; }

private:
	bool reserve()
	{
		if (tried_)
			return base_ != 0;
		tried_ = true;
		const uint64_t align = kMappingGranule;
		void *r = ::mmap(nullptr, kArenaSize + align, PROT_NONE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (r == MAP_FAILED)
			return false;
		uint64_t start = reinterpret_cast<uint64_t>(r);
		base_ = round_up(start, align);
		size_ = kArenaSize;
		if (base_ > start)
			::munmap(r, base_ - start);
		::munmap(reinterpret_cast<void *>(base_ + size_), start + align - base_);
		free_[base_] = size_;
		return true;
	}

	static constexpr uint64_t kArenaSize = 256ULL << 30;
	uint64_t base_ = 0, size_ = 0;
	bool tried_ = false;
	std::map<uint64_t, uint64_t> free_;	/* start -> length */
};

static VaArena &arena()
{
	static VaArena *a = new VaArena;
	return *a;
}

/* An allocation outside the arena: its own aligned reservation. */
static int map_alone(uint64_t offset, int prot, uint64_t map_size, uint64_t *out)
{
	const uint64_t align = kMappingGranule;
	void *res = ::mmap(nullptr, map_size + align, PROT_NONE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (res == MAP_FAILED)
		return -errno;
	uint64_t r = reinterpret_cast<uint64_t>(res);
	uint64_t base = round_up(r, align);
	void *p = ::mmap(reinterpret_cast<void *>(base), map_size, prot,
			 MAP_SHARED | MAP_FIXED, driver().fd(), static_cast<off_t>(offset));
	if (p == MAP_FAILED) {
		int e = -errno;
		::munmap(res, map_size + align);
		return e;
	}
	if (base > r)
		::munmap(res, base - r);
	::munmap(reinterpret_cast<void *>(base + map_size), r + align - base);
	*out = base;
	return 0;
}

/* Forget registrations the driver dropped: a mapping of /dev/uvm landed on
 * memory registered, then unmapped, by the caller.  MemoryRegistry::mu held. */
static void drop_stale_registrations(uint64_t base, uint64_t len)
{
	auto &t = mem_reg().allocations;

	for (auto it = t.lower_bound(base); it != t.end() && it->first < base + len;)
		it = it->second.kind == Kind::registered ? t.erase(it) : std::next(it);
	auto it = t.lower_bound(base);
	if (it != t.begin()) {
		--it;
		if (it->second.kind == Kind::registered && it->first + it->second.size > base)
			t.erase(it);
	}
}

/**
 * map_uvm() - mmap /dev/uvm in whole VA blocks
 * @offset:	UVM_MMAP_MANAGED or UVM_MMAP_DEVICE(gpu)
 * @map_size:	bytes, a multiple of kMappingGranule
 * @out:	the address
 *
 * Managed memory is mapped read-write, device memory PROT_NONE (the CPU
 * cannot reach it).  A device mapping that cannot be backed fails at once
 * with -ENOMEM, whatever the arena.
 *
 * Context: MemoryRegistry::mu held.
 * Return: 0 or -errno.
 */
int map_uvm(uint64_t offset, uint64_t map_size, uint64_t *out)
{
	const int prot = offset == UVM_MMAP_MANAGED ? PROT_READ | PROT_WRITE : PROT_NONE;
	uint64_t addr = arena().take(map_size);

	if (addr) {
		void *p = ::mmap(reinterpret_cast<void *>(addr), map_size, prot,
				 MAP_SHARED | MAP_FIXED, driver().fd(), static_cast<off_t>(offset));

		if (p != MAP_FAILED) {
			*out = addr;
			return 0;
		}
		int e = -errno;
		arena().give(addr, map_size);
		if (e != -ENOMEM || offset != UVM_MMAP_MANAGED)
			return e;
	}
	int e = map_alone(offset, prot, map_size, out);
	if (!e)
		drop_stale_registrations(*out, map_size);
	return e;
}

/* Unmap a mapping of /dev/uvm made by map_uvm().  MemoryRegistry::mu held. */
static void unmap_uvm(uint64_t base, uint64_t size)
{
	if (arena().contains(base))
		arena().give(base, size);	/* unmaps the driver's range */
	else
		::munmap(reinterpret_cast<void *>(base), size);
}

Chunk *add_chunk(const Chunk &c)
{
	Chunk &n = mem_reg().chunks[c.base];

	n = c;
	return &n;
}

/**
 * add_allocation() - record an allocation
 * @base:	its first byte
 * @size:	the bytes asked for
 * @kind:	its kind
 * @chunk:	the chunk it lives in (registered memory: nullptr)
 * @ctx:	the context that owns it
 *
 * Context: MemoryRegistry::mu held.
 * Return: the new entry, with a new buffer id.
 */
Allocation &add_allocation(uint64_t base, uint64_t size, Kind kind, Chunk *chunk, Context *ctx)
{
	Allocation &a = mem_reg().allocations[base];

	a.base = base;
	a.size = size;
	a.kind = kind;
	a.chunk = chunk;
	a.ctx = ctx;
	a.device = kind == Kind::device ? chunk->gpu : ctx->device;
	a.buffer_id = ++mem_reg().next_buffer_id;
	a.sync_memops = kind == Kind::managed;
	if (chunk) {
		a.map_base = chunk->base;
		a.map_size = chunk->size;
		a.block_id = chunk->block_id;
	}
	return a;
}

/**
 * sub_allocate() - a place in a shared chunk
 * @kind:	Kind::device or Kind::host
 * @gpu:	device chunks: the GPU
 * @size:	bytes, below kChunkSize
 * @chunk:	out: the chunk
 *
 * First fit in address order, at multiples of kSubAllocAlign: the layout
 * NVIDIA's driver gives a sequence of small cuMemAlloc calls.
 *
 * Context: MemoryRegistry::mu held.
 * Return: the address, or 0 when no shared chunk has room.
 */
uint64_t sub_allocate(Kind kind, int gpu, uint64_t size, Chunk **chunk)
{
	const uint64_t len = round_up(size, kSubAllocAlign);

	for (auto &[base, c] : mem_reg().chunks) {
		if (!c.shared || c.kind != kind || (kind == Kind::device && c.gpu != gpu))
			continue;
		uint64_t at = c.base;
		for (const auto &[start, bytes] : c.used) {
			if (start - at >= len)
				break;
			at = start + bytes;
		}
		if (c.base + c.size - at < len)
			continue;
		c.used[at] = len;
		*chunk = &c;
		return at;
	}
	return 0;
}

/**
 * release_chunk() - give a chunk's mapping back
 * @c:	the chunk, no allocation left in it
 *
 * Host chunks are unregistered first.
 *
 * Context: MemoryRegistry::mu held.
 */
void release_chunk(Chunk *c)
{
	if (c->kind == Kind::host) {
		struct uvm_ioc_host_unregister u {};

		u.address = c->base;
		driver().ioctl(UVM_IOC_HOST_UNREGISTER, &u);
		::munmap(reinterpret_cast<void *>(c->base), c->size);
	} else {
		unmap_uvm(c->base, c->size);
	}
	mem_reg().chunks.erase(c->base);
}

/**
 * free_allocation() - unmap an allocation and forget it
 * @it:		its table entry
 *
 * The driver drops a managed range's residency, mappings and advice on
 * munmap.  A sub-allocation leaves its chunk, which goes when it is empty;
 * registered memory is unregistered (the caller's memory stays).
 *
 * Context: MemoryRegistry::mu held; queued work was waited for.
 */
void free_allocation(std::map<uint64_t, Allocation>::iterator it)
{
	Allocation &a = it->second;
	Chunk *c = a.chunk;

	if (a.kind == Kind::registered) {
		struct uvm_ioc_host_unregister u {};

		u.address = a.base;
		driver().ioctl(UVM_IOC_HOST_UNREGISTER, &u);
	} else {
		c->used.erase(a.base);
		if (c->used.empty())
			release_chunk(c);
	}
	mem_reg().allocations.erase(it);
}

/**
 * new_uvm_chunk() - map a chunk of /dev/uvm
 * @offset:	UVM_MMAP_MANAGED or UVM_MMAP_DEVICE(gpu)
 * @map_size:	bytes, a multiple of kMappingGranule
 * @kind:	Kind::managed or Kind::device
 * @gpu:	device memory: the GPU
 * @shared:	for sub-allocations
 * @out:	the chunk, with the driver's buffer id
 *
 * Context: MemoryRegistry::mu held.
 * Return: 0 or -errno.
 */
static int new_uvm_chunk(uint64_t offset, uint64_t map_size, Kind kind, int gpu, bool shared,
			 Chunk **out)
{
	struct uvm_ioc_pointer_info info {};
	Chunk c;

	if (int r = map_uvm(offset, map_size, &c.base))
		return r;
	info.address = c.base;
	if (int r = driver().ioctl(UVM_IOC_POINTER_INFO, &info)) {
		unmap_uvm(c.base, map_size);
		return r;
	}
	c.size = map_size;
	c.kind = kind;
	c.gpu = gpu;
	c.shared = shared;
	c.block_id = info.buffer_id;
	*out = add_chunk(c);
	return 0;
}

/**
 * alloc_mapping() - a whole chunk of its own for one allocation
 * @offset:	UVM_MMAP_MANAGED or UVM_MMAP_DEVICE(gpu)
 * @size:	bytes asked for
 * @kind:	Kind::managed or Kind::device
 * @gpu:	device memory: the GPU
 * @ctx:	the owner
 * @out:	the address
 *
 * Context: MemoryRegistry::mu held.
 * Return: 0 or -errno.
 */
static int alloc_mapping(uint64_t offset, uint64_t size, Kind kind, int gpu, Context *ctx,
			 uint64_t *out)
{
	const uint64_t map_size = round_up(size, kMappingGranule);
	Chunk *chunk;

	if (map_size < size)
		return -ENOMEM;
	if (int r = new_uvm_chunk(offset, map_size, kind, gpu, false, &chunk))
		return r;
	chunk->used[chunk->base] = map_size;
	add_allocation(chunk->base, size, kind, chunk, ctx);
	*out = chunk->base;
	return 0;
}

/**
 * alloc_device() - device memory of a GPU
 * @gpu:	the GPU
 * @size:	bytes, > 0
 * @ctx:	the owner
 * @out:	the address
 *
 * Context: MemoryRegistry::mu held.
 * Return: 0 or -errno (-ENOMEM: the GPU cannot back it).
 */
int alloc_device(int gpu, uint64_t size, Context *ctx, uint64_t *out)
{
	const uint64_t offset = UVM_MMAP_DEVICE(gpu);
	Chunk *chunk;

	if (size >= kChunkSize)
		return alloc_mapping(offset, size, Kind::device, gpu, ctx, out);
	uint64_t p = sub_allocate(Kind::device, gpu, size, &chunk);
	if (!p) {
		if (int r = new_uvm_chunk(offset, kChunkSize, Kind::device, gpu, true, &chunk))
			return r;
		p = chunk->base;
		chunk->used[p] = round_up(size, kSubAllocAlign);
	}
	add_allocation(p, size, Kind::device, chunk, ctx);
	*out = p;
	return 0;
}

} // namespace uvm

using namespace uvm;

extern "C" CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags) noexcept
{
	return guard([&]() -> CUresult {
		Context *ctx;
		uint64_t base = 0;

		if (CUresult r = current_context(&ctx))
			return r;
		if (!dptr || !bytesize ||
		    (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST))
			return CUDA_ERROR_INVALID_VALUE;

		std::lock_guard<std::mutex> lock(mem_reg().mu);
		int r = alloc_mapping(UVM_MMAP_MANAGED, bytesize, Kind::managed, ctx->device, ctx,
				      &base);
		if (r)
			return r == -EINVAL ? CUDA_ERROR_OUT_OF_MEMORY : from_errno(r);
		*dptr = base;
		return CUDA_SUCCESS;
	});
}

extern "C" CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize) noexcept
{
	return guard([&]() -> CUresult {
		Context *ctx;
		uint64_t base = 0;

		if (CUresult r = current_context(&ctx))
			return r;
		if (!dptr || !bytesize)
			return CUDA_ERROR_INVALID_VALUE;
		if (!driver_has_memory_api())
			return CUDA_ERROR_NOT_SUPPORTED;
		std::lock_guard<std::mutex> lock(mem_reg().mu);
		int r = alloc_device(ctx->device, bytesize, ctx, &base);
		if (r)
			return r == -EINVAL ? CUDA_ERROR_OUT_OF_MEMORY : from_errno(r);
		*dptr = base;
		return CUDA_SUCCESS;
	});
}

extern "C" CUresult cuMemFree_v2(CUdeviceptr dptr) noexcept
{
	return guard([&]() -> CUresult {
		Context *ctx;

		if (CUresult r = check_init())
			return r;
		if (!dptr)
			return CUDA_SUCCESS;
		if (CUresult r = current_context(&ctx))
			return r;
		/* Managed and device memory only: host memory has its own
		 * calls (probe_devmem.txt "dm.memfree.host"); the library's
		 * own memory (a device variable's instance, an array's
		 * storage) goes with its owner. */
		auto freeable = [dptr]() {
			auto it = mem_reg().allocations.find(dptr);
			return it != mem_reg().allocations.end() && !it->second.internal &&
			       (it->second.kind == Kind::managed || it->second.kind == Kind::device);
		};
		{
			std::lock_guard<std::mutex> lock(mem_reg().mu);
			if (!freeable())
				return CUDA_ERROR_INVALID_VALUE;
		}
		/* Queued work on the memory finishes first: cuMemFree
		 * synchronises for memory that is not stream ordered. */
		wait_all();
		std::lock_guard<std::mutex> lock(mem_reg().mu);
		if (!freeable())
			return CUDA_ERROR_INVALID_VALUE;
		free_allocation(mem_reg().allocations.find(dptr));
		return CUDA_SUCCESS;
	});
}

extern "C" CUresult cuMemGetAddressRange_v2(CUdeviceptr *pbase, size_t *psize,
					    CUdeviceptr dptr) noexcept
{
	if (CUresult r = check_init())
		return r;
	/* With nowhere to write, NVIDIA's driver does not even look. */
	if (!pbase && !psize)
		return CUDA_SUCCESS;
	DomainLock lock(kMemoryDomain | kVmmDomain);
	Allocation vmm;
	Allocation *a = find_allocation(dptr);
	if (!a && vmm_describe(dptr, &vmm)) {
		/* VMM memory: the mapping holding dptr; NVIDIA's driver gives
		 * host-located memory no base ("vmm.pa.addressrange.host"). */
		a = &vmm;
		if (vmm.location.type != UVM_LOCATION_GPU)
			vmm.base = 0;
	}
	if (!a)
		return CUDA_ERROR_NOT_FOUND;
	if (pbase)
		*pbase = a->base;
	if (psize)
		*psize = a->size;
	return CUDA_SUCCESS;
}

extern "C" CUresult cuMemGetInfo_v2(size_t *free, size_t *total) noexcept
{
	Context *ctx;

	if (CUresult r = current_context(&ctx))
		return r;
	struct uvm_ioc_gpu_info info {};
	info.gpu_index = static_cast<__u32>(ctx->device);
	int r = driver().ioctl(UVM_IOC_GPU_INFO, &info);
	if (r)
		return from_errno(r);
	if (free)
		*free = info.vidmem_size - std::min(info.vidmem_used, info.vidmem_size);
	if (total)
		*total = info.vidmem_size;
	return CUDA_SUCCESS;
}
