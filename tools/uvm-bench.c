// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * uvm-bench - the performance report of the UVM driver.
 *
 * Measures, in one run in one guest, the nine lines of the report, each as a
 * raw value and as a ratio to a reference measured in the same run:
 *
 *  1. copy-engine peak: UVM_IOC_COPY host->device, device->host and
 *     device->device (registered host memory, device memory): the 100 % line;
 *  2. prefetch (UVM_IOC_MIGRATE) of managed memory to a GPU and to the host,
 *     as % of the copy-engine peak of the same direction;
 *  3. GPU fault-driven streaming read of CPU-resident managed memory, as % of
 *     the host->device peak; sequential and random 4 KiB page touch rates;
 *  4. isolated GPU fault round trip, in us and as a multiple of a CPU minor
 *     page fault (anonymous write fault) measured in the same loop;
 *  5. sparse faults in full batches (one page per 2 MiB block, one warp
 *     each): us per fault, split into the fault_{fetch,coalesce,service,
 *     replay}_ns stages of the GPU's sysfs counters;
 *  6. batched prefetch of resident ranges and batched discard (4096 x 64 KiB):
 *     per-range cost as a multiple of a null ioctl;
 *  7. GPU streaming read of 1.25x, 2x and 4x a GPU's (effective) vidmem, as %
 *     of the host->device peak;
 *  8. prefetch accuracy for sequential, 64 KiB-strided, random and
 *     random-10 % page touches: faults per MiB touched and bytes migrated per
 *     byte touched, with the prefetcher on and off;
 *  9. the kernel's reference HMM device (test_hmm, /dev/hmm_dmirror0, debug
 *     kernel) migrating the same memory to device memory and back, as a time
 *     ratio to our prefetch to a GPU and back.
 *
 * The host it runs on is shared and noisy, so every ratio is paired: the
 * reference (a copy-engine copy on the other GPU, in a VA space of its own;
 * CPU minor faults; null ioctls) is timed right around the operation it
 * divides, the kinds being compared are interleaved, and the reported ratio
 * is the median of the per-repetition ratios.  Each line runs in a fresh VA
 * space.
 *
 * It prints a table on stdout (progress on stderr) and with --json FILE
 * writes every raw value, ratio, target and the environment.  Targets come
 * from the project brief and are informational: nothing here fails on timing.  A
 * benchmark, not a test: it exits non-zero only when an operation fails.
 * Documentation/performance.rst explains each line and the latest report.
 *
 * It needs uvm.ko with the test ioctls (launches, residency), root (for
 * /sys/module/uvm/parameters/prefetch), and for line 9 test_hmm.ko loaded.
 * Run it in the guest through ./scripts/uvm bench.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "uvm.h"
#include "uvm_names.h"
#include "uvm_test.h"

#define MIB		(1ULL << 20)
#define KIB		(1ULL << 10)
#define BLOCK		UVM_VA_BLOCK_SIZE
#define SYSFS_GPU	"/sys/class/misc/uvm/gpu%u/%s"
#define SYSFS_PARAM	"/sys/module/uvm/parameters/%s"
#define MAX_ROWS	64
#define MAX_ENV		16

/* The test_hmm ioctls of Linux 6.1 (lib/test_hmm_uapi.h). */
struct hmm_dmirror_cmd {
	uint64_t addr;
	uint64_t ptr;
	uint64_t npages;
	uint64_t cpages;
	uint64_t faults;
};

#define HMM_DMIRROR_MIGRATE_TO_DEV	_IOWR('H', 0x02, struct hmm_dmirror_cmd)
#define HMM_DMIRROR_MIGRATE_TO_SYS	_IOWR('H', 0x03, struct hmm_dmirror_cmd)
#define HMM_DMIRROR_DEV			"/dev/hmm_dmirror0"

/* Settings (command line) */
struct opts {
	const char *json;
	uint32_t gpu;
	unsigned int reps;		/* repetitions of each timed operation */
	uint64_t bw_mib;		/* lines 1, 2, 9: bytes copied / migrated */
	uint64_t stream_mib;		/* line 3: streaming read */
	uint64_t touch_mib;		/* line 3: 4 KiB page touches */
	uint32_t warps;			/* lines 3, 7: warps of streaming launches */
	unsigned int isolated;		/* line 4: faults timed */
	uint32_t sparse_blocks;		/* line 5: concurrent faults, one per block */
	unsigned int sparse_rounds;	/* line 5: rounds over the same blocks */
	uint64_t batch_ranges;		/* line 6 */
	uint64_t batch_kib;		/* line 6 */
	uint64_t oversub_mib;		/* line 7: effective vidmem */
	unsigned int oversub_reps;	/* line 7: repetitions per factor */
	uint64_t accuracy_mib;		/* line 8 */
	unsigned int lines;		/* bit n: run line n */
	const char *env_k[MAX_ENV];
	const char *env_v[MAX_ENV];
	unsigned int nenv;
};

static struct opts o = {
	.reps = 7,
	.bw_mib = 64,
	.stream_mib = 64,
	.touch_mib = 32,
	.warps = 64,
	.isolated = 200,
	.sparse_blocks = 256,
	.sparse_rounds = 6,
	.batch_ranges = 4096,
	.batch_kib = 64,
	.oversub_mib = 32,
	.oversub_reps = 3,
	.accuracy_mib = 16,
	.lines = 0x3fe,
};

static int fd = -1;			/* the VA space of the line being measured */
static struct uvm_ioc_version ver;
static struct uvm_ioc_gpu_info ginfo;
static long page_size;

/*
 * The reference: a copy between registered host memory and device memory of
 * another GPU, in a VA space of its own, timed right before each measured
 * operation.  The host is shared and noisy; a ratio of two timings taken
 * back to back is far steadier than a ratio to a peak measured minutes
 * earlier.
 */
static struct {
	int fd;
	uint32_t gpu;
	uint64_t len;
	uint8_t *host;
	uint8_t *dev;
} ref = { .fd = -1 };

/* ------------------------------------------------------------------------ */
/* Utilities */

static void die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "uvm-bench: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(1);
}

static void progress(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "uvm-bench: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
}

static int xioctl(int f, unsigned long cmd, void *arg)
{
	int ret;

	do {
		ret = ioctl(f, cmd, arg);
	} while (ret < 0 && errno == EINTR);
	return ret < 0 ? -errno : 0;
}

static void check(int ret, const char *what)
{
	if (ret)
		die("%s: %s", what, strerror(-ret));
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Summary of repeated measurements (the samples are sorted in place). */
struct sample {
	double median, min, max;
	unsigned int n;
};

static struct sample stat_of(double *v, unsigned int n)
{
	struct sample s = { .n = n };

	if (!n)
		return s;
	qsort(v, n, sizeof(*v), cmp_double);
	s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	s.min = v[0];
	s.max = v[n - 1];
	return s;
}

/* Relative spread (max - min) / median, in percent. */
static double spread(struct sample s)
{
	return s.median > 0 ? 100.0 * (s.max - s.min) / s.median : 0;
}

static double gbps(uint64_t bytes, double ns)
{
	return ns > 0 ? bytes / ns : 0;	/* bytes per ns == GB/s */
}

static uint64_t read_u64_file(const char *path)
{
	char buf[64] = "";
	FILE *f = fopen(path, "r");

	if (!f)
		die("open %s: %s", path, strerror(errno));
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return strtoull(buf, NULL, 0);
}

static uint64_t gpu_sysfs(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), SYSFS_GPU, o.gpu, name);
	return read_u64_file(path);
}

static void write_param(const char *name, const char *value)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), SYSFS_PARAM, name);
	f = fopen(path, "w");
	if (!f || fputs(value, f) < 0 || fclose(f))
		die("write %s to %s: %s", value, path, strerror(errno));
}

static void read_param(const char *name, char *buf, size_t len)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), SYSFS_PARAM, name);
	buf[0] = 0;
	f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(buf, len, f))
		buf[strcspn(buf, "\n")] = 0;
	fclose(f);
}

static void set_prefetch(bool on)
{
	write_param("prefetch", on ? "Y" : "N");
}

/* ------------------------------------------------------------------------ */
/* Memory */

/*
 * Map @len bytes on a 2 MiB boundary (so that blocks and vidmem chunks are
 * known exactly): managed memory for UVM_MMAP_MANAGED, device memory for
 * UVM_MMAP_DEVICE(g), anonymous memory for fd -1.
 */
static void *map_aligned(uint64_t len, int prot, int flags, int f, uint64_t off)
{
	uint64_t rlen = len + BLOCK;
	uint8_t *r, *a;
	void *p;

	r = mmap(NULL, rlen, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (r == MAP_FAILED)
		die("mmap reserve %llu MiB: %s", (unsigned long long)(rlen >> 20), strerror(errno));
	a = (uint8_t *)(((uintptr_t)r + BLOCK - 1) & ~(uintptr_t)(BLOCK - 1));
	p = mmap(a, len, prot, flags | MAP_FIXED, f, (off_t)off);
	if (p == MAP_FAILED)
		die("mmap %llu MiB (offset 0x%llx): %s", (unsigned long long)(len >> 20),
		    (unsigned long long)off, strerror(errno));
	if (a > r)
		munmap(r, a - r);
	if (r + rlen > a + len)
		munmap(a + len, (r + rlen) - (a + len));
	return p;
}

static uint8_t *managed_alloc(uint64_t len)
{
	return map_aligned(len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, UVM_MMAP_MANAGED);
}

static uint8_t *device_alloc(uint32_t gpu, uint64_t len)
{
	return map_aligned(len, PROT_NONE, MAP_SHARED, fd, UVM_MMAP_DEVICE(gpu));
}

static uint8_t *anon_alloc(uint64_t len)
{
	uint8_t *p = map_aligned(len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	madvise(p, len, MADV_NOHUGEPAGE);
	return p;
}

/* Wait until the GPU's vidmem use is @want (frees may trail munmap a little). */
static void vidmem_wait(uint64_t want)
{
	struct uvm_ioc_gpu_info info;
	int i;

	for (i = 0; i < 500; i++) {
		memset(&info, 0, sizeof(info));
		info.gpu_index = o.gpu;
		check(xioctl(ref.fd, UVM_IOC_GPU_INFO, &info), "GPU_INFO");
		if (info.vidmem_used == want)
			return;
		usleep(10000);
	}
	progress("warning: GPU %u still uses %llu bytes of vidmem", o.gpu,
		 (unsigned long long)info.vidmem_used);
}

static int migrate1(uint32_t op, const void *addr, uint64_t len, struct uvm_location loc)
{
	struct uvm_range r = { .address = (uintptr_t)addr, .length = len };
	uint64_t start = 0;
	struct uvm_ioc_migrate m = {
		.op = op,
		.ranges_ptr = (uintptr_t)&r,
		.count = 1,
	};

	if (op != UVM_MIGRATE_DISCARD) {
		m.locations_ptr = (uintptr_t)&loc;
		m.location_starts_ptr = (uintptr_t)&start;
		m.num_locations = 1;
	}
	return xioctl(fd, UVM_IOC_MIGRATE, &m);
}

static const struct uvm_location LOC_HOST = { .type = UVM_LOCATION_HOST };

static struct uvm_location loc_gpu(void)
{
	return (struct uvm_location){ .type = UVM_LOCATION_GPU, .id = (int32_t)o.gpu };
}

/* Managed memory resident on the CPU, zero-filled, no copy and no CPU PTEs. */
static void populate_host(uint8_t *p, uint64_t len)
{
	check(migrate1(UVM_MIGRATE_DISCARD_PREFETCH, p, len, LOC_HOST), "populate on the host");
}

/* The CPU writes one word per page: resident and mapped on the CPU. */
static void cpu_touch(uint8_t *p, uint64_t len, uint64_t value)
{
	uint64_t off;

	for (off = 0; off < len; off += page_size)
		*(volatile uint64_t *)(p + off) = value + off;
}

static int copy_on(int f, uint32_t gpu, void *dst, const void *src, uint64_t len)
{
	struct uvm_ioc_copy c = {
		.dst = (uintptr_t)dst,
		.src = (uintptr_t)src,
		.length = len,
		.gpu_index = gpu,
	};

	return xioctl(f, UVM_IOC_COPY, &c);
}

/* Time one copy on the measured GPU's engine; GB/s. */
static double timed_copy(void *dst, const void *src, uint64_t len, const char *what)
{
	uint64_t t0 = now_ns();

	check(copy_on(fd, o.gpu, dst, src, len), what);
	return gbps(len, (double)(now_ns() - t0));
}

/* A fresh VA space for the line about to run. */
static void vs_open(void)
{
	fd = open("/dev/" UVM_DEVICE_NAME, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		die("open /dev/uvm: %s", strerror(errno));
}

/* Close it once everything in it is unmapped; its vidmem goes back. */
static void vs_close(void)
{
	close(fd);
	fd = -1;
	vidmem_wait(0);
}

static void ref_setup(void)
{
	struct uvm_ioc_host_register reg = { 0 };

	ref.gpu = (o.gpu + 1) % ver.num_gpus;
	ref.len = o.bw_mib * MIB;
	ref.fd = open("/dev/" UVM_DEVICE_NAME, O_RDWR | O_CLOEXEC);
	if (ref.fd < 0)
		die("open /dev/uvm: %s", strerror(errno));
	ref.host = anon_alloc(ref.len);
	memset(ref.host, 0xa5, ref.len);
	reg.address = (uintptr_t)ref.host;
	reg.length = ref.len;
	check(xioctl(ref.fd, UVM_IOC_HOST_REGISTER, &reg), "HOST_REGISTER (reference)");
	ref.dev = map_aligned(ref.len, PROT_NONE, MAP_SHARED, ref.fd, UVM_MMAP_DEVICE(ref.gpu));
	check(copy_on(ref.fd, ref.gpu, ref.dev, ref.host, ref.len), "reference copy");
}

/* A reference copy host -> device (@d2h: device -> host) right now; GB/s. */
static double ref_copy(bool d2h)
{
	uint64_t t0 = now_ns();

	check(copy_on(ref.fd, ref.gpu, d2h ? ref.host : ref.dev, d2h ? ref.dev : ref.host,
		      ref.len), "reference copy");
	return gbps(ref.len, (double)(now_ns() - t0));
}

struct counters {
	uint64_t c[UVM_COUNTER_COUNT];
};

static struct counters counters(void)
{
	struct counters k;
	struct uvm_ioc_get_counters a = {
		.counters_ptr = (uintptr_t)k.c,
		.count = UVM_COUNTER_COUNT,
	};

	memset(&k, 0, sizeof(k));
	check(xioctl(fd, UVM_IOC_GET_COUNTERS, &a), "GET_COUNTERS");
	return k;
}

static uint64_t delta(const struct counters *a, const struct counters *b, unsigned int i)
{
	return b->c[i] - a->c[i];
}

/* ------------------------------------------------------------------------ */
/* Launches */

static struct uvm_test_gpu_op op_read(const void *addr, uint64_t len, uint64_t stride,
				      uint32_t access, uint32_t order, uint32_t seed)
{
	return (struct uvm_test_gpu_op){
		.type = UVM_TEST_OP_READ,
		.order = order,
		.address = (uintptr_t)addr,
		.length = len,
		.stride = stride,
		.access_size = access,
		.seed = seed,
	};
}

static int launch(uint32_t warps, struct uvm_test_gpu_op *ops, uint32_t nops)
{
	struct uvm_test_launch l = {
		.gpu_index = o.gpu,
		.num_warps = warps,
		.ops_ptr = (uintptr_t)ops,
		.num_ops = nops,
	};

	return xioctl(fd, UVM_TEST_IOC_LAUNCH, &l);
}

/* Run a one-op launch, return its wall time in ns. */
static double timed_launch(uint32_t warps, struct uvm_test_gpu_op op, const char *what)
{
	uint64_t t0 = now_ns();

	check(launch(warps, &op, 1), what);
	return (double)(now_ns() - t0);
}

/* ------------------------------------------------------------------------ */
/* The report: table rows and JSON */

struct row {
	char line[4];
	char what[48];
	char raw[48];
	char ratio[40];
	char real[32];
	char target[20];
	char met[8];
};

static struct row rows[MAX_ROWS];
static unsigned int nrows;

static struct row *row_add(const char *line, const char *what)
{
	struct row *r;

	if (nrows == MAX_ROWS)
		die("too many rows");
	r = &rows[nrows++];
	memset(r, 0, sizeof(*r));
	snprintf(r->line, sizeof(r->line), "%s", line);
	snprintf(r->what, sizeof(r->what), "%s", what);
	return r;
}

#define FMT(field, ...) snprintf(field, sizeof(field), __VA_ARGS__)

static const char *yesno(bool met)
{
	return met ? "yes" : "no";
}

/* A minimal JSON writer: nested objects, numbers, strings, booleans. */
static char *jbuf;
static size_t jlen, jcap;
static bool jfirst = true;
static unsigned int jdepth;

static void jput(const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(jbuf ? jbuf + jlen : NULL, jbuf ? jcap - jlen : 0, fmt, ap);
		va_end(ap);
		if (n < 0)
			die("vsnprintf");
		if (jbuf && jlen + n < jcap) {
			jlen += n;
			return;
		}
		jcap = (jcap + n + 1) * 2;
		jbuf = realloc(jbuf, jcap);
		if (!jbuf)
			die("out of memory");
	}
}

static void jkey(const char *key)
{
	jput("%s\n%*s", jfirst ? "" : ",", 2 * jdepth, "");
	jfirst = false;
	if (key)
		jput("\"%s\": ", key);
}

static void jstr(const char *key, const char *s)
{
	jkey(key);
	jput("\"");
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			jput("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			jput("\\u%04x", *s);
		else
			jput("%c", *s);
	}
	jput("\"");
}

static void jnum(const char *key, double v)
{
	jkey(key);
	if (isfinite(v))
		jput("%.10g", v);
	else
		jput("null");
}

static void jbool(const char *key, bool v)
{
	jkey(key);
	jput(v ? "true" : "false");
}

static void jopen(const char *key)
{
	jkey(key);
	jput("{");
	jfirst = true;
	jdepth++;
}

static void jclose(void)
{
	jdepth--;
	jput("\n%*s}", 2 * jdepth, "");
	jfirst = false;
}

/* Repeated measurement: median, min, max and n. */
static void jstat(const char *key, struct sample s, double scale)
{
	jopen(key);
	jnum("median", s.median * scale);
	jnum("min", s.min * scale);
	jnum("max", s.max * scale);
	jnum("n", s.n);
	jclose();
}

/* A target of the issue: its text, the value compared, and whether it is met. */
static void jtarget(const char *key, const char *text, double value, bool met)
{
	jopen(key);
	jstr("target", text);
	jnum("value", value);
	jbool("met", met);
	jclose();
}

/* ------------------------------------------------------------------------ */
/* Shared results */

static double peak_h2d, peak_d2h;	/* line 1 medians, GB/s */
static double cpu_fault_us;		/* line 4: CPU minor fault, median */

#define MAX_REPS	64

static unsigned int reps(void)
{
	return o.reps < MAX_REPS ? o.reps : MAX_REPS;
}

/* ------------------------------------------------------------------------ */
/* Line 1: copy-engine peak */

static void line1(void)
{
	uint64_t len = o.bw_mib * MIB;
	double h2d[MAX_REPS], d2h[MAX_REPS], d2d[MAX_REPS], d2d_al[MAX_REPS], rh[MAX_REPS];
	unsigned int i, n = reps();
	struct uvm_ioc_host_register reg = { 0 };
	struct uvm_ioc_host_unregister unreg = { 0 };
	struct sample sh, sd, sdd, sal, sref;
	uint8_t *d0, *d1, *h;
	struct row *r;

	progress("line 1: copy-engine peak, %llu MiB copies x %u", (unsigned long long)o.bw_mib, n);
	vs_open();
	d0 = device_alloc(o.gpu, len);
	d1 = device_alloc(o.gpu, len + BLOCK);
	h = anon_alloc(len);
	memset(h, 0x5a, len);
	reg.address = (uintptr_t)h;
	reg.length = len;
	unreg.address = (uintptr_t)h;
	check(xioctl(fd, UVM_IOC_HOST_REGISTER, &reg), "HOST_REGISTER");
	timed_copy(d0, h, len, "COPY host->device");	/* warm-up */
	for (i = 0; i < n; i++) {
		h2d[i] = timed_copy(d0, h, len, "COPY host->device");
		d2h[i] = timed_copy(h, d0, len, "COPY device->host");
		/*
		 * Device to device one page off: at equal offsets both sides sit
		 * at a large power-of-two distance and alias in TCG's
		 * direct-mapped software TLB (see Documentation/performance.rst).
		 */
		d2d[i] = timed_copy(d1 + page_size, d0, len, "COPY device->device");
		d2d_al[i] = timed_copy(d1, d0, len, "COPY device->device");
		rh[i] = ref_copy(false);
	}
	check(xioctl(fd, UVM_IOC_HOST_UNREGISTER, &unreg), "HOST_UNREGISTER");
	munmap(h, len);
	munmap(d0, len);
	munmap(d1, len + BLOCK);
	vs_close();

	sh = stat_of(h2d, n);
	sd = stat_of(d2h, n);
	sdd = stat_of(d2d, n);
	sal = stat_of(d2d_al, n);
	sref = stat_of(rh, n);
	peak_h2d = sh.median;
	peak_d2h = sd.median;

	r = row_add("1", "copy-engine peak H2D / D2H");
	FMT(r->raw, "%.2f / %.2f GB/s", peak_h2d, peak_d2h);
	FMT(r->ratio, "100 %% (the line)");
	FMT(r->real, "100 %%");
	FMT(r->target, "-");
	FMT(r->met, "-");
	r = row_add("", "  device -> device");
	FMT(r->raw, "%.2f GB/s", sdd.median);
	FMT(r->ratio, "%.0f %% of H2D", 100 * sdd.median / peak_h2d);
	r = row_add("", "  spread of H2D samples (noise)");
	FMT(r->raw, "%.2f - %.2f GB/s", sh.min, sh.max);
	FMT(r->ratio, "+-%.0f %% of median", spread(sh) / 2);

	jopen("1_copy_engine_peak");
	jstr("what", "UVM_IOC_COPY on one GPU's copy engine: registered host memory -> device "
	     "memory (H2D), device -> host (D2H), device -> device one page off (D2D) and at "
	     "equal offsets (D2D aligned: slowed by TCG's software TLB); GB/s = 1e9 B/s; "
	     "the reference: H2D on the other GPU's engine, the divisor of the paired ratios "
	     "of lines 2, 3 and 7");
	jnum("bytes", len);
	jstat("h2d_gbps", sh, 1);
	jstat("d2h_gbps", sd, 1);
	jstat("d2d_gbps", sdd, 1);
	jstat("d2d_aligned_gbps", sal, 1);
	jstat("reference_h2d_gbps", sref, 1);
	jnum("h2d_spread_pct", spread(sh));
	jclose();
}

/* ------------------------------------------------------------------------ */
/* Line 2: prefetch to a GPU and to the host */

static void line2(void)
{
	uint64_t len = o.bw_mib * MIB, t0;
	double tg[MAX_REPS], th[MAX_REPS], rg[MAX_REPS], rh[MAX_REPS];
	unsigned int i, n = reps();
	struct sample g, h, pg, ph;
	struct row *r;
	uint8_t *p;

	progress("line 2: prefetch of %llu MiB to GPU %u and back x %u",
		 (unsigned long long)o.bw_mib, o.gpu, n);
	vs_open();
	p = managed_alloc(len);
	memset(p, 0x3c, len);
	check(migrate1(UVM_MIGRATE_PREFETCH, p, len, loc_gpu()), "prefetch to GPU");
	check(migrate1(UVM_MIGRATE_PREFETCH, p, len, LOC_HOST), "prefetch to host");
	for (i = 0; i < n; i++) {
		cpu_touch(p, len, i);	/* the CPU wrote it: resident and mapped there */
		rg[i] = ref_copy(false);
		t0 = now_ns();
		check(migrate1(UVM_MIGRATE_PREFETCH, p, len, loc_gpu()), "prefetch to GPU");
		tg[i] = (double)(now_ns() - t0);
		rg[i] = (rg[i] + ref_copy(false)) / 2;
		rh[i] = ref_copy(true);
		t0 = now_ns();
		check(migrate1(UVM_MIGRATE_PREFETCH, p, len, LOC_HOST), "prefetch to host");
		th[i] = (double)(now_ns() - t0);
		rh[i] = (rh[i] + ref_copy(true)) / 2;
		/* paired ratios, in percent */
		rg[i] = 100 * gbps(len, tg[i]) / rg[i];
		rh[i] = 100 * gbps(len, th[i]) / rh[i];
	}
	munmap(p, len);
	vs_close();
	g = stat_of(tg, n);
	h = stat_of(th, n);
	pg = stat_of(rg, n);
	ph = stat_of(rh, n);

	r = row_add("2", "prefetch to GPU");
	FMT(r->raw, "%.2f GB/s", gbps(len, g.median));
	FMT(r->ratio, "%.0f %% of peak", pg.median);
	FMT(r->real, "70-92 %%");
	FMT(r->target, ">= 95 %%");
	FMT(r->met, "%s", yesno(pg.median >= 95));
	r = row_add("", "prefetch to host");
	FMT(r->raw, "%.2f GB/s", gbps(len, h.median));
	FMT(r->ratio, "%.0f %% of peak", ph.median);
	FMT(r->real, "17-34 %%");
	FMT(r->target, ">= 90 %%");
	FMT(r->met, "%s", yesno(ph.median >= 90));

	jopen("2_prefetch");
	jstr("what", "UVM_IOC_MIGRATE PREFETCH of CPU-written managed memory to the GPU, then "
	     "of the GPU-resident memory to the host; pct = median over repetitions of the "
	     "bandwidth divided by the mean of two reference copies of the same direction, "
	     "timed just before and just after");
	jnum("bytes", len);
	jstat("to_gpu_ns", g, 1);
	jstat("to_host_ns", h, 1);
	jnum("to_gpu_gbps", gbps(len, g.median));
	jnum("to_host_gbps", gbps(len, h.median));
	jstat("to_gpu_pct_of_peak", pg, 1);
	jstat("to_host_pct_of_peak", ph, 1);
	jnum("to_gpu_pct_of_line1_peak", 100 * gbps(len, g.median) / peak_h2d);
	jnum("to_host_pct_of_line1_peak", 100 * gbps(len, h.median) / peak_d2h);
	jtarget("target_to_gpu", ">= 95 % of copy peak", pg.median, pg.median >= 95);
	jtarget("target_to_host", ">= 90 % of copy peak", ph.median, ph.median >= 90);
	jclose();
}

/* ------------------------------------------------------------------------ */
/* Line 3: fault-driven streaming read, page touch rates */

static struct uvm_test_gpu_op op_stream(const void *p, uint64_t len)
{
	return op_read(p, len, 0, 4096, UVM_TEST_ORDER_SEQUENTIAL, 0);
}

static void line3(void)
{
	uint64_t len = o.stream_mib * MIB, tlen = o.touch_mib * MIB;
	uint64_t tpages = tlen / page_size;
	double ts[MAX_REPS], tr[MAX_REPS], tq[MAX_REPS], trn[MAX_REPS], pr[MAX_REPS];
	double pf[MAX_REPS], pq[MAX_REPS], prn[MAX_REPS];
	unsigned int i, n = reps();
	struct sample s, res, seq, rnd, pct, fpath;
	struct counters c0, c1;
	uint64_t faults = 0, dup = 0, batches = 0, prefetched = 0;
	struct row *r;
	uint8_t *p, *q;

	progress("line 3: fault-driven streaming read of %llu MiB (%u warps) x %u; "
		 "page touches over %llu MiB", (unsigned long long)o.stream_mib, o.warps, n,
		 (unsigned long long)o.touch_mib);
	vs_open();
	p = managed_alloc(len);
	memset(p, 0x7e, len);
	for (i = 0; i < n; i++) {
		if (i)
			check(migrate1(UVM_MIGRATE_PREFETCH, p, len, LOC_HOST), "prefetch to host");
		cpu_touch(p, len, i);
		pr[i] = ref_copy(false);
		c0 = counters();
		ts[i] = timed_launch(o.warps, op_stream(p, len), "streaming read");
		c1 = counters();
		pr[i] = (pr[i] + ref_copy(false)) / 2;
		faults += delta(&c0, &c1, UVM_COUNTER_GPU_FAULTS);
		dup += delta(&c0, &c1, UVM_COUNTER_GPU_FAULTS_DUP);
		batches += delta(&c0, &c1, UVM_COUNTER_GPU_FAULT_BATCHES);
		prefetched += delta(&c0, &c1, UVM_COUNTER_PAGES_FAULT_PREFETCHED);
		/* the same read again, everything resident: the simulated GPU's own speed */
		tr[i] = timed_launch(o.warps, op_stream(p, len), "resident read");
		pf[i] = ts[i] > tr[i] ? 100 * gbps(len, ts[i] - tr[i]) / pr[i] : 0;
		pr[i] = 100 * gbps(len, ts[i]) / pr[i];
	}
	munmap(p, len);

	/* 4 KiB page touches: one 8-byte read per page, CPU-resident pages */
	q = managed_alloc(tlen);
	for (i = 0; i < n; i++) {
		populate_host(q, tlen);
		pq[i] = ref_copy(false);
		tq[i] = timed_launch(o.warps, op_read(q, tlen, page_size, 8,
						      UVM_TEST_ORDER_SEQUENTIAL, 0), "page touches");
		pq[i] = 100 * gbps(tlen, tq[i]) / ((pq[i] + ref_copy(false)) / 2);
		populate_host(q, tlen);
		prn[i] = ref_copy(false);
		trn[i] = timed_launch(o.warps, op_read(q, tlen, page_size, 8, UVM_TEST_ORDER_RANDOM,
						       i + 1), "random page touches");
		prn[i] = 100 * gbps(tlen, trn[i]) / ((prn[i] + ref_copy(false)) / 2);
	}
	munmap(q, tlen);
	vs_close();

	s = stat_of(ts, n);
	res = stat_of(tr, n);
	seq = stat_of(tq, n);
	rnd = stat_of(trn, n);
	pct = stat_of(pr, n);
	fpath = stat_of(pf, n);

	r = row_add("3", "fault-driven streaming read");
	FMT(r->raw, "%.3f GB/s", gbps(len, s.median));
	FMT(r->ratio, "%.1f %% of peak", pct.median);
	FMT(r->real, "20-21 %%");
	FMT(r->target, ">= 60 %%");
	FMT(r->met, "%s", yesno(pct.median >= 60));
	r = row_add("", "  same read, all resident (sim. GPU)");
	FMT(r->raw, "%.3f GB/s", gbps(len, res.median));
	FMT(r->ratio, "%.0f %% of peak", 100 * gbps(len, res.median) / peak_h2d);
	r = row_add("", "  fault path alone (minus resident)");
	FMT(r->raw, "%.3f GB/s", s.median > res.median ? gbps(len, s.median - res.median) : 0);
	FMT(r->ratio, "%.1f %% of peak", fpath.median);
	r = row_add("", "4 KiB page touches sequential");
	FMT(r->raw, "%.1f k pages/s", tpages / seq.median * 1e6);
	FMT(r->ratio, "%.1f %% of peak", stat_of(pq, n).median);
	FMT(r->real, "1.74-2.23 Mp/s");
	r = row_add("", "4 KiB page touches random");
	FMT(r->raw, "%.1f k pages/s", tpages / rnd.median * 1e6);
	FMT(r->ratio, "%.1f %% of peak", stat_of(prn, n).median);
	FMT(r->real, "(either order)");

	jopen("3_fault_streaming");
	jstr("what", "one launch reading CPU-written managed memory densely (4 KiB accesses, "
	     "every byte read and checksummed), prefetcher on; pct paired with the mean of "
	     "reference H2D copies timed just before and after; then the same read with everything resident (the "
	     "simulated GPU's own read speed); fault path alone = bytes / (streaming time - "
	     "resident time); page touches: one 8-byte read per page of CPU-resident memory");
	jnum("bytes", len);
	jnum("warps", o.warps);
	jstat("stream_ns", s, 1);
	jnum("stream_gbps", gbps(len, s.median));
	jstat("stream_pct_of_peak", pct, 1);
	jnum("stream_pct_of_line1_peak", 100 * gbps(len, s.median) / peak_h2d);
	jnum("stream_fault_entries_per_run", (double)faults / n);
	jnum("stream_fault_entries_dup_per_run", (double)dup / n);
	jnum("stream_fault_batches_per_run", (double)batches / n);
	jnum("stream_pages_fault_prefetched_per_run", (double)prefetched / n);
	jstat("resident_read_ns", res, 1);
	jnum("resident_read_gbps", gbps(len, res.median));
	jstat("fault_path_pct_of_peak", fpath, 1);
	jnum("touch_bytes", tlen);
	jstat("touch_seq_ns", seq, 1);
	jstat("touch_random_ns", rnd, 1);
	jnum("touch_seq_pages_per_s", tpages / seq.median * 1e9);
	jnum("touch_random_pages_per_s", tpages / rnd.median * 1e9);
	jstat("touch_seq_pct_of_peak", stat_of(pq, n), 1);
	jstat("touch_random_pct_of_peak", stat_of(prn, n), 1);
	jtarget("target_stream", ">= 60 % of copy peak", pct.median, pct.median >= 60);
	jclose();
}

/* ------------------------------------------------------------------------ */
/* Line 4: isolated fault round trip vs a CPU minor fault */

/* Median time of an anonymous write fault on a fresh page (clock cost removed). */
static struct sample cpu_minor_fault(unsigned int n)
{
	uint8_t *p = anon_alloc((uint64_t)n * page_size);
	double *t = calloc(n, sizeof(*t)), *e = calloc(n, sizeof(*e));
	struct sample s, empty;
	unsigned int i;
	uint64_t t0;

	if (!t || !e)
		die("out of memory");
	for (i = 0; i < n; i++) {
		t0 = now_ns();
		e[i] = (double)(now_ns() - t0);
		t0 = now_ns();
		p[(uint64_t)i * page_size] = 1;
		t[i] = (double)(now_ns() - t0);
	}
	empty = stat_of(e, n);
	s = stat_of(t, n);
	s.median -= empty.median;
	s.min -= empty.median;
	s.max -= empty.median;
	munmap(p, (uint64_t)n * page_size);
	free(t);
	free(e);
	return s;
}

/*
 * A CPU minor fault now: median of 64 anonymous write faults, in us.  Lines
 * that state a cost as a multiple of a CPU fault measure one right where
 * they measure, so that the host's load drifting during the run cancels.
 */
static double cpu_fault_now(void)
{
	return cpu_minor_fault(64).median / 1e3;
}

/* A one-warp launch of one 8-byte read at @p; ns. */
static double read_one(const uint8_t *p, const char *what)
{
	return timed_launch(1, op_read(p, 8, 0, 8, UVM_TEST_ORDER_SEQUENTIAL, 0), what);
}

/* One page per block made resident on the GPU: the block has a chunk there. */
static void give_chunks(uint8_t *p, uint64_t len)
{
	uint64_t off;

	for (off = 0; off < len; off += BLOCK)
		check(migrate1(UVM_MIGRATE_PREFETCH, p + off + page_size, page_size, loc_gpu()),
		      "prefetch one page per block");
}

static void line4(void)
{
	unsigned int n = o.isolated, nfresh = n < 64 ? n : 64, k;
	uint64_t stride = 16 * page_size;		/* no density prefetch in between */
	uint64_t len = ((uint64_t)n * stride + BLOCK - 1) & ~(BLOCK - 1);
	double *t = calloc(7 * (size_t)n, sizeof(*t));
	double *tres = t, *tcpu = t + n, *tpop = t + 2 * n, *tfr = t + 3 * n, *tdiff = t + 4 * n;
	double *tmin = t + 5 * n, *tclk = t + 6 * n;
	struct sample res, cpu, pop, fresh, minor, dcpu, dpop, dfr, clk;
	struct counters c0, c1;
	uint8_t *a, *u, *f, *anon;
	uint64_t t0;
	struct row *r;
	double x, fault_us, pop_us, fresh_us;
	uint64_t pages_h2d, faults;

	if (!t)
		die("out of memory");
	progress("line 4: %u isolated GPU faults of each kind (prefetcher off) and CPU minor "
		 "faults, interleaved", n);
	anon = anon_alloc((uint64_t)n * page_size);
	vs_open();
	set_prefetch(false);
	a = managed_alloc(len);		/* CPU-resident pages, blocks with a GPU chunk */
	populate_host(a, len);
	give_chunks(a, len);
	u = managed_alloc(len);		/* untouched pages, blocks with a GPU chunk */
	give_chunks(u, len);
	f = managed_alloc(nfresh * BLOCK);	/* one CPU-resident page per fresh block */
	for (k = 0; k < nfresh; k++)
		populate_host(f + k * BLOCK, page_size);

	/* interleaved, so that the host's noise hits every kind alike */
	c0 = counters();
	for (k = 0; k < n; k++) {
		t0 = now_ns();
		tclk[k] = (double)(now_ns() - t0);
		t0 = now_ns();
		anon[(uint64_t)k * page_size] = 1;	/* a CPU minor fault */
		tmin[k] = (double)(now_ns() - t0);
		tres[k] = read_one(a + page_size, "resident read");
		tcpu[k] = read_one(a + k * stride, "isolated fault, CPU-resident");
		tpop[k] = read_one(u + k * stride, "isolated fault, untouched");
		if (k < nfresh)
			tfr[k] = read_one(f + k * BLOCK, "first fault in a block");
	}
	c1 = counters();
	pages_h2d = delta(&c0, &c1, UVM_COUNTER_PAGES_H2D);
	faults = delta(&c0, &c1, UVM_COUNTER_GPU_FAULTS) - delta(&c0, &c1, UVM_COUNTER_GPU_FAULTS_DUP);
	set_prefetch(true);
	munmap(a, len);
	munmap(u, len);
	munmap(f, nfresh * BLOCK);
	munmap(anon, (uint64_t)n * page_size);
	vs_close();

	clk = stat_of(tclk, n);
	minor = stat_of(tmin, n);
	minor.median -= clk.median;
	minor.min -= clk.median;
	minor.max -= clk.median;
	cpu_fault_us = minor.median / 1e3;

	/* paired differences: each fault launch minus the resident launch before it */
	for (k = 0; k < n; k++)
		tdiff[k] = tcpu[k] - tres[k];
	dcpu = stat_of(tdiff, n);
	for (k = 0; k < n; k++)
		tdiff[k] = tpop[k] - tres[k];
	dpop = stat_of(tdiff, n);
	for (k = 0; k < nfresh; k++)
		tdiff[k] = tfr[k] - tres[k];
	dfr = stat_of(tdiff, nfresh);
	res = stat_of(tres, n);
	cpu = stat_of(tcpu, n);
	pop = stat_of(tpop, n);
	fresh = stat_of(tfr, nfresh);
	free(t);

	fault_us = dcpu.median / 1e3;
	pop_us = dpop.median / 1e3;
	fresh_us = dfr.median / 1e3;
	x = fault_us / cpu_fault_us;

	r = row_add("4", "isolated GPU fault, CPU-resident 4K");
	FMT(r->raw, "%.1f us", fault_us);
	FMT(r->ratio, "%.1f x CPU fault", x);
	FMT(r->real, "17-19 x (64K)");
	FMT(r->target, "<= 5 x");
	FMT(r->met, "%s", yesno(x <= 5));
	r = row_add("", "  untouched page (populate)");
	FMT(r->raw, "%.1f us", pop_us);
	FMT(r->ratio, "%.1f x CPU fault", pop_us / cpu_fault_us);
	FMT(r->real, "12.9 x");
	r = row_add("", "  first fault in a fresh 2 MiB block");
	FMT(r->raw, "%.1f us", fresh_us);
	FMT(r->ratio, "%.1f x CPU fault", fresh_us / cpu_fault_us);
	FMT(r->real, "40-48 x");
	r = row_add("", "  CPU minor fault (anon write)");
	FMT(r->raw, "%.2f us", cpu_fault_us);
	FMT(r->ratio, "1 x");
	FMT(r->real, "1 x (1.56 us)");
	r = row_add("", "  launch without fault (subtracted)");
	FMT(r->raw, "%.1f us", res.median / 1e3);
	FMT(r->ratio, "%.1f x CPU fault", res.median / 1e3 / cpu_fault_us);

	jopen("4_isolated_fault");
	jstr("what", "one-warp launches of one 8-byte GPU read each, the kinds interleaved; "
	     "fault cost = median over k of (launch k with a fault - the launch on a "
	     "GPU-resident page just before it); prefetcher off; CPU minor fault: anonymous "
	     "write fault on a fresh page, one per k in the same loop, median, clock_gettime "
	     "cost removed");
	jnum("faults_per_kind", n);
	jnum("fresh_block_faults", nfresh);
	jstat("launch_resident_ns", res, 1);
	jstat("launch_fault_cpu_resident_ns", cpu, 1);
	jstat("launch_fault_untouched_ns", pop, 1);
	jstat("launch_fault_fresh_block_ns", fresh, 1);
	jstat("fault_cpu_resident_ns", dcpu, 1);
	jstat("fault_untouched_ns", dpop, 1);
	jstat("fault_fresh_block_ns", dfr, 1);
	jnum("serviced_faults", faults);
	jnum("pages_h2d", pages_h2d);
	jstat("cpu_minor_fault_ns", minor, 1);
	jnum("fault_x_cpu_minor_fault", x);
	jnum("untouched_x_cpu_minor_fault", pop_us / cpu_fault_us);
	jnum("fresh_block_x_cpu_minor_fault", fresh_us / cpu_fault_us);
	jtarget("target", "<= 5 CPU minor faults", x, x <= 5);
	jclose();
}

/* ------------------------------------------------------------------------ */
/* Line 5: sparse faults in full batches */

/* The GPU counters read (their sysfs files, by uvm_gpu_counter_name()). */
static const unsigned int stage_counters[] = {
	UVM_NL_GPU_FAULT_FETCH_NS, UVM_NL_GPU_FAULT_COALESCE_NS, UVM_NL_GPU_FAULT_SERVICE_NS,
	UVM_NL_GPU_FAULT_REPLAY_NS, UVM_NL_GPU_FAULTS, UVM_NL_GPU_FAULTS_DUPLICATE,
	UVM_NL_GPU_FAULT_BATCHES, UVM_NL_GPU_REPLAYS,
};

#define NSYS ((int)(sizeof(stage_counters) / sizeof(stage_counters[0])))
#define S_FAULTS	4
#define S_DUP		5
#define S_BATCHES	6
#define S_REPLAYS	7

/* One round: @nb warps each reading 8 bytes at @p + k * BLOCK; sysfs deltas in @d. */
static double sparse_round(uint8_t *p, uint32_t nb, uint64_t *d)
{
	uint64_t s0[NSYS];
	double t;
	int k;

	for (k = 0; k < NSYS; k++)
		s0[k] = gpu_sysfs(uvm_gpu_counter_name(stage_counters[k]));
	t = timed_launch(nb, op_read(p, (uint64_t)(nb - 1) * BLOCK + 8, BLOCK, 8,
				     UVM_TEST_ORDER_SEQUENTIAL, 0), "sparse faults");
	for (k = 0; k < NSYS; k++)
		d[k] = gpu_sysfs(uvm_gpu_counter_name(stage_counters[k])) - s0[k];
	return t;
}

static void line5(void)
{
	static const unsigned int policies[] = { 2, 1, 3, 4 };	/* the default first */
	static const char *const policy_name[] = {
		[1] = "per block", [2] = "per batch", [3] = "batch+flush", [4] = "once",
	};
	uint32_t nb = o.sparse_blocks;
	uint64_t len = (uint64_t)nb * BLOCK, off, d[NSYS], first[NSYS];
	unsigned int rounds = o.sparse_rounds, rd, pi, k, slot = 1;
	double t[4][MAX_REPS], x[4][MAX_REPS], stage[4][4][MAX_REPS], cfs[MAX_REPS];
	double t_first, per_fault = 0, per_fault_x = 0, cf, cf_first;
	uint64_t sum[4][NSYS] = { { 0 } }, unique;
	char old_policy[16], val[8];
	struct sample st;
	struct row *r;
	uint8_t *p;

	progress("line 5: %u concurrent faults, one per 2 MiB block (%llu MiB), 1 + %u x 4 "
		 "rounds (replay policies)", nb, (unsigned long long)(len >> 20), rounds);
	read_param("fault_replay_policy", old_policy, sizeof(old_policy));
	vs_open();
	set_prefetch(false);
	p = managed_alloc(len);
	/* the pages the rounds touch (64 KiB apart in each block) are CPU-resident */
	for (off = 0; off < len; off += BLOCK)
		for (rd = 0; rd < 1 + 4 * rounds; rd++)
			populate_host(p + off + rd * 64 * KIB, page_size);

	/* round 0: fresh blocks (chunk allocation), default policy */
	write_param("fault_replay_policy", "2");
	cf_first = cpu_fault_now();
	t_first = sparse_round(p, nb, first);

	jopen("5_sparse_batches");
	jstr("what", "launches of N warps, each reading 8 bytes of one CPU-resident page in "
	     "its own 2 MiB block (N concurrent faults); round 0 in fresh blocks, then rounds "
	     "on other pages of the same blocks under each fault_replay_policy (the policies "
	     "round-robin); stage times = sysfs fault_*_ns deltas per serviced "
	     "(non-duplicate) fault of a round, median over the rounds; counts summed over "
	     "the rounds; x CPU fault: per round, against CPU minor faults timed before and "
	     "after it; prefetcher off");
	jnum("concurrent_faults", nb);
	jnum("rounds_per_policy", rounds);
	jnum("first_round_us_per_fault", t_first / nb / 1e3);
	jnum("first_round_x_cpu_minor_fault", t_first / nb / 1e3 / cf_first);
	jnum("first_round_fault_batches", first[S_BATCHES]);
	/* the policies round-robin, so that the host's load hits each alike */
	for (rd = 0; rd < rounds; rd++) {
		cf = cpu_fault_now();
		for (pi = 0; pi < 4; pi++, slot++) {
			snprintf(val, sizeof(val), "%u", policies[pi]);
			write_param("fault_replay_policy", val);
			t[pi][rd] = sparse_round(p + slot * 64 * KIB, nb, d);
			unique = d[S_FAULTS] - d[S_DUP];
			for (k = 0; k < 4; k++)
				stage[pi][k][rd] = unique ? d[k] / 1e3 / unique : 0;
			for (k = 0; k < NSYS; k++)
				sum[pi][k] += d[k];
		}
		cf = (cf + cpu_fault_now()) / 2;
		for (pi = 0; pi < 4; pi++)
			x[pi][rd] = t[pi][rd] / nb / 1e3 / cf;
		cfs[rd] = cf;
	}
	cf = stat_of(cfs, rounds).median;
	for (pi = 0; pi < 4; pi++) {
		double sm[4], stages = 0, xm;
		char key[16];

		st = stat_of(t[pi], rounds);
		xm = stat_of(x[pi], rounds).median;
		/* per-round us per serviced fault, median over the rounds */
		for (k = 0; k < 4; k++) {
			sm[k] = stat_of(stage[pi][k], rounds).median;
			stages += sm[k];
		}
		if (!pi) {
			per_fault = st.median / nb / 1e3;
			per_fault_x = xm;
			r = row_add("5", "sparse faults, policy per batch");
			FMT(r->raw, "%.1f us/fault", per_fault);
			FMT(r->ratio, "%.1f x CPU fault", xm);
			FMT(r->real, "8.7 x (13.6us)");
			FMT(r->target, "-");
			FMT(r->met, "-");
			r = row_add("", "  fetch/coalesce/service/replay");
			FMT(r->raw, "%.1f/%.1f/%.1f/%.1f us", sm[0], sm[1], sm[2], sm[3]);
			FMT(r->ratio, "%.0f %% of wall in stages", 100 * stages / per_fault);
			r = row_add("", "  faults per batch, duplicates");
			FMT(r->raw, "%.1f per batch", sum[pi][S_BATCHES] ?
			    (double)sum[pi][S_FAULTS] / sum[pi][S_BATCHES] : 0);
			FMT(r->ratio, "%.0f %% duplicates", sum[pi][S_FAULTS] ?
			    100.0 * sum[pi][S_DUP] / sum[pi][S_FAULTS] : 0);
			r = row_add("", "  first round (fresh blocks)");
			FMT(r->raw, "%.1f us/fault", t_first / nb / 1e3);
			FMT(r->ratio, "%.1f x CPU fault", t_first / nb / 1e3 / cf_first);
		} else {
			char what[48];

			snprintf(what, sizeof(what), "  replay policy %s", policy_name[policies[pi]]);
			r = row_add("", what);
			FMT(r->raw, "%.1f us/f, %.1f x CPU", st.median / nb / 1e3, xm);
			FMT(r->ratio, "%.1f per batch, %.0f %% dup", sum[pi][S_BATCHES] ?
			    (double)sum[pi][S_FAULTS] / sum[pi][S_BATCHES] : 0, sum[pi][S_FAULTS] ?
			    100.0 * sum[pi][S_DUP] / sum[pi][S_FAULTS] : 0);
		}
		snprintf(key, sizeof(key), "policy_%u", policies[pi]);
		jopen(key);
		jstr("policy", policy_name[policies[pi]]);
		jstat("round_ns", st, 1);
		jnum("us_per_fault", st.median / nb / 1e3);
		jnum("x_cpu_minor_fault", xm);
		jnum("fetch_us_per_fault", sm[0]);
		jnum("coalesce_us_per_fault", sm[1]);
		jnum("service_us_per_fault", sm[2]);
		jnum("replay_us_per_fault", sm[3]);
		jnum("fault_entries", sum[pi][S_FAULTS]);
		jnum("fault_entries_duplicate", sum[pi][S_DUP]);
		jnum("fault_batches", sum[pi][S_BATCHES]);
		jnum("replays", sum[pi][S_REPLAYS]);
		jclose();
	}
	jnum("cpu_minor_fault_us", cf);
	jnum("us_per_fault", per_fault);
	jnum("x_cpu_minor_fault", per_fault_x);
	jclose();

	write_param("fault_replay_policy", old_policy[0] ? old_policy : "2");
	set_prefetch(true);
	munmap(p, len);
	vs_close();
}

/* ------------------------------------------------------------------------ */
/* Line 6: batched prefetch of resident ranges, batched discard */

static int migrate_batch(uint32_t op, struct uvm_range *ranges, uint64_t n,
			 struct uvm_location *loc)
{
	uint64_t start = 0;
	struct uvm_ioc_migrate m = {
		.op = op,
		.ranges_ptr = (uintptr_t)ranges,
		.count = n,
	};

	if (op != UVM_MIGRATE_DISCARD) {
		m.locations_ptr = (uintptr_t)loc;
		m.location_starts_ptr = (uintptr_t)&start;
		m.num_locations = 1;
	}
	return xioctl(fd, UVM_IOC_MIGRATE, &m);
}

/* Null ioctl: GET_VERSION, per call, one group of 100 calls. */
static double null_ioctl(void)
{
	struct uvm_ioc_version v;
	uint64_t t0 = now_ns();
	unsigned int i;

	for (i = 0; i < 100; i++) {
		memset(&v, 0, sizeof(v));
		check(xioctl(fd, UVM_IOC_GET_VERSION, &v), "GET_VERSION");
	}
	return (double)(now_ns() - t0) / 100;
}

static void line6(void)
{
	uint64_t n = o.batch_ranges, rs = o.batch_kib * KIB, len = n * rs, i, t0;
	struct uvm_location loc = loc_gpu();
	struct uvm_range *ranges = calloc(n, sizeof(*ranges));
	double tp[3 * MAX_REPS], td[3 * MAX_REPS], tsn[MAX_REPS], tdp[3 * MAX_REPS];
	double tg[3 * MAX_REPS], xgv[3 * MAX_REPS];
	double tn[18 * MAX_REPS], xpv[3 * MAX_REPS], xdv[3 * MAX_REPS];
	unsigned int k, nn = 0, reps_n = reps(), nb = 3 * reps_n;
	struct sample nul, pf, dc, sg, dp, xp, xd, gp, xg;
	struct row *r;
	double cf;
	uint8_t *p;

	if (!ranges)
		die("out of memory");
	if (len > ginfo.vidmem_size)
		die("line 6: %llu ranges of %llu KiB do not fit in %llu MiB of vidmem "
		    "(load uvm.ko with a larger vidmem_mb)", (unsigned long long)n,
		    (unsigned long long)o.batch_kib, (unsigned long long)(ginfo.vidmem_size >> 20));
	progress("line 6: batches of %llu x %llu KiB ranges (%llu MiB) x %u, single ranges x %u",
		 (unsigned long long)n, (unsigned long long)o.batch_kib,
		 (unsigned long long)(len >> 20), nb, reps_n);
	vs_open();
	p = managed_alloc(len);
	for (i = 0; i < n; i++) {
		ranges[i].address = (uintptr_t)p + i * rs;
		ranges[i].length = rs;
	}
	check(migrate_batch(UVM_MIGRATE_DISCARD_PREFETCH, ranges, n, &loc), "populate on GPU");
	check(migrate_batch(UVM_MIGRATE_PREFETCH, ranges, n, &loc), "prefetch");
	cf = cpu_fault_now();
	for (k = 0; k < nb; k++) {
		tn[nn++] = null_ioctl();
		t0 = now_ns();
		check(migrate_batch(UVM_MIGRATE_PREFETCH, ranges, n, &loc), "batched prefetch");
		tp[k] = (double)(now_ns() - t0) / n;
		tn[nn++] = null_ioctl();
		xpv[k] = tp[k] / ((tn[nn - 1] + tn[nn - 2]) / 2);
	}
	for (k = 0; k < reps_n; k++) {
		t0 = now_ns();
		for (i = 0; i < n; i++)
			check(migrate_batch(UVM_MIGRATE_PREFETCH, ranges + i, 1, &loc),
			      "single prefetch");
		tsn[k] = (double)(now_ns() - t0) / n;
	}
	for (k = 0; k < nb; k++) {
		check(migrate_batch(UVM_MIGRATE_PREFETCH, ranges, n, &loc), "re-populate");
		tn[nn++] = null_ioctl();
		t0 = now_ns();
		check(migrate_batch(UVM_MIGRATE_DISCARD, ranges, n, NULL), "batched discard");
		td[k] = (double)(now_ns() - t0) / n;
		tn[nn++] = null_ioctl();
		xdv[k] = td[k] / ((tn[nn - 1] + tn[nn - 2]) / 2);
		t0 = now_ns();
		check(migrate_batch(UVM_MIGRATE_DISCARD_PREFETCH, ranges, n, &loc),
		      "batched discard+prefetch");
		tdp[k] = (double)(now_ns() - t0) / n;
	}
	/*
	 * The batched prefetch again with a gap of one range after each range:
	 * the module merges adjacent ranges into runs, this batch has none.
	 */
	check(migrate_batch(UVM_MIGRATE_DISCARD, ranges, n, NULL), "free");
	munmap(p, len);
	p = managed_alloc(2 * len);
	for (i = 0; i < n; i++)
		ranges[i].address = (uintptr_t)p + 2 * i * rs;
	check(migrate_batch(UVM_MIGRATE_DISCARD_PREFETCH, ranges, n, &loc), "populate gapped");
	for (k = 0; k < nb; k++) {
		tn[nn++] = null_ioctl();
		t0 = now_ns();
		check(migrate_batch(UVM_MIGRATE_PREFETCH, ranges, n, &loc), "gapped prefetch");
		tg[k] = (double)(now_ns() - t0) / n;
		tn[nn++] = null_ioctl();
		xgv[k] = tg[k] / ((tn[nn - 1] + tn[nn - 2]) / 2);
	}
	cf = (cf + cpu_fault_now()) / 2;
	munmap(p, 2 * len);
	free(ranges);
	vs_close();

	nul = stat_of(tn, nn);
	pf = stat_of(tp, nb);
	sg = stat_of(tsn, reps_n);
	dc = stat_of(td, nb);
	dp = stat_of(tdp, nb);
	xp = stat_of(xpv, nb);
	xd = stat_of(xdv, nb);
	gp = stat_of(tg, nb);
	xg = stat_of(xgv, nb);

	r = row_add("6", "batched prefetch, resident");
	FMT(r->raw, "%.3f us/range", pf.median / 1e3);
	FMT(r->ratio, "%.2f x null ioctl", xp.median);
	FMT(r->real, "24 x CPU fault");
	FMT(r->target, "<= 0.1 x");
	FMT(r->met, "%s", yesno(xp.median <= 0.1));
	r = row_add("", "  same, a range's gap between ranges");
	FMT(r->raw, "%.3f us/range", gp.median / 1e3);
	FMT(r->ratio, "%.2f x null ioctl", xg.median);
	r = row_add("", "batched discard");
	FMT(r->raw, "%.3f us/range", dc.median / 1e3);
	FMT(r->ratio, "%.2f x null ioctl", xd.median);
	FMT(r->real, "4.9 x CPU fault");
	r = row_add("", "  same two, x CPU minor fault");
	FMT(r->raw, "%.3f x / %.2f x", pf.median / 1e3 / cf, dc.median / 1e3 / cf);
	FMT(r->ratio, "(prefetch / discard)");
	r = row_add("", "  single-range prefetch, resident");
	FMT(r->raw, "%.2f us/range", sg.median / 1e3);
	FMT(r->ratio, "%.1f x null ioctl", sg.median / nul.median);
	FMT(r->real, "3.1 x CPU fault");
	r = row_add("", "  batched discard+prefetch");
	FMT(r->raw, "%.2f us/range", dp.median / 1e3);
	FMT(r->ratio, "%.1f x null ioctl", dp.median / nul.median);
	r = row_add("", "  null ioctl (GET_VERSION)");
	FMT(r->raw, "%.3f us", nul.median / 1e3);
	FMT(r->ratio, "%.2f x CPU fault", nul.median / 1e3 / cf);

	jopen("6_batched_ranges");
	jstr("what", "one UVM_IOC_MIGRATE of N ranges already resident on the GPU (PREFETCH), "
	     "of N GPU-resident ranges (DISCARD, re-populated untimed before each), "
	     "DISCARD_PREFETCH, and N single-range PREFETCH ioctls; ns per range; null "
	     "ioctl: GET_VERSION, groups of 100 timed right before and after each batch, "
	     "the ratio paired with their mean; the gapped prefetch repeats the batched "
	     "prefetch with one range's gap after each range (nothing the module can merge)");
	jnum("ranges", n);
	jnum("range_bytes", rs);
	jstat("null_ioctl_ns", nul, 1);
	jstat("batched_prefetch_resident_ns_per_range", pf, 1);
	jstat("single_prefetch_resident_ns_per_range", sg, 1);
	jstat("batched_discard_ns_per_range", dc, 1);
	jstat("batched_discard_prefetch_ns_per_range", dp, 1);
	jstat("batched_prefetch_x_null_ioctl", xp, 1);
	jstat("batched_prefetch_gapped_ns_per_range", gp, 1);
	jstat("batched_prefetch_gapped_x_null_ioctl", xg, 1);
	jstat("batched_discard_x_null_ioctl", xd, 1);
	jnum("single_prefetch_x_null_ioctl", sg.median / nul.median);
	jnum("cpu_minor_fault_us", cf);
	jnum("batched_prefetch_x_cpu_minor_fault", pf.median / 1e3 / cf);
	jnum("batched_discard_x_cpu_minor_fault", dc.median / 1e3 / cf);
	jnum("single_prefetch_x_cpu_minor_fault", sg.median / 1e3 / cf);
	jtarget("target", "batched prefetch of resident ranges <= 0.1 null ioctl per range",
		xp.median, xp.median <= 0.1);
	jclose();
}

/* ------------------------------------------------------------------------ */
/* Line 7: oversubscribed streaming */

static void line7(void)
{
	static const unsigned int quarters[] = { 5, 8, 16 };	/* 1.25x, 2x, 4x */
	uint64_t eff = o.oversub_mib * MIB, ballast_len = 0;
	unsigned int i, k, n = o.oversub_reps;
	uint8_t *ballast = NULL, *p;
	struct counters c0, c1;
	struct row *r;
	double pct2 = 0;

	if (eff > ginfo.vidmem_size)
		eff = ginfo.vidmem_size;
	progress("line 7: streaming read of 1.25x, 2x, 4x %llu MiB of effective vidmem "
		 "(%llu MiB pinned by device memory) x %u", (unsigned long long)(eff >> 20),
		 (unsigned long long)((ginfo.vidmem_size - eff) >> 20), n);
	vs_open();
	if (eff < ginfo.vidmem_size) {
		/* Device memory is never evicted: it pins all but eff bytes. */
		ballast_len = ginfo.vidmem_size - eff;
		ballast = device_alloc(o.gpu, ballast_len);
	}
	jopen("7_oversubscription");
	jstr("what", "one launch reading (4 KiB accesses) k x the GPU's free vidmem of "
	     "CPU-written managed memory, first pass: every page faults in, LRU chunks are "
	     "evicted to the host; the rest of vidmem is pinned by a device-memory "
	     "allocation; pct paired with the mean of reference H2D copies timed just "
	     "before and after; counters summed over the repetitions");
	jnum("effective_vidmem_bytes", eff);
	jnum("pinned_device_memory_bytes", ballast_len);
	jnum("reps", n);
	for (i = 0; i < 3; i++) {
		uint64_t len = eff / 4 * quarters[i];
		double t[MAX_REPS], pv[MAX_REPS], refbw;
		struct sample st, sp;
		uint64_t ev = 0, h2d = 0, d2h = 0, fe = 0;
		char key[16], what[48];

		for (k = 0; k < n; k++) {
			p = managed_alloc(len);
			cpu_touch(p, len, i);
			refbw = ref_copy(false);
			c0 = counters();
			t[k] = timed_launch(o.warps, op_stream(p, len), "oversubscribed read");
			c1 = counters();
			refbw = (refbw + ref_copy(false)) / 2;
			munmap(p, len);
			vidmem_wait(ballast_len);
			pv[k] = 100 * gbps(len, t[k]) / refbw;
			ev += delta(&c0, &c1, UVM_COUNTER_PAGES_EVICTED);
			h2d += delta(&c0, &c1, UVM_COUNTER_PAGES_H2D);
			d2h += delta(&c0, &c1, UVM_COUNTER_PAGES_D2H);
			fe += delta(&c0, &c1, UVM_COUNTER_GPU_FAULTS);
		}
		st = stat_of(t, n);
		sp = stat_of(pv, n);
		if (quarters[i] == 8)
			pct2 = sp.median;
		snprintf(what, sizeof(what), "streaming read at %.2fx vidmem", quarters[i] / 4.0);
		r = row_add(i ? "" : "7", what);
		FMT(r->raw, "%.3f GB/s", gbps(len, st.median));
		FMT(r->ratio, "%.1f %% of peak", sp.median);
		if (quarters[i] == 5)
			FMT(r->real, "14 %%");
		if (quarters[i] == 8) {
			FMT(r->real, "12 %%");
			FMT(r->target, ">= 40 %%");
			FMT(r->met, "%s", yesno(sp.median >= 40));
		}
		snprintf(key, sizeof(key), "x%.2f", quarters[i] / 4.0);
		jopen(key);
		jnum("bytes", len);
		jstat("ns", st, 1);
		jnum("gbps", gbps(len, st.median));
		jstat("pct_of_peak", sp, 1);
		jnum("pct_of_line1_peak", 100 * gbps(len, st.median) / peak_h2d);
		jnum("pages_streamed", (double)n * len / page_size);
		jnum("pages_evicted", ev);
		jnum("pages_evicted_lru_minimum", (double)n * (len - eff) / page_size);
		jnum("pages_h2d", h2d);
		jnum("pages_d2h", d2h);
		jnum("gpu_fault_entries", fe);
		jclose();
	}
	if (ballast)
		munmap(ballast, ballast_len);
	vs_close();
	jtarget("target_2x", "2x oversubscribed streaming >= 40 % of copy peak", pct2,
		pct2 >= 40);
	jclose();
}

/* ------------------------------------------------------------------------ */
/* Line 8: prefetch accuracy */

enum pattern { PAT_SEQ, PAT_STRIDE64K, PAT_RANDOM, PAT_RANDOM10, NPAT };

static const char *const pat_name[NPAT] = {
	"sequential", "64 KiB-strided", "random", "random-10 %",
};

static const char *const pat_key[NPAT] = {
	"sequential", "strided_64k", "random", "random_10pct",
};

struct accuracy {
	double faults_per_mib;		/* serviced (non-duplicate) faults */
	double entries_per_mib;		/* fault entries fetched */
	double migrated_per_touched;
	uint64_t touched, migrated, prefetched;
	double ns;
};

/* The ops of a pattern over @p; *@touched = pages touched. */
static struct uvm_test_gpu_op *pattern_ops(enum pattern pat, uint8_t *p, uint64_t len,
					   uint32_t *nops, uint64_t *touched)
{
	uint64_t npages = len / page_size, seed = 0x243f6a8885a308d3ULL, x, i;
	struct uvm_test_gpu_op *ops;
	uint8_t *pick;

	*nops = 1;
	if (pat == PAT_RANDOM10)
		*nops = npages / 10;
	if (*nops > UVM_TEST_MAX_OPS)
		die("line 8: %llu MiB needs more than %u ops", (unsigned long long)o.accuracy_mib,
		    UVM_TEST_MAX_OPS);
	ops = calloc(*nops, sizeof(*ops));
	if (!ops)
		die("out of memory");
	switch (pat) {
	case PAT_SEQ:
	case PAT_RANDOM:
		ops[0] = op_read(p, len, page_size, 8, pat == PAT_SEQ ? UVM_TEST_ORDER_SEQUENTIAL :
				 UVM_TEST_ORDER_RANDOM, 7);
		*touched = npages;
		break;
	case PAT_STRIDE64K:
		ops[0] = op_read(p, len, 64 * KIB, 8, UVM_TEST_ORDER_SEQUENTIAL, 0);
		*touched = len / (64 * KIB);
		break;
	default:
		/* 10 % of the pages, chosen at random, in random order: one op each */
		pick = calloc(npages, 1);
		if (!pick)
			die("out of memory");
		for (i = 0; i < *nops; i++) {
			do {
				seed ^= seed << 13;
				seed ^= seed >> 7;
				seed ^= seed << 17;
				x = seed % npages;
			} while (pick[x]);
			pick[x] = 1;
			ops[i] = op_read(p + x * page_size, 8, 0, 8, UVM_TEST_ORDER_SEQUENTIAL, 0);
		}
		free(pick);
		*touched = *nops;
		break;
	}
	return ops;
}

static struct accuracy accuracy_run(enum pattern pat, bool prefetch)
{
	uint64_t len = o.accuracy_mib * MIB, t0, f, u;
	struct uvm_test_gpu_op *ops;
	struct accuracy a = { 0 };
	struct counters c0, c1;
	uint32_t nops;
	uint8_t *p;

	vs_open();
	p = managed_alloc(len);
	populate_host(p, len);
	ops = pattern_ops(pat, p, len, &nops, &a.touched);
	set_prefetch(prefetch);
	c0 = counters();
	t0 = now_ns();
	check(launch(pat == PAT_RANDOM10 ? 1 : o.warps, ops, nops), "accuracy launch");
	a.ns = (double)(now_ns() - t0);
	c1 = counters();
	set_prefetch(true);
	munmap(p, len);
	free(ops);
	vs_close();

	f = delta(&c0, &c1, UVM_COUNTER_GPU_FAULTS);
	u = f - delta(&c0, &c1, UVM_COUNTER_GPU_FAULTS_DUP);
	a.touched *= page_size;
	a.migrated = delta(&c0, &c1, UVM_COUNTER_BYTES_H2D);
	a.prefetched = delta(&c0, &c1, UVM_COUNTER_PAGES_FAULT_PREFETCHED);
	a.faults_per_mib = (double)u / ((double)a.touched / MIB);
	a.entries_per_mib = (double)f / ((double)a.touched / MIB);
	a.migrated_per_touched = (double)a.migrated / a.touched;
	return a;
}

static void jaccuracy(const char *key, const struct accuracy *a)
{
	jopen(key);
	jnum("touched_bytes", a->touched);
	jnum("faults_per_mib", a->faults_per_mib);
	jnum("fault_entries_per_mib", a->entries_per_mib);
	jnum("migrated_bytes", a->migrated);
	jnum("migrated_per_touched", a->migrated_per_touched);
	jnum("pages_fault_prefetched", a->prefetched);
	jnum("ns", a->ns);
	jclose();
}

static void line8(void)
{
	struct accuracy on[NPAT], off[NPAT];
	struct row *r;
	bool met = false;
	int i;

	progress("line 8: prefetch accuracy over %llu MiB, 4 patterns, prefetcher on and off",
		 (unsigned long long)o.accuracy_mib);
	for (i = 0; i < NPAT; i++) {
		on[i] = accuracy_run(i, true);
		off[i] = accuracy_run(i, false);
	}
	jopen("8_prefetch_accuracy");
	jstr("what", "one 8-byte GPU read per touched page of CPU-resident managed memory; "
	     "faults = serviced (non-duplicate) faults, entries = fault entries fetched, "
	     "migrated = BYTES_H2D; touched = pages touched x 4 KiB; random-10 % runs one "
	     "op per page (one warp, one after the other), the others one op with many "
	     "warps");
	jnum("bytes", o.accuracy_mib * MIB);
	for (i = 0; i < NPAT; i++) {
		char what[48];

		snprintf(what, sizeof(what), "%s, prefetch on / off", pat_name[i]);
		r = row_add(i ? "" : "8", what);
		FMT(r->raw, "%.0f / %.0f faults/MiB", on[i].faults_per_mib, off[i].faults_per_mib);
		FMT(r->ratio, "%.2f / %.2f B moved/B", on[i].migrated_per_touched,
		    off[i].migrated_per_touched);
		if (i == PAT_RANDOM10) {
			met = on[i].migrated_per_touched <= 16;
			FMT(r->target, "<= 16 x");
			FMT(r->met, "%s", yesno(met));
		}
		jopen(pat_key[i]);
		jaccuracy("prefetch_on", &on[i]);
		jaccuracy("prefetch_off", &off[i]);
		jclose();
	}
	jtarget("target_random_10pct", "random-10 % moves <= 16 x the bytes touched",
		on[PAT_RANDOM10].migrated_per_touched, met);
	jclose();
}

/* ------------------------------------------------------------------------ */
/* Line 9: test_hmm */

static double hmm_migrate(int hfd, unsigned long cmd, uint8_t *a, uint8_t *mirror,
			  uint64_t npages, const char *what)
{
	struct hmm_dmirror_cmd c = {
		.addr = (uintptr_t)a,
		.ptr = (uintptr_t)mirror,
		.npages = npages,
	};
	uint64_t t0 = now_ns();

	check(xioctl(hfd, cmd, &c), what);
	if (cmd == HMM_DMIRROR_MIGRATE_TO_DEV && c.cpages != npages)
		die("test_hmm migrated %llu of %llu pages to the device",
		    (unsigned long long)c.cpages, (unsigned long long)npages);
	return (double)(now_ns() - t0);
}

/* The CPU reads one byte of every page; ns. */
static double cpu_read_pages(const uint8_t *p, uint64_t len)
{
	uint64_t t0 = now_ns(), off;

	for (off = 0; off < len; off += page_size)
		(void)*(const volatile uint8_t *)(p + off);
	return (double)(now_ns() - t0);
}

static void line9(void)
{
	uint64_t len = o.bw_mib * MIB, npages = len / page_size;
	double hd[MAX_REPS], hs[MAX_REPS], hf[MAX_REPS], og[MAX_REPS], oh[MAX_REPS];
	double of[MAX_REPS], x[MAX_REPS], xfb[MAX_REPS];
	unsigned int i, n = reps();
	struct sample sd, ss, sf, sg, sh, so, sx, sxf;
	uint8_t *a, *mirror, *p;
	struct row *r;
	uint64_t t0;
	int hfd;

	hfd = open(HMM_DMIRROR_DEV, O_RDWR | O_CLOEXEC);
	if (hfd < 0) {
		r = row_add("9", "test_hmm migration vs ours");
		FMT(r->raw, "n/a (needs CONFIG_DEVICE_PRIVATE)");
		FMT(r->target, ">= 1 x");
		FMT(r->met, "-");
		jopen("9_test_hmm");
		jstr("result", "n/a (needs CONFIG_DEVICE_PRIVATE and test_hmm.ko)");
		jstr("error", strerror(errno));
		jclose();
		return;
	}
	progress("line 9: test_hmm and uvm, %llu MiB to device memory and back x %u, "
		 "interleaved", (unsigned long long)o.bw_mib, n);
	vs_open();
	a = anon_alloc(len);
	mirror = anon_alloc(len);
	p = managed_alloc(len);
	memset(a, 0x42, len);
	memset(mirror, 0, len);
	memset(p, 0x42, len);
	/* warm-up: test_hmm allocates its device memory (256 MiB sections) */
	hmm_migrate(hfd, HMM_DMIRROR_MIGRATE_TO_DEV, a, mirror, npages, "MIGRATE_TO_DEV");
	hmm_migrate(hfd, HMM_DMIRROR_MIGRATE_TO_SYS, a, mirror, npages, "MIGRATE_TO_SYS");
	check(migrate1(UVM_MIGRATE_PREFETCH, p, len, loc_gpu()), "prefetch to GPU");
	check(migrate1(UVM_MIGRATE_PREFETCH, p, len, LOC_HOST), "prefetch to host");
	for (i = 0; i < n; i++) {
		cpu_touch(a, len, i);
		cpu_touch(p, len, i);
		hd[i] = hmm_migrate(hfd, HMM_DMIRROR_MIGRATE_TO_DEV, a, mirror, npages,
				    "MIGRATE_TO_DEV");
		t0 = now_ns();
		check(migrate1(UVM_MIGRATE_PREFETCH, p, len, loc_gpu()), "prefetch to GPU");
		og[i] = now_ns() - t0;
		hs[i] = hmm_migrate(hfd, HMM_DMIRROR_MIGRATE_TO_SYS, a, mirror, npages,
				    "MIGRATE_TO_SYS");
		t0 = now_ns();
		check(migrate1(UVM_MIGRATE_PREFETCH, p, len, LOC_HOST), "prefetch to host");
		oh[i] = now_ns() - t0;
		x[i] = (hd[i] + hs[i]) / (og[i] + oh[i]);
		/* back by CPU faults instead */
		hmm_migrate(hfd, HMM_DMIRROR_MIGRATE_TO_DEV, a, mirror, npages, "MIGRATE_TO_DEV");
		check(migrate1(UVM_MIGRATE_PREFETCH, p, len, loc_gpu()), "prefetch to GPU");
		hf[i] = cpu_read_pages(a, len);
		of[i] = cpu_read_pages(p, len);
		xfb[i] = hf[i] / of[i];
	}
	munmap(a, len);
	munmap(mirror, len);
	munmap(p, len);
	close(hfd);
	vs_close();

	sd = stat_of(hd, n);
	ss = stat_of(hs, n);
	sf = stat_of(hf, n);
	sg = stat_of(og, n);
	sh = stat_of(oh, n);
	so = stat_of(of, n);
	sx = stat_of(x, n);
	sxf = stat_of(xfb, n);

	r = row_add("9", "test_hmm / ours, to device and back");
	FMT(r->raw, "%.1f ms / %.1f ms", (sd.median + ss.median) / 1e6,
	    (sg.median + sh.median) / 1e6);
	FMT(r->ratio, "ours %.2f x as fast", sx.median);
	FMT(r->target, ">= 1 x");
	FMT(r->met, "%s", yesno(sx.median >= 1));
	r = row_add("", "  to device: test_hmm / ours");
	FMT(r->raw, "%.1f ms / %.1f ms", sd.median / 1e6, sg.median / 1e6);
	FMT(r->ratio, "%.2f x", sd.median / sg.median);
	r = row_add("", "  back (explicit): test_hmm / ours");
	FMT(r->raw, "%.1f ms / %.1f ms", ss.median / 1e6, sh.median / 1e6);
	FMT(r->ratio, "%.2f x", ss.median / sh.median);
	r = row_add("", "  back (CPU faults): test_hmm / ours");
	FMT(r->raw, "%.1f ms / %.1f ms", sf.median / 1e6, so.median / 1e6);
	FMT(r->ratio, "%.2f x", sxf.median);

	jopen("9_test_hmm");
	jstr("what", "test_hmm (/dev/hmm_dmirror0, device private memory): "
	     "HMM_DMIRROR_MIGRATE_TO_DEV then HMM_DMIRROR_MIGRATE_TO_SYS of CPU-written "
	     "anonymous memory; ours: PREFETCH of as much CPU-written managed memory to the "
	     "GPU and to the host; interleaved; also back by CPU faults (a CPU read of every "
	     "page after migrating to the device); ratio = test_hmm time / ours, median of "
	     "per-repetition ratios (> 1: ours is faster)");
	jnum("bytes", len);
	jstat("test_hmm_to_dev_ns", sd, 1);
	jstat("test_hmm_to_sys_ns", ss, 1);
	jstat("test_hmm_fault_back_ns", sf, 1);
	jstat("ours_to_gpu_ns", sg, 1);
	jstat("ours_to_host_ns", sh, 1);
	jstat("ours_fault_back_ns", so, 1);
	jstat("ratio_round_trip", sx, 1);
	jnum("ratio_to_device", sd.median / sg.median);
	jnum("ratio_back_explicit", ss.median / sh.median);
	jstat("ratio_back_cpu_faults", sxf, 1);
	jtarget("target", "our migration at least as fast as test_hmm (ratio >= 1)", sx.median,
		sx.median >= 1);
	jclose();
}

/* ------------------------------------------------------------------------ */
/* Environment, output */

static void environment(void)
{
	static const char *const params[] = {
		"num_gpus", "vidmem_mb", "vidmem_prealloc", "fault_buffer_entries", "ce_inline",
		"fault_batch_size", "fault_replay_policy", "prefetch", "prefetch_threshold",
		"launch_timeout_s",
	};
	struct utsname u;
	struct sysinfo si;
	char buf[128], date[64];
	time_t now = time(NULL);
	unsigned int i;

	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	uname(&u);
	sysinfo(&si);
	jopen("environment");
	jstr("date", date);
	jstr("kernel_release", u.release);
	jstr("kernel_version", u.version);
	jstr("machine", u.machine);
	jstr("uvm_kernel", getenv("UVM_KERNEL") ?: "");
	jnum("cpus", sysconf(_SC_NPROCESSORS_ONLN));
	jnum("mem_bytes", (double)si.totalram * si.mem_unit);
	for (i = 0; i < o.nenv; i++)
		jstr(o.env_k[i], o.env_v[i]);
	snprintf(buf, sizeof(buf), "%u.%u", ver.major, ver.minor);
	jstr("uvm_api", buf);
	jnum("num_gpus", ver.num_gpus);
	jnum("gpu", o.gpu);
	jstr("gpu_name", ginfo.name);
	jnum("vidmem_bytes", ginfo.vidmem_size);
	jnum("fault_buffer_entries", ginfo.fault_buffer_entries);
	jnum("fault_batch_size", ginfo.fault_batch_size);
	jopen("module_params");
	for (i = 0; i < sizeof(params) / sizeof(params[0]); i++) {
		read_param(params[i], buf, sizeof(buf));
		jstr(params[i], buf);
	}
	jclose();
	jclose();

	jopen("sizes");
	jnum("reps", o.reps);
	jnum("copy_and_prefetch_bytes", o.bw_mib * MIB);
	jnum("stream_bytes", o.stream_mib * MIB);
	jnum("touch_bytes", o.touch_mib * MIB);
	jnum("stream_warps", o.warps);
	jnum("isolated_faults", o.isolated);
	jnum("sparse_blocks", o.sparse_blocks);
	jnum("sparse_rounds", o.sparse_rounds);
	jnum("batch_ranges", o.batch_ranges);
	jnum("batch_range_bytes", o.batch_kib * KIB);
	jnum("oversub_effective_vidmem_bytes", o.oversub_mib * MIB);
	jnum("oversub_reps", o.oversub_reps);
	jnum("accuracy_bytes", o.accuracy_mib * MIB);
	jclose();
}

static void print_table(double secs)
{
	char date[64];
	time_t now = time(NULL);
	struct utsname u;
	unsigned int i;

	strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", gmtime(&now));
	uname(&u);
	printf("uvm-bench: %s, kernel %s, %ld CPUs", date, u.release,
	       sysconf(_SC_NPROCESSORS_ONLN));
	for (i = 0; i < o.nenv; i++)
		printf(", %s=%s", o.env_k[i], o.env_v[i]);
	printf("\n  GPU %u (%s): %llu MiB vidmem, fault batch %u, %u-entry fault buffer; "
	       "%u reps, median; %.0f s\n", o.gpu, ginfo.name,
	       (unsigned long long)(ginfo.vidmem_size >> 20), ginfo.fault_batch_size,
	       ginfo.fault_buffer_entries, o.reps, secs);
	printf("  lines:");
	for (i = 1; i <= 9; i++)
		if (o.lines & 1U << i)
			printf(" %u", i);
	printf("; sizes: copies/prefetch %llu MiB, stream %llu MiB (%u warps), touches %llu MiB,\n"
	       "  %u isolated faults, 1 + 4 x %u rounds of %u sparse faults, %llu x %llu KiB ranges,\n"
	       "  oversubscription of %llu MiB x %u, accuracy over %llu MiB\n\n",
	       (unsigned long long)o.bw_mib, (unsigned long long)o.stream_mib, o.warps,
	       (unsigned long long)o.touch_mib, o.isolated, o.sparse_rounds, o.sparse_blocks,
	       (unsigned long long)o.batch_ranges, (unsigned long long)o.batch_kib,
	       (unsigned long long)o.oversub_mib, o.oversub_reps,
	       (unsigned long long)o.accuracy_mib);
	printf("%-2s %-37s %-26s %-22s %-15s %-10s %s\n", "#", "measurement", "raw", "ratio",
	       "real driver", "target", "met");
	for (i = 0; i < nrows; i++) {
		struct row *r = &rows[i];

		printf("%-2s %-37s %-26s %-22s %-15s %-10s %s\n", r->line, r->what, r->raw,
		       r->ratio, r->real, r->target, r->met);
	}
	printf("\nreal driver: H100/H200 ratios (Documentation/performance.rst); "
	       "targets: the project's, informational\n");
}

static void usage(void)
{
	fprintf(stderr,
		"usage: uvm-bench [--json FILE] [--env KEY=VALUE]... [--only LIST] [--gpu G]\n"
		"                 [--reps N] [--bw-mib M] [--stream-mib M] [--touch-mib M]\n"
		"                 [--warps W] [--isolated N] [--sparse-blocks N]\n"
		"                 [--sparse-rounds N] [--batch-ranges N] [--batch-kib K]\n"
		"                 [--oversub-mib M] [--oversub-reps N] [--accuracy-mib M]\n"
		"  --only LIST   comma-separated line numbers (1-9) to run; 1 (the peak)\n"
		"                always runs\n");
	exit(2);
}

static unsigned int parse_lines(const char *s)
{
	unsigned int m = 0;
	char *end;
	long v;

	while (*s) {
		v = strtol(s, &end, 10);
		if (end == s || v < 1 || v > 9)
			usage();
		m |= 1U << v;
		s = end;
		if (*s == ',')
			s++;
	}
	return m;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", required_argument, NULL, 'j' },
		{ "env", required_argument, NULL, 'e' },
		{ "only", required_argument, NULL, 'o' },
		{ "gpu", required_argument, NULL, 'g' },
		{ "reps", required_argument, NULL, 'r' },
		{ "bw-mib", required_argument, NULL, 'b' },
		{ "stream-mib", required_argument, NULL, 's' },
		{ "touch-mib", required_argument, NULL, 't' },
		{ "warps", required_argument, NULL, 'w' },
		{ "isolated", required_argument, NULL, 'i' },
		{ "sparse-blocks", required_argument, NULL, 'p' },
		{ "sparse-rounds", required_argument, NULL, 'P' },
		{ "batch-ranges", required_argument, NULL, 'n' },
		{ "batch-kib", required_argument, NULL, 'k' },
		{ "oversub-mib", required_argument, NULL, 'v' },
		{ "oversub-reps", required_argument, NULL, 'V' },
		{ "accuracy-mib", required_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t t0 = now_ns();
	char *eq;
	int opt;
	FILE *f;

	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'j': o.json = optarg; break;
		case 'e':
			eq = strchr(optarg, '=');
			if (!eq || o.nenv == MAX_ENV)
				usage();
			*eq = 0;
			o.env_k[o.nenv] = optarg;
			o.env_v[o.nenv++] = eq + 1;
			break;
		case 'o': o.lines = parse_lines(optarg); break;
		case 'g': o.gpu = strtoul(optarg, NULL, 0); break;
		case 'r': o.reps = strtoul(optarg, NULL, 0); break;
		case 'b': o.bw_mib = strtoull(optarg, NULL, 0); break;
		case 's': o.stream_mib = strtoull(optarg, NULL, 0); break;
		case 't': o.touch_mib = strtoull(optarg, NULL, 0); break;
		case 'w': o.warps = strtoul(optarg, NULL, 0); break;
		case 'i': o.isolated = strtoul(optarg, NULL, 0); break;
		case 'p': o.sparse_blocks = strtoul(optarg, NULL, 0); break;
		case 'P': o.sparse_rounds = strtoul(optarg, NULL, 0); break;
		case 'n': o.batch_ranges = strtoull(optarg, NULL, 0); break;
		case 'k': o.batch_kib = strtoull(optarg, NULL, 0); break;
		case 'v': o.oversub_mib = strtoull(optarg, NULL, 0); break;
		case 'V': o.oversub_reps = strtoul(optarg, NULL, 0); break;
		case 'a': o.accuracy_mib = strtoull(optarg, NULL, 0); break;
		default: usage();
		}
	}
	if (optind != argc || !o.reps || !o.bw_mib || !o.stream_mib || !o.touch_mib ||
	    !o.warps || o.warps > UVM_TEST_MAX_WARPS || o.isolated < 2 || !o.sparse_blocks ||
	    o.sparse_blocks > UVM_TEST_MAX_WARPS || o.sparse_rounds < 2 ||
	    4 * o.sparse_rounds + 1 > BLOCK / (64 * KIB) || !o.batch_ranges || !o.batch_kib || o.batch_kib % 4 ||
	    o.oversub_mib < 8 || o.oversub_mib % 2 || !o.oversub_reps ||
	    o.oversub_reps > MAX_REPS || o.accuracy_mib < 1)
		usage();
	/* what the requested lines depend on */
	o.lines |= 1U << 1;

	page_size = sysconf(_SC_PAGESIZE);
	vs_open();
	check(xioctl(fd, UVM_IOC_GET_VERSION, &ver), "GET_VERSION");
	if (!(ver.caps & UVM_CAP_TEST_IOCTLS))
		die("uvm.ko was built without the test ioctls (launches)");
	if (o.gpu >= ver.num_gpus || ver.num_gpus < 2)
		die("needs GPU %u and another one for the reference copies (uvm.ko drives %u)",
		    o.gpu, ver.num_gpus);
	ginfo.gpu_index = o.gpu;
	check(xioctl(fd, UVM_IOC_GPU_INFO, &ginfo), "GPU_INFO");
	close(fd);
	fd = -1;
	set_prefetch(true);
	ref_setup();

	jput("{");
	jdepth = 1;
	jstr("tool", "uvm-bench");
	environment();
	jopen("lines");
	line1();
	if (o.lines & 1U << 2)
		line2();
	if (o.lines & 1U << 3)
		line3();
	if (o.lines & 1U << 4)
		line4();
	if (o.lines & 1U << 5)
		line5();
	if (o.lines & 1U << 6)
		line6();
	if (o.lines & 1U << 7)
		line7();
	if (o.lines & 1U << 8)
		line8();
	if (o.lines & 1U << 9)
		line9();
	jclose();
	jnum("seconds", (now_ns() - t0) / 1e9);
	jclose();
	jput("\n");

	print_table((now_ns() - t0) / 1e9);
	if (o.json) {
		f = fopen(o.json, "w");
		if (!f || fwrite(jbuf, 1, jlen, f) != jlen || fclose(f))
			die("write %s: %s", o.json, strerror(errno));
	}
	close(ref.fd);
	return 0;
}
