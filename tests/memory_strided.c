// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * memory_strided - the refusals and limits of strided and batched copies and sets
 * (UVM_IOC_COPY_3D, UVM_IOC_MEMSET_3D, batches of UVM_IOC_COPY).
 *
 * Each bad argument of a box (variants) is refused before anything runs:
 * no fence is taken and nothing changes; a batch is refused as a whole
 * (count, array, limits), and the runs of a batch up to its limits.
 * Shared helpers: memory_util.h.
 */
#include "memory_util.h"

/*
 * Strided copies and sets refused: each variant one bad argument, checked
 * before anything runs; no fence is taken and nothing changes.
 */

FIXTURE(box_bad) {
	struct uvm_dev dev;
	uint8_t *pg, *m, *d;	/* 4 MiB each: pageable, managed, device 0 */
	uint8_t *snap;
};

FIXTURE_VARIANT(box_bad) {
	bool set;			/* UVM_IOC_MEMSET_3D, else UVM_IOC_COPY_3D */
	int dst_kind, src_kind;		/* K_*: pg, m, d above */
	uint64_t doff, soff;		/* byte offsets into them */
	uint64_t dpitch, spitch, dslice, sslice;
	uint64_t width;
	uint32_t height, depth;
	uint32_t esize, value, flags, gpu;
	uint64_t reserved;
	int err;
};

/* Each variant is BOX_OK, a valid copy, with the fields it breaks overridden. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
#define BOX_OK	.dst_kind = K_PAGEABLE, .src_kind = K_MANAGED, .width = 64, .height = 4, \
		.depth = 1, .dpitch = 128, .spitch = 128, .esize = 1
/* width 0 */
FIXTURE_VARIANT_ADD(box_bad, width_0) { BOX_OK, .width = 0, .err = EINVAL };
/* height 0 */
FIXTURE_VARIANT_ADD(box_bad, height_0) { BOX_OK, .height = 0, .err = EINVAL };
/* depth 0 */
FIXTURE_VARIANT_ADD(box_bad, depth_0) { BOX_OK, .depth = 0, .err = EINVAL };
/* a destination pitch narrower than a row */
FIXTURE_VARIANT_ADD(box_bad, dst_pitch_narrow) { BOX_OK, .dpitch = 63, .err = EINVAL };
/* a source pitch narrower than a row */
FIXTURE_VARIANT_ADD(box_bad, src_pitch_narrow) { BOX_OK, .spitch = 0, .err = EINVAL };
/* slices that overlap the previous slice's rows */
FIXTURE_VARIANT_ADD(box_bad, slice_overlaps) {
	BOX_OK, .depth = 2, .dslice = 3 * 128 + 63, .sslice = 4 * 128, .err = EINVAL };
/* more than UVM_COPY_MAX_BYTES in the box */
FIXTURE_VARIANT_ADD(box_bad, too_many_bytes) {
	BOX_OK, .width = 1ULL << 20, .height = 4097, .dpitch = 1ULL << 20, .spitch = 1ULL << 20,
	.err = EINVAL };
/* a span over UVM_COPY_MAX_SPAN */
FIXTURE_VARIANT_ADD(box_bad, span_too_long) {
	BOX_OK, .height = 3, .dpitch = 1ULL << 35, .err = EINVAL };
/* width x height overflows 64 bits */
FIXTURE_VARIANT_ADD(box_bad, size_overflows) {
	BOX_OK, .width = 1ULL << 40, .height = 1U << 30, .dpitch = 1ULL << 40,
	.spitch = 1ULL << 40, .err = EINVAL };
/* a side wrapping around the address space */
FIXTURE_VARIANT_ADD(box_bad, pitch_wraps) { BOX_OK, .dpitch = ~0ULL / 2, .err = EINVAL };
/* a pageable span over UVM_COPY_MAX_BYTES (rows 4 GiB apart) */
FIXTURE_VARIANT_ADD(box_bad, pageable_span_too_long) {
	BOX_OK, .height = 2, .dpitch = 1ULL << 32, .err = EINVAL };
/* sides sharing bytes: overlapping rows of one managed range */
FIXTURE_VARIANT_ADD(box_bad, sides_share_bytes) {
	BOX_OK, .dst_kind = K_MANAGED, .doff = 32, .err = EINVAL };
/* sides with different pitches whose spans overlap */
FIXTURE_VARIANT_ADD(box_bad, spans_overlap_pitches_differ) {
	BOX_OK, .dst_kind = K_MANAGED, .doff = 64, .dpitch = 256, .err = EINVAL };
/* a span leaving device memory */
FIXTURE_VARIANT_ADD(box_bad, dst_leaves_device) {
	BOX_OK, .dst_kind = K_DEVICE, .doff = (4 << 20) - 300, .err = EINVAL };
/* a span leaving managed memory */
FIXTURE_VARIANT_ADD(box_bad, src_leaves_managed) {
	BOX_OK, .dst_kind = K_DEVICE, .soff = (4 << 20) - 200, .err = EINVAL };
/* an unknown flag */
FIXTURE_VARIANT_ADD(box_bad, flag_bit1) { BOX_OK, .flags = 1U << 1, .err = EINVAL };
/* reserved bits set */
FIXTURE_VARIANT_ADD(box_bad, reserved) { BOX_OK, .reserved = 1, .err = EINVAL };
/* a GPU that does not exist */
FIXTURE_VARIANT_ADD(box_bad, gpu_count) { BOX_OK, .gpu = 2, .err = ENODEV };
/* memset: element size 3 */
FIXTURE_VARIANT_ADD(box_bad, set_esize_3) { BOX_OK, .set = true, .esize = 3, .err = EINVAL };
/* memset: a value wider than the element */
FIXTURE_VARIANT_ADD(box_bad, set_value_wide) {
	BOX_OK, .set = true, .esize = 2, .value = 0x10000, .err = EINVAL };
/* memset: a pitch not a multiple of the element */
FIXTURE_VARIANT_ADD(box_bad, set_pitch_unaligned) {
	BOX_OK, .set = true, .esize = 4, .width = 16, .dpitch = 66, .err = EINVAL };
/* memset: a slice pitch not a multiple of the element */
FIXTURE_VARIANT_ADD(box_bad, set_slice_unaligned) {
	BOX_OK, .set = true, .esize = 2, .depth = 2, .dslice = 1001, .err = EINVAL };
/* memset: a misaligned address */
FIXTURE_VARIANT_ADD(box_bad, set_addr_unaligned) {
	BOX_OK, .set = true, .esize = 4, .width = 16, .doff = 2, .err = EINVAL };
/* memset: width x element size over the limit */
FIXTURE_VARIANT_ADD(box_bad, set_too_many_bytes) {
	BOX_OK, .set = true, .esize = 4, .width = 1ULL << 30, .height = 2, .dpitch = 1ULL << 32,
	.err = EINVAL };
/* memset: into unmapped process memory */
FIXTURE_VARIANT_ADD(box_bad, set_unmapped) {
	BOX_OK, .set = true, .doff = (4 << 20) - 100, .err = EFAULT };
#pragma GCC diagnostic pop

/*
 * What the refusal tests copy between: 4 MiB each of pageable memory (a
 * hole after it), managed memory filled from @seed (its bytes also in
 * *@snap, to see that nothing changed) and device memory of GPU 0.
 */
static int refusal_bufs(struct uvm_dev *dev, uint8_t **pg, uint8_t **m, uint8_t **d,
			uint8_t **snap, unsigned int seed)
{
	*pg = mmap(NULL, (4 << 20) + 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		   -1, 0);
	if (*pg == MAP_FAILED || munmap(*pg + (4 << 20), 4096))
		return -1;
	*m = uvm_mmap_block_aligned(dev, 4 << 20);
	*d = uvm_mmap_device(dev, 0, 4 << 20);
	*snap = malloc(4 << 20);
	if (*m == MAP_FAILED || *d == MAP_FAILED || !*snap)
		return -1;
	uvm_random_fill(*m, 4 << 20, seed);
	memcpy(*snap, *m, 4 << 20);
	memset(*pg, 0x3c, 4 << 20);
	return 0;
}

static void refusal_bufs_free(uint8_t *pg, uint8_t *m, uint8_t *d, uint8_t *snap)
{
	munmap(pg, 4 << 20);
	munmap(m, 4 << 20);
	munmap(d, 4 << 20);
	free(snap);
}

FIXTURE_SETUP(box_bad)
{
	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, 2);
	ASSERT_EQ(0, refusal_bufs(&self->dev, &self->pg, &self->m, &self->d, &self->snap, 0xb0c5));
}

FIXTURE_TEARDOWN(box_bad)
{
	refusal_bufs_free(self->pg, self->m, self->d, self->snap);
	uvm_dev_teardown(&self->dev);
}

static uint64_t box_bad_addr(FIXTURE_DATA(box_bad) *self, int kind, uint64_t off)
{
	uint8_t *base = kind == K_MANAGED ? self->m : kind == K_DEVICE ? self->d : self->pg;

	return (uintptr_t)base + off;
}

/* The variant's ioctl; Return: its result. */
static int box_bad_call(FIXTURE_DATA(box_bad) *self, const FIXTURE_VARIANT(box_bad) *variant)
{
	struct uvm_box dst = { box_bad_addr(self, variant->dst_kind, variant->doff),
			       variant->dpitch, variant->dslice };
	struct uvm_box src = { box_bad_addr(self, variant->src_kind, variant->soff),
			       variant->spitch, variant->sslice };

	if (variant->set) {
		struct uvm_ioc_memset_3d a = {
			.dst = dst, .width = variant->width, .height = variant->height,
			.depth = variant->depth, .value = variant->value,
			.element_size = variant->esize, .gpu_index = variant->gpu,
			.flags = variant->flags, .reserved = { variant->reserved },
		};

		return uvm_ioctl(self->dev.fd, UVM_IOC_MEMSET_3D, &a);
	}
	struct uvm_ioc_copy_3d a = {
		.dst = dst, .src = src, .width = variant->width, .height = variant->height,
		.depth = variant->depth, .gpu_index = variant->gpu, .flags = variant->flags,
		.reserved = { variant->reserved },
	};

	return uvm_ioctl(self->dev.fd, UVM_IOC_COPY_3D, &a);
}

/*
 * The variant's copy as the last of three copies of UVM_IOC_COPY_BATCH, the
 * first two valid (managed into pageable memory); @failed gets the index the
 * module names.  Return: its result.
 */
static int box_bad_batch(FIXTURE_DATA(box_bad) *self, const FIXTURE_VARIANT(box_bad) *variant,
			 uint32_t *failed)
{
	struct uvm_copy_op ops[3] = {
		{ .dst = { (uintptr_t)self->pg, 0, 0 }, .src = { (uintptr_t)self->m, 0, 0 },
		  .width = 100, .height = 1, .depth = 1 },
		{ .dst = { (uintptr_t)self->pg + 8192, 4096, 0 },
		  .src = { (uintptr_t)self->m + 4096, 1000, 0 },
		  .width = 1000, .height = 3, .depth = 1 },
		{ .dst = { box_bad_addr(self, variant->dst_kind, variant->doff),
			   variant->dpitch, variant->dslice },
		  .src = { box_bad_addr(self, variant->src_kind, variant->soff),
			   variant->spitch, variant->sslice },
		  .width = variant->width, .height = variant->height, .depth = variant->depth,
		  .reserved = variant->reserved },
	};

	return uvm_copy_batch(self->dev.fd, ops, 3, variant->gpu, variant->flags, NULL, failed);
}

TEST_F(box_bad, refused)
{
	uint64_t before = 0, after = 0, i;
	uint32_t failed = 0;
	struct uvm_counters d;

	ASSERT_EQ(0, uvm_memset(self->dev.fd, self->pg, 1, 0x3c, 1, 0, 0, &before));
	UVM_COUNT_DELTA(self->dev.fd, d, ASSERT_EQ(-variant->err, box_bad_call(self, variant)));
	ASSERT_COUNTS_ONLY(d, 0ULL);
	/* no fence was taken */
	ASSERT_EQ(0, uvm_memset(self->dev.fd, self->pg, 1, 0x3c, 1, 0, 0, &after));
	ASSERT_EQ(before + 1, after);
	ASSERT_BYTES(self->m, self->snap, 4 << 20);
	for (i = 0; i < (4 << 20); i += 4096)
		ASSERT_EQ(0x3c, self->pg[i]);
	if (variant->set)
		return;	/* no batch of memsets */

	/*
	 * The same copy last in a batch refuses the whole batch, naming it
	 * (or the batch, for what its header carries: flags, GPU); nothing
	 * runs, not even the valid copies before it.
	 */
	UVM_COUNT_DELTA(self->dev.fd, d,
			ASSERT_EQ(-variant->err, box_bad_batch(self, variant, &failed)));
	ASSERT_EQ(variant->flags || variant->err == ENODEV ? 3U : 2U, failed);
	ASSERT_COUNTS_ONLY(d, 0ULL);
	ASSERT_EQ(0, uvm_memset(self->dev.fd, self->pg, 1, 0x3c, 1, 0, 0, &before));
	ASSERT_EQ(after + 1, before);
	ASSERT_BYTES(self->m, self->snap, 4 << 20);
	for (i = 0; i < (4 << 20); i += 1024)
		ASSERT_EQ(0x3c, self->pg[i]);
}

FIXTURE(batch_bad) {
	struct uvm_dev dev;
	uint8_t *pg, *m, *d;	/* 4 MiB each: pageable, managed, device 0 */
	uint8_t *snap;		/* what m holds */
};

FIXTURE_SETUP(batch_bad)
{
	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, 2);
	ASSERT_EQ(0, refusal_bufs(&self->dev, &self->pg, &self->m, &self->d, &self->snap, 0xba7c));
}

FIXTURE_TEARDOWN(batch_bad)
{
	refusal_bufs_free(self->pg, self->m, self->d, self->snap);
	uvm_dev_teardown(&self->dev);
}

/* Refusals of a batch as a whole: count, the array, the limits; then the limit runs */
TEST_F(batch_bad, header)
{
	struct uvm_copy_op *ops = calloc(UVM_COPY_BATCH_MAX + 1, sizeof(*ops));
	struct uvm_ioc_copy_batch b = { 0 };
	uint32_t failed = 0, i;
	void *hole;

	ASSERT_NE(NULL, ops);
	for (i = 0; i <= UVM_COPY_BATCH_MAX; i++)
		ops[i] = (struct uvm_copy_op){ .dst = { (uintptr_t)self->pg + i, 0, 0 },
					       .src = { (uintptr_t)self->m + i, 0, 0 },
					       .width = 1, .height = 1, .depth = 1 };
	/* count 0, count over the limit */
	ASSERT_EQ(-EINVAL, uvm_copy_batch(self->dev.fd, ops, 0, 0, 0, NULL, &failed));
	ASSERT_EQ(0U, failed);
	ASSERT_EQ(-EINVAL, uvm_copy_batch(self->dev.fd, ops, UVM_COPY_BATCH_MAX + 1, 0, 0, NULL,
					  &failed));
	ASSERT_EQ((uint32_t)UVM_COPY_BATCH_MAX + 1, failed);
	/* the array unreadable: NULL, unmapped, running into a hole */
	ASSERT_EQ(-EFAULT, uvm_copy_batch(self->dev.fd, NULL, 2, 0, 0, NULL, &failed));
	hole = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, hole);
	ASSERT_EQ(0, munmap((uint8_t *)hole + 4096, 4096));
	memcpy((uint8_t *)hole + 4096 - sizeof(*ops), ops, sizeof(*ops));
	ASSERT_EQ(-EFAULT, uvm_copy_batch(self->dev.fd,
					  (void *)((uint8_t *)hole + 4096 - sizeof(*ops)), 2, 0, 0,
					  NULL, &failed));
	ASSERT_EQ(0, uvm_copy_batch(self->dev.fd,
				    (void *)((uint8_t *)hole + 4096 - sizeof(*ops)), 1, 0, 0,
				    NULL, &failed));
	munmap(hole, 4096);
	/* reserved header bits */
	b.ops = (uintptr_t)ops;
	b.count = 1;
	b.reserved[1] = 1;
	ASSERT_EQ(-EINVAL, uvm_ioctl(self->dev.fd, UVM_IOC_COPY_BATCH, &b));
	/* pageable spans of 3 GiB each: the second goes over UVM_COPY_MAX_BYTES */
	ops[0] = (struct uvm_copy_op){ .dst = { (uintptr_t)self->pg, 3ULL << 30, 0 },
				       .src = { (uintptr_t)self->d, 64, 0 },
				       .width = 64, .height = 2, .depth = 1 };
	ops[1] = ops[0];
	ops[1].src.addr += 4096;
	ASSERT_EQ(-EINVAL, uvm_copy_batch(self->dev.fd, ops, 2, 0, 0, NULL, &failed));
	ASSERT_EQ(1U, failed);
	/* the whole limit in one batch: every copy runs, in order */
	for (i = 0; i < UVM_COPY_BATCH_MAX; i++)
		ops[i] = (struct uvm_copy_op){ .dst = { (uintptr_t)self->pg + i % 4096, 0, 0 },
					       .src = { (uintptr_t)self->m + i, 0, 0 },
					       .width = 1, .height = 1, .depth = 1 };
	ASSERT_EQ(0, uvm_copy_batch(self->dev.fd, ops, UVM_COPY_BATCH_MAX, 1, 0, NULL, &failed));
	for (i = 0; i < 4096; i++)
		ASSERT_EQ(self->snap[UVM_COPY_BATCH_MAX - 4096 + i], self->pg[i]);
	free(ops);
}

#define RUN_COPIES	512

/*
 * Runs of small copies as the job joins them: copies alternating between
 * allocations (device, managed and pageable sources into device and
 * pageable destinations), then a chain of contiguous device copies each
 * reading what the one before wrote (which must not become one run), then
 * a bad copy in the middle of the chain: the batch is refused, naming it,
 * and nothing runs.
 */
TEST_F(batch_bad, runs)
{
	struct uvm_copy_op *ops = calloc(RUN_COPIES, sizeof(*ops));
	uint8_t *want = malloc(4 << 20), *back = malloc(4 << 20);
	uint8_t *dsts[2] = { self->d, self->pg };
	uint8_t *srcs[3] = { self->m, self->d + (2 << 20), self->pg + (2 << 20) };
	uint32_t failed = 0, i, k;

	ASSERT_NE(NULL, ops);
	ASSERT_NE(NULL, want);
	ASSERT_NE(NULL, back);
	/* the sources' bytes: managed as it is, the others from it */
	ASSERT_EQ(0, uvm_copy(self->dev.fd, self->d + (2 << 20), self->m + 4096, 2 << 20, 0, 0,
			      NULL));
	memcpy(self->pg + (2 << 20), self->snap + 8192, 2 << 20);
	memset(self->pg, 0, 2 << 20);
	ASSERT_EQ(0, uvm_memset(self->dev.fd, self->d, 2 << 20, 0, 1, 0, 0, NULL));
	memset(want, 0, 4 << 20);	/* [0, 2M): device, [2M, 4M): pageable */
	for (i = 0; i < RUN_COPIES; i++) {
		uint64_t off = (uint64_t)i * 64;
		const uint8_t *sdata[3] = { self->snap + off, self->snap + 4096 + off,
					    self->snap + 8192 + off };

		k = i % 3;
		ops[i] = (struct uvm_copy_op){ .dst = { (uintptr_t)dsts[i % 2] + off, 0, 0 },
					       .src = { (uintptr_t)srcs[k] + off, 0, 0 },
					       .width = 64, .height = 1, .depth = 1 };
		memcpy(want + (i % 2) * (2 << 20) + off, sdata[k], 64);
	}
	ASSERT_EQ(0, uvm_copy_batch(self->dev.fd, ops, RUN_COPIES, 1, 0, NULL, &failed));
	ASSERT_EQ((uint32_t)RUN_COPIES, failed);
	ASSERT_EQ(0, uvm_copy(self->dev.fd, back, self->d, 2 << 20, 0, 0, NULL));
	ASSERT_BYTES(back, want, 2 << 20);
	ASSERT_BYTES(self->pg, want + (2 << 20), 2 << 20);

	/* a chain: copy i reads slot i, which copy i - 1 wrote */
	for (i = 0; i < RUN_COPIES; i++)
		ops[i] = (struct uvm_copy_op){ .dst = { (uintptr_t)self->d + (i + 1) * 64, 0, 0 },
					       .src = { (uintptr_t)self->d + i * 64, 0, 0 },
					       .width = 64, .height = 1, .depth = 1 };
	ASSERT_EQ(0, uvm_copy_batch(self->dev.fd, ops, RUN_COPIES, 0, 0, NULL, &failed));
	ASSERT_EQ(0, uvm_copy(self->dev.fd, back, self->d, (RUN_COPIES + 1) * 64, 0, 0, NULL));
	for (i = 1; i <= RUN_COPIES; i++)
		ASSERT_BYTES(back + i * 64, want, 64);

	/* the same chain with a bad copy in its middle: refused whole */
	ASSERT_EQ(0, uvm_memset(self->dev.fd, self->d, 2 << 20, 0x5a, 1, 0, 0, NULL));
	ops[RUN_COPIES / 2].width = 0;
	ASSERT_EQ(-EINVAL, uvm_copy_batch(self->dev.fd, ops, RUN_COPIES, 0, 0, NULL, &failed));
	ASSERT_EQ((uint32_t)RUN_COPIES / 2, failed);
	ops[RUN_COPIES / 2].width = 64;
	ops[RUN_COPIES / 2].src.addr = (uintptr_t)self->d + (4 << 20) - 32;
	ASSERT_EQ(-EINVAL, uvm_copy_batch(self->dev.fd, ops, RUN_COPIES, 0, 0, NULL, &failed));
	ASSERT_EQ((uint32_t)RUN_COPIES / 2, failed);
	ASSERT_EQ(0, uvm_copy(self->dev.fd, back, self->d, 2 << 20, 0, 0, NULL));
	for (i = 0; i < (2 << 20); i++)
		ASSERT_EQ(0x5a, back[i]);
	free(back);
	free(want);
	free(ops);
}

/* @n copies of @width bytes: dst + i * dpitch from src + i * spitch */
static void batch_rows(struct uvm_copy_op *ops, uint32_t n, const uint8_t *dst, uint64_t dpitch,
		       const uint8_t *src, uint64_t spitch, uint64_t width)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		ops[i] = (struct uvm_copy_op){ .dst = { (uintptr_t)dst + i * dpitch, 0, 0 },
					       .src = { (uintptr_t)src + i * spitch, 0, 0 },
					       .width = width, .height = 1, .depth = 1 };
}

/*
 * Copies of one width at fixed distances, which the module makes the rows
 * of one box: the bytes of strided and contiguous runs, a run in pageable
 * memory; then refusals inside such runs name the copy refused and run
 * nothing: a run leaving its allocation, one into read-only registered
 * memory, one into unmapped pageable memory.
 */
TEST_F(batch_bad, merged)
{
	struct uvm_copy_op *ops = calloc(RUN_COPIES, sizeof(*ops));
	uint8_t *back = malloc(4 << 20), *pgsnap = malloc(4 << 20);
	uint32_t failed = 0, i;
	uint64_t end;

	ASSERT_NE(NULL, ops);
	ASSERT_NE(NULL, back);
	ASSERT_NE(NULL, pgsnap);
	ASSERT_EQ(0, uvm_memset(self->dev.fd, self->d, 4 << 20, 0, 1, 0, 0, NULL));

	/* strided: 48 of every 100 bytes from 48 of every 80 */
	batch_rows(ops, RUN_COPIES, self->d + 4096, 100, self->m + 8, 80, 48);
	ASSERT_EQ(0, uvm_copy_batch(self->dev.fd, ops, RUN_COPIES, 1, 0, NULL, &failed));
	ASSERT_EQ((uint32_t)RUN_COPIES, failed);
	ASSERT_EQ(0, uvm_copy(self->dev.fd, back, self->d, 4096 + RUN_COPIES * 100, 0, 0, NULL));
	for (i = 0; i < RUN_COPIES; i++) {
		ASSERT_BYTES(back + 4096 + i * 100, self->snap + 8 + i * 80, 48);
		ASSERT_EQ(0, back[4096 + i * 100 + 48]);
	}
	/* contiguous, from managed and from pageable memory, asynchronously */
	batch_rows(ops, RUN_COPIES, self->d + (1 << 20), 64, self->m + 3, 64, 64);
	ASSERT_EQ(0, uvm_copy_batch(self->dev.fd, ops, RUN_COPIES, 0, UVM_COPY_ASYNC, NULL,
				    &failed));
	memcpy(self->pg + 5, self->snap + 77, RUN_COPIES * 64);
	batch_rows(ops, RUN_COPIES, self->d + (2 << 20), 64, self->pg + 5, 64, 64);
	ASSERT_EQ(0, uvm_copy_batch(self->dev.fd, ops, RUN_COPIES, 1, 0, NULL, &failed));
	ASSERT_EQ(0, uvm_copy(self->dev.fd, back, self->d, 4 << 20, 0, 0, NULL));
	ASSERT_BYTES(back + (1 << 20), self->snap + 3, RUN_COPIES * 64);
	ASSERT_BYTES(back + (2 << 20), self->snap + 77, RUN_COPIES * 64);
	ASSERT_EQ(0, back[(1 << 20) + RUN_COPIES * 64]);

	/* the last copy of a run leaves the device allocation */
	ASSERT_EQ(0, uvm_memset(self->dev.fd, self->d, 4 << 20, 0x5a, 1, 0, 0, NULL));
	memcpy(pgsnap, self->pg, 4 << 20);
	end = (4 << 20) - RUN_COPIES * 64 + 32;
	batch_rows(ops, RUN_COPIES, self->d + end, 64, self->m, 64, 64);
	ASSERT_EQ(-EINVAL, uvm_copy_batch(self->dev.fd, ops, RUN_COPIES, 0, 0, NULL, &failed));
	ASSERT_EQ((uint32_t)RUN_COPIES - 1, failed);
	/* a run into read-only registered memory, after another copy */
	ASSERT_EQ(0, uvm_host_register(self->dev.fd, self->pg, 1 << 20,
				       UVM_HOST_REGISTER_READ_ONLY, NULL));
	batch_rows(ops + 1, RUN_COPIES - 1, self->pg, 128, self->d, 64, 64);
	batch_rows(ops, 1, self->d + 64, 0, self->m, 0, 64);
	ASSERT_EQ(-EPERM, uvm_copy_batch(self->dev.fd, ops, RUN_COPIES, 0, 0, NULL, &failed));
	ASSERT_EQ(1U, failed);
	ASSERT_EQ(0, uvm_host_unregister(self->dev.fd, self->pg));
	/* a pageable run into the unmapped page after pg */
	end = (4 << 20) - (RUN_COPIES - 1) * 64;
	batch_rows(ops, RUN_COPIES, self->pg + end, 64, self->d, 64, 64);
	ASSERT_EQ(-EFAULT, uvm_copy_batch(self->dev.fd, ops, RUN_COPIES, 0, 0, NULL, &failed));
	ASSERT_EQ((uint32_t)RUN_COPIES - 1, failed);
	ASSERT_EQ(0, uvm_copy(self->dev.fd, back, self->d, 4 << 20, 0, 0, NULL));
	for (i = 0; i < (4 << 20); i++)
		ASSERT_EQ(0x5a, back[i]);
	ASSERT_BYTES(self->pg, pgsnap, 4 << 20);
	free(pgsnap);
	free(back);
	free(ops);
}

TEST_HARNESS_MAIN
