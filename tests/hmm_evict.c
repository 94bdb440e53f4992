// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * hmm_evict - device-private pages of pageable memory when vidmem is small.
 *
 * Run with vidmem_mb=8 (four 2 MiB chunks per GPU).  Pageable memory larger
 * than vidmem is written and read by GPUs: the oldest chunks are evicted to
 * system memory to make room, pages that find no room stay in system memory
 * and are mapped there, and no byte is ever lost; managed memory and VMM
 * allocations take vidmem back from them.  Needs device-private memory (the debug
 * kernels, Debian's 7.3); SKIPs elsewhere.
 */
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "uvm_test_util.h"

FIXTURE(evict) {
	struct uvm_dev dev;
	uint64_t ps;
	uint64_t vidmem;	/* bytes of vidmem of GPU 0 */
	uint64_t used0;		/* vidmem used before the test */
};

FIXTURE_SETUP(evict)
{
	struct uvm_ioc_gpu_info info;

	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, 1);
	if (!uvm_has_device_private(&self->dev))
		UVM_SKIP("no device-private memory: nothing to evict");
	self->ps = self->dev.page_size;
	ASSERT_EQ(0, uvm_gpu_info(self->dev.fd, 0, &info));
	self->vidmem = info.vidmem_size;
	self->used0 = info.vidmem_used;
	if (self->vidmem > 16 * UVM_MIB)
		UVM_SKIP("needs a small vidmem (vidmem_mb=8), GPU 0 has %llu MiB",
			 (unsigned long long)(self->vidmem / UVM_MIB));
}

FIXTURE_TEARDOWN(evict)
{
	uvm_param_write("hmm_evict_pause_ms", "0");	/* a failed test's */
	uvm_dev_teardown(&self->dev);
}

/* Pages of [p, +npages) resident on GPU @g, or -1 when the query fails. */
static long gpu_resident_pages(int fd, const void *p, uint64_t npages, uint64_t ps,
			       uint32_t g)
{
	struct uvm_test_page_state *st = calloc(npages, sizeof(*st));
	long n = 0;
	uint64_t i;

	if (!st || uvm_residency_flags(fd, p, npages * ps, st, UVM_TEST_RESIDENCY_PAGEABLE)) {
		free(st);
		return -1;
	}
	for (i = 0; i < npages; i++)
		n += !!(st[i].resident & UVM_GPU_BIT(g));
	free(st);
	return n;
}

/*
 * Fill @ref and the pageable memory at @p with the same @len random bytes
 * (@seed), then prefetch @p to GPU 0.  Return: the prefetch's result.
 */
static int fill_and_prefetch(int fd, uint8_t *p, uint8_t *ref, uint64_t len, uint64_t seed)
{
	uvm_random_fill(ref, len, seed);
	memcpy(p, ref, len);
	return uvm_prefetch(fd, p, len, UVM_LOC_GPU(0));
}

/* Three times vidmem written by a GPU: all of it correct, vidmem never exceeded */
TEST_F_TIMEOUT(evict, write_three_times_vidmem, 300)
{
	uint64_t len = 3 * self->vidmem, npages = len / self->ps;
	uint8_t *p = uvm_mmap_anon_aligned(len, PROT_READ | PROT_WRITE);
	struct uvm_test_gpu_op op;
	long on_gpu;

	ASSERT_NE(MAP_FAILED, p);
	op = uvm_op_pattern(p, len, 77);
	ASSERT_EQ(0, uvm_launch(self->dev.fd, 0, 8, &op, 1, NULL));
	ASSERT_GE(self->vidmem, uvm_vidmem_used(self->dev.fd, 0));
	on_gpu = gpu_resident_pages(self->dev.fd, p, npages, self->ps, 0);
	TH_LOG("%ld of %llu pages on GPU 0", on_gpu, (unsigned long long)npages);
	ASSERT_LT(0, on_gpu);
	ASSERT_GE((long)(self->vidmem / self->ps), on_gpu);
	ASSERT_EQ(-1, uvm_pattern_mismatch(p, len, 77));
	ASSERT_EQ(0, munmap(p, len));
	ASSERT_EQ(self->used0, uvm_vidmem_wait(self->dev.fd, 0, self->used0));
}

/* Reads cycling over twice vidmem return exact checksums every time */
TEST_F_TIMEOUT(evict, read_cycles, 300)
{
	uint64_t len = 2 * self->vidmem;
	uint8_t *p = uvm_mmap_anon_aligned(len, PROT_READ | PROT_WRITE);
	struct uvm_test_gpu_op op;
	int round;

	ASSERT_NE(MAP_FAILED, p);
	uvm_random_fill(p, len, 5);
	for (round = 0; round < 3; round++) {
		op = uvm_op_read(p, len, 64, NULL);
		ASSERT_EQ(0, uvm_launch(self->dev.fd, 0, 8, &op, 1, NULL));
		ASSERT_EQ(uvm_checksum(p, p, len), op.checksum) TH_LOG("round %d", round);
	}
	ASSERT_GE(self->vidmem, uvm_vidmem_used(self->dev.fd, 0));
	munmap(p, len);
}

/* A prefetch larger than vidmem succeeds: what fits moves, the rest is mapped */
TEST_F_TIMEOUT(evict, prefetch_beyond_vidmem, 300)
{
	uint64_t len = 2 * self->vidmem, npages = len / self->ps, faults = 1;
	uint8_t *p = uvm_mmap_anon_aligned(len, PROT_READ | PROT_WRITE);
	uint8_t *out = malloc(len), *ref = malloc(len);

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_NE(NULL, out);
	ASSERT_NE(NULL, ref);
	ASSERT_EQ(0, fill_and_prefetch(self->dev.fd, p, ref, len, 11));
	ASSERT_LT(0, gpu_resident_pages(self->dev.fd, p, npages, self->ps, 0));
	ASSERT_EQ(0, uvm_gpu_read(self->dev.fd, 0, p, len, out, &faults));
	ASSERT_EQ(-1, uvm_memcmp_at(out, ref, len));
	ASSERT_CPU_READ(p, len, ref);
	free(out);
	free(ref);
	munmap(p, len);
}

/*
 * Vidmem full of pageable memory's device pages: a GPU's writes to managed
 * memory of the same size evict them (no fatal fault), and both keep their
 * bytes.
 */
TEST_F_TIMEOUT(evict, managed_evicts_pageable, 300)
{
	uint64_t len = self->vidmem, npages = len / self->ps;
	uint8_t *p = uvm_mmap_anon_aligned(len, PROT_READ | PROT_WRITE);
	uint8_t *m = uvm_mmap_block_aligned(&self->dev, len), *ref = malloc(len);
	struct uvm_test_gpu_op op;
	long before, after;

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_NE(MAP_FAILED, m);
	ASSERT_NE(NULL, ref);
	ASSERT_EQ(0, fill_and_prefetch(self->dev.fd, p, ref, len, 21));
	before = gpu_resident_pages(self->dev.fd, p, npages, self->ps, 0);
	TH_LOG("%ld of %llu pageable pages on GPU 0", before, (unsigned long long)npages);
	ASSERT_LT((long)(npages / 2), before);
	op = uvm_op_pattern(m, len, 31);
	ASSERT_EQ(0, uvm_launch(self->dev.fd, 0, 8, &op, 1, NULL));
	after = gpu_resident_pages(self->dev.fd, p, npages, self->ps, 0);
	TH_LOG("%ld pageable pages on GPU 0 after the managed writes", after);
	ASSERT_GT(before, after);
	ASSERT_GE(self->vidmem, uvm_vidmem_used(self->dev.fd, 0));
	ASSERT_EQ(-1, uvm_pattern_mismatch(m, len, 31));
	ASSERT_EQ(-1, uvm_memcmp_at(p, ref, len));
	free(ref);
	ASSERT_EQ(0, munmap(m, len));
	ASSERT_EQ(0, munmap(p, len));
	ASSERT_EQ(self->used0, uvm_vidmem_wait(self->dev.fd, 0, self->used0));
}

/*
 * Vidmem full of pageable memory's device pages: a VMM allocation
 * (MEM_CREATE) of half of it evicts them, and they keep their bytes.
 */
TEST_F_TIMEOUT(evict, vmm_evicts_pageable, 300)
{
	uint64_t len = self->vidmem, npages = len / self->ps, handle;
	uint8_t *p = uvm_mmap_anon_aligned(len, PROT_READ | PROT_WRITE), *ref = malloc(len);
	long before, after;

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_NE(NULL, ref);
	ASSERT_EQ(0, fill_and_prefetch(self->dev.fd, p, ref, len, 23));
	before = gpu_resident_pages(self->dev.fd, p, npages, self->ps, 0);
	ASSERT_LT((long)(npages / 2), before);
	ASSERT_EQ(0, uvm_mem_create(self->dev.fd, len / 2, UVM_LOC_GPU(0), 0, &handle));
	after = gpu_resident_pages(self->dev.fd, p, npages, self->ps, 0);
	TH_LOG("%ld pageable pages on GPU 0 before MEM_CREATE, %ld after", before, after);
	ASSERT_GE((long)(npages / 2), after);
	ASSERT_GE(self->vidmem, uvm_vidmem_used(self->dev.fd, 0));
	ASSERT_EQ(-1, uvm_memcmp_at(p, ref, len));
	free(ref);
	ASSERT_EQ(0, uvm_mem_release(self->dev.fd, handle));
	ASSERT_EQ(0, munmap(p, len));
	ASSERT_EQ(self->used0, uvm_vidmem_wait(self->dev.fd, 0, self->used0));
}

/* Another VA space's pages are evicted to make room, and keep their bytes */
TEST_F_TIMEOUT(evict, evicts_other_va_space, 300)
{
	uint64_t len = self->vidmem, npages = len / self->ps;
	uint8_t *a = uvm_mmap_anon_aligned(len, PROT_READ | PROT_WRITE);
	uint8_t *b = uvm_mmap_anon_aligned(len, PROT_READ | PROT_WRITE);
	struct uvm_test_gpu_op op;
	struct uvm_dev other;
	long before, after;

	ASSERT_NE(MAP_FAILED, a);
	ASSERT_NE(MAP_FAILED, b);
	uvm_dev_setup(&other, UVM_NEED_TEST_IOCTLS, 1);
	op = uvm_op_pattern(a, len, 1);
	ASSERT_EQ(0, uvm_launch(self->dev.fd, 0, 8, &op, 1, NULL));
	before = gpu_resident_pages(self->dev.fd, a, npages, self->ps, 0);
	op = uvm_op_pattern(b, len, 2);
	ASSERT_EQ(0, uvm_launch(other.fd, 0, 8, &op, 1, NULL));
	after = gpu_resident_pages(self->dev.fd, a, npages, self->ps, 0);
	TH_LOG("VA space A: %ld pages on GPU 0 before, %ld after", before, after);
	ASSERT_LT(after, before);
	ASSERT_LT(0, gpu_resident_pages(other.fd, b, npages, self->ps, 0));
	ASSERT_EQ(-1, uvm_pattern_mismatch(a, len, 1));
	ASSERT_EQ(-1, uvm_pattern_mismatch(b, len, 2));
	uvm_dev_teardown(&other);
	munmap(a, len);
	munmap(b, len);
}

/*
 * Two GPUs each oversubscribed by the same buffer, in turns, each way once
 * (every page migrates device to device through system memory, one round
 * trip of the fault path each, so more rounds only add time): data exact
 */
TEST_F_TIMEOUT(evict, two_gpus_ping_pong, 300)
{
	uint64_t len = 2 * self->vidmem;
	uint8_t *p = uvm_mmap_anon_aligned(len, PROT_READ | PROT_WRITE);
	struct uvm_test_gpu_op op;
	int round;

	if (self->dev.num_gpus < 2)
		UVM_SKIP("needs 2 GPUs");
	ASSERT_NE(MAP_FAILED, p);
	for (round = 0; round < 2; round++) {
		op = uvm_op_pattern(p, len, 100 + round);
		ASSERT_EQ(0, uvm_launch(self->dev.fd, round % 2, 8, &op, 1, NULL));
		op = uvm_op_read(p, len, 64, NULL);
		ASSERT_EQ(0, uvm_launch(self->dev.fd, (round + 1) % 2, 8, &op, 1, NULL));
		ASSERT_EQ(uvm_pattern_checksum(p, len, 100 + round), op.checksum);
	}
	ASSERT_EQ(-1, uvm_pattern_mismatch(p, len, 101));
	munmap(p, len);
}

/*
 * The child of unmap_during_eviction: fills GPU 0 with device pages of its
 * own mm, says so on @ready, and at the word on @go unmaps them 300 ms
 * later, while the parent's GPU work is evicting them.
 */
static int unmapper(uint64_t len, int ready, int go)
{
	struct uvm_test_gpu_op op;
	int fd = uvm_open();
	char c = 0;
	uint8_t *q;

	if (fd < 0)
		return 1;
	q = uvm_mmap_anon_aligned(len, PROT_READ | PROT_WRITE);
	if (q == MAP_FAILED)
		return 2;
	op = uvm_op_pattern(q, len, 31);
	if (uvm_launch(fd, 0, 8, &op, 1, NULL))
		return 3;
	if (write(ready, &c, 1) != 1 || read(go, &c, 1) != 1)
		return 4;
	usleep(300 * 1000);
	if (munmap(q, len))
		return 5;
	close(fd);
	return 0;
}

/*
 * A process unmaps its device pages in the middle of their eviction by
 * another process's GPU work (hmm_evict_pause_ms holds the eviction with
 * the pages collected).  Eviction holds the owner's mmap lock, so the
 * unmapping waits for it; it used to free the anon_vma that
 * migrate_device_finalize() then walked (KASAN: slab-use-after-free in
 * rmap_walk_anon, reported by the kernel check of the suite).
 */
TEST_F_TIMEOUT(evict, unmap_during_eviction, 300)
{
	uint64_t len = 2 * UVM_MIB;
	uint8_t *p = uvm_mmap_anon_aligned(len, PROT_READ | PROT_WRITE);
	struct uvm_test_gpu_op op;
	int ready[2], go[2], status;
	char c = 0;
	pid_t pid;

	if (access(UVM_PARAM_DIR "hmm_evict_pause_ms", W_OK))
		UVM_SKIP("no hmm_evict_pause_ms (a production build)");
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(unmapper(self->vidmem, ready[1], go[0]));
	ASSERT_EQ(1, read(ready[0], &c, 1));
	ASSERT_EQ(0, uvm_param_write("hmm_evict_pause_ms", "1000"));
	ASSERT_EQ(1, write(go[1], &c, 1));
	/* the GPU is full of the child's pages: this evicts one chunk of them */
	op = uvm_op_pattern(p, len, 32);
	ASSERT_EQ(0, uvm_launch(self->dev.fd, 0, 8, &op, 1, NULL));
	ASSERT_EQ(0, uvm_param_write("hmm_evict_pause_ms", "0"));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ(-1, uvm_pattern_mismatch(p, len, 32));
	ASSERT_EQ(0, munmap(p, len));
	ASSERT_EQ(self->used0, uvm_vidmem_wait(self->dev.fd, 0, self->used0));
}

TEST_HARNESS_MAIN
