// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * uvm-fuzz - a structure-aware fuzzer of /dev/uvm.
 *
 * It knows every ioctl of uapi/uvm.h and uapi/uvm_test.h: the size of each
 * argument structure, which members are flags (and their valid bits), which
 * must be zero, which are addresses, lengths, GPU indices, locations,
 * handles, fences and user pointers.  Each operation it runs is generated
 * from (seed, stream, operation index) alone, so any subset of a stream's
 * operations can be replayed: operations refer to resources (mappings,
 * descriptors, handles) by slot, and a slot that is empty at replay time is
 * simply used as it is (an unmapped address, a closed descriptor).
 *
 * Operations: open and close /dev/uvm; mmap of every offset kind the module
 * knows (managed, device memory of each GPU, reservations) and of bad ones;
 * anonymous and file memory for HMM; munmap, mremap, mprotect, madvise; CPU
 * loads and stores (SIGSEGV/SIGBUS expected and caught); every ioctl with
 * valid, boundary and mutated arguments, odd structure sizes, wrong
 * directions and bad argument pointers; simulated GPU launches; fork
 * children that must get -EPERM from every inherited descriptor and are
 * sometimes killed midway; export/import of VMM allocations; sequences that
 * replace the memory of a queued job under it (a writable registration by
 * a read-only mapping of a read-only file registered read-only, a VMM
 * mapping by another allocation, a managed range by a new one, a VMM right
 * lowered), held behind the test ioctls' queue gate; children killed with
 * the longest copies queued; many descriptors at once.
 *
 * Oracles: kernel reports in the kernel log (KASAN, lockdep, WARN, BUG,
 * hung tasks, RCU stalls, ...); an operation that does not finish within
 * --op-timeout seconds; an ioctl errno outside the documented set (an
 * internal -ERESTARTSYS leaking, for example); success where failure is
 * required (a must-be-zero member or an unknown flag bit set, a short
 * structure, a non-zero tail, a wrong direction); an inherited descriptor
 * that works in a fork child; each thread's canary (managed memory written
 * by the CPU and a GPU before the run) read back wrong after it; vidmem in
 * use and pinned pages not back to their values before the run; a byte of
 * the read-only file, or of memory that replaced a queued job's, changed;
 * a replaced job that succeeded; a killed child with queued work not gone
 * within seconds.
 *
 * Everything the fuzzer touches lies in an arena of address space it
 * reserved (plus one guard region), so that stale or wild addresses never
 * reach its own memory.  See Documentation/reliability.rst.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <malloc.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "uvm.h"
#include "uvm_test.h"

#define MAX_PROCS	16
#define MAX_THREADS	16
#define MAX_STREAMS	(MAX_PROCS * MAX_THREADS)
#define NSLOTS		32
#define SLOT_SPAN	(32ULL << 20)
#define SLOTS_SIZE	(NSLOTS * SLOT_SPAN)
#define SCRATCH_SIZE	(4ULL << 20)
#define SCRATCH_SPAN	(8ULL << 20)	/* 4 MiB usable, then a gap */
#define REPLACE_SPAN	(4ULL << 20)	/* per thread: op_replace()'s memory */
#define REPLACE_OFF	(SLOTS_SIZE + MAX_THREADS * SCRATCH_SPAN)
#define ARENA_SIZE	(REPLACE_OFF + MAX_THREADS * REPLACE_SPAN)
#define GUARD_SIZE	(40ULL << 30)	/* > the largest copy/memset */
#define ARENA_BASE	0x100000000000ULL
#define ARENA_STRIDE	0x001000000000ULL	/* 64 GiB per process */
#define NFDS		4
#define NHANDLES	16
#define NEXPORTS	8
#define DATA_OFF	(1ULL << 20)	/* scratch: data buffers from here */
#define DATA_SIZE	(SCRATCH_SIZE - DATA_OFF)
#define CANARY_SIZE	(2ULL << 20)
#define MIB		(1ULL << 20)

typedef uint64_t u64;
typedef uint32_t u32;

/* ------------------------------------------------------------------ */
/* configuration and shared state */

struct cfg {
	u64 seed;
	u64 ops;		/* per stream; 0: until --seconds */
	unsigned int seconds;
	unsigned int threads;
	unsigned int procs;
	unsigned int op_timeout;
	int verbose;
	int tap;
	int minimise;
	int stream;		/* -1: all; else replay this stream alone */
	const char *only;	/* comma-separated op indices */
	unsigned int max_trials;
	int no_dmesg;
	const char *weights;	/* --weights: op kind weights, NAME=N,... */
};

#define MAX_KINDS	16
#define MAX_IOCTL_IDS	32

/* Progress of one stream, in memory shared by every process. */
struct stream_stat {
	u64 ops;
	u64 ioctls;
	u64 launches;
	u64 mmaps;
	u64 forks;
	u64 ioctl_ok;
	u64 kind_n[MAX_KINDS];		/* ops of each kind ... */
	u64 kind_ns[MAX_KINDS];		/* ... and the time they took */
	u64 ioctl_n[MAX_IOCTL_IDS];	/* ioctls by command ... */
	u64 ioctl_ns[MAX_IOCTL_IDS];	/* ... and their time in the kernel */
	u64 cur;		/* index of the running op */
	u64 started_ns;		/* of the running op, 0 when idle */
	int pid;
	int tid;
	char desc[192];
};

struct shared {
	volatile int stop;
	volatile int failed;
	char fail[1024];
	int fail_stream;
	u64 fail_op;
	struct stream_stat st[MAX_STREAMS];
	u64 errnos[160];
	unsigned char mask[];	/* --minimise / --only: ops to run */
};

static struct cfg cfg = {
	.seed = 1, .threads = 2, .procs = 2, .op_timeout = 180, .stream = -1,
	.max_trials = 200,
};
static struct shared *sh;
static size_t mask_len;
static u32 num_gpus = 1;
static u64 page_size = 4096;
static u64 caps;

/* ------------------------------------------------------------------ */
/* random numbers: splitmix64, one state per op */

static u64 mix64(u64 x)
{
	x += 0x9E3779B97F4A7C15ULL;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
	return x ^ (x >> 31);
}

struct rng {
	u64 s;
};

static u64 rnext(struct rng *r)
{
	r->s += 0x9E3779B97F4A7C15ULL;
	return mix64(r->s);
}

static u64 rnd(struct rng *r, u64 n)
{
	return n ? rnext(r) % n : 0;
}

static bool chance(struct rng *r, unsigned int pct)
{
	return rnd(r, 100) < pct;
}

static u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* ------------------------------------------------------------------ */
/* per-process resources, shared by the process's threads */

enum slot_kind { SLOT_FREE, SLOT_MANAGED, SLOT_DEVICE, SLOT_RESERVE, SLOT_ANON,
		 SLOT_FILE };
static const char *const slot_names[] = { "free", "managed", "device", "reserve",
					  "anon", "file" };

struct slot {
	int kind;
	u64 addr;
	u64 len;
};

static pthread_mutex_t tbl_lock = PTHREAD_MUTEX_INITIALIZER;
static struct slot slots[NSLOTS];
static int uvm_fds[NFDS];
static u64 handles[NFDS][NHANDLES];
static int export_fds[NEXPORTS];
static u64 arena;
static int proc_index;
static int ro_file = -1;	/* op_replace(): a read-only file, RO_BYTE */
static dev_t uvm_rdev;		/* of /dev/uvm */

/* Per-thread state. */
struct ctx {
	int stream;
	int thread;
	struct stream_stat *st;
	struct rng r;
	u64 k;
	unsigned char *scratch;
	u64 last_fence;
	int canary_fd;
	unsigned char *canary;
};

static __thread sigjmp_buf touch_jb;
static __thread volatile int in_touch;

static void fail(struct ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void fail(struct ctx *c, const char *fmt, ...)
{
	va_list ap;

	if (__sync_lock_test_and_set(&sh->failed, 1))
		return;
	va_start(ap, fmt);
	vsnprintf(sh->fail, sizeof(sh->fail), fmt, ap);
	va_end(ap);
	sh->fail_stream = c ? c->stream : -1;
	sh->fail_op = c ? c->k : 0;
	sh->stop = 1;
}

static int slot_pick(struct rng *r, struct slot *out)
{
	int i = (int)rnd(r, NSLOTS);

	pthread_mutex_lock(&tbl_lock);
	*out = slots[i];
	pthread_mutex_unlock(&tbl_lock);
	if (out->kind == SLOT_FREE) {
		out->addr = arena + i * SLOT_SPAN;
		out->len = SLOT_SPAN;
	}
	return i;
}

/* A slot of one kind if any (scanning from a random start), else any. */
static int slot_pick_kind(struct rng *r, int kind, struct slot *out)
{
	int i, start = (int)rnd(r, NSLOTS);

	pthread_mutex_lock(&tbl_lock);
	for (i = 0; i < NSLOTS; i++) {
		int s = (start + i) % NSLOTS;

		if (slots[s].kind == kind) {
			*out = slots[s];
			pthread_mutex_unlock(&tbl_lock);
			return s;
		}
	}
	pthread_mutex_unlock(&tbl_lock);
	return slot_pick(r, out);
}

static void slot_set(int i, int kind, u64 addr, u64 len)
{
	pthread_mutex_lock(&tbl_lock);
	slots[i].kind = kind;
	slots[i].addr = addr;
	slots[i].len = len;
	pthread_mutex_unlock(&tbl_lock);
}

static int fd_pick(struct rng *r, int *idx)
{
	int i = (int)rnd(r, NFDS), fd;

	pthread_mutex_lock(&tbl_lock);
	fd = uvm_fds[i];
	pthread_mutex_unlock(&tbl_lock);
	if (idx)
		*idx = i;
	if (fd < 0 && chance(r, 80)) {
		/* mostly an open one */
		pthread_mutex_lock(&tbl_lock);
		for (i = 0; i < NFDS && uvm_fds[i] < 0; i++)
			;
		if (i < NFDS) {
			fd = uvm_fds[i];
			if (idx)
				*idx = i;
		}
		pthread_mutex_unlock(&tbl_lock);
	}
	return fd;
}

static u64 handle_pick(struct rng *r, int fdidx)
{
	u64 h;

	if (chance(r, 10)) {
		static const u64 odd[] = { 0, 1, 0xffffffffULL, ~0ULL, 1ULL << 32 };

		return odd[rnd(r, 5)];
	}
	pthread_mutex_lock(&tbl_lock);
	h = handles[fdidx][rnd(r, NHANDLES)];
	if (!h && chance(r, 80)) {
		/* mostly one that exists */
		unsigned int i, start = (unsigned int)rnd(r, NHANDLES);

		for (i = 0; i < NHANDLES && !h; i++)
			h = handles[fdidx][(start + i) % NHANDLES];
	}
	pthread_mutex_unlock(&tbl_lock);
	return h;
}

/*
 * Remember handle @h of descriptor @fd (table slot @fdidx) in a random place.
 * The handle it replaces is released, as a program would release what it no
 * longer uses: without that, host-located allocations (which no mapping
 * bounds) pile up in an ioctl-heavy run until the guest runs out of memory.
 * The release is not a fuzzed ioctl (not counted, never mutated); it may
 * find the handle gone already.
 */
static void handle_add(int fd, int fdidx, u64 h, struct rng *r)
{
	struct uvm_ioc_mem_release rel = { 0 };
	unsigned int j = (unsigned int)rnd(r, NHANDLES);

	pthread_mutex_lock(&tbl_lock);
	rel.handle = handles[fdidx][j];
	handles[fdidx][j] = h;
	pthread_mutex_unlock(&tbl_lock);
	if (rel.handle && rel.handle != h)
		ioctl(fd, UVM_IOC_MEM_RELEASE, &rel);
}

/* ------------------------------------------------------------------ */
/* values: addresses, lengths, GPUs, locations */

static const u64 wild_addrs[] = {
	0, 1, 4095, 4096, 0x10000, 0x7ffffffff000ULL, 0x7fffffffffffULL,
	0x800000000000ULL, 0xffff888000000000ULL, 0xffffffffff600000ULL,
	~0ULL, ~0ULL - 4095,
};

/* An address: mostly inside a slot, sometimes anywhere in the arena or wild. */
static u64 addr_pick(struct rng *r, struct slot *s, bool writable_ok)
{
	u64 p = rnd(r, 100);

	slot_pick(r, s);
	if (p < 80) {
		u64 off = 0;

		if (chance(r, 50))
			off = rnd(r, s->len / page_size) * page_size;
		else if (chance(r, 50))
			off = rnd(r, s->len) & ~7ULL;
		return s->addr + off;
	}
	if (p < 92 || writable_ok)
		return arena + (rnd(r, ARENA_SIZE) & ~7ULL);
	return wild_addrs[rnd(r, sizeof(wild_addrs) / sizeof(wild_addrs[0]))];
}

static u64 len_pick(struct rng *r, u64 avail)
{
	static const u64 odd[] = { 0, 1, 7, 8, 4095, 4097, 1ULL << 32, (1ULL << 32) + 1,
				   1ULL << 47, ~0ULL, ~0ULL - 4095 };
	u64 p = rnd(r, 100);

	if (p < 8)
		return odd[rnd(r, sizeof(odd) / sizeof(odd[0]))];
	if (!avail)
		avail = page_size;
	if (p < 40)
		return avail;
	if (p < 70)
		return (rnd(r, avail / page_size) + 1) * page_size;
	return rnd(r, avail) + 1;
}

static u32 gpu_pick(struct rng *r)
{
	static const u32 odd[] = { UVM_MAX_GPUS, UVM_MAX_GPUS - 1, 255, 256,
				   0x7fffffff, 0xffffffff };

	if (chance(r, 90))
		return (u32)rnd(r, num_gpus);
	if (chance(r, 50))
		return num_gpus;
	return odd[rnd(r, 6)];
}

static struct uvm_location loc_pick(struct rng *r)
{
	struct uvm_location l = { 0 };
	u64 p = rnd(r, 100);

	if (p < 55) {
		l.type = UVM_LOCATION_GPU;
		l.id = (int32_t)gpu_pick(r);
	} else if (p < 80) {
		l.type = UVM_LOCATION_HOST;
	} else if (p < 88) {
		l.type = UVM_LOCATION_HOST_NUMA;
		l.id = chance(r, 80) ? 0 : (int32_t)rnd(r, 2048) - 1;
	} else if (p < 95) {
		l.type = UVM_LOCATION_HOST_NUMA_CURRENT;
	} else {
		l.type = chance(r, 50) ? 0 : (u32)rnd(r, 1000);
		l.id = (int32_t)rnext(r);
	}
	return l;
}

/* ------------------------------------------------------------------ */
/* ioctl descriptions: what must be zero, what is a flag */

struct zero_field {
	unsigned short off;
	unsigned short size;
};

struct ioctl_desc {
	const char *name;
	unsigned long cmd;
	unsigned int size;
	int flags_off;		/* -1: none */
	u32 flags_valid;
	struct zero_field zero[4];
};

#define Z(s, m)	{ offsetof(struct s, m), sizeof(((struct s *)0)->m) }
#define ZNONE	{ 0, 0 }

enum {
	I_VERSION, I_GPU_INFO, I_COUNTERS, I_ADVISE, I_MIGRATE, I_FENCE_WAIT,
	I_RANGE_QUERY, I_POINTER_INFO, I_HOST_REGISTER, I_HOST_UNREGISTER,
	I_COPY, I_MEMSET, I_MEM_CREATE, I_MEM_RELEASE, I_MEM_PROPS, I_MEM_EXPORT,
	I_MEM_IMPORT, I_MEM_MAP, I_MEM_UNMAP, I_MEM_SET_ACCESS, I_MEM_QUERY,
	I_LAUNCH, I_RESIDENCY, I_COPY_3D, I_MEMSET_3D, I_COPY_BATCH, I_COUNT
};
_Static_assert(I_COUNT <= MAX_IOCTL_IDS, "MAX_IOCTL_IDS too small");

static const struct ioctl_desc ioctls[I_COUNT] = {
	[I_VERSION] = { "GET_VERSION", UVM_IOC_GET_VERSION, sizeof(struct uvm_ioc_version),
		-1, 0, { Z(uvm_ioc_version, reserved) } },
	[I_GPU_INFO] = { "GPU_INFO", UVM_IOC_GPU_INFO, sizeof(struct uvm_ioc_gpu_info),
		-1, 0, { Z(uvm_ioc_gpu_info, pad), Z(uvm_ioc_gpu_info, reserved) } },
	[I_COUNTERS] = { "GET_COUNTERS", UVM_IOC_GET_COUNTERS,
		sizeof(struct uvm_ioc_get_counters),
		offsetof(struct uvm_ioc_get_counters, flags), 0, { ZNONE } },
	[I_ADVISE] = { "ADVISE", UVM_IOC_ADVISE, sizeof(struct uvm_ioc_advise),
		offsetof(struct uvm_ioc_advise, flags), 0, { Z(uvm_ioc_advise, reserved) } },
	[I_MIGRATE] = { "MIGRATE", UVM_IOC_MIGRATE, sizeof(struct uvm_ioc_migrate),
		offsetof(struct uvm_ioc_migrate, flags), UVM_MIGRATE_ASYNC,
		{ Z(uvm_ioc_migrate, pad), Z(uvm_ioc_migrate, reserved) } },
	[I_FENCE_WAIT] = { "FENCE_WAIT", UVM_IOC_FENCE_WAIT,
		sizeof(struct uvm_ioc_fence_wait),
		offsetof(struct uvm_ioc_fence_wait, flags), UVM_FENCE_WAIT_POLL,
		{ Z(uvm_ioc_fence_wait, pad) } },
	[I_RANGE_QUERY] = { "RANGE_QUERY", UVM_IOC_RANGE_QUERY,
		sizeof(struct uvm_ioc_range_query),
		offsetof(struct uvm_ioc_range_query, flags), 0,
		{ Z(uvm_ioc_range_query, reserved) } },
	[I_POINTER_INFO] = { "POINTER_INFO", UVM_IOC_POINTER_INFO,
		sizeof(struct uvm_ioc_pointer_info), -1, 0,
		{ Z(uvm_ioc_pointer_info, gpu_index), Z(uvm_ioc_pointer_info, reserved) } },
	[I_HOST_REGISTER] = { "HOST_REGISTER", UVM_IOC_HOST_REGISTER,
		sizeof(struct uvm_ioc_host_register),
		offsetof(struct uvm_ioc_host_register, flags), UVM_HOST_REGISTER_READ_ONLY,
		{ Z(uvm_ioc_host_register, pad), Z(uvm_ioc_host_register, reserved) } },
	[I_HOST_UNREGISTER] = { "HOST_UNREGISTER", UVM_IOC_HOST_UNREGISTER,
		sizeof(struct uvm_ioc_host_unregister), -1, 0,
		{ Z(uvm_ioc_host_unregister, reserved) } },
	[I_COPY] = { "COPY", UVM_IOC_COPY, sizeof(struct uvm_ioc_copy),
		offsetof(struct uvm_ioc_copy, flags), UVM_COPY_ASYNC,
		{ Z(uvm_ioc_copy, reserved) } },
	[I_MEMSET] = { "MEMSET", UVM_IOC_MEMSET, sizeof(struct uvm_ioc_memset),
		offsetof(struct uvm_ioc_memset, flags), UVM_COPY_ASYNC,
		{ Z(uvm_ioc_memset, reserved) } },
	[I_MEM_CREATE] = { "MEM_CREATE", UVM_IOC_MEM_CREATE, sizeof(struct uvm_ioc_mem_create),
		offsetof(struct uvm_ioc_mem_create, flags), 0,
		{ Z(uvm_ioc_mem_create, reserved) } },
	[I_MEM_RELEASE] = { "MEM_RELEASE", UVM_IOC_MEM_RELEASE,
		sizeof(struct uvm_ioc_mem_release), -1, 0, { Z(uvm_ioc_mem_release, reserved) } },
	[I_MEM_PROPS] = { "MEM_PROPS", UVM_IOC_MEM_PROPS, sizeof(struct uvm_ioc_mem_props),
		offsetof(struct uvm_ioc_mem_props, flags), 0,
		{ Z(uvm_ioc_mem_props, reserved) } },
	[I_MEM_EXPORT] = { "MEM_EXPORT", UVM_IOC_MEM_EXPORT, sizeof(struct uvm_ioc_mem_export),
		offsetof(struct uvm_ioc_mem_export, flags), 0,
		{ Z(uvm_ioc_mem_export, pad), Z(uvm_ioc_mem_export, reserved) } },
	[I_MEM_IMPORT] = { "MEM_IMPORT", UVM_IOC_MEM_IMPORT, sizeof(struct uvm_ioc_mem_import),
		offsetof(struct uvm_ioc_mem_import, flags), 0,
		{ Z(uvm_ioc_mem_import, reserved) } },
	[I_MEM_MAP] = { "MEM_MAP", UVM_IOC_MEM_MAP, sizeof(struct uvm_ioc_mem_map),
		offsetof(struct uvm_ioc_mem_map, flags), 0,
		{ Z(uvm_ioc_mem_map, pad), Z(uvm_ioc_mem_map, reserved) } },
	[I_MEM_UNMAP] = { "MEM_UNMAP", UVM_IOC_MEM_UNMAP, sizeof(struct uvm_ioc_mem_unmap),
		offsetof(struct uvm_ioc_mem_unmap, flags), 0,
		{ Z(uvm_ioc_mem_unmap, pad), Z(uvm_ioc_mem_unmap, reserved) } },
	[I_MEM_SET_ACCESS] = { "MEM_SET_ACCESS", UVM_IOC_MEM_SET_ACCESS,
		sizeof(struct uvm_ioc_mem_set_access),
		offsetof(struct uvm_ioc_mem_set_access, flags), 0,
		{ Z(uvm_ioc_mem_set_access, pad), Z(uvm_ioc_mem_set_access, reserved) } },
	[I_MEM_QUERY] = { "MEM_QUERY", UVM_IOC_MEM_QUERY, sizeof(struct uvm_ioc_mem_query),
		offsetof(struct uvm_ioc_mem_query, flags), UVM_MEM_QUERY_RETAIN,
		{ Z(uvm_ioc_mem_query, pad), Z(uvm_ioc_mem_query, pad2),
		  Z(uvm_ioc_mem_query, reserved) } },
	[I_LAUNCH] = { "TEST_LAUNCH", UVM_TEST_IOC_LAUNCH, sizeof(struct uvm_test_launch),
		offsetof(struct uvm_test_launch, flags), 0,
		{ Z(uvm_test_launch, reserved) } },
	[I_RESIDENCY] = { "TEST_RESIDENCY", UVM_TEST_IOC_RESIDENCY,
		sizeof(struct uvm_test_residency),
		offsetof(struct uvm_test_residency, flags),
		UVM_TEST_RESIDENCY_PAGEABLE | UVM_TEST_RESIDENCY_PTE_SIZES,
		{ Z(uvm_test_residency, pad) } },
	[I_COPY_3D] = { "COPY_3D", UVM_IOC_COPY_3D, sizeof(struct uvm_ioc_copy_3d),
		offsetof(struct uvm_ioc_copy_3d, flags), UVM_COPY_ASYNC,
		{ Z(uvm_ioc_copy_3d, reserved) } },
	[I_MEMSET_3D] = { "MEMSET_3D", UVM_IOC_MEMSET_3D, sizeof(struct uvm_ioc_memset_3d),
		offsetof(struct uvm_ioc_memset_3d, flags), UVM_COPY_ASYNC,
		{ Z(uvm_ioc_memset_3d, reserved) } },
	[I_COPY_BATCH] = { "COPY_BATCH", UVM_IOC_COPY_BATCH, sizeof(struct uvm_ioc_copy_batch),
		offsetof(struct uvm_ioc_copy_batch, flags), UVM_COPY_ASYNC,
		{ Z(uvm_ioc_copy_batch, reserved) } },
};

/* errnos an ioctl of the module may return (see the uapi's Return: lines) */
static bool errno_expected(int e)
{
	switch (e) {
	case EPERM: case ENOENT: case ESRCH: case EINTR: case EBADF: case EAGAIN:
	case ENOMEM: case EACCES: case EFAULT: case EBUSY: case EEXIST:
	case ENODEV: case EINVAL: case ENFILE: case EMFILE: case ENOTTY:
	case ENOSPC: case E2BIG: case EOPNOTSUPP: case ETIMEDOUT: case EREMOTEIO:
	case EMSGSIZE:
		return true;
	default:
		return false;
	}
}

/*
 * Mutations of an argument structure.  Those marked "must fail" make any
 * call invalid, so a 0 return is a bug.
 */
enum mutation { MUT_NONE, MUT_ZERO_FIELD, MUT_BAD_FLAG, MUT_SHORT, MUT_LONG_ZERO,
		MUT_LONG_NONZERO, MUT_WRONG_DIR, MUT_BAD_PTR, MUT_BITFLIP,
		MUT_RANDOM_WORD };
static const char *const mut_names[] = { "", "+zero-field", "+bad-flag", "+short",
	"+long-zero", "+long-nonzero", "+wrong-dir", "+bad-ptr", "+bitflip", "+word" };

static enum mutation mutation_pick(struct rng *r)
{
	u64 p = rnd(r, 1000);

	if (p < 780)
		return MUT_NONE;
	if (p < 820)
		return MUT_ZERO_FIELD;
	if (p < 860)
		return MUT_BAD_FLAG;
	if (p < 875)
		return MUT_SHORT;
	if (p < 895)
		return MUT_LONG_ZERO;
	if (p < 910)
		return MUT_LONG_NONZERO;
	if (p < 920)
		return MUT_WRONG_DIR;
	if (p < 935)
		return MUT_BAD_PTR;
	if (p < 970)
		return MUT_BITFLIP;
	return MUT_RANDOM_WORD;
}

static void note(struct ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Describe the running op (read by the supervisor on a hang). */
static void note(struct ctx *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->st->desc, sizeof(c->st->desc), fmt, ap);
	va_end(ap);
	if (cfg.verbose)
		fprintf(stderr, "[%d.%" PRIu64 "] %s\n", c->stream, c->k, c->st->desc);
}

/*
 * do_ioctl() - issue ioctl @id with @args (in the scratch area), mutated
 * Return: the ioctl's result (-errno or >= 0).
 */
static int do_ioctl(struct ctx *c, int fd, int id, void *args)
{
	const struct ioctl_desc *d = &ioctls[id];
	enum mutation m = mutation_pick(&c->r);
	unsigned long cmd = d->cmd;
	unsigned char *a = args;
	void *argp = args;
	bool must_fail = false;
	unsigned int size = d->size;
	u64 t0;
	int ret, e;

	switch (m) {
	case MUT_ZERO_FIELD: {
		int n = 0;
		const struct zero_field *z;

		while (n < 4 && d->zero[n].size)
			n++;
		if (!n)
			break;
		z = &d->zero[rnd(&c->r, n)];
		a[z->off + rnd(&c->r, z->size)] |= (unsigned char)(1u << rnd(&c->r, 8));
		must_fail = true;
		break;
	}
	case MUT_BAD_FLAG: {
		u32 f, bit;

		if (d->flags_off < 0)
			break;
		memcpy(&f, a + d->flags_off, 4);
		do {
			bit = 1u << rnd(&c->r, 32);
		} while (bit & d->flags_valid);
		f |= bit;
		memcpy(a + d->flags_off, &f, 4);
		must_fail = true;
		break;
	}
	case MUT_SHORT:
		size = d->size - 8 * (1 + (unsigned int)rnd(&c->r, d->size / 8));
		cmd = (cmd & ~((unsigned long)_IOC_SIZEMASK << _IOC_SIZESHIFT)) |
		      ((unsigned long)size << _IOC_SIZESHIFT);
		must_fail = true;
		break;
	case MUT_LONG_ZERO:
	case MUT_LONG_NONZERO:
		size = d->size + 8 * (1 + (unsigned int)rnd(&c->r, 8));
		memset(a + d->size, 0, size - d->size);
		if (m == MUT_LONG_NONZERO) {
			a[d->size + rnd(&c->r, size - d->size)] = 0x5a;
			must_fail = true;
		}
		cmd = (cmd & ~((unsigned long)_IOC_SIZEMASK << _IOC_SIZESHIFT)) |
		      ((unsigned long)size << _IOC_SIZESHIFT);
		break;
	case MUT_WRONG_DIR: {
		static const unsigned long dirs[] = { _IOC_NONE, _IOC_READ, _IOC_WRITE };

		cmd = (cmd & ~((unsigned long)_IOC_DIRMASK << _IOC_DIRSHIFT)) |
		      (dirs[rnd(&c->r, 3)] << _IOC_DIRSHIFT);
		must_fail = true;
		break;
	}
	case MUT_BAD_PTR:
		argp = (void *)(uintptr_t)wild_addrs[rnd(&c->r, 11)];
		must_fail = true;
		break;
	case MUT_BITFLIP:
		a[rnd(&c->r, d->size)] ^= (unsigned char)(1u << rnd(&c->r, 8));
		break;
	case MUT_RANDOM_WORD: {
		static const u64 vals[] = { 0, 1, 0xffffffffULL, 0x80000000ULL,
					    0x100000000ULL, ~0ULL, 1ULL << 63, 4096, 2 << 20 };
		u64 v = vals[rnd(&c->r, 9)];
		u64 off = rnd(&c->r, d->size / 4) * 4;

		memcpy(a + off, &v, (off + 8 <= d->size) ? 8 : 4);
		break;
	}
	default:
		break;
	}

	if (cfg.verbose && m != MUT_NONE)
		fprintf(stderr, "[%d.%" PRIu64 "]   mutation %s\n", c->stream, c->k,
			mut_names[m]);
	__atomic_add_fetch(&c->st->ioctls, 1, __ATOMIC_RELAXED);
	t0 = now_ns();
	ret = ioctl(fd, cmd, argp);
	e = ret < 0 ? errno : 0;
	c->st->ioctl_n[id]++;
	c->st->ioctl_ns[id] += now_ns() - t0;
	if (ret < 0)
		ret = -e;
	else
		__atomic_add_fetch(&c->st->ioctl_ok, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&sh->errnos[e < 160 ? e : 159], 1, __ATOMIC_RELAXED);
	if (cfg.verbose)
		fprintf(stderr, "[%d.%" PRIu64 "]   %s -> %d\n", c->stream, c->k, d->name, ret);
	if (ret < 0 && !errno_expected(e))
		fail(c, "%s%s returned errno %d (%s), not one the ABI documents",
		     d->name, mut_names[m], e, strerror(e));
	/* success is only wrong on a descriptor of /dev/uvm */
	if (ret >= 0 && must_fail)
		fail(c, "%s%s succeeded on fd %d although the arguments are invalid",
		     d->name, mut_names[m], fd);
	return ret;
}

/* ------------------------------------------------------------------ */
/* the operations */

static void sig_touch(int sig, siginfo_t *si, void *uc)
{
	(void)si;
	(void)uc;
	if (in_touch)
		siglongjmp(touch_jb, 1);
	signal(sig, SIG_DFL);
	raise(sig);
}

static int op_open(struct ctx *c)
{
	int i = (int)rnd(&c->r, NFDS), fd, old;

	note(c, "open /dev/uvm into fd slot %d", i);
	fd = open("/dev/" UVM_DEVICE_NAME, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	pthread_mutex_lock(&tbl_lock);
	old = uvm_fds[i];
	uvm_fds[i] = fd;
	memset(handles[i], 0, sizeof(handles[i]));
	pthread_mutex_unlock(&tbl_lock);
	if (old >= 0)
		close(old);
	return 0;
}

static int op_close(struct ctx *c)
{
	int i = (int)rnd(&c->r, NFDS), fd;

	pthread_mutex_lock(&tbl_lock);
	fd = uvm_fds[i];
	uvm_fds[i] = -1;
	pthread_mutex_unlock(&tbl_lock);
	note(c, "close fd slot %d (fd %d)", i, fd);
	if (fd >= 0)
		close(fd);
	return 0;
}

/* mmap of /dev/uvm (every offset kind), anonymous or file memory, at a slot */
static int op_mmap(struct ctx *c)
{
	static const char *const kinds[] = { "managed", "device", "reserve", "anon",
					     "file", "bad" };
	int i = (int)rnd(&c->r, NSLOTS), kind = (int)rnd(&c->r, 100), fd;
	u64 base = arena + i * SLOT_SPAN, off = 0, len, at, foff = 0;
	int prot = PROT_READ | PROT_WRITE, flags = MAP_SHARED | MAP_FIXED;
	int k, skind;
	void *p;

	if (kind < 35)
		k = 0;
	else if (kind < 50)
		k = 1;
	else if (kind < 62)
		k = 2;
	else if (kind < 82)
		k = 3;
	else if (kind < 90)
		k = 4;
	else
		k = 5;

	if (chance(&c->r, 50))
		len = (rnd(&c->r, 16) + 1) * (2 * MIB);
	else
		len = (rnd(&c->r, SLOT_SPAN / page_size / 4) + 1) * page_size;
	if (chance(&c->r, 30))
		off = rnd(&c->r, 8) * page_size;
	if (off + len > SLOT_SPAN)
		len = SLOT_SPAN - off;
	at = base + off;
	fd = fd_pick(&c->r, NULL);
	skind = SLOT_MANAGED;
	switch (k) {
	case 0:
		foff = UVM_MMAP_MANAGED;
		break;
	case 1:
		foff = UVM_MMAP_DEVICE(gpu_pick(&c->r) & 0xff);
		prot = PROT_NONE;
		skind = SLOT_DEVICE;
		break;
	case 2:
		foff = UVM_MMAP_RESERVE;
		skind = SLOT_RESERVE;
		break;
	case 3:
		fd = -1;
		flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED;
		if (chance(&c->r, 20))
			flags |= MAP_POPULATE;
		skind = SLOT_ANON;
		break;
	case 4:
		fd = memfd_create("uvm-fuzz", MFD_CLOEXEC);
		if (fd < 0 || ftruncate(fd, (off_t)len)) {
			if (fd >= 0)
				close(fd);
			return -errno;
		}
		skind = SLOT_FILE;
		break;
	default: {
		/* invalid: private, executable or an unknown offset */
		static const u64 offs[] = { 4096, 1ULL << 40 | 4096, 3ULL << 40,
					    UVM_MMAP_DEVICE(0) | 0x100000000000ULL,
					    1ULL << 46 };
		u64 p2 = rnd(&c->r, 3);

		if (p2 == 0)
			flags = MAP_PRIVATE | MAP_FIXED;
		else if (p2 == 1)
			prot |= PROT_EXEC;
		else
			foff = offs[rnd(&c->r, 5)];
		break;
	}
	}
	note(c, "mmap %s slot %d at %#llx len %#llx off %#llx fd %d", kinds[k], i,
	     (unsigned long long)at, (unsigned long long)len,
	     (unsigned long long)foff, fd);
	__atomic_add_fetch(&c->st->mmaps, 1, __ATOMIC_RELAXED);
	p = mmap((void *)(uintptr_t)at, len, prot, flags, fd, (off_t)foff);
	if (k == 4)
		close(fd);
	if (p == MAP_FAILED)
		return -errno;
	if (k == 5) {
		fail(c, "mmap of /dev/uvm with bad flags/offset succeeded");
		return 0;
	}
	if (k == 3 && chance(&c->r, 30))
		madvise(p, len, MADV_HUGEPAGE);
	slot_set(i, skind, at, len);
	return 0;
}

/* munmap: an overlay of PROT_NONE anonymous memory (the range stays ours) */
static int op_unmap(struct ctx *c)
{
	struct slot s;
	int i = slot_pick(&c->r, &s);
	u64 off = 0, len = s.len;
	void *p;

	if (chance(&c->r, 30)) {
		off = rnd(&c->r, s.len / page_size) * page_size;
		len = (rnd(&c->r, (s.len - off) / page_size) + 1) * page_size;
	}
	note(c, "munmap slot %d (%s) +%#llx len %#llx", i, slot_names[s.kind],
	     (unsigned long long)off, (unsigned long long)len);
	/*
	 * A real munmap() half of the time: only our own MAP_FIXED mappings
	 * can take the hole before the overlay below fills it (malloc does
	 * not mmap, see worker()).
	 */
	if (chance(&c->r, 50) && munmap((void *)(uintptr_t)(s.addr + off), len))
		return -errno;
	p = mmap((void *)(uintptr_t)(s.addr + off), len, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	if (off == 0 && len == s.len)
		slot_set(i, SLOT_FREE, 0, 0);
	return 0;
}

static int op_mremap(struct ctx *c)
{
	struct slot s, d;
	int i = slot_pick(&c->r, &s), j = slot_pick(&c->r, &d);
	u64 nlen = (rnd(&c->r, SLOT_SPAN / page_size) + 1) * page_size;
	void *p;

	if (s.kind == SLOT_FREE)
		return 0;
	if (chance(&c->r, 50)) {
		/* in place, shrink or grow within the slot */
		if (s.addr + nlen > arena + (i + 1) * SLOT_SPAN)
			nlen = arena + (i + 1) * SLOT_SPAN - s.addr;
		note(c, "mremap slot %d (%s) to len %#llx in place", i,
		     slot_names[s.kind], (unsigned long long)nlen);
		p = mremap((void *)(uintptr_t)s.addr, s.len, nlen, 0);
		if (p == MAP_FAILED)
			return -errno;
		if (nlen < s.len)
			mmap((void *)(uintptr_t)(s.addr + nlen), s.len - nlen, PROT_NONE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
		slot_set(i, s.kind, s.addr, nlen);
		return 0;
	}
	if (i == j)
		return 0;
	d.addr = arena + j * SLOT_SPAN;
	if (nlen > SLOT_SPAN)
		nlen = SLOT_SPAN;
	note(c, "mremap slot %d (%s) to slot %d len %#llx", i, slot_names[s.kind], j,
	     (unsigned long long)nlen);
	p = mremap((void *)(uintptr_t)s.addr, s.len, nlen, MREMAP_MAYMOVE | MREMAP_FIXED,
		   (void *)(uintptr_t)d.addr);
	if (p == MAP_FAILED)
		return -errno;
	/* the old range is a hole now: fill it before anyone else can */
	mmap((void *)(uintptr_t)s.addr, s.len, PROT_NONE,
	     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
	slot_set(j, s.kind, d.addr, nlen);
	slot_set(i, SLOT_FREE, 0, 0);
	return 0;
}

static int op_mprotect(struct ctx *c)
{
	static const int prots[] = { PROT_NONE, PROT_READ, PROT_READ | PROT_WRITE,
				     PROT_WRITE, PROT_READ | PROT_EXEC };
	struct slot s;
	int i = slot_pick(&c->r, &s), prot = prots[rnd(&c->r, 5)];
	u64 off = rnd(&c->r, s.len / page_size) * page_size;
	u64 len = (rnd(&c->r, (s.len - off) / page_size) + 1) * page_size;

	note(c, "mprotect slot %d (%s) +%#llx len %#llx prot %d", i, slot_names[s.kind],
	     (unsigned long long)off, (unsigned long long)len, prot);
	return mprotect((void *)(uintptr_t)(s.addr + off), len, prot) ? -errno : 0;
}

static int op_madvise(struct ctx *c)
{
	static const int advs[] = { MADV_DONTNEED, MADV_WILLNEED, MADV_DONTFORK,
				    MADV_DOFORK, MADV_HUGEPAGE, MADV_NOHUGEPAGE,
				    MADV_COLD, MADV_PAGEOUT, MADV_FREE, MADV_REMOVE,
				    MADV_NORMAL, MADV_SEQUENTIAL, MADV_WIPEONFORK,
				    MADV_KEEPONFORK };
	struct slot s;
	int i = slot_pick(&c->r, &s), adv = advs[rnd(&c->r, 14)];
	u64 off = rnd(&c->r, s.len / page_size) * page_size;
	u64 len = (rnd(&c->r, (s.len - off) / page_size) + 1) * page_size;

	note(c, "madvise slot %d (%s) +%#llx len %#llx advice %d", i, slot_names[s.kind],
	     (unsigned long long)off, (unsigned long long)len, adv);
	return madvise((void *)(uintptr_t)(s.addr + off), len, adv) ? -errno : 0;
}

/* CPU loads and stores; SIGSEGV and SIGBUS are expected */
static int op_touch(struct ctx *c)
{
	struct slot s;
	int i = slot_pick(&c->r, &s);
	u64 off = rnd(&c->r, s.len / page_size) * page_size;
	u64 n = rnd(&c->r, 64) + 1, step = page_size * (rnd(&c->r, 4) + 1), j;
	bool write = chance(&c->r, 50);
	volatile unsigned char *p;
	unsigned char v = (unsigned char)rnext(&c->r);

	note(c, "cpu %s slot %d (%s) +%#llx %llu pages", write ? "write" : "read", i,
	     slot_names[s.kind], (unsigned long long)off, (unsigned long long)n);
	in_touch = 1;
	if (sigsetjmp(touch_jb, 1)) {
		in_touch = 0;
		return -EFAULT;
	}
	for (j = 0; j < n && off + j * step < s.len; j++) {
		p = (volatile unsigned char *)(uintptr_t)(s.addr + off + j * step);
		if (write)
			*p = v;
		else
			(void)*p;
	}
	in_touch = 0;
	return 0;
}

/* fill op @o of a launch program: mostly well formed */
static void gpu_op_fill(struct ctx *c, struct uvm_test_gpu_op *o, bool *data_used)
{
	struct slot s;
	u64 addr = addr_pick(&c->r, &s, true), avail, len;

	memset(o, 0, sizeof(*o));
	o->type = chance(&c->r, 97) ? 1 + (u32)rnd(&c->r, 3) : (u32)rnd(&c->r, 10);
	o->order = chance(&c->r, 97) ? 1 + (u32)rnd(&c->r, 2) : (u32)rnd(&c->r, 5);
	avail = s.addr + s.len > addr ? s.addr + s.len - addr : page_size;
	if (avail > MIB)
		avail = MIB;
	len = chance(&c->r, 90) ? (rnd(&c->r, avail / 8) + 1) * 8 : len_pick(&c->r, avail);
	/* never beyond the arena's guard: the GPU would reach our own memory */
	if (len > 64 * MIB)
		len = 64 * MIB;
	o->address = addr & ~7ULL;
	o->length = len;
	o->access_size = chance(&c->r, 90) ? 8u << rnd(&c->r, 10) : (u32)rnd(&c->r, 5000);
	if (o->access_size > 4096 && chance(&c->r, 80))
		o->access_size = 4096;
	o->stride = chance(&c->r, 60) ? 0 : o->access_size * (rnd(&c->r, 8) + 1);
	o->seed = (u32)rnext(&c->r);
	o->value = rnext(&c->r);
	/* a data buffer only where the length surely fits it */
	if (!*data_used && o->length <= DATA_SIZE && chance(&c->r, 30)) {
		o->data_ptr = (u64)(uintptr_t)(c->scratch + DATA_OFF);
		*data_used = true;
	}
	if (chance(&c->r, 2))
		o->reserved[rnd(&c->r, 2)] = 1;
}

static int op_launch(struct ctx *c)
{
	struct uvm_test_launch *l = (void *)c->scratch;
	struct uvm_test_gpu_op *ops = (void *)(c->scratch + 4096);
	u32 n = chance(&c->r, 95) ? 1 + (u32)rnd(&c->r, 4) : (u32)rnd(&c->r, 8);
	bool data_used = false;
	int fd = fd_pick(&c->r, NULL);
	u32 i;

	memset(l, 0, 4096);
	for (i = 0; i < n && i < 8; i++)
		gpu_op_fill(c, &ops[i], &data_used);
	l->gpu_index = gpu_pick(&c->r);
	l->num_warps = chance(&c->r, 95) ? 1 + (u32)rnd(&c->r, 32) :
		       (chance(&c->r, 50) ? 0 : UVM_TEST_MAX_WARPS + 1);
	l->ops_ptr = (u64)(uintptr_t)ops;
	l->num_ops = n;
	if (chance(&c->r, 1))
		l->num_ops = UVM_TEST_MAX_OPS + 1;
	note(c, "launch gpu %u warps %u ops %u first %#llx+%#llx type %u", l->gpu_index,
	     l->num_warps, l->num_ops, (unsigned long long)ops[0].address,
	     (unsigned long long)ops[0].length, ops[0].type);
	__atomic_add_fetch(&c->st->launches, 1, __ATOMIC_RELAXED);
	return do_ioctl(c, fd, I_LAUNCH, l);
}

/* a range inside a slot, in @rg */
static void range_fill(struct ctx *c, struct uvm_range *rg)
{
	struct slot s;
	u64 a = addr_pick(&c->r, &s, false);
	u64 avail = s.addr + s.len > a ? s.addr + s.len - a : page_size;

	rg->address = a;
	rg->length = len_pick(&c->r, avail);
	/*
	 * Outside the arena only lengths that must be refused or stay within
	 * a page: a discard must never reach the fuzzer's own memory.
	 */
	if ((a < arena || a >= arena + ARENA_SIZE + GUARD_SIZE) &&
	    rg->length > page_size && a + rg->length > a)
		rg->length = chance(&c->r, 50) ? page_size : -a + (rnd(&c->r, 2) ? 0 : 4096);
}

/* A box's dimensions: mostly small boxes, sometimes zero or huge ones. */
static void box_fill(struct ctx *c, __u64 *width, __u32 *height, __u32 *depth)
{
	*width = chance(&c->r, 90) ? 1 + rnd(&c->r, 3 * page_size) : len_pick(&c->r, 1ULL << 33);
	*height = chance(&c->r, 90) ? 1 + (u32)rnd(&c->r, 64) : (u32)rnext(&c->r);
	*depth = chance(&c->r, 80) ? 1 : chance(&c->r, 90) ? 1 + (u32)rnd(&c->r, 8) :
		 (u32)rnext(&c->r);
}

/* One side of a box at @addr: pitches that hold a row, mostly. */
static void box_side(struct ctx *c, struct uvm_box *b, u64 addr, u64 row, u32 height)
{
	b->addr = addr;
	b->pitch = row + (chance(&c->r, 50) ? 0 : rnd(&c->r, 2 * page_size));
	if (chance(&c->r, 5))
		b->pitch = chance(&c->r, 50) ? rnd(&c->r, row + 1) : rnext(&c->r);
	b->slice_pitch = b->pitch * height + (chance(&c->r, 50) ? 0 : rnd(&c->r, page_size));
	if (chance(&c->r, 5))
		b->slice_pitch = rnext(&c->r) >> rnd(&c->r, 64);
}

static int op_ioctl(struct ctx *c)
{
	int fdidx, fd = fd_pick(&c->r, &fdidx), id = (int)rnd(&c->r, I_COUNT);
	unsigned char *a = c->scratch, *arr = c->scratch + 4096;
	struct slot s;
	int ret;

	if (fdidx < 0)
		fdidx = 0;
	memset(a, 0, 4096);
	switch (id) {
	case I_VERSION:
	case I_GPU_INFO: {
		struct uvm_ioc_gpu_info *g = (void *)a;

		if (id == I_GPU_INFO)
			g->gpu_index = gpu_pick(&c->r);
		break;
	}
	case I_COUNTERS: {
		struct uvm_ioc_get_counters *g = (void *)a;

		g->counters_ptr = chance(&c->r, 90) ? (u64)(uintptr_t)arr :
				  wild_addrs[rnd(&c->r, 12)];
		g->count = chance(&c->r, 80) ? (u32)rnd(&c->r, UVM_COUNTER_COUNT + 4) :
			   0xffffffffu;
		break;
	}
	case I_ADVISE: {
		struct uvm_ioc_advise *g = (void *)a;
		struct uvm_range rg;

		range_fill(c, &rg);
		g->address = rg.address;
		g->length = rg.length;
		g->advice = chance(&c->r, 95) ? 1 + (u32)rnd(&c->r, 6) : (u32)rnd(&c->r, 100);
		g->location = loc_pick(&c->r);
		break;
	}
	case I_MIGRATE: {
		struct uvm_ioc_migrate *g = (void *)a;
		struct uvm_range *rgs = (void *)arr;
		struct uvm_location *locs = (void *)(arr + 64 * 1024);
		u64 *starts = (void *)(arr + 128 * 1024), i;
		u64 n = chance(&c->r, 95) ? 1 + rnd(&c->r, 8) : rnd(&c->r, 3) * UVM_MIGRATE_MAX_RANGES;
		u32 nl;

		for (i = 0; i < n && i < 64; i++)
			range_fill(c, &rgs[i]);
		g->op = chance(&c->r, 95) ? 1 + (u32)rnd(&c->r, 3) : (u32)rnd(&c->r, 8);
		g->flags = chance(&c->r, 30) ? UVM_MIGRATE_ASYNC : 0;
		g->ranges_ptr = (u64)(uintptr_t)rgs;
		g->count = n;
		nl = n && n <= 64 ? 1 + (u32)rnd(&c->r, n) : 1;
		for (i = 0; i < nl; i++) {
			locs[i] = loc_pick(&c->r);
			starts[i] = i == 0 ? 0 : starts[i - 1] + 1;
		}
		if (chance(&c->r, 5))
			starts[rnd(&c->r, nl)] = rnext(&c->r) % (n + 2);
		if (g->op != UVM_MIGRATE_DISCARD || chance(&c->r, 5)) {
			g->locations_ptr = (u64)(uintptr_t)locs;
			g->location_starts_ptr = (u64)(uintptr_t)starts;
			g->num_locations = nl;
		}
		note(c, "MIGRATE op %u count %llu first %#llx+%#llx locs %u", g->op,
		     (unsigned long long)n, (unsigned long long)rgs[0].address,
		     (unsigned long long)rgs[0].length, g->num_locations);
		ret = do_ioctl(c, fd, id, a);
		if (ret == 0 && (g->flags & UVM_MIGRATE_ASYNC))
			c->last_fence = g->fence;
		return ret;
	}
	case I_FENCE_WAIT: {
		struct uvm_ioc_fence_wait *g = (void *)a;

		g->fence = chance(&c->r, 60) ? c->last_fence :
			   (chance(&c->r, 50) ? 0 : rnext(&c->r) % 1000);
		g->flags = chance(&c->r, 30) ? UVM_FENCE_WAIT_POLL : 0;
		break;
	}
	case I_RANGE_QUERY: {
		struct uvm_ioc_range_query *g = (void *)a;
		struct uvm_range rg;

		range_fill(c, &rg);
		g->address = rg.address;
		g->length = rg.length;
		break;
	}
	case I_POINTER_INFO: {
		struct uvm_ioc_pointer_info *g = (void *)a;

		g->address = addr_pick(&c->r, &s, false);
		break;
	}
	case I_HOST_REGISTER: {
		struct uvm_ioc_host_register *g = (void *)a;

		slot_pick_kind(&c->r, chance(&c->r, 70) ? SLOT_ANON : SLOT_FILE, &s);
		g->address = s.addr + (chance(&c->r, 50) ? 0 :
				       rnd(&c->r, s.len / page_size) * page_size);
		g->length = len_pick(&c->r, s.addr + s.len - g->address);
		if (g->length > 64 * MIB && chance(&c->r, 90))
			g->length = page_size;
		g->flags = chance(&c->r, 30) ? UVM_HOST_REGISTER_READ_ONLY : 0;
		break;
	}
	case I_HOST_UNREGISTER: {
		struct uvm_ioc_host_unregister *g = (void *)a;

		slot_pick_kind(&c->r, SLOT_ANON, &s);
		g->address = chance(&c->r, 80) ? s.addr : addr_pick(&c->r, &s, false);
		break;
	}
	case I_COPY: {
		struct uvm_ioc_copy *g = (void *)a;
		struct slot s2;
		u64 l1, l2;

		g->dst = chance(&c->r, 15) ? (u64)(uintptr_t)(c->scratch + DATA_OFF) :
			 addr_pick(&c->r, &s, true);
		l1 = g->dst == (u64)(uintptr_t)(c->scratch + DATA_OFF) ? DATA_SIZE :
		     (s.addr + s.len > g->dst ? s.addr + s.len - g->dst : page_size);
		g->src = addr_pick(&c->r, &s2, false);
		l2 = s2.addr + s2.len > g->src ? s2.addr + s2.len - g->src : page_size;
		g->length = len_pick(&c->r, l1 < l2 ? l1 : l2);
		if (g->length > 16 * MIB && chance(&c->r, 90))
			g->length = 16 * MIB;
		g->gpu_index = gpu_pick(&c->r);
		g->flags = chance(&c->r, 30) ? UVM_COPY_ASYNC : 0;
		note(c, "COPY %#llx <- %#llx len %#llx gpu %u", (unsigned long long)g->dst,
		     (unsigned long long)g->src, (unsigned long long)g->length, g->gpu_index);
		ret = do_ioctl(c, fd, id, a);
		if (ret == 0)
			c->last_fence = g->fence;
		return ret;
	}
	case I_MEMSET: {
		struct uvm_ioc_memset *g = (void *)a;
		u64 avail;

		g->dst = addr_pick(&c->r, &s, true);
		avail = s.addr + s.len > g->dst ? s.addr + s.len - g->dst : page_size;
		g->element_size = chance(&c->r, 95) ? 1u << rnd(&c->r, 3) : (u32)rnd(&c->r, 9);
		g->count = len_pick(&c->r, avail) / (g->element_size ? g->element_size : 1);
		if (g->count > 4 * MIB && chance(&c->r, 90))
			g->count = 4 * MIB;
		g->value = (u32)rnext(&c->r);
		g->gpu_index = gpu_pick(&c->r);
		g->flags = chance(&c->r, 30) ? UVM_COPY_ASYNC : 0;
		break;
	}
	case I_COPY_3D: {
		struct uvm_ioc_copy_3d *g = (void *)a;
		struct slot s2;

		box_fill(c, &g->width, &g->height, &g->depth);
		box_side(c, &g->dst, addr_pick(&c->r, &s, true), g->width, g->height);
		box_side(c, &g->src, addr_pick(&c->r, &s2, false), g->width, g->height);
		g->gpu_index = gpu_pick(&c->r);
		g->flags = chance(&c->r, 30) ? UVM_COPY_ASYNC : 0;
		note(c, "COPY_3D %#llx <- %#llx %llux%ux%u", (unsigned long long)g->dst.addr,
		     (unsigned long long)g->src.addr, (unsigned long long)g->width, g->height,
		     g->depth);
		break;
	}
	case I_MEMSET_3D: {
		struct uvm_ioc_memset_3d *g = (void *)a;

		g->element_size = chance(&c->r, 95) ? 1u << rnd(&c->r, 3) : (u32)rnd(&c->r, 9);
		box_fill(c, &g->width, &g->height, &g->depth);
		box_side(c, &g->dst, addr_pick(&c->r, &s, true), g->width * g->element_size,
			 g->height);
		g->value = (u32)rnext(&c->r);
		g->gpu_index = gpu_pick(&c->r);
		g->flags = chance(&c->r, 30) ? UVM_COPY_ASYNC : 0;
		break;
	}
	case I_COPY_BATCH: {
		struct uvm_ioc_copy_batch *g = (void *)a;
		struct uvm_copy_op *ops = (void *)arr;
		u64 n = chance(&c->r, 95) ? 1 + rnd(&c->r, 64) :
			(chance(&c->r, 50) ? rnd(&c->r, 3) * UVM_COPY_BATCH_MAX : rnext(&c->r));
		/* in one batch of four, copies going on from the one before */
		bool runs = chance(&c->r, 25);
		u64 dstep = rnd(&c->r, 4), sstep = rnd(&c->r, 4), jitter = rnd(&c->r, 3);
		struct slot s2;
		u64 i;

		/* past 64 the array holds what earlier ops left there */
		for (i = 0; i < n && i < 64; i++) {
			if (runs && i && chance(&c->r, 90)) {
				/* rows the module makes one box, or overlaps it must not */
				ops[i] = ops[i - 1];
				ops[i].height = 1;
				ops[i].depth = 1;
				ops[i].dst.addr += dstep * ops[i].width + jitter;
				ops[i].src.addr += sstep * ops[i].width;
				continue;
			}
			memset(&ops[i], 0, sizeof(ops[i]));
			box_fill(c, &ops[i].width, &ops[i].height, &ops[i].depth);
			box_side(c, &ops[i].dst, addr_pick(&c->r, &s, true), ops[i].width,
				 ops[i].height);
			box_side(c, &ops[i].src, addr_pick(&c->r, &s2, false), ops[i].width,
				 ops[i].height);
			if (chance(&c->r, 1))
				ops[i].reserved = rnext(&c->r);
		}
		g->ops = chance(&c->r, 97) ? (u64)(uintptr_t)ops : rnext(&c->r);
		g->count = (u32)n;
		g->gpu_index = gpu_pick(&c->r);
		g->flags = chance(&c->r, 30) ? UVM_COPY_ASYNC : 0;
		note(c, "COPY_BATCH %u ops, first %#llx <- %#llx", g->count,
		     (unsigned long long)ops[0].dst.addr, (unsigned long long)ops[0].src.addr);
		ret = do_ioctl(c, fd, id, a);
		if (ret == 0)
			c->last_fence = g->fence;
		return ret;
	}
	case I_MEM_CREATE: {
		struct uvm_ioc_mem_create *g = (void *)a;

		g->size = chance(&c->r, 90) ? (1 + rnd(&c->r, 4)) * UVM_MEM_GRANULARITY :
			  len_pick(&c->r, UVM_MEM_GRANULARITY);
		g->location = loc_pick(&c->r);
		if (g->location.type == UVM_LOCATION_HOST_NUMA_CURRENT && chance(&c->r, 80))
			g->location.type = UVM_LOCATION_HOST;
		/* host memory: mostly one granule, to bound what a run holds */
		if (g->location.type != UVM_LOCATION_GPU && g->size > UVM_MEM_GRANULARITY &&
		    chance(&c->r, 90))
			g->size = UVM_MEM_GRANULARITY;
		g->handle_types = g->location.type == UVM_LOCATION_HOST ? 0 :
				  (chance(&c->r, 80) ? UVM_MEM_HANDLE_FD : 0);
		if (chance(&c->r, 5))
			g->handle_types = (u32)rnext(&c->r);
		note(c, "MEM_CREATE size %#llx loc %u/%d", (unsigned long long)g->size,
		     g->location.type, g->location.id);
		ret = do_ioctl(c, fd, id, a);
		if (ret == 0)
			handle_add(fd, fdidx, g->handle, &c->r);
		return ret;
	}
	case I_MEM_RELEASE:
	case I_MEM_PROPS: {
		u64 h = handle_pick(&c->r, fdidx);

		memcpy(a, &h, 8);
		break;
	}
	case I_MEM_EXPORT: {
		struct uvm_ioc_mem_export *g = (void *)a;

		g->handle = handle_pick(&c->r, fdidx);
		g->handle_type = chance(&c->r, 95) ? UVM_MEM_HANDLE_FD : (u32)rnext(&c->r);
		note(c, "MEM_EXPORT handle %#llx", (unsigned long long)g->handle);
		ret = do_ioctl(c, fd, id, a);
		if (ret == 0) {
			int j = (int)rnd(&c->r, NEXPORTS), old;

			pthread_mutex_lock(&tbl_lock);
			old = export_fds[j];
			export_fds[j] = g->fd;
			pthread_mutex_unlock(&tbl_lock);
			if (old >= 0)
				close(old);
		}
		return ret;
	}
	case I_MEM_IMPORT: {
		struct uvm_ioc_mem_import *g = (void *)a;

		pthread_mutex_lock(&tbl_lock);
		g->fd = export_fds[rnd(&c->r, NEXPORTS)];
		for (int j = 0; j < NEXPORTS && g->fd < 0; j++)
			g->fd = export_fds[j];
		pthread_mutex_unlock(&tbl_lock);
		if (chance(&c->r, 10))
			g->fd = chance(&c->r, 50) ? fd : (int)rnd(&c->r, 40) - 1;
		note(c, "MEM_IMPORT fd %d", g->fd);
		ret = do_ioctl(c, fd, id, a);
		if (ret == 0)
			handle_add(fd, fdidx, g->handle, &c->r);
		return ret;
	}
	case I_MEM_MAP:
	case I_MEM_UNMAP: {
		struct uvm_ioc_mem_map *g = (void *)a;
		struct uvm_ioc_mem_unmap *u = (void *)a;
		u64 addr, size;

		slot_pick_kind(&c->r, chance(&c->r, 85) ? SLOT_RESERVE : SLOT_MANAGED, &s);
		addr = (s.addr + UVM_MEM_GRANULARITY - 1) & ~(UVM_MEM_GRANULARITY - 1);
		addr += rnd(&c->r, 4) * UVM_MEM_GRANULARITY;
		size = chance(&c->r, 85) ? (1 + rnd(&c->r, 2)) * UVM_MEM_GRANULARITY :
		       len_pick(&c->r, s.len);
		if (chance(&c->r, 5))
			addr += page_size;
		if (id == I_MEM_MAP) {
			g->address = addr;
			g->size = size;
			g->offset = chance(&c->r, 80) ? 0 : rnd(&c->r, 3) * UVM_MEM_GRANULARITY;
			g->handle = handle_pick(&c->r, fdidx);
		} else {
			u->address = addr;
			u->size = size;
		}
		note(c, "%s %#llx+%#llx", ioctls[id].name, (unsigned long long)addr,
		     (unsigned long long)size);
		return do_ioctl(c, fd, id, a);
	}
	case I_MEM_SET_ACCESS: {
		struct uvm_ioc_mem_set_access *g = (void *)a;
		struct uvm_mem_access *d = (void *)arr;
		u32 n = chance(&c->r, 95) ? 1 + (u32)rnd(&c->r, 3) :
			(u32)rnd(&c->r, UVM_MEM_MAX_ACCESS_DESCS + 3), i;

		slot_pick_kind(&c->r, SLOT_RESERVE, &s);
		g->address = (s.addr + rnd(&c->r, 4) * UVM_MEM_GRANULARITY) &
			     ~(UVM_MEM_GRANULARITY - 1);
		g->size = chance(&c->r, 85) ? (1 + rnd(&c->r, 2)) * UVM_MEM_GRANULARITY :
			  len_pick(&c->r, s.len);
		for (i = 0; i < n && i < 40; i++) {
			d[i].location = loc_pick(&c->r);
			d[i].prot = chance(&c->r, 95) ? (u32)rnd(&c->r, 4) : (u32)rnext(&c->r);
			d[i].pad = chance(&c->r, 2);
		}
		g->descs_ptr = chance(&c->r, 97) ? (u64)(uintptr_t)d : wild_addrs[rnd(&c->r, 12)];
		g->count = n;
		break;
	}
	case I_MEM_QUERY: {
		struct uvm_ioc_mem_query *g = (void *)a;

		slot_pick_kind(&c->r, SLOT_RESERVE, &s);
		g->address = s.addr + rnd(&c->r, s.len);
		g->flags = chance(&c->r, 20) ? UVM_MEM_QUERY_RETAIN : 0;
		break;
	}
	case I_LAUNCH:
		return op_launch(c);
	case I_RESIDENCY: {
		struct uvm_test_residency *g = (void *)a;
		u64 max;

		g->address = addr_pick(&c->r, &s, false) & ~(page_size - 1);
		g->flags = (u32)rnd(&c->r, 4);
		max = DATA_SIZE / (g->flags & UVM_TEST_RESIDENCY_PTE_SIZES ?
				   sizeof(struct uvm_test_page_state_sizes) :
				   sizeof(struct uvm_test_page_state));
		g->length = (rnd(&c->r, chance(&c->r, 90) ? 512 : max) + 1) * page_size;
		if (chance(&c->r, 3))
			g->length = len_pick(&c->r, s.len);
		/* the output must fit the data buffer unless the module refuses it */
		if (g->length / page_size > max && g->length / page_size <=
		    UVM_TEST_RESIDENCY_MAX_PAGES)
			g->length = max * page_size;
		g->states_ptr = chance(&c->r, 97) ? (u64)(uintptr_t)(c->scratch + DATA_OFF) :
				wild_addrs[rnd(&c->r, 12)];
		break;
	}
	default:
		break;
	}
	note(c, "%s fd %d", ioctls[id].name, fd);
	return do_ioctl(c, fd, id, a);
}

/*
 * A fork child: every inherited /dev/uvm descriptor must refuse it (the VA
 * space is bound to the parent's mm), then it uses its own, and exits or is
 * killed by the parent at a random point.
 */
static int op_fork(struct ctx *c)
{
	int fds[NFDS], i, st, delay_ms = (int)rnd(&c->r, 50);
	bool kill_it = chance(&c->r, 40);
	u64 seed = rnext(&c->r);
	pid_t pid;

	pthread_mutex_lock(&tbl_lock);
	memcpy(fds, uvm_fds, sizeof(fds));
	pthread_mutex_unlock(&tbl_lock);
	note(c, "fork (%s after %d ms)", kill_it ? "SIGKILL" : "exit", delay_ms);
	__atomic_add_fetch(&c->st->forks, 1, __ATOMIC_RELAXED);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		struct uvm_ioc_version v;
		struct uvm_test_launch l;
		struct uvm_test_gpu_op o;
		int fd;
		void *p;

		for (i = 0; i < NFDS; i++) {
			struct stat sb;

			/*
			 * Another thread may have closed the slot's descriptor
			 * and its number been reused (a memfd, an exported
			 * allocation) before the fork: only /dev/uvm counts.
			 */
			if (fds[i] < 0 || fstat(fds[i], &sb) || !S_ISCHR(sb.st_mode) ||
			    sb.st_rdev != uvm_rdev)
				continue;
			memset(&v, 0, sizeof(v));
			if (ioctl(fds[i], UVM_IOC_GET_VERSION, &v) == 0)
				_exit(99);
			p = mmap(NULL, 2 * MIB, PROT_READ | PROT_WRITE, MAP_SHARED, fds[i], 0);
			if (p != MAP_FAILED)
				_exit(98);
		}
		fd = open("/dev/" UVM_DEVICE_NAME, O_RDWR);
		if (fd < 0)
			_exit(0);
		p = mmap(NULL, 2 * MIB, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED)
			_exit(0);
		memset(p, (int)(seed & 0xff), 2 * MIB);
		memset(&o, 0, sizeof(o));
		o.type = UVM_TEST_OP_WRITE;
		o.order = UVM_TEST_ORDER_SEQUENTIAL;
		o.address = (u64)(uintptr_t)p;
		o.length = 2 * MIB;
		o.access_size = 4096;
		o.value = seed;
		memset(&l, 0, sizeof(l));
		l.gpu_index = (u32)(seed % num_gpus);
		l.num_warps = 4;
		l.ops_ptr = (u64)(uintptr_t)&o;
		l.num_ops = 1;
		if (caps & UVM_CAP_TEST_IOCTLS)
			ioctl(fd, UVM_TEST_IOC_LAUNCH, &l);
		_exit(0);
	}
	if (kill_it) {
		usleep(delay_ms * 1000);
		kill(pid, SIGKILL);
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 99)
		fail(c, "an inherited /dev/uvm descriptor answered GET_VERSION in a fork child");
	if (WIFEXITED(st) && WEXITSTATUS(st) == 98)
		fail(c, "an inherited /dev/uvm descriptor could be mmapped in a fork child");
	if (WIFSIGNALED(st) && WTERMSIG(st) != SIGKILL)
		fail(c, "a fork child died of signal %d", WTERMSIG(st));
	return 0;
}

/* ------------------------------------------------------------------ */
/* replacing the memory of a queued job, kills with work queued */

#define RO_BYTE		0x5a	/* every byte of ro_file */
#define NEW_BYTE	0x3c	/* what memory put in a job's place holds */

/* The process's read-only file (4 KiB of RO_BYTE, mode 0444), opened read-only. */
static int ro_file_setup(void)
{
	char path[64], buf[4096];
	int fd;

	snprintf(path, sizeof(path), "/tmp/uvm-fuzz-ro-%d", getpid());
	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444);
	if (fd < 0)
		return -errno;
	memset(buf, RO_BYTE, sizeof(buf));
	if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
		close(fd);
		return -EIO;
	}
	close(fd);
	ro_file = open(path, O_RDONLY | O_CLOEXEC);
	unlink(path);
	return ro_file < 0 ? -errno : 0;
}

/* Bytes of the read-only file that are not RO_BYTE (read(), not a mapping). */
static long ro_file_changed(void)
{
	unsigned char buf[4096];
	long bad = 0;
	size_t i;

	if (pread(ro_file, buf, sizeof(buf), 0) != (ssize_t)sizeof(buf))
		return 0;
	for (i = 0; i < sizeof(buf); i++)
		bad += buf[i] != RO_BYTE;
	return bad;
}

/*
 * Queue a job of a random kind writing [dst, +len) by @gpu, the source the
 * thread's scratch.  Return: the ioctl's result; *@fence its fence.
 */
static int replace_queue_write(struct ctx *c, int fd, u64 dst, u64 len, u32 gpu, u64 *fence)
{
	u64 src = (u64)(uintptr_t)c->scratch + DATA_OFF;
	struct uvm_ioc_memset ms = { .dst = dst, .count = len, .value = NEW_BYTE ^ 0xff,
				     .element_size = 1, .gpu_index = gpu,
				     .flags = UVM_COPY_ASYNC };
	struct uvm_ioc_copy cp = { .dst = dst, .src = src, .length = len, .gpu_index = gpu,
				   .flags = UVM_COPY_ASYNC };
	struct uvm_ioc_copy_3d c3 = { .dst = { .addr = dst, .pitch = len / 2 },
				      .src = { .addr = src, .pitch = len / 2 },
				      .width = len / 2, .height = 2, .depth = 1,
				      .gpu_index = gpu, .flags = UVM_COPY_ASYNC };
	struct uvm_copy_op op = { .dst = { .addr = dst }, .src = { .addr = src },
				  .width = len, .height = 1, .depth = 1 };
	struct uvm_ioc_copy_batch cb = { .ops = (u64)(uintptr_t)&op, .count = 1,
					 .gpu_index = gpu, .flags = UVM_COPY_ASYNC };
	int ret;

	memset(c->scratch + DATA_OFF, NEW_BYTE ^ 0xff, len);
	switch (rnd(&c->r, 4)) {
	case 0:
		ret = ioctl(fd, UVM_IOC_MEMSET, &ms) ? -errno : 0;
		*fence = ms.fence;
		break;
	case 1:
		ret = ioctl(fd, UVM_IOC_COPY, &cp) ? -errno : 0;
		*fence = cp.fence;
		break;
	case 2:
		ret = ioctl(fd, UVM_IOC_COPY_3D, &c3) ? -errno : 0;
		*fence = c3.fence;
		break;
	default:
		ret = ioctl(fd, UVM_IOC_COPY_BATCH, &cb) ? -errno : 0;
		*fence = cb.fence;
		break;
	}
	return ret;
}

static int replace_fence_wait(int fd, u64 fence)
{
	struct uvm_ioc_fence_wait w = { .fence = fence };

	return ioctl(fd, UVM_IOC_FENCE_WAIT, &w) ? -errno : 0;
}

static int replace_gate(int fd, u32 op)
{
	struct uvm_test_queue_gate g = { .op = op };

	return ioctl(fd, UVM_TEST_IOC_QUEUE_GATE, &g) ? -errno : 0;
}

/* Bytes of [p, +len) that are not @v. */
static long replace_bytes_not(const unsigned char *p, u64 len, unsigned char v)
{
	long bad = 0;
	u64 i;

	for (i = 0; i < len; i++)
		bad += p[i] != v;
	return bad;
}

/*
 * One replacement under a queued job, in the thread's own 4 MiB of the
 * arena, with the job held behind a closed gate when the test ioctls are
 * there (else it races the replacement).  Kinds: a writable registration
 * replaced by the read-only file mapped there and registered read-only; a
 * VMM mapping replaced by a host allocation the CPU may read; a managed
 * range replaced by a new one the CPU wrote; a VMM right lowered.  The
 * memory that took the job's place must be as it was, and, held behind the
 * gate, the job must fail.
 */
static int op_replace(struct ctx *c)
{
	u64 area = arena + REPLACE_OFF + (u64)c->thread * REPLACE_SPAN, len, fence = 0, h[2];
	bool closed = false, gated = caps & UVM_CAP_TEST_IOCTLS;
	/*
	 * A descriptor of its own: a gate opens every gate of its VA space,
	 * and another thread's replacement would open this one's early.
	 */
	int kind = (int)rnd(&c->r, 4), fd = open("/dev/" UVM_DEVICE_NAME, O_RDWR | O_CLOEXEC);
	int ret, want;
	u32 gpu = gpu_pick(&c->r);
	struct uvm_ioc_host_register reg = { 0 };
	struct uvm_ioc_mem_create mc = { .size = UVM_VA_BLOCK_SIZE };
	struct uvm_ioc_mem_map mm = { .address = area, .size = UVM_VA_BLOCK_SIZE };
	struct uvm_mem_access acc = { .prot = UVM_MEM_PROT_READ_WRITE };
	struct uvm_ioc_mem_set_access sa = { .address = area, .size = UVM_VA_BLOCK_SIZE,
					     .descs_ptr = (u64)(uintptr_t)&acc, .count = 1 };
	struct uvm_ioc_mem_unmap mu = { .address = area, .size = UVM_VA_BLOCK_SIZE };
	void *p;

	note(c, "replace kind %d under a queued job (fd %d, GPU %u)", kind, fd, gpu);
	if (fd < 0)
		return 0;
	if (gpu >= num_gpus) {
		close(fd);
		return 0;
	}
	h[0] = h[1] = 0;
	acc.location = (struct uvm_location){ .type = UVM_LOCATION_GPU, .id = (int)gpu };
	switch (kind) {
	case 0:	/* registration -> the read-only file, registered read-only */
		len = page_size;
		p = mmap((void *)(uintptr_t)area, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		if (p == MAP_FAILED)
			goto out;
		memset(p, 0, len);
		reg.address = area;
		reg.length = len;
		if (ioctl(fd, UVM_IOC_HOST_REGISTER, &reg))
			goto out;
		break;
	case 1:	/* VMM mapping -> another allocation */
	case 3:	/* VMM right lowered */
		len = UVM_VA_BLOCK_SIZE;
		p = mmap((void *)(uintptr_t)area, len, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_FIXED, fd, UVM_MMAP_RESERVE);
		mc.location = acc.location;
		if (p == MAP_FAILED || ioctl(fd, UVM_IOC_MEM_CREATE, &mc))
			goto out;
		h[0] = mc.handle;
		mm.handle = h[0];
		if (ioctl(fd, UVM_IOC_MEM_MAP, &mm) || ioctl(fd, UVM_IOC_MEM_SET_ACCESS, &sa))
			goto out;
		break;
	default: /* managed range -> a new one */
		len = UVM_VA_BLOCK_SIZE;
		p = mmap((void *)(uintptr_t)area, len, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_FIXED, fd, UVM_MMAP_MANAGED);
		if (p == MAP_FAILED)
			goto out;
		memset(p, 1, len);
		break;
	}
	/* closed: opened again whatever happens; gated: the job surely waited */
	closed = gated && !replace_gate(fd, UVM_TEST_GATE_CLOSE);
	gated = closed;
	ret = replace_queue_write(c, fd, area, len, gpu, &fence);
	if (ret) {
		if (closed)
			replace_gate(fd, UVM_TEST_GATE_OPEN);
		goto out;
	}
	want = -EFAULT;
	switch (kind) {
	case 0:
		reg.flags = UVM_HOST_REGISTER_READ_ONLY;
		if (ioctl(fd, UVM_IOC_HOST_UNREGISTER, &reg) ||
		    mmap((void *)(uintptr_t)area, len, PROT_READ, MAP_SHARED | MAP_FIXED,
			 ro_file, 0) == MAP_FAILED ||
		    ioctl(fd, UVM_IOC_HOST_REGISTER, &reg))
			gated = false;
		break;
	case 1:
		mc.location = (struct uvm_location){ .type = UVM_LOCATION_HOST };
		if (ioctl(fd, UVM_IOC_MEM_UNMAP, &mu) || ioctl(fd, UVM_IOC_MEM_CREATE, &mc)) {
			gated = false;
			break;
		}
		h[1] = mc.handle;
		mm.handle = h[1];
		if (ioctl(fd, UVM_IOC_MEM_MAP, &mm) || ioctl(fd, UVM_IOC_MEM_SET_ACCESS, &sa))
			gated = false;
		acc.location = (struct uvm_location){ .type = UVM_LOCATION_HOST };
		acc.prot = UVM_MEM_PROT_READ;
		if (ioctl(fd, UVM_IOC_MEM_SET_ACCESS, &sa))
			gated = false;
		break;
	case 3:
		acc.prot = UVM_MEM_PROT_READ;
		if (ioctl(fd, UVM_IOC_MEM_SET_ACCESS, &sa))
			gated = false;
		want = -EPERM;
		break;
	default:
		p = mmap((void *)(uintptr_t)area, len, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_FIXED, fd, UVM_MMAP_MANAGED);
		if (p == MAP_FAILED)
			gated = false;
		else
			memset(p, NEW_BYTE, len);
		break;
	}
	if (closed)
		replace_gate(fd, UVM_TEST_GATE_OPEN);
	ret = replace_fence_wait(fd, fence);
	if (gated && ret != want)
		fail(c, "replace kind %d: the queued job ended with %d, not %d", kind, ret, want);
	if (kind == 0 && ro_file_changed())
		fail(c, "replace: %ld bytes of a read-only file changed", ro_file_changed());
	if (kind == 1 && gated && replace_bytes_not((void *)(uintptr_t)area, len, 0))
		fail(c, "replace: the allocation mapped in a queued job's place was written");
	if (kind == 2 && gated && replace_bytes_not((void *)(uintptr_t)area, len, NEW_BYTE))
		fail(c, "replace: the managed range mapped in a queued job's place was written");
	if (kind == 0)
		ioctl(fd, UVM_IOC_HOST_UNREGISTER, &reg);
out:
	/* the area goes back to PROT_NONE: nothing else may land there */
	mmap((void *)(uintptr_t)area, REPLACE_SPAN, PROT_NONE,
	     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
	for (ret = 0; ret < 2; ret++) {
		struct uvm_ioc_mem_release r = { .handle = h[ret] };

		if (h[ret])
			ioctl(fd, UVM_IOC_MEM_RELEASE, &r);
	}
	close(fd);
	return 0;
}

/*
 * A child with the longest copies queued, killed: 16384 copies of 16 MiB
 * between two registrations of host memory (which outlive the child's
 * mappings: only the driver can stop the job).  It must be gone within
 * seconds of its SIGKILL.
 */
static int op_kill_queued(struct ctx *c)
{
	int delay_ms = (int)rnd(&c->r, 100), st;
	u32 gpu = gpu_pick(&c->r);
	u64 t0;
	pid_t pid;

	note(c, "kill a child with copies queued (after %d ms)", delay_ms);
	if (gpu >= num_gpus)
		return 0;
	__atomic_add_fetch(&c->st->forks, 1, __ATOMIC_RELAXED);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		const u64 span = 16 * MIB;
		static struct uvm_copy_op ops[UVM_COPY_BATCH_MAX];
		struct uvm_ioc_copy_batch cb = { .ops = (u64)(uintptr_t)ops,
						 .count = UVM_COPY_BATCH_MAX,
						 .gpu_index = gpu, .flags = UVM_COPY_ASYNC };
		u64 r[2];
		int fd = open("/dev/" UVM_DEVICE_NAME, O_RDWR), i;

		if (fd < 0)
			_exit(0);
		for (i = 0; i < 2; i++) {
			struct uvm_ioc_host_register reg = { .length = span };
			void *p = mmap(NULL, span, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

			if (p == MAP_FAILED)
				_exit(0);
			r[i] = reg.address = (u64)(uintptr_t)p;
			if (ioctl(fd, UVM_IOC_HOST_REGISTER, &reg))
				_exit(0);
		}
		for (i = 0; i < UVM_COPY_BATCH_MAX; i++)
			ops[i] = (struct uvm_copy_op){ .dst = { .addr = r[1] },
						      .src = { .addr = r[0] },
						      .width = span, .height = 1, .depth = 1 };
		ioctl(fd, UVM_IOC_COPY_BATCH, &cb);
		pause();
		_exit(0);
	}
	usleep(delay_ms * 1000);
	kill(pid, SIGKILL);
	t0 = now_ns();
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if ((now_ns() - t0) / 1000000 > 10000)
		fail(c, "a child killed with copies queued took %llu ms to go",
		     (unsigned long long)((now_ns() - t0) / 1000000));
	return 0;
}

/*
 * Many descriptors of /dev/uvm at once, each asked its version (an open
 * that worked must answer), then all closed.
 */
static int op_many_opens(struct ctx *c)
{
	int n = 64 + (int)rnd(&c->r, 192), fds[256], i;

	note(c, "open /dev/uvm %d times", n);
	for (i = 0; i < n; i++) {
		struct uvm_ioc_version v;

		fds[i] = open("/dev/" UVM_DEVICE_NAME, O_RDWR | O_CLOEXEC);
		if (fds[i] < 0)
			continue;
		memset(&v, 0, sizeof(v));
		if (ioctl(fds[i], UVM_IOC_GET_VERSION, &v))
			fail(c, "a fresh open of /dev/uvm refused GET_VERSION: %s",
			     strerror(errno));
	}
	for (i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	return 0;
}

static int op_close_export(struct ctx *c)
{
	int j = (int)rnd(&c->r, NEXPORTS), fd;

	pthread_mutex_lock(&tbl_lock);
	fd = export_fds[j];
	export_fds[j] = -1;
	pthread_mutex_unlock(&tbl_lock);
	note(c, "close exported fd %d", fd);
	if (fd >= 0)
		close(fd);
	return 0;
}

struct op_kind {
	const char *name;
	int (*fn)(struct ctx *c);
	unsigned int weight;	/* default; --weights changes it */
};

static const struct op_kind op_kinds[] = {
	{ "open", op_open, 2 },
	{ "close", op_close, 1 },
	{ "mmap", op_mmap, 10 },
	{ "munmap", op_unmap, 5 },
	{ "mremap", op_mremap, 2 },
	{ "mprotect", op_mprotect, 2 },
	{ "madvise", op_madvise, 3 },
	{ "touch", op_touch, 8 },
	{ "launch", op_launch, 10 },
	{ "ioctl", op_ioctl, 50 },
	{ "fork", op_fork, 1 },
	{ "close-export", op_close_export, 1 },
	{ "replace", op_replace, 3 },
	{ "kill-queued", op_kill_queued, 1 },
	{ "many-opens", op_many_opens, 1 },
};
#define NUM_KINDS	(sizeof(op_kinds) / sizeof(op_kinds[0]))
_Static_assert(NUM_KINDS <= MAX_KINDS, "MAX_KINDS too small");

/* The weights in use: op_kinds' defaults, changed by --weights. */
static unsigned int kind_weight[MAX_KINDS];
static unsigned int total_weight;

/* --weights ioctl=400,fork=0: set the named kinds' weights */
static int parse_weights(void)
{
	const char *p = cfg.weights;
	unsigned int i;

	for (i = 0; i < NUM_KINDS; i++)
		kind_weight[i] = op_kinds[i].weight;
	while (p && *p) {
		size_t len = strcspn(p, "=");
		char *end;
		unsigned long w;

		for (i = 0; i < NUM_KINDS; i++)
			if (strlen(op_kinds[i].name) == len && !strncmp(p, op_kinds[i].name, len))
				break;
		if (i == NUM_KINDS || p[len] != '=') {
			fprintf(stderr, "uvm-fuzz: --weights: unknown op kind in '%s'\n", p);
			return -1;
		}
		errno = 0;
		w = strtoul(p + len + 1, &end, 10);
		if (errno || end == p + len + 1 || (*end && *end != ',') || w > 100000) {
			fprintf(stderr, "uvm-fuzz: --weights: bad weight in '%s'\n", p);
			return -1;
		}
		kind_weight[i] = (unsigned int)w;
		p = *end ? end + 1 : end;
	}
	total_weight = 0;
	for (i = 0; i < NUM_KINDS; i++)
		total_weight += kind_weight[i];
	if (!total_weight) {
		fprintf(stderr, "uvm-fuzz: --weights: every weight is 0\n");
		return -1;
	}
	return 0;
}

/* Run op @k of the stream: everything about it follows from (seed, stream, k). */
static void run_op(struct ctx *c, u64 k)
{
	unsigned int i, w;
	u64 t0;

	c->k = k;
	c->r.s = mix64(cfg.seed ^ mix64(((u64)c->stream << 40) ^ k));
	w = (unsigned int)rnd(&c->r, total_weight);
	for (i = 0; w >= kind_weight[i]; i++)
		w -= kind_weight[i];
	c->st->cur = k;
	t0 = now_ns();
	__atomic_store_n(&c->st->started_ns, t0, __ATOMIC_RELEASE);
	op_kinds[i].fn(c);
	__atomic_store_n(&c->st->started_ns, 0, __ATOMIC_RELEASE);
	c->st->kind_n[i]++;
	c->st->kind_ns[i] += now_ns() - t0;
	c->st->ops++;
}

/* ------------------------------------------------------------------ */
/* canary: managed memory that fuzzing never targets, verified at the end */

static u64 canary_word(struct ctx *c, u64 i)
{
	return mix64(cfg.seed ^ ((u64)c->stream << 32) ^ i);
}

static int canary_setup(struct ctx *c)
{
	u64 i, *w;

	c->canary_fd = open("/dev/" UVM_DEVICE_NAME, O_RDWR | O_CLOEXEC);
	if (c->canary_fd < 0)
		return -errno;
	c->canary = mmap(NULL, CANARY_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
			 c->canary_fd, 0);
	if (c->canary == MAP_FAILED) {
		c->canary = NULL;
		return -errno;
	}
	w = (u64 *)c->canary;
	for (i = 0; i < CANARY_SIZE / 8; i++)
		w[i] = canary_word(c, i);
	if (caps & UVM_CAP_TEST_IOCTLS) {
		/* a GPU takes the second half */
		struct uvm_test_gpu_op o = { 0 };
		struct uvm_test_launch l = { 0 };

		o.type = UVM_TEST_OP_READ;
		o.order = UVM_TEST_ORDER_SEQUENTIAL;
		o.address = (u64)(uintptr_t)c->canary + CANARY_SIZE / 2;
		o.length = CANARY_SIZE / 2;
		o.access_size = 4096;
		l.gpu_index = (u32)(c->stream % num_gpus);
		l.num_warps = 4;
		l.ops_ptr = (u64)(uintptr_t)&o;
		l.num_ops = 1;
		if (ioctl(c->canary_fd, UVM_TEST_IOC_LAUNCH, &l))
			return -errno;
	}
	return 0;
}

/* Is @gpu's memory all allocated (within one chunk)? */
static bool gpu_full(int fd, u32 gpu)
{
	struct uvm_ioc_gpu_info gi = { .gpu_index = gpu };

	if (ioctl(fd, UVM_IOC_GPU_INFO, &gi))
		return false;
	return gi.vidmem_used + UVM_VA_BLOCK_SIZE >= gi.vidmem_size;
}

static void canary_check(struct ctx *c)
{
	u64 i, *w = (u64 *)c->canary;

	if (!c->canary)
		return;
	if (caps & UVM_CAP_TEST_IOCTLS) {
		struct uvm_test_gpu_op o = { 0 };
		struct uvm_test_launch l = { 0 };
		u64 sum = 0, a0 = (u64)(uintptr_t)c->canary;
		int tries = 0, ret;

		o.type = UVM_TEST_OP_READ;
		o.order = UVM_TEST_ORDER_SEQUENTIAL;
		o.address = a0;
		o.length = CANARY_SIZE;
		o.access_size = 4096;
		l.gpu_index = (u32)((c->stream + 1) % num_gpus);
		l.num_warps = 4;
		l.ops_ptr = (u64)(uintptr_t)&o;
		l.num_ops = 1;

		/* memory held by threads still checking may free up: retry */
		while ((ret = ioctl(c->canary_fd, UVM_TEST_IOC_LAUNCH, &l)) &&
		       errno == EREMOTEIO && ++tries < 5)
			usleep(200 * 1000);
		if (ret) {
			int e = errno;

			/*
			 * A GPU full of memory that never moves (device memory
			 * and VMM allocations the fuzzer still holds) cannot
			 * take the canary: the fault is fatal by design.  The
			 * CPU check below still sees the data.
			 */
			if (e != EREMOTEIO || !gpu_full(c->canary_fd, l.gpu_index))
				fail(c, "canary: GPU %u read failed: %s", l.gpu_index,
				     strerror(e));
			goto cpu;
		}
		for (i = 0; i < CANARY_SIZE / 8; i++)
			sum += UVM_TEST_CHECKSUM_TERM(canary_word(c, i), a0 + 8 * i);
		if (sum != o.checksum) {
			fail(c, "canary: GPU %u read wrong data (checksum %#llx, want %#llx)",
			     l.gpu_index, (unsigned long long)o.checksum,
			     (unsigned long long)sum);
			return;
		}
	}
cpu:
	for (i = 0; i < CANARY_SIZE / 8; i++) {
		if (w[i] != canary_word(c, i)) {
			fail(c, "canary: CPU read word %llu = %#llx, want %#llx",
			     (unsigned long long)i, (unsigned long long)w[i],
			     (unsigned long long)canary_word(c, i));
			return;
		}
	}
}

/* ------------------------------------------------------------------ */
/* worker processes and threads */

static pthread_barrier_t start_barrier;

static void *thread_main(void *arg)
{
	struct ctx *c = arg;
	u64 k;
	int ret;

	c->st->tid = (int)syscall(SYS_gettid);
	ret = canary_setup(c);
	if (ret)
		fail(c, "canary setup: %s", strerror(-ret));
	pthread_barrier_wait(&start_barrier);
	for (k = 0; !sh->stop && (!cfg.ops || k < cfg.ops); k++) {
		if (mask_len && (k >= mask_len || !sh->mask[k]))
			continue;
		run_op(c, k);
	}
	if (!sh->failed)
		canary_check(c);
	return NULL;
}

/* Reserve this process's arena and guard; stale addresses stay inside. */
static int arena_setup(void)
{
	u64 want = ARENA_BASE + proc_index * ARENA_STRIDE;
	void *p = mmap((void *)(uintptr_t)want, ARENA_SIZE + GUARD_SIZE, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE,
		       -1, 0);

	if (p == MAP_FAILED)
		p = mmap(NULL, ARENA_SIZE + GUARD_SIZE + 2 * MIB, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	arena = ((u64)(uintptr_t)p + 2 * MIB - 1) & ~(2 * MIB - 1);
	return 0;
}

static void worker(int proc, unsigned int nthreads)
{
	struct ctx ctxs[MAX_THREADS];
	pthread_t th[MAX_THREADS];
	struct sigaction sa;
	unsigned int t;
	int i;

	proc_index = proc;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* nothing of ours may land in the arena: no mmap by malloc */
	mallopt(M_MMAP_MAX, 0);
	mallopt(M_ARENA_MAX, 1);
	if (arena_setup()) {
		fail(NULL, "cannot reserve the arena: %s", strerror(errno));
		_exit(1);
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = sig_touch;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (ro_file_setup()) {
		fail(NULL, "cannot make the read-only file: %s", strerror(errno));
		_exit(1);
	}
	for (i = 0; i < NFDS; i++)
		uvm_fds[i] = i < 2 ? open("/dev/" UVM_DEVICE_NAME, O_RDWR | O_CLOEXEC) : -1;
	for (i = 0; i < NEXPORTS; i++)
		export_fds[i] = -1;
	pthread_barrier_init(&start_barrier, NULL, nthreads);
	for (t = 0; t < nthreads; t++) {
		struct ctx *c = &ctxs[t];
		unsigned char *scr = (unsigned char *)(uintptr_t)(arena + SLOTS_SIZE +
								 t * SCRATCH_SPAN);

		memset(c, 0, sizeof(*c));
		c->thread = (int)t;
		c->stream = cfg.stream >= 0 ? cfg.stream : proc * (int)nthreads + (int)t;
		c->st = &sh->st[cfg.stream >= 0 ? 0 : c->stream];
		c->st->pid = getpid();
		c->scratch = mmap(scr, SCRATCH_SIZE, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		if (c->scratch == MAP_FAILED) {
			fail(c, "scratch: %s", strerror(errno));
			_exit(1);
		}
	}
	for (t = 0; t < nthreads; t++)
		pthread_create(&th[t], NULL, thread_main, &ctxs[t]);
	for (t = 0; t < nthreads; t++)
		pthread_join(th[t], NULL);
	_exit(0);
}

/* ------------------------------------------------------------------ */
/* the supervisor: kernel log, hangs, leaks */

static const char *const report_patterns[] = {
	"WARNING:", "BUG:", "Oops", "kernel BUG at", "KASAN", "UBSAN",
	"general protection fault", "Unable to handle",
	"possible circular locking dependency", "inconsistent lock state",
	"possible recursive locking", "suspicious RCU usage", "bad unlock balance",
	"held lock freed", "lock held when returning", "circular locking",
	"INFO: task", "blocked for more than", "soft lockup", "hard LOCKUP",
	"rcu: INFO:", "detected stall", "list_add corruption", "list_del corruption",
	"refcount_t: ", "ODEBUG:", "stack-protector", "double free",
	"use-after-free", "Kernel panic", "kernel stack overflow", "Call Trace:",
};

static const char *const benign_patterns[] = {
	"kmemleak: Kernel memory leak detector", "Lock dependency validator",
	"KASAN: initialized", "kasan: KernelAddressSanitizer initialized",
	"taints kernel",
};

static int kmsg_fd = -1;

static void kmsg_open(void)
{
	if (cfg.no_dmesg)
		return;
	kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg_fd >= 0)
		lseek(kmsg_fd, 0, SEEK_END);
	else
		fprintf(stderr, "uvm-fuzz: cannot read /dev/kmsg (%s): kernel log not checked\n",
			strerror(errno));
}

static int report_tid;	/* task named by the first report ("PID: n") */

/* Read new kernel log records; the first report line is copied to @out. */
static bool kmsg_scan(char *out, size_t outlen)
{
	char rec[8192];
	bool found = false;
	ssize_t n;
	size_t i;

	if (kmsg_fd < 0)
		return false;
	for (;;) {
		char *msg;

		n = read(kmsg_fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten records: go on */
		if (n <= 0)
			break;
		rec[n] = 0;
		msg = strchr(rec, ';');
		msg = msg ? msg + 1 : rec;
		if (cfg.verbose > 1)
			fprintf(stderr, "kmsg: %s", msg);
		if ((found || report_tid < 0) && strstr(msg, "PID: ") && report_tid <= 0)
			report_tid = atoi(strstr(msg, "PID: ") + 5);
		for (i = 0; i < sizeof(benign_patterns) / sizeof(benign_patterns[0]); i++)
			if (strstr(msg, benign_patterns[i]))
				break;
		if (i < sizeof(benign_patterns) / sizeof(benign_patterns[0]))
			continue;
		for (i = 0; i < sizeof(report_patterns) / sizeof(report_patterns[0]); i++) {
			if (strstr(msg, report_patterns[i]) && !found) {
				char *nl = strchr(msg, '\n');

				if (nl)
					*nl = 0;
				strncpy(out, msg, outlen - 1);
				out[outlen - 1] = 0;
				found = true;
				if (!report_tid)
					report_tid = -1;	/* look for its task */
				if (strstr(msg, "PID: "))
					report_tid = atoi(strstr(msg, "PID: ") + 5);
			}
		}
	}
	return found;
}

static long read_long(const char *path)
{
	char buf[64];
	long v = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f))
		v = strtol(buf, NULL, 0);
	fclose(f);
	return v;
}

static long vidmem_used_total(void)
{
	char path[128];
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

#define PINNED_PATH "/sys/class/misc/uvm/pinned_pages"

struct run_result {
	bool failed;
	double seconds;
	u64 ops, ioctls, ioctl_ok, launches, mmaps, forks;
};

static void dump_stack_of(int tid)
{
	char path[64], buf[4096];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stack", tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n > 0) {
		buf[n] = 0;
		fprintf(stderr, "uvm-fuzz: kernel stack of task %d:\n%s", tid, buf);
	}
	/* a stuck allocation is often a machine out of memory */
	fd = open("/proc/meminfo", O_RDONLY);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n > 0) {
		char *line, *save = NULL;

		buf[n] = 0;
		for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			if (!strncmp(line, "MemTotal", 8) || !strncmp(line, "MemFree", 7) ||
			    !strncmp(line, "MemAvailable", 12) || !strncmp(line, "Unevictable", 11))
				fprintf(stderr, "uvm-fuzz: %s\n", line);
	}
}

/* A kernel report: blame the stream whose task it names, at its running op. */
static void kernel_report(const char *line, unsigned int nstreams)
{
	unsigned int i;
	char more[512];

	/* the task is named a few records later */
	usleep(300 * 1000);
	kmsg_scan(more, sizeof(more));
	fail(NULL, "kernel log: %s", line);
	for (i = 0; i < nstreams && report_tid > 0; i++) {
		if (sh->st[i].tid == report_tid) {
			sh->fail_stream = cfg.stream >= 0 ? cfg.stream : (int)i;
			sh->fail_op = sh->st[i].cur;
			break;
		}
	}
}

/* Run the workers once, watch them; fill @res. */
static void supervise(struct run_result *res, bool quiet)
{
	unsigned int nprocs = cfg.stream >= 0 ? 1 : cfg.procs;
	unsigned int nthreads = cfg.stream >= 0 ? 1 : cfg.threads;
	unsigned int nstreams = nprocs * nthreads, p, i;
	pid_t pids[MAX_PROCS];
	u64 t0 = now_ns(), last_print = t0, failed_at = 0;
	bool killed = false;
	char line[512];
	int alive;

	memset(sh->st, 0, sizeof(sh->st));
	memset(sh->errnos, 0, sizeof(sh->errnos));
	sh->stop = 0;
	sh->failed = 0;
	sh->fail[0] = 0;
	sh->fail_stream = -1;
	report_tid = 0;
	kmsg_open();
	fflush(NULL);
	for (p = 0; p < nprocs; p++) {
		pids[p] = fork();
		if (pids[p] == 0)
			worker((int)p, nthreads);
	}
	alive = (int)nprocs;
	while (alive > 0) {
		int st;
		pid_t w = waitpid(-1, &st, WNOHANG);

		if (w > 0) {
			for (p = 0; p < nprocs; p++)
				if (pids[p] == w)
					break;
			if (p < nprocs) {
				alive--;
				pids[p] = 0;
				if (WIFSIGNALED(st) && !killed)
					fail(NULL, "worker %u died of signal %d (%s)", p,
					     WTERMSIG(st), strsignal(WTERMSIG(st)));
				else if (WIFEXITED(st) && WEXITSTATUS(st) && !sh->failed)
					fail(NULL, "worker %u exited with %d", p,
					     WEXITSTATUS(st));
			}
			continue;
		}
		usleep(200 * 1000);
		if (kmsg_scan(line, sizeof(line)))
			kernel_report(line, nstreams);
		if (cfg.seconds && now_ns() - t0 > cfg.seconds * 1000000000ULL)
			sh->stop = 1;
		for (i = 0; i < nstreams; i++) {
			struct stream_stat *s = &sh->st[i];
			u64 since = __atomic_load_n(&s->started_ns, __ATOMIC_ACQUIRE);

			if (since && now_ns() - since > cfg.op_timeout * 1000000000ULL &&
			    !sh->failed) {
				fail(NULL, "stream %u op %llu did not finish in %u s: %s", i,
				     (unsigned long long)s->cur, cfg.op_timeout, s->desc);
				sh->fail_stream = (int)i;
				sh->fail_op = s->cur;
				dump_stack_of(s->tid);
			}
		}
		if (!quiet && !cfg.tap && now_ns() - last_print > 10000000000ULL) {
			u64 ops = 0;

			for (i = 0; i < nstreams; i++)
				ops += sh->st[i].ops;
			fprintf(stderr, "uvm-fuzz: %.0f s, %llu ops\n",
				(now_ns() - t0) / 1e9, (unsigned long long)ops);
			last_print = now_ns();
		}
		if (sh->failed) {
			/* give the workers 30 s to notice, then kill them */
			if (!failed_at)
				failed_at = now_ns();
			if (now_ns() - failed_at > 30000000000ULL) {
				for (p = 0; p < nprocs; p++)
					if (pids[p] > 0)
						kill(pids[p], SIGKILL);
				killed = true;
				failed_at = now_ns();
			}
		}
	}
	res->seconds = (now_ns() - t0) / 1e9;
	res->ops = res->ioctls = res->ioctl_ok = res->launches = res->mmaps = res->forks = 0;
	for (i = 0; i < nstreams; i++) {
		res->ops += sh->st[i].ops;
		res->ioctls += sh->st[i].ioctls;
		res->ioctl_ok += sh->st[i].ioctl_ok;
		res->launches += sh->st[i].launches;
		res->mmaps += sh->st[i].mmaps;
		res->forks += sh->st[i].forks;
	}
	/* a late kernel report of the run */
	usleep(500 * 1000);
	if (kmsg_scan(line, sizeof(line)))
		kernel_report(line, nstreams);
	if (kmsg_fd >= 0)
		close(kmsg_fd);
	kmsg_fd = -1;
	res->failed = sh->failed;
}

/* After every worker exited: vidmem and pins are back where they were. */
static bool leak_check(long pinned0, char *why, size_t len)
{
	long v = -1, pinned = -1;
	int i;

	for (i = 0; i < 100; i++) {
		v = vidmem_used_total();
		pinned = read_long(PINNED_PATH);
		if (v <= 0 && (pinned0 < 0 || pinned == pinned0))
			return true;
		usleep(100 * 1000);
	}
	snprintf(why, len, "after the run: vidmem in use %ld bytes (want 0), pinned pages %ld (%ld before)",
		 v, pinned, pinned0);
	return false;
}

static void print_errnos(void)
{
	int e;

	fprintf(stderr, "uvm-fuzz: ioctl results:");
	for (e = 0; e < 160; e++)
		if (sh->errnos[e])
			fprintf(stderr, " %s=%llu", e ? strerrorname_np(e) ?: "?" : "ok",
				(unsigned long long)sh->errnos[e]);
	fprintf(stderr, "\n");
}

/* Where the time went: each op kind's share, and the ioctls' time in the kernel. */
static void print_profile(void)
{
	u64 n, ns, all = 0;
	unsigned int i, s;

	for (s = 0; s < MAX_STREAMS; s++)
		for (i = 0; i < NUM_KINDS; i++)
			all += sh->st[s].kind_ns[i];
	if (!all)
		return;
	fprintf(stderr, "uvm-fuzz: time by op kind (share, mean):");
	for (i = 0; i < NUM_KINDS; i++) {
		for (s = 0, n = 0, ns = 0; s < MAX_STREAMS; s++) {
			n += sh->st[s].kind_n[i];
			ns += sh->st[s].kind_ns[i];
		}
		if (n)
			fprintf(stderr, " %s %.0f%% %.0f us", op_kinds[i].name, 100.0 * ns / all,
				ns / 1e3 / n);
	}
	fprintf(stderr, "\nuvm-fuzz: ioctls (count, mean):");
	for (i = 0; i < I_COUNT; i++) {
		for (s = 0, n = 0, ns = 0; s < MAX_STREAMS; s++) {
			n += sh->st[s].ioctl_n[i];
			ns += sh->st[s].ioctl_ns[i];
		}
		if (n)
			fprintf(stderr, " %s %llu %.0f us", ioctls[i].name, (unsigned long long)n,
				ns / 1e3 / n);
	}
	fprintf(stderr, "\n");
}

/* ------------------------------------------------------------------ */
/* minimising: replay one stream with subsets of its ops */

static bool trial(const unsigned char *mask, u64 n)
{
	struct run_result res;

	memset(sh->mask, 0, mask_len);
	memcpy(sh->mask, mask, n);
	supervise(&res, true);
	return res.failed;
}

static int minimise(u64 n)
{
	unsigned char *cur = calloc(n, 1), *tmp = calloc(n, 1);
	u64 chunk, i, j, live = n, trials = 0;

	if (!cur || !tmp)
		return 2;
	memset(cur, 1, n);
	fprintf(stderr, "uvm-fuzz: minimising stream %d, ops 0..%llu\n", cfg.stream,
		(unsigned long long)n - 1);
	if (!trial(cur, n)) {
		fprintf(stderr, "uvm-fuzz: stream %d alone does not fail: the failure needs "
			"other streams (threads/processes) or timing; nothing to minimise\n",
			cfg.stream);
		return 1;
	}
	for (chunk = n / 2; chunk >= 1; ) {
		bool removed = false;
		u64 pos = 0;	/* position among live ops */

		while (pos < live && trials < cfg.max_trials) {
			u64 seen = 0, cut = 0;

			memcpy(tmp, cur, n);
			for (i = 0; i < n; i++) {
				if (!cur[i])
					continue;
				if (seen >= pos && seen < pos + chunk) {
					tmp[i] = 0;
					cut++;
				}
				seen++;
			}
			trials++;
			if (cut && trial(tmp, n)) {
				memcpy(cur, tmp, n);
				live -= cut;
				removed = true;
				fprintf(stderr, "uvm-fuzz: trial %llu: %llu ops still fail\n",
					(unsigned long long)trials, (unsigned long long)live);
			} else {
				pos += chunk;
			}
		}
		if (trials >= cfg.max_trials)
			break;
		if (!removed)
			chunk /= 2;
		else if (chunk > live / 2)
			chunk = live / 2 ? live / 2 : 1;
		if (live == 1 && !removed)
			break;
	}
	printf("uvm-fuzz: minimal sequence of stream %d (%llu ops, %llu trials):\n",
	       cfg.stream, (unsigned long long)live, (unsigned long long)trials);
	printf("  uvm-fuzz --seed %llu --stream %d --only ", (unsigned long long)cfg.seed,
	       cfg.stream);
	for (i = 0, j = 0; i < n; i++)
		if (cur[i])
			printf("%s%llu", j++ ? "," : "", (unsigned long long)i);
	if (cfg.weights)
		printf(" --weights %s", cfg.weights);
	printf(" --verbose\n");
	/* show it once more, verbosely */
	cfg.verbose = 1;
	trial(cur, n);
	printf("uvm-fuzz: last failure: %s\n", sh->fail);
	return 1;
}

/* ------------------------------------------------------------------ */

static void usage(FILE *f)
{
	fprintf(f,
"Usage: uvm-fuzz [OPTIONS]\n"
"  --seed S        seed (default 1); a failure prints the seed and stream\n"
"  --ops N         ops per stream (thread); 0 with --seconds: until time is up\n"
"  --seconds N     stop after N seconds\n"
"  --threads T     threads per process (default 2, at most %d)\n"
"  --procs P       worker processes (default 2, at most %d)\n"
"  --stream S      replay stream S alone (one process, one thread)\n"
"  --only LIST     with --stream: run only these op indices (e.g. 3,17,42)\n"
"  --minimise      with --stream and --ops N: shrink ops 0..N-1 of the stream\n"
"                  to a smaller sequence that still fails\n"
"  --max-trials N  minimiser budget (default 200)\n"
"  --op-timeout S  an op running longer is a hang (default 180)\n"
"  --no-dmesg      do not read the kernel log\n"
"  --tap           print the result as TAP (the fuzz test suite)\n"
"  --weights LIST  op kind weights, e.g. ioctl=400,fork=0 (a stream's ops\n"
"                  depend on them: repeat them to reproduce); kinds: open,\n"
"                  close, mmap, munmap, mremap, mprotect, madvise, touch,\n"
"                  launch, ioctl, fork, close-export\n"
"  -v, --verbose   log every op (twice: and the kernel log)\n",
		MAX_THREADS, MAX_PROCS);
}

static int parse_args(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "ops", required_argument, NULL, 'n' },
		{ "seconds", required_argument, NULL, 'S' },
		{ "threads", required_argument, NULL, 't' },
		{ "procs", required_argument, NULL, 'p' },
		{ "stream", required_argument, NULL, 'x' },
		{ "only", required_argument, NULL, 'o' },
		{ "minimise", no_argument, NULL, 'm' },
		{ "minimize", no_argument, NULL, 'm' },
		{ "max-trials", required_argument, NULL, 'T' },
		{ "op-timeout", required_argument, NULL, 'O' },
		{ "no-dmesg", no_argument, NULL, 'D' },
		{ "tap", no_argument, NULL, 'a' },
		{ "weights", required_argument, NULL, 'w' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int o;

	while ((o = getopt_long(argc, argv, "vh", opts, NULL)) != -1) {
		switch (o) {
		case 's': cfg.seed = strtoull(optarg, NULL, 0); break;
		case 'n': cfg.ops = strtoull(optarg, NULL, 0); break;
		case 'S': cfg.seconds = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 't': cfg.threads = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'p': cfg.procs = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'x': cfg.stream = (int)strtol(optarg, NULL, 0); break;
		case 'o': cfg.only = optarg; break;
		case 'm': cfg.minimise = 1; break;
		case 'T': cfg.max_trials = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'O': cfg.op_timeout = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'D': cfg.no_dmesg = 1; break;
		case 'a': cfg.tap = 1; break;
		case 'w': cfg.weights = optarg; break;
		case 'v': cfg.verbose++; break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return -1;
		}
	}
	if (optind != argc || !cfg.threads || cfg.threads > MAX_THREADS || !cfg.procs ||
	    cfg.procs > MAX_PROCS || cfg.stream >= MAX_STREAMS) {
		usage(stderr);
		return -1;
	}
	if (parse_weights())
		return -1;
	if (!cfg.ops && !cfg.seconds && !cfg.only)
		cfg.ops = 1000;
	if ((cfg.minimise || cfg.only) && cfg.stream < 0)
		cfg.stream = 0;
	if (cfg.minimise && !cfg.ops) {
		fprintf(stderr, "uvm-fuzz: --minimise needs --ops N (the failing op + 1)\n");
		return -1;
	}
	return 0;
}

/* --only 3,17,42: the mask and the op count */
static int parse_only(void)
{
	const char *p = cfg.only;
	u64 max = 0, v;
	char *end;

	for (p = cfg.only; *p; p = *end ? end + 1 : end) {
		v = strtoull(p, &end, 0);
		if (end == p || v >= (1ULL << 24))
			return -1;
		if (v + 1 > max)
			max = v + 1;
	}
	if (max > mask_len)
		return -1;
	for (p = cfg.only; *p; p = *end ? end + 1 : end) {
		v = strtoull(p, &end, 0);
		sh->mask[v] = 1;
	}
	cfg.ops = max;
	return 0;
}

static int probe(void)
{
	struct uvm_ioc_version v = { 0 };
	int fd = open("/dev/" UVM_DEVICE_NAME, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (ioctl(fd, UVM_IOC_GET_VERSION, &v)) {
		close(fd);
		return -errno;
	}
	close(fd);
	num_gpus = v.num_gpus ? v.num_gpus : 1;
	{
		struct stat sb;

		if (!stat("/dev/" UVM_DEVICE_NAME, &sb))
			uvm_rdev = sb.st_rdev;
	}
	page_size = v.page_size;
	caps = v.caps;
	return 0;
}

int main(int argc, char **argv)
{
	struct run_result res;
	char why[256] = "";
	long pinned0;
	bool leaks_ok;
	int ret;

	if (parse_args(argc, argv))
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	ret = probe();
	if (ret) {
		if (cfg.tap)
			printf("TAP version 13\n1..0 # SKIP /dev/uvm: %s\n", strerror(-ret));
		fprintf(stderr, "uvm-fuzz: /dev/uvm: %s\n", strerror(-ret));
		return ret == -ENOENT ? 4 : 1;
	}
	if (cfg.minimise || cfg.only)
		mask_len = cfg.minimise ? cfg.ops : (1ULL << 24);
	sh = mmap(NULL, sizeof(*sh) + mask_len, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (sh == MAP_FAILED)
		return 1;
	if (cfg.only && parse_only()) {
		fprintf(stderr, "uvm-fuzz: bad --only list\n");
		return 2;
	}
	if (cfg.minimise)
		return minimise(cfg.ops);

	if (cfg.tap)
		printf("TAP version 13\n1..2\n");
	printf("# uvm-fuzz: seed %llu, %u process(es) x %u thread(s), %s %llu%s, %u GPU(s)%s\n",
	       (unsigned long long)cfg.seed, cfg.stream >= 0 ? 1 : cfg.procs,
	       cfg.stream >= 0 ? 1 : cfg.threads, cfg.ops ? "ops/stream" : "seconds",
	       (unsigned long long)(cfg.ops ? cfg.ops : cfg.seconds),
	       cfg.ops && cfg.seconds ? " (or the time limit)" : "", num_gpus,
	       caps & UVM_CAP_TEST_IOCTLS ? "" : ", no test ioctls");
	pinned0 = read_long(PINNED_PATH);
	supervise(&res, false);
	printf("# uvm-fuzz: %llu ops, %llu ioctls (%llu succeeded), %llu launches, %llu mmaps, %llu forks in %.1f s: %.0f ops/s, %.0f ioctls/s\n",
	       (unsigned long long)res.ops, (unsigned long long)res.ioctls,
	       (unsigned long long)res.ioctl_ok, (unsigned long long)res.launches,
	       (unsigned long long)res.mmaps, (unsigned long long)res.forks, res.seconds,
	       res.ops / res.seconds, res.ioctls / res.seconds);
	print_errnos();
	print_profile();
	if (res.failed) {
		printf("# uvm-fuzz: FAILURE: %s\n", sh->fail);
		if (sh->fail_stream >= 0 && cfg.stream >= 0)
			printf("# uvm-fuzz: seed %llu, stream %d, op %llu; reproduce: "
			       "uvm-fuzz --seed %llu --stream %d --ops %llu; minimise: "
			       "uvm-fuzz --seed %llu --stream %d --ops %llu --minimise\n",
			       (unsigned long long)cfg.seed, sh->fail_stream,
			       (unsigned long long)sh->fail_op, (unsigned long long)cfg.seed,
			       sh->fail_stream, (unsigned long long)sh->fail_op + 1,
			       (unsigned long long)cfg.seed, sh->fail_stream,
			       (unsigned long long)sh->fail_op + 1);
		else if (sh->fail_stream >= 0)
			printf("# uvm-fuzz: seed %llu, stream %d (process %d, thread %d), op %llu; "
			       "reproduce: uvm-fuzz --seed %llu --procs %u --threads %u --ops %llu; "
			       "minimise: uvm-fuzz --seed %llu --stream %d --ops %llu --minimise\n",
			       (unsigned long long)cfg.seed, sh->fail_stream,
			       sh->fail_stream / (int)cfg.threads, sh->fail_stream % (int)cfg.threads,
			       (unsigned long long)sh->fail_op, (unsigned long long)cfg.seed,
			       cfg.procs, cfg.threads, (unsigned long long)sh->fail_op + 1,
			       (unsigned long long)cfg.seed, sh->fail_stream,
			       (unsigned long long)sh->fail_op + 1);
		else
			printf("# uvm-fuzz: seed %llu (no single stream to blame); reproduce: "
			       "uvm-fuzz --seed %llu --procs %u --threads %u\n",
			       (unsigned long long)cfg.seed, (unsigned long long)cfg.seed,
			       cfg.procs, cfg.threads);
		if (cfg.weights)
			printf("# uvm-fuzz: add --weights %s to each command above\n", cfg.weights);
	}
	if (cfg.tap)
		printf("%sok 1 fuzz seed %llu: %llu ops, no kernel report, hang or ABI violation\n",
		       res.failed ? "not " : "", (unsigned long long)cfg.seed,
		       (unsigned long long)res.ops);
	leaks_ok = leak_check(pinned0, why, sizeof(why));
	if (!leaks_ok)
		printf("# uvm-fuzz: LEAK: %s\n", why);
	if (cfg.tap)
		printf("%sok 2 vidmem in use back to 0, pinned pages back to %ld\n",
		       leaks_ok ? "" : "not ", pinned0);
	return res.failed || !leaks_ok;
}
