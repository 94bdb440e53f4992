/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * memory_util.h - what the memory_* suites share (API 1.2: device memory,
 * registered host memory, UVM_IOC_COPY and UVM_IOC_MEMSET): the kinds of
 * memory and a buffer of any kind, GPU loads and stores that check bytes,
 * counter and residency assertions, the copy buffers' geometry and the
 * "arenas" that refused copies and memsets are aimed at.
 *
 * Device memory is read and written by GPU launches (never by the copy
 * engine under test) to check bytes.  The suites run with vidmem_mb=64
 * (32 chunks per GPU), so that a GPU can be filled quickly.
 *
 * Include it instead of kselftest_harness.h and uvm_test_util.h.
 */
#ifndef _UVM_MEMORY_UTIL_H_
#define _UVM_MEMORY_UTIL_H_

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
static inline int mbuf_alloc(const struct uvm_dev *dev, struct mbuf *b, int kind, uint32_t gpu,
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

static inline void mbuf_free(const struct uvm_dev *dev, struct mbuf *b)
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
static inline int gpu_load(int fd, uint32_t gpu, const void *addr, uint64_t len, void *out,
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
static inline int gpu_store(int fd, uint32_t gpu, const void *addr, uint64_t len, const void *src,
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
static inline int mbuf_store(const struct uvm_dev *dev, const struct mbuf *b, const void *data)
{
	if (b->kind == K_DEVICE)
		return gpu_store(dev->fd, b->gpu, b->p, b->len, data, NULL);
	memcpy(b->p, data, b->len);
	return 0;
}

/* Load the whole buffer into @out, the same way. */
static inline int mbuf_load(const struct uvm_dev *dev, const struct mbuf *b, void *out)
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

/* A GPU launch that must end in a fatal fault at @addr; Return: 0 or what differed. */
static inline int gpu_fatal(int fd, uint32_t gpu, const void *addr, uint32_t type)
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

/*
 * The buffers of the copy fixture (memory_copy.c), also used by the memset
 * fixture (memory_memset.c)
 */

/* Both buffers: 2 MiB + 4 pages, across two 2 MiB boundaries at different offsets. */
#define COPY_PAGES	(512 + 4)
#define DST_SKEW_PAGES	(512 - 2)	/* dst's boundaries: pages 2 and 514 */
#define SRC_SKEW_PAGES	(512 - 5)	/* src's boundaries: pages 5 and 517 (past the end) */

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

static inline uint8_t *arena(const struct arenas *ar, int which)
{
	return ar->base + which * ARENA_LEN;
}

/* Address @off bytes into @which (negative: from its end), or @abs for A_ABS. */
static inline uint64_t arena_addr(const struct arenas *ar, int which, int64_t off, uint64_t abs)
{
	if (which == A_ABS)
		return abs;
	return (uintptr_t)arena(ar, which) + (off < 0 ? ARENA_LEN : 0) + off;
}

#define arenas_setup(dev, ar, gpu) __arenas_setup(_metadata, dev, ar, gpu)

static inline void __arenas_setup(struct __test_metadata *_metadata, const struct uvm_dev *dev,
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

static inline void arenas_teardown(struct arenas *ar)
{
	if (ar->base && ar->base != MAP_FAILED)
		munmap(ar->base, A_COUNT * ARENA_LEN);
	free(ar->snap);
	free(ar->out);
}

/* ASSERT that every arena holds what it held, the device one read by the other GPU. */
#define ASSERT_ARENAS_UNCHANGED(dev, ar) do {						ASSERT_BYTES((ar)->base, (ar)->snap, 2 * ARENA_LEN);				ASSERT_BYTES(arena((ar), A_HOST), (ar)->snap + A_HOST * ARENA_LEN,			     3 * ARENA_LEN);							ASSERT_EQ(0, gpu_load((dev)->fd, !(ar)->gpu, arena((ar), A_DEVICE),				      ARENA_LEN, (ar)->out, NULL));				ASSERT_BYTES((ar)->out, (ar)->snap + A_DEVICE * ARENA_LEN, ARENA_LEN);	} while (0)

#endif /* _UVM_MEMORY_UTIL_H_ */
