// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * probe_prefetch - cuMemPrefetchAsync in both forms, the three batch calls,
 * their validation, streams, and the last-prefetch attributes.
 */
#include <dlfcn.h>

#include "probe.h"

#define LOC(t, i) ((CUmemLocation){ (CUmemLocationType)(t), (i) })

typedef CUresult (*legacy_prefetch_fn)(CUdeviceptr, size_t, CUdevice, CUstream);

static int q_int(CUmem_range_attribute a, CUdeviceptr p, size_t n)
{
	int v = 12345;
	CUresult r = cuMemRangeGetAttribute(&v, 4, a, p, n);

	return r == CUDA_SUCCESS ? v : -1000 - (int)r;
}

static void q_last(const char *key, CUdeviceptr p, size_t n)
{
	char k[128];

	snprintf(k, sizeof(k), "%s.last", key);
	probe_line(k, "legacy=%d type=%d id=%d",
		   q_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, p, n),
		   q_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE, p, n),
		   q_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID, p, n));
}

int main(void)
{
	const size_t M2 = 2 * PROBE_MIB;
	CUdeviceptr a = 0, b = 0, f = 0, lone_end = 0, joined_end = 0;
	CUcontext ctx;
	CUstream s;
	int n = 0, numa;
	char *heap = malloc(1 << 20);
	legacy_prefetch_fn legacy;

	MUST(cuInit(0));
	MUST(cuDeviceGetCount(&n));
	numa = probe_numa_nodes();
	MUST(cuDevicePrimaryCtxRetain(&ctx, 0));
	MUST(cuCtxSetCurrent(ctx));
	MUST(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	MUST(cuMemAllocManaged(&a, 8 * M2, CU_MEM_ATTACH_GLOBAL));
	MUST(cuMemAllocManaged(&b, 8 * M2, CU_MEM_ATTACH_GLOBAL));
	memset((void *)(uintptr_t)a, 1, 8 * M2);
	MUST(cuMemAllocManaged(&f, M2, CU_MEM_ATTACH_GLOBAL));
	MUST(cuMemFree(f));
	/* Layout: an allocation end followed by nothing, and one followed by
	 * the other allocation (if the driver placed them side by side). */
	if (!probe_is_alloc(a + 8 * M2))
		lone_end = a + 8 * M2;
	else if (!probe_is_alloc(b + 8 * M2))
		lone_end = b + 8 * M2;
	if (a + 8 * M2 == b)
		joined_end = b;
	else if (b + 8 * M2 == a)
		joined_end = a;
	probe_line("env.lone_end", "%d", lone_end != 0);
	probe_line("env.joined_end", "%d", joined_end != 0);

	/* cuMemPrefetchAsync. */
	q_last("pf.never", a, 4096);
	PR("pf.dev0", cuMemPrefetchAsync(a, 4096, LOC(1, 0), 0, s));
	q_last("pf.dev0", a, 4096);
	PR("pf.dev0.sync", cuStreamSynchronize(s));
	PR("pf.host", cuMemPrefetchAsync(a, 4096, LOC(2, 12345), 0, s));
	q_last("pf.host", a, 4096);
	PR("pf.numa0", cuMemPrefetchAsync(a, 4096, LOC(3, 0), 0, s));
	q_last("pf.numa0", a, 4096);
	PR("pf.numacur", cuMemPrefetchAsync(a, 4096, LOC(4, 12345), 0, s));
	q_last("pf.numacur", a, 4096);
	PR("pf.dev0.again", cuMemPrefetchAsync(a, 4096, LOC(1, 0), 0, s));
	q_last("pf.half", a, 8192);
	PR("pf.host.page1", cuMemPrefetchAsync(a + 4096, 4096, LOC(2, 0), 0, s));
	q_last("pf.mixed", a, 8192);
	PR("pf.unaligned", cuMemPrefetchAsync(a + 3 * 4096 + 4000, 200, LOC(1, 0), 0, s));
	q_last("pf.unaligned.page3", a + 3 * 4096, 4096);
	q_last("pf.unaligned.page4", a + 4 * 4096, 4096);
	q_last("pf.unaligned.page5", a + 5 * 4096, 4096);
	PR("pf.sync", cuStreamSynchronize(s));

	PR("pf.flags1", cuMemPrefetchAsync(a, 4096, LOC(1, 0), 1, s));
	PR("pf.flags_all", cuMemPrefetchAsync(a, 4096, LOC(1, 0), 0xffffffffu, s));
	PR("pf.count0", cuMemPrefetchAsync(a, 0, LOC(1, 0), 0, s));
	PR("pf.null", cuMemPrefetchAsync(0, 4096, LOC(1, 0), 0, s));
	PR("pf.one", cuMemPrefetchAsync(1, 4096, LOC(1, 0), 0, s));
	PR("pf.wrap", cuMemPrefetchAsync(a, (size_t)-1, LOC(1, 0), 0, s));
	if (lone_end) {
		PR("pf.straddle", cuMemPrefetchAsync(lone_end - 4096, 8192, LOC(1, 0), 0, s));
		PR("pf.end", cuMemPrefetchAsync(lone_end, 4096, LOC(1, 0), 0, s));
	}
	if (joined_end)
		PR("pf.span_two", cuMemPrefetchAsync(joined_end - 4096, 8192, LOC(1, 0), 0, s));
	PR("pf.freed", cuMemPrefetchAsync(f, 4096, LOC(1, 0), 0, s));
	PR("pma.pf.malloc.dev", cuMemPrefetchAsync((uintptr_t)heap, 4096, LOC(1, 0), 0, s));
	PR("pma.pf.malloc.host", cuMemPrefetchAsync((uintptr_t)heap, 4096, LOC(2, 0), 0, s));
	PR("pf.flags1.count0", cuMemPrefetchAsync(a, 0, LOC(1, 0), 1, s));
	PR("pf.flags1.baddev", cuMemPrefetchAsync(a, 4096, LOC(1, n), 1, s));
	PR("pf.count0.baddev", cuMemPrefetchAsync(a, 0, LOC(1, n), 0, s));
	PR("pf.null.baddev", cuMemPrefetchAsync(0, 4096, LOC(1, n), 0, s));
	PR("pf.freed.baddev", cuMemPrefetchAsync(f, 4096, LOC(1, n), 0, s));
	PR("pf.freed.badtype", cuMemPrefetchAsync(f, 4096, LOC(0, 0), 0, s));
	PR("pf.stream.null", cuMemPrefetchAsync(a, 4096, LOC(1, 0), 0, NULL));
	PR("pf.stream.legacy", cuMemPrefetchAsync(a, 4096, LOC(1, 0), 0, CU_STREAM_LEGACY));
	PR("pf.stream.perthread", cuMemPrefetchAsync(a, 4096, LOC(1, 0), 0,
	   CU_STREAM_PER_THREAD));
	{
		static const struct { const char *name; int type; int id; } locs[] = {
			{ "invalid", 0, 0 }, { "dev0", 1, 0 }, { "devN", 1, -100 },
			{ "dev-1", 1, -1 }, { "dev-2", 1, -2 }, { "host0", 2, 0 },
			{ "host-1", 2, -1 }, { "numa0", 3, 0 }, { "numaN", 3, -100 },
			{ "numa-1", 3, -1 }, { "numacur", 4, 7 }, { "type5", 5, 0 },
			{ "type-1", -1, 0 },
		};
		for (size_t i = 0; i < sizeof(locs) / sizeof(locs[0]); i++) {
			int id = locs[i].id == -100 ? (locs[i].type == 1 ? n : numa) : locs[i].id;

			probe_resf(cuMemPrefetchAsync(a + M2, 4096, LOC(locs[i].type, id), 0, s),
				   "pf.loc.%s", locs[i].name);
		}
	}
	PR("pf.sync2", cuStreamSynchronize(s));
	PR("pf.ctxsync", cuCtxSynchronize());

	legacy = (legacy_prefetch_fn)dlsym(RTLD_DEFAULT, "cuMemPrefetchAsync");
	if (legacy == (legacy_prefetch_fn)dlsym(RTLD_DEFAULT, "cuMemPrefetchAsync_v2"))
		legacy = NULL;
	probe_line("legacy.prefetch.present", "%d", legacy != NULL);
	if (legacy) {
		PR("legacy.pf.dev0", legacy(a + 3 * M2, 4096, 0, s));
		q_last("legacy.pf.dev0", a + 3 * M2, 4096);
		PR("legacy.pf.cpu", legacy(a + 3 * M2, 4096, CU_DEVICE_CPU, s));
		q_last("legacy.pf.cpu", a + 3 * M2, 4096);
		PR("legacy.pf.invalid", legacy(a + 3 * M2, 4096, CU_DEVICE_INVALID, s));
		PR("legacy.pf.devN", legacy(a + 3 * M2, 4096, n, s));
		PR("legacy.pf.m3", legacy(a + 3 * M2, 4096, -3, s));
		PR("legacy.pf.count0", legacy(a + 3 * M2, 0, 0, s));
		PR("legacy.pf.null", legacy(0, 4096, 0, s));
		PR("legacy.pf.stream.null", legacy(a + 3 * M2, 4096, 0, NULL));
		PR("legacy.pf.sync", cuStreamSynchronize(s));
	}

	/* Batches. */
	{
		CUdeviceptr d[10];
		size_t sz[10], idx[4];
		CUmemLocation l[4];

		for (int i = 0; i < 10; i++) {
			d[i] = b + (size_t)i * M2 / 2;
			sz[i] = M2 / 2;
		}
		l[0] = LOC(1, 0);
		l[1] = LOC(2, 0);
		l[2] = LOC(3, 0);
		l[3] = LOC(1, 0);
		idx[0] = 0;
		idx[1] = 4;
		idx[2] = 6;
		idx[3] = 8;

		PR("bt.pf.ok", cuMemPrefetchBatchAsync(d, sz, 10, l, idx, 2, 0, s));
		q_last("bt.pf.ok.op0", d[0], sz[0]);
		q_last("bt.pf.ok.op3", d[3], sz[3]);
		q_last("bt.pf.ok.op4", d[4], sz[4]);
		q_last("bt.pf.ok.op9", d[9], sz[9]);
		PR("bt.pf.ok.sync", cuStreamSynchronize(s));
		PR("bt.pf.four", cuMemPrefetchBatchAsync(d, sz, 10, l, idx, 4, 0, s));
		q_last("bt.pf.four.op5", d[5], sz[5]);
		q_last("bt.pf.four.op7", d[7], sz[7]);
		PR("bt.pf.one_loc", cuMemPrefetchBatchAsync(d, sz, 10, l + 1, idx, 1, 0, s));
		q_last("bt.pf.one_loc.op9", d[9], sz[9]);
		PR("bt.pf.count1", cuMemPrefetchBatchAsync(d, sz, 1, l, idx, 1, 0, s));
		PR("bt.pf.count0", cuMemPrefetchBatchAsync(d, sz, 0, l, idx, 1, 0, s));
		PR("bt.pf.count0.nlocs0", cuMemPrefetchBatchAsync(d, sz, 0, l, idx, 0, 0, s));
		PR("bt.pf.nlocs0", cuMemPrefetchBatchAsync(d, sz, 10, l, idx, 0, 0, s));
		PR("bt.pf.nlocs_gt_count", cuMemPrefetchBatchAsync(d, sz, 3, l, idx, 4, 0, s));
		PR("bt.pf.nlocs_eq_count", cuMemPrefetchBatchAsync(d, sz, 4, l, (size_t[]){0, 1, 2, 3},
		   4, 0, s));
		PR("bt.pf.idx0_nonzero", cuMemPrefetchBatchAsync(d, sz, 10, l, (size_t[]){1, 4}, 2,
		   0, s));
		PR("bt.pf.idx_equal", cuMemPrefetchBatchAsync(d, sz, 10, l, (size_t[]){0, 0}, 2, 0, s));
		PR("bt.pf.idx_decreasing", cuMemPrefetchBatchAsync(d, sz, 10, l,
		   (size_t[]){0, 5, 3}, 3, 0, s));
		PR("bt.pf.idx_last_eq_count", cuMemPrefetchBatchAsync(d, sz, 10, l,
		   (size_t[]){0, 10}, 2, 0, s));
		PR("bt.pf.idx_last_gt_count", cuMemPrefetchBatchAsync(d, sz, 10, l,
		   (size_t[]){0, 11}, 2, 0, s));
		PR("bt.pf.flags1", cuMemPrefetchBatchAsync(d, sz, 10, l, idx, 2, 1, s));
		PR("bt.pf.flags_high", cuMemPrefetchBatchAsync(d, sz, 10, l, idx, 2, 1ULL << 40, s));
		PR("bt.pf.stream.null", cuMemPrefetchBatchAsync(d, sz, 10, l, idx, 2, 0, NULL));
		PR("bt.pf.stream.legacy", cuMemPrefetchBatchAsync(d, sz, 10, l, idx, 2, 0,
		   CU_STREAM_LEGACY));
		PR("bt.pf.stream.perthread", cuMemPrefetchBatchAsync(d, sz, 10, l, idx, 2, 0,
		   CU_STREAM_PER_THREAD));
		PR("bt.pf.stream.null.count0", cuMemPrefetchBatchAsync(d, sz, 0, l, idx, 1, 0, NULL));
		PR("bt.pf.stream.null.flags1", cuMemPrefetchBatchAsync(d, sz, 10, l, idx, 2, 1, NULL));
		PR("bt.pf.flags1.count0", cuMemPrefetchBatchAsync(d, sz, 0, l, idx, 1, 1, s));
		PR("bt.pf.null.dptrs", cuMemPrefetchBatchAsync(NULL, sz, 10, l, idx, 2, 0, s));
		PR("bt.pf.null.sizes", cuMemPrefetchBatchAsync(d, NULL, 10, l, idx, 2, 0, s));
		PR("bt.pf.null.locs", cuMemPrefetchBatchAsync(d, sz, 10, NULL, idx, 2, 0, s));
		PR("bt.pf.null.idxs", cuMemPrefetchBatchAsync(d, sz, 10, l, NULL, 2, 0, s));
		PR("bt.pf.null.locs.nlocs0", cuMemPrefetchBatchAsync(d, sz, 10, NULL, NULL, 0, 0, s));

		/* Bad entries. */
		{
			CUdeviceptr d2[3] = { d[0], d[1], d[2] };
			size_t s2[3] = { sz[0], sz[1], sz[2] };
			size_t i0[1] = { 0 };
			CUmemLocation lb[2];

			s2[1] = 0;
			PR("bt.pf.size0", cuMemPrefetchBatchAsync(d2, s2, 3, l, i0, 1, 0, s));
			s2[1] = sz[1];
			d2[1] = 0;
			PR("bt.pf.ptr0", cuMemPrefetchBatchAsync(d2, s2, 3, l, i0, 1, 0, s));
			d2[1] = f;
			PR("bt.pf.freed", cuMemPrefetchBatchAsync(d2, s2, 3, l, i0, 1, 0, s));
			d2[1] = (uintptr_t)heap;
			PR("pma.bt.pf.malloc", cuMemPrefetchBatchAsync(d2, s2, 3, l, i0, 1, 0, s));
			s2[1] = 8192;
			if (lone_end) {
				d2[1] = lone_end - 4096;
				PR("bt.pf.straddle", cuMemPrefetchBatchAsync(d2, s2, 3, l, i0, 1, 0, s));
			}
			if (joined_end) {
				d2[1] = joined_end - 4096;
				PR("bt.pf.span_two", cuMemPrefetchBatchAsync(d2, s2, 3, l, i0, 1, 0,
				   s));
			}
			d2[1] = d[1] + 100;
			s2[1] = 10;
			PR("bt.pf.unaligned", cuMemPrefetchBatchAsync(d2, s2, 3, l, i0, 1, 0, s));
			d2[1] = d[1];
			s2[1] = sz[1];
			/* Overlapping ranges in one batch. */
			d2[2] = d2[1];
			PR("bt.pf.overlap", cuMemPrefetchBatchAsync(d2, s2, 3, l, i0, 1, 0, s));
			d2[2] = d[2];
			PR("bt.pf.overlap.sync", cuStreamSynchronize(s));

			/* A bad location after a good one: does the good one run? */
			MUST(cuMemPrefetchAsync(d[0], sz[0], LOC(2, 0), 0, s));
			MUST(cuStreamSynchronize(s));
			lb[0] = LOC(1, 0);
			static const struct { const char *name; int type; int id; } bl[] = {
				{ "invalid", 0, 0 }, { "devN", 1, -100 }, { "dev-1", 1, -1 },
				{ "numaN", 3, -100 }, { "numa-1", 3, -1 }, { "type5", 5, 0 },
				{ "host-1", 2, -1 }, { "numacur", 4, 9 },
			};
			for (size_t i = 0; i < sizeof(bl) / sizeof(bl[0]); i++) {
				size_t i2[2] = { 0, 1 };

				lb[1] = LOC(bl[i].type, bl[i].id == -100 ?
					    (bl[i].type == 1 ? n : numa) : bl[i].id);
				probe_resf(cuMemPrefetchBatchAsync(d2, s2, 2, lb, i2, 2, 0, s),
					   "bt.pf.badloc.%s", bl[i].name);
			}
			MUST(cuStreamSynchronize(s));
			q_last("bt.pf.badloc.op0", d[0], sz[0]);
		}

		/* Discard batches. */
		PR("bt.ds.ok", cuMemDiscardBatchAsync(d, sz, 10, 0, s));
		PR("bt.ds.ok.sync", cuStreamSynchronize(s));
		q_last("bt.ds.after", d[0], sz[0]);
		PR("bt.ds.count0", cuMemDiscardBatchAsync(d, sz, 0, 0, s));
		PR("bt.ds.flags1", cuMemDiscardBatchAsync(d, sz, 10, 1, s));
		PR("bt.ds.stream.null", cuMemDiscardBatchAsync(d, sz, 10, 0, NULL));
		PR("bt.ds.stream.legacy", cuMemDiscardBatchAsync(d, sz, 10, 0, CU_STREAM_LEGACY));
		PR("bt.ds.stream.perthread", cuMemDiscardBatchAsync(d, sz, 10, 0,
		   CU_STREAM_PER_THREAD));
		PR("bt.ds.null.dptrs", cuMemDiscardBatchAsync(NULL, sz, 10, 0, s));
		PR("bt.ds.null.sizes", cuMemDiscardBatchAsync(d, NULL, 10, 0, s));
		{
			CUdeviceptr d2[2] = { d[0], f };
			size_t s2[2] = { sz[0], 4096 };

			PR("bt.ds.freed", cuMemDiscardBatchAsync(d2, s2, 2, 0, s));
			d2[1] = d[1];
			s2[1] = 0;
			PR("bt.ds.size0", cuMemDiscardBatchAsync(d2, s2, 2, 0, s));
			d2[1] = 0;
			s2[1] = 4096;
			PR("bt.ds.ptr0", cuMemDiscardBatchAsync(d2, s2, 2, 0, s));
			d2[1] = (uintptr_t)heap;
			PR("pma.bt.ds.malloc", cuMemDiscardBatchAsync(d2, s2, 2, 0, s));
			s2[1] = 8192;
			if (joined_end) {
				d2[1] = joined_end - 4096;
				PR("bt.ds.span_two", cuMemDiscardBatchAsync(d2, s2, 2, 0, s));
			}
			if (lone_end) {
				d2[1] = lone_end - 4096;
				PR("bt.ds.straddle", cuMemDiscardBatchAsync(d2, s2, 2, 0, s));
			}
		}
		/* Discard data, then write, then read back. */
		{
			unsigned char *c = (unsigned char *)(uintptr_t)d[0];
			CUdeviceptr d1[1] = { d[0] };
			size_t s1[1] = { 4096 };

			memset(c, 0x77, 8192);
			MUST(cuMemDiscardBatchAsync(d1, s1, 1, 0, s));
			MUST(cuStreamSynchronize(s));
			probe_line("env.ds.read_after_discard", "%u", c[0]);
			probe_line("ds.untouched_page_kept", "%d", c[4096] == 0x77);
			c[0] = 0x12;
			probe_line("ds.write_after_discard", "%d", c[0] == 0x12);
		}

		/* Discard and prefetch. */
		PR("bt.dp.ok", cuMemDiscardAndPrefetchBatchAsync(d, sz, 10, l, (size_t[]){0, 6}, 2,
		   0, s));
		q_last("bt.dp.op5", d[5], sz[5]);
		q_last("bt.dp.op6", d[6], sz[6]);
		PR("bt.dp.sync", cuStreamSynchronize(s));
		PR("bt.dp.count0", cuMemDiscardAndPrefetchBatchAsync(d, sz, 0, l, idx, 1, 0, s));
		PR("bt.dp.nlocs0", cuMemDiscardAndPrefetchBatchAsync(d, sz, 10, l, idx, 0, 0, s));
		PR("bt.dp.nlocs_gt_count", cuMemDiscardAndPrefetchBatchAsync(d, sz, 3, l, idx, 4, 0,
		   s));
		PR("bt.dp.idx0_nonzero", cuMemDiscardAndPrefetchBatchAsync(d, sz, 10, l,
		   (size_t[]){1, 4}, 2, 0, s));
		PR("bt.dp.idx_equal", cuMemDiscardAndPrefetchBatchAsync(d, sz, 10, l,
		   (size_t[]){0, 0}, 2, 0, s));
		PR("bt.dp.idx_last_eq_count", cuMemDiscardAndPrefetchBatchAsync(d, sz, 10, l,
		   (size_t[]){0, 10}, 2, 0, s));
		PR("bt.dp.flags1", cuMemDiscardAndPrefetchBatchAsync(d, sz, 10, l, idx, 2, 1, s));
		PR("bt.dp.stream.null", cuMemDiscardAndPrefetchBatchAsync(d, sz, 10, l, idx, 2, 0,
		   NULL));
		PR("bt.dp.stream.legacy", cuMemDiscardAndPrefetchBatchAsync(d, sz, 10, l, idx, 2, 0,
		   CU_STREAM_LEGACY));
		PR("bt.dp.stream.perthread", cuMemDiscardAndPrefetchBatchAsync(d, sz, 10, l, idx, 2,
		   0, CU_STREAM_PER_THREAD));
		PR("bt.dp.badloc", cuMemDiscardAndPrefetchBatchAsync(d, sz, 10,
		   (CUmemLocation[]){LOC(1, 0), LOC(1, n)}, idx, 2, 0, s));
		PR("bt.dp.invalidloc", cuMemDiscardAndPrefetchBatchAsync(d, sz, 10,
		   (CUmemLocation[]){LOC(0, 0)}, idx, 1, 0, s));
		PR("bt.dp.null.locs", cuMemDiscardAndPrefetchBatchAsync(d, sz, 10, NULL, idx, 2, 0,
		   s));
		PR("bt.dp.sync2", cuStreamSynchronize(s));
		/* After a discard, the last prefetch location. */
		{
			CUdeviceptr d1[1] = { d[9] };
			size_t s1[1] = { sz[9] };

			MUST(cuMemPrefetchAsync(d[9], sz[9], LOC(1, 0), 0, s));
			MUST(cuMemDiscardBatchAsync(d1, s1, 1, 0, s));
			q_last("bt.ds.after_prefetch", d[9], sz[9]);
			MUST(cuStreamSynchronize(s));
		}
	}

	/* Second round: wrapping counts, location grouping, ids, atomicity. */
	{
		CUdeviceptr d[10], w1[2];
		size_t sz[10], ws[2];
		CUmemLocation l3[3] = { LOC(1, 0), LOC(2, 0), LOC(3, 0) };

		for (int i = 0; i < 10; i++) {
			d[i] = b + (size_t)i * M2 / 2;
			sz[i] = M2 / 2;
		}
		MUST(cuMemPrefetchAsync(a + 5 * M2, 4096, LOC(2, 0), 0, s));
		q_last("r2.host_id0", a + 5 * M2, 4096);
		PR("r2.wrap", cuMemPrefetchAsync(a + 5 * M2, (size_t)-1, LOC(1, 0), 0, s));
		q_last("r2.wrap", a + 5 * M2, 4096);
		PR("r2.wrap_to_zero", cuMemPrefetchAsync(a + 5 * M2, (size_t)0 - (a + 5 * M2),
		   LOC(1, 0), 0, s));
		q_last("r2.wrap_to_zero", a + 5 * M2, 4096);
		PR("r2.wrap.baddev", cuMemPrefetchAsync(a + 5 * M2, (size_t)-1, LOC(1, n), 0, s));
		PR("r2.wrap.freed", cuMemPrefetchAsync(f, (size_t)-1, LOC(1, 0), 0, s));
		PR("r2.wrap.null", cuMemPrefetchAsync(0, (size_t)-1, LOC(1, 0), 0, s));
		w1[0] = d[0];
		ws[0] = sz[0];
		w1[1] = d[1];
		ws[1] = (size_t)-1;
		PR("r2.bt.wrap", cuMemPrefetchBatchAsync(w1, ws, 2, l3, (size_t[]){0}, 1, 0, s));
		PR("r2.ds.wrap", cuMemDiscardBatchAsync(w1, ws, 2, 0, s));
		MUST(cuStreamSynchronize(s));

		/* Which location applies when the indices do not increase. */
		PR("r2.bt.idx_053", cuMemPrefetchBatchAsync(d, sz, 10, l3, (size_t[]){0, 5, 3}, 3,
		   0, s));
		for (int i = 0; i < 10; i++) {
			char key[64];

			snprintf(key, sizeof(key), "r2.bt.idx_053.op%d", i);
			q_last(key, d[i], sz[i]);
		}
		PR("r2.bt.idx_00", cuMemPrefetchBatchAsync(d, sz, 10, l3, (size_t[]){0, 0}, 2, 0, s));
		q_last("r2.bt.idx_00.op0", d[0], sz[0]);
		q_last("r2.bt.idx_00.op5", d[5], sz[5]);
		PR("r2.bt.idx_0220", cuMemPrefetchBatchAsync(d, sz, 10, l3, (size_t[]){0, 2, 2}, 3, 0,
		   s));
		q_last("r2.bt.idx_0220.op1", d[1], sz[1]);
		q_last("r2.bt.idx_0220.op2", d[2], sz[2]);
		q_last("r2.bt.idx_0220.op9", d[9], sz[9]);
		PR("r2.bt.idx_0_9_1", cuMemPrefetchBatchAsync(d, sz, 10, l3, (size_t[]){0, 9, 1}, 3, 0,
		   s));
		q_last("r2.bt.idx_0_9_1.op0", d[0], sz[0]);
		q_last("r2.bt.idx_0_9_1.op1", d[1], sz[1]);
		q_last("r2.bt.idx_0_9_1.op9", d[9], sz[9]);
		MUST(cuStreamSynchronize(s));

		/* Ids kept by the batch path. */
		PR("r2.bt.host12345", cuMemPrefetchBatchAsync(d, sz, 1,
		   (CUmemLocation[]){LOC(2, 12345)}, (size_t[]){0}, 1, 0, s));
		q_last("r2.bt.host12345", d[0], sz[0]);
		PR("r2.bt.numacur777", cuMemPrefetchBatchAsync(d, sz, 1,
		   (CUmemLocation[]){LOC(4, 777)}, (size_t[]){0}, 1, 0, s));
		q_last("r2.bt.numacur777", d[0], sz[0]);
		PR("r2.pf.numacur0", cuMemPrefetchAsync(d[0], sz[0], LOC(4, 0), 0, s));
		q_last("r2.pf.numacur0", d[0], sz[0]);
		PR("r2.dp.host12345", cuMemDiscardAndPrefetchBatchAsync(d, sz, 1,
		   (CUmemLocation[]){LOC(2, 12345)}, (size_t[]){0}, 1, 0, s));
		q_last("r2.dp.host12345", d[0], sz[0]);
		MUST(cuStreamSynchronize(s));

		/* Atomicity: an invalid batch whose first entry is valid. */
		MUST(cuMemPrefetchAsync(d[0], sz[0], LOC(2, 0), 0, s));
		MUST(cuStreamSynchronize(s));
		q_last("r2.atomic.before", d[0], sz[0]);
		{
			CUdeviceptr d2[2] = { d[0], f };
			size_t s2[2] = { sz[0], 4096 };

			PR("r2.atomic.badrange", cuMemPrefetchBatchAsync(d2, s2, 2,
			   (CUmemLocation[]){LOC(1, 0)}, (size_t[]){0}, 1, 0, s));
			MUST(cuStreamSynchronize(s));
			q_last("r2.atomic.badrange", d[0], sz[0]);
			d2[1] = d[1];
			s2[1] = sz[1];
			PR("r2.atomic.badloc", cuMemPrefetchBatchAsync(d2, s2, 2,
			   (CUmemLocation[]){LOC(1, 0), LOC(1, n)}, (size_t[]){0, 1}, 2, 0, s));
			MUST(cuStreamSynchronize(s));
			q_last("r2.atomic.badloc", d[0], sz[0]);
			d2[1] = 0;
			PR("r2.atomic.ptr0", cuMemDiscardAndPrefetchBatchAsync(d2, s2, 2,
			   (CUmemLocation[]){LOC(1, 0)}, (size_t[]){0}, 1, 0, s));
			MUST(cuStreamSynchronize(s));
			q_last("r2.atomic.ptr0", d[0], sz[0]);
		}
	}

	PR("free.a", cuMemFree(a));
	PR("free.b", cuMemFree(b));
	PR("stream.destroy", cuStreamDestroy(s));
	free(heap);
	return 0;
}
