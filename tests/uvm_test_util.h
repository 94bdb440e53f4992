/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * uvm_test_util.h - shared helpers of the uvm kselftest suites.
 *
 * Every suite includes this after kselftest_harness.h.  It provides:
 *
 *  - struct uvm_dev and uvm_dev_setup()/uvm_dev_teardown(): what every
 *    FIXTURE_SETUP does (open /dev/uvm, read GET_VERSION, skip when the
 *    module, the test ioctls or enough GPUs are missing);
 *  - thin ioctl wrappers returning 0 or -errno (uvm_ioctl(), uvm_counters(),
 *    uvm_gpu_info(), uvm_residency(), uvm_launch());
 *  - builders of GPU access-program ops (uvm_op_read(), uvm_op_pattern(), ...);
 *  - expected-value helpers: pattern words and checksums computed exactly as
 *    uvm_test.h defines them;
 *  - policy and migration (API 1.1): locations, uvm_advise(), uvm_migrate()
 *    and its one-range forms (uvm_prefetch(), uvm_discard(), ...),
 *    uvm_fence_wait(), uvm_range_query(), uvm_pointer_info(), GPU reads and
 *    writes of a range that report the faults they raised, host NUMA nodes;
 *  - device memory, registered host memory, copies and memsets (API 1.2):
 *    uvm_mmap_device(), placement at a chosen offset from a 2 MiB boundary
 *    (uvm_map_skewed()), uvm_host_register()/uvm_host_unregister(),
 *    uvm_copy(), uvm_memset(), the pin count of the system
 *    (uvm_pins_outstanding()) and ASSERT_BYTES();
 *  - virtual memory management (API 1.3): allocations, reservations,
 *    mappings, access, export/import (uvm_mem_*(), uvm_reserve()); the
 *    queue gate of the test ioctls (uvm_queue_gate());
 *  - process and thread helpers: run a function in a fork child and report
 *    how it ended, wait until a thread is blocked inside an ioctl;
 *  - pageable memory (HMM): capability checks, residency of pageable pages
 *    (ASSERT_PAGEABLE), 2 MiB-aligned anonymous mappings.
 *
 * Helpers never assert; tests do, so failures point at the test's line.
 */
#ifndef _UVM_TEST_UTIL_H_
#define _UVM_TEST_UTIL_H_

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "uvm.h"
#include "uvm_names.h"
#include "uvm_test.h"

#define UVM_DEV_PATH		"/dev/uvm"
#define UVM_SYSFS_GPU_FMT	"/sys/class/misc/uvm/gpu%u/%s"
#define UVM_PARAM_DIR		"/sys/module/uvm/parameters/"

/* Processor masks as UVM_TEST_IOC_RESIDENCY reports them. */
#define UVM_CPU_BIT		UVM_PROCESSOR_MASK(UVM_PROCESSOR_CPU)
#define UVM_GPU_BIT(idx)	UVM_PROCESSOR_MASK(UVM_PROCESSOR_GPU(idx))

#define UVM_MIB			(1ULL << 20)
#define UVM_GIB			(1ULL << 30)

/**
 * struct uvm_dev - an open /dev/uvm (one VA space) and what it reported
 * @fd:		the descriptor, -1 when closed
 * @ver:	GET_VERSION answer
 * @page_size:	ver.page_size
 * @num_gpus:	ver.num_gpus
 */
struct uvm_dev {
	int fd;
	struct uvm_ioc_version ver;
	uint64_t page_size;
	uint32_t num_gpus;
};

/* Requirements of a fixture, for uvm_dev_setup(). */
#define UVM_NEED_TEST_IOCTLS	(1U << 0)

static inline int uvm_ioctl(int fd, unsigned long cmd, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, cmd, arg);
	} while (ret < 0 && errno == EINTR);
	return ret < 0 ? -errno : ret;
}

static inline int uvm_open(void)
{
	int fd = open(UVM_DEV_PATH, O_RDWR | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static inline int uvm_get_version(int fd, struct uvm_ioc_version *ver)
{
	memset(ver, 0, sizeof(*ver));
	return uvm_ioctl(fd, UVM_IOC_GET_VERSION, ver);
}

/*
 * A test child that must skip exits with 255, which the 6.1 harness reports
 * as SKIP.  Exiting at once matters in FIXTURE_SETUP: the 6.1 harness runs
 * the test body after a setup that called SKIP().
 */
#define UVM_SKIP(fmt, ...) \
	SKIP(do { fflush(NULL); _exit(255); } while (0), fmt, ##__VA_ARGS__)

/**
 * uvm_dev_setup() - the body of every FIXTURE_SETUP
 * @_metadata:	the harness's test metadata
 * @dev:	filled in
 * @need:	UVM_NEED_* flags
 * @min_gpus:	skip when the module drives fewer GPUs
 *
 * Skips (ends the test child) when /dev/uvm is absent or a requirement is
 * not met; fails when the device exists but GET_VERSION does not work.
 */
#define uvm_dev_setup(dev, need, min_gpus) \
	__uvm_dev_setup(_metadata, dev, need, min_gpus)

static inline void __uvm_dev_setup(struct __test_metadata *_metadata,
				   struct uvm_dev *dev, unsigned int need,
				   uint32_t min_gpus)
{
	dev->fd = uvm_open();
	if (dev->fd == -ENOENT)
		UVM_SKIP("%s does not exist: is uvm.ko loaded?", UVM_DEV_PATH);
	ASSERT_LE(0, dev->fd) TH_LOG("open(%s): %s", UVM_DEV_PATH, strerror(-dev->fd));
	ASSERT_EQ(0, uvm_get_version(dev->fd, &dev->ver));
	dev->page_size = dev->ver.page_size;
	dev->num_gpus = dev->ver.num_gpus;
	if ((need & UVM_NEED_TEST_IOCTLS) && !(dev->ver.caps & UVM_CAP_TEST_IOCTLS))
		UVM_SKIP("uvm.ko built without the test ioctls (CONFIG_UVM_TEST)");
	if (dev->num_gpus < min_gpus)
		UVM_SKIP("needs %u GPU(s), uvm.ko drives %u", min_gpus, dev->num_gpus);
}

static inline void uvm_dev_teardown(struct uvm_dev *dev)
{
	if (dev->fd >= 0)
		close(dev->fd);
	dev->fd = -1;
}

/* Counters */

/**
 * struct uvm_counters - a snapshot of a VA space's counters
 * @c:	UVM_COUNTER_* values
 */
struct uvm_counters {
	uint64_t c[UVM_COUNTER_COUNT];
};

static inline int uvm_counters(int fd, struct uvm_counters *out)
{
	struct uvm_ioc_get_counters args = {
		.counters_ptr = (uintptr_t)out->c,
		.count = UVM_COUNTER_COUNT,
	};

	memset(out, 0, sizeof(*out));
	return uvm_ioctl(fd, UVM_IOC_GET_COUNTERS, &args);
}

/* after - before, counter by counter */
static inline struct uvm_counters uvm_counters_delta(const struct uvm_counters *before,
						     const struct uvm_counters *after)
{
	struct uvm_counters d;
	int i;

	for (i = 0; i < UVM_COUNTER_COUNT; i++)
		d.c[i] = after->c[i] - before->c[i];
	return d;
}

/* Print a counter delta as TAP diagnostics (used when an assertion fails). */
static inline void uvm_counters_print(const char *what, const struct uvm_counters *d)
{
	unsigned int i;

	for (i = 0; i < UVM_COUNTER_COUNT; i++)
		fprintf(stderr, "# %s %s=%llu\n", what, uvm_counter_name(i),
			(unsigned long long)d->c[i]);
}

/* GPUs */

static inline int uvm_gpu_info(int fd, uint32_t gpu, struct uvm_ioc_gpu_info *info)
{
	memset(info, 0, sizeof(*info));
	info->gpu_index = gpu;
	return uvm_ioctl(fd, UVM_IOC_GPU_INFO, info);
}

/* vidmem_used of a GPU, or UINT64_MAX when GPU_INFO fails */
static inline uint64_t uvm_vidmem_used(int fd, uint32_t gpu)
{
	struct uvm_ioc_gpu_info info;

	return uvm_gpu_info(fd, gpu, &info) ? UINT64_MAX : info.vidmem_used;
}

/*
 * Vidmem is freed when a page leaves a GPU, at munmap, and when the last
 * reference of a VA space goes; the last two may complete just after the
 * syscall or the exit that caused them (fault servicing may hold a VA space
 * reference a little longer).  Wait up to a few seconds for @want.
 */
static inline uint64_t uvm_vidmem_wait(int fd, uint32_t gpu, uint64_t want)
{
	uint64_t used = 0;
	int i;

	for (i = 0; i < 500; i++) {
		used = uvm_vidmem_used(fd, gpu);
		if (used == want)
			break;
		usleep(10000);
	}
	return used;
}

/* Residency */

static inline int uvm_residency_flags(int fd, const void *addr, uint64_t len,
				      struct uvm_test_page_state *states,
				      uint32_t flags)
{
	struct uvm_test_residency args = {
		.address = (uintptr_t)addr,
		.length = len,
		.states_ptr = (uintptr_t)states,
		.flags = flags,
	};

	return uvm_ioctl(fd, UVM_TEST_IOC_RESIDENCY, &args);
}

static inline int uvm_residency(int fd, const void *addr, uint64_t len,
				struct uvm_test_page_state *states)
{
	return uvm_residency_flags(fd, addr, len, states, 0);
}

/**
 * uvm_residency_check_flags() - every page of a range in one state
 * @fd:		the VA space
 * @addr:	page-aligned start
 * @npages:	pages
 * @page_size:	bytes per page
 * @flags:	UVM_TEST_RESIDENCY_* flags of the query
 * @want:	the state every page must have
 * @bad:	out: index of the first page that differs, or -1
 * @got:	out: its state
 *
 * Return: 0 when every page matches, 1 when one differs, -errno of the ioctl.
 */
static inline int uvm_residency_check_flags(int fd, const void *addr, uint64_t npages,
					    uint64_t page_size, uint32_t flags,
					    const struct uvm_test_page_state *want,
					    long *bad, struct uvm_test_page_state *got)
{
	struct uvm_test_page_state *st;
	uint64_t i;
	int ret;

	*bad = -1;
	memset(got, 0, sizeof(*got));
	if (npages > UVM_TEST_RESIDENCY_MAX_PAGES)
		return -E2BIG;
	st = calloc(npages, sizeof(*st));
	if (!st)
		return -ENOMEM;
	ret = uvm_residency_flags(fd, addr, npages * page_size, st, flags);
	for (i = 0; !ret && i < npages; i++) {
		if (memcmp(&st[i], want, sizeof(*want))) {
			*bad = (long)i;
			*got = st[i];
			ret = 1;
		}
	}
	free(st);
	return ret;
}

/* uvm_residency_check_flags() of managed memory only. */
static inline int uvm_residency_check(int fd, const void *addr, uint64_t npages,
				      uint64_t page_size,
				      const struct uvm_test_page_state *want,
				      long *bad, struct uvm_test_page_state *got)
{
	return uvm_residency_check_flags(fd, addr, npages, page_size, 0, want, bad, got);
}

/* A page state: resident on @res, mapped by @map with every permission. */
static inline struct uvm_test_page_state uvm_state(uint64_t res, uint64_t rd,
						   uint64_t wr, uint64_t at)
{
	return (struct uvm_test_page_state){
		.resident = res, .mapped_read = rd, .mapped_write = wr,
		.mapped_atomic = at,
	};
}

/* Resident on the CPU and mapped there read-write (as after a CPU write). */
#define UVM_STATE_CPU		uvm_state(UVM_CPU_BIT, UVM_CPU_BIT, UVM_CPU_BIT, 0)
/* Resident on GPU @g and mapped there read-write-atomic (after a GPU fault). */
#define UVM_STATE_GPU(g)	uvm_state(UVM_GPU_BIT(g), UVM_GPU_BIT(g), \
					  UVM_GPU_BIT(g), UVM_GPU_BIT(g))
/* Resident nowhere, mapped nowhere (untouched, freed, or not managed). */
#define UVM_STATE_NONE		uvm_state(0, 0, 0, 0)

/*
 * ASSERT that @npages pages at @addr all have state @want as a residency
 * query with @flags reports, logging the first page that does not.
 */
#define ASSERT_RESIDENCY_FLAGS(dev, addr, npages, flags, want) do {		\
	struct uvm_test_page_state __want = (want), __got;			\
	long __bad;								\
	int __r = uvm_residency_check_flags((dev)->fd, (addr), (npages),	\
					    (dev)->page_size, (flags), &__want,	\
					    &__bad, &__got);			\
	ASSERT_EQ(0, __r) {							\
		TH_LOG("page %ld of %p: resident %#llx read %#llx write %#llx "	\
		       "atomic %#llx, want %#llx %#llx %#llx %#llx", __bad,	\
		       (void *)(addr), (unsigned long long)__got.resident,	\
		       (unsigned long long)__got.mapped_read,			\
		       (unsigned long long)__got.mapped_write,			\
		       (unsigned long long)__got.mapped_atomic,			\
		       (unsigned long long)__want.resident,			\
		       (unsigned long long)__want.mapped_read,			\
		       (unsigned long long)__want.mapped_write,			\
		       (unsigned long long)__want.mapped_atomic);		\
	}									\
} while (0)

/* ASSERT that @npages pages at @addr all have state @want (managed memory). */
#define ASSERT_RESIDENCY(dev, addr, npages, want) \
	ASSERT_RESIDENCY_FLAGS(dev, addr, npages, 0, want)

/* The same for pageable memory (UVM_TEST_RESIDENCY_PAGEABLE). */
#define ASSERT_PAGEABLE(dev, addr, npages, want) \
	ASSERT_RESIDENCY_FLAGS(dev, addr, npages, UVM_TEST_RESIDENCY_PAGEABLE, want)

/* Launches */

static inline struct uvm_test_gpu_op uvm_op(uint32_t type, const void *addr,
					    uint64_t len, uint32_t access_size)
{
	return (struct uvm_test_gpu_op){
		.type = type,
		.order = UVM_TEST_ORDER_SEQUENTIAL,
		.address = (uintptr_t)addr,
		.length = len,
		.access_size = access_size,
	};
}

/* READ of [addr, +len) into @dst (NULL: checksum only), dense. */
static inline struct uvm_test_gpu_op uvm_op_read(const void *addr, uint64_t len,
						 uint32_t access_size, void *dst)
{
	struct uvm_test_gpu_op op = uvm_op(UVM_TEST_OP_READ, addr, len, access_size);

	op.data_ptr = (uintptr_t)dst;
	return op;
}

/* WRITE of @src's bytes to [addr, +len), dense. */
static inline struct uvm_test_gpu_op uvm_op_write(const void *addr, uint64_t len,
						  uint32_t access_size, const void *src)
{
	struct uvm_test_gpu_op op = uvm_op(UVM_TEST_OP_WRITE, addr, len, access_size);

	op.data_ptr = (uintptr_t)src;
	return op;
}

/* Pattern WRITE: every word w at address a becomes PATTERN_WORD(value, a). */
static inline struct uvm_test_gpu_op uvm_op_pattern(const void *addr, uint64_t len,
						    uint64_t value)
{
	struct uvm_test_gpu_op op = uvm_op(UVM_TEST_OP_WRITE, addr, len, 8);

	op.value = value;
	return op;
}

/* ATOMIC_ADD of @value to every word of [addr, +len). */
static inline struct uvm_test_gpu_op uvm_op_atomic(const void *addr, uint64_t len,
						   uint64_t value)
{
	struct uvm_test_gpu_op op = uvm_op(UVM_TEST_OP_ATOMIC_ADD, addr, len, 8);

	op.value = value;
	return op;
}

/* The op with seeded random access order. */
static inline struct uvm_test_gpu_op uvm_op_random(struct uvm_test_gpu_op op,
						   uint32_t seed)
{
	op.order = UVM_TEST_ORDER_RANDOM;
	op.seed = seed;
	return op;
}

/**
 * uvm_launch() - run an access program
 * @fd:		the VA space
 * @gpu:	GPU index
 * @warps:	number of warps
 * @ops:	the ops; checksums are written back
 * @nops:	number of ops
 * @out:	the launch structure as the module returned it (may be NULL)
 *
 * Return: 0 or -errno of UVM_TEST_IOC_LAUNCH.
 */
static inline int uvm_launch(int fd, uint32_t gpu, uint32_t warps,
			     struct uvm_test_gpu_op *ops, uint32_t nops,
			     struct uvm_test_launch *out)
{
	struct uvm_test_launch l = {
		.gpu_index = gpu,
		.num_warps = warps,
		.ops_ptr = (uintptr_t)ops,
		.num_ops = nops,
	};
	int ret = uvm_ioctl(fd, UVM_TEST_IOC_LAUNCH, &l);

	if (out)
		*out = l;
	return ret;
}

/* One op, convenience. */
static inline int uvm_launch1(int fd, uint32_t gpu, uint32_t warps,
			      struct uvm_test_gpu_op op, struct uvm_test_gpu_op *out)
{
	int ret = uvm_launch(fd, gpu, warps, &op, 1, NULL);

	if (out)
		*out = op;
	return ret;
}

/* Expected values */

static inline uint64_t uvm_pattern_word(uint64_t value, const void *addr)
{
	return UVM_TEST_PATTERN_WORD(value, (uintptr_t)addr);
}

/* Fill @len bytes (multiple of 8) at @buf with the pattern of GPU address @gpu_addr. */
static inline void uvm_pattern_fill(void *buf, const void *gpu_addr, uint64_t len,
				    uint64_t value)
{
	uint64_t *w = buf;
	uint64_t i;

	for (i = 0; i < len / 8; i++)
		w[i] = UVM_TEST_PATTERN_WORD(value, (uintptr_t)gpu_addr + 8 * i);
}

/*
 * Index of the first word of [addr, +len) that is not the pattern, or -1.
 */
static inline long uvm_pattern_mismatch(const void *addr, uint64_t len, uint64_t value)
{
	const volatile uint64_t *w = addr;
	uint64_t i;

	for (i = 0; i < len / 8; i++)
		if (w[i] != UVM_TEST_PATTERN_WORD(value, (uintptr_t)addr + 8 * i))
			return (long)i;
	return -1;
}

/*
 * Checksum a READ op reports for a dense read of @len bytes at GPU address
 * @gpu_addr whose contents are @contents (a CPU copy laid out like memory).
 */
static inline uint64_t uvm_checksum(const void *contents, const void *gpu_addr,
				    uint64_t len)
{
	const uint64_t *w = contents;
	uint64_t sum = 0, i;

	for (i = 0; i < len / 8; i++)
		sum += UVM_TEST_CHECKSUM_TERM(w[i], (uintptr_t)gpu_addr + 8 * i);
	return sum;
}

/* Checksum of a dense read of memory holding the pattern of @value. */
static inline uint64_t uvm_pattern_checksum(const void *gpu_addr, uint64_t len,
					    uint64_t value)
{
	uint64_t sum = 0, i, a;

	for (i = 0; i < len / 8; i++) {
		a = (uintptr_t)gpu_addr + 8 * i;
		sum += UVM_TEST_CHECKSUM_TERM(UVM_TEST_PATTERN_WORD(value, a), a);
	}
	return sum;
}

/*
 * Deterministic pseudo-random bytes (xorshift64*), seeded: byte i is byte
 * i % 8 (little endian) of the output for word i / 8.  Whole words are
 * stored at once (MiB-sized buffers under TCG).
 */
static inline void uvm_random_fill(void *buf, uint64_t len, uint64_t seed)
{
	uint8_t *p = buf;
	uint64_t x = seed * 0x9E3779B97F4A7C15ULL + 1, i, w, k;

	for (i = 0; i < len; i += 8) {
		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		w = x * 0x2545F4914F6CDD1DULL;
		if (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && len - i >= 8) {
			memcpy(p + i, &w, 8);
			continue;
		}
		for (k = 0; k < 8 && i + k < len; k++)
			p[i + k] = (uint8_t)(w >> (8 * k));
	}
}

/* Index of the first byte that differs, or -1. */
static inline long uvm_memcmp_at(const void *a, const void *b, uint64_t len)
{
	const volatile uint8_t *x = a;
	const uint8_t *y = b;
	uint64_t i;

	for (i = 0; i < len; i++)
		if (x[i] != y[i])
			return (long)i;
	return -1;
}

/* Index of the first non-zero byte, or -1. */
static inline long uvm_nonzero_at(const void *a, uint64_t len)
{
	const volatile uint8_t *x = a;
	uint64_t i;

	for (i = 0; i < len; i++)
		if (x[i])
			return (long)i;
	return -1;
}

/* Managed memory */

/* mmap a managed range of @len bytes; MAP_FAILED on error (errno set). */
static inline void *uvm_mmap(const struct uvm_dev *dev, uint64_t len)
{
	return mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, dev->fd, 0);
}

/*
 * An address range that is certainly not mapped in this process: reserved
 * with PROT_NONE then unmapped.
 */
static inline void *uvm_unmapped_address(uint64_t len)
{
	void *p = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	munmap(p, len);
	return p;
}

/**
 * uvm_map_skewed() - mmap at a chosen distance from a 2 MiB boundary
 * @len:	bytes
 * @skew:	the mapping starts @skew bytes (a page multiple) past a 2 MiB
 *		(VA block) boundary
 * @prot:	PROT_*
 * @flags:	MAP_* (MAP_FIXED is added)
 * @fd:		file, -1 for anonymous memory
 * @offset:	file offset
 *
 * Lets tests place any kind of memory so that they know exactly which
 * blocks and vidmem chunks it touches.  Return: the mapping, or MAP_FAILED
 * (errno set).
 */
static inline void *uvm_map_skewed(uint64_t len, uint64_t skew, int prot, int flags,
				   int fd, uint64_t offset)
{
	uint64_t slack = UVM_VA_BLOCK_SIZE, rlen = len + skew + slack;
	uint8_t *r, *a;
	void *p;
	int err;

	r = mmap(NULL, rlen, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (r == MAP_FAILED)
		return r;
	a = (uint8_t *)(((uintptr_t)r + slack - 1) & ~(uintptr_t)(slack - 1)) + skew;
	p = mmap(a, len, prot, flags | MAP_FIXED, fd, (off_t)offset);
	if (p == MAP_FAILED) {
		err = errno;
		munmap(r, rlen);
		errno = err;
		return p;
	}
	if (a > r)
		munmap(r, a - r);
	if (r + rlen > a + len)
		munmap(a + len, (r + rlen) - (a + len));
	return p;
}

/*
 * mmap a managed range of @len bytes starting on a 2 MiB (VA block)
 * boundary, so that tests can count blocks and vidmem chunks exactly.
 * MAP_FAILED on error.
 */
static inline void *uvm_mmap_block_aligned(const struct uvm_dev *dev, uint64_t len)
{
	return uvm_map_skewed(len, 0, PROT_READ | PROT_WRITE, MAP_SHARED, dev->fd,
			      UVM_MMAP_MANAGED);
}

/*
 * Touch one byte in this process and report the signal it raised, 0 for
 * none: managed ranges are not inherited by fork children, so checks that a
 * page is gone (or read-only) must run in the process that mapped it.
 */
static sigjmp_buf __uvm_touch_jmp;

static inline void __uvm_touch_handler(int sig)
{
	siglongjmp(__uvm_touch_jmp, sig);
}

static inline int uvm_touch_signal(void *addr, bool write)
{
	struct sigaction sa = { .sa_handler = __uvm_touch_handler }, old_segv, old_bus;
	volatile int sig;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, &old_segv);
	sigaction(SIGBUS, &sa, &old_bus);
	sig = sigsetjmp(__uvm_touch_jmp, 1);
	if (!sig) {
		if (write)
			*(volatile uint8_t *)addr = 0x5a;
		else
			(void)*(volatile uint8_t *)addr;
	}
	sigaction(SIGSEGV, &old_segv, NULL);
	sigaction(SIGBUS, &old_bus, NULL);
	return sig;
}

/* Policy, migration and queries (API 1.1) */

static inline struct uvm_location uvm_loc(uint32_t type, int32_t id)
{
	return (struct uvm_location){ .type = type, .id = id };
}

#define UVM_LOC_GPU(g)		uvm_loc(UVM_LOCATION_GPU, (int32_t)(g))
#define UVM_LOC_HOST		uvm_loc(UVM_LOCATION_HOST, 0)
#define UVM_LOC_NUMA(n)		uvm_loc(UVM_LOCATION_HOST_NUMA, (n))
#define UVM_LOC_NUMA_CURRENT	uvm_loc(UVM_LOCATION_HOST_NUMA_CURRENT, 0)
#define UVM_LOC_INVALID		uvm_loc(UVM_LOCATION_INVALID, 0)

/* The residency-mask bit of the processor a location names (host: the CPU). */
static inline uint64_t uvm_loc_bit(struct uvm_location loc)
{
	return loc.type == UVM_LOCATION_GPU ? UVM_GPU_BIT(loc.id) : UVM_CPU_BIT;
}

static inline bool uvm_loc_equal(struct uvm_location a, struct uvm_location b)
{
	return a.type == b.type && a.id == b.id;
}

/*
 * ASSERT that a reported location is @want: the type always, the id only
 * where it means something (GPU, HOST_NUMA); CUDA says to ignore it otherwise.
 */
#define ASSERT_LOCATION(want, got) do {						\
	struct uvm_location __w = (want), __g = (got);				\
	ASSERT_EQ(__w.type, __g.type) {						\
		TH_LOG("location type %u id %d, want type %u id %d",		\
		       __g.type, __g.id, __w.type, __w.id);			\
	}									\
	if (__w.type == UVM_LOCATION_GPU || __w.type == UVM_LOCATION_HOST_NUMA)	\
		ASSERT_EQ(__w.id, __g.id);					\
} while (0)

/* UVM_IOC_ADVISE on [addr, +len). */
static inline int uvm_advise(int fd, const void *addr, uint64_t len, uint32_t advice,
			     struct uvm_location loc)
{
	struct uvm_ioc_advise args = {
		.address = (uintptr_t)addr,
		.length = len,
		.advice = advice,
		.location = loc,
	};

	return uvm_ioctl(fd, UVM_IOC_ADVISE, &args);
}

/**
 * uvm_migrate() - UVM_IOC_MIGRATE of a batch
 * @fd:		the VA space
 * @op:		UVM_MIGRATE_*
 * @flags:	UVM_MIGRATE_ASYNC or 0
 * @ranges:	@count ranges
 * @count:	ranges
 * @locs:	@nlocs destinations (NULL for DISCARD)
 * @starts:	@nlocs location starts (NULL for DISCARD)
 * @nlocs:	destinations
 * @out:	the structure as the module returned it (fence, bad_range,
 *		bad_location); may be NULL
 *
 * Return: 0 or -errno.
 */
static inline int uvm_migrate(int fd, uint32_t op, uint32_t flags,
			      const struct uvm_range *ranges, uint64_t count,
			      const struct uvm_location *locs, const uint64_t *starts,
			      uint32_t nlocs, struct uvm_ioc_migrate *out)
{
	struct uvm_ioc_migrate args = {
		.op = op,
		.flags = flags,
		.ranges_ptr = (uintptr_t)ranges,
		.count = count,
		.locations_ptr = (uintptr_t)locs,
		.location_starts_ptr = (uintptr_t)starts,
		.num_locations = nlocs,
	};
	int ret = uvm_ioctl(fd, UVM_IOC_MIGRATE, &args);

	if (out)
		*out = args;
	return ret;
}

/* One range, one destination: PREFETCH or DISCARD_PREFETCH, sync or async. */
static inline int uvm_migrate1(int fd, uint32_t op, uint32_t flags, const void *addr,
			       uint64_t len, struct uvm_location loc, uint64_t *fence)
{
	struct uvm_range r = { .address = (uintptr_t)addr, .length = len };
	struct uvm_ioc_migrate out;
	uint64_t start = 0;
	int ret;

	ret = uvm_migrate(fd, op, flags, &r, 1, op == UVM_MIGRATE_DISCARD ? NULL : &loc,
			  op == UVM_MIGRATE_DISCARD ? NULL : &start,
			  op == UVM_MIGRATE_DISCARD ? 0 : 1, &out);
	if (fence)
		*fence = out.fence;
	return ret;
}

/* Synchronous prefetch of [addr, +len) to @loc. */
static inline int uvm_prefetch(int fd, const void *addr, uint64_t len,
			       struct uvm_location loc)
{
	return uvm_migrate1(fd, UVM_MIGRATE_PREFETCH, 0, addr, len, loc, NULL);
}

/* Synchronous discard of [addr, +len). */
static inline int uvm_discard(int fd, const void *addr, uint64_t len)
{
	return uvm_migrate1(fd, UVM_MIGRATE_DISCARD, 0, addr, len, UVM_LOC_INVALID, NULL);
}

/* Synchronous discard-and-prefetch of [addr, +len) to @loc. */
static inline int uvm_discard_prefetch(int fd, const void *addr, uint64_t len,
				       struct uvm_location loc)
{
	return uvm_migrate1(fd, UVM_MIGRATE_DISCARD_PREFETCH, 0, addr, len, loc, NULL);
}

/* UVM_IOC_FENCE_WAIT; @completed (may be NULL) gets the highest completed fence. */
static inline int uvm_fence_wait(int fd, uint64_t fence, uint32_t flags, uint64_t *completed)
{
	struct uvm_ioc_fence_wait args = { .fence = fence, .flags = flags };
	int ret = uvm_ioctl(fd, UVM_IOC_FENCE_WAIT, &args);

	if (completed)
		*completed = args.completed;
	return ret;
}

/* UVM_IOC_FENCE_TIME: when @fence completed (CLOCK_MONOTONIC ns). */
static inline int uvm_fence_time(int fd, uint64_t fence, uint64_t *ns)
{
	struct uvm_ioc_fence_time args = { .fence = fence };
	int ret = uvm_ioctl(fd, UVM_IOC_FENCE_TIME, &args);

	if (ns)
		*ns = args.completed_ns;
	return ret;
}

/* UVM_IOC_RANGE_QUERY of [addr, +len) into @out. */
static inline int uvm_range_query(int fd, const void *addr, uint64_t len,
				  struct uvm_ioc_range_query *out)
{
	memset(out, 0, sizeof(*out));
	out->address = (uintptr_t)addr;
	out->length = len;
	return uvm_ioctl(fd, UVM_IOC_RANGE_QUERY, out);
}

/* UVM_IOC_POINTER_INFO of @addr into @out. */
static inline int uvm_pointer_info(int fd, const void *addr, struct uvm_ioc_pointer_info *out)
{
	memset(out, 0, sizeof(*out));
	out->address = (uintptr_t)addr;
	return uvm_ioctl(fd, UVM_IOC_POINTER_INFO, out);
}

/*
 * GPU @gpu reads [addr, +len) into @out (one warp, 64-byte accesses);
 * @faults (may be NULL) gets the fault entries the launch raised.
 * Return: 0 or -errno of the launch.
 */
static inline int uvm_gpu_read(int fd, uint32_t gpu, const void *addr, uint64_t len,
			       void *out, uint64_t *faults)
{
	struct uvm_test_gpu_op op = uvm_op_read(addr, len, len % 64 ? 8 : 64, out);
	struct uvm_test_launch l;
	int ret = uvm_launch(fd, gpu, 1, &op, 1, &l);

	if (faults)
		*faults = l.faults_raised;
	return ret;
}

/* GPU @gpu writes @src to [addr, +len), like uvm_gpu_read(). */
static inline int uvm_gpu_write(int fd, uint32_t gpu, const void *addr, uint64_t len,
				const void *src, uint64_t *faults)
{
	struct uvm_test_gpu_op op = uvm_op_write(addr, len, len % 64 ? 8 : 64, src);
	struct uvm_test_launch l;
	int ret = uvm_launch(fd, gpu, 1, &op, 1, &l);

	if (faults)
		*faults = l.faults_raised;
	return ret;
}

/*
 * Two managed ranges of @len bytes each, adjacent in the address space
 * (@p[1] == @p[0] + len), from two mmap() calls.  Return: 0 or -errno.
 */
static inline int uvm_mmap_adjacent(const struct uvm_dev *dev, uint64_t len, uint8_t *p[2])
{
	uint8_t *r = mmap(NULL, 2 * len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int i;

	if (r == MAP_FAILED)
		return -errno;
	for (i = 0; i < 2; i++) {
		p[i] = mmap(r + i * len, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
			    dev->fd, 0);
		if (p[i] == MAP_FAILED) {
			munmap(r, 2 * len);
			return -errno;
		}
	}
	return 0;
}

/**
 * struct uvm_env - a VA space with one managed range and scratch buffers:
 * the state every test of the policy and migration suites starts from
 * @dev:	the open /dev/uvm
 * @ps:		page size
 * @npages:	pages of @p
 * @len:	bytes of @p
 * @p:		an untouched managed range of @npages pages
 * @ref:	@len random bytes (what tests write and expect back)
 * @out:	@len bytes for GPU reads
 * @zero:	@len zero bytes
 */
struct uvm_env {
	struct uvm_dev dev;
	uint64_t ps;
	uint64_t npages;
	uint64_t len;
	uint8_t *p;
	uint8_t *ref;
	uint8_t *out;
	uint8_t *zero;
};

/**
 * uvm_env_setup() - the body of a policy/migration FIXTURE_SETUP
 * @env:	filled in
 * @npages:	pages of the managed range
 * @min_gpus:	skip with fewer GPUs
 */
#define uvm_env_setup(env, npages, min_gpus) \
	__uvm_env_setup(_metadata, env, npages, min_gpus)

static inline void __uvm_env_setup(struct __test_metadata *_metadata,
				   struct uvm_env *env, uint64_t npages,
				   uint32_t min_gpus)
{
	__uvm_dev_setup(_metadata, &env->dev, UVM_NEED_TEST_IOCTLS, min_gpus);
	env->ps = env->dev.page_size;
	env->npages = npages;
	env->len = npages * env->ps;
	env->p = uvm_mmap(&env->dev, env->len);
	ASSERT_NE(MAP_FAILED, env->p);
	env->ref = malloc(env->len);
	env->out = malloc(env->len);
	env->zero = calloc(1, env->len);
	ASSERT_NE(NULL, env->ref);
	ASSERT_NE(NULL, env->out);
	ASSERT_NE(NULL, env->zero);
	uvm_random_fill(env->ref, env->len, 0x5eed + npages);
}

static inline void uvm_env_teardown(struct uvm_env *env)
{
	if (env->p && env->p != MAP_FAILED)
		munmap(env->p, env->len);
	free(env->ref);
	free(env->out);
	free(env->zero);
	uvm_dev_teardown(&env->dev);
}

/* Fault counts not checked by ASSERT_GPU_READ(). */
#define UVM_ANY_FAULTS	UINT64_MAX

/*
 * ASSERT that GPU @gpu reads exactly the @len bytes @want at @addr (into
 * env->out), raising @faults fault entries (UVM_ANY_FAULTS: any number).
 */
#define ASSERT_GPU_READ(env, gpu, addr, len, want, faults) do {			\
	uint64_t __faults = 0, __want_faults = (faults);			\
	memset((env)->out, 0xa5, (len));					\
	ASSERT_EQ(0, uvm_gpu_read((env)->dev.fd, (gpu), (addr), (len),		\
				  (env)->out, &__faults));			\
	ASSERT_EQ(-1, uvm_memcmp_at((env)->out, (want), (len))) {		\
		TH_LOG("GPU %u read of %p differs", (unsigned int)(gpu),	\
		       (void *)(addr));						\
	}									\
	if (__want_faults != UVM_ANY_FAULTS)					\
		ASSERT_EQ(__want_faults, __faults) {				\
			TH_LOG("faults raised by the GPU %u read",		\
			       (unsigned int)(gpu));				\
		}								\
} while (0)

/* ASSERT that GPU @gpu writes @src to [addr, +len) raising @faults faults. */
#define ASSERT_GPU_WRITE(env, gpu, addr, len, src, faults) do {		\
	uint64_t __faults = 0, __want_faults = (faults);			\
	ASSERT_EQ(0, uvm_gpu_write((env)->dev.fd, (gpu), (addr), (len),	\
				   (src), &__faults));				\
	if (__want_faults != UVM_ANY_FAULTS)					\
		ASSERT_EQ(__want_faults, __faults) {				\
			TH_LOG("faults raised by the GPU %u write",		\
			       (unsigned int)(gpu));				\
		}								\
} while (0)

/* ASSERT that the CPU reads exactly the @len bytes @want at @addr. */
#define ASSERT_CPU_READ(addr, len, want) \
	ASSERT_EQ(-1, uvm_memcmp_at((addr), (want), (len)))

/* Snapshot the counters, run @stmt, store the delta in @d. */
#define UVM_COUNT_DELTA(fd, d, stmt) do {					\
	struct uvm_counters __before, __after;					\
	ASSERT_EQ(0, uvm_counters((fd), &__before));				\
	stmt;									\
	ASSERT_EQ(0, uvm_counters((fd), &__after));				\
	(d) = uvm_counters_delta(&__before, &__after);				\
} while (0)

/* Host NUMA nodes */

/* NUMA node of the CPU the caller runs on (getcpu()), or -1. */
static inline int uvm_current_node(void)
{
	unsigned int cpu, node;

	return getcpu(&cpu, &node) ? -1 : (int)node;
}

/*
 * Whether NUMA node @node has memory, from /sys/devices/system/node/has_memory
 * (a list such as "0" or "0-1,3"); without that file only node 0 has.
 */
static inline bool uvm_node_has_memory(int node)
{
	FILE *f = fopen("/sys/devices/system/node/has_memory", "re");
	char buf[256], *s, *end;
	bool found = false;
	long a, b;

	if (!f)
		return node == 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	for (s = buf; *s && *s != '\n' && !found; s = end + (*end == ',')) {
		a = strtol(s, &end, 10);
		if (end == s)
			break;
		b = a;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		found = node >= a && node <= b;
	}
	return found;
}

/* The lowest node with memory (a valid HOST_NUMA id), or -1. */
static inline int uvm_node_with_memory(void)
{
	int n;

	for (n = 0; n < 4096; n++)
		if (uvm_node_has_memory(n))
			return n;
	return -1;
}

/* The lowest node id without memory (a HOST_NUMA id the module must refuse). */
static inline int uvm_node_without_memory(void)
{
	int n;

	for (n = 0; uvm_node_has_memory(n); n++)
		;
	return n;
}

/* Device memory, registered host memory, copies and memsets (API 1.2) */

/*
 * mmap @len bytes of GPU @gpu's memory (PROT_NONE: the CPU cannot access
 * it); MAP_FAILED on error (errno set).
 */
static inline void *uvm_mmap_device(const struct uvm_dev *dev, uint32_t gpu, uint64_t len)
{
	return mmap(NULL, len, PROT_NONE, MAP_SHARED, dev->fd, UVM_MMAP_DEVICE(gpu));
}

/* Device memory of GPU @gpu placed @skew bytes past a 2 MiB boundary. */
static inline void *uvm_mmap_device_skewed(const struct uvm_dev *dev, uint32_t gpu,
					   uint64_t len, uint64_t skew)
{
	return uvm_map_skewed(len, skew, PROT_NONE, MAP_SHARED, dev->fd, UVM_MMAP_DEVICE(gpu));
}

/* Number of 2 MiB regions (VA blocks, device-memory chunks) [addr, +len) touches. */
static inline uint64_t uvm_blocks_spanned(const void *addr, uint64_t len)
{
	uint64_t a = (uintptr_t)addr;

	return ((a + len - 1) >> UVM_VA_BLOCK_SHIFT) - (a >> UVM_VA_BLOCK_SHIFT) + 1;
}

/* UVM_IOC_HOST_REGISTER; @buffer_id (may be NULL) gets the new buffer id. */
static inline int uvm_host_register(int fd, const void *addr, uint64_t len, uint32_t flags,
				    uint64_t *buffer_id)
{
	struct uvm_ioc_host_register args = {
		.address = (uintptr_t)addr,
		.length = len,
		.flags = flags,
	};
	int ret = uvm_ioctl(fd, UVM_IOC_HOST_REGISTER, &args);

	if (buffer_id)
		*buffer_id = args.buffer_id;
	return ret;
}

/* UVM_IOC_HOST_UNREGISTER of the registration starting at @addr. */
static inline int uvm_host_unregister(int fd, const void *addr)
{
	struct uvm_ioc_host_unregister args = { .address = (uintptr_t)addr };

	return uvm_ioctl(fd, UVM_IOC_HOST_UNREGISTER, &args);
}

/* UVM_IOC_COPY by GPU @gpu's engine; @fence (may be NULL) gets its fence. */
static inline int uvm_copy(int fd, const void *dst, const void *src, uint64_t len,
			   uint32_t gpu, uint32_t flags, uint64_t *fence)
{
	struct uvm_ioc_copy args = {
		.dst = (uintptr_t)dst,
		.src = (uintptr_t)src,
		.length = len,
		.gpu_index = gpu,
		.flags = flags,
	};
	int ret = uvm_ioctl(fd, UVM_IOC_COPY, &args);

	if (fence)
		*fence = args.fence;
	return ret;
}

/*
 * UVM_IOC_COPY_3D of @depth slices of @height rows of @width bytes; each side
 * a struct uvm_box (address, pitch, slice pitch); @fence may be NULL.
 */
static inline int uvm_copy_3d(int fd, struct uvm_box dst, struct uvm_box src, uint64_t width,
			      uint32_t height, uint32_t depth, uint32_t gpu, uint32_t flags,
			      uint64_t *fence)
{
	struct uvm_ioc_copy_3d args = {
		.dst = dst,
		.src = src,
		.width = width,
		.height = height,
		.depth = depth,
		.gpu_index = gpu,
		.flags = flags,
	};
	int ret = uvm_ioctl(fd, UVM_IOC_COPY_3D, &args);

	if (fence)
		*fence = args.fence;
	return ret;
}

/* UVM_IOC_COPY_BATCH of @count copies; @fence and @failed (may be NULL) get its outputs. */
static inline int uvm_copy_batch(int fd, const struct uvm_copy_op *ops, uint32_t count,
				 uint32_t gpu, uint32_t flags, uint64_t *fence, uint32_t *failed)
{
	struct uvm_ioc_copy_batch args = {
		.ops = (uintptr_t)ops,
		.count = count,
		.gpu_index = gpu,
		.flags = flags,
	};
	int ret = uvm_ioctl(fd, UVM_IOC_COPY_BATCH, &args);

	if (fence)
		*fence = args.fence;
	if (failed)
		*failed = args.failed;
	return ret;
}

/* UVM_IOC_MEMSET_3D of a box of @width elements of @esize bytes per row. */
static inline int uvm_memset_3d(int fd, struct uvm_box dst, uint64_t width, uint32_t height,
				uint32_t depth, uint32_t value, uint32_t esize, uint32_t gpu,
				uint32_t flags, uint64_t *fence)
{
	struct uvm_ioc_memset_3d args = {
		.dst = dst,
		.width = width,
		.height = height,
		.depth = depth,
		.value = value,
		.element_size = esize,
		.gpu_index = gpu,
		.flags = flags,
	};
	int ret = uvm_ioctl(fd, UVM_IOC_MEMSET_3D, &args);

	if (fence)
		*fence = args.fence;
	return ret;
}

/* UVM_IOC_MEMSET of @count elements of @esize bytes; @fence may be NULL. */
static inline int uvm_memset(int fd, const void *dst, uint64_t count, uint32_t value,
			     uint32_t esize, uint32_t gpu, uint32_t flags, uint64_t *fence)
{
	struct uvm_ioc_memset args = {
		.dst = (uintptr_t)dst,
		.count = count,
		.value = value,
		.element_size = esize,
		.gpu_index = gpu,
		.flags = flags,
	};
	int ret = uvm_ioctl(fd, UVM_IOC_MEMSET, &args);

	if (fence)
		*fence = args.fence;
	return ret;
}

/*
 * User pages uvm.ko holds pinned now (registered host memory, copies in
 * flight): /sys/class/misc/uvm/pinned_pages, counted by the module itself,
 * so registrations and copies can be checked for exact pin counts and
 * leaks whatever else pins pages (the kernel's nr_foll_pin_* counters also
 * move with 9p I/O on 6.12).  INT64_MIN when unavailable.
 */
static inline int64_t uvm_pins_outstanding(void)
{
	long long v = -1;
	FILE *f = fopen("/sys/class/misc/uvm/pinned_pages", "re");

	if (!f)
		return INT64_MIN;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v < 0 ? INT64_MIN : (int64_t)v;
}

/*
 * The errno of an mmap(MAP_FIXED) that must split a mapping whose
 * ->may_split() refuses with -EINVAL: 6.1's mmap_region() reports any
 * failed split as ENOMEM, 6.12's passes the error on.  Learned from the
 * kernel's own such mapping (hugetlb refuses a split off a huge-page
 * boundary with -EINVAL), not from the version.  0 when hugetlb mappings
 * are unavailable.
 */
static inline int uvm_split_refused_errno(void)
{
	const size_t huge = 2UL << 20;
	int err = 0;
	char *p, *q;

	p = mmap(NULL, 2 * huge, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return 0;
	q = mmap(p + huge + 4096, 4096, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (q == MAP_FAILED)
		err = errno;
	munmap(p, 2 * huge);
	return err;
}

/* Wait up to a few seconds for uvm_pins_outstanding() to be @want; returns the last value. */
static inline int64_t uvm_pins_wait(int64_t want)
{
	int64_t pins = 0;
	int i;

	for (i = 0; i < 500; i++) {
		pins = uvm_pins_outstanding();
		if (pins == want)
			break;
		usleep(10000);
	}
	return pins;
}

/* Index of the first byte that differs (memcmp first: fast when equal), or -1. */
static inline long uvm_bytes_differ(const void *got, const void *want, uint64_t len)
{
	return memcmp(got, want, len) ? uvm_memcmp_at(got, want, len) : -1;
}

/* ASSERT that the @len bytes at @got are exactly those at @want. */
#define ASSERT_BYTES(got, want, len) do {						const uint8_t *__g = (const uint8_t *)(got), *__w = (const uint8_t *)(want); 	long __at = uvm_bytes_differ(__g, __w, (len));					ASSERT_EQ(-1, __at) {									TH_LOG("byte %ld of %llu differs: %#x, want %#x", __at,				       (unsigned long long)(len), __g[__at], __w[__at]);		}									} while (0)

/* Virtual memory management (API 1.3) */

/* UVM_IOC_MEM_CREATE of @size bytes at @loc; *@handle (may be NULL) gets the handle. */
static inline int uvm_mem_create(int fd, uint64_t size, struct uvm_location loc,
				 uint32_t types, uint64_t *handle)
{
	struct uvm_ioc_mem_create c = { .size = size, .location = loc,
					.handle_types = types };
	int ret = uvm_ioctl(fd, UVM_IOC_MEM_CREATE, &c);

	if (handle)
		*handle = ret ? 0 : c.handle;
	return ret;
}

static inline int uvm_mem_release(int fd, uint64_t handle)
{
	struct uvm_ioc_mem_release r = { .handle = handle };

	return uvm_ioctl(fd, UVM_IOC_MEM_RELEASE, &r);
}

static inline int uvm_mem_map(int fd, const void *addr, uint64_t size, uint64_t offset,
			      uint64_t handle)
{
	struct uvm_ioc_mem_map m = { .address = (uintptr_t)addr, .size = size,
				     .offset = offset, .handle = handle };

	return uvm_ioctl(fd, UVM_IOC_MEM_MAP, &m);
}

static inline int uvm_mem_unmap(int fd, const void *addr, uint64_t size)
{
	struct uvm_ioc_mem_unmap u = { .address = (uintptr_t)addr, .size = size };

	return uvm_ioctl(fd, UVM_IOC_MEM_UNMAP, &u);
}

/* UVM_IOC_MEM_SET_ACCESS of one processor over [addr, +size). */
static inline int uvm_mem_set_access(int fd, const void *addr, uint64_t size,
				     struct uvm_location loc, uint32_t prot)
{
	struct uvm_mem_access d = { .location = loc, .prot = prot };
	struct uvm_ioc_mem_set_access s = { .address = (uintptr_t)addr, .size = size,
					    .descs_ptr = (uintptr_t)&d, .count = 1 };

	return uvm_ioctl(fd, UVM_IOC_MEM_SET_ACCESS, &s);
}

/* UVM_IOC_MEM_EXPORT as a descriptor: the descriptor or -errno. */
static inline int uvm_mem_export(int fd, uint64_t handle)
{
	struct uvm_ioc_mem_export e = { .handle = handle,
					.handle_type = UVM_MEM_HANDLE_FD };
	int ret = uvm_ioctl(fd, UVM_IOC_MEM_EXPORT, &e);

	return ret ? ret : e.fd;
}

static inline int uvm_mem_import(int fd, int shared, uint64_t *handle)
{
	struct uvm_ioc_mem_import i = { .fd = shared };
	int ret = uvm_ioctl(fd, UVM_IOC_MEM_IMPORT, &i);

	*handle = ret ? 0 : i.handle;
	return ret;
}

/* A reservation of @len bytes on a 2 MiB boundary; MAP_FAILED on error. */
static inline uint8_t *uvm_reserve(int fd, uint64_t len)
{
	return uvm_map_skewed(len, 0, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			      UVM_MMAP_RESERVE);
}

/*
 * UVM_TEST_IOC_QUEUE_GATE: CLOSE (*@fence, may be NULL, gets its fence) or
 * OPEN; @flags UVM_TEST_GATE_* of CLOSE.
 */
static inline int uvm_queue_gate_flags(int fd, uint32_t op, uint32_t flags, uint64_t *fence)
{
	struct uvm_test_queue_gate g = { .op = op, .flags = flags };
	int ret = uvm_ioctl(fd, UVM_TEST_IOC_QUEUE_GATE, &g);

	if (fence)
		*fence = g.fence;
	return ret;
}

static inline int uvm_queue_gate(int fd, uint32_t op, uint64_t *fence)
{
	return uvm_queue_gate_flags(fd, op, 0, fence);
}

/* Processes and threads */

/*
 * How a child ended, encoded in one int for assertions:
 * exit code 0..255, or 1000 + signal number.
 */
#define UVM_CHILD_SIGNALED(sig)	(1000 + (sig))

static inline int uvm_wait_child(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFSIGNALED(status))
		return UVM_CHILD_SIGNALED(WTERMSIG(status));
	return WEXITSTATUS(status);
}

/*
 * Run fn(arg) in a fork child, which exits with fn's return value; return
 * how the child ended (see UVM_CHILD_SIGNALED), or -errno of fork.
 */
static inline int uvm_run_child(int (*fn)(void *arg), void *arg)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0)
		_exit(fn(arg) & 0xff);
	return uvm_wait_child(pid);
}

/* A read or write of one byte, in a child that is expected to die of it. */
static inline int __uvm_touch_read(void *arg)
{
	return *(volatile uint8_t *)arg;
}

static inline int __uvm_touch_write(void *arg)
{
	*(volatile uint8_t *)arg = 1;
	return 0;
}

#define uvm_child_read(addr)	uvm_run_child(__uvm_touch_read, (void *)(addr))
#define uvm_child_write(addr)	uvm_run_child(__uvm_touch_write, (void *)(addr))

static inline pid_t uvm_gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/*
 * Wait until task @tid of process @pid (0: this process) is blocked in
 * system call @nr, read from /proc/PID/task/TID/syscall.  Gives up after
 * @timeout_ms.
 *
 * Return: 0 once seen, -ETIMEDOUT, or -errno when the file cannot be read
 * (the task is gone).
 */
static inline int uvm_wait_in_syscall(pid_t pid, pid_t tid, long nr, int timeout_ms)
{
	char path[64], buf[128];
	int i, fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall",
		 pid ? pid : getpid(), tid);
	for (i = 0; i < timeout_ms; i++) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n > 0) {
			buf[n] = 0;
			if (strtol(buf, NULL, 10) == nr)
				return 0;
		}
		usleep(1000);
	}
	return -ETIMEDOUT;
}

/* Write a run-time module parameter.  Return: 0 or -errno. */
static inline int uvm_param_write(const char *name, const char *value)
{
	char path[128];
	int fd, ret;

	snprintf(path, sizeof(path), UVM_PARAM_DIR "%s", name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	ret = write(fd, value, strlen(value)) < 0 ? -errno : 0;
	close(fd);
	return ret;
}

static inline uint64_t uvm_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Pageable memory (HMM) */

/* The module mirrors pageable memory into the GPUs (UVM_CAP_HMM_MIRROR). */
static inline bool uvm_has_hmm(const struct uvm_dev *dev)
{
	return dev->ver.caps & UVM_CAP_HMM_MIRROR;
}

/* Pageable memory also migrates to device-private vidmem. */
static inline bool uvm_has_device_private(const struct uvm_dev *dev)
{
	return dev->ver.caps & UVM_CAP_DEVICE_PRIVATE;
}


/*
 * Pass descriptor @fd over the unix socket @sock (SCM_RIGHTS, one data
 * byte).  Return: 0 or -errno.
 */
static inline int uvm_send_fd(int sock, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = {};
	char byte = 'u';
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == 1 ? 0 : -errno;
}

/*
 * Receive a descriptor uvm_send_fd() passed over @sock (close-on-exec).
 * Return: the descriptor, -errno, or -EBADMSG when none came with the byte.
 */
static inline int uvm_recv_fd(int sock)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = {};
	char byte;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm;
	int fd;

	if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != 1)
		return -errno;
	cm = CMSG_FIRSTHDR(&msg);
	if (!cm || cm->cmsg_type != SCM_RIGHTS)
		return -EBADMSG;
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

/*
 * Anonymous private memory of @len bytes starting on a 2 MiB boundary (one
 * HMM region per 2 MiB), with protection @prot; MAP_FAILED on error.
 * Release it with munmap(p, len).
 */
static inline void *uvm_mmap_anon_aligned(uint64_t len, int prot)
{
	uint64_t slack = UVM_VA_BLOCK_SIZE;
	uint8_t *r, *a;

	r = mmap(NULL, len + slack, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (r == MAP_FAILED)
		return r;
	a = (uint8_t *)(((uintptr_t)r + slack - 1) & ~(uintptr_t)(slack - 1));
	if (a > r)
		munmap(r, a - r);
	if (r + len + slack > a + len)
		munmap(a + len, (r + len + slack) - (a + len));
	return a;
}

#endif /* _UVM_TEST_UTIL_H_ */
