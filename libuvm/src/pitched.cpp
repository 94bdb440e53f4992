// SPDX-License-Identifier: MIT
/*
 * pitched.cpp - pitched allocations, 2D and 3D copies and sets, and peer
 * copies of the driver API (cuMemAllocPitch, cuMemcpy2D*, cuMemcpy3D*,
 * cuMemcpyPeer*, cuMemcpy3DPeer*, cuMemsetD2D*), and the helpers the
 * runtime's forms (runtime.cpp) stand on.
 *
 * Every call here becomes one box (copy.cpp): the side's first byte is
 * where the copy starts, (X, Y, Z) into the layout, and its pitch and slice
 * pitch are the layout's; the driver's copy engine walks the rows of the
 * whole box as one job (UVM_IOC_COPY_3D, UVM_IOC_MEMSET_3D).  Memory types:
 * CU_MEMORYTYPE_HOST and CU_MEMORYTYPE_UNIFIED sides may be any memory
 * (unified addressing), CU_MEMORYTYPE_DEVICE sides must be memory a GPU can
 * use, as the 1D forms decide.  A CU_MEMORYTYPE_ARRAY side is (XInBytes, Y,
 * Z) of the array, the box inside it (array.cpp); its pitch fields are
 * ignored ("arr.cu.copy2d.h2a.dstpitch_ignored").
 *
 * Pitch: a pitched allocation's rows are rounded up to kPitchAlignment bytes
 * and its base is aligned to it, which is what NVIDIA's driver hands out.
 */
#include <cerrno>
#include <cstring>

#include "context.h"
#include "copy.h"
#include "device.h"

namespace uvm {
namespace {

/* The row alignment of cuMemAllocPitch, cudaMallocPitch and cudaMalloc3D. */
constexpr uint64_t kPitchAlignment = 512;

/* The largest pitch a copy accepts (CU_DEVICE_ATTRIBUTE_MAX_PITCH). */
constexpr uint64_t kMaxPitch = 2147483647;

/* One side of a CUDA_MEMCPY2D/3D/3D_PEER, as the caller described it. */
struct Desc {
	CUmemorytype type;
	const void *host;
	CUdeviceptr device;
	CUarray array;
	size_t x, y, z, lod;
	size_t pitch, height;
};

/**
 * side_of() - the box side a descriptor names
 * @d:		the descriptor
 * @three_d:	a 3D copy (slices of d.height rows)
 * @out:	the side
 *
 * Return: CUDA_SUCCESS or CUDA_ERROR_INVALID_VALUE.
 */
CUresult side_of(const Desc &d, bool three_d, BoxSide *out)
{
	uint64_t base;

	switch (d.type) {
	case CU_MEMORYTYPE_HOST:
		base = reinterpret_cast<uintptr_t>(d.host);
		out->role = Role::any;
		break;
	case CU_MEMORYTYPE_DEVICE:
		base = d.device;
		out->role = Role::device;
		break;
	case CU_MEMORYTYPE_UNIFIED:
		base = d.device;
		out->role = Role::any;
		break;
	default:	/* CU_MEMORYTYPE_ARRAY: box_of() asks array.cpp */
		return CUDA_ERROR_INVALID_VALUE;
	}
	/* The LOD of linear memory is ignored ("pitch.err.cu3d.srclod1"). */
	uint64_t rows = d.y, off;
	if (three_d && __builtin_mul_overflow(static_cast<uint64_t>(d.z), d.height, &off))
		return CUDA_ERROR_INVALID_VALUE;
	if (three_d && __builtin_add_overflow(rows, off, &rows))
		return CUDA_ERROR_INVALID_VALUE;
	if (__builtin_mul_overflow(rows, static_cast<uint64_t>(d.pitch), &off) ||
	    __builtin_add_overflow(off, static_cast<uint64_t>(d.x), &off) ||
	    __builtin_add_overflow(base, off, &out->addr))
		return CUDA_ERROR_INVALID_VALUE;
	out->pitch = d.pitch;
	out->slice_pitch = static_cast<uint64_t>(d.pitch) * d.height;
	return CUDA_SUCCESS;
}

/*
 * NVIDIA's checks of a side's layout ("pitch.err.cu2d.*", "pitch.err.cu3d.*"):
 * a row within the pitch, a pitch up to the maximum where there are several
 * rows ("pitch_maxpitch1": one row may have any pitch, "maxpitch1_rows2");
 * in 3D a slice height that holds the rows (NVIDIA's driver also takes 0,
 * "sheight0_d2": slices one on the other, which the engine refuses), and
 * from the box's first byte its slices before the last and the last
 * slice's rows in whole pitches lie in the allocation ("cu3d.fits_lastrow":
 * of one slice too; a single row needs only its bytes: "pitch_maxpitch1").
 */
CUresult layout_check(const Desc &d, size_t width, size_t height, size_t depth, bool three_d,
		      BoxSide *side)
{
	if ((height > 1 || depth > 1) && (d.pitch < width || d.pitch > kMaxPitch))
		return CUDA_ERROR_INVALID_VALUE;
	if (d.x + width > d.pitch && (height > 1 || depth > 1 || d.pitch))
		return CUDA_ERROR_INVALID_VALUE;
	if (three_d) {
		if (depth > 1 && d.height < height)
			return CUDA_ERROR_INVALID_VALUE;
		if (!extent_3d(depth, side->slice_pitch, height, d.pitch, &side->extent))
			return CUDA_ERROR_INVALID_VALUE;
	}
	return CUDA_SUCCESS;
}

/*
 * An array side: the box lies in the array, at level 0 ("arr.cu.copy3d.a2a.srclod1");
 * a missing or destroyed array is an invalid value.
 */
CUresult array_side_of(const Desc &d, size_t width, size_t height, size_t depth, BoxSide *out)
{
	if (d.lod)
		return CUDA_ERROR_INVALID_VALUE;
	CUresult r = array_side(d.array, d.x, d.y, d.z, width, height, depth, out);
	return r == CUDA_ERROR_INVALID_HANDLE ? CUDA_ERROR_INVALID_VALUE : r;
}

/* A CUDA_MEMCPY2D/3D request onto a box; the pitches must hold a row. */
CUresult box_of(const Desc &src, const Desc &dst, size_t width, size_t height, size_t depth,
		bool three_d, BoxRequest *q)
{
	const bool sa = src.type == CU_MEMORYTYPE_ARRAY, da = dst.type == CU_MEMORYTYPE_ARRAY;

	if (CUresult r = sa ? array_side_of(src, width, height, depth, &q->src) :
			 side_of(src, three_d, &q->src))
		return r;
	if (CUresult r = da ? array_side_of(dst, width, height, depth, &q->dst) :
			 side_of(dst, three_d, &q->dst))
		return r;
	q->width = width;
	q->height = height;
	q->depth = depth;
	if (!width || !height || !depth)
		return CUDA_SUCCESS;
	if (!sa)
		if (CUresult r = layout_check(src, width, height, depth, three_d, &q->src))
			return r;
	return da ? CUDA_SUCCESS : layout_check(dst, width, height, depth, three_d, &q->dst);
}

Desc src_of(const CUDA_MEMCPY2D &c)
{
	return { c.srcMemoryType, c.srcHost, c.srcDevice, c.srcArray, c.srcXInBytes, c.srcY, 0, 0,
		 c.srcPitch, 0 };
}

Desc dst_of(const CUDA_MEMCPY2D &c)
{
	return { c.dstMemoryType, c.dstHost, c.dstDevice, c.dstArray, c.dstXInBytes, c.dstY, 0, 0,
		 c.dstPitch, 0 };
}

template <typename T>
Desc src3_of(const T &c)
{
	return { c.srcMemoryType, c.srcHost, c.srcDevice, c.srcArray, c.srcXInBytes, c.srcY,
		 c.srcZ, c.srcLOD, c.srcPitch, c.srcHeight };
}

template <typename T>
Desc dst3_of(const T &c)
{
	return { c.dstMemoryType, c.dstHost, c.dstDevice, c.dstArray, c.dstXInBytes, c.dstY,
		 c.dstZ, c.dstLOD, c.dstPitch, c.dstHeight };
}

CUresult copy2d(const CUDA_MEMCPY2D *p, CUstream h, bool ptds, Mode mode)
{
	return guard([&]() -> CUresult {
		BoxRequest q;

		if (!p)
			return CUDA_ERROR_INVALID_VALUE;
		if (CUresult r = box_of(src_of(*p), dst_of(*p), p->WidthInBytes, p->Height, 1,
					false, &q))
			return r;
		return box_execute(q, h, ptds, mode);
	});
}

CUresult copy3d(const CUDA_MEMCPY3D *p, CUstream h, bool ptds, Mode mode)
{
	return guard([&]() -> CUresult {
		BoxRequest q;

		/* The reserved fields are ignored ("pitch.err.cu3d.reserved0"). */
		if (!p)
			return CUDA_ERROR_INVALID_VALUE;
		if (CUresult r = box_of(src3_of(*p), dst3_of(*p), p->WidthInBytes, p->Height,
					p->Depth, true, &q))
			return r;
		return box_execute(q, h, ptds, mode);
	});
}

/*
 * A context named by a peer copy: NULL (NVIDIA's driver accepts it, the
 * addresses say everything: "pitch.peer.cu.nullctx"), or one the library
 * made and did not destroy.
 */
CUresult peer_context(CUcontext c)
{
	std::lock_guard<std::mutex> lock(ctx_reg().mu);
	Context *ctx;

	return c ? live_context(c, &ctx) : CUDA_SUCCESS;
}

CUresult copy3d_peer(const CUDA_MEMCPY3D_PEER *p, CUstream h, bool ptds, Mode mode)
{
	return guard([&]() -> CUresult {
		BoxRequest q;

		if (CUresult r = check_init())
			return r;
		if (!p)
			return CUDA_ERROR_INVALID_VALUE;
		if (CUresult r = peer_context(p->srcContext))
			return r;
		if (CUresult r = peer_context(p->dstContext))
			return r;
		if (CUresult r = box_of(src3_of(*p), dst3_of(*p), p->WidthInBytes, p->Height,
					p->Depth, true, &q))
			return r;
		return box_execute(q, h, ptds, mode);
	});
}

CUresult copy_peer(CUdeviceptr dst, CUcontext dctx, CUdeviceptr src, CUcontext sctx, size_t n,
		   CUstream h, bool ptds, Mode mode)
{
	return guard([&]() -> CUresult {
		BoxRequest q;

		if (CUresult r = check_init())
			return r;
		if (CUresult r = peer_context(dctx))
			return r;
		if (CUresult r = peer_context(sctx))
			return r;
		q.dst.addr = dst;
		q.src.addr = src;
		q.width = n;
		return box_execute(q, h, ptds, mode);
	});
}

CUresult set2d(CUdeviceptr dst, size_t pitch, uint32_t value, uint32_t elem, size_t width,
	       size_t height, CUstream h, bool ptds, Mode mode)
{
	return guard([&]() -> CUresult {
		BoxRequest q;

		q.is_set = true;
		q.dst.addr = dst;
		q.dst.pitch = pitch;
		q.value = value;
		q.elem = elem;
		q.width = width;
		q.height = height;
		if (width && height > 1 && (pitch < width * elem || pitch > kMaxPitch))
			return CUDA_ERROR_INVALID_VALUE;
		return box_execute(q, h, ptds, mode);
	});
}

} // namespace

/**
 * alloc_pitched() - device memory for @height rows of @width bytes
 * @dptr:	out: the base, aligned to the pitch alignment
 * @pitch:	out: the row pitch
 * @width:	bytes per row, > 0
 * @rows:	rows (of every slice), > 0
 *
 * Return: a CUresult of cuMemAlloc.
 */
CUresult alloc_pitched(CUdeviceptr *dptr, size_t *pitch, size_t width, size_t rows)
{
	const uint64_t p = round_up(width, kPitchAlignment);
	uint64_t bytes;

	/* the pitch is reported even when the memory is not there
	 * ("pitch.allocpitch.w1t") */
	*dptr = 0;
	*pitch = p;
	if (p < width || __builtin_mul_overflow(p, static_cast<uint64_t>(rows), &bytes))
		return CUDA_ERROR_OUT_OF_MEMORY;
	return cuMemAlloc_v2(dptr, bytes);
}

/**
 * runtime_copy_box() - the runtime's 2D/3D copies: roles from the kind
 * @q:		the box, roles ignored
 * @kind:	a cudaMemcpyKind
 * @h:		stream
 * @ptds:	per-thread default stream
 * @async:	an Async form
 *
 * Return: a CUresult, or cudaErrorInvalidMemcpyDirection's number.
 */
CUresult runtime_copy_box(BoxRequest q, int kind, CUstream h, bool ptds, bool async)
{
	if (CUresult r = memcpy_kind_roles(kind, &q.dst.role, &q.src.role))
		return r;
	return guard([&] { return box_execute(q, h, ptds, async ? Mode::async : Mode::sync_copy); });
}

/* The runtime's 2D/3D sets: bytes of @value. */
CUresult runtime_set_box(BoxRequest q, int value, CUstream h, bool ptds, bool async)
{
	q.is_set = true;
	q.value = static_cast<unsigned char>(value);
	q.elem = 1;
	return guard([&] { return box_execute(q, h, ptds, async ? Mode::async : Mode::sync_set); });
}

} // namespace uvm

using namespace uvm;

extern "C" CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pPitch, size_t WidthInBytes,
				       size_t Height, unsigned int ElementSizeBytes) noexcept
{
	return guard([&]() -> CUresult {
		if (CUresult r = check_init())
			return r;
		/* "pitch.allocpitch.null_dptr": the pitch cleared */
		if (!dptr || !pPitch) {
			if (pPitch)
				*pPitch = 0;
			return CUDA_ERROR_INVALID_VALUE;
		}
		/* "pitch.allocpitch.w0": both outputs cleared */
		if (!WidthInBytes || !Height ||
		    (ElementSizeBytes != 4 && ElementSizeBytes != 8 && ElementSizeBytes != 16)) {
			*dptr = 0;
			*pPitch = 0;
			return CUDA_ERROR_INVALID_VALUE;
		}
		return alloc_pitched(dptr, pPitch, WidthInBytes, Height);
	});
}

#undef cuMemcpy2D
#undef cuMemcpy2DUnaligned
#undef cuMemcpy3D
#undef cuMemcpy2DAsync
#undef cuMemcpy3DAsync
#undef cuMemcpyPeer
#undef cuMemcpyPeerAsync
#undef cuMemcpy3DPeer
#undef cuMemcpy3DPeerAsync
#undef cuMemsetD2D8
#undef cuMemsetD2D16
#undef cuMemsetD2D32
#undef cuMemsetD2D8Async
#undef cuMemsetD2D16Async
#undef cuMemsetD2D32Async

/*
 * Each documented name, and its per-thread-default-stream symbol (_ptds for
 * the synchronous calls, _ptsz for the asynchronous ones).
 */
#define BOTH_SYNC(name, params, call)						\
extern "C" CUresult name params noexcept { bool ptds = false; return call; }	\
extern "C" CUresult name##_ptds params noexcept { bool ptds = true; return call; }
#define BOTH_ASYNC(name, params, call)						\
extern "C" CUresult name params noexcept { bool ptds = false; return call; }	\
extern "C" CUresult name##_ptsz params noexcept { bool ptds = true; return call; }

BOTH_SYNC(cuMemcpy2D_v2, (const CUDA_MEMCPY2D *p),
	  copy2d(p, nullptr, ptds, Mode::sync_copy))
BOTH_SYNC(cuMemcpy2DUnaligned_v2, (const CUDA_MEMCPY2D *p),
	  copy2d(p, nullptr, ptds, Mode::sync_copy))
BOTH_ASYNC(cuMemcpy2DAsync_v2, (const CUDA_MEMCPY2D *p, CUstream h),
	   copy2d(p, h, ptds, Mode::async))
BOTH_SYNC(cuMemcpy3D_v2, (const CUDA_MEMCPY3D *p),
	  copy3d(p, nullptr, ptds, Mode::sync_copy))
BOTH_ASYNC(cuMemcpy3DAsync_v2, (const CUDA_MEMCPY3D *p, CUstream h),
	   copy3d(p, h, ptds, Mode::async))
BOTH_SYNC(cuMemcpy3DPeer, (const CUDA_MEMCPY3D_PEER *p),
	  copy3d_peer(p, nullptr, ptds, Mode::sync_copy))
BOTH_ASYNC(cuMemcpy3DPeerAsync, (const CUDA_MEMCPY3D_PEER *p, CUstream h),
	   copy3d_peer(p, h, ptds, Mode::async))
BOTH_SYNC(cuMemcpyPeer, (CUdeviceptr dst, CUcontext dc, CUdeviceptr src, CUcontext sc,
			 size_t n),
	  copy_peer(dst, dc, src, sc, n, nullptr, ptds, Mode::sync_copy))
BOTH_ASYNC(cuMemcpyPeerAsync, (CUdeviceptr dst, CUcontext dc, CUdeviceptr src, CUcontext sc,
			       size_t n, CUstream h),
	   copy_peer(dst, dc, src, sc, n, h, ptds, Mode::async))
BOTH_SYNC(cuMemsetD2D8_v2, (CUdeviceptr d, size_t pitch, unsigned char v, size_t w, size_t hh),
	  set2d(d, pitch, v, 1, w, hh, nullptr, ptds, Mode::sync_set))
BOTH_SYNC(cuMemsetD2D16_v2, (CUdeviceptr d, size_t pitch, unsigned short v, size_t w, size_t hh),
	  set2d(d, pitch, v, 2, w, hh, nullptr, ptds, Mode::sync_set))
BOTH_SYNC(cuMemsetD2D32_v2, (CUdeviceptr d, size_t pitch, unsigned int v, size_t w, size_t hh),
	  set2d(d, pitch, v, 4, w, hh, nullptr, ptds, Mode::sync_set))
BOTH_ASYNC(cuMemsetD2D8Async, (CUdeviceptr d, size_t pitch, unsigned char v, size_t w,
			       size_t hh, CUstream h),
	   set2d(d, pitch, v, 1, w, hh, h, ptds, Mode::async))
BOTH_ASYNC(cuMemsetD2D16Async, (CUdeviceptr d, size_t pitch, unsigned short v, size_t w,
				size_t hh, CUstream h),
	   set2d(d, pitch, v, 2, w, hh, h, ptds, Mode::async))
BOTH_ASYNC(cuMemsetD2D32Async, (CUdeviceptr d, size_t pitch, unsigned int v, size_t w,
				size_t hh, CUstream h),
	   set2d(d, pitch, v, 4, w, hh, h, ptds, Mode::async))
