/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * libuvm_test.h - helpers of the libuvm suite (tests/libuvm.c).
 *
 * Included after kselftest_harness.h.  Provides the fixture state every
 * libuvm test starts from (driver initialised, the primary context of device
 * 0 current, a non-blocking stream), allocation and residency helpers, the
 * CUDA 12 entry points libuvm still exports (looked up by name: cuda.h maps
 * the names onto the CUDA 13 forms), and the driver's own view of its GPUs
 * through a second descriptor of /dev/uvm.
 */
#ifndef _LIBUVM_TEST_H_
#define _LIBUVM_TEST_H_

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <libuvm.h>
#include <uvm_sim.h>

#include "uvm.h"

#define MIB (1ULL << 20)
#define PAGE 4096ULL

/* Locations. */
#define DEV(i)		((CUmemLocation){ CU_MEM_LOCATION_TYPE_DEVICE, (i) })
#define HOST		((CUmemLocation){ CU_MEM_LOCATION_TYPE_HOST, 0 })
#define LOC(t, i)	((CUmemLocation){ (CUmemLocationType)(t), (i) })
#define NUMA(n)		LOC(CU_MEM_LOCATION_TYPE_HOST_NUMA, (n))
#define NUMA_CURRENT	LOC(CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT, 0)

/* The CUDA 12 forms libuvm exports for old binaries. */
typedef CUresult (*legacy_advise_fn)(CUdeviceptr, size_t, CUmem_advise, CUdevice);
typedef CUresult (*legacy_prefetch_fn)(CUdeviceptr, size_t, CUdevice, CUstream);

static inline legacy_advise_fn legacy_advise(void)
{
	return (legacy_advise_fn)dlsym(RTLD_DEFAULT, "cuMemAdvise");
}

static inline legacy_prefetch_fn legacy_prefetch(void)
{
	return (legacy_prefetch_fn)dlsym(RTLD_DEFAULT, "cuMemPrefetchAsync");
}

/* Entry points of -DCUDA_API_PER_THREAD_DEFAULT_STREAM builds. */
CUresult cuStreamSynchronize_ptsz(CUstream hStream);
CUresult cuMemPrefetchAsync_v2_ptsz(CUdeviceptr devPtr, size_t count, CUmemLocation location,
				    unsigned int flags, CUstream hStream);
CUresult cuMemPrefetchBatchAsync_ptsz(CUdeviceptr *dptrs, size_t *sizes, size_t count,
				      CUmemLocation *prefetchLocs, size_t *prefetchLocIdxs,
				      size_t numPrefetchLocs, unsigned long long flags,
				      CUstream hStream);

/* What the driver says about its GPUs, through a descriptor of our own. */
static inline int driver_info(struct uvm_ioc_version *ver, unsigned int gpu,
			      struct uvm_ioc_gpu_info *gi)
{
	int fd = open("/dev/uvm", O_RDWR | O_CLOEXEC), r = 0;

	if (fd < 0)
		return -errno;
	memset(ver, 0, sizeof(*ver));
	if (ioctl(fd, UVM_IOC_GET_VERSION, ver))
		r = -errno;
	if (!r && gi) {
		memset(gi, 0, sizeof(*gi));
		gi->gpu_index = gpu;
		if (ioctl(fd, UVM_IOC_GPU_INFO, gi))
			r = -errno;
	}
	close(fd);
	return r;
}

/* Bytes of a GPU's memory the driver has allocated now (all processes). */
static inline unsigned long long vidmem_used(unsigned int gpu)
{
	struct uvm_ioc_version ver;
	struct uvm_ioc_gpu_info gi;

	return driver_info(&ver, gpu, &gi) ? ~0ULL : gi.vidmem_used;
}

/* Wait (up to 10 s) until a GPU's used memory is want: what an earlier
 * test process held is freed when its descriptor is released. */
static inline unsigned long long vidmem_wait(unsigned int gpu, unsigned long long want)
{
	unsigned long long v = vidmem_used(gpu);

	for (int i = 0; i < 1000 && v != want; i++) {
		usleep(10000);
		v = vidmem_used(gpu);
	}
	return v;
}

/* The permissions ("rw-s", "---s", ...) of the mapping holding p, or "". */
static inline const char *map_perms(const void *p)
{
	static char perms[8];
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long long lo, hi;
	char line[512];

	perms[0] = '\0';
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx %4s", &lo, &hi, perms) == 3 &&
		    (uintptr_t)p >= lo && (uintptr_t)p < hi)
			break;
		else
			perms[0] = '\0';
	if (f)
		fclose(f);
	return perms;
}

/* Every byte of [p, p + n) is v. */
static inline int bytes_are(const void *p, unsigned char v, size_t n)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++)
		if (c[i] != v)
			return 0;
	return 1;
}

/* Fill [p, p + n) with bytes that depend on @seed and the position. */
static inline void uvm_fill(void *p, size_t n, unsigned int seed)
{
	unsigned long long x = 0x9e3779b97f4a7c15ULL * (seed + 1);
	unsigned char *c = p;

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		c[i] = (unsigned char)x;
	}
}

/* Every byte of device-accessible [d, d + n) is v, read back by a copy. */
static inline int device_bytes_are(CUdeviceptr d, unsigned char v, size_t n)
{
	unsigned char *h = malloc(n);
	int ok = h && cuMemcpyDtoH(h, d, n) == CUDA_SUCCESS && bytes_are(h, v, n);

	free(h);
	return ok;
}

/* A pointer attribute as an unsigned 64-bit value (~0 on error). */
static inline unsigned long long ptr_attr(CUpointer_attribute a, CUdeviceptr p)
{
	unsigned long long v = 0;

	return cuPointerGetAttribute(&v, a, p) == CUDA_SUCCESS ? v : ~0ULL;
}

/* The fixture of most tests. */
struct lib {
	CUcontext ctx;
	CUstream s;
	int ndev;
	int sim;
};

static inline CUresult lib_init(struct lib *l)
{
	CUresult r;

	memset(l, 0, sizeof(*l));
	if ((r = cuInit(0)) || (r = cuDeviceGetCount(&l->ndev)) ||
	    (r = cuDevicePrimaryCtxRetain(&l->ctx, 0)) || (r = cuCtxSetCurrent(l->ctx)) ||
	    (r = cuStreamCreate(&l->s, CU_STREAM_NON_BLOCKING)) ||
	    (r = uvmSimIsAvailable(&l->sim)))
		return r;
	return CUDA_SUCCESS;
}

/* Managed memory or NULL. */
static inline CUdeviceptr managed(size_t size)
{
	CUdeviceptr p = 0;

	return cuMemAllocManaged(&p, size, CU_MEM_ATTACH_GLOBAL) == CUDA_SUCCESS ? p : 0;
}

/* Processor mask of a page: bit 0 host, bit 1 + d device d. */
static inline unsigned long long resident(CUdeviceptr p)
{
	uvmSimPageState st;

	memset(&st, 0, sizeof(st));
	if (uvmSimResidency(p, 1, &st, 1))
		return ~0ULL;
	return st.resident;
}

static inline unsigned long long mapped_read(CUdeviceptr p)
{
	uvmSimPageState st;

	memset(&st, 0, sizeof(st));
	if (uvmSimResidency(p, 1, &st, 1))
		return ~0ULL;
	return st.mappedRead;
}

/* Every page of [p, p + size) resident exactly at mask. */
static inline int all_resident(CUdeviceptr p, size_t size, unsigned long long mask)
{
	size_t n = (size + PAGE - 1) / PAGE;
	uvmSimPageState *st = calloc(n, sizeof(*st));
	int ok = st && !uvmSimResidency(p, size, st, n);

	for (size_t i = 0; ok && i < n; i++)
		ok = st[i].resident == mask;
	free(st);
	return ok;
}

static inline unsigned long long counter(int idx)
{
	unsigned long long c[32] = { 0 };
	unsigned int n = 32;

	if (uvmSimGetCounters(c, &n) || (unsigned int)idx >= n)
		return ~0ULL;
	return c[idx];
}

/* One range attribute as an int (or -1000 - error). */
static inline int range_int(CUmem_range_attribute a, CUdeviceptr p, size_t n)
{
	int v = 12345;
	CUresult r = cuMemRangeGetAttribute(&v, 4, a, p, n);

	return r == CUDA_SUCCESS ? v : -1000 - (int)r;
}

/* A GPU read of [p, p + size) through the simulated GPU: its checksum. */
static inline CUresult gpu_read(int dev, CUdeviceptr p, size_t size, CUstream s,
				unsigned long long *sum)
{
	uvmSimOp op;
	CUresult r;

	memset(&op, 0, sizeof(op));
	op.type = UVM_SIM_OP_READ;
	op.address = p;
	op.length = size;
	op.accessSize = 8;
	r = uvmSimLaunch(dev, 16, &op, 1, s, NULL);
	*sum = op.checksum;
	return r;
}

static inline CUresult gpu_write(int dev, CUdeviceptr p, size_t size, unsigned long long seed)
{
	uvmSimOp op;

	memset(&op, 0, sizeof(op));
	op.type = UVM_SIM_OP_WRITE;
	op.address = p;
	op.length = size;
	op.accessSize = 8;
	op.value = seed;
	return uvmSimLaunch(dev, 16, &op, 1, NULL, NULL);
}

/* The checksum a GPU read of words w[] at p gives. */
static inline unsigned long long checksum_of(const unsigned long long *w, CUdeviceptr p,
					     size_t size)
{
	unsigned long long sum = 0;

	for (size_t i = 0; i < size / 8; i++)
		sum += uvmSimChecksumTerm(w[i], p + 8 * i);
	return sum;
}

/* Is p inside a mapping of /dev/uvm (managed memory) of this process? */
static inline int is_mapped(CUdeviceptr p, size_t size)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long long lo, hi;
	char line[512];
	int found = 0;

	(void)size;
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx", &lo, &hi) == 2 && p >= lo && p < hi &&
		    strstr(line, "/dev/uvm"))
			found = 1;
	if (f)
		fclose(f);
	return found;
}

/* Run fn in a fork child; its exit status (or 128 + signal). */
static inline int in_child(int (*fn)(void *), void *arg)
{
	int st;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(fn(arg));
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

#endif /* _LIBUVM_TEST_H_ */
