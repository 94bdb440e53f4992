/* SPDX-License-Identifier: MIT */
/*
 * array.h - what a CUDA array is inside libuvm: its layout, its storage
 * (an allocation, a deferred mapping, or sparse tiles), and the tables of
 * live arrays.  Shared by array.cpp (arrays, plain storage, copies) and
 * sparse.cpp (sparse and deferred-mapping arrays, cuMemMapArrayAsync).
 *
 * Locking: everything here is MemoryRegistry::mu's; what holds a TilePool
 * is also VmmRegistry::mu's (memory.h, vmm.h): the callers hold both, one
 * DomainLock.
 */
#ifndef LIBUVM_ARRAY_H
#define LIBUVM_ARRAY_H

#include <memory>
#include <unordered_map>
#include <vector>

#include "common.h"
#include "context.h"
#include "copy.h"
#include "device.h"
#include "memory.h"
#include "vmm.h"

namespace uvm {

/* The unit of sparse and deferred mappings: a tile, a page of a mip tail. */
constexpr uint64_t kTileBytes = 65536;

/**
 * struct Layout - what an array is and where its bytes are.
 */
struct Layout {
	CUarray_format format = CU_AD_FORMAT_UNSIGNED_INT8;
	unsigned int channels = 1;
	uint64_t width = 0, height = 0, depth = 0;	/* as described (texels) */
	unsigned int flags = 0;
	uint64_t elem = 1;		/* bytes per element */
	uint64_t block = 1;		/* texels per element side: 4 compressed */
	uint64_t cols = 0, rows = 0, slices = 0;	/* elements, at least 1 */
	uint64_t offset = 0;		/* of the first byte in the storage */

	/* No overflow: layout_of()'s limits keep an array below 2^46 bytes. */
	uint64_t pitch() const { return cols * elem; }
	uint64_t slice_pitch() const { return pitch() * rows; }
	uint64_t bytes() const { return slice_pitch() * slices; }
	/* Layers or cubemap faces: the slices are no depth. */
	bool layered() const { return flags & (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_CUBEMAP); }
	bool is3d() const { return depth && !layered(); }
	bool sparse() const { return flags & CUDA_ARRAY3D_SPARSE; }
	bool deferred() const { return flags & CUDA_ARRAY3D_DEFERRED_MAPPING; }
};

/** struct TileRef - 64 KiB of a tile pool backing a tile, or nothing. */
struct TileRef {
	std::shared_ptr<TilePool> pool;
	uint64_t offset = 0;

	explicit operator bool() const { return static_cast<bool>(pool); }
	uint64_t addr() const { return pool->va + offset; }
};

/**
 * struct Sparse - the tiles of a sparse array or mipmapped array
 *
 * A level before @tail_first is a grid of tiles of @tw x @th x @td elements
 * (64 KiB each, rows of @tw elements one after the other inside the tile);
 * a layer of a layered array has its own grid.  The levels from @tail_first
 * on are the mip tail: @tail_size bytes per layer, or one tail for every
 * layer (@single_tail), mapped in pages of 64 KiB; each tail level lies in
 * it as an array lies in its storage (rows, then slices), at @tail_off.
 * Only what is mapped takes memory here: a sparse array may have millions
 * of tiles.
 */
struct Sparse {
	uint64_t tw = 1, th = 1, td = 1;	/* tile extent, elements */
	unsigned int levels = 1;
	unsigned int tail_first = 1;		/* levels: no tail */
	uint64_t tail_size = 0;			/* bytes of one tail */
	bool single_tail = false;
	uint64_t regions = 1;			/* tails: 1 or the layers */
	std::vector<uint64_t> first;		/* per level: its first tile */
	std::vector<uint64_t> nx, ny, nz;	/* per level: tiles in x, y, z */
	std::vector<uint64_t> tail_off;		/* per level: offset in the tail */
	/* What is mapped, by index: tiles (level, layer, z, y, x) and tail
	 * pages (region, page); a tile that is not here is not mapped. */
	std::unordered_map<uint64_t, TileRef> tiles;
	std::unordered_map<uint64_t, TileRef> tail;
};

/**
 * struct Storage - where the bytes of an array or mipmapped array are
 *
 * A plain one owns an allocation (@base).  A deferred-mapping one is mapped
 * whole (@mapped: its bytes laid out as a plain one's) or not at all; a
 * sparse one has @sparse.
 */
struct Storage {
	uint64_t base = 0;		/* plain: the allocation */
	TileRef mapped;			/* deferred: the memory mapped */
	uint64_t required = 0;		/* deferred: cuArrayGetMemoryRequirements */
	std::unique_ptr<Sparse> sparse;
};

struct Mipmap;

/**
 * struct Array - a CUDA array, a plane of one, or a level of a mipmapped
 * array.  Planes and levels share their owner's storage and go with it.
 */
struct Array {
	Layout l;
	Context *ctx = nullptr;
	Storage st;			/* a created array's */
	Array *owner = nullptr;		/* a plane: its array */
	Mipmap *mipmap = nullptr;	/* a level: its mipmapped array */
	unsigned int level = 0;		/* a level: which */
	std::vector<std::unique_ptr<Array>> planes;	/* NV12: luma, chroma */
};

/** struct Mipmap - a mipmapped array: its levels in one storage. */
struct Mipmap {
	Layout l;			/* level 0 */
	Context *ctx = nullptr;
	Storage st;
	std::vector<std::unique_ptr<Array>> levels;
};

/* The arrays and mipmapped arrays the library made. */
struct ArrayTables {
	std::unordered_map<Array *, std::unique_ptr<Array>> arrays;	/* created */
	std::unordered_map<Array *, Array *> all;	/* created, planes, levels */
	std::unordered_map<Mipmap *, std::unique_ptr<Mipmap>> mipmaps;
};

ArrayTables &array_tables();
/* A live array or mipmapped array, or nullptr. */
Array *find_array(const void *h);
Mipmap *find_mipmap(const void *h);

/* The storage an array's bytes are in (its own, its owner's, its
 * mipmapped array's). */
inline Storage &storage_of(Array *a)
{
	return a->mipmap ? a->mipmap->st : a->owner ? a->owner->st : a->st;
}

/* The layout of mipmap level @n of @l0 (its storage follows @offset). */
Layout level_layout(const Layout &l0, unsigned int n, uint64_t offset);

/* sparse.cpp */

/* Lay out a sparse array or mipmapped array (@levels levels of @l0). */
std::unique_ptr<Sparse> sparse_layout(const Layout &l0, unsigned int levels);
/* The memory a deferred-mapping array of @levels levels of @l0 needs. */
uint64_t deferred_requirement(const Layout &l0, unsigned int levels);
/* Sparse arrays cannot be cubemaps; the other checks are layout_of()'s. */
CUresult sparse_check(const Layout &l);
/* A zero-filled tile of device memory for @ctx: unmapped tiles read as it. */
CUresult make_zero_tile(Context *ctx);
void forget_zero_tile(Context *ctx);
/* cuArrayGetMemoryRequirements, cuArrayGetSparseProperties and their
 * mipmapped and runtime forms (the structures agree). */
CUresult memory_requirements(CUDA_ARRAY_MEMORY_REQUIREMENTS *out, const void *h, bool mipmap);
CUresult sparse_properties(CUDA_ARRAY_SPARSE_PROPERTIES *out, const void *h, bool mipmap);

/* The runtime's structures are the driver's. */
inline CUresult memory_requirements(struct cudaArrayMemoryRequirements *out, const void *h,
				    bool mipmap)
{
	return memory_requirements(reinterpret_cast<CUDA_ARRAY_MEMORY_REQUIREMENTS *>(out), h,
				   mipmap);
}

inline CUresult sparse_properties(struct cudaArraySparseProperties *out, const void *h,
				  bool mipmap)
{
	return sparse_properties(reinterpret_cast<CUDA_ARRAY_SPARSE_PROPERTIES *>(out), h,
				 mipmap);
}

/*
 * tiled_side() - the side of a copy in a sparse level, resolved later
 * (tiled_pieces()): @side records the array and the box's corner.
 */
void tiled_side(Array *a, uint64_t x, uint64_t y, uint64_t z, BoxSide *side);

} // namespace uvm

#endif /* LIBUVM_ARRAY_H */
