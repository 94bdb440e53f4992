// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * probe_ctx - contexts, primary contexts, streams and events; calls that
 * need a context made without one.
 */
#include "probe.h"

static const char *ctxname(CUcontext c, CUcontext a, CUcontext b, CUcontext pri)
{
	if (!c)
		return "null";
	if (c == a)
		return "a";
	if (c == b)
		return "b";
	if (c == pri)
		return "primary";
	return "other";
}

static CUresult ctx_create(CUcontext *c, unsigned int flags, CUdevice dev)
{
#if CUDA_VERSION >= 13000
	return cuCtxCreate(c, NULL, flags, dev);
#else
	return cuCtxCreate(c, flags, dev);
#endif
}

int main(void)
{
	CUcontext a = NULL, b = NULL, pri = NULL, pri2 = NULL, cur = NULL;
	CUdeviceptr p = 0, q = 0;
	CUstream s = NULL, s2 = NULL;
	CUevent e = NULL, e2 = NULL;
	CUdevice d = -7;
	size_t fr, tot;
	unsigned int fl = 77;
	int active = -7, n = 0;

	MUST(cuInit(0));
	MUST(cuDeviceGetCount(&n));

	/* No context yet. */
	PR("noctx.getcurrent", cuCtxGetCurrent(&cur));
	probe_line("noctx.getcurrent.value", "%s", cur ? "other" : "null");
	PR("noctx.synchronize", cuCtxSynchronize());
	PR("noctx.getdevice", cuCtxGetDevice(&d));
	PR("noctx.memallocmanaged", cuMemAllocManaged(&p, 4096, CU_MEM_ATTACH_GLOBAL));
	PR("noctx.memgetinfo", cuMemGetInfo(&fr, &tot));
	PR("noctx.streamcreate", cuStreamCreate(&s, 0));
	PR("noctx.eventcreate", cuEventCreate(&e, 0));
	PR("noctx.streamquery.null", cuStreamQuery(NULL));
	PR("noctx.streamsync.null", cuStreamSynchronize(NULL));
	PR("noctx.memfree.null", cuMemFree(0));
	PR("noctx.setcurrent.null", cuCtxSetCurrent(NULL));

	/* Primary context. */
	PR("pri.state", cuDevicePrimaryCtxGetState(0, &fl, &active));
	probe_line("pri.state.value", "flags=%u active=%d", fl, active);
	PR("pri.release.unretained", cuDevicePrimaryCtxRelease(0));
	PR("pri.retain", cuDevicePrimaryCtxRetain(&pri, 0));
	PR("pri.retain.again", cuDevicePrimaryCtxRetain(&pri2, 0));
	probe_line("pri.retain.same", "%d", pri == pri2);
	PR("pri.state2", cuDevicePrimaryCtxGetState(0, &fl, &active));
	probe_line("pri.state2.value", "flags=%u active=%d", fl, active);
	PR("pri.retain.baddev", cuDevicePrimaryCtxRetain(&pri2, n));
	PR("pri.release.baddev", cuDevicePrimaryCtxRelease(n));
	PR("pri.getcurrent.afterretain", cuCtxGetCurrent(&cur));
	probe_line("pri.getcurrent.afterretain.value", "%s", ctxname(cur, a, b, pri));
	PR("pri.setcurrent", cuCtxSetCurrent(pri));
	PR("pri.getdevice", cuCtxGetDevice(&d));
	probe_line("pri.getdevice.value", "%d", d);
	PR("pri.alloc", cuMemAllocManaged(&p, 1 << 20, CU_MEM_ATTACH_GLOBAL));
	PR("pri.release1", cuDevicePrimaryCtxRelease(0));
	PR("pri.alloc.still", cuPointerGetAttribute(&active, CU_POINTER_ATTRIBUTE_IS_MANAGED, p));
	PR("pri.release2", cuDevicePrimaryCtxRelease(0));
	PR("pri.release3", cuDevicePrimaryCtxRelease(0));
	PR("pri.state3", cuDevicePrimaryCtxGetState(0, &fl, &active));
	probe_line("pri.state3.value", "flags=%u active=%d", fl, active);
	PR("pri.getcurrent.afterrelease", cuCtxGetCurrent(&cur));
	probe_line("pri.getcurrent.afterrelease.value", "%s", ctxname(cur, a, b, pri));
	/* The allocation of the released primary context. */
	PR("pri.alloc.afterrelease.ismanaged", cuPointerGetAttribute(&active,
	   CU_POINTER_ATTRIBUTE_IS_MANAGED, p));
	PR("pri.alloc.afterrelease.free", cuMemFree(p));
	PR("pri.synchronize.afterrelease", cuCtxSynchronize());
	PR("pri.memalloc.afterrelease", cuMemAllocManaged(&q, 4096, CU_MEM_ATTACH_GLOBAL));
	PR("pri.setcurrent.null", cuCtxSetCurrent(NULL));

	/* Created contexts. */
	PR("ctx.create.baddev", ctx_create(&a, 0, n));
	PR("ctx.create.badflags", ctx_create(&a, 0x100000, 0));
	PR("ctx.create.a", ctx_create(&a, 0, 0));
	PR("ctx.getcurrent.a", cuCtxGetCurrent(&cur));
	probe_line("ctx.getcurrent.a.value", "%s", ctxname(cur, a, b, pri));
	PR("ctx.create.b", ctx_create(&b, 0, 0));
	PR("ctx.getcurrent.b", cuCtxGetCurrent(&cur));
	probe_line("ctx.getcurrent.b.value", "%s", ctxname(cur, a, b, pri));
	probe_line("ctx.a_ne_b", "%d", a != b);
	PR("ctx.setcurrent.a", cuCtxSetCurrent(a));
	PR("ctx.synchronize", cuCtxSynchronize());
	PR("ctx.alloc.a", cuMemAllocManaged(&p, 1 << 20, CU_MEM_ATTACH_GLOBAL));
	PR("ctx.setcurrent.b", cuCtxSetCurrent(b));
	cur = NULL;
	PR("ctx.alloc.a.context.from_b", cuPointerGetAttribute(&cur,
	   CU_POINTER_ATTRIBUTE_CONTEXT, p));
	probe_line("ctx.alloc.a.context.from_b.value", "%s", ctxname(cur, a, b, pri));
	PR("ctx.destroy.a.notcurrent", cuCtxDestroy(a));
	PR("ctx.getcurrent.afterdestroy.a", cuCtxGetCurrent(&cur));
	probe_line("ctx.getcurrent.afterdestroy.a.value", "%s", ctxname(cur, a, b, pri));
	PR("ctx.alloc.a.afterdestroy.ismanaged", cuPointerGetAttribute(&active,
	   CU_POINTER_ATTRIBUTE_IS_MANAGED, p));
	PR("ctx.alloc.a.afterdestroy.free", cuMemFree(p));
	PR("ctx.destroy.b.current", cuCtxDestroy(b));
	PR("ctx.getcurrent.afterdestroy.b", cuCtxGetCurrent(&cur));
	probe_line("ctx.getcurrent.afterdestroy.b.value", "%s", ctxname(cur, a, b, pri));
	PR("ctx.synchronize.afterdestroy", cuCtxSynchronize());
	PR("ctx.alloc.afterdestroy", cuMemAllocManaged(&q, 4096, CU_MEM_ATTACH_GLOBAL));
	PR("ctx.setcurrent.null", cuCtxSetCurrent(NULL));

	/* Streams and events in a fresh context. */
	MUST(ctx_create(&a, 0, 0));
	PR("stream.create.0", cuStreamCreate(&s, 0));
	PR("stream.create.nonblocking", cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
	PR("stream.destroy.nonblocking", cuStreamDestroy(s2));
	s2 = NULL;
	PR("stream.create.flags2", cuStreamCreate(&s2, 2));
	if (s2)
		cuStreamDestroy(s2);
	s2 = NULL;
	PR("stream.create.flagsall", cuStreamCreate(&s2, 0xffffffffu));
	if (s2)
		cuStreamDestroy(s2);
	PR("stream.query.new", cuStreamQuery(s));
	PR("stream.sync.new", cuStreamSynchronize(s));
	PR("stream.query.null", cuStreamQuery(NULL));
	PR("stream.query.legacy", cuStreamQuery(CU_STREAM_LEGACY));
	PR("stream.query.perthread", cuStreamQuery(CU_STREAM_PER_THREAD));
	PR("stream.sync.null", cuStreamSynchronize(NULL));
	PR("stream.sync.legacy", cuStreamSynchronize(CU_STREAM_LEGACY));
	PR("stream.sync.perthread", cuStreamSynchronize(CU_STREAM_PER_THREAD));
	fl = 77;
	PR("stream.getflags", cuStreamGetFlags(s, &fl));
	probe_line("stream.getflags.value", "%u", fl);

	PR("event.create.0", cuEventCreate(&e, 0));
	PR("event.create.disabletiming", cuEventCreate(&e2, CU_EVENT_DISABLE_TIMING));
	PR("event.destroy.e2", cuEventDestroy(e2));
	e2 = NULL;
	PR("event.create.blocking", cuEventCreate(&e2, CU_EVENT_BLOCKING_SYNC));
	PR("event.destroy.e2b", cuEventDestroy(e2));
	e2 = NULL;
	PR("event.create.interprocess.timing", cuEventCreate(&e2, CU_EVENT_INTERPROCESS));
	if (e2)
		cuEventDestroy(e2);
	e2 = NULL;
	PR("event.create.interprocess.notiming", cuEventCreate(&e2,
	   CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING));
	if (e2)
		cuEventDestroy(e2);
	e2 = NULL;
	PR("event.create.flags16", cuEventCreate(&e2, 16));
	if (e2)
		cuEventDestroy(e2);
	e2 = NULL;
	PR("event.create.flagsall", cuEventCreate(&e2, 0xffffffffu));
	if (e2)
		cuEventDestroy(e2);
	PR("event.query.unrecorded", cuEventQuery(e));
	PR("event.sync.unrecorded", cuEventSynchronize(e));
	PR("event.record.s", cuEventRecord(e, s));
	PR("event.sync", cuEventSynchronize(e));
	PR("event.query", cuEventQuery(e));
	PR("event.record.null", cuEventRecord(e, NULL));
	PR("event.record.legacy", cuEventRecord(e, CU_STREAM_LEGACY));
	PR("event.record.perthread", cuEventRecord(e, CU_STREAM_PER_THREAD));
	PR("event.query2", cuEventQuery(e));
	PR("wait.s.e", cuStreamWaitEvent(s, e, 0));
	PR("wait.s.e.flags1", cuStreamWaitEvent(s, e, 1));
	PR("wait.s.e.flags2", cuStreamWaitEvent(s, e, 2));
	PR("wait.null.e", cuStreamWaitEvent(NULL, e, 0));
	PR("wait.legacy.e", cuStreamWaitEvent(CU_STREAM_LEGACY, e, 0));
	PR("wait.perthread.e", cuStreamWaitEvent(CU_STREAM_PER_THREAD, e, 0));

	/* Prefetch work ordered across streams with an event. */
	MUST(cuMemAllocManaged(&p, 4 << 20, CU_MEM_ATTACH_GLOBAL));
	memset((void *)(uintptr_t)p, 1, 4 << 20);
	PR("order.prefetch.s", cuMemPrefetchAsync(p, 4 << 20,
	   (CUmemLocation){CU_MEM_LOCATION_TYPE_DEVICE, 0}, 0, s));
	PR("order.record", cuEventRecord(e, s));
	MUST(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
	PR("order.wait", cuStreamWaitEvent(s2, e, 0));
	PR("order.prefetch.s2", cuMemPrefetchAsync(p, 4 << 20,
	   (CUmemLocation){CU_MEM_LOCATION_TYPE_HOST, 0}, 0, s2));
	PR("order.sync.s2", cuStreamSynchronize(s2));
	PR("order.query.e", cuEventQuery(e));
	PR("order.query.s", cuStreamQuery(s));
	PR("order.query.s2", cuStreamQuery(s2));
	PR("order.ctxsync", cuCtxSynchronize());
	PR("order.free", cuMemFree(p));

	/* Destroy with work done; then the context. */
	PR("stream.destroy.s2", cuStreamDestroy(s2));
	PR("event.destroy.e", cuEventDestroy(e));
	PR("stream.destroy.s", cuStreamDestroy(s));
	PR("ctx.destroy.final", cuCtxDestroy(a));
	PR("final.getcurrent", cuCtxGetCurrent(&cur));
	probe_line("final.getcurrent.value", "%s", cur ? "other" : "null");
	return 0;
}
