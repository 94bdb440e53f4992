// SPDX-License-Identifier: MIT
/*
 * peer.cpp - peer access between devices: cuDeviceCanAccessPeer,
 * cuDeviceGetP2PAttribute, cuCtxEnablePeerAccess, cuCtxDisablePeerAccess and
 * the runtime's cudaDeviceCanAccessPeer, cudaDeviceGetP2PAttribute,
 * cudaDeviceEnablePeerAccess, cudaDeviceDisablePeerAccess.
 *
 * Every simulated GPU reaches every other's memory (the driver maps peer
 * memory on faults and copies between GPUs with unified addresses), so any
 * two different devices can access each other; enabling access is the
 * context's record of it, as CUDA keeps it, with NVIDIA's codes for access
 * to oneself, twice, or never enabled ("pitch.peer.*" of
 * tests/real-driver/results/probe_pitch.txt).  Native atomics over the
 * link are not claimed.
 *
 * Locking: a context's peers are ContextRegistry::mu's.
 */
#include "context.h"
#include "device.h"

namespace uvm {
namespace {

CUresult can_access(int *can, int dev, int peer)
{
	if (CUresult r = check_init())
		return r;
	if (!can)
		return CUDA_ERROR_INVALID_VALUE;
	if (!valid_device(dev) || !valid_device(peer))
		return CUDA_ERROR_INVALID_DEVICE;
	*can = dev != peer;
	return CUDA_SUCCESS;
}

/* A pair of devices: two different ones ("pitch.peer.p2pattr.0_0"). */
CUresult p2p_attribute(int *value, int attr, int src, int dst)
{
	if (CUresult r = check_init())
		return r;
	if (!value)
		return CUDA_ERROR_INVALID_VALUE;
	if (!valid_device(src) || !valid_device(dst) || src == dst)
		return CUDA_ERROR_INVALID_DEVICE;
	switch (attr) {
	case CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK:
	case CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED:
	case CU_DEVICE_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED:
		*value = 0;
		return CUDA_SUCCESS;
	case CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED:
	case CU_DEVICE_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED:
		*value = 1;
		return CUDA_SUCCESS;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
}

/*
 * Record access of the current context to @peer's memory: not to its own
 * device ("pitch.peer.cuenable.self": CUDA_ERROR_PEER_ACCESS_UNSUPPORTED),
 * not twice, no flags.
 */
CUresult enable(int peer, unsigned int flags)
{
	Context *ctx;

	if (CUresult r = current_context(&ctx))
		return r;
	if (flags)
		return CUDA_ERROR_INVALID_VALUE;
	std::lock_guard<std::mutex> lock(ctx_reg().mu);
	if (peer == ctx->device)
		return CUDA_ERROR_PEER_ACCESS_UNSUPPORTED;
	if (!ctx->peers.insert(peer).second)
		return CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED;
	return CUDA_SUCCESS;
}

/* "pitch.peer.cudisable.self": CUDA_ERROR_PEER_ACCESS_NOT_ENABLED */
CUresult disable(int peer)
{
	Context *ctx;

	if (CUresult r = current_context(&ctx))
		return r;
	std::lock_guard<std::mutex> lock(ctx_reg().mu);
	return ctx->peers.erase(peer) ? CUDA_SUCCESS : CUDA_ERROR_PEER_ACCESS_NOT_ENABLED;
}

/* The device of a live context the library made. */
CUresult device_of_context(CUcontext h, int *dev)
{
	std::lock_guard<std::mutex> lock(ctx_reg().mu);
	Context *c;

	if (CUresult r = live_context(h, &c))
		return r;
	*dev = c->device;
	return CUDA_SUCCESS;
}

} // namespace
} // namespace uvm

using namespace uvm;

extern "C" CUresult cuDeviceCanAccessPeer(int *canAccessPeer, CUdevice dev,
					  CUdevice peerDev) noexcept
{
	return guard([&] { return can_access(canAccessPeer, dev, peerDev); });
}

extern "C" CUresult cuDeviceGetP2PAttribute(int *value, CUdevice_P2PAttribute attrib,
					    CUdevice srcDevice, CUdevice dstDevice) noexcept
{
	return guard([&] { return p2p_attribute(value, attrib, srcDevice, dstDevice); });
}

extern "C" CUresult cuCtxEnablePeerAccess(CUcontext peerContext, unsigned int Flags) noexcept
{
	return guard([&]() -> CUresult {
		int dev;

		if (CUresult r = check_init())
			return r;
		if (CUresult r = device_of_context(peerContext, &dev))
			return r;
		return enable(dev, Flags);
	});
}

extern "C" CUresult cuCtxDisablePeerAccess(CUcontext peerContext) noexcept
{
	return guard([&]() -> CUresult {
		int dev;

		if (CUresult r = check_init())
			return r;
		if (CUresult r = device_of_context(peerContext, &dev))
			return r;
		return disable(dev);
	});
}

extern "C" cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device,
					       int peerDevice) noexcept
{
	return rt([&] { return can_access(canAccessPeer, device, peerDevice); });
}

extern "C" cudaError_t cudaDeviceGetP2PAttribute(int *value, enum cudaDeviceP2PAttr attr,
						 int srcDevice, int dstDevice) noexcept
{
	return rt([&] { return p2p_attribute(value, attr, srcDevice, dstDevice); });
}

/* The runtime's forms name the peer by device ("pitch.peer.enable.1":
 * cudaErrorInvalidDevice for one that does not exist). */
extern "C" cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags) noexcept
{
	return rt([&]() -> CUresult {
		if (!valid_device(peerDevice))
			return CUDA_ERROR_INVALID_DEVICE;
		return enable(peerDevice, flags);
	});
}

extern "C" cudaError_t cudaDeviceDisablePeerAccess(int peerDevice) noexcept
{
	return rt([&]() -> CUresult {
		if (!valid_device(peerDevice))
			return CUDA_ERROR_INVALID_DEVICE;
		return disable(peerDevice);
	});
}
