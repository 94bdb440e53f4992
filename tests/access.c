// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Access counters: a GPU reading memory through a remote mapping (here set
 * up by accessed-by advice, so the GPU never faults on it) gets it migrated
 * once its remote accesses cross the threshold; off by default; a
 * preferred location elsewhere wins over the counters.
 */
#include <time.h>

#include "kselftest_harness.h"
#include "uvm_test_util.h"

FIXTURE(access) {
	struct uvm_dev dev;
	uint64_t ps;
	uint64_t len;
	uint8_t *p;
};

FIXTURE_SETUP(access)
{
	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, 1);
	self->ps = self->dev.page_size;
	self->len = 16 * self->ps;
	self->p = uvm_mmap(&self->dev, self->len);
	ASSERT_NE(MAP_FAILED, self->p);
	memset(self->p, 0x5a, self->len);
	ASSERT_EQ(0, uvm_param_write("access_counter_threshold", "64"));
}

FIXTURE_TEARDOWN(access)
{
	uvm_param_write("access_counters", "0");
	uvm_param_write("access_counter_threshold", "256");
	munmap(self->p, self->len);
	uvm_dev_teardown(&self->dev);
}

/* Resident set of the first page, waiting up to @ms for @want */
static uint64_t resident_wait(FIXTURE_DATA(access) *self, uint64_t want, int ms)
{
	struct uvm_test_page_state st = {};

	for (; ms >= 0; ms -= 10) {
		if (uvm_residency(self->dev.fd, self->p, self->ps, &st))
			return ~0ULL;
		if (st.resident == want)
			break;
		usleep(10 * 1000);
	}
	return st.resident;
}

/* GPU @gpu reads the range @rounds times; returns its fault count */
static uint64_t read_rounds(struct __test_metadata *_metadata,
			    FIXTURE_DATA(access) *self, uint32_t gpu, int rounds)
{
	struct uvm_counters before, after, d;
	struct uvm_test_gpu_op op;
	int r;

	EXPECT_EQ(0, uvm_counters(self->dev.fd, &before));
	for (r = 0; r < rounds; r++) {
		op = uvm_op_read(self->p, self->len, 8, NULL);
		EXPECT_EQ(0, uvm_launch1(self->dev.fd, gpu, 2, op, NULL));
	}
	EXPECT_EQ(0, uvm_counters(self->dev.fd, &after));
	d = uvm_counters_delta(&before, &after);
	return d.c[UVM_COUNTER_GPU_FAULTS];
}

/* Off by default: remote reads never move the data */
TEST_F(access, off_by_default)
{
	struct uvm_counters before, after, d;

	ASSERT_EQ(0, uvm_advise(self->dev.fd, self->p, self->len,
				UVM_ADVICE_SET_ACCESSED_BY, UVM_LOC_GPU(0)));
	ASSERT_EQ(0, uvm_counters(self->dev.fd, &before));
	ASSERT_EQ(0ULL, read_rounds(_metadata, self, 0, 4));
	ASSERT_EQ(UVM_CPU_BIT, resident_wait(self, UVM_CPU_BIT, 0));
	ASSERT_EQ(0, uvm_counters(self->dev.fd, &after));
	d = uvm_counters_delta(&before, &after);
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_ACCESS_COUNTER_MIGRATIONS]);
}

/* On: a GPU hammering host memory through its remote mapping gets it moved */
TEST_F(access, remote_reads_migrate_to_gpu)
{
	struct uvm_counters before, after, d;

	ASSERT_EQ(0, uvm_param_write("access_counters", "1"));
	ASSERT_EQ(0, uvm_advise(self->dev.fd, self->p, self->len,
				UVM_ADVICE_SET_ACCESSED_BY, UVM_LOC_GPU(0)));
	ASSERT_EQ(0, uvm_counters(self->dev.fd, &before));
	/* At most one fault per page: when the mapping turns local. */
	ASSERT_GE(self->len / self->ps, read_rounds(_metadata, self, 0, 4));
	ASSERT_EQ(UVM_GPU_BIT(0), resident_wait(self, UVM_GPU_BIT(0), 5000));
	ASSERT_EQ(0, uvm_counters(self->dev.fd, &after));
	d = uvm_counters_delta(&before, &after);
	ASSERT_LT(0ULL, d.c[UVM_COUNTER_ACCESS_COUNTER_MIGRATIONS]);
	/* The data came along intact. */
	ASSERT_EQ(-1, uvm_memcmp_at(self->p, (uint8_t[4096]){ [0 ... 4095] = 0x5a },
				    self->ps));
}

/* A peer mapping (data on GPU 1, accessed by GPU 0) is pulled to GPU 0 */
TEST_F(access, peer_reads_migrate)
{
	if (self->dev.num_gpus < 2)
		UVM_SKIP("needs 2 GPUs");
	ASSERT_EQ(0, uvm_prefetch(self->dev.fd, self->p, self->len, UVM_LOC_GPU(1)));
	ASSERT_EQ(0, uvm_param_write("access_counters", "1"));
	ASSERT_EQ(0, uvm_advise(self->dev.fd, self->p, self->len,
				UVM_ADVICE_SET_ACCESSED_BY, UVM_LOC_GPU(0)));
	read_rounds(_metadata, self, 0, 4);
	ASSERT_EQ(UVM_GPU_BIT(0), resident_wait(self, UVM_GPU_BIT(0), 5000));
}

/* A preferred location elsewhere wins over the counters */
TEST_F(access, preferred_location_wins)
{
	struct uvm_counters before, after, d;

	ASSERT_EQ(0, uvm_param_write("access_counters", "1"));
	ASSERT_EQ(0, uvm_advise(self->dev.fd, self->p, self->len,
				UVM_ADVICE_SET_PREFERRED_LOCATION, UVM_LOC_HOST));
	/* GPU 0 faults once per page and maps host memory remotely. */
	read_rounds(_metadata, self, 0, 4);
	usleep(200 * 1000);
	ASSERT_EQ(0, uvm_counters(self->dev.fd, &before));
	read_rounds(_metadata, self, 0, 2);
	usleep(200 * 1000);
	ASSERT_EQ(0, uvm_counters(self->dev.fd, &after));
	d = uvm_counters_delta(&before, &after);
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_ACCESS_COUNTER_MIGRATIONS]);
	ASSERT_EQ(UVM_CPU_BIT, resident_wait(self, UVM_CPU_BIT, 0));
}

TEST_HARNESS_MAIN
