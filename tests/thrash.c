// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Thrashing control: pages bounced between the CPU and a GPU are detected
 * and pinned to host memory (the GPU maps them remotely) for a while, or,
 * with thrashing_pin=0 and where a preferred location overrides the pin,
 * throttled (the page keeps moving, the faulting processors are slowed
 * down); data stays exact throughout.
 *
 * Timing under emulation varies, so each test sets a generous lapse
 * (thrashing_lapse_us) and restores the defaults afterwards.
 */

#include "kselftest_harness.h"
#include "uvm_test_util.h"

FIXTURE(thrash) {
	struct uvm_dev dev;
	uint64_t ps;
	uint64_t *p;
};

FIXTURE_SETUP(thrash)
{
	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, 1);
	self->ps = self->dev.page_size;
	self->p = uvm_mmap(&self->dev, self->ps);
	ASSERT_NE(MAP_FAILED, self->p);
	ASSERT_EQ(0, uvm_param_write("thrashing", "1"));
	ASSERT_EQ(0, uvm_param_write("thrashing_lapse_us", "2000000"));
	ASSERT_EQ(0, uvm_param_write("thrashing_threshold", "3"));
	ASSERT_EQ(0, uvm_param_write("thrashing_pin_ms", "60000"));
}

FIXTURE_TEARDOWN(thrash)
{
	uvm_param_write("thrashing", "1");
	uvm_param_write("thrashing_lapse_us", "2000");
	uvm_param_write("thrashing_threshold", "3");
	uvm_param_write("thrashing_pin_ms", "300");
	uvm_param_write("thrashing_pin", "1");
	uvm_param_write("thrashing_nap_us", "1000");
	munmap(self->p, self->ps);
	uvm_dev_teardown(&self->dev);
}

/*
 * @rounds rounds of: the CPU adds 1 to the first word, GPU 0 adds 2 with an
 * atomic; returns the counter deltas.  The word ends at 3 * rounds.
 */
static struct uvm_counters ping_pong(struct __test_metadata *_metadata,
				     FIXTURE_DATA(thrash) *self, int rounds)
{
	struct uvm_counters before, after;
	int r;

	*self->p = 0;
	EXPECT_EQ(0, uvm_counters(self->dev.fd, &before));
	for (r = 0; r < rounds; r++) {
		(*(volatile uint64_t *)self->p)++;
		EXPECT_EQ(0, uvm_launch1(self->dev.fd, 0, 1,
					 uvm_op_atomic(self->p, 8, 2), NULL));
	}
	EXPECT_EQ(3ULL * rounds, *(volatile uint64_t *)self->p);
	EXPECT_EQ(0, uvm_counters(self->dev.fd, &after));
	return uvm_counters_delta(&before, &after);
}

/* A page bounced CPU <-> GPU is found thrashing and pinned to host memory */
TEST_F(thrash, ping_pong_pins_to_host)
{
	struct uvm_counters d = ping_pong(_metadata, self, 8);
	struct uvm_test_page_state st;

	ASSERT_LT(0ULL, d.c[UVM_COUNTER_THRASHING_DETECTED]);
	ASSERT_LT(0ULL, d.c[UVM_COUNTER_THRASHING_PINNED]);
	/* Pinned: fewer migrations than the 2 per round of plain ping-pong. */
	ASSERT_LT(d.c[UVM_COUNTER_PAGES_H2D], 8ULL);
	/* The page stays in host memory and GPU 0 maps it there. */
	ASSERT_EQ(0, uvm_residency(self->dev.fd, self->p, self->ps, &st));
	ASSERT_EQ(UVM_CPU_BIT, st.resident);
	ASSERT_TRUE(st.mapped_read & UVM_GPU_BIT(0));
}

/* A preferred location overrides the pin: the page keeps moving */
TEST_F(thrash, preferred_location_overrides)
{
	struct uvm_counters d;

	ASSERT_EQ(0, uvm_advise(self->dev.fd, self->p, self->ps,
				UVM_ADVICE_SET_PREFERRED_LOCATION, UVM_LOC_GPU(0)));
	d = ping_pong(_metadata, self, 6);
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_THRASHING_PINNED]);
	ASSERT_EQ(6ULL, d.c[UVM_COUNTER_PAGES_D2H]);
	/* It thrashes, so the faulting processors are throttled instead. */
	ASSERT_LT(0ULL, d.c[UVM_COUNTER_THRASHING_DETECTED]);
	ASSERT_LT(0ULL, d.c[UVM_COUNTER_THRASHING_THROTTLED]);
}

/*
 * Throttling instead of pinning: the page still moves every round, the
 * processors that fault on it are delayed by the nap (a CPU fault sleeps
 * it; a GPU fault waits for it), and the data stays exact
 */
TEST_F(thrash, throttle_instead_of_pin)
{
	const uint64_t nap_ms = 20;
	struct uvm_counters d;
	uint64_t t0, t;

	ASSERT_EQ(0, uvm_param_write("thrashing_pin", "0"));
	ASSERT_EQ(0, uvm_param_write("thrashing_nap_us", "20000"));
	t0 = uvm_now_ms();
	d = ping_pong(_metadata, self, 8);
	t = uvm_now_ms() - t0;
	ASSERT_LT(0ULL, d.c[UVM_COUNTER_THRASHING_DETECTED]);
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_THRASHING_PINNED]);
	ASSERT_LE(2ULL, d.c[UVM_COUNTER_THRASHING_THROTTLED]);
	/* Not pinned: both ways every round. */
	ASSERT_EQ(8ULL, d.c[UVM_COUNTER_PAGES_H2D]);
	ASSERT_EQ(8ULL, d.c[UVM_COUNTER_PAGES_D2H]);
	/* Every CPU fault after detection slept the nap. */
	ASSERT_LE(2 * nap_ms, t) TH_LOG("ping-pong took %llu ms", (unsigned long long)t);
}

/* A zero nap turns throttling off: detection goes on, nothing is delayed */
TEST_F(thrash, throttle_zero_nap)
{
	struct uvm_counters d;

	ASSERT_EQ(0, uvm_param_write("thrashing_pin", "0"));
	ASSERT_EQ(0, uvm_param_write("thrashing_nap_us", "0"));
	d = ping_pong(_metadata, self, 6);
	ASSERT_LT(0ULL, d.c[UVM_COUNTER_THRASHING_DETECTED]);
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_THRASHING_PINNED]);
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_THRASHING_THROTTLED]);
	ASSERT_EQ(6ULL, d.c[UVM_COUNTER_PAGES_H2D]);
}

/* With detection off, plain ping-pong migrates twice per round */
TEST_F(thrash, off_never_pins)
{
	struct uvm_counters d;

	ASSERT_EQ(0, uvm_param_write("thrashing", "0"));
	d = ping_pong(_metadata, self, 6);
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_THRASHING_DETECTED]);
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_THRASHING_PINNED]);
	ASSERT_EQ(6ULL, d.c[UVM_COUNTER_PAGES_H2D]);
	ASSERT_EQ(6ULL, d.c[UVM_COUNTER_PAGES_D2H]);
}

/* Migrations further apart than the lapse never add up to thrashing */
TEST_F(thrash, slow_bouncing_is_not_thrashing)
{
	struct uvm_counters d;

	ASSERT_EQ(0, uvm_param_write("thrashing_lapse_us", "1"));
	d = ping_pong(_metadata, self, 6);
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_THRASHING_DETECTED]);
}

/*
 * After the pin expires, the next fault migrates the page again (GPU 0 keeps
 * its remote mapping meanwhile and does not fault; GPU 1 does)
 */
TEST_F(thrash, pin_expires)
{
	struct uvm_test_page_state st;
	struct uvm_counters d;

	if (self->dev.num_gpus < 2)
		UVM_SKIP("needs 2 GPUs");
	ASSERT_EQ(0, uvm_param_write("thrashing_pin_ms", "100"));
	d = ping_pong(_metadata, self, 6);
	ASSERT_LT(0ULL, d.c[UVM_COUNTER_THRASHING_DETECTED]);
	usleep(300 * 1000);
	ASSERT_EQ(0, uvm_launch1(self->dev.fd, 1, 1, uvm_op_atomic(self->p, 8, 2), NULL));
	ASSERT_EQ(0, uvm_residency(self->dev.fd, self->p, self->ps, &st));
	ASSERT_EQ(UVM_GPU_BIT(1), st.resident);
	ASSERT_EQ(20ULL, *(volatile uint64_t *)self->p);
}

/* With threshold 2, two close migrations are enough to pin */
TEST_F(thrash, threshold_two_pins_sooner)
{
	struct uvm_counters d;

	ASSERT_EQ(0, uvm_param_write("thrashing_threshold", "2"));
	d = ping_pong(_metadata, self, 3);
	ASSERT_LT(0ULL, d.c[UVM_COUNTER_THRASHING_PINNED]);
}

TEST_HARNESS_MAIN
