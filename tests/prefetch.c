// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The density prefetcher: fewer faults for dense access, nothing extra for
 * sparse access, never across allocations or into read-mostly ranges, data
 * always intact.  The suite runs with the module's defaults (prefetch on,
 * threshold 51); tests that need it off or another threshold set the run
 * time parameters and restore them.
 */

#include "kselftest_harness.h"
#include "uvm_test_util.h"

FIXTURE(prefetch) {
	struct uvm_dev dev;
	uint64_t ps;
	uint64_t npages;
	uint64_t len;
	uint8_t *p;
	uint8_t *ref;
};

FIXTURE_SETUP(prefetch)
{
	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, 1);
	self->ps = self->dev.page_size;
	self->npages = UVM_VA_BLOCK_SIZE / self->ps;
	self->len = UVM_VA_BLOCK_SIZE;
	self->p = uvm_mmap_block_aligned(&self->dev, self->len);
	ASSERT_NE(MAP_FAILED, self->p);
	self->ref = malloc(self->len);
	ASSERT_NE(NULL, self->ref);
	uvm_random_fill(self->ref, self->len, 77);
	ASSERT_EQ(0, uvm_param_write("prefetch", "1"));
	ASSERT_EQ(0, uvm_param_write("prefetch_threshold", "51"));
}

FIXTURE_TEARDOWN(prefetch)
{
	uvm_param_write("prefetch", "1");
	uvm_param_write("prefetch_threshold", "51");
	munmap(self->p, self->len);
	free(self->ref);
	uvm_dev_teardown(&self->dev);
}

/* Faults of one GPU read of a CPU-written block, read page by page in order */
static uint64_t gpu_read_faults(struct __test_metadata *_metadata,
				FIXTURE_DATA(prefetch) *self, uint32_t warps)
{
	struct uvm_counters before, after, d;
	struct uvm_test_gpu_op op;

	memcpy(self->p, self->ref, self->len);
	EXPECT_EQ(0, uvm_counters(self->dev.fd, &before));
	op = uvm_op_read(self->p, self->len, self->ps, NULL);
	EXPECT_EQ(0, uvm_launch1(self->dev.fd, 0, warps, op, &op));
	EXPECT_EQ(uvm_checksum(self->ref, self->p, self->len), op.checksum);
	EXPECT_EQ(0, uvm_counters(self->dev.fd, &after));
	d = uvm_counters_delta(&before, &after);
	return d.c[UVM_COUNTER_GPU_FAULTS] - d.c[UVM_COUNTER_GPU_FAULTS_DUP];
}

/* A sequential GPU stream faults far fewer times than it has pages */
TEST_F(prefetch, sequential_gpu_read_fewer_faults)
{
	uint64_t faults = gpu_read_faults(_metadata, self, 1);

	ASSERT_LT(faults, self->npages / 8);
	ASSERT_GT(faults, 0ULL);
	ASSERT_RESIDENCY(&self->dev, self->p, self->npages, UVM_STATE_GPU(0));
}

/* With the prefetcher off, the same stream faults once per page */
TEST_F(prefetch, off_faults_every_page)
{
	uint64_t faults;

	ASSERT_EQ(0, uvm_param_write("prefetch", "0"));
	faults = gpu_read_faults(_metadata, self, 1);
	ASSERT_EQ(self->npages, faults);
}

/* Threshold 100 can never be exceeded: no prefetching */
TEST_F(prefetch, threshold_100_prefetches_nothing)
{
	struct uvm_counters before, after, d;

	ASSERT_EQ(0, uvm_param_write("prefetch_threshold", "100"));
	ASSERT_EQ(0, uvm_counters(self->dev.fd, &before));
	ASSERT_EQ(self->npages, gpu_read_faults(_metadata, self, 1));
	ASSERT_EQ(0, uvm_counters(self->dev.fd, &after));
	d = uvm_counters_delta(&before, &after);
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_PAGES_FAULT_PREFETCHED]);
}

/* A dense GPU first touch populates the block with few faults */
TEST_F(prefetch, dense_first_touch_populates_whole_block)
{
	struct uvm_counters before, after, d;

	ASSERT_EQ(0, uvm_counters(self->dev.fd, &before));
	ASSERT_EQ(0, uvm_launch1(self->dev.fd, 0, 1, uvm_op_pattern(self->p, self->len, 5),
				 NULL));
	ASSERT_EQ(0, uvm_counters(self->dev.fd, &after));
	d = uvm_counters_delta(&before, &after);
	ASSERT_EQ(self->npages, d.c[UVM_COUNTER_PAGES_POPULATED_GPU]);
	ASSERT_LT(d.c[UVM_COUNTER_GPU_FAULTS] - d.c[UVM_COUNTER_GPU_FAULTS_DUP],
		  self->npages / 8);
	ASSERT_EQ(-1, uvm_pattern_mismatch(self->p, self->len, 5));
}

/* Sparse touches (one page in 16) bring no neighbours */
TEST_F(prefetch, sparse_touch_prefetches_nothing)
{
	struct uvm_counters before, after, d;
	struct uvm_test_gpu_op op;
	uint64_t stride = 16 * self->ps;

	memcpy(self->p, self->ref, self->len);
	ASSERT_EQ(0, uvm_counters(self->dev.fd, &before));
	op = uvm_op_read(self->p, self->len, 8, NULL);
	op.stride = stride;
	op = uvm_op_random(op, 3);
	ASSERT_EQ(0, uvm_launch1(self->dev.fd, 0, 4, op, &op));
	ASSERT_EQ(0, uvm_counters(self->dev.fd, &after));
	d = uvm_counters_delta(&before, &after);
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_PAGES_FAULT_PREFETCHED]);
	ASSERT_EQ(self->len / stride, d.c[UVM_COUNTER_PAGES_H2D]);
}

/* Random order over a whole block still converges: fewer faults than pages */
TEST_F(prefetch, random_dense_fewer_faults)
{
	struct uvm_counters before, after, d;
	struct uvm_test_gpu_op op;

	memcpy(self->p, self->ref, self->len);
	ASSERT_EQ(0, uvm_counters(self->dev.fd, &before));
	op = uvm_op_random(uvm_op_read(self->p, self->len, self->ps, NULL), 11);
	ASSERT_EQ(0, uvm_launch1(self->dev.fd, 0, 1, op, &op));
	ASSERT_EQ(uvm_checksum(self->ref, self->p, self->len), op.checksum);
	ASSERT_EQ(0, uvm_counters(self->dev.fd, &after));
	d = uvm_counters_delta(&before, &after);
	ASSERT_LT(d.c[UVM_COUNTER_GPU_FAULTS] - d.c[UVM_COUNTER_GPU_FAULTS_DUP],
		  self->npages);
	ASSERT_EQ(self->npages, d.c[UVM_COUNTER_PAGES_H2D]);
}

/* CPU read-back of GPU-resident data faults far fewer times than pages */
TEST_F(prefetch, cpu_readback_fewer_faults)
{
	struct uvm_counters before, after, d;

	ASSERT_EQ(0, uvm_launch1(self->dev.fd, 0, 4, uvm_op_pattern(self->p, self->len, 9),
				 NULL));
	ASSERT_EQ(0, uvm_counters(self->dev.fd, &before));
	ASSERT_EQ(-1, uvm_pattern_mismatch(self->p, self->len, 9));
	ASSERT_EQ(0, uvm_counters(self->dev.fd, &after));
	d = uvm_counters_delta(&before, &after);
	ASSERT_LT(d.c[UVM_COUNTER_CPU_FAULTS], self->npages / 8);
	ASSERT_EQ(self->npages, d.c[UVM_COUNTER_PAGES_D2H]);
	ASSERT_RESIDENCY(&self->dev, self->p, self->npages, UVM_STATE_CPU);
}

/* Read-mostly ranges are never prefetched: each read copy is the reader's */
TEST_F(prefetch, read_mostly_not_prefetched)
{
	struct uvm_counters before, after, d;

	ASSERT_EQ(0, uvm_advise(self->dev.fd, self->p, self->len,
				UVM_ADVICE_SET_READ_MOSTLY, UVM_LOC_INVALID));
	ASSERT_EQ(0, uvm_counters(self->dev.fd, &before));
	ASSERT_EQ(self->npages, gpu_read_faults(_metadata, self, 1));
	ASSERT_EQ(0, uvm_counters(self->dev.fd, &after));
	d = uvm_counters_delta(&before, &after);
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_PAGES_FAULT_PREFETCHED]);
}

/* The prefetcher never brings pages of another allocation in the same block */
TEST_F(prefetch, stays_inside_the_allocation)
{
	uint8_t *q[2];
	uint64_t half = self->len / 2;
	struct uvm_test_page_state st;
	struct uvm_test_gpu_op op;

	ASSERT_EQ(0, uvm_mmap_adjacent(&self->dev, half, q));
	memset(q[0], 1, half);
	memset(q[1], 2, half);
	op = uvm_op_read(q[0], half, self->ps, NULL);
	ASSERT_EQ(0, uvm_launch1(self->dev.fd, 0, 1, op, &op));
	/* All of q[0] came over; q[1] stays on the CPU. */
	ASSERT_RESIDENCY(&self->dev, q[0], half / self->ps, UVM_STATE_GPU(0));
	ASSERT_EQ(0, uvm_residency(self->dev.fd, q[1], self->ps, &st));
	ASSERT_EQ(UVM_CPU_BIT, st.resident);
	munmap(q[0], half);
	munmap(q[1], half);
}

/* Prefetched pages hold exactly the bytes the CPU wrote, on both GPUs */
TEST_F(prefetch, prefetched_data_exact_two_gpus)
{
	uint8_t *out = malloc(self->len);
	struct uvm_test_gpu_op op;

	if (self->dev.num_gpus < 2)
		UVM_SKIP("needs 2 GPUs");
	ASSERT_NE(NULL, out);
	memcpy(self->p, self->ref, self->len);
	op = uvm_op_read(self->p, self->len / 2, self->ps, NULL);
	ASSERT_EQ(0, uvm_launch1(self->dev.fd, 0, 1, op, NULL));
	op = uvm_op_read(self->p, self->len, self->ps, out);
	ASSERT_EQ(0, uvm_launch1(self->dev.fd, 1, 2, op, NULL));
	ASSERT_EQ(-1, uvm_memcmp_at(out, self->ref, self->len));
	ASSERT_EQ(-1, uvm_memcmp_at(self->p, self->ref, self->len));
	free(out);
}

TEST_HARNESS_MAIN
