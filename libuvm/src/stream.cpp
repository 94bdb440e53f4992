// SPDX-License-Identifier: MIT
/*
 * stream.cpp - streams and events on the driver's fences.
 *
 * Every asynchronous operation (prefetch, the batch calls, copies and sets)
 * is a job of the driver: UVM_IOC_MIGRATE, UVM_IOC_COPY or UVM_IOC_MEMSET
 * with their ASYNC flag; the driver returns a fence and runs the jobs of the
 * VA space one after the other in fence order.  A
 * stream is therefore "the fences of its work": synchronising it waits for
 * its highest fence, which implies every earlier one.  Ordering between
 * streams is free (the driver's order is total); what remains is the host
 * side: cuStreamWaitEvent makes the waiting stream's later synchronisation
 * (and launches on it) wait for the event's fence, and the legacy stream
 * waits for the blocking streams of its context and they for it.
 */
#include <algorithm>
#include <cerrno>
#include <ctime>

#include "context.h"

namespace uvm {

/**
 * FenceTracker::wait() - wait for (or test) a fence and collect errors
 * @dev:	the device
 * @f:		the fence; 0 means nothing to wait for
 * @poll:	test only
 *
 * Return: 0, -EAGAIN when polling an unfinished fence, -EINTR.
 */
int FenceTracker::wait(const Device &dev, uint64_t f, bool poll)
{
	struct uvm_ioc_fence_wait args {};
	int r;

	if (!f)
		return 0;
	{
		std::lock_guard<std::mutex> lock(mu_);
		if (f <= harvested_)
			return 0;
	}
	args.fence = f;
	args.flags = poll ? UVM_FENCE_WAIT_POLL : 0;
	r = dev.ioctl(UVM_IOC_FENCE_WAIT, &args);
	if (r == -EAGAIN || r == -EINTR)
		return r;
	std::lock_guard<std::mutex> lock(mu_);
	if (r)
		errors_[f] = r;
	harvest(dev, std::max<uint64_t>(args.completed, f));
	return 0;
}

/* Poll every completed fence not yet collected; its error is reported once
 * by the driver, to whichever FENCE_WAIT comes first.  mu_ held. */
void FenceTracker::harvest(const Device &dev, uint64_t upto)
{
	for (uint64_t g = harvested_ + 1; g <= upto; g++) {
		struct uvm_ioc_fence_wait args {};

		args.fence = g;
		args.flags = UVM_FENCE_WAIT_POLL;
		int r = dev.ioctl(UVM_IOC_FENCE_WAIT, &args);
		if (r && r != -EAGAIN && r != -EINVAL)
			errors_.emplace(g, r);
	}
	harvested_ = std::max(harvested_, upto);
}

int FenceTracker::take_error(uint64_t f)
{
	std::lock_guard<std::mutex> lock(mu_);
	auto it = errors_.find(f);

	if (it == errors_.end())
		return 0;
	int r = it->second;
	errors_.erase(it);
	return r;
}

int FenceTracker::peek_error(uint64_t f)
{
	std::lock_guard<std::mutex> lock(mu_);
	auto it = errors_.find(f);

	return it == errors_.end() ? 0 : it->second;
}

void FenceTracker::reset()
{
	std::lock_guard<std::mutex> lock(mu_);

	harvested_ = 0;
	errors_.clear();
}

/* The calling thread's per-thread default stream of a context. */
static Stream *per_thread_stream(Context *ctx)
{
	auto &slot = thread_state().ptds[ctx];

	if (!slot) {
		slot = std::make_unique<Stream>();
		slot->ctx = ctx;
		slot->per_thread = true;
	}
	return slot.get();
}

/**
 * resolve_stream() - the Stream behind a CUstream handle
 * @h:			the handle: NULL, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD or
 *			one from cuStreamCreate
 * @per_thread_default:	NULL means the per-thread stream (the _ptsz calls)
 * @out:		the stream
 *
 * Context: ContextRegistry::mu held.
 * Return: CUDA_SUCCESS, CUDA_ERROR_INVALID_CONTEXT /
 * CUDA_ERROR_CONTEXT_IS_DESTROYED for the special handles without a usable
 * current context, CUDA_ERROR_INVALID_HANDLE for an unknown handle.
 */
CUresult resolve_stream(CUstream h, bool per_thread_default, Stream **out)
{
	ContextRegistry &s = ctx_reg();

	if (!h || h == CU_STREAM_LEGACY || h == CU_STREAM_PER_THREAD) {
		ThreadState &ts = thread_state();

		if (ts.stack.empty() || !ts.stack.back())
			return CUDA_ERROR_INVALID_CONTEXT;
		Context *ctx = ts.stack.back();
		if (!ctx->alive)
			return CUDA_ERROR_CONTEXT_IS_DESTROYED;
		if (h == CU_STREAM_PER_THREAD || (!h && per_thread_default))
			*out = per_thread_stream(ctx);
		else
			*out = ctx->legacy.get();
		return CUDA_SUCCESS;
	}
	Stream *st = from_handle(h);
	if (!s.known_streams.count(st))
		return CUDA_ERROR_INVALID_HANDLE;
	if (!st->ctx->alive)
		return CUDA_ERROR_CONTEXT_IS_DESTROYED;
	*out = st;
	return CUDA_SUCCESS;
}

void note_fence(uint64_t fence)
{
	ContextRegistry &st = ctx_reg();
	uint64_t last = st.last_fence.load();

	while (last < fence && !st.last_fence.compare_exchange_weak(last, fence))
		;
}

void stream_add_fence(Stream *s, uint64_t fence)
{
	s->last = std::max(s->last, fence);
	s->pending.push_back(fence);
	note_fence(fence);
}

/**
 * stream_barrier() - the fence all work a stream depends on is in
 * @s:	the stream
 *
 * The legacy stream depends on the blocking streams of its context and on
 * the calling thread's per-thread stream; a blocking stream on the legacy
 * stream.
 *
 * Context: ContextRegistry::mu held.
 * Return: the fence, 0 for none.
 */
uint64_t stream_barrier(Stream *s)
{
	uint64_t f = s->last;
	Context *ctx = s->ctx;

	if (s->legacy) {
		for (Stream *o : ctx->streams)
			if (!(o->flags & CU_STREAM_NON_BLOCKING))
				f = std::max(f, o->last);
		auto it = thread_state().ptds.find(ctx);
		if (it != thread_state().ptds.end())
			f = std::max(f, it->second->last);
	} else if (!(s->flags & CU_STREAM_NON_BLOCKING)) {
		f = std::max(f, ctx->legacy->last);
	}
	return f;
}

/* First error among the fences of a stream up to `upto`, removing them.
 * ContextRegistry::mu held. */
static int stream_take_errors(Stream *s, uint64_t upto)
{
	int first = 0;
	auto &p = s->pending;

	for (uint64_t f : p) {
		if (f > upto)
			continue;
		int e = ctx_reg().fences.take_error(f);
		if (e && !first)
			first = e;
	}
	p.erase(std::remove_if(p.begin(), p.end(), [upto](uint64_t f) { return f <= upto; }),
		p.end());
	return first;
}

/* An async error, as the synchronising call reports it. */
static CUresult async_error(int e)
{
	/* A range unmapped under a queued batch is skipped by the driver
	 * (-EFAULT); CUDA would have synchronised in cuMemFree. */
	return e == -EFAULT ? CUDA_SUCCESS : from_errno(e);
}

CUresult stream_sync(CUstream h, bool per_thread_default, bool poll)
{
	ContextRegistry &s = ctx_reg();
	Stream *st;
	uint64_t barrier;

	if (CUresult r = check_init())
		return r;
	{
		std::lock_guard<std::mutex> lock(s.mu);
		if (CUresult r = resolve_stream(h, per_thread_default, &st))
			return r;
		barrier = stream_barrier(st);
	}
	int r = s.fences.wait(driver(), barrier, poll);
	if (r == -EAGAIN)
		return CUDA_ERROR_NOT_READY;
	if (r)
		return from_errno(r);
	std::lock_guard<std::mutex> lock(s.mu);
	/* The stream may have been destroyed meanwhile (a user error). */
	if (!st->legacy && !st->per_thread && !s.known_streams.count(st))
		return CUDA_SUCCESS;
	return async_error(stream_take_errors(st, barrier));
}

CUresult context_sync(Context *ctx)
{
	ContextRegistry &s = ctx_reg();
	uint64_t barrier = s.last_fence.load();
	int first = 0;

	int r = s.fences.wait(driver(), barrier, false);
	if (r)
		return from_errno(r);
	std::lock_guard<std::mutex> lock(s.mu);
	first = stream_take_errors(ctx->legacy.get(), barrier);
	for (Stream *st : ctx->streams) {
		int e = stream_take_errors(st, barrier);
		if (e && !first)
			first = e;
	}
	auto it = thread_state().ptds.find(ctx);
	if (it != thread_state().ptds.end()) {
		int e = stream_take_errors(it->second.get(), barrier);
		if (e && !first)
			first = e;
	}
	return async_error(first);
}

void wait_all()
{
	ContextRegistry &s = ctx_reg();

	s.fences.wait(driver(), s.last_fence.load(), false);
}

} // namespace uvm

using namespace uvm;

/* Streams */

extern "C" CUresult cuStreamCreate(CUstream *phStream, unsigned int Flags) noexcept
{
	return guard([&]() -> CUresult {
		Context *ctx;

		if (CUresult r = current_context(&ctx))
			return r;
		if (!phStream || (Flags & ~CU_STREAM_NON_BLOCKING))
			return CUDA_ERROR_INVALID_VALUE;
		auto st = std::make_unique<Stream>();
		st->ctx = ctx;
		st->flags = Flags;
		std::lock_guard<std::mutex> lock(ctx_reg().mu);
		ctx_reg().known_streams.insert(st.get());
		ctx->streams.insert(st.get());
		*phStream = to_handle(st.release());
		return CUDA_SUCCESS;
	});
}

extern "C" CUresult cuStreamDestroy_v2(CUstream hStream) noexcept
{
	if (CUresult r = check_init())
		return r;
	std::lock_guard<std::mutex> lock(ctx_reg().mu);
	Stream *st = from_handle(hStream);
	if (!hStream || hStream == CU_STREAM_LEGACY || hStream == CU_STREAM_PER_THREAD ||
	    !ctx_reg().known_streams.count(st))
		return CUDA_ERROR_INVALID_HANDLE;
	/* Queued work completes on its own; its errors are dropped with the
	 * stream, as CUDA's destroy returns at once. */
	ctx_reg().known_streams.erase(st);
	st->ctx->streams.erase(st);
	delete st;
	return CUDA_SUCCESS;
}

extern "C" CUresult cuStreamQuery(CUstream hStream) noexcept
{
	return guard([&] { return stream_sync(hStream, false, true); });
}

extern "C" CUresult cuStreamQuery_ptsz(CUstream hStream) noexcept
{
	return guard([&] { return stream_sync(hStream, true, true); });
}

extern "C" CUresult cuStreamSynchronize(CUstream hStream) noexcept
{
	return guard([&] { return stream_sync(hStream, false, false); });
}

extern "C" CUresult cuStreamSynchronize_ptsz(CUstream hStream) noexcept
{
	return guard([&] { return stream_sync(hStream, true, false); });
}

static CUresult stream_get_flags(CUstream hStream, unsigned int *flags, bool ptds)
{
	Stream *st;

	if (CUresult r = check_init())
		return r;
	if (!flags)
		return CUDA_ERROR_INVALID_VALUE;
	std::lock_guard<std::mutex> lock(ctx_reg().mu);
	if (CUresult r = resolve_stream(hStream, ptds, &st))
		return r;
	*flags = st->flags;
	return CUDA_SUCCESS;
}

extern "C" CUresult cuStreamGetFlags(CUstream hStream, unsigned int *flags) noexcept
{
	return guard([&] { return stream_get_flags(hStream, flags, false); });
}

extern "C" CUresult cuStreamGetFlags_ptsz(CUstream hStream, unsigned int *flags) noexcept
{
	return guard([&] { return stream_get_flags(hStream, flags, true); });
}

static CUresult stream_get_ctx(CUstream hStream, CUcontext *pctx, bool ptds)
{
	Stream *st;

	if (CUresult r = check_init())
		return r;
	if (!pctx)
		return CUDA_ERROR_INVALID_VALUE;
	std::lock_guard<std::mutex> lock(ctx_reg().mu);
	if (CUresult r = resolve_stream(hStream, ptds, &st))
		return r;
	*pctx = to_handle(st->ctx);
	return CUDA_SUCCESS;
}

extern "C" CUresult cuStreamGetCtx(CUstream hStream, CUcontext *pctx) noexcept
{
	return guard([&] { return stream_get_ctx(hStream, pctx, false); });
}

extern "C" CUresult cuStreamGetCtx_ptsz(CUstream hStream, CUcontext *pctx) noexcept
{
	return guard([&] { return stream_get_ctx(hStream, pctx, true); });
}

static Event *find_event(CUevent h)
{
	Event *e = from_handle(h);

	return h && ctx_reg().known_events.count(e) ? e : nullptr;
}

static CUresult stream_wait_event(CUstream hStream, CUevent hEvent, unsigned int Flags, bool ptds)
{
	Stream *st;

	if (CUresult r = check_init())
		return r;
	std::lock_guard<std::mutex> lock(ctx_reg().mu);
	Event *e = find_event(hEvent);
	if (!e)
		return CUDA_ERROR_INVALID_HANDLE;
	/* CU_EVENT_WAIT_EXTERNAL only means something while capturing. */
	if (Flags == CU_EVENT_WAIT_EXTERNAL)
		return CUDA_ERROR_ILLEGAL_STATE;
	if (Flags)
		return CUDA_ERROR_INVALID_VALUE;
	if (CUresult r = resolve_stream(hStream, ptds, &st))
		return r;
	st->last = std::max(st->last, e->fence);
	return CUDA_SUCCESS;
}

extern "C" CUresult cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags) noexcept
{
	return guard([&] { return stream_wait_event(hStream, hEvent, Flags, false); });
}

extern "C" CUresult cuStreamWaitEvent_ptsz(CUstream hStream, CUevent hEvent,
					   unsigned int Flags) noexcept
{
	return guard([&] { return stream_wait_event(hStream, hEvent, Flags, true); });
}

/* Events */

extern "C" CUresult cuEventCreate(CUevent *phEvent, unsigned int Flags) noexcept
{
	return guard([&]() -> CUresult {
		Context *ctx;
		const unsigned int known = CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING |
					   CU_EVENT_INTERPROCESS;

		if (CUresult r = current_context(&ctx))
			return r;
		if (!phEvent || (Flags & ~known))
			return CUDA_ERROR_INVALID_VALUE;
		/* Interprocess events cannot carry timing. */
		if ((Flags & CU_EVENT_INTERPROCESS) && !(Flags & CU_EVENT_DISABLE_TIMING))
			return CUDA_ERROR_INVALID_VALUE;
		auto e = std::make_unique<Event>();
		e->ctx = ctx;
		e->flags = Flags;
		std::lock_guard<std::mutex> lock(ctx_reg().mu);
		ctx_reg().known_events.insert(e.get());
		ctx->events.insert(e.get());
		*phEvent = to_handle(e.release());
		return CUDA_SUCCESS;
	});
}

/*
 * Event times.  An event's time is when the work before it completed: the
 * driver records the completion time of every fence (UVM_IOC_FENCE_TIME,
 * CLOCK_MONOTONIC) and keeps the last UVM_FENCE_TIMES_KEPT; an event with
 * nothing left to wait for when it was recorded takes the time of the
 * record, as a GPU that reaches the record at once.  The time is learnt at
 * the record (work already done), at the first wait or query that finds the
 * work done, or at cuEventElapsedTime.  Should the driver have forgotten it
 * (more than UVM_FENCE_TIMES_KEPT later fences completed first) or not keep
 * times at all (before API 1.6), the event takes the time it was first
 * seen complete: later than the truth, never earlier.
 */
static uint64_t monotonic_ns()
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return static_cast<uint64_t>(ts.tv_sec) * 1000000000ULL + ts.tv_nsec;
}

/* Has @fence completed?  Its time in *ns if the driver still has it, else
 * now.  0, or -EAGAIN while pending.  ContextRegistry::mu held. */
static int fence_completion_time(uint64_t fence, uint64_t *ns)
{
	const Device &dev = driver();
	struct uvm_ioc_fence_time t {};
	int r = -ENOTTY;

	if (dev.version.caps & UVM_CAP_FENCE_TIME) {
		t.fence = fence;
		r = dev.ioctl(UVM_IOC_FENCE_TIME, &t);
	}
	if (r == -EAGAIN)
		return r;
	if (!r) {
		*ns = t.completed_ns;
		return 0;
	}
	if (r != -ENOENT && ctx_reg().fences.wait(dev, fence, true) == -EAGAIN)
		return -EAGAIN;
	*ns = monotonic_ns();
	return 0;
}

/* Learn an event's time if its work is done: 0, or -EAGAIN.  ContextRegistry::mu held. */
static int event_time(Event *e)
{
	if (!e->timed) {
		if (int r = fence_completion_time(e->fence, &e->time_ns))
			return r;
		e->timed = true;
	}
	return 0;
}

static CUresult event_record(CUevent hEvent, CUstream hStream, bool ptds)
{
	Stream *st;

	if (CUresult r = check_init())
		return r;
	std::lock_guard<std::mutex> lock(ctx_reg().mu);
	Event *e = find_event(hEvent);
	if (!e)
		return CUDA_ERROR_INVALID_HANDLE;
	if (CUresult r = resolve_stream(hStream, ptds, &st))
		return r;
	e->fence = stream_barrier(st);
	e->recorded = true;
	e->timed = false;
	if (e->flags & CU_EVENT_DISABLE_TIMING)
		return CUDA_SUCCESS;
	/* Nothing left before it: the record's own time. */
	if (!e->fence || !ctx_reg().fences.wait(driver(), e->fence, true)) {
		e->time_ns = monotonic_ns();
		e->timed = true;
	}
	return CUDA_SUCCESS;
}

extern "C" CUresult cuEventRecord(CUevent hEvent, CUstream hStream) noexcept
{
	return guard([&] { return event_record(hEvent, hStream, false); });
}

extern "C" CUresult cuEventRecord_ptsz(CUevent hEvent, CUstream hStream) noexcept
{
	return guard([&] { return event_record(hEvent, hStream, true); });
}

static CUresult event_wait(CUevent hEvent, bool poll)
{
	ContextRegistry &s = ctx_reg();
	uint64_t fence;

	if (CUresult r = check_init())
		return r;
	{
		std::lock_guard<std::mutex> lock(s.mu);
		Event *e = find_event(hEvent);
		if (!e)
			return CUDA_ERROR_INVALID_HANDLE;
		fence = e->fence;
	}
	int r = s.fences.wait(driver(), fence, poll);
	if (r == -EAGAIN)
		return CUDA_ERROR_NOT_READY;
	if (r)
		return from_errno(r);
	{
		/* Done: learn its time while the driver has it. */
		std::lock_guard<std::mutex> lock(s.mu);
		Event *e = find_event(hEvent);
		if (e && e->recorded && e->fence == fence && !(e->flags & CU_EVENT_DISABLE_TIMING))
			event_time(e);
	}
	return async_error(s.fences.peek_error(fence));
}

extern "C" CUresult cuEventQuery(CUevent hEvent) noexcept
{
	return guard([&] { return event_wait(hEvent, true); });
}

extern "C" CUresult cuEventSynchronize(CUevent hEvent) noexcept
{
	return guard([&] { return event_wait(hEvent, false); });
}

/*
 * cuEventElapsedTime: as NVIDIA's driver answers (probe_evtime.txt), a NULL
 * result pointer, an unknown event, one never recorded or made with
 * CU_EVENT_DISABLE_TIMING are CUDA_ERROR_INVALID_HANDLE; work still pending
 * before either is CUDA_ERROR_NOT_READY; the result may be negative.
 */
extern "C" CUresult cuEventElapsedTime_v2(float *pMilliseconds, CUevent hStart,
					  CUevent hEnd) noexcept
{
	return guard([&]() -> CUresult {
		if (CUresult r = check_init())
			return r;
		std::lock_guard<std::mutex> lock(ctx_reg().mu);
		Event *a = find_event(hStart), *b = find_event(hEnd);

		if (!pMilliseconds || !a || !b || !a->recorded || !b->recorded ||
		    ((a->flags | b->flags) & CU_EVENT_DISABLE_TIMING))
			return CUDA_ERROR_INVALID_HANDLE;
		int ra = event_time(a), rb = event_time(b);
		if (ra || rb)
			return CUDA_ERROR_NOT_READY;
		const int64_t ns = static_cast<int64_t>(b->time_ns - a->time_ns);
		*pMilliseconds = static_cast<float>(static_cast<double>(ns) / 1e6);
		return CUDA_SUCCESS;
	});
}

extern "C" CUresult cuEventDestroy_v2(CUevent hEvent) noexcept
{
	if (CUresult r = check_init())
		return r;
	std::lock_guard<std::mutex> lock(ctx_reg().mu);
	Event *e = find_event(hEvent);
	if (!e)
		return CUDA_ERROR_INVALID_HANDLE;
	ctx_reg().known_events.erase(e);
	e->ctx->events.erase(e);
	delete e;
	return CUDA_SUCCESS;
}
