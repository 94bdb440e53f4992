// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libuvm_headers - the public headers compile as C++20 (this file) and as C
 * (every other user), link, and map names as cuda.h does, also with
 * CUDA_API_PER_THREAD_DEFAULT_STREAM.  Built, not run by a suite: building
 * it is the test.
 */
#include <cstddef>
#include <cstdio>
#include <type_traits>

#include <builtin_types.h>
#include <cuda.h>
#include <cudaProfiler.h>
#include <cudaTypedefs.h>
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <libuvm.h>
#include <uvm_sim.h>
#include <vector_functions.h>
#include <vector_types.h>

/* NVIDIA's include guards, which code written for its headers tests. */
#if !defined(__cuda_cuda_h__) || !defined(__CUDA_RUNTIME_H__) || \
	!defined(__CUDA_RUNTIME_API_H__) || !defined(__DRIVER_TYPES_H__) || \
	!defined(__DRIVER_FUNCTIONS_H__) || !defined(__VECTOR_TYPES_H__) || \
	!defined(__VECTOR_FUNCTIONS_H__) || !defined(__CUDA_PROFILER_API_H__) || \
	!defined(cuda_profiler_H) || !defined(CUDATYPEDEFS_H)
#error "an include guard of NVIDIA's headers is not defined"
#endif

static_assert(sizeof(CUmemLocation) == 8);
static_assert(sizeof(CUdeviceptr) == 8);
static_assert(sizeof(CUDA_POINTER_ATTRIBUTE_P2P_TOKENS) == 16);
static_assert(sizeof(cudaPointerAttributes) == 88);
static_assert(CU_DEVICE_ATTRIBUTE_MAX == 148);
static_assert(CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE == 21);
static_assert(CUDA_ERROR_TENSOR_MEMORY_LEAK == 721);
static_assert(CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM == 2 &&
	      CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT == 2 &&
	      cudaEnablePerThreadDefaultStream == 2 && cudaDriverEntryPointSymbolNotFound == 1);
static_assert(std::is_same_v<decltype(&cuGetProcAddress),
			     CUresult (*)(const char *, void **, int, cuuint64_t,
					  CUdriverProcAddressQueryResult *) noexcept>);
static_assert(CU_COMPUTEMODE_DEFAULT == 0 && CU_COMPUTEMODE_PROHIBITED == 2 &&
	      CU_COMPUTEMODE_EXCLUSIVE_PROCESS == 3);
static_assert(cudaComputeModeDefault == 0 && cudaComputeModeExclusive == 1 &&
	      cudaComputeModeProhibited == 2 && cudaComputeModeExclusiveProcess == 3);

/*
 * The vector types: size and alignment of each as CUDA 13.0's
 * vector_types.h has them (measured with g++ on x86-64 against NVIDIA's).
 */
#define VEC(t, size, align) static_assert(sizeof(t) == (size) && alignof(t) == (align), #t)
VEC(char1, 1, 1); VEC(uchar1, 1, 1); VEC(char2, 2, 2); VEC(uchar2, 2, 2);
VEC(char3, 3, 1); VEC(uchar3, 3, 1); VEC(char4, 4, 4); VEC(uchar4, 4, 4);
VEC(short1, 2, 2); VEC(ushort1, 2, 2); VEC(short2, 4, 4); VEC(ushort2, 4, 4);
VEC(short3, 6, 2); VEC(ushort3, 6, 2); VEC(short4, 8, 8); VEC(ushort4, 8, 8);
VEC(int1, 4, 4); VEC(uint1, 4, 4); VEC(int2, 8, 8); VEC(uint2, 8, 8);
VEC(int3, 12, 4); VEC(uint3, 12, 4); VEC(int4, 16, 16); VEC(uint4, 16, 16);
VEC(long1, 8, 8); VEC(ulong1, 8, 8); VEC(long2, 16, 16); VEC(ulong2, 16, 16);
VEC(long3, 24, 8); VEC(ulong3, 24, 8); VEC(long4, 32, 16); VEC(ulong4, 32, 16);
VEC(long4_16a, 32, 16); VEC(ulong4_16a, 32, 16); VEC(long4_32a, 32, 32);
VEC(ulong4_32a, 32, 32);
VEC(float1, 4, 4); VEC(float2, 8, 8); VEC(float3, 12, 4); VEC(float4, 16, 16);
VEC(longlong1, 8, 8); VEC(ulonglong1, 8, 8); VEC(longlong2, 16, 16);
VEC(ulonglong2, 16, 16); VEC(longlong3, 24, 8); VEC(ulonglong3, 24, 8);
VEC(longlong4, 32, 16); VEC(ulonglong4, 32, 16); VEC(longlong4_16a, 32, 16);
VEC(ulonglong4_16a, 32, 16); VEC(longlong4_32a, 32, 32); VEC(ulonglong4_32a, 32, 32);
VEC(double1, 8, 8); VEC(double2, 16, 16); VEC(double3, 24, 8); VEC(double4, 32, 16);
VEC(double4_16a, 32, 16); VEC(double4_32a, 32, 32); VEC(dim3, 12, 4);
#undef VEC
static_assert(std::is_same_v<decltype(char1::x), signed char>);
static_assert(offsetof(float4, w) == 12 && offsetof(double4_32a, w) == 24);
/* dim3: missing sizes are 1, it converts to and from uint3. */
static_assert(dim3().x == 1 && dim3().y == 1 && dim3().z == 1);
static_assert(dim3(4).x == 4 && dim3(4).y == 1 && dim3(4, 5).z == 1);
static_assert(static_cast<uint3>(dim3(2, 3, 4)).z == 4);
static_assert(dim3(uint3{ 7, 8, 9 }).y == 8);
static_assert(noexcept(cuProfilerStart()) && noexcept(cudaProfilerStop()));

/* cudaTypedefs.h: each pointer type takes the function of its form. */
static const PFN_cuMemAlloc_v3020 pfn_alloc = &cuMemAlloc_v2;
static const PFN_cuMemAdvise_v12020 pfn_advise = &cuMemAdvise_v2;
static const PFN_cuCtxCreate_v12050 pfn_ctx = &cuCtxCreate_v4;
static const PFN_cuGetProcAddress_v12000 pfn_proc = &cuGetProcAddress_v2;
static const PFN_cuMemPrefetchBatchAsync_v13000 pfn_batch = &cuMemPrefetchBatchAsync;
static const PFN_cuEventRecord_v7000_ptsz pfn_record = &cuEventRecord;
static const PFN_cuProfilerStart_v4000 pfn_prof = &cuProfilerStart;
static_assert(noexcept(cuInit(0)));
/* Virtual memory management: NVIDIA's layouts and values. */
static_assert(sizeof(CUmemGenericAllocationHandle) == 8);
static_assert(sizeof(CUmemAllocationProp) == 32);
static_assert(offsetof(CUmemAllocationProp, location) == 8);
static_assert(offsetof(CUmemAllocationProp, win32HandleMetaData) == 16);
static_assert(offsetof(CUmemAllocationProp, allocFlags) == 24);
static_assert(sizeof(CUmemAccessDesc) == 12);
static_assert(sizeof(CUarrayMapInfo) == 96);
static_assert(offsetof(CUarrayMapInfo, subresource) == 24);
static_assert(offsetof(CUarrayMapInfo, memOperationType) == 56);
static_assert(offsetof(CUarrayMapInfo, memHandle) == 64);
static_assert(offsetof(CUarrayMapInfo, deviceBitMask) == 80);
static_assert(sizeof(cudaMemAccessDesc) == sizeof(CUmemAccessDesc));
static_assert(CU_MEM_HANDLE_TYPE_FABRIC == 8 && CU_MEM_ACCESS_FLAGS_PROT_READWRITE == 3);
static_assert(static_cast<int>(cudaMemHandleTypePosixFileDescriptor) ==
	      CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
/* The documented names resolve to the versioned symbols. */
static_assert(std::is_same_v<decltype(&cuMemAdvise),
			     CUresult (*)(CUdeviceptr, size_t, CUmem_advise, CUmemLocation) noexcept>);

/* The symbol calls: NVIDIA's C signatures (the non-template overload), and
 * the C++ forms that take the variable itself, with the defaults. */
static_assert(std::is_same_v<decltype(static_cast<cudaError_t (*)(void **, const void *) noexcept>(
				     &cudaGetSymbolAddress)),
			     cudaError_t (*)(void **, const void *) noexcept>);
static cudaError_t (*const symbol_fns[])(const void *, const void *, size_t, size_t,
				       cudaMemcpyKind) noexcept = { &cudaMemcpyToSymbol };
static double device_table[4];

static cudaError_t use_symbols(cudaStream_t s)
{
	double x = 1.0;
	void *p = nullptr;
	size_t n = 0;
	cudaError_t e = cudaMemcpyToSymbol(device_table, &x, sizeof(x));

	if (!e)
		e = cudaMemcpyFromSymbol(&x, device_table, sizeof(x), 8);
	if (!e)
		e = cudaMemcpyToSymbolAsync(device_table, &x, sizeof(x), 0, cudaMemcpyHostToDevice, s);
	if (!e)
		e = cudaMemcpyFromSymbolAsync(&x, device_table, sizeof(x));
	if (!e)
		e = cudaGetSymbolAddress(&p, device_table);
	if (!e)
		e = cudaGetSymbolSize(&n, device_table);
	if (!e)
		e = cudaMemcpyToSymbol(static_cast<const void *>(device_table), &x, sizeof(x), 0,
				       cudaMemcpyHostToDevice);
	return e;
}

int main()
{
	void *fns[] = {
		reinterpret_cast<void *>(&cuMemAdvise),
		reinterpret_cast<void *>(&cuMemPrefetchAsync),
		reinterpret_cast<void *>(&cuMemPrefetchBatchAsync),
		reinterpret_cast<void *>(&cuStreamSynchronize),
		reinterpret_cast<void *>(&cuMemMapArrayAsync),
		reinterpret_cast<void *>(&cuMemCreate),
		reinterpret_cast<void *>(&cudaMemPrefetchAsync),
		reinterpret_cast<void *>(&cudaStreamQuery),
		reinterpret_cast<void *>(&uvmSimLaunch),
		reinterpret_cast<void *>(&uvmRegisterVar),
		reinterpret_cast<void *>(symbol_fns[0]),
		reinterpret_cast<void *>(&use_symbols),
		reinterpret_cast<void *>(&cuProfilerStart),
		reinterpret_cast<void *>(&cudaProfilerStart),
		reinterpret_cast<void *>(&make_double4_32a),
		reinterpret_cast<void *>(pfn_alloc),
		reinterpret_cast<void *>(pfn_advise),
		reinterpret_cast<void *>(pfn_ctx),
		reinterpret_cast<void *>(pfn_proc),
		reinterpret_cast<void *>(pfn_batch),
		reinterpret_cast<void *>(pfn_record),
		reinterpret_cast<void *>(pfn_prof),
	};
	int v[3];
	uvmGetVersion(&v[0], &v[1], &v[2]);
	std::printf("libuvm %s, %zu entry points\n", uvmGetVersionString(), sizeof(fns) / sizeof(fns[0]));
	return 0;
}
