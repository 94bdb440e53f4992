/* SPDX-License-Identifier: MIT */
/*
 * cudaProfiler.h - the driver API's profiler controls, as CUDA 13.0 declares
 * them.  libuvm has no profiler: the calls check the driver and the current
 * context and otherwise do nothing (Documentation/libuvm.rst).
 */
#ifndef UVM_CUDA_PROFILER_H
#define UVM_CUDA_PROFILER_H
#define cuda_profiler_H

#include "cuda.h"

#ifdef __cplusplus
extern "C" {
#endif

CUresult CUDAAPI cuProfilerStart(void) UVM_NOEXCEPT;
CUresult CUDAAPI cuProfilerStop(void) UVM_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif /* UVM_CUDA_PROFILER_H */
