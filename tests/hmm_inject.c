// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * hmm_inject - fault injection into pageable-memory support.
 *
 * Two sources of failures, each aimed at the module's work only:
 *
 *  - fail_uvm_hmm (debugfs): the module's own injection point, asked by every
 *    allocation and mapping step of uvm_hmm*.c, including those of GPU fault
 *    servicing, which runs in kernel workers;
 *  - failslab and fail_page_alloc with task-filter: every slab and page
 *    allocation made on behalf of one child process (/proc/self/make-it-fail)
 *    fails at random, in its ioctls and in its CPU page faults (migration back
 *    from vidmem among them).
 *
 * Under injection every operation either succeeds with exact data or fails
 * with an error (a fatal GPU fault, -ENOMEM, -EFAULT, -EINTR): the data of
 * the process never changes behind its back, nothing hangs (timeouts), and
 * once injection stops everything works and vidmem returns to where it was.
 * The debug kernel's checkers and a kmemleak scan after the suite judge the
 * rest.  SKIPs where the kernel has no fault injection (the distro kernel).
 */
#include <fcntl.h>
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "uvm_test_util.h"

#define DEBUGFS			"/sys/kernel/debug/"
#define FAIL_HMM		DEBUGFS "fail_uvm_hmm/"
#define FAILSLAB		DEBUGFS "failslab/"
#define FAIL_PAGE_ALLOC		DEBUGFS "fail_page_alloc/"

/* Pages of the buffer each round works on. */
#define INJECT_PAGES		64
#define INJECT_ROUNDS		40

/* Write @val to debugfs file @path; 0 or -errno. */
static int knob(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* Write knob @name of fault_attr directory @dir; 0 or -errno. */
static int attr_knob(const char *dir, const char *name, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), "%s%s", dir, name);
	return knob(path, val);
}

/*
 * Arm (or, with @probability 0, disarm) a fault_attr directory.  The
 * probability is written last when arming and first when disarming: in
 * between, failures would hit every task (this one's writes too).
 */
static int attr_set(const char *dir, int probability, bool task_filter)
{
	char val[16];
	int ret;

	snprintf(val, sizeof(val), "%d", probability);
	if (!probability)
		return attr_knob(dir, "probability", "0");
	ret = attr_knob(dir, "task-filter", task_filter ? "Y" : "N");
	ret = ret ?: attr_knob(dir, "interval", "1");
	ret = ret ?: attr_knob(dir, "times", "-1");
	ret = ret ?: attr_knob(dir, "verbose", "1");
	/* Absent from some directories. */
	attr_knob(dir, "ignore-gfp-wait", "N");
	attr_knob(dir, "ignore-gfp-highmem", "N");
	attr_knob(dir, "min-order", "0");
	attr_knob(dir, "cache-filter", "N");
	return ret ?: attr_knob(dir, "probability", val);
}

FIXTURE(inject) {
	struct uvm_dev dev;
	uint64_t ps;
	uint64_t used0;
	uint8_t *ref;
};

FIXTURE_SETUP(inject)
{
	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, 1);
	if (!uvm_has_hmm(&self->dev))
		UVM_SKIP("uvm.ko without HMM");
	if (access(FAIL_HMM "probability", W_OK))
		UVM_SKIP("no fault injection (needs CONFIG_FAULT_INJECTION_DEBUG_FS)");
	self->ps = self->dev.page_size;
	self->used0 = uvm_vidmem_used(self->dev.fd, 0);
	self->ref = malloc(4 * INJECT_PAGES * self->ps);
	ASSERT_NE(NULL, self->ref);
	uvm_random_fill(self->ref, 4 * INJECT_PAGES * self->ps, 0x1e);
}

FIXTURE_TEARDOWN(inject)
{
	attr_set(FAIL_HMM, 0, false);
	attr_set(FAILSLAB, 0, false);
	attr_set(FAIL_PAGE_ALLOC, 0, false);
	free(self->ref);
	uvm_dev_teardown(&self->dev);
}

/* An error an operation may end with under injection. */
static bool allowed_error(int ret)
{
	return ret == -EREMOTEIO || ret == -ENOMEM || ret == -EFAULT || ret == -EBUSY ||
	       ret == -EINTR;
}

/*
 * After a failed GPU write of @next over @cur, each 64-byte access either
 * happened or not: update @cur to what is there.  Return: false when some
 * access holds neither.
 */
static bool settle_partial_write(const uint8_t *p, uint8_t *cur, const uint8_t *next,
				 uint64_t len)
{
	uint64_t i;

	for (i = 0; i < len; i += 64) {
		if (!memcmp(p + i, next + i, 64))
			memcpy(cur + i, next + i, 64);
		else if (memcmp(p + i, cur + i, 64))
			return false;
	}
	return true;
}

/*
 * One round of operations on @p (@len bytes) whose contents are @cur; each
 * may fail, none may change the data unless it succeeds.  Returns 0, or the
 * line of the first broken promise.
 */
static int inject_round(int fd, uint32_t gpus, uint8_t *p, uint64_t len,
			uint8_t *cur, const uint8_t *next, int round, uint64_t *failed)
{
	struct uvm_test_gpu_op op = uvm_op_read(p, len, 64, NULL);
	uint32_t g = round % gpus;
	int ret;

	/* A GPU read: exact checksum or an error. */
	ret = uvm_launch(fd, g, 4, &op, 1, NULL);
	if (!ret && op.checksum != uvm_checksum(cur, p, len))
		return __LINE__;
	if (ret && !allowed_error(ret))
		return __LINE__;
	*failed += !!ret;

	/* Prefetches both ways. */
	ret = uvm_prefetch(fd, p, len, round % 3 ? UVM_LOC_GPU(g) : UVM_LOC_HOST);
	if (ret && !allowed_error(ret))
		return __LINE__;
	*failed += !!ret;

	/* A GPU write of the next contents: all of it, or an error. */
	op = uvm_op_write(p, len, 64, next);
	ret = uvm_launch(fd, g, 4, &op, 1, NULL);
	if (ret && !allowed_error(ret))
		return __LINE__;
	*failed += !!ret;
	if (!ret)
		memcpy(cur, next, len);
	else if (!settle_partial_write(p, cur, next, len))
		return __LINE__;

	/* The CPU sees exactly that (migrating back where needed). */
	if (uvm_memcmp_at(p, cur, len) != -1)
		return __LINE__;
	return 0;
}

/* fail_uvm_hmm at 10%: GPU faults, migrations, prefetches fail cleanly */
TEST_F_TIMEOUT(inject, module_point, 600)
{
	const uint64_t len = INJECT_PAGES * self->ps;
	uint8_t *p = uvm_mmap_anon_aligned(len, PROT_READ | PROT_WRITE);
	uint8_t *cur = malloc(len);
	uint64_t failed = 0;
	int round, line = 0;

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_NE(NULL, cur);
	memcpy(p, self->ref, len);
	memcpy(cur, self->ref, len);
	ASSERT_EQ(0, attr_set(FAIL_HMM, 10, false));
	for (round = 0; round < INJECT_ROUNDS && !line; round++)
		line = inject_round(self->dev.fd, self->dev.num_gpus, p, len, cur,
				    self->ref + (round % 3 + 1) * len, round, &failed);
	ASSERT_EQ(0, attr_set(FAIL_HMM, 0, false));
	ASSERT_EQ(0, line) TH_LOG("round %d broke the promise at line %d", round, line);
	TH_LOG("%llu operations failed in %d rounds", (unsigned long long)failed, round);
	ASSERT_LT(0ULL, failed);

	/* Injection off: everything works, nothing was lost or leaked. */
	ASSERT_EQ(0, uvm_gpu_write(self->dev.fd, 0, p, len, self->ref, NULL));
	ASSERT_CPU_READ(p, len, self->ref);
	ASSERT_EQ(0, munmap(p, len));
	ASSERT_EQ(self->used0, uvm_vidmem_wait(self->dev.fd, 0, self->used0));
	free(cur);
}

struct child_args {
	int fd;
	uint32_t gpus;
	uint64_t ps;
	const uint8_t *ref;
};

/* The child: make-it-fail on, rounds, make-it-fail off, checks. */
static int slab_page_child(void *arg)
{
	struct child_args *a = arg;
	const uint64_t len = INJECT_PAGES * a->ps;
	uint8_t *p = uvm_mmap_anon_aligned(len, PROT_READ | PROT_WRITE);
	uint8_t *cur = malloc(len);
	uint64_t failed = 0;
	int round, line = 0, fd;

	if (p == MAP_FAILED || !cur)
		return 100;
	memcpy(p, a->ref, len);
	memcpy(cur, a->ref, len);
	fd = uvm_open();
	if (fd < 0)
		return 101;
	if (knob("/proc/self/make-it-fail", "1"))
		return 102;
	for (round = 0; round < INJECT_ROUNDS && !line; round++)
		line = inject_round(fd, a->gpus, p, len, cur,
				    a->ref + (round % 3 + 1) * len, round, &failed);
	knob("/proc/self/make-it-fail", "0");
	if (line) {
		fprintf(stderr, "# child: round %d broke the promise at line %d\n", round, line);
		return 1;
	}
	fprintf(stderr, "# child: %llu operations failed in %d rounds\n",
		(unsigned long long)failed, round);
	if (uvm_memcmp_at(p, cur, len) != -1)
		return 2;
	close(fd);
	return 0;
}

/* failslab + fail_page_alloc at 3% on one process: its syscalls and faults fail cleanly */
TEST_F_TIMEOUT(inject, slab_and_pages_of_a_process, 600)
{
	struct child_args a = {
		.fd = self->dev.fd, .gpus = self->dev.num_gpus, .ps = self->ps,
		.ref = self->ref,
	};
	int ret;

	if (access(FAILSLAB "probability", W_OK) || access(FAIL_PAGE_ALLOC "probability", W_OK))
		UVM_SKIP("no failslab/fail_page_alloc");
	ASSERT_EQ(0, attr_set(FAILSLAB, 3, true));
	ASSERT_EQ(0, attr_set(FAIL_PAGE_ALLOC, 3, true));
	ret = uvm_run_child(slab_page_child, &a);
	attr_set(FAILSLAB, 0, false);
	attr_set(FAIL_PAGE_ALLOC, 0, false);
	ASSERT_EQ(0, ret);
	ASSERT_EQ(self->used0, uvm_vidmem_wait(self->dev.fd, 0, self->used0));
}

/* Both at once, with GPU work from kernel workers and the process's own */
TEST_F_TIMEOUT(inject, everything_at_once, 600)
{
	struct child_args a = {
		.fd = self->dev.fd, .gpus = self->dev.num_gpus, .ps = self->ps,
		.ref = self->ref,
	};
	int ret;

	if (access(FAILSLAB "probability", W_OK) || access(FAIL_PAGE_ALLOC "probability", W_OK))
		UVM_SKIP("no failslab/fail_page_alloc");
	ASSERT_EQ(0, attr_set(FAIL_HMM, 5, false));
	ASSERT_EQ(0, attr_set(FAILSLAB, 2, true));
	ASSERT_EQ(0, attr_set(FAIL_PAGE_ALLOC, 2, true));
	ret = uvm_run_child(slab_page_child, &a);
	attr_set(FAIL_HMM, 0, false);
	attr_set(FAILSLAB, 0, false);
	attr_set(FAIL_PAGE_ALLOC, 0, false);
	ASSERT_EQ(0, ret);
	ASSERT_EQ(self->used0, uvm_vidmem_wait(self->dev.fd, 0, self->used0));
}

TEST_HARNESS_MAIN
