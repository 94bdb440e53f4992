// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * teardown - ranges, VA spaces and processes going away while GPUs work.
 *
 * munmap during GPU access (the launch completes or ends with -EREMOTEIO
 * inside the range, promptly), close and exit with launches in flight, a
 * launching process killed, GPU-to-GPU migration interrupted by munmap, and
 * after all of it: vidmem in use back to zero, the module still working and
 * not removable while in use.
 */
#include <sys/syscall.h>

#include "kselftest_harness.h"
#include "uvm_test_util.h"

/* Long enough that the test can act while it runs: thousands of page accesses. */
#define LONG_PAGES	32
#define LONG_OPS	2048

/**
 * struct long_launch - a launch running in its own thread
 * @thread:	the thread
 * @tid:	its task id, for /proc/self/task/TID/syscall
 * @started:	set by the thread before it enters the ioctl
 * @fd:		the VA space
 * @gpu:	the GPU
 * @warps:	warps
 * @ops:	the program (LONG_OPS ops)
 * @ret:	the launch's result
 * @l:		the launch structure as returned
 */
struct long_launch {
	pthread_t thread;
	pid_t tid;
	int started;
	int fd;
	uint32_t gpu, warps;
	struct uvm_test_gpu_op ops[LONG_OPS];
	int ret;
	struct uvm_test_launch l;
};

static void *long_launch_main(void *arg)
{
	struct long_launch *t = arg;

	t->tid = uvm_gettid();
	__atomic_store_n(&t->started, 1, __ATOMIC_RELEASE);
	t->ret = uvm_launch(t->fd, t->gpu, t->warps, t->ops, LONG_OPS, &t->l);
	return NULL;
}

/* Fill a long program of @type ops over [p, +len), page-sized accesses. */
static void long_program(struct long_launch *t, uint32_t type, void *p, uint64_t len)
{
	unsigned int i;

	for (i = 0; i < LONG_OPS; i++) {
		t->ops[i] = uvm_op(type, p, len, 4096);
		t->ops[i].value = 1;
		if (i % 2)
			t->ops[i] = uvm_op_random(t->ops[i], i);
	}
}

/* Start the launch thread and wait until it is blocked in the ioctl. */
static int long_launch_start(struct long_launch *t)
{
	int ret = pthread_create(&t->thread, NULL, long_launch_main, t);

	if (ret)
		return -ret;
	while (!__atomic_load_n(&t->started, __ATOMIC_ACQUIRE))
		usleep(1000);
	return uvm_wait_in_syscall(0, t->tid, SYS_ioctl, 20000);
}

FIXTURE(teardown) {
	struct uvm_dev dev;
	uint64_t ps;
	uint64_t vidmem[UVM_MAX_GPUS];	/* vidmem_used of each GPU at setup */
	struct long_launch *t[2];
};

FIXTURE_VARIANT(teardown) {
	uint32_t type;	/* UVM_TEST_OP_* of the long launch */
};

FIXTURE_VARIANT_ADD(teardown, read) { .type = UVM_TEST_OP_READ };
FIXTURE_VARIANT_ADD(teardown, write) { .type = UVM_TEST_OP_WRITE };
FIXTURE_VARIANT_ADD(teardown, atomic) { .type = UVM_TEST_OP_ATOMIC_ADD };

/* Record every GPU's vidmem_used; -EIO when GPU_INFO fails. */
static int vidmem_snapshot(struct uvm_dev *dev, uint64_t *vidmem)
{
	uint32_t g;

	for (g = 0; g < dev->num_gpus; g++) {
		vidmem[g] = uvm_vidmem_used(dev->fd, g);
		if (vidmem[g] == UINT64_MAX)
			return -EIO;
	}
	return 0;
}

FIXTURE_SETUP(teardown)
{
	uint32_t g;

	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, 1);
	self->ps = self->dev.page_size;
	ASSERT_EQ(0, vidmem_snapshot(&self->dev, self->vidmem));
	for (g = 0; g < 2; g++) {
		self->t[g] = calloc(1, sizeof(*self->t[g]));
		ASSERT_NE(NULL, self->t[g]);
		self->t[g]->fd = self->dev.fd;
		self->t[g]->gpu = g % self->dev.num_gpus;
		self->t[g]->warps = 8;
	}
}

FIXTURE_TEARDOWN(teardown)
{
	uvm_dev_teardown(&self->dev);
}

/* ASSERT every GPU's vidmem_used is back at its value at setup. */
#define ASSERT_VIDMEM_BACK() do {						\
	uint32_t __g;								\
	for (__g = 0; __g < self->dev.num_gpus; __g++)				\
		ASSERT_EQ(self->vidmem[__g],					\
			  uvm_vidmem_wait(self->dev.fd, __g, self->vidmem[__g]))	\
			TH_LOG("GPU %u", __g);					\
} while (0)

/* A launch of its own still works: pattern write and checksum on every GPU. */
#define ASSERT_STILL_WORKS() do {						\
	uint8_t *__p = uvm_mmap(&self->dev, 4 * self->ps);			\
	struct uvm_test_gpu_op __ops[2];					\
	uint32_t __g;								\
	ASSERT_NE(MAP_FAILED, __p);						\
	for (__g = 0; __g < self->dev.num_gpus; __g++) {			\
		__ops[0] = uvm_op_pattern(__p, 4 * self->ps, 900 + __g);	\
		__ops[1] = uvm_op_read(__p, 4 * self->ps, 8, NULL);		\
		ASSERT_EQ(0, uvm_launch(self->dev.fd, __g, 4, __ops, 2, NULL));	\
		ASSERT_EQ(uvm_pattern_checksum(__p, 4 * self->ps, 900 + __g),	\
			  __ops[1].checksum);					\
	}									\
	ASSERT_EQ(-1, uvm_pattern_mismatch(__p, 4 * self->ps,			\
					   900 + self->dev.num_gpus - 1));	\
	ASSERT_EQ(0, munmap(__p, 4 * self->ps));				\
} while (0)

/*
 * munmap while a GPU works on the range: the launch completes or ends with
 * -EREMOTEIO reporting an address of the range, promptly; nothing is left
 */
TEST_F_TIMEOUT(teardown, munmap_during_gpu_access, 120)
{
	const uint64_t len = LONG_PAGES * self->ps;
	uint8_t *p = uvm_mmap(&self->dev, len);
	struct long_launch *t = self->t[0];
	uint64_t t0;

	ASSERT_NE(MAP_FAILED, p);
	memset(p, 1, len);
	long_program(t, variant->type, p, len);
	ASSERT_EQ(0, long_launch_start(t));
	usleep(50000);
	t0 = uvm_now_ms();
	ASSERT_EQ(0, munmap(p, len));
	pthread_join(t->thread, NULL);
	TH_LOG("launch ended %d, %llu ms after munmap", t->ret,
	       (unsigned long long)(uvm_now_ms() - t0));
	ASSERT_LT(uvm_now_ms() - t0, 30000ULL);
	if (t->ret) {
		ASSERT_EQ(-EREMOTEIO, t->ret);
		ASSERT_LE((uintptr_t)p, t->l.fault_address);
		ASSERT_GT((uintptr_t)p + len, t->l.fault_address);
		ASSERT_EQ(variant->type, t->l.fault_access);
	}
	ASSERT_RESIDENCY(&self->dev, p, LONG_PAGES, UVM_STATE_NONE);
	ASSERT_VIDMEM_BACK();
	ASSERT_STILL_WORKS();
}

/*
 * munmap while two GPUs work on the same pages (pages moving GPU to GPU):
 * both launches end, completed or -EREMOTEIO, and nothing is left
 */
TEST_F_TIMEOUT(teardown, munmap_during_gpu_to_gpu_migration, 120)
{
	const uint64_t len = LONG_PAGES * self->ps;
	uint8_t *p = uvm_mmap(&self->dev, len);
	unsigned int i;

	if (self->dev.num_gpus < 2)
		UVM_SKIP("needs 2 GPUs");
	ASSERT_NE(MAP_FAILED, p);
	for (i = 0; i < 2; i++) {
		long_program(self->t[i], variant->type, p, len);
		ASSERT_EQ(0, long_launch_start(self->t[i]));
	}
	usleep(50000);
	ASSERT_EQ(0, munmap(p, len));
	for (i = 0; i < 2; i++) {
		pthread_join(self->t[i]->thread, NULL);
		if (self->t[i]->ret) {
			ASSERT_EQ(-EREMOTEIO, self->t[i]->ret);
			ASSERT_LE((uintptr_t)p, self->t[i]->l.fault_address);
			ASSERT_GT((uintptr_t)p + len, self->t[i]->l.fault_address);
		}
	}
	ASSERT_RESIDENCY(&self->dev, p, LONG_PAGES, UVM_STATE_NONE);
	ASSERT_VIDMEM_BACK();
	ASSERT_STILL_WORKS();
}

/*
 * close(fd) while a launch runs: the launch holds the file and completes;
 * the mapping still holds the data; munmap frees everything
 */
TEST_F_TIMEOUT(teardown, close_during_launch, 120)
{
	const uint64_t len = LONG_PAGES * self->ps;
	uint8_t *p = uvm_mmap(&self->dev, len);
	struct long_launch *t = self->t[0];
	uint64_t *w = (uint64_t *)p, i;

	ASSERT_NE(MAP_FAILED, p);
	memset(p, 0, len);
	/* Nothing interrupts it this time: it must complete. */
	long_program(t, variant->type, p, len);
	ASSERT_EQ(0, long_launch_start(t));
	t->fd = -1;
	ASSERT_EQ(0, close(self->dev.fd));
	self->dev.fd = -1;
	pthread_join(t->thread, NULL);
	ASSERT_EQ(0, t->ret);
	/* Every op added 1 (atomic) or wrote the pattern of 1 (write). */
	for (i = 0; i < len / 8; i++) {
		uint64_t want = 0;

		if (variant->type == UVM_TEST_OP_ATOMIC_ADD)
			want = LONG_OPS;
		else if (variant->type == UVM_TEST_OP_WRITE)
			want = uvm_pattern_word(1, &w[i]);
		ASSERT_EQ(want, w[i]) TH_LOG("word %llu", (unsigned long long)i);
	}
	ASSERT_EQ(0, munmap(p, len));
	self->dev.fd = uvm_open();
	ASSERT_LE(0, self->dev.fd);
	ASSERT_VIDMEM_BACK();
	ASSERT_STILL_WORKS();
}

/* A child that exits (exit_group) while its other thread is in a launch */
static int exit_during_launch_child(void *arg)
{
	struct long_launch *t = arg;
	struct uvm_dev dev = { .fd = uvm_open() };
	uint64_t len;
	uint8_t *p;

	if (dev.fd < 0 || uvm_get_version(dev.fd, &dev.ver))
		return 10;
	dev.page_size = dev.ver.page_size;
	len = LONG_PAGES * dev.page_size;
	p = uvm_mmap(&dev, len);
	if (p == MAP_FAILED)
		return 11;
	memset(p, 3, len);
	t->fd = dev.fd;
	long_program(t, t->ops[0].type, p, len);
	if (long_launch_start(t))
		return 12;
	usleep(50000);
	return 0;	/* exit() with the launch in flight */
}

/* Process exit with a launch in flight: prompt exit, vidmem back, module fine */
TEST_F_TIMEOUT(teardown, exit_during_launch, 120)
{
	struct long_launch *t = self->t[0];
	uint64_t t0 = uvm_now_ms();

	t->ops[0].type = variant->type;
	ASSERT_EQ(0, uvm_run_child(exit_during_launch_child, t));
	ASSERT_LT(uvm_now_ms() - t0, 30000ULL);
	ASSERT_VIDMEM_BACK();
	ASSERT_STILL_WORKS();
}

/* A child that launches from its main thread until killed. */
static int killed_child(void *arg)
{
	struct long_launch *t = arg;
	struct uvm_dev dev = { .fd = uvm_open() };
	uint64_t len;
	uint8_t *p;

	if (dev.fd < 0 || uvm_get_version(dev.fd, &dev.ver))
		return 10;
	dev.page_size = dev.ver.page_size;
	len = LONG_PAGES * dev.page_size;
	p = uvm_mmap(&dev, len);
	if (p == MAP_FAILED)
		return 11;
	memset(p, 3, len);
	long_program(t, t->ops[0].type, p, len);
	for (;;)
		uvm_launch(dev.fd, t->gpu, t->warps, t->ops, LONG_OPS, NULL);
	return 0;
}

/* SIGKILL of a process blocked in a launch: it dies promptly and leaves nothing */
TEST_F_TIMEOUT(teardown, killed_launch, 120)
{
	struct long_launch *t = self->t[0];
	uint64_t t0;
	pid_t pid;

	t->ops[0].type = variant->type;
	fflush(NULL);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(killed_child(t));
	ASSERT_EQ(0, uvm_wait_in_syscall(pid, pid, SYS_ioctl, 20000));
	usleep(50000);
	ASSERT_EQ(0, uvm_wait_in_syscall(pid, pid, SYS_ioctl, 20000));
	t0 = uvm_now_ms();
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(UVM_CHILD_SIGNALED(SIGKILL), uvm_wait_child(pid));
	TH_LOG("killed child reaped %llu ms after SIGKILL",
	       (unsigned long long)(uvm_now_ms() - t0));
	ASSERT_LT(uvm_now_ms() - t0, 10000ULL);
	ASSERT_VIDMEM_BACK();
	ASSERT_STILL_WORKS();
}

/* A child with GPU data in several VA spaces that exits without cleaning up */
static int leave_data_child(void *arg)
{
	uint32_t num_gpus = *(uint32_t *)arg, i;
	struct uvm_dev dev[8];
	uint8_t *p;

	for (i = 0; i < 8; i++) {
		dev[i].fd = uvm_open();
		if (dev[i].fd < 0 || uvm_get_version(dev[i].fd, &dev[i].ver))
			return 10;
		dev[i].page_size = dev[i].ver.page_size;
		p = uvm_mmap(&dev[i], 3 * UVM_VA_BLOCK_SIZE);
		if (p == MAP_FAILED)
			return 11;
		p[0] = 1;	/* some pages on the CPU too */
		if (uvm_launch1(dev[i].fd, i % num_gpus, 4,
				uvm_op_pattern(p + UVM_VA_BLOCK_SIZE, 64 * dev[i].page_size, i),
				NULL))
			return 12;
	}
	return 0;
}

/* VA space and module lifetime, without launches in flight */
FIXTURE(lifetime) {
	struct uvm_dev dev;
	uint64_t ps;
	uint64_t vidmem[UVM_MAX_GPUS];
};

FIXTURE_SETUP(lifetime)
{
	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, 1);
	self->ps = self->dev.page_size;
	ASSERT_EQ(0, vidmem_snapshot(&self->dev, self->vidmem));
}

FIXTURE_TEARDOWN(lifetime)
{
	uvm_dev_teardown(&self->dev);
}

/* Exit with data on GPUs in many VA spaces: all vidmem is returned */
TEST_F(lifetime, exit_with_data_on_gpus)
{
	ASSERT_EQ(0, uvm_run_child(leave_data_child, &self->dev.num_gpus));
	ASSERT_VIDMEM_BACK();
	ASSERT_STILL_WORKS();
}

/* The module cannot be removed while a descriptor or a mapping holds it */
TEST_F(lifetime, rmmod_refused_while_in_use)
{
	uint8_t *p;
	long ret;

	ret = syscall(SYS_delete_module, "uvm", O_NONBLOCK);
	if (ret && errno == EPERM)
		UVM_SKIP("no CAP_SYS_MODULE");
	ASSERT_EQ(-1, ret);
	ASSERT_EQ(EWOULDBLOCK, errno);

	p = uvm_mmap(&self->dev, self->ps);
	ASSERT_NE(MAP_FAILED, p);
	p[0] = 1;
	uvm_dev_teardown(&self->dev);
	ASSERT_EQ(-1, syscall(SYS_delete_module, "uvm", O_NONBLOCK));
	ASSERT_EQ(EWOULDBLOCK, errno);
	ASSERT_EQ(1, p[0]);
	ASSERT_EQ(0, munmap(p, self->ps));
}

/* Declared last so that it runs last */
FIXTURE(end) {
	struct uvm_dev dev;
};

FIXTURE_SETUP(end)
{
	uvm_dev_setup(&self->dev, 0, 0);
}

FIXTURE_TEARDOWN(end)
{
	uvm_dev_teardown(&self->dev);
}

/* With every VA space of this suite gone, no GPU holds any vidmem */
TEST_F(end, vidmem_zero)
{
	uint32_t g;

	for (g = 0; g < self->dev.num_gpus; g++)
		ASSERT_EQ(0ULL, uvm_vidmem_wait(self->dev.fd, g, 0)) TH_LOG("GPU %u", g);
}

TEST_HARNESS_MAIN
