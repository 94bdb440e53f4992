// SPDX-License-Identifier: MIT
/*
 * context.cpp - primary contexts, created contexts, the per-thread context
 * stack.
 *
 * A context owns the allocations made while it was current, its streams and
 * events.  Destroying it (cuCtxDestroy, or releasing a primary context to
 * zero) waits for queued work, unmaps its allocations and deletes its
 * streams and events; the handle itself stays valid and answers
 * CUDA_ERROR_CONTEXT_IS_DESTROYED where a live context is needed, as
 * NVIDIA's driver does (tests/real-driver/results/probe_ctx.txt).  A primary
 * context keeps its handle across release and retain.
 */
#include "context.h"
#include "copy.h"
#include "device.h"
#include "memory.h"

namespace uvm {

ContextRegistry &ctx_reg()
{
	/* Never destroyed: other libraries' destructors may still call us. */
	static ContextRegistry *r = new ContextRegistry;
	return *r;
}

/**
 * context_release_resources() - free what a context owns
 * @ctx:	the context being destroyed
 *
 * Its allocations are the memory domain's, its arrays' tiles hold tile
 * pools of the VMM domain.
 *
 * Context: a DomainLock of kAllDomains held; the caller waited for the
 * queued work.
 */
void context_release_resources(Context *ctx)
{
	ContextRegistry &reg = ctx_reg();
	auto &allocations = mem_reg().allocations;

	for (auto it = allocations.begin(); it != allocations.end();) {
		auto next = std::next(it);

		if (it->second.ctx == ctx)
			free_allocation(it);
		it = next;
	}
	release_context_arrays(ctx);
	for (Stream *st : ctx->streams) {
		reg.known_streams.erase(st);
		delete st;
	}
	ctx->streams.clear();
	for (Event *e : ctx->events) {
		reg.known_events.erase(e);
		delete e;
	}
	ctx->events.clear();
	ctx->legacy->last = 0;
	ctx->legacy->pending.clear();
	ctx->alive = false;
}

unsigned int context_flags(const Context *ctx)
{
	return ctx->flags | (ctx->primary ? CU_CTX_MAP_HOST : 0);
}

/* A handle the library gave out (live or destroyed); ContextRegistry::mu
 * held. */
static bool known_context(CUcontext h)
{
	return h && ctx_reg().known_contexts.count(from_handle(h));
}

CUresult live_context(CUcontext h, Context **ctx)
{
	if (!known_context(h))
		return CUDA_ERROR_INVALID_CONTEXT;
	*ctx = from_handle(h);
	return (*ctx)->alive ? CUDA_SUCCESS : CUDA_ERROR_CONTEXT_IS_DESTROYED;
}

static CUresult destroy_context(Context *ctx)
{
	wait_all();
	DomainLock lock(kAllDomains);
	if (ctx->alive)
		context_release_resources(ctx);
	return CUDA_SUCCESS;
}

} // namespace uvm

using namespace uvm;

extern "C" CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev) noexcept
{
	if (CUresult r = check_init())
		return r;
	if (!pctx)
		return CUDA_ERROR_INVALID_VALUE;
	if (!valid_device(dev))
		return CUDA_ERROR_INVALID_DEVICE;
	std::lock_guard<std::mutex> lock(ctx_reg().mu);
	Context *ctx = ctx_reg().primaries[dev];
	if (ctx->refcount++ == 0)
		ctx->alive = true;
	*pctx = to_handle(ctx);
	return CUDA_SUCCESS;
}

extern "C" CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev) noexcept
{
	return guard([&]() -> CUresult {
		Context *ctx;

		if (CUresult r = check_init())
			return r;
		if (!valid_device(dev))
			return CUDA_ERROR_INVALID_DEVICE;
		{
			std::lock_guard<std::mutex> lock(ctx_reg().mu);
			ctx = ctx_reg().primaries[dev];
			if (ctx->refcount == 0)
				return CUDA_ERROR_INVALID_CONTEXT;
			if (--ctx->refcount > 0)
				return CUDA_SUCCESS;
		}
		return destroy_context(ctx);
	});
}

extern "C" CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev) noexcept
{
	return guard([&]() -> CUresult {
		Context *ctx;

		if (CUresult r = check_init())
			return r;
		if (!valid_device(dev))
			return CUDA_ERROR_INVALID_DEVICE;
		{
			std::lock_guard<std::mutex> lock(ctx_reg().mu);
			ctx = ctx_reg().primaries[dev];
			ctx->refcount = 0;
		}
		return destroy_context(ctx);
	});
}

extern "C" CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags,
					       int *active) noexcept
{
	if (CUresult r = check_init())
		return r;
	if (!flags || !active)
		return CUDA_ERROR_INVALID_VALUE;
	if (!valid_device(dev))
		return CUDA_ERROR_INVALID_DEVICE;
	std::lock_guard<std::mutex> lock(ctx_reg().mu);
	Context *ctx = ctx_reg().primaries[dev];
	*flags = ctx->flags;
	*active = ctx->refcount > 0;
	return CUDA_SUCCESS;
}

extern "C" CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice dev, unsigned int flags) noexcept
{
	if (CUresult r = check_init())
		return r;
	if (!valid_device(dev))
		return CUDA_ERROR_INVALID_DEVICE;
	if (flags & ~static_cast<unsigned int>(CU_CTX_FLAGS_MASK))
		return CUDA_ERROR_INVALID_VALUE;
	std::lock_guard<std::mutex> lock(ctx_reg().mu);
	ctx_reg().primaries[dev]->flags = flags;
	return CUDA_SUCCESS;
}

static CUresult ctx_create(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
	if (CUresult r = check_init())
		return r;
	if (!pctx || (flags & ~static_cast<unsigned int>(CU_CTX_FLAGS_MASK)))
		return CUDA_ERROR_INVALID_VALUE;
	if (!valid_device(dev))
		return CUDA_ERROR_INVALID_DEVICE;
	auto ctx = std::make_unique<Context>();
	ctx->device = dev;
	ctx->flags = flags;
	ctx->legacy = std::make_unique<Stream>();
	ctx->legacy->ctx = ctx.get();
	ctx->legacy->legacy = true;
	std::lock_guard<std::mutex> lock(ctx_reg().mu);
	Context *c = ctx.get();
	ctx_reg().known_contexts.insert(c);
	ctx_reg().contexts.push_back(std::move(ctx));
	thread_state().stack.push_back(c);
	*pctx = to_handle(c);
	return CUDA_SUCCESS;
}

extern "C" CUresult cuCtxCreate_v4(CUcontext *pctx, CUctxCreateParams *ctxCreateParams,
				   unsigned int flags, CUdevice dev) noexcept
{
	return guard([&]() -> CUresult {
		if (CUresult r = check_init())
			return r;
		/* Execution affinity and CIG need hardware partitioning. */
		if (ctxCreateParams && (ctxCreateParams->numExecAffinityParams > 0 ||
					ctxCreateParams->cigParams))
			return CUDA_ERROR_NOT_SUPPORTED;
		return ctx_create(pctx, flags, dev);
	});
}

extern "C" CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev) noexcept
{
	return guard([&] { return ctx_create(pctx, flags, dev); });
}

extern "C" CUresult cuCtxDestroy_v2(CUcontext ctx) noexcept
{
	return guard([&]() -> CUresult {
		if (CUresult r = check_init())
			return r;
		if (!ctx)
			return CUDA_ERROR_INVALID_VALUE;
		Context *c = from_handle(ctx);
		{
			std::lock_guard<std::mutex> lock(ctx_reg().mu);
			if (!known_context(ctx) || c->primary || !c->alive)
				return CUDA_ERROR_INVALID_CONTEXT;
		}
		destroy_context(c);
		/* Popped if it is the calling thread's current one; elsewhere in
		 * stacks it stays, destroyed. */
		auto &stack = thread_state().stack;
		if (!stack.empty() && stack.back() == c)
			stack.pop_back();
		return CUDA_SUCCESS;
	});
}

extern "C" CUresult cuCtxPushCurrent_v2(CUcontext ctx) noexcept
{
	return guard([&]() -> CUresult {
		if (CUresult r = check_init())
			return r;
		if (!ctx)
			return CUDA_ERROR_INVALID_VALUE;
		std::lock_guard<std::mutex> lock(ctx_reg().mu);
		if (!known_context(ctx))
			return CUDA_ERROR_INVALID_CONTEXT;
		thread_state().stack.push_back(from_handle(ctx));
		return CUDA_SUCCESS;
	});
}

extern "C" CUresult cuCtxPopCurrent_v2(CUcontext *pctx) noexcept
{
	if (CUresult r = check_init())
		return r;
	auto &stack = thread_state().stack;
	if (stack.empty())
		return CUDA_ERROR_INVALID_CONTEXT;
	if (pctx)
		*pctx = to_handle(stack.back());
	stack.pop_back();
	return CUDA_SUCCESS;
}

extern "C" CUresult cuCtxSetCurrent(CUcontext ctx) noexcept
{
	return guard([&]() -> CUresult {
		if (CUresult r = check_init())
			return r;
		auto &stack = thread_state().stack;
		if (!ctx) {
			if (!stack.empty())
				stack.pop_back();
			return CUDA_SUCCESS;
		}
		std::lock_guard<std::mutex> lock(ctx_reg().mu);
		if (!known_context(ctx))
			return CUDA_ERROR_INVALID_CONTEXT;
		if (stack.empty())
			stack.push_back(from_handle(ctx));
		else
			stack.back() = from_handle(ctx);
		return CUDA_SUCCESS;
	});
}

extern "C" CUresult cuCtxGetCurrent(CUcontext *pctx) noexcept
{
	if (CUresult r = check_init())
		return r;
	if (!pctx)
		return CUDA_ERROR_INVALID_VALUE;
	auto &stack = thread_state().stack;
	*pctx = stack.empty() ? nullptr : to_handle(stack.back());
	return CUDA_SUCCESS;
}

extern "C" CUresult cuCtxGetDevice(CUdevice *device) noexcept
{
	Context *ctx;

	if (CUresult r = check_init())
		return r;
	if (!device)
		return CUDA_ERROR_INVALID_VALUE;
	if (CUresult r = current_context(&ctx))
		return r;
	*device = ctx->device;
	return CUDA_SUCCESS;
}

extern "C" CUresult cuCtxGetFlags(unsigned int *flags) noexcept
{
	Context *ctx;

	if (CUresult r = check_init())
		return r;
	if (!flags)
		return CUDA_ERROR_INVALID_VALUE;
	if (CUresult r = current_context(&ctx))
		return r;
	*flags = context_flags(ctx);
	return CUDA_SUCCESS;
}

extern "C" CUresult cuCtxSynchronize(void) noexcept
{
	return guard([&]() -> CUresult {
		Context *ctx;

		if (CUresult r = current_context(&ctx))
			return r;
		return context_sync(ctx);
	});
}
