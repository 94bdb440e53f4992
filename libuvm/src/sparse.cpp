// SPDX-License-Identifier: MIT
/*
 * sparse.cpp - sparse and deferred-mapping CUDA arrays: their tiles, mip
 * tails and memory requirements, cuMemMapArrayAsync, and the copies of
 * sparse arrays split per tile.
 *
 * Memory.  Both kinds have no memory of their own: cuMemMapArrayAsync maps
 * 64 KiB pieces of tile pools (cuMemCreate with
 * CU_MEM_CREATE_USAGE_TILE_POOL) into them.  libuvm reaches a pool through
 * a mapping of its own (struct TilePool, vmm.cpp) and keeps, per array,
 * which pool memory backs which tile; the GPU's page tables are not
 * involved, since only copies reach an array here.
 *
 *  - A deferred-mapping array is mapped whole: its bytes are laid out as a
 *    plain array's (array.cpp) from the pool offset on.  It needs what
 *    cuArrayGetMemoryRequirements says, computed as NVIDIA's driver lays the
 *    array out (below).  A copy while nothing is mapped is refused with
 *    CUDA_ERROR_INVALID_VALUE; NVIDIA's GPU faults and the context is lost
 *    ("sp.defu.*").
 *  - A sparse array's levels are grids of tiles (NVIDIA's tile shapes: 64
 *    KiB, "sp.shape.*.props"); the levels smaller than a tile form the mip
 *    tail, mapped in 64 KiB pages of its bytes.  A copy becomes one piece
 *    per tile or tail page it touches (tiled_pieces()), queued as one
 *    batch; a tile with nothing mapped reads zeros and drops what is
 *    written to it ("sp.t2.span.*", "sp.tail.unmapped.*").
 *
 * cuMemMapArrayAsync validates every entry before it changes anything
 * ("sp.t2.batch.bad_*"), then applies them in order.  It is ordered after
 * all work queued before it (it waits for it), so that no queued copy
 * reaches memory it unmaps.
 *
 * Memory requirements and mip-tail sizes follow NVIDIA's block-linear
 * layout: rows padded to 64 bytes, rows to a block height of 1 to 16 GOBs
 * of 8 rows, depth to a power of two up to 16, the levels before the tail
 * one after the other, the tail rounded to 64 KiB.  This gives NVIDIA's
 * answer for every shape of probe_sparse but two (3D 100x50x20, layered
 * mipmapped 1024x1024x4: tests/real-driver/differences.txt).
 */
#include <algorithm>
#include <cerrno>

#include "array.h"

namespace uvm {
namespace {

/* Tile extents (elements) of 64 KiB tiles by element size: 1, 2, 4, 8, 16
 * bytes ("sp.shape.*.props"). */
struct TileShape {
	uint64_t w, h, d;
};

const TileShape kTiles2D[] = { { 256, 256, 1 }, { 256, 128, 1 }, { 128, 128, 1 },
			       { 128, 64, 1 }, { 64, 64, 1 } };
const TileShape kTiles3D[] = { { 64, 32, 32 }, { 32, 32, 32 }, { 32, 32, 16 },
			       { 32, 16, 16 }, { 16, 16, 16 } };

TileShape tile_shape(const Layout &l)
{
	unsigned int i = 0;

	while (i < 4 && (1ULL << i) < l.elem)
		i++;
	return l.is3d() ? kTiles3D[i] : kTiles2D[i];
}

uint64_t pow2_at_least(uint64_t v)
{
	uint64_t p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

/* Bytes of one layer of level @l in NVIDIA's block-linear layout. */
uint64_t block_linear_bytes(const Layout &l)
{
	const uint64_t width = round_up(l.pitch(), 64);
	const uint64_t gobs = std::min<uint64_t>(16, pow2_at_least((l.rows + 7) / 8));
	const uint64_t rows = round_up(l.rows, 8 * gobs);
	const uint64_t depth = l.is3d() ? l.slices : 1;
	const uint64_t slab = std::min<uint64_t>(16, pow2_at_least(depth));

	return width * rows * round_up(depth, slab);
}

uint64_t layers_of(const Layout &l)
{
	return l.layered() ? l.slices : 1;
}

/* The first level smaller than a tile in some dimension, or @levels. */
unsigned int first_tail_level(const Layout &l0, unsigned int levels, const TileShape &t)
{
	for (unsigned int n = 0; n < levels; n++) {
		const Layout l = level_layout(l0, n, 0);

		if (l.cols < t.w || l.rows < t.h || (l.is3d() && l.slices < t.d))
			return n;
	}
	return levels;
}

/* The zero-filled tiles unmapped tiles read as, one per context. */
std::unordered_map<Context *, uint64_t> &zero_tiles()
{
	static auto *z = new std::unordered_map<Context *, uint64_t>;

	return *z;
}

/* A side moved by (@dx bytes, @dy rows, @dz slices); what must lie in its
 * allocation still ends where it ended. */
void move_side(BoxSide *s, uint64_t dx, uint64_t dy, uint64_t dz)
{
	if (s->tiled) {
		s->x += dx;
		s->y += dy;
		s->z += dz;
		return;
	}
	const uint64_t by = dz * s->slice_pitch + dy * s->pitch + dx;

	s->addr += by;
	s->extent = s->extent > by ? s->extent - by : 0;
}

/**
 * struct Splitter - cuts one copy at the tiles of its sparse side
 * @q:		the copy
 * @src:	the sparse side is the source (else the destination)
 * @zero:	device memory of zeros, a tile of it, for unmapped tiles read
 * @out:	the pieces
 */
struct Splitter {
	const BoxRequest &q;
	bool src;
	uint64_t zero;
	std::vector<BoxRequest> *out;

	const BoxSide &side() const { return src ? q.src : q.dst; }

	/*
	 * The piece at (@dx, @dy, @dz) from the copy's corner, @w bytes x @h
	 * rows x @d slices, of sparse memory at @addr with @pitch and
	 * @slice_pitch (@addr 0: nothing mapped there).
	 */
	void piece(uint64_t dx, uint64_t dy, uint64_t dz, uint64_t w, uint64_t h, uint64_t d,
		   uint64_t addr, uint64_t pitch, uint64_t slice_pitch)
	{
		if (!addr && !src)
			return;		/* written to no memory: dropped */
		BoxRequest p = q;
		BoxSide &mine = src ? p.src : p.dst, &other = src ? p.dst : p.src;

		move_side(&other, dx, dy, dz);
		mine.tiled = nullptr;
		mine.extent = 0;
		if (addr) {
			mine.addr = addr;
			mine.pitch = pitch;
			mine.slice_pitch = slice_pitch;
		} else {		/* read from no memory: zeros */
			mine.addr = zero;
			mine.pitch = w;
			mine.slice_pitch = w * h;
		}
		p.width = w;
		p.height = h;
		p.depth = d;
		out->push_back(p);
	}

	void tiles(const Array *a, const Sparse &sp);
	void tail(const Array *a, const Sparse &sp);
};

/* A level of tiles: one piece per tile (per layer of a layered array). */
void Splitter::tiles(const Array *a, const Sparse &sp)
{
	const Layout &l = a->l;
	const unsigned int n = a->level;
	const BoxSide &s = side();
	const uint64_t tb = sp.tw * l.elem, th = sp.th;
	const bool is3d = l.is3d();
	const uint64_t td = is3d ? sp.td : 1;
	const uint64_t x1 = s.x + q.width, y1 = s.y + q.height, z1 = s.z + q.depth;

	for (uint64_t z = s.z; z < z1;) {
		/* a layer, or a slab of tiles in depth */
		const uint64_t layer = is3d ? 0 : z, kz = is3d ? z / td : 0;
		const uint64_t ze = is3d ? std::min(z1, (kz + 1) * td) : z + 1;
		const uint64_t tz = is3d ? z - kz * td : 0;

		for (uint64_t y = s.y; y < y1;) {
			const uint64_t ky = y / th, ye = std::min(y1, (ky + 1) * th);

			for (uint64_t x = s.x; x < x1;) {
				const uint64_t kx = x / tb, xe = std::min(x1, (kx + 1) * tb);
				const uint64_t idx = sp.first[n] +
					((layer * sp.nz[n] + kz) * sp.ny[n] + ky) * sp.nx[n] + kx;
				auto it = sp.tiles.find(idx);
				uint64_t addr = 0;

				if (it != sp.tiles.end())
					addr = it->second.addr() +
					       (tz * th + (y - ky * th)) * tb + (x - kx * tb);
				piece(x - s.x, y - s.y, z - s.z, xe - x, ye - y, ze - z, addr, tb,
				      tb * th);
				x = xe;
			}
			y = ye;
		}
		z = ze;
	}
}

/* A level in the mip tail: its rows, cut at the tail's 64 KiB pages;
 * rows that lie whole in one page go together. */
void Splitter::tail(const Array *a, const Sparse &sp)
{
	const Layout &l = a->l;
	const BoxSide &s = side();
	const bool per_layer = !sp.single_tail && l.layered();
	const uint64_t pages = sp.tail_size / kTileBytes;

	for (uint64_t z = s.z; z < s.z + q.depth; z++) {
		const uint64_t region = per_layer ? z : 0;
		const uint64_t base = sp.tail_off[a->level] + (per_layer ? 0 : z * l.slice_pitch());
		/* the piece being gathered: rows [y0, y) at addr */
		uint64_t y0 = 0, rows = 0, addr = 0, page = ~0ULL;

		auto flush = [&]() {
			if (rows)
				piece(0, y0 - s.y, z - s.z, q.width, rows, 1, addr, l.pitch(), 0);
			rows = 0;
		};
		for (uint64_t y = s.y; y < s.y + q.height; y++) {
			const uint64_t off = base + y * l.pitch() + s.x, end = off + q.width;

			if (off / kTileBytes == (end - 1) / kTileBytes) {
				const uint64_t pg = off / kTileBytes;
				auto it = sp.tail.find(region * pages + pg);
				const uint64_t at = it == sp.tail.end() ? 0 :
						    it->second.addr() + off % kTileBytes;

				if (rows && pg == page && !at == !addr)
					rows++;
				else {
					flush();
					y0 = y;
					rows = 1;
					page = pg;
					addr = at;
				}
				continue;
			}
			flush();
			page = ~0ULL;
			for (uint64_t b = off; b < end;) {
				const uint64_t pg = b / kTileBytes;
				const uint64_t e = std::min(end, (pg + 1) * kTileBytes);
				auto it = sp.tail.find(region * pages + pg);
				const uint64_t at = it == sp.tail.end() ? 0 :
						    it->second.addr() + b % kTileBytes;

				piece(b - off, y - s.y, z - s.z, e - b, 1, 1, at, l.pitch(), 0);
				b = e;
			}
		}
		flush();
	}
}

/**
 * struct MapChange - one tile, tail page or deferred mapping to set
 * @slots:	the map it is in (nullptr: @whole)
 * @key:	its index there
 * @whole:	a deferred-mapping array's mapping
 * @to:		the memory; none unmaps
 */
struct MapChange {
	std::unordered_map<uint64_t, TileRef> *slots = nullptr;
	uint64_t key = 0;
	TileRef *whole = nullptr;
	TileRef to;
};

/* Does [@off, @off + @ext) cover whole tiles of @t in a dimension of @n? */
bool tile_range_ok(uint64_t off, uint64_t ext, uint64_t t, uint64_t n)
{
	return ext && off % t == 0 && off < n && ext <= n - off && (ext % t == 0 || off + ext == n);
}

/**
 * check_map() - validate one CUarrayMapInfo and say what it changes
 * @e:		the entry
 * @device:	the stream's device
 * @out:	the changes, in order
 *
 * NVIDIA's rules ("arr.sparse.map.*", "sp.*"): flags and reserved zero;
 * one device bit, the stream's; MAP or UNMAP; a live sparse or
 * deferred-mapping array or mipmapped array of the resource type, not a
 * level; for MAP a generic handle of a tile pool of that device or of host
 * memory ("sp.pool.host.map"), a pool
 * offset in whole tiles and room in the pool; a sparse level's region in
 * whole tiles (or to the level's edge), of a level before the tail, a
 * layer that exists; a tail's offset and size in whole pages, inside the
 * tail of a layer that has one.  A deferred-mapping array ignores the
 * subresource ("sp.def.map.subresource_garbage").
 *
 * Context: the memory and VMM domains held (a DomainLock).
 * Return: CUDA_SUCCESS or CUDA_ERROR_INVALID_VALUE.
 */
CUresult check_map(const CUarrayMapInfo &e, int device, std::vector<MapChange> *out)
{
	const bool map = e.memOperationType == CU_MEM_OPERATION_TYPE_MAP;
	Storage *st = nullptr;
	const Layout *l0 = nullptr;
	Context *ctx = nullptr;
	std::shared_ptr<TilePool> pool;

	if (e.flags || e.reserved[0] || e.reserved[1])
		return CUDA_ERROR_INVALID_VALUE;
	if (!map && e.memOperationType != CU_MEM_OPERATION_TYPE_UNMAP)
		return CUDA_ERROR_INVALID_VALUE;
	if (e.resourceType == CU_RESOURCE_TYPE_ARRAY) {
		Array *a = find_array(e.resource.array);

		if (!a || a->owner || a->mipmap)
			return CUDA_ERROR_INVALID_VALUE;
		st = &a->st;
		l0 = &a->l;
		ctx = a->ctx;
	} else if (e.resourceType == CU_RESOURCE_TYPE_MIPMAPPED_ARRAY) {
		Mipmap *m = find_mipmap(e.resource.mipmap);

		if (!m)
			return CUDA_ERROR_INVALID_VALUE;
		st = &m->st;
		l0 = &m->l;
		ctx = m->ctx;
	} else {
		return CUDA_ERROR_INVALID_VALUE;
	}
	if (!st->sparse && !st->required)
		return CUDA_ERROR_INVALID_VALUE;
	if (e.deviceBitMask != 1u << device || ctx->device != device)
		return CUDA_ERROR_INVALID_VALUE;
	if (map) {
		if (e.memHandleType != CU_MEM_HANDLE_TYPE_GENERIC || e.offset % kTileBytes)
			return CUDA_ERROR_INVALID_VALUE;
		pool = find_tile_pool(e.memHandle.memHandle);
		if (!pool || (pool->device >= 0 && pool->device != device) ||
		    e.offset > pool->size)
			return CUDA_ERROR_INVALID_VALUE;
	} else if (e.memHandle.memHandle) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	const uint64_t room = map ? pool->size - e.offset : ~0ULL;

	if (!st->sparse) {
		if (st->required > room)
			return CUDA_ERROR_INVALID_VALUE;
		MapChange c;

		c.whole = &st->mapped;
		if (map)
			c.to = { pool, e.offset };
		out->push_back(c);
		return CUDA_SUCCESS;
	}

	Sparse &sp = *st->sparse;
	if (e.subresourceType == CU_ARRAY_SPARSE_SUBRESOURCE_TYPE_MIPTAIL) {
		const auto &t = e.subresource.miptail;

		if (sp.tail_first >= sp.levels || t.layer >= sp.regions || !t.size ||
		    t.offset % kTileBytes || t.size % kTileBytes || t.offset > sp.tail_size ||
		    t.size > sp.tail_size - t.offset || t.size > room)
			return CUDA_ERROR_INVALID_VALUE;
		const uint64_t pages = sp.tail_size / kTileBytes;
		for (uint64_t i = 0; i < t.size / kTileBytes; i++) {
			MapChange c;

			c.slots = &sp.tail;
			c.key = t.layer * pages + t.offset / kTileBytes + i;
			if (map)
				c.to = { pool, e.offset + i * kTileBytes };
			out->push_back(c);
		}
		return CUDA_SUCCESS;
	}
	if (e.subresourceType != CU_ARRAY_SPARSE_SUBRESOURCE_TYPE_SPARSE_LEVEL)
		return CUDA_ERROR_INVALID_VALUE;

	const auto &v = e.subresource.sparseLevel;
	if (v.level >= sp.tail_first || v.layer >= layers_of(*l0))
		return CUDA_ERROR_INVALID_VALUE;
	const Layout l = level_layout(*l0, v.level, 0);
	const uint64_t tw = sp.tw * l.block, th = sp.th * l.block;
	const uint64_t td = l.is3d() ? sp.td : 1, depth = l.is3d() ? l.depth : 1;
	if (!tile_range_ok(v.offsetX, v.extentWidth, tw, l.width) ||
	    !tile_range_ok(v.offsetY, v.extentHeight, th, l.height) ||
	    !tile_range_ok(v.offsetZ, v.extentDepth, td, depth))
		return CUDA_ERROR_INVALID_VALUE;
	const uint64_t ex = (v.extentWidth + tw - 1) / tw, ey = (v.extentHeight + th - 1) / th;
	const uint64_t ez = (v.extentDepth + td - 1) / td;
	const uint64_t x0 = v.offsetX / tw, y0 = v.offsetY / th, z0 = v.offsetZ / td;
	const unsigned int n = v.level;
	const uint64_t first = sp.first[n];
	auto key_of = [&](uint64_t x, uint64_t y, uint64_t z) {
		return first + ((v.layer * sp.nz[n] + z) * sp.ny[n] + y) * sp.nx[n] + x;
	};

	if (!map) {
		/*
		 * What is mapped in the region, or will be by the entries
		 * before: bounded by the memory mapped, where the region may
		 * have millions of tiles.
		 */
		auto inside = [&](uint64_t key) {
			if (key < first)
				return false;
			uint64_t i = key - first;
			const uint64_t x = i % sp.nx[n], y = (i /= sp.nx[n]) % sp.ny[n];
			const uint64_t z = (i /= sp.ny[n]) % sp.nz[n], layer = i / sp.nz[n];

			return layer == v.layer && x >= x0 && x < x0 + ex && y >= y0 &&
			       y < y0 + ey && z >= z0 && z < z0 + ez;
		};
		std::vector<uint64_t> keys;

		for (const auto &t : sp.tiles)
			if (inside(t.first))
				keys.push_back(t.first);
		for (const MapChange &c : *out)
			if (c.slots == &sp.tiles && inside(c.key))
				keys.push_back(c.key);
		for (uint64_t key : keys) {
			MapChange c;

			c.slots = &sp.tiles;
			c.key = key;
			out->push_back(c);
		}
		return CUDA_SUCCESS;
	}
	if (ex * ey * ez > room / kTileBytes)
		return CUDA_ERROR_INVALID_VALUE;
	for (uint64_t k = 0; k < ez; k++)
		for (uint64_t j = 0; j < ey; j++)
			for (uint64_t i = 0; i < ex; i++) {
				const uint64_t nth = (k * ey + j) * ex + i;
				MapChange c;

				c.slots = &sp.tiles;
				c.key = key_of(x0 + i, y0 + j, z0 + k);
				c.to = { pool, e.offset + nth * kTileBytes };
				out->push_back(c);
			}
	return CUDA_SUCCESS;
}

/* Validate every entry; the changes of all, in order. */
CUresult check_maps(const CUarrayMapInfo *list, unsigned int count, int device,
		    std::vector<MapChange> *out)
{
	out->clear();
	for (unsigned int i = 0; i < count; i++)
		if (CUresult r = check_map(list[i], device, out))
			return r;
	return CUDA_SUCCESS;
}

CUresult map_array_async(CUarrayMapInfo *list, unsigned int count, CUstream h, bool ptds)
{
	std::vector<MapChange> changes;
	int device;

	if (CUresult r = check_init())
		return r;
	if (!list || !count)
		return CUDA_ERROR_INVALID_VALUE;
	{
		DomainLock lock(kAllDomains);
		Stream *st;

		if (CUresult r = resolve_stream(h, ptds, &st))
			return r;
		device = st->ctx->device;
		if (CUresult r = check_maps(list, count, device, &changes))
			return r;
	}
	/* After everything queued before: no copy in flight uses what changes. */
	wait_all();
	DomainLock lock(kAllDomains);
	/* Arrays and pools may have gone meanwhile: check again. */
	if (CUresult r = check_maps(list, count, device, &changes))
		return r;
	for (MapChange &c : changes) {
		if (c.whole)
			*c.whole = std::move(c.to);
		else if (c.to)
			(*c.slots)[c.key] = std::move(c.to);
		else
			c.slots->erase(c.key);
	}
	return CUDA_SUCCESS;
}

} // namespace

CUresult sparse_check(const Layout &l)
{
	/* "sp.shape.u8x4.cubemap.256.sparse" */
	if (l.sparse() && (l.flags & CUDA_ARRAY3D_CUBEMAP))
		return CUDA_ERROR_INVALID_VALUE;
	return CUDA_SUCCESS;
}

std::unique_ptr<Sparse> sparse_layout(const Layout &l0, unsigned int levels)
{
	auto sp = std::make_unique<Sparse>();
	const TileShape t = tile_shape(l0);
	const uint64_t layers = layers_of(l0);

	sp->tw = t.w;
	sp->th = t.h;
	sp->td = t.d;
	sp->levels = levels;
	sp->tail_first = first_tail_level(l0, levels, t);
	sp->single_tail = sp->tail_first == 0;
	sp->regions = sp->single_tail ? 1 : layers;

	uint64_t tiles = 0, tail = 0, padded = 0;
	for (unsigned int n = 0; n < levels; n++) {
		const Layout l = level_layout(l0, n, 0);
		const bool in_tail = n >= sp->tail_first;

		sp->first.push_back(tiles);
		sp->nx.push_back(in_tail ? 0 : (l.cols + t.w - 1) / t.w);
		sp->ny.push_back(in_tail ? 0 : (l.rows + t.h - 1) / t.h);
		sp->nz.push_back(in_tail ? 0 : l.is3d() ? (l.slices + t.d - 1) / t.d : 1);
		sp->tail_off.push_back(tail);
		if (!in_tail) {
			tiles += sp->nx[n] * sp->ny[n] * sp->nz[n] * layers;
			continue;
		}
		/* one tail: every layer's levels; else a layer's */
		tail += sp->single_tail ? l.bytes() : l.bytes() / layers;
		padded += block_linear_bytes(l) * (sp->single_tail ? layers : 1);
	}
	sp->tail_size = round_up(padded, kTileBytes);
	return sp;
}

uint64_t deferred_requirement(const Layout &l0, unsigned int levels)
{
	const unsigned int tail_first = first_tail_level(l0, levels, tile_shape(l0));
	const uint64_t layers = layers_of(l0);
	uint64_t body = 0, tail = 0;

	for (unsigned int n = 0; n < levels; n++) {
		const uint64_t b = block_linear_bytes(level_layout(l0, n, 0)) * layers;

		(n < tail_first ? body : tail) += b;
	}
	return round_up(body + round_up(tail, kTileBytes), kTileBytes);
}

void tiled_side(Array *a, uint64_t x, uint64_t y, uint64_t z, BoxSide *side)
{
	*side = {};
	side->tiled = a;
	side->x = x;
	side->y = y;
	side->z = z;
	side->role = Role::device;
}

CUresult make_zero_tile(Context *ctx)
{
	auto &z = zero_tiles();
	uint64_t base;

	if (z.count(ctx))
		return CUDA_SUCCESS;
	/* A whole chunk: fresh memory, zero-filled by the driver. */
	if (int r = alloc_device(ctx->device, kChunkSize, ctx, &base))
		return r == -EINVAL ? CUDA_ERROR_OUT_OF_MEMORY : from_errno(r);
	mem_reg().allocations.at(base).internal = true;
	z[ctx] = base;
	return CUDA_SUCCESS;
}

void forget_zero_tile(Context *ctx)
{
	zero_tiles().erase(ctx);
}

CUresult tiled_pieces(const BoxRequest &req, std::vector<BatchCopy> *out)
{
	std::vector<BoxRequest> work{ req }, next;

	for (int src = 0; src < 2; src++) {
		next.clear();
		for (const BoxRequest &q : work) {
			const BoxSide &s = src ? q.src : q.dst;

			if (!s.tiled) {
				next.push_back(q);
				continue;
			}
			Array *a = find_array(s.tiled);
			if (!a || !storage_of(a).sparse)
				return CUDA_ERROR_INVALID_VALUE;
			auto zt = zero_tiles().find(a->ctx);
			if (zt == zero_tiles().end())
				return CUDA_ERROR_INVALID_VALUE;
			const Sparse &sp = *storage_of(a).sparse;
			Splitter cut{ q, src == 1, zt->second, &next };

			if (a->level >= sp.tail_first)
				cut.tail(a, sp);
			else
				cut.tiles(a, sp);
		}
		work.swap(next);
	}
	out->clear();
	for (BoxRequest &q : work)
		out->push_back({ q, false });
	return CUDA_SUCCESS;
}

CUresult memory_requirements(CUDA_ARRAY_MEMORY_REQUIREMENTS *out, const void *h, bool mipmap)
{
	const Storage *st = nullptr;

	if (!out)	/* "arr.null.memreq.out" */
		return CUDA_ERROR_INVALID_VALUE;
	DomainLock lock(kMemoryDomain | kVmmDomain);
	if (mipmap) {
		const Mipmap *m = find_mipmap(h);

		if (!m)
			return CUDA_ERROR_INVALID_HANDLE;
		st = &m->st;
	} else {
		Array *a = find_array(h);

		if (!a)
			return CUDA_ERROR_INVALID_HANDLE;
		st = &storage_of(a);
		if (a->owner || a->mipmap)
			return CUDA_ERROR_INVALID_VALUE;
	}
	/* Deferred-mapping arrays only ("arr.req.plain2d.memreq",
	 * "arr.req.sparse2d.memreq"); any device ("arr.req.deferred2d.memreq.dev-1"). */
	if (!st->required)
		return CUDA_ERROR_INVALID_VALUE;
	*out = {};
	out->size = st->required;
	out->alignment = kTileBytes;
	return CUDA_SUCCESS;
}

CUresult sparse_properties(CUDA_ARRAY_SPARSE_PROPERTIES *out, const void *h, bool mipmap)
{
	const Storage *st = nullptr;
	const Layout *l0 = nullptr;

	if (!out)
		return CUDA_ERROR_INVALID_VALUE;
	DomainLock lock(kMemoryDomain | kVmmDomain);
	if (mipmap) {
		const Mipmap *m = find_mipmap(h);

		if (!m)
			return CUDA_ERROR_INVALID_HANDLE;
		st = &m->st;
		l0 = &m->l;
	} else {
		Array *a = find_array(h);

		if (!a)
			return CUDA_ERROR_INVALID_HANDLE;
		if (a->owner || a->mipmap)
			return CUDA_ERROR_INVALID_VALUE;
		st = &a->st;
		l0 = &a->l;
	}
	/* Sparse arrays only ("arr.req.deferred2d.sparse"). */
	if (!st->sparse)
		return CUDA_ERROR_INVALID_VALUE;
	const Sparse &sp = *st->sparse;
	const bool tail = sp.tail_first < sp.levels;
	*out = {};
	out->tileExtent.width = static_cast<unsigned int>(sp.tw * l0->block);
	out->tileExtent.height = static_cast<unsigned int>(sp.th * l0->block);
	out->tileExtent.depth = static_cast<unsigned int>(sp.td);
	/* No tail: the level count of a mipmapped array, 0 of an array
	 * ("mip.u8x4.1024x1024.l3", "u8x4.128x128"). */
	out->miptailFirstLevel = tail ? sp.tail_first : mipmap ? sp.levels : 0;
	out->miptailSize = tail ? sp.tail_size : 0;
	out->flags = tail && sp.single_tail ? CU_ARRAY_SPARSE_PROPERTIES_SINGLE_MIPTAIL : 0;
	return CUDA_SUCCESS;
}

} // namespace uvm

using namespace uvm;

#undef cuMemMapArrayAsync

extern "C" CUresult cuMemMapArrayAsync(CUarrayMapInfo *mapInfoList, unsigned int count,
				       CUstream hStream) noexcept
{
	return guard([&] { return map_array_async(mapInfoList, count, hStream, false); });
}

extern "C" CUresult cuMemMapArrayAsync_ptsz(CUarrayMapInfo *mapInfoList, unsigned int count,
					    CUstream hStream) noexcept
{
	return guard([&] { return map_array_async(mapInfoList, count, hStream, true); });
}
