// SPDX-License-Identifier: MIT
/*
 * symbol.cpp - device variables: uvmRegisterVar/uvmUnregisterVar (the part
 * of a runtime's __cudaRegisterVar that is memory), cudaGetSymbolAddress,
 * cudaGetSymbolSize, cudaMemcpyToSymbol, cudaMemcpyFromSymbol and their
 * asynchronous forms.
 *
 * A registered variable is known by its host shadow's address (the
 * `symbol` of the runtime calls: CUDA 5 and later take no names) and keeps
 * its size, device-side name, __constant__ flag and initial bytes (the
 * shadow's bytes at registration).  Its instances are device memory, one
 * per context that used it (for the runtime: the primary context of each
 * device), each an ordinary device allocation of that context marked
 * Allocation::symbol, so that pointer attributes, copies and the context's
 * teardown treat it as the device memory it is and cuMemFree refuses it.
 * An instance is made on first use, from the initial bytes, as NVIDIA's
 * runtime loads a module into a context: after cudaDeviceReset (or the
 * destruction of the context) the allocation is gone, which the buffer id
 * the instance recorded (never reused) tells, and the next use makes a
 * fresh instance with the initial bytes again.
 *
 * The symbol calls check, in this order: the runtime's initialisation, a
 * NULL output of cudaGetSymbolAddress/Size (cudaErrorInvalidValue), the
 * symbol (cudaErrorInvalidSymbol), the kind (cudaErrorInvalidMemcpyDirection:
 * to a symbol HostToDevice, DeviceToDevice or Default; from one
 * DeviceToHost, DeviceToDevice or Default), the byte range (offset + count
 * beyond the variable: cudaErrorInvalidValue, also for 0 bytes); then the
 * copy is cudaMemcpy's or cudaMemcpyAsync's (runtime_memcpy(): 0 bytes
 * succeed, the other side is validated there, the same synchronisation).
 * The codes are among those CUDA's documentation lists for these calls, and
 * are what HIP's tests of the same calls expect for each case; the order
 * between them was not probed on NVIDIA's runtime.
 *
 * Locking: Registry::mu protects the table of variables and is a leaf (a
 * variable found is a shared_ptr, used after the lock is dropped).
 * Var::create_mu serialises the making and freeing of one variable's
 * instances and is taken before the domain locks: it is held across the initial
 * copy, which waits for its fence, so that threads using a variable first at
 * the same time make one instance.  Var::instances is protected by
 * MemoryRegistry::mu (an instance is an allocation).
 */
#include <cerrno>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "context.h"
#include "copy.h"
#include "device.h"
#include "memory.h"
#include "libuvm.h"

namespace uvm {
namespace {

/* One context's instance of a variable. */
struct Instance {
	uint64_t base = 0;
	uint64_t buffer_id = 0;		/* of the allocation: tells a freed one */
};

/**
 * struct Var - a registered device variable
 * @name:	the device-side name
 * @size:	bytes
 * @flags:	UVM_VAR_*
 * @init:	the initial bytes
 * @create_mu:	serialises making and freeing instances; before MemoryRegistry::mu
 * @dead:	unregistered (@create_mu)
 * @instances:	context -> instance (MemoryRegistry::mu)
 */
struct Var {
	std::string name;
	uint64_t size = 0;
	unsigned int flags = 0;
	std::vector<unsigned char> init;
	std::mutex create_mu;
	bool dead = false;
	std::unordered_map<Context *, Instance> instances;
};

/* The variables, by host shadow address. */
struct Registry {
	std::mutex mu;
	std::unordered_map<uintptr_t, std::shared_ptr<Var>> vars;
};

Registry &registry()
{
	/* Never destroyed: runtimes unregister from their destructors. */
	static Registry *r = new Registry;
	return *r;
}

std::shared_ptr<Var> find_var(const void *symbol)
{
	Registry &reg = registry();
	std::lock_guard<std::mutex> lock(reg.mu);
	auto it = reg.vars.find(reinterpret_cast<uintptr_t>(symbol));

	return it == reg.vars.end() ? nullptr : it->second;
}

/**
 * live_instance() - a context's instance of a variable, if it still exists
 * @v:		the variable
 * @ctx:	the context
 *
 * An instance whose allocation went with its context is forgotten.
 *
 * Context: MemoryRegistry::mu held.
 * Return: its address, or 0.
 */
uint64_t live_instance(Var &v, Context *ctx)
{
	auto it = v.instances.find(ctx);

	if (it == v.instances.end())
		return 0;
	auto a = mem_reg().allocations.find(it->second.base);
	if (a != mem_reg().allocations.end() && a->second.buffer_id == it->second.buffer_id)
		return it->second.base;
	v.instances.erase(it);
	return 0;
}

/* Free an allocation made for an instance, if it is still there.
 * MemoryRegistry::mu held. */
void drop_allocation(uint64_t base, uint64_t buffer_id)
{
	auto it = mem_reg().allocations.find(base);

	if (it != mem_reg().allocations.end() && it->second.buffer_id == buffer_id)
		free_allocation(it);
}

/**
 * make_instance() - a new instance of a variable in the current context
 * @v:		the variable (its create_mu held)
 * @ctx:	the calling thread's current context
 * @out:	its address
 *
 * Device memory of the context's device, filled with the initial bytes by a
 * synchronous copy on the context's legacy stream (stream ordered before
 * any later use of the variable).
 *
 * Return: a CUresult (CUDA_ERROR_OUT_OF_MEMORY: the GPU is full).
 */
CUresult make_instance(Var &v, Context *ctx, uint64_t *out)
{
	Instance in;

	if (!driver_has_memory_api())
		return CUDA_ERROR_NOT_SUPPORTED;
	{
		std::lock_guard<std::mutex> lock(mem_reg().mu);
		if (int r = alloc_device(ctx->device, v.size, ctx, &in.base))
			return r == -EINVAL ? CUDA_ERROR_OUT_OF_MEMORY : from_errno(r);
		Allocation &a = mem_reg().allocations.at(in.base);
		a.internal = true;
		in.buffer_id = a.buffer_id;
	}
	CUresult r = runtime_memcpy(reinterpret_cast<void *>(in.base), v.init.data(), v.size,
				    cudaMemcpyHostToDevice, nullptr, false, false);
	std::lock_guard<std::mutex> lock(mem_reg().mu);
	if (r) {
		drop_allocation(in.base, in.buffer_id);
		return r;
	}
	/* A reset of the context meanwhile took the allocation with it. */
	auto a = mem_reg().allocations.find(in.base);
	if (a == mem_reg().allocations.end() || a->second.buffer_id != in.buffer_id)
		return CUDA_ERROR_CONTEXT_IS_DESTROYED;
	v.instances[ctx] = in;
	*out = in.base;
	return CUDA_SUCCESS;
}

/**
 * instance_of() - the current context's instance of a variable
 * @v:		the variable
 * @out:	its address
 *
 * Made on first use; threads using it first at the same time wait for the
 * one that makes it.
 *
 * Return: a CUresult.
 */
CUresult instance_of(Var &v, uint64_t *out)
{
	Context *ctx;

	if (CUresult r = current_context(&ctx))
		return r;
	{
		std::lock_guard<std::mutex> lock(mem_reg().mu);
		if ((*out = live_instance(v, ctx)))
			return CUDA_SUCCESS;
	}
	std::lock_guard<std::mutex> create(v.create_mu);
	if (v.dead)
		return static_cast<CUresult>(cudaErrorInvalidSymbol);
	{
		std::lock_guard<std::mutex> lock(mem_reg().mu);
		if ((*out = live_instance(v, ctx)))
			return CUDA_SUCCESS;
	}
	return make_instance(v, ctx, out);
}

/* The registered variable of a symbol, or cudaErrorInvalidSymbol. */
CUresult lookup(const void *symbol, std::shared_ptr<Var> *v)
{
	*v = find_var(symbol);
	return *v ? CUDA_SUCCESS : static_cast<CUresult>(cudaErrorInvalidSymbol);
}

/* Which way a copy goes. */
enum class Dir { to_symbol, from_symbol };

bool kind_fits(Dir dir, int kind)
{
	switch (kind) {
	case cudaMemcpyDeviceToDevice:
	case cudaMemcpyDefault:
		return true;
	case cudaMemcpyHostToDevice:
		return dir == Dir::to_symbol;
	case cudaMemcpyDeviceToHost:
		return dir == Dir::from_symbol;
	default:
		return false;
	}
}

/**
 * symbol_copy() - cudaMemcpyToSymbol, cudaMemcpyFromSymbol and their forms
 * @dir:	to or from the variable
 * @symbol:	the host shadow's address
 * @other:	the source (to) or destination (from)
 * @count:	bytes
 * @offset:	into the variable
 * @kind:	a cudaMemcpyKind
 * @h:		the stream of the Async forms
 * @ptds:	the per-thread default stream forms
 * @async:	the Async forms
 *
 * Return: a CUresult, or a runtime-only code cast to one.
 */
CUresult symbol_copy(Dir dir, const void *symbol, const void *other, size_t count, size_t offset,
		     int kind, cudaStream_t h, bool ptds, bool async)
{
	std::shared_ptr<Var> v;
	uint64_t base;

	if (CUresult r = lookup(symbol, &v))
		return r;
	if (!kind_fits(dir, kind))
		return static_cast<CUresult>(cudaErrorInvalidMemcpyDirection);
	if (offset > v->size || count > v->size - offset)
		return CUDA_ERROR_INVALID_VALUE;
	if (CUresult r = instance_of(*v, &base))
		return r;
	void *at = reinterpret_cast<void *>(base + offset);
	CUstream s = reinterpret_cast<CUstream>(h);
	if (dir == Dir::to_symbol)
		return runtime_memcpy(at, other, count, kind, s, ptds, async);
	return runtime_memcpy(const_cast<void *>(other), at, count, kind, s, ptds, async);
}

} // namespace
} // namespace uvm

using namespace uvm;

extern "C" CUresult uvmRegisterVar(const void *hostVar, const char *deviceName, size_t size,
				   unsigned int flags) noexcept
{
	return guard([&]() -> CUresult {
		/* A fork child never takes the library's locks. */
		if (dev_state().forked.load())
			return CUDA_ERROR_NOT_INITIALIZED;
		if (!hostVar || !deviceName || !size || (flags & ~UVM_VAR_CONSTANT))
			return CUDA_ERROR_INVALID_VALUE;
		auto v = std::make_shared<Var>();
		const auto *bytes = static_cast<const unsigned char *>(hostVar);
		v->name = deviceName;
		v->size = size;
		v->flags = flags;
		v->init.assign(bytes, bytes + size);
		Registry &reg = registry();
		std::lock_guard<std::mutex> lock(reg.mu);
		if (!reg.vars.emplace(reinterpret_cast<uintptr_t>(hostVar), std::move(v)).second)
			return CUDA_ERROR_INVALID_VALUE;
		return CUDA_SUCCESS;
	});
}

extern "C" CUresult uvmUnregisterVar(const void *hostVar) noexcept
{
	return guard([&]() -> CUresult {
		std::shared_ptr<Var> v;

		if (dev_state().forked.load())
			return CUDA_ERROR_NOT_INITIALIZED;
		{
			Registry &reg = registry();
			std::lock_guard<std::mutex> lock(reg.mu);
			auto it = reg.vars.find(reinterpret_cast<uintptr_t>(hostVar));
			if (it == reg.vars.end())
				return CUDA_ERROR_NOT_FOUND;
			v = std::move(it->second);
			reg.vars.erase(it);
		}
		std::lock_guard<std::mutex> create(v->create_mu);
		v->dead = true;
		{
			std::lock_guard<std::mutex> lock(mem_reg().mu);
			if (v->instances.empty())
				return CUDA_SUCCESS;
		}
		/* Queued work on the instances finishes first, as for cuMemFree. */
		wait_all();
		std::lock_guard<std::mutex> lock(mem_reg().mu);
		for (const auto &[ctx, in] : v->instances)
			drop_allocation(in.base, in.buffer_id);
		v->instances.clear();
		return CUDA_SUCCESS;
	});
}

extern "C" cudaError_t cudaGetSymbolAddress(void **devPtr, const void *symbol) noexcept
{
	return rt([&]() -> CUresult {
		std::shared_ptr<Var> v;
		uint64_t base;

		if (!devPtr)
			return CUDA_ERROR_INVALID_VALUE;
		if (CUresult r = lookup(symbol, &v))
			return r;
		if (CUresult r = instance_of(*v, &base))
			return r;
		*devPtr = reinterpret_cast<void *>(base);
		return CUDA_SUCCESS;
	});
}

extern "C" cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol) noexcept
{
	return rt([&]() -> CUresult {
		std::shared_ptr<Var> v;

		if (!size)
			return CUDA_ERROR_INVALID_VALUE;
		if (CUresult r = lookup(symbol, &v))
			return r;
		*size = v->size;
		return CUDA_SUCCESS;
	});
}

#undef cudaMemcpyToSymbol
#undef cudaMemcpyFromSymbol
#undef cudaMemcpyToSymbolAsync
#undef cudaMemcpyFromSymbolAsync

/*
 * The exported forms: each documented name and its per-thread-default-stream
 * symbol (_ptds for the synchronous calls, _ptsz for the asynchronous ones).
 */
#define TO_SYMBOL(name, ptds)									\
extern "C" cudaError_t name(const void *symbol, const void *src, size_t count, size_t offset,	\
			    enum cudaMemcpyKind kind) noexcept					\
{												\
	return rt([&] {										\
		return symbol_copy(Dir::to_symbol, symbol, src, count, offset, kind, nullptr,	\
				   ptds, false);						\
	});											\
}

#define FROM_SYMBOL(name, ptds)									\
extern "C" cudaError_t name(void *dst, const void *symbol, size_t count, size_t offset,	\
			    enum cudaMemcpyKind kind) noexcept					\
{												\
	return rt([&] {										\
		return symbol_copy(Dir::from_symbol, symbol, dst, count, offset, kind, nullptr,	\
				   ptds, false);						\
	});											\
}

#define TO_SYMBOL_ASYNC(name, ptds)								\
extern "C" cudaError_t name(const void *symbol, const void *src, size_t count, size_t offset,	\
			    enum cudaMemcpyKind kind, cudaStream_t stream) noexcept		\
{												\
	return rt([&] {										\
		return symbol_copy(Dir::to_symbol, symbol, src, count, offset, kind, stream,	\
				   ptds, true);							\
	});											\
}

#define FROM_SYMBOL_ASYNC(name, ptds)								\
extern "C" cudaError_t name(void *dst, const void *symbol, size_t count, size_t offset,	\
			    enum cudaMemcpyKind kind, cudaStream_t stream) noexcept		\
{												\
	return rt([&] {										\
		return symbol_copy(Dir::from_symbol, symbol, dst, count, offset, kind, stream,	\
				   ptds, true);							\
	});											\
}

TO_SYMBOL(cudaMemcpyToSymbol, false)
TO_SYMBOL(cudaMemcpyToSymbol_ptds, true)
FROM_SYMBOL(cudaMemcpyFromSymbol, false)
FROM_SYMBOL(cudaMemcpyFromSymbol_ptds, true)
TO_SYMBOL_ASYNC(cudaMemcpyToSymbolAsync, false)
TO_SYMBOL_ASYNC(cudaMemcpyToSymbolAsync_ptsz, true)
FROM_SYMBOL_ASYNC(cudaMemcpyFromSymbolAsync, false)
FROM_SYMBOL_ASYNC(cudaMemcpyFromSymbolAsync_ptsz, true)
