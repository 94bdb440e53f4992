// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * trace - every tracepoint of system "uvm" fires, with the right fields.
 *
 * One variant per tracepoint: the trace buffer is cleared, a workload that
 * must hit it runs, and the buffer must then hold at least one line of the
 * event naming this process (its pid, or its VA space's id) as the event
 * does.  Runs with vidmem_mb=4 (a third 2 MiB block evicts) and the
 * prefetcher off.
 *
 * The events of system uvm are enabled once, by the first test, and
 * disabled once when the suite ends, with the "record-cmd" option off:
 * every enable or disable patches code (the tracepoints' static keys, and
 * with record-cmd the scheduler's sched_switch hook in __schedule()), and
 * QEMU's TCG, which the test guests run on, can stall a vCPU for good on a
 * breakpoint of such a patch when it happens often enough (an RCU stall in
 * __schedule() about once in six runs when each test toggled its event).
 */
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>

#include "kselftest_harness.h"
#include "uvm_test_util.h"

#define TRACEFS		"/sys/kernel/tracing"

/* Workloads */
#define W_FAULTS	1	/* CPU writes, GPU 0 writes, CPU reads back */
#define W_FATAL		2	/* a GPU read of an unmapped address */
#define W_EVICT		3	/* three blocks prefetched to a 4 MiB GPU */
#define W_PIN		4	/* CPU/GPU ping-pong of one page, pinning on */
#define W_THROTTLE	5	/* the same with pinning off */
#define W_VA_SPACE	6	/* open and close /dev/uvm */

FIXTURE(trace) {
	struct uvm_dev dev;
	uint64_t ps;
	uint8_t *p;
	uint64_t len;
};

FIXTURE_VARIANT(trace) {
	const char *event;	/* tracepoint name */
	int workload;		/* W_* */
	const char *expect;	/* a substring each of its lines must have ("%d": pid) */
};

FIXTURE_VARIANT_ADD(trace, fault_batch_fetched) {
	"uvm_fault_batch_fetched", W_FAULTS, "gpu=0 fetched=" };
FIXTURE_VARIANT_ADD(trace, fault_batch_serviced) {
	"uvm_fault_batch_serviced", W_FAULTS, "gpu=0 faults=" };
FIXTURE_VARIANT_ADD(trace, block_serviced) {
	"uvm_block_serviced", W_FAULTS, " ret=0" };
FIXTURE_VARIANT_ADD(trace, replay) {
	"uvm_replay", W_FAULTS, "gpu=0 policy=" };
FIXTURE_VARIANT_ADD(trace, migration_start) {
	"uvm_migration_start", W_FAULTS, "cause=fault" };
FIXTURE_VARIANT_ADD(trace, migration_end) {
	"uvm_migration_end", W_FAULTS, "cause=fault" };
FIXTURE_VARIANT_ADD(trace, migration_eviction) {
	"uvm_migration_end", W_EVICT, "cause=eviction" };
FIXTURE_VARIANT_ADD(trace, migration_thrashing) {
	"uvm_migration_end", W_PIN, "cause=thrashing" };
FIXTURE_VARIANT_ADD(trace, fatal_fault) {
	"uvm_fatal_fault", W_FATAL, "access=read pid=%d comm=" };
FIXTURE_VARIANT_ADD(trace, eviction) {
	"uvm_eviction", W_EVICT, "gpu=0 vs=" };
FIXTURE_VARIANT_ADD(trace, thrashing_detected) {
	"uvm_thrashing_detected", W_PIN, "pages=" };
FIXTURE_VARIANT_ADD(trace, thrashing_pinned) {
	"uvm_thrashing_pinned", W_PIN, "pages=" };
FIXTURE_VARIANT_ADD(trace, thrashing_throttled) {
	"uvm_thrashing_throttled", W_THROTTLE, "pages=" };
FIXTURE_VARIANT_ADD(trace, va_space_create) {
	"uvm_va_space_create", W_VA_SPACE, "pid=%d comm=" };
FIXTURE_VARIANT_ADD(trace, va_space_destroy) {
	"uvm_va_space_destroy", W_VA_SPACE, "pid=%d comm=" };

/* Write @val to a tracefs file.  Return: 0 or -errno. */
static int tracefs_write(const char *file, const char *val)
{
	char path[256];
	int fd, ret = 0;

	snprintf(path, sizeof(path), TRACEFS "/%s", file);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* A tracefs file's first character as 0 or 1; -1 when unreadable. */
static int tracefs_read_bool(const char *file)
{
	char path[320], c;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), TRACEFS "/%s", file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, &c, 1);
	close(fd);
	return n == 1 && (c == '0' || c == '1') ? c - '0' : -1;
}

/* The suite's end: the uvm events off and tracefs's defaults back. */
static void __attribute__((destructor)) trace_suite_end(void)
{
	tracefs_write("events/uvm/enable", "0");
	tracefs_write("options/record-cmd", "1");
	tracefs_write("trace", "");
	tracefs_write("tracing_on", "1");
}

/* tracefs mounted (mounting it if needed); false when unavailable. */
static bool tracefs_ready(void)
{
	struct stat st;

	if (!stat(TRACEFS "/events/uvm", &st))
		return true;
	mount("nodev", TRACEFS, "tracefs", 0, NULL);
	return !stat(TRACEFS "/events/uvm", &st);
}

FIXTURE_SETUP(trace)
{
	char path[256];

	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, 1);
	if (!tracefs_ready())
		UVM_SKIP("no tracefs with the uvm events (" TRACEFS ")");
	self->ps = self->dev.page_size;
	self->len = 16 * self->ps;
	self->p = uvm_mmap_block_aligned(&self->dev, self->len);
	ASSERT_NE(MAP_FAILED, self->p);
	/* no-ops once the first test did them (see the top of the file) */
	ASSERT_EQ(0, tracefs_write("options/record-cmd", "0"));
	ASSERT_EQ(0, tracefs_write("events/uvm/enable", "1"));
	snprintf(path, sizeof(path), "events/uvm/%s/enable", variant->event);
	ASSERT_EQ(1, tracefs_read_bool(path)) TH_LOG("%s not enabled", variant->event);
	ASSERT_EQ(0, tracefs_write("trace", ""));
	ASSERT_EQ(0, tracefs_write("tracing_on", "1"));
}

FIXTURE_TEARDOWN(trace)
{
	tracefs_write("tracing_on", "0");
	tracefs_write("trace", "");
	/* The defaults, as the thrash suite leaves them. */
	uvm_param_write("thrashing", "1");
	uvm_param_write("thrashing_lapse_us", "2000");
	uvm_param_write("thrashing_threshold", "3");
	uvm_param_write("thrashing_pin_ms", "300");
	uvm_param_write("thrashing_pin", "1");
	uvm_param_write("thrashing_nap_us", "1000");
	if (self->p && self->p != MAP_FAILED)
		munmap(self->p, self->len);
	uvm_dev_teardown(&self->dev);
}

/* CPU/GPU ping-pong of one page with thrashing detection on. */
static int ping_pong(struct uvm_dev *dev, uint8_t *p, bool pin)
{
	int r, ret;

	if (uvm_param_write("thrashing", "1") ||
	    uvm_param_write("thrashing_lapse_us", "2000000") ||
	    uvm_param_write("thrashing_threshold", "3") ||
	    uvm_param_write("thrashing_pin_ms", "60000") ||
	    uvm_param_write("thrashing_pin", pin ? "1" : "0") ||
	    uvm_param_write("thrashing_nap_us", "1000"))
		return -EIO;
	for (r = 0; r < 8; r++) {
		(*(volatile uint64_t *)p)++;
		ret = uvm_launch1(dev->fd, 0, 1, uvm_op_atomic(p, 8, 2), NULL);
		if (ret)
			return ret;
	}
	return 0;
}

static int run_workload(struct uvm_dev *dev, uint8_t *p, uint64_t len, int w)
{
	struct uvm_test_gpu_op op;
	uint8_t *q, *hole;
	int fd, ret;

	switch (w) {
	case W_FAULTS:
		memset(p, 1, len);
		ret = uvm_launch1(dev->fd, 0, 4, uvm_op_pattern(p, len, 1), NULL);
		return ret ?: (*(volatile uint8_t *)p == 0xee ? -EINVAL : 0);
	case W_FATAL:
		hole = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (hole == MAP_FAILED)
			return -errno;
		munmap(hole, 4096);
		op = uvm_op_read(hole, 8, 8, NULL);
		ret = uvm_launch(dev->fd, 0, 1, &op, 1, NULL);
		return ret == -EREMOTEIO ? 0 : -EINVAL;
	case W_EVICT:
		q = uvm_mmap_block_aligned(dev, 3 * UVM_VA_BLOCK_SIZE);
		if (q == MAP_FAILED)
			return -errno;
		memset(q, 1, 3 * UVM_VA_BLOCK_SIZE);
		ret = uvm_prefetch(dev->fd, q, 3 * UVM_VA_BLOCK_SIZE, UVM_LOC_GPU(0));
		munmap(q, 3 * UVM_VA_BLOCK_SIZE);
		return ret;
	case W_PIN:
	case W_THROTTLE:
		return ping_pong(dev, p, w == W_PIN);
	case W_VA_SPACE:
		fd = uvm_open();
		if (fd < 0)
			return fd;
		close(fd);
		return 0;
	}
	return -EINVAL;
}

/* The tracepoint fired, and each of its lines has the expected fields. */
TEST_F(trace, fires)
{
	char line[1024], want[128], tag[96];
	unsigned int hits = 0;
	FILE *f;

	ASSERT_EQ(0, run_workload(&self->dev, self->p, self->len, variant->workload));
	snprintf(want, sizeof(want), variant->expect, getpid());
	snprintf(tag, sizeof(tag), " %s: ", variant->event);
	ASSERT_EQ(0, tracefs_write("tracing_on", "0"));
	f = fopen(TRACEFS "/trace", "re");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || !strstr(line, tag))
			continue;
		hits++;
		if (strstr(variant->expect, "cause=") && !strstr(line, want))
			continue;	/* other causes may come along */
		ASSERT_NE(NULL, strstr(line, want)) TH_LOG("%s", line);
	}
	fclose(f);
	ASSERT_LT(0, hits) TH_LOG("no %s line", variant->event);
	if (strstr(variant->expect, "cause=")) {
		/* At least one line of that cause. */
		f = fopen(TRACEFS "/trace", "re");
		ASSERT_NE(NULL, f);
		hits = 0;
		while (fgets(line, sizeof(line), f))
			hits += line[0] != '#' && strstr(line, tag) && strstr(line, want);
		fclose(f);
		ASSERT_LT(0, hits) TH_LOG("no %s line with %s", variant->event, want);
	}
}

TEST_HARNESS_MAIN
