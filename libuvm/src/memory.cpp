// SPDX-License-Identifier: MIT
/*
 * memory.cpp - managed allocations and the allocation table.
 *
 * cuMemAllocManaged maps /dev/uvm (the driver's managed memory) in whole
 * 2 MiB VA blocks, aligned to a block: the caller's bytes start the mapping
 * and the rest of the last block is never handed out.  The table keeps what
 * CUDA reports: the requested size bounds every range check
 * (cuMemGetAddressRange, the pointer attributes, advise/prefetch ranges), as
 * NVIDIA's driver bounds them (probe_advise.txt, "small.*"); the mapped size
 * is CU_POINTER_ATTRIBUTE_MAPPING_SIZE.
 */
#include <algorithm>
#include <cerrno>
#include <sys/mman.h>

#include "internal.h"

namespace uvm {

Allocation *find_allocation(uint64_t ptr)
{
	auto &t = state().allocations;
	auto it = t.upper_bound(ptr);

	if (it == t.begin())
		return nullptr;
	--it;
	Allocation &a = it->second;
	return ptr - a.base < a.size ? &a : nullptr;
}

/**
 * check_range() - a byte range of one managed allocation
 * @ptr:	first byte (not 0)
 * @count:	bytes (not 0)
 * @alloc:	out: the allocation
 *
 * A range that wraps around the address space is "empty": NVIDIA's driver
 * accepts it as a no-op in prefetches and answers range queries for it as
 * for no pages at all (probe_prefetch.txt "r2.wrap*", probe_rangeattr.txt
 * "ra.wrap*"); cuMemAdvise refuses it.
 *
 * Context: State::mu held.
 * Return: ok, empty or invalid (not inside one allocation).
 */
RangeKind check_range(uint64_t ptr, uint64_t count, Allocation **alloc)
{
	Allocation *a = find_allocation(ptr);
	uint64_t end = ptr + count;

	if (!a)
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
 * reservation.  State::mu protects it.
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
static int map_alone(uint64_t map_size, uint64_t *out)
{
	const uint64_t align = kMappingGranule;
	void *res = ::mmap(nullptr, map_size + align, PROT_NONE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (res == MAP_FAILED)
		return -errno;
	uint64_t r = reinterpret_cast<uint64_t>(res);
	uint64_t base = round_up(r, align);
	void *p = ::mmap(reinterpret_cast<void *>(base), map_size, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_FIXED, state().dev.fd(), 0);
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

/* mmap the driver's managed memory in whole VA blocks.  State::mu held.
 * 0 or -errno. */
static int map_managed(uint64_t map_size, uint64_t *out)
{
	uint64_t addr = arena().take(map_size);

	if (addr) {
		void *p = ::mmap(reinterpret_cast<void *>(addr), map_size, PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_FIXED, state().dev.fd(), 0);

		if (p != MAP_FAILED) {
			*out = addr;
			return 0;
		}
		int e = -errno;
		arena().give(addr, map_size);
		if (e != -ENOMEM)
			return e;
	}
	return map_alone(map_size, out);
}

/**
 * free_allocation() - unmap an allocation and forget it
 * @it:		its table entry
 *
 * The driver drops the range's residency, mappings and advice on munmap.
 *
 * Context: State::mu held; queued batches were waited for.
 */
void free_allocation(std::map<uint64_t, Allocation>::iterator it)
{
	const Allocation &a = it->second;

	if (arena().contains(a.base))
		arena().give(a.base, a.map_size);	/* unmaps the driver's range */
	else
		::munmap(reinterpret_cast<void *>(a.base), a.map_size);
	state().allocations.erase(it);
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
		uint64_t map_size = round_up(bytesize, kMappingGranule);
		if (map_size < bytesize)
			return CUDA_ERROR_OUT_OF_MEMORY;

		std::lock_guard<std::mutex> lock(state().mu);
		int r = map_managed(map_size, &base);
		if (r)
			return r == -EINVAL ? CUDA_ERROR_OUT_OF_MEMORY : from_errno(r);
		struct uvm_ioc_pointer_info info {};
		info.address = base;
		r = state().dev.ioctl(UVM_IOC_POINTER_INFO, &info);
		Allocation &a = state().allocations[base];
		a.base = base;
		a.map_size = map_size;
		if (r) {
			free_allocation(state().allocations.find(base));
			return from_errno(r);
		}
		a.size = bytesize;
		a.buffer_id = info.buffer_id;
		a.ctx = ctx;
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
		{
			std::lock_guard<std::mutex> lock(state().mu);
			if (!state().allocations.count(dptr))
				return CUDA_ERROR_INVALID_VALUE;
		}
		/* Queued prefetches of the range finish first: cuMemFree
		 * synchronises for memory that is not stream ordered. */
		wait_all();
		std::lock_guard<std::mutex> lock(state().mu);
		auto it = state().allocations.find(dptr);
		if (it == state().allocations.end())
			return CUDA_ERROR_INVALID_VALUE;
		free_allocation(it);
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
	std::lock_guard<std::mutex> lock(state().mu);
	Allocation *a = find_allocation(dptr);
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
	int r = state().dev.ioctl(UVM_IOC_GPU_INFO, &info);
	if (r)
		return from_errno(r);
	if (free)
		*free = info.vidmem_size - std::min(info.vidmem_used, info.vidmem_size);
	if (total)
		*total = info.vidmem_size;
	return CUDA_SUCCESS;
}
