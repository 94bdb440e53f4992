/* SPDX-License-Identifier: MIT */
/*
 * cuda_runtime.h - for programs that include the runtime through this name:
 * libuvm provides the memory subset of the runtime API only
 * (cuda_runtime_api.h) and the helpers of driver_functions.h; there is no
 * kernel-launch syntax.
 *
 * In C++, as in NVIDIA's header, the symbol calls also take the device
 * variable itself (cudaMemcpyToSymbol(var, &x, sizeof(x))) and pass on its
 * address.  These templates are the header's only inline code: the C
 * functions they call are the ABI.  As with NVIDIA's, a pointer passed to
 * them is itself the "variable" (cudaMemcpyToSymbol(&var, ...) in C++
 * names the temporary pointer, cudaErrorInvalidSymbol).
 */
#ifndef UVM_CUDA_RUNTIME_H
#define UVM_CUDA_RUNTIME_H
/* NVIDIA's guard too: code that tests for this header sees it included. */
#define __CUDA_RUNTIME_H__

#include "cuda_runtime_api.h"
#include "driver_functions.h"
#include "vector_functions.h"

#ifdef __cplusplus

template <class T>
inline cudaError_t cudaGetSymbolAddress(void **devPtr, const T &symbol) noexcept
{
	return ::cudaGetSymbolAddress(devPtr, static_cast<const void *>(&symbol));
}

template <class T>
inline cudaError_t cudaGetSymbolSize(size_t *size, const T &symbol) noexcept
{
	return ::cudaGetSymbolSize(size, static_cast<const void *>(&symbol));
}

template <class T>
inline cudaError_t cudaMemcpyToSymbol(const T &symbol, const void *src, size_t count,
				      size_t offset = 0,
				      enum cudaMemcpyKind kind = cudaMemcpyHostToDevice) noexcept
{
	return ::cudaMemcpyToSymbol(static_cast<const void *>(&symbol), src, count, offset, kind);
}

template <class T>
inline cudaError_t cudaMemcpyFromSymbol(void *dst, const T &symbol, size_t count,
					size_t offset = 0,
					enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost) noexcept
{
	return ::cudaMemcpyFromSymbol(dst, static_cast<const void *>(&symbol), count, offset, kind);
}

template <class T>
inline cudaError_t cudaMemcpyToSymbolAsync(const T &symbol, const void *src, size_t count,
					   size_t offset = 0,
					   enum cudaMemcpyKind kind = cudaMemcpyHostToDevice,
					   cudaStream_t stream = 0) noexcept
{
	return ::cudaMemcpyToSymbolAsync(static_cast<const void *>(&symbol), src, count, offset,
					 kind, stream);
}

template <class T>
inline cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const T &symbol, size_t count,
					     size_t offset = 0,
					     enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost,
					     cudaStream_t stream = 0) noexcept
{
	return ::cudaMemcpyFromSymbolAsync(dst, static_cast<const void *>(&symbol), count, offset,
					   kind, stream);
}

#endif /* __cplusplus */

#endif /* UVM_CUDA_RUNTIME_H */
