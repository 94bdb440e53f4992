// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * memory_device - device memory (mmap of /dev/uvm at UVM_MMAP_DEVICE(gpu)) of API 1.2
 * and what UVM_IOC_POINTER_INFO says about it.
 *
 * Sizes and placements against 2 MiB chunks (variants), exact vidmem
 * accounting, zeros at allocation (also of reused chunks), CPU access
 * signals, the owner and a peer reading, writing and adding, the mappings
 * the driver refuses or cannot split (variants), -ENOMEM on a full GPU with
 * nothing leaked, fork, exit and close, revocation at munmap.
 *
 * Device memory is read and written by GPU launches to check bytes.  The
 * suite runs with vidmem_mb=64 (32 chunks per GPU), so that a GPU can be
 * filled quickly.  Shared helpers: memory_util.h.
 */
#include <sys/statvfs.h>

#include "memory_util.h"

/* Run @fn in a child that opens its own /dev/uvm; see each child below. */
struct child_arg {
	uint64_t ps;
	int fd;
	void *addr;
};

/*
 * Device memory: one allocation per variant (size, placement, owner)
 */

FIXTURE(dev_size) {
	struct uvm_dev dev;
	uint64_t ps;
	uint64_t len;		/* bytes asked for */
	uint64_t mapped;	/* bytes the allocation has (pages) */
	uint64_t chunks;	/* 2 MiB chunks it must take */
	uint8_t *p;
	uint8_t *ref, *out, *zero;
};

FIXTURE_VARIANT(dev_size) {
	uint64_t pages;		/* size in pages ... */
	uint64_t extra;		/* ... plus bytes */
	uint64_t skew_pages;	/* placement: pages past a 2 MiB boundary */
	uint32_t gpu;		/* owner */
};

/* One page at a block start */
FIXTURE_VARIANT_ADD(dev_size, page) { .pages = 1, .gpu = 0 };
/* 5000 bytes: two pages */
FIXTURE_VARIANT_ADD(dev_size, odd) { .pages = 1, .extra = 904, .skew_pages = 7, .gpu = 1 };
/* Exactly one chunk */
FIXTURE_VARIANT_ADD(dev_size, two_mib) { .pages = 512, .gpu = 0 };
/* Two pages straddling a 2 MiB boundary: two chunks */
FIXTURE_VARIANT_ADD(dev_size, straddle) { .pages = 2, .skew_pages = 511, .gpu = 1 };
/* 2 MiB, not aligned: two chunks */
FIXTURE_VARIANT_ADD(dev_size, two_mib_unaligned) { .pages = 512, .skew_pages = 3, .gpu = 0 };
/* 3 MiB + 5 pages + 1 byte from the middle of a block: three chunks */
FIXTURE_VARIANT_ADD(dev_size, multi) { .pages = 773, .extra = 1, .skew_pages = 300, .gpu = 1 };
/*
 * Over 8 MiB, page-table-node aligned: GPU unmaps clear more PTEs than one
 * lock hold covers, and a hold ends on a page table node it empties
 */
FIXTURE_VARIANT_ADD(dev_size, big) { .pages = 2125, .extra = 9, .skew_pages = 128, .gpu = 1 };

FIXTURE_SETUP(dev_size)
{
	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, 2);
	self->ps = self->dev.page_size;
	self->len = variant->pages * self->ps + variant->extra;
	self->mapped = (self->len + self->ps - 1) / self->ps * self->ps;
	self->ref = malloc(self->mapped);
	self->out = malloc(self->mapped);
	self->zero = calloc(1, self->mapped);
	ASSERT_NE(NULL, self->ref);
	ASSERT_NE(NULL, self->out);
	ASSERT_NE(NULL, self->zero);
	uvm_random_fill(self->ref, self->mapped, 0xde7 + variant->pages);
	ASSERT_EQ(0ULL, uvm_vidmem_used(self->dev.fd, 0));
	ASSERT_EQ(0ULL, uvm_vidmem_used(self->dev.fd, 1));
	self->p = uvm_map_skewed(self->len, variant->skew_pages * self->ps, PROT_NONE,
				 MAP_SHARED, self->dev.fd, UVM_MMAP_DEVICE(variant->gpu));
	ASSERT_NE(MAP_FAILED, self->p);
	self->chunks = uvm_blocks_spanned(self->p, self->mapped);
}

FIXTURE_TEARDOWN(dev_size)
{
	if (self->p && self->p != MAP_FAILED)
		munmap(self->p, self->len);
	free(self->ref);
	free(self->out);
	free(self->zero);
	uvm_dev_teardown(&self->dev);
}

/* Vidmem grows by exactly the chunks touched, on the owner only; munmap returns it */
TEST_F(dev_size, vidmem_accounting)
{
	uint32_t other = !variant->gpu;

	ASSERT_EQ(self->chunks * BLOCK, uvm_vidmem_used(self->dev.fd, variant->gpu));
	ASSERT_EQ(0ULL, uvm_vidmem_used(self->dev.fd, other));
	/* GPU use maps it, it allocates nothing more. */
	ASSERT_EQ(0, gpu_store(self->dev.fd, other, self->p, self->mapped, self->ref, NULL));
	ASSERT_EQ(self->chunks * BLOCK, uvm_vidmem_used(self->dev.fd, variant->gpu));
	ASSERT_EQ(0ULL, uvm_vidmem_used(self->dev.fd, other));
	ASSERT_EQ(0, munmap(self->p, self->len));
	self->p = NULL;
	ASSERT_EQ(0ULL, uvm_vidmem_wait(self->dev.fd, variant->gpu, 0));
}

/* munmap removes every GPU's PTEs: any page, mapped before, is a fatal fault after */
TEST_F(dev_size, unmap_clears_ptes)
{
	uint64_t npages = self->mapped / self->ps;
	uint64_t probe[] = { 0, npages / 2, npages - 1, 1023, 1024, 1025, 2047, 2048 };
	uint32_t g;
	size_t i;

	for (g = 0; g < 2; g++)
		ASSERT_EQ(0, gpu_store(self->dev.fd, g, self->p, self->mapped, self->ref, NULL));
	ASSERT_EQ(0, munmap(self->p, self->len));
	for (g = 0; g < 2; g++) {
		for (i = 0; i < sizeof(probe) / sizeof(probe[0]); i++) {
			if (probe[i] >= npages)
				continue;
			ASSERT_EQ(0, gpu_fatal(self->dev.fd, g, self->p + probe[i] * self->ps,
					       UVM_TEST_OP_READ)) {
				TH_LOG("GPU %u, page %llu", g, (unsigned long long)probe[i]);
			}
		}
	}
	self->p = NULL;
}

/* Every byte reads as zero on the owner and on the peer; faults: one per 2 MiB region */
TEST_F(dev_size, zero_filled)
{
	struct uvm_counters d;
	uint64_t faults;
	uint32_t g;

	for (g = 0; g < 2; g++) {
		memset(self->out, 0xa5, self->mapped);
		UVM_COUNT_DELTA(self->dev.fd, d,
				ASSERT_EQ(0, gpu_load(self->dev.fd, g, self->p, self->mapped,
							  self->out, &faults)));
		ASSERT_BYTES(self->out, self->zero, self->mapped);
		ASSERT_EQ(self->chunks, faults);
		ASSERT_EQ(self->chunks, d.c[UVM_COUNTER_GPU_FAULTS]);
		ASSERT_EQ(self->mapped / self->ps, d.c[UVM_COUNTER_GPU_PAGES_MAPPED]);
		ASSERT_COUNTS_ONLY(d, FAULT_COUNTERS);
	}
}

/* POINTER_INFO: DEVICE, the owner, the pages mapped, from the first to the last byte */
TEST_F(dev_size, pointer_info)
{
	struct uvm_ioc_pointer_info pi;
	uint64_t id;

	ASSERT_EQ(0, uvm_pointer_info(self->dev.fd, self->p, &pi));
	ASSERT_EQ((uint32_t)UVM_POINTER_DEVICE, pi.flags);
	ASSERT_EQ(variant->gpu, pi.gpu_index);
	ASSERT_EQ((uintptr_t)self->p, pi.start);
	ASSERT_EQ(self->mapped, pi.size);
	ASSERT_NE(0ULL, pi.buffer_id);
	id = pi.buffer_id;
	ASSERT_EQ(0, uvm_pointer_info(self->dev.fd, self->p + self->mapped - 1, &pi));
	ASSERT_EQ(id, pi.buffer_id);
	ASSERT_EQ((uintptr_t)self->p, pi.start);
	ASSERT_EQ(-ENOENT, uvm_pointer_info(self->dev.fd, self->p + self->mapped, &pi));
	ASSERT_EQ(-ENOENT, uvm_pointer_info(self->dev.fd, self->p - 1, &pi));
}

/* The owner and the peer each read back exactly what the other wrote */
TEST_F(dev_size, owner_and_peer)
{
	uint32_t own = variant->gpu, peer = !variant->gpu;
	struct uvm_counters d;
	uint64_t faults;

	UVM_COUNT_DELTA(self->dev.fd, d,
			ASSERT_EQ(0, gpu_store(self->dev.fd, own, self->p, self->mapped,
						   self->ref, &faults)));
	ASSERT_EQ(self->chunks, faults);
	memset(self->out, 0, self->mapped);
	ASSERT_EQ(0, gpu_load(self->dev.fd, peer, self->p, self->mapped, self->out, &faults));
	ASSERT_EQ(self->chunks, faults);
	ASSERT_BYTES(self->out, self->ref, self->mapped);
	/* Mapped now: no more faults on either side. */
	uvm_random_fill(self->ref, self->mapped, 0xbeef);
	ASSERT_EQ(0, gpu_store(self->dev.fd, peer, self->p, self->mapped, self->ref, &faults));
	ASSERT_EQ(0ULL, faults);
	memset(self->out, 0, self->mapped);
	ASSERT_EQ(0, gpu_load(self->dev.fd, own, self->p, self->mapped, self->out, &faults));
	ASSERT_EQ(0ULL, faults);
	ASSERT_BYTES(self->out, self->ref, self->mapped);
	/* Device memory never migrates: nothing but faults and mappings counted. */
	ASSERT_COUNTS_ONLY(d, FAULT_COUNTERS);
	ASSERT_EQ(self->chunks * BLOCK, uvm_vidmem_used(self->dev.fd, own));
	ASSERT_EQ(0ULL, uvm_vidmem_used(self->dev.fd, peer));
}

/*
 * Device memory: everything else
 */

FIXTURE(device) {
	struct uvm_dev dev;
	uint64_t ps;
	uint8_t *ref, *out, *zero;	/* BUF bytes each */
};

#define DEV_BUF	(4 * UVM_MIB)

FIXTURE_SETUP(device)
{
	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, 2);
	self->ps = self->dev.page_size;
	self->ref = malloc(DEV_BUF);
	self->out = malloc(DEV_BUF);
	self->zero = calloc(1, DEV_BUF);
	ASSERT_NE(NULL, self->ref);
	ASSERT_NE(NULL, self->out);
	ASSERT_NE(NULL, self->zero);
	uvm_random_fill(self->ref, DEV_BUF, 0xd0d0);
}

FIXTURE_TEARDOWN(device)
{
	free(self->ref);
	free(self->out);
	free(self->zero);
	uvm_dev_teardown(&self->dev);
}

/* A chunk freed with data in it is zeroed again for its next owner */
TEST_F(device, zeroed_on_reuse)
{
	uint64_t len = BLOCK, size, i, n;
	struct uvm_ioc_gpu_info gi;
	uint8_t **p;

	/* Fill every chunk of GPU 0 with data, free them all, allocate them all again. */
	ASSERT_EQ(0, uvm_gpu_info(self->dev.fd, 0, &gi));
	size = gi.vidmem_size;
	n = size / len;
	p = calloc(n, sizeof(*p));
	ASSERT_NE(NULL, p);
	for (i = 0; i < n; i++) {
		p[i] = uvm_mmap_device_skewed(&self->dev, 0, len, 0);
		ASSERT_NE(MAP_FAILED, p[i]);
		ASSERT_EQ(0, gpu_store(self->dev.fd, 0, p[i], len, self->ref, NULL));
	}
	ASSERT_EQ(size, uvm_vidmem_used(self->dev.fd, 0));
	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, munmap(p[i], len));
	}
	ASSERT_EQ(0ULL, uvm_vidmem_used(self->dev.fd, 0));
	for (i = 0; i < n; i++) {
		p[i] = uvm_mmap_device_skewed(&self->dev, 0, len, 0);
		ASSERT_NE(MAP_FAILED, p[i]);
		memset(self->out, 0xa5, len);
		ASSERT_EQ(0, gpu_load(self->dev.fd, 1, p[i], len, self->out, NULL));
		ASSERT_BYTES(self->out, self->zero, len);
	}
	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, munmap(p[i], len));
	}
	free(p);
}

/* The CPU cannot touch device memory: SIGSEGV (PROT_NONE), SIGBUS once accessible */
TEST_F(device, cpu_access_signals)
{
	uint8_t *p = uvm_mmap_device(&self->dev, 0, 2 * self->ps), *q;

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(SIGSEGV, uvm_touch_signal(p, false));
	ASSERT_EQ(SIGSEGV, uvm_touch_signal(p + self->ps, true));
	ASSERT_EQ(0, mprotect(p, 2 * self->ps, PROT_READ | PROT_WRITE));
	ASSERT_EQ(SIGBUS, uvm_touch_signal(p, false));
	ASSERT_EQ(SIGBUS, uvm_touch_signal(p + self->ps, true));
	/* Nothing the CPU did reached the memory. */
	ASSERT_EQ(0, gpu_load(self->dev.fd, 0, p, 2 * self->ps, self->out, NULL));
	ASSERT_BYTES(self->out, self->zero, 2 * self->ps);
	ASSERT_EQ(0, munmap(p, 2 * self->ps));

	q = mmap(NULL, self->ps, PROT_READ | PROT_WRITE, MAP_SHARED, self->dev.fd,
		 UVM_MMAP_DEVICE(1));
	ASSERT_NE(MAP_FAILED, q);
	ASSERT_EQ(SIGBUS, uvm_touch_signal(q, false));
	ASSERT_EQ(0, munmap(q, self->ps));
}

/* Atomic adds from both GPUs on one word array sum exactly */
TEST_F(device, atomics_both_gpus)
{
	uint64_t len = 2 * self->ps, i;
	uint8_t *p = uvm_mmap_device(&self->dev, 1, len);
	struct uvm_test_gpu_op op;
	uint64_t *w = (uint64_t *)self->out;

	ASSERT_NE(MAP_FAILED, p);
	for (i = 0; i < 3; i++) {
		op = uvm_op_atomic(p, len, 5);
		ASSERT_EQ(0, uvm_launch1(self->dev.fd, 0, 8, op, NULL));
		op = uvm_op_atomic(p, len, 100);
		ASSERT_EQ(0, uvm_launch1(self->dev.fd, 1, 8, op, NULL));
	}
	ASSERT_EQ(0, gpu_load(self->dev.fd, 0, p, len, self->out, NULL));
	for (i = 0; i < len / 8; i++) {
		ASSERT_EQ(315ULL, w[i]);
	}
	ASSERT_EQ(0, munmap(p, len));
}

/* Only whole allocations can be unmapped: parts are refused (EINVAL) and the data stays */
TEST_F(device, partial_munmap_refused)
{
	uint64_t len = 4 * self->ps;
	uint8_t *p = uvm_map_skewed(len, self->ps, PROT_NONE, MAP_SHARED, self->dev.fd,
				    UVM_MMAP_DEVICE(0));
	uint8_t *around;

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, gpu_store(self->dev.fd, 0, p, len, self->ref, NULL));
	ASSERT_EQ(-1, munmap(p, self->ps));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-1, munmap(p + self->ps, self->ps));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-1, munmap(p + 3 * self->ps, self->ps));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-1, munmap(p - self->ps, 2 * self->ps));
	ASSERT_EQ(EINVAL, errno);
	/* Partial mprotect splits too. */
	ASSERT_EQ(-1, mprotect(p, self->ps, PROT_READ));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(0, gpu_load(self->dev.fd, 1, p, len, self->out, NULL));
	ASSERT_BYTES(self->out, self->ref, len);
	ASSERT_EQ(BLOCK, uvm_vidmem_used(self->dev.fd, 0));
	/* The whole allocation with neighbours around it goes at once. */
	around = mmap(p - self->ps, self->ps, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		      -1, 0);
	ASSERT_EQ(p - self->ps, around);
	ASSERT_EQ(0, munmap(p - self->ps, len + 2 * self->ps));
	ASSERT_EQ(0ULL, uvm_vidmem_wait(self->dev.fd, 0, 0));
}

/* mremap: moving (EINVAL), growing (EFAULT) and shrinking (EINVAL) are refused; data stays */
TEST_F(device, mremap_refused)
{
	uint64_t len = 4 * self->ps;
	uint8_t *p = uvm_mmap_device(&self->dev, 1, len);
	void *dst = uvm_unmapped_address(8 * self->ps), *q;
	struct uvm_ioc_pointer_info pi;

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_NE(NULL, dst);
	ASSERT_EQ(0, gpu_store(self->dev.fd, 1, p, len, self->ref, NULL));
	q = mremap(p, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, dst);
	ASSERT_EQ(MAP_FAILED, q);
	ASSERT_EQ(EINVAL, errno);
	q = mremap(p, len, 8 * self->ps, MREMAP_MAYMOVE);
	ASSERT_EQ(MAP_FAILED, q);
	ASSERT_EQ(EFAULT, errno);
	q = mremap(p, len, self->ps, 0);
	ASSERT_EQ(MAP_FAILED, q);
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(0, gpu_load(self->dev.fd, 0, p, len, self->out, NULL));
	ASSERT_BYTES(self->out, self->ref, len);
	ASSERT_EQ(0, uvm_pointer_info(self->dev.fd, p, &pi));
	ASSERT_EQ(len, pi.size);
	ASSERT_EQ(-ENOENT, uvm_pointer_info(self->dev.fd, dst, &pi));
	ASSERT_EQ(0, munmap(p, len));
	ASSERT_EQ(0ULL, uvm_vidmem_wait(self->dev.fd, 1, 0));
}

/* A MAP_FIXED mapping over part of device memory is refused; the allocation stays whole */
TEST_F(device, map_fixed_over_part_refused)
{
	uint64_t len = 4 * self->ps;
	int want = uvm_split_refused_errno();
	uint8_t *p = uvm_mmap_device(&self->dev, 0, len);
	void *q;

	/* the kernel's way of reporting a refused split: ENOMEM or ours */
	ASSERT_TRUE(want == ENOMEM || want == EINVAL) {
		TH_LOG("a refused hugetlb split gave errno %d", want);
	}
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, gpu_store(self->dev.fd, 0, p, len, self->ref, NULL));
	q = mmap(p + self->ps, self->ps, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	ASSERT_EQ(MAP_FAILED, q);
	ASSERT_EQ(want, errno);
	ASSERT_EQ(0, gpu_load(self->dev.fd, 1, p, len, self->out, NULL));
	ASSERT_BYTES(self->out, self->ref, len);
	ASSERT_EQ(0, munmap(p, len));
}

/* DEVICE(num_gpus) is -ENODEV; nothing is left allocated by refused mappings */
TEST_F(device, mmap_gpu_out_of_range)
{
	void *p = mmap(NULL, self->ps, PROT_NONE, MAP_SHARED, self->dev.fd,
		       UVM_MMAP_DEVICE(self->dev.num_gpus));

	ASSERT_EQ(MAP_FAILED, p);
	ASSERT_EQ(ENODEV, errno);
	ASSERT_EQ(0ULL, uvm_vidmem_used(self->dev.fd, 0));
	ASSERT_EQ(0ULL, uvm_vidmem_used(self->dev.fd, 1));
}

/* Buffer ids: unique across kinds and allocations, never reused after munmap */
TEST_F(device, buffer_ids_unique)
{
	struct uvm_ioc_pointer_info pi;
	uint64_t ids[4], rid;
	uint8_t *d0 = uvm_mmap_device(&self->dev, 0, self->ps);
	uint8_t *d1 = uvm_mmap_device(&self->dev, 0, self->ps);
	uint8_t *m = uvm_mmap(&self->dev, self->ps);
	uint8_t *h = aligned_alloc(self->ps, self->ps), *d2;
	int i, j;

	ASSERT_NE(MAP_FAILED, d0);
	ASSERT_NE(MAP_FAILED, d1);
	ASSERT_NE(MAP_FAILED, m);
	ASSERT_NE(NULL, h);
	ASSERT_EQ(0, uvm_host_register(self->dev.fd, h, self->ps, 0, &rid));
	ASSERT_EQ(0, uvm_pointer_info(self->dev.fd, d0, &pi));
	ids[0] = pi.buffer_id;
	ASSERT_EQ(0, uvm_pointer_info(self->dev.fd, d1, &pi));
	ids[1] = pi.buffer_id;
	ASSERT_EQ(0, uvm_pointer_info(self->dev.fd, m, &pi));
	ids[2] = pi.buffer_id;
	ASSERT_EQ(0, uvm_pointer_info(self->dev.fd, h, &pi));
	ids[3] = pi.buffer_id;
	ASSERT_EQ(rid, ids[3]);
	for (i = 0; i < 4; i++) {
		for (j = i + 1; j < 4; j++) {
			ASSERT_NE(ids[i], ids[j]);
		}
	}
	/* A new allocation at the same address gets a new id. */
	ASSERT_EQ(0, munmap(d0, self->ps));
	d2 = mmap(d0, self->ps, PROT_NONE, MAP_SHARED | MAP_FIXED_NOREPLACE, self->dev.fd,
		  UVM_MMAP_DEVICE(1));
	ASSERT_EQ(d0, d2);
	ASSERT_EQ(0, uvm_pointer_info(self->dev.fd, d2, &pi));
	ASSERT_EQ(1U, pi.gpu_index);
	for (i = 0; i < 4; i++) {
		ASSERT_NE(ids[i], pi.buffer_id);
	}
	/* gpu_index is an output: non-zero on input is refused. */
	memset(&pi, 0, sizeof(pi));
	pi.address = (uintptr_t)d1;
	pi.gpu_index = 1;
	ASSERT_EQ(-EINVAL, uvm_ioctl(self->dev.fd, UVM_IOC_POINTER_INFO, &pi));
	ASSERT_EQ(0, uvm_host_unregister(self->dev.fd, h));
	ASSERT_EQ(0, munmap(d2, self->ps));
	ASSERT_EQ(0, munmap(d1, self->ps));
	ASSERT_EQ(0, munmap(m, self->ps));
	free(h);
}

/* Advice, prefetch, discard and range queries are for managed memory: EINVAL on device memory */
TEST_F(device, policy_refused)
{
	static const uint32_t advice[] = {
		UVM_ADVICE_SET_READ_MOSTLY, UVM_ADVICE_UNSET_READ_MOSTLY,
		UVM_ADVICE_SET_PREFERRED_LOCATION, UVM_ADVICE_UNSET_PREFERRED_LOCATION,
		UVM_ADVICE_SET_ACCESSED_BY, UVM_ADVICE_UNSET_ACCESSED_BY,
	};
	uint64_t len = 2 * self->ps;
	uint8_t *p = uvm_mmap_device(&self->dev, 0, len);
	struct uvm_range r = { .address = (uintptr_t)p, .length = len };
	struct uvm_test_page_state st[2];
	struct uvm_ioc_range_query q;
	struct uvm_ioc_migrate out;
	struct uvm_location loc = UVM_LOC_GPU(1);
	uint64_t start = 0;
	unsigned int i;

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, gpu_store(self->dev.fd, 0, p, len, self->ref, NULL));
	for (i = 0; i < sizeof(advice) / sizeof(advice[0]); i++) {
		ASSERT_EQ(-EINVAL, uvm_advise(self->dev.fd, p, len, advice[i], UVM_LOC_GPU(1))) {
			TH_LOG("advice %u", advice[i]);
		}
	}
	ASSERT_EQ(-EINVAL, uvm_migrate(self->dev.fd, UVM_MIGRATE_PREFETCH, 0, &r, 1, &loc,
				       &start, 1, &out));
	ASSERT_EQ(0U, out.bad_range);
	ASSERT_EQ(-EINVAL, uvm_migrate(self->dev.fd, UVM_MIGRATE_DISCARD, 0, &r, 1, NULL,
				       NULL, 0, &out));
	ASSERT_EQ(0U, out.bad_range);
	ASSERT_EQ(-EINVAL, uvm_range_query(self->dev.fd, p, len, &q));
	/* Device memory has no per-page residency. */
	ASSERT_EQ(0, uvm_residency(self->dev.fd, p, len, st));
	ASSERT_EQ(0ULL, st[0].resident | st[1].resident | st[0].mapped_read);
	/* And nothing moved. */
	ASSERT_EQ(0, gpu_load(self->dev.fd, 1, p, len, self->out, NULL));
	ASSERT_BYTES(self->out, self->ref, len);
	ASSERT_EQ(BLOCK, uvm_vidmem_used(self->dev.fd, 0));
	ASSERT_EQ(0ULL, uvm_vidmem_used(self->dev.fd, 1));
	ASSERT_EQ(0, munmap(p, len));
}

static int child_device_use(void *arg)
{
	struct child_arg *a = arg;
	struct uvm_dev dev = { .fd = -1 };
	uint8_t byte;
	int fd;

	/* The inherited descriptor belongs to the parent's VA space: EPERM. */
	fd = a->fd;
	if (uvm_copy(fd, &byte, a->addr, 1, 0, 0, NULL) != -EPERM)
		return 1;
	if (uvm_memset(fd, a->addr, 1, 0, 1, 0, 0, NULL) != -EPERM)
		return 2;
	dev.fd = fd;
	if (uvm_mmap_device(&dev, 0, a->ps) != MAP_FAILED || errno != EPERM)
		return 3;
	/* The addresses are not mapped here. */
	if (uvm_touch_signal(a->addr, false) != SIGSEGV)
		return 4;
	return 0;
}

/* A fork child inherits neither the mapping nor the right to use the VA space */
TEST_F(device, fork_child)
{
	uint64_t len = 2 * self->ps;
	uint8_t *p = uvm_mmap_device(&self->dev, 1, len);
	struct child_arg a = { .ps = self->ps, .addr = p, .fd = self->dev.fd };

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, gpu_store(self->dev.fd, 1, p, len, self->ref, NULL));
	ASSERT_EQ(0, uvm_run_child(child_device_use, &a));
	ASSERT_EQ(0, gpu_load(self->dev.fd, 0, p, len, self->out, NULL));
	ASSERT_BYTES(self->out, self->ref, len);
	ASSERT_EQ(BLOCK, uvm_vidmem_used(self->dev.fd, 1));
	ASSERT_EQ(0, munmap(p, len));
	ASSERT_EQ(0ULL, uvm_vidmem_wait(self->dev.fd, 1, 0));
}

static int child_exit_now(void *arg __attribute__((unused)))
{
	return 0;
}

/*
 * MADV_DOFORK cannot make a child share the allocation: after the child
 * exits, the parent's memory, vidmem and munmap are intact
 */
TEST_F(device, madv_dofork_child_exit)
{
	uint64_t len = 2 * self->ps;
	uint8_t *p = uvm_mmap_device(&self->dev, 0, len);
	struct uvm_ioc_pointer_info pi;

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, gpu_store(self->dev.fd, 0, p, len, self->ref, NULL));
	/* Refusing the advice (EINVAL) is as good as ignoring it. */
	if (madvise(p, len, MADV_DOFORK)) {
		ASSERT_EQ(EINVAL, errno);
	}
	ASSERT_EQ(0, uvm_run_child(child_exit_now, NULL));
	ASSERT_EQ(0, uvm_pointer_info(self->dev.fd, p, &pi));
	ASSERT_EQ((uint32_t)UVM_POINTER_DEVICE, pi.flags);
	ASSERT_EQ(BLOCK, uvm_vidmem_used(self->dev.fd, 0));
	ASSERT_EQ(0, gpu_load(self->dev.fd, 1, p, len, self->out, NULL));
	ASSERT_BYTES(self->out, self->ref, len);
	ASSERT_EQ(0, munmap(p, len));
	ASSERT_EQ(0ULL, uvm_vidmem_wait(self->dev.fd, 0, 0));
}

/* munmap revokes every GPU's mapping; new managed memory there reads zeros */
TEST_F(device, munmap_revokes_gpu_mappings)
{
	uint64_t len = 4 * self->ps;
	uint8_t *p = uvm_mmap_device(&self->dev, 0, len), *m;
	struct uvm_counters d;

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, gpu_store(self->dev.fd, 0, p, len, self->ref, NULL));
	ASSERT_EQ(0, gpu_load(self->dev.fd, 1, p, len, self->out, NULL));
	ASSERT_EQ(0, munmap(p, len));
	UVM_COUNT_DELTA(self->dev.fd, d, {
		ASSERT_EQ(0, gpu_fatal(self->dev.fd, 0, p + self->ps, UVM_TEST_OP_READ));
		ASSERT_EQ(0, gpu_fatal(self->dev.fd, 1, p, UVM_TEST_OP_WRITE));
	});
	ASSERT_EQ(2ULL, d.c[UVM_COUNTER_GPU_FATAL_FAULTS]);
	m = mmap(p, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED_NOREPLACE,
		 self->dev.fd, UVM_MMAP_MANAGED);
	ASSERT_EQ(p, m);
	ASSERT_EQ(0, gpu_load(self->dev.fd, 0, m, len, self->out, NULL));
	ASSERT_BYTES(self->out, self->zero, len);
	ASSERT_EQ(0, gpu_load(self->dev.fd, 1, m, len, self->out, NULL));
	ASSERT_BYTES(self->out, self->zero, len);
	ASSERT_EQ(0, munmap(m, len));
}

/* Two allocations in one 2 MiB region: a chunk each, separate data, a hole between is fatal */
TEST_F(device, neighbours_in_one_region)
{
	uint8_t *r = uvm_map_skewed(3 * self->ps, 0, PROT_NONE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint8_t *a, *b;

	ASSERT_NE(MAP_FAILED, r);
	a = mmap(r, self->ps, PROT_NONE, MAP_SHARED | MAP_FIXED, self->dev.fd, UVM_MMAP_DEVICE(0));
	b = mmap(r + 2 * self->ps, self->ps, PROT_NONE, MAP_SHARED | MAP_FIXED, self->dev.fd,
		 UVM_MMAP_DEVICE(0));
	ASSERT_EQ(r, a);
	ASSERT_EQ(r + 2 * self->ps, b);
	ASSERT_EQ(0, munmap(r + self->ps, self->ps));
	ASSERT_EQ(2 * BLOCK, uvm_vidmem_used(self->dev.fd, 0));
	ASSERT_EQ(0, gpu_store(self->dev.fd, 1, a, self->ps, self->ref, NULL));
	ASSERT_EQ(0, gpu_store(self->dev.fd, 1, b, self->ps, self->ref + self->ps, NULL));
	ASSERT_EQ(0, gpu_fatal(self->dev.fd, 1, a + self->ps, UVM_TEST_OP_READ));
	ASSERT_EQ(0, gpu_fatal(self->dev.fd, 0, a + self->ps + 64, UVM_TEST_OP_WRITE));
	ASSERT_EQ(0, gpu_load(self->dev.fd, 0, a, self->ps, self->out, NULL));
	ASSERT_BYTES(self->out, self->ref, self->ps);
	ASSERT_EQ(0, gpu_load(self->dev.fd, 0, b, self->ps, self->out, NULL));
	ASSERT_BYTES(self->out, self->ref + self->ps, self->ps);
	ASSERT_EQ(0, munmap(a, self->ps));
	ASSERT_EQ(BLOCK, uvm_vidmem_used(self->dev.fd, 0));
	ASSERT_EQ(0, munmap(b, self->ps));
	ASSERT_EQ(0ULL, uvm_vidmem_used(self->dev.fd, 0));
}

/*
 * Managed, device and registered memory in one 2 MiB region: discarding and
 * unmapping the managed page leaves the others' GPU mappings and bytes alone
 */
TEST_F(device, shares_region_with_managed_and_host)
{
	uint64_t ps = self->ps, faults;
	uint8_t *r = uvm_map_skewed(3 * ps, 0, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint8_t *m, *d, *h;
	uint32_t g;

	ASSERT_NE(MAP_FAILED, r);
	m = mmap(r, ps, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, self->dev.fd,
		 UVM_MMAP_MANAGED);
	d = mmap(r + ps, ps, PROT_NONE, MAP_SHARED | MAP_FIXED, self->dev.fd, UVM_MMAP_DEVICE(0));
	h = r + 2 * ps;
	ASSERT_EQ(r, m);
	ASSERT_EQ(r + ps, d);
	memcpy(h, self->ref + 2 * ps, ps);
	ASSERT_EQ(0, uvm_host_register(self->dev.fd, h, ps, 0, NULL));
	ASSERT_EQ(0, gpu_store(self->dev.fd, 0, m, 2 * ps, self->ref, NULL));
	for (g = 0; g < 2; g++) {
		ASSERT_EQ(0, gpu_load(self->dev.fd, g, r, 3 * ps, self->out, NULL));
		ASSERT_BYTES(self->out, self->ref, 3 * ps);
	}
	/* The device range's chunk; the managed page followed GPU 1's read. */
	ASSERT_EQ(BLOCK, uvm_vidmem_used(self->dev.fd, 0));
	ASSERT_EQ(BLOCK, uvm_vidmem_used(self->dev.fd, 1));
	ASSERT_RESIDENT(&self->dev, m, 1, UVM_GPU_BIT(1));
	ASSERT_EQ(0, uvm_discard(self->dev.fd, m, ps));
	ASSERT_EQ(0, munmap(m, ps));
	for (g = 0; g < 2; g++) {
		ASSERT_EQ(0, gpu_load(self->dev.fd, g, d, 2 * ps, self->out, &faults));
		ASSERT_BYTES(self->out, self->ref + ps, 2 * ps);
		ASSERT_EQ(0ULL, faults);
		ASSERT_EQ(0, gpu_fatal(self->dev.fd, g, m, UVM_TEST_OP_READ));
	}
	ASSERT_EQ(0ULL, uvm_vidmem_wait(self->dev.fd, 1, 0));
	ASSERT_EQ(BLOCK, uvm_vidmem_used(self->dev.fd, 0));
	ASSERT_EQ(0, munmap(d, ps));
	ASSERT_EQ(0, gpu_load(self->dev.fd, 1, h, ps, self->out, &faults));
	ASSERT_BYTES(self->out, self->ref + 2 * ps, ps);
	ASSERT_EQ(0ULL, faults);
	ASSERT_EQ(0, uvm_host_unregister(self->dev.fd, h));
	ASSERT_EQ(0, munmap(h, ps));
}

/* The mapping keeps the VA space after close(fd); munmap then frees the vidmem */
TEST_F(device, close_fd_then_munmap)
{
	uint8_t *p = uvm_mmap_device(&self->dev, 1, 3 * BLOCK);
	int probe = uvm_open();

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_LE(0, probe);
	uvm_dev_teardown(&self->dev);
	ASSERT_EQ(uvm_blocks_spanned(p, 3 * BLOCK) * BLOCK, uvm_vidmem_used(probe, 1));
	ASSERT_EQ(0, munmap(p, 3 * BLOCK));
	ASSERT_EQ(0ULL, uvm_vidmem_wait(probe, 1, 0));
	close(probe);
}

static int child_alloc_and_exit(void *arg)
{
	struct child_arg *a = arg;
	struct uvm_dev dev;
	uint8_t *h = aligned_alloc(a->ps, 4 * a->ps);
	uint32_t g;

	dev.fd = uvm_open();
	if (dev.fd < 0 || !h)
		return 1;
	memset(h, 7, 4 * a->ps);
	for (g = 0; g < 2; g++) {
		uint8_t *p = uvm_mmap_device(&dev, g, BLOCK + a->ps);

		if (p == MAP_FAILED)
			return 2;
		if (gpu_store(dev.fd, g, p, a->ps, h, NULL))
			return 3;
	}
	if (uvm_host_register(dev.fd, h + 1, 2 * a->ps, 0, NULL) ||
	    uvm_host_register(dev.fd, h + 3 * a->ps, 16, UVM_HOST_REGISTER_READ_ONLY, NULL))
		return 4;
	if (gpu_load(dev.fd, 1, h + 8, a->ps, h + 2 * a->ps, NULL))
		return 5;
	/* exit without munmap, unregister or close */
	return 0;
}

/* A process that exits holding device memory and registrations returns all vidmem and pins */
TEST_F(device, exit_frees_everything)
{
	struct child_arg a = { .ps = self->ps };
	int64_t pins = uvm_pins_outstanding();

	ASSERT_EQ(0, uvm_run_child(child_alloc_and_exit, &a));
	ASSERT_EQ(0ULL, uvm_vidmem_wait(self->dev.fd, 0, 0));
	ASSERT_EQ(0ULL, uvm_vidmem_wait(self->dev.fd, 1, 0));
	if (pins != INT64_MIN) {
		ASSERT_EQ(pins, uvm_pins_wait(pins));
	}
}

/* Refused device mappings: one variant per rule */
FIXTURE(dev_bad_mmap) {
	struct uvm_dev dev;
};

FIXTURE_VARIANT(dev_bad_mmap) {
	uint64_t offset;
	int prot;
	int flags;
	int err;	/* 0: EPERM on a noexec /dev, else EINVAL (PROT_EXEC) */
};

/* An offset inside the GPU's "file" */
FIXTURE_VARIANT_ADD(dev_bad_mmap, page_offset) {
	.offset = UVM_MMAP_DEVICE(0) + 4096, .prot = PROT_NONE, .flags = MAP_SHARED, .err = EINVAL };
/* A 2 MiB offset */
FIXTURE_VARIANT_ADD(dev_bad_mmap, block_offset) {
	.offset = UVM_MMAP_DEVICE(1) + BLOCK, .prot = PROT_NONE, .flags = MAP_SHARED, .err = EINVAL };
/* An unknown bit above the GPU field */
FIXTURE_VARIANT_ADD(dev_bad_mmap, unknown_bit) {
	.offset = UVM_MMAP_DEVICE(0) | (1ULL << 41), .prot = PROT_NONE, .flags = MAP_SHARED,
	.err = EINVAL };
/* A GPU index without the device bit */
FIXTURE_VARIANT_ADD(dev_bad_mmap, gpu_without_device_bit) {
	.offset = 1ULL << 32, .prot = PROT_NONE, .flags = MAP_SHARED, .err = EINVAL };
/* GPU 32 (UVM_MAX_GPUS) */
FIXTURE_VARIANT_ADD(dev_bad_mmap, gpu_max) {
	.offset = UVM_MMAP_DEVICE(UVM_MAX_GPUS), .prot = PROT_NONE, .flags = MAP_SHARED,
	.err = ENODEV };
/* GPU 255 */
FIXTURE_VARIANT_ADD(dev_bad_mmap, gpu_255) {
	.offset = UVM_MMAP_DEVICE(255), .prot = PROT_NONE, .flags = MAP_SHARED, .err = ENODEV };
/* A private mapping */
FIXTURE_VARIANT_ADD(dev_bad_mmap, map_private) {
	.offset = UVM_MMAP_DEVICE(0), .prot = PROT_NONE, .flags = MAP_PRIVATE, .err = EINVAL };
/* An executable mapping */
FIXTURE_VARIANT_ADD(dev_bad_mmap, prot_exec) {
	.offset = UVM_MMAP_DEVICE(0), .prot = PROT_READ | PROT_EXEC, .flags = MAP_SHARED,
	.err = 0 };

FIXTURE_SETUP(dev_bad_mmap)
{
	uvm_dev_setup(&self->dev, 0, 2);
}

FIXTURE_TEARDOWN(dev_bad_mmap)
{
	uvm_dev_teardown(&self->dev);
}

/* The mmap fails with the variant's errno and allocates nothing */
TEST_F(dev_bad_mmap, refused)
{
	int err = variant->err;
	struct statvfs sv;
	void *p;

	if (!err) {
		ASSERT_EQ(0, statvfs(UVM_DEV_PATH, &sv));
		err = sv.f_flag & ST_NOEXEC ? EPERM : EINVAL;
	}
	p = mmap(NULL, 4096, variant->prot, variant->flags, self->dev.fd, (off_t)variant->offset);
	ASSERT_EQ(MAP_FAILED, p);
	ASSERT_EQ(err, errno);
	ASSERT_EQ(0ULL, uvm_vidmem_used(self->dev.fd, 0));
	ASSERT_EQ(0ULL, uvm_vidmem_used(self->dev.fd, 1));
}

/*
 * A full GPU
 */

FIXTURE(device_full) {
	struct uvm_dev dev;
	uint64_t ps;
	uint64_t size;		/* vidmem of GPU 0 */
};

FIXTURE_SETUP(device_full)
{
	struct uvm_ioc_gpu_info gi;

	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, 2);
	self->ps = self->dev.page_size;
	ASSERT_EQ(0, uvm_gpu_info(self->dev.fd, 0, &gi));
	self->size = gi.vidmem_size;
	if (self->size > 256 * UVM_MIB)
		UVM_SKIP("filling %llu MiB of vidmem takes too long; load with vidmem_mb=64",
			 (unsigned long long)(self->size >> 20));
	ASSERT_EQ(0ULL, gi.vidmem_used);
}

FIXTURE_TEARDOWN(device_full)
{
	uvm_dev_teardown(&self->dev);
}

/* The last chunk can be allocated; one page more is -ENOMEM; the other GPU is unaffected */
TEST_F(device_full, enomem_when_full)
{
	uint8_t *all = uvm_mmap_device_skewed(&self->dev, 0, self->size, 0), *more, *other;
	uint8_t word[8] = { 0 };

	ASSERT_NE(MAP_FAILED, all);
	ASSERT_EQ(self->size, uvm_vidmem_used(self->dev.fd, 0));
	more = uvm_mmap_device(&self->dev, 0, self->ps);
	ASSERT_EQ(MAP_FAILED, more);
	ASSERT_EQ(ENOMEM, errno);
	ASSERT_EQ(self->size, uvm_vidmem_used(self->dev.fd, 0));
	other = uvm_mmap_device(&self->dev, 1, self->ps);
	ASSERT_NE(MAP_FAILED, other);
	ASSERT_EQ(BLOCK, uvm_vidmem_used(self->dev.fd, 1));
	/* The full GPU's memory works to its last byte. */
	ASSERT_EQ(0, gpu_load(self->dev.fd, 1, all + self->size - 8, 8, word, NULL));
	ASSERT_EQ(0, munmap(all, self->size));
	ASSERT_EQ(0ULL, uvm_vidmem_wait(self->dev.fd, 0, 0));
	more = uvm_mmap_device(&self->dev, 0, self->ps);
	ASSERT_NE(MAP_FAILED, more);
	ASSERT_EQ(0, munmap(more, self->ps));
	ASSERT_EQ(0, munmap(other, self->ps));
}

/*
 * A copy between two managed ranges by a GPU with room for one chunk: the
 * source's page moves there, the destination's finds no room and evicts
 * the source's chunk, which the retry needs again.  The copy must end (it
 * used to evict back and forth for ever, a soft lockup): -ENOMEM, the
 * destination untouched; with room for both it copies.
 */
TEST_F(device_full, copy_with_room_for_one_chunk_ends)
{
	uint8_t *dev = uvm_mmap_device_skewed(&self->dev, 0, self->size - BLOCK, 0);
	uint8_t *src = uvm_mmap_block_aligned(&self->dev, BLOCK);
	uint8_t *dst = uvm_mmap_block_aligned(&self->dev, BLOCK);

	ASSERT_NE(MAP_FAILED, dev);
	ASSERT_NE(MAP_FAILED, src);
	ASSERT_NE(MAP_FAILED, dst);
	memset(src, 0x5a, self->ps);
	memset(dst, 0xa5, self->ps);
	ASSERT_EQ(-ENOMEM, uvm_copy(self->dev.fd, dst, src, self->ps, 0, 0, NULL));
	ASSERT_EQ(0xa5, dst[0]);
	ASSERT_EQ(0xa5, dst[self->ps - 1]);
	/* the source's page stayed on the GPU from the last attempt */
	ASSERT_EQ(0, munmap(dev, self->size - BLOCK));
	ASSERT_EQ(BLOCK, uvm_vidmem_wait(self->dev.fd, 0, BLOCK));
	ASSERT_EQ(0, uvm_copy(self->dev.fd, dst, src, self->ps, 0, 0, NULL));
	ASSERT_EQ(0x5a, dst[0]);
	ASSERT_EQ(0x5a, dst[self->ps - 1]);
	ASSERT_EQ(0, munmap(src, BLOCK));
	ASSERT_EQ(0, munmap(dst, BLOCK));
}

/* An allocation larger than what is free fails whole: the chunks it got are given back */
TEST_F(device_full, enomem_rolls_back)
{
	uint8_t *half = uvm_mmap_device_skewed(&self->dev, 0, self->size / 2, 0), *p;

	ASSERT_NE(MAP_FAILED, half);
	p = uvm_mmap_device_skewed(&self->dev, 0, self->size / 2 + self->ps, 0);
	ASSERT_EQ(MAP_FAILED, p);
	ASSERT_EQ(ENOMEM, errno);
	ASSERT_EQ(self->size / 2, uvm_vidmem_used(self->dev.fd, 0));
	/* Exactly what is free still fits. */
	p = uvm_mmap_device_skewed(&self->dev, 0, self->size / 2, 0);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(self->size, uvm_vidmem_used(self->dev.fd, 0));
	ASSERT_EQ(0, munmap(p, self->size / 2));
	ASSERT_EQ(0, munmap(half, self->size / 2));
	ASSERT_EQ(0ULL, uvm_vidmem_wait(self->dev.fd, 0, 0));
}

TEST_HARNESS_MAIN
