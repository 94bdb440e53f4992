// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bigpage - 64 KiB and 2 MiB GPU mappings of managed memory.
 *
 * A block fully mapped by a GPU with one permission to one GPU's copy gets
 * one 2 MiB PTE; otherwise each full, uniform, aligned 64 KiB region gets a
 * 64 KiB PTE; the rest 4 KiB PTEs (UVM_TEST_RESIDENCY_PTE_SIZES reports
 * them).  A CPU touch, a discard, a partial munmap, an eviction or a
 * permission change of part of a big mapping splits it: the page concerned
 * leaves (or changes), every other page keeps its mapping with smaller PTEs
 * and the GPU still reads the exact bytes; a region that fills again is
 * promoted back.  The per-GPU sysfs counters maps_2m, maps_64k and
 * pte_splits count what happened.
 *
 * Runs with vidmem_mb=4 (two chunks per GPU) so that a third block evicts.
 */
#include "kselftest_harness.h"
#include "uvm_test_util.h"

#define BLOCK		(2 * UVM_MIB)
#define NBLOCKS		4
#define BLOCK_PAGES	512
#define REGION_PAGES	16
#define SZ64K		(64 * 1024ULL)

/**
 * pte_sizes() - the PTE size of every page of a range on one GPU
 * @fd:		the VA space
 * @addr:	page-aligned start
 * @npages:	pages
 * @gpu:	GPU index
 * @sizes:	out: per page 0 (unmapped), 4096, 65536 or 2 MiB
 *
 * Return: 0 or -errno of the residency ioctl.
 */
static int pte_sizes(int fd, const void *addr, uint64_t npages, uint32_t gpu,
		     uint64_t *sizes)
{
	struct uvm_test_page_state_sizes *st = calloc(npages, sizeof(*st));
	uint64_t bit = UVM_GPU_BIT(gpu), i;
	int ret;

	if (!st)
		return -ENOMEM;
	ret = uvm_residency_flags(fd, addr, npages * 4096,
				  (struct uvm_test_page_state *)st,
				  UVM_TEST_RESIDENCY_PTE_SIZES);
	for (i = 0; !ret && i < npages; i++) {
		if (!(st[i].state.mapped_read & bit))
			sizes[i] = 0;
		else if (st[i].mapped_2m & bit)
			sizes[i] = BLOCK;
		else if (st[i].mapped_64k & bit)
			sizes[i] = SZ64K;
		else
			sizes[i] = 4096;
	}
	free(st);
	return ret;
}

/* A sysfs counter of GPU @gpu, or UINT64_MAX when unreadable. */
static uint64_t gpu_counter(uint32_t gpu, const char *name)
{
	unsigned long long v;
	char path[128];
	FILE *f;
	int n;

	snprintf(path, sizeof(path), UVM_SYSFS_GPU_FMT, gpu, name);
	f = fopen(path, "r");
	if (!f)
		return UINT64_MAX;
	n = fscanf(f, "%llu", &v);
	fclose(f);
	return n == 1 ? v : UINT64_MAX;
}

FIXTURE(bigpage) {
	struct uvm_env e;
	uint8_t *p;		/* NBLOCKS blocks, 2 MiB aligned */
	uint64_t sizes[BLOCK_PAGES];
};

FIXTURE_SETUP(bigpage)
{
	uvm_env_setup(&self->e, NBLOCKS * BLOCK_PAGES, 1);
	/* The env's own range is not block aligned: use an aligned one. */
	self->p = uvm_mmap_block_aligned(&self->e.dev, NBLOCKS * BLOCK);
	ASSERT_NE(MAP_FAILED, self->p);
}

FIXTURE_TEARDOWN(bigpage)
{
	if (self->p && self->p != MAP_FAILED)
		munmap(self->p, NBLOCKS * BLOCK);
	uvm_env_teardown(&self->e);
}

/* Index of the first of pages [first, first + n) whose size is not @want, or -1. */
static long sizes_mismatch(const uint64_t *sizes, uint64_t first, uint64_t n,
			   uint64_t want)
{
	uint64_t i;

	for (i = first; i < first + n && i < BLOCK_PAGES; i++)
		if (sizes[i] != want)
			return (long)i;
	return -1;
}

/*
 * ASSERT that pages [first, first + n) of the block last read by READ_SIZES
 * have PTE size @want (0: unmapped).
 */
#define ASSERT_SIZES(first, n, want) do {						long __bad = sizes_mismatch(self->sizes, (first), (n), (want));			ASSERT_EQ(-1, __bad) {									TH_LOG("page %ld: PTE size %llu, want %llu", __bad,				       (unsigned long long)self->sizes[__bad & (BLOCK_PAGES - 1)], \
		       (unsigned long long)(want));					}									} while (0)

#define READ_SIZES(blk, gpu) \
	ASSERT_EQ(0, pte_sizes(self->e.dev.fd, (blk), BLOCK_PAGES, (gpu), self->sizes))

/* CPU fills block @blk with the reference bytes, then prefetches it to GPU @gpu. */
#define FILL_AND_PREFETCH(blk, gpu) do {					\
	memcpy((blk), self->e.ref, BLOCK);					\
	ASSERT_EQ(0, uvm_prefetch(self->e.dev.fd, (blk), BLOCK, UVM_LOC_GPU(gpu))); \
} while (0)

/* The residency query with PTE sizes is validated like the plain one. */
TEST_F(bigpage, query_flags)
{
	struct uvm_test_page_state_sizes st[2];
	struct uvm_test_residency args = {
		.address = (uintptr_t)self->p,
		.length = 2 * self->e.ps,
		.states_ptr = (uintptr_t)st,
		.flags = UVM_TEST_RESIDENCY_PTE_SIZES,
	};

	memset(st, 0xff, sizeof(st));
	ASSERT_EQ(0, uvm_ioctl(self->e.dev.fd, UVM_TEST_IOC_RESIDENCY, &args));
	/* Untouched: all zero, every field of the 48-byte entries written. */
	ASSERT_EQ(0, st[0].state.resident | st[0].mapped_64k | st[0].mapped_2m);
	ASSERT_EQ(0, st[1].state.mapped_read | st[1].mapped_64k | st[1].mapped_2m);
	args.flags = 1U << 2;
	ASSERT_EQ(-EINVAL, uvm_ioctl(self->e.dev.fd, UVM_TEST_IOC_RESIDENCY, &args));
	args.flags = UVM_TEST_RESIDENCY_PTE_SIZES;
	args.pad = 1;
	ASSERT_EQ(-EINVAL, uvm_ioctl(self->e.dev.fd, UVM_TEST_IOC_RESIDENCY, &args));
}

/* A GPU writing a whole block maps it with one 2 MiB PTE; bytes are exact. */
TEST_F(bigpage, gpu_touch_maps_2m)
{
	uint64_t before = gpu_counter(0, "maps_2m");

	ASSERT_NE(UINT64_MAX, before);
	ASSERT_GPU_WRITE(&self->e, 0, self->p, BLOCK, self->e.ref, UVM_ANY_FAULTS);
	READ_SIZES(self->p, 0);
	ASSERT_SIZES(0, BLOCK_PAGES, BLOCK);
	ASSERT_LT(before, gpu_counter(0, "maps_2m"));
	ASSERT_RESIDENCY(&self->e.dev, self->p, BLOCK_PAGES, UVM_STATE_GPU(0));
	/* Every 4 KiB page inside the 2 MiB PTE translates to its own page. */
	ASSERT_GPU_READ(&self->e, 0, self->p, BLOCK, self->e.ref, 0);
	/* The next block was not touched. */
	READ_SIZES(self->p + BLOCK, 0);
	ASSERT_SIZES(0, BLOCK_PAGES, 0);
	ASSERT_CPU_READ(self->p, BLOCK, self->e.ref);
}

/* A prefetch of a whole block maps 2 MiB; the GPU reads without faulting. */
TEST_F(bigpage, prefetch_maps_2m)
{
	FILL_AND_PREFETCH(self->p + BLOCK, 0);
	READ_SIZES(self->p + BLOCK, 0);
	ASSERT_SIZES(0, BLOCK_PAGES, BLOCK);
	ASSERT_GPU_READ(&self->e, 0, self->p + BLOCK, BLOCK, self->e.ref, 0);
}

/* 64 KiB-aligned prefetches map 64 KiB PTEs; partial regions map 4 KiB. */
TEST_F(bigpage, prefetch_maps_64k)
{
	uint64_t before = gpu_counter(0, "maps_64k");
	uint8_t *p = self->p;

	memcpy(p, self->e.ref, BLOCK);
	/* Regions 1-3 whole; pages 81-95 of region 5. */
	ASSERT_EQ(0, uvm_prefetch(self->e.dev.fd, p + SZ64K, 3 * SZ64K, UVM_LOC_GPU(0)));
	ASSERT_EQ(0, uvm_prefetch(self->e.dev.fd, p + 81 * 4096, 15 * 4096,
				  UVM_LOC_GPU(0)));
	READ_SIZES(p, 0);
	ASSERT_SIZES(0, 16, 0);
	ASSERT_SIZES(16, 48, SZ64K);
	ASSERT_SIZES(64, 17, 0);
	ASSERT_SIZES(81, 15, 4096);
	ASSERT_SIZES(96, BLOCK_PAGES - 96, 0);
	ASSERT_EQ(before + 3, gpu_counter(0, "maps_64k"));
	ASSERT_GPU_READ(&self->e, 0, p + SZ64K, 3 * SZ64K, self->e.ref + SZ64K, 0);
	ASSERT_GPU_READ(&self->e, 0, p + 81 * 4096, 15 * 4096, self->e.ref + 81 * 4096, 0);

	/* Page 80 completes region 5: promoted to 64 KiB. */
	ASSERT_EQ(0, uvm_prefetch(self->e.dev.fd, p + 80 * 4096, 4096, UVM_LOC_GPU(0)));
	READ_SIZES(p, 0);
	ASSERT_SIZES(80, 16, SZ64K);
	ASSERT_GPU_READ(&self->e, 0, p + 80 * 4096, SZ64K, self->e.ref + 80 * 4096, 0);
}

/*
 * A CPU touch of one page of a 2 MiB mapping splits it: that page leaves the
 * GPU, its region's other 15 pages keep 4 KiB PTEs, the other 31 regions
 * 64 KiB PTEs; all with the right bytes.  The GPU faulting the page back
 * promotes the block to 2 MiB again.
 */
TEST_F(bigpage, cpu_touch_splits)
{
	uint64_t splits = gpu_counter(0, "pte_splits");
	uint8_t *p = self->p;
	uint64_t faults = 0;

	FILL_AND_PREFETCH(p, 0);
	READ_SIZES(p, 0);
	ASSERT_SIZES(0, BLOCK_PAGES, BLOCK);

	/* The CPU writes page 100: it migrates to the CPU. */
	p[100 * 4096 + 7] ^= 0xff;
	self->e.ref[100 * 4096 + 7] ^= 0xff;
	READ_SIZES(p, 0);
	ASSERT_SIZES(0, 96, SZ64K);
	ASSERT_SIZES(96, 4, 4096);
	ASSERT_SIZES(100, 1, 0);
	ASSERT_SIZES(101, 11, 4096);
	ASSERT_SIZES(112, BLOCK_PAGES - 112, SZ64K);
	/* 2 MiB -> 64 KiB, then region 6 -> 4 KiB */
	ASSERT_EQ(splits + 2, gpu_counter(0, "pte_splits"));
	ASSERT_RESIDENCY(&self->e.dev, p + 100 * 4096, 1, UVM_STATE_CPU);
	ASSERT_RESIDENCY(&self->e.dev, p, 100, UVM_STATE_GPU(0));
	ASSERT_RESIDENCY(&self->e.dev, p + 101 * 4096, BLOCK_PAGES - 101,
			 UVM_STATE_GPU(0));

	/* Pages around the hole, then the whole block (page 100 faults back). */
	ASSERT_GPU_READ(&self->e, 0, p + 96 * 4096, 4 * 4096, self->e.ref + 96 * 4096, 0);
	ASSERT_GPU_READ(&self->e, 0, p + 101 * 4096, 11 * 4096,
			self->e.ref + 101 * 4096, 0);
	ASSERT_EQ(0, uvm_gpu_read(self->e.dev.fd, 0, p, BLOCK, self->e.out, &faults));
	ASSERT_EQ(-1, uvm_memcmp_at(self->e.out, self->e.ref, BLOCK));
	ASSERT_LE(1, faults);
	READ_SIZES(p, 0);
	ASSERT_SIZES(0, BLOCK_PAGES, BLOCK);
}

/* After a split, prefetching the block again re-promotes it to 2 MiB. */
TEST_F(bigpage, reprefetch_repromotes)
{
	uint8_t *p = self->p;

	FILL_AND_PREFETCH(p, 0);
	ASSERT_EQ(self->e.ref[5 * 4096], ((volatile uint8_t *)p)[5 * 4096]);
	READ_SIZES(p, 0);
	ASSERT_SIZES(5, 1, 0);
	ASSERT_SIZES(16, BLOCK_PAGES - 16, SZ64K);
	ASSERT_EQ(0, uvm_prefetch(self->e.dev.fd, p, BLOCK, UVM_LOC_GPU(0)));
	READ_SIZES(p, 0);
	ASSERT_SIZES(0, BLOCK_PAGES, BLOCK);
	ASSERT_GPU_READ(&self->e, 0, p, BLOCK, self->e.ref, 0);
}

/* Discarding part of a 2 MiB mapping: those pages leave, the rest stay. */
TEST_F(bigpage, discard_part)
{
	uint8_t *p = self->p;

	FILL_AND_PREFETCH(p, 0);
	/* Region 2 whole, and page 200 alone. */
	ASSERT_EQ(0, uvm_discard(self->e.dev.fd, p + 2 * SZ64K, SZ64K));
	ASSERT_EQ(0, uvm_discard(self->e.dev.fd, p + 200 * 4096, 4096));
	READ_SIZES(p, 0);
	ASSERT_SIZES(0, 32, SZ64K);
	ASSERT_SIZES(32, 16, 0);
	ASSERT_SIZES(48, 144, SZ64K);
	ASSERT_SIZES(192, 8, 4096);
	ASSERT_SIZES(200, 1, 0);
	ASSERT_SIZES(201, 7, 4096);
	ASSERT_SIZES(208, BLOCK_PAGES - 208, SZ64K);
	ASSERT_RESIDENCY(&self->e.dev, p + 2 * SZ64K, 16, UVM_STATE_NONE);

	/* Discarded pages read as zeros; the others keep their bytes. */
	memset(self->e.ref + 2 * SZ64K, 0, SZ64K);
	memset(self->e.ref + 200 * 4096, 0, 4096);
	ASSERT_GPU_READ(&self->e, 0, p, BLOCK, self->e.ref, UVM_ANY_FAULTS);
	READ_SIZES(p, 0);
	ASSERT_SIZES(0, BLOCK_PAGES, BLOCK);
}

/* munmap of half a 2 MiB-mapped block leaves the other half mapped. */
TEST_F(bigpage, munmap_half)
{
	uint8_t *p = self->p;

	FILL_AND_PREFETCH(p, 0);
	ASSERT_EQ(0, munmap(p + BLOCK / 2, BLOCK / 2));
	READ_SIZES(p, 0);
	ASSERT_SIZES(0, BLOCK_PAGES / 2, SZ64K);
	ASSERT_SIZES(BLOCK_PAGES / 2, BLOCK_PAGES / 2, 0);
	ASSERT_GPU_READ(&self->e, 0, p, BLOCK / 2, self->e.ref, 0);
	ASSERT_CPU_READ(p, BLOCK / 2, self->e.ref);
	/* Free the rest here: the teardown unmaps the whole range again. */
	ASSERT_EQ(0, munmap(p, BLOCK / 2));
	ASSERT_EQ(0, munmap(p + BLOCK, (NBLOCKS - 1) * BLOCK));
	self->p = NULL;
}

/*
 * Eviction: with two vidmem chunks, a third block evicts the first, whose
 * 2 MiB mapping goes; the data survives and maps 2 MiB again once back.
 */
TEST_F(bigpage, eviction)
{
	uint8_t *p = self->p;

	if (uvm_vidmem_used(self->e.dev.fd, 0) == UINT64_MAX)
		UVM_SKIP("no GPU info");
	FILL_AND_PREFETCH(p, 0);
	FILL_AND_PREFETCH(p + BLOCK, 0);
	READ_SIZES(p, 0);
	ASSERT_SIZES(0, BLOCK_PAGES, BLOCK);
	FILL_AND_PREFETCH(p + 2 * BLOCK, 0);
	READ_SIZES(p + 2 * BLOCK, 0);
	ASSERT_SIZES(0, BLOCK_PAGES, BLOCK);
	/* Block 0 was the least recently used: evicted, unmapped. */
	READ_SIZES(p, 0);
	ASSERT_SIZES(0, BLOCK_PAGES, 0);
	ASSERT_RESIDENCY(&self->e.dev, p, BLOCK_PAGES, uvm_state(UVM_CPU_BIT, 0, 0, 0));
	ASSERT_GPU_READ(&self->e, 0, p, BLOCK, self->e.ref, UVM_ANY_FAULTS);
	READ_SIZES(p, 0);
	ASSERT_SIZES(0, BLOCK_PAGES, BLOCK);
	ASSERT_GPU_READ(&self->e, 0, p + 2 * BLOCK, BLOCK, self->e.ref, UVM_ANY_FAULTS);
	ASSERT_CPU_READ(p + BLOCK, BLOCK, self->e.ref);
}

/*
 * Permission change inside a 2 MiB mapping: read-mostly, the CPU reads page
 * 0 and gets a copy, so the GPU's PTE of page 0 becomes read-only: region 0
 * splits to 4 KiB, the others keep 64 KiB -- still writable: a GPU write
 * there raises no fault.  A GPU write to page 0 collapses it back; the block
 * is 2 MiB again.
 */
TEST_F(bigpage, permission_downgrade)
{
	uint8_t *p = self->p, *src = self->e.out + BLOCK / 2;
	uint64_t faults = 0;

	FILL_AND_PREFETCH(p, 0);
	ASSERT_EQ(0, uvm_advise(self->e.dev.fd, p, BLOCK, UVM_ADVICE_SET_READ_MOSTLY,
				UVM_LOC_INVALID));
	ASSERT_EQ(self->e.ref[1], ((volatile uint8_t *)p)[1]);
	ASSERT_RESIDENCY(&self->e.dev, p, 1,
			 uvm_state(UVM_CPU_BIT | UVM_GPU_BIT(0),
				   UVM_CPU_BIT | UVM_GPU_BIT(0), 0, 0));
	ASSERT_RESIDENCY(&self->e.dev, p + 4096, BLOCK_PAGES - 1, UVM_STATE_GPU(0));
	READ_SIZES(p, 0);
	ASSERT_SIZES(0, 16, 4096);
	ASSERT_SIZES(16, BLOCK_PAGES - 16, SZ64K);
	ASSERT_GPU_READ(&self->e, 0, p, BLOCK, self->e.ref, 0);

	/* Pages 3 (4 KiB) and 20-31 (64 KiB) kept write permission. */
	memset(src, 0x77, 12 * 4096);
	ASSERT_GPU_WRITE(&self->e, 0, p + 3 * 4096, 4096, src, 0);
	ASSERT_GPU_WRITE(&self->e, 0, p + 20 * 4096, 12 * 4096, src, 0);
	memcpy(self->e.ref + 3 * 4096, src, 4096);
	memcpy(self->e.ref + 20 * 4096, src, 12 * 4096);

	memset(src, 0x3c, 4096);
	ASSERT_EQ(0, uvm_gpu_write(self->e.dev.fd, 0, p, 4096, src, &faults));
	ASSERT_LE(1, faults);
	memcpy(self->e.ref, src, 4096);
	ASSERT_RESIDENCY(&self->e.dev, p, BLOCK_PAGES, UVM_STATE_GPU(0));
	READ_SIZES(p, 0);
	ASSERT_SIZES(0, BLOCK_PAGES, BLOCK);
	ASSERT_GPU_READ(&self->e, 0, p, BLOCK, self->e.ref, 0);
	ASSERT_CPU_READ(p, BLOCK, self->e.ref);
}

/*
 * Read duplication on two GPUs: each maps its own read-only copy with a
 * 2 MiB PTE; a CPU write to one page revokes that page on both GPUs only.
 */
TEST_F(bigpage, read_duplication)
{
	uint8_t *p = self->p;
	uint32_t g;

	if (self->e.dev.num_gpus < 2)
		UVM_SKIP("needs 2 GPUs");
	memcpy(p, self->e.ref, BLOCK);
	ASSERT_EQ(0, uvm_advise(self->e.dev.fd, p, BLOCK, UVM_ADVICE_SET_READ_MOSTLY,
				UVM_LOC_INVALID));
	for (g = 0; g < 2; g++) {
		ASSERT_GPU_READ(&self->e, g, p, BLOCK, self->e.ref, UVM_ANY_FAULTS);
		READ_SIZES(p, g);
		ASSERT_SIZES(0, BLOCK_PAGES, BLOCK);
	}
	ASSERT_RESIDENCY(&self->e.dev, p, BLOCK_PAGES,
			 uvm_state(UVM_CPU_BIT | UVM_GPU_BIT(0) | UVM_GPU_BIT(1),
				   UVM_GPU_BIT(0) | UVM_GPU_BIT(1), 0, 0));

	p[300 * 4096] ^= 0x5a;
	self->e.ref[300 * 4096] ^= 0x5a;
	for (g = 0; g < 2; g++) {
		READ_SIZES(p, g);
		ASSERT_SIZES(0, 288, SZ64K);
		ASSERT_SIZES(288, 12, 4096);
		ASSERT_SIZES(300, 1, 0);
		ASSERT_SIZES(301, 3, 4096);
		ASSERT_SIZES(304, BLOCK_PAGES - 304, SZ64K);
		ASSERT_GPU_READ(&self->e, g, p, BLOCK, self->e.ref, UVM_ANY_FAULTS);
	}
}

/*
 * Accessed-by: GPU 1 maps GPU 0's copy (peer vidmem, contiguous) with a
 * 2 MiB PTE and reads the exact bytes through it without faulting.
 */
TEST_F(bigpage, peer_mapping_2m)
{
	uint8_t *p = self->p;

	if (self->e.dev.num_gpus < 2)
		UVM_SKIP("needs 2 GPUs");
	ASSERT_EQ(0, uvm_advise(self->e.dev.fd, p, BLOCK, UVM_ADVICE_SET_ACCESSED_BY,
				UVM_LOC_GPU(1)));
	FILL_AND_PREFETCH(p, 0);
	READ_SIZES(p, 1);
	ASSERT_SIZES(0, BLOCK_PAGES, BLOCK);
	ASSERT_GPU_READ(&self->e, 1, p, BLOCK, self->e.ref, 0);
	ASSERT_RESIDENCY(&self->e.dev, p, BLOCK_PAGES,
			 uvm_state(UVM_GPU_BIT(0), UVM_GPU_BIT(0) | UVM_GPU_BIT(1),
				   UVM_GPU_BIT(0) | UVM_GPU_BIT(1),
				   UVM_GPU_BIT(0) | UVM_GPU_BIT(1)));
}

/* Memory the CPU holds is mapped remotely with 4 KiB PTEs only. */
TEST_F(bigpage, sysmem_stays_4k)
{
	uint8_t *p = self->p;

	if (self->e.dev.num_gpus < 1)
		UVM_SKIP("needs a GPU");
	memcpy(p, self->e.ref, BLOCK);
	ASSERT_EQ(0, uvm_advise(self->e.dev.fd, p, BLOCK, UVM_ADVICE_SET_ACCESSED_BY,
				UVM_LOC_GPU(0)));
	ASSERT_EQ(0, uvm_prefetch(self->e.dev.fd, p, BLOCK, UVM_LOC_HOST));
	READ_SIZES(p, 0);
	ASSERT_SIZES(0, BLOCK_PAGES, 4096);
	ASSERT_GPU_READ(&self->e, 0, p, BLOCK, self->e.ref, 0);
}

/*
 * Device memory: a 2 MiB region wholly inside the range is one 2 MiB PTE, a
 * partial region at the end 64 KiB PTEs; peers map the same way.  Bytes are
 * exact through every size.
 */
TEST_F(bigpage, device_memory)
{
	uint64_t len = BLOCK + 2 * SZ64K, m2 = gpu_counter(0, "maps_2m");
	uint64_t m64 = gpu_counter(0, "maps_64k"), p2 = gpu_counter(1, "maps_2m");
	uint8_t *d;

	ASSERT_EQ(0, uvm_vidmem_wait(self->e.dev.fd, 0, 0));
	d = uvm_mmap_device_skewed(&self->e.dev, 0, len, 0);
	ASSERT_NE(MAP_FAILED, d);
	ASSERT_GPU_WRITE(&self->e, 0, d, len, self->e.ref, UVM_ANY_FAULTS);
	ASSERT_GPU_READ(&self->e, 0, d, len, self->e.ref, 0);
	ASSERT_EQ(m2 + 1, gpu_counter(0, "maps_2m"));
	ASSERT_EQ(m64 + 2, gpu_counter(0, "maps_64k"));
	if (self->e.dev.num_gpus > 1) {
		ASSERT_GPU_READ(&self->e, 1, d, len, self->e.ref, UVM_ANY_FAULTS);
		ASSERT_EQ(p2 + 1, gpu_counter(1, "maps_2m"));
	}
	ASSERT_EQ(0, munmap(d, len));
}

/* Device memory 4 KiB past a 2 MiB boundary: 64 KiB and 4 KiB PTEs only. */
TEST_F(bigpage, device_memory_skewed)
{
	uint64_t m2 = gpu_counter(0, "maps_2m"), m64 = gpu_counter(0, "maps_64k");
	uint8_t *d;

	ASSERT_EQ(0, uvm_vidmem_wait(self->e.dev.fd, 0, 0));
	d = uvm_mmap_device_skewed(&self->e.dev, 0, BLOCK, 4096);
	ASSERT_NE(MAP_FAILED, d);
	ASSERT_GPU_WRITE(&self->e, 0, d, BLOCK, self->e.ref, UVM_ANY_FAULTS);
	ASSERT_GPU_READ(&self->e, 0, d, BLOCK, self->e.ref, 0);
	/* [4K, 64K) 4 KiB; [64K, 2M) 31 x 64 KiB; [2M, 2M + 4K) 4 KiB */
	ASSERT_EQ(m2, gpu_counter(0, "maps_2m"));
	ASSERT_EQ(m64 + 31, gpu_counter(0, "maps_64k"));
	ASSERT_EQ(0, munmap(d, BLOCK));
}

TEST_HARNESS_MAIN
