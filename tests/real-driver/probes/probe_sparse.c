// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * probe_sparse - sparse and deferred-mapping CUDA arrays through the driver
 * API: the tile shapes, mip tails and memory requirements of many shapes
 * and formats, and cuMemMapArrayAsync with the data checked - which memory
 * of a tile pool the tiles of an extent take, copies that span mapped and
 * unmapped tiles, edges, layers, 3D tiles, mip tails, deferred-mapping
 * arrays mapped whole, and the requests NVIDIA's driver refuses.
 *
 *   probe_sparse              runs every section, each in a process of its own
 *   probe_sparse case NAME    runs one section
 *
 * Data checks read a box back and print "written" (the pattern the probe
 * wrote there), "zero" (all bytes 0), "other", or "tile(i)" (the pattern
 * the probe wrote through tile i of another mapping).
 */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "probe.h"
#include "sparse_map.h"

static const char *argv0;
static CUcontext ctx;
static CUstream st;

static void setup(void)
{
	MUST(cuInit(0));
	MUST(cuDevicePrimaryCtxRetain(&ctx, 0));
	MUST(cuCtxSetCurrent(ctx));
	MUST(cuStreamCreate(&st, 0));
}

static void child(const char *name)
{
	probe_case(argv0, fk("sp.%s.exit", name), name, NULL, -1);
}

static CUmipmappedArray mkmip(size_t w, size_t h, size_t d, CUarray_format f, unsigned int ch,
			      unsigned int flags, unsigned int levels, CUresult *rp)
{
	CUDA_ARRAY3D_DESCRIPTOR ad;
	CUmipmappedArray m = NULL;
	CUresult r;

	memset(&ad, 0, sizeof(ad));
	ad.Width = w;
	ad.Height = h;
	ad.Depth = d;
	ad.Format = f;
	ad.NumChannels = ch;
	ad.Flags = flags;
	r = cuMipmappedArrayCreate(&m, &ad, levels);
	if (rp)
		*rp = r;
	return r == CUDA_SUCCESS ? m : NULL;
}

/* A tile pool (or, with usage 0, ordinary VMM memory) of @size bytes. */
static CUmemGenericAllocationHandle pool(size_t size, int usage)
{
	CUmemAllocationProp p;
	CUmemGenericAllocationHandle h = 0;

	memset(&p, 0, sizeof(p));
	p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	p.location.id = 0;
	p.allocFlags.usage = (unsigned short)usage;
	MUST(cuMemCreate(&h, size, &p, 0));
	return h;
}

/* ------------------------------------------------------------------ */
/* Data: the byte at (x bytes, y, z) of what the probe writes with @seed. */

static unsigned char pat(unsigned int seed, size_t x, size_t y, size_t z)
{
	return (unsigned char)(seed * 131 + x * 7 + y * 13 + z * 29 + (x >> 8) * 3 + 1);
}

struct box {
	size_t x, y, z;		/* x in bytes */
	size_t w, h, d;		/* w in bytes */
};

/* Copy a box between host memory and @a (a level or an array). */
static CUresult box_copy(CUarray a, const struct box *b, unsigned char *host, int to_array)
{
	CUDA_MEMCPY3D c;

	memset(&c, 0, sizeof(c));
	c.WidthInBytes = b->w;
	c.Height = b->h;
	c.Depth = b->d;
	if (to_array) {
		c.srcMemoryType = CU_MEMORYTYPE_HOST;
		c.srcHost = host;
		c.srcPitch = b->w;
		c.srcHeight = b->h;
		c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
		c.dstArray = a;
		c.dstXInBytes = b->x;
		c.dstY = b->y;
		c.dstZ = b->z;
	} else {
		c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
		c.srcArray = a;
		c.srcXInBytes = b->x;
		c.srcY = b->y;
		c.srcZ = b->z;
		c.dstMemoryType = CU_MEMORYTYPE_HOST;
		c.dstHost = host;
		c.dstPitch = b->w;
		c.dstHeight = b->h;
	}
	return cuMemcpy3D(&c);
}

/* Write the pattern @seed into a box; the result line "KEY.write". */
static void put(const char *key, CUarray a, struct box b, unsigned int seed)
{
	size_t n = b.w * b.h * b.d;
	unsigned char *buf = malloc(n);

	for (size_t z = 0; z < b.d; z++)
		for (size_t y = 0; y < b.h; y++)
			for (size_t x = 0; x < b.w; x++)
				buf[(z * b.h + y) * b.w + x] = pat(seed, b.x + x, b.y + y, b.z + z);
	PR(fk("%s.write", key), box_copy(a, &b, buf, 1));
	free(buf);
}

/*
 * Read a box back: "written" if it holds pattern @seed, "zero", "other";
 * with @alt, "alt" if it holds pattern @seed at the box @alt instead.
 */
static void get(const char *key, CUarray a, struct box b, unsigned int seed,
		const struct box *alt)
{
	size_t n = b.w * b.h * b.d;
	unsigned char *buf = malloc(n);
	int same = 1, zero = 1, other = 1;
	CUresult r;

	memset(buf, 0x5a, n);
	r = box_copy(a, &b, buf, 0);
	if (r != CUDA_SUCCESS) {
		probe_res(fk("%s.read", key), r);
		free(buf);
		return;
	}
	for (size_t z = 0; z < b.d; z++)
		for (size_t y = 0; y < b.h; y++)
			for (size_t x = 0; x < b.w; x++) {
				unsigned char v = buf[(z * b.h + y) * b.w + x];

				same &= v == pat(seed, b.x + x, b.y + y, b.z + z);
				zero &= !v;
				if (alt)
					other &= v == pat(seed, alt->x + x, alt->y + y,
							  alt->z + z);
			}
	probe_line(fk("%s.data", key), "%s", same ? "written" : zero ? "zero" :
		   alt && other ? "alt" : "other");
	free(buf);
}

static struct box bx(size_t x, size_t y, size_t z, size_t w, size_t h, size_t d)
{
	struct box b = { x, y, z, w, h, d };

	return b;
}

static void map1(const char *key, CUarrayMapInfo m)
{
	CUresult r = cuMemMapArrayAsync(&m, 1, st);

	if (r == CUDA_SUCCESS)
		r = cuStreamSynchronize(st);
	probe_res(key, r);
}

/* ------------------------------------------------------------------ */
/* Tile shapes, mip tails, memory requirements of many shapes. */

static const struct shape {
	const char *name;
	size_t w, h, d;
	CUarray_format f;
	unsigned int ch, flags, levels;	/* levels 0: a plain array */
} shapes[] = {
	{ "u8x4.64x32", 64, 32, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0, 0 },
	{ "u8x4.128x128", 128, 128, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0, 0 },
	{ "u8x4.129x128", 129, 128, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0, 0 },
	{ "u8x4.128x127", 128, 127, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0, 0 },
	{ "u8x4.300x200", 300, 200, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0, 0 },
	{ "u8x4.4096x64", 4096, 64, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0, 0 },
	{ "u8x4.64x4096", 64, 4096, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0, 0 },
	{ "u8x4.1000x1000", 1000, 1000, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0, 0 },
	{ "u8x1.300x300", 300, 300, 0, CU_AD_FORMAT_UNSIGNED_INT8, 1, 0, 0 },
	{ "u8x2.512x512", 512, 512, 0, CU_AD_FORMAT_UNSIGNED_INT8, 2, 0, 0 },
	{ "u16x4.512x512", 512, 512, 0, CU_AD_FORMAT_UNSIGNED_INT16, 4, 0, 0 },
	{ "f32x4.512x512", 512, 512, 0, CU_AD_FORMAT_FLOAT, 4, 0, 0 },
	{ "bc1.1024x1024", 1024, 1024, 0, CU_AD_FORMAT_BC1_UNORM, 4, 0, 0 },
	{ "bc7.1024x1024", 1024, 1024, 0, CU_AD_FORMAT_BC7_UNORM, 4, 0, 0 },
	{ "u8x4.3d.64x64x64", 64, 64, 64, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0, 0 },
	{ "u8x4.3d.100x50x20", 100, 50, 20, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0, 0 },
	{ "u8x4.3d.16x8x4", 16, 8, 4, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0, 0 },
	{ "u8x1.3d.128x128x64", 128, 128, 64, CU_AD_FORMAT_UNSIGNED_INT8, 1, 0, 0 },
	{ "u8x2.3d.64x64x64", 64, 64, 64, CU_AD_FORMAT_UNSIGNED_INT8, 2, 0, 0 },
	{ "u16x4.3d.64x64x64", 64, 64, 64, CU_AD_FORMAT_UNSIGNED_INT16, 4, 0, 0 },
	{ "f32x4.3d.64x64x64", 64, 64, 64, CU_AD_FORMAT_FLOAT, 4, 0, 0 },
	{ "u8x4.layered.64x32x4", 64, 32, 4, CU_AD_FORMAT_UNSIGNED_INT8, 4,
	  CUDA_ARRAY3D_LAYERED, 0 },
	{ "u8x4.layered.300x200x3", 300, 200, 3, CU_AD_FORMAT_UNSIGNED_INT8, 4,
	  CUDA_ARRAY3D_LAYERED, 0 },
	{ "u8x4.cubemap.256", 256, 256, 6, CU_AD_FORMAT_UNSIGNED_INT8, 4,
	  CUDA_ARRAY3D_CUBEMAP, 0 },
	{ "mip.u8x4.1024x1024.l11", 1024, 1024, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0, 11 },
	{ "mip.u8x4.1024x1024.l3", 1024, 1024, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0, 3 },
	{ "mip.u8x4.1024x1024.l5", 1024, 1024, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0, 5 },
	{ "mip.u8x4.64x32.l7", 64, 32, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0, 7 },
	{ "mip.u8x4.300x200.l9", 300, 200, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0, 9 },
	{ "mip.u8x4.4096x64.l13", 4096, 64, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0, 13 },
	{ "mip.u8x1.2048x2048.l12", 2048, 2048, 0, CU_AD_FORMAT_UNSIGNED_INT8, 1, 0, 12 },
	{ "mip.f32x4.512x512.l10", 512, 512, 0, CU_AD_FORMAT_FLOAT, 4, 0, 10 },
	{ "mip.u8x4.3d.256x256x256.l9", 256, 256, 256, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0, 9 },
	{ "mip.u8x4.layered.1024x1024x4.l11", 1024, 1024, 4, CU_AD_FORMAT_UNSIGNED_INT8, 4,
	  CUDA_ARRAY3D_LAYERED, 11 },
	{ "mip.u8x4.layered.256x256x3.l9", 256, 256, 3, CU_AD_FORMAT_UNSIGNED_INT8, 4,
	  CUDA_ARRAY3D_LAYERED, 9 },
	{ "mip.u8x4.cubemap.256.l9", 256, 256, 6, CU_AD_FORMAT_UNSIGNED_INT8, 4,
	  CUDA_ARRAY3D_CUBEMAP, 9 },
};

static void props_line(const char *key, CUresult r, const CUDA_ARRAY_SPARSE_PROPERTIES *p)
{
	if (r != CUDA_SUCCESS) {
		probe_res(key, r);
		return;
	}
	probe_line(key, "tile=%u,%u,%u miptailFirstLevel=%u miptailSize=%llu flags=0x%x",
		   p->tileExtent.width, p->tileExtent.height, p->tileExtent.depth,
		   p->miptailFirstLevel, p->miptailSize, p->flags);
}

static void req_line(const char *key, CUresult r, const CUDA_ARRAY_MEMORY_REQUIREMENTS *m)
{
	if (r != CUDA_SUCCESS) {
		probe_res(key, r);
		return;
	}
	probe_line(key, "size=%zu alignment=%zu", m->size, m->alignment);
}

static void s_shapes(void)
{
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		const struct shape *s = &shapes[i];
		CUDA_ARRAY_SPARSE_PROPERTIES p;
		CUDA_ARRAY_MEMORY_REQUIREMENTS m;
		CUresult r;

		for (int deferred = 0; deferred < 2; deferred++) {
			unsigned int fl = s->flags | (deferred ? CUDA_ARRAY3D_DEFERRED_MAPPING :
							       CUDA_ARRAY3D_SPARSE);
			const char *k = fk("sp.shape.%s.%s", s->name, deferred ? "deferred" :
					   "sparse");

			memset(&p, 0, sizeof(p));
			memset(&m, 0, sizeof(m));
			if (s->levels) {
				CUmipmappedArray mm = mkmip(s->w, s->h, s->d, s->f, s->ch, fl,
							    s->levels, &r);

				probe_res(k, r);
				if (!mm)
					continue;
				if (deferred)
					req_line(fk("%s.memreq", k),
						 cuMipmappedArrayGetMemoryRequirements(&m, mm, 0),
						 &m);
				else
					props_line(fk("%s.props", k),
						   cuMipmappedArrayGetSparseProperties(&p, mm), &p);
				cuMipmappedArrayDestroy(mm);
			} else {
				CUarray a = mk3(s->w, s->h, s->d, s->f, s->ch, fl, &r);

				probe_res(k, r);
				if (!a)
					continue;
				if (deferred)
					req_line(fk("%s.memreq", k),
						 cuArrayGetMemoryRequirements(&m, a, 0), &m);
				else
					props_line(fk("%s.props", k),
						   cuArrayGetSparseProperties(&p, a), &p);
				cuArrayDestroy(a);
			}
		}
	}
}

/* ------------------------------------------------------------------ */
/* 2D tiles: which pool memory an extent's tiles take, spans, edges. */

static void s_tiles2d(void)
{
	CUmemGenericAllocationHandle h = pool(4 << 20, CU_MEM_CREATE_USAGE_TILE_POOL);
	CUarray a = mk3(1024, 1024, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, CUDA_ARRAY3D_SPARSE, NULL);
	CUarray e = mk3(300, 200, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, CUDA_ARRAY3D_SPARSE, NULL);
	const size_t T = 512;	/* a tile's row: 128 elements of 4 bytes */

	if (!a || !e) {
		probe_line("sp.t2.create", "failed");
		return;
	}
	/* 2x2 tiles at (0,0) from pool offset 0, each tile written */
	map1("sp.t2.map2x2", lvl(a, 0, 0, 0, 0, 256, 256, 1, h, 0));
	put("sp.t2.2x2", a, bx(0, 0, 0, 2 * T, 256, 1), 1);
	get("sp.t2.2x2", a, bx(0, 0, 0, 2 * T, 256, 1), 1, NULL);
	/* the pool's first four tiles one by one at (512..640, 0): which
	 * tile of the 2x2 extent each holds */
	for (unsigned int i = 0; i < 4; i++) {
		const char *k = fk("sp.t2.pooltile%u", i);

		map1(fk("%s.map", k), lvl(a, 0, 512, 0, 0, 128, 128, 1, h, i * 65536ULL));
		for (unsigned int t = 0; t < 4; t++) {
			struct box b = bx((t % 2) * T, (t / 2) * 128, 0, T, 128, 1);

			get(fk("%s.as%u", k, t), a, bx(4 * T, 0, 0, T, 128, 1), 1, &b);
		}
	}
	/* a box over a mapped and an unmapped tile, written then read */
	put("sp.t2.span", a, bx(T + 256, 0, 0, T, 128, 1), 2);
	get("sp.t2.span.mapped_half", a, bx(T + 256, 0, 0, 256, 128, 1), 2, NULL);
	get("sp.t2.span.unmapped_half", a, bx(2 * T, 0, 0, 256, 128, 1), 2, NULL);
	get("sp.t2.span.whole", a, bx(T + 256, 0, 0, T, 128, 1), 2, NULL);
	/* a box inside one tile */
	put("sp.t2.inner", a, bx(100, 10, 0, 40, 5, 1), 3);
	get("sp.t2.inner", a, bx(100, 10, 0, 40, 5, 1), 3, NULL);
	/* unmap one tile of the 2x2, map it back at the same pool memory */
	map1("sp.t2.unmap1", lvl(a, 0, 128, 128, 0, 128, 128, 1, 0, 0));
	get("sp.t2.unmap1.tile3", a, bx(T, 128, 0, T, 128, 1), 1, NULL);
	get("sp.t2.unmap1.tile0", a, bx(0, 0, 0, 256, 128, 1), 1, NULL);
	map1("sp.t2.remap1", lvl(a, 0, 128, 128, 0, 128, 128, 1, h, 3 * 65536ULL));
	get("sp.t2.remap1.tile3", a, bx(T, 128, 0, T, 128, 1), 1, NULL);
	/* unmap a region with unmapped tiles in it */
	map1("sp.t2.unmap_region", lvl(a, 0, 0, 0, 0, 1024, 1024, 1, 0, 0));
	get("sp.t2.unmap_region.tile0", a, bx(0, 0, 0, T, 128, 1), 1, NULL);
	/* extents: to the edge of a 300x200 array, past it, zero */
	map1("sp.t2.edge.exact", lvl(e, 0, 256, 128, 0, 44, 72, 1, h, 0));
	map1("sp.t2.edge.tile", lvl(e, 0, 256, 128, 0, 128, 128, 1, h, 0));
	map1("sp.t2.edge.past", lvl(e, 0, 256, 128, 0, 256, 128, 1, h, 0));
	map1("sp.t2.edge.offset_past", lvl(e, 0, 384, 0, 0, 128, 128, 1, h, 0));
	map1("sp.t2.edge.width0", lvl(e, 0, 0, 0, 0, 0, 128, 1, h, 0));
	map1("sp.t2.edge.partial_inner", lvl(e, 0, 0, 0, 0, 44, 128, 1, h, 0));
	map1("sp.t2.edge.layer1", lvl(e, 1, 0, 0, 0, 128, 128, 1, h, 0));
	map1("sp.t2.edge.z1", lvl(e, 0, 0, 0, 1, 128, 128, 1, h, 0));
	map1("sp.t2.map.whole", lvl(e, 0, 0, 0, 0, 300, 200, 1, h, 65536));
	put("sp.t2.edge.data", e, bx(0, 0, 0, 1200, 200, 1), 4);
	get("sp.t2.edge.data", e, bx(0, 0, 0, 1200, 200, 1), 4, NULL);
	/* pool too small for the extent: the last tile past its end */
	map1("sp.t2.pool_end", lvl(a, 0, 0, 0, 0, 256, 128, 1, h, (4 << 20) - 65536));
	/* ordinary VMM memory mapped with cuMemMap: a tile pool can't be */
	{
		CUdeviceptr va = 0;

		MUST(cuMemAddressReserve(&va, 4 << 20, 0, 0, 0));
		PR("sp.t2.cumemmap_tile_pool", cuMemMap(va, 4 << 20, 0, h, 0));
		cuMemUnmap(va, 4 << 20);
		cuMemAddressFree(va, 4 << 20);
	}
	/* a batch: a map and an unmap of the same tile, then a bad entry */
	{
		CUarrayMapInfo m[3] = { lvl(a, 0, 0, 0, 0, 128, 128, 1, h, 0),
					lvl(a, 0, 0, 0, 0, 128, 128, 1, 0, 0),
					lvl(a, 0, 128, 0, 0, 128, 128, 1, h, 0) };

		PR("sp.t2.batch.map_unmap", cuMemMapArrayAsync(m, 2, st));
		cuStreamSynchronize(st);
		get("sp.t2.batch.map_unmap.tile0", a, bx(0, 0, 0, T, 128, 1), 1, NULL);
		m[1] = lvl(a, 0, 1, 0, 0, 128, 128, 1, h, 0);
		PR("sp.t2.batch.bad_second", cuMemMapArrayAsync(m + 1, 2, st));
		cuStreamSynchronize(st);
		get("sp.t2.batch.bad_second.tile1", a, bx(T, 0, 0, T, 128, 1), 1, NULL);
		m[0] = lvl(a, 0, 128, 0, 0, 128, 128, 1, h, 65536);
		m[1] = lvl(a, 0, 1, 0, 0, 128, 128, 1, h, 0);
		PR("sp.t2.batch.bad_last", cuMemMapArrayAsync(m, 2, st));
		cuStreamSynchronize(st);
		get("sp.t2.batch.bad_last.tile1", a, bx(T, 0, 0, T, 128, 1), 1, NULL);
	}
	PR("sp.t2.destroy", cuArrayDestroy(a));
	PR("sp.t2.destroy_edge", cuArrayDestroy(e));
	PR("sp.t2.release", cuMemRelease(h));
}

/* ------------------------------------------------------------------ */
/* 3D tiles and layers. */

static void s_tiles3d(void)
{
	CUmemGenericAllocationHandle h = pool(2 << 20, CU_MEM_CREATE_USAGE_TILE_POOL);
	CUarray a = mk3(64, 64, 64, CU_AD_FORMAT_UNSIGNED_INT8, 4, CUDA_ARRAY3D_SPARSE, NULL);
	CUarray l = mk3(256, 256, 4, CU_AD_FORMAT_UNSIGNED_INT8, 4,
			CUDA_ARRAY3D_SPARSE | CUDA_ARRAY3D_LAYERED, NULL);

	if (!a || !l) {
		probe_line("sp.t3.create", "failed");
		return;
	}
	/* 3D: tiles of 32x32x16 */
	map1("sp.t3.map", lvl(a, 0, 32, 0, 16, 32, 32, 16, h, 0));
	put("sp.t3.span", a, bx(64, 0, 8, 128, 32, 16), 5);
	get("sp.t3.span.mapped", a, bx(128, 0, 16, 64, 32, 8), 5, NULL);
	get("sp.t3.span.unmapped_z", a, bx(128, 0, 8, 64, 32, 8), 5, NULL);
	get("sp.t3.span.unmapped_x", a, bx(64, 0, 16, 64, 32, 8), 5, NULL);
	map1("sp.t3.map.z8", lvl(a, 0, 0, 0, 8, 32, 32, 16, h, 0));
	map1("sp.t3.map.depth8", lvl(a, 0, 0, 0, 0, 32, 32, 8, h, 0));
	map1("sp.t3.map.depth1", lvl(a, 0, 0, 0, 0, 32, 32, 1, h, 0));
	map1("sp.t3.map.layer1", lvl(a, 1, 0, 0, 0, 32, 32, 16, h, 0));
	map1("sp.t3.map.all", lvl(a, 0, 0, 0, 0, 64, 64, 64, h, 0));
	put("sp.t3.all", a, bx(0, 0, 0, 256, 64, 64), 6);
	get("sp.t3.all", a, bx(0, 0, 0, 256, 64, 64), 6, NULL);
	/* the pool's first tile as tile (1,0,2) of the 2x2x4 array? */
	map1("sp.t3.pooltile1", lvl(a, 0, 0, 0, 0, 32, 32, 16, h, 65536));
	{
		struct box b = bx(128, 0, 0, 128, 32, 16);

		get("sp.t3.pooltile1.as_x1", a, bx(0, 0, 0, 128, 32, 16), 6, &b);
	}
	/* layered: a tile of layer 2, layer 4 does not exist */
	map1("sp.t3.layer2", lvl(l, 2, 128, 0, 0, 128, 128, 1, h, 0));
	put("sp.t3.layer2", l, bx(512, 0, 1, 512, 128, 2), 7);
	get("sp.t3.layer2.mapped", l, bx(512, 0, 2, 512, 128, 1), 7, NULL);
	get("sp.t3.layer2.layer1", l, bx(512, 0, 1, 512, 128, 1), 7, NULL);
	map1("sp.t3.layer4", lvl(l, 4, 0, 0, 0, 128, 128, 1, h, 0));
	map1("sp.t3.layered_z1", lvl(l, 0, 0, 0, 1, 128, 128, 1, h, 0));
	map1("sp.t3.layered_depth2", lvl(l, 0, 0, 0, 0, 128, 128, 2, h, 0));
	PR("sp.t3.destroy", cuArrayDestroy(a));
	PR("sp.t3.destroy_layered", cuArrayDestroy(l));
	PR("sp.t3.release", cuMemRelease(h));
}

/* ------------------------------------------------------------------ */
/* Mip tails. */

static void s_miptail(void)
{
	CUmemGenericAllocationHandle h = pool(2 << 20, CU_MEM_CREATE_USAGE_TILE_POOL);
	CUmipmappedArray mm = mkmip(1024, 1024, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4,
				    CUDA_ARRAY3D_SPARSE, 11, NULL);
	CUmipmappedArray ml = mkmip(256, 256, 3, CU_AD_FORMAT_UNSIGNED_INT8, 4,
				    CUDA_ARRAY3D_SPARSE | CUDA_ARRAY3D_LAYERED, 9, NULL);
	CUarray small = mk3(64, 32, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, CUDA_ARRAY3D_SPARSE, NULL);
	CUarray l3 = NULL, l5 = NULL, l10 = NULL, l2 = NULL;

	if (!mm || !ml || !small) {
		probe_line("sp.tail.create", "failed");
		return;
	}
	MUST(cuMipmappedArrayGetLevel(&l3, mm, 3));
	MUST(cuMipmappedArrayGetLevel(&l5, mm, 5));
	MUST(cuMipmappedArrayGetLevel(&l10, mm, 10));
	/* before the tail is mapped */
	put("sp.tail.unmapped.l5", l5, bx(0, 0, 0, 128, 32, 1), 8);
	get("sp.tail.unmapped.l5", l5, bx(0, 0, 0, 128, 32, 1), 8, NULL);
	/* the tail: mapped, then levels 5 and 10 written through it */
	map1("sp.tail.map", tail(mm, NULL, 0, 0, 65536, h, 0));
	put("sp.tail.l5", l5, bx(0, 0, 0, 128, 32, 1), 8);
	put("sp.tail.l10", l10, bx(0, 0, 0, 4, 1, 1), 9);
	get("sp.tail.l5", l5, bx(0, 0, 0, 128, 32, 1), 8, NULL);
	get("sp.tail.l10", l10, bx(0, 0, 0, 4, 1, 1), 9, NULL);
	/* level 3 (128x128: a tile) is no part of the tail */
	put("sp.tail.l3", l3, bx(0, 0, 0, 512, 128, 1), 10);
	get("sp.tail.l3", l3, bx(0, 0, 0, 512, 128, 1), 10, NULL);
	{
		CUarrayMapInfo m = lvl(NULL, 0, 0, 0, 0, 64, 64, 1, h, 0);

		m.resourceType = CU_RESOURCE_TYPE_MIPMAPPED_ARRAY;
		m.resource.mipmap = mm;
		m.subresource.sparseLevel.level = 4;
		map1("sp.tail.map.level4_tile", m);
		m.subresource.sparseLevel.level = 3;
		m.subresource.sparseLevel.extentWidth = 128;
		m.subresource.sparseLevel.extentHeight = 128;
		m.offset = 65536;
		map1("sp.tail.map.level3_tile", m);
		m.subresource.sparseLevel.level = 11;
		map1("sp.tail.map.level11", m);
	}
	put("sp.tail.l3.mapped", l3, bx(0, 0, 0, 512, 128, 1), 10);
	get("sp.tail.l3.mapped", l3, bx(0, 0, 0, 512, 128, 1), 10, NULL);
	get("sp.tail.l5.after_l3", l5, bx(0, 0, 0, 128, 32, 1), 8, NULL);
	map1("sp.tail.map.size0", tail(mm, NULL, 0, 0, 0, h, 0));
	map1("sp.tail.map.offset64k", tail(mm, NULL, 0, 65536, 65536, h, 0));
	map1("sp.tail.map.layer1", tail(mm, NULL, 1, 0, 65536, h, 0));
	map1("sp.tail.unmap", tail(mm, NULL, 0, 0, 65536, 0, 0));
	get("sp.tail.unmap.l5", l5, bx(0, 0, 0, 128, 32, 1), 8, NULL);
	map1("sp.tail.remap_at_64k", tail(mm, NULL, 0, 0, 65536, h, 65536));
	get("sp.tail.remap_at_64k.l5", l5, bx(0, 0, 0, 128, 32, 1), 8, NULL);
	/* a small array that is all tail */
	map1("sp.tail.small.level", lvl(small, 0, 0, 0, 0, 64, 32, 1, h, 0));
	map1("sp.tail.small.map", tail(NULL, small, 0, 0, 65536, h, 131072));
	put("sp.tail.small", small, bx(0, 0, 0, 256, 32, 1), 11);
	get("sp.tail.small", small, bx(0, 0, 0, 256, 32, 1), 11, NULL);
	/* layered mipmapped: a tail per layer, or one */
	MUST(cuMipmappedArrayGetLevel(&l2, ml, 2));
	{
		CUDA_ARRAY_SPARSE_PROPERTIES p;

		memset(&p, 0, sizeof(p));
		props_line("sp.tail.layered.props", cuMipmappedArrayGetSparseProperties(&p, ml),
			   &p);
		map1("sp.tail.layered.map_layer1", tail(ml, NULL, 1, 0, 65536, h, 196608));
		map1("sp.tail.layered.map_layer3", tail(ml, NULL, 3, 0, 65536, h, 196608));
		map1("sp.tail.layered.map_all", tail(ml, NULL, 0, 0, p.miptailSize, h, 262144));
	}
	put("sp.tail.layered.l2", l2, bx(0, 0, 0, 256, 64, 3), 12);
	get("sp.tail.layered.l2.layer1", l2, bx(0, 0, 1, 256, 64, 1), 12, NULL);
	get("sp.tail.layered.l2.layer0", l2, bx(0, 0, 0, 256, 64, 1), 12, NULL);
	get("sp.tail.layered.l2.layer2", l2, bx(0, 0, 2, 256, 64, 1), 12, NULL);
	PR("sp.tail.destroy", cuMipmappedArrayDestroy(mm));
	PR("sp.tail.destroy_layered", cuMipmappedArrayDestroy(ml));
	PR("sp.tail.destroy_small", cuArrayDestroy(small));
	PR("sp.tail.release", cuMemRelease(h));
}

/* ------------------------------------------------------------------ */
/* Deferred-mapping arrays: mapped whole. */

static void s_deferred(void)
{
	CUmemGenericAllocationHandle h = pool(2 << 20, CU_MEM_CREATE_USAGE_TILE_POOL);
	CUmemGenericAllocationHandle plain = pool(2 << 20, 0);
	CUarray a = mk3(64, 32, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4,
			CUDA_ARRAY3D_DEFERRED_MAPPING, NULL);
	CUarray big = mk3(1024, 1024, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4,
			  CUDA_ARRAY3D_DEFERRED_MAPPING, NULL);
	CUarray b3 = mk3(64, 64, 16, CU_AD_FORMAT_UNSIGNED_INT8, 4,
			 CUDA_ARRAY3D_DEFERRED_MAPPING, NULL);
	CUmipmappedArray mm = mkmip(256, 256, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4,
				    CUDA_ARRAY3D_DEFERRED_MAPPING, 9, NULL);
	CUarrayMapInfo m;
	CUarray l1 = NULL;

	if (!a || !big || !b3 || !mm) {
		probe_line("sp.def.create", "failed");
		return;
	}
	m = lvl(a, 0, 0, 0, 0, 0, 0, 0, h, 0);
	map1("sp.def.map", m);
	put("sp.def.mapped", a, bx(0, 0, 0, 256, 32, 1), 13);
	get("sp.def.mapped", a, bx(0, 0, 0, 256, 32, 1), 13, NULL);
	map1("sp.def.map.again", m);
	m = lvl(a, 0, 0, 0, 0, 0, 0, 0, h, 65536);
	map1("sp.def.map.elsewhere", m);
	get("sp.def.map.elsewhere", a, bx(0, 0, 0, 256, 32, 1), 13, NULL);
	m = lvl(a, 0, 0, 0, 0, 0, 0, 0, h, 0);
	map1("sp.def.map.back", m);
	get("sp.def.map.back", a, bx(0, 0, 0, 256, 32, 1), 13, NULL);
	m = lvl(a, 3, 7, 9, 11, 13, 17, 19, h, 0);
	m.subresource.sparseLevel.level = 5;
	map1("sp.def.map.subresource_garbage", m);
	m = lvl(a, 0, 0, 0, 0, 0, 0, 0, h, 0);
	m.subresourceType = CU_ARRAY_SPARSE_SUBRESOURCE_TYPE_MIPTAIL;
	map1("sp.def.map.as_miptail", m);
	m.subresourceType = (CUarraySparseSubresourceType)5;
	map1("sp.def.map.subtype5", m);
	m = lvl(a, 0, 0, 0, 0, 0, 0, 0, h, 4096);
	map1("sp.def.map.offset4096", m);
	m = lvl(a, 0, 0, 0, 0, 0, 0, 0, h, (2 << 20) - 65536);
	map1("sp.def.map.last_tile", m);
	m = lvl(a, 0, 0, 0, 0, 0, 0, 0, h, 2 << 20);
	map1("sp.def.map.pool_end", m);
	m = lvl(a, 0, 0, 0, 0, 0, 0, 0, plain, 0);
	map1("sp.def.map.not_tile_pool", m);
	m = lvl(big, 0, 0, 0, 0, 0, 0, 0, h, 0);
	map1("sp.def.big.pool_too_small", m);
	m = lvl(b3, 0, 0, 0, 0, 0, 0, 0, h, 0);
	map1("sp.def.3d.map", m);
	put("sp.def.3d", b3, bx(0, 0, 0, 256, 64, 16), 14);
	get("sp.def.3d", b3, bx(0, 0, 0, 256, 64, 16), 14, NULL);
	/* unmap */
	m = lvl(a, 0, 0, 0, 0, 0, 0, 0, 0, 0);
	map1("sp.def.unmap", m);
	map1("sp.def.unmap.again", m);
	/* mipmapped: mapped whole through the mipmapped array */
	MUST(cuMipmappedArrayGetLevel(&l1, mm, 1));
	m = lvl(NULL, 0, 0, 0, 0, 0, 0, 0, h, 0);
	m.resourceType = CU_RESOURCE_TYPE_MIPMAPPED_ARRAY;
	m.resource.mipmap = mm;
	map1("sp.def.mip.map", m);
	put("sp.def.mip.l1", l1, bx(0, 0, 0, 512, 128, 1), 15);
	get("sp.def.mip.l1", l1, bx(0, 0, 0, 512, 128, 1), 15, NULL);
	m = lvl(l1, 0, 0, 0, 0, 0, 0, 0, h, 0);
	map1("sp.def.mip.level_as_array", m);
	/* the pool released while mapped; the array destroyed while mapped */
	PR("sp.def.release_while_mapped", cuMemRelease(h));
	get("sp.def.after_release", l1, bx(0, 0, 0, 512, 128, 1), 15, NULL);
	PR("sp.def.destroy", cuArrayDestroy(a));
	PR("sp.def.destroy_big", cuArrayDestroy(big));
	PR("sp.def.destroy_3d", cuArrayDestroy(b3));
	PR("sp.def.destroy_mip", cuMipmappedArrayDestroy(mm));
	PR("sp.def.release_plain", cuMemRelease(plain));
}

/*
 * A deferred-mapping array touched while nothing is mapped (NVIDIA's
 * driver faults: the context is lost), before and after a mapping.
 */
static void s_deferred_unmapped(void)
{
	CUarray a = mk3(64, 32, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4,
			CUDA_ARRAY3D_DEFERRED_MAPPING, NULL);

	if (!a) {
		probe_line("sp.defu.create", "failed");
		return;
	}
	put("sp.defu.never_mapped", a, bx(0, 0, 0, 256, 32, 1), 13);
	PR("sp.defu.never_mapped.sync", cuCtxSynchronize());
	get("sp.defu.never_mapped", a, bx(0, 0, 0, 256, 32, 1), 13, NULL);
}

static void s_deferred_after_unmap(void)
{
	CUmemGenericAllocationHandle h = pool(2 << 20, CU_MEM_CREATE_USAGE_TILE_POOL);
	CUarray a = mk3(64, 32, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4,
			CUDA_ARRAY3D_DEFERRED_MAPPING, NULL);

	if (!a) {
		probe_line("sp.defa.create", "failed");
		return;
	}
	map1("sp.defa.map", lvl(a, 0, 0, 0, 0, 0, 0, 0, h, 0));
	put("sp.defa.mapped", a, bx(0, 0, 0, 256, 32, 1), 13);
	map1("sp.defa.unmap", lvl(a, 0, 0, 0, 0, 0, 0, 0, 0, 0));
	get("sp.defa.unmapped", a, bx(0, 0, 0, 256, 32, 1), 13, NULL);
}

/* Tile pools: where they may be, what their properties say. */
static void s_pools(void)
{
	static const struct {
		const char *name;
		CUmemLocationType type;
		int usage;
	} c[] = {
		{ "device", CU_MEM_LOCATION_TYPE_DEVICE, CU_MEM_CREATE_USAGE_TILE_POOL },
		{ "host", CU_MEM_LOCATION_TYPE_HOST, CU_MEM_CREATE_USAGE_TILE_POOL },
		{ "host_numa", CU_MEM_LOCATION_TYPE_HOST_NUMA, CU_MEM_CREATE_USAGE_TILE_POOL },
		{ "device.usage0x8000", CU_MEM_LOCATION_TYPE_DEVICE, 0x8000 },
		{ "device.usage0x8001", CU_MEM_LOCATION_TYPE_DEVICE, 0x8001 },
	};
	CUarray a = mk3(1024, 1024, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, CUDA_ARRAY3D_SPARSE, NULL);

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		const char *k = fk("sp.pool.%s", c[i].name);
		CUmemAllocationProp p, q;
		CUmemGenericAllocationHandle h = 0;
		CUresult r;

		memset(&p, 0, sizeof(p));
		p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
		p.location.type = c[i].type;
		p.location.id = 0;
		p.allocFlags.usage = (unsigned short)c[i].usage;
		r = cuMemCreate(&h, 2 << 20, &p, 0);
		probe_res(k, r);
		if (r != CUDA_SUCCESS)
			continue;
		memset(&q, 0, sizeof(q));
		PR(fk("%s.props", k), cuMemGetAllocationPropertiesFromHandle(&q, h));
		probe_line(fk("%s.props.usage", k), "%u", q.allocFlags.usage);
		if (a) {
			map1(fk("%s.map", k), lvl(a, 0, 0, 0, 0, 128, 128, 1, h, 0));
			map1(fk("%s.unmap", k), lvl(a, 0, 0, 0, 0, 128, 128, 1, 0, 0));
		}
		PR(fk("%s.release", k), cuMemRelease(h));
	}
	if (a)
		cuArrayDestroy(a);
}

/* ------------------------------------------------------------------ */

static const struct {
	const char *name;
	void (*fn)(void);
} cases[] = {
	{ "shapes", s_shapes },
	{ "tiles2d", s_tiles2d },
	{ "tiles3d", s_tiles3d },
	{ "miptail", s_miptail },
	{ "deferred", s_deferred },
	{ "deferred_unmapped", s_deferred_unmapped },
	{ "deferred_after_unmap", s_deferred_after_unmap },
	{ "pools", s_pools },
};

int main(int argc, char **argv)
{
	argv0 = argv[0];
	if (argc >= 3 && !strcmp(argv[1], "case")) {
		alarm(120);
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
