// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * memory_host - registered host memory of API 1.2 (UVM_IOC_HOST_REGISTER and
 * UVM_IOC_HOST_UNREGISTER) and what UVM_IOC_POINTER_INFO says about it.
 *
 * Four kinds of process memory (variants) read and written by the GPUs at
 * the same addresses with exact fault and pin counts; read-only
 * registrations; every refusal with its errno (variants); shared pages;
 * unregistering; stale registrations of unmapped memory; release with
 * registrations left; fork.  Shared helpers: memory_util.h.
 */
#include "memory_util.h"

/*
 * Registered host memory, over four kinds of process memory
 */

enum host_src { HS_MALLOC = 1, HS_ANON_PRIVATE, HS_ANON_SHARED, HS_MEMFD };

FIXTURE(host) {
	struct uvm_dev dev;
	uint64_t ps;
	uint8_t *mem;		/* the process memory */
	uint64_t mem_len;
	uint8_t *reg;		/* first registered byte */
	uint64_t reg_len;
	uint64_t pages;		/* pages the registration covers */
	uint8_t *ref, *out;
	int memfd;
};

FIXTURE_VARIANT(host) {
	int src;
};

/* malloc() memory (heap, maybe transparent huge pages) */
FIXTURE_VARIANT_ADD(host, malloc) { .src = HS_MALLOC };
/* Anonymous private mmap() */
FIXTURE_VARIANT_ADD(host, anon_private) { .src = HS_ANON_PRIVATE };
/* Anonymous shared mmap() */
FIXTURE_VARIANT_ADD(host, anon_shared) { .src = HS_ANON_SHARED };
/* A memfd mapped shared (shmem file pages) */
FIXTURE_VARIANT_ADD(host, memfd) { .src = HS_MEMFD };

FIXTURE_SETUP(host)
{
	uint64_t skew;

	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, 2);
	self->ps = self->dev.page_size;
	self->memfd = -1;
	self->mem_len = 8 * self->ps;
	/* Registered: from byte 96 to 40 bytes before the end, across a 2 MiB boundary. */
	skew = BLOCK - 3 * self->ps;
	switch (variant->src) {
	case HS_MALLOC:
		self->mem = malloc(self->mem_len);
		ASSERT_NE(NULL, self->mem);
		break;
	case HS_ANON_PRIVATE:
		self->mem = uvm_map_skewed(self->mem_len, skew, PROT_READ | PROT_WRITE,
					   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		break;
	case HS_ANON_SHARED:
		self->mem = uvm_map_skewed(self->mem_len, skew, PROT_READ | PROT_WRITE,
					   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		break;
	case HS_MEMFD:
		self->memfd = memfd_create("uvm-host", MFD_CLOEXEC);
		ASSERT_LE(0, self->memfd);
		ASSERT_EQ(0, ftruncate(self->memfd, (off_t)self->mem_len));
		self->mem = uvm_map_skewed(self->mem_len, skew, PROT_READ | PROT_WRITE,
					   MAP_SHARED, self->memfd, 0);
		break;
	}
	ASSERT_NE(MAP_FAILED, self->mem);
	self->reg = self->mem + 96;
	self->reg_len = self->mem_len - 96 - 40;
	self->pages = ((uintptr_t)self->reg + self->reg_len - 1) / self->ps -
		      (uintptr_t)self->reg / self->ps + 1;
	self->ref = malloc(self->mem_len);
	self->out = malloc(self->mem_len);
	ASSERT_NE(NULL, self->ref);
	ASSERT_NE(NULL, self->out);
	uvm_random_fill(self->ref, self->mem_len, 0x4057 + variant->src);
	memcpy(self->mem, self->ref, self->mem_len);
}

FIXTURE_TEARDOWN(host)
{
	if (variant->src == HS_MALLOC)
		free(self->mem);
	else if (self->mem && self->mem != MAP_FAILED)
		munmap(self->mem, self->mem_len);
	if (self->memfd >= 0)
		close(self->memfd);
	free(self->ref);
	free(self->out);
	uvm_dev_teardown(&self->dev);
}

/* GPUs read and write the registered bytes in place: one fault and one PTE per page */
TEST_F(host, gpu_read_write_in_place)
{
	struct uvm_counters d;
	uint64_t faults;

	ASSERT_EQ(0, uvm_host_register(self->dev.fd, self->reg, self->reg_len, 0, NULL));
	UVM_COUNT_DELTA(self->dev.fd, d, {
		memset(self->out, 0, self->reg_len);
		ASSERT_EQ(0, gpu_load(self->dev.fd, 0, self->reg, self->reg_len, self->out,
					  &faults));
	});
	ASSERT_BYTES(self->out, self->reg - self->mem + self->ref, self->reg_len);
	ASSERT_EQ(self->pages, faults);
	ASSERT_EQ(self->pages, d.c[UVM_COUNTER_GPU_FAULTS]);
	ASSERT_EQ(self->pages, d.c[UVM_COUNTER_GPU_PAGES_MAPPED]);
	ASSERT_COUNTS_ONLY(d, FAULT_COUNTERS);
	/* GPU 1 writes; the CPU sees exactly those bytes at the same addresses. */
	uvm_random_fill(self->out, self->reg_len, 0x77);
	ASSERT_EQ(0, gpu_store(self->dev.fd, 1, self->reg, self->reg_len, self->out, &faults));
	ASSERT_EQ(self->pages, faults);
	ASSERT_BYTES(self->reg, self->out, self->reg_len);
	/* Bytes around the registration are untouched. */
	ASSERT_BYTES(self->mem, self->ref, 96);
	ASSERT_BYTES(self->mem + self->mem_len - 40, self->ref + self->mem_len - 40, 40);
	/* The CPU writes; GPU 0, already mapped, reads them without faulting. */
	memcpy(self->reg, self->ref, self->reg_len);
	ASSERT_EQ(0, gpu_load(self->dev.fd, 0, self->reg, self->reg_len, self->out, &faults));
	ASSERT_EQ(0ULL, faults);
	ASSERT_BYTES(self->out, self->ref, self->reg_len);
	ASSERT_EQ(0ULL, uvm_vidmem_used(self->dev.fd, 0));
	ASSERT_EQ(0, uvm_host_unregister(self->dev.fd, self->reg));
}

/* Registering pins exactly the pages covered; unregistering unpins them */
TEST_F(host, pins_exact)
{
	int64_t pins = uvm_pins_outstanding();

	if (pins == INT64_MIN)
		UVM_SKIP("no /sys/class/misc/uvm/pinned_pages");
	ASSERT_EQ(0, uvm_host_register(self->dev.fd, self->reg, self->reg_len, 0, NULL));
	ASSERT_EQ(pins + (int64_t)self->pages, uvm_pins_outstanding());
	ASSERT_EQ(0, gpu_load(self->dev.fd, 1, self->reg, self->reg_len, self->out, NULL));
	ASSERT_EQ(pins + (int64_t)self->pages, uvm_pins_outstanding());
	ASSERT_EQ(0, uvm_host_unregister(self->dev.fd, self->reg));
	ASSERT_EQ(pins, uvm_pins_outstanding());
	ASSERT_EQ(0, uvm_host_register(self->dev.fd, self->reg, self->reg_len,
				       UVM_HOST_REGISTER_READ_ONLY, NULL));
	ASSERT_EQ(pins + (int64_t)self->pages, uvm_pins_outstanding());
	ASSERT_EQ(0, uvm_host_unregister(self->dev.fd, self->reg));
	ASSERT_EQ(pins, uvm_pins_outstanding());
}

/* POINTER_INFO reports the exact bytes registered, HOST, and READ_ONLY when so */
TEST_F(host, pointer_info)
{
	struct uvm_ioc_pointer_info pi;
	uint64_t id;

	ASSERT_EQ(0, uvm_host_register(self->dev.fd, self->reg, self->reg_len, 0, &id));
	ASSERT_EQ(0, uvm_pointer_info(self->dev.fd, self->reg + self->reg_len - 1, &pi));
	ASSERT_EQ((uint32_t)UVM_POINTER_HOST, pi.flags);
	ASSERT_EQ((uintptr_t)self->reg, pi.start);
	ASSERT_EQ(self->reg_len, pi.size);
	ASSERT_EQ(id, pi.buffer_id);
	ASSERT_EQ(0U, pi.gpu_index);
	/* The bytes before and after, though in registered pages, are not registered. */
	ASSERT_EQ(-ENOENT, uvm_pointer_info(self->dev.fd, self->reg - 1, &pi));
	ASSERT_EQ(-ENOENT, uvm_pointer_info(self->dev.fd, self->reg + self->reg_len, &pi));
	ASSERT_EQ(0, uvm_host_unregister(self->dev.fd, self->reg));
	ASSERT_EQ(-ENOENT, uvm_pointer_info(self->dev.fd, self->reg, &pi));
	ASSERT_EQ(0, uvm_host_register(self->dev.fd, self->reg, self->reg_len,
				       UVM_HOST_REGISTER_READ_ONLY, NULL));
	ASSERT_EQ(0, uvm_pointer_info(self->dev.fd, self->reg, &pi));
	ASSERT_EQ((uint32_t)(UVM_POINTER_HOST | UVM_POINTER_READ_ONLY), pi.flags);
	ASSERT_NE(id, pi.buffer_id);
	ASSERT_EQ(0, uvm_host_unregister(self->dev.fd, self->reg));
}

/*
 * Registered host memory: the rules
 */

FIXTURE(hostreg) {
	struct uvm_dev dev;
	uint64_t ps;
	uint8_t *mem;		/* 8 pages of anonymous memory */
	uint64_t len;
	uint8_t *ref, *out;
	int64_t pins;
};

FIXTURE_SETUP(hostreg)
{
	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, 2);
	self->ps = self->dev.page_size;
	self->len = 8 * self->ps;
	self->mem = mmap(NULL, self->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
	ASSERT_NE(MAP_FAILED, self->mem);
	self->ref = malloc(self->len);
	self->out = malloc(self->len);
	ASSERT_NE(NULL, self->ref);
	ASSERT_NE(NULL, self->out);
	uvm_random_fill(self->ref, self->len, 0x4e6);
	memcpy(self->mem, self->ref, self->len);
	self->pins = uvm_pins_outstanding();
}

FIXTURE_TEARDOWN(hostreg)
{
	if (self->mem && self->mem != MAP_FAILED)
		munmap(self->mem, self->len);
	free(self->ref);
	free(self->out);
	uvm_dev_teardown(&self->dev);
}

/* ASSERT that no more pages are pinned than when the test started. */
#define ASSERT_PINS_BACK(self) do {						\
	if ((self)->pins != INT64_MIN) {					\
		ASSERT_EQ((self)->pins, uvm_pins_wait((self)->pins));		\
	}									\
} while (0)

/* READ_ONLY: GPUs read it; a GPU write is a fatal fault and changes nothing */
TEST_F(hostreg, read_only)
{
	struct uvm_counters d;

	ASSERT_EQ(0, uvm_host_register(self->dev.fd, self->mem, 2 * self->ps,
				       UVM_HOST_REGISTER_READ_ONLY, NULL));
	ASSERT_EQ(0, gpu_load(self->dev.fd, 0, self->mem, 2 * self->ps, self->out, NULL));
	ASSERT_BYTES(self->out, self->ref, 2 * self->ps);
	UVM_COUNT_DELTA(self->dev.fd, d, {
		/* Mapped read-only on GPU 0, not mapped on GPU 1: both fatal. */
		ASSERT_EQ(0, gpu_fatal(self->dev.fd, 0, self->mem + 64, UVM_TEST_OP_WRITE));
		ASSERT_EQ(0, gpu_fatal(self->dev.fd, 1, self->mem + self->ps, UVM_TEST_OP_WRITE));
		ASSERT_EQ(0, gpu_fatal(self->dev.fd, 1, self->mem + 8, UVM_TEST_OP_ATOMIC_ADD));
	});
	ASSERT_EQ(3ULL, d.c[UVM_COUNTER_GPU_FATAL_FAULTS]);
	ASSERT_BYTES(self->mem, self->ref, self->len);
	/* Reads still work afterwards, on both GPUs. */
	ASSERT_EQ(0, gpu_load(self->dev.fd, 1, self->mem, 2 * self->ps, self->out, NULL));
	ASSERT_BYTES(self->out, self->ref, 2 * self->ps);
	ASSERT_EQ(0, uvm_host_unregister(self->dev.fd, self->mem));
	ASSERT_PINS_BACK(self);
}

/*
 * READ_ONLY of memory never written (the zero page behind it) in writable
 * and read-only mappings: the GPUs see what the CPU writes afterwards
 */
TEST_F(hostreg, read_only_never_written)
{
	uint64_t ps = self->ps, len = 4 * ps;
	uint8_t *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint32_t g;

	ASSERT_NE(MAP_FAILED, m);
	/* Three mappings: writable, read-only, writable. */
	ASSERT_EQ(0, mprotect(m + ps, ps, PROT_READ));
	ASSERT_EQ(0, uvm_host_register(self->dev.fd, m + 8, len - 16,
				       UVM_HOST_REGISTER_READ_ONLY, NULL));
	memset(self->ref, 0, len);
	uvm_random_fill(self->ref, ps, 0x71);
	uvm_random_fill(self->ref + 2 * ps, 2 * ps, 0x72);
	memcpy(m, self->ref, ps);
	memcpy(m + 2 * ps, self->ref + 2 * ps, 2 * ps);
	for (g = 0; g < 2; g++) {
		memset(self->out, 0xee, len);
		ASSERT_EQ(0, gpu_load(self->dev.fd, g, m + 8, len - 16, self->out, NULL));
		ASSERT_BYTES(self->out, self->ref + 8, len - 16);
	}
	/* Still coherent on a later CPU write to a mapped page. */
	m[3 * ps + 5] ^= 0x5a;
	self->ref[3 * ps + 5] ^= 0x5a;
	ASSERT_EQ(0, gpu_load(self->dev.fd, 0, m + 3 * ps, 64, self->out, NULL));
	ASSERT_BYTES(self->out, self->ref + 3 * ps, 64);
	ASSERT_EQ(0, uvm_host_unregister(self->dev.fd, m + 8));
	ASSERT_EQ(0, munmap(m, len));
	ASSERT_PINS_BACK(self);
}

/* A read-only mapping can be registered only READ_ONLY (EFAULT otherwise) */
TEST_F(hostreg, read_only_mapping)
{
	ASSERT_EQ(0, mprotect(self->mem, 2 * self->ps, PROT_READ));
	ASSERT_EQ(-EFAULT, uvm_host_register(self->dev.fd, self->mem, 2 * self->ps, 0, NULL));
	ASSERT_EQ(-EFAULT, uvm_host_register(self->dev.fd, self->mem + self->ps, 2 * self->ps,
					     0, NULL));
	ASSERT_PINS_BACK(self);
	ASSERT_EQ(0, uvm_host_register(self->dev.fd, self->mem, 2 * self->ps,
				       UVM_HOST_REGISTER_READ_ONLY, NULL));
	ASSERT_EQ(0, gpu_load(self->dev.fd, 0, self->mem, 2 * self->ps, self->out, NULL));
	ASSERT_BYTES(self->out, self->ref, 2 * self->ps);
	ASSERT_EQ(0, uvm_host_unregister(self->dev.fd, self->mem));
	ASSERT_PINS_BACK(self);
}

/* PROT_NONE memory cannot be registered, read-only or not (EFAULT) */
TEST_F(hostreg, prot_none_efault)
{
	ASSERT_EQ(0, mprotect(self->mem + self->ps, self->ps, PROT_NONE));
	ASSERT_EQ(-EFAULT, uvm_host_register(self->dev.fd, self->mem + self->ps, 8, 0, NULL));
	ASSERT_EQ(-EFAULT, uvm_host_register(self->dev.fd, self->mem, 3 * self->ps,
					     UVM_HOST_REGISTER_READ_ONLY, NULL));
	ASSERT_PINS_BACK(self);
}

/* Memory that is not (all) mapped cannot be registered (EFAULT); nothing stays pinned */
TEST_F(hostreg, unmapped_efault)
{
	struct uvm_ioc_pointer_info pi;
	void *none = uvm_unmapped_address(4 * self->ps);

	ASSERT_NE(NULL, none);
	ASSERT_EQ(-EFAULT, uvm_host_register(self->dev.fd, none, self->ps, 0, NULL));
	ASSERT_EQ(-EFAULT, uvm_host_register(self->dev.fd, none, 16,
					     UVM_HOST_REGISTER_READ_ONLY, NULL));
	/* The last page of the range is unmapped. */
	ASSERT_EQ(0, munmap(self->mem + 7 * self->ps, self->ps));
	ASSERT_EQ(-EFAULT, uvm_host_register(self->dev.fd, self->mem + 5 * self->ps,
					     2 * self->ps + 1, 0, NULL));
	ASSERT_EQ(-ENOENT, uvm_pointer_info(self->dev.fd, self->mem + 5 * self->ps, &pi));
	ASSERT_PINS_BACK(self);
}

/* Overlapping a registered byte is EEXIST; neighbours sharing a page are fine */
TEST_F(hostreg, overlap_eexist)
{
	uint8_t *m = self->mem;
	uint64_t ps = self->ps;

	ASSERT_EQ(0, uvm_host_register(self->dev.fd, m + 100, 2 * ps, 0, NULL));
	ASSERT_EQ(-EEXIST, uvm_host_register(self->dev.fd, m + 100, 2 * ps, 0, NULL));
	ASSERT_EQ(-EEXIST, uvm_host_register(self->dev.fd, m, 101, 0, NULL));
	ASSERT_EQ(-EEXIST, uvm_host_register(self->dev.fd, m + 100 + 2 * ps - 1, 10, 0, NULL));
	ASSERT_EQ(-EEXIST, uvm_host_register(self->dev.fd, m + ps, 1,
					     UVM_HOST_REGISTER_READ_ONLY, NULL));
	ASSERT_EQ(-EEXIST, uvm_host_register(self->dev.fd, m, 4 * ps, 0, NULL));
	/* The bytes just before and just after are free. */
	ASSERT_EQ(0, uvm_host_register(self->dev.fd, m, 100, 0, NULL));
	ASSERT_EQ(0, uvm_host_register(self->dev.fd, m + 100 + 2 * ps, 1, 0, NULL));
	ASSERT_EQ(0, uvm_host_unregister(self->dev.fd, m));
	ASSERT_EQ(0, uvm_host_unregister(self->dev.fd, m + 100));
	ASSERT_EQ(0, uvm_host_unregister(self->dev.fd, m + 100 + 2 * ps));
	ASSERT_PINS_BACK(self);
}

/* Managed or device memory cannot be registered (EINVAL), not even in part */
TEST_F(hostreg, managed_or_device_einval)
{
	uint8_t *r = uvm_map_skewed(4 * self->ps, 0, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint8_t *m, *d;

	ASSERT_NE(MAP_FAILED, r);
	/* [pageable][managed][device][pageable] */
	m = mmap(r + self->ps, self->ps, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
		 self->dev.fd, UVM_MMAP_MANAGED);
	d = mmap(r + 2 * self->ps, self->ps, PROT_NONE, MAP_SHARED | MAP_FIXED, self->dev.fd,
		 UVM_MMAP_DEVICE(0));
	ASSERT_EQ(r + self->ps, m);
	ASSERT_EQ(r + 2 * self->ps, d);
	m[0] = 1;
	ASSERT_EQ(-EINVAL, uvm_host_register(self->dev.fd, m, self->ps, 0, NULL));
	ASSERT_EQ(-EINVAL, uvm_host_register(self->dev.fd, m + 8, 8, UVM_HOST_REGISTER_READ_ONLY,
					     NULL));
	ASSERT_EQ(-EINVAL, uvm_host_register(self->dev.fd, d, self->ps,
					     UVM_HOST_REGISTER_READ_ONLY, NULL));
	ASSERT_EQ(-EINVAL, uvm_host_register(self->dev.fd, r, self->ps + 1, 0, NULL));
	ASSERT_EQ(-EINVAL, uvm_host_register(self->dev.fd, d + self->ps - 1, 2, 0, NULL));
	ASSERT_PINS_BACK(self);
	ASSERT_EQ(0, munmap(r, 4 * self->ps));
}

/* Unregister takes the registered address only: inside, unknown or twice is ENOENT */
TEST_F(hostreg, unregister_enoent)
{
	struct uvm_ioc_host_unregister bad = { .address = (uintptr_t)self->mem + 10 };

	ASSERT_EQ(-ENOENT, uvm_host_unregister(self->dev.fd, self->mem));
	ASSERT_EQ(0, uvm_host_register(self->dev.fd, self->mem + 10, self->ps, 0, NULL));
	ASSERT_EQ(-ENOENT, uvm_host_unregister(self->dev.fd, self->mem));
	ASSERT_EQ(-ENOENT, uvm_host_unregister(self->dev.fd, self->mem + 11));
	bad.reserved[2] = 1;
	ASSERT_EQ(-EINVAL, uvm_ioctl(self->dev.fd, UVM_IOC_HOST_UNREGISTER, &bad));
	ASSERT_EQ(0, uvm_host_unregister(self->dev.fd, self->mem + 10));
	ASSERT_EQ(-ENOENT, uvm_host_unregister(self->dev.fd, self->mem + 10));
	ASSERT_PINS_BACK(self);
}

/*
 * After unregistering, the CPU keeps the last bytes written. Without HMM both
 * GPUs' accesses are fatal; with HMM the range is ordinary pageable memory
 * again, which the GPUs reach through the mirror (and see the CPU's bytes).
 */
TEST_F(hostreg, gpu_access_after_unregister)
{
	uint64_t len = 3 * self->ps;

	ASSERT_EQ(0, uvm_host_register(self->dev.fd, self->mem, len, 0, NULL));
	uvm_random_fill(self->out, len, 0x11);
	ASSERT_EQ(0, gpu_store(self->dev.fd, 0, self->mem, len, self->out, NULL));
	ASSERT_EQ(0, gpu_load(self->dev.fd, 1, self->mem, len, self->ref, NULL));
	ASSERT_EQ(0, uvm_host_unregister(self->dev.fd, self->mem));
	self->mem[5] ^= 0xff;
	self->out[5] ^= 0xff;
	if (uvm_has_hmm(&self->dev)) {
		memset(self->ref, 0, len);
		ASSERT_EQ(0, gpu_load(self->dev.fd, 0, self->mem, len, self->ref, NULL));
		ASSERT_BYTES(self->ref, self->out, len);
		ASSERT_EQ(0, gpu_load(self->dev.fd, 1, self->mem + 2 * self->ps,
				      self->ps, self->ref, NULL));
		ASSERT_BYTES(self->ref, self->out + 2 * self->ps, self->ps);
	} else {
		ASSERT_EQ(0, gpu_fatal(self->dev.fd, 0, self->mem, UVM_TEST_OP_READ));
		ASSERT_EQ(0, gpu_fatal(self->dev.fd, 1, self->mem + 2 * self->ps,
				       UVM_TEST_OP_WRITE));
	}
	ASSERT_BYTES(self->mem, self->out, len);
	ASSERT_PINS_BACK(self);
}

/* Two registrations share a page; unregistering one leaves the other working */
TEST_F(hostreg, shared_page)
{
	uint8_t *a = self->mem, *b = self->mem + 128;
	uint64_t alen = 128, blen = 2 * self->ps;

	ASSERT_EQ(0, uvm_host_register(self->dev.fd, a, alen, 0, NULL));
	ASSERT_EQ(0, uvm_host_register(self->dev.fd, b, blen, 0, NULL));
	/* The shared page is pinned once for each. */
	if (self->pins != INT64_MIN) {
		ASSERT_EQ(self->pins + 1 + 3, uvm_pins_outstanding());
	}
	/* GPU 0 maps the shared page through a, GPU 1 through b. */
	ASSERT_EQ(0, gpu_store(self->dev.fd, 0, a, alen, self->ref + 4096, NULL));
	ASSERT_EQ(0, gpu_store(self->dev.fd, 1, b, blen, self->ref + 8192, NULL));
	ASSERT_BYTES(a, self->ref + 4096, alen);
	ASSERT_BYTES(b, self->ref + 8192, blen);
	ASSERT_EQ(0, uvm_host_unregister(self->dev.fd, a));
	/*
	 * a's registration is gone for GPU 0 (before b maps the page there):
	 * fatal without HMM; with HMM GPU 0 reaches a through the mirror.
	 */
	if (uvm_has_hmm(&self->dev)) {
		memset(self->out, 0, alen);
		ASSERT_EQ(0, gpu_load(self->dev.fd, 0, a, alen, self->out, NULL));
		ASSERT_BYTES(self->out, self->ref + 4096, alen);
	} else {
		ASSERT_EQ(0, gpu_fatal(self->dev.fd, 0, a, UVM_TEST_OP_READ));
		ASSERT_EQ(0, gpu_fatal(self->dev.fd, 0, a + 64, UVM_TEST_OP_WRITE));
	}
	/* b works on both GPUs, in the shared page and beyond. */
	memset(self->out, 0, blen);
	ASSERT_EQ(0, gpu_load(self->dev.fd, 0, b, blen, self->out, NULL));
	ASSERT_BYTES(self->out, self->ref + 8192, blen);
	ASSERT_EQ(0, gpu_store(self->dev.fd, 1, b, 64, self->ref, NULL));
	ASSERT_EQ(0, gpu_store(self->dev.fd, 0, b + blen - 64, 64, self->ref + 64, NULL));
	ASSERT_BYTES(b, self->ref, 64);
	ASSERT_BYTES(b + blen - 64, self->ref + 64, 64);
	ASSERT_EQ(0, uvm_host_unregister(self->dev.fd, b));
	ASSERT_PINS_BACK(self);
}

/*
 * Unmapped without unregistering, the pages stay pinned and GPUs keep seeing
 * them; a /dev/uvm mapping at those addresses drops the stale registration
 */
TEST_F(hostreg, stale_registration_dropped_by_mmap)
{
	uint64_t len = 2 * self->ps;
	uint8_t *p = self->mem + 2 * self->ps, *m;
	struct uvm_ioc_pointer_info pi;

	ASSERT_EQ(0, uvm_host_register(self->dev.fd, p, len, 0, NULL));
	ASSERT_EQ(0, munmap(p, len));
	ASSERT_EQ(0, uvm_pointer_info(self->dev.fd, p, &pi));
	ASSERT_EQ((uint32_t)UVM_POINTER_HOST, pi.flags);
	ASSERT_EQ(0, gpu_load(self->dev.fd, 0, p, len, self->out, NULL));
	ASSERT_BYTES(self->out, self->ref + 2 * self->ps, len);
	if (self->pins != INT64_MIN) {
		ASSERT_EQ(self->pins + 2, uvm_pins_outstanding());
	}
	m = mmap(p, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED_NOREPLACE, self->dev.fd,
		 UVM_MMAP_MANAGED);
	ASSERT_EQ(p, m);
	ASSERT_PINS_BACK(self);
	ASSERT_EQ(0, uvm_pointer_info(self->dev.fd, p, &pi));
	ASSERT_EQ((uint32_t)UVM_POINTER_MANAGED, pi.flags);
	ASSERT_EQ(-ENOENT, uvm_host_unregister(self->dev.fd, p));
	/* The GPUs see the new managed memory, not the old pages. */
	ASSERT_EQ(0, gpu_load(self->dev.fd, 0, m, len, self->out, NULL));
	ASSERT_EQ(-1, uvm_nonzero_at(self->out, len));
	ASSERT_EQ(0, munmap(m, len));
}

/* The same with device memory mapped over the stale registration */
TEST_F(hostreg, stale_registration_dropped_by_device_mmap)
{
	uint8_t *p = self->mem + 4 * self->ps, *d;
	struct uvm_ioc_pointer_info pi;

	ASSERT_EQ(0, uvm_host_register(self->dev.fd, p + 8, 100, UVM_HOST_REGISTER_READ_ONLY,
				       NULL));
	ASSERT_EQ(0, gpu_load(self->dev.fd, 1, p + 8, 64, self->out, NULL));
	ASSERT_EQ(0, munmap(p, self->ps));
	d = mmap(p, self->ps, PROT_NONE, MAP_SHARED | MAP_FIXED_NOREPLACE, self->dev.fd,
		 UVM_MMAP_DEVICE(0));
	ASSERT_EQ(p, d);
	ASSERT_PINS_BACK(self);
	ASSERT_EQ(0, uvm_pointer_info(self->dev.fd, p + 8, &pi));
	ASSERT_EQ((uint32_t)UVM_POINTER_DEVICE, pi.flags);
	/* GPU 1 had the old page mapped read-only: now it writes device memory. */
	ASSERT_EQ(0, gpu_store(self->dev.fd, 1, d, 64, self->ref, NULL));
	ASSERT_EQ(0, gpu_load(self->dev.fd, 0, d, 64, self->out, NULL));
	ASSERT_BYTES(self->out, self->ref, 64);
	ASSERT_EQ(0, munmap(d, self->ps));
}

/* close() with registrations left unpins everything (kmemleak checks the rest) */
TEST_F(hostreg, close_with_registrations)
{
	ASSERT_EQ(0, uvm_host_register(self->dev.fd, self->mem, self->ps, 0, NULL));
	ASSERT_EQ(0, uvm_host_register(self->dev.fd, self->mem + self->ps, 3 * self->ps + 5,
				       UVM_HOST_REGISTER_READ_ONLY, NULL));
	ASSERT_EQ(0, gpu_load(self->dev.fd, 0, self->mem, 4 * self->ps, self->out, NULL));
	ASSERT_EQ(0, gpu_load(self->dev.fd, 1, self->mem, 4 * self->ps, self->out, NULL));
	uvm_dev_teardown(&self->dev);
	ASSERT_PINS_BACK(self);
	ASSERT_BYTES(self->mem, self->ref, self->len);
}

static int child_write_mem(void *arg)
{
	memset(arg, 0xcc, 4096);
	return 0;
}

/* After fork the parent keeps the pinned pages: its CPU writes are what the GPUs see */
TEST_F(hostreg, fork_keeps_parent_pages)
{
	uint64_t len = 2 * self->ps;

	ASSERT_EQ(0, uvm_host_register(self->dev.fd, self->mem, len, 0, NULL));
	ASSERT_EQ(0, uvm_run_child(child_write_mem, self->mem));
	memset(self->mem, 0x3c, 64);
	ASSERT_EQ(0, gpu_load(self->dev.fd, 0, self->mem, 64, self->out, NULL));
	ASSERT_BYTES(self->out, self->mem, 64);
	ASSERT_EQ(0x3c, self->out[0]);
	ASSERT_EQ(0, gpu_store(self->dev.fd, 1, self->mem + 64, 64, self->ref, NULL));
	ASSERT_BYTES(self->mem + 64, self->ref, 64);
	ASSERT_EQ(0, uvm_host_unregister(self->dev.fd, self->mem));
	ASSERT_PINS_BACK(self);
}

/* Refused registrations: one variant per rule */
FIXTURE(host_bad) {
	struct uvm_dev dev;
	uint8_t *mem;
};

FIXTURE_VARIANT(host_bad) {
	uint64_t offset;	/* from an 8-page anonymous mapping */
	uint64_t length;
	uint64_t address;	/* absolute address instead, when non-zero */
	uint32_t flags;
	uint32_t pad;
	uint64_t reserved1;
	int err;
};

/* Length 0 */
FIXTURE_VARIANT_ADD(host_bad, length_0) { .length = 0, .err = EINVAL };
/* An unknown flag */
FIXTURE_VARIANT_ADD(host_bad, flag_bit1) { .length = 64, .flags = 1U << 1, .err = EINVAL };
/* The top flag */
FIXTURE_VARIANT_ADD(host_bad, flag_bit31) { .length = 64, .flags = 1U << 31, .err = EINVAL };
/* Non-zero pad */
FIXTURE_VARIANT_ADD(host_bad, pad) { .length = 64, .pad = 1, .err = EINVAL };
/* Non-zero reserved */
FIXTURE_VARIANT_ADD(host_bad, reserved) { .length = 64, .reserved1 = 1, .err = EINVAL };
/* address + length wraps */
FIXTURE_VARIANT_ADD(host_bad, wraps) { .address = ~0ULL - 100, .length = 4096, .err = EINVAL };
/* Beyond the user address space */
FIXTURE_VARIANT_ADD(host_bad, kernel_address) {
	.address = 0xffff888000000000ULL, .length = 4096, .err = EINVAL };
/* More pages than one registration may pin (2^26), well inside the address space */
FIXTURE_VARIANT_ADD(host_bad, too_many_pages) {
	.address = 0x100000000000ULL, .length = (1ULL << 26) * 4096 + 1, .err = ENOMEM };
/* The never-mapped page at 4096 */
FIXTURE_VARIANT_ADD(host_bad, unmapped) { .address = 4096, .length = 4096, .err = EFAULT };

FIXTURE_SETUP(host_bad)
{
	uvm_dev_setup(&self->dev, 0, 1);
	self->mem = mmap(NULL, 8 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
	ASSERT_NE(MAP_FAILED, self->mem);
}

FIXTURE_TEARDOWN(host_bad)
{
	munmap(self->mem, 8 * 4096);
	uvm_dev_teardown(&self->dev);
}

/* The registration fails with the variant's errno; nothing is registered or pinned */
TEST_F(host_bad, refused)
{
	struct uvm_ioc_host_register args = {
		.address = variant->address ? variant->address
					    : (uintptr_t)self->mem + variant->offset,
		.length = variant->length,
		.flags = variant->flags,
		.pad = variant->pad,
		.reserved = { 0, variant->reserved1 },
	};
	struct uvm_ioc_pointer_info pi;
	int64_t pins = uvm_pins_outstanding();

	ASSERT_EQ(-variant->err, uvm_ioctl(self->dev.fd, UVM_IOC_HOST_REGISTER, &args));
	ASSERT_EQ(-ENOENT, uvm_pointer_info(self->dev.fd, self->mem, &pi));
	ASSERT_EQ(pins, uvm_pins_outstanding());
}

TEST_HARNESS_MAIN
