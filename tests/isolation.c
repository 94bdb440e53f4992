// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * isolation - one process can neither act on nor read another's GPU memory.
 *
 * Run with uvm.ko vidmem_mb=4: two 2 MiB chunks per GPU, so that memory a
 * process allocates after another filled the GPU is the same vidmem.
 *
 *  - a /dev/uvm descriptor passed over a unix socket does nothing in the
 *    receiver: every command of both ioctl tables and every mmap offset kind
 *    is -EPERM there, and the opener's memory, counters and vidmem do not
 *    change;
 *  - vidmem that held another process's data (device memory, managed memory
 *    resident on the GPU, a VMM allocation; freed by exit, or by a discard
 *    while the owner lives on) reads as zeros through every kind of fresh
 *    allocation: device memory, managed memory first touched by the GPU,
 *    managed memory partly populated by the CPU, a VMM allocation;
 *  - the test ioctls exist exactly when GET_VERSION says they are built in.
 */
#include <sys/socket.h>

#include "kselftest_harness.h"
#include "uvm_test_util.h"

#define G		UVM_MEM_GRANULARITY
#define GPU_BYTES	(2 * G)		/* vidmem_mb=4 */
#define SECRET		0x5ec2e75ec2e75ec2ULL

/* ------------------------------------------------------------------ */
/* descriptor passing */

/* Every command of both tables, with the size its structure has. */
static const unsigned long all_commands[] = {
	UVM_IOC_GET_VERSION, UVM_IOC_GPU_INFO, UVM_IOC_GET_COUNTERS, UVM_IOC_ADVISE,
	UVM_IOC_MIGRATE, UVM_IOC_FENCE_WAIT, UVM_IOC_RANGE_QUERY, UVM_IOC_POINTER_INFO,
	UVM_IOC_HOST_REGISTER, UVM_IOC_HOST_UNREGISTER, UVM_IOC_COPY, UVM_IOC_MEMSET,
	UVM_IOC_MEM_CREATE, UVM_IOC_MEM_RELEASE, UVM_IOC_MEM_PROPS, UVM_IOC_MEM_EXPORT,
	UVM_IOC_MEM_IMPORT, UVM_IOC_MEM_MAP, UVM_IOC_MEM_UNMAP, UVM_IOC_MEM_SET_ACCESS,
	UVM_IOC_MEM_QUERY, UVM_IOC_COPY_3D, UVM_IOC_MEMSET_3D, UVM_IOC_COPY_BATCH,
	UVM_TEST_IOC_LAUNCH, UVM_TEST_IOC_RESIDENCY, UVM_TEST_IOC_QUEUE_GATE,
};

FIXTURE(isolation) {
	struct uvm_dev dev;
};

FIXTURE_SETUP(isolation)
{
	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, 1);
}

FIXTURE_TEARDOWN(isolation)
{
	uvm_dev_teardown(&self->dev);
}

/*
 * The opener: managed memory on GPU 0 with the secret, sends its fd, waits
 * for the receiver's go, then checks nothing of it changed: 0 when intact.
 */
static int opener_child(void *arg)
{
	int *sv = arg, fd = uvm_open();
	struct uvm_dev d = { .fd = fd, .page_size = 4096 };
	struct uvm_counters before, after;
	uint64_t *p, used;
	char go;

	if (fd < 0)
		return 10;
	p = uvm_mmap(&d, G);
	if (p == MAP_FAILED)
		return 11;
	p[0] = SECRET;
	if (uvm_prefetch(fd, p, G, uvm_loc(UVM_LOCATION_GPU, 0)))
		return 12;
	used = uvm_vidmem_used(fd, 0);
	if (uvm_counters(fd, &before) || uvm_send_fd(sv[1], fd))
		return 13;
	if (read(sv[1], &go, 1) != 1)
		return 14;
	if (uvm_counters(fd, &after) || memcmp(&before, &after, sizeof(before)))
		return 15;
	if (uvm_vidmem_used(fd, 0) != used || p[0] != SECRET)
		return 16;
	return 0;
}

/*
 * A descriptor passed over a unix socket: every command and every mmap
 * offset kind is -EPERM in the receiver, even with arguments naming the
 * opener's memory; the opener sees no change
 */
TEST_F(isolation, passed_fd_every_command_eperm)
{
	static const uint64_t offsets[] = { UVM_MMAP_MANAGED, UVM_MMAP_DEVICE(0),
					    UVM_MMAP_RESERVE };
	uint8_t args[512];
	unsigned int i;
	int sv[2], fd;
	pid_t pid;
	void *p;

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
	fflush(NULL);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(opener_child(sv));
	fd = uvm_recv_fd(sv[0]);
	ASSERT_LE(0, fd);

	for (i = 0; i < sizeof(all_commands) / sizeof(all_commands[0]); i++) {
		memset(args, 0, sizeof(args));
		ASSERT_EQ(-EPERM, uvm_ioctl(fd, all_commands[i], args))
			TH_LOG("command %#lx", all_commands[i]);
	}
	for (i = 0; i < sizeof(offsets) / sizeof(offsets[0]); i++) {
		p = mmap(NULL, G, i == 1 ? PROT_NONE : PROT_READ | PROT_WRITE, MAP_SHARED,
			 fd, (off_t)offsets[i]);
		ASSERT_EQ(MAP_FAILED, p) TH_LOG("offset %#llx", (unsigned long long)offsets[i]);
		ASSERT_EQ(EPERM, errno);
	}
	/* our own VA space works, and has nothing of the opener's */
	ASSERT_EQ(0, uvm_get_version(self->dev.fd, (struct uvm_ioc_version *)args));

	ASSERT_EQ(0, close(fd));
	ASSERT_EQ(1, write(sv[0], "g", 1));
	ASSERT_EQ(0, uvm_wait_child(pid));
	close(sv[0]);
	close(sv[1]);
}

/* ------------------------------------------------------------------ */
/* vidmem reuse */

enum fill { FILL_DEVICE = 1, FILL_MANAGED, FILL_VMM, FILL_DISCARD };
enum fresh { FRESH_DEVICE = 1, FRESH_MANAGED, FRESH_MANAGED_PARTIAL, FRESH_VMM };

/* A reservation holding a new GPU 0 allocation of @len, GPU 0 read-write. */
static uint8_t *vmm_alloc(int fd, uint64_t len)
{
	struct uvm_ioc_mem_create c = { .size = len,
					.location = { UVM_LOCATION_GPU, 0 } };
	struct uvm_mem_access d = { .location = { UVM_LOCATION_GPU, 0 },
				    .prot = UVM_MEM_PROT_READ_WRITE };
	struct uvm_ioc_mem_set_access s = { .size = len, .descs_ptr = (uintptr_t)&d,
					    .count = 1 };
	struct uvm_ioc_mem_map m = { .size = len };
	uint8_t *r;

	if (uvm_ioctl(fd, UVM_IOC_MEM_CREATE, &c))
		return MAP_FAILED;
	r = uvm_map_skewed(len, 0, PROT_READ | PROT_WRITE, MAP_SHARED, fd, UVM_MMAP_RESERVE);
	if (r == MAP_FAILED)
		return MAP_FAILED;
	m.address = (uintptr_t)r;
	m.handle = c.handle;
	s.address = (uintptr_t)r;
	if (uvm_ioctl(fd, UVM_IOC_MEM_MAP, &m) || uvm_ioctl(fd, UVM_IOC_MEM_SET_ACCESS, &s))
		return MAP_FAILED;
	return r;
}

/*
 * The other process: fill all of GPU 0's memory with the secret (written by
 * the GPU) in the form @how; then either exit, or (FILL_DISCARD) discard it
 * and stay alive until told to go.  0 on success.
 */
static int filler(int sock, enum fill how)
{
	int fd = uvm_open();
	struct uvm_dev d = { .fd = fd, .page_size = 4096 };
	uint8_t *p;
	char go;

	if (fd < 0)
		return 10;
	switch (how) {
	case FILL_DEVICE:
		p = uvm_mmap_device(&d, 0, GPU_BYTES);
		break;
	case FILL_VMM:
		p = vmm_alloc(fd, GPU_BYTES);
		break;
	default:
		p = uvm_mmap_block_aligned(&d, GPU_BYTES);
		break;
	}
	if (p == MAP_FAILED)
		return 11;
	if (uvm_launch1(fd, 0, 8, uvm_op_pattern(p, GPU_BYTES, SECRET), NULL))
		return 12;
	if (uvm_vidmem_used(fd, 0) != GPU_BYTES)
		return 13;
	if (how == FILL_DISCARD && uvm_discard(fd, p, GPU_BYTES))
		return 14;
	if (write(sock, "f", 1) != 1)
		return 15;
	if (how == FILL_DISCARD && read(sock, &go, 1) != 1)
		return 16;
	return 0;
}

FIXTURE(reuse) {
	struct uvm_dev dev;
	uint8_t *buf;
};

FIXTURE_VARIANT(reuse) {
	enum fill fill;
	enum fresh fresh;
};

FIXTURE_VARIANT_ADD(reuse, device_to_device) { FILL_DEVICE, FRESH_DEVICE };
FIXTURE_VARIANT_ADD(reuse, device_to_managed) { FILL_DEVICE, FRESH_MANAGED };
FIXTURE_VARIANT_ADD(reuse, device_to_managed_partial) { FILL_DEVICE, FRESH_MANAGED_PARTIAL };
FIXTURE_VARIANT_ADD(reuse, device_to_vmm) { FILL_DEVICE, FRESH_VMM };
FIXTURE_VARIANT_ADD(reuse, managed_to_device) { FILL_MANAGED, FRESH_DEVICE };
FIXTURE_VARIANT_ADD(reuse, managed_to_managed) { FILL_MANAGED, FRESH_MANAGED };
FIXTURE_VARIANT_ADD(reuse, managed_to_managed_partial) { FILL_MANAGED, FRESH_MANAGED_PARTIAL };
FIXTURE_VARIANT_ADD(reuse, managed_to_vmm) { FILL_MANAGED, FRESH_VMM };
FIXTURE_VARIANT_ADD(reuse, vmm_to_device) { FILL_VMM, FRESH_DEVICE };
FIXTURE_VARIANT_ADD(reuse, vmm_to_managed) { FILL_VMM, FRESH_MANAGED };
FIXTURE_VARIANT_ADD(reuse, vmm_to_vmm) { FILL_VMM, FRESH_VMM };
FIXTURE_VARIANT_ADD(reuse, discard_to_device) { FILL_DISCARD, FRESH_DEVICE };
FIXTURE_VARIANT_ADD(reuse, discard_to_managed) { FILL_DISCARD, FRESH_MANAGED };
FIXTURE_VARIANT_ADD(reuse, discard_to_managed_partial) { FILL_DISCARD, FRESH_MANAGED_PARTIAL };
FIXTURE_VARIANT_ADD(reuse, discard_to_vmm) { FILL_DISCARD, FRESH_VMM };

FIXTURE_SETUP(reuse)
{
	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, 1);
	self->buf = malloc(GPU_BYTES);
	ASSERT_NE(NULL, self->buf);
}

FIXTURE_TEARDOWN(reuse)
{
	free(self->buf);
	uvm_dev_teardown(&self->dev);
}

/*
 * Another process filled GPU 0 with its data and freed it (exit or
 * discard); a fresh allocation of the same vidmem reads as zeros
 */
TEST_F(reuse, fresh_allocation_reads_zeros)
{
	int sv[2], fd = self->dev.fd;
	uint8_t *p;
	pid_t pid;
	char f;

	if (uvm_vidmem_used(fd, 0) != 0)
		SKIP(return, "GPU 0 is in use by another process");
	{
		struct uvm_ioc_gpu_info info;

		ASSERT_EQ(0, uvm_gpu_info(fd, 0, &info));
		if (info.vidmem_size != GPU_BYTES)
			SKIP(return, "needs uvm.ko vidmem_mb=4");
	}
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
	fflush(NULL);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(filler(sv[1], variant->fill));
	ASSERT_EQ(1, read(sv[0], &f, 1));
	if (variant->fill != FILL_DISCARD) {
		ASSERT_EQ(0, uvm_wait_child(pid));
		ASSERT_EQ(0ULL, uvm_vidmem_wait(fd, 0, 0));
	}

	switch (variant->fresh) {
	case FRESH_DEVICE:
		p = uvm_mmap_device(&self->dev, 0, GPU_BYTES);
		break;
	case FRESH_VMM:
		p = vmm_alloc(fd, GPU_BYTES);
		break;
	default:
		p = uvm_mmap_block_aligned(&self->dev, GPU_BYTES);
		break;
	}
	ASSERT_NE(MAP_FAILED, p);
	if (variant->fresh == FRESH_MANAGED_PARTIAL) {
		/* one word per block from the CPU; the GPU populates the rest */
		*(volatile uint64_t *)p = 1;
		*(volatile uint64_t *)(p + G + 8) = 2;
	}
	memset(self->buf, 0xff, GPU_BYTES);
	ASSERT_EQ(0, uvm_gpu_read(fd, 0, p, GPU_BYTES, self->buf, NULL));
	/* the whole GPU is ours now: the same vidmem the other process had */
	ASSERT_EQ((uint64_t)GPU_BYTES, uvm_vidmem_used(fd, 0));
	if (variant->fresh == FRESH_MANAGED_PARTIAL) {
		ASSERT_EQ(1ULL, ((uint64_t *)self->buf)[0]);
		ASSERT_EQ(2ULL, ((uint64_t *)(self->buf + G))[1]);
		((uint64_t *)self->buf)[0] = 0;
		((uint64_t *)(self->buf + G))[1] = 0;
	}
	ASSERT_EQ(-1, uvm_nonzero_at(self->buf, GPU_BYTES))
		TH_LOG("a fresh allocation reads another process's bytes");

	if (variant->fill == FILL_DISCARD) {
		ASSERT_EQ(1, write(sv[0], "g", 1));
		ASSERT_EQ(0, uvm_wait_child(pid));
	}
	close(sv[0]);
	close(sv[1]);
}

/* ------------------------------------------------------------------ */

/*
 * The test ioctls answer exactly when UVM_CAP_TEST_IOCTLS says they are
 * built in (CONFIG_UVM_TEST, the uvm_test meson option, dkms-install
 * --test); without them both numbers are -ENOTTY like any unknown command
 */
TEST(test_ioctls_match_caps)
{
	struct uvm_test_residency res = { 0 };
	struct uvm_test_queue_gate g = { 0 };
	struct uvm_test_launch l = { 0 };
	struct uvm_ioc_version ver;
	int fd = uvm_open();

	if (fd == -ENOENT)
		UVM_SKIP("%s does not exist: is uvm.ko loaded?", UVM_DEV_PATH);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, uvm_get_version(fd, &ver));
	if (ver.caps & UVM_CAP_TEST_IOCTLS) {
		/* present: they validate their arguments */
		ASSERT_EQ(-EINVAL, uvm_ioctl(fd, UVM_TEST_IOC_LAUNCH, &l));
		ASSERT_EQ(-EINVAL, uvm_ioctl(fd, UVM_TEST_IOC_RESIDENCY, &res));
		ASSERT_EQ(-EINVAL, uvm_ioctl(fd, UVM_TEST_IOC_QUEUE_GATE, &g));
	} else {
		ASSERT_EQ(-ENOTTY, uvm_ioctl(fd, UVM_TEST_IOC_LAUNCH, &l));
		ASSERT_EQ(-ENOTTY, uvm_ioctl(fd, UVM_TEST_IOC_RESIDENCY, &res));
		ASSERT_EQ(-ENOTTY, uvm_ioctl(fd, UVM_TEST_IOC_QUEUE_GATE, &g));
	}
	/* past the end of either table: unknown */
	ASSERT_EQ(-ENOTTY, uvm_ioctl(fd, _IOWR(UVM_IOC_MAGIC, 0x83, struct uvm_test_launch), &l));
	ASSERT_EQ(-ENOTTY, uvm_ioctl(fd, _IOWR(UVM_IOC_MAGIC, 0x19, struct uvm_test_launch), &l));
	close(fd);
}

TEST_HARNESS_MAIN
