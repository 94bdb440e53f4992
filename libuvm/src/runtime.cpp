// SPDX-License-Identifier: MIT
/*
 * runtime.cpp - the runtime API equivalents, on the driver API of libuvm.
 *
 * As NVIDIA's runtime: the first call initialises the driver; the runtime
 * works in the primary context of the thread's current device (or in the
 * context the thread made current through the driver API), retained once
 * until cudaDeviceReset; every call that fails records its error as the
 * thread's last error (cudaGetLastError returns and clears it,
 * cudaPeekAtLastError only returns it); stream 0 is the legacy stream
 * (cudaStreamPerThread and the _ptsz symbols give the per-thread stream).
 * Where NVIDIA's runtime differs from its documentation, the probes decide:
 * cudaMallocManaged, cudaMalloc and cudaMallocHost of 0 bytes succeed with a
 * NULL pointer (probe_runtime.txt "mm.size0", probe_copy.txt "rc.malloc.0",
 * "rc.mallochost.0").  cudaMemcpy's kind says which side must be device
 * memory, as the driver's HtoD/DtoH/DtoD forms do (cudaMemcpyHostToHost and
 * cudaMemcpyDefault: either side may be anything; probe_null.txt
 * "null.rt_memcpy_*"); an unknown kind is cudaErrorInvalidMemcpyDirection,
 * after a 0-byte copy has succeeded.
 */
#include <cerrno>
#include <cstring>
#include <vector>

#include "context.h"
#include "copy.h"
#include "device.h"

namespace uvm {

/**
 * rt_record() - make a failing result the thread's last error
 * @e:	the result
 *
 * Return: @e.
 */
cudaError_t rt_record(cudaError_t e)
{
	if (e != cudaSuccess)
		thread_state().rt_last_error = e;
	return e;
}

/**
 * rt_enter() - initialise the driver and give the thread a current context
 *
 * The runtime's context is the live context the thread made current through
 * the driver API, else the primary context of the thread's device, retained
 * once until cudaDeviceReset.
 *
 * Return: CUDA_SUCCESS or cuInit()'s error.
 */
CUresult rt_enter()
{
	CUresult r = cuInit(0);

	if (r)
		return r;
	ThreadState &ts = thread_state();
	if (!ts.stack.empty() && ts.stack.back() && ts.stack.back()->alive)
		return CUDA_SUCCESS;
	int dev = ts.rt_device;
	{
		ContextRegistry &s = ctx_reg();
		std::lock_guard<std::mutex> lock(s.mu);
		if (s.rt_retained.size() < static_cast<size_t>(dev_state().num_devices))
			s.rt_retained.resize(dev_state().num_devices, false);
		if (!s.rt_retained[dev]) {
			Context *ctx = s.primaries[dev];
			if (ctx->refcount++ == 0)
				ctx->alive = true;
			s.rt_retained[dev] = true;
		}
	}
	if (ts.stack.empty())
		ts.stack.push_back(ctx_reg().primaries[dev]);
	else
		ts.stack.back() = ctx_reg().primaries[dev];
	return CUDA_SUCCESS;
}

namespace {

cudaError_t record(cudaError_t e)
{
	return rt_record(e);
}

cudaError_t record(CUresult r)
{
	return rt_record(to_runtime(r));
}

CUmemLocation to_cu(struct cudaMemLocation l)
{
	return CUmemLocation{ static_cast<CUmemLocationType>(l.type), l.id };
}

std::vector<CUdeviceptr> to_cu_ptrs(void **dptrs, size_t count)
{
	std::vector<CUdeviceptr> v;

	if (dptrs) {
		v.resize(count);
		for (size_t i = 0; i < count; i++)
			v[i] = reinterpret_cast<uintptr_t>(dptrs[i]);
	}
	return v;
}

std::vector<CUmemLocation> to_cu_locs(struct cudaMemLocation *locs, size_t n)
{
	std::vector<CUmemLocation> v;

	if (locs) {
		v.resize(n);
		for (size_t i = 0; i < n; i++)
			v[i] = to_cu(locs[i]);
	}
	return v;
}

CUstream to_cu(cudaStream_t s)
{
	return reinterpret_cast<CUstream>(s);
}

} // namespace
} // namespace uvm

using namespace uvm;

extern "C" cudaError_t cudaGetLastError(void) noexcept
{
	ThreadState &ts = thread_state();
	cudaError_t e = ts.rt_last_error;

	ts.rt_last_error = cudaSuccess;
	return e;
}

extern "C" cudaError_t cudaPeekAtLastError(void) noexcept
{
	return thread_state().rt_last_error;
}

extern "C" cudaError_t cudaDriverGetVersion(int *driverVersion) noexcept
{
	if (!driverVersion)
		return record(cudaErrorInvalidValue);
	*driverVersion = kApiVersion;
	return cudaSuccess;
}

extern "C" cudaError_t cudaRuntimeGetVersion(int *runtimeVersion) noexcept
{
	if (!runtimeVersion)
		return record(cudaErrorInvalidValue);
	*runtimeVersion = kApiVersion;
	return cudaSuccess;
}

extern "C" cudaError_t cudaGetDeviceCount(int *count) noexcept
{
	return rt([&] { return cuDeviceGetCount(count); });
}

extern "C" cudaError_t cudaGetDevice(int *device) noexcept
{
	return rt([&]() -> CUresult {
		if (!device)
			return CUDA_ERROR_INVALID_VALUE;
		return cuCtxGetDevice(device);
	});
}

extern "C" cudaError_t cudaSetDevice(int device) noexcept
{
	return record(guard([&]() -> CUresult {
		if (CUresult r = cuInit(0))
			return r;
		if (!valid_device(device))
			return CUDA_ERROR_INVALID_DEVICE;
		ThreadState &ts = thread_state();
		ts.rt_device = device;
		/* The new device's primary context becomes current. */
		if (!ts.stack.empty())
			ts.stack.back() = nullptr;
		return rt_enter();
	}));
}

/*
 * Device flags: the flags of the current device's primary context
 * (probe_devflags.txt).  Setting them makes the runtime's context current
 * first, as any runtime call does; they change the active context at once.
 * At most one scheduling flag; CU_CTX_MAP_HOST is always on and the
 * coredump flags are dropped, neither is stored; a context made through
 * the driver API current instead is cudaErrorIncompatibleDriverContext.
 * Reading them initialises the driver only: the flags of the thread's live
 * current context, else those its device's primary context will have.
 */
extern "C" cudaError_t cudaSetDeviceFlags(unsigned int flags) noexcept
{
	const unsigned int sched = flags & cudaDeviceScheduleMask;

	if ((flags & ~static_cast<unsigned int>(cudaDeviceMask)) || (sched & (sched - 1)))
		return record(cudaErrorInvalidValue);
	return rt([&]() -> CUresult {
		Context *ctx = thread_state().stack.back();

		if (!ctx->primary)
			return static_cast<CUresult>(cudaErrorIncompatibleDriverContext);
		std::lock_guard<std::mutex> lock(ctx_reg().mu);
		ctx->flags = flags & (CU_CTX_SCHED_MASK | CU_CTX_LMEM_RESIZE_TO_MAX |
				      CU_CTX_SYNC_MEMOPS);
		return CUDA_SUCCESS;
	});
}

extern "C" cudaError_t cudaGetDeviceFlags(unsigned int *flags) noexcept
{
	return record(guard([&]() -> CUresult {
		if (CUresult r = cuInit(0))
			return r;
		if (!flags)
			return CUDA_ERROR_INVALID_VALUE;
		ThreadState &ts = thread_state();
		std::lock_guard<std::mutex> lock(ctx_reg().mu);
		Context *ctx = ts.stack.empty() ? nullptr : ts.stack.back();

		if (!ctx || !ctx->alive)
			ctx = ctx_reg().primaries[ts.rt_device];
		*flags = context_flags(ctx);
		return CUDA_SUCCESS;
	}));
}

extern "C" cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device) noexcept
{
	return rt([&] { return cuDeviceGetAttribute(value, static_cast<CUdevice_attribute>(attr), device); });
}

extern "C" cudaError_t cudaDeviceSynchronize(void) noexcept
{
	return rt([&] { return cuCtxSynchronize(); });
}

extern "C" cudaError_t cudaDeviceReset(void) noexcept
{
	return record(guard([&]() -> CUresult {
		if (CUresult r = cuInit(0))
			return r;
		ThreadState &ts = thread_state();
		int dev = ts.rt_device;
		bool held;
		{
			ContextRegistry &s = ctx_reg();
			std::lock_guard<std::mutex> lock(s.mu);
			held = static_cast<size_t>(dev) < s.rt_retained.size() && s.rt_retained[dev];
			if (held)
				s.rt_retained[dev] = false;
		}
		/* Everything of the primary context goes, whoever retained it,
		 * its flags too (probe_devflags "active.after_reset"). */
		CUresult r = held ? cuDevicePrimaryCtxReset_v2(dev) : CUDA_SUCCESS;
		if (held) {
			std::lock_guard<std::mutex> lock(ctx_reg().mu);
			ctx_reg().primaries[dev]->flags = 0;
		}
		if (!ts.stack.empty() && ts.stack.back() == ctx_reg().primaries[dev])
			ts.stack.pop_back();
		return r;
	}));
}

/* Streams and events */

extern "C" cudaError_t cudaStreamCreate(cudaStream_t *pStream) noexcept
{
	return rt([&] { return cuStreamCreate(reinterpret_cast<CUstream *>(pStream), 0); });
}

extern "C" cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags) noexcept
{
	return rt([&] { return cuStreamCreate(reinterpret_cast<CUstream *>(pStream), flags); });
}

extern "C" cudaError_t cudaStreamDestroy(cudaStream_t stream) noexcept
{
	return rt([&] { return cuStreamDestroy_v2(to_cu(stream)); });
}

extern "C" cudaError_t cudaStreamSynchronize(cudaStream_t stream) noexcept
{
	return rt([&] { return stream_sync(to_cu(stream), false, false); });
}

extern "C" cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream) noexcept
{
	return rt([&] { return stream_sync(to_cu(stream), true, false); });
}

extern "C" cudaError_t cudaStreamQuery(cudaStream_t stream) noexcept
{
	/* cudaErrorNotReady is an answer, not an error to record. */
	cudaError_t e = to_runtime(guard([&]() -> CUresult {
		if (CUresult r = rt_enter())
			return r;
		return stream_sync(to_cu(stream), false, true);
	}));
	return e == cudaErrorNotReady ? e : record(e);
}

extern "C" cudaError_t cudaStreamQuery_ptsz(cudaStream_t stream) noexcept
{
	cudaError_t e = to_runtime(guard([&]() -> CUresult {
		if (CUresult r = rt_enter())
			return r;
		return stream_sync(to_cu(stream), true, true);
	}));
	return e == cudaErrorNotReady ? e : record(e);
}

extern "C" cudaError_t cudaStreamGetFlags(cudaStream_t hStream, unsigned int *flags) noexcept
{
	return rt([&] { return cuStreamGetFlags(to_cu(hStream), flags); });
}

extern "C" cudaError_t cudaStreamGetFlags_ptsz(cudaStream_t hStream, unsigned int *flags) noexcept
{
	return rt([&] { return cuStreamGetFlags_ptsz(to_cu(hStream), flags); });
}

extern "C" cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event,
					   unsigned int flags) noexcept
{
	return rt([&] { return cuStreamWaitEvent(to_cu(stream), reinterpret_cast<CUevent>(event), flags); });
}

extern "C" cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t stream, cudaEvent_t event,
						unsigned int flags) noexcept
{
	return rt([&] {
		return cuStreamWaitEvent_ptsz(to_cu(stream), reinterpret_cast<CUevent>(event), flags);
	});
}

extern "C" cudaError_t cudaEventCreate(cudaEvent_t *event) noexcept
{
	return rt([&] { return cuEventCreate(reinterpret_cast<CUevent *>(event), 0); });
}

extern "C" cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags) noexcept
{
	return rt([&] { return cuEventCreate(reinterpret_cast<CUevent *>(event), flags); });
}

extern "C" cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) noexcept
{
	return rt([&] { return cuEventRecord(reinterpret_cast<CUevent>(event), to_cu(stream)); });
}

extern "C" cudaError_t cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream) noexcept
{
	return rt([&] { return cuEventRecord_ptsz(reinterpret_cast<CUevent>(event), to_cu(stream)); });
}

extern "C" cudaError_t cudaEventQuery(cudaEvent_t event) noexcept
{
	cudaError_t e = to_runtime(guard([&]() -> CUresult {
		if (CUresult r = rt_enter())
			return r;
		return cuEventQuery(reinterpret_cast<CUevent>(event));
	}));
	return e == cudaErrorNotReady ? e : record(e);
}

extern "C" cudaError_t cudaEventSynchronize(cudaEvent_t event) noexcept
{
	return rt([&] { return cuEventSynchronize(reinterpret_cast<CUevent>(event)); });
}

extern "C" cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end) noexcept
{
	return rt([&] {
		return cuEventElapsedTime_v2(ms, reinterpret_cast<CUevent>(start),
					     reinterpret_cast<CUevent>(end));
	});
}

extern "C" cudaError_t cudaEventDestroy(cudaEvent_t event) noexcept
{
	return rt([&] { return cuEventDestroy_v2(reinterpret_cast<CUevent>(event)); });
}

/* Memory */

extern "C" cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags) noexcept
{
	return rt([&]() -> CUresult {
		CUdeviceptr p = 0;

		if (!devPtr)
			return CUDA_ERROR_INVALID_VALUE;
		if (!size) {
			/* NVIDIA's runtime, not its documentation. */
			if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost)
				return CUDA_ERROR_INVALID_VALUE;
			*devPtr = nullptr;
			return CUDA_SUCCESS;
		}
		CUresult r = cuMemAllocManaged(&p, size, flags);
		if (!r)
			*devPtr = reinterpret_cast<void *>(p);
		return r;
	});
}

extern "C" cudaError_t cudaFree(void *devPtr) noexcept
{
	return rt([&] { return cuMemFree_v2(reinterpret_cast<uintptr_t>(devPtr)); });
}

extern "C" cudaError_t cudaMalloc(void **devPtr, size_t size) noexcept
{
	return rt([&]() -> CUresult {
		CUdeviceptr p = 0;

		if (!devPtr)
			return CUDA_ERROR_INVALID_VALUE;
		/* 0 bytes: a NULL pointer (probe_copy.txt "rc.malloc.0"). */
		if (!size) {
			*devPtr = nullptr;
			return CUDA_SUCCESS;
		}
		CUresult r = cuMemAlloc_v2(&p, size);
		if (!r)
			*devPtr = reinterpret_cast<void *>(p);
		return r;
	});
}

extern "C" cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags) noexcept
{
	/* Every context is a primary context here, so the runtime's
	 * allocations are portable anyway: NVIDIA's runtime does not pass
	 * cudaHostAllocPortable on ("rc.hostgetflags.hostalloc" = Mapped). */
	return rt([&]() -> CUresult {
		if (flags & ~static_cast<unsigned int>(cudaHostAllocPortable | cudaHostAllocMapped |
						      cudaHostAllocWriteCombined))
			return CUDA_ERROR_INVALID_VALUE;
		return cuMemHostAlloc(pHost, size, flags & ~cudaHostAllocPortable);
	});
}

extern "C" cudaError_t cudaMallocHost(void **ptr, size_t size) noexcept
{
	return rt([&] { return cuMemHostAlloc(ptr, size, 0); });
}

extern "C" cudaError_t cudaFreeHost(void *ptr) noexcept
{
	return rt([&] { return cuMemFreeHost(ptr); });
}

extern "C" cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags) noexcept
{
	return rt([&] { return cuMemHostRegister_v2(ptr, size, flags); });
}

extern "C" cudaError_t cudaHostUnregister(void *ptr) noexcept
{
	return rt([&] { return cuMemHostUnregister(ptr); });
}

extern "C" cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost,
						unsigned int flags) noexcept
{
	return rt([&]() -> CUresult {
		CUdeviceptr d = 0;

		if (!pDevice)
			return CUDA_ERROR_INVALID_VALUE;
		CUresult r = cuMemHostGetDevicePointer_v2(&d, pHost, flags);
		if (!r)
			*pDevice = reinterpret_cast<void *>(d);
		return r;
	});
}

extern "C" cudaError_t cudaHostGetFlags(unsigned int *pFlags, void *pHost) noexcept
{
	return rt([&] { return cuMemHostGetFlags(pFlags, pHost); });
}

#undef cudaMemcpy
#undef cudaMemcpyAsync
#undef cudaMemset
#undef cudaMemsetAsync

extern "C" cudaError_t cudaMemcpy(void *dst, const void *src, size_t count,
				  enum cudaMemcpyKind kind) noexcept
{
	return rt([&] { return runtime_memcpy(dst, src, count, kind, nullptr, false, false); });
}

extern "C" cudaError_t cudaMemcpy_ptds(void *dst, const void *src, size_t count,
				       enum cudaMemcpyKind kind) noexcept
{
	return rt([&] { return runtime_memcpy(dst, src, count, kind, nullptr, true, false); });
}

extern "C" cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count,
				       enum cudaMemcpyKind kind, cudaStream_t stream) noexcept
{
	return rt([&] { return runtime_memcpy(dst, src, count, kind, to_cu(stream), false, true); });
}

extern "C" cudaError_t cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t count,
					    enum cudaMemcpyKind kind, cudaStream_t stream) noexcept
{
	return rt([&] { return runtime_memcpy(dst, src, count, kind, to_cu(stream), true, true); });
}

extern "C" cudaError_t cudaMemset(void *devPtr, int value, size_t count) noexcept
{
	return rt([&] { return runtime_memset(devPtr, value, count, nullptr, false, false); });
}

extern "C" cudaError_t cudaMemset_ptds(void *devPtr, int value, size_t count) noexcept
{
	return rt([&] { return runtime_memset(devPtr, value, count, nullptr, true, false); });
}

extern "C" cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count,
				       cudaStream_t stream) noexcept
{
	return rt([&] { return runtime_memset(devPtr, value, count, to_cu(stream), false, true); });
}

extern "C" cudaError_t cudaMemsetAsync_ptsz(void *devPtr, int value, size_t count,
					    cudaStream_t stream) noexcept
{
	return rt([&] { return runtime_memset(devPtr, value, count, to_cu(stream), true, true); });
}

/*
 * Pitched memory, 2D and 3D copies and sets, peer copies.  The rows of a
 * pitched allocation are rounded up to the pitch alignment (pitched.cpp);
 * a pitch narrower than the row is cudaErrorInvalidPitchValue; a zero
 * dimension copies or sets nothing and succeeds.  A side of cudaMemcpy3D may
 * be a CUDA array (array.cpp): its position, and the extent, count its
 * elements.
 */
namespace uvm {
namespace {

CUresult malloc_pitch(void **devPtr, size_t *pitch, size_t width, size_t height)
{
	CUdeviceptr p = 0;

	if (!devPtr || !pitch)
		return CUDA_ERROR_INVALID_VALUE;
	if (!width || !height) {
		*devPtr = nullptr;
		*pitch = 0;
		return CUDA_SUCCESS;
	}
	if (CUresult r = alloc_pitched(&p, pitch, width, height))
		return r;
	*devPtr = reinterpret_cast<void *>(p);
	return CUDA_SUCCESS;
}

CUresult memcpy_2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
		   size_t height, int kind, CUstream h, bool ptds, bool async)
{
	BoxRequest q;

	if (width && height && (dpitch < width || spitch < width))
		return static_cast<CUresult>(cudaErrorInvalidPitchValue);
	q.dst.addr = reinterpret_cast<uintptr_t>(dst);
	q.dst.pitch = dpitch;
	q.src.addr = reinterpret_cast<uintptr_t>(src);
	q.src.pitch = spitch;
	q.width = width;
	q.height = height;
	return runtime_copy_box(q, kind, h, ptds, async);
}

/*
 * One side of a cudaMemcpy3DParms: the first byte of the box, @width bytes
 * wide; from it, the slices before the last and the last one's rows in
 * whole pitches must lie in the allocation ("pitch.err.rt3d.fits_lastrow").  An array side counts its
 * position in its elements (of @elem bytes), and the box must lie in it
 * ("arr.oob.3d.*"); it may not also name a pointer ("arr.copy.3d.src_array_and_ptr").
 */
CUresult side_3d(cudaArray_const_t array, const struct cudaPos &pos,
		 const struct cudaPitchedPtr &ptr, const struct cudaExtent &e, uint64_t width,
		 BoxSide *side)
{
	if (array) {
		CUarray a = reinterpret_cast<CUarray>(const_cast<cudaArray *>(array));
		uint64_t elem, x;

		if (ptr.ptr)
			return CUDA_ERROR_INVALID_VALUE;
		if (CUresult r = array_element_size(a, &elem))
			return r;
		if (__builtin_mul_overflow(static_cast<uint64_t>(pos.x), elem, &x))
			return CUDA_ERROR_INVALID_VALUE;
		return array_side(a, x, pos.y, pos.z, width, e.height, e.depth, side);
	}
	side->pitch = ptr.pitch;
	side->slice_pitch = ptr.pitch * ptr.ysize;
	side->addr = reinterpret_cast<uintptr_t>(ptr.ptr) + pos.z * side->slice_pitch +
		     pos.y * ptr.pitch + pos.x;
	if (e.depth && e.height &&
	    !extent_3d(e.depth, side->slice_pitch, e.height, ptr.pitch, &side->extent))
		return CUDA_ERROR_INVALID_VALUE;
	return CUDA_SUCCESS;
}

CUresult box_3d(cudaArray_t sa, const struct cudaPos &sp, const struct cudaPitchedPtr &s,
		cudaArray_t da, const struct cudaPos &dp, const struct cudaPitchedPtr &d,
		const struct cudaExtent &e, BoxRequest *q)
{
	uint64_t elem = 1, width;

	/* an array and a pointer on one side ("arr.copy.3d.src_array_and_ptr") */
	if ((sa && s.ptr) || (da && d.ptr))
		return CUDA_ERROR_INVALID_VALUE;
	/* The extent counts the elements of the array taking part, if any. */
	if (sa || da) {
		if (CUresult r = array_element_size(reinterpret_cast<CUarray>(sa ? sa : da), &elem))
			return r;
	}
	if (__builtin_mul_overflow(static_cast<uint64_t>(e.width), elem, &width))
		return CUDA_ERROR_INVALID_VALUE;
	if (CUresult r = side_3d(sa, sp, s, e, width, &q->src))
		return r;
	if (CUresult r = side_3d(da, dp, d, e, width, &q->dst))
		return r;
	q->width = width;
	q->height = e.height;
	q->depth = e.depth;
	if (!e.width || !e.height || !e.depth)
		return CUDA_SUCCESS;
	/* "pitch.err.rt3d.spitch_lt_w", "...sheight_lt_h", "...sx_beyond_pitch" */
	for (int i = 0; i < 2; i++) {
		const struct cudaPitchedPtr &p = i ? d : s;

		if (i ? da : sa)
			continue;
		if ((e.height > 1 || e.depth > 1) && p.pitch < width)
			return static_cast<CUresult>(cudaErrorInvalidPitchValue);
		if (e.depth > 1 && p.ysize < e.height)
			return static_cast<CUresult>(cudaErrorInvalidPitchValue);
	}
	if ((!sa && sp.x + width > s.pitch) || (!da && dp.x + width > d.pitch))
		return CUDA_ERROR_INVALID_VALUE;
	return CUDA_SUCCESS;
}

CUresult memcpy_3d(const struct cudaMemcpy3DParms *p, CUstream h, bool ptds, bool async)
{
	BoxRequest q;

	if (!p)
		return CUDA_ERROR_INVALID_VALUE;
	if (CUresult r = box_3d(p->srcArray, p->srcPos, p->srcPtr, p->dstArray, p->dstPos,
				p->dstPtr, p->extent, &q))
		return r;
	if (CUresult r = array_copy_kind(p->kind, p->dstArray, p->srcArray))
		return r;
	return runtime_copy_box(q, p->kind, h, ptds, async);
}

/* A device of a peer copy: cudaErrorInvalidDevice unless it exists. */
CUresult peer_device(int dev)
{
	int n = 0;

	if (CUresult r = cuDeviceGetCount(&n))
		return r;
	return dev >= 0 && dev < n ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

CUresult memcpy_3d_peer(const struct cudaMemcpy3DPeerParms *p, CUstream h, bool ptds,
			bool async)
{
	BoxRequest q;

	if (!p)
		return CUDA_ERROR_INVALID_VALUE;
	if (CUresult r = peer_device(p->srcDevice))
		return r;
	if (CUresult r = peer_device(p->dstDevice))
		return r;
	if (CUresult r = box_3d(p->srcArray, p->srcPos, p->srcPtr, p->dstArray, p->dstPos,
				p->dstPtr, p->extent, &q))
		return r;
	return runtime_copy_box(q, cudaMemcpyDefault, h, ptds, async);
}

CUresult memcpy_peer(void *dst, int ddev, const void *src, int sdev, size_t count, CUstream h,
		     bool async)
{
	BoxRequest q;

	/* Nothing to copy: the devices are not looked at
	 * ("pitch.peer.rt.bothdev99.count0"). */
	if (!count)
		return CUDA_SUCCESS;
	if (CUresult r = peer_device(ddev))
		return r;
	if (CUresult r = peer_device(sdev))
		return r;
	q.dst.addr = reinterpret_cast<uintptr_t>(dst);
	q.src.addr = reinterpret_cast<uintptr_t>(src);
	q.width = count;
	return runtime_copy_box(q, cudaMemcpyDeviceToDevice, h, false, async);
}

CUresult memset_2d(void *devPtr, size_t pitch, int value, size_t width, size_t height,
		   CUstream h, bool ptds, bool async)
{
	BoxRequest q;

	if (width && height > 1 && pitch < width)	/* "pitch.set.rt2d.pitch_lt_w" */
		return CUDA_ERROR_INVALID_VALUE;
	q.dst.addr = reinterpret_cast<uintptr_t>(devPtr);
	q.dst.pitch = pitch;
	q.width = width;
	q.height = height;
	return runtime_set_box(q, value, h, ptds, async);
}

CUresult memset_3d(const struct cudaPitchedPtr &p, int value, const struct cudaExtent &e,
		   CUstream h, bool ptds, bool async)
{
	BoxRequest q;

	/* "pitch.set.rt3d.pitch_lt_w", ".ysize_lt_h", ".ysize0_d1" */
	if (e.width && e.height && e.depth &&
	    (((e.height > 1 || e.depth > 1) && p.pitch < e.width) || p.ysize < e.height))
		return CUDA_ERROR_INVALID_VALUE;
	q.dst.addr = reinterpret_cast<uintptr_t>(p.ptr);
	q.dst.pitch = p.pitch;
	q.dst.slice_pitch = p.pitch * p.ysize;
	q.width = e.width;
	q.height = e.height;
	q.depth = e.depth;
	return runtime_set_box(q, value, h, ptds, async);
}

} // namespace
} // namespace uvm

#undef cudaMemcpy2D
#undef cudaMemcpy3D
#undef cudaMemcpy3DPeer
#undef cudaMemset2D
#undef cudaMemset3D
#undef cudaMemcpy2DAsync
#undef cudaMemcpy3DAsync
#undef cudaMemcpy3DPeerAsync
#undef cudaMemset2DAsync
#undef cudaMemset3DAsync

/* Each name and its per-thread symbol (_ptds synchronous, _ptsz async). */
#define RT_BOTH(name, suffix, params, call)						extern "C" cudaError_t name params noexcept						{												const bool ptds = false;								return rt([&] { return call; });						}											extern "C" cudaError_t name##suffix params noexcept					{												const bool ptds = true;									return rt([&] { return call; });						}

extern "C" cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width,
				       size_t height) noexcept
{
	return rt([&] { return malloc_pitch(devPtr, pitch, width, height); });
}

extern "C" cudaError_t cudaMalloc3D(struct cudaPitchedPtr *pitchedDevPtr,
				    struct cudaExtent extent) noexcept
{
	return rt([&]() -> CUresult {
		void *p = nullptr;
		size_t pitch = 0;

		if (!pitchedDevPtr)
			return CUDA_ERROR_INVALID_VALUE;
		if (CUresult r = malloc_pitch(&p, &pitch, extent.width,
					      extent.height * extent.depth))
			return r;
		*pitchedDevPtr = { p, pitch, extent.width, extent.height };
		return CUDA_SUCCESS;
	});
}

RT_BOTH(cudaMemcpy2D, _ptds,
	(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
	 enum cudaMemcpyKind kind),
	memcpy_2d(dst, dpitch, src, spitch, width, height, kind, nullptr, ptds, false))
RT_BOTH(cudaMemcpy2DAsync, _ptsz,
	(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
	 enum cudaMemcpyKind kind, cudaStream_t stream),
	memcpy_2d(dst, dpitch, src, spitch, width, height, kind, to_cu(stream), ptds, true))
RT_BOTH(cudaMemcpy3D, _ptds, (const struct cudaMemcpy3DParms *p),
	memcpy_3d(p, nullptr, ptds, false))
RT_BOTH(cudaMemcpy3DAsync, _ptsz, (const struct cudaMemcpy3DParms *p, cudaStream_t stream),
	memcpy_3d(p, to_cu(stream), ptds, true))
RT_BOTH(cudaMemcpy3DPeer, _ptds, (const struct cudaMemcpy3DPeerParms *p),
	memcpy_3d_peer(p, nullptr, ptds, false))
RT_BOTH(cudaMemcpy3DPeerAsync, _ptsz,
	(const struct cudaMemcpy3DPeerParms *p, cudaStream_t stream),
	memcpy_3d_peer(p, to_cu(stream), ptds, true))
RT_BOTH(cudaMemset2D, _ptds, (void *devPtr, size_t pitch, int value, size_t width, size_t height),
	memset_2d(devPtr, pitch, value, width, height, nullptr, ptds, false))
RT_BOTH(cudaMemset2DAsync, _ptsz,
	(void *devPtr, size_t pitch, int value, size_t width, size_t height,
	 cudaStream_t stream),
	memset_2d(devPtr, pitch, value, width, height, to_cu(stream), ptds, true))
RT_BOTH(cudaMemset3D, _ptds,
	(struct cudaPitchedPtr pitchedDevPtr, int value, struct cudaExtent extent),
	memset_3d(pitchedDevPtr, value, extent, nullptr, ptds, false))
RT_BOTH(cudaMemset3DAsync, _ptsz,
	(struct cudaPitchedPtr pitchedDevPtr, int value, struct cudaExtent extent,
	 cudaStream_t stream),
	memset_3d(pitchedDevPtr, value, extent, to_cu(stream), ptds, true))

extern "C" cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice,
				      size_t count) noexcept
{
	return rt([&] { return memcpy_peer(dst, dstDevice, src, srcDevice, count, nullptr, false); });
}

extern "C" cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src,
					   int srcDevice, size_t count,
					   cudaStream_t stream) noexcept
{
	return rt([&] {
		return memcpy_peer(dst, dstDevice, src, srcDevice, count, to_cu(stream), true);
	});
}

extern "C" cudaError_t cudaMemGetInfo(size_t *free, size_t *total) noexcept
{
	return rt([&] { return cuMemGetInfo_v2(free, total); });
}

extern "C" cudaError_t cudaMemAdvise(const void *devPtr, size_t count, enum cudaMemoryAdvise advice,
				     struct cudaMemLocation location) noexcept
{
	return rt([&] {
		return cuMemAdvise_v2(reinterpret_cast<uintptr_t>(devPtr), count,
				      static_cast<CUmem_advise>(advice), to_cu(location));
	});
}

extern "C" cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count,
					    struct cudaMemLocation location, unsigned int flags,
					    cudaStream_t stream) noexcept
{
	return rt([&] {
		return cuMemPrefetchAsync_v2(reinterpret_cast<uintptr_t>(devPtr), count,
					     to_cu(location), flags, to_cu(stream));
	});
}

extern "C" cudaError_t cudaMemPrefetchAsync_ptsz(const void *devPtr, size_t count,
						 struct cudaMemLocation location,
						 unsigned int flags, cudaStream_t stream) noexcept
{
	return rt([&] {
		return cuMemPrefetchAsync_v2_ptsz(reinterpret_cast<uintptr_t>(devPtr), count,
						  to_cu(location), flags, to_cu(stream));
	});
}

#define RT_BATCH(name, cuname)								\
extern "C" cudaError_t name(void **dptrs, size_t *sizes, size_t count,			\
			    struct cudaMemLocation *prefetchLocs, size_t *prefetchLocIdxs,	\
			    size_t numPrefetchLocs, unsigned long long flags,			\
			    cudaStream_t stream) noexcept					\
{											\
	return rt([&] {									\
		auto p = to_cu_ptrs(dptrs, count);					\
		auto l = to_cu_locs(prefetchLocs, numPrefetchLocs);			\
		return cuname(dptrs ? p.data() : nullptr, sizes, count,			\
			      prefetchLocs ? l.data() : nullptr, prefetchLocIdxs,	\
			      numPrefetchLocs, flags, to_cu(stream));			\
	});										\
}

RT_BATCH(cudaMemPrefetchBatchAsync, cuMemPrefetchBatchAsync)
RT_BATCH(cudaMemPrefetchBatchAsync_ptsz, cuMemPrefetchBatchAsync_ptsz)
RT_BATCH(cudaMemDiscardAndPrefetchBatchAsync, cuMemDiscardAndPrefetchBatchAsync)
RT_BATCH(cudaMemDiscardAndPrefetchBatchAsync_ptsz, cuMemDiscardAndPrefetchBatchAsync_ptsz)

extern "C" cudaError_t cudaMemDiscardBatchAsync(void **dptrs, size_t *sizes, size_t count,
						unsigned long long flags, cudaStream_t stream) noexcept
{
	return rt([&] {
		auto p = to_cu_ptrs(dptrs, count);
		return cuMemDiscardBatchAsync(dptrs ? p.data() : nullptr, sizes, count, flags,
					      to_cu(stream));
	});
}

extern "C" cudaError_t cudaMemDiscardBatchAsync_ptsz(void **dptrs, size_t *sizes, size_t count,
						     unsigned long long flags,
						     cudaStream_t stream) noexcept
{
	return rt([&] {
		auto p = to_cu_ptrs(dptrs, count);
		return cuMemDiscardBatchAsync_ptsz(dptrs ? p.data() : nullptr, sizes, count, flags,
						   to_cu(stream));
	});
}

/* The runtime lists only cudaSuccess and cudaErrorInvalidValue here. */
static CUresult no_invalid_device(CUresult r)
{
	return r == CUDA_ERROR_INVALID_DEVICE ? CUDA_ERROR_INVALID_VALUE : r;
}

extern "C" cudaError_t cudaMemRangeGetAttribute(void *data, size_t dataSize,
						enum cudaMemRangeAttribute attribute,
						const void *devPtr, size_t count) noexcept
{
	return rt([&] {
		return no_invalid_device(cuMemRangeGetAttribute(
			data, dataSize, static_cast<CUmem_range_attribute>(attribute),
			reinterpret_cast<uintptr_t>(devPtr), count));
	});
}

extern "C" cudaError_t cudaMemRangeGetAttributes(void **data, size_t *dataSizes,
						 enum cudaMemRangeAttribute *attributes,
						 size_t numAttributes, const void *devPtr,
						 size_t count) noexcept
{
	static_assert(sizeof(enum cudaMemRangeAttribute) == sizeof(CUmem_range_attribute));
	return rt([&] {
		return no_invalid_device(cuMemRangeGetAttributes(
			data, dataSizes, reinterpret_cast<CUmem_range_attribute *>(attributes),
			numAttributes, reinterpret_cast<uintptr_t>(devPtr), count));
	});
}
