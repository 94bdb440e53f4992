// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * managed - managed memory created by mmap() of /dev/uvm.
 *
 * Sizes (one page, odd sizes rounded up, 2 MiB, several blocks, 1 GiB
 * sparse), the mappings the driver refuses, CPU-only use (zeros on first
 * touch, data kept, residency and counters after CPU faults), partial munmap
 * and mremap, mprotect, fork (children do not inherit managed ranges), and
 * the lifetime of ranges holding GPU-resident data.
 */
#include <sys/statvfs.h>

#include "kselftest_harness.h"
#include "uvm_test_util.h"

FIXTURE(managed) {
	struct uvm_dev dev;
	uint64_t ps;
};

FIXTURE_SETUP(managed)
{
	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, 0);
	self->ps = self->dev.page_size;
}

FIXTURE_TEARDOWN(managed)
{
	uvm_dev_teardown(&self->dev);
}

/* Write a distinct word at the start and end of each page. */
static void stamp_pages(uint8_t *p, uint64_t npages, uint64_t ps, uint64_t seed)
{
	uint64_t i;

	for (i = 0; i < npages; i++) {
		*(volatile uint64_t *)(p + i * ps) = seed + i;
		*(volatile uint64_t *)(p + i * ps + ps - 8) = ~(seed + i);
	}
}

/* Index of the first page whose stamp is wrong, or -1. */
static long stamp_mismatch(const uint8_t *p, uint64_t first, uint64_t end,
			   uint64_t ps, uint64_t seed)
{
	uint64_t i;

	for (i = first; i < end; i++) {
		if (*(const volatile uint64_t *)(p + i * ps) != seed + i ||
		    *(const volatile uint64_t *)(p + i * ps + ps - 8) != ~(seed + i))
			return (long)i;
	}
	return -1;
}

/* One page: untouched state is empty, a CPU write populates and maps it */
TEST_F(managed, one_page)
{
	struct uvm_counters before, after, d;
	uint8_t *p = uvm_mmap(&self->dev, self->ps);

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_RESIDENCY(&self->dev, p, 1, UVM_STATE_NONE);
	ASSERT_EQ(0, uvm_counters(self->dev.fd, &before));
	p[100] = 0x5a;
	ASSERT_EQ(0, uvm_counters(self->dev.fd, &after));
	d = uvm_counters_delta(&before, &after);
	ASSERT_EQ(1ULL, d.c[UVM_COUNTER_CPU_FAULTS]);
	ASSERT_EQ(1ULL, d.c[UVM_COUNTER_PAGES_POPULATED_CPU]);
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_PAGES_H2D] + d.c[UVM_COUNTER_PAGES_D2H]);
	ASSERT_RESIDENCY(&self->dev, p, 1, UVM_STATE_CPU);
	ASSERT_EQ(0x5a, p[100]);
	ASSERT_EQ(-1, uvm_nonzero_at(p, 100));
	ASSERT_EQ(-1, uvm_nonzero_at(p + 101, self->ps - 101));
	ASSERT_EQ(0, munmap(p, self->ps));
	ASSERT_RESIDENCY(&self->dev, p, 1, UVM_STATE_NONE);
}

/* A size that is not a page multiple is rounded up to whole pages */
TEST_F(managed, odd_size_rounded_up)
{
	uint64_t len = 3 * self->ps + 123;
	uint8_t *p = uvm_mmap(&self->dev, len);
	struct uvm_test_page_state st[5];

	ASSERT_NE(MAP_FAILED, p);
	/* The last byte of the fourth page exists and is managed. */
	p[4 * self->ps - 1] = 0xee;
	p[0] = 0x11;
	ASSERT_EQ(0, uvm_residency(self->dev.fd, p, 5 * self->ps, st));
	ASSERT_EQ(UVM_CPU_BIT, st[0].resident);
	ASSERT_EQ(0ULL, st[1].resident | st[2].resident);
	ASSERT_EQ(UVM_CPU_BIT, st[3].resident);
	ASSERT_EQ(0ULL, st[4].resident | st[4].mapped_read);
	ASSERT_EQ(0xee, p[4 * self->ps - 1]);
	ASSERT_EQ(0x11, p[0]);
	ASSERT_EQ(0, munmap(p, len));
}

/* A 2 MiB range: only the touched pages are populated */
TEST_F(managed, two_mib_sparse_touch)
{
	uint64_t npages = UVM_VA_BLOCK_SIZE / self->ps;
	struct uvm_counters before, after;
	struct uvm_test_page_state *st = calloc(npages, sizeof(*st));
	uint8_t *p = uvm_mmap(&self->dev, UVM_VA_BLOCK_SIZE);
	uint64_t i, resident = 0;

	ASSERT_NE(NULL, st);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, uvm_counters(self->dev.fd, &before));
	p[0] = 1;
	p[UVM_VA_BLOCK_SIZE / 2] = 2;
	p[UVM_VA_BLOCK_SIZE - 1] = 3;
	ASSERT_EQ(0, uvm_counters(self->dev.fd, &after));
	ASSERT_EQ(3ULL, after.c[UVM_COUNTER_PAGES_POPULATED_CPU] -
			before.c[UVM_COUNTER_PAGES_POPULATED_CPU]);
	ASSERT_EQ(0, uvm_residency(self->dev.fd, p, UVM_VA_BLOCK_SIZE, st));
	for (i = 0; i < npages; i++)
		resident += st[i].resident == UVM_CPU_BIT;
	ASSERT_EQ(3ULL, resident);
	ASSERT_EQ(UVM_CPU_BIT, st[npages / 2].resident);
	ASSERT_EQ(UVM_CPU_BIT, st[npages - 1].resident);
	ASSERT_EQ(1, p[0]);
	ASSERT_EQ(2, p[UVM_VA_BLOCK_SIZE / 2]);
	ASSERT_EQ(3, p[UVM_VA_BLOCK_SIZE - 1]);
	ASSERT_EQ(0, munmap(p, UVM_VA_BLOCK_SIZE));
	free(st);
}

/* A range over several 2 MiB blocks, unaligned: every page keeps its data */
TEST_F(managed, multi_block)
{
	uint64_t len = 3 * UVM_VA_BLOCK_SIZE + self->ps, npages = len / self->ps;
	uint8_t *p = uvm_mmap(&self->dev, len);

	ASSERT_NE(MAP_FAILED, p);
	stamp_pages(p, npages, self->ps, 0x1000);
	ASSERT_EQ(-1, stamp_mismatch(p, 0, npages, self->ps, 0x1000));
	ASSERT_RESIDENCY(&self->dev, p, npages, UVM_STATE_CPU);
	ASSERT_EQ(0, munmap(p, len));
	ASSERT_RESIDENCY(&self->dev, p, npages, UVM_STATE_NONE);
}

/* 1 GiB mapped, three pages touched: only they are populated, the rest costs nothing */
TEST_F(managed, large_sparse)
{
	uint64_t len = UVM_GIB;
	struct uvm_counters c;
	uint8_t *p = uvm_mmap(&self->dev, len);

	ASSERT_NE(MAP_FAILED, p);
	p[0] = 0xa1;
	p[len / 2 + 12345] = 0xa2;
	p[len - 1] = 0xa3;
	ASSERT_EQ(0, uvm_counters(self->dev.fd, &c));
	ASSERT_EQ(3ULL, c.c[UVM_COUNTER_PAGES_POPULATED_CPU]);
	ASSERT_EQ(3ULL, c.c[UVM_COUNTER_CPU_FAULTS]);
	ASSERT_RESIDENCY(&self->dev, p, 1, UVM_STATE_CPU);
	ASSERT_RESIDENCY(&self->dev, p + len / 2, 1, UVM_STATE_NONE);
	ASSERT_RESIDENCY(&self->dev, p + len / 2 + 3 * self->ps, 1, UVM_STATE_CPU);
	ASSERT_RESIDENCY(&self->dev, p + len / 2 + 4 * self->ps, 1, UVM_STATE_NONE);
	ASSERT_RESIDENCY(&self->dev, p + len - self->ps, 1, UVM_STATE_CPU);
	ASSERT_EQ(0xa1, p[0]);
	ASSERT_EQ(0xa2, p[len / 2 + 12345]);
	ASSERT_EQ(0xa3, p[len - 1]);
	/* A page never touched reads as zeros, and now is populated. */
	ASSERT_EQ(-1, uvm_nonzero_at(p + len / 4, self->ps));
	ASSERT_EQ(0, munmap(p, len));
}

/* MAP_PRIVATE, PROT_EXEC and non-zero offsets are refused with EINVAL */
TEST_F(managed, bad_mappings)
{
	struct statvfs sv;
	int exec_err;
	void *p;

	p = mmap(NULL, self->ps, PROT_READ | PROT_WRITE, MAP_PRIVATE, self->dev.fd, 0);
	ASSERT_EQ(MAP_FAILED, p);
	ASSERT_EQ(EINVAL, errno);

	/* On a noexec /dev the VFS refuses PROT_EXEC (EPERM) before the driver. */
	ASSERT_EQ(0, statvfs(UVM_DEV_PATH, &sv));
	exec_err = sv.f_flag & ST_NOEXEC ? EPERM : EINVAL;
	p = mmap(NULL, self->ps, PROT_READ | PROT_EXEC, MAP_SHARED, self->dev.fd, 0);
	ASSERT_EQ(MAP_FAILED, p);
	ASSERT_EQ(exec_err, errno);
	p = mmap(NULL, self->ps, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_SHARED,
		 self->dev.fd, 0);
	ASSERT_EQ(MAP_FAILED, p);
	ASSERT_EQ(exec_err, errno);

	p = mmap(NULL, self->ps, PROT_READ | PROT_WRITE, MAP_SHARED, self->dev.fd,
		 (off_t)self->ps);
	ASSERT_EQ(MAP_FAILED, p);
	ASSERT_EQ(EINVAL, errno);
	p = mmap(NULL, self->ps, PROT_READ | PROT_WRITE, MAP_SHARED, self->dev.fd,
		 (off_t)UVM_VA_BLOCK_SIZE);
	ASSERT_EQ(MAP_FAILED, p);
	ASSERT_EQ(EINVAL, errno);

	/* None of them left a managed range or counted anything. */
	{
		struct uvm_counters c;

		ASSERT_EQ(0, uvm_counters(self->dev.fd, &c));
		ASSERT_EQ(0ULL, c.c[UVM_COUNTER_CPU_FAULTS]);
	}
}

/* mprotect cannot add PROT_EXEC to a managed range (EACCES) */
TEST_F(managed, mprotect_exec_refused)
{
	uint8_t *p = uvm_mmap(&self->dev, self->ps);

	ASSERT_NE(MAP_FAILED, p);
	p[0] = 9;
	ASSERT_EQ(-1, mprotect(p, self->ps, PROT_READ | PROT_EXEC));
	ASSERT_EQ(EACCES, errno);
	ASSERT_EQ(9, p[0]);
	ASSERT_EQ(0, munmap(p, self->ps));
}

/* Every byte of never-touched memory reads as zero */
TEST_F(managed, first_touch_zeros)
{
	uint64_t len = 16 * self->ps;
	uint8_t *p = uvm_mmap(&self->dev, len);
	struct uvm_counters c;

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(-1, uvm_nonzero_at(p, len));
	ASSERT_EQ(0, uvm_counters(self->dev.fd, &c));
	ASSERT_EQ(16ULL, c.c[UVM_COUNTER_PAGES_POPULATED_CPU]);
	ASSERT_EQ(16ULL, c.c[UVM_COUNTER_CPU_FAULTS]);
	ASSERT_EQ(0, munmap(p, len));
}

/* CPU-only use: random bytes, then word patterns, read back exactly */
TEST_F(managed, cpu_patterns)
{
	uint64_t len = 64 * self->ps;
	uint8_t *p = uvm_mmap(&self->dev, len), *ref = malloc(len);

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_NE(NULL, ref);
	uvm_random_fill(ref, len, 42);
	memcpy(p, ref, len);
	ASSERT_EQ(-1, uvm_memcmp_at(p, ref, len));
	uvm_pattern_fill(p, p, len, 0xfeedULL);
	ASSERT_EQ(-1, uvm_pattern_mismatch(p, len, 0xfeedULL));
	ASSERT_RESIDENCY(&self->dev, p, 64, UVM_STATE_CPU);
	ASSERT_EQ(0, munmap(p, len));
	free(ref);
}

/* A PROT_READ range maps read-only; mprotect to RW then writes map it writable */
TEST_F(managed, read_only_then_writable)
{
	uint8_t *p = mmap(NULL, self->ps, PROT_READ, MAP_SHARED, self->dev.fd, 0);

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, p[5]);
	ASSERT_RESIDENCY(&self->dev, p, 1, uvm_state(UVM_CPU_BIT, UVM_CPU_BIT, 0, 0));
	ASSERT_EQ(SIGSEGV, uvm_touch_signal(p, true));
	ASSERT_EQ(0, p[5]);
	ASSERT_EQ(0, mprotect(p, self->ps, PROT_READ | PROT_WRITE));
	p[5] = 0x77;
	ASSERT_RESIDENCY(&self->dev, p, 1, UVM_STATE_CPU);
	ASSERT_EQ(0x77, p[5]);
	ASSERT_EQ(0, munmap(p, self->ps));
}

/* Partial munmap: which pages go, given as variants */
FIXTURE(munmap_part) {
	struct uvm_dev dev;
	uint64_t ps;
	uint8_t *p;
};

FIXTURE_VARIANT(munmap_part) {
	unsigned int first;	/* first page unmapped, of 8 */
	unsigned int count;	/* pages unmapped */
};

FIXTURE_VARIANT_ADD(munmap_part, head) { .first = 0, .count = 3 };
FIXTURE_VARIANT_ADD(munmap_part, tail) { .first = 5, .count = 3 };
FIXTURE_VARIANT_ADD(munmap_part, middle) { .first = 3, .count = 2 };
FIXTURE_VARIANT_ADD(munmap_part, one_page_hole) { .first = 1, .count = 1 };

FIXTURE_SETUP(munmap_part)
{
	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, 0);
	self->ps = self->dev.page_size;
	self->p = uvm_mmap(&self->dev, 8 * self->ps);
	ASSERT_NE(MAP_FAILED, self->p);
	stamp_pages(self->p, 8, self->ps, 0xabc0);
}

FIXTURE_TEARDOWN(munmap_part)
{
	uvm_dev_teardown(&self->dev);
}

/* The unmapped pages are gone (state empty, SIGSEGV); the others keep their data */
TEST_F(munmap_part, rest_intact)
{
	uint8_t *hole = self->p + variant->first * self->ps;
	unsigned int end = variant->first + variant->count;

	ASSERT_EQ(0, munmap(hole, variant->count * self->ps));
	ASSERT_RESIDENCY(&self->dev, hole, variant->count, UVM_STATE_NONE);
	ASSERT_EQ(SIGSEGV, uvm_touch_signal(hole, false));
	ASSERT_EQ(SIGSEGV, uvm_touch_signal(hole + variant->count * self->ps - 1, true));
	ASSERT_EQ(-1, stamp_mismatch(self->p, 0, variant->first, self->ps, 0xabc0));
	ASSERT_EQ(-1, stamp_mismatch(self->p, end, 8, self->ps, 0xabc0));
	if (variant->first) {
		ASSERT_RESIDENCY(&self->dev, self->p, variant->first, UVM_STATE_CPU);
		ASSERT_EQ(0, munmap(self->p, variant->first * self->ps));
	}
	if (end < 8) {
		ASSERT_RESIDENCY(&self->dev, self->p + end * self->ps, 8 - end, UVM_STATE_CPU);
		ASSERT_EQ(0, munmap(self->p + end * self->ps, (8 - end) * self->ps));
	}
	ASSERT_RESIDENCY(&self->dev, self->p, 8, UVM_STATE_NONE);
}

/* The hole can be mapped again (managed, MAP_FIXED) and reads as zeros */
TEST_F(munmap_part, remap_hole)
{
	uint8_t *hole = self->p + variant->first * self->ps, *q;
	unsigned int end = variant->first + variant->count;

	ASSERT_EQ(0, munmap(hole, variant->count * self->ps));
	q = mmap(hole, variant->count * self->ps, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED, self->dev.fd, 0);
	ASSERT_EQ(hole, q);
	ASSERT_EQ(-1, uvm_nonzero_at(q, variant->count * self->ps));
	stamp_pages(q, variant->count, self->ps, 0x9900);
	ASSERT_EQ(-1, stamp_mismatch(self->p, 0, variant->first, self->ps, 0xabc0));
	ASSERT_EQ(-1, stamp_mismatch(self->p, end, 8, self->ps, 0xabc0));
	ASSERT_EQ(-1, stamp_mismatch(q, 0, variant->count, self->ps, 0x9900));
	ASSERT_RESIDENCY(&self->dev, self->p, 8, UVM_STATE_CPU);
	ASSERT_EQ(0, munmap(self->p, 8 * self->ps));
}

/* mremap cannot move a range (EINVAL) nor grow it (EFAULT); data stays */
TEST_F(managed, mremap_move_and_grow_refused)
{
	uint64_t len = 4 * self->ps;
	uint8_t *p = uvm_mmap(&self->dev, len);
	void *dst = uvm_unmapped_address(8 * self->ps), *q;

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_NE(NULL, dst);
	stamp_pages(p, 4, self->ps, 0x3300);

	q = mremap(p, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, dst);
	ASSERT_EQ(MAP_FAILED, q);
	ASSERT_EQ(EINVAL, errno);
	q = mremap(p, len, 8 * self->ps, MREMAP_MAYMOVE);
	ASSERT_EQ(MAP_FAILED, q);
	ASSERT_EQ(EFAULT, errno);
	q = mremap(p, len, 8 * self->ps, 0);
	ASSERT_EQ(MAP_FAILED, q);
	ASSERT_EQ(EFAULT, errno);

	ASSERT_EQ(-1, stamp_mismatch(p, 0, 4, self->ps, 0x3300));
	ASSERT_RESIDENCY(&self->dev, p, 4, UVM_STATE_CPU);
	/* Nothing was left managed at the destination. */
	ASSERT_RESIDENCY(&self->dev, dst, 4, UVM_STATE_NONE);
	ASSERT_EQ(0, munmap(p, len));
}

/*
 * A refused move onto registered host memory leaves the registration alone:
 * MREMAP_FIXED unmaps the destination, the copy of the VMA it made there is
 * closed, and that close must not free what lies at the new address (it
 * did: a WARN, the registration gone from the VA space and its pages
 * pinned for good)
 */
TEST_F(managed, mremap_onto_registered_host_memory)
{
	uint64_t len = 4 * self->ps, id = 0;
	uint8_t *p = uvm_mmap(&self->dev, len), *host;
	struct uvm_ioc_pointer_info info;
	int64_t pins0 = uvm_pins_outstanding();
	void *q;

	ASSERT_NE(MAP_FAILED, p);
	if (pins0 == INT64_MIN)
		UVM_SKIP("no /sys/class/misc/uvm/pinned_pages");
	host = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, host);
	memset(host, 0x5a, len);
	ASSERT_EQ(0, uvm_host_register(self->dev.fd, host, len, 0, &id));
	ASSERT_EQ(pins0 + 4, uvm_pins_outstanding());
	stamp_pages(p, 4, self->ps, 0x7700);

	q = mremap(p, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, host);
	ASSERT_EQ(MAP_FAILED, q);
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-1, stamp_mismatch(p, 0, 4, self->ps, 0x7700));

	/* The registration is still there, pinned, and unregisters normally. */
	ASSERT_EQ(0, uvm_pointer_info(self->dev.fd, host, &info));
	ASSERT_EQ(UVM_POINTER_HOST, info.flags);
	ASSERT_EQ(id, info.buffer_id);
	ASSERT_EQ(pins0 + 4, uvm_pins_outstanding());
	ASSERT_EQ(0, uvm_host_unregister(self->dev.fd, host));
	ASSERT_EQ(pins0, uvm_pins_outstanding());
	ASSERT_RESIDENCY(&self->dev, p, 4, UVM_STATE_CPU);
	ASSERT_EQ(0, munmap(p, len));
}

/* mremap shrinking in place is a partial munmap of the tail */
TEST_F(managed, mremap_shrink)
{
	uint64_t len = 4 * self->ps;
	uint8_t *p = uvm_mmap(&self->dev, len), *q;

	ASSERT_NE(MAP_FAILED, p);
	stamp_pages(p, 4, self->ps, 0x4400);
	q = mremap(p, len, self->ps, 0);
	ASSERT_EQ(p, q);
	ASSERT_EQ(-1, stamp_mismatch(p, 0, 1, self->ps, 0x4400));
	ASSERT_RESIDENCY(&self->dev, p, 1, UVM_STATE_CPU);
	ASSERT_RESIDENCY(&self->dev, p + self->ps, 3, UVM_STATE_NONE);
	ASSERT_EQ(SIGSEGV, uvm_touch_signal(p + self->ps, false));
	ASSERT_EQ(0, munmap(p, self->ps));
}

/* In the child the range's addresses are free: a MAP_FIXED_NOREPLACE mmap gets them */
static int child_map_noreplace(void *addr)
{
	void *q = mmap(addr, 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	return q == addr ? 0 : 1;
}

/* A fork child does not inherit the range: touching it is SIGSEGV; parent keeps data */
TEST_F(managed, fork_child_sigsegv)
{
	uint64_t len = 2 * self->ps;
	uint8_t *p = uvm_mmap(&self->dev, len);
	struct uvm_counters before, after;

	ASSERT_NE(MAP_FAILED, p);
	p[0] = 0x61;
	p[self->ps] = 0x62;
	ASSERT_EQ(0, uvm_counters(self->dev.fd, &before));
	ASSERT_EQ(UVM_CHILD_SIGNALED(SIGSEGV), uvm_child_read(p));
	ASSERT_EQ(UVM_CHILD_SIGNALED(SIGSEGV), uvm_child_write(p + self->ps));
	ASSERT_EQ(0, uvm_run_child(child_map_noreplace, p));
	ASSERT_EQ(0, uvm_counters(self->dev.fd, &after));
	ASSERT_EQ(0, memcmp(&before, &after, sizeof(before)));
	ASSERT_EQ(0x61, p[0]);
	ASSERT_EQ(0x62, p[self->ps]);
	ASSERT_RESIDENCY(&self->dev, p, 2, UVM_STATE_CPU);
	ASSERT_EQ(0, munmap(p, len));
}

/*
 * madvise(MADV_DOFORK) clears VM_DONTCOPY.  Whether or not the driver
 * refuses it, a fork child that touches the range and exits must leave the
 * parent's range exactly as it was: still managed, same data, GPU-readable.
 */
static int child_read_and_exit(void *addr)
{
	uvm_touch_signal(addr, false);
	return 0;
}

/* A fork child after MADV_DOFORK: its exit leaves the parent's range intact */
TEST_F(managed, madv_dofork_child_exit)
{
	uint64_t len = 2 * self->ps;
	uint8_t *p = uvm_mmap(&self->dev, len), out[16];
	struct uvm_test_gpu_op op;

	ASSERT_NE(MAP_FAILED, p);
	p[0] = 0x11;
	p[self->ps] = 0x22;
	if (madvise(p, len, MADV_DOFORK))
		ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(0, uvm_run_child(child_read_and_exit, p));
	ASSERT_RESIDENCY(&self->dev, p, 2, UVM_STATE_CPU);
	ASSERT_EQ(0x11, p[0]);
	ASSERT_EQ(0x22, p[self->ps]);
	if (self->dev.num_gpus) {
		memset(out, 0, sizeof(out));
		op = uvm_op_read(p + self->ps, sizeof(out), 8, out);
		ASSERT_EQ(0, uvm_launch(self->dev.fd, 0, 1, &op, 1, NULL));
		ASSERT_EQ(0x22, out[0]);
	}
	ASSERT_EQ(0, munmap(p, len));
}

/* mprotect splits a range in three; munmap of each piece frees exactly that piece */
TEST_F(managed, mprotect_split_then_munmap)
{
	uint64_t len = 6 * self->ps;
	uint8_t *p = uvm_mmap(&self->dev, len);

	ASSERT_NE(MAP_FAILED, p);
	stamp_pages(p, 6, self->ps, 0x7700);
	ASSERT_EQ(0, mprotect(p + 2 * self->ps, 2 * self->ps, PROT_READ));
	ASSERT_EQ(-1, stamp_mismatch(p, 0, 6, self->ps, 0x7700));
	ASSERT_EQ(SIGSEGV, uvm_touch_signal(p + 2 * self->ps, true));
	ASSERT_EQ(0, munmap(p + 2 * self->ps, 2 * self->ps));
	ASSERT_RESIDENCY(&self->dev, p + 2 * self->ps, 2, UVM_STATE_NONE);
	ASSERT_RESIDENCY(&self->dev, p, 2, UVM_STATE_CPU);
	ASSERT_RESIDENCY(&self->dev, p + 4 * self->ps, 2, UVM_STATE_CPU);
	ASSERT_EQ(-1, stamp_mismatch(p, 0, 2, self->ps, 0x7700));
	ASSERT_EQ(-1, stamp_mismatch(p, 4, 6, self->ps, 0x7700));
	ASSERT_EQ(0, munmap(p, len));
	ASSERT_RESIDENCY(&self->dev, p, 6, UVM_STATE_NONE);
}

/* MAP_FIXED over the middle of a range replaces it with a new, zero-filled range */
TEST_F(managed, mmap_fixed_over_existing)
{
	uint64_t len = 6 * self->ps;
	uint8_t *p = uvm_mmap(&self->dev, len), *q;

	ASSERT_NE(MAP_FAILED, p);
	stamp_pages(p, 6, self->ps, 0x8800);
	q = mmap(p + 2 * self->ps, 2 * self->ps, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
		 self->dev.fd, 0);
	ASSERT_EQ(p + 2 * self->ps, q);
	ASSERT_RESIDENCY(&self->dev, q, 2, UVM_STATE_NONE);
	ASSERT_EQ(-1, uvm_nonzero_at(q, 2 * self->ps));
	ASSERT_EQ(-1, stamp_mismatch(p, 0, 2, self->ps, 0x8800));
	ASSERT_EQ(-1, stamp_mismatch(p, 4, 6, self->ps, 0x8800));
	ASSERT_RESIDENCY(&self->dev, p, 6, UVM_STATE_CPU);
	ASSERT_EQ(0, munmap(p, len));
}

/* A 1 TiB range costs nothing until touched; touched pages anywhere work */
TEST_F(managed, huge_sparse_1tib)
{
	uint64_t len = 1024 * UVM_GIB;
	uint8_t *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE,
			  self->dev.fd, 0);
	struct uvm_counters c;

	ASSERT_NE(MAP_FAILED, p);
	p[0] = 1;
	p[len / 3] = 2;
	p[len - 1] = 3;
	ASSERT_EQ(0, uvm_counters(self->dev.fd, &c));
	ASSERT_EQ(3ULL, c.c[UVM_COUNTER_PAGES_POPULATED_CPU]);
	ASSERT_EQ(1, p[0]);
	ASSERT_EQ(2, p[len / 3]);
	ASSERT_EQ(3, p[len - 1]);
	ASSERT_RESIDENCY(&self->dev, p + len - self->ps, 1, UVM_STATE_CPU);
	ASSERT_EQ(0, munmap(p, len));
	ASSERT_RESIDENCY(&self->dev, p + len - self->ps, 1, UVM_STATE_NONE);
}

/* Many small ranges at once, each with its own data; half unmapped, half intact */
TEST_F(managed, many_mappings)
{
	enum { N = 256 };
	uint8_t *p[N];
	unsigned int i;

	for (i = 0; i < N; i++) {
		p[i] = uvm_mmap(&self->dev, (1 + i % 3) * self->ps);
		ASSERT_NE(MAP_FAILED, p[i]);
		*(volatile uint32_t *)p[i] = 0xc0de0000 + i;
	}
	for (i = 0; i < N; i += 2)
		ASSERT_EQ(0, munmap(p[i], (1 + i % 3) * self->ps));
	for (i = 1; i < N; i += 2) {
		ASSERT_EQ(0xc0de0000 + i, *(volatile uint32_t *)p[i]);
		ASSERT_RESIDENCY(&self->dev, p[i], 1, UVM_STATE_CPU);
	}
	for (i = 0; i < N; i += 2)
		ASSERT_RESIDENCY(&self->dev, p[i], 1, UVM_STATE_NONE);
	for (i = 1; i < N; i += 2)
		ASSERT_EQ(0, munmap(p[i], (1 + i % 3) * self->ps));
}

/* The mapping keeps the VA space alive after close(fd): CPU use goes on */
TEST_F(managed, close_fd_keeps_mapping)
{
	uint64_t len = 4 * self->ps;
	uint8_t *p = uvm_mmap(&self->dev, len);

	ASSERT_NE(MAP_FAILED, p);
	stamp_pages(p, 2, self->ps, 0x5500);
	uvm_dev_teardown(&self->dev);
	ASSERT_EQ(-1, stamp_mismatch(p, 0, 2, self->ps, 0x5500));
	/* Pages first touched after the close still populate with zeros. */
	ASSERT_EQ(-1, uvm_nonzero_at(p + 2 * self->ps, 2 * self->ps));
	stamp_pages(p + 2 * self->ps, 2, self->ps, 0x6600);
	ASSERT_EQ(-1, stamp_mismatch(p + 2 * self->ps, 0, 2, self->ps, 0x6600));
	ASSERT_EQ(0, munmap(p, len));
}

/* Ranges that hold GPU-resident data: munmap and close free the vidmem */
FIXTURE(managed_gpu) {
	struct uvm_dev dev;
	uint64_t ps;
	uint64_t vidmem0;	/* GPU 0's vidmem_used before the test */
};

FIXTURE_SETUP(managed_gpu)
{
	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, 1);
	self->ps = self->dev.page_size;
	self->vidmem0 = uvm_vidmem_used(self->dev.fd, 0);
	ASSERT_NE(UINT64_MAX, self->vidmem0);
}

FIXTURE_TEARDOWN(managed_gpu)
{
	uvm_dev_teardown(&self->dev);
}

/* munmap of a range resident on a GPU frees its vidmem; GPU access is then fatal */
TEST_F(managed_gpu, munmap_while_gpu_resident)
{
	uint64_t len = 8 * self->ps;
	uint8_t *p = uvm_mmap_block_aligned(&self->dev, len);
	struct uvm_test_launch l;
	struct uvm_test_gpu_op op;

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, uvm_launch1(self->dev.fd, 0, 4, uvm_op_pattern(p, len, 1), NULL));
	ASSERT_RESIDENCY(&self->dev, p, 8, UVM_STATE_GPU(0));
	ASSERT_EQ(self->vidmem0 + UVM_VA_BLOCK_SIZE, uvm_vidmem_used(self->dev.fd, 0));

	ASSERT_EQ(0, munmap(p, len));
	ASSERT_EQ(self->vidmem0, uvm_vidmem_wait(self->dev.fd, 0, self->vidmem0));
	ASSERT_RESIDENCY(&self->dev, p, 8, UVM_STATE_NONE);

	op = uvm_op_read(p, 8, 8, NULL);
	ASSERT_EQ(-EREMOTEIO, uvm_launch(self->dev.fd, 0, 1, &op, 1, &l));
	ASSERT_EQ((uintptr_t)p, l.fault_address);
	ASSERT_EQ((uint32_t)UVM_TEST_OP_READ, l.fault_access);
	ASSERT_EQ(0U, l.fault_op);
}

/* Partial munmap of a GPU-resident range: the rest stays on the GPU, intact */
TEST_F(managed_gpu, partial_munmap_while_gpu_resident)
{
	uint64_t len = 8 * self->ps;
	uint8_t *p = uvm_mmap_block_aligned(&self->dev, len);

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, uvm_launch1(self->dev.fd, 0, 4, uvm_op_pattern(p, len, 0x77), NULL));
	ASSERT_EQ(0, munmap(p + 2 * self->ps, 4 * self->ps));
	ASSERT_RESIDENCY(&self->dev, p, 2, UVM_STATE_GPU(0));
	ASSERT_RESIDENCY(&self->dev, p + 2 * self->ps, 4, UVM_STATE_NONE);
	ASSERT_RESIDENCY(&self->dev, p + 6 * self->ps, 2, UVM_STATE_GPU(0));
	ASSERT_EQ(self->vidmem0 + UVM_VA_BLOCK_SIZE, uvm_vidmem_used(self->dev.fd, 0));
	/* The CPU reads the rest back from the GPU. */
	ASSERT_EQ(-1, uvm_pattern_mismatch(p, 2 * self->ps, 0x77));
	ASSERT_EQ(-1, uvm_pattern_mismatch(p + 6 * self->ps, 2 * self->ps, 0x77));
	ASSERT_RESIDENCY(&self->dev, p, 2, UVM_STATE_CPU);
	/* Nothing is left on the GPU: its chunk is freed. */
	ASSERT_EQ(self->vidmem0, uvm_vidmem_used(self->dev.fd, 0));
	ASSERT_EQ(0, munmap(p, 2 * self->ps));
	ASSERT_EQ(0, munmap(p + 6 * self->ps, 2 * self->ps));
}

/* close(fd) with data on a GPU: the mapping still reads it back, munmap frees all */
TEST_F(managed_gpu, close_with_data_on_gpu)
{
	uint64_t len = 4 * self->ps;
	uint8_t *p = uvm_mmap(&self->dev, len);
	int fd = self->dev.fd;

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, uvm_launch1(fd, 0, 2, uvm_op_pattern(p, len, 0xc105e), NULL));
	uvm_dev_teardown(&self->dev);
	ASSERT_EQ(-1, uvm_pattern_mismatch(p, len, 0xc105e));
	ASSERT_EQ(0, munmap(p, len));

	/* A new VA space sees GPU 0's vidmem back where it was. */
	self->dev.fd = uvm_open();
	ASSERT_LE(0, self->dev.fd);
	ASSERT_EQ(self->vidmem0, uvm_vidmem_wait(self->dev.fd, 0, self->vidmem0));
}

/* close(fd) and munmap with the data still on the GPU free its vidmem */
TEST_F(managed_gpu, unmap_and_close_with_data_on_gpu)
{
	uint64_t len = UVM_VA_BLOCK_SIZE + 4 * self->ps;
	uint8_t *p = uvm_mmap_block_aligned(&self->dev, len);

	ASSERT_NE(MAP_FAILED, p);
	/* Two blocks touched: two chunks. */
	ASSERT_EQ(0, uvm_launch1(self->dev.fd, 0, 4,
				 uvm_op_pattern(p + UVM_VA_BLOCK_SIZE - 2 * self->ps,
						4 * self->ps, 3), NULL));
	ASSERT_EQ(self->vidmem0 + 2 * UVM_VA_BLOCK_SIZE, uvm_vidmem_used(self->dev.fd, 0));
	uvm_dev_teardown(&self->dev);
	ASSERT_EQ(0, munmap(p, len));
	self->dev.fd = uvm_open();
	ASSERT_LE(0, self->dev.fd);
	ASSERT_EQ(self->vidmem0, uvm_vidmem_wait(self->dev.fd, 0, self->vidmem0));
}

TEST_HARNESS_MAIN
