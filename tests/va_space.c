// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * va_space - /dev/uvm, its VA spaces and the ioctl dispatcher.
 *
 * Open and close; GET_VERSION, GPU_INFO and GET_COUNTERS answers; mm
 * isolation (fork children and passed descriptors get -EPERM and change
 * nothing); and bad input on every ioctl, production and test: unknown
 * numbers, wrong type or direction, short and long structures, NULL and wild
 * pointers, non-zero flags, pad and reserved fields, huge counts.
 */
#include <dirent.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "kselftest_harness.h"
#include "uvm_test_util.h"

FIXTURE(va_space) {
	struct uvm_dev dev;
};

FIXTURE_SETUP(va_space)
{
	uvm_dev_setup(&self->dev, 0, 0);
}

FIXTURE_TEARDOWN(va_space)
{
	uvm_dev_teardown(&self->dev);
}

/* Many opens at once each get a working VA space; every close succeeds */
TEST_F(va_space, open_close_many)
{
	struct uvm_ioc_version ver;
	int fds[64];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fds); i++) {
		fds[i] = uvm_open();
		ASSERT_LE(0, fds[i]);
	}
	for (i = 0; i < ARRAY_SIZE(fds); i++)
		ASSERT_EQ(0, uvm_get_version(fds[i], &ver));
	for (i = 0; i < ARRAY_SIZE(fds); i++)
		ASSERT_EQ(0, close(fds[i]));
}

/* GET_VERSION reports API 1.0, the CPU page size and only known caps */
TEST_F(va_space, version_fields)
{
	struct uvm_ioc_version *v = &self->dev.ver;

	ASSERT_EQ(UVM_API_VERSION_MAJOR, v->major);
	ASSERT_EQ(UVM_API_VERSION_MINOR, v->minor);
	ASSERT_EQ((uint32_t)sysconf(_SC_PAGESIZE), v->page_size);
	ASSERT_LE(1U, v->num_gpus);
	ASSERT_GE((uint32_t)UVM_MAX_GPUS, v->num_gpus);
	ASSERT_EQ(0ULL, v->caps & ~(UVM_CAP_TEST_IOCTLS | UVM_CAP_DEVICE_PRIVATE |
				    UVM_CAP_HMM_MIRROR | UVM_CAP_VMM | UVM_CAP_COPY_3D |
				    UVM_CAP_COPY_BATCH | UVM_CAP_FENCE_TIME));
	ASSERT_EQ(UVM_CAP_VMM, v->caps & UVM_CAP_VMM);
	ASSERT_EQ(UVM_CAP_FENCE_TIME, v->caps & UVM_CAP_FENCE_TIME);
	ASSERT_EQ(UVM_CAP_COPY_3D, v->caps & UVM_CAP_COPY_3D);
	ASSERT_EQ(UVM_CAP_COPY_BATCH, v->caps & UVM_CAP_COPY_BATCH);
	ASSERT_EQ(0ULL, v->reserved[0] | v->reserved[1] | v->reserved[2] | v->reserved[3]);
}

/* num_gpus equals the GPU directories in sysfs: gpu0..gpuN-1, no gpuN */
TEST_F(va_space, version_matches_sysfs)
{
	char path[128];
	uint32_t i;

	for (i = 0; i <= self->dev.num_gpus; i++) {
		snprintf(path, sizeof(path), UVM_SYSFS_GPU_FMT, i, "name");
		ASSERT_EQ(i < self->dev.num_gpus ? 0 : -1, access(path, R_OK))
			TH_LOG("%s", path);
	}
}

/* The module's version (modinfo, sysfs) is GET_VERSION's API version plus a patch level */
TEST_F(va_space, module_version_is_api_version)
{
	char buf[64] = "", want[32];
	FILE *f = fopen("/sys/module/uvm/version", "re");

	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, fgets(buf, sizeof(buf), f));
	fclose(f);
	snprintf(want, sizeof(want), "%u.%u.", self->dev.ver.major, self->dev.ver.minor);
	ASSERT_EQ(0, strncmp(buf, want, strlen(want))) TH_LOG("version %s", buf);
}

/* A sysfs parameter's value as text, newline dropped ("" when unreadable) */
static void param_read(const char *name, char *buf, size_t len)
{
	char path[128];
	FILE *f;

	buf[0] = 0;
	snprintf(path, sizeof(path), UVM_PARAM_DIR "%s", name);
	f = fopen(path, "re");
	if (!f)
		return;
	if (!fgets(buf, len, f))
		buf[0] = 0;
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
}

/*
 * Every numeric run-time parameter takes its bounds and refuses one past
 * each, a non-number and an empty value with EINVAL, keeping its value
 */
TEST(module_params_ranges)
{
	static const struct { const char *name; unsigned long min, max; } p[] = {
		{ "prefetch_threshold", 1, 100 },
		{ "fault_replay_policy", 1, 4 },
		{ "page_pool_mb", 0, 65536 },
		{ "thrashing_lapse_us", 1, 60000000 },
		{ "thrashing_threshold", 2, 255 },
		{ "thrashing_pin_ms", 1, 3600000 },
		{ "thrashing_nap_us", 0, 100000 },
		{ "access_counter_threshold", 1, 65536 },
		{ "fault_service_threads", 1, 16 },
		{ "fault_service_faults_per_thread", 1, 4096 },
	};
	char old[32], now[32], val[32];
	unsigned int i;

	if (access(UVM_PARAM_DIR "prefetch_threshold", W_OK))
		SKIP(return, "needs uvm.ko loaded and root");
	for (i = 0; i < sizeof(p) / sizeof(p[0]); i++) {
		param_read(p[i].name, old, sizeof(old));
		ASSERT_NE(0, old[0]) TH_LOG("%s", p[i].name);
		if (p[i].min) {
			snprintf(val, sizeof(val), "%lu", p[i].min - 1);
			ASSERT_EQ(-EINVAL, uvm_param_write(p[i].name, val)) TH_LOG("%s", p[i].name);
		}
		snprintf(val, sizeof(val), "%lu", p[i].max + 1);
		ASSERT_EQ(-EINVAL, uvm_param_write(p[i].name, val)) TH_LOG("%s", p[i].name);
		ASSERT_EQ(-EINVAL, uvm_param_write(p[i].name, "4294967296"));
		ASSERT_EQ(-EINVAL, uvm_param_write(p[i].name, "-1"));
		ASSERT_EQ(-EINVAL, uvm_param_write(p[i].name, "12x"));
		param_read(p[i].name, now, sizeof(now));
		ASSERT_STREQ(old, now) TH_LOG("%s changed by a refused write", p[i].name);

		snprintf(val, sizeof(val), "%lu", p[i].min);
		ASSERT_EQ(0, uvm_param_write(p[i].name, val)) TH_LOG("%s", p[i].name);
		param_read(p[i].name, now, sizeof(now));
		ASSERT_STREQ(val, now);
		snprintf(val, sizeof(val), "%lu", p[i].max);
		ASSERT_EQ(0, uvm_param_write(p[i].name, val)) TH_LOG("%s", p[i].name);
		param_read(p[i].name, now, sizeof(now));
		ASSERT_STREQ(val, now);
		ASSERT_EQ(0, uvm_param_write(p[i].name, old));
	}
}

/* GPU_INFO of each GPU: index kept, simulated, sane sizes, zero pad/reserved */
TEST_F(va_space, gpu_info_each)
{
	struct uvm_ioc_gpu_info info, first;
	uint32_t i;

	for (i = 0; i < self->dev.num_gpus; i++) {
		ASSERT_EQ(0, uvm_gpu_info(self->dev.fd, i, &info));
		ASSERT_EQ(i, info.gpu_index);
		ASSERT_EQ(UVM_GPU_SIMULATED, info.flags);
		ASSERT_LT(0ULL, info.vidmem_size);
		ASSERT_EQ(0ULL, info.vidmem_size % UVM_VA_BLOCK_SIZE);
		ASSERT_GE(info.vidmem_size, info.vidmem_used);
		ASSERT_EQ(0ULL, info.vidmem_used % UVM_VA_BLOCK_SIZE);
		ASSERT_LE(64U, info.fault_buffer_entries);
		ASSERT_EQ(0U, info.fault_buffer_entries & (info.fault_buffer_entries - 1));
		ASSERT_LE(1U, info.fault_batch_size);
		ASSERT_GE(4096U, info.fault_batch_size);
		ASSERT_EQ(1U, info.copy_engines);
		ASSERT_EQ(0U, info.pad);
		ASSERT_NE(0U, info.name[0]);
		ASSERT_EQ(0, info.name[sizeof(info.name) - 1]);
		ASSERT_EQ(0ULL, info.reserved[0] | info.reserved[1] |
				info.reserved[2] | info.reserved[3]);
		if (i == 0)
			first = info;
		else	/* UUIDs are unique */
			ASSERT_NE(0, memcmp(first.uuid, info.uuid, sizeof(info.uuid)));
	}
}

static int read_sysfs_gpu(uint32_t gpu, const char *attr, char *buf, size_t len)
{
	char path[128];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), UVM_SYSFS_GPU_FMT, gpu, attr);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = 0;
	return 0;
}

/* GPU_INFO and sysfs agree on name, vidmem size and fault buffer entries */
TEST_F(va_space, gpu_info_matches_sysfs)
{
	struct uvm_ioc_gpu_info info;
	char buf[128];
	uint32_t i;

	for (i = 0; i < self->dev.num_gpus; i++) {
		ASSERT_EQ(0, uvm_gpu_info(self->dev.fd, i, &info));
		ASSERT_EQ(0, read_sysfs_gpu(i, "name", buf, sizeof(buf)));
		ASSERT_STREQ(info.name, buf);
		ASSERT_EQ(0, read_sysfs_gpu(i, "vidmem_size", buf, sizeof(buf)));
		ASSERT_EQ(info.vidmem_size, strtoull(buf, NULL, 10));
		ASSERT_EQ(0, read_sysfs_gpu(i, "fault_buffer_entries", buf, sizeof(buf)));
		ASSERT_EQ(info.fault_buffer_entries, strtoul(buf, NULL, 10));
	}
}

/* GPU_INFO of an index past the last GPU is -ENODEV */
TEST_F(va_space, gpu_info_bad_index)
{
	struct uvm_ioc_gpu_info info;

	ASSERT_EQ(-ENODEV, uvm_gpu_info(self->dev.fd, self->dev.num_gpus, &info));
	ASSERT_EQ(-ENODEV, uvm_gpu_info(self->dev.fd, UVM_MAX_GPUS, &info));
	ASSERT_EQ(-ENODEV, uvm_gpu_info(self->dev.fd, UINT32_MAX, &info));
}

/* A new VA space has every counter at zero and reports UVM_COUNTER_COUNT */
TEST_F(va_space, counters_fresh_zero)
{
	struct uvm_ioc_get_counters args;
	uint64_t c[UVM_COUNTER_COUNT];
	unsigned int i;

	memset(c, 0xa5, sizeof(c));
	args = (struct uvm_ioc_get_counters){ .counters_ptr = (uintptr_t)c,
					      .count = UVM_COUNTER_COUNT };
	ASSERT_EQ(0, uvm_ioctl(self->dev.fd, UVM_IOC_GET_COUNTERS, &args));
	ASSERT_EQ((uint32_t)UVM_COUNTER_COUNT, args.count);
	for (i = 0; i < UVM_COUNTER_COUNT; i++)
		ASSERT_EQ(0ULL, c[i]) TH_LOG("%s", uvm_counter_name(i));
}

/* count in: entries provided (0 with NULL is fine); count out: entries known */
TEST_F(va_space, counters_count_semantics)
{
	const uint64_t sentinel = 0x5a5a5a5a5a5a5a5aULL;
	struct uvm_ioc_get_counters args = {};
	uint64_t c[100];
	unsigned int i;

	ASSERT_EQ(0, uvm_ioctl(self->dev.fd, UVM_IOC_GET_COUNTERS, &args));
	ASSERT_EQ((uint32_t)UVM_COUNTER_COUNT, args.count);

	/* Fewer than known: exactly that many written. */
	for (i = 0; i < ARRAY_SIZE(c); i++)
		c[i] = sentinel;
	args = (struct uvm_ioc_get_counters){ .counters_ptr = (uintptr_t)c, .count = 3 };
	ASSERT_EQ(0, uvm_ioctl(self->dev.fd, UVM_IOC_GET_COUNTERS, &args));
	ASSERT_EQ((uint32_t)UVM_COUNTER_COUNT, args.count);
	for (i = 0; i < ARRAY_SIZE(c); i++)
		ASSERT_EQ(i < 3 ? 0ULL : sentinel, c[i]) TH_LOG("entry %u", i);

	/* More than known: the known ones written, the rest untouched. */
	for (i = 0; i < ARRAY_SIZE(c); i++)
		c[i] = sentinel;
	args = (struct uvm_ioc_get_counters){ .counters_ptr = (uintptr_t)c,
					      .count = ARRAY_SIZE(c) };
	ASSERT_EQ(0, uvm_ioctl(self->dev.fd, UVM_IOC_GET_COUNTERS, &args));
	ASSERT_EQ((uint32_t)UVM_COUNTER_COUNT, args.count);
	for (i = 0; i < ARRAY_SIZE(c); i++)
		ASSERT_EQ(i < UVM_COUNTER_COUNT ? 0ULL : sentinel, c[i]) TH_LOG("entry %u", i);
}

/* A count of UINT32_MAX is clamped to the known counters, not trusted */
TEST_F(va_space, counters_huge_count)
{
	uint64_t *c;
	struct uvm_ioc_get_counters args;
	long ps = (long)self->dev.page_size;
	uint8_t *map;

	/* The buffer ends where a PROT_NONE page begins. */
	map = mmap(NULL, 2 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, map);
	ASSERT_EQ(0, mprotect(map + ps, ps, PROT_NONE));
	c = (uint64_t *)(map + ps) - UVM_COUNTER_COUNT;
	args = (struct uvm_ioc_get_counters){ .counters_ptr = (uintptr_t)c,
					      .count = UINT32_MAX };
	ASSERT_EQ(0, uvm_ioctl(self->dev.fd, UVM_IOC_GET_COUNTERS, &args));
	ASSERT_EQ((uint32_t)UVM_COUNTER_COUNT, args.count);
	munmap(map, 2 * ps);
}

/* GET_COUNTERS with NULL, wild or too short counter arrays is -EFAULT */
TEST_F(va_space, counters_bad_array)
{
	struct uvm_ioc_get_counters args;
	long ps = (long)self->dev.page_size;
	uint8_t *map;

	args = (struct uvm_ioc_get_counters){ .counters_ptr = 0, .count = 1 };
	ASSERT_EQ(-EFAULT, uvm_ioctl(self->dev.fd, UVM_IOC_GET_COUNTERS, &args));
	args.counters_ptr = (uintptr_t)uvm_unmapped_address(ps);
	ASSERT_EQ(-EFAULT, uvm_ioctl(self->dev.fd, UVM_IOC_GET_COUNTERS, &args));
	args.counters_ptr = 0xffff888000000000ULL;	/* kernel address */
	ASSERT_EQ(-EFAULT, uvm_ioctl(self->dev.fd, UVM_IOC_GET_COUNTERS, &args));

	/* Room for 2 entries before a PROT_NONE page, 3 asked. */
	map = mmap(NULL, 2 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, map);
	ASSERT_EQ(0, mprotect(map + ps, ps, PROT_NONE));
	args = (struct uvm_ioc_get_counters){
		.counters_ptr = (uintptr_t)(map + ps - 16), .count = 3 };
	ASSERT_EQ(-EFAULT, uvm_ioctl(self->dev.fd, UVM_IOC_GET_COUNTERS, &args));
	args.count = 2;
	ASSERT_EQ(0, uvm_ioctl(self->dev.fd, UVM_IOC_GET_COUNTERS, &args));
	munmap(map, 2 * ps);
}

/* GET_COUNTERS with any flag bit set is -EINVAL */
TEST_F(va_space, counters_flags)
{
	uint64_t c[UVM_COUNTER_COUNT];
	struct uvm_ioc_get_counters args = { .counters_ptr = (uintptr_t)c,
					     .count = UVM_COUNTER_COUNT };
	unsigned int bit;

	for (bit = 0; bit < 32; bit += 31) {
		args.flags = 1U << bit;
		ASSERT_EQ(-EINVAL, uvm_ioctl(self->dev.fd, UVM_IOC_GET_COUNTERS, &args));
	}
}

/* Command numbers no table knows, in both ranges, are -ENOTTY */
TEST_F(va_space, unknown_command)
{
	uint8_t buf[256] = {};
	static const unsigned int nrs[] = { 0x19, 0x20, 0x7f, 0x83, 0xbf, 0xc0, 0xff };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(nrs); i++) {
		ASSERT_EQ(-ENOTTY, uvm_ioctl(self->dev.fd,
					     _IOWR(UVM_IOC_MAGIC, nrs[i], struct uvm_ioc_version),
					     buf)) TH_LOG("nr %#x", nrs[i]);
		ASSERT_EQ(-ENOTTY, uvm_ioctl(self->dev.fd, _IO(UVM_IOC_MAGIC, nrs[i]), NULL));
	}
	/* Not ours at all: a terminal ioctl. */
	ASSERT_EQ(-ENOTTY, uvm_ioctl(self->dev.fd, TCGETS, buf));
}

/* Two opens in one process are separate VA spaces: state and counters apart */
TEST_F(va_space, va_spaces_independent)
{
	struct uvm_counters ca, cb;
	struct uvm_test_page_state st;
	struct uvm_dev other = { .fd = uvm_open() };
	volatile uint8_t *p;

	if (!(self->dev.ver.caps & UVM_CAP_TEST_IOCTLS))
		UVM_SKIP("needs the test ioctls");
	ASSERT_LE(0, other.fd);
	other.page_size = self->dev.page_size;

	p = uvm_mmap(&self->dev, self->dev.page_size);
	ASSERT_NE(MAP_FAILED, p);
	p[0] = 7;
	ASSERT_EQ(0, uvm_counters(self->dev.fd, &ca));
	ASSERT_EQ(0, uvm_counters(other.fd, &cb));
	ASSERT_EQ(1ULL, ca.c[UVM_COUNTER_CPU_FAULTS]);
	ASSERT_EQ(1ULL, ca.c[UVM_COUNTER_PAGES_POPULATED_CPU]);
	ASSERT_EQ(0ULL, cb.c[UVM_COUNTER_CPU_FAULTS]);
	ASSERT_EQ(0ULL, cb.c[UVM_COUNTER_PAGES_POPULATED_CPU]);
	/* The page is managed by the first VA space only. */
	ASSERT_EQ(0, uvm_residency(other.fd, (void *)p, self->dev.page_size, &st));
	ASSERT_EQ(0ULL, st.resident | st.mapped_read | st.mapped_write | st.mapped_atomic);
	ASSERT_RESIDENCY(&self->dev, (void *)p, 1, UVM_STATE_CPU);
	munmap((void *)p, self->dev.page_size);
	close(other.fd);
}

/* What a fork child gets on the inherited descriptor */
static int fork_child_ops(void *arg)
{
	struct uvm_dev *dev = arg;
	struct uvm_ioc_version ver;
	struct uvm_counters c;
	void *p;

	if (uvm_get_version(dev->fd, &ver) != -EPERM)
		return 1;
	if (uvm_counters(dev->fd, &c) != -EPERM)
		return 2;
	p = uvm_mmap(dev, dev->page_size);
	if (p != MAP_FAILED || errno != EPERM)
		return 3;
	return 0;
}

/* A fork child's ioctls and mmaps on the inherited fd are -EPERM, parent intact */
TEST_F(va_space, fork_child_eperm)
{
	struct uvm_counters before, after;
	uint8_t *p;

	p = uvm_mmap(&self->dev, self->dev.page_size);
	ASSERT_NE(MAP_FAILED, p);
	p[0] = 0x42;
	ASSERT_EQ(0, uvm_counters(self->dev.fd, &before));
	ASSERT_EQ(0, uvm_run_child(fork_child_ops, &self->dev));
	ASSERT_EQ(0, uvm_counters(self->dev.fd, &after));
	ASSERT_EQ(0, memcmp(&before, &after, sizeof(before)));
	ASSERT_EQ(0x42, p[0]);
	ASSERT_EQ(0, munmap(p, self->dev.page_size));
}

/* The child opens /dev/uvm, sends the fd, waits for the parent's go, exits */
static int opener_child(void *arg)
{
	int *sv = arg;
	int fd = uvm_open();
	char go;

	if (fd < 0 || uvm_send_fd(sv[1], fd))
		return 1;
	if (read(sv[1], &go, 1) != 1)
		return 2;
	return 0;
}

/*
 * An fd passed over a unix socket from its opener is -EPERM for ioctl and
 * mmap, before and after the opener exits; closing it is fine
 */
TEST_F(va_space, passed_fd_eperm)
{
	struct uvm_dev passed = { .page_size = self->dev.page_size };
	struct uvm_ioc_version ver;
	struct uvm_counters c;
	int sv[2];
	pid_t pid;

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
	fflush(NULL);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(opener_child(sv));
	passed.fd = uvm_recv_fd(sv[0]);
	ASSERT_LE(0, passed.fd);

	ASSERT_EQ(-EPERM, uvm_get_version(passed.fd, &ver));
	ASSERT_EQ(-EPERM, uvm_counters(passed.fd, &c));
	ASSERT_EQ(MAP_FAILED, uvm_mmap(&passed, passed.page_size));
	ASSERT_EQ(EPERM, errno);

	/* Let the opener exit; the descriptor outlives its mm. */
	ASSERT_EQ(1, write(sv[0], "g", 1));
	ASSERT_EQ(0, uvm_wait_child(pid));
	ASSERT_EQ(-EPERM, uvm_get_version(passed.fd, &ver));
	ASSERT_EQ(MAP_FAILED, uvm_mmap(&passed, passed.page_size));
	ASSERT_EQ(EPERM, errno);
	ASSERT_EQ(0, close(passed.fd));

	/* Our own VA space never noticed. */
	ASSERT_EQ(0, uvm_get_version(self->dev.fd, &ver));
	ASSERT_EQ(0, uvm_counters(self->dev.fd, &c));
	ASSERT_EQ(0ULL, c.c[UVM_COUNTER_CPU_FAULTS]);
	close(sv[0]);
	close(sv[1]);
}

/*
 * Bad input on every ioctl.  Each variant names one command and knows how
 * to build valid arguments for it; every test then breaks one thing.
 */

/**
 * struct ioctl_args - valid arguments of one command, with room around them
 * @buf:	the structure, followed by bytes that a "larger" caller sends
 * @op:		LAUNCH: the one op
 * @data:	LAUNCH: its data buffer
 * @states:	RESIDENCY: the output array
 * @managed:	the managed page the command works on, or NULL
 * @reservation: a 2 MiB VMM reservation the command works on, or NULL
 * @counters:	GET_COUNTERS: the output array
 */
struct ioctl_args {
	uint8_t buf[512];
	struct uvm_test_gpu_op op;
	uint64_t data[8];
	struct uvm_test_page_state states[1];
	void *managed;
	void *reservation;
	uint64_t counters[UVM_COUNTER_COUNT];
};

FIXTURE(ioctl) {
	struct uvm_dev dev;
	struct ioctl_args a;
};

FIXTURE_VARIANT(ioctl) {
	unsigned long cmd;
	bool test_ioctl;		/* needs UVM_CAP_TEST_IOCTLS */
	void (*fill)(struct uvm_dev *dev, struct ioctl_args *a);
	unsigned int zero_fields[4];	/* offsets of must-be-zero u32s, 0 ends */
	bool needs_gpu;			/* skip without a GPU */
};

static void fill_version(struct uvm_dev *dev, struct ioctl_args *a)
{
	(void)dev;
	(void)a;
}

static void fill_gpu_info(struct uvm_dev *dev, struct ioctl_args *a)
{
	struct uvm_ioc_gpu_info *info = (void *)a->buf;

	info->gpu_index = dev->num_gpus - 1;
}

static void fill_counters(struct uvm_dev *dev, struct ioctl_args *a)
{
	struct uvm_ioc_get_counters *args = (void *)a->buf;

	(void)dev;
	args->counters_ptr = (uintptr_t)a->counters;
	args->count = UVM_COUNTER_COUNT;
}

static void fill_launch(struct uvm_dev *dev, struct ioctl_args *a)
{
	struct uvm_test_launch *l = (void *)a->buf;

	a->managed = uvm_mmap(dev, dev->page_size);
	if (a->managed == MAP_FAILED)
		return;
	a->op = uvm_op_read(a->managed, sizeof(a->data), 8, a->data);
	l->gpu_index = 0;
	l->num_warps = 1;
	l->ops_ptr = (uintptr_t)&a->op;
	l->num_ops = 1;
}

static void fill_queue_gate(struct uvm_dev *dev, struct ioctl_args *a)
{
	(void)dev;
	((struct uvm_test_queue_gate *)a->buf)->op = UVM_TEST_GATE_OPEN;
}

static void fill_residency(struct uvm_dev *dev, struct ioctl_args *a)
{
	struct uvm_test_residency *r = (void *)a->buf;

	a->managed = uvm_mmap(dev, dev->page_size);
	if (a->managed == MAP_FAILED)
		return;
	r->address = (uintptr_t)a->managed;
	r->length = dev->page_size;
	r->states_ptr = (uintptr_t)a->states;
}

/* VMM (API 1.3): a 2 MiB allocation of GPU 0, exportable; 0 on failure. */
static uint64_t vmm_create(struct uvm_dev *dev)
{
	struct uvm_ioc_mem_create c = { .size = UVM_MEM_GRANULARITY,
					.location = UVM_LOC_GPU(0),
					.handle_types = UVM_MEM_HANDLE_FD };

	return uvm_ioctl(dev->fd, UVM_IOC_MEM_CREATE, &c) ? 0 : c.handle;
}

/* A reservation with the allocation mapped in it, in @a; NULL on failure. */
static void *vmm_mapped(struct uvm_dev *dev, struct ioctl_args *a)
{
	struct uvm_ioc_mem_map m = { .size = UVM_MEM_GRANULARITY,
				     .handle = vmm_create(dev) };

	a->reservation = uvm_map_skewed(UVM_MEM_GRANULARITY, 0, PROT_READ | PROT_WRITE,
					MAP_SHARED, dev->fd, UVM_MMAP_RESERVE);
	if (a->reservation == MAP_FAILED) {
		a->reservation = NULL;
		return NULL;
	}
	m.address = (uintptr_t)a->reservation;
	return uvm_ioctl(dev->fd, UVM_IOC_MEM_MAP, &m) ? NULL : a->reservation;
}

static void fill_mem_create(struct uvm_dev *dev, struct ioctl_args *a)
{
	struct uvm_ioc_mem_create *c = (void *)a->buf;

	(void)dev;
	c->size = UVM_MEM_GRANULARITY;
	c->location = UVM_LOC_GPU(0);
}

static void fill_mem_props(struct uvm_dev *dev, struct ioctl_args *a)
{
	((struct uvm_ioc_mem_props *)a->buf)->handle = vmm_create(dev);
}

static void fill_mem_export(struct uvm_dev *dev, struct ioctl_args *a)
{
	struct uvm_ioc_mem_export *e = (void *)a->buf;

	e->handle = vmm_create(dev);
	e->handle_type = UVM_MEM_HANDLE_FD;
}

static void fill_mem_import(struct uvm_dev *dev, struct ioctl_args *a)
{
	struct uvm_ioc_mem_export e = { .handle = vmm_create(dev),
					.handle_type = UVM_MEM_HANDLE_FD };

	((struct uvm_ioc_mem_import *)a->buf)->fd =
		uvm_ioctl(dev->fd, UVM_IOC_MEM_EXPORT, &e) ? -1 : e.fd;
}

static void fill_mem_set_access(struct uvm_dev *dev, struct ioctl_args *a)
{
	struct uvm_ioc_mem_set_access *s = (void *)a->buf;
	struct uvm_mem_access *d = (void *)a->data;

	s->address = (uintptr_t)vmm_mapped(dev, a);
	s->size = UVM_MEM_GRANULARITY;
	*d = (struct uvm_mem_access){ .location = UVM_LOC_GPU(0),
				      .prot = UVM_MEM_PROT_READ_WRITE };
	s->descs_ptr = (uintptr_t)d;
	s->count = 1;
}

static void fill_mem_query(struct uvm_dev *dev, struct ioctl_args *a)
{
	((struct uvm_ioc_mem_query *)a->buf)->address = (uintptr_t)vmm_mapped(dev, a);
}

FIXTURE_VARIANT_ADD(ioctl, get_version) {
	.cmd = UVM_IOC_GET_VERSION,
	.fill = fill_version,
	.zero_fields = { 24, 36, 52 },	/* reserved[0], [1] high, [3] high */
};

FIXTURE_VARIANT_ADD(ioctl, gpu_info) {
	.cmd = UVM_IOC_GPU_INFO,
	.fill = fill_gpu_info,
	.zero_fields = { 36, 120, 148 },	/* pad, reserved[0], reserved[3] high */
};

FIXTURE_VARIANT_ADD(ioctl, get_counters) {
	.cmd = UVM_IOC_GET_COUNTERS,
	.fill = fill_counters,
	.zero_fields = { 12 },			/* flags */
};

FIXTURE_VARIANT_ADD(ioctl, launch) {
	.cmd = UVM_TEST_IOC_LAUNCH,
	.test_ioctl = true,
	.fill = fill_launch,
	.zero_fields = { 20, 48, 76 },		/* flags, reserved[0], reserved[3] high */
};

FIXTURE_VARIANT_ADD(ioctl, residency) {
	.cmd = UVM_TEST_IOC_RESIDENCY,
	.test_ioctl = true,
	.fill = fill_residency,
	/* pad; flags has UVM_TEST_RESIDENCY_PAGEABLE (unknown flags: hmm.c) */
	.zero_fields = { 28 },
};

FIXTURE_VARIANT_ADD(ioctl, queue_gate) {
	.cmd = UVM_TEST_IOC_QUEUE_GATE,
	.test_ioctl = true,
	.fill = fill_queue_gate,
	.zero_fields = { 4, 16, 28 },		/* flags (OPEN), reserved[0], [1] high */
};

FIXTURE_VARIANT_ADD(ioctl, mem_create) {
	.cmd = UVM_IOC_MEM_CREATE,
	.fill = fill_mem_create,
	.zero_fields = { 20, 32, 44 },		/* flags, reserved[0], reserved[1] high */
	.needs_gpu = true,
};

FIXTURE_VARIANT_ADD(ioctl, mem_props) {
	.cmd = UVM_IOC_MEM_PROPS,
	.fill = fill_mem_props,
	.zero_fields = { 28, 40, 52 },		/* flags, reserved[0], reserved[1] high */
	.needs_gpu = true,
};

FIXTURE_VARIANT_ADD(ioctl, mem_export) {
	.cmd = UVM_IOC_MEM_EXPORT,
	.fill = fill_mem_export,
	.zero_fields = { 12, 20, 24 },		/* flags, pad, reserved[0] */
	.needs_gpu = true,
};

FIXTURE_VARIANT_ADD(ioctl, mem_import) {
	.cmd = UVM_IOC_MEM_IMPORT,
	.fill = fill_mem_import,
	.zero_fields = { 4, 16, 28 },		/* flags, reserved[0], reserved[1] high */
	.needs_gpu = true,
};

FIXTURE_VARIANT_ADD(ioctl, mem_set_access) {
	.cmd = UVM_IOC_MEM_SET_ACCESS,
	.fill = fill_mem_set_access,
	.zero_fields = { 28, 36, 40 },		/* flags, pad, reserved[0] */
	.needs_gpu = true,
};

FIXTURE_VARIANT_ADD(ioctl, mem_query) {
	.cmd = UVM_IOC_MEM_QUERY,
	.fill = fill_mem_query,
	/* pad, pad2, reserved[0]; flags has UVM_MEM_QUERY_RETAIN (vmm.c) */
	.zero_fields = { 12, 84, 120 },
	.needs_gpu = true,
};

FIXTURE_SETUP(ioctl)
{
	uvm_dev_setup(&self->dev, variant->test_ioctl ? UVM_NEED_TEST_IOCTLS : 0,
		      variant->test_ioctl ? 1 : 0);
	if (!variant->test_ioctl && (variant->fill == fill_gpu_info || variant->needs_gpu) &&
	    !self->dev.num_gpus)
		UVM_SKIP("no GPU");
	variant->fill(&self->dev, &self->a);
	ASSERT_NE(MAP_FAILED, self->a.managed);
}

FIXTURE_TEARDOWN(ioctl)
{
	if (self->a.managed && self->a.managed != MAP_FAILED)
		munmap(self->a.managed, self->dev.page_size);
	if (self->a.reservation)
		munmap(self->a.reservation, UVM_MEM_GRANULARITY);
	uvm_dev_teardown(&self->dev);
}

static size_t cmd_size(unsigned long cmd)
{
	return _IOC_SIZE(cmd);
}

/* The command with a different size encoded. */
static unsigned long cmd_resize(unsigned long cmd, size_t size)
{
	return _IOC(_IOC_DIR(cmd), _IOC_TYPE(cmd), _IOC_NR(cmd), size);
}

/* The valid arguments are accepted (the baseline of the other tests) */
TEST_F(ioctl, valid)
{
	ASSERT_EQ(0, uvm_ioctl(self->dev.fd, variant->cmd, self->a.buf));
}

/* A structure shorter than the module's is -EINVAL */
TEST_F(ioctl, short_struct)
{
	size_t size = cmd_size(variant->cmd);

	ASSERT_EQ(-EINVAL, uvm_ioctl(self->dev.fd, cmd_resize(variant->cmd, size - 8),
				     self->a.buf));
	ASSERT_EQ(-EINVAL, uvm_ioctl(self->dev.fd, cmd_resize(variant->cmd, 8), self->a.buf));
	ASSERT_EQ(-EINVAL, uvm_ioctl(self->dev.fd, cmd_resize(variant->cmd, 0), self->a.buf));
}

/* A larger structure whose extra bytes are zero is accepted; the tail is untouched */
TEST_F(ioctl, long_struct_zero_tail)
{
	size_t size = cmd_size(variant->cmd);

	ASSERT_EQ(0, uvm_ioctl(self->dev.fd, cmd_resize(variant->cmd, size + 64),
			       self->a.buf));
	ASSERT_EQ(-1, uvm_nonzero_at(self->a.buf + size, 64));
	/* The answer is the same as with the exact size. */
	if (variant->cmd == UVM_IOC_GET_VERSION)
		ASSERT_EQ(0, memcmp(self->a.buf, &self->dev.ver, sizeof(self->dev.ver)));
}

/* A larger structure with a non-zero extra byte is -E2BIG and does nothing */
TEST_F(ioctl, long_struct_nonzero_tail)
{
	size_t size = cmd_size(variant->cmd);
	struct uvm_counters before, after;

	ASSERT_EQ(0, uvm_counters(self->dev.fd, &before));
	self->a.buf[size + 63] = 1;
	ASSERT_EQ(-E2BIG, uvm_ioctl(self->dev.fd, cmd_resize(variant->cmd, size + 64),
				    self->a.buf));
	self->a.buf[size + 63] = 0;
	self->a.buf[size] = 0x80;
	ASSERT_EQ(-E2BIG, uvm_ioctl(self->dev.fd, cmd_resize(variant->cmd, size + 8),
				    self->a.buf));
	ASSERT_EQ(0, uvm_counters(self->dev.fd, &after));
	ASSERT_EQ(0, memcmp(&before, &after, sizeof(before)));
}

/* A larger structure whose tail runs into an unreadable page is -EFAULT */
TEST_F(ioctl, long_struct_tail_unreadable)
{
	size_t size = cmd_size(variant->cmd);
	long ps = (long)self->dev.page_size;
	uint8_t *map, *args;

	map = mmap(NULL, 2 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, map);
	ASSERT_EQ(0, mprotect(map + ps, ps, PROT_NONE));
	args = map + ps - size;
	memcpy(args, self->a.buf, size);
	ASSERT_EQ(-EFAULT, uvm_ioctl(self->dev.fd, cmd_resize(variant->cmd, size + 8), args));
	/* The exact size at the same place works. */
	ASSERT_EQ(0, uvm_ioctl(self->dev.fd, variant->cmd, args));
	munmap(map, 2 * ps);
}

/* NULL, unmapped and kernel argument pointers are -EFAULT */
TEST_F(ioctl, bad_arg_pointer)
{
	ASSERT_EQ(-EFAULT, uvm_ioctl(self->dev.fd, variant->cmd, NULL));
	ASSERT_EQ(-EFAULT, uvm_ioctl(self->dev.fd, variant->cmd,
				     uvm_unmapped_address(self->dev.page_size)));
	ASSERT_EQ(-EFAULT, uvm_ioctl(self->dev.fd, variant->cmd,
				     (void *)0xffff888000000000ULL));
	ASSERT_EQ(-EFAULT, uvm_ioctl(self->dev.fd, variant->cmd, (void *)-1L));
}

/* A read-only argument structure is -EFAULT: every command writes it back */
TEST_F(ioctl, readonly_arg)
{
	long ps = (long)self->dev.page_size;
	uint8_t *map;

	map = mmap(NULL, ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, map);
	memcpy(map, self->a.buf, cmd_size(variant->cmd));
	ASSERT_EQ(0, mprotect(map, ps, PROT_READ));
	ASSERT_EQ(-EFAULT, uvm_ioctl(self->dev.fd, variant->cmd, map));
	munmap(map, ps);
}

/* Each flags, pad or reserved field with a bit set is -EINVAL */
TEST_F(ioctl, nonzero_must_be_zero_fields)
{
	unsigned int i, off;
	uint32_t saved;

	for (i = 0; i < ARRAY_SIZE(variant->zero_fields); i++) {
		off = variant->zero_fields[i];
		if (!off)
			break;
		memcpy(&saved, self->a.buf + off, 4);
		memcpy(self->a.buf + off, &(uint32_t){ 0x80000000U }, 4);
		ASSERT_EQ(-EINVAL, uvm_ioctl(self->dev.fd, variant->cmd, self->a.buf))
			TH_LOG("field at offset %u", off);
		memcpy(self->a.buf + off, &(uint32_t){ 1 }, 4);
		ASSERT_EQ(-EINVAL, uvm_ioctl(self->dev.fd, variant->cmd, self->a.buf))
			TH_LOG("field at offset %u", off);
		memcpy(self->a.buf + off, &saved, 4);
	}
	ASSERT_EQ(0, uvm_ioctl(self->dev.fd, variant->cmd, self->a.buf));
}

/* The right number with another direction (_IOR, _IOW, _IO) is -ENOTTY */
TEST_F(ioctl, wrong_direction)
{
	unsigned long cmd = variant->cmd;
	size_t size = cmd_size(cmd);

	ASSERT_EQ(-ENOTTY, uvm_ioctl(self->dev.fd,
				     _IOC(_IOC_READ, _IOC_TYPE(cmd), _IOC_NR(cmd), size),
				     self->a.buf));
	ASSERT_EQ(-ENOTTY, uvm_ioctl(self->dev.fd,
				     _IOC(_IOC_WRITE, _IOC_TYPE(cmd), _IOC_NR(cmd), size),
				     self->a.buf));
	ASSERT_EQ(-ENOTTY, uvm_ioctl(self->dev.fd,
				     _IOC(_IOC_NONE, _IOC_TYPE(cmd), _IOC_NR(cmd), 0),
				     self->a.buf));
}

/* The right number and size with another type (magic) byte is -ENOTTY */
TEST_F(ioctl, wrong_type)
{
	unsigned long cmd = variant->cmd;
	static const unsigned int types[] = { 0x00, 'U', UVM_IOC_MAGIC + 1, 0xff };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(types); i++)
		ASSERT_EQ(-ENOTTY, uvm_ioctl(self->dev.fd,
					     _IOC(_IOC_DIR(cmd), types[i], _IOC_NR(cmd),
						  _IOC_SIZE(cmd)), self->a.buf))
			TH_LOG("type %#x", types[i]);
}

static int child_ioctl(void *arg)
{
	struct {
		int fd;
		unsigned long cmd;
		void *buf;
	} *c = arg;

	return -uvm_ioctl(c->fd, c->cmd, c->buf);
}

/* From a fork child, valid arguments are -EPERM and the parent sees no change */
TEST_F(ioctl, from_fork_child)
{
	struct { int fd; unsigned long cmd; void *buf; } c = {
		self->dev.fd, variant->cmd, self->a.buf };
	struct uvm_counters before, after;

	ASSERT_EQ(0, uvm_counters(self->dev.fd, &before));
	ASSERT_EQ(EPERM, uvm_run_child(child_ioctl, &c));
	ASSERT_EQ(0, uvm_counters(self->dev.fd, &after));
	ASSERT_EQ(0, memcmp(&before, &after, sizeof(before)));
	ASSERT_EQ(0, uvm_ioctl(self->dev.fd, variant->cmd, self->a.buf));
}

/* UVM_TEST_IOC_RESIDENCY's own rules: ranges, limits, output array */
FIXTURE(residency) {
	struct uvm_dev dev;
	uint64_t ps;
	uint8_t *p;		/* 4 managed pages, CPU-resident */
};

FIXTURE_SETUP(residency)
{
	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, 0);
	self->ps = self->dev.page_size;
	self->p = uvm_mmap(&self->dev, 4 * self->ps);
	ASSERT_NE(MAP_FAILED, self->p);
	memset(self->p, 1, 4 * self->ps);
}

FIXTURE_TEARDOWN(residency)
{
	uvm_dev_teardown(&self->dev);
}

static int residency_raw(int fd, uint64_t addr, uint64_t len, void *states)
{
	struct uvm_test_residency args = {
		.address = addr, .length = len, .states_ptr = (uintptr_t)states,
	};

	return uvm_ioctl(fd, UVM_TEST_IOC_RESIDENCY, &args);
}

/* Unaligned, empty, wrapping and too long ranges are refused */
TEST_F(residency, bad_ranges)
{
	struct uvm_test_page_state st[2];
	uint64_t a = (uintptr_t)self->p;

	ASSERT_EQ(-EINVAL, residency_raw(self->dev.fd, a + 1, self->ps, st));
	ASSERT_EQ(-EINVAL, residency_raw(self->dev.fd, a + 8, self->ps, st));
	ASSERT_EQ(-EINVAL, residency_raw(self->dev.fd, a, self->ps + 1, st));
	ASSERT_EQ(-EINVAL, residency_raw(self->dev.fd, a, 0, st));
	ASSERT_EQ(-EINVAL, residency_raw(self->dev.fd, -2 * self->ps, 3 * self->ps, st));
	ASSERT_EQ(-EINVAL, residency_raw(self->dev.fd, -self->ps, 2 * self->ps, st));
	ASSERT_EQ(-E2BIG, residency_raw(self->dev.fd, a,
					 (UVM_TEST_RESIDENCY_MAX_PAGES + 1ULL) * self->ps, st));
	ASSERT_EQ(-E2BIG, residency_raw(self->dev.fd, a, -self->ps - a, st));
}

/* The largest query: 65536 pages around the range, only its 4 pages report state */
TEST_F(residency, max_pages)
{
	uint64_t n = UVM_TEST_RESIDENCY_MAX_PAGES, i, first;
	struct uvm_test_page_state *st = calloc(n, sizeof(*st));
	uint64_t start;

	ASSERT_NE(NULL, st);
	first = n / 2;
	start = (uintptr_t)self->p - first * self->ps;
	memset(st, 0xff, n * sizeof(*st));
	ASSERT_EQ(0, residency_raw(self->dev.fd, start, n * self->ps, st));
	for (i = 0; i < n; i++) {
		uint64_t want = i >= first && i < first + 4 ? UVM_CPU_BIT : 0;

		ASSERT_EQ(want, st[i].resident) TH_LOG("page %llu", (unsigned long long)i);
		ASSERT_EQ(want, st[i].mapped_read) TH_LOG("page %llu", (unsigned long long)i);
		ASSERT_EQ(0ULL, st[i].mapped_atomic);
	}
	free(st);
}

/* A NULL or too short output array is -EFAULT */
TEST_F(residency, bad_states_array)
{
	long ps = (long)self->ps;
	uint8_t *map;

	ASSERT_EQ(-EFAULT, residency_raw(self->dev.fd, (uintptr_t)self->p, self->ps, NULL));
	ASSERT_EQ(-EFAULT, residency_raw(self->dev.fd, (uintptr_t)self->p, self->ps,
					 (void *)0xffff888000000000ULL));
	map = mmap(NULL, 2 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, map);
	ASSERT_EQ(0, mprotect(map + ps, ps, PROT_NONE));
	/* Room for 3 states before the PROT_NONE page, 4 asked. */
	ASSERT_EQ(-EFAULT, residency_raw(self->dev.fd, (uintptr_t)self->p, 4 * self->ps,
					 map + ps - 3 * sizeof(struct uvm_test_page_state)));
	ASSERT_EQ(0, residency_raw(self->dev.fd, (uintptr_t)self->p, 3 * self->ps,
				   map + ps - 3 * sizeof(struct uvm_test_page_state)));
	munmap(map, 2 * ps);
}

/* Memory that is not managed (anonymous, kernel addresses) reports all-zero state */
TEST_F(residency, unmanaged_is_zero)
{
	struct uvm_test_page_state st[4];
	uint8_t *anon = mmap(NULL, 4 * self->ps, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT_NE(MAP_FAILED, anon);
	memset(anon, 1, 4 * self->ps);
	memset(st, 0xff, sizeof(st));
	ASSERT_EQ(0, residency_raw(self->dev.fd, (uintptr_t)anon, 4 * self->ps, st));
	ASSERT_EQ(-1, uvm_nonzero_at(st, sizeof(st)));
	memset(st, 0xff, sizeof(st));
	ASSERT_EQ(0, residency_raw(self->dev.fd, 0xffff888000000000ULL, 4 * self->ps, st));
	ASSERT_EQ(-1, uvm_nonzero_at(st, sizeof(st)));
	munmap(anon, 4 * self->ps);
}

/*
 * Queries that end at the very top of the 64-bit space.  Run in a child
 * with a deadline: a kernel that loops there must not take the suite down.
 */
static int residency_top_child(void *arg)
{
	uint64_t ps = *(uint64_t *)arg;
	struct uvm_test_page_state st[2];
	int fd = uvm_open(), ret;

	if (fd < 0)
		return 100;
	memset(st, 0xff, sizeof(st));
	ret = residency_raw(fd, -2 * ps, ps, st);
	if (ret || st[0].resident || st[0].mapped_read)
		return 101;
	memset(st, 0xff, sizeof(st));
	ret = residency_raw(fd, -2 * ps, 2 * ps, st);
	if (ret == -EINVAL)	/* the range ends at 2^64: refusing it is fine */
		return 0;
	if (ret || st[1].resident || st[1].mapped_read)
		return 102;
	return 0;
}

FIXTURE(residency_limits) {
	struct uvm_dev dev;
};

FIXTURE_SETUP(residency_limits)
{
	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, 0);
}

FIXTURE_TEARDOWN(residency_limits)
{
	uvm_dev_teardown(&self->dev);
}

/* The last pages of the 64-bit address space: all-zero state, promptly */
TEST_F(residency_limits, top_of_address_space)
{
	pid_t pid;
	int status = -1, i;

	fflush(NULL);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		/* If it never returns, it must not hold the harness's output open. */
		int null = open("/dev/null", O_RDWR);

		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		_exit(residency_top_child(&self->dev.page_size));
	}
	for (i = 0; i < 1000 && waitpid(pid, &status, WNOHANG) == 0; i++)
		usleep(10000);
	ASSERT_LT(i, 1000) {
		TH_LOG("RESIDENCY of the top pages did not return in 10 s (pid %d)", pid);
		kill(pid, SIGKILL);
	}
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
}

TEST_HARNESS_MAIN
