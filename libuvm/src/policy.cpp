// SPDX-License-Identifier: MIT
/*
 * policy.cpp - cuMemAdvise, cuMemPrefetchAsync, the batch prefetch and
 * discard calls, cuMemRangeGetAttribute(s).
 *
 * Validation follows what NVIDIA's driver returns, in its order
 * (tests/real-driver/results/probe_{advise,prefetch,rangeattr}.txt):
 *
 *  - cuMemAdvise_v2 answers CUDA_ERROR_INVALID_VALUE to everything: a null
 *    pointer or count, an unknown advice, a location type outside
 *    DEVICE..HOST_NUMA_CURRENT (also for the advice that "ignores" the
 *    location), a bad device ordinal or NUMA node, a range not inside one
 *    allocation (the requested size bounds it), a wrapping range.  The
 *    CUdevice form answers CUDA_ERROR_INVALID_DEVICE for bad devices.
 *  - cuMemPrefetchAsync_v2: flags, then a null pointer or count, then the
 *    location (CUDA_ERROR_INVALID_DEVICE for a bad ordinal), then the range;
 *    a wrapping range is accepted and does nothing.
 *  - the batch calls refuse the legacy stream (NULL included, for the
 *    runtime too), bad counts and indices with CUDA_ERROR_INVALID_VALUE; the
 *    location indices need not increase (CUDA applies location k from the op
 *    after the one where index k + 1 was reached); the ranges are checked in
 *    order and the valid ones before the first bad one still run.
 *
 * The last-prefetch attributes report the location the caller named, as
 * NVIDIA's driver keeps it: a per-allocation shadow of page ranges.  The
 * other attributes come from UVM_IOC_RANGE_QUERY.
 */
#include <algorithm>
#include <cerrno>
#include <cstring>

#include "context.h"
#include "device.h"
#include "memory.h"

namespace uvm {

/* IntervalMap */

void IntervalMap::assign(uint64_t start, uint64_t end, Loc loc)
{
	if (start >= end)
		return;
	/* Split the segment straddling start, and the one straddling end. */
	auto it = segs_.upper_bound(start);
	if (it != segs_.begin()) {
		auto prev = std::prev(it);
		if (prev->second.end > start) {
			Seg tail = prev->second;
			prev->second.end = start;
			if (tail.end > end)
				segs_[end] = tail;
			if (tail.end > start)
				segs_[start] = Seg{ std::min(tail.end, end), tail.loc };
		}
	}
	it = segs_.lower_bound(start);
	while (it != segs_.end() && it->first < end) {
		if (it->second.end > end) {
			Seg tail = it->second;
			segs_[end] = tail;
		}
		it = segs_.erase(it);
	}
	segs_[start] = Seg{ end, loc };
	/* Merge with equal neighbours. */
	it = segs_.find(start);
	auto next = std::next(it);
	if (next != segs_.end() && next->first == end && next->second.loc == loc) {
		it->second.end = next->second.end;
		segs_.erase(next);
	}
	if (it != segs_.begin()) {
		auto prev = std::prev(it);
		if (prev->second.end == start && prev->second.loc == loc) {
			prev->second.end = it->second.end;
			segs_.erase(it);
		}
	}
}

Loc IntervalMap::uniform(uint64_t start, uint64_t end) const
{
	Loc none;
	auto it = segs_.upper_bound(start);

	if (it == segs_.begin())
		return none;
	--it;
	if (it->second.end <= start)
		return none;
	Loc loc = it->second.loc;
	uint64_t covered = it->second.end;
	while (covered < end) {
		++it;
		if (it == segs_.end() || it->first != covered || !(it->second.loc == loc))
			return none;
		covered = it->second.end;
	}
	return loc;
}

namespace {

/* The page-rounded span of [ptr, ptr + count) inside an allocation. */
void page_span(const Allocation &a, uint64_t ptr, uint64_t count, uint64_t *s, uint64_t *e)
{
	const uint64_t ps = page_size();

	*s = round_down(ptr, ps);
	*e = std::min(round_up(ptr + count, ps), a.base + a.map_size);
}

bool valid_type(int type)
{
	return type >= CU_MEM_LOCATION_TYPE_DEVICE && type <= CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT;
}

/* A prefetch destination: CUDA_ERROR_INVALID_DEVICE for a bad ordinal. */
CUresult check_prefetch_location(const CUmemLocation &l)
{
	if (!valid_type(l.type))
		return CUDA_ERROR_INVALID_VALUE;
	if (l.type == CU_MEM_LOCATION_TYPE_DEVICE && !valid_device(l.id))
		return CUDA_ERROR_INVALID_DEVICE;
	if (l.type == CU_MEM_LOCATION_TYPE_HOST_NUMA && !valid_numa_node(l.id))
		return CUDA_ERROR_INVALID_VALUE;
	return CUDA_SUCCESS;
}

/* The location of an advice, as cuMemAdvise_v2 accepts it. */
bool advise_location_ok(int advice, const CUmemLocation &l)
{
	if (!valid_type(l.type))
		return false;
	switch (advice) {
	case CU_MEM_ADVISE_SET_PREFERRED_LOCATION:
		if (l.type == CU_MEM_LOCATION_TYPE_DEVICE)
			return valid_device(l.id);
		if (l.type == CU_MEM_LOCATION_TYPE_HOST_NUMA)
			return valid_numa_node(l.id);
		return true;
	case CU_MEM_ADVISE_SET_ACCESSED_BY:
	case CU_MEM_ADVISE_UNSET_ACCESSED_BY:
		if (l.type == CU_MEM_LOCATION_TYPE_DEVICE)
			return valid_device(l.id);
		return l.type == CU_MEM_LOCATION_TYPE_HOST;
	default:
		return true;	/* any valid type, any id: ignored */
	}
}

/* CUDA location -> driver location for a prefetch destination. */
struct uvm_location to_driver(const CUmemLocation &l)
{
	struct uvm_location u {};

	switch (l.type) {
	case CU_MEM_LOCATION_TYPE_DEVICE:
		u.type = UVM_LOCATION_GPU;
		u.id = l.id;
		break;
	case CU_MEM_LOCATION_TYPE_HOST_NUMA:
		u.type = UVM_LOCATION_HOST_NUMA;
		u.id = l.id;
		break;
	case CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT:
		u.type = UVM_LOCATION_HOST_NUMA_CURRENT;
		break;
	default:
		u.type = UVM_LOCATION_HOST;
		break;
	}
	return u;
}

/* The location an advice hands the driver.  On a host with one memory node
 * NVIDIA's driver records a host NUMA preferred location as plain host
 * memory (probe_advise.txt "pref.numa0"); so do we. */
struct uvm_location advise_to_driver(int advice, const CUmemLocation &l)
{
	struct uvm_location u {};

	switch (advice) {
	case CU_MEM_ADVISE_SET_PREFERRED_LOCATION:
	case CU_MEM_ADVISE_SET_ACCESSED_BY:
	case CU_MEM_ADVISE_UNSET_ACCESSED_BY:
		u = to_driver(l);
		if ((u.type == UVM_LOCATION_HOST_NUMA || u.type == UVM_LOCATION_HOST_NUMA_CURRENT) &&
		    dev_state().numa_nodes.size() == 1) {
			u.type = UVM_LOCATION_HOST;
			u.id = 0;
		}
		return u;
	default:
		return u;	/* ignored by the driver */
	}
}

CUresult advise(CUdeviceptr devPtr, size_t count, int advice, const CUmemLocation &loc)
{
	Allocation *a;

	std::lock_guard<std::mutex> lock(mem_reg().mu);
	if (check_range(devPtr, count, &a) != RangeKind::ok)
		return CUDA_ERROR_INVALID_VALUE;
	struct uvm_ioc_advise args {};
	args.address = devPtr;
	args.length = count;
	args.advice = static_cast<__u32>(advice);
	args.location = advise_to_driver(advice, loc);
	int r = driver().ioctl(UVM_IOC_ADVISE, &args);
	return r == -ENODEV ? CUDA_ERROR_INVALID_VALUE : from_errno(r);
}

/**
 * struct BatchEntry - one range of a migrate batch, validated
 */
struct BatchEntry {
	struct uvm_range range;
	size_t loc;		/* index into the caller's locations */
	Allocation *alloc;
};

/**
 * submit() - hand validated entries to the driver as asynchronous batches
 * @op:		UVM_MIGRATE_*
 * @entries:	the ranges, with their location index (non-decreasing)
 * @locs:	the caller's locations (prefetching ops)
 * @st:		the stream the batch belongs to
 *
 * Consecutive entries with the same location form one group of the
 * driver's grouping; batches beyond UVM_MIGRATE_MAX_RANGES are split.
 *
 * Context: ContextRegistry::mu and MemoryRegistry::mu held (a DomainLock).
 * Return: CUDA_SUCCESS or the driver's error.
 */
CUresult submit(uint32_t op, const std::vector<BatchEntry> &entries, const CUmemLocation *locs,
		Stream *st)
{
	for (size_t first = 0; first < entries.size(); first += UVM_MIGRATE_MAX_RANGES) {
		size_t n = std::min<size_t>(entries.size() - first, UVM_MIGRATE_MAX_RANGES);
		std::vector<struct uvm_range> ranges(n);
		std::vector<struct uvm_location> ulocs;
		std::vector<__u64> starts;

		for (size_t i = 0; i < n; i++) {
			const BatchEntry &e = entries[first + i];

			ranges[i] = e.range;
			if (op != UVM_MIGRATE_DISCARD &&
			    (i == 0 || e.loc != entries[first + i - 1].loc)) {
				ulocs.push_back(to_driver(locs[e.loc]));
				starts.push_back(i);
			}
		}
		struct uvm_ioc_migrate args {};
		args.op = op;
		args.flags = UVM_MIGRATE_ASYNC;
		args.ranges_ptr = reinterpret_cast<uintptr_t>(ranges.data());
		args.count = n;
		if (op != UVM_MIGRATE_DISCARD) {
			args.locations_ptr = reinterpret_cast<uintptr_t>(ulocs.data());
			args.location_starts_ptr = reinterpret_cast<uintptr_t>(starts.data());
			args.num_locations = static_cast<__u32>(ulocs.size());
		}
		int r = driver().ioctl(UVM_IOC_MIGRATE, &args);
		if (r)
			return r == -ENODEV ? CUDA_ERROR_INVALID_VALUE : from_errno(r);
		stream_add_fence(st, args.fence);
	}
	return CUDA_SUCCESS;
}

/* Record the locations prefetches named, for the last-prefetch attributes. */
void record_last_prefetch(const std::vector<BatchEntry> &entries, const CUmemLocation *locs,
			  bool normalise_host)
{
	for (const BatchEntry &e : entries) {
		Loc l{ locs[e.loc].type, locs[e.loc].id };
		uint64_t s, end;

		/* The single-range call reports a host destination's id as
		 * -1; the batch calls keep the caller's id. */
		if (normalise_host && l.type == CU_MEM_LOCATION_TYPE_HOST)
			l.id = -1;
		page_span(*e.alloc, e.range.address, e.range.length, &s, &end);
		e.alloc->last_prefetch.assign(s, end, l);
	}
}

CUresult prefetch(CUdeviceptr devPtr, size_t count, const CUmemLocation &loc, unsigned int flags,
		  CUstream hStream, bool ptds)
{
	Stream *st;
	Allocation *a;

	if (CUresult r = check_init())
		return r;
	if (flags || !devPtr || !count)
		return CUDA_ERROR_INVALID_VALUE;
	if (CUresult r = check_prefetch_location(loc))
		return r;
	/* The stream's fences and the allocations' shadows together. */
	DomainLock lock(kContextDomain | kMemoryDomain);
	if (CUresult r = resolve_stream(hStream, ptds, &st))
		return r;
	RangeKind k = check_range(devPtr, count, &a);
	if (k == RangeKind::invalid)
		return CUDA_ERROR_INVALID_VALUE;
	if (k == RangeKind::empty)
		return CUDA_SUCCESS;
	std::vector<BatchEntry> e{ BatchEntry{ { devPtr, count }, 0, a } };
	record_last_prefetch(e, &loc, true);
	return submit(UVM_MIGRATE_PREFETCH, e, &loc, st);
}

CUresult batch(uint32_t op, CUdeviceptr *dptrs, size_t *sizes, size_t count,
	       CUmemLocation *locs, size_t *idxs, size_t nlocs, unsigned long long flags,
	       CUstream hStream, bool ptds)
{
	const bool prefetching = op != UVM_MIGRATE_DISCARD;
	Stream *st;

	if (CUresult r = check_init())
		return r;
	/* The legacy stream, named or as NULL (not NULL of a _ptsz call). */
	if (flags || hStream == CU_STREAM_LEGACY || (!hStream && !ptds))
		return CUDA_ERROR_INVALID_VALUE;
	if (!count || !dptrs || !sizes)
		return CUDA_ERROR_INVALID_VALUE;
	if (prefetching) {
		if (!locs || !idxs || !nlocs || nlocs > count || idxs[0] != 0)
			return CUDA_ERROR_INVALID_VALUE;
		for (size_t k = 0; k < nlocs; k++)
			if (idxs[k] >= count || check_prefetch_location(locs[k]))
				return CUDA_ERROR_INVALID_VALUE;
	}
	/* The stream's fences and the allocations' shadows together. */
	DomainLock lock(kContextDomain | kMemoryDomain);
	if (CUresult r = resolve_stream(hStream, ptds, &st))
		return r;

	std::vector<BatchEntry> entries;
	CUresult result = CUDA_SUCCESS;
	size_t k = 0;
	entries.reserve(count);
	for (size_t i = 0; i < count; i++) {
		Allocation *a;
		size_t loc = k;

		if (prefetching && k + 1 < nlocs && i + 1 == idxs[k + 1])
			k++;
		if (!dptrs[i] || !sizes[i]) {
			result = CUDA_ERROR_INVALID_VALUE;
			break;
		}
		RangeKind rk = check_range(dptrs[i], sizes[i], &a);
		if (rk == RangeKind::invalid) {
			result = CUDA_ERROR_INVALID_VALUE;
			break;
		}
		if (rk == RangeKind::ok)
			entries.push_back(BatchEntry{ { dptrs[i], sizes[i] }, loc, a });
	}
	/* The ranges before a bad one run, as in NVIDIA's driver. */
	if (entries.empty())
		return result;
	if (prefetching)
		record_last_prefetch(entries, locs, false);
	CUresult r = submit(op, entries, locs, st);
	return result ? result : r;
}

/**
 * struct RangeAnswer - the attributes of a range, in CUDA's terms
 */
struct RangeAnswer {
	int read_mostly = 0;
	Loc preferred;			/* type INVALID: none / mixed */
	uint64_t accessed_by = 0;	/* driver processor mask */
	Loc last;
};

CUresult query_range(CUdeviceptr ptr, size_t count, RangeAnswer *ans)
{
	Allocation *a;
	RangeKind k = check_range(ptr, count, &a);

	if (k == RangeKind::invalid)
		return CUDA_ERROR_INVALID_VALUE;
	if (k == RangeKind::empty) {
		/* No pages: every "all pages" answer holds, no location is
		 * common (probe_rangeattr.txt "ra.wrap.*"). */
		ans->read_mostly = 1;
		ans->accessed_by = (UVM_PROCESSOR_MASK(UVM_PROCESSOR_GPU(dev_state().num_devices)) - 1);
		return CUDA_SUCCESS;
	}
	struct uvm_ioc_range_query q {};
	q.address = ptr;
	q.length = count;
	int r = driver().ioctl(UVM_IOC_RANGE_QUERY, &q);
	if (r)
		return from_errno(r);
	ans->read_mostly = q.read_mostly ? 1 : 0;
	switch (q.preferred.type) {
	case UVM_LOCATION_GPU:
		ans->preferred = Loc{ CU_MEM_LOCATION_TYPE_DEVICE, q.preferred.id };
		break;
	case UVM_LOCATION_HOST:
		ans->preferred = Loc{ CU_MEM_LOCATION_TYPE_HOST, -1 };
		break;
	case UVM_LOCATION_HOST_NUMA:
		ans->preferred = Loc{ CU_MEM_LOCATION_TYPE_HOST_NUMA, q.preferred.id };
		break;
	default:
		break;
	}
	ans->accessed_by = q.accessed_by;
	uint64_t s, e;
	page_span(*a, ptr, count, &s, &e);
	ans->last = a->last_prefetch.uniform(s, e);
	return CUDA_SUCCESS;
}

int legacy_device(const Loc &l)
{
	switch (l.type) {
	case CU_MEM_LOCATION_TYPE_DEVICE:
		return l.id;
	case CU_MEM_LOCATION_TYPE_INVALID:
		return CU_DEVICE_INVALID;
	default:
		return CU_DEVICE_CPU;
	}
}

int location_id(const Loc &l)
{
	return l.type == CU_MEM_LOCATION_TYPE_INVALID ? CU_DEVICE_INVALID : l.id;
}

bool size_ok(int attribute, size_t dataSize)
{
	if (attribute == CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY)
		return dataSize && dataSize % 4 == 0;
	return dataSize == 4;
}

bool attribute_ok(int attribute)
{
	return attribute >= CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY &&
	       attribute <= CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID;
}

void write_attribute(const RangeAnswer &ans, int attribute, void *data, size_t dataSize)
{
	int v = 0;

	switch (attribute) {
	case CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY:
		v = ans.read_mostly;
		break;
	case CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION:
		v = legacy_device(ans.preferred);
		break;
	case CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE:
		v = ans.preferred.type;
		break;
	case CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID:
		v = location_id(ans.preferred);
		break;
	case CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION:
		v = legacy_device(ans.last);
		break;
	case CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE:
		v = ans.last.type;
		break;
	case CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID:
		v = location_id(ans.last);
		break;
	case CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY: {
		/* Devices in ordinal order, then the host; the rest
		 * CU_DEVICE_INVALID. */
		std::vector<int> list;
		size_t n = dataSize / 4;

		for (int d = 0; d < dev_state().num_devices; d++)
			if (ans.accessed_by & UVM_PROCESSOR_MASK(UVM_PROCESSOR_GPU(d)))
				list.push_back(d);
		if (ans.accessed_by & UVM_PROCESSOR_MASK(UVM_PROCESSOR_CPU))
			list.push_back(CU_DEVICE_CPU);
		list.resize(std::max(list.size(), n), CU_DEVICE_INVALID);
		std::memcpy(data, list.data(), n * sizeof(int));
		return;
	}
	}
	std::memcpy(data, &v, sizeof(v));
}

} // namespace

} // namespace uvm

using namespace uvm;

/* cuMemAdvise */

extern "C" CUresult cuMemAdvise_v2(CUdeviceptr devPtr, size_t count, CUmem_advise advice,
				   CUmemLocation location) noexcept
{
	return guard([&]() -> CUresult {
		if (CUresult r = check_init())
			return r;
		if (!devPtr || !count || advice < CU_MEM_ADVISE_SET_READ_MOSTLY ||
		    advice > CU_MEM_ADVISE_UNSET_ACCESSED_BY || !advise_location_ok(advice, location))
			return CUDA_ERROR_INVALID_VALUE;
		return advise(devPtr, count, advice, location);
	});
}

/* The CUdevice form (CUDA 12's cuMemAdvise): legacy.cpp exports it. */
CUresult uvm::legacy_advise(CUdeviceptr devPtr, size_t count, CUmem_advise advice,
			    CUdevice device) noexcept
{
	return guard([&]() -> CUresult {
		CUmemLocation loc{ CU_MEM_LOCATION_TYPE_HOST, 0 };
		const bool uses_device = advice == CU_MEM_ADVISE_SET_PREFERRED_LOCATION ||
					 advice == CU_MEM_ADVISE_SET_ACCESSED_BY ||
					 advice == CU_MEM_ADVISE_UNSET_ACCESSED_BY;

		if (CUresult r = check_init())
			return r;
		if (!devPtr || !count || advice < CU_MEM_ADVISE_SET_READ_MOSTLY ||
		    advice > CU_MEM_ADVISE_UNSET_ACCESSED_BY)
			return CUDA_ERROR_INVALID_VALUE;
		if (device != CU_DEVICE_CPU && valid_device(device))
			loc = CUmemLocation{ CU_MEM_LOCATION_TYPE_DEVICE, device };
		else if (device != CU_DEVICE_CPU && uses_device)
			return CUDA_ERROR_INVALID_DEVICE;
		return advise(devPtr, count, advice, loc);
	});
}

/* cuMemPrefetchAsync */

extern "C" CUresult cuMemPrefetchAsync_v2(CUdeviceptr devPtr, size_t count, CUmemLocation location,
					  unsigned int flags, CUstream hStream) noexcept
{
	return guard([&] { return prefetch(devPtr, count, location, flags, hStream, false); });
}

extern "C" CUresult cuMemPrefetchAsync_v2_ptsz(CUdeviceptr devPtr, size_t count,
					       CUmemLocation location, unsigned int flags,
					       CUstream hStream) noexcept
{
	return guard([&] { return prefetch(devPtr, count, location, flags, hStream, true); });
}

static CUresult legacy_prefetch(CUdeviceptr devPtr, size_t count, CUdevice dstDevice,
				CUstream hStream, bool ptds)
{
	if (CUresult r = check_init())
		return r;
	if (!devPtr || !count)
		return CUDA_ERROR_INVALID_VALUE;
	if (dstDevice != CU_DEVICE_CPU && !valid_device(dstDevice))
		return CUDA_ERROR_INVALID_DEVICE;
	CUmemLocation loc = dstDevice == CU_DEVICE_CPU ?
			    CUmemLocation{ CU_MEM_LOCATION_TYPE_HOST, 0 } :
			    CUmemLocation{ CU_MEM_LOCATION_TYPE_DEVICE, dstDevice };
	return prefetch(devPtr, count, loc, 0, hStream, ptds);
}

/* The CUdevice form (CUDA 12's cuMemPrefetchAsync): legacy.cpp exports it. */
CUresult uvm::legacy_prefetch_async(CUdeviceptr devPtr, size_t count, CUdevice dstDevice,
				    CUstream hStream, bool ptds) noexcept
{
	return guard([&] { return legacy_prefetch(devPtr, count, dstDevice, hStream, ptds); });
}

/* Batches */

#define BATCH_PREFETCH(name, op, ptds)							\
extern "C" CUresult name(CUdeviceptr *dptrs, size_t *sizes, size_t count,			\
			 CUmemLocation *prefetchLocs, size_t *prefetchLocIdxs,		\
			 size_t numPrefetchLocs, unsigned long long flags,		\
			 CUstream hStream) noexcept					\
{											\
	return guard([&] {								\
		return batch(op, dptrs, sizes, count, prefetchLocs, prefetchLocIdxs,	\
			     numPrefetchLocs, flags, hStream, ptds);			\
	});										\
}

BATCH_PREFETCH(cuMemPrefetchBatchAsync, UVM_MIGRATE_PREFETCH, false)
BATCH_PREFETCH(cuMemPrefetchBatchAsync_ptsz, UVM_MIGRATE_PREFETCH, true)
BATCH_PREFETCH(cuMemDiscardAndPrefetchBatchAsync, UVM_MIGRATE_DISCARD_PREFETCH, false)
BATCH_PREFETCH(cuMemDiscardAndPrefetchBatchAsync_ptsz, UVM_MIGRATE_DISCARD_PREFETCH, true)

extern "C" CUresult cuMemDiscardBatchAsync(CUdeviceptr *dptrs, size_t *sizes, size_t count,
					   unsigned long long flags, CUstream hStream) noexcept
{
	return guard([&] {
		return batch(UVM_MIGRATE_DISCARD, dptrs, sizes, count, nullptr, nullptr, 0, flags,
			     hStream, false);
	});
}

extern "C" CUresult cuMemDiscardBatchAsync_ptsz(CUdeviceptr *dptrs, size_t *sizes, size_t count,
						unsigned long long flags, CUstream hStream) noexcept
{
	return guard([&] {
		return batch(UVM_MIGRATE_DISCARD, dptrs, sizes, count, nullptr, nullptr, 0, flags,
			     hStream, true);
	});
}

/* Range attributes */

extern "C" CUresult cuMemRangeGetAttribute(void *data, size_t dataSize,
					   CUmem_range_attribute attribute, CUdeviceptr devPtr,
					   size_t count) noexcept
{
	return guard([&]() -> CUresult {
		RangeAnswer ans;

		if (CUresult r = check_init())
			return r;
		if (!data || !attribute_ok(attribute) || !size_ok(attribute, dataSize) || !devPtr ||
		    !count)
			return CUDA_ERROR_INVALID_VALUE;
		std::lock_guard<std::mutex> lock(mem_reg().mu);
		if (CUresult r = query_range(devPtr, count, &ans))
			return r;
		write_attribute(ans, attribute, data, dataSize);
		return CUDA_SUCCESS;
	});
}

extern "C" CUresult cuMemRangeGetAttributes(void **data, size_t *dataSizes,
					    CUmem_range_attribute *attributes, size_t numAttributes,
					    CUdeviceptr devPtr, size_t count) noexcept
{
	return guard([&]() -> CUresult {
		RangeAnswer ans;

		if (CUresult r = check_init())
			return r;
		if (!numAttributes || !data || !dataSizes || !attributes)
			return CUDA_ERROR_INVALID_VALUE;
		/* Everything is checked before anything is written. */
		for (size_t i = 0; i < numAttributes; i++)
			if (!data[i] || !attribute_ok(attributes[i]) ||
			    !size_ok(attributes[i], dataSizes[i]))
				return CUDA_ERROR_INVALID_VALUE;
		if (!devPtr || !count)
			return CUDA_ERROR_INVALID_VALUE;
		std::lock_guard<std::mutex> lock(mem_reg().mu);
		if (CUresult r = query_range(devPtr, count, &ans))
			return r;
		for (size_t i = 0; i < numAttributes; i++)
			write_attribute(ans, attributes[i], data[i], dataSizes[i]);
		return CUDA_SUCCESS;
	});
}
