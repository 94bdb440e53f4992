/* SPDX-License-Identifier: MIT */
/*
 * cuda_runtime.h - for programs that include the runtime through this name:
 * libuvm provides the memory subset of the runtime API only
 * (cuda_runtime_api.h) and the helpers of driver_functions.h; there is no
 * kernel-launch syntax.
 */
#ifndef UVM_CUDA_RUNTIME_H
#define UVM_CUDA_RUNTIME_H

#include "cuda_runtime_api.h"
#include "driver_functions.h"

#endif /* UVM_CUDA_RUNTIME_H */
