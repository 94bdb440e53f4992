// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * cuda_program - a plain CUDA driver-API program, built against libuvm.
 *
 * It uses only names of NVIDIA's cuda.h (plus uvm_sim.h, where a real
 * program would launch a kernel) and builds with nothing but libuvm's
 * include directory and -luvm:
 *
 *     cc -I libuvm/include cuda_program.c -L build/libuvm -luvm
 *
 * It does what a CUDA program that uses managed and device memory does:
 * initialise, pick a device, allocate managed memory, fill it on the CPU,
 * advise and prefetch it to the GPU on a stream, let the GPU read and write
 * it, bring it back, check every byte; copy it into device memory
 * (cuMemAlloc), run a "kernel" on that, copy the result into page-locked
 * host memory on the stream, set device memory and copy it back; query
 * attributes, free.  Output is TAP.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <uvm_sim.h>

static int tests, failed;

static void ok(int cond, const char *what)
{
	tests++;
	if (!cond)
		failed++;
	printf("%sok %d %s\n", cond ? "" : "not ", tests, what);
}

#define CHECK(call) ok((call) == CUDA_SUCCESS, #call)

int main(void)
{
	const size_t size = 8u << 20, dsize = size;	/* device memory: over 1024 pages */
	CUdevice dev = -1;
	CUcontext ctx = NULL;
	CUstream stream = NULL;
	CUevent done = NULL;
	CUdeviceptr buf = 0;
	CUmemLocation gpu, host;
	char name[128];
	int count = 0, managed = 0, concurrent = 0, sim = 0, rm = -7, last = -7, ismanaged = 0;
	size_t total = 0, free_mem = 0;
	unsigned long long *p;
	const char *errname = NULL;
	CUdeviceptr dbuf = 0;
	unsigned long long *pinned = NULL;
	unsigned int memtype = 0;
	size_t free_after = 0;

	printf("TAP version 13\n1..41\n");
	CHECK(cuInit(0));
	CHECK(cuDeviceGetCount(&count));
	CHECK(cuDeviceGet(&dev, 0));
	CHECK(cuDeviceGetName(name, sizeof(name), dev));
	printf("# device 0 of %d: %s\n", count, name);
	CHECK(cuDeviceGetAttribute(&managed, CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, dev));
	CHECK(cuDeviceGetAttribute(&concurrent, CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS, dev));
	ok(managed == 1 && concurrent == 1, "managed memory with concurrent access");
	CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
	CHECK(cuCtxSetCurrent(ctx));
	CHECK(cuMemGetInfo(&free_mem, &total));
	CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
	CHECK(cuEventCreate(&done, CU_EVENT_DISABLE_TIMING));

	/* Managed memory, filled by the CPU. */
	CHECK(cuMemAllocManaged(&buf, size, CU_MEM_ATTACH_GLOBAL));
	p = (unsigned long long *)(uintptr_t)buf;
	for (size_t i = 0; i < size / 8; i++)
		p[i] = i * 3;

	/* Read-mostly, prefetched to the GPU in stream order. */
	gpu.type = CU_MEM_LOCATION_TYPE_DEVICE;
	gpu.id = dev;
	host.type = CU_MEM_LOCATION_TYPE_HOST;
	host.id = 0;
	CHECK(cuMemAdvise(buf, size, CU_MEM_ADVISE_SET_READ_MOSTLY, gpu));
	CHECK(cuMemPrefetchAsync(buf, size, gpu, 0, stream));
	CHECK(cuMemRangeGetAttribute(&rm, sizeof(rm), CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, buf, size));

	/* The "kernel": the GPU adds 1 to every word (a CUDA program would
	 * launch one here); then back to the host. */
	if (uvmSimIsAvailable(&sim) == CUDA_SUCCESS && sim) {
		uvmSimOp op;

		memset(&op, 0, sizeof(op));
		op.type = UVM_SIM_OP_ATOMIC_ADD;
		op.address = buf;
		op.length = size;
		op.accessSize = 8;
		op.value = 1;
		CHECK(uvmSimLaunch(dev, 64, &op, 1, stream, NULL));
	} else {
		ok(1, "# SKIP no simulated GPU launches in this driver");
		for (size_t i = 0; i < size / 8; i++)
			p[i] += 1;
	}
	CHECK(cuMemPrefetchAsync(buf, size, host, 0, stream));
	CHECK(cuEventRecord(done, stream));
	CHECK(cuEventSynchronize(done));

	{
		int good = 1;

		for (size_t i = 0; i < size / 8 && good; i++)
			good = p[i] == i * 3 + 1;
		ok(good && rm == 1, "every word was read, incremented and brought back");
	}
	/* Device memory: half the managed data copied in, a "kernel" adds 1
	 * to every word there, the result comes back into page-locked memory
	 * in stream order. */
	CHECK(cuMemAlloc(&dbuf, dsize));
	CHECK(cuMemGetInfo(&free_after, NULL));
	ok(free_after + dsize <= free_mem, "cuMemGetInfo counts the device memory");
	CHECK(cuPointerGetAttribute(&memtype, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, dbuf));
	ok(memtype == CU_MEMORYTYPE_DEVICE, "device memory is CU_MEMORYTYPE_DEVICE");
	CHECK(cuMemAllocHost((void **)&pinned, dsize));
	CHECK(cuMemcpy(dbuf, buf, dsize));
	if (sim) {
		uvmSimOp op;

		memset(&op, 0, sizeof(op));
		op.type = UVM_SIM_OP_ATOMIC_ADD;
		op.address = dbuf;
		op.length = dsize;
		op.accessSize = 8;
		op.value = 1;
		CHECK(uvmSimLaunch(dev, 64, &op, 1, stream, NULL));
		CHECK(cuMemcpyDtoHAsync(pinned, dbuf, dsize, stream));
	} else {
		ok(1, "# SKIP no simulated GPU launches in this driver");
		CHECK(cuMemcpyDtoHAsync(pinned, dbuf, dsize, stream));
		cuStreamSynchronize(stream);
		for (size_t i = 0; i < dsize / 8; i++)
			pinned[i] += 1;
	}
	CHECK(cuStreamSynchronize(stream));
	{
		int good = 1;

		for (size_t i = 0; i < dsize / 8 && good; i++)
			good = pinned[i] == i * 3 + 2;
		ok(good, "device memory: copied in, incremented by the GPU, copied out");
	}
	CHECK(cuMemsetD32(dbuf, 0x600d600d, dsize / 4));
	CHECK(cuMemcpyDtoH(p, dbuf, 4096));
	ok(p[0] == 0x600d600d600d600dULL && p[511] == 0x600d600d600d600dULL,
	   "cuMemsetD32 then cuMemcpyDtoH into managed memory");
	ok(cuMemcpyHtoD(dbuf, pinned, dsize + 1) == CUDA_ERROR_INVALID_VALUE,
	   "a copy beyond the allocation is refused");
	CHECK(cuMemFreeHost(pinned));
	CHECK(cuMemFree(dbuf));

	cuMemRangeGetAttribute(&last, sizeof(last), CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION,
			       buf, size);
	cuPointerGetAttribute(&ismanaged, CU_POINTER_ATTRIBUTE_IS_MANAGED, buf);
	ok(last == CU_DEVICE_CPU && ismanaged == 1, "last prefetch location and IS_MANAGED");
	ok(cuMemFree(buf + 8) == CUDA_ERROR_INVALID_VALUE &&
	   cuGetErrorName(CUDA_ERROR_INVALID_VALUE, &errname) == CUDA_SUCCESS &&
	   !strcmp(errname, "CUDA_ERROR_INVALID_VALUE"), "errors as cuda.h names them");
	CHECK(cuMemFree(buf));
	cuEventDestroy(done);
	cuStreamDestroy(stream);
	cuDevicePrimaryCtxRelease(dev);
	printf("# %d of %d failed\n", failed, tests);
	return failed ? 1 : 0;
}
