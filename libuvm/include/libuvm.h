/* SPDX-License-Identifier: MIT */
/*
 * libuvm.h - libuvm's own calls (not part of CUDA): versions.
 */
#ifndef UVM_LIBUVM_H
#define UVM_LIBUVM_H

#include "uvm-version.h"
#include "cuda.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version (UVM_VERSION_MAJOR/MINOR/PATCH of the build). */
CUresult uvmGetVersion(int *major, int *minor, int *patch) UVM_NOEXCEPT;
const char *uvmGetVersionString(void) UVM_NOEXCEPT;

/* The uvm kernel module's ioctl API version (uapi/uvm.h); needs cuInit(). */
CUresult uvmGetDriverApiVersion(unsigned int *major, unsigned int *minor) UVM_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif /* UVM_LIBUVM_H */
