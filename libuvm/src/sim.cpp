// SPDX-License-Identifier: MIT
/*
 * sim.cpp - uvm_sim.h: launches on the simulated GPUs, residency, counters;
 * and the library's version queries (libuvm.h).
 *
 * A launch is synchronous in the driver (UVM_TEST_IOC_LAUNCH returns when
 * the access program finished or hit a fatal fault).  Stream order: the
 * launch first waits for the fence of everything its stream depends on.
 */
#include <cerrno>
#include <vector>

#include "context.h"
#include "device.h"
#include "sim.h"
#include "libuvm.h"
#include "uvm_sim.h"

namespace uvm {
namespace {

bool sim_available()
{
	return driver().version.caps & UVM_CAP_TEST_IOCTLS;
}

} // namespace
} // namespace uvm

using namespace uvm;

extern "C" CUresult uvmSimIsAvailable(int *available) noexcept
{
	if (CUresult r = check_init())
		return r;
	if (!available)
		return CUDA_ERROR_INVALID_VALUE;
	*available = sim_available();
	return CUDA_SUCCESS;
}

extern "C" CUresult uvmSimLaunch(CUdevice dev, unsigned int numWarps, uvmSimOp *ops,
				 unsigned int numOps, CUstream hStream,
				 uvmSimLaunchInfo *info) noexcept
{
	return guard([&]() -> CUresult {
		ContextRegistry &s = ctx_reg();
		Stream *st;
		uint64_t barrier;

		if (CUresult r = check_init())
			return r;
		if (!ops || !numOps)
			return CUDA_ERROR_INVALID_VALUE;
		if (!valid_device(dev))
			return CUDA_ERROR_INVALID_DEVICE;
		if (!sim_available())
			return CUDA_ERROR_NOT_SUPPORTED;
		{
			std::lock_guard<std::mutex> lock(s.mu);
			if (CUresult r = resolve_stream(hStream, false, &st))
				return r;
			barrier = stream_barrier(st);
		}
		if (int r = s.fences.wait(driver(), barrier, false))
			return from_errno(r);

		std::vector<struct uvm_test_gpu_op> uops(numOps);
		for (unsigned int i = 0; i < numOps; i++) {
			uops[i].type = ops[i].type;
			uops[i].order = ops[i].order ? ops[i].order : UVM_TEST_ORDER_SEQUENTIAL;
			uops[i].address = ops[i].address;
			uops[i].length = ops[i].length;
			uops[i].stride = ops[i].stride;
			uops[i].access_size = ops[i].accessSize ? ops[i].accessSize : 8;
			uops[i].seed = ops[i].seed;
			uops[i].value = ops[i].value;
			uops[i].data_ptr = reinterpret_cast<uintptr_t>(ops[i].data);
		}
		struct uvm_test_launch args {};
		args.gpu_index = static_cast<__u32>(dev);
		args.num_warps = numWarps;
		args.ops_ptr = reinterpret_cast<uintptr_t>(uops.data());
		args.num_ops = numOps;
		int r = driver().ioctl(UVM_TEST_IOC_LAUNCH, &args);
		for (unsigned int i = 0; i < numOps; i++)
			ops[i].checksum = uops[i].checksum;
		if (info) {
			info->faultAddress = r == -EREMOTEIO ? args.fault_address : 0;
			info->faultAccess = r == -EREMOTEIO ? args.fault_access : 0;
			info->faultOp = r == -EREMOTEIO ? args.fault_op : 0;
			info->faultsRaised = args.faults_raised;
		}
		return from_errno(r);
	});
}

extern "C" CUresult uvmSimResidency(CUdeviceptr ptr, size_t bytes, uvmSimPageState *states,
				    size_t numStates) noexcept
{
	return guard([&]() -> CUresult {
		if (CUresult r = check_init())
			return r;
		if (!states || !bytes || ptr + bytes < ptr)
			return CUDA_ERROR_INVALID_VALUE;
		if (!sim_available())
			return CUDA_ERROR_NOT_SUPPORTED;
		const uint64_t ps = page_size();
		uint64_t start = round_down(ptr, ps), end = round_up(ptr + bytes, ps);
		uint64_t pages = (end - start) / ps;
		if (numStates < pages)
			return CUDA_ERROR_INVALID_VALUE;
		static_assert(sizeof(uvmSimPageState) == sizeof(struct uvm_test_page_state));
		for (uint64_t done = 0; done < pages;) {
			uint64_t n = std::min<uint64_t>(pages - done, UVM_TEST_RESIDENCY_MAX_PAGES);
			struct uvm_test_residency args {};

			args.address = start + done * ps;
			args.length = n * ps;
			args.states_ptr = reinterpret_cast<uintptr_t>(states + done);
			if (int r = driver().ioctl(UVM_TEST_IOC_RESIDENCY, &args))
				return from_errno(r);
			done += n;
		}
		return CUDA_SUCCESS;
	});
}

extern "C" CUresult uvmSimGetCounters(unsigned long long *counters, unsigned int *count) noexcept
{
	if (CUresult r = check_init())
		return r;
	if (!count || (*count && !counters))
		return CUDA_ERROR_INVALID_VALUE;
	struct uvm_ioc_get_counters args {};
	static_assert(sizeof(unsigned long long) == sizeof(__u64));
	args.counters_ptr = reinterpret_cast<uintptr_t>(counters);
	args.count = *count;
	if (int r = driver().ioctl(UVM_IOC_GET_COUNTERS, &args))
		return from_errno(r);
	*count = args.count;
	return CUDA_SUCCESS;
}

extern "C" unsigned long long uvmSimPatternWord(unsigned long long value, CUdeviceptr addr) noexcept
{
	return UVM_TEST_PATTERN_WORD(value, addr);
}

extern "C" unsigned long long uvmSimChecksumTerm(unsigned long long word, CUdeviceptr addr) noexcept
{
	return UVM_TEST_CHECKSUM_TERM(word, addr);
}

extern "C" CUresult uvmSimPageSize(size_t *pageSize) noexcept
{
	if (CUresult r = check_init())
		return r;
	if (!pageSize)
		return CUDA_ERROR_INVALID_VALUE;
	*pageSize = page_size();
	return CUDA_SUCCESS;
}

extern "C" CUresult uvmGetVersion(int *major, int *minor, int *patch) noexcept
{
	if (!major || !minor || !patch)
		return CUDA_ERROR_INVALID_VALUE;
	*major = UVM_VERSION_MAJOR;
	*minor = UVM_VERSION_MINOR;
	*patch = UVM_VERSION_PATCH;
	return CUDA_SUCCESS;
}

extern "C" const char *uvmGetVersionString(void) noexcept
{
	return UVM_VERSION_STRING;
}
