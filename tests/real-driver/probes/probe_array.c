// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * probe_array - CUDA arrays, for a later implementation: creation through
 * both APIs with every channel format, dimension and flag, the descriptors
 * and channel descriptions read back, memory requirements and sparse
 * properties, multi-planar (NV12) arrays and their planes, mipmapped arrays
 * and their levels, every copy to, from and between arrays (the data
 * checked), offsets out of bounds, and cuMemMapArrayAsync on a sparse array
 * with a tile of cuMemCreate memory.
 *
 *   probe_array              runs every section, each in a process of its own
 *   probe_array case NAME    runs one section ("sec.NAME") or case
 *
 * Cases that may crash the driver (NULL or freed handles) or break the
 * context (copies past the end of an array, sparse tiles) run in a process
 * of their own: "arr.NAME.exit = exit N" or "= signal N".
 *
 * Descriptors are printed as "W,H,D fmt=0xNN ch=N flags=0xNN"; channel
 * descriptions as "x,y,z,w kind" with the extent and flags of
 * cudaArrayGetInfo.  Data checks print "ok" (exactly what the copy should
 * have written, nothing else changed), "untouched" or "mismatch".
 */
#include <stddef.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cuda_runtime.h>

#include "probe.h"
#include "sparse_map.h"

#define VP(p) ((void *)(uintptr_t)(p))
#define CA(a) ((CUarray)(void *)(a))
#define RA(a) ((cudaArray_t)(void *)(a))

static const char *argv0;
static CUcontext ctx;
static CUstream st;

/* ------------------------------------------------------------------ */

static void setup(void)
{
	MUST(cuInit(0));
	MUST(cuDevicePrimaryCtxRetain(&ctx, 0));
	MUST(cuCtxSetCurrent(ctx));
	MUST(cuStreamCreate(&st, 0));
}

static void child(const char *name)
{
	probe_case(argv0, fk("arr.%s.exit", name), name, NULL, -1);
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

/* The descriptor of an array as the driver sees it. */
static void desc3(const char *key, CUarray a)
{
	CUDA_ARRAY3D_DESCRIPTOR d;
	CUresult r;

	memset(&d, 0, sizeof(d));
	r = cuArray3DGetDescriptor(&d, a);
	if (r != CUDA_SUCCESS) {
		probe_res(fk("%s.desc3d", key), r);
		return;
	}
	probe_line(fk("%s.desc3d", key), "%zu,%zu,%zu fmt=0x%x ch=%u flags=0x%x", d.Width,
		   d.Height, d.Depth, (unsigned int)d.Format, d.NumChannels, d.Flags);
}

static void desc2(const char *key, CUarray a)
{
	CUDA_ARRAY_DESCRIPTOR d;
	CUresult r;

	memset(&d, 0, sizeof(d));
	r = cuArrayGetDescriptor(&d, a);
	if (r != CUDA_SUCCESS) {
		probe_res(fk("%s.desc2d", key), r);
		return;
	}
	probe_line(fk("%s.desc2d", key), "%zu,%zu fmt=0x%x ch=%u", d.Width, d.Height,
		   (unsigned int)d.Format, d.NumChannels);
}

/* The array as the runtime sees it. */
static void info(const char *key, cudaArray_t a)
{
	struct cudaChannelFormatDesc d;
	struct cudaExtent e;
	unsigned int f = 0xdead;
	cudaError_t er;

	memset(&d, 0, sizeof(d));
	memset(&e, 0, sizeof(e));
	er = cudaArrayGetInfo(&d, &e, &f, a);
	if (er != cudaSuccess) {
		rres(fk("%s.info", key), er);
		cudaGetLastError();
		return;
	}
	probe_line(fk("%s.info", key), "%d,%d,%d,%d kind=%d extent=%zu,%zu,%zu flags=0x%x", d.x, d.y,
		   d.z, d.w, (int)d.f, e.width, e.height, e.depth, f);
}

/* ------------------------------------------------------------------ */
/* Device attributes, structure layout. */

#define SZ(t) probe_line("arr.sizeof." #t, "%zu", sizeof(t))
#define OFF(t, f) probe_line("arr.offsetof." #t "." #f, "%zu", offsetof(t, f))

static void s_attrs(void)
{
	static const CUdevice_attribute da[] = {
		CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH,
		CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH,
		CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT,
		CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH,
		CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT,
		CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH,
		CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_WIDTH,
		CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT,
		CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS,
		CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_WIDTH,
		CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_LAYERS,
		CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_WIDTH,
		CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_HEIGHT,
		CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_WIDTH,
		CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH,
		CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS,
		CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_WIDTH,
		CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_WIDTH,
		CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_HEIGHT,
		CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_WIDTH,
		CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_DEPTH,
		CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH,
		CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT,
		CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT,
		CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT,
		CU_DEVICE_ATTRIBUTE_SPARSE_CUDA_ARRAY_SUPPORTED,
		CU_DEVICE_ATTRIBUTE_DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED,
		CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED,
	};
	struct cudaDeviceProp p;

	for (size_t i = 0; i < sizeof(da) / sizeof(da[0]); i++) {
		int v = -7;

		PR(fk("arr.devattr.%d", (int)da[i]), cuDeviceGetAttribute(&v, da[i], 0));
		probe_line(fk("arr.devattr.%d.value", (int)da[i]), "%d", v);
	}
	memset(&p, 0, sizeof(p));
	RR("arr.prop", cudaGetDeviceProperties(&p, 0));
	probe_line("arr.prop.maxTexture1D", "%d", p.maxTexture1D);
	probe_line("arr.prop.maxTexture2D", "%d,%d", p.maxTexture2D[0], p.maxTexture2D[1]);
	probe_line("arr.prop.maxTexture3D", "%d,%d,%d", p.maxTexture3D[0], p.maxTexture3D[1],
		   p.maxTexture3D[2]);
	probe_line("arr.prop.maxTexture2DLayered", "%d,%d,%d", p.maxTexture2DLayered[0],
		   p.maxTexture2DLayered[1], p.maxTexture2DLayered[2]);
	probe_line("arr.prop.maxTextureCubemap", "%d", p.maxTextureCubemap);
	probe_line("arr.prop.surfaceAlignment", "%zu", p.surfaceAlignment);
	probe_line("arr.prop.sparseCudaArraySupported", "%d", p.sparseCudaArraySupported);
	probe_line("arr.prop.deferredMappingCudaArraySupported", "%d",
		   p.deferredMappingCudaArraySupported);

	SZ(CUDA_ARRAY_DESCRIPTOR);
	SZ(CUDA_ARRAY3D_DESCRIPTOR);
	SZ(CUDA_ARRAY_SPARSE_PROPERTIES);
	SZ(CUDA_ARRAY_MEMORY_REQUIREMENTS);
	SZ(CUarrayMapInfo);
	SZ(CUarray_format);
	SZ(struct cudaChannelFormatDesc);
	SZ(struct cudaArraySparseProperties);
	SZ(struct cudaArrayMemoryRequirements);
	OFF(CUDA_ARRAY_DESCRIPTOR, Height);
	OFF(CUDA_ARRAY_DESCRIPTOR, Format);
	OFF(CUDA_ARRAY_DESCRIPTOR, NumChannels);
	OFF(CUDA_ARRAY3D_DESCRIPTOR, Depth);
	OFF(CUDA_ARRAY3D_DESCRIPTOR, Format);
	OFF(CUDA_ARRAY3D_DESCRIPTOR, NumChannels);
	OFF(CUDA_ARRAY3D_DESCRIPTOR, Flags);
	OFF(CUDA_ARRAY_SPARSE_PROPERTIES, miptailFirstLevel);
	OFF(CUDA_ARRAY_SPARSE_PROPERTIES, miptailSize);
	OFF(CUDA_ARRAY_SPARSE_PROPERTIES, flags);
	OFF(CUDA_ARRAY_MEMORY_REQUIREMENTS, alignment);
	OFF(CUarrayMapInfo, resource);
	OFF(CUarrayMapInfo, subresourceType);
	OFF(CUarrayMapInfo, subresource);
	OFF(CUarrayMapInfo, memOperationType);
	OFF(CUarrayMapInfo, memHandleType);
	OFF(CUarrayMapInfo, memHandle);
	OFF(CUarrayMapInfo, offset);
	OFF(CUarrayMapInfo, deviceBitMask);
	OFF(CUarrayMapInfo, flags);
	OFF(struct cudaChannelFormatDesc, f);
	{
		struct cudaChannelFormatDesc d = cudaCreateChannelDesc(8, 16, 32, 64,
								       cudaChannelFormatKindFloat);

		probe_line("arr.createchanneldesc.roundtrip", "%d,%d,%d,%d kind=%d", d.x, d.y, d.z,
			   d.w, (int)d.f);
		d = cudaCreateChannelDesc(-1, 0, 0, 0, (enum cudaChannelFormatKind)99);
		probe_line("arr.createchanneldesc.garbage", "%d,%d,%d,%d kind=%d", d.x, d.y, d.z,
			   d.w, (int)d.f);
	}
}

/* ------------------------------------------------------------------ */
/* The runtime's channel formats. */

static void chan_case(const char *key, int x, int y, int z, int w, enum cudaChannelFormatKind k)
{
	struct cudaChannelFormatDesc d = cudaCreateChannelDesc(x, y, z, w, k);
	cudaArray_t a = NULL;
	cudaError_t er;

	er = cudaMallocArray(&a, &d, 64, 32, 0);
	rres(key, er);
	cudaGetLastError();
	if (er != cudaSuccess)
		return;
	info(key, a);
	desc3(key, CA(a));
	RR(fk("%s.free", key), cudaFreeArray(a));
}

static void s_chan(void)
{
	static const struct { const char *n; enum cudaChannelFormatKind k; } kinds[] = {
		{ "signed", cudaChannelFormatKindSigned },
		{ "unsigned", cudaChannelFormatKindUnsigned },
		{ "float", cudaChannelFormatKindFloat },
	};
	static const int bits[] = { 8, 16, 32 };
	static const int chans[] = { 1, 2, 3, 4 };
	static const struct {
		const char *n;
		int x, y, z, w;
		int k;
	} odd[] = {
		{ "u24", 24, 0, 0, 0, cudaChannelFormatKindUnsigned },
		{ "u64", 64, 0, 0, 0, cudaChannelFormatKindUnsigned },
		{ "u8_16", 8, 16, 0, 0, cudaChannelFormatKindUnsigned },
		{ "u8_0_8", 8, 0, 8, 0, cudaChannelFormatKindUnsigned },
		{ "u0_8", 0, 8, 0, 0, cudaChannelFormatKindUnsigned },
		{ "u0", 0, 0, 0, 0, cudaChannelFormatKindUnsigned },
		{ "none0", 0, 0, 0, 0, cudaChannelFormatKindNone },
		{ "none8", 8, 0, 0, 0, cudaChannelFormatKindNone },
		{ "u-8", -8, 0, 0, 0, cudaChannelFormatKindUnsigned },
		{ "kind99", 8, 0, 0, 0, 99 },
		{ "nv12", 8, 8, 8, 0, cudaChannelFormatKindNV12 },
		{ "unorm8x1", 8, 0, 0, 0, cudaChannelFormatKindUnsignedNormalized8X1 },
		{ "unorm8x4", 8, 8, 8, 8, cudaChannelFormatKindUnsignedNormalized8X4 },
		{ "unorm8x4_as1", 8, 0, 0, 0, cudaChannelFormatKindUnsignedNormalized8X4 },
		{ "snorm16x2", 16, 16, 0, 0, cudaChannelFormatKindSignedNormalized16X2 },
		{ "bc1", 8, 8, 8, 8, cudaChannelFormatKindUnsignedBlockCompressed1 },
		{ "bc4", 8, 0, 0, 0, cudaChannelFormatKindUnsignedBlockCompressed4 },
		{ "unorm1010102", 10, 10, 10, 2, cudaChannelFormatKindUnsignedNormalized1010102 },
	};

	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		for (size_t b = 0; b < sizeof(bits) / sizeof(bits[0]); b++)
			for (size_t c = 0; c < sizeof(chans) / sizeof(chans[0]); c++) {
				int n = chans[c], v = bits[b];

				chan_case(fk("arr.chan.%s%dx%d", kinds[k].n, v, n), v, n >= 2 ? v : 0,
					  n >= 3 ? v : 0, n >= 4 ? v : 0, kinds[k].k);
			}
	for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++)
		chan_case(fk("arr.chan.%s", odd[i].n), odd[i].x, odd[i].y, odd[i].z, odd[i].w,
			  (enum cudaChannelFormatKind)odd[i].k);
}

/* ------------------------------------------------------------------ */
/* The driver's formats and flags. */

static void s_driver(void)
{
	static const struct { const char *n; unsigned int f; } fmts[] = {
		{ "u8", CU_AD_FORMAT_UNSIGNED_INT8 }, { "u16", CU_AD_FORMAT_UNSIGNED_INT16 },
		{ "u32", CU_AD_FORMAT_UNSIGNED_INT32 }, { "s8", CU_AD_FORMAT_SIGNED_INT8 },
		{ "s16", CU_AD_FORMAT_SIGNED_INT16 }, { "s32", CU_AD_FORMAT_SIGNED_INT32 },
		{ "half", CU_AD_FORMAT_HALF }, { "float", CU_AD_FORMAT_FLOAT },
		{ "unorm8x1", CU_AD_FORMAT_UNORM_INT8X1 }, { "unorm8x4", CU_AD_FORMAT_UNORM_INT8X4 },
		{ "bc1", CU_AD_FORMAT_BC1_UNORM }, { "nv12", CU_AD_FORMAT_NV12 },
		{ "fmt0", 0 }, { "fmt0x77", 0x77 },
	};
	static const unsigned int chans[] = { 0, 1, 2, 3, 4, 5 };
	static const struct {
		const char *n;
		size_t w, h, d;
		unsigned int fl;
	} f3[] = {
		{ "plain2d", 64, 32, 0, 0 },
		{ "plain3d", 16, 8, 4, 0 },
		{ "plain1d", 64, 0, 0, 0 },
		{ "h0_d4", 16, 0, 4, 0 },
		{ "w0", 0, 32, 0, 0 },
		{ "zero", 0, 0, 0, 0 },
		{ "layered1d", 64, 0, 8, CUDA_ARRAY3D_LAYERED },
		{ "layered2d", 64, 32, 8, CUDA_ARRAY3D_LAYERED },
		{ "layered_d0", 64, 32, 0, CUDA_ARRAY3D_LAYERED },
		{ "surface2d", 64, 32, 0, CUDA_ARRAY3D_SURFACE_LDST },
		{ "surface3d", 16, 8, 4, CUDA_ARRAY3D_SURFACE_LDST },
		{ "cubemap", 32, 32, 6, CUDA_ARRAY3D_CUBEMAP },
		{ "cubemap_w_ne_h", 32, 16, 6, CUDA_ARRAY3D_CUBEMAP },
		{ "cubemap_d5", 32, 32, 5, CUDA_ARRAY3D_CUBEMAP },
		{ "cubemap_layered12", 32, 32, 12, CUDA_ARRAY3D_CUBEMAP | CUDA_ARRAY3D_LAYERED },
		{ "cubemap_layered13", 32, 32, 13, CUDA_ARRAY3D_CUBEMAP | CUDA_ARRAY3D_LAYERED },
		{ "gather2d", 64, 32, 0, CUDA_ARRAY3D_TEXTURE_GATHER },
		{ "gather3d", 16, 8, 4, CUDA_ARRAY3D_TEXTURE_GATHER },
		{ "gather1d", 64, 0, 0, CUDA_ARRAY3D_TEXTURE_GATHER },
		{ "depth_texture", 64, 32, 0, CUDA_ARRAY3D_DEPTH_TEXTURE },
		{ "color_attachment", 64, 32, 0, CUDA_ARRAY3D_COLOR_ATTACHMENT },
		{ "sparse2d", 1024, 1024, 0, CUDA_ARRAY3D_SPARSE },
		{ "sparse2d_small", 64, 32, 0, CUDA_ARRAY3D_SPARSE },
		{ "sparse3d", 64, 64, 64, CUDA_ARRAY3D_SPARSE },
		{ "sparse1d", 1024, 0, 0, CUDA_ARRAY3D_SPARSE },
		{ "sparse_layered", 1024, 1024, 4, CUDA_ARRAY3D_SPARSE | CUDA_ARRAY3D_LAYERED },
		{ "deferred2d", 64, 32, 0, CUDA_ARRAY3D_DEFERRED_MAPPING },
		{ "deferred3d", 16, 8, 4, CUDA_ARRAY3D_DEFERRED_MAPPING },
		{ "sparse_deferred", 64, 32, 0, CUDA_ARRAY3D_SPARSE | CUDA_ARRAY3D_DEFERRED_MAPPING },
		{ "video", 64, 32, 0, CUDA_ARRAY3D_VIDEO_ENCODE_DECODE },
		{ "flag0x200", 64, 32, 0, 0x200 },
		{ "flag0x80000000", 64, 32, 0, 0x80000000u },
	};
	CUresult r;

	for (size_t f = 0; f < sizeof(fmts) / sizeof(fmts[0]); f++)
		for (size_t c = 0; c < sizeof(chans) / sizeof(chans[0]); c++) {
			CUDA_ARRAY_DESCRIPTOR d;
			const char *k = fk("arr.cu.create.%s.ch%u", fmts[f].n, chans[c]);
			CUarray a = NULL;

			memset(&d, 0, sizeof(d));
			d.Width = 64;
			d.Height = 32;
			d.Format = (CUarray_format)fmts[f].f;
			d.NumChannels = chans[c];
			r = cuArrayCreate(&a, &d);
			probe_res(k, r);
			if (r != CUDA_SUCCESS)
				continue;
			desc2(k, a);
			desc3(k, a);
			info(k, RA(a));
			PR(fk("%s.destroy", k), cuArrayDestroy(a));
		}
	{
		static const struct { const char *n; size_t w, h; } dims[] = {
			{ "1d", 64, 0 }, { "w0", 0, 32 }, { "zero", 0, 0 }, { "1x1", 1, 1 },
		};

		for (size_t i = 0; i < sizeof(dims) / sizeof(dims[0]); i++) {
			CUDA_ARRAY_DESCRIPTOR d = { dims[i].w, dims[i].h, CU_AD_FORMAT_FLOAT, 1 };
			const char *k = fk("arr.cu.create.dims.%s", dims[i].n);
			CUarray a = NULL;

			r = cuArrayCreate(&a, &d);
			probe_res(k, r);
			if (r != CUDA_SUCCESS)
				continue;
			desc2(k, a);
			desc3(k, a);
			cuArrayDestroy(a);
		}
	}
	for (size_t i = 0; i < sizeof(f3) / sizeof(f3[0]); i++) {
		const char *k = fk("arr.cu.create3d.%s", f3[i].n);
		CUarray a = mk3(f3[i].w, f3[i].h, f3[i].d, CU_AD_FORMAT_UNSIGNED_INT8, 4, f3[i].fl, &r);

		probe_res(k, r);
		if (!a)
			continue;
		desc3(k, a);
		desc2(k, a);
		info(k, RA(a));
		PR(fk("%s.destroy", k), cuArrayDestroy(a));
	}
	/* Depth textures take only some formats. */
	{
		static const struct { const char *n; unsigned int f; } df[] = {
			{ "u8", CU_AD_FORMAT_UNSIGNED_INT8 }, { "u16", CU_AD_FORMAT_UNSIGNED_INT16 },
			{ "u32", CU_AD_FORMAT_UNSIGNED_INT32 }, { "float", CU_AD_FORMAT_FLOAT },
		};

		for (size_t i = 0; i < sizeof(df) / sizeof(df[0]); i++) {
			CUarray a = mk3(64, 32, 0, (CUarray_format)df[i].f, 1,
					CUDA_ARRAY3D_DEPTH_TEXTURE, &r);

			probe_res(fk("arr.cu.create3d.depth_texture.%s.ch1", df[i].n), r);
			if (a)
				cuArrayDestroy(a);
		}
	}
}

/* The runtime's flags. */
static void s_flags(void)
{
	static const struct {
		const char *n;
		size_t w, h, d;
		unsigned int fl;
	} f3[] = {
		{ "plain2d", 64, 32, 0, cudaArrayDefault },
		{ "plain3d", 16, 8, 4, cudaArrayDefault },
		{ "plain1d", 64, 0, 0, cudaArrayDefault },
		{ "h0_d4", 16, 0, 4, cudaArrayDefault },
		{ "layered1d", 64, 0, 8, cudaArrayLayered },
		{ "layered2d", 64, 32, 8, cudaArrayLayered },
		{ "layered_d0", 64, 32, 0, cudaArrayLayered },
		{ "surface2d", 64, 32, 0, cudaArraySurfaceLoadStore },
		{ "surface3d", 16, 8, 4, cudaArraySurfaceLoadStore },
		{ "cubemap", 32, 32, 6, cudaArrayCubemap },
		{ "cubemap_w_ne_h", 32, 16, 6, cudaArrayCubemap },
		{ "cubemap_d5", 32, 32, 5, cudaArrayCubemap },
		{ "cubemap_layered12", 32, 32, 12, cudaArrayCubemap | cudaArrayLayered },
		{ "cubemap_layered13", 32, 32, 13, cudaArrayCubemap | cudaArrayLayered },
		{ "gather2d", 64, 32, 0, cudaArrayTextureGather },
		{ "gather3d", 16, 8, 4, cudaArrayTextureGather },
		{ "gather1d", 64, 0, 0, cudaArrayTextureGather },
		{ "color_attachment", 64, 32, 0, cudaArrayColorAttachment },
		{ "sparse2d", 1024, 1024, 0, cudaArraySparse },
		{ "sparse2d_small", 64, 32, 0, cudaArraySparse },
		{ "sparse3d", 64, 64, 64, cudaArraySparse },
		{ "sparse1d", 1024, 0, 0, cudaArraySparse },
		{ "deferred2d", 64, 32, 0, cudaArrayDeferredMapping },
		{ "sparse_deferred", 64, 32, 0, cudaArraySparse | cudaArrayDeferredMapping },
		{ "flag0x10", 64, 32, 0, 0x10 },
		{ "flag0x100", 64, 32, 0, 0x100 },
		{ "flag0x80000000", 64, 32, 0, 0x80000000u },
	};
	struct cudaChannelFormatDesc d = cudaCreateChannelDesc(8, 8, 8, 8, cudaChannelFormatKindUnsigned);

	for (size_t i = 0; i < sizeof(f3) / sizeof(f3[0]); i++) {
		const char *k = fk("arr.rt.malloc3d.%s", f3[i].n);
		cudaArray_t a = NULL;
		cudaError_t er;

		er = cudaMalloc3DArray(&a, &d, make_cudaExtent(f3[i].w, f3[i].h, f3[i].d), f3[i].fl);
		rres(k, er);
		cudaGetLastError();
		if (er == cudaSuccess) {
			info(k, a);
			desc3(k, CA(a));
			RR(fk("%s.free", k), cudaFreeArray(a));
		}
		if (f3[i].d)
			continue;
		/* cudaMallocArray takes width, height and the same flags */
		k = fk("arr.rt.mallocarray.%s", f3[i].n);
		a = NULL;
		er = cudaMallocArray(&a, &d, f3[i].w, f3[i].h, f3[i].fl);
		rres(k, er);
		cudaGetLastError();
		if (er == cudaSuccess) {
			info(k, a);
			desc3(k, CA(a));
			RR(fk("%s.free", k), cudaFreeArray(a));
		}
	}
	{
		/* cubemap, layered and 3D through cudaMallocArray */
		cudaArray_t a = NULL;

		RR("arr.rt.mallocarray.cubemap_flag", cudaMallocArray(&a, &d, 32, 32, cudaArrayCubemap));
		cudaGetLastError();
		if (a)
			cudaFreeArray(a);
		a = NULL;
		RR("arr.rt.mallocarray.layered_flag", cudaMallocArray(&a, &d, 32, 32, cudaArrayLayered));
		cudaGetLastError();
		if (a)
			cudaFreeArray(a);
	}
}

/* Dimensions: 0, 1, the maxima and one past. */
static void s_dims(void)
{
	struct cudaChannelFormatDesc d8 = cudaCreateChannelDesc(8, 0, 0, 0, cudaChannelFormatKindUnsigned);
	int m1 = 0, m2w = 0, m2h = 0, m3w = 0, m3h = 0, m3d = 0, mlw = 0, mll = 0, mcw = 0;
	struct { const char *n; size_t w, h, d; unsigned int fl; } c[32];
	int n = 0;

	cuDeviceGetAttribute(&m1, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH, 0);
	cuDeviceGetAttribute(&m2w, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH, 0);
	cuDeviceGetAttribute(&m2h, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT, 0);
	cuDeviceGetAttribute(&m3w, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH, 0);
	cuDeviceGetAttribute(&m3h, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT, 0);
	cuDeviceGetAttribute(&m3d, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH, 0);
	cuDeviceGetAttribute(&mlw, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_WIDTH, 0);
	cuDeviceGetAttribute(&mll, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS, 0);
	cuDeviceGetAttribute(&mcw, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_WIDTH, 0);
#define C(name, W, H, D, F) c[n++] = (typeof(c[0])){ name, (W), (H), (D), (F) }
	C("1d.1", 1, 0, 0, 0);
	C("1d.max", m1, 0, 0, 0);
	C("1d.max1", m1 + 1, 0, 0, 0);
	C("2d.1x1", 1, 1, 0, 0);
	C("2d.maxw", m2w, 1, 0, 0);
	C("2d.maxw1", m2w + 1, 1, 0, 0);
	C("2d.maxh", 1, m2h, 0, 0);
	C("2d.maxh1", 1, m2h + 1, 0, 0);
	C("2d.max", m2w, m2h, 0, 0);
	C("3d.1x1x1", 1, 1, 1, 0);
	C("3d.maxw", m3w, 1, 1, 0);
	C("3d.maxw1", m3w + 1, 1, 1, 0);
	C("3d.maxh1", 1, m3h + 1, 1, 0);
	C("3d.maxd", 1, 1, m3d, 0);
	C("3d.maxd1", 1, 1, m3d + 1, 0);
	C("3d.max", m3w, m3h, m3d, 0);
	C("layered.maxlayers", 64, 32, mll, cudaArrayLayered);
	C("layered.maxlayers1", 64, 32, mll + 1, cudaArrayLayered);
	C("layered.maxw1", mlw + 1, 32, 2, cudaArrayLayered);
	C("cubemap.max", mcw, mcw, 6, cudaArrayCubemap);
	C("cubemap.max1", mcw + 1, mcw + 1, 6, cudaArrayCubemap);
	C("w0h1", 0, 1, 0, 0);
	C("w0h0d0", 0, 0, 0, 0);
	C("w0h0d1", 0, 0, 1, 0);
#undef C
	for (int i = 0; i < n; i++) {
		const char *k = fk("arr.dims.%s", c[i].n);
		cudaArray_t a = NULL;
		cudaError_t er;

		er = cudaMalloc3DArray(&a, &d8, make_cudaExtent(c[i].w, c[i].h, c[i].d), c[i].fl);
		rres(k, er);
		cudaGetLastError();
		if (er != cudaSuccess)
			continue;
		info(k, a);
		cudaFreeArray(a);
	}
	{
		cudaArray_t a = NULL;

		RR("arr.dims.mallocarray.w0", cudaMallocArray(&a, &d8, 0, 32, 0));
		cudaGetLastError();
		if (a)
			cudaFreeArray(a);
		a = NULL;
		RR("arr.dims.mallocarray.1d", cudaMallocArray(&a, &d8, 64, 0, 0));
		if (a) {
			info("arr.dims.mallocarray.1d", a);
			cudaFreeArray(a);
		}
		a = NULL;
		RR("arr.dims.mallocarray.max1d1", cudaMallocArray(&a, &d8, m1 + 1, 0, 0));
		cudaGetLastError();
		if (a)
			cudaFreeArray(a);
	}
}

/* ------------------------------------------------------------------ */
/* Memory requirements and sparse properties. */

static void memreq(const char *key, cudaArray_t a, int dev)
{
	struct cudaArrayMemoryRequirements m;
	CUDA_ARRAY_MEMORY_REQUIREMENTS cm;
	cudaError_t er;
	CUresult r;

	memset(&m, 0, sizeof(m));
	er = cudaArrayGetMemoryRequirements(&m, a, dev);
	rres(fk("%s.memreq.dev%d", key, dev), er);
	cudaGetLastError();
	if (er == cudaSuccess)
		probe_line(fk("%s.memreq.dev%d.value", key, dev), "size=%zu alignment=%zu", m.size,
			   m.alignment);
	memset(&cm, 0, sizeof(cm));
	r = cuArrayGetMemoryRequirements(&cm, CA(a), dev);
	probe_res(fk("%s.cumemreq.dev%d", key, dev), r);
	if (r == CUDA_SUCCESS)
		probe_line(fk("%s.cumemreq.dev%d.value", key, dev), "size=%zu alignment=%zu", cm.size,
			   cm.alignment);
}

static void sparseprops(const char *key, cudaArray_t a)
{
	struct cudaArraySparseProperties p;
	CUDA_ARRAY_SPARSE_PROPERTIES cp;
	cudaError_t er;
	CUresult r;

	memset(&p, 0, sizeof(p));
	er = cudaArrayGetSparseProperties(&p, a);
	rres(fk("%s.sparse", key), er);
	cudaGetLastError();
	if (er == cudaSuccess)
		probe_line(fk("%s.sparse.value", key),
			   "tile=%u,%u,%u miptailFirstLevel=%u miptailSize=%llu flags=0x%x",
			   p.tileExtent.width, p.tileExtent.height, p.tileExtent.depth,
			   p.miptailFirstLevel, p.miptailSize, p.flags);
	memset(&cp, 0, sizeof(cp));
	r = cuArrayGetSparseProperties(&cp, CA(a));
	probe_res(fk("%s.cusparse", key), r);
	if (r == CUDA_SUCCESS)
		probe_line(fk("%s.cusparse.value", key),
			   "tile=%u,%u,%u miptailFirstLevel=%u miptailSize=%llu flags=0x%x",
			   cp.tileExtent.width, cp.tileExtent.height, cp.tileExtent.depth,
			   cp.miptailFirstLevel, cp.miptailSize, cp.flags);
}

static void s_memreq(void)
{
	static const struct {
		const char *n;
		int bits, ch;
		size_t w, h, d;
		unsigned int fl;
	} c[] = {
		{ "plain2d", 8, 4, 64, 32, 0, 0 },
		{ "plain2d_big", 8, 4, 1024, 1024, 0, 0 },
		{ "deferred2d", 8, 4, 64, 32, 0, cudaArrayDeferredMapping },
		{ "deferred2d_big", 8, 4, 1024, 1024, 0, cudaArrayDeferredMapping },
		{ "deferred3d", 8, 4, 64, 64, 64, cudaArrayDeferredMapping },
		{ "sparse2d", 8, 4, 1024, 1024, 0, cudaArraySparse },
		{ "sparse2d_u8", 8, 1, 1024, 1024, 0, cudaArraySparse },
		{ "sparse2d_f32x4", 32, 4, 1024, 1024, 0, cudaArraySparse },
		{ "sparse2d_small", 8, 4, 64, 32, 0, cudaArraySparse },
		{ "sparse3d", 8, 4, 64, 64, 64, cudaArraySparse },
		{ "sparse_layered", 8, 4, 1024, 1024, 4, cudaArraySparse | cudaArrayLayered },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		int b = c[i].bits, ch = c[i].ch;
		struct cudaChannelFormatDesc d = cudaCreateChannelDesc(b, ch >= 2 ? b : 0, ch >= 3 ? b : 0,
			ch >= 4 ? b : 0, b == 32 ? cudaChannelFormatKindFloat : cudaChannelFormatKindUnsigned);
		const char *k = fk("arr.req.%s", c[i].n);
		cudaArray_t a = NULL;
		cudaError_t er;

		er = cudaMalloc3DArray(&a, &d, make_cudaExtent(c[i].w, c[i].h, c[i].d), c[i].fl);
		rres(k, er);
		cudaGetLastError();
		if (er != cudaSuccess)
			continue;
		memreq(k, a, 0);
		if (i == 2 || i == 5) {
			memreq(k, a, 1);
			memreq(k, a, -1);
		}
		sparseprops(k, a);
		cudaFreeArray(a);
	}
	/* Mipmapped arrays. */
	{
		struct cudaChannelFormatDesc d = cudaCreateChannelDesc(8, 8, 8, 8,
								       cudaChannelFormatKindUnsigned);
		static const unsigned int fl[] = { 0, cudaArraySparse, cudaArrayDeferredMapping };

		for (size_t i = 0; i < sizeof(fl) / sizeof(fl[0]); i++) {
			const char *k = fk("arr.req.mipmap.flags0x%x", fl[i]);
			cudaMipmappedArray_t mm = NULL;
			struct cudaArrayMemoryRequirements m;
			struct cudaArraySparseProperties p;
			cudaError_t er;

			er = cudaMallocMipmappedArray(&mm, &d, make_cudaExtent(1024, 1024, 0), 11, fl[i]);
			rres(k, er);
			cudaGetLastError();
			if (er != cudaSuccess)
				continue;
			memset(&m, 0, sizeof(m));
			er = cudaMipmappedArrayGetMemoryRequirements(&m, mm, 0);
			rres(fk("%s.memreq", k), er);
			cudaGetLastError();
			if (er == cudaSuccess)
				probe_line(fk("%s.memreq.value", k), "size=%zu alignment=%zu", m.size,
					   m.alignment);
			memset(&p, 0, sizeof(p));
			er = cudaMipmappedArrayGetSparseProperties(&p, mm);
			rres(fk("%s.sparse", k), er);
			cudaGetLastError();
			if (er == cudaSuccess)
				probe_line(fk("%s.sparse.value", k),
					   "tile=%u,%u,%u miptailFirstLevel=%u miptailSize=%llu flags=0x%x",
					   p.tileExtent.width, p.tileExtent.height, p.tileExtent.depth,
					   p.miptailFirstLevel, p.miptailSize, p.flags);
			RR(fk("%s.free", k), cudaFreeMipmappedArray(mm));
		}
	}
}

/* ------------------------------------------------------------------ */
/* Multi-planar formats. */

static void s_nv12(void)
{
	static const struct { const char *n; unsigned int f; } pf[] = {
		{ "nv12", CU_AD_FORMAT_NV12 }, { "p010", CU_AD_FORMAT_P010 },
		{ "p016", CU_AD_FORMAT_P016 }, { "nv16", CU_AD_FORMAT_NV16 },
		{ "p210", CU_AD_FORMAT_P210 }, { "yuy2", CU_AD_FORMAT_YUY2 },
		{ "y444p8", CU_AD_FORMAT_Y444_PLANAR8 },
	};
	static const unsigned int chans[] = { 1, 2, 3, 4 };
	CUresult r;
	CUarray a;

	for (size_t f = 0; f < sizeof(pf) / sizeof(pf[0]); f++)
		for (size_t c = 0; c < sizeof(chans) / sizeof(chans[0]); c++) {
			const char *k = fk("arr.planar.%s.ch%u", pf[f].n, chans[c]);

			a = mk3(64, 32, 0, (CUarray_format)pf[f].f, chans[c], 0, &r);
			probe_res(k, r);
			if (!a)
				continue;
			desc3(k, a);
			info(k, RA(a));
			for (unsigned int p = 0; p < 4; p++) {
				CUarray pl = NULL;

				r = cuArrayGetPlane(&pl, a, p);
				probe_res(fk("%s.plane%u", k, p), r);
				if (r != CUDA_SUCCESS)
					continue;
				desc3(fk("%s.plane%u", k, p), pl);
				info(fk("%s.plane%u", k, p), RA(pl));
			}
			cuArrayDestroy(a);
		}
	/* Odd sizes. */
	a = mk3(63, 32, 0, CU_AD_FORMAT_NV12, 3, 0, &r);
	probe_res("arr.planar.nv12.w63", r);
	if (a)
		cuArrayDestroy(a);
	a = mk3(64, 31, 0, CU_AD_FORMAT_NV12, 3, 0, &r);
	probe_res("arr.planar.nv12.h31", r);
	if (a)
		cuArrayDestroy(a);
	a = mk3(64, 32, 4, CU_AD_FORMAT_NV12, 3, 0, &r);
	probe_res("arr.planar.nv12.3d", r);
	if (a)
		cuArrayDestroy(a);
	a = mk3(64, 32, 0, CU_AD_FORMAT_NV12, 3, CUDA_ARRAY3D_SURFACE_LDST, &r);
	probe_res("arr.planar.nv12.surface", r);
	if (a)
		cuArrayDestroy(a);
	for (unsigned int ch = 1; ch <= 3; ch += 2) {
		a = mk3(128, 64, 0, CU_AD_FORMAT_NV12, ch, CUDA_ARRAY3D_VIDEO_ENCODE_DECODE, &r);
		probe_res(fk("arr.planar.nv12.video.ch%u", ch), r);
		if (!a)
			continue;
		desc3(fk("arr.planar.nv12.video.ch%u", ch), a);
		for (unsigned int p = 0; p < 3; p++) {
			CUarray pl = NULL;

			r = cuArrayGetPlane(&pl, a, p);
			probe_res(fk("arr.planar.nv12.video.ch%u.plane%u", ch, p), r);
			if (r == CUDA_SUCCESS)
				desc3(fk("arr.planar.nv12.video.ch%u.plane%u", ch, p), pl);
			if (r != CUDA_SUCCESS || p > 1)
				continue;
			/* the data through the plane: 128 bytes by 64 rows
			 * (plane 0), by 32 rows (plane 1) */
			{
				unsigned char src[128 * 64], back[128 * 64];
				unsigned int rows = p ? 32 : 64;
				CUDA_MEMCPY2D c;

				for (int i = 0; i < (int)sizeof(src); i++)
					src[i] = (unsigned char)(i * 13 + p);
				memset(&c, 0, sizeof(c));
				c.srcMemoryType = CU_MEMORYTYPE_HOST;
				c.srcHost = src;
				c.srcPitch = 128;
				c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
				c.dstArray = pl;
				c.WidthInBytes = 128;
				c.Height = rows;
				PR(fk("arr.planar.nv12.video.ch%u.plane%u.write", ch, p), cuMemcpy2D(&c));
				memset(&c, 0, sizeof(c));
				c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
				c.srcArray = pl;
				c.dstMemoryType = CU_MEMORYTYPE_HOST;
				c.dstHost = back;
				c.dstPitch = 128;
				c.WidthInBytes = 128;
				c.Height = rows;
				memset(back, 0, sizeof(back));
				PR(fk("arr.planar.nv12.video.ch%u.plane%u.read", ch, p), cuMemcpy2D(&c));
				probe_line(fk("arr.planar.nv12.video.ch%u.plane%u.data", ch, p), "%s",
					   memcmp(src, back, 128 * rows) ? "mismatch" : "ok");
				if (p == 1) {
					/* plane 0 after plane 1 was written */
					CUarray p0 = NULL;

					cuArrayGetPlane(&p0, a, 0);
					c.srcArray = p0;
					c.Height = 64;
					for (int i = 0; i < (int)sizeof(src); i++)
						src[i] = (unsigned char)(i * 13);
					cuMemcpy2D(&c);
					probe_line(fk("arr.planar.nv12.video.ch%u.plane0.after_plane1", ch),
						   "%s", memcmp(src, back, sizeof(src)) ? "mismatch" : "ok");
				}
			}
		}
		/* the multi-planar array itself as a copy's destination */
		{
			unsigned char src[128 * 64];
			CUDA_MEMCPY2D c;

			memset(src, 1, sizeof(src));
			memset(&c, 0, sizeof(c));
			c.srcMemoryType = CU_MEMORYTYPE_HOST;
			c.srcHost = src;
			c.srcPitch = 128;
			c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
			c.dstArray = a;
			c.WidthInBytes = 128;
			c.Height = 64;
			PR(fk("arr.planar.nv12.video.ch%u.whole.write", ch), cuMemcpy2D(&c));
		}
		cuArrayDestroy(a);
	}
	{
		CUDA_ARRAY_DESCRIPTOR d2 = { 128, 64, CU_AD_FORMAT_NV12, 3 };

		a = NULL;
		PR("arr.planar.nv12.arraycreate_128x64", cuArrayCreate(&a, &d2));
		if (a)
			cuArrayDestroy(a);
	}
	/* The runtime: cudaMallocArray with an NV12 channel description,
	 * cudaArrayGetPlane, the data through plane 0 and 1. */
	{
		struct cudaChannelFormatDesc d = cudaCreateChannelDesc(8, 8, 8, 0,
								       cudaChannelFormatKindNV12);
		cudaArray_t ra = NULL, p0 = NULL, p1 = NULL, p2 = NULL;
		unsigned char src[64 * 32], back[64 * 32];
		cudaError_t er;

		er = cudaMallocArray(&ra, &d, 64, 32, 0);
		rres("arr.planar.rt.mallocarray", er);
		cudaGetLastError();
		if (er == cudaSuccess) {
			info("arr.planar.rt.mallocarray", ra);
			desc3("arr.planar.rt.mallocarray", CA(ra));
			RR("arr.planar.rt.plane0", cudaArrayGetPlane(&p0, ra, 0));
			RR("arr.planar.rt.plane1", cudaArrayGetPlane(&p1, ra, 1));
			RR("arr.planar.rt.plane2", cudaArrayGetPlane(&p2, ra, 2));
			cudaGetLastError();
			if (p0)
				info("arr.planar.rt.plane0", p0);
			if (p1)
				info("arr.planar.rt.plane1", p1);
			for (int i = 0; i < 64 * 32; i++)
				src[i] = (unsigned char)(i * 7 + 3);
			if (p0) {
				memset(back, 0, sizeof(back));
				RR("arr.planar.rt.plane0.write",
				   cudaMemcpy2DToArray(p0, 0, 0, src, 64, 64, 32, cudaMemcpyHostToDevice));
				RR("arr.planar.rt.plane0.read",
				   cudaMemcpy2DFromArray(back, 64, p0, 0, 0, 64, 32, cudaMemcpyDeviceToHost));
				probe_line("arr.planar.rt.plane0.data", "%s",
					   memcmp(src, back, sizeof(src)) ? "mismatch" : "ok");
			}
			if (p1) {
				/* 32 x 16 elements of 2 bytes */
				memset(back, 0, sizeof(back));
				RR("arr.planar.rt.plane1.write",
				   cudaMemcpy2DToArray(p1, 0, 0, src, 64, 64, 16, cudaMemcpyHostToDevice));
				RR("arr.planar.rt.plane1.read",
				   cudaMemcpy2DFromArray(back, 64, p1, 0, 0, 64, 16, cudaMemcpyDeviceToHost));
				probe_line("arr.planar.rt.plane1.data", "%s",
					   memcmp(src, back, 64 * 16) ? "mismatch" : "ok");
				/* plane 0 still as written */
				if (p0) {
					cudaMemcpy2DFromArray(back, 64, p0, 0, 0, 64, 32,
							      cudaMemcpyDeviceToHost);
					probe_line("arr.planar.rt.plane0.after_plane1", "%s",
						   memcmp(src, back, sizeof(src)) ? "mismatch" : "ok");
				}
			}
			/* copies to the multi-planar array itself */
			RR("arr.planar.rt.whole.write",
			   cudaMemcpy2DToArray(ra, 0, 0, src, 64, 64, 32, cudaMemcpyHostToDevice));
			cudaGetLastError();
			RR("arr.planar.rt.whole.read",
			   cudaMemcpy2DFromArray(back, 64, ra, 0, 0, 64, 32, cudaMemcpyDeviceToHost));
			cudaGetLastError();
			{
				struct cudaArrayMemoryRequirements m;

				memset(&m, 0, sizeof(m));
				RR("arr.planar.rt.memreq", cudaArrayGetMemoryRequirements(&m, ra, 0));
				cudaGetLastError();
			}
			RR("arr.planar.rt.free", cudaFreeArray(ra));
		}
		/* planes of an array that has none */
		d = cudaCreateChannelDesc(8, 0, 0, 0, cudaChannelFormatKindUnsigned);
		ra = NULL;
		MUST(cudaMallocArray(&ra, &d, 64, 32, 0) == cudaSuccess ? CUDA_SUCCESS :
		     CUDA_ERROR_UNKNOWN);
		p0 = NULL;
		RR("arr.planar.rt.noplanar.plane0", cudaArrayGetPlane(&p0, ra, 0));
		cudaGetLastError();
		probe_line("arr.planar.rt.noplanar.plane0.out", "%s", p0 == NULL ? "null" :
			   p0 == ra ? "same" : "other");
		cudaFreeArray(ra);
	}
}

/* ------------------------------------------------------------------ */
/* Mipmapped arrays. */

static void mip_levels(const char *key, cudaMipmappedArray_t mm, unsigned int n)
{
	for (unsigned int l = 0; l <= n; l++) {
		cudaArray_t a = NULL;
		cudaError_t er = cudaGetMipmappedArrayLevel(&a, mm, l);

		rres(fk("%s.level%u", key, l), er);
		cudaGetLastError();
		if (er == cudaSuccess)
			info(fk("%s.level%u", key, l), a);
	}
}

static void s_mipmap(void)
{
	struct cudaChannelFormatDesc d = cudaCreateChannelDesc(8, 8, 8, 8, cudaChannelFormatKindUnsigned);
	static const struct {
		const char *n;
		size_t w, h, dp;
		unsigned int levels, fl, probe;
	} c[] = {
		{ "2d.64x32.l7", 64, 32, 0, 7, 0, 8 },
		{ "2d.64x32.l3", 64, 32, 0, 3, 0, 4 },
		{ "2d.64x32.l0", 64, 32, 0, 0, 0, 2 },
		{ "2d.64x32.l8", 64, 32, 0, 8, 0, 9 },
		{ "2d.64x32.l100", 64, 32, 0, 100, 0, 9 },
		{ "2d.100x60.l7", 100, 60, 0, 7, 0, 8 },
		{ "1d.64.l7", 64, 0, 0, 7, 0, 8 },
		{ "3d.16x8x4.l5", 16, 8, 4, 5, 0, 6 },
		{ "layered.64x32x4.l7", 64, 32, 4, 7, cudaArrayLayered, 8 },
		{ "cubemap.32.l6", 32, 32, 6, 6, cudaArrayCubemap, 7 },
		{ "surface.64x32.l7", 64, 32, 0, 7, cudaArraySurfaceLoadStore, 8 },
		{ "gather.64x32.l7", 64, 32, 0, 7, cudaArrayTextureGather, 8 },
		{ "zero.l1", 0, 0, 0, 1, 0, 1 },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		const char *k = fk("arr.mip.%s", c[i].n);
		cudaMipmappedArray_t mm = NULL;
		cudaError_t er;

		er = cudaMallocMipmappedArray(&mm, &d, make_cudaExtent(c[i].w, c[i].h, c[i].dp),
					      c[i].levels, c[i].fl);
		rres(k, er);
		cudaGetLastError();
		if (er != cudaSuccess)
			continue;
		mip_levels(k, mm, c[i].probe);
		RR(fk("%s.free", k), cudaFreeMipmappedArray(mm));
	}
	/* The data through level 1, the driver's view of the levels. */
	{
		cudaMipmappedArray_t mm = NULL;
		cudaArray_t l0 = NULL, l1 = NULL;
		unsigned char src[256 * 32], back[256 * 32], keep[256 * 32];

		MUST(cudaMallocMipmappedArray(&mm, &d, make_cudaExtent(64, 32, 0), 7, 0) == cudaSuccess ?
		     CUDA_SUCCESS : CUDA_ERROR_UNKNOWN);
		cudaGetMipmappedArrayLevel(&l0, mm, 0);
		cudaGetMipmappedArrayLevel(&l1, mm, 1);
		for (int i = 0; i < (int)sizeof(src); i++)
			src[i] = (unsigned char)(i * 5 + 1);
		memset(keep, 0x11, sizeof(keep));
		RR("arr.mip.data.level0.write",
		   cudaMemcpy2DToArray(l0, 0, 0, keep, 256, 256, 32, cudaMemcpyHostToDevice));
		RR("arr.mip.data.level1.write",
		   cudaMemcpy2DToArray(l1, 0, 0, src, 128, 128, 16, cudaMemcpyHostToDevice));
		memset(back, 0, sizeof(back));
		RR("arr.mip.data.level1.read",
		   cudaMemcpy2DFromArray(back, 128, l1, 0, 0, 128, 16, cudaMemcpyDeviceToHost));
		probe_line("arr.mip.data.level1.data", "%s", memcmp(src, back, 128 * 16) ? "mismatch" : "ok");
		memset(back, 0, sizeof(back));
		cudaMemcpy2DFromArray(back, 256, l0, 0, 0, 256, 32, cudaMemcpyDeviceToHost);
		probe_line("arr.mip.data.level0.untouched", "%d", !memcmp(keep, back, sizeof(keep)));
		RR("arr.mip.data.level1.oob",
		   cudaMemcpy2DToArray(l1, 0, 0, src, 256, 256, 32, cudaMemcpyHostToDevice));
		cudaGetLastError();
		desc3("arr.mip.data.level1", CA(l1));
		RR("arr.mip.data.free", cudaFreeMipmappedArray(mm));
	}
	/* The driver's calls. */
	{
		CUDA_ARRAY3D_DESCRIPTOR ad = { 64, 32, 0, CU_AD_FORMAT_FLOAT, 1, 0 };
		CUmipmappedArray mm = NULL;
		CUresult r = cuMipmappedArrayCreate(&mm, &ad, 7);

		probe_res("arr.mip.cu.create", r);
		if (r == CUDA_SUCCESS) {
			for (unsigned int l = 0; l <= 7; l++) {
				CUarray a = NULL;

				r = cuMipmappedArrayGetLevel(&a, mm, l);
				probe_res(fk("arr.mip.cu.level%u", l), r);
				if (r == CUDA_SUCCESS)
					desc3(fk("arr.mip.cu.level%u", l), a);
			}
			PR("arr.mip.cu.destroy", cuMipmappedArrayDestroy(mm));
		}
		mm = NULL;
		PR("arr.mip.cu.create.l0", cuMipmappedArrayCreate(&mm, &ad, 0));
		if (mm)
			cuMipmappedArrayDestroy(mm);
	}
}

/* ------------------------------------------------------------------ */
/* Copies.  A is 64 x 32 uchar4 (rows of 256 bytes). */

#define AW 256
#define AH 32
#define AN (AW * AH)
#define HP 300			/* pitch of the linear side */
#define HN (HP * AH)

static unsigned char pat_img[AN], init_a[AN], exp_a[AN], got_a[AN];
static unsigned char lin_src[HN], lin_init[HN], lin_exp[HN], lin_got[HN];

static void images(void)
{
	for (int i = 0; i < AN; i++)
		pat_img[i] = (unsigned char)(i * 131u + (i >> 8) * 7u + 1u);
	memset(init_a, 0xee, AN);
	for (int i = 0; i < HN; i++)
		lin_src[i] = (unsigned char)(i * 29u + 5u + (i >> 9));
	memset(lin_init, 0xee, HN);
}

static const char *cls(const unsigned char *got, const unsigned char *exp,
		       const unsigned char *init, size_t n)
{
	if (!memcmp(got, exp, n))
		return "ok";
	if (!memcmp(got, init, n))
		return "untouched";
	return "mismatch";
}

static void afill(cudaArray_t a, const unsigned char *img)
{
	if (cudaMemcpy2DToArray(a, 0, 0, img, AW, AW, AH, cudaMemcpyHostToDevice) != cudaSuccess)
		probe_line("arr.FATAL.afill", "failed");
}

static void aread(cudaArray_t a, unsigned char *img)
{
	memset(img, 0x5a, AN);
	cudaDeviceSynchronize();
	if (cudaMemcpy2DFromArray(img, AW, a, 0, 0, AW, AH, cudaMemcpyDeviceToHost) != cudaSuccess)
		probe_line("arr.FATAL.aread", "failed");
	cudaGetLastError();
}

/* Expected array after a rectangle of w bytes by h rows from linear src
 * (pitch sp) lands at (wo bytes, ho rows). */
static void exp_to_array(const unsigned char *src, size_t sp, size_t wo, size_t ho, size_t w,
			 size_t h)
{
	memcpy(exp_a, init_a, AN);
	for (size_t y = 0; y < h; y++)
		for (size_t x = 0; x < w; x++)
			if ((ho + y) * AW + wo + x < AN)
				exp_a[(ho + y) * AW + wo + x] = src[y * sp + x];
}

/* Expected linear buffer (pitch dp) after a rectangle from the array
 * holding pat_img at (wo, ho). */
static void exp_from_array(size_t dp, size_t wo, size_t ho, size_t w, size_t h)
{
	memcpy(lin_exp, lin_init, HN);
	for (size_t y = 0; y < h; y++)
		for (size_t x = 0; x < w; x++)
			if (y * dp + x < HN && (ho + y) * AW + wo + x < AN)
				lin_exp[y * dp + x] = pat_img[(ho + y) * AW + wo + x];
}

/* Linear memory of every kind, HN bytes. */
enum { L_PAGE, L_PIN, L_DEV, L_MAN, NL };
static const char *const lname[NL] = { "pageable", "pinned", "device", "managed" };
static void *lin[NL];

static void lin_alloc(void)
{
	CUdeviceptr d = 0, m = 0;

	lin[L_PAGE] = malloc(HN);
	MUST(cuMemAllocHost(&lin[L_PIN], HN));
	MUST(cuMemAlloc(&d, HN));
	lin[L_DEV] = VP(d);
	MUST(cuMemAllocManaged(&m, HN, CU_MEM_ATTACH_GLOBAL));
	lin[L_MAN] = VP(m);
}

static void lin_put(int k, const unsigned char *img)
{
	cudaDeviceSynchronize();
	if (k == L_DEV)
		cudaMemcpy(lin[k], img, HN, cudaMemcpyHostToDevice);
	else
		memcpy(lin[k], img, HN);
}

static void lin_get(int k, unsigned char *img)
{
	memset(img, 0x5a, HN);
	cudaDeviceSynchronize();
	if (k == L_DEV)
		cudaMemcpy(img, lin[k], HN, cudaMemcpyDeviceToHost);
	else
		memcpy(img, lin[k], HN);
}

static enum cudaMemcpyKind to_kind(int k)
{
	return k == L_DEV || k == L_MAN ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice;
}

static enum cudaMemcpyKind from_kind(int k)
{
	return k == L_DEV || k == L_MAN ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost;
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

static void s_copy(void)
{
	struct cudaChannelFormatDesc d4 = cudaCreateChannelDesc(8, 8, 8, 8, cudaChannelFormatKindUnsigned);
	cudaArray_t A = NULL, B = NULL;
	cudaError_t er;

	images();
	lin_alloc();
	MUST(cudaMallocArray(&A, &d4, 64, 32, 0) == cudaSuccess ? CUDA_SUCCESS : CUDA_ERROR_UNKNOWN);
	MUST(cudaMallocArray(&B, &d4, 64, 32, 0) == cudaSuccess ? CUDA_SUCCESS : CUDA_ERROR_UNKNOWN);

	/* Linear to array: every kind of memory, matching kind and Default,
	 * sync and async.  16 bytes (4 elements) and 2 rows in, 200 bytes by
	 * 20 rows, source pitch 300. */
	for (int k = 0; k < NL; k++)
		for (int v = 0; v < 3; v++) {
			const char *key = fk("arr.copy.to2d.%s.%s", lname[k],
					     v == 0 ? "kind" : v == 1 ? "default" : "async");

			lin_put(k, lin_src);
			afill(A, init_a);
			if (v < 2)
				er = cudaMemcpy2DToArray(A, 16, 2, lin[k], HP, 200, 20,
							 v == 0 ? to_kind(k) : cudaMemcpyDefault);
			else
				er = cudaMemcpy2DToArrayAsync(A, 16, 2, lin[k], HP, 200, 20,
							      cudaMemcpyDefault, st);
			rres(key, er);
			RR(fk("%s.sync", key), cudaDeviceSynchronize());
			cudaGetLastError();
			aread(A, got_a);
			exp_to_array(lin_src, HP, 16, 2, 200, 20);
			probe_line(fk("%s.data", key), "%s", cls(got_a, exp_a, init_a, AN));
		}
	/* Array to linear. */
	for (int k = 0; k < NL; k++)
		for (int v = 0; v < 3; v++) {
			const char *key = fk("arr.copy.from2d.%s.%s", lname[k],
					     v == 0 ? "kind" : v == 1 ? "default" : "async");

			afill(A, pat_img);
			lin_put(k, lin_init);
			if (v < 2)
				er = cudaMemcpy2DFromArray(lin[k], HP, A, 16, 2, 200, 20,
							   v == 0 ? from_kind(k) : cudaMemcpyDefault);
			else
				er = cudaMemcpy2DFromArrayAsync(lin[k], HP, A, 16, 2, 200, 20,
								cudaMemcpyDefault, st);
			rres(key, er);
			RR(fk("%s.sync", key), cudaDeviceSynchronize());
			cudaGetLastError();
			lin_get(k, lin_got);
			exp_from_array(HP, 16, 2, 200, 20);
			probe_line(fk("%s.data", key), "%s", cls(lin_got, lin_exp, lin_init, HN));
		}
	/* Array to array. */
	{
		afill(A, pat_img);
		afill(B, init_a);
		RR("arr.copy.a2a2d", cudaMemcpy2DArrayToArray(B, 8, 1, A, 16, 2, 200, 20,
							      cudaMemcpyDeviceToDevice));
		aread(B, got_a);
		memcpy(exp_a, init_a, AN);
		for (int y = 0; y < 20; y++)
			memcpy(exp_a + (1 + y) * AW + 8, pat_img + (2 + y) * AW + 16, 200);
		probe_line("arr.copy.a2a2d.data", "%s", cls(got_a, exp_a, init_a, AN));
		afill(B, init_a);
		RR("arr.copy.a2a2d.default", cudaMemcpy2DArrayToArray(B, 8, 1, A, 16, 2, 200, 20,
								      cudaMemcpyDefault));
		aread(B, got_a);
		probe_line("arr.copy.a2a2d.default.data", "%s", cls(got_a, exp_a, init_a, AN));
		RR("arr.copy.a2a2d.kind_h2d", cudaMemcpy2DArrayToArray(B, 8, 1, A, 16, 2, 200, 20,
								       cudaMemcpyHostToDevice));
		cudaGetLastError();
		RR("arr.copy.a2a2d.self", cudaMemcpy2DArrayToArray(A, 0, 0, A, 16, 2, 200, 20,
								   cudaMemcpyDeviceToDevice));
		cudaGetLastError();
	}
	/* The deprecated linear forms: count bytes from (wOffset, hOffset),
	 * "ok" where the bytes run on row after row. */
	{
		afill(A, init_a);
		RR("arr.copy.toarray", cudaMemcpyToArray(A, 16, 2, lin_src, 600, cudaMemcpyHostToDevice));
		aread(A, got_a);
		memcpy(exp_a, init_a, AN);
		memcpy(exp_a + 2 * AW + 16, lin_src, 600);
		probe_line("arr.copy.toarray.data", "%s", cls(got_a, exp_a, init_a, AN));
		afill(A, init_a);
		RR("arr.copy.toarray.row", cudaMemcpyToArray(A, 16, 2, lin_src, 200, cudaMemcpyHostToDevice));
		aread(A, got_a);
		memcpy(exp_a, init_a, AN);
		memcpy(exp_a + 2 * AW + 16, lin_src, 200);
		probe_line("arr.copy.toarray.row.data", "%s", cls(got_a, exp_a, init_a, AN));
		afill(A, init_a);
		RR("arr.copy.toarrayasync", cudaMemcpyToArrayAsync(A, 16, 2, lin_src, 600,
								   cudaMemcpyHostToDevice, st));
		RR("arr.copy.toarrayasync.sync", cudaStreamSynchronize(st));
		aread(A, got_a);
		memcpy(exp_a, init_a, AN);
		memcpy(exp_a + 2 * AW + 16, lin_src, 600);
		probe_line("arr.copy.toarrayasync.data", "%s", cls(got_a, exp_a, init_a, AN));
		afill(A, pat_img);
		memcpy(lin_got, lin_init, HN);
		RR("arr.copy.fromarray", cudaMemcpyFromArray(lin_got, A, 16, 2, 600,
							     cudaMemcpyDeviceToHost));
		memcpy(lin_exp, lin_init, HN);
		memcpy(lin_exp, pat_img + 2 * AW + 16, 600);
		probe_line("arr.copy.fromarray.data", "%s", cls(lin_got, lin_exp, lin_init, HN));
		memcpy(lin_got, lin_init, HN);
		RR("arr.copy.fromarrayasync", cudaMemcpyFromArrayAsync(lin_got, A, 16, 2, 600,
								       cudaMemcpyDeviceToHost, st));
		RR("arr.copy.fromarrayasync.sync", cudaStreamSynchronize(st));
		probe_line("arr.copy.fromarrayasync.data", "%s", cls(lin_got, lin_exp, lin_init, HN));
		afill(B, init_a);
		RR("arr.copy.arraytoarray", cudaMemcpyArrayToArray(B, 8, 1, A, 16, 2, 600,
								   cudaMemcpyDeviceToDevice));
		aread(B, got_a);
		memcpy(exp_a, init_a, AN);
		memcpy(exp_a + 1 * AW + 8, pat_img + 2 * AW + 16, 600);
		probe_line("arr.copy.arraytoarray.data", "%s", cls(got_a, exp_a, init_a, AN));
		RR("arr.copy.toarray.count0", cudaMemcpyToArray(A, 16, 2, lin_src, 0,
								cudaMemcpyHostToDevice));
		RR("arr.copy.toarray.unaligned_w", cudaMemcpyToArray(A, 2, 0, lin_src, 8,
								     cudaMemcpyHostToDevice));
		cudaGetLastError();
		RR("arr.copy.toarray.odd_count", cudaMemcpyToArray(A, 0, 0, lin_src, 7,
								   cudaMemcpyHostToDevice));
		cudaGetLastError();
	}
	/* cudaMemcpy3D with arrays: positions and extents in elements. */
	{
		struct cudaMemcpy3DParms p;

		afill(A, pat_img);
		memcpy(lin_got, lin_init, HN);
		memset(&p, 0, sizeof(p));
		p.srcArray = A;
		p.srcPos = make_cudaPos(4, 2, 0);
		p.dstPtr = make_cudaPitchedPtr(lin_got, HP, HP, AH);
		p.extent = make_cudaExtent(50, 20, 1);
		p.kind = cudaMemcpyDefault;
		RR("arr.copy.3d.a2h", cudaMemcpy3D(&p));
		exp_from_array(HP, 16, 2, 200, 20);
		probe_line("arr.copy.3d.a2h.data", "%s", cls(lin_got, lin_exp, lin_init, HN));
		afill(A, init_a);
		memset(&p, 0, sizeof(p));
		p.srcPtr = make_cudaPitchedPtr(lin_src, HP, HP, AH);
		p.dstArray = A;
		p.dstPos = make_cudaPos(4, 2, 0);
		p.extent = make_cudaExtent(50, 20, 1);
		p.kind = cudaMemcpyHostToDevice;
		RR("arr.copy.3d.h2a", cudaMemcpy3D(&p));
		aread(A, got_a);
		exp_to_array(lin_src, HP, 16, 2, 200, 20);
		probe_line("arr.copy.3d.h2a.data", "%s", cls(got_a, exp_a, init_a, AN));
		afill(A, init_a);
		RR("arr.copy.3d.h2a.async", cudaMemcpy3DAsync(&p, st));
		RR("arr.copy.3d.h2a.async.sync", cudaStreamSynchronize(st));
		aread(A, got_a);
		probe_line("arr.copy.3d.h2a.async.data", "%s", cls(got_a, exp_a, init_a, AN));
		/* extent in bytes by mistake: 200 elements do not fit */
		p.extent = make_cudaExtent(200, 20, 1);
		RR("arr.copy.3d.h2a.extent_bytes", cudaMemcpy3D(&p));
		cudaGetLastError();
		/* both array and pointer on one side */
		p.extent = make_cudaExtent(50, 20, 1);
		p.srcArray = B;
		RR("arr.copy.3d.src_array_and_ptr", cudaMemcpy3D(&p));
		cudaGetLastError();
		/* array to array */
		afill(A, pat_img);
		afill(B, init_a);
		memset(&p, 0, sizeof(p));
		p.srcArray = A;
		p.srcPos = make_cudaPos(4, 2, 0);
		p.dstArray = B;
		p.dstPos = make_cudaPos(2, 1, 0);
		p.extent = make_cudaExtent(50, 20, 1);
		p.kind = cudaMemcpyDeviceToDevice;
		RR("arr.copy.3d.a2a", cudaMemcpy3D(&p));
		aread(B, got_a);
		memcpy(exp_a, init_a, AN);
		for (int y = 0; y < 20; y++)
			memcpy(exp_a + (1 + y) * AW + 8, pat_img + (2 + y) * AW + 16, 200);
		probe_line("arr.copy.3d.a2a.data", "%s", cls(got_a, exp_a, init_a, AN));
		/* device linear to array */
		afill(A, init_a);
		lin_put(L_DEV, lin_src);
		memset(&p, 0, sizeof(p));
		p.srcPtr = make_cudaPitchedPtr(lin[L_DEV], HP, HP, AH);
		p.dstArray = A;
		p.dstPos = make_cudaPos(4, 2, 0);
		p.extent = make_cudaExtent(50, 20, 1);
		p.kind = cudaMemcpyDefault;
		RR("arr.copy.3d.d2a", cudaMemcpy3D(&p));
		aread(A, got_a);
		exp_to_array(lin_src, HP, 16, 2, 200, 20);
		probe_line("arr.copy.3d.d2a.data", "%s", cls(got_a, exp_a, init_a, AN));
	}
	/* A 3D array, 16 x 8 x 4 uchar4, and a layered one. */
	{
		cudaArray_t C = NULL, L = NULL;
		struct cudaMemcpy3DParms p;
		unsigned char full[2048], back[2048], expc[2048];

		RR("arr.copy.3d.c.malloc", cudaMalloc3DArray(&C, &d4, make_cudaExtent(16, 8, 4), 0));
		for (int i = 0; i < 2048; i++)
			full[i] = (unsigned char)(i * 3 + 1);
		memset(&p, 0, sizeof(p));
		p.srcPtr = make_cudaPitchedPtr(full, 64, 16, 8);
		p.dstArray = C;
		p.extent = make_cudaExtent(16, 8, 4);
		p.kind = cudaMemcpyHostToDevice;
		RR("arr.copy.3d.c.write", cudaMemcpy3D(&p));
		memset(&p, 0, sizeof(p));
		memset(back, 0, sizeof(back));
		p.srcArray = C;
		p.dstPtr = make_cudaPitchedPtr(back, 64, 16, 8);
		p.extent = make_cudaExtent(16, 8, 4);
		p.kind = cudaMemcpyDeviceToHost;
		RR("arr.copy.3d.c.read", cudaMemcpy3D(&p));
		probe_line("arr.copy.3d.c.data", "%s", memcmp(full, back, 2048) ? "mismatch" : "ok");
		/* a box (2,1,1) 10 x 5 x 2 from a pitched host buffer (pitch
		 * 80, 6 rows a slice) */
		{
			unsigned char box[80 * 6 * 2];

			for (int i = 0; i < (int)sizeof(box); i++)
				box[i] = (unsigned char)(200 - i);
			memset(&p, 0, sizeof(p));
			p.srcPtr = make_cudaPitchedPtr(box, 80, 80, 6);
			p.dstArray = C;
			p.dstPos = make_cudaPos(2, 1, 1);
			p.extent = make_cudaExtent(10, 5, 2);
			p.kind = cudaMemcpyHostToDevice;
			RR("arr.copy.3d.c.box", cudaMemcpy3D(&p));
			memcpy(expc, full, 2048);
			for (int z = 0; z < 2; z++)
				for (int y = 0; y < 5; y++)
					memcpy(expc + (1 + z) * 512 + (1 + y) * 64 + 8,
					       box + z * 480 + y * 80, 40);
			memset(&p, 0, sizeof(p));
			memset(back, 0, sizeof(back));
			p.srcArray = C;
			p.dstPtr = make_cudaPitchedPtr(back, 64, 16, 8);
			p.extent = make_cudaExtent(16, 8, 4);
			p.kind = cudaMemcpyDeviceToHost;
			cudaMemcpy3D(&p);
			probe_line("arr.copy.3d.c.box.data", "%s", memcmp(expc, back, 2048) ? "mismatch" : "ok");
		}
		/* cudaMemcpy2DToArray on a 3D array: the first slice */
		RR("arr.copy.3d.c.2dtoarray", cudaMemcpy2DToArray(C, 0, 0, full, 64, 64, 8,
								  cudaMemcpyHostToDevice));
		cudaGetLastError();
		cudaFreeArray(C);

		RR("arr.copy.layered.malloc", cudaMalloc3DArray(&L, &d4, make_cudaExtent(16, 8, 4),
								cudaArrayLayered));
		memset(&p, 0, sizeof(p));
		p.srcPtr = make_cudaPitchedPtr(full, 64, 16, 8);
		p.dstArray = L;
		p.extent = make_cudaExtent(16, 8, 4);
		p.kind = cudaMemcpyHostToDevice;
		RR("arr.copy.layered.write", cudaMemcpy3D(&p));
		memset(&p, 0, sizeof(p));
		p.srcPtr = make_cudaPitchedPtr(full + 1536, 64, 16, 8);
		p.dstArray = L;
		p.dstPos = make_cudaPos(0, 0, 1);
		p.extent = make_cudaExtent(16, 8, 1);
		p.kind = cudaMemcpyHostToDevice;
		RR("arr.copy.layered.layer1", cudaMemcpy3D(&p));
		memcpy(expc, full, 2048);
		memcpy(expc + 512, full + 1536, 512);
		memset(&p, 0, sizeof(p));
		memset(back, 0, sizeof(back));
		p.srcArray = L;
		p.dstPtr = make_cudaPitchedPtr(back, 64, 16, 8);
		p.extent = make_cudaExtent(16, 8, 4);
		p.kind = cudaMemcpyDeviceToHost;
		RR("arr.copy.layered.read", cudaMemcpy3D(&p));
		probe_line("arr.copy.layered.data", "%s", memcmp(expc, back, 2048) ? "mismatch" : "ok");
		cudaFreeArray(L);
	}
	/* A 1D array (height 0). */
	{
		cudaArray_t O = NULL;
		unsigned char back[256];

		RR("arr.copy.1d.malloc", cudaMallocArray(&O, &d4, 64, 0, 0));
		RR("arr.copy.1d.2dtoarray", cudaMemcpy2DToArray(O, 0, 0, lin_src, 256, 256, 1,
								cudaMemcpyHostToDevice));
		memset(back, 0, sizeof(back));
		RR("arr.copy.1d.2dfromarray", cudaMemcpy2DFromArray(back, 256, O, 0, 0, 256, 1,
								    cudaMemcpyDeviceToHost));
		probe_line("arr.copy.1d.data", "%s", memcmp(back, lin_src, 256) ? "mismatch" : "ok");
		RR("arr.copy.1d.h2", cudaMemcpy2DToArray(O, 0, 0, lin_src, 256, 256, 2,
							 cudaMemcpyHostToDevice));
		cudaGetLastError();
		RR("arr.copy.1d.toarray", cudaMemcpyToArray(O, 16, 0, lin_src + 7, 100,
							    cudaMemcpyHostToDevice));
		memset(back, 0, sizeof(back));
		cudaMemcpy2DFromArray(back, 256, O, 0, 0, 256, 1, cudaMemcpyDeviceToHost);
		probe_line("arr.copy.1d.toarray.data", "%s",
			   memcmp(back + 16, lin_src + 7, 100) || memcmp(back, lin_src, 16) ?
			   "mismatch" : "ok");
		cudaFreeArray(O);
	}
	/* Alignment to the element size. */
	RR("arr.copy.align.woffset2", cudaMemcpy2DToArray(A, 2, 0, lin_src, HP, 200, 4,
							  cudaMemcpyHostToDevice));
	cudaGetLastError();
	RR("arr.copy.align.width201", cudaMemcpy2DToArray(A, 0, 0, lin_src, HP, 201, 4,
							  cudaMemcpyHostToDevice));
	cudaGetLastError();
	RR("arr.copy.align.spitch301", cudaMemcpy2DToArray(A, 0, 0, lin_src, 301, 200, 4,
							   cudaMemcpyHostToDevice));
	cudaGetLastError();
	RR("arr.copy.align.spitch_lt_w", cudaMemcpy2DToArray(A, 0, 0, lin_src, 100, 200, 4,
							     cudaMemcpyHostToDevice));
	cudaGetLastError();
	RR("arr.copy.w0", cudaMemcpy2DToArray(A, 0, 0, lin_src, HP, 0, 4, cudaMemcpyHostToDevice));
	cudaGetLastError();
	RR("arr.copy.h0", cudaMemcpy2DToArray(A, 0, 0, lin_src, HP, 200, 0, cudaMemcpyHostToDevice));
	cudaGetLastError();
	RR("arr.copy.kind5", cudaMemcpy2DToArray(A, 0, 0, lin_src, HP, 200, 4, (enum cudaMemcpyKind)5));
	cudaGetLastError();
	RR("arr.copy.lasterror_end", cudaGetLastError());

	/* The driver's forms. */
	{
		CUDA_MEMCPY2D c;
		CUDA_MEMCPY3D c3;
		CUarray ca = CA(A), cb = CA(B);

		afill(A, init_a);
		memset(&c, 0, sizeof(c));
		c.srcMemoryType = CU_MEMORYTYPE_HOST;
		c.srcHost = lin_src;
		c.srcPitch = HP;
		c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
		c.dstArray = ca;
		c.dstXInBytes = 16;
		c.dstY = 2;
		c.WidthInBytes = 200;
		c.Height = 20;
		PR("arr.cu.copy2d.h2a", cuMemcpy2D(&c));
		aread(A, got_a);
		exp_to_array(lin_src, HP, 16, 2, 200, 20);
		probe_line("arr.cu.copy2d.h2a.data", "%s", cls(got_a, exp_a, init_a, AN));
		c.dstXInBytes = 2;
		PR("arr.cu.copy2d.h2a.x2", cuMemcpy2D(&c));
		c.dstXInBytes = 16;
		c.WidthInBytes = 202;
		PR("arr.cu.copy2d.h2a.w202", cuMemcpy2D(&c));
		c.WidthInBytes = 200;
		c.dstPitch = 7;	/* ignored for an array */
		PR("arr.cu.copy2d.h2a.dstpitch_ignored", cuMemcpy2D(&c));
		c.dstY = 20;
		PR("arr.cu.copy2d.h2a.oob_rows", cuMemcpy2D(&c));
		c.dstY = 2;
		c.dstXInBytes = 100;
		PR("arr.cu.copy2d.h2a.oob_cols", cuMemcpy2D(&c));
		PR("arr.cu.copy2d.h2a.oob.sync", cuCtxSynchronize());
		PR("arr.cu.copy2d.unaligned.h2a", (c.dstXInBytes = 16, cuMemcpy2DUnaligned(&c)));

		afill(A, pat_img);
		memcpy(lin_got, lin_init, HN);
		memset(&c, 0, sizeof(c));
		c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
		c.srcArray = ca;
		c.srcXInBytes = 16;
		c.srcY = 2;
		c.dstMemoryType = CU_MEMORYTYPE_HOST;
		c.dstHost = lin_got;
		c.dstPitch = HP;
		c.WidthInBytes = 200;
		c.Height = 20;
		PR("arr.cu.copy2d.a2h", cuMemcpy2D(&c));
		exp_from_array(HP, 16, 2, 200, 20);
		probe_line("arr.cu.copy2d.a2h.data", "%s", cls(lin_got, lin_exp, lin_init, HN));
		memcpy(lin_got, lin_init, HN);
		PR("arr.cu.copy2d.a2h.async", cuMemcpy2DAsync(&c, st));
		PR("arr.cu.copy2d.a2h.async.sync", cuStreamSynchronize(st));
		probe_line("arr.cu.copy2d.a2h.async.data", "%s", cls(lin_got, lin_exp, lin_init, HN));

		afill(B, init_a);
		memset(&c3, 0, sizeof(c3));
		c3.srcMemoryType = CU_MEMORYTYPE_ARRAY;
		c3.srcArray = ca;
		c3.srcXInBytes = 16;
		c3.srcY = 2;
		c3.dstMemoryType = CU_MEMORYTYPE_ARRAY;
		c3.dstArray = cb;
		c3.dstXInBytes = 8;
		c3.dstY = 1;
		c3.WidthInBytes = 200;
		c3.Height = 20;
		c3.Depth = 1;
		PR("arr.cu.copy3d.a2a", cuMemcpy3D(&c3));
		aread(B, got_a);
		memcpy(exp_a, init_a, AN);
		for (int y = 0; y < 20; y++)
			memcpy(exp_a + (1 + y) * AW + 8, pat_img + (2 + y) * AW + 16, 200);
		probe_line("arr.cu.copy3d.a2a.data", "%s", cls(got_a, exp_a, init_a, AN));
		c3.srcLOD = 1;
		PR("arr.cu.copy3d.a2a.srclod1", cuMemcpy3D(&c3));

		/* linear offsets: HtoA, AtoH, AtoA, DtoA, AtoD */
		afill(A, init_a);
		PR("arr.cu.htoa", cuMemcpyHtoA(ca, 2 * AW + 16, lin_src, 600));
		aread(A, got_a);
		memcpy(exp_a, init_a, AN);
		memcpy(exp_a + 2 * AW + 16, lin_src, 600);
		probe_line("arr.cu.htoa.data", "%s", cls(got_a, exp_a, init_a, AN));
		afill(A, pat_img);
		memcpy(lin_got, lin_init, HN);
		PR("arr.cu.atoh", cuMemcpyAtoH(lin_got, ca, 2 * AW + 16, 600));
		memcpy(lin_exp, lin_init, HN);
		memcpy(lin_exp, pat_img + 2 * AW + 16, 600);
		probe_line("arr.cu.atoh.data", "%s", cls(lin_got, lin_exp, lin_init, HN));
		afill(B, init_a);
		PR("arr.cu.atoa", cuMemcpyAtoA(cb, AW + 8, ca, 2 * AW + 16, 600));
		aread(B, got_a);
		memcpy(exp_a, init_a, AN);
		memcpy(exp_a + AW + 8, pat_img + 2 * AW + 16, 600);
		probe_line("arr.cu.atoa.data", "%s", cls(got_a, exp_a, init_a, AN));
		lin_put(L_DEV, lin_src);
		afill(A, init_a);
		PR("arr.cu.dtoa", cuMemcpyDtoA(ca, 16, (uintptr_t)lin[L_DEV], 600));
		aread(A, got_a);
		memcpy(exp_a, init_a, AN);
		memcpy(exp_a + 16, lin_src, 600);
		probe_line("arr.cu.dtoa.data", "%s", cls(got_a, exp_a, init_a, AN));
		/* within one row */
		afill(A, init_a);
		PR("arr.cu.htoa.row", cuMemcpyHtoA(ca, 16, lin_src, 200));
		aread(A, got_a);
		memcpy(exp_a, init_a, AN);
		memcpy(exp_a + 16, lin_src, 200);
		probe_line("arr.cu.htoa.row.data", "%s", cls(got_a, exp_a, init_a, AN));
		PR("arr.cu.htoa.row1", cuMemcpyHtoA(ca, AW + 16, lin_src, 200));
		/* a 1D array */
		{
			CUDA_ARRAY3D_DESCRIPTOR d1 = { 64, 0, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0 };
			CUarray o = NULL;
			unsigned char back[256];

			MUST(cuArray3DCreate(&o, &d1));
			PR("arr.cu.htoa.1d", cuMemcpyHtoA(o, 16, lin_src, 200));
			memset(back, 0, sizeof(back));
			PR("arr.cu.atoh.1d", cuMemcpyAtoH(back, o, 16, 200));
			probe_line("arr.cu.htoa.1d.data", "%s", memcmp(back, lin_src, 200) ? "mismatch" : "ok");
			PR("arr.cu.htoa.1d.past_end", cuMemcpyHtoA(o, 16, lin_src, 248));
			PR("arr.cu.dtoa.1d", cuMemcpyDtoA(o, 0, (uintptr_t)lin[L_DEV], 256));
			PR("arr.cu.atod.1d", cuMemcpyAtoD((uintptr_t)lin[L_DEV], o, 0, 256));
			cuArrayDestroy(o);
		}
		PR("arr.cu.htoa.unaligned", cuMemcpyHtoA(ca, 2, lin_src, 8));
		PR("arr.cu.htoa.oddcount", cuMemcpyHtoA(ca, 0, lin_src, 7));
		PR("arr.cu.htoa.async", cuMemcpyHtoAAsync(ca, 0, lin_src, 64, st));
		PR("arr.cu.htoa.async.sync", cuStreamSynchronize(st));
	}
	cudaFreeArray(A);
	cudaFreeArray(B);
}

/* ------------------------------------------------------------------ */
/* Cases in processes of their own. */

static void c_copy_oob(void)
{
	struct cudaChannelFormatDesc d4 = cudaCreateChannelDesc(8, 8, 8, 8, cudaChannelFormatKindUnsigned);
	cudaArray_t A = NULL, B = NULL;
	struct cudaMemcpy3DParms p;

	images();
	MUST(cudaMallocArray(&A, &d4, 64, 32, 0) == cudaSuccess ? CUDA_SUCCESS : CUDA_ERROR_UNKNOWN);
	MUST(cudaMallocArray(&B, &d4, 64, 32, 0) == cudaSuccess ? CUDA_SUCCESS : CUDA_ERROR_UNKNOWN);
	RR("arr.oob.to2d.cols", cudaMemcpy2DToArray(A, 100, 0, lin_src, HP, 200, 4,
						    cudaMemcpyHostToDevice));
	RR("arr.oob.to2d.cols.lasterror", cudaGetLastError());
	RR("arr.oob.to2d.rows", cudaMemcpy2DToArray(A, 0, 20, lin_src, HP, 200, 20,
						    cudaMemcpyHostToDevice));
	cudaGetLastError();
	RR("arr.oob.to2d.width257", cudaMemcpy2DToArray(A, 0, 0, lin_src, HP, 260, 4,
							cudaMemcpyHostToDevice));
	cudaGetLastError();
	RR("arr.oob.to2d.woffset_at_end", cudaMemcpy2DToArray(A, 256, 0, lin_src, HP, 0, 4,
							      cudaMemcpyHostToDevice));
	cudaGetLastError();
	RR("arr.oob.from2d.rows", cudaMemcpy2DFromArray(lin_got, HP, A, 0, 20, 200, 20,
							cudaMemcpyDeviceToHost));
	cudaGetLastError();
	RR("arr.oob.a2a.dst", cudaMemcpy2DArrayToArray(B, 100, 0, A, 0, 0, 200, 4,
						       cudaMemcpyDeviceToDevice));
	cudaGetLastError();
	RR("arr.oob.a2a.src", cudaMemcpy2DArrayToArray(B, 0, 0, A, 0, 30, 200, 4,
						       cudaMemcpyDeviceToDevice));
	cudaGetLastError();
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	RR("arr.oob.toarray.count", cudaMemcpyToArray(A, 0, 31, lin_src, 600, cudaMemcpyHostToDevice));
	cudaGetLastError();
	RR("arr.oob.toarray.exact_end", cudaMemcpyToArray(A, 0, 31, lin_src, 256,
							  cudaMemcpyHostToDevice));
	cudaGetLastError();
	RR("arr.oob.fromarray.count", cudaMemcpyFromArray(lin_got, A, 0, 31, 600,
							  cudaMemcpyDeviceToHost));
	cudaGetLastError();
	RR("arr.oob.toarray.hoffset32", cudaMemcpyToArray(A, 0, 32, lin_src, 4,
							  cudaMemcpyHostToDevice));
	cudaGetLastError();
#pragma GCC diagnostic pop
	memset(&p, 0, sizeof(p));
	p.srcPtr = make_cudaPitchedPtr(lin_src, HP, HP, AH);
	p.dstArray = A;
	p.dstPos = make_cudaPos(40, 0, 0);
	p.extent = make_cudaExtent(50, 4, 1);
	p.kind = cudaMemcpyHostToDevice;
	RR("arr.oob.3d.pos", cudaMemcpy3D(&p));
	cudaGetLastError();
	p.dstPos = make_cudaPos(0, 0, 1);
	RR("arr.oob.3d.z1", cudaMemcpy3D(&p));
	cudaGetLastError();
	p.dstPos = make_cudaPos(0, 0, 0);
	p.extent = make_cudaExtent(50, 4, 2);
	RR("arr.oob.3d.depth2", cudaMemcpy3D(&p));
	cudaGetLastError();
	PR("arr.oob.cu.htoa", cuMemcpyHtoA(CA(A), AN - 8, lin_src, 16));
	PR("arr.oob.cu.atoh", cuMemcpyAtoH(lin_got, CA(A), AN - 8, 16));
	PR("arr.oob.cu.htoa.exact_end", cuMemcpyHtoA(CA(A), AN - 16, lin_src, 16));
	RR("arr.oob.sync", cudaDeviceSynchronize());
	after("arr.oob");
}

static void c_null_create(void)
{
	CUDA_ARRAY_DESCRIPTOR d = { 64, 32, CU_AD_FORMAT_UNSIGNED_INT8, 1 };
	CUDA_ARRAY3D_DESCRIPTOR d3 = { 64, 32, 0, CU_AD_FORMAT_UNSIGNED_INT8, 1, 0 };
	CUarray a = NULL;

	PR("arr.null.create.handle", cuArrayCreate(NULL, &d));
	PR("arr.null.create.desc", cuArrayCreate(&a, NULL));
	PR("arr.null.create3d.handle", cuArray3DCreate(NULL, &d3));
	PR("arr.null.create3d.desc", cuArray3DCreate(&a, NULL));
	PR("arr.null.mipcreate.handle", cuMipmappedArrayCreate(NULL, &d3, 2));
	after("arr.null.create");
}

static void c_null_rt_create(void)
{
	struct cudaChannelFormatDesc d = cudaCreateChannelDesc(8, 0, 0, 0, cudaChannelFormatKindUnsigned);
	cudaArray_t a = NULL;
	cudaMipmappedArray_t m = NULL;

	RR("arr.null.mallocarray.handle", cudaMallocArray(NULL, &d, 64, 32, 0));
	RR("arr.null.mallocarray.desc", cudaMallocArray(&a, NULL, 64, 32, 0));
	RR("arr.null.malloc3darray.handle", cudaMalloc3DArray(NULL, &d, make_cudaExtent(64, 32, 0), 0));
	RR("arr.null.malloc3darray.desc", cudaMalloc3DArray(&a, NULL, make_cudaExtent(64, 32, 0), 0));
	RR("arr.null.mallocmip.handle", cudaMallocMipmappedArray(NULL, &d, make_cudaExtent(64, 32, 0),
								 2, 0));
	RR("arr.null.mallocmip.desc", cudaMallocMipmappedArray(&m, NULL, make_cudaExtent(64, 32, 0),
							       2, 0));
	RR("arr.null.rt_create.lasterror", cudaGetLastError());
	after("arr.null.rt_create");
}

static void c_null_query(void)
{
	struct cudaChannelFormatDesc d = cudaCreateChannelDesc(8, 0, 0, 0, cudaChannelFormatKindUnsigned);
	struct cudaChannelFormatDesc od;
	struct cudaExtent e;
	unsigned int f;
	cudaArray_t a = NULL, l = NULL;
	CUDA_ARRAY_DESCRIPTOR cd;
	CUDA_ARRAY3D_DESCRIPTOR cd3;

	MUST(cudaMallocArray(&a, &d, 64, 32, 0) == cudaSuccess ? CUDA_SUCCESS : CUDA_ERROR_UNKNOWN);
	RR("arr.null.getinfo.all_out_null", cudaArrayGetInfo(NULL, NULL, NULL, a));
	RR("arr.null.getinfo.desc_only", cudaArrayGetInfo(&od, NULL, NULL, a));
	RR("arr.null.getinfo.extent_only", cudaArrayGetInfo(NULL, &e, NULL, a));
	RR("arr.null.getinfo.flags_only", cudaArrayGetInfo(NULL, NULL, &f, a));
	RR("arr.null.getinfo.array", cudaArrayGetInfo(&od, &e, &f, NULL));
	cudaGetLastError();
	PR("arr.null.getdesc.out", cuArrayGetDescriptor(NULL, CA(a)));
	PR("arr.null.getdesc.array", cuArrayGetDescriptor(&cd, NULL));
	PR("arr.null.getdesc3d.out", cuArray3DGetDescriptor(NULL, CA(a)));
	PR("arr.null.getdesc3d.array", cuArray3DGetDescriptor(&cd3, NULL));
	RR("arr.null.getplane.out", cudaArrayGetPlane(NULL, a, 0));
	RR("arr.null.getplane.array", cudaArrayGetPlane(&l, NULL, 0));
	RR("arr.null.memreq.out", cudaArrayGetMemoryRequirements(NULL, a, 0));
	RR("arr.null.sparse.out", cudaArrayGetSparseProperties(NULL, a));
	RR("arr.null.miplevel.array", cudaGetMipmappedArrayLevel(&l, NULL, 0));
	cudaGetLastError();
	RR("arr.null.free", cudaFreeArray(NULL));
	RR("arr.null.freemip", cudaFreeMipmappedArray(NULL));
	PR("arr.null.destroy", cuArrayDestroy(NULL));
	PR("arr.null.mipdestroy", cuMipmappedArrayDestroy(NULL));
	RR("arr.null.lasterror", cudaGetLastError());
	cudaFreeArray(a);
	after("arr.null.query");
}

static void c_null_copy(void)
{
	unsigned char b[256];

	memset(b, 0, sizeof(b));
	RR("arr.null.copy.to2d", cudaMemcpy2DToArray(NULL, 0, 0, b, 64, 64, 1, cudaMemcpyHostToDevice));
	RR("arr.null.copy.from2d", cudaMemcpy2DFromArray(b, 64, NULL, 0, 0, 64, 1,
							 cudaMemcpyDeviceToHost));
	cudaGetLastError();
	PR("arr.null.copy.htoa", cuMemcpyHtoA(NULL, 0, b, 64));
	{
		struct cudaChannelFormatDesc d = cudaCreateChannelDesc(8, 0, 0, 0,
								       cudaChannelFormatKindUnsigned);
		cudaArray_t a = NULL;

		MUST(cudaMallocArray(&a, &d, 64, 32, 0) == cudaSuccess ? CUDA_SUCCESS :
		     CUDA_ERROR_UNKNOWN);
		RR("arr.null.copy.to2d.src", cudaMemcpy2DToArray(a, 0, 0, NULL, 64, 64, 1,
								 cudaMemcpyHostToDevice));
		cudaGetLastError();
		RR("arr.null.copy.to2d.src.sync", cudaDeviceSynchronize());
		cudaGetLastError();
		cudaFreeArray(a);
	}
	after("arr.null.copy");
}

static void c_destroy_twice(void)
{
	CUarray a = mk3(64, 32, 0, CU_AD_FORMAT_UNSIGNED_INT8, 1, 0, NULL);

	PR("arr.twice.destroy1", cuArrayDestroy(a));
	PR("arr.twice.destroy2", cuArrayDestroy(a));
	after("arr.twice.cu");
}

static void c_free_twice(void)
{
	struct cudaChannelFormatDesc d = cudaCreateChannelDesc(8, 0, 0, 0, cudaChannelFormatKindUnsigned);
	cudaArray_t a = NULL;

	MUST(cudaMallocArray(&a, &d, 64, 32, 0) == cudaSuccess ? CUDA_SUCCESS : CUDA_ERROR_UNKNOWN);
	RR("arr.twice.free1", cudaFreeArray(a));
	RR("arr.twice.free2", cudaFreeArray(a));
	RR("arr.twice.free2.lasterror", cudaGetLastError());
	after("arr.twice.rt");
}

static void c_use_after_free(void)
{
	struct cudaChannelFormatDesc d = cudaCreateChannelDesc(8, 0, 0, 0, cudaChannelFormatKindUnsigned);
	cudaArray_t a = NULL;
	unsigned char b[64] = { 0 };

	MUST(cudaMallocArray(&a, &d, 64, 32, 0) == cudaSuccess ? CUDA_SUCCESS : CUDA_ERROR_UNKNOWN);
	cudaFreeArray(a);
	RR("arr.freed.to2d", cudaMemcpy2DToArray(a, 0, 0, b, 64, 64, 1, cudaMemcpyHostToDevice));
	cudaGetLastError();
	info("arr.freed", a);
	after("arr.freed");
}

static void c_plane_destroy(void)
{
	CUresult r;
	CUarray a = mk3(64, 32, 0, CU_AD_FORMAT_NV12, 3, 0, &r), p = NULL;

	probe_res("arr.planedestroy.create", r);
	if (!a)
		return;
	PR("arr.planedestroy.getplane", cuArrayGetPlane(&p, a, 1));
	PR("arr.planedestroy.destroy_plane", cuArrayDestroy(p));
	PR("arr.planedestroy.getplane_again", cuArrayGetPlane(&p, a, 1));
	PR("arr.planedestroy.destroy_parent", cuArrayDestroy(a));
	after("arr.planedestroy");
}

static void c_level_free(void)
{
	struct cudaChannelFormatDesc d = cudaCreateChannelDesc(8, 0, 0, 0, cudaChannelFormatKindUnsigned);
	cudaMipmappedArray_t m = NULL;
	cudaArray_t l = NULL;

	MUST(cudaMallocMipmappedArray(&m, &d, make_cudaExtent(64, 32, 0), 3, 0) == cudaSuccess ?
	     CUDA_SUCCESS : CUDA_ERROR_UNKNOWN);
	RR("arr.levelfree.getlevel", cudaGetMipmappedArrayLevel(&l, m, 1));
	RR("arr.levelfree.free_level", cudaFreeArray(l));
	cudaGetLastError();
	RR("arr.levelfree.free_mip", cudaFreeMipmappedArray(m));
	cudaGetLastError();
	after("arr.levelfree");
}

/* A sparse 2D array, a tile of cuMemCreate memory mapped into it. */
static CUmemGenericAllocationHandle tile_pool(size_t *sz, int usage, CUresult *rp)
{
	CUmemAllocationProp p;
	CUmemGenericAllocationHandle h = 0;
	size_t g = 0;

	memset(&p, 0, sizeof(p));
	p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	p.location.id = 0;
	p.allocFlags.usage = (unsigned short)usage;
	cuMemGetAllocationGranularity(&g, &p, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
	*sz = g;
	*rp = cuMemCreate(&h, g, &p, 0);
	return h;
}

static CUarrayMapInfo mapinfo(CUarray a, unsigned int x, unsigned int y, unsigned int w,
			      unsigned int h, CUmemGenericAllocationHandle mem, unsigned long long off)
{
	return lvl(a, 0, x, y, 0, w, h, 1, mem, off);
}

/* Write w x h elements (4 bytes) at (x, y) and read them back. */
static const char *tile_rw(CUarray a, unsigned int x, unsigned int y, unsigned int w,
			   unsigned int h, const char *key, int write)
{
	size_t n = (size_t)w * 4 * h;
	unsigned char *src = malloc(n), *back = malloc(n);
	CUDA_MEMCPY2D c;
	const char *res;
	int zero = 1;

	for (size_t i = 0; i < n; i++)
		src[i] = (unsigned char)(i * 11 + 3);
	memset(&c, 0, sizeof(c));
	c.WidthInBytes = (size_t)w * 4;
	c.Height = h;
	if (write) {
		c.srcMemoryType = CU_MEMORYTYPE_HOST;
		c.srcHost = src;
		c.srcPitch = (size_t)w * 4;
		c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
		c.dstArray = a;
		c.dstXInBytes = (size_t)x * 4;
		c.dstY = y;
		PR(fk("%s.write", key), cuMemcpy2D(&c));
		PR(fk("%s.write.sync", key), cuCtxSynchronize());
	}
	memset(&c, 0, sizeof(c));
	c.WidthInBytes = (size_t)w * 4;
	c.Height = h;
	c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
	c.srcArray = a;
	c.srcXInBytes = (size_t)x * 4;
	c.srcY = y;
	c.dstMemoryType = CU_MEMORYTYPE_HOST;
	c.dstHost = back;
	c.dstPitch = (size_t)w * 4;
	memset(back, 0x5a, n);
	PR(fk("%s.read", key), cuMemcpy2D(&c));
	PR(fk("%s.read.sync", key), cuCtxSynchronize());
	for (size_t i = 0; i < n; i++)
		if (back[i])
			zero = 0;
	res = !memcmp(src, back, n) ? "written" : zero ? "zero" : "other";
	free(src);
	free(back);
	return res;
}

static void c_sparse_map(void)
{
	CUarray a, plain;
	CUDA_ARRAY_SPARSE_PROPERTIES sp;
	CUDA_ARRAY_MEMORY_REQUIREMENTS mr;
	CUmemGenericAllocationHandle h, h2;
	CUarrayMapInfo m;
	unsigned int tw, th;
	size_t g = 0;
	CUresult r;
	int v = 0;

	cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_SPARSE_CUDA_ARRAY_SUPPORTED, 0);
	probe_line("arr.sparse.supported", "%d", v);
	a = mk3(1024, 1024, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, CUDA_ARRAY3D_SPARSE, &r);
	probe_res("arr.sparse.create", r);
	if (!a)
		return;
	memset(&sp, 0, sizeof(sp));
	PR("arr.sparse.props", cuArrayGetSparseProperties(&sp, a));
	probe_line("arr.sparse.props.tile", "%u,%u,%u", sp.tileExtent.width, sp.tileExtent.height,
		   sp.tileExtent.depth);
	memset(&mr, 0, sizeof(mr));
	r = cuArrayGetMemoryRequirements(&mr, a, 0);
	probe_res("arr.sparse.memreq", r);
	if (r == CUDA_SUCCESS)
		probe_line("arr.sparse.memreq.value", "size=%zu alignment=%zu", mr.size, mr.alignment);
	tw = sp.tileExtent.width ? sp.tileExtent.width : 128;
	th = sp.tileExtent.height ? sp.tileExtent.height : 128;

	/* reading tiles that were never mapped */
	probe_line("arr.sparse.unmapped.read.data", "%s",
		   tile_rw(a, 0, 0, tw, th, "arr.sparse.unmapped", 0));

	h = tile_pool(&g, CU_MEM_CREATE_USAGE_TILE_POOL, &r);
	probe_res("arr.sparse.tilepool.create", r);
	probe_line("arr.sparse.tilepool.size", "%zu", g);
	h2 = tile_pool(&g, 0, &r);
	probe_res("arr.sparse.plainpool.create", r);

	/* invalid maps */
	m = mapinfo(a, 0, 0, tw, th, h2, 0);
	PR("arr.sparse.map.not_tile_pool", cuMemMapArrayAsync(&m, 1, st));
	m = mapinfo(a, 0, 0, tw, th, h, 4096);
	PR("arr.sparse.map.offset4096", cuMemMapArrayAsync(&m, 1, st));
	m = mapinfo(a, 0, 0, tw / 2, th, h, 0);
	PR("arr.sparse.map.half_tile", cuMemMapArrayAsync(&m, 1, st));
	m = mapinfo(a, 1, 0, tw, th, h, 0);
	PR("arr.sparse.map.offsetx1", cuMemMapArrayAsync(&m, 1, st));
	m = mapinfo(a, 1024, 0, tw, th, h, 0);
	PR("arr.sparse.map.past_end", cuMemMapArrayAsync(&m, 1, st));
	m = mapinfo(a, 0, 0, tw, th, h, g);
	PR("arr.sparse.map.offset_end_of_pool", cuMemMapArrayAsync(&m, 1, st));
	m = mapinfo(a, 0, 0, tw, th, h, 0);
	m.deviceBitMask = 0;
	PR("arr.sparse.map.devmask0", cuMemMapArrayAsync(&m, 1, st));
	m.deviceBitMask = 2;
	PR("arr.sparse.map.devmask2", cuMemMapArrayAsync(&m, 1, st));
	m.deviceBitMask = 1;
	m.flags = 1;
	PR("arr.sparse.map.flags1", cuMemMapArrayAsync(&m, 1, st));
	m.flags = 0;
	m.memOperationType = (CUmemOperationType)3;
	PR("arr.sparse.map.optype3", cuMemMapArrayAsync(&m, 1, st));
	m.memOperationType = CU_MEM_OPERATION_TYPE_MAP;
	m.memHandleType = (CUmemHandleType)1;
	PR("arr.sparse.map.handletype1", cuMemMapArrayAsync(&m, 1, st));
	m.memHandleType = CU_MEM_HANDLE_TYPE_GENERIC;
	m.subresource.sparseLevel.level = 1;
	PR("arr.sparse.map.level1", cuMemMapArrayAsync(&m, 1, st));
	m.subresource.sparseLevel.level = 0;
	m.subresource.sparseLevel.extentDepth = 0;
	PR("arr.sparse.map.depth0", cuMemMapArrayAsync(&m, 1, st));
	m.subresource.sparseLevel.extentDepth = 1;
	m.resourceType = CU_RESOURCE_TYPE_MIPMAPPED_ARRAY;
	PR("arr.sparse.map.restype_mipmap", cuMemMapArrayAsync(&m, 1, st));
	m.resourceType = (CUresourcetype)7;
	PR("arr.sparse.map.restype7", cuMemMapArrayAsync(&m, 1, st));
	PR("arr.sparse.map.invalid.sync", cuStreamSynchronize(st));

	/* the one tile at (0,0), the data through it */
	m = mapinfo(a, 0, 0, tw, th, h, 0);
	PR("arr.sparse.map", cuMemMapArrayAsync(&m, 1, st));
	PR("arr.sparse.map.sync", cuStreamSynchronize(st));
	probe_line("arr.sparse.mapped.data", "%s", tile_rw(a, 0, 0, tw, th, "arr.sparse.mapped", 1));
	PR("arr.sparse.map.again", cuMemMapArrayAsync(&m, 1, st));
	PR("arr.sparse.map.again.sync", cuStreamSynchronize(st));
	/* the tile next to it, never mapped: written, then read */
	probe_line("arr.sparse.neighbour.data", "%s",
		   tile_rw(a, tw, 0, tw, th, "arr.sparse.neighbour", 1));
	/* the same memory at a second tile: an alias */
	m = mapinfo(a, 0, th, tw, th, h, 0);
	PR("arr.sparse.map.alias", cuMemMapArrayAsync(&m, 1, st));
	PR("arr.sparse.map.alias.sync", cuStreamSynchronize(st));
	probe_line("arr.sparse.alias.data", "%s", tile_rw(a, 0, th, tw, th, "arr.sparse.alias", 0));
	/* unmap, read again */
	m = mapinfo(a, 0, 0, tw, th, 0, 0);
	PR("arr.sparse.unmap", cuMemMapArrayAsync(&m, 1, st));
	PR("arr.sparse.unmap.sync", cuStreamSynchronize(st));
	probe_line("arr.sparse.unmapped_again.data", "%s",
		   tile_rw(a, 0, 0, tw, th, "arr.sparse.unmapped_again", 0));
	PR("arr.sparse.unmap.again", cuMemMapArrayAsync(&m, 1, st));
	PR("arr.sparse.unmap.again.sync", cuStreamSynchronize(st));
	/* a batch of two, count 0 */
	{
		CUarrayMapInfo two[2] = { mapinfo(a, 0, 0, tw, th, h, 0),
					  mapinfo(a, tw, th, tw, th, h, 65536) };

		PR("arr.sparse.map.batch2", cuMemMapArrayAsync(two, 2, st));
		PR("arr.sparse.map.count0", cuMemMapArrayAsync(two, 0, st));
		PR("arr.sparse.map.batch2.sync", cuStreamSynchronize(st));
		probe_line("arr.sparse.batch2.data", "%s",
			   tile_rw(a, tw, th, tw, th, "arr.sparse.batch2", 1));
	}
	/* a plain array */
	plain = mk3(1024, 1024, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0, &r);
	m = mapinfo(plain, 0, 0, tw, th, h, 0);
	PR("arr.sparse.map.plain_array", cuMemMapArrayAsync(&m, 1, st));
	PR("arr.sparse.map.plain_array.sync", cuStreamSynchronize(st));
	/* the pool released while mapped, then the array destroyed */
	PR("arr.sparse.release_pool_while_mapped", cuMemRelease(h));
	probe_line("arr.sparse.after_release.data", "%s",
		   tile_rw(a, tw, th, tw, th, "arr.sparse.after_release", 0));
	PR("arr.sparse.destroy", cuArrayDestroy(a));
	cuMemRelease(h2);
	if (plain)
		cuArrayDestroy(plain);
	after("arr.sparse");
}

/* A sparse mipmapped array: its mip tail. */
static void c_sparse_miptail(void)
{
	CUDA_ARRAY3D_DESCRIPTOR d = { 1024, 1024, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4,
				      CUDA_ARRAY3D_SPARSE };
	CUmipmappedArray mm = NULL;
	CUDA_ARRAY_SPARSE_PROPERTIES sp;
	CUmemGenericAllocationHandle h;
	CUarrayMapInfo m;
	size_t g = 0;
	CUresult r;

	r = cuMipmappedArrayCreate(&mm, &d, 11);
	probe_res("arr.miptail.create", r);
	if (r != CUDA_SUCCESS)
		return;
	memset(&sp, 0, sizeof(sp));
	PR("arr.miptail.props", cuMipmappedArrayGetSparseProperties(&sp, mm));
	probe_line("arr.miptail.props.value", "tile=%u,%u,%u miptailFirstLevel=%u miptailSize=%llu flags=0x%x",
		   sp.tileExtent.width, sp.tileExtent.height, sp.tileExtent.depth,
		   sp.miptailFirstLevel, sp.miptailSize, sp.flags);
	h = tile_pool(&g, CU_MEM_CREATE_USAGE_TILE_POOL, &r);
	probe_res("arr.miptail.pool", r);
	memset(&m, 0, sizeof(m));
	m.resourceType = CU_RESOURCE_TYPE_MIPMAPPED_ARRAY;
	m.resource.mipmap = mm;
	m.subresourceType = CU_ARRAY_SPARSE_SUBRESOURCE_TYPE_MIPTAIL;
	m.subresource.miptail.offset = 0;
	m.subresource.miptail.size = sp.miptailSize;
	m.memOperationType = CU_MEM_OPERATION_TYPE_MAP;
	m.memHandleType = CU_MEM_HANDLE_TYPE_GENERIC;
	m.memHandle.memHandle = h;
	m.deviceBitMask = 1;
	PR("arr.miptail.map", cuMemMapArrayAsync(&m, 1, st));
	PR("arr.miptail.map.sync", cuStreamSynchronize(st));
	m.subresource.miptail.size = sp.miptailSize + 65536;
	PR("arr.miptail.map.too_big", cuMemMapArrayAsync(&m, 1, st));
	m.subresource.miptail.size = sp.miptailSize;
	m.subresource.miptail.offset = 4096;
	PR("arr.miptail.map.offset4096", cuMemMapArrayAsync(&m, 1, st));
	PR("arr.miptail.map.invalid.sync", cuStreamSynchronize(st));
	/* a level of the mipmapped array, as an array */
	{
		CUarray l0 = NULL;
		CUarrayMapInfo ml;

		PR("arr.miptail.level0", cuMipmappedArrayGetLevel(&l0, mm, 0));
		ml = mapinfo(l0, 0, 0, sp.tileExtent.width, sp.tileExtent.height, h, 0);
		PR("arr.miptail.map.level_as_array", cuMemMapArrayAsync(&ml, 1, st));
		ml.resourceType = CU_RESOURCE_TYPE_MIPMAPPED_ARRAY;
		ml.resource.mipmap = mm;
		PR("arr.miptail.map.level0_tile", cuMemMapArrayAsync(&ml, 1, st));
		PR("arr.miptail.map.level.sync", cuStreamSynchronize(st));
	}
	PR("arr.miptail.destroy", cuMipmappedArrayDestroy(mm));
	cuMemRelease(h);
	after("arr.miptail");
}

#pragma GCC diagnostic pop

/* ------------------------------------------------------------------ */

static const struct {
	const char *name;
	void (*fn)(void);
} cases[] = {
	{ "sec.attrs", s_attrs },
	{ "sec.chan", s_chan },
	{ "sec.driver", s_driver },
	{ "sec.flags", s_flags },
	{ "sec.dims", s_dims },
	{ "sec.memreq", s_memreq },
	{ "sec.nv12", s_nv12 },
	{ "sec.mipmap", s_mipmap },
	{ "sec.copy", s_copy },
	{ "copy_oob", c_copy_oob },
	{ "null.create", c_null_create },
	{ "null.rt_create", c_null_rt_create },
	{ "null.query", c_null_query },
	{ "null.copy", c_null_copy },
	{ "destroy_twice", c_destroy_twice },
	{ "free_twice", c_free_twice },
	{ "use_after_free", c_use_after_free },
	{ "plane_destroy", c_plane_destroy },
	{ "level_free", c_level_free },
	{ "sparse.map", c_sparse_map },
	{ "sparse.miptail", c_sparse_miptail },
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
