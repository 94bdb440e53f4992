// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * probe_null - NULL pointers and NULL handles, and calls that may break the
 * context (writes a GPU cannot do, copies whose pointers contradict their
 * kind), one case per process (a driver that crashes on one, or whose
 * context an MMU fault kills, must not hide the others).
 *
 *   probe_null            lists the case names
 *   probe_null NAME       runs one case after a common setup
 */
#include <sys/mman.h>

#include <cuda_runtime_api.h>

#include "probe.h"

#define LOC(t, i) ((CUmemLocation){ (CUmemLocationType)(t), (i) })

static CUdeviceptr p;
static CUstream s;

#define CASES(X)								\
	X(driverversion, cuDriverGetVersion(NULL))				\
	X(devicegetcount, cuDeviceGetCount(NULL))				\
	X(deviceget, cuDeviceGet(NULL, 0))					\
	X(devicegetname, cuDeviceGetName(NULL, 64, 0))				\
	X(devicegetname_len0, cuDeviceGetName((char[8]){0}, 0, 0))		\
	X(devicegetname_lenneg, cuDeviceGetName((char[8]){0}, -1, 0))		\
	X(devicetotalmem, cuDeviceTotalMem(NULL, 0))				\
	X(devicegetattribute, cuDeviceGetAttribute(NULL,			\
	  CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, 0))				\
	X(primaryretain, cuDevicePrimaryCtxRetain(NULL, 0))			\
	X(primarystate_flags, cuDevicePrimaryCtxGetState(0, NULL, &(int){0}))	\
	X(primarystate_active, cuDevicePrimaryCtxGetState(0, &(unsigned){0}, NULL)) \
	X(ctxcreate, ctx_create_null())						\
	X(ctxdestroy, cuCtxDestroy(NULL))					\
	X(ctxgetcurrent, cuCtxGetCurrent(NULL))					\
	X(ctxgetdevice, cuCtxGetDevice(NULL))					\
	X(streamcreate, cuStreamCreate(NULL, 0))				\
	X(streamdestroy, cuStreamDestroy(NULL))					\
	X(streamdestroy_legacy, cuStreamDestroy(CU_STREAM_LEGACY))		\
	X(streamdestroy_perthread, cuStreamDestroy(CU_STREAM_PER_THREAD))	\
	X(streamgetflags, cuStreamGetFlags(s, NULL))				\
	X(eventcreate, cuEventCreate(NULL, 0))					\
	X(eventdestroy, cuEventDestroy(NULL))					\
	X(eventrecord, cuEventRecord(NULL, s))					\
	X(eventquery, cuEventQuery(NULL))					\
	X(eventsynchronize, cuEventSynchronize(NULL))				\
	X(streamwaitevent, cuStreamWaitEvent(s, NULL, 0))			\
	X(memallocmanaged, cuMemAllocManaged(NULL, 4096, CU_MEM_ATTACH_GLOBAL))	\
	X(memallocmanaged_size0, cuMemAllocManaged(NULL, 0, CU_MEM_ATTACH_GLOBAL)) \
	X(memallocmanaged_badflags, cuMemAllocManaged(NULL, 4096, 0))		\
	X(memgetinfo_free, cuMemGetInfo(NULL, &(size_t){0}))			\
	X(memgetinfo_total, cuMemGetInfo(&(size_t){0}, NULL))			\
	X(memgetinfo_both, cuMemGetInfo(NULL, NULL))				\
	X(memgetaddressrange_unknown, cuMemGetAddressRange(NULL, NULL, 1))	\
	X(pointergetattribute, cuPointerGetAttribute(NULL,			\
	  CU_POINTER_ATTRIBUTE_IS_MANAGED, p))					\
	X(pointergetattribute_unknownptr, cuPointerGetAttribute(NULL,		\
	  CU_POINTER_ATTRIBUTE_IS_MANAGED, 1))					\
	X(pointergetattributes_attrs, cuPointerGetAttributes(1, NULL,		\
	  (void *[]){ &(int){0} }, p))						\
	X(pointergetattributes_data, cuPointerGetAttributes(1,			\
	  (CUpointer_attribute[]){ CU_POINTER_ATTRIBUTE_IS_MANAGED }, NULL, p))	\
	X(pointergetattributes_entry, cuPointerGetAttributes(1,		\
	  (CUpointer_attribute[]){ CU_POINTER_ATTRIBUTE_IS_MANAGED },		\
	  (void *[]){ NULL }, p))						\
	X(pointersetattribute, cuPointerSetAttribute(NULL,			\
	  CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, p))					\
	X(rangegetattribute, cuMemRangeGetAttribute(NULL, 4,			\
	  CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, p, 4096))				\
	X(geterrorname, cuGetErrorName(CUDA_SUCCESS, NULL))			\
	X(geterrorstring, cuGetErrorString(CUDA_SUCCESS, NULL))			\
	X(geterrorname_unknown, cuGetErrorName((CUresult)12345, NULL))		\
	X(prefetch_stream_garbage_ok, cuMemPrefetchAsync(p, 4096, LOC(1, 0), 0, s)) \
	X(memfree_twice, memfree_twice())					\
	X(memalloc, cuMemAlloc(NULL, 4096))					\
	X(memallochost, cuMemAllocHost(NULL, 4096))				\
	X(memhostalloc, cuMemHostAlloc(NULL, 4096, 0))				\
	X(memhostgetflags, cuMemHostGetFlags(NULL, pinned()))			\
	X(memhostgetflags_ptr, cuMemHostGetFlags(&(unsigned){0}, NULL))		\
	X(memhostgetdeviceptr, cuMemHostGetDevicePointer(NULL, pinned(), 0))	\
	X(memhostgetdeviceptr_ptr, cuMemHostGetDevicePointer(&(CUdeviceptr){0}, NULL, 0)) \
	X(memhostunregister, cuMemHostUnregister(NULL))				\
	X(memfreehost_one, cuMemFreeHost((void *)1))				\
	X(memcpyhtod_nullsrc, cuMemcpyHtoD(dev(), NULL, 16))			\
	X(memcpyhtod_unmappedsrc, cuMemcpyHtoD(dev(), (void *)0x1000, 16))	\
	X(memcpyhtod_nulldst, cuMemcpyHtoD(0, host, 16))			\
	X(memcpydtoh_nulldst, cuMemcpyDtoH(NULL, dev(), 16))			\
	X(memcpydtoh_unmappeddst, cuMemcpyDtoH((void *)0x1000, dev(), 16))	\
	X(memcpydtod_nulldst, cuMemcpyDtoD(0, dev(), 16))			\
	X(memcpydtod_nullsrc, cuMemcpyDtoD(dev(), 0, 16))			\
	X(memcpy_nulldst, cuMemcpy(0, (uintptr_t)host, 16))			\
	X(memcpy_nullsrc, cuMemcpy(dev(), 0, 16))				\
	X(memcpyasync_nullsrc, cuMemcpyHtoDAsync(dev(), NULL, 16, s))		\
	X(memsetd8_null, cuMemsetD8(0, 0, 16))					\
	X(memsetd8_unmapped, cuMemsetD8(0x1000, 0, 16))			\
	X(memsetd8async_null, cuMemsetD8Async(0, 0, 16, s))			\
	X(htod_src_is_device, synced("htod_src_is_device",			\
	  cuMemcpyHtoD(dev(), (void *)(uintptr_t)dev2(), 16)))			\
	X(dtoh_dst_is_device, synced("dtoh_dst_is_device",			\
	  cuMemcpyDtoH((void *)(uintptr_t)dev2(), dev(), 16)))			\
	X(pma_htod_dst_pageable, synced("pma_htod_dst_pageable",		\
	  cuMemcpyHtoD((uintptr_t)host2, host, 16)))				\
	X(pma_dtoh_src_pageable, synced("pma_dtoh_src_pageable",		\
	  cuMemcpyDtoH(host2, (uintptr_t)host, 16)))				\
	X(pma_dtod_dst_pageable, synced("pma_dtod_dst_pageable",		\
	  cuMemcpyDtoD((uintptr_t)host2, dev(), 16)))				\
	X(pma_dtod_src_pageable, synced("pma_dtod_src_pageable",		\
	  cuMemcpyDtoD(dev(), (uintptr_t)host, 16)))				\
	X(pma_memset_pageable, synced("pma_memset_pageable",			\
	  cuMemsetD8((uintptr_t)host2, 1, 16)))					\
	X(pma_memsetasync_pageable, synced("pma_memsetasync_pageable",		\
	  cuMemsetD8Async((uintptr_t)host2, 1, 16, s)))				\
	X(ro_dtod_into, synced("ro_dtod_into", cuMemcpyDtoD(ro(), dev(), 16)))	\
	X(ro_htod_into, synced("ro_htod_into", cuMemcpyHtoD(ro(), host, 16)))	\
	X(ro_memset, synced("ro_memset", cuMemsetD8(ro(), 1, 16)))		\
	X(ro_memsetasync, synced("ro_memsetasync", cuMemsetD8Async(ro(), 1, 16, s))) \
	X(freed_dtod, synced("freed_dtod", cuMemcpyDtoD(freed(), dev(), 16)))	\
	X(freed_memset, synced("freed_memset", cuMemsetD8(freed(), 0, 16)))	\
	X(freed_memsetasync, synced("freed_memsetasync",			\
	  cuMemsetD8Async(freed(), 0, 16, s)))					\
	X(freed_registered_htod, synced("freed_registered_htod",		\
	  cuMemcpyHtoD(unregistered(), host, 16)))				\
	X(rt_memcpy_h2d_is_d2h, rt_synced("rt_memcpy_h2d_is_d2h",		\
	  cudaMemcpy(host2, (void *)(uintptr_t)dev(), 16, cudaMemcpyHostToDevice))) \
	X(rt_memcpy_d2h_is_h2d, rt_synced("rt_memcpy_d2h_is_h2d",		\
	  cudaMemcpy((void *)(uintptr_t)dev(), host, 16, cudaMemcpyDeviceToHost))) \
	X(rt_memcpy_h2h_is_d2d, rt_synced("rt_memcpy_h2h_is_d2d",		\
	  cudaMemcpy((void *)(uintptr_t)dev(), (void *)(uintptr_t)dev2(), 16,	\
		     cudaMemcpyHostToHost)))					\
	X(rt_memcpy_d2d_is_h2h, rt_synced("rt_memcpy_d2d_is_h2h",		\
	  cudaMemcpy(host2, host, 16, cudaMemcpyDeviceToDevice)))		\
	X(rt_memcpy_nulldst, rt_synced("rt_memcpy_nulldst",			\
	  cudaMemcpy(NULL, host, 16, cudaMemcpyDefault)))			\
	X(rt_memset_null, rt_synced("rt_memset_null", cudaMemset(NULL, 0, 16)))	\
	X(rt_memset_pageable, rt_synced("rt_memset_pageable",			\
	  cudaMemset(host2, 0, 16)))						\
	X(rt_malloc_null, rt_synced("rt_malloc_null", cudaMalloc(NULL, 16)))	\
	X(rt_mallochost_null, rt_synced("rt_mallochost_null", cudaMallocHost(NULL, 16))) \
	X(rt_hostgetflags_null, rt_synced("rt_hostgetflags_null",		\
	  cudaHostGetFlags(NULL, pinned())))					\
	X(rt_pointerattr_device_null, rt_synced("rt_pointerattr_device_null",	\
	  cudaPointerGetAttributes(NULL, (void *)(uintptr_t)dev())))

static CUresult ctx_create_null(void)
{
#if CUDA_VERSION >= 13000
	return cuCtxCreate(NULL, NULL, 0, 0);
#else
	return cuCtxCreate(NULL, 0, 0);
#endif
}

static CUresult memfree_twice(void)
{
	CUdeviceptr q;

	MUST(cuMemAllocManaged(&q, 4096, CU_MEM_ATTACH_GLOBAL));
	MUST(cuMemFree(q));
	return cuMemFree(q);
}

static char host[64], host2[64];

/* Lazily made memory of each kind, for the cases above. */
static void *pinned(void)
{
	static void *h;

	if (!h)
		MUST(cuMemAllocHost(&h, 4096));
	return h;
}

static CUdeviceptr dev(void)
{
	static CUdeviceptr d;

	if (!d)
		MUST(cuMemAlloc(&d, 4096));
	return d;
}

static CUdeviceptr dev2(void)
{
	static CUdeviceptr d;

	if (!d)
		MUST(cuMemAlloc(&d, 4096));
	return d;
}

/* Host memory (writable by the CPU) registered read-only for the GPUs. */
static CUdeviceptr ro(void)
{
	static char *r;

	if (!r) {
		r = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		MUST(cuMemHostRegister(r, 4096, CU_MEMHOSTREGISTER_READ_ONLY));
	}
	return (uintptr_t)r;
}

/* Device memory freed again. */
static CUdeviceptr freed(void)
{
	CUdeviceptr d;

	MUST(cuMemAlloc(&d, 1 << 20));
	MUST(cuMemFree(d));
	return d;
}

/* Host memory registered and unregistered again. */
static CUdeviceptr unregistered(void)
{
	static char r[8192] __attribute__((aligned(4096)));

	MUST(cuMemHostRegister(r, 4096, 0));
	MUST(cuMemHostUnregister(r));
	return (uintptr_t)r;
}

/* A call that may fail only when the work runs: record the synchronisation
 * and whether the context survived, return the call's own result. */
static CUresult synced(const char *name, CUresult r)
{
	char key[128];
	CUdeviceptr d;

	snprintf(key, sizeof(key), "null.%s.sync", name);
	probe_res(key, cuCtxSynchronize());
	snprintf(key, sizeof(key), "null.%s.after", name);
	probe_res(key, cuMemAlloc(&d, 16));
	return r;
}

static void rt_line(const char *key, cudaError_t e)
{
	probe_line(key, "%d %s", (int)e, cudaGetErrorName(e));
}

/* The runtime's form: the synchronisation and the last error. */
static CUresult rt_synced(const char *name, cudaError_t e)
{
	char key[128];

	snprintf(key, sizeof(key), "null.%s.rt", name);
	rt_line(key, e);
	snprintf(key, sizeof(key), "null.%s.rt.sync", name);
	rt_line(key, cudaDeviceSynchronize());
	snprintf(key, sizeof(key), "null.%s.rt.lasterror", name);
	rt_line(key, cudaGetLastError());
	return CUDA_SUCCESS;
}

#define NAME(n, call) #n,
#define RUN(n, call) if (!strcmp(name, #n)) { probe_res("null." #n, (call)); return 0; }

int main(int argc, char **argv)
{
	static const char *names[] = { CASES(NAME) };
	const char *name = argc > 1 ? argv[1] : NULL;
	CUcontext ctx;

	if (!name) {
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			puts(names[i]);
		return 0;
	}
	MUST(cuInit(0));
	MUST(cuDevicePrimaryCtxRetain(&ctx, 0));
	MUST(cuCtxSetCurrent(ctx));
	MUST(cuStreamCreate(&s, 0));
	MUST(cuMemAllocManaged(&p, 1 << 20, CU_MEM_ATTACH_GLOBAL));
	CASES(RUN)
	fprintf(stderr, "unknown case %s\n", name);
	return 1;
}
