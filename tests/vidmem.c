// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * vidmem - GPU memory accounting, and GPU memory running out.
 *
 * Run with uvm.ko vidmem_mb=4: two 2 MiB chunks per GPU.  Vidmem is counted
 * in chunks, one per VA block and GPU, and returns to what it was when the
 * pages leave.  When a GPU's memory is full, a fault needing a new chunk
 * either succeeds (eviction) with exact data, or is a clean fatal fault:
 * never a hang, never lost data, and the process carries on.
 */
#include "kselftest_harness.h"
#include "uvm_test_util.h"

#define VIDMEM_CHUNKS	2

FIXTURE(vidmem) {
	struct uvm_dev dev;
	uint64_t ps;
	uint8_t *p;		/* VIDMEM_CHUNKS + 1 blocks, block aligned */
	uint64_t len;
};

FIXTURE_SETUP(vidmem)
{
	struct uvm_ioc_gpu_info info;
	uint32_t g;

	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, 1);
	self->ps = self->dev.page_size;
	for (g = 0; g < self->dev.num_gpus; g++) {
		ASSERT_EQ(0, uvm_gpu_info(self->dev.fd, g, &info));
		if (info.vidmem_size != VIDMEM_CHUNKS * UVM_VA_BLOCK_SIZE)
			UVM_SKIP("GPU %u has %llu MiB of vidmem: load uvm.ko with vidmem_mb=4",
				 g, (unsigned long long)(info.vidmem_size >> 20));
		ASSERT_EQ(0ULL, uvm_vidmem_wait(self->dev.fd, g, 0));
	}
	self->len = (VIDMEM_CHUNKS + 1) * UVM_VA_BLOCK_SIZE;
	self->p = uvm_mmap_block_aligned(&self->dev, self->len);
	ASSERT_NE(MAP_FAILED, self->p);
}

FIXTURE_TEARDOWN(vidmem)
{
	uvm_dev_teardown(&self->dev);
}

/* One op per block: atomic add of 1 to the first page of block b. */
static struct uvm_test_gpu_op block_op(uint8_t *p, unsigned int b, uint64_t ps)
{
	return uvm_op_atomic(p + b * UVM_VA_BLOCK_SIZE, ps, 1);
}

/* One page in each of two blocks fills the GPU exactly; munmap empties it */
TEST_F(vidmem, fill_exactly)
{
	struct uvm_test_gpu_op ops[VIDMEM_CHUNKS];
	unsigned int b;

	for (b = 0; b < VIDMEM_CHUNKS; b++)
		ops[b] = block_op(self->p, b, self->ps);
	ASSERT_EQ(0, uvm_launch(self->dev.fd, 0, 1, ops, VIDMEM_CHUNKS, NULL));
	ASSERT_EQ(VIDMEM_CHUNKS * UVM_VA_BLOCK_SIZE, uvm_vidmem_used(self->dev.fd, 0));
	ASSERT_EQ(0, munmap(self->p, self->len));
	ASSERT_EQ(0ULL, uvm_vidmem_wait(self->dev.fd, 0, 0));
}

/*
 * A third block on a full GPU: the launch completes with exact data
 * (eviction), or ends promptly with a fatal fault on that block; either way
 * no data is lost and vidmem never exceeds the GPU's size
 */
TEST_F(vidmem, oversubscribe_clean)
{
	struct uvm_test_gpu_op ops[VIDMEM_CHUNKS + 1];
	struct uvm_test_launch l;
	uint64_t *w, t0;
	unsigned int b;
	int ret;

	for (b = 0; b <= VIDMEM_CHUNKS; b++) {
		w = (uint64_t *)(self->p + b * UVM_VA_BLOCK_SIZE);
		w[0] = 100 + b;
		ops[b] = block_op(self->p, b, self->ps);
	}
	t0 = uvm_now_ms();
	ret = uvm_launch(self->dev.fd, 0, 1, ops, VIDMEM_CHUNKS + 1, &l);
	TH_LOG("launch over %u blocks: %d after %llu ms", VIDMEM_CHUNKS + 1, ret,
	       (unsigned long long)(uvm_now_ms() - t0));
	ASSERT_LT(uvm_now_ms() - t0, 20000ULL);
	ASSERT_GE(VIDMEM_CHUNKS * UVM_VA_BLOCK_SIZE, uvm_vidmem_used(self->dev.fd, 0));
	if (ret) {
		ASSERT_EQ(-EREMOTEIO, ret);
		ASSERT_EQ((uintptr_t)(self->p + VIDMEM_CHUNKS * UVM_VA_BLOCK_SIZE),
			  l.fault_address);
		ASSERT_EQ((uint32_t)UVM_TEST_OP_ATOMIC_ADD, l.fault_access);
		ASSERT_EQ((uint32_t)VIDMEM_CHUNKS, l.fault_op);
	}
	for (b = 0; b <= VIDMEM_CHUNKS; b++) {
		w = (uint64_t *)(self->p + b * UVM_VA_BLOCK_SIZE);
		ASSERT_EQ(100 + b + (ret && b == VIDMEM_CHUNKS ? 0 : 1), w[0]) TH_LOG("block %u", b);
		ASSERT_EQ(ret && b == VIDMEM_CHUNKS ? 0ULL : 1ULL, w[1]) TH_LOG("block %u", b);
	}
	ASSERT_EQ(0, munmap(self->p, self->len));
	ASSERT_EQ(0ULL, uvm_vidmem_wait(self->dev.fd, 0, 0));
}

/* After running out, freeing a block lets the same launch succeed */
TEST_F(vidmem, carries_on_after_running_out)
{
	struct uvm_test_gpu_op ops[VIDMEM_CHUNKS + 1];
	unsigned int b;

	for (b = 0; b <= VIDMEM_CHUNKS; b++)
		ops[b] = block_op(self->p, b, self->ps);
	ASSERT_EQ(0, uvm_launch(self->dev.fd, 0, 1, ops, VIDMEM_CHUNKS, NULL));
	/* Whatever the third block does, the first one can then be unmapped. */
	uvm_launch(self->dev.fd, 0, 1, &ops[VIDMEM_CHUNKS], 1, NULL);
	ASSERT_EQ(0, munmap(self->p, UVM_VA_BLOCK_SIZE));
	ASSERT_EQ(0, uvm_launch(self->dev.fd, 0, 1, &ops[VIDMEM_CHUNKS], 1, NULL));
	ASSERT_GE(VIDMEM_CHUNKS * UVM_VA_BLOCK_SIZE, uvm_vidmem_used(self->dev.fd, 0));
	ASSERT_EQ(0, munmap(self->p + UVM_VA_BLOCK_SIZE, self->len - UVM_VA_BLOCK_SIZE));
	ASSERT_EQ(0ULL, uvm_vidmem_wait(self->dev.fd, 0, 0));
}

/* A full GPU 0 does not limit GPU 1; moving a block over frees GPU 0's chunk */
TEST_F(vidmem, gpus_account_separately)
{
	struct uvm_test_gpu_op ops[VIDMEM_CHUNKS];
	unsigned int b;

	if (self->dev.num_gpus < 2)
		UVM_SKIP("needs 2 GPUs");
	for (b = 0; b < VIDMEM_CHUNKS; b++)
		ops[b] = block_op(self->p, b, self->ps);
	ASSERT_EQ(0, uvm_launch(self->dev.fd, 0, 1, ops, VIDMEM_CHUNKS, NULL));
	ASSERT_EQ(0, uvm_launch(self->dev.fd, 1, 1, ops, 1, NULL));
	ASSERT_EQ((VIDMEM_CHUNKS - 1) * UVM_VA_BLOCK_SIZE, uvm_vidmem_used(self->dev.fd, 0));
	ASSERT_EQ(UVM_VA_BLOCK_SIZE, uvm_vidmem_used(self->dev.fd, 1));
	ASSERT_EQ(2ULL, *(uint64_t *)self->p);
	ASSERT_EQ(0ULL, uvm_vidmem_wait(self->dev.fd, 1, 0));
	ASSERT_EQ(0, munmap(self->p, self->len));
	ASSERT_EQ(0ULL, uvm_vidmem_wait(self->dev.fd, 0, 0));
}

/* vidmem_used in sysfs follows GPU_INFO */
TEST_F(vidmem, sysfs_matches_gpu_info)
{
	char path[128], buf[64] = {};
	int fd;
	ssize_t n;

	ASSERT_EQ(0, uvm_launch1(self->dev.fd, 0, 1, block_op(self->p, 0, self->ps), NULL));
	snprintf(path, sizeof(path), UVM_SYSFS_GPU_FMT, 0U, "vidmem_used");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	ASSERT_LT(0, n);
	ASSERT_EQ(UVM_VA_BLOCK_SIZE, strtoull(buf, NULL, 10));
	ASSERT_EQ(UVM_VA_BLOCK_SIZE, uvm_vidmem_used(self->dev.fd, 0));
	ASSERT_EQ(0, munmap(self->p, self->len));
}

TEST_HARNESS_MAIN
