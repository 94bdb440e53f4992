// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * security - what an unprivileged user on a shared node can and cannot do
 * with a precise order of valid calls.
 *
 *  - a job runs against the very memory it was checked against: between the
 *    ioctl that queues a copy or a memset and the moment it runs (held by
 *    the test ioctl UVM_TEST_IOC_QUEUE_GATE), the caller replaces the memory
 *    at its addresses (a writable registration by a read-only mapping of a
 *    root-owned file registered read-only, a VMM mapping by another
 *    allocation, device memory of one GPU by another's, a managed range by
 *    a new one) or lowers a right: the job fails and not a byte of the new
 *    memory changes; a queued discard spares a new managed range;
 *  - a SIGKILLed process is gone within a second (of what its teardown
 *    costs anyway) with the longest work the ABI allows queued (a batch of
 *    16384 copies between registrations of host memory, which outlive its
 *    mappings) or running synchronously (a prefetch of 2^20 ranges);
 *  - a process whose VA space lock stays unavailable (held without end, a
 *    writer waiting, GPU faults pending) does not stall another's faults;
 *  - release cancels queued work at once; errors of failed jobs nobody
 *    waits for are bounded;
 *  - a prefetch, discard or advice over a terabyte of pageable memory costs
 *    no kernel memory per 2 MiB;
 *  - registered host memory counts against RLIMIT_MEMLOCK (VmPin);
 *  - instance ids do not run out: more than 65535 descriptors of one user
 *    leave room for everyone else;
 *  - MEM_EXPORT whose results cannot be copied out leaves no descriptor.
 *
 * Every test that asks for user 65534 ("nobody") runs its body as that
 * user after setting up what only root may (a root-owned file, limits).
 */
#include <dirent.h>
#include <grp.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "kselftest_harness.h"
#include "uvm_test_util.h"

#define G		UVM_MEM_GRANULARITY
#define PAGE		4096ULL
#define NOBODY		65534
#define FILE_BYTE	0x53	/* 'S', every byte of the read-only file */
#define JOB_BYTE	0x41	/* what the queued jobs write */

/* Become user and group 65534 with no supplementary groups: 0 or -errno. */
static int become_nobody(void)
{
	if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
		return -errno;
	return 0;
}

/* A root-owned file of @len bytes of FILE_BYTE, mode 0444: its path. */
static const char *make_root_file(uint64_t len)
{
	static const char *const dirs[] = { "/tmp", "/run", "/dev/shm" };
	static char path[64];
	char *buf = malloc(len);
	unsigned int i;
	int fd = -1;

	/* the first writable one (a guest may share a read-only /tmp) */
	for (i = 0; fd < 0 && i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/uvm-security-%d", dirs[i], getpid());
		unlink(path);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0444);
	}
	if (fd < 0 || !buf)
		return NULL;
	memset(buf, FILE_BYTE, len);
	if (write(fd, buf, len) != (ssize_t)len || fchown(fd, 0, 0) || fchmod(fd, 0444)) {
		close(fd);
		free(buf);
		return NULL;
	}
	close(fd);
	free(buf);
	return path;
}

/* Bytes of @path that are not FILE_BYTE, read with read(); -1 on error. */
static long file_changed(const char *path, uint64_t len)
{
	uint8_t *buf = malloc(len);
	long bad = 0;
	uint64_t i;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || !buf || pread(fd, buf, len, 0) != (ssize_t)len)
		bad = -1;
	for (i = 0; bad >= 0 && i < len; i++)
		bad += buf[i] != FILE_BYTE;
	if (fd >= 0)
		close(fd);
	free(buf);
	return bad;
}

/* Bytes of [p, +len) that are not @v. */
static long bytes_not(const void *p, uint64_t len, uint8_t v)
{
	const uint8_t *b = p;
	long bad = 0;
	uint64_t i;

	for (i = 0; i < len; i++)
		bad += b[i] != v;
	return bad;
}

/* ------------------------------------------------------------------ */
/* a job runs against the memory it was checked against */

enum job_kind { JOB_MEMSET, JOB_MEMSET_3D, JOB_COPY, JOB_COPY_3D, JOB_COPY_BATCH };

/*
 * Queue (asynchronously, behind a closed gate) a job of @kind that writes
 * JOB_BYTE over [dst, +len) by GPU 0; @src is process memory of JOB_BYTE
 * for the copies.  Return: 0 or -errno of the ioctl; *@fence its fence.
 */
static int queue_write(int fd, enum job_kind kind, void *dst, void *src, uint64_t len,
		       uint64_t *fence)
{
	struct uvm_box d = { .addr = (uintptr_t)dst, .pitch = len / 4 };
	struct uvm_box s = { .addr = (uintptr_t)src, .pitch = len / 4 };
	struct uvm_copy_op ops[2] = {
		{ .dst = { .addr = (uintptr_t)dst }, .src = { .addr = (uintptr_t)src },
		  .width = len / 2, .height = 1, .depth = 1 },
		{ .dst = { .addr = (uintptr_t)dst + len / 2 },
		  .src = { .addr = (uintptr_t)src + len / 2 },
		  .width = len / 2, .height = 1, .depth = 1 },
	};

	memset(src, JOB_BYTE, len);
	switch (kind) {
	case JOB_MEMSET:
		return uvm_memset(fd, dst, len, JOB_BYTE, 1, 0, UVM_COPY_ASYNC, fence);
	case JOB_MEMSET_3D:
		return uvm_memset_3d(fd, d, len / 4, 4, 1, JOB_BYTE, 1, 0, UVM_COPY_ASYNC, fence);
	case JOB_COPY:
		return uvm_copy(fd, dst, src, len, 0, UVM_COPY_ASYNC, fence);
	case JOB_COPY_3D:
		return uvm_copy_3d(fd, d, s, len / 4, 4, 1, 0, UVM_COPY_ASYNC, fence);
	case JOB_COPY_BATCH:
		return uvm_copy_batch(fd, ops, 2, 0, UVM_COPY_ASYNC, fence, NULL);
	}
	return -EINVAL;
}

FIXTURE(readonly_file) {
	struct uvm_dev dev;
	const char *path;
};

FIXTURE_VARIANT(readonly_file) {
	enum job_kind kind;
};

FIXTURE_VARIANT_ADD(readonly_file, memset) { JOB_MEMSET };
FIXTURE_VARIANT_ADD(readonly_file, memset_3d) { JOB_MEMSET_3D };
FIXTURE_VARIANT_ADD(readonly_file, copy) { JOB_COPY };
FIXTURE_VARIANT_ADD(readonly_file, copy_3d) { JOB_COPY_3D };
FIXTURE_VARIANT_ADD(readonly_file, copy_batch) { JOB_COPY_BATCH };

FIXTURE_SETUP(readonly_file)
{
	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, 1);
	self->path = make_root_file(PAGE);
	ASSERT_NE(NULL, self->path);
}

FIXTURE_TEARDOWN(readonly_file)
{
	if (self->path)
		unlink(self->path);
	uvm_dev_teardown(&self->dev);
}

/*
 * As nobody: a writable registration at X, a write queued behind a gate,
 * then X unregistered, a PROT_READ MAP_SHARED mapping of the root-owned
 * 0444 file put at X and registered read-only.  The job finds another
 * allocation than it was checked against: -EFAULT, the file untouched.
 */
TEST_F(readonly_file, queued_write_cannot_reach_it)
{
	uint8_t *x, *src = malloc(PAGE);
	uint64_t gate, fence;
	int fd, file;

	ASSERT_NE(NULL, src);
	ASSERT_EQ(0, become_nobody());
	fd = uvm_open();
	ASSERT_LE(0, fd);
	x = uvm_map_skewed(PAGE, 0, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, x);
	memset(x, 0, PAGE);
	ASSERT_EQ(0, uvm_host_register(fd, x, PAGE, 0, NULL));

	ASSERT_EQ(0, uvm_queue_gate(fd, UVM_TEST_GATE_CLOSE, &gate));
	ASSERT_EQ(0, queue_write(fd, variant->kind, x, src, PAGE, &fence));
	ASSERT_LT(gate, fence);

	ASSERT_EQ(0, uvm_host_unregister(fd, x));
	file = open(self->path, O_RDONLY);
	ASSERT_LE(0, file);
	ASSERT_EQ(x, mmap(x, PAGE, PROT_READ, MAP_SHARED | MAP_FIXED, file, 0));
	ASSERT_EQ(FILE_BYTE, x[0]);
	/* a writable registration of it is refused, a read-only one is not */
	ASSERT_EQ(-EFAULT, uvm_host_register(fd, x, PAGE, 0, NULL));
	ASSERT_EQ(0, uvm_host_register(fd, x, PAGE, UVM_HOST_REGISTER_READ_ONLY, NULL));

	ASSERT_EQ(0, uvm_queue_gate(fd, UVM_TEST_GATE_OPEN, NULL));
	EXPECT_EQ(0, uvm_fence_wait(fd, gate, 0, NULL));
	EXPECT_EQ(-EFAULT, uvm_fence_wait(fd, fence, 0, NULL));
	EXPECT_EQ(0, bytes_not(x, PAGE, FILE_BYTE));
	EXPECT_EQ(0, file_changed(self->path, PAGE));
	/* and the same job against the read-only registration is refused */
	EXPECT_EQ(-EPERM, queue_write(fd, variant->kind, x, src, PAGE, &fence));
	EXPECT_EQ(0, file_changed(self->path, PAGE));
	EXPECT_EQ(0, uvm_host_unregister(fd, x));
	close(file);
	close(fd);
	free(src);
}

/* The other kinds of memory a queued job can find replaced. */
FIXTURE(replaced) {
	struct uvm_dev dev;
};

FIXTURE_SETUP(replaced)
{
	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, 2);
}

FIXTURE_TEARDOWN(replaced)
{
	uvm_dev_teardown(&self->dev);
}

/*
 * A reservation with allocation A mapped, a memset of it queued; then A
 * unmapped and B (host memory the CPU may read) mapped in its place with
 * the same rights: -EFAULT, B still zeros.
 */
TEST_F(replaced, vmm_mapping)
{
	int fd = self->dev.fd;
	uint64_t a, b, gate, fence;
	uint8_t *r;

	ASSERT_EQ(0, uvm_mem_create(fd, G, UVM_LOC_GPU(0), 0, &a));
	ASSERT_EQ(0, uvm_mem_create(fd, G, UVM_LOC_HOST, 0, &b));
	r = uvm_reserve(fd, G);
	ASSERT_NE(MAP_FAILED, r);
	ASSERT_EQ(0, uvm_mem_map(fd, r, G, 0, a));
	ASSERT_EQ(0, uvm_mem_set_access(fd, r, G, UVM_LOC_GPU(0), UVM_MEM_PROT_READ_WRITE));

	ASSERT_EQ(0, uvm_queue_gate(fd, UVM_TEST_GATE_CLOSE, &gate));
	ASSERT_EQ(0, uvm_memset(fd, r, G, JOB_BYTE, 1, 0, UVM_COPY_ASYNC, &fence));
	ASSERT_EQ(0, uvm_mem_unmap(fd, r, G));
	ASSERT_EQ(0, uvm_mem_map(fd, r, G, 0, b));
	ASSERT_EQ(0, uvm_mem_set_access(fd, r, G, UVM_LOC_GPU(0), UVM_MEM_PROT_READ_WRITE));
	ASSERT_EQ(0, uvm_mem_set_access(fd, r, G, UVM_LOC_HOST, UVM_MEM_PROT_READ_WRITE));
	ASSERT_EQ(0, uvm_queue_gate(fd, UVM_TEST_GATE_OPEN, NULL));
	EXPECT_EQ(-EFAULT, uvm_fence_wait(fd, fence, 0, NULL));
	EXPECT_EQ(0, bytes_not(r, G, 0));

	/* lowered rights on the same mapping: -EPERM, nothing written */
	ASSERT_EQ(0, uvm_queue_gate(fd, UVM_TEST_GATE_CLOSE, &gate));
	ASSERT_EQ(0, uvm_memset(fd, r, G, JOB_BYTE, 1, 0, UVM_COPY_ASYNC, &fence));
	ASSERT_EQ(0, uvm_mem_set_access(fd, r, G, UVM_LOC_GPU(0), UVM_MEM_PROT_READ));
	ASSERT_EQ(0, uvm_queue_gate(fd, UVM_TEST_GATE_OPEN, NULL));
	EXPECT_EQ(-EPERM, uvm_fence_wait(fd, fence, 0, NULL));
	EXPECT_EQ(0, bytes_not(r, G, 0));

	/* a mapping that stays: the job writes it */
	ASSERT_EQ(0, uvm_mem_set_access(fd, r, G, UVM_LOC_GPU(0), UVM_MEM_PROT_READ_WRITE));
	ASSERT_EQ(0, uvm_queue_gate(fd, UVM_TEST_GATE_CLOSE, &gate));
	ASSERT_EQ(0, uvm_memset(fd, r, G, JOB_BYTE, 1, 0, UVM_COPY_ASYNC, &fence));
	ASSERT_EQ(0, uvm_queue_gate(fd, UVM_TEST_GATE_OPEN, NULL));
	EXPECT_EQ(0, uvm_fence_wait(fd, fence, 0, NULL));
	EXPECT_EQ(0, bytes_not(r, G, JOB_BYTE));

	ASSERT_EQ(0, munmap(r, G));
	EXPECT_EQ(0, uvm_mem_release(fd, a));
	EXPECT_EQ(0, uvm_mem_release(fd, b));
}

/*
 * Device memory of GPU 0 at X, a memset queued, then GPU 1's device memory
 * mapped at X: -EFAULT, the new memory reads zeros.
 */
TEST_F(replaced, device_memory)
{
	int fd = self->dev.fd;
	uint64_t gate, fence;
	uint8_t *x, *back = malloc(G);

	ASSERT_NE(NULL, back);
	x = uvm_mmap_device(&self->dev, 0, G);
	ASSERT_NE(MAP_FAILED, x);
	ASSERT_EQ(0, uvm_queue_gate(fd, UVM_TEST_GATE_CLOSE, &gate));
	ASSERT_EQ(0, uvm_memset(fd, x, G, JOB_BYTE, 1, 0, UVM_COPY_ASYNC, &fence));
	ASSERT_EQ(x, mmap(x, G, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd,
			  UVM_MMAP_DEVICE(1)));
	ASSERT_EQ(0, uvm_queue_gate(fd, UVM_TEST_GATE_OPEN, NULL));
	EXPECT_EQ(-EFAULT, uvm_fence_wait(fd, fence, 0, NULL));
	ASSERT_EQ(0, uvm_copy(fd, back, x, G, 1, 0, NULL));
	EXPECT_EQ(0, bytes_not(back, G, 0));
	ASSERT_EQ(0, munmap(x, G));
	free(back);
}

/*
 * A managed range at X with a memset queued, or a discard: X unmapped and a
 * new managed range mapped there and written by the CPU.  The job fails
 * (-EFAULT) and the new data stays.
 */
TEST_F(replaced, managed_range)
{
	int fd = self->dev.fd;
	uint64_t gate, fence;
	struct uvm_ioc_migrate out;
	struct uvm_range rg;
	uint8_t *x;
	int i;

	for (i = 0; i < 2; i++) {
		x = uvm_mmap_block_aligned(&self->dev, G);
		ASSERT_NE(MAP_FAILED, x);
		memset(x, 1, G);
		ASSERT_EQ(0, uvm_queue_gate(fd, UVM_TEST_GATE_CLOSE, &gate));
		if (i == 0) {
			ASSERT_EQ(0, uvm_memset(fd, x, G, JOB_BYTE, 1, 0, UVM_COPY_ASYNC,
						&fence));
		} else {
			rg = (struct uvm_range){ .address = (uintptr_t)x, .length = G };
			ASSERT_EQ(0, uvm_migrate(fd, UVM_MIGRATE_DISCARD, UVM_MIGRATE_ASYNC,
						 &rg, 1, NULL, NULL, 0, &out));
			fence = out.fence;
		}
		ASSERT_EQ(x, mmap(x, G, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd,
				  UVM_MMAP_MANAGED));
		memset(x, 0x7a, G);
		ASSERT_EQ(0, uvm_queue_gate(fd, UVM_TEST_GATE_OPEN, NULL));
		EXPECT_EQ(-EFAULT, uvm_fence_wait(fd, fence, 0, NULL)) TH_LOG("job %d", i);
		EXPECT_EQ(0, bytes_not(x, G, 0x7a)) TH_LOG("job %d", i);
		ASSERT_EQ(0, munmap(x, G));
	}
}

/* ------------------------------------------------------------------ */
/* long work, killed */

/* Read the sysfs counter @name of GPU @g; 0 when unreadable. */
static uint64_t gpu_counter(uint32_t g, const char *name)
{
	unsigned long long v = 0;
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), UVM_SYSFS_GPU_FMT, g, name);
	f = fopen(path, "re");
	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

/* Pages moved into GPUs 0 and 1 so far. */
static uint64_t pages_in(void)
{
	return gpu_counter(0, "pages_in") + gpu_counter(1, "pages_in");
}

/*
 * A child that reports on a pipe when its work began; @work false: the
 * same memory set up, no work started (what tearing it down costs anyway).
 */
struct killed {
	int pipe[2];
	int go[2];
	bool work;
};

/*
 * The longest copy the ABI allows, queued: 16384 copies of 64 MiB between
 * two registrations of 64 MiB of host memory (1 TiB of copying over
 * 128 MiB).  Registrations outlive the process's mappings (exit unmaps
 * everything before the file is released), so nothing stops the job but
 * the driver.  Reports, then waits.
 */
static int long_copy_child(void *arg)
{
	const uint64_t span = 64 * UVM_MIB;
	struct uvm_copy_op *ops = calloc(UVM_COPY_BATCH_MAX, sizeof(*ops));
	struct killed *k = arg;
	uint8_t *r[2];
	uint64_t fence = 0;
	int fd = uvm_open(), i;

	if (fd < 0 || !ops)
		return 10;
	for (i = 0; i < 2; i++) {
		r[i] = mmap(NULL, span, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (r[i] == MAP_FAILED || uvm_host_register(fd, r[i], span, 0, NULL))
			return 11;
	}
	for (i = 0; i < UVM_COPY_BATCH_MAX; i++)
		ops[i] = (struct uvm_copy_op){ .dst = { .addr = (uintptr_t)r[1] },
					      .src = { .addr = (uintptr_t)r[0] },
					      .width = span, .height = 1, .depth = 1 };
	if (k->work &&
	    uvm_copy_batch(fd, ops, UVM_COPY_BATCH_MAX, 0, UVM_COPY_ASYNC, &fence, NULL))
		return 14;
	if (write(k->pipe[1], "x", 1) != 1)
		return 15;
	if (k->work)
		uvm_fence_wait(fd, fence, 0, NULL);
	pause();
	return 16;
}

/*
 * The longest synchronous prefetch: 2^20 ranges of one page, all the same
 * page, to GPU 0 and GPU 1 in turn (2^20 destinations): 4 GiB of copying
 * over one page of memory.  A second thread reports a second after the
 * ioctl began (validated, or still validating: both must stop).
 */
static void *report_later(void *arg)
{
	struct killed *k = arg;

	sleep(1);
	if (write(k->pipe[1], "x", 1) != 1)
		_exit(20);
	return NULL;
}

static int long_prefetch_child(void *arg)
{
	const uint64_t n = UVM_MIGRATE_MAX_RANGES;
	struct uvm_range *rg = calloc(n, sizeof(*rg));
	struct uvm_location *loc = calloc(n, sizeof(*loc));
	uint64_t *start = calloc(n, sizeof(*start)), i;
	struct killed *k = arg;
	pthread_t t;
	uint8_t *p;
	int fd = uvm_open();

	p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (fd < 0 || !rg || !loc || !start || p == MAP_FAILED)
		return 10;
	p[0] = 1;
	for (i = 0; i < n; i++) {
		rg[i] = (struct uvm_range){ .address = (uintptr_t)p, .length = PAGE };
		loc[i] = UVM_LOC_GPU(i % 2);
		start[i] = i;
	}
	if (pthread_create(&t, NULL, report_later, k))
		return 11;
	if (k->work)
		uvm_migrate(fd, UVM_MIGRATE_PREFETCH, 0, rg, n, loc, start, n, NULL);
	pause();
	return 12;
}

FIXTURE(killed) {
	struct uvm_dev dev;
};

FIXTURE_SETUP(killed)
{
	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, 2);
}

FIXTURE_TEARDOWN(killed)
{
	uvm_dev_teardown(&self->dev);
}

/*
 * Start @fn in a child, wait for its report (and, @moving, for pages to
 * move into the GPUs), let its work go on @ms, then SIGKILL it; *@moved
 * gets the pages moved into GPUs until the kill.  Return: ms from the kill
 * until the child was reaped, or -1.
 */
static long kill_after_report(int (*fn)(void *), bool work, bool moving, int ms,
			      int *status, uint64_t *moved)
{
	struct killed k = { .work = work };
	uint64_t t0, in0 = pages_in();
	pid_t pid;
	char c;
	int i;

	if (pipe(k.pipe))
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0)
		_exit(fn(&k) & 0xff);
	close(k.pipe[1]);
	if (read(k.pipe[0], &c, 1) != 1) {
		*status = uvm_wait_child(pid);
		return -1;
	}
	for (i = 0; moving && pages_in() == in0 && i < 100; i++)
		usleep(100 * 1000);
	usleep(ms * 1000);
	*moved = pages_in() - in0;
	t0 = uvm_now_ms();
	kill(pid, SIGKILL);
	*status = uvm_wait_child(pid);
	close(k.pipe[0]);
	return (long)(uvm_now_ms() - t0);
}

/*
 * Killed with @fn's work running: gone within a second of what killing it
 * with the same memory and no work costs (tearing 4096 mappings down under
 * KASAN and TCG takes a while by itself); its memory and pins back.  On the
 * debug kernels three seconds: there the longest synchronous prefetch was
 * reaped 0.55 to 1.43 s later than its idle twin (the kill also frees its
 * request's arrays, about 40 MiB, under KASAN).
 */
static void killed_within_a_second(struct __test_metadata *_metadata, struct uvm_dev *dev,
				   int (*fn)(void *), int ms, bool must_move)
{
	const char *kernel = getenv("UVM_KERNEL");
	long idle, busy, slack = kernel && strstr(kernel, "debug") ? 3000 : 1000;
	uint64_t moved;
	int status;

	idle = kill_after_report(fn, false, false, ms, &status, &moved);
	ASSERT_LE(0, idle) TH_LOG("idle child ended with %d", status);
	busy = kill_after_report(fn, true, must_move, ms, &status, &moved);
	ASSERT_LE(0, busy) TH_LOG("child ended with %d before its work began", status);
	TH_LOG("reaped %ld ms after SIGKILL (%ld ms without work), %llu pages moved before",
	       busy, idle, (unsigned long long)moved);
	EXPECT_EQ(UVM_CHILD_SIGNALED(SIGKILL), status);
	EXPECT_GT(idle + slack, busy);
	if (must_move)	/* killed in the walk, not in validation */
		EXPECT_LT(0, moved);
	EXPECT_EQ(0, uvm_vidmem_wait(dev->fd, 0, 0));
	EXPECT_EQ(0, uvm_vidmem_wait(dev->fd, 1, 0));
	EXPECT_EQ(0, uvm_pins_wait(0));
}

TEST_F_TIMEOUT(killed, with_the_longest_copy_queued, 300)
{
	killed_within_a_second(_metadata, &self->dev, long_copy_child, 500, false);
}

TEST_F_TIMEOUT(killed, in_the_longest_synchronous_prefetch, 300)
{
	killed_within_a_second(_metadata, &self->dev, long_prefetch_child, 300, true);
}

/* A new descriptor and 64 MiB of its managed memory, written: NULL on failure */
static uint8_t *release_memory(struct uvm_dev *d, struct uvm_range *rg)
{
	uint8_t *p;

	*d = (struct uvm_dev){ .page_size = PAGE };
	d->fd = uvm_open();
	p = uvm_mmap(d, 64 * UVM_MIB);
	if (d->fd < 0 || p == MAP_FAILED)
		return NULL;
	memset(p, 5, 64 * UVM_MIB);
	*rg = (struct uvm_range){ .address = (uintptr_t)p, .length = 64 * UVM_MIB };
	return p;
}

/* A prefetch of @rg to GPU @gpu; 0 or -errno */
static int release_prefetch(int fd, struct uvm_range *rg, uint32_t gpu, uint32_t flags)
{
	struct uvm_location loc = UVM_LOC_GPU(gpu);
	struct uvm_ioc_migrate out;
	uint64_t start = 0;

	return uvm_migrate(fd, UVM_MIGRATE_PREFETCH, flags, rg, 1, &loc, &start, 1, &out);
}

/*
 * Release with work queued: a closed gate, then @n prefetches of 64 MiB
 * each, to GPU 0 and GPU 1 in turn (64 GiB of migration for 1000);
 * close() (the mapping still holds the file), then munmap() of the last
 * mapping releases it.  Return: ms the munmap took, or -1.
 */
static long release_with_jobs(int n)
{
	struct uvm_dev d;
	struct uvm_range rg;
	uint8_t *p = release_memory(&d, &rg);
	uint64_t fence, t0;
	int i;

	if (!p || uvm_queue_gate(d.fd, UVM_TEST_GATE_CLOSE, &fence))
		return -1;
	for (i = 0; i < n; i++)
		if (release_prefetch(d.fd, &rg, i % 2, UVM_MIGRATE_ASYNC))
			return -1;
	if (close(d.fd))
		return -1;
	t0 = uvm_now_ms();
	if (munmap(p, 64 * UVM_MIB))
		return -1;
	return (long)(uvm_now_ms() - t0);
}

/* ms one of those prefetches takes to run (GPU 0 to GPU 1), or -1 */
static long one_job_ms(void)
{
	struct uvm_dev d;
	struct uvm_range rg;
	uint8_t *p = release_memory(&d, &rg);
	uint64_t t0, ms;
	int ret;

	if (!p)
		return -1;
	ret = release_prefetch(d.fd, &rg, 0, 0);
	t0 = uvm_now_ms();
	ret = ret ?: release_prefetch(d.fd, &rg, 1, 0);
	ms = uvm_now_ms() - t0;
	munmap(p, 64 * UVM_MIB);
	close(d.fd);
	return ret ? -1 : (long)ms;
}

/*
 * Every queued job is cancelled: release with 1000 queued costs less than
 * a tenth of running them would, over what it costs with one.  (One, not
 * none: a queued prefetch of managed memory creates the range's blocks
 * when it is submitted, and their teardown is the release's.)
 */
TEST_F_TIMEOUT(killed, release_cancels_queued_jobs, 300)
{
	long idle = release_with_jobs(1), busy, job;

	ASSERT_LE(0, idle);
	busy = release_with_jobs(1000);
	ASSERT_LE(0, busy);
	job = one_job_ms();
	ASSERT_LE(0, job);
	TH_LOG("released with 1000 jobs queued in %ld ms (%ld ms with one); one job runs in %ld ms",
	       busy, idle, job);
	EXPECT_GT(100 * (job + 1), busy - idle);
	EXPECT_EQ(0, uvm_vidmem_wait(self->dev.fd, 0, 0));
	EXPECT_EQ(0, uvm_vidmem_wait(self->dev.fd, 1, 0));
}

/* ------------------------------------------------------------------ */
/* one process cannot stall another's fault servicing */

/*
 * The stuck process: a gate that holds its VA space lock for reading and
 * never yields (UVM_TEST_GATE_HOLD_LOCK, standing for any holder that
 * misbehaves), a thread blocked in munmap() behind it (a writer waiting,
 * so readers queue too) and a thread whose GPU launch faults on its managed
 * memory: its faults arrive in GPU 0's batches with its lock unavailable.
 */
struct stuck {
	int fd;
	uint8_t *victim, *p;
	volatile bool go;
	int launched;
};

static void *stuck_unmapper(void *arg)
{
	struct stuck *st = arg;

	munmap(st->victim, G);
	return NULL;
}

/*
 * Started before the unmapper, which holds the mm's mmap_lock while it
 * waits (nothing here may need it: the stack and the arguments are
 * touched already, GPU faults on managed memory do not take it).
 */
static void *stuck_faulter(void *arg)
{
	struct stuck *st = arg;
	struct uvm_test_gpu_op op = uvm_op_read(st->p, G, 8, NULL);

	while (!st->go)
		usleep(1000);
	st->launched = uvm_launch1(st->fd, 0, 8, op, NULL);
	return NULL;
}

/*
 * Reports when its faults are pending; on the parent's word opens the gate:
 * the lock is free again, the deferred faults are served, the launch ends.
 */
static int stuck_child(void *arg)
{
	struct uvm_dev d = { .page_size = PAGE };
	struct killed *k = arg;
	struct stuck st = { 0 };
	pthread_t t[2];
	char c;

	st.fd = d.fd = uvm_open();
	st.victim = uvm_mmap(&d, G);
	st.p = uvm_mmap(&d, G);
	if (d.fd < 0 || st.victim == MAP_FAILED || st.p == MAP_FAILED)
		return 10;
	memset(st.p, 1, G);
	if (pthread_create(&t[1], NULL, stuck_faulter, &st))
		return 11;
	if (uvm_queue_gate_flags(d.fd, UVM_TEST_GATE_CLOSE, UVM_TEST_GATE_HOLD_LOCK, NULL))
		return 12;
	if (pthread_create(&t[0], NULL, stuck_unmapper, &st))
		return 13;
	usleep(100 * 1000);
	st.go = true;
	if (write(k->pipe[1], "x", 1) != 1 || read(k->go[0], &c, 1) != 1)
		return 14;
	if (uvm_queue_gate(d.fd, UVM_TEST_GATE_OPEN, NULL))
		return 15;
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	return st.launched ? 16 : 0;
}

FIXTURE(neighbour) {
	struct uvm_dev dev;
};

FIXTURE_SETUP(neighbour)
{
	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, 1);
}

FIXTURE_TEARDOWN(neighbour)
{
	uvm_dev_teardown(&self->dev);
}

/*
 * While the stuck process's lock stays unavailable (as long as this test
 * wants), this process's GPU launches on GPU 0 fault on fresh memory and
 * complete, and the stuck process's faults went to its own servicer.  With
 * fault servicing waiting for the stuck lock, the first launch here would
 * hang.  Then the gate opens: the stuck launch completes too.
 */
TEST_F_TIMEOUT(neighbour, faults_are_not_stalled_by_a_stuck_process, 300)
{
	uint64_t deferred0 = gpu_counter(0, "fault_groups_deferred"), t0, ms, worst = 0;
	struct killed k;
	uint8_t *p;
	pid_t pid;
	char c;
	int i;

	ASSERT_EQ(0, pipe(k.pipe));
	ASSERT_EQ(0, pipe(k.go));
	fflush(NULL);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(stuck_child(&k));
	close(k.pipe[1]);
	ASSERT_EQ(1, read(k.pipe[0], &c, 1)) TH_LOG("child: %d", uvm_wait_child(pid));
	/* the stuck process's faults reached fault servicing */
	for (i = 0; i < 1000 && gpu_counter(0, "fault_groups_deferred") == deferred0; i++)
		usleep(10 * 1000);
	EXPECT_LT(deferred0, gpu_counter(0, "fault_groups_deferred"));
	for (i = 0; i < 10; i++) {
		p = uvm_mmap(&self->dev, 2 * UVM_MIB);
		ASSERT_NE(MAP_FAILED, p);
		memset(p, 2, 2 * UVM_MIB);
		t0 = uvm_now_ms();
		EXPECT_EQ(0, uvm_launch1(self->dev.fd, 0, 8, uvm_op_read(p, 2 * UVM_MIB, 8, NULL),
					 NULL));
		ms = uvm_now_ms() - t0;
		worst = ms > worst ? ms : worst;
		ASSERT_EQ(0, munmap(p, 2 * UVM_MIB));
	}
	/* still stuck: the child's lock was unavailable all along */
	EXPECT_EQ(0, waitpid(pid, NULL, WNOHANG));
	TH_LOG("slowest launch %llu ms beside the stuck process", (unsigned long long)worst);
	/* unstuck: its deferred faults are served, its launch ends well */
	ASSERT_EQ(1, write(k.go[1], "x", 1));
	EXPECT_EQ(0, uvm_wait_child(pid));
	EXPECT_EQ(0, uvm_vidmem_wait(self->dev.fd, 0, 0));
}

/*
 * The other shared resource: a GPU's copy engine.  A process copies a box
 * of 16 Mi rows of one byte between device memory (each row its own piece
 * of work for the engine), again and again; another process's copies of
 * one page by the same engine each finish within a second.
 */
static int huge_box_child(void *arg)
{
	struct uvm_dev d = { .page_size = PAGE };
	struct killed *k = arg;
	struct uvm_box a, b;
	uint8_t *src, *dst;

	d.fd = uvm_open();
	src = uvm_mmap_device(&d, 0, 32 * UVM_MIB);
	dst = uvm_mmap_device(&d, 0, 32 * UVM_MIB);
	if (d.fd < 0 || src == MAP_FAILED || dst == MAP_FAILED)
		return 10;
	a = (struct uvm_box){ .addr = (uintptr_t)dst, .pitch = 2 };
	b = (struct uvm_box){ .addr = (uintptr_t)src, .pitch = 2 };
	if (write(k->pipe[1], "x", 1) != 1)
		return 11;
	for (;;)
		uvm_copy_3d(d.fd, a, b, 1, 16 << 20, 1, 0, 0, NULL);
	return 12;
}

TEST_F_TIMEOUT(neighbour, copies_are_not_stalled_by_a_huge_box, 300)
{
	uint64_t t0, ms, worst = 0;
	uint8_t *x, *y;
	struct killed k;
	pid_t pid;
	char c;
	int i;

	x = uvm_mmap_device(&self->dev, 0, G);
	y = uvm_mmap_device(&self->dev, 0, G);
	ASSERT_NE(MAP_FAILED, x);
	ASSERT_NE(MAP_FAILED, y);
	ASSERT_EQ(0, pipe(k.pipe));
	fflush(NULL);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(huge_box_child(&k));
	close(k.pipe[1]);
	ASSERT_EQ(1, read(k.pipe[0], &c, 1)) TH_LOG("child: %d", uvm_wait_child(pid));
	usleep(500 * 1000);
	for (i = 0; i < 20; i++) {
		t0 = uvm_now_ms();
		EXPECT_EQ(0, uvm_copy(self->dev.fd, y, x, PAGE, 0, 0, NULL));
		ms = uvm_now_ms() - t0;
		worst = ms > worst ? ms : worst;
		usleep(50 * 1000);
	}
	kill(pid, SIGKILL);
	EXPECT_EQ(UVM_CHILD_SIGNALED(SIGKILL), uvm_wait_child(pid));
	TH_LOG("slowest copy of a page beside the huge box: %llu ms", (unsigned long long)worst);
	EXPECT_GT(1000, worst);
	ASSERT_EQ(0, munmap(x, G));
	ASSERT_EQ(0, munmap(y, G));
}

/* ------------------------------------------------------------------ */
/* kernel memory of requests over pageable memory */

/* Slab of the machine in KiB (/proc/meminfo), -1 when unknown. */
static long slab_kib(void)
{
	char line[256];
	long kib = -1;
	FILE *f = fopen("/proc/meminfo", "re");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Slab: %ld kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib;
}

FIXTURE(pageable) {
	struct uvm_dev dev;
	uint8_t *p;
	uint64_t len;
};

FIXTURE_SETUP(pageable)
{
	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, 1);
	if (!uvm_has_hmm(&self->dev))
		UVM_SKIP("no pageable memory support (HMM)");
	/* 1 TiB of address space, no memory behind it */
	self->len = 1ULL << 40;
	self->p = mmap(NULL, self->len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	ASSERT_NE(MAP_FAILED, self->p);
	/* one page written is one page, not a transparent huge page of 512 */
	ASSERT_EQ(0, madvise(self->p, self->len, MADV_NOHUGEPAGE));
}

FIXTURE_TEARDOWN(pageable)
{
	if (self->p != MAP_FAILED)
		munmap(self->p, self->len);
	uvm_dev_teardown(&self->dev);
}

/*
 * A prefetch of 1 TiB of unpopulated memory, queued behind a closed gate
 * (it would populate), then released with the file: its request is
 * recorded by range (the range query says where it goes) at no cost per
 * 2 MiB, and the job is cancelled.  A structure per 2 MiB would be
 * 512 Ki of them, over 700 MiB of slab.
 */
TEST_F_TIMEOUT(pageable, prefetch_of_a_terabyte_costs_no_memory_per_block, 120)
{
	struct uvm_location loc = UVM_LOC_GPU(0);
	struct uvm_ioc_range_query q = { .address = (uintptr_t)self->p, .length = self->len };
	struct uvm_ioc_migrate out;
	struct uvm_range rg = { .address = (uintptr_t)self->p, .length = self->len };
	uint64_t gate, start = 0;
	long slab0 = slab_kib();

	ASSERT_EQ(0, uvm_queue_gate(self->dev.fd, UVM_TEST_GATE_CLOSE, &gate));
	ASSERT_EQ(0, uvm_migrate(self->dev.fd, UVM_MIGRATE_PREFETCH, UVM_MIGRATE_ASYNC, &rg, 1,
				 &loc, &start, 1, &out));
	ASSERT_EQ(0, uvm_ioctl(self->dev.fd, UVM_IOC_RANGE_QUERY, &q));
	EXPECT_EQ(UVM_LOCATION_GPU, q.last_prefetch.type);
	EXPECT_EQ(0, q.last_prefetch.id);
	TH_LOG("slab %+ld KiB for the request", slab_kib() - slab0);
	EXPECT_GT(16 << 10, slab_kib() - slab0);
	/* release cancels it: nothing was populated */
	close(self->dev.fd);
	self->dev.fd = -1;
}

/*
 * A discard and accessed-by advice of the whole untouched terabyte: done
 * at once, no memory per 2 MiB.  Then one page written at its start: the
 * discard drops exactly it (a page of zeros afterwards), advice maps it.
 */
TEST_F_TIMEOUT(pageable, discard_and_advice_of_a_terabyte, 300)
{
	struct uvm_counters before, after;
	long slab0 = slab_kib();
	uint64_t t0 = uvm_now_ms();
	int fd = self->dev.fd;

	ASSERT_EQ(0, uvm_discard(fd, self->p, self->len));
	ASSERT_EQ(0, uvm_advise(fd, self->p, self->len, UVM_ADVICE_SET_ACCESSED_BY,
				UVM_LOC_GPU(0)));
	TH_LOG("untouched: %llu ms, slab %+ld KiB", (unsigned long long)(uvm_now_ms() - t0),
	       slab_kib() - slab0);
	EXPECT_GT(16 << 10, slab_kib() - slab0);
	EXPECT_GT(10000, uvm_now_ms() - t0);

	/* one page written: 16 GiB of it looked at page table by page table */
	memset(self->p, 7, PAGE);
	ASSERT_EQ(0, uvm_counters(fd, &before));
	ASSERT_EQ(0, uvm_advise(fd, self->p, 16 * UVM_GIB, UVM_ADVICE_SET_ACCESSED_BY,
				UVM_LOC_GPU(0)));
	ASSERT_EQ(0, uvm_counters(fd, &after));
	EXPECT_EQ(1, after.c[UVM_COUNTER_GPU_PAGES_MAPPED] - before.c[UVM_COUNTER_GPU_PAGES_MAPPED]);
	ASSERT_EQ(0, uvm_discard(fd, self->p, 16 * UVM_GIB));
	ASSERT_EQ(0, uvm_counters(fd, &before));
	EXPECT_EQ(1, before.c[UVM_COUNTER_PAGES_DISCARDED] - after.c[UVM_COUNTER_PAGES_DISCARDED]);
	EXPECT_EQ(0, bytes_not(self->p, PAGE, 0));
	TH_LOG("with a page: %llu ms in all, slab %+ld KiB",
	       (unsigned long long)(uvm_now_ms() - t0), slab_kib() - slab0);
	EXPECT_GT(16 << 10, slab_kib() - slab0);
}

/* ------------------------------------------------------------------ */
/* errors nobody waits for */

FIXTURE(fence_errors) {
	struct uvm_dev dev;
};

FIXTURE_SETUP(fence_errors)
{
	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, 1);
}

FIXTURE_TEARDOWN(fence_errors)
{
	uvm_dev_teardown(&self->dev);
}

/*
 * 3000 memsets that all fail (their range unmapped before they run): the
 * first 1024 errors are kept, each reported by its own wait; the rest fold
 * into one, reported by the first wait at or after the first error not
 * kept (the 1025th), and the later waits report nothing.
 */
TEST_F_TIMEOUT(fence_errors, are_bounded, 120)
{
	const int n = 3000, kept = 1024;
	int fd = self->dev.fd, i, ret;
	uint64_t gate, completed, *fence = calloc(n, sizeof(*fence));
	uint8_t *x;

	ASSERT_NE(NULL, fence);
	x = uvm_mmap(&self->dev, PAGE);
	ASSERT_NE(MAP_FAILED, x);
	ASSERT_EQ(0, uvm_queue_gate(fd, UVM_TEST_GATE_CLOSE, &gate));
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, uvm_memset(fd, x, PAGE, 1, 1, 0, UVM_COPY_ASYNC, &fence[i]));
	ASSERT_EQ(0, munmap(x, PAGE));
	ASSERT_EQ(0, uvm_queue_gate(fd, UVM_TEST_GATE_OPEN, NULL));
	/* every job done, no error collected: the gate's own fence waited */
	ASSERT_EQ(0, uvm_fence_wait(fd, gate, 0, &completed));
	while (completed < fence[n - 1]) {
		usleep(1000);
		ASSERT_EQ(0, uvm_fence_wait(fd, gate, UVM_FENCE_WAIT_POLL, &completed));
	}
	for (i = 0; i < n; i++) {
		ret = uvm_fence_wait(fd, fence[i], 0, NULL);
		ASSERT_EQ(i <= kept ? -EFAULT : 0, ret) TH_LOG("fence %d", i);
	}
	free(fence);
}

/* ------------------------------------------------------------------ */
/* RLIMIT_MEMLOCK */

/* VmPin of this process, in KiB; -1 when unknown. */
static long vm_pin_kib(void)
{
	char line[256];
	long kib = -1;
	FILE *f = fopen("/proc/self/status", "re");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmPin: %ld kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib;
}

FIXTURE(memlock) {
	struct uvm_dev dev;
};

FIXTURE_SETUP(memlock)
{
	uvm_dev_setup(&self->dev, 0, 1);
}

FIXTURE_TEARDOWN(memlock)
{
	uvm_dev_teardown(&self->dev);
}

/*
 * As nobody with a 64 KiB RLIMIT_MEMLOCK: 256 KiB cannot be registered,
 * 32 KiB twice can, nothing more, and unregistering gives room back; VmPin
 * says what is pinned.
 */
TEST_F(memlock, registrations_count_against_the_limit)
{
	struct rlimit lim = { 64 << 10, 64 << 10 };
	uint8_t *p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	int fd;

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, setrlimit(RLIMIT_MEMLOCK, &lim));
	ASSERT_EQ(0, become_nobody());
	fd = uvm_open();
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, vm_pin_kib());
	EXPECT_EQ(-ENOMEM, uvm_host_register(fd, p, 256 << 10, 0, NULL));
	EXPECT_EQ(0, vm_pin_kib());
	EXPECT_EQ(0, uvm_host_register(fd, p, 32 << 10, 0, NULL));
	EXPECT_EQ(0, uvm_host_register(fd, p + (32 << 10), 32 << 10,
				       UVM_HOST_REGISTER_READ_ONLY, NULL));
	EXPECT_EQ(64, vm_pin_kib());
	EXPECT_EQ(-ENOMEM, uvm_host_register(fd, p + (64 << 10), PAGE, 0, NULL));
	EXPECT_EQ(0, uvm_host_unregister(fd, p));
	EXPECT_EQ(32, vm_pin_kib());
	EXPECT_EQ(0, uvm_host_register(fd, p + (64 << 10), PAGE, 0, NULL));
	EXPECT_EQ(36, vm_pin_kib());
	/* release gives back the rest */
	close(fd);
	EXPECT_EQ(0, vm_pin_kib());
	EXPECT_EQ(0, uvm_pins_wait(0));
}

/* CAP_IPC_LOCK (root here) is not limited. */
TEST_F(memlock, cap_ipc_lock_is_exempt)
{
	struct rlimit lim = { 64 << 10, 64 << 10 };
	uint8_t *p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, setrlimit(RLIMIT_MEMLOCK, &lim));
	EXPECT_EQ(0, uvm_host_register(self->dev.fd, p, 1 << 20, 0, NULL));
	EXPECT_EQ(1024, vm_pin_kib());
	EXPECT_EQ(0, uvm_host_unregister(self->dev.fd, p));
	EXPECT_EQ(0, vm_pin_kib());
}

/* ------------------------------------------------------------------ */
/* instance ids */

#define MANY_OPENS	(0x10000 + 64)

/* As nobody: hold MANY_OPENS descriptors of /dev/uvm; report; wait. */
static int many_opens_child(void *arg)
{
	struct rlimit lim = { MANY_OPENS + 64, MANY_OPENS + 64 };
	struct killed *k = arg;
	int i;

	if (setrlimit(RLIMIT_NOFILE, &lim) || become_nobody())
		return 10;
	for (i = 0; i < MANY_OPENS; i++)
		if (uvm_open() < 0)
			return 11;
	if (write(k->pipe[1], "x", 1) != 1)
		return 12;
	pause();
	return 13;
}

FIXTURE(instances) {
	struct uvm_dev dev;
};

FIXTURE_SETUP(instances)
{
	uvm_dev_setup(&self->dev, 0, 1);
}

FIXTURE_TEARDOWN(instances)
{
	uvm_dev_teardown(&self->dev);
}

/*
 * One user holds more descriptors than a 16-bit id space has ids; another
 * user opens /dev/uvm and uses it.
 */
TEST_F_TIMEOUT(instances, one_user_cannot_exhaust_them, 300)
{
	const char *kernel = getenv("UVM_KERNEL");
	uint64_t t0 = uvm_now_ms();
	struct killed k;
	struct uvm_dev d;
	pid_t pid;
	char c;
	uint8_t *p;

	/* 65600 opens take minutes under KASAN and TCG; the ids are not KASAN's */
	if (kernel && strstr(kernel, "debug"))
		UVM_SKIP("65600 opens: not on the debug kernels (about 160 s there)");
	ASSERT_EQ(0, pipe(k.pipe));
	fflush(NULL);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(many_opens_child(&k));
	close(k.pipe[1]);
	ASSERT_EQ(1, read(k.pipe[0], &c, 1)) TH_LOG("child: %d", uvm_wait_child(pid));
	TH_LOG("%d opens by one user in %llu ms", MANY_OPENS,
	       (unsigned long long)(uvm_now_ms() - t0));
	d.fd = uvm_open();
	EXPECT_LE(0, d.fd);
	if (d.fd >= 0) {
		d.page_size = PAGE;
		p = uvm_mmap(&d, G);
		ASSERT_NE(MAP_FAILED, p);
		memset(p, 3, G);
		EXPECT_EQ(0, uvm_prefetch(d.fd, p, G, UVM_LOC_GPU(0)));
		close(d.fd);
	}
	kill(pid, SIGKILL);
	EXPECT_EQ(UVM_CHILD_SIGNALED(SIGKILL), uvm_wait_child(pid));
}

/* ------------------------------------------------------------------ */
/* descriptors handed out */

static long open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	long n = 0;

	while (d && readdir(d))
		n++;
	if (d)
		closedir(d);
	return n;
}

FIXTURE(export) {
	struct uvm_dev dev;
};

FIXTURE_SETUP(export)
{
	uvm_dev_setup(&self->dev, 0, 1);
}

FIXTURE_TEARDOWN(export)
{
	uvm_dev_teardown(&self->dev);
}

/*
 * MEM_EXPORT with its arguments in a read-only page: they are read, the
 * result cannot be written back: -EFAULT and no new descriptor; the
 * allocation goes when its handle is released.
 */
TEST_F(export, unwritable_result_leaves_no_descriptor)
{
	struct uvm_ioc_mem_export *e;
	uint64_t h;
	long before;

	ASSERT_EQ(0, uvm_mem_create(self->dev.fd, G, UVM_LOC_GPU(0), UVM_MEM_HANDLE_FD, &h));
	e = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, e);
	*e = (struct uvm_ioc_mem_export){ .handle = h, .handle_type = UVM_MEM_HANDLE_FD };
	ASSERT_EQ(0, mprotect(e, PAGE, PROT_READ));
	before = open_fds();
	EXPECT_EQ(-EFAULT, uvm_ioctl(self->dev.fd, UVM_IOC_MEM_EXPORT, e));
	EXPECT_EQ(before, open_fds());
	EXPECT_EQ(0, uvm_mem_release(self->dev.fd, h));
	EXPECT_EQ(0, uvm_vidmem_wait(self->dev.fd, 0, 0));
}

TEST_HARNESS_MAIN
