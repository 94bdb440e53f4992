/* SPDX-License-Identifier: MIT */
/*
 * cuda_runtime_api.h - libuvm's declarations of the memory subset of the
 * CUDA runtime API, source compatible with CUDA 13.0 for these functions.
 * No NVIDIA text.  C++ callers get the default arguments the runtime has.
 */
#ifndef UVM_CUDA_RUNTIME_API_H
#define UVM_CUDA_RUNTIME_API_H
/* NVIDIA's guard too: code that tests for this header sees it included. */
#define __CUDA_RUNTIME_API_H__

#include <stddef.h>

#include "builtin_types.h"

#define CUDART_VERSION 13000

/*
 * Per-thread default stream: with -DCUDA_API_PER_THREAD_DEFAULT_STREAM the
 * stream-ordered calls map onto their _ptsz/_ptds symbols, where stream 0 is
 * the calling thread's default stream.
 */
#if defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
#define UVM_RT_PTSZ(api) api##_ptsz
#define UVM_RT_PTDS(api) api##_ptds
#else
#define UVM_RT_PTSZ(api) api
#define UVM_RT_PTDS(api) api
#endif
#define cudaStreamQuery				UVM_RT_PTSZ(cudaStreamQuery)
#define cudaStreamSynchronize			UVM_RT_PTSZ(cudaStreamSynchronize)
#define cudaStreamWaitEvent			UVM_RT_PTSZ(cudaStreamWaitEvent)
#define cudaEventRecord				UVM_RT_PTSZ(cudaEventRecord)
#define cudaGetDriverEntryPoint			UVM_RT_PTSZ(cudaGetDriverEntryPoint)
#define cudaGetDriverEntryPointByVersion	UVM_RT_PTSZ(cudaGetDriverEntryPointByVersion)
#define cudaMemPrefetchAsync			UVM_RT_PTSZ(cudaMemPrefetchAsync)
#define cudaMemPrefetchBatchAsync		UVM_RT_PTSZ(cudaMemPrefetchBatchAsync)
#define cudaMemDiscardBatchAsync		UVM_RT_PTSZ(cudaMemDiscardBatchAsync)
#define cudaMemDiscardAndPrefetchBatchAsync	UVM_RT_PTSZ(cudaMemDiscardAndPrefetchBatchAsync)
#define cudaMemcpyBatchAsync			UVM_RT_PTSZ(cudaMemcpyBatchAsync)
#define cudaMemcpy3DBatchAsync			UVM_RT_PTSZ(cudaMemcpy3DBatchAsync)
#define cudaMemcpy				UVM_RT_PTDS(cudaMemcpy)
#define cudaMemset				UVM_RT_PTDS(cudaMemset)
#define cudaMemcpyAsync				UVM_RT_PTSZ(cudaMemcpyAsync)
#define cudaMemsetAsync				UVM_RT_PTSZ(cudaMemsetAsync)
#define cudaMemcpy2D				UVM_RT_PTDS(cudaMemcpy2D)
#define cudaMemcpy3D				UVM_RT_PTDS(cudaMemcpy3D)
#define cudaMemcpy3DPeer			UVM_RT_PTDS(cudaMemcpy3DPeer)
#define cudaMemset2D				UVM_RT_PTDS(cudaMemset2D)
#define cudaMemset3D				UVM_RT_PTDS(cudaMemset3D)
#define cudaMemcpy2DAsync			UVM_RT_PTSZ(cudaMemcpy2DAsync)
#define cudaMemcpy3DAsync			UVM_RT_PTSZ(cudaMemcpy3DAsync)
#define cudaMemcpy3DPeerAsync			UVM_RT_PTSZ(cudaMemcpy3DPeerAsync)
#define cudaMemset2DAsync			UVM_RT_PTSZ(cudaMemset2DAsync)
#define cudaMemset3DAsync			UVM_RT_PTSZ(cudaMemset3DAsync)
#define cudaMemcpy2DToArray			UVM_RT_PTDS(cudaMemcpy2DToArray)
#define cudaMemcpy2DFromArray			UVM_RT_PTDS(cudaMemcpy2DFromArray)
#define cudaMemcpy2DArrayToArray		UVM_RT_PTDS(cudaMemcpy2DArrayToArray)
#define cudaMemcpyToArray			UVM_RT_PTDS(cudaMemcpyToArray)
#define cudaMemcpyFromArray			UVM_RT_PTDS(cudaMemcpyFromArray)
#define cudaMemcpyArrayToArray			UVM_RT_PTDS(cudaMemcpyArrayToArray)
#define cudaMemcpy2DToArrayAsync		UVM_RT_PTSZ(cudaMemcpy2DToArrayAsync)
#define cudaMemcpy2DFromArrayAsync		UVM_RT_PTSZ(cudaMemcpy2DFromArrayAsync)
#define cudaMemcpyToArrayAsync			UVM_RT_PTSZ(cudaMemcpyToArrayAsync)
#define cudaMemcpyFromArrayAsync		UVM_RT_PTSZ(cudaMemcpyFromArrayAsync)
#define cudaMemcpyToSymbol			UVM_RT_PTDS(cudaMemcpyToSymbol)
#define cudaMemcpyFromSymbol			UVM_RT_PTDS(cudaMemcpyFromSymbol)
#define cudaMemcpyToSymbolAsync			UVM_RT_PTSZ(cudaMemcpyToSymbolAsync)
#define cudaMemcpyFromSymbolAsync		UVM_RT_PTSZ(cudaMemcpyFromSymbolAsync)

#ifdef __cplusplus
#define UVM_RT_NOEXCEPT noexcept
#define UVM_RT_DEFAULT(v) = v
extern "C" {
#else
#define UVM_RT_NOEXCEPT
#define UVM_RT_DEFAULT(v)
#endif

#define CUDARTAPI

cudaError_t CUDARTAPI cudaGetLastError(void) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaPeekAtLastError(void) UVM_RT_NOEXCEPT;
const char *CUDARTAPI cudaGetErrorName(cudaError_t error) UVM_RT_NOEXCEPT;
const char *CUDARTAPI cudaGetErrorString(cudaError_t error) UVM_RT_NOEXCEPT;

cudaError_t CUDARTAPI cudaDriverGetVersion(int *driverVersion) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaRuntimeGetVersion(int *runtimeVersion) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaGetDeviceCount(int *count) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaGetDeviceProperties(struct cudaDeviceProp *prop,
					      int device) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaDeviceCanAccessPeer(int *canAccessPeer, int device,
					      int peerDevice) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaDeviceEnablePeerAccess(int peerDevice,
						 unsigned int flags) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaDeviceDisablePeerAccess(int peerDevice) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaDeviceGetP2PAttribute(int *value, enum cudaDeviceP2PAttr attr,
						int srcDevice, int dstDevice) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaGetDevice(int *device) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaSetDevice(int device) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaSetDeviceFlags(unsigned int flags) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaGetDriverEntryPoint(const char *symbol, void **funcPtr,
					      unsigned long long flags,
					      enum cudaDriverEntryPointQueryResult *driverStatus
					      UVM_RT_DEFAULT(NULL)) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaGetDriverEntryPointByVersion(const char *symbol, void **funcPtr,
						       unsigned int cudaVersion,
						       unsigned long long flags,
						       enum cudaDriverEntryPointQueryResult *driverStatus
						       UVM_RT_DEFAULT(NULL)) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaGetDeviceFlags(unsigned int *flags) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr,
					     int device) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaDeviceSynchronize(void) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaDeviceReset(void) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaStreamGetFlags(cudaStream_t hStream, unsigned int *flags) UVM_RT_NOEXCEPT;

cudaError_t CUDARTAPI cudaStreamCreate(cudaStream_t *pStream) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaStreamCreateWithFlags(cudaStream_t *pStream,
						unsigned int flags) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaStreamDestroy(cudaStream_t stream) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaStreamSynchronize(cudaStream_t stream) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaStreamQuery(cudaStream_t stream) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event,
					  unsigned int flags UVM_RT_DEFAULT(0)) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaEventCreate(cudaEvent_t *event) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaEventCreateWithFlags(cudaEvent_t *event,
					       unsigned int flags) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaEventRecord(cudaEvent_t event,
				      cudaStream_t stream UVM_RT_DEFAULT(0)) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaEventQuery(cudaEvent_t event) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaEventSynchronize(cudaEvent_t event) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaEventDestroy(cudaEvent_t event) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaEventElapsedTime(float *ms, cudaEvent_t start,
					   cudaEvent_t end) UVM_RT_NOEXCEPT;

cudaError_t CUDARTAPI cudaMallocManaged(void **devPtr, size_t size,
					unsigned int flags UVM_RT_DEFAULT(cudaMemAttachGlobal))
	UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaMalloc(void **devPtr, size_t size) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaFree(void *devPtr) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaMallocHost(void **ptr, size_t size) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaHostAlloc(void **pHost, size_t size, unsigned int flags) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaFreeHost(void *ptr) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaHostRegister(void *ptr, size_t size, unsigned int flags) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaHostUnregister(void *ptr) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaHostGetDevicePointer(void **pDevice, void *pHost,
					       unsigned int flags) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaHostGetFlags(unsigned int *pFlags, void *pHost) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaMemcpy(void *dst, const void *src, size_t count,
				 enum cudaMemcpyKind kind) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaMemcpyAsync(void *dst, const void *src, size_t count,
				      enum cudaMemcpyKind kind,
				      cudaStream_t stream UVM_RT_DEFAULT(0)) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaMemset(void *devPtr, int value, size_t count) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaMemsetAsync(void *devPtr, int value, size_t count,
				      cudaStream_t stream UVM_RT_DEFAULT(0)) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaMallocPitch(void **devPtr, size_t *pitch, size_t width,
				      size_t height) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaMalloc3D(struct cudaPitchedPtr *pitchedDevPtr,
				   struct cudaExtent extent) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch,
				   size_t width, size_t height,
				   enum cudaMemcpyKind kind) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src,
					size_t spitch, size_t width, size_t height,
					enum cudaMemcpyKind kind,
					cudaStream_t stream UVM_RT_DEFAULT(0)) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaMemcpy3D(const struct cudaMemcpy3DParms *p) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p,
					cudaStream_t stream UVM_RT_DEFAULT(0)) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice,
				     size_t count) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src,
					  int srcDevice, size_t count,
					  cudaStream_t stream UVM_RT_DEFAULT(0)) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaMemcpy3DPeer(const struct cudaMemcpy3DPeerParms *p) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaMemcpy3DPeerAsync(const struct cudaMemcpy3DPeerParms *p,
					    cudaStream_t stream UVM_RT_DEFAULT(0)) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width,
				   size_t height) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width,
					size_t height,
					cudaStream_t stream UVM_RT_DEFAULT(0)) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaMemset3D(struct cudaPitchedPtr pitchedDevPtr, int value,
				   struct cudaExtent extent) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaMemset3DAsync(struct cudaPitchedPtr pitchedDevPtr, int value,
					struct cudaExtent extent,
					cudaStream_t stream UVM_RT_DEFAULT(0)) UVM_RT_NOEXCEPT;

/* CUDA arrays. */
struct cudaChannelFormatDesc CUDARTAPI cudaCreateChannelDesc(int x, int y, int z, int w,
							     enum cudaChannelFormatKind f)
	UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaMallocArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
				      size_t width, size_t height UVM_RT_DEFAULT(0),
				      unsigned int flags UVM_RT_DEFAULT(0)) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaMalloc3DArray(cudaArray_t *array,
					const struct cudaChannelFormatDesc *desc,
					struct cudaExtent extent,
					unsigned int flags UVM_RT_DEFAULT(0)) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaMallocMipmappedArray(cudaMipmappedArray_t *mipmappedArray,
					       const struct cudaChannelFormatDesc *desc,
					       struct cudaExtent extent, unsigned int numLevels,
					       unsigned int flags UVM_RT_DEFAULT(0))
	UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaFreeArray(cudaArray_t array) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaFreeMipmappedArray(cudaMipmappedArray_t mipmappedArray) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaArrayGetInfo(struct cudaChannelFormatDesc *desc, struct cudaExtent *extent,
				       unsigned int *flags, cudaArray_t array) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaArrayGetPlane(cudaArray_t *pPlaneArray, cudaArray_t hArray,
					unsigned int planeIdx) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaGetMipmappedArrayLevel(cudaArray_t *levelArray,
						 cudaMipmappedArray_const_t mipmappedArray,
						 unsigned int level) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaArrayGetMemoryRequirements(struct cudaArrayMemoryRequirements *memoryRequirements,
						     cudaArray_t array, int device) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaMipmappedArrayGetMemoryRequirements(
	struct cudaArrayMemoryRequirements *memoryRequirements, cudaMipmappedArray_t mipmap,
	int device) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaArrayGetSparseProperties(struct cudaArraySparseProperties *sparseProperties,
						   cudaArray_t array) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaMipmappedArrayGetSparseProperties(
	struct cudaArraySparseProperties *sparseProperties, cudaMipmappedArray_t mipmap)
	UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset,
					  const void *src, size_t spitch, size_t width,
					  size_t height, enum cudaMemcpyKind kind) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src,
					    size_t wOffset, size_t hOffset, size_t width,
					    size_t height, enum cudaMemcpyKind kind) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaMemcpy2DArrayToArray(cudaArray_t dst, size_t wOffsetDst,
					       size_t hOffsetDst, cudaArray_const_t src,
					       size_t wOffsetSrc, size_t hOffsetSrc, size_t width,
					       size_t height,
					       enum cudaMemcpyKind kind UVM_RT_DEFAULT(cudaMemcpyDeviceToDevice))
	UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset,
					       const void *src, size_t spitch, size_t width,
					       size_t height, enum cudaMemcpyKind kind,
					       cudaStream_t stream UVM_RT_DEFAULT(0)) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaMemcpy2DFromArrayAsync(void *dst, size_t dpitch, cudaArray_const_t src,
						 size_t wOffset, size_t hOffset, size_t width,
						 size_t height, enum cudaMemcpyKind kind,
						 cudaStream_t stream UVM_RT_DEFAULT(0))
	UVM_RT_NOEXCEPT;
/* Deprecated by CUDA, still exported: count bytes from (wOffset, hOffset)
 * on, row after row. */
cudaError_t CUDARTAPI cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset,
					const void *src, size_t count,
					enum cudaMemcpyKind kind) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t wOffset,
					  size_t hOffset, size_t count,
					  enum cudaMemcpyKind kind) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaMemcpyArrayToArray(cudaArray_t dst, size_t wOffsetDst,
					     size_t hOffsetDst, cudaArray_const_t src,
					     size_t wOffsetSrc, size_t hOffsetSrc, size_t count,
					     enum cudaMemcpyKind kind UVM_RT_DEFAULT(cudaMemcpyDeviceToDevice))
	UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaMemcpyToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset,
					     const void *src, size_t count,
					     enum cudaMemcpyKind kind,
					     cudaStream_t stream UVM_RT_DEFAULT(0)) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaMemcpyFromArrayAsync(void *dst, cudaArray_const_t src, size_t wOffset,
					       size_t hOffset, size_t count,
					       enum cudaMemcpyKind kind,
					       cudaStream_t stream UVM_RT_DEFAULT(0)) UVM_RT_NOEXCEPT;

cudaError_t CUDARTAPI cudaMemGetInfo(size_t *free, size_t *total) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaMemAdvise(const void *devPtr, size_t count,
				    enum cudaMemoryAdvise advice,
				    struct cudaMemLocation location) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaMemPrefetchAsync(const void *devPtr, size_t count,
					   struct cudaMemLocation location, unsigned int flags,
					   cudaStream_t stream UVM_RT_DEFAULT(0)) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaMemPrefetchBatchAsync(void **dptrs, size_t *sizes, size_t count,
						struct cudaMemLocation *prefetchLocs,
						size_t *prefetchLocIdxs, size_t numPrefetchLocs,
						unsigned long long flags,
						cudaStream_t stream) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaMemDiscardBatchAsync(void **dptrs, size_t *sizes, size_t count,
					       unsigned long long flags,
					       cudaStream_t stream) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaMemcpyBatchAsync(void *const *dsts, const void *const *srcs,
					   const size_t *sizes, size_t count,
					   struct cudaMemcpyAttributes *attrs, size_t *attrsIdxs,
					   size_t numAttrs, cudaStream_t stream) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaMemcpy3DBatchAsync(size_t numOps, struct cudaMemcpy3DBatchOp *opList,
					     unsigned long long flags,
					     cudaStream_t stream) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaMemDiscardAndPrefetchBatchAsync(void **dptrs, size_t *sizes,
							  size_t count,
							  struct cudaMemLocation *prefetchLocs,
							  size_t *prefetchLocIdxs,
							  size_t numPrefetchLocs,
							  unsigned long long flags,
							  cudaStream_t stream) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaMemRangeGetAttribute(void *data, size_t dataSize,
					       enum cudaMemRangeAttribute attribute,
					       const void *devPtr, size_t count) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaMemRangeGetAttributes(void **data, size_t *dataSizes,
						enum cudaMemRangeAttribute *attributes,
						size_t numAttributes, const void *devPtr,
						size_t count) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaPointerGetAttributes(struct cudaPointerAttributes *attributes,
					       const void *ptr) UVM_RT_NOEXCEPT;

/* Device variables: symbol is the host shadow variable's address
 * (uvmRegisterVar in libuvm.h); cuda_runtime.h adds C++ forms taking the
 * variable itself. */
cudaError_t CUDARTAPI cudaGetSymbolAddress(void **devPtr, const void *symbol) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaGetSymbolSize(size_t *size, const void *symbol) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count,
					 size_t offset UVM_RT_DEFAULT(0),
					 enum cudaMemcpyKind kind
					 UVM_RT_DEFAULT(cudaMemcpyHostToDevice)) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count,
					   size_t offset UVM_RT_DEFAULT(0),
					   enum cudaMemcpyKind kind
					   UVM_RT_DEFAULT(cudaMemcpyDeviceToHost)) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count,
					      size_t offset, enum cudaMemcpyKind kind,
					      cudaStream_t stream UVM_RT_DEFAULT(0)) UVM_RT_NOEXCEPT;
cudaError_t CUDARTAPI cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count,
						size_t offset, enum cudaMemcpyKind kind,
						cudaStream_t stream UVM_RT_DEFAULT(0)) UVM_RT_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif /* UVM_CUDA_RUNTIME_API_H */
