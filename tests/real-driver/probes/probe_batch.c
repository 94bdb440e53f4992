// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * probe_batch - the batch copies of CUDA 12.8/13: cuMemcpyBatchAsync,
 * cudaMemcpyBatchAsync, cuMemcpy3DBatchAsync and cudaMemcpy3DBatchAsync.
 * Batches of 1, 2 and 4096 copies between device, page-locked, pageable
 * and managed memory (the data checked), every source access order, location
 * hint and flag, the attribute index rules, count 0, the streams (legacy
 * NULL stream, per-thread), 3D operations between pointers and arrays, and
 * the layout of the attribute and operation structures.
 *
 * CUDA 13 dropped the failIdx output of the 12.8 forms; the 12.8 entry
 * points (cuGetProcAddress with version 12080) still exist in the driver
 * and are called too ("cu12"), printing failIdx ("max" for SIZE_MAX,
 * "untouched" where the call left it alone).
 *
 *   probe_batch              runs every section, each in a process of its own
 *   probe_batch case NAME    runs one section ("sec.NAME") or case
 *
 * Cases that may crash the driver (NULL arrays, NULL or bogus pointers in a
 * copy) or break the context (copies past the end of an allocation) run in
 * a process of their own: "batch.NAME.exit = exit N" or "= signal N".
 *
 * Data checks print "ok" (every buffer holds exactly what the batch should
 * have written and nothing else changed), "untouched" (nothing changed) or
 * "mismatch".
 */
#include <stddef.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cuda_runtime.h>
#include <cudaTypedefs.h>

#include "probe.h"

#define VP(p) ((void *)(uintptr_t)(p))
#define BN (256 * 1024)
#define DST0 (128 * 1024)	/* destinations start here, sources below 64 KiB */
#define UNTOUCHED ((size_t)0xdeadbeef)

static const char *argv0;
static CUcontext ctx;
static CUstream st, stnb;
static PFN_cuMemcpyBatchAsync_v12080 cu12;
static PFN_cuMemcpy3DBatchAsync_v12080 cu12_3d;

static void failidx(const char *key, size_t f)
{
	if (f == UNTOUCHED)
		probe_line(fk("%s.failidx", key), "untouched");
	else if (f == SIZE_MAX)
		probe_line(fk("%s.failidx", key), "max");
	else
		probe_line(fk("%s.failidx", key), "%zu", f);
}

/* ------------------------------------------------------------------ */
/* Buffers: every kind of memory, BN bytes each, and their images. */

enum { B_DEV1, B_DEV2, B_PIN, B_PAGE, B_PAGE2, B_MAN, NB };
static unsigned char *bh[NB];
static CUdeviceptr bd[NB];
static unsigned char *img[NB], *expb[NB], *got;

static int is_dev(int b)
{
	return b == B_DEV1 || b == B_DEV2;
}

static void bufs_alloc(void)
{
	for (int b = 0; b < NB; b++) {
		img[b] = malloc(BN);
		expb[b] = malloc(BN);
		switch (b) {
		case B_DEV1:
		case B_DEV2:
			MUST(cuMemAlloc(&bd[b], BN));
			break;
		case B_PIN:
			MUST(cuMemAllocHost((void **)&bh[b], BN));
			bd[b] = (uintptr_t)bh[b];
			break;
		case B_PAGE:
		case B_PAGE2:
			bh[b] = aligned_alloc(4096, BN);
			bd[b] = (uintptr_t)bh[b];
			break;
		case B_MAN:
			MUST(cuMemAllocManaged(&bd[b], BN, CU_MEM_ATTACH_GLOBAL));
			bh[b] = VP(bd[b]);
			break;
		}
	}
	got = malloc(BN);
}

static void bufs_fill(void)
{
	MUST(cuCtxSynchronize());
	for (int b = 0; b < NB; b++) {
		for (size_t i = 0; i < BN; i++)
			img[b][i] = (unsigned char)(i * 131u + (i >> 8) * 7u + 17u * (unsigned)b + 1u);
		if (is_dev(b))
			MUST(cuMemcpyHtoD(bd[b], img[b], BN));
		else
			memcpy(bh[b], img[b], BN);
		memcpy(expb[b], img[b], BN);
	}
}

static void apply(int sb, size_t so, int db, size_t dof, size_t n)
{
	memcpy(expb[db] + dof, img[sb] + so, n);
}

static const char *bufs_check(void)
{
	int ok = 1, same = 1;

	cuCtxSynchronize();
	for (int b = 0; b < NB; b++) {
		memset(got, 0x5a, BN);
		if (is_dev(b))
			cuMemcpyDtoH(got, bd[b], BN);
		else
			memcpy(got, bh[b], BN);
		if (memcmp(got, expb[b], BN))
			ok = 0;
		if (memcmp(got, img[b], BN))
			same = 0;
	}
	return ok ? "ok" : same ? "untouched" : "mismatch";
}

/* ------------------------------------------------------------------ */
/* Process set-up, cases in processes of their own. */

static void getprocs(int print)
{
	CUdriverProcAddressQueryResult q = (CUdriverProcAddressQueryResult)-1;
	void *fn = NULL;
	CUresult r;

	r = cuGetProcAddress("cuMemcpyBatchAsync", &fn, 12080, CU_GET_PROC_ADDRESS_DEFAULT, &q);
	if (print) {
		probe_res("batch.getproc.cuMemcpyBatchAsync.12080", r);
		probe_line("batch.getproc.cuMemcpyBatchAsync.12080.status", "%d", (int)q);
		probe_line("batch.getproc.cuMemcpyBatchAsync.12080.found", "%d", fn != NULL);
	}
	cu12 = r == CUDA_SUCCESS ? (PFN_cuMemcpyBatchAsync_v12080)fn : NULL;
	fn = NULL;
	r = cuGetProcAddress("cuMemcpy3DBatchAsync", &fn, 12080, CU_GET_PROC_ADDRESS_DEFAULT, &q);
	if (print) {
		probe_res("batch.getproc.cuMemcpy3DBatchAsync.12080", r);
		probe_line("batch.getproc.cuMemcpy3DBatchAsync.12080.status", "%d", (int)q);
		probe_line("batch.getproc.cuMemcpy3DBatchAsync.12080.found", "%d", fn != NULL);
	}
	cu12_3d = r == CUDA_SUCCESS ? (PFN_cuMemcpy3DBatchAsync_v12080)fn : NULL;
	if (print) {
		void *f13 = NULL;

		r = cuGetProcAddress("cuMemcpyBatchAsync", &f13, 13000, CU_GET_PROC_ADDRESS_DEFAULT, &q);
		probe_res("batch.getproc.cuMemcpyBatchAsync.13000", r);
		probe_line("env.batch.getproc.cuMemcpyBatchAsync.13000.differs_from_12080", "%d",
			   f13 != (void *)cu12);
		f13 = NULL;
		r = cuGetProcAddress("cuMemcpyBatchAsync", &f13, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &q);
		probe_res("batch.getproc.cuMemcpyBatchAsync.12000", r);
		probe_line("batch.getproc.cuMemcpyBatchAsync.12000.status", "%d", (int)q);
	}
}

static void setup(void)
{
	MUST(cuInit(0));
	MUST(cuDevicePrimaryCtxRetain(&ctx, 0));
	MUST(cuCtxSetCurrent(ctx));
	MUST(cuStreamCreate(&st, 0));
	MUST(cuStreamCreate(&stnb, CU_STREAM_NON_BLOCKING));
	getprocs(0);
}

static void child(const char *name)
{
	probe_case(argv0, fk("batch.%s.exit", name), name, NULL, -1);
}

static void after(const char *key)
{
	CUdeviceptr p = 0;
	CUresult r = cuMemAlloc(&p, 4096);

	if (r == CUDA_SUCCESS)
		r = cuMemsetD8(p, 1, 4096);
	if (r == CUDA_SUCCESS)
		r = cuCtxSynchronize();
	PR(fk("%s.after", key), r);
}

/* ------------------------------------------------------------------ */
/* 1D batches. */

enum { A_CU, A_RT, A_CU12, NAPI };
static const char *const aname[NAPI] = { "cu", "rt", "cu12" };

struct bc {
	int sb;
	size_t so;
	int db;
	size_t dof, n;
};

static CUmemcpyAttributes attr(int order, int slt, int sid, int dlt, int did, unsigned int fl)
{
	CUmemcpyAttributes a;

	memset(&a, 0, sizeof(a));
	a.srcAccessOrder = (CUmemcpySrcAccessOrder)order;
	a.srcLocHint.type = (CUmemLocationType)slt;
	a.srcLocHint.id = sid;
	a.dstLocHint.type = (CUmemLocationType)dlt;
	a.dstLocHint.id = did;
	a.flags = fl;
	return a;
}

static CUmemcpyAttributes dflt(void)
{
	return attr(CU_MEMCPY_SRC_ACCESS_ORDER_STREAM, 0, 0, 0, 0, 0);
}

static struct cudaMemcpyAttributes to_rt(const CUmemcpyAttributes *a)
{
	struct cudaMemcpyAttributes r;

	memset(&r, 0, sizeof(r));
	r.srcAccessOrder = (enum cudaMemcpySrcAccessOrder)a->srcAccessOrder;
	r.srcLocHint.type = (enum cudaMemLocationType)a->srcLocHint.type;
	r.srcLocHint.id = a->srcLocHint.id;
	r.dstLocHint.type = (enum cudaMemLocationType)a->dstLocHint.type;
	r.dstLocHint.id = a->dstLocHint.id;
	r.flags = a->flags;
	return r;
}

/* Options of a batch run. */
enum {
	O_CLOBBER = 1,	/* overwrite host sources right after the call */
	O_ENVDATA = 2,	/* the data line is "env." */
	O_NODATA = 4,	/* no data check */
};

static CUresult call_batch(int api, CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes, size_t count,
			   CUmemcpyAttributes *attrs, size_t *idxs, size_t nattrs, CUstream s,
			   size_t *fi, cudaError_t *rte)
{
	*rte = cudaSuccess;
	switch (api) {
	case A_CU:
		return cuMemcpyBatchAsync(dsts, srcs, sizes, count, attrs, idxs, nattrs, s);
	case A_CU12:
		return cu12(dsts, srcs, sizes, count, attrs, idxs, nattrs, fi, s);
	case A_RT: {
		struct cudaMemcpyAttributes *ra = NULL;

		if (attrs) {
			ra = calloc(nattrs ? nattrs : 1, sizeof(*ra));
			for (size_t i = 0; i < nattrs; i++)
				ra[i] = to_rt(&attrs[i]);
		}
		*rte = cudaMemcpyBatchAsync((void *const *)dsts, (const void *const *)srcs, sizes, count,
					    ra, idxs, nattrs, (cudaStream_t)s);
		free(ra);
		return CUDA_SUCCESS;
	}
	}
	return CUDA_ERROR_UNKNOWN;
}

static void print_call(const char *key, int api, CUresult r, cudaError_t rte, size_t fi)
{
	if (api == A_RT) {
		rres(key, rte);
		RR(fk("%s.lasterror", key), cudaGetLastError());
	} else {
		probe_res(key, r);
	}
	if (api == A_CU12)
		failidx(key, fi);
}

/* One batch through one API: the call, a sync of the stream, the data. */
static void run_batch(const char *key, int api, const struct bc *c, size_t count,
		      CUmemcpyAttributes *attrs, size_t *idxs, size_t nattrs, CUstream s, int opt)
{
	CUdeviceptr *dsts = calloc(count ? count : 1, sizeof(*dsts));
	CUdeviceptr *srcs = calloc(count ? count : 1, sizeof(*srcs));
	size_t *sizes = calloc(count ? count : 1, sizeof(*sizes));
	size_t fi = UNTOUCHED;
	cudaError_t rte;
	CUresult r;
	char k[256];

	snprintf(k, sizeof(k), "%s", key);
	if (api == A_CU12 && !cu12) {
		probe_line(k, "n/a");
		goto out;
	}
	bufs_fill();
	for (size_t i = 0; i < count; i++) {
		dsts[i] = bd[c[i].db] + c[i].dof;
		srcs[i] = bd[c[i].sb] + c[i].so;
		sizes[i] = c[i].n;
	}
	r = call_batch(api, dsts, srcs, sizes, count, attrs, idxs, nattrs, s, &fi, &rte);
	if (opt & O_CLOBBER)
		for (size_t i = 0; i < count; i++)
			if (!is_dev(c[i].sb)) {
				memset(bh[c[i].sb] + c[i].so, 0x42, c[i].n);
				memset(expb[c[i].sb] + c[i].so, 0x42, c[i].n);
			}
	print_call(k, api, r, rte, fi);
	PR(fk("%s.sync", k), cuStreamSynchronize(s));
	if (api == A_RT)
		cudaGetLastError();
	if (opt & O_NODATA)
		goto out;
	/* what the copies should have written, whatever the call answered:
	 * "ok" the copies were done, "untouched" none was */
	for (size_t i = 0; i < count; i++)
		apply(c[i].sb, c[i].so, c[i].db, c[i].dof, c[i].n);
	probe_line(fk("%s%s.data", opt & O_ENVDATA ? "env." : "", k), "%s", bufs_check());
out:
	free(dsts);
	free(srcs);
	free(sizes);
}

static void run_all(const char *name, const struct bc *c, size_t count, CUmemcpyAttributes *attrs,
		    size_t *idxs, size_t nattrs, CUstream s, int opt)
{
	for (int a = 0; a < NAPI; a++)
		run_batch(fk("batch.%s.%s", aname[a], name), a, c, count, attrs, idxs, nattrs, s, opt);
}

static const struct { const char *n; int s, d; } pairs[] = {
	{ "d2d", B_DEV1, B_DEV2 }, { "h2d", B_PAGE, B_DEV1 }, { "p2d", B_PIN, B_DEV1 },
	{ "d2p", B_DEV1, B_PIN }, { "d2h", B_DEV1, B_PAGE }, { "m2d", B_MAN, B_DEV1 },
	{ "d2m", B_DEV1, B_MAN }, { "h2h", B_PAGE, B_PAGE2 }, { "p2p", B_PIN, B_PIN },
	{ "m2h", B_MAN, B_PAGE }, { "h2m", B_PAGE, B_MAN }, { "d2d_same", B_DEV1, B_DEV1 },
};
#define NPAIRS (sizeof(pairs) / sizeof(pairs[0]))

static struct bc one(int p, size_t n)
{
	return (struct bc){ pairs[p].s, 24, pairs[p].d, DST0 + 8, n };
}

static void s_layout(void)
{
#define SZ(t) probe_line("batch.sizeof." #t, "%zu", sizeof(t))
#define OFF(t, f) probe_line("batch.offsetof." #t "." #f, "%zu", offsetof(t, f))
	SZ(CUmemcpyAttributes);
	OFF(CUmemcpyAttributes, srcAccessOrder);
	OFF(CUmemcpyAttributes, srcLocHint);
	OFF(CUmemcpyAttributes, dstLocHint);
	OFF(CUmemcpyAttributes, flags);
	SZ(struct cudaMemcpyAttributes);
	OFF(struct cudaMemcpyAttributes, srcAccessOrder);
	OFF(struct cudaMemcpyAttributes, srcLocHint);
	OFF(struct cudaMemcpyAttributes, dstLocHint);
	OFF(struct cudaMemcpyAttributes, flags);
	SZ(CUmemLocation);
	SZ(CUmemcpy3DOperand);
	OFF(CUmemcpy3DOperand, type);
	OFF(CUmemcpy3DOperand, op);
	OFF(CUmemcpy3DOperand, op.ptr.ptr);
	OFF(CUmemcpy3DOperand, op.ptr.rowLength);
	OFF(CUmemcpy3DOperand, op.ptr.layerHeight);
	OFF(CUmemcpy3DOperand, op.ptr.locHint);
	OFF(CUmemcpy3DOperand, op.array.array);
	OFF(CUmemcpy3DOperand, op.array.offset);
	SZ(CUDA_MEMCPY3D_BATCH_OP);
	OFF(CUDA_MEMCPY3D_BATCH_OP, src);
	OFF(CUDA_MEMCPY3D_BATCH_OP, dst);
	OFF(CUDA_MEMCPY3D_BATCH_OP, extent);
	OFF(CUDA_MEMCPY3D_BATCH_OP, srcAccessOrder);
	OFF(CUDA_MEMCPY3D_BATCH_OP, flags);
	SZ(CUoffset3D);
	SZ(CUextent3D);
	SZ(struct cudaMemcpy3DOperand);
	OFF(struct cudaMemcpy3DOperand, op);
	OFF(struct cudaMemcpy3DOperand, op.ptr.rowLength);
	OFF(struct cudaMemcpy3DOperand, op.ptr.locHint);
	OFF(struct cudaMemcpy3DOperand, op.array.offset);
	SZ(struct cudaMemcpy3DBatchOp);
	OFF(struct cudaMemcpy3DBatchOp, dst);
	OFF(struct cudaMemcpy3DBatchOp, extent);
	OFF(struct cudaMemcpy3DBatchOp, srcAccessOrder);
	OFF(struct cudaMemcpy3DBatchOp, flags);
	probe_line("batch.enum.srcAccessOrder", "invalid=%d stream=%d during_api_call=%d any=%d",
		   CU_MEMCPY_SRC_ACCESS_ORDER_INVALID, CU_MEMCPY_SRC_ACCESS_ORDER_STREAM,
		   CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL, CU_MEMCPY_SRC_ACCESS_ORDER_ANY);
	probe_line("batch.enum.rt_srcAccessOrder", "invalid=%d stream=%d during_api_call=%d any=%d",
		   cudaMemcpySrcAccessOrderInvalid, cudaMemcpySrcAccessOrderStream,
		   cudaMemcpySrcAccessOrderDuringApiCall, cudaMemcpySrcAccessOrderAny);
	probe_line("batch.enum.flags", "default=%d prefer_overlap=%d", CU_MEMCPY_FLAG_DEFAULT,
		   CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE);
	probe_line("batch.enum.operand", "pointer=%d array=%d", CU_MEMCPY_OPERAND_TYPE_POINTER,
		   CU_MEMCPY_OPERAND_TYPE_ARRAY);
	getprocs(1);
	{
		int v = -7;

		PR("batch.devattr.concurrent_managed",
		   cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS, 0));
		probe_line("batch.devattr.concurrent_managed.value", "%d", v);
		v = -7;
		PR("batch.devattr.pageable_access",
		   cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS, 0));
		probe_line("batch.devattr.pageable_access.value", "%d", v);
		v = -7;
		PR("batch.devattr.async_engines",
		   cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT, 0));
		probe_line("env.batch.devattr.async_engines.value", "%d", v);
	}
#undef SZ
#undef OFF
}

/* Every pair of memory kinds, one copy each, sizes 1..4096. */
static void s_pairs(void)
{
	static const size_t sizes[] = { 1, 13, 4096 };
	CUmemcpyAttributes a = dflt();
	size_t i0 = 0;

	bufs_alloc();
	for (size_t p = 0; p < NPAIRS; p++) {
		struct bc c = one(p, 100);

		run_all(fk("pair.%s", pairs[p].n), &c, 1, &a, &i0, 1, st, 0);
	}
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct bc c = one(1, sizes[i]);

		run_all(fk("size%zu.h2d", sizes[i]), &c, 1, &a, &i0, 1, st, 0);
		c = one(0, sizes[i]);
		run_all(fk("size%zu.d2d", sizes[i]), &c, 1, &a, &i0, 1, st, 0);
	}
	{
		struct bc c = one(0, 0);

		run_all("size0.d2d", &c, 1, &a, &i0, 1, st, 0);
	}
	{
		/* two copies, one of size 0 */
		struct bc c[2] = { one(0, 0), one(3, 64) };

		c[1].dof += 4096;
		run_all("size0_and_64", c, 2, &a, &i0, 1, st, 0);
	}
	{
		/* the same source twice, the same destination twice */
		struct bc c[2] = { one(0, 64), one(0, 64) };

		c[1].dof += 128;
		run_all("same_src", c, 2, &a, &i0, 1, st, 0);
		c[1] = one(0, 64);
		c[1].so += 4096;
		run_all("same_dst", c, 2, &a, &i0, 1, st, O_ENVDATA);
		/* overlap inside one allocation */
		c[0] = (struct bc){ B_DEV1, 0, B_DEV1, 32, 256 };
		run_all("overlap_self", c, 1, &a, &i0, 1, st, O_ENVDATA);
		c[0] = (struct bc){ B_DEV1, 64, B_DEV1, 64, 256 };
		run_all("src_eq_dst", c, 1, &a, &i0, 1, st, 0);
	}
}

/* Larger batches: 2, 4096, mixed kinds. */
static void s_sizes(void)
{
	enum { N = 4096 };
	struct bc *c = calloc(N, sizeof(*c));
	CUmemcpyAttributes *as = calloc(N, sizeof(*as));
	size_t *ix = calloc(N, sizeof(*ix));
	CUmemcpyAttributes a = dflt();
	size_t i0 = 0;

	bufs_alloc();
	for (size_t i = 0; i < N; i++) {
		int p = (int)(i % (NPAIRS - 1));	/* not d2d_same */

		c[i] = (struct bc){ pairs[p].s, i * 16, pairs[p].d, DST0 + i * 16, 16 };
		as[i] = dflt();
		ix[i] = i;
	}
	run_all("n2", c, 2, &a, &i0, 1, st, 0);
	run_all("n4", c, 4, &a, &i0, 1, st, 0);
	run_all("n4096", c, N, &a, &i0, 1, st, 0);
	run_all("n4096.attrs4096", c, N, as, ix, N, st, 0);
	{
		CUmemcpyAttributes two[2] = { dflt(), attr(CU_MEMCPY_SRC_ACCESS_ORDER_ANY, 0, 0, 0, 0,
							 CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE) };
		size_t idx[2] = { 0, 2048 };

		run_all("n4096.attrs2", c, N, two, idx, 2, st, 0);
	}
	{
		/* 4096 copies from pageable memory, all in one attribute of
		 * each order */
		for (size_t i = 0; i < N; i++)
			c[i] = (struct bc){ B_PAGE, i * 16, B_DEV2, DST0 + i * 16, 16 };
		a = attr(CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL, 0, 0, 0, 0, 0);
		run_all("n4096.h2d.during_api_call", c, N, &a, &i0, 1, st, 0);
		a = attr(CU_MEMCPY_SRC_ACCESS_ORDER_ANY, 0, 0, 0, 0, 0);
		run_all("n4096.h2d.any", c, N, &a, &i0, 1, st, 0);
	}
	free(c);
	free(as);
	free(ix);
}

/* Attributes: orders, hints, flags, the index rules. */
static void s_attrs(void)
{
	static const struct { const char *n; int v; } orders[] = {
		{ "invalid", 0 }, { "stream", 1 }, { "during_api_call", 2 }, { "any", 3 },
		{ "4", 4 }, { "max", 0x7fffffff }, { "neg1", -1 },
	};
	static const struct { const char *n; int t, id; } hints[] = {
		{ "invalid", 0, 0 }, { "device0", 1, 0 }, { "device1", 1, 1 }, { "device-1", 1, -1 },
		{ "host", 2, 0 }, { "host_numa0", 3, 0 }, { "host_numa_current", 4, 0 },
		{ "type99", 99, 0 },
	};
	static const unsigned int flags[] = { 0, 1, 2, 4, 0x80000000u };
	static const int hpairs[] = { 5, 6, 0, 1 };	/* m2d d2m d2d h2d */
	size_t i0 = 0;

	bufs_alloc();
	for (size_t o = 0; o < sizeof(orders) / sizeof(orders[0]); o++) {
		CUmemcpyAttributes a = attr(orders[o].v, 0, 0, 0, 0, 0);
		struct bc c = one(1, 256);	/* h2d */

		run_all(fk("order.%s.h2d", orders[o].n), &c, 1, &a, &i0, 1, st, 0);
		c = one(0, 256);
		run_all(fk("order.%s.d2d", orders[o].n), &c, 1, &a, &i0, 1, st, 0);
		c = one(3, 256);
		run_all(fk("order.%s.d2p", orders[o].n), &c, 1, &a, &i0, 1, st, 0);
	}
	/* Is the source read before the call returns?  (Pageable and pinned
	 * sources overwritten right after the call.) */
	for (int o = 1; o <= 3; o++) {
		CUmemcpyAttributes a = attr(o, 0, 0, 0, 0, 0);
		struct bc c = one(1, 4096);

		run_all(fk("order.%s.h2d.src_overwritten_after_call", orders[o].n), &c, 1, &a, &i0, 1,
			st, O_CLOBBER | (o == 2 ? 0 : O_ENVDATA));
		c = one(2, 4096);
		run_all(fk("order.%s.p2d.src_overwritten_after_call", orders[o].n), &c, 1, &a, &i0, 1,
			st, O_CLOBBER | (o == 2 ? 0 : O_ENVDATA));
	}
	for (size_t p = 0; p < sizeof(hpairs) / sizeof(hpairs[0]); p++)
		for (size_t h = 0; h < sizeof(hints) / sizeof(hints[0]); h++) {
			struct bc c = one(hpairs[p], 256);
			CUmemcpyAttributes a = attr(1, hints[h].t, hints[h].id, 0, 0, 0);

			run_all(fk("srchint.%s.%s", hints[h].n, pairs[hpairs[p]].n), &c, 1, &a, &i0, 1,
				st, 0);
			a = attr(1, 0, 0, hints[h].t, hints[h].id, 0);
			run_all(fk("dsthint.%s.%s", hints[h].n, pairs[hpairs[p]].n), &c, 1, &a, &i0, 1,
				st, 0);
		}
	for (size_t f = 0; f < sizeof(flags) / sizeof(flags[0]); f++) {
		struct bc c = one(0, 256);
		CUmemcpyAttributes a = attr(1, 0, 0, 0, 0, flags[f]);

		run_all(fk("flags0x%x.d2d", flags[f]), &c, 1, &a, &i0, 1, st, 0);
		c = one(1, 256);
		run_all(fk("flags0x%x.h2d", flags[f]), &c, 1, &a, &i0, 1, st, 0);
	}
	/* The index rules, with 4 copies. */
	{
		struct bc c[4];
		CUmemcpyAttributes as[5] = { dflt(), dflt(), dflt(), dflt(), dflt() };
		static const struct { const char *n; size_t na; size_t ix[5]; } rules[] = {
			{ "numattrs0", 0, { 0 } },
			{ "one_at0", 1, { 0 } },
			{ "one_at1", 1, { 1 } },
			{ "one_at4", 1, { 4 } },
			{ "two_0_2", 2, { 0, 2 } },
			{ "two_0_0", 2, { 0, 0 } },
			{ "two_2_0", 2, { 2, 0 } },
			{ "two_0_4", 2, { 0, 4 } },
			{ "two_0_3", 2, { 0, 3 } },
			{ "four_0_1_2_3", 4, { 0, 1, 2, 3 } },
			{ "four_0_1_1_3", 4, { 0, 1, 1, 3 } },
			{ "five_0_1_2_3_4", 5, { 0, 1, 2, 3, 4 } },
			{ "five_0_1_2_3_3", 5, { 0, 1, 2, 3, 3 } },
		};

		for (int i = 0; i < 4; i++)
			c[i] = (struct bc){ pairs[i].s, 1024 + i * 256, pairs[i].d, DST0 + i * 256, 100 };
		for (size_t r = 0; r < sizeof(rules) / sizeof(rules[0]); r++) {
			size_t ix[5];

			memcpy(ix, rules[r].ix, sizeof(ix));
			run_all(fk("idx.%s", rules[r].n), c, 4, as, ix, rules[r].na, st, 0);
		}
		/* numAttrs 0 with attrs NULL and idxs NULL */
		run_all("idx.numattrs0_null", c, 4, NULL, NULL, 0, st, 0);
		as[1] = attr(0, 0, 0, 0, 0, 0);
		/* the second attribute invalid: which copy does failIdx name? */
		{
			size_t ix[2] = { 0, 2 };

			run_all("idx.second_attr_invalid", c, 4, as, ix, 2, st, 0);
		}
		as[1] = dflt();
		as[1].flags = 0x100;
		{
			size_t ix[2] = { 0, 3 };

			run_all("idx.second_attr_badflags", c, 4, as, ix, 2, st, 0);
		}
	}
	/* count 0 */
	{
		struct bc c = one(0, 64);
		CUmemcpyAttributes a = dflt();

		run_all("count0", &c, 0, &a, &i0, 1, st, 0);
		run_all("count0.numattrs0", &c, 0, &a, &i0, 0, st, 0);
	}
	/* a copy the driver cannot name: pageable destination, pageable source */
	{
		struct bc c = { B_PAGE, 64, B_PAGE2, DST0, 4096 };
		CUmemcpyAttributes a = attr(3, 0, 0, 0, 0, 0);

		run_all("h2h.any", &c, 1, &a, &i0, 1, st, 0);
	}
}

/* Streams. */
static void s_streams(void)
{
	static const struct { const char *n; CUstream s; } ss[] = {
		{ "created", NULL }, { "nonblocking", NULL }, { "null", NULL },
		{ "legacy", CU_STREAM_LEGACY }, { "perthread", CU_STREAM_PER_THREAD },
	};
	CUmemcpyAttributes a = dflt();
	size_t i0 = 0;

	bufs_alloc();
	for (size_t i = 0; i < sizeof(ss) / sizeof(ss[0]); i++) {
		CUstream s = i == 0 ? st : i == 1 ? stnb : ss[i].s;
		struct bc c = one(0, 256);

		run_all(fk("stream.%s.d2d", ss[i].n), &c, 1, &a, &i0, 1, s, 0);
		c = one(1, 256);
		run_all(fk("stream.%s.h2d", ss[i].n), &c, 1, &a, &i0, 1, s, 0);
	}
	{
		/* a destroyed stream: a child (it may crash) */
	}
	/* the runtime's named streams */
	{
		struct bc c = one(0, 256);

		run_batch("batch.rt.stream.cudaStreamLegacy.d2d", A_RT, &c, 1, &a, &i0, 1,
			  (CUstream)cudaStreamLegacy, 0);
		run_batch("batch.rt.stream.cudaStreamPerThread.d2d", A_RT, &c, 1, &a, &i0, 1,
			  (CUstream)cudaStreamPerThread, 0);
	}
	/* is the batch ordered after earlier work in its stream? a memset
	 * into the source before the batch, the same stream */
	{
		struct bc c = one(0, 4096);

		for (int api = 0; api < NAPI; api++) {
			CUdeviceptr d = bd[B_DEV2] + c.dof, s = bd[B_DEV1] + c.so;
			size_t n = 4096, fi = UNTOUCHED;
			cudaError_t rte;
			CUresult r;
			const char *k = fk("batch.%s.stream_order", aname[api]);
			unsigned char h[4096];
			int ok = 1;

			if (api == A_CU12 && !cu12)
				continue;
			bufs_fill();
			PR(fk("%s.memset", k), cuMemsetD8Async(s, 0x77, n, st));
			r = call_batch(api, &d, &s, &n, 1, &a, &i0, 1, st, &fi, &rte);
			print_call(k, api, r, rte, fi);
			PR(fk("%s.sync", k), cuStreamSynchronize(st));
			cuMemcpyDtoH(h, d, n);
			for (size_t i = 0; i < n; i++)
				if (h[i] != 0x77)
					ok = 0;
			probe_line(fk("%s.data_after_memset", k), "%d", ok);
		}
	}
}

/* ------------------------------------------------------------------ */
/* 3D batches. */

struct od {
	int type;		/* 1 pointer, 2 array */
	int b;			/* buffer (pointer) */
	size_t off, rowlen, layerh;
	int loct, locid;
	CUarray arr;
	size_t ax, ay, az;
};

struct o3 {
	struct od s, d;
	size_t w, h, dp;
	int order;
	unsigned int flags;
};

static CUmemcpy3DOperand cu_operand(const struct od *o)
{
	CUmemcpy3DOperand r;

	memset(&r, 0, sizeof(r));
	r.type = (CUmemcpy3DOperandType)o->type;
	if (o->type == 2) {
		r.op.array.array = o->arr;
		r.op.array.offset.x = o->ax;
		r.op.array.offset.y = o->ay;
		r.op.array.offset.z = o->az;
	} else {
		r.op.ptr.ptr = o->b >= 0 ? bd[o->b] + o->off : o->off;
		r.op.ptr.rowLength = o->rowlen;
		r.op.ptr.layerHeight = o->layerh;
		r.op.ptr.locHint.type = (CUmemLocationType)o->loct;
		r.op.ptr.locHint.id = o->locid;
	}
	return r;
}

static struct cudaMemcpy3DOperand rt_operand(const struct od *o)
{
	struct cudaMemcpy3DOperand r;

	memset(&r, 0, sizeof(r));
	r.type = (enum cudaMemcpy3DOperandType)o->type;
	if (o->type == 2) {
		r.op.array.array = (cudaArray_t)(void *)o->arr;
		r.op.array.offset.x = o->ax;
		r.op.array.offset.y = o->ay;
		r.op.array.offset.z = o->az;
	} else {
		r.op.ptr.ptr = VP(o->b >= 0 ? bd[o->b] + o->off : o->off);
		r.op.ptr.rowLength = o->rowlen;
		r.op.ptr.layerHeight = o->layerh;
		r.op.ptr.locHint.type = (enum cudaMemLocationType)o->loct;
		r.op.ptr.locHint.id = o->locid;
	}
	return r;
}

static void call3d(const char *k, int api, const struct o3 *o, size_t n, unsigned long long flags,
		   CUstream s, int null_list)
{
	CUDA_MEMCPY3D_BATCH_OP *cop = calloc(n ? n : 1, sizeof(*cop));
	struct cudaMemcpy3DBatchOp *rop = calloc(n ? n : 1, sizeof(*rop));
	size_t fi = UNTOUCHED;

	for (size_t i = 0; i < n; i++) {
		cop[i].src = cu_operand(&o[i].s);
		cop[i].dst = cu_operand(&o[i].d);
		cop[i].extent.width = o[i].w;
		cop[i].extent.height = o[i].h;
		cop[i].extent.depth = o[i].dp;
		cop[i].srcAccessOrder = (CUmemcpySrcAccessOrder)o[i].order;
		cop[i].flags = o[i].flags;
		rop[i].src = rt_operand(&o[i].s);
		rop[i].dst = rt_operand(&o[i].d);
		rop[i].extent = make_cudaExtent(o[i].w, o[i].h, o[i].dp);
		rop[i].srcAccessOrder = (enum cudaMemcpySrcAccessOrder)o[i].order;
		rop[i].flags = o[i].flags;
	}
	switch (api) {
	case A_CU:
		PR(k, cuMemcpy3DBatchAsync(n, null_list ? NULL : cop, flags, s));
		break;
	case A_CU12:
		if (!cu12_3d) {
			probe_line(k, "n/a");
			break;
		}
		PR(k, cu12_3d(n, null_list ? NULL : cop, &fi, flags, s));
		failidx(k, fi);
		break;
	case A_RT:
		RR(k, cudaMemcpy3DBatchAsync(n, null_list ? NULL : rop, flags, (cudaStream_t)s));
		RR(fk("%s.lasterror", k), cudaGetLastError());
		break;
	}
	free(cop);
	free(rop);
}

/* Pointer-to-pointer operations, the data checked. */
static void run3d(const char *name, const struct o3 *o, size_t n, unsigned long long flags,
		  CUstream s, int opt)
{
	for (int api = 0; api < NAPI; api++) {
		const char *k = fk("batch.%s.3d.%s", aname[api], name);
		char kk[256];

		snprintf(kk, sizeof(kk), "%s", k);
		bufs_fill();
		call3d(kk, api, o, n, flags, s, 0);
		PR(fk("%s.sync", kk), cuStreamSynchronize(s));
		cudaGetLastError();
		if (opt & O_NODATA)
			continue;
		for (size_t i = 0; i < n; i++) {
			const struct o3 *p = &o[i];
			size_t srl = p->s.rowlen ? p->s.rowlen : p->w;
			size_t slh = p->s.layerh ? p->s.layerh : p->h;
			size_t drl = p->d.rowlen ? p->d.rowlen : p->w;
			size_t dlh = p->d.layerh ? p->d.layerh : p->h;

			if (p->s.type != 1 || p->d.type != 1)
				continue;
			for (size_t z = 0; z < p->dp; z++)
				for (size_t y = 0; y < p->h; y++) {
					size_t so = p->s.off + (z * slh + y) * srl;
					size_t d = p->d.off + (z * dlh + y) * drl;

					if (so + p->w <= BN && d + p->w <= BN)
						memcpy(expb[p->d.b] + d, img[p->s.b] + so, p->w);
				}
		}
		probe_line(fk("%s%s.data", opt & O_ENVDATA ? "env." : "", kk), "%s", bufs_check());
	}
}

static struct od P(int b, size_t off, size_t rl, size_t lh)
{
	return (struct od){ 1, b, off, rl, lh, 0, 0, NULL, 0, 0, 0 };
}

static struct od ARR(CUarray a, size_t x, size_t y, size_t z)
{
	return (struct od){ 2, -1, 0, 0, 0, 0, 0, a, x, y, z };
}

static void s_3d(void)
{
	struct o3 base = { P(B_DEV1, 3 + 2 * 128 + 10 * 128, 128, 10), P(B_DEV2, DST0 + 5 + 160, 160, 9),
			   100, 7, 2, CU_MEMCPY_SRC_ACCESS_ORDER_STREAM, 0 };
	struct o3 o;

	bufs_alloc();
	run3d("d2d", &base, 1, 0, st, 0);
	o = base;
	o.dp = 1;
	run3d("d2d.depth1", &o, 1, 0, st, 0);
	o = base;
	o.s.b = B_PAGE;
	run3d("h2d", &o, 1, 0, st, 0);
	o = base;
	o.s.b = B_PIN;
	run3d("p2d", &o, 1, 0, st, 0);
	o = base;
	o.d.b = B_PIN;
	run3d("d2p", &o, 1, 0, st, 0);
	o = base;
	o.s.b = B_MAN;
	run3d("m2d", &o, 1, 0, st, 0);
	o = base;
	o.d.b = B_MAN;
	run3d("d2m", &o, 1, 0, st, 0);
	o = base;
	o.s.b = B_PAGE;
	o.d.b = B_PAGE2;
	run3d("h2h", &o, 1, 0, st, 0);
	o = base;
	o.s.rowlen = o.s.layerh = 0;
	o.d.rowlen = o.d.layerh = 0;
	run3d("packed", &o, 1, 0, st, 0);
	o = base;
	o.s.layerh = 0;
	run3d("src_layerh0", &o, 1, 0, st, 0);
	o = base;
	o.s.rowlen = 99;
	run3d("src_rowlen_lt_w", &o, 1, 0, st, 0);
	o = base;
	o.d.rowlen = 99;
	run3d("dst_rowlen_lt_w", &o, 1, 0, st, 0);
	o = base;
	o.s.layerh = 6;
	run3d("src_layerh_lt_h", &o, 1, 0, st, 0);
	o = base;
	o.s.rowlen = 1001;
	o.s.off = 7;
	run3d("src_rowlen_odd", &o, 1, 0, st, 0);
	o = base;
	o.w = 0;
	run3d("w0", &o, 1, 0, st, 0);
	o = base;
	o.h = 0;
	run3d("h0", &o, 1, 0, st, 0);
	o = base;
	o.dp = 0;
	run3d("d0", &o, 1, 0, st, 0);
	o = base;
	o.s.type = 0;
	run3d("srctype0", &o, 1, 0, st, 0);
	o = base;
	o.d.type = 3;
	run3d("dsttype3", &o, 1, 0, st, 0);
	o = base;
	o.order = 0;
	run3d("order_invalid", &o, 1, 0, st, 0);
	o = base;
	o.order = CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL;
	o.s.b = B_PAGE;
	run3d("order_during_api_call.h2d", &o, 1, 0, st, 0);
	o.order = CU_MEMCPY_SRC_ACCESS_ORDER_ANY;
	run3d("order_any.h2d", &o, 1, 0, st, 0);
	o.order = 4;
	run3d("order4.h2d", &o, 1, 0, st, 0);
	o = base;
	o.flags = CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE;
	run3d("opflags1", &o, 1, 0, st, 0);
	o.flags = 2;
	run3d("opflags2", &o, 1, 0, st, 0);
	o = base;
	run3d("apiflags1", &o, 1, 1, st, 0);
	o = base;
	o.s.b = B_MAN;
	o.s.loct = 1;
	run3d("lochint_device.m2d", &o, 1, 0, st, 0);
	o.s.loct = 99;
	run3d("lochint_type99.m2d", &o, 1, 0, st, 0);
	o.s.loct = 1;
	o.s.locid = 5;
	run3d("lochint_device5.m2d", &o, 1, 0, st, 0);
	run3d("numops0", &base, 0, 0, st, 0);
	{
		struct o3 two[2] = { base, base };

		two[1].s.b = B_PAGE;
		two[1].d.off += 16384;
		run3d("two", two, 2, 0, st, 0);
		two[1].w = 0;
		run3d("two.second_w0", two, 2, 0, st, 0);
	}
	{
		/* 256 small operations */
		struct o3 *many = calloc(256, sizeof(*many));

		for (int i = 0; i < 256; i++) {
			many[i] = base;
			many[i].s.off = (size_t)i * 64;
			many[i].s.rowlen = many[i].s.layerh = 0;
			many[i].d.off = DST0 + (size_t)i * 256;
			many[i].d.rowlen = 16;
			many[i].d.layerh = 0;
			many[i].w = 8;
			many[i].h = 4;
			many[i].dp = 2;
		}
		run3d("n256", many, 256, 0, st, 0);
		free(many);
	}
	/* streams */
	run3d("stream.null", &base, 1, 0, NULL, 0);
	run3d("stream.legacy", &base, 1, 0, CU_STREAM_LEGACY, 0);
	run3d("stream.perthread", &base, 1, 0, CU_STREAM_PER_THREAD, 0);
	run3d("stream.nonblocking", &base, 1, 0, stnb, 0);
}

/* 3D operations with arrays: 64 x 32 uchar4. */
static void s_3darray(void)
{
	CUDA_ARRAY3D_DESCRIPTOR ad = { 64, 32, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0 };
	CUDA_ARRAY3D_DESCRIPTOR a1 = { 64, 32, 0, CU_AD_FORMAT_UNSIGNED_INT8, 1, 0 };
	CUDA_ARRAY3D_DESCRIPTOR af = { 64, 32, 0, CU_AD_FORMAT_FLOAT, 1, 0 };
	CUDA_ARRAY3D_DESCRIPTOR a3 = { 16, 8, 4, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0 };
	CUarray A = NULL, B = NULL, N1 = NULL, F = NULL, C3 = NULL;
	static unsigned char ai[256 * 32], ag[256 * 32], ae[256 * 32];
	CUDA_MEMCPY2D c;

	bufs_alloc();
	MUST(cuArray3DCreate(&A, &ad));
	MUST(cuArray3DCreate(&B, &ad));
	MUST(cuArray3DCreate(&N1, &a1));
	MUST(cuArray3DCreate(&F, &af));
	MUST(cuArray3DCreate(&C3, &a3));
	for (int i = 0; i < 256 * 32; i++)
		ai[i] = (unsigned char)(i * 7 + 5);
	for (int api = 0; api < NAPI; api++) {
		const char *an = aname[api];
		struct o3 o;
		char k[192];

		/* pointer (device, rows of 75 elements = 300 bytes) to array
		 * at (4, 2): 50 x 20 elements */
		memset(&c, 0, sizeof(c));
		c.srcMemoryType = CU_MEMORYTYPE_HOST;
		c.srcHost = ai;
		c.srcPitch = 256;
		c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
		c.dstArray = A;
		c.WidthInBytes = 256;
		c.Height = 32;
		MUST(cuMemcpy2D(&c));
		bufs_fill();
		o = (struct o3){ P(B_DEV1, 0, 75, 0), ARR(A, 4, 2, 0), 50, 20, 1,
				 CU_MEMCPY_SRC_ACCESS_ORDER_STREAM, 0 };
		snprintf(k, sizeof(k), "batch.%s.3d.ptr2array", an);
		call3d(k, api, &o, 1, 0, st, 0);
		PR(fk("%s.sync", k), cuStreamSynchronize(st));
		memset(&c, 0, sizeof(c));
		c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
		c.srcArray = A;
		c.dstMemoryType = CU_MEMORYTYPE_HOST;
		c.dstHost = ag;
		c.dstPitch = 256;
		c.WidthInBytes = 256;
		c.Height = 32;
		memset(ag, 0, sizeof(ag));
		cuMemcpy2D(&c);
		memcpy(ae, ai, sizeof(ae));
		for (int y = 0; y < 20; y++)
			memcpy(ae + (2 + y) * 256 + 16, img[B_DEV1] + y * 300, 200);
		probe_line(fk("%s.data", k), "%s", !memcmp(ag, ae, sizeof(ae)) ? "ok" :
			   !memcmp(ag, ai, sizeof(ai)) ? "untouched" : "mismatch");
		memcpy(ae, ag, sizeof(ae));	/* what the array holds now */

		/* array (now holding ae) at (4, 2) to pinned pointer, rows of 75 */
		bufs_fill();
		o = (struct o3){ ARR(A, 4, 2, 0), P(B_PIN, DST0, 75, 0), 50, 20, 1,
				 CU_MEMCPY_SRC_ACCESS_ORDER_STREAM, 0 };
		snprintf(k, sizeof(k), "batch.%s.3d.array2ptr", an);
		call3d(k, api, &o, 1, 0, st, 0);
		PR(fk("%s.sync", k), cuStreamSynchronize(st));
		for (int y = 0; y < 20; y++)
			memcpy(expb[B_PIN] + DST0 + y * 300, ae + (2 + y) * 256 + 16, 200);
		probe_line(fk("%s.data", k), "%s", bufs_check());

		/* array to array */
		o = (struct o3){ ARR(A, 4, 2, 0), ARR(B, 0, 0, 0), 50, 20, 1,
				 CU_MEMCPY_SRC_ACCESS_ORDER_STREAM, 0 };
		snprintf(k, sizeof(k), "batch.%s.3d.array2array", an);
		call3d(k, api, &o, 1, 0, st, 0);
		PR(fk("%s.sync", k), cuStreamSynchronize(st));
		c.srcArray = B;
		memset(ag, 0, sizeof(ag));
		cuMemcpy2D(&c);
		{
			int ok = 1;

			for (int y = 0; y < 20; y++)
				if (memcmp(ag + y * 256, ae + (2 + y) * 256 + 16, 200))
					ok = 0;
			probe_line(fk("%s.data", k), "%s", ok ? "ok" : "mismatch");
		}
		/* errors */
		o = (struct o3){ P(B_DEV1, 0, 75, 0), ARR(A, 40, 2, 0), 50, 20, 1,
				 CU_MEMCPY_SRC_ACCESS_ORDER_STREAM, 0 };
		call3d(fk("batch.%s.3d.array_oob_x", an), api, &o, 1, 0, st, 0);
		o.d.ax = 4;
		o.d.ay = 20;
		call3d(fk("batch.%s.3d.array_oob_y", an), api, &o, 1, 0, st, 0);
		o.d.ay = 0;
		o.d.az = 1;
		call3d(fk("batch.%s.3d.array_oob_z", an), api, &o, 1, 0, st, 0);
		o.d.az = 0;
		o.dp = 2;
		call3d(fk("batch.%s.3d.array_depth2", an), api, &o, 1, 0, st, 0);
		o.dp = 1;
		o.s.rowlen = 49;
		call3d(fk("batch.%s.3d.array_rowlen_lt_w", an), api, &o, 1, 0, st, 0);
		/* a NULL array: a case of its own (it crashes the driver) */
		o = (struct o3){ ARR(A, 0, 0, 0), ARR(N1, 0, 0, 0), 16, 4, 1,
				 CU_MEMCPY_SRC_ACCESS_ORDER_STREAM, 0 };
		call3d(fk("batch.%s.3d.array_elemsize_mismatch", an), api, &o, 1, 0, st, 0);
		o.d.arr = F;
		call3d(fk("batch.%s.3d.array_same_elemsize_other_format", an), api, &o, 1, 0, st, 0);
		o = (struct o3){ P(B_DEV1, 0, 0, 0), ARR(C3, 1, 1, 1), 8, 4, 2,
				 CU_MEMCPY_SRC_ACCESS_ORDER_STREAM, 0 };
		call3d(fk("batch.%s.3d.array3d", an), api, &o, 1, 0, st, 0);
		o.d.az = 3;
		call3d(fk("batch.%s.3d.array3d_oob_z", an), api, &o, 1, 0, st, 0);
		o = (struct o3){ P(B_PAGE, 0, 75, 0), ARR(A, 0, 0, 0), 50, 20, 1,
				 CU_MEMCPY_SRC_ACCESS_ORDER_ANY, 0 };
		call3d(fk("batch.%s.3d.pageable2array", an), api, &o, 1, 0, st, 0);
		o = (struct o3){ ARR(A, 0, 0, 0), P(B_PAGE, DST0, 75, 0), 50, 20, 1,
				 CU_MEMCPY_SRC_ACCESS_ORDER_STREAM, 0 };
		call3d(fk("batch.%s.3d.array2pageable", an), api, &o, 1, 0, st, 0);
		PR(fk("batch.%s.3d.array.errors.sync", an), cuStreamSynchronize(st));
		cudaGetLastError();
	}
	cuArrayDestroy(A);
	cuArrayDestroy(B);
	cuArrayDestroy(N1);
	cuArrayDestroy(F);
	cuArrayDestroy(C3);
}

/* The runtime's last error after a failing batch. */
static void s_lasterror(void)
{
	CUmemcpyAttributes a = attr(0, 0, 0, 0, 0, 0);
	size_t i0 = 0;
	struct bc c;

	bufs_alloc();
	c = one(0, 64);
	RR("batch.le.start", cudaGetLastError());
	run_batch("batch.le.fail", A_RT, &c, 1, &a, &i0, 1, st, O_NODATA);
	{
		struct cudaMemcpyAttributes ra = to_rt(&a);
		void *d = VP(bd[B_DEV2] + DST0);
		const void *s = VP(bd[B_DEV1]);
		size_t n = 64;

		RR("batch.le.fail2", cudaMemcpyBatchAsync(&d, &s, &n, 1, &ra, &i0, 1, (cudaStream_t)st));
		RR("batch.le.peek", cudaPeekAtLastError());
		RR("batch.le.get", cudaGetLastError());
		RR("batch.le.get2", cudaGetLastError());
		ra.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
		RR("batch.le.legacy", cudaMemcpyBatchAsync(&d, &s, &n, 1, &ra, &i0, 1, cudaStreamLegacy));
		RR("batch.le.legacy.get", cudaGetLastError());
	}
	RR("batch.le.sync", cudaDeviceSynchronize());
}

/* ------------------------------------------------------------------ */
/* Cases in processes of their own: NULL arrays and pointers. */

enum { NUL_DSTS, NUL_SRCS, NUL_SIZES, NUL_ATTRS, NUL_IDXS, NUL_ALL0, NUL_FAILIDX, NUL_ELEM_SRC,
       NUL_ELEM_DST, BOGUS_SRC, OOB_SRC, OOB_DST, FREED_SRC };

static void nul_case(const char *name, int api, int what)
{
	CUdeviceptr d[2], s[2];
	size_t n[2] = { 64, 64 }, ix[1] = { 0 }, fi = UNTOUCHED;
	CUmemcpyAttributes a = dflt();
	CUdeviceptr *pd = d, *ps = s;
	size_t *pn = n, *pix = ix, count = 2, nattrs = 1;
	CUmemcpyAttributes *pa = &a;
	CUdeviceptr big = 0;
	cudaError_t rte;
	CUresult r;
	char k[160];

	snprintf(k, sizeof(k), "batch.%s.%s", aname[api], name);
	if (api == A_CU12 && !cu12) {
		probe_line(k, "n/a");
		return;
	}
	bufs_alloc();
	bufs_fill();
	d[0] = bd[B_DEV2] + DST0;
	d[1] = bd[B_DEV2] + DST0 + 4096;
	s[0] = bd[B_DEV1];
	s[1] = bd[B_DEV1] + 4096;
	switch (what) {
	case NUL_DSTS: pd = NULL; break;
	case NUL_SRCS: ps = NULL; break;
	case NUL_SIZES: pn = NULL; break;
	case NUL_ATTRS: pa = NULL; break;
	case NUL_IDXS: pix = NULL; break;
	case NUL_ALL0: pd = ps = NULL; pn = pix = NULL; pa = NULL; count = 0; nattrs = 0; break;
	case NUL_ELEM_SRC: s[1] = 0; break;
	case NUL_ELEM_DST: d[1] = 0; break;
	case BOGUS_SRC: s[1] = 0x1000; break;
	case OOB_SRC:
	case OOB_DST:
		MUST(cuMemAlloc(&big, 2 << 20));
		if (what == OOB_SRC)
			s[1] = big + (2 << 20) - 32;
		else
			d[1] = big + (2 << 20) - 32;
		break;
	case FREED_SRC:
		MUST(cuMemAlloc(&big, 2 << 20));
		cuMemFree(big);
		s[1] = big;
		break;
	}
	if (what == NUL_FAILIDX) {
		if (api != A_CU12) {
			probe_line(k, "n/a");
			return;
		}
		PR(fk("%s.valid", k), cu12(d, s, n, 2, &a, ix, 1, NULL, st));
		a.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_INVALID;
		PR(fk("%s.failing", k), cu12(d, s, n, 2, &a, ix, 1, NULL, st));
	} else {
		r = call_batch(api, pd, ps, pn, count, pa, pix, nattrs, st, &fi, &rte);
		print_call(k, api, r, rte, fi);
	}
	PR(fk("%s.sync", k), cuStreamSynchronize(st));
	cudaGetLastError();
	after(k);
}

#define NULCASE(fn, name, what)						\
	static void fn##_cu(void) { nul_case(name, A_CU, what); }	\
	static void fn##_rt(void) { nul_case(name, A_RT, what); }	\
	static void fn##_cu12(void) { nul_case(name, A_CU12, what); }

NULCASE(c_nul_dsts, "null.dsts", NUL_DSTS)
NULCASE(c_nul_srcs, "null.srcs", NUL_SRCS)
NULCASE(c_nul_sizes, "null.sizes", NUL_SIZES)
NULCASE(c_nul_attrs, "null.attrs", NUL_ATTRS)
NULCASE(c_nul_idxs, "null.attrsidxs", NUL_IDXS)
NULCASE(c_nul_all0, "null.all_count0", NUL_ALL0)
NULCASE(c_nul_elem_src, "null.elem_src", NUL_ELEM_SRC)
NULCASE(c_nul_elem_dst, "null.elem_dst", NUL_ELEM_DST)
NULCASE(c_bogus_src, "bogus_src", BOGUS_SRC)
NULCASE(c_oob_src, "oob_src", OOB_SRC)
NULCASE(c_oob_dst, "oob_dst", OOB_DST)
NULCASE(c_freed_src, "freed_src", FREED_SRC)

static void c_nul_failidx(void)
{
	nul_case("null.failidx", A_CU12, NUL_FAILIDX);
}

/* 3D: a NULL list, NULL and bogus pointers, past the end. */
static void nul3d(const char *name, int what)
{
	for (int api = 0; api < NAPI; api++) {
		struct o3 o = { P(B_DEV1, 0, 128, 10), P(B_DEV2, DST0, 160, 9), 100, 7, 2,
				CU_MEMCPY_SRC_ACCESS_ORDER_STREAM, 0 };
		CUdeviceptr big = 0;
		const char *k = fk("batch.%s.3d.%s", aname[api], name);
		char kk[192];

		snprintf(kk, sizeof(kk), "%s", k);
		if (!bd[B_DEV1])
			bufs_alloc();
		switch (what) {
		case 0:
			call3d(kk, api, &o, 1, 0, st, 1);
			break;
		case 1:
			o.s.b = -1;
			o.s.off = 0;
			call3d(kk, api, &o, 1, 0, st, 0);
			break;
		case 2:
			o.d.b = -1;
			o.d.off = 0x1000;
			call3d(kk, api, &o, 1, 0, st, 0);
			break;
		case 3:
			MUST(cuMemAlloc(&big, 2 << 20));
			o.d.b = -1;
			o.d.off = big + (2 << 20) - 160 * 9;
			call3d(kk, api, &o, 1, 0, st, 0);
			break;
		case 4:
			call3d(kk, api, &o, 0, 0, st, 1);
			break;
		}
		PR(fk("%s.sync", kk), cuStreamSynchronize(st));
		cudaGetLastError();
		after(kk);
		if (big)
			cuMemFree(big);
	}
}

static void c_3d_null_list(void) { nul3d("null_list", 0); }

/* A NULL array operand. */
static void c_3d_array_null(void)
{
	bufs_alloc();
	for (int api = 0; api < NAPI; api++) {
		struct o3 o = { P(B_DEV1, 0, 75, 0), ARR(NULL, 4, 2, 0), 50, 20, 1,
				CU_MEMCPY_SRC_ACCESS_ORDER_STREAM, 0 };
		const char *k = fk("batch.%s.3d.array_null", aname[api]);
		char kk[192];

		snprintf(kk, sizeof(kk), "%s", k);
		call3d(kk, api, &o, 1, 0, st, 0);
		PR(fk("%s.sync", kk), cuStreamSynchronize(st));
		cudaGetLastError();
	}
	after("batch.3d.array_null");
}
static void c_3d_null_list_n0(void) { nul3d("null_list_numops0", 4); }
static void c_3d_null_src(void) { nul3d("null_src", 1); }
static void c_3d_bogus_dst(void) { nul3d("bogus_dst", 2); }
static void c_3d_oob_dst(void) { nul3d("oob_dst", 3); }

/* A destroyed stream. */
static void c_destroyed_stream(void)
{
	CUstream s2 = NULL;
	CUmemcpyAttributes a = dflt();
	size_t i0 = 0;
	struct bc c;

	bufs_alloc();
	MUST(cuStreamCreate(&s2, 0));
	MUST(cuStreamDestroy(s2));
	c = one(0, 64);
	for (int api = 0; api < NAPI; api++) {
		CUdeviceptr d = bd[c.db] + c.dof, s = bd[c.sb] + c.so;
		size_t n = c.n, fi = UNTOUCHED;
		cudaError_t rte;
		CUresult r;
		const char *k = fk("batch.%s.stream.destroyed", aname[api]);

		if (api == A_CU12 && !cu12)
			continue;
		r = call_batch(api, &d, &s, &n, 1, &a, &i0, 1, s2, &fi, &rte);
		print_call(k, api, r, rte, fi);
	}
	after("batch.stream.destroyed");
}

/* ------------------------------------------------------------------ */

#define NC(fn, name) { name ".cu", fn##_cu }, { name ".rt", fn##_rt }, { name ".cu12", fn##_cu12 }

static const struct {
	const char *name;
	void (*fn)(void);
} cases[] = {
	{ "sec.layout", s_layout },
	{ "sec.pairs", s_pairs },
	{ "sec.sizes", s_sizes },
	{ "sec.attrs", s_attrs },
	{ "sec.streams", s_streams },
	{ "sec.3d", s_3d },
	{ "sec.3darray", s_3darray },
	{ "sec.lasterror", s_lasterror },
	NC(c_nul_dsts, "null.dsts"),
	NC(c_nul_srcs, "null.srcs"),
	NC(c_nul_sizes, "null.sizes"),
	NC(c_nul_attrs, "null.attrs"),
	NC(c_nul_idxs, "null.attrsidxs"),
	NC(c_nul_all0, "null.all_count0"),
	NC(c_nul_elem_src, "null.elem_src"),
	NC(c_nul_elem_dst, "null.elem_dst"),
	NC(c_bogus_src, "bogus_src"),
	NC(c_oob_src, "oob_src"),
	NC(c_oob_dst, "oob_dst"),
	NC(c_freed_src, "freed_src"),
	{ "null.failidx", c_nul_failidx },
	{ "3d.null_list", c_3d_null_list },
	{ "3d.array_null", c_3d_array_null },
	{ "3d.null_list_numops0", c_3d_null_list_n0 },
	{ "3d.null_src", c_3d_null_src },
	{ "3d.bogus_dst", c_3d_bogus_dst },
	{ "3d.oob_dst", c_3d_oob_dst },
	{ "stream.destroyed", c_destroyed_stream },
};

int main(int argc, char **argv)
{
	argv0 = argv[0];
	if (argc >= 3 && !strcmp(argv[1], "case")) {
		alarm(90);
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			if (strcmp(cases[i].name, argv[2]))
				continue;
			setup();
			cases[i].fn();
			fflush(stdout);
			_exit(0);
		}
		fprintf(stderr, "unknown case %s\n", argv[2]);
		return 1;
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		child(cases[i].name);
	return 0;
}
