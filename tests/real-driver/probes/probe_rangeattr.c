// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * probe_rangeattr - cuMemRangeGetAttribute(s): dataSize rules, ranges,
 * unknown attributes, what is written, partial failure.
 */
#include "probe.h"

#define LOC(t, i) ((CUmemLocation){ (CUmemLocationType)(t), (i) })

int main(void)
{
	const size_t M2 = 2 * PROBE_MIB;
	CUdeviceptr a = 0, f = 0, lone_end;
	CUcontext ctx;
	char *heap = malloc(1 << 20);
	int n;

	MUST(cuInit(0));
	MUST(cuDeviceGetCount(&n));
	MUST(cuDevicePrimaryCtxRetain(&ctx, 0));
	MUST(cuCtxSetCurrent(ctx));
	MUST(cuMemAllocManaged(&a, 4 * M2, CU_MEM_ATTACH_GLOBAL));
	MUST(cuMemAllocManaged(&f, M2, CU_MEM_ATTACH_GLOBAL));
	MUST(cuMemFree(f));
	lone_end = a + 4 * M2;
	MUST(cuMemAdvise(a, 4096, CU_MEM_ADVISE_SET_ACCESSED_BY, LOC(1, 0)));
	MUST(cuMemAdvise(a, 4096, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, LOC(1, 0)));
	MUST(cuMemAdvise(a, 4096, CU_MEM_ADVISE_SET_READ_MOSTLY, LOC(1, 0)));
	MUST(cuMemPrefetchAsync(a, 4096, LOC(1, 0), 0, NULL));
	MUST(cuCtxSynchronize());

	/* dataSize for each attribute; what is written. */
	static const size_t sizes[] = { 0, 1, 2, 3, 4, 5, 6, 8, 12, 16, 64 };
	for (int at = 0; at <= 10; at++) {
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			int buf[20];
			CUresult r;
			char val[256] = "";
			size_t len = 0;

			for (int k = 0; k < 20; k++)
				buf[k] = 0x5a5a5a5a;
			r = cuMemRangeGetAttribute(buf, sizes[i], (CUmem_range_attribute)at, a, 4096);
			probe_resf(r, "ra.%d.size%zu", at, sizes[i]);
			if (r != CUDA_SUCCESS) {
				int touched = 0;

				for (int k = 0; k < 20; k++)
					touched |= buf[k] != 0x5a5a5a5a;
				if (touched)
					probe_linef("yes", "ra.%d.size%zu.touched_on_error", at,
						    sizes[i]);
				continue;
			}
			for (int k = 0; k < 17; k++) {
				if (buf[k] == 0x5a5a5a5a)
					len += snprintf(val + len, sizeof(val) - len, " .");
				else
					len += snprintf(val + len, sizeof(val) - len, " %d", buf[k]);
			}
			probe_linef(val, "ra.%d.size%zu.data", at, sizes[i]);
		}
	}

	/* Ranges. */
	{
		int v = 77;

		PR("ra.count0", cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, a, 0));
		PR("ra.null", cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, 0,
		   4096));
		PR("ra.one", cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, 1, 4096));
		PR("ra.wrap", cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, a,
		   (size_t)-1));
		PR("ra.straddle", cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY,
		   lone_end - 4096, 8192));
		PR("ra.end", cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY,
		   lone_end, 4096));
		PR("ra.freed", cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, f,
		   4096));
		PR("pma.ra.malloc", cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY,
		   (uintptr_t)heap, 4096));
		probe_line("pma.ra.malloc.value", "%d", v);
		PR("ra.unaligned", cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY,
		   a + 100, 10));
		probe_line("ra.unaligned.value", "%d", v);
		PR("ra.unaligned.cross", cuMemRangeGetAttribute(&v, 4,
		   CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, a + 4000, 200));
		probe_line("ra.unaligned.cross.value", "%d", v);
		PR("ra.lastbyte", cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY,
		   a + 4 * M2 - 1, 1));
		PR("ra.data.null", cuMemRangeGetAttribute(NULL, 4, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY,
		   a, 4096));
		PR("ra.data.null.size0", cuMemRangeGetAttribute(NULL, 0,
		   CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, a, 4096));
		PR("ra.count0.badsize", cuMemRangeGetAttribute(&v, 3, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY,
		   a, 0));
		PR("ra.freed.badsize", cuMemRangeGetAttribute(&v, 3, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY,
		   f, 4096));
		PR("ra.freed.badattr", cuMemRangeGetAttribute(&v, 4, (CUmem_range_attribute)99,
		   f, 4096));
		PR("ra.badattr.badsize", cuMemRangeGetAttribute(&v, 3, (CUmem_range_attribute)99,
		   a, 4096));
	}
	/* A wrapping count is accepted: what does it report? */
	for (int at = 1; at <= 8; at++) {
		int w[4] = { 111, 111, 111, 111 };
		CUresult r = cuMemRangeGetAttribute(w, at == 3 ? 16 : 4,
						    (CUmem_range_attribute)at, a, (size_t)-1);
		char val[64];

		probe_resf(r, "ra.wrap.%d", at);
		snprintf(val, sizeof(val), "%d %d %d %d", w[0], w[1], w[2], w[3]);
		probe_linef(val, "ra.wrap.%d.data", at);
	}
	{
		int w = 111;

		PR("ra.wrap.freed", cuMemRangeGetAttribute(&w, 4, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY,
		   f, (size_t)-1));
		PR("ra.wrap.null", cuMemRangeGetAttribute(&w, 4, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY,
		   0, (size_t)-1));
		PR("ra.wrap.mid", cuMemRangeGetAttribute(&w, 4, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY,
		   a + 8192, (size_t)-1));
		probe_line("ra.wrap.mid.value", "%d", w);
		PR("ras.wrap", cuMemRangeGetAttributes((void *[]){ &w }, (size_t[]){ 4 },
		   (CUmem_range_attribute[]){ CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY }, 1, a, (size_t)-1));
	}

	/* Accessed-by: buffer smaller than the list; whole range vs part. */
	{
		int v[8];

		MUST(cuMemAdvise(a, 4096, CU_MEM_ADVISE_SET_ACCESSED_BY, LOC(2, 0)));
		for (int k = 0; k < 8; k++)
			v[k] = 111;
		PR("ra.ab.host_dev.size4", cuMemRangeGetAttribute(v, 4,
		   CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, a, 4096));
		probe_line("ra.ab.host_dev.size4.data", "%d %d", v[0], v[1]);
		for (int k = 0; k < 8; k++)
			v[k] = 111;
		PR("ra.ab.host_dev.size16", cuMemRangeGetAttribute(v, 16,
		   CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, a, 4096));
		probe_line("ra.ab.host_dev.size16.data", "%d %d %d %d %d", v[0], v[1], v[2], v[3],
			   v[4]);
		for (int k = 0; k < 8; k++)
			v[k] = 111;
		PR("ra.ab.part", cuMemRangeGetAttribute(v, 16, CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY,
		   a, 8192));
		probe_line("ra.ab.part.data", "%d %d %d %d %d", v[0], v[1], v[2], v[3], v[4]);
	}

	/* cuMemRangeGetAttributes. */
	{
		int v0 = 77, v1 = 77, v2 = 77, v3[4] = { 77, 77, 77, 77 };
		void *data[] = { &v0, &v1, &v2, v3 };
		size_t ds[] = { 4, 4, 4, 16 };
		CUmem_range_attribute at[] = { CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY,
			CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE,
			CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION,
			CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY };

		PR("ras.ok", cuMemRangeGetAttributes(data, ds, at, 4, a, 4096));
		probe_line("ras.ok.data", "%d %d %d %d %d", v0, v1, v2, v3[0], v3[1]);
		PR("ras.n0", cuMemRangeGetAttributes(data, ds, at, 0, a, 4096));
		PR("ras.n0.nulls", cuMemRangeGetAttributes(NULL, NULL, NULL, 0, a, 4096));
		PR("ras.null.data", cuMemRangeGetAttributes(NULL, ds, at, 4, a, 4096));
		PR("ras.null.sizes", cuMemRangeGetAttributes(data, NULL, at, 4, a, 4096));
		PR("ras.null.attrs", cuMemRangeGetAttributes(data, ds, NULL, 4, a, 4096));
		PR("ras.count0", cuMemRangeGetAttributes(data, ds, at, 4, a, 0));
		PR("ras.null.ptr", cuMemRangeGetAttributes(data, ds, at, 4, 0, 4096));
		PR("ras.freed", cuMemRangeGetAttributes(data, ds, at, 4, f, 4096));
		/* A bad entry last: are the first ones written? */
		v0 = v1 = v2 = 77;
		ds[2] = 3;
		PR("ras.badsize.last", cuMemRangeGetAttributes(data, ds, at, 3, a, 4096));
		probe_line("ras.badsize.last.data", "%d %d %d", v0, v1, v2);
		ds[2] = 4;
		v0 = v1 = v2 = 77;
		at[2] = (CUmem_range_attribute)42;
		PR("ras.badattr.last", cuMemRangeGetAttributes(data, ds, at, 3, a, 4096));
		probe_line("ras.badattr.last.data", "%d %d %d", v0, v1, v2);
		at[2] = CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION;
		v0 = v1 = v2 = 77;
		data[1] = NULL;
		PR("ras.nullentry", cuMemRangeGetAttributes(data, ds, at, 3, a, 4096));
		probe_line("ras.nullentry.data", "%d %d", v0, v2);
		data[1] = &v1;
		ds[0] = 0;
		PR("ras.size0entry", cuMemRangeGetAttributes(data, ds, at, 3, a, 4096));
	}
	PR("free.a", cuMemFree(a));
	free(heap);
	return 0;
}
