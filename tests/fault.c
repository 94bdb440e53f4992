// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fault - GPU faults on managed memory, through UVM_TEST_IOC_LAUNCH.
 *
 * Data: every GPU read returns the exact bytes the CPU or another GPU wrote,
 * every GPU write is seen exactly by the CPU, in any order and with any
 * number of warps.  Residency: after a GPU fault the page lives on that GPU
 * only and the other processors' mappings are gone.  Counters: exact deltas
 * where one warp makes the fault sequence deterministic, invariants where
 * many warps race.  Fatal faults end a launch with -EREMOTEIO and an exact
 * report, and the process carries on.  Every launch validation rule has its
 * error, and a rejected launch has no effect.  With fault_service_threads
 * above 1, batches of many blocks are serviced by helpers too, exactly.
 */
#include <sched.h>
#include <stddef.h>

#include "kselftest_harness.h"
#include "uvm_test_util.h"

/*
 * ASSERT that every counter of @got equals @want, naming each one that
 * differs.
 */
#define ASSERT_COUNTERS(want, got) do {						\
	unsigned int __i, __bad = 0;						\
	for (__i = 0; __i < UVM_COUNTER_COUNT; __i++) {				\
		if ((want).c[__i] != (got).c[__i]) {				\
			TH_LOG("counter %s: want %llu, got %llu",		\
			       uvm_counter_name(__i),				\
			       (unsigned long long)(want).c[__i],		\
			       (unsigned long long)(got).c[__i]);		\
			__bad++;						\
		}								\
	}									\
	ASSERT_EQ(0U, __bad);							\
} while (0)

/* Snapshot, run @stmt, snapshot again: the delta lands in @d. */
#define COUNT_DELTA(fd, d, stmt) do {						\
	struct uvm_counters __b, __a;						\
	ASSERT_EQ(0, uvm_counters(fd, &__b));					\
	stmt;									\
	ASSERT_EQ(0, uvm_counters(fd, &__a));					\
	(d) = uvm_counters_delta(&__b, &__a);					\
} while (0)

/*
 * With several warps, a launch may return while fault entries it raised are
 * still waiting in the fault buffer (their warps were replayed by an earlier
 * batch).  Wait until the VA space has counted @faults GPU faults since
 * @before, then return the delta.
 */
static struct uvm_counters counters_settle(int fd, const struct uvm_counters *before,
					   uint64_t faults)
{
	struct uvm_counters now, d;
	int i;

	for (i = 0; i < 300; i++) {
		uvm_counters(fd, &now);
		d = uvm_counters_delta(before, &now);
		if (d.c[UVM_COUNTER_GPU_FAULTS] >= faults)
			break;
		usleep(10000);
	}
	return d;
}

FIXTURE(fault) {
	struct uvm_dev dev;
	uint64_t ps;
	uint32_t gpu;
};

FIXTURE_VARIANT(fault) {
	uint32_t gpu;
};

FIXTURE_VARIANT_ADD(fault, gpu0) { .gpu = 0 };
FIXTURE_VARIANT_ADD(fault, gpu1) { .gpu = 1 };

FIXTURE_SETUP(fault)
{
	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, variant->gpu + 1);
	self->ps = self->dev.page_size;
	self->gpu = variant->gpu;
}

FIXTURE_TEARDOWN(fault)
{
	uvm_dev_teardown(&self->dev);
}

/*
 * A GPU read of CPU-written data returns the exact bytes and checksum, moves
 * the pages to the GPU and revokes the CPU mapping; one warp: exact counters
 */
TEST_F(fault, read_cpu_written)
{
	const uint64_t n = 16, len = n * self->ps;
	uint8_t *p = uvm_mmap(&self->dev, len), *ref = malloc(len), *out = malloc(len);
	struct uvm_counters d, want = {};
	struct uvm_test_gpu_op op;
	struct uvm_test_launch l;

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_NE(NULL, ref);
	ASSERT_NE(NULL, out);
	uvm_random_fill(ref, len, 1);
	memcpy(p, ref, len);
	memset(out, 0xaa, len);
	op = uvm_op_read(p, len, 64, out);

	COUNT_DELTA(self->dev.fd, d, ASSERT_EQ(0, uvm_launch(self->dev.fd, self->gpu, 1, &op, 1, &l)));
	ASSERT_EQ(-1, uvm_memcmp_at(out, ref, len));
	ASSERT_EQ(uvm_checksum(ref, p, len), op.checksum);
	ASSERT_EQ(n, l.faults_raised);
	ASSERT_RESIDENCY(&self->dev, p, n, UVM_STATE_GPU(self->gpu));

	want.c[UVM_COUNTER_GPU_FAULTS] = n;
	want.c[UVM_COUNTER_GPU_FAULT_BATCHES] = n;
	want.c[UVM_COUNTER_GPU_REPLAYS] = n;
	want.c[UVM_COUNTER_PAGES_H2D] = n;
	want.c[UVM_COUNTER_BYTES_H2D] = len;
	want.c[UVM_COUNTER_GPU_PAGES_MAPPED] = n;
	want.c[UVM_COUNTER_CPU_PAGES_UNMAPPED] = n;
	ASSERT_COUNTERS(want, d);
	ASSERT_EQ(0, munmap(p, len));
	free(ref);
	free(out);
}

/*
 * A GPU pattern write of untouched memory populates it on the GPU; CPU reads
 * see every pattern word and bring the pages back (exact CPU-side counters)
 */
TEST_F(fault, write_then_cpu_read)
{
	const uint64_t n = 16, len = n * self->ps;
	uint8_t *p = uvm_mmap(&self->dev, len);
	struct uvm_counters d, want = {};
	struct uvm_test_launch l;
	struct uvm_test_gpu_op op = uvm_op_pattern(p, len, 0x1234abcdULL);

	ASSERT_NE(MAP_FAILED, p);
	COUNT_DELTA(self->dev.fd, d, ASSERT_EQ(0, uvm_launch(self->dev.fd, self->gpu, 4, &op, 1, &l)));
	ASSERT_EQ(n, d.c[UVM_COUNTER_PAGES_POPULATED_GPU]);
	ASSERT_EQ(n, d.c[UVM_COUNTER_GPU_PAGES_MAPPED]);
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_PAGES_H2D] + d.c[UVM_COUNTER_PAGES_POPULATED_CPU]);
	ASSERT_LE(n, l.faults_raised);
	ASSERT_RESIDENCY(&self->dev, p, n, UVM_STATE_GPU(self->gpu));

	COUNT_DELTA(self->dev.fd, d, ASSERT_EQ(-1, uvm_pattern_mismatch(p, len, 0x1234abcdULL)));
	want.c[UVM_COUNTER_CPU_FAULTS] = n;
	want.c[UVM_COUNTER_PAGES_D2H] = n;
	want.c[UVM_COUNTER_BYTES_D2H] = len;
	want.c[UVM_COUNTER_GPU_PAGES_UNMAPPED] = n;
	ASSERT_COUNTERS(want, d);
	ASSERT_RESIDENCY(&self->dev, p, n, UVM_STATE_CPU);
	ASSERT_EQ(0, munmap(p, len));
}

/* GPU writes from a data buffer are byte exact: unaligned, odd sizes, neighbours kept */
TEST_F(fault, write_bytes_unaligned)
{
	const uint64_t len = 4 * self->ps, off = self->ps - 3, wlen = self->ps + 1001;
	uint8_t *p = uvm_mmap(&self->dev, len), *ref = malloc(len), *src = malloc(wlen);

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_NE(NULL, ref);
	ASSERT_NE(NULL, src);
	uvm_random_fill(ref, len, 2);
	uvm_random_fill(src, wlen, 3);
	memcpy(p, ref, len);
	memcpy(ref + off, src, wlen);
	ASSERT_EQ(0, uvm_launch1(self->dev.fd, self->gpu, 3,
				 uvm_op_write(p + off, wlen, 7, src), NULL));
	ASSERT_EQ(-1, uvm_memcmp_at(p, ref, len));
	ASSERT_EQ(0, munmap(p, len));
	free(ref);
	free(src);
}

/* GPU reads into a data buffer are byte exact for unaligned accesses across pages */
TEST_F(fault, read_bytes_unaligned)
{
	const uint64_t len = 4 * self->ps, off = 5, rlen = 3 * self->ps + 17;
	uint8_t *p = uvm_mmap(&self->dev, len), *ref = malloc(len), *out = malloc(rlen);

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_NE(NULL, ref);
	ASSERT_NE(NULL, out);
	uvm_random_fill(ref, len, 4);
	memcpy(p, ref, len);
	memset(out, 0, rlen);
	ASSERT_EQ(0, uvm_launch1(self->dev.fd, self->gpu, 5,
				 uvm_op_read(p + off, rlen, 13, out), NULL));
	ASSERT_EQ(-1, uvm_memcmp_at(out, ref + off, rlen));
	ASSERT_EQ(0, munmap(p, len));
	free(ref);
	free(out);
}

/* A strided read fills only the accessed bytes of the data buffer and checksums only them */
TEST_F(fault, strided_read)
{
	const uint64_t len = 8 * self->ps, stride = 200, asz = 64;
	uint8_t *p = uvm_mmap(&self->dev, len), *ref = malloc(len), *out = malloc(len),
		*want = malloc(len);
	struct uvm_test_gpu_op op;
	uint64_t k, sum = 0;

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_NE(NULL, ref);
	ASSERT_NE(NULL, out);
	ASSERT_NE(NULL, want);
	uvm_random_fill(ref, len, 5);
	memcpy(p, ref, len);
	memset(out, 0xee, len);
	memset(want, 0xee, len);
	for (k = 0; k * stride < len; k++) {
		uint64_t start = k * stride, end = start + asz < len ? start + asz : len;

		memcpy(want + start, ref + start, end - start);
		sum += uvm_checksum(ref + start, p + start, end - start);
	}
	op = uvm_op_read(p, len, asz, out);
	op.stride = stride;
	ASSERT_EQ(0, uvm_launch1(self->dev.fd, self->gpu, 4, op, &op));
	ASSERT_EQ(-1, uvm_memcmp_at(out, want, len));
	ASSERT_EQ(sum, op.checksum);
	ASSERT_EQ(0, munmap(p, len));
	free(ref);
	free(out);
	free(want);
}

/* A strided, random-order pattern write changes exactly the accessed words */
TEST_F(fault, strided_random_pattern_write)
{
	const uint64_t len = 8 * self->ps, stride = 40, asz = 16, value = 0xabcULL;
	uint64_t *p = uvm_mmap(&self->dev, len), *ref = malloc(len), i;
	struct uvm_test_gpu_op op = uvm_op_random(uvm_op_pattern(p, len, value), 99);

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_NE(NULL, ref);
	uvm_random_fill(ref, len, 6);
	memcpy(p, ref, len);
	op.stride = stride;
	op.access_size = asz;
	ASSERT_EQ(0, uvm_launch1(self->dev.fd, self->gpu, 6, op, NULL));
	for (i = 0; i < len / 8; i++) {
		uint64_t want = (i * 8) % stride < asz ? uvm_pattern_word(value, &p[i]) : ref[i];

		ASSERT_EQ(want, p[i]) TH_LOG("word %llu", (unsigned long long)i);
	}
	ASSERT_EQ(0, munmap(p, len));
	free(ref);
}

/* CPU and GPU take turns for several rounds; data exact, counters exact with one warp */
TEST_F(fault, ping_pong)
{
	const uint64_t n = 8, len = n * self->ps, words = len / 8, rounds = 4;
	uint64_t *p = uvm_mmap(&self->dev, len), *out = malloc(len), r, i;
	struct uvm_counters before, after, d, want = {};
	struct uvm_test_gpu_op ops[2];

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_NE(NULL, out);
	ASSERT_EQ(0, uvm_counters(self->dev.fd, &before));
	for (r = 0; r < rounds; r++) {
		for (i = 0; i < words; i++)
			p[i] = r << 32 | i;
		ops[0] = uvm_op_read(p, len, 8, out);
		ops[1] = uvm_op_pattern(p, len, 100 + r);
		ASSERT_EQ(0, uvm_launch(self->dev.fd, self->gpu, 1, ops, 2, NULL));
		for (i = 0; i < words; i++)
			ASSERT_EQ(r << 32 | i, out[i]);
		ASSERT_EQ(-1, uvm_pattern_mismatch(p, len, 100 + r));
	}
	ASSERT_EQ(0, uvm_counters(self->dev.fd, &after));
	d = uvm_counters_delta(&before, &after);
	want.c[UVM_COUNTER_GPU_FAULTS] = rounds * n;
	want.c[UVM_COUNTER_GPU_FAULT_BATCHES] = rounds * n;
	want.c[UVM_COUNTER_GPU_REPLAYS] = rounds * n;
	want.c[UVM_COUNTER_CPU_FAULTS] = n + rounds * n;
	want.c[UVM_COUNTER_PAGES_POPULATED_CPU] = n;
	want.c[UVM_COUNTER_PAGES_H2D] = rounds * n;
	want.c[UVM_COUNTER_BYTES_H2D] = rounds * len;
	want.c[UVM_COUNTER_PAGES_D2H] = rounds * n;
	want.c[UVM_COUNTER_BYTES_D2H] = rounds * len;
	want.c[UVM_COUNTER_GPU_PAGES_MAPPED] = rounds * n;
	want.c[UVM_COUNTER_GPU_PAGES_UNMAPPED] = rounds * n;
	want.c[UVM_COUNTER_CPU_PAGES_UNMAPPED] = rounds * n;
	ASSERT_COUNTERS(want, d);
	ASSERT_EQ(0, munmap(p, len));
	free(out);
}

/* A GPU read of never-touched memory returns zeros and populates on the GPU only */
TEST_F(fault, first_touch_zeros)
{
	const uint64_t n = 8, len = n * self->ps;
	uint8_t *p = uvm_mmap(&self->dev, len), *out = malloc(len), *zero = calloc(1, len);
	struct uvm_counters d, want = {};
	struct uvm_test_gpu_op op;

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_NE(NULL, out);
	ASSERT_NE(NULL, zero);
	memset(out, 0xaa, len);
	op = uvm_op_read(p, len, 512, out);
	COUNT_DELTA(self->dev.fd, d, ASSERT_EQ(0, uvm_launch1(self->dev.fd, self->gpu, 1, op, &op)));
	ASSERT_EQ(-1, uvm_nonzero_at(out, len));
	ASSERT_EQ(uvm_checksum(zero, p, len), op.checksum);
	want.c[UVM_COUNTER_GPU_FAULTS] = n;
	want.c[UVM_COUNTER_GPU_FAULT_BATCHES] = n;
	want.c[UVM_COUNTER_GPU_REPLAYS] = n;
	want.c[UVM_COUNTER_PAGES_POPULATED_GPU] = n;
	want.c[UVM_COUNTER_GPU_PAGES_MAPPED] = n;
	ASSERT_COUNTERS(want, d);
	ASSERT_RESIDENCY(&self->dev, p, n, UVM_STATE_GPU(self->gpu));
	/* The CPU then reads the GPU's zeros. */
	ASSERT_EQ(-1, uvm_nonzero_at(p, len));
	ASSERT_EQ(0, munmap(p, len));
	free(out);
	free(zero);
}

/* Random-order pattern writes and reads by many warps: checksums and CPU view exact */
TEST_F(fault, random_order_checksum)
{
	const uint64_t n = 32, len = n * self->ps;
	static const uint32_t seeds[] = { 1, 7, 0xdeadbeef };
	uint8_t *p = uvm_mmap(&self->dev, len), *ref = malloc(len), *out = malloc(len);
	struct uvm_test_gpu_op ops[3];
	unsigned int s;

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_NE(NULL, ref);
	ASSERT_NE(NULL, out);
	for (s = 0; s < ARRAY_SIZE(seeds); s++) {
		ops[0] = uvm_op_random(uvm_op_pattern(p, len, seeds[s]), seeds[s]);
		ops[1] = uvm_op_random(uvm_op_read(p, len, 8, NULL), seeds[s] + 1);
		ASSERT_EQ(0, uvm_launch(self->dev.fd, self->gpu, 8, ops, 2, NULL));
		ASSERT_EQ(uvm_pattern_checksum(p, len, seeds[s]), ops[1].checksum);
		ASSERT_EQ(-1, uvm_pattern_mismatch(p, len, seeds[s]));

		/* CPU data read back by a random-order GPU read into a buffer. */
		uvm_random_fill(ref, len, seeds[s]);
		memcpy(p, ref, len);
		ops[2] = uvm_op_random(uvm_op_read(p, len, 24, out), seeds[s] + 2);
		ASSERT_EQ(0, uvm_launch(self->dev.fd, self->gpu, 16, &ops[2], 1, NULL));
		ASSERT_EQ(-1, uvm_memcmp_at(out, ref, len));
		ASSERT_EQ(uvm_checksum(ref, p, len), ops[2].checksum);
	}
	ASSERT_EQ(0, munmap(p, len));
	free(ref);
	free(out);
}

/* 16 atomic-add ops by 32 warps, some in random order: every word gets the exact sum */
TEST_F(fault, atomics_sum)
{
	const uint64_t n = 16, len = n * self->ps, words = len / 8;
	uint64_t *p = uvm_mmap(&self->dev, len), i, sum = 0;
	struct uvm_test_gpu_op ops[16];
	unsigned int k;

	ASSERT_NE(MAP_FAILED, p);
	for (i = 0; i < words; i++)
		p[i] = i * 3;
	for (k = 0; k < ARRAY_SIZE(ops); k++) {
		ops[k] = uvm_op_atomic(p, len, k + 1);
		if (k % 2)
			ops[k] = uvm_op_random(ops[k], k);
		sum += k + 1;
	}
	ASSERT_EQ(0, uvm_launch(self->dev.fd, self->gpu, 32, ops, ARRAY_SIZE(ops), NULL));
	ASSERT_RESIDENCY(&self->dev, p, n, UVM_STATE_GPU(self->gpu));
	for (i = 0; i < words; i++)
		ASSERT_EQ(i * 3 + sum, p[i]) TH_LOG("word %llu", (unsigned long long)i);
	ASSERT_EQ(0, munmap(p, len));
}

/*
 * 1024 warps on one page: every batch services that page once, so
 * faults - duplicates = batches = replays, and the faults counted are the
 * faults the launch raised.  Whether several warps fault before the first
 * fault is serviced depends on scheduling (seen to depend on the CPU the
 * launcher runs on), so the launch is repeated on fresh pages, from each
 * CPU in turn, until duplicates were coalesced (at most 20 times).
 */
TEST_F(fault, duplicates_coalesced)
{
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct uvm_counters before, d;
	struct uvm_test_launch l;
	struct uvm_test_gpu_op op;
	unsigned int attempt;
	cpu_set_t cpus;
	uint8_t *p;

	for (attempt = 0; attempt < 20; attempt++) {
		CPU_ZERO(&cpus);
		CPU_SET(attempt % (ncpus > 0 ? ncpus : 1), &cpus);
		sched_setaffinity(0, sizeof(cpus), &cpus);
		p = uvm_mmap(&self->dev, self->ps);
		ASSERT_NE(MAP_FAILED, p);
		if (attempt % 2)
			memset(p, 1, self->ps);	/* a migration, not a populate */
		op = uvm_op_read(p, self->ps, 8, NULL);
		ASSERT_EQ(0, uvm_counters(self->dev.fd, &before));
		ASSERT_EQ(0, uvm_launch(self->dev.fd, self->gpu, 1024, &op, 1, &l));
		d = counters_settle(self->dev.fd, &before, l.faults_raised);
		ASSERT_EQ(l.faults_raised, d.c[UVM_COUNTER_GPU_FAULTS]);
		ASSERT_EQ(d.c[UVM_COUNTER_GPU_FAULT_BATCHES],
			  d.c[UVM_COUNTER_GPU_FAULTS] - d.c[UVM_COUNTER_GPU_FAULTS_DUP]);
		ASSERT_EQ(d.c[UVM_COUNTER_GPU_FAULT_BATCHES], d.c[UVM_COUNTER_GPU_REPLAYS]);
		ASSERT_EQ(1ULL, d.c[UVM_COUNTER_GPU_PAGES_MAPPED]);
		ASSERT_EQ(attempt % 2 ? 0ULL : 1ULL, d.c[UVM_COUNTER_PAGES_POPULATED_GPU]);
		ASSERT_EQ(attempt % 2 ? 1ULL : 0ULL, d.c[UVM_COUNTER_PAGES_H2D]);
		ASSERT_EQ(0ULL, d.c[UVM_COUNTER_GPU_FATAL_FAULTS]);
		ASSERT_EQ(0, munmap(p, self->ps));
		if (d.c[UVM_COUNTER_GPU_FAULTS_DUP])
			break;
	}
	TH_LOG("attempt %u: %llu faults, %llu duplicates, %llu batches", attempt,
	       (unsigned long long)d.c[UVM_COUNTER_GPU_FAULTS],
	       (unsigned long long)d.c[UVM_COUNTER_GPU_FAULTS_DUP],
	       (unsigned long long)d.c[UVM_COUNTER_GPU_FAULT_BATCHES]);
	ASSERT_LT(0ULL, d.c[UVM_COUNTER_GPU_FAULTS_DUP]);
	ASSERT_LT(d.c[UVM_COUNTER_GPU_FAULT_BATCHES], d.c[UVM_COUNTER_GPU_FAULTS]);
}

/* Many warps over many pages: distinct faults cover every page, bytes = pages x page size */
TEST_F(fault, counter_consistency_many_warps)
{
	const uint64_t n = 64, len = n * self->ps;
	uint8_t *p = uvm_mmap(&self->dev, len);
	struct uvm_counters before, d;
	struct uvm_test_launch l;
	struct uvm_test_gpu_op op;

	ASSERT_NE(MAP_FAILED, p);
	memset(p, 0x3c, len);
	op = uvm_op_random(uvm_op_read(p, len, 256, NULL), 5);
	ASSERT_EQ(0, uvm_counters(self->dev.fd, &before));
	ASSERT_EQ(0, uvm_launch(self->dev.fd, self->gpu, 64, &op, 1, &l));
	d = counters_settle(self->dev.fd, &before, l.faults_raised);
	ASSERT_EQ(l.faults_raised, d.c[UVM_COUNTER_GPU_FAULTS]);
	ASSERT_LE(n, d.c[UVM_COUNTER_GPU_FAULTS] - d.c[UVM_COUNTER_GPU_FAULTS_DUP]);
	ASSERT_LE(1ULL, d.c[UVM_COUNTER_GPU_FAULT_BATCHES]);
	ASSERT_EQ(d.c[UVM_COUNTER_GPU_FAULT_BATCHES], d.c[UVM_COUNTER_GPU_REPLAYS]);
	ASSERT_EQ(n, d.c[UVM_COUNTER_PAGES_H2D]);
	ASSERT_EQ(len, d.c[UVM_COUNTER_BYTES_H2D]);
	ASSERT_EQ(n, d.c[UVM_COUNTER_GPU_PAGES_MAPPED]);
	ASSERT_EQ(n, d.c[UVM_COUNTER_CPU_PAGES_UNMAPPED]);
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_GPU_FATAL_FAULTS]);
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_PAGES_D2H] + d.c[UVM_COUNTER_PAGES_D2D]);
	ASSERT_RESIDENCY(&self->dev, p, n, UVM_STATE_GPU(self->gpu));
	ASSERT_EQ(0, munmap(p, len));
}

/* mprotect changes CPU permissions only: the GPU still writes a PROT_READ range */
TEST_F(fault, gpu_writes_cpu_readonly_range)
{
	const uint64_t len = 2 * self->ps;
	uint8_t *p = uvm_mmap(&self->dev, len);

	ASSERT_NE(MAP_FAILED, p);
	memset(p, 1, len);
	ASSERT_EQ(0, mprotect(p, len, PROT_READ));
	ASSERT_EQ(0, uvm_launch1(self->dev.fd, self->gpu, 2, uvm_op_pattern(p, len, 77), NULL));
	ASSERT_EQ(-1, uvm_pattern_mismatch(p, len, 77));
	/* Back on the CPU, mapped read-only as the VMA says. */
	ASSERT_RESIDENCY(&self->dev, p, 2, uvm_state(UVM_CPU_BIT, UVM_CPU_BIT, 0, 0));
	ASSERT_EQ(SIGSEGV, uvm_touch_signal(p, true));
	ASSERT_EQ(0, munmap(p, len));
}

/*
 * Data buffers may themselves be managed memory: a READ into one range and
 * a WRITE from another, even from the range being written
 */
TEST_F(fault, data_buffers_in_managed_memory)
{
	const uint64_t len = 4 * self->ps;
	uint8_t *src = uvm_mmap(&self->dev, len), *dst = uvm_mmap(&self->dev, len);
	uint8_t *ref = malloc(len);
	struct uvm_test_gpu_op ops[2];

	ASSERT_NE(MAP_FAILED, src);
	ASSERT_NE(MAP_FAILED, dst);
	ASSERT_NE(NULL, ref);
	uvm_random_fill(ref, len, 8);
	memcpy(src, ref, len);
	/* GPU reads src into dst (dst is written back by the CPU side of the ioctl). */
	ops[0] = uvm_op_read(src, len, 32, dst);
	ASSERT_EQ(0, uvm_launch(self->dev.fd, self->gpu, 4, ops, 1, NULL));
	ASSERT_EQ(-1, uvm_memcmp_at(dst, ref, len));
	ASSERT_RESIDENCY(&self->dev, src, 4, UVM_STATE_GPU(self->gpu));
	ASSERT_RESIDENCY(&self->dev, dst, 4, UVM_STATE_CPU);
	/* GPU writes src's second half from its own first half. */
	ops[1] = uvm_op_write(src + len / 2, len / 2, 16, src);
	ASSERT_EQ(0, uvm_launch(self->dev.fd, self->gpu, 4, &ops[1], 1, NULL));
	ASSERT_EQ(-1, uvm_memcmp_at(src, ref, len / 2));
	ASSERT_EQ(-1, uvm_memcmp_at(src + len / 2, ref, len / 2));
	ASSERT_EQ(0, munmap(src, len));
	ASSERT_EQ(0, munmap(dst, len));
	free(ref);
}

/*
 * Atomic accesses that straddle two pages fault in the middle (the second
 * page is not mapped yet): each word still gets its addend exactly once
 */
TEST_F(fault, atomic_access_across_pages)
{
	const uint64_t n = 8, len = n * self->ps, off = self->ps / 2, alen = 6 * self->ps;
	uint64_t *p = uvm_mmap(&self->dev, len), i;
	struct uvm_test_gpu_op op;
	struct uvm_test_launch l;

	ASSERT_NE(MAP_FAILED, p);
	memset(p, 0, len);
	op = uvm_op_atomic((uint8_t *)p + off, alen, 5);
	op.access_size = self->ps;
	ASSERT_EQ(0, uvm_launch(self->dev.fd, self->gpu, 1, &op, 1, &l));
	ASSERT_EQ(7ULL, l.faults_raised);
	for (i = 0; i < len / 8; i++) {
		uint64_t want = i * 8 >= off && i * 8 < off + alen ? 5 : 0;

		ASSERT_EQ(want, p[i]) TH_LOG("word %llu", (unsigned long long)i);
	}
	ASSERT_EQ(0, munmap(p, len));
}

/* A launch on a GPU index the module does not drive is -ENODEV and does nothing */
TEST_F(fault, bad_gpu_index)
{
	uint8_t *p = uvm_mmap(&self->dev, self->ps);
	struct uvm_test_gpu_op op = uvm_op_pattern(p, self->ps, 1);

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(-ENODEV, uvm_launch(self->dev.fd, self->dev.num_gpus, 1, &op, 1, NULL));
	ASSERT_EQ(-ENODEV, uvm_launch(self->dev.fd, UVM_MAX_GPUS, 1, &op, 1, NULL));
	ASSERT_EQ(-ENODEV, uvm_launch(self->dev.fd, UINT32_MAX, 1, &op, 1, NULL));
	ASSERT_RESIDENCY(&self->dev, p, 1, UVM_STATE_NONE);
	ASSERT_EQ(0, uvm_launch(self->dev.fd, self->gpu, 1, &op, 1, NULL));
	ASSERT_EQ(0, munmap(p, self->ps));
}

/*
 * Fatal faults.  Op 0 writes a managed page, op 1 makes the access a
 * variant describes, op 2 would write another managed page.  One warp, so
 * the report and counters are exact.
 */
enum fatal_target {
	TARGET_ANON = 1,	/* private anonymous memory: not managed, and made
				 * PROT_NONE where HMM mirrors pageable memory */
	TARGET_LOW,		/* an address below mmap_min_addr */
	TARGET_HOLE,		/* a managed range that was munmapped */
	TARGET_OTHER_VA_SPACE,	/* managed, but by another open of /dev/uvm */
};

FIXTURE(fatal) {
	struct uvm_dev dev;
	struct uvm_dev other;
	uint64_t ps;
	uint8_t *managed;	/* 2 pages: op 0's and op 2's */
	void *target;
	void *anon;
};

FIXTURE_VARIANT(fatal) {
	uint32_t type;		/* UVM_TEST_OP_* of op 1 */
	enum fatal_target target;
};

FIXTURE_VARIANT_ADD(fatal, read_anon) { UVM_TEST_OP_READ, TARGET_ANON };
FIXTURE_VARIANT_ADD(fatal, write_anon) { UVM_TEST_OP_WRITE, TARGET_ANON };
FIXTURE_VARIANT_ADD(fatal, atomic_anon) { UVM_TEST_OP_ATOMIC_ADD, TARGET_ANON };
FIXTURE_VARIANT_ADD(fatal, read_low_address) { UVM_TEST_OP_READ, TARGET_LOW };
FIXTURE_VARIANT_ADD(fatal, write_munmapped) { UVM_TEST_OP_WRITE, TARGET_HOLE };
FIXTURE_VARIANT_ADD(fatal, atomic_munmapped) { UVM_TEST_OP_ATOMIC_ADD, TARGET_HOLE };
FIXTURE_VARIANT_ADD(fatal, read_other_va_space) { UVM_TEST_OP_READ, TARGET_OTHER_VA_SPACE };

FIXTURE_SETUP(fatal)
{
	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, 1);
	self->ps = self->dev.page_size;
	self->other.fd = -1;
	self->managed = uvm_mmap(&self->dev, 2 * self->ps);
	ASSERT_NE(MAP_FAILED, self->managed);
	switch (variant->target) {
	case TARGET_ANON:
		self->anon = mmap(NULL, self->ps, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ASSERT_NE(MAP_FAILED, self->anon);
		memset(self->anon, 1, self->ps);
		self->target = (uint8_t *)self->anon + 64;
		/* With HMM a GPU reaches what the CPU can: take that away. */
		if (self->dev.ver.caps & UVM_CAP_HMM_MIRROR)
			ASSERT_EQ(0, mprotect(self->anon, self->ps, PROT_NONE));
		break;
	case TARGET_LOW:
		self->target = (void *)0x1000;
		break;
	case TARGET_HOLE:
		self->target = uvm_mmap(&self->dev, self->ps);
		ASSERT_NE(MAP_FAILED, self->target);
		memset(self->target, 1, self->ps);
		ASSERT_EQ(0, munmap(self->target, self->ps));
		break;
	case TARGET_OTHER_VA_SPACE:
		self->other.fd = uvm_open();
		ASSERT_LE(0, self->other.fd);
		self->target = uvm_mmap(&self->other, self->ps);
		ASSERT_NE(MAP_FAILED, self->target);
		memset(self->target, 1, self->ps);
		break;
	}
}

FIXTURE_TEARDOWN(fatal)
{
	uvm_dev_teardown(&self->other);
	uvm_dev_teardown(&self->dev);
}

/*
 * The launch ends with -EREMOTEIO, an exact report, exact counters; op 2
 * never ran.  One fault per op that ran, unless a replay came while the warp
 * was stalled on a fault not serviced yet: replays are GPU-wide (a batch of
 * other faults, flushed with this one, or another servicer's), and the warp
 * then faults again.  Every fault it raised is counted in its VA space.
 */
TEST_F(fatal, report)
{
	struct uvm_test_gpu_op ops[3];
	struct uvm_counters before, d;
	struct uvm_test_launch l;

	ops[0] = uvm_op_pattern(self->managed, self->ps, 11);
	ops[1] = uvm_op(variant->type, self->target, 64, 8);
	ops[1].value = 1;
	ops[2] = uvm_op_pattern(self->managed + self->ps, self->ps, 22);
	ASSERT_EQ(0, uvm_counters(self->dev.fd, &before));
	ASSERT_EQ(-EREMOTEIO, uvm_launch(self->dev.fd, 0, 1, ops, 3, &l));
	ASSERT_EQ((uintptr_t)self->target, l.fault_address);
	ASSERT_EQ(variant->type, l.fault_access);
	ASSERT_EQ(1U, l.fault_op);
	ASSERT_LE(2ULL, l.faults_raised);
	if (l.faults_raised > 2)
		TH_LOG("%llu faults raised: a replay came while the warp was stalled",
		       (unsigned long long)l.faults_raised);
	d = counters_settle(self->dev.fd, &before, l.faults_raised);
	ASSERT_EQ(1ULL, d.c[UVM_COUNTER_GPU_FATAL_FAULTS]);
	ASSERT_EQ(l.faults_raised, d.c[UVM_COUNTER_GPU_FAULTS]);
	ASSERT_EQ(1ULL, d.c[UVM_COUNTER_PAGES_POPULATED_GPU]);
	/* Op 0 completed, op 2 never ran. */
	ASSERT_RESIDENCY(&self->dev, self->managed, 1, UVM_STATE_GPU(0));
	ASSERT_RESIDENCY(&self->dev, self->managed + self->ps, 1, UVM_STATE_NONE);
	ASSERT_EQ(-1, uvm_pattern_mismatch(self->managed, self->ps, 11));
	/* Nothing happened to the target. */
	if (self->anon) {
		ASSERT_EQ(0, mprotect(self->anon, self->ps, PROT_READ));
		ASSERT_EQ(0x01, ((uint8_t *)self->anon)[64]);
	}
	if (self->other.fd >= 0)
		ASSERT_EQ(0x01, ((uint8_t *)self->target)[0]);
}

/* After a fatal fault the VA space, the GPU and the process carry on */
TEST_F(fatal, carry_on)
{
	struct uvm_test_gpu_op ops[2];
	uint32_t g;

	ops[0] = uvm_op(variant->type, self->target, 8, 8);
	ASSERT_EQ(-EREMOTEIO, uvm_launch(self->dev.fd, 0, 4, ops, 1, NULL));
	for (g = 0; g < self->dev.num_gpus; g++) {
		ops[0] = uvm_op_pattern(self->managed, 2 * self->ps, 40 + g);
		ops[1] = uvm_op_read(self->managed, 2 * self->ps, 8, NULL);
		ASSERT_EQ(0, uvm_launch(self->dev.fd, g, 4, ops, 2, NULL));
		ASSERT_EQ(uvm_pattern_checksum(self->managed, 2 * self->ps, 40 + g),
			  ops[1].checksum);
	}
	ASSERT_EQ(-1, uvm_pattern_mismatch(self->managed, 2 * self->ps,
					   40 + self->dev.num_gpus - 1));
	/* The same fault again, with many warps, is just as fatal. */
	ops[0] = uvm_op(variant->type, self->target, 64 * 8, 8);
	ASSERT_EQ(-EREMOTEIO, uvm_launch(self->dev.fd, 0, 64, ops, 1, NULL));
}

/*
 * Launch validation.  The valid program writes two managed pages; each
 * variant breaks one field of op 1 or of the launch.  A rejected launch
 * must have no effect: no fault, no page populated.
 */
enum where { IN_OP1 = 1, IN_LAUNCH };

struct mutation {
	enum where where;
	uint16_t off, size;
	uint64_t value;
	bool add;		/* add @value instead of storing it */
};

#define OP_FIELD(f)	.where = IN_OP1, .off = offsetof(struct uvm_test_gpu_op, f), \
			.size = sizeof(((struct uvm_test_gpu_op *)0)->f)
#define LAUNCH_FIELD(f)	.where = IN_LAUNCH, .off = offsetof(struct uvm_test_launch, f), \
			.size = sizeof(((struct uvm_test_launch *)0)->f)

FIXTURE(bad_launch) {
	struct uvm_dev dev;
	uint64_t ps;
	uint8_t *p;
	uint8_t *guard;			/* a page, then a PROT_NONE page */
	struct uvm_test_gpu_op *ops;	/* 2 ops ending where the guard begins */
	uint64_t data[64];
};

FIXTURE_VARIANT(bad_launch) {
	struct mutation m[2];
	int err;
};

FIXTURE_VARIANT_ADD(bad_launch, op_type_zero) {
	.m = { { OP_FIELD(type), .value = 0 } }, .err = -EINVAL };
FIXTURE_VARIANT_ADD(bad_launch, op_type_unknown) {
	.m = { { OP_FIELD(type), .value = 4 } }, .err = -EINVAL };
FIXTURE_VARIANT_ADD(bad_launch, op_order_zero) {
	.m = { { OP_FIELD(order), .value = 0 } }, .err = -EINVAL };
FIXTURE_VARIANT_ADD(bad_launch, op_order_unknown) {
	.m = { { OP_FIELD(order), .value = 3 } }, .err = -EINVAL };
FIXTURE_VARIANT_ADD(bad_launch, op_length_zero) {
	.m = { { OP_FIELD(length), .value = 0 } }, .err = -EINVAL };
FIXTURE_VARIANT_ADD(bad_launch, op_length_wraps) {
	.m = { { OP_FIELD(length), .value = ~0ULL - 4095 } }, .err = -EINVAL };
FIXTURE_VARIANT_ADD(bad_launch, op_access_size_zero) {
	.m = { { OP_FIELD(access_size), .value = 0 } }, .err = -EINVAL };
FIXTURE_VARIANT_ADD(bad_launch, op_access_size_too_big) {
	.m = { { OP_FIELD(access_size), .value = 4104 } }, .err = -EINVAL };
FIXTURE_VARIANT_ADD(bad_launch, op_stride_below_access_size) {
	.m = { { OP_FIELD(stride), .value = 8 }, { OP_FIELD(access_size), .value = 16 } },
	.err = -EINVAL };
FIXTURE_VARIANT_ADD(bad_launch, pattern_unaligned_address) {
	.m = { { OP_FIELD(address), .value = 4, .add = true } }, .err = -EINVAL };
FIXTURE_VARIANT_ADD(bad_launch, pattern_unaligned_length) {
	.m = { { OP_FIELD(length), .value = 12 } }, .err = -EINVAL };
FIXTURE_VARIANT_ADD(bad_launch, checksum_read_unaligned_access) {
	.m = { { OP_FIELD(type), .value = UVM_TEST_OP_READ }, { OP_FIELD(access_size), .value = 12 } },
	.err = -EINVAL };
FIXTURE_VARIANT_ADD(bad_launch, atomic_unaligned_stride) {
	.m = { { OP_FIELD(type), .value = UVM_TEST_OP_ATOMIC_ADD }, { OP_FIELD(stride), .value = 20 } },
	.err = -EINVAL };
FIXTURE_VARIANT_ADD(bad_launch, atomic_with_data) {
	.m = { { OP_FIELD(type), .value = UVM_TEST_OP_ATOMIC_ADD }, { OP_FIELD(data_ptr), .value = 0x10000 } },
	.err = -EINVAL };
FIXTURE_VARIANT_ADD(bad_launch, op_reserved0) {
	.m = { { OP_FIELD(reserved[0]), .value = 1 } }, .err = -EINVAL };
FIXTURE_VARIANT_ADD(bad_launch, op_reserved1) {
	.m = { { OP_FIELD(reserved[1]), .value = 1ULL << 63 } }, .err = -EINVAL };
FIXTURE_VARIANT_ADD(bad_launch, data_over_max) {
	.m = { { OP_FIELD(length), .value = UVM_TEST_MAX_DATA + 8 }, { OP_FIELD(data_ptr), .value = 0x10000 } },
	.err = -E2BIG };
FIXTURE_VARIANT_ADD(bad_launch, data_kernel_pointer) {
	.m = { { OP_FIELD(data_ptr), .value = 0xffff888000000000ULL } }, .err = -EFAULT };
FIXTURE_VARIANT_ADD(bad_launch, write_data_unmapped) {
	.m = { { OP_FIELD(data_ptr), .value = 0x1000 } }, .err = -EFAULT };
FIXTURE_VARIANT_ADD(bad_launch, warps_zero) {
	.m = { { LAUNCH_FIELD(num_warps), .value = 0 } }, .err = -EINVAL };
FIXTURE_VARIANT_ADD(bad_launch, warps_too_many) {
	.m = { { LAUNCH_FIELD(num_warps), .value = UVM_TEST_MAX_WARPS + 1 } }, .err = -EINVAL };
FIXTURE_VARIANT_ADD(bad_launch, ops_zero) {
	.m = { { LAUNCH_FIELD(num_ops), .value = 0 } }, .err = -EINVAL };
FIXTURE_VARIANT_ADD(bad_launch, ops_too_many) {
	.m = { { LAUNCH_FIELD(num_ops), .value = UVM_TEST_MAX_OPS + 1 } }, .err = -EINVAL };
FIXTURE_VARIANT_ADD(bad_launch, ops_huge_count) {
	.m = { { LAUNCH_FIELD(num_ops), .value = UINT32_MAX } }, .err = -EINVAL };
FIXTURE_VARIANT_ADD(bad_launch, ops_ptr_null) {
	.m = { { LAUNCH_FIELD(ops_ptr), .value = 0 } }, .err = -EFAULT };
FIXTURE_VARIANT_ADD(bad_launch, ops_ptr_kernel) {
	.m = { { LAUNCH_FIELD(ops_ptr), .value = 0xffff888000000000ULL } }, .err = -EFAULT };
FIXTURE_VARIANT_ADD(bad_launch, ops_array_short) {
	.m = { { LAUNCH_FIELD(num_ops), .value = UVM_TEST_MAX_OPS } }, .err = -EFAULT };
FIXTURE_VARIANT_ADD(bad_launch, launch_flags) {
	.m = { { LAUNCH_FIELD(flags), .value = 1 } }, .err = -EINVAL };
FIXTURE_VARIANT_ADD(bad_launch, launch_reserved) {
	.m = { { LAUNCH_FIELD(reserved[2]), .value = 1 } }, .err = -EINVAL };
FIXTURE_VARIANT_ADD(bad_launch, gpu_index_past_last) {
	.m = { { LAUNCH_FIELD(gpu_index), .value = UVM_MAX_GPUS } }, .err = -ENODEV };

FIXTURE_SETUP(bad_launch)
{
	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, 1);
	self->ps = self->dev.page_size;
	self->p = uvm_mmap(&self->dev, 2 * self->ps);
	ASSERT_NE(MAP_FAILED, self->p);
	self->guard = mmap(NULL, 2 * self->ps, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->guard);
	ASSERT_EQ(0, mprotect(self->guard + self->ps, self->ps, PROT_NONE));
	self->ops = (struct uvm_test_gpu_op *)(self->guard + self->ps) - 2;
}

FIXTURE_TEARDOWN(bad_launch)
{
	uvm_dev_teardown(&self->dev);
}

static void mutate(void *base, const struct mutation *m)
{
	uint8_t *f = (uint8_t *)base + m->off;
	uint64_t v = 0;

	memcpy(&v, f, m->size);
	v = m->add ? v + m->value : m->value;
	memcpy(f, &v, m->size);
}

/* The broken launch fails with its error before anything runs; the fixed one works */
TEST_F(bad_launch, rejected_before_running)
{
	struct uvm_test_gpu_op *ops = self->ops;
	struct uvm_counters d, zero = {};
	struct uvm_test_launch l = {
		.gpu_index = 0, .num_warps = 2, .ops_ptr = (uintptr_t)ops, .num_ops = 2,
	};
	unsigned int i;

	ops[0] = uvm_op_pattern(self->p, self->ps, 1);
	ops[1] = uvm_op_write(self->p + self->ps, sizeof(self->data), 8, self->data);
	ops[1].data_ptr = 0;	/* a pattern write, unless a variant adds data */
	for (i = 0; i < ARRAY_SIZE(variant->m) && variant->m[i].where; i++)
		mutate(variant->m[i].where == IN_OP1 ? (void *)&ops[1] : (void *)&l,
		       &variant->m[i]);
	COUNT_DELTA(self->dev.fd, d,
		    ASSERT_EQ(variant->err, uvm_ioctl(self->dev.fd, UVM_TEST_IOC_LAUNCH, &l)));
	ASSERT_COUNTERS(zero, d);
	ASSERT_RESIDENCY(&self->dev, self->p, 2, UVM_STATE_NONE);

	ops[1] = uvm_op_pattern(self->p + self->ps, self->ps, 2);
	ASSERT_EQ(0, uvm_launch(self->dev.fd, 0, 2, ops, 2, NULL));
	ASSERT_EQ(-1, uvm_pattern_mismatch(self->p, self->ps, 1));
	ASSERT_EQ(-1, uvm_pattern_mismatch(self->p + self->ps, self->ps, 2));
}

/* GPU to GPU: variants give the direction */
FIXTURE(gpu_pair) {
	struct uvm_dev dev;
	uint64_t ps;
	uint32_t src, dst;
	uint64_t vidmem_src, vidmem_dst;
};

FIXTURE_VARIANT(gpu_pair) {
	uint32_t src, dst;
};

FIXTURE_VARIANT_ADD(gpu_pair, gpu0_to_gpu1) { .src = 0, .dst = 1 };
FIXTURE_VARIANT_ADD(gpu_pair, gpu1_to_gpu0) { .src = 1, .dst = 0 };

FIXTURE_SETUP(gpu_pair)
{
	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, 2);
	self->ps = self->dev.page_size;
	self->src = variant->src;
	self->dst = variant->dst;
	self->vidmem_src = uvm_vidmem_used(self->dev.fd, self->src);
	self->vidmem_dst = uvm_vidmem_used(self->dev.fd, self->dst);
}

FIXTURE_TEARDOWN(gpu_pair)
{
	uvm_dev_teardown(&self->dev);
}

/*
 * Data written by one GPU is read by the other: exact bytes, pages moved
 * GPU to GPU (exact counters), resident and mapped on the reader only,
 * the writer's vidmem freed
 */
TEST_F(gpu_pair, read_other_gpus_writes)
{
	const uint64_t n = 16, len = n * self->ps;
	uint8_t *p = uvm_mmap_block_aligned(&self->dev, len);
	uint8_t *out = malloc(len), *want = malloc(len);
	struct uvm_counters d, exp = {};
	struct uvm_test_gpu_op op;

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_NE(NULL, out);
	ASSERT_NE(NULL, want);
	ASSERT_EQ(0, uvm_launch1(self->dev.fd, self->src, 1, uvm_op_pattern(p, len, 0x5eed), NULL));
	ASSERT_RESIDENCY(&self->dev, p, n, UVM_STATE_GPU(self->src));
	ASSERT_EQ(self->vidmem_src + UVM_VA_BLOCK_SIZE, uvm_vidmem_used(self->dev.fd, self->src));

	op = uvm_op_read(p, len, 128, out);
	COUNT_DELTA(self->dev.fd, d, ASSERT_EQ(0, uvm_launch1(self->dev.fd, self->dst, 1, op, &op)));
	uvm_pattern_fill(want, p, len, 0x5eed);
	ASSERT_EQ(-1, uvm_memcmp_at(out, want, len));
	ASSERT_EQ(uvm_pattern_checksum(p, len, 0x5eed), op.checksum);
	ASSERT_RESIDENCY(&self->dev, p, n, UVM_STATE_GPU(self->dst));
	exp.c[UVM_COUNTER_GPU_FAULTS] = n;
	exp.c[UVM_COUNTER_GPU_FAULT_BATCHES] = n;
	exp.c[UVM_COUNTER_GPU_REPLAYS] = n;
	exp.c[UVM_COUNTER_PAGES_D2D] = n;
	exp.c[UVM_COUNTER_BYTES_D2D] = len;
	exp.c[UVM_COUNTER_GPU_PAGES_MAPPED] = n;
	exp.c[UVM_COUNTER_GPU_PAGES_UNMAPPED] = n;
	ASSERT_COUNTERS(exp, d);
	ASSERT_EQ(self->vidmem_src, uvm_vidmem_used(self->dev.fd, self->src));
	ASSERT_EQ(self->vidmem_dst + UVM_VA_BLOCK_SIZE, uvm_vidmem_used(self->dev.fd, self->dst));

	ASSERT_EQ(0, munmap(p, len));
	ASSERT_EQ(self->vidmem_dst, uvm_vidmem_wait(self->dev.fd, self->dst, self->vidmem_dst));
	free(out);
	free(want);
}

/* Atomics alternate between the GPUs for six rounds: exact sums, exact migration counts */
TEST_F(gpu_pair, alternating_atomics)
{
	const uint64_t n = 8, len = n * self->ps, words = len / 8, rounds = 6;
	uint64_t *p = uvm_mmap(&self->dev, len), i, r;
	struct uvm_counters before, after, d;
	struct uvm_test_gpu_op op;

	ASSERT_NE(MAP_FAILED, p);
	for (i = 0; i < words; i++)
		p[i] = i << 8;
	ASSERT_EQ(0, uvm_counters(self->dev.fd, &before));
	for (r = 0; r < rounds; r++) {
		op = uvm_op_atomic(p, len, 1);
		ASSERT_EQ(0, uvm_launch1(self->dev.fd, r % 2 ? self->dst : self->src, 1, op, NULL));
	}
	for (i = 0; i < words; i++)
		ASSERT_EQ((i << 8) + rounds, p[i]);
	ASSERT_EQ(0, uvm_counters(self->dev.fd, &after));
	d = uvm_counters_delta(&before, &after);
	ASSERT_EQ(n, d.c[UVM_COUNTER_PAGES_H2D]);
	ASSERT_EQ((rounds - 1) * n, d.c[UVM_COUNTER_PAGES_D2D]);
	ASSERT_EQ((rounds - 1) * len, d.c[UVM_COUNTER_BYTES_D2D]);
	ASSERT_EQ(n, d.c[UVM_COUNTER_PAGES_D2H]);
	ASSERT_EQ(rounds * n, d.c[UVM_COUNTER_GPU_FAULTS]);
	ASSERT_EQ(0, munmap(p, len));
}

/* One block with pages on the CPU and on both GPUs at once: per-page state exact */
TEST_F(gpu_pair, mixed_residency_in_one_block)
{
	const uint64_t n = 6, len = n * self->ps;
	uint8_t *p = uvm_mmap_block_aligned(&self->dev, len);

	ASSERT_NE(MAP_FAILED, p);
	memset(p, 9, len);
	ASSERT_EQ(0, uvm_launch1(self->dev.fd, self->src, 1,
				 uvm_op_pattern(p, 2 * self->ps, 1), NULL));
	ASSERT_EQ(0, uvm_launch1(self->dev.fd, self->dst, 1,
				 uvm_op_pattern(p + 2 * self->ps, 2 * self->ps, 2), NULL));
	ASSERT_RESIDENCY(&self->dev, p, 2, UVM_STATE_GPU(self->src));
	ASSERT_RESIDENCY(&self->dev, p + 2 * self->ps, 2, UVM_STATE_GPU(self->dst));
	ASSERT_RESIDENCY(&self->dev, p + 4 * self->ps, 2, UVM_STATE_CPU);
	ASSERT_EQ(self->vidmem_src + UVM_VA_BLOCK_SIZE, uvm_vidmem_used(self->dev.fd, self->src));
	ASSERT_EQ(self->vidmem_dst + UVM_VA_BLOCK_SIZE, uvm_vidmem_used(self->dev.fd, self->dst));

	/* Everything to the source GPU: the destination's chunk is freed. */
	ASSERT_EQ(0, uvm_launch1(self->dev.fd, self->src, 2, uvm_op_read(p, len, 8, NULL), NULL));
	ASSERT_RESIDENCY(&self->dev, p, n, UVM_STATE_GPU(self->src));
	ASSERT_EQ(self->vidmem_dst, uvm_vidmem_used(self->dev.fd, self->dst));
	ASSERT_EQ(-1, uvm_pattern_mismatch(p, 2 * self->ps, 1));
	ASSERT_EQ(-1, uvm_pattern_mismatch(p + 2 * self->ps, 2 * self->ps, 2));
	ASSERT_EQ(0x0909090909090909ULL, *(uint64_t *)(p + 5 * self->ps));
	ASSERT_EQ(0, munmap(p, len));
	ASSERT_EQ(self->vidmem_src, uvm_vidmem_wait(self->dev.fd, self->src, self->vidmem_src));
}

/* ABI limits of a launch, at and just past each one */
FIXTURE(limits) {
	struct uvm_dev dev;
	uint64_t ps;
};

FIXTURE_SETUP(limits)
{
	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, 1);
	self->ps = self->dev.page_size;
}

FIXTURE_TEARDOWN(limits)
{
	uvm_dev_teardown(&self->dev);
}

/* Data buffers of exactly UVM_TEST_MAX_DATA bytes work; 8 more over two ops is -E2BIG */
TEST_F_TIMEOUT(limits, data_max, 120)
{
	const uint64_t len = UVM_TEST_MAX_DATA, stride = UVM_MIB;
	uint8_t *p = uvm_mmap(&self->dev, len), *buf = malloc(len);
	struct uvm_test_gpu_op ops[2];
	uint64_t k;

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_NE(NULL, buf);
	for (k = 0; k < len / stride; k++)
		*(uint64_t *)(p + k * stride) = k + 1;
	memset(buf, 0xcc, len);
	/* A strided read: 64 accesses, a 64 MiB buffer, gaps kept. */
	ops[0] = uvm_op_read(p, len, 8, buf);
	ops[0].stride = stride;
	ASSERT_EQ(0, uvm_launch(self->dev.fd, 0, 4, ops, 1, NULL));
	for (k = 0; k < len / stride; k++) {
		ASSERT_EQ(k + 1, *(uint64_t *)(buf + k * stride));
		ASSERT_EQ(0xccccccccccccccccULL, *(uint64_t *)(buf + k * stride + 8));
	}
	/* Two ops whose buffers together pass the limit by 8 bytes. */
	ops[0].length = len / 2 + 8;
	ops[1] = ops[0];
	ops[1].length = len / 2;
	ASSERT_EQ(-E2BIG, uvm_launch(self->dev.fd, 0, 4, ops, 2, NULL));
	ASSERT_EQ(0, munmap(p, len));
	free(buf);
}

/*
 * UVM_TEST_MAX_WARPS warps and UVM_TEST_MAX_OPS ops in one launch: op 0
 * gives each of the 1024 warps one word of two pages, the other ops add to
 * word 0 one after the other; every word exact
 */
TEST_F_TIMEOUT(limits, max_warps_and_ops, 120)
{
	struct uvm_test_gpu_op *ops = calloc(UVM_TEST_MAX_OPS, sizeof(*ops));
	const uint64_t len = 2 * self->ps;
	uint64_t *p = uvm_mmap(&self->dev, len);
	unsigned int k;

	ASSERT_NE(NULL, ops);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ((uint64_t)UVM_TEST_MAX_WARPS, len / 8);
	ops[0] = uvm_op_atomic(p, len, 1);
	for (k = 1; k < UVM_TEST_MAX_OPS; k++)
		ops[k] = uvm_op_atomic(p, 8, 1);
	ASSERT_EQ(0, uvm_launch(self->dev.fd, 0, UVM_TEST_MAX_WARPS, ops, UVM_TEST_MAX_OPS, NULL));
	ASSERT_EQ((uint64_t)UVM_TEST_MAX_OPS, p[0]);
	for (k = 1; k < len / 8; k++)
		ASSERT_EQ(1ULL, p[k]) TH_LOG("word %u", k);
	ASSERT_EQ(0, munmap(p, len));
	free(ops);
}

/*
 * Concurrency: several threads launch at once on every GPU.  Threads never
 * assert; they record their results for the test to check.
 */
struct launcher {
	pthread_t thread;
	int fd;
	uint32_t gpu, warps, iters;
	uint8_t *mem;
	uint64_t len;
	uint64_t value;		/* pattern seed base or atomic addend */
	uint64_t stride;	/* if not 0: stride and access size of every op */
	uint32_t access_size;
	bool atomic;
	int ret;		/* first launch error */
	unsigned int bad_checksums;
};

static void *launcher_main(void *arg)
{
	struct launcher *t = arg;
	struct uvm_test_gpu_op ops[2];
	uint32_t it;

	for (it = 0; it < t->iters && !t->ret; it++) {
		if (t->atomic) {
			ops[0] = uvm_op_random(uvm_op_atomic(t->mem, t->len, t->value), it);
			ops[1] = uvm_op_atomic(t->mem, t->len, t->value);
			if (t->stride) {
				ops[0].stride = ops[1].stride = t->stride;
				ops[0].access_size = ops[1].access_size = t->access_size;
			}
			t->ret = uvm_launch(t->fd, t->gpu, t->warps, ops, 2, NULL);
			continue;
		}
		ops[0] = uvm_op_random(uvm_op_pattern(t->mem, t->len, t->value + it), it);
		ops[1] = uvm_op_read(t->mem, t->len, 8, NULL);
		t->ret = uvm_launch(t->fd, t->gpu, t->warps, ops, 2, NULL);
		if (!t->ret && ops[1].checksum !=
		    uvm_pattern_checksum(t->mem, t->len, t->value + it))
			t->bad_checksums++;
	}
	return NULL;
}

FIXTURE(concurrent) {
	struct uvm_dev dev;
	uint64_t ps;
	struct launcher t[6];
};

FIXTURE_SETUP(concurrent)
{
	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, 1);
	self->ps = self->dev.page_size;
}

FIXTURE_TEARDOWN(concurrent)
{
	uvm_dev_teardown(&self->dev);
}

static int run_launchers(struct launcher *t, unsigned int n)
{
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = pthread_create(&t[i].thread, NULL, launcher_main, &t[i]);
		if (ret)
			return -ret;
	}
	for (i = 0; i < n; i++)
		pthread_join(t[i].thread, NULL);
	return 0;
}

/* Six threads on all GPUs, each on its own pages of one range: all data exact */
TEST_F_TIMEOUT(concurrent, disjoint_ranges, 120)
{
	const unsigned int nt = 6;
	const uint64_t per = 4 * self->ps, len = nt * per;
	uint8_t *p = uvm_mmap(&self->dev, len);
	unsigned int i;

	ASSERT_NE(MAP_FAILED, p);
	for (i = 0; i < nt; i++)
		self->t[i] = (struct launcher){
			.fd = self->dev.fd, .gpu = i % self->dev.num_gpus, .warps = 4,
			.iters = 3, .mem = p + i * per, .len = per, .value = 1000 * i,
		};
	ASSERT_EQ(0, run_launchers(self->t, nt));
	for (i = 0; i < nt; i++) {
		ASSERT_EQ(0, self->t[i].ret) TH_LOG("thread %u", i);
		ASSERT_EQ(0U, self->t[i].bad_checksums) TH_LOG("thread %u", i);
		ASSERT_EQ(-1, uvm_pattern_mismatch(p + i * per, per, 1000 * i + 2))
			TH_LOG("thread %u", i);
	}
	ASSERT_EQ(0, munmap(p, len));
}

/* Four threads add atomically to the same pages from every GPU: no update is lost */
TEST_F_TIMEOUT(concurrent, overlapping_atomics, 120)
{
	const unsigned int nt = 4, iters = 4;
	const uint64_t len = 4 * self->ps, words = len / 8;
	uint64_t *p = uvm_mmap(&self->dev, len), i, total = 0;
	unsigned int k;

	ASSERT_NE(MAP_FAILED, p);
	for (i = 0; i < words; i++)
		p[i] = i;
	for (k = 0; k < nt; k++) {
		self->t[k] = (struct launcher){
			.fd = self->dev.fd, .gpu = k % self->dev.num_gpus, .warps = 8,
			.iters = iters, .mem = (uint8_t *)p, .len = len, .value = k + 1,
			.atomic = true,
		};
		total += 2 * iters * (k + 1);
	}
	ASSERT_EQ(0, run_launchers(self->t, nt));
	for (k = 0; k < nt; k++)
		ASSERT_EQ(0, self->t[k].ret) TH_LOG("thread %u", k);
	for (i = 0; i < words; i++)
		ASSERT_EQ(i + total, p[i]) TH_LOG("word %llu", (unsigned long long)i);
	ASSERT_EQ(0, munmap(p, len));
}

/* The CPU works on some pages of a block while GPUs work on the others: both exact */
TEST_F_TIMEOUT(concurrent, cpu_and_gpus_share_a_block, 120)
{
	const uint64_t half = 8 * self->ps, len = 2 * half;
	uint8_t *p = uvm_mmap_block_aligned(&self->dev, len);
	uint64_t *cpu, round;
	unsigned int i, k;

	ASSERT_NE(MAP_FAILED, p);
	cpu = (uint64_t *)(p + half);
	for (k = 0; k < 2; k++)
		self->t[k] = (struct launcher){
			.fd = self->dev.fd, .gpu = k % self->dev.num_gpus, .warps = 2,
			.iters = 8, .mem = p + k * half / 2, .len = half / 2, .value = 500 * k,
		};
	for (k = 0; k < 2; k++)
		ASSERT_EQ(0, pthread_create(&self->t[k].thread, NULL, launcher_main, &self->t[k]));
	for (round = 0; round < 50; round++) {
		for (i = 0; i < half / 8; i += 61)
			cpu[i] = round * 1000003 + i;
		for (i = 0; i < half / 8; i += 61)
			if (cpu[i] != round * 1000003 + i)
				break;
		if (i < half / 8)
			break;
	}
	for (k = 0; k < 2; k++)
		pthread_join(self->t[k].thread, NULL);
	ASSERT_EQ(50ULL, round);
	for (k = 0; k < 2; k++) {
		ASSERT_EQ(0, self->t[k].ret) TH_LOG("thread %u", k);
		ASSERT_EQ(0U, self->t[k].bad_checksums) TH_LOG("thread %u", k);
		ASSERT_EQ(-1, uvm_pattern_mismatch(p + k * half / 2, half / 2, 500 * k + 7));
	}
	ASSERT_EQ(0, munmap(p, len));
}

/*
 * The CPU adds atomically to the first word of each page while GPUs add to
 * every word of the same pages: pages move on every access, no update lost
 */
TEST_F_TIMEOUT(concurrent, cpu_and_gpu_atomics_same_words, 120)
{
	const uint64_t n = 4, len = n * self->ps, words = len / 8;
	const unsigned int cpu_adds = 400, nt = 2, iters = 3;
	uint64_t *p = uvm_mmap(&self->dev, len), i, gpu_total = 0;
	unsigned int k;

	ASSERT_NE(MAP_FAILED, p);
	for (i = 0; i < words; i++)
		p[i] = i;
	for (k = 0; k < nt; k++) {
		self->t[k] = (struct launcher){
			.fd = self->dev.fd, .gpu = k % self->dev.num_gpus, .warps = 4,
			.iters = iters, .mem = (uint8_t *)p, .len = len, .value = 1, .atomic = true,
		};
		gpu_total += 2 * iters;
		ASSERT_EQ(0, pthread_create(&self->t[k].thread, NULL, launcher_main, &self->t[k]));
	}
	for (k = 0; k < cpu_adds; k++)
		__atomic_add_fetch(&p[(k % n) * (self->ps / 8)], 1000, __ATOMIC_SEQ_CST);
	for (k = 0; k < nt; k++)
		pthread_join(self->t[k].thread, NULL);
	for (k = 0; k < nt; k++)
		ASSERT_EQ(0, self->t[k].ret) TH_LOG("thread %u", k);
	for (i = 0; i < words; i++) {
		uint64_t cpu = i % (self->ps / 8) ? 0 : 1000ULL * cpu_adds / n;

		ASSERT_EQ(i + gpu_total + cpu, p[i]) TH_LOG("word %llu", (unsigned long long)i);
	}
	ASSERT_EQ(0, munmap(p, len));
}

/*
 * False sharing: the CPU stores to word 0 of each page while GPUs add to
 * words 1..511 of the same pages (strided ops); neither side's writes are
 * lost in the migrations
 */
TEST_F_TIMEOUT(concurrent, false_sharing_cpu_gpu, 120)
{
	const uint64_t n = 4, len = n * self->ps, wpp = self->ps / 8;
	const unsigned int rounds = 300, iters = 3;
	uint64_t *p = uvm_mmap(&self->dev, len), i;
	unsigned int k, r, bad = 0;

	ASSERT_NE(MAP_FAILED, p);
	memset(p, 0, len);
	for (k = 0; k < 2; k++) {
		self->t[k] = (struct launcher){
			.fd = self->dev.fd, .gpu = k % self->dev.num_gpus, .warps = 2,
			.iters = iters, .mem = (uint8_t *)(p + 1), .len = len - 8, .value = 1,
			.stride = self->ps, .access_size = self->ps - 8, .atomic = true,
		};
		ASSERT_EQ(0, pthread_create(&self->t[k].thread, NULL, launcher_main, &self->t[k]));
	}
	for (r = 1; r <= rounds; r++) {
		for (i = 0; i < n; i++)
			*(volatile uint64_t *)&p[i * wpp] = r;
		for (i = 0; i < n; i++)
			bad += *(volatile uint64_t *)&p[i * wpp] != r;
	}
	for (k = 0; k < 2; k++)
		pthread_join(self->t[k].thread, NULL);
	for (k = 0; k < 2; k++)
		ASSERT_EQ(0, self->t[k].ret) TH_LOG("thread %u", k);
	ASSERT_EQ(0U, bad);
	for (i = 0; i < len / 8; i++) {
		uint64_t want = i % wpp ? 2 * 2 * iters : rounds;

		ASSERT_EQ(want, p[i]) TH_LOG("word %llu", (unsigned long long)i);
	}
	ASSERT_EQ(0, munmap(p, len));
}

/*
 * fault_service_threads: one GPU's batch spread over several workers.  The
 * suite runs once with the default (1) and once as fault_threads (4); the
 * per-GPU sysfs counters fault_batches_parallel and fault_groups_helped say
 * whether helpers serviced blocks.
 */
#define THREADS		"fault_service_threads"
#define PER_THREAD	"fault_service_faults_per_thread"

static int param_get(const char *name, unsigned int *val)
{
	char path[128];
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), UVM_PARAM_DIR "%s", name);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	ret = fscanf(f, "%u", val) == 1 ? 0 : -EINVAL;
	fclose(f);
	return ret;
}

static uint64_t gpu_counter(uint32_t gpu, const char *name)
{
	unsigned long long v = 0;
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), UVM_SYSFS_GPU_FMT, gpu, name);
	f = fopen(path, "r");
	if (!f)
		return UINT64_MAX;
	if (fscanf(f, "%llu", &v) != 1)
		v = UINT64_MAX;
	fclose(f);
	return v;
}

FIXTURE(parallel) {
	struct uvm_dev dev;
	uint64_t ps;
	unsigned int threads;	/* the parameters when the test started */
	unsigned int per_thread;
};

FIXTURE_SETUP(parallel)
{
	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, 1);
	self->ps = self->dev.page_size;
	ASSERT_EQ(0, param_get(THREADS, &self->threads));
	ASSERT_EQ(0, param_get(PER_THREAD, &self->per_thread));
}

FIXTURE_TEARDOWN(parallel)
{
	char val[16];

	snprintf(val, sizeof(val), "%u", self->threads);
	uvm_param_write(THREADS, val);
	snprintf(val, sizeof(val), "%u", self->per_thread);
	uvm_param_write(PER_THREAD, val);
	uvm_dev_teardown(&self->dev);
}

/*
 * 256 warps read 8 CPU-written pages in each of 32 blocks, then write a
 * pattern over them: exact bytes, residency and counters; the batches'
 * parallel servicing is returned.  The module spreads only batches of at
 * least 16 distinct faults per worker: with 256 warps most are.
 */
static void many_blocks(struct __test_metadata *_metadata,
			FIXTURE_DATA(parallel) *self,
			uint64_t *par, uint64_t *helped)
{
	const uint64_t nblocks = 32, per_block = 8, block = 2 * UVM_MIB;
	const uint64_t len = nblocks * block, stride = block / per_block;
	const uint64_t npages = nblocks * per_block, value = 0x5eed;
	uint64_t k, sum = 0, par0, helped0;
	struct uvm_counters before, d;
	struct uvm_test_launch l;
	struct uvm_test_gpu_op op;
	uint8_t *p, *out, *ref;
	unsigned int t, per;

	p = uvm_mmap_block_aligned(&self->dev, len);
	ASSERT_NE(MAP_FAILED, p);
	out = malloc(len);
	ref = malloc(npages * self->ps);
	ASSERT_NE(NULL, out);
	ASSERT_NE(NULL, ref);
	for (k = 0; k < npages; k++) {
		uvm_random_fill(ref + k * self->ps, self->ps, k + 1);
		memcpy(p + k * stride, ref + k * self->ps, self->ps);
		sum += uvm_checksum(ref + k * self->ps, p + k * stride, self->ps);
	}

	par0 = gpu_counter(0, "fault_batches_parallel");
	helped0 = gpu_counter(0, "fault_groups_helped");
	ASSERT_NE(UINT64_MAX, par0);
	ASSERT_NE(UINT64_MAX, helped0);
	op = uvm_op_random(uvm_op_read(p, len, self->ps, out), 7);
	op.stride = stride;
	ASSERT_EQ(0, uvm_counters(self->dev.fd, &before));
	ASSERT_EQ(0, uvm_launch(self->dev.fd, 0, 256, &op, 1, &l));
	d = counters_settle(self->dev.fd, &before, l.faults_raised);
	ASSERT_EQ(sum, op.checksum);
	for (k = 0; k < npages; k++)
		ASSERT_EQ(-1, uvm_memcmp_at(out + k * stride, ref + k * self->ps, self->ps))
			TH_LOG("page %llu", (unsigned long long)k);
	ASSERT_EQ(l.faults_raised, d.c[UVM_COUNTER_GPU_FAULTS]);
	ASSERT_LE(npages, d.c[UVM_COUNTER_GPU_FAULTS] - d.c[UVM_COUNTER_GPU_FAULTS_DUP]);
	ASSERT_EQ(d.c[UVM_COUNTER_GPU_FAULT_BATCHES], d.c[UVM_COUNTER_GPU_REPLAYS]);
	ASSERT_EQ(npages, d.c[UVM_COUNTER_PAGES_H2D]);
	ASSERT_EQ(npages * self->ps, d.c[UVM_COUNTER_BYTES_H2D]);
	ASSERT_EQ(npages, d.c[UVM_COUNTER_GPU_PAGES_MAPPED]);
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_GPU_FATAL_FAULTS]);
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_PAGES_D2H] + d.c[UVM_COUNTER_PAGES_D2D]);
	for (k = 0; k < npages; k++)
		ASSERT_RESIDENCY(&self->dev, p + k * stride, 1, UVM_STATE_GPU(0));

	/* Writes to the GPU's own copies: no copy, no fatal fault. */
	op = uvm_op_random(uvm_op_pattern(p, len, value), 8);
	op.stride = stride;
	op.access_size = self->ps;
	ASSERT_EQ(0, uvm_counters(self->dev.fd, &before));
	ASSERT_EQ(0, uvm_launch(self->dev.fd, 0, 256, &op, 1, &l));
	d = counters_settle(self->dev.fd, &before, l.faults_raised);
	ASSERT_EQ(l.faults_raised, d.c[UVM_COUNTER_GPU_FAULTS]);
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_PAGES_H2D] + d.c[UVM_COUNTER_PAGES_D2D]);
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_GPU_FATAL_FAULTS]);
	*par = gpu_counter(0, "fault_batches_parallel") - par0;
	*helped = gpu_counter(0, "fault_groups_helped") - helped0;
	for (k = 0; k < npages; k++)
		ASSERT_RESIDENCY(&self->dev, p + k * stride, 1, UVM_STATE_GPU(0));
	/* The CPU reads bring the pages back. */
	for (k = 0; k < npages; k++)
		ASSERT_EQ(-1, uvm_pattern_mismatch(p + k * stride, self->ps, value))
			TH_LOG("page %llu", (unsigned long long)k);
	ASSERT_EQ(0, munmap(p, len));
	free(ref);
	free(out);
	ASSERT_EQ(0, param_get(THREADS, &t));
	ASSERT_EQ(0, param_get(PER_THREAD, &per));
	TH_LOG("threads=%u faults_per_thread=%u: %llu parallel batches, %llu groups helped",
	       t, per, (unsigned long long)*par, (unsigned long long)*helped);
}

/*
 * Faults in many blocks: with the parameter above 1 (and batches big enough
 * for it) helpers serviced some of them, and each helper started services a
 * group, so helped >= parallel batches; with 1, no helper ran.
 */
TEST_F(parallel, many_blocks)
{
	uint64_t par, helped;

	many_blocks(_metadata, self, &par, &helped);
	if (self->threads > 1 && self->per_thread == 1) {
		ASSERT_LT(0ULL, par);
		ASSERT_LE(par, helped);
	} else if (self->threads == 1) {
		ASSERT_EQ(0ULL, par);
		ASSERT_EQ(0ULL, helped);
	}
}

/*
 * Changed at run time, the parameters take effect (helpers allocated then);
 * batches smaller than faults_per_thread per worker are not spread.
 */
TEST_F_TIMEOUT(parallel, changed_at_run_time, 120)
{
	uint64_t par, helped;

	ASSERT_EQ(0, uvm_param_write(THREADS, "3"));
	ASSERT_EQ(0, uvm_param_write(PER_THREAD, "1"));
	many_blocks(_metadata, self, &par, &helped);
	ASSERT_LT(0ULL, par);
	ASSERT_LE(par, helped);
	ASSERT_EQ(0, uvm_param_write(PER_THREAD, "4096"));
	many_blocks(_metadata, self, &par, &helped);
	ASSERT_EQ(0ULL, par);
	ASSERT_EQ(0ULL, helped);
	ASSERT_EQ(0, uvm_param_write(PER_THREAD, "1"));
	ASSERT_EQ(0, uvm_param_write(THREADS, "1"));
	many_blocks(_metadata, self, &par, &helped);
	ASSERT_EQ(0ULL, par);
	ASSERT_EQ(0ULL, helped);
}

/* In bounds accepted, anything else refused and the value kept */
TEST_F(parallel, param_bounds)
{
	static const char *const bad_threads[] = { "0", "17", "-1", "4096", "x" };
	static const char *const bad_per[] = { "0", "4097", "-1", "x" };
	unsigned int i, v;

	for (i = 0; i < sizeof(bad_threads) / sizeof(bad_threads[0]); i++) {
		ASSERT_EQ(-EINVAL, uvm_param_write(THREADS, bad_threads[i]))
			TH_LOG("'%s'", bad_threads[i]);
		ASSERT_EQ(0, param_get(THREADS, &v));
		ASSERT_EQ(self->threads, v);
	}
	for (i = 0; i < sizeof(bad_per) / sizeof(bad_per[0]); i++) {
		ASSERT_EQ(-EINVAL, uvm_param_write(PER_THREAD, bad_per[i]))
			TH_LOG("'%s'", bad_per[i]);
		ASSERT_EQ(0, param_get(PER_THREAD, &v));
		ASSERT_EQ(self->per_thread, v);
	}
	ASSERT_EQ(0, uvm_param_write(THREADS, "16"));
	ASSERT_EQ(0, param_get(THREADS, &v));
	ASSERT_EQ(16U, v);
	ASSERT_EQ(0, uvm_param_write(THREADS, "1"));
	ASSERT_EQ(0, param_get(THREADS, &v));
	ASSERT_EQ(1U, v);
	ASSERT_EQ(0, uvm_param_write(PER_THREAD, "4096"));
	ASSERT_EQ(0, param_get(PER_THREAD, &v));
	ASSERT_EQ(4096U, v);
}

TEST_HARNESS_MAIN
