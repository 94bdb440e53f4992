// SPDX-License-Identifier: MIT
/*
 * device.cpp - the process state: /dev/uvm, initialisation, fork, devices
 * and their attributes.
 *
 * cuInit() opens /dev/uvm once per process (one VA space), reads
 * GET_VERSION and GPU_INFO of every GPU.  A fork() child inherits the
 * descriptor, but the driver refuses it (-EPERM): the child's libuvm answers
 * CUDA_ERROR_NOT_INITIALIZED to everything, cuInit() included, as NVIDIA's
 * driver does (tests/real-driver/results/probe_fork.txt).
 */
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "context.h"
#include "device.h"
#include "memory.h"
#include "vmm.h"

#include "config.h"

namespace uvm {

/* The registries are never destroyed: other libraries' destructors may
 * still call us. */
DeviceState &dev_state()
{
	static DeviceState *s = new DeviceState;
	return *s;
}

Device &driver()
{
	static Device *d = new Device;
	return *d;
}

ThreadState &thread_state()
{
	thread_local ThreadState ts;
	ContextRegistry &reg = ctx_reg();

	if (ts.generation != reg.generation.load()) {
		/* Contexts of an earlier life (before a cudaDeviceReset of
		 * everything, or in the parent of a fork) are gone. */
		ts.stack.clear();
		ts.ptds.clear();
		ts.generation = reg.generation.load();
	}
	return ts;
}

DomainLock::DomainLock(unsigned domains)
{
	unsigned n = 0;

	/* The lock order of common.h. */
	if (domains & kContextDomain)
		mu_[n++] = &ctx_reg().mu;
	if (domains & kMemoryDomain)
		mu_[n++] = &mem_reg().mu;
	if (domains & kVmmDomain)
		mu_[n++] = &vmm_reg().mu;
	lock();
}

DomainLock::~DomainLock()
{
	if (held_)
		unlock();
}

void DomainLock::lock()
{
	for (std::mutex *m : mu_)
		if (m)
			m->lock();
	held_ = true;
}

void DomainLock::unlock()
{
	for (int i = 2; i >= 0; i--)
		if (mu_[i])
			mu_[i]->unlock();
	held_ = false;
}

Device::~Device()
{
	if (fd_ >= 0)
		::close(fd_);
}

/**
 * Device::open() - open /dev/uvm and learn the driver
 *
 * Return: 0, or -errno (-ENOENT/-ENODEV: no driver, -EPROTO: an
 * incompatible API major version or a module older than 1.1).
 */
int Device::open()
{
	int fd = ::open(UVM_DEVICE_PATH, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	fd_ = fd;
	int r = ioctl(UVM_IOC_GET_VERSION, &version);
	if (r)
		return r;
	if (version.major != UVM_API_VERSION_MAJOR || version.minor < 1)
		return -EPROTO;
	gpus.assign(version.num_gpus, {});
	for (unsigned int i = 0; i < version.num_gpus; i++) {
		gpus[i].gpu_index = i;
		r = ioctl(UVM_IOC_GPU_INFO, &gpus[i]);
		if (r)
			return r;
		gpus[i].name[sizeof(gpus[i].name) - 1] = '\0';
	}
	return 0;
}

/**
 * Device::ioctl() - the one ioctl wrapper
 * @cmd:	UVM_IOC_* / UVM_TEST_IOC_*
 * @arg:	its structure, zero-initialised by the caller
 *
 * Return: 0 or -errno; EINTR is retried (the driver's waits are killable,
 * so only a dying task sees it for good).
 */
int Device::ioctl(unsigned long cmd, void *arg) const
{
	int r;

	do {
		r = ::ioctl(fd_, cmd, arg);
	} while (r < 0 && errno == EINTR);
	return r < 0 ? -errno : 0;
}

static void read_numa_nodes(std::vector<int> &nodes)
{
	char buf[4096];
	FILE *f = std::fopen("/sys/devices/system/node/has_memory", "re");
	size_t n = 0;

	nodes.clear();
	if (f) {
		n = std::fread(buf, 1, sizeof(buf) - 1, f);
		std::fclose(f);
	}
	buf[n] = '\0';
	/* A list such as "0-1,3". */
	for (char *p = buf; *p;) {
		char *end;
		long a = std::strtol(p, &end, 10), b;

		if (end == p)
			break;
		b = a;
		if (*end == '-')
			b = std::strtol(end + 1, &end, 10);
		for (long i = a; i <= b && i < 4096; i++)
			nodes.push_back(static_cast<int>(i));
		p = *end == ',' ? end + 1 : end;
	}
	if (nodes.empty())
		nodes.push_back(0);
}

static void atfork_child()
{
	/* The locks may be held by a thread that does not exist here; the
	 * child never takes them again: every call checks `forked` first. */
	dev_state().forked = true;
	ctx_reg().generation++;
}

static void register_atfork()
{
	static std::once_flag once;

	std::call_once(once, [] { pthread_atfork(nullptr, nullptr, atfork_child); });
}

CUresult check_init()
{
	const DeviceState &s = dev_state();

	if (s.forked.load() || !s.initialized.load(std::memory_order_acquire))
		return CUDA_ERROR_NOT_INITIALIZED;
	return CUDA_SUCCESS;
}

/**
 * current_context() - the calling thread's current context, alive
 * @ctx:	out
 *
 * Return: CUDA_SUCCESS, CUDA_ERROR_NOT_INITIALIZED, CUDA_ERROR_INVALID_CONTEXT
 * (none current), CUDA_ERROR_CONTEXT_IS_DESTROYED (the current one was
 * destroyed, or is a primary context released to zero).
 */
CUresult current_context(Context **ctx)
{
	CUresult r = check_init();

	if (r)
		return r;
	ThreadState &ts = thread_state();
	if (ts.stack.empty() || !ts.stack.back())
		return CUDA_ERROR_INVALID_CONTEXT;
	std::lock_guard<std::mutex> lock(ctx_reg().mu);
	Context *c = ts.stack.back();
	if (!c->alive)
		return CUDA_ERROR_CONTEXT_IS_DESTROYED;
	*ctx = c;
	return CUDA_SUCCESS;
}

bool valid_device(int dev)
{
	return dev >= 0 && dev < dev_state().num_devices;
}

bool valid_numa_node(int node)
{
	for (int n : dev_state().numa_nodes)
		if (n == node)
			return true;
	return false;
}

/*
 * The simulated GPU's attributes.  Compute-side values describe a
 * Hopper-class part (they matter to nobody here); the memory-related ones
 * say what libuvm and the driver really do.
 */
static int device_attribute(int attr, int dev)
{
	const struct uvm_ioc_gpu_info &gi = driver().gpus[dev];
	const uint64_t caps = driver().version.caps;

	switch (attr) {
	case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING:
	case CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY:
	case CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS:
		return 1;
	case CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS:
		return (caps & (UVM_CAP_HMM_MIRROR | UVM_CAP_DEVICE_PRIVATE)) ? 1 : 0;
	case CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT:
		return static_cast<int>(gi.copy_engines);
	case CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID:
		return dev_state().numa_nodes.front();
	case CU_DEVICE_ATTRIBUTE_NUMA_ID:
		return -1;
	/* Host memory is pinned and mapped for every GPU at its own address
	 * (UVM_IOC_HOST_REGISTER), read-only on request. */
	case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY:
	case CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM:
	case CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED:
		return driver_has_memory_api();
	/* Virtual memory management (vmm.cpp) with GPU and host locations,
	 * shareable by file descriptor, where the driver has the MEM_* ioctls. */
	case CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED:
		return driver_has_vmm();
	/* Not there until the kernel backs the pool and IPC calls. */
	case CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES:
	case CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST:
	case CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS:
	case CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING:
	case CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES:
	case CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_NUMA_CONFIG:
	case CU_DEVICE_ATTRIBUTE_HOST_NUMA_MEMORY_POOLS_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_HOST_NUMA_MULTINODE_IPC_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_HOST_MEMORY_POOLS_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_HOST_ALLOC_DMA_BUF_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_ONLY_PARTIAL_HOST_NATIVE_ATOMIC_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_ECC_ENABLED:
	case CU_DEVICE_ATTRIBUTE_INTEGRATED:
	case CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT:
	case CU_DEVICE_ATTRIBUTE_TCC_DRIVER:
	case CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD:
	case CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID:
	case CU_DEVICE_ATTRIBUTE_MPS_ENABLED:
	case CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID:
	case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID:
	case CU_DEVICE_ATTRIBUTE_GPU_PCI_DEVICE_ID:
	case CU_DEVICE_ATTRIBUTE_GPU_PCI_SUBSYSTEM_ID:
	case CU_DEVICE_ATTRIBUTE_COMPUTE_MODE:
		return 0;
	case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID:
		return dev;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
		return 9;
	case CU_DEVICE_ATTRIBUTE_WARP_SIZE:
		return 32;
	case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
		return 32;
	case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
	case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X:
	case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y:
		return 1024;
	case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z:
		return 64;
	case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X:
	case CU_DEVICE_ATTRIBUTE_MAX_PITCH:
		return 2147483647;
	case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y:
	case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z:
		return 65535;
	case CU_DEVICE_ATTRIBUTE_CLOCK_RATE:
		return 1000000;	/* kHz */
	case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE:
		return 1000000;
	case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH:
		return 4096;
	case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE:
		return 50 << 20;
	case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR:
		return 2048;
	case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK:
		return 49152;
	case CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY:
	case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK:
	case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR:
		return 65536;
	case CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT:
	case CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT:
		return 512;
	/* The array limits array.cpp enforces: those of NVIDIA's H100 and
	 * H200 (probe_array.txt "arr.devattr.*"). */
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_WIDTH:
		return 131072;
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_HEIGHT:
		return 65536;
	/* Linear 2D textures ("pitch.devattr.70" .. 72). */
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_WIDTH:
		return 131072;
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT:
		return 65000;
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH:
		return 2097120;
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_WIDTH:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_HEIGHT:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_DEPTH:
		return 16384;
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE:
		return 8192;
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_LAYERS:
		return 2048;
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS:
		return 2046;
	/* Sparse and deferred-mapping arrays (sparse.cpp). */
	case CU_DEVICE_ATTRIBUTE_SPARSE_CUDA_ARRAY_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED:
		return 1;
	case CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT:
		return 32;
	case CU_DEVICE_ATTRIBUTE_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO:
		return 2;
	case CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR:
		return 32;
	case CU_DEVICE_ATTRIBUTE_MEM_SYNC_DOMAIN_COUNT:
		return 1;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
	case CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1:
	case CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS_V1:
	case CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR_V1:
	case CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_ALGORITHM_MASK:
	case CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_MAXIMUM_LENGTH:
	case CU_DEVICE_ATTRIBUTE_D3D12_CIG_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_VULKAN_CIG_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_HANDLE_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_KMT_HANDLE_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES:
		return 0;
	default:
		/* The other texture and surface limits (32768, as the
		 * layered, gather and cubemap ones of H100), and the
		 * remaining capability flags: present (1). */
		if (attr >= CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH &&
		    attr <= CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH)
			return 32768;
		return 1;
	}
}

} // namespace uvm

using namespace uvm;

extern "C" CUresult cuInit(unsigned int Flags) noexcept
{
	return guard([&]() -> CUresult {
		DeviceState &s = dev_state();
		Device &dev = driver();

		register_atfork();
		if (s.forked.load())
			return CUDA_ERROR_NOT_INITIALIZED;
		if (Flags)
			return CUDA_ERROR_INVALID_VALUE;
		std::lock_guard<std::mutex> lock(s.mu);
		if (s.initialized.load())
			return CUDA_SUCCESS;
		int r = dev.open();
		if (r == -ENOENT || r == -ENODEV || r == -ENXIO)
			return CUDA_ERROR_NO_DEVICE;
		if (r == -EPROTO || r == -ENOTTY)
			return CUDA_ERROR_SYSTEM_DRIVER_MISMATCH;
		if (r)
			return from_errno(r);
		if (dev.version.num_gpus == 0)
			return CUDA_ERROR_NO_DEVICE;
		s.num_devices = static_cast<int>(dev.version.num_gpus);
		read_numa_nodes(s.numa_nodes);
		/* DeviceState::mu -> ContextRegistry::mu (device.h). */
		ContextRegistry &reg = ctx_reg();
		std::lock_guard<std::mutex> reg_lock(reg.mu);
		for (int d = 0; d < s.num_devices; d++) {
			auto ctx = std::make_unique<Context>();

			ctx->device = d;
			ctx->primary = true;
			ctx->alive = false;
			ctx->legacy = std::make_unique<Stream>();
			ctx->legacy->ctx = ctx.get();
			ctx->legacy->legacy = true;
			reg.primaries.push_back(ctx.get());
			reg.known_contexts.insert(ctx.get());
			reg.contexts.push_back(std::move(ctx));
		}
		s.initialized.store(true, std::memory_order_release);
		return CUDA_SUCCESS;
	});
}

extern "C" CUresult cuDriverGetVersion(int *driverVersion) noexcept
{
	if (!driverVersion)
		return CUDA_ERROR_INVALID_VALUE;
	*driverVersion = kApiVersion;
	return CUDA_SUCCESS;
}

extern "C" CUresult cuDeviceGetCount(int *count) noexcept
{
	if (CUresult r = check_init())
		return r;
	if (!count)
		return CUDA_ERROR_INVALID_VALUE;
	*count = dev_state().num_devices;
	return CUDA_SUCCESS;
}

extern "C" CUresult cuDeviceGet(CUdevice *device, int ordinal) noexcept
{
	if (CUresult r = check_init())
		return r;
	if (!device)
		return CUDA_ERROR_INVALID_VALUE;
	if (!valid_device(ordinal))
		return CUDA_ERROR_INVALID_DEVICE;
	*device = ordinal;
	return CUDA_SUCCESS;
}

extern "C" CUresult cuDeviceGetName(char *name, int len, CUdevice dev) noexcept
{
	if (CUresult r = check_init())
		return r;
	/* len <= 0 crashes NVIDIA's driver (probe_null); we refuse it. */
	if (!name || len <= 0)
		return CUDA_ERROR_INVALID_VALUE;
	if (!valid_device(dev))
		return CUDA_ERROR_INVALID_DEVICE;
	std::snprintf(name, static_cast<size_t>(len), "%s", driver().gpus[dev].name);
	return CUDA_SUCCESS;
}

extern "C" CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev) noexcept
{
	if (CUresult r = check_init())
		return r;
	if (!uuid)
		return CUDA_ERROR_INVALID_VALUE;
	if (!valid_device(dev))
		return CUDA_ERROR_INVALID_DEVICE;
	static_assert(sizeof(uuid->bytes) == sizeof(driver().gpus[0].uuid));
	std::memcpy(uuid->bytes, driver().gpus[dev].uuid, sizeof(uuid->bytes));
	return CUDA_SUCCESS;
}

/*
 * cudaGetDeviceProperties: each field the device attribute of its name
 * (the ones cuDeviceGetAttribute reports), the name, UUID and memory size
 * the driver reports.
 */
extern "C" cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device) noexcept
{
	return rt([&]() -> CUresult {
		if (!valid_device(device))
			return CUDA_ERROR_INVALID_DEVICE;
		if (!prop)
			return CUDA_ERROR_INVALID_VALUE;
		const struct uvm_ioc_gpu_info &gi = driver().gpus[device];
		struct cudaDeviceProp &p = *prop;

#define A(name) device_attribute(CU_DEVICE_ATTRIBUTE_##name, device)
#define Z(name) static_cast<size_t>(A(name))
#define U(name) static_cast<unsigned int>(A(name))
		p = {};
		std::snprintf(p.name, sizeof(p.name), "%s", gi.name);
		std::memcpy(p.uuid.bytes, gi.uuid, sizeof(p.uuid.bytes));
		p.totalGlobalMem = gi.vidmem_size;
		p.sharedMemPerBlock = Z(MAX_SHARED_MEMORY_PER_BLOCK);
		p.regsPerBlock = A(MAX_REGISTERS_PER_BLOCK);
		p.warpSize = A(WARP_SIZE);
		p.memPitch = Z(MAX_PITCH);
		p.maxThreadsPerBlock = A(MAX_THREADS_PER_BLOCK);
		p.maxThreadsDim[0] = A(MAX_BLOCK_DIM_X);
		p.maxThreadsDim[1] = A(MAX_BLOCK_DIM_Y);
		p.maxThreadsDim[2] = A(MAX_BLOCK_DIM_Z);
		p.maxGridSize[0] = A(MAX_GRID_DIM_X);
		p.maxGridSize[1] = A(MAX_GRID_DIM_Y);
		p.maxGridSize[2] = A(MAX_GRID_DIM_Z);
		p.totalConstMem = Z(TOTAL_CONSTANT_MEMORY);
		p.major = A(COMPUTE_CAPABILITY_MAJOR);
		p.minor = A(COMPUTE_CAPABILITY_MINOR);
		p.textureAlignment = Z(TEXTURE_ALIGNMENT);
		p.texturePitchAlignment = Z(TEXTURE_PITCH_ALIGNMENT);
		p.multiProcessorCount = A(MULTIPROCESSOR_COUNT);
		p.integrated = A(INTEGRATED);
		p.canMapHostMemory = A(CAN_MAP_HOST_MEMORY);
		p.maxTexture1D = A(MAXIMUM_TEXTURE1D_WIDTH);
		p.maxTexture1DMipmap = A(MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH);
		p.maxTexture2D[0] = A(MAXIMUM_TEXTURE2D_WIDTH);
		p.maxTexture2D[1] = A(MAXIMUM_TEXTURE2D_HEIGHT);
		p.maxTexture2DMipmap[0] = A(MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH);
		p.maxTexture2DMipmap[1] = A(MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT);
		p.maxTexture2DLinear[0] = A(MAXIMUM_TEXTURE2D_LINEAR_WIDTH);
		p.maxTexture2DLinear[1] = A(MAXIMUM_TEXTURE2D_LINEAR_HEIGHT);
		p.maxTexture2DLinear[2] = A(MAXIMUM_TEXTURE2D_LINEAR_PITCH);
		p.maxTexture2DGather[0] = A(MAXIMUM_TEXTURE2D_GATHER_WIDTH);
		p.maxTexture2DGather[1] = A(MAXIMUM_TEXTURE2D_GATHER_HEIGHT);
		p.maxTexture3D[0] = A(MAXIMUM_TEXTURE3D_WIDTH);
		p.maxTexture3D[1] = A(MAXIMUM_TEXTURE3D_HEIGHT);
		p.maxTexture3D[2] = A(MAXIMUM_TEXTURE3D_DEPTH);
		p.maxTexture3DAlt[0] = A(MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE);
		p.maxTexture3DAlt[1] = A(MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE);
		p.maxTexture3DAlt[2] = A(MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE);
		p.maxTextureCubemap = A(MAXIMUM_TEXTURECUBEMAP_WIDTH);
		p.maxTexture1DLayered[0] = A(MAXIMUM_TEXTURE1D_LAYERED_WIDTH);
		p.maxTexture1DLayered[1] = A(MAXIMUM_TEXTURE1D_LAYERED_LAYERS);
		p.maxTexture2DLayered[0] = A(MAXIMUM_TEXTURE2D_LAYERED_WIDTH);
		p.maxTexture2DLayered[1] = A(MAXIMUM_TEXTURE2D_LAYERED_HEIGHT);
		p.maxTexture2DLayered[2] = A(MAXIMUM_TEXTURE2D_LAYERED_LAYERS);
		p.maxTextureCubemapLayered[0] = A(MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH);
		p.maxTextureCubemapLayered[1] = A(MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS);
		p.maxSurface1D = A(MAXIMUM_SURFACE1D_WIDTH);
		p.maxSurface2D[0] = A(MAXIMUM_SURFACE2D_WIDTH);
		p.maxSurface2D[1] = A(MAXIMUM_SURFACE2D_HEIGHT);
		p.maxSurface3D[0] = A(MAXIMUM_SURFACE3D_WIDTH);
		p.maxSurface3D[1] = A(MAXIMUM_SURFACE3D_HEIGHT);
		p.maxSurface3D[2] = A(MAXIMUM_SURFACE3D_DEPTH);
		p.maxSurface1DLayered[0] = A(MAXIMUM_SURFACE1D_LAYERED_WIDTH);
		p.maxSurface1DLayered[1] = A(MAXIMUM_SURFACE1D_LAYERED_LAYERS);
		p.maxSurface2DLayered[0] = A(MAXIMUM_SURFACE2D_LAYERED_WIDTH);
		p.maxSurface2DLayered[1] = A(MAXIMUM_SURFACE2D_LAYERED_HEIGHT);
		p.maxSurface2DLayered[2] = A(MAXIMUM_SURFACE2D_LAYERED_LAYERS);
		p.maxSurfaceCubemap = A(MAXIMUM_SURFACECUBEMAP_WIDTH);
		p.maxSurfaceCubemapLayered[0] = A(MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH);
		p.maxSurfaceCubemapLayered[1] = A(MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS);
		p.surfaceAlignment = Z(SURFACE_ALIGNMENT);
		p.concurrentKernels = A(CONCURRENT_KERNELS);
		p.ECCEnabled = A(ECC_ENABLED);
		p.pciBusID = A(PCI_BUS_ID);
		p.pciDeviceID = A(PCI_DEVICE_ID);
		p.pciDomainID = A(PCI_DOMAIN_ID);
		p.tccDriver = A(TCC_DRIVER);
		p.asyncEngineCount = A(ASYNC_ENGINE_COUNT);
		p.unifiedAddressing = A(UNIFIED_ADDRESSING);
		p.memoryBusWidth = A(GLOBAL_MEMORY_BUS_WIDTH);
		p.l2CacheSize = A(L2_CACHE_SIZE);
		p.persistingL2CacheMaxSize = A(MAX_PERSISTING_L2_CACHE_SIZE);
		p.maxThreadsPerMultiProcessor = A(MAX_THREADS_PER_MULTIPROCESSOR);
		p.streamPrioritiesSupported = A(STREAM_PRIORITIES_SUPPORTED);
		p.globalL1CacheSupported = A(GLOBAL_L1_CACHE_SUPPORTED);
		p.localL1CacheSupported = A(LOCAL_L1_CACHE_SUPPORTED);
		p.sharedMemPerMultiprocessor = Z(MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
		p.regsPerMultiprocessor = A(MAX_REGISTERS_PER_MULTIPROCESSOR);
		p.managedMemory = A(MANAGED_MEMORY);
		p.isMultiGpuBoard = A(MULTI_GPU_BOARD);
		p.multiGpuBoardGroupID = A(MULTI_GPU_BOARD_GROUP_ID);
		p.hostNativeAtomicSupported = A(HOST_NATIVE_ATOMIC_SUPPORTED);
		p.pageableMemoryAccess = A(PAGEABLE_MEMORY_ACCESS);
		p.concurrentManagedAccess = A(CONCURRENT_MANAGED_ACCESS);
		p.computePreemptionSupported = A(COMPUTE_PREEMPTION_SUPPORTED);
		p.canUseHostPointerForRegisteredMem = A(CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM);
		p.cooperativeLaunch = A(COOPERATIVE_LAUNCH);
		p.sharedMemPerBlockOptin = Z(MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
		p.pageableMemoryAccessUsesHostPageTables =
			A(PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES);
		p.directManagedMemAccessFromHost = A(DIRECT_MANAGED_MEM_ACCESS_FROM_HOST);
		p.maxBlocksPerMultiProcessor = A(MAX_BLOCKS_PER_MULTIPROCESSOR);
		p.accessPolicyMaxWindowSize = A(MAX_ACCESS_POLICY_WINDOW_SIZE);
		p.reservedSharedMemPerBlock = Z(RESERVED_SHARED_MEMORY_PER_BLOCK);
		p.hostRegisterSupported = A(HOST_REGISTER_SUPPORTED);
		p.sparseCudaArraySupported = A(SPARSE_CUDA_ARRAY_SUPPORTED);
		p.hostRegisterReadOnlySupported = A(READ_ONLY_HOST_REGISTER_SUPPORTED);
		p.timelineSemaphoreInteropSupported = A(TIMELINE_SEMAPHORE_INTEROP_SUPPORTED);
		p.memoryPoolsSupported = A(MEMORY_POOLS_SUPPORTED);
		p.gpuDirectRDMASupported = A(GPU_DIRECT_RDMA_SUPPORTED);
		p.gpuDirectRDMAFlushWritesOptions = U(GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS);
		p.gpuDirectRDMAWritesOrdering = A(GPU_DIRECT_RDMA_WRITES_ORDERING);
		p.memoryPoolSupportedHandleTypes = U(MEMPOOL_SUPPORTED_HANDLE_TYPES);
		p.deferredMappingCudaArraySupported = A(DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED);
		p.ipcEventSupported = A(IPC_EVENT_SUPPORTED);
		p.clusterLaunch = A(CLUSTER_LAUNCH);
		p.unifiedFunctionPointers = A(UNIFIED_FUNCTION_POINTERS);
		p.deviceNumaConfig = A(NUMA_CONFIG);
		p.deviceNumaId = A(NUMA_ID);
		p.mpsEnabled = A(MPS_ENABLED);
		p.hostNumaId = A(HOST_NUMA_ID);
		p.gpuPciDeviceID = U(GPU_PCI_DEVICE_ID);
		p.gpuPciSubsystemID = U(GPU_PCI_SUBSYSTEM_ID);
		p.hostNumaMultinodeIpcSupported = A(HOST_NUMA_MULTINODE_IPC_SUPPORTED);
#undef A
#undef Z
#undef U
		return CUDA_SUCCESS;
	});
}

extern "C" CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev) noexcept
{
	if (CUresult r = check_init())
		return r;
	if (!bytes)
		return CUDA_ERROR_INVALID_VALUE;
	if (!valid_device(dev))
		return CUDA_ERROR_INVALID_DEVICE;
	*bytes = driver().gpus[dev].vidmem_size;
	return CUDA_SUCCESS;
}

extern "C" CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev) noexcept
{
	if (CUresult r = check_init())
		return r;
	if (!pi)
		return CUDA_ERROR_INVALID_VALUE;
	if (!valid_device(dev))
		return CUDA_ERROR_INVALID_DEVICE;
	if (attrib < 1 || attrib > kLastDeviceAttribute)
		return CUDA_ERROR_INVALID_VALUE;
	*pi = device_attribute(attrib, dev);
	return CUDA_SUCCESS;
}

extern "C" CUresult uvmGetDriverApiVersion(unsigned int *major, unsigned int *minor) noexcept
{
	if (CUresult r = check_init())
		return r;
	if (!major || !minor)
		return CUDA_ERROR_INVALID_VALUE;
	*major = driver().version.major;
	*minor = driver().version.minor;
	return CUDA_SUCCESS;
}
