// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * uvm-bench-hmm - throughput of pageable memory through HMM, and of the
 * kernel's own reference driver (test_hmm) on the same kernel.
 *
 *   ./scripts/uvm run --kernel debug -- build/tools/uvm-bench-hmm [MiB]
 *
 * For a buffer of MiB (default 32) of malloc'd memory, each filled by the
 * CPU first:
 *
 *   gpu-fault   a GPU reads it all (64 warps, 4 KiB accesses): mirrored
 *               on the distro kernel, migrated page by page by faults on
 *               the debug kernel
 *   prefetch    UVM_IOC_MIGRATE to GPU 0 (migration 2 MiB per call on
 *               the debug kernel; populate and map on the distro kernel)
 *   to-host     UVM_IOC_MIGRATE back to the host
 *   cpu-touch   the CPU reads one byte per page of memory on the GPU
 *               (one migrate_to_ram() per page)
 *
 * When $UVM_TEST_HMM_KO names test_hmm.ko (the debug kernel's guest sets
 * it), the tool loads it and measures its HMM_DMIRROR_MIGRATE_TO_DEV and
 * _TO_SYS (the same migrate_vma path, with CPU memcpy as the "copy
 * engine") and HMM_DMIRROR_READ (hmm_range_fault() mirroring).  Results are
 * MiB/s; it is a benchmark, not a test.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "uvm.h"
#include "uvm_test.h"

/* The ABI of lib/test_hmm_uapi.h (the kernel's HMM reference driver). */
struct hmm_dmirror_cmd {
	uint64_t addr;
	uint64_t ptr;
	uint64_t npages;
	uint64_t cpages;
	uint64_t faults;
};

#define HMM_DMIRROR_READ		_IOWR('H', 0x00, struct hmm_dmirror_cmd)
#define HMM_DMIRROR_MIGRATE_TO_DEV	_IOWR('H', 0x02, struct hmm_dmirror_cmd)
#define HMM_DMIRROR_MIGRATE_TO_SYS	_IOWR('H', 0x03, struct hmm_dmirror_cmd)

static uint64_t ps;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void report(const char *what, uint64_t bytes, double s, const char *note)
{
	printf("# %-22s %9.1f MiB/s  (%.3f s)%s%s\n", what, bytes / s / (1 << 20), s,
	       note ? "  " : "", note ? note : "");
}

/* Fresh 2 MiB-aligned anonymous memory, filled by the CPU. */
static uint8_t *buffer(uint64_t len)
{
	uint8_t *r = mmap(NULL, len + (2 << 20), PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint8_t *p;

	if (r == MAP_FAILED)
		return NULL;
	p = (uint8_t *)(((uintptr_t)r + (2 << 20) - 1) & ~(uintptr_t)((2 << 20) - 1));
	madvise(p, len, MADV_NOHUGEPAGE);
	memset(p, 0x5a, len);
	return p;
}

static int uvm_prefetch(int fd, void *p, uint64_t len, uint32_t type)
{
	struct uvm_range r = { .address = (uintptr_t)p, .length = len };
	struct uvm_location loc = { .type = type, .id = 0 };
	uint64_t start = 0;
	struct uvm_ioc_migrate m = {
		.op = UVM_MIGRATE_PREFETCH,
		.ranges_ptr = (uintptr_t)&r,
		.count = 1,
		.locations_ptr = (uintptr_t)&loc,
		.location_starts_ptr = (uintptr_t)&start,
		.num_locations = 1,
	};

	return ioctl(fd, UVM_IOC_MIGRATE, &m) ? -errno : 0;
}

static int bench_uvm(uint64_t len)
{
	struct uvm_ioc_version v = {};
	struct uvm_test_gpu_op op = {
		.type = UVM_TEST_OP_READ,
		.order = UVM_TEST_ORDER_SEQUENTIAL,
		.length = len,
		.access_size = 4096,
	};
	struct uvm_test_launch l = {
		.num_warps = 64,
		.ops_ptr = (uintptr_t)&op,
		.num_ops = 1,
	};
	volatile uint8_t sink = 0;
	uint8_t *p;
	uint64_t i;
	double t;
	int fd = open("/dev/uvm", O_RDWR | O_CLOEXEC);

	if (fd < 0 || ioctl(fd, UVM_IOC_GET_VERSION, &v)) {
		perror("/dev/uvm");
		return 1;
	}
	printf("# uvm: %s\n", v.caps & UVM_CAP_DEVICE_PRIVATE ?
	       "pageable memory migrates (device private)" : "pageable memory is mirrored");

	p = buffer(len);
	op.address = (uintptr_t)p;
	t = now_s();
	if (ioctl(fd, UVM_TEST_IOC_LAUNCH, &l))
		return perror("launch"), 1;
	report("uvm gpu-fault read", len, now_s() - t, NULL);
	printf("#   (%llu fault entries)\n", (unsigned long long)l.faults_raised);

	p = buffer(len);
	t = now_s();
	if (uvm_prefetch(fd, p, len, UVM_LOCATION_GPU))
		return perror("prefetch"), 1;
	report("uvm prefetch to GPU", len, now_s() - t, NULL);
	t = now_s();
	if (uvm_prefetch(fd, p, len, UVM_LOCATION_HOST))
		return perror("prefetch"), 1;
	report("uvm prefetch to host", len, now_s() - t, NULL);

	if (uvm_prefetch(fd, p, len, UVM_LOCATION_GPU))
		return perror("prefetch"), 1;
	t = now_s();
	for (i = 0; i < len; i += ps)
		sink += p[i];
	report("uvm cpu-touch", len, now_s() - t, "(one CPU fault per page)");
	close(fd);
	return 0;
}

static int bench_test_hmm(uint64_t len)
{
	const char *ko = getenv("UVM_TEST_HMM_KO");
	struct hmm_dmirror_cmd c = {};
	uint8_t *p, *out;
	double t;
	int fd, mfd;

	if (!ko || !*ko) {
		printf("# test_hmm: not available ($UVM_TEST_HMM_KO unset)\n");
		return 0;
	}
	mfd = open(ko, O_RDONLY | O_CLOEXEC);
	if (mfd < 0 || (syscall(SYS_finit_module, mfd, "", 0) && errno != EEXIST)) {
		perror("loading test_hmm");
		return 1;
	}
	close(mfd);
	fd = open("/dev/hmm_dmirror0", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		perror("/dev/hmm_dmirror0");
		return 1;
	}
	p = buffer(len);
	out = malloc(len);
	c.addr = (uintptr_t)p;
	c.npages = len / ps;
	c.ptr = (uintptr_t)out;
	t = now_s();
	if (ioctl(fd, HMM_DMIRROR_READ, &c))
		return perror("HMM_DMIRROR_READ"), 1;
	report("test_hmm mirror read", len, now_s() - t, NULL);

	p = buffer(len);
	c.addr = (uintptr_t)p;
	t = now_s();
	if (ioctl(fd, HMM_DMIRROR_MIGRATE_TO_DEV, &c))
		return perror("HMM_DMIRROR_MIGRATE_TO_DEV"), 1;
	report("test_hmm migrate to dev", len, now_s() - t, NULL);
	t = now_s();
	if (ioctl(fd, HMM_DMIRROR_MIGRATE_TO_SYS, &c))
		return perror("HMM_DMIRROR_MIGRATE_TO_SYS"), 1;
	report("test_hmm migrate to sys", len, now_s() - t, NULL);
	close(fd);
	free(out);
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t mib = argc > 1 ? strtoull(argv[1], NULL, 0) : 32;
	uint64_t len = mib << 20;

	ps = sysconf(_SC_PAGESIZE);
	printf("# %llu MiB of malloc'd-like memory (anonymous, 4 KiB pages)\n",
	       (unsigned long long)mib);
	return bench_uvm(len) || bench_test_hmm(len);
}
