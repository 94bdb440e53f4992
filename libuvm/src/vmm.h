// SPDX-License-Identifier: MIT
/*
 * vmm.h - the VMM domain: address reservations, what libuvm keeps of VMM
 * handles, tile pools (vmm.cpp; sparse.cpp maps tiles of the pools).
 *
 * Locking: VmmRegistry::mu protects the registry's tables, every
 * VmmHandle in them, and the making and destruction of TilePools (the
 * last reference to a pool must be dropped with it held: ~TilePool()
 * unmaps the pool and forgets its reservation).  It is held across the
 * MEM_* ioctls and the mmap/munmap of reservations.  It is the last of the
 * domain locks (common.h): a call that also needs contexts or allocations
 * takes them before it, through a DomainLock.
 */
#ifndef LIBUVM_VMM_H
#define LIBUVM_VMM_H

#include <map>
#include <memory>
#include <mutex>

#include "common.h"
#include "memory.h"

namespace uvm {

/* Virtual memory management: the size, offset and address unit of
 * physical allocations and mappings, and the default alignment of
 * reservations (cuMemGetAllocationGranularity). */
constexpr uint64_t kVmmGranularity = UVM_MEM_GRANULARITY;

/* The uapi's VMM values are CUDA's. */
static_assert(UVM_MEM_HANDLE_FD == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
static_assert(UVM_MEM_PROT_READ == CU_MEM_ACCESS_FLAGS_PROT_READ);
static_assert(UVM_MEM_PROT_READ_WRITE == CU_MEM_ACCESS_FLAGS_PROT_READWRITE);

/**
 * struct Reservation - an address reservation (cuMemAddressReserve): an
 * mmap of /dev/uvm at UVM_MMAP_RESERVE.  libuvm knows where its
 * reservations are (copies, pointer attributes, host registration must
 * tell them from other memory without an ioctl); what is mapped there, and
 * how, is the driver's to say (UVM_IOC_MEM_QUERY).
 */
struct Reservation {
	uint64_t size = 0;
};

struct TilePool;

/**
 * struct VmmHandle - what CUDA reports of a VMM handle that the driver does
 * not keep: the allocation flags it was created with, and whether it came
 * from an import (NVIDIA's driver reports no handle types for those and
 * refuses to export them again).  Forgotten with the handle's last
 * reference.
 */
struct VmmHandle {
	bool imported = false;
	unsigned char compression = 0;	/* CUmemAllocationProp.allocFlags */
	unsigned char rdma = 0;
	std::shared_ptr<TilePool> pool;	/* CU_MEM_CREATE_USAGE_TILE_POOL */
};

/**
 * struct TilePool - a tile pool (cuMemCreate with
 * CU_MEM_CREATE_USAGE_TILE_POOL) as libuvm reaches it: the allocation
 * mapped whole at @va, a reservation of libuvm's own, readable and
 * writable by its GPU (by every GPU for a pool of host memory).  Sparse
 * arrays' tiles and mapped deferred-mapping arrays hold it, so that its
 * memory outlives cuMemRelease while they are mapped (as NVIDIA's:
 * "sp.def.after_release"); the last one unmaps it.  Made and destroyed
 * under VmmRegistry::mu (vmm.cpp).
 */
struct TilePool {
	uint64_t va = 0;
	uint64_t size = 0;
	int device = 0;			/* -1: host memory, for any GPU */

	TilePool() = default;
	TilePool(const TilePool &) = delete;
	TilePool &operator=(const TilePool &) = delete;
	~TilePool();
};

/**
 * struct VmmRegistry - the VMM state libuvm keeps
 * @mu:			protects all of it (Locking above)
 * @reservations:	cuMemAddressReserve (and tile pools): base ->
 * @vmm_handles:	live VMM handles of libuvm
 */
struct VmmRegistry {
	std::mutex mu;
	std::map<uint64_t, Reservation> reservations;
	std::map<uint64_t, VmmHandle> vmm_handles;
};
VmmRegistry &vmm_reg();

/* The tile pool of a live handle (VmmRegistry::mu held), or nullptr. */
std::shared_ptr<TilePool> find_tile_pool(uint64_t handle);
/* The reservation of cuMemAddressReserve holding ptr, or nullptr; its base
 * in *base (VmmRegistry::mu held). */
Reservation *find_reservation(uint64_t ptr, uint64_t *base);
/* UVM_IOC_MEM_QUERY of an address; 0 or -errno. */
int vmm_query(uint64_t ptr, struct uvm_ioc_mem_query *q);
/* Describe the VMM mapping holding ptr as an Allocation of Kind::vmm (the
 * pointer attributes, cuMemGetAddressRange); false when ptr is no mapped
 * VMM memory.  VmmRegistry::mu held. */
bool vmm_describe(uint64_t ptr, Allocation *out);
/* The access flags (CU_MEM_ACCESS_FLAGS_PROT_*) processor proc
 * (UVM_PROCESSOR_*) has over a mapping vmm_describe() gave. */
uint32_t vmm_access(const Allocation &a, int proc);

} // namespace uvm

#endif /* LIBUVM_VMM_H */
