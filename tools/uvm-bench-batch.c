// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * uvm-bench-batch - the per-range cost of batched prefetch and discard, and
 * the per-copy cost of batched copies.
 *
 * Measures, in one run on one VA space:
 *
 *  - a null ioctl (UVM_IOC_GET_VERSION): the median over many groups of
 *    calls, per call;
 *  - for N ranges (default 4096) of S bytes (default 64 KiB) of one managed
 *    allocation, all resident on GPU G:
 *      - one batched PREFETCH of the N ranges to G (nothing to move: the
 *        pure per-range overhead of the batch path);
 *      - N single-range PREFETCH ioctls to G, for comparison;
 *      - one batched DISCARD of the N ranges (the ranges are made resident on
 *        G again before each repetition, untimed);
 *      - one batched DISCARD_PREFETCH of the N ranges to G;
 *  - for N copies (the same N) of C bytes (default 64) between two device
 *    allocations of GPU G, each copy at its own C-byte slot:
 *      - one synchronous UVM_IOC_COPY_BATCH of the N copies;
 *      - one asynchronous UVM_IOC_COPY_BATCH (the call alone), then the
 *        wait for its fence;
 *      - N synchronous UVM_IOC_COPY ioctls, for comparison;
 *      - one synchronous batch from registered host memory to the device;
 *
 * and prints, per operation, the median over the repetitions of the total
 * time, the cost per range in microseconds and its ratio to the null ioctl.
 * This is a benchmark, not a test: it checks only that every ioctl succeeds,
 * that the ranges really are resident on G where they should be, and that
 * the copies' bytes arrived (read back through a copy to host memory).
 *
 * Usage: uvm-bench-batch [-C] [-n ranges] [-s range_kib] [-c copy_bytes] [-r reps] [-g gpu]
 * The allocation (ranges x size) must fit in the GPU's memory.  -C times the
 * null ioctl and the copies only (no prefetch or discard).
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
#include "uvm_test.h"

#define NULL_GROUPS	200	/* null ioctl: groups timed */
#define NULL_PER_GROUP	100	/* null ioctl: calls per group */

struct bench {
	int fd;
	uint32_t gpu;
	uint64_t nranges;
	uint64_t range_size;
	uint8_t *base;
	struct uvm_range *ranges;
	struct uvm_location loc;
	uint64_t start;
};

static int xioctl(int fd, unsigned long cmd, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, cmd, arg);
	} while (ret < 0 && errno == EINTR);
	return ret < 0 ? -errno : 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "uvm-bench-batch: %s: %s\n", what, strerror(-err));
	exit(1);
}

/* One batch of every range: PREFETCH/DISCARD_PREFETCH to the GPU, or DISCARD. */
static int batch(struct bench *b, uint32_t op)
{
	struct uvm_ioc_migrate m = {
		.op = op,
		.ranges_ptr = (uintptr_t)b->ranges,
		.count = b->nranges,
	};

	if (op != UVM_MIGRATE_DISCARD) {
		m.locations_ptr = (uintptr_t)&b->loc;
		m.location_starts_ptr = (uintptr_t)&b->start;
		m.num_locations = 1;
	}
	return xioctl(b->fd, UVM_IOC_MIGRATE, &m);
}

/* One PREFETCH ioctl per range. */
static int singles(struct bench *b)
{
	struct uvm_ioc_migrate m = {
		.op = UVM_MIGRATE_PREFETCH,
		.count = 1,
		.locations_ptr = (uintptr_t)&b->loc,
		.location_starts_ptr = (uintptr_t)&b->start,
		.num_locations = 1,
	};
	uint64_t i;
	int ret;

	for (i = 0; i < b->nranges; i++) {
		m.ranges_ptr = (uintptr_t)&b->ranges[i];
		ret = xioctl(b->fd, UVM_IOC_MIGRATE, &m);
		if (ret)
			return ret;
	}
	return 0;
}

/* Every page of the allocation is resident on the GPU (and only there). */
static int check_on_gpu(struct bench *b)
{
	uint64_t len = b->nranges * b->range_size, ps = sysconf(_SC_PAGESIZE);
	uint64_t npages = len / ps, chunk = UVM_TEST_RESIDENCY_MAX_PAGES, i, j, n;
	struct uvm_test_page_state *st = calloc(chunk, sizeof(*st));
	struct uvm_test_residency r = { 0 };
	int ret = 0;

	if (!st)
		return -ENOMEM;
	for (i = 0; i < npages && !ret; i += n) {
		n = npages - i < chunk ? npages - i : chunk;
		r.address = (uintptr_t)b->base + i * ps;
		r.length = n * ps;
		r.states_ptr = (uintptr_t)st;
		ret = xioctl(b->fd, UVM_TEST_IOC_RESIDENCY, &r);
		for (j = 0; !ret && j < n; j++)
			if (st[j].resident != UVM_PROCESSOR_MASK(UVM_PROCESSOR_GPU(b->gpu)))
				ret = -EIO;
	}
	free(st);
	return ret;
}

/*
 * Time @reps runs of @op (0: single-range prefetches), re-populating the
 * ranges on the GPU before each run when @repopulate; return the median in ns.
 */
static uint64_t time_op(struct bench *b, uint32_t op, unsigned int reps, int repopulate,
			const char *what)
{
	uint64_t *t = calloc(reps, sizeof(*t)), t0, med;
	unsigned int i;
	int ret;

	if (!t)
		die("calloc", -ENOMEM);
	for (i = 0; i < reps; i++) {
		if (repopulate) {
			ret = batch(b, UVM_MIGRATE_PREFETCH);
			if (ret)
				die("re-populating prefetch", ret);
		}
		t0 = now_ns();
		ret = op ? batch(b, op) : singles(b);
		t[i] = now_ns() - t0;
		if (ret)
			die(what, ret);
	}
	med = median(t, reps);
	free(t);
	return med;
}

static uint64_t time_null_ioctl(int fd)
{
	uint64_t t[NULL_GROUPS], t0;
	struct uvm_ioc_version v;
	unsigned int g, i;
	int ret;

	for (g = 0; g < NULL_GROUPS; g++) {
		t0 = now_ns();
		for (i = 0; i < NULL_PER_GROUP; i++) {
			memset(&v, 0, sizeof(v));
			ret = xioctl(fd, UVM_IOC_GET_VERSION, &v);
			if (ret)
				die("GET_VERSION", ret);
		}
		t[g] = now_ns() - t0;
	}
	return median(t, NULL_GROUPS) / NULL_PER_GROUP;
}

static void row(const char *name, uint64_t total_ns, uint64_t per, uint64_t null_ns)
{
	double us = total_ns / 1e3 / per;

	printf("%-36s %12.3f %12.3f %10.3f\n", name, total_ns / 1e6, us,
	       null_ns ? us * 1e3 / null_ns : 0.0);
}

static void usage(void)
{
	fprintf(stderr, "usage: uvm-bench-batch [-C] [-n ranges] [-s range_kib] [-c copy_bytes] "
		"[-r reps] [-g gpu]\n");
	exit(2);
}

/* A prime: slot i * SCATTER mod n shuffles n slots unless n is a multiple of it. */
#define SCATTER	1031

/* The copies of the copy section: n copies of size bytes, slot i to slot i. */
struct copies {
	int fd;
	uint32_t gpu;
	uint64_t n, size;
	struct uvm_copy_op *ops;
};

static int copy_batch(struct copies *c, uint32_t flags, uint64_t *fence)
{
	struct uvm_ioc_copy_batch b = {
		.ops = (uintptr_t)c->ops,
		.count = (uint32_t)c->n,
		.gpu_index = c->gpu,
		.flags = flags,
	};
	int ret = xioctl(c->fd, UVM_IOC_COPY_BATCH, &b);

	*fence = b.fence;
	return ret;
}

static int copy_singles(struct copies *c)
{
	struct uvm_ioc_copy k = { .length = c->size, .gpu_index = c->gpu };
	uint64_t i;
	int ret;

	for (i = 0; i < c->n; i++) {
		k.dst = c->ops[i].dst.addr;
		k.src = c->ops[i].src.addr;
		ret = xioctl(c->fd, UVM_IOC_COPY, &k);
		if (ret)
			return ret;
	}
	return 0;
}

/* 0: one synchronous batch; 1: the asynchronous call; 2: its fence; 3: singles */
static uint64_t time_copies(struct copies *c, int how, unsigned int reps)
{
	uint64_t *t = calloc(reps, sizeof(*t)), t0, t1, fence = 0, med;
	struct uvm_ioc_fence_wait w = { 0 };
	unsigned int i;
	int ret;

	if (!t)
		die("calloc", -ENOMEM);
	for (i = 0; i < reps; i++) {
		t0 = now_ns();
		if (how == 3)
			ret = copy_singles(c);
		else
			ret = copy_batch(c, how ? UVM_COPY_ASYNC : 0, &fence);
		t1 = now_ns();
		if (ret)
			die(how == 3 ? "UVM_IOC_COPY" : "UVM_IOC_COPY_BATCH", ret);
		if (how == 1 || how == 2) {
			w.fence = fence;
			ret = xioctl(c->fd, UVM_IOC_FENCE_WAIT, &w);
			if (ret)
				die("FENCE_WAIT", ret);
		}
		t[i] = how == 2 ? now_ns() - t1 : t1 - t0;
	}
	med = median(t, reps);
	free(t);
	return med;
}

/* Map @len bytes at @off of /dev/uvm, or die. */
static uint8_t *map_uvm(int fd, uint64_t len, uint64_t off)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off);

	if (p == MAP_FAILED)
		die("mmap /dev/uvm", -errno);
	return p;
}

/*
 * The copy section: device to device, then registered host memory to the
 * device; the destination read back into host memory and checked after each.
 */
static void bench_copies(int fd, uint32_t gpu, uint64_t n, uint64_t size, unsigned int reps,
			 uint64_t null_ns)
{
	uint64_t len = (n * size + UVM_VA_BLOCK_SIZE - 1) & ~(UVM_VA_BLOCK_SIZE - 1), i;
	uint8_t *src = map_uvm(fd, len, UVM_MMAP_DEVICE(gpu));
	uint8_t *dst = map_uvm(fd, len, UVM_MMAP_DEVICE(gpu));
	uint8_t *host = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint8_t *back = malloc(len);
	struct uvm_ioc_host_register reg = { 0 };
	struct uvm_ioc_copy k = { 0 };
	struct copies c = { .fd = fd, .gpu = gpu, .n = n, .size = size };
	uint64_t shuffle = n % SCATTER ? SCATTER : 1;
	uint64_t t_sync, t_call, t_wait, t_single, t_host, t_scat, t_scat_call;
	int ret;

	c.ops = calloc(n, sizeof(*c.ops));
	if (host == MAP_FAILED || !back || !c.ops)
		die("host memory", -ENOMEM);
	for (i = 0; i < len; i++)
		host[i] = (uint8_t)(i * 7 + i / 4093);
	reg.address = (uintptr_t)host;
	reg.length = len;
	ret = xioctl(fd, UVM_IOC_HOST_REGISTER, &reg);
	if (ret)
		die("HOST_REGISTER", ret);
	/* the source's bytes: the host pattern, by one copy */
	k = (struct uvm_ioc_copy){ .dst = (uintptr_t)src, .src = (uintptr_t)host, .length = len,
				   .gpu_index = gpu };
	ret = xioctl(fd, UVM_IOC_COPY, &k);
	if (ret)
		die("COPY", ret);
	for (i = 0; i < n; i++)
		c.ops[i] = (struct uvm_copy_op){ .dst = { (uintptr_t)dst + i * size, 0, 0 },
						 .src = { (uintptr_t)src + i * size, 0, 0 },
						 .width = size, .height = 1, .depth = 1 };

	t_sync = time_copies(&c, 0, reps);
	t_call = time_copies(&c, 1, reps);
	t_wait = time_copies(&c, 2, reps);
	t_single = time_copies(&c, 3, reps);
	k = (struct uvm_ioc_copy){ .dst = (uintptr_t)back, .src = (uintptr_t)dst,
				   .length = n * size, .gpu_index = gpu };
	ret = xioctl(fd, UVM_IOC_COPY, &k);
	if (ret || memcmp(back, host, n * size))
		die("device copies: the bytes read back differ", ret ? ret : -EIO);
	/* the slots shuffled: no two copies in a row form a run */
	for (i = 0; i < n; i++)
		c.ops[i].dst.addr = (uintptr_t)dst + (i * shuffle % n) * size;
	t_scat = time_copies(&c, 0, reps);
	t_scat_call = time_copies(&c, 1, reps);
	ret = xioctl(fd, UVM_IOC_COPY, &k);
	for (i = 0; !ret && i < n; i++)
		if (memcmp(back + (i * shuffle % n) * size, host + i * size, size))
			ret = -EIO;
	if (ret)
		die("scattered copies: the bytes read back differ", ret);
	for (i = 0; i < n; i++) {
		c.ops[i].dst.addr = (uintptr_t)dst + i * size;
		c.ops[i].src.addr = (uintptr_t)host + (n - 1 - i) * size;
	}
	t_host = time_copies(&c, 0, reps);
	ret = xioctl(fd, UVM_IOC_COPY, &k);
	for (i = 0; !ret && i < n; i++)
		if (memcmp(back + i * size, host + (n - 1 - i) * size, size))
			ret = -EIO;
	if (ret)
		die("host copies: the bytes read back differ", ret);

	printf("\n%-36s %12s %12s %10s\n", "operation", "total ms", "us/copy", "x null");
	row("batched COPY dev->dev (1 ioctl)", t_sync, n, null_ns);
	row("  async: the call", t_call, n, null_ns);
	row("  async: then its fence", t_wait, n, null_ns);
	row("  the same slots shuffled", t_scat, n, null_ns);
	row("    async: the call", t_scat_call, n, null_ns);
	row("single COPY dev->dev ioctls", t_single, n, null_ns);
	row("batched COPY host->dev (1 ioctl)", t_host, n, null_ns);
	printf("\nper-copy cost of a batch of %llu copies of %llu bytes = %.2f x a null ioctl "
	       "(%.2f x for the asynchronous call alone); single copies %.2f x\n",
	       (unsigned long long)n, (unsigned long long)size,
	       t_sync / 1e3 / n * 1e3 / null_ns, t_call / 1e3 / n * 1e3 / null_ns,
	       t_single / 1e3 / n * 1e3 / null_ns);

	munmap(src, len);
	munmap(dst, len);
	free(back);
	free(c.ops);
}

int main(int argc, char **argv)
{
	struct bench b = { .nranges = 4096, .range_size = 64 << 10 };
	struct uvm_ioc_version ver = { 0 };
	struct uvm_ioc_gpu_info info = { 0 };
	uint64_t null_ns, len, i, t_pf, t_single, t_discard, t_dp, copy_size = 64;
	unsigned int reps = 5;
	int copies_only = 0;
	uint8_t *r;
	int opt, ret;

	while ((opt = getopt(argc, argv, "Cn:s:c:r:g:h")) != -1) {
		switch (opt) {
		case 'C': copies_only = 1; break;
		case 'c': copy_size = strtoull(optarg, NULL, 0); break;
		case 'n': b.nranges = strtoull(optarg, NULL, 0); break;
		case 's': b.range_size = strtoull(optarg, NULL, 0) << 10; break;
		case 'r': reps = strtoul(optarg, NULL, 0); break;
		case 'g': b.gpu = strtoul(optarg, NULL, 0); break;
		default: usage();
		}
	}
	if (!b.nranges || !b.range_size || !reps || b.range_size % sysconf(_SC_PAGESIZE) ||
	    !copy_size || b.nranges > UVM_COPY_BATCH_MAX)
		usage();

	b.fd = open("/dev/uvm", O_RDWR | O_CLOEXEC);
	if (b.fd < 0)
		die("open /dev/uvm", -errno);
	ret = xioctl(b.fd, UVM_IOC_GET_VERSION, &ver);
	if (ret)
		die("GET_VERSION", ret);
	if (!(ver.caps & UVM_CAP_TEST_IOCTLS))
		die("uvm.ko has no test ioctls (residency checks)", -EOPNOTSUPP);
	info.gpu_index = b.gpu;
	ret = xioctl(b.fd, UVM_IOC_GPU_INFO, &info);
	if (ret)
		die("GPU_INFO", ret);

	/* One allocation on a 2 MiB boundary, so that it takes exactly len / 2 MiB chunks. */
	len = b.nranges * b.range_size;
	if (len > info.vidmem_size) {
		fprintf(stderr, "uvm-bench-batch: %llu MiB do not fit in GPU %u's %llu MiB\n",
			(unsigned long long)(len >> 20), b.gpu,
			(unsigned long long)(info.vidmem_size >> 20));
		return 1;
	}
	r = mmap(NULL, len + UVM_VA_BLOCK_SIZE, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (r == MAP_FAILED)
		die("mmap reserve", -errno);
	b.base = (uint8_t *)(((uintptr_t)r + UVM_VA_BLOCK_SIZE - 1) & ~(UVM_VA_BLOCK_SIZE - 1));
	if (mmap(b.base, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, b.fd, 0) == MAP_FAILED)
		die("mmap /dev/uvm", -errno);
	b.ranges = calloc(b.nranges, sizeof(*b.ranges));
	if (!b.ranges)
		die("calloc", -ENOMEM);
	for (i = 0; i < b.nranges; i++) {
		b.ranges[i].address = (uintptr_t)b.base + i * b.range_size;
		b.ranges[i].length = b.range_size;
	}
	b.loc.type = UVM_LOCATION_GPU;
	b.loc.id = b.gpu;

	printf("uvm-bench-batch: %llu ranges x %llu KiB (%llu MiB) on GPU %u (%s), %u repetitions\n",
	       (unsigned long long)b.nranges, (unsigned long long)(b.range_size >> 10),
	       (unsigned long long)(len >> 20), b.gpu, info.name, reps);

	null_ns = time_null_ioctl(b.fd);
	if (copies_only) {
		printf("\n%-36s %12s %12s %10s\n", "operation", "total ms", "us/call", "x null");
		printf("%-36s %12.3f %12.3f %10.3f\n", "null ioctl (GET_VERSION, median)",
		       null_ns / 1e6, null_ns / 1e3, 1.0);
		munmap(r, len + UVM_VA_BLOCK_SIZE);
		free(b.ranges);
		goto copies;
	}

	/* Populate once (untimed), then everything below starts resident on the GPU. */
	ret = batch(&b, UVM_MIGRATE_PREFETCH);
	if (ret)
		die("populating prefetch", ret);
	if (check_on_gpu(&b))
		die("ranges not on the GPU after the populating prefetch", -EIO);

	t_pf = time_op(&b, UVM_MIGRATE_PREFETCH, reps, 0, "batched prefetch");
	t_single = time_op(&b, 0, reps, 0, "single-range prefetch");
	if (check_on_gpu(&b))
		die("ranges left the GPU during the resident prefetches", -EIO);
	t_discard = time_op(&b, UVM_MIGRATE_DISCARD, reps, 1, "batched discard");
	t_dp = time_op(&b, UVM_MIGRATE_DISCARD_PREFETCH, reps, 1, "batched discard+prefetch");
	if (check_on_gpu(&b))
		die("ranges not on the GPU after discard+prefetch", -EIO);

	printf("\n%-36s %12s %12s %10s\n", "operation", "total ms", "us/range", "x null");
	printf("%-36s %12.3f %12.3f %10.3f\n", "null ioctl (GET_VERSION, median)",
	       null_ns / 1e6, null_ns / 1e3, 1.0);
	row("batched PREFETCH, resident (1 ioctl)", t_pf, b.nranges, null_ns);
	row("single-range PREFETCH, resident", t_single, b.nranges, null_ns);
	row("batched DISCARD (1 ioctl)", t_discard, b.nranges, null_ns);
	row("batched DISCARD_PREFETCH (1 ioctl)", t_dp, b.nranges, null_ns);
	printf("\nper-range cost of a batched resident prefetch = %.2f x a null ioctl; "
	       "of a batched discard = %.2f x\n",
	       t_pf / 1e3 / b.nranges * 1e3 / null_ns, t_discard / 1e3 / b.nranges * 1e3 / null_ns);

	munmap(r, len + UVM_VA_BLOCK_SIZE);
	free(b.ranges);
copies:
	bench_copies(b.fd, b.gpu, b.nranges, copy_size, reps, null_ns);
	close(b.fd);
	return 0;
}
