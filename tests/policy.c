// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * policy - memory policy (UVM_IOC_ADVISE), range queries (UVM_IOC_RANGE_QUERY)
 * and pointer lookups (UVM_IOC_POINTER_INFO).
 *
 * Validation: every bad-input rule of the CUDA catalog's ADV-* list that the
 * driver owns, each with its exact errno and "nothing changed" checked by a
 * range query.  Effects: read duplication (RD-*), preferred location (PL-*)
 * and accessed-by (AB-*) seen through UVM_TEST_IOC_RESIDENCY, bytes read back
 * by the CPU and by simulated GPU launches, and exact counters (faults raised,
 * pages copied).  Queries follow RA-* (uniform or invalid, accessed-by only
 * when set on the whole range, several attributes in one call); pointer
 * lookups PA-05..07.  Fixture policy2 holds the cases that need two GPUs.
 */
#include "kselftest_harness.h"
#include "uvm_test_util.h"

#define NPAGES	8

FIXTURE(policy) {
	struct uvm_env e;
};

FIXTURE_SETUP(policy)
{
	uvm_env_setup(&self->e, NPAGES, 1);
}

FIXTURE_TEARDOWN(policy)
{
	uvm_env_teardown(&self->e);
}

/* Range query of [addr, +len), asserted to succeed. */
#define QUERY(e, addr, len, q) \
	ASSERT_EQ(0, uvm_range_query((e)->dev.fd, (addr), (len), &(q)))

/* Advice asserted to succeed. */
#define ADVISE(e, addr, len, advice, loc) \
	ASSERT_EQ(0, uvm_advise((e)->dev.fd, (addr), (len), (advice), (loc)))

/* The range query of @e's whole range equals the default (no advice). */
#define ASSERT_NO_ADVICE(e, addr, len) do {					\
	struct uvm_ioc_range_query __q;						\
	QUERY(e, addr, len, __q);						\
	ASSERT_EQ(0U, __q.read_mostly);						\
	ASSERT_LOCATION(UVM_LOC_INVALID, __q.preferred);			\
	ASSERT_EQ(0ULL, __q.accessed_by);					\
} while (0)

/* CPU state of the whole range after the CPU wrote it: resident and mapped read-write. */
static void cpu_write_all(struct uvm_env *e)
{
	memcpy(e->p, e->ref, e->len);
}

/* ADV-01/02: an unaligned start is rounded down and the end up to whole pages */
TEST_F(policy, advise_rounds_to_pages)
{
	struct uvm_env *e = &self->e;
	struct uvm_ioc_range_query q;
	uint64_t ps = e->ps;

	/* [ps + 5, 2 ps + 5) touches pages 1 and 2. */
	ADVISE(e, e->p + ps + 5, ps, UVM_ADVICE_SET_READ_MOSTLY, UVM_LOC_INVALID);
	QUERY(e, e->p + ps, 2 * ps, q);
	ASSERT_EQ(1U, q.read_mostly);
	QUERY(e, e->p + ps + 5, ps, q);
	ASSERT_EQ(1U, q.read_mostly);
	QUERY(e, e->p + 2 * ps + ps - 1, 1, q);
	ASSERT_EQ(1U, q.read_mostly);
	QUERY(e, e->p, ps, q);
	ASSERT_EQ(0U, q.read_mostly);
	QUERY(e, e->p + 3 * ps, ps, q);
	ASSERT_EQ(0U, q.read_mostly);
	/* One byte in page 5 advises all of page 5. */
	ADVISE(e, e->p + 5 * ps + ps - 1, 1, UVM_ADVICE_SET_PREFERRED_LOCATION, UVM_LOC_GPU(0));
	QUERY(e, e->p + 5 * ps, ps, q);
	ASSERT_LOCATION(UVM_LOC_GPU(0), q.preferred);
	QUERY(e, e->p + 4 * ps, 2 * ps, q);
	ASSERT_LOCATION(UVM_LOC_INVALID, q.preferred);
}

/* ADV-03: a zero length is -EINVAL for every advice and changes nothing */
TEST_F(policy, advise_zero_length)
{
	struct uvm_env *e = &self->e;
	uint32_t a;

	for (a = UVM_ADVICE_SET_READ_MOSTLY; a <= UVM_ADVICE_UNSET_ACCESSED_BY; a++) {
		ASSERT_EQ(-EINVAL, uvm_advise(e->dev.fd, e->p, 0, a, UVM_LOC_GPU(0)));
	}
	ASSERT_NO_ADVICE(e, e->p, e->len);
}

/* ADV-04: a NULL start (no managed range there) is -EINVAL */
TEST_F(policy, advise_null_address)
{
	struct uvm_env *e = &self->e;

	ASSERT_EQ(-EINVAL, uvm_advise(e->dev.fd, NULL, e->ps, UVM_ADVICE_SET_READ_MOSTLY,
				      UVM_LOC_INVALID));
	ASSERT_EQ(-EINVAL, uvm_advise(e->dev.fd, NULL, e->ps, UVM_ADVICE_SET_ACCESSED_BY,
				      UVM_LOC_GPU(0)));
}

/* ADV-05/11: memory that is not managed (malloc, anonymous mmap, unmapped) is -EINVAL */
TEST_F(policy, advise_unmanaged_memory)
{
	struct uvm_env *e = &self->e;
	uint8_t *heap = malloc(4 * e->ps);
	void *anon = mmap(NULL, e->ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);
	void *hole = uvm_unmapped_address(e->ps);

	ASSERT_NE(NULL, heap);
	ASSERT_NE(MAP_FAILED, anon);
	ASSERT_NE(NULL, hole);
	heap[0] = 1;
	ASSERT_EQ(-EINVAL, uvm_advise(e->dev.fd, heap, e->ps, UVM_ADVICE_SET_READ_MOSTLY,
				      UVM_LOC_INVALID));
	ASSERT_EQ(-EINVAL, uvm_advise(e->dev.fd, anon, e->ps, UVM_ADVICE_SET_PREFERRED_LOCATION,
				      UVM_LOC_HOST));
	ASSERT_EQ(-EINVAL, uvm_advise(e->dev.fd, hole, e->ps, UVM_ADVICE_SET_ACCESSED_BY,
				      UVM_LOC_GPU(0)));
	munmap(anon, e->ps);
	free(heap);
}

/* ADV-07: a range running past the end of its managed range is -EINVAL and changes nothing */
TEST_F(policy, advise_straddles_range_end)
{
	struct uvm_env *e = &self->e;

	ASSERT_EQ(-EINVAL, uvm_advise(e->dev.fd, e->p + e->ps, e->len, UVM_ADVICE_SET_READ_MOSTLY,
				      UVM_LOC_INVALID));
	ASSERT_EQ(-EINVAL, uvm_advise(e->dev.fd, e->p, e->len + 1,
				      UVM_ADVICE_SET_PREFERRED_LOCATION, UVM_LOC_GPU(0)));
	ASSERT_EQ(-EINVAL, uvm_advise(e->dev.fd, e->p - 1, 2, UVM_ADVICE_SET_ACCESSED_BY,
				      UVM_LOC_GPU(0)));
	ASSERT_NO_ADVICE(e, e->p, e->len);
}

/* ADV-08 (decided): a range spanning two adjacent managed ranges is -EINVAL, nothing changes */
TEST_F(policy, advise_spans_two_ranges)
{
	struct uvm_env *e = &self->e;
	uint8_t *p[2];

	ASSERT_EQ(0, uvm_mmap_adjacent(&e->dev, 2 * e->ps, p));
	ASSERT_EQ(-EINVAL, uvm_advise(e->dev.fd, p[0] + e->ps, 2 * e->ps,
				      UVM_ADVICE_SET_READ_MOSTLY, UVM_LOC_INVALID));
	ASSERT_EQ(-EINVAL, uvm_advise(e->dev.fd, p[0], 4 * e->ps,
				      UVM_ADVICE_SET_ACCESSED_BY, UVM_LOC_GPU(0)));
	ASSERT_NO_ADVICE(e, p[0], 2 * e->ps);
	ASSERT_NO_ADVICE(e, p[1], 2 * e->ps);
	/* Each half on its own is fine. */
	ADVISE(e, p[0], 2 * e->ps, UVM_ADVICE_SET_READ_MOSTLY, UVM_LOC_INVALID);
	ADVISE(e, p[1], 2 * e->ps, UVM_ADVICE_SET_READ_MOSTLY, UVM_LOC_INVALID);
	munmap(p[0], 4 * e->ps);
}

/* ADV-09: advice on freed (munmapped) managed memory is -EINVAL */
TEST_F(policy, advise_after_munmap)
{
	struct uvm_env *e = &self->e;

	ASSERT_EQ(0, munmap(e->p, e->len));
	ASSERT_EQ(-EINVAL, uvm_advise(e->dev.fd, e->p, e->ps, UVM_ADVICE_SET_READ_MOSTLY,
				      UVM_LOC_INVALID));
	ASSERT_EQ(-EINVAL, uvm_advise(e->dev.fd, e->p, e->ps, UVM_ADVICE_SET_PREFERRED_LOCATION,
				      UVM_LOC_HOST));
	e->p = NULL;
}

/* ADV-13: advice values outside 1..6 are -EINVAL */
TEST_F(policy, advise_bad_advice)
{
	struct uvm_env *e = &self->e;
	const uint32_t bad[] = { 0, 7, 8, 0x80000001U, 0xffffffffU };
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ASSERT_EQ(-EINVAL, uvm_advise(e->dev.fd, e->p, e->ps, bad[i], UVM_LOC_GPU(0)))
			TH_LOG("advice %#x", bad[i]);
	}
	ASSERT_NO_ADVICE(e, e->p, e->len);
}

/* Non-zero flags or reserved words are -EINVAL and change nothing */
TEST_F(policy, advise_flags_reserved)
{
	struct uvm_env *e = &self->e;
	struct uvm_ioc_advise a;
	unsigned int i;

	for (i = 0; i < 4; i++) {
		memset(&a, 0, sizeof(a));
		a.address = (uintptr_t)e->p;
		a.length = e->len;
		a.advice = UVM_ADVICE_SET_READ_MOSTLY;
		if (i == 0)
			a.flags = 1;
		else if (i == 1)
			a.flags = 0x80000000U;
		else
			a.reserved[i - 2] = 1ULL << 63;
		ASSERT_EQ(-EINVAL, uvm_ioctl(e->dev.fd, UVM_IOC_ADVISE, &a)) TH_LOG("case %u", i);
	}
	ASSERT_NO_ADVICE(e, e->p, e->len);
}

/* A length that wraps the address space is -EINVAL */
TEST_F(policy, advise_length_overflow)
{
	struct uvm_env *e = &self->e;

	ASSERT_EQ(-EINVAL, uvm_advise(e->dev.fd, e->p, UINT64_MAX, UVM_ADVICE_SET_READ_MOSTLY,
				      UVM_LOC_INVALID));
	ASSERT_EQ(-EINVAL, uvm_advise(e->dev.fd, e->p, -(uintptr_t)e->p,
				      UVM_ADVICE_SET_READ_MOSTLY, UVM_LOC_INVALID));
	ASSERT_NO_ADVICE(e, e->p, e->len);
}

/* ADV-14: SET_PREFERRED_LOCATION on a GPU index out of range is -ENODEV */
TEST_F(policy, preferred_bad_gpu)
{
	struct uvm_env *e = &self->e;
	const int32_t bad[] = { (int32_t)e->dev.num_gpus, -1, -2, UVM_MAX_GPUS, INT32_MAX };
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ASSERT_EQ(-ENODEV, uvm_advise(e->dev.fd, e->p, e->ps,
					      UVM_ADVICE_SET_PREFERRED_LOCATION,
					      UVM_LOC_GPU(bad[i]))) TH_LOG("GPU %d", bad[i]);
	}
	ASSERT_NO_ADVICE(e, e->p, e->len);
}

/* ADV-16: SET_PREFERRED_LOCATION HOST ignores the id; the query reports HOST */
TEST_F(policy, preferred_host_ignores_id)
{
	struct uvm_env *e = &self->e;
	struct uvm_ioc_range_query q;

	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_PREFERRED_LOCATION,
	       uvm_loc(UVM_LOCATION_HOST, -12345));
	QUERY(e, e->p, e->len, q);
	ASSERT_LOCATION(UVM_LOC_HOST, q.preferred);
	/* The garbage id does not make two host preferences differ. */
	ADVISE(e, e->p, e->ps, UVM_ADVICE_SET_PREFERRED_LOCATION, uvm_loc(UVM_LOCATION_HOST, 7));
	QUERY(e, e->p, e->len, q);
	ASSERT_LOCATION(UVM_LOC_HOST, q.preferred);
}

/* ADV-17: HOST_NUMA with a node without memory, negative or huge is -EINVAL */
TEST_F(policy, preferred_numa_bad_node)
{
	struct uvm_env *e = &self->e;
	const int32_t bad[] = { uvm_node_without_memory(), -1, 4096, INT32_MAX };
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ASSERT_EQ(-EINVAL, uvm_advise(e->dev.fd, e->p, e->ps,
					      UVM_ADVICE_SET_PREFERRED_LOCATION,
					      UVM_LOC_NUMA(bad[i]))) TH_LOG("node %d", bad[i]);
	}
	ASSERT_NO_ADVICE(e, e->p, e->len);
}

/* RA-10: SET_PREFERRED_LOCATION HOST_NUMA n reads back as HOST_NUMA n */
TEST_F(policy, preferred_numa_node)
{
	struct uvm_env *e = &self->e;
	int node = uvm_node_with_memory();
	struct uvm_ioc_range_query q;

	ASSERT_LE(0, node);
	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_PREFERRED_LOCATION, UVM_LOC_NUMA(node));
	QUERY(e, e->p, e->len, q);
	ASSERT_LOCATION(UVM_LOC_NUMA(node), q.preferred);
}

/* ADV-18: HOST_NUMA_CURRENT with a garbage id resolves to the caller's node */
TEST_F(policy, preferred_numa_current)
{
	struct uvm_env *e = &self->e;
	struct uvm_ioc_range_query q;
	cpu_set_t one;
	int node;

	/* Stay on one CPU so that its node is the one the module sees. */
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(one), &one));
	node = uvm_current_node();
	ASSERT_LE(0, node);
	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_PREFERRED_LOCATION,
	       uvm_loc(UVM_LOCATION_HOST_NUMA_CURRENT, -77));
	QUERY(e, e->p, e->len, q);
	ASSERT_LOCATION(UVM_LOC_NUMA(node), q.preferred);
}

/* ADV-19: SET_PREFERRED_LOCATION with type INVALID or beyond HOST_NUMA_CURRENT is -EINVAL */
TEST_F(policy, preferred_bad_type)
{
	struct uvm_env *e = &self->e;
	const uint32_t bad[] = { UVM_LOCATION_INVALID, 5, 31, 32, 0x7fffffffU, 0xffffffffU };
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ASSERT_EQ(-EINVAL, uvm_advise(e->dev.fd, e->p, e->ps,
					      UVM_ADVICE_SET_PREFERRED_LOCATION,
					      uvm_loc(bad[i], 0))) TH_LOG("type %#x", bad[i]);
	}
	ASSERT_NO_ADVICE(e, e->p, e->len);
}

/* ADV-20: SET/UNSET_ACCESSED_BY accept only GPU and HOST: the other types are -EINVAL */
TEST_F(policy, accessed_by_bad_types)
{
	struct uvm_env *e = &self->e;
	const struct uvm_location bad[] = {
		UVM_LOC_NUMA(0), UVM_LOC_NUMA_CURRENT, UVM_LOC_INVALID, uvm_loc(5, 0),
		uvm_loc(0xffffffffU, 0),
	};
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ASSERT_EQ(-EINVAL, uvm_advise(e->dev.fd, e->p, e->ps, UVM_ADVICE_SET_ACCESSED_BY,
					      bad[i])) TH_LOG("type %#x", bad[i].type);
		ASSERT_EQ(-EINVAL, uvm_advise(e->dev.fd, e->p, e->ps,
					      UVM_ADVICE_UNSET_ACCESSED_BY, bad[i]))
			TH_LOG("type %#x", bad[i].type);
	}
	ASSERT_NO_ADVICE(e, e->p, e->len);
}

/* ADV-14 for accessed-by: a GPU index out of range is -ENODEV, set or unset */
TEST_F(policy, accessed_by_bad_gpu)
{
	struct uvm_env *e = &self->e;

	ASSERT_EQ(-ENODEV, uvm_advise(e->dev.fd, e->p, e->ps, UVM_ADVICE_SET_ACCESSED_BY,
				      UVM_LOC_GPU(e->dev.num_gpus)));
	ASSERT_EQ(-ENODEV, uvm_advise(e->dev.fd, e->p, e->ps, UVM_ADVICE_SET_ACCESSED_BY,
				      UVM_LOC_GPU(-1)));
	ASSERT_EQ(-ENODEV, uvm_advise(e->dev.fd, e->p, e->ps, UVM_ADVICE_UNSET_ACCESSED_BY,
				      UVM_LOC_GPU(UVM_MAX_GPUS)));
	ASSERT_NO_ADVICE(e, e->p, e->len);
}

/* ADV-21/RA-08: SET_ACCESSED_BY HOST (garbage id) is reported as the CPU's bit */
TEST_F(policy, accessed_by_host)
{
	struct uvm_env *e = &self->e;
	struct uvm_ioc_range_query q;

	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_ACCESSED_BY, uvm_loc(UVM_LOCATION_HOST, 99));
	QUERY(e, e->p, e->len, q);
	ASSERT_EQ(UVM_CPU_BIT, q.accessed_by);
	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_ACCESSED_BY, UVM_LOC_GPU(0));
	QUERY(e, e->p, e->len, q);
	ASSERT_EQ(UVM_CPU_BIT | UVM_GPU_BIT(0), q.accessed_by);
	ADVISE(e, e->p, e->len, UVM_ADVICE_UNSET_ACCESSED_BY, uvm_loc(UVM_LOCATION_HOST, -3));
	QUERY(e, e->p, e->len, q);
	ASSERT_EQ(UVM_GPU_BIT(0), q.accessed_by);
}

/* ADV-23: READ_MOSTLY set/unset and UNSET_PREFERRED_LOCATION ignore a garbage location */
TEST_F(policy, location_ignored)
{
	struct uvm_env *e = &self->e;
	const struct uvm_location junk = uvm_loc(0xdeadbeefU, -999);
	struct uvm_ioc_range_query q;

	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_READ_MOSTLY, junk);
	QUERY(e, e->p, e->len, q);
	ASSERT_EQ(1U, q.read_mostly);
	ADVISE(e, e->p, e->len, UVM_ADVICE_UNSET_READ_MOSTLY, junk);
	QUERY(e, e->p, e->len, q);
	ASSERT_EQ(0U, q.read_mostly);
	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_PREFERRED_LOCATION, UVM_LOC_GPU(0));
	ADVISE(e, e->p, e->len, UVM_ADVICE_UNSET_PREFERRED_LOCATION, junk);
	QUERY(e, e->p, e->len, q);
	ASSERT_LOCATION(UVM_LOC_INVALID, q.preferred);
}

/* ADV-29: SET_ACCESSED_BY twice is idempotent; one UNSET removes it */
TEST_F(policy, accessed_by_twice)
{
	struct uvm_env *e = &self->e;
	struct uvm_ioc_range_query q;

	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_ACCESSED_BY, UVM_LOC_GPU(0));
	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_ACCESSED_BY, UVM_LOC_GPU(0));
	QUERY(e, e->p, e->len, q);
	ASSERT_EQ(UVM_GPU_BIT(0), q.accessed_by);
	ADVISE(e, e->p, e->len, UVM_ADVICE_UNSET_ACCESSED_BY, UVM_LOC_GPU(0));
	QUERY(e, e->p, e->len, q);
	ASSERT_EQ(0ULL, q.accessed_by);
}

/* ADV-30: UNSET_ACCESSED_BY of a processor never set succeeds and changes nothing */
TEST_F(policy, unset_accessed_by_never_set)
{
	struct uvm_env *e = &self->e;

	cpu_write_all(e);
	ADVISE(e, e->p, e->len, UVM_ADVICE_UNSET_ACCESSED_BY, UVM_LOC_GPU(0));
	ADVISE(e, e->p, e->len, UVM_ADVICE_UNSET_ACCESSED_BY, UVM_LOC_HOST);
	ASSERT_NO_ADVICE(e, e->p, e->len);
	ASSERT_RESIDENCY(&e->dev, e->p, e->npages, UVM_STATE_CPU);
	ASSERT_CPU_READ(e->p, e->len, e->ref);
}

/* Advice is page granular: overlapping set/unset split and merge ranges exactly */
TEST_F(policy, advice_split_and_merge)
{
	struct uvm_env *e = &self->e;
	const uint32_t want[NPAGES] = { 0, 0, 1, 0, 0, 1, 1, 1 };
	struct uvm_ioc_range_query q;
	uint64_t ps = e->ps;
	unsigned int i;

	ADVISE(e, e->p + 2 * ps, 4 * ps, UVM_ADVICE_SET_READ_MOSTLY, UVM_LOC_INVALID);
	ADVISE(e, e->p + 4 * ps, 4 * ps, UVM_ADVICE_SET_READ_MOSTLY, UVM_LOC_INVALID);
	ADVISE(e, e->p + 3 * ps, 2 * ps, UVM_ADVICE_UNSET_READ_MOSTLY, UVM_LOC_INVALID);
	for (i = 0; i < NPAGES; i++) {
		QUERY(e, e->p + i * ps, ps, q);
		ASSERT_EQ(want[i], q.read_mostly) TH_LOG("page %u", i);
	}
	/* Fill the hole: [2, 8) is one uniform run again, page 1 is not in it. */
	ADVISE(e, e->p + 3 * ps, 2 * ps, UVM_ADVICE_SET_READ_MOSTLY, UVM_LOC_INVALID);
	QUERY(e, e->p + 2 * ps, 6 * ps, q);
	ASSERT_EQ(1U, q.read_mostly);
	QUERY(e, e->p + ps, 7 * ps, q);
	ASSERT_EQ(0U, q.read_mostly);
	/* Different advice kinds on overlapping pieces do not disturb each other. */
	ADVISE(e, e->p + ps, 3 * ps, UVM_ADVICE_SET_PREFERRED_LOCATION, UVM_LOC_HOST);
	ADVISE(e, e->p + 3 * ps, 3 * ps, UVM_ADVICE_SET_ACCESSED_BY, UVM_LOC_GPU(0));
	QUERY(e, e->p + 3 * ps, ps, q);
	ASSERT_EQ(1U, q.read_mostly);
	ASSERT_LOCATION(UVM_LOC_HOST, q.preferred);
	ASSERT_EQ(UVM_GPU_BIT(0), q.accessed_by);
	QUERY(e, e->p + 2 * ps, 6 * ps, q);
	ASSERT_EQ(1U, q.read_mostly);
	ASSERT_LOCATION(UVM_LOC_INVALID, q.preferred);
	ASSERT_EQ(0ULL, q.accessed_by);
	/* Unsetting everything leaves no advice anywhere. */
	ADVISE(e, e->p, e->len, UVM_ADVICE_UNSET_READ_MOSTLY, UVM_LOC_INVALID);
	ADVISE(e, e->p, e->len, UVM_ADVICE_UNSET_PREFERRED_LOCATION, UVM_LOC_INVALID);
	ADVISE(e, e->p, e->len, UVM_ADVICE_UNSET_ACCESSED_BY, UVM_LOC_GPU(0));
	for (i = 0; i < NPAGES; i++) {
		ASSERT_NO_ADVICE(e, e->p + i * ps, ps);
	}
}

/* Advice outlives a partial munmap on the pieces that remain, and only there */
TEST_F(policy, advice_survives_partial_munmap)
{
	struct uvm_env *e = &self->e;
	struct uvm_ioc_range_query q;
	uint64_t ps = e->ps;
	uint8_t *again;

	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_READ_MOSTLY, UVM_LOC_INVALID);
	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_ACCESSED_BY, UVM_LOC_GPU(0));
	ASSERT_EQ(0, munmap(e->p + 2 * ps, 3 * ps));
	QUERY(e, e->p, 2 * ps, q);
	ASSERT_EQ(1U, q.read_mostly);
	ASSERT_EQ(UVM_GPU_BIT(0), q.accessed_by);
	QUERY(e, e->p + 5 * ps, 3 * ps, q);
	ASSERT_EQ(1U, q.read_mostly);
	ASSERT_EQ(UVM_GPU_BIT(0), q.accessed_by);
	/* The hole, mapped again, is a new range without advice. */
	again = mmap(e->p + 2 * ps, 3 * ps, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
		     e->dev.fd, 0);
	ASSERT_EQ(e->p + 2 * ps, again);
	ASSERT_NO_ADVICE(e, again, 3 * ps);
}

/* A per-page model of advice, for advice_random_model. */
#define MODEL_PAGES	64

struct advice_model {
	uint32_t rm[MODEL_PAGES];
	struct uvm_location pref[MODEL_PAGES];
	uint64_t ab[MODEL_PAGES];
};

static uint64_t model_rand(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* What a range query of pages [first, end) must report. */
static void model_query(const struct advice_model *m, unsigned int first, unsigned int end,
			struct uvm_ioc_range_query *q)
{
	unsigned int i;

	q->read_mostly = 1;
	q->preferred = m->pref[first];
	q->accessed_by = ~0ULL;
	for (i = first; i < end; i++) {
		q->read_mostly &= m->rm[i];
		if (!uvm_loc_equal(q->preferred, m->pref[i]))
			q->preferred = UVM_LOC_INVALID;
		q->accessed_by &= m->ab[i];
	}
}

/* 400 random set/unset advice calls on random sub-ranges agree with a per-page model, per page and per range */
TEST_F(policy, advice_random_model)
{
	struct uvm_env *e = &self->e;
	const int node = uvm_node_with_memory();
	const struct uvm_location prefs[3] = { UVM_LOC_GPU(0), UVM_LOC_HOST, UVM_LOC_NUMA(node) };
	const struct uvm_location abs[2] = { UVM_LOC_GPU(0), UVM_LOC_HOST };
	uint8_t *p = uvm_mmap(&e->dev, MODEL_PAGES * e->ps);
	struct uvm_ioc_range_query q, want;
	struct advice_model m = {};
	uint64_t x = 0x1234567;
	unsigned int k, i, first, end, advice;
	struct uvm_location loc;

	ASSERT_NE(MAP_FAILED, p);
	for (k = 1; k <= 400; k++) {
		first = model_rand(&x) % MODEL_PAGES;
		end = first + 1 + model_rand(&x) % (MODEL_PAGES - first);
		advice = 1 + model_rand(&x) % 6;
		loc = advice <= UVM_ADVICE_UNSET_PREFERRED_LOCATION ? prefs[model_rand(&x) % 3] :
								       abs[model_rand(&x) % 2];
		ASSERT_EQ(0, uvm_advise(e->dev.fd, p + first * e->ps, (end - first) * e->ps,
					advice, loc)) TH_LOG("op %u", k);
		for (i = first; i < end; i++) {
			switch (advice) {
			case UVM_ADVICE_SET_READ_MOSTLY: m.rm[i] = 1; break;
			case UVM_ADVICE_UNSET_READ_MOSTLY: m.rm[i] = 0; break;
			case UVM_ADVICE_SET_PREFERRED_LOCATION: m.pref[i] = loc; break;
			case UVM_ADVICE_UNSET_PREFERRED_LOCATION: m.pref[i] = UVM_LOC_INVALID; break;
			case UVM_ADVICE_SET_ACCESSED_BY: m.ab[i] |= uvm_loc_bit(loc); break;
			default: m.ab[i] &= ~uvm_loc_bit(loc); break;
			}
		}
		if (k % 50)
			continue;
		for (i = 0; i < MODEL_PAGES + 20; i++) {
			if (i < MODEL_PAGES) {
				first = i;
				end = i + 1;
			} else {
				first = model_rand(&x) % MODEL_PAGES;
				end = first + 1 + model_rand(&x) % (MODEL_PAGES - first);
			}
			model_query(&m, first, end, &want);
			ASSERT_EQ(0, uvm_range_query(e->dev.fd, p + first * e->ps,
						     (end - first) * e->ps, &q));
			ASSERT_EQ(want.read_mostly, q.read_mostly)
				TH_LOG("op %u pages [%u, %u)", k, first, end);
			ASSERT_TRUE(uvm_loc_equal(want.preferred, q.preferred))
				TH_LOG("op %u pages [%u, %u): preferred %u/%d, want %u/%d", k, first,
				       end, q.preferred.type, q.preferred.id, want.preferred.type,
				       want.preferred.id);
			ASSERT_EQ(want.accessed_by, q.accessed_by)
				TH_LOG("op %u pages [%u, %u)", k, first, end);
		}
	}
	munmap(p, MODEL_PAGES * e->ps);
}

/* Equal advice on two adjacent ranges stays per range: munmap of one leaves the other's advice */
TEST_F(policy, advice_adjacent_ranges_stay_separate)
{
	struct uvm_env *e = &self->e;
	struct uvm_ioc_pointer_info a, b;
	struct uvm_ioc_range_query q;
	uint8_t *p[2], *again;

	ASSERT_EQ(0, uvm_mmap_adjacent(&e->dev, 2 * e->ps, p));
	ADVISE(e, p[0], 2 * e->ps, UVM_ADVICE_SET_READ_MOSTLY, UVM_LOC_INVALID);
	ADVISE(e, p[1], 2 * e->ps, UVM_ADVICE_SET_READ_MOSTLY, UVM_LOC_INVALID);
	ADVISE(e, p[0] + e->ps, 2 * e->ps - e->ps, UVM_ADVICE_SET_ACCESSED_BY, UVM_LOC_HOST);
	ADVISE(e, p[1], e->ps, UVM_ADVICE_SET_ACCESSED_BY, UVM_LOC_HOST);
	ASSERT_EQ(0, uvm_pointer_info(e->dev.fd, p[0], &a));
	ASSERT_EQ(0, uvm_pointer_info(e->dev.fd, p[1], &b));
	ASSERT_NE(a.buffer_id, b.buffer_id);
	ASSERT_EQ(2 * e->ps, a.size);
	ASSERT_EQ((uintptr_t)p[1], b.start);
	ASSERT_EQ(0, munmap(p[0], 2 * e->ps));
	QUERY(e, p[1], 2 * e->ps, q);
	ASSERT_EQ(1U, q.read_mostly);
	QUERY(e, p[1], e->ps, q);
	ASSERT_EQ(UVM_CPU_BIT, q.accessed_by);
	again = mmap(p[0], 2 * e->ps, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, e->dev.fd, 0);
	ASSERT_EQ(p[0], again);
	ASSERT_NO_ADVICE(e, p[0], 2 * e->ps);
	munmap(p[0], 4 * e->ps);
}

/* Range query */

/* A fresh range: not read-mostly, no preferred or last-prefetch location, no accessed-by */
TEST_F(policy, query_defaults)
{
	struct uvm_env *e = &self->e;
	struct uvm_ioc_range_query q;

	QUERY(e, e->p, e->len, q);
	ASSERT_EQ(0U, q.read_mostly);
	ASSERT_LOCATION(UVM_LOC_INVALID, q.preferred);
	ASSERT_LOCATION(UVM_LOC_INVALID, q.last_prefetch);
	ASSERT_EQ(0ULL, q.accessed_by);
	/* Touching the memory does not change its policy. */
	cpu_write_all(e);
	ASSERT_EQ(0, uvm_launch1(e->dev.fd, 0, 1, uvm_op_read(e->p, e->ps, 64, NULL), NULL));
	QUERY(e, e->p, e->len, q);
	ASSERT_EQ(0U, q.read_mostly);
	ASSERT_LOCATION(UVM_LOC_INVALID, q.preferred);
	ASSERT_LOCATION(UVM_LOC_INVALID, q.last_prefetch);
	ASSERT_EQ(0ULL, q.accessed_by);
}

/* RA-10/RD-10: read_mostly is 1 only when every page of the range is read-mostly */
TEST_F(policy, query_read_mostly_every_page)
{
	struct uvm_env *e = &self->e;
	struct uvm_ioc_range_query q;

	ADVISE(e, e->p, e->len - e->ps, UVM_ADVICE_SET_READ_MOSTLY, UVM_LOC_INVALID);
	QUERY(e, e->p, e->len, q);
	ASSERT_EQ(0U, q.read_mostly);
	QUERY(e, e->p, e->len - e->ps, q);
	ASSERT_EQ(1U, q.read_mostly);
	/* The query rounds too: one byte of the last page is the last page. */
	QUERY(e, e->p + e->len - 1, 1, q);
	ASSERT_EQ(0U, q.read_mostly);
	ADVISE(e, e->p + e->len - 1, 1, UVM_ADVICE_SET_READ_MOSTLY, UVM_LOC_INVALID);
	QUERY(e, e->p, e->len, q);
	ASSERT_EQ(1U, q.read_mostly);
	ADVISE(e, e->p + 3 * e->ps, 1, UVM_ADVICE_UNSET_READ_MOSTLY, UVM_LOC_INVALID);
	QUERY(e, e->p, e->len, q);
	ASSERT_EQ(0U, q.read_mostly);
}

/* RA-09/ADV-27/28: preferred is reported only when uniform; mixed or partly unset is INVALID */
TEST_F(policy, query_preferred_uniform)
{
	struct uvm_env *e = &self->e;
	struct uvm_ioc_range_query q;
	uint64_t half = e->len / 2;

	ADVISE(e, e->p, half, UVM_ADVICE_SET_PREFERRED_LOCATION, UVM_LOC_GPU(0));
	QUERY(e, e->p, e->len, q);
	ASSERT_LOCATION(UVM_LOC_INVALID, q.preferred);
	QUERY(e, e->p, half, q);
	ASSERT_LOCATION(UVM_LOC_GPU(0), q.preferred);
	ADVISE(e, e->p + half, half, UVM_ADVICE_SET_PREFERRED_LOCATION, UVM_LOC_HOST);
	QUERY(e, e->p, e->len, q);
	ASSERT_LOCATION(UVM_LOC_INVALID, q.preferred);
	QUERY(e, e->p + half, half, q);
	ASSERT_LOCATION(UVM_LOC_HOST, q.preferred);
	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_PREFERRED_LOCATION, UVM_LOC_GPU(0));
	QUERY(e, e->p, e->len, q);
	ASSERT_LOCATION(UVM_LOC_GPU(0), q.preferred);
	/* HOST and HOST_NUMA differ. */
	ADVISE(e, e->p, half, UVM_ADVICE_SET_PREFERRED_LOCATION, UVM_LOC_HOST);
	ADVISE(e, e->p + half, half, UVM_ADVICE_SET_PREFERRED_LOCATION,
	       UVM_LOC_NUMA(uvm_node_with_memory()));
	QUERY(e, e->p, e->len, q);
	ASSERT_LOCATION(UVM_LOC_INVALID, q.preferred);
	ADVISE(e, e->p + e->ps, e->ps, UVM_ADVICE_UNSET_PREFERRED_LOCATION, UVM_LOC_INVALID);
	QUERY(e, e->p, half, q);
	ASSERT_LOCATION(UVM_LOC_INVALID, q.preferred);
	QUERY(e, e->p + e->ps, e->ps, q);
	ASSERT_LOCATION(UVM_LOC_INVALID, q.preferred);
}

/* RA-07: accessed_by reports the processors set on every page of the range only */
TEST_F(policy, query_accessed_by_whole_range)
{
	struct uvm_env *e = &self->e;
	struct uvm_ioc_range_query q;
	uint64_t half = e->len / 2;

	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_ACCESSED_BY, UVM_LOC_GPU(0));
	ADVISE(e, e->p, half, UVM_ADVICE_SET_ACCESSED_BY, UVM_LOC_HOST);
	QUERY(e, e->p, e->len, q);
	ASSERT_EQ(UVM_GPU_BIT(0), q.accessed_by);
	QUERY(e, e->p, half, q);
	ASSERT_EQ(UVM_GPU_BIT(0) | UVM_CPU_BIT, q.accessed_by);
	QUERY(e, e->p + half, half, q);
	ASSERT_EQ(UVM_GPU_BIT(0), q.accessed_by);
	/* One page without GPU 0 removes it from every range containing that page. */
	ADVISE(e, e->p + half, e->ps, UVM_ADVICE_UNSET_ACCESSED_BY, UVM_LOC_GPU(0));
	QUERY(e, e->p, e->len, q);
	ASSERT_EQ(0ULL, q.accessed_by);
	QUERY(e, e->p + half - e->ps, 2 * e->ps, q);
	ASSERT_EQ(0ULL, q.accessed_by);
	QUERY(e, e->p, half, q);
	ASSERT_EQ(UVM_GPU_BIT(0) | UVM_CPU_BIT, q.accessed_by);
}

/* RA-12/13/17: last_prefetch is uniform or INVALID, and reflects the request (HOST, NUMA, GPU) */
TEST_F(policy, query_last_prefetch)
{
	struct uvm_env *e = &self->e;
	int node = uvm_node_with_memory();
	struct uvm_ioc_range_query q;
	uint64_t half = e->len / 2;

	ASSERT_EQ(0, uvm_prefetch(e->dev.fd, e->p, half, UVM_LOC_GPU(0)));
	QUERY(e, e->p, e->len, q);
	ASSERT_LOCATION(UVM_LOC_INVALID, q.last_prefetch);
	QUERY(e, e->p, half, q);
	ASSERT_LOCATION(UVM_LOC_GPU(0), q.last_prefetch);
	ASSERT_EQ(0, uvm_prefetch(e->dev.fd, e->p + half, half, UVM_LOC_HOST));
	QUERY(e, e->p, e->len, q);
	ASSERT_LOCATION(UVM_LOC_INVALID, q.last_prefetch);
	QUERY(e, e->p + half, half, q);
	ASSERT_LOCATION(UVM_LOC_HOST, q.last_prefetch);
	ASSERT_EQ(0, uvm_prefetch(e->dev.fd, e->p, e->len, UVM_LOC_NUMA(node)));
	QUERY(e, e->p, e->len, q);
	ASSERT_LOCATION(UVM_LOC_NUMA(node), q.last_prefetch);
	/* A prefetch to where the data already is still counts as the last request. */
	ASSERT_EQ(0, uvm_prefetch(e->dev.fd, e->p, e->len, UVM_LOC_GPU(0)));
	ASSERT_EQ(0, uvm_prefetch(e->dev.fd, e->p, e->len, UVM_LOC_GPU(0)));
	QUERY(e, e->p, e->len, q);
	ASSERT_LOCATION(UVM_LOC_GPU(0), q.last_prefetch);
	/* Faults and advice do not touch it. */
	cpu_write_all(e);
	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_PREFERRED_LOCATION, UVM_LOC_HOST);
	QUERY(e, e->p, e->len, q);
	ASSERT_LOCATION(UVM_LOC_GPU(0), q.last_prefetch);
}

/* One query reports every attribute at once, each with its own aggregation */
TEST_F(policy, query_all_attributes)
{
	struct uvm_env *e = &self->e;
	int node = uvm_node_with_memory();
	struct uvm_ioc_range_query q;

	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_READ_MOSTLY, UVM_LOC_INVALID);
	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_PREFERRED_LOCATION, UVM_LOC_NUMA(node));
	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_ACCESSED_BY, UVM_LOC_GPU(0));
	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_ACCESSED_BY, UVM_LOC_HOST);
	ASSERT_EQ(0, uvm_prefetch(e->dev.fd, e->p, e->len, UVM_LOC_GPU(0)));
	QUERY(e, e->p, e->len, q);
	ASSERT_EQ(1U, q.read_mostly);
	ASSERT_LOCATION(UVM_LOC_NUMA(node), q.preferred);
	ASSERT_LOCATION(UVM_LOC_GPU(0), q.last_prefetch);
	ASSERT_EQ(UVM_GPU_BIT(0) | UVM_CPU_BIT, q.accessed_by);
	ASSERT_EQ(0ULL, q.reserved[0] | q.reserved[1]);
	ASSERT_EQ(0U, q.flags);
	ASSERT_EQ((uintptr_t)e->p, q.address);
	ASSERT_EQ(e->len, q.length);
}

/* Bad queries: flags, reserved, zero length, unmanaged, past the end, two ranges: -EINVAL */
TEST_F(policy, query_bad_input)
{
	struct uvm_env *e = &self->e;
	struct uvm_ioc_range_query q;
	uint8_t *p[2];

	memset(&q, 0, sizeof(q));
	q.address = (uintptr_t)e->p;
	q.length = e->len;
	q.flags = 1;
	ASSERT_EQ(-EINVAL, uvm_ioctl(e->dev.fd, UVM_IOC_RANGE_QUERY, &q));
	q.flags = 0;
	q.reserved[1] = 1;
	ASSERT_EQ(-EINVAL, uvm_ioctl(e->dev.fd, UVM_IOC_RANGE_QUERY, &q));
	ASSERT_EQ(-EINVAL, uvm_range_query(e->dev.fd, e->p, 0, &q));
	ASSERT_EQ(-EINVAL, uvm_range_query(e->dev.fd, e->p, e->len + 1, &q));
	ASSERT_EQ(-EINVAL, uvm_range_query(e->dev.fd, e->p, UINT64_MAX, &q));
	ASSERT_EQ(-EINVAL, uvm_range_query(e->dev.fd, e->ref, e->ps, &q));
	ASSERT_EQ(-EINVAL, uvm_range_query(e->dev.fd, NULL, e->ps, &q));
	ASSERT_EQ(0, uvm_mmap_adjacent(&e->dev, e->ps, p));
	ASSERT_EQ(-EINVAL, uvm_range_query(e->dev.fd, p[0], 2 * e->ps, &q));
	ASSERT_EQ(0, uvm_range_query(e->dev.fd, p[1], e->ps, &q));
	munmap(p[0], 2 * e->ps);
}

/* munmap forgets the advice: a new range at the same address starts with none */
TEST_F(policy, query_advice_gone_after_munmap)
{
	struct uvm_env *e = &self->e;
	struct uvm_ioc_range_query q;
	uint8_t *again;

	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_READ_MOSTLY, UVM_LOC_INVALID);
	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_PREFERRED_LOCATION, UVM_LOC_GPU(0));
	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_ACCESSED_BY, UVM_LOC_GPU(0));
	ASSERT_EQ(0, uvm_prefetch(e->dev.fd, e->p, e->len, UVM_LOC_HOST));
	ASSERT_EQ(0, munmap(e->p, e->len));
	ASSERT_EQ(-EINVAL, uvm_range_query(e->dev.fd, e->p, e->len, &q));
	again = mmap(e->p, e->len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
		     e->dev.fd, 0);
	ASSERT_EQ(e->p, again);
	QUERY(e, e->p, e->len, q);
	ASSERT_EQ(0U, q.read_mostly);
	ASSERT_LOCATION(UVM_LOC_INVALID, q.preferred);
	ASSERT_LOCATION(UVM_LOC_INVALID, q.last_prefetch);
	ASSERT_EQ(0ULL, q.accessed_by);
}

/* LAST_PREFETCH is aggregated across VA blocks: uniform over a range that crosses a 2 MiB boundary */
TEST_F(policy, query_last_prefetch_across_blocks)
{
	struct uvm_env *e = &self->e;
	const uint64_t ps = e->ps, bp = UVM_VA_BLOCK_SIZE / ps;
	uint8_t *p = uvm_mmap_block_aligned(&e->dev, 2 * UVM_VA_BLOCK_SIZE);
	uint8_t *edge;
	struct uvm_ioc_range_query q;

	ASSERT_NE(MAP_FAILED, p);
	edge = p + UVM_VA_BLOCK_SIZE;
	ASSERT_EQ(0, uvm_prefetch(e->dev.fd, edge - 2 * ps, 4 * ps, UVM_LOC_HOST));
	QUERY(e, edge - 2 * ps, 4 * ps, q);
	ASSERT_LOCATION(UVM_LOC_HOST, q.last_prefetch);
	QUERY(e, edge - 3 * ps, 4 * ps, q);
	ASSERT_LOCATION(UVM_LOC_INVALID, q.last_prefetch);
	QUERY(e, edge - 2 * ps, 5 * ps, q);
	ASSERT_LOCATION(UVM_LOC_INVALID, q.last_prefetch);
	ASSERT_EQ(0, uvm_prefetch(e->dev.fd, edge, ps, UVM_LOC_GPU(0)));
	QUERY(e, edge - 2 * ps, 4 * ps, q);
	ASSERT_LOCATION(UVM_LOC_INVALID, q.last_prefetch);
	QUERY(e, edge - 2 * ps, 2 * ps, q);
	ASSERT_LOCATION(UVM_LOC_HOST, q.last_prefetch);
	/* Advice across the boundary is one run as well. */
	ADVISE(e, edge - ps, 2 * ps, UVM_ADVICE_SET_READ_MOSTLY, UVM_LOC_INVALID);
	QUERY(e, edge - ps, 2 * ps, q);
	ASSERT_EQ(1U, q.read_mostly);
	QUERY(e, p, 2 * bp * ps, q);
	ASSERT_EQ(0U, q.read_mostly);
	munmap(p, 2 * UVM_VA_BLOCK_SIZE);
}

/* Pointer lookup */

/* PA-05/06: any byte of a range reports its start, size, MANAGED and one id; one past the end does not */
TEST_F(policy, pointer_info_allocation)
{
	struct uvm_env *e = &self->e;
	struct uvm_ioc_pointer_info pi, pi2;
	uint64_t off;

	ASSERT_EQ(0, uvm_pointer_info(e->dev.fd, e->p, &pi));
	ASSERT_EQ((uintptr_t)e->p, pi.start);
	ASSERT_EQ(e->len, pi.size);
	ASSERT_EQ(UVM_POINTER_MANAGED, pi.flags);
	ASSERT_NE(0ULL, pi.buffer_id);
	for (off = 1; off < e->len; off += e->ps + 333) {
		ASSERT_EQ(0, uvm_pointer_info(e->dev.fd, e->p + off, &pi2));
		ASSERT_EQ(pi.start, pi2.start);
		ASSERT_EQ(pi.size, pi2.size);
		ASSERT_EQ(pi.buffer_id, pi2.buffer_id);
		ASSERT_EQ(UVM_POINTER_MANAGED, pi2.flags);
	}
	ASSERT_EQ(0, uvm_pointer_info(e->dev.fd, e->p + e->len - 1, &pi2));
	ASSERT_EQ(pi.buffer_id, pi2.buffer_id);
	ASSERT_EQ(-ENOENT, uvm_pointer_info(e->dev.fd, e->p + e->len, &pi2));
	ASSERT_EQ(-ENOENT, uvm_pointer_info(e->dev.fd, e->p - 1, &pi2));
}

/* PA-01/02: an address in no allocation (heap, stack, NULL, unmapped) is -ENOENT */
TEST_F(policy, pointer_info_not_managed)
{
	struct uvm_env *e = &self->e;
	struct uvm_ioc_pointer_info pi;
	int on_stack = 0;

	ASSERT_EQ(-ENOENT, uvm_pointer_info(e->dev.fd, e->ref, &pi));
	ASSERT_EQ(-ENOENT, uvm_pointer_info(e->dev.fd, &on_stack, &pi));
	ASSERT_EQ(-ENOENT, uvm_pointer_info(e->dev.fd, NULL, &pi));
	ASSERT_EQ(-ENOENT, uvm_pointer_info(e->dev.fd, uvm_unmapped_address(e->ps), &pi));
	ASSERT_EQ(-ENOENT, uvm_pointer_info(e->dev.fd, (void *)(uintptr_t)UINT64_MAX, &pi));
}

/* PA-07: buffer ids are unique, and a new mapping at a freed address gets a new id */
TEST_F(policy, pointer_info_ids_never_reused)
{
	struct uvm_env *e = &self->e;
	struct uvm_ioc_pointer_info pi;
	uint64_t ids[8];
	unsigned int i, j;
	uint8_t *q;

	for (i = 0; i < 8; i++) {
		ASSERT_EQ(0, uvm_pointer_info(e->dev.fd, e->p, &pi));
		ids[i] = pi.buffer_id;
		for (j = 0; j < i; j++) {
			ASSERT_NE(ids[j], ids[i]) TH_LOG("id %llu reused", (unsigned long long)ids[i]);
		}
		ASSERT_EQ(0, munmap(e->p, e->len));
		ASSERT_EQ(-ENOENT, uvm_pointer_info(e->dev.fd, e->p, &pi));
		q = mmap(e->p, e->len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
			 e->dev.fd, 0);
		ASSERT_EQ(e->p, q);
	}
	/* Ranges that live at the same time differ too. */
	q = uvm_mmap(&e->dev, e->ps);
	ASSERT_NE(MAP_FAILED, q);
	ASSERT_EQ(0, uvm_pointer_info(e->dev.fd, q, &pi));
	for (j = 0; j < 8; j++) {
		ASSERT_NE(ids[j], pi.buffer_id);
	}
	munmap(q, e->ps);
}

/* A partial munmap leaves pieces that keep the buffer id; the hole is -ENOENT */
TEST_F(policy, pointer_info_partial_munmap)
{
	struct uvm_env *e = &self->e;
	struct uvm_ioc_pointer_info pi, lo, hi;
	uint64_t ps = e->ps;

	ASSERT_EQ(0, uvm_pointer_info(e->dev.fd, e->p, &pi));
	ASSERT_EQ(0, munmap(e->p + 3 * ps, 2 * ps));
	ASSERT_EQ(0, uvm_pointer_info(e->dev.fd, e->p + ps, &lo));
	ASSERT_EQ(0, uvm_pointer_info(e->dev.fd, e->p + 6 * ps, &hi));
	ASSERT_EQ(pi.buffer_id, lo.buffer_id);
	ASSERT_EQ(pi.buffer_id, hi.buffer_id);
	ASSERT_EQ((uintptr_t)e->p, lo.start);
	ASSERT_EQ(3 * ps, lo.size);
	ASSERT_EQ((uintptr_t)e->p + 5 * ps, hi.start);
	ASSERT_EQ(3 * ps, hi.size);
	ASSERT_EQ(UVM_POINTER_MANAGED, hi.flags);
	ASSERT_EQ(-ENOENT, uvm_pointer_info(e->dev.fd, e->p + 3 * ps, &pi));
	ASSERT_EQ(-ENOENT, uvm_pointer_info(e->dev.fd, e->p + 5 * ps - 1, &pi));
	/* The pieces are separate ranges for advice as well. */
	ASSERT_EQ(-EINVAL, uvm_advise(e->dev.fd, e->p, e->len, UVM_ADVICE_SET_READ_MOSTLY,
				      UVM_LOC_INVALID));
	ADVISE(e, e->p + 5 * ps, 3 * ps, UVM_ADVICE_SET_READ_MOSTLY, UVM_LOC_INVALID);
}

/* Non-zero gpu_index (in) or reserved words are -EINVAL */
TEST_F(policy, pointer_info_bad_input)
{
	struct uvm_env *e = &self->e;
	struct uvm_ioc_pointer_info pi;

	memset(&pi, 0, sizeof(pi));
	pi.address = (uintptr_t)e->p;
	pi.gpu_index = 1;	/* (in) must be zero */
	ASSERT_EQ(-EINVAL, uvm_ioctl(e->dev.fd, UVM_IOC_POINTER_INFO, &pi));
	pi.gpu_index = 0;
	pi.reserved[0] = 1;
	ASSERT_EQ(-EINVAL, uvm_ioctl(e->dev.fd, UVM_IOC_POINTER_INFO, &pi));
	pi.reserved[0] = 0;
	pi.reserved[1] = 1ULL << 40;
	ASSERT_EQ(-EINVAL, uvm_ioctl(e->dev.fd, UVM_IOC_POINTER_INFO, &pi));
}

/* Ranges of another VA space are not this one's (-ENOENT), and their ids differ */
TEST_F(policy, pointer_info_other_va_space)
{
	struct uvm_env *e = &self->e;
	struct uvm_ioc_pointer_info mine, theirs;
	struct uvm_dev other = e->dev;
	uint8_t *q;

	other.fd = uvm_open();
	ASSERT_LE(0, other.fd);
	q = uvm_mmap(&other, e->ps);
	ASSERT_NE(MAP_FAILED, q);
	ASSERT_EQ(-ENOENT, uvm_pointer_info(e->dev.fd, q, &theirs));
	ASSERT_EQ(-ENOENT, uvm_pointer_info(other.fd, e->p, &mine));
	ASSERT_EQ(0, uvm_pointer_info(other.fd, q, &theirs));
	ASSERT_EQ(0, uvm_pointer_info(e->dev.fd, e->p, &mine));
	ASSERT_NE(mine.buffer_id, theirs.buffer_id);
	munmap(q, e->ps);
	close(other.fd);
}

/* The 1.1 ioctls */

static int new_ioctls_in_child(void *arg)
{
	struct uvm_env *e = arg;
	struct uvm_ioc_range_query q;
	struct uvm_ioc_pointer_info pi;
	int bad = 0;

	bad += uvm_advise(e->dev.fd, e->p, e->ps, UVM_ADVICE_SET_READ_MOSTLY,
			  UVM_LOC_INVALID) != -EPERM;
	bad += uvm_prefetch(e->dev.fd, e->p, e->ps, UVM_LOC_HOST) != -EPERM;
	bad += uvm_fence_wait(e->dev.fd, 0, 0, NULL) != -EPERM;
	bad += uvm_range_query(e->dev.fd, e->p, e->ps, &q) != -EPERM;
	bad += uvm_pointer_info(e->dev.fd, e->p, &pi) != -EPERM;
	return bad;
}

/* A fork child using the parent's descriptor gets -EPERM from every 1.1 ioctl */
TEST_F(policy, new_ioctls_from_fork_child)
{
	struct uvm_env *e = &self->e;

	ASSERT_EQ(0, uvm_run_child(new_ioctls_in_child, e));
	ASSERT_NO_ADVICE(e, e->p, e->len);
	ASSERT_RESIDENCY(&e->dev, e->p, e->npages, UVM_STATE_NONE);
}

/* Every 1.1 ioctl: a short structure is -EINVAL, a longer one with a zero tail works, a non-zero tail is -E2BIG */
TEST_F(policy, new_ioctls_struct_size)
{
	struct uvm_env *e = &self->e;
	struct uvm_range r = { .address = (uintptr_t)e->p, .length = e->len };
	struct uvm_location loc = UVM_LOC_HOST;
	uint64_t start = 0;
	union {
		struct uvm_ioc_advise advise;
		struct uvm_ioc_migrate migrate;
		struct uvm_ioc_fence_wait fence;
		struct uvm_ioc_range_query query;
		struct uvm_ioc_pointer_info info;
		uint8_t bytes[256];
	} a;
	const unsigned long cmds[] = {
		UVM_IOC_ADVISE, UVM_IOC_MIGRATE, UVM_IOC_FENCE_WAIT, UVM_IOC_RANGE_QUERY,
		UVM_IOC_POINTER_INFO,
	};
	unsigned int i, k;
	size_t size;

	for (i = 0; i < 5; i++) {
		for (k = 0; k < 3; k++) {
			memset(&a, 0, sizeof(a));
			switch (i) {
			case 0:
				a.advise.address = (uintptr_t)e->p;
				a.advise.length = e->len;
				a.advise.advice = UVM_ADVICE_SET_READ_MOSTLY;
				break;
			case 1:
				a.migrate.op = UVM_MIGRATE_PREFETCH;
				a.migrate.ranges_ptr = (uintptr_t)&r;
				a.migrate.count = 1;
				a.migrate.locations_ptr = (uintptr_t)&loc;
				a.migrate.location_starts_ptr = (uintptr_t)&start;
				a.migrate.num_locations = 1;
				break;
			case 2:
				break;
			case 3:
				a.query.address = (uintptr_t)e->p;
				a.query.length = e->len;
				break;
			default:
				a.info.address = (uintptr_t)e->p;
				break;
			}
			size = _IOC_SIZE(cmds[i]);
			if (k == 0) {
				ASSERT_EQ(-EINVAL, uvm_ioctl(e->dev.fd,
							     _IOC(_IOC_READ | _IOC_WRITE, UVM_IOC_MAGIC,
								  _IOC_NR(cmds[i]), size - 8), &a))
					TH_LOG("command %u", i);
			} else {
				a.bytes[size + 3] = k == 2;
				ASSERT_EQ(k == 2 ? -E2BIG : 0,
					  uvm_ioctl(e->dev.fd,
						    _IOC(_IOC_READ | _IOC_WRITE, UVM_IOC_MAGIC,
							 _IOC_NR(cmds[i]), size + 8), &a))
					TH_LOG("command %u, case %u", i, k);
			}
		}
	}
}

/* Effects of advice on residency and mappings */

/* ADV-26: SET_PREFERRED_LOCATION moves nothing: residency, mappings and counters unchanged */
TEST_F(policy, set_preferred_moves_nothing)
{
	struct uvm_env *e = &self->e;
	struct uvm_counters d, zero = {};
	unsigned int i;

	cpu_write_all(e);
	UVM_COUNT_DELTA(e->dev.fd, d,
		ADVISE(e, e->p, e->len, UVM_ADVICE_SET_PREFERRED_LOCATION, UVM_LOC_GPU(0)));
	for (i = 0; i < UVM_COUNTER_COUNT; i++) {
		ASSERT_EQ(zero.c[i], d.c[i]) TH_LOG("%s", uvm_counter_name(i));
	}
	ASSERT_RESIDENCY(&e->dev, e->p, e->npages, UVM_STATE_CPU);
	ASSERT_EQ(0, uvm_prefetch(e->dev.fd, e->p, e->len, UVM_LOC_GPU(0)));
	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_PREFERRED_LOCATION, UVM_LOC_HOST);
	ASSERT_RESIDENCY(&e->dev, e->p, e->npages, UVM_STATE_GPU(0));
	ASSERT_GPU_READ(e, 0, e->p, e->len, e->ref, 0);
}

/* RD-01: a GPU read of read-mostly CPU data makes a read-only copy; both copies stay, all read-only */
TEST_F(policy, read_mostly_gpu_read_duplicates)
{
	struct uvm_env *e = &self->e;
	const uint64_t n = e->npages;
	struct uvm_counters d;

	cpu_write_all(e);
	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_READ_MOSTLY, UVM_LOC_INVALID);
	UVM_COUNT_DELTA(e->dev.fd, d, ASSERT_GPU_READ(e, 0, e->p, e->len, e->ref, n));
	ASSERT_EQ(n, d.c[UVM_COUNTER_PAGES_DUPLICATED]);
	ASSERT_EQ(n, d.c[UVM_COUNTER_PAGES_H2D]);
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_PAGES_D2H] + d.c[UVM_COUNTER_PAGES_POPULATED_GPU]);
	ASSERT_RESIDENCY(&e->dev, e->p, n,
			 uvm_state(UVM_CPU_BIT | UVM_GPU_BIT(0), UVM_GPU_BIT(0), 0, 0));
	/* The CPU reads its own copy (read-only mapping), no copy back. */
	UVM_COUNT_DELTA(e->dev.fd, d, ASSERT_CPU_READ(e->p, e->len, e->ref));
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_PAGES_D2H] + d.c[UVM_COUNTER_PAGES_H2D]);
	ASSERT_RESIDENCY(&e->dev, e->p, n,
			 uvm_state(UVM_CPU_BIT | UVM_GPU_BIT(0), UVM_CPU_BIT | UVM_GPU_BIT(0), 0, 0));
	/* The GPU reads its copy again without faulting. */
	ASSERT_GPU_READ(e, 0, e->p, e->len, e->ref, 0);
}

/* RD-01: a CPU read of read-mostly GPU data copies it; the GPU keeps its copy, now read-only */
TEST_F(policy, read_mostly_cpu_read_duplicates)
{
	struct uvm_env *e = &self->e;
	const uint64_t n = e->npages;
	struct uvm_counters d;

	ASSERT_GPU_WRITE(e, 0, e->p, e->len, e->ref, n);
	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_READ_MOSTLY, UVM_LOC_INVALID);
	ASSERT_RESIDENCY(&e->dev, e->p, n, UVM_STATE_GPU(0));
	UVM_COUNT_DELTA(e->dev.fd, d, ASSERT_CPU_READ(e->p, e->len, e->ref));
	ASSERT_EQ(n, d.c[UVM_COUNTER_PAGES_D2H]);
	ASSERT_EQ(n, d.c[UVM_COUNTER_PAGES_DUPLICATED]);
	ASSERT_EQ(n, d.c[UVM_COUNTER_CPU_FAULTS]);
	ASSERT_RESIDENCY(&e->dev, e->p, n,
			 uvm_state(UVM_CPU_BIT | UVM_GPU_BIT(0), UVM_CPU_BIT | UVM_GPU_BIT(0), 0, 0));
	ASSERT_GPU_READ(e, 0, e->p, e->len, e->ref, 0);
}

/* RD-02: a CPU write to a duplicated page invalidates the GPU copy; the GPU then reads the new bytes */
TEST_F(policy, read_mostly_cpu_write_collapses)
{
	struct uvm_env *e = &self->e;
	const uint64_t n = e->npages;

	cpu_write_all(e);
	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_READ_MOSTLY, UVM_LOC_INVALID);
	ASSERT_GPU_READ(e, 0, e->p, e->len, e->ref, n);
	ASSERT_CPU_READ(e->p, e->len, e->ref);
	/* Write page 2 only: it collapses, the others stay duplicated. */
	e->ref[2 * e->ps + 9] ^= 0xff;
	e->p[2 * e->ps + 9] = e->ref[2 * e->ps + 9];
	ASSERT_RESIDENCY(&e->dev, e->p + 2 * e->ps, 1, UVM_STATE_CPU);
	ASSERT_RESIDENCY(&e->dev, e->p, 2,
			 uvm_state(UVM_CPU_BIT | UVM_GPU_BIT(0), UVM_CPU_BIT | UVM_GPU_BIT(0), 0, 0));
	ASSERT_RESIDENCY(&e->dev, e->p + 3 * e->ps, n - 3,
			 uvm_state(UVM_CPU_BIT | UVM_GPU_BIT(0), UVM_CPU_BIT | UVM_GPU_BIT(0), 0, 0));
	/* Only the written page faults on the GPU, and it sees the new byte. */
	ASSERT_GPU_READ(e, 0, e->p, e->len, e->ref, 1);
	ASSERT_RESIDENCY(&e->dev, e->p + 2 * e->ps, 1,
			 uvm_state(UVM_CPU_BIT | UVM_GPU_BIT(0), UVM_GPU_BIT(0), 0, 0));
}

/* RD-02: a GPU write to a duplicated page leaves only the GPU copy; the CPU reads the new bytes */
TEST_F(policy, read_mostly_gpu_write_collapses)
{
	struct uvm_env *e = &self->e;
	const uint64_t n = e->npages;
	uint8_t *src = malloc(e->len);
	struct uvm_counters d;

	ASSERT_NE(NULL, src);
	cpu_write_all(e);
	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_READ_MOSTLY, UVM_LOC_INVALID);
	ASSERT_GPU_READ(e, 0, e->p, e->len, e->ref, n);
	ASSERT_CPU_READ(e->p, e->len, e->ref);
	uvm_random_fill(src, e->len, 77);
	/* Every page faults once for write permission; nothing is copied. */
	UVM_COUNT_DELTA(e->dev.fd, d, ASSERT_GPU_WRITE(e, 0, e->p, e->len, src, n));
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_PAGES_H2D] + d.c[UVM_COUNTER_PAGES_D2H]);
	ASSERT_RESIDENCY(&e->dev, e->p, n, UVM_STATE_GPU(0));
	ASSERT_CPU_READ(e->p, e->len, src);
	ASSERT_RESIDENCY(&e->dev, e->p, n,
			 uvm_state(UVM_CPU_BIT | UVM_GPU_BIT(0), UVM_CPU_BIT | UVM_GPU_BIT(0), 0, 0));
	free(src);
}

/* A GPU write to a duplicated page with preferred location HOST collapses to the host copy, mapped remotely */
TEST_F(policy, read_mostly_write_goes_to_preferred_host)
{
	struct uvm_env *e = &self->e;
	const uint64_t n = e->npages;
	uint8_t *src = malloc(e->len);

	ASSERT_NE(NULL, src);
	cpu_write_all(e);
	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_READ_MOSTLY, UVM_LOC_INVALID);
	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_PREFERRED_LOCATION, UVM_LOC_HOST);
	ASSERT_GPU_READ(e, 0, e->p, e->len, e->ref, n);
	ASSERT_RESIDENCY(&e->dev, e->p, n,
			 uvm_state(UVM_CPU_BIT | UVM_GPU_BIT(0), UVM_GPU_BIT(0), 0, 0));
	uvm_random_fill(src, e->len, 78);
	ASSERT_GPU_WRITE(e, 0, e->p, e->len, src, n);
	ASSERT_RESIDENCY(&e->dev, e->p, n,
			 uvm_state(UVM_CPU_BIT, UVM_GPU_BIT(0), UVM_GPU_BIT(0), UVM_GPU_BIT(0)));
	ASSERT_CPU_READ(e->p, e->len, src);
	free(src);
}

/* RD-12: with read-mostly and a preferred location, GPU reads still duplicate instead of mapping remotely */
TEST_F(policy, read_mostly_beats_preferred_for_reads)
{
	struct uvm_env *e = &self->e;
	const uint64_t n = e->npages;

	cpu_write_all(e);
	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_PREFERRED_LOCATION, UVM_LOC_HOST);
	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_READ_MOSTLY, UVM_LOC_INVALID);
	ASSERT_GPU_READ(e, 0, e->p, e->len, e->ref, n);
	ASSERT_RESIDENCY(&e->dev, e->p, n,
			 uvm_state(UVM_CPU_BIT | UVM_GPU_BIT(0), UVM_GPU_BIT(0), 0, 0));
}

/* RD-05: read-mostly + preferred HOST_NUMA: a CPU write leaves one host copy, the GPU copy goes */
TEST_F(policy, read_mostly_cpu_write_preferred_numa)
{
	struct uvm_env *e = &self->e;
	const uint64_t n = e->npages;

	ASSERT_GPU_WRITE(e, 0, e->p, e->len, e->ref, n);
	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_READ_MOSTLY, UVM_LOC_INVALID);
	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_PREFERRED_LOCATION,
	       UVM_LOC_NUMA(uvm_node_with_memory()));
	ASSERT_CPU_READ(e->p, e->len, e->ref);
	ASSERT_RESIDENCY(&e->dev, e->p, n,
			 uvm_state(UVM_CPU_BIT | UVM_GPU_BIT(0), UVM_CPU_BIT | UVM_GPU_BIT(0), 0, 0));
	memset(e->p, 0x3c, e->len);
	ASSERT_RESIDENCY(&e->dev, e->p, n, UVM_STATE_CPU);
	memset(e->ref, 0x3c, e->len);
	ASSERT_GPU_READ(e, 0, e->p, e->len, e->ref, UVM_ANY_FAULTS);
}

/* RD-06: UNSET_READ_MOSTLY keeps the copy at the preferred location (GPU 0), drops the CPU one */
TEST_F(policy, unset_read_mostly_keeps_preferred_copy)
{
	struct uvm_env *e = &self->e;
	const uint64_t n = e->npages;

	cpu_write_all(e);
	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_READ_MOSTLY, UVM_LOC_INVALID);
	ASSERT_GPU_READ(e, 0, e->p, e->len, e->ref, n);
	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_PREFERRED_LOCATION, UVM_LOC_GPU(0));
	ADVISE(e, e->p, e->len, UVM_ADVICE_UNSET_READ_MOSTLY, UVM_LOC_INVALID);
	ASSERT_RESIDENCY(&e->dev, e->p, n, uvm_state(UVM_GPU_BIT(0), UVM_GPU_BIT(0), 0, 0));
	ASSERT_GPU_READ(e, 0, e->p, e->len, e->ref, 0);
	ASSERT_CPU_READ(e->p, e->len, e->ref);
}

/* RD-06: with preferred HOST, UNSET_READ_MOSTLY keeps the host copy and revokes the GPU's */
TEST_F(policy, unset_read_mostly_keeps_preferred_host_copy)
{
	struct uvm_env *e = &self->e;
	const uint64_t n = e->npages;

	ASSERT_GPU_WRITE(e, 0, e->p, e->len, e->ref, n);
	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_READ_MOSTLY, UVM_LOC_INVALID);
	ASSERT_CPU_READ(e->p, e->len, e->ref);
	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_PREFERRED_LOCATION, UVM_LOC_HOST);
	ADVISE(e, e->p, e->len, UVM_ADVICE_UNSET_READ_MOSTLY, UVM_LOC_INVALID);
	ASSERT_RESIDENCY(&e->dev, e->p, n, uvm_state(UVM_CPU_BIT, UVM_CPU_BIT, 0, 0));
	ASSERT_CPU_READ(e->p, e->len, e->ref);
	ASSERT_GPU_READ(e, 0, e->p, e->len, e->ref, UVM_ANY_FAULTS);
}

/* RD-07 (decided): without a preferred location the lowest processor id keeps the copy (the CPU) */
TEST_F(policy, unset_read_mostly_keeps_lowest_id)
{
	struct uvm_env *e = &self->e;
	const uint64_t n = e->npages;

	ASSERT_GPU_WRITE(e, 0, e->p, e->len, e->ref, n);
	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_READ_MOSTLY, UVM_LOC_INVALID);
	ASSERT_CPU_READ(e->p, e->len, e->ref);
	ADVISE(e, e->p, e->len, UVM_ADVICE_UNSET_READ_MOSTLY, UVM_LOC_INVALID);
	ASSERT_RESIDENCY(&e->dev, e->p, n, uvm_state(UVM_CPU_BIT, UVM_CPU_BIT, 0, 0));
	ASSERT_GPU_READ(e, 0, e->p, e->len, e->ref, n);
	ASSERT_CPU_READ(e->p, e->len, e->ref);
}

/* RD-08: after UNSET_READ_MOSTLY, reads by the CPU and a GPU move the page, never duplicate it */
TEST_F(policy, unset_read_mostly_stops_duplication)
{
	struct uvm_env *e = &self->e;
	const uint64_t n = e->npages;
	struct uvm_counters d;

	cpu_write_all(e);
	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_READ_MOSTLY, UVM_LOC_INVALID);
	ADVISE(e, e->p, e->len, UVM_ADVICE_UNSET_READ_MOSTLY, UVM_LOC_INVALID);
	UVM_COUNT_DELTA(e->dev.fd, d, ASSERT_GPU_READ(e, 0, e->p, e->len, e->ref, n));
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_PAGES_DUPLICATED]);
	ASSERT_RESIDENCY(&e->dev, e->p, n, UVM_STATE_GPU(0));
	ASSERT_CPU_READ(e->p, e->len, e->ref);
	ASSERT_RESIDENCY(&e->dev, e->p, n, UVM_STATE_CPU);
}

/* Preferred HOST: a GPU read maps system memory remotely, nothing moves; CPU and GPU share the page */
TEST_F(policy, preferred_host_gpu_maps_remotely)
{
	struct uvm_env *e = &self->e;
	const uint64_t n = e->npages;
	uint8_t *src = malloc(e->len);
	struct uvm_counters d;

	ASSERT_NE(NULL, src);
	cpu_write_all(e);
	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_PREFERRED_LOCATION, UVM_LOC_HOST);
	UVM_COUNT_DELTA(e->dev.fd, d, ASSERT_GPU_READ(e, 0, e->p, e->len, e->ref, n));
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_PAGES_H2D] + d.c[UVM_COUNTER_CPU_PAGES_UNMAPPED]);
	ASSERT_RESIDENCY(&e->dev, e->p, n,
			 uvm_state(UVM_CPU_BIT, UVM_CPU_BIT | UVM_GPU_BIT(0),
				   UVM_CPU_BIT | UVM_GPU_BIT(0), UVM_GPU_BIT(0)));
	/* GPU writes land in host memory: the CPU sees them without a fault. */
	uvm_random_fill(src, e->len, 79);
	ASSERT_GPU_WRITE(e, 0, e->p, e->len, src, 0);
	UVM_COUNT_DELTA(e->dev.fd, d, ASSERT_CPU_READ(e->p, e->len, src));
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_CPU_FAULTS]);
	free(src);
}

/* Preferred HOST: untouched pages written by a GPU are populated in host memory */
TEST_F(policy, preferred_host_populates_host)
{
	struct uvm_env *e = &self->e;
	const uint64_t n = e->npages;
	struct uvm_counters d;

	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_PREFERRED_LOCATION, UVM_LOC_HOST);
	UVM_COUNT_DELTA(e->dev.fd, d, ASSERT_GPU_WRITE(e, 0, e->p, e->len, e->ref, n));
	ASSERT_EQ(n, d.c[UVM_COUNTER_PAGES_POPULATED_CPU]);
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_PAGES_POPULATED_GPU]);
	ASSERT_RESIDENCY(&e->dev, e->p, n,
			 uvm_state(UVM_CPU_BIT, UVM_GPU_BIT(0), UVM_GPU_BIT(0), UVM_GPU_BIT(0)));
	ASSERT_EQ(0ULL, uvm_vidmem_wait(e->dev.fd, 0, 0));
	ASSERT_CPU_READ(e->p, e->len, e->ref);
}

/* PL-01: preferred GPU 0, data there: a CPU access migrates it (the CPU cannot map vidmem) */
TEST_F(policy, preferred_gpu_cpu_access_migrates)
{
	struct uvm_env *e = &self->e;
	const uint64_t n = e->npages;
	struct uvm_counters d;

	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_PREFERRED_LOCATION, UVM_LOC_GPU(0));
	ASSERT_GPU_WRITE(e, 0, e->p, e->len, e->ref, n);
	ASSERT_RESIDENCY(&e->dev, e->p, n, UVM_STATE_GPU(0));
	UVM_COUNT_DELTA(e->dev.fd, d, ASSERT_CPU_READ(e->p, e->len, e->ref));
	ASSERT_EQ(n, d.c[UVM_COUNTER_PAGES_D2H]);
	ASSERT_RESIDENCY(&e->dev, e->p, n, UVM_STATE_CPU);
}

/* Preferred GPU 0: a GPU fault brings CPU data back to GPU 0 */
TEST_F(policy, preferred_gpu_fault_migrates_there)
{
	struct uvm_env *e = &self->e;
	const uint64_t n = e->npages;
	struct uvm_counters d;

	cpu_write_all(e);
	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_PREFERRED_LOCATION, UVM_LOC_GPU(0));
	UVM_COUNT_DELTA(e->dev.fd, d, ASSERT_GPU_READ(e, 0, e->p, e->len, e->ref, n));
	ASSERT_EQ(n, d.c[UVM_COUNTER_PAGES_H2D]);
	ASSERT_RESIDENCY(&e->dev, e->p, n, UVM_STATE_GPU(0));
}

/* AB-01: SET_ACCESSED_BY GPU 0 maps CPU-resident data at once: no migration, no GPU faults */
TEST_F(policy, accessed_by_maps_without_migration)
{
	struct uvm_env *e = &self->e;
	const uint64_t n = e->npages;
	uint8_t *src = malloc(e->len);
	struct uvm_counters d;

	ASSERT_NE(NULL, src);
	cpu_write_all(e);
	UVM_COUNT_DELTA(e->dev.fd, d,
		ADVISE(e, e->p, e->len, UVM_ADVICE_SET_ACCESSED_BY, UVM_LOC_GPU(0)));
	ASSERT_EQ(n, d.c[UVM_COUNTER_GPU_PAGES_MAPPED]);
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_PAGES_H2D]);
	ASSERT_RESIDENCY(&e->dev, e->p, n,
			 uvm_state(UVM_CPU_BIT, UVM_CPU_BIT | UVM_GPU_BIT(0),
				   UVM_CPU_BIT | UVM_GPU_BIT(0), UVM_GPU_BIT(0)));
	UVM_COUNT_DELTA(e->dev.fd, d, ASSERT_GPU_READ(e, 0, e->p, e->len, e->ref, 0));
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_GPU_FAULTS]);
	uvm_random_fill(src, e->len, 80);
	ASSERT_GPU_WRITE(e, 0, e->p, e->len, src, 0);
	ASSERT_CPU_READ(e->p, e->len, src);
	free(src);
}

/* AB-03: accessed-by GPU 0, data on GPU 0 moved to the CPU by a CPU read: GPU 0 is remapped there */
TEST_F(policy, accessed_by_remapped_after_cpu_migration)
{
	struct uvm_env *e = &self->e;
	const uint64_t n = e->npages;
	struct uvm_counters d;

	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_ACCESSED_BY, UVM_LOC_GPU(0));
	ASSERT_GPU_WRITE(e, 0, e->p, e->len, e->ref, n);
	ASSERT_RESIDENCY(&e->dev, e->p, n, UVM_STATE_GPU(0));
	ASSERT_CPU_READ(e->p, e->len, e->ref);
	ASSERT_RESIDENCY(&e->dev, e->p, n,
			 uvm_state(UVM_CPU_BIT, UVM_CPU_BIT | UVM_GPU_BIT(0),
				   UVM_CPU_BIT | UVM_GPU_BIT(0), UVM_GPU_BIT(0)));
	UVM_COUNT_DELTA(e->dev.fd, d, ASSERT_GPU_READ(e, 0, e->p, e->len, e->ref, 0));
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_GPU_FAULTS]);
}

/* AB-04: SET_ACCESSED_BY HOST on GPU-resident data changes nothing (the CPU cannot map vidmem) */
TEST_F(policy, accessed_by_host_changes_nothing)
{
	struct uvm_env *e = &self->e;
	const uint64_t n = e->npages;
	struct uvm_counters d;

	ASSERT_GPU_WRITE(e, 0, e->p, e->len, e->ref, n);
	UVM_COUNT_DELTA(e->dev.fd, d,
		ADVISE(e, e->p, e->len, UVM_ADVICE_SET_ACCESSED_BY, UVM_LOC_HOST));
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_PAGES_D2H] + d.c[UVM_COUNTER_GPU_PAGES_UNMAPPED]);
	ASSERT_RESIDENCY(&e->dev, e->p, n, UVM_STATE_GPU(0));
	ASSERT_CPU_READ(e->p, e->len, e->ref);
}

/* AB-05: after UNSET_ACCESSED_BY a migration does not remap GPU 0; its next access faults, data right */
TEST_F(policy, unset_accessed_by_faults_again)
{
	struct uvm_env *e = &self->e;
	const uint64_t n = e->npages;

	cpu_write_all(e);
	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_ACCESSED_BY, UVM_LOC_GPU(0));
	ADVISE(e, e->p, e->len, UVM_ADVICE_UNSET_ACCESSED_BY, UVM_LOC_GPU(0));
	/* A round trip through the host: nothing re-establishes GPU 0's mapping. */
	ASSERT_EQ(0, uvm_prefetch(e->dev.fd, e->p, e->len, UVM_LOC_GPU(0)));
	ASSERT_EQ(0, uvm_prefetch(e->dev.fd, e->p, e->len, UVM_LOC_HOST));
	ASSERT_RESIDENCY(&e->dev, e->p, n, uvm_state(UVM_CPU_BIT, 0, 0, 0));
	ASSERT_GPU_READ(e, 0, e->p, e->len, e->ref, n);
}

/* AB-06: accessed-by and preferred location on the same GPU: the preferred location governs (data moves there) */
TEST_F(policy, accessed_by_same_as_preferred)
{
	struct uvm_env *e = &self->e;
	const uint64_t n = e->npages;

	cpu_write_all(e);
	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_PREFERRED_LOCATION, UVM_LOC_GPU(0));
	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_ACCESSED_BY, UVM_LOC_GPU(0));
	ASSERT_GPU_READ(e, 0, e->p, e->len, e->ref, UVM_ANY_FAULTS);
	ASSERT_RESIDENCY(&e->dev, e->p, n, UVM_STATE_GPU(0));
}

/* Every host preferred location: HOST, HOST_NUMA n, HOST_NUMA_CURRENT */

FIXTURE(host_pref) {
	struct uvm_env e;
	struct uvm_location loc;
};

FIXTURE_VARIANT(host_pref) {
	uint32_t type;
};

FIXTURE_VARIANT_ADD(host_pref, host) { .type = UVM_LOCATION_HOST };
FIXTURE_VARIANT_ADD(host_pref, host_numa) { .type = UVM_LOCATION_HOST_NUMA };
FIXTURE_VARIANT_ADD(host_pref, host_numa_current) { .type = UVM_LOCATION_HOST_NUMA_CURRENT };

FIXTURE_SETUP(host_pref)
{
	uvm_env_setup(&self->e, NPAGES, 1);
	self->loc = uvm_loc(variant->type, variant->type == UVM_LOCATION_HOST_NUMA ?
					   uvm_node_with_memory() : 99);
	ADVISE(&self->e, self->e.p, self->e.len, UVM_ADVICE_SET_PREFERRED_LOCATION, self->loc);
}

FIXTURE_TEARDOWN(host_pref)
{
	uvm_env_teardown(&self->e);
}

/* A GPU write of untouched pages populates host memory and maps it remotely; no vidmem used */
TEST_F(host_pref, gpu_write_lands_in_host_memory)
{
	struct uvm_env *e = &self->e;
	const uint64_t n = e->npages;
	struct uvm_counters d;

	ASSERT_EQ(0ULL, uvm_vidmem_wait(e->dev.fd, 0, 0));
	UVM_COUNT_DELTA(e->dev.fd, d, ASSERT_GPU_WRITE(e, 0, e->p, e->len, e->ref, n));
	ASSERT_EQ(n, d.c[UVM_COUNTER_PAGES_POPULATED_CPU]);
	ASSERT_RESIDENCY(&e->dev, e->p, n,
			 uvm_state(UVM_CPU_BIT, UVM_GPU_BIT(0), UVM_GPU_BIT(0), UVM_GPU_BIT(0)));
	ASSERT_EQ(0ULL, uvm_vidmem_used(e->dev.fd, 0));
	ASSERT_CPU_READ(e->p, e->len, e->ref);
	ASSERT_GPU_READ(e, 0, e->p, e->len, e->ref, 0);
}

/* Data a prefetch moved to the GPU returns home on a CPU access; GPU reads then map it remotely */
TEST_F(host_pref, prefetched_data_returns_home)
{
	struct uvm_env *e = &self->e;
	const uint64_t n = e->npages;
	struct uvm_counters d;

	memcpy(e->p, e->ref, e->len);
	ASSERT_EQ(0, uvm_prefetch(e->dev.fd, e->p, e->len, UVM_LOC_GPU(0)));
	ASSERT_RESIDENCY(&e->dev, e->p, n, UVM_STATE_GPU(0));
	ASSERT_CPU_READ(e->p, e->len, e->ref);
	UVM_COUNT_DELTA(e->dev.fd, d, ASSERT_GPU_READ(e, 0, e->p, e->len, e->ref, n));
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_PAGES_H2D]);
	ASSERT_RESIDENCY(&e->dev, e->p, n,
			 uvm_state(UVM_CPU_BIT, UVM_CPU_BIT | UVM_GPU_BIT(0),
				   UVM_CPU_BIT | UVM_GPU_BIT(0), UVM_GPU_BIT(0)));
}

/* The query reports the preferred location resolved (HOST, or HOST_NUMA with the node) */
TEST_F(host_pref, query_reports_it)
{
	struct uvm_env *e = &self->e;
	struct uvm_ioc_range_query q;
	struct uvm_location want = self->loc;

	if (want.type == UVM_LOCATION_HOST_NUMA_CURRENT)
		want = UVM_LOC_NUMA(uvm_current_node());
	QUERY(e, e->p, e->len, q);
	ASSERT_LOCATION(want, q.preferred);
}

/* Different advice on pages of one block: one batch of GPU faults and one prefetch serve each run by its own policy */
TEST_F(policy, mixed_policy_runs_in_one_block)
{
	struct uvm_env *e = &self->e;
	const uint64_t ps = e->ps;
	struct uvm_test_gpu_op op;

	memcpy(e->p, e->ref, e->len);
	/* Pages 0-1 read-mostly, 2-3 preferred HOST, 4-5 accessed-by GPU 0, 6-7 no advice. */
	ADVISE(e, e->p, 2 * ps, UVM_ADVICE_SET_READ_MOSTLY, UVM_LOC_INVALID);
	ADVISE(e, e->p + 2 * ps, 2 * ps, UVM_ADVICE_SET_PREFERRED_LOCATION, UVM_LOC_HOST);
	ADVISE(e, e->p + 4 * ps, 2 * ps, UVM_ADVICE_SET_ACCESSED_BY, UVM_LOC_GPU(0));
	/* Many warps: the faults of the other pages arrive in few batches. */
	op = uvm_op_read(e->p, e->len, 64, e->out);
	ASSERT_EQ(0, uvm_launch(e->dev.fd, 0, 64, &op, 1, NULL));
	ASSERT_EQ(-1, uvm_memcmp_at(e->out, e->ref, e->len));
	ASSERT_RESIDENCY(&e->dev, e->p, 2,
			 uvm_state(UVM_CPU_BIT | UVM_GPU_BIT(0), UVM_GPU_BIT(0), 0, 0));
	ASSERT_RESIDENCY(&e->dev, e->p + 2 * ps, 4,
			 uvm_state(UVM_CPU_BIT, UVM_CPU_BIT | UVM_GPU_BIT(0),
				   UVM_CPU_BIT | UVM_GPU_BIT(0), UVM_GPU_BIT(0)));
	ASSERT_RESIDENCY(&e->dev, e->p + 6 * ps, 2, UVM_STATE_GPU(0));
	/* One prefetch to the host over all runs. */
	ASSERT_EQ(0, uvm_prefetch(e->dev.fd, e->p, e->len, UVM_LOC_HOST));
	ASSERT_RESIDENCY(&e->dev, e->p, 2,
			 uvm_state(UVM_CPU_BIT | UVM_GPU_BIT(0), UVM_GPU_BIT(0), 0, 0));
	ASSERT_RESIDENCY(&e->dev, e->p + 2 * ps, 4,
			 uvm_state(UVM_CPU_BIT, UVM_CPU_BIT | UVM_GPU_BIT(0),
				   UVM_CPU_BIT | UVM_GPU_BIT(0), UVM_GPU_BIT(0)));
	ASSERT_RESIDENCY(&e->dev, e->p + 6 * ps, 2, uvm_state(UVM_CPU_BIT, 0, 0, 0));
	ASSERT_CPU_READ(e->p, e->len, e->ref);
}

/* Advice effects reach every block of a range: UNSET_READ_MOSTLY and SET_ACCESSED_BY across a 2 MiB boundary */
TEST_F(policy, advice_effects_across_blocks)
{
	struct uvm_env *e = &self->e;
	const uint64_t ps = e->ps;
	uint8_t *p = uvm_mmap_block_aligned(&e->dev, 2 * UVM_VA_BLOCK_SIZE), *edge;

	ASSERT_NE(MAP_FAILED, p);
	edge = p + UVM_VA_BLOCK_SIZE;
	memcpy(edge - 4 * ps, e->ref, 8 * ps);
	ADVISE(e, p, 2 * UVM_VA_BLOCK_SIZE, UVM_ADVICE_SET_READ_MOSTLY, UVM_LOC_INVALID);
	ASSERT_GPU_READ(e, 0, edge - 4 * ps, 8 * ps, e->ref, 8);
	ASSERT_RESIDENCY(&e->dev, edge - 4 * ps, 8,
			 uvm_state(UVM_CPU_BIT | UVM_GPU_BIT(0), UVM_GPU_BIT(0), 0, 0));
	ADVISE(e, p, 2 * UVM_VA_BLOCK_SIZE, UVM_ADVICE_UNSET_READ_MOSTLY, UVM_LOC_INVALID);
	ASSERT_RESIDENCY(&e->dev, edge - 4 * ps, 8, uvm_state(UVM_CPU_BIT, 0, 0, 0));
	ADVISE(e, p, 2 * UVM_VA_BLOCK_SIZE, UVM_ADVICE_SET_ACCESSED_BY, UVM_LOC_GPU(0));
	ASSERT_RESIDENCY(&e->dev, edge - 4 * ps, 8,
			 uvm_state(UVM_CPU_BIT, UVM_GPU_BIT(0), UVM_GPU_BIT(0), UVM_GPU_BIT(0)));
	ASSERT_GPU_READ(e, 0, edge - 4 * ps, 8 * ps, e->ref, 0);
	ASSERT_CPU_READ(edge - 4 * ps, 8 * ps, e->ref);
	munmap(p, 2 * UVM_VA_BLOCK_SIZE);
}

/* Two GPUs */

FIXTURE(policy2) {
	struct uvm_env e;
};

FIXTURE_SETUP(policy2)
{
	uvm_env_setup(&self->e, NPAGES, 2);
}

FIXTURE_TEARDOWN(policy2)
{
	uvm_env_teardown(&self->e);
}

/* RD-01 on three processors: CPU, GPU 0 and GPU 1 each hold a read-only copy; a GPU 1 write keeps only its own */
TEST_F(policy2, read_duplication_three_processors)
{
	struct uvm_env *e = &self->e;
	const uint64_t n = e->npages, all = UVM_CPU_BIT | UVM_GPU_BIT(0) | UVM_GPU_BIT(1);
	uint8_t *src = malloc(e->len);
	struct uvm_counters d;

	ASSERT_NE(NULL, src);
	cpu_write_all(e);
	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_READ_MOSTLY, UVM_LOC_INVALID);
	ASSERT_GPU_READ(e, 0, e->p, e->len, e->ref, n);
	/* The second GPU copies from the first (vidmem is the closest source). */
	UVM_COUNT_DELTA(e->dev.fd, d, ASSERT_GPU_READ(e, 1, e->p, e->len, e->ref, n));
	ASSERT_EQ(n, d.c[UVM_COUNTER_PAGES_DUPLICATED]);
	ASSERT_EQ(n, d.c[UVM_COUNTER_PAGES_H2D] + d.c[UVM_COUNTER_PAGES_D2D]);
	ASSERT_CPU_READ(e->p, e->len, e->ref);
	ASSERT_RESIDENCY(&e->dev, e->p, n, uvm_state(all, all, 0, 0));
	ASSERT_GPU_READ(e, 0, e->p, e->len, e->ref, 0);
	ASSERT_GPU_READ(e, 1, e->p, e->len, e->ref, 0);
	uvm_random_fill(src, e->len, 81);
	ASSERT_GPU_WRITE(e, 1, e->p, e->len, src, n);
	ASSERT_RESIDENCY(&e->dev, e->p, n, UVM_STATE_GPU(1));
	ASSERT_GPU_READ(e, 0, e->p, e->len, src, n);
	ASSERT_CPU_READ(e->p, e->len, src);
	free(src);
}

/* AB-01: accessed-by GPU 1 on data in GPU 0: GPU 1 maps peer memory at once and never faults */
TEST_F(policy2, accessed_by_peer)
{
	struct uvm_env *e = &self->e;
	const uint64_t n = e->npages, both = UVM_GPU_BIT(0) | UVM_GPU_BIT(1);
	struct uvm_counters d;

	ASSERT_GPU_WRITE(e, 0, e->p, e->len, e->ref, n);
	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_ACCESSED_BY, UVM_LOC_GPU(1));
	ASSERT_RESIDENCY(&e->dev, e->p, n, uvm_state(UVM_GPU_BIT(0), both, both, both));
	UVM_COUNT_DELTA(e->dev.fd, d, ASSERT_GPU_READ(e, 1, e->p, e->len, e->ref, 0));
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_GPU_FAULTS] + d.c[UVM_COUNTER_PAGES_D2D]);
	ASSERT_RESIDENCY(&e->dev, e->p, n, uvm_state(UVM_GPU_BIT(0), both, both, both));
}

/* AB-02/03: accessed-by GPU 1 follows the data: to the CPU on a CPU read, back to GPU 0 on a prefetch */
TEST_F(policy2, accessed_by_follows_migrations)
{
	struct uvm_env *e = &self->e;
	const uint64_t n = e->npages, both = UVM_GPU_BIT(0) | UVM_GPU_BIT(1);

	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_ACCESSED_BY, UVM_LOC_GPU(1));
	ASSERT_GPU_WRITE(e, 0, e->p, e->len, e->ref, n);
	ASSERT_RESIDENCY(&e->dev, e->p, n, uvm_state(UVM_GPU_BIT(0), both, both, both));
	ASSERT_CPU_READ(e->p, e->len, e->ref);
	ASSERT_RESIDENCY(&e->dev, e->p, n,
			 uvm_state(UVM_CPU_BIT, UVM_CPU_BIT | UVM_GPU_BIT(1),
				   UVM_CPU_BIT | UVM_GPU_BIT(1), UVM_GPU_BIT(1)));
	ASSERT_GPU_READ(e, 1, e->p, e->len, e->ref, 0);
	ASSERT_EQ(0, uvm_prefetch(e->dev.fd, e->p, e->len, UVM_LOC_GPU(0)));
	ASSERT_RESIDENCY(&e->dev, e->p, n, uvm_state(UVM_GPU_BIT(0), both, both, both));
	ASSERT_GPU_READ(e, 1, e->p, e->len, e->ref, 0);
}

/* Preferred GPU 1: a GPU 0 fault migrates the data to GPU 1 and maps it there as peer memory */
TEST_F(policy2, preferred_peer_gpu)
{
	struct uvm_env *e = &self->e;
	const uint64_t n = e->npages;
	struct uvm_counters d;

	cpu_write_all(e);
	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_PREFERRED_LOCATION, UVM_LOC_GPU(1));
	UVM_COUNT_DELTA(e->dev.fd, d, ASSERT_GPU_READ(e, 0, e->p, e->len, e->ref, n));
	ASSERT_EQ(n, d.c[UVM_COUNTER_PAGES_H2D]);
	ASSERT_RESIDENCY(&e->dev, e->p, n,
			 uvm_state(UVM_GPU_BIT(1), UVM_GPU_BIT(0), UVM_GPU_BIT(0), UVM_GPU_BIT(0)));
	/* A GPU 0 write goes to GPU 1's memory. */
	memset(e->ref, 0x77, e->len);
	ASSERT_GPU_WRITE(e, 0, e->p, e->len, e->ref, 0);
	ASSERT_GPU_READ(e, 1, e->p, e->len, e->ref, n);
	ASSERT_RESIDENCY(&e->dev, e->p, n,
			 uvm_state(UVM_GPU_BIT(1), UVM_GPU_BIT(0) | UVM_GPU_BIT(1),
				   UVM_GPU_BIT(0) | UVM_GPU_BIT(1), UVM_GPU_BIT(0) | UVM_GPU_BIT(1)));
	ASSERT_CPU_READ(e->p, e->len, e->ref);
}

/* Without advice a GPU 1 read of GPU 0 data migrates it GPU to GPU (D2D), exact bytes */
TEST_F(policy2, gpu_to_gpu_fault_migration)
{
	struct uvm_env *e = &self->e;
	const uint64_t n = e->npages;
	struct uvm_counters d;

	ASSERT_GPU_WRITE(e, 0, e->p, e->len, e->ref, n);
	UVM_COUNT_DELTA(e->dev.fd, d, ASSERT_GPU_READ(e, 1, e->p, e->len, e->ref, n));
	ASSERT_EQ(n, d.c[UVM_COUNTER_PAGES_D2D]);
	ASSERT_EQ(n * e->ps, d.c[UVM_COUNTER_BYTES_D2D]);
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_PAGES_H2D] + d.c[UVM_COUNTER_PAGES_D2H]);
	ASSERT_RESIDENCY(&e->dev, e->p, n, UVM_STATE_GPU(1));
}

/* RD-06/07 on two GPUs: UNSET keeps the preferred GPU's copy, else the lowest id (GPU 0) */
TEST_F(policy2, unset_read_mostly_two_gpus)
{
	struct uvm_env *e = &self->e;
	const uint64_t half = e->len / 2, h = e->npages / 2;

	ASSERT_GPU_WRITE(e, 0, e->p, e->len, e->ref, e->npages);
	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_READ_MOSTLY, UVM_LOC_INVALID);
	ASSERT_GPU_READ(e, 1, e->p, e->len, e->ref, e->npages);
	ASSERT_RESIDENCY(&e->dev, e->p, e->npages,
			 uvm_state(UVM_GPU_BIT(0) | UVM_GPU_BIT(1), UVM_GPU_BIT(0) | UVM_GPU_BIT(1),
				   0, 0));
	ADVISE(e, e->p + half, half, UVM_ADVICE_SET_PREFERRED_LOCATION, UVM_LOC_GPU(1));
	ADVISE(e, e->p, e->len, UVM_ADVICE_UNSET_READ_MOSTLY, UVM_LOC_INVALID);
	ASSERT_RESIDENCY(&e->dev, e->p, h, uvm_state(UVM_GPU_BIT(0), UVM_GPU_BIT(0), 0, 0));
	ASSERT_RESIDENCY(&e->dev, e->p + half, h, uvm_state(UVM_GPU_BIT(1), UVM_GPU_BIT(1), 0, 0));
	ASSERT_CPU_READ(e->p, e->len, e->ref);
}

/* A GPU 0 write to a duplicated page whose preferred location is GPU 1 collapses it to GPU 1, mapped as peer memory */
TEST_F(policy2, read_mostly_write_goes_to_preferred_peer)
{
	struct uvm_env *e = &self->e;
	const uint64_t n = e->npages;
	uint8_t *src = malloc(e->len);

	ASSERT_NE(NULL, src);
	memcpy(e->p, e->ref, e->len);
	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_READ_MOSTLY, UVM_LOC_INVALID);
	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_PREFERRED_LOCATION, UVM_LOC_GPU(1));
	ASSERT_GPU_READ(e, 0, e->p, e->len, e->ref, n);
	ASSERT_RESIDENCY(&e->dev, e->p, n,
			 uvm_state(UVM_CPU_BIT | UVM_GPU_BIT(0), UVM_GPU_BIT(0), 0, 0));
	uvm_random_fill(src, e->len, 82);
	ASSERT_GPU_WRITE(e, 0, e->p, e->len, src, n);
	ASSERT_RESIDENCY(&e->dev, e->p, n,
			 uvm_state(UVM_GPU_BIT(1), UVM_GPU_BIT(0), UVM_GPU_BIT(0), UVM_GPU_BIT(0)));
	ASSERT_CPU_READ(e->p, e->len, src);
	free(src);
}

/* UNSET_READ_MOSTLY is a migration too: accessed-by GPU 1 is remapped to the surviving copy */
TEST_F(policy2, accessed_by_remapped_after_unset_read_mostly)
{
	struct uvm_env *e = &self->e;
	const uint64_t n = e->npages;
	struct uvm_counters d;

	memcpy(e->p, e->ref, e->len);
	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_READ_MOSTLY, UVM_LOC_INVALID);
	ASSERT_GPU_READ(e, 0, e->p, e->len, e->ref, n);
	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_ACCESSED_BY, UVM_LOC_GPU(1));
	ADVISE(e, e->p, e->len, UVM_ADVICE_SET_PREFERRED_LOCATION, UVM_LOC_GPU(0));
	ADVISE(e, e->p, e->len, UVM_ADVICE_UNSET_READ_MOSTLY, UVM_LOC_INVALID);
	ASSERT_RESIDENCY(&e->dev, e->p, n,
			 uvm_state(UVM_GPU_BIT(0), UVM_GPU_BIT(0) | UVM_GPU_BIT(1), UVM_GPU_BIT(1),
				   UVM_GPU_BIT(1)));
	UVM_COUNT_DELTA(e->dev.fd, d, ASSERT_GPU_READ(e, 1, e->p, e->len, e->ref, 0));
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_GPU_FAULTS] + d.c[UVM_COUNTER_PAGES_D2D]);
}

TEST_HARNESS_MAIN
