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
 *  - process and thread helpers: run a function in a fork child and report
 *    how it ended, wait until a thread is blocked inside an ioctl.
 *
 * Helpers never assert; tests do, so failures point at the test's line.
 */
#ifndef _UVM_TEST_UTIL_H_
#define _UVM_TEST_UTIL_H_

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "uvm.h"
#include "uvm_test.h"

#define UVM_DEV_PATH		"/dev/uvm"
#define UVM_SYSFS_GPU_FMT	"/sys/class/misc/uvm/gpu%u/%s"

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

static inline const char *uvm_counter_name(unsigned int i)
{
	static const char *const names[UVM_COUNTER_COUNT] = {
		[UVM_COUNTER_GPU_FAULTS] = "gpu_faults",
		[UVM_COUNTER_GPU_FAULTS_DUP] = "gpu_faults_dup",
		[UVM_COUNTER_GPU_FAULT_BATCHES] = "gpu_fault_batches",
		[UVM_COUNTER_GPU_REPLAYS] = "gpu_replays",
		[UVM_COUNTER_GPU_FATAL_FAULTS] = "gpu_fatal_faults",
		[UVM_COUNTER_CPU_FAULTS] = "cpu_faults",
		[UVM_COUNTER_PAGES_H2D] = "pages_h2d",
		[UVM_COUNTER_PAGES_D2H] = "pages_d2h",
		[UVM_COUNTER_PAGES_D2D] = "pages_d2d",
		[UVM_COUNTER_BYTES_H2D] = "bytes_h2d",
		[UVM_COUNTER_BYTES_D2H] = "bytes_d2h",
		[UVM_COUNTER_BYTES_D2D] = "bytes_d2d",
		[UVM_COUNTER_PAGES_POPULATED_CPU] = "pages_populated_cpu",
		[UVM_COUNTER_PAGES_POPULATED_GPU] = "pages_populated_gpu",
		[UVM_COUNTER_GPU_PAGES_MAPPED] = "gpu_pages_mapped",
		[UVM_COUNTER_GPU_PAGES_UNMAPPED] = "gpu_pages_unmapped",
		[UVM_COUNTER_CPU_PAGES_UNMAPPED] = "cpu_pages_unmapped",
	};

	return i < UVM_COUNTER_COUNT && names[i] ? names[i] : "?";
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

static inline int uvm_residency(int fd, const void *addr, uint64_t len,
				struct uvm_test_page_state *states)
{
	struct uvm_test_residency args = {
		.address = (uintptr_t)addr,
		.length = len,
		.states_ptr = (uintptr_t)states,
	};

	return uvm_ioctl(fd, UVM_TEST_IOC_RESIDENCY, &args);
}

/**
 * uvm_residency_check() - every page of a range in one state
 * @fd:		the VA space
 * @addr:	page-aligned start
 * @npages:	pages
 * @page_size:	bytes per page
 * @want:	the state every page must have
 * @bad:	out: index of the first page that differs, or -1
 * @got:	out: its state
 *
 * Return: 0 when every page matches, 1 when one differs, -errno of the ioctl.
 */
static inline int uvm_residency_check(int fd, const void *addr, uint64_t npages,
				      uint64_t page_size,
				      const struct uvm_test_page_state *want,
				      long *bad, struct uvm_test_page_state *got)
{
	struct uvm_test_page_state *st = calloc(npages, sizeof(*st));
	uint64_t i;
	int ret;

	*bad = -1;
	memset(got, 0, sizeof(*got));
	if (!st)
		return -ENOMEM;
	ret = uvm_residency(fd, addr, npages * page_size, st);
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
 * ASSERT that @npages pages at @addr all have state @want, logging the first
 * page that does not.
 */
#define ASSERT_RESIDENCY(dev, addr, npages, want) do {				\
	struct uvm_test_page_state __want = (want), __got;			\
	long __bad;								\
	int __r = uvm_residency_check((dev)->fd, (addr), (npages),		\
				      (dev)->page_size, &__want, &__bad, &__got); \
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

/* Deterministic pseudo-random bytes (xorshift64*), seeded. */
static inline void uvm_random_fill(void *buf, uint64_t len, uint64_t seed)
{
	uint8_t *p = buf;
	uint64_t x = seed * 0x9E3779B97F4A7C15ULL + 1, i;

	for (i = 0; i < len; i++) {
		if (i % 8 == 0) {
			x ^= x >> 12;
			x ^= x << 25;
			x ^= x >> 27;
		}
		p[i] = (uint8_t)((x * 0x2545F4914F6CDD1DULL) >> (8 * (i % 8)));
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

/*
 * mmap a managed range of @len bytes starting on a 2 MiB (VA block)
 * boundary, so that tests can count blocks and vidmem chunks exactly.
 * MAP_FAILED on error.
 */
static inline void *uvm_mmap_block_aligned(const struct uvm_dev *dev, uint64_t len)
{
	uint64_t slack = UVM_VA_BLOCK_SIZE;
	uint8_t *r, *a;
	void *p;

	r = mmap(NULL, len + slack, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		 -1, 0);
	if (r == MAP_FAILED)
		return r;
	a = (uint8_t *)(((uintptr_t)r + slack - 1) & ~(uintptr_t)(slack - 1));
	p = mmap(a, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, dev->fd, 0);
	if (p == MAP_FAILED) {
		munmap(r, len + slack);
		return p;
	}
	if (a > r)
		munmap(r, a - r);
	if (r + len + slack > a + len)
		munmap(a + len, (r + len + slack) - (a + len));
	return p;
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

static inline uint64_t uvm_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

#endif /* _UVM_TEST_UTIL_H_ */
