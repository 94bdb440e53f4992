// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libuvm_pitched - pitched memory, 2D and 3D copies and sets, peer and
 * batch copies through libuvm: cuMemAllocPitch, cuMemcpy2D/3D(Async),
 * cuMemcpy(3D)Peer(Async), cuMemsetD2D*, cuMemcpy(3D)BatchAsync, and the
 * runtime's cudaMallocPitch, cudaMalloc3D, cudaMemcpy2D/3D(Async),
 * cudaMemcpy(3D)Peer(Async), cudaMemset2D/3D(Async),
 * cudaMemcpy(3D)BatchAsync, on the driver's COPY_3D, MEMSET_3D and
 * COPY_BATCH ioctls.
 *
 * Copies: a box at a position of one layout copied to a position of another
 * between every pair of memory kinds (pageable, page-locked and registered
 * host, device memory of either GPU, managed, VMM), byte-exact, with the
 * bytes between rows and around the box unchanged; 3D boxes with slices;
 * stream order with events; the errors.  Sets: 8-, 16- and 32-bit, 2D and
 * 3D, the pitch's padding untouched.
 *
 * Each test runs in its own process (the harness forks).  Module
 * parameters: the defaults (2 GPUs, 256 MiB of vidmem each).
 */
#include "kselftest_harness.h"

#include "libuvm_test.h"

#include <cuda_runtime_api.h>
#include <driver_functions.h>

/* Kinds of memory a side of a copy can be. */
enum kind {
	K_PAGEABLE,	/* malloc */
	K_PINNED,	/* cuMemAllocHost */
	K_REGISTERED,	/* malloc + cuMemHostRegister */
	K_DEV0,		/* cuMemAlloc on device 0 */
	K_DEV1,		/* cuMemAlloc on device 1 (a peer of the copying device 0) */
	K_MANAGED,	/* cuMemAllocManaged */
	K_VMM,		/* cuMemCreate + cuMemMap on device 0 */
	K_COUNT
};

static const char *const kind_names[K_COUNT] = {
	"pageable", "pinned", "registered", "device0", "device1", "managed", "vmm",
};

/* A buffer of one kind: where it is and how to read and write it whole. */
struct buf {
	enum kind kind;
	size_t len;
	void *host;		/* host kinds and managed: the CPU's pointer */
	CUdeviceptr dev;	/* the address copies use */
	CUmemGenericAllocationHandle h;	/* K_VMM */
	size_t vmm_size;
};

static CUresult buf_alloc(struct buf *b, enum kind kind, size_t len, CUcontext ctx0,
			  CUcontext ctx1)
{
	CUresult r = CUDA_SUCCESS;

	memset(b, 0, sizeof(*b));
	b->kind = kind;
	b->len = len;
	switch (kind) {
	case K_PAGEABLE:
	case K_REGISTERED:
		b->host = malloc(len);
		if (!b->host)
			return CUDA_ERROR_OUT_OF_MEMORY;
		if (kind == K_REGISTERED)
			r = cuMemHostRegister(b->host, len, 0);
		b->dev = (uintptr_t)b->host;
		return r;
	case K_PINNED:
		r = cuMemAllocHost(&b->host, len);
		b->dev = (uintptr_t)b->host;
		return r;
	case K_DEV0:
	case K_DEV1:
		cuCtxSetCurrent(kind == K_DEV1 ? ctx1 : ctx0);
		r = cuMemAlloc(&b->dev, len);
		cuCtxSetCurrent(ctx0);
		return r;
	case K_MANAGED:
		r = cuMemAllocManaged(&b->dev, len, CU_MEM_ATTACH_GLOBAL);
		b->host = (void *)(uintptr_t)b->dev;
		return r;
	case K_VMM: {
		CUmemAllocationProp p;
		CUmemAccessDesc a;

		memset(&p, 0, sizeof(p));
		memset(&a, 0, sizeof(a));
		p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
		p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
		p.location.id = 0;
		b->vmm_size = (len + 2 * MIB - 1) & ~(2 * MIB - 1);
		a.location = p.location;
		a.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
		if ((r = cuMemAddressReserve(&b->dev, b->vmm_size, 0, 0, 0)) ||
		    (r = cuMemCreate(&b->h, b->vmm_size, &p, 0)) ||
		    (r = cuMemMap(b->dev, b->vmm_size, 0, b->h, 0)))
			return r;
		return cuMemSetAccess(b->dev, b->vmm_size, &a, 1);
	}
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
}

static void buf_free(struct buf *b)
{
	switch (b->kind) {
	case K_PAGEABLE:
		free(b->host);
		break;
	case K_REGISTERED:
		cuMemHostUnregister(b->host);
		free(b->host);
		break;
	case K_PINNED:
		cuMemFreeHost(b->host);
		break;
	case K_VMM:
		cuMemUnmap(b->dev, b->vmm_size);
		cuMemRelease(b->h);
		cuMemAddressFree(b->dev, b->vmm_size);
		break;
	default:
		cuMemFree(b->dev);
		break;
	}
}

/* Write the whole buffer (a 1D copy for GPU memory). */
static CUresult buf_store(struct buf *b, const void *data)
{
	if (b->host) {
		memcpy(b->host, data, b->len);
		return CUDA_SUCCESS;
	}
	return cuMemcpyHtoD(b->dev, data, b->len);
}

static CUresult buf_load(struct buf *b, void *out)
{
	if (b->host) {
		memcpy(out, b->host, b->len);
		return CUDA_SUCCESS;
	}
	return cuMemcpyDtoH(out, b->dev, b->len);
}

static CUmemorytype memtype(enum kind k, int unified)
{
	if (unified)
		return CU_MEMORYTYPE_UNIFIED;
	return k == K_PAGEABLE || k == K_PINNED || k == K_REGISTERED ? CU_MEMORYTYPE_HOST :
								       CU_MEMORYTYPE_DEVICE;
}

/* Apply a box copy to host images: the expected destination. */
static void box_apply(uint8_t *dst, size_t dpitch, size_t dheight, size_t dx, size_t dy,
		      size_t dz, const uint8_t *src, size_t spitch, size_t sheight, size_t sx,
		      size_t sy, size_t sz, size_t w, size_t h, size_t d)
{
	for (size_t z = 0; z < d; z++)
		for (size_t y = 0; y < h; y++)
			memcpy(dst + ((dz + z) * dheight + dy + y) * dpitch + dx,
			       src + ((sz + z) * sheight + sy + y) * spitch + sx, w);
}

FIXTURE(pitched) {
	struct lib l;
	CUcontext ctx1;
};

FIXTURE_SETUP(pitched)
{
	ASSERT_EQ(CUDA_SUCCESS, lib_init(&self->l));
	ASSERT_LE(2, self->l.ndev);
	ASSERT_EQ(CUDA_SUCCESS, cuDevicePrimaryCtxRetain(&self->ctx1, 1));
	ASSERT_EQ(CUDA_SUCCESS, cuCtxSetCurrent(self->l.ctx));
}

FIXTURE_TEARDOWN(pitched)
{
}

/* cuMemAllocPitch: rows rounded up to 512 bytes, base aligned, the errors */
TEST_F(pitched, alloc_pitch)
{
	static const size_t widths[] = { 1, 7, 100, 511, 512, 513, 1000, 4096, 65536 };
	CUdeviceptr d, base;
	size_t pitch, size;

	for (size_t i = 0; i < sizeof(widths) / sizeof(widths[0]); i++) {
		pitch = 0;
		ASSERT_EQ(CUDA_SUCCESS, cuMemAllocPitch(&d, &pitch, widths[i], 3, 4));
		ASSERT_EQ((widths[i] + 511) / 512 * 512, pitch);
		ASSERT_EQ(0ULL, d % 512);
		ASSERT_EQ(CUDA_SUCCESS, cuMemGetAddressRange(&base, &size, d));
		ASSERT_EQ(d, base);
		ASSERT_LE(pitch * 3, size);
		ASSERT_EQ(CU_MEMORYTYPE_DEVICE, ptr_attr(CU_POINTER_ATTRIBUTE_MEMORY_TYPE, d));
		ASSERT_EQ(CUDA_SUCCESS, cuMemFree(d));
	}
	ASSERT_EQ(CUDA_SUCCESS, cuMemAllocPitch(&d, &pitch, 100, 3, 16));
	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(d));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemAllocPitch(&d, &pitch, 100, 3, 3));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemAllocPitch(&d, &pitch, 100, 3, 32));
	pitch = 5;
	d = 5;
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemAllocPitch(&d, &pitch, 0, 3, 4));
	ASSERT_EQ(0U, pitch);
	ASSERT_EQ(0ULL, d);
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemAllocPitch(&d, &pitch, 100, 0, 4));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemAllocPitch(NULL, &pitch, 100, 3, 4));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemAllocPitch(&d, NULL, 100, 3, 4));
	ASSERT_EQ(CUDA_ERROR_OUT_OF_MEMORY, cuMemAllocPitch(&d, &pitch, 1ULL << 40, 1024, 4));
	ASSERT_EQ(1ULL << 40, pitch);
}

/* cudaMallocPitch and cudaMalloc3D: the same pitches; zero sizes give NULL */
TEST_F(pitched, runtime_alloc)
{
	struct cudaPitchedPtr pp;
	void *p = (void *)1;
	size_t pitch = 1;

	ASSERT_EQ(cudaSuccess, cudaMallocPitch(&p, &pitch, 700, 9));
	ASSERT_EQ(1024U, pitch);
	ASSERT_EQ(0U, (uintptr_t)p % 512);
	ASSERT_EQ(cudaSuccess, cudaFree(p));
	ASSERT_EQ(cudaSuccess, cudaMallocPitch(&p, &pitch, 0, 9));
	ASSERT_EQ(NULL, p);
	ASSERT_EQ(cudaErrorInvalidValue, cudaMallocPitch(NULL, &pitch, 1, 1));
	ASSERT_EQ(cudaErrorInvalidValue, cudaGetLastError());
	ASSERT_EQ(cudaSuccess, cudaMalloc3D(&pp, make_cudaExtent(100, 20, 30)));
	ASSERT_EQ(512U, pp.pitch);
	ASSERT_EQ(100U, pp.xsize);
	ASSERT_EQ(20U, pp.ysize);
	ASSERT_NE(NULL, pp.ptr);
	/* every slice is usable: a set of the whole volume */
	ASSERT_EQ(cudaSuccess, cudaMemset3D(pp, 0x5a, make_cudaExtent(100, 20, 30)));
	ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
	ASSERT_EQ(1, device_bytes_are((uintptr_t)pp.ptr + 29 * 20 * 512 + 19 * 512, 0x5a, 100));
	ASSERT_EQ(cudaSuccess, cudaFree(pp.ptr));
	ASSERT_EQ(cudaErrorInvalidValue, cudaMalloc3D(NULL, make_cudaExtent(1, 1, 1)));
}

/* Copy a 2D box between two kinds with cuMemcpy2D and check both buffers whole. */
static void copy2d_pair(struct __test_metadata *_metadata, FIXTURE_DATA(pitched) *self,
			enum kind dk, enum kind sk, int unified, int async)
{
	const size_t spitch = 3000, dpitch = 4352, w = 1234, h = 300;
	const size_t slen = spitch * 320, dlen = dpitch * 310;
	uint8_t *sdata = malloc(slen), *want = malloc(dlen), *out = malloc(dlen);
	struct buf s, d;
	CUDA_MEMCPY2D c;

	ASSERT_NE(NULL, sdata);
	ASSERT_NE(NULL, want);
	ASSERT_NE(NULL, out);
	ASSERT_EQ(CUDA_SUCCESS, buf_alloc(&s, sk, slen, self->l.ctx, self->ctx1)) {
		TH_LOG("%s source", kind_names[sk]);
	}
	ASSERT_EQ(CUDA_SUCCESS, buf_alloc(&d, dk, dlen, self->l.ctx, self->ctx1)) {
		TH_LOG("%s destination", kind_names[dk]);
	}
	uvm_fill(sdata, slen, 0x200 + sk);
	uvm_fill(want, dlen, 0x300 + dk);
	ASSERT_EQ(CUDA_SUCCESS, buf_store(&s, sdata));
	ASSERT_EQ(CUDA_SUCCESS, buf_store(&d, want));

	memset(&c, 0, sizeof(c));
	c.srcXInBytes = 17;
	c.srcY = 11;
	c.srcMemoryType = memtype(sk, unified);
	c.srcHost = s.host;
	c.srcDevice = s.dev;
	c.srcPitch = spitch;
	c.dstXInBytes = 3000;
	c.dstY = 7;
	c.dstMemoryType = memtype(dk, unified);
	c.dstHost = d.host ? d.host : (void *)(uintptr_t)d.dev;
	c.dstDevice = d.dev;
	c.dstPitch = dpitch;
	c.WidthInBytes = w;
	c.Height = h;
	if (async) {
		ASSERT_EQ(CUDA_SUCCESS, cuMemcpy2DAsync(&c, self->l.s));
		ASSERT_EQ(CUDA_SUCCESS, cuStreamSynchronize(self->l.s));
	} else {
		ASSERT_EQ(CUDA_SUCCESS, cuMemcpy2D(&c)) {
			TH_LOG("%s <- %s", kind_names[dk], kind_names[sk]);
		}
		ASSERT_EQ(CUDA_SUCCESS, cuCtxSynchronize());
	}
	box_apply(want, dpitch, 0, 3000, 7, 0, sdata, spitch, 0, 17, 11, 0, w, h, 1);
	ASSERT_EQ(CUDA_SUCCESS, buf_load(&d, out));
	ASSERT_EQ(0, memcmp(out, want, dlen)) {
		TH_LOG("%s <- %s: destination differs", kind_names[dk], kind_names[sk]);
	}
	ASSERT_EQ(CUDA_SUCCESS, buf_load(&s, out));
	ASSERT_EQ(0, memcmp(out, sdata, slen));
	buf_free(&s);
	buf_free(&d);
	free(sdata);
	free(want);
	free(out);
}

/* cuMemcpy2D between every pair of kinds (HOST/DEVICE memory types), byte-exact */
TEST_F_TIMEOUT(pitched, copy2d_every_kind, 600)
{
	for (int dk = 0; dk < K_COUNT; dk++)
		for (int sk = 0; sk < K_COUNT; sk++)
			copy2d_pair(_metadata, self, (enum kind)dk, (enum kind)sk, 0, 0);
}

/* The same with CU_MEMORYTYPE_UNIFIED sides and cuMemcpy2DAsync */
TEST_F_TIMEOUT(pitched, copy2d_unified_async, 300)
{
	static const enum kind pairs[][2] = {
		{ K_DEV0, K_PAGEABLE }, { K_PAGEABLE, K_MANAGED }, { K_MANAGED, K_DEV1 },
		{ K_VMM, K_PINNED }, { K_DEV1, K_VMM },
	};

	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
		copy2d_pair(_metadata, self, pairs[i][0], pairs[i][1], 1, 1);
}

/* cuMemcpy3D: a box of slices at (x, y, z) of one volume into another */
TEST_F_TIMEOUT(pitched, copy3d, 300)
{
	static const enum kind pairs[][2] = {
		{ K_DEV0, K_PAGEABLE }, { K_PINNED, K_DEV1 }, { K_MANAGED, K_DEV0 },
		{ K_DEV0, K_VMM },
	};
	const size_t sp = 600, sh = 40, dp = 1024, dh = 33, w = 333, h = 30, dd = 9;
	const size_t slen = sp * sh * 12, dlen = dp * dh * 11;

	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		uint8_t *sdata = malloc(slen), *want = malloc(dlen), *out = malloc(dlen);
		enum kind dk = pairs[i][0], sk = pairs[i][1];
		struct buf s, d;
		CUDA_MEMCPY3D c;

		ASSERT_NE(NULL, out);
		ASSERT_EQ(CUDA_SUCCESS, buf_alloc(&s, sk, slen, self->l.ctx, self->ctx1));
		ASSERT_EQ(CUDA_SUCCESS, buf_alloc(&d, dk, dlen, self->l.ctx, self->ctx1));
		uvm_fill(sdata, slen, 0x400 + i);
		uvm_fill(want, dlen, 0x500 + i);
		ASSERT_EQ(CUDA_SUCCESS, buf_store(&s, sdata));
		ASSERT_EQ(CUDA_SUCCESS, buf_store(&d, want));
		memset(&c, 0, sizeof(c));
		c.srcXInBytes = 200;
		c.srcY = 9;
		c.srcZ = 2;
		c.srcMemoryType = CU_MEMORYTYPE_UNIFIED;
		c.srcDevice = s.dev;
		c.srcPitch = sp;
		c.srcHeight = sh;
		c.dstXInBytes = 650;
		c.dstY = 2;
		c.dstZ = 1;
		c.dstMemoryType = CU_MEMORYTYPE_UNIFIED;
		c.dstDevice = d.dev;
		c.dstPitch = dp;
		c.dstHeight = dh;
		c.WidthInBytes = w;
		c.Height = h;
		c.Depth = dd;
		ASSERT_EQ(CUDA_SUCCESS, cuMemcpy3D(&c));
		ASSERT_EQ(CUDA_SUCCESS, cuCtxSynchronize());
		box_apply(want, dp, dh, 650, 2, 1, sdata, sp, sh, 200, 9, 2, w, h, dd);
		ASSERT_EQ(CUDA_SUCCESS, buf_load(&d, out));
		ASSERT_EQ(0, memcmp(out, want, dlen)) {
			TH_LOG("%s <- %s", kind_names[dk], kind_names[sk]);
		}
		buf_free(&s);
		buf_free(&d);
		free(sdata);
		free(want);
		free(out);
	}
}

/* The runtime's forms: cudaMemcpy2D in each kind, cudaMemcpy3D with make_cuda*() */
TEST_F_TIMEOUT(pitched, runtime_copies, 300)
{
	const size_t w = 100, h = 50;
	uint8_t *hs = malloc(w * h), *hd = malloc(200 * h);
	struct cudaMemcpy3DParms p;
	size_t pitch;
	void *d, *d2;

	ASSERT_NE(NULL, hd);
	uvm_fill(hs, w * h, 0x61);
	ASSERT_EQ(cudaSuccess, cudaMallocPitch(&d, &pitch, w, h));
	ASSERT_EQ(cudaSuccess, cudaMallocPitch(&d2, &pitch, w, h));
	ASSERT_EQ(cudaSuccess, cudaMemcpy2D(d, pitch, hs, w, w, h, cudaMemcpyHostToDevice));
	ASSERT_EQ(cudaSuccess, cudaMemcpy2D(d2, pitch, d, pitch, w, h, cudaMemcpyDeviceToDevice));
	memset(hd, 0xee, 200 * h);
	ASSERT_EQ(cudaSuccess, cudaMemcpy2D(hd, 200, d2, pitch, w, h, cudaMemcpyDefault));
	for (size_t y = 0; y < h; y++) {
		ASSERT_EQ(0, memcmp(hd + y * 200, hs + y * w, w));
		ASSERT_EQ(1, bytes_are(hd + y * 200 + w, 0xee, 100));
	}
	/* the padding of the pitched rows kept what the set put there */
	ASSERT_EQ(cudaSuccess, cudaMemset2D(d2, pitch, 0x11, pitch, h));
	ASSERT_EQ(cudaSuccess, cudaMemcpy2D(d2, pitch, hs, w, w, h, cudaMemcpyHostToDevice));
	ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
	ASSERT_EQ(1, device_bytes_are((uintptr_t)d2 + 7 * pitch + w, 0x11, pitch - w));
	/* cudaMemcpy3D from a pitched volume of one slice to a host volume */
	memset(&p, 0, sizeof(p));
	p.srcPtr = make_cudaPitchedPtr(d, pitch, w, h);
	p.srcPos = make_cudaPos(10, 5, 0);
	p.dstPtr = make_cudaPitchedPtr(hd, 200, 200, h);
	p.dstPos = make_cudaPos(50, 1, 0);
	p.extent = make_cudaExtent(40, 20, 1);
	p.kind = cudaMemcpyDeviceToHost;
	memset(hd, 0xee, 200 * h);
	ASSERT_EQ(cudaSuccess, cudaMemcpy3D(&p));
	for (size_t y = 0; y < 20; y++)
		ASSERT_EQ(0, memcmp(hd + (1 + y) * 200 + 50, hs + (5 + y) * w + 10, 40));
	ASSERT_EQ(1, bytes_are(hd, 0xee, 200));
	/* errors */
	ASSERT_EQ(cudaErrorInvalidPitchValue,
		  cudaMemcpy2D(d, pitch, hs, w - 1, w, h, cudaMemcpyHostToDevice));
	ASSERT_EQ(cudaErrorInvalidPitchValue, cudaGetLastError());
	ASSERT_EQ(cudaErrorInvalidPitchValue,
		  cudaMemcpy2D(d, w - 1, hs, w, w, h, cudaMemcpyHostToDevice));
	ASSERT_EQ(cudaErrorInvalidMemcpyDirection,
		  cudaMemcpy2D(d, pitch, hs, w, w, h, (enum cudaMemcpyKind)7));
	ASSERT_EQ(cudaSuccess, cudaMemcpy2D(d, pitch, hs, w, 0, h, cudaMemcpyHostToDevice));
	ASSERT_EQ(cudaErrorInvalidValue, cudaMemcpy3D(NULL));
	p.srcArray = (cudaArray_t)hs;
	ASSERT_EQ(cudaErrorInvalidValue, cudaMemcpy3D(&p));
	/* past the end of the pitched allocation */
	ASSERT_EQ(cudaErrorInvalidValue,
		  cudaMemcpy2D(d, pitch, hs, w, w, h + 1, cudaMemcpyHostToDevice));
	ASSERT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
	ASSERT_EQ(cudaSuccess, cudaFree(d));
	ASSERT_EQ(cudaSuccess, cudaFree(d2));
	free(hs);
	free(hd);
}

/* cuMemsetD2D8/16/32 and cudaMemset2D/3D: the rows set, the padding untouched */
TEST_F(pitched, sets)
{
	const size_t pitch = 1024, h = 40;
	uint8_t *out = malloc(pitch * h);
	CUdeviceptr d;

	ASSERT_EQ(CUDA_SUCCESS, cuMemAlloc(&d, pitch * h));
	ASSERT_EQ(CUDA_SUCCESS, cuMemsetD8(d, 0x77, pitch * h));
	ASSERT_EQ(CUDA_SUCCESS, cuMemsetD2D8(d + 3, pitch, 0xa1, 500, h));
	ASSERT_EQ(CUDA_SUCCESS, cuMemsetD2D16(d + 600, pitch, 0xb2c3, 100, h / 2));
	ASSERT_EQ(CUDA_SUCCESS, cuMemsetD2D32Async(d + pitch * (h / 2) + 800, pitch, 0xd4e5f607,
						   50, h / 2, self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamSynchronize(self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyDtoH(out, d, pitch * h));
	for (size_t y = 0; y < h; y++) {
		uint8_t *row = out + y * pitch;

		ASSERT_EQ(1, bytes_are(row, 0x77, 3));
		ASSERT_EQ(1, bytes_are(row + 3, 0xa1, 500));
		ASSERT_EQ(1, bytes_are(row + 503, 0x77, 97));
		for (size_t i = 0; i < 100; i++) {
			ASSERT_EQ(y < h / 2 ? 0xc3 : 0x77, row[600 + 2 * i]);
			ASSERT_EQ(y < h / 2 ? 0xb2 : 0x77, row[601 + 2 * i]);
		}
		for (size_t i = 0; i < 200; i++) {
			static const uint8_t le[4] = { 0x07, 0xf6, 0xe5, 0xd4 };

			ASSERT_EQ(y >= h / 2 ? le[i % 4] : 0x77, row[800 + i]);
		}
		ASSERT_EQ(0x77, row[1000]);
	}
	/* misaligned 16/32-bit sets, a pitch below the row */
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemsetD2D16(d + 1, pitch, 1, 4, 2));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemsetD2D16(d, 1001, 1, 4, 2));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemsetD2D32(d + 2, pitch, 1, 4, 2));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemsetD2D32(d, 100, 1, 26, 2));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemsetD2D8(d, pitch, 1, pitch, h + 1));
	ASSERT_EQ(CUDA_SUCCESS, cuMemsetD2D8(d, pitch, 1, 0, h));
	ASSERT_EQ(cudaErrorInvalidValue, cudaMemset2D((void *)d, 10, 1, 11, 2));
	ASSERT_EQ(cudaErrorInvalidValue,
		  cudaMemset3D(make_cudaPitchedPtr((void *)d, 256, 200, 5), 1,
			       make_cudaExtent(100, 6, 1)));
	/* cudaMemset3D over slices of a volume, async on a stream */
	ASSERT_EQ(cudaSuccess, cudaMemset3DAsync(make_cudaPitchedPtr((void *)d, 256, 200, 10), 0x3c,
						 make_cudaExtent(100, 10, 16),
						 (cudaStream_t)self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamSynchronize(self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyDtoH(out, d, pitch * h));
	for (size_t r = 0; r < 160; r++) {
		ASSERT_EQ(1, bytes_are(out + r * 256, 0x3c, 100));
		ASSERT_NE(0x3c, out[r * 256 + 100]);
	}
	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(d));
	free(out);
}

/* Stream order: a set, a 2D copy and a 1D copy back on one stream, and an event */
TEST_F(pitched, stream_order)
{
	const size_t pitch = 512, h = 64;
	uint8_t *host, *out = malloc(pitch * h);
	CUdeviceptr a, b;
	CUevent ev;
	CUDA_MEMCPY2D c;

	ASSERT_EQ(CUDA_SUCCESS, cuMemAllocHost((void **)&host, pitch * h));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAlloc(&a, pitch * h));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAlloc(&b, pitch * h));
	ASSERT_EQ(CUDA_SUCCESS, cuEventCreate(&ev, 0));
	for (int round = 0; round < 4; round++) {
		ASSERT_EQ(CUDA_SUCCESS, cuMemsetD2D8Async(a, pitch, 0x10 + round, 300, h, self->l.s));
		memset(&c, 0, sizeof(c));
		c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
		c.srcDevice = a;
		c.srcPitch = pitch;
		c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
		c.dstDevice = b;
		c.dstPitch = pitch;
		c.WidthInBytes = 300;
		c.Height = h;
		ASSERT_EQ(CUDA_SUCCESS, cuMemcpy2DAsync(&c, self->l.s));
		ASSERT_EQ(CUDA_SUCCESS, cuMemcpyDtoHAsync(host, b, pitch * h, self->l.s));
		ASSERT_EQ(CUDA_SUCCESS, cuEventRecord(ev, self->l.s));
		ASSERT_EQ(CUDA_SUCCESS, cuEventSynchronize(ev));
		for (size_t y = 0; y < h; y++)
			ASSERT_EQ(1, bytes_are(host + y * pitch, 0x10 + round, 300));
	}
	ASSERT_EQ(CUDA_SUCCESS, cuEventDestroy(ev));
	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(a));
	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(b));
	ASSERT_EQ(CUDA_SUCCESS, cuMemFreeHost(host));
	free(out);
}

/* Peer copies between the two GPUs' memory, driver and runtime forms */
TEST_F(pitched, peer)
{
	const size_t n = 3 * MIB + 5;
	uint8_t *src = malloc(n), *out = malloc(n);
	struct cudaMemcpy3DPeerParms p;
	CUDA_MEMCPY3D_PEER c;
	CUdeviceptr d0, d1;

	ASSERT_NE(NULL, out);
	uvm_fill(src, n, 0x7e);
	ASSERT_EQ(CUDA_SUCCESS, cuMemAlloc(&d0, n));
	ASSERT_EQ(CUDA_SUCCESS, cuCtxSetCurrent(self->ctx1));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAlloc(&d1, n));
	ASSERT_EQ(CUDA_SUCCESS, cuCtxSetCurrent(self->l.ctx));
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyHtoD(d0, src, n));
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyPeer(d1, self->ctx1, d0, self->l.ctx, n));
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyDtoH(out, d1, n));
	ASSERT_EQ(0, memcmp(out, src, n));
	ASSERT_EQ(1ULL, ptr_attr(CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, d1));
	/* back, asynchronously, into the middle */
	ASSERT_EQ(CUDA_SUCCESS, cuMemsetD8(d0, 0, n));
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyPeerAsync(d0 + 100, self->l.ctx, d1 + 100, self->ctx1,
						  4096, self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamSynchronize(self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyDtoH(out, d0, n));
	ASSERT_EQ(1, bytes_are(out, 0, 100));
	ASSERT_EQ(0, memcmp(out + 100, src + 100, 4096));
	ASSERT_EQ(1, bytes_are(out + 4196, 0, 1000));
	/* NULL contexts are accepted, as NVIDIA's driver does; contexts that are not are refused */
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyPeer(d0 + n - 16, NULL, d1 + n - 16, NULL, 16));
	ASSERT_EQ(CUDA_ERROR_INVALID_CONTEXT,
		  cuMemcpyPeer(d1, (CUcontext)(uintptr_t)src, d0, self->l.ctx, 16));
	/* 3D peer: a 2D box of rows */
	memset(&c, 0, sizeof(c));
	c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
	c.srcDevice = d1;
	c.srcContext = self->ctx1;
	c.srcPitch = 1000;
	c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
	c.dstDevice = d0;
	c.dstContext = self->l.ctx;
	c.dstPitch = 2000;
	c.WidthInBytes = 1000;
	c.Height = 100;
	c.Depth = 1;
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpy3DPeer(&c));
	ASSERT_EQ(CUDA_SUCCESS, cuCtxSynchronize());
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyDtoH(out, d0, 200000));
	for (size_t y = 0; y < 100; y++) {
		ASSERT_EQ(0, memcmp(out + y * 2000, src + y * 1000, 1000)) {
			TH_LOG("row %zu: %02x %02x %02x vs %02x %02x %02x", y, out[y * 2000],
			       out[y * 2000 + 1], out[y * 2000 + 2], src[y * 1000],
			       src[y * 1000 + 1], src[y * 1000 + 2]);
		}
	}
	/* the runtime's: devices by ordinal */
	ASSERT_EQ(cudaSuccess, cudaMemset((void *)d1, 0, n));
	ASSERT_EQ(cudaSuccess, cudaMemcpyPeer((void *)d1, 1, (void *)d0, 0, 4096));
	ASSERT_EQ(cudaSuccess, cudaMemcpyPeerAsync((void *)(d1 + 8192), 1, (void *)d0, 0, 4096,
						   (cudaStream_t)self->l.s));
	ASSERT_EQ(cudaSuccess, cudaStreamSynchronize((cudaStream_t)self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyDtoH(out, d1, 3 * 4096));
	ASSERT_EQ(0, memcmp(out, out + 8192, 4096));
	ASSERT_EQ(1, bytes_are(out + 4096, 0, 4096));
	ASSERT_EQ(cudaErrorInvalidDevice, cudaMemcpyPeer((void *)d1, 2, (void *)d0, 0, 16));
	ASSERT_EQ(cudaErrorInvalidDevice, cudaMemcpyPeer((void *)d1, 1, (void *)d0, -1, 16));
	memset(&p, 0, sizeof(p));
	p.srcPtr = make_cudaPitchedPtr((void *)d0, 4096, 4096, 1);
	p.dstPtr = make_cudaPitchedPtr((void *)d1, 4096, 4096, 1);
	p.srcDevice = 0;
	p.dstDevice = 1;
	p.extent = make_cudaExtent(4096, 1, 1);
	ASSERT_EQ(cudaSuccess, cudaMemcpy3DPeer(&p));
	p.dstDevice = 7;
	ASSERT_EQ(cudaErrorInvalidDevice, cudaMemcpy3DPeer(&p));
	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(d0));
	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(d1));
	free(src);
	free(out);
}

/* cuMemcpy2D/3D refusals: every code before anything is copied */
/* Peer access between the two GPUs: possible both ways, not to oneself;
 * enabled once, disabled once, per context ("pitch.peer.*": NVIDIA's codes
 * for oneself); the attributes of a pair. */
TEST_F(pitched, peer_access)
{
	int v = -1;

	ASSERT_EQ(CUDA_SUCCESS, cuDeviceCanAccessPeer(&v, 0, 1));
	EXPECT_EQ(1, v);
	ASSERT_EQ(CUDA_SUCCESS, cuDeviceCanAccessPeer(&v, 1, 0));
	EXPECT_EQ(1, v);
	ASSERT_EQ(CUDA_SUCCESS, cuDeviceCanAccessPeer(&v, 0, 0));
	EXPECT_EQ(0, v);
	EXPECT_EQ(CUDA_ERROR_INVALID_DEVICE, cuDeviceCanAccessPeer(&v, 0, 2));
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, cuDeviceCanAccessPeer(NULL, 0, 1));
	ASSERT_EQ(cudaSuccess, cudaDeviceCanAccessPeer(&v, 1, 0));
	EXPECT_EQ(1, v);
	EXPECT_EQ(cudaErrorInvalidDevice, cudaDeviceCanAccessPeer(&v, -1, 0));

	/* the driver's: the current context reaches the peer context's GPU */
	EXPECT_EQ(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, cuCtxEnablePeerAccess(self->l.ctx, 0));
	EXPECT_EQ(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, cuCtxDisablePeerAccess(self->ctx1));
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, cuCtxEnablePeerAccess(self->ctx1, 1));
	EXPECT_EQ(CUDA_ERROR_INVALID_CONTEXT, cuCtxEnablePeerAccess(NULL, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuCtxEnablePeerAccess(self->ctx1, 0));
	EXPECT_EQ(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, cuCtxEnablePeerAccess(self->ctx1, 0));
	/* per context: GPU 1's context has not enabled GPU 0 */
	ASSERT_EQ(CUDA_SUCCESS, cuCtxSetCurrent(self->ctx1));
	EXPECT_EQ(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, cuCtxDisablePeerAccess(self->l.ctx));
	ASSERT_EQ(CUDA_SUCCESS, cuCtxSetCurrent(self->l.ctx));
	ASSERT_EQ(CUDA_SUCCESS, cuCtxDisablePeerAccess(self->ctx1));
	EXPECT_EQ(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, cuCtxDisablePeerAccess(self->ctx1));

	/* the runtime's, by device, on the current device's context */
	ASSERT_EQ(cudaSuccess, cudaSetDevice(0));
	EXPECT_EQ(cudaErrorPeerAccessUnsupported, cudaDeviceEnablePeerAccess(0, 0));
	EXPECT_EQ(cudaErrorPeerAccessUnsupported, cudaGetLastError());
	EXPECT_EQ(cudaErrorInvalidDevice, cudaDeviceEnablePeerAccess(2, 0));
	EXPECT_EQ(cudaErrorPeerAccessNotEnabled, cudaDeviceDisablePeerAccess(1));
	ASSERT_EQ(cudaSuccess, cudaDeviceEnablePeerAccess(1, 0));
	EXPECT_EQ(cudaErrorPeerAccessAlreadyEnabled, cudaDeviceEnablePeerAccess(1, 0));
	ASSERT_EQ(cudaSuccess, cudaDeviceDisablePeerAccess(1));
	cudaGetLastError();

	/* the attributes of a pair; none of a device with itself
	 * ("pitch.peer.p2pattr.0_0") */
	ASSERT_EQ(CUDA_SUCCESS, cuDeviceGetP2PAttribute(&v,
		  CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 0, 1));
	EXPECT_EQ(1, v);
	ASSERT_EQ(cudaSuccess, cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrCudaArrayAccessSupported,
							 1, 0));
	EXPECT_EQ(1, v);
	ASSERT_EQ(cudaSuccess, cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrNativeAtomicSupported,
							 1, 0));
	EXPECT_EQ(0, v);
	EXPECT_EQ(cudaErrorInvalidDevice, cudaDeviceGetP2PAttribute(&v,
		  cudaDevP2PAttrAccessSupported, 0, 0));
	EXPECT_EQ(cudaErrorInvalidValue, cudaDeviceGetP2PAttribute(&v,
		  (enum cudaDeviceP2PAttr)9, 0, 1));
	cudaGetLastError();
}

TEST_F(pitched, copy_errors)
{
	uint8_t host[4096];
	CUDA_MEMCPY2D c;
	CUDA_MEMCPY3D c3;
	CUdeviceptr d;

	ASSERT_EQ(CUDA_SUCCESS, cuMemAlloc(&d, 64 * 1024));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemcpy2D(NULL));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemcpy3D(NULL));
	memset(&c, 0, sizeof(c));
	c.srcMemoryType = CU_MEMORYTYPE_HOST;
	c.srcHost = host;
	c.srcPitch = 64;
	c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
	c.dstDevice = d;
	c.dstPitch = 128;
	c.WidthInBytes = 64;
	c.Height = 64;
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpy2D(&c));
	c.srcPitch = 63;
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemcpy2D(&c));
	c.srcPitch = 64;
	c.dstPitch = 32;
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemcpy2D(&c));
	c.dstPitch = 128;
	c.srcMemoryType = (CUmemorytype)0;
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemcpy2D(&c));
	c.srcMemoryType = (CUmemorytype)99;
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemcpy2D(&c));
	c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemcpy2D(&c));
	c.srcMemoryType = CU_MEMORYTYPE_HOST;
	/* past the end of the device allocation (64 rows of 128 reach 8 KiB) */
	c.dstY = 500;
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemcpy2D(&c));
	c.dstY = 0;
	/* a row reaching past its pitch */
	c.dstXInBytes = 65;
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemcpy2D(&c));
	c.dstXInBytes = 0;
	c.Height = 0;
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpy2D(&c));
	memset(&c3, 0, sizeof(c3));
	c3.srcMemoryType = CU_MEMORYTYPE_DEVICE;
	c3.srcDevice = d;
	c3.srcPitch = 256;
	c3.srcHeight = 4;
	c3.dstMemoryType = CU_MEMORYTYPE_DEVICE;
	c3.dstDevice = d + 32 * 1024;
	c3.dstPitch = 256;
	c3.dstHeight = 4;
	c3.WidthInBytes = 256;
	c3.Height = 4;
	c3.Depth = 8;
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpy3D(&c3));
	c3.srcHeight = 3;
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemcpy3D(&c3));
	c3.srcHeight = 4;
	/* the LOD of linear memory and the reserved fields are ignored
	 * ("pitch.err.cu3d.srclod1", "reserved0") */
	c3.srcLOD = 1;
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpy3D(&c3));
	c3.srcLOD = 0;
	c3.reserved0 = host;
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpy3D(&c3));
	c3.reserved0 = NULL;
	/* one slice: its rows in whole pitches must fit from the box's first
	 * byte ("pitch.err.cu3d.fits_lastrow"); cuMemcpy2D wants the rows only */
	{
		CUDA_MEMCPY3D one = c3;
		CUDA_MEMCPY2D two;

		one.Depth = 1;
		one.WidthInBytes = 128;
		one.dstXInBytes = 100;
		one.dstDevice = d + 64 * 1024 - 4 * 256;
		ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemcpy3D(&one));
		one.dstXInBytes = 0;
		ASSERT_EQ(CUDA_SUCCESS, cuMemcpy3D(&one));
		memset(&two, 0, sizeof(two));
		two.srcMemoryType = two.dstMemoryType = CU_MEMORYTYPE_DEVICE;
		two.srcDevice = d;
		two.srcPitch = two.dstPitch = 256;
		two.dstDevice = one.dstDevice;
		two.dstXInBytes = 100;
		two.WidthInBytes = 128;
		two.Height = 4;
		ASSERT_EQ(CUDA_SUCCESS, cuMemcpy2D(&two));
		/* a pitch past the maximum: one row may, two may not
		 * ("pitch_maxpitch1", "maxpitch1_rows2") */
		two.dstXInBytes = 0;
		two.srcPitch = 2147483648ULL;
		two.Height = 1;
		ASSERT_EQ(CUDA_SUCCESS, cuMemcpy2D(&two));
		two.Height = 2;
		ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemcpy2D(&two));
	}
	/* the last slice's rows fit, its whole height does not */
	c3.dstDevice = d + 64 * 1024 - 8 * 1024;
	c3.dstHeight = 5;
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemcpy3D(&c3));
	c3.dstHeight = 4;
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpy3D(&c3));
	/* overlapping boxes of one allocation copy as through a buffer */
	c3.dstDevice = d + 100;
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpy3D(&c3));
	ASSERT_EQ(CUDA_SUCCESS, cuCtxSynchronize());
	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(d));
}

/* Batch copies */

static uint64_t rnd(uint64_t *st)
{
	*st = *st * 6364136223846793005ULL + 1442695040888963407ULL;
	return *st >> 33;
}

static CUmemcpyAttributes attr_of(int order)
{
	CUmemcpyAttributes a;

	memset(&a, 0, sizeof(a));
	a.srcAccessOrder = (CUmemcpySrcAccessOrder)order;
	return a;
}

/*
 * 200 copies of 1 .. 3000 bytes at random places between two kinds in one
 * cuMemcpyBatchAsync, their destinations colliding (the later copy wins),
 * every access order: both buffers checked whole.
 */
static void batch_pair(struct __test_metadata *_metadata, FIXTURE_DATA(pitched) *self,
		       enum kind dk, enum kind sk)
{
	const size_t len = 256 * 1024, n = 200;
	uint8_t *sdata = malloc(len), *want = malloc(len), *out = malloc(len);
	CUdeviceptr *dsts = calloc(n, sizeof(*dsts)), *srcs = calloc(n, sizeof(*srcs));
	size_t *sizes = calloc(n, sizeof(*sizes)), idxs[3] = { 0, 50, 120 };
	CUmemcpyAttributes attrs[3] = { attr_of(1), attr_of(2), attr_of(3) };
	uint64_t st = 7 + dk * 10 + sk;
	struct buf s, d;

	ASSERT_NE(NULL, sdata);
	ASSERT_NE(NULL, want);
	ASSERT_NE(NULL, out);
	ASSERT_NE(NULL, dsts);
	ASSERT_NE(NULL, srcs);
	ASSERT_NE(NULL, sizes);
	ASSERT_EQ(CUDA_SUCCESS, buf_alloc(&s, sk, len, self->l.ctx, self->ctx1));
	ASSERT_EQ(CUDA_SUCCESS, buf_alloc(&d, dk, len, self->l.ctx, self->ctx1));
	uvm_fill(sdata, len, 0x31 + sk);
	uvm_fill(want, len, 0x77 + dk);
	ASSERT_EQ(CUDA_SUCCESS, buf_store(&s, sdata));
	ASSERT_EQ(CUDA_SUCCESS, buf_store(&d, want));
	for (size_t i = 0; i < n; i++) {
		size_t size = 1 + rnd(&st) % 3000;
		size_t doff = rnd(&st) % (len - size), soff = rnd(&st) % (len - size);

		dsts[i] = d.dev + doff;
		srcs[i] = s.dev + soff;
		sizes[i] = size;
		memcpy(want + doff, sdata + soff, size);
	}
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyBatchAsync(dsts, srcs, sizes, n, attrs, idxs, 3,
						   self->l.s)) {
		TH_LOG("%s <- %s", kind_names[dk], kind_names[sk]);
	}
	ASSERT_EQ(CUDA_SUCCESS, cuStreamSynchronize(self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, buf_load(&d, out));
	ASSERT_EQ(0, memcmp(out, want, len)) {
		TH_LOG("%s <- %s", kind_names[dk], kind_names[sk]);
	}
	ASSERT_EQ(CUDA_SUCCESS, buf_load(&s, out));
	ASSERT_EQ(0, memcmp(out, sdata, len));
	buf_free(&s);
	buf_free(&d);
	free(sdata);
	free(want);
	free(out);
	free(dsts);
	free(srcs);
	free(sizes);
}

/* cuMemcpyBatchAsync between every pair of kinds */
TEST_F_TIMEOUT(pitched, batch_every_kind, 600)
{
	for (int dk = 0; dk < K_COUNT; dk++)
		for (int sk = 0; sk < K_COUNT; sk++)
			batch_pair(_metadata, self, (enum kind)dk, (enum kind)sk);
}

/* cuMemcpy3DBatchAsync and cudaMemcpy3DBatchAsync: boxes between kinds */
TEST_F_TIMEOUT(pitched, batch_3d, 300)
{
	static const enum kind pairs[][2] = {
		{ K_DEV0, K_PAGEABLE }, { K_PINNED, K_DEV1 }, { K_MANAGED, K_VMM },
		{ K_PAGEABLE, K_MANAGED },
	};
	const size_t sp = 1000, sh = 40, dp = 1300, dh = 50, w = 700, h = 30, dd = 3;
	const size_t slen = sp * sh * 4, dlen = dp * dh * 4;
	uint8_t *sdata = malloc(slen), *want = malloc(dlen), *out = malloc(dlen);

	ASSERT_NE(NULL, sdata);
	ASSERT_NE(NULL, want);
	ASSERT_NE(NULL, out);
	for (size_t p = 0; p < sizeof(pairs) / sizeof(pairs[0]); p++) {
		for (int api = 0; api < 2; api++) {
			CUDA_MEMCPY3D_BATCH_OP op[2];
			struct cudaMemcpy3DBatchOp rop[2];
			struct buf s, d;

			ASSERT_EQ(CUDA_SUCCESS, buf_alloc(&s, pairs[p][1], slen, self->l.ctx,
							  self->ctx1));
			ASSERT_EQ(CUDA_SUCCESS, buf_alloc(&d, pairs[p][0], dlen, self->l.ctx,
							  self->ctx1));
			uvm_fill(sdata, slen, 3 + p);
			uvm_fill(want, dlen, 90 + p);
			ASSERT_EQ(CUDA_SUCCESS, buf_store(&s, sdata));
			ASSERT_EQ(CUDA_SUCCESS, buf_store(&d, want));
			memset(op, 0, sizeof(op));
			/* a box at (5, 2, 1) of src to (9, 4, 0) of dst, then a packed one */
			op[0].src.type = CU_MEMCPY_OPERAND_TYPE_POINTER;
			op[0].src.op.ptr.ptr = s.dev + (1 * sh + 2) * sp + 5;
			op[0].src.op.ptr.rowLength = sp;
			op[0].src.op.ptr.layerHeight = sh;
			op[0].dst.type = CU_MEMCPY_OPERAND_TYPE_POINTER;
			op[0].dst.op.ptr.ptr = d.dev + 4 * dp + 9;
			op[0].dst.op.ptr.rowLength = dp;
			op[0].dst.op.ptr.layerHeight = dh;
			op[0].extent.width = w;
			op[0].extent.height = h;
			op[0].extent.depth = dd;
			op[0].srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM;
			box_apply(want, dp, dh, 9, 4, 0, sdata, sp, sh, 5, 2, 1, w, h, dd);
			op[1] = op[0];
			op[1].src.op.ptr.ptr = s.dev;
			op[1].src.op.ptr.rowLength = 0;
			op[1].src.op.ptr.layerHeight = 0;
			op[1].dst.op.ptr.ptr = d.dev + 2 * dp * dh + 40 * dp;
			op[1].extent.width = 100;
			op[1].extent.height = 7;
			op[1].extent.depth = 2;
			op[1].srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_ANY;
			op[1].flags = CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE;
			box_apply(want + 2 * dp * dh + 40 * dp, dp, dh, 0, 0, 0, sdata, 100, 7, 0,
				  0, 0, 100, 7, 2);
			if (api == 0) {
				ASSERT_EQ(CUDA_SUCCESS, cuMemcpy3DBatchAsync(2, op, 0, self->l.s));
			} else {
				memset(rop, 0, sizeof(rop));
				for (int i = 0; i < 2; i++) {
					rop[i].src.type = cudaMemcpyOperandTypePointer;
					rop[i].src.op.ptr.ptr = (void *)(uintptr_t)op[i].src.op.ptr.ptr;
					rop[i].src.op.ptr.rowLength = op[i].src.op.ptr.rowLength;
					rop[i].src.op.ptr.layerHeight = op[i].src.op.ptr.layerHeight;
					rop[i].dst.type = cudaMemcpyOperandTypePointer;
					rop[i].dst.op.ptr.ptr = (void *)(uintptr_t)op[i].dst.op.ptr.ptr;
					rop[i].dst.op.ptr.rowLength = op[i].dst.op.ptr.rowLength;
					rop[i].dst.op.ptr.layerHeight = op[i].dst.op.ptr.layerHeight;
					rop[i].extent = make_cudaExtent(op[i].extent.width,
									op[i].extent.height,
									op[i].extent.depth);
					rop[i].srcAccessOrder =
						(enum cudaMemcpySrcAccessOrder)op[i].srcAccessOrder;
					rop[i].flags = op[i].flags;
				}
				ASSERT_EQ(cudaSuccess, cudaMemcpy3DBatchAsync(2, rop, 0,
									      (cudaStream_t)self->l.s));
			}
			ASSERT_EQ(CUDA_SUCCESS, cuStreamSynchronize(self->l.s));
			ASSERT_EQ(CUDA_SUCCESS, buf_load(&d, out));
			ASSERT_EQ(0, memcmp(out, want, dlen)) {
				TH_LOG("%s <- %s, api %d", kind_names[pairs[p][0]],
				       kind_names[pairs[p][1]], api);
			}
			buf_free(&s);
			buf_free(&d);
		}
	}
	free(sdata);
	free(want);
	free(out);
}

/* A source the caller overwrites when the call returns: DURING_API_CALL reads it first */
TEST_F(pitched, batch_during_api_call)
{
	const size_t n = 64 * 1024;
	uint8_t *host, *out = malloc(n);
	CUmemcpyAttributes a = attr_of(CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL);
	size_t size = n, i0 = 0;
	CUdeviceptr d, src;

	ASSERT_NE(NULL, out);
	ASSERT_EQ(CUDA_SUCCESS, cuMemAllocHost((void **)&host, n));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAlloc(&d, n));
	src = (uintptr_t)host;
	for (int round = 0; round < 3; round++) {
		memset(host, 0x40 + round, n);
		ASSERT_EQ(CUDA_SUCCESS, cuMemcpyBatchAsync(&d, &src, &size, 1, &a, &i0, 1,
							   self->l.s));
		memset(host, 0xee, n);
		ASSERT_EQ(CUDA_SUCCESS, cuStreamSynchronize(self->l.s));
		ASSERT_EQ(CUDA_SUCCESS, cuMemcpyDtoH(out, d, n));
		ASSERT_EQ(1, bytes_are(out, 0x40 + round, n));
	}
	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(d));
	ASSERT_EQ(CUDA_SUCCESS, cuMemFreeHost(host));
	free(out);
}

/* What NVIDIA's driver refuses (probe_batch.txt); a refused batch copies nothing */
TEST_F(pitched, batch_errors)
{
	const size_t n = 4096;
	CUmemcpyAttributes a = attr_of(1), as[5];
	CUdeviceptr d, s, dsts[4], srcs[4], zero = 0;
	size_t sizes[4] = { 100, 100, 100, 100 }, i0 = 0, size0 = 0, big = n;
	CUDA_MEMCPY3D_BATCH_OP op;
	CUstream ptds = CU_STREAM_PER_THREAD;

	ASSERT_EQ(CUDA_SUCCESS, cuMemAlloc(&d, n));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAlloc(&s, n));
	ASSERT_EQ(CUDA_SUCCESS, cuMemsetD8(d, 0x11, n));
	ASSERT_EQ(CUDA_SUCCESS, cuMemsetD8(s, 0x22, n));
	for (int i = 0; i < 4; i++) {
		dsts[i] = d + i * 256;
		srcs[i] = s + i * 256;
		as[i] = a;
	}
	as[4] = a;
#define BATCH(dd, ss, zz, c, at, ix, na, st) cuMemcpyBatchAsync(dd, ss, zz, c, at, ix, na, st)
	/* streams: the legacy one, named or NULL, is refused; per-thread is not */
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, BATCH(dsts, srcs, sizes, 1, &a, &i0, 1, NULL));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, BATCH(dsts, srcs, sizes, 1, &a, &i0, 1,
						  CU_STREAM_LEGACY));
	/* count, NULL arrays, a NULL or empty copy */
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, BATCH(dsts, srcs, sizes, 0, &a, &i0, 1, self->l.s));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, BATCH(NULL, srcs, sizes, 1, &a, &i0, 1, self->l.s));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, BATCH(dsts, NULL, sizes, 1, &a, &i0, 1, self->l.s));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, BATCH(dsts, srcs, NULL, 1, &a, &i0, 1, self->l.s));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, BATCH(dsts, srcs, sizes, 1, NULL, &i0, 1, self->l.s));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, BATCH(dsts, srcs, sizes, 1, &a, NULL, 1, self->l.s));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, BATCH(&zero, srcs, sizes, 1, &a, &i0, 1, self->l.s));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, BATCH(dsts, &zero, sizes, 1, &a, &i0, 1, self->l.s));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, BATCH(dsts, srcs, &size0, 1, &a, &i0, 1, self->l.s));
	/* past the end of an allocation */
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, BATCH(&dsts[1], srcs, &big, 1, &a, &i0, 1,
						  self->l.s));
	/* the attribute index rules, with 4 copies */
	{
		static const struct { size_t na; size_t ix[5]; CUresult r; } rules[] = {
			{ 0, { 0 }, CUDA_ERROR_INVALID_VALUE },
			{ 1, { 0 }, CUDA_SUCCESS },
			{ 1, { 1 }, CUDA_ERROR_INVALID_VALUE },
			{ 2, { 0, 2 }, CUDA_SUCCESS },
			{ 2, { 0, 0 }, CUDA_ERROR_INVALID_VALUE },
			{ 2, { 2, 0 }, CUDA_ERROR_INVALID_VALUE },
			{ 2, { 0, 4 }, CUDA_ERROR_INVALID_VALUE },
			{ 2, { 0, 3 }, CUDA_SUCCESS },
			{ 4, { 0, 1, 2, 3 }, CUDA_SUCCESS },
			{ 4, { 0, 1, 1, 3 }, CUDA_ERROR_INVALID_VALUE },
			{ 5, { 0, 1, 2, 3, 4 }, CUDA_ERROR_INVALID_VALUE },
		};

		for (size_t r = 0; r < sizeof(rules) / sizeof(rules[0]); r++) {
			size_t ix[5];

			memcpy(ix, rules[r].ix, sizeof(ix));
			ASSERT_EQ(rules[r].r, BATCH(dsts, srcs, sizes, 4, as, ix, rules[r].na, ptds)) {
				TH_LOG("rule %zu", r);
			}
		}
	}
	/* attributes: access order, flags, location hints */
	{
		static const struct { int order; unsigned int flags; int st, si, dt, di; CUresult r; }
		cases[] = {
			{ 0, 0, 0, 0, 0, 0, CUDA_ERROR_INVALID_VALUE },
			{ 4, 0, 0, 0, 0, 0, CUDA_ERROR_INVALID_VALUE },
			{ -1, 0, 0, 0, 0, 0, CUDA_ERROR_INVALID_VALUE },
			{ 3, 1, 0, 0, 0, 0, CUDA_SUCCESS },
			{ 1, 2, 0, 0, 0, 0, CUDA_ERROR_INVALID_VALUE },
			{ 1, 0x80000000u, 0, 0, 0, 0, CUDA_ERROR_INVALID_VALUE },
			{ 1, 0, CU_MEM_LOCATION_TYPE_DEVICE, 1, 0, 0, CUDA_SUCCESS },
			{ 1, 0, CU_MEM_LOCATION_TYPE_DEVICE, 2, 0, 0, CUDA_ERROR_INVALID_VALUE },
			{ 1, 0, 0, 0, CU_MEM_LOCATION_TYPE_DEVICE, -1, CUDA_ERROR_INVALID_VALUE },
			{ 1, 0, CU_MEM_LOCATION_TYPE_HOST, 0, CU_MEM_LOCATION_TYPE_HOST_NUMA, 0,
			  CUDA_SUCCESS },
			{ 1, 0, CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT, 0, 0, 0, CUDA_SUCCESS },
			{ 1, 0, 99, 0, 0, 0, CUDA_ERROR_INVALID_VALUE },
			{ 1, 0, 0, 0, 99, 0, CUDA_ERROR_INVALID_VALUE },
		};

		for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
			CUmemcpyAttributes x = attr_of(cases[c].order);

			x.flags = cases[c].flags;
			x.srcLocHint.type = (CUmemLocationType)cases[c].st;
			x.srcLocHint.id = cases[c].si;
			x.dstLocHint.type = (CUmemLocationType)cases[c].dt;
			x.dstLocHint.id = cases[c].di;
			ASSERT_EQ(cases[c].r, BATCH(dsts, srcs, sizes, 1, &x, &i0, 1, self->l.s)) {
				TH_LOG("case %zu", c);
			}
		}
	}
	ASSERT_EQ(CUDA_SUCCESS, cuStreamSynchronize(self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamSynchronize(ptds));
	/* the successful ones copied the sources' 0x22; a refused batch, the last
	 * copy bad, copies nothing: the first destination keeps its 0x33 */
	ASSERT_EQ(1, device_bytes_are(d, 0x22, 100));
	ASSERT_EQ(CUDA_SUCCESS, cuMemsetD8(d, 0x33, n));
	sizes[3] = 0;
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, BATCH(dsts, srcs, sizes, 4, &a, &i0, 1, self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamSynchronize(self->l.s));
	ASSERT_EQ(1, device_bytes_are(d, 0x33, n));
#undef BATCH

	/* 3D operations */
	memset(&op, 0, sizeof(op));
	op.src.type = CU_MEMCPY_OPERAND_TYPE_POINTER;
	op.src.op.ptr.ptr = s;
	op.src.op.ptr.rowLength = 128;
	op.src.op.ptr.layerHeight = 8;
	op.dst = op.src;
	op.dst.op.ptr.ptr = d;
	op.extent.width = 100;
	op.extent.height = 7;
	op.extent.depth = 2;
	op.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM;
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpy3DBatchAsync(1, &op, 0, self->l.s));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemcpy3DBatchAsync(1, &op, 1, self->l.s));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemcpy3DBatchAsync(0, &op, 0, self->l.s));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemcpy3DBatchAsync(1, NULL, 0, self->l.s));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemcpy3DBatchAsync(1, &op, 0, NULL));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemcpy3DBatchAsync(1, &op, 0, CU_STREAM_LEGACY));
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpy3DBatchAsync(1, &op, 0, ptds));
	{
		CUDA_MEMCPY3D_BATCH_OP b[12];
		int k = 0;

		for (int i = 0; i < 12; i++)
			b[i] = op;
		b[k++].extent.width = 0;
		b[k++].extent.height = 0;
		b[k++].extent.depth = 0;
		b[k++].src.type = (CUmemcpy3DOperandType)0;
		b[k++].dst.type = (CUmemcpy3DOperandType)3;
		b[k++].srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_INVALID;
		b[k++].srcAccessOrder = (CUmemcpySrcAccessOrder)4;
		b[k++].flags = 2;
		b[k++].src.op.ptr.rowLength = 99;
		b[k++].dst.op.ptr.rowLength = 99;
		b[k++].src.op.ptr.layerHeight = 6;
		b[k].dst.type = CU_MEMCPY_OPERAND_TYPE_ARRAY;	/* a NULL array */
		for (int i = 0; i < 12; i++) {
			ASSERT_EQ(CUDA_ERROR_INVALID_VALUE,
				  cuMemcpy3DBatchAsync(1, &b[i], 0, self->l.s)) {
				TH_LOG("3D case %d", i);
			}
		}
		/* the location hints of 3D operands are not checked */
		b[0] = op;
		b[0].src.op.ptr.locHint.type = (CUmemLocationType)99;
		b[0].src.op.ptr.locHint.id = 5;
		ASSERT_EQ(CUDA_SUCCESS, cuMemcpy3DBatchAsync(1, &b[0], 0, self->l.s));
	}
	/* the runtime forms: the same answers, and the last error */
	{
		struct cudaMemcpyAttributes ra;
		void *rd = (void *)(uintptr_t)d;
		const void *rs = (const void *)(uintptr_t)s;
		size_t one = 64;

		memset(&ra, 0, sizeof(ra));
		ra.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
		ASSERT_EQ(cudaSuccess, cudaMemcpyBatchAsync(&rd, &rs, &one, 1, &ra, &i0, 1,
							    (cudaStream_t)self->l.s));
		ASSERT_EQ(cudaSuccess, cudaMemcpyBatchAsync(&rd, &rs, &one, 1, &ra, &i0, 1,
							    cudaStreamPerThread));
		ASSERT_EQ(cudaErrorInvalidValue, cudaMemcpyBatchAsync(&rd, &rs, &one, 1, &ra, &i0,
								      1, cudaStreamLegacy));
		ASSERT_EQ(cudaErrorInvalidValue, cudaGetLastError());
		ASSERT_EQ(cudaSuccess, cudaGetLastError());
		ASSERT_EQ(cudaErrorInvalidValue, cudaMemcpyBatchAsync(&rd, &rs, &one, 1, &ra, &i0,
								      1, 0));
		ASSERT_EQ(cudaErrorInvalidValue, cudaMemcpy3DBatchAsync(0, NULL, 0,
									(cudaStream_t)self->l.s));
		ASSERT_EQ(cudaErrorInvalidValue, cudaPeekAtLastError());
	}
	ASSERT_EQ(CUDA_SUCCESS, cuStreamSynchronize(self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamSynchronize(ptds));
	ASSERT_EQ(1, device_bytes_are(d, 0x22, 100));
	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(d));
	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(s));
}

TEST_HARNESS_MAIN
