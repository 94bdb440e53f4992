// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * memory_copy - copies of API 1.2 (UVM_IOC_COPY, UVM_IOC_COPY_3D and batches) through
 * the copy engines.
 *
 * Every pair of kinds of memory and both copy engines (variants): whole,
 * unaligned, tiny and asynchronous, 2D and 3D boxes with positions and
 * pitches (the bytes between rows untouched), batches, against a background
 * that must survive; residency of managed memory after a copy, by policy,
 * and served only where a box's rows are; ordering of copies and memsets
 * with MIGRATE batches through fences; every refusal (variants), after
 * which nothing changed and no fence was used.
 *
 * Device memory is read and written by GPU launches (never by the copy
 * engine under test) to check bytes.  Shared helpers: memory_util.h.
 */
#include "memory_util.h"

/*
 * Copies between every pair of kinds, by either copy engine
 */

FIXTURE(copy) {
	struct uvm_dev dev;
	uint64_t ps, len;
	struct mbuf dst, src;
	uint8_t *src_data;	/* what src holds */
	uint8_t *want;		/* what dst must hold */
	uint8_t *scratch;
	uint64_t vidmem[2];	/* after setup */
	uint64_t last_fence;
};

FIXTURE_VARIANT(copy) {
	int dst, src;		/* enum kind */
	uint32_t dst_gpu, src_gpu; /* owners of device memory */
	uint32_t ce;		/* GPU whose engine copies */
};

/* pageable -> device 0, by GPU 0 */
FIXTURE_VARIANT_ADD(copy, device0_from_pageable) {
	.dst = K_DEVICE, .dst_gpu = 0, .src = K_PAGEABLE, .ce = 0 };
/* pageable -> device 0, by GPU 1 (a peer write) */
FIXTURE_VARIANT_ADD(copy, device0_from_pageable_ce1) {
	.dst = K_DEVICE, .dst_gpu = 0, .src = K_PAGEABLE, .ce = 1 };
/* device 0 -> pageable, by GPU 0 */
FIXTURE_VARIANT_ADD(copy, pageable_from_device0) {
	.dst = K_PAGEABLE, .src = K_DEVICE, .src_gpu = 0, .ce = 0 };
/* device 1 -> pageable, by GPU 0 (a peer read) */
FIXTURE_VARIANT_ADD(copy, pageable_from_device1_ce0) {
	.dst = K_PAGEABLE, .src = K_DEVICE, .src_gpu = 1, .ce = 0 };
/* pageable -> managed, by GPU 0 */
FIXTURE_VARIANT_ADD(copy, managed_from_pageable) {
	.dst = K_MANAGED, .src = K_PAGEABLE, .ce = 0 };
/* managed -> pageable, by GPU 1 */
FIXTURE_VARIANT_ADD(copy, pageable_from_managed_ce1) {
	.dst = K_PAGEABLE, .src = K_MANAGED, .ce = 1 };
/* device 0 -> device 0 (two allocations), by GPU 0 */
FIXTURE_VARIANT_ADD(copy, device0_from_device0) {
	.dst = K_DEVICE, .dst_gpu = 0, .src = K_DEVICE, .src_gpu = 0, .ce = 0 };
/* device 0 -> device 1, by GPU 0 */
FIXTURE_VARIANT_ADD(copy, device1_from_device0) {
	.dst = K_DEVICE, .dst_gpu = 1, .src = K_DEVICE, .src_gpu = 0, .ce = 0 };
/* device 1 -> device 0, by GPU 1 */
FIXTURE_VARIANT_ADD(copy, device0_from_device1_ce1) {
	.dst = K_DEVICE, .dst_gpu = 0, .src = K_DEVICE, .src_gpu = 1, .ce = 1 };
/* device 1 -> device 1, by GPU 0 (both sides peer) */
FIXTURE_VARIANT_ADD(copy, device1_from_device1_ce0) {
	.dst = K_DEVICE, .dst_gpu = 1, .src = K_DEVICE, .src_gpu = 1, .ce = 0 };
/* managed -> managed (two ranges), by GPU 1 */
FIXTURE_VARIANT_ADD(copy, managed_from_managed_ce1) {
	.dst = K_MANAGED, .src = K_MANAGED, .ce = 1 };
/* device 1 -> managed, by GPU 0 */
FIXTURE_VARIANT_ADD(copy, managed_from_device1) {
	.dst = K_MANAGED, .src = K_DEVICE, .src_gpu = 1, .ce = 0 };
/* managed -> device 0, by GPU 1 */
FIXTURE_VARIANT_ADD(copy, device0_from_managed_ce1) {
	.dst = K_DEVICE, .dst_gpu = 0, .src = K_MANAGED, .ce = 1 };
/* device 0 -> registered host, by GPU 1 */
FIXTURE_VARIANT_ADD(copy, host_from_device0_ce1) {
	.dst = K_HOST, .src = K_DEVICE, .src_gpu = 0, .ce = 1 };
/* registered host -> device 1, by GPU 0 */
FIXTURE_VARIANT_ADD(copy, device1_from_host) {
	.dst = K_DEVICE, .dst_gpu = 1, .src = K_HOST, .ce = 0 };
/* managed -> registered host, by GPU 0 */
FIXTURE_VARIANT_ADD(copy, host_from_managed) {
	.dst = K_HOST, .src = K_MANAGED, .ce = 0 };
/* registered host -> managed, by GPU 1 */
FIXTURE_VARIANT_ADD(copy, managed_from_host_ce1) {
	.dst = K_MANAGED, .src = K_HOST, .ce = 1 };
/* pageable -> pageable, by GPU 0 */
FIXTURE_VARIANT_ADD(copy, pageable_from_pageable) {
	.dst = K_PAGEABLE, .src = K_PAGEABLE, .ce = 0 };
/* registered host -> registered host, by GPU 1 */
FIXTURE_VARIANT_ADD(copy, host_from_host_ce1) {
	.dst = K_HOST, .src = K_HOST, .ce = 1 };
/* pageable -> registered host, by GPU 0 */
FIXTURE_VARIANT_ADD(copy, host_from_pageable) {
	.dst = K_HOST, .src = K_PAGEABLE, .ce = 0 };
/* registered host -> pageable, by GPU 1 */
FIXTURE_VARIANT_ADD(copy, pageable_from_host_ce1) {
	.dst = K_PAGEABLE, .src = K_HOST, .ce = 1 };

FIXTURE_SETUP(copy)
{
	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, 2);
	self->ps = self->dev.page_size;
	self->len = COPY_PAGES * self->ps;
	ASSERT_EQ(0, mbuf_alloc(&self->dev, &self->dst, variant->dst, variant->dst_gpu, self->len,
				DST_SKEW_PAGES * self->ps));
	ASSERT_EQ(0, mbuf_alloc(&self->dev, &self->src, variant->src, variant->src_gpu, self->len,
				SRC_SKEW_PAGES * self->ps));
	self->src_data = malloc(self->len);
	self->want = malloc(self->len);
	self->scratch = malloc(self->len);
	ASSERT_NE(NULL, self->src_data);
	ASSERT_NE(NULL, self->want);
	ASSERT_NE(NULL, self->scratch);
	uvm_random_fill(self->src_data, self->len, 0x5c);
	uvm_random_fill(self->want, self->len, 0xd5);	/* dst's background */
	ASSERT_EQ(0, mbuf_store(&self->dev, &self->src, self->src_data));
	ASSERT_EQ(0, mbuf_store(&self->dev, &self->dst, self->want));
	self->vidmem[0] = uvm_vidmem_used(self->dev.fd, 0);
	self->vidmem[1] = uvm_vidmem_used(self->dev.fd, 1);
}

FIXTURE_TEARDOWN(copy)
{
	mbuf_free(&self->dev, &self->dst);
	mbuf_free(&self->dev, &self->src);
	free(self->src_data);
	free(self->want);
	free(self->scratch);
	uvm_dev_teardown(&self->dev);
}

/*
 * Copy [soff, +n) of src to [doff, +n) of dst with @flags, then ASSERT:
 * dst is its background with exactly those bytes replaced, src unchanged;
 * copies that involve no managed memory count no fault and no migration and
 * allocate no vidmem.
 */
static void copy_check(struct __test_metadata *_metadata, FIXTURE_DATA(copy) *self,
		       const FIXTURE_VARIANT(copy) *variant, uint64_t doff, uint64_t soff,
		       uint64_t n, uint32_t flags)
{
	bool managed = variant->dst == K_MANAGED || variant->src == K_MANAGED;
	uint64_t fence = 0, completed = 0;
	struct uvm_counters d;

	UVM_COUNT_DELTA(self->dev.fd, d, {
		ASSERT_EQ(0, uvm_copy(self->dev.fd, self->dst.p + doff, self->src.p + soff, n,
				      variant->ce, flags, &fence));
		if (flags & UVM_COPY_ASYNC) {
			ASSERT_EQ(0, uvm_fence_wait(self->dev.fd, fence, 0, &completed));
			ASSERT_LE(fence, completed);
		}
	});
	ASSERT_LT(self->last_fence, fence);
	self->last_fence = fence;
	memcpy(self->want + doff, self->src_data + soff, n);
	ASSERT_MBUF(&self->dev, &self->dst, self->want, self->scratch);
	ASSERT_MBUF(&self->dev, &self->src, self->src_data, self->scratch);
	if (!managed) {
		ASSERT_COUNTS_ONLY(d, 0ULL);
		ASSERT_EQ(self->vidmem[0], uvm_vidmem_used(self->dev.fd, 0));
		ASSERT_EQ(self->vidmem[1], uvm_vidmem_used(self->dev.fd, 1));
	}
}

/* The whole buffer, page aligned, across both sides' 2 MiB boundaries */
TEST_F(copy, whole)
{
	copy_check(_metadata, self, variant, 0, 0, self->len, 0);
}

/* Unaligned offsets and length: the sides' pages and blocks split at different bytes */
TEST_F(copy, unaligned)
{
	copy_check(_metadata, self, variant, 4093, 7, self->len - 4093 - 1001, 0);
}

/* One byte, and a few bytes across a page boundary on one side and a 2 MiB one on the other */
TEST_F(copy, tiny)
{
	uint64_t ps = self->ps;

	copy_check(_metadata, self, variant, ps - 1, 5 * ps, 1, 0);
	copy_check(_metadata, self, variant, 2 * ps - 5, ps - 3, 10, 0);
	copy_check(_metadata, self, variant, 3 * ps + 4090, 5 * ps - 4, 7, 0);
}

/* Asynchronous: the fence completes with the bytes in place; two copies complete in order */
TEST_F(copy, async)
{
	uint64_t ps = self->ps;

	copy_check(_metadata, self, variant, 3, 2 * ps + 1, self->len - 2 * ps - 7, UVM_COPY_ASYNC);
	/* The same destination again: the later copy wins. */
	copy_check(_metadata, self, variant, ps, 0, 3 * ps, UVM_COPY_ASYNC);
}

/* A box on one side of a strided copy: offset into the buffer, pitches. */
struct boxdim {
	uint64_t off, pitch, slice;
};

/* Where byte (x, y, z) of a box is, as an offset into its buffer. */
static uint64_t box_at(const struct boxdim *b, uint64_t x, uint64_t y, uint64_t z)
{
	return b->off + z * b->slice + y * b->pitch + x;
}

/*
 * UVM_IOC_COPY_3D of a box from src to dst, then ASSERT: dst is its
 * background with exactly the box's rows replaced (the bytes between rows
 * kept), src unchanged; without managed memory no fault, no migration, no
 * vidmem.
 */
static void box_check(struct __test_metadata *_metadata, FIXTURE_DATA(copy) *self,
		      const FIXTURE_VARIANT(copy) *variant, struct boxdim d, struct boxdim s,
		      uint64_t width, uint32_t height, uint32_t depth, uint32_t flags)
{
	bool managed = variant->dst == K_MANAGED || variant->src == K_MANAGED;
	struct uvm_box db = { (uintptr_t)self->dst.p + d.off, d.pitch, d.slice };
	struct uvm_box sb = { (uintptr_t)self->src.p + s.off, s.pitch, s.slice };
	uint64_t fence = 0, completed = 0, y, z;
	struct uvm_counters c;

	UVM_COUNT_DELTA(self->dev.fd, c, {
		ASSERT_EQ(0, uvm_copy_3d(self->dev.fd, db, sb, width, height, depth, variant->ce,
					 flags, &fence));
		if (flags & UVM_COPY_ASYNC) {
			ASSERT_EQ(0, uvm_fence_wait(self->dev.fd, fence, 0, &completed));
			ASSERT_LE(fence, completed);
		}
	});
	ASSERT_LT(self->last_fence, fence);
	self->last_fence = fence;
	for (z = 0; z < depth; z++)
		for (y = 0; y < height; y++)
			memcpy(self->want + box_at(&d, 0, y, z),
			       self->src_data + box_at(&s, 0, y, z), width);
	ASSERT_MBUF(&self->dev, &self->dst, self->want, self->scratch);
	ASSERT_MBUF(&self->dev, &self->src, self->src_data, self->scratch);
	if (!managed) {
		ASSERT_COUNTS_ONLY(c, 0ULL);
		ASSERT_EQ(self->vidmem[0], uvm_vidmem_used(self->dev.fd, 0));
		ASSERT_EQ(self->vidmem[1], uvm_vidmem_used(self->dev.fd, 1));
	}
}

/* 2D: a sub-box with positions, the pitches differing, rows across pages and both blocks */
TEST_F(copy, box_2d)
{
	uint64_t ps = self->ps;
	struct boxdim d = { 3 * 1000 + 17, 3000, 0 }, s = { 5 * 777 + 3, 2777, 0 };

	/* 600 rows reach past each side's 2 MiB boundary (pages 2 and 5) */
	box_check(_metadata, self, variant, d, s, 1111, 600, 1, 0);
	/* rows of whole pages, page aligned on both sides */
	d = (struct boxdim){ ps, 3 * ps, 0 };
	s = (struct boxdim){ 2 * ps, 2 * ps, 0 };
	box_check(_metadata, self, variant, d, s, ps, 150, 1, 0);
	/* one-byte rows */
	d = (struct boxdim){ 1, 4099, 0 };
	s = (struct boxdim){ 4094, 4096, 0 };
	box_check(_metadata, self, variant, d, s, 1, 400, 1, 0);
}

/* 3D: slices of rows, slice pitches beyond the rows, a box at (x, y, z) */
TEST_F(copy, box_3d)
{
	struct boxdim d = { 0, 640, 640 * 70 }, s = { 0, 512, 512 * 90 };

	/* the box at (x 20, y 5, z 1) of each layout: 300 bytes x 60 rows x 20 slices */
	d.off = box_at(&d, 20, 5, 1);
	s.off = box_at(&s, 7, 3, 1);
	box_check(_metadata, self, variant, d, s, 300, 60, 20, 0);
	/* a column: 1 row per slice */
	d = (struct boxdim){ 9, 0, 20000 };
	s = (struct boxdim){ 8, 0, 19999 };
	box_check(_metadata, self, variant, d, s, 100, 1, 100, 0);
}

/*
 * Rows much shorter than a page, many to a page on each side: the engine
 * gets them as operations of several rows; slices that end and begin
 * inside a page, rows of one byte three bytes apart, the pitches different
 */
TEST_F(copy, box_short_rows)
{
	struct boxdim d = { 5, 64, 64 * 37 + 16 }, s = { 4000, 100, 100 * 40 };

	box_check(_metadata, self, variant, d, s, 48, 37, 5, 0);
	d = (struct boxdim){ 4090, 3, 0 };
	s = (struct boxdim){ 1, 2, 0 };
	box_check(_metadata, self, variant, d, s, 1, 5000, 1, 0);
	d = (struct boxdim){ 0, 256, 256 * 300 };
	s = (struct boxdim){ 8, 512, 512 * 300 };
	box_check(_metadata, self, variant, d, s, 256, 300, 2, UVM_COPY_ASYNC);
}

/* Asynchronous boxes complete in order */
TEST_F(copy, box_async)
{
	struct boxdim d = { 100, 8192, 0 }, s = { 0, 4000, 0 };

	box_check(_metadata, self, variant, d, s, 4000, 200, 1, UVM_COPY_ASYNC);
	d.off = 50;
	box_check(_metadata, self, variant, d, s, 700, 250, 1, UVM_COPY_ASYNC);
}

/* A box of one row is a 1D copy */
TEST_F(copy, box_one_row)
{
	struct boxdim d = { 4093, 0, 0 }, s = { 7, 0, 0 };

	box_check(_metadata, self, variant, d, s, self->len - 4093 - 1001, 1, 1, 0);
}

/* A tiny generator for the layouts of batch tests. */
static uint64_t batch_rand(uint64_t *state)
{
	*state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
	return *state >> 33;
}

#define BATCH_COPIES	300

/*
 * UVM_IOC_COPY_BATCH of BATCH_COPIES small copies at random places, one in
 * five a 2D box of a few rows, in one job: dst ends as the copies applied
 * in order (later ones overwrite what earlier ones wrote), src unchanged;
 * without managed memory no fault, no migration, no vidmem.
 */
static void batch_check(struct __test_metadata *_metadata, FIXTURE_DATA(copy) *self,
			const FIXTURE_VARIANT(copy) *variant, uint64_t seed, uint32_t flags)
{
	bool managed = variant->dst == K_MANAGED || variant->src == K_MANAGED;
	struct uvm_copy_op *ops = calloc(BATCH_COPIES, sizeof(*ops));
	uint64_t fence = 0, completed = 0, rs = seed, y;
	uint32_t i, failed = ~0U;
	struct uvm_counters c;

	ASSERT_NE(NULL, ops);
	for (i = 0; i < BATCH_COPIES; i++) {
		struct uvm_copy_op *op = &ops[i];
		uint64_t dspan, sspan, doff, soff;

		op->width = 1 + batch_rand(&rs) % 700;
		op->height = i % 5 ? 1 : 2 + batch_rand(&rs) % 7;
		op->depth = 1;
		op->dst.pitch = op->width + batch_rand(&rs) % 300;
		op->src.pitch = op->width + batch_rand(&rs) % 300;
		dspan = (op->height - 1) * op->dst.pitch + op->width;
		sspan = (op->height - 1) * op->src.pitch + op->width;
		doff = batch_rand(&rs) % (self->len - dspan);
		soff = batch_rand(&rs) % (self->len - sspan);
		op->dst.addr = (uintptr_t)self->dst.p + doff;
		op->src.addr = (uintptr_t)self->src.p + soff;
		for (y = 0; y < op->height; y++)
			memcpy(self->want + doff + y * op->dst.pitch,
			       self->src_data + soff + y * op->src.pitch, op->width);
	}
	UVM_COUNT_DELTA(self->dev.fd, c, {
		ASSERT_EQ(0, uvm_copy_batch(self->dev.fd, ops, BATCH_COPIES, variant->ce, flags,
					    &fence, &failed));
		if (flags & UVM_COPY_ASYNC) {
			ASSERT_EQ(0, uvm_fence_wait(self->dev.fd, fence, 0, &completed));
			ASSERT_LE(fence, completed);
		}
	});
	ASSERT_EQ((uint32_t)BATCH_COPIES, failed);
	ASSERT_LT(self->last_fence, fence);
	self->last_fence = fence;
	ASSERT_MBUF(&self->dev, &self->dst, self->want, self->scratch);
	ASSERT_MBUF(&self->dev, &self->src, self->src_data, self->scratch);
	if (!managed) {
		ASSERT_COUNTS_ONLY(c, 0ULL);
		ASSERT_EQ(self->vidmem[0], uvm_vidmem_used(self->dev.fd, 0));
		ASSERT_EQ(self->vidmem[1], uvm_vidmem_used(self->dev.fd, 1));
	}
	free(ops);
}

/* A batch of small 1D and 2D copies, synchronous, then asynchronous */
TEST_F(copy, batch)
{
	batch_check(_metadata, self, variant, 1, 0);
	batch_check(_metadata, self, variant, 2, UVM_COPY_ASYNC);
}

/*
 * Managed memory as a side of a copy: served as an access of the copying GPU
 */

FIXTURE(copy_managed) {
	struct uvm_dev dev;
	uint64_t ps;
	uint8_t *m;		/* MANAGED_PAGES managed pages at a block start */
	uint8_t *buf;		/* as many pageable bytes */
	uint8_t *ref, *out;
	uint64_t len;
};

#define MANAGED_PAGES	4

FIXTURE_VARIANT(copy_managed) {
	uint32_t ce;
};

/* Copies by GPU 0's engine */
FIXTURE_VARIANT_ADD(copy_managed, ce0) { .ce = 0 };
/* Copies by GPU 1's engine */
FIXTURE_VARIANT_ADD(copy_managed, ce1) { .ce = 1 };

FIXTURE_SETUP(copy_managed)
{
	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, 2);
	self->ps = self->dev.page_size;
	self->len = MANAGED_PAGES * self->ps;
	self->m = uvm_mmap_block_aligned(&self->dev, self->len);
	ASSERT_NE(MAP_FAILED, self->m);
	self->buf = malloc(self->len);
	self->ref = malloc(self->len);
	self->out = malloc(self->len);
	ASSERT_NE(NULL, self->buf);
	ASSERT_NE(NULL, self->ref);
	ASSERT_NE(NULL, self->out);
	uvm_random_fill(self->ref, self->len, 0x3a);
	uvm_random_fill(self->buf, self->len, 0x3b);
}

FIXTURE_TEARDOWN(copy_managed)
{
	if (self->m && self->m != MAP_FAILED)
		munmap(self->m, self->len);
	free(self->buf);
	free(self->ref);
	free(self->out);
	uvm_dev_teardown(&self->dev);
}

/* A destination written by the CPU ends resident on the copying GPU, mapped by nobody */
TEST_F(copy_managed, dst_moves_to_copying_gpu)
{
	uint32_t g = variant->ce;
	struct uvm_counters d;

	memcpy(self->m, self->ref, self->len);
	UVM_COUNT_DELTA(self->dev.fd, d,
			ASSERT_EQ(0, uvm_copy(self->dev.fd, self->m + 100, self->buf, 2 * self->ps,
					      g, 0, NULL)));
	ASSERT_RESIDENCY(&self->dev, self->m, 3, uvm_state(UVM_GPU_BIT(g), 0, 0, 0));
	ASSERT_RESIDENCY(&self->dev, self->m + 3 * self->ps, 1, UVM_STATE_CPU);
	ASSERT_EQ(BLOCK, uvm_vidmem_used(self->dev.fd, g));
	ASSERT_EQ(0ULL, uvm_vidmem_used(self->dev.fd, !g));
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_PAGES_D2H] + d.c[UVM_COUNTER_PAGES_D2D]);
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_GPU_FAULTS] + d.c[UVM_COUNTER_GPU_PAGES_MAPPED]);
	/* The bytes around the copied ones came along. */
	memcpy(self->ref + 100, self->buf, 2 * self->ps);
	UVM_COUNT_DELTA(self->dev.fd, d, ASSERT_BYTES(self->m, self->ref, self->len));
	ASSERT_EQ(3ULL, d.c[UVM_COUNTER_PAGES_D2H]);
}

/* An untouched destination is populated on the copying GPU */
TEST_F(copy_managed, untouched_dst_populated_on_gpu)
{
	uint32_t g = variant->ce;
	struct uvm_counters d;

	UVM_COUNT_DELTA(self->dev.fd, d,
			ASSERT_EQ(0, uvm_copy(self->dev.fd, self->m + self->ps, self->buf, 10, g, 0,
					      NULL)));
	ASSERT_EQ(1ULL, d.c[UVM_COUNTER_PAGES_POPULATED_GPU]);
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_PAGES_H2D]);
	ASSERT_RESIDENCY(&self->dev, self->m + self->ps, 1, uvm_state(UVM_GPU_BIT(g), 0, 0, 0));
	ASSERT_RESIDENCY(&self->dev, self->m, 1, UVM_STATE_NONE);
	ASSERT_EQ(BLOCK, uvm_vidmem_used(self->dev.fd, g));
	ASSERT_BYTES(self->m + self->ps, self->buf, 10);
	ASSERT_EQ(-1, uvm_nonzero_at(self->m + self->ps + 10, self->ps - 10));
}

/* A source is read as the copying GPU would read it: it moves there */
TEST_F(copy_managed, src_moves_to_copying_gpu)
{
	uint32_t g = variant->ce;
	struct uvm_counters d;

	memcpy(self->m, self->ref, self->len);
	UVM_COUNT_DELTA(self->dev.fd, d,
			ASSERT_EQ(0, uvm_copy(self->dev.fd, self->buf, self->m, self->len, g, 0,
					      NULL)));
	ASSERT_BYTES(self->buf, self->ref, self->len);
	ASSERT_EQ((uint64_t)MANAGED_PAGES, d.c[UVM_COUNTER_PAGES_H2D]);
	ASSERT_RESIDENCY(&self->dev, self->m, MANAGED_PAGES, uvm_state(UVM_GPU_BIT(g), 0, 0, 0));
}

/* A read-mostly source gets a copy on the copying GPU and keeps the CPU's */
TEST_F(copy_managed, src_read_mostly_duplicated)
{
	uint32_t g = variant->ce;
	struct uvm_counters d;

	memcpy(self->m, self->ref, self->len);
	ASSERT_EQ(0, uvm_advise(self->dev.fd, self->m, self->len, UVM_ADVICE_SET_READ_MOSTLY,
				UVM_LOC_INVALID));
	UVM_COUNT_DELTA(self->dev.fd, d,
			ASSERT_EQ(0, uvm_copy(self->dev.fd, self->buf, self->m, self->len, g, 0,
					      NULL)));
	ASSERT_BYTES(self->buf, self->ref, self->len);
	ASSERT_EQ((uint64_t)MANAGED_PAGES, d.c[UVM_COUNTER_PAGES_DUPLICATED]);
	ASSERT_RESIDENT(&self->dev, self->m, MANAGED_PAGES, UVM_CPU_BIT | UVM_GPU_BIT(g));
	/* The CPU reads its own copy: no fault, no copy. */
	UVM_COUNT_DELTA(self->dev.fd, d, ASSERT_BYTES(self->m, self->ref, self->len));
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_PAGES_D2H]);
}

/* A destination that prefers the host stays there: no vidmem, no migration */
TEST_F(copy_managed, dst_preferred_host)
{
	uint32_t g = variant->ce;
	struct uvm_counters d;

	memcpy(self->m, self->ref, self->len);
	ASSERT_EQ(0, uvm_advise(self->dev.fd, self->m, self->len,
				UVM_ADVICE_SET_PREFERRED_LOCATION, UVM_LOC_HOST));
	UVM_COUNT_DELTA(self->dev.fd, d,
			ASSERT_EQ(0, uvm_copy(self->dev.fd, self->m + 8, self->buf, self->len - 8,
					      g, 0, NULL)));
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_PAGES_H2D]);
	ASSERT_RESIDENT(&self->dev, self->m, MANAGED_PAGES, UVM_CPU_BIT);
	ASSERT_EQ(0ULL, uvm_vidmem_used(self->dev.fd, 0));
	ASSERT_EQ(0ULL, uvm_vidmem_used(self->dev.fd, 1));
	memcpy(self->ref + 8, self->buf, self->len - 8);
	ASSERT_BYTES(self->m, self->ref, self->len);
}

/* A destination that prefers the other GPU goes there, whichever engine copies */
TEST_F(copy_managed, dst_preferred_other_gpu)
{
	uint32_t g = variant->ce, o = !variant->ce;

	ASSERT_EQ(0, uvm_advise(self->dev.fd, self->m, self->len,
				UVM_ADVICE_SET_PREFERRED_LOCATION, UVM_LOC_GPU(o)));
	ASSERT_EQ(0, uvm_copy(self->dev.fd, self->m, self->buf, self->len, g, 0, NULL));
	ASSERT_RESIDENT(&self->dev, self->m, MANAGED_PAGES, UVM_GPU_BIT(o));
	ASSERT_EQ(BLOCK, uvm_vidmem_used(self->dev.fd, o));
	ASSERT_EQ(0ULL, uvm_vidmem_used(self->dev.fd, g));
	ASSERT_BYTES(self->m, self->buf, self->len);
}

/* The other GPU, accessed-by, is mapped to the destination where it now lives */
TEST_F(copy_managed, dst_accessed_by_other_gpu)
{
	uint32_t g = variant->ce, o = !variant->ce;
	uint64_t faults;

	ASSERT_EQ(0, uvm_advise(self->dev.fd, self->m, self->len, UVM_ADVICE_SET_ACCESSED_BY,
				UVM_LOC_GPU(o)));
	ASSERT_EQ(0, uvm_copy(self->dev.fd, self->m, self->buf, self->len, g, 0, NULL));
	ASSERT_RESIDENCY(&self->dev, self->m, MANAGED_PAGES,
			 uvm_state(UVM_GPU_BIT(g), UVM_GPU_BIT(o), UVM_GPU_BIT(o), UVM_GPU_BIT(o)));
	ASSERT_EQ(0, gpu_load(self->dev.fd, o, self->m, self->len, self->out, &faults));
	ASSERT_EQ(0ULL, faults);
	ASSERT_BYTES(self->out, self->buf, self->len);
}

/*
 * A copy-engine write to read-mostly memory drops every duplicate: the CPU
 * and both GPUs read the new bytes
 */
TEST_F(copy_managed, write_drops_duplicates)
{
	uint32_t g = variant->ce, o = !variant->ce;
	uint64_t n = self->len - 30;

	memcpy(self->m, self->ref, self->len);
	ASSERT_EQ(0, uvm_advise(self->dev.fd, self->m, self->len, UVM_ADVICE_SET_READ_MOSTLY,
				UVM_LOC_INVALID));
	ASSERT_EQ(0, gpu_load(self->dev.fd, o, self->m, self->len, self->out, NULL));
	ASSERT_EQ(0, gpu_load(self->dev.fd, g, self->m, self->len, self->out, NULL));
	ASSERT_RESIDENT(&self->dev, self->m, MANAGED_PAGES,
			UVM_CPU_BIT | UVM_GPU_BIT(0) | UVM_GPU_BIT(1));
	ASSERT_EQ(0, uvm_memset(self->dev.fd, self->m + 10, n, 0x77, 1, g, 0, NULL));
	memset(self->ref + 10, 0x77, n);
	ASSERT_RESIDENT(&self->dev, self->m, MANAGED_PAGES, UVM_GPU_BIT(g));
	ASSERT_EQ(0, gpu_load(self->dev.fd, o, self->m, self->len, self->out, NULL));
	ASSERT_BYTES(self->out, self->ref, self->len);
	ASSERT_EQ(0, gpu_load(self->dev.fd, g, self->m, self->len, self->out, NULL));
	ASSERT_BYTES(self->out, self->ref, self->len);
	ASSERT_BYTES(self->m, self->ref, self->len);
}

/* Sides resident on the GPUs: the source stays, the destination moves GPU to GPU */
TEST_F(copy_managed, gpu_resident_sides)
{
	uint32_t g = variant->ce, o = !variant->ce;
	uint64_t half = self->len / 2;
	struct uvm_counters d;

	ASSERT_EQ(0, gpu_store(self->dev.fd, g, self->m, half, self->ref, NULL));
	ASSERT_EQ(0, gpu_store(self->dev.fd, o, self->m + half, half, self->ref + half, NULL));
	UVM_COUNT_DELTA(self->dev.fd, d,
			ASSERT_EQ(0, uvm_copy(self->dev.fd, self->m + half + 1, self->m + 2,
					      half - 8, g, 0, NULL)));
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_PAGES_H2D] + d.c[UVM_COUNTER_PAGES_D2H]);
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_GPU_FAULTS]);
	ASSERT_RESIDENT(&self->dev, self->m, MANAGED_PAGES, UVM_GPU_BIT(g));
	ASSERT_EQ(BLOCK, uvm_vidmem_used(self->dev.fd, g));
	memmove(self->ref + half + 1, self->ref + 2, half - 8);
	ASSERT_EQ(0, gpu_load(self->dev.fd, o, self->m, self->len, self->out, NULL));
	ASSERT_BYTES(self->out, self->ref, self->len);
}

/* Both sides in one block, not overlapping, unaligned */
TEST_F(copy_managed, same_block)
{
	uint64_t half = self->len / 2;

	memcpy(self->m, self->ref, self->len);
	ASSERT_EQ(0, uvm_copy(self->dev.fd, self->m + half + 3, self->m + 1, half - 5,
			      variant->ce, 0, NULL));
	memmove(self->ref + half + 3, self->ref + 1, half - 5);
	ASSERT_BYTES(self->m, self->ref, self->len);
}

/* Identical sides are allowed: the bytes stay, the pages move as a write would move them */
TEST_F(copy_managed, identical_sides)
{
	uint32_t g = variant->ce;

	memcpy(self->m, self->ref, self->len);
	ASSERT_EQ(0, uvm_copy(self->dev.fd, self->m + 5, self->m + 5, self->len - 10, g, 0, NULL));
	ASSERT_RESIDENCY(&self->dev, self->m, MANAGED_PAGES, uvm_state(UVM_GPU_BIT(g), 0, 0, 0));
	ASSERT_BYTES(self->m, self->ref, self->len);
}

/* Identical sides of device, pageable and registered memory: no change */
TEST_F(copy_managed, identical_sides_other_kinds)
{
	uint8_t *d = uvm_mmap_device(&self->dev, !variant->ce, self->len);
	uint8_t *h = aligned_alloc(self->ps, self->len);

	ASSERT_NE(MAP_FAILED, d);
	ASSERT_NE(NULL, h);
	ASSERT_EQ(0, gpu_store(self->dev.fd, 0, d, self->len, self->ref, NULL));
	ASSERT_EQ(0, uvm_copy(self->dev.fd, d + 1, d + 1, self->len - 1, variant->ce, 0, NULL));
	ASSERT_EQ(0, gpu_load(self->dev.fd, 1, d, self->len, self->out, NULL));
	ASSERT_BYTES(self->out, self->ref, self->len);
	ASSERT_EQ(0, uvm_copy(self->dev.fd, self->buf, self->buf, self->len, variant->ce, 0, NULL));
	memcpy(h, self->ref, self->len);
	ASSERT_EQ(0, uvm_host_register(self->dev.fd, h, self->len, 0, NULL));
	ASSERT_EQ(0, uvm_copy(self->dev.fd, h, h, self->len, variant->ce, 0, NULL));
	ASSERT_BYTES(h, self->ref, self->len);
	ASSERT_EQ(0, uvm_host_unregister(self->dev.fd, h));
	ASSERT_EQ(0, munmap(d, self->len));
	free(h);
}

/*
 * A strided copy serves the managed pages its rows touch, not those between
 * them: rows on every other page of a resident-on-CPU range move only their
 * pages to the copying GPU, on either side.
 */
TEST_F(copy_managed, box_serves_rows_only)
{
	uint32_t g = variant->ce;
	const uint64_t ps = self->ps, n = 16;
	uint8_t *m = uvm_mmap_block_aligned(&self->dev, n * ps);
	uint8_t *h = malloc(n * ps), *ref = malloc(n * ps);
	struct uvm_box mb = { 0, 2 * ps, 0 }, hb = { 0, 64, 0 };
	uint64_t y;

	ASSERT_NE(MAP_FAILED, m);
	ASSERT_NE(NULL, h);
	ASSERT_NE(NULL, ref);
	uvm_random_fill(ref, n * ps, 0x77);
	uvm_random_fill(h, n * ps, 0x78);
	memcpy(m, ref, n * ps);
	/* 8 rows of 64 bytes into pages 0, 2, ..., 14 */
	mb.addr = (uintptr_t)m + 100;
	hb.addr = (uintptr_t)h;
	ASSERT_EQ(0, uvm_copy_3d(self->dev.fd, mb, hb, 64, n / 2, 1, g, 0, NULL));
	for (y = 0; y < n; y++)
		ASSERT_RESIDENCY(&self->dev, m + y * ps, 1,
				 y % 2 ? UVM_STATE_CPU : uvm_state(UVM_GPU_BIT(g), 0, 0, 0));
	for (y = 0; y < n / 2; y++)
		memcpy(ref + 100 + y * 2 * ps, h + y * 64, 64);
	ASSERT_BYTES(m, ref, n * ps);
	/* the other way: reading rows on odd pages moves those (now on the CPU) */
	mb.addr = (uintptr_t)m + ps;
	ASSERT_EQ(0, uvm_copy_3d(self->dev.fd, hb, mb, 64, n / 2, 1, g, 0, NULL));
	for (y = 0; y < n; y++)
		ASSERT_RESIDENCY(&self->dev, m + y * ps, 1,
				 y % 2 ? uvm_state(UVM_GPU_BIT(g), 0, 0, 0) : UVM_STATE_CPU);
	for (y = 0; y < n / 2; y++)
		ASSERT_BYTES(h + y * 64, ref + ps + y * 2 * ps, 64);
	munmap(m, n * ps);
	free(h);
	free(ref);
}

/*
 * Fences: copies and memsets are ordered with MIGRATE batches
 */

FIXTURE(fence) {
	struct uvm_dev dev;
	uint64_t ps;
	uint8_t *m;		/* FENCE_LEN managed bytes */
	uint8_t *d;		/* FENCE_LEN bytes of GPU 1's memory */
	uint8_t *a, *b;		/* FENCE_LEN pageable bytes each */
	uint8_t *ref, *out;
};

#define FENCE_LEN	(4 * UVM_MIB)

FIXTURE_SETUP(fence)
{
	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, 2);
	self->ps = self->dev.page_size;
	self->m = uvm_mmap_block_aligned(&self->dev, FENCE_LEN);
	self->d = uvm_mmap_device_skewed(&self->dev, 1, FENCE_LEN, 0);
	ASSERT_NE(MAP_FAILED, self->m);
	ASSERT_NE(MAP_FAILED, self->d);
	self->a = malloc(FENCE_LEN);
	self->b = malloc(FENCE_LEN);
	self->ref = malloc(FENCE_LEN);
	self->out = malloc(FENCE_LEN);
	ASSERT_NE(NULL, self->a);
	ASSERT_NE(NULL, self->b);
	ASSERT_NE(NULL, self->ref);
	ASSERT_NE(NULL, self->out);
	uvm_random_fill(self->ref, FENCE_LEN, 0xfe);
	memset(self->a, 0x11, FENCE_LEN);
	memset(self->b, 0x22, FENCE_LEN);
}

FIXTURE_TEARDOWN(fence)
{
	munmap(self->m, FENCE_LEN);
	if (self->d)
		munmap(self->d, FENCE_LEN);
	free(self->a);
	free(self->b);
	free(self->ref);
	free(self->out);
	uvm_dev_teardown(&self->dev);
}

/*
 * copy in, prefetch, copy out, discard, copy out: each sees the one before
 * (one VA space's fences complete in order)
 */
TEST_F(fence, copies_ordered_with_migrations)
{
	uint64_t f[5], completed, i;
	struct uvm_counters d;

	memcpy(self->a, self->ref, FENCE_LEN);
	UVM_COUNT_DELTA(self->dev.fd, d, {
		ASSERT_EQ(0, uvm_copy(self->dev.fd, self->m, self->a, FENCE_LEN, 0, UVM_COPY_ASYNC,
				      &f[0]));
		ASSERT_EQ(0, uvm_migrate1(self->dev.fd, UVM_MIGRATE_PREFETCH, UVM_MIGRATE_ASYNC,
					  self->m, FENCE_LEN, UVM_LOC_GPU(1), &f[1]));
		ASSERT_EQ(0, uvm_copy(self->dev.fd, self->b, self->m, FENCE_LEN, 1, UVM_COPY_ASYNC,
				      &f[2]));
		ASSERT_EQ(0, uvm_migrate1(self->dev.fd, UVM_MIGRATE_DISCARD, UVM_MIGRATE_ASYNC,
					  self->m, FENCE_LEN, UVM_LOC_INVALID, &f[3]));
		ASSERT_EQ(0, uvm_copy(self->dev.fd, self->a, self->m, FENCE_LEN, 0, UVM_COPY_ASYNC,
				      &f[4]));
		ASSERT_EQ(0, uvm_fence_wait(self->dev.fd, f[4], 0, &completed));
	});
	for (i = 1; i < 5; i++) {
		ASSERT_EQ(f[i - 1] + 1, f[i]);
	}
	ASSERT_EQ(f[4], completed);
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, uvm_fence_wait(self->dev.fd, f[i], UVM_FENCE_WAIT_POLL, NULL));
	}
	ASSERT_BYTES(self->b, self->ref, FENCE_LEN);
	ASSERT_EQ(-1, uvm_nonzero_at(self->a, FENCE_LEN));
	ASSERT_EQ((uint64_t)FENCE_LEN / self->ps, d.c[UVM_COUNTER_PAGES_DISCARDED]);
	/* The last copy read zeros populated on GPU 0. */
	ASSERT_RESIDENT(&self->dev, self->m, 8, UVM_GPU_BIT(0));
}

/* memset, copy out, memset again, copy out: the first copy saw the first memset only */
TEST_F(fence, memsets_ordered_with_copies)
{
	uint64_t f[4], completed;
	uint32_t *w;
	uint64_t i;

	ASSERT_EQ(0, uvm_memset(self->dev.fd, self->d, FENCE_LEN / 4, 0x01020304, 4, 0,
				UVM_COPY_ASYNC, &f[0]));
	ASSERT_EQ(0, uvm_copy(self->dev.fd, self->a, self->d, FENCE_LEN, 1, UVM_COPY_ASYNC, &f[1]));
	ASSERT_EQ(0, uvm_memset(self->dev.fd, self->d + 2, FENCE_LEN / 2 - 1, 0xabcd, 2, 1,
				UVM_COPY_ASYNC, &f[2]));
	ASSERT_EQ(0, uvm_copy(self->dev.fd, self->b, self->d, FENCE_LEN, 0, UVM_COPY_ASYNC, &f[3]));
	ASSERT_EQ(0, uvm_fence_wait(self->dev.fd, 0, 0, &completed));
	ASSERT_EQ(f[3], completed);
	ASSERT_EQ(f[0] + 3, f[3]);
	w = (uint32_t *)self->a;
	for (i = 0; i < FENCE_LEN / 4; i++) {
		ASSERT_EQ(0x01020304U, w[i]) TH_LOG("word %llu", (unsigned long long)i);
	}
	w = (uint32_t *)self->b;
	ASSERT_EQ(0xabcd0304U, w[0]);
	for (i = 1; i < FENCE_LEN / 4; i++) {
		ASSERT_EQ(0xabcdabcdU, w[i]) TH_LOG("word %llu", (unsigned long long)i);
	}
}

/* Synchronous copies and memsets take fences too; a refused one takes none */
TEST_F(fence, sync_ops_take_fences)
{
	uint64_t f[4], completed;

	ASSERT_EQ(0, uvm_copy(self->dev.fd, self->d, self->a, self->ps, 0, 0, &f[0]));
	ASSERT_EQ(0, uvm_memset(self->dev.fd, self->m, 16, 7, 1, 1, 0, &f[1]));
	ASSERT_EQ(-EINVAL, uvm_copy(self->dev.fd, self->a, self->a + 1, 16, 0, 0, NULL));
	ASSERT_EQ(-ENODEV, uvm_memset(self->dev.fd, self->a, 1, 0, 1, 99, 0, NULL));
	ASSERT_EQ(-EFAULT, uvm_copy(self->dev.fd, self->a, uvm_unmapped_address(self->ps), 16, 0,
				    0, NULL));
	ASSERT_EQ(0, uvm_migrate1(self->dev.fd, UVM_MIGRATE_PREFETCH, 0, self->m, self->ps,
				  UVM_LOC_HOST, &f[2]));
	ASSERT_EQ(0, uvm_copy(self->dev.fd, self->b, self->d, self->ps, 1, 0, &f[3]));
	ASSERT_EQ(f[0] + 1, f[1]);
	ASSERT_EQ(f[1] + 1, f[2]);
	ASSERT_EQ(f[2] + 1, f[3]);
	ASSERT_EQ(0, uvm_fence_wait(self->dev.fd, f[3], UVM_FENCE_WAIT_POLL, &completed));
	ASSERT_EQ(f[3], completed);
	ASSERT_EQ(-EINVAL, uvm_fence_wait(self->dev.fd, f[3] + 1, UVM_FENCE_WAIT_POLL, NULL));
	ASSERT_BYTES(self->b, self->a, self->ps);
	ASSERT_EQ(7, self->m[15]);
	ASSERT_EQ(0, self->m[16]);
}

/*
 * An async copy queued behind a long batch races the munmap of its source:
 * it either ran first (the bytes arrived) or fails with EFAULT, reported
 * once, having written nothing (6.1's rwsem lets the queue's reader overtake
 * the waiting munmap, so either order is legal); pins and vidmem come back
 */
TEST_F(fence, copy_racing_munmap_of_source)
{
	uint8_t *big = uvm_mmap_block_aligned(&self->dev, 2 * FENCE_LEN);
	struct uvm_range r[2] = {
		{ .address = (uintptr_t)big, .length = 2 * FENCE_LEN },
		{ .address = (uintptr_t)big, .length = 2 * FENCE_LEN },
	};
	struct uvm_location locs[2] = { UVM_LOC_GPU(0), UVM_LOC_HOST };
	uint64_t starts[2] = { 0, 1 }, fcopy, completed;
	int64_t pins = uvm_pins_outstanding();
	struct uvm_ioc_migrate out;
	int ret;

	ASSERT_NE(MAP_FAILED, big);
	memset(big, 0x42, 2 * FENCE_LEN);
	ASSERT_EQ(0, uvm_memset(self->dev.fd, self->d, FENCE_LEN, 0x33, 1, 1, 0, NULL));
	ASSERT_EQ(0, uvm_migrate(self->dev.fd, UVM_MIGRATE_PREFETCH, UVM_MIGRATE_ASYNC, r, 2,
				 locs, starts, 2, &out));
	ASSERT_EQ(0, uvm_copy(self->dev.fd, self->a, self->d, FENCE_LEN, 0, UVM_COPY_ASYNC,
			      &fcopy));
	ASSERT_EQ(out.fence + 1, fcopy);
	ASSERT_EQ(0, munmap(self->d, FENCE_LEN));
	self->d = NULL;
	ret = uvm_fence_wait(self->dev.fd, fcopy, 0, &completed);
	ASSERT_EQ(fcopy, completed);
	memset(self->out, ret ? 0x11 : 0x33, FENCE_LEN);
	if (ret) {
		ASSERT_EQ(-EFAULT, ret);
		/* Reported once. */
		ASSERT_EQ(0, uvm_fence_wait(self->dev.fd, fcopy, 0, NULL));
	}
	TH_LOG("the copy %s", ret ? "failed: the munmap came first" : "ran first");
	ASSERT_BYTES(self->a, self->out, FENCE_LEN);
	ASSERT_EQ(0, uvm_fence_wait(self->dev.fd, 0, 0, NULL));
	if (pins != INT64_MIN) {
		ASSERT_EQ(pins, uvm_pins_wait(pins));
	}
	ASSERT_EQ(0ULL, uvm_vidmem_wait(self->dev.fd, 1, 0));
	ASSERT_EQ(0, munmap(big, 2 * FENCE_LEN));
}

/* Pageable sides are pinned only while a copy runs, refused ones not at all */
TEST_F(fence, pageable_pins_released)
{
	int64_t pins = uvm_pins_outstanding();
	uint64_t f;

	if (pins == INT64_MIN)
		UVM_SKIP("no /sys/class/misc/uvm/pinned_pages");
	ASSERT_EQ(0, uvm_copy(self->dev.fd, self->b, self->a, FENCE_LEN, 0, 0, NULL));
	ASSERT_EQ(pins, uvm_pins_outstanding());
	ASSERT_EQ(0, uvm_copy(self->dev.fd, self->b + 1, self->d, FENCE_LEN - 1, 1, UVM_COPY_ASYNC,
			      &f));
	ASSERT_EQ(0, uvm_memset(self->dev.fd, self->a + 3, 100, 9, 1, 0, UVM_COPY_ASYNC, &f));
	ASSERT_EQ(0, uvm_fence_wait(self->dev.fd, f, 0, NULL));
	ASSERT_EQ(pins, uvm_pins_outstanding());
	/* The destination pins, then the source cannot be pinned. */
	ASSERT_EQ(-EFAULT, uvm_copy(self->dev.fd, self->b, uvm_unmapped_address(self->ps),
				    self->ps, 0, 0, NULL));
	ASSERT_EQ(pins, uvm_pins_outstanding());
}

/*
 * Refused copies: one variant per rule, run against the arenas of
 * memory_util.h
 */

FIXTURE(copy_bad) {
	struct uvm_dev dev;
	struct arenas ar;
};

FIXTURE_VARIANT(copy_bad) {
	int dst_arena;
	int64_t dst_off;	/* bytes; negative: from the arena's end */
	int src_arena;
	int64_t src_off;
	uint64_t length;
	uint64_t dst_abs, src_abs;
	uint32_t flags;
	uint32_t gpu;
	uint64_t reserved0;
	int err;
};

#define PS4K	4096

/* Length 0 */
FIXTURE_VARIANT_ADD(copy_bad, length_0) {
	.dst_arena = A_PAGEABLE, .src_arena = A_MANAGED, .length = 0, .err = EINVAL };
/* One byte more than UVM_COPY_MAX_BYTES */
FIXTURE_VARIANT_ADD(copy_bad, length_max_plus_1) {
	.dst_arena = A_PAGEABLE, .src_arena = A_MANAGED, .length = UVM_COPY_MAX_BYTES + 1,
	.err = EINVAL };
/*
 * UVM_COPY_MAX_BYTES passes the length check; the unmapped destination
 * fails to pin (the source, unmapped too, lies in no allocation: every side
 * is classified before any is pinned)
 */
FIXTURE_VARIANT_ADD(copy_bad, length_max_unmapped) {
	.dst_arena = A_ABS, .dst_abs = 0x200000000000ULL, .src_arena = A_ABS,
	.src_abs = 0x300000000000ULL, .length = UVM_COPY_MAX_BYTES, .err = EFAULT };
/* An unknown flag */
FIXTURE_VARIANT_ADD(copy_bad, flag_bit1) {
	.dst_arena = A_PAGEABLE, .src_arena = A_MANAGED, .length = 64, .flags = 1U << 1,
	.err = EINVAL };
/* Non-zero reserved */
FIXTURE_VARIANT_ADD(copy_bad, reserved) {
	.dst_arena = A_PAGEABLE, .src_arena = A_MANAGED, .length = 64, .reserved0 = 1,
	.err = EINVAL };
/* GPU num_gpus */
FIXTURE_VARIANT_ADD(copy_bad, gpu_count) {
	.dst_arena = A_PAGEABLE, .src_arena = A_MANAGED, .length = 64, .gpu = GPU_COUNT_IDX,
	.err = ENODEV };
/* GPU 0xffffffff */
FIXTURE_VARIANT_ADD(copy_bad, gpu_max) {
	.dst_arena = A_PAGEABLE, .src_arena = A_MANAGED, .length = 64, .gpu = 0xffffffffU,
	.err = ENODEV };
/* The destination wraps around the address space */
FIXTURE_VARIANT_ADD(copy_bad, dst_wraps) {
	.dst_arena = A_ABS, .dst_abs = ~0ULL - 63, .src_arena = A_PAGEABLE, .length = 128,
	.err = EINVAL };
/* The source wraps around the address space */
FIXTURE_VARIANT_ADD(copy_bad, src_wraps) {
	.dst_arena = A_PAGEABLE, .src_arena = A_ABS, .src_abs = ~0ULL - 63, .length = 128,
	.err = EINVAL };
/* dst one byte after src, overlapping (pageable) */
FIXTURE_VARIANT_ADD(copy_bad, overlap_pageable) {
	.dst_arena = A_PAGEABLE, .dst_off = 1, .src_arena = A_PAGEABLE, .length = 2 * PS4K,
	.err = EINVAL };
/* src one byte after dst, overlapping (managed) */
FIXTURE_VARIANT_ADD(copy_bad, overlap_managed) {
	.dst_arena = A_MANAGED, .src_arena = A_MANAGED, .src_off = 1, .length = 100,
	.err = EINVAL };
/* dst's first byte is src's last (device) */
FIXTURE_VARIANT_ADD(copy_bad, overlap_device_one_byte) {
	.dst_arena = A_DEVICE, .dst_off = 99, .src_arena = A_DEVICE, .length = 100,
	.err = EINVAL };
/* The source starts in device memory and runs past its end */
FIXTURE_VARIANT_ADD(copy_bad, src_partly_device) {
	.dst_arena = A_PAGEABLE, .src_arena = A_DEVICE, .src_off = -100, .length = 200,
	.err = EINVAL };
/* The destination starts in pageable memory and ends in managed memory */
FIXTURE_VARIANT_ADD(copy_bad, dst_pageable_into_managed) {
	.dst_arena = A_PAGEABLE, .dst_off = -8, .src_arena = A_DEVICE, .length = 16,
	.err = EINVAL };
/* The destination starts in managed memory and ends in device memory */
FIXTURE_VARIANT_ADD(copy_bad, dst_managed_into_device) {
	.dst_arena = A_MANAGED, .dst_off = -8, .src_arena = A_PAGEABLE, .length = 16,
	.err = EINVAL };
/* The source runs past the registered bytes into the rest of their page */
FIXTURE_VARIANT_ADD(copy_bad, src_past_registration) {
	.dst_arena = A_PAGEABLE, .src_arena = A_HOST, .src_off = -16, .length = 16,
	.err = EINVAL };
/* The source is not mapped */
FIXTURE_VARIANT_ADD(copy_bad, src_unmapped) {
	.dst_arena = A_MANAGED, .src_arena = A_UNMAPPED, .length = 64, .err = EFAULT };
/* The destination is not mapped */
FIXTURE_VARIANT_ADD(copy_bad, dst_unmapped) {
	.dst_arena = A_UNMAPPED, .src_arena = A_DEVICE, .length = 64, .err = EFAULT };
/* The source runs from a read-only mapping into unmapped memory */
FIXTURE_VARIANT_ADD(copy_bad, src_into_unmapped) {
	.dst_arena = A_PAGEABLE, .src_arena = A_RO_MAP, .src_off = -PS4K, .length = 2 * PS4K,
	.err = EFAULT };
/* The destination is a read-only mapping */
FIXTURE_VARIANT_ADD(copy_bad, dst_read_only_mapping) {
	.dst_arena = A_RO_MAP, .src_arena = A_PAGEABLE, .length = 64, .err = EFAULT };
/* The destination is registered read-only */
FIXTURE_VARIANT_ADD(copy_bad, dst_read_only_registered) {
	.dst_arena = A_HOST_RO, .src_arena = A_PAGEABLE, .length = 64, .err = EPERM };

FIXTURE_SETUP(copy_bad)
{
	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, 2);
	arenas_setup(&self->dev, &self->ar, 0);
}

FIXTURE_TEARDOWN(copy_bad)
{
	uvm_dev_teardown(&self->dev);
	arenas_teardown(&self->ar);
}

/* The copy fails with the variant's errno; no byte, counter, pin, vidmem or fence changed */
TEST_F(copy_bad, refused)
{
	const struct arenas *ar = &self->ar;
	struct uvm_ioc_copy args = {
		.dst = arena_addr(ar, variant->dst_arena, variant->dst_off, variant->dst_abs),
		.src = arena_addr(ar, variant->src_arena, variant->src_off, variant->src_abs),
		.length = variant->length,
		.gpu_index = variant->gpu == GPU_COUNT_IDX ? self->dev.num_gpus : variant->gpu,
		.flags = variant->flags,
		.reserved = { variant->reserved0 },
	};
	int64_t pins = uvm_pins_outstanding();
	uint64_t before = 0, after = 0;
	struct uvm_counters d;

	/* A copy that works, inside the pageable arena, for the fence. */
	ASSERT_EQ(0, uvm_copy(self->dev.fd, ar->base, ar->base + 64, 8, 0, 0, &before));
	memcpy(ar->snap, ar->snap + 64, 8);
	UVM_COUNT_DELTA(self->dev.fd, d,
			ASSERT_EQ(-variant->err, uvm_ioctl(self->dev.fd, UVM_IOC_COPY, &args)));
	ASSERT_COUNTS_ONLY(d, 0ULL);
	ASSERT_EQ(pins, uvm_pins_outstanding());
	ASSERT_EQ(0, uvm_copy(self->dev.fd, ar->base, ar->base + 64, 8, 0, 0, &after));
	ASSERT_EQ(before + 1, after);
	ASSERT_ARENAS_UNCHANGED(&self->dev, ar);
	ASSERT_EQ(BLOCK, uvm_vidmem_used(self->dev.fd, 0));
	ASSERT_EQ(0ULL, uvm_vidmem_used(self->dev.fd, 1));
}

TEST_HARNESS_MAIN
