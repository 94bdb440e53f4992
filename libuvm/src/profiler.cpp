// SPDX-License-Identifier: MIT
/*
 * profiler.cpp - the profiler controls (cudaProfiler.h, cuda_profiler_api.h).
 *
 * libuvm has no profiler to start or stop: the calls check what NVIDIA's
 * driver checks when no profiler is attached and change nothing else
 * (probe_profiler.txt).  cuProfilerStart/Stop need an initialised driver
 * (CUDA_ERROR_NOT_INITIALIZED) and a live current context
 * (CUDA_ERROR_INVALID_CONTEXT); starting twice or stopping without a start
 * succeeds.  cudaProfilerStart is a runtime call like any other: it
 * initialises the runtime, which leaves the primary context current;
 * cudaProfilerStop initialises only the driver.
 */
#include "context.h"

using namespace uvm;

extern "C" CUresult cuProfilerStart(void) noexcept
{
	return guard([&]() -> CUresult {
		Context *ctx;

		return current_context(&ctx);
	});
}

extern "C" CUresult cuProfilerStop(void) noexcept
{
	return cuProfilerStart();
}

extern "C" cudaError_t cudaProfilerStart(void) noexcept
{
	return rt([&] { return CUDA_SUCCESS; });
}

extern "C" cudaError_t cudaProfilerStop(void) noexcept
{
	return rt_record(to_runtime(guard([] { return cuInit(0); })));
}
