/* SPDX-License-Identifier: MIT */
/*
 * cuda_profiler_api.h - the runtime's profiler controls, as CUDA 13.0
 * declares them.  libuvm has no profiler: cudaProfilerStart initialises
 * the runtime as any runtime call does, cudaProfilerStop only the driver;
 * both succeed (Documentation/libuvm.rst).
 */
#ifndef UVM_CUDA_PROFILER_API_H
#define UVM_CUDA_PROFILER_API_H
#define __CUDA_PROFILER_API_H__

#include "cuda_runtime_api.h"

#ifdef __cplusplus
extern "C" {
#endif

cudaError_t CUDARTAPI cudaProfilerStart(void) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaProfilerStop(void) UVM_RT_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif /* UVM_CUDA_PROFILER_API_H */
