// SPDX-License-Identifier: MIT
/*
 * array.cpp - CUDA arrays and mipmapped arrays of the driver and runtime APIs
 * (cuArrayCreate ... cuMipmappedArrayDestroy, cudaMallocArray ...
 * cudaFreeMipmappedArray), video-format arrays and their planes, and
 * the copies to, from and between arrays: the array sides of cuMemcpy2D/3D
 * and cudaMemcpy3D (pitched.cpp, runtime.cpp use array_side()), the linear
 * forms (cuMemcpyHtoA ..., cudaMemcpyToArray ...) and the runtime's 2D forms
 * (cudaMemcpy2DToArray ...).
 *
 * Layout.  An array is opaque to its user; libuvm keeps it in device memory
 * of the creating context's GPU (one allocation, cuMemAlloc's), row after
 * row without padding: the pitch of a row is its width in elements times
 * the element size, a slice (or layer, or cubemap face) is height rows.  A
 * block-compressed format's element is a 4x4 block of texels (8 or 16
 * bytes), so its rows are rows of blocks.  An array of a planar video
 * format is its planes one after the other (NV12: the luma plane, width x
 * height bytes, then the chroma plane, width/2 x height/2 pairs of bytes;
 * P010 the same of 16-bit values; NV16 and P210 a chroma plane of full
 * height; Y444 three full planes); a packed one (YUY2, AYUV, ...) is an
 * array of its elements.  A mipmapped array is
 * its levels one after the other, each laid out as an array.  Every copy
 * is then one box of the copy engine (copy.cpp), so the checks, the
 * ordering and the waiting of the other copies apply.
 *
 * Validation follows NVIDIA's driver (tests/real-driver/results/probe_array.txt,
 * "arr.*"): the formats and channel counts each API accepts, the limits
 * of each dimension (the maxima H100 and H200 report), the flags, the
 * bounds of every copy.  Where NVIDIA's driver crashes on a destroyed or
 * made-up handle ("arr.destroy_twice", "arr.use_after_free"), libuvm answers
 * CUDA_ERROR_INVALID_HANDLE (cudaErrorInvalidResourceHandle).
 *
 * Sparse and deferred-mapping arrays have no allocation: their memory is
 * mapped by cuMemMapArrayAsync (sparse.cpp).  A deferred-mapping array is
 * laid out as any other in the memory mapped; a sparse one's copies are
 * split per tile.
 *
 * Locking: the tables of arrays are MemoryRegistry::mu's; an array's storage
 * is an allocation, a sparse array's tiles hold tile pools, so the calls
 * here take MemoryRegistry::mu and VmmRegistry::mu together (one
 * DomainLock); a destroyed context takes
 * its arrays with it (release_context_arrays()).
 */
#include <cerrno>
#include <cstring>

#include "array.h"

namespace uvm {
namespace {

/* The largest dimensions (NVIDIA's H100/H200, "arr.devattr.*", "arr.dims.*"). */
constexpr uint64_t kMax1D = 131072;
constexpr uint64_t kMax2DWidth = 131072, kMax2DHeight = 65536;
constexpr uint64_t kMax3D = 16384;
constexpr uint64_t kMax3DAltWidth = 8192, kMax3DAltDepth = 32768;	/* "3d.maxd1" */
constexpr uint64_t kMaxLayeredWidth = 32768, kMaxLayers = 2048;
constexpr uint64_t kMaxCubemapWidth = 32768, kMaxCubemapLayers = 2046;
constexpr uint64_t kMaxGatherWidth = 32768;

/* Flags cuArray3DCreate accepts: the documented ones it implements, and the
 * top bit, which NVIDIA's driver accepts and reports back
 * ("arr.cu.create3d.flag0x80000000"). */
constexpr unsigned int kKnownFlags = CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_SURFACE_LDST |
				     CUDA_ARRAY3D_CUBEMAP | CUDA_ARRAY3D_TEXTURE_GATHER |
				     CUDA_ARRAY3D_SPARSE | CUDA_ARRAY3D_DEFERRED_MAPPING |
				     CUDA_ARRAY3D_VIDEO_ENCODE_DECODE | 0x80000000u;

/* The runtime's channel kinds whose formats have a fixed channel layout. */
struct FixedFormat {
	int kind;			/* enum cudaChannelFormatKind */
	CUarray_format format;
	int x, y, z, w;			/* bits per channel */
	unsigned int channels;
	unsigned int elem;		/* bytes per element (block) */
	bool block;			/* 4x4 texels per element */
};

const FixedFormat kFixed[] = {
	{ cudaChannelFormatKindUnsignedNormalized8X1, CU_AD_FORMAT_UNORM_INT8X1, 8, 0, 0, 0, 1, 1, false },
	{ cudaChannelFormatKindUnsignedNormalized8X2, CU_AD_FORMAT_UNORM_INT8X2, 8, 8, 0, 0, 2, 2, false },
	{ cudaChannelFormatKindUnsignedNormalized8X4, CU_AD_FORMAT_UNORM_INT8X4, 8, 8, 8, 8, 4, 4, false },
	{ cudaChannelFormatKindUnsignedNormalized16X1, CU_AD_FORMAT_UNORM_INT16X1, 16, 0, 0, 0, 1, 2, false },
	{ cudaChannelFormatKindUnsignedNormalized16X2, CU_AD_FORMAT_UNORM_INT16X2, 16, 16, 0, 0, 2, 4, false },
	{ cudaChannelFormatKindUnsignedNormalized16X4, CU_AD_FORMAT_UNORM_INT16X4, 16, 16, 16, 16, 4, 8, false },
	{ cudaChannelFormatKindSignedNormalized8X1, CU_AD_FORMAT_SNORM_INT8X1, 8, 0, 0, 0, 1, 1, false },
	{ cudaChannelFormatKindSignedNormalized8X2, CU_AD_FORMAT_SNORM_INT8X2, 8, 8, 0, 0, 2, 2, false },
	{ cudaChannelFormatKindSignedNormalized8X4, CU_AD_FORMAT_SNORM_INT8X4, 8, 8, 8, 8, 4, 4, false },
	{ cudaChannelFormatKindSignedNormalized16X1, CU_AD_FORMAT_SNORM_INT16X1, 16, 0, 0, 0, 1, 2, false },
	{ cudaChannelFormatKindSignedNormalized16X2, CU_AD_FORMAT_SNORM_INT16X2, 16, 16, 0, 0, 2, 4, false },
	{ cudaChannelFormatKindSignedNormalized16X4, CU_AD_FORMAT_SNORM_INT16X4, 16, 16, 16, 16, 4, 8, false },
	{ cudaChannelFormatKindUnsignedBlockCompressed1, CU_AD_FORMAT_BC1_UNORM, 8, 8, 8, 8, 4, 8, true },
	{ cudaChannelFormatKindUnsignedBlockCompressed1SRGB, CU_AD_FORMAT_BC1_UNORM_SRGB, 8, 8, 8, 8, 4, 8, true },
	{ cudaChannelFormatKindUnsignedBlockCompressed2, CU_AD_FORMAT_BC2_UNORM, 8, 8, 8, 8, 4, 16, true },
	{ cudaChannelFormatKindUnsignedBlockCompressed2SRGB, CU_AD_FORMAT_BC2_UNORM_SRGB, 8, 8, 8, 8, 4, 16, true },
	{ cudaChannelFormatKindUnsignedBlockCompressed3, CU_AD_FORMAT_BC3_UNORM, 8, 8, 8, 8, 4, 16, true },
	{ cudaChannelFormatKindUnsignedBlockCompressed3SRGB, CU_AD_FORMAT_BC3_UNORM_SRGB, 8, 8, 8, 8, 4, 16, true },
	{ cudaChannelFormatKindUnsignedBlockCompressed4, CU_AD_FORMAT_BC4_UNORM, 8, 0, 0, 0, 1, 8, true },
	{ cudaChannelFormatKindSignedBlockCompressed4, CU_AD_FORMAT_BC4_SNORM, 8, 0, 0, 0, 1, 8, true },
	{ cudaChannelFormatKindUnsignedBlockCompressed5, CU_AD_FORMAT_BC5_UNORM, 8, 8, 0, 0, 2, 16, true },
	{ cudaChannelFormatKindSignedBlockCompressed5, CU_AD_FORMAT_BC5_SNORM, 8, 8, 0, 0, 2, 16, true },
	{ cudaChannelFormatKindUnsignedBlockCompressed6H, CU_AD_FORMAT_BC6H_UF16, 16, 16, 16, 0, 3, 16, true },
	{ cudaChannelFormatKindSignedBlockCompressed6H, CU_AD_FORMAT_BC6H_SF16, 16, 16, 16, 0, 3, 16, true },
	{ cudaChannelFormatKindUnsignedBlockCompressed7, CU_AD_FORMAT_BC7_UNORM, 8, 8, 8, 8, 4, 16, true },
	{ cudaChannelFormatKindUnsignedBlockCompressed7SRGB, CU_AD_FORMAT_BC7_UNORM_SRGB, 8, 8, 8, 8, 4, 16, true },
	{ cudaChannelFormatKindUnsignedNormalized1010102, CU_AD_FORMAT_UNORM_INT_101010_2, 10, 10, 10, 2, 4, 4, false },
};

const FixedFormat *fixed_format(CUarray_format f)
{
	for (const FixedFormat &x : kFixed)
		if (x.format == f)
			return &x;
	return nullptr;
}

/*
 * The video formats (CUDA_ARRAY3D_VIDEO_ENCODE_DECODE): their channel count
 * and either the bytes of an element (packed: the array is copied as it
 * is) or their planes, each a fraction of the array's width and height, of
 * 1 or 2 channels of 8 or 16 bits ("pl.*" of probe_planar.txt).
 */
struct VideoPlane {
	CUarray_format format;
	unsigned int channels;
	unsigned int xdiv, ydiv;
};

struct VideoFormat {
	CUarray_format format;
	unsigned int channels;
	unsigned int elem;		/* packed formats; 0 for planar ones */
	unsigned int nplanes;
	VideoPlane planes[3];
};

constexpr CUarray_format U8 = CU_AD_FORMAT_UNSIGNED_INT8, U16 = CU_AD_FORMAT_UNSIGNED_INT16;

const VideoFormat kVideo[] = {
	{ CU_AD_FORMAT_NV12, 3, 0, 2, { { U8, 1, 1, 1 }, { U8, 2, 2, 2 } } },
	{ CU_AD_FORMAT_P010, 3, 0, 2, { { U16, 1, 1, 1 }, { U16, 2, 2, 2 } } },
	{ CU_AD_FORMAT_P016, 3, 0, 2, { { U16, 1, 1, 1 }, { U16, 2, 2, 2 } } },
	{ CU_AD_FORMAT_NV16, 3, 0, 2, { { U8, 1, 1, 1 }, { U8, 2, 2, 1 } } },
	{ CU_AD_FORMAT_P210, 3, 0, 2, { { U16, 1, 1, 1 }, { U16, 2, 2, 1 } } },
	{ CU_AD_FORMAT_P216, 3, 0, 2, { { U16, 1, 1, 1 }, { U16, 2, 2, 1 } } },
	{ CU_AD_FORMAT_Y444_PLANAR8, 3, 0, 3,
	  { { U8, 1, 1, 1 }, { U8, 1, 1, 1 }, { U8, 1, 1, 1 } } },
	{ CU_AD_FORMAT_Y444_PLANAR10, 3, 0, 3,
	  { { U16, 1, 1, 1 }, { U16, 1, 1, 1 }, { U16, 1, 1, 1 } } },
	{ CU_AD_FORMAT_YUY2, 4, 4, 0, {} },
	{ CU_AD_FORMAT_Y210, 2, 4, 0, {} },
	{ CU_AD_FORMAT_Y216, 2, 4, 0, {} },
	{ CU_AD_FORMAT_AYUV, 4, 4, 0, {} },
	{ CU_AD_FORMAT_Y410, 1, 4, 0, {} },
	{ CU_AD_FORMAT_Y416, 4, 8, 0, {} },
};

const VideoFormat *video_format(CUarray_format f)
{
	for (const VideoFormat &v : kVideo)
		if (v.format == f)
			return &v;
	return nullptr;
}

/* Bytes per channel of the formats of 1, 2 or 4 channels of one type; 0
 * for other formats. */
unsigned int channel_bytes(CUarray_format f)
{
	switch (f) {
	case CU_AD_FORMAT_UNSIGNED_INT8:
	case CU_AD_FORMAT_SIGNED_INT8:
		return 1;
	case CU_AD_FORMAT_UNSIGNED_INT16:
	case CU_AD_FORMAT_SIGNED_INT16:
	case CU_AD_FORMAT_HALF:
		return 2;
	case CU_AD_FORMAT_UNSIGNED_INT32:
	case CU_AD_FORMAT_SIGNED_INT32:
	case CU_AD_FORMAT_FLOAT:
		return 4;
	default:
		return 0;
	}
}

/**
 * layout_of() - check a descriptor and lay the array out
 * @d:		the descriptor (Depth 0 for a 2D descriptor)
 * @l:		out
 *
 * Return: CUDA_SUCCESS or CUDA_ERROR_INVALID_VALUE.
 */
CUresult layout_of(const CUDA_ARRAY3D_DESCRIPTOR &d, Layout *l)
{
	const uint64_t w = d.Width, h = d.Height, z = d.Depth;
	const unsigned int f = d.Flags;
	const bool layered = f & CUDA_ARRAY3D_LAYERED, cube = f & CUDA_ARRAY3D_CUBEMAP;
	const FixedFormat *fixed = fixed_format(d.Format);
	const VideoFormat *video = video_format(d.Format);
	unsigned int block = 1;

	*l = {};
	l->format = d.Format;
	l->channels = d.NumChannels;
	l->width = w;
	l->height = h;
	l->depth = z;
	l->flags = f;
	if (video) {
		/* "pl.*": the format's channels, for video, 2D or layered,
		 * even dimensions; surfaces are allowed */
		const unsigned int ok = CUDA_ARRAY3D_VIDEO_ENCODE_DECODE | CUDA_ARRAY3D_LAYERED |
					CUDA_ARRAY3D_SURFACE_LDST | 0x80000000u;

		if (d.NumChannels != video->channels || !(f & CUDA_ARRAY3D_VIDEO_ENCODE_DECODE) ||
		    (f & ~ok) || !h || (z && !layered) || (w & 1) || (h & 1))
			return CUDA_ERROR_INVALID_VALUE;
		l->elem = video->elem ? video->elem : 1;
	} else if (unsigned int cb = channel_bytes(d.Format)) {
		if (d.NumChannels != 1 && d.NumChannels != 2 && d.NumChannels != 4)
			return CUDA_ERROR_INVALID_VALUE;
		l->elem = cb * d.NumChannels;
	} else if (fixed && fixed->channels == d.NumChannels) {
		l->elem = fixed->elem;
		block = fixed->block ? 4 : 1;
	} else {
		return CUDA_ERROR_INVALID_VALUE;
	}

	/* Flags: unknown ones, depth textures and color attachments
	 * ("create3d.depth_texture.*", ".color_attachment", ".flag0x200"). */
	if (f & ~kKnownFlags)
		return CUDA_ERROR_INVALID_VALUE;
	if (!w)
		return CUDA_ERROR_INVALID_VALUE;
	if ((f & CUDA_ARRAY3D_SPARSE) && (f & CUDA_ARRAY3D_DEFERRED_MAPPING))
		return CUDA_ERROR_INVALID_VALUE;
	if ((f & CUDA_ARRAY3D_SPARSE) && !h)	/* "create3d.sparse1d" */
		return CUDA_ERROR_INVALID_VALUE;
	if ((f & CUDA_ARRAY3D_TEXTURE_GATHER) && (!h || z || layered || cube ||
						  w > kMaxGatherWidth || h > kMaxGatherWidth))
		return CUDA_ERROR_INVALID_VALUE;
	if (cube) {
		if (w != h || w > kMaxCubemapWidth || !z || z % 6 ||
		    (!layered && z != 6) || (layered && z > kMaxCubemapLayers))
			return CUDA_ERROR_INVALID_VALUE;
	} else if (layered) {
		if (!z || z > kMaxLayers || w > kMaxLayeredWidth || h > kMaxLayeredWidth)
			return CUDA_ERROR_INVALID_VALUE;
	} else if (!h) {
		if (z || w > kMax1D)
			return CUDA_ERROR_INVALID_VALUE;
	} else if (!z) {
		if (w > kMax2DWidth || h > kMax2DHeight)
			return CUDA_ERROR_INVALID_VALUE;
	} else if (!(w <= kMax3D && h <= kMax3D && z <= kMax3D) &&
		   !(w <= kMax3DAltWidth && h <= kMax3DAltWidth && z <= kMax3DAltDepth)) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	l->block = block;
	l->cols = (w + block - 1) / block;
	l->rows = h ? (h + block - 1) / block : 1;
	l->slices = z ? z : 1;
	return sparse_check(*l);
}

} // namespace

Layout level_layout(const Layout &l0, unsigned int n, uint64_t offset)
{
	Layout l = l0;
	const bool layers = l0.flags & (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_CUBEMAP);
	const uint64_t block = l0.block;

	auto shrink = [n](uint64_t v) { return v ? std::max<uint64_t>(1, v >> n) : 0; };
	l.width = shrink(l0.width);
	l.height = shrink(l0.height);
	if (!layers)
		l.depth = shrink(l0.depth);
	l.cols = (l.width + block - 1) / block;
	l.rows = l.height ? (l.height + block - 1) / block : 1;
	l.slices = l.depth ? l.depth : 1;
	l.offset = offset;
	return l;
}

ArrayTables &array_tables()
{
	/* Never destroyed, as the registries: no tile pool is unmapped at exit. */
	static ArrayTables *t = new ArrayTables;

	return *t;
}

Array *find_array(const void *h)
{
	auto it = array_tables().all.find(static_cast<Array *>(const_cast<void *>(h)));

	return it == array_tables().all.end() ? nullptr : it->second;
}

Mipmap *find_mipmap(const void *h)
{
	auto it = array_tables().mipmaps.find(static_cast<Mipmap *>(const_cast<void *>(h)));

	return it == array_tables().mipmaps.end() ? nullptr : it->second.get();
}

namespace {

/* Levels a mipmapped array of @l0 has when @asked are asked for. */
unsigned int level_count(const Layout &l0, unsigned int asked)
{
	const bool layers = l0.flags & (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_CUBEMAP);
	uint64_t m = std::max(l0.width, l0.height);
	unsigned int n = 1;

	if (!layers)
		m = std::max(m, l0.depth);
	while (m >>= 1)
		n++;
	return std::min(std::max(asked, 1u), n);
}

/* Device memory for @bytes of arrays in @ctx (memory and VMM domains held). */
CUresult alloc_storage(Context *ctx, uint64_t bytes, uint64_t *base)
{
	if (!driver_has_copy_3d())
		return CUDA_ERROR_NOT_SUPPORTED;
	if (int r = alloc_device(ctx->device, bytes, ctx, base))
		return r == -EINVAL ? CUDA_ERROR_OUT_OF_MEMORY : from_errno(r);
	mem_reg().allocations.at(*base).internal = true;
	return CUDA_SUCCESS;
}

void free_storage(uint64_t base)
{
	auto it = mem_reg().allocations.find(base);

	if (base && it != mem_reg().allocations.end())
		free_allocation(it);
}

/*
 * The storage of an array or mipmapped array (@levels levels of @l0,
 * @bytes in all): an allocation; nothing yet for deferred-mapping and
 * sparse ones.  memory and VMM domains held.
 */
CUresult make_storage(Context *ctx, const Layout &l0, unsigned int levels, uint64_t bytes,
		      Storage *st)
{
	if (l0.sparse()) {
		if (CUresult r = make_zero_tile(ctx))
			return r;
		st->sparse = sparse_layout(l0, levels);
		return CUDA_SUCCESS;
	}
	if (l0.deferred()) {
		st->required = deferred_requirement(l0, levels);
		return CUDA_SUCCESS;
	}
	return alloc_storage(ctx, bytes, &st->base);
}

/* Where an array's plain layout starts: its allocation, or the memory
 * mapped to a deferred-mapping array (0: nothing is). */
uint64_t storage_base(Array *a)
{
	const Storage &st = storage_of(a);

	return st.mapped ? st.mapped.addr() : st.base;
}

/* Register an array and its planes under their handles. */
void register_array(Array *a)
{
	array_tables().all[a] = a;
	for (auto &p : a->planes)
		array_tables().all[p.get()] = p.get();
}

void forget_array(Array *a)
{
	for (auto &p : a->planes)
		array_tables().all.erase(p.get());
	array_tables().all.erase(a);
}

/*
 * The planes of an array of a planar video format, one after the other in
 * its storage (each with the array's layers); the bytes of all.
 */
uint64_t plane_layouts(const Layout &l, std::vector<Layout> *out)
{
	const VideoFormat *v = video_format(l.format);
	uint64_t offset = l.offset;

	out->clear();
	for (unsigned int i = 0; v && i < v->nplanes; i++) {
		const VideoPlane &vp = v->planes[i];
		Layout p = l;

		p.format = vp.format;
		p.channels = vp.channels;
		p.elem = channel_bytes(vp.format) * vp.channels;
		p.width = p.cols = l.width / vp.xdiv;
		p.height = p.rows = l.height / vp.ydiv;
		p.offset = offset;
		offset += p.bytes();
		out->push_back(p);
	}
	return offset - l.offset;
}

/* The planes of @a, of the layouts plane_layouts() gave. */
void make_planes(Array *a, const std::vector<Layout> &planes)
{
	for (const Layout &pl : planes) {
		auto p = std::make_unique<Array>();

		p->l = pl;
		p->ctx = a->ctx;
		p->owner = a;
		a->planes.push_back(std::move(p));
	}
}

CUresult create_array(CUarray *out, const CUDA_ARRAY3D_DESCRIPTOR *d)
{
	Context *ctx;
	Layout l;

	if (CUresult r = current_context(&ctx))
		return r;
	if (!out || !d)
		return CUDA_ERROR_INVALID_VALUE;
	if (CUresult r = layout_of(*d, &l))
		return r;
	/* the storage holds the planes, if any, or the array's own elements */
	std::vector<Layout> planes;
	const uint64_t plane_bytes = plane_layouts(l, &planes);
	auto a = std::make_unique<Array>();
	a->l = l;
	a->ctx = ctx;
	DomainLock lock(kMemoryDomain | kVmmDomain);
	if (CUresult r = make_storage(ctx, l, 1, planes.empty() ? l.bytes() : plane_bytes, &a->st))
		return r;
	make_planes(a.get(), planes);
	Array *p = a.get();
	register_array(p);
	array_tables().arrays[p] = std::move(a);
	*out = reinterpret_cast<CUarray>(p);
	return CUDA_SUCCESS;
}

/* cuArrayDestroy, cudaFreeArray: the array's queued copies finish first. */
CUresult destroy_array(CUarray h)
{
	{
		DomainLock lock(kMemoryDomain | kVmmDomain);
		Array *a = find_array(h);

		if (!a)
			return CUDA_ERROR_INVALID_HANDLE;
		/* Planes and levels go with their owner ("arr.levelfree"). */
		if (a->owner || a->mipmap)
			return CUDA_SUCCESS;
	}
	wait_all();
	DomainLock lock(kMemoryDomain | kVmmDomain);
	auto it = array_tables().arrays.find(reinterpret_cast<Array *>(h));
	if (it == array_tables().arrays.end())
		return CUDA_ERROR_INVALID_HANDLE;
	forget_array(it->first);
	free_storage(it->second->st.base);
	array_tables().arrays.erase(it);
	return CUDA_SUCCESS;
}

/* The layout of a live array (CUDA_ERROR_INVALID_HANDLE for none). */
CUresult layout_of_handle(const void *h, Layout *l)
{
	DomainLock lock(kMemoryDomain | kVmmDomain);
	const Array *a = find_array(h);

	if (!a)
		return CUDA_ERROR_INVALID_HANDLE;
	*l = a->l;
	return CUDA_SUCCESS;
}

void descriptor3d(const Layout &l, CUDA_ARRAY3D_DESCRIPTOR *d)
{
	*d = {};
	d->Width = l.width;
	d->Height = l.height;
	d->Depth = l.depth;
	d->Format = l.format;
	d->NumChannels = l.channels;
	d->Flags = l.flags;
}

/* The runtime's description of a format. */
struct cudaChannelFormatDesc channel_desc(CUarray_format f, unsigned int n)
{
	struct cudaChannelFormatDesc d = {};
	int bits = static_cast<int>(channel_bytes(f)) * 8;

	if (const FixedFormat *x = fixed_format(f))
		return { x->x, x->y, x->z, x->w, static_cast<enum cudaChannelFormatKind>(x->kind) };
	if (f == CU_AD_FORMAT_NV12)
		return { 8, 8, 8, 0, cudaChannelFormatKindNV12 };
	d.f = f == CU_AD_FORMAT_HALF || f == CU_AD_FORMAT_FLOAT ? cudaChannelFormatKindFloat :
	      f >= CU_AD_FORMAT_SIGNED_INT8 ? cudaChannelFormatKindSigned :
	      cudaChannelFormatKindUnsigned;
	d.x = bits;
	d.y = n >= 2 ? bits : 0;
	d.z = n >= 3 ? bits : 0;
	d.w = n >= 4 ? bits : 0;
	return d;
}

/**
 * format_of_desc() - the format and channels of a runtime description
 * @d:		the description
 * @f:		out
 * @n:		out: channels
 *
 * Return: CUDA_SUCCESS; cudaErrorInvalidChannelDescriptor's number for a
 * description of no format ("arr.chan.*"); CUDA_ERROR_INVALID_VALUE for
 * NV12, which only the driver API creates ("arr.chan.nv12").
 */
CUresult format_of_desc(const struct cudaChannelFormatDesc &d, CUarray_format *f,
			unsigned int *n)
{
	const auto bad = static_cast<CUresult>(cudaErrorInvalidChannelDescriptor);

	if (d.f == cudaChannelFormatKindNV12)
		return CUDA_ERROR_INVALID_VALUE;
	for (const FixedFormat &x : kFixed) {
		if (x.kind != d.f)
			continue;
		if (d.x != x.x || d.y != x.y || d.z != x.z || d.w != x.w)
			return bad;
		*f = x.format;
		*n = x.channels;
		return CUDA_SUCCESS;
	}
	if (d.f != cudaChannelFormatKindSigned && d.f != cudaChannelFormatKindUnsigned &&
	    d.f != cudaChannelFormatKindFloat)
		return bad;
	/* 1, 2 or 4 channels of 8, 16 or 32 bits (floats of 16 or 32) */
	const int b = d.x;
	unsigned int c = d.w ? 4 : d.z ? 3 : d.y ? 2 : 1;
	if ((c == 3) || (d.y && d.y != b) || (d.z && d.z != b) || (d.w && d.w != b) ||
	    (c == 4 && (!d.y || !d.z)) || (c == 2 && d.z))
		return bad;
	switch (b) {
	case 8:
		if (d.f == cudaChannelFormatKindFloat)
			return bad;
		*f = d.f == cudaChannelFormatKindSigned ? CU_AD_FORMAT_SIGNED_INT8 :
		     CU_AD_FORMAT_UNSIGNED_INT8;
		break;
	case 16:
		*f = d.f == cudaChannelFormatKindFloat ? CU_AD_FORMAT_HALF :
		     d.f == cudaChannelFormatKindSigned ? CU_AD_FORMAT_SIGNED_INT16 :
		     CU_AD_FORMAT_UNSIGNED_INT16;
		break;
	case 32:
		*f = d.f == cudaChannelFormatKindFloat ? CU_AD_FORMAT_FLOAT :
		     d.f == cudaChannelFormatKindSigned ? CU_AD_FORMAT_SIGNED_INT32 :
		     CU_AD_FORMAT_UNSIGNED_INT32;
		break;
	default:
		return bad;
	}
	*n = c;
	return CUDA_SUCCESS;
}

/* A runtime description and extent onto a driver descriptor. */
CUresult rt_descriptor(const struct cudaChannelFormatDesc *desc, const struct cudaExtent &e,
		       unsigned int flags, CUDA_ARRAY3D_DESCRIPTOR *d)
{
	*d = {};
	if (!desc)
		return CUDA_ERROR_INVALID_VALUE;
	if (CUresult r = format_of_desc(*desc, &d->Format, &d->NumChannels))
		return r;
	d->Width = e.width;
	d->Height = e.height;
	d->Depth = e.depth;
	d->Flags = flags;
	return CUDA_SUCCESS;
}

/* cudaArray_t handles are CUarray handles. */
inline CUarray cu(cudaArray_const_t a)
{
	return reinterpret_cast<CUarray>(const_cast<cudaArray *>(a));
}

/* Mipmapped arrays. */
CUresult create_mipmap(CUmipmappedArray *out, const CUDA_ARRAY3D_DESCRIPTOR *d,
		       unsigned int levels)
{
	Context *ctx;
	Layout l0;

	if (CUresult r = current_context(&ctx))
		return r;
	if (!out || !d)
		return CUDA_ERROR_INVALID_VALUE;
	if (video_format(d->Format))	/* no mipmapped video arrays */
		return CUDA_ERROR_INVALID_VALUE;
	if (CUresult r = layout_of(*d, &l0))
		return r;
	auto m = std::make_unique<Mipmap>();
	m->l = l0;
	m->ctx = ctx;
	uint64_t total = 0;
	const unsigned int count = level_count(l0, levels);
	for (unsigned int n = 0; n < count; n++) {
		auto a = std::make_unique<Array>();

		a->l = level_layout(l0, n, total);
		a->ctx = ctx;
		a->mipmap = m.get();
		a->level = n;
		total += a->l.bytes();	/* at most twice level 0's */
		m->levels.push_back(std::move(a));
	}
	DomainLock lock(kMemoryDomain | kVmmDomain);
	if (CUresult r = make_storage(ctx, l0, count, total, &m->st))
		return r;
	for (auto &a : m->levels)
		register_array(a.get());
	Mipmap *p = m.get();
	array_tables().mipmaps[p] = std::move(m);
	*out = reinterpret_cast<CUmipmappedArray>(p);
	return CUDA_SUCCESS;
}

CUresult destroy_mipmap(CUmipmappedArray h)
{
	{
		DomainLock lock(kMemoryDomain | kVmmDomain);
		if (!find_mipmap(h))
			return CUDA_ERROR_INVALID_HANDLE;
	}
	wait_all();
	DomainLock lock(kMemoryDomain | kVmmDomain);
	auto it = array_tables().mipmaps.find(reinterpret_cast<Mipmap *>(h));
	if (it == array_tables().mipmaps.end())
		return CUDA_ERROR_INVALID_HANDLE;
	for (auto &a : it->second->levels)
		forget_array(a.get());
	free_storage(it->second->st.base);
	array_tables().mipmaps.erase(it);
	return CUDA_SUCCESS;
}

/* Part @n of an array's planes or a mipmapped array's levels. */
CUresult nth_part(CUarray *out, const std::vector<std::unique_ptr<Array>> &parts, unsigned int n)
{
	if (!out || n >= parts.size())
		return CUDA_ERROR_INVALID_VALUE;
	*out = reinterpret_cast<CUarray>(parts[n].get());
	return CUDA_SUCCESS;
}

CUresult mipmap_level(CUarray *out, const void *h, unsigned int level)
{
	DomainLock lock(kMemoryDomain | kVmmDomain);
	Mipmap *m = find_mipmap(h);

	return m ? nth_part(out, m->levels, level) : CUDA_ERROR_INVALID_HANDLE;
}

CUresult array_plane(CUarray *out, const void *h, unsigned int plane)
{
	DomainLock lock(kMemoryDomain | kVmmDomain);
	Array *a = find_array(h);

	return a ? nth_part(out, a->planes, plane) : CUDA_ERROR_INVALID_HANDLE;
}

/* Copies */

/*
 * The array side of a copy: the box of @width bytes x @height rows x
 * @depth slices at (@x bytes, @y, @z) lies in the array.  memory and VMM domains held.
 */
CUresult locked_array_side(const void *h, uint64_t x, uint64_t y, uint64_t z, uint64_t width,
			   uint64_t height, uint64_t depth, BoxSide *side)
{
	Array *a = find_array(h);

	if (!a)
		return CUDA_ERROR_INVALID_HANDLE;
	/* A planar array itself has no layout to copy ("nv12...whole.write");
	 * a packed one has ("pl.yuy2.whole.row512"). */
	if (!a->planes.empty())
		return CUDA_ERROR_INVALID_VALUE;
	const Layout &l = a->l;
	if (x > l.pitch() || width > l.pitch() - x || y > l.rows || height > l.rows - y ||
	    z > l.slices || depth > l.slices - z)
		return CUDA_ERROR_INVALID_VALUE;
	if (storage_of(a).sparse) {
		tiled_side(a, x, y, z, side);
		return CUDA_SUCCESS;
	}
	const uint64_t base = storage_base(a);
	if (!base)
		return CUDA_ERROR_INVALID_VALUE;
	side->addr = base + l.offset + z * l.slice_pitch() + y * l.pitch() + x;
	side->pitch = l.pitch();
	side->slice_pitch = l.slice_pitch();
	side->extent = 0;
	side->role = Role::device;
	return CUDA_SUCCESS;
}

/* A linear run of @count bytes at (@x bytes, @y rows) of an array, inside
 * its storage (the rows of a runtime cudaMemcpyToArray: "arr.copy.toarray"),
 * or inside its first row (the driver's cuMemcpyHtoA, @y 0:
 * "arr.cu.htoa.row1"). */
CUresult linear_side(const void *h, uint64_t x, uint64_t y, uint64_t count, bool first_row,
		     BoxSide *side)
{
	DomainLock lock(kMemoryDomain | kVmmDomain);
	Array *a = find_array(h);
	uint64_t offset;

	if (!a)
		return CUDA_ERROR_INVALID_HANDLE;
	if (!a->planes.empty())
		return CUDA_ERROR_INVALID_VALUE;
	const uint64_t end = first_row ? a->l.pitch() : a->l.bytes();
	if (__builtin_mul_overflow(y, a->l.pitch(), &offset) ||
	    __builtin_add_overflow(offset, x, &offset) ||
	    offset > end || count > end - offset)
		return CUDA_ERROR_INVALID_VALUE;
	if (storage_of(a).sparse) {
		/* A run in one row is a box of that row; runs over several
		 * rows of a sparse array are not supported. */
		if (x >= a->l.pitch() || count > a->l.pitch() - x)
			return CUDA_ERROR_NOT_SUPPORTED;
		tiled_side(a, x, y, 0, side);
		return CUDA_SUCCESS;
	}
	const uint64_t base = storage_base(a);
	if (!base)
		return CUDA_ERROR_INVALID_VALUE;
	side->addr = base + a->l.offset + offset;
	side->pitch = side->slice_pitch = side->extent = 0;
	side->role = Role::device;
	return CUDA_SUCCESS;
}

/**
 * struct End - one side of a copy with an array: the array, or the pointer;
 * (x bytes, y rows) into the array, or the pointer's pitch.
 */
struct End {
	bool is_array = false;
	const void *array = nullptr;
	uint64_t ptr = 0;
	uint64_t x = 0, y = 0, pitch = 0;
};

End of_array(const void *a, uint64_t x = 0, uint64_t y = 0)
{
	return { true, a, 0, x, y, 0 };
}

End of_ptr(uint64_t p, uint64_t pitch = 0)
{
	return { false, nullptr, p, 0, 0, pitch };
}

End of_ptr(const void *p, uint64_t pitch = 0)
{
	return of_ptr(reinterpret_cast<uintptr_t>(p), pitch);
}

/*
 * The driver's linear copies (cuMemcpyHtoA, AtoH, AtoA, DtoA, AtoD): the
 * bytes of an array side lie in its first row ("arr.cu.htoa.row1"); no
 * array, or one that is gone, is an invalid value ("arr.null.copy.htoa").
 */
CUresult linear_copy(const End &dst, const End &src, uint64_t count, CUstream h, bool ptds,
		     Mode mode)
{
	BoxRequest q;

	if (CUresult r = check_init())
		return r;
	for (int i = 0; i < 2; i++) {
		const End &e = i ? src : dst;
		BoxSide *side = i ? &q.src : &q.dst;

		if (!e.is_array) {
			side->addr = e.ptr;
			side->role = Role::any;
			continue;
		}
		if (!e.array)
			return CUDA_ERROR_INVALID_VALUE;
		if (CUresult r = linear_side(e.array, e.x, 0, count, true, side))
			return r == CUDA_ERROR_INVALID_HANDLE ? CUDA_ERROR_INVALID_VALUE : r;
	}
	q.width = count;
	return box_execute(q, h, ptds, mode);
}

/* The runtime's NULL checks: a missing array is a bad handle
 * ("arr.null.copy.to2d"), a missing pointer a bad value (".to2d.src"). */
CUresult rt_null_check(const End &dst, const End &src, bool empty)
{
	for (const End *e : { &dst, &src }) {
		if (e->is_array && !e->array)
			return CUDA_ERROR_INVALID_HANDLE;
		if (!e->is_array && !e->ptr && !empty)
			return CUDA_ERROR_INVALID_VALUE;
	}
	return CUDA_SUCCESS;
}

/* cudaMemcpy2DToArray, cudaMemcpy2DFromArray, cudaMemcpy2DArrayToArray:
 * offsets and width in bytes, rows. */
CUresult rt_copy_2d(const End &dst, const End &src, size_t width, size_t height, int kind,
		    CUstream h, bool ptds, bool async)
{
	BoxRequest q;

	if (CUresult r = rt_null_check(dst, src, !width || !height))
		return r;
	if (CUresult r = array_copy_kind(kind, dst.is_array, src.is_array))
		return r;
	/* "arr.copy.align.spitch_lt_w" */
	if (width && height && ((!dst.is_array && dst.pitch < width) ||
				(!src.is_array && src.pitch < width)))
		return static_cast<CUresult>(cudaErrorInvalidPitchValue);
	for (int i = 0; i < 2; i++) {
		const End &e = i ? src : dst;
		BoxSide *side = i ? &q.src : &q.dst;

		if (!e.is_array) {
			side->addr = e.ptr;
			side->pitch = e.pitch;
			continue;
		}
		if (CUresult r = array_side(reinterpret_cast<CUarray>(const_cast<void *>(e.array)),
					    e.x, e.y, 0, width, height, 1, side))
			return r;
	}
	q.width = width;
	q.height = height;
	return runtime_copy_box(q, kind, h, ptds, async);
}

/* cudaMemcpyToArray, cudaMemcpyFromArray, cudaMemcpyArrayToArray: count
 * bytes from (x bytes, y rows) of an array on, row after row, inside the
 * array ("arr.copy.toarray", "arr.oob.toarray.*"). */
CUresult rt_copy_linear(const End &dst, const End &src, size_t count, int kind, CUstream h,
			bool ptds, bool async)
{
	BoxRequest q;

	if (CUresult r = rt_null_check(dst, src, !count))
		return r;
	if (CUresult r = array_copy_kind(kind, dst.is_array, src.is_array))
		return r;
	for (int i = 0; i < 2; i++) {
		const End &e = i ? src : dst;
		BoxSide *side = i ? &q.src : &q.dst;

		if (!e.is_array)
			side->addr = e.ptr;
		else if (CUresult r = linear_side(e.array, e.x, e.y, count, false, side))
			return r;
	}
	q.width = count;
	return runtime_copy_box(q, kind, h, ptds, async);
}

} // namespace

/* Planes, levels and arrays of a context that is destroyed (all domains held: context_release_resources()). */
void release_context_arrays(Context *ctx)
{
	ArrayTables &t = array_tables();

	forget_zero_tile(ctx);
	for (auto it = t.arrays.begin(); it != t.arrays.end();) {
		auto next = std::next(it);

		if (it->second->ctx == ctx) {
			forget_array(it->first);
			t.arrays.erase(it);
		}
		it = next;
	}
	for (auto it = t.mipmaps.begin(); it != t.mipmaps.end();) {
		auto next = std::next(it);

		if (it->second->ctx == ctx) {
			for (auto &a : it->second->levels)
				forget_array(a.get());
			t.mipmaps.erase(it);
		}
		it = next;
	}
}

CUresult array_side(CUarray a, uint64_t x, uint64_t y, uint64_t z, uint64_t width,
		    uint64_t height, uint64_t depth, BoxSide *side)
{
	DomainLock lock(kMemoryDomain | kVmmDomain);

	return locked_array_side(a, x, y, z, width, height, depth, side);
}

/*
 * The runtime's kinds with an array side: the array is device memory, so a
 * kind that says otherwise is refused ("arr.copy.a2a2d.kind_h2d").
 */
CUresult array_copy_kind(int kind, bool dst_array, bool src_array)
{
	Role dr, sr;

	if (CUresult r = memcpy_kind_roles(kind, &dr, &sr))
		return r;
	if (kind == cudaMemcpyDefault)
		return CUDA_SUCCESS;
	if ((dst_array && dr != Role::device) || (src_array && sr != Role::device))
		return static_cast<CUresult>(cudaErrorInvalidMemcpyDirection);
	return CUDA_SUCCESS;
}

CUresult array_element_size(CUarray a, uint64_t *elem)
{
	Layout l;

	if (CUresult r = layout_of_handle(a, &l))
		return r;
	*elem = l.elem;
	return CUDA_SUCCESS;
}

} // namespace uvm

using namespace uvm;

#undef cuArrayCreate
#undef cuArray3DCreate
#undef cuArrayGetDescriptor
#undef cuArray3DGetDescriptor
#undef cuMemcpyHtoA
#undef cuMemcpyAtoH
#undef cuMemcpyAtoA
#undef cuMemcpyDtoA
#undef cuMemcpyAtoD
#undef cuMemcpyHtoAAsync
#undef cuMemcpyAtoHAsync

extern "C" CUresult cuArrayCreate_v2(CUarray *pHandle,
				     const CUDA_ARRAY_DESCRIPTOR *pAllocateArray) noexcept
{
	return guard([&]() -> CUresult {
		CUDA_ARRAY3D_DESCRIPTOR d = {};

		if (CUresult r = check_init())
			return r;
		if (!pHandle || !pAllocateArray)
			return CUDA_ERROR_INVALID_VALUE;
		d.Width = pAllocateArray->Width;
		d.Height = pAllocateArray->Height;
		d.Format = pAllocateArray->Format;
		d.NumChannels = pAllocateArray->NumChannels;
		/* NV12 needs the flags of cuArray3DCreate ("nv12.arraycreate_128x64") */
		return create_array(pHandle, &d);
	});
}

extern "C" CUresult cuArray3DCreate_v2(CUarray *pHandle,
				       const CUDA_ARRAY3D_DESCRIPTOR *pAllocateArray) noexcept
{
	return guard([&]() -> CUresult {
		if (CUresult r = check_init())
			return r;
		return create_array(pHandle, pAllocateArray);
	});
}

extern "C" CUresult cuArrayDestroy(CUarray hArray) noexcept
{
	return guard([&]() -> CUresult {
		if (CUresult r = check_init())
			return r;
		return destroy_array(hArray);
	});
}

extern "C" CUresult cuArray3DGetDescriptor_v2(CUDA_ARRAY3D_DESCRIPTOR *pArrayDescriptor,
					      CUarray hArray) noexcept
{
	return guard([&]() -> CUresult {
		Layout l;

		if (CUresult r = check_init())
			return r;
		if (CUresult r = layout_of_handle(hArray, &l))
			return r;
		if (!pArrayDescriptor)
			return CUDA_ERROR_INVALID_VALUE;
		descriptor3d(l, pArrayDescriptor);
		return CUDA_SUCCESS;
	});
}

extern "C" CUresult cuArrayGetDescriptor_v2(CUDA_ARRAY_DESCRIPTOR *pArrayDescriptor,
					    CUarray hArray) noexcept
{
	return guard([&]() -> CUresult {
		Layout l;

		if (CUresult r = check_init())
			return r;
		if (CUresult r = layout_of_handle(hArray, &l))
			return r;
		if (!pArrayDescriptor)
			return CUDA_ERROR_INVALID_VALUE;
		*pArrayDescriptor = { l.width, l.height, l.format, l.channels };
		return CUDA_SUCCESS;
	});
}

extern "C" CUresult cuArrayGetPlane(CUarray *pPlaneArray, CUarray hArray,
				    unsigned int planeIdx) noexcept
{
	return guard([&]() -> CUresult {
		if (CUresult r = check_init())
			return r;
		return array_plane(pPlaneArray, hArray, planeIdx);
	});
}

extern "C" CUresult cuArrayGetMemoryRequirements(CUDA_ARRAY_MEMORY_REQUIREMENTS *memoryRequirements,
						 CUarray array, CUdevice device) noexcept
{
	return guard([&]() -> CUresult {
		(void)device;
		if (CUresult r = check_init())
			return r;
		return memory_requirements(memoryRequirements, array, false);
	});
}

extern "C" CUresult cuArrayGetSparseProperties(CUDA_ARRAY_SPARSE_PROPERTIES *sparseProperties,
					       CUarray array) noexcept
{
	return guard([&]() -> CUresult {
		if (CUresult r = check_init())
			return r;
		return sparse_properties(sparseProperties, array, false);
	});
}

extern "C" CUresult cuMipmappedArrayCreate(CUmipmappedArray *pHandle,
					   const CUDA_ARRAY3D_DESCRIPTOR *pMipmappedArrayDesc,
					   unsigned int numMipmapLevels) noexcept
{
	return guard([&]() -> CUresult {
		if (CUresult r = check_init())
			return r;
		return create_mipmap(pHandle, pMipmappedArrayDesc, numMipmapLevels);
	});
}

extern "C" CUresult cuMipmappedArrayGetLevel(CUarray *pLevelArray,
					     CUmipmappedArray hMipmappedArray,
					     unsigned int level) noexcept
{
	return guard([&]() -> CUresult {
		if (CUresult r = check_init())
			return r;
		return mipmap_level(pLevelArray, hMipmappedArray, level);
	});
}

extern "C" CUresult cuMipmappedArrayDestroy(CUmipmappedArray hMipmappedArray) noexcept
{
	return guard([&]() -> CUresult {
		if (CUresult r = check_init())
			return r;
		return destroy_mipmap(hMipmappedArray);
	});
}

extern "C" CUresult cuMipmappedArrayGetMemoryRequirements(
	CUDA_ARRAY_MEMORY_REQUIREMENTS *memoryRequirements, CUmipmappedArray mipmap,
	CUdevice device) noexcept
{
	return guard([&]() -> CUresult {
		(void)device;
		if (CUresult r = check_init())
			return r;
		return memory_requirements(memoryRequirements, mipmap, true);
	});
}

extern "C" CUresult cuMipmappedArrayGetSparseProperties(
	CUDA_ARRAY_SPARSE_PROPERTIES *sparseProperties, CUmipmappedArray mipmap) noexcept
{
	return guard([&]() -> CUresult {
		if (CUresult r = check_init())
			return r;
		return sparse_properties(sparseProperties, mipmap, true);
	});
}

/* The linear copies, with their per-thread-default-stream symbols. */
#define ARRAY_SYNC(name, params, call)						\
extern "C" CUresult name params noexcept					\
{ const bool ptds = false; return guard([&] { return call; }); }		\
extern "C" CUresult name##_ptds params noexcept					\
{ const bool ptds = true; return guard([&] { return call; }); }
#define ARRAY_ASYNC(name, params, call)						\
extern "C" CUresult name params noexcept					\
{ const bool ptds = false; return guard([&] { return call; }); }		\
extern "C" CUresult name##_ptsz params noexcept					\
{ const bool ptds = true; return guard([&] { return call; }); }

ARRAY_SYNC(cuMemcpyHtoA_v2, (CUarray dst, size_t off, const void *src, size_t n),
	   linear_copy(of_array(dst, off), of_ptr(src), n, nullptr, ptds, Mode::sync_copy))
ARRAY_SYNC(cuMemcpyAtoH_v2, (void *dst, CUarray src, size_t off, size_t n),
	   linear_copy(of_ptr(dst), of_array(src, off), n, nullptr, ptds, Mode::sync_copy))
ARRAY_SYNC(cuMemcpyAtoA_v2, (CUarray dst, size_t doff, CUarray src, size_t soff, size_t n),
	   linear_copy(of_array(dst, doff), of_array(src, soff), n, nullptr, ptds,
		       Mode::sync_copy))
ARRAY_SYNC(cuMemcpyDtoA_v2, (CUarray dst, size_t off, CUdeviceptr src, size_t n),
	   linear_copy(of_array(dst, off), of_ptr(src), n, nullptr, ptds, Mode::sync_copy))
ARRAY_SYNC(cuMemcpyAtoD_v2, (CUdeviceptr dst, CUarray src, size_t off, size_t n),
	   linear_copy(of_ptr(dst), of_array(src, off), n, nullptr, ptds, Mode::sync_copy))
ARRAY_ASYNC(cuMemcpyHtoAAsync_v2, (CUarray dst, size_t off, const void *src, size_t n,
				   CUstream h),
	    linear_copy(of_array(dst, off), of_ptr(src), n, h, ptds, Mode::async))
ARRAY_ASYNC(cuMemcpyAtoHAsync_v2, (void *dst, CUarray src, size_t off, size_t n, CUstream h),
	    linear_copy(of_ptr(dst), of_array(src, off), n, h, ptds, Mode::async))

/* The runtime. */

#undef cudaMemcpy2DToArray
#undef cudaMemcpy2DFromArray
#undef cudaMemcpy2DArrayToArray
#undef cudaMemcpyToArray
#undef cudaMemcpyFromArray
#undef cudaMemcpyArrayToArray
#undef cudaMemcpy2DToArrayAsync
#undef cudaMemcpy2DFromArrayAsync
#undef cudaMemcpyToArrayAsync
#undef cudaMemcpyFromArrayAsync

extern "C" struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w,
							      enum cudaChannelFormatKind f) noexcept
{
	return { x, y, z, w, f };
}

extern "C" cudaError_t cudaMalloc3DArray(cudaArray_t *array,
					 const struct cudaChannelFormatDesc *desc,
					 struct cudaExtent extent, unsigned int flags) noexcept
{
	return rt([&]() -> CUresult {
		CUDA_ARRAY3D_DESCRIPTOR d;

		if (!array)
			return CUDA_ERROR_INVALID_VALUE;
		if (CUresult r = rt_descriptor(desc, extent, flags, &d))
			return r;
		return create_array(reinterpret_cast<CUarray *>(array), &d);
	});
}

extern "C" cudaError_t cudaMallocArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
				       size_t width, size_t height, unsigned int flags) noexcept
{
	return rt([&]() -> CUresult {
		CUDA_ARRAY3D_DESCRIPTOR d;

		if (!array)
			return CUDA_ERROR_INVALID_VALUE;
		if (CUresult r = rt_descriptor(desc, { width, height, 0 }, flags, &d))
			return r;
		return create_array(reinterpret_cast<CUarray *>(array), &d);
	});
}

extern "C" cudaError_t cudaMallocMipmappedArray(cudaMipmappedArray_t *mipmappedArray,
						const struct cudaChannelFormatDesc *desc,
						struct cudaExtent extent, unsigned int numLevels,
						unsigned int flags) noexcept
{
	return rt([&]() -> CUresult {
		CUDA_ARRAY3D_DESCRIPTOR d;

		if (!mipmappedArray)
			return CUDA_ERROR_INVALID_VALUE;
		if (CUresult r = rt_descriptor(desc, extent, flags, &d))
			return r;
		return create_mipmap(reinterpret_cast<CUmipmappedArray *>(mipmappedArray), &d,
				     numLevels);
	});
}

extern "C" cudaError_t cudaFreeArray(cudaArray_t array) noexcept
{
	return rt([&]() -> CUresult {
		if (!array)	/* "arr.null.free" */
			return CUDA_SUCCESS;
		return destroy_array(cu(array));
	});
}

extern "C" cudaError_t cudaFreeMipmappedArray(cudaMipmappedArray_t mipmappedArray) noexcept
{
	return rt([&]() -> CUresult {
		if (!mipmappedArray)	/* "arr.null.freemip" */
			return CUDA_SUCCESS;
		return destroy_mipmap(reinterpret_cast<CUmipmappedArray>(mipmappedArray));
	});
}

extern "C" cudaError_t cudaArrayGetInfo(struct cudaChannelFormatDesc *desc,
					struct cudaExtent *extent, unsigned int *flags,
					cudaArray_t array) noexcept
{
	return rt([&]() -> CUresult {
		Layout l;

		if (CUresult r = layout_of_handle(array, &l))
			return r;
		/* every output is optional ("arr.null.getinfo.*") */
		if (desc)
			*desc = channel_desc(l.format, l.channels);
		if (extent)
			*extent = { l.width, l.height, l.depth };
		if (flags)
			*flags = l.flags;
		return CUDA_SUCCESS;
	});
}

extern "C" cudaError_t cudaArrayGetPlane(cudaArray_t *pPlaneArray, cudaArray_t hArray,
					 unsigned int planeIdx) noexcept
{
	return rt([&] {
		return array_plane(reinterpret_cast<CUarray *>(pPlaneArray), hArray, planeIdx);
	});
}

extern "C" cudaError_t cudaGetMipmappedArrayLevel(cudaArray_t *levelArray,
						  cudaMipmappedArray_const_t mipmappedArray,
						  unsigned int level) noexcept
{
	return rt([&] {
		return mipmap_level(reinterpret_cast<CUarray *>(levelArray), mipmappedArray, level);
	});
}

extern "C" cudaError_t cudaArrayGetMemoryRequirements(
	struct cudaArrayMemoryRequirements *memoryRequirements, cudaArray_t array,
	int device) noexcept
{
	return rt([&]() -> CUresult {
		(void)device;
		return memory_requirements(memoryRequirements, array, false);
	});
}

extern "C" cudaError_t cudaMipmappedArrayGetMemoryRequirements(
	struct cudaArrayMemoryRequirements *memoryRequirements, cudaMipmappedArray_t mipmap,
	int device) noexcept
{
	return rt([&]() -> CUresult {
		(void)device;
		return memory_requirements(memoryRequirements, mipmap, true);
	});
}

extern "C" cudaError_t cudaArrayGetSparseProperties(
	struct cudaArraySparseProperties *sparseProperties, cudaArray_t array) noexcept
{
	return rt([&]() -> CUresult {
		return sparse_properties(sparseProperties, array, false);
	});
}

extern "C" cudaError_t cudaMipmappedArrayGetSparseProperties(
	struct cudaArraySparseProperties *sparseProperties, cudaMipmappedArray_t mipmap) noexcept
{
	return rt([&]() -> CUresult {
		return sparse_properties(sparseProperties, mipmap, true);
	});
}

/* Each name and its per-thread symbol (_ptds synchronous, _ptsz async). */
#define RT_ARRAY(name, suffix, params, call)					\
extern "C" cudaError_t name params noexcept					\
{ const bool ptds = false; return rt([&] { return call; }); }			\
extern "C" cudaError_t name##suffix params noexcept				\
{ const bool ptds = true; return rt([&] { return call; }); }

RT_ARRAY(cudaMemcpy2DToArray, _ptds,
	 (cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t spitch,
	  size_t width, size_t height, enum cudaMemcpyKind kind),
	 rt_copy_2d(of_array(dst, wOffset, hOffset), of_ptr(src, spitch), width, height, kind,
		    nullptr, ptds, false))
RT_ARRAY(cudaMemcpy2DToArrayAsync, _ptsz,
	 (cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t spitch,
	  size_t width, size_t height, enum cudaMemcpyKind kind, cudaStream_t stream),
	 rt_copy_2d(of_array(dst, wOffset, hOffset), of_ptr(src, spitch), width, height, kind,
		    stream, ptds, true))
RT_ARRAY(cudaMemcpy2DFromArray, _ptds,
	 (void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset, size_t hOffset,
	  size_t width, size_t height, enum cudaMemcpyKind kind),
	 rt_copy_2d(of_ptr(dst, dpitch), of_array(src, wOffset, hOffset), width, height, kind,
		    nullptr, ptds, false))
RT_ARRAY(cudaMemcpy2DFromArrayAsync, _ptsz,
	 (void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset, size_t hOffset,
	  size_t width, size_t height, enum cudaMemcpyKind kind, cudaStream_t stream),
	 rt_copy_2d(of_ptr(dst, dpitch), of_array(src, wOffset, hOffset), width, height, kind,
		    stream, ptds, true))
RT_ARRAY(cudaMemcpy2DArrayToArray, _ptds,
	 (cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst, cudaArray_const_t src,
	  size_t wOffsetSrc, size_t hOffsetSrc, size_t width, size_t height,
	  enum cudaMemcpyKind kind),
	 rt_copy_2d(of_array(dst, wOffsetDst, hOffsetDst), of_array(src, wOffsetSrc, hOffsetSrc),
		    width, height, kind, nullptr, ptds, false))
RT_ARRAY(cudaMemcpyToArray, _ptds,
	 (cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t count,
	  enum cudaMemcpyKind kind),
	 rt_copy_linear(of_array(dst, wOffset, hOffset), of_ptr(src), count, kind, nullptr, ptds,
			false))
RT_ARRAY(cudaMemcpyToArrayAsync, _ptsz,
	 (cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t count,
	  enum cudaMemcpyKind kind, cudaStream_t stream),
	 rt_copy_linear(of_array(dst, wOffset, hOffset), of_ptr(src), count, kind, stream, ptds,
			true))
RT_ARRAY(cudaMemcpyFromArray, _ptds,
	 (void *dst, cudaArray_const_t src, size_t wOffset, size_t hOffset, size_t count,
	  enum cudaMemcpyKind kind),
	 rt_copy_linear(of_ptr(dst), of_array(src, wOffset, hOffset), count, kind, nullptr, ptds,
			false))
RT_ARRAY(cudaMemcpyFromArrayAsync, _ptsz,
	 (void *dst, cudaArray_const_t src, size_t wOffset, size_t hOffset, size_t count,
	  enum cudaMemcpyKind kind, cudaStream_t stream),
	 rt_copy_linear(of_ptr(dst), of_array(src, wOffset, hOffset), count, kind, stream, ptds,
			true))
RT_ARRAY(cudaMemcpyArrayToArray, _ptds,
	 (cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst, cudaArray_const_t src,
	  size_t wOffsetSrc, size_t hOffsetSrc, size_t count, enum cudaMemcpyKind kind),
	 rt_copy_linear(of_array(dst, wOffsetDst, hOffsetDst), of_array(src, wOffsetSrc,
									  hOffsetSrc),
			count, kind, nullptr, ptds, false))
