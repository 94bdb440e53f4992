// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * probe_procaddr - cuGetProcAddress and cudaGetDriverEntryPoint(ByVersion):
 * for every driver function libuvm implements, at each CUDA version that
 * introduced a form of it (the versions of CUDA 13.0's PFN_ typedefs), the
 * version just below the first, and 13000, with the default, legacy-stream
 * and per-thread flags where the function has stream forms: the result,
 * the status and which exported symbol the pointer is (found by comparing
 * it with dlsym() of the function's names); unknown names, NULL arguments,
 * bad flags and versions.
 */
#include <dlfcn.h>

#include <cuda_runtime_api.h>

#include "probe.h"

struct fn {
	const char *name;
	int versions[4];	/* ascending, 0-terminated */
	int streams;		/* has _ptsz/_ptds forms */
};

static const struct fn fns[] = {
	{ "cuArray3DCreate", { 2000, 3020 }, 0 },
	{ "cuArray3DGetDescriptor", { 2000, 3020 }, 0 },
	{ "cuArrayCreate", { 2000, 3020 }, 0 },
	{ "cuArrayDestroy", { 2000 }, 0 },
	{ "cuArrayGetDescriptor", { 2000, 3020 }, 0 },
	{ "cuArrayGetMemoryRequirements", { 11060 }, 0 },
	{ "cuArrayGetPlane", { 11020 }, 0 },
	{ "cuArrayGetSparseProperties", { 11010 }, 0 },
	{ "cuCtxCreate", { 2000, 3020, 11040, 12050 }, 0 },
	{ "cuCtxDestroy", { 2000, 4000 }, 0 },
	{ "cuCtxDisablePeerAccess", { 4000 }, 0 },
	{ "cuCtxEnablePeerAccess", { 4000 }, 0 },
	{ "cuCtxGetCurrent", { 4000 }, 0 },
	{ "cuCtxGetDevice", { 2000, 13000 }, 0 },
	{ "cuCtxGetFlags", { 7000 }, 0 },
	{ "cuCtxPopCurrent", { 2000, 4000 }, 0 },
	{ "cuCtxPushCurrent", { 2000, 4000 }, 0 },
	{ "cuCtxSetCurrent", { 4000 }, 0 },
	{ "cuCtxSynchronize", { 2000, 13000 }, 0 },
	{ "cuDeviceCanAccessPeer", { 4000 }, 0 },
	{ "cuDeviceGet", { 2000 }, 0 },
	{ "cuDeviceGetAttribute", { 2000 }, 0 },
	{ "cuDeviceGetCount", { 2000 }, 0 },
	{ "cuDeviceGetName", { 2000 }, 0 },
	{ "cuDeviceGetP2PAttribute", { 8000 }, 0 },
	{ "cuDeviceGetUuid", { 9020, 11040 }, 0 },
	{ "cuDevicePrimaryCtxGetState", { 7000 }, 0 },
	{ "cuDevicePrimaryCtxRelease", { 7000, 11000 }, 0 },
	{ "cuDevicePrimaryCtxReset", { 7000, 11000 }, 0 },
	{ "cuDevicePrimaryCtxRetain", { 7000 }, 0 },
	{ "cuDevicePrimaryCtxSetFlags", { 7000, 11000 }, 0 },
	{ "cuDeviceTotalMem", { 2000, 3020 }, 0 },
	{ "cuDriverGetVersion", { 2020 }, 0 },
	{ "cuEventCreate", { 2000 }, 0 },
	{ "cuEventDestroy", { 2000, 4000 }, 0 },
	{ "cuEventQuery", { 2000 }, 0 },
	{ "cuEventRecord", { 2000, 7000 }, 1 },
	{ "cuEventSynchronize", { 2000 }, 0 },
	{ "cuGetErrorName", { 6000 }, 0 },
	{ "cuGetErrorString", { 6000 }, 0 },
	{ "cuInit", { 2000 }, 0 },
	{ "cuMemAddressFree", { 10020 }, 0 },
	{ "cuMemAddressReserve", { 10020 }, 0 },
	{ "cuMemAdvise", { 8000, 12020 }, 0 },
	{ "cuMemAlloc", { 2000, 3020 }, 0 },
	{ "cuMemAllocHost", { 2000, 3020 }, 0 },
	{ "cuMemAllocManaged", { 6000 }, 0 },
	{ "cuMemAllocPitch", { 2000, 3020 }, 0 },
	{ "cuMemCreate", { 10020 }, 0 },
	{ "cuMemDiscardAndPrefetchBatchAsync", { 13000 }, 1 },
	{ "cuMemDiscardBatchAsync", { 13000 }, 1 },
	{ "cuMemExportToShareableHandle", { 10020 }, 0 },
	{ "cuMemFree", { 2000, 3020 }, 0 },
	{ "cuMemFreeHost", { 2000 }, 0 },
	{ "cuMemGetAccess", { 10020 }, 0 },
	{ "cuMemGetAddressRange", { 2000, 3020 }, 0 },
	{ "cuMemGetAllocationGranularity", { 10020 }, 0 },
	{ "cuMemGetAllocationPropertiesFromHandle", { 10020 }, 0 },
	{ "cuMemGetInfo", { 2000, 3020 }, 0 },
	{ "cuMemHostAlloc", { 2020 }, 0 },
	{ "cuMemHostGetDevicePointer", { 2020, 3020 }, 0 },
	{ "cuMemHostGetFlags", { 2030 }, 0 },
	{ "cuMemHostRegister", { 4000, 6050 }, 0 },
	{ "cuMemHostUnregister", { 4000 }, 0 },
	{ "cuMemImportFromShareableHandle", { 10020 }, 0 },
	{ "cuMemMap", { 10020 }, 0 },
	{ "cuMemMapArrayAsync", { 11010 }, 1 },
	{ "cuMemPrefetchAsync", { 8000, 12020 }, 1 },
	{ "cuMemPrefetchBatchAsync", { 13000 }, 1 },
	{ "cuMemRangeGetAttribute", { 8000 }, 0 },
	{ "cuMemRangeGetAttributes", { 8000 }, 0 },
	{ "cuMemRelease", { 10020 }, 0 },
	{ "cuMemRetainAllocationHandle", { 11000 }, 0 },
	{ "cuMemSetAccess", { 10020 }, 0 },
	{ "cuMemUnmap", { 10020 }, 0 },
	{ "cuMemcpy", { 4000, 7000 }, 1 },
	{ "cuMemcpy2D", { 2000, 3020, 7000 }, 1 },
	{ "cuMemcpy2DAsync", { 2000, 3020, 7000 }, 1 },
	{ "cuMemcpy2DUnaligned", { 2000, 3020, 7000 }, 1 },
	{ "cuMemcpy3D", { 2000, 3020, 7000 }, 1 },
	{ "cuMemcpy3DAsync", { 2000, 3020, 7000 }, 1 },
	{ "cuMemcpy3DBatchAsync", { 12080, 13000 }, 1 },
	{ "cuMemcpy3DPeer", { 4000, 7000 }, 1 },
	{ "cuMemcpy3DPeerAsync", { 4000, 7000 }, 1 },
	{ "cuMemcpyAsync", { 4000, 7000 }, 1 },
	{ "cuMemcpyAtoA", { 2000, 3020, 7000 }, 1 },
	{ "cuMemcpyAtoD", { 2000, 3020, 7000 }, 1 },
	{ "cuMemcpyAtoH", { 2000, 3020, 7000 }, 1 },
	{ "cuMemcpyAtoHAsync", { 2000, 3020, 7000 }, 1 },
	{ "cuMemcpyBatchAsync", { 12080, 13000 }, 1 },
	{ "cuMemcpyDtoA", { 2000, 3020, 7000 }, 1 },
	{ "cuMemcpyDtoD", { 2000, 3020, 7000 }, 1 },
	{ "cuMemcpyDtoDAsync", { 3000, 3020, 7000 }, 1 },
	{ "cuMemcpyDtoH", { 2000, 3020, 7000 }, 1 },
	{ "cuMemcpyDtoHAsync", { 2000, 3020, 7000 }, 1 },
	{ "cuMemcpyHtoA", { 2000, 3020, 7000 }, 1 },
	{ "cuMemcpyHtoAAsync", { 2000, 3020, 7000 }, 1 },
	{ "cuMemcpyHtoD", { 2000, 3020, 7000 }, 1 },
	{ "cuMemcpyHtoDAsync", { 2000, 3020, 7000 }, 1 },
	{ "cuMemcpyPeer", { 4000, 7000 }, 1 },
	{ "cuMemcpyPeerAsync", { 4000, 7000 }, 1 },
	{ "cuMemsetD16", { 2000, 3020, 7000 }, 1 },
	{ "cuMemsetD16Async", { 3020, 7000 }, 1 },
	{ "cuMemsetD2D16", { 2000, 3020, 7000 }, 1 },
	{ "cuMemsetD2D16Async", { 3020, 7000 }, 1 },
	{ "cuMemsetD2D32", { 2000, 3020, 7000 }, 1 },
	{ "cuMemsetD2D32Async", { 3020, 7000 }, 1 },
	{ "cuMemsetD2D8", { 2000, 3020, 7000 }, 1 },
	{ "cuMemsetD2D8Async", { 3020, 7000 }, 1 },
	{ "cuMemsetD32", { 2000, 3020, 7000 }, 1 },
	{ "cuMemsetD32Async", { 3020, 7000 }, 1 },
	{ "cuMemsetD8", { 2000, 3020, 7000 }, 1 },
	{ "cuMemsetD8Async", { 3020, 7000 }, 1 },
	{ "cuMipmappedArrayCreate", { 5000 }, 0 },
	{ "cuMipmappedArrayDestroy", { 5000 }, 0 },
	{ "cuMipmappedArrayGetLevel", { 5000 }, 0 },
	{ "cuMipmappedArrayGetMemoryRequirements", { 11060 }, 0 },
	{ "cuMipmappedArrayGetSparseProperties", { 11010 }, 0 },
	{ "cuPointerGetAttribute", { 4000 }, 0 },
	{ "cuPointerGetAttributes", { 7000 }, 0 },
	{ "cuPointerSetAttribute", { 6000 }, 0 },
	{ "cuStreamCreate", { 2000 }, 0 },
	{ "cuStreamDestroy", { 2000, 4000 }, 0 },
	{ "cuStreamGetCtx", { 9020, 12050 }, 1 },
	{ "cuStreamGetFlags", { 5050, 7000 }, 1 },
	{ "cuStreamQuery", { 2000, 7000 }, 1 },
	{ "cuStreamSynchronize", { 2000, 7000 }, 1 },
	{ "cuStreamWaitEvent", { 3020, 7000 }, 1 },
	{ "cuGetProcAddress", { 11030, 12000 }, 0 },
	{ "cuProfilerStart", { 4000 }, 0 },
	{ "cuProfilerStop", { 4000 }, 0 },
};

/* The exported name @p is, among @base's forms, or "null" / "other". */
static const char *which(const char *base, void *p, char *buf, size_t len)
{
	static const char *const vers[] = { "", "_v2", "_v3", "_v4", "_v5" };
	static const char *const sfx[] = { "", "_ptsz", "_ptds" };

	if (!p)
		return "null";
	for (unsigned int v = 0; v < 5; v++) {
		for (unsigned int s = 0; s < 3; s++) {
			snprintf(buf, len, "%s%s%s", base, vers[v], sfx[s]);
			if (dlsym(RTLD_DEFAULT, buf) == p)
				return buf;
		}
	}
	return "other";
}

static void query(const char *base, int version, cuuint64_t flags, const char *tag)
{
	CUdriverProcAddressQueryResult st = (CUdriverProcAddressQueryResult)77;
	void *p = (void *)(uintptr_t)0x1234;
	char key[160], buf[160];
	CUresult r;

	r = cuGetProcAddress(base, &p, version, flags, &st);
	snprintf(key, sizeof(key), "pa.%s.%d%s", base, version, tag);
	probe_line(key, "%d %d %s", (int)r, (int)st,
		   p == (void *)(uintptr_t)0x1234 ? "untouched" : which(base, p, buf, sizeof(buf)));
}

/* Deprecated in CUDA 13, still exported and used (PyTorch). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static cudaError_t entry_point(const char *s, void **p, unsigned long long flags,
			       enum cudaDriverEntryPointQueryResult *st)
{
	return cudaGetDriverEntryPoint(s, p, flags, st);
}
#pragma GCC diagnostic pop

static void runtime_query(const char *base, int version, unsigned long long flags,
			  const char *tag)
{
	enum cudaDriverEntryPointQueryResult st = (enum cudaDriverEntryPointQueryResult)77;
	void *p = (void *)(uintptr_t)0x1234;
	char key[160], buf[160];
	cudaError_t e;

	if (version)
		e = cudaGetDriverEntryPointByVersion(base, &p, version, flags, &st);
	else
		e = entry_point(base, &p, flags, &st);
	snprintf(key, sizeof(key), "rt.%s.%d%s", base, version, tag);
	probe_line(key, "%d %d %s", (int)e, (int)st,
		   p == (void *)(uintptr_t)0x1234 ? "untouched" : which(base, p, buf, sizeof(buf)));
}

int main(void)
{
	CUdriverProcAddressQueryResult st;
	void *p = NULL;

	/* NULL arguments, one process each (NVIDIA's driver may crash),
	 * before anything initialised the driver. */
	for (int c = 0; c < 3; c++) {
		static const char *const keys[] = { "pa.null_symbol", "pa.null_pfn",
						    "pa.null_status" };
		char key[64];
		int status = 0;
		pid_t pid;

		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			CUresult r = c == 0 ? cuGetProcAddress(NULL, &p, 13000, 0, &st) :
				     c == 1 ? cuGetProcAddress("cuMemAlloc", NULL, 13000, 0, &st) :
				     cuGetProcAddress("cuMemAlloc", &p, 13000, 0, NULL);

			probe_res(keys[c], r);
			if (c == 2)
				probe_line("pa.null_status.pfn", "%s", p ? "set" : "null");
			fflush(stdout);
			_exit(0);
		}
		waitpid(pid, &status, 0);
		snprintf(key, sizeof(key), "%s.exit", keys[c]);
		probe_line(key, "%d", WIFEXITED(status) ? WEXITSTATUS(status) :
			   128 + WTERMSIG(status));
	}
	/* Before cuInit. */
	query("cuMemAlloc", 13000, CU_GET_PROC_ADDRESS_DEFAULT, ".preinit");
	MUST(cuInit(0));
	for (unsigned int i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		const struct fn *f = &fns[i];
		unsigned int n;

		query(f->name, f->versions[0] - 1, CU_GET_PROC_ADDRESS_DEFAULT, "");
		for (n = 0; n < 4 && f->versions[n]; n++)
			query(f->name, f->versions[n], CU_GET_PROC_ADDRESS_DEFAULT, "");
		query(f->name, 13000, CU_GET_PROC_ADDRESS_DEFAULT, "");
		if (f->streams) {
			query(f->name, 13000, CU_GET_PROC_ADDRESS_LEGACY_STREAM, ".legacy");
			query(f->name, 13000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, ".ptds");
			query(f->name, f->versions[0], CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM,
			      ".ptds");
		}
	}
	/* Arguments. */
	query("cuNoSuchFunction", 13000, CU_GET_PROC_ADDRESS_DEFAULT, "");
	query("cuMemAlloc_v2", 13000, CU_GET_PROC_ADDRESS_DEFAULT, "");
	query("", 13000, CU_GET_PROC_ADDRESS_DEFAULT, "");
	query("cuMemAlloc", 13000, 4, ".flags4");
	query("cuMemAlloc", 13000, 3, ".flags3");
	query("cuMemAlloc", 0, CU_GET_PROC_ADDRESS_DEFAULT, "");
	query("cuMemAlloc", -1, CU_GET_PROC_ADDRESS_DEFAULT, "");
	query("cuMemAlloc", 99999, CU_GET_PROC_ADDRESS_DEFAULT, "");
	/* The runtime's forms. */
	runtime_query("cuMemAlloc", 0, cudaEnableDefault, "");
	runtime_query("cuMemAlloc", 12000, cudaEnableDefault, "");
	runtime_query("cuMemAlloc", 3000, cudaEnableDefault, "");
	runtime_query("cuMemcpyAsync", 13000, cudaEnableDefault, "");
	runtime_query("cuMemcpyAsync", 13000, cudaEnableLegacyStream, ".legacy");
	runtime_query("cuMemcpyAsync", 13000, cudaEnablePerThreadDefaultStream, ".ptds");
	runtime_query("cuCtxCreate", 0, cudaEnableDefault, "");
	runtime_query("cuNoSuchFunction", 0, cudaEnableDefault, "");
	runtime_query("cuMemAlloc", 13000, 4, ".flags4");
	return 0;
}
