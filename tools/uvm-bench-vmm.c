// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * uvm-bench-vmm - the cost of the virtual memory management operations.
 *
 * For allocations of 2 MiB and of a big size (default 1 GiB) of GPU G, times
 * each step of the VMM life cycle, one ioctl each, as cuMemCreate,
 * cuMemMap, cuMemSetAccess, cuMemUnmap and cuMemRelease would issue them:
 *
 *   reserve     mmap() of a reservation (UVM_MMAP_RESERVE)
 *   create      UVM_IOC_MEM_CREATE (vidmem allocated and zeroed)
 *   map         UVM_IOC_MEM_MAP
 *   set access  UVM_IOC_MEM_SET_ACCESS, read-write for G (PTEs written)
 *   unmap       UVM_IOC_MEM_UNMAP (PTEs removed, TLB invalidated)
 *   release     UVM_IOC_MEM_RELEASE (vidmem freed)
 *   free        munmap() of the reservation
 *
 * Each is reported as the median over the repetitions, in microseconds, as a
 * multiple of a null ioctl (UVM_IOC_GET_VERSION) and of a CPU minor fault
 * (an anonymous write fault), both measured in the same run, next to
 * NVIDIA's driver's figures (H100/H200, CUDA 13) as multiples of its CPU
 * minor fault (1.56 us).  A benchmark, not a test: it fails only when an
 * operation fails.
 *
 * Usage: uvm-bench-vmm [-g gpu] [-r reps] [-b big_mib]
 * The GPU needs room for the big allocation (load uvm.ko with vidmem_mb
 * above it, e.g. ./scripts/uvm run --mem 4G --params 'vidmem_mb=1536'
 * -- build/tools/uvm-bench-vmm).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "uvm.h"

#define MIB		(1ULL << 20)
#define MAX_REPS	64
#define NSTEPS		7

/* The real driver's 2 MiB and 1 GiB figures in us (Documentation/performance.rst). */
static const double real_us[2][NSTEPS] = {
	{ 0, 15, 1.3, 31, 19, 14, 0 },
	{ 0, 31, 1.4, 81, 41, 569, 0 },
};
static const double real_cpu_fault_us = 1.56;
static const char *const step_name[NSTEPS] = {
	"reserve", "create", "map", "set access", "unmap", "release", "free",
};

static int fd;
static uint32_t gpu;

static void die(const char *what, int err)
{
	fprintf(stderr, "uvm-bench-vmm: %s: %s\n", what, strerror(err));
	exit(1);
}

static void xioctl(unsigned long cmd, void *arg, const char *what)
{
	if (ioctl(fd, cmd, arg))
		die(what, errno);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* A null ioctl in ns: the median of 20 groups of 100 GET_VERSION calls. */
static double null_ioctl_ns(void)
{
	double t[20];
	unsigned int g, i;

	for (g = 0; g < 20; g++) {
		uint64_t t0 = now_ns();

		for (i = 0; i < 100; i++) {
			struct uvm_ioc_version v = { 0 };

			xioctl(UVM_IOC_GET_VERSION, &v, "GET_VERSION");
		}
		t[g] = (double)(now_ns() - t0) / 100;
	}
	return median(t, 20);
}

/* A CPU minor fault in ns: the median of 256 anonymous write faults. */
static double cpu_fault_ns(void)
{
	long ps = sysconf(_SC_PAGESIZE);
	unsigned int i, n = 256;
	uint8_t *p = mmap(NULL, n * ps, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	double t[256], e[256];

	if (p == MAP_FAILED)
		die("mmap", errno);
	for (i = 0; i < n; i++) {
		uint64_t t0 = now_ns();

		e[i] = (double)(now_ns() - t0);
		t0 = now_ns();
		p[(uint64_t)i * ps] = 1;
		t[i] = (double)(now_ns() - t0);
	}
	munmap(p, n * ps);
	return median(t, n) - median(e, n);
}

/* One life cycle of an allocation of @size bytes; @t gets ns per step. */
static void cycle(uint64_t size, double *t)
{
	struct uvm_ioc_mem_create c = { .size = size,
					.location = { UVM_LOCATION_GPU, (int32_t)gpu } };
	struct uvm_mem_access d = { .location = { UVM_LOCATION_GPU, (int32_t)gpu },
				    .prot = UVM_MEM_PROT_READ_WRITE };
	struct uvm_ioc_mem_map m = { .size = size };
	struct uvm_ioc_mem_set_access s = { .size = size, .descs_ptr = (uintptr_t)&d,
					    .count = 1 };
	struct uvm_ioc_mem_unmap u = { .size = size };
	struct uvm_ioc_mem_release r = { 0 };
	uint64_t t0 = now_ns();
	void *va;

	va = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, UVM_MMAP_RESERVE);
	if (va == MAP_FAILED)
		die("reserve", errno);
	t[0] = (double)(now_ns() - t0);
	t0 = now_ns();
	xioctl(UVM_IOC_MEM_CREATE, &c, "MEM_CREATE");
	t[1] = (double)(now_ns() - t0);
	m.address = (uintptr_t)va;
	m.handle = c.handle;
	t0 = now_ns();
	xioctl(UVM_IOC_MEM_MAP, &m, "MEM_MAP");
	t[2] = (double)(now_ns() - t0);
	s.address = (uintptr_t)va;
	t0 = now_ns();
	xioctl(UVM_IOC_MEM_SET_ACCESS, &s, "MEM_SET_ACCESS");
	t[3] = (double)(now_ns() - t0);
	u.address = (uintptr_t)va;
	t0 = now_ns();
	xioctl(UVM_IOC_MEM_UNMAP, &u, "MEM_UNMAP");
	t[4] = (double)(now_ns() - t0);
	r.handle = c.handle;
	t0 = now_ns();
	xioctl(UVM_IOC_MEM_RELEASE, &r, "MEM_RELEASE");
	t[5] = (double)(now_ns() - t0);
	t0 = now_ns();
	if (munmap(va, size))
		die("munmap", errno);
	t[6] = (double)(now_ns() - t0);
}

int main(int argc, char **argv)
{
	unsigned int reps = 10, i, k, s;
	uint64_t big_mib = 1024;
	double t[NSTEPS][MAX_REPS], med[NSTEPS], nul, cf;
	int opt;

	while ((opt = getopt(argc, argv, "g:r:b:")) != -1) {
		switch (opt) {
		case 'g': gpu = strtoul(optarg, NULL, 0); break;
		case 'r': reps = strtoul(optarg, NULL, 0); break;
		case 'b': big_mib = strtoull(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: uvm-bench-vmm [-g gpu] [-r reps] [-b big_mib]\n");
			return 2;
		}
	}
	if (!reps || reps > MAX_REPS || !big_mib || big_mib % 2)
		return 2;
	fd = open("/dev/uvm", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		die("/dev/uvm", errno);

	nul = null_ioctl_ns();
	cf = cpu_fault_ns();
	printf("uvm-bench-vmm: GPU %u, %u reps, median; null ioctl %.3f us, CPU minor fault %.3f us\n",
	       gpu, reps, nul / 1e3, cf / 1e3);
	printf("%-6s %-11s %12s %14s %14s %18s\n", "size", "step", "us", "x null ioctl",
	       "x CPU fault", "real x CPU fault");
	for (k = 0; k < 2; k++) {
		uint64_t size = k ? big_mib * MIB : 2 * MIB;

		cycle(size, med);	/* warm up page tables and the allocator */
		for (i = 0; i < reps; i++) {
			cycle(size, med);
			for (s = 0; s < NSTEPS; s++)
				t[s][i] = med[s];
		}
		for (s = 0; s < NSTEPS; s++) {
			char real[32] = "-";

			med[s] = median(t[s], reps);
			if (real_us[k][s] && (k == 0 || big_mib == 1024))
				snprintf(real, sizeof(real), "%.1f",
					 real_us[k][s] / real_cpu_fault_us);
			printf("%-6s %-11s %12.2f %14.1f %14.2f %18s\n",
			       k ? (big_mib == 1024 ? "1 GiB" : "big") : "2 MiB", step_name[s],
			       med[s] / 1e3, med[s] / nul, med[s] / cf, real);
		}
	}
	close(fd);
	return 0;
}
