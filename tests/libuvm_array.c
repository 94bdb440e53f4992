// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libuvm_array - CUDA arrays through libuvm: cuArrayCreate, cuArray3DCreate,
 * their descriptors, cuArrayGetPlane, cuMipmappedArray*, the copies to, from
 * and between arrays (cuMemcpy2D/3D with CU_MEMORYTYPE_ARRAY, cuMemcpyHtoA
 * and its relatives), and the runtime's cudaMallocArray, cudaMalloc3DArray,
 * cudaMallocMipmappedArray, cudaArrayGetInfo, cudaArrayGetPlane,
 * cudaGetMipmappedArrayLevel, cudaMemcpy2DToArray ... cudaMemcpyArrayToArray
 * and cudaMemcpy3D with arrays.
 *
 * Every expected code is NVIDIA's (tests/real-driver/results/probe_array.txt,
 * the "arr.*" key in each comment), except where NVIDIA's driver crashes
 * (a destroyed handle: libuvm answers an invalid handle).  Data checks are
 * byte-exact over the whole array: the copied box, and nothing else changed.
 *
 * Each test runs in its own process (the harness forks).  Module parameters:
 * the defaults (2 GPUs).
 */
#include "kselftest_harness.h"

#include "libuvm_test.h"

#include <cuda_runtime_api.h>
#include <driver_functions.h>

/* The probe's array A: 64 x 32 uchar4, rows of 256 bytes. */
#define AW 256
#define AH 32
#define AN (AW * AH)
#define HP 300			/* pitch of the linear side */
#define HN (HP * AH)

static unsigned char pat[AN], init_a[AN], got[AN], expect[AN];
static unsigned char lsrc[HN], linit[HN], lgot[HN], lexp[HN];

static void images(void)
{
	for (int i = 0; i < AN; i++)
		pat[i] = (unsigned char)(i * 131u + (i >> 8) * 7u + 1u);
	memset(init_a, 0xee, AN);
	for (int i = 0; i < HN; i++)
		lsrc[i] = (unsigned char)(i * 29u + 5u + (i >> 9));
	memset(linit, 0xee, HN);
}

static cudaArray_t uchar4_array(size_t w, size_t h)
{
	struct cudaChannelFormatDesc d = cudaCreateChannelDesc(8, 8, 8, 8,
							       cudaChannelFormatKindUnsigned);
	cudaArray_t a = NULL;

	return cudaMallocArray(&a, &d, w, h, 0) == cudaSuccess ? a : NULL;
}

static int afill(cudaArray_t a, const unsigned char *img)
{
	return cudaMemcpy2DToArray(a, 0, 0, img, AW, AW, AH, cudaMemcpyHostToDevice);
}

static int aread(cudaArray_t a, unsigned char *img)
{
	memset(img, 0x5a, AN);
	return cudaMemcpy2DFromArray(img, AW, a, 0, 0, AW, AH, cudaMemcpyDeviceToHost);
}

/* The array after w bytes x h rows of src (pitch sp) land at (wo, ho). */
static void exp_to_array(const unsigned char *src, size_t sp, size_t wo, size_t ho, size_t w,
			 size_t h)
{
	memcpy(expect, init_a, AN);
	for (size_t y = 0; y < h; y++)
		memcpy(expect + (ho + y) * AW + wo, src + y * sp, w);
}

/* The linear buffer (pitch dp) after w x h bytes of pat at (wo, ho). */
static void exp_from_array(size_t dp, size_t wo, size_t ho, size_t w, size_t h)
{
	memcpy(lexp, linit, HN);
	for (size_t y = 0; y < h; y++)
		memcpy(lexp + y * dp, pat + (ho + y) * AW + wo, w);
}

static CUarray mk3(size_t w, size_t h, size_t d, CUarray_format f, unsigned int ch,
		   unsigned int flags, CUresult *r)
{
	CUDA_ARRAY3D_DESCRIPTOR ad = { w, h, d, f, ch, flags };
	CUarray a = NULL;

	*r = cuArray3DCreate(&a, &ad);
	return *r == CUDA_SUCCESS ? a : NULL;
}

FIXTURE(array) {
	struct lib l;
};

FIXTURE_SETUP(array)
{
	ASSERT_EQ(CUDA_SUCCESS, lib_init(&self->l));
	images();
}

FIXTURE_TEARDOWN(array)
{
}

/* The driver's formats and channel counts ("arr.cu.create.*"). */
TEST_F(array, driver_formats)
{
	static const struct { CUarray_format f; unsigned int ok_mask, bits; int kind; } fmts[] = {
		{ CU_AD_FORMAT_UNSIGNED_INT8, 0x16, 8, cudaChannelFormatKindUnsigned },
		{ CU_AD_FORMAT_UNSIGNED_INT16, 0x16, 16, cudaChannelFormatKindUnsigned },
		{ CU_AD_FORMAT_UNSIGNED_INT32, 0x16, 32, cudaChannelFormatKindUnsigned },
		{ CU_AD_FORMAT_SIGNED_INT8, 0x16, 8, cudaChannelFormatKindSigned },
		{ CU_AD_FORMAT_SIGNED_INT16, 0x16, 16, cudaChannelFormatKindSigned },
		{ CU_AD_FORMAT_SIGNED_INT32, 0x16, 32, cudaChannelFormatKindSigned },
		{ CU_AD_FORMAT_HALF, 0x16, 16, cudaChannelFormatKindFloat },
		{ CU_AD_FORMAT_FLOAT, 0x16, 32, cudaChannelFormatKindFloat },
		{ CU_AD_FORMAT_UNORM_INT8X1, 0x02, 8, cudaChannelFormatKindUnsignedNormalized8X1 },
		{ CU_AD_FORMAT_UNORM_INT8X4, 0x10, 8, cudaChannelFormatKindUnsignedNormalized8X4 },
		{ CU_AD_FORMAT_BC1_UNORM, 0x10, 8, cudaChannelFormatKindUnsignedBlockCompressed1 },
		{ CU_AD_FORMAT_NV12, 0, 0, 0 },
		{ (CUarray_format)0, 0, 0, 0 },
		{ (CUarray_format)0x77, 0, 0, 0 },
	};

	for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		for (unsigned int ch = 0; ch <= 5; ch++) {
			CUDA_ARRAY_DESCRIPTOR d = { 64, 32, fmts[i].f, ch }, back;
			CUDA_ARRAY3D_DESCRIPTOR d3;
			struct cudaChannelFormatDesc cd;
			struct cudaExtent e;
			unsigned int fl = 99;
			CUarray a = NULL;
			CUresult r = cuArrayCreate(&a, &d);

			if (!(fmts[i].ok_mask & (1u << ch))) {
				EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, r) TH_LOG("fmt %#x ch %u",
									    fmts[i].f, ch);
				continue;
			}
			ASSERT_EQ(CUDA_SUCCESS, r) TH_LOG("fmt %#x ch %u", fmts[i].f, ch);
			ASSERT_EQ(CUDA_SUCCESS, cuArrayGetDescriptor(&back, a));
			EXPECT_EQ(64, back.Width);
			EXPECT_EQ(32, back.Height);
			EXPECT_EQ(fmts[i].f, back.Format);
			EXPECT_EQ(ch, back.NumChannels);
			ASSERT_EQ(CUDA_SUCCESS, cuArray3DGetDescriptor(&d3, a));
			EXPECT_EQ(0, d3.Depth);
			EXPECT_EQ(0, d3.Flags);
			ASSERT_EQ(cudaSuccess, cudaArrayGetInfo(&cd, &e, &fl, (cudaArray_t)a));
			EXPECT_EQ(fmts[i].kind, cd.f);
			EXPECT_EQ((int)fmts[i].bits, cd.x);
			/* the fixed formats name their channels ("unorm8x4.ch4.info") */
			EXPECT_EQ(ch >= 2 ? (int)fmts[i].bits : 0, cd.y);
			EXPECT_EQ(ch >= 4 ? (int)fmts[i].bits : 0, cd.w);
			EXPECT_EQ(64, e.width);
			EXPECT_EQ(32, e.height);
			EXPECT_EQ(0, e.depth);
			EXPECT_EQ(0, fl);
			EXPECT_EQ(CUDA_SUCCESS, cuArrayDestroy(a));
		}
	}
}

/* The runtime's channel descriptions ("arr.chan.*"). */
TEST_F(array, channel_descriptions)
{
	static const struct { int x, y, z, w, k; cudaError_t want; unsigned int fmt; } c[] = {
		{ 8, 0, 0, 0, cudaChannelFormatKindSigned, cudaSuccess, 0x08 },
		{ 16, 16, 0, 0, cudaChannelFormatKindSigned, cudaSuccess, 0x09 },
		{ 32, 32, 32, 32, cudaChannelFormatKindSigned, cudaSuccess, 0x0a },
		{ 8, 8, 8, 0, cudaChannelFormatKindUnsigned, cudaErrorInvalidChannelDescriptor, 0 },
		{ 8, 8, 8, 8, cudaChannelFormatKindUnsigned, cudaSuccess, 0x01 },
		{ 32, 0, 0, 0, cudaChannelFormatKindUnsigned, cudaSuccess, 0x03 },
		{ 8, 0, 0, 0, cudaChannelFormatKindFloat, cudaErrorInvalidChannelDescriptor, 0 },
		{ 16, 16, 16, 16, cudaChannelFormatKindFloat, cudaSuccess, 0x10 },
		{ 32, 32, 0, 0, cudaChannelFormatKindFloat, cudaSuccess, 0x20 },
		{ 24, 0, 0, 0, cudaChannelFormatKindUnsigned, cudaErrorInvalidChannelDescriptor, 0 },
		{ 64, 0, 0, 0, cudaChannelFormatKindUnsigned, cudaErrorInvalidChannelDescriptor, 0 },
		{ 8, 16, 0, 0, cudaChannelFormatKindUnsigned, cudaErrorInvalidChannelDescriptor, 0 },
		{ 8, 0, 8, 0, cudaChannelFormatKindUnsigned, cudaErrorInvalidChannelDescriptor, 0 },
		{ 0, 8, 0, 0, cudaChannelFormatKindUnsigned, cudaErrorInvalidChannelDescriptor, 0 },
		{ 0, 0, 0, 0, cudaChannelFormatKindUnsigned, cudaErrorInvalidChannelDescriptor, 0 },
		{ 0, 0, 0, 0, cudaChannelFormatKindNone, cudaErrorInvalidChannelDescriptor, 0 },
		{ 8, 0, 0, 0, cudaChannelFormatKindNone, cudaErrorInvalidChannelDescriptor, 0 },
		{ -8, 0, 0, 0, cudaChannelFormatKindUnsigned, cudaErrorInvalidChannelDescriptor, 0 },
		{ 8, 0, 0, 0, 99, cudaErrorInvalidChannelDescriptor, 0 },
		{ 8, 8, 8, 0, cudaChannelFormatKindNV12, cudaErrorInvalidValue, 0 },
		{ 8, 0, 0, 0, cudaChannelFormatKindUnsignedNormalized8X1, cudaSuccess, 0xc0 },
		{ 8, 8, 8, 8, cudaChannelFormatKindUnsignedNormalized8X4, cudaSuccess, 0xc2 },
		{ 8, 0, 0, 0, cudaChannelFormatKindUnsignedNormalized8X4,
		  cudaErrorInvalidChannelDescriptor, 0 },
		{ 16, 16, 0, 0, cudaChannelFormatKindSignedNormalized16X2, cudaSuccess, 0xca },
		{ 8, 8, 8, 8, cudaChannelFormatKindUnsignedBlockCompressed1, cudaSuccess, 0x91 },
		{ 8, 0, 0, 0, cudaChannelFormatKindUnsignedBlockCompressed4, cudaSuccess, 0x97 },
		{ 10, 10, 10, 2, cudaChannelFormatKindUnsignedNormalized1010102, cudaSuccess, 0x50 },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct cudaChannelFormatDesc d = cudaCreateChannelDesc(
			c[i].x, c[i].y, c[i].z, c[i].w, (enum cudaChannelFormatKind)c[i].k), back;
		CUDA_ARRAY3D_DESCRIPTOR d3;
		cudaArray_t a = NULL;

		EXPECT_EQ(c[i].k, d.f);
		EXPECT_EQ(c[i].want, cudaMallocArray(&a, &d, 64, 32, 0)) TH_LOG("case %zu", i);
		EXPECT_EQ(c[i].want, cudaGetLastError());
		if (c[i].want != cudaSuccess) {
			EXPECT_EQ(NULL, a);
			continue;
		}
		ASSERT_EQ(cudaSuccess, cudaArrayGetInfo(&back, NULL, NULL, a));
		EXPECT_EQ(0, memcmp(&d, &back, sizeof(d))) TH_LOG("case %zu", i);
		ASSERT_EQ(CUDA_SUCCESS, cuArray3DGetDescriptor(&d3, (CUarray)a));
		EXPECT_EQ(c[i].fmt, (unsigned int)d3.Format) TH_LOG("case %zu", i);
		EXPECT_EQ(cudaSuccess, cudaFreeArray(a));
	}
}

/* Shapes and flags ("arr.cu.create3d.*", "arr.rt.*", "arr.dims.*"). */
TEST_F(array, shapes_and_flags)
{
	static const struct { size_t w, h, d; unsigned int fl; CUresult want; } c[] = {
		{ 64, 32, 0, 0, CUDA_SUCCESS },
		{ 16, 8, 4, 0, CUDA_SUCCESS },
		{ 64, 0, 0, 0, CUDA_SUCCESS },
		{ 16, 0, 4, 0, CUDA_ERROR_INVALID_VALUE },	/* h0_d4 */
		{ 0, 32, 0, 0, CUDA_ERROR_INVALID_VALUE },
		{ 0, 0, 0, 0, CUDA_ERROR_INVALID_VALUE },
		{ 64, 0, 8, CUDA_ARRAY3D_LAYERED, CUDA_SUCCESS },
		{ 64, 32, 8, CUDA_ARRAY3D_LAYERED, CUDA_SUCCESS },
		{ 64, 32, 0, CUDA_ARRAY3D_LAYERED, CUDA_ERROR_INVALID_VALUE },
		{ 64, 32, 0, CUDA_ARRAY3D_SURFACE_LDST, CUDA_SUCCESS },
		{ 16, 8, 4, CUDA_ARRAY3D_SURFACE_LDST, CUDA_SUCCESS },
		{ 32, 32, 6, CUDA_ARRAY3D_CUBEMAP, CUDA_SUCCESS },
		{ 32, 16, 6, CUDA_ARRAY3D_CUBEMAP, CUDA_ERROR_INVALID_VALUE },
		{ 32, 32, 5, CUDA_ARRAY3D_CUBEMAP, CUDA_ERROR_INVALID_VALUE },
		{ 32, 32, 12, CUDA_ARRAY3D_CUBEMAP | CUDA_ARRAY3D_LAYERED, CUDA_SUCCESS },
		{ 32, 32, 13, CUDA_ARRAY3D_CUBEMAP | CUDA_ARRAY3D_LAYERED, CUDA_ERROR_INVALID_VALUE },
		{ 64, 32, 0, CUDA_ARRAY3D_TEXTURE_GATHER, CUDA_SUCCESS },
		{ 16, 8, 4, CUDA_ARRAY3D_TEXTURE_GATHER, CUDA_ERROR_INVALID_VALUE },
		{ 64, 0, 0, CUDA_ARRAY3D_TEXTURE_GATHER, CUDA_ERROR_INVALID_VALUE },
		{ 64, 32, 0, CUDA_ARRAY3D_DEPTH_TEXTURE, CUDA_ERROR_INVALID_VALUE },
		{ 64, 32, 0, CUDA_ARRAY3D_COLOR_ATTACHMENT, CUDA_ERROR_INVALID_VALUE },
		{ 1024, 0, 0, CUDA_ARRAY3D_SPARSE, CUDA_ERROR_INVALID_VALUE },
		{ 64, 32, 0, CUDA_ARRAY3D_SPARSE | CUDA_ARRAY3D_DEFERRED_MAPPING,
		  CUDA_ERROR_INVALID_VALUE },
		/* "arr.cu.create3d.sparse2d", ".deferred2d"; no sparse cubemaps
		 * ("sp.shape.u8x4.cubemap.256.sparse") */
		{ 1024, 1024, 0, CUDA_ARRAY3D_SPARSE, CUDA_SUCCESS },
		{ 64, 32, 0, CUDA_ARRAY3D_DEFERRED_MAPPING, CUDA_SUCCESS },
		{ 64, 64, 6, CUDA_ARRAY3D_SPARSE | CUDA_ARRAY3D_CUBEMAP, CUDA_ERROR_INVALID_VALUE },
		{ 64, 64, 6, CUDA_ARRAY3D_DEFERRED_MAPPING | CUDA_ARRAY3D_CUBEMAP, CUDA_SUCCESS },
		{ 64, 32, 0, CUDA_ARRAY3D_VIDEO_ENCODE_DECODE, CUDA_SUCCESS },
		{ 64, 32, 0, 0x200, CUDA_ERROR_INVALID_VALUE },
		{ 64, 32, 0, 0x80000000u, CUDA_SUCCESS },
		/* the maxima and one past ("arr.dims.*") */
		{ 131072, 0, 0, 0, CUDA_SUCCESS },
		{ 131073, 0, 0, 0, CUDA_ERROR_INVALID_VALUE },
		{ 131072, 1, 0, 0, CUDA_SUCCESS },
		{ 131073, 1, 0, 0, CUDA_ERROR_INVALID_VALUE },
		{ 1, 65536, 0, 0, CUDA_SUCCESS },
		{ 1, 65537, 0, 0, CUDA_ERROR_INVALID_VALUE },
		{ 16384, 1, 1, 0, CUDA_SUCCESS },
		{ 16385, 1, 1, 0, CUDA_ERROR_INVALID_VALUE },
		{ 1, 16385, 1, 0, CUDA_ERROR_INVALID_VALUE },
		{ 1, 1, 16385, 0, CUDA_SUCCESS },	/* "3d.maxd1" */
		{ 16384, 16384, 16384, 0, CUDA_ERROR_OUT_OF_MEMORY },
		{ 64, 32, 2048, CUDA_ARRAY3D_LAYERED, CUDA_SUCCESS },
		{ 64, 32, 2049, CUDA_ARRAY3D_LAYERED, CUDA_ERROR_INVALID_VALUE },
		{ 32769, 32, 2, CUDA_ARRAY3D_LAYERED, CUDA_ERROR_INVALID_VALUE },
		{ 32769, 32769, 6, CUDA_ARRAY3D_CUBEMAP, CUDA_ERROR_INVALID_VALUE },
	};
	int v = -1;

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		CUDA_ARRAY3D_DESCRIPTOR back;
		CUresult r;
		CUarray a = mk3(c[i].w, c[i].h, c[i].d, CU_AD_FORMAT_UNSIGNED_INT8, 1, c[i].fl, &r);

		EXPECT_EQ(c[i].want, r) TH_LOG("case %zu", i);
		if (!a)
			continue;
		ASSERT_EQ(CUDA_SUCCESS, cuArray3DGetDescriptor(&back, a));
		EXPECT_EQ(c[i].w, back.Width);
		EXPECT_EQ(c[i].h, back.Height);
		EXPECT_EQ(c[i].d, back.Depth);
		EXPECT_EQ(c[i].fl, back.Flags);
		EXPECT_EQ(CUDA_SUCCESS, cuArrayDestroy(a));
	}
	/* the runtime: the same rules, cudaMallocArray without depth */
	{
		struct cudaChannelFormatDesc d = cudaCreateChannelDesc(8, 8, 8, 8,
								       cudaChannelFormatKindUnsigned);
		cudaArray_t a = NULL;

		EXPECT_EQ(cudaErrorInvalidValue, cudaMallocArray(&a, &d, 32, 32, cudaArrayCubemap));
		EXPECT_EQ(cudaErrorInvalidValue, cudaMallocArray(&a, &d, 32, 32, cudaArrayLayered));
		EXPECT_EQ(cudaErrorInvalidValue, cudaMallocArray(&a, &d, 64, 32, 0x10));
		EXPECT_EQ(cudaErrorInvalidValue, cudaMallocArray(&a, &d, 0, 32, 0));
		EXPECT_EQ(cudaErrorMemoryAllocation,
			  cudaMalloc3DArray(&a, &d, make_cudaExtent(16384, 16384, 16384), 0));
		ASSERT_EQ(cudaSuccess, cudaMalloc3DArray(&a, &d, make_cudaExtent(32, 32, 12),
							 cudaArrayCubemap | cudaArrayLayered));
		EXPECT_EQ(cudaSuccess, cudaFreeArray(a));
		cudaGetLastError();
	}
	/* what the device says of them */
	ASSERT_EQ(CUDA_SUCCESS, cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH, 0));
	EXPECT_EQ(131072, v);
	ASSERT_EQ(CUDA_SUCCESS, cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH, 0));
	EXPECT_EQ(16384, v);
	ASSERT_EQ(CUDA_SUCCESS, cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_SPARSE_CUDA_ARRAY_SUPPORTED, 0));
	EXPECT_EQ(1, v);	/* "arr.prop.sparseCudaArraySupported" */
	ASSERT_EQ(CUDA_SUCCESS, cuDeviceGetAttribute(&v,
		CU_DEVICE_ATTRIBUTE_DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED, 0));
	EXPECT_EQ(1, v);
}

/* Every kind of linear memory to and from an array, sync and async, with
 * the matching kind and with cudaMemcpyDefault ("arr.copy.to2d.*",
 * "arr.copy.from2d.*"). */
TEST_F(array, copies_2d_every_kind)
{
	static const char *const names[] = { "pageable", "pinned", "device", "managed" };
	cudaArray_t A = uchar4_array(64, 32);
	void *lin[4];
	CUdeviceptr d = 0, m = 0;

	ASSERT_NE(NULL, A);
	lin[0] = malloc(HN);
	ASSERT_EQ(CUDA_SUCCESS, cuMemAllocHost(&lin[1], HN));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAlloc(&d, HN));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAllocManaged(&m, HN, CU_MEM_ATTACH_GLOBAL));
	lin[2] = (void *)(uintptr_t)d;
	lin[3] = (void *)(uintptr_t)m;
	for (int k = 0; k < 4; k++) {
		enum cudaMemcpyKind to = k >= 2 ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice;
		enum cudaMemcpyKind from = k >= 2 ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost;

		for (int v = 0; v < 3; v++) {
			ASSERT_EQ(cudaSuccess, cudaMemcpy(lin[k], lsrc, HN, cudaMemcpyDefault));
			ASSERT_EQ(cudaSuccess, afill(A, init_a));
			if (v < 2) {
				ASSERT_EQ(cudaSuccess, cudaMemcpy2DToArray(A, 16, 2, lin[k], HP, 200, 20,
									   v ? cudaMemcpyDefault : to));
			} else {
				ASSERT_EQ(cudaSuccess, cudaMemcpy2DToArrayAsync(A, 16, 2, lin[k], HP,
										200, 20, cudaMemcpyDefault,
										self->l.s));
			}
			ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
			ASSERT_EQ(cudaSuccess, aread(A, got));
			exp_to_array(lsrc, HP, 16, 2, 200, 20);
			EXPECT_EQ(0, memcmp(got, expect, AN)) TH_LOG("to %s %d", names[k], v);

			ASSERT_EQ(cudaSuccess, afill(A, pat));
			ASSERT_EQ(cudaSuccess, cudaMemcpy(lin[k], linit, HN, cudaMemcpyDefault));
			if (v < 2) {
				ASSERT_EQ(cudaSuccess, cudaMemcpy2DFromArray(lin[k], HP, A, 16, 2, 200,
									     20, v ? cudaMemcpyDefault :
									     from));
			} else {
				ASSERT_EQ(cudaSuccess, cudaMemcpy2DFromArrayAsync(lin[k], HP, A, 16, 2,
										  200, 20,
										  cudaMemcpyDefault,
										  self->l.s));
			}
			ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
			ASSERT_EQ(cudaSuccess, cudaMemcpy(lgot, lin[k], HN, cudaMemcpyDefault));
			exp_from_array(HP, 16, 2, 200, 20);
			EXPECT_EQ(0, memcmp(lgot, lexp, HN)) TH_LOG("from %s %d", names[k], v);
		}
	}
	free(lin[0]);
	cuMemFreeHost(lin[1]);
	cuMemFree(d);
	cuMemFree(m);
	EXPECT_EQ(cudaSuccess, cudaFreeArray(A));
}

/* Array to array, the kinds, overlap within one array ("arr.copy.a2a2d*"). */
TEST_F(array, array_to_array)
{
	cudaArray_t A = uchar4_array(64, 32), B = uchar4_array(64, 32);
	unsigned char want[AN];

	ASSERT_NE(NULL, A);
	ASSERT_NE(NULL, B);
	ASSERT_EQ(cudaSuccess, afill(A, pat));
	ASSERT_EQ(cudaSuccess, afill(B, init_a));
	ASSERT_EQ(cudaSuccess, cudaMemcpy2DArrayToArray(B, 8, 1, A, 16, 2, 200, 20,
							cudaMemcpyDeviceToDevice));
	ASSERT_EQ(cudaSuccess, aread(B, got));
	memcpy(want, init_a, AN);
	for (int y = 0; y < 20; y++)
		memcpy(want + (1 + y) * AW + 8, pat + (2 + y) * AW + 16, 200);
	EXPECT_EQ(0, memcmp(got, want, AN));
	ASSERT_EQ(cudaSuccess, afill(B, init_a));
	ASSERT_EQ(cudaSuccess, cudaMemcpy2DArrayToArray(B, 8, 1, A, 16, 2, 200, 20,
							cudaMemcpyDefault));
	ASSERT_EQ(cudaSuccess, aread(B, got));
	EXPECT_EQ(0, memcmp(got, want, AN));
	EXPECT_EQ(cudaErrorInvalidMemcpyDirection,
		  cudaMemcpy2DArrayToArray(B, 8, 1, A, 16, 2, 200, 20, cudaMemcpyHostToDevice));
	EXPECT_EQ(cudaErrorInvalidMemcpyDirection, cudaGetLastError());
	EXPECT_EQ(cudaErrorInvalidMemcpyDirection,
		  cudaMemcpy2DToArray(A, 0, 0, lsrc, HP, 200, 4, (enum cudaMemcpyKind)5));
	cudaGetLastError();
	/* overlapping rectangles of one array: as if through a copy */
	ASSERT_EQ(cudaSuccess, afill(A, pat));
	ASSERT_EQ(cudaSuccess, cudaMemcpy2DArrayToArray(A, 0, 0, A, 16, 2, 200, 20,
							cudaMemcpyDeviceToDevice));
	ASSERT_EQ(cudaSuccess, aread(A, got));
	memcpy(want, pat, AN);
	for (int y = 0; y < 20; y++)
		memcpy(want + y * AW, pat + (2 + y) * AW + 16, 200);
	EXPECT_EQ(0, memcmp(got, want, AN));
	EXPECT_EQ(cudaSuccess, cudaFreeArray(A));
	EXPECT_EQ(cudaSuccess, cudaFreeArray(B));
}

/* The linear forms: the runtime's run on row after row, the driver's stay
 * in the first row ("arr.copy.toarray*", "arr.cu.htoa*"). */
TEST_F(array, linear_copies)
{
	cudaArray_t A = uchar4_array(64, 32), B = uchar4_array(64, 32), O = uchar4_array(64, 0);
	CUarray ca = (CUarray)A;
	unsigned char back[256];
	CUdeviceptr d = 0;

	ASSERT_NE(NULL, A);
	ASSERT_NE(NULL, B);
	ASSERT_NE(NULL, O);
	ASSERT_EQ(CUDA_SUCCESS, cuMemAlloc(&d, HN));
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyHtoD(d, lsrc, HN));

	ASSERT_EQ(cudaSuccess, afill(A, init_a));
	ASSERT_EQ(cudaSuccess, cudaMemcpyToArray(A, 16, 2, lsrc, 600, cudaMemcpyHostToDevice));
	ASSERT_EQ(cudaSuccess, aread(A, got));
	memcpy(expect, init_a, AN);
	memcpy(expect + 2 * AW + 16, lsrc, 600);
	EXPECT_EQ(0, memcmp(got, expect, AN));
	ASSERT_EQ(cudaSuccess, afill(A, init_a));
	ASSERT_EQ(cudaSuccess, cudaMemcpyToArrayAsync(A, 16, 2, lsrc, 600, cudaMemcpyHostToDevice,
						      self->l.s));
	ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(self->l.s));
	ASSERT_EQ(cudaSuccess, aread(A, got));
	EXPECT_EQ(0, memcmp(got, expect, AN));

	ASSERT_EQ(cudaSuccess, afill(A, pat));
	memcpy(lgot, linit, HN);
	ASSERT_EQ(cudaSuccess, cudaMemcpyFromArray(lgot, A, 16, 2, 600, cudaMemcpyDeviceToHost));
	memcpy(lexp, linit, HN);
	memcpy(lexp, pat + 2 * AW + 16, 600);
	EXPECT_EQ(0, memcmp(lgot, lexp, HN));
	memcpy(lgot, linit, HN);
	ASSERT_EQ(cudaSuccess, cudaMemcpyFromArrayAsync(lgot, A, 16, 2, 600, cudaMemcpyDeviceToHost,
							self->l.s));
	ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(self->l.s));
	EXPECT_EQ(0, memcmp(lgot, lexp, HN));
	ASSERT_EQ(cudaSuccess, afill(B, init_a));
	ASSERT_EQ(cudaSuccess, cudaMemcpyArrayToArray(B, 8, 1, A, 16, 2, 600,
						      cudaMemcpyDeviceToDevice));
	ASSERT_EQ(cudaSuccess, aread(B, got));
	memcpy(expect, init_a, AN);
	memcpy(expect + AW + 8, pat + 2 * AW + 16, 600);
	EXPECT_EQ(0, memcmp(got, expect, AN));
	EXPECT_EQ(cudaSuccess, cudaMemcpyToArray(A, 16, 2, lsrc, 0, cudaMemcpyHostToDevice));
	EXPECT_EQ(cudaSuccess, cudaMemcpyToArray(A, 2, 0, lsrc, 8, cudaMemcpyHostToDevice));
	EXPECT_EQ(cudaSuccess, cudaMemcpyToArray(A, 0, 0, lsrc, 7, cudaMemcpyHostToDevice));
	EXPECT_EQ(cudaErrorInvalidValue, cudaMemcpyToArray(A, 0, 31, lsrc, 600,
							   cudaMemcpyHostToDevice));
	EXPECT_EQ(cudaSuccess, cudaMemcpyToArray(A, 0, 31, lsrc, 256, cudaMemcpyHostToDevice));
	EXPECT_EQ(cudaErrorInvalidValue, cudaMemcpyFromArray(lgot, A, 0, 31, 600,
							     cudaMemcpyDeviceToHost));
	EXPECT_EQ(cudaErrorInvalidValue, cudaMemcpyToArray(A, 0, 32, lsrc, 4,
							   cudaMemcpyHostToDevice));
	cudaGetLastError();

	/* the driver's: inside the first row only */
	ASSERT_EQ(cudaSuccess, afill(A, init_a));
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemcpyHtoA(ca, 2 * AW + 16, lsrc, 600));
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemcpyAtoH(lgot, ca, 2 * AW + 16, 600));
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemcpyAtoA((CUarray)B, AW + 8, ca, 2 * AW + 16, 600));
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemcpyDtoA(ca, 16, d, 600));
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemcpyHtoA(ca, AW + 16, lsrc, 200));
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemcpyHtoA(ca, AN - 16, lsrc, 16));
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemcpyHtoA(NULL, 0, lsrc, 64));
	ASSERT_EQ(cudaSuccess, aread(A, got));
	EXPECT_EQ(0, memcmp(got, init_a, AN));	/* untouched */
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyHtoA(ca, 16, lsrc, 200));
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyDtoA(ca, 2, d + 7, 8));
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyHtoAAsync(ca, 240, lsrc + 11, 16, self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamSynchronize(self->l.s));
	ASSERT_EQ(cudaSuccess, aread(A, got));
	memcpy(expect, init_a, AN);
	memcpy(expect + 16, lsrc, 200);
	memcpy(expect + 2, lsrc + 7, 8);
	memcpy(expect + 240, lsrc + 11, 16);
	EXPECT_EQ(0, memcmp(got, expect, AN));
	memset(back, 0, sizeof(back));
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyAtoH(back, ca, 0, 256));
	EXPECT_EQ(0, memcmp(back, expect, 256));
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyAtoA((CUarray)B, 0, ca, 0, 256));
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyAtoD(d, (CUarray)B, 0, 256));
	memset(back, 0, sizeof(back));
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyAtoHAsync(back, (CUarray)B, 0, 256, self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamSynchronize(self->l.s));
	EXPECT_EQ(0, memcmp(back, expect, 256));
	memset(back, 0, sizeof(back));
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyDtoH(back, d, 256));
	EXPECT_EQ(0, memcmp(back, expect, 256));

	/* a 1D array: its one row ("arr.cu.htoa.1d*", "arr.copy.1d*") */
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyHtoA((CUarray)O, 16, lsrc, 200));
	memset(back, 0, sizeof(back));
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyAtoH(back, (CUarray)O, 16, 200));
	EXPECT_EQ(0, memcmp(back, lsrc, 200));
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemcpyHtoA((CUarray)O, 16, lsrc, 248));
	ASSERT_EQ(cudaSuccess, cudaMemcpy2DToArray(O, 0, 0, lsrc, 256, 256, 1,
						   cudaMemcpyHostToDevice));
	EXPECT_EQ(cudaErrorInvalidValue, cudaMemcpy2DToArray(O, 0, 0, lsrc, 256, 256, 2,
							     cudaMemcpyHostToDevice));
	cudaGetLastError();
	ASSERT_EQ(cudaSuccess, cudaMemcpyToArray(O, 16, 0, lsrc + 7, 100, cudaMemcpyHostToDevice));
	memset(back, 0, sizeof(back));
	ASSERT_EQ(cudaSuccess, cudaMemcpy2DFromArray(back, 256, O, 0, 0, 256, 1,
						     cudaMemcpyDeviceToHost));
	EXPECT_EQ(0, memcmp(back, lsrc, 16));
	EXPECT_EQ(0, memcmp(back + 16, lsrc + 7, 100));
	EXPECT_EQ(0, memcmp(back + 116, lsrc + 116, 140));
	cuMemFree(d);
	EXPECT_EQ(cudaSuccess, cudaFreeArray(A));
	EXPECT_EQ(cudaSuccess, cudaFreeArray(B));
	EXPECT_EQ(cudaSuccess, cudaFreeArray(O));
}

/* cudaMemcpy3D and cuMemcpy2D/3D with arrays: positions and extents in
 * elements for the runtime, bytes for the driver ("arr.copy.3d.*",
 * "arr.cu.copy2d.*", "arr.cu.copy3d.*"). */
TEST_F(array, copies_3d)
{
	cudaArray_t A = uchar4_array(64, 32), B = uchar4_array(64, 32);
	struct cudaChannelFormatDesc d4 = cudaCreateChannelDesc(8, 8, 8, 8,
								cudaChannelFormatKindUnsigned);
	unsigned char full[2048], back[2048], box[80 * 6 * 2], want[2048];
	struct cudaMemcpy3DParms p;
	CUDA_MEMCPY2D c;
	CUDA_MEMCPY3D c3;
	cudaArray_t C = NULL, L = NULL;

	ASSERT_NE(NULL, A);
	ASSERT_NE(NULL, B);
	ASSERT_EQ(cudaSuccess, afill(A, pat));
	memcpy(lgot, linit, HN);
	memset(&p, 0, sizeof(p));
	p.srcArray = A;
	p.srcPos = make_cudaPos(4, 2, 0);
	p.dstPtr = make_cudaPitchedPtr(lgot, HP, HP, AH);
	p.extent = make_cudaExtent(50, 20, 1);
	p.kind = cudaMemcpyDefault;
	ASSERT_EQ(cudaSuccess, cudaMemcpy3D(&p));
	exp_from_array(HP, 16, 2, 200, 20);
	EXPECT_EQ(0, memcmp(lgot, lexp, HN));

	ASSERT_EQ(cudaSuccess, afill(A, init_a));
	memset(&p, 0, sizeof(p));
	p.srcPtr = make_cudaPitchedPtr(lsrc, HP, HP, AH);
	p.dstArray = A;
	p.dstPos = make_cudaPos(4, 2, 0);
	p.extent = make_cudaExtent(50, 20, 1);
	p.kind = cudaMemcpyHostToDevice;
	ASSERT_EQ(cudaSuccess, cudaMemcpy3DAsync(&p, self->l.s));
	ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(self->l.s));
	ASSERT_EQ(cudaSuccess, aread(A, got));
	exp_to_array(lsrc, HP, 16, 2, 200, 20);
	EXPECT_EQ(0, memcmp(got, expect, AN));
	p.extent = make_cudaExtent(200, 20, 1);		/* bytes by mistake */
	EXPECT_EQ(cudaErrorInvalidValue, cudaMemcpy3D(&p));
	p.extent = make_cudaExtent(50, 20, 1);
	p.srcArray = B;					/* array and pointer */
	EXPECT_EQ(cudaErrorInvalidValue, cudaMemcpy3D(&p));
	p.srcArray = NULL;
	p.dstPos = make_cudaPos(40, 0, 0);		/* "arr.oob.3d.*" */
	EXPECT_EQ(cudaErrorInvalidValue, cudaMemcpy3D(&p));
	p.dstPos = make_cudaPos(0, 0, 1);
	EXPECT_EQ(cudaErrorInvalidValue, cudaMemcpy3D(&p));
	p.dstPos = make_cudaPos(0, 0, 0);
	p.extent = make_cudaExtent(50, 4, 2);
	EXPECT_EQ(cudaErrorInvalidValue, cudaMemcpy3D(&p));
	cudaGetLastError();

	/* array to array, and the kind */
	ASSERT_EQ(cudaSuccess, afill(A, pat));
	ASSERT_EQ(cudaSuccess, afill(B, init_a));
	memset(&p, 0, sizeof(p));
	p.srcArray = A;
	p.srcPos = make_cudaPos(4, 2, 0);
	p.dstArray = B;
	p.dstPos = make_cudaPos(2, 1, 0);
	p.extent = make_cudaExtent(50, 20, 1);
	p.kind = cudaMemcpyHostToDevice;
	EXPECT_EQ(cudaErrorInvalidMemcpyDirection, cudaMemcpy3D(&p));
	cudaGetLastError();
	p.kind = cudaMemcpyDeviceToDevice;
	ASSERT_EQ(cudaSuccess, cudaMemcpy3D(&p));
	ASSERT_EQ(cudaSuccess, aread(B, got));
	memcpy(expect, init_a, AN);
	for (int y = 0; y < 20; y++)
		memcpy(expect + (1 + y) * AW + 8, pat + (2 + y) * AW + 16, 200);
	EXPECT_EQ(0, memcmp(got, expect, AN));

	/* a 3D array, whole and a box (2,1,1) 10 x 5 x 2 from pitch 80 */
	ASSERT_EQ(cudaSuccess, cudaMalloc3DArray(&C, &d4, make_cudaExtent(16, 8, 4), 0));
	for (int i = 0; i < 2048; i++)
		full[i] = (unsigned char)(i * 3 + 1);
	memset(&p, 0, sizeof(p));
	p.srcPtr = make_cudaPitchedPtr(full, 64, 16, 8);
	p.dstArray = C;
	p.extent = make_cudaExtent(16, 8, 4);
	p.kind = cudaMemcpyHostToDevice;
	ASSERT_EQ(cudaSuccess, cudaMemcpy3D(&p));
	for (int i = 0; i < (int)sizeof(box); i++)
		box[i] = (unsigned char)(200 - i);
	memset(&p, 0, sizeof(p));
	p.srcPtr = make_cudaPitchedPtr(box, 80, 80, 6);
	p.dstArray = C;
	p.dstPos = make_cudaPos(2, 1, 1);
	p.extent = make_cudaExtent(10, 5, 2);
	p.kind = cudaMemcpyHostToDevice;
	ASSERT_EQ(cudaSuccess, cudaMemcpy3D(&p));
	memcpy(want, full, 2048);
	for (int z = 0; z < 2; z++)
		for (int y = 0; y < 5; y++)
			memcpy(want + (1 + z) * 512 + (1 + y) * 64 + 8, box + z * 480 + y * 80, 40);
	memset(&p, 0, sizeof(p));
	memset(back, 0, sizeof(back));
	p.srcArray = C;
	p.dstPtr = make_cudaPitchedPtr(back, 64, 16, 8);
	p.extent = make_cudaExtent(16, 8, 4);
	p.kind = cudaMemcpyDeviceToHost;
	ASSERT_EQ(cudaSuccess, cudaMemcpy3D(&p));
	EXPECT_EQ(0, memcmp(want, back, 2048));
	EXPECT_EQ(cudaSuccess, cudaFreeArray(C));

	/* a layered array: layer 1 alone */
	ASSERT_EQ(cudaSuccess, cudaMalloc3DArray(&L, &d4, make_cudaExtent(16, 8, 4),
						 cudaArrayLayered));
	memset(&p, 0, sizeof(p));
	p.srcPtr = make_cudaPitchedPtr(full, 64, 16, 8);
	p.dstArray = L;
	p.extent = make_cudaExtent(16, 8, 4);
	p.kind = cudaMemcpyHostToDevice;
	ASSERT_EQ(cudaSuccess, cudaMemcpy3D(&p));
	p.srcPtr = make_cudaPitchedPtr(full + 1536, 64, 16, 8);
	p.dstPos = make_cudaPos(0, 0, 1);
	p.extent = make_cudaExtent(16, 8, 1);
	ASSERT_EQ(cudaSuccess, cudaMemcpy3D(&p));
	memcpy(want, full, 2048);
	memcpy(want + 512, full + 1536, 512);
	memset(&p, 0, sizeof(p));
	memset(back, 0, sizeof(back));
	p.srcArray = L;
	p.dstPtr = make_cudaPitchedPtr(back, 64, 16, 8);
	p.extent = make_cudaExtent(16, 8, 4);
	p.kind = cudaMemcpyDeviceToHost;
	ASSERT_EQ(cudaSuccess, cudaMemcpy3D(&p));
	EXPECT_EQ(0, memcmp(want, back, 2048));
	EXPECT_EQ(cudaSuccess, cudaFreeArray(L));

	/* the driver's: bytes, the array's pitch fields ignored */
	ASSERT_EQ(cudaSuccess, afill(A, init_a));
	memset(&c, 0, sizeof(c));
	c.srcMemoryType = CU_MEMORYTYPE_HOST;
	c.srcHost = lsrc;
	c.srcPitch = HP;
	c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
	c.dstArray = (CUarray)A;
	c.dstXInBytes = 16;
	c.dstY = 2;
	c.dstPitch = 7;
	c.WidthInBytes = 200;
	c.Height = 20;
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpy2D(&c));
	ASSERT_EQ(cudaSuccess, aread(A, got));
	exp_to_array(lsrc, HP, 16, 2, 200, 20);
	EXPECT_EQ(0, memcmp(got, expect, AN));
	c.dstY = 20;
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemcpy2D(&c));
	c.dstY = 2;
	c.dstXInBytes = 100;
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemcpy2D(&c));
	c.dstXInBytes = 2;
	EXPECT_EQ(CUDA_SUCCESS, cuMemcpy2DUnaligned(&c));
	c.dstArray = NULL;
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemcpy2D(&c));

	ASSERT_EQ(cudaSuccess, afill(A, pat));
	memset(&c, 0, sizeof(c));
	c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
	c.srcArray = (CUarray)A;
	c.srcXInBytes = 16;
	c.srcY = 2;
	c.dstMemoryType = CU_MEMORYTYPE_HOST;
	c.dstHost = lgot;
	c.dstPitch = HP;
	c.WidthInBytes = 200;
	c.Height = 20;
	memcpy(lgot, linit, HN);
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpy2DAsync(&c, self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamSynchronize(self->l.s));
	exp_from_array(HP, 16, 2, 200, 20);
	EXPECT_EQ(0, memcmp(lgot, lexp, HN));

	ASSERT_EQ(cudaSuccess, afill(B, init_a));
	memset(&c3, 0, sizeof(c3));
	c3.srcMemoryType = CU_MEMORYTYPE_ARRAY;
	c3.srcArray = (CUarray)A;
	c3.srcXInBytes = 16;
	c3.srcY = 2;
	c3.dstMemoryType = CU_MEMORYTYPE_ARRAY;
	c3.dstArray = (CUarray)B;
	c3.dstXInBytes = 8;
	c3.dstY = 1;
	c3.WidthInBytes = 200;
	c3.Height = 20;
	c3.Depth = 1;
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpy3D(&c3));
	ASSERT_EQ(cudaSuccess, aread(B, got));
	memcpy(expect, init_a, AN);
	for (int y = 0; y < 20; y++)
		memcpy(expect + (1 + y) * AW + 8, pat + (2 + y) * AW + 16, 200);
	EXPECT_EQ(0, memcmp(got, expect, AN));
	c3.srcLOD = 1;
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemcpy3D(&c3));
	EXPECT_EQ(cudaSuccess, cudaFreeArray(A));
	EXPECT_EQ(cudaSuccess, cudaFreeArray(B));
}

/* The 2D forms' bounds, pitches and empty copies ("arr.oob.*",
 * "arr.copy.align.*", "arr.copy.w0/h0"). */
TEST_F(array, bounds)
{
	cudaArray_t A = uchar4_array(64, 32), B = uchar4_array(64, 32);

	ASSERT_NE(NULL, A);
	ASSERT_NE(NULL, B);
	ASSERT_EQ(cudaSuccess, afill(A, init_a));
	EXPECT_EQ(cudaErrorInvalidValue, cudaMemcpy2DToArray(A, 100, 0, lsrc, HP, 200, 4,
							     cudaMemcpyHostToDevice));
	EXPECT_EQ(cudaErrorInvalidValue, cudaGetLastError());
	EXPECT_EQ(cudaErrorInvalidValue, cudaMemcpy2DToArray(A, 0, 20, lsrc, HP, 200, 20,
							     cudaMemcpyHostToDevice));
	EXPECT_EQ(cudaErrorInvalidValue, cudaMemcpy2DToArray(A, 0, 0, lsrc, HP, 260, 4,
							     cudaMemcpyHostToDevice));
	EXPECT_EQ(cudaSuccess, cudaMemcpy2DToArray(A, 256, 0, lsrc, HP, 0, 4,
						   cudaMemcpyHostToDevice));
	EXPECT_EQ(cudaErrorInvalidValue, cudaMemcpy2DFromArray(lgot, HP, A, 0, 20, 200, 20,
							       cudaMemcpyDeviceToHost));
	EXPECT_EQ(cudaErrorInvalidValue, cudaMemcpy2DArrayToArray(B, 100, 0, A, 0, 0, 200, 4,
								  cudaMemcpyDeviceToDevice));
	EXPECT_EQ(cudaErrorInvalidValue, cudaMemcpy2DArrayToArray(B, 0, 0, A, 0, 30, 200, 4,
								  cudaMemcpyDeviceToDevice));
	EXPECT_EQ(cudaErrorInvalidPitchValue, cudaMemcpy2DToArray(A, 0, 0, lsrc, 100, 200, 4,
								  cudaMemcpyHostToDevice));
	EXPECT_EQ(cudaErrorInvalidPitchValue, cudaGetLastError());
	EXPECT_EQ(cudaSuccess, cudaMemcpy2DToArray(A, 2, 0, lsrc, HP, 200, 4,
						   cudaMemcpyHostToDevice));
	EXPECT_EQ(cudaSuccess, cudaMemcpy2DToArray(A, 0, 0, lsrc, HP, 201, 4,
						   cudaMemcpyHostToDevice));
	EXPECT_EQ(cudaSuccess, cudaMemcpy2DToArray(A, 0, 0, lsrc, 301, 200, 4,
						   cudaMemcpyHostToDevice));
	EXPECT_EQ(cudaSuccess, cudaMemcpy2DToArray(A, 0, 0, lsrc, HP, 0, 4,
						   cudaMemcpyHostToDevice));
	EXPECT_EQ(cudaSuccess, cudaMemcpy2DToArray(A, 0, 0, lsrc, HP, 200, 0,
						   cudaMemcpyHostToDevice));
	EXPECT_EQ(cudaSuccess, cudaGetLastError());
	/* the refused copies wrote nothing: the last three wrote rows 0-3 */
	ASSERT_EQ(cudaSuccess, aread(A, got));
	EXPECT_EQ(0, memcmp(got + 4 * AW, init_a + 4 * AW, AN - 4 * AW));
	EXPECT_EQ(cudaSuccess, cudaDeviceSynchronize());
	EXPECT_EQ(cudaSuccess, cudaFreeArray(A));
	EXPECT_EQ(cudaSuccess, cudaFreeArray(B));
}

static CUmemcpy3DOperand arr_op(CUarray a, size_t x, size_t y, size_t z)
{
	CUmemcpy3DOperand o;

	memset(&o, 0, sizeof(o));
	o.type = CU_MEMCPY_OPERAND_TYPE_ARRAY;
	o.op.array.array = a;
	o.op.array.offset.x = x;
	o.op.array.offset.y = y;
	o.op.array.offset.z = z;
	return o;
}

static CUmemcpy3DOperand ptr_op(const void *p, size_t row)
{
	CUmemcpy3DOperand o;

	memset(&o, 0, sizeof(o));
	o.type = CU_MEMCPY_OPERAND_TYPE_POINTER;
	o.op.ptr.ptr = (CUdeviceptr)(uintptr_t)p;
	o.op.ptr.rowLength = row;
	return o;
}

static CUresult batch1(CUmemcpy3DOperand src, CUmemcpy3DOperand dst, size_t w, size_t h,
		       size_t d, CUstream st)
{
	CUDA_MEMCPY3D_BATCH_OP op;

	memset(&op, 0, sizeof(op));
	op.src = src;
	op.dst = dst;
	op.extent.width = w;
	op.extent.height = h;
	op.extent.depth = d;
	op.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM;
	return cuMemcpy3DBatchAsync(1, &op, 0, st);
}

/* Array operands of cuMemcpy3DBatchAsync: extent, offsets and the other
 * side's row length in elements ("batch.cu.3d.*array*"). */
TEST_F(array, batch_operands)
{
	CUDA_ARRAY3D_DESCRIPTOR a1 = { 64, 32, 0, CU_AD_FORMAT_UNSIGNED_INT8, 1, 0 };
	CUDA_ARRAY3D_DESCRIPTOR af = { 64, 32, 0, CU_AD_FORMAT_FLOAT, 1, 0 };
	CUDA_ARRAY3D_DESCRIPTOR a3 = { 16, 8, 4, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0 };
	cudaArray_t A = uchar4_array(64, 32), B = uchar4_array(64, 32);
	CUarray N1 = NULL, F = NULL, C3 = NULL;
	CUstream st = self->l.s;
	unsigned char *pin = NULL;

	ASSERT_NE(NULL, A);
	ASSERT_NE(NULL, B);
	ASSERT_EQ(CUDA_SUCCESS, cuArray3DCreate(&N1, &a1));
	ASSERT_EQ(CUDA_SUCCESS, cuArray3DCreate(&F, &af));
	ASSERT_EQ(CUDA_SUCCESS, cuArray3DCreate(&C3, &a3));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAllocHost((void **)&pin, HN));

	/* pageable rows of 75 elements (300 bytes) to the array at (4, 2) */
	ASSERT_EQ(cudaSuccess, afill(A, init_a));
	ASSERT_EQ(CUDA_SUCCESS, batch1(ptr_op(lsrc, 75), arr_op((CUarray)A, 4, 2, 0), 50, 20, 1,
				       st));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamSynchronize(st));
	ASSERT_EQ(cudaSuccess, aread(A, got));
	exp_to_array(lsrc, HP, 16, 2, 200, 20);
	EXPECT_EQ(0, memcmp(got, expect, AN));
	/* the array at (4, 2) to page-locked memory, rows of 75 */
	ASSERT_EQ(cudaSuccess, afill(A, pat));
	memcpy(pin, linit, HN);
	ASSERT_EQ(CUDA_SUCCESS, batch1(arr_op((CUarray)A, 4, 2, 0), ptr_op(pin, 75), 50, 20, 1,
				       st));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamSynchronize(st));
	exp_from_array(HP, 16, 2, 200, 20);
	EXPECT_EQ(0, memcmp(pin, lexp, HN));
	/* array to array */
	ASSERT_EQ(cudaSuccess, afill(B, init_a));
	ASSERT_EQ(CUDA_SUCCESS, batch1(arr_op((CUarray)A, 4, 2, 0), arr_op((CUarray)B, 0, 0, 0),
				       50, 20, 1, st));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamSynchronize(st));
	ASSERT_EQ(cudaSuccess, aread(B, got));
	memcpy(expect, init_a, AN);
	for (int y = 0; y < 20; y++)
		memcpy(expect + y * AW, pat + (2 + y) * AW + 16, 200);
	EXPECT_EQ(0, memcmp(got, expect, AN));

	/* the refusals; nothing of them runs */
	ASSERT_EQ(cudaSuccess, afill(A, init_a));
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE,
		  batch1(ptr_op(lsrc, 75), arr_op((CUarray)A, 40, 2, 0), 50, 20, 1, st));
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE,
		  batch1(ptr_op(lsrc, 75), arr_op((CUarray)A, 4, 20, 0), 50, 20, 1, st));
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE,
		  batch1(ptr_op(lsrc, 75), arr_op((CUarray)A, 4, 0, 1), 50, 20, 1, st));
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE,
		  batch1(ptr_op(lsrc, 75), arr_op((CUarray)A, 4, 0, 0), 50, 20, 2, st));
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE,
		  batch1(ptr_op(lsrc, 49), arr_op((CUarray)A, 4, 0, 0), 50, 20, 1, st));
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE,
		  batch1(arr_op((CUarray)A, 0, 0, 0), arr_op(N1, 0, 0, 0), 16, 4, 1, st));
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE,
		  batch1(ptr_op(lsrc, 75), arr_op(NULL, 0, 0, 0), 16, 4, 1, st));
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, batch1(ptr_op(lsrc, 75),
		  arr_op((CUarray)(uintptr_t)0x1234, 0, 0, 0), 16, 4, 1, st));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamSynchronize(st));
	ASSERT_EQ(cudaSuccess, aread(A, got));
	EXPECT_EQ(0, memcmp(got, init_a, AN));
	/* one element size, another format: fine; a box in a 3D array */
	EXPECT_EQ(CUDA_SUCCESS, batch1(arr_op((CUarray)A, 0, 0, 0), arr_op(F, 0, 0, 0), 16, 4, 1,
				       st));
	EXPECT_EQ(CUDA_SUCCESS, batch1(ptr_op(lsrc, 0), arr_op(C3, 1, 1, 1), 8, 4, 2, st));
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, batch1(ptr_op(lsrc, 0), arr_op(C3, 1, 1, 3), 8, 4, 2,
						   st));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamSynchronize(st));
	{
		unsigned char back[2048], want[2048];
		CUDA_MEMCPY3D c;

		memset(want, 0, sizeof(want));
		memset(&c, 0, sizeof(c));
		c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
		c.srcArray = C3;
		c.dstMemoryType = CU_MEMORYTYPE_HOST;
		c.dstHost = back;
		c.dstPitch = 64;
		c.dstHeight = 8;
		c.WidthInBytes = 64;
		c.Height = 8;
		c.Depth = 4;
		ASSERT_EQ(CUDA_SUCCESS, cuMemcpy3D(&c));
		/* 8 elements x 4 rows x 2 slices of rows of 32 bytes */
		for (int z = 0; z < 2; z++)
			for (int y = 0; y < 4; y++)
				memcpy(want + (1 + z) * 512 + (1 + y) * 64 + 4,
				       lsrc + z * 128 + y * 32, 32);
		{
			int bad = 0;

			/* the box only: the rest of the array was never written */
			for (int z = 1; z <= 2; z++)
				for (int y = 1; y <= 4; y++)
					bad += !!memcmp(back + z * 512 + y * 64 + 4,
							want + z * 512 + y * 64 + 4, 32);
			EXPECT_EQ(0, bad);
		}
	}
	cuMemFreeHost(pin);
	cuArrayDestroy(N1);
	cuArrayDestroy(F);
	cuArrayDestroy(C3);
	EXPECT_EQ(cudaSuccess, cudaFreeArray(A));
	EXPECT_EQ(cudaSuccess, cudaFreeArray(B));
}

/* A block-compressed array's element is its 4x4 block of texels: rows of
 * blocks, copied as bytes of whole blocks. */
TEST_F(array, block_compressed)
{
	CUDA_ARRAY3D_DESCRIPTOR d = { 64, 30, 0, CU_AD_FORMAT_BC1_UNORM, 4, 0 }, back;
	struct cudaChannelFormatDesc bc7 = cudaCreateChannelDesc(
		8, 8, 8, 8, cudaChannelFormatKindUnsignedBlockCompressed7);
	unsigned char img[128 * 8], got2[128 * 8];
	cudaMipmappedArray_t mm = NULL;
	cudaArray_t lv = NULL;
	CUarray a = NULL;

	/* 64 x 30 texels: 16 x 8 blocks of 8 bytes */
	ASSERT_EQ(CUDA_SUCCESS, cuArray3DCreate(&a, &d));
	ASSERT_EQ(CUDA_SUCCESS, cuArray3DGetDescriptor(&back, a));
	EXPECT_EQ(64, back.Width);
	EXPECT_EQ(30, back.Height);
	for (size_t i = 0; i < sizeof(img); i++)
		img[i] = (unsigned char)(i * 13 + 1);
	ASSERT_EQ(cudaSuccess, cudaMemcpy2DToArray((cudaArray_t)a, 0, 0, img, 128, 128, 8,
						   cudaMemcpyHostToDevice));
	EXPECT_EQ(cudaErrorInvalidValue, cudaMemcpy2DToArray((cudaArray_t)a, 8, 0, img, 128,
							     128, 8, cudaMemcpyHostToDevice));
	EXPECT_EQ(cudaErrorInvalidValue, cudaMemcpy2DToArray((cudaArray_t)a, 0, 0, img, 128,
							     128, 9, cudaMemcpyHostToDevice));
	cudaGetLastError();
	memset(got2, 0, sizeof(got2));
	ASSERT_EQ(cudaSuccess, cudaMemcpy2DFromArray(got2, 128, (cudaArray_t)a, 0, 0, 128, 8,
						     cudaMemcpyDeviceToHost));
	EXPECT_EQ(0, memcmp(img, got2, sizeof(img)));
	EXPECT_EQ(CUDA_SUCCESS, cuArrayDestroy(a));

	/* levels below a block still hold one block (16 bytes of BC7) */
	ASSERT_EQ(cudaSuccess, cudaMallocMipmappedArray(&mm, &bc7, make_cudaExtent(16, 16, 0), 5,
							0));
	ASSERT_EQ(cudaSuccess, cudaGetMipmappedArrayLevel(&lv, mm, 4));
	EXPECT_EQ(cudaSuccess, cudaMemcpy2DToArray(lv, 0, 0, img, 16, 16, 1,
						   cudaMemcpyHostToDevice));
	EXPECT_EQ(cudaErrorInvalidValue, cudaMemcpy2DToArray(lv, 0, 0, img, 32, 32, 1,
							     cudaMemcpyHostToDevice));
	cudaGetLastError();
	memset(got2, 0, sizeof(got2));
	ASSERT_EQ(cudaSuccess, cudaMemcpy2DFromArray(got2, 16, lv, 0, 0, 16, 1,
						     cudaMemcpyDeviceToHost));
	EXPECT_EQ(0, memcmp(img, got2, 16));
	EXPECT_EQ(cudaSuccess, cudaFreeMipmappedArray(mm));
}

/* NV12: two planes of one array ("arr.planar.*"). */
TEST_F(array, nv12_planes)
{
	unsigned char y[128 * 64], uv[128 * 32], back[128 * 64];
	CUDA_ARRAY3D_DESCRIPTOR d;
	CUarray a, p0 = NULL, p1 = NULL, p2 = NULL;
	cudaArray_t ra = NULL, plane = NULL;
	CUresult r;

	for (unsigned int ch = 1; ch <= 4; ch++) {
		a = mk3(64, 32, 0, CU_AD_FORMAT_NV12, ch, 0, &r);
		EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, r);
		a = mk3(64, 32, 0, CU_AD_FORMAT_P010, ch, 0, &r);
		EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, r);
	}
	mk3(63, 32, 0, CU_AD_FORMAT_NV12, 3, CUDA_ARRAY3D_VIDEO_ENCODE_DECODE, &r);
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, r);
	mk3(64, 31, 0, CU_AD_FORMAT_NV12, 3, CUDA_ARRAY3D_VIDEO_ENCODE_DECODE, &r);
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, r);
	mk3(64, 32, 2, CU_AD_FORMAT_NV12, 3, CUDA_ARRAY3D_VIDEO_ENCODE_DECODE, &r);
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, r);
	/* a surface for video only ("arr.planar.nv12.surface", "pl.nv12.surface") */
	mk3(64, 32, 0, CU_AD_FORMAT_NV12, 3, CUDA_ARRAY3D_SURFACE_LDST, &r);
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, r);
	a = mk3(64, 32, 0, CU_AD_FORMAT_NV12, 3,
		CUDA_ARRAY3D_VIDEO_ENCODE_DECODE | CUDA_ARRAY3D_SURFACE_LDST, &r);
	EXPECT_EQ(CUDA_SUCCESS, r);
	EXPECT_EQ(CUDA_SUCCESS, cuArrayDestroy(a));
	{
		CUDA_ARRAY_DESCRIPTOR d2 = { 128, 64, CU_AD_FORMAT_NV12, 3 };
		CUarray x = NULL;

		EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, cuArrayCreate(&x, &d2));
	}

	a = mk3(128, 64, 0, CU_AD_FORMAT_NV12, 3, CUDA_ARRAY3D_VIDEO_ENCODE_DECODE, &r);
	ASSERT_EQ(CUDA_SUCCESS, r);
	ASSERT_EQ(CUDA_SUCCESS, cuArray3DGetDescriptor(&d, a));
	EXPECT_EQ(CU_AD_FORMAT_NV12, d.Format);
	EXPECT_EQ(3, d.NumChannels);
	EXPECT_EQ(CUDA_ARRAY3D_VIDEO_ENCODE_DECODE, d.Flags);
	ASSERT_EQ(CUDA_SUCCESS, cuArrayGetPlane(&p0, a, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuArrayGetPlane(&p1, a, 1));
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, cuArrayGetPlane(&p2, a, 2));
	ASSERT_EQ(CUDA_SUCCESS, cuArray3DGetDescriptor(&d, p0));
	EXPECT_EQ(128, d.Width);
	EXPECT_EQ(64, d.Height);
	EXPECT_EQ(CU_AD_FORMAT_UNSIGNED_INT8, d.Format);
	EXPECT_EQ(1, d.NumChannels);
	EXPECT_EQ(CUDA_ARRAY3D_VIDEO_ENCODE_DECODE, d.Flags);
	ASSERT_EQ(CUDA_SUCCESS, cuArray3DGetDescriptor(&d, p1));
	EXPECT_EQ(64, d.Width);
	EXPECT_EQ(32, d.Height);
	EXPECT_EQ(2, d.NumChannels);

	for (size_t i = 0; i < sizeof(y); i++)
		y[i] = (unsigned char)(i * 7 + 3);
	for (size_t i = 0; i < sizeof(uv); i++)
		uv[i] = (unsigned char)(i * 11 + 5);
	ASSERT_EQ(cudaSuccess, cudaMemcpy2DToArray((cudaArray_t)p0, 0, 0, y, 128, 128, 64,
						   cudaMemcpyHostToDevice));
	ASSERT_EQ(cudaSuccess, cudaMemcpy2DToArray((cudaArray_t)p1, 0, 0, uv, 128, 128, 32,
						   cudaMemcpyHostToDevice));
	memset(back, 0, sizeof(back));
	ASSERT_EQ(cudaSuccess, cudaMemcpy2DFromArray(back, 128, (cudaArray_t)p1, 0, 0, 128, 32,
						     cudaMemcpyDeviceToHost));
	EXPECT_EQ(0, memcmp(back, uv, sizeof(uv)));
	memset(back, 0, sizeof(back));
	ASSERT_EQ(cudaSuccess, cudaMemcpy2DFromArray(back, 128, (cudaArray_t)p0, 0, 0, 128, 64,
						     cudaMemcpyDeviceToHost));
	EXPECT_EQ(0, memcmp(back, y, sizeof(y)));	/* the chroma plane is elsewhere */
	/* the array itself has no layout to copy */
	EXPECT_EQ(cudaErrorInvalidValue, cudaMemcpy2DToArray((cudaArray_t)a, 0, 0, y, 128, 128, 64,
							     cudaMemcpyHostToDevice));
	cudaGetLastError();
	/* a plane goes with its array */
	EXPECT_EQ(CUDA_SUCCESS, cuArrayDestroy(p0));
	ASSERT_EQ(CUDA_SUCCESS, cuArray3DGetDescriptor(&d, p0));
	EXPECT_EQ(CUDA_SUCCESS, cuArrayDestroy(a));
	EXPECT_EQ(CUDA_ERROR_INVALID_HANDLE, cuArray3DGetDescriptor(&d, p0));
	EXPECT_EQ(CUDA_ERROR_INVALID_HANDLE, cuArray3DGetDescriptor(&d, p1));

	/* the runtime: no NV12 description, no planes of a plain array */
	ra = uchar4_array(64, 32);
	ASSERT_NE(NULL, ra);
	EXPECT_EQ(cudaErrorInvalidValue, cudaArrayGetPlane(&plane, ra, 0));
	EXPECT_EQ(NULL, plane);
	EXPECT_EQ(cudaErrorInvalidValue, cudaArrayGetPlane(NULL, ra, 0));
	EXPECT_EQ(cudaErrorInvalidResourceHandle, cudaArrayGetPlane(&plane, NULL, 0));
	cudaGetLastError();
	EXPECT_EQ(cudaSuccess, cudaFreeArray(ra));
}

/* Mipmapped arrays: level counts and extents, data per level, freeing a
 * level ("arr.mip.*", "arr.levelfree.*"). */
TEST_F(array, mipmaps)
{
	static const struct { size_t w, h, d; unsigned int fl, asked, levels; } c[] = {
		{ 64, 32, 0, 0, 7, 7 }, { 64, 32, 0, 0, 3, 3 }, { 64, 32, 0, 0, 0, 1 },
		{ 64, 32, 0, 0, 8, 7 }, { 64, 32, 0, 0, 100, 7 }, { 100, 60, 0, 0, 7, 7 },
		{ 64, 0, 0, 0, 7, 7 }, { 16, 8, 4, 0, 5, 5 },
		{ 64, 32, 4, cudaArrayLayered, 7, 7 }, { 32, 32, 6, cudaArrayCubemap, 6, 6 },
		{ 64, 32, 0, cudaArraySurfaceLoadStore, 7, 7 },
		{ 64, 32, 0, cudaArrayTextureGather, 7, 7 },
	};
	struct cudaChannelFormatDesc d4 = cudaCreateChannelDesc(8, 8, 8, 8,
								cudaChannelFormatKindUnsigned);
	unsigned char src[128 * 16], back[128 * 16], keep[256 * 32];
	cudaMipmappedArray_t mm = NULL;
	cudaArray_t l0 = NULL, l1 = NULL, bad = NULL;
	CUmipmappedArray cm = NULL;

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		ASSERT_EQ(cudaSuccess, cudaMallocMipmappedArray(&mm, &d4,
				make_cudaExtent(c[i].w, c[i].h, c[i].d), c[i].asked, c[i].fl))
			TH_LOG("case %zu", i);
		for (unsigned int n = 0; n <= c[i].levels; n++) {
			struct cudaExtent e;
			unsigned int fl;
			cudaArray_t a = NULL;
			cudaError_t er = cudaGetMipmappedArrayLevel(&a, mm, n);
			int layers = c[i].fl & (cudaArrayLayered | cudaArrayCubemap);

			if (n == c[i].levels) {
				EXPECT_EQ(cudaErrorInvalidValue, er) TH_LOG("case %zu", i);
				cudaGetLastError();
				continue;
			}
			ASSERT_EQ(cudaSuccess, er) TH_LOG("case %zu level %u", i, n);
			ASSERT_EQ(cudaSuccess, cudaArrayGetInfo(NULL, &e, &fl, a));
			EXPECT_EQ(c[i].w >> n ? c[i].w >> n : 1, e.width);
			EXPECT_EQ(!c[i].h ? 0 : c[i].h >> n ? c[i].h >> n : 1, e.height);
			EXPECT_EQ(!c[i].d ? 0 : layers ? c[i].d : c[i].d >> n ? c[i].d >> n : 1,
				  e.depth);
			EXPECT_EQ(c[i].fl, fl);
		}
		EXPECT_EQ(cudaSuccess, cudaFreeMipmappedArray(mm));
	}
	EXPECT_EQ(cudaErrorInvalidValue, cudaMallocMipmappedArray(&mm, &d4,
			make_cudaExtent(0, 32, 0), 1, 0));
	cudaGetLastError();

	/* the data of level 1 and level 0 are apart ("arr.mip.data.*") */
	ASSERT_EQ(cudaSuccess, cudaMallocMipmappedArray(&mm, &d4, make_cudaExtent(64, 32, 0), 7, 0));
	ASSERT_EQ(cudaSuccess, cudaGetMipmappedArrayLevel(&l0, mm, 0));
	ASSERT_EQ(cudaSuccess, cudaGetMipmappedArrayLevel(&l1, mm, 1));
	ASSERT_EQ(cudaSuccess, cudaMemcpy2DToArray(l0, 0, 0, pat, 256, 256, 32,
						   cudaMemcpyHostToDevice));
	for (size_t i = 0; i < sizeof(src); i++)
		src[i] = (unsigned char)(i * 5 + 9);
	ASSERT_EQ(cudaSuccess, cudaMemcpy2DToArray(l1, 0, 0, src, 128, 128, 16,
						   cudaMemcpyHostToDevice));
	ASSERT_EQ(cudaSuccess, cudaMemcpy2DFromArray(back, 128, l1, 0, 0, 128, 16,
						     cudaMemcpyDeviceToHost));
	EXPECT_EQ(0, memcmp(src, back, sizeof(src)));
	ASSERT_EQ(cudaSuccess, cudaMemcpy2DFromArray(keep, 256, l0, 0, 0, 256, 32,
						     cudaMemcpyDeviceToHost));
	EXPECT_EQ(0, memcmp(keep, pat, sizeof(keep)));
	EXPECT_EQ(cudaErrorInvalidValue, cudaMemcpy2DToArray(l1, 0, 0, src, 128, 128, 17,
							     cudaMemcpyHostToDevice));
	cudaGetLastError();
	/* freeing a level does nothing; the mipmapped array takes it along */
	EXPECT_EQ(cudaSuccess, cudaFreeArray(l1));
	EXPECT_EQ(cudaSuccess, cudaArrayGetInfo(NULL, NULL, NULL, l1));
	EXPECT_EQ(cudaSuccess, cudaFreeMipmappedArray(mm));
	EXPECT_EQ(cudaErrorInvalidResourceHandle, cudaArrayGetInfo(NULL, NULL, NULL, l1));
	EXPECT_EQ(cudaErrorInvalidResourceHandle, cudaGetMipmappedArrayLevel(&bad, mm, 0));
	EXPECT_EQ(cudaErrorInvalidResourceHandle, cudaFreeMipmappedArray(mm));
	cudaGetLastError();

	/* the driver's */
	{
		CUDA_ARRAY3D_DESCRIPTOR d = { 64, 32, 0, CU_AD_FORMAT_FLOAT, 1, 0 };
		CUarray lv = NULL;

		ASSERT_EQ(CUDA_SUCCESS, cuMipmappedArrayCreate(&cm, &d, 0));
		ASSERT_EQ(CUDA_SUCCESS, cuMipmappedArrayGetLevel(&lv, cm, 0));
		EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, cuMipmappedArrayGetLevel(&lv, cm, 1));
		EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, cuMipmappedArrayCreate(NULL, &d, 2));
		EXPECT_EQ(CUDA_SUCCESS, cuMipmappedArrayDestroy(cm));
		EXPECT_EQ(CUDA_ERROR_INVALID_HANDLE, cuMipmappedArrayDestroy(NULL));
	}
}

/* NULL and destroyed handles, optional outputs, memory requirements and
 * sparse properties of arrays that have none ("arr.null.*", "arr.req.*";
 * NVIDIA's driver crashes on destroyed handles). */
TEST_F(array, handles)
{
	struct cudaChannelFormatDesc d = cudaCreateChannelDesc(8, 0, 0, 0,
							       cudaChannelFormatKindUnsigned);
	CUDA_ARRAY_DESCRIPTOR d2 = { 64, 32, CU_AD_FORMAT_UNSIGNED_INT8, 1 };
	CUDA_ARRAY3D_DESCRIPTOR d3 = { 64, 32, 0, CU_AD_FORMAT_UNSIGNED_INT8, 1, 0 };
	struct cudaArrayMemoryRequirements mr;
	struct cudaArraySparseProperties sp;
	CUDA_ARRAY_MEMORY_REQUIREMENTS cmr;
	CUDA_ARRAY_SPARSE_PROPERTIES csp;
	unsigned char b[256] = { 0 };
	cudaArray_t a = NULL;
	CUarray ca = NULL;

	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, cuArrayCreate(NULL, &d2));
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, cuArrayCreate(&ca, NULL));
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, cuArray3DCreate(NULL, &d3));
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, cuArray3DCreate(&ca, NULL));
	EXPECT_EQ(cudaErrorInvalidValue, cudaMallocArray(NULL, &d, 64, 32, 0));
	EXPECT_EQ(cudaErrorInvalidValue, cudaMallocArray(&a, NULL, 64, 32, 0));
	EXPECT_EQ(cudaErrorInvalidValue, cudaMalloc3DArray(&a, NULL, make_cudaExtent(64, 32, 0), 0));
	EXPECT_EQ(cudaErrorInvalidValue, cudaGetLastError());
	EXPECT_EQ(cudaErrorInvalidResourceHandle, cudaArrayGetInfo(NULL, NULL, NULL, NULL));
	EXPECT_EQ(CUDA_ERROR_INVALID_HANDLE, cuArrayGetDescriptor(&d2, NULL));
	EXPECT_EQ(CUDA_ERROR_INVALID_HANDLE, cuArray3DGetDescriptor(&d3, NULL));
	EXPECT_EQ(cudaSuccess, cudaFreeArray(NULL));
	EXPECT_EQ(cudaSuccess, cudaFreeMipmappedArray(NULL));
	EXPECT_EQ(CUDA_ERROR_INVALID_HANDLE, cuArrayDestroy(NULL));
	EXPECT_EQ(cudaErrorInvalidResourceHandle,
		  cudaMemcpy2DToArray(NULL, 0, 0, b, 64, 64, 1, cudaMemcpyHostToDevice));
	EXPECT_EQ(cudaErrorInvalidResourceHandle,
		  cudaMemcpy2DFromArray(b, 64, NULL, 0, 0, 64, 1, cudaMemcpyDeviceToHost));
	cudaGetLastError();

	ASSERT_EQ(cudaSuccess, cudaMallocArray(&a, &d, 64, 32, 0));
	EXPECT_EQ(cudaErrorInvalidValue,
		  cudaMemcpy2DToArray(a, 0, 0, NULL, 64, 64, 1, cudaMemcpyHostToDevice));
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, cuArrayGetDescriptor(NULL, (CUarray)a));
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, cuArray3DGetDescriptor(NULL, (CUarray)a));
	EXPECT_EQ(cudaSuccess, cudaArrayGetInfo(NULL, NULL, NULL, a));
	EXPECT_EQ(cudaErrorInvalidValue, cudaArrayGetMemoryRequirements(&mr, a, 0));
	EXPECT_EQ(cudaErrorInvalidValue, cudaArrayGetMemoryRequirements(NULL, a, 0));
	EXPECT_EQ(cudaErrorInvalidValue, cudaArrayGetSparseProperties(&sp, a));
	EXPECT_EQ(cudaErrorInvalidValue, cudaArrayGetSparseProperties(NULL, a));
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, cuArrayGetMemoryRequirements(&cmr, (CUarray)a, 0));
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, cuArrayGetSparseProperties(&csp, (CUarray)a));
	cudaGetLastError();
	/* destroyed: an invalid handle everywhere, never a crash */
	EXPECT_EQ(cudaSuccess, cudaFreeArray(a));
	EXPECT_EQ(cudaErrorInvalidResourceHandle, cudaFreeArray(a));
	EXPECT_EQ(CUDA_ERROR_INVALID_HANDLE, cuArrayDestroy((CUarray)a));
	EXPECT_EQ(cudaErrorInvalidResourceHandle, cudaArrayGetInfo(NULL, NULL, NULL, a));
	EXPECT_EQ(cudaErrorInvalidResourceHandle,
		  cudaMemcpy2DToArray(a, 0, 0, b, 64, 64, 1, cudaMemcpyHostToDevice));
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemcpyHtoA((CUarray)a, 0, b, 64));
	EXPECT_EQ(cudaErrorInvalidResourceHandle, cudaArrayGetSparseProperties(&sp, a));
	/* a made-up handle */
	EXPECT_EQ(cudaErrorInvalidResourceHandle,
		  cudaArrayGetInfo(NULL, NULL, NULL, (cudaArray_t)(uintptr_t)0x1234));
	EXPECT_EQ(cudaSuccess, cudaDeviceSynchronize());
}

/* An array's storage is device memory of its context's GPU, returned when
 * it is destroyed or its context is reset. */
TEST_F(array, storage_and_context_reset)
{
	struct cudaChannelFormatDesc d = cudaCreateChannelDesc(32, 32, 32, 32,
							       cudaChannelFormatKindFloat);
	unsigned long long used0 = vidmem_used(0);
	cudaArray_t a = NULL, b = NULL;
	CUarray c = NULL;
	CUDA_ARRAY3D_DESCRIPTOR d3;

	/* 1024 x 512 float4: 8 MiB */
	ASSERT_EQ(cudaSuccess, cudaMallocArray(&a, &d, 1024, 512, 0));
	EXPECT_LE(used0 + 8 * MIB, vidmem_used(0));
	ASSERT_EQ(cudaSuccess, cudaFreeArray(a));
	EXPECT_EQ(used0, vidmem_wait(0, used0));

	ASSERT_EQ(cudaSuccess, cudaMallocArray(&b, &d, 1024, 512, 0));
	d3 = (CUDA_ARRAY3D_DESCRIPTOR){ 256, 256, 0, CU_AD_FORMAT_FLOAT, 4, 0 };
	ASSERT_EQ(CUDA_SUCCESS, cuArray3DCreate(&c, &d3));
	EXPECT_LE(used0 + 9 * MIB, vidmem_used(0));
	ASSERT_EQ(CUDA_SUCCESS, cuDevicePrimaryCtxReset(0));
	EXPECT_EQ(used0, vidmem_wait(0, used0));
	ASSERT_EQ(CUDA_SUCCESS, cuDevicePrimaryCtxRetain(&self->l.ctx, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuCtxSetCurrent(self->l.ctx));
	EXPECT_EQ(CUDA_ERROR_INVALID_HANDLE, cuArray3DGetDescriptor(&d3, c));
	EXPECT_EQ(CUDA_ERROR_INVALID_HANDLE, cuArrayDestroy((CUarray)b));
}

/* The video formats other than NV12 ("pl.*" of probe_planar.txt): planes
 * of 16-bit values, chroma planes of full height, three full planes, a
 * packed format copied as it is; layers; the dimensions refused. */
TEST_F(array, video_formats)
{
	static const struct {
		CUarray_format f;
		unsigned int ch, nplanes;
		struct { unsigned int w, h, elem; } pl[3];
		unsigned int packed_elem;
	} c[] = {
		{ CU_AD_FORMAT_P010, 3, 2, { { 128, 64, 2 }, { 64, 32, 4 } }, 0 },
		{ CU_AD_FORMAT_NV16, 3, 2, { { 128, 64, 1 }, { 64, 64, 2 } }, 0 },
		{ CU_AD_FORMAT_P216, 3, 2, { { 128, 64, 2 }, { 64, 64, 4 } }, 0 },
		{ CU_AD_FORMAT_Y444_PLANAR10, 3, 3,
		  { { 128, 64, 2 }, { 128, 64, 2 }, { 128, 64, 2 } }, 0 },
		{ CU_AD_FORMAT_YUY2, 4, 0, { { 0 } }, 4 },
		{ CU_AD_FORMAT_Y416, 4, 0, { { 0 } }, 8 },
	};
	static unsigned char img[3][128 * 64 * 8], back[128 * 64 * 8];

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		CUarray a, pl;
		CUresult r;
		CUDA_ARRAY3D_DESCRIPTOR d;

		TH_LOG("format 0x%x", c[i].f);
		EXPECT_EQ(NULL, mk3(128, 64, 0, c[i].f, c[i].ch, 0, &r));
		EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, r);	/* not for video */
		EXPECT_EQ(NULL, mk3(128, 64, 0, c[i].f, c[i].ch == 3 ? 1 : 3,
				    CUDA_ARRAY3D_VIDEO_ENCODE_DECODE, &r));
		EXPECT_EQ(NULL, mk3(127, 64, 0, c[i].f, c[i].ch,
				    CUDA_ARRAY3D_VIDEO_ENCODE_DECODE, &r));
		EXPECT_EQ(NULL, mk3(128, 64, 2, c[i].f, c[i].ch,
				    CUDA_ARRAY3D_VIDEO_ENCODE_DECODE, &r));
		a = mk3(128, 64, 3, c[i].f, c[i].ch,
			CUDA_ARRAY3D_VIDEO_ENCODE_DECODE | CUDA_ARRAY3D_LAYERED, &r);
		ASSERT_EQ(CUDA_SUCCESS, r);
		EXPECT_EQ(CUDA_SUCCESS, cuArrayDestroy(a));
		a = mk3(128, 64, 0, c[i].f, c[i].ch, CUDA_ARRAY3D_VIDEO_ENCODE_DECODE, &r);
		ASSERT_EQ(CUDA_SUCCESS, r);
		for (unsigned int p = 0; p < c[i].nplanes; p++) {
			size_t row = (size_t)c[i].pl[p].w * c[i].pl[p].elem;

			ASSERT_EQ(CUDA_SUCCESS, cuArrayGetPlane(&pl, a, p));
			ASSERT_EQ(CUDA_SUCCESS, cuArray3DGetDescriptor(&d, pl));
			EXPECT_EQ(c[i].pl[p].w, d.Width);
			EXPECT_EQ(c[i].pl[p].h, d.Height);
			for (size_t b = 0; b < sizeof(img[p]); b++)
				img[p][b] = (unsigned char)(b * 7 + p * 31 + i);
			ASSERT_EQ(CUDA_SUCCESS, cuMemcpyHtoA(pl, 0, img[p], row));
			ASSERT_EQ(cudaSuccess, cudaMemcpy2DToArray((cudaArray_t)pl, 0, 0, img[p], row,
								   row, c[i].pl[p].h,
								   cudaMemcpyHostToDevice));
			/* a row too wide */
			EXPECT_EQ(cudaErrorInvalidValue,
				  cudaMemcpy2DToArray((cudaArray_t)pl, 0, 0, img[p], row + 1, row + 1,
						      1, cudaMemcpyHostToDevice));
			cudaGetLastError();
		}
		/* every plane kept its bytes */
		for (unsigned int p = 0; p < c[i].nplanes; p++) {
			size_t row = (size_t)c[i].pl[p].w * c[i].pl[p].elem;

			ASSERT_EQ(CUDA_SUCCESS, cuArrayGetPlane(&pl, a, p));
			memset(back, 0, sizeof(back));
			ASSERT_EQ(cudaSuccess, cudaMemcpy2DFromArray(back, row, (cudaArray_t)pl, 0, 0,
								     row, c[i].pl[p].h,
								     cudaMemcpyDeviceToHost));
			ASSERT_EQ(0, memcmp(back, img[p], row * c[i].pl[p].h));
		}
		EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, cuArrayGetPlane(&pl, a, c[i].nplanes));
		if (c[i].packed_elem) {
			size_t row = 128 * (size_t)c[i].packed_elem;

			for (size_t b = 0; b < row * 64; b++)
				img[0][b] = (unsigned char)(b * 3 + i);
			ASSERT_EQ(cudaSuccess, cudaMemcpy2DToArray((cudaArray_t)a, 0, 0, img[0], row,
								   row, 64, cudaMemcpyHostToDevice));
			ASSERT_EQ(cudaSuccess, cudaMemcpy2DFromArray(back, row, (cudaArray_t)a, 0, 0,
								     row, 64, cudaMemcpyDeviceToHost));
			ASSERT_EQ(0, memcmp(back, img[0], row * 64));
			EXPECT_EQ(cudaErrorInvalidValue,
				  cudaMemcpy2DToArray((cudaArray_t)a, 0, 0, img[0], row + 1, row + 1,
						      1, cudaMemcpyHostToDevice));
			cudaGetLastError();
		}
		EXPECT_EQ(CUDA_SUCCESS, cuArrayDestroy(a));
	}
}

TEST_HARNESS_MAIN
