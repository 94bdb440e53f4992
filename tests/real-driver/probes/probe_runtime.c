// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * probe_runtime - the runtime API equivalents: cudaMallocManaged, cudaFree,
 * cudaMemAdvise, cudaMemPrefetchAsync, the batch calls (stream 0!),
 * cudaMemRangeGetAttribute(s), cudaPointerGetAttributes, devices, streams,
 * events, the last-error state, error names.
 */
#include <cuda_runtime_api.h>

#include "probe.h"

#define RLOC(t, i) ((struct cudaMemLocation){ (enum cudaMemLocationType)(t), (i) })

static inline void rresf(cudaError_t e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline void rresf(cudaError_t e, const char *fmt, ...)
{
	char key[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(key, sizeof(key), fmt, ap);
	va_end(ap);
	rres(key, e);
}

static void ptrattr(const char *key, const void *p, const void *base)
{
	struct cudaPointerAttributes at;
	char k[128], r1[64], r2[64];
	cudaError_t e;

	memset(&at, 0xAA, sizeof(at));
	e = cudaPointerGetAttributes(&at, p);
	rres(key, e);
	snprintf(k, sizeof(k), "%s.fields", key);
	probe_line(k, "type=%d device=%d dev=%s host=%s", (int)at.type, at.device,
		   probe_rel((uintptr_t)at.devicePointer, (uintptr_t)base, r1, sizeof(r1)),
		   probe_rel((uintptr_t)at.hostPointer, (uintptr_t)base, r2, sizeof(r2)));
	snprintf(k, sizeof(k), "%s.lasterror", key);
	rres(k, cudaGetLastError());
}

int main(void)
{
	const size_t M2 = 2 * PROBE_MIB;
	void *p = NULL, *q = NULL, *f = NULL;
	char *heap = malloc(1 << 20);
	cudaStream_t s = NULL;
	cudaEvent_t ev = NULL;
	int n = -7, d = -7, v = -7, numa = probe_numa_nodes();
	size_t fr = 0, tot = 0;

	/* Error names and last error before anything. */
	RR("rt.lasterror.initial", cudaGetLastError());
	probe_line("rt.errname.unknown", "%s", cudaGetErrorName((cudaError_t)12345));
	probe_line("rt.errstring.unknown", "%s", cudaGetErrorString((cudaError_t)12345));
	probe_line("rt.errname.neg", "%s", cudaGetErrorName((cudaError_t)-1));

	RR("rt.getdevicecount", cudaGetDeviceCount(&n));
	RR("rt.getdevice", cudaGetDevice(&d));
	probe_line("rt.getdevice.value", "%d", d);
	RR("rt.setdevice.n", cudaSetDevice(n));
	RR("rt.lasterror.after_setdevice", cudaGetLastError());
	RR("rt.setdevice.-1", cudaSetDevice(-1));
	RR("rt.setdevice.0", cudaSetDevice(0));
	RR("rt.devattr.cma", cudaDeviceGetAttribute(&v, cudaDevAttrConcurrentManagedAccess, 0));
	probe_line("rt.devattr.cma.value", "%d", v);
	RR("rt.devattr.managed", cudaDeviceGetAttribute(&v, cudaDevAttrManagedMemory, 0));
	probe_line("rt.devattr.managed.value", "%d", v);
	RR("rt.devattr.pma", cudaDeviceGetAttribute(&v, cudaDevAttrPageableMemoryAccess, 0));
	probe_line("env.rt.devattr.pma.value", "%d", v);
	RR("rt.devattr.baddev", cudaDeviceGetAttribute(&v, cudaDevAttrManagedMemory, n));
	RR("rt.devattr.attr0", cudaDeviceGetAttribute(&v, (enum cudaDeviceAttr)0, 0));
	RR("rt.devattr.attr100000", cudaDeviceGetAttribute(&v, (enum cudaDeviceAttr)100000, 0));
	RR("rt.lasterror.after_devattr", cudaGetLastError());
	RR("rt.memgetinfo", cudaMemGetInfo(&fr, &tot));
	probe_line("rt.memgetinfo.free_le_total", "%d", fr <= tot);
	RR("rt.drivergetversion", cudaDriverGetVersion(&v));
	probe_line("env.rt.driver_version", "%d", v);
	RR("rt.runtimegetversion", cudaRuntimeGetVersion(&v));
	probe_line("env.rt.runtime_version", "%d", v);

	/* cudaMallocManaged. */
	RR("mm.size0", cudaMallocManaged(&p, 0, cudaMemAttachGlobal));
	probe_line("mm.size0.ptr", "%s", p ? "set" : "null");
	RR("mm.size0.lasterror", cudaGetLastError());
	RR("mm.size0.lasterror2", cudaGetLastError());
	RR("mm.flags0", cudaMallocManaged(&q, 4096, 0));
	RR("mm.flags0.peek", cudaPeekAtLastError());
	RR("mm.flags0.peek2", cudaPeekAtLastError());
	RR("mm.flags0.get", cudaGetLastError());
	q = NULL;
	RR("mm.flags.single", cudaMallocManaged(&q, 4096, cudaMemAttachSingle));
	if (q)
		cudaFree(q);
	q = NULL;
	RR("mm.flags3", cudaMallocManaged(&q, 4096, 3));
	if (q)
		cudaFree(q);
	q = NULL;
	RR("mm.flags.host", cudaMallocManaged(&q, 4096, cudaMemAttachHost));
	if (q)
		cudaFree(q);
	cudaGetLastError();
	RR("mm.ok", cudaMallocManaged(&p, 8 * M2, cudaMemAttachGlobal));
	memset(p, 1, 8 * M2);
	RR("mm.f", cudaMallocManaged(&f, M2, cudaMemAttachGlobal));
	RR("free.f", cudaFree(f));
	RR("free.f.again", cudaFree(f));
	RR("free.f.again.lasterror", cudaGetLastError());
	RR("free.null", cudaFree(NULL));
	RR("free.malloc", cudaFree(heap));
	RR("free.interior", cudaFree((char *)p + 64));
	cudaGetLastError();

	/* cudaMemAdvise. */
	RR("adv.ok", cudaMemAdvise(p, 4096, cudaMemAdviseSetReadMostly, RLOC(0, 0)));
	RR("adv.count0", cudaMemAdvise(p, 0, cudaMemAdviseSetReadMostly, RLOC(2, 0)));
	RR("adv.null", cudaMemAdvise(NULL, 4096, cudaMemAdviseSetReadMostly, RLOC(2, 0)));
	RR("adv.freed", cudaMemAdvise(f, 4096, cudaMemAdviseSetReadMostly, RLOC(2, 0)));
	RR("adv.advice0", cudaMemAdvise(p, 4096, (enum cudaMemoryAdvise)0, RLOC(2, 0)));
	RR("adv.advice7", cudaMemAdvise(p, 4096, (enum cudaMemoryAdvise)7, RLOC(2, 0)));
	RR("adv.pref.devN", cudaMemAdvise(p, 4096, cudaMemAdviseSetPreferredLocation,
	   RLOC(1, n)));
	RR("adv.pref.invalid", cudaMemAdvise(p, 4096, cudaMemAdviseSetPreferredLocation,
	   RLOC(0, 0)));
	RR("adv.pref.numaN", cudaMemAdvise(p, 4096, cudaMemAdviseSetPreferredLocation,
	   RLOC(3, numa)));
	RR("adv.ab.numa", cudaMemAdvise(p, 4096, cudaMemAdviseSetAccessedBy, RLOC(3, 0)));
	RR("adv.ab.dev-1", cudaMemAdvise(p, 4096, cudaMemAdviseSetAccessedBy, RLOC(1, -1)));
	RR("pma.adv.malloc", cudaMemAdvise(heap, 4096, cudaMemAdviseSetReadMostly, RLOC(2, 0)));
	RR("adv.straddle", cudaMemAdvise((char *)p + 8 * M2 - 4096, 8192,
	   cudaMemAdviseSetReadMostly, RLOC(2, 0)));
	RR("adv.lasterror", cudaGetLastError());

	/* cudaMemPrefetchAsync. */
	RR("stream.create", cudaStreamCreate(&s));
	RR("pf.ok", cudaMemPrefetchAsync(p, 4096, RLOC(1, 0), 0, s));
	RR("pf.stream0", cudaMemPrefetchAsync(p, 4096, RLOC(1, 0), 0, 0));
	RR("pf.legacy", cudaMemPrefetchAsync(p, 4096, RLOC(2, 0), 0, cudaStreamLegacy));
	RR("pf.perthread", cudaMemPrefetchAsync(p, 4096, RLOC(1, 0), 0, cudaStreamPerThread));
	RR("pf.flags1", cudaMemPrefetchAsync(p, 4096, RLOC(1, 0), 1, s));
	RR("pf.count0", cudaMemPrefetchAsync(p, 0, RLOC(1, 0), 0, s));
	RR("pf.null", cudaMemPrefetchAsync(NULL, 4096, RLOC(1, 0), 0, s));
	RR("pf.devN", cudaMemPrefetchAsync(p, 4096, RLOC(1, n), 0, s));
	RR("pf.invalid", cudaMemPrefetchAsync(p, 4096, RLOC(0, 0), 0, s));
	RR("pf.numaN", cudaMemPrefetchAsync(p, 4096, RLOC(3, numa), 0, s));
	RR("pf.freed", cudaMemPrefetchAsync(f, 4096, RLOC(1, 0), 0, s));
	RR("pma.pf.malloc", cudaMemPrefetchAsync(heap, 4096, RLOC(1, 0), 0, s));
	RR("pf.sync", cudaStreamSynchronize(s));
	RR("pf.lasterror", cudaGetLastError());

	/* Batches: the runtime's stream 0. */
	{
		void *dp[4];
		size_t sz[4], idx[2] = { 0, 2 };
		struct cudaMemLocation l[2] = { RLOC(1, 0), RLOC(2, 0) };

		for (int i = 0; i < 4; i++) {
			dp[i] = (char *)p + (size_t)i * M2;
			sz[i] = M2;
		}
		RR("bt.pf.ok", cudaMemPrefetchBatchAsync(dp, sz, 4, l, idx, 2, 0, s));
		RR("bt.pf.stream0", cudaMemPrefetchBatchAsync(dp, sz, 4, l, idx, 2, 0, 0));
		RR("bt.pf.stream0.lasterror", cudaGetLastError());
		RR("bt.pf.legacy", cudaMemPrefetchBatchAsync(dp, sz, 4, l, idx, 2, 0,
		   cudaStreamLegacy));
		RR("bt.pf.perthread", cudaMemPrefetchBatchAsync(dp, sz, 4, l, idx, 2, 0,
		   cudaStreamPerThread));
		RR("bt.pf.count0", cudaMemPrefetchBatchAsync(dp, sz, 0, l, idx, 1, 0, s));
		RR("bt.pf.flags1", cudaMemPrefetchBatchAsync(dp, sz, 4, l, idx, 2, 1, s));
		RR("bt.pf.idx_bad", cudaMemPrefetchBatchAsync(dp, sz, 4, l, (size_t[]){1, 2}, 2, 0,
		   s));
		RR("bt.pf.nlocs0", cudaMemPrefetchBatchAsync(dp, sz, 4, l, idx, 0, 0, s));
		RR("bt.pf.devN", cudaMemPrefetchBatchAsync(dp, sz, 4,
		   (struct cudaMemLocation[]){RLOC(1, n)}, idx, 1, 0, s));
		RR("bt.ds.ok", cudaMemDiscardBatchAsync(dp, sz, 4, 0, s));
		RR("bt.ds.stream0", cudaMemDiscardBatchAsync(dp, sz, 4, 0, 0));
		RR("bt.ds.legacy", cudaMemDiscardBatchAsync(dp, sz, 4, 0, cudaStreamLegacy));
		RR("bt.ds.perthread", cudaMemDiscardBatchAsync(dp, sz, 4, 0, cudaStreamPerThread));
		RR("bt.ds.count0", cudaMemDiscardBatchAsync(dp, sz, 0, 0, s));
		RR("bt.ds.flags1", cudaMemDiscardBatchAsync(dp, sz, 4, 1, s));
		RR("bt.dp.ok", cudaMemDiscardAndPrefetchBatchAsync(dp, sz, 4, l, idx, 2, 0, s));
		RR("bt.dp.stream0", cudaMemDiscardAndPrefetchBatchAsync(dp, sz, 4, l, idx, 2, 0, 0));
		RR("bt.dp.legacy", cudaMemDiscardAndPrefetchBatchAsync(dp, sz, 4, l, idx, 2, 0,
		   cudaStreamLegacy));
		RR("bt.dp.count0", cudaMemDiscardAndPrefetchBatchAsync(dp, sz, 0, l, idx, 1, 0, s));
		RR("bt.sync", cudaStreamSynchronize(s));
		RR("bt.lasterror", cudaGetLastError());
	}

	/* Range attributes. */
	{
		int v1 = 77, v4[4] = { 77, 77, 77, 77 };
		enum cudaMemLocationType t = (enum cudaMemLocationType)77;

		RR("ra.rm", cudaMemRangeGetAttribute(&v1, 4, cudaMemRangeAttributeReadMostly, p, 4096));
		probe_line("ra.rm.value", "%d", v1);
		RR("ra.rm.size8", cudaMemRangeGetAttribute(v4, 8, cudaMemRangeAttributeReadMostly, p,
		   4096));
		RR("ra.ab.size6", cudaMemRangeGetAttribute(v4, 6, cudaMemRangeAttributeAccessedBy, p,
		   4096));
		RR("ra.pt", cudaMemRangeGetAttribute(&t, sizeof(t),
		   cudaMemRangeAttributePreferredLocationType, p, 4096));
		probe_line("ra.pt.value", "%d", (int)t);
		RR("ra.lp", cudaMemRangeGetAttribute(&v1, 4,
		   cudaMemRangeAttributeLastPrefetchLocation, p, 4096));
		probe_line("ra.lp.value", "%d", v1);
		RR("ra.count0", cudaMemRangeGetAttribute(&v1, 4, cudaMemRangeAttributeReadMostly, p, 0));
		RR("ra.null", cudaMemRangeGetAttribute(&v1, 4, cudaMemRangeAttributeReadMostly, NULL,
		   4096));
		RR("ra.freed", cudaMemRangeGetAttribute(&v1, 4, cudaMemRangeAttributeReadMostly, f,
		   4096));
		RR("pma.ra.malloc", cudaMemRangeGetAttribute(&v1, 4, cudaMemRangeAttributeReadMostly,
		   heap, 4096));
		RR("ra.attr0", cudaMemRangeGetAttribute(&v1, 4, (enum cudaMemRangeAttribute)0, p,
		   4096));
		RR("ra.attr9", cudaMemRangeGetAttribute(&v1, 4, (enum cudaMemRangeAttribute)9, p,
		   4096));
		RR("ra.straddle", cudaMemRangeGetAttribute(&v1, 4, cudaMemRangeAttributeReadMostly,
		   (char *)p + 8 * M2 - 4096, 8192));
		{
			void *data[] = { &v1, v4 };
			size_t ds[] = { 4, 16 };
			enum cudaMemRangeAttribute at[] = { cudaMemRangeAttributeReadMostly,
				cudaMemRangeAttributeAccessedBy };

			RR("ras.ok", cudaMemRangeGetAttributes(data, ds, at, 2, p, 4096));
			RR("ras.n0", cudaMemRangeGetAttributes(data, ds, at, 0, p, 4096));
			ds[1] = 6;
			RR("ras.badsize", cudaMemRangeGetAttributes(data, ds, at, 2, p, 4096));
		}
		RR("ra.lasterror", cudaGetLastError());
	}

	/* cudaPointerGetAttributes. */
	ptrattr("pa.managed", p, p);
	ptrattr("pa.managed.interior", (char *)p + 100, p);
	ptrattr("pa.malloc", heap, heap);
	ptrattr("pa.stack", &v, &v);
	ptrattr("pa.null", NULL, NULL);
	ptrattr("pa.freed", f, f);
	RR("pa.nullattr", cudaPointerGetAttributes(NULL, p));
	RR("pa.nullattr.lasterror", cudaGetLastError());

	/* Driver view of runtime memory. */
	{
		CUcontext c = NULL, pri = NULL;
		CUdeviceptr b = 0;
		size_t sz = 0;

		PR("mix.getcurrent", cuCtxGetCurrent(&c));
		MUST(cuDevicePrimaryCtxRetain(&pri, 0));
		probe_line("mix.current_is_primary", "%d", c == pri);
		PR("mix.addressrange", cuMemGetAddressRange(&b, &sz, (uintptr_t)p + 5));
		probe_line("mix.addressrange.size", "%zu", sz);
		MUST(cuDevicePrimaryCtxRelease(0));
	}

	/* Streams and events. */
	{
		cudaStream_t s2 = NULL;
		cudaEvent_t e2 = NULL;

		RR("st.flags.nonblocking", cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
		if (s2)
			cudaStreamDestroy(s2);
		s2 = NULL;
		RR("st.flags2", cudaStreamCreateWithFlags(&s2, 2));
		if (s2)
			cudaStreamDestroy(s2);
		RR("st.flags2.lasterror", cudaGetLastError());
		RR("st.query", cudaStreamQuery(s));
		RR("st.query0", cudaStreamQuery(0));
		RR("st.sync0", cudaStreamSynchronize(0));
		RR("ev.create", cudaEventCreate(&ev));
		RR("ev.query.unrecorded", cudaEventQuery(ev));
		RR("ev.record", cudaEventRecord(ev, s));
		RR("ev.record0", cudaEventRecord(ev, 0));
		RR("ev.sync", cudaEventSynchronize(ev));
		RR("ev.query", cudaEventQuery(ev));
		RR("st.wait", cudaStreamWaitEvent(s, ev, 0));
		RR("st.wait.flags4", cudaStreamWaitEvent(s, ev, 4));
		RR("ev.flags.interprocess", cudaEventCreateWithFlags(&e2, cudaEventInterprocess));
		if (e2)
			cudaEventDestroy(e2);
		e2 = NULL;
		RR("ev.flags.bad", cudaEventCreateWithFlags(&e2, 0x100));
		if (e2)
			cudaEventDestroy(e2);
		RR("ev.lasterror", cudaGetLastError());
		RR("ev.destroy", cudaEventDestroy(ev));
		RR("st.destroy", cudaStreamDestroy(s));
		RR("dev.sync", cudaDeviceSynchronize());
	}
	RR("free.p", cudaFree(p));

	/* Error names and strings of every code the runtime knows. */
	for (int e = 0; e <= 1100; e++) {
		const char *nm = cudaGetErrorName((cudaError_t)e);
		char key[64];

		if (!nm || !strcmp(nm, "unrecognized error code"))
			continue;
		snprintf(key, sizeof(key), "rt.err.%d", e);
		probe_line(key, "%s | %s", nm, cudaGetErrorString((cudaError_t)e));
	}
	RR("dev.reset", cudaDeviceReset());
	RR("after_reset.lasterror", cudaGetLastError());
	return 0;
}
