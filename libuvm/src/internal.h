// SPDX-License-Identifier: MIT
/*
 * internal.h - libuvm's state and helpers shared by its translation units.
 *
 * Layering (Documentation/libuvm.rst):
 *
 *   public cu* / cuda* / uvm* function       (memory.cpp, vmm.cpp, ..., sim.cpp)
 *     -> argument checks in CUDA's order, the userspace tables below
 *     -> a zero-initialised uapi structure
 *     -> uvm::Device::ioctl(): one ioctl(2), EINTR retried, -errno returned
 *     -> uvm::from_errno(): the one -errno -> CUresult mapping
 *
 * Every exported function runs its body through uvm::guard(), so no C++
 * exception crosses the C ABI: std::bad_alloc becomes
 * CUDA_ERROR_OUT_OF_MEMORY, anything else CUDA_ERROR_UNKNOWN.
 *
 * Locking: State::mu (one mutex) protects every table of State: contexts,
 * streams, events, allocations and their last-prefetch shadows, VMM
 * reservations and handle flags.  It is held across the short ioctls
 * (ADVISE, MIGRATE submission, RANGE_QUERY, POINTER_INFO, the MEM_* ioctls,
 * mmap/munmap) so that an allocation cannot disappear under a call using
 * it, and never across a blocking wait (FENCE_WAIT without POLL, a
 * simulated launch).  FenceTracker::mu is a leaf lock.  The device
 * variables of symbol.cpp add two: a variable's own lock, taken before
 * State::mu and held across the copy of its initial bytes, and a leaf lock
 * over the table of variables.
 */
#ifndef LIBUVM_INTERNAL_H
#define LIBUVM_INTERNAL_H

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <unordered_set>
#include <vector>

#include "cuda.h"
#include "cuda_runtime_api.h"

#include "uvm.h"
#include "uvm_test.h"

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
static_assert(sizeof(struct uvm_test_gpu_op) == 80);
static_assert(sizeof(struct uvm_test_launch) == 80);
static_assert(sizeof(struct uvm_test_residency) == 32);
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
/* The attribute numbers cuDeviceGetAttribute knows (CUDA 13.0: 1 .. 147). */
constexpr int kLastDeviceAttribute = 147;
/* Managed allocations are mapped in whole VA blocks of the driver. */
constexpr uint64_t kMappingGranule = UVM_VA_BLOCK_SIZE;
/* Device memory and page-locked host memory come in chunks of this size;
 * smaller requests share one (tests/real-driver/results/probe_copy.txt,
 * "cp.place.*", "cp.pa.host1000.18"). */
constexpr uint64_t kChunkSize = 2ULL << 20;
/* Sub-allocations start at multiples of this ("cp.place.*": 512). */
constexpr uint64_t kSubAllocAlign = 512;
/* Virtual memory management: the size, offset and address unit of
 * physical allocations and mappings, and the default alignment of
 * reservations (cuMemGetAllocationGranularity). */
constexpr uint64_t kVmmGranularity = UVM_MEM_GRANULARITY;

/* errno -> CUresult, the one mapping (errors.cpp). */
CUresult from_errno(int neg_errno);
/* CUresult -> cudaError_t for the runtime calls (errors.cpp). */
cudaError_t to_runtime(CUresult r);

/**
 * class Device - the open /dev/uvm of this process (one VA space).
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

/**
 * class FenceTracker - completion and errors of the driver's migrate fences.
 *
 * Fences of the VA space complete in submission order.  The driver reports a
 * failed batch's error once, to the first FENCE_WAIT on that fence; the
 * tracker collects every error up to the highest fence it has seen complete,
 * so that the stream that submitted a batch gets its error however the fence
 * was waited for.
 */
class FenceTracker {
public:
	/* Wait for (or with poll, test) fence f; 0, -EAGAIN or -EINTR. */
	int wait(const Device &dev, uint64_t f, bool poll);
	/* Remove and return the recorded error of fence f, or 0. */
	int take_error(uint64_t f);
	int peek_error(uint64_t f);
	void reset();

private:
	void harvest(const Device &dev, uint64_t upto);

	std::mutex mu_;
	uint64_t harvested_ = 0;	/* errors of fences <= this are collected */
	std::map<uint64_t, int> errors_;
};

struct Context;

/**
 * struct Stream - a CUDA stream.  Stream order is the driver's fence order:
 * the stream remembers the fences of its work (and of events it waits on).
 */
struct Stream {
	Context *ctx = nullptr;
	unsigned int flags = 0;
	bool legacy = false;		/* the context's legacy NULL stream */
	bool per_thread = false;	/* a thread's per-thread default stream */
	uint64_t last = 0;		/* fence all earlier work of the stream is in */
	std::vector<uint64_t> pending;	/* fences whose errors it has to report */
};

/** struct Event - a CUDA event: the fence of the work recorded before it. */
struct Event {
	Context *ctx = nullptr;
	unsigned int flags = 0;
	uint64_t fence = 0;		/* 0: never recorded, or nothing to wait for */
	bool recorded = false;
	bool timed = false;		/* time_ns known */
	uint64_t time_ns = 0;		/* CLOCK_MONOTONIC: when the work before it
					 * completed, or the record if none was left */
};

/**
 * struct Context - a CUDA context.  Never freed: a destroyed context stays as
 * a handle that answers CUDA_ERROR_CONTEXT_IS_DESTROYED, as NVIDIA's does.
 */
struct Context {
	int device = 0;
	unsigned int flags = 0;
	bool primary = false;
	bool alive = true;
	int refcount = 0;		/* primary contexts: retains */
	std::unique_ptr<Stream> legacy;
	std::unordered_set<Stream *> streams;	/* created streams */
	std::unordered_set<Event *> events;
	/* Devices whose memory it may reach (cuCtxEnablePeerAccess). */
	std::unordered_set<int> peers;
};

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
	Context *ctx = nullptr;
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
 * struct Reservation - an address reservation (cuMemAddressReserve): an
 * mmap of /dev/uvm at UVM_MMAP_RESERVE.  libuvm knows where its
 * reservations are (copies, pointer attributes, host registration must
 * tell them from other memory without an ioctl); what is mapped there, and
 * how, is the driver's to say (UVM_IOC_MEM_QUERY).
 */
struct Reservation {
	uint64_t size = 0;
};

/**
 * struct VmmHandle - what CUDA reports of a VMM handle that the driver does
 * not keep: the allocation flags it was created with, and whether it came
 * from an import (NVIDIA's driver reports no handle types for those and
 * refuses to export them again).  Forgotten with the handle's last
 * reference.
 */
struct TilePool;

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
 * writable by its GPU (by every GPU for a pool of host memory).  Sparse arrays' tiles and mapped deferred-mapping
 * arrays hold it, so that its memory outlives cuMemRelease while they are
 * mapped (as NVIDIA's: "sp.def.after_release"); the last one unmaps it.
 * Made and destroyed under State::mu (vmm.cpp).
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

/* The tile pool of a live handle (State::mu held), or nullptr. */
std::shared_ptr<TilePool> find_tile_pool(uint64_t handle);

/* Per-thread state. */
struct ThreadState {
	std::vector<Context *> stack;	/* context stack; back() is current */
	std::map<Context *, std::unique_ptr<Stream>> ptds;	/* per-thread streams */
	int rt_device = 0;		/* runtime: cudaSetDevice */
	cudaError_t rt_last_error = cudaSuccess;
	uint64_t generation = 0;	/* of State, to drop stale pointers */
};
ThreadState &thread_state();

/**
 * struct State - everything of the process.
 */
struct State {
	std::mutex mu;
	std::atomic<bool> initialized{false};
	std::atomic<bool> forked{false};	/* we are a fork() child */
	std::atomic<uint64_t> generation{1};
	Device dev;
	FenceTracker fences;
	int num_devices = 0;
	std::vector<int> numa_nodes;	/* host NUMA nodes with memory */
	std::vector<std::unique_ptr<Context>> contexts;	/* never shrinks */
	std::vector<Context *> primaries;	/* one per device */
	std::unordered_set<Context *> known_contexts;
	std::unordered_set<Stream *> known_streams;
	std::unordered_set<Event *> known_events;
	std::map<uint64_t, Allocation> allocations;	/* base -> allocation */
	std::map<uint64_t, Chunk> chunks;	/* base -> mapping of the library */
	std::map<uint64_t, Reservation> reservations;	/* cuMemAddressReserve: base -> */
	std::map<uint64_t, VmmHandle> vmm_handles;	/* live VMM handles of libuvm */
	uint64_t next_buffer_id = 0;	/* the last buffer id handed out */
	std::atomic<uint64_t> last_fence{0};	/* highest fence submitted */
	std::vector<bool> rt_retained;	/* the runtime holds the primary ctx */
};
State &state();

/* Initialisation checks: CUDA_SUCCESS, NOT_INITIALIZED (also in a fork
 * child). */
CUresult check_init();
/* check_init() plus a live current context, returned in *ctx. */
CUresult current_context(Context **ctx);
/* A context the library made and did not destroy, state().mu held:
 * CUDA_ERROR_INVALID_CONTEXT for any other handle, NULL included;
 * CUDA_ERROR_CONTEXT_IS_DESTROYED for one destroyed. */
CUresult live_context(CUcontext h, Context **ctx);
bool valid_device(int dev);
bool valid_numa_node(int node);

/* Allocation lookup under State::mu: the allocation containing ptr. */
Allocation *find_allocation(uint64_t ptr);
/* Does [ptr, ptr + len) touch any allocation or mapping of the library?
 * (State::mu held). */
bool touches_library_memory(uint64_t ptr, uint64_t len);
/* May a GPU use ordinary (pageable) process memory, as CUDA's
 * PAGEABLE_MEMORY_ACCESS says? */
bool pageable_memory_access();
/* Does the driver have device memory, host registration, copies and sets
 * (API 1.2)? */
bool driver_has_memory_api();
/* Does the driver copy and set 2D and 3D boxes (UVM_CAP_COPY_3D, API 1.4)? */
bool driver_has_copy_3d();

/* Virtual memory management (vmm.cpp).  Does the driver have the MEM_*
 * ioctls (UVM_CAP_VMM)? */
bool driver_has_vmm();
/* The reservation of cuMemAddressReserve holding ptr, or nullptr; its base
 * in *base (State::mu held). */
Reservation *find_reservation(uint64_t ptr, uint64_t *base);
/* UVM_IOC_MEM_QUERY of an address; 0 or -errno. */
int vmm_query(uint64_t ptr, struct uvm_ioc_mem_query *q);
/* Describe the VMM mapping holding ptr as an Allocation of Kind::vmm (the
 * pointer attributes, cuMemGetAddressRange); false when ptr is no mapped
 * VMM memory.  State::mu held. */
bool vmm_describe(uint64_t ptr, Allocation *out);
/* The access flags (CU_MEM_ACCESS_FLAGS_PROT_*) processor proc
 * (UVM_PROCESSOR_*) has over a mapping vmm_describe() gave. */
uint32_t vmm_access(const Allocation &a, int proc);
/* The device of the calling thread's current context, or 0. */
int current_device();

/* Range checks against a managed allocation (State::mu held). */
enum class RangeKind { ok, empty, invalid };
RangeKind check_range(uint64_t ptr, uint64_t count, Allocation **alloc);

/* Memory (memory.cpp), State::mu held: map /dev/uvm at offset (managed or
 * UVM_MMAP_DEVICE(gpu)) in whole VA blocks; 0 or -errno. */
int map_uvm(uint64_t offset, uint64_t map_size, uint64_t *out);
/* Record a new chunk and an allocation in it. */
Chunk *add_chunk(const Chunk &c);
Allocation &add_allocation(uint64_t base, uint64_t size, Kind kind, Chunk *chunk, Context *ctx);
/* Sub-allocate size bytes from the shared chunks of a kind (and GPU):
 * the lowest free place of kSubAllocAlign, or 0 when none has room. */
uint64_t sub_allocate(Kind kind, int gpu, uint64_t size, Chunk **chunk);
/* Device memory of a GPU owned by ctx, as cuMemAlloc places it; 0 or
 * -errno (-ENOMEM: the GPU cannot back it).  State::mu held. */
int alloc_device(int gpu, uint64_t size, Context *ctx, uint64_t *out);

/* Streams (stream.cpp).  resolve_stream() maps NULL / legacy / per-thread
 * handles onto Stream objects; State::mu held. */
CUresult resolve_stream(CUstream h, bool per_thread_default, Stream **out);
/* Record a submitted fence on a stream (State::mu held). */
void stream_add_fence(Stream *s, uint64_t fence);
/* Account for a submitted fence the caller waits for itself. */
void note_fence(uint64_t fence);
/* Wait for (poll: test) the work of a stream; returns its first async
 * error, or CUDA_ERROR_NOT_READY when polling unfinished work. */
CUresult stream_sync(CUstream h, bool per_thread_default, bool poll);
/* Wait for the work of every stream of a context; its first async error. */
CUresult context_sync(Context *ctx);
/* Wait for everything submitted so far (errors stay with their streams). */
void wait_all();
/* Fence all work of s and of what it waits on is in (State::mu held). */
uint64_t stream_barrier(Stream *s);

/* Contexts (context.cpp): tear down a context's allocations and streams;
 * State::mu held. */
void context_release_resources(Context *ctx);
/* What cuCtxGetFlags reports of a context: its flags, and CU_CTX_MAP_HOST
 * for a primary context (always on; never stored, as NVIDIA's driver). */
unsigned int context_flags(const Context *ctx);

/* The CUdevice forms of CUDA 12 (policy.cpp), exported by legacy.cpp. */
CUresult legacy_advise(CUdeviceptr devPtr, size_t count, CUmem_advise advice,
		       CUdevice device) noexcept;
CUresult legacy_prefetch_async(CUdeviceptr devPtr, size_t count, CUdevice dstDevice,
			       CUstream hStream, bool ptds) noexcept;

/* Memory (memory.cpp): unmap and forget an allocation; State::mu held. */
void free_allocation(std::map<uint64_t, Allocation>::iterator it);
/* Release a chunk: its mapping and, for host chunks, the registration. */
void release_chunk(Chunk *c);

/*
 * Copies and sets (copy.cpp).  Every copy and set is a box: @depth slices of
 * @height rows of @width bytes (elements of @elem bytes for a set), placed on
 * each side by its pitch (bytes from a row to the next) and slice pitch; a
 * 1D copy is one row.  box_execute() validates it as NVIDIA's driver does,
 * queues it (one driver job per box, UVM_IOC_COPY_3D) and waits where CUDA
 * says a call waits.
 */
enum class Role {
	any,	/* the host side of cuMemcpyHtoD/DtoH, both sides of cuMemcpy */
	device,	/* memory a GPU can use */
};

enum class Mode {
	sync_copy,	/* cuMemcpy, cuMemcpy2D, ... */
	sync_set,	/* cuMemsetD8, cuMemsetD2D8, ... */
	async,		/* the Async forms */
};

struct BoxSide {
	uint64_t addr = 0;
	uint64_t pitch = 0;
	uint64_t slice_pitch = 0;
	uint64_t extent = 0;	/* bytes from addr that must be in the allocation,
				 * where more than the rows (a 3D call's whole
				 * last slice) */
	Role role = Role::device;
	/* A sparse array's level (array.h): the box's corner in it, x in
	 * bytes; addr and the pitches come per tile (tiled_pieces()). */
	const void *tiled = nullptr;
	uint64_t x = 0, y = 0, z = 0;
};

/*
 * A 3D call's extent of a pointer side: @depth - 1 slice pitches, then the
 * rows of the last slice in whole pitches from its first byte (none for a
 * slice of one row).  False when it does not fit in 64 bits.
 */
inline bool extent_3d(uint64_t depth, uint64_t slice_pitch, uint64_t height, uint64_t pitch,
		      uint64_t *extent)
{
	uint64_t slices, rows;

	return !__builtin_mul_overflow(depth - 1, slice_pitch, &slices) &&
	       !__builtin_mul_overflow(height > 1 ? height : 0, pitch, &rows) &&
	       !__builtin_add_overflow(slices, rows, extent);
}

struct BoxRequest {
	bool is_set = false;
	BoxSide dst, src;
	uint64_t width = 0;		/* bytes, or elements of a set */
	uint64_t height = 1, depth = 1;
	uint32_t value = 0, elem = 1;	/* sets */
};

CUresult box_execute(const BoxRequest &req, CUstream h, bool ptds, Mode mode);

/* One copy of a batch (batch.cpp): its box, and whether its source must be
 * read before the call returns (CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL). */
struct BatchCopy {
	BoxRequest box;
	bool read_at_call = false;
};

CUresult batch_execute(const std::vector<BatchCopy> &copies, CUstream h, bool ptds);

/*
 * tiled_pieces() - a copy with a side in a sparse array, as copies of
 * whole memory: one per tile (or page of a mip tail) of each sparse side.
 * A piece reading a tile nothing is mapped at reads zeros; one writing it
 * is dropped (NVIDIA's: "sp.t2.span.*").  State::mu held (sparse.cpp).
 */
CUresult tiled_pieces(const BoxRequest &req, std::vector<BatchCopy> *out);

/* Copies and sets (copy.cpp) for the runtime: kind is a cudaMemcpyKind;
 * an unknown one answers cudaErrorInvalidMemcpyDirection's number. */
CUresult runtime_memcpy(void *dst, const void *src, size_t count, int kind, CUstream h,
			bool ptds, bool async);
CUresult runtime_memset(void *dst, int value, size_t count, CUstream h, bool ptds, bool async);
/* The roles a cudaMemcpyKind gives the two sides. */
CUresult memcpy_kind_roles(int kind, Role *dr, Role *sr);

/* Pitched memory, 2D/3D copies and sets (pitched.cpp) for the runtime. */
CUresult alloc_pitched(CUdeviceptr *dptr, size_t *pitch, size_t width, size_t rows);
CUresult runtime_copy_box(BoxRequest q, int kind, CUstream h, bool ptds, bool async);
CUresult runtime_set_box(BoxRequest q, int value, CUstream h, bool ptds, bool async);

/* CUDA arrays (array.cpp).  array_side(): the side of a copy in an array,
 * the box of width bytes x height rows x depth slices at (x bytes, y, z),
 * which must lie in the array (CUDA_ERROR_INVALID_VALUE), the array live
 * (CUDA_ERROR_INVALID_HANDLE).  array_element_size(): bytes per element.
 * Both take State::mu; release_context_arrays() runs under it. */
CUresult array_side(CUarray a, uint64_t x, uint64_t y, uint64_t z, uint64_t width,
		    uint64_t height, uint64_t depth, BoxSide *side);
CUresult array_element_size(CUarray a, uint64_t *elem);
/* The runtime's kind of a copy with an array side: CUDA_SUCCESS, or
 * cudaErrorInvalidMemcpyDirection's number where it names the array host
 * memory. */
CUresult array_copy_kind(int kind, bool dst_array, bool src_array);
void release_context_arrays(Context *ctx);

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
inline uint64_t page_size() { return state().dev.version.page_size ? state().dev.version.page_size : 4096; }
inline uint64_t round_down(uint64_t v, uint64_t a) { return v & ~(a - 1); }
inline uint64_t round_up(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }

} // namespace uvm

namespace uvm {
/* The opaque handles of cuda.h are pointers to our objects (never
 * dereferenced as the incomplete CUDA types). */
inline CUcontext to_handle(Context *c) { return reinterpret_cast<CUcontext>(c); }
inline Context *from_handle(CUcontext h) { return reinterpret_cast<Context *>(h); }
inline CUstream to_handle(Stream *s) { return reinterpret_cast<CUstream>(s); }
inline Stream *from_handle(CUstream h) { return reinterpret_cast<Stream *>(h); }
inline CUevent to_handle(Event *e) { return reinterpret_cast<CUevent>(e); }
inline Event *from_handle(CUevent h) { return reinterpret_cast<Event *>(h); }
} // namespace uvm

#endif /* LIBUVM_INTERNAL_H */
