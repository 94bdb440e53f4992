// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * hmm - pageable memory (malloc, anonymous and file mmap, the stack) reached
 * by the simulated GPUs through HMM.
 *
 * Every test runs on both kernels.  On the distro kernel pageable memory is
 * mirrored: the GPU maps the system pages where they are, with the CPU's
 * permission.  On the debug kernel (UVM_CAP_DEVICE_PRIVATE) anonymous private
 * memory also migrates into vidmem as device-private pages and comes back on
 * a CPU touch; file-backed, shared and mlocked memory stays mirrored there
 * too.  Expectations that differ say so; tests of migration alone SKIP
 * without it.  Residency is read with UVM_TEST_RESIDENCY_PAGEABLE.
 */
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "kselftest_harness.h"
#include "uvm_test_util.h"

#define CPU		UVM_CPU_BIT
#define G(i)		UVM_GPU_BIT(i)

/* Bytes of the reference and output buffers of the fixture. */
#define HMM_BUF		(4 * UVM_MIB)

/* Resident in system memory, mapped read-write by the CPU and GPU @g. */
#define STATE_MIRRORED(g)	uvm_state(CPU, CPU | G(g), CPU | G(g), G(g))
/* Resident in system memory, mapped read-only by the CPU and GPU @g. */
#define STATE_MIRRORED_RO(g)	uvm_state(CPU, CPU | G(g), 0, 0)

FIXTURE(hmm) {
	struct uvm_dev dev;
	uint64_t ps;
	bool dp;		/* anonymous memory migrates (device private) */
	uint8_t *ref;		/* HMM_BUF random bytes */
	uint8_t *out;		/* HMM_BUF bytes for GPU reads */
};

FIXTURE_SETUP(hmm)
{
	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, 1);
	if (!uvm_has_hmm(&self->dev))
		UVM_SKIP("uvm.ko without HMM: pageable memory is out of the GPUs' reach");
	self->ps = self->dev.page_size;
	self->dp = uvm_has_device_private(&self->dev);
	self->ref = malloc(HMM_BUF);
	self->out = malloc(HMM_BUF);
	ASSERT_NE(NULL, self->ref);
	ASSERT_NE(NULL, self->out);
	uvm_random_fill(self->ref, HMM_BUF, 0x484d4d);
}

FIXTURE_TEARDOWN(hmm)
{
	free(self->ref);
	free(self->out);
	uvm_dev_teardown(&self->dev);
}

/* What GPU @g's write to anonymous private memory leaves behind. */
#define STATE_GPU_WROTE(g) \
	(self->dp ? UVM_STATE_GPU(g) : STATE_MIRRORED(g))

/* ASSERT that GPU @g reads exactly the @len bytes @want at @addr. */
#define ASSERT_GPU_READS(g, addr, len, want) do {				\
	memset(self->out, 0xa5, (len));						\
	ASSERT_EQ(0, uvm_gpu_read(self->dev.fd, (g), (addr), (len), self->out, NULL)); \
	ASSERT_EQ(-1, uvm_memcmp_at(self->out, (want), (len))) {		\
		TH_LOG("GPU %u read of %p differs", (unsigned int)(g), (void *)(addr)); \
	}									\
} while (0)

/* ASSERT that GPU @g writes the @len bytes @src to @addr. */
#define ASSERT_GPU_WRITES(g, addr, len, src) \
	ASSERT_EQ(0, uvm_gpu_write(self->dev.fd, (g), (addr), (len), (src), NULL))

/*
 * One access of @type by GPU @g to @len bytes at @addr (pattern write,
 * checksum read, atomic add of 1); return the launch's result and fill @l.
 */
static int gpu_access(int fd, uint32_t g, uint32_t type, const void *addr,
		      uint64_t len, struct uvm_test_launch *l)
{
	struct uvm_test_gpu_op op = uvm_op(type, addr, len, 8);

	op.value = 1;
	return uvm_launch(fd, g, 1, &op, 1, l);
}

/* ASSERT that an access of @type by GPU @g at @addr is a fatal fault there. */
#define ASSERT_GPU_FATAL(g, type, addr) do {					\
	struct uvm_test_launch __l;						\
	ASSERT_EQ(-EREMOTEIO, gpu_access(self->dev.fd, (g), (type), (addr), 8, &__l)); \
	ASSERT_EQ((uintptr_t)(addr), __l.fault_address);			\
	ASSERT_EQ((uint32_t)(type), __l.fault_access);				\
} while (0)

/* The 2 MiB-aligned anonymous mapping of @len bytes every test starts from. */
#define ANON(len) ({								\
	uint8_t *__p = uvm_mmap_anon_aligned((len), PROT_READ | PROT_WRITE);	\
	ASSERT_NE(MAP_FAILED, __p);						\
	__p;									\
})

/*
 * GET_VERSION reports mirroring everywhere, device-private memory where the
 * kernel has it: the debug kernels and Debian's 7.3 (distro73) are built
 * with DEVICE_PRIVATE, Debian's 6.1 and 6.12 (distro, distro612) without.
 */
TEST_F(hmm, caps)
{
	const char *kernel = getenv("UVM_KERNEL");

	ASSERT_TRUE(uvm_has_hmm(&self->dev));
	if (kernel && (!strncmp(kernel, "debug", 5) || !strcmp(kernel, "distro73"))) {
		ASSERT_TRUE(self->dp);
	} else if (kernel && !strncmp(kernel, "distro", 6)) {
		ASSERT_FALSE(self->dp);
	}
}

/* A GPU reads malloc'd bytes exactly, in order and in random order */
TEST_F(hmm, malloc_read)
{
	uint64_t len = UVM_MIB + 64;
	uint8_t *p = malloc(len);
	struct uvm_test_gpu_op op;
	struct uvm_counters d;

	ASSERT_NE(NULL, p);
	memcpy(p, self->ref, len);
	UVM_COUNT_DELTA(self->dev.fd, d, ASSERT_GPU_READS(0, p, len, self->ref));
	ASSERT_LT(0ULL, d.c[UVM_COUNTER_GPU_FAULTS]);
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_GPU_FATAL_FAULTS]);
	op = uvm_op_random(uvm_op_read(p, len, 64, self->out), 7);
	memset(self->out, 0, len);
	ASSERT_EQ(0, uvm_launch(self->dev.fd, 0, 16, &op, 1, NULL));
	ASSERT_EQ(-1, uvm_memcmp_at(self->out, self->ref, len));
	ASSERT_CPU_READ(p, len, self->ref);
	free(p);
}

/* A GPU writes malloc'd memory; the CPU reads exactly those bytes */
TEST_F(hmm, malloc_write)
{
	uint64_t len = UVM_MIB + 64;
	uint8_t *p = malloc(len);

	ASSERT_NE(NULL, p);
	memset(p, 0x11, len);
	ASSERT_GPU_WRITES(0, p, len, self->ref);
	ASSERT_CPU_READ(p, len, self->ref);
	ASSERT_GPU_READS(0, p, len, self->ref);
	free(p);
}

/* GPU atomics on malloc'd words add up exactly */
TEST_F(hmm, malloc_atomic)
{
	const uint64_t words = 4096;
	uint64_t *p = malloc(words * 8), i;
	struct uvm_test_gpu_op ops[2];

	ASSERT_NE(NULL, p);
	for (i = 0; i < words; i++)
		p[i] = i;
	ops[0] = uvm_op_atomic(p, words * 8, 3);
	ops[1] = uvm_op_random(uvm_op_atomic(p, words * 8, 4), 9);
	ASSERT_EQ(0, uvm_launch(self->dev.fd, 0, 32, ops, 2, NULL));
	for (i = 0; i < words; i++)
		ASSERT_EQ(i + 7, p[i]);
	free(p);
}

/* Residency after a GPU write: migrated (debug) or mirrored read-write (distro) */
TEST_F(hmm, residency_after_gpu_write)
{
	const uint64_t n = 16;
	uint8_t *p = ANON(n * self->ps);

	ASSERT_PAGEABLE(&self->dev, p, n, UVM_STATE_NONE);
	memset(p, 1, n * self->ps);
	ASSERT_PAGEABLE(&self->dev, p, n, UVM_STATE_CPU);
	ASSERT_GPU_WRITES(0, p, n * self->ps, self->ref);
	ASSERT_PAGEABLE(&self->dev, p, n, STATE_GPU_WROTE(0));
	ASSERT_CPU_READ(p, n * self->ps, self->ref);
	ASSERT_PAGEABLE(&self->dev, p, n, self->dp ? UVM_STATE_CPU : STATE_MIRRORED(0));
	munmap(p, n * self->ps);
}

/* Two GPUs share malloc'd memory: one writes, the other reads, the CPU checks */
TEST_F(hmm, two_gpus)
{
	const uint64_t n = 32;
	uint8_t *p = ANON(n * self->ps);

	if (self->dev.num_gpus < 2)
		UVM_SKIP("needs 2 GPUs");
	ASSERT_GPU_WRITES(0, p, n * self->ps, self->ref);
	ASSERT_GPU_READS(1, p, n * self->ps, self->ref);
	if (self->dp)
		ASSERT_PAGEABLE(&self->dev, p, n, UVM_STATE_GPU(1));
	else
		ASSERT_PAGEABLE(&self->dev, p, n,
				uvm_state(CPU, CPU | G(0) | G(1), CPU | G(0) | G(1),
					  G(0) | G(1)));
	ASSERT_CPU_READ(p, n * self->ps, self->ref);
	munmap(p, n * self->ps);
}

/* Memory nobody touched reads as zeros on the GPU; populated there (debug) */
TEST_F(hmm, untouched_reads_zero)
{
	const uint64_t n = 16;
	uint8_t *p = ANON(n * self->ps), *zero = calloc(1, n * self->ps);
	struct uvm_counters d;

	ASSERT_NE(NULL, zero);
	UVM_COUNT_DELTA(self->dev.fd, d, ASSERT_GPU_READS(0, p, n * self->ps, zero));
	if (self->dp) {
		ASSERT_EQ(n, d.c[UVM_COUNTER_PAGES_POPULATED_GPU]);
		ASSERT_EQ(0ULL, d.c[UVM_COUNTER_PAGES_H2D]);
		ASSERT_PAGEABLE(&self->dev, p, n, UVM_STATE_GPU(0));
	} else {
		/* The zero page, read-only for everyone. */
		ASSERT_PAGEABLE(&self->dev, p, n, STATE_MIRRORED_RO(0));
	}
	ASSERT_CPU_READ(p, n * self->ps, zero);
	free(zero);
	munmap(p, n * self->ps);
}

/* Read-only memory: GPU reads work, GPU writes and atomics are fatal */
TEST_F(hmm, read_only_mapping)
{
	const uint64_t n = 4;
	uint8_t *p = ANON(n * self->ps);

	memcpy(p, self->ref, n * self->ps);
	ASSERT_EQ(0, mprotect(p, n * self->ps, PROT_READ));
	ASSERT_GPU_READS(0, p, n * self->ps, self->ref);
	ASSERT_GPU_FATAL(0, UVM_TEST_OP_WRITE, p + self->ps);
	ASSERT_GPU_FATAL(0, UVM_TEST_OP_ATOMIC_ADD, p + 2 * self->ps);
	ASSERT_CPU_READ(p, n * self->ps, self->ref);
	if (!self->dp)
		ASSERT_PAGEABLE(&self->dev, p, n, STATE_MIRRORED_RO(0));
	munmap(p, n * self->ps);
}

/* mprotect(PROT_READ) revokes the GPU's write access; PROT_WRITE gives it back */
TEST_F(hmm, mprotect_write)
{
	const uint64_t n = 8, len = n * self->ps;
	uint8_t *p = ANON(len);

	ASSERT_GPU_WRITES(0, p, len, self->ref);
	ASSERT_EQ(0, mprotect(p, len, PROT_READ));
	ASSERT_GPU_FATAL(0, UVM_TEST_OP_WRITE, p);
	ASSERT_GPU_READS(0, p, len, self->ref);
	ASSERT_EQ(0, mprotect(p, len, PROT_READ | PROT_WRITE));
	ASSERT_GPU_WRITES(0, p, len, self->ref + len);
	ASSERT_CPU_READ(p, len, self->ref + len);
	munmap(p, len);
}

/* PROT_NONE memory is fatal to GPU reads; its data survives for later */
TEST_F(hmm, mprotect_none)
{
	const uint64_t n = 4, len = n * self->ps;
	uint8_t *p = ANON(len);

	ASSERT_GPU_WRITES(0, p, len, self->ref);
	ASSERT_EQ(0, mprotect(p, len, PROT_NONE));
	ASSERT_GPU_FATAL(0, UVM_TEST_OP_READ, p + self->ps);
	/* What the CPU cannot read, HMM does not report. */
	ASSERT_PAGEABLE(&self->dev, p, n, UVM_STATE_NONE);
	ASSERT_EQ(0, mprotect(p, len, PROT_READ));
	ASSERT_GPU_READS(0, p, len, self->ref);
	ASSERT_CPU_READ(p, len, self->ref);
	munmap(p, len);
}

/* After munmap the GPU's accesses there are fatal and nothing is left */
TEST_F(hmm, munmap_then_access)
{
	const uint64_t n = 16, len = n * self->ps;
	uint64_t vid = uvm_vidmem_used(self->dev.fd, 0);
	uint8_t *p = ANON(len);

	ASSERT_GPU_WRITES(0, p, len, self->ref);
	ASSERT_EQ(0, munmap(p, len));
	ASSERT_PAGEABLE(&self->dev, p, n, UVM_STATE_NONE);
	ASSERT_GPU_FATAL(0, UVM_TEST_OP_READ, p);
	ASSERT_GPU_FATAL(0, UVM_TEST_OP_WRITE, p + len - 8);
	ASSERT_EQ(vid, uvm_vidmem_wait(self->dev.fd, 0, vid));
}

/* A launch whose partial munmap hits its middle: the rest keeps working */
TEST_F(hmm, munmap_partial)
{
	const uint64_t n = 16, len = n * self->ps;
	uint8_t *p = ANON(len);

	ASSERT_GPU_WRITES(0, p, len, self->ref);
	ASSERT_EQ(0, munmap(p + 4 * self->ps, 4 * self->ps));
	ASSERT_GPU_READS(0, p, 4 * self->ps, self->ref);
	ASSERT_GPU_READS(0, p + 8 * self->ps, 8 * self->ps, self->ref + 8 * self->ps);
	ASSERT_GPU_FATAL(0, UVM_TEST_OP_READ, p + 5 * self->ps);
	ASSERT_CPU_READ(p + 8 * self->ps, 8 * self->ps, self->ref + 8 * self->ps);
	munmap(p, len);
}

struct race {
	int fd;
	uint8_t *p;
	uint64_t len;
	int ret;
	struct uvm_test_launch l;
};

static void *race_gpu(void *arg)
{
	struct race *r = arg;
	struct uvm_test_gpu_op ops[2];
	int i;

	for (i = 0; i < 50 && !r->ret; i++) {
		ops[0] = uvm_op_pattern(r->p, r->len, i);
		ops[1] = uvm_op_read(r->p, r->len, 8, NULL);
		r->ret = uvm_launch(r->fd, 0, 8, ops, 2, &r->l);
	}
	return NULL;
}

/* munmap racing GPU access: launches end cleanly (0 or fatal fault), no hang */
TEST_F_TIMEOUT(hmm, munmap_races_gpu, 120)
{
	struct race r = { .fd = self->dev.fd, .len = 2 * UVM_MIB };
	uint64_t vid = uvm_vidmem_used(self->dev.fd, 0);
	pthread_t t;

	r.p = ANON(r.len);
	memset(r.p, 1, r.len);
	ASSERT_EQ(0, pthread_create(&t, NULL, race_gpu, &r));
	usleep(30000);
	ASSERT_EQ(0, munmap(r.p, r.len));
	pthread_join(t, NULL);
	if (r.ret) {
		ASSERT_EQ(-EREMOTEIO, r.ret);
		ASSERT_LE((uintptr_t)r.p, r.l.fault_address);
		ASSERT_GT((uintptr_t)r.p + r.len, r.l.fault_address);
	}
	ASSERT_EQ(vid, uvm_vidmem_wait(self->dev.fd, 0, vid));
	r.p = ANON(r.len);
	ASSERT_GPU_WRITES(0, r.p, r.len, self->ref);
	ASSERT_CPU_READ(r.p, r.len, self->ref);
	munmap(r.p, r.len);
}

/* madvise(MADV_DONTNEED) drops what the GPU wrote: zeros on both sides */
TEST_F(hmm, madvise_dontneed)
{
	const uint64_t n = 16, len = n * self->ps;
	uint8_t *p = ANON(len), *zero = calloc(1, len);

	ASSERT_NE(NULL, zero);
	ASSERT_GPU_WRITES(0, p, len, self->ref);
	ASSERT_EQ(0, madvise(p, len, MADV_DONTNEED));
	ASSERT_PAGEABLE(&self->dev, p, n, UVM_STATE_NONE);
	ASSERT_GPU_READS(0, p, len, zero);
	ASSERT_CPU_READ(p, len, zero);
	free(zero);
	munmap(p, len);
}

struct cow_check {
	uint8_t *p;
	const uint8_t *want;
	uint64_t len;
	int go;		/* read end of a pipe: the parent says when */
};

static int cow_child(void *arg)
{
	struct cow_check *c = arg;
	char b;

	if (read(c->go, &b, 1) != 1)
		return 2;
	return uvm_memcmp_at(c->p, c->want, c->len) == -1 ? 0 : 1;
}

/* fork: the GPU writes the parent's copy only; the child keeps what it had */
TEST_F(hmm, fork_cow)
{
	const uint64_t n = 16, len = n * self->ps;
	uint8_t *p = ANON(len), *want = malloc(len);
	struct cow_check c = { .len = len, .want = want };
	int fds[2], status;
	pid_t pid;

	ASSERT_NE(NULL, want);
	memcpy(p, self->ref, len);
	ASSERT_GPU_WRITES(0, p, len / 2, self->ref + len);
	memcpy(want, self->ref + len, len / 2);
	memcpy(want + len / 2, self->ref + len / 2, len / 2);
	ASSERT_EQ(0, pipe(fds));
	c.p = p;
	c.go = fds[0];
	fflush(NULL);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(cow_child(&c));
	ASSERT_GPU_WRITES(0, p, len, self->ref + 2 * len);
	ASSERT_EQ(1, write(fds[1], "g", 1));
	status = uvm_wait_child(pid);
	ASSERT_EQ(0, status);
	ASSERT_CPU_READ(p, len, self->ref + 2 * len);
	close(fds[0]);
	close(fds[1]);
	free(want);
	munmap(p, len);
}

/* fork: a child's CPU write does not show through the parent's GPU mapping */
TEST_F(hmm, fork_child_writes)
{
	const uint64_t n = 8, len = n * self->ps;
	uint8_t *p = ANON(len);

	ASSERT_GPU_WRITES(0, p, len, self->ref);
	ASSERT_EQ(0, uvm_child_write(p + self->ps));
	ASSERT_GPU_READS(0, p, len, self->ref);
	ASSERT_CPU_READ(p, len, self->ref);
	munmap(p, len);
}

/* Transparent huge pages: read and written exactly, split by a partial munmap */
TEST_F(hmm, thp)
{
	const uint64_t len = UVM_VA_BLOCK_SIZE, half = len / 2;
	uint8_t *p = ANON(len);
	char line[256];
	long huge_kb = 0;
	FILE *f;

	if (madvise(p, len, MADV_HUGEPAGE))
		UVM_SKIP("no transparent huge pages (madvise: %s)", strerror(errno));
	memcpy(p, self->ref, len);
	f = fopen("/proc/self/smaps_rollup", "re");
	while (f && fgets(line, sizeof(line), f))
		sscanf(line, "AnonHugePages: %ld kB", &huge_kb);
	if (f)
		fclose(f);
	if (huge_kb < 2048)
		UVM_SKIP("the kernel gave no huge page");
	ASSERT_GPU_READS(0, p, len, self->ref);
	ASSERT_GPU_WRITES(0, p + half, half, self->ref + len);
	ASSERT_CPU_READ(p, half, self->ref);
	ASSERT_CPU_READ(p + half, half, self->ref + len);
	ASSERT_EQ(0, munmap(p + half, half));
	ASSERT_GPU_READS(0, p, half, self->ref);
	ASSERT_GPU_FATAL(0, UVM_TEST_OP_READ, p + half);
	munmap(p, half);
}

/* A huge page split by mprotect: one half stays writable for the GPU */
TEST_F(hmm, thp_mprotect_split)
{
	const uint64_t len = UVM_VA_BLOCK_SIZE, half = len / 2;
	uint8_t *p = ANON(len);

	madvise(p, len, MADV_HUGEPAGE);
	memcpy(p, self->ref, len);
	ASSERT_GPU_READS(0, p, len, self->ref);
	ASSERT_EQ(0, mprotect(p + half, half, PROT_READ));
	ASSERT_GPU_WRITES(0, p, half, self->ref + len);
	ASSERT_GPU_FATAL(0, UVM_TEST_OP_WRITE, p + half + self->ps);
	ASSERT_CPU_READ(p, half, self->ref + len);
	ASSERT_CPU_READ(p + half, half, self->ref + half);
	munmap(p, len);
}

/* A shared memfd mapping: GPU writes reach the file; it never migrates */
TEST_F(hmm, memfd_shared)
{
	const uint64_t n = 16, len = n * self->ps;
	int fd = memfd_create("uvm-hmm", MFD_CLOEXEC);
	uint8_t *p;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ftruncate(fd, len));
	ASSERT_EQ((ssize_t)len, pwrite(fd, self->ref, len, 0));
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_GPU_READS(0, p, len, self->ref);
	ASSERT_GPU_WRITES(0, p, len, self->ref + len);
	ASSERT_PAGEABLE(&self->dev, p, n, STATE_MIRRORED(0));
	ASSERT_EQ((ssize_t)len, pread(fd, self->out, len, 0));
	ASSERT_EQ(-1, uvm_memcmp_at(self->out, self->ref + len, len));
	munmap(p, len);
	close(fd);
}

/* A private memfd mapping: GPU writes copy on write, the file is unchanged */
TEST_F(hmm, memfd_private)
{
	const uint64_t n = 8, len = n * self->ps;
	int fd = memfd_create("uvm-hmm", MFD_CLOEXEC);
	uint8_t *p;

	ASSERT_LE(0, fd);
	ASSERT_EQ((ssize_t)len, pwrite(fd, self->ref, len, 0));
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_GPU_READS(0, p, len, self->ref);
	ASSERT_GPU_WRITES(0, p, len, self->ref + len);
	ASSERT_CPU_READ(p, len, self->ref + len);
	ASSERT_EQ((ssize_t)len, pread(fd, self->out, len, 0));
	ASSERT_EQ(-1, uvm_memcmp_at(self->out, self->ref, len));
	munmap(p, len);
	close(fd);
}

/* A file in /tmp: the GPU reads it through the page cache and writes back */
TEST_F(hmm, tmpfile_shared)
{
	const uint64_t n = 8, len = n * self->ps;
	char path[] = "/tmp/uvm-hmm-XXXXXX";
	int fd = mkstemp(path);
	uint8_t *p;

	ASSERT_LE(0, fd);
	unlink(path);
	ASSERT_EQ((ssize_t)len, pwrite(fd, self->ref, len, 0));
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_GPU_READS(1 % self->dev.num_gpus, p, len, self->ref);
	ASSERT_GPU_WRITES(0, p + self->ps, self->ps, self->ref + len);
	ASSERT_EQ((ssize_t)self->ps, pread(fd, self->out, self->ps, self->ps));
	ASSERT_EQ(-1, uvm_memcmp_at(self->out, self->ref + len, self->ps));
	munmap(p, len);
	close(fd);
}

/* A file mapped read-only: reads work, a GPU write is fatal */
TEST_F(hmm, file_read_only)
{
	const uint64_t len = 4 * self->ps;
	char path[] = "/tmp/uvm-hmm-XXXXXX";
	int fd = mkstemp(path), rfd;
	uint8_t *p;

	ASSERT_LE(0, fd);
	ASSERT_EQ((ssize_t)len, pwrite(fd, self->ref, len, 0));
	rfd = open(path, O_RDONLY | O_CLOEXEC);
	unlink(path);
	ASSERT_LE(0, rfd);
	p = mmap(NULL, len, PROT_READ, MAP_SHARED, rfd, 0);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_GPU_READS(0, p, len, self->ref);
	ASSERT_GPU_FATAL(0, UVM_TEST_OP_WRITE, p + 8);
	munmap(p, len);
	close(rfd);
	close(fd);
}

/* Reclaim of clean page cache (MADV_PAGEOUT) revokes the GPU mapping */
TEST_F(hmm, pageout_file)
{
	const uint64_t len = 4 * self->ps;
	const char *src = getenv("UVM_SRC");
	unsigned char vec[4];
	char path[512];
	uint8_t *p;
	int fd;

	/* A file of the (read-only, page-cached) source tree nobody maps. */
	snprintf(path, sizeof(path), "%s/tests/hmm.c", src ? src : ".");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		UVM_SKIP("cannot open the source tree's tests/hmm.c: %s", strerror(errno));
	ASSERT_EQ((ssize_t)len, pread(fd, self->ref + len, len, 0));
	p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_GPU_READS(0, p, len, self->ref + len);
	ASSERT_PAGEABLE(&self->dev, p, 4, STATE_MIRRORED_RO(0));
	if (madvise(p, len, MADV_PAGEOUT))
		UVM_SKIP("MADV_PAGEOUT: %s", strerror(errno));
	ASSERT_EQ(0, mincore(p, len, vec));
	if (vec[0] & 1)
		UVM_SKIP("the page cache kept the pages");
	ASSERT_PAGEABLE(&self->dev, p, 1, UVM_STATE_NONE);
	ASSERT_GPU_READS(0, p, len, self->ref + len);
	munmap(p, len);
	close(fd);
}

/* Anonymous shared memory: a fork child sees the GPU's writes; never migrated */
TEST_F(hmm, anon_shared)
{
	const uint64_t n = 8, len = n * self->ps;
	uint8_t *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct cow_check c = { .len = len, .want = self->ref + len };
	int fds[2];
	pid_t pid;

	ASSERT_NE(MAP_FAILED, p);
	memcpy(p, self->ref, len);
	ASSERT_EQ(0, pipe(fds));
	c.p = p;
	c.go = fds[0];
	fflush(NULL);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(cow_child(&c));
	ASSERT_GPU_WRITES(0, p, len, self->ref + len);
	ASSERT_PAGEABLE(&self->dev, p, n, STATE_MIRRORED(0));
	ASSERT_EQ(1, write(fds[1], "g", 1));
	ASSERT_EQ(0, uvm_wait_child(pid));
	close(fds[0]);
	close(fds[1]);
	munmap(p, len);
}

/* The stack: GPU reads and writes a local array */
TEST_F(hmm, stack)
{
	uint8_t buf[8 * 4096] __attribute__((aligned(4096)));
	uint64_t len = sizeof(buf);

	memcpy(buf, self->ref, len);
	ASSERT_GPU_READS(0, buf, len, self->ref);
	ASSERT_GPU_WRITES(0, buf, len, self->ref + len);
	ASSERT_CPU_READ(buf, len, self->ref + len);
}

struct cpu_writer {
	uint8_t *p;
	uint64_t ps;
	uint64_t pages;
	volatile int stop;
	unsigned int rounds;
};

static void *cpu_writer(void *arg)
{
	struct cpu_writer *w = arg;
	uint64_t i;

	while (!w->stop || w->rounds < 2) {
		w->rounds++;
		for (i = 0; i < w->pages; i += 2)
			memset(w->p + i * w->ps, w->rounds & 0xff, w->ps);
	}
	return NULL;
}

/* CPU and GPU write different pages of one 2 MiB region at the same time */
TEST_F_TIMEOUT(hmm, concurrent_cpu_gpu_writers, 180)
{
	const uint64_t len = UVM_VA_BLOCK_SIZE, pages = len / self->ps;
	struct cpu_writer w = { .ps = self->ps, .pages = pages };
	struct uvm_test_gpu_op op;
	uint64_t i, r;
	pthread_t t;

	w.p = ANON(len);
	memset(w.p, 0, len);
	ASSERT_EQ(0, pthread_create(&t, NULL, cpu_writer, &w));
	for (r = 1; r <= 4; r++) {
		op = uvm_op(UVM_TEST_OP_WRITE, w.p + self->ps, len - self->ps, self->ps);
		op.stride = 2 * self->ps;
		op.value = r;
		ASSERT_EQ(0, uvm_launch(self->dev.fd, 0, 8, &op, 1, NULL));
	}
	w.stop = 1;
	pthread_join(t, NULL);
	for (i = 0; i < pages; i++) {
		if (i % 2) {
			ASSERT_EQ(-1, uvm_pattern_mismatch(w.p + i * self->ps, self->ps, 4))
				TH_LOG("GPU page %llu", (unsigned long long)i);
		} else {
			ASSERT_EQ(w.rounds & 0xff, w.p[i * self->ps]);
			ASSERT_EQ(w.rounds & 0xff, w.p[(i + 1) * self->ps - 1]);
		}
	}
	munmap(w.p, len);
}

/* Debug kernel: migrated to vidmem by a GPU write, back page by page on CPU touch */
TEST_F(hmm, migrate_and_back)
{
	const uint64_t n = 32, len = n * self->ps;
	uint64_t vid = uvm_vidmem_used(self->dev.fd, 0);
	uint8_t *p;
	struct uvm_counters d;

	if (!self->dp)
		UVM_SKIP("no device-private memory: pageable memory is mirrored only");
	p = ANON(len);
	memset(p, 7, len);
	UVM_COUNT_DELTA(self->dev.fd, d, ASSERT_GPU_WRITES(0, p, len, self->ref));
	ASSERT_EQ(n, d.c[UVM_COUNTER_PAGES_H2D]);
	ASSERT_EQ(n * self->ps, d.c[UVM_COUNTER_BYTES_H2D]);
	ASSERT_PAGEABLE(&self->dev, p, n, UVM_STATE_GPU(0));
	ASSERT_LT(vid, uvm_vidmem_used(self->dev.fd, 0));

	UVM_COUNT_DELTA(self->dev.fd, d, ASSERT_EQ(self->ref[3 * self->ps + 5], p[3 * self->ps + 5]));
	ASSERT_EQ(1ULL, d.c[UVM_COUNTER_PAGES_D2H]);
	ASSERT_EQ(1ULL, d.c[UVM_COUNTER_CPU_FAULTS]);
	ASSERT_PAGEABLE(&self->dev, p + 3 * self->ps, 1, UVM_STATE_CPU);
	ASSERT_PAGEABLE(&self->dev, p + 4 * self->ps, n - 4, UVM_STATE_GPU(0));
	ASSERT_PAGEABLE(&self->dev, p, 3, UVM_STATE_GPU(0));

	UVM_COUNT_DELTA(self->dev.fd, d, ASSERT_CPU_READ(p, len, self->ref));
	ASSERT_EQ(n - 1, d.c[UVM_COUNTER_PAGES_D2H]);
	ASSERT_PAGEABLE(&self->dev, p, n, UVM_STATE_CPU);
	ASSERT_EQ(vid, uvm_vidmem_wait(self->dev.fd, 0, vid));
	munmap(p, len);
}

/* Debug kernel: a second GPU's access moves the pages GPU to GPU */
TEST_F(hmm, migrate_gpu_to_gpu)
{
	const uint64_t n = 16, len = n * self->ps;
	struct uvm_counters d;
	uint8_t *p;

	if (!self->dp)
		UVM_SKIP("no device-private memory: pageable memory is mirrored only");
	if (self->dev.num_gpus < 2)
		UVM_SKIP("needs 2 GPUs");
	p = ANON(len);
	ASSERT_GPU_WRITES(0, p, len, self->ref);
	UVM_COUNT_DELTA(self->dev.fd, d, ASSERT_GPU_READS(1, p, len, self->ref));
	ASSERT_EQ(n, d.c[UVM_COUNTER_PAGES_D2D]);
	ASSERT_PAGEABLE(&self->dev, p, n, UVM_STATE_GPU(1));
	ASSERT_CPU_READ(p, len, self->ref);
	munmap(p, len);
}

/* Debug kernel: mlocked memory stays in RAM, mirrored */
TEST_F(hmm, mlocked_stays)
{
	const uint64_t n = 8, len = n * self->ps;
	uint8_t *p = ANON(len);

	if (mlock(p, len))
		UVM_SKIP("mlock: %s", strerror(errno));
	ASSERT_GPU_WRITES(0, p, len, self->ref);
	ASSERT_PAGEABLE(&self->dev, p, n, STATE_MIRRORED(0));
	ASSERT_CPU_READ(p, len, self->ref);
	munlock(p, len);
	munmap(p, len);
}

/* Prefetch to a GPU: migrated (debug) or populated and mapped (distro); no faults after */
TEST_F(hmm, prefetch_to_gpu)
{
	const uint64_t n = 64, len = n * self->ps;
	uint64_t faults = 1, fence;
	uint8_t *p = ANON(len);

	memcpy(p, self->ref, len / 2);
	ASSERT_EQ(0, uvm_prefetch(self->dev.fd, p, len / 2, UVM_LOC_GPU(0)));
	ASSERT_EQ(0, uvm_migrate1(self->dev.fd, UVM_MIGRATE_PREFETCH, UVM_MIGRATE_ASYNC,
				  p + len / 2, len / 2, UVM_LOC_GPU(0), &fence));
	ASSERT_EQ(0, uvm_fence_wait(self->dev.fd, fence, 0, NULL));
	ASSERT_PAGEABLE(&self->dev, p, n, STATE_GPU_WROTE(0));
	memset(self->out, 0xa5, len);
	ASSERT_EQ(0, uvm_gpu_read(self->dev.fd, 0, p, len, self->out, &faults));
	ASSERT_EQ(0ULL, faults);
	ASSERT_EQ(-1, uvm_memcmp_at(self->out, self->ref, len / 2));
	ASSERT_EQ(-1, uvm_nonzero_at(self->out + len / 2, len / 2));
	munmap(p, len);
}

/* Prefetch to the host brings device pages back (debug); data intact everywhere */
TEST_F(hmm, prefetch_to_host)
{
	const uint64_t n = 32, len = n * self->ps;
	struct uvm_counters d;
	uint8_t *p = ANON(len);

	ASSERT_GPU_WRITES(0, p, len, self->ref);
	UVM_COUNT_DELTA(self->dev.fd, d,
			ASSERT_EQ(0, uvm_prefetch(self->dev.fd, p, len, UVM_LOC_HOST)));
	ASSERT_EQ(self->dp ? n : 0, d.c[UVM_COUNTER_PAGES_D2H]);
	ASSERT_EQ(self->dp ? n : 0, d.c[UVM_COUNTER_PAGES_PREFETCHED]);
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_CPU_FAULTS]);
	ASSERT_PAGEABLE(&self->dev, p, n, self->dp ? UVM_STATE_CPU : STATE_MIRRORED(0));
	ASSERT_CPU_READ(p, len, self->ref);
	ASSERT_GPU_READS(0, p, len, self->ref);
	munmap(p, len);
}

/* One batch mixing a managed range and a pageable range prefetches both */
TEST_F(hmm, prefetch_batch_mixed)
{
	const uint64_t n = 8, len = n * self->ps;
	uint8_t *m = uvm_mmap(&self->dev, len), *p = ANON(len);
	struct uvm_range r[2] = {
		{ .address = (uintptr_t)m, .length = len },
		{ .address = (uintptr_t)p, .length = len },
	};
	struct uvm_location loc = UVM_LOC_GPU(0);
	uint64_t start = 0, faults = 1;

	ASSERT_NE(MAP_FAILED, m);
	memcpy(m, self->ref, len);
	memcpy(p, self->ref + len, len);
	ASSERT_EQ(0, uvm_migrate(self->dev.fd, UVM_MIGRATE_PREFETCH, 0, r, 2, &loc, &start, 1,
				 NULL));
	ASSERT_RESIDENCY(&self->dev, m, n, UVM_STATE_GPU(0));
	ASSERT_PAGEABLE(&self->dev, p, n, STATE_GPU_WROTE(0));
	ASSERT_EQ(0, uvm_gpu_read(self->dev.fd, 0, p, len, self->out, &faults));
	ASSERT_EQ(0ULL, faults);
	ASSERT_EQ(-1, uvm_memcmp_at(self->out, self->ref + len, len));
	munmap(m, len);
	munmap(p, len);
}

/* Discard drops the contents (madvise(DONTNEED) semantics): zeros afterwards */
TEST_F(hmm, discard)
{
	const uint64_t n = 16, len = n * self->ps;
	uint8_t *p = ANON(len), *zero = calloc(1, len);
	struct uvm_counters d;

	ASSERT_NE(NULL, zero);
	ASSERT_GPU_WRITES(0, p, len, self->ref);
	UVM_COUNT_DELTA(self->dev.fd, d, ASSERT_EQ(0, uvm_discard(self->dev.fd, p, len)));
	ASSERT_EQ(n, d.c[UVM_COUNTER_PAGES_DISCARDED]);
	ASSERT_PAGEABLE(&self->dev, p, n, UVM_STATE_NONE);
	ASSERT_GPU_READS(0, p, len, zero);
	ASSERT_CPU_READ(p, len, zero);
	free(zero);
	munmap(p, len);
}

/* Discard-and-prefetch: zeros at the destination, nothing copied */
TEST_F(hmm, discard_prefetch)
{
	const uint64_t n = 16, len = n * self->ps;
	uint8_t *p = ANON(len), *zero = calloc(1, len);
	struct uvm_counters d;

	ASSERT_NE(NULL, zero);
	memcpy(p, self->ref, len);
	UVM_COUNT_DELTA(self->dev.fd, d,
			ASSERT_EQ(0, uvm_discard_prefetch(self->dev.fd, p, len, UVM_LOC_GPU(0))));
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_PAGES_H2D]);
	ASSERT_PAGEABLE(&self->dev, p, n, STATE_GPU_WROTE(0));
	ASSERT_GPU_READS(0, p, len, zero);
	ASSERT_CPU_READ(p, len, zero);
	free(zero);
	munmap(p, len);
}

/* Preferred location HOST: a GPU's first access maps system memory, nothing migrates */
TEST_F(hmm, preferred_host)
{
	const uint64_t n = 8, len = n * self->ps;
	uint8_t *p = ANON(len);

	memcpy(p, self->ref, len);
	ASSERT_EQ(0, uvm_advise(self->dev.fd, p, len, UVM_ADVICE_SET_PREFERRED_LOCATION,
				UVM_LOC_HOST));
	ASSERT_GPU_WRITES(0, p, len / 2, self->ref + len);
	ASSERT_GPU_READS(0, p + len / 2, len / 2, self->ref + len / 2);
	ASSERT_PAGEABLE(&self->dev, p, n, STATE_MIRRORED(0));
	ASSERT_CPU_READ(p, len / 2, self->ref + len);
	ASSERT_CPU_READ(p + len / 2, len / 2, self->ref + len / 2);
	munmap(p, len);
}

/* Preferred location HOST set while pages are on a GPU: the next GPU's access brings them home */
TEST_F(hmm, preferred_host_brings_back)
{
	const uint64_t n = 8, len = n * self->ps;
	uint8_t *p;

	if (self->dev.num_gpus < 2)
		UVM_SKIP("needs 2 GPUs");
	p = ANON(len);
	ASSERT_GPU_WRITES(0, p, len, self->ref);
	ASSERT_PAGEABLE(&self->dev, p, n, STATE_GPU_WROTE(0));
	ASSERT_EQ(0, uvm_advise(self->dev.fd, p, len, UVM_ADVICE_SET_PREFERRED_LOCATION,
				UVM_LOC_HOST));
	ASSERT_GPU_READS(1, p, len, self->ref);
	if (self->dp)
		ASSERT_PAGEABLE(&self->dev, p, n, STATE_MIRRORED(1));
	ASSERT_CPU_READ(p, len, self->ref);
	munmap(p, len);
}

/* Preferred location GPU 1: GPU 0's accesses migrate to GPU 1 and map it as a peer */
TEST_F(hmm, preferred_other_gpu)
{
	const uint64_t n = 8, len = n * self->ps;
	uint8_t *p;

	if (!self->dp)
		UVM_SKIP("no device-private memory: pageable memory is mirrored only");
	if (self->dev.num_gpus < 2)
		UVM_SKIP("needs 2 GPUs");
	p = ANON(len);
	ASSERT_EQ(0, uvm_advise(self->dev.fd, p, len, UVM_ADVICE_SET_PREFERRED_LOCATION,
				UVM_LOC_GPU(1)));
	ASSERT_GPU_WRITES(0, p, len, self->ref);
	ASSERT_PAGEABLE(&self->dev, p, n, uvm_state(G(1), G(0), G(0), G(0)));
	ASSERT_GPU_READS(1, p, len, self->ref);
	ASSERT_CPU_READ(p, len, self->ref);
	munmap(p, len);
}

/* Accessed-by: the GPU maps the pages at once and then follows them */
TEST_F(hmm, accessed_by)
{
	const uint64_t n = 8, len = n * self->ps;
	uint64_t faults = 1;
	uint8_t *p;

	if (self->dev.num_gpus < 2)
		UVM_SKIP("needs 2 GPUs");
	p = ANON(len);
	memcpy(p, self->ref, len);
	ASSERT_EQ(0, uvm_advise(self->dev.fd, p, len, UVM_ADVICE_SET_ACCESSED_BY,
				UVM_LOC_GPU(1)));
	ASSERT_PAGEABLE(&self->dev, p, n, STATE_MIRRORED(1));
	ASSERT_EQ(0, uvm_gpu_read(self->dev.fd, 1, p, len, self->out, &faults));
	ASSERT_EQ(0ULL, faults);
	ASSERT_GPU_WRITES(0, p, len, self->ref + len);
	if (self->dp)
		ASSERT_PAGEABLE(&self->dev, p, n,
				uvm_state(G(0), G(0) | G(1), G(0) | G(1), G(0) | G(1)));
	else
		ASSERT_PAGEABLE(&self->dev, p, n,
				uvm_state(CPU, CPU | G(0) | G(1), CPU | G(0) | G(1),
					  G(0) | G(1)));
	faults = 1;
	ASSERT_EQ(0, uvm_gpu_read(self->dev.fd, 1, p, len, self->out, &faults));
	ASSERT_EQ(0ULL, faults);
	ASSERT_EQ(-1, uvm_memcmp_at(self->out, self->ref + len, len));
	munmap(p, len);
}

/* Read-mostly: GPU reads map the system pages in place; a first GPU write migrates (debug) */
TEST_F(hmm, read_mostly)
{
	const uint64_t n = 8, len = n * self->ps;
	uint8_t *p = ANON(2 * len);

	memcpy(p, self->ref, 2 * len);
	ASSERT_EQ(0, uvm_advise(self->dev.fd, p, 2 * len, UVM_ADVICE_SET_READ_MOSTLY,
				UVM_LOC_INVALID));
	ASSERT_GPU_READS(0, p, len, self->ref);
	ASSERT_PAGEABLE(&self->dev, p, n, STATE_MIRRORED(0));
	/* Mapped read-write already (the CPU PTE is): the write stays in place. */
	ASSERT_GPU_WRITES(0, p, len, self->ref + 2 * len);
	ASSERT_PAGEABLE(&self->dev, p, n, STATE_MIRRORED(0));
	ASSERT_GPU_WRITES(0, p + len, len, self->ref + 3 * len);
	ASSERT_PAGEABLE(&self->dev, p + len, n, STATE_GPU_WROTE(0));
	ASSERT_CPU_READ(p, 2 * len, self->ref + 2 * len);
	munmap(p, 2 * len);
}

/* Range query on pageable memory: advice and the last prefetch, CUDA's rules */
TEST_F(hmm, range_query)
{
	const uint64_t n = 8, len = n * self->ps;
	struct uvm_ioc_range_query q;
	uint8_t *p = ANON(len);

	memset(p, 1, len);
	ASSERT_EQ(0, uvm_range_query(self->dev.fd, p, len, &q));
	ASSERT_EQ(0U, q.read_mostly);
	ASSERT_LOCATION(UVM_LOC_INVALID, q.preferred);
	ASSERT_LOCATION(UVM_LOC_INVALID, q.last_prefetch);
	ASSERT_EQ(0ULL, q.accessed_by);
	ASSERT_EQ(0, uvm_advise(self->dev.fd, p, len, UVM_ADVICE_SET_READ_MOSTLY,
				UVM_LOC_INVALID));
	ASSERT_EQ(0, uvm_advise(self->dev.fd, p, len, UVM_ADVICE_SET_PREFERRED_LOCATION,
				UVM_LOC_GPU(0)));
	ASSERT_EQ(0, uvm_advise(self->dev.fd, p + 1, len - 2, UVM_ADVICE_SET_ACCESSED_BY,
				UVM_LOC_HOST));
	ASSERT_EQ(0, uvm_prefetch(self->dev.fd, p, len, UVM_LOC_HOST));
	ASSERT_EQ(0, uvm_range_query(self->dev.fd, p, len, &q));
	ASSERT_EQ(1U, q.read_mostly);
	ASSERT_LOCATION(UVM_LOC_GPU(0), q.preferred);
	ASSERT_LOCATION(UVM_LOC_HOST, q.last_prefetch);
	ASSERT_EQ(CPU, q.accessed_by);
	ASSERT_EQ(0, uvm_prefetch(self->dev.fd, p, self->ps, UVM_LOC_GPU(0)));
	ASSERT_EQ(0, uvm_range_query(self->dev.fd, p, len, &q));
	ASSERT_LOCATION(UVM_LOC_INVALID, q.last_prefetch);
	ASSERT_EQ(0, uvm_range_query(self->dev.fd, p + 17, 1, &q));
	ASSERT_LOCATION(UVM_LOC_GPU(0), q.last_prefetch);
	munmap(p, len);
}

/* Invalid pageable ranges are -EINVAL for advice, queries and batches, changing nothing */
TEST_F(hmm, invalid_ranges)
{
	uint8_t *hole = uvm_unmapped_address(self->ps), *managed, *other_p, *p;
	uint8_t *none = mmap(NULL, self->ps, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct uvm_location loc = UVM_LOC_GPU(0);
	struct uvm_ioc_range_query q;
	struct uvm_ioc_migrate out;
	struct uvm_range bad[4];
	struct uvm_dev other;
	uint64_t start = 0;
	unsigned int i;

	ASSERT_NE(NULL, hole);
	ASSERT_NE(MAP_FAILED, none);
	uvm_dev_setup(&other, UVM_NEED_TEST_IOCTLS, 1);
	other_p = uvm_mmap(&other, self->ps);
	ASSERT_NE(MAP_FAILED, other_p);
	/* A managed range followed by pageable memory. */
	managed = uvm_mmap_block_aligned(&self->dev, self->ps);
	ASSERT_NE(MAP_FAILED, managed);
	p = mmap(managed + self->ps, self->ps, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	ASSERT_EQ(managed + self->ps, p);

	bad[0] = (struct uvm_range){ (uintptr_t)hole, self->ps };
	bad[1] = (struct uvm_range){ (uintptr_t)none, self->ps };
	bad[2] = (struct uvm_range){ (uintptr_t)other_p, self->ps };
	bad[3] = (struct uvm_range){ (uintptr_t)managed, 2 * self->ps };
	for (i = 0; i < 4; i++) {
		void *a = (void *)(uintptr_t)bad[i].address;

		ASSERT_EQ(-EINVAL, uvm_advise(self->dev.fd, a, bad[i].length,
					      UVM_ADVICE_SET_READ_MOSTLY, UVM_LOC_INVALID))
			TH_LOG("range %u", i);
		ASSERT_EQ(-EINVAL, uvm_range_query(self->dev.fd, a, bad[i].length, &q));
		ASSERT_EQ(-EINVAL, uvm_migrate(self->dev.fd, UVM_MIGRATE_PREFETCH, 0, &bad[i], 1,
					       &loc, &start, 1, &out));
		ASSERT_EQ(0U, out.bad_range);
		ASSERT_EQ(-EINVAL, uvm_migrate(self->dev.fd, UVM_MIGRATE_DISCARD, 0, &bad[i], 1,
					       NULL, NULL, 0, &out));
	}
	/* The pageable page next to the managed one is fine on its own. */
	ASSERT_EQ(0, uvm_advise(self->dev.fd, p, self->ps, UVM_ADVICE_SET_READ_MOSTLY,
				UVM_LOC_INVALID));
	ASSERT_RESIDENCY(&self->dev, managed, 1, UVM_STATE_NONE);
	munmap(p, self->ps);
	munmap(managed, self->ps);
	munmap(other_p, self->ps);
	munmap(none, self->ps);
	uvm_dev_teardown(&other);
}

/* UVM_TEST_IOC_RESIDENCY: unknown flags are -EINVAL; managed pages unchanged */
TEST_F(hmm, residency_flags)
{
	struct uvm_test_page_state st[2];
	uint8_t *m = uvm_mmap(&self->dev, self->ps);

	ASSERT_NE(MAP_FAILED, m);
	ASSERT_EQ(-EINVAL, uvm_residency_flags(self->dev.fd, m, self->ps, st, 1U << 2));
	ASSERT_EQ(-EINVAL, uvm_residency_flags(self->dev.fd, m, self->ps, st, 1U << 31));
	m[0] = 1;
	ASSERT_PAGEABLE(&self->dev, m, 1, UVM_STATE_CPU);
	ASSERT_RESIDENCY(&self->dev, m, 1, UVM_STATE_CPU);
	munmap(m, self->ps);
}

/* Debug kernel: closing the VA space brings every device page back to RAM */
TEST_F(hmm, evict_on_close)
{
	const uint64_t n = 32, len = n * self->ps;
	uint64_t vid = uvm_vidmem_used(self->dev.fd, 0);
	struct uvm_dev again;
	uint8_t *p;

	if (!self->dp)
		UVM_SKIP("no device-private memory: pageable memory is mirrored only");
	p = ANON(len);
	ASSERT_GPU_WRITES(0, p, len, self->ref);
	ASSERT_PAGEABLE(&self->dev, p, n, UVM_STATE_GPU(0));
	uvm_dev_teardown(&self->dev);
	uvm_dev_setup(&again, UVM_NEED_TEST_IOCTLS, 1);
	ASSERT_EQ(vid, uvm_vidmem_wait(again.fd, 0, vid));
	ASSERT_PAGEABLE(&again, p, n, UVM_STATE_CPU);
	ASSERT_CPU_READ(p, len, self->ref);
	uvm_dev_teardown(&again);
	munmap(p, len);
}

/*
 * Debug kernel: a fork child shares device pages.  At the parent's close
 * they are not evicted (eviction cannot lock the child's mm, and a munmap
 * there during it would free the anon_vma it walks): both processes fault
 * them back to RAM on their own CPU reads, with the data, and the vidmem
 * comes back once neither maps them.
 */
TEST_F(hmm, evict_shared_with_child)
{
	const uint64_t n = 16, len = n * self->ps;
	uint64_t vid = uvm_vidmem_used(self->dev.fd, 0);
	struct cow_check c = { .len = len, .want = self->ref };
	struct uvm_dev again;
	int fds[2];
	uint8_t *p;
	pid_t pid;

	if (!self->dp)
		UVM_SKIP("no device-private memory: pageable memory is mirrored only");
	p = ANON(len);
	ASSERT_GPU_WRITES(0, p, len, self->ref);
	ASSERT_EQ(0, pipe(fds));
	c.p = p;
	c.go = fds[0];
	fflush(NULL);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(self->dev.fd);
		_exit(cow_child(&c));
	}
	uvm_dev_teardown(&self->dev);
	uvm_dev_setup(&again, UVM_NEED_TEST_IOCTLS, 1);
	/* still on the GPU, shared */
	EXPECT_LT(vid, uvm_vidmem_used(again.fd, 0));
	ASSERT_EQ(1, write(fds[1], "g", 1));
	ASSERT_EQ(0, uvm_wait_child(pid));
	ASSERT_CPU_READ(p, len, self->ref);
	ASSERT_EQ(vid, uvm_vidmem_wait(again.fd, 0, vid));
	close(fds[0]);
	close(fds[1]);
	uvm_dev_teardown(&again);
	munmap(p, len);
}

static int exit_with_gpu_pages(void *arg)
{
	uint8_t *src = arg, *p = malloc(UVM_MIB);
	struct uvm_test_gpu_op op = uvm_op_write(p, UVM_MIB, 64, src);
	int fd = uvm_open();

	if (fd < 0 || !p)
		return 2;
	return uvm_launch(fd, 0, 4, &op, 1, NULL) ? 1 : 0;
}

/* A process exits with GPU mappings (and device pages) of its memory: all released */
TEST_F(hmm, exit_with_gpu_pages)
{
	uint64_t vid = uvm_vidmem_used(self->dev.fd, 0);

	ASSERT_EQ(0, uvm_run_child(exit_with_gpu_pages, self->ref));
	ASSERT_EQ(vid, uvm_vidmem_wait(self->dev.fd, 0, vid));
}

static int gpu_writer_forever(void *arg)
{
	const uint64_t len = 8 * UVM_MIB;
	uint8_t *p = uvm_mmap_anon_aligned(len, PROT_READ | PROT_WRITE);
	struct uvm_test_gpu_op op = uvm_op_pattern(p, len, 3);
	int fd = uvm_open(), *started = arg;

	if (fd < 0 || p == MAP_FAILED)
		return 2;
	for (;;) {
		if (uvm_launch(fd, 0, 8, &op, 1, NULL))
			return 1;
		__atomic_store_n(started, 1, __ATOMIC_RELEASE);
	}
}

/* A process killed while a GPU works on its pageable memory: it dies, all is released */
TEST_F_TIMEOUT(hmm, killed_during_gpu_access, 120)
{
	uint64_t vid = uvm_vidmem_used(self->dev.fd, 0);
	int *started = mmap(NULL, self->ps, PROT_READ | PROT_WRITE,
			    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t pid;
	int i;

	ASSERT_NE(MAP_FAILED, started);
	*started = 0;
	fflush(NULL);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(gpu_writer_forever(started));
	for (i = 0; i < 6000 && !__atomic_load_n(started, __ATOMIC_ACQUIRE); i++)
		usleep(10000);
	usleep(100000);
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(UVM_CHILD_SIGNALED(SIGKILL), uvm_wait_child(pid));
	ASSERT_EQ(vid, uvm_vidmem_wait(self->dev.fd, 0, vid));
	munmap(started, self->ps);
}

/* Debug kernel: exact counters of a GPU write, a GPU read and CPU reads */
TEST_F(hmm, counters)
{
	const uint64_t n = 8, len = n * self->ps;
	uint8_t *p, *q;
	struct uvm_counters d;

	if (!self->dp)
		UVM_SKIP("no device-private memory: pageable memory is mirrored only");
	p = ANON(len);
	q = ANON(len);
	UVM_COUNT_DELTA(self->dev.fd, d, ASSERT_GPU_WRITES(0, p, len, self->ref));
	ASSERT_EQ(n, d.c[UVM_COUNTER_PAGES_POPULATED_GPU]);
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_PAGES_H2D]);
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_GPU_FATAL_FAULTS]);
	ASSERT_LE(n, d.c[UVM_COUNTER_GPU_PAGES_MAPPED]);
	memcpy(q, self->ref, len);
	UVM_COUNT_DELTA(self->dev.fd, d, ASSERT_GPU_READS(0, q, len, self->ref));
	ASSERT_EQ(n, d.c[UVM_COUNTER_PAGES_H2D]);
	ASSERT_EQ(0ULL, d.c[UVM_COUNTER_PAGES_POPULATED_GPU]);
	UVM_COUNT_DELTA(self->dev.fd, d, ASSERT_CPU_READ(q, len, self->ref));
	ASSERT_EQ(n, d.c[UVM_COUNTER_PAGES_D2H]);
	ASSERT_EQ(n, d.c[UVM_COUNTER_CPU_FAULTS]);
	ASSERT_LE(n, d.c[UVM_COUNTER_GPU_PAGES_UNMAPPED]);
	munmap(p, len);
	munmap(q, len);
}

TEST_HARNESS_MAIN
