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

#include <cuda.h>
#include <cuda_runtime.h>
#include <libuvm.h>
#include <uvm_sim.h>

static_assert(sizeof(CUmemLocation) == 8);
static_assert(sizeof(CUdeviceptr) == 8);
static_assert(sizeof(CUDA_POINTER_ATTRIBUTE_P2P_TOKENS) == 16);
static_assert(sizeof(cudaPointerAttributes) == 88);
static_assert(CU_DEVICE_ATTRIBUTE_MAX == 148);
static_assert(CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE == 21);
static_assert(CUDA_ERROR_TENSOR_MEMORY_LEAK == 721);
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
	};
	int v[3];

	uvmGetVersion(&v[0], &v[1], &v[2]);
	std::printf("libuvm %s, %zu entry points\n", uvmGetVersionString(), sizeof(fns) / sizeof(fns[0]));
	return 0;
}
