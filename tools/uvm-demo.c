// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * uvm-demo - a managed-memory workload on the simulated GPUs, and what the
 * driver did for it.
 *
 *   1. the CPU writes data into managed memory (mmap of /dev/uvm);
 *   2. GPU 0 checksums it and adds a constant to every word, with many warps
 *      in random order: the pages fault over from the CPU in batches;
 *   3. GPU 1 reads it into a buffer (pages move GPU 0 -> GPU 1) and adds
 *      another constant;
 *   4. the CPU reads every word back (pages move GPU 1 -> CPU) and checks it.
 *
 * Every result is compared with values computed on the CPU: the GPU 0
 * checksum, the bytes GPU 1 read, every word the CPU reads at the end.  The
 * driver's counters are printed per step.  "result verified" is printed, and
 * the exit status is 0, only when every check passed.
 *
 * Usage: uvm-demo [-s MiB] [-w warps] [-q]
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "uvm.h"
#include "uvm_test.h"

#define DEMO_ADD_GPU0	0x1000ULL	/* added by GPU 0 to every word */
#define DEMO_ADD_GPU1	0x0007ULL	/* added by GPU 1 to every word */
#define DEMO_STEPS	4

static const char *const step_names[DEMO_STEPS] = {
	"CPU write", "GPU 0", "GPU 1", "CPU check",
};

/* The counters shown, in order, with their labels. */
static const struct {
	unsigned int index;
	const char *label;
} rows[] = {
	{ UVM_COUNTER_GPU_FAULTS,	  "GPU faults fetched" },
	{ UVM_COUNTER_GPU_FAULTS_DUP,	  "  duplicates coalesced" },
	{ UVM_COUNTER_GPU_FAULT_BATCHES,  "  fault batches" },
	{ UVM_COUNTER_GPU_REPLAYS,	  "  replays" },
	{ UVM_COUNTER_GPU_FATAL_FAULTS,	  "  fatal faults" },
	{ UVM_COUNTER_CPU_FAULTS,	  "CPU faults" },
	{ UVM_COUNTER_PAGES_POPULATED_CPU, "pages populated, CPU" },
	{ UVM_COUNTER_PAGES_POPULATED_GPU, "pages populated, GPU" },
	{ UVM_COUNTER_PAGES_H2D,	  "pages CPU -> GPU" },
	{ UVM_COUNTER_PAGES_D2H,	  "pages GPU -> CPU" },
	{ UVM_COUNTER_PAGES_D2D,	  "pages GPU -> GPU" },
	{ UVM_COUNTER_BYTES_H2D,	  "bytes CPU -> GPU" },
	{ UVM_COUNTER_BYTES_D2H,	  "bytes GPU -> CPU" },
	{ UVM_COUNTER_BYTES_D2D,	  "bytes GPU -> GPU" },
	{ UVM_COUNTER_GPU_PAGES_MAPPED,	  "GPU PTEs written" },
	{ UVM_COUNTER_GPU_PAGES_UNMAPPED, "GPU PTEs revoked" },
	{ UVM_COUNTER_CPU_PAGES_UNMAPPED, "CPU PTEs revoked" },
};

struct demo {
	int fd;
	struct uvm_ioc_version ver;
	uint32_t gpu_b;			/* GPU of step 3: 1, or 0 with one GPU */
	uint64_t len, words;
	uint64_t *mem;			/* managed memory */
	uint64_t *buf;			/* GPU 1's read buffer */
	uint32_t warps;
	bool quiet;
	uint64_t counters[DEMO_STEPS + 1][UVM_COUNTER_COUNT];
	double seconds[DEMO_STEPS];
	unsigned int failures;
};

static int uvm_ioctl(int fd, unsigned long cmd, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, cmd, arg);
	} while (ret < 0 && errno == EINTR);
	return ret < 0 ? -errno : 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int read_counters(struct demo *d, uint64_t *out)
{
	struct uvm_ioc_get_counters args = {
		.counters_ptr = (uintptr_t)out,
		.count = UVM_COUNTER_COUNT,
	};

	return uvm_ioctl(d->fd, UVM_IOC_GET_COUNTERS, &args);
}

/* The value the CPU writes into word @i in step 1. */
static uint64_t initial_word(uint64_t i)
{
	return (i * 0x9E3779B97F4A7C15ULL) ^ (i >> 7);
}

static void fail(struct demo *d, const char *what, uint64_t word, uint64_t want,
		 uint64_t got)
{
	if (d->failures++ < 5)
		fprintf(stderr, "uvm-demo: %s: word %llu is %#llx, expected %#llx\n", what,
			(unsigned long long)word, (unsigned long long)got,
			(unsigned long long)want);
}

static int launch(struct demo *d, uint32_t gpu, struct uvm_test_gpu_op *ops, uint32_t nops)
{
	struct uvm_test_launch l = {
		.gpu_index = gpu,
		.num_warps = d->warps,
		.ops_ptr = (uintptr_t)ops,
		.num_ops = nops,
	};
	int ret = uvm_ioctl(d->fd, UVM_TEST_IOC_LAUNCH, &l);

	if (ret == -EREMOTEIO)
		fprintf(stderr, "uvm-demo: GPU %u: fatal fault at %#llx (op %u)\n", gpu,
			(unsigned long long)l.fault_address, l.fault_op);
	else if (ret)
		fprintf(stderr, "uvm-demo: GPU %u: launch failed: %s\n", gpu, strerror(-ret));
	return ret;
}

static struct uvm_test_gpu_op op(uint32_t type, uint32_t order, void *addr, uint64_t len,
				 uint32_t access_size, uint64_t value, void *data)
{
	return (struct uvm_test_gpu_op){
		.type = type, .order = order, .address = (uintptr_t)addr, .length = len,
		.access_size = access_size, .seed = 2024, .value = value,
		.data_ptr = (uintptr_t)data,
	};
}

/* Step 1: the CPU writes the data. */
static int step_cpu_write(struct demo *d)
{
	uint64_t i;

	for (i = 0; i < d->words; i++)
		d->mem[i] = initial_word(i);
	return 0;
}

/* Step 2: GPU 0 checksums the data and adds DEMO_ADD_GPU0 to every word. */
static int step_gpu0(struct demo *d)
{
	struct uvm_test_gpu_op ops[2];
	uint64_t i, sum = 0;
	int ret;

	ops[0] = op(UVM_TEST_OP_READ, UVM_TEST_ORDER_RANDOM, d->mem, d->len, 8, 0, NULL);
	ops[1] = op(UVM_TEST_OP_ATOMIC_ADD, UVM_TEST_ORDER_RANDOM, d->mem, d->len, 64,
		    DEMO_ADD_GPU0, NULL);
	ret = launch(d, 0, ops, 2);
	if (ret)
		return ret;
	for (i = 0; i < d->words; i++)
		sum += UVM_TEST_CHECKSUM_TERM(initial_word(i), (uintptr_t)&d->mem[i]);
	if (ops[0].checksum != sum) {
		fprintf(stderr, "uvm-demo: GPU 0 checksum %#llx, expected %#llx\n",
			(unsigned long long)ops[0].checksum, (unsigned long long)sum);
		d->failures++;
	}
	return 0;
}

/* Step 3: GPU 1 reads everything into a buffer, then adds DEMO_ADD_GPU1. */
static int step_gpu1(struct demo *d)
{
	struct uvm_test_gpu_op ops[2];
	uint64_t i, want;
	int ret;

	memset(d->buf, 0, d->len);
	ops[0] = op(UVM_TEST_OP_READ, UVM_TEST_ORDER_SEQUENTIAL, d->mem, d->len, 256, 0, d->buf);
	ops[1] = op(UVM_TEST_OP_ATOMIC_ADD, UVM_TEST_ORDER_RANDOM, d->mem, d->len, 8,
		    DEMO_ADD_GPU1, NULL);
	ret = launch(d, d->gpu_b, ops, 2);
	if (ret)
		return ret;
	for (i = 0; i < d->words; i++) {
		want = initial_word(i) + DEMO_ADD_GPU0;
		if (d->buf[i] != want)
			fail(d, "GPU 1 read", i, want, d->buf[i]);
	}
	return 0;
}

/* Step 4: the CPU checks every word. */
static int step_cpu_check(struct demo *d)
{
	uint64_t i, want;

	for (i = 0; i < d->words; i++) {
		want = initial_word(i) + DEMO_ADD_GPU0 + DEMO_ADD_GPU1;
		if (d->mem[i] != want)
			fail(d, "CPU check", i, want, d->mem[i]);
	}
	return 0;
}

static void print_devices(struct demo *d)
{
	struct uvm_ioc_gpu_info info;
	uint32_t g;

	printf("uvm-demo: managed memory on %u simulated GPU(s), uvm API %u.%u, %u-byte pages\n",
	       d->ver.num_gpus, d->ver.major, d->ver.minor, d->ver.page_size);
	for (g = 0; g < d->ver.num_gpus && g < 2; g++) {
		memset(&info, 0, sizeof(info));
		info.gpu_index = g;
		if (uvm_ioctl(d->fd, UVM_IOC_GPU_INFO, &info))
			continue;
		printf("  GPU %u: %s, %llu MiB vidmem, fault buffer %u entries, batches of up to %u\n",
		       g, info.name, (unsigned long long)(info.vidmem_size >> 20),
		       info.fault_buffer_entries, info.fault_batch_size);
	}
	printf("\n");
	printf("  1. CPU writes %llu MiB (%llu pages) of data into managed memory\n",
	       (unsigned long long)(d->len >> 20),
	       (unsigned long long)(d->len / d->ver.page_size));
	printf("  2. GPU 0, %u warps, random order: checksum the data, add %#llx to every word\n",
	       d->warps, (unsigned long long)DEMO_ADD_GPU0);
	printf("  3. GPU %u, %u warps: read it all into a buffer, add %#llx to every word\n",
	       d->gpu_b, d->warps, (unsigned long long)DEMO_ADD_GPU1);
	printf("  4. CPU reads and checks every word\n\n");
}

static void print_table(struct demo *d)
{
	unsigned int r, s, idx;
	uint64_t delta;

	printf("  %-24s %12s", "driver counter", "before");
	for (s = 0; s < DEMO_STEPS; s++)
		printf(" %12s", step_names[s]);
	printf(" %12s\n", "after");
	for (r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		idx = rows[r].index;
		printf("  %-24s %12llu", rows[r].label,
		       (unsigned long long)d->counters[0][idx]);
		for (s = 0; s < DEMO_STEPS; s++) {
			delta = d->counters[s + 1][idx] - d->counters[s][idx];
			if (delta)
				printf(" %+12lld", (long long)delta);
			else
				printf(" %12s", ".");
		}
		printf(" %12llu\n", (unsigned long long)d->counters[DEMO_STEPS][idx]);
	}
	printf("  %-24s %12s", "seconds", "");
	for (s = 0; s < DEMO_STEPS; s++)
		printf(" %12.3f", d->seconds[s]);
	printf("\n\n");
}

static void print_summary(struct demo *d)
{
	const uint64_t *c = d->counters[DEMO_STEPS], *c0 = d->counters[0];
	uint64_t faults = c[UVM_COUNTER_GPU_FAULTS] - c0[UVM_COUNTER_GPU_FAULTS];
	uint64_t dup = c[UVM_COUNTER_GPU_FAULTS_DUP] - c0[UVM_COUNTER_GPU_FAULTS_DUP];
	uint64_t batches = c[UVM_COUNTER_GPU_FAULT_BATCHES] - c0[UVM_COUNTER_GPU_FAULT_BATCHES];

	printf("  fault servicing: %llu faults in %llu batches (%.1f per batch), "
	       "%llu duplicates coalesced, %llu distinct\n",
	       (unsigned long long)faults, (unsigned long long)batches,
	       batches ? (double)faults / batches : 0.0, (unsigned long long)dup,
	       (unsigned long long)(faults - dup));
	printf("  migrated: %llu MiB CPU -> GPU, %llu MiB GPU -> GPU, %llu MiB GPU -> CPU\n",
	       (unsigned long long)((c[UVM_COUNTER_BYTES_H2D] - c0[UVM_COUNTER_BYTES_H2D]) >> 20),
	       (unsigned long long)((c[UVM_COUNTER_BYTES_D2D] - c0[UVM_COUNTER_BYTES_D2D]) >> 20),
	       (unsigned long long)((c[UVM_COUNTER_BYTES_D2H] - c0[UVM_COUNTER_BYTES_D2H]) >> 20));
}

static int run(struct demo *d)
{
	static int (*const steps[DEMO_STEPS])(struct demo *) = {
		step_cpu_write, step_gpu0, step_gpu1, step_cpu_check,
	};
	unsigned int s;
	double t;
	int ret;

	if (read_counters(d, d->counters[0]))
		return -EIO;
	for (s = 0; s < DEMO_STEPS; s++) {
		t = now();
		ret = steps[s](d);
		d->seconds[s] = now() - t;
		if (ret)
			return ret;
		/* Faults of the step may still be counted just after it. */
		usleep(100000);
		if (read_counters(d, d->counters[s + 1]))
			return -EIO;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct demo d = { .warps = 1024 };
	uint64_t mib = 4;
	int opt, ret;

	while ((opt = getopt(argc, argv, "s:w:qh")) != -1) {
		switch (opt) {
		case 's':
			mib = strtoull(optarg, NULL, 0);
			break;
		case 'w':
			d.warps = strtoul(optarg, NULL, 0);
			break;
		case 'q':
			d.quiet = true;
			break;
		default:
			fprintf(stderr, "usage: %s [-s MiB (default 4)] [-w warps (default 1024)] [-q]\n",
				argv[0]);
			return opt == 'h' ? 0 : 2;
		}
	}
	if (!mib || mib > 1024 || !d.warps || d.warps > UVM_TEST_MAX_WARPS) {
		fprintf(stderr, "uvm-demo: size must be 1..1024 MiB, warps 1..%u\n",
			UVM_TEST_MAX_WARPS);
		return 2;
	}

	d.fd = open("/dev/" UVM_DEVICE_NAME, O_RDWR | O_CLOEXEC);
	if (d.fd < 0) {
		fprintf(stderr, "uvm-demo: /dev/%s: %s (is uvm.ko loaded?)\n", UVM_DEVICE_NAME,
			strerror(errno));
		return 2;
	}
	if (uvm_ioctl(d.fd, UVM_IOC_GET_VERSION, &d.ver) || !d.ver.num_gpus ||
	    !(d.ver.caps & UVM_CAP_TEST_IOCTLS)) {
		fprintf(stderr, "uvm-demo: the module needs at least one GPU and the test ioctls\n");
		return 2;
	}
	d.gpu_b = d.ver.num_gpus > 1 ? 1 : 0;
	d.len = mib << 20;
	d.words = d.len / 8;
	d.mem = mmap(NULL, d.len, PROT_READ | PROT_WRITE, MAP_SHARED, d.fd, 0);
	d.buf = malloc(d.len);
	if (d.mem == MAP_FAILED || !d.buf) {
		fprintf(stderr, "uvm-demo: cannot allocate %llu MiB: %s\n",
			(unsigned long long)mib, strerror(errno));
		return 2;
	}

	if (!d.quiet)
		print_devices(&d);
	ret = run(&d);
	if (ret) {
		fprintf(stderr, "uvm-demo: failed: %s\n", strerror(-ret));
		return 1;
	}
	if (!d.quiet)
		print_table(&d);
	print_summary(&d);
	if (d.failures) {
		printf("  result WRONG: %u mismatches\n", d.failures);
		return 1;
	}
	printf("  result verified: GPU 0 checksum, %llu words read by GPU %u, %llu words read by the CPU\n",
	       (unsigned long long)d.words, d.gpu_b, (unsigned long long)d.words);
	munmap(d.mem, d.len);
	free(d.buf);
	close(d.fd);
	return 0;
}
