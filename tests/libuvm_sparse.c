// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libuvm_sparse - sparse and deferred-mapping CUDA arrays through libuvm:
 * cuArrayGetSparseProperties, cuArrayGetMemoryRequirements (and the
 * mipmapped and runtime forms), tile pools (cuMemCreate with
 * CU_MEM_CREATE_USAGE_TILE_POOL), cuMemMapArrayAsync, and every kind of
 * copy to, from and between such arrays.
 *
 * The codes and shapes are NVIDIA's (tests/real-driver/results/
 * probe_sparse.txt, "sp.*", which the realdriver suite also replays; the
 * key is in each comment).  Here: byte-exact data over whole arrays through
 * the driver and runtime copies, sync and async, array to array, batch
 * operands; a second GPU; the lifetime of tile-pool memory (released while
 * mapped, freed with the last mapping); stream order.
 *
 * Each test runs in its own process (the harness forks).  Module
 * parameters: the defaults (2 GPUs).
 */
#include "kselftest_harness.h"

#include "libuvm_test.h"
#include "real-driver/probes/sparse_map.h"

#include <cuda_runtime_api.h>
#include <driver_functions.h>

#define TILE 65536ULL
#define POOL (2ULL << 20)

static CUarray mk3(size_t w, size_t h, size_t d, CUarray_format f, unsigned int ch,
		   unsigned int flags)
{
	CUDA_ARRAY3D_DESCRIPTOR ad = { w, h, d, f, ch, flags };
	CUarray a = NULL;

	return cuArray3DCreate(&a, &ad) == CUDA_SUCCESS ? a : NULL;
}

static CUmemGenericAllocationHandle pool(int dev, size_t size, int usage)
{
	CUmemAllocationProp p;
	CUmemGenericAllocationHandle h = 0;

	memset(&p, 0, sizeof(p));
	p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	p.location.id = dev;
	p.allocFlags.usage = (unsigned short)usage;
	return cuMemCreate(&h, size, &p, 0) == CUDA_SUCCESS ? h : 0;
}

static CUresult map1(CUarrayMapInfo m, CUstream s)
{
	CUresult r = cuMemMapArrayAsync(&m, 1, s);

	return r ? r : cuStreamSynchronize(s);
}

/* Host copies of a box: @to_array writes host (pitch w) into the array. */
static CUresult box3(CUarray a, size_t x, size_t y, size_t z, size_t w, size_t h, size_t d,
		     void *host, int to_array)
{
	CUDA_MEMCPY3D c;

	memset(&c, 0, sizeof(c));
	c.WidthInBytes = w;
	c.Height = h;
	c.Depth = d;
	if (to_array) {
		c.srcMemoryType = CU_MEMORYTYPE_HOST;
		c.srcHost = host;
		c.srcPitch = w;
		c.srcHeight = h;
		c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
		c.dstArray = a;
		c.dstXInBytes = x;
		c.dstY = y;
		c.dstZ = z;
	} else {
		c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
		c.srcArray = a;
		c.srcXInBytes = x;
		c.srcY = y;
		c.srcZ = z;
		c.dstMemoryType = CU_MEMORYTYPE_HOST;
		c.dstHost = host;
		c.dstPitch = w;
		c.dstHeight = h;
	}
	return cuMemcpy3D(&c);
}

static void fill(unsigned char *p, size_t n, unsigned int seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 131u + (i >> 9) * 7u + seed * 29u + 1u);
}

FIXTURE(sparse) {
	struct lib l;
};

FIXTURE_SETUP(sparse)
{
	ASSERT_EQ(CUDA_SUCCESS, lib_init(&self->l));
}

FIXTURE_TEARDOWN(sparse)
{
}

/* Tile shapes, mip tails and memory requirements ("sp.shape.*"), both APIs. */
TEST_F(sparse, properties_and_requirements)
{
	static const struct {
		size_t w, h, d;
		CUarray_format f;
		unsigned int ch, flags, levels;
		unsigned int tw, th, td, first, tflags;
		unsigned long long tail, req;
	} c[] = {
		{ 64, 32, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0, 0, 128, 128, 1, 0, 1, 65536, 65536 },
		{ 128, 128, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0, 0, 128, 128, 1, 0, 0, 0, 65536 },
		{ 129, 128, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0, 0, 128, 128, 1, 0, 0, 0, 131072 },
		{ 300, 200, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0, 0, 128, 128, 1, 0, 0, 0, 327680 },
		{ 4096, 64, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0, 0, 128, 128, 1, 0, 1, 1048576, 1048576 },
		{ 1000, 1000, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0, 0, 128, 128, 1, 0, 0, 0, 4128768 },
		{ 300, 300, 0, CU_AD_FORMAT_UNSIGNED_INT8, 1, 0, 0, 256, 256, 1, 0, 0, 0, 131072 },
		{ 512, 512, 0, CU_AD_FORMAT_UNSIGNED_INT8, 2, 0, 0, 256, 128, 1, 0, 0, 0, 524288 },
		{ 512, 512, 0, CU_AD_FORMAT_UNSIGNED_INT16, 4, 0, 0, 128, 64, 1, 0, 0, 0, 2097152 },
		{ 512, 512, 0, CU_AD_FORMAT_FLOAT, 4, 0, 0, 64, 64, 1, 0, 0, 0, 4194304 },
		{ 1024, 1024, 0, CU_AD_FORMAT_BC1_UNORM, 4, 0, 0, 512, 256, 1, 0, 0, 0, 524288 },
		{ 1024, 1024, 0, CU_AD_FORMAT_BC7_UNORM, 4, 0, 0, 256, 256, 1, 0, 0, 0, 1048576 },
		{ 64, 64, 64, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0, 0, 32, 32, 16, 0, 0, 0, 1048576 },
		{ 16, 8, 4, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0, 0, 32, 32, 16, 0, 1, 65536, 65536 },
		{ 128, 128, 64, CU_AD_FORMAT_UNSIGNED_INT8, 1, 0, 0, 64, 32, 32, 0, 0, 0, 1048576 },
		{ 64, 64, 64, CU_AD_FORMAT_FLOAT, 4, 0, 0, 16, 16, 16, 0, 0, 0, 4194304 },
		{ 300, 200, 3, CU_AD_FORMAT_UNSIGNED_INT8, 4, CUDA_ARRAY3D_LAYERED, 0,
		  128, 128, 1, 0, 0, 0, 983040 },
		{ 1024, 1024, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0, 11, 128, 128, 1, 4, 0, 65536,
		  5636096 },
		{ 1024, 1024, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0, 3, 128, 128, 1, 3, 0, 0, 5505024 },
		{ 300, 200, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0, 9, 128, 128, 1, 1, 0, 131072, 458752 },
		{ 4096, 64, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0, 13, 128, 128, 1, 0, 1, 1441792,
		  1441792 },
		{ 256, 256, 256, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0, 9, 32, 32, 16, 4, 0, 65536,
		  76742656 },
		{ 256, 256, 3, CU_AD_FORMAT_UNSIGNED_INT8, 4, CUDA_ARRAY3D_LAYERED, 9,
		  128, 128, 1, 2, 0, 65536, 1114112 },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		CUDA_ARRAY3D_DESCRIPTOR d = { c[i].w, c[i].h, c[i].d, c[i].f, c[i].ch, 0 };
		CUDA_ARRAY_SPARSE_PROPERTIES p;
		CUDA_ARRAY_MEMORY_REQUIREMENTS m;
		CUmipmappedArray mm = NULL;
		CUarray a = NULL;

		TH_LOG("shape %zu: %zux%zux%zu", i, c[i].w, c[i].h, c[i].d);
		memset(&p, 0xff, sizeof(p));
		d.Flags = c[i].flags | CUDA_ARRAY3D_SPARSE;
		if (c[i].levels) {
			ASSERT_EQ(CUDA_SUCCESS, cuMipmappedArrayCreate(&mm, &d, c[i].levels));
			ASSERT_EQ(CUDA_SUCCESS, cuMipmappedArrayGetSparseProperties(&p, mm));
			/* sparse, not deferred: no requirements ("arr.req.sparse2d.memreq") */
			EXPECT_EQ(CUDA_ERROR_INVALID_VALUE,
				  cuMipmappedArrayGetMemoryRequirements(&m, mm, 0));
			ASSERT_EQ(CUDA_SUCCESS, cuMipmappedArrayDestroy(mm));
		} else {
			ASSERT_EQ(CUDA_SUCCESS, cuArray3DCreate(&a, &d));
			ASSERT_EQ(CUDA_SUCCESS, cuArrayGetSparseProperties(&p, a));
			EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, cuArrayGetMemoryRequirements(&m, a, 0));
			ASSERT_EQ(CUDA_SUCCESS, cuArrayDestroy(a));
		}
		EXPECT_EQ(c[i].tw, p.tileExtent.width);
		EXPECT_EQ(c[i].th, p.tileExtent.height);
		EXPECT_EQ(c[i].td, p.tileExtent.depth);
		EXPECT_EQ(c[i].first, p.miptailFirstLevel);
		EXPECT_EQ(c[i].tail, p.miptailSize);
		EXPECT_EQ(c[i].tflags, p.flags);
		EXPECT_EQ(0u, p.reserved[0] | p.reserved[1] | p.reserved[2] | p.reserved[3]);

		memset(&m, 0xff, sizeof(m));
		d.Flags = c[i].flags | CUDA_ARRAY3D_DEFERRED_MAPPING;
		if (c[i].levels) {
			ASSERT_EQ(CUDA_SUCCESS, cuMipmappedArrayCreate(&mm, &d, c[i].levels));
			/* any device number ("arr.req.deferred2d.memreq.dev-1") */
			ASSERT_EQ(CUDA_SUCCESS, cuMipmappedArrayGetMemoryRequirements(&m, mm, 1));
			EXPECT_EQ(CUDA_ERROR_INVALID_VALUE,
				  cuMipmappedArrayGetSparseProperties(&p, mm));
			ASSERT_EQ(CUDA_SUCCESS, cuMipmappedArrayDestroy(mm));
		} else {
			ASSERT_EQ(CUDA_SUCCESS, cuArray3DCreate(&a, &d));
			ASSERT_EQ(CUDA_SUCCESS, cuArrayGetMemoryRequirements(&m, a, 0));
			EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, cuArrayGetSparseProperties(&p, a));
			ASSERT_EQ(CUDA_SUCCESS, cuArrayDestroy(a));
		}
		EXPECT_EQ(c[i].req, m.size);
		EXPECT_EQ(TILE, m.alignment);
	}

	/* the runtime's forms, and a level of a mipmapped array */
	{
		struct cudaChannelFormatDesc cd = cudaCreateChannelDesc(8, 8, 8, 8,
									cudaChannelFormatKindUnsigned);
		struct cudaArraySparseProperties rp;
		struct cudaArrayMemoryRequirements rm;
		cudaMipmappedArray_t rmm = NULL;
		cudaArray_t ra = NULL, lv = NULL;

		ASSERT_EQ(cudaSuccess, cudaMallocArray(&ra, &cd, 64, 32, cudaArraySparse));
		ASSERT_EQ(cudaSuccess, cudaArrayGetSparseProperties(&rp, ra));
		EXPECT_EQ(128u, rp.tileExtent.width);
		EXPECT_EQ(65536ull, rp.miptailSize);
		EXPECT_EQ(cudaSuccess, cudaFreeArray(ra));
		ASSERT_EQ(cudaSuccess, cudaMalloc3DArray(&ra, &cd, make_cudaExtent(1024, 1024, 0),
							 cudaArrayDeferredMapping));
		ASSERT_EQ(cudaSuccess, cudaArrayGetMemoryRequirements(&rm, ra, 0));
		EXPECT_EQ(4194304ull, (unsigned long long)rm.size);
		EXPECT_EQ(cudaSuccess, cudaFreeArray(ra));
		ASSERT_EQ(cudaSuccess, cudaMallocMipmappedArray(&rmm, &cd,
								make_cudaExtent(1024, 1024, 0), 11,
								cudaArraySparse));
		ASSERT_EQ(cudaSuccess, cudaGetMipmappedArrayLevel(&lv, rmm, 2));
		EXPECT_EQ(cudaErrorInvalidValue, cudaArrayGetSparseProperties(&rp, lv));
		EXPECT_EQ(cudaSuccess, cudaFreeMipmappedArray(rmm));
	}
}

/* 2D tiles: the pool memory an extent takes, data over mapped and unmapped
 * tiles, unmap and remap, edges ("sp.t2.*"). */
TEST_F(sparse, tiles_2d)
{
	const size_t T = 512, W = 1024 * 4, H = 1024;
	CUmemGenericAllocationHandle h = pool(0, 2 * POOL, CU_MEM_CREATE_USAGE_TILE_POOL);
	CUarray a = mk3(1024, 1024, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, CUDA_ARRAY3D_SPARSE);
	unsigned char *img = malloc(W * H), *back = malloc(W * H), *want = calloc(W * H, 1);
	unsigned char tile[T * 128];

	ASSERT_TRUE(h && a && img && back && want);
	/* nothing mapped: zeros, writes go nowhere */
	fill(img, W * H, 1);
	ASSERT_EQ(CUDA_SUCCESS, box3(a, 0, 0, 0, W, H, 1, img, 1));
	memset(back, 0x5a, W * H);
	ASSERT_EQ(CUDA_SUCCESS, box3(a, 0, 0, 0, W, H, 1, back, 0));
	ASSERT_EQ(0, memcmp(back, want, W * H));

	/* 2x2 tiles at (0,0) from pool offset 0; the whole image written:
	 * only those tiles keep it */
	ASSERT_EQ(CUDA_SUCCESS, map1(lvl(a, 0, 0, 0, 0, 256, 256, 1, h, 0), self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, box3(a, 0, 0, 0, W, H, 1, img, 1));
	ASSERT_EQ(CUDA_SUCCESS, box3(a, 0, 0, 0, W, H, 1, back, 0));
	for (size_t y = 0; y < 256; y++)
		memcpy(want + y * W, img + y * W, 2 * T);
	ASSERT_EQ(0, memcmp(back, want, W * H));

	/* pool tile i holds tile (i % 2, i / 2) of the extent, x first */
	for (unsigned int i = 0; i < 4; i++) {
		ASSERT_EQ(CUDA_SUCCESS, map1(lvl(a, 0, 512, 512, 0, 128, 128, 1, h, i * TILE),
					     self->l.s));
		ASSERT_EQ(CUDA_SUCCESS, box3(a, 4 * T, 512, 0, T, 128, 1, tile, 0));
		for (size_t y = 0; y < 128; y++)
			ASSERT_EQ(0, memcmp(tile + y * T,
					    img + ((i / 2) * 128 + y) * W + (i % 2) * T, T));
	}

	/* a box across a tile boundary: inner parts of four tiles */
	fill(img, W * H, 2);
	ASSERT_EQ(CUDA_SUCCESS, box3(a, 300, 100, 0, 500, 60, 1, img, 1));
	ASSERT_EQ(CUDA_SUCCESS, box3(a, 0, 0, 0, W, H, 1, back, 0));
	for (size_t y = 0; y < 60; y++)
		memcpy(want + (100 + y) * W + 300, img + y * 500, 500);
	ASSERT_EQ(0, memcmp(back, want, W * 256));

	/* unmap tile (1,1): it reads zeros; mapped back at its memory, the
	 * data is there again */
	ASSERT_EQ(CUDA_SUCCESS, map1(lvl(a, 0, 128, 128, 0, 128, 128, 1, 0, 0), self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, box3(a, T, 128, 0, T, 128, 1, tile, 0));
	ASSERT_TRUE(bytes_are(tile, 0, sizeof(tile)));
	ASSERT_EQ(CUDA_SUCCESS, map1(lvl(a, 0, 128, 128, 0, 128, 128, 1, h, 3 * TILE), self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, box3(a, 0, 0, 0, W, H, 1, back, 0));
	ASSERT_EQ(0, memcmp(back, want, W * 256));

	/* an alias: the same memory at two tiles */
	ASSERT_EQ(CUDA_SUCCESS, map1(lvl(a, 0, 896, 896, 0, 128, 128, 1, h, 0), self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, box3(a, 7 * T, 896, 0, T, 128, 1, tile, 0));
	for (size_t y = 0; y < 128; y++)
		ASSERT_EQ(0, memcmp(tile + y * T, want + y * W, T));

	/* everything unmapped at once, unmapped tiles included */
	ASSERT_EQ(CUDA_SUCCESS, map1(lvl(a, 0, 0, 0, 0, 1024, 1024, 1, 0, 0), self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, box3(a, 0, 0, 0, W, H, 1, back, 0));
	ASSERT_TRUE(bytes_are(back, 0, W * H));

	/* edges of a 300x200 array: a region to the edge, the whole array */
	{
		CUarray e = mk3(300, 200, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, CUDA_ARRAY3D_SPARSE);

		ASSERT_TRUE(e != NULL);
		EXPECT_EQ(CUDA_SUCCESS, map1(lvl(e, 0, 256, 128, 0, 44, 72, 1, h, 0), self->l.s));
		EXPECT_EQ(CUDA_ERROR_INVALID_VALUE,
			  map1(lvl(e, 0, 256, 128, 0, 128, 128, 1, h, 0), self->l.s));
		EXPECT_EQ(CUDA_ERROR_INVALID_VALUE,
			  map1(lvl(e, 0, 0, 0, 0, 44, 128, 1, h, 0), self->l.s));
		ASSERT_EQ(CUDA_SUCCESS, map1(lvl(e, 0, 0, 0, 0, 300, 200, 1, h, TILE), self->l.s));
		fill(img, 1200 * 200, 3);
		ASSERT_EQ(CUDA_SUCCESS, box3(e, 0, 0, 0, 1200, 200, 1, img, 1));
		ASSERT_EQ(CUDA_SUCCESS, box3(e, 0, 0, 0, 1200, 200, 1, back, 0));
		ASSERT_EQ(0, memcmp(back, img, 1200 * 200));
		EXPECT_EQ(CUDA_SUCCESS, cuArrayDestroy(e));
	}
	EXPECT_EQ(CUDA_SUCCESS, cuArrayDestroy(a));
	EXPECT_EQ(CUDA_SUCCESS, cuMemRelease(h));
	free(img);
	free(back);
	free(want);
}

/* 3D tiles of 32x32x16 and layers ("sp.t3.*"). */
TEST_F(sparse, tiles_3d_and_layers)
{
	CUmemGenericAllocationHandle h = pool(0, POOL, CU_MEM_CREATE_USAGE_TILE_POOL);
	CUarray a = mk3(64, 64, 64, CU_AD_FORMAT_UNSIGNED_INT8, 4, CUDA_ARRAY3D_SPARSE);
	CUarray l = mk3(256, 256, 4, CU_AD_FORMAT_UNSIGNED_INT8, 4,
			CUDA_ARRAY3D_SPARSE | CUDA_ARRAY3D_LAYERED);
	const size_t n = 256 * 64 * 64;
	unsigned char *img = malloc(n), *back = malloc(n), *want = calloc(n, 1);

	ASSERT_TRUE(h && a && l && img && back && want);
	/* one tile (1,0,1): a box over eight tiles keeps its part */
	ASSERT_EQ(CUDA_SUCCESS, map1(lvl(a, 0, 32, 0, 16, 32, 32, 16, h, 0), self->l.s));
	fill(img, n, 4);
	ASSERT_EQ(CUDA_SUCCESS, box3(a, 0, 0, 0, 256, 64, 64, img, 1));
	ASSERT_EQ(CUDA_SUCCESS, box3(a, 0, 0, 0, 256, 64, 64, back, 0));
	for (size_t z = 16; z < 32; z++)
		for (size_t y = 0; y < 32; y++)
			memcpy(want + (z * 64 + y) * 256 + 128, img + (z * 64 + y) * 256 + 128, 128);
	ASSERT_EQ(0, memcmp(back, want, n));
	/* regions in whole tiles only; no layers ("sp.t3.map.*") */
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, map1(lvl(a, 0, 0, 0, 8, 32, 32, 16, h, 0), self->l.s));
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, map1(lvl(a, 0, 0, 0, 0, 32, 32, 8, h, 0), self->l.s));
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, map1(lvl(a, 1, 0, 0, 0, 32, 32, 16, h, 0), self->l.s));
	/* all of it: the whole box back */
	ASSERT_EQ(CUDA_SUCCESS, map1(lvl(a, 0, 0, 0, 0, 64, 64, 64, h, 0), self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, box3(a, 0, 0, 0, 256, 64, 64, img, 1));
	ASSERT_EQ(CUDA_SUCCESS, box3(a, 0, 0, 0, 256, 64, 64, back, 0));
	ASSERT_EQ(0, memcmp(back, img, n));
	/* a sub-box with an odd corner */
	ASSERT_EQ(CUDA_SUCCESS, box3(a, 100, 20, 10, 60, 30, 20, back, 0));
	for (size_t z = 0; z < 20; z++)
		for (size_t y = 0; y < 30; y++)
			ASSERT_EQ(0, memcmp(back + (z * 30 + y) * 60,
					    img + ((10 + z) * 64 + 20 + y) * 256 + 100, 60));

	/* layered: a tile of layer 2 only */
	ASSERT_EQ(CUDA_SUCCESS, map1(lvl(l, 2, 128, 0, 0, 128, 128, 1, h, 0), self->l.s));
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, map1(lvl(l, 4, 0, 0, 0, 128, 128, 1, h, 0), self->l.s));
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, map1(lvl(l, 0, 0, 0, 1, 128, 128, 1, h, 0), self->l.s));
	fill(img, 1024 * 128 * 4, 5);
	ASSERT_EQ(CUDA_SUCCESS, box3(l, 0, 0, 0, 1024, 128, 4, img, 1));
	ASSERT_EQ(CUDA_SUCCESS, box3(l, 0, 0, 0, 1024, 128, 4, back, 0));
	memset(want, 0, 1024 * 128 * 4);
	for (size_t y = 0; y < 128; y++)
		memcpy(want + (2 * 128 + y) * 1024 + 512, img + (2 * 128 + y) * 1024 + 512, 512);
	ASSERT_EQ(0, memcmp(back, want, 1024 * 128 * 4));
	EXPECT_EQ(CUDA_SUCCESS, cuArrayDestroy(a));
	EXPECT_EQ(CUDA_SUCCESS, cuArrayDestroy(l));
	EXPECT_EQ(CUDA_SUCCESS, cuMemRelease(h));
	free(img);
	free(back);
	free(want);
}

/* Mip tails: a mipmapped array's, a layered one's per layer, an array that
 * is all tail ("sp.tail.*"); every level's data round trip. */
TEST_F(sparse, mip_tails)
{
	CUmemGenericAllocationHandle h = pool(0, POOL, CU_MEM_CREATE_USAGE_TILE_POOL);
	CUDA_ARRAY3D_DESCRIPTOR d = { 1024, 1024, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4,
				      CUDA_ARRAY3D_SPARSE };
	CUDA_ARRAY3D_DESCRIPTOR dl = { 256, 256, 3, CU_AD_FORMAT_UNSIGNED_INT8, 4,
				       CUDA_ARRAY3D_SPARSE | CUDA_ARRAY3D_LAYERED };
	CUmipmappedArray mm = NULL, ml = NULL;
	unsigned char img[512 * 128 * 3], back[512 * 128 * 3];
	CUarray lv[11];

	ASSERT_TRUE(h != 0);
	ASSERT_EQ(CUDA_SUCCESS, cuMipmappedArrayCreate(&mm, &d, 11));
	for (unsigned int i = 0; i < 11; i++)
		ASSERT_EQ(CUDA_SUCCESS, cuMipmappedArrayGetLevel(&lv[i], mm, i));
	/* the tail unmapped: level 5 reads zeros */
	fill(img, 128 * 32, 6);
	ASSERT_EQ(CUDA_SUCCESS, box3(lv[5], 0, 0, 0, 128, 32, 1, img, 1));
	ASSERT_EQ(CUDA_SUCCESS, box3(lv[5], 0, 0, 0, 128, 32, 1, back, 0));
	ASSERT_TRUE(bytes_are(back, 0, 128 * 32));
	/* mapped: every tail level (4 .. 10) keeps its data, apart */
	ASSERT_EQ(CUDA_SUCCESS, map1(tail(mm, NULL, 0, 0, TILE, h, 0), self->l.s));
	for (unsigned int n = 4; n < 11; n++) {
		size_t w = (1024 >> n) * 4, ht = 1024 >> n;

		fill(img, w * ht, n);
		ASSERT_EQ(CUDA_SUCCESS, box3(lv[n], 0, 0, 0, w, ht, 1, img, 1));
	}
	for (unsigned int n = 4; n < 11; n++) {
		size_t w = (1024 >> n) * 4, ht = 1024 >> n;

		fill(img, w * ht, n);
		ASSERT_EQ(CUDA_SUCCESS, box3(lv[n], 0, 0, 0, w, ht, 1, back, 0));
		ASSERT_EQ(0, memcmp(back, img, w * ht));
	}
	/* level 3 is a tile of its own, not in the tail */
	ASSERT_EQ(CUDA_SUCCESS, box3(lv[3], 0, 0, 0, 512, 128, 1, back, 0));
	ASSERT_TRUE(bytes_are(back, 0, 512 * 128));
	{
		CUarrayMapInfo m = lvl(NULL, 0, 0, 0, 0, 128, 128, 1, h, TILE);

		m.resourceType = CU_RESOURCE_TYPE_MIPMAPPED_ARRAY;
		m.resource.mipmap = mm;
		m.subresource.sparseLevel.level = 3;
		ASSERT_EQ(CUDA_SUCCESS, map1(m, self->l.s));
		m.subresource.sparseLevel.level = 4;	/* in the tail */
		EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, map1(m, self->l.s));
	}
	fill(img, 512 * 128, 3);
	ASSERT_EQ(CUDA_SUCCESS, box3(lv[3], 0, 0, 0, 512, 128, 1, img, 1));
	ASSERT_EQ(CUDA_SUCCESS, box3(lv[3], 0, 0, 0, 512, 128, 1, back, 0));
	ASSERT_EQ(0, memcmp(back, img, 512 * 128));
	/* tail bounds ("sp.tail.map.*") */
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, map1(tail(mm, NULL, 0, 0, 0, h, 0), self->l.s));
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, map1(tail(mm, NULL, 0, TILE, TILE, h, 0), self->l.s));
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, map1(tail(mm, NULL, 1, 0, TILE, h, 0), self->l.s));
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, map1(tail(mm, NULL, 0, 0, TILE, h, 4096), self->l.s));
	/* unmapped again: zeros */
	ASSERT_EQ(CUDA_SUCCESS, map1(tail(mm, NULL, 0, 0, TILE, 0, 0), self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, box3(lv[5], 0, 0, 0, 128, 32, 1, back, 0));
	ASSERT_TRUE(bytes_are(back, 0, 128 * 32));
	EXPECT_EQ(CUDA_SUCCESS, cuMipmappedArrayDestroy(mm));

	/* layered: a tail per layer (level 2 on) */
	ASSERT_EQ(CUDA_SUCCESS, cuMipmappedArrayCreate(&ml, &dl, 9));
	ASSERT_EQ(CUDA_SUCCESS, cuMipmappedArrayGetLevel(&lv[2], ml, 2));
	ASSERT_EQ(CUDA_SUCCESS, map1(tail(ml, NULL, 1, 0, TILE, h, 2 * TILE), self->l.s));
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, map1(tail(ml, NULL, 3, 0, TILE, h, 0), self->l.s));
	fill(img, 256 * 64 * 3, 7);
	ASSERT_EQ(CUDA_SUCCESS, box3(lv[2], 0, 0, 0, 256, 64, 3, img, 1));
	ASSERT_EQ(CUDA_SUCCESS, box3(lv[2], 0, 0, 0, 256, 64, 3, back, 0));
	ASSERT_TRUE(bytes_are(back, 0, 256 * 64));
	ASSERT_EQ(0, memcmp(back + 256 * 64, img + 256 * 64, 256 * 64));
	ASSERT_TRUE(bytes_are(back + 2 * 256 * 64, 0, 256 * 64));
	EXPECT_EQ(CUDA_SUCCESS, cuMipmappedArrayDestroy(ml));

	/* an array that is all tail: no tiles, its tail through the array */
	{
		CUarray s = mk3(64, 32, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, CUDA_ARRAY3D_SPARSE);

		ASSERT_TRUE(s != NULL);
		EXPECT_EQ(CUDA_ERROR_INVALID_VALUE,
			  map1(lvl(s, 0, 0, 0, 0, 64, 32, 1, h, 0), self->l.s));
		ASSERT_EQ(CUDA_SUCCESS, map1(tail(NULL, s, 0, 0, TILE, h, 3 * TILE), self->l.s));
		fill(img, 256 * 32, 8);
		ASSERT_EQ(CUDA_SUCCESS, box3(s, 0, 0, 0, 256, 32, 1, img, 1));
		ASSERT_EQ(CUDA_SUCCESS, box3(s, 0, 0, 0, 256, 32, 1, back, 0));
		ASSERT_EQ(0, memcmp(back, img, 256 * 32));
		EXPECT_EQ(CUDA_SUCCESS, cuArrayDestroy(s));
	}
	EXPECT_EQ(CUDA_SUCCESS, cuMemRelease(h));
}

/* A long mip tail (4096x64, 13 levels: 1.4 MiB, rows cut by pages), mapped
 * in two halves from two places of the pool: every level round trips. */
TEST_F(sparse, long_tail)
{
	CUmemGenericAllocationHandle h = pool(0, POOL, CU_MEM_CREATE_USAGE_TILE_POOL);
	CUDA_ARRAY3D_DESCRIPTOR d = { 4096, 64, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4,
				      CUDA_ARRAY3D_SPARSE };
	CUDA_ARRAY_SPARSE_PROPERTIES p;
	CUmipmappedArray mm = NULL;
	unsigned char *img = malloc(16384 * 64), *back = malloc(16384 * 64);
	CUarrayMapInfo m[2];
	CUarray lv[13];

	ASSERT_TRUE(h && img && back);
	ASSERT_EQ(CUDA_SUCCESS, cuMipmappedArrayCreate(&mm, &d, 13));
	ASSERT_EQ(CUDA_SUCCESS, cuMipmappedArrayGetSparseProperties(&p, mm));
	ASSERT_EQ(0u, p.miptailFirstLevel);
	ASSERT_EQ(1441792ull, p.miptailSize);
	for (unsigned int n = 0; n < 13; n++)
		ASSERT_EQ(CUDA_SUCCESS, cuMipmappedArrayGetLevel(&lv[n], mm, n));
	/* nothing mapped yet */
	fill(img, 16384 * 64, 30);
	ASSERT_EQ(CUDA_SUCCESS, box3(lv[0], 0, 0, 0, 16384, 64, 1, img, 1));
	ASSERT_EQ(CUDA_SUCCESS, box3(lv[0], 0, 0, 0, 16384, 64, 1, back, 0));
	ASSERT_TRUE(bytes_are(back, 0, 16384 * 64));
	/* pages 0..10 from the pool's end, 11..21 from its start */
	m[0] = tail(mm, NULL, 0, 0, 11 * TILE, h, 11 * TILE);
	m[1] = tail(mm, NULL, 0, 11 * TILE, 11 * TILE, h, 0);
	ASSERT_EQ(CUDA_SUCCESS, cuMemMapArrayAsync(m, 2, self->l.s));
	for (unsigned int n = 0; n < 13; n++) {
		size_t w = (4096 >> n) * 4, ht = (64 >> n) ? 64 >> n : 1;

		fill(img, w * ht, n + 20);
		ASSERT_EQ(CUDA_SUCCESS, box3(lv[n], 0, 0, 0, w, ht, 1, img, 1));
	}
	for (unsigned int n = 0; n < 13; n++) {
		size_t w = (4096 >> n) * 4, ht = (64 >> n) ? 64 >> n : 1;

		TH_LOG("level %u", n);
		fill(img, w * ht, n + 20);
		memset(back, 0x5a, w * ht);
		ASSERT_EQ(CUDA_SUCCESS, box3(lv[n], 0, 0, 0, w, ht, 1, back, 0));
		ASSERT_EQ(0, memcmp(back, img, w * ht));
	}
	/* a sub-box of level 0 */
	fill(img, 16384 * 64, 20);
	ASSERT_EQ(CUDA_SUCCESS, box3(lv[0], 1000, 3, 0, 9000, 50, 1, back, 0));
	for (size_t y = 0; y < 50; y++)
		ASSERT_EQ(0, memcmp(back + y * 9000, img + (3 + y) * 16384 + 1000, 9000));
	EXPECT_EQ(CUDA_SUCCESS, cuMipmappedArrayDestroy(mm));
	EXPECT_EQ(CUDA_SUCCESS, cuMemRelease(h));
	free(img);
	free(back);
}

/* Deferred-mapping arrays: mapped whole ("sp.def.*"). */
TEST_F(sparse, deferred)
{
	CUmemGenericAllocationHandle h = pool(0, POOL, CU_MEM_CREATE_USAGE_TILE_POOL);
	CUmemGenericAllocationHandle plain = pool(0, POOL, 0);
	CUarray a = mk3(64, 32, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, CUDA_ARRAY3D_DEFERRED_MAPPING);
	CUarray big = mk3(1024, 1024, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4,
			  CUDA_ARRAY3D_DEFERRED_MAPPING);
	CUDA_ARRAY3D_DESCRIPTOR md = { 256, 256, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4,
				       CUDA_ARRAY3D_DEFERRED_MAPPING };
	unsigned char img[256 * 32], back[512 * 128];
	CUmipmappedArray mm = NULL;
	CUarray l1;
	CUarrayMapInfo m;

	ASSERT_TRUE(h && plain && a && big);
	/* nothing mapped: refused (NVIDIA's GPU faults: "sp.defu.*") */
	fill(img, sizeof(img), 9);
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, box3(a, 0, 0, 0, 256, 32, 1, img, 1));
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, box3(a, 0, 0, 0, 256, 32, 1, back, 0));
	/* mapped: the data; elsewhere: fresh zeros; back: the data */
	ASSERT_EQ(CUDA_SUCCESS, map1(lvl(a, 0, 0, 0, 0, 0, 0, 0, h, 0), self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, box3(a, 0, 0, 0, 256, 32, 1, img, 1));
	ASSERT_EQ(CUDA_SUCCESS, box3(a, 0, 0, 0, 256, 32, 1, back, 0));
	ASSERT_EQ(0, memcmp(back, img, sizeof(img)));
	ASSERT_EQ(CUDA_SUCCESS, map1(lvl(a, 0, 0, 0, 0, 0, 0, 0, h, TILE), self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, box3(a, 0, 0, 0, 256, 32, 1, back, 0));
	ASSERT_TRUE(bytes_are(back, 0, sizeof(img)));
	/* the subresource is ignored ("sp.def.map.subresource_garbage") */
	m = lvl(a, 3, 7, 9, 11, 13, 17, 19, h, 0);
	m.subresource.sparseLevel.level = 5;
	ASSERT_EQ(CUDA_SUCCESS, map1(m, self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, box3(a, 0, 0, 0, 256, 32, 1, back, 0));
	ASSERT_EQ(0, memcmp(back, img, sizeof(img)));
	/* pool offsets and room ("sp.def.map.*") */
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, map1(lvl(a, 0, 0, 0, 0, 0, 0, 0, h, 4096), self->l.s));
	EXPECT_EQ(CUDA_SUCCESS, map1(lvl(a, 0, 0, 0, 0, 0, 0, 0, h, POOL - TILE), self->l.s));
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, map1(lvl(a, 0, 0, 0, 0, 0, 0, 0, h, POOL), self->l.s));
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE,
		  map1(lvl(a, 0, 0, 0, 0, 0, 0, 0, plain, 0), self->l.s));
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, map1(lvl(big, 0, 0, 0, 0, 0, 0, 0, h, 0), self->l.s));
	/* unmapped: refused again */
	ASSERT_EQ(CUDA_SUCCESS, map1(lvl(a, 0, 0, 0, 0, 0, 0, 0, 0, 0), self->l.s));
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, box3(a, 0, 0, 0, 256, 32, 1, back, 0));
	ASSERT_EQ(CUDA_SUCCESS, map1(lvl(a, 0, 0, 0, 0, 0, 0, 0, 0, 0), self->l.s));

	/* a mipmapped one, mapped through the mipmapped array; its levels
	 * are not mapped on their own; memory released while mapped stays */
	ASSERT_EQ(CUDA_SUCCESS, cuMipmappedArrayCreate(&mm, &md, 9));
	ASSERT_EQ(CUDA_SUCCESS, cuMipmappedArrayGetLevel(&l1, mm, 1));
	m = lvl(NULL, 0, 0, 0, 0, 0, 0, 0, h, 0);
	m.resourceType = CU_RESOURCE_TYPE_MIPMAPPED_ARRAY;
	m.resource.mipmap = mm;
	ASSERT_EQ(CUDA_SUCCESS, map1(m, self->l.s));
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, map1(lvl(l1, 0, 0, 0, 0, 0, 0, 0, h, 0), self->l.s));
	{
		unsigned char l1img[512 * 128];

		fill(l1img, sizeof(l1img), 10);
		ASSERT_EQ(CUDA_SUCCESS, box3(l1, 0, 0, 0, 512, 128, 1, l1img, 1));
		EXPECT_EQ(CUDA_SUCCESS, cuMemRelease(h));
		ASSERT_EQ(CUDA_SUCCESS, box3(l1, 0, 0, 0, 512, 128, 1, back, 0));
		ASSERT_EQ(0, memcmp(back, l1img, sizeof(l1img)));
	}
	EXPECT_EQ(CUDA_SUCCESS, cuMipmappedArrayDestroy(mm));
	EXPECT_EQ(CUDA_SUCCESS, cuArrayDestroy(a));
	EXPECT_EQ(CUDA_SUCCESS, cuArrayDestroy(big));
	EXPECT_EQ(CUDA_SUCCESS, cuMemRelease(plain));
}

/* What cuMemMapArrayAsync refuses ("arr.sparse.map.*", "sp.t2.batch.*"):
 * nothing of a refused list is applied. */
TEST_F(sparse, map_validation)
{
	CUmemGenericAllocationHandle h = pool(0, POOL, CU_MEM_CREATE_USAGE_TILE_POOL);
	CUmemGenericAllocationHandle plain = pool(0, POOL, 0);
	CUarray a = mk3(1024, 1024, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, CUDA_ARRAY3D_SPARSE);
	CUarray p = mk3(1024, 1024, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0);
	CUarrayMapInfo m, two[2];
	CUmemAllocationProp prop;
	unsigned char t[512 * 128];
	CUdeviceptr va;

	ASSERT_TRUE(h && plain && a && p);
#define BAD(expr) do {								\
		m = lvl(a, 0, 0, 0, 0, 128, 128, 1, h, 0);			\
		expr;								\
		EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemMapArrayAsync(&m, 1, self->l.s)); \
	} while (0)
	BAD(m.memHandle.memHandle = plain);	/* not_tile_pool */
	BAD(m.offset = 4096);
	BAD(m.offset = POOL);			/* offset_end_of_pool */
	BAD(m.subresource.sparseLevel.extentWidth = 64);	/* half_tile */
	BAD(m.subresource.sparseLevel.offsetX = 1);
	BAD(m.subresource.sparseLevel.offsetX = 1024);	/* past_end */
	BAD(m.deviceBitMask = 0);
	BAD(m.deviceBitMask = 2);		/* another GPU's */
	BAD(m.deviceBitMask = 3);
	BAD(m.flags = 1);
	BAD(m.reserved[1] = 1);
	BAD(m.memOperationType = (CUmemOperationType)3);
	BAD(m.memHandleType = (CUmemHandleType)1);
	BAD(m.subresource.sparseLevel.level = 1);
	BAD(m.subresource.sparseLevel.extentDepth = 0);
	BAD(m.resourceType = CU_RESOURCE_TYPE_MIPMAPPED_ARRAY);
	BAD(m.resourceType = (CUresourcetype)7);
	BAD(m.subresourceType = (CUarraySparseSubresourceType)2);
	BAD(m.resource.array = p);		/* plain_array */
	BAD(m.resource.array = NULL);
	BAD(m.memHandle.memHandle = 0xdead);	/* no such handle */
	BAD(m.memOperationType = CU_MEM_OPERATION_TYPE_UNMAP);	/* a handle given */
#undef BAD
	m = lvl(a, 0, 0, 0, 0, 128, 128, 1, h, 0);
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemMapArrayAsync(&m, 0, self->l.s));
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemMapArrayAsync(NULL, 1, self->l.s));
	EXPECT_EQ(CUDA_ERROR_INVALID_HANDLE,
		  cuMemMapArrayAsync(&m, 1, (CUstream)(uintptr_t)8));
	/* a good entry and a bad one, in either order: nothing mapped */
	two[0] = lvl(a, 0, 128, 0, 0, 128, 128, 1, h, 0);
	two[1] = lvl(a, 0, 1, 0, 0, 128, 128, 1, h, 0);
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemMapArrayAsync(two, 2, self->l.s));
	two[1] = two[0];
	two[0] = lvl(a, 0, 1, 0, 0, 128, 128, 1, h, 0);
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemMapArrayAsync(two, 2, self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamSynchronize(self->l.s));
	memset(t, 0xaa, sizeof(t));
	ASSERT_EQ(CUDA_SUCCESS, box3(a, 512, 0, 0, 512, 128, 1, t, 1));
	ASSERT_EQ(CUDA_SUCCESS, box3(a, 512, 0, 0, 512, 128, 1, t, 0));
	ASSERT_TRUE(bytes_are(t, 0, sizeof(t)));
	/* a map and an unmap of one tile in one call: in order */
	two[0] = lvl(a, 0, 0, 0, 0, 128, 128, 1, h, 0);
	two[1] = lvl(a, 0, 0, 0, 0, 128, 128, 1, 0, 0);
	ASSERT_EQ(CUDA_SUCCESS, cuMemMapArrayAsync(two, 2, self->l.s));
	ASSERT_EQ(CUDA_SUCCESS, box3(a, 0, 0, 0, 512, 128, 1, t, 1));
	ASSERT_EQ(CUDA_SUCCESS, box3(a, 0, 0, 0, 512, 128, 1, t, 0));
	ASSERT_TRUE(bytes_are(t, 0, sizeof(t)));

	/* a region of millions of tiles unmapped at once: what is mapped in
	 * it goes, nothing else is looked at */
	{
		CUarray big = mk3(16384, 16384, 2048, CU_AD_FORMAT_UNSIGNED_INT8, 1,
				  CUDA_ARRAY3D_SPARSE);
		unsigned char tile[64 * 32];

		ASSERT_TRUE(big != NULL);
		ASSERT_EQ(CUDA_SUCCESS, map1(lvl(big, 0, 64, 32, 32, 64, 32, 32, h, 0), self->l.s));
		memset(tile, 7, sizeof(tile));
		ASSERT_EQ(CUDA_SUCCESS, box3(big, 64, 32, 40, 64, 32, 1, tile, 1));
		memset(tile, 0, sizeof(tile));
		ASSERT_EQ(CUDA_SUCCESS, box3(big, 64, 32, 40, 64, 32, 1, tile, 0));
		ASSERT_TRUE(bytes_are(tile, 7, sizeof(tile)));
		ASSERT_EQ(CUDA_SUCCESS, map1(lvl(big, 0, 0, 0, 0, 16384, 16384, 2048, 0, 0),
					     self->l.s));
		ASSERT_EQ(CUDA_SUCCESS, box3(big, 64, 32, 40, 64, 32, 1, tile, 0));
		ASSERT_TRUE(bytes_are(tile, 0, sizeof(tile)));
		EXPECT_EQ(CUDA_SUCCESS, cuArrayDestroy(big));
	}

	/* tile pools: not for cuMemMap ("sp.t2.cumemmap_tile_pool"); the
	 * usage is not reported, other usage bits mean nothing, host memory
	 * is a tile pool too ("sp.pool.*") */
	ASSERT_EQ(CUDA_SUCCESS, cuMemAddressReserve(&va, POOL, 0, 0, 0));
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemMap(va, POOL, 0, h, 0));
	EXPECT_EQ(CUDA_SUCCESS, cuMemAddressFree(va, POOL));
	ASSERT_EQ(CUDA_SUCCESS, cuMemGetAllocationPropertiesFromHandle(&prop, h));
	EXPECT_EQ(0, prop.allocFlags.usage);
	{
		CUmemGenericAllocationHandle x;

		prop.allocFlags.usage = 0x8000;
		ASSERT_EQ(CUDA_SUCCESS, cuMemCreate(&x, POOL, &prop, 0));
		EXPECT_EQ(CUDA_ERROR_INVALID_VALUE,
			  map1(lvl(a, 0, 0, 0, 0, 128, 128, 1, x, 0), self->l.s));
		EXPECT_EQ(CUDA_SUCCESS, cuMemRelease(x));
		prop.location.type = CU_MEM_LOCATION_TYPE_HOST;
		prop.allocFlags.usage = CU_MEM_CREATE_USAGE_TILE_POOL;
		ASSERT_EQ(CUDA_SUCCESS, cuMemCreate(&x, POOL, &prop, 0));
		ASSERT_EQ(CUDA_SUCCESS, map1(lvl(a, 0, 0, 0, 0, 128, 128, 1, x, TILE), self->l.s));
		fill(t, sizeof(t), 13);
		ASSERT_EQ(CUDA_SUCCESS, box3(a, 0, 0, 0, 512, 128, 1, t, 1));
		memset(t, 0, sizeof(t));
		ASSERT_EQ(CUDA_SUCCESS, box3(a, 0, 0, 0, 512, 128, 1, t, 0));
		{
			unsigned char w[512 * 128];

			fill(w, sizeof(w), 13);
			ASSERT_EQ(0, memcmp(t, w, sizeof(w)));
		}
		EXPECT_EQ(CUDA_SUCCESS, cuMemRelease(x));
	}
	EXPECT_EQ(CUDA_SUCCESS, cuArrayDestroy(a));
	EXPECT_EQ(CUDA_SUCCESS, cuArrayDestroy(p));
	EXPECT_EQ(CUDA_SUCCESS, cuMemRelease(h));
	EXPECT_EQ(CUDA_SUCCESS, cuMemRelease(plain));
}

/* Every copy form with a sparse side: runtime 2D to/from, async on a
 * stream after the map, array to array (sparse both sides, and with a
 * plain array), device memory, the linear forms in a row, a batch
 * operand. */
TEST_F(sparse, copy_forms)
{
	const size_t W = 1024, H = 256;	/* 256 x 256 uchar4: 2 x 2 tiles */
	CUmemGenericAllocationHandle h = pool(0, POOL, CU_MEM_CREATE_USAGE_TILE_POOL);
	struct cudaChannelFormatDesc cd = cudaCreateChannelDesc(8, 8, 8, 8,
								cudaChannelFormatKindUnsigned);
	cudaArray_t s1 = NULL, s2 = NULL, pl = NULL;
	unsigned char *img = malloc(W * H), *back = malloc(W * H), *want = malloc(W * H);
	CUdeviceptr dev;

	ASSERT_TRUE(h && img && back && want);
	ASSERT_EQ(cudaSuccess, cudaMallocArray(&s1, &cd, 256, 256, cudaArraySparse));
	ASSERT_EQ(cudaSuccess, cudaMallocArray(&s2, &cd, 256, 256, cudaArraySparse));
	ASSERT_EQ(cudaSuccess, cudaMallocArray(&pl, &cd, 256, 256, 0));
	/* s1: all four tiles; s2: tiles (1,0) and (0,1), crosswise */
	ASSERT_EQ(CUDA_SUCCESS, cuMemMapArrayAsync((CUarrayMapInfo[]){
		lvl((CUarray)s1, 0, 0, 0, 0, 256, 256, 1, h, 0) }, 1, self->l.s));
	fill(img, W * H, 11);
	/* queued after the map on the same stream */
	ASSERT_EQ(cudaSuccess, cudaMemcpy2DToArrayAsync(s1, 0, 0, img, W, W, H,
							cudaMemcpyHostToDevice,
							(cudaStream_t)self->l.s));
	ASSERT_EQ(cudaSuccess, cudaStreamSynchronize((cudaStream_t)self->l.s));
	ASSERT_EQ(cudaSuccess, cudaMemcpy2DFromArray(back, W, s1, 0, 0, W, H,
						     cudaMemcpyDeviceToHost));
	ASSERT_EQ(0, memcmp(back, img, W * H));
	{
		CUarrayMapInfo m[2] = { lvl((CUarray)s2, 0, 128, 0, 0, 128, 128, 1, h, 4 * TILE),
					lvl((CUarray)s2, 0, 0, 128, 0, 128, 128, 1, h, 5 * TILE) };

		ASSERT_EQ(CUDA_SUCCESS, cuMemMapArrayAsync(m, 2, self->l.s));
	}
	/* sparse to sparse, at an offset: what lands in s2's mapped tiles */
	ASSERT_EQ(cudaSuccess, cudaMemcpy2DArrayToArray(s2, 40, 20, s1, 100, 30, 900, 200,
							cudaMemcpyDeviceToDevice));
	ASSERT_EQ(cudaSuccess, cudaMemcpy2DFromArray(back, W, s2, 0, 0, W, H,
						     cudaMemcpyDeviceToHost));
	memset(want, 0, W * H);
	for (size_t y = 0; y < 200; y++)
		memcpy(want + (20 + y) * W + 40, img + (30 + y) * W + 100, 900);
	for (size_t y = 0; y < H; y++)
		for (size_t x = 0; x < W; x++)
			if ((x < 512) == (y < 128))	/* tiles (0,0), (1,1): unmapped */
				want[y * W + x] = 0;
	ASSERT_EQ(0, memcmp(back, want, W * H));
	/* sparse to plain and back through device memory */
	ASSERT_EQ(cudaSuccess, cudaMemcpy2DArrayToArray(pl, 0, 0, s2, 0, 0, W, H,
							cudaMemcpyDeviceToDevice));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAlloc(&dev, W * H));
	ASSERT_EQ(cudaSuccess, cudaMemcpy2DFromArray((void *)(uintptr_t)dev, W, pl, 0, 0, W, H,
						     cudaMemcpyDeviceToDevice));
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyDtoH(back, dev, W * H));
	ASSERT_EQ(0, memcmp(back, want, W * H));
	ASSERT_EQ(cudaSuccess, cudaMemcpy2DToArray(s1, 0, 0, (void *)(uintptr_t)dev, W, W, H,
						   cudaMemcpyDeviceToDevice));
	ASSERT_EQ(cudaSuccess, cudaMemcpy2DFromArray(back, W, s1, 0, 0, W, H,
						     cudaMemcpyDeviceToHost));
	ASSERT_EQ(0, memcmp(back, want, W * H));
	/* the linear forms inside a row; across rows is not supported */
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyHtoA((CUarray)s1, 500, img, 300));
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyAtoH(back, (CUarray)s1, 500, 300));
	ASSERT_EQ(0, memcmp(back, img, 300));
	EXPECT_EQ(cudaErrorNotSupported, cudaMemcpyToArray(s1, 0, 5, img, 2 * W,
							   cudaMemcpyHostToDevice));
	/* a batch operand */
	{
		CUDA_MEMCPY3D_BATCH_OP op;
		unsigned long long fail = 0;

		(void)fail;
		memset(&op, 0, sizeof(op));
		op.src.type = CU_MEMCPY_OPERAND_TYPE_ARRAY;
		op.src.op.array.array = (CUarray)s1;
		op.src.op.array.offset.x = 10;	/* elements */
		op.src.op.array.offset.y = 100;
		op.dst.type = CU_MEMCPY_OPERAND_TYPE_POINTER;
		op.dst.op.ptr.ptr = (CUdeviceptr)(uintptr_t)back;
		op.dst.op.ptr.rowLength = 200;
		op.dst.op.ptr.layerHeight = 50;
		op.extent.width = 200;
		op.extent.height = 50;
		op.extent.depth = 1;
		op.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM;
		memset(back, 0x5a, W * H);
		ASSERT_EQ(CUDA_SUCCESS, cuMemcpy3DBatchAsync(1, &op, 0, self->l.s));
		ASSERT_EQ(CUDA_SUCCESS, cuStreamSynchronize(self->l.s));
		for (size_t y = 0; y < 50; y++)
			ASSERT_EQ(0, memcmp(back + y * 800, want + (100 + y) * W + 40, 800));
	}
	EXPECT_EQ(CUDA_SUCCESS, cuMemFree(dev));
	EXPECT_EQ(cudaSuccess, cudaFreeArray(s1));
	EXPECT_EQ(cudaSuccess, cudaFreeArray(s2));
	EXPECT_EQ(cudaSuccess, cudaFreeArray(pl));
	EXPECT_EQ(CUDA_SUCCESS, cuMemRelease(h));
	free(img);
	free(back);
	free(want);
}

/* A second GPU: its array, its pool, its device bit; memory goes back
 * when the last mapping of a released pool goes. */
TEST_F(sparse, second_gpu_and_lifetime)
{
	CUcontext c1;
	CUstream s1;
	CUarray a;
	CUmemGenericAllocationHandle h0, h1;
	unsigned long long before;
	unsigned char t[512 * 128], back[512 * 128];
	CUarrayMapInfo m;

	if (self->l.ndev < 2)
		SKIP(return, "one GPU");
	ASSERT_EQ(CUDA_SUCCESS, cuDevicePrimaryCtxRetain(&c1, 1));
	ASSERT_EQ(CUDA_SUCCESS, cuCtxSetCurrent(c1));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
	before = vidmem_used(1);
	a = mk3(1024, 1024, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, CUDA_ARRAY3D_SPARSE);
	h0 = pool(0, POOL, CU_MEM_CREATE_USAGE_TILE_POOL);
	h1 = pool(1, POOL, CU_MEM_CREATE_USAGE_TILE_POOL);
	ASSERT_TRUE(a && h0 && h1);
	/* the pool of GPU 0, or the bit of GPU 0, for GPU 1's array */
	m = lvl(a, 0, 0, 0, 0, 128, 128, 1, h0, 0);
	m.deviceBitMask = 2;
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemMapArrayAsync(&m, 1, s1));
	m = lvl(a, 0, 0, 0, 0, 128, 128, 1, h1, 0);
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemMapArrayAsync(&m, 1, s1));
	m.deviceBitMask = 2;
	ASSERT_EQ(CUDA_SUCCESS, cuMemMapArrayAsync(&m, 1, s1));
	/* a stream of GPU 0's context names another device */
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemMapArrayAsync(&m, 1, self->l.s));
	fill(t, sizeof(t), 12);
	ASSERT_EQ(CUDA_SUCCESS, box3(a, 0, 0, 0, 512, 128, 1, t, 1));
	/* released while mapped: the data stays, the memory too */
	ASSERT_EQ(CUDA_SUCCESS, cuMemRelease(h1));
	ASSERT_EQ(CUDA_SUCCESS, box3(a, 0, 0, 0, 512, 128, 1, back, 0));
	ASSERT_EQ(0, memcmp(back, t, sizeof(t)));
	EXPECT_LT(before, vidmem_used(1));
	/* the array destroyed: the pool's last user; GPU 1's memory is back
	 * where it was but for the zero tile libuvm keeps per context */
	ASSERT_EQ(CUDA_SUCCESS, cuArrayDestroy(a));
	EXPECT_EQ(before + (2ULL << 20), vidmem_used(1));
	EXPECT_EQ(CUDA_SUCCESS, cuMemRelease(h0));
	EXPECT_EQ(CUDA_SUCCESS, cuStreamDestroy(s1));
}

TEST_HARNESS_MAIN
