// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * memory - the memory of API 1.2: device memory (mmap at UVM_MMAP_DEVICE),
 * registered host memory (UVM_IOC_HOST_REGISTER/UNREGISTER), copies
 * (UVM_IOC_COPY) and memsets (UVM_IOC_MEMSET) through the copy engines, and
 * what UVM_IOC_POINTER_INFO says about each.
 *
 * Device memory: sizes and placements against 2 MiB chunks (variants),
 * exact vidmem accounting, zeros at allocation (also of reused chunks), CPU
 * access signals, the owner and a peer reading, writing and adding, the
 * mappings the driver refuses or cannot split, -ENOMEM on a full GPU with
 * nothing leaked, fork, exit and close, revocation at munmap.
 *
 * Registered host memory: four kinds of process memory (variants) read and
 * written by the GPUs at the same addresses with exact fault and pin
 * counts; read-only registrations; every refusal with its errno (variants);
 * shared pages; unregistering; stale registrations of unmapped memory;
 * release with registrations left; fork.
 *
 * Copies: every pair of kinds and both copy engines (variants), whole,
 * unaligned, tiny and asynchronous, against a background that must survive;
 * residency of managed memory after a copy, by policy; ordering with
 * MIGRATE batches through fences; every refusal (variants), after which
 * nothing changed and no fence was used.  Memsets: every kind and element
 * size (variants) with exact patterns, and every refusal (variants).
 *
 * Strided copies and sets (UVM_IOC_COPY_3D, UVM_IOC_MEMSET_3D): 2D and 3D
 * boxes with positions and pitches for every pair of kinds (the copy
 * variants), the bytes between rows untouched; managed memory served only
 * where the rows are; sets of every element size; every refusal (variants).
 *
 * Device memory is read and written by GPU launches (never by the copy
 * engine under test) to check bytes.  The suite runs with vidmem_mb=64
 * (32 chunks per GPU), so that a GPU can be filled quickly.
 */
#include <sys/statvfs.h>

#include "kselftest_harness.h"
#include "uvm_test_util.h"

#define BLOCK		UVM_VA_BLOCK_SIZE

/* Kinds of memory */

enum kind {
	K_PAGEABLE = 1,	/* anonymous process memory */
	K_MANAGED,	/* mmap of /dev/uvm */
	K_DEVICE,	/* mmap of /dev/uvm at UVM_MMAP_DEVICE(gpu) */
	K_HOST,		/* anonymous process memory, registered */
};

/**
 * struct mbuf - a buffer of one kind
 * @kind:	enum kind
 * @gpu:	K_DEVICE: the owning GPU (which also loads and stores it)
 * @p:		first byte, NULL when not allocated
 * @len:	bytes
 */
struct mbuf {
	int kind;
	uint32_t gpu;
	uint8_t *p;
	uint64_t len;
};

/* Allocate @len bytes of @kind @skew bytes past a 2 MiB boundary. Return: 0 or -errno. */
static int mbuf_alloc(const struct uvm_dev *dev, struct mbuf *b, int kind, uint32_t gpu,
		      uint64_t len, uint64_t skew)
{
	void *p = MAP_FAILED;

	b->kind = kind;
	b->gpu = gpu;
	b->len = len;
	b->p = NULL;
	switch (kind) {
	case K_PAGEABLE:
	case K_HOST:
		p = uvm_map_skewed(len, skew, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		break;
	case K_MANAGED:
		p = uvm_map_skewed(len, skew, PROT_READ | PROT_WRITE, MAP_SHARED, dev->fd,
				   UVM_MMAP_MANAGED);
		break;
	case K_DEVICE:
		p = uvm_mmap_device_skewed(dev, gpu, len, skew);
		break;
	}
	if (p == MAP_FAILED)
		return -errno;
	b->p = p;
	return kind == K_HOST ? uvm_host_register(dev->fd, p, len, 0, NULL) : 0;
}

static void mbuf_free(const struct uvm_dev *dev, struct mbuf *b)
{
	if (!b->p)
		return;
	if (b->kind == K_HOST)
		uvm_host_unregister(dev->fd, b->p);
	munmap(b->p, b->len);
	b->p = NULL;
}

/*
 * GPU @gpu reads [addr, +len) into @out (one warp): page-sized accesses when
 * everything is page aligned (fast under TCG, still one access per page),
 * else gpu_load()'s.  @faults (may be NULL) gets the faults raised.
 */
static int gpu_load(int fd, uint32_t gpu, const void *addr, uint64_t len, void *out,
		    uint64_t *faults)
{
	struct uvm_test_gpu_op op = uvm_op_read(addr, len, 4096, out);
	struct uvm_test_launch l;
	int ret;

	if (((uintptr_t)addr | len) % 4096)
		return uvm_gpu_read(fd, gpu, addr, len, out, faults);
	ret = uvm_launch(fd, gpu, 1, &op, 1, &l);
	if (faults)
		*faults = l.faults_raised;
	return ret;
}

/* GPU @gpu writes @src to [addr, +len), like gpu_load(). */
static int gpu_store(int fd, uint32_t gpu, const void *addr, uint64_t len, const void *src,
		     uint64_t *faults)
{
	struct uvm_test_gpu_op op = uvm_op_write(addr, len, 4096, src);
	struct uvm_test_launch l;
	int ret;

	if (((uintptr_t)addr | len) % 4096)
		return uvm_gpu_write(fd, gpu, addr, len, src, faults);
	ret = uvm_launch(fd, gpu, 1, &op, 1, &l);
	if (faults)
		*faults = l.faults_raised;
	return ret;
}

/* Store @data over the whole buffer: the CPU, or a launch of the owner GPU. */
static int mbuf_store(const struct uvm_dev *dev, const struct mbuf *b, const void *data)
{
	if (b->kind == K_DEVICE)
		return gpu_store(dev->fd, b->gpu, b->p, b->len, data, NULL);
	memcpy(b->p, data, b->len);
	return 0;
}

/* Load the whole buffer into @out, the same way. */
static int mbuf_load(const struct uvm_dev *dev, const struct mbuf *b, void *out)
{
	if (b->kind == K_DEVICE)
		return gpu_load(dev->fd, b->gpu, b->p, b->len, out, NULL);
	memcpy(out, b->p, b->len);
	return 0;
}

/* ASSERT that a buffer of any kind holds exactly @want (@scratch: len bytes). */
#define ASSERT_MBUF(dev, b, want, scratch) do {					\
	memset((scratch), 0xa5, (b)->len);					\
	ASSERT_EQ(0, mbuf_load((dev), (b), (scratch)));				\
	ASSERT_BYTES((scratch), (want), (b)->len);				\
} while (0)

/* Common helpers */

/* ASSERT that a counter delta moved only where @allowed has bits (1 << counter). */
#define ASSERT_COUNTS_ONLY(d, allowed) do {					\
	unsigned int __i, __bad = 0;						\
	for (__i = 0; __i < UVM_COUNTER_COUNT; __i++) {				\
		if ((d).c[__i] && !((allowed) & (1ULL << __i))) {		\
			TH_LOG("counter %s moved by %llu", uvm_counter_name(__i), \
			       (unsigned long long)(d).c[__i]);			\
			__bad++;						\
		}								\
	}									\
	ASSERT_EQ(0U, __bad);							\
} while (0)

#define CBIT(c)		(1ULL << (c))
/* What a GPU access to device or registered host memory may count. */
#define FAULT_COUNTERS	(CBIT(UVM_COUNTER_GPU_FAULTS) | CBIT(UVM_COUNTER_GPU_FAULTS_DUP) | \
			 CBIT(UVM_COUNTER_GPU_FAULT_BATCHES) | CBIT(UVM_COUNTER_GPU_REPLAYS) | \
			 CBIT(UVM_COUNTER_GPU_PAGES_MAPPED))

/* ASSERT the resident mask (only) of @npages pages. */
#define ASSERT_RESIDENT(dev, addr, npages, mask) do {				\
	struct uvm_test_page_state *__st = calloc((npages), sizeof(*__st));	\
	uint64_t __i;								\
	ASSERT_NE(NULL, __st);							\
	ASSERT_EQ(0, uvm_residency((dev)->fd, (addr), (npages) * (dev)->page_size, __st)); \
	for (__i = 0; __i < (npages); __i++) {					\
		ASSERT_EQ((uint64_t)(mask), __st[__i].resident) {		\
			TH_LOG("page %llu of %p", (unsigned long long)__i,	\
			       (void *)(addr));					\
		}								\
	}									\
	free(__st);								\
} while (0)

/* Expected memset bytes: byte i of the fill is byte i % @esize of @value. */
static void memset_expect(uint8_t *p, uint64_t count, uint32_t value, uint32_t esize)
{
	uint64_t i;

	for (i = 0; i < count * esize; i++)
		p[i] = (uint8_t)(value >> (8 * (i % esize)));
}

/* A GPU launch that must end in a fatal fault at @addr; Return: 0 or what differed. */
static int gpu_fatal(int fd, uint32_t gpu, const void *addr, uint32_t type)
{
	uint64_t word = 0x1234;
	struct uvm_test_gpu_op op = uvm_op(type, addr, 8, 8);
	struct uvm_test_launch l;
	int ret;

	if (type == UVM_TEST_OP_ATOMIC_ADD)
		op.value = 1;
	else
		op.data_ptr = (uintptr_t)&word;
	ret = uvm_launch(fd, gpu, 1, &op, 1, &l);
	if (ret != -EREMOTEIO)
		return ret ? ret : -1;
	return l.fault_address == (uintptr_t)addr && l.fault_access == type ? 0 : -2;
}

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

/*
 * Copies between every pair of kinds, by either copy engine
 */

/* Both buffers: 2 MiB + 4 pages, across two 2 MiB boundaries at different offsets. */
#define COPY_PAGES	(512 + 4)
#define DST_SKEW_PAGES	(512 - 2)	/* dst's boundaries: pages 2 and 514 */
#define SRC_SKEW_PAGES	(512 - 5)	/* src's boundaries: pages 5 and 517 (past the end) */

FIXTURE(copy) {
	struct uvm_dev dev;
	uint64_t ps, len;
	struct mbuf dst, src;
	uint8_t *src_data;	/* what src holds */
	uint8_t *want;		/* what dst must hold */
	uint8_t *scratch;
	uint64_t vidmem[2];	/* after setup */
	uint64_t last_fence;
};

FIXTURE_VARIANT(copy) {
	int dst, src;		/* enum kind */
	uint32_t dst_gpu, src_gpu; /* owners of device memory */
	uint32_t ce;		/* GPU whose engine copies */
};

/* pageable -> device 0, by GPU 0 */
FIXTURE_VARIANT_ADD(copy, device0_from_pageable) {
	.dst = K_DEVICE, .dst_gpu = 0, .src = K_PAGEABLE, .ce = 0 };
/* pageable -> device 0, by GPU 1 (a peer write) */
FIXTURE_VARIANT_ADD(copy, device0_from_pageable_ce1) {
	.dst = K_DEVICE, .dst_gpu = 0, .src = K_PAGEABLE, .ce = 1 };
/* device 0 -> pageable, by GPU 0 */
FIXTURE_VARIANT_ADD(copy, pageable_from_device0) {
	.dst = K_PAGEABLE, .src = K_DEVICE, .src_gpu = 0, .ce = 0 };
/* device 1 -> pageable, by GPU 0 (a peer read) */
FIXTURE_VARIANT_ADD(copy, pageable_from_device1_ce0) {
	.dst = K_PAGEABLE, .src = K_DEVICE, .src_gpu = 1, .ce = 0 };
/* pageable -> managed, by GPU 0 */
FIXTURE_VARIANT_ADD(copy, managed_from_pageable) {
	.dst = K_MANAGED, .src = K_PAGEABLE, .ce = 0 };
/* managed -> pageable, by GPU 1 */
FIXTURE_VARIANT_ADD(copy, pageable_from_managed_ce1) {
	.dst = K_PAGEABLE, .src = K_MANAGED, .ce = 1 };
/* device 0 -> device 0 (two allocations), by GPU 0 */
FIXTURE_VARIANT_ADD(copy, device0_from_device0) {
	.dst = K_DEVICE, .dst_gpu = 0, .src = K_DEVICE, .src_gpu = 0, .ce = 0 };
/* device 0 -> device 1, by GPU 0 */
FIXTURE_VARIANT_ADD(copy, device1_from_device0) {
	.dst = K_DEVICE, .dst_gpu = 1, .src = K_DEVICE, .src_gpu = 0, .ce = 0 };
/* device 1 -> device 0, by GPU 1 */
FIXTURE_VARIANT_ADD(copy, device0_from_device1_ce1) {
	.dst = K_DEVICE, .dst_gpu = 0, .src = K_DEVICE, .src_gpu = 1, .ce = 1 };
/* device 1 -> device 1, by GPU 0 (both sides peer) */
FIXTURE_VARIANT_ADD(copy, device1_from_device1_ce0) {
	.dst = K_DEVICE, .dst_gpu = 1, .src = K_DEVICE, .src_gpu = 1, .ce = 0 };
/* managed -> managed (two ranges), by GPU 1 */
FIXTURE_VARIANT_ADD(copy, managed_from_managed_ce1) {
	.dst = K_MANAGED, .src = K_MANAGED, .ce = 1 };
/* device 1 -> managed, by GPU 0 */
FIXTURE_VARIANT_ADD(copy, managed_from_device1) {
	.dst = K_MANAGED, .src = K_DEVICE, .src_gpu = 1, .ce = 0 };
/* managed -> device 0, by GPU 1 */
FIXTURE_VARIANT_ADD(copy, device0_from_managed_ce1) {
	.dst = K_DEVICE, .dst_gpu = 0, .src = K_MANAGED, .ce = 1 };
/* device 0 -> registered host, by GPU 1 */
FIXTURE_VARIANT_ADD(copy, host_from_device0_ce1) {
	.dst = K_HOST, .src = K_DEVICE, .src_gpu = 0, .ce = 1 };
/* registered host -> device 1, by GPU 0 */
FIXTURE_VARIANT_ADD(copy, device1_from_host) {
	.dst = K_DEVICE, .dst_gpu = 1, .src = K_HOST, .ce = 0 };
/* managed -> registered host, by GPU 0 */
FIXTURE_VARIANT_ADD(copy, host_from_managed) {
	.dst = K_HOST, .src = K_MANAGED, .ce = 0 };
/* registered host -> managed, by GPU 1 */
FIXTURE_VARIANT_ADD(copy, managed_from_host_ce1) {
	.dst = K_MANAGED, .src = K_HOST, .ce = 1 };
/* pageable -> pageable, by GPU 0 */
FIXTURE_VARIANT_ADD(copy, pageable_from_pageable) {
	.dst = K_PAGEABLE, .src = K_PAGEABLE, .ce = 0 };
/* registered host -> registered host, by GPU 1 */
FIXTURE_VARIANT_ADD(copy, host_from_host_ce1) {
	.dst = K_HOST, .src = K_HOST, .ce = 1 };
/* pageable -> registered host, by GPU 0 */
FIXTURE_VARIANT_ADD(copy, host_from_pageable) {
	.dst = K_HOST, .src = K_PAGEABLE, .ce = 0 };
/* registered host -> pageable, by GPU 1 */
FIXTURE_VARIANT_ADD(copy, pageable_from_host_ce1) {
	.dst = K_PAGEABLE, .src = K_HOST, .ce = 1 };

FIXTURE_SETUP(copy)
{
	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, 2);
	self->ps = self->dev.page_size;
	self->len = COPY_PAGES * self->ps;
	ASSERT_EQ(0, mbuf_alloc(&self->dev, &self->dst, variant->dst, variant->dst_gpu, self->len,
				DST_SKEW_PAGES * self->ps));
	ASSERT_EQ(0, mbuf_alloc(&self->dev, &self->src, variant->src, variant->src_gpu, self->len,
				SRC_SKEW_PAGES * self->ps));
	self->src_data = malloc(self->len);
	self->want = malloc(self->len);
	self->scratch = malloc(self->len);
	ASSERT_NE(NULL, self->src_data);
	ASSERT_NE(NULL, self->want);
	ASSERT_NE(NULL, self->scratch);
	uvm_random_fill(self->src_data, self->len, 0x5c);
	uvm_random_fill(self->want, self->len, 0xd5);	/* dst's background */
	ASSERT_EQ(0, mbuf_store(&self->dev, &self->src, self->src_data));
	ASSERT_EQ(0, mbuf_store(&self->dev, &self->dst, self->want));
	self->vidmem[0] = uvm_vidmem_used(self->dev.fd, 0);
	self->vidmem[1] = uvm_vidmem_used(self->dev.fd, 1);
}

FIXTURE_TEARDOWN(copy)
{
	mbuf_free(&self->dev, &self->dst);
	mbuf_free(&self->dev, &self->src);
	free(self->src_data);
	free(self->want);
	free(self->scratch);
	uvm_dev_teardown(&self->dev);
}

/*
 * Copy [soff, +n) of src to [doff, +n) of dst with @flags, then ASSERT:
 * dst is its background with exactly those bytes replaced, src unchanged;
 * copies that involve no managed memory count no fault and no migration and
 * allocate no vidmem.
 */
static void copy_check(struct __test_metadata *_metadata, FIXTURE_DATA(copy) *self,
		       const FIXTURE_VARIANT(copy) *variant, uint64_t doff, uint64_t soff,
		       uint64_t n, uint32_t flags)
{
	bool managed = variant->dst == K_MANAGED || variant->src == K_MANAGED;
	uint64_t fence = 0, completed = 0;
	struct uvm_counters d;

	UVM_COUNT_DELTA(self->dev.fd, d, {
		ASSERT_EQ(0, uvm_copy(self->dev.fd, self->dst.p + doff, self->src.p + soff, n,
				      variant->ce, flags, &fence));
		if (flags & UVM_COPY_ASYNC) {
			ASSERT_EQ(0, uvm_fence_wait(self->dev.fd, fence, 0, &completed));
			ASSERT_LE(fence, completed);
		}
	});
	ASSERT_LT(self->last_fence, fence);
	self->last_fence = fence;
	memcpy(self->want + doff, self->src_data + soff, n);
	ASSERT_MBUF(&self->dev, &self->dst, self->want, self->scratch);
	ASSERT_MBUF(&self->dev, &self->src, self->src_data, self->scratch);
	if (!managed) {
		ASSERT_COUNTS_ONLY(d, 0ULL);
		ASSERT_EQ(self->vidmem[0], uvm_vidmem_used(self->dev.fd, 0));
		ASSERT_EQ(self->vidmem[1], uvm_vidmem_used(self->dev.fd, 1));
	}
}

/* The whole buffer, page aligned, across both sides' 2 MiB boundaries */
TEST_F(copy, whole)
{
	copy_check(_metadata, self, variant, 0, 0, self->len, 0);
}

/* Unaligned offsets and length: the sides' pages and blocks split at different bytes */
TEST_F(copy, unaligned)
{
	copy_check(_metadata, self, variant, 4093, 7, self->len - 4093 - 1001, 0);
}

/* One byte, and a few bytes across a page boundary on one side and a 2 MiB one on the other */
TEST_F(copy, tiny)
{
	uint64_t ps = self->ps;

	copy_check(_metadata, self, variant, ps - 1, 5 * ps, 1, 0);
	copy_check(_metadata, self, variant, 2 * ps - 5, ps - 3, 10, 0);
	copy_check(_metadata, self, variant, 3 * ps + 4090, 5 * ps - 4, 7, 0);
}

/* Asynchronous: the fence completes with the bytes in place; two copies complete in order */
TEST_F(copy, async)
{
	uint64_t ps = self->ps;

	copy_check(_metadata, self, variant, 3, 2 * ps + 1, self->len - 2 * ps - 7, UVM_COPY_ASYNC);
	/* The same destination again: the later copy wins. */
	copy_check(_metadata, self, variant, ps, 0, 3 * ps, UVM_COPY_ASYNC);
}

/* A box on one side of a strided copy: offset into the buffer, pitches. */
struct boxdim {
	uint64_t off, pitch, slice;
};

/* Where byte (x, y, z) of a box is, as an offset into its buffer. */
static uint64_t box_at(const struct boxdim *b, uint64_t x, uint64_t y, uint64_t z)
{
	return b->off + z * b->slice + y * b->pitch + x;
}

/*
 * UVM_IOC_COPY_3D of a box from src to dst, then ASSERT: dst is its
 * background with exactly the box's rows replaced (the bytes between rows
 * kept), src unchanged; without managed memory no fault, no migration, no
 * vidmem.
 */
static void box_check(struct __test_metadata *_metadata, FIXTURE_DATA(copy) *self,
		      const FIXTURE_VARIANT(copy) *variant, struct boxdim d, struct boxdim s,
		      uint64_t width, uint32_t height, uint32_t depth, uint32_t flags)
{
	bool managed = variant->dst == K_MANAGED || variant->src == K_MANAGED;
	struct uvm_box db = { (uintptr_t)self->dst.p + d.off, d.pitch, d.slice };
	struct uvm_box sb = { (uintptr_t)self->src.p + s.off, s.pitch, s.slice };
	uint64_t fence = 0, completed = 0, y, z;
	struct uvm_counters c;

	UVM_COUNT_DELTA(self->dev.fd, c, {
		ASSERT_EQ(0, uvm_copy_3d(self->dev.fd, db, sb, width, height, depth, variant->ce,
					 flags, &fence));
		if (flags & UVM_COPY_ASYNC) {
			ASSERT_EQ(0, uvm_fence_wait(self->dev.fd, fence, 0, &completed));
			ASSERT_LE(fence, completed);
		}
	});
	ASSERT_LT(self->last_fence, fence);
	self->last_fence = fence;
	for (z = 0; z < depth; z++)
		for (y = 0; y < height; y++)
			memcpy(self->want + box_at(&d, 0, y, z),
			       self->src_data + box_at(&s, 0, y, z), width);
	ASSERT_MBUF(&self->dev, &self->dst, self->want, self->scratch);
	ASSERT_MBUF(&self->dev, &self->src, self->src_data, self->scratch);
	if (!managed) {
		ASSERT_COUNTS_ONLY(c, 0ULL);
		ASSERT_EQ(self->vidmem[0], uvm_vidmem_used(self->dev.fd, 0));
		ASSERT_EQ(self->vidmem[1], uvm_vidmem_used(self->dev.fd, 1));
	}
}

/* 2D: a sub-box with positions, the pitches differing, rows across pages and both blocks */
TEST_F(copy, box_2d)
{
	uint64_t ps = self->ps;
	struct boxdim d = { 3 * 1000 + 17, 3000, 0 }, s = { 5 * 777 + 3, 2777, 0 };

	/* 600 rows reach past each side's 2 MiB boundary (pages 2 and 5) */
	box_check(_metadata, self, variant, d, s, 1111, 600, 1, 0);
	/* rows of whole pages, page aligned on both sides */
	d = (struct boxdim){ ps, 3 * ps, 0 };
	s = (struct boxdim){ 2 * ps, 2 * ps, 0 };
	box_check(_metadata, self, variant, d, s, ps, 150, 1, 0);
	/* one-byte rows */
	d = (struct boxdim){ 1, 4099, 0 };
	s = (struct boxdim){ 4094, 4096, 0 };
	box_check(_metadata, self, variant, d, s, 1, 400, 1, 0);
}

/* 3D: slices of rows, slice pitches beyond the rows, a box at (x, y, z) */
TEST_F(copy, box_3d)
{
	struct boxdim d = { 0, 640, 640 * 70 }, s = { 0, 512, 512 * 90 };

	/* the box at (x 20, y 5, z 1) of each layout: 300 bytes x 60 rows x 20 slices */
	d.off = box_at(&d, 20, 5, 1);
	s.off = box_at(&s, 7, 3, 1);
	box_check(_metadata, self, variant, d, s, 300, 60, 20, 0);
	/* a column: 1 row per slice */
	d = (struct boxdim){ 9, 0, 20000 };
	s = (struct boxdim){ 8, 0, 19999 };
	box_check(_metadata, self, variant, d, s, 100, 1, 100, 0);
}

/*
 * Rows much shorter than a page, many to a page on each side: the engine
 * gets them as operations of several rows; slices that end and begin
 * inside a page, rows of one byte three bytes apart, the pitches different
 */
TEST_F(copy, box_short_rows)
{
	struct boxdim d = { 5, 64, 64 * 37 + 16 }, s = { 4000, 100, 100 * 40 };

	box_check(_metadata, self, variant, d, s, 48, 37, 5, 0);
	d = (struct boxdim){ 4090, 3, 0 };
	s = (struct boxdim){ 1, 2, 0 };
	box_check(_metadata, self, variant, d, s, 1, 5000, 1, 0);
	d = (struct boxdim){ 0, 256, 256 * 300 };
	s = (struct boxdim){ 8, 512, 512 * 300 };
	box_check(_metadata, self, variant, d, s, 256, 300, 2, UVM_COPY_ASYNC);
}

/* Asynchronous boxes complete in order */
TEST_F(copy, box_async)
{
	struct boxdim d = { 100, 8192, 0 }, s = { 0, 4000, 0 };

	box_check(_metadata, self, variant, d, s, 4000, 200, 1, UVM_COPY_ASYNC);
	d.off = 50;
	box_check(_metadata, self, variant, d, s, 700, 250, 1, UVM_COPY_ASYNC);
}

/* A box of one row is a 1D copy */
TEST_F(copy, box_one_row)
{
	struct boxdim d = { 4093, 0, 0 }, s = { 7, 0, 0 };

	box_check(_metadata, self, variant, d, s, self->len - 4093 - 1001, 1, 1, 0);
}

/* A tiny generator for the layouts of batch tests. */
static uint64_t batch_rand(uint64_t *state)
{
	*state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
	return *state >> 33;
}

#define BATCH_COPIES	300

/*
 * UVM_IOC_COPY_BATCH of BATCH_COPIES small copies at random places, one in
 * five a 2D box of a few rows, in one job: dst ends as the copies applied
 * in order (later ones overwrite what earlier ones wrote), src unchanged;
 * without managed memory no fault, no migration, no vidmem.
 */
static void batch_check(struct __test_metadata *_metadata, FIXTURE_DATA(copy) *self,
			const FIXTURE_VARIANT(copy) *variant, uint64_t seed, uint32_t flags)
{
	bool managed = variant->dst == K_MANAGED || variant->src == K_MANAGED;
	struct uvm_copy_op *ops = calloc(BATCH_COPIES, sizeof(*ops));
	uint64_t fence = 0, completed = 0, rs = seed, y;
	uint32_t i, failed = ~0U;
	struct uvm_counters c;

	ASSERT_NE(NULL, ops);
	for (i = 0; i < BATCH_COPIES; i++) {
		struct uvm_copy_op *op = &ops[i];
		uint64_t dspan, sspan, doff, soff;

		op->width = 1 + batch_rand(&rs) % 700;
		op->height = i % 5 ? 1 : 2 + batch_rand(&rs) % 7;
		op->depth = 1;
		op->dst.pitch = op->width + batch_rand(&rs) % 300;
		op->src.pitch = op->width + batch_rand(&rs) % 300;
		dspan = (op->height - 1) * op->dst.pitch + op->width;
		sspan = (op->height - 1) * op->src.pitch + op->width;
		doff = batch_rand(&rs) % (self->len - dspan);
		soff = batch_rand(&rs) % (self->len - sspan);
		op->dst.addr = (uintptr_t)self->dst.p + doff;
		op->src.addr = (uintptr_t)self->src.p + soff;
		for (y = 0; y < op->height; y++)
			memcpy(self->want + doff + y * op->dst.pitch,
			       self->src_data + soff + y * op->src.pitch, op->width);
	}
	UVM_COUNT_DELTA(self->dev.fd, c, {
		ASSERT_EQ(0, uvm_copy_batch(self->dev.fd, ops, BATCH_COPIES, variant->ce, flags,
					    &fence, &failed));
		if (flags & UVM_COPY_ASYNC) {
			ASSERT_EQ(0, uvm_fence_wait(self->dev.fd, fence, 0, &completed));
			ASSERT_LE(fence, completed);
		}
	});
	ASSERT_EQ((uint32_t)BATCH_COPIES, failed);
	ASSERT_LT(self->last_fence, fence);
	self->last_fence = fence;
	ASSERT_MBUF(&self->dev, &self->dst, self->want, self->scratch);
	ASSERT_MBUF(&self->dev, &self->src, self->src_data, self->scratch);
	if (!managed) {
		ASSERT_COUNTS_ONLY(c, 0ULL);
		ASSERT_EQ(self->vidmem[0], uvm_vidmem_used(self->dev.fd, 0));
		ASSERT_EQ(self->vidmem[1], uvm_vidmem_used(self->dev.fd, 1));
	}
	free(ops);
}

/* A batch of small 1D and 2D copies, synchronous, then asynchronous */
TEST_F(copy, batch)
{
	batch_check(_metadata, self, variant, 1, 0);
	batch_check(_metadata, self, variant, 2, UVM_COPY_ASYNC);
}

/*
 * Managed memory as a side of a copy: served as an access of the copying GPU
 */

FIXTURE(copy_managed) {
	struct uvm_dev dev;
	uint64_t ps;
	uint8_t *m;		/* MANAGED_PAGES managed pages at a block start */
	uint8_t *buf;		/* as many pageable bytes */
	uint8_t *ref, *out;
	uint64_t len;
};

#define MANAGED_PAGES	4

FIXTURE_VARIANT(copy_managed) {
	uint32_t ce;
};

/* Copies by GPU 0's engine */
FIXTURE_VARIANT_ADD(copy_managed, ce0) { .ce = 0 };
/* Copies by GPU 1's engine */
FIXTURE_VARIANT_ADD(copy_managed, ce1) { .ce = 1 };

FIXTURE_SETUP(copy_managed)
{
	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, 2);
	self->ps = self->dev.page_size;
	self->len = MANAGED_PAGES * self->ps;
	self->m = uvm_mmap_block_aligned(&self->dev, self->len);
	ASSERT_NE(MAP_FAILED, self->m);
	self->buf = malloc(self->len);
	self->ref = malloc(self->len);
	self->out = malloc(self->len);
	ASSERT_NE(NULL, self->buf);
	ASSERT_NE(NULL, self->ref);
	ASSERT_NE(NULL, self->out);
	uvm_random_fill(self->ref, self->len, 0x3a);
	uvm_random_fill(self->buf, self->len, 0x3b);
}

FIXTURE_TEARDOWN(copy_managed)
{
	if (self->m && self->m != MAP_FAILED)
		munmap(self->m, self->len);
	free(self->buf);
	free(self->ref);
	free(self->out);
	uvm_dev_teardown(&self->dev);
}

/* A destination written by the CPU ends resident on the copying GPU, mapped by nobody */
TEST_F(copy_managed, dst_moves_to_copying_gpu)
{
	uint32_t g = variant->ce;
	struct uvm_counters d;

	memcpy(self->m, self->ref, self->len);
	UVM_COUNT_DELTA(self->dev.fd, d,
			ASSERT_EQ(0, uvm_copy(self->dev.fd, self->m + 100, self->buf, 2 * self->ps,
					      g, 0, NULL)));
	ASSERT_RESIDENCY(&self->dev, self->m, 3, uvm_state(UVM_GPU_BIT(g), 0, 0, 0));
	ASSERT_RESIDENCY(&self->dev, self->m + 3 * self->ps, 1, UVM_STATE_CPU);
	ASSERT_EQ(BLOCK, uvm_vidmem_used(self->dev.fd, g));
	ASSERT_EQ(0ULL, uvm_vidmem_used(self->dev.fd, !g));
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_PAGES_D2H] + d.c[UVM_COUNTER_PAGES_D2D]);
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_GPU_FAULTS] + d.c[UVM_COUNTER_GPU_PAGES_MAPPED]);
	/* The bytes around the copied ones came along. */
	memcpy(self->ref + 100, self->buf, 2 * self->ps);
	UVM_COUNT_DELTA(self->dev.fd, d, ASSERT_BYTES(self->m, self->ref, self->len));
	ASSERT_EQ(3ULL, d.c[UVM_COUNTER_PAGES_D2H]);
}

/* An untouched destination is populated on the copying GPU */
TEST_F(copy_managed, untouched_dst_populated_on_gpu)
{
	uint32_t g = variant->ce;
	struct uvm_counters d;

	UVM_COUNT_DELTA(self->dev.fd, d,
			ASSERT_EQ(0, uvm_copy(self->dev.fd, self->m + self->ps, self->buf, 10, g, 0,
					      NULL)));
	ASSERT_EQ(1ULL, d.c[UVM_COUNTER_PAGES_POPULATED_GPU]);
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_PAGES_H2D]);
	ASSERT_RESIDENCY(&self->dev, self->m + self->ps, 1, uvm_state(UVM_GPU_BIT(g), 0, 0, 0));
	ASSERT_RESIDENCY(&self->dev, self->m, 1, UVM_STATE_NONE);
	ASSERT_EQ(BLOCK, uvm_vidmem_used(self->dev.fd, g));
	ASSERT_BYTES(self->m + self->ps, self->buf, 10);
	ASSERT_EQ(-1, uvm_nonzero_at(self->m + self->ps + 10, self->ps - 10));
}

/* A source is read as the copying GPU would read it: it moves there */
TEST_F(copy_managed, src_moves_to_copying_gpu)
{
	uint32_t g = variant->ce;
	struct uvm_counters d;

	memcpy(self->m, self->ref, self->len);
	UVM_COUNT_DELTA(self->dev.fd, d,
			ASSERT_EQ(0, uvm_copy(self->dev.fd, self->buf, self->m, self->len, g, 0,
					      NULL)));
	ASSERT_BYTES(self->buf, self->ref, self->len);
	ASSERT_EQ((uint64_t)MANAGED_PAGES, d.c[UVM_COUNTER_PAGES_H2D]);
	ASSERT_RESIDENCY(&self->dev, self->m, MANAGED_PAGES, uvm_state(UVM_GPU_BIT(g), 0, 0, 0));
}

/* A read-mostly source gets a copy on the copying GPU and keeps the CPU's */
TEST_F(copy_managed, src_read_mostly_duplicated)
{
	uint32_t g = variant->ce;
	struct uvm_counters d;

	memcpy(self->m, self->ref, self->len);
	ASSERT_EQ(0, uvm_advise(self->dev.fd, self->m, self->len, UVM_ADVICE_SET_READ_MOSTLY,
				UVM_LOC_INVALID));
	UVM_COUNT_DELTA(self->dev.fd, d,
			ASSERT_EQ(0, uvm_copy(self->dev.fd, self->buf, self->m, self->len, g, 0,
					      NULL)));
	ASSERT_BYTES(self->buf, self->ref, self->len);
	ASSERT_EQ((uint64_t)MANAGED_PAGES, d.c[UVM_COUNTER_PAGES_DUPLICATED]);
	ASSERT_RESIDENT(&self->dev, self->m, MANAGED_PAGES, UVM_CPU_BIT | UVM_GPU_BIT(g));
	/* The CPU reads its own copy: no fault, no copy. */
	UVM_COUNT_DELTA(self->dev.fd, d, ASSERT_BYTES(self->m, self->ref, self->len));
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_PAGES_D2H]);
}

/* A destination that prefers the host stays there: no vidmem, no migration */
TEST_F(copy_managed, dst_preferred_host)
{
	uint32_t g = variant->ce;
	struct uvm_counters d;

	memcpy(self->m, self->ref, self->len);
	ASSERT_EQ(0, uvm_advise(self->dev.fd, self->m, self->len,
				UVM_ADVICE_SET_PREFERRED_LOCATION, UVM_LOC_HOST));
	UVM_COUNT_DELTA(self->dev.fd, d,
			ASSERT_EQ(0, uvm_copy(self->dev.fd, self->m + 8, self->buf, self->len - 8,
					      g, 0, NULL)));
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_PAGES_H2D]);
	ASSERT_RESIDENT(&self->dev, self->m, MANAGED_PAGES, UVM_CPU_BIT);
	ASSERT_EQ(0ULL, uvm_vidmem_used(self->dev.fd, 0));
	ASSERT_EQ(0ULL, uvm_vidmem_used(self->dev.fd, 1));
	memcpy(self->ref + 8, self->buf, self->len - 8);
	ASSERT_BYTES(self->m, self->ref, self->len);
}

/* A destination that prefers the other GPU goes there, whichever engine copies */
TEST_F(copy_managed, dst_preferred_other_gpu)
{
	uint32_t g = variant->ce, o = !variant->ce;

	ASSERT_EQ(0, uvm_advise(self->dev.fd, self->m, self->len,
				UVM_ADVICE_SET_PREFERRED_LOCATION, UVM_LOC_GPU(o)));
	ASSERT_EQ(0, uvm_copy(self->dev.fd, self->m, self->buf, self->len, g, 0, NULL));
	ASSERT_RESIDENT(&self->dev, self->m, MANAGED_PAGES, UVM_GPU_BIT(o));
	ASSERT_EQ(BLOCK, uvm_vidmem_used(self->dev.fd, o));
	ASSERT_EQ(0ULL, uvm_vidmem_used(self->dev.fd, g));
	ASSERT_BYTES(self->m, self->buf, self->len);
}

/* The other GPU, accessed-by, is mapped to the destination where it now lives */
TEST_F(copy_managed, dst_accessed_by_other_gpu)
{
	uint32_t g = variant->ce, o = !variant->ce;
	uint64_t faults;

	ASSERT_EQ(0, uvm_advise(self->dev.fd, self->m, self->len, UVM_ADVICE_SET_ACCESSED_BY,
				UVM_LOC_GPU(o)));
	ASSERT_EQ(0, uvm_copy(self->dev.fd, self->m, self->buf, self->len, g, 0, NULL));
	ASSERT_RESIDENCY(&self->dev, self->m, MANAGED_PAGES,
			 uvm_state(UVM_GPU_BIT(g), UVM_GPU_BIT(o), UVM_GPU_BIT(o), UVM_GPU_BIT(o)));
	ASSERT_EQ(0, gpu_load(self->dev.fd, o, self->m, self->len, self->out, &faults));
	ASSERT_EQ(0ULL, faults);
	ASSERT_BYTES(self->out, self->buf, self->len);
}

/*
 * A copy-engine write to read-mostly memory drops every duplicate: the CPU
 * and both GPUs read the new bytes
 */
TEST_F(copy_managed, write_drops_duplicates)
{
	uint32_t g = variant->ce, o = !variant->ce;
	uint64_t n = self->len - 30;

	memcpy(self->m, self->ref, self->len);
	ASSERT_EQ(0, uvm_advise(self->dev.fd, self->m, self->len, UVM_ADVICE_SET_READ_MOSTLY,
				UVM_LOC_INVALID));
	ASSERT_EQ(0, gpu_load(self->dev.fd, o, self->m, self->len, self->out, NULL));
	ASSERT_EQ(0, gpu_load(self->dev.fd, g, self->m, self->len, self->out, NULL));
	ASSERT_RESIDENT(&self->dev, self->m, MANAGED_PAGES,
			UVM_CPU_BIT | UVM_GPU_BIT(0) | UVM_GPU_BIT(1));
	ASSERT_EQ(0, uvm_memset(self->dev.fd, self->m + 10, n, 0x77, 1, g, 0, NULL));
	memset(self->ref + 10, 0x77, n);
	ASSERT_RESIDENT(&self->dev, self->m, MANAGED_PAGES, UVM_GPU_BIT(g));
	ASSERT_EQ(0, gpu_load(self->dev.fd, o, self->m, self->len, self->out, NULL));
	ASSERT_BYTES(self->out, self->ref, self->len);
	ASSERT_EQ(0, gpu_load(self->dev.fd, g, self->m, self->len, self->out, NULL));
	ASSERT_BYTES(self->out, self->ref, self->len);
	ASSERT_BYTES(self->m, self->ref, self->len);
}

/* Sides resident on the GPUs: the source stays, the destination moves GPU to GPU */
TEST_F(copy_managed, gpu_resident_sides)
{
	uint32_t g = variant->ce, o = !variant->ce;
	uint64_t half = self->len / 2;
	struct uvm_counters d;

	ASSERT_EQ(0, gpu_store(self->dev.fd, g, self->m, half, self->ref, NULL));
	ASSERT_EQ(0, gpu_store(self->dev.fd, o, self->m + half, half, self->ref + half, NULL));
	UVM_COUNT_DELTA(self->dev.fd, d,
			ASSERT_EQ(0, uvm_copy(self->dev.fd, self->m + half + 1, self->m + 2,
					      half - 8, g, 0, NULL)));
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_PAGES_H2D] + d.c[UVM_COUNTER_PAGES_D2H]);
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_GPU_FAULTS]);
	ASSERT_RESIDENT(&self->dev, self->m, MANAGED_PAGES, UVM_GPU_BIT(g));
	ASSERT_EQ(BLOCK, uvm_vidmem_used(self->dev.fd, g));
	memmove(self->ref + half + 1, self->ref + 2, half - 8);
	ASSERT_EQ(0, gpu_load(self->dev.fd, o, self->m, self->len, self->out, NULL));
	ASSERT_BYTES(self->out, self->ref, self->len);
}

/* Both sides in one block, not overlapping, unaligned */
TEST_F(copy_managed, same_block)
{
	uint64_t half = self->len / 2;

	memcpy(self->m, self->ref, self->len);
	ASSERT_EQ(0, uvm_copy(self->dev.fd, self->m + half + 3, self->m + 1, half - 5,
			      variant->ce, 0, NULL));
	memmove(self->ref + half + 3, self->ref + 1, half - 5);
	ASSERT_BYTES(self->m, self->ref, self->len);
}

/* Identical sides are allowed: the bytes stay, the pages move as a write would move them */
TEST_F(copy_managed, identical_sides)
{
	uint32_t g = variant->ce;

	memcpy(self->m, self->ref, self->len);
	ASSERT_EQ(0, uvm_copy(self->dev.fd, self->m + 5, self->m + 5, self->len - 10, g, 0, NULL));
	ASSERT_RESIDENCY(&self->dev, self->m, MANAGED_PAGES, uvm_state(UVM_GPU_BIT(g), 0, 0, 0));
	ASSERT_BYTES(self->m, self->ref, self->len);
}

/* Identical sides of device, pageable and registered memory: no change */
TEST_F(copy_managed, identical_sides_other_kinds)
{
	uint8_t *d = uvm_mmap_device(&self->dev, !variant->ce, self->len);
	uint8_t *h = aligned_alloc(self->ps, self->len);

	ASSERT_NE(MAP_FAILED, d);
	ASSERT_NE(NULL, h);
	ASSERT_EQ(0, gpu_store(self->dev.fd, 0, d, self->len, self->ref, NULL));
	ASSERT_EQ(0, uvm_copy(self->dev.fd, d + 1, d + 1, self->len - 1, variant->ce, 0, NULL));
	ASSERT_EQ(0, gpu_load(self->dev.fd, 1, d, self->len, self->out, NULL));
	ASSERT_BYTES(self->out, self->ref, self->len);
	ASSERT_EQ(0, uvm_copy(self->dev.fd, self->buf, self->buf, self->len, variant->ce, 0, NULL));
	memcpy(h, self->ref, self->len);
	ASSERT_EQ(0, uvm_host_register(self->dev.fd, h, self->len, 0, NULL));
	ASSERT_EQ(0, uvm_copy(self->dev.fd, h, h, self->len, variant->ce, 0, NULL));
	ASSERT_BYTES(h, self->ref, self->len);
	ASSERT_EQ(0, uvm_host_unregister(self->dev.fd, h));
	ASSERT_EQ(0, munmap(d, self->len));
	free(h);
}

/*
 * A strided copy serves the managed pages its rows touch, not those between
 * them: rows on every other page of a resident-on-CPU range move only their
 * pages to the copying GPU, on either side.
 */
TEST_F(copy_managed, box_serves_rows_only)
{
	uint32_t g = variant->ce;
	const uint64_t ps = self->ps, n = 16;
	uint8_t *m = uvm_mmap_block_aligned(&self->dev, n * ps);
	uint8_t *h = malloc(n * ps), *ref = malloc(n * ps);
	struct uvm_box mb = { 0, 2 * ps, 0 }, hb = { 0, 64, 0 };
	uint64_t y;

	ASSERT_NE(MAP_FAILED, m);
	ASSERT_NE(NULL, h);
	ASSERT_NE(NULL, ref);
	uvm_random_fill(ref, n * ps, 0x77);
	uvm_random_fill(h, n * ps, 0x78);
	memcpy(m, ref, n * ps);
	/* 8 rows of 64 bytes into pages 0, 2, ..., 14 */
	mb.addr = (uintptr_t)m + 100;
	hb.addr = (uintptr_t)h;
	ASSERT_EQ(0, uvm_copy_3d(self->dev.fd, mb, hb, 64, n / 2, 1, g, 0, NULL));
	for (y = 0; y < n; y++)
		ASSERT_RESIDENCY(&self->dev, m + y * ps, 1,
				 y % 2 ? UVM_STATE_CPU : uvm_state(UVM_GPU_BIT(g), 0, 0, 0));
	for (y = 0; y < n / 2; y++)
		memcpy(ref + 100 + y * 2 * ps, h + y * 64, 64);
	ASSERT_BYTES(m, ref, n * ps);
	/* the other way: reading rows on odd pages moves those (now on the CPU) */
	mb.addr = (uintptr_t)m + ps;
	ASSERT_EQ(0, uvm_copy_3d(self->dev.fd, hb, mb, 64, n / 2, 1, g, 0, NULL));
	for (y = 0; y < n; y++)
		ASSERT_RESIDENCY(&self->dev, m + y * ps, 1,
				 y % 2 ? uvm_state(UVM_GPU_BIT(g), 0, 0, 0) : UVM_STATE_CPU);
	for (y = 0; y < n / 2; y++)
		ASSERT_BYTES(h + y * 64, ref + ps + y * 2 * ps, 64);
	munmap(m, n * ps);
	free(h);
	free(ref);
}

/*
 * Fences: copies and memsets are ordered with MIGRATE batches
 */

FIXTURE(fence) {
	struct uvm_dev dev;
	uint64_t ps;
	uint8_t *m;		/* FENCE_LEN managed bytes */
	uint8_t *d;		/* FENCE_LEN bytes of GPU 1's memory */
	uint8_t *a, *b;		/* FENCE_LEN pageable bytes each */
	uint8_t *ref, *out;
};

#define FENCE_LEN	(4 * UVM_MIB)

FIXTURE_SETUP(fence)
{
	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, 2);
	self->ps = self->dev.page_size;
	self->m = uvm_mmap_block_aligned(&self->dev, FENCE_LEN);
	self->d = uvm_mmap_device_skewed(&self->dev, 1, FENCE_LEN, 0);
	ASSERT_NE(MAP_FAILED, self->m);
	ASSERT_NE(MAP_FAILED, self->d);
	self->a = malloc(FENCE_LEN);
	self->b = malloc(FENCE_LEN);
	self->ref = malloc(FENCE_LEN);
	self->out = malloc(FENCE_LEN);
	ASSERT_NE(NULL, self->a);
	ASSERT_NE(NULL, self->b);
	ASSERT_NE(NULL, self->ref);
	ASSERT_NE(NULL, self->out);
	uvm_random_fill(self->ref, FENCE_LEN, 0xfe);
	memset(self->a, 0x11, FENCE_LEN);
	memset(self->b, 0x22, FENCE_LEN);
}

FIXTURE_TEARDOWN(fence)
{
	munmap(self->m, FENCE_LEN);
	if (self->d)
		munmap(self->d, FENCE_LEN);
	free(self->a);
	free(self->b);
	free(self->ref);
	free(self->out);
	uvm_dev_teardown(&self->dev);
}

/*
 * copy in, prefetch, copy out, discard, copy out: each sees the one before
 * (one VA space's fences complete in order)
 */
TEST_F(fence, copies_ordered_with_migrations)
{
	uint64_t f[5], completed, i;
	struct uvm_counters d;

	memcpy(self->a, self->ref, FENCE_LEN);
	UVM_COUNT_DELTA(self->dev.fd, d, {
		ASSERT_EQ(0, uvm_copy(self->dev.fd, self->m, self->a, FENCE_LEN, 0, UVM_COPY_ASYNC,
				      &f[0]));
		ASSERT_EQ(0, uvm_migrate1(self->dev.fd, UVM_MIGRATE_PREFETCH, UVM_MIGRATE_ASYNC,
					  self->m, FENCE_LEN, UVM_LOC_GPU(1), &f[1]));
		ASSERT_EQ(0, uvm_copy(self->dev.fd, self->b, self->m, FENCE_LEN, 1, UVM_COPY_ASYNC,
				      &f[2]));
		ASSERT_EQ(0, uvm_migrate1(self->dev.fd, UVM_MIGRATE_DISCARD, UVM_MIGRATE_ASYNC,
					  self->m, FENCE_LEN, UVM_LOC_INVALID, &f[3]));
		ASSERT_EQ(0, uvm_copy(self->dev.fd, self->a, self->m, FENCE_LEN, 0, UVM_COPY_ASYNC,
				      &f[4]));
		ASSERT_EQ(0, uvm_fence_wait(self->dev.fd, f[4], 0, &completed));
	});
	for (i = 1; i < 5; i++) {
		ASSERT_EQ(f[i - 1] + 1, f[i]);
	}
	ASSERT_EQ(f[4], completed);
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, uvm_fence_wait(self->dev.fd, f[i], UVM_FENCE_WAIT_POLL, NULL));
	}
	ASSERT_BYTES(self->b, self->ref, FENCE_LEN);
	ASSERT_EQ(-1, uvm_nonzero_at(self->a, FENCE_LEN));
	ASSERT_EQ((uint64_t)FENCE_LEN / self->ps, d.c[UVM_COUNTER_PAGES_DISCARDED]);
	/* The last copy read zeros populated on GPU 0. */
	ASSERT_RESIDENT(&self->dev, self->m, 8, UVM_GPU_BIT(0));
}

/* memset, copy out, memset again, copy out: the first copy saw the first memset only */
TEST_F(fence, memsets_ordered_with_copies)
{
	uint64_t f[4], completed;
	uint32_t *w;
	uint64_t i;

	ASSERT_EQ(0, uvm_memset(self->dev.fd, self->d, FENCE_LEN / 4, 0x01020304, 4, 0,
				UVM_COPY_ASYNC, &f[0]));
	ASSERT_EQ(0, uvm_copy(self->dev.fd, self->a, self->d, FENCE_LEN, 1, UVM_COPY_ASYNC, &f[1]));
	ASSERT_EQ(0, uvm_memset(self->dev.fd, self->d + 2, FENCE_LEN / 2 - 1, 0xabcd, 2, 1,
				UVM_COPY_ASYNC, &f[2]));
	ASSERT_EQ(0, uvm_copy(self->dev.fd, self->b, self->d, FENCE_LEN, 0, UVM_COPY_ASYNC, &f[3]));
	ASSERT_EQ(0, uvm_fence_wait(self->dev.fd, 0, 0, &completed));
	ASSERT_EQ(f[3], completed);
	ASSERT_EQ(f[0] + 3, f[3]);
	w = (uint32_t *)self->a;
	for (i = 0; i < FENCE_LEN / 4; i++) {
		ASSERT_EQ(0x01020304U, w[i]) TH_LOG("word %llu", (unsigned long long)i);
	}
	w = (uint32_t *)self->b;
	ASSERT_EQ(0xabcd0304U, w[0]);
	for (i = 1; i < FENCE_LEN / 4; i++) {
		ASSERT_EQ(0xabcdabcdU, w[i]) TH_LOG("word %llu", (unsigned long long)i);
	}
}

/* Synchronous copies and memsets take fences too; a refused one takes none */
TEST_F(fence, sync_ops_take_fences)
{
	uint64_t f[4], completed;

	ASSERT_EQ(0, uvm_copy(self->dev.fd, self->d, self->a, self->ps, 0, 0, &f[0]));
	ASSERT_EQ(0, uvm_memset(self->dev.fd, self->m, 16, 7, 1, 1, 0, &f[1]));
	ASSERT_EQ(-EINVAL, uvm_copy(self->dev.fd, self->a, self->a + 1, 16, 0, 0, NULL));
	ASSERT_EQ(-ENODEV, uvm_memset(self->dev.fd, self->a, 1, 0, 1, 99, 0, NULL));
	ASSERT_EQ(-EFAULT, uvm_copy(self->dev.fd, self->a, uvm_unmapped_address(self->ps), 16, 0,
				    0, NULL));
	ASSERT_EQ(0, uvm_migrate1(self->dev.fd, UVM_MIGRATE_PREFETCH, 0, self->m, self->ps,
				  UVM_LOC_HOST, &f[2]));
	ASSERT_EQ(0, uvm_copy(self->dev.fd, self->b, self->d, self->ps, 1, 0, &f[3]));
	ASSERT_EQ(f[0] + 1, f[1]);
	ASSERT_EQ(f[1] + 1, f[2]);
	ASSERT_EQ(f[2] + 1, f[3]);
	ASSERT_EQ(0, uvm_fence_wait(self->dev.fd, f[3], UVM_FENCE_WAIT_POLL, &completed));
	ASSERT_EQ(f[3], completed);
	ASSERT_EQ(-EINVAL, uvm_fence_wait(self->dev.fd, f[3] + 1, UVM_FENCE_WAIT_POLL, NULL));
	ASSERT_BYTES(self->b, self->a, self->ps);
	ASSERT_EQ(7, self->m[15]);
	ASSERT_EQ(0, self->m[16]);
}

/*
 * An async copy queued behind a long batch races the munmap of its source:
 * it either ran first (the bytes arrived) or fails with EFAULT, reported
 * once, having written nothing (6.1's rwsem lets the queue's reader overtake
 * the waiting munmap, so either order is legal); pins and vidmem come back
 */
TEST_F(fence, copy_racing_munmap_of_source)
{
	uint8_t *big = uvm_mmap_block_aligned(&self->dev, 2 * FENCE_LEN);
	struct uvm_range r[2] = {
		{ .address = (uintptr_t)big, .length = 2 * FENCE_LEN },
		{ .address = (uintptr_t)big, .length = 2 * FENCE_LEN },
	};
	struct uvm_location locs[2] = { UVM_LOC_GPU(0), UVM_LOC_HOST };
	uint64_t starts[2] = { 0, 1 }, fcopy, completed;
	int64_t pins = uvm_pins_outstanding();
	struct uvm_ioc_migrate out;
	int ret;

	ASSERT_NE(MAP_FAILED, big);
	memset(big, 0x42, 2 * FENCE_LEN);
	ASSERT_EQ(0, uvm_memset(self->dev.fd, self->d, FENCE_LEN, 0x33, 1, 1, 0, NULL));
	ASSERT_EQ(0, uvm_migrate(self->dev.fd, UVM_MIGRATE_PREFETCH, UVM_MIGRATE_ASYNC, r, 2,
				 locs, starts, 2, &out));
	ASSERT_EQ(0, uvm_copy(self->dev.fd, self->a, self->d, FENCE_LEN, 0, UVM_COPY_ASYNC,
			      &fcopy));
	ASSERT_EQ(out.fence + 1, fcopy);
	ASSERT_EQ(0, munmap(self->d, FENCE_LEN));
	self->d = NULL;
	ret = uvm_fence_wait(self->dev.fd, fcopy, 0, &completed);
	ASSERT_EQ(fcopy, completed);
	memset(self->out, ret ? 0x11 : 0x33, FENCE_LEN);
	if (ret) {
		ASSERT_EQ(-EFAULT, ret);
		/* Reported once. */
		ASSERT_EQ(0, uvm_fence_wait(self->dev.fd, fcopy, 0, NULL));
	}
	TH_LOG("the copy %s", ret ? "failed: the munmap came first" : "ran first");
	ASSERT_BYTES(self->a, self->out, FENCE_LEN);
	ASSERT_EQ(0, uvm_fence_wait(self->dev.fd, 0, 0, NULL));
	if (pins != INT64_MIN) {
		ASSERT_EQ(pins, uvm_pins_wait(pins));
	}
	ASSERT_EQ(0ULL, uvm_vidmem_wait(self->dev.fd, 1, 0));
	ASSERT_EQ(0, munmap(big, 2 * FENCE_LEN));
}

/* Pageable sides are pinned only while a copy runs, refused ones not at all */
TEST_F(fence, pageable_pins_released)
{
	int64_t pins = uvm_pins_outstanding();
	uint64_t f;

	if (pins == INT64_MIN)
		UVM_SKIP("no /sys/class/misc/uvm/pinned_pages");
	ASSERT_EQ(0, uvm_copy(self->dev.fd, self->b, self->a, FENCE_LEN, 0, 0, NULL));
	ASSERT_EQ(pins, uvm_pins_outstanding());
	ASSERT_EQ(0, uvm_copy(self->dev.fd, self->b + 1, self->d, FENCE_LEN - 1, 1, UVM_COPY_ASYNC,
			      &f));
	ASSERT_EQ(0, uvm_memset(self->dev.fd, self->a + 3, 100, 9, 1, 0, UVM_COPY_ASYNC, &f));
	ASSERT_EQ(0, uvm_fence_wait(self->dev.fd, f, 0, NULL));
	ASSERT_EQ(pins, uvm_pins_outstanding());
	/* The destination pins, then the source cannot be pinned. */
	ASSERT_EQ(-EFAULT, uvm_copy(self->dev.fd, self->b, uvm_unmapped_address(self->ps),
				    self->ps, 0, 0, NULL));
	ASSERT_EQ(pins, uvm_pins_outstanding());
}

/*
 * Refused copies and memsets: one variant per rule, run against "arenas" of
 * ARENA_PAGES pages each, contiguous from a 2 MiB boundary:
 * [pageable][managed][device][registered][registered read-only]
 * [read-only mapping][unmapped].  The registered arena's last 8 bytes are
 * not registered.
 */

enum arena { A_PAGEABLE, A_MANAGED, A_DEVICE, A_HOST, A_HOST_RO, A_RO_MAP, A_UNMAPPED,
	     A_COUNT, A_ABS /* an absolute address */ };

#define ARENA_PAGES	4
#define ARENA_LEN	(ARENA_PAGES * 4096ULL)
#define GPU_COUNT_IDX	0xfffffffeU	/* stands for num_gpus */

/**
 * struct arenas - the memory refused operations are aimed at
 * @base:	the first arena
 * @snap:	what every arena but the unmapped one holds
 * @out:	ARENA_LEN bytes of scratch
 * @gpu:	owner of the device arena
 */
struct arenas {
	uint8_t *base;
	uint8_t *snap;
	uint8_t *out;
	uint32_t gpu;
};

static uint8_t *arena(const struct arenas *ar, int which)
{
	return ar->base + which * ARENA_LEN;
}

/* Address @off bytes into @which (negative: from its end), or @abs for A_ABS. */
static uint64_t arena_addr(const struct arenas *ar, int which, int64_t off, uint64_t abs)
{
	if (which == A_ABS)
		return abs;
	return (uintptr_t)arena(ar, which) + (off < 0 ? ARENA_LEN : 0) + off;
}

#define arenas_setup(dev, ar, gpu) __arenas_setup(_metadata, dev, ar, gpu)

static void __arenas_setup(struct __test_metadata *_metadata, const struct uvm_dev *dev,
			   struct arenas *ar, uint32_t gpu)
{
	void *p;

	ASSERT_EQ(4096ULL, dev->page_size);
	ar->gpu = gpu;
	ar->base = uvm_map_skewed(A_COUNT * ARENA_LEN, 0, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ar->base);
	p = mmap(arena(ar, A_MANAGED), ARENA_LEN, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
		 dev->fd, UVM_MMAP_MANAGED);
	ASSERT_EQ(arena(ar, A_MANAGED), p);
	p = mmap(arena(ar, A_DEVICE), ARENA_LEN, PROT_NONE, MAP_SHARED | MAP_FIXED, dev->fd,
		 UVM_MMAP_DEVICE(gpu));
	ASSERT_EQ(arena(ar, A_DEVICE), p);
	ASSERT_EQ(0, munmap(arena(ar, A_UNMAPPED), ARENA_LEN));
	ar->snap = malloc(A_COUNT * ARENA_LEN);
	ar->out = malloc(ARENA_LEN);
	ASSERT_NE(NULL, ar->snap);
	ASSERT_NE(NULL, ar->out);
	uvm_random_fill(ar->snap, A_COUNT * ARENA_LEN, 0xa7e4a + gpu);
	memcpy(ar->base, ar->snap, 2 * ARENA_LEN);
	memcpy(arena(ar, A_HOST), ar->snap + A_HOST * ARENA_LEN, 3 * ARENA_LEN);
	ASSERT_EQ(0, gpu_store(dev->fd, gpu, arena(ar, A_DEVICE), ARENA_LEN,
			       ar->snap + A_DEVICE * ARENA_LEN, NULL));
	ASSERT_EQ(0, mprotect(arena(ar, A_RO_MAP), ARENA_LEN, PROT_READ));
	ASSERT_EQ(0, uvm_host_register(dev->fd, arena(ar, A_HOST), ARENA_LEN - 8, 0, NULL));
	ASSERT_EQ(0, uvm_host_register(dev->fd, arena(ar, A_HOST_RO), ARENA_LEN,
				       UVM_HOST_REGISTER_READ_ONLY, NULL));
}

static void arenas_teardown(struct arenas *ar)
{
	if (ar->base && ar->base != MAP_FAILED)
		munmap(ar->base, A_COUNT * ARENA_LEN);
	free(ar->snap);
	free(ar->out);
}

/* ASSERT that every arena holds what it held, the device one read by the other GPU. */
#define ASSERT_ARENAS_UNCHANGED(dev, ar) do {						ASSERT_BYTES((ar)->base, (ar)->snap, 2 * ARENA_LEN);				ASSERT_BYTES(arena((ar), A_HOST), (ar)->snap + A_HOST * ARENA_LEN,			     3 * ARENA_LEN);							ASSERT_EQ(0, gpu_load((dev)->fd, !(ar)->gpu, arena((ar), A_DEVICE),				      ARENA_LEN, (ar)->out, NULL));				ASSERT_BYTES((ar)->out, (ar)->snap + A_DEVICE * ARENA_LEN, ARENA_LEN);	} while (0)

FIXTURE(copy_bad) {
	struct uvm_dev dev;
	struct arenas ar;
};

FIXTURE_VARIANT(copy_bad) {
	int dst_arena;
	int64_t dst_off;	/* bytes; negative: from the arena's end */
	int src_arena;
	int64_t src_off;
	uint64_t length;
	uint64_t dst_abs, src_abs;
	uint32_t flags;
	uint32_t gpu;
	uint64_t reserved0;
	int err;
};

#define PS4K	4096

/* Length 0 */
FIXTURE_VARIANT_ADD(copy_bad, length_0) {
	.dst_arena = A_PAGEABLE, .src_arena = A_MANAGED, .length = 0, .err = EINVAL };
/* One byte more than UVM_COPY_MAX_BYTES */
FIXTURE_VARIANT_ADD(copy_bad, length_max_plus_1) {
	.dst_arena = A_PAGEABLE, .src_arena = A_MANAGED, .length = UVM_COPY_MAX_BYTES + 1,
	.err = EINVAL };
/*
 * UVM_COPY_MAX_BYTES passes the length check; the unmapped destination
 * fails to pin (the source, unmapped too, lies in no allocation: every side
 * is classified before any is pinned)
 */
FIXTURE_VARIANT_ADD(copy_bad, length_max_unmapped) {
	.dst_arena = A_ABS, .dst_abs = 0x200000000000ULL, .src_arena = A_ABS,
	.src_abs = 0x300000000000ULL, .length = UVM_COPY_MAX_BYTES, .err = EFAULT };
/* An unknown flag */
FIXTURE_VARIANT_ADD(copy_bad, flag_bit1) {
	.dst_arena = A_PAGEABLE, .src_arena = A_MANAGED, .length = 64, .flags = 1U << 1,
	.err = EINVAL };
/* Non-zero reserved */
FIXTURE_VARIANT_ADD(copy_bad, reserved) {
	.dst_arena = A_PAGEABLE, .src_arena = A_MANAGED, .length = 64, .reserved0 = 1,
	.err = EINVAL };
/* GPU num_gpus */
FIXTURE_VARIANT_ADD(copy_bad, gpu_count) {
	.dst_arena = A_PAGEABLE, .src_arena = A_MANAGED, .length = 64, .gpu = GPU_COUNT_IDX,
	.err = ENODEV };
/* GPU 0xffffffff */
FIXTURE_VARIANT_ADD(copy_bad, gpu_max) {
	.dst_arena = A_PAGEABLE, .src_arena = A_MANAGED, .length = 64, .gpu = 0xffffffffU,
	.err = ENODEV };
/* The destination wraps around the address space */
FIXTURE_VARIANT_ADD(copy_bad, dst_wraps) {
	.dst_arena = A_ABS, .dst_abs = ~0ULL - 63, .src_arena = A_PAGEABLE, .length = 128,
	.err = EINVAL };
/* The source wraps around the address space */
FIXTURE_VARIANT_ADD(copy_bad, src_wraps) {
	.dst_arena = A_PAGEABLE, .src_arena = A_ABS, .src_abs = ~0ULL - 63, .length = 128,
	.err = EINVAL };
/* dst one byte after src, overlapping (pageable) */
FIXTURE_VARIANT_ADD(copy_bad, overlap_pageable) {
	.dst_arena = A_PAGEABLE, .dst_off = 1, .src_arena = A_PAGEABLE, .length = 2 * PS4K,
	.err = EINVAL };
/* src one byte after dst, overlapping (managed) */
FIXTURE_VARIANT_ADD(copy_bad, overlap_managed) {
	.dst_arena = A_MANAGED, .src_arena = A_MANAGED, .src_off = 1, .length = 100,
	.err = EINVAL };
/* dst's first byte is src's last (device) */
FIXTURE_VARIANT_ADD(copy_bad, overlap_device_one_byte) {
	.dst_arena = A_DEVICE, .dst_off = 99, .src_arena = A_DEVICE, .length = 100,
	.err = EINVAL };
/* The source starts in device memory and runs past its end */
FIXTURE_VARIANT_ADD(copy_bad, src_partly_device) {
	.dst_arena = A_PAGEABLE, .src_arena = A_DEVICE, .src_off = -100, .length = 200,
	.err = EINVAL };
/* The destination starts in pageable memory and ends in managed memory */
FIXTURE_VARIANT_ADD(copy_bad, dst_pageable_into_managed) {
	.dst_arena = A_PAGEABLE, .dst_off = -8, .src_arena = A_DEVICE, .length = 16,
	.err = EINVAL };
/* The destination starts in managed memory and ends in device memory */
FIXTURE_VARIANT_ADD(copy_bad, dst_managed_into_device) {
	.dst_arena = A_MANAGED, .dst_off = -8, .src_arena = A_PAGEABLE, .length = 16,
	.err = EINVAL };
/* The source runs past the registered bytes into the rest of their page */
FIXTURE_VARIANT_ADD(copy_bad, src_past_registration) {
	.dst_arena = A_PAGEABLE, .src_arena = A_HOST, .src_off = -16, .length = 16,
	.err = EINVAL };
/* The source is not mapped */
FIXTURE_VARIANT_ADD(copy_bad, src_unmapped) {
	.dst_arena = A_MANAGED, .src_arena = A_UNMAPPED, .length = 64, .err = EFAULT };
/* The destination is not mapped */
FIXTURE_VARIANT_ADD(copy_bad, dst_unmapped) {
	.dst_arena = A_UNMAPPED, .src_arena = A_DEVICE, .length = 64, .err = EFAULT };
/* The source runs from a read-only mapping into unmapped memory */
FIXTURE_VARIANT_ADD(copy_bad, src_into_unmapped) {
	.dst_arena = A_PAGEABLE, .src_arena = A_RO_MAP, .src_off = -PS4K, .length = 2 * PS4K,
	.err = EFAULT };
/* The destination is a read-only mapping */
FIXTURE_VARIANT_ADD(copy_bad, dst_read_only_mapping) {
	.dst_arena = A_RO_MAP, .src_arena = A_PAGEABLE, .length = 64, .err = EFAULT };
/* The destination is registered read-only */
FIXTURE_VARIANT_ADD(copy_bad, dst_read_only_registered) {
	.dst_arena = A_HOST_RO, .src_arena = A_PAGEABLE, .length = 64, .err = EPERM };

FIXTURE_SETUP(copy_bad)
{
	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, 2);
	arenas_setup(&self->dev, &self->ar, 0);
}

FIXTURE_TEARDOWN(copy_bad)
{
	uvm_dev_teardown(&self->dev);
	arenas_teardown(&self->ar);
}

/* The copy fails with the variant's errno; no byte, counter, pin, vidmem or fence changed */
TEST_F(copy_bad, refused)
{
	const struct arenas *ar = &self->ar;
	struct uvm_ioc_copy args = {
		.dst = arena_addr(ar, variant->dst_arena, variant->dst_off, variant->dst_abs),
		.src = arena_addr(ar, variant->src_arena, variant->src_off, variant->src_abs),
		.length = variant->length,
		.gpu_index = variant->gpu == GPU_COUNT_IDX ? self->dev.num_gpus : variant->gpu,
		.flags = variant->flags,
		.reserved = { variant->reserved0 },
	};
	int64_t pins = uvm_pins_outstanding();
	uint64_t before = 0, after = 0;
	struct uvm_counters d;

	/* A copy that works, inside the pageable arena, for the fence. */
	ASSERT_EQ(0, uvm_copy(self->dev.fd, ar->base, ar->base + 64, 8, 0, 0, &before));
	memcpy(ar->snap, ar->snap + 64, 8);
	UVM_COUNT_DELTA(self->dev.fd, d,
			ASSERT_EQ(-variant->err, uvm_ioctl(self->dev.fd, UVM_IOC_COPY, &args)));
	ASSERT_COUNTS_ONLY(d, 0ULL);
	ASSERT_EQ(pins, uvm_pins_outstanding());
	ASSERT_EQ(0, uvm_copy(self->dev.fd, ar->base, ar->base + 64, 8, 0, 0, &after));
	ASSERT_EQ(before + 1, after);
	ASSERT_ARENAS_UNCHANGED(&self->dev, ar);
	ASSERT_EQ(BLOCK, uvm_vidmem_used(self->dev.fd, 0));
	ASSERT_EQ(0ULL, uvm_vidmem_used(self->dev.fd, 1));
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

/*
 * Strided copies and sets refused: each variant one bad argument, checked
 * before anything runs; no fence is taken and nothing changes.
 */

FIXTURE(box_bad) {
	struct uvm_dev dev;
	uint8_t *pg, *m, *d;	/* 4 MiB each: pageable, managed, device 0 */
	uint8_t *snap;
};

FIXTURE_VARIANT(box_bad) {
	bool set;			/* UVM_IOC_MEMSET_3D, else UVM_IOC_COPY_3D */
	int dst_kind, src_kind;		/* K_*: pg, m, d above */
	uint64_t doff, soff;		/* byte offsets into them */
	uint64_t dpitch, spitch, dslice, sslice;
	uint64_t width;
	uint32_t height, depth;
	uint32_t esize, value, flags, gpu;
	uint64_t reserved;
	int err;
};

/* Each variant is BOX_OK, a valid copy, with the fields it breaks overridden. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
#define BOX_OK	.dst_kind = K_PAGEABLE, .src_kind = K_MANAGED, .width = 64, .height = 4, \
		.depth = 1, .dpitch = 128, .spitch = 128, .esize = 1
/* width 0 */
FIXTURE_VARIANT_ADD(box_bad, width_0) { BOX_OK, .width = 0, .err = EINVAL };
/* height 0 */
FIXTURE_VARIANT_ADD(box_bad, height_0) { BOX_OK, .height = 0, .err = EINVAL };
/* depth 0 */
FIXTURE_VARIANT_ADD(box_bad, depth_0) { BOX_OK, .depth = 0, .err = EINVAL };
/* a destination pitch narrower than a row */
FIXTURE_VARIANT_ADD(box_bad, dst_pitch_narrow) { BOX_OK, .dpitch = 63, .err = EINVAL };
/* a source pitch narrower than a row */
FIXTURE_VARIANT_ADD(box_bad, src_pitch_narrow) { BOX_OK, .spitch = 0, .err = EINVAL };
/* slices that overlap the previous slice's rows */
FIXTURE_VARIANT_ADD(box_bad, slice_overlaps) {
	BOX_OK, .depth = 2, .dslice = 3 * 128 + 63, .sslice = 4 * 128, .err = EINVAL };
/* more than UVM_COPY_MAX_BYTES in the box */
FIXTURE_VARIANT_ADD(box_bad, too_many_bytes) {
	BOX_OK, .width = 1ULL << 20, .height = 4097, .dpitch = 1ULL << 20, .spitch = 1ULL << 20,
	.err = EINVAL };
/* a span over UVM_COPY_MAX_SPAN */
FIXTURE_VARIANT_ADD(box_bad, span_too_long) {
	BOX_OK, .height = 3, .dpitch = 1ULL << 35, .err = EINVAL };
/* width x height overflows 64 bits */
FIXTURE_VARIANT_ADD(box_bad, size_overflows) {
	BOX_OK, .width = 1ULL << 40, .height = 1U << 30, .dpitch = 1ULL << 40,
	.spitch = 1ULL << 40, .err = EINVAL };
/* a side wrapping around the address space */
FIXTURE_VARIANT_ADD(box_bad, pitch_wraps) { BOX_OK, .dpitch = ~0ULL / 2, .err = EINVAL };
/* a pageable span over UVM_COPY_MAX_BYTES (rows 4 GiB apart) */
FIXTURE_VARIANT_ADD(box_bad, pageable_span_too_long) {
	BOX_OK, .height = 2, .dpitch = 1ULL << 32, .err = EINVAL };
/* sides sharing bytes: overlapping rows of one managed range */
FIXTURE_VARIANT_ADD(box_bad, sides_share_bytes) {
	BOX_OK, .dst_kind = K_MANAGED, .doff = 32, .err = EINVAL };
/* sides with different pitches whose spans overlap */
FIXTURE_VARIANT_ADD(box_bad, spans_overlap_pitches_differ) {
	BOX_OK, .dst_kind = K_MANAGED, .doff = 64, .dpitch = 256, .err = EINVAL };
/* a span leaving device memory */
FIXTURE_VARIANT_ADD(box_bad, dst_leaves_device) {
	BOX_OK, .dst_kind = K_DEVICE, .doff = (4 << 20) - 300, .err = EINVAL };
/* a span leaving managed memory */
FIXTURE_VARIANT_ADD(box_bad, src_leaves_managed) {
	BOX_OK, .dst_kind = K_DEVICE, .soff = (4 << 20) - 200, .err = EINVAL };
/* an unknown flag */
FIXTURE_VARIANT_ADD(box_bad, flag_bit1) { BOX_OK, .flags = 1U << 1, .err = EINVAL };
/* reserved bits set */
FIXTURE_VARIANT_ADD(box_bad, reserved) { BOX_OK, .reserved = 1, .err = EINVAL };
/* a GPU that does not exist */
FIXTURE_VARIANT_ADD(box_bad, gpu_count) { BOX_OK, .gpu = 2, .err = ENODEV };
/* memset: element size 3 */
FIXTURE_VARIANT_ADD(box_bad, set_esize_3) { BOX_OK, .set = true, .esize = 3, .err = EINVAL };
/* memset: a value wider than the element */
FIXTURE_VARIANT_ADD(box_bad, set_value_wide) {
	BOX_OK, .set = true, .esize = 2, .value = 0x10000, .err = EINVAL };
/* memset: a pitch not a multiple of the element */
FIXTURE_VARIANT_ADD(box_bad, set_pitch_unaligned) {
	BOX_OK, .set = true, .esize = 4, .width = 16, .dpitch = 66, .err = EINVAL };
/* memset: a slice pitch not a multiple of the element */
FIXTURE_VARIANT_ADD(box_bad, set_slice_unaligned) {
	BOX_OK, .set = true, .esize = 2, .depth = 2, .dslice = 1001, .err = EINVAL };
/* memset: a misaligned address */
FIXTURE_VARIANT_ADD(box_bad, set_addr_unaligned) {
	BOX_OK, .set = true, .esize = 4, .width = 16, .doff = 2, .err = EINVAL };
/* memset: width x element size over the limit */
FIXTURE_VARIANT_ADD(box_bad, set_too_many_bytes) {
	BOX_OK, .set = true, .esize = 4, .width = 1ULL << 30, .height = 2, .dpitch = 1ULL << 32,
	.err = EINVAL };
/* memset: into unmapped process memory */
FIXTURE_VARIANT_ADD(box_bad, set_unmapped) {
	BOX_OK, .set = true, .doff = (4 << 20) - 100, .err = EFAULT };
#pragma GCC diagnostic pop

/*
 * What the refusal tests copy between: 4 MiB each of pageable memory (a
 * hole after it), managed memory filled from @seed (its bytes also in
 * *@snap, to see that nothing changed) and device memory of GPU 0.
 */
static int refusal_bufs(struct uvm_dev *dev, uint8_t **pg, uint8_t **m, uint8_t **d,
			uint8_t **snap, unsigned int seed)
{
	*pg = mmap(NULL, (4 << 20) + 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		   -1, 0);
	if (*pg == MAP_FAILED || munmap(*pg + (4 << 20), 4096))
		return -1;
	*m = uvm_mmap_block_aligned(dev, 4 << 20);
	*d = uvm_mmap_device(dev, 0, 4 << 20);
	*snap = malloc(4 << 20);
	if (*m == MAP_FAILED || *d == MAP_FAILED || !*snap)
		return -1;
	uvm_random_fill(*m, 4 << 20, seed);
	memcpy(*snap, *m, 4 << 20);
	memset(*pg, 0x3c, 4 << 20);
	return 0;
}

static void refusal_bufs_free(uint8_t *pg, uint8_t *m, uint8_t *d, uint8_t *snap)
{
	munmap(pg, 4 << 20);
	munmap(m, 4 << 20);
	munmap(d, 4 << 20);
	free(snap);
}

FIXTURE_SETUP(box_bad)
{
	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, 2);
	ASSERT_EQ(0, refusal_bufs(&self->dev, &self->pg, &self->m, &self->d, &self->snap, 0xb0c5));
}

FIXTURE_TEARDOWN(box_bad)
{
	refusal_bufs_free(self->pg, self->m, self->d, self->snap);
	uvm_dev_teardown(&self->dev);
}

static uint64_t box_bad_addr(FIXTURE_DATA(box_bad) *self, int kind, uint64_t off)
{
	uint8_t *base = kind == K_MANAGED ? self->m : kind == K_DEVICE ? self->d : self->pg;

	return (uintptr_t)base + off;
}

/* The variant's ioctl; Return: its result. */
static int box_bad_call(FIXTURE_DATA(box_bad) *self, const FIXTURE_VARIANT(box_bad) *variant)
{
	struct uvm_box dst = { box_bad_addr(self, variant->dst_kind, variant->doff),
			       variant->dpitch, variant->dslice };
	struct uvm_box src = { box_bad_addr(self, variant->src_kind, variant->soff),
			       variant->spitch, variant->sslice };

	if (variant->set) {
		struct uvm_ioc_memset_3d a = {
			.dst = dst, .width = variant->width, .height = variant->height,
			.depth = variant->depth, .value = variant->value,
			.element_size = variant->esize, .gpu_index = variant->gpu,
			.flags = variant->flags, .reserved = { variant->reserved },
		};

		return uvm_ioctl(self->dev.fd, UVM_IOC_MEMSET_3D, &a);
	}
	struct uvm_ioc_copy_3d a = {
		.dst = dst, .src = src, .width = variant->width, .height = variant->height,
		.depth = variant->depth, .gpu_index = variant->gpu, .flags = variant->flags,
		.reserved = { variant->reserved },
	};

	return uvm_ioctl(self->dev.fd, UVM_IOC_COPY_3D, &a);
}

/*
 * The variant's copy as the last of three copies of UVM_IOC_COPY_BATCH, the
 * first two valid (managed into pageable memory); @failed gets the index the
 * module names.  Return: its result.
 */
static int box_bad_batch(FIXTURE_DATA(box_bad) *self, const FIXTURE_VARIANT(box_bad) *variant,
			 uint32_t *failed)
{
	struct uvm_copy_op ops[3] = {
		{ .dst = { (uintptr_t)self->pg, 0, 0 }, .src = { (uintptr_t)self->m, 0, 0 },
		  .width = 100, .height = 1, .depth = 1 },
		{ .dst = { (uintptr_t)self->pg + 8192, 4096, 0 },
		  .src = { (uintptr_t)self->m + 4096, 1000, 0 },
		  .width = 1000, .height = 3, .depth = 1 },
		{ .dst = { box_bad_addr(self, variant->dst_kind, variant->doff),
			   variant->dpitch, variant->dslice },
		  .src = { box_bad_addr(self, variant->src_kind, variant->soff),
			   variant->spitch, variant->sslice },
		  .width = variant->width, .height = variant->height, .depth = variant->depth,
		  .reserved = variant->reserved },
	};

	return uvm_copy_batch(self->dev.fd, ops, 3, variant->gpu, variant->flags, NULL, failed);
}

TEST_F(box_bad, refused)
{
	uint64_t before = 0, after = 0, i;
	uint32_t failed = 0;
	struct uvm_counters d;

	ASSERT_EQ(0, uvm_memset(self->dev.fd, self->pg, 1, 0x3c, 1, 0, 0, &before));
	UVM_COUNT_DELTA(self->dev.fd, d, ASSERT_EQ(-variant->err, box_bad_call(self, variant)));
	ASSERT_COUNTS_ONLY(d, 0ULL);
	/* no fence was taken */
	ASSERT_EQ(0, uvm_memset(self->dev.fd, self->pg, 1, 0x3c, 1, 0, 0, &after));
	ASSERT_EQ(before + 1, after);
	ASSERT_BYTES(self->m, self->snap, 4 << 20);
	for (i = 0; i < (4 << 20); i += 4096)
		ASSERT_EQ(0x3c, self->pg[i]);
	if (variant->set)
		return;	/* no batch of memsets */

	/*
	 * The same copy last in a batch refuses the whole batch, naming it
	 * (or the batch, for what its header carries: flags, GPU); nothing
	 * runs, not even the valid copies before it.
	 */
	UVM_COUNT_DELTA(self->dev.fd, d,
			ASSERT_EQ(-variant->err, box_bad_batch(self, variant, &failed)));
	ASSERT_EQ(variant->flags || variant->err == ENODEV ? 3U : 2U, failed);
	ASSERT_COUNTS_ONLY(d, 0ULL);
	ASSERT_EQ(0, uvm_memset(self->dev.fd, self->pg, 1, 0x3c, 1, 0, 0, &before));
	ASSERT_EQ(after + 1, before);
	ASSERT_BYTES(self->m, self->snap, 4 << 20);
	for (i = 0; i < (4 << 20); i += 1024)
		ASSERT_EQ(0x3c, self->pg[i]);
}

FIXTURE(batch_bad) {
	struct uvm_dev dev;
	uint8_t *pg, *m, *d;	/* 4 MiB each: pageable, managed, device 0 */
	uint8_t *snap;		/* what m holds */
};

FIXTURE_SETUP(batch_bad)
{
	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, 2);
	ASSERT_EQ(0, refusal_bufs(&self->dev, &self->pg, &self->m, &self->d, &self->snap, 0xba7c));
}

FIXTURE_TEARDOWN(batch_bad)
{
	refusal_bufs_free(self->pg, self->m, self->d, self->snap);
	uvm_dev_teardown(&self->dev);
}

/* Refusals of a batch as a whole: count, the array, the limits; then the limit runs */
TEST_F(batch_bad, header)
{
	struct uvm_copy_op *ops = calloc(UVM_COPY_BATCH_MAX + 1, sizeof(*ops));
	struct uvm_ioc_copy_batch b = { 0 };
	uint32_t failed = 0, i;
	void *hole;

	ASSERT_NE(NULL, ops);
	for (i = 0; i <= UVM_COPY_BATCH_MAX; i++)
		ops[i] = (struct uvm_copy_op){ .dst = { (uintptr_t)self->pg + i, 0, 0 },
					       .src = { (uintptr_t)self->m + i, 0, 0 },
					       .width = 1, .height = 1, .depth = 1 };
	/* count 0, count over the limit */
	ASSERT_EQ(-EINVAL, uvm_copy_batch(self->dev.fd, ops, 0, 0, 0, NULL, &failed));
	ASSERT_EQ(0U, failed);
	ASSERT_EQ(-EINVAL, uvm_copy_batch(self->dev.fd, ops, UVM_COPY_BATCH_MAX + 1, 0, 0, NULL,
					  &failed));
	ASSERT_EQ((uint32_t)UVM_COPY_BATCH_MAX + 1, failed);
	/* the array unreadable: NULL, unmapped, running into a hole */
	ASSERT_EQ(-EFAULT, uvm_copy_batch(self->dev.fd, NULL, 2, 0, 0, NULL, &failed));
	hole = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, hole);
	ASSERT_EQ(0, munmap((uint8_t *)hole + 4096, 4096));
	memcpy((uint8_t *)hole + 4096 - sizeof(*ops), ops, sizeof(*ops));
	ASSERT_EQ(-EFAULT, uvm_copy_batch(self->dev.fd,
					  (void *)((uint8_t *)hole + 4096 - sizeof(*ops)), 2, 0, 0,
					  NULL, &failed));
	ASSERT_EQ(0, uvm_copy_batch(self->dev.fd,
				    (void *)((uint8_t *)hole + 4096 - sizeof(*ops)), 1, 0, 0,
				    NULL, &failed));
	munmap(hole, 4096);
	/* reserved header bits */
	b.ops = (uintptr_t)ops;
	b.count = 1;
	b.reserved[1] = 1;
	ASSERT_EQ(-EINVAL, uvm_ioctl(self->dev.fd, UVM_IOC_COPY_BATCH, &b));
	/* pageable spans of 3 GiB each: the second goes over UVM_COPY_MAX_BYTES */
	ops[0] = (struct uvm_copy_op){ .dst = { (uintptr_t)self->pg, 3ULL << 30, 0 },
				       .src = { (uintptr_t)self->d, 64, 0 },
				       .width = 64, .height = 2, .depth = 1 };
	ops[1] = ops[0];
	ops[1].src.addr += 4096;
	ASSERT_EQ(-EINVAL, uvm_copy_batch(self->dev.fd, ops, 2, 0, 0, NULL, &failed));
	ASSERT_EQ(1U, failed);
	/* the whole limit in one batch: every copy runs, in order */
	for (i = 0; i < UVM_COPY_BATCH_MAX; i++)
		ops[i] = (struct uvm_copy_op){ .dst = { (uintptr_t)self->pg + i % 4096, 0, 0 },
					       .src = { (uintptr_t)self->m + i, 0, 0 },
					       .width = 1, .height = 1, .depth = 1 };
	ASSERT_EQ(0, uvm_copy_batch(self->dev.fd, ops, UVM_COPY_BATCH_MAX, 1, 0, NULL, &failed));
	for (i = 0; i < 4096; i++)
		ASSERT_EQ(self->snap[UVM_COPY_BATCH_MAX - 4096 + i], self->pg[i]);
	free(ops);
}

#define RUN_COPIES	512

/*
 * Runs of small copies as the job joins them: copies alternating between
 * allocations (device, managed and pageable sources into device and
 * pageable destinations), then a chain of contiguous device copies each
 * reading what the one before wrote (which must not become one run), then
 * a bad copy in the middle of the chain: the batch is refused, naming it,
 * and nothing runs.
 */
TEST_F(batch_bad, runs)
{
	struct uvm_copy_op *ops = calloc(RUN_COPIES, sizeof(*ops));
	uint8_t *want = malloc(4 << 20), *back = malloc(4 << 20);
	uint8_t *dsts[2] = { self->d, self->pg };
	uint8_t *srcs[3] = { self->m, self->d + (2 << 20), self->pg + (2 << 20) };
	uint32_t failed = 0, i, k;

	ASSERT_NE(NULL, ops);
	ASSERT_NE(NULL, want);
	ASSERT_NE(NULL, back);
	/* the sources' bytes: managed as it is, the others from it */
	ASSERT_EQ(0, uvm_copy(self->dev.fd, self->d + (2 << 20), self->m + 4096, 2 << 20, 0, 0,
			      NULL));
	memcpy(self->pg + (2 << 20), self->snap + 8192, 2 << 20);
	memset(self->pg, 0, 2 << 20);
	ASSERT_EQ(0, uvm_memset(self->dev.fd, self->d, 2 << 20, 0, 1, 0, 0, NULL));
	memset(want, 0, 4 << 20);	/* [0, 2M): device, [2M, 4M): pageable */
	for (i = 0; i < RUN_COPIES; i++) {
		uint64_t off = (uint64_t)i * 64;
		const uint8_t *sdata[3] = { self->snap + off, self->snap + 4096 + off,
					    self->snap + 8192 + off };

		k = i % 3;
		ops[i] = (struct uvm_copy_op){ .dst = { (uintptr_t)dsts[i % 2] + off, 0, 0 },
					       .src = { (uintptr_t)srcs[k] + off, 0, 0 },
					       .width = 64, .height = 1, .depth = 1 };
		memcpy(want + (i % 2) * (2 << 20) + off, sdata[k], 64);
	}
	ASSERT_EQ(0, uvm_copy_batch(self->dev.fd, ops, RUN_COPIES, 1, 0, NULL, &failed));
	ASSERT_EQ((uint32_t)RUN_COPIES, failed);
	ASSERT_EQ(0, uvm_copy(self->dev.fd, back, self->d, 2 << 20, 0, 0, NULL));
	ASSERT_BYTES(back, want, 2 << 20);
	ASSERT_BYTES(self->pg, want + (2 << 20), 2 << 20);

	/* a chain: copy i reads slot i, which copy i - 1 wrote */
	for (i = 0; i < RUN_COPIES; i++)
		ops[i] = (struct uvm_copy_op){ .dst = { (uintptr_t)self->d + (i + 1) * 64, 0, 0 },
					       .src = { (uintptr_t)self->d + i * 64, 0, 0 },
					       .width = 64, .height = 1, .depth = 1 };
	ASSERT_EQ(0, uvm_copy_batch(self->dev.fd, ops, RUN_COPIES, 0, 0, NULL, &failed));
	ASSERT_EQ(0, uvm_copy(self->dev.fd, back, self->d, (RUN_COPIES + 1) * 64, 0, 0, NULL));
	for (i = 1; i <= RUN_COPIES; i++)
		ASSERT_BYTES(back + i * 64, want, 64);

	/* the same chain with a bad copy in its middle: refused whole */
	ASSERT_EQ(0, uvm_memset(self->dev.fd, self->d, 2 << 20, 0x5a, 1, 0, 0, NULL));
	ops[RUN_COPIES / 2].width = 0;
	ASSERT_EQ(-EINVAL, uvm_copy_batch(self->dev.fd, ops, RUN_COPIES, 0, 0, NULL, &failed));
	ASSERT_EQ((uint32_t)RUN_COPIES / 2, failed);
	ops[RUN_COPIES / 2].width = 64;
	ops[RUN_COPIES / 2].src.addr = (uintptr_t)self->d + (4 << 20) - 32;
	ASSERT_EQ(-EINVAL, uvm_copy_batch(self->dev.fd, ops, RUN_COPIES, 0, 0, NULL, &failed));
	ASSERT_EQ((uint32_t)RUN_COPIES / 2, failed);
	ASSERT_EQ(0, uvm_copy(self->dev.fd, back, self->d, 2 << 20, 0, 0, NULL));
	for (i = 0; i < (2 << 20); i++)
		ASSERT_EQ(0x5a, back[i]);
	free(back);
	free(want);
	free(ops);
}

/* @n copies of @width bytes: dst + i * dpitch from src + i * spitch */
static void batch_rows(struct uvm_copy_op *ops, uint32_t n, const uint8_t *dst, uint64_t dpitch,
		       const uint8_t *src, uint64_t spitch, uint64_t width)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		ops[i] = (struct uvm_copy_op){ .dst = { (uintptr_t)dst + i * dpitch, 0, 0 },
					       .src = { (uintptr_t)src + i * spitch, 0, 0 },
					       .width = width, .height = 1, .depth = 1 };
}

/*
 * Copies of one width at fixed distances, which the module makes the rows
 * of one box: the bytes of strided and contiguous runs, a run in pageable
 * memory; then refusals inside such runs name the copy refused and run
 * nothing: a run leaving its allocation, one into read-only registered
 * memory, one into unmapped pageable memory.
 */
TEST_F(batch_bad, merged)
{
	struct uvm_copy_op *ops = calloc(RUN_COPIES, sizeof(*ops));
	uint8_t *back = malloc(4 << 20), *pgsnap = malloc(4 << 20);
	uint32_t failed = 0, i;
	uint64_t end;

	ASSERT_NE(NULL, ops);
	ASSERT_NE(NULL, back);
	ASSERT_NE(NULL, pgsnap);
	ASSERT_EQ(0, uvm_memset(self->dev.fd, self->d, 4 << 20, 0, 1, 0, 0, NULL));

	/* strided: 48 of every 100 bytes from 48 of every 80 */
	batch_rows(ops, RUN_COPIES, self->d + 4096, 100, self->m + 8, 80, 48);
	ASSERT_EQ(0, uvm_copy_batch(self->dev.fd, ops, RUN_COPIES, 1, 0, NULL, &failed));
	ASSERT_EQ((uint32_t)RUN_COPIES, failed);
	ASSERT_EQ(0, uvm_copy(self->dev.fd, back, self->d, 4096 + RUN_COPIES * 100, 0, 0, NULL));
	for (i = 0; i < RUN_COPIES; i++) {
		ASSERT_BYTES(back + 4096 + i * 100, self->snap + 8 + i * 80, 48);
		ASSERT_EQ(0, back[4096 + i * 100 + 48]);
	}
	/* contiguous, from managed and from pageable memory, asynchronously */
	batch_rows(ops, RUN_COPIES, self->d + (1 << 20), 64, self->m + 3, 64, 64);
	ASSERT_EQ(0, uvm_copy_batch(self->dev.fd, ops, RUN_COPIES, 0, UVM_COPY_ASYNC, NULL,
				    &failed));
	memcpy(self->pg + 5, self->snap + 77, RUN_COPIES * 64);
	batch_rows(ops, RUN_COPIES, self->d + (2 << 20), 64, self->pg + 5, 64, 64);
	ASSERT_EQ(0, uvm_copy_batch(self->dev.fd, ops, RUN_COPIES, 1, 0, NULL, &failed));
	ASSERT_EQ(0, uvm_copy(self->dev.fd, back, self->d, 4 << 20, 0, 0, NULL));
	ASSERT_BYTES(back + (1 << 20), self->snap + 3, RUN_COPIES * 64);
	ASSERT_BYTES(back + (2 << 20), self->snap + 77, RUN_COPIES * 64);
	ASSERT_EQ(0, back[(1 << 20) + RUN_COPIES * 64]);

	/* the last copy of a run leaves the device allocation */
	ASSERT_EQ(0, uvm_memset(self->dev.fd, self->d, 4 << 20, 0x5a, 1, 0, 0, NULL));
	memcpy(pgsnap, self->pg, 4 << 20);
	end = (4 << 20) - RUN_COPIES * 64 + 32;
	batch_rows(ops, RUN_COPIES, self->d + end, 64, self->m, 64, 64);
	ASSERT_EQ(-EINVAL, uvm_copy_batch(self->dev.fd, ops, RUN_COPIES, 0, 0, NULL, &failed));
	ASSERT_EQ((uint32_t)RUN_COPIES - 1, failed);
	/* a run into read-only registered memory, after another copy */
	ASSERT_EQ(0, uvm_host_register(self->dev.fd, self->pg, 1 << 20,
				       UVM_HOST_REGISTER_READ_ONLY, NULL));
	batch_rows(ops + 1, RUN_COPIES - 1, self->pg, 128, self->d, 64, 64);
	batch_rows(ops, 1, self->d + 64, 0, self->m, 0, 64);
	ASSERT_EQ(-EPERM, uvm_copy_batch(self->dev.fd, ops, RUN_COPIES, 0, 0, NULL, &failed));
	ASSERT_EQ(1U, failed);
	ASSERT_EQ(0, uvm_host_unregister(self->dev.fd, self->pg));
	/* a pageable run into the unmapped page after pg */
	end = (4 << 20) - (RUN_COPIES - 1) * 64;
	batch_rows(ops, RUN_COPIES, self->pg + end, 64, self->d, 64, 64);
	ASSERT_EQ(-EFAULT, uvm_copy_batch(self->dev.fd, ops, RUN_COPIES, 0, 0, NULL, &failed));
	ASSERT_EQ((uint32_t)RUN_COPIES - 1, failed);
	ASSERT_EQ(0, uvm_copy(self->dev.fd, back, self->d, 4 << 20, 0, 0, NULL));
	for (i = 0; i < (4 << 20); i++)
		ASSERT_EQ(0x5a, back[i]);
	ASSERT_BYTES(self->pg, pgsnap, 4 << 20);
	free(pgsnap);
	free(back);
	free(ops);
}

TEST_HARNESS_MAIN
