// SPDX-License-Identifier: MIT
/*
 * proc_address.cpp - cuGetProcAddress and the runtime's
 * cudaGetDriverEntryPoint(ByVersion): a driver function by name, in the
 * form a given CUDA version defines (how PyTorch and NVIDIA's own runtime
 * reach the driver).
 *
 * As NVIDIA's driver answers (probe_procaddr.txt): the name is the
 * function's base name (cuMemAlloc, not cuMemAlloc_v2); of its forms, the
 * newest one introduced at or before cudaVersion is returned (a negative
 * version: the newest); none is CUDA_SUCCESS with a NULL pointer and
 * CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT, an unknown name
 * CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND; a version above the driver's and
 * unknown flags are CUDA_ERROR_INVALID_VALUE with nothing written.  With
 * CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM alone, a function with a
 * per-thread-stream form gives the per-thread-stream form of the form the
 * version selects (none before the version that introduced them).  Works
 * before cuInit.  Where NVIDIA's driver crashes (a NULL name or pfn),
 * libuvm returns CUDA_ERROR_INVALID_VALUE.
 *
 * A form libuvm does not export (the 32-bit CUdeviceptr entry points, the
 * forms with a context argument CUDA 13 added, ...) is never replaced by
 * another one, whose ABI differs: it is not found.
 */
#include <dlfcn.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstring>

#include "common.h"

#undef cuGetProcAddress

namespace uvm {
namespace {

struct ProcForm {
	int version;
	const char *symbol;
};

struct ProcEntry {
	const char *name;
	ProcForm forms[4];	/* oldest first; unused: version 0 */
	int ptds_version;	/* 0: no per-thread-stream forms */
	const char *ptds_suffix;	/* of each form's symbol */
};

const ProcEntry kProcTable[] = {
#include "proc_address_table.inc"
};

/* libuvm's own exports, never another library's of the same name. */
void *own_symbol(const char *name)
{
	static void *self = [] {
		Dl_info info{};

		if (!dladdr(reinterpret_cast<void *>(&cuGetProcAddress_v2), &info) ||
		    !info.dli_fname)
			return static_cast<void *>(nullptr);
		return dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
	}();

	return self ? dlsym(self, name) : nullptr;
}

const ProcEntry *find_entry(const char *name)
{
	const ProcEntry *end = kProcTable + sizeof(kProcTable) / sizeof(kProcTable[0]);
	const ProcEntry *e = std::lower_bound(kProcTable, end, name,
		[](const ProcEntry &a, const char *n) { return std::strcmp(a.name, n) < 0; });

	return e != end && !std::strcmp(e->name, name) ? e : nullptr;
}

CUresult proc_address(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
		      CUdriverProcAddressQueryResult *status)
{
	const cuuint64_t known = CU_GET_PROC_ADDRESS_LEGACY_STREAM |
				 CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;

	if (!symbol || !pfn || (flags & ~known) || cudaVersion > CUDA_VERSION)
		return CUDA_ERROR_INVALID_VALUE;
	const int version = cudaVersion < 0 ? INT_MAX : cudaVersion;
	const ProcEntry *e = find_entry(symbol);
	CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
	const char *sym = nullptr;
	char name[96];

	*pfn = nullptr;
	if (e) {
		st = CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT;
		for (const ProcForm &f : e->forms)
			if (f.version && f.version <= version)
				sym = f.symbol;
		if (sym && e->ptds_version && flags == CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) {
			std::snprintf(name, sizeof(name), "%s%s", sym, e->ptds_suffix);
			sym = version >= e->ptds_version ? name : nullptr;
		}
	}
	if (sym) {
		*pfn = own_symbol(sym);
		st = *pfn ? CU_GET_PROC_ADDRESS_SUCCESS : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
	}
	if (status)
		*status = st;
	return CUDA_SUCCESS;
}

} // namespace
} // namespace uvm

using namespace uvm;

extern "C" CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion,
					cuuint64_t flags,
					CUdriverProcAddressQueryResult *symbolStatus) noexcept
{
	return guard([&] { return proc_address(symbol, pfn, cudaVersion, flags, symbolStatus); });
}

/* CUDA 11.3's form, without the status. */
extern "C" CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion,
				     cuuint64_t flags) noexcept
{
	return guard([&] { return proc_address(symbol, pfn, cudaVersion, flags, nullptr); });
}

/*
 * The runtime's forms: cudaEnableDefault is the stream mode the caller was
 * built with (the _ptsz symbols: per-thread), the version CUDART_VERSION
 * unless given.
 */
static cudaError_t entry_point(const char *symbol, void **funcPtr, unsigned int cudaVersion,
			       unsigned long long flags, bool ptds,
			       enum cudaDriverEntryPointQueryResult *driverStatus)
{
	CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_SUCCESS;

	if (ptds && flags == cudaEnableDefault)
		flags = cudaEnablePerThreadDefaultStream;
	CUresult r = guard([&] {
		return proc_address(symbol, funcPtr, static_cast<int>(cudaVersion), flags, &st);
	});

	if (!r && driverStatus)
		*driverStatus = static_cast<enum cudaDriverEntryPointQueryResult>(st);
	return rt_record(to_runtime(r));
}

#undef cudaGetDriverEntryPoint
#undef cudaGetDriverEntryPointByVersion

extern "C" cudaError_t cudaGetDriverEntryPointByVersion(const char *symbol, void **funcPtr,
							unsigned int cudaVersion,
							unsigned long long flags,
							enum cudaDriverEntryPointQueryResult *driverStatus) noexcept
{
	return entry_point(symbol, funcPtr, cudaVersion, flags, false, driverStatus);
}

extern "C" cudaError_t cudaGetDriverEntryPointByVersion_ptsz(const char *symbol, void **funcPtr,
							     unsigned int cudaVersion,
							     unsigned long long flags,
							     enum cudaDriverEntryPointQueryResult *driverStatus) noexcept
{
	return entry_point(symbol, funcPtr, cudaVersion, flags, true, driverStatus);
}

extern "C" cudaError_t cudaGetDriverEntryPoint(const char *symbol, void **funcPtr,
					       unsigned long long flags,
					       enum cudaDriverEntryPointQueryResult *driverStatus) noexcept
{
	return entry_point(symbol, funcPtr, CUDART_VERSION, flags, false, driverStatus);
}

extern "C" cudaError_t cudaGetDriverEntryPoint_ptsz(const char *symbol, void **funcPtr,
						    unsigned long long flags,
						    enum cudaDriverEntryPointQueryResult *driverStatus) noexcept
{
	return entry_point(symbol, funcPtr, CUDART_VERSION, flags, true, driverStatus);
}
