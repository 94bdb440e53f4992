// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libuvm - the library suite: every function of libuvm's cuda.h,
 * cuda_runtime_api.h and uvm_sim.h, the library-side error paths of the
 * catalog's edge-case list (ADV-*, PF-*, BT-*, DS-*, RA-*, PA-*, MM-*,
 * XC-*; for device and host memory and copies, which the catalog leaves to
 * the probes: MA-*, HA-*, HR-*), and what the driver does underneath
 * (residency, data).
 *
 * Each test runs in its own process (the harness forks), so each starts
 * with an uninitialised library.  Module parameters: the defaults (2 GPUs).
 * The codes expected here are NVIDIA's where the real-driver probes
 * recorded them (tests/real-driver/results/), which the realdriver suite
 * replays as a whole; these tests add what a single GPU cannot show and
 * what only our driver can (residency, counters, data through GPU
 * launches).
 */
#include "kselftest_harness.h"

#include "libuvm_test.h"

#include <dlfcn.h>

#include <cudaTypedefs.h>
#include <cuda_runtime.h>
#include <vector_functions.h>

/* Initialisation, versions, errors */

/* Before cuInit everything but the version and error queries fails (PA-28). */
TEST(before_init)
{
	CUdeviceptr p = 0;
	CUcontext c = (CUcontext)(uintptr_t)0x1;
	int v = 0, n = -7;
	const char *s = NULL;

	ASSERT_EQ(CUDA_SUCCESS, cuDriverGetVersion(&v));
	ASSERT_EQ(13000, v);
	ASSERT_EQ(CUDA_SUCCESS, cuGetErrorName(CUDA_ERROR_NOT_INITIALIZED, &s));
	ASSERT_STREQ("CUDA_ERROR_NOT_INITIALIZED", s);
	ASSERT_EQ(CUDA_ERROR_NOT_INITIALIZED, cuDeviceGetCount(&n));
	ASSERT_EQ(-7, n);
	ASSERT_EQ(CUDA_ERROR_NOT_INITIALIZED, cuCtxGetCurrent(&c));
	ASSERT_EQ((CUcontext)(uintptr_t)0x1, c);
	ASSERT_EQ(CUDA_ERROR_NOT_INITIALIZED, cuMemAllocManaged(&p, 4096, CU_MEM_ATTACH_GLOBAL));
	ASSERT_EQ(CUDA_ERROR_NOT_INITIALIZED, cuMemFree(0));
	ASSERT_EQ(CUDA_ERROR_NOT_INITIALIZED, cuPointerGetAttribute(&v,
		  CU_POINTER_ATTRIBUTE_IS_MANAGED, (uintptr_t)&v));
	ASSERT_EQ(CUDA_ERROR_NOT_INITIALIZED, cuMemAdvise((uintptr_t)&v, 4,
		  CU_MEM_ADVISE_SET_READ_MOSTLY, HOST));
	ASSERT_EQ(CUDA_ERROR_NOT_INITIALIZED, cuStreamQuery(NULL));
	ASSERT_EQ(CUDA_ERROR_NOT_INITIALIZED, uvmSimIsAvailable(&v));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuDriverGetVersion(NULL));
}

/* cuInit takes no flags, before and after initialisation. */
TEST(init)
{
	unsigned int major, minor;
	int a, b, c;

	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuInit(1));
	ASSERT_EQ(CUDA_SUCCESS, cuInit(0));
	ASSERT_EQ(CUDA_SUCCESS, cuInit(0));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuInit(2));
	ASSERT_EQ(CUDA_SUCCESS, uvmGetDriverApiVersion(&major, &minor));
	ASSERT_EQ(UVM_API_VERSION_MAJOR, major);
	ASSERT_LE(1, minor);
	ASSERT_EQ(CUDA_SUCCESS, uvmGetVersion(&a, &b, &c));
	ASSERT_EQ(UVM_VERSION_MAJOR, a);
	ASSERT_STREQ(UVM_VERSION_STRING, uvmGetVersionString());
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, uvmGetVersion(NULL, &b, &c));
}

/* Every code has a name and a string; unknown codes and NULL are refused. */
TEST(error_names)
{
	const char *s = (const char *)0x1;

	for (int e = 0; e <= 1000; e++) {
		const char *n = NULL, *t = NULL;

		if (cuGetErrorName((CUresult)e, &n) == CUDA_SUCCESS) {
			ASSERT_EQ(CUDA_SUCCESS, cuGetErrorString((CUresult)e, &t));
			ASSERT_NE(NULL, n);
			ASSERT_NE(NULL, t);
		}
	}
	ASSERT_EQ(CUDA_SUCCESS, cuGetErrorString(CUDA_ERROR_INVALID_VALUE, &s));
	ASSERT_STREQ("invalid argument", s);
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuGetErrorName((CUresult)12345, &s));
	ASSERT_EQ(NULL, s);
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuGetErrorString((CUresult)-1, &s));
	ASSERT_EQ(NULL, s);
	/* NVIDIA's driver crashes here; libuvm refuses. */
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuGetErrorName(CUDA_SUCCESS, NULL));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuGetErrorString(CUDA_SUCCESS, NULL));
	ASSERT_STREQ("cudaErrorInvalidValue", cudaGetErrorName(cudaErrorInvalidValue));
	ASSERT_STREQ("invalid argument", cudaGetErrorString(cudaErrorInvalidValue));
	ASSERT_STREQ("unrecognized error code", cudaGetErrorName((cudaError_t)12345));
	ASSERT_STREQ("unrecognized error code", cudaGetErrorString((cudaError_t)-1));
}

/* Devices: count, ordinals, names, memory, as the driver reports them. */
TEST(devices)
{
	struct uvm_ioc_version ver;
	struct uvm_ioc_gpu_info gi;
	char name[128];
	CUdevice d = 77;
	size_t total = 0;
	int n = 0;

	ASSERT_EQ(CUDA_SUCCESS, cuInit(0));
	ASSERT_EQ(0, driver_info(&ver, 0, &gi));
	ASSERT_EQ(CUDA_SUCCESS, cuDeviceGetCount(&n));
	ASSERT_EQ((int)ver.num_gpus, n);
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuDeviceGetCount(NULL));
	ASSERT_EQ(CUDA_SUCCESS, cuDeviceGet(&d, n - 1));
	ASSERT_EQ(n - 1, d);
	d = 77;
	ASSERT_EQ(CUDA_ERROR_INVALID_DEVICE, cuDeviceGet(&d, n));
	ASSERT_EQ(CUDA_ERROR_INVALID_DEVICE, cuDeviceGet(&d, -1));
	ASSERT_EQ(77, d);
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuDeviceGet(NULL, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuDeviceGetName(name, sizeof(name), 0));
	ASSERT_STREQ(gi.name, name);
	ASSERT_EQ(CUDA_SUCCESS, cuDeviceGetName(name, 4, 0));
	ASSERT_EQ(3, strlen(name));
	ASSERT_EQ(CUDA_SUCCESS, cuDeviceGetName(name, 1, 0));
	ASSERT_EQ(0, strlen(name));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuDeviceGetName(name, 0, 0));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuDeviceGetName(name, -1, 0));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuDeviceGetName(NULL, 8, 0));
	ASSERT_EQ(CUDA_ERROR_INVALID_DEVICE, cuDeviceGetName(name, 8, n));
	ASSERT_EQ(CUDA_ERROR_INVALID_DEVICE, cuDeviceGetName(name, 8, CU_DEVICE_CPU));
	ASSERT_EQ(CUDA_SUCCESS, cuDeviceTotalMem(&total, 0));
	ASSERT_EQ(gi.vidmem_size, total);
	ASSERT_EQ(CUDA_ERROR_INVALID_DEVICE, cuDeviceTotalMem(&total, n));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuDeviceTotalMem(NULL, 0));
}

/* The memory-related attributes say what the driver does; numbers 1..147
 * exist, others do not; the device is checked first. */
TEST(device_attributes)
{
	struct uvm_ioc_version ver;
	int v, n;

	ASSERT_EQ(CUDA_SUCCESS, cuInit(0));
	ASSERT_EQ(CUDA_SUCCESS, cuDeviceGetCount(&n));
	ASSERT_EQ(0, driver_info(&ver, 0, NULL));
	for (int a = 1; a <= 147; a++)
		ASSERT_EQ(CUDA_SUCCESS, cuDeviceGetAttribute(&v, (CUdevice_attribute)a, n - 1));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuDeviceGetAttribute(&v, (CUdevice_attribute)0, 0));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MAX, 0));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuDeviceGetAttribute(&v, (CUdevice_attribute)-1, 0));
	ASSERT_EQ(CUDA_ERROR_INVALID_DEVICE, cuDeviceGetAttribute(&v, (CUdevice_attribute)0, n));
	ASSERT_EQ(CUDA_ERROR_INVALID_DEVICE, cuDeviceGetAttribute(&v,
		  CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, CU_DEVICE_CPU));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuDeviceGetAttribute(NULL,
		  CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, 0));
	cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, 0);
	ASSERT_EQ(1, v);
	cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS, 0);
	ASSERT_EQ(1, v);
	cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, 0);
	ASSERT_EQ(1, v);
	cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS, 0);
	ASSERT_EQ(!!(ver.caps & (UVM_CAP_HMM_MIRROR | UVM_CAP_DEVICE_PRIVATE)), v);
	cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES, 0);
	ASSERT_EQ(0, v);
	/* Host memory is pinned and mapped at its own address, read-only on
	 * request. */
	cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED, 0);
	ASSERT_EQ(1, v);
	cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY, 0);
	ASSERT_EQ(1, v);
	cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED, n - 1);
	ASSERT_EQ(1, v);
	cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM, 0);
	ASSERT_EQ(1, v);
	cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_GPU_OVERLAP, 0);
	ASSERT_EQ(1, v);
	cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT, 0);
	ASSERT_LE(1, v);
}

/* The compute mode is the default one, in both APIs' enums. */
TEST(compute_mode)
{
	int v = -1;

	ASSERT_EQ(CUDA_SUCCESS, cuInit(0));
	ASSERT_EQ(CUDA_SUCCESS, cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, 0));
	ASSERT_EQ(CU_COMPUTEMODE_DEFAULT, v);
	v = -1;
	ASSERT_EQ(cudaSuccess, cudaDeviceGetAttribute(&v, cudaDevAttrComputeMode, 0));
	ASSERT_EQ(cudaComputeModeDefault, v);
}

/* Device flags: one scheduling flag, MapHost always reported, never stored;
 * a created context current refuses them. */
TEST(device_flags)
{
	unsigned int f = 0, st = 0;
	int active = -1;
	CUcontext c;

	ASSERT_EQ(cudaSuccess, cudaGetDeviceFlags(&f));
	ASSERT_EQ(cudaDeviceMapHost, f);
	ASSERT_EQ(CUDA_SUCCESS, cuDevicePrimaryCtxGetState(0, &st, &active));
	ASSERT_EQ(0, active);		/* reading did not start the runtime */
	ASSERT_EQ(cudaErrorInvalidValue, cudaGetDeviceFlags(NULL));
	ASSERT_EQ(cudaErrorInvalidValue, cudaGetLastError());
	ASSERT_EQ(cudaSuccess, cudaSetDeviceFlags(cudaDeviceScheduleYield | cudaDeviceSyncMemops));
	ASSERT_EQ(CUDA_SUCCESS, cuDevicePrimaryCtxGetState(0, &st, &active));
	ASSERT_EQ(1, active);
	ASSERT_EQ(cudaDeviceScheduleYield | cudaDeviceSyncMemops, st);
	ASSERT_EQ(CUDA_SUCCESS, cuCtxGetFlags(&f));
	ASSERT_EQ(cudaDeviceScheduleYield | cudaDeviceSyncMemops | cudaDeviceMapHost, f);
	ASSERT_EQ(cudaErrorInvalidValue, cudaSetDeviceFlags(cudaDeviceScheduleSpin |
							     cudaDeviceScheduleYield));
	ASSERT_EQ(cudaErrorInvalidValue, cudaSetDeviceFlags(0x100));
	ASSERT_EQ(cudaSuccess, cudaGetDeviceFlags(&f));
	ASSERT_EQ(cudaDeviceScheduleYield | cudaDeviceSyncMemops | cudaDeviceMapHost, f);
	ASSERT_EQ(cudaSuccess, cudaSetDeviceFlags(cudaDeviceLmemResizeToMax | 0x20));
	ASSERT_EQ(cudaSuccess, cudaGetDeviceFlags(&f));
	ASSERT_EQ(cudaDeviceLmemResizeToMax | cudaDeviceMapHost, f);
	ASSERT_EQ(CUDA_SUCCESS, cuCtxCreate(&c, NULL, CU_CTX_SCHED_SPIN, 0));
	ASSERT_EQ(cudaSuccess, cudaGetDeviceFlags(&f));
	ASSERT_EQ(CU_CTX_SCHED_SPIN, f);
	ASSERT_EQ(cudaErrorIncompatibleDriverContext, cudaSetDeviceFlags(0));
	ASSERT_EQ(CUDA_SUCCESS, cuCtxDestroy(c));
	ASSERT_EQ(cudaSuccess, cudaDeviceReset());
	ASSERT_EQ(cudaSuccess, cudaGetDeviceFlags(&f));
	ASSERT_EQ(cudaDeviceMapHost, f);
}

/* cuGetProcAddress: the pointers are the functions, in the asked version's
 * form; what is not there is said so, bad arguments are refused. */
TEST(proc_address)
{
	PFN_cuDriverGetVersion_v2020 get_version = NULL;
	PFN_cuMemAlloc_v3020 alloc = NULL;
	PFN_cuMemFree_v3020 release = NULL;
	CUdriverProcAddressQueryResult st = (CUdriverProcAddressQueryResult)77;
	enum cudaDriverEntryPointQueryResult rst = (enum cudaDriverEntryPointQueryResult)77;
	CUcontext ctx;
	CUdeviceptr p = 0;
	void *fn = NULL;
	int v = 0;

	/* Before cuInit too. */
	ASSERT_EQ(CUDA_SUCCESS, cuGetProcAddress("cuDriverGetVersion", (void **)&get_version,
						 13000, CU_GET_PROC_ADDRESS_DEFAULT, &st));
	ASSERT_EQ(CU_GET_PROC_ADDRESS_SUCCESS, st);
	ASSERT_EQ((void *)&cuDriverGetVersion, (void *)get_version);
	ASSERT_EQ(CUDA_SUCCESS, get_version(&v));
	ASSERT_EQ(CUDA_VERSION, v);
	ASSERT_EQ(CUDA_SUCCESS, cuInit(0));
	ASSERT_EQ(CUDA_SUCCESS, cuCtxCreate(&ctx, NULL, 0, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuGetProcAddress("cuMemAlloc", (void **)&alloc, 12000, 0, &st));
	ASSERT_EQ(CUDA_SUCCESS, cuGetProcAddress("cuMemFree", (void **)&release, -1, 0, NULL));
	ASSERT_EQ((void *)&cuMemAlloc_v2, (void *)alloc);
	ASSERT_EQ(CUDA_SUCCESS, alloc(&p, 1 << 20));
	ASSERT_NE(0, p);
	ASSERT_EQ(CUDA_SUCCESS, release(p));
	/* Stream forms. */
	ASSERT_EQ(CUDA_SUCCESS, cuGetProcAddress("cuStreamQuery", &fn, 13000,
						 CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &st));
	ASSERT_EQ(dlsym(RTLD_DEFAULT, "cuStreamQuery_ptsz"), fn);
	ASSERT_NE(NULL, fn);
	ASSERT_EQ(CUDA_SUCCESS, cuGetProcAddress("cuStreamQuery", &fn, 13000,
						 CU_GET_PROC_ADDRESS_LEGACY_STREAM, &st));
	ASSERT_EQ(CU_GET_PROC_ADDRESS_SUCCESS, st);
	ASSERT_EQ((void *)&cuStreamQuery, fn);
	/* Too old a version, a form libuvm lacks, an unknown name. */
	ASSERT_EQ(CUDA_SUCCESS, cuGetProcAddress("cuMemCreate", &fn, 10010, 0, &st));
	ASSERT_EQ(CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT, st);
	ASSERT_EQ(NULL, fn);
	ASSERT_EQ(CUDA_SUCCESS, cuGetProcAddress("cuMemAlloc", &fn, 3000, 0, &st));
	ASSERT_EQ(CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND, st);	/* 32-bit form */
	ASSERT_EQ(NULL, fn);
	ASSERT_EQ(CUDA_SUCCESS, cuGetProcAddress("cuMemAlloc_v2", &fn, 13000, 0, &st));
	ASSERT_EQ(CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND, st);
	/* Refused: nothing written. */
	fn = (void *)&v;
	st = (CUdriverProcAddressQueryResult)77;
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuGetProcAddress("cuMemAlloc", &fn, 13001, 0, &st));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuGetProcAddress("cuMemAlloc", &fn, 13000, 4, &st));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuGetProcAddress(NULL, &fn, 13000, 0, &st));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuGetProcAddress("cuMemAlloc", NULL, 13000, 0, &st));
	ASSERT_EQ((void *)&v, fn);
	ASSERT_EQ(77, (int)st);
	/* The runtime's forms. */
	ASSERT_EQ(cudaSuccess, cudaGetDriverEntryPointByVersion("cuMemFree", &fn, 12000,
								 cudaEnableDefault, &rst));
	ASSERT_EQ(cudaDriverEntryPointSuccess, rst);
	ASSERT_EQ((void *)&cuMemFree_v2, fn);
	ASSERT_EQ(cudaErrorInvalidValue, cudaGetDriverEntryPointByVersion("cuMemFree", &fn, 12000,
									   8, &rst));
	ASSERT_EQ(cudaErrorInvalidValue, cudaGetLastError());
	ASSERT_EQ(CUDA_SUCCESS, cuCtxDestroy(ctx));
}

/* The vector types and make_*() in C: members in order, sizes with padding. */
TEST(vector_functions)
{
	int4 i4 = make_int4(1, -2, 3, -4);
	uchar3 c3 = make_uchar3(250, 251, 252);
	double4_32a d4 = make_double4_32a(1.0, 2.0, 3.0, 4.5);
	ulonglong2 u2 = make_ulonglong2(5, 1ULL << 40);
	float3 f3 = make_float3(0.5f, 1.5f, 2.5f);
	dim3 d = { 4, 5, 6 };

	ASSERT_EQ(1, i4.x);
	ASSERT_EQ(-2, i4.y);
	ASSERT_EQ(3, i4.z);
	ASSERT_EQ(-4, i4.w);
	ASSERT_EQ(252, c3.z);
	ASSERT_EQ(3U, sizeof(c3));
	ASSERT_EQ(4.5, d4.w);
	ASSERT_EQ(32U, _Alignof(double4_32a));
	ASSERT_EQ(1ULL << 40, u2.y);
	ASSERT_EQ(2.5f, f3.z);
	ASSERT_EQ(12U, sizeof(f3));
	ASSERT_EQ(6U, d.z);
	ASSERT_EQ(16U, _Alignof(int4));
}

/* cudaGetDeviceProperties: every field its attribute's value, the name,
 * UUID and memory size the driver reports; cuDeviceGetUuid. */
TEST(device_properties)
{
	struct cudaDeviceProp p;
	struct uvm_ioc_gpu_info gi;
	struct uvm_ioc_version ver;
	CUuuid uuid;
	size_t mem;
	char name[256];
	int v, n;

	ASSERT_EQ(CUDA_SUCCESS, cuInit(0));
	ASSERT_EQ(CUDA_SUCCESS, cuDeviceGetCount(&n));
	ASSERT_EQ(1008, sizeof(struct cudaDeviceProp));	/* CUDA 13's */
	for (int d = 0; d < n; d++) {
		memset(&p, 0x5a, sizeof(p));
		ASSERT_EQ(cudaSuccess, cudaGetDeviceProperties(&p, d));
		ASSERT_EQ(CUDA_SUCCESS, cuDeviceGetName(name, sizeof(name), d));
		EXPECT_STREQ(name, p.name);
		ASSERT_EQ(CUDA_SUCCESS, cuDeviceTotalMem(&mem, d));
		EXPECT_EQ(mem, p.totalGlobalMem);
		ASSERT_EQ(0, driver_info(&ver, d, &gi));
		ASSERT_EQ(CUDA_SUCCESS, cuDeviceGetUuid(&uuid, d));
		EXPECT_EQ(0, memcmp(uuid.bytes, gi.uuid, 16));
		EXPECT_EQ(0, memcmp(p.uuid.bytes, gi.uuid, 16));
#define SAME(field, attr) do {							\
		ASSERT_EQ(CUDA_SUCCESS, cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_##attr, d)); \
		EXPECT_EQ((long long)v, (long long)p.field);			\
	} while (0)
		SAME(memPitch, MAX_PITCH);
		SAME(texturePitchAlignment, TEXTURE_PITCH_ALIGNMENT);
		SAME(textureAlignment, TEXTURE_ALIGNMENT);
		SAME(unifiedAddressing, UNIFIED_ADDRESSING);
		SAME(managedMemory, MANAGED_MEMORY);
		SAME(concurrentManagedAccess, CONCURRENT_MANAGED_ACCESS);
		SAME(pageableMemoryAccess, PAGEABLE_MEMORY_ACCESS);
		SAME(asyncEngineCount, ASYNC_ENGINE_COUNT);
		SAME(maxTexture1D, MAXIMUM_TEXTURE1D_WIDTH);
		SAME(maxTexture2D[1], MAXIMUM_TEXTURE2D_HEIGHT);
		SAME(maxTexture2DLinear[2], MAXIMUM_TEXTURE2D_LINEAR_PITCH);
		SAME(maxTexture3DAlt[2], MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE);
		SAME(maxTexture2DLayered[2], MAXIMUM_TEXTURE2D_LAYERED_LAYERS);
		SAME(maxSurfaceCubemapLayered[1], MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS);
		SAME(surfaceAlignment, SURFACE_ALIGNMENT);
		SAME(sparseCudaArraySupported, SPARSE_CUDA_ARRAY_SUPPORTED);
		SAME(deferredMappingCudaArraySupported, DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED);
		SAME(hostNumaId, HOST_NUMA_ID);
		SAME(hostNumaMultinodeIpcSupported, HOST_NUMA_MULTINODE_IPC_SUPPORTED);
#undef SAME
		for (int i = 0; i < 56; i++)
			ASSERT_EQ(0, p.reserved[i]);
		EXPECT_EQ(0, p.luid[0] | p.luid[7]);
	}
	EXPECT_EQ(cudaErrorInvalidDevice, cudaGetDeviceProperties(&p, n));
	EXPECT_EQ(cudaErrorInvalidDevice, cudaGetDeviceProperties(&p, -1));
	EXPECT_EQ(cudaErrorInvalidValue, cudaGetDeviceProperties(NULL, 0));
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, cuDeviceGetUuid(NULL, 0));
	EXPECT_EQ(CUDA_ERROR_INVALID_DEVICE, cuDeviceGetUuid(&uuid, n));
	cudaGetLastError();
}

/* Contexts */

/* A primary context: one handle, retains counted; released to zero it is
 * destroyed with its memory, stays current, answers CONTEXT_IS_DESTROYED,
 * and comes back on the next retain. */
TEST(primary_context)
{
	CUcontext a = NULL, b = NULL, cur = NULL;
	CUdeviceptr p = 0, q = 0;
	unsigned int fl = 7;
	int active = 7, v;

	ASSERT_EQ(CUDA_SUCCESS, cuInit(0));
	ASSERT_EQ(CUDA_SUCCESS, cuDevicePrimaryCtxGetState(0, &fl, &active));
	ASSERT_EQ(0, active);
	ASSERT_EQ(CUDA_ERROR_INVALID_CONTEXT, cuDevicePrimaryCtxRelease(0));
	ASSERT_EQ(CUDA_SUCCESS, cuDevicePrimaryCtxRetain(&a, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuDevicePrimaryCtxRetain(&b, 0));
	ASSERT_EQ(a, b);
	ASSERT_EQ(CUDA_SUCCESS, cuCtxGetCurrent(&cur));
	ASSERT_EQ(NULL, cur);	/* retain does not make it current */
	ASSERT_EQ(CUDA_SUCCESS, cuDevicePrimaryCtxGetState(0, &fl, &active));
	ASSERT_EQ(1, active);
	ASSERT_EQ(CUDA_ERROR_INVALID_DEVICE, cuDevicePrimaryCtxRetain(&b, 99));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuDevicePrimaryCtxRetain(NULL, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuCtxSetCurrent(a));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAllocManaged(&p, MIB, CU_MEM_ATTACH_GLOBAL));
	ASSERT_EQ(CUDA_SUCCESS, cuDevicePrimaryCtxRelease(0));
	ASSERT_EQ(CUDA_SUCCESS, cuPointerGetAttribute(&v, CU_POINTER_ATTRIBUTE_IS_MANAGED, p));
	ASSERT_EQ(CUDA_SUCCESS, cuDevicePrimaryCtxRelease(0));
	/* Destroyed: the memory is gone, the handle stays current. */
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuPointerGetAttribute(&v,
		  CU_POINTER_ATTRIBUTE_IS_MANAGED, p));
	ASSERT_FALSE(is_mapped(p, PAGE));
	ASSERT_EQ(CUDA_SUCCESS, cuCtxGetCurrent(&cur));
	ASSERT_EQ(a, cur);
	ASSERT_EQ(CUDA_ERROR_CONTEXT_IS_DESTROYED, cuCtxSynchronize());
	ASSERT_EQ(CUDA_ERROR_CONTEXT_IS_DESTROYED, cuMemAllocManaged(&q, PAGE, CU_MEM_ATTACH_GLOBAL));
	ASSERT_EQ(CUDA_ERROR_CONTEXT_IS_DESTROYED, cuMemFree(p));
	ASSERT_EQ(CUDA_ERROR_INVALID_CONTEXT, cuDevicePrimaryCtxRelease(0));
	/* Back to life, same handle. */
	ASSERT_EQ(CUDA_SUCCESS, cuDevicePrimaryCtxRetain(&b, 0));
	ASSERT_EQ(a, b);
	ASSERT_EQ(CUDA_SUCCESS, cuCtxSynchronize());
	ASSERT_EQ(CUDA_SUCCESS, cuDevicePrimaryCtxSetFlags(0, CU_CTX_SCHED_YIELD));
	ASSERT_EQ(CUDA_SUCCESS, cuDevicePrimaryCtxGetState(0, &fl, &active));
	ASSERT_EQ(CU_CTX_SCHED_YIELD, fl);
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuDevicePrimaryCtxSetFlags(0, 0x1000));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAllocManaged(&q, PAGE, CU_MEM_ATTACH_GLOBAL));
	ASSERT_EQ(CUDA_SUCCESS, cuDevicePrimaryCtxReset(0));
	ASSERT_FALSE(is_mapped(q, PAGE));
	ASSERT_EQ(CUDA_SUCCESS, cuDevicePrimaryCtxGetState(0, &fl, &active));
	ASSERT_EQ(0, active);
}

/* Created contexts: the per-thread stack, destroy, stale handles. */
TEST(created_contexts)
{
	CUcontext a = NULL, b = NULL, cur = NULL, pri;
	CUctxCreateParams params = { 0 };
	CUdeviceptr p;
	CUdevice d = -1;
	unsigned int fl = 7;
	int n;

	ASSERT_EQ(CUDA_SUCCESS, cuInit(0));
	ASSERT_EQ(CUDA_SUCCESS, cuDeviceGetCount(&n));
	ASSERT_EQ(CUDA_ERROR_INVALID_DEVICE, cuCtxCreate(&a, NULL, 0, n));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuCtxCreate(&a, NULL, 0x100000, 0));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuCtxCreate(NULL, NULL, 0, 0));
	params.numExecAffinityParams = 1;
	ASSERT_EQ(CUDA_ERROR_NOT_SUPPORTED, cuCtxCreate(&a, &params, 0, 0));
	params.numExecAffinityParams = 0;
	ASSERT_EQ(CUDA_SUCCESS, cuCtxCreate(&a, &params, CU_CTX_SCHED_SPIN, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuCtxCreate(&b, NULL, 0, n - 1));
	ASSERT_NE(a, b);
	ASSERT_EQ(CUDA_SUCCESS, cuCtxGetCurrent(&cur));
	ASSERT_EQ(b, cur);
	ASSERT_EQ(CUDA_SUCCESS, cuCtxGetDevice(&d));
	ASSERT_EQ(n - 1, d);
	ASSERT_EQ(CUDA_SUCCESS, cuCtxPopCurrent(&cur));
	ASSERT_EQ(b, cur);
	ASSERT_EQ(CUDA_SUCCESS, cuCtxGetCurrent(&cur));
	ASSERT_EQ(a, cur);
	ASSERT_EQ(CUDA_SUCCESS, cuCtxGetFlags(&fl));
	ASSERT_EQ(CU_CTX_SCHED_SPIN, fl);
	ASSERT_EQ(CUDA_SUCCESS, cuCtxPushCurrent(b));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuCtxPushCurrent(NULL));
	ASSERT_EQ(CUDA_ERROR_INVALID_CONTEXT, cuCtxPushCurrent((CUcontext)(uintptr_t)0x1000));
	ASSERT_EQ(CUDA_ERROR_INVALID_CONTEXT, cuCtxSetCurrent((CUcontext)(uintptr_t)0x1000));
	/* Memory belongs to the context it was made in. */
	p = managed(MIB);
	ASSERT_NE(0, p);
	ASSERT_EQ(CUDA_SUCCESS, cuCtxSetCurrent(a));
	ASSERT_EQ(CUDA_SUCCESS, cuPointerGetAttribute(&cur, CU_POINTER_ATTRIBUTE_CONTEXT, p));
	ASSERT_EQ(b, cur);
	ASSERT_EQ(CUDA_SUCCESS, cuPointerGetAttribute(&d, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, p));
	ASSERT_EQ(n - 1, d);
	ASSERT_EQ(CUDA_SUCCESS, cuCtxDestroy(b));	/* not current here */
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuPointerGetAttribute(&cur,
		  CU_POINTER_ATTRIBUTE_CONTEXT, p));
	ASSERT_EQ(CUDA_ERROR_INVALID_CONTEXT, cuCtxDestroy(b));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuCtxDestroy(NULL));
	ASSERT_EQ(CUDA_SUCCESS, cuDevicePrimaryCtxRetain(&pri, 0));
	ASSERT_EQ(CUDA_ERROR_INVALID_CONTEXT, cuCtxDestroy(pri));
	/* Stack is [a, a... b]: destroying the current pops it. */
	ASSERT_EQ(CUDA_SUCCESS, cuCtxGetCurrent(&cur));
	ASSERT_EQ(a, cur);
	ASSERT_EQ(CUDA_SUCCESS, cuCtxDestroy(a));
	ASSERT_EQ(CUDA_SUCCESS, cuCtxGetCurrent(&cur));
	ASSERT_EQ(a, cur);	/* the entry under it was a too */
	ASSERT_EQ(CUDA_ERROR_CONTEXT_IS_DESTROYED, cuCtxSynchronize());
	ASSERT_EQ(CUDA_SUCCESS, cuCtxSetCurrent(NULL));
	ASSERT_EQ(CUDA_SUCCESS, cuCtxGetCurrent(&cur));
	ASSERT_EQ(NULL, cur);
	ASSERT_EQ(CUDA_ERROR_INVALID_CONTEXT, cuCtxPopCurrent(&cur));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuCtxGetCurrent(NULL));
}

/* Without a current context the calls that need one say so. */
TEST(no_context)
{
	CUdeviceptr p;
	CUstream s;
	CUevent e;
	CUdevice d;
	size_t a, b;

	ASSERT_EQ(CUDA_SUCCESS, cuInit(0));
	ASSERT_EQ(CUDA_ERROR_INVALID_CONTEXT, cuCtxSynchronize());
	ASSERT_EQ(CUDA_ERROR_INVALID_CONTEXT, cuCtxGetDevice(&d));
	ASSERT_EQ(CUDA_ERROR_INVALID_CONTEXT, cuMemAllocManaged(&p, PAGE, CU_MEM_ATTACH_GLOBAL));
	ASSERT_EQ(CUDA_ERROR_INVALID_CONTEXT, cuMemGetInfo(&a, &b));
	ASSERT_EQ(CUDA_ERROR_INVALID_CONTEXT, cuStreamCreate(&s, 0));
	ASSERT_EQ(CUDA_ERROR_INVALID_CONTEXT, cuEventCreate(&e, 0));
	ASSERT_EQ(CUDA_ERROR_INVALID_CONTEXT, cuStreamQuery(NULL));
	ASSERT_EQ(CUDA_ERROR_INVALID_CONTEXT, cuStreamSynchronize(CU_STREAM_PER_THREAD));
	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(0));
	ASSERT_EQ(CUDA_SUCCESS, cuCtxSetCurrent(NULL));
}

/* Streams and events */

FIXTURE(lib) {
	struct lib l;
};

FIXTURE_SETUP(lib)
{
	ASSERT_EQ(CUDA_SUCCESS, lib_init(&self->l));
}

FIXTURE_TEARDOWN(lib)
{
}

/* Stream creation, flags, special handles, stale handles. */
TEST_F(lib, streams)
{
	CUstream s = NULL;
	CUcontext c = NULL;
	unsigned int fl = 7;

	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuStreamCreate(&s, 2));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuStreamCreate(NULL, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamCreate(&s, CU_STREAM_DEFAULT));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamGetFlags(s, &fl));
	ASSERT_EQ(0, fl);
	ASSERT_EQ(CUDA_SUCCESS, cuStreamGetFlags(self->l.s, &fl));
	ASSERT_EQ(CU_STREAM_NON_BLOCKING, fl);
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuStreamGetFlags(s, NULL));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamGetCtx(s, &c));
	ASSERT_EQ(self->l.ctx, c);
	ASSERT_EQ(CUDA_SUCCESS, cuStreamGetCtx(NULL, &c));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamQuery(s));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamSynchronize(s));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamQuery(NULL));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamQuery(CU_STREAM_LEGACY));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamSynchronize(CU_STREAM_PER_THREAD));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamSynchronize_ptsz(NULL));
	ASSERT_EQ(CUDA_ERROR_INVALID_HANDLE, cuStreamDestroy(NULL));
	ASSERT_EQ(CUDA_ERROR_INVALID_HANDLE, cuStreamDestroy(CU_STREAM_LEGACY));
	ASSERT_EQ(CUDA_ERROR_INVALID_HANDLE, cuStreamDestroy(CU_STREAM_PER_THREAD));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamDestroy(s));
	ASSERT_EQ(CUDA_ERROR_INVALID_HANDLE, cuStreamDestroy(s));
	ASSERT_EQ(CUDA_ERROR_INVALID_HANDLE, cuStreamQuery(s));
	ASSERT_EQ(CUDA_ERROR_INVALID_HANDLE, cuStreamSynchronize((CUstream)(uintptr_t)0x1234));
}

/* Events: flags, record, query, wait; never-recorded events are complete. */
TEST_F(lib, events)
{
	CUevent e = NULL, e2 = NULL;

	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuEventCreate(&e, CU_EVENT_INTERPROCESS));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuEventCreate(&e, 16));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuEventCreate(NULL, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuEventCreate(&e2, CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING));
	ASSERT_EQ(CUDA_SUCCESS, cuEventDestroy(e2));
	ASSERT_EQ(CUDA_SUCCESS, cuEventCreate(&e, CU_EVENT_BLOCKING_SYNC));
	ASSERT_EQ(CUDA_SUCCESS, cuEventQuery(e));
	ASSERT_EQ(CUDA_SUCCESS, cuEventSynchronize(e));
	ASSERT_EQ(CUDA_SUCCESS, cuEventRecord(e, self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, cuEventRecord(e, NULL));
	ASSERT_EQ(CUDA_SUCCESS, cuEventRecord(e, CU_STREAM_PER_THREAD));
	ASSERT_EQ(CUDA_SUCCESS, cuEventSynchronize(e));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamWaitEvent(self->l.s, e, 0));
	ASSERT_EQ(CUDA_ERROR_ILLEGAL_STATE, cuStreamWaitEvent(self->l.s, e, CU_EVENT_WAIT_EXTERNAL));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuStreamWaitEvent(self->l.s, e, 2));
	ASSERT_EQ(CUDA_ERROR_INVALID_HANDLE, cuStreamWaitEvent(self->l.s, NULL, 0));
	ASSERT_EQ(CUDA_ERROR_INVALID_HANDLE, cuEventRecord(NULL, NULL));
	ASSERT_EQ(CUDA_ERROR_INVALID_HANDLE, cuEventQuery(NULL));
	ASSERT_EQ(CUDA_ERROR_INVALID_HANDLE, cuEventSynchronize(NULL));
	ASSERT_EQ(CUDA_SUCCESS, cuEventDestroy(e));
	ASSERT_EQ(CUDA_ERROR_INVALID_HANDLE, cuEventDestroy(e));
	ASSERT_EQ(CUDA_ERROR_INVALID_HANDLE, cuEventDestroy(NULL));
}

static double seconds_between(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) + (b->tv_nsec - a->tv_nsec) / 1e9;
}

/*
 * Events time the work between them: when it completed, not when somebody
 * looked (the driver's fence times); pending work is CUDA_ERROR_NOT_READY;
 * events never recorded or without timing are CUDA_ERROR_INVALID_HANDLE.
 */
TEST_F(lib, event_elapsed_time)
{
	const size_t size = 64 * MIB;
	const CUmemLocation gpu0 = { CU_MEM_LOCATION_TYPE_DEVICE, 0 };
	const CUmemLocation host = { CU_MEM_LOCATION_TYPE_HOST, 0 };
	CUdeviceptr p = managed(size);
	struct timespec t0, t1;
	float ms = -1, again = -1;
	CUevent a, b, off;

	ASSERT_NE(0, p);
	ASSERT_EQ(CUDA_SUCCESS, cuEventCreate(&a, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuEventCreate(&b, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuEventCreate(&off, CU_EVENT_DISABLE_TIMING));
	ASSERT_EQ(CUDA_ERROR_INVALID_HANDLE, cuEventElapsedTime(&ms, a, b));
	memset((void *)(uintptr_t)p, 1, size);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_EQ(CUDA_SUCCESS, cuEventRecord(a, self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, cuMemPrefetchAsync(p, size, gpu0, 0, self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, cuEventRecord(b, self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, cuCtxSynchronize());
	clock_gettime(CLOCK_MONOTONIC, &t1);
	usleep(300 * 1000);
	ASSERT_EQ(CUDA_SUCCESS, cuEventElapsedTime(&ms, a, b));
	ASSERT_LT(0.0f, ms);
	ASSERT_GE(seconds_between(&t0, &t1) * 1e3 + 0.5, ms)
		TH_LOG("%.3f ms for work done in %.3f ms: timed at the look, 300 ms later?",
		       ms, seconds_between(&t0, &t1) * 1e3);
	ASSERT_EQ(CUDA_SUCCESS, cuEventElapsedTime(&again, a, b));
	ASSERT_EQ(ms, again);
	ASSERT_EQ(CUDA_SUCCESS, cuEventElapsedTime(&again, b, a));
	ASSERT_EQ(-ms, again);
	/* Pending work between them. */
	ASSERT_EQ(CUDA_SUCCESS, cuEventRecord(a, self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, cuMemPrefetchAsync(p, size, host, 0, self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, cuEventRecord(b, self->l.s));
	ASSERT_EQ(CUDA_ERROR_NOT_READY, cuEventElapsedTime(&ms, a, b));
	ASSERT_EQ(CUDA_SUCCESS, cuEventSynchronize(b));
	ASSERT_EQ(CUDA_SUCCESS, cuEventElapsedTime(&ms, a, b));
	ASSERT_LT(0.0f, ms);
	/* No timing, NULL. */
	ASSERT_EQ(CUDA_SUCCESS, cuEventRecord(off, self->l.s));
	ASSERT_EQ(CUDA_ERROR_INVALID_HANDLE, cuEventElapsedTime(&ms, a, off));
	ASSERT_EQ(CUDA_ERROR_INVALID_HANDLE, cuEventElapsedTime(NULL, a, b));
	ASSERT_EQ(CUDA_ERROR_INVALID_HANDLE, cuEventElapsedTime(&ms, NULL, b));
	ASSERT_EQ(cudaErrorInvalidResourceHandle, cudaEventElapsedTime(&ms, (cudaEvent_t)off,
									(cudaEvent_t)b));
	ASSERT_EQ(cudaErrorInvalidResourceHandle, cudaGetLastError());
	ASSERT_EQ(CUDA_SUCCESS, cuEventDestroy(a));
	ASSERT_EQ(CUDA_SUCCESS, cuEventDestroy(b));
	ASSERT_EQ(CUDA_SUCCESS, cuEventDestroy(off));
	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(p));
}

/* Stream order across streams: a prefetch, an event, a launch on another
 * stream that waits for it finds the data where the prefetch put it. */
TEST_F_TIMEOUT(lib, stream_order, 300)
{
	const size_t size = 4 * MIB;
	CUdeviceptr p = managed(size);
	unsigned long long *w = (unsigned long long *)(uintptr_t)p, sum = 0, faults, want;
	unsigned long long *copy = malloc(size);
	CUstream s2;
	CUevent e;

	ASSERT_NE(0, p);
	if (!self->l.sim)
		SKIP(return, "no simulated GPU launches");
	for (size_t i = 0; i < size / 8; i++)
		copy[i] = w[i] = i ^ 0x5555;
	want = checksum_of(copy, p, size);
	ASSERT_EQ(CUDA_SUCCESS, cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
	ASSERT_EQ(CUDA_SUCCESS, cuEventCreate(&e, CU_EVENT_DISABLE_TIMING));
	ASSERT_EQ(CUDA_SUCCESS, cuMemPrefetchAsync(p, size, DEV(0), 0, self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, cuEventRecord(e, self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamWaitEvent(s2, e, 0));
	faults = counter(UVM_SIM_COUNTER_GPU_FAULTS);
	ASSERT_EQ(CUDA_SUCCESS, gpu_read(0, p, size, s2, &sum));
	/* The launch ran after the prefetch: no GPU faults. */
	ASSERT_EQ(faults, counter(UVM_SIM_COUNTER_GPU_FAULTS));
	ASSERT_EQ(want, sum);
	ASSERT_EQ(CUDA_SUCCESS, cuEventQuery(e));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamQuery(self->l.s));
	ASSERT_TRUE(all_resident(p, size, UVM_SIM_DEVICE_BIT(0)));
	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(p));
	free(copy);
}

/* The legacy stream waits for the blocking streams, not the others. */
TEST_F_TIMEOUT(lib, legacy_stream, 300)
{
	const size_t size = 2 * MIB;
	CUdeviceptr p = managed(size);
	CUstream blocking;

	ASSERT_NE(0, p);
	memset((void *)(uintptr_t)p, 1, size);
	ASSERT_EQ(CUDA_SUCCESS, cuStreamCreate(&blocking, CU_STREAM_DEFAULT));
	ASSERT_EQ(CUDA_SUCCESS, cuMemPrefetchAsync(p, size, DEV(0), 0, blocking));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamSynchronize(NULL));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamQuery(blocking));
	ASSERT_TRUE(all_resident(p, size, UVM_SIM_DEVICE_BIT(0)));
	ASSERT_EQ(CUDA_SUCCESS, cuMemPrefetchAsync(p, size, HOST, 0, NULL));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamSynchronize(blocking));
	ASSERT_TRUE(all_resident(p, size, UVM_SIM_HOST_BIT));
	ASSERT_EQ(CUDA_SUCCESS, cuCtxSynchronize());
}

/* An asynchronous failure (GPU 0 full of device memory, which is never
 * evicted) is reported by the stream's synchronisation, once, and not to
 * another stream; with the memory back the same prefetch works. */
TEST_F_TIMEOUT(lib, async_error, 300)
{
	struct uvm_ioc_version ver;
	struct uvm_ioc_gpu_info gi;
	CUdeviceptr p = managed(4 * MIB), d;
	CUstream other;

	ASSERT_EQ(0, driver_info(&ver, 0, &gi));
	ASSERT_NE(0, p);
	memset((void *)(uintptr_t)p, 0x3c, 4 * MIB);
	ASSERT_EQ(CUDA_SUCCESS, cuMemAlloc(&d, gi.vidmem_size));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamCreate(&other, CU_STREAM_NON_BLOCKING));
	ASSERT_EQ(CUDA_SUCCESS, cuMemPrefetchAsync(p, 4 * MIB, DEV(0), 0, self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamSynchronize(other));
	ASSERT_EQ(CUDA_ERROR_OUT_OF_MEMORY, cuStreamSynchronize(self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamSynchronize(self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, cuCtxSynchronize());
	/* The pages that could not move kept their data. */
	ASSERT_TRUE(bytes_are((void *)(uintptr_t)p, 0x3c, 4 * MIB));
	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(d));
	ASSERT_EQ(CUDA_SUCCESS, cuMemPrefetchAsync(p, 4 * MIB, DEV(0), 0, self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamSynchronize(self->l.s));
	ASSERT_TRUE(all_resident(p, 4 * MIB, UVM_SIM_DEVICE_BIT(0)));
	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(p));
}

/* Prefetching more managed memory than the GPU holds succeeds: the driver
 * evicts the least recently used blocks to the host (PF-14); device memory
 * is never evicted (PF-15); the data survives everything. */
TEST_F_TIMEOUT(lib, prefetch_oversubscribed, 300)
{
	struct uvm_ioc_version ver;
	struct uvm_ioc_gpu_info gi;
	CUdeviceptr p, d;
	size_t size;
	unsigned char *c;

	ASSERT_EQ(0, driver_info(&ver, 0, &gi));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAlloc(&d, 16 * MIB));
	ASSERT_EQ(CUDA_SUCCESS, cuMemsetD8(d, 0xd7, 16 * MIB));
	size = gi.vidmem_size;
	p = managed(size);
	ASSERT_NE(0, p);
	c = (unsigned char *)(uintptr_t)p;
	for (size_t i = 0; i < size; i += PAGE)
		c[i] = (unsigned char)(i / PAGE);
	ASSERT_EQ(CUDA_SUCCESS, cuMemPrefetchAsync(p, size, DEV(0), 0, self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamSynchronize(self->l.s));
	/* The last block prefetched is on the GPU, the first was evicted. */
	ASSERT_TRUE(all_resident(p + size - 2 * MIB, 2 * MIB, UVM_SIM_DEVICE_BIT(0)));
	ASSERT_TRUE(all_resident(p, 2 * MIB, UVM_SIM_HOST_BIT));
	ASSERT_LE(16 * MIB, vidmem_used(0));
	ASSERT_LT(0, counter(UVM_COUNTER_PAGES_EVICTED));
	for (size_t i = 0; i < size; i += 2 * MIB + PAGE)
		ASSERT_EQ((unsigned char)(i / PAGE), c[i]);
	ASSERT_EQ((unsigned char)(size / PAGE - 1), c[size - PAGE]);
	ASSERT_TRUE(device_bytes_are(d, 0xd7, 16 * MIB));
	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(p));
	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(d));
}

/* Managed memory */

/* cuMemAllocManaged arguments (MM-01, MM-02). */
TEST_F(lib, alloc_arguments)
{
	CUdeviceptr p = 0;

	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemAllocManaged(&p, 0, CU_MEM_ATTACH_GLOBAL));
	ASSERT_EQ(0, p);
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemAllocManaged(NULL, PAGE, CU_MEM_ATTACH_GLOBAL));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemAllocManaged(&p, PAGE, 0));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemAllocManaged(&p, PAGE, CU_MEM_ATTACH_SINGLE));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemAllocManaged(&p, PAGE, 3));
	ASSERT_EQ(CUDA_ERROR_OUT_OF_MEMORY, cuMemAllocManaged(&p, 1ULL << 62, CU_MEM_ATTACH_GLOBAL));
	ASSERT_EQ(CUDA_ERROR_OUT_OF_MEMORY, cuMemAllocManaged(&p, ~0ULL, CU_MEM_ATTACH_GLOBAL));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAllocManaged(&p, PAGE, CU_MEM_ATTACH_HOST));
	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(p));
}

/* Fresh managed memory: 2 MiB aligned, zero, usable by the CPU, its own
 * buffer id (PA-07), its size (not rounded) in every answer. */
TEST_F_TIMEOUT(lib, alloc, 300)
{
	CUdeviceptr p = managed(1000), q = managed(3 * MIB), b = 0;
	unsigned long long id1 = 0, id2 = 0, id3 = 0, msize = 0;
	size_t s = 0;

	ASSERT_NE(0, p);
	ASSERT_NE(0, q);
	ASSERT_EQ(0, p % (2 * MIB));
	ASSERT_EQ(0, q % (2 * MIB));
	for (size_t i = 0; i < 3 * MIB; i++)
		ASSERT_EQ(0, ((unsigned char *)(uintptr_t)q)[i]);
	memset((void *)(uintptr_t)q, 0x5a, 3 * MIB);
	ASSERT_EQ(CUDA_SUCCESS, cuMemGetAddressRange(&b, &s, p + 999));
	ASSERT_EQ(p, b);
	ASSERT_EQ(1000, s);
	ASSERT_EQ(CUDA_ERROR_NOT_FOUND, cuMemGetAddressRange(&b, &s, p + 1000));
	ASSERT_EQ(CUDA_ERROR_NOT_FOUND, cuMemGetAddressRange(&b, &s, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuMemGetAddressRange(NULL, NULL, 1));
	ASSERT_EQ(CUDA_SUCCESS, cuMemGetAddressRange(NULL, &s, q + 5));
	ASSERT_EQ(3 * MIB, s);
	ASSERT_EQ(CUDA_SUCCESS, cuPointerGetAttribute(&msize, CU_POINTER_ATTRIBUTE_MAPPING_SIZE, q));
	ASSERT_EQ(4 * MIB, msize);
	ASSERT_EQ(CUDA_SUCCESS, cuPointerGetAttribute(&id1, CU_POINTER_ATTRIBUTE_BUFFER_ID, p));
	ASSERT_EQ(CUDA_SUCCESS, cuPointerGetAttribute(&id2, CU_POINTER_ATTRIBUTE_BUFFER_ID, q));
	ASSERT_NE(id1, id2);
	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(p));
	p = managed(1000);
	ASSERT_EQ(CUDA_SUCCESS, cuPointerGetAttribute(&id3, CU_POINTER_ATTRIBUTE_BUFFER_ID, p));
	ASSERT_LT(id2, id3);
	ASSERT_EQ(0x5a, ((unsigned char *)(uintptr_t)q)[3 * MIB - 1]);
}

/* cuMemFree: NULL, twice, interior, foreign (MM-09..11, MM-13); the range
 * is unmapped afterwards. */
TEST_F(lib, free)
{
	CUdeviceptr p = managed(MIB);
	char stackbuf[16];

	ASSERT_NE(0, p);
	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(0));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemFree(p + 8));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemFree((uintptr_t)stackbuf));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemFree(1));
	ASSERT_TRUE(is_mapped(p, PAGE));
	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(p));
	ASSERT_FALSE(is_mapped(p, PAGE));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemFree(p));
}

/* cuMemFree of memory with queued prefetches waits for them (MM-12): no
 * error surfaces later. */
TEST_F_TIMEOUT(lib, free_with_queued_prefetch, 300)
{
	const size_t size = 16 * MIB;
	CUdeviceptr p = managed(size);

	ASSERT_NE(0, p);
	memset((void *)(uintptr_t)p, 3, size);
	for (int i = 0; i < 8; i++)
		ASSERT_EQ(CUDA_SUCCESS, cuMemPrefetchAsync(p, size, DEV(i & 1 ? 0 : self->l.ndev - 1),
							   0, self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(p));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamSynchronize(self->l.s));
}

/* cuMemGetInfo: the context's GPU; free memory falls as vidmem fills. */
TEST_F_TIMEOUT(lib, mem_get_info, 300)
{
	struct uvm_ioc_version ver;
	struct uvm_ioc_gpu_info gi;
	size_t fr0 = 0, fr1 = 0, total = 0;
	CUdeviceptr p = managed(8 * MIB);

	ASSERT_EQ(0, driver_info(&ver, 0, &gi));
	ASSERT_EQ(CUDA_SUCCESS, cuMemGetInfo(&fr0, &total));
	ASSERT_EQ(gi.vidmem_size, total);
	ASSERT_EQ(CUDA_SUCCESS, cuMemGetInfo(NULL, NULL));
	memset((void *)(uintptr_t)p, 1, 8 * MIB);
	ASSERT_EQ(CUDA_SUCCESS, cuMemPrefetchAsync(p, 8 * MIB, DEV(0), 0, self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamSynchronize(self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, cuMemGetInfo(&fr1, NULL));
	ASSERT_LE(fr1 + 8 * MIB, fr0);
}

/* cuMemAdvise */

/* Arguments of cuMemAdvise_v2: everything is CUDA_ERROR_INVALID_VALUE
 * (ADV-03, -04, -07, -08, -09, -12, -13, -14, -17, -19, -20, -25). */
TEST_F(lib, advise_arguments)
{
	const size_t size = 4 * MIB;
	CUdeviceptr p = managed(size), q = managed(2 * MIB), f = managed(PAGE), sm = managed(1000);
	int n = self->l.ndev;
	char *heap = malloc(MIB);

	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(f));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemAdvise(p, 0, CU_MEM_ADVISE_SET_READ_MOSTLY, HOST));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemAdvise(0, PAGE, CU_MEM_ADVISE_SET_READ_MOSTLY, HOST));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemAdvise(p, PAGE, (CUmem_advise)0, HOST));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemAdvise(p, PAGE, (CUmem_advise)7, HOST));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemAdvise(p, ~0ULL, CU_MEM_ADVISE_SET_READ_MOSTLY, HOST));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemAdvise(p + size - PAGE, 2 * PAGE,
		  CU_MEM_ADVISE_SET_READ_MOSTLY, HOST));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemAdvise(f, PAGE, CU_MEM_ADVISE_SET_READ_MOSTLY, HOST));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemAdvise((uintptr_t)heap, PAGE,
		  CU_MEM_ADVISE_SET_READ_MOSTLY, HOST));
	/* Two allocations are two ranges, adjacent or not. */
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemAdvise(q < p ? q : p, p > q ? p - q + PAGE :
		  q - p + PAGE, CU_MEM_ADVISE_SET_READ_MOSTLY, HOST));
	/* The requested size bounds the range, not its pages. */
	ASSERT_EQ(CUDA_SUCCESS, cuMemAdvise(sm, 1000, CU_MEM_ADVISE_SET_READ_MOSTLY, HOST));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemAdvise(sm, PAGE, CU_MEM_ADVISE_SET_READ_MOSTLY, HOST));
	/* Locations: a valid type is needed even where it is ignored. */
	for (int adv = 1; adv <= 6; adv++) {
		ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemAdvise(p, PAGE, (CUmem_advise)adv,
			  LOC(CU_MEM_LOCATION_TYPE_INVALID, 0)));
		ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemAdvise(p, PAGE, (CUmem_advise)adv,
			  LOC(5, 0)));
		ASSERT_EQ(CUDA_SUCCESS, cuMemAdvise(p, PAGE, (CUmem_advise)adv, DEV(n - 1)));
		ASSERT_EQ(CUDA_SUCCESS, cuMemAdvise(p, PAGE, (CUmem_advise)adv, LOC(2, 12345)));
	}
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemAdvise(p, PAGE, CU_MEM_ADVISE_SET_PREFERRED_LOCATION,
		  DEV(n)));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemAdvise(p, PAGE, CU_MEM_ADVISE_SET_PREFERRED_LOCATION,
		  DEV(-1)));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemAdvise(p, PAGE, CU_MEM_ADVISE_SET_PREFERRED_LOCATION,
		  NUMA(4095)));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAdvise(p, PAGE, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, NUMA(0)));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAdvise(p, PAGE, CU_MEM_ADVISE_SET_PREFERRED_LOCATION,
		  NUMA_CURRENT));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemAdvise(p, PAGE, CU_MEM_ADVISE_SET_ACCESSED_BY, NUMA(0)));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemAdvise(p, PAGE, CU_MEM_ADVISE_UNSET_ACCESSED_BY,
		  NUMA_CURRENT));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemAdvise(p, PAGE, CU_MEM_ADVISE_SET_ACCESSED_BY, DEV(n)));
	/* Ignored locations may name anything of a valid type. */
	ASSERT_EQ(CUDA_SUCCESS, cuMemAdvise(p, PAGE, CU_MEM_ADVISE_SET_READ_MOSTLY, DEV(n + 5)));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAdvise(p, PAGE, CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION,
		  NUMA(4095)));
	free(heap);
}

/* What the range attributes report after advice: rounding to pages
 * (ADV-01, -02), partial ranges (ADV-27, RA-07), HOST and NUMA locations
 * (RA-11), accessed-by lists with two GPUs and the host (RA-05, -08). */
TEST_F(lib, advise_results)
{
	const size_t size = 2 * MIB;
	CUdeviceptr p = managed(size);
	int n = self->l.ndev, ab[5];

	ASSERT_NE(0, p);
	ASSERT_EQ(CUDA_SUCCESS, cuMemAdvise(p + 100, 10, CU_MEM_ADVISE_SET_READ_MOSTLY, HOST));
	ASSERT_EQ(1, range_int(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, p, PAGE));
	ASSERT_EQ(0, range_int(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, p + PAGE, PAGE));
	ASSERT_EQ(0, range_int(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, p, 2 * PAGE));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAdvise(p + PAGE - 1, 2, CU_MEM_ADVISE_SET_PREFERRED_LOCATION,
					    DEV(n - 1)));
	ASSERT_EQ(n - 1, range_int(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, p, 2 * PAGE));
	ASSERT_EQ(CU_MEM_LOCATION_TYPE_DEVICE,
		  range_int(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE, p, 2 * PAGE));
	ASSERT_EQ(n - 1, range_int(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID, p, 2 * PAGE));
	ASSERT_EQ(CU_DEVICE_INVALID, range_int(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, p,
					       3 * PAGE));
	ASSERT_EQ(CU_MEM_LOCATION_TYPE_INVALID,
		  range_int(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE, p, 3 * PAGE));
	ASSERT_EQ(CU_DEVICE_INVALID, range_int(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID, p,
					       3 * PAGE));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAdvise(p, PAGE, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, LOC(2, 9)));
	ASSERT_EQ(CU_DEVICE_CPU, range_int(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, p, PAGE));
	ASSERT_EQ(CU_MEM_LOCATION_TYPE_HOST,
		  range_int(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE, p, PAGE));
	ASSERT_EQ(-1, range_int(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID, p, PAGE));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAdvise(p, PAGE, CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION, HOST));
	ASSERT_EQ(CU_DEVICE_INVALID, range_int(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, p, PAGE));

	/* Accessed-by: devices in order, then the host, then CU_DEVICE_INVALID. */
	ASSERT_EQ(CUDA_SUCCESS, cuMemAdvise(p, PAGE, CU_MEM_ADVISE_SET_ACCESSED_BY, HOST));
	for (int d = n - 1; d >= 0; d--)
		ASSERT_EQ(CUDA_SUCCESS, cuMemAdvise(p, PAGE, CU_MEM_ADVISE_SET_ACCESSED_BY, DEV(d)));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAdvise(p, PAGE, CU_MEM_ADVISE_SET_ACCESSED_BY, DEV(0)));
	memset(ab, 0x55, sizeof(ab));
	ASSERT_EQ(CUDA_SUCCESS, cuMemRangeGetAttribute(ab, 4 * (n + 2),
		  CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, p, PAGE));
	for (int d = 0; d < n; d++)
		ASSERT_EQ(d, ab[d]);
	ASSERT_EQ(CU_DEVICE_CPU, ab[n]);
	ASSERT_EQ(CU_DEVICE_INVALID, ab[n + 1]);
	/* Too small: as many as fit. */
	memset(ab, 0x55, sizeof(ab));
	ASSERT_EQ(CUDA_SUCCESS, cuMemRangeGetAttribute(ab, 4, CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY,
						      p, PAGE));
	ASSERT_EQ(0, ab[0]);
	ASSERT_EQ(0x55555555, ab[1]);
	/* Only on part of the range: not listed. */
	ASSERT_EQ(CUDA_SUCCESS, cuMemRangeGetAttribute(ab, 4, CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY,
						      p, 2 * PAGE));
	ASSERT_EQ(CU_DEVICE_INVALID, ab[0]);
	ASSERT_EQ(CUDA_SUCCESS, cuMemAdvise(p, PAGE, CU_MEM_ADVISE_UNSET_ACCESSED_BY, DEV(0)));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAdvise(p, PAGE, CU_MEM_ADVISE_UNSET_ACCESSED_BY, DEV(0)));
	ASSERT_EQ(CUDA_SUCCESS, cuMemRangeGetAttribute(ab, 4, CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY,
						      p, PAGE));
	ASSERT_EQ(n > 1 ? 1 : CU_DEVICE_CPU, ab[0]);
}

/* SET_PREFERRED_LOCATION moves nothing (ADV-26); SET_ACCESSED_BY maps the
 * GPU where the data is (AB-01). */
TEST_F(lib, advise_effects)
{
	const size_t size = 2 * MIB;
	CUdeviceptr p = managed(size);
	int n = self->l.ndev;

	ASSERT_NE(0, p);
	memset((void *)(uintptr_t)p, 7, size);
	ASSERT_EQ(UVM_SIM_HOST_BIT, resident(p));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAdvise(p, size, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, DEV(0)));
	ASSERT_EQ(UVM_SIM_HOST_BIT, resident(p));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAdvise(p, size, CU_MEM_ADVISE_SET_ACCESSED_BY, DEV(n - 1)));
	ASSERT_EQ(UVM_SIM_HOST_BIT, resident(p));
	ASSERT_TRUE(mapped_read(p) & UVM_SIM_DEVICE_BIT(n - 1));
}

/* Read-mostly through GPU launches: reads duplicate, a write collapses
 * (RD-01, RD-02), data stays right. */
TEST_F_TIMEOUT(lib, read_mostly, 300)
{
	const size_t size = 2 * MIB;
	CUdeviceptr p = managed(size);
	unsigned long long *w = (unsigned long long *)(uintptr_t)p, sum;

	ASSERT_NE(0, p);
	if (!self->l.sim)
		SKIP(return, "no simulated GPU launches");
	for (size_t i = 0; i < size / 8; i++)
		w[i] = i;
	ASSERT_EQ(CUDA_SUCCESS, cuMemAdvise(p, size, CU_MEM_ADVISE_SET_READ_MOSTLY, HOST));
	ASSERT_EQ(CUDA_SUCCESS, gpu_read(0, p, size, NULL, &sum));
	ASSERT_EQ(checksum_of(w, p, size), sum);
	ASSERT_EQ(UVM_SIM_HOST_BIT | UVM_SIM_DEVICE_BIT(0), resident(p));
	w[0] = 42;	/* a CPU write collapses to the CPU */
	ASSERT_EQ(UVM_SIM_HOST_BIT, resident(p));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAdvise(p, size, CU_MEM_ADVISE_UNSET_READ_MOSTLY, HOST));
	ASSERT_EQ(0, range_int(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, p, size));
}

/* The CUDA 12 (CUdevice) form: CU_DEVICE_CPU is the host, bad devices are
 * CUDA_ERROR_INVALID_DEVICE where a device is used (ADV-24, -25). */
TEST_F(lib, advise_legacy)
{
	legacy_advise_fn adv = legacy_advise();
	CUdeviceptr p = managed(MIB);
	int n = self->l.ndev;

	ASSERT_NE(NULL, adv);
	ASSERT_NE((void *)adv, (void *)dlsym(RTLD_DEFAULT, "cuMemAdvise_v2"));
	ASSERT_EQ(CUDA_SUCCESS, adv(p, PAGE, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, CU_DEVICE_CPU));
	ASSERT_EQ(CU_DEVICE_CPU, range_int(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, p, PAGE));
	ASSERT_EQ(CUDA_SUCCESS, adv(p, PAGE, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, n - 1));
	ASSERT_EQ(n - 1, range_int(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, p, PAGE));
	ASSERT_EQ(CUDA_ERROR_INVALID_DEVICE, adv(p, PAGE, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, n));
	ASSERT_EQ(CUDA_ERROR_INVALID_DEVICE, adv(p, PAGE, CU_MEM_ADVISE_SET_ACCESSED_BY,
						 CU_DEVICE_INVALID));
	ASSERT_EQ(CUDA_ERROR_INVALID_DEVICE, adv(p, PAGE, CU_MEM_ADVISE_UNSET_ACCESSED_BY, -3));
	ASSERT_EQ(CUDA_SUCCESS, adv(p, PAGE, CU_MEM_ADVISE_SET_READ_MOSTLY, CU_DEVICE_INVALID));
	ASSERT_EQ(CUDA_SUCCESS, adv(p, PAGE, CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION, n + 7));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, adv(p, PAGE, (CUmem_advise)7, 0));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, adv(p, 0, CU_MEM_ADVISE_SET_READ_MOSTLY, 0));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, adv(0, PAGE, CU_MEM_ADVISE_SET_READ_MOSTLY, 0));
}

/* cuMemPrefetchAsync */

/* Arguments: flags, then the range's null values, then the location
 * (INVALID_DEVICE for a device), then the range (PF-01, -04, -06, -08,
 * -12); a wrapping count is a no-op. */
TEST_F(lib, prefetch_arguments)
{
	CUdeviceptr p = managed(2 * MIB), f = managed(PAGE);
	int n = self->l.ndev;
	char *heap = malloc(MIB);

	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(f));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemPrefetchAsync(p, PAGE, DEV(0), 1, self->l.s));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemPrefetchAsync(p, PAGE, DEV(n), 1, self->l.s));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemPrefetchAsync(p, 0, DEV(n), 0, self->l.s));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemPrefetchAsync(0, PAGE, DEV(n), 0, self->l.s));
	ASSERT_EQ(CUDA_ERROR_INVALID_DEVICE, cuMemPrefetchAsync(f, PAGE, DEV(n), 0, self->l.s));
	ASSERT_EQ(CUDA_ERROR_INVALID_DEVICE, cuMemPrefetchAsync(p, PAGE, DEV(-1), 0, self->l.s));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemPrefetchAsync(p, PAGE, LOC(0, 0), 0, self->l.s));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemPrefetchAsync(p, PAGE, LOC(5, 0), 0, self->l.s));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemPrefetchAsync(p, PAGE, NUMA(-1), 0, self->l.s));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemPrefetchAsync(f, PAGE, DEV(0), 0, self->l.s));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemPrefetchAsync((uintptr_t)heap, PAGE, DEV(0), 0,
							       self->l.s));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemPrefetchAsync(p + MIB, 2 * MIB, DEV(0), 0,
							       self->l.s));
	ASSERT_EQ(CUDA_ERROR_INVALID_HANDLE, cuMemPrefetchAsync(p, PAGE, DEV(0), 0,
								(CUstream)(uintptr_t)0x999));
	/* Wrapping: accepted, nothing happens. */
	ASSERT_EQ(CUDA_SUCCESS, cuMemPrefetchAsync(p, ~0ULL, DEV(0), 0, self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, cuMemPrefetchAsync(p, 0 - p, DEV(0), 0, self->l.s));
	ASSERT_EQ(CU_DEVICE_INVALID, range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, p,
					       PAGE));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemPrefetchAsync(f, ~0ULL, DEV(0), 0, self->l.s));
	/* Every stream kind is fine for the single call (PF-22). */
	ASSERT_EQ(CUDA_SUCCESS, cuMemPrefetchAsync(p, PAGE, HOST, 0, NULL));
	ASSERT_EQ(CUDA_SUCCESS, cuMemPrefetchAsync(p, PAGE, HOST, 0, CU_STREAM_LEGACY));
	ASSERT_EQ(CUDA_SUCCESS, cuMemPrefetchAsync(p, PAGE, HOST, 0, CU_STREAM_PER_THREAD));
	ASSERT_EQ(CUDA_SUCCESS, cuMemPrefetchAsync_v2_ptsz(p, PAGE, HOST, 0, NULL));
	ASSERT_EQ(CUDA_SUCCESS, cuCtxSynchronize());
	free(heap);
}

/* Data moves where asked, populating untouched pages (PF-13), whole pages
 * of an unaligned range (PF-11); LAST_PREFETCH_LOCATION is the request, at
 * once (PF-17), and names what the caller named (RA-13). */
TEST_F_TIMEOUT(lib, prefetch_moves, 300)
{
	const size_t size = 4 * MIB;
	CUdeviceptr p = managed(size), fresh = managed(2 * MIB);
	unsigned long long *w = (unsigned long long *)(uintptr_t)p, sum = 0;
	int n = self->l.ndev, d = n - 1;

	for (size_t i = 0; i < size / 8; i++)
		w[i] = ~i;
	ASSERT_EQ(CUDA_SUCCESS, cuMemPrefetchAsync(p, size, DEV(d), 0, self->l.s));
	ASSERT_EQ(d, range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, p, size));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamSynchronize(self->l.s));
	ASSERT_TRUE(all_resident(p, size, UVM_SIM_DEVICE_BIT(d)));
	if (self->l.sim) {
		ASSERT_EQ(CUDA_SUCCESS, gpu_read(d, p, size, self->l.s, &sum));
		ASSERT_EQ(checksum_of(w, p, size), sum);
	}
	ASSERT_EQ(CUDA_SUCCESS, cuMemPrefetchAsync(fresh + 100, 2 * PAGE, DEV(0), 0, self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamSynchronize(self->l.s));
	ASSERT_TRUE(all_resident(fresh, 3 * PAGE, UVM_SIM_DEVICE_BIT(0)));
	ASSERT_EQ(0, resident(fresh + 3 * PAGE));
	ASSERT_EQ(CU_MEM_LOCATION_TYPE_DEVICE,
		  range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE, fresh, 3 * PAGE));

	/* Host destinations and the ids NVIDIA's driver reports. */
	ASSERT_EQ(CUDA_SUCCESS, cuMemPrefetchAsync(p, PAGE, LOC(2, 777), 0, self->l.s));
	ASSERT_EQ(CU_DEVICE_CPU, range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, p, PAGE));
	ASSERT_EQ(CU_MEM_LOCATION_TYPE_HOST,
		  range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE, p, PAGE));
	ASSERT_EQ(-1, range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID, p, PAGE));
	ASSERT_EQ(CUDA_SUCCESS, cuMemPrefetchAsync(p, PAGE, NUMA(0), 0, self->l.s));
	ASSERT_EQ(CU_MEM_LOCATION_TYPE_HOST_NUMA,
		  range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE, p, PAGE));
	ASSERT_EQ(0, range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID, p, PAGE));
	ASSERT_EQ(CUDA_SUCCESS, cuMemPrefetchAsync(p, PAGE, LOC(4, 55), 0, self->l.s));
	ASSERT_EQ(CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT,
		  range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE, p, PAGE));
	ASSERT_EQ(55, range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID, p, PAGE));
	ASSERT_EQ(CU_DEVICE_INVALID, range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, p,
					       2 * PAGE));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamSynchronize(self->l.s));
	ASSERT_EQ(UVM_SIM_HOST_BIT, resident(p));
	ASSERT_EQ(~0ULL, w[0]);
}

/* The CUDA 12 form: CU_DEVICE_CPU, INVALID_DEVICE (PF-07). */
TEST_F(lib, prefetch_legacy)
{
	legacy_prefetch_fn pf = legacy_prefetch();
	CUdeviceptr p = managed(MIB);

	ASSERT_NE(NULL, pf);
	memset((void *)(uintptr_t)p, 1, MIB);
	ASSERT_EQ(CUDA_SUCCESS, pf(p, MIB, 0, self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamSynchronize(self->l.s));
	ASSERT_TRUE(all_resident(p, MIB, UVM_SIM_DEVICE_BIT(0)));
	ASSERT_EQ(CUDA_SUCCESS, pf(p, MIB, CU_DEVICE_CPU, NULL));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamSynchronize(NULL));
	ASSERT_TRUE(all_resident(p, MIB, UVM_SIM_HOST_BIT));
	ASSERT_EQ(-1, range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID, p, MIB));
	ASSERT_EQ(CUDA_ERROR_INVALID_DEVICE, pf(p, MIB, CU_DEVICE_INVALID, NULL));
	ASSERT_EQ(CUDA_ERROR_INVALID_DEVICE, pf(p, MIB, self->l.ndev, NULL));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, pf(p, 0, 0, NULL));
}

/* Batches */

/* Validation of the batch calls (BT-01..06, -09, -10, -13, -14, -17). */
TEST_F(lib, batch_arguments)
{
	const size_t n = 4;
	CUdeviceptr a = managed(4 * MIB), f = managed(PAGE), d[4];
	size_t sz[4], idx[2] = { 0, 2 }, bad[3];
	CUmemLocation l[2] = { DEV(0), HOST };
	CUstream s = self->l.s;

	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(f));
	for (size_t i = 0; i < n; i++) {
		d[i] = a + i * MIB;
		sz[i] = MIB;
	}
	ASSERT_EQ(CUDA_SUCCESS, cuMemPrefetchBatchAsync(d, sz, n, l, idx, 2, 0, s));
	ASSERT_EQ(CUDA_SUCCESS, cuMemPrefetchBatchAsync(d, sz, n, l, idx, 2, 0, CU_STREAM_PER_THREAD));
	ASSERT_EQ(CUDA_SUCCESS, cuMemPrefetchBatchAsync_ptsz(d, sz, n, l, idx, 2, 0, NULL));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemPrefetchBatchAsync(d, sz, n, l, idx, 2, 0, NULL));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemPrefetchBatchAsync(d, sz, n, l, idx, 2, 0,
								    CU_STREAM_LEGACY));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemDiscardBatchAsync(d, sz, n, 0, NULL));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemDiscardAndPrefetchBatchAsync(d, sz, n, l, idx, 2,
									      0, CU_STREAM_LEGACY));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemPrefetchBatchAsync(d, sz, n, l, idx, 2, 1, s));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemDiscardBatchAsync(d, sz, n, 1ULL << 63, s));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemPrefetchBatchAsync(d, sz, 0, l, idx, 1, 0, s));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemDiscardBatchAsync(d, sz, 0, 0, s));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemPrefetchBatchAsync(d, sz, n, l, idx, 0, 0, s));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemPrefetchBatchAsync(d, sz, 1, l, idx, 2, 0, s));
	bad[0] = 1; bad[1] = 2;
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemPrefetchBatchAsync(d, sz, n, l, bad, 2, 0, s));
	bad[0] = 0; bad[1] = n;
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemPrefetchBatchAsync(d, sz, n, l, bad, 2, 0, s));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemPrefetchBatchAsync(NULL, sz, n, l, idx, 2, 0, s));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemPrefetchBatchAsync(d, NULL, n, l, idx, 2, 0, s));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemPrefetchBatchAsync(d, sz, n, NULL, idx, 2, 0, s));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemPrefetchBatchAsync(d, sz, n, l, NULL, 2, 0, s));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemDiscardBatchAsync(NULL, sz, n, 0, s));
	/* Every location is checked; a bad device is INVALID_VALUE here. */
	l[1] = DEV(self->l.ndev);
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemPrefetchBatchAsync(d, sz, n, l, idx, 2, 0, s));
	l[1] = LOC(0, 0);
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemDiscardAndPrefetchBatchAsync(d, sz, n, l, idx, 2,
									      0, s));
	l[1] = HOST;
	/* Indices need not increase; equal ones are fine. */
	bad[0] = 0; bad[1] = 3; bad[2] = 1;
	ASSERT_EQ(CUDA_SUCCESS, cuMemPrefetchBatchAsync(d, sz, n, l, bad, 2, 0, s));
	bad[1] = 0;
	ASSERT_EQ(CUDA_SUCCESS, cuMemPrefetchBatchAsync(d, sz, n, l, bad, 2, 0, s));
	/* Bad ranges. */
	sz[2] = 0;
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemPrefetchBatchAsync(d, sz, n, l, idx, 2, 0, s));
	sz[2] = MIB;
	d[2] = 0;
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemDiscardBatchAsync(d, sz, n, 0, s));
	d[2] = f;
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemPrefetchBatchAsync(d, sz, n, l, idx, 2, 0, s));
	d[2] = a + 4 * MIB - PAGE;
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemPrefetchBatchAsync(d, sz, n, l, idx, 2, 0, s));
	/* Wrapping entries are no-ops; overlapping ones are fine (BT-15). */
	d[2] = a;
	sz[2] = ~0ULL;
	ASSERT_EQ(CUDA_SUCCESS, cuMemPrefetchBatchAsync(d, sz, n, l, idx, 2, 0, s));
	sz[2] = 4 * MIB;
	ASSERT_EQ(CUDA_SUCCESS, cuMemDiscardAndPrefetchBatchAsync(d, sz, n, l, idx, 2, 0, s));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamSynchronize(s));
}

/* The location grouping of the documents' example (BT-07): ops 0-3 to one
 * place, 4-9 to another; CUDA's reading of non-increasing indices; the ops
 * before a bad range run (NVIDIA's driver: probe_prefetch "r2.atomic"). */
TEST_F_TIMEOUT(lib, batch_grouping, 300)
{
	CUdeviceptr a = managed(10 * MIB), d[10], f = managed(PAGE);
	size_t sz[10], idx[3] = { 0, 4 }, odd[3] = { 0, 5, 3 };
	int n = self->l.ndev;
	CUmemLocation l[3] = { DEV(n - 1), HOST, DEV(0) };

	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(f));
	memset((void *)(uintptr_t)a, 9, 10 * MIB);
	for (int i = 0; i < 10; i++) {
		d[i] = a + i * MIB;
		sz[i] = MIB;
	}
	ASSERT_EQ(CUDA_SUCCESS, cuMemPrefetchBatchAsync(d, sz, 10, l, idx, 2, 0, self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamSynchronize(self->l.s));
	ASSERT_TRUE(all_resident(a, 4 * MIB, UVM_SIM_DEVICE_BIT(n - 1)));
	ASSERT_TRUE(all_resident(a + 4 * MIB, 6 * MIB, UVM_SIM_HOST_BIT));
	/* A batch keeps the caller's host id. */
	ASSERT_EQ(0, range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID, d[9], MIB));

	ASSERT_EQ(CUDA_SUCCESS, cuMemPrefetchBatchAsync(d, sz, 10, l, odd, 3, 0, self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamSynchronize(self->l.s));
	ASSERT_TRUE(all_resident(a, 5 * MIB, UVM_SIM_DEVICE_BIT(n - 1)));
	ASSERT_TRUE(all_resident(a + 5 * MIB, 5 * MIB, UVM_SIM_HOST_BIT));

	/* A bad range in the middle: the ones before it run. */
	d[5] = f;
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemPrefetchBatchAsync(d, sz, 10, l + 2, idx, 1, 0,
								    self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamSynchronize(self->l.s));
	ASSERT_TRUE(all_resident(a, 5 * MIB, UVM_SIM_DEVICE_BIT(0)));
	ASSERT_TRUE(all_resident(a + 6 * MIB, 4 * MIB, UVM_SIM_HOST_BIT));
	ASSERT_EQ(0x0909090909090909ULL, *(unsigned long long *)(uintptr_t)(a + 9 * MIB));
}

/* Discard drops contents (reads return zeros here: never stale data,
 * DS-01), a write afterwards sticks (DS-02), the last prefetch location is
 * kept; discard-and-prefetch populates the destination (DS-08). */
TEST_F_TIMEOUT(lib, discard, 300)
{
	const size_t size = 4 * MIB;
	CUdeviceptr a = managed(size);
	unsigned char *c = (unsigned char *)(uintptr_t)a;
	CUdeviceptr d[2] = { a, a + 2 * MIB };
	size_t sz[2] = { PAGE, 2 * MIB }, idx[1] = { 0 };
	CUmemLocation l[1] = { DEV(0) };
	unsigned long long discarded = counter(UVM_SIM_COUNTER_PAGES_DISCARDED);

	memset(c, 0x77, size);
	ASSERT_EQ(CUDA_SUCCESS, cuMemPrefetchAsync(a, size, DEV(0), 0, self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, cuMemDiscardBatchAsync(d, sz, 2, 0, self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamSynchronize(self->l.s));
	ASSERT_LE(discarded + 1 + 512, counter(UVM_SIM_COUNTER_PAGES_DISCARDED));
	ASSERT_EQ(0, resident(a));
	ASSERT_EQ(UVM_SIM_DEVICE_BIT(0), resident(a + PAGE));
	ASSERT_EQ(0, range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, a, size));
	ASSERT_EQ(0, c[0]);
	ASSERT_EQ(0x77, c[PAGE]);
	c[1] = 5;
	ASSERT_EQ(5, c[1]);
	ASSERT_EQ(CUDA_SUCCESS, cuMemDiscardAndPrefetchBatchAsync(d, sz, 2, l, idx, 1, 0, self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamSynchronize(self->l.s));
	ASSERT_TRUE(all_resident(a + 2 * MIB, 2 * MIB, UVM_SIM_DEVICE_BIT(0)));
	ASSERT_EQ(0, c[1]);
	ASSERT_EQ(0, c[2 * MIB + 5]);
}

/* Range attributes */

/* dataSize rules, unknown attributes, NULL data, ranges (RA-01..04,
 * RA-16..18); a wrapping range answers as for no pages. */
TEST_F(lib, range_attribute_arguments)
{
	CUdeviceptr p = managed(2 * MIB), f = managed(PAGE);
	int v[8], n = self->l.ndev;

	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(f));
	for (int a = 1; a <= 8; a++) {
		for (size_t s = 0; s <= 20; s++) {
			int ok = a == 3 ? s && s % 4 == 0 : s == 4;

			ASSERT_EQ(ok ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE,
				  cuMemRangeGetAttribute(v, s, (CUmem_range_attribute)a, p, PAGE));
		}
	}
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemRangeGetAttribute(v, 4, (CUmem_range_attribute)0,
								   p, PAGE));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemRangeGetAttribute(v, 4, (CUmem_range_attribute)9,
								   p, PAGE));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemRangeGetAttribute(NULL, 4,
		  CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, p, PAGE));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemRangeGetAttribute(v, 4,
		  CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, p, 0));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemRangeGetAttribute(v, 4,
		  CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, 0, PAGE));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemRangeGetAttribute(v, 4,
		  CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, f, PAGE));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemRangeGetAttribute(v, 4,
		  CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, p + MIB, 2 * MIB));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemRangeGetAttribute(v, 4,
		  CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, (uintptr_t)v, 4));
	/* Wrapping: read-mostly "on every page", every processor accessed-by,
	 * no common location. */
	ASSERT_EQ(1, range_int(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, p, ~0ULL));
	ASSERT_EQ(CU_DEVICE_INVALID, range_int(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, p, ~0ULL));
	ASSERT_EQ(0, range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE, p, ~0ULL));
	memset(v, 0, sizeof(v));
	ASSERT_EQ(CUDA_SUCCESS, cuMemRangeGetAttribute(v, 4 * (n + 2),
		  CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, p, ~0ULL));
	for (int d = 0; d < n; d++)
		ASSERT_EQ(d, v[d]);
	ASSERT_EQ(CU_DEVICE_CPU, v[n]);
	ASSERT_EQ(CU_DEVICE_INVALID, v[n + 1]);
}

/* cuMemRangeGetAttributes: all checked before anything is written (RA-19,
 * RA-20). */
TEST_F(lib, range_attributes)
{
	CUdeviceptr p = managed(2 * MIB);
	int rm = 77, pt = 77, ab[2] = { 77, 77 };
	void *data[3] = { &rm, &pt, ab };
	size_t ds[3] = { 4, 4, 8 };
	CUmem_range_attribute at[3] = { CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY,
		CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE, CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY };

	ASSERT_EQ(CUDA_SUCCESS, cuMemAdvise(p, PAGE, CU_MEM_ADVISE_SET_READ_MOSTLY, HOST));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAdvise(p, PAGE, CU_MEM_ADVISE_SET_ACCESSED_BY, DEV(0)));
	ds[2] = 6;
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemRangeGetAttributes(data, ds, at, 3, p, PAGE));
	ASSERT_EQ(77, rm);
	ds[2] = 8;
	at[1] = (CUmem_range_attribute)42;
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemRangeGetAttributes(data, ds, at, 3, p, PAGE));
	ASSERT_EQ(77, rm);
	at[1] = CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE;
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemRangeGetAttributes(data, ds, at, 0, p, PAGE));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemRangeGetAttributes(NULL, ds, at, 3, p, PAGE));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemRangeGetAttributes(data, NULL, at, 3, p, PAGE));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemRangeGetAttributes(data, ds, NULL, 3, p, PAGE));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemRangeGetAttributes(data, ds, at, 3, p, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuMemRangeGetAttributes(data, ds, at, 3, p, PAGE));
	ASSERT_EQ(1, rm);
	ASSERT_EQ(CU_MEM_LOCATION_TYPE_INVALID, pt);
	ASSERT_EQ(0, ab[0]);
	ASSERT_EQ(CU_DEVICE_INVALID, ab[1]);
}

/* Pointer attributes */

/* Every attribute of managed memory: NVIDIA's values and widths (PA-05,
 * -08, -10, -13, -14, -15, -17). */
TEST_F(lib, pointer_attributes)
{
	CUdeviceptr p = managed(1000);
	unsigned char buf[32];
	CUDA_POINTER_ATTRIBUTE_P2P_TOKENS tok;
	unsigned long long u64;
	unsigned int u32;
	CUcontext c;

	ASSERT_EQ(CUDA_SUCCESS, cuPointerGetAttribute(&c, CU_POINTER_ATTRIBUTE_CONTEXT, p + 10));
	ASSERT_EQ(self->l.ctx, c);
	memset(buf, 0xAA, sizeof(buf));
	ASSERT_EQ(CUDA_SUCCESS, cuPointerGetAttribute(buf, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p));
	ASSERT_EQ(CU_MEMORYTYPE_DEVICE, *(unsigned int *)buf);
	ASSERT_EQ(0xAA, buf[4]);
	ASSERT_EQ(CUDA_SUCCESS, cuPointerGetAttribute(&u64, CU_POINTER_ATTRIBUTE_DEVICE_POINTER, p + 9));
	ASSERT_EQ(p + 9, u64);
	ASSERT_EQ(CUDA_SUCCESS, cuPointerGetAttribute(&u64, CU_POINTER_ATTRIBUTE_HOST_POINTER, p + 9));
	ASSERT_EQ(p + 9, u64);
	ASSERT_EQ(CUDA_SUCCESS, cuPointerGetAttribute(&u32, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, p));
	ASSERT_EQ(1, u32);
	memset(&tok, 0xAA, sizeof(tok));
	ASSERT_EQ(CUDA_SUCCESS, cuPointerGetAttribute(&tok, CU_POINTER_ATTRIBUTE_P2P_TOKENS, p));
	ASSERT_EQ(0, tok.p2pToken);
	ASSERT_EQ(CUDA_SUCCESS, cuPointerGetAttribute(&u32, CU_POINTER_ATTRIBUTE_IS_MANAGED, p + 999));
	ASSERT_EQ(1, u32);
	ASSERT_EQ(CUDA_SUCCESS, cuPointerGetAttribute(&u32, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, p));
	ASSERT_EQ(0, u32);
	ASSERT_EQ(CUDA_SUCCESS, cuPointerGetAttribute(&u64, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
						     p + 500));
	ASSERT_EQ(p, u64);
	ASSERT_EQ(CUDA_SUCCESS, cuPointerGetAttribute(&u64, CU_POINTER_ATTRIBUTE_RANGE_SIZE, p));
	ASSERT_EQ(1000, u64);
	ASSERT_EQ(CUDA_SUCCESS, cuPointerGetAttribute(&u32, CU_POINTER_ATTRIBUTE_MAPPED, p));
	ASSERT_EQ(1, u32);
	ASSERT_EQ(CUDA_SUCCESS, cuPointerGetAttribute(&u32, CU_POINTER_ATTRIBUTE_ACCESS_FLAGS, p));
	ASSERT_EQ(3, u32);
	ASSERT_EQ(CUDA_SUCCESS, cuPointerGetAttribute(&u64, CU_POINTER_ATTRIBUTE_MAPPING_SIZE, p));
	ASSERT_EQ(2 * MIB, u64);
	ASSERT_EQ(CUDA_SUCCESS, cuPointerGetAttribute(&u64, CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR,
						     p + 7));
	ASSERT_EQ(p, u64);
	for (int a = 1; a <= 21; a++)
		ASSERT_EQ(CUDA_SUCCESS, cuPointerGetAttribute(buf, (CUpointer_attribute)a, p));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuPointerGetAttribute(buf, (CUpointer_attribute)22, p));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuPointerGetAttribute(buf, (CUpointer_attribute)0, p));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuPointerGetAttribute(NULL, CU_POINTER_ATTRIBUTE_CONTEXT, p));
	/* One past the end, foreign memory (PA-01, -02, -06). */
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuPointerGetAttribute(&u32, CU_POINTER_ATTRIBUTE_IS_MANAGED,
								  p + 1000));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuPointerGetAttribute(&u32, CU_POINTER_ATTRIBUTE_IS_MANAGED,
								  (uintptr_t)buf));
}

/* cuPointerGetAttributes: defaults for foreign memory (PA-03), in order,
 * failing at P2P_TOKENS or an unknown attribute (PA-04, PA-27). */
TEST_F(lib, pointer_get_attributes)
{
	CUdeviceptr p = managed(PAGE);
	CUpointer_attribute at[4] = { CU_POINTER_ATTRIBUTE_IS_MANAGED,
		CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, CU_POINTER_ATTRIBUTE_HOST_POINTER,
		CU_POINTER_ATTRIBUTE_RANGE_SIZE };
	unsigned long long v[4];
	void *data[4] = { &v[0], &v[1], &v[2], &v[3] };
	char local;

	memset(v, 0xAA, sizeof(v));
	ASSERT_EQ(CUDA_SUCCESS, cuPointerGetAttributes(4, at, data, (uintptr_t)&local));
	ASSERT_EQ(0xAAAAAAAA00000000ULL, v[0]);
	ASSERT_EQ(0xAAAAAAAAFFFFFFFEULL, v[1]);
	ASSERT_EQ((uintptr_t)&local, v[2]);
	ASSERT_EQ(0xAAAAAAAAAAAAAAAAULL, v[3]);	/* not written */
	ASSERT_EQ(CUDA_SUCCESS, cuPointerGetAttributes(4, at, data, p));
	ASSERT_EQ(1, (unsigned int)v[0]);
	ASSERT_EQ(PAGE, v[3]);
	at[1] = CU_POINTER_ATTRIBUTE_P2P_TOKENS;
	memset(v, 0xAA, sizeof(v));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuPointerGetAttributes(4, at, data, p));
	ASSERT_EQ(1, (unsigned int)v[0]);	/* the first was written */
	at[1] = (CUpointer_attribute)99;
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuPointerGetAttributes(4, at, data, p));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuPointerGetAttributes(0, at, data, p));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuPointerGetAttributes(1, NULL, data, p));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuPointerGetAttributes(1, at, NULL, p));
	data[0] = NULL;
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuPointerGetAttributes(1, at, data, p));
}

/* cuPointerSetAttribute: SYNC_MEMOPS only (PA-18, PA-19, PA-20). */
TEST_F(lib, pointer_set_attribute)
{
	CUdeviceptr p = managed(PAGE);
	unsigned int v;

	v = 0;
	ASSERT_EQ(CUDA_SUCCESS, cuPointerSetAttribute(&v, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, p + 5));
	ASSERT_EQ(CUDA_SUCCESS, cuPointerGetAttribute(&v, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, p));
	ASSERT_EQ(0, v);
	v = 2;
	ASSERT_EQ(CUDA_SUCCESS, cuPointerSetAttribute(&v, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, p));
	ASSERT_EQ(CUDA_SUCCESS, cuPointerGetAttribute(&v, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, p));
	ASSERT_EQ(1, v);
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuPointerSetAttribute(&v, CU_POINTER_ATTRIBUTE_IS_MANAGED, p));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuPointerSetAttribute(&v, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS,
								  p + PAGE));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuPointerSetAttribute(NULL, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS,
								  p));
}

/* Device memory */

/* cuMemAlloc arguments: NULL, 0 bytes, more than the GPU holds, sizes that
 * overflow, no current context (MA-01..05). */
TEST_F(lib, mem_alloc_arguments)
{
	struct uvm_ioc_version ver;
	struct uvm_ioc_gpu_info gi;
	CUdeviceptr d = 0;
	CUcontext c;
	void *h = NULL;

	ASSERT_EQ(0, driver_info(&ver, 0, &gi));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemAlloc(NULL, PAGE));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemAlloc(&d, 0));
	ASSERT_EQ(CUDA_ERROR_OUT_OF_MEMORY, cuMemAlloc(&d, gi.vidmem_size + 2 * MIB));
	ASSERT_EQ(CUDA_ERROR_OUT_OF_MEMORY, cuMemAlloc(&d, 1ULL << 50));
	ASSERT_EQ(CUDA_ERROR_OUT_OF_MEMORY, cuMemAlloc(&d, (size_t)-1));
	ASSERT_EQ(0, d);
	ASSERT_EQ(CUDA_SUCCESS, cuCtxPopCurrent(&c));
	ASSERT_EQ(CUDA_ERROR_INVALID_CONTEXT, cuMemAlloc(&d, PAGE));
	ASSERT_EQ(CUDA_ERROR_INVALID_CONTEXT, cuMemAllocHost(&h, PAGE));
	ASSERT_EQ(CUDA_ERROR_INVALID_CONTEXT, cuMemHostRegister(&h, sizeof(h), 0));
	ASSERT_EQ(CUDA_ERROR_INVALID_CONTEXT, cuMemcpy((uintptr_t)&d, (uintptr_t)&h, 8));
	ASSERT_EQ(CUDA_ERROR_INVALID_CONTEXT, cuMemsetD8((uintptr_t)&h, 0, 8));
}

/* Small requests share 2 MiB chunks at the lowest free multiple of 512
 * bytes, as NVIDIA's driver places them (probe_copy "cp.place.*"); each is
 * its own allocation with its own buffer id, in one memory block; 2 MiB and
 * more get a mapping of their own, in whole 2 MiB.  The CPU cannot touch
 * device memory. */
TEST_F(lib, mem_alloc_small)
{
	static const size_t sz[6] = { 1, 1, 100, 1000, 4096, 513 };
	static const size_t at[6] = { 0, 512, 1024, 1536, 2560, 6656 };
	CUdeviceptr d[6], e, big, big3, b;
	size_t s;

	for (int i = 0; i < 6; i++) {
		ASSERT_EQ(CUDA_SUCCESS, cuMemAlloc(&d[i], sz[i]));
		ASSERT_EQ(d[0] + at[i], d[i]) TH_LOG("allocation %d", i);
	}
	ASSERT_EQ(0, d[0] % (2 * MIB));
	ASSERT_STREQ("---s", map_perms((void *)(uintptr_t)d[0]));
	ASSERT_EQ(CUDA_SUCCESS, cuMemGetAddressRange(&b, &s, d[3] + 999));
	ASSERT_EQ(d[3], b);
	ASSERT_EQ(1000, s);
	ASSERT_EQ(CUDA_ERROR_NOT_FOUND, cuMemGetAddressRange(&b, &s, d[3] + 1000));
	ASSERT_EQ(2 * MIB, ptr_attr(CU_POINTER_ATTRIBUTE_MAPPING_SIZE, d[3]));
	ASSERT_EQ(d[0], ptr_attr(CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR, d[3] + 5));
	ASSERT_EQ(1000, ptr_attr(CU_POINTER_ATTRIBUTE_RANGE_SIZE, d[3] + 5));
	ASSERT_EQ(ptr_attr(CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID, d[0]),
		  ptr_attr(CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID, d[3]));
	ASSERT_NE(ptr_attr(CU_POINTER_ATTRIBUTE_BUFFER_ID, d[0]),
		  ptr_attr(CU_POINTER_ATTRIBUTE_BUFFER_ID, d[3]));
	/* A hole is reused first fit; a larger request goes past the end. */
	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(d[2]));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAlloc(&e, 300));
	ASSERT_EQ(d[0] + 1024, e);
	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(e));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAlloc(&e, 600));
	ASSERT_EQ(d[0] + 7680, e);
	/* Own mappings. */
	ASSERT_EQ(CUDA_SUCCESS, cuMemAlloc(&big, 2 * MIB));
	ASSERT_EQ(0, big % (2 * MIB));
	ASSERT_EQ(2 * MIB, ptr_attr(CU_POINTER_ATTRIBUTE_MAPPING_SIZE, big + 100));
	ASSERT_EQ(big, ptr_attr(CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR, big + 100));
	ASSERT_NE(ptr_attr(CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID, d[0]),
		  ptr_attr(CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID, big));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAlloc(&big3, 3 * MIB));
	ASSERT_EQ(4 * MIB, ptr_attr(CU_POINTER_ATTRIBUTE_MAPPING_SIZE, big3));
	ASSERT_EQ(3 * MIB, ptr_attr(CU_POINTER_ATTRIBUTE_RANGE_SIZE, big3));
	for (int i = 0; i < 6; i++)
		if (i != 2)
			ASSERT_EQ(CUDA_SUCCESS, cuMemFree(d[i]));
	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(e));
	/* The chunk went back to the driver with its last allocation. */
	ASSERT_STRNE("---s", map_perms((void *)(uintptr_t)d[0]));
	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(big));
	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(big3));
}

/* cuMemGetInfo follows the driver's vidmem: a small allocation costs its
 * chunk, the next ones in it nothing; freeing gives it all back. */
TEST_F_TIMEOUT(lib, mem_get_info_device, 120)
{
	size_t fr0, fr, total;
	CUdeviceptr a, b, c;

	ASSERT_EQ(0ULL, vidmem_wait(0, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuMemGetInfo(&fr0, &total));
	ASSERT_EQ(total, fr0);
	ASSERT_EQ(CUDA_SUCCESS, cuMemAlloc(&a, 1));
	ASSERT_EQ(CUDA_SUCCESS, cuMemGetInfo(&fr, NULL));
	ASSERT_EQ(fr0 - 2 * MIB, fr);
	ASSERT_EQ(2 * MIB, vidmem_used(0));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAlloc(&b, 1000));
	ASSERT_EQ(CUDA_SUCCESS, cuMemGetInfo(&fr, NULL));
	ASSERT_EQ(fr0 - 2 * MIB, fr);
	ASSERT_EQ(CUDA_SUCCESS, cuMemAlloc(&c, 64 * MIB));
	ASSERT_EQ(CUDA_SUCCESS, cuMemGetInfo(&fr, NULL));
	ASSERT_EQ(fr0 - 66 * MIB, fr);
	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(a));
	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(c));
	ASSERT_EQ(2 * MIB, vidmem_wait(0, 2 * MIB));
	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(b));
	ASSERT_EQ(0ULL, vidmem_wait(0, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuMemGetInfo(&fr, NULL));
	ASSERT_EQ(fr0, fr);
}

/* cuMemFree of device memory: interior pointers, twice, the wrong kind
 * (MM-09..11 for device memory). */
TEST_F(lib, mem_free_device)
{
	CUdeviceptr d;
	void *h;

	ASSERT_EQ(CUDA_SUCCESS, cuMemAlloc(&d, 1000));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAllocHost(&h, 1000));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemFree(d + 8));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemFree((uintptr_t)h));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemFreeHost((void *)(uintptr_t)d));
	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(d));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemFree(d));
	ASSERT_EQ(~0ULL, ptr_attr(CU_POINTER_ATTRIBUTE_MEMORY_TYPE, d));
	ASSERT_EQ(CUDA_SUCCESS, cuMemFreeHost(h));
	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(0));
}

/* Device memory is not managed memory: advice, prefetches, discards and
 * range queries refuse it (ADV-05, PF-08, BT-13, RA-16); it has no host
 * pointer or host flags (PA-12); its attributes are NVIDIA's (PA-13..16,
 * PA-26). */
TEST_F(lib, device_memory_attributes)
{
	CUdeviceptr d, m = managed(PAGE);
	size_t sz = PAGE, idx = 0;
	CUmemLocation l = DEV(0);
	CUDA_POINTER_ATTRIBUTE_P2P_TOKENS tok;
	unsigned int u32 = 7;
	int v;

	ASSERT_EQ(CUDA_SUCCESS, cuMemAlloc(&d, PAGE));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemAdvise(d, PAGE, CU_MEM_ADVISE_SET_READ_MOSTLY, HOST));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemPrefetchAsync(d, PAGE, DEV(0), 0, self->l.s));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemPrefetchBatchAsync(&d, &sz, 1, &l, &idx, 1, 0,
								    self->l.s));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemDiscardBatchAsync(&d, &sz, 1, 0, self->l.s));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemRangeGetAttribute(&v, 4,
		  CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, d, PAGE));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemHostGetFlags(&u32, (void *)(uintptr_t)d));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemHostGetDevicePointer(&m, (void *)(uintptr_t)d, 0));
	ASSERT_EQ(CU_MEMORYTYPE_DEVICE, ptr_attr(CU_POINTER_ATTRIBUTE_MEMORY_TYPE, d));
	ASSERT_EQ(d + 9, ptr_attr(CU_POINTER_ATTRIBUTE_DEVICE_POINTER, d + 9));
	ASSERT_EQ(~0ULL, ptr_attr(CU_POINTER_ATTRIBUTE_HOST_POINTER, d));
	ASSERT_EQ(0, ptr_attr(CU_POINTER_ATTRIBUTE_IS_MANAGED, d));
	ASSERT_EQ(1, ptr_attr(CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE, d));
	ASSERT_EQ(1, ptr_attr(CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE, d));
	ASSERT_EQ(3, ptr_attr(CU_POINTER_ATTRIBUTE_ACCESS_FLAGS, d));
	ASSERT_EQ(0, ptr_attr(CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, d));
	/* SYNC_MEMOPS starts clear; a P2P token query sets it (PA-17). */
	ASSERT_EQ(0, ptr_attr(CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, d));
	ASSERT_EQ(CUDA_SUCCESS, cuPointerGetAttribute(&tok, CU_POINTER_ATTRIBUTE_P2P_TOKENS, d));
	ASSERT_EQ(1, ptr_attr(CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, d));
	u32 = 0;
	ASSERT_EQ(CUDA_SUCCESS, cuPointerSetAttribute(&u32, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, d));
	ASSERT_EQ(0, ptr_attr(CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, d));
	/* The plural form: no host pointer is NULL, not an error. */
	{
		CUpointer_attribute at[2] = { CU_POINTER_ATTRIBUTE_HOST_POINTER,
					      CU_POINTER_ATTRIBUTE_IS_MANAGED };
		unsigned long long val[2] = { 5, 5 };
		void *data[2] = { &val[0], &val[1] };

		ASSERT_EQ(CUDA_SUCCESS, cuPointerGetAttributes(2, at, data, d));
		ASSERT_EQ(0, val[0]);
		ASSERT_EQ(0, (unsigned int)val[1]);
	}
	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(d));
	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(m));
}

/* GPUs really use device memory: the owner and a peer write and read it,
 * copies move the data; a second GPU's memory is its own (PA-14). */
TEST_F_TIMEOUT(lib, device_memory_gpus, 300)
{
	const size_t size = 4 * MIB;
	unsigned long long *buf = malloc(size), sum = 0;
	CUdeviceptr d, d1;
	CUcontext c1;
	size_t fr;

	if (!self->l.sim)
		SKIP(return, "no simulated GPU launches");
	ASSERT_NE(NULL, buf);
	ASSERT_EQ(CUDA_SUCCESS, cuMemAlloc(&d, size));
	ASSERT_EQ(CUDA_SUCCESS, gpu_write(0, d, size, 11));
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyDtoH(buf, d, size));
	for (size_t i = 0; i < size / 8; i++)
		ASSERT_EQ(uvmSimPatternWord(11, d + 8 * i), buf[i]);
	ASSERT_EQ(CUDA_SUCCESS, gpu_read(self->l.ndev - 1, d, size, NULL, &sum));
	ASSERT_EQ(checksum_of(buf, d, size), sum);
	for (size_t i = 0; i < size / 8; i++)
		buf[i] = i * 7;
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyHtoD(d, buf, size));
	ASSERT_EQ(CUDA_SUCCESS, gpu_read(0, d, size, NULL, &sum));
	ASSERT_EQ(checksum_of(buf, d, size), sum);
	if (self->l.ndev < 2)
		SKIP(return, "one GPU");
	/* Device 1's context allocates device 1's memory. */
	ASSERT_EQ(CUDA_SUCCESS, cuDevicePrimaryCtxRetain(&c1, 1));
	ASSERT_EQ(CUDA_SUCCESS, cuCtxPushCurrent(c1));
	ASSERT_EQ(0ULL, vidmem_wait(1, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAlloc(&d1, size));
	ASSERT_EQ(size, vidmem_used(1));
	ASSERT_EQ(CUDA_SUCCESS, cuMemGetInfo(&fr, NULL));
	ASSERT_EQ(1, ptr_attr(CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, d1));
	/* A copy between the GPUs' memories by device 1's engine. */
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyDtoD(d1, d, size));
	ASSERT_EQ(CUDA_SUCCESS, cuCtxSynchronize());
	ASSERT_EQ(CUDA_SUCCESS, gpu_read(1, d1, size, NULL, &sum));
	ASSERT_EQ(checksum_of(buf, d1, size), sum);
	ASSERT_EQ(CUDA_SUCCESS, gpu_read(0, d1, size, NULL, &sum));
	ASSERT_EQ(checksum_of(buf, d1, size), sum);
	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(d1));
	ASSERT_EQ(CUDA_SUCCESS, cuCtxPopCurrent(NULL));
	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(d));
	free(buf);
}

/* Page-locked host memory */

/* cuMemAllocHost / cuMemHostAlloc: arguments, flags, 0 bytes, placement
 * (small requests share a 2 MiB chunk, "cp.allochost.*"), attributes,
 * flags and device pointers of interior pointers; cuMemFreeHost's refusals
 * (HA-01..). */
TEST_F(lib, host_alloc)
{
	void *h1 = NULL, *h2 = NULL, *h = (void *)1;
	unsigned int f;
	CUdeviceptr dp;

	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemAllocHost(NULL, PAGE));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemHostAlloc(&h, PAGE, 8));
	ASSERT_EQ(CUDA_SUCCESS, cuMemHostAlloc(&h, 0, 0));
	ASSERT_EQ(NULL, h);
	ASSERT_EQ(CUDA_ERROR_OUT_OF_MEMORY, cuMemAllocHost(&h, 1ULL << 50));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAllocHost(&h1, 1000));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAllocHost(&h2, 1000));
	ASSERT_EQ((char *)h1 + 1024, h2);
	memset(h1, 0x11, 1000);
	memset(h2, 0x22, 1000);
	ASSERT_EQ(0x11, ((unsigned char *)h1)[999]);
	ASSERT_EQ(CU_MEMORYTYPE_HOST, ptr_attr(CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (uintptr_t)h2));
	ASSERT_EQ((uintptr_t)h2 + 5, ptr_attr(CU_POINTER_ATTRIBUTE_HOST_POINTER, (uintptr_t)h2 + 5));
	ASSERT_EQ((uintptr_t)h2 + 5, ptr_attr(CU_POINTER_ATTRIBUTE_DEVICE_POINTER, (uintptr_t)h2 + 5));
	ASSERT_EQ(2 * MIB, ptr_attr(CU_POINTER_ATTRIBUTE_MAPPING_SIZE, (uintptr_t)h2));
	ASSERT_EQ((uintptr_t)h1, ptr_attr(CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR, (uintptr_t)h2));
	ASSERT_EQ(1000, ptr_attr(CU_POINTER_ATTRIBUTE_RANGE_SIZE, (uintptr_t)h2));
	ASSERT_EQ(0, ptr_attr(CU_POINTER_ATTRIBUTE_IS_MANAGED, (uintptr_t)h2));
	ASSERT_EQ(0, ptr_attr(CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, (uintptr_t)h2));
	ASSERT_EQ(~0ULL, ptr_attr(CU_POINTER_ATTRIBUTE_P2P_TOKENS, (uintptr_t)h2));
	ASSERT_EQ(~0ULL, ptr_attr(CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (uintptr_t)h1 + 1000));
	ASSERT_EQ(CUDA_SUCCESS, cuMemHostGetFlags(&f, (char *)h2 + 10));
	ASSERT_EQ(CU_MEMHOSTALLOC_DEVICEMAP, f);
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemHostGetFlags(&f, (char *)h1 + 1000));
	ASSERT_EQ(CUDA_SUCCESS, cuMemHostGetDevicePointer(&dp, (char *)h2 + 10, 0));
	ASSERT_EQ((uintptr_t)h2 + 10, dp);
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemHostGetDevicePointer(&dp, h2, 1));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemHostGetDevicePointer(NULL, h2, 0));
	/* Not registrations, not managed memory. */
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemHostRegister(h1, 100, 0));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemHostUnregister(h1));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemAdvise((uintptr_t)h1, 100,
		  CU_MEM_ADVISE_SET_READ_MOSTLY, HOST));
	/* Freeing. */
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemFreeHost((char *)h1 + 8));
	ASSERT_EQ(CUDA_SUCCESS, cuMemFreeHost(h1));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemFreeHost(h1));
	ASSERT_EQ(CUDA_SUCCESS, cuMemFreeHost(NULL));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemFreeHost(&f));
	ASSERT_EQ(0x22, ((unsigned char *)h2)[999]);
	ASSERT_EQ(CUDA_SUCCESS, cuMemFreeHost(h2));
	/* Every flag combination, reported with DEVICEMAP added. */
	for (unsigned int fl = 0; fl < 8; fl++) {
		ASSERT_EQ(CUDA_SUCCESS, cuMemHostAlloc(&h, 3 * MIB, fl));
		ASSERT_EQ(CUDA_SUCCESS, cuMemHostGetFlags(&f, h));
		ASSERT_EQ(fl | CU_MEMHOSTALLOC_DEVICEMAP, f);
		ASSERT_EQ(3 * MIB, ptr_attr(CU_POINTER_ATTRIBUTE_MAPPING_SIZE, (uintptr_t)h));
		memset(h, (int)fl, 3 * MIB);
		ASSERT_EQ(CUDA_SUCCESS, cuMemFreeHost(h));
	}
}

/* GPUs read and write page-locked memory in place, at the host address;
 * no migration happens. */
TEST_F_TIMEOUT(lib, host_alloc_gpu_access, 300)
{
	const size_t size = MIB;
	unsigned long long *h, sum;
	unsigned long long h2d0;

	if (!self->l.sim)
		SKIP(return, "no simulated GPU launches");
	ASSERT_EQ(CUDA_SUCCESS, cuMemAllocHost((void **)&h, size));
	h2d0 = counter(UVM_SIM_COUNTER_PAGES_H2D);
	for (size_t i = 0; i < size / 8; i++)
		h[i] = i ^ 0x5555;
	ASSERT_EQ(CUDA_SUCCESS, gpu_read(self->l.ndev - 1, (uintptr_t)h, size, NULL, &sum));
	ASSERT_EQ(checksum_of(h, (uintptr_t)h, size), sum);
	ASSERT_EQ(CUDA_SUCCESS, gpu_write(0, (uintptr_t)h, size, 21));
	for (size_t i = 0; i < size / 8; i++)
		ASSERT_EQ(uvmSimPatternWord(21, (uintptr_t)&h[i]), h[i]);
	ASSERT_EQ(h2d0, counter(UVM_SIM_COUNTER_PAGES_H2D));
	ASSERT_EQ(CUDA_SUCCESS, cuMemFreeHost(h));
}

/* Registered host memory */

/* cuMemHostRegister / cuMemHostUnregister: arguments, flags (IOMEMORY is
 * refused: no I/O memory can be pinned), overlaps, the exact bytes, pages
 * shared by two registrations, read-only memory, what unregistering
 * accepts (HR-01..). */
TEST_F(lib, host_register)
{
	char *m = mmap(NULL, 17 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *ro = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CUdeviceptr d, dp, mm = managed(PAGE);
	unsigned int f;

	ASSERT_NE(MAP_FAILED, m);
	ASSERT_NE(MAP_FAILED, ro);
	ASSERT_EQ(0, munmap(m + 16 * PAGE, PAGE));	/* a hole after the memory */
	ASSERT_EQ(CUDA_SUCCESS, cuMemAlloc(&d, PAGE));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemHostRegister(NULL, PAGE, 0));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemHostRegister(m, 0, 0));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemHostRegister(m, PAGE, 0x10));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemHostRegister(m, PAGE, CU_MEMHOSTREGISTER_IOMEMORY));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemHostRegister((void *)(uintptr_t)mm, PAGE, 0));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemHostRegister((void *)(uintptr_t)d, PAGE, 0));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemHostRegister((void *)(uintptr_t)PAGE, PAGE, 0));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemHostRegister(m + 15 * PAGE, 2 * PAGE, 0));
	/* Read-only memory needs READ_ONLY. */
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemHostRegister(ro, PAGE, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuMemHostRegister(ro, PAGE, CU_MEMHOSTREGISTER_READ_ONLY));
	ASSERT_EQ(1, ptr_attr(CU_POINTER_ATTRIBUTE_ACCESS_FLAGS, (uintptr_t)ro));
	ASSERT_EQ(CUDA_SUCCESS, cuMemHostGetFlags(&f, ro));
	ASSERT_EQ(CU_MEMHOSTALLOC_DEVICEMAP, f);
	ASSERT_EQ(CUDA_SUCCESS, cuMemHostUnregister(ro));
	/* The exact bytes. */
	ASSERT_EQ(CUDA_SUCCESS, cuMemHostRegister(m + 100, 1000, CU_MEMHOSTREGISTER_PORTABLE));
	ASSERT_EQ((uintptr_t)m + 100, ptr_attr(CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
					       (uintptr_t)m + 500));
	ASSERT_EQ(1000, ptr_attr(CU_POINTER_ATTRIBUTE_RANGE_SIZE, (uintptr_t)m + 500));
	ASSERT_EQ((uintptr_t)m, ptr_attr(CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR, (uintptr_t)m + 500));
	ASSERT_EQ(PAGE, ptr_attr(CU_POINTER_ATTRIBUTE_MAPPING_SIZE, (uintptr_t)m + 500));
	ASSERT_EQ(CU_MEMORYTYPE_HOST, ptr_attr(CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (uintptr_t)m + 100));
	ASSERT_EQ(3, ptr_attr(CU_POINTER_ATTRIBUTE_ACCESS_FLAGS, (uintptr_t)m + 100));
	ASSERT_EQ(~0ULL, ptr_attr(CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (uintptr_t)m + 99));
	ASSERT_EQ(~0ULL, ptr_attr(CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (uintptr_t)m + 1100));
	ASSERT_EQ(CUDA_SUCCESS, cuMemHostGetFlags(&f, m + 1099));
	ASSERT_EQ(CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP, f);
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemHostGetFlags(&f, m + 2000));
	ASSERT_EQ(CUDA_SUCCESS, cuMemHostGetDevicePointer(&dp, m + 500, 0));
	ASSERT_EQ((uintptr_t)m + 500, dp);
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemHostGetDevicePointer(&dp, m + 2000, 0));
	/* Overlaps; the same page, other bytes. */
	ASSERT_EQ(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, cuMemHostRegister(m + 100, 1000, 0));
	ASSERT_EQ(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, cuMemHostRegister(m, 101, 0));
	ASSERT_EQ(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, cuMemHostRegister(m + 1099, PAGE, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuMemHostRegister(m, 100, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuMemHostRegister(m + 1100, 3 * PAGE, 0));
	/* Unregistering. */
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemHostUnregister(NULL));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemHostUnregister(m + 101));
	ASSERT_EQ(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, cuMemHostUnregister(m + 8 * PAGE));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemFreeHost(m + 100));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemFree((uintptr_t)m + 100));
	ASSERT_EQ(CUDA_SUCCESS, cuMemHostUnregister(m + 100));
	ASSERT_EQ(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, cuMemHostUnregister(m + 100));
	ASSERT_EQ(CUDA_SUCCESS, cuMemHostUnregister(m));
	ASSERT_EQ(CUDA_SUCCESS, cuMemHostUnregister(m + 1100));
	/* The registration outlives an munmap behind the library's back. */
	ASSERT_EQ(CUDA_SUCCESS, cuMemHostRegister(m + 8 * PAGE, 4 * PAGE, 0));
	ASSERT_EQ(0, munmap(m + 8 * PAGE, 8 * PAGE));
	ASSERT_EQ(CUDA_SUCCESS, cuMemHostUnregister(m + 8 * PAGE));
	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(d));
	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(mm));
	munmap(m, 8 * PAGE);
	munmap(ro, PAGE);
}

/* GPUs use registered memory at its own address; a read-only registration
 * can be read, and a GPU write to it is a fatal fault. */
TEST_F_TIMEOUT(lib, host_register_gpu_access, 300)
{
	const size_t size = 2 * PAGE;
	unsigned long long *m = aligned_alloc(PAGE, size), sum;
	uvmSimLaunchInfo info;
	int pma = 1;

	if (!self->l.sim)
		SKIP(return, "no simulated GPU launches");
	ASSERT_NE(NULL, m);
	for (size_t i = 0; i < size / 8; i++)
		m[i] = i + 3;
	ASSERT_EQ(CUDA_SUCCESS, cuMemHostRegister(m, size, 0));
	ASSERT_EQ(CUDA_SUCCESS, gpu_read(0, (uintptr_t)m, size, NULL, &sum));
	ASSERT_EQ(checksum_of(m, (uintptr_t)m, size), sum);
	ASSERT_EQ(CUDA_SUCCESS, gpu_write(self->l.ndev - 1, (uintptr_t)m, size, 5));
	ASSERT_EQ(uvmSimPatternWord(5, (uintptr_t)&m[9]), m[9]);
	ASSERT_EQ(CUDA_SUCCESS, cuMemHostUnregister(m));
	/* Read-only. */
	ASSERT_EQ(CUDA_SUCCESS, cuMemHostRegister(m, size, CU_MEMHOSTREGISTER_READ_ONLY));
	ASSERT_EQ(CUDA_SUCCESS, gpu_read(0, (uintptr_t)m, size, NULL, &sum));
	ASSERT_EQ(checksum_of(m, (uintptr_t)m, size), sum);
	{
		uvmSimOp op;

		memset(&op, 0, sizeof(op));
		op.type = UVM_SIM_OP_WRITE;
		op.address = (uintptr_t)m;
		op.length = size;
		op.value = 6;
		ASSERT_EQ(CUDA_ERROR_ILLEGAL_ADDRESS, uvmSimLaunch(0, 1, &op, 1, NULL, &info));
		ASSERT_EQ((uintptr_t)m, info.faultAddress & ~(PAGE - 1));
	}
	ASSERT_EQ(uvmSimPatternWord(5, (uintptr_t)&m[9]), m[9]);
	/* Unregistered memory is no GPU's any more (unless GPUs reach
	 * pageable memory). */
	ASSERT_EQ(CUDA_SUCCESS, cuMemHostUnregister(m));
	cuDeviceGetAttribute(&pma, CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS, 0);
	if (!pma)
		ASSERT_EQ(CUDA_ERROR_ILLEGAL_ADDRESS, gpu_read(0, (uintptr_t)m, size, NULL, &sum));
	free(m);
}

/* Copies and sets */

/* The kinds of memory a test copies between. */
enum kind { K_PAGEABLE, K_PINNED, K_REGISTERED, K_MANAGED, K_DEVICE0, K_DEVICE1, K_COUNT };
static const char *const kind_name[K_COUNT] = { "pageable", "pinned", "registered", "managed",
						"device0", "device1" };

struct mem {
	CUdeviceptr p[K_COUNT];
	void *reg;
	CUcontext c1;
};

static int mem_get(struct mem *m, size_t size, int ndev)
{
	void *h;

	memset(m, 0, sizeof(*m));
	m->p[K_PAGEABLE] = (uintptr_t)malloc(size);
	if (cuMemAllocHost(&h, size))
		return -1;
	m->p[K_PINNED] = (uintptr_t)h;
	m->reg = aligned_alloc(PAGE, size);
	if (!m->reg || cuMemHostRegister(m->reg, size, 0))
		return -1;
	m->p[K_REGISTERED] = (uintptr_t)m->reg;
	m->p[K_MANAGED] = managed(size);
	if (cuMemAlloc(&m->p[K_DEVICE0], size))
		return -1;
	if (ndev < 2) {
		m->p[K_DEVICE1] = m->p[K_DEVICE0];
		return 0;
	}
	if (cuDevicePrimaryCtxRetain(&m->c1, 1) || cuCtxPushCurrent(m->c1) ||
	    cuMemAlloc(&m->p[K_DEVICE1], size) || cuCtxPopCurrent(NULL))
		return -1;
	return 0;
}

/* Fill memory of any kind with a byte through the CPU or a copy. */
static int mem_fill(struct mem *m, int k, unsigned char v, size_t size)
{
	if (k == K_DEVICE0 || k == K_DEVICE1)
		return cuMemsetD8(m->p[k], v, size) || cuCtxSynchronize();
	memset((void *)(uintptr_t)m->p[k], v, size);
	return 0;
}

static int mem_is(struct mem *m, int k, unsigned char v, size_t size)
{
	if (k == K_DEVICE0 || k == K_DEVICE1)
		return device_bytes_are(m->p[k], v, size);
	return bytes_are((void *)(uintptr_t)m->p[k], v, size);
}

/* cuMemcpy between every two kinds of memory: data arrives, the copy is
 * done when the synchronous call returns (or, between device memories, at
 * the next synchronisation). */
TEST_F_TIMEOUT(lib, memcpy_every_kind, 300)
{
	const size_t size = 256 * 1024;
	struct mem m;
	unsigned char v = 1;

	ASSERT_EQ(0, mem_get(&m, size, self->l.ndev));
	for (int dst = 0; dst < K_COUNT; dst++) {
		for (int src = 0; src < K_COUNT; src++, v++) {
			if (m.p[dst] == m.p[src])
				continue;
			ASSERT_EQ(0, mem_fill(&m, src, v, size));
			ASSERT_EQ(0, mem_fill(&m, dst, (unsigned char)~v, size));
			ASSERT_EQ(CUDA_SUCCESS, cuMemcpy(m.p[dst], m.p[src], size))
				TH_LOG("%s <- %s", kind_name[dst], kind_name[src]);
			if (dst == K_DEVICE0 || dst == K_DEVICE1)
				ASSERT_EQ(CUDA_SUCCESS, cuCtxSynchronize());
			ASSERT_TRUE(mem_is(&m, dst, v, size))
				TH_LOG("%s <- %s", kind_name[dst], kind_name[src]);
		}
	}
	/* A managed destination is written as its GPU writes: fresh memory
	 * (no migration history for the thrashing detection) is on GPU 0. */
	{
		CUdeviceptr fresh = managed(size);

		ASSERT_EQ(CUDA_SUCCESS, cuMemcpy(fresh, m.p[K_DEVICE0], size));
		ASSERT_EQ(CUDA_SUCCESS, cuCtxSynchronize());
		ASSERT_TRUE(all_resident(fresh, size, UVM_SIM_DEVICE_BIT(0)));
		ASSERT_EQ(CUDA_SUCCESS, cuMemFree(fresh));
	}
}

/* Which memory each form accepts on which side (probe_null "null.*_is_*",
 * "null.pma_*"): cuMemcpyHtoD's source and cuMemcpyDtoH's destination may be
 * any memory; the device sides must be memory a GPU can use; NULL never is;
 * 0 bytes are always fine; ranges must lie in one allocation; read-only
 * registered memory is no destination. */
TEST_F(lib, memcpy_validation)
{
	const size_t n = 64 * 1024;
	char *heap = malloc(n), *heap2 = malloc(n), *ro = aligned_alloc(PAGE, n);
	CUdeviceptr d, d2, a, b;
	int pma = 0;

	ASSERT_EQ(CUDA_SUCCESS, cuDeviceGetAttribute(&pma, CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAlloc(&d, n));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAlloc(&d2, n));
	memset(heap, 0x5e, n);
	/* The host side may be device memory. */
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyHtoD(d, heap, n));
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyHtoD(d2, (void *)(uintptr_t)d, n));
	ASSERT_EQ(CUDA_SUCCESS, cuMemsetD8(d, 0, n));
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyDtoH((void *)(uintptr_t)d, d2, n));
	ASSERT_TRUE(device_bytes_are(d, 0x5e, n));
	/* A device side in pageable memory: only with PAGEABLE_MEMORY_ACCESS. */
	ASSERT_EQ(pma ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE, cuMemcpyHtoD((uintptr_t)heap2, heap, n));
	ASSERT_EQ(pma ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE, cuMemcpyDtoH(heap2, (uintptr_t)heap, n));
	ASSERT_EQ(pma ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE, cuMemcpyDtoD(d, (uintptr_t)heap, n));
	ASSERT_EQ(pma ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE, cuMemsetD8((uintptr_t)heap2, 1, n));
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpy((uintptr_t)heap2, (uintptr_t)heap, n));
	ASSERT_TRUE(bytes_are(heap2, 0x5e, n));
	/* NULL, unmapped, wrapping. */
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemcpyHtoD(d, NULL, 16));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemcpyHtoD(0, heap, 16));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemcpy(d, 0, 16));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemsetD8(0, 0, 16));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemcpyHtoD(d, (void *)(uintptr_t)PAGE, 16));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemcpy(d, (CUdeviceptr)-16, 32));
	/* 0 bytes: anything. */
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpy(0, 0, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyDtoD(1, 1, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuMemsetD32(1, 0, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyHtoDAsync(0, NULL, 0, self->l.s));
	/* Out of bounds, into the neighbour, into a chunk's free space. */
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemcpyHtoD(d, heap, n + 1));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemcpyDtoH(heap, d + 1, n));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemcpyDtoD(d2 + 1, d, n));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAlloc(&a, 256));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAlloc(&b, 256));
	ASSERT_EQ(a + 512, b);
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemcpyHtoD(a, heap, 1024));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemsetD8(a, 0, 600));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemsetD8(a + 256, 0, 16));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemsetD8(b + 1024, 0, 16));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemcpy((uintptr_t)heap, a + 256, 16));
	/* Freed memory. */
	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(b));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemcpyDtoD(b, a, 16));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemsetD8Async(b, 0, 16, self->l.s));
	/* Read-only registrations are read, never written. */
	ASSERT_EQ(CUDA_SUCCESS, cuMemHostRegister(ro, n, CU_MEMHOSTREGISTER_READ_ONLY));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemcpyHtoD((uintptr_t)ro, heap, 16));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemcpyDtoD((uintptr_t)ro, d, 16));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemcpyDtoHAsync(ro, d, 16, self->l.s));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemsetD8((uintptr_t)ro, 1, 16));
	memset(ro, 0x71, n);
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyDtoD(d, (uintptr_t)ro, n));
	ASSERT_EQ(CUDA_SUCCESS, cuCtxSynchronize());
	ASSERT_TRUE(device_bytes_are(d, 0x71, n));
	ASSERT_EQ(CUDA_SUCCESS, cuMemHostUnregister(ro));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamSynchronize(self->l.s));
	free(heap);
	free(heap2);
	free(ro);
}

/* Overlapping copies (undefined in CUDA) move like memmove, as NVIDIA's
 * driver's do; a copy onto itself changes nothing. */
TEST_F(lib, memcpy_overlap)
{
	const size_t n = 8192;
	unsigned char *h = malloc(n), *back = malloc(n);
	CUdeviceptr d;

	ASSERT_EQ(CUDA_SUCCESS, cuMemAlloc(&d, n));
	for (size_t i = 0; i < n; i++)
		h[i] = (unsigned char)i;
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyHtoD(d, h, n));
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyDtoD(d, d, n));
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyDtoD(d + 100, d, 4000));
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyDtoDAsync(d + 5000, d + 4900, 1000, self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamSynchronize(self->l.s));
	memmove(h + 100, h, 4000);
	memmove(h + 5000, h + 4900, 1000);
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyDtoH(back, d, n));
	ASSERT_EQ(0, memcmp(h, back, n));
	/* Pageable memory overlapping itself. */
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpy((uintptr_t)back + 1, (uintptr_t)back, n - 1));
	memmove(h + 1, h, n - 1);
	ASSERT_EQ(0, memcmp(h, back, n));
	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(d));
	free(h);
	free(back);
}

/* Sets: every width, the values, alignment of the destination, every kind
 * of destination; pinned destinations are set when the call returns. */
TEST_F_TIMEOUT(lib, memset_every_kind, 300)
{
	const size_t size = 64 * 1024;
	struct mem m;
	unsigned char buf[64];

	ASSERT_EQ(0, mem_get(&m, size, self->l.ndev));
	for (int k = K_PINNED; k < K_COUNT; k++) {
		ASSERT_EQ(CUDA_SUCCESS, cuMemsetD8(m.p[k], (unsigned char)(0x40 + k), size));
		if (k != K_PINNED && k != K_REGISTERED)
			ASSERT_EQ(CUDA_SUCCESS, cuCtxSynchronize());
		/* A managed destination is written as its GPU writes: it
		 * is there. */
		if (k == K_MANAGED)
			ASSERT_TRUE(all_resident(m.p[k], size, UVM_SIM_DEVICE_BIT(0)));
		ASSERT_TRUE(mem_is(&m, k, (unsigned char)(0x40 + k), size)) TH_LOG("%s", kind_name[k]);
	}
	ASSERT_EQ(CUDA_SUCCESS, cuMemsetD16(m.p[K_DEVICE1] + 2, 0xbeef, 7));
	ASSERT_EQ(CUDA_SUCCESS, cuMemsetD32(m.p[K_PINNED] + 4, 0x01020304, 3));
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyDtoH(buf, m.p[K_DEVICE1], sizeof(buf)));
	ASSERT_EQ(0x45, buf[0]);
	ASSERT_EQ(0x45, buf[1]);
	for (int i = 0; i < 7; i++)
		ASSERT_EQ(0xbeef, *(unsigned short *)&buf[2 + 2 * i]);
	ASSERT_EQ(0x45, buf[16]);
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(0x01020304, ((unsigned int *)(uintptr_t)m.p[K_PINNED])[1 + i]);
	ASSERT_EQ(0x41, ((unsigned char *)(uintptr_t)m.p[K_PINNED])[16]);
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemsetD16(m.p[K_DEVICE0] + 1, 0, 4));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemsetD32(m.p[K_DEVICE0] + 2, 0, 4));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemsetD32Async(m.p[K_DEVICE0] + 2, 0, 4, self->l.s));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemsetD16(m.p[K_DEVICE0], 0, size / 2 + 1));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemsetD32(m.p[K_DEVICE0], 0, (size_t)-1 / 2));
	/* Asynchronous sets in stream order with a copy. */
	ASSERT_EQ(CUDA_SUCCESS, cuMemsetD32Async(m.p[K_DEVICE0], 0xa1a1a1a1, size / 4, self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyDtoDAsync(m.p[K_MANAGED], m.p[K_DEVICE0], size, self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, cuMemsetD8Async(m.p[K_DEVICE0], 0xb2, size, self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamSynchronize(self->l.s));
	ASSERT_TRUE(mem_is(&m, K_MANAGED, 0xa1, size));
	ASSERT_TRUE(mem_is(&m, K_DEVICE0, 0xb2, size));
}

/* Stream order: copies and sets on a stream run after the prefetches and
 * launches before them and before the ones after; the per-thread and
 * legacy streams; events; an error of a job the call did not wait for is
 * the stream's. */
TEST_F_TIMEOUT(lib, copy_stream_order, 300)
{
	const size_t size = 2 * MIB;
	CUdeviceptr p = managed(size), d;
	unsigned long long *h, sum;
	CUevent e;

	if (!self->l.sim)
		SKIP(return, "no simulated GPU launches");
	ASSERT_EQ(CUDA_SUCCESS, cuMemAllocHost((void **)&h, size));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAlloc(&d, size));
	ASSERT_EQ(CUDA_SUCCESS, cuEventCreate(&e, 0));
	for (size_t i = 0; i < size / 8; i++)
		h[i] = i * 5 + 1;
	/* HtoD, then a launch on the same stream sees the data. */
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyHtoDAsync(d, h, size, self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, gpu_read(0, d, size, self->l.s, &sum));
	ASSERT_EQ(checksum_of(h, d, size), sum);
	/* Prefetch, copy out of managed memory, event. */
	memset((void *)(uintptr_t)p, 0x33, size);
	ASSERT_EQ(CUDA_SUCCESS, cuMemPrefetchAsync(p, size, DEV(1 % self->l.ndev), 0, self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyAsync(d, p, size, self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, cuMemsetD8Async(p, 0x44, size, self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, cuEventRecord(e, self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamWaitEvent(CU_STREAM_PER_THREAD, e, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyDtoHAsync(h, d, size, CU_STREAM_PER_THREAD));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamSynchronize(CU_STREAM_PER_THREAD));
	ASSERT_TRUE(bytes_are(h, 0x33, size));
	ASSERT_EQ(CUDA_SUCCESS, cuEventSynchronize(e));
	ASSERT_TRUE(bytes_are((void *)(uintptr_t)p, 0x44, size));
	/* The legacy stream: a synchronous DtoD returns at once, in order. */
	ASSERT_EQ(CUDA_SUCCESS, cuMemsetD8(d, 0x55, size));
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyDtoD(p, d, size));
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyDtoH(h, p, size));
	ASSERT_TRUE(bytes_are(h, 0x55, size));
	ASSERT_EQ(CUDA_SUCCESS, cuEventDestroy(e));
	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(d));
	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(p));
	ASSERT_EQ(CUDA_SUCCESS, cuMemFreeHost(h));
}

/* Copies and sets on destroyed and special streams; a big copy through the
 * engine, in both directions. */
TEST_F_TIMEOUT(lib, copy_streams_and_sizes, 300)
{
	const size_t size = 24 * MIB;
	CUdeviceptr d, d2;
	CUstream gone;
	unsigned char *h;

	ASSERT_EQ(CUDA_SUCCESS, cuMemAlloc(&d, size));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAlloc(&d2, size));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAllocHost((void **)&h, size));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamCreate(&gone, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamDestroy(gone));
	ASSERT_EQ(CUDA_ERROR_INVALID_HANDLE, cuMemcpyAsync(d2, d, PAGE, gone));
	ASSERT_EQ(CUDA_ERROR_INVALID_HANDLE, cuMemsetD8Async(d2, 0, PAGE, gone));
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyAsync(d2, d, PAGE, CU_STREAM_LEGACY));
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyAsync(d2, d, PAGE, NULL));
	/* 24 MiB through the engine in one call, both directions. */
	for (size_t i = 0; i < size; i++)
		h[i] = (unsigned char)(i * 13 >> 8);
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyHtoD(d, h, size));
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyDtoD(d2, d, size));
	memset(h, 0, size);
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyDtoH(h, d2, size));
	for (size_t i = 0; i < size; i += 4093)
		ASSERT_EQ((unsigned char)(i * 13 >> 8), h[i]);
	ASSERT_EQ(CUDA_SUCCESS, cuMemFreeHost(h));
	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(d));
	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(d2));
}

/* The per-thread-default-stream symbols of the copies and sets. */
CUresult cuMemcpyHtoD_v2_ptds(CUdeviceptr dst, const void *src, size_t n);
CUresult cuMemsetD8_v2_ptds(CUdeviceptr dst, unsigned char v, size_t n);
CUresult cuMemcpyDtoHAsync_v2_ptsz(void *dst, CUdeviceptr src, size_t n, CUstream h);

TEST_F(lib, copy_per_thread_symbols)
{
	CUdeviceptr d;
	char buf[64];

	ASSERT_EQ(CUDA_SUCCESS, cuMemAlloc(&d, sizeof(buf)));
	memset(buf, 0x3a, sizeof(buf));
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyHtoD_v2_ptds(d, buf, sizeof(buf)));
	ASSERT_EQ(CUDA_SUCCESS, cuMemsetD8_v2_ptds(d + 8, 0x3b, 8));
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyDtoHAsync_v2_ptsz(buf, d, sizeof(buf), NULL));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamSynchronize_ptsz(NULL));
	ASSERT_EQ(0x3a, buf[0]);
	ASSERT_EQ(0x3b, buf[8]);
	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(d));
}

/* SYNC_MEMOPS: set on device memory, synchronous sets wait (PA-21: setting
 * it waits for what is pending); the data is there without a sync. */
TEST_F(lib, sync_memops)
{
	const size_t size = 4 * MIB;
	unsigned int one = 1;
	CUdeviceptr d;
	unsigned char *h;

	ASSERT_EQ(CUDA_SUCCESS, cuMemAlloc(&d, size));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAllocHost((void **)&h, size));
	ASSERT_EQ(CUDA_SUCCESS, cuMemsetD8Async(d, 0x61, size, self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, cuMemsetD8(d, 0x62, size));
	ASSERT_EQ(CUDA_SUCCESS, cuPointerSetAttribute(&one, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, d));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamQuery(self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamQuery(NULL));
	ASSERT_EQ(CUDA_SUCCESS, cuMemsetD8(d, 0x63, size));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamQuery(NULL));
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyDtoH(h, d, size));
	ASSERT_TRUE(bytes_are(h, 0x63, size));
	ASSERT_EQ(CUDA_SUCCESS, cuMemFreeHost(h));
	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(d));
}

/* Destroying a context frees its device and host memory and drops its
 * registrations. */
TEST(context_frees_memory)
{
	char *m = aligned_alloc(PAGE, PAGE);
	CUdeviceptr d, b;
	CUcontext c;
	void *h;
	size_t s;

	ASSERT_EQ(CUDA_SUCCESS, cuInit(0));
	ASSERT_EQ(CUDA_SUCCESS, cuCtxCreate(&c, NULL, 0, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAlloc(&d, 1000));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAllocHost(&h, 1000));
	ASSERT_EQ(CUDA_SUCCESS, cuMemHostRegister(m, PAGE, 0));
	ASSERT_EQ(c, (CUcontext)(uintptr_t)ptr_attr(CU_POINTER_ATTRIBUTE_CONTEXT, d));
	ASSERT_EQ(CUDA_SUCCESS, cuCtxDestroy(c));
	ASSERT_EQ(CUDA_SUCCESS, cuCtxCreate(&c, NULL, 0, 0));
	ASSERT_EQ(CUDA_ERROR_NOT_FOUND, cuMemGetAddressRange(&b, &s, d));
	ASSERT_EQ(CUDA_ERROR_NOT_FOUND, cuMemGetAddressRange(&b, &s, (uintptr_t)h));
	ASSERT_EQ(CUDA_SUCCESS, cuMemHostRegister(m, PAGE, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuMemHostUnregister(m));
	ASSERT_EQ(CUDA_SUCCESS, cuCtxDestroy(c));
	free(m);
}

/* The runtime API */

/* Lazy initialisation, the primary context, last-error semantics. */
TEST(runtime_basics)
{
	CUcontext cur = NULL, pri = NULL;
	void *p = (void *)1;
	int n = 0, d = -1, v;

	ASSERT_EQ(cudaSuccess, cudaGetLastError());
	ASSERT_EQ(cudaSuccess, cudaGetDeviceCount(&n));
	ASSERT_LE(1, n);
	ASSERT_EQ(cudaSuccess, cudaGetDevice(&d));
	ASSERT_EQ(0, d);
	ASSERT_EQ(CUDA_SUCCESS, cuCtxGetCurrent(&cur));
	ASSERT_EQ(CUDA_SUCCESS, cuDevicePrimaryCtxRetain(&pri, 0));
	ASSERT_EQ(pri, cur);
	ASSERT_EQ(cudaErrorInvalidDevice, cudaSetDevice(n));
	ASSERT_EQ(cudaErrorInvalidDevice, cudaPeekAtLastError());
	ASSERT_EQ(cudaErrorInvalidDevice, cudaGetLastError());
	ASSERT_EQ(cudaSuccess, cudaGetLastError());
	ASSERT_EQ(cudaSuccess, cudaSetDevice(n - 1));
	ASSERT_EQ(cudaSuccess, cudaGetDevice(&d));
	ASSERT_EQ(n - 1, d);
	ASSERT_EQ(cudaSuccess, cudaDeviceGetAttribute(&v, cudaDevAttrConcurrentManagedAccess, d));
	ASSERT_EQ(1, v);
	ASSERT_EQ(cudaErrorInvalidValue, cudaDeviceGetAttribute(&v, (enum cudaDeviceAttr)0, d));
	ASSERT_EQ(cudaErrorInvalidDevice, cudaDeviceGetAttribute(&v, cudaDevAttrManagedMemory, n));
	/* Size 0: success and NULL, as NVIDIA's runtime does (not its docs). */
	ASSERT_EQ(cudaSuccess, cudaMallocManaged(&p, 0, cudaMemAttachGlobal));
	ASSERT_EQ(NULL, p);
	ASSERT_EQ(cudaErrorInvalidValue, cudaMallocManaged(&p, 4096, 0));
	ASSERT_EQ(cudaErrorInvalidValue, cudaMallocManaged(NULL, 4096, cudaMemAttachGlobal));
	ASSERT_EQ(cudaSuccess, cudaFree(NULL));
	ASSERT_EQ(cudaSuccess, cudaDriverGetVersion(&v));
	ASSERT_EQ(13000, v);
	ASSERT_EQ(cudaSuccess, cudaRuntimeGetVersion(&v));
	ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
	cudaGetLastError();
}

/* The runtime memory calls: managed memory, advice, prefetch, batches on
 * stream 0 (refused), range and pointer attributes, device reset. */
TEST(runtime_memory)
{
	const size_t size = 4 * MIB;
	struct cudaMemLocation dev0 = { cudaMemLocationTypeDevice, 0 };
	struct cudaMemLocation host = { cudaMemLocationTypeHost, 0 };
	struct cudaPointerAttributes pa;
	cudaStream_t s;
	void *p = NULL, *d[2];
	size_t sz[2] = { MIB, MIB }, idx[1] = { 0 };
	int v = 0, n = 0;
	char local;

	ASSERT_EQ(cudaSuccess, cudaGetDeviceCount(&n));
	ASSERT_EQ(cudaSuccess, cudaMallocManaged(&p, size, cudaMemAttachGlobal));
	memset(p, 1, size);
	ASSERT_EQ(cudaSuccess, cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	ASSERT_EQ(cudaErrorInvalidValue, cudaStreamCreateWithFlags(&s, 2));
	ASSERT_EQ(cudaSuccess, cudaMemAdvise(p, size, cudaMemAdviseSetAccessedBy, dev0));
	ASSERT_EQ(cudaErrorInvalidValue, cudaMemAdvise(p, size, cudaMemAdviseSetPreferredLocation,
						       (struct cudaMemLocation){ cudaMemLocationTypeDevice, n }));
	ASSERT_EQ(cudaSuccess, cudaMemPrefetchAsync(p, size, dev0, 0, s));
	ASSERT_EQ(cudaErrorInvalidDevice, cudaMemPrefetchAsync(p, size,
		  (struct cudaMemLocation){ cudaMemLocationTypeDevice, n }, 0, s));
	ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(s));
	ASSERT_TRUE(all_resident((uintptr_t)p, size, UVM_SIM_DEVICE_BIT(0)));
	d[0] = p;
	d[1] = (char *)p + 2 * MIB;
	ASSERT_EQ(cudaErrorInvalidValue, cudaMemPrefetchBatchAsync(d, sz, 2, &host, idx, 1, 0, 0));
	ASSERT_EQ(cudaErrorInvalidValue, cudaMemDiscardBatchAsync(d, sz, 2, 0, cudaStreamLegacy));
	ASSERT_EQ(cudaSuccess, cudaMemPrefetchBatchAsync(d, sz, 2, &host, idx, 1, 0, s));
	ASSERT_EQ(cudaSuccess, cudaMemPrefetchBatchAsync(d, sz, 2, &host, idx, 1, 0,
							 cudaStreamPerThread));
	ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(s));
	ASSERT_EQ(cudaSuccess, cudaMemRangeGetAttribute(&v, 4, cudaMemRangeAttributeLastPrefetchLocation,
							 p, MIB));
	ASSERT_EQ(cudaCpuDeviceId, v);
	ASSERT_EQ(cudaErrorInvalidValue, cudaMemRangeGetAttribute(&v, 8,
		  cudaMemRangeAttributeReadMostly, p, MIB));
	ASSERT_EQ(cudaSuccess, cudaPointerGetAttributes(&pa, (char *)p + 5));
	ASSERT_EQ(cudaMemoryTypeManaged, pa.type);
	ASSERT_EQ(0, pa.device);
	ASSERT_EQ((char *)p + 5, pa.devicePointer);
	ASSERT_EQ(cudaSuccess, cudaPointerGetAttributes(&pa, &local));
	ASSERT_EQ(cudaMemoryTypeUnregistered, pa.type);
	ASSERT_EQ(cudaInvalidDeviceId, pa.device);
	ASSERT_EQ(NULL, pa.devicePointer);
	ASSERT_EQ(&local, pa.hostPointer);
	ASSERT_EQ(cudaErrorInvalidValue, cudaPointerGetAttributes(NULL, p));
	ASSERT_EQ(cudaErrorInvalidValue, cudaFree((char *)p + 1));
	ASSERT_EQ(cudaSuccess, cudaDeviceReset());
	/* Everything of the primary context is gone. */
	ASSERT_FALSE(is_mapped((uintptr_t)p, PAGE));
	ASSERT_EQ(cudaSuccess, cudaPointerGetAttributes(&pa, p));
	ASSERT_EQ(cudaMemoryTypeUnregistered, pa.type);
	ASSERT_EQ(cudaErrorInvalidValue, cudaFree(p));
	cudaGetLastError();
}

/* Runtime streams and events. */
TEST(runtime_streams)
{
	cudaStream_t s;
	cudaEvent_t e;
	unsigned int fl = 7;

	ASSERT_EQ(cudaSuccess, cudaStreamCreate(&s));
	ASSERT_EQ(cudaSuccess, cudaStreamGetFlags(s, &fl));
	ASSERT_EQ(0, fl);
	ASSERT_EQ(cudaSuccess, cudaEventCreate(&e));
	ASSERT_EQ(cudaErrorInvalidValue, cudaEventCreateWithFlags(&e, cudaEventInterprocess));
	ASSERT_EQ(cudaSuccess, cudaEventRecord(e, s));
	ASSERT_EQ(cudaSuccess, cudaStreamWaitEvent(0, e, 0));
	ASSERT_EQ(cudaErrorInvalidValue, cudaStreamWaitEvent(0, e, 4));
	ASSERT_EQ(cudaSuccess, cudaEventQuery(e));
	ASSERT_EQ(cudaSuccess, cudaEventSynchronize(e));
	ASSERT_EQ(cudaSuccess, cudaStreamQuery(0));
	ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(cudaStreamPerThread));
	ASSERT_EQ(cudaSuccess, cudaEventDestroy(e));
	ASSERT_EQ(cudaErrorInvalidResourceHandle, cudaEventDestroy(e));
	ASSERT_EQ(cudaSuccess, cudaStreamDestroy(s));
	ASSERT_EQ(cudaErrorInvalidResourceHandle, cudaGetLastError());
}

/* The runtime forms: cudaMalloc, cudaMallocHost, cudaHostAlloc (Portable
 * is not reported, "rc.hostgetflags.hostalloc"), registration, device
 * pointers and flags, cudaMemcpy in every kind, cudaMemset, the async
 * forms, cudaPointerGetAttributes of each kind, the last error. */
TEST(runtime_device_and_host_memory)
{
	const size_t n = 64 * 1024;
	char *heap = malloc(n), *heap2 = malloc(n), *reg = aligned_alloc(PAGE, n);
	void *d = (void *)1, *h = (void *)1, *ha = NULL, *dp = NULL;
	struct cudaPointerAttributes pa;
	cudaStream_t s;
	unsigned int f;
	int pma = 0;

	ASSERT_EQ(cudaSuccess, cudaDeviceGetAttribute(&pma, cudaDevAttrPageableMemoryAccess, 0));
	ASSERT_EQ(cudaSuccess, cudaMalloc(&d, 0));
	ASSERT_EQ(NULL, d);
	ASSERT_EQ(cudaSuccess, cudaMallocHost(&h, 0));
	ASSERT_EQ(NULL, h);
	ASSERT_EQ(cudaErrorInvalidValue, cudaMalloc(NULL, 16));
	ASSERT_EQ(cudaErrorInvalidValue, cudaMallocHost(NULL, 16));
	ASSERT_EQ(cudaErrorMemoryAllocation, cudaMalloc(&d, 1ULL << 50));
	ASSERT_EQ(cudaErrorMemoryAllocation, cudaGetLastError());
	ASSERT_EQ(cudaSuccess, cudaMalloc(&d, n));
	ASSERT_EQ(cudaSuccess, cudaMallocHost(&h, n));
	ASSERT_EQ(cudaSuccess, cudaHostGetFlags(&f, h));
	ASSERT_EQ(cudaHostAllocMapped, f);
	ASSERT_EQ(cudaErrorInvalidValue, cudaHostAlloc(&ha, 16, 8));
	ASSERT_EQ(cudaSuccess, cudaHostAlloc(&ha, 16, cudaHostAllocPortable | cudaHostAllocWriteCombined));
	ASSERT_EQ(cudaSuccess, cudaHostGetFlags(&f, ha));
	ASSERT_EQ(cudaHostAllocMapped | cudaHostAllocWriteCombined, f);
	ASSERT_EQ(cudaSuccess, cudaHostGetDevicePointer(&dp, ha, 0));
	ASSERT_EQ(ha, dp);
	ASSERT_EQ(cudaErrorInvalidValue, cudaHostGetDevicePointer(&dp, ha, 1));
	ASSERT_EQ(cudaErrorInvalidValue, cudaHostGetDevicePointer(&dp, heap, 0));
	ASSERT_EQ(cudaErrorInvalidValue, cudaHostGetFlags(&f, heap));
	ASSERT_EQ(cudaErrorInvalidValue, cudaFreeHost(d));
	ASSERT_EQ(cudaErrorInvalidValue, cudaFree(ha));
	ASSERT_EQ(cudaSuccess, cudaFreeHost(ha));
	ASSERT_EQ(cudaSuccess, cudaFreeHost(NULL));
	ASSERT_EQ(cudaSuccess, cudaHostRegister(reg, n, cudaHostRegisterDefault));
	ASSERT_EQ(cudaErrorHostMemoryAlreadyRegistered, cudaHostRegister(reg, n, 0));
	ASSERT_EQ(cudaErrorHostMemoryAlreadyRegistered, cudaGetLastError());
	ASSERT_EQ(cudaErrorInvalidValue, cudaHostRegister(heap, n, cudaHostRegisterIoMemory));
	ASSERT_EQ(cudaErrorHostMemoryNotRegistered, cudaHostUnregister(heap));
	ASSERT_EQ(cudaErrorHostMemoryNotRegistered, cudaGetLastError());
	/* Pointer attributes of each kind ("rc.pa.*"). */
	ASSERT_EQ(cudaSuccess, cudaPointerGetAttributes(&pa, (char *)d + 100));
	ASSERT_EQ(cudaMemoryTypeDevice, pa.type);
	ASSERT_EQ(0, pa.device);
	ASSERT_EQ((char *)d + 100, pa.devicePointer);
	ASSERT_EQ(NULL, pa.hostPointer);
	ASSERT_EQ(cudaSuccess, cudaPointerGetAttributes(&pa, (char *)h + 100));
	ASSERT_EQ(cudaMemoryTypeHost, pa.type);
	ASSERT_EQ(0, pa.device);
	ASSERT_EQ((char *)h + 100, pa.devicePointer);
	ASSERT_EQ((char *)h + 100, pa.hostPointer);
	ASSERT_EQ(cudaSuccess, cudaPointerGetAttributes(&pa, reg + 100));
	ASSERT_EQ(cudaMemoryTypeHost, pa.type);
	ASSERT_EQ(reg + 100, pa.hostPointer);
	/* cudaMemcpy: the kind says which side must be device memory. */
	memset(heap, 0x12, n);
	ASSERT_EQ(cudaSuccess, cudaMemcpy(d, heap, n, cudaMemcpyHostToDevice));
	memset(heap2, 0, n);
	ASSERT_EQ(cudaSuccess, cudaMemcpy(heap2, d, n, cudaMemcpyDeviceToHost));
	ASSERT_TRUE(bytes_are(heap2, 0x12, n));
	ASSERT_EQ(cudaSuccess, cudaMemcpy(h, d, n, cudaMemcpyDeviceToDevice));
	ASSERT_TRUE(bytes_are(h, 0x12, n));
	memset(h, 0x13, n);
	ASSERT_EQ(cudaSuccess, cudaMemcpy(reg, h, n, cudaMemcpyHostToHost));
	ASSERT_TRUE(bytes_are(reg, 0x13, n));
	ASSERT_EQ(cudaSuccess, cudaMemcpy(d, reg, n, cudaMemcpyDefault));
	ASSERT_EQ(cudaSuccess, cudaMemcpy(heap2, d, n, cudaMemcpyDefault));
	ASSERT_TRUE(bytes_are(heap2, 0x13, n));
	ASSERT_EQ(pma ? cudaSuccess : cudaErrorInvalidValue,
		  cudaMemcpy(heap2, d, n, cudaMemcpyHostToDevice));
	ASSERT_EQ(pma ? cudaSuccess : cudaErrorInvalidValue,
		  cudaMemcpy(heap2, heap, n, cudaMemcpyDeviceToDevice));
	cudaGetLastError();
	ASSERT_EQ(cudaSuccess, cudaMemcpy(d, h, n, cudaMemcpyHostToHost));
	ASSERT_EQ(cudaErrorInvalidMemcpyDirection, cudaMemcpy(d, heap, n, (enum cudaMemcpyKind)5));
	ASSERT_EQ(cudaErrorInvalidMemcpyDirection, cudaGetLastError());
	ASSERT_EQ(cudaSuccess, cudaMemcpy(NULL, NULL, 0, (enum cudaMemcpyKind)5));
	ASSERT_EQ(cudaErrorInvalidValue, cudaMemcpy(d, heap, n + 1, cudaMemcpyHostToDevice));
	ASSERT_EQ(cudaErrorInvalidValue, cudaMemcpy(NULL, heap, 16, cudaMemcpyDefault));
	/* Asynchronous forms and sets. */
	ASSERT_EQ(cudaSuccess, cudaStreamCreate(&s));
	ASSERT_EQ(cudaSuccess, cudaMemsetAsync(d, 0x1234, n, s));
	ASSERT_EQ(cudaSuccess, cudaMemcpyAsync(h, d, n, cudaMemcpyDeviceToHost, s));
	ASSERT_EQ(cudaErrorInvalidMemcpyDirection, cudaMemcpyAsync(h, d, n, (enum cudaMemcpyKind)7, s));
	ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(s));
	ASSERT_TRUE(bytes_are(h, 0x34, n));
	ASSERT_EQ(cudaSuccess, cudaMemset(h, 0x56, n));
	ASSERT_TRUE(bytes_are(h, 0x56, n));
	ASSERT_EQ(cudaSuccess, cudaMemset((char *)d + 1, 0x57, 3));
	ASSERT_EQ(cudaErrorInvalidValue, cudaMemset(d, 0, n + 1));
	ASSERT_EQ(cudaErrorInvalidValue, cudaGetLastError());
	ASSERT_EQ(cudaSuccess, cudaMemcpyAsync(heap2, d, 8, cudaMemcpyDefault, 0));
	ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
	ASSERT_EQ(0x57, heap2[1]);
	ASSERT_EQ(0x34, heap2[4]);
	ASSERT_EQ(cudaSuccess, cudaStreamDestroy(s));
	ASSERT_EQ(cudaSuccess, cudaHostUnregister(reg));
	ASSERT_EQ(cudaSuccess, cudaFree(d));
	ASSERT_EQ(cudaErrorInvalidValue, cudaFree(d));
	ASSERT_EQ(cudaSuccess, cudaFreeHost(h));
	ASSERT_EQ(cudaErrorInvalidValue, cudaFreeHost(h));
	cudaGetLastError();
	free(heap);
	free(heap2);
	free(reg);
}

/* fork() */

static int fork_child_calls(void *arg)
{
	CUdeviceptr p = *(CUdeviceptr *)arg, q;
	int v = 0, n = -1;

	if (cuDriverGetVersion(&v) || v != 13000)
		return 10;
	if (cuInit(0) != CUDA_ERROR_NOT_INITIALIZED ||
	    cuDeviceGetCount(&n) != CUDA_ERROR_NOT_INITIALIZED ||
	    cuMemAllocManaged(&q, PAGE, CU_MEM_ATTACH_GLOBAL) != CUDA_ERROR_NOT_INITIALIZED ||
	    cuMemAdvise(p, PAGE, CU_MEM_ADVISE_SET_READ_MOSTLY, HOST) != CUDA_ERROR_NOT_INITIALIZED ||
	    cuMemFree(p) != CUDA_ERROR_NOT_INITIALIZED ||
	    cuStreamSynchronize(NULL) != CUDA_ERROR_NOT_INITIALIZED ||
	    cuMemAlloc(&q, PAGE) != CUDA_ERROR_NOT_INITIALIZED ||
	    cuMemcpy(q, p, 8) != CUDA_ERROR_NOT_INITIALIZED ||
	    cuMemsetD8(p, 0, 8) != CUDA_ERROR_NOT_INITIALIZED ||
	    cuMemHostRegister(&v, sizeof(v), 0) != CUDA_ERROR_NOT_INITIALIZED)
		return 11;
	if (cudaGetDeviceCount(&n) != cudaErrorInitializationError)
		return 12;
	/* The managed range is not inherited (VM_DONTCOPY). */
	if (is_mapped(p, PAGE))
		return 13;
	return 0;
}

static int fork_fresh_child(void *arg)
{
	CUdeviceptr q = 0;
	CUcontext c;

	(void)arg;
	if (cuInit(0) || cuDevicePrimaryCtxRetain(&c, 0) || cuCtxSetCurrent(c) ||
	    cuMemAllocManaged(&q, PAGE, CU_MEM_ATTACH_GLOBAL) || cuMemFree(q))
		return 20;
	return 0;
}

/* A fork child of an initialised process gets CUDA_ERROR_NOT_INITIALIZED
 * from everything, as from NVIDIA's driver (XC-04); the parent goes on. */
TEST_F(lib, fork)
{
	CUdeviceptr p = managed(MIB);

	memset((void *)(uintptr_t)p, 4, MIB);
	ASSERT_EQ(0, in_child(fork_child_calls, &p));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAdvise(p, MIB, CU_MEM_ADVISE_SET_READ_MOSTLY, HOST));
	ASSERT_EQ(4, *(unsigned char *)(uintptr_t)p);
	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(p));
}

/* A process that never initialised libuvm may fork children that do. */
TEST(fork_before_init)
{
	ASSERT_EQ(0, in_child(fork_fresh_child, NULL));
}

/* Threads */

struct worker {
	int dev;
	CUcontext ctx;
	int failures;
};

static void *worker(void *arg)
{
	struct worker *w = arg;
	CUcontext cur = (CUcontext)(uintptr_t)1;

	/* A new thread has no current context. */
	if (cuCtxGetCurrent(&cur) || cur)
		w->failures++;
	if (cuCtxSetCurrent(w->ctx))
		w->failures++;
	for (int i = 0; i < 20; i++) {
		CUdeviceptr p = managed(2 * MIB), d[2];
		size_t sz[2] = { MIB, MIB }, idx[1] = { 0 };
		CUmemLocation l[1] = { DEV(w->dev) };

		if (!p) {
			w->failures++;
			continue;
		}
		d[0] = p;
		d[1] = p + MIB;
		memset((void *)(uintptr_t)p, i, 2 * MIB);
		if (cuMemAdvise(p, 2 * MIB, CU_MEM_ADVISE_SET_ACCESSED_BY, DEV(w->dev)) ||
		    cuMemPrefetchAsync(p, 2 * MIB, DEV(w->dev), 0, CU_STREAM_PER_THREAD) ||
		    cuMemPrefetchBatchAsync(d, sz, 2, l, idx, 1, 0, CU_STREAM_PER_THREAD) ||
		    cuStreamSynchronize(CU_STREAM_PER_THREAD) ||
		    range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, p, 2 * MIB) != w->dev ||
		    cuMemFree(p))
			w->failures++;
	}
	return NULL;
}

/* Many threads allocate, advise, prefetch and free at once (XC-06). */
TEST_F_TIMEOUT(lib, threads, 300)
{
	struct worker w[8];
	pthread_t t[8];

	for (int i = 0; i < 8; i++) {
		w[i].dev = i % self->l.ndev;
		w[i].ctx = self->l.ctx;
		w[i].failures = 0;
		ASSERT_EQ(0, pthread_create(&t[i], NULL, worker, &w[i]));
	}
	for (int i = 0; i < 8; i++) {
		pthread_join(t[i], NULL);
		ASSERT_EQ(0, w[i].failures);
	}
}

static void *small_worker(void *arg)
{
	struct worker *w = arg;
	unsigned char buf[4096];

	if (cuCtxSetCurrent(w->ctx))
		w->failures++;
	for (int i = 0; i < 40; i++) {
		size_t n = 64 + (size_t)(i * 97 + w->dev * 31) % 4000;
		CUdeviceptr d = 0;
		void *h = NULL;

		if (cuMemAlloc(&d, n) || cuMemAllocHost(&h, n) ||
		    cuMemsetD8Async(d, (unsigned char)i, n, CU_STREAM_PER_THREAD) ||
		    cuMemcpyDtoHAsync(h, d, n, CU_STREAM_PER_THREAD) ||
		    cuStreamSynchronize(CU_STREAM_PER_THREAD) || !bytes_are(h, (unsigned char)i, n) ||
		    cuMemcpyDtoH(buf, d, n) || !bytes_are(buf, (unsigned char)i, n) ||
		    cuMemFree(d) || cuMemFreeHost(h))
			w->failures++;
	}
	return NULL;
}

/* Many threads allocate small device and host memory from the shared
 * chunks, set, copy and free at once. */
TEST_F_TIMEOUT(lib, threads_small_allocations, 300)
{
	struct worker w[8];
	pthread_t t[8];

	for (int i = 0; i < 8; i++) {
		w[i].dev = i;
		w[i].ctx = self->l.ctx;
		w[i].failures = 0;
		ASSERT_EQ(0, pthread_create(&t[i], NULL, small_worker, &w[i]));
	}
	for (int i = 0; i < 8; i++) {
		pthread_join(t[i], NULL);
		ASSERT_EQ(0, w[i].failures);
	}
}

/* The simulated GPU interface */

/* Launch arguments, fatal faults as CUDA_ERROR_ILLEGAL_ADDRESS, residency
 * and counters. */
TEST_F_TIMEOUT(lib, sim, 300)
{
	CUdeviceptr p = managed(2 * MIB);
	unsigned long long c[64];
	unsigned int cnt = 64;
	uvmSimPageState st[2];
	uvmSimLaunchInfo info;
	uvmSimOp op;
	size_t ps = 0;

	if (!self->l.sim)
		SKIP(return, "no simulated GPU launches");
	ASSERT_EQ(CUDA_SUCCESS, uvmSimPageSize(&ps));
	ASSERT_EQ(PAGE, ps);
	memset(&op, 0, sizeof(op));
	op.type = UVM_SIM_OP_WRITE;
	op.address = p;
	op.length = 2 * MIB;
	op.value = 3;
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, uvmSimLaunch(0, 4, NULL, 1, NULL, NULL));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, uvmSimLaunch(0, 4, &op, 0, NULL, NULL));
	ASSERT_EQ(CUDA_ERROR_INVALID_DEVICE, uvmSimLaunch(self->l.ndev, 4, &op, 1, NULL, NULL));
	ASSERT_EQ(CUDA_ERROR_INVALID_HANDLE, uvmSimLaunch(0, 4, &op, 1, (CUstream)(uintptr_t)8,
							  NULL));
	ASSERT_EQ(CUDA_SUCCESS, uvmSimLaunch(0, 4, &op, 1, self->l.s, &info));
	ASSERT_EQ(uvmSimPatternWord(3, p + 64), *(unsigned long long *)(uintptr_t)(p + 64));
	ASSERT_EQ(CUDA_SUCCESS, uvmSimResidency(p, 2 * PAGE, st, 2));
	ASSERT_EQ(UVM_SIM_HOST_BIT, st[0].resident);	/* the CPU read it back */
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, uvmSimResidency(p, 2 * PAGE, st, 1));
	ASSERT_EQ(CUDA_SUCCESS, uvmSimGetCounters(c, &cnt));
	ASSERT_LE(UVM_COUNTER_COUNT, cnt);
	ASSERT_LT(0, c[UVM_SIM_COUNTER_GPU_FAULTS]);
	/* A fatal fault: an address no allocation covers. */
	op.address = p + 2 * MIB;
	op.length = PAGE;
	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(p));
	op.address = p;
	ASSERT_EQ(CUDA_ERROR_ILLEGAL_ADDRESS, uvmSimLaunch(0, 1, &op, 1, NULL, &info));
	ASSERT_EQ(p, info.faultAddress & ~(PAGE - 1));
	ASSERT_EQ(0, info.faultOp);
}

TEST_HARNESS_MAIN
