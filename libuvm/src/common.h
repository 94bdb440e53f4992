// SPDX-License-Identifier: MIT
/*
 * common.h - what every translation unit of libuvm shares: the ioctl
 * wrapper of /dev/uvm, the initialisation check, the -errno -> CUresult
 * mapping and the exception guards of the C ABI.
 *
 * Layering (Documentation/libuvm.rst):
 *
 *   public cu* / cuda* / uvm* function       (memory.cpp, vmm.cpp, ..., sim.cpp)
 *     -> argument checks in CUDA's order, the userspace tables of a domain
 *     -> a zero-initialised uapi structure
 *     -> uvm::driver().ioctl(): one ioctl(2), EINTR retried, -errno returned
 *     -> uvm::from_errno(): the one -errno -> CUresult mapping
 *
 * Every exported function runs its body through uvm::guard(), so no C++
 * exception crosses the C ABI: std::bad_alloc becomes
 * CUDA_ERROR_OUT_OF_MEMORY, anything else CUDA_ERROR_UNKNOWN.
 *
 * The process's state is split by domain, each with its own registry and
 * mutex:
 *
 *   context.h  contexts, streams, events      ContextRegistry::mu
 *   memory.h   allocations, chunks, arrays    MemoryRegistry::mu
 *   vmm.h      reservations, VMM handles,     VmmRegistry::mu
 *              tile pools
 *   device.h   devices, initialisation        DeviceState::mu
 *
 * Lock order (DOC: DomainLock below): DeviceState::mu -> ContextRegistry::mu
 * -> MemoryRegistry::mu -> VmmRegistry::mu; a code path that needs more than
 * one of the last three takes them through one DomainLock, which takes them
 * in that order, and never takes another domain lock while holding one.
 * The leaf locks (FenceTracker's, the table of device variables) come after
 * all of them; a device variable's own lock (symbol.cpp) before all of
 * them.  None is held across a blocking wait (FENCE_WAIT without POLL, a
 * simulated launch).
 */
#ifndef LIBUVM_COMMON_H
#define LIBUVM_COMMON_H

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <new>
#include <vector>

#include "cuda.h"
#include "cuda_runtime_api.h"

#include "uvm.h"

/* The per-thread-default-stream entry points (cuda.h declares them only
 * under CUDA_API_PER_THREAD_DEFAULT_STREAM). */
extern "C" {
CUresult cuStreamQuery_ptsz(CUstream hStream) noexcept;
CUresult cuStreamSynchronize_ptsz(CUstream hStream) noexcept;
CUresult cuStreamWaitEvent_ptsz(CUstream hStream, CUevent hEvent, unsigned int Flags) noexcept;
CUresult cuStreamGetFlags_ptsz(CUstream hStream, unsigned int *flags) noexcept;
CUresult cuStreamGetCtx_ptsz(CUstream hStream, CUcontext *pctx) noexcept;
CUresult cuEventRecord_ptsz(CUevent hEvent, CUstream hStream) noexcept;
CUresult cuMemPrefetchAsync_v2_ptsz(CUdeviceptr devPtr, size_t count, CUmemLocation location,
				    unsigned int flags, CUstream hStream) noexcept;
CUresult cuMemPrefetchBatchAsync_ptsz(CUdeviceptr *dptrs, size_t *sizes, size_t count,
				      CUmemLocation *prefetchLocs, size_t *prefetchLocIdxs,
				      size_t numPrefetchLocs, unsigned long long flags,
				      CUstream hStream) noexcept;
CUresult cuMemDiscardBatchAsync_ptsz(CUdeviceptr *dptrs, size_t *sizes, size_t count,
				     unsigned long long flags, CUstream hStream) noexcept;
CUresult cuMemDiscardAndPrefetchBatchAsync_ptsz(CUdeviceptr *dptrs, size_t *sizes, size_t count,
						CUmemLocation *prefetchLocs,
						size_t *prefetchLocIdxs, size_t numPrefetchLocs,
						unsigned long long flags, CUstream hStream) noexcept;
CUresult cuMemMapArrayAsync_ptsz(CUarrayMapInfo *mapInfoList, unsigned int count,
				 CUstream hStream) noexcept;
}

namespace uvm {

/* The ABI of uapi/uvm.h, checked here as the module checks it. */
static_assert(sizeof(struct uvm_ioc_version) == 56);
static_assert(sizeof(struct uvm_ioc_gpu_info) == 152);
static_assert(sizeof(struct uvm_ioc_get_counters) == 16);
static_assert(sizeof(struct uvm_location) == 8);
static_assert(sizeof(struct uvm_ioc_advise) == 48);
static_assert(sizeof(struct uvm_range) == 16);
static_assert(sizeof(struct uvm_ioc_migrate) == 80);
static_assert(sizeof(struct uvm_ioc_fence_wait) == 24);
static_assert(sizeof(struct uvm_ioc_range_query) == 64);
static_assert(sizeof(struct uvm_ioc_pointer_info) == 56);
static_assert(sizeof(struct uvm_ioc_host_register) == 48);
static_assert(sizeof(struct uvm_ioc_host_unregister) == 32);
static_assert(sizeof(struct uvm_ioc_copy) == 56);
static_assert(sizeof(struct uvm_ioc_memset) == 56);
static_assert(sizeof(struct uvm_ioc_mem_create) == 48);
static_assert(sizeof(struct uvm_ioc_mem_release) == 16);
static_assert(sizeof(struct uvm_ioc_mem_props) == 56);
static_assert(sizeof(struct uvm_ioc_mem_export) == 40);
static_assert(sizeof(struct uvm_ioc_mem_import) == 32);
static_assert(sizeof(struct uvm_ioc_mem_map) == 56);
static_assert(sizeof(struct uvm_ioc_mem_unmap) == 40);
static_assert(sizeof(struct uvm_mem_access) == 16);
static_assert(sizeof(struct uvm_ioc_mem_set_access) == 56);
static_assert(sizeof(struct uvm_ioc_mem_query) == 128);
/* CUDA's layouts this library promises. */
static_assert(sizeof(CUmemLocation) == 8);
static_assert(sizeof(struct cudaMemLocation) == 8);
static_assert(sizeof(CUdeviceptr) == 8);
static_assert(sizeof(CUmemAllocationProp) == 32);
static_assert(sizeof(CUmemAccessDesc) == 12);
static_assert(sizeof(CUarrayMapInfo) == 96);
/* CUDA arrays' (probe_array.txt "arr.sizeof.*", "arr.offsetof.*"). */
static_assert(sizeof(CUDA_ARRAY_DESCRIPTOR) == 24);
static_assert(offsetof(CUDA_ARRAY_DESCRIPTOR, NumChannels) == 20);
static_assert(sizeof(CUDA_ARRAY3D_DESCRIPTOR) == 40);
static_assert(offsetof(CUDA_ARRAY3D_DESCRIPTOR, Flags) == 32);
static_assert(sizeof(CUDA_ARRAY_SPARSE_PROPERTIES) == 48);
static_assert(offsetof(CUDA_ARRAY_SPARSE_PROPERTIES, miptailSize) == 16);
static_assert(offsetof(CUDA_ARRAY_SPARSE_PROPERTIES, flags) == 24);
static_assert(sizeof(CUDA_ARRAY_MEMORY_REQUIREMENTS) == 32);
static_assert(sizeof(CUarray_format) == 4);
static_assert(sizeof(struct cudaChannelFormatDesc) == 20);
static_assert(offsetof(struct cudaChannelFormatDesc, f) == 16);
static_assert(sizeof(struct cudaArraySparseProperties) == 48);
static_assert(sizeof(struct cudaArrayMemoryRequirements) == 32);
/* The uapi's VMM values are CUDA's. */
static_assert(UVM_MEM_HANDLE_FD == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
static_assert(UVM_MEM_PROT_READ == CU_MEM_ACCESS_FLAGS_PROT_READ);
static_assert(UVM_MEM_PROT_READ_WRITE == CU_MEM_ACCESS_FLAGS_PROT_READWRITE);


/* The CUDA driver and runtime API version libuvm implements. */
constexpr int kApiVersion = 13000;

/* errno -> CUresult, the one mapping (errors.cpp). */
CUresult from_errno(int neg_errno);
/* CUresult -> cudaError_t for the runtime calls (errors.cpp). */
cudaError_t to_runtime(CUresult r);

/**
 * class Device - the open /dev/uvm of this process (one VA space).
 *
 * Opened once by cuInit() under DeviceState::mu (device.cpp); read-only
 * (and read without a lock) once check_init() succeeds.
 */
class Device {
public:
	~Device();
	/* open(2) the node and read GET_VERSION; -errno on failure. */
	int open();
	/* One ioctl, EINTR retried; 0 or -errno. */
	int ioctl(unsigned long cmd, void *arg) const;
	int fd() const { return fd_; }

	struct uvm_ioc_version version {};
	std::vector<struct uvm_ioc_gpu_info> gpus;

private:
	int fd_ = -1;
};

/* The process's /dev/uvm (device.cpp). */
Device &driver();

/* Initialisation checks: CUDA_SUCCESS, NOT_INITIALIZED (also in a fork
 * child). */
CUresult check_init();

/* The domains a DomainLock can take. */
enum Domain : unsigned {
	kContextDomain = 1u << 0,	/* ContextRegistry::mu (context.h) */
	kMemoryDomain = 1u << 1,	/* MemoryRegistry::mu (memory.h) */
	kVmmDomain = 1u << 2,		/* VmmRegistry::mu (vmm.h) */
	kAllDomains = kContextDomain | kMemoryDomain | kVmmDomain,
};

/**
 * class DomainLock - the locks of several domains, in the one order
 *
 * Takes the mutexes of the domains named (a mask of Domain) in the order
 * contexts -> memory -> VMM and releases them in reverse.  The only way a
 * code path holds two domain locks: a call that needs one domain takes that
 * registry's mutex alone (std::lock_guard).  unlock() and lock() drop and
 * retake all of them, for a wait in the middle (copy.cpp).
 */
class DomainLock {
public:
	explicit DomainLock(unsigned domains);
	~DomainLock();
	DomainLock(const DomainLock &) = delete;
	DomainLock &operator=(const DomainLock &) = delete;
	void lock();
	void unlock();

private:
	std::mutex *mu_[3] = {};
	bool held_ = false;
};

/* The runtime (runtime.cpp): make a failing result the thread's last error;
 * initialise the driver and give the thread its runtime context. */
cudaError_t rt_record(cudaError_t e);
CUresult rt_enter();

/* Run a body, translating exceptions into CUresult. */
template <typename F>
CUresult guard(F &&body) noexcept
{
	try {
		return body();
	} catch (const std::bad_alloc &) {
		return CUDA_ERROR_OUT_OF_MEMORY;
	} catch (...) {
		return CUDA_ERROR_UNKNOWN;
	}
}

/* Run a runtime call's driver-level body after rt_enter(); record and
 * translate its result.  A body may return a runtime-only code cast to
 * CUresult (cudaErrorInvalidMemcpyDirection, ...): to_runtime() passes it. */
template <typename F>
cudaError_t rt(F &&body) noexcept
{
	return rt_record(to_runtime(guard([&]() -> CUresult {
		if (CUresult r = rt_enter())
			return r;
		return body();
	})));
}

/* Page helpers. */
inline uint64_t page_size() { return driver().version.page_size ? driver().version.page_size : 4096; }
inline uint64_t round_down(uint64_t v, uint64_t a) { return v & ~(a - 1); }
inline uint64_t round_up(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }

} // namespace uvm

#endif /* LIBUVM_COMMON_H */
