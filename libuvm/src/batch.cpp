// SPDX-License-Identifier: MIT
/*
 * batch.cpp - the batch copies of CUDA 12.8: cuMemcpyBatchAsync,
 * cuMemcpy3DBatchAsync and the runtime's cudaMemcpyBatchAsync,
 * cudaMemcpy3DBatchAsync.
 *
 * A batch is validated whole, as NVIDIA's driver validates it
 * (probe_batch.txt): a refusal leaves every buffer untouched.  Then its
 * copies go to the driver in order as UVM_IOC_COPY_BATCH jobs, one per
 * UVM_COPY_BATCH_MAX copies (copy.cpp batch_execute()), in stream order.
 *
 * The rules recorded from the real driver:
 *  - the legacy stream, named or as NULL, is refused; the per-thread stream
 *    and created streams are not ("batch.cu.stream.*");
 *  - count 0, a NULL array, a NULL pointer or a size of 0 in a copy refuse
 *    the batch ("batch.cu.null.*", "batch.cu.size0_and_64");
 *  - attributes: numAttrs 1 .. count, attrsIdxs[0] == 0, the indices
 *    strictly increasing and below count; attribute k covers copies
 *    attrsIdxs[k] .. attrsIdxs[k + 1] - 1 ("batch.cu.idx.*");
 *    srcAccessOrder STREAM, DURING_API_CALL or ANY; flags 0 or
 *    PREFER_OVERLAP_WITH_COMPUTE; location hints INVALID, HOST, HOST_NUMA,
 *    HOST_NUMA_CURRENT or DEVICE of a device that exists
 *    ("batch.cu.srchint.*", "batch.cu.flags*", "batch.cu.order.*");
 *  - 3D operations: the API flags 0, each operation's flags as above, its
 *    extent whole, operands of type POINTER or ARRAY, a row length (0: the
 *    width) at least the width, a layer height (0: the height) at least the
 *    height; location hints of 3D operands are not checked ("batch.cu.3d.*");
 *    with an array taking part, the extent, the array's offset and the
 *    pointer's row length count the array's elements, two arrays must have
 *    elements of one size, the box must lie in the array
 *    ("batch.cu.3d.ptr2array", ".array_elemsize_mismatch", ".array_oob_*").
 *
 * Every access order is honoured by running the copies in stream order;
 * DURING_API_CALL makes the call wait until the copies ran, so that the
 * caller may reuse the source at once.  The location hints and
 * PREFER_OVERLAP_WITH_COMPUTE change nothing: one copy engine per GPU.
 * CUDA 13 dropped the failIdx output; libuvm has only the CUDA 13 forms.
 */
#include <vector>

#include "context.h"
#include "copy.h"
#include "device.h"

namespace uvm {
namespace {

bool order_ok(int order)
{
	return order == CU_MEMCPY_SRC_ACCESS_ORDER_STREAM ||
	       order == CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL ||
	       order == CU_MEMCPY_SRC_ACCESS_ORDER_ANY;
}

bool hint_ok(const CUmemLocation &l)
{
	switch (l.type) {
	case CU_MEM_LOCATION_TYPE_INVALID:
	case CU_MEM_LOCATION_TYPE_HOST:
	case CU_MEM_LOCATION_TYPE_HOST_NUMA:
	case CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT:
		return true;
	case CU_MEM_LOCATION_TYPE_DEVICE:
		return l.id >= 0 && l.id < dev_state().num_devices;
	default:
		return false;
	}
}

bool attr_ok(const CUmemcpyAttributes &a)
{
	return order_ok(a.srcAccessOrder) && !(a.flags & ~CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE) &&
	       hint_ok(a.srcLocHint) && hint_ok(a.dstLocHint);
}

/* The legacy stream, named or as NULL (not NULL of a _ptsz call). */
bool legacy_stream(CUstream h, bool ptds)
{
	return h == CU_STREAM_LEGACY || (!h && !ptds);
}

CUresult batch_1d(const CUdeviceptr *dsts, const CUdeviceptr *srcs, const size_t *sizes,
		  size_t count, const CUmemcpyAttributes *attrs, const size_t *idxs,
		  size_t nattrs, CUstream h, bool ptds)
{
	if (CUresult r = check_init())
		return r;
	if (legacy_stream(h, ptds) || !count || !dsts || !srcs || !sizes || !attrs || !idxs ||
	    !nattrs || nattrs > count || idxs[0] != 0)
		return CUDA_ERROR_INVALID_VALUE;
	for (size_t k = 0; k < nattrs; k++) {
		if (idxs[k] >= count || (k && idxs[k] <= idxs[k - 1]) || !attr_ok(attrs[k]))
			return CUDA_ERROR_INVALID_VALUE;
	}

	std::vector<BatchCopy> copies(count);
	size_t k = 0;
	for (size_t i = 0; i < count; i++) {
		BatchCopy &c = copies[i];

		if (k + 1 < nattrs && i == idxs[k + 1])
			k++;
		if (!dsts[i] || !srcs[i] || !sizes[i])
			return CUDA_ERROR_INVALID_VALUE;
		c.box.dst.addr = dsts[i];
		c.box.src.addr = srcs[i];
		c.box.dst.role = c.box.src.role = Role::any;
		c.box.width = sizes[i];
		c.read_at_call = attrs[k].srcAccessOrder == CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL;
	}
	return batch_execute(copies, h, ptds);
}

/*
 * The unit of a 3D operation: the element of the arrays taking part (two
 * must agree), else a byte.  A NULL or unknown array is an invalid value.
 */
CUresult op_element(const CUDA_MEMCPY3D_BATCH_OP &op, uint64_t *elem)
{
	uint64_t e[2] = { 0, 0 };

	for (int i = 0; i < 2; i++) {
		const CUmemcpy3DOperand &o = i ? op.dst : op.src;

		if (o.type != CU_MEMCPY_OPERAND_TYPE_ARRAY)
			continue;
		if (!o.op.array.array || array_element_size(o.op.array.array, &e[i]))
			return CUDA_ERROR_INVALID_VALUE;
	}
	if (e[0] && e[1] && e[0] != e[1])
		return CUDA_ERROR_INVALID_VALUE;
	*elem = e[0] ? e[0] : e[1] ? e[1] : 1;
	return CUDA_SUCCESS;
}

/* An operand of a 3D operation as one side of a box; sizes in units of
 * @elem bytes. */
CUresult operand(const CUmemcpy3DOperand &o, const CUextent3D &e, uint64_t elem, BoxSide *side)
{
	uint64_t width, x;

	if (__builtin_mul_overflow(static_cast<uint64_t>(e.width), elem, &width))
		return CUDA_ERROR_INVALID_VALUE;
	if (o.type == CU_MEMCPY_OPERAND_TYPE_ARRAY) {
		if (__builtin_mul_overflow(static_cast<uint64_t>(o.op.array.offset.x), elem, &x))
			return CUDA_ERROR_INVALID_VALUE;
		CUresult r = array_side(o.op.array.array, x, o.op.array.offset.y,
					o.op.array.offset.z, width, e.height, e.depth, side);
		return r == CUDA_ERROR_INVALID_HANDLE ? CUDA_ERROR_INVALID_VALUE : r;
	}
	if (o.type != CU_MEMCPY_OPERAND_TYPE_POINTER || !o.op.ptr.ptr)
		return CUDA_ERROR_INVALID_VALUE;
	const size_t row = o.op.ptr.rowLength ? o.op.ptr.rowLength : e.width;
	const size_t layer = o.op.ptr.layerHeight ? o.op.ptr.layerHeight : e.height;
	if (row < e.width || layer < e.height)
		return CUDA_ERROR_INVALID_VALUE;
	side->addr = o.op.ptr.ptr;
	if (__builtin_mul_overflow(static_cast<uint64_t>(row), elem, &side->pitch) ||
	    __builtin_mul_overflow(side->pitch, static_cast<uint64_t>(layer), &side->slice_pitch))
		return CUDA_ERROR_INVALID_VALUE;
	side->role = Role::any;
	return CUDA_SUCCESS;
}

CUresult batch_3d(size_t n, const CUDA_MEMCPY3D_BATCH_OP *ops, unsigned long long flags,
		  CUstream h, bool ptds)
{
	if (CUresult r = check_init())
		return r;
	if (legacy_stream(h, ptds) || !n || !ops || flags)
		return CUDA_ERROR_INVALID_VALUE;

	std::vector<BatchCopy> copies(n);
	for (size_t i = 0; i < n; i++) {
		const CUDA_MEMCPY3D_BATCH_OP &op = ops[i];
		BatchCopy &c = copies[i];

		if (!order_ok(op.srcAccessOrder) ||
		    (op.flags & ~CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE) ||
		    !op.extent.width || !op.extent.height || !op.extent.depth)
			return CUDA_ERROR_INVALID_VALUE;
		uint64_t elem;
		if (CUresult r = op_element(op, &elem))
			return r;
		if (CUresult r = operand(op.src, op.extent, elem, &c.box.src))
			return r;
		if (CUresult r = operand(op.dst, op.extent, elem, &c.box.dst))
			return r;
		c.box.width = op.extent.width * elem;	/* checked by operand() */
		c.box.height = op.extent.height;
		c.box.depth = op.extent.depth;
		c.read_at_call = op.srcAccessOrder == CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL;
	}
	return batch_execute(copies, h, ptds);
}

CUmemcpyAttributes to_cu(const struct cudaMemcpyAttributes &a)
{
	CUmemcpyAttributes c {};

	c.srcAccessOrder = static_cast<CUmemcpySrcAccessOrder>(a.srcAccessOrder);
	c.srcLocHint = { static_cast<CUmemLocationType>(a.srcLocHint.type), a.srcLocHint.id };
	c.dstLocHint = { static_cast<CUmemLocationType>(a.dstLocHint.type), a.dstLocHint.id };
	c.flags = a.flags;
	return c;
}

CUmemcpy3DOperand to_cu(const struct cudaMemcpy3DOperand &o)
{
	CUmemcpy3DOperand c {};

	c.type = static_cast<CUmemcpy3DOperandType>(o.type);
	if (o.type == cudaMemcpyOperandTypeArray) {
		c.op.array.array = reinterpret_cast<CUarray>(o.op.array.array);
		c.op.array.offset = { o.op.array.offset.x, o.op.array.offset.y,
				      o.op.array.offset.z };
	} else {
		c.op.ptr.ptr = reinterpret_cast<uintptr_t>(o.op.ptr.ptr);
		c.op.ptr.rowLength = o.op.ptr.rowLength;
		c.op.ptr.layerHeight = o.op.ptr.layerHeight;
		c.op.ptr.locHint = { static_cast<CUmemLocationType>(o.op.ptr.locHint.type),
				     o.op.ptr.locHint.id };
	}
	return c;
}

cudaError_t rt_batch_1d(void *const *dsts, const void *const *srcs, const size_t *sizes,
			size_t count, const struct cudaMemcpyAttributes *attrs, const size_t *idxs,
			size_t nattrs, cudaStream_t stream, bool ptds)
{
	return rt([&] {
		std::vector<CUdeviceptr> d, s;
		std::vector<CUmemcpyAttributes> a;

		if (dsts && srcs && count) {
			d.resize(count);
			s.resize(count);
			for (size_t i = 0; i < count; i++) {
				d[i] = reinterpret_cast<uintptr_t>(dsts[i]);
				s[i] = reinterpret_cast<uintptr_t>(srcs[i]);
			}
		}
		if (attrs && nattrs <= count) {
			a.resize(nattrs);
			for (size_t k = 0; k < nattrs; k++)
				a[k] = to_cu(attrs[k]);
		}
		return batch_1d(dsts ? d.data() : nullptr, srcs ? s.data() : nullptr, sizes, count,
				attrs ? a.data() : nullptr, idxs, nattrs,
				reinterpret_cast<CUstream>(stream), ptds);
	});
}

cudaError_t rt_batch_3d(size_t n, const struct cudaMemcpy3DBatchOp *ops,
			unsigned long long flags, cudaStream_t stream, bool ptds)
{
	return rt([&] {
		std::vector<CUDA_MEMCPY3D_BATCH_OP> c;

		if (ops) {
			c.resize(n);
			for (size_t i = 0; i < n; i++) {
				c[i].src = to_cu(ops[i].src);
				c[i].dst = to_cu(ops[i].dst);
				c[i].extent = { ops[i].extent.width, ops[i].extent.height,
						ops[i].extent.depth };
				c[i].srcAccessOrder =
					static_cast<CUmemcpySrcAccessOrder>(ops[i].srcAccessOrder);
				c[i].flags = ops[i].flags;
			}
		}
		return batch_3d(n, ops ? c.data() : nullptr, flags,
				reinterpret_cast<CUstream>(stream), ptds);
	});
}

} // namespace
} // namespace uvm

using namespace uvm;

#undef cuMemcpyBatchAsync
#undef cuMemcpy3DBatchAsync
#undef cudaMemcpyBatchAsync
#undef cudaMemcpy3DBatchAsync

extern "C" CUresult cuMemcpyBatchAsync(CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes,
				       size_t count, CUmemcpyAttributes *attrs, size_t *attrsIdxs,
				       size_t numAttrs, CUstream hStream) noexcept
{
	return guard([&] {
		return batch_1d(dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs, hStream,
				false);
	});
}

extern "C" CUresult cuMemcpyBatchAsync_ptsz(CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes,
					    size_t count, CUmemcpyAttributes *attrs,
					    size_t *attrsIdxs, size_t numAttrs,
					    CUstream hStream) noexcept
{
	return guard([&] {
		return batch_1d(dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs, hStream,
				true);
	});
}

extern "C" CUresult cuMemcpy3DBatchAsync(size_t numOps, CUDA_MEMCPY3D_BATCH_OP *opList,
					 unsigned long long flags, CUstream hStream) noexcept
{
	return guard([&] { return batch_3d(numOps, opList, flags, hStream, false); });
}

extern "C" CUresult cuMemcpy3DBatchAsync_ptsz(size_t numOps, CUDA_MEMCPY3D_BATCH_OP *opList,
					      unsigned long long flags, CUstream hStream) noexcept
{
	return guard([&] { return batch_3d(numOps, opList, flags, hStream, true); });
}

extern "C" cudaError_t cudaMemcpyBatchAsync(void *const *dsts, const void *const *srcs,
					    const size_t *sizes, size_t count,
					    struct cudaMemcpyAttributes *attrs, size_t *attrsIdxs,
					    size_t numAttrs, cudaStream_t stream) noexcept
{
	return rt_batch_1d(dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs, stream, false);
}

extern "C" cudaError_t cudaMemcpyBatchAsync_ptsz(void *const *dsts,
						 const void *const *srcs, const size_t *sizes,
						 size_t count, struct cudaMemcpyAttributes *attrs,
						 size_t *attrsIdxs, size_t numAttrs,
						 cudaStream_t stream) noexcept
{
	return rt_batch_1d(dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs, stream, true);
}

extern "C" cudaError_t cudaMemcpy3DBatchAsync(size_t numOps, struct cudaMemcpy3DBatchOp *opList,
					      unsigned long long flags,
					      cudaStream_t stream) noexcept
{
	return rt_batch_3d(numOps, opList, flags, stream, false);
}

extern "C" cudaError_t cudaMemcpy3DBatchAsync_ptsz(size_t numOps,
						   struct cudaMemcpy3DBatchOp *opList,
						   unsigned long long flags,
						   cudaStream_t stream) noexcept
{
	return rt_batch_3d(numOps, opList, flags, stream, true);
}
