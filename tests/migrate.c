// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * migrate - explicit migration: UVM_IOC_MIGRATE (prefetch, discard,
 * discard-and-prefetch, single ranges and batches with location groups),
 * asynchronous batches and UVM_IOC_FENCE_WAIT.
 *
 * Prefetch: every destination kind (fixture dest, one variant per kind)
 * populates untouched pages there, moves data there with exact copy counts,
 * rounds to pages, duplicates read-mostly pages and records the last-prefetch
 * location (PF-*, RD-03, RA-13/14).  Discard: contents dropped everywhere,
 * memory freed, mappings revoked, zeros read back by the CPU and the GPUs,
 * valid again after a write or a prefetch (DS-*).  Batches: CUDA's location
 * groups, and every validation rule with its errno and the index it reports,
 * after which nothing has changed (BT-*).  Fences: completion in submission
 * order, fence 0, polling, errors reported once, teardown with work queued.
 */
#include <time.h>

#include "kselftest_harness.h"
#include "uvm_test_util.h"

#define NPAGES	8

/* Bytes of the "long" asynchronous batch that later work queues behind. */
#define BIG_LEN	(32 * UVM_MIB)

#define NO_INDEX UVM_MIGRATE_NO_INDEX

/* ASSERT that every counter of a delta is zero, naming those that are not. */
#define ASSERT_NO_COUNTS(d) do {						\
	unsigned int __i, __bad = 0;						\
	for (__i = 0; __i < UVM_COUNTER_COUNT; __i++) {				\
		if ((d).c[__i]) {						\
			TH_LOG("counter %s moved by %llu", uvm_counter_name(__i), \
			       (unsigned long long)(d).c[__i]);			\
			__bad++;						\
		}								\
	}									\
	ASSERT_EQ(0U, __bad);							\
} while (0)

/* Resident on the CPU, mapped by nobody (after a prefetch to the host). */
#define STATE_HOST_UNMAPPED	uvm_state(UVM_CPU_BIT, 0, 0, 0)

static struct uvm_range range_of(const void *addr, uint64_t len)
{
	return (struct uvm_range){ .address = (uintptr_t)addr, .length = len };
}

FIXTURE(migrate) {
	struct uvm_env e;
};

FIXTURE_SETUP(migrate)
{
	uvm_env_setup(&self->e, NPAGES, 1);
}

FIXTURE_TEARDOWN(migrate)
{
	uvm_env_teardown(&self->e);
}

/*
 * Submit a long asynchronous batch (BIG_LEN to GPU 0 and back) that later
 * work queues behind; its fence in @fence.  @big is its memory.
 */
static void submit_big(struct __test_metadata *_metadata, int fd, uint8_t *big,
		       uint64_t *fence)
{
	struct uvm_location locs[2] = { UVM_LOC_GPU(0), UVM_LOC_HOST };
	struct uvm_range r[2] = { range_of(big, BIG_LEN), range_of(big, BIG_LEN) };
	uint64_t starts[2] = { 0, 1 };
	struct uvm_ioc_migrate out;

	/* Overlapping ranges have no order inside a batch; either end is fine. */
	ASSERT_EQ(0, uvm_migrate(fd, UVM_MIGRATE_PREFETCH, UVM_MIGRATE_ASYNC, r, 2, locs, starts,
				 2, &out));
	*fence = out.fence;
}

/* Every destination kind */

FIXTURE(dest) {
	struct uvm_env e;
	struct uvm_location loc;	/* what the tests ask for */
	struct uvm_location want;	/* what LAST_PREFETCH reports */
	int gpu;			/* destination GPU, -1 for the host */
	uint32_t src_gpu;		/* GPU that writes host-bound data */
	struct uvm_test_page_state at_dest; /* state after a move there */
};

FIXTURE_VARIANT(dest) {
	uint32_t type;
	int32_t gpu;
};

FIXTURE_VARIANT_ADD(dest, gpu0) { .type = UVM_LOCATION_GPU, .gpu = 0 };
FIXTURE_VARIANT_ADD(dest, gpu1) { .type = UVM_LOCATION_GPU, .gpu = 1 };
FIXTURE_VARIANT_ADD(dest, host) { .type = UVM_LOCATION_HOST };
FIXTURE_VARIANT_ADD(dest, host_numa) { .type = UVM_LOCATION_HOST_NUMA };
FIXTURE_VARIANT_ADD(dest, host_numa_current) { .type = UVM_LOCATION_HOST_NUMA_CURRENT };

FIXTURE_SETUP(dest)
{
	cpu_set_t one;

	uvm_env_setup(&self->e, NPAGES,
		      variant->type == UVM_LOCATION_GPU ? variant->gpu + 1 : 1);
	/* One CPU, so that "the caller's node" does not change under us. */
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(one), &one));
	self->gpu = -1;
	self->src_gpu = 0;
	switch (variant->type) {
	case UVM_LOCATION_GPU:
		self->gpu = variant->gpu;
		self->loc = self->want = UVM_LOC_GPU(variant->gpu);
		self->at_dest = UVM_STATE_GPU(variant->gpu);
		break;
	case UVM_LOCATION_HOST:
		self->loc = uvm_loc(UVM_LOCATION_HOST, 4321);	/* id ignored */
		self->want = UVM_LOC_HOST;
		break;
	case UVM_LOCATION_HOST_NUMA:
		self->loc = self->want = UVM_LOC_NUMA(uvm_node_with_memory());
		break;
	default:
		self->loc = uvm_loc(UVM_LOCATION_HOST_NUMA_CURRENT, -5); /* id ignored */
		self->want = UVM_LOC_NUMA(uvm_current_node());
		break;
	}
	if (self->gpu < 0)
		self->at_dest = STATE_HOST_UNMAPPED;
}

FIXTURE_TEARDOWN(dest)
{
	uvm_env_teardown(&self->e);
}

/*
 * Put e->ref on the side opposite the destination: written by the CPU for a
 * GPU destination, by GPU src_gpu for a host one.
 */
static void fill_source(struct __test_metadata *_metadata, FIXTURE_DATA(dest) *self,
			uint8_t *addr, uint64_t len)
{
	struct uvm_env *e = &self->e;

	if (self->gpu >= 0)
		memcpy(addr, e->ref + (addr - e->p), len);
	else
		ASSERT_GPU_WRITE(e, self->src_gpu, addr, len, e->ref + (addr - e->p),
				 UVM_ANY_FAULTS);
}

/* The state of source pages that did not move. */
static struct uvm_test_page_state source_state(FIXTURE_DATA(dest) *self)
{
	return self->gpu >= 0 ? UVM_STATE_CPU : UVM_STATE_GPU(self->src_gpu);
}

/* PF-13: untouched pages are populated with zeros at the destination, nothing copied */
TEST_F(dest, prefetch_populates_untouched)
{
	struct uvm_env *e = &self->e;
	const uint64_t n = e->npages;
	struct uvm_ioc_range_query q;
	struct uvm_counters d;

	UVM_COUNT_DELTA(e->dev.fd, d, ASSERT_EQ(0, uvm_prefetch(e->dev.fd, e->p, e->len, self->loc)));
	ASSERT_RESIDENCY(&e->dev, e->p, n, self->at_dest);
	ASSERT_EQ(n, d.c[self->gpu >= 0 ? UVM_COUNTER_PAGES_POPULATED_GPU :
					  UVM_COUNTER_PAGES_POPULATED_CPU]);
	ASSERT_EQ(n, d.c[UVM_COUNTER_PAGES_PREFETCHED]);
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_PAGES_H2D] + d.c[UVM_COUNTER_PAGES_D2H] +
			d.c[UVM_COUNTER_PAGES_D2D]);
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_GPU_FAULTS] + d.c[UVM_COUNTER_CPU_FAULTS]);
	ASSERT_EQ(0, uvm_range_query(e->dev.fd, e->p, e->len, &q));
	ASSERT_LOCATION(self->want, q.last_prefetch);
	if (self->gpu >= 0)
		ASSERT_GPU_READ(e, self->gpu, e->p, e->len, e->zero, 0);
	ASSERT_CPU_READ(e->p, e->len, e->zero);
}

/* PF-16: data on the other side moves to the destination, exact copies, source mappings gone */
TEST_F(dest, prefetch_moves_data)
{
	struct uvm_env *e = &self->e;
	const uint64_t n = e->npages;
	struct uvm_counters d;

	fill_source(_metadata, self, e->p, e->len);
	UVM_COUNT_DELTA(e->dev.fd, d, ASSERT_EQ(0, uvm_prefetch(e->dev.fd, e->p, e->len, self->loc)));
	ASSERT_RESIDENCY(&e->dev, e->p, n, self->at_dest);
	ASSERT_EQ(n, d.c[self->gpu >= 0 ? UVM_COUNTER_PAGES_H2D : UVM_COUNTER_PAGES_D2H]);
	ASSERT_EQ(n * e->ps, d.c[self->gpu >= 0 ? UVM_COUNTER_BYTES_H2D : UVM_COUNTER_BYTES_D2H]);
	ASSERT_EQ(n, d.c[UVM_COUNTER_PAGES_PREFETCHED]);
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_PAGES_POPULATED_CPU] + d.c[UVM_COUNTER_PAGES_POPULATED_GPU]);
	if (self->gpu >= 0)
		ASSERT_GPU_READ(e, self->gpu, e->p, e->len, e->ref, 0);
	ASSERT_CPU_READ(e->p, e->len, e->ref);
}

/* Prefetching data that is already at the destination copies nothing and moves nothing */
TEST_F(dest, prefetch_already_there)
{
	struct uvm_env *e = &self->e;
	const uint64_t n = e->npages;
	struct uvm_test_page_state before;
	struct uvm_counters d;

	if (self->gpu >= 0) {
		ASSERT_GPU_WRITE(e, self->gpu, e->p, e->len, e->ref, n);
		before = UVM_STATE_GPU(self->gpu);
	} else {
		memcpy(e->p, e->ref, e->len);
		before = UVM_STATE_CPU;
	}
	UVM_COUNT_DELTA(e->dev.fd, d, ASSERT_EQ(0, uvm_prefetch(e->dev.fd, e->p, e->len, self->loc)));
	ASSERT_NO_COUNTS(d);
	ASSERT_RESIDENCY(&e->dev, e->p, n, before);
	ASSERT_CPU_READ(e->p, e->len, e->ref);
}

/* PF-11: an unaligned range prefetches exactly the pages it touches */
TEST_F(dest, prefetch_unaligned_range)
{
	struct uvm_env *e = &self->e;
	const uint64_t ps = e->ps;

	fill_source(_metadata, self, e->p, e->len);
	/* [ps + 1, 3 ps - 1) touches pages 1 and 2. */
	ASSERT_EQ(0, uvm_prefetch(e->dev.fd, e->p + ps + 1, 2 * ps - 2, self->loc));
	ASSERT_RESIDENCY(&e->dev, e->p, 1, source_state(self));
	ASSERT_RESIDENCY(&e->dev, e->p + ps, 2, self->at_dest);
	ASSERT_RESIDENCY(&e->dev, e->p + 3 * ps, e->npages - 3, source_state(self));
	ASSERT_CPU_READ(e->p, e->len, e->ref);
}

/* RD-03: prefetching read-mostly data makes a read-only copy at the destination; the source copy stays */
TEST_F(dest, prefetch_read_mostly_duplicates)
{
	struct uvm_env *e = &self->e;
	const uint64_t n = e->npages;
	uint64_t src_bit = self->gpu >= 0 ? UVM_CPU_BIT : UVM_GPU_BIT(self->src_gpu);
	uint64_t dst_bit = uvm_loc_bit(self->loc);
	struct uvm_counters d;

	fill_source(_metadata, self, e->p, e->len);
	ASSERT_EQ(0, uvm_advise(e->dev.fd, e->p, e->len, UVM_ADVICE_SET_READ_MOSTLY,
				UVM_LOC_INVALID));
	UVM_COUNT_DELTA(e->dev.fd, d, ASSERT_EQ(0, uvm_prefetch(e->dev.fd, e->p, e->len, self->loc)));
	ASSERT_EQ(n, d.c[UVM_COUNTER_PAGES_DUPLICATED]);
	ASSERT_EQ(n, d.c[UVM_COUNTER_PAGES_PREFETCHED]);
	/* Both copies, every mapping read-only: the destination GPU's, the source GPU's. */
	ASSERT_RESIDENCY(&e->dev, e->p, n,
			 uvm_state(src_bit | dst_bit, self->gpu >= 0 ? dst_bit : src_bit, 0, 0));
	if (self->gpu >= 0)
		ASSERT_GPU_READ(e, self->gpu, e->p, e->len, e->ref, 0);
	else
		ASSERT_GPU_READ(e, self->src_gpu, e->p, e->len, e->ref, 0);
	ASSERT_CPU_READ(e->p, e->len, e->ref);
}

/* DS-08: discard-and-prefetch leaves zero-filled pages at the destination without copying old data */
TEST_F(dest, discard_prefetch_zeroes)
{
	struct uvm_env *e = &self->e;
	const uint64_t n = e->npages;
	struct uvm_counters d;

	fill_source(_metadata, self, e->p, e->len);
	UVM_COUNT_DELTA(e->dev.fd, d,
		ASSERT_EQ(0, uvm_discard_prefetch(e->dev.fd, e->p, e->len, self->loc)));
	ASSERT_RESIDENCY(&e->dev, e->p, n, self->at_dest);
	ASSERT_EQ(n, d.c[UVM_COUNTER_PAGES_DISCARDED]);
	ASSERT_EQ(n, d.c[self->gpu >= 0 ? UVM_COUNTER_PAGES_POPULATED_GPU :
					  UVM_COUNTER_PAGES_POPULATED_CPU]);
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_PAGES_H2D] + d.c[UVM_COUNTER_PAGES_D2H] +
			d.c[UVM_COUNTER_PAGES_D2D]);
	if (self->gpu >= 0)
		ASSERT_GPU_READ(e, self->gpu, e->p, e->len, e->zero, 0);
	else
		ASSERT_GPU_READ(e, self->src_gpu, e->p, e->len, e->zero, n);
	ASSERT_CPU_READ(e->p, e->len, e->zero);
}

/* An asynchronous prefetch (queued behind a long one) returns a fence; once complete the data is there */
TEST_F(dest, prefetch_async)
{
	struct uvm_env *e = &self->e;
	uint8_t *big = uvm_mmap(&e->dev, BIG_LEN);
	uint64_t fence = 0, completed = 0, big_fence;

	ASSERT_NE(MAP_FAILED, big);
	fill_source(_metadata, self, e->p, e->len);
	submit_big(_metadata, e->dev.fd, big, &big_fence);
	ASSERT_EQ(0, uvm_migrate1(e->dev.fd, UVM_MIGRATE_PREFETCH, UVM_MIGRATE_ASYNC, e->p, e->len,
				  self->loc, &fence));
	ASSERT_EQ(big_fence + 1, fence);
	ASSERT_EQ(-EAGAIN, uvm_fence_wait(e->dev.fd, fence, UVM_FENCE_WAIT_POLL, NULL));
	ASSERT_EQ(0, uvm_fence_wait(e->dev.fd, fence, 0, &completed));
	ASSERT_LE(fence, completed);
	ASSERT_RESIDENCY(&e->dev, e->p, e->npages, self->at_dest);
	ASSERT_CPU_READ(e->p, e->len, e->ref);
	munmap(big, BIG_LEN);
}

/* PF-17/RA-14: LAST_PREFETCH reports the request as soon as the call returns, before the batch ran */
TEST_F(dest, last_prefetch_is_the_request)
{
	struct uvm_env *e = &self->e;
	uint8_t *big = uvm_mmap(&e->dev, BIG_LEN);
	struct uvm_ioc_range_query q;
	uint64_t fence = 0, big_fence;

	ASSERT_NE(MAP_FAILED, big);
	submit_big(_metadata, e->dev.fd, big, &big_fence);
	ASSERT_EQ(0, uvm_migrate1(e->dev.fd, UVM_MIGRATE_PREFETCH, UVM_MIGRATE_ASYNC, e->p, e->len,
				  self->loc, &fence));
	ASSERT_EQ(-EAGAIN, uvm_fence_wait(e->dev.fd, fence, UVM_FENCE_WAIT_POLL, NULL));
	ASSERT_EQ(0, uvm_range_query(e->dev.fd, e->p, e->len, &q));
	ASSERT_LOCATION(self->want, q.last_prefetch);
	ASSERT_EQ(0, uvm_fence_wait(e->dev.fd, fence, 0, NULL));
	ASSERT_EQ(0, uvm_range_query(e->dev.fd, e->p, e->len, &q));
	ASSERT_LOCATION(self->want, q.last_prefetch);
	munmap(big, BIG_LEN);
}

/* Prefetch: validation and policy */

/* PF-04/BT-17: a GPU index out of range is -ENODEV with bad_location, nothing moves */
TEST_F(migrate, prefetch_bad_gpu)
{
	struct uvm_env *e = &self->e;
	struct uvm_range r = range_of(e->p, e->len);
	const int32_t bad[] = { (int32_t)e->dev.num_gpus, -1, UVM_MAX_GPUS, INT32_MIN };
	struct uvm_ioc_migrate out;
	struct uvm_location loc;
	uint64_t start = 0;
	unsigned int i;

	memcpy(e->p, e->ref, e->len);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		loc = UVM_LOC_GPU(bad[i]);
		ASSERT_EQ(-ENODEV, uvm_migrate(e->dev.fd, UVM_MIGRATE_PREFETCH, 0, &r, 1, &loc,
					       &start, 1, &out)) TH_LOG("GPU %d", bad[i]);
		ASSERT_EQ(0U, out.bad_location);
		ASSERT_EQ(NO_INDEX, out.bad_range);
		ASSERT_EQ(-ENODEV, uvm_migrate(e->dev.fd, UVM_MIGRATE_DISCARD_PREFETCH, 0, &r, 1,
					       &loc, &start, 1, &out));
	}
	ASSERT_RESIDENCY(&e->dev, e->p, e->npages, UVM_STATE_CPU);
	ASSERT_CPU_READ(e->p, e->len, e->ref);
}

/* A location type INVALID or unknown is -EINVAL with bad_location */
TEST_F(migrate, prefetch_bad_location_type)
{
	struct uvm_env *e = &self->e;
	struct uvm_range r = range_of(e->p, e->len);
	const uint32_t bad[] = { UVM_LOCATION_INVALID, 5, 32, 0xffffffffU };
	struct uvm_ioc_migrate out;
	struct uvm_location loc;
	uint64_t start = 0;
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		loc = uvm_loc(bad[i], 0);
		ASSERT_EQ(-EINVAL, uvm_migrate(e->dev.fd, UVM_MIGRATE_PREFETCH, 0, &r, 1, &loc,
					       &start, 1, &out)) TH_LOG("type %#x", bad[i]);
		ASSERT_EQ(0U, out.bad_location);
		ASSERT_EQ(NO_INDEX, out.bad_range);
	}
	ASSERT_RESIDENCY(&e->dev, e->p, e->npages, UVM_STATE_NONE);
}

/* PF-06: HOST_NUMA with a node without memory, negative or huge is -EINVAL */
TEST_F(migrate, prefetch_bad_numa_node)
{
	struct uvm_env *e = &self->e;
	const int32_t bad[] = { uvm_node_without_memory(), -1, 4096, INT32_MAX };
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ASSERT_EQ(-EINVAL, uvm_prefetch(e->dev.fd, e->p, e->len, UVM_LOC_NUMA(bad[i])))
			TH_LOG("node %d", bad[i]);
	}
	ASSERT_RESIDENCY(&e->dev, e->p, e->npages, UVM_STATE_NONE);
}

/* PF-08/BT-13: a range in no mapping, empty, wrapping or spanning two ranges: -EINVAL, bad_range 0 */
TEST_F(migrate, prefetch_bad_range)
{
	struct uvm_env *e = &self->e;
	struct uvm_location loc = UVM_LOC_GPU(0);
	struct uvm_ioc_migrate out;
	struct uvm_range bad[6];
	uint64_t start = 0;
	unsigned int i;
	uint8_t *p[2];

	ASSERT_EQ(0, uvm_mmap_adjacent(&e->dev, e->ps, p));
	bad[0] = range_of(uvm_unmapped_address(e->ps), e->ps);	/* unmapped */
	bad[1] = range_of(e->p, 0);			/* empty */
	bad[2] = range_of(e->p, e->len + 1);		/* past the end */
	bad[3] = range_of(e->p, UINT64_MAX);		/* wraps */
	bad[4] = range_of(NULL, e->ps);
	bad[5] = range_of(p[0], 2 * e->ps);		/* two ranges */
	for (i = 0; i < 6; i++) {
		ASSERT_EQ(-EINVAL, uvm_migrate(e->dev.fd, UVM_MIGRATE_PREFETCH, 0, &bad[i], 1,
					       &loc, &start, 1, &out)) TH_LOG("range %u", i);
		ASSERT_EQ(0U, out.bad_range);
		ASSERT_EQ(NO_INDEX, out.bad_location);
		ASSERT_EQ(-EINVAL, uvm_migrate(e->dev.fd, UVM_MIGRATE_DISCARD, 0, &bad[i], 1,
					       NULL, NULL, 0, &out)) TH_LOG("range %u", i);
		ASSERT_EQ(0U, out.bad_range);
	}
	ASSERT_RESIDENCY(&e->dev, e->p, e->npages, UVM_STATE_NONE);
	munmap(p[0], 2 * e->ps);
}

/* PF-05: HOST and HOST_NUMA_CURRENT ignore the id */
TEST_F(migrate, prefetch_ignored_ids)
{
	struct uvm_env *e = &self->e;

	ASSERT_EQ(0, uvm_prefetch(e->dev.fd, e->p, e->ps, uvm_loc(UVM_LOCATION_HOST, -100)));
	ASSERT_EQ(0, uvm_prefetch(e->dev.fd, e->p + e->ps, e->ps,
				  uvm_loc(UVM_LOCATION_HOST_NUMA_CURRENT, 0x7fffffff)));
	ASSERT_RESIDENCY(&e->dev, e->p, 2, STATE_HOST_UNMAPPED);
}

/* Unknown op, flags, pad or reserved words: -EINVAL before anything happens */
TEST_F(migrate, migrate_bad_fields)
{
	struct uvm_env *e = &self->e;
	struct uvm_range r = range_of(e->p, e->len);
	struct uvm_location loc = UVM_LOC_GPU(0);
	struct uvm_ioc_migrate a, base = {
		.op = UVM_MIGRATE_PREFETCH,
		.ranges_ptr = (uintptr_t)&r,
		.count = 1,
		.locations_ptr = (uintptr_t)&loc,
		.num_locations = 1,
	};
	uint64_t start = 0;
	unsigned int i;

	base.location_starts_ptr = (uintptr_t)&start;
	a = base;
	ASSERT_EQ(0, uvm_ioctl(e->dev.fd, UVM_IOC_MIGRATE, &a));
	for (i = 0; i < 7; i++) {
		a = base;
		switch (i) {
		case 0: a.op = 0; break;
		case 1: a.op = 4; break;
		case 2: a.flags = 2; break;
		case 3: a.flags = UVM_MIGRATE_ASYNC | 0x80000000U; break;
		case 4: a.pad = 1; break;
		case 5: a.reserved[0] = 1; break;
		default: a.reserved[1] = 1ULL << 63; break;
		}
		ASSERT_EQ(-EINVAL, uvm_ioctl(e->dev.fd, UVM_IOC_MIGRATE, &a)) TH_LOG("case %u", i);
	}
	ASSERT_EQ(0, uvm_prefetch(e->dev.fd, e->p, e->len, UVM_LOC_HOST));
	ASSERT_RESIDENCY(&e->dev, e->p, e->npages, STATE_HOST_UNMAPPED);
}

/* PL-02: a prefetch moves data away from its preferred location */
TEST_F(migrate, prefetch_overrides_preferred)
{
	struct uvm_env *e = &self->e;

	ASSERT_EQ(0, uvm_advise(e->dev.fd, e->p, e->len, UVM_ADVICE_SET_PREFERRED_LOCATION,
				UVM_LOC_GPU(0)));
	ASSERT_GPU_WRITE(e, 0, e->p, e->len, e->ref, e->npages);
	ASSERT_EQ(0, uvm_prefetch(e->dev.fd, e->p, e->len, UVM_LOC_HOST));
	ASSERT_RESIDENCY(&e->dev, e->p, e->npages, STATE_HOST_UNMAPPED);
	ASSERT_EQ(0, uvm_advise(e->dev.fd, e->p, e->len, UVM_ADVICE_SET_PREFERRED_LOCATION,
				UVM_LOC_HOST));
	ASSERT_EQ(0, uvm_prefetch(e->dev.fd, e->p, e->len, UVM_LOC_GPU(0)));
	ASSERT_RESIDENCY(&e->dev, e->p, e->npages, UVM_STATE_GPU(0));
	ASSERT_CPU_READ(e->p, e->len, e->ref);
}

/* AB-02: a prefetch to the host remaps the accessed-by GPU to the host copy: it reads with no fault */
TEST_F(migrate, prefetch_remaps_accessed_by)
{
	struct uvm_env *e = &self->e;
	const uint64_t n = e->npages;

	ASSERT_EQ(0, uvm_advise(e->dev.fd, e->p, e->len, UVM_ADVICE_SET_ACCESSED_BY,
				UVM_LOC_GPU(0)));
	ASSERT_GPU_WRITE(e, 0, e->p, e->len, e->ref, n);
	ASSERT_EQ(0, uvm_prefetch(e->dev.fd, e->p, e->len, UVM_LOC_HOST));
	ASSERT_RESIDENCY(&e->dev, e->p, n,
			 uvm_state(UVM_CPU_BIT, UVM_GPU_BIT(0), UVM_GPU_BIT(0), UVM_GPU_BIT(0)));
	ASSERT_GPU_READ(e, 0, e->p, e->len, e->ref, 0);
	ASSERT_CPU_READ(e->p, e->len, e->ref);
}

/* A range crossing a 2 MiB block boundary is prefetched, recorded and discarded on both sides */
TEST_F(migrate, across_block_boundary)
{
	struct uvm_env *e = &self->e;
	const uint64_t ps = e->ps;
	uint8_t *p = uvm_mmap_block_aligned(&e->dev, 2 * UVM_VA_BLOCK_SIZE), *edge;
	struct uvm_ioc_range_query q;

	ASSERT_NE(MAP_FAILED, p);
	edge = p + UVM_VA_BLOCK_SIZE;
	memcpy(edge - 4 * ps, e->ref, 8 * ps);
	/* [edge - 2 ps + 100, edge + 2 ps - 100) touches the 2 pages on each side. */
	ASSERT_EQ(0, uvm_prefetch(e->dev.fd, edge - 2 * ps + 100, 4 * ps - 200, UVM_LOC_GPU(0)));
	ASSERT_RESIDENCY(&e->dev, edge - 4 * ps, 2, UVM_STATE_CPU);
	ASSERT_RESIDENCY(&e->dev, edge - 2 * ps, 4, UVM_STATE_GPU(0));
	ASSERT_RESIDENCY(&e->dev, edge + 2 * ps, 2, UVM_STATE_CPU);
	ASSERT_EQ(0, uvm_range_query(e->dev.fd, edge - 2 * ps, 4 * ps, &q));
	ASSERT_LOCATION(UVM_LOC_GPU(0), q.last_prefetch);
	ASSERT_GPU_READ(e, 0, edge - 4 * ps, 8 * ps, e->ref, 4);
	ASSERT_EQ(0, uvm_discard(e->dev.fd, edge - ps, 2 * ps));
	ASSERT_RESIDENCY(&e->dev, edge - ps, 2, UVM_STATE_NONE);
	memset(e->ref + 3 * ps, 0, 2 * ps);
	ASSERT_CPU_READ(edge - 4 * ps, 8 * ps, e->ref);
	munmap(p, 2 * UVM_VA_BLOCK_SIZE);
}

/* Discard */

/* DS-01 (decided: zeros): CPU data discarded reads back as zeros; mapping and memory gone */
TEST_F(migrate, discard_cpu_data_reads_zero)
{
	struct uvm_env *e = &self->e;
	const uint64_t n = e->npages;
	struct uvm_counters d;

	memcpy(e->p, e->ref, e->len);
	UVM_COUNT_DELTA(e->dev.fd, d, ASSERT_EQ(0, uvm_discard(e->dev.fd, e->p, e->len)));
	ASSERT_EQ(n, d.c[UVM_COUNTER_PAGES_DISCARDED]);
	ASSERT_EQ(n, d.c[UVM_COUNTER_CPU_PAGES_UNMAPPED]);
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_PAGES_D2H] + d.c[UVM_COUNTER_PAGES_H2D]);
	ASSERT_RESIDENCY(&e->dev, e->p, n, UVM_STATE_NONE);
	UVM_COUNT_DELTA(e->dev.fd, d, ASSERT_CPU_READ(e->p, e->len, e->zero));
	ASSERT_EQ(n, d.c[UVM_COUNTER_PAGES_POPULATED_CPU]);
	ASSERT_EQ(n, d.c[UVM_COUNTER_CPU_FAULTS]);
}

/* DS-05: discarding GPU data frees its vidmem; GPU and CPU then read zeros, nothing copied */
TEST_F(migrate, discard_gpu_data_frees_vidmem)
{
	struct uvm_env *e = &self->e;
	const uint64_t len = UVM_VA_BLOCK_SIZE, n = len / e->ps;
	uint8_t *p = uvm_mmap_block_aligned(&e->dev, len), *zero = calloc(1, len),
		*out = malloc(len);
	struct uvm_counters d;
	uint64_t faults;

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_NE(NULL, zero);
	ASSERT_NE(NULL, out);
	ASSERT_EQ(0ULL, uvm_vidmem_wait(e->dev.fd, 0, 0));
	ASSERT_EQ(0, uvm_prefetch(e->dev.fd, p, len, UVM_LOC_GPU(0)));
	ASSERT_EQ(0, uvm_launch1(e->dev.fd, 0, 4, uvm_op_pattern(p, len, 0xd15ca4d), NULL));
	ASSERT_EQ(len, uvm_vidmem_used(e->dev.fd, 0));
	UVM_COUNT_DELTA(e->dev.fd, d, ASSERT_EQ(0, uvm_discard(e->dev.fd, p, len)));
	ASSERT_EQ(n, d.c[UVM_COUNTER_PAGES_DISCARDED]);
	ASSERT_EQ(n, d.c[UVM_COUNTER_GPU_PAGES_UNMAPPED]);
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_PAGES_D2H]);
	ASSERT_EQ(0ULL, uvm_vidmem_used(e->dev.fd, 0));
	ASSERT_RESIDENCY(&e->dev, p, n, UVM_STATE_NONE);
	memset(out, 0xa5, len);
	ASSERT_EQ(0, uvm_gpu_read(e->dev.fd, 0, p, len, out, &faults));
	ASSERT_EQ(-1, uvm_memcmp_at(out, zero, len));
	ASSERT_EQ(0, uvm_discard(e->dev.fd, p, len));
	ASSERT_CPU_READ(p, len, zero);
	munmap(p, len);
	free(zero);
	free(out);
}

/* DS-02: after a discard, a GPU write makes the data valid again: the CPU reads it */
TEST_F(migrate, discard_then_write)
{
	struct uvm_env *e = &self->e;
	const uint64_t n = e->npages;

	ASSERT_GPU_WRITE(e, 0, e->p, e->len, e->zero, n);
	ASSERT_EQ(0, uvm_discard(e->dev.fd, e->p, e->len));
	ASSERT_GPU_WRITE(e, 0, e->p, e->len, e->ref, n);
	ASSERT_RESIDENCY(&e->dev, e->p, n, UVM_STATE_GPU(0));
	ASSERT_CPU_READ(e->p, e->len, e->ref);
	/* And a CPU write after a discard, read by the GPU. */
	ASSERT_EQ(0, uvm_discard(e->dev.fd, e->p, e->len));
	memset(e->p + 3, 0x42, 10);
	memset(e->ref, 0, e->len);
	memset(e->ref + 3, 0x42, 10);
	ASSERT_GPU_READ(e, 0, e->p, e->len, e->ref, n);
}

/* DS-03: a prefetch after a discard makes the pages resident (zero-filled) without copying */
TEST_F(migrate, discard_then_prefetch)
{
	struct uvm_env *e = &self->e;
	const uint64_t n = e->npages;
	struct uvm_counters d;

	memcpy(e->p, e->ref, e->len);
	ASSERT_EQ(0, uvm_discard(e->dev.fd, e->p, e->len));
	UVM_COUNT_DELTA(e->dev.fd, d, ASSERT_EQ(0, uvm_prefetch(e->dev.fd, e->p, e->len,
								 UVM_LOC_GPU(0))));
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_PAGES_H2D]);
	ASSERT_EQ(n, d.c[UVM_COUNTER_PAGES_POPULATED_GPU]);
	ASSERT_RESIDENCY(&e->dev, e->p, n, UVM_STATE_GPU(0));
	ASSERT_GPU_READ(e, 0, e->p, e->len, e->zero, 0);
	ASSERT_GPU_WRITE(e, 0, e->p, e->len, e->ref, 0);
	ASSERT_CPU_READ(e->p, e->len, e->ref);
}

/* DS-04: discard of an unaligned sub-range drops exactly the pages it touches; the rest keeps its data */
TEST_F(migrate, discard_partial_range)
{
	struct uvm_env *e = &self->e;
	const uint64_t ps = e->ps;

	memcpy(e->p, e->ref, e->len);
	/* [ps + 1, 3 ps) touches pages 1 and 2. */
	ASSERT_EQ(0, uvm_discard(e->dev.fd, e->p + ps + 1, 2 * ps - 1));
	ASSERT_RESIDENCY(&e->dev, e->p, 1, UVM_STATE_CPU);
	ASSERT_RESIDENCY(&e->dev, e->p + ps, 2, UVM_STATE_NONE);
	ASSERT_RESIDENCY(&e->dev, e->p + 3 * ps, e->npages - 3, UVM_STATE_CPU);
	memset(e->ref + ps, 0, 2 * ps);
	ASSERT_GPU_READ(e, 0, e->p, e->len, e->ref, e->npages);
	ASSERT_CPU_READ(e->p, e->len, e->ref);
}

/* Discarding part of a GPU block keeps the chunk for the rest; the discarded pages read zeros, never the old bytes */
TEST_F(migrate, discard_part_of_gpu_block)
{
	struct uvm_env *e = &self->e;
	const uint64_t ps = e->ps, n = e->npages;
	uint64_t used;

	ASSERT_GPU_WRITE(e, 0, e->p, e->len, e->ref, n);
	used = uvm_vidmem_used(e->dev.fd, 0);
	ASSERT_NE(0ULL, used);
	ASSERT_EQ(0, uvm_discard(e->dev.fd, e->p + 2 * ps, 2 * ps));
	ASSERT_EQ(used, uvm_vidmem_used(e->dev.fd, 0));
	ASSERT_RESIDENCY(&e->dev, e->p + 2 * ps, 2, UVM_STATE_NONE);
	memset(e->ref + 2 * ps, 0, 2 * ps);
	/* The GPU repopulates them in the same chunk: zero-filled, not stale. */
	ASSERT_GPU_READ(e, 0, e->p, e->len, e->ref, 2);
	ASSERT_RESIDENCY(&e->dev, e->p, n, UVM_STATE_GPU(0));
	ASSERT_CPU_READ(e->p, e->len, e->ref);
}

/* Discarding read-duplicated pages drops every copy and every mapping */
TEST_F(migrate, discard_duplicated_pages)
{
	struct uvm_env *e = &self->e;
	const uint64_t n = e->npages;
	struct uvm_counters d;

	memcpy(e->p, e->ref, e->len);
	ASSERT_EQ(0, uvm_advise(e->dev.fd, e->p, e->len, UVM_ADVICE_SET_READ_MOSTLY,
				UVM_LOC_INVALID));
	ASSERT_GPU_READ(e, 0, e->p, e->len, e->ref, n);
	ASSERT_CPU_READ(e->p, e->len, e->ref);
	UVM_COUNT_DELTA(e->dev.fd, d, ASSERT_EQ(0, uvm_discard(e->dev.fd, e->p, e->len)));
	ASSERT_EQ(n, d.c[UVM_COUNTER_PAGES_DISCARDED]);
	ASSERT_RESIDENCY(&e->dev, e->p, n, UVM_STATE_NONE);
	ASSERT_EQ(0ULL, uvm_vidmem_used(e->dev.fd, 0));
	ASSERT_GPU_READ(e, 0, e->p, e->len, e->zero, n);
	ASSERT_CPU_READ(e->p, e->len, e->zero);
}

/* Discarding untouched memory succeeds and does nothing */
TEST_F(migrate, discard_untouched)
{
	struct uvm_env *e = &self->e;
	struct uvm_counters d;

	UVM_COUNT_DELTA(e->dev.fd, d, ASSERT_EQ(0, uvm_discard(e->dev.fd, e->p, e->len)));
	ASSERT_NO_COUNTS(d);
	ASSERT_RESIDENCY(&e->dev, e->p, e->npages, UVM_STATE_NONE);
	ASSERT_CPU_READ(e->p, e->len, e->zero);
}

/* DS-06: discarded GPU pages are not copied when the CPU touches them next: zero-filled instead */
TEST_F(migrate, discard_skips_copy_on_next_access)
{
	struct uvm_env *e = &self->e;
	const uint64_t n = e->npages;
	struct uvm_counters d;

	ASSERT_GPU_WRITE(e, 0, e->p, e->len, e->ref, n);
	ASSERT_EQ(0, uvm_discard(e->dev.fd, e->p, e->len));
	UVM_COUNT_DELTA(e->dev.fd, d, ASSERT_CPU_READ(e->p, e->len, e->zero));
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_PAGES_D2H]);
	ASSERT_EQ(n, d.c[UVM_COUNTER_PAGES_POPULATED_CPU]);
	ASSERT_RESIDENCY(&e->dev, e->p, n, UVM_STATE_CPU);
}

/* A discard revokes remote mappings too: accessed-by GPU 0 mapped to host pages reads zeros after it */
TEST_F(migrate, discard_revokes_remote_mappings)
{
	struct uvm_env *e = &self->e;
	const uint64_t n = e->npages;
	struct uvm_counters d;

	memcpy(e->p, e->ref, e->len);
	ASSERT_EQ(0, uvm_advise(e->dev.fd, e->p, e->len, UVM_ADVICE_SET_ACCESSED_BY,
				UVM_LOC_GPU(0)));
	ASSERT_GPU_READ(e, 0, e->p, e->len, e->ref, 0);
	UVM_COUNT_DELTA(e->dev.fd, d, ASSERT_EQ(0, uvm_discard(e->dev.fd, e->p, e->len)));
	ASSERT_EQ(n, d.c[UVM_COUNTER_GPU_PAGES_UNMAPPED]);
	ASSERT_EQ(n, d.c[UVM_COUNTER_CPU_PAGES_UNMAPPED]);
	ASSERT_RESIDENCY(&e->dev, e->p, n, UVM_STATE_NONE);
	ASSERT_GPU_READ(e, 0, e->p, e->len, e->zero, n);
}

/* Accessed-by survives a discard: pages populated again by the CPU are mapped on GPU 0 at once */
TEST_F(migrate, discard_keeps_accessed_by)
{
	struct uvm_env *e = &self->e;
	const uint64_t n = e->npages;

	memcpy(e->p, e->ref, e->len);
	ASSERT_EQ(0, uvm_advise(e->dev.fd, e->p, e->len, UVM_ADVICE_SET_ACCESSED_BY,
				UVM_LOC_GPU(0)));
	ASSERT_EQ(0, uvm_discard(e->dev.fd, e->p, e->len));
	memcpy(e->p, e->ref, e->len);
	ASSERT_RESIDENCY(&e->dev, e->p, n,
			 uvm_state(UVM_CPU_BIT, UVM_CPU_BIT | UVM_GPU_BIT(0),
				   UVM_CPU_BIT | UVM_GPU_BIT(0), UVM_GPU_BIT(0)));
	ASSERT_GPU_READ(e, 0, e->p, e->len, e->ref, 0);
	/* Discard-and-prefetch to the host maps it as well. */
	ASSERT_EQ(0, uvm_discard_prefetch(e->dev.fd, e->p, e->len, UVM_LOC_HOST));
	ASSERT_GPU_READ(e, 0, e->p, e->len, e->zero, 0);
}

/* DISCARD takes no locations: num_locations or either pointer non-zero is -EINVAL */
TEST_F(migrate, discard_with_locations)
{
	struct uvm_env *e = &self->e;
	struct uvm_range r = range_of(e->p, e->len);
	struct uvm_location loc = UVM_LOC_HOST;
	struct uvm_ioc_migrate out;
	uint64_t start = 0;

	memcpy(e->p, e->ref, e->len);
	ASSERT_EQ(-EINVAL, uvm_migrate(e->dev.fd, UVM_MIGRATE_DISCARD, 0, &r, 1, &loc, &start, 1,
				       &out));
	ASSERT_EQ(-EINVAL, uvm_migrate(e->dev.fd, UVM_MIGRATE_DISCARD, 0, &r, 1, &loc, NULL, 0,
				       &out));
	ASSERT_EQ(-EINVAL, uvm_migrate(e->dev.fd, UVM_MIGRATE_DISCARD, 0, &r, 1, NULL, &start, 0,
				       &out));
	ASSERT_RESIDENCY(&e->dev, e->p, e->npages, UVM_STATE_CPU);
	ASSERT_CPU_READ(e->p, e->len, e->ref);
}

/* Batches */

/* BT-07: 10 ranges, starts {0, 4}: ranges 0-3 go to GPU 0, ranges 4-9 to the host */
TEST_F(migrate, batch_location_groups)
{
	struct uvm_env *e = &self->e;
	const uint64_t ps = e->ps;
	struct uvm_location locs[2] = { UVM_LOC_GPU(0), UVM_LOC_HOST };
	uint64_t starts[2] = { 0, 4 }, i;
	uint8_t *p = uvm_mmap(&e->dev, 20 * ps);
	struct uvm_ioc_migrate out;
	struct uvm_range r[10];

	ASSERT_NE(MAP_FAILED, p);
	/* Range i is page 2i; the data starts on the host (written by GPU 0). */
	ASSERT_EQ(0, uvm_launch1(e->dev.fd, 0, 2, uvm_op_pattern(p, 20 * ps, 7), NULL));
	for (i = 0; i < 10; i++)
		r[i] = range_of(p + 2 * i * ps, ps);
	ASSERT_EQ(0, uvm_prefetch(e->dev.fd, p, 20 * ps, UVM_LOC_HOST));
	ASSERT_EQ(0, uvm_migrate(e->dev.fd, UVM_MIGRATE_PREFETCH, 0, r, 10, locs, starts, 2, &out));
	ASSERT_NE(0ULL, out.fence);
	ASSERT_EQ(NO_INDEX, out.bad_range);
	ASSERT_EQ(NO_INDEX, out.bad_location);
	for (i = 0; i < 10; i++) {
		ASSERT_RESIDENCY(&e->dev, p + 2 * i * ps, 1,
				 i < 4 ? UVM_STATE_GPU(0) : STATE_HOST_UNMAPPED);
		ASSERT_RESIDENCY(&e->dev, p + (2 * i + 1) * ps, 1, STATE_HOST_UNMAPPED);
	}
	ASSERT_EQ(-1, uvm_pattern_mismatch(p, 20 * ps, 7));
	munmap(p, 20 * ps);
}

/* BT-08: discard-and-prefetch, 10 ranges, starts {0, 6}: zeros at GPU 0 for 0-5, on the host for 6-9 */
TEST_F(migrate, batch_discard_prefetch_groups)
{
	struct uvm_env *e = &self->e;
	const uint64_t ps = e->ps;
	struct uvm_location locs[2] = { UVM_LOC_GPU(0), UVM_LOC_NUMA_CURRENT };
	uint64_t starts[2] = { 0, 6 }, i;
	uint8_t *p = uvm_mmap(&e->dev, 10 * ps), *zero = calloc(1, 10 * ps);
	struct uvm_counters d;
	struct uvm_range r[10];

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_NE(NULL, zero);
	memset(p, 0x99, 10 * ps);
	for (i = 0; i < 10; i++)
		r[i] = range_of(p + i * ps, ps);
	UVM_COUNT_DELTA(e->dev.fd, d,
		ASSERT_EQ(0, uvm_migrate(e->dev.fd, UVM_MIGRATE_DISCARD_PREFETCH, 0, r, 10, locs,
					 starts, 2, NULL)));
	ASSERT_EQ(10ULL, d.c[UVM_COUNTER_PAGES_DISCARDED]);
	ASSERT_EQ(6ULL, d.c[UVM_COUNTER_PAGES_POPULATED_GPU]);
	ASSERT_EQ(4ULL, d.c[UVM_COUNTER_PAGES_POPULATED_CPU]);
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_PAGES_H2D]);
	ASSERT_RESIDENCY(&e->dev, p, 6, UVM_STATE_GPU(0));
	ASSERT_RESIDENCY(&e->dev, p + 6 * ps, 4, STATE_HOST_UNMAPPED);
	ASSERT_CPU_READ(p, 10 * ps, zero);
	munmap(p, 10 * ps);
	free(zero);
}

/* A DISCARD batch of several ranges drops each of them, wherever it lives */
TEST_F(migrate, batch_discard)
{
	struct uvm_env *e = &self->e;
	const uint64_t ps = e->ps;
	struct uvm_range r[3] = {
		range_of(e->p, ps), range_of(e->p + 2 * ps, 2 * ps), range_of(e->p + 6 * ps, ps),
	};

	memcpy(e->p, e->ref, e->len);
	ASSERT_EQ(0, uvm_prefetch(e->dev.fd, e->p + 2 * ps, 4 * ps, UVM_LOC_GPU(0)));
	ASSERT_EQ(0, uvm_migrate(e->dev.fd, UVM_MIGRATE_DISCARD, 0, r, 3, NULL, NULL, 0, NULL));
	ASSERT_RESIDENCY(&e->dev, e->p, 1, UVM_STATE_NONE);
	ASSERT_RESIDENCY(&e->dev, e->p + ps, 1, UVM_STATE_CPU);
	ASSERT_RESIDENCY(&e->dev, e->p + 2 * ps, 2, UVM_STATE_NONE);
	ASSERT_RESIDENCY(&e->dev, e->p + 4 * ps, 2, UVM_STATE_GPU(0));
	ASSERT_RESIDENCY(&e->dev, e->p + 6 * ps, 1, UVM_STATE_NONE);
	ASSERT_RESIDENCY(&e->dev, e->p + 7 * ps, 1, UVM_STATE_CPU);
	memset(e->ref, 0, ps);
	memset(e->ref + 2 * ps, 0, 2 * ps);
	memset(e->ref + 6 * ps, 0, ps);
	ASSERT_CPU_READ(e->p, e->len, e->ref);
}

/* BT-01/02/03: count 0 or too large, num_locations 0 or above count: -EINVAL, no index */
TEST_F(migrate, batch_bad_counts)
{
	struct uvm_env *e = &self->e;
	struct uvm_range r[2] = { range_of(e->p, e->ps), range_of(e->p + e->ps, e->ps) };
	struct uvm_location locs[3] = { UVM_LOC_GPU(0), UVM_LOC_HOST, UVM_LOC_GPU(0) };
	uint64_t starts[3] = { 0, 1, 2 };
	struct uvm_ioc_migrate out;

	ASSERT_EQ(-EINVAL, uvm_migrate(e->dev.fd, UVM_MIGRATE_PREFETCH, 0, r, 0, locs, starts, 1,
				       &out));
	ASSERT_EQ(-EINVAL, uvm_migrate(e->dev.fd, UVM_MIGRATE_DISCARD, 0, r, 0, NULL, NULL, 0,
				       &out));
	ASSERT_EQ(-EINVAL, uvm_migrate(e->dev.fd, UVM_MIGRATE_PREFETCH, 0, r,
				       UVM_MIGRATE_MAX_RANGES + 1ULL, locs, starts, 1, &out));
	ASSERT_EQ(-EINVAL, uvm_migrate(e->dev.fd, UVM_MIGRATE_PREFETCH, 0, r, 1ULL << 40, locs,
				       starts, 1, &out));
	ASSERT_EQ(-EINVAL, uvm_migrate(e->dev.fd, UVM_MIGRATE_PREFETCH, 0, r, 2, locs, starts, 0,
				       &out));
	ASSERT_EQ(NO_INDEX, out.bad_range);
	ASSERT_EQ(NO_INDEX, out.bad_location);
	ASSERT_EQ(-EINVAL, uvm_migrate(e->dev.fd, UVM_MIGRATE_DISCARD_PREFETCH, 0, r, 2, locs,
				       starts, 0, &out));
	ASSERT_EQ(-EINVAL, uvm_migrate(e->dev.fd, UVM_MIGRATE_PREFETCH, 0, r, 2, locs, starts, 3,
				       &out));
	ASSERT_EQ(NO_INDEX, out.bad_range);
	ASSERT_EQ(NO_INDEX, out.bad_location);
	ASSERT_RESIDENCY(&e->dev, e->p, e->npages, UVM_STATE_NONE);
}

/* BT-04/05/06: starts[0] != 0, not strictly increasing, or last >= count: -EINVAL at that start */
TEST_F(migrate, batch_bad_starts)
{
	struct uvm_env *e = &self->e;
	struct uvm_location locs[3] = { UVM_LOC_GPU(0), UVM_LOC_HOST, UVM_LOC_GPU(0) };
	const struct { uint64_t starts[3]; uint32_t nlocs, bad; } cases[] = {
		{ { 1, 2, 3 }, 1, 0 },		/* first is not 0 */
		{ { 1, 2, 3 }, 3, 0 },
		{ { 0, 2, 2 }, 3, 2 },		/* equal */
		{ { 0, 3, 1 }, 3, 2 },		/* decreasing */
		{ { 0, 0, 1 }, 3, 1 },
		{ { 0, 4, 0 }, 2, 1 },		/* last == count */
		{ { 0, 1, 9 }, 3, 2 },		/* last > count */
	};
	struct uvm_range r[4];
	struct uvm_ioc_migrate out;
	unsigned int i;

	memcpy(e->p, e->ref, e->len);
	for (i = 0; i < 4; i++)
		r[i] = range_of(e->p + i * e->ps, e->ps);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ASSERT_EQ(-EINVAL, uvm_migrate(e->dev.fd, UVM_MIGRATE_PREFETCH, 0, r, 4, locs,
					       cases[i].starts, cases[i].nlocs, &out))
			TH_LOG("case %u", i);
		ASSERT_EQ(cases[i].bad, out.bad_location) TH_LOG("case %u", i);
		ASSERT_EQ(NO_INDEX, out.bad_range);
		ASSERT_EQ(-EINVAL, uvm_migrate(e->dev.fd, UVM_MIGRATE_DISCARD_PREFETCH, 0, r, 4,
					       locs, cases[i].starts, cases[i].nlocs, &out))
			TH_LOG("case %u", i);
		ASSERT_EQ(cases[i].bad, out.bad_location) TH_LOG("case %u", i);
	}
	ASSERT_RESIDENCY(&e->dev, e->p, e->npages, UVM_STATE_CPU);
	ASSERT_CPU_READ(e->p, e->len, e->ref);
}

/* BT-17: a bad location in any group fails the batch with its index; the valid groups did not run */
TEST_F(migrate, batch_bad_location_entry)
{
	struct uvm_env *e = &self->e;
	struct uvm_location locs[3] = { UVM_LOC_GPU(0), UVM_LOC_HOST, UVM_LOC_GPU(0) };
	uint64_t starts[3] = { 0, 2, 3 };
	struct uvm_ioc_migrate out;
	struct uvm_counters d;
	struct uvm_range r[4];
	unsigned int i;

	memcpy(e->p, e->ref, e->len);
	for (i = 0; i < 4; i++)
		r[i] = range_of(e->p + i * e->ps, e->ps);
	locs[2] = UVM_LOC_GPU(e->dev.num_gpus);
	UVM_COUNT_DELTA(e->dev.fd, d,
		ASSERT_EQ(-ENODEV, uvm_migrate(e->dev.fd, UVM_MIGRATE_PREFETCH, 0, r, 4, locs,
					       starts, 3, &out)));
	ASSERT_EQ(2U, out.bad_location);
	ASSERT_EQ(NO_INDEX, out.bad_range);
	ASSERT_NO_COUNTS(d);
	locs[2] = UVM_LOC_GPU(0);
	locs[1] = uvm_loc(7, 0);
	ASSERT_EQ(-EINVAL, uvm_migrate(e->dev.fd, UVM_MIGRATE_DISCARD_PREFETCH, 0, r, 4, locs,
				       starts, 3, &out));
	ASSERT_EQ(1U, out.bad_location);
	locs[1] = UVM_LOC_NUMA(uvm_node_without_memory());
	ASSERT_EQ(-EINVAL, uvm_migrate(e->dev.fd, UVM_MIGRATE_PREFETCH, 0, r, 4, locs, starts, 3,
				       &out));
	ASSERT_EQ(1U, out.bad_location);
	ASSERT_RESIDENCY(&e->dev, e->p, e->npages, UVM_STATE_CPU);
	ASSERT_CPU_READ(e->p, e->len, e->ref);
}

/* BT-13: an invalid range after valid ones fails with its index; nothing changed at all */
TEST_F(migrate, batch_bad_range_changes_nothing)
{
	struct uvm_env *e = &self->e;
	const uint64_t ps = e->ps;
	struct uvm_location locs[2] = { UVM_LOC_GPU(0), UVM_LOC_HOST };
	uint64_t starts[2] = { 0, 3 };
	struct uvm_ioc_range_query q;
	struct uvm_ioc_migrate out;
	struct uvm_counters d;
	struct uvm_range r[6];
	unsigned int i;

	memcpy(e->p, e->ref, 4 * ps);
	ASSERT_GPU_WRITE(e, 0, e->p + 4 * ps, 4 * ps, e->ref + 4 * ps, 4);
	for (i = 0; i < 5; i++)
		r[i] = range_of(e->p + i * ps, ps);
	r[5] = range_of(e->p + 7 * ps, 2 * ps);		/* runs past the end */
	UVM_COUNT_DELTA(e->dev.fd, d, {
		ASSERT_EQ(-EINVAL, uvm_migrate(e->dev.fd, UVM_MIGRATE_PREFETCH, 0, r, 6, locs,
					       starts, 2, &out));
		ASSERT_EQ(5U, out.bad_range);
		ASSERT_EQ(NO_INDEX, out.bad_location);
		ASSERT_EQ(-EINVAL, uvm_migrate(e->dev.fd, UVM_MIGRATE_DISCARD_PREFETCH, 0, r, 6,
					       locs, starts, 2, &out));
		ASSERT_EQ(5U, out.bad_range);
		ASSERT_EQ(-EINVAL, uvm_migrate(e->dev.fd, UVM_MIGRATE_DISCARD, 0, r, 6, NULL,
					       NULL, 0, &out));
		ASSERT_EQ(5U, out.bad_range);
	});
	ASSERT_NO_COUNTS(d);
	ASSERT_RESIDENCY(&e->dev, e->p, 4, UVM_STATE_CPU);
	ASSERT_RESIDENCY(&e->dev, e->p + 4 * ps, 4, UVM_STATE_GPU(0));
	ASSERT_EQ(0, uvm_range_query(e->dev.fd, e->p, e->len, &q));
	ASSERT_LOCATION(UVM_LOC_INVALID, q.last_prefetch);
	ASSERT_EQ(0, uvm_range_query(e->dev.fd, e->p, ps, &q));
	ASSERT_LOCATION(UVM_LOC_INVALID, q.last_prefetch);
	ASSERT_CPU_READ(e->p, e->len, e->ref);
}

/* BT-14: unreadable ranges, locations or starts arrays are -EFAULT, nothing changed */
TEST_F(migrate, batch_bad_pointers)
{
	struct uvm_env *e = &self->e;
	struct uvm_range r = range_of(e->p, e->len);
	struct uvm_location loc = UVM_LOC_GPU(0);
	void *hole = uvm_unmapped_address(e->ps);
	uint64_t start = 0;

	ASSERT_EQ(-EFAULT, uvm_migrate(e->dev.fd, UVM_MIGRATE_PREFETCH, 0, NULL, 1, &loc, &start,
				       1, NULL));
	ASSERT_EQ(-EFAULT, uvm_migrate(e->dev.fd, UVM_MIGRATE_PREFETCH, 0, hole, 1, &loc, &start,
				       1, NULL));
	ASSERT_EQ(-EFAULT, uvm_migrate(e->dev.fd, UVM_MIGRATE_PREFETCH, 0, &r, 1, NULL, &start, 1,
				       NULL));
	ASSERT_EQ(-EFAULT, uvm_migrate(e->dev.fd, UVM_MIGRATE_PREFETCH, 0, &r, 1, &loc, NULL, 1,
				       NULL));
	ASSERT_EQ(-EFAULT, uvm_migrate(e->dev.fd, UVM_MIGRATE_DISCARD, 0, NULL, 1, NULL, NULL, 0,
				       NULL));
	ASSERT_EQ(-EFAULT, uvm_migrate(e->dev.fd, UVM_MIGRATE_PREFETCH, UVM_MIGRATE_ASYNC, &r, 1,
				       hole, &start, 1, NULL));
	ASSERT_RESIDENCY(&e->dev, e->p, e->npages, UVM_STATE_NONE);
}

/* BT-15: overlapping ranges in one batch: each page ends up in exactly one copy, data intact */
TEST_F(migrate, batch_overlapping_ranges)
{
	struct uvm_env *e = &self->e;
	const uint64_t ps = e->ps;
	struct uvm_location locs[2] = { UVM_LOC_GPU(0), UVM_LOC_HOST };
	struct uvm_range r[2] = { range_of(e->p, 4 * ps), range_of(e->p + 2 * ps, 4 * ps) };
	uint64_t starts[2] = { 0, 1 };
	struct uvm_test_page_state st[NPAGES];
	unsigned int i;

	memcpy(e->p, e->ref, e->len);
	ASSERT_EQ(0, uvm_migrate(e->dev.fd, UVM_MIGRATE_PREFETCH, 0, r, 2, locs, starts, 2, NULL));
	ASSERT_RESIDENCY(&e->dev, e->p, 2, UVM_STATE_GPU(0));
	/* Already on the host: they stay, mapped as they were. */
	ASSERT_RESIDENCY(&e->dev, e->p + 4 * ps, 2, UVM_STATE_CPU);
	ASSERT_EQ(0, uvm_residency(e->dev.fd, e->p, e->len, st));
	for (i = 2; i < 4; i++) {
		ASSERT_TRUE(st[i].resident == UVM_CPU_BIT || st[i].resident == UVM_GPU_BIT(0))
			TH_LOG("page %u resident %#llx", i, (unsigned long long)st[i].resident);
	}
	ASSERT_CPU_READ(e->p, e->len, e->ref);
}

/* RA-14 (decided): batch prefetches record each range's own destination as its last prefetch */
TEST_F(migrate, batch_sets_last_prefetch)
{
	struct uvm_env *e = &self->e;
	const uint64_t ps = e->ps;
	struct uvm_location locs[2] = { UVM_LOC_GPU(0), UVM_LOC_HOST };
	struct uvm_range r[4] = {
		range_of(e->p, ps), range_of(e->p + ps, ps),
		range_of(e->p + 4 * ps, 2 * ps), range_of(e->p + 6 * ps, 2 * ps),
	};
	uint64_t starts[2] = { 0, 2 };
	struct uvm_ioc_range_query q;

	ASSERT_EQ(0, uvm_migrate(e->dev.fd, UVM_MIGRATE_PREFETCH, 0, r, 4, locs, starts, 2, NULL));
	ASSERT_EQ(0, uvm_range_query(e->dev.fd, e->p, 2 * ps, &q));
	ASSERT_LOCATION(UVM_LOC_GPU(0), q.last_prefetch);
	ASSERT_EQ(0, uvm_range_query(e->dev.fd, e->p + 4 * ps, 4 * ps, &q));
	ASSERT_LOCATION(UVM_LOC_HOST, q.last_prefetch);
	/* Pages 2-3 were never prefetched. */
	ASSERT_EQ(0, uvm_range_query(e->dev.fd, e->p + ps, 2 * ps, &q));
	ASSERT_LOCATION(UVM_LOC_INVALID, q.last_prefetch);
	ASSERT_EQ(0, uvm_migrate(e->dev.fd, UVM_MIGRATE_DISCARD_PREFETCH, 0, r, 4, locs + 1,
				 starts, 1, NULL));
	ASSERT_EQ(0, uvm_range_query(e->dev.fd, e->p, 2 * ps, &q));
	ASSERT_LOCATION(UVM_LOC_HOST, q.last_prefetch);
}

/* Each range of a batch is rounded to pages on its own */
TEST_F(migrate, batch_unaligned_ranges)
{
	struct uvm_env *e = &self->e;
	const uint64_t ps = e->ps;
	struct uvm_location loc = UVM_LOC_GPU(0);
	struct uvm_range r[2] = { range_of(e->p + 10, 1), range_of(e->p + 4 * ps - 1, 2) };
	uint64_t start = 0;

	memcpy(e->p, e->ref, e->len);
	ASSERT_EQ(0, uvm_migrate(e->dev.fd, UVM_MIGRATE_PREFETCH, 0, r, 2, &loc, &start, 1, NULL));
	ASSERT_RESIDENCY(&e->dev, e->p, 1, UVM_STATE_GPU(0));
	ASSERT_RESIDENCY(&e->dev, e->p + ps, 2, UVM_STATE_CPU);
	ASSERT_RESIDENCY(&e->dev, e->p + 3 * ps, 2, UVM_STATE_GPU(0));
	ASSERT_RESIDENCY(&e->dev, e->p + 5 * ps, 3, UVM_STATE_CPU);
	ASSERT_CPU_READ(e->p, e->len, e->ref);
}

/*
 * The ranges array may itself live in managed memory that is on a GPU: the
 * module copies it in (faulting it back to the CPU) without deadlocking
 */
TEST_F(migrate, batch_ranges_in_managed_memory)
{
	struct uvm_env *e = &self->e;
	struct uvm_range *r = (struct uvm_range *)e->p;
	struct uvm_location *loc = (struct uvm_location *)(e->p + e->ps);
	uint64_t *start = (uint64_t *)(e->p + 2 * e->ps);
	uint8_t *q = uvm_mmap(&e->dev, 4 * e->ps);

	ASSERT_NE(MAP_FAILED, q);
	memcpy(q, e->ref, 4 * e->ps);
	r[0] = range_of(q, 2 * e->ps);
	r[1] = range_of(q + 3 * e->ps, e->ps);
	*loc = UVM_LOC_GPU(0);
	*start = 0;
	ASSERT_EQ(0, uvm_prefetch(e->dev.fd, e->p, 3 * e->ps, UVM_LOC_GPU(0)));
	ASSERT_EQ(0, uvm_migrate(e->dev.fd, UVM_MIGRATE_PREFETCH, 0, r, 2, loc, start, 1, NULL));
	ASSERT_RESIDENCY(&e->dev, q, 2, UVM_STATE_GPU(0));
	ASSERT_RESIDENCY(&e->dev, q + 2 * e->ps, 1, UVM_STATE_CPU);
	ASSERT_RESIDENCY(&e->dev, q + 3 * e->ps, 1, UVM_STATE_GPU(0));
	/* Again with the arrays on the GPU, asynchronously. */
	ASSERT_EQ(0, uvm_prefetch(e->dev.fd, e->p, 3 * e->ps, UVM_LOC_GPU(0)));
	*loc = UVM_LOC_HOST;
	ASSERT_EQ(0, uvm_prefetch(e->dev.fd, e->p, 3 * e->ps, UVM_LOC_GPU(0)));
	ASSERT_EQ(0, uvm_migrate(e->dev.fd, UVM_MIGRATE_PREFETCH, UVM_MIGRATE_ASYNC, r, 2, loc,
				 start, 1, NULL));
	ASSERT_EQ(0, uvm_fence_wait(e->dev.fd, 0, 0, NULL));
	ASSERT_RESIDENCY(&e->dev, q, 2, STATE_HOST_UNMAPPED);
	ASSERT_CPU_READ(q, 4 * e->ps, e->ref);
	munmap(q, 4 * e->ps);
}

/* 4096 one-page ranges in two location groups in one batch, all done exactly */
TEST_F(migrate, batch_4096_ranges)
{
	struct uvm_env *e = &self->e;
	const uint64_t ps = e->ps, count = 4096, len = 2 * count * ps;
	struct uvm_location locs[2] = { UVM_LOC_GPU(0), UVM_LOC_HOST };
	struct uvm_range *r = calloc(count, sizeof(*r));
	struct uvm_test_page_state *st = calloc(2 * count, sizeof(*st));
	uint64_t starts[2] = { 0, count / 2 }, i;
	uint8_t *p = uvm_mmap(&e->dev, len);
	struct uvm_counters d;

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_NE(NULL, r);
	ASSERT_NE(NULL, st);
	for (i = 0; i < count; i++)
		r[i] = range_of(p + 2 * i * ps, ps);
	UVM_COUNT_DELTA(e->dev.fd, d,
		ASSERT_EQ(0, uvm_migrate(e->dev.fd, UVM_MIGRATE_PREFETCH, 0, r, count, locs,
					 starts, 2, NULL)));
	ASSERT_EQ(count, d.c[UVM_COUNTER_PAGES_PREFETCHED]);
	ASSERT_EQ(count / 2, d.c[UVM_COUNTER_PAGES_POPULATED_GPU]);
	ASSERT_EQ(count / 2, d.c[UVM_COUNTER_PAGES_POPULATED_CPU]);
	ASSERT_EQ(0, uvm_residency(e->dev.fd, p, len, st));
	for (i = 0; i < 2 * count; i++) {
		uint64_t want = i % 2 ? 0 : i < count ? UVM_GPU_BIT(0) : UVM_CPU_BIT;

		ASSERT_EQ(want, st[i].resident) TH_LOG("page %llu", (unsigned long long)i);
	}
	ASSERT_EQ(0, uvm_migrate(e->dev.fd, UVM_MIGRATE_DISCARD, 0, r, count, NULL, NULL, 0, NULL));
	ASSERT_EQ(0, uvm_residency(e->dev.fd, p, len, st));
	for (i = 0; i < 2 * count; i++) {
		ASSERT_EQ(0ULL, st[i].resident) TH_LOG("page %llu", (unsigned long long)i);
	}
	munmap(p, len);
	free(r);
	free(st);
}

/*
 * Adjacent ranges of one batch are merged into runs inside the module; the
 * merge keeps each range's destination (groups of 300 ranges, alternately
 * GPU 0 and the host, so that groups also straddle the 256-range chunks the
 * module copies in) and never spans two allocations.
 */
TEST_F(migrate, batch_adjacent_ranges_keep_destinations)
{
	struct uvm_env *e = &self->e;
	const uint64_t ps = e->ps, count = 2048, group = 300;
	const uint64_t nlocs = (count + group - 1) / group;
	struct uvm_location *locs = calloc(nlocs, sizeof(*locs));
	struct uvm_range *r = calloc(count, sizeof(*r));
	struct uvm_test_page_state *st = calloc(count, sizeof(*st));
	uint64_t *starts = calloc(nlocs, sizeof(*starts)), i;
	struct uvm_counters d;
	uint8_t *p[2];

	ASSERT_NE(NULL, locs);
	ASSERT_NE(NULL, r);
	ASSERT_NE(NULL, st);
	ASSERT_NE(NULL, starts);
	/* Two allocations of count / 2 pages, back to back. */
	ASSERT_EQ(0, uvm_mmap_adjacent(&e->dev, count / 2 * ps, p));
	for (i = 0; i < count; i++)
		r[i] = range_of(p[0] + i * ps, ps);
	for (i = 0; i < nlocs; i++) {
		starts[i] = i * group;
		locs[i] = i % 2 ? UVM_LOC_HOST : UVM_LOC_GPU(0);
	}
	UVM_COUNT_DELTA(e->dev.fd, d,
		ASSERT_EQ(0, uvm_migrate(e->dev.fd, UVM_MIGRATE_PREFETCH, 0, r, count, locs,
					 starts, nlocs, NULL)));
	ASSERT_EQ(count, d.c[UVM_COUNTER_PAGES_PREFETCHED]);
	ASSERT_EQ(0, uvm_residency(e->dev.fd, p[0], count * ps, st));
	for (i = 0; i < count; i++) {
		uint64_t want = (i / group) % 2 ? UVM_CPU_BIT : UVM_GPU_BIT(0);

		ASSERT_EQ(want, st[i].resident) TH_LOG("page %llu", (unsigned long long)i);
	}
	/* The same batch, asynchronously, to the other side of each group. */
	for (i = 0; i < nlocs; i++)
		locs[i] = i % 2 ? UVM_LOC_GPU(0) : UVM_LOC_HOST;
	ASSERT_EQ(0, uvm_migrate(e->dev.fd, UVM_MIGRATE_PREFETCH, UVM_MIGRATE_ASYNC, r, count,
				 locs, starts, nlocs, NULL));
	ASSERT_EQ(0, uvm_fence_wait(e->dev.fd, 0, 0, NULL));
	ASSERT_EQ(0, uvm_residency(e->dev.fd, p[0], count * ps, st));
	for (i = 0; i < count; i++) {
		uint64_t want = (i / group) % 2 ? UVM_GPU_BIT(0) : UVM_CPU_BIT;

		ASSERT_EQ(want, st[i].resident) TH_LOG("page %llu", (unsigned long long)i);
	}
	munmap(p[0], count * ps);
	free(locs);
	free(r);
	free(st);
	free(starts);
}

/*
 * A bad range, or an unreadable part of the array, after the first chunks
 * of a long batch: its index or -EFAULT, and nothing happened to the
 * ranges before it.
 */
TEST_F(migrate, batch_late_error_changes_nothing)
{
	struct uvm_env *e = &self->e;
	const uint64_t ps = e->ps, count = 1000, bad = 777;
	struct uvm_location loc = UVM_LOC_GPU(0);
	uint64_t start = 0, i, arr = count * sizeof(struct uvm_range);
	uint64_t alen = (arr + ps - 1) / ps * ps;
	struct uvm_ioc_range_query q;
	struct uvm_ioc_migrate out;
	struct uvm_counters d;
	struct uvm_range *r;
	uint8_t *p = uvm_mmap(&e->dev, count * ps), *a;

	ASSERT_NE(MAP_FAILED, p);
	/* The array ends where an unreadable page begins. */
	a = mmap(NULL, alen + ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, a);
	ASSERT_EQ(0, mprotect(a + alen, ps, PROT_NONE));
	r = (struct uvm_range *)(a + alen - arr);
	for (i = 0; i < count; i++)
		r[i] = range_of(p + i * ps, ps);
	r[bad] = range_of(e->p + e->len - ps, 2 * ps);	/* runs past its allocation */
	UVM_COUNT_DELTA(e->dev.fd, d, {
		ASSERT_EQ(-EINVAL, uvm_migrate(e->dev.fd, UVM_MIGRATE_PREFETCH, 0, r, count, &loc,
					       &start, 1, &out));
		ASSERT_EQ(bad, out.bad_range);
		ASSERT_EQ(-EINVAL, uvm_migrate(e->dev.fd, UVM_MIGRATE_PREFETCH, UVM_MIGRATE_ASYNC,
					       r, count, &loc, &start, 1, &out));
		ASSERT_EQ(bad, out.bad_range);
		ASSERT_EQ(-EINVAL, uvm_migrate(e->dev.fd, UVM_MIGRATE_DISCARD, 0, r, count, NULL,
					       NULL, 0, &out));
		ASSERT_EQ(bad, out.bad_range);
		/* One range more than the readable array. */
		r[bad] = range_of(p + bad * ps, ps);
		ASSERT_EQ(-EFAULT, uvm_migrate(e->dev.fd, UVM_MIGRATE_PREFETCH, 0, r,
					       count + 1, &loc, &start, 1, &out));
	});
	ASSERT_NO_COUNTS(d);
	ASSERT_EQ(0, uvm_range_query(e->dev.fd, p, count * ps, &q));
	ASSERT_LOCATION(UVM_LOC_INVALID, q.last_prefetch);
	ASSERT_RESIDENCY(&e->dev, p, count, UVM_STATE_NONE);
	/* And the whole array, once valid, does what it says. */
	ASSERT_EQ(0, uvm_migrate(e->dev.fd, UVM_MIGRATE_PREFETCH, 0, r, count, &loc, &start, 1,
				 NULL));
	ASSERT_RESIDENCY(&e->dev, p, count, UVM_STATE_GPU(0));
	munmap(a, alen + ps);
	munmap(p, count * ps);
}

/* Fences */

/* Fences are handed out in order, 1, 2, ... per VA space, to synchronous and asynchronous batches */
TEST_F(migrate, fence_numbers)
{
	struct uvm_env *e = &self->e;
	uint64_t f1 = 0, f2 = 0, f3 = 0, completed = 0;
	struct uvm_dev other = e->dev;

	ASSERT_EQ(0, uvm_migrate1(e->dev.fd, UVM_MIGRATE_PREFETCH, 0, e->p, e->ps,
				  UVM_LOC_GPU(0), &f1));
	ASSERT_EQ(0, uvm_migrate1(e->dev.fd, UVM_MIGRATE_PREFETCH, UVM_MIGRATE_ASYNC, e->p, e->ps,
				  UVM_LOC_HOST, &f2));
	ASSERT_EQ(0, uvm_migrate1(e->dev.fd, UVM_MIGRATE_DISCARD, 0, e->p, e->ps,
				  UVM_LOC_INVALID, &f3));
	ASSERT_EQ(1ULL, f1);
	ASSERT_EQ(2ULL, f2);
	ASSERT_EQ(3ULL, f3);
	ASSERT_EQ(0, uvm_fence_wait(e->dev.fd, f3, UVM_FENCE_WAIT_POLL, &completed));
	ASSERT_EQ(3ULL, completed);
	/* Another VA space counts from 1 on its own. */
	other.fd = uvm_open();
	ASSERT_LE(0, other.fd);
	ASSERT_EQ(-EINVAL, uvm_fence_wait(other.fd, 1, 0, NULL));
	close(other.fd);
}

/* Async batches complete in submission order: waiting for the last completes all, data follows the last */
TEST_F(migrate, fences_complete_in_order)
{
	struct uvm_env *e = &self->e;
	const struct uvm_location dests[6] = {
		UVM_LOC_GPU(0), UVM_LOC_HOST, UVM_LOC_GPU(0), UVM_LOC_NUMA_CURRENT,
		UVM_LOC_HOST, UVM_LOC_GPU(0),
	};
	uint64_t fences[6], completed = 0;
	unsigned int i;

	memcpy(e->p, e->ref, e->len);
	for (i = 0; i < 6; i++) {
		ASSERT_EQ(0, uvm_migrate1(e->dev.fd, UVM_MIGRATE_PREFETCH, UVM_MIGRATE_ASYNC, e->p,
					  e->len, dests[i], &fences[i]));
		if (i)
			ASSERT_EQ(fences[i - 1] + 1, fences[i]);
	}
	ASSERT_EQ(0, uvm_fence_wait(e->dev.fd, fences[5], 0, &completed));
	ASSERT_LE(fences[5], completed);
	for (i = 0; i < 6; i++) {
		ASSERT_EQ(0, uvm_fence_wait(e->dev.fd, fences[i], UVM_FENCE_WAIT_POLL, NULL));
	}
	ASSERT_RESIDENCY(&e->dev, e->p, e->npages, UVM_STATE_GPU(0));
	ASSERT_GPU_READ(e, 0, e->p, e->len, e->ref, 0);
}

/* BT-16: a synchronous batch submitted behind an async one runs after it: the async fence is done */
TEST_F(migrate, sync_batch_after_async)
{
	struct uvm_env *e = &self->e;
	uint8_t *big = uvm_mmap(&e->dev, BIG_LEN);
	uint64_t fence, completed = 0;

	ASSERT_NE(MAP_FAILED, big);
	submit_big(_metadata, e->dev.fd, big, &fence);
	ASSERT_EQ(0, uvm_prefetch(e->dev.fd, e->p, e->len, UVM_LOC_GPU(0)));
	ASSERT_EQ(0, uvm_fence_wait(e->dev.fd, fence, UVM_FENCE_WAIT_POLL, &completed));
	ASSERT_LE(fence + 1, completed);
	munmap(big, BIG_LEN);
}

/* A pending fence polls as -EAGAIN; after a wait it polls as done */
TEST_F(migrate, fence_poll_pending)
{
	struct uvm_env *e = &self->e;
	uint8_t *big = uvm_mmap(&e->dev, BIG_LEN);
	uint64_t fence, completed = 0;

	ASSERT_NE(MAP_FAILED, big);
	submit_big(_metadata, e->dev.fd, big, &fence);
	ASSERT_EQ(-EAGAIN, uvm_fence_wait(e->dev.fd, fence, UVM_FENCE_WAIT_POLL, &completed));
	ASSERT_GT(fence, completed);
	ASSERT_EQ(0, uvm_fence_wait(e->dev.fd, fence, 0, &completed));
	ASSERT_LE(fence, completed);
	ASSERT_EQ(0, uvm_fence_wait(e->dev.fd, fence, UVM_FENCE_WAIT_POLL, NULL));
	munmap(big, BIG_LEN);
}

/* Fence 0 waits for everything submitted so far */
TEST_F(migrate, fence_zero_waits_for_all)
{
	struct uvm_env *e = &self->e;
	uint8_t *big = uvm_mmap(&e->dev, BIG_LEN);
	uint64_t fence, last = 0, completed = 0;

	ASSERT_NE(MAP_FAILED, big);
	/* Nothing submitted yet: fence 0 is already complete. */
	ASSERT_EQ(0, uvm_fence_wait(e->dev.fd, 0, UVM_FENCE_WAIT_POLL, &completed));
	ASSERT_EQ(0ULL, completed);
	submit_big(_metadata, e->dev.fd, big, &fence);
	ASSERT_EQ(0, uvm_migrate1(e->dev.fd, UVM_MIGRATE_PREFETCH, UVM_MIGRATE_ASYNC, e->p, e->len,
				  UVM_LOC_GPU(0), &last));
	ASSERT_EQ(-EAGAIN, uvm_fence_wait(e->dev.fd, 0, UVM_FENCE_WAIT_POLL, NULL));
	ASSERT_EQ(0, uvm_fence_wait(e->dev.fd, 0, 0, &completed));
	ASSERT_LE(last, completed);
	ASSERT_EQ(0, uvm_fence_wait(e->dev.fd, fence, UVM_FENCE_WAIT_POLL, NULL));
	ASSERT_RESIDENCY(&e->dev, e->p, e->npages, UVM_STATE_GPU(0));
	munmap(big, BIG_LEN);
}

/* A fence never handed out is -EINVAL, waiting or polling */
TEST_F(migrate, fence_never_handed_out)
{
	struct uvm_env *e = &self->e;
	uint64_t fence = 0;

	ASSERT_EQ(-EINVAL, uvm_fence_wait(e->dev.fd, 1, 0, NULL));
	ASSERT_EQ(-EINVAL, uvm_fence_wait(e->dev.fd, 1, UVM_FENCE_WAIT_POLL, NULL));
	ASSERT_EQ(0, uvm_migrate1(e->dev.fd, UVM_MIGRATE_PREFETCH, UVM_MIGRATE_ASYNC, e->p, e->len,
				  UVM_LOC_HOST, &fence));
	ASSERT_EQ(-EINVAL, uvm_fence_wait(e->dev.fd, fence + 1, 0, NULL));
	ASSERT_EQ(-EINVAL, uvm_fence_wait(e->dev.fd, UINT64_MAX, 0, NULL));
	ASSERT_EQ(0, uvm_fence_wait(e->dev.fd, fence, 0, NULL));
}

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * FENCE_TIME: pending is -EAGAIN; a completed fence's time lies between its
 * submission and the wait's return, fences complete in order, asking again
 * gives the same time; a later small job's time is not the long one's.
 */
TEST_F(migrate, fence_time)
{
	struct uvm_env *e = &self->e;
	uint8_t *big = uvm_mmap(&e->dev, BIG_LEN);
	uint64_t before, after, fence, last = 0, t_big = 0, t_last = 0, again = 0;

	ASSERT_NE(MAP_FAILED, big);
	before = monotonic_ns();
	submit_big(_metadata, e->dev.fd, big, &fence);
	ASSERT_EQ(0, uvm_migrate1(e->dev.fd, UVM_MIGRATE_PREFETCH, UVM_MIGRATE_ASYNC, e->p, e->len,
				  UVM_LOC_GPU(0), &last));
	ASSERT_EQ(-EAGAIN, uvm_fence_time(e->dev.fd, last, &t_last));
	ASSERT_EQ(0, uvm_fence_wait(e->dev.fd, last, 0, NULL));
	after = monotonic_ns();
	ASSERT_EQ(0, uvm_fence_time(e->dev.fd, fence, &t_big));
	ASSERT_EQ(0, uvm_fence_time(e->dev.fd, last, &t_last));
	ASSERT_LT(before, t_big);
	ASSERT_LE(t_big, t_last);
	ASSERT_GE(after, t_last);
	ASSERT_EQ(0, uvm_fence_time(e->dev.fd, fence, &again));
	ASSERT_EQ(t_big, again);
	munmap(big, BIG_LEN);
}

/*
 * FENCE_TIME keeps the last UVM_FENCE_TIMES_KEPT times: an older fence is
 * -ENOENT; 0, a fence never handed out and reserved fields are -EINVAL.
 */
TEST_F(migrate, fence_time_limits)
{
	struct uvm_env *e = &self->e;
	struct uvm_ioc_fence_time t = { 0 };
	uint64_t first = 0, fence = 0, ns;

	ASSERT_EQ(-EINVAL, uvm_fence_time(e->dev.fd, 0, NULL));
	ASSERT_EQ(-EINVAL, uvm_fence_time(e->dev.fd, 1, NULL));
	for (int i = 0; i <= UVM_FENCE_TIMES_KEPT; i++) {
		ASSERT_EQ(0, uvm_migrate1(e->dev.fd, UVM_MIGRATE_PREFETCH, UVM_MIGRATE_ASYNC,
					  e->p, e->dev.page_size, UVM_LOC_HOST, &fence));
		if (!i)
			first = fence;
	}
	ASSERT_EQ(0, uvm_fence_wait(e->dev.fd, fence, 0, NULL));
	ASSERT_EQ(-ENOENT, uvm_fence_time(e->dev.fd, first, &ns));
	ASSERT_EQ(0, uvm_fence_time(e->dev.fd, first + 1, &ns));
	ASSERT_EQ(0, uvm_fence_time(e->dev.fd, fence, &ns));
	ASSERT_EQ(-EINVAL, uvm_fence_time(e->dev.fd, fence + 1, &ns));
	t.fence = fence;
	t.reserved[1] = 1;
	ASSERT_EQ(-EINVAL, uvm_ioctl(e->dev.fd, UVM_IOC_FENCE_TIME, &t));
}

/* FENCE_WAIT with unknown flags or a non-zero pad is -EINVAL */
TEST_F(migrate, fence_wait_bad_fields)
{
	struct uvm_env *e = &self->e;
	struct uvm_ioc_fence_wait w = { .flags = 2 };

	ASSERT_EQ(-EINVAL, uvm_ioctl(e->dev.fd, UVM_IOC_FENCE_WAIT, &w));
	w.flags = UVM_FENCE_WAIT_POLL | (1U << 31);
	ASSERT_EQ(-EINVAL, uvm_ioctl(e->dev.fd, UVM_IOC_FENCE_WAIT, &w));
	w.flags = 0;
	w.pad = 1;
	ASSERT_EQ(-EINVAL, uvm_ioctl(e->dev.fd, UVM_IOC_FENCE_WAIT, &w));
	w.pad = 0;
	ASSERT_EQ(0, uvm_ioctl(e->dev.fd, UVM_IOC_FENCE_WAIT, &w));
}

/*
 * A batch that fails while running (GPU 0's memory all taken by device
 * memory, which is never evicted) reports -ENOMEM once through its fence,
 * both synchronously and asynchronously; the pages it could not move keep
 * their data, a later batch is unaffected.
 */
TEST_F_TIMEOUT(migrate, failed_batch_error_reported_once, 180)
{
	struct uvm_env *e = &self->e;
	struct uvm_ioc_gpu_info info;
	struct uvm_location loc = UVM_LOC_GPU(0), host = UVM_LOC_HOST;
	uint64_t chunks, nblocks = 4, i, fence, start = 0, stamp;
	struct uvm_range *r;
	uint8_t *p, *dev;

	ASSERT_EQ(0, uvm_gpu_info(e->dev.fd, 0, &info));
	chunks = info.vidmem_size / UVM_VA_BLOCK_SIZE;
	if (chunks > 512)
		UVM_SKIP("GPU 0 has %llu MiB of vidmem: too much to exhaust quickly",
			 (unsigned long long)(info.vidmem_size >> 20));
	ASSERT_EQ(0ULL, uvm_vidmem_wait(e->dev.fd, 0, 0));
	dev = mmap(NULL, info.vidmem_size, PROT_NONE, MAP_SHARED, e->dev.fd,
		   UVM_MMAP_DEVICE(0));
	ASSERT_NE(MAP_FAILED, dev);
	p = uvm_mmap_block_aligned(&e->dev, nblocks * UVM_VA_BLOCK_SIZE);
	r = calloc(nblocks, sizeof(*r));
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_NE(NULL, r);
	for (i = 0; i < nblocks; i++) {
		r[i] = range_of(p + i * UVM_VA_BLOCK_SIZE, e->ps);
		*(volatile uint64_t *)(p + i * UVM_VA_BLOCK_SIZE) = i + 1;
	}
	ASSERT_EQ(-ENOMEM, uvm_migrate(e->dev.fd, UVM_MIGRATE_PREFETCH, 0, r, nblocks, &loc,
				       &start, 1, NULL));
	/* Synchronous: reported by the ioctl itself, not again by the fence. */
	ASSERT_EQ(0, uvm_fence_wait(e->dev.fd, 0, 0, NULL));
	ASSERT_EQ(0, uvm_migrate(e->dev.fd, UVM_MIGRATE_PREFETCH, 0, r, nblocks, &host, &start, 1,
				 NULL));
	ASSERT_EQ(info.vidmem_size, uvm_vidmem_used(e->dev.fd, 0));
	ASSERT_EQ(0, uvm_migrate(e->dev.fd, UVM_MIGRATE_PREFETCH, UVM_MIGRATE_ASYNC, r, nblocks,
				 &loc, &start, 1, NULL));
	ASSERT_EQ(0, uvm_migrate1(e->dev.fd, UVM_MIGRATE_PREFETCH, UVM_MIGRATE_ASYNC, e->p, e->ps,
				  UVM_LOC_HOST, &fence));
	ASSERT_EQ(0, uvm_fence_wait(e->dev.fd, fence, 0, NULL));
	ASSERT_EQ(-ENOMEM, uvm_fence_wait(e->dev.fd, fence - 1, 0, NULL));
	ASSERT_EQ(0, uvm_fence_wait(e->dev.fd, fence - 1, 0, NULL));
	ASSERT_EQ(0, uvm_fence_wait(e->dev.fd, fence - 1, UVM_FENCE_WAIT_POLL, NULL));
	for (i = 0; i < nblocks; i++) {
		stamp = *(volatile uint64_t *)(p + i * UVM_VA_BLOCK_SIZE);
		ASSERT_EQ(i + 1, stamp) TH_LOG("block %llu", (unsigned long long)i);
	}
	munmap(p, nblocks * UVM_VA_BLOCK_SIZE);
	munmap(dev, info.vidmem_size);
	ASSERT_EQ(0ULL, uvm_vidmem_wait(e->dev.fd, 0, 0));
	free(r);
}

static int exit_with_pending_batch(void *arg)
{
	struct uvm_location loc = UVM_LOC_GPU(0);
	struct uvm_range r;
	uint64_t start = 0;
	int fd = uvm_open();
	uint8_t *p;

	(void)arg;
	if (fd < 0)
		return 1;
	p = mmap(NULL, BIG_LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return 2;
	r = range_of(p, BIG_LEN);
	if (uvm_migrate(fd, UVM_MIGRATE_PREFETCH, UVM_MIGRATE_ASYNC, &r, 1, &loc, &start, 1, NULL))
		return 3;
	return 0;	/* exit with the batch queued or running */
}

/* A process that exits with an async batch pending: the batch is finished or dropped, vidmem returns */
TEST_F(migrate, exit_with_pending_batch)
{
	struct uvm_env *e = &self->e;

	ASSERT_EQ(0ULL, uvm_vidmem_wait(e->dev.fd, 0, 0));
	ASSERT_EQ(0, uvm_run_child(exit_with_pending_batch, NULL));
	ASSERT_EQ(0ULL, uvm_vidmem_wait(e->dev.fd, 0, 0));
	/* The module still works for us. */
	ASSERT_EQ(0, uvm_prefetch(e->dev.fd, e->p, e->len, UVM_LOC_GPU(0)));
	ASSERT_RESIDENCY(&e->dev, e->p, e->npages, UVM_STATE_GPU(0));
}

/* munmap of a range with an async batch in flight on it: no crash, batch completes (maybe -EFAULT), memory freed */
TEST_F(migrate, munmap_during_async_batch)
{
	struct uvm_env *e = &self->e;
	uint8_t *big = uvm_mmap(&e->dev, BIG_LEN);
	uint64_t fence;
	int ret;

	ASSERT_NE(MAP_FAILED, big);
	ASSERT_EQ(0ULL, uvm_vidmem_wait(e->dev.fd, 0, 0));
	ASSERT_EQ(0, uvm_migrate1(e->dev.fd, UVM_MIGRATE_PREFETCH, UVM_MIGRATE_ASYNC, big, BIG_LEN,
				  UVM_LOC_GPU(0), &fence));
	ASSERT_EQ(0, munmap(big, BIG_LEN));
	ret = uvm_fence_wait(e->dev.fd, fence, 0, NULL);
	ASSERT_TRUE(ret == 0 || ret == -EFAULT) TH_LOG("fence wait: %d", ret);
	ASSERT_EQ(0ULL, uvm_vidmem_wait(e->dev.fd, 0, 0));
}

static int wait_for_long_batches(void *arg)
{
	struct uvm_location locs[2] = { UVM_LOC_GPU(0), UVM_LOC_HOST };
	uint64_t starts[2] = { 0, 1 };
	struct uvm_range r[2];
	int fd = uvm_open(), i;
	uint8_t *p;

	(void)arg;
	if (fd < 0)
		return 1;
	p = mmap(NULL, BIG_LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return 2;
	r[0] = range_of(p, BIG_LEN);
	r[1] = r[0];
	for (i = 0; i < 8; i++)
		if (uvm_migrate(fd, UVM_MIGRATE_PREFETCH, UVM_MIGRATE_ASYNC, r, 2, locs, starts, 2,
				NULL))
			return 3;
	/* Killed in here, or it returns once all of it ran. */
	return uvm_fence_wait(fd, 0, 0, NULL) ? 4 : 5;
}

/* A FENCE_WAIT behind long batches is ended by SIGKILL; the process exits, vidmem returns */
TEST_F_TIMEOUT(migrate, fence_wait_is_killable, 120)
{
	struct uvm_env *e = &self->e;
	pid_t pid;
	int ret;

	ASSERT_EQ(0ULL, uvm_vidmem_wait(e->dev.fd, 0, 0));
	fflush(NULL);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(wait_for_long_batches(NULL));
	ret = uvm_wait_in_syscall(pid, pid, SYS_ioctl, 20000);
	ASSERT_EQ(0, ret);
	/* It may still be submitting: wait for the FENCE_WAIT itself. */
	usleep(200000);
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(UVM_CHILD_SIGNALED(SIGKILL), uvm_wait_child(pid));
	ASSERT_EQ(0ULL, uvm_vidmem_wait(e->dev.fd, 0, 0));
}

/* Closing the descriptor with a batch pending: the ranges still work until munmap, then all is freed */
TEST_F(migrate, close_with_pending_batch)
{
	struct uvm_env *e = &self->e;
	struct uvm_dev other = e->dev;
	uint8_t *big;
	uint64_t fence;

	ASSERT_EQ(0ULL, uvm_vidmem_wait(e->dev.fd, 0, 0));
	other.fd = uvm_open();
	ASSERT_LE(0, other.fd);
	big = uvm_mmap(&other, BIG_LEN);
	ASSERT_NE(MAP_FAILED, big);
	big[BIG_LEN - 1] = 0x11;
	ASSERT_EQ(0, uvm_migrate1(other.fd, UVM_MIGRATE_PREFETCH, UVM_MIGRATE_ASYNC, big, BIG_LEN,
				  UVM_LOC_GPU(0), &fence));
	ASSERT_EQ(0, close(other.fd));
	ASSERT_EQ(0x11, big[BIG_LEN - 1]);
	ASSERT_EQ(0, big[0]);
	ASSERT_EQ(0, munmap(big, BIG_LEN));
	ASSERT_EQ(0ULL, uvm_vidmem_wait(e->dev.fd, 0, 0));
}

/* Asynchronous submissions and polls of one thread, racing sync_async_race's. */
struct race_arg {
	int fd;
	uint8_t *p;
	uint64_t len;
	int iters;
	int err;
};

static void *race_async(void *data)
{
	struct race_arg *a = data;
	uint64_t fence, completed = 0, last = 0;
	int i, ret;

	for (i = 0; i < a->iters && !a->err; i++) {
		ret = uvm_migrate1(a->fd, UVM_MIGRATE_PREFETCH, UVM_MIGRATE_ASYNC, a->p, a->len,
				   i % 2 ? UVM_LOC_HOST : UVM_LOC_GPU(0), &fence);
		if (!ret)
			ret = uvm_fence_wait(a->fd, 0, UVM_FENCE_WAIT_POLL, &completed);
		if (ret == -EAGAIN)
			ret = 0;
		if (!ret && completed < last)
			ret = -ERANGE;
		last = completed;
		if (ret)
			a->err = ret;
	}
	return NULL;
}

/* Sync and async batches racing from two threads: every wait returns, the completed fence never goes back */
TEST_F_TIMEOUT(migrate, sync_async_race, 120)
{
	struct uvm_env *e = &self->e;
	struct race_arg a = { .fd = e->dev.fd, .p = e->p, .len = e->ps, .iters = 300 };
	uint64_t completed = 0, last = 0;
	pthread_t t;
	int i, ret;

	ASSERT_EQ(0, pthread_create(&t, NULL, race_async, &a));
	for (i = 0; i < 300 && !a.err; i++) {
		ASSERT_EQ(0, uvm_prefetch(e->dev.fd, e->p + e->ps, e->ps,
					  i % 2 ? UVM_LOC_GPU(0) : UVM_LOC_HOST));
		ret = uvm_fence_wait(e->dev.fd, 0, UVM_FENCE_WAIT_POLL, &completed);
		ASSERT_TRUE(ret == 0 || ret == -EAGAIN) TH_LOG("poll: %d", ret);
		ASSERT_LE(last, completed);
		last = completed;
	}
	pthread_join(t, NULL);
	ASSERT_EQ(0, a.err);
	ASSERT_EQ(0, uvm_fence_wait(e->dev.fd, 0, 0, NULL));
}

/*
 * ASSERT the residency invariants on every page of [addr, +npages): mappings
 * only of resident pages, write implies read, atomic implies write, and a
 * page with several copies is mapped read-only everywhere.
 */
#define ASSERT_INVARIANTS(e, addr, npages) do {					\
	struct uvm_test_page_state __st[64];					\
	unsigned int __i;							\
	ASSERT_LE((uint64_t)(npages), 64ULL);					\
	ASSERT_EQ(0, uvm_residency((e)->dev.fd, (addr), (npages) * (e)->ps, __st)); \
	for (__i = 0; __i < (npages); __i++) {					\
		const struct uvm_test_page_state *__s = &__st[__i];		\
		ASSERT_TRUE(!__s->mapped_read || __s->resident)			\
			TH_LOG("page %u mapped but resident nowhere", __i);	\
		ASSERT_EQ(0ULL, __s->mapped_write & ~__s->mapped_read)		\
			TH_LOG("page %u", __i);					\
		ASSERT_EQ(0ULL, __s->mapped_atomic & ~__s->mapped_write)	\
			TH_LOG("page %u", __i);					\
		if (__builtin_popcountll(__s->resident) > 1) {			\
			ASSERT_EQ(0ULL, __s->mapped_write)			\
				TH_LOG("page %u: duplicated but writable", __i); \
		}								\
	}									\
} while (0)

struct stress_arg {
	struct uvm_env *e;
	uint8_t *p;
	unsigned int npages;
	unsigned int iters;
	uint64_t seed;
	int err;
};

static uint64_t stress_rand(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Random advice on random sub-ranges. */
static void *stress_advise(void *data)
{
	struct stress_arg *a = data;
	const struct uvm_location locs[3] = { UVM_LOC_GPU(0), UVM_LOC_HOST, UVM_LOC_GPU(0) };
	unsigned int i, first, n;
	int ret;

	for (i = 0; i < a->iters && !a->err; i++) {
		first = stress_rand(&a->seed) % a->npages;
		n = 1 + stress_rand(&a->seed) % (a->npages - first);
		ret = uvm_advise(a->e->dev.fd, a->p + first * a->e->ps, n * a->e->ps,
				 1 + stress_rand(&a->seed) % 6, locs[stress_rand(&a->seed) % 3]);
		if (ret)
			a->err = ret;
	}
	return NULL;
}

/* Random prefetch / discard / discard-prefetch batches, sync and async. */
static void *stress_migrate(void *data)
{
	struct stress_arg *a = data;
	const struct uvm_location locs[3] = { UVM_LOC_GPU(0), UVM_LOC_HOST, UVM_LOC_NUMA_CURRENT };
	unsigned int i, first, n;
	uint32_t op;
	int ret;

	for (i = 0; i < a->iters && !a->err; i++) {
		first = stress_rand(&a->seed) % a->npages;
		n = 1 + stress_rand(&a->seed) % (a->npages - first);
		op = 1 + stress_rand(&a->seed) % 3;
		ret = uvm_migrate1(a->e->dev.fd, op, stress_rand(&a->seed) % 2 ? UVM_MIGRATE_ASYNC : 0,
				   a->p + first * a->e->ps, n * a->e->ps,
				   locs[stress_rand(&a->seed) % 3], NULL);
		if (ret)
			a->err = ret;
	}
	if (!a->err)
		a->err = uvm_fence_wait(a->e->dev.fd, 0, 0, NULL);
	return NULL;
}

/* XC-06: advice, batches, GPU launches and CPU accesses racing on one range: no error, invariants hold, data after */
TEST_F_TIMEOUT(migrate, concurrent_advise_migrate_access, 300)
{
	struct uvm_env *e = &self->e;
	const unsigned int npages = 32;
	uint8_t *p = uvm_mmap(&e->dev, npages * e->ps), *ref = malloc(npages * e->ps),
		*out = malloc(npages * e->ps);
	struct stress_arg adv = { .e = e, .npages = npages, .iters = 200, .seed = 11 };
	struct stress_arg mig = { .e = e, .npages = npages, .iters = 200, .seed = 22 };
	uint64_t x = 33, i;
	pthread_t t1, t2;

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_NE(NULL, ref);
	ASSERT_NE(NULL, out);
	adv.p = mig.p = p;
	ASSERT_EQ(0, pthread_create(&t1, NULL, stress_advise, &adv));
	ASSERT_EQ(0, pthread_create(&t2, NULL, stress_migrate, &mig));
	for (i = 0; i < 60; i++) {
		unsigned int first = stress_rand(&x) % npages;
		uint64_t len = (1 + stress_rand(&x) % (npages - first)) * e->ps;

		switch (stress_rand(&x) % 4) {
		case 0:
			ASSERT_EQ(0, uvm_launch1(e->dev.fd, 0, 4,
						 uvm_op_pattern(p + first * e->ps, len, i), NULL));
			break;
		case 1:
			ASSERT_EQ(0, uvm_launch1(e->dev.fd, 0, 4,
						 uvm_op_read(p + first * e->ps, len, 64, NULL), NULL));
			break;
		case 2:
			memset(p + first * e->ps, (int)i, len);
			break;
		default:
			(void)uvm_nonzero_at(p + first * e->ps, len);
			break;
		}
	}
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	ASSERT_EQ(0, adv.err);
	ASSERT_EQ(0, mig.err);
	ASSERT_INVARIANTS(e, p, npages);
	/* Quiet again: data written now is read back exactly everywhere. */
	uvm_random_fill(ref, npages * e->ps, 44);
	memcpy(p, ref, npages * e->ps);
	ASSERT_INVARIANTS(e, p, npages);
	memset(out, 0, npages * e->ps);
	ASSERT_EQ(0, uvm_gpu_read(e->dev.fd, 0, p, npages * e->ps, out, NULL));
	ASSERT_EQ(-1, uvm_memcmp_at(out, ref, npages * e->ps));
	ASSERT_CPU_READ(p, npages * e->ps, ref);
	ASSERT_INVARIANTS(e, p, npages);
	munmap(p, npages * e->ps);
	free(ref);
	free(out);
}

/* Two GPUs */

FIXTURE(migrate2) {
	struct uvm_env e;
};

FIXTURE_SETUP(migrate2)
{
	uvm_env_setup(&self->e, NPAGES, 2);
}

FIXTURE_TEARDOWN(migrate2)
{
	uvm_env_teardown(&self->e);
}

/* A prefetch from GPU 0 to GPU 1 copies GPU to GPU (D2D) with exact bytes */
TEST_F(migrate2, prefetch_gpu_to_gpu)
{
	struct uvm_env *e = &self->e;
	const uint64_t n = e->npages;
	struct uvm_counters d;

	ASSERT_GPU_WRITE(e, 0, e->p, e->len, e->ref, n);
	UVM_COUNT_DELTA(e->dev.fd, d, ASSERT_EQ(0, uvm_prefetch(e->dev.fd, e->p, e->len,
								 UVM_LOC_GPU(1))));
	ASSERT_EQ(n, d.c[UVM_COUNTER_PAGES_D2D]);
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_PAGES_D2H] + d.c[UVM_COUNTER_PAGES_H2D]);
	ASSERT_RESIDENCY(&e->dev, e->p, n, UVM_STATE_GPU(1));
	ASSERT_GPU_READ(e, 1, e->p, e->len, e->ref, 0);
	ASSERT_EQ(0, uvm_prefetch(e->dev.fd, e->p, e->len, UVM_LOC_GPU(0)));
	ASSERT_GPU_READ(e, 0, e->p, e->len, e->ref, 0);
}

/* RD-03 on two GPUs: read-mostly prefetches to both GPUs leave three read-only copies */
TEST_F(migrate2, prefetch_read_mostly_everywhere)
{
	struct uvm_env *e = &self->e;
	const uint64_t n = e->npages, gpus = UVM_GPU_BIT(0) | UVM_GPU_BIT(1);

	memcpy(e->p, e->ref, e->len);
	ASSERT_EQ(0, uvm_advise(e->dev.fd, e->p, e->len, UVM_ADVICE_SET_READ_MOSTLY,
				UVM_LOC_INVALID));
	ASSERT_EQ(0, uvm_prefetch(e->dev.fd, e->p, e->len, UVM_LOC_GPU(0)));
	ASSERT_EQ(0, uvm_prefetch(e->dev.fd, e->p, e->len, UVM_LOC_GPU(1)));
	ASSERT_RESIDENCY(&e->dev, e->p, n, uvm_state(UVM_CPU_BIT | gpus, gpus, 0, 0));
	ASSERT_GPU_READ(e, 0, e->p, e->len, e->ref, 0);
	ASSERT_GPU_READ(e, 1, e->p, e->len, e->ref, 0);
	ASSERT_CPU_READ(e->p, e->len, e->ref);
}

/* A discard of a page duplicated on the CPU and both GPUs frees every copy, vidmem of both GPUs included */
TEST_F(migrate2, discard_everywhere)
{
	struct uvm_env *e = &self->e;
	const uint64_t n = e->npages;

	ASSERT_EQ(0ULL, uvm_vidmem_wait(e->dev.fd, 0, 0));
	ASSERT_EQ(0ULL, uvm_vidmem_wait(e->dev.fd, 1, 0));
	memcpy(e->p, e->ref, e->len);
	ASSERT_EQ(0, uvm_advise(e->dev.fd, e->p, e->len, UVM_ADVICE_SET_READ_MOSTLY,
				UVM_LOC_INVALID));
	ASSERT_GPU_READ(e, 0, e->p, e->len, e->ref, n);
	ASSERT_GPU_READ(e, 1, e->p, e->len, e->ref, n);
	ASSERT_NE(0ULL, uvm_vidmem_used(e->dev.fd, 1));
	ASSERT_EQ(0, uvm_discard(e->dev.fd, e->p, e->len));
	ASSERT_RESIDENCY(&e->dev, e->p, n, UVM_STATE_NONE);
	ASSERT_EQ(0ULL, uvm_vidmem_used(e->dev.fd, 0));
	ASSERT_EQ(0ULL, uvm_vidmem_used(e->dev.fd, 1));
	ASSERT_GPU_READ(e, 1, e->p, e->len, e->zero, n);
	ASSERT_CPU_READ(e->p, e->len, e->zero);
}

/* One batch, three groups: GPU 0, GPU 1, host; each range lands where its group says */
TEST_F(migrate2, batch_three_destinations)
{
	struct uvm_env *e = &self->e;
	const uint64_t ps = e->ps;
	struct uvm_location locs[3] = { UVM_LOC_GPU(1), UVM_LOC_GPU(0), UVM_LOC_HOST };
	uint64_t starts[3] = { 0, 2, 3 };
	struct uvm_range r[4] = {
		range_of(e->p, ps), range_of(e->p + ps, 2 * ps),
		range_of(e->p + 3 * ps, 3 * ps), range_of(e->p + 6 * ps, 2 * ps),
	};

	ASSERT_GPU_WRITE(e, 0, e->p, e->len, e->ref, e->npages);
	ASSERT_EQ(0, uvm_migrate(e->dev.fd, UVM_MIGRATE_PREFETCH, 0, r, 4, locs, starts, 3, NULL));
	ASSERT_RESIDENCY(&e->dev, e->p, 3, UVM_STATE_GPU(1));
	ASSERT_RESIDENCY(&e->dev, e->p + 3 * ps, 3, UVM_STATE_GPU(0));
	ASSERT_RESIDENCY(&e->dev, e->p + 6 * ps, 2, STATE_HOST_UNMAPPED);
	ASSERT_GPU_READ(e, 1, e->p, 3 * ps, e->ref, 0);
	ASSERT_CPU_READ(e->p, e->len, e->ref);
}

TEST_HARNESS_MAIN
