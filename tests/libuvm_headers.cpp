// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libuvm_headers - the public headers compile as C++20 (this file) and as C
 * (every other user), link, and map names as cuda.h does, also with
 * CUDA_API_PER_THREAD_DEFAULT_STREAM.  Built, not run by a suite: building
 * it is the test.
 */
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
/* The documented names resolve to the versioned symbols. */
static_assert(std::is_same_v<decltype(&cuMemAdvise),
			     CUresult (*)(CUdeviceptr, size_t, CUmem_advise, CUmemLocation) noexcept>);

int main()
{
	void *fns[] = {
		reinterpret_cast<void *>(&cuMemAdvise),
		reinterpret_cast<void *>(&cuMemPrefetchAsync),
		reinterpret_cast<void *>(&cuMemPrefetchBatchAsync),
		reinterpret_cast<void *>(&cuStreamSynchronize),
		reinterpret_cast<void *>(&cudaMemPrefetchAsync),
		reinterpret_cast<void *>(&cudaStreamQuery),
		reinterpret_cast<void *>(&uvmSimLaunch),
	};
	int v[3];

	uvmGetVersion(&v[0], &v[1], &v[2]);
	std::printf("libuvm %s, %zu entry points\n", uvmGetVersionString(), sizeof(fns) / sizeof(fns[0]));
	return 0;
}
