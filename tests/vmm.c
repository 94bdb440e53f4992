// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * vmm - virtual memory management (API 1.3) at the ioctl level: physical
 * allocations (UVM_IOC_MEM_CREATE/RELEASE/PROPS), address reservations
 * (mmap at UVM_MMAP_RESERVE), mappings (MEM_MAP/UNMAP), access per
 * processor (MEM_SET_ACCESS), MEM_QUERY, sharing by file descriptor
 * (MEM_EXPORT/IMPORT) within a process and between two processes over a
 * Unix socket, and what copies, launches, CPU touches, POINTER_INFO and the
 * policy ioctls do on VMM memory.
 *
 * Bytes are checked through simulated GPU launches (pattern writes and
 * checksummed reads) and copies into ordinary memory; vidmem accounting is
 * checked to the chunk, so the suite runs with vidmem_mb=64.
 */
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "uvm_test_util.h"

#define G		UVM_MEM_GRANULARITY

/* Helpers */

static int mem_query(int fd, const void *addr, uint32_t flags,
		     struct uvm_ioc_mem_query *q)
{
	memset(q, 0, sizeof(*q));
	q->address = (uintptr_t)addr;
	q->flags = flags;
	return uvm_ioctl(fd, UVM_IOC_MEM_QUERY, q);
}

/* Pattern-write [addr, +len) on @gpu: 0 or the launch's -errno. */
static int gpu_write(int fd, uint32_t gpu, const void *addr, uint64_t len, uint64_t v)
{
	return uvm_launch1(fd, gpu, 8, uvm_op_pattern(addr, len, v), NULL);
}

/*
 * Read [addr, +len) on @gpu; count the words unlike pattern @v as written
 * at @at (patterns depend on the address written).
 */
static long gpu_check_at(int fd, uint32_t gpu, const void *addr, uint64_t len,
			 const void *at, uint64_t v, int *err)
{
	uint64_t *buf = malloc(len), *want = malloc(len);
	long bad = -1;

	*err = uvm_launch1(fd, gpu, 8, uvm_op_read(addr, len, 8, buf), NULL);
	if (!*err) {
		uvm_pattern_fill(want, at, len, v);
		bad = 0;
		for (uint64_t i = 0; i < len / 8; i++)
			bad += buf[i] != want[i];
	}
	free(buf);
	free(want);
	return bad;
}

static long gpu_check(int fd, uint32_t gpu, const void *addr, uint64_t len, uint64_t v,
		      int *err)
{
	return gpu_check_at(fd, gpu, addr, len, addr, v, err);
}

static int copy(int fd, uint32_t gpu, void *dst, const void *src, uint64_t len)
{
	struct uvm_ioc_copy c = { .dst = (uintptr_t)dst, .src = (uintptr_t)src,
				  .length = len, .gpu_index = gpu };

	return uvm_ioctl(fd, UVM_IOC_COPY, &c);
}

FIXTURE(vmm) {
	struct uvm_dev dev;
	uint64_t used0[2];
};

FIXTURE_SETUP(vmm)
{
	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, 2);
	if (!(self->dev.ver.caps & UVM_CAP_VMM))
		UVM_SKIP("uvm.ko has no VMM ioctls");
	self->used0[0] = uvm_vidmem_used(self->dev.fd, 0);
	self->used0[1] = uvm_vidmem_used(self->dev.fd, 1);
}

FIXTURE_TEARDOWN(vmm)
{
	uvm_param_write("mem_create_pause_ms", "0");	/* a failed test's */
	uvm_dev_teardown(&self->dev);
}

/* Allocations */

TEST_F(vmm, version)
{
	EXPECT_EQ(1, self->dev.ver.major);
	EXPECT_LE(3, self->dev.ver.minor);
	EXPECT_TRUE(self->dev.ver.caps & UVM_CAP_VMM);
}

TEST_F(vmm, create_bad_input)
{
	int fd = self->dev.fd;
	struct uvm_ioc_mem_create c;
	uint64_t h;

	EXPECT_EQ(-EINVAL, uvm_mem_create(fd, 0, UVM_LOC_GPU(0), 0, &h));
	EXPECT_EQ(-EINVAL, uvm_mem_create(fd, 4096, UVM_LOC_GPU(0), 0, &h));
	EXPECT_EQ(-EINVAL, uvm_mem_create(fd, G + 4096, UVM_LOC_GPU(0), 0, &h));
	EXPECT_EQ(-EINVAL, uvm_mem_create(fd, G, UVM_LOC_INVALID, 0, &h));
	EXPECT_EQ(-EINVAL, uvm_mem_create(fd, G, UVM_LOC_NUMA_CURRENT, 0, &h));
	EXPECT_EQ(-EINVAL, uvm_mem_create(fd, G, uvm_loc(99, 0), 0, &h));
	EXPECT_EQ(-ENODEV, uvm_mem_create(fd, G, UVM_LOC_GPU(99), 0, &h));
	EXPECT_EQ(-ENODEV, uvm_mem_create(fd, G, UVM_LOC_GPU(-1), 0, &h));
	EXPECT_EQ(-ENODEV, uvm_mem_create(fd, G, UVM_LOC_NUMA(4096), 0, &h));
	EXPECT_EQ(-ENODEV, uvm_mem_create(fd, G, UVM_LOC_NUMA(-1), 0, &h));
	EXPECT_EQ(-EINVAL, uvm_mem_create(fd, G, UVM_LOC_GPU(0), 2, &h));
	EXPECT_EQ(-EINVAL, uvm_mem_create(fd, G, UVM_LOC_GPU(0), 8, &h));
	EXPECT_EQ(-EINVAL, uvm_mem_create(fd, G, UVM_LOC_HOST, UVM_MEM_HANDLE_FD, &h));
	EXPECT_EQ(-ENOMEM, uvm_mem_create(fd, 1ULL << 40, UVM_LOC_GPU(0), 0, &h));
	EXPECT_EQ(-ENOMEM, uvm_mem_create(fd, 1ULL << 50, UVM_LOC_HOST, 0, &h));
	EXPECT_EQ(-ENOMEM, uvm_mem_create(fd, ~(G - 1), UVM_LOC_GPU(0), 0, &h));

	memset(&c, 0, sizeof(c));
	c.size = G;
	c.location = UVM_LOC_GPU(0);
	c.flags = 1;
	EXPECT_EQ(-EINVAL, uvm_ioctl(fd, UVM_IOC_MEM_CREATE, &c));
	c.flags = 0;
	c.reserved[1] = 1;
	EXPECT_EQ(-EINVAL, uvm_ioctl(fd, UVM_IOC_MEM_CREATE, &c));

	/* Nothing was allocated by any of them. */
	EXPECT_EQ(self->used0[0], uvm_vidmem_used(fd, 0));
}

static uint64_t meminfo_kib(const char *field)
{
	char line[256];
	uint64_t v = 0;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, strlen(field)) && line[strlen(field)] == ':')
			v = strtoull(line + strlen(field) + 1, NULL, 10);
	fclose(f);
	return v;
}

/*
 * A host allocation larger than the memory the machine could free for it
 * fails at once, before any page is taken: allocating gigabytes page by
 * page only to fail took minutes on the debug kernel.
 */
TEST_F(vmm, create_more_than_available)
{
	uint64_t total = meminfo_kib("MemTotal") << 10, avail = meminfo_kib("MemAvailable") << 10;
	uint64_t size = (avail + (total - avail) / 2 + G - 1) & ~(G - 1), t0;
	uint64_t h;

	ASSERT_LT(avail + 2 * G, total);
	t0 = uvm_now_ms();
	EXPECT_EQ(-ENOMEM, uvm_mem_create(self->dev.fd, size, UVM_LOC_HOST, 0, &h));
	EXPECT_EQ(-ENOMEM, uvm_mem_create(self->dev.fd, size, UVM_LOC_NUMA(0), 0, &h));
	EXPECT_GT(2000, uvm_now_ms() - t0);
	/* and nothing was kept */
	EXPECT_LE(avail - 64 * UVM_MIB, meminfo_kib("MemAvailable") << 10);
}

TEST_F(vmm, create_props_release)
{
	int fd = self->dev.fd;
	struct uvm_ioc_mem_props p = { 0 };
	uint64_t h, h2;

	ASSERT_EQ(0, uvm_mem_create(fd, 3 * G, UVM_LOC_GPU(1), UVM_MEM_HANDLE_FD, &h));
	ASSERT_EQ(0, uvm_mem_create(fd, G, UVM_LOC_GPU(1), 0, &h2));
	EXPECT_NE(h, h2);
	EXPECT_NE(0, h);
	EXPECT_EQ(self->used0[1] + 4 * G, uvm_vidmem_used(fd, 1));
	EXPECT_EQ(self->used0[0], uvm_vidmem_used(fd, 0));

	p.handle = h;
	ASSERT_EQ(0, uvm_ioctl(fd, UVM_IOC_MEM_PROPS, &p));
	EXPECT_EQ(3 * G, p.size);
	EXPECT_EQ(UVM_LOCATION_GPU, p.location.type);
	EXPECT_EQ(1, p.location.id);
	EXPECT_EQ(UVM_MEM_HANDLE_FD, p.handle_types);
	EXPECT_NE(0, p.alloc_id);
	p.flags = 1;
	EXPECT_EQ(-EINVAL, uvm_ioctl(fd, UVM_IOC_MEM_PROPS, &p));
	p.flags = 0;
	p.handle = 0;
	EXPECT_EQ(-ENOENT, uvm_ioctl(fd, UVM_IOC_MEM_PROPS, &p));
	p.handle = 1ULL << 40;
	EXPECT_EQ(-ENOENT, uvm_ioctl(fd, UVM_IOC_MEM_PROPS, &p));

	EXPECT_EQ(0, uvm_mem_release(fd, h));
	EXPECT_EQ(-ENOENT, uvm_mem_release(fd, h));
	EXPECT_EQ(-ENOENT, uvm_mem_release(fd, 0));
	EXPECT_EQ(-ENOENT, uvm_mem_release(fd, ~0ULL));
	EXPECT_EQ(self->used0[1] + G, uvm_vidmem_used(fd, 1));
	EXPECT_EQ(0, uvm_mem_release(fd, h2));
	EXPECT_EQ(self->used0[1], uvm_vidmem_used(fd, 1));
}

struct slow_create {
	int fd;
	uint64_t handle;
	int ret;
};

static void *slow_create(void *arg)
{
	struct slow_create *c = arg;

	c->ret = uvm_mem_create(c->fd, G, UVM_LOC_HOST, 0, &c->handle);
	return NULL;
}

/*
 * An allocation of gigabytes takes seconds (mem_create_pause_ms stands for
 * one): MEM_CREATE does not hold the VA space lock meanwhile, so the
 * process's other threads look up (MEM_PROPS) and release (MEM_RELEASE)
 * handles.  A 4 GiB host allocation used to keep a fuzzer's other threads
 * waiting for the lock over a minute (hung task, seed 4303, debug612).
 */
TEST_F_TIMEOUT(vmm, create_does_not_hold_the_lock, 120)
{
	struct slow_create c = { .fd = self->dev.fd };
	struct uvm_ioc_mem_props p = { 0 };
	uint64_t start, during, total, h;
	pthread_t t;

	if (access(UVM_PARAM_DIR "mem_create_pause_ms", W_OK))
		UVM_SKIP("no mem_create_pause_ms (a production build)");
	ASSERT_EQ(0, uvm_mem_create(c.fd, G, UVM_LOC_GPU(0), 0, &h));
	ASSERT_EQ(0, uvm_param_write("mem_create_pause_ms", "3000"));
	start = uvm_now_ms();
	ASSERT_EQ(0, pthread_create(&t, NULL, slow_create, &c));
	usleep(300 * 1000);
	p.handle = h;
	EXPECT_EQ(0, uvm_ioctl(c.fd, UVM_IOC_MEM_PROPS, &p));
	EXPECT_EQ(G, p.size);
	EXPECT_EQ(0, uvm_mem_release(c.fd, h));
	during = uvm_now_ms() - start;
	ASSERT_EQ(0, pthread_join(t, NULL));
	total = uvm_now_ms() - start;
	ASSERT_EQ(0, uvm_param_write("mem_create_pause_ms", "0"));
	ASSERT_EQ(0, c.ret);
	/* the creation paused; the lookup and the release did not wait for it */
	EXPECT_LE(3000, total);
	EXPECT_GT(1500, during);
	p.handle = c.handle;
	EXPECT_EQ(0, uvm_ioctl(c.fd, UVM_IOC_MEM_PROPS, &p));
	EXPECT_EQ(UVM_LOCATION_HOST, p.location.type);
	EXPECT_EQ(0, uvm_mem_release(c.fd, c.handle));
	EXPECT_EQ(self->used0[0], uvm_vidmem_used(c.fd, 0));
}

TEST_F(vmm, zeroed_and_full_gpu)
{
	int fd = self->dev.fd;
	uint64_t h[40], n, size = 8 * G;
	uint8_t *r = uvm_reserve(fd, size);
	int err;

	ASSERT_NE(MAP_FAILED, r);
	/* Dirty vidmem, free it, allocate again: it must read as zeros. */
	ASSERT_EQ(0, uvm_mem_create(fd, size, UVM_LOC_GPU(0), 0, &h[0]));
	ASSERT_EQ(0, uvm_mem_map(fd, r, size, 0, h[0]));
	ASSERT_EQ(0, uvm_mem_set_access(fd, r, size, UVM_LOC_GPU(0), UVM_MEM_PROT_READ_WRITE));
	ASSERT_EQ(0, gpu_write(fd, 0, r, size, 0x77));
	ASSERT_EQ(0, uvm_mem_unmap(fd, r, size));
	ASSERT_EQ(0, uvm_mem_release(fd, h[0]));
	ASSERT_EQ(0, uvm_mem_create(fd, size, UVM_LOC_GPU(0), 0, &h[0]));
	ASSERT_EQ(0, uvm_mem_map(fd, r, size, 0, h[0]));
	ASSERT_EQ(0, uvm_mem_set_access(fd, r, size, UVM_LOC_GPU(0), UVM_MEM_PROT_READ));
	EXPECT_EQ(size / 8, gpu_check(fd, 0, r, size, 0x77, &err));
	EXPECT_EQ(0, err);
	EXPECT_EQ(0, uvm_mem_unmap(fd, r, size));
	EXPECT_EQ(0, uvm_mem_release(fd, h[0]));

	/* Fill GPU 0 (64 MiB) with 2 MiB allocations: the next is -ENOMEM. */
	for (n = 0; n < 40; n++)
		if (uvm_mem_create(fd, G, UVM_LOC_GPU(0), 0, &h[n]))
			break;
	EXPECT_GT(40, n);
	EXPECT_EQ(-ENOMEM, uvm_mem_create(fd, G, UVM_LOC_GPU(0), 0, NULL));
	while (n--)
		EXPECT_EQ(0, uvm_mem_release(fd, h[n]));
	EXPECT_EQ(self->used0[0], uvm_vidmem_used(fd, 0));
	munmap(r, size);
}

/* Reservations, mappings, access */

TEST_F(vmm, reservation_is_whole)
{
	int fd = self->dev.fd;
	uint8_t *r = uvm_reserve(fd, 4 * G);
	struct uvm_ioc_mem_query q;

	ASSERT_NE(MAP_FAILED, r);
	ASSERT_EQ(0, mem_query(fd, r + G + 5, 0, &q));
	EXPECT_EQ((uintptr_t)r, q.reservation_start);
	EXPECT_EQ(4 * G, q.reservation_size);
	EXPECT_EQ(0, q.reservation_mappings);
	EXPECT_EQ(0, q.mapping_size);
	EXPECT_EQ(-ENOENT, mem_query(fd, r + 4 * G, 0, &q));
	EXPECT_EQ(-ENOENT, mem_query(fd, r + G, UVM_MEM_QUERY_RETAIN, &q));
	EXPECT_EQ(-EINVAL, mem_query(fd, r, 2, &q));

	/* Partial munmap and mremap are refused; nothing else can land here. */
	EXPECT_EQ(-1, munmap(r, G));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, mremap(r, 4 * G, 8 * G, MREMAP_MAYMOVE));
	EXPECT_EQ(MAP_FAILED, mmap(r + G, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS |
				   MAP_FIXED_NOREPLACE, -1, 0));
	EXPECT_EQ(0, mem_query(fd, r, 0, &q));
	EXPECT_EQ(0, munmap(r, 4 * G));
	EXPECT_EQ(-ENOENT, mem_query(fd, r, 0, &q));

	/* Any page multiple can be reserved. */
	r = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, UVM_MMAP_RESERVE);
	ASSERT_NE(MAP_FAILED, r);
	ASSERT_EQ(0, mem_query(fd, r, 0, &q));
	EXPECT_EQ(4096, q.reservation_size);
	EXPECT_EQ(SIGSEGV, uvm_touch_signal(r, false));
	munmap(r, 4096);
}

TEST_F(vmm, map_bad_input)
{
	int fd = self->dev.fd;
	uint8_t *r = uvm_reserve(fd, 8 * G), *r2 = uvm_reserve(fd, 2 * G);
	struct uvm_ioc_mem_map m;
	uint64_t h;

	ASSERT_NE(MAP_FAILED, r);
	ASSERT_NE(MAP_FAILED, r2);
	ASSERT_EQ(0, uvm_mem_create(fd, 4 * G, UVM_LOC_GPU(0), 0, &h));
	EXPECT_EQ(-EINVAL, uvm_mem_map(fd, r + 4096, G, 0, h));
	EXPECT_EQ(-EINVAL, uvm_mem_map(fd, r, G + 4096, 0, h));
	EXPECT_EQ(-EINVAL, uvm_mem_map(fd, r, 0, 0, h));
	EXPECT_EQ(-EINVAL, uvm_mem_map(fd, r, G, 4096, h));
	EXPECT_EQ(-EINVAL, uvm_mem_map(fd, r, 4 * G, G, h));
	EXPECT_EQ(-EINVAL, uvm_mem_map(fd, r, 2 * G, ~(G - 1), h));
	EXPECT_EQ(-EINVAL, uvm_mem_map(fd, r + 6 * G, 4 * G, 0, h));
	EXPECT_EQ(-EINVAL, uvm_mem_map(fd, r2 + 2 * G, G, 0, h));
	EXPECT_EQ(-EINVAL, uvm_mem_map(fd, (void *)(~0ULL - G + 1), 2 * G, 0, h));
	EXPECT_EQ(-ENOENT, uvm_mem_map(fd, r, G, 0, 0));
	EXPECT_EQ(-ENOENT, uvm_mem_map(fd, r, G, 0, h + 1000));
	memset(&m, 0, sizeof(m));
	m.address = (uintptr_t)r;
	m.size = G;
	m.handle = h;
	m.flags = 1;
	EXPECT_EQ(-EINVAL, uvm_ioctl(fd, UVM_IOC_MEM_MAP, &m));
	m.flags = 0;
	m.pad = 1;
	EXPECT_EQ(-EINVAL, uvm_ioctl(fd, UVM_IOC_MEM_MAP, &m));

	/* Partial mappings at any offset; overlaps refused. */
	ASSERT_EQ(0, uvm_mem_map(fd, r + 2 * G, 2 * G, 2 * G, h));
	EXPECT_EQ(-EEXIST, uvm_mem_map(fd, r + 3 * G, G, 0, h));
	EXPECT_EQ(-EEXIST, uvm_mem_map(fd, r, 4 * G, 0, h));
	EXPECT_EQ(0, uvm_mem_map(fd, r, 2 * G, 0, h));
	EXPECT_EQ(0, uvm_mem_map(fd, r + 4 * G, 4 * G, 0, h));
	EXPECT_EQ(0, uvm_mem_unmap(fd, r, 8 * G));
	EXPECT_EQ(0, uvm_mem_release(fd, h));
	EXPECT_EQ(self->used0[0], uvm_vidmem_used(fd, 0));
	munmap(r, 8 * G);
	munmap(r2, 2 * G);
}

TEST_F(vmm, access_by_launch)
{
	int fd = self->dev.fd;
	uint8_t *r = uvm_reserve(fd, 8 * G), *a = r + 2 * G;
	struct uvm_test_launch l;
	struct uvm_test_gpu_op op;
	struct uvm_ioc_mem_query q;
	uint64_t h;
	int err;

	ASSERT_NE(MAP_FAILED, r);
	ASSERT_EQ(0, uvm_mem_create(fd, 4 * G, UVM_LOC_GPU(0), 0, &h));
	ASSERT_EQ(0, uvm_mem_map(fd, a, 4 * G, 0, h));

	/* Mappings start with no access: a GPU access is fatal. */
	op = uvm_op_read(a + 4096, 8, 8, NULL);
	EXPECT_EQ(-EREMOTEIO, uvm_launch(fd, 0, 1, &op, 1, &l));
	EXPECT_EQ((uintptr_t)a + 4096, l.fault_address);

	ASSERT_EQ(0, uvm_mem_set_access(fd, a, 4 * G, UVM_LOC_GPU(0), UVM_MEM_PROT_READ_WRITE));
	ASSERT_EQ(0, mem_query(fd, a + G, 0, &q));
	EXPECT_EQ(UVM_GPU_BIT(0), q.read_mask);
	EXPECT_EQ(UVM_GPU_BIT(0), q.write_mask);
	EXPECT_EQ((uintptr_t)a, q.mapping_start);
	EXPECT_EQ(4 * G, q.mapping_size);
	EXPECT_EQ(h, q.handle);
	ASSERT_EQ(0, gpu_write(fd, 0, a, 4 * G, 0x1234));
	EXPECT_EQ(0, gpu_check(fd, 0, a, 4 * G, 0x1234, &err));
	EXPECT_EQ(0, err);

	/* GPU 1 (a peer) has nothing until given read access. */
	op = uvm_op_read(a, 8, 8, NULL);
	EXPECT_EQ(-EREMOTEIO, uvm_launch(fd, 1, 1, &op, 1, NULL));
	ASSERT_EQ(0, uvm_mem_set_access(fd, a + 2 * G, 2 * G, UVM_LOC_GPU(1), UVM_MEM_PROT_READ));
	EXPECT_EQ(0, gpu_check(fd, 1, a + 2 * G, 2 * G, 0x1234, &err));
	EXPECT_EQ(0, err);
	op = uvm_op_read(a, 8, 8, NULL);
	EXPECT_EQ(-EREMOTEIO, uvm_launch(fd, 1, 1, &op, 1, NULL));
	op = uvm_op_pattern(a + 2 * G, 64, 1);
	EXPECT_EQ(-EREMOTEIO, uvm_launch(fd, 1, 1, &op, 1, &l));
	EXPECT_EQ(UVM_TEST_OP_WRITE, l.fault_access);

	/* Lowered to read-only, then none, on GPU 0: in force at once. */
	ASSERT_EQ(0, uvm_mem_set_access(fd, a, 4 * G, UVM_LOC_GPU(0), UVM_MEM_PROT_READ));
	op = uvm_op_pattern(a + G, 64, 2);
	EXPECT_EQ(-EREMOTEIO, uvm_launch(fd, 0, 1, &op, 1, NULL));
	EXPECT_EQ(0, gpu_check(fd, 0, a, 4 * G, 0x1234, &err));
	ASSERT_EQ(0, uvm_mem_set_access(fd, a, 2 * G, UVM_LOC_GPU(0), UVM_MEM_PROT_NONE));
	op = uvm_op_read(a + G, 8, 8, NULL);
	EXPECT_EQ(-EREMOTEIO, uvm_launch(fd, 0, 1, &op, 1, NULL));
	EXPECT_EQ(0, gpu_check(fd, 0, a + 2 * G, 2 * G, 0x1234, &err));
	ASSERT_EQ(0, mem_query(fd, a, 0, &q));
	EXPECT_EQ(0, q.read_mask);
	ASSERT_EQ(0, mem_query(fd, a + 3 * G, 0, &q));
	EXPECT_EQ(UVM_GPU_BIT(0) | UVM_GPU_BIT(1), q.read_mask);
	EXPECT_EQ(0, q.write_mask);

	EXPECT_EQ(0, uvm_mem_unmap(fd, a, 4 * G));
	op = uvm_op_read(a + 3 * G, 8, 8, NULL);
	EXPECT_EQ(-EREMOTEIO, uvm_launch(fd, 1, 1, &op, 1, NULL));
	EXPECT_EQ(0, uvm_mem_release(fd, h));
	EXPECT_EQ(self->used0[0], uvm_vidmem_used(fd, 0));
	munmap(r, 8 * G);
}

TEST_F(vmm, set_access_bad_input)
{
	int fd = self->dev.fd;
	uint8_t *r = uvm_reserve(fd, 8 * G);
	struct uvm_mem_access d[UVM_MEM_MAX_ACCESS_DESCS + 1] = { 0 };
	struct uvm_ioc_mem_set_access s;
	struct uvm_ioc_mem_query q;
	uint64_t h;

	ASSERT_NE(MAP_FAILED, r);
	ASSERT_EQ(0, uvm_mem_create(fd, 2 * G, UVM_LOC_GPU(0), 0, &h));
	ASSERT_EQ(0, uvm_mem_map(fd, r + 2 * G, 2 * G, 0, h));
	ASSERT_EQ(0, uvm_mem_map(fd, r + 4 * G, 2 * G, 0, h));

	/* Holes, unaligned spans, outside reservations. */
	EXPECT_EQ(-EINVAL, uvm_mem_set_access(fd, r, 4 * G, UVM_LOC_GPU(0), 3));
	EXPECT_EQ(-EINVAL, uvm_mem_set_access(fd, r + 2 * G, 6 * G, UVM_LOC_GPU(0), 3));
	EXPECT_EQ(-EINVAL, uvm_mem_set_access(fd, r + 2 * G + 4096, G, UVM_LOC_GPU(0), 3));
	EXPECT_EQ(-EINVAL, uvm_mem_set_access(fd, r + 2 * G, 0, UVM_LOC_GPU(0), 3));
	EXPECT_EQ(-EINVAL, uvm_mem_set_access(fd, r + 8 * G, G, UVM_LOC_GPU(0), 3));

	/* Entries: validated whole, the offending one reported. */
	d[0] = (struct uvm_mem_access){ .location = UVM_LOC_GPU(0), .prot = 3 };
	d[1] = (struct uvm_mem_access){ .location = UVM_LOC_GPU(1), .prot = 2 };
	memset(&s, 0, sizeof(s));
	s.address = (uintptr_t)r + 2 * G;
	s.size = 4 * G;
	s.descs_ptr = (uintptr_t)d;
	s.count = 2;
	EXPECT_EQ(-EINVAL, uvm_ioctl(fd, UVM_IOC_MEM_SET_ACCESS, &s));
	EXPECT_EQ(1, s.bad_desc);
	d[1].prot = 7;
	EXPECT_EQ(-EINVAL, uvm_ioctl(fd, UVM_IOC_MEM_SET_ACCESS, &s));
	d[1] = (struct uvm_mem_access){ .location = UVM_LOC_GPU(9), .prot = 1 };
	EXPECT_EQ(-ENODEV, uvm_ioctl(fd, UVM_IOC_MEM_SET_ACCESS, &s));
	EXPECT_EQ(1, s.bad_desc);
	d[1] = (struct uvm_mem_access){ .location = UVM_LOC_HOST, .prot = 1 };
	EXPECT_EQ(-EOPNOTSUPP, uvm_ioctl(fd, UVM_IOC_MEM_SET_ACCESS, &s));
	EXPECT_EQ(1, s.bad_desc);
	d[1] = (struct uvm_mem_access){ .location = UVM_LOC_NUMA_CURRENT, .prot = 1 };
	EXPECT_EQ(-EINVAL, uvm_ioctl(fd, UVM_IOC_MEM_SET_ACCESS, &s));
	d[1] = (struct uvm_mem_access){ .location = UVM_LOC_GPU(1), .prot = 1, .pad = 1 };
	EXPECT_EQ(-EINVAL, uvm_ioctl(fd, UVM_IOC_MEM_SET_ACCESS, &s));
	d[1].pad = 0;
	s.count = 0;
	EXPECT_EQ(-EINVAL, uvm_ioctl(fd, UVM_IOC_MEM_SET_ACCESS, &s));
	s.count = UVM_MEM_MAX_ACCESS_DESCS + 1;
	EXPECT_EQ(-EINVAL, uvm_ioctl(fd, UVM_IOC_MEM_SET_ACCESS, &s));
	s.count = 2;
	s.descs_ptr = 8;
	EXPECT_EQ(-EFAULT, uvm_ioctl(fd, UVM_IOC_MEM_SET_ACCESS, &s));
	s.descs_ptr = (uintptr_t)d;
	s.flags = 1;
	EXPECT_EQ(-EINVAL, uvm_ioctl(fd, UVM_IOC_MEM_SET_ACCESS, &s));
	s.flags = 0;

	/* None of that changed anything. */
	ASSERT_EQ(0, mem_query(fd, r + 2 * G, 0, &q));
	EXPECT_EQ(0, q.read_mask);

	/* Both GPUs at once over two mappings; a later entry wins. */
	d[2] = (struct uvm_mem_access){ .location = UVM_LOC_GPU(0), .prot = 1 };
	s.count = 3;
	ASSERT_EQ(0, uvm_ioctl(fd, UVM_IOC_MEM_SET_ACCESS, &s));
	ASSERT_EQ(0, mem_query(fd, r + 5 * G, 0, &q));
	EXPECT_EQ(UVM_GPU_BIT(0) | UVM_GPU_BIT(1), q.read_mask);
	EXPECT_EQ(0, q.write_mask);

	EXPECT_EQ(0, uvm_mem_unmap(fd, r, 8 * G));
	EXPECT_EQ(0, uvm_mem_release(fd, h));
	munmap(r, 8 * G);
}

TEST_F(vmm, alias_and_unmap_spans)
{
	int fd = self->dev.fd;
	uint8_t *r = uvm_reserve(fd, 16 * G), *r2 = uvm_reserve(fd, 2 * G);
	struct uvm_ioc_mem_query q;
	uint64_t h;
	int err;

	ASSERT_NE(MAP_FAILED, r);
	ASSERT_NE(MAP_FAILED, r2);
	ASSERT_EQ(0, uvm_mem_create(fd, 2 * G, UVM_LOC_GPU(1), 0, &h));
	/* One allocation at four addresses in two reservations. */
	ASSERT_EQ(0, uvm_mem_map(fd, r, 2 * G, 0, h));
	ASSERT_EQ(0, uvm_mem_map(fd, r + 2 * G, 2 * G, 0, h));
	ASSERT_EQ(0, uvm_mem_map(fd, r + 6 * G, 2 * G, 0, h));
	ASSERT_EQ(0, uvm_mem_map(fd, r2, 2 * G, 0, h));
	ASSERT_EQ(0, uvm_mem_set_access(fd, r, 4 * G, UVM_LOC_GPU(0), UVM_MEM_PROT_READ_WRITE));
	ASSERT_EQ(0, uvm_mem_set_access(fd, r2, 2 * G, UVM_LOC_GPU(1), UVM_MEM_PROT_READ_WRITE));
	ASSERT_EQ(0, uvm_mem_set_access(fd, r + 6 * G, 2 * G, UVM_LOC_GPU(1), UVM_MEM_PROT_READ));

	/* Written at r2 by GPU 1, read at r + 2 MiB by GPU 0 and r + 6 MiB by GPU 1. */
	ASSERT_EQ(0, gpu_write(fd, 1, r2, 2 * G, 0xabc));
	EXPECT_EQ(0, gpu_check_at(fd, 0, r + 2 * G, 2 * G, r2, 0xabc, &err));
	EXPECT_EQ(0, err);
	EXPECT_EQ(0, gpu_check_at(fd, 1, r + 6 * G, 2 * G, r2, 0xabc, &err));
	EXPECT_EQ(0, err);

	/* Unmapping: a cut is refused, a hole alone is -ENOENT. */
	EXPECT_EQ(-EINVAL, uvm_mem_unmap(fd, r, G));
	EXPECT_EQ(-EINVAL, uvm_mem_unmap(fd, r + G, 2 * G));
	EXPECT_EQ(-ENOENT, uvm_mem_unmap(fd, r + 4 * G, 2 * G));
	EXPECT_EQ(-EINVAL, uvm_mem_unmap(fd, r + 4 * G, 14 * G));
	/* One span, two mappings and a hole. */
	EXPECT_EQ(0, uvm_mem_unmap(fd, r + 2 * G, 6 * G));
	ASSERT_EQ(0, mem_query(fd, r + 2 * G, 0, &q));
	EXPECT_EQ(0, q.mapping_size);
	ASSERT_EQ(0, mem_query(fd, r + 7 * G, 0, &q));
	EXPECT_EQ(0, q.mapping_size);
	ASSERT_EQ(0, mem_query(fd, r, 0, &q));
	EXPECT_EQ(2 * G, q.mapping_size);
	EXPECT_EQ(1, q.reservation_mappings);
	EXPECT_EQ(0, gpu_check_at(fd, 0, r, 2 * G, r2, 0xabc, &err));
	EXPECT_EQ(0, err);
	(void)gpu_check(fd, 0, r + 2 * G, 8, 0, &err);
	EXPECT_EQ(-EREMOTEIO, err);

	/* The reservation's munmap frees the rest. */
	EXPECT_EQ(0, uvm_mem_release(fd, h));
	EXPECT_EQ(self->used0[1] + 2 * G, uvm_vidmem_used(fd, 1));
	munmap(r, 16 * G);
	EXPECT_EQ(self->used0[1] + 2 * G, uvm_vidmem_used(fd, 1));
	munmap(r2, 2 * G);
	EXPECT_EQ(self->used0[1], uvm_vidmem_used(fd, 1));
}

TEST_F(vmm, release_while_mapped_and_retain)
{
	int fd = self->dev.fd;
	uint8_t *r = uvm_reserve(fd, 4 * G);
	struct uvm_ioc_mem_query q;
	struct uvm_ioc_mem_props p = { 0 };
	uint64_t h;
	int err;

	ASSERT_NE(MAP_FAILED, r);
	ASSERT_EQ(0, uvm_mem_create(fd, 4 * G, UVM_LOC_GPU(0), 0, &h));
	ASSERT_EQ(0, uvm_mem_map(fd, r, 4 * G, 0, h));
	ASSERT_EQ(0, uvm_mem_set_access(fd, r, 4 * G, UVM_LOC_GPU(0), UVM_MEM_PROT_READ_WRITE));
	ASSERT_EQ(0, gpu_write(fd, 0, r, 4 * G, 5));

	/* Retain through an interior address: the same handle, one more ref. */
	ASSERT_EQ(0, mem_query(fd, r + 3 * G + 17, UVM_MEM_QUERY_RETAIN, &q));
	EXPECT_EQ(h, q.handle);
	EXPECT_EQ(0, uvm_mem_release(fd, h));
	EXPECT_EQ(0, uvm_mem_release(fd, h));
	EXPECT_EQ(-ENOENT, uvm_mem_release(fd, h));

	/* Released, still mapped: the memory is there and still in use. */
	EXPECT_EQ(self->used0[0] + 4 * G, uvm_vidmem_used(fd, 0));
	EXPECT_EQ(0, gpu_check(fd, 0, r, 4 * G, 5, &err));
	EXPECT_EQ(0, err);
	p.handle = h;
	EXPECT_EQ(-ENOENT, uvm_ioctl(fd, UVM_IOC_MEM_PROPS, &p));

	/* Retain brings the same value back. */
	ASSERT_EQ(0, mem_query(fd, r, UVM_MEM_QUERY_RETAIN, &q));
	EXPECT_EQ(h, q.handle);
	EXPECT_EQ(0, uvm_ioctl(fd, UVM_IOC_MEM_PROPS, &p));
	EXPECT_EQ(0, uvm_mem_release(fd, h));

	EXPECT_EQ(0, uvm_mem_unmap(fd, r, 4 * G));
	EXPECT_EQ(self->used0[0], uvm_vidmem_used(fd, 0));
	munmap(r, 4 * G);
}

TEST_F(vmm, host_located)
{
	int fd = self->dev.fd;
	uint8_t *r = uvm_reserve(fd, 4 * G);
	struct uvm_ioc_mem_query q;
	struct uvm_ioc_pointer_info pi = { 0 };
	uint64_t h, h2;
	int err;

	ASSERT_NE(MAP_FAILED, r);
	ASSERT_EQ(0, uvm_mem_create(fd, 2 * G, UVM_LOC_HOST, 0, &h));
	ASSERT_EQ(0, uvm_mem_create(fd, 2 * G, UVM_LOC_NUMA(0), UVM_MEM_HANDLE_FD, &h2));
	EXPECT_EQ(self->used0[0], uvm_vidmem_used(fd, 0));
	ASSERT_EQ(0, uvm_mem_map(fd, r, 2 * G, 0, h));
	ASSERT_EQ(0, uvm_mem_map(fd, r + 2 * G, 2 * G, 0, h2));

	/* No access yet: the CPU gets SIGSEGV. */
	EXPECT_EQ(SIGSEGV, uvm_touch_signal(r + 100, false));

	ASSERT_EQ(0, uvm_mem_set_access(fd, r, 4 * G, UVM_LOC_HOST, UVM_MEM_PROT_READ_WRITE));
	ASSERT_EQ(0, uvm_mem_set_access(fd, r, 4 * G, UVM_LOC_GPU(1), UVM_MEM_PROT_READ_WRITE));
	ASSERT_EQ(0, mem_query(fd, r + 3 * G, 0, &q));
	EXPECT_EQ(UVM_CPU_BIT | UVM_GPU_BIT(1), q.write_mask);
	EXPECT_EQ(UVM_LOCATION_HOST_NUMA, q.location.type);
	EXPECT_EQ(-1, uvm_nonzero_at(r, 4 * G));

	/* CPU writes, GPU reads; GPU writes, CPU reads. */
	uvm_pattern_fill(r, r, 2 * G, 0x99);
	EXPECT_EQ(0, gpu_check(fd, 1, r, 2 * G, 0x99, &err));
	EXPECT_EQ(0, err);
	ASSERT_EQ(0, gpu_write(fd, 1, r + 2 * G, 2 * G, 0x42));
	EXPECT_EQ(-1, uvm_pattern_mismatch(r + 2 * G, 2 * G, 0x42));

	/* Read-only for the CPU: writes are SIGSEGV, reads still work. */
	ASSERT_EQ(0, uvm_mem_set_access(fd, r, 2 * G, UVM_LOC_HOST, UVM_MEM_PROT_READ));
	EXPECT_EQ(SIGSEGV, uvm_touch_signal(r + 8, true));
	EXPECT_EQ(0, uvm_touch_signal(r + 8, false));
	EXPECT_EQ(uvm_pattern_word(0x99, r + 8), *(volatile uint64_t *)(r + 8));
	ASSERT_EQ(0, uvm_mem_set_access(fd, r, 2 * G, UVM_LOC_NUMA(0), UVM_MEM_PROT_NONE));
	EXPECT_EQ(SIGSEGV, uvm_touch_signal(r + 8, false));
	EXPECT_EQ(0, uvm_touch_signal(r + 2 * G, true));

	/* Memory of one node can be shared; of any node, not. */
	{
		int sfd = uvm_mem_export(fd, h2);

		EXPECT_LE(0, sfd);
		EXPECT_EQ(0, close(sfd));
		EXPECT_EQ(-EINVAL, uvm_mem_export(fd, h));
	}

	pi.address = (uintptr_t)r + 2 * G + 5;
	ASSERT_EQ(0, uvm_ioctl(fd, UVM_IOC_POINTER_INFO, &pi));
	EXPECT_EQ(UVM_POINTER_VMM, pi.flags);
	EXPECT_EQ((uintptr_t)r + 2 * G, pi.start);
	EXPECT_EQ(2 * G, pi.size);

	EXPECT_EQ(0, uvm_mem_release(fd, h));
	EXPECT_EQ(0, uvm_mem_release(fd, h2));
	EXPECT_EQ(0, munmap(r, 4 * G));
}

TEST_F(vmm, device_memory_cpu_and_pointer_info)
{
	int fd = self->dev.fd;
	uint8_t *r = uvm_reserve(fd, 4 * G);
	struct uvm_ioc_pointer_info pi = { 0 };
	struct uvm_ioc_advise adv = { 0 };
	struct uvm_ioc_range_query rq = { 0 };
	struct uvm_range rng;
	struct uvm_location loc = UVM_LOC_GPU(0);
	uint64_t start = 0;
	struct uvm_ioc_migrate mig = { 0 };
	uint64_t h;

	ASSERT_NE(MAP_FAILED, r);
	ASSERT_EQ(0, uvm_mem_create(fd, 2 * G, UVM_LOC_GPU(1), 0, &h));
	ASSERT_EQ(0, uvm_mem_map(fd, r + 2 * G, 2 * G, 0, h));
	ASSERT_EQ(0, uvm_mem_set_access(fd, r + 2 * G, 2 * G, UVM_LOC_GPU(1), UVM_MEM_PROT_READ_WRITE));
	EXPECT_EQ(SIGSEGV, uvm_touch_signal(r + 2 * G, false));
	EXPECT_EQ(SIGSEGV, uvm_touch_signal(r + 2 * G, true));

	pi.address = (uintptr_t)r + 3 * G;
	ASSERT_EQ(0, uvm_ioctl(fd, UVM_IOC_POINTER_INFO, &pi));
	EXPECT_EQ(UVM_POINTER_VMM, pi.flags);
	EXPECT_EQ(1, pi.gpu_index);
	EXPECT_EQ((uintptr_t)r + 2 * G, pi.start);
	EXPECT_EQ(2 * G, pi.size);
	EXPECT_NE(0, pi.buffer_id);
	memset(&pi, 0, sizeof(pi));
	pi.address = (uintptr_t)r + 5;
	EXPECT_EQ(-ENOENT, uvm_ioctl(fd, UVM_IOC_POINTER_INFO, &pi));

	/* Policy does not apply to VMM memory. */
	adv.address = (uintptr_t)r + 2 * G;
	adv.length = G;
	adv.advice = UVM_ADVICE_SET_READ_MOSTLY;
	EXPECT_EQ(-EINVAL, uvm_ioctl(fd, UVM_IOC_ADVISE, &adv));
	rq.address = (uintptr_t)r + 2 * G;
	rq.length = G;
	EXPECT_EQ(-EINVAL, uvm_ioctl(fd, UVM_IOC_RANGE_QUERY, &rq));
	rng = (struct uvm_range){ (uintptr_t)r + 2 * G, G };
	mig.op = UVM_MIGRATE_PREFETCH;
	mig.ranges_ptr = (uintptr_t)&rng;
	mig.count = 1;
	mig.locations_ptr = (uintptr_t)&loc;
	mig.location_starts_ptr = (uintptr_t)&start;
	mig.num_locations = 1;
	EXPECT_EQ(-EINVAL, uvm_ioctl(fd, UVM_IOC_MIGRATE, &mig));

	EXPECT_EQ(0, uvm_mem_release(fd, h));
	EXPECT_EQ(0, munmap(r, 4 * G));
	EXPECT_EQ(self->used0[1], uvm_vidmem_used(fd, 1));
}

TEST_F(vmm, copies_and_sets)
{
	int fd = self->dev.fd;
	uint8_t *r = uvm_reserve(fd, 8 * G), *buf = malloc(4 * G), *want = malloc(4 * G);
	struct uvm_ioc_memset ms = { 0 };
	uint64_t h, hh;

	ASSERT_NE(MAP_FAILED, r);
	ASSERT_EQ(0, uvm_mem_create(fd, 2 * G, UVM_LOC_GPU(0), 0, &h));
	ASSERT_EQ(0, uvm_mem_create(fd, 2 * G, UVM_LOC_HOST, 0, &hh));
	/* Two adjacent mappings of two kinds, then a hole. */
	ASSERT_EQ(0, uvm_mem_map(fd, r, 2 * G, 0, h));
	ASSERT_EQ(0, uvm_mem_map(fd, r + 2 * G, 2 * G, 0, hh));

	uvm_random_fill(want, 4 * G, 7);
	/* The copying GPU needs the right. */
	EXPECT_EQ(-EPERM, copy(fd, 0, r, want, 4 * G));
	ASSERT_EQ(0, uvm_mem_set_access(fd, r, 4 * G, UVM_LOC_GPU(0), UVM_MEM_PROT_READ));
	EXPECT_EQ(-EPERM, copy(fd, 0, r, want, 4 * G));
	EXPECT_EQ(0, copy(fd, 0, buf, r, 4 * G));
	EXPECT_EQ(-1, uvm_nonzero_at(buf, 4 * G));
	ASSERT_EQ(0, uvm_mem_set_access(fd, r, 4 * G, UVM_LOC_GPU(0), UVM_MEM_PROT_READ_WRITE));
	/* Across the two mappings, from an unaligned address. */
	EXPECT_EQ(0, copy(fd, 0, r + 100, want, 4 * G - 100));
	memset(buf, 0, 4 * G);
	EXPECT_EQ(0, copy(fd, 0, buf, r + 100, 4 * G - 100));
	EXPECT_EQ(-1, uvm_memcmp_at(buf, want, 4 * G - 100));
	/* Into the hole: refused, nothing written. */
	EXPECT_EQ(-EINVAL, copy(fd, 0, r + 3 * G, want, 2 * G));
	EXPECT_EQ(-EINVAL, copy(fd, 0, buf, r + 4 * G, 4096));
	/* Another GPU's engine has no right. */
	EXPECT_EQ(-EPERM, copy(fd, 1, buf, r, 4096));

	/* VMM to VMM, and a memset. */
	EXPECT_EQ(0, copy(fd, 0, r + 2 * G, r, 2 * G));
	memset(buf, 0, 2 * G);
	EXPECT_EQ(0, copy(fd, 0, buf, r + 2 * G, 2 * G));
	EXPECT_EQ(-1, uvm_memcmp_at(buf + 100, want, 2 * G - 100));
	ms.dst = (uintptr_t)r + 4096;
	ms.count = 1024;
	ms.value = 0xa5a5a5a5;
	ms.element_size = 4;
	EXPECT_EQ(0, uvm_ioctl(fd, UVM_IOC_MEMSET, &ms));
	EXPECT_EQ(0, copy(fd, 0, buf, r, 2 * 4096));
	for (int i = 0; i < 4096; i++)
		ASSERT_EQ(0xa5, buf[4096 + i]);

	EXPECT_EQ(0, uvm_mem_release(fd, h));
	EXPECT_EQ(0, uvm_mem_release(fd, hh));
	EXPECT_EQ(0, munmap(r, 8 * G));
	free(buf);
	free(want);
}

/* Sharing */

TEST_F(vmm, export_import_in_process)
{
	int fd = self->dev.fd, fd2 = uvm_open(), sfd, pipefd[2];
	uint8_t *r = uvm_reserve(fd, 2 * G), *r2;
	struct uvm_ioc_mem_props p = { 0 }, p2 = { 0 };
	uint64_t h, hn, hi, hi2, hx;
	int err;

	ASSERT_NE(MAP_FAILED, r);
	ASSERT_LE(0, fd2);
	r2 = uvm_reserve(fd2, 2 * G);
	ASSERT_NE(MAP_FAILED, r2);
	ASSERT_EQ(0, uvm_mem_create(fd, 2 * G, UVM_LOC_GPU(0), UVM_MEM_HANDLE_FD, &h));
	ASSERT_EQ(0, uvm_mem_create(fd, 2 * G, UVM_LOC_GPU(0), 0, &hn));
	EXPECT_EQ(-EINVAL, uvm_mem_export(fd, hn));
	EXPECT_EQ(-ENOENT, uvm_mem_export(fd, 12345));
	sfd = uvm_mem_export(fd, h);
	ASSERT_LE(0, sfd);
	EXPECT_EQ(FD_CLOEXEC, fcntl(sfd, F_GETFD) & FD_CLOEXEC);

	/* Import into this VA space and into a second one. */
	ASSERT_EQ(0, uvm_mem_import(fd, sfd, &hi));
	EXPECT_NE(h, hi);
	ASSERT_EQ(0, uvm_mem_import(fd2, sfd, &hi2));
	p.handle = h;
	p2.handle = hi2;
	ASSERT_EQ(0, uvm_ioctl(fd, UVM_IOC_MEM_PROPS, &p));
	ASSERT_EQ(0, uvm_ioctl(fd2, UVM_IOC_MEM_PROPS, &p2));
	EXPECT_EQ(p.alloc_id, p2.alloc_id);
	EXPECT_EQ(2 * G, p2.size);
	EXPECT_EQ(UVM_MEM_HANDLE_FD, p2.handle_types);

	/* Written in one VA space, read in the other. */
	ASSERT_EQ(0, uvm_mem_map(fd, r, 2 * G, 0, hi));
	ASSERT_EQ(0, uvm_mem_set_access(fd, r, 2 * G, UVM_LOC_GPU(0), UVM_MEM_PROT_READ_WRITE));
	ASSERT_EQ(0, gpu_write(fd, 0, r, 2 * G, 0x31));
	ASSERT_EQ(0, uvm_mem_map(fd2, r2, 2 * G, 0, hi2));
	ASSERT_EQ(0, uvm_mem_set_access(fd2, r2, 2 * G, UVM_LOC_GPU(1), UVM_MEM_PROT_READ));
	EXPECT_EQ(0, gpu_check_at(fd2, 1, r2, 2 * G, r, 0x31, &err));
	EXPECT_EQ(0, err);

	/* Not exported allocations. */
	ASSERT_EQ(0, pipe(pipefd));
	EXPECT_EQ(-EINVAL, uvm_mem_import(fd, pipefd[0], &hx));
	EXPECT_EQ(-EINVAL, uvm_mem_import(fd, fd2, &hx));
	EXPECT_EQ(-EBADF, uvm_mem_import(fd, -1, &hx));
	EXPECT_EQ(-EBADF, uvm_mem_import(fd, 1000000, &hx));
	close(pipefd[0]);
	close(pipefd[1]);

	/* Everything but the second VA space's mapping goes: it still works. */
	EXPECT_EQ(0, close(sfd));
	EXPECT_EQ(0, uvm_mem_release(fd, h));
	EXPECT_EQ(0, uvm_mem_release(fd, hi));
	EXPECT_EQ(0, uvm_mem_release(fd, hn));
	EXPECT_EQ(0, munmap(r, 2 * G));
	EXPECT_EQ(0, uvm_mem_release(fd2, hi2));
	EXPECT_EQ(self->used0[0] + 2 * G, uvm_vidmem_used(fd, 0));
	EXPECT_EQ(0, gpu_check_at(fd2, 1, r2, 2 * G, r, 0x31, &err));
	EXPECT_EQ(0, err);
	EXPECT_EQ(0, munmap(r2, 2 * G));
	EXPECT_EQ(self->used0[0], uvm_vidmem_used(fd, 0));
	close(fd2);
}

/* Two processes */

/*
 * The child: its own VA space; imports the descriptor from @sock, maps it,
 * checks the parent's pattern @v through GPU 1 and writes pattern @v + 1.
 * The patterns depend on addresses: the child maps at the parent's address
 * @where when it can, so both sides compute the same words.
 */
static int child_import(int sock, void *where, uint64_t v)
{
	int fd = uvm_open(), sfd = uvm_recv_fd(sock), err;
	uint8_t *r;
	uint64_t h;
	char ok = 'k';

	if (fd < 0 || sfd < 0)
		return 10;
	r = mmap(where, 2 * G, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED_NOREPLACE, fd,
		 UVM_MMAP_RESERVE);
	if (r != where)
		return 11;
	if (uvm_mem_import(fd, sfd, &h) || uvm_mem_map(fd, r, 2 * G, 0, h) ||
	    uvm_mem_set_access(fd, r, 2 * G, UVM_LOC_GPU(1), UVM_MEM_PROT_READ_WRITE))
		return 12;
	close(sfd);
	if (gpu_check(fd, 1, r, 2 * G, v, &err) != 0 || err)
		return 13;
	if (gpu_write(fd, 1, r, 2 * G, v + 1))
		return 14;
	if (write(sock, &ok, 1) != 1)
		return 15;
	return 0;
}

TEST_F(vmm, two_processes)
{
	int fd = self->dev.fd, sv[2], sfd, status, err;
	uint8_t *r = uvm_reserve(fd, 2 * G);
	uint64_t h;
	pid_t pid;
	char c;

	ASSERT_NE(MAP_FAILED, r);
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
	ASSERT_EQ(0, uvm_mem_create(fd, 2 * G, UVM_LOC_GPU(0), UVM_MEM_HANDLE_FD, &h));
	ASSERT_EQ(0, uvm_mem_map(fd, r, 2 * G, 0, h));
	ASSERT_EQ(0, uvm_mem_set_access(fd, r, 2 * G, UVM_LOC_GPU(0), UVM_MEM_PROT_READ_WRITE));
	ASSERT_EQ(0, gpu_write(fd, 0, r, 2 * G, 0x500));
	sfd = uvm_mem_export(fd, h);
	ASSERT_LE(0, sfd);

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		/* The reservation is not inherited: the child reserves its own. */
		close(sv[0]);
		_exit(child_import(sv[1], r, 0x500));
	}
	close(sv[1]);
	ASSERT_EQ(0, uvm_send_fd(sv[0], sfd));
	close(sfd);
	ASSERT_EQ(1, read(sv[0], &c, 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	/* The child wrote through GPU 1 in its VA space; GPU 0 reads it here. */
	EXPECT_EQ(0, gpu_check(fd, 0, r, 2 * G, 0x501, &err));
	EXPECT_EQ(0, err);
	close(sv[0]);
	EXPECT_EQ(0, uvm_mem_release(fd, h));
	EXPECT_EQ(0, munmap(r, 2 * G));
	EXPECT_EQ(self->used0[0], uvm_vidmem_used(fd, 0));
}

TEST_F(vmm, exporter_exits_first)
{
	int fd = self->dev.fd, sv[2], sfd, status, err;
	uint8_t *r = uvm_reserve(fd, 2 * G);
	uint64_t h;
	pid_t pid;

	ASSERT_NE(MAP_FAILED, r);
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		/* Create, write, export, send, exit (closing everything). */
		int cfd = uvm_open(), e;
		uint8_t *cr;
		uint64_t ch;

		close(sv[0]);
		cr = mmap(r, 2 * G, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED_NOREPLACE,
			  cfd, UVM_MMAP_RESERVE);
		if (cr != r || uvm_mem_create(cfd, 2 * G, UVM_LOC_GPU(1), UVM_MEM_HANDLE_FD, &ch) ||
		    uvm_mem_map(cfd, cr, 2 * G, 0, ch) ||
		    uvm_mem_set_access(cfd, cr, 2 * G, UVM_LOC_GPU(1), UVM_MEM_PROT_READ_WRITE) ||
		    gpu_write(cfd, 1, cr, 2 * G, 0x600))
			_exit(20);
		e = uvm_mem_export(cfd, ch);
		if (e < 0 || uvm_send_fd(sv[1], e))
			_exit(21);
		_exit(0);
	}
	close(sv[1]);
	sfd = uvm_recv_fd(sv[0]);
	ASSERT_LE(0, sfd);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	close(sv[0]);

	/* Only the descriptor in flight holds the memory now. */
	ASSERT_EQ(0, uvm_mem_import(fd, sfd, &h));
	close(sfd);
	ASSERT_EQ(0, uvm_mem_map(fd, r, 2 * G, 0, h));
	ASSERT_EQ(0, uvm_mem_set_access(fd, r, 2 * G, UVM_LOC_GPU(0), UVM_MEM_PROT_READ));
	EXPECT_EQ(0, gpu_check(fd, 0, r, 2 * G, 0x600, &err));
	EXPECT_EQ(0, err);
	EXPECT_EQ(0, uvm_mem_release(fd, h));
	EXPECT_EQ(self->used0[1] + 2 * G, uvm_vidmem_used(fd, 1));
	EXPECT_EQ(0, munmap(r, 2 * G));
	EXPECT_EQ(self->used0[1], uvm_vidmem_used(fd, 1));
}

/* Teardown */

TEST_F(vmm, close_with_everything_live)
{
	int fd2 = uvm_open(), sfd;
	uint8_t *r;
	uint64_t h, h2;

	ASSERT_LE(0, fd2);
	r = uvm_reserve(fd2, 4 * G);
	ASSERT_NE(MAP_FAILED, r);
	ASSERT_EQ(0, uvm_mem_create(fd2, 2 * G, UVM_LOC_GPU(0), UVM_MEM_HANDLE_FD, &h));
	ASSERT_EQ(0, uvm_mem_create(fd2, 2 * G, UVM_LOC_HOST, 0, &h2));
	ASSERT_EQ(0, uvm_mem_map(fd2, r, 2 * G, 0, h));
	ASSERT_EQ(0, uvm_mem_map(fd2, r + 2 * G, 2 * G, 0, h2));
	ASSERT_EQ(0, uvm_mem_set_access(fd2, r, 2 * G, UVM_LOC_GPU(0), UVM_MEM_PROT_READ_WRITE));
	ASSERT_EQ(0, uvm_mem_set_access(fd2, r + 2 * G, 2 * G, UVM_LOC_HOST, UVM_MEM_PROT_READ_WRITE));
	ASSERT_EQ(0, gpu_write(fd2, 0, r, 2 * G, 1));
	r[2 * G] = 1;
	sfd = uvm_mem_export(fd2, h);
	ASSERT_LE(0, sfd);

	/* Close first: the reservation keeps the VA space until munmap. */
	EXPECT_EQ(0, close(fd2));
	EXPECT_EQ(self->used0[0] + 2 * G, uvm_vidmem_used(self->dev.fd, 0));
	EXPECT_EQ(1, r[2 * G]);
	EXPECT_EQ(0, munmap(r, 4 * G));
	/* The exported file still holds the vidmem. */
	EXPECT_EQ(self->used0[0] + 2 * G, uvm_vidmem_used(self->dev.fd, 0));
	EXPECT_EQ(0, close(sfd));
	EXPECT_EQ(self->used0[0], uvm_vidmem_used(self->dev.fd, 0));
}

TEST_F(vmm, killed_with_everything_live)
{
	int status;
	pid_t pid = fork();

	ASSERT_LE(0, pid);
	if (!pid) {
		int cfd = uvm_open();
		uint8_t *r = uvm_reserve(cfd, 4 * G);
		uint64_t h;

		if (r == MAP_FAILED || uvm_mem_create(cfd, 4 * G, UVM_LOC_GPU(1), 0, &h) ||
		    uvm_mem_map(cfd, r, 4 * G, 0, h) ||
		    uvm_mem_set_access(cfd, r, 4 * G, UVM_LOC_GPU(1), UVM_MEM_PROT_READ_WRITE))
			_exit(1);
		/* Keep GPU 1 busy on it until killed. */
		for (;;)
			gpu_write(cfd, 1, r, 4 * G, 3);
	}
	usleep(300 * 1000);
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status));
	EXPECT_EQ(self->used0[1], uvm_vidmem_wait(self->dev.fd, 1, self->used0[1]));
}

TEST_F(vmm, many_mappings_of_one_allocation)
{
	int fd = self->dev.fd;
	const uint64_t n = 256;
	uint8_t *r = uvm_reserve(fd, n * G);
	uint64_t h, i;
	int err;

	ASSERT_NE(MAP_FAILED, r);
	ASSERT_EQ(0, uvm_mem_create(fd, G, UVM_LOC_GPU(0), 0, &h));
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, uvm_mem_map(fd, r + i * G, G, 0, h));
	ASSERT_EQ(0, uvm_mem_set_access(fd, r, n * G, UVM_LOC_GPU(0), UVM_MEM_PROT_READ_WRITE));
	ASSERT_EQ(0, gpu_write(fd, 0, r + 17 * G, G, 0x17));
	EXPECT_EQ(0, gpu_check_at(fd, 0, r + 200 * G, G, r + 17 * G, 0x17, &err));
	EXPECT_EQ(0, err);
	EXPECT_EQ(self->used0[0] + G, uvm_vidmem_used(fd, 0));
	EXPECT_EQ(0, uvm_mem_release(fd, h));
	EXPECT_EQ(0, uvm_mem_unmap(fd, r, n * G));
	(void)gpu_check(fd, 0, r, 8, 0, &err);
	EXPECT_EQ(-EREMOTEIO, err);
	EXPECT_EQ(self->used0[0], uvm_vidmem_used(fd, 0));
	munmap(r, n * G);
}

/* An exported file alone keeps the module loaded, and the memory */
TEST_F(vmm, rmmod_refused_while_exported)
{
	int fd2 = uvm_open(), sfd;
	uint64_t h;
	long ret;

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, uvm_mem_create(fd2, 2 * G, UVM_LOC_GPU(1), UVM_MEM_HANDLE_FD, &h));
	sfd = uvm_mem_export(fd2, h);
	ASSERT_LE(0, sfd);
	ASSERT_EQ(0, close(fd2));
	uvm_dev_teardown(&self->dev);

	/* No VA space is left: only the exported file holds the module. */
	ret = syscall(SYS_delete_module, "uvm", O_NONBLOCK);
	if (ret && errno == EPERM) {
		close(sfd);
		UVM_SKIP("no CAP_SYS_MODULE");
	}
	EXPECT_EQ(-1, ret);
	EXPECT_EQ(EWOULDBLOCK, errno);

	/* A new VA space imports it: the memory survived. */
	self->dev.fd = uvm_open();
	ASSERT_LE(0, self->dev.fd);
	ASSERT_EQ(0, uvm_mem_import(self->dev.fd, sfd, &h));
	EXPECT_EQ(self->used0[1] + 2 * G, uvm_vidmem_used(self->dev.fd, 1));
	EXPECT_EQ(0, close(sfd));
	EXPECT_EQ(0, uvm_mem_release(self->dev.fd, h));
	EXPECT_EQ(self->used0[1], uvm_vidmem_used(self->dev.fd, 1));
}

TEST_HARNESS_MAIN
