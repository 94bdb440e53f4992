// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * uvm-bench-pitched - a 2D copy against a 1D copy of the same bytes.
 *
 * For each row width W (default 256 B, 4 KiB, 64 KiB), copies T bytes
 * (default 64 MiB) as one UVM_IOC_COPY_3D of T / W rows of W bytes with
 * both pitches 2 W, and as one UVM_IOC_COPY of T contiguous bytes, on one
 * GPU's copy engine, in two directions: device memory to device memory of
 * the same GPU, and registered host memory to device memory.  The two are
 * interleaved, and the reported ratio is the median over the repetitions of
 * 1D time / 2D time (100 % means the strided copy is as fast).  Every 2D
 * copy's destination is checked once: rows copied, gaps untouched.
 *
 * A benchmark, not a test: it exits non-zero only when an operation fails.
 *
 * Usage: uvm-bench-pitched [-t total_mib] [-r reps] [-g gpu] [WIDTH...]
 * Needs vidmem for 2 x 2 x total (./scripts/uvm run --params vidmem_mb=512).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "uvm.h"

#define MIB (1ULL << 20)

static int fd;
static uint32_t gpu;

static void die(const char *what)
{
	fprintf(stderr, "uvm-bench-pitched: %s: %s\n", what, strerror(errno));
	exit(1);
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

static void *map(uint64_t len, uint64_t off, int f)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       f < 0 ? MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE : MAP_SHARED, f, off);

	if (p == MAP_FAILED)
		die("mmap");
	return p;
}

/* One 1D copy; Return: its time in ns. */
static double copy_1d(void *dst, const void *src, uint64_t len)
{
	struct uvm_ioc_copy c = { .dst = (uintptr_t)dst, .src = (uintptr_t)src, .length = len,
				  .gpu_index = gpu };
	uint64_t t = now_ns();

	if (ioctl(fd, UVM_IOC_COPY, &c))
		die("UVM_IOC_COPY");
	return (double)(now_ns() - t);
}

/* One 2D copy of @len bytes in rows of @w at pitch 2 @w; Return: its time in ns. */
static double copy_2d(void *dst, const void *src, uint64_t len, uint64_t w)
{
	struct uvm_ioc_copy_3d c = {
		.dst = { (uintptr_t)dst, 2 * w, 0 },
		.src = { (uintptr_t)src, 2 * w, 0 },
		.width = w, .height = (uint32_t)(len / w), .depth = 1, .gpu_index = gpu,
	};
	uint64_t t = now_ns();

	if (ioctl(fd, UVM_IOC_COPY_3D, &c))
		die("UVM_IOC_COPY_3D");
	return (double)(now_ns() - t);
}

/*
 * The rows of the last 2D copy arrived and the gaps kept @gap: @dst read
 * into @out and compared with @ref (the source's bytes), 64 rows sampled.
 */
static void check_2d(uint8_t *dst, const uint8_t *ref, uint64_t len, uint64_t w, uint8_t *out,
		     uint8_t gap)
{
	uint64_t y, rows = len / w;

	copy_1d(out, dst, 2 * len);
	for (y = 0; y < rows; y += rows / 64 + 1) {
		if (memcmp(out + 2 * w * y, ref + 2 * w * y, w) ||
		    out[2 * w * y + w] != gap || out[2 * w * y + 2 * w - 1] != gap) {
			fprintf(stderr, "uvm-bench-pitched: row %llu of width %llu differs\n",
				(unsigned long long)y, (unsigned long long)w);
			exit(1);
		}
	}
}

int main(int argc, char **argv)
{
	uint64_t total = 64 * MIB, widths[16] = { 256, 4096, 65536 }, nw = 3;
	struct uvm_ioc_gpu_info info = { 0 };
	unsigned int reps = 5, r, i;
	uint8_t *d1, *d2, *h, *ref, *out;
	int o;

	while ((o = getopt(argc, argv, "t:r:g:")) != -1) {
		switch (o) {
		case 't': total = strtoull(optarg, NULL, 0) * MIB; break;
		case 'r': reps = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'g': gpu = (uint32_t)strtoul(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: uvm-bench-pitched [-t total_mib] [-r reps] [-g gpu] [WIDTH...]\n");
			return 2;
		}
	}
	if (optind < argc) {
		for (nw = 0; optind < argc && nw < 16; optind++)
			widths[nw++] = strtoull(argv[optind], NULL, 0);
	}
	if (!reps || reps > 100 || !total)
		return 2;
	fd = open("/dev/" UVM_DEVICE_NAME, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		die("open /dev/uvm");
	info.gpu_index = gpu;
	if (ioctl(fd, UVM_IOC_GPU_INFO, &info))
		die("UVM_IOC_GPU_INFO");
	/* 2 x total each: a 2D layout at pitch 2 W holds total bytes in rows */
	d1 = map(2 * total, UVM_MMAP_DEVICE(gpu), fd);
	d2 = map(2 * total, UVM_MMAP_DEVICE(gpu), fd);
	h = map(2 * total, 0, -1);
	ref = map(2 * total, 0, -1);
	out = map(2 * total, 0, -1);
	for (uint64_t k = 0; k < 2 * total; k++)
		h[k] = (uint8_t)(k * 131 + (k >> 12));
	for (uint8_t *p = h; p; p = p == h ? ref : p == ref ? out : NULL) {
		struct uvm_ioc_host_register reg = { .address = (uintptr_t)p, .length = 2 * total };

		if (ioctl(fd, UVM_IOC_HOST_REGISTER, &reg))
			die("UVM_IOC_HOST_REGISTER");
	}
	copy_1d(d1, h, 2 * total);

	printf("%-22s %10s %12s %12s %8s\n", "copy (GPU engine)", "row bytes", "1D GB/s",
	       "2D GB/s", "2D/1D");
	for (i = 0; i < nw; i++) {
		uint64_t w = widths[i];

		if (!w || total % w || total / w > UINT32_MAX)
			continue;
		for (int dir = 0; dir < 2; dir++) {
			void *src = dir ? (void *)h : (void *)d1;
			double t1[100], t2[100], ratio[100];

			/* the gaps of the destination: a known byte */
			struct uvm_ioc_memset ms = { .dst = (uintptr_t)d2, .count = 2 * total,
						     .value = 0xee, .element_size = 1,
						     .gpu_index = gpu };
			if (ioctl(fd, UVM_IOC_MEMSET, &ms))
				die("UVM_IOC_MEMSET");
			for (r = 0; r < reps; r++) {
				t1[r] = copy_1d(d2, src, total);
				t2[r] = copy_2d(d2, src, total, w);
				ratio[r] = t1[r] / t2[r];
			}
			/* the last 2D copy wrote rows over the 1D copy's bytes:
			 * set again, copy once more, check */
			if (ioctl(fd, UVM_IOC_MEMSET, &ms))
				die("UVM_IOC_MEMSET");
			copy_2d(d2, src, total, w);
			copy_1d(ref, src, 2 * total);
			check_2d(d2, ref, total, w, out, 0xee);
			qsort(t1, reps, sizeof(double), cmp_double);
			qsort(t2, reps, sizeof(double), cmp_double);
			qsort(ratio, reps, sizeof(double), cmp_double);
			printf("%-22s %10llu %12.2f %12.2f %7.0f%%\n",
			       dir ? "host -> device" : "device -> device", (unsigned long long)w,
			       total / t1[reps / 2], total / t2[reps / 2], 100 * ratio[reps / 2]);
			fflush(stdout);
		}
	}
	return 0;
}
