// SPDX-License-Identifier: MIT
/*
 * context.h - the contexts domain: contexts, streams, events, the driver's
 * fences and the per-thread context stack (context.cpp, stream.cpp,
 * runtime.cpp).
 *
 * Locking: ContextRegistry::mu protects the registry's tables and every
 * member of the Context, Stream and Event objects that can change (alive,
 * refcount, flags, streams, events, peers; a stream's last and pending; an
 * event's fence and times).  A Context's device, primary and legacy stream
 * never change.  It is held across the short calls that submit work on a
 * stream (so that the stream cannot go while its fence is recorded) and
 * never across a blocking wait.  It is the first of the domain locks
 * (common.h): a call that also needs allocations or VMM state takes them
 * after it, through a DomainLock.  FenceTracker::mu_ is a leaf lock.
 * ThreadState is the calling thread's own and needs no lock.
 */
#ifndef LIBUVM_CONTEXT_H
#define LIBUVM_CONTEXT_H

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_set>
#include <vector>

#include "common.h"

namespace uvm {

/**
 * class FenceTracker - completion and errors of the driver's migrate fences.
 *
 * Fences of the VA space complete in submission order.  The driver reports a
 * failed batch's error once, to the first FENCE_WAIT on that fence; the
 * tracker collects every error up to the highest fence it has seen complete,
 * so that the stream that submitted a batch gets its error however the fence
 * was waited for.
 */
class FenceTracker {
public:
	/* Wait for (or with poll, test) fence f; 0, -EAGAIN or -EINTR. */
	int wait(const Device &dev, uint64_t f, bool poll);
	/* Remove and return the recorded error of fence f, or 0. */
	int take_error(uint64_t f);
	int peek_error(uint64_t f);
	void reset();

private:
	void harvest(const Device &dev, uint64_t upto);

	std::mutex mu_;			/* leaf: harvested_, errors_ */
	uint64_t harvested_ = 0;	/* errors of fences <= this are collected */
	std::map<uint64_t, int> errors_;
};

struct Context;

/**
 * struct Stream - a CUDA stream.  Stream order is the driver's fence order:
 * the stream remembers the fences of its work (and of events it waits on).
 */
struct Stream {
	Context *ctx = nullptr;
	unsigned int flags = 0;
	bool legacy = false;		/* the context's legacy NULL stream */
	bool per_thread = false;	/* a thread's per-thread default stream */
	uint64_t last = 0;		/* fence all earlier work of the stream is in */
	std::vector<uint64_t> pending;	/* fences whose errors it has to report */
};

/** struct Event - a CUDA event: the fence of the work recorded before it. */
struct Event {
	Context *ctx = nullptr;
	unsigned int flags = 0;
	uint64_t fence = 0;		/* 0: never recorded, or nothing to wait for */
	bool recorded = false;
	bool timed = false;		/* time_ns known */
	uint64_t time_ns = 0;		/* CLOCK_MONOTONIC: when the work before it
					 * completed, or the record if none was left */
};

/**
 * struct Context - a CUDA context.  Never freed: a destroyed context stays as
 * a handle that answers CUDA_ERROR_CONTEXT_IS_DESTROYED, as NVIDIA's does.
 */
struct Context {
	int device = 0;
	unsigned int flags = 0;
	bool primary = false;
	bool alive = true;
	int refcount = 0;		/* primary contexts: retains */
	std::unique_ptr<Stream> legacy;
	std::unordered_set<Stream *> streams;	/* created streams */
	std::unordered_set<Event *> events;
	/* Devices whose memory it may reach (cuCtxEnablePeerAccess). */
	std::unordered_set<int> peers;
};

/* Per-thread state. */
struct ThreadState {
	std::vector<Context *> stack;	/* context stack; back() is current */
	std::map<Context *, std::unique_ptr<Stream>> ptds;	/* per-thread streams */
	int rt_device = 0;		/* runtime: cudaSetDevice */
	cudaError_t rt_last_error = cudaSuccess;
	uint64_t generation = 0;	/* of the registry, to drop stale pointers */
};
ThreadState &thread_state();

/**
 * struct ContextRegistry - the contexts, streams and events of the process
 * @mu:			protects the tables below and the objects in them
 *			(Locking above)
 * @contexts:		every context made; never shrinks
 * @primaries:		one per device, made by cuInit()
 * @known_contexts:	handles the library gave out (live or destroyed)
 * @known_streams:	streams of cuStreamCreate not destroyed
 * @known_events:	events of cuEventCreate not destroyed
 * @rt_retained:	the runtime holds the device's primary context
 * @generation:		bumped in a fork child: thread stacks of an earlier
 *			life are dropped (atomic, no lock)
 * @fences:		errors of the driver's fences (its own leaf lock)
 * @last_fence:		highest fence submitted (atomic, no lock)
 */
struct ContextRegistry {
	std::mutex mu;
	std::vector<std::unique_ptr<Context>> contexts;
	std::vector<Context *> primaries;
	std::unordered_set<Context *> known_contexts;
	std::unordered_set<Stream *> known_streams;
	std::unordered_set<Event *> known_events;
	std::vector<bool> rt_retained;
	std::atomic<uint64_t> generation{1};
	FenceTracker fences;
	std::atomic<uint64_t> last_fence{0};
};
ContextRegistry &ctx_reg();

/* check_init() plus a live current context, returned in *ctx; takes
 * ContextRegistry::mu. */
CUresult current_context(Context **ctx);
/* A context the library made and did not destroy, ContextRegistry::mu
 * held: CUDA_ERROR_INVALID_CONTEXT for any other handle, NULL included;
 * CUDA_ERROR_CONTEXT_IS_DESTROYED for one destroyed. */
CUresult live_context(CUcontext h, Context **ctx);
/* The device of the calling thread's current context, or 0. */
int current_device();

/* Streams (stream.cpp).  resolve_stream() maps NULL / legacy / per-thread
 * handles onto Stream objects; ContextRegistry::mu held. */
CUresult resolve_stream(CUstream h, bool per_thread_default, Stream **out);
/* Record a submitted fence on a stream (ContextRegistry::mu held). */
void stream_add_fence(Stream *s, uint64_t fence);
/* Account for a submitted fence the caller waits for itself (no lock). */
void note_fence(uint64_t fence);
/* Wait for (poll: test) the work of a stream; returns its first async
 * error, or CUDA_ERROR_NOT_READY when polling unfinished work. */
CUresult stream_sync(CUstream h, bool per_thread_default, bool poll);
/* Wait for the work of every stream of a context; its first async error. */
CUresult context_sync(Context *ctx);
/* Wait for everything submitted so far (errors stay with their streams). */
void wait_all();
/* Fence all work of s and of what it waits on is in (ContextRegistry::mu
 * held). */
uint64_t stream_barrier(Stream *s);

/* Contexts (context.cpp): tear down a context's allocations, arrays and
 * streams; a DomainLock of kAllDomains held. */
void context_release_resources(Context *ctx);
/* What cuCtxGetFlags reports of a context: its flags, and CU_CTX_MAP_HOST
 * for a primary context (always on; never stored, as NVIDIA's driver). */
unsigned int context_flags(const Context *ctx);

/* The opaque handles of cuda.h are pointers to our objects (never
 * dereferenced as the incomplete CUDA types). */
inline CUcontext to_handle(Context *c) { return reinterpret_cast<CUcontext>(c); }
inline Context *from_handle(CUcontext h) { return reinterpret_cast<Context *>(h); }
inline CUstream to_handle(Stream *s) { return reinterpret_cast<CUstream>(s); }
inline Stream *from_handle(CUstream h) { return reinterpret_cast<Stream *>(h); }
inline CUevent to_handle(Event *e) { return reinterpret_cast<CUevent>(e); }
inline Event *from_handle(CUevent h) { return reinterpret_cast<Event *>(h); }

} // namespace uvm

#endif /* LIBUVM_CONTEXT_H */
