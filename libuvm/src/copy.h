// SPDX-License-Identifier: MIT
/*
 * copy.h - copies and sets as boxes (copy.cpp, batch.cpp, pitched.cpp), the
 * sides of a box in CUDA arrays (array.cpp, sparse.cpp) and the runtime's
 * forms.
 *
 * Locking: box_execute() and batch_execute() take a DomainLock of every
 * domain (a copy resolves its stream, its allocations, its reservations and
 * sparse tiles) and drop it to wait; the helpers marked "domains held" run
 * under it.
 */
#ifndef LIBUVM_COPY_H
#define LIBUVM_COPY_H

#include <vector>

#include "common.h"

namespace uvm {

struct Context;

/*
 * Copies and sets (copy.cpp).  Every copy and set is a box: @depth slices of
 * @height rows of @width bytes (elements of @elem bytes for a set), placed on
 * each side by its pitch (bytes from a row to the next) and slice pitch; a
 * 1D copy is one row.  box_execute() validates it as NVIDIA's driver does,
 * queues it (one driver job per box, UVM_IOC_COPY_3D) and waits where CUDA
 * says a call waits.
 */
enum class Role {
	any,	/* the host side of cuMemcpyHtoD/DtoH, both sides of cuMemcpy */
	device,	/* memory a GPU can use */
};

enum class Mode {
	sync_copy,	/* cuMemcpy, cuMemcpy2D, ... */
	sync_set,	/* cuMemsetD8, cuMemsetD2D8, ... */
	async,		/* the Async forms */
};

struct BoxSide {
	uint64_t addr = 0;
	uint64_t pitch = 0;
	uint64_t slice_pitch = 0;
	uint64_t extent = 0;	/* bytes from addr that must be in the allocation,
				 * where more than the rows (a 3D call's whole
				 * last slice) */
	Role role = Role::device;
	/* A sparse array's level (array.h): the box's corner in it, x in
	 * bytes; addr and the pitches come per tile (tiled_pieces()). */
	const void *tiled = nullptr;
	uint64_t x = 0, y = 0, z = 0;
};

/*
 * A 3D call's extent of a pointer side: @depth - 1 slice pitches, then the
 * rows of the last slice in whole pitches from its first byte (none for a
 * slice of one row).  False when it does not fit in 64 bits.
 */
inline bool extent_3d(uint64_t depth, uint64_t slice_pitch, uint64_t height, uint64_t pitch,
		      uint64_t *extent)
{
	uint64_t slices, rows;

	return !__builtin_mul_overflow(depth - 1, slice_pitch, &slices) &&
	       !__builtin_mul_overflow(height > 1 ? height : 0, pitch, &rows) &&
	       !__builtin_add_overflow(slices, rows, extent);
}

struct BoxRequest {
	bool is_set = false;
	BoxSide dst, src;
	uint64_t width = 0;		/* bytes, or elements of a set */
	uint64_t height = 1, depth = 1;
	uint32_t value = 0, elem = 1;	/* sets */
};

CUresult box_execute(const BoxRequest &req, CUstream h, bool ptds, Mode mode);

/* One copy of a batch (batch.cpp): its box, and whether its source must be
 * read before the call returns (CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL). */
struct BatchCopy {
	BoxRequest box;
	bool read_at_call = false;
};

CUresult batch_execute(const std::vector<BatchCopy> &copies, CUstream h, bool ptds);

/*
 * tiled_pieces() - a copy with a side in a sparse array, as copies of
 * whole memory: one per tile (or page of a mip tail) of each sparse side.
 * A piece reading a tile nothing is mapped at reads zeros; one writing it
 * is dropped (NVIDIA's: "sp.t2.span.*").  the DomainLock of
 * every domain held (sparse.cpp).
 */
CUresult tiled_pieces(const BoxRequest &req, std::vector<BatchCopy> *out);

/* Copies and sets (copy.cpp) for the runtime: kind is a cudaMemcpyKind;
 * an unknown one answers cudaErrorInvalidMemcpyDirection's number. */
CUresult runtime_memcpy(void *dst, const void *src, size_t count, int kind, CUstream h,
			bool ptds, bool async);
CUresult runtime_memset(void *dst, int value, size_t count, CUstream h, bool ptds, bool async);
/* The roles a cudaMemcpyKind gives the two sides. */
CUresult memcpy_kind_roles(int kind, Role *dr, Role *sr);

/* Pitched memory, 2D/3D copies and sets (pitched.cpp) for the runtime. */
CUresult alloc_pitched(CUdeviceptr *dptr, size_t *pitch, size_t width, size_t rows);
CUresult runtime_copy_box(BoxRequest q, int kind, CUstream h, bool ptds, bool async);
CUresult runtime_set_box(BoxRequest q, int value, CUstream h, bool ptds, bool async);

/* CUDA arrays (array.cpp).  array_side(): the side of a copy in an array,
 * the box of width bytes x height rows x depth slices at (x bytes, y, z),
 * which must lie in the array (CUDA_ERROR_INVALID_VALUE), the array live
 * (CUDA_ERROR_INVALID_HANDLE).  array_element_size(): bytes per element.
 * Both take MemoryRegistry::mu; release_context_arrays() runs under the
 * DomainLock of context_release_resources(). */
CUresult array_side(CUarray a, uint64_t x, uint64_t y, uint64_t z, uint64_t width,
		    uint64_t height, uint64_t depth, BoxSide *side);
CUresult array_element_size(CUarray a, uint64_t *elem);
/* The runtime's kind of a copy with an array side: CUDA_SUCCESS, or
 * cudaErrorInvalidMemcpyDirection's number where it names the array host
 * memory. */
CUresult array_copy_kind(int kind, bool dst_array, bool src_array);
void release_context_arrays(Context *ctx);

} // namespace uvm

#endif /* LIBUVM_COPY_H */
