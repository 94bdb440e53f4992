// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * probe_rtprog - a plain C program of the runtime's Memory Management group:
 * only cuda_runtime_api.h, no cuda.h, no probe helpers.  (make_cudaExtent,
 * make_cudaPitchedPtr and make_cudaPos come with cuda_runtime.h, through a
 * header NVIDIA's marks internal, so this program builds its extents,
 * positions and pitched pointers itself.)  It calls every function of the group once or more in an
 * ordinary program's way - allocate, copy, set, advise, prefetch, query,
 * free - and prints each result with its error name and, for the copies,
 * whether the bytes arrived ("ok", "mismatch").
 *
 * The same source builds against NVIDIA's runtime (recorded in
 * ../results/probe_rtprog.txt by run-probes.sh) and against libuvm (the
 * realdriver suite replays it and compares).  One GPU: peer copies are
 * between device 0 and itself.  Device variables need a runtime that
 * registers them; a plain C program has none, so the symbol calls see
 * ordinary host variables (cudaErrorInvalidSymbol on both).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#define N 4096

static void res(const char *key, cudaError_t e)
{
	printf("%s = %d %s\n", key, (int)e, cudaGetErrorName(e));
	cudaGetLastError();
}

static void say(const char *key, const char *v)
{
	printf("%s = %s\n", key, v);
}

static void fill(unsigned char *p, size_t n, unsigned int seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 31u + seed + (i >> 8));
}

static void check(const char *key, const void *got, const void *want, size_t n)
{
	say(key, memcmp(got, want, n) ? "mismatch" : "ok");
}

#define R(key, call) res(key, (call))

static struct cudaExtent make_cudaExtent(size_t w, size_t h, size_t d)
{
	struct cudaExtent e = { w, h, d };

	return e;
}

static struct cudaPos make_cudaPos(size_t x, size_t y, size_t z)
{
	struct cudaPos p = { x, y, z };

	return p;
}

static struct cudaPitchedPtr make_cudaPitchedPtr(void *d, size_t p, size_t xsz, size_t ysz)
{
	struct cudaPitchedPtr pp = { d, p, xsz, ysz };

	return pp;
}

static unsigned char a[N], b[N], c[N];
static int not_a_symbol;

static void s_alloc(void)
{
	void *d = NULL, *h = NULL, *m = NULL, *dp = NULL, *reg;
	unsigned int flags = 0;
	size_t pitch = 0, fr = 0, tot = 0;
	struct cudaPitchedPtr pp;

	R("malloc", cudaMalloc(&d, N));
	R("malloc.zero", cudaMalloc(&dp, 0));
	say("malloc.zero.ptr", dp ? "set" : "null");
	R("mallochost", cudaMallocHost(&h, N));
	R("hostalloc.mapped", cudaHostAlloc(&m, N, cudaHostAllocMapped));
	R("hostgetflags", cudaHostGetFlags(&flags, m));
	printf("hostgetflags.value = %#x\n", flags);
	R("hostgetdevicepointer", cudaHostGetDevicePointer(&dp, m, 0));
	say("hostgetdevicepointer.same", dp == m ? "yes" : "no");
	R("hostgetdevicepointer.flags1", cudaHostGetDevicePointer(&dp, m, 1));
	reg = malloc(N);
	R("hostregister", cudaHostRegister(reg, N, cudaHostRegisterDefault));
	R("hostregister.twice", cudaHostRegister(reg, N, cudaHostRegisterDefault));
	R("hostunregister", cudaHostUnregister(reg));
	R("hostunregister.twice", cudaHostUnregister(reg));
	free(reg);
	R("mallocpitch", cudaMallocPitch(&dp, &pitch, 100, 10));
	printf("mallocpitch.pitch = %zu\n", pitch);
	R("free.pitch", cudaFree(dp));
	memset(&pp, 0, sizeof(pp));
	R("malloc3d", cudaMalloc3D(&pp, make_cudaExtent(100, 10, 3)));
	printf("malloc3d.pitched = %zu %zu %zu\n", pp.pitch, pp.xsize, pp.ysize);
	R("free.3d", cudaFree(pp.ptr));
	R("memgetinfo", cudaMemGetInfo(&fr, &tot));
	say("memgetinfo.sane", fr <= tot && tot ? "yes" : "no");
	R("free", cudaFree(d));
	R("free.null", cudaFree(NULL));
	R("free.twice", cudaFree(d));
	R("freehost", cudaFreeHost(h));
	R("freehost.mapped", cudaFreeHost(m));
}

static void s_copy(void)
{
	void *d = NULL, *d2 = NULL;
	unsigned char *h = NULL;
	cudaStream_t st;

	fill(a, N, 1);
	R("stream", cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
	R("copy.malloc", cudaMalloc(&d, N));
	R("copy.malloc2", cudaMalloc(&d2, N));
	R("copy.mallochost", cudaMallocHost((void **)&h, N));
	R("memcpy.h2d", cudaMemcpy(d, a, N, cudaMemcpyHostToDevice));
	R("memcpy.d2d", cudaMemcpy(d2, d, N, cudaMemcpyDeviceToDevice));
	memset(b, 0, N);
	R("memcpy.d2h", cudaMemcpy(b, d2, N, cudaMemcpyDeviceToHost));
	check("memcpy.data", b, a, N);
	R("memcpy.kind9", cudaMemcpy(b, d2, N, (enum cudaMemcpyKind)9));
	R("memcpyasync", cudaMemcpyAsync(h, d, N, cudaMemcpyDefault, st));
	R("memcpyasync.sync", cudaStreamSynchronize(st));
	check("memcpyasync.data", h, a, N);
	R("memset", cudaMemset(d, 0x5a, N));
	memset(c, 0x5a, N);
	R("memset.read", cudaMemcpy(b, d, N, cudaMemcpyDeviceToHost));
	check("memset.data", b, c, N);
	R("memsetasync", cudaMemsetAsync(d, 0x33, 100, st));
	R("memsetasync.sync", cudaStreamSynchronize(st));
	memset(c, 0x33, 100);
	R("memsetasync.read", cudaMemcpy(b, d, N, cudaMemcpyDeviceToHost));
	check("memsetasync.data", b, c, N);
	/* 2D: 32 x 20 from pitch 64 into pitch 128, sets of 16 x 8 */
	fill(a, N, 2);
	R("memset.clear", cudaMemset(d2, 0, N));
	R("memcpy2d", cudaMemcpy2D(d2, 128, a, 64, 32, 20, cudaMemcpyHostToDevice));
	R("memcpy2d.back", cudaMemcpy2DAsync(b, 64, d2, 128, 32, 20, cudaMemcpyDeviceToHost, st));
	R("memcpy2d.sync", cudaStreamSynchronize(st));
	{
		int ok = 1;

		for (int y = 0; y < 20; y++)
			ok &= !memcmp(b + y * 64, a + y * 64, 32);
		say("memcpy2d.data", ok ? "ok" : "mismatch");
	}
	R("memcpy2d.pitch", cudaMemcpy2D(d2, 16, a, 64, 32, 20, cudaMemcpyHostToDevice));
	R("memset2d", cudaMemset2D(d2, 128, 0x11, 16, 8));
	R("memset2dasync", cudaMemset2DAsync(d2, 128, 0x22, 8, 4, st));
	R("memset2d.sync", cudaStreamSynchronize(st));
	R("memset2d.read", cudaMemcpy(b, d2, N, cudaMemcpyDeviceToHost));
	{
		int ok = 1;

		for (int y = 0; y < 8; y++)
			for (int x = 0; x < 16; x++)
				ok &= b[y * 128 + x] == (x < 8 && y < 4 ? 0x22 : 0x11);
		ok &= b[16] == a[16];
		say("memset2d.data", ok ? "ok" : "mismatch");
	}
	/* 3D: 16 x 4 x 3 at (2, 1, 1) of 32 x 8 x 4 */
	{
		struct cudaMemcpy3DParms p;
		struct cudaPitchedPtr dev = make_cudaPitchedPtr(d, 32, 32, 8);

		memset(&p, 0, sizeof(p));
		p.srcPtr = make_cudaPitchedPtr(a, 16, 16, 4);
		p.dstPtr = dev;
		p.dstPos = make_cudaPos(2, 1, 1);
		p.extent = make_cudaExtent(16, 4, 3);
		p.kind = cudaMemcpyHostToDevice;
		R("memset.3dclear", cudaMemset(d, 0, N));
		R("memcpy3d", cudaMemcpy3D(&p));
		memset(&p, 0, sizeof(p));
		p.srcPtr = dev;
		p.srcPos = make_cudaPos(2, 1, 1);
		p.dstPtr = make_cudaPitchedPtr(b, 16, 16, 4);
		p.extent = make_cudaExtent(16, 4, 3);
		p.kind = cudaMemcpyDefault;
		memset(b, 0, N);
		R("memcpy3dasync", cudaMemcpy3DAsync(&p, st));
		R("memcpy3dasync.sync", cudaStreamSynchronize(st));
		check("memcpy3d.data", b, a, 16 * 4 * 3);
		R("memset3d", cudaMemset3D(dev, 0x44, make_cudaExtent(4, 2, 2)));
		R("memset3dasync", cudaMemset3DAsync(dev, 0x55, make_cudaExtent(2, 1, 1), st));
		R("memset3d.sync", cudaStreamSynchronize(st));
		R("memset3d.read", cudaMemcpy(b, d, 1024, cudaMemcpyDeviceToHost));
		say("memset3d.data", b[0] == 0x55 && b[2] == 0x44 && b[256] == 0x44 &&
			b[256 + 32] == 0x44 && b[4] == 0 && b[512] == 0 ? "ok" : "mismatch");
		/* peer: device 0 with itself */
		R("memcpypeer", cudaMemcpyPeer(d2, 0, d, 0, N));
		R("memcpypeerasync", cudaMemcpyPeerAsync(d, 0, d2, 0, N, st));
		R("memcpypeer.baddev", cudaMemcpyPeer(d2, 0, d, 99, N));
		R("memcpypeer.sync", cudaStreamSynchronize(st));
		{
			struct cudaMemcpy3DPeerParms q;

			memset(&q, 0, sizeof(q));
			q.srcPtr = make_cudaPitchedPtr(d, 32, 32, 8);
			q.dstPtr = make_cudaPitchedPtr(d2, 32, 32, 8);
			q.extent = make_cudaExtent(32, 8, 4);
			R("memcpy3dpeer", cudaMemcpy3DPeer(&q));
			R("memcpy3dpeerasync", cudaMemcpy3DPeerAsync(&q, st));
			R("memcpy3dpeer.sync", cudaStreamSynchronize(st));
			memset(c, 0, N);
			R("memcpy3dpeer.read", cudaMemcpy(c, d2, 1024, cudaMemcpyDeviceToHost));
			check("memcpy3dpeer.data", c, b, 1024);
		}
	}
	/* batches: two copies, then one 3D operation */
	{
		void *dsts[2] = { b, b + 2048 };
		const void *srcs[2] = { d, (const unsigned char *)d2 + 64 };
		size_t sizes[2] = { 1024, 512 }, idx = 0;
		struct cudaMemcpyAttributes at;
		struct cudaMemcpy3DBatchOp op;

		memset(&at, 0, sizeof(at));
		at.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
		fill(a, N, 3);
		R("batch.fill", cudaMemcpy(d, a, N, cudaMemcpyHostToDevice));
		R("batch.fill2", cudaMemcpy(d2, a, N, cudaMemcpyHostToDevice));
		memset(b, 0, N);
		R("memcpybatchasync", cudaMemcpyBatchAsync(dsts, srcs, sizes, 2, &at, &idx, 1, st));
		R("memcpybatchasync.legacy", cudaMemcpyBatchAsync(dsts, srcs, sizes, 2, &at, &idx, 1,
								   0));
		R("memcpybatchasync.sync", cudaStreamSynchronize(st));
		check("memcpybatchasync.data0", b, a, 1024);
		check("memcpybatchasync.data1", b + 2048, a + 64, 512);
		memset(&op, 0, sizeof(op));
		op.src.type = cudaMemcpyOperandTypePointer;
		op.src.op.ptr.ptr = d;
		op.dst.type = cudaMemcpyOperandTypePointer;
		op.dst.op.ptr.ptr = c;
		op.extent = make_cudaExtent(64, 4, 1);
		op.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
		memset(c, 0, N);
		R("memcpy3dbatchasync", cudaMemcpy3DBatchAsync(1, &op, 0, st));
		R("memcpy3dbatchasync.sync", cudaStreamSynchronize(st));
		check("memcpy3dbatchasync.data", c, a, 256);
	}
	R("copy.free", cudaFree(d));
	R("copy.free2", cudaFree(d2));
	R("copy.freehost", cudaFreeHost(h));
	R("stream.destroy", cudaStreamDestroy(st));
}

static void s_managed(void)
{
	struct cudaMemLocation dev0 = { cudaMemLocationTypeDevice, 0 };
	struct cudaMemLocation host = { cudaMemLocationTypeHost, 0 };
	unsigned char *m = NULL;
	void *ptrs[1];
	size_t sizes[1] = { 1 << 20 }, li = 0;
	int v = -5, loc = -5, locs[2] = { -5, -5 };
	void *data[1] = { &loc };
	size_t ds[1] = { sizeof(loc) };
	enum cudaMemRangeAttribute at[1] = { cudaMemRangeAttributeLastPrefetchLocation };
	cudaStream_t st;

	R("managed.stream", cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
	R("mallocmanaged", cudaMallocManaged((void **)&m, 1 << 21, cudaMemAttachGlobal));
	R("mallocmanaged.badflags", cudaMallocManaged((void **)&ptrs[0], 4096, 7));
	memset(m, 7, 1 << 21);
	R("memadvise.readmostly", cudaMemAdvise(m, 1 << 20, cudaMemAdviseSetReadMostly, dev0));
	R("memadvise.preferred", cudaMemAdvise(m, 1 << 20, cudaMemAdviseSetPreferredLocation,
					       dev0));
	R("memadvise.bad", cudaMemAdvise(m, 1 << 20, (enum cudaMemoryAdvise)99, dev0));
	R("rangeattr.readmostly", cudaMemRangeGetAttribute(&v, sizeof(v),
			cudaMemRangeAttributeReadMostly, m, 1 << 20));
	printf("rangeattr.readmostly.value = %d\n", v);
	R("rangeattr.preferred", cudaMemRangeGetAttribute(&v, sizeof(v),
			cudaMemRangeAttributePreferredLocation, m, 1 << 20));
	printf("rangeattr.preferred.value = %d\n", v);
	R("memprefetchasync", cudaMemPrefetchAsync(m, 1 << 20, dev0, 0, st));
	R("memprefetchasync.sync", cudaStreamSynchronize(st));
	R("rangeattrs", cudaMemRangeGetAttributes(data, ds, at, 1, m, 1 << 20));
	printf("rangeattrs.lastprefetch = %d\n", loc);
	ptrs[0] = m + (1 << 20);
	R("memprefetchbatchasync", cudaMemPrefetchBatchAsync(ptrs, sizes, 1, &dev0, &li, 1, 0,
							     st));
	R("memdiscardbatchasync", cudaMemDiscardBatchAsync(ptrs, sizes, 1, 0, st));
	R("memdiscardandprefetchbatchasync",
	  cudaMemDiscardAndPrefetchBatchAsync(ptrs, sizes, 1, &host, &li, 1, 0, st));
	R("managed.sync", cudaStreamSynchronize(st));
	R("rangeattr.lastprefetch2", cudaMemRangeGetAttribute(&locs[0], sizeof(int),
			cudaMemRangeAttributeLastPrefetchLocation, m + (1 << 20), 1 << 20));
	printf("rangeattr.lastprefetch2.value = %d\n", locs[0]);
	say("managed.data", m[0] == 7 && m[(1 << 20) - 1] == 7 ? "ok" : "mismatch");
	R("managed.free", cudaFree(m));
	R("managed.streamdestroy", cudaStreamDestroy(st));
}

static void s_arrays(void)
{
	struct cudaChannelFormatDesc d4 = cudaCreateChannelDesc(8, 8, 8, 8,
								cudaChannelFormatKindUnsigned);
	struct cudaChannelFormatDesc got;
	struct cudaArrayMemoryRequirements mr;
	struct cudaArraySparseProperties sp;
	struct cudaExtent e;
	struct cudaMemcpy3DParms p;
	cudaArray_t A = NULL, B = NULL, C = NULL, lv = NULL, pl = NULL;
	cudaMipmappedArray_t mm = NULL;
	unsigned int fl = 0;
	cudaStream_t st;

	fill(a, N, 4);
	R("array.stream", cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
	R("mallocarray", cudaMallocArray(&A, &d4, 16, 8, 0));
	R("mallocarray.bad", cudaMallocArray(&B, &d4, 0, 8, 0));
	R("malloc3darray", cudaMalloc3DArray(&B, &d4, make_cudaExtent(16, 8, 0), 0));
	R("malloc3darray.layered", cudaMalloc3DArray(&C, &d4, make_cudaExtent(16, 8, 2),
						     cudaArrayLayered));
	R("arraygetinfo", cudaArrayGetInfo(&got, &e, &fl, C));
	printf("arraygetinfo.value = %d,%d,%d,%d kind=%d extent=%zu,%zu,%zu flags=%#x\n", got.x,
	       got.y, got.z, got.w, (int)got.f, e.width, e.height, e.depth, fl);
	R("arraygetplane", cudaArrayGetPlane(&pl, A, 0));
	R("arraygetmemoryrequirements", cudaArrayGetMemoryRequirements(&mr, A, 0));
	R("arraygetsparseproperties", cudaArrayGetSparseProperties(&sp, A));
	R("memcpy2dtoarray", cudaMemcpy2DToArray(A, 8, 1, a, 64, 32, 6, cudaMemcpyHostToDevice));
	R("memcpy2dtoarrayasync", cudaMemcpy2DToArrayAsync(B, 0, 0, a, 64, 64, 8,
							    cudaMemcpyDefault, st));
	R("memcpy2dtoarray.sync", cudaStreamSynchronize(st));
	R("memcpy2darraytoarray", cudaMemcpy2DArrayToArray(A, 0, 0, B, 0, 0, 8, 1,
							   cudaMemcpyDeviceToDevice));
	memset(b, 0, N);
	R("memcpy2dfromarray", cudaMemcpy2DFromArray(b, 64, A, 0, 0, 64, 8,
						     cudaMemcpyDeviceToHost));
	{
		int ok = !memcmp(b, a, 8);

		for (int y = 1; y < 7; y++)
			ok &= !memcmp(b + y * 64 + 8, a + (y - 1) * 64, 32);
		say("memcpy2dfromarray.data", ok ? "ok" : "mismatch");
	}
	memset(c, 0, N);
	R("memcpy2dfromarrayasync", cudaMemcpy2DFromArrayAsync(c, 64, B, 0, 0, 64, 8,
							       cudaMemcpyDefault, st));
	R("memcpy2dfromarrayasync.sync", cudaStreamSynchronize(st));
	check("memcpy2dfromarrayasync.data", c, a, 512);
	R("memcpy2dtoarray.oob", cudaMemcpy2DToArray(A, 40, 0, a, 64, 32, 1,
						     cudaMemcpyHostToDevice));
	R("memcpy2darraytoarray.kind", cudaMemcpy2DArrayToArray(A, 0, 0, B, 0, 0, 8, 1,
								cudaMemcpyHostToDevice));
	/* 3D with a layered array: layer 1 */
	memset(&p, 0, sizeof(p));
	p.srcPtr = make_cudaPitchedPtr(a, 64, 16, 8);
	p.dstArray = C;
	p.dstPos = make_cudaPos(0, 0, 1);
	p.extent = make_cudaExtent(16, 8, 1);
	p.kind = cudaMemcpyHostToDevice;
	R("memcpy3d.toarray", cudaMemcpy3D(&p));
	memset(&p, 0, sizeof(p));
	p.srcArray = C;
	p.srcPos = make_cudaPos(0, 0, 1);
	p.dstPtr = make_cudaPitchedPtr(b, 64, 16, 8);
	p.extent = make_cudaExtent(16, 8, 1);
	p.kind = cudaMemcpyDeviceToHost;
	memset(b, 0, N);
	R("memcpy3d.fromarray", cudaMemcpy3D(&p));
	check("memcpy3d.array.data", b, a, 512);
	R("mallocmipmappedarray", cudaMallocMipmappedArray(&mm, &d4, make_cudaExtent(16, 8, 0),
							   10, 0));
	R("getmipmappedarraylevel", cudaGetMipmappedArrayLevel(&lv, mm, 4));
	R("getmipmappedarraylevel.5", cudaGetMipmappedArrayLevel(&lv, mm, 5));
	R("mipmapped.level.info", cudaArrayGetInfo(NULL, &e, NULL, lv));
	printf("mipmapped.level.extent = %zu,%zu,%zu\n", e.width, e.height, e.depth);
	R("mipmappedarraygetmemoryrequirements",
	  cudaMipmappedArrayGetMemoryRequirements(&mr, mm, 0));
	R("mipmappedarraygetsparseproperties", cudaMipmappedArrayGetSparseProperties(&sp, mm));
	R("freemipmappedarray", cudaFreeMipmappedArray(mm));
	R("freearray", cudaFreeArray(A));
	R("freearray.b", cudaFreeArray(B));
	R("freearray.c", cudaFreeArray(C));
	R("freearray.null", cudaFreeArray(NULL));
	R("array.streamdestroy", cudaStreamDestroy(st));
}

static void s_symbols(void)
{
	void *p = NULL;
	size_t n = 0;
	cudaStream_t st;

	R("symbol.stream", cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
	R("getsymboladdress", cudaGetSymbolAddress(&p, &not_a_symbol));
	R("getsymbolsize", cudaGetSymbolSize(&n, &not_a_symbol));
	R("memcpytosymbol", cudaMemcpyToSymbol(&not_a_symbol, a, 4, 0, cudaMemcpyHostToDevice));
	R("memcpyfromsymbol", cudaMemcpyFromSymbol(b, &not_a_symbol, 4, 0,
						   cudaMemcpyDeviceToHost));
	R("memcpytosymbolasync", cudaMemcpyToSymbolAsync(&not_a_symbol, a, 4, 0,
							 cudaMemcpyHostToDevice, st));
	R("memcpyfromsymbolasync", cudaMemcpyFromSymbolAsync(b, &not_a_symbol, 4, 0,
							     cudaMemcpyDeviceToHost, st));
	R("symbol.streamdestroy", cudaStreamDestroy(st));
}

int main(void)
{
	struct cudaExtent e = make_cudaExtent(1, 2, 3);
	struct cudaPos q = make_cudaPos(4, 5, 6);
	struct cudaPitchedPtr pp = make_cudaPitchedPtr(a, 7, 8, 9);

	printf("make = %zu,%zu,%zu %zu,%zu,%zu %zu,%zu,%zu,%s\n", e.width, e.height, e.depth,
	       q.x, q.y, q.z, pp.pitch, pp.xsize, pp.ysize, pp.ptr == a ? "ptr" : "?");
	R("setdevice", cudaSetDevice(0));
	s_alloc();
	s_copy();
	s_managed();
	s_arrays();
	s_symbols();
	R("devicesynchronize", cudaDeviceSynchronize());
	R("lasterror", cudaGetLastError());
	return 0;
}
