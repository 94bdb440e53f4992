// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * uvm-stress - many processes and threads on the simulated GPUs at twice
 * their memory, killed at random points; nothing may leak or be lost.
 *
 * Each worker process opens /dev/uvm and holds managed memory (its share of
 * --oversub times the vidmem of all GPUs together), device memory of one
 * GPU, a VMM allocation in a reservation, and pageable memory (HMM, where
 * the kernel mirrors).  Each thread owns regions of these and loops over
 * random operations on them: GPU pattern writes and checksum reads
 * (launches), CPU writes and reads, prefetches to every GPU and the host,
 * advice, discards, copies by the copy engines.  Every region's contents
 * are known (or known to be undefined after a discard) and every read is
 * checked.  Eviction happens all the time: the managed memory of all
 * workers together is twice what the GPUs hold.
 *
 * The supervisor kills a random worker with SIGKILL every --kill-ms
 * (random up to twice that) and starts another in its place.  At the end
 * the workers still alive verify all their data and exit.  Then: vidmem in
 * use of every GPU must be back to zero, the module's pinned pages and the
 * system's MemAvailable back to their values before the run, and the
 * kernel log free of reports.  See Documentation/reliability.rst.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "uvm.h"
#include "uvm_test.h"

#define MIB		(1ULL << 20)
#define REGION		(256ULL << 10)
#define MAX_PROCS	32
#define MAX_THREADS	8
#define MAX_GPUS	8

typedef uint64_t u64;
typedef uint32_t u32;

static struct {
	unsigned int procs, threads, seconds, kill_ms;
	double oversub;
	u64 seed;
	int tap, verbose;
} cfg = { .procs = 4, .threads = 2, .seconds = 30, .kill_ms = 2000, .oversub = 2.0,
	  .seed = 1 };

struct shared {
	volatile int stop;
	u64 ops[MAX_PROCS];
	u64 verified[MAX_PROCS];
	char why[MAX_PROCS][256];
};

static struct shared *sh;
static u32 num_gpus;
static u64 vidmem_total, caps;

static u64 mix64(u64 x)
{
	x += 0x9E3779B97F4A7C15ULL;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
	return x ^ (x >> 31);
}

static u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* ------------------------------------------------------------------ */
/* a worker */

enum region_kind { R_MANAGED, R_PAGEABLE, R_DEVICE, R_VMM };

/*
 * struct region - REGION bytes with known contents
 * @addr:	first byte
 * @value:	pattern seed of the words there (UVM_TEST_PATTERN_WORD of the
 *		word's address), or of @src when copied; 0: undefined (discarded)
 * @src:	address the pattern was computed for (the region itself unless
 *		the bytes were copied from another region)
 * @kind:	enum region_kind
 */
struct region {
	u64 addr;
	u64 value;
	u64 src;
	int kind;
};

struct worker {
	int fd;
	int slot;
	struct region *regions;
	unsigned int nregions;
};

struct thr {
	struct worker *w;
	struct region **mine;		/* the thread's regions */
	unsigned int count;
	u64 rng;
	u64 ops;
};

static u64 rnd(struct thr *t, u64 n)
{
	t->rng = mix64(t->rng);
	return n ? t->rng % n : 0;
}

static void bad(struct worker *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Data was wrong or an operation failed that must not: report and exit 3. */
static void bad(struct worker *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(sh->why[w->slot], sizeof(sh->why[0]), fmt, ap);
	va_end(ap);
	fprintf(stderr, "uvm-stress: worker %d: %s\n", getpid(), sh->why[w->slot]);
	_exit(3);
}

static int launch(struct worker *w, u32 gpu, struct uvm_test_gpu_op *op)
{
	struct uvm_test_launch l = {
		.gpu_index = gpu,
		.num_warps = 8,
		.ops_ptr = (u64)(uintptr_t)op,
		.num_ops = 1,
	};
	int ret;

	do {
		ret = ioctl(w->fd, UVM_TEST_IOC_LAUNCH, &l);
	} while (ret && errno == EINTR);
	return ret ? -errno : 0;
}

static u64 expected_sum(u64 value, u64 src, u64 at)
{
	u64 i, sum = 0;

	for (i = 0; i < REGION; i += 8)
		sum += UVM_TEST_CHECKSUM_TERM(value ? UVM_TEST_PATTERN_WORD(value, src + i) : 0,
					      at + i);
	return sum;
}

static void gpu_write(struct thr *t, struct region *r)
{
	struct uvm_test_gpu_op op = {
		.type = UVM_TEST_OP_WRITE, .order = UVM_TEST_ORDER_RANDOM,
		.address = r->addr, .length = REGION, .access_size = 4096,
	};
	u32 gpu = (u32)rnd(t, num_gpus);
	int ret;

	op.value = rnd(t, ~0ULL) | 1;
	op.seed = (u32)rnd(t, ~0U);
	ret = launch(t->w, gpu, &op);
	if (ret)
		bad(t->w, "GPU %u write of %#llx (kind %d): %s", gpu,
		    (unsigned long long)r->addr, r->kind, strerror(-ret));
	r->value = op.value;
	r->src = r->addr;
}

static void gpu_verify(struct thr *t, struct region *r)
{
	struct uvm_test_gpu_op op = {
		.type = UVM_TEST_OP_READ, .order = UVM_TEST_ORDER_SEQUENTIAL,
		.address = r->addr, .length = REGION, .access_size = 4096,
	};
	u32 gpu = (u32)rnd(t, num_gpus);
	int ret = launch(t->w, gpu, &op);

	if (ret)
		bad(t->w, "GPU %u read of %#llx (kind %d): %s", gpu,
		    (unsigned long long)r->addr, r->kind, strerror(-ret));
	if (r->value && op.checksum != expected_sum(r->value, r->src, r->addr))
		bad(t->w, "GPU %u read wrong data at %#llx (kind %d)", gpu,
		    (unsigned long long)r->addr, r->kind);
	sh->verified[t->w->slot]++;
}

static void cpu_write(struct thr *t, struct region *r)
{
	u64 *p = (u64 *)(uintptr_t)r->addr, v = rnd(t, ~0ULL) | 1, i;

	for (i = 0; i < REGION / 8; i++)
		p[i] = UVM_TEST_PATTERN_WORD(v, r->addr + 8 * i);
	r->value = v;
	r->src = r->addr;
}

static void cpu_verify(struct thr *t, struct region *r)
{
	u64 *p = (u64 *)(uintptr_t)r->addr, i;

	for (i = 0; r->value && i < REGION / 8; i++)
		if (p[i] != UVM_TEST_PATTERN_WORD(r->value, r->src + 8 * i))
			bad(t->w, "CPU read wrong data at %#llx: %#llx, want %#llx",
			    (unsigned long long)(r->addr + 8 * i), (unsigned long long)p[i],
			    (unsigned long long)UVM_TEST_PATTERN_WORD(r->value, r->src + 8 * i));
	if (!r->value)
		(void)*(volatile u64 *)p;
	sh->verified[t->w->slot]++;
}

static void migrate(struct thr *t, struct region *r, u32 op)
{
	struct uvm_range rg = { .address = r->addr, .length = REGION };
	struct uvm_location loc = { .type = UVM_LOCATION_HOST };
	u64 start = 0;
	struct uvm_ioc_migrate m = {
		.op = op, .ranges_ptr = (u64)(uintptr_t)&rg, .count = 1,
	};
	int ret;

	if (rnd(t, 3)) {
		loc.type = UVM_LOCATION_GPU;
		loc.id = (int)rnd(t, num_gpus);
	}
	if (op != UVM_MIGRATE_DISCARD) {
		m.locations_ptr = (u64)(uintptr_t)&loc;
		m.location_starts_ptr = (u64)(uintptr_t)&start;
		m.num_locations = 1;
	}
	if (rnd(t, 2))
		m.flags = UVM_MIGRATE_ASYNC;
	ret = ioctl(t->w->fd, UVM_IOC_MIGRATE, &m);
	if (ret && errno != ENOMEM && errno != EINTR)
		bad(t->w, "MIGRATE op %u of %#llx: %s", op, (unsigned long long)r->addr,
		    strerror(errno));
	if (!ret && m.flags) {
		struct uvm_ioc_fence_wait fw = { .fence = m.fence };

		if (ioctl(t->w->fd, UVM_IOC_FENCE_WAIT, &fw) && errno != ENOMEM)
			bad(t->w, "FENCE_WAIT: %s", strerror(errno));
	}
	if (op != UVM_MIGRATE_PREFETCH)
		r->value = 0;
}

static void advise(struct thr *t, struct region *r)
{
	struct uvm_ioc_advise a = {
		.address = r->addr, .length = REGION,
		.advice = 1 + (u32)rnd(t, 6),
	};

	if (rnd(t, 3)) {
		a.location.type = UVM_LOCATION_GPU;
		a.location.id = (int)rnd(t, num_gpus);
	} else {
		a.location.type = UVM_LOCATION_HOST;
	}
	if (ioctl(t->w->fd, UVM_IOC_ADVISE, &a))
		bad(t->w, "ADVISE %u of %#llx: %s", a.advice, (unsigned long long)r->addr,
		    strerror(errno));
}

/* COPY a region's bytes over another one of the thread by a copy engine */
static void copy(struct thr *t, struct region *dst, struct region *src)
{
	struct uvm_ioc_copy c = {
		.dst = dst->addr, .src = src->addr, .length = REGION,
		.gpu_index = (u32)rnd(t, num_gpus),
	};

	if (dst == src || !src->value)
		return;
	if (ioctl(t->w->fd, UVM_IOC_COPY, &c)) {
		if (errno == ENOMEM)
			return;
		bad(t->w, "COPY %#llx <- %#llx: %s", (unsigned long long)c.dst,
		    (unsigned long long)c.src, strerror(errno));
	}
	dst->value = src->value;
	dst->src = src->src;
}

static void thread_op(struct thr *t)
{
	struct region *r = t->mine[rnd(t, t->count)];
	struct region *o = t->mine[rnd(t, t->count)];
	bool cpu_ok = r->kind == R_MANAGED || r->kind == R_PAGEABLE;
	bool policy_ok = cpu_ok;
	u64 p = rnd(t, 100);

	if (p < 25)
		gpu_write(t, r);
	else if (p < 45)
		gpu_verify(t, r);
	else if (p < 55 && cpu_ok)
		cpu_write(t, r);
	else if (p < 65 && cpu_ok)
		cpu_verify(t, r);
	else if (p < 80 && policy_ok)
		migrate(t, r, UVM_MIGRATE_PREFETCH);
	else if (p < 85 && r->kind == R_MANAGED)
		migrate(t, r, rnd(t, 2) ? UVM_MIGRATE_DISCARD : UVM_MIGRATE_DISCARD_PREFETCH);
	else if (p < 92 && policy_ok)
		advise(t, r);
	else
		copy(t, r, o);
	t->ops++;
	sh->ops[t->w->slot]++;
}

static void *thread_main(void *arg)
{
	struct thr *t = arg;
	unsigned int i;

	/* regions start undefined (value 0): the first writes define them */
	while (!sh->stop)
		thread_op(t);
	/* the survivors check everything they own */
	for (i = 0; i < t->count; i++) {
		struct region *r = t->mine[i];

		if (r->kind == R_MANAGED || r->kind == R_PAGEABLE)
			cpu_verify(t, r);
		gpu_verify(t, r);
	}
	return NULL;
}

/* The worker's memory: managed, pageable, device, VMM; split among threads. */
static void worker_setup(struct worker *w, u64 managed)
{
	unsigned int nman = (unsigned int)(managed / REGION), n = 0, i;
	unsigned int extra = cfg.threads + 4;
	u64 gpu = (u64)w->slot % num_gpus;
	uint8_t *m, *pg, *dev, *res;

	w->regions = calloc(nman + extra, sizeof(*w->regions));
	m = mmap(NULL, nman * REGION, PROT_READ | PROT_WRITE, MAP_SHARED, w->fd, 0);
	if (!w->regions || m == MAP_FAILED)
		bad(w, "managed mmap of %u MiB: %s", nman, strerror(errno));
	for (i = 0; i < nman; i++)
		w->regions[n++] = (struct region){ (u64)(uintptr_t)(m + i * REGION), 0, 0,
						   R_MANAGED };
	/* one region of each other kind per thread */
	if (caps & UVM_CAP_HMM_MIRROR) {
		pg = mmap(NULL, cfg.threads * REGION, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (pg == MAP_FAILED)
			bad(w, "anonymous mmap: %s", strerror(errno));
		for (i = 0; i < cfg.threads; i++)
			w->regions[n++] = (struct region){ (u64)(uintptr_t)(pg + i * REGION),
							   0, 0, R_PAGEABLE };
	}
	/* device memory and VMM: ENOMEM when the GPU is full of them */
	dev = mmap(NULL, 2 * MIB, PROT_NONE, MAP_SHARED, w->fd, (off_t)UVM_MMAP_DEVICE(gpu));
	if (dev == MAP_FAILED && errno != ENOMEM)
		bad(w, "device mmap of GPU %llu: %s", (unsigned long long)gpu, strerror(errno));
	for (i = 0; dev != MAP_FAILED && i < cfg.threads && i < 2; i++)
		w->regions[n++] = (struct region){ (u64)(uintptr_t)(dev + i * REGION), 0, 0,
						   R_DEVICE };
	res = mmap(NULL, 2 * MIB, PROT_READ | PROT_WRITE, MAP_SHARED, w->fd,
		   (off_t)UVM_MMAP_RESERVE);
	if (res != MAP_FAILED) {
		struct uvm_ioc_mem_create mc = {
			.size = 2 * MIB, .location = { UVM_LOCATION_GPU, (int)gpu },
		};
		struct uvm_ioc_mem_map mm = { .address = (u64)(uintptr_t)res, .size = 2 * MIB };
		struct uvm_mem_access acc[MAX_GPUS];
		struct uvm_ioc_mem_set_access sa = {
			.address = (u64)(uintptr_t)res, .size = 2 * MIB,
			.descs_ptr = (u64)(uintptr_t)acc, .count = num_gpus,
		};

		memset(acc, 0, sizeof(acc));
		for (i = 0; i < num_gpus && i < MAX_GPUS; i++) {
			acc[i].location.type = UVM_LOCATION_GPU;
			acc[i].location.id = (int)i;
			acc[i].prot = UVM_MEM_PROT_READ_WRITE;
		}
		if (ioctl(w->fd, UVM_IOC_MEM_CREATE, &mc)) {
			if (errno != ENOMEM)
				bad(w, "MEM_CREATE: %s", strerror(errno));
			w->nregions = n;
			return;
		}
		mm.handle = mc.handle;
		if (ioctl(w->fd, UVM_IOC_MEM_MAP, &mm) || ioctl(w->fd, UVM_IOC_MEM_SET_ACCESS, &sa))
			bad(w, "MEM_MAP/SET_ACCESS: %s", strerror(errno));
		for (i = 0; i < cfg.threads && i < 2; i++)
			w->regions[n++] = (struct region){ (u64)(uintptr_t)(res + i * REGION),
							   0, 0, R_VMM };
	}
	w->nregions = n;
}

static void worker(int slot, u64 seed, u64 managed)
{
	struct thr thr[MAX_THREADS];
	pthread_t th[MAX_THREADS];
	struct worker w = { .slot = slot };
	unsigned int i;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	w.fd = open("/dev/" UVM_DEVICE_NAME, O_RDWR | O_CLOEXEC);
	if (w.fd < 0)
		bad(&w, "open: %s", strerror(errno));
	worker_setup(&w, managed);
	/* the regions are dealt out to the threads in turn */
	for (i = 0; i < cfg.threads; i++) {
		thr[i].w = &w;
		thr[i].mine = calloc(w.nregions, sizeof(*thr[i].mine));
		thr[i].count = 0;
		thr[i].rng = mix64(seed ^ (i + 1));
		thr[i].ops = 0;
		if (!thr[i].mine)
			bad(&w, "out of memory");
	}
	for (i = 0; i < w.nregions; i++) {
		struct thr *t = &thr[i % cfg.threads];

		t->mine[t->count++] = &w.regions[i];
	}
	for (i = 0; i < cfg.threads; i++)
		pthread_create(&th[i], NULL, thread_main, &thr[i]);
	for (i = 0; i < cfg.threads; i++)
		pthread_join(th[i], NULL);
	_exit(0);
}

/* ------------------------------------------------------------------ */
/* the supervisor */

static long read_long(const char *path)
{
	char buf[64];
	long v = -1;
	FILE *f = fopen(path, "re");

	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f))
		v = strtol(buf, NULL, 0);
	fclose(f);
	return v;
}

static long vidmem_used(void)
{
	char path[96];
	long sum = 0, v;
	u32 g;

	for (g = 0; g < num_gpus; g++) {
		snprintf(path, sizeof(path), "/sys/class/misc/uvm/gpu%u/vidmem_used", g);
		v = read_long(path);
		if (v < 0)
			return -1;
		sum += v;
	}
	return sum;
}

static long mem_available_kib(void)
{
	char line[128];
	long v = -1;
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %ld kB", &v) == 1)
			break;
	fclose(f);
	return v;
}

/* Drop clean caches (as root) so that MemAvailable compares like with like. */
static void drop_caches(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);

	sync();
	if (fd >= 0) {
		if (write(fd, "3", 1) != 1)
			fprintf(stderr, "uvm-stress: drop_caches: %s\n", strerror(errno));
		close(fd);
	}
}

/*
 * Every chunk of simulated vidmem is backed by host pages from its first
 * allocation until the module is unloaded: allocate all of each GPU once
 * (device memory) so that MemAvailable before the run already lacks them.
 */
static void vidmem_warm_up(void)
{
	struct uvm_ioc_gpu_info gi;
	int fd = open("/dev/" UVM_DEVICE_NAME, O_RDWR | O_CLOEXEC);
	u32 g;
	void *p;

	for (g = 0; fd >= 0 && g < num_gpus; g++) {
		memset(&gi, 0, sizeof(gi));
		gi.gpu_index = g;
		if (ioctl(fd, UVM_IOC_GPU_INFO, &gi))
			break;
		p = mmap(NULL, gi.vidmem_size - gi.vidmem_used, PROT_NONE, MAP_SHARED, fd,
			 (off_t)UVM_MMAP_DEVICE(g));
		if (p != MAP_FAILED)
			munmap(p, gi.vidmem_size - gi.vidmem_used);
	}
	if (fd >= 0)
		close(fd);
}

/* KASAN keeps freed objects in a quarantine of up to 1/32 of memory. */
static long kasan_quarantine_kib(void)
{
	char line[256];
	long total = 0;
	bool kasan = false;
	FILE *f = fopen("/proc/kallsyms", "re");

	while (f && !kasan && fgets(line, sizeof(line), f))
		kasan = strstr(line, " kasan_report") != NULL;
	if (f)
		fclose(f);
	f = fopen("/proc/meminfo", "re");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemTotal: %ld kB", &total) == 1)
			break;
	if (f)
		fclose(f);
	return kasan ? total / 32 : 0;
}

static const char *const reports[] = {
	"WARNING:", "BUG:", "Oops", "KASAN", "UBSAN", "general protection fault",
	"possible circular locking", "inconsistent lock state", "possible recursive locking",
	"suspicious RCU usage", "bad unlock balance", "INFO: task", "blocked for more than",
	"soft lockup", "rcu: INFO:", "list_add corruption", "list_del corruption",
	"refcount_t: ", "double free", "use-after-free", "Kernel panic", "Call Trace:",
};

/* New kernel log records since @fd was opened: the first report line. */
static bool kmsg_report(int fd, char *out, size_t len)
{
	char rec[8192], *msg, *nl;
	bool found = false;
	ssize_t n;
	size_t i;

	while (fd >= 0) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;
		if (n <= 0)
			break;
		rec[n] = 0;
		msg = strchr(rec, ';');
		msg = msg ? msg + 1 : rec;
		nl = strchr(msg, '\n');
		if (nl)
			*nl = 0;
		for (i = 0; i < sizeof(reports) / sizeof(reports[0]) && !found; i++) {
			if (strstr(msg, reports[i])) {
				snprintf(out, len, "%.*s", (int)len - 1, msg);
				found = true;
			}
		}
	}
	return found;
}

static void tap(int n, bool ok, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void tap(int n, bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d ", ok ? "" : "not ", n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static pid_t spawn(int slot, u64 seed, u64 managed)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0)
		worker(slot, seed, managed);
	return pid;
}

static int probe(void)
{
	struct uvm_ioc_version v = { 0 };
	struct uvm_ioc_gpu_info gi;
	int fd = open("/dev/" UVM_DEVICE_NAME, O_RDWR | O_CLOEXEC);
	u32 g;

	if (fd < 0)
		return -errno;
	if (ioctl(fd, UVM_IOC_GET_VERSION, &v))
		return -errno;
	num_gpus = v.num_gpus;
	caps = v.caps;
	for (g = 0; g < num_gpus; g++) {
		memset(&gi, 0, sizeof(gi));
		gi.gpu_index = g;
		if (ioctl(fd, UVM_IOC_GPU_INFO, &gi))
			return -errno;
		vidmem_total += gi.vidmem_size;
	}
	close(fd);
	return 0;
}

static int parse(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "procs", required_argument, NULL, 'p' },
		{ "threads", required_argument, NULL, 't' },
		{ "seconds", required_argument, NULL, 's' },
		{ "kill-ms", required_argument, NULL, 'k' },
		{ "oversub", required_argument, NULL, 'o' },
		{ "seed", required_argument, NULL, 'S' },
		{ "tap", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int o;

	while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (o) {
		case 'p': cfg.procs = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 't': cfg.threads = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 's': cfg.seconds = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'k': cfg.kill_ms = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'o': cfg.oversub = strtod(optarg, NULL); break;
		case 'S': cfg.seed = strtoull(optarg, NULL, 0); break;
		case 'a': cfg.tap = 1; break;
		default:
			fprintf(o == 'h' ? stdout : stderr,
				"Usage: uvm-stress [--procs N] [--threads M] [--seconds S]\n"
				"                  [--kill-ms MS (0: never)] [--oversub F] [--seed S] [--tap]\n");
			exit(o == 'h' ? 0 : 2);
		}
	}
	if (!cfg.procs || cfg.procs > MAX_PROCS || !cfg.threads ||
	    cfg.threads > MAX_THREADS || cfg.oversub <= 0)
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	long pinned0, avail0, used, pinned, avail, slack;
	pid_t pids[MAX_PROCS];
	u64 managed, t0, next_kill, rng, ops = 0, verified = 0;
	unsigned int i, kills = 0, spawned = 0, survivors = 0, lost = 0;
	char line[512] = "";
	bool leaks_ok = false, mem_ok;
	int kfd, st, n = 0, ret;

	if (parse(argc, argv))
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	ret = probe();
	if (ret || !(caps & UVM_CAP_TEST_IOCTLS)) {
		printf("%s1..0 # SKIP %s\n", cfg.tap ? "TAP version 13\n" : "",
		       ret ? strerror(-ret) : "no test ioctls (launches) in this module");
		return 4;
	}
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return 1;
	/* the managed memory of all workers: oversub x all vidmem */
	managed = (u64)(cfg.oversub * (double)vidmem_total) / cfg.procs;
	managed = (managed / (REGION * cfg.threads)) * REGION * cfg.threads;
	if (!managed)
		managed = REGION * cfg.threads;
	if (cfg.tap)
		printf("TAP version 13\n1..5\n");
	printf("# uvm-stress: seed %llu, %u processes x %u threads, %u s, %u GPU(s) with %llu MiB, "
	       "%llu MiB managed per process (%.1fx), SIGKILL every ~%u ms\n",
	       (unsigned long long)cfg.seed, cfg.procs, cfg.threads, cfg.seconds, num_gpus,
	       (unsigned long long)(vidmem_total >> 20), (unsigned long long)(managed >> 20),
	       (double)managed * cfg.procs / (double)vidmem_total, cfg.kill_ms);

	kfd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kfd >= 0)
		lseek(kfd, 0, SEEK_END);
	pinned0 = read_long("/sys/class/misc/uvm/pinned_pages");
	vidmem_warm_up();
	drop_caches();
	avail0 = mem_available_kib();
	slack = 64 * 1024 + kasan_quarantine_kib();
	rng = mix64(cfg.seed);
	for (i = 0; i < cfg.procs; i++)
		pids[i] = spawn((int)i, mix64(cfg.seed + spawned++), managed);
	t0 = now_ns();
	next_kill = t0 + (cfg.kill_ms ? (rng % (2 * cfg.kill_ms + 1)) * 1000000ULL : ~0ULL / 2);
	while (now_ns() - t0 < cfg.seconds * 1000000000ULL) {
		pid_t w = waitpid(-1, &st, WNOHANG);

		if (w > 0) {
			/* a worker ended on its own: only a data error does that */
			for (i = 0; i < cfg.procs && pids[i] != w; i++)
				;
			if (i < cfg.procs) {
				fprintf(stderr, "uvm-stress: worker %d ended early (%s %d): %s\n", w,
					WIFSIGNALED(st) ? "signal" : "status",
					WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st), sh->why[i]);
				lost++;
				pids[i] = spawn((int)i, mix64(cfg.seed + spawned++), managed);
			}
			continue;
		}
		usleep(20 * 1000);
		if (now_ns() >= next_kill) {
			rng = mix64(rng);
			i = (unsigned int)(rng % cfg.procs);
			kill(pids[i], SIGKILL);
			while (waitpid(pids[i], &st, 0) < 0 && errno == EINTR)
				;
			kills++;
			memset(sh->why[i], 0, sizeof(sh->why[i]));
			pids[i] = spawn((int)i, mix64(cfg.seed + spawned++), managed);
			next_kill = now_ns() + (rng % (2 * cfg.kill_ms + 1)) * 1000000ULL;
		}
	}
	sh->stop = 1;
	for (i = 0; i < cfg.procs; i++) {
		u64 deadline = now_ns() + 300000000000ULL;

		while (waitpid(pids[i], &st, WNOHANG) == 0 && now_ns() < deadline)
			usleep(50 * 1000);
		if (now_ns() >= deadline) {
			fprintf(stderr, "uvm-stress: worker %d did not finish in 300 s\n", pids[i]);
			kill(pids[i], SIGKILL);
			waitpid(pids[i], &st, 0);
			lost++;
		} else if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
			survivors++;
		} else {
			fprintf(stderr, "uvm-stress: worker %d failed at the end: %s\n", pids[i],
				sh->why[i]);
			lost++;
		}
	}
	for (i = 0; i < MAX_PROCS; i++) {
		ops += sh->ops[i];
		verified += sh->verified[i];
	}
	printf("# uvm-stress: %llu ops (%.1f/s), %llu region checks, %u processes started, "
	       "%u killed by SIGKILL, %u survivors verified, %u failed\n",
	       (unsigned long long)ops, ops / ((now_ns() - t0) / 1e9),
	       (unsigned long long)verified, spawned, kills, survivors, lost);
	tap(++n, !lost && survivors == cfg.procs,
	    "every surviving process read back exactly what it wrote");

	/* vidmem and pins come back once every process is gone */
	used = pinned = -1;
	for (i = 0; i < 300; i++) {
		used = vidmem_used();
		pinned = read_long("/sys/class/misc/uvm/pinned_pages");
		if (used == 0 && pinned == pinned0) {
			leaks_ok = true;
			break;
		}
		usleep(100 * 1000);
	}
	printf("# uvm-stress: vidmem in use %ld bytes, pinned pages %ld (%ld before), after %.1f s\n",
	       used, pinned, pinned0, i / 10.0);
	tap(++n, used == 0, "vidmem in use of every GPU back to 0");
	tap(++n, pinned == pinned0, "pinned pages back to %ld", pinned0);
	/*
	 * Allocator caches, the module's per-process page pools (freed with
	 * the process), and on KASAN kernels the quarantine of freed objects
	 * keep some: 64 MiB of slack plus the quarantine, less than what the
	 * killed processes held together.
	 */
	drop_caches();
	avail = mem_available_kib();
	mem_ok = avail0 < 0 || avail >= avail0 - slack;
	printf("# uvm-stress: MemAvailable %ld kB before, %ld kB after (%+ld kB)\n", avail0,
	       avail, avail - avail0);
	tap(++n, mem_ok, "MemAvailable within %ld MiB of its value before the run",
	    slack / 1024);
	tap(++n, !kmsg_report(kfd, line, sizeof(line)), "no kernel report%s%s",
	    line[0] ? ": " : "", line);
	return (lost || survivors != cfg.procs || !leaks_ok || !mem_ok || line[0]) ? 1 : 0;
}
