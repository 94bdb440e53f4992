// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Oversubscription: managed memory larger than a GPU's memory streams
 * through it by eviction, with verified data, under concurrent faults from
 * both GPUs and CPU threads.
 *
 * The suite runs with vidmem_mb=16 (8 chunks of 2 MiB per GPU), so 2x and
 * 4x oversubscription stays small under emulation.
 */
#include <pthread.h>

#include "kselftest_harness.h"

#include "uvm_test_util.h"

FIXTURE(oversub) {
	struct uvm_dev dev;
	struct uvm_ioc_gpu_info info;
};

FIXTURE_VARIANT(oversub) {
	unsigned int factor;	/* managed memory = factor x vidmem (x4 quarters) */
	uint32_t gpu;
};

FIXTURE_VARIANT_ADD(oversub, x1_25_gpu0) { .factor = 5, .gpu = 0 };
FIXTURE_VARIANT_ADD(oversub, x2_gpu0) { .factor = 8, .gpu = 0 };
FIXTURE_VARIANT_ADD(oversub, x4_gpu0) { .factor = 16, .gpu = 0 };
FIXTURE_VARIANT_ADD(oversub, x2_gpu1) { .factor = 8, .gpu = 1 };
FIXTURE_VARIANT_ADD(oversub, x4_gpu1) { .factor = 16, .gpu = 1 };

FIXTURE_SETUP(oversub)
{
	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, variant->gpu + 1);
	ASSERT_EQ(0, uvm_gpu_info(self->dev.fd, variant->gpu, &self->info));
	if (self->info.vidmem_size > 64 * UVM_MIB)
		UVM_SKIP("%llu MiB of vidmem: the suite expects vidmem_mb=16",
			 (unsigned long long)(self->info.vidmem_size >> 20));
}

FIXTURE_TEARDOWN(oversub)
{
	uvm_dev_teardown(&self->dev);
}

static uint64_t oversub_len(const struct uvm_ioc_gpu_info *info, unsigned int quarters)
{
	return info->vidmem_size / 4 * quarters;
}

/* GPU writes a pattern over more memory than it has, then reads it back */
TEST_F_TIMEOUT(oversub, gpu_stream_write_then_read, 300)
{
	uint64_t len = oversub_len(&self->info, variant->factor);
	uint8_t *p = uvm_mmap(&self->dev, len);
	struct uvm_test_gpu_op op;
	struct uvm_counters before, after, d;

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, uvm_counters(self->dev.fd, &before));
	ASSERT_EQ(0, uvm_launch1(self->dev.fd, variant->gpu, 16,
				 uvm_op_pattern(p, len, 0x0be5), NULL));
	op = uvm_op_read(p, len, 8, NULL);
	ASSERT_EQ(0, uvm_launch1(self->dev.fd, variant->gpu, 16, op, &op));
	ASSERT_EQ(uvm_pattern_checksum(p, len, 0x0be5), op.checksum);
	ASSERT_EQ(0, uvm_counters(self->dev.fd, &after));
	d = uvm_counters_delta(&before, &after);
	/* More than vidmem went through the GPU: something was evicted. */
	if (len > self->info.vidmem_size) {
		ASSERT_LT(0ULL, d.c[UVM_COUNTER_PAGES_EVICTED]);
	}
	ASSERT_GE(self->info.vidmem_size, uvm_vidmem_used(self->dev.fd, variant->gpu));
	/* The CPU sees every word the GPU wrote. */
	ASSERT_EQ(-1, uvm_pattern_mismatch(p, len, 0x0be5));
	munmap(p, len);
	ASSERT_EQ(0ULL, uvm_vidmem_wait(self->dev.fd, variant->gpu, 0));
}

/*
 * CPU-written data streams through the GPU intact, then a random-order read
 * of a vidmem-sized part (random order over all of it would thrash: every
 * miss evicts a whole chunk) sees the same bytes.
 */
TEST_F_TIMEOUT(oversub, cpu_data_gpu_reads_random, 300)
{
	uint64_t len = oversub_len(&self->info, variant->factor);
	uint64_t part = self->info.vidmem_size / 2;
	uint8_t *p = uvm_mmap(&self->dev, len);
	uint8_t *ref = malloc(len);
	struct uvm_test_gpu_op op;

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_NE(NULL, ref);
	uvm_random_fill(ref, len, len);
	memcpy(p, ref, len);
	op = uvm_op_read(p, len, 64, NULL);
	ASSERT_EQ(0, uvm_launch1(self->dev.fd, variant->gpu, 8, op, &op));
	ASSERT_EQ(uvm_checksum(ref, p, len), op.checksum);
	op = uvm_op_random(uvm_op_read(p + len - part, part, 64, NULL), 7);
	ASSERT_EQ(0, uvm_launch1(self->dev.fd, variant->gpu, 8, op, &op));
	ASSERT_EQ(uvm_checksum(ref + len - part, p + len - part, part), op.checksum);
	ASSERT_EQ(-1, uvm_memcmp_at(p, ref, len));
	free(ref);
	munmap(p, len);
}

/* Prefetching more than the GPU holds keeps the last blocks on it */
TEST_F_TIMEOUT(oversub, prefetch_more_than_vidmem, 300)
{
	uint64_t len = oversub_len(&self->info, variant->factor);
	uint8_t *p = uvm_mmap_block_aligned(&self->dev, len);
	uint8_t *ref = malloc(len);
	struct uvm_test_page_state st;

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_NE(NULL, ref);
	uvm_random_fill(ref, len, 3 * len);
	memcpy(p, ref, len);
	ASSERT_EQ(0, uvm_prefetch(self->dev.fd, p, len, UVM_LOC_GPU(variant->gpu)));
	/* The last page prefetched is resident on the GPU. */
	ASSERT_EQ(0, uvm_residency(self->dev.fd, p + len - self->dev.page_size,
				   self->dev.page_size, &st));
	ASSERT_EQ(UVM_GPU_BIT(variant->gpu), st.resident);
	ASSERT_EQ(-1, uvm_memcmp_at(p, ref, len));
	free(ref);
	munmap(p, len);
}

struct oversub_worker {
	int fd;
	uint32_t gpu;		/* GPU index, or UINT32_MAX for a CPU thread */
	uint8_t *p;
	uint64_t len;
	uint64_t value;
	int rounds;
	int ret;
	long bad;
};

static void *oversub_work(void *arg)
{
	struct oversub_worker *w = arg;
	struct uvm_test_gpu_op op;
	uint64_t i;
	int r;

	for (r = 0; r < w->rounds && !w->ret && w->bad < 0; r++) {
		if (w->gpu == UINT32_MAX) {
			for (i = 0; i < w->len; i += 8)
				*(uint64_t *)(w->p + i) =
					uvm_pattern_word(w->value + r, w->p + i);
			w->bad = uvm_pattern_mismatch(w->p, w->len, w->value + r);
			continue;
		}
		w->ret = uvm_launch1(w->fd, w->gpu, 8, uvm_op_pattern(w->p, w->len,
								      w->value + r), NULL);
		op = uvm_op_read(w->p, w->len, 8, NULL);
		if (!w->ret)
			w->ret = uvm_launch1(w->fd, w->gpu, 8, op, &op);
		if (!w->ret && op.checksum != uvm_pattern_checksum(w->p, w->len, w->value + r))
			w->bad = 0;
	}
	return NULL;
}

/* Both GPUs and a CPU thread stream disjoint parts of 4x memory at once */
TEST_F_TIMEOUT(oversub, concurrent_gpus_and_cpu, 600)
{
	uint64_t len = oversub_len(&self->info, 16), part = len / 4;
	struct oversub_worker w[4];
	pthread_t t[4];
	uint8_t *p;
	int i, n = self->dev.num_gpus >= 2 ? 4 : 3;

	p = uvm_mmap(&self->dev, len);
	ASSERT_NE(MAP_FAILED, p);
	for (i = 0; i < n; i++) {
		w[i] = (struct oversub_worker){
			.fd = self->dev.fd, .p = p + i * part, .len = part,
			.value = 100 * (i + 1), .rounds = 2, .bad = -1,
			.gpu = i == n - 1 ? UINT32_MAX : (uint32_t)(i % self->dev.num_gpus),
		};
		ASSERT_EQ(0, pthread_create(&t[i], NULL, oversub_work, &w[i]));
	}
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, pthread_join(t[i], NULL));
	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, w[i].ret) TH_LOG("worker %d", i);
		ASSERT_EQ(-1, w[i].bad) TH_LOG("worker %d", i);
		ASSERT_EQ(-1, uvm_pattern_mismatch(w[i].p, part, w[i].value + 1));
	}
	munmap(p, len);
}

/* Device memory is never evicted: filling the GPU with it makes managed faults fatal */
TEST_F_TIMEOUT(oversub, device_memory_is_pinned, 300)
{
	uint64_t vid = self->info.vidmem_size;
	uint8_t *dev, *p = uvm_mmap(&self->dev, UVM_VA_BLOCK_SIZE);
	struct uvm_test_launch l;
	struct uvm_test_gpu_op op;

	ASSERT_NE(MAP_FAILED, p);
	/* Managed data on the GPU first: the device allocation evicts it. */
	ASSERT_EQ(0, uvm_launch1(self->dev.fd, variant->gpu, 4,
				 uvm_op_pattern(p, UVM_VA_BLOCK_SIZE, 9), NULL));
	dev = mmap(NULL, vid, PROT_NONE, MAP_SHARED, self->dev.fd,
		   UVM_MMAP_DEVICE(variant->gpu));
	ASSERT_NE(MAP_FAILED, dev);
	ASSERT_EQ(vid, uvm_vidmem_used(self->dev.fd, variant->gpu));
	ASSERT_EQ(-1, uvm_pattern_mismatch(p, UVM_VA_BLOCK_SIZE, 9));
	/* Nothing left to evict: a GPU access to managed memory is fatal. */
	op = uvm_op_read(p, 8, 8, NULL);
	ASSERT_EQ(-EREMOTEIO, uvm_launch(self->dev.fd, variant->gpu, 1, &op, 1, &l));
	ASSERT_EQ((uintptr_t)p, l.fault_address);
	/* One more device allocation cannot be backed. */
	ASSERT_EQ(MAP_FAILED, mmap(NULL, UVM_VA_BLOCK_SIZE, PROT_NONE, MAP_SHARED,
				   self->dev.fd, UVM_MMAP_DEVICE(variant->gpu)));
	ASSERT_EQ(ENOMEM, errno);
	munmap(dev, vid);
	/* With the memory back, the same access works. */
	op = uvm_op_read(p, UVM_VA_BLOCK_SIZE, 8, NULL);
	ASSERT_EQ(0, uvm_launch1(self->dev.fd, variant->gpu, 4, op, &op));
	ASSERT_EQ(uvm_pattern_checksum(p, UVM_VA_BLOCK_SIZE, 9), op.checksum);
	munmap(p, UVM_VA_BLOCK_SIZE);
}

/*
 * Where evicted pages go: the preferred location when it is another GPU
 * with room, else host memory; accessed-by GPUs map them there afterwards.
 * One 2 MiB block @a is made resident on GPU 0, then GPU 0's whole memory
 * is prefetched (@fill), which evicts @a first (least recently used).
 */
FIXTURE(evict) {
	struct uvm_dev dev;
	uint64_t vid;
	uint8_t *a;
	uint8_t *fill;
	uint8_t *ref;
};

FIXTURE_SETUP(evict)
{
	struct uvm_ioc_gpu_info info;

	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, 2);
	ASSERT_EQ(0, uvm_gpu_info(self->dev.fd, 0, &info));
	if (info.vidmem_size > 64 * UVM_MIB)
		UVM_SKIP("%llu MiB of vidmem: the suite expects vidmem_mb=16",
			 (unsigned long long)(info.vidmem_size >> 20));
	self->vid = info.vidmem_size;
	self->a = uvm_mmap_block_aligned(&self->dev, UVM_VA_BLOCK_SIZE);
	ASSERT_NE(MAP_FAILED, self->a);
	self->fill = uvm_mmap_block_aligned(&self->dev, self->vid);
	ASSERT_NE(MAP_FAILED, self->fill);
	self->ref = malloc(UVM_VA_BLOCK_SIZE);
	ASSERT_NE(NULL, self->ref);
	uvm_random_fill(self->ref, UVM_VA_BLOCK_SIZE, 77);
	memcpy(self->a, self->ref, UVM_VA_BLOCK_SIZE);
}

FIXTURE_TEARDOWN(evict)
{
	free(self->ref);
	munmap(self->fill, self->vid);
	munmap(self->a, UVM_VA_BLOCK_SIZE);
	uvm_dev_teardown(&self->dev);
}

/* @a on GPU 0, then GPU 0 filled: @a is evicted; the counter deltas of the fill */
static struct uvm_counters evict_a(struct __test_metadata *_metadata,
				   FIXTURE_DATA(evict) *self)
{
	const uint64_t n = UVM_VA_BLOCK_SIZE / self->dev.page_size;
	struct uvm_counters d;

	EXPECT_EQ(0, uvm_prefetch(self->dev.fd, self->a, UVM_VA_BLOCK_SIZE, UVM_LOC_GPU(0)));
	UVM_COUNT_DELTA(self->dev.fd, d,
		EXPECT_EQ(0, uvm_prefetch(self->dev.fd, self->fill, self->vid, UVM_LOC_GPU(0))));
	EXPECT_LE(n, d.c[UVM_COUNTER_PAGES_EVICTED]);
	return d;
}

/* Accessed-by GPUs map evicted pages where they land: no fault to read them */
TEST_F_TIMEOUT(evict, keeps_accessed_by_mappings, 300)
{
	const uint64_t n = UVM_VA_BLOCK_SIZE / self->dev.page_size;
	struct uvm_test_gpu_op op = uvm_op_read(self->a, UVM_VA_BLOCK_SIZE, 8, NULL);
	struct uvm_counters d;

	ASSERT_EQ(0, uvm_advise(self->dev.fd, self->a, UVM_VA_BLOCK_SIZE,
				UVM_ADVICE_SET_ACCESSED_BY, UVM_LOC_GPU(1)));
	evict_a(_metadata, self);
	ASSERT_RESIDENCY(&self->dev, self->a, n,
			 uvm_state(UVM_CPU_BIT, UVM_GPU_BIT(1), UVM_GPU_BIT(1), UVM_GPU_BIT(1)));
	UVM_COUNT_DELTA(self->dev.fd, d,
		ASSERT_EQ(0, uvm_launch1(self->dev.fd, 1, 4, op, &op)));
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_GPU_FAULTS]);
	ASSERT_EQ(uvm_checksum(self->ref, self->a, UVM_VA_BLOCK_SIZE), op.checksum);
	ASSERT_EQ(-1, uvm_memcmp_at(self->a, self->ref, UVM_VA_BLOCK_SIZE));
}

/* Pages whose preferred location is another GPU are evicted to it */
TEST_F_TIMEOUT(evict, to_preferred_gpu, 300)
{
	const uint64_t n = UVM_VA_BLOCK_SIZE / self->dev.page_size;
	struct uvm_test_page_state st;
	struct uvm_counters d;

	ASSERT_EQ(0, uvm_advise(self->dev.fd, self->a, UVM_VA_BLOCK_SIZE,
				UVM_ADVICE_SET_PREFERRED_LOCATION, UVM_LOC_GPU(1)));
	d = evict_a(_metadata, self);
	ASSERT_EQ(n, d.c[UVM_COUNTER_PAGES_D2D]);
	ASSERT_EQ(0, uvm_residency(self->dev.fd, self->a, self->dev.page_size, &st));
	ASSERT_EQ(UVM_GPU_BIT(1), st.resident);
	ASSERT_RESIDENCY_FLAGS(&self->dev, self->a, n, 0,
			       uvm_state(UVM_GPU_BIT(1), 0, 0, 0));
	ASSERT_EQ(-1, uvm_memcmp_at(self->a, self->ref, UVM_VA_BLOCK_SIZE));
}

/* A full preferred GPU is not evicted into: the pages go to host memory */
TEST_F_TIMEOUT(evict, preferred_gpu_full_goes_to_host, 300)
{
	const uint64_t n = UVM_VA_BLOCK_SIZE / self->dev.page_size;
	struct uvm_ioc_gpu_info info;
	struct uvm_counters d;
	uint8_t *dev;

	ASSERT_EQ(0, uvm_gpu_info(self->dev.fd, 1, &info));
	ASSERT_EQ(0, uvm_advise(self->dev.fd, self->a, UVM_VA_BLOCK_SIZE,
				UVM_ADVICE_SET_PREFERRED_LOCATION, UVM_LOC_GPU(1)));
	dev = mmap(NULL, info.vidmem_size, PROT_NONE, MAP_SHARED, self->dev.fd,
		   UVM_MMAP_DEVICE(1));
	ASSERT_NE(MAP_FAILED, dev);
	d = evict_a(_metadata, self);
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_PAGES_D2D]);
	ASSERT_RESIDENCY_FLAGS(&self->dev, self->a, n, 0, uvm_state(UVM_CPU_BIT, 0, 0, 0));
	ASSERT_EQ(-1, uvm_memcmp_at(self->a, self->ref, UVM_VA_BLOCK_SIZE));
	munmap(dev, info.vidmem_size);
}

TEST_HARNESS_MAIN
