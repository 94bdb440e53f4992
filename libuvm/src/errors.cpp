// SPDX-License-Identifier: MIT
/*
 * errors.cpp - error codes: the -errno -> CUresult mapping, CUresult ->
 * cudaError_t, and the names and strings of both.
 */
#include <cerrno>

#include "common.h"

namespace uvm {
namespace {

struct ErrorInfo {
	int code;
	const char *name;
	const char *text;
};

#include "error_tables.inc"

template <size_t N>
const ErrorInfo *lookup(const ErrorInfo (&table)[N], int code)
{
	for (const ErrorInfo &e : table)
		if (e.code == code)
			return &e;
	return nullptr;
}

} // namespace

/**
 * from_errno() - the one mapping of the driver's -errno onto CUresult
 * @neg_errno:	0 or a negative errno from Device::ioctl(), mmap() or munmap()
 *
 * Callers that must return another code for a particular errno (the device
 * ordinal checks of cuMemPrefetchAsync, for one) decide before calling the
 * driver; what reaches here is translated the same way everywhere.
 *
 * Return: the CUresult.
 */
CUresult from_errno(int neg_errno)
{
	switch (neg_errno) {
	case 0:
		return CUDA_SUCCESS;
	case -EINVAL:
	case -EFAULT:
	case -ENOENT:
	case -E2BIG:
	case -ERANGE:
	case -EOVERFLOW:
		return CUDA_ERROR_INVALID_VALUE;
	case -ENODEV:
	case -ENXIO:
		return CUDA_ERROR_INVALID_DEVICE;
	case -ENOMEM:
	case -ENOSPC:
		return CUDA_ERROR_OUT_OF_MEMORY;
	case -EAGAIN:
		return CUDA_ERROR_NOT_READY;
	case -EPERM:	/* a fork child using its parent's descriptor */
		return CUDA_ERROR_NOT_INITIALIZED;
	case -ENOTTY:
	case -EOPNOTSUPP:
		return CUDA_ERROR_NOT_SUPPORTED;
	case -EREMOTEIO:
		return CUDA_ERROR_ILLEGAL_ADDRESS;
	case -ETIMEDOUT:
		return CUDA_ERROR_LAUNCH_TIMEOUT;
	case -EACCES:
		return CUDA_ERROR_NOT_PERMITTED;
	default:
		return CUDA_ERROR_UNKNOWN;
	}
}

/**
 * to_runtime() - the runtime's code for a driver result
 * @r:	the CUresult
 *
 * The runtime uses the driver's numbers wherever it has a code of that
 * number (CUDA_ERROR_INVALID_CONTEXT 201 is cudaErrorDeviceUninitialized
 * 201, ...); codes it lacks become cudaErrorUnknown.
 *
 * Return: the cudaError_t.
 */
cudaError_t to_runtime(CUresult r)
{
	if (r == CUDA_ERROR_DEINITIALIZED)
		return cudaErrorCudartUnloading;
	return lookup(runtime_errors, r) ? static_cast<cudaError_t>(r) : cudaErrorUnknown;
}

} // namespace uvm

using namespace uvm;

extern "C" CUresult cuGetErrorName(CUresult error, const char **pStr) noexcept
{
	const ErrorInfo *e = lookup(driver_errors, error);

	/* NVIDIA's driver crashes on a NULL pStr; we refuse it. */
	if (!pStr)
		return CUDA_ERROR_INVALID_VALUE;
	*pStr = e ? e->name : nullptr;
	return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

extern "C" CUresult cuGetErrorString(CUresult error, const char **pStr) noexcept
{
	const ErrorInfo *e = lookup(driver_errors, error);

	if (!pStr)
		return CUDA_ERROR_INVALID_VALUE;
	*pStr = e ? e->text : nullptr;
	return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

extern "C" const char *cudaGetErrorName(cudaError_t error) noexcept
{
	const ErrorInfo *e = lookup(runtime_errors, error);

	return e ? e->name : "unrecognized error code";
}

extern "C" const char *cudaGetErrorString(cudaError_t error) noexcept
{
	const ErrorInfo *e = lookup(runtime_errors, error);

	return e ? e->text : "unrecognized error code";
}
