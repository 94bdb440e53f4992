// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * probe_devmem - device memory, page-locked host memory, registered host
 * memory, copies and sets: arguments, attributes, flags, what each call
 * refuses.  probe_copy goes further.
 */
#include <sys/mman.h>

#include "probe.h"

#define LOC(t, i) ((CUmemLocation){ (CUmemLocationType)(t), (i) })

static void attrs(const char *what, CUdeviceptr ptr, CUdeviceptr base)
{
	static const int at[] = { 1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17 };

	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		unsigned long long v = 0xAAAAAAAAAAAAAAAAULL;
		char key[96], rel[64];
		CUresult r = cuPointerGetAttribute(&v, (CUpointer_attribute)at[i], ptr);

		snprintf(key, sizeof(key), "dm.pa.%s.%d", what, at[i]);
		probe_res(key, r);
		if (r != CUDA_SUCCESS)
			continue;
		snprintf(key, sizeof(key), "dm.pa.%s.%d.value", what, at[i]);
		if ((v >> 32) == 0xAAAAAAAAULL)
			probe_line(key, "w4:%llu", v & 0xffffffffULL);
		else if (at[i] == 1 || at[i] == 7)
			probe_line(key, "w8:%s", v ? "nonzero" : "0");
		else
			probe_line(key, "w8:%s", probe_rel(v, base, rel, sizeof(rel)));
	}
}

int main(void)
{
	CUdeviceptr d = 0, d2 = 0, m = 0, hp_dev = 0, b = 0;
	CUcontext ctx;
	CUstream s;
	void *h = NULL, *h2 = NULL;
	unsigned int fl = 77;
	size_t sz = 0;
	char *reg = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int v;

	MUST(cuInit(0));
	MUST(cuDevicePrimaryCtxRetain(&ctx, 0));
	MUST(cuCtxSetCurrent(ctx));
	MUST(cuStreamCreate(&s, 0));

	/* cuMemAlloc. */
	PR("dm.alloc.size0", cuMemAlloc(&d, 0));
	PR("dm.alloc.null", cuMemAlloc(NULL, 4096));
	PR("dm.alloc.1000", cuMemAlloc(&d, 1000));
	probe_line("env.dm.alloc.align_log2", "%d", d ? __builtin_ctzll(d) : -1);
	PR("dm.ar", cuMemGetAddressRange(&b, &sz, d + 10));
	probe_line("dm.ar.size", "%zu", sz);
	attrs("dev", d, d);
	attrs("dev.interior", d + 10, d);
	PR("dm.advise", cuMemAdvise(d, 4096, CU_MEM_ADVISE_SET_READ_MOSTLY, LOC(2, 0)));
	PR("dm.advise.pref", cuMemAdvise(d, 4096, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, LOC(1, 0)));
	PR("dm.prefetch", cuMemPrefetchAsync(d, 4096, LOC(2, 0), 0, s));
	PR("dm.rangeattr", cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, d, 1000));
	{
		size_t s1 = 1000;

		PR("dm.discard", cuMemDiscardBatchAsync(&d, &s1, 1, 0, s));
	}
	{
		unsigned long long tok[2];

		PR("dm.p2ptokens", cuPointerGetAttribute(tok, CU_POINTER_ATTRIBUTE_P2P_TOKENS, d));
		fl = 77;
		PR("dm.p2ptokens.syncmemops", cuPointerGetAttribute(&fl,
		   CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, d));
		probe_line("dm.p2ptokens.syncmemops.value", "%u", fl);
	}
	PR("dm.memsetd8", cuMemsetD8(d, 0x11, 1000));
	PR("dm.memsetd32.unaligned", cuMemsetD32(d + 1, 0x11, 10));
	PR("dm.memcpy.dtoh", cuMemcpyDtoH(reg, d, 1000));
	probe_line("dm.memcpy.dtoh.data", "%d", reg[999] == 0x11);
	PR("dm.memcpy.htod", cuMemcpyHtoD(d, reg, 1000));
	PR("dm.memcpy.htod.size0", cuMemcpyHtoD(d, reg, 0));
	PR("dm.alloc.d2", cuMemAlloc(&d2, 1 << 20));
	PR("dm.memcpy.dtod", cuMemcpyDtoD(d2, d, 1000));
	PR("dm.memcpy.generic", cuMemcpy(d2, d, 1000));
	PR("dm.memcpy.async.null", cuMemcpyHtoDAsync(d, reg, 1000, NULL));
	PR("dm.free", cuMemFree(d));
	PR("dm.free.again", cuMemFree(d));
	PR("dm.free.d2", cuMemFree(d2));

	/* Managed memory through copies and sets. */
	MUST(cuMemAllocManaged(&m, 1 << 20, CU_MEM_ATTACH_GLOBAL));
	PR("dm.managed.memsetd8", cuMemsetD8(m, 0x22, 1 << 20));
	PR("dm.managed.memsetd8.sync", cuCtxSynchronize());
	probe_line("dm.managed.memsetd8.data", "%d",
		   ((unsigned char *)(uintptr_t)m)[12345] == 0x22);
	PR("dm.managed.memcpy.htod", cuMemcpyHtoD(m, reg, 4096));
	{
		int lp = 99;

		PR("dm.managed.lastprefetch", cuMemRangeGetAttribute(&lp, 4,
		   CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, m, 4096));
		probe_line("dm.managed.lastprefetch.value", "%d", lp);
	}

	/* Page-locked host memory. */
	PR("dm.allochost.size0", cuMemAllocHost(&h, 0));
	PR("dm.allochost", cuMemAllocHost(&h, 1000));
	attrs("host", (uintptr_t)h, (uintptr_t)h);
	fl = 77;
	PR("dm.allochost.getflags", cuMemHostGetFlags(&fl, h));
	probe_line("dm.allochost.getflags.value", "%u", fl);
	PR("dm.allochost.devptr", cuMemHostGetDevicePointer(&hp_dev, h, 0));
	probe_line("dm.allochost.devptr.same", "%d", hp_dev == (uintptr_t)h);
	PR("dm.allochost.devptr.flags1", cuMemHostGetDevicePointer(&hp_dev, h, 1));
	PR("dm.allochost.advise", cuMemAdvise((uintptr_t)h, 1000, CU_MEM_ADVISE_SET_READ_MOSTLY,
	   LOC(2, 0)));
	PR("dm.allochost.rangeattr", cuMemRangeGetAttribute(&v, 4,
	   CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, (uintptr_t)h, 1000));
	PR("dm.freehost.interior", cuMemFreeHost((char *)h + 8));
	PR("dm.memfree.host", cuMemFree((uintptr_t)h));
	PR("dm.freehost", cuMemFreeHost(h));
	PR("dm.freehost.again", cuMemFreeHost(h));
	PR("dm.freehost.null", cuMemFreeHost(NULL));
	PR("dm.freehost.malloc", cuMemFreeHost(reg));
	static const unsigned int hflags[] = { 0, 1, 2, 4, 7, 8, 0x10 };
	for (size_t i = 0; i < sizeof(hflags) / sizeof(hflags[0]); i++) {
		h2 = NULL;
		probe_resf(cuMemHostAlloc(&h2, 4096, hflags[i]), "dm.hostalloc.flags%u", hflags[i]);
		if (h2) {
			fl = 77;
			cuMemHostGetFlags(&fl, h2);
			probe_linef("", "dm.hostalloc.flags%u.getflags.%u", hflags[i], fl);
			hp_dev = 0;
			probe_resf(cuMemHostGetDevicePointer(&hp_dev, h2, 0),
				   "dm.hostalloc.flags%u.devptr", hflags[i]);
			probe_linef(hp_dev == (uintptr_t)h2 ? "1" : "0", "dm.hostalloc.flags%u.devptr.same",
				    hflags[i]);
			cuMemFreeHost(h2);
		}
	}
	PR("dm.hostalloc.size0", cuMemHostAlloc(&h2, 0, 0));

	/* Registered host memory. */
	PR("dm.reg.ok", cuMemHostRegister(reg, 1 << 16, 0));
	attrs("reg", (uintptr_t)reg, (uintptr_t)reg);
	attrs("reg.interior", (uintptr_t)reg + 100, (uintptr_t)reg);
	PR("dm.reg.ar", cuMemGetAddressRange(&b, &sz, (uintptr_t)reg + 100));
	probe_line("dm.reg.ar.size", "%zu", sz);
	PR("dm.reg.again", cuMemHostRegister(reg, 1 << 16, 0));
	PR("dm.reg.overlap", cuMemHostRegister(reg + 4096, 1 << 16, 0));
	PR("dm.reg.getflags", cuMemHostGetFlags(&fl, reg));
	PR("dm.reg.devptr", cuMemHostGetDevicePointer(&hp_dev, reg, 0));
	probe_line("dm.reg.devptr.same", "%d", hp_dev == (uintptr_t)reg);
	PR("dm.reg.unregister.interior", cuMemHostUnregister(reg + 4096));
	PR("dm.reg.unregister", cuMemHostUnregister(reg));
	PR("dm.reg.unregister.again", cuMemHostUnregister(reg));
	PR("dm.reg.unaligned", cuMemHostRegister(reg + 100, 1000, 0));
	PR("dm.reg.unaligned.unregister", cuMemHostUnregister(reg + 100));
	PR("dm.reg.size0", cuMemHostRegister(reg, 0, 0));
	PR("dm.reg.null", cuMemHostRegister(NULL, 4096, 0));
	PR("dm.reg.managed", cuMemHostRegister((void *)(uintptr_t)m, 4096, 0));
	PR("dm.reg.readonly", cuMemHostRegister(reg, 4096, CU_MEMHOSTREGISTER_READ_ONLY));
	cuMemHostUnregister(reg);
	PR("dm.reg.iomemory", cuMemHostRegister(reg, 4096, CU_MEMHOSTREGISTER_IOMEMORY));
	cuMemHostUnregister(reg);
	PR("dm.reg.badflags", cuMemHostRegister(reg, 4096, 0x100));
	PR("dm.reg.unmapped", cuMemHostRegister((void *)0x1000, 4096, 0));
	PR("dm.unregister.never", cuMemHostUnregister(reg + 8192));

	/* Out of bounds last: they may break the context. */
	MUST(cuMemAlloc(&d, 8192));
	PR("dm.memcpy.oob", cuMemcpyHtoD(d, reg, 1 << 16));
	PR("dm.memcpy.oob.sync", cuCtxSynchronize());
	PR("dm.managed.memcpy.straddle", cuMemcpyHtoD(m + (1 << 20) - 100, reg, 4096));
	PR("dm.managed.memcpy.straddle.sync", cuCtxSynchronize());
	PR("dm.managed.memsetd8.straddle", cuMemsetD8(m + (1 << 20) - 100, 0, 4096));
	PR("dm.managed.memsetd8.straddle.sync", cuCtxSynchronize());
	PR("dm.memsetd8.oob", cuMemsetD8(d, 0x11, 1 << 16));
	PR("dm.memsetd8.oob.sync", cuCtxSynchronize());
	PR("dm.managed.free", cuMemFree(m));
	PR("dm.stream.destroy", cuStreamDestroy(s));
	return 0;
}
