// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * probe_null - NULL pointers and NULL handles, one case per process (a
 * driver that crashes on one must not hide the others).
 *
 *   probe_null            lists the case names
 *   probe_null NAME       runs one case after a common setup
 */
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
	X(memfree_twice, memfree_twice())

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
