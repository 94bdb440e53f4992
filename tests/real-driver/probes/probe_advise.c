// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * probe_advise - cuMemAdvise in both forms: ranges, advice values, location
 * types and ids, and what the range attributes report afterwards.
 */
#include <dlfcn.h>

#include "probe.h"

#define LOC(t, i) ((CUmemLocation){ (CUmemLocationType)(t), (i) })

typedef CUresult (*legacy_advise_fn)(CUdeviceptr, size_t, CUmem_advise, CUdevice);

static int q_int(CUmem_range_attribute a, CUdeviceptr p, size_t n)
{
	int v = 12345;
	CUresult r = cuMemRangeGetAttribute(&v, 4, a, p, n);

	return r == CUDA_SUCCESS ? v : -1000 - (int)r;
}

static void q_pref(const char *key, CUdeviceptr p, size_t n)
{
	char k[128];

	snprintf(k, sizeof(k), "%s.preferred", key);
	probe_line(k, "legacy=%d type=%d id=%d",
		   q_int(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, p, n),
		   q_int(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE, p, n),
		   q_int(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID, p, n));
}

static void q_accessed(const char *key, CUdeviceptr p, size_t n)
{
	int v[4] = { 111, 111, 111, 111 };
	char k[128];
	CUresult r = cuMemRangeGetAttribute(v, sizeof(v), CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY,
					    p, n);

	snprintf(k, sizeof(k), "%s.accessed_by", key);
	if (r != CUDA_SUCCESS)
		probe_res(k, r);
	else
		probe_line(k, "%d %d %d %d", v[0], v[1], v[2], v[3]);
}

int main(void)
{
	const size_t M2 = 2 * PROBE_MIB;
	CUdeviceptr a = 0, b = 0, c = 0, m = 0, f = 0;
	CUcontext ctx;
	int n = 0, numa;
	char *heap = malloc(1 << 20);
	int stackvar;
	legacy_advise_fn legacy;

	MUST(cuInit(0));
	MUST(cuDeviceGetCount(&n));
	numa = probe_numa_nodes();
	MUST(cuDevicePrimaryCtxRetain(&ctx, 0));
	MUST(cuCtxSetCurrent(ctx));
	MUST(cuMemAllocManaged(&a, 4 * M2, CU_MEM_ATTACH_GLOBAL));
	memset((void *)(uintptr_t)a, 1, 4 * M2);

	/* Ranges. */
	PR("adv.count0", cuMemAdvise(a, 0, CU_MEM_ADVISE_SET_READ_MOSTLY, LOC(2, 0)));
	PR("adv.null", cuMemAdvise(0, 4096, CU_MEM_ADVISE_SET_READ_MOSTLY, LOC(2, 0)));
	PR("adv.null.count0", cuMemAdvise(0, 0, CU_MEM_ADVISE_SET_READ_MOSTLY, LOC(2, 0)));
	PR("adv.one", cuMemAdvise(1, 4096, CU_MEM_ADVISE_SET_READ_MOSTLY, LOC(2, 0)));
	PR("adv.wrap", cuMemAdvise(a, (size_t)-1, CU_MEM_ADVISE_SET_READ_MOSTLY, LOC(2, 0)));
	PR("adv.wrap2", cuMemAdvise(a + 4096, (size_t)0 - 4096, CU_MEM_ADVISE_SET_READ_MOSTLY,
	   LOC(2, 0)));
	PR("adv.straddle", cuMemAdvise(a + 4 * M2 - 4096, 8192, CU_MEM_ADVISE_SET_READ_MOSTLY,
	   LOC(2, 0)));
	PR("adv.lastbyte", cuMemAdvise(a + 4 * M2 - 1, 1, CU_MEM_ADVISE_UNSET_READ_MOSTLY,
	   LOC(2, 0)));
	PR("adv.end", cuMemAdvise(a + 4 * M2, 4096, CU_MEM_ADVISE_SET_READ_MOSTLY, LOC(2, 0)));
	PR("adv.whole", cuMemAdvise(a, 4 * M2, CU_MEM_ADVISE_UNSET_READ_MOSTLY, LOC(2, 0)));

	/* Rounding: advice on bytes 100..109 of the first page. */
	PR("adv.unaligned", cuMemAdvise(a + 100, 10, CU_MEM_ADVISE_SET_READ_MOSTLY, LOC(2, 0)));
	probe_line("adv.unaligned.page0", "%d", q_int(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, a, 4096));
	probe_line("adv.unaligned.page0.bytes0_1", "%d",
		   q_int(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, a, 1));
	probe_line("adv.unaligned.page1", "%d",
		   q_int(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, a + 4096, 4096));
	probe_line("adv.unaligned.page15", "%d",
		   q_int(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, a + 15 * 4096, 4096));
	probe_line("adv.unaligned.page16", "%d",
		   q_int(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, a + 16 * 4096, 4096));
	/* End rounded up: bytes 4095..4096 cover two pages. */
	PR("adv.cross", cuMemAdvise(a + 3 * 4096 + 4095, 2, CU_MEM_ADVISE_SET_PREFERRED_LOCATION,
	   LOC(2, 0)));
	q_pref("adv.cross.page3", a + 3 * 4096, 4096);
	q_pref("adv.cross.page4", a + 4 * 4096, 4096);
	q_pref("adv.cross.page5", a + 5 * 4096, 4096);
	MUST(cuMemAdvise(a, 4 * M2, CU_MEM_ADVISE_UNSET_READ_MOSTLY, LOC(2, 0)));
	MUST(cuMemAdvise(a, 4 * M2, CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION, LOC(2, 0)));

	/* Two adjacent allocations. */
	MUST(cuMemAllocManaged(&b, M2, CU_MEM_ATTACH_GLOBAL));
	MUST(cuMemAllocManaged(&c, M2, CU_MEM_ATTACH_GLOBAL));
	{
		CUdeviceptr lo = 0;

		if (b + M2 == c)
			lo = b;
		else if (c + M2 == b)
			lo = c;
		probe_line("env.adjacent", "%d", lo != 0);
		if (lo) {
			PR("adv.adjacent", cuMemAdvise(lo, 2 * M2, CU_MEM_ADVISE_SET_READ_MOSTLY,
			   LOC(2, 0)));
			PR("adv.adjacent.cross", cuMemAdvise(lo + M2 - 4096, 8192,
			   CU_MEM_ADVISE_SET_PREFERRED_LOCATION, LOC(1, 0)));
			probe_line("adv.adjacent.rm.lo", "%d",
				   q_int(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, lo, M2));
			probe_line("adv.adjacent.rm.both", "%d",
				   q_int(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, lo, 2 * M2));
			q_pref("adv.adjacent.cross", lo + M2 - 4096, 8192);
			q_pref("adv.adjacent.hi", lo + M2, 4096);
		}
	}

	/* Freed, foreign and device memory. */
	MUST(cuMemAllocManaged(&f, M2, CU_MEM_ATTACH_GLOBAL));
	MUST(cuMemFree(f));
	PR("adv.freed", cuMemAdvise(f, 4096, CU_MEM_ADVISE_SET_READ_MOSTLY, LOC(2, 0)));
	PR("pma.adv.malloc", cuMemAdvise((uintptr_t)heap, 4096, CU_MEM_ADVISE_SET_READ_MOSTLY,
	   LOC(2, 0)));
	PR("pma.adv.malloc.pref.dev", cuMemAdvise((uintptr_t)heap, 4096,
	   CU_MEM_ADVISE_SET_PREFERRED_LOCATION, LOC(1, 0)));
	PR("pma.adv.stack", cuMemAdvise((uintptr_t)&stackvar, 4,
	   CU_MEM_ADVISE_SET_ACCESSED_BY, LOC(1, 0)));
	PR("pma.adv.managed_into_malloc", cuMemAdvise(a + 4 * M2 - 4096, 1 << 20,
	   CU_MEM_ADVISE_SET_READ_MOSTLY, LOC(2, 0)));

	/* Advice values. */
	PR("adv.advice0", cuMemAdvise(a, 4096, (CUmem_advise)0, LOC(2, 0)));
	PR("adv.advice7", cuMemAdvise(a, 4096, (CUmem_advise)7, LOC(2, 0)));
	PR("adv.advice100", cuMemAdvise(a, 4096, (CUmem_advise)100, LOC(2, 0)));
	PR("adv.advice-1", cuMemAdvise(a, 4096, (CUmem_advise)-1, LOC(2, 0)));
	PR("adv.advice0.count0", cuMemAdvise(a, 0, (CUmem_advise)0, LOC(2, 0)));
	PR("adv.advice0.null", cuMemAdvise(0, 4096, (CUmem_advise)0, LOC(2, 0)));
	PR("adv.advice7.baddev", cuMemAdvise(a, 4096, (CUmem_advise)7, LOC(1, n)));
	PR("adv.null.baddev", cuMemAdvise(0, 4096, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, LOC(1, n)));
	PR("adv.count0.baddev", cuMemAdvise(a, 0, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, LOC(1, n)));
	PR("adv.freed.baddev", cuMemAdvise(f, 4096, CU_MEM_ADVISE_SET_PREFERRED_LOCATION,
	   LOC(1, n)));
	PR("adv.freed.badtype", cuMemAdvise(f, 4096, CU_MEM_ADVISE_SET_PREFERRED_LOCATION,
	   LOC(9, 0)));

	/* Every advice with every kind of location. */
	{
		static const struct { const char *name; int type; int id; } locs[] = {
			{ "invalid", 0, 0 }, { "dev0", 1, 0 }, { "devN", 1, -100 },
			{ "dev-1", 1, -1 }, { "dev-2", 1, -2 }, { "dev-3", 1, -3 },
			{ "host0", 2, 0 }, { "host12345", 2, 12345 }, { "host-1", 2, -1 },
			{ "numa0", 3, 0 }, { "numaN", 3, -100 }, { "numa-1", 3, -1 },
			{ "numa1000", 3, 1000 }, { "numacur12345", 4, 12345 },
			{ "type5", 5, 0 }, { "type100", 100, 0 }, { "type-1", -1, 0 },
		};
		for (int adv = 1; adv <= 6; adv++) {
			for (size_t i = 0; i < sizeof(locs) / sizeof(locs[0]); i++) {
				int id = locs[i].id == -100 ? (locs[i].type == 1 ? n : numa) :
					 locs[i].id;

				probe_resf(cuMemAdvise(a + M2, 4096, (CUmem_advise)adv,
						       LOC(locs[i].type, id)),
					   "adv.matrix.%d.%s", adv, locs[i].name);
			}
		}
	}
	MUST(cuMemAdvise(a, 4 * M2, CU_MEM_ADVISE_UNSET_READ_MOSTLY, LOC(2, 0)));
	MUST(cuMemAdvise(a, 4 * M2, CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION, LOC(2, 0)));
	MUST(cuMemAdvise(a, 4 * M2, CU_MEM_ADVISE_UNSET_ACCESSED_BY, LOC(1, 0)));
	MUST(cuMemAdvise(a, 4 * M2, CU_MEM_ADVISE_UNSET_ACCESSED_BY, LOC(2, 0)));

	/* What the range attributes report after each preferred location. */
	q_pref("pref.none", a, 4096);
	PR("pref.dev0", cuMemAdvise(a, 4096, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, LOC(1, 0)));
	q_pref("pref.dev0", a, 4096);
	PR("pref.host", cuMemAdvise(a, 4096, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, LOC(2, 7)));
	q_pref("pref.host", a, 4096);
	PR("pref.numa0", cuMemAdvise(a, 4096, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, LOC(3, 0)));
	q_pref("pref.numa0", a, 4096);
	PR("pref.numacur", cuMemAdvise(a, 4096, CU_MEM_ADVISE_SET_PREFERRED_LOCATION,
	   LOC(4, 99)));
	q_pref("pref.numacur", a, 4096);
	PR("pref.unset", cuMemAdvise(a, 4096, CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION, LOC(0, 0)));
	q_pref("pref.unset", a, 4096);
	PR("pref.half", cuMemAdvise(a, 4096, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, LOC(1, 0)));
	q_pref("pref.half", a, 8192);
	PR("pref.mixed", cuMemAdvise(a + 4096, 4096, CU_MEM_ADVISE_SET_PREFERRED_LOCATION,
	   LOC(2, 0)));
	q_pref("pref.mixed", a, 8192);
	MUST(cuMemAdvise(a, 4 * M2, CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION, LOC(2, 0)));

	/* Accessed-by lists. */
	q_accessed("ab.none", a, 4096);
	PR("ab.set.dev0", cuMemAdvise(a, 4096, CU_MEM_ADVISE_SET_ACCESSED_BY, LOC(1, 0)));
	q_accessed("ab.dev0", a, 4096);
	PR("ab.set.dev0.again", cuMemAdvise(a, 4096, CU_MEM_ADVISE_SET_ACCESSED_BY, LOC(1, 0)));
	q_accessed("ab.dev0.again", a, 4096);
	PR("ab.set.host", cuMemAdvise(a, 4096, CU_MEM_ADVISE_SET_ACCESSED_BY, LOC(2, 5)));
	q_accessed("ab.dev0.host", a, 4096);
	q_accessed("ab.half", a, 8192);
	PR("ab.unset.dev0", cuMemAdvise(a, 4096, CU_MEM_ADVISE_UNSET_ACCESSED_BY, LOC(1, 0)));
	q_accessed("ab.host", a, 4096);
	PR("ab.unset.host", cuMemAdvise(a, 4096, CU_MEM_ADVISE_UNSET_ACCESSED_BY, LOC(2, 0)));
	q_accessed("ab.none2", a, 4096);
	PR("ab.unset.never", cuMemAdvise(a, 4096, CU_MEM_ADVISE_UNSET_ACCESSED_BY, LOC(1, 0)));

	/* Read-mostly: whole, partial. */
	PR("rm.set", cuMemAdvise(a, 8192, CU_MEM_ADVISE_SET_READ_MOSTLY, LOC(0, 0)));
	probe_line("rm.whole", "%d", q_int(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, a, 8192));
	probe_line("rm.partial", "%d", q_int(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, a, 12288));
	PR("rm.unset", cuMemAdvise(a, 8192, CU_MEM_ADVISE_UNSET_READ_MOSTLY, LOC(0, 0)));
	probe_line("rm.after_unset", "%d", q_int(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, a, 8192));

	/* The CUdevice form, where the library still exports it. */
	legacy = (legacy_advise_fn)dlsym(RTLD_DEFAULT, "cuMemAdvise");
	if (legacy == (legacy_advise_fn)dlsym(RTLD_DEFAULT, "cuMemAdvise_v2"))
		legacy = NULL;
	probe_line("legacy.advise.present", "%d", legacy != NULL);
	if (legacy) {
		static const struct { const char *name; int dev; } devs[] = {
			{ "dev0", 0 }, { "devN", -100 }, { "cpu", -1 }, { "invalid", -2 },
			{ "m3", -3 },
		};
		for (int adv = 0; adv <= 7; adv++)
			for (size_t i = 0; i < sizeof(devs) / sizeof(devs[0]); i++)
				probe_resf(legacy(a + 2 * M2, 4096, (CUmem_advise)adv,
						  devs[i].dev == -100 ? n : devs[i].dev),
					   "legacy.advise.%d.%s", adv, devs[i].name);
		MUST(legacy(a, 4096, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, CU_DEVICE_CPU));
		q_pref("legacy.pref.cpu", a, 4096);
		MUST(legacy(a, 4096, CU_MEM_ADVISE_SET_ACCESSED_BY, CU_DEVICE_CPU));
		q_accessed("legacy.ab.cpu", a, 4096);
		PR("legacy.count0", legacy(a, 0, CU_MEM_ADVISE_SET_READ_MOSTLY, 0));
		PR("legacy.null", legacy(0, 4096, CU_MEM_ADVISE_SET_READ_MOSTLY, 0));
	}

	/* A 1000-byte allocation: advice past its end, inside its page. */
	{
		CUdeviceptr sm = 0;
		int v = 77;

		MUST(cuMemAllocManaged(&sm, 1000, CU_MEM_ATTACH_GLOBAL));
		PR("small.adv.1000", cuMemAdvise(sm, 1000, CU_MEM_ADVISE_SET_READ_MOSTLY, LOC(2, 0)));
		PR("small.adv.4096", cuMemAdvise(sm, 4096, CU_MEM_ADVISE_SET_READ_MOSTLY, LOC(2, 0)));
		PR("small.adv.past", cuMemAdvise(sm + 1000, 10, CU_MEM_ADVISE_SET_READ_MOSTLY,
		   LOC(2, 0)));
		PR("small.adv.64k", cuMemAdvise(sm, 65536, CU_MEM_ADVISE_SET_READ_MOSTLY, LOC(2, 0)));
		PR("small.adv.2m", cuMemAdvise(sm, 2 << 20, CU_MEM_ADVISE_SET_READ_MOSTLY, LOC(2, 0)));
		PR("small.ra.4096", cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY,
		   sm, 4096));
		probe_line("small.ra.4096.value", "%d", v);
		PR("small.ra.past", cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY,
		   sm + 1000, 10));
		PR("small.pf.4096", cuMemPrefetchAsync(sm, 4096, LOC(1, 0), 0, NULL));
		PR("small.pf.past", cuMemPrefetchAsync(sm + 2000, 10, LOC(1, 0), 0, NULL));
		PR("small.sync", cuCtxSynchronize());
		PR("small.free", cuMemFree(sm));
	}

	PR("free.a", cuMemFree(a));
	PR("free.b", cuMemFree(b));
	PR("free.c", cuMemFree(c));
	(void)m;
	free(heap);
	return 0;
}
