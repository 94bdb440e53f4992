// SPDX-License-Identifier: MIT
/*
 * copy.cpp - cuMemcpy*, cuMemsetD* and their asynchronous forms, through
 * the driver's copy engines (UVM_IOC_COPY, UVM_IOC_MEMSET), and the box
 * every copy and set is: 2D and 3D ones (pitched.cpp) are one driver job
 * each (UVM_IOC_COPY_3D, UVM_IOC_MEMSET_3D), the engine walking the rows.
 *
 * Copies and sets are jobs of the VA space's queue, ordered by fence with
 * the prefetches and discards: a stream is the fences of its work
 * (stream.cpp), so they are stream ordered for free.  The copy engine of
 * the stream's device works; managed memory is accessed as that GPU would
 * access it (the memory policy decides residency, as a kernel on the device
 * would), so copies neither record nor change the last-prefetch location
 * (probe_devmem.txt "dm.managed.lastprefetch").
 *
 * Validation, NVIDIA's (probe_devmem.txt, probe_copy.txt, probe_null.txt),
 * before anything is queued:
 *  - a side is a byte range [p, p + n) (a box: from its first byte to the end
 *    of its last row) inside one allocation (as asked for:
 *    a sub-allocation's neighbour is out of bounds, "cp.straddle.next.*"),
 *    or ordinary process memory touching none; NULL never is;
 *  - with unified addressing the "host" side of cuMemcpyHtoD/DtoH may be
 *    any memory ("null.htod_src_is_device"), cuMemcpy's sides too; a
 *    "device" side (cuMemcpyHtoD's destination, DtoH's source, both of
 *    DtoD, a memset's destination) must be memory a GPU can use: ordinary
 *    memory only where CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS is 1;
 *  - memory registered READ_ONLY is never a destination;
 *  - VMM memory (a reservation of cuMemAddressReserve) is a side inside
 *    one reservation, every byte mapped with the right of the copying GPU
 *    (read for a source, write for a destination), which the driver checks;
 *  - cuMemsetD16/D32 need an aligned destination; 0 bytes succeed before
 *    any other check ("cp.memcpy.dtod.size0.bad").
 *
 * Synchronisation, as CUDA's "API synchronization behavior" says:
 *  - the synchronous copies return when the copy is done, except between
 *    device memory (device or managed) where they return at once, in stream
 *    order on the default stream;
 *  - the synchronous sets return at once except for host memory;
 *  - CU_POINTER_ATTRIBUTE_SYNC_MEMOPS (set on managed memory, and on device
 *    memory by a P2P_TOKENS query) makes them synchronous;
 *  - the asynchronous forms return at once, except with pageable memory,
 *    which NVIDIA's driver stages before returning
 *    ("env.cp.async.htod.pageable_staged_at_call"): the driver pins pageable
 *    memory and reads it when the job runs, so libuvm waits for such jobs.
 * Overlapping copies (undefined in CUDA) run as NVIDIA's do, like memmove,
 * through a bounce buffer.  An error of a job the call waited for is the
 * call's; otherwise the stream's synchronisation reports it.
 */
#include <algorithm>
#include <cerrno>
#include <memory>
#include <vector>

#include "context.h"
#include "copy.h"
#include "device.h"
#include "memory.h"
#include "vmm.h"

namespace uvm {
namespace {

struct Side {
	uint64_t addr = 0;
	Allocation *a = nullptr;	/* nullptr: ordinary process memory */
	bool vmm = false;		/* in a reservation (cuMemAddressReserve) */
	bool vmm_host = false;		/* ... of host-located memory */

	/* Ordinary process memory, which the driver pins for the copy. */
	bool pageable() const { return !a && !vmm; }
};

/**
 * classify() - validate one side of a copy or set
 * @p:		first byte
 * @n:		bytes, > 0
 * @role:	Role::any or Role::device
 * @write:	the destination
 * @side:	out
 *
 * Context: domains held.
 * Return: CUDA_SUCCESS or CUDA_ERROR_INVALID_VALUE.
 */
CUresult classify(uint64_t p, uint64_t n, Role role, bool write, Side *side)
{
	if (!p || p + n < p)
		return CUDA_ERROR_INVALID_VALUE;
	side->addr = p;
	side->a = find_allocation(p);
	if (Allocation *a = side->a) {
		if (p + n - a->base > a->size)
			return CUDA_ERROR_INVALID_VALUE;
		if (write && a->kind == Kind::registered && a->read_only)
			return CUDA_ERROR_INVALID_VALUE;
		return CUDA_SUCCESS;
	}
	/* VMM memory: inside one reservation; the driver checks that every
	 * byte is mapped with the copying GPU's right (-EINVAL, -EPERM). */
	uint64_t rbase;
	if (const Reservation *res = find_reservation(p, &rbase)) {
		struct uvm_ioc_mem_query q;

		side->vmm = true;
		side->vmm_host = !vmm_query(p, &q) && q.mapping_size &&
				 q.location.type != UVM_LOCATION_GPU;
		return p + n - rbase <= res->size ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
	}
	if (touches_library_memory(p, n))
		return CUDA_ERROR_INVALID_VALUE;
	if (role == Role::device && !pageable_memory_access())
		return CUDA_ERROR_INVALID_VALUE;
	return CUDA_SUCCESS;
}

/* Device or managed memory without SYNC_MEMOPS, GPU-located VMM memory:
 * work on it need not finish before a synchronous call returns. */
bool async_ok(const Side &s)
{
	if (s.vmm)
		return !s.vmm_host;
	return s.a && (s.a->kind == Kind::device || s.a->kind == Kind::managed) &&
	       !s.a->sync_memops;
}

/* The driver's refusals at submission, as CUDA names them. */
CUresult submit_error(int r)
{
	/* -EPERM: a read-only destination; -EFAULT: ordinary memory that
	 * cannot be pinned (NVIDIA's driver crashes there instead:
	 * "null.memcpyhtod_unmappedsrc"). */
	if (r == -EPERM || r == -EFAULT)
		return CUDA_ERROR_INVALID_VALUE;
	return from_errno(r);
}

/**
 * class Job - the fences of one call's driver jobs
 */
class Job {
public:
	explicit Job(int gpu) : gpu_(gpu) {}

	/*
	 * A box: one UVM_IOC_COPY_3D or UVM_IOC_MEMSET_3D when it holds at
	 * most UVM_COPY_MAX_BYTES, else one per group of rows of a slice (a
	 * row over the limit goes in 1D pieces).  A 1D box is UVM_IOC_COPY or
	 * UVM_IOC_MEMSET.  domains held.
	 */
	int box(const BoxRequest &q, const BoxSide &dst, const BoxSide &src)
	{
		const uint64_t row = q.width * q.elem;

		if (q.height == 1 && q.depth == 1)
			return q.is_set ? set(dst.addr, q.value, q.elem, q.width) :
					  copy(dst.addr, src.addr, row);
		if (row * q.height * q.depth <= UVM_COPY_MAX_BYTES)
			return box_job(q, dst, src, q.height, q.depth);
		for (uint64_t z = 0; z < q.depth; z++) {
			const uint64_t rows = std::max<uint64_t>(1, UVM_COPY_MAX_BYTES / row);

			for (uint64_t y = 0; y < q.height; y += rows) {
				BoxSide d = dst, s = src;
				uint64_t n = std::min(rows, q.height - y);
				int r;

				d.addr += z * dst.slice_pitch + y * dst.pitch;
				s.addr += z * src.slice_pitch + y * src.pitch;
				if (row > UVM_COPY_MAX_BYTES) {
					r = q.is_set ? set(d.addr, q.value, q.elem, q.width) :
						       copy(d.addr, s.addr, row);
				} else {
					r = box_job(q, d, s, n, 1);
				}
				if (r)
					return r;
			}
		}
		return 0;
	}

	/* One UVM_IOC_COPY per UVM_COPY_MAX_BYTES.  domains held. */
	int copy(uint64_t dst, uint64_t src, uint64_t n)
	{
		for (uint64_t off = 0; off < n;) {
			struct uvm_ioc_copy c {};
			uint64_t len = std::min<uint64_t>(n - off, UVM_COPY_MAX_BYTES);

			c.dst = dst + off;
			c.src = src + off;
			c.length = len;
			c.gpu_index = static_cast<__u32>(gpu_);
			c.flags = UVM_COPY_ASYNC;
			if (int r = driver().ioctl(UVM_IOC_COPY, &c))
				return r;
			fences_.push_back(c.fence);
			off += len;
		}
		return 0;
	}

	/* One UVM_IOC_MEMSET per UVM_COPY_MAX_BYTES.  domains held. */
	int set(uint64_t dst, uint32_t value, uint32_t elem, uint64_t count)
	{
		const uint64_t per_job = UVM_COPY_MAX_BYTES / elem;

		for (uint64_t done = 0; done < count;) {
			struct uvm_ioc_memset m {};
			uint64_t k = std::min(count - done, per_job);

			m.dst = dst + done * elem;
			m.count = k;
			m.value = value;
			m.element_size = elem;
			m.gpu_index = static_cast<__u32>(gpu_);
			m.flags = UVM_COPY_ASYNC;
			if (int r = driver().ioctl(UVM_IOC_MEMSET, &m))
				return r;
			fences_.push_back(m.fence);
			done += k;
		}
		return 0;
	}

	/*
	 * One copy of a batch, gathered into UVM_IOC_COPY_BATCH jobs of at
	 * most UVM_COPY_BATCH_MAX copies and UVM_COPY_MAX_BYTES of process
	 * memory per side (@dpin, @spin: this copy's).  domains held.
	 */
	int batch_add(const struct uvm_copy_op &op, uint64_t dpin, uint64_t spin)
	{
		if (batch_.size() == UVM_COPY_BATCH_MAX ||
		    pinned_[0] + dpin > UVM_COPY_MAX_BYTES ||
		    pinned_[1] + spin > UVM_COPY_MAX_BYTES) {
			if (int r = batch_flush())
				return r;
		}
		batch_.push_back(op);
		pinned_[0] += dpin;
		pinned_[1] += spin;
		return 0;
	}

	/* Queue the copies gathered.  domains held. */
	int batch_flush()
	{
		struct uvm_ioc_copy_batch b {};
		int r;

		if (batch_.empty())
			return 0;
		b.ops = reinterpret_cast<uintptr_t>(batch_.data());
		b.count = static_cast<__u32>(batch_.size());
		b.gpu_index = static_cast<__u32>(gpu_);
		b.flags = UVM_COPY_ASYNC;
		r = driver().ioctl(UVM_IOC_COPY_BATCH, &b);
		if (!r)
			fences_.push_back(b.fence);
		batch_.clear();
		pinned_[0] = pinned_[1] = 0;
		return r;
	}

	/* Hand the fences to a stream (errors reported by its sync), or
	 * just account for them (the caller waits).  domains held. */
	void publish(Stream *st, bool waiting)
	{
		for (uint64_t f : fences_) {
			if (waiting)
				note_fence(f);
			else
				stream_add_fence(st, f);
		}
	}

	/* Wait for every fence; the first job error. */
	CUresult wait()
	{
		FenceTracker &fences = ctx_reg().fences;
		int first = 0;

		if (fences_.empty())
			return CUDA_SUCCESS;
		if (int r = fences.wait(driver(), fences_.back(), false))
			return from_errno(r);
		for (uint64_t f : fences_) {
			int e = fences.take_error(f);
			if (e && !first)
				first = e;
		}
		return submit_error(first);
	}

private:
	/* One job of @height rows x @depth slices (at most the limit). */
	int box_job(const BoxRequest &q, const BoxSide &dst, const BoxSide &src,
		    uint64_t height, uint64_t depth)
	{
		struct uvm_box d { dst.addr, dst.pitch, dst.slice_pitch };
		int r;

		if (q.is_set) {
			struct uvm_ioc_memset_3d m {};

			m.dst = d;
			m.width = q.width;
			m.height = static_cast<__u32>(height);
			m.depth = static_cast<__u32>(depth);
			m.value = q.value;
			m.element_size = q.elem;
			m.gpu_index = static_cast<__u32>(gpu_);
			m.flags = UVM_COPY_ASYNC;
			r = driver().ioctl(UVM_IOC_MEMSET_3D, &m);
			if (!r)
				fences_.push_back(m.fence);
			return r;
		}
		struct uvm_ioc_copy_3d c {};

		c.dst = d;
		c.src = { src.addr, src.pitch, src.slice_pitch };
		c.width = q.width;
		c.height = static_cast<__u32>(height);
		c.depth = static_cast<__u32>(depth);
		c.gpu_index = static_cast<__u32>(gpu_);
		c.flags = UVM_COPY_ASYNC;
		r = driver().ioctl(UVM_IOC_COPY_3D, &c);
		if (!r)
			fences_.push_back(c.fence);
		return r;
	}

	int gpu_;
	std::vector<uint64_t> fences_;
	std::vector<struct uvm_copy_op> batch_;
	uint64_t pinned_[2] = {};
};

/* Bytes from a side's first byte to the end of its last row; 0: overflow. */
uint64_t box_span(const BoxRequest &q, const BoxSide &b)
{
	const uint64_t row = q.width * q.elem;
	uint64_t span = row, t;

	if (q.height > 1) {
		if (__builtin_mul_overflow(b.pitch, q.height - 1, &t) ||
		    __builtin_add_overflow(span, t, &span))
			return 0;
	}
	if (q.depth > 1) {
		if (__builtin_mul_overflow(b.slice_pitch, q.depth - 1, &t) ||
		    __builtin_add_overflow(span, t, &span))
			return 0;
	}
	return span;
}

/* Rows of a side that do not overlap (the pitches that are used). */
bool box_rows_ok(const BoxRequest &q, const BoxSide &b)
{
	const uint64_t row = q.width * q.elem;

	if (q.height > 1 && b.pitch < row)
		return false;
	if (q.depth > 1 && b.slice_pitch < (q.height - 1) * b.pitch + row)
		return false;
	return true;
}

/**
 * struct Checked - a box validated, its sides classified
 */
struct Checked {
	Side dst, src;
	uint64_t bytes = 0;		/* in the box */
	uint64_t dspan = 0, sspan = 0;	/* first byte to last, per side */
	bool overlap = false;		/* a copy whose sides share bytes */
};

/**
 * box_check() - validate a box as NVIDIA's driver does
 * @req:	the box
 * @c:		out
 *
 * Context: domains held; @req has no zero dimension.
 * Return: CUDA_SUCCESS, CUDA_ERROR_INVALID_VALUE or CUDA_ERROR_NOT_SUPPORTED.
 */
CUresult box_check(const BoxRequest &req, Checked *c)
{
	if (!driver_has_memory_api() ||
	    ((req.height > 1 || req.depth > 1) && !driver_has_copy_3d()))
		return CUDA_ERROR_NOT_SUPPORTED;
	uint64_t row;
	if (__builtin_mul_overflow(req.width, static_cast<uint64_t>(req.elem), &row) ||
	    __builtin_mul_overflow(row, req.height, &c->bytes) ||
	    __builtin_mul_overflow(c->bytes, req.depth, &c->bytes))
		return CUDA_ERROR_INVALID_VALUE;
	c->dspan = box_span(req, req.dst);
	c->sspan = req.is_set ? 1 : box_span(req, req.src);
	if (!c->dspan || !c->sspan || !box_rows_ok(req, req.dst) ||
	    (!req.is_set && !box_rows_ok(req, req.src)))
		return CUDA_ERROR_INVALID_VALUE;
	if (req.is_set && (req.dst.addr % req.elem ||
			   (req.height > 1 && req.dst.pitch % req.elem) ||
			   (req.depth > 1 && req.dst.slice_pitch % req.elem)))
		return CUDA_ERROR_INVALID_VALUE;
	if (CUresult r = classify(req.dst.addr, std::max(c->dspan, req.dst.extent), req.dst.role,
				  true, &c->dst))
		return r;
	if (req.is_set)
		return CUDA_SUCCESS;
	if (CUresult r = classify(req.src.addr, std::max(c->sspan, req.src.extent), req.src.role,
				  false, &c->src))
		return r;
	const bool identical = req.dst.addr == req.src.addr && req.dst.pitch == req.src.pitch &&
			       req.dst.slice_pitch == req.src.slice_pitch;
	c->overlap = !identical && req.dst.addr < req.src.addr + c->sspan &&
		     req.src.addr < req.dst.addr + c->dspan;
	return CUDA_SUCCESS;
}

/*
 * A copy whose sides share bytes, as memmove: through a packed copy of the
 * source in @bounce, which must live until the jobs ran.  domains held.
 */
int box_bounced(Job &job, const BoxRequest &req, const Checked &c,
		std::unique_ptr<char[]> *bounce)
{
	BoxRequest packed = req;
	const uint64_t row = req.width * req.elem;

	bounce->reset(new char[c.bytes]);
	packed.dst.addr = reinterpret_cast<uintptr_t>(bounce->get());
	packed.dst.pitch = row;
	packed.dst.slice_pitch = row * req.height;
	if (int r = job.box(packed, packed.dst, req.src))
		return r;
	return job.box(packed, req.dst, packed.dst);
}

/*
 * The end of a call that queued @job (@r: the refusal that stopped it, or
 * 0): hand its fences over and, when waiting, drop the domain locks and
 * wait.
 */
CUresult job_finish(Job &job, Stream *st, bool waiting, int r,
		    DomainLock &lock)
{
	/* What was queued before a refusal still runs: its fences count. */
	job.publish(st, waiting);
	if (r && !waiting)
		return submit_error(r);
	lock.unlock();
	CUresult w = waiting ? job.wait() : CUDA_SUCCESS;
	return r ? submit_error(r) : w;
}

/**
 * run_batch() - validate copies and queue them in order as batch jobs
 * @copies:	the copies, none with a zero dimension, no sparse side
 * @st:		the stream
 * @mode:	async: a batch call's waiting; sync_copy: a synchronous copy's
 * @lock:	the DomainLock of every domain, held; dropped to wait
 *
 * Return: a CUresult.
 */
CUresult run_batch(const std::vector<BatchCopy> &copies, Stream *st, Mode mode,
		   DomainLock &lock)
{
	std::vector<std::unique_ptr<char[]>> bounces;
	std::vector<Checked> checked(copies.size());
	bool waiting = false;

	for (size_t i = 0; i < copies.size(); i++) {
		const BatchCopy &bc = copies[i];
		Checked &c = checked[i];

		if (!bc.box.width || !bc.box.height || !bc.box.depth)
			return CUDA_ERROR_INVALID_VALUE;
		if (CUresult r = box_check(bc.box, &c))
			return r;
		if (c.overlap || bc.read_at_call ||
		    (mode == Mode::async ? c.dst.pageable() || c.src.pageable() :
					   !async_ok(c.dst) || !async_ok(c.src)))
			waiting = true;
	}
	if (copies.empty())
		return CUDA_SUCCESS;

	const bool batching = driver().version.caps & UVM_CAP_COPY_BATCH;
	Job job(st->ctx->device);
	int r = 0;
	for (size_t i = 0; i < copies.size() && !r; i++) {
		const BoxRequest &q = copies[i].box;
		const Checked &c = checked[i];

		if (!batching || c.overlap || c.bytes > UVM_COPY_MAX_BYTES) {
			r = job.batch_flush();
			if (r)
				break;
			if (c.overlap) {
				bounces.emplace_back();
				r = box_bounced(job, q, c, &bounces.back());
			} else {
				r = job.box(q, q.dst, q.src);
			}
			continue;
		}
		struct uvm_copy_op op {};
		op.dst = { q.dst.addr, q.dst.pitch, q.dst.slice_pitch };
		op.src = { q.src.addr, q.src.pitch, q.src.slice_pitch };
		op.width = q.width * q.elem;
		op.height = static_cast<__u32>(q.height);
		op.depth = static_cast<__u32>(q.depth);
		r = job.batch_add(op, c.dst.pageable() ? c.dspan : 0,
				  c.src.pageable() ? c.sspan : 0);
	}
	if (!r)
		r = job.batch_flush();
	return job_finish(job, st, waiting, r, lock);
}

} // namespace

/**
 * box_execute() - validate, queue and, where CUDA says so, wait
 * @req:	the request
 * @h:		the stream (the async forms) or ignored (the default stream)
 * @ptds:	NULL means the calling thread's per-thread stream
 * @mode:	how the call synchronises
 *
 * Return: a CUresult.
 */
CUresult box_execute(const BoxRequest &req, CUstream h, bool ptds, Mode mode)
{
	std::unique_ptr<char[]> bounce;
	Stream *st;
	bool waiting;

	if (CUresult r = check_init())
		return r;
	/* A copy reaches its stream, allocations, reservations and tiles. */
	DomainLock lock(kAllDomains);
	if (CUresult r = resolve_stream(mode == Mode::async ? h : nullptr, ptds, &st))
		return r;
	if (!req.width || !req.height || !req.depth)
		return CUDA_SUCCESS;
	if (req.dst.tiled || req.src.tiled) {
		std::vector<BatchCopy> pieces;

		if (CUresult r = tiled_pieces(req, &pieces))
			return r;
		return run_batch(pieces, st, mode, lock);
	}
	Checked c;
	if (CUresult r = box_check(req, &c))
		return r;
	const Side &dst = c.dst, &src = c.src;

	Job job(st->ctx->device);
	int r;
	if (req.is_set) {
		r = job.box(req, req.dst, req.src);
		waiting = mode == Mode::async ? dst.pageable() : !async_ok(dst);
	} else if (c.overlap) {
		r = box_bounced(job, req, c, &bounce);
		waiting = true;
	} else {
		r = job.box(req, req.dst, req.src);
		waiting = mode == Mode::async ? dst.pageable() || src.pageable() :
						!async_ok(dst) || !async_ok(src);
	}
	return job_finish(job, st, waiting, r, lock);
}

/**
 * batch_execute() - a batch of copies: validate all, queue them in order
 * @copies:	the copies, none with a zero dimension
 * @h:		the stream
 * @ptds:	NULL means the calling thread's per-thread stream
 *
 * Every copy is validated as box_execute() validates one before anything is
 * queued.  The copies go to the driver in order, as UVM_IOC_COPY_BATCH jobs
 * (one per UVM_COPY_BATCH_MAX copies); a copy whose sides overlap, or too
 * large for one job, goes as box_execute() would send it, between them.  A
 * copy with a side in a sparse array goes as its pieces (tiled_pieces()).
 * The call waits for the jobs where one reads pageable memory (as
 * box_execute()), bounces, or must read its source before the call returns.
 *
 * Return: a CUresult.
 */
CUresult batch_execute(const std::vector<BatchCopy> &copies, CUstream h, bool ptds)
{
	Stream *st;

	if (CUresult r = check_init())
		return r;
	/* A copy reaches its stream, allocations, reservations and tiles. */
	DomainLock lock(kAllDomains);
	if (CUresult r = resolve_stream(h, ptds, &st))
		return r;
	auto tiled = [](const BatchCopy &bc) { return bc.box.dst.tiled || bc.box.src.tiled; };
	if (std::none_of(copies.begin(), copies.end(), tiled))
		return run_batch(copies, st, Mode::async, lock);

	/* Some copies are of sparse arrays: the batch of their pieces. */
	std::vector<BatchCopy> all, pieces;
	for (const BatchCopy &bc : copies) {
		if (!tiled(bc)) {
			all.push_back(bc);
			continue;
		}
		if (!bc.box.width || !bc.box.height || !bc.box.depth)
			return CUDA_ERROR_INVALID_VALUE;
		if (CUresult r = tiled_pieces(bc.box, &pieces))
			return r;
		for (BatchCopy &p : pieces)
			p.read_at_call = bc.read_at_call;
		all.insert(all.end(), pieces.begin(), pieces.end());
	}
	return run_batch(all, st, Mode::async, lock);
}

namespace {

CUresult memcpy_call(CUdeviceptr dst, CUdeviceptr src, size_t n, Role dr, Role sr, CUstream h,
		     bool ptds, Mode mode)
{
	BoxRequest req;

	req.dst.addr = dst;
	req.src.addr = src;
	req.width = n;
	req.dst.role = dr;
	req.src.role = sr;
	return guard([&] { return box_execute(req, h, ptds, mode); });
}

CUresult memset_call(CUdeviceptr dst, uint32_t value, uint32_t elem, size_t n, CUstream h,
		     bool ptds, Mode mode)
{
	BoxRequest req;

	req.is_set = true;
	req.dst.addr = dst;
	req.value = value;
	req.elem = elem;
	req.width = n;
	return guard([&] { return box_execute(req, h, ptds, mode); });
}

inline uint64_t u64(CUdeviceptr p)
{
	return p;
}

inline uint64_t u64(const void *p)
{
	return reinterpret_cast<uintptr_t>(p);
}

} // namespace

/* The runtime's cudaMemcpy kinds onto the driver's roles. */
CUresult memcpy_kind_roles(int kind, Role *dr, Role *sr)
{
	*dr = *sr = Role::any;
	switch (kind) {
	case cudaMemcpyHostToDevice:
		*dr = Role::device;
		break;
	case cudaMemcpyDeviceToHost:
		*sr = Role::device;
		break;
	case cudaMemcpyDeviceToDevice:
		*dr = *sr = Role::device;
		break;
	case cudaMemcpyHostToHost:	/* any memory: "null.rt_memcpy_h2h_is_d2d" */
	case cudaMemcpyDefault:
		break;
	default:
		/* A runtime-only code: to_runtime() passes it through. */
		return static_cast<CUresult>(cudaErrorInvalidMemcpyDirection);
	}
	return CUDA_SUCCESS;
}

CUresult runtime_memcpy(void *dst, const void *src, size_t count, int kind, CUstream h,
			bool ptds, bool async)
{
	Role dr = Role::any, sr = Role::any;

	/* 0 bytes succeed whatever the kind ("rc.memcpy.size0.kind5"). */
	if (count) {
		if (CUresult r = memcpy_kind_roles(kind, &dr, &sr))
			return r;
	}
	return memcpy_call(u64(dst), u64(src), count, dr, sr, h, ptds,
			   async ? Mode::async : Mode::sync_copy);
}

CUresult runtime_memset(void *dst, int value, size_t count, CUstream h, bool ptds, bool async)
{
	return memset_call(u64(dst), static_cast<unsigned char>(value), 1, count, h, ptds,
			   async ? Mode::async : Mode::sync_set);
}

} // namespace uvm

using namespace uvm;

/*
 * The exported forms: each documented name, its _v2 symbol where cuda.h maps
 * it onto one, and the per-thread-default-stream symbol (_ptds for the
 * synchronous calls, _ptsz for the asynchronous ones).
 */
#define COPY_SYNC(name, dtype, stype, dr, sr)						\
extern "C" CUresult name(dtype dst, stype src, size_t n) noexcept			\
{											\
	return memcpy_call(u64(dst), u64(src), n, dr, sr, nullptr, false, Mode::sync_copy); \
}											\
extern "C" CUresult name##_ptds(dtype dst, stype src, size_t n) noexcept		\
{											\
	return memcpy_call(u64(dst), u64(src), n, dr, sr, nullptr, true, Mode::sync_copy); \
}

#define COPY_ASYNC(name, dtype, stype, dr, sr)						\
extern "C" CUresult name(dtype dst, stype src, size_t n, CUstream h) noexcept		\
{											\
	return memcpy_call(u64(dst), u64(src), n, dr, sr, h, false, Mode::async);	\
}											\
extern "C" CUresult name##_ptsz(dtype dst, stype src, size_t n, CUstream h) noexcept	\
{											\
	return memcpy_call(u64(dst), u64(src), n, dr, sr, h, true, Mode::async);	\
}

#define SET_SYNC(name, vtype, elem)							\
extern "C" CUresult name(CUdeviceptr dst, vtype v, size_t n) noexcept			\
{											\
	return memset_call(dst, v, elem, n, nullptr, false, Mode::sync_set);		\
}											\
extern "C" CUresult name##_ptds(CUdeviceptr dst, vtype v, size_t n) noexcept		\
{											\
	return memset_call(dst, v, elem, n, nullptr, true, Mode::sync_set);		\
}

#define SET_ASYNC(name, vtype, elem)							\
extern "C" CUresult name(CUdeviceptr dst, vtype v, size_t n, CUstream h) noexcept	\
{											\
	return memset_call(dst, v, elem, n, h, false, Mode::async);			\
}											\
extern "C" CUresult name##_ptsz(CUdeviceptr dst, vtype v, size_t n, CUstream h) noexcept \
{											\
	return memset_call(dst, v, elem, n, h, true, Mode::async);			\
}

#undef cuMemcpy
#undef cuMemcpyHtoD
#undef cuMemcpyDtoH
#undef cuMemcpyDtoD
#undef cuMemcpyAsync
#undef cuMemcpyHtoDAsync
#undef cuMemcpyDtoHAsync
#undef cuMemcpyDtoDAsync
#undef cuMemsetD8
#undef cuMemsetD16
#undef cuMemsetD32
#undef cuMemsetD8Async
#undef cuMemsetD16Async
#undef cuMemsetD32Async

COPY_SYNC(cuMemcpy, CUdeviceptr, CUdeviceptr, Role::any, Role::any)
COPY_SYNC(cuMemcpyHtoD_v2, CUdeviceptr, const void *, Role::device, Role::any)
COPY_SYNC(cuMemcpyDtoH_v2, void *, CUdeviceptr, Role::any, Role::device)
COPY_SYNC(cuMemcpyDtoD_v2, CUdeviceptr, CUdeviceptr, Role::device, Role::device)
COPY_ASYNC(cuMemcpyAsync, CUdeviceptr, CUdeviceptr, Role::any, Role::any)
COPY_ASYNC(cuMemcpyHtoDAsync_v2, CUdeviceptr, const void *, Role::device, Role::any)
COPY_ASYNC(cuMemcpyDtoHAsync_v2, void *, CUdeviceptr, Role::any, Role::device)
COPY_ASYNC(cuMemcpyDtoDAsync_v2, CUdeviceptr, CUdeviceptr, Role::device, Role::device)
SET_SYNC(cuMemsetD8_v2, unsigned char, 1)
SET_SYNC(cuMemsetD16_v2, unsigned short, 2)
SET_SYNC(cuMemsetD32_v2, unsigned int, 4)
SET_ASYNC(cuMemsetD8Async, unsigned char, 1)
SET_ASYNC(cuMemsetD16Async, unsigned short, 2)
SET_ASYNC(cuMemsetD32Async, unsigned int, 4)
