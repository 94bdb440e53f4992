// SPDX-License-Identifier: MIT
/*
 * legacy.cpp - symbols of older ABIs that NVIDIA's libcuda still exports
 * and cuda.h no longer maps names onto: the CUdevice forms of cuMemAdvise and
 * cuMemPrefetchAsync (CUDA 12's unsuffixed names), the first versions of
 * calls whose signature did not change (cuCtxDestroy, cuStreamDestroy, ...).
 * Binaries built against an older cuda.h keep working.  The 32-bit
 * CUdeviceptr entry points (cuMemFree, cuMemGetInfo, cuMemAlloc,
 * cuMemcpyHtoD, ... without _v2) are not provided: their ABI differs.
 */
#include "common.h"
#include "memory.h"

#undef cuMemAdvise
#undef cuMemPrefetchAsync
#undef cuCtxDestroy
#undef cuCtxPushCurrent
#undef cuCtxPopCurrent
#undef cuStreamDestroy
#undef cuEventDestroy
#undef cuDevicePrimaryCtxRelease
#undef cuDevicePrimaryCtxReset
#undef cuDevicePrimaryCtxSetFlags
#undef cuMemHostRegister
#undef cuEventElapsedTime

using namespace uvm;

extern "C" CUresult cuMemAdvise(CUdeviceptr devPtr, size_t count, CUmem_advise advice,
				CUdevice device) noexcept
{
	return legacy_advise(devPtr, count, advice, device);
}

extern "C" CUresult cuMemPrefetchAsync(CUdeviceptr devPtr, size_t count, CUdevice dstDevice,
				       CUstream hStream) noexcept
{
	return legacy_prefetch_async(devPtr, count, dstDevice, hStream, false);
}

extern "C" CUresult cuMemPrefetchAsync_ptsz(CUdeviceptr devPtr, size_t count, CUdevice dstDevice,
					    CUstream hStream) noexcept
{
	return legacy_prefetch_async(devPtr, count, dstDevice, hStream, true);
}

/* The first cuMemHostRegister: the same arguments. */
extern "C" CUresult cuMemHostRegister(void *p, size_t bytesize, unsigned int Flags) noexcept
{
	return cuMemHostRegister_v2(p, bytesize, Flags);
}

extern "C" CUresult cuCtxDestroy(CUcontext ctx) noexcept
{
	return cuCtxDestroy_v2(ctx);
}

extern "C" CUresult cuCtxPushCurrent(CUcontext ctx) noexcept
{
	return cuCtxPushCurrent_v2(ctx);
}

extern "C" CUresult cuCtxPopCurrent(CUcontext *pctx) noexcept
{
	return cuCtxPopCurrent_v2(pctx);
}

extern "C" CUresult cuStreamDestroy(CUstream hStream) noexcept
{
	return cuStreamDestroy_v2(hStream);
}

extern "C" CUresult cuEventDestroy(CUevent hEvent) noexcept
{
	return cuEventDestroy_v2(hEvent);
}

extern "C" CUresult cuDevicePrimaryCtxRelease(CUdevice dev) noexcept
{
	return cuDevicePrimaryCtxRelease_v2(dev);
}

extern "C" CUresult cuDevicePrimaryCtxReset(CUdevice dev) noexcept
{
	return cuDevicePrimaryCtxReset_v2(dev);
}

extern "C" CUresult cuDevicePrimaryCtxSetFlags(CUdevice dev, unsigned int flags) noexcept
{
	return cuDevicePrimaryCtxSetFlags_v2(dev, flags);
}

#undef cuCtxCreate

extern "C" CUresult cuCtxCreate(CUcontext *pctx, unsigned int flags, CUdevice dev) noexcept
{
	return cuCtxCreate_v2(pctx, flags, dev);
}

/* CUDA 2.0's name; the same call (CUDA 12.8's _v2 changed what it checks). */
extern "C" CUresult cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd) noexcept
{
	return cuEventElapsedTime_v2(pMilliseconds, hStart, hEnd);
}
