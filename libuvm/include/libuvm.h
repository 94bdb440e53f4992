/* SPDX-License-Identifier: MIT */
/*
 * libuvm.h - libuvm's own calls (not part of CUDA): versions, and the
 * registration of device variables by a CUDA-compatible runtime.
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

/*
 * Device variables (Documentation/libuvm.rst, "Device variables").
 *
 * A runtime registers each __device__ or __constant__ variable of the
 * programs it loads, as NVIDIA's runtime does with __cudaRegisterVar from
 * its module constructors (before main(), before cuInit()): hostVar is the
 * host shadow variable, whose address is the symbol of cudaMemcpyToSymbol
 * and the rest, and whose size bytes, read now, are the variable's initial
 * value; deviceName is its device-side name.  Every context (the primary
 * context of each device, for the runtime) gets its own instance, device
 * memory made from the initial bytes on first use and freed with the
 * context, as if the module were loaded there.  uvmUnregisterVar forgets a
 * variable (a runtime unloading a module) and frees its instances.
 */
#define UVM_VAR_CONSTANT	0x1	/* a __constant__ variable */

CUresult uvmRegisterVar(const void *hostVar, const char *deviceName, size_t size,
			unsigned int flags) UVM_NOEXCEPT;
CUresult uvmUnregisterVar(const void *hostVar) UVM_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif /* UVM_LIBUVM_H */
