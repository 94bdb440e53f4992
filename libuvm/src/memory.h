// SPDX-License-Identifier: MIT
/*
 * memory.h - the memory domain: allocations as CUDA reports them, the
 * library's mappings of /dev/uvm and of pinned host memory (chunks),
 * managed, device and host memory, the CUDA arrays' tables (array.h)
 * (memory.cpp, host.cpp, policy.cpp, array.cpp, symbol.cpp).
 *
 * Locking: MemoryRegistry::mu protects the tables of the registry, every
 * Allocation and Chunk in them, the managed VA arena (memory.cpp) and the
 * tables of CUDA arrays (array.h).  It is held across the short ioctls on
 * that memory (ADVISE, MIGRATE submission, RANGE_QUERY, POINTER_INFO,
 * HOST_(UN)REGISTER, mmap/munmap) so that an allocation cannot disappear
 * under a call using it, and never across a blocking wait.  Order
 * (common.h): after ContextRegistry::mu, before VmmRegistry::mu; a call
 * that needs either with it takes them through one DomainLock.
 */
#ifndef LIBUVM_MEMORY_H
#define LIBUVM_MEMORY_H

#include <map>
#include <mutex>

#include "common.h"

namespace uvm {

struct Context;

/* Managed allocations are mapped in whole VA blocks of the driver. */
constexpr uint64_t kMappingGranule = UVM_VA_BLOCK_SIZE;
/* Device memory and page-locked host memory come in chunks of this size;
 * smaller requests share one (tests/real-driver/results/probe_copy.txt,
 * "cp.place.*", "cp.pa.host1000.18"). */
constexpr uint64_t kChunkSize = 2ULL << 20;
/* Sub-allocations start at multiples of this ("cp.place.*": 512). */
constexpr uint64_t kSubAllocAlign = 512;

/* A location as the caller gave it (the last-prefetch shadow keeps them). */
struct Loc {
	int type = CU_MEM_LOCATION_TYPE_INVALID;
	int id = 0;
	bool operator==(const Loc &o) const { return type == o.type && id == o.id; }
};

/**
 * class IntervalMap - page ranges -> Loc; assigning splits and merges.
 */
class IntervalMap {
public:
	void assign(uint64_t start, uint64_t end, Loc loc);
	/* The Loc covering all of [start, end) or type INVALID if not uniform. */
	Loc uniform(uint64_t start, uint64_t end) const;

private:
	struct Seg {
		uint64_t end;
		Loc loc;
	};
	std::map<uint64_t, Seg> segs_;	/* start -> segment */
};

/* The kinds of memory the library hands out or knows. */
enum class Kind {
	managed,	/* cuMemAllocManaged: an mmap of /dev/uvm */
	device,		/* cuMemAlloc: a device mmap of /dev/uvm */
	host,		/* cuMemAllocHost/cuMemHostAlloc: pinned anonymous memory */
	registered,	/* cuMemHostRegister: the caller's memory, pinned */
	vmm,		/* cuMemMap: a mapping in a reservation; never in the
			 * table, described by the driver (vmm_describe()) */
};

/**
 * struct Chunk - one mapping the library made: a managed range, a device
 * range, or a pinned host range (anonymous memory registered whole).
 * Device and host chunks of kChunkSize are shared by sub-allocations; the
 * others belong to one allocation.
 */
struct Chunk {
	uint64_t base = 0;
	uint64_t size = 0;
	Kind kind = Kind::managed;
	int gpu = 0;			/* device chunks: the GPU */
	bool shared = false;		/* sub-allocated */
	uint64_t block_id = 0;		/* the driver's buffer id of the mapping */
	std::map<uint64_t, uint64_t> used;	/* sub-allocations: start -> bytes */
};

/**
 * struct Allocation - one allocation as CUDA reports it.
 */
struct Allocation {
	uint64_t base = 0;		/* what the caller got */
	uint64_t size = 0;		/* what the caller asked for */
	uint64_t map_base = 0;		/* MAPPING_BASE_ADDR */
	uint64_t map_size = 0;		/* MAPPING_SIZE */
	uint64_t buffer_id = 0;		/* unique per allocation, never reused */
	uint64_t block_id = 0;		/* MEMORY_BLOCK_ID: the driver's id of the mapping */
	Kind kind = Kind::managed;
	int device = 0;			/* device memory: its GPU; else the context's */
	unsigned int host_flags = 0;	/* host, registered: cuMemHostGetFlags */
	bool read_only = false;		/* registered READ_ONLY */
	Chunk *chunk = nullptr;		/* the mapping; registered memory: none */
	Context *ctx = nullptr;		/* the owner (a handle: only compared here) */
	bool sync_memops = true;	/* managed memory starts with it set */
	bool internal = false;		/* the library's own: a device variable's
					 * instance (symbol.cpp), a CUDA array's
					 * storage (array.cpp); freed with its owner
					 * or its context, never by cuMemFree */
	IntervalMap last_prefetch;	/* the locations prefetches named */
	/* VMM memory: what UVM_IOC_MEM_QUERY says about the pointer. */
	uint32_t handle_types = 0;	/* ALLOWED_HANDLE_TYPES */
	uint64_t read_mask = 0;		/* UVM_PROCESSOR_MASK bits */
	uint64_t write_mask = 0;
	struct uvm_location location {};	/* where the memory lives */
	uint64_t res_base = 0;		/* RANGE_START_ADDR: the reservation */
	uint64_t res_size = 0;		/* RANGE_SIZE */
};

/**
 * struct MemoryRegistry - the memory the library handed out
 * @mu:			protects all of it (Locking above)
 * @allocations:	base -> allocation
 * @chunks:		base -> mapping of the library
 * @next_buffer_id:	the last buffer id handed out
 */
struct MemoryRegistry {
	std::mutex mu;
	std::map<uint64_t, Allocation> allocations;
	std::map<uint64_t, Chunk> chunks;
	uint64_t next_buffer_id = 0;
};
MemoryRegistry &mem_reg();

/* Allocation lookup, MemoryRegistry::mu held: the allocation containing
 * ptr. */
Allocation *find_allocation(uint64_t ptr);
/* Does [ptr, ptr + len) touch any allocation, mapping or reservation of the
 * library?  MemoryRegistry::mu and VmmRegistry::mu held. */
bool touches_library_memory(uint64_t ptr, uint64_t len);

/* Range checks against a managed allocation (MemoryRegistry::mu held). */
enum class RangeKind { ok, empty, invalid };
RangeKind check_range(uint64_t ptr, uint64_t count, Allocation **alloc);

/* MemoryRegistry::mu held for all of these.  map_uvm(): map /dev/uvm at
 * offset (managed or UVM_MMAP_DEVICE(gpu)) in whole VA blocks; 0 or
 * -errno. */
int map_uvm(uint64_t offset, uint64_t map_size, uint64_t *out);
/* Record a new chunk and an allocation in it. */
Chunk *add_chunk(const Chunk &c);
Allocation &add_allocation(uint64_t base, uint64_t size, Kind kind, Chunk *chunk, Context *ctx);
/* Sub-allocate size bytes from the shared chunks of a kind (and GPU):
 * the lowest free place of kSubAllocAlign, or 0 when none has room. */
uint64_t sub_allocate(Kind kind, int gpu, uint64_t size, Chunk **chunk);
/* Device memory of a GPU owned by ctx, as cuMemAlloc places it; 0 or
 * -errno (-ENOMEM: the GPU cannot back it). */
int alloc_device(int gpu, uint64_t size, Context *ctx, uint64_t *out);
/* Unmap and forget an allocation. */
void free_allocation(std::map<uint64_t, Allocation>::iterator it);
/* Release a chunk: its mapping and, for host chunks, the registration. */
void release_chunk(Chunk *c);

/* The CUdevice forms of CUDA 12 (policy.cpp), exported by legacy.cpp. */
CUresult legacy_advise(CUdeviceptr devPtr, size_t count, CUmem_advise advice,
		       CUdevice device) noexcept;
CUresult legacy_prefetch_async(CUdeviceptr devPtr, size_t count, CUdevice dstDevice,
			       CUstream hStream, bool ptds) noexcept;

} // namespace uvm

#endif /* LIBUVM_MEMORY_H */
