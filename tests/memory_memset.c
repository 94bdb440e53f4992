// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * memory_memset - memsets of API 1.2 (UVM_IOC_MEMSET, UVM_IOC_MEMSET_3D) through the copy
 * engines.
 *
 * Every kind of memory and element size (variants) with exact patterns,
 * spans across pages and 2 MiB boundaries, 2D and 3D boxes whose bytes
 * between rows keep their values; every refusal (variants), run against
 * the arenas of memory_util.h, after which nothing changed.  Shared
 * helpers: memory_util.h.
 */
#include "memory_util.h"

/* Expected memset bytes: byte i of the fill is byte i % @esize of @value. */
static void memset_expect(uint8_t *p, uint64_t count, uint32_t value, uint32_t esize)
{
	uint64_t i;

	for (i = 0; i < count * esize; i++)
		p[i] = (uint8_t)(value >> (8 * (i % esize)));
}

/*
 * Memsets on every kind of memory, every element size
 */

FIXTURE(memset) {
	struct uvm_dev dev;
	uint64_t ps, len;
	struct mbuf dst;
	uint8_t *want, *scratch;
};

FIXTURE_VARIANT(memset) {
	int kind;
	uint32_t gpu;		/* device memory's owner */
	uint32_t ce;
	uint32_t esize;
	uint32_t value;
};

/* Bytes on pageable memory */
FIXTURE_VARIANT_ADD(memset, pageable_d8) { .kind = K_PAGEABLE, .ce = 0, .esize = 1, .value = 0xa7 };
/* 16-bit elements on pageable memory */
FIXTURE_VARIANT_ADD(memset, pageable_d16) { .kind = K_PAGEABLE, .ce = 1, .esize = 2, .value = 0xbeef };
/* 32-bit elements on pageable memory */
FIXTURE_VARIANT_ADD(memset, pageable_d32) {
	.kind = K_PAGEABLE, .ce = 0, .esize = 4, .value = 0xdeadbeef };
/* Bytes on managed memory */
FIXTURE_VARIANT_ADD(memset, managed_d8) { .kind = K_MANAGED, .ce = 1, .esize = 1, .value = 0x01 };
/* 16-bit elements on managed memory */
FIXTURE_VARIANT_ADD(memset, managed_d16) { .kind = K_MANAGED, .ce = 0, .esize = 2, .value = 0x8001 };
/* 32-bit elements on managed memory */
FIXTURE_VARIANT_ADD(memset, managed_d32) {
	.kind = K_MANAGED, .ce = 1, .esize = 4, .value = 0xffffffff };
/* Bytes on device memory, by its owner */
FIXTURE_VARIANT_ADD(memset, device_d8) { .kind = K_DEVICE, .gpu = 0, .ce = 0, .esize = 1, .value = 0xff };
/* 16-bit elements on device memory, by the peer */
FIXTURE_VARIANT_ADD(memset, device_d16_peer) {
	.kind = K_DEVICE, .gpu = 1, .ce = 0, .esize = 2, .value = 0x1234 };
/* 32-bit elements on device memory, by the peer */
FIXTURE_VARIANT_ADD(memset, device_d32_peer) {
	.kind = K_DEVICE, .gpu = 0, .ce = 1, .esize = 4, .value = 0x80402010 };
/* Bytes on registered memory */
FIXTURE_VARIANT_ADD(memset, host_d8) { .kind = K_HOST, .ce = 0, .esize = 1, .value = 0x5a };
/* 16-bit elements on registered memory */
FIXTURE_VARIANT_ADD(memset, host_d16) { .kind = K_HOST, .ce = 1, .esize = 2, .value = 0x00ff };
/* 32-bit elements on registered memory */
FIXTURE_VARIANT_ADD(memset, host_d32) { .kind = K_HOST, .ce = 0, .esize = 4, .value = 0x7f000001 };

FIXTURE_SETUP(memset)
{
	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, 2);
	self->ps = self->dev.page_size;
	self->len = COPY_PAGES * self->ps;
	ASSERT_EQ(0, mbuf_alloc(&self->dev, &self->dst, variant->kind, variant->gpu, self->len,
				DST_SKEW_PAGES * self->ps));
	self->want = malloc(self->len);
	self->scratch = malloc(self->len);
	ASSERT_NE(NULL, self->want);
	ASSERT_NE(NULL, self->scratch);
	uvm_random_fill(self->want, self->len, 0x5e7);
	ASSERT_EQ(0, mbuf_store(&self->dev, &self->dst, self->want));
}

FIXTURE_TEARDOWN(memset)
{
	mbuf_free(&self->dev, &self->dst);
	free(self->want);
	free(self->scratch);
	uvm_dev_teardown(&self->dev);
}

/* Fill @count elements at byte @off and ASSERT the whole buffer. */
static void memset_check(struct __test_metadata *_metadata, FIXTURE_DATA(memset) *self,
			 const FIXTURE_VARIANT(memset) *variant, uint64_t off, uint64_t count,
			 uint32_t flags)
{
	uint64_t fence = 0;

	ASSERT_EQ(0, uvm_memset(self->dev.fd, self->dst.p + off, count, variant->value,
				variant->esize, variant->ce, flags, &fence));
	ASSERT_NE(0ULL, fence);
	if (flags & UVM_COPY_ASYNC) {
		ASSERT_EQ(0, uvm_fence_wait(self->dev.fd, fence, 0, NULL));
	}
	memset_expect(self->want + off, count, variant->value, variant->esize);
	ASSERT_MBUF(&self->dev, &self->dst, self->want, self->scratch);
}

/* From an offset aligned to the element but not to 8, across pages and a 2 MiB boundary */
TEST_F(memset, span)
{
	uint64_t off = 4100 - 4100 % variant->esize + (variant->esize == 4 ? 0 : variant->esize);

	memset_check(_metadata, self, variant, off,
		     (self->len - off - 1001) / variant->esize, 0);
}

/* A 2D box and a 3D box of elements: the bytes between rows keep their values */
TEST_F(memset, box)
{
	const uint32_t e = variant->esize;
	const uint64_t off = 4 * 1021, pitch = 4 * 999, slice = 4 * 999 * 130;
	uint64_t fence = 0, y, z;
	struct uvm_box b = { (uintptr_t)self->dst.p + off, pitch, 0 };

	/* 2D: 300 rows of 555 elements, across the 2 MiB boundary at page 2 */
	ASSERT_EQ(0, uvm_memset_3d(self->dev.fd, b, 555, 300, 1, variant->value, e, variant->ce,
				   0, &fence));
	ASSERT_NE(0ULL, fence);
	for (y = 0; y < 300; y++)
		memset_expect(self->want + off + y * pitch, 555, variant->value, e);
	ASSERT_MBUF(&self->dev, &self->dst, self->want, self->scratch);
	/* 3D, asynchronously: 4 slices of 100 rows of 7 elements */
	b.addr = (uintptr_t)self->dst.p + 8;
	b.slice_pitch = slice;
	ASSERT_EQ(0, uvm_memset_3d(self->dev.fd, b, 7, 100, 4, ~variant->value >> (32 - 8 * e),
				   e, variant->ce, UVM_COPY_ASYNC, &fence));
	ASSERT_EQ(0, uvm_fence_wait(self->dev.fd, fence, 0, NULL));
	for (z = 0; z < 4; z++)
		for (y = 0; y < 100; y++)
			memset_expect(self->want + 8 + z * slice + y * pitch, 7,
				      ~variant->value >> (32 - 8 * e), e);
	ASSERT_MBUF(&self->dev, &self->dst, self->want, self->scratch);
}

/* Rows of a few elements, many to a page, slices ending inside a page */
TEST_F(memset, box_short_rows)
{
	const uint32_t e = variant->esize;
	const uint64_t off = 4096 - 8 * e, pitch = 8 * e, slice = 8 * e * 45 + 4 * e;
	struct uvm_box b = { (uintptr_t)self->dst.p + off, pitch, slice };
	uint64_t y, z;

	ASSERT_EQ(0, uvm_memset_3d(self->dev.fd, b, 3, 45, 7, variant->value, e, variant->ce,
				   0, NULL));
	for (z = 0; z < 7; z++)
		for (y = 0; y < 45; y++)
			memset_expect(self->want + off + z * slice + y * pitch, 3, variant->value,
				      e);
	ASSERT_MBUF(&self->dev, &self->dst, self->want, self->scratch);
}

/* One element just before a 2 MiB boundary, and three across a page boundary, asynchronously */
TEST_F(memset, edges)
{
	uint32_t e = variant->esize;

	memset_check(_metadata, self, variant, 2 * self->ps - e, 1, UVM_COPY_ASYNC);
	memset_check(_metadata, self, variant, 5 * self->ps - e, 3, UVM_COPY_ASYNC);
	memset_check(_metadata, self, variant, 0, 1, 0);
	memset_check(_metadata, self, variant, self->len - e, 1, 0);
}

/* Refused memsets: one variant per rule, on the arenas (device memory of GPU 1) */
FIXTURE(memset_bad) {
	struct uvm_dev dev;
	struct arenas ar;
};

FIXTURE_VARIANT(memset_bad) {
	int arena;
	int64_t off;
	uint64_t count;
	uint32_t value;
	uint32_t esize;
	uint32_t flags;
	uint32_t gpu;
	uint64_t reserved1;
	uint64_t abs;
	int err;
};

/* Element size 0 */
FIXTURE_VARIANT_ADD(memset_bad, esize_0) { .arena = A_PAGEABLE, .count = 1, .esize = 0, .err = EINVAL };
/* Element size 3 */
FIXTURE_VARIANT_ADD(memset_bad, esize_3) { .arena = A_PAGEABLE, .count = 1, .esize = 3, .err = EINVAL };
/* Element size 8 */
FIXTURE_VARIANT_ADD(memset_bad, esize_8) { .arena = A_PAGEABLE, .count = 1, .esize = 8, .err = EINVAL };
/* Count 0 */
FIXTURE_VARIANT_ADD(memset_bad, count_0) { .arena = A_MANAGED, .count = 0, .esize = 1, .err = EINVAL };
/* 4-byte elements, one more than UVM_COPY_MAX_BYTES holds */
FIXTURE_VARIANT_ADD(memset_bad, count_too_big) {
	.arena = A_PAGEABLE, .count = UVM_COPY_MAX_BYTES / 4 + 1, .esize = 4, .err = EINVAL };
/* A value wider than a byte */
FIXTURE_VARIANT_ADD(memset_bad, value_wide_d8) {
	.arena = A_PAGEABLE, .count = 1, .esize = 1, .value = 0x100, .err = EINVAL };
/* A value wider than 16 bits */
FIXTURE_VARIANT_ADD(memset_bad, value_wide_d16) {
	.arena = A_DEVICE, .count = 1, .esize = 2, .value = 0x10000, .err = EINVAL };
/* 16-bit elements at an odd address */
FIXTURE_VARIANT_ADD(memset_bad, misaligned_d16) {
	.arena = A_DEVICE, .off = 1, .count = 1, .esize = 2, .err = EINVAL };
/* 32-bit elements at an address that is 2 mod 4 */
FIXTURE_VARIANT_ADD(memset_bad, misaligned_d32) {
	.arena = A_MANAGED, .off = 2, .count = 1, .esize = 4, .err = EINVAL };
/* An unknown flag */
FIXTURE_VARIANT_ADD(memset_bad, flag_bit1) {
	.arena = A_PAGEABLE, .count = 1, .esize = 1, .flags = 1U << 1, .err = EINVAL };
/* Non-zero reserved */
FIXTURE_VARIANT_ADD(memset_bad, reserved) {
	.arena = A_PAGEABLE, .count = 1, .esize = 1, .reserved1 = 1, .err = EINVAL };
/* GPU num_gpus */
FIXTURE_VARIANT_ADD(memset_bad, gpu_count) {
	.arena = A_PAGEABLE, .count = 1, .esize = 1, .gpu = GPU_COUNT_IDX, .err = ENODEV };
/* The fill wraps around the address space */
FIXTURE_VARIANT_ADD(memset_bad, wraps) {
	.arena = A_ABS, .abs = ~0ULL - 15, .count = 8, .esize = 4, .err = EINVAL };
/* Not mapped */
FIXTURE_VARIANT_ADD(memset_bad, unmapped) { .arena = A_UNMAPPED, .count = 1, .esize = 1, .err = EFAULT };
/* A read-only mapping */
FIXTURE_VARIANT_ADD(memset_bad, read_only_mapping) {
	.arena = A_RO_MAP, .count = 4, .esize = 4, .err = EFAULT };
/* Registered read-only */
FIXTURE_VARIANT_ADD(memset_bad, read_only_registered) {
	.arena = A_HOST_RO, .count = 4, .esize = 2, .err = EPERM };
/* From device memory past its end */
FIXTURE_VARIANT_ADD(memset_bad, partly_device) {
	.arena = A_DEVICE, .off = -4, .count = 2, .esize = 4, .err = EINVAL };
/* From registered bytes into the unregistered rest of the page */
FIXTURE_VARIANT_ADD(memset_bad, past_registration) {
	.arena = A_HOST, .off = -10, .count = 10, .esize = 1, .err = EINVAL };

FIXTURE_SETUP(memset_bad)
{
	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, 2);
	arenas_setup(&self->dev, &self->ar, 1);
}

FIXTURE_TEARDOWN(memset_bad)
{
	uvm_dev_teardown(&self->dev);
	arenas_teardown(&self->ar);
}

/* The memset fails with the variant's errno; no byte, counter, pin or fence changed */
TEST_F(memset_bad, refused)
{
	const struct arenas *ar = &self->ar;
	struct uvm_ioc_memset args = {
		.dst = arena_addr(ar, variant->arena, variant->off, variant->abs),
		.count = variant->count,
		.value = variant->value,
		.element_size = variant->esize,
		.gpu_index = variant->gpu == GPU_COUNT_IDX ? self->dev.num_gpus : variant->gpu,
		.flags = variant->flags,
		.reserved = { 0, variant->reserved1 },
	};
	int64_t pins = uvm_pins_outstanding();
	uint64_t before = 0, after = 0;
	struct uvm_counters d;

	ASSERT_EQ(0, uvm_memset(self->dev.fd, ar->base, 1, ar->snap[0], 1, 0, 0, &before));
	UVM_COUNT_DELTA(self->dev.fd, d,
			ASSERT_EQ(-variant->err, uvm_ioctl(self->dev.fd, UVM_IOC_MEMSET, &args)));
	ASSERT_COUNTS_ONLY(d, 0ULL);
	ASSERT_EQ(pins, uvm_pins_outstanding());
	ASSERT_EQ(0, uvm_memset(self->dev.fd, ar->base, 1, ar->snap[0], 1, 0, 0, &after));
	ASSERT_EQ(before + 1, after);
	ASSERT_ARENAS_UNCHANGED(&self->dev, ar);
}

/* Accepted edges: a full 32-bit value, a byte at an odd address, 16 bits at 2 mod 4 */
TEST_F(memset_bad, accepted_edges)
{
	static const uint8_t want[12] = { 0xff, 0x00, 0xff, 0xff, 0xff, 0xff, 0x34, 0x12,
					  0xff, 0xff, 0xff, 0xff };
	const struct arenas *ar = &self->ar;
	uint8_t *p = arena(ar, A_HOST) + 64;

	ASSERT_EQ(0, uvm_memset(self->dev.fd, p, 3, 0xffffffffU, 4, 0, 0, NULL));
	ASSERT_EQ(0, uvm_memset(self->dev.fd, p + 1, 1, 0, 1, 1, 0, NULL));
	ASSERT_EQ(0, uvm_memset(self->dev.fd, p + 6, 1, 0x1234, 2, 0, 0, NULL));
	ASSERT_BYTES(p, want, sizeof(want));
	ASSERT_EQ(ar->snap[A_HOST * ARENA_LEN + 64 + 12], p[12]);
	ASSERT_EQ(ar->snap[A_HOST * ARENA_LEN + 63], p[-1]);
}

TEST_HARNESS_MAIN
