// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * probe_vmm - the Virtual Memory Management API: granularity, reservations,
 * physical allocations, mappings, access, retain/release, properties,
 * POSIX file descriptor export and import (within a process and between
 * two), pointer attributes of VMM memory, copies and sets into it, advice
 * and prefetch on it, host-located allocations and CPU access, and
 * cuMemMapArrayAsync with bad input.
 *
 *   probe_vmm                   runs everything
 *   probe_vmm case NAME [ARG]   runs one case in a fresh process
 *
 * Every case that may crash the driver (bogus or released handles, NULL
 * output pointers), break the context (copies into memory without access,
 * past the end of a mapping) or touch VMM memory from the CPU runs in a
 * process of its own: this program again, started with "case NAME", which
 * initialises CUDA afresh (a fork() child of an initialised process gets
 * CUDA_ERROR_NOT_INITIALIZED, see probe_fork).  The parent records how it
 * ended: "vmm.NAME.exit = exit N" or "= signal N".  A case prints its
 * progress as it goes, so the last line before a signal names the step that
 * died.
 *
 * Addresses are printed relative to the reservation they are in.  Location
 * types, handle types and access flags are used by number, cast to their
 * enum types.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "probe.h"

#define MIB PROBE_MIB
#define M2 (2 * MIB)
#define LOC(t, i) ((CUmemLocation){ (CUmemLocationType)(t), (i) })
#define VP(p) ((void *)(uintptr_t)(p))

/* CUmemLocationType */
enum { LT_INVALID = 0, LT_DEV = 1, LT_HOST = 2, LT_NUMA = 3, LT_NUMA_CUR = 4 };
/* CUmemAllocationHandleType */
enum { HT_NONE = 0, HT_FD = 1, HT_WIN32 = 2, HT_FABRIC = 8 };
/* CUmemAccess_flags */
enum { A_NONE = 0, A_R = 1, A_RW = 3 };

typedef CUmemGenericAllocationHandle H;

static CUcontext ctx;
static CUstream s;
static unsigned char *hb, *hb2;	/* 8 MiB host buffers */
static char sec[96];		/* key prefix after "vmm." */

/* ------------------------------------------------------------------ */
/* Keys. */

/* Rotating buffers for keys built on the fly. */
/* "sub.suffix", or "suffix" where sub is empty. */
static const char *sk(const char *sub, const char *suffix)
{
	return *sub ? fk("%s.%s", sub, suffix) : fk("%s", suffix);
}

static void key(char *k, size_t n, const char *pre, const char *sub)
{
	if (*sub)
		snprintf(k, n, "%svmm.%s.%s", pre, sec, sub);
	else
		snprintf(k, n, "%svmm.%s", pre, sec);
}

static CUresult rr(const char *sub, CUresult r)
{
	char k[320];

	key(k, sizeof(k), "", sub);
	probe_res(k, r);
	return r;
}

static void vline(const char *pre, const char *sub, const char *fmt, va_list ap)
{
	char k[320], v[512];

	key(k, sizeof(k), pre, sub);
	vsnprintf(v, sizeof(v), fmt, ap);
	probe_line(k, "%s", v);
}

static void ln(const char *sub, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ln(const char *sub, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline("", sub, fmt, ap);
	va_end(ap);
}

static void envl(const char *sub, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void envl(const char *sub, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline("env.", sub, fmt, ap);
	va_end(ap);
}

static void SEC(const char *name)
{
	snprintf(sec, sizeof(sec), "%s", name);
}

/* ------------------------------------------------------------------ */
/* Set-up helpers. */

static CUmemAllocationProp prop(int type, int lt, int id, int ht)
{
	CUmemAllocationProp p;

	memset(&p, 0, sizeof(p));
	p.type = (CUmemAllocationType)type;
	p.location = LOC(lt, id);
	p.requestedHandleTypes = (CUmemAllocationHandleType)ht;
	return p;
}

static CUresult try_mk(H *h, size_t size, int lt, int id, int ht)
{
	CUmemAllocationProp p = prop(1, lt, id, ht);

	*h = 0;
	return cuMemCreate(h, size, &p, 0);
}

static H mk(size_t size, int lt, int id, int ht)
{
	H h = 0;

	MUST(try_mk(&h, size, lt, id, ht));
	return h;
}

static H mkdev(size_t size)
{
	return mk(size, LT_DEV, 0, HT_NONE);
}

static CUdeviceptr rsv(size_t size)
{
	CUdeviceptr p = 0;

	MUST(cuMemAddressReserve(&p, size, 0, 0, 0));
	return p;
}

static CUresult acc(CUdeviceptr p, size_t size, int lt, int id, int fl)
{
	CUmemAccessDesc d;

	memset(&d, 0, sizeof(d));
	d.location = LOC(lt, id);
	d.flags = (CUmemAccess_flags)fl;
	return cuMemSetAccess(p, size, &d, 1);
}

/* A reservation of rsize with a new device allocation of size mapped at its
 * start, read-write for device 0 where rw. */
static CUdeviceptr mapped_dev(size_t rsize, size_t size, int rw, H *hp)
{
	CUdeviceptr r = rsv(rsize);
	H h = mkdev(size);

	MUST(cuMemMap(r, size, 0, h, 0));
	if (rw)
		MUST(acc(r, size, LT_DEV, 0, A_RW));
	if (hp)
		*hp = h;
	return r;
}

/* Patterns: 32-bit words, word i of a pattern is seed ^ (i * golden). */
static uint32_t patw(uint32_t seed, size_t i)
{
	return seed ^ (uint32_t)(i * 2654435761u);
}

static void pat(void *b, size_t n, uint32_t seed, size_t first)
{
	uint32_t *w = b;

	for (size_t i = 0; i < n / 4; i++)
		w[i] = patw(seed, first + i);
}

static int pat_ok(const void *b, size_t n, uint32_t seed, size_t first)
{
	const uint32_t *w = b;

	for (size_t i = 0; i < n / 4; i++)
		if (w[i] != patw(seed, first + i))
			return 0;
	return 1;
}

static int all32(const void *b, size_t n, uint32_t v)
{
	const uint32_t *w = b;

	for (size_t i = 0; i < n / 4; i++)
		if (w[i] != v)
			return 0;
	return 1;
}

static CUresult wr(CUdeviceptr p, size_t n, uint32_t seed, size_t first)
{
	pat(hb, n, seed, first);
	return cuMemcpyHtoD(p, hb, n);
}

/* DtoH of n bytes at p: "sub = result", "sub.data = 1/0". */
static void chk(const char *sub, CUdeviceptr p, size_t n, uint32_t seed, size_t first)
{
	char b[160];

	snprintf(b, sizeof(b), "%s", sub);
	memset(hb2, 0, n);
	if (rr(b, cuMemcpyDtoH(hb2, p, n)) == CUDA_SUCCESS)
		ln(sk(b, "data"), "%d", pat_ok(hb2, n, seed, first));
}

/* Did the context survive?  As probe_null's synced(). */
static void synced(const char *sub)
{
	CUdeviceptr d = 0;
	char b[160];

	snprintf(b, sizeof(b), "%s", sub);
	rr(sk(b, "sync"), cuCtxSynchronize());
	if (rr(sk(b, "after"), cuMemAlloc(&d, 16)) == CUDA_SUCCESS)
		cuMemFree(d);
}

static void gacc(const char *sub, CUdeviceptr p, int lt, int id)
{
	unsigned long long f = 0xAAAA;
	CUmemLocation l = LOC(lt, id);
	char b[160];

	snprintf(b, sizeof(b), "%s", sub);
	if (rr(b, cuMemGetAccess(&f, &l, p)) == CUDA_SUCCESS)
		ln(sk(b, "value"), "%llu", f);
}

/* The MAPPED pointer attribute and whether a handle can be retained. */
static void state(const char *sub, CUdeviceptr p)
{
	unsigned long long v = 0xAAAAAAAAAAAAAAAAULL;
	char b[160];
	H h = 0;

	snprintf(b, sizeof(b), "%s", sub);
	if (rr(sk(b, "mapped"), cuPointerGetAttribute(&v, CU_POINTER_ATTRIBUTE_MAPPED, p)) ==
	    CUDA_SUCCESS)
		ln(sk(b, "mapped.value"), "%llu", (v >> 32) == 0xAAAAAAAAULL ? v & 0xffffffffULL : v);
	if (rr(sk(b, "retain"), cuMemRetainAllocationHandle(&h, VP(p))) == CUDA_SUCCESS)
		cuMemRelease(h);
}

static void aligned(const char *sub, CUdeviceptr p)
{
	char b[160];

	snprintf(b, sizeof(b), "%s", sub);
	ln(sk(b, "aligned_64k"), "%d", (p & 0xffff) == 0);
	ln(sk(b, "aligned_2m"), "%d", (p & (M2 - 1)) == 0);
	envl(sk(b, "align_log2"), "%d", p ? __builtin_ctzll(p) : -1);
}

/* Every field of a handle's properties; fields the call left alone (0xA5
 * fill) show as such. */
static void props(const char *sub, H h)
{
	CUmemAllocationProp p;
	char b[160];
	int untouched_res = 1;

	snprintf(b, sizeof(b), "%s", sub);
	memset(&p, 0xA5, sizeof(p));
	if (rr(b, cuMemGetAllocationPropertiesFromHandle(&p, h)) != CUDA_SUCCESS)
		return;
	ln(sk(b, "type"), "%d", (int)p.type);
	ln(sk(b, "location.type"), "%d", (int)p.location.type);
	ln(sk(b, "location.id"), "%d", p.location.id);
	ln(sk(b, "requestedHandleTypes"), "%d", (int)p.requestedHandleTypes);
	ln(sk(b, "win32HandleMetaData"), "%s", p.win32HandleMetaData == NULL ? "null" :
	   (uintptr_t)p.win32HandleMetaData == (uintptr_t)0xA5A5A5A5A5A5A5A5ULL ? "untouched" :
	   "other");
	ln(sk(b, "compressionType"), "%u", p.allocFlags.compressionType);
	ln(sk(b, "gpuDirectRDMACapable"), "%u", p.allocFlags.gpuDirectRDMACapable);
	ln(sk(b, "usage"), "%u", p.allocFlags.usage);
	for (int i = 0; i < 4; i++)
		if (p.allocFlags.reserved[i] != 0xA5)
			untouched_res = 0;
	ln(sk(b, "reserved"), "%s", untouched_res ? "untouched" :
	   !(p.allocFlags.reserved[0] | p.allocFlags.reserved[1] | p.allocFlags.reserved[2] |
	     p.allocFlags.reserved[3]) ? "0" : "other");
}

/* Pointer attributes 1..21 (not 5), with the width each one writes. */
static void attrs(const char *what, CUdeviceptr ptr, CUdeviceptr base)
{
	char w[128];

	snprintf(w, sizeof(w), "%s", what);
	for (int a = 1; a <= 21; a++) {
		unsigned char b[32];
		unsigned long long v = 0;
		char rel[64];
		int width = 0;
		CUresult r;

		if (a == CU_POINTER_ATTRIBUTE_P2P_TOKENS)
			continue;
		memset(b, 0xAA, sizeof(b));
		r = cuPointerGetAttribute(b, (CUpointer_attribute)a, ptr);
		rr(fk("%s.%d", w, a), r);
		for (int i = 0; i < 32; i++)
			if (b[i] != 0xAA)
				width = i + 1;
		if (r != CUDA_SUCCESS)
			continue;
		ln(fk("%s.%d.width", w, a), "%d", width);
		if (width == 0)
			continue;
		memcpy(&v, b, width < 8 ? width : 8);
		switch (a) {
		case 1:
			ln(fk("%s.%d.value", w, a), "%s",
			   v == (uintptr_t)ctx ? "ctx" : v ? "other" : "null");
			break;
		case 3: case 4: case 11: case 19:
			ln(fk("%s.%d.value", w, a), "%s", probe_rel(v, base, rel, sizeof(rel)));
			break;
		case 7: case 17: case 20:
			ln(fk("%s.%d.value", w, a), "%s", v ? "nonzero" : "0");
			break;
		default:
			ln(fk("%s.%d.value", w, a), "%llu", v);
		}
	}
}

static unsigned long long attr_raw(int a, CUdeviceptr p)
{
	unsigned long long v = 0;

	if (cuPointerGetAttribute(&v, (CUpointer_attribute)a, p) != CUDA_SUCCESS)
		return 0xDEAD;
	return v;
}

static void addr_range(const char *sub, CUdeviceptr p, CUdeviceptr base)
{
	CUdeviceptr b = 0;
	size_t n = 0;
	char rel[64], k[160];

	snprintf(k, sizeof(k), "%s", sub);
	if (rr(k, cuMemGetAddressRange(&b, &n, p)) == CUDA_SUCCESS) {
		ln(sk(k, "base"), "%s", probe_rel(b, base, rel, sizeof(rel)));
		ln(sk(k, "size"), "%zu", n);
	}
}

/* What an exported file descriptor is. */
static void fd_info(const char *sub, int fd)
{
	char path[64], link[256], strip[256], b[160];
	const char *t;
	struct stat st;
	ssize_t n;
	size_t j = 0;
	int fl;

	snprintf(b, sizeof(b), "%s", sub);
	fl = fcntl(fd, F_GETFD);
	ln(sk(b, "fd_valid"), "%d", fd >= 0 && fl >= 0);
	if (fd < 0 || fl < 0)
		return;
	ln(sk(b, "cloexec"), "%d", !!(fl & FD_CLOEXEC));
	fl = fcntl(fd, F_GETFL);
	ln(sk(b, "accmode"), "%s", (fl & O_ACCMODE) == O_RDONLY ? "rdonly" :
	   (fl & O_ACCMODE) == O_WRONLY ? "wronly" : "rdwr");
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link) - 1);
	link[n < 0 ? 0 : n] = 0;
	ln(sk(b, "anon_inode"), "%d", !strncmp(link, "anon_inode:", 11));
	t = strncmp(link, "anon_inode:", 11) ? link : link + 11;
	for (; *t && j < sizeof(strip) - 1; t++)
		if (*t < '0' || *t > '9')
			strip[j++] = *t;
	strip[j] = 0;
	ln(sk(b, "link"), "%s", strip);
	if (fstat(fd, &st) == 0)
		ln(sk(b, "mode"), "%s", S_ISCHR(st.st_mode) ? "chr" : S_ISREG(st.st_mode) ? "reg" :
		   S_ISFIFO(st.st_mode) ? "fifo" : S_ISSOCK(st.st_mode) ? "sock" : "other");
}

static CUresult exp_fd(int *fd, H h)
{
	*fd = -1;
	return cuMemExportToShareableHandle(fd, h, (CUmemAllocationHandleType)HT_FD, 0);
}

static CUresult imp_fd(H *h, int fd)
{
	*h = 0;
	return cuMemImportFromShareableHandle(h, VP((intptr_t)fd), (CUmemAllocationHandleType)HT_FD);
}

/* ------------------------------------------------------------------ */
/* Cases in a process of their own. */

static void child(const char *name, const char *arg, int close_fd)
{
	probe_case("probe_vmm", fk("vmm.%s.exit", name), name, arg ? arg : "", close_fd);
}

static void c_gran_null_prop(const char *arg)
{
	size_t g = 0;

	rr("", cuMemGetAllocationGranularity(&g, NULL, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
}

static void c_gran_null_out(const char *arg)
{
	CUmemAllocationProp p = prop(1, LT_DEV, 0, 0);

	rr("", cuMemGetAllocationGranularity(NULL, &p, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
}

static void c_reserve_null_ptr(const char *arg)
{
	rr("", cuMemAddressReserve(NULL, M2, 0, 0, 0));
}

static void c_free_memalloc(const char *arg)
{
	CUdeviceptr d = 0;

	MUST(cuMemAlloc(&d, M2));
	MUST(wr(d, M2, 0x1001, 0));
	rr("", cuMemAddressFree(d, M2));
	chk("read", d, M2, 0x1001, 0);
	synced("read");
	rr("memfree", cuMemFree(d));
}

static void c_free_mapped(const char *arg)
{
	CUdeviceptr r = rsv(4 * MIB), q = 0;
	H h = mkdev(M2);

	MUST(cuMemMap(r, M2, 0, h, 0));
	MUST(acc(r, M2, LT_DEV, 0, A_RW));
	MUST(wr(r, M2, 0x1002, 0));
	rr("", cuMemAddressFree(r, 4 * MIB));
	state("state", r);
	gacc("getaccess", r, LT_DEV, 0);
	chk("read", r, M2, 0x1002, 0);
	synced("read");
	rr("unmap", cuMemUnmap(r, M2));
	rr("release", cuMemRelease(h));
	rr("free_again", cuMemAddressFree(r, 4 * MIB));
	if (rr("rereserve", cuMemAddressReserve(&q, 4 * MIB, 0, r, 0)) == CUDA_SUCCESS)
		ln("rereserve.hint_honoured", "%d", q == r);
}

static void c_create_null_prop(const char *arg)
{
	H h = 0;

	rr("", cuMemCreate(&h, M2, NULL, 0));
}

static void c_create_null_handle(const char *arg)
{
	CUmemAllocationProp p = prop(1, LT_DEV, 0, 0);

	rr("", cuMemCreate(NULL, M2, &p, 0));
}

static void c_map_handle(const char *arg)
{
	CUdeviceptr r = rsv(M2);
	H h = 0;

	if (!strcmp(arg, "bogus")) {
		h = 0x1234;
	} else if (!strcmp(arg, "released")) {
		h = mkdev(M2);
		MUST(cuMemRelease(h));
	}
	if (rr("", cuMemMap(r, M2, 0, h, 0)) == CUDA_SUCCESS) {
		rr("setaccess", acc(r, M2, LT_DEV, 0, A_RW));
		rr("htod", wr(r, M2, 0x1003, 0));
		synced("htod");
	}
}

static void c_map_memalloc(const char *arg)
{
	CUdeviceptr d = 0;
	H h = mkdev(M2);

	MUST(cuMemAlloc(&d, 4 * MIB));
	MUST(wr(d, 4 * MIB, 0x1004, 0));
	d = (d + M2 - 1) & ~(M2 - 1);
	if (rr("", cuMemMap(d, M2, 0, h, 0)) == CUDA_SUCCESS)
		rr("setaccess", acc(d, M2, LT_DEV, 0, A_RW));
	synced("");
}

static void c_unmap_memalloc(const char *arg)
{
	CUdeviceptr d = 0;

	MUST(cuMemAlloc(&d, M2));
	MUST(wr(d, M2, 0x1005, 0));
	rr("", cuMemUnmap(d, M2));
	chk("read", d, M2, 0x1005, 0);
	synced("read");
	rr("memfree", cuMemFree(d));
}

static void c_setaccess_null_desc(const char *arg)
{
	CUdeviceptr r = mapped_dev(M2, M2, 0, NULL);

	rr("", cuMemSetAccess(r, M2, NULL, atoi(arg)));
}

static void c_setaccess_memalloc(const char *arg)
{
	CUdeviceptr d = 0;
	H h = 0;

	MUST(cuMemAlloc(&d, M2));
	MUST(wr(d, M2, 0x1006, 0));
	rr("retain", cuMemRetainAllocationHandle(&h, VP(d)));
	rr("", acc(d, M2, LT_DEV, 0, A_R));
	gacc("getaccess", d, LT_DEV, 0);
	chk("read", d, M2, 0x1006, 0);
	rr("htod", wr(d, M2, 0x1007, 0));
	synced("htod");
	chk("read_after", d, M2, 0x1007, 0);
}

static void c_setaccess_managed(const char *arg)
{
	CUdeviceptr m = 0;

	MUST(cuMemAllocManaged(&m, M2, CU_MEM_ATTACH_GLOBAL));
	rr("", acc(m, M2, LT_DEV, 0, A_R));
	gacc("getaccess", m, LT_DEV, 0);
	rr("memset", cuMemsetD8(m, 1, M2));
	synced("memset");
}

static void c_getaccess_null(const char *arg)
{
	CUdeviceptr r = mapped_dev(M2, M2, 1, NULL);
	CUmemLocation l = LOC(LT_DEV, 0);
	unsigned long long f = 0;

	if (!strcmp(arg, "location"))
		rr("", cuMemGetAccess(&f, NULL, r));
	else
		rr("", cuMemGetAccess(NULL, &l, r));
}

static void c_release_twice(const char *arg)
{
	H h = mkdev(M2);

	rr("first", cuMemRelease(h));
	rr("second", cuMemRelease(h));
}

static void c_release_handle(const char *arg)
{
	rr("", cuMemRelease(!strcmp(arg, "bogus") ? 0x1234 : 0));
}

static void c_retain_null(const char *arg)
{
	CUdeviceptr r = mapped_dev(M2, M2, 1, NULL);

	rr("", cuMemRetainAllocationHandle(NULL, VP(r)));
}

static void c_props(const char *arg)
{
	CUmemAllocationProp p;
	H h = 0;

	if (!strcmp(arg, "null")) {
		h = mkdev(M2);
		rr("", cuMemGetAllocationPropertiesFromHandle(NULL, h));
		return;
	}
	if (!strcmp(arg, "bogus")) {
		h = 0x1234;
	} else if (!strcmp(arg, "released")) {
		h = mkdev(M2);
		MUST(cuMemRelease(h));
	}
	if (!strcmp(arg, "released")) {
		props("", h);
		return;
	}
	memset(&p, 0, sizeof(p));
	rr("", cuMemGetAllocationPropertiesFromHandle(&p, h));
}

static void c_export(const char *arg)
{
	int fd = -1;
	H h = 0;

	if (!strcmp(arg, "null")) {
		h = mk(M2, LT_DEV, 0, HT_FD);
		rr("", cuMemExportToShareableHandle(NULL, h, (CUmemAllocationHandleType)HT_FD, 0));
		return;
	}
	if (!strcmp(arg, "released")) {
		h = mk(M2, LT_DEV, 0, HT_FD);
		MUST(cuMemRelease(h));
	}
	if (rr("", exp_fd(&fd, h)) == CUDA_SUCCESS)
		fd_info("", fd);
}

static void c_import_null_handle(const char *arg)
{
	H h = mk(M2, LT_DEV, 0, HT_FD);
	int fd;

	MUST(exp_fd(&fd, h));
	rr("", cuMemImportFromShareableHandle(NULL, VP((intptr_t)fd),
	   (CUmemAllocationHandleType)HT_FD));
}

static void c_import_fabric(const char *arg)
{
	unsigned char fh[64];
	H h = 0;

	memset(fh, 0, sizeof(fh));
	rr("", cuMemImportFromShareableHandle(&h, fh, (CUmemAllocationHandleType)HT_FABRIC));
}

static void c_import_win32(const char *arg)
{
	H h = mk(M2, LT_DEV, 0, HT_FD), g = 0;
	int fd;

	MUST(exp_fd(&fd, h));
	rr("", cuMemImportFromShareableHandle(&g, VP((intptr_t)fd),
	   (CUmemAllocationHandleType)HT_WIN32));
}

/* File descriptors that are not exported allocations, one after another. */
static void c_import_badfd(const char *arg)
{
	char tmpl[] = "/tmp/probe_vmm.XXXXXX";
	int pp[2], fd;
	H h = 0;

	rr("neg1", imp_fd(&h, -1));
	if (pipe(pp) == 0)
		rr("pipe", imp_fd(&h, pp[0]));
	fd = open("/dev/null", O_RDWR);
	rr("devnull", imp_fd(&h, fd));
	fd = mkstemp(tmpl);
	if (fd >= 0) {
		unlink(tmpl);
		if (write(fd, hb, 4096) != 4096)
			ln("regular_file.write", "failed");
		rr("regular_file", imp_fd(&h, fd));
	}
	fd = open("/dev/null", O_RDWR);
	close(fd);
	rr("closed_fd", imp_fd(&h, fd));
	rr("big_fd", imp_fd(&h, 100000));
	fd = open("/dev/nvidiactl", O_RDWR);
	ln("nvidiactl.open", "%d", fd >= 0);
	if (fd >= 0)
		rr("nvidiactl", imp_fd(&h, fd));
}

static void c_maparray(const char *arg)
{
	CUarrayMapInfo mi;

	memset(&mi, 0, sizeof(mi));
	if (!strcmp(arg, "null"))
		rr("", cuMemMapArrayAsync(NULL, 1, s));
	else if (!strcmp(arg, "count0"))
		rr("", cuMemMapArrayAsync(&mi, 0, s));
	else
		rr("", cuMemMapArrayAsync(&mi, 1, s));
	rr("stream_sync", cuStreamSynchronize(s));
	synced("");
}

/* The other process of "two processes": arg "FD:SEED". */
static void c_ipc_child(const char *arg)
{
	int fd = atoi(arg);
	uint32_t seed = (uint32_t)strtoul(strchr(arg, ':') ? strchr(arg, ':') + 1 : "0", NULL, 0);
	CUdeviceptr r = rsv(M2);
	H h = 0;

	ln("fd_valid", "%d", fcntl(fd, F_GETFD) >= 0);
	if (rr("import", imp_fd(&h, fd)) != CUDA_SUCCESS)
		return;
	props("props", h);
	rr("map", cuMemMap(r, M2, 0, h, 0));
	rr("setaccess", acc(r, M2, LT_DEV, 0, A_RW));
	chk("read", r, M2, seed, 0);
	rr("write", wr(r, M2, seed ^ 0xFFFF0000u, 0));
	rr("sync", cuCtxSynchronize());
	rr("unmap", cuMemUnmap(r, M2));
	rr("release", cuMemRelease(h));
	close(fd);
}

/* Copies and sets that may fault. */
static void c_copy(const char *arg)
{
	CUdeviceptr r;
	H h;

	if (!strcmp(arg, "noaccess.htod") || !strcmp(arg, "noaccess.dtoh") ||
	    !strcmp(arg, "noaccess.memset")) {
		r = mapped_dev(M2, M2, 0, NULL);
		if (!strcmp(arg, "noaccess.htod"))
			rr("", cuMemcpyHtoD(r, hb, 4096));
		else if (!strcmp(arg, "noaccess.dtoh"))
			rr("", cuMemcpyDtoH(hb2, r, 4096));
		else
			rr("", cuMemsetD8(r, 1, 4096));
		synced("");
		return;
	}
	if (!strncmp(arg, "read.", 5) || !strncmp(arg, "protnone.", 9)) {
		int ro = !strncmp(arg, "read.", 5);
		const char *op = strchr(arg, '.') + 1;

		r = mapped_dev(M2, M2, 1, &h);
		MUST(wr(r, M2, 0x2001, 0));
		MUST(cuCtxSynchronize());
		rr("setaccess", acc(r, M2, LT_DEV, 0, ro ? A_R : A_NONE));
		gacc("getaccess", r, LT_DEV, 0);
		if (!strcmp(op, "dtoh")) {
			chk("", r, M2, 0x2001, 0);
		} else if (!strcmp(op, "htod")) {
			rr("", wr(r, 4096, 0x2002, 0));
		} else if (!strcmp(op, "memset")) {
			rr("", cuMemsetD32(r, 0x2003, 1024));
		} else {	/* dtod, from a readable range into a writable one */
			CUdeviceptr d = 0;

			MUST(cuMemAlloc(&d, M2));
			rr("", cuMemcpyDtoD(d, r, 4096));
		}
		synced("");
		if (ro && strcmp(op, "dtoh")) {
			rr("restore", acc(r, M2, LT_DEV, 0, A_RW));
			chk("restore.read", r, 4096, 0x2001, 0);
		}
		return;
	}
	if (!strcmp(arg, "cross")) {
		/* Two allocations mapped back to back, copies across the seam. */
		CUdeviceptr seam, d = 0;
		H a = mkdev(M2), b = mkdev(M2);

		r = rsv(4 * MIB);
		MUST(cuMemMap(r, M2, 0, a, 0));
		MUST(cuMemMap(r + M2, M2, 0, b, 0));
		MUST(acc(r, M2, LT_DEV, 0, A_RW));
		MUST(acc(r + M2, M2, LT_DEV, 0, A_RW));
		seam = r + M2 - 512 * 1024;
		rr("htod", wr(seam, MIB, 0x2004, 0));
		synced("htod");
		chk("dtoh", seam, MIB, 0x2004, 0);
		chk("dtoh.first", seam, 512 * 1024, 0x2004, 0);
		chk("dtoh.second", r + M2, 512 * 1024, 0x2004, 128 * 1024);
		rr("memsetd32", cuMemsetD32(r + M2 - 4096, 0x2005, 2048));
		memset(hb2, 0, 8192);
		if (rr("memsetd32.read", cuMemcpyDtoH(hb2, r + M2 - 4096, 8192)) == CUDA_SUCCESS)
			ln("memsetd32.data", "%d", all32(hb2, 8192, 0x2005));
		MUST(cuMemAlloc(&d, MIB));
		MUST(wr(d, MIB, 0x2006, 0));
		rr("dtod.into", cuMemcpyDtoD(seam, d, MIB));
		chk("dtod.into.read", seam, MIB, 0x2006, 0);
		MUST(wr(seam, MIB, 0x2007, 0));
		rr("dtod.from", cuMemcpyDtoD(d, seam, MIB));
		chk("dtod.from.read", d, MIB, 0x2007, 0);
		rr("dtod.within", cuMemcpyDtoD(r, seam, MIB));
		chk("dtod.within.read", r, MIB, 0x2007, 0);
		synced("end");
		return;
	}
	if (!strncmp(arg, "hole.", 5)) {
		/* A 2 MiB mapping at the start of a 4 MiB reservation; the
		 * range runs 4 KiB past its end. */
		r = rsv(4 * MIB);
		h = mkdev(M2);
		MUST(cuMemMap(r, M2, 0, h, 0));
		MUST(acc(r, M2, LT_DEV, 0, A_RW));
		MUST(wr(r, M2, 0x2008, 0));
		if (!strcmp(arg, "hole.htod")) {
			rr("", wr(r + M2 - 4096, 8192, 0x2009, 0));
		} else if (!strcmp(arg, "hole.dtoh")) {
			rr("", cuMemcpyDtoH(hb2, r + M2 - 4096, 8192));
		} else if (!strcmp(arg, "hole.memset")) {
			rr("", cuMemsetD8(r + M2 - 4096, 1, 8192));
		} else {
			CUdeviceptr d = 0;

			MUST(cuMemAlloc(&d, MIB));
			rr("", cuMemcpyDtoD(r + M2 - 4096, d, 8192));
		}
		synced("");
		return;
	}
	ln("", "unknown");
}

/* Advice, prefetch, range attributes and discard on VMM memory. */
static void c_advise(const char *arg)
{
	CUdeviceptr r = mapped_dev(M2, M2, 1, NULL), dp;
	size_t sz = M2;
	int v;

	MUST(wr(r, M2, 0x3001, 0));
	for (int a = 1; a <= 6; a++)
		rr(fk("%d", a), cuMemAdvise(r, M2, (CUmem_advise)a, LOC(LT_DEV, 0)));
	rr("3.host", cuMemAdvise(r, M2, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, LOC(LT_HOST, 0)));
	rr("5.host", cuMemAdvise(r, M2, CU_MEM_ADVISE_SET_ACCESSED_BY, LOC(LT_HOST, 0)));
	rr("1.interior", cuMemAdvise(r + 4096, 4096, CU_MEM_ADVISE_SET_READ_MOSTLY,
	   LOC(LT_DEV, 0)));
	rr("prefetch.device", cuMemPrefetchAsync(r, M2, LOC(LT_DEV, 0), 0, s));
	rr("prefetch.device.sync", cuStreamSynchronize(s));
	rr("prefetch.host", cuMemPrefetchAsync(r, M2, LOC(LT_HOST, 0), 0, s));
	rr("prefetch.host.sync", cuStreamSynchronize(s));
	for (int a = 1; a <= 4; a++) {
		v = -7;
		if (rr(fk("rangeattr.%d", a), cuMemRangeGetAttribute(&v, 4,
		       (CUmem_range_attribute)a, r, M2)) == CUDA_SUCCESS)
			ln(fk("rangeattr.%d.value", a), "%d", v);
	}
	dp = r;
	rr("discard", cuMemDiscardBatchAsync(&dp, &sz, 1, 0, s));
	rr("discard.sync", cuStreamSynchronize(s));
	chk("read", r, M2, 0x3001, 0);
	synced("end");
}

/* Host-located allocations and the CPU: arg "host" or "host_numa". */
static void c_host_cpu(const char *arg)
{
	int numa = !strcmp(arg, "host_numa");
	int lt = numa ? LT_NUMA : LT_HOST, other = numa ? LT_HOST : LT_NUMA;
	CUmemAccessDesc d[2];
	volatile uint32_t *cpu;
	CUdeviceptr r;
	uint32_t x;
	H h = 0;

	if (rr("create", try_mk(&h, M2, lt, 0, HT_NONE)) != CUDA_SUCCESS)
		return;
	r = rsv(M2);
	cpu = (volatile uint32_t *)VP(r);
	if (rr("map", cuMemMap(r, M2, 0, h, 0)) != CUDA_SUCCESS)
		return;
	gacc("getaccess.none.device", r, LT_DEV, 0);
	gacc("getaccess.none.host", r, LT_HOST, 0);
	/* The other host location type first, then the allocation's own. */
	rr("setaccess.other_host_type", acc(r, M2, other, 0, A_RW));
	gacc("getaccess.after_other.host", r, LT_HOST, 0);
	gacc("getaccess.after_other.host_numa", r, LT_NUMA, 0);
	rr("setaccess.host_numa_current", acc(r, M2, LT_NUMA_CUR, 0, A_RW));
	rr("setaccess.device", acc(r, M2, LT_DEV, 0, A_RW));
	rr("setaccess.own_host_type", acc(r, M2, lt, 0, A_RW));
	memset(d, 0, sizeof(d));
	d[0].location = LOC(LT_DEV, 0);
	d[0].flags = (CUmemAccess_flags)A_RW;
	d[1].location = LOC(lt, 0);
	d[1].flags = (CUmemAccess_flags)A_RW;
	rr("setaccess.both", cuMemSetAccess(r, M2, d, 2));
	gacc("getaccess.device", r, LT_DEV, 0);
	gacc("getaccess.host", r, LT_HOST, 0);
	gacc("getaccess.host_numa", r, LT_NUMA, 0);
	gacc("getaccess.host_numa_current", r, LT_NUMA_CUR, 0);
	gacc("getaccess.host_numa1", r, LT_NUMA, 1);
	x = cpu[0];
	ln("cpu_read", "ok");
	ln("cpu_read.initial_zero", "%d", x == 0);
	pat((void *)cpu, M2, 0x4001, 0);
	ln("cpu_write", "ok");
	ln("cpu_write.data", "%d", pat_ok((const void *)cpu, M2, 0x4001, 0));
	chk("gpu_read", r, M2, 0x4001, 0);
	rr("gpu_write", wr(r, M2, 0x4002, 0));
	rr("gpu_write.sync", cuCtxSynchronize());
	ln("cpu_sees_gpu_write", "%d", pat_ok((const void *)cpu, M2, 0x4002, 0));
	rr("memsetd32", cuMemsetD32(r, 0x4003, M2 / 4));
	rr("memsetd32.sync", cuCtxSynchronize());
	ln("cpu_sees_memset", "%d", all32((const void *)cpu, M2, 0x4003));
	/* Take the host's access away again, then read from the CPU. */
	rr("setaccess.host_none", acc(r, M2, lt, 0, A_NONE));
	gacc("getaccess.after_none.host", r, LT_HOST, 0);
	gacc("getaccess.after_none.host_numa", r, LT_NUMA, 0);
	gacc("getaccess.after_none.device", r, LT_DEV, 0);
	x = cpu[1];
	ln("cpu_read_after_none", "ok");
	(void)x;
}

/* CPU touches: arg names the memory and the access. */
static void c_touch(const char *arg)
{
	volatile uint32_t *cpu;
	CUdeviceptr r;
	uint32_t x;
	H h = 0;

	if (!strcmp(arg, "reserved.read")) {
		r = rsv(M2);
	} else if (!strncmp(arg, "dev.", 4)) {
		r = mapped_dev(M2, M2, strcmp(arg, "dev.noaccess.read") != 0, &h);
		if (strcmp(arg, "dev.noaccess.read"))
			MUST(wr(r, M2, 0x5001, 0));
		if (!strcmp(arg, "dev.hostaccess.read"))
			rr("setaccess.host", acc(r, M2, LT_HOST, 0, A_RW));
	} else {	/* host.devonly.read, host.noaccess.read, host.readonly.write */
		if (rr("create", try_mk(&h, M2, LT_HOST, 0, HT_NONE)) != CUDA_SUCCESS)
			return;
		r = rsv(M2);
		MUST(cuMemMap(r, M2, 0, h, 0));
		if (strcmp(arg, "host.noaccess.read")) {
			MUST(acc(r, M2, LT_DEV, 0, A_RW));
			MUST(wr(r, M2, 0x5002, 0));
		}
		if (!strcmp(arg, "host.readonly.write"))
			rr("setaccess.host_read", acc(r, M2, LT_HOST, 0, A_R));
	}
	MUST(cuCtxSynchronize());
	cpu = (volatile uint32_t *)VP(r);
	x = cpu[0];
	ln("cpu_read", "ok");
	ln("cpu_read.data", "%d", x == patw(!strncmp(arg, "dev.", 4) ? 0x5001 : 0x5002, 0));
	if (strstr(arg, ".write")) {
		cpu[0] = 0x12345678;
		ln("cpu_write", "ok");
		chk("gpu_read", r, 4, 0x12345678, 0);
	}
}

static const struct vcase {
	const char *name;
	void (*fn)(const char *arg);
	const char *arg;
} cases[] = {
	{ "gran.null_prop", c_gran_null_prop, "" },
	{ "gran.null_out", c_gran_null_out, "" },
	{ "reserve.null_ptr", c_reserve_null_ptr, "" },
	{ "free.memalloc", c_free_memalloc, "" },
	{ "free.mapped", c_free_mapped, "" },
	{ "create.null_prop", c_create_null_prop, "" },
	{ "create.null_handle", c_create_null_handle, "" },
	{ "map.handle0", c_map_handle, "0" },
	{ "map.bogus_handle", c_map_handle, "bogus" },
	{ "map.released_handle", c_map_handle, "released" },
	{ "map.memalloc", c_map_memalloc, "" },
	{ "unmap.memalloc", c_unmap_memalloc, "" },
	{ "setaccess.null_desc", c_setaccess_null_desc, "1" },
	{ "setaccess.null_desc_count0", c_setaccess_null_desc, "0" },
	{ "setaccess.memalloc", c_setaccess_memalloc, "" },
	{ "setaccess.managed", c_setaccess_managed, "" },
	{ "getaccess.null_location", c_getaccess_null, "location" },
	{ "getaccess.null_flags", c_getaccess_null, "flags" },
	{ "release.twice", c_release_twice, "" },
	{ "release.handle0", c_release_handle, "0" },
	{ "release.bogus", c_release_handle, "bogus" },
	{ "release.retain_null", c_retain_null, "" },
	{ "props.null_prop", c_props, "null" },
	{ "props.handle0", c_props, "0" },
	{ "props.bogus", c_props, "bogus" },
	{ "props.released", c_props, "released" },
	{ "export.null_out", c_export, "null" },
	{ "export.released", c_export, "released" },
	{ "export.handle0", c_export, "0" },
	{ "import.null_handle", c_import_null_handle, "" },
	{ "import.fabric", c_import_fabric, "" },
	{ "import.win32", c_import_win32, "" },
	{ "import.badfd", c_import_badfd, "" },
	{ "ipc.child", c_ipc_child, NULL },
	{ "ipc.orphan.child", c_ipc_child, NULL },
	{ "copy.noaccess.htod", c_copy, "noaccess.htod" },
	{ "copy.noaccess.dtoh", c_copy, "noaccess.dtoh" },
	{ "copy.noaccess.memset", c_copy, "noaccess.memset" },
	{ "copy.read.dtoh", c_copy, "read.dtoh" },
	{ "copy.read.htod", c_copy, "read.htod" },
	{ "copy.read.memset", c_copy, "read.memset" },
	{ "copy.read.dtod", c_copy, "read.dtod" },
	{ "copy.protnone.htod", c_copy, "protnone.htod" },
	{ "copy.protnone.dtoh", c_copy, "protnone.dtoh" },
	{ "copy.cross", c_copy, "cross" },
	{ "copy.hole.htod", c_copy, "hole.htod" },
	{ "copy.hole.dtoh", c_copy, "hole.dtoh" },
	{ "copy.hole.memset", c_copy, "hole.memset" },
	{ "copy.hole.dtod", c_copy, "hole.dtod" },
	{ "advise", c_advise, "" },
	{ "host.cpu", c_host_cpu, "host" },
	{ "host_numa.cpu", c_host_cpu, "host_numa" },
	{ "host.devonly.read", c_touch, "host.devonly.read" },
	{ "host.noaccess.read", c_touch, "host.noaccess.read" },
	{ "host.readonly.write", c_touch, "host.readonly.write" },
	{ "touch.dev.read", c_touch, "dev.read" },
	{ "touch.dev.write", c_touch, "dev.write" },
	{ "touch.dev.noaccess.read", c_touch, "dev.noaccess.read" },
	{ "touch.dev.hostaccess.read", c_touch, "dev.hostaccess.read" },
	{ "touch.reserved.read", c_touch, "reserved.read" },
	{ "maparray.null", c_maparray, "null" },
	{ "maparray.count0", c_maparray, "count0" },
	{ "maparray.zeroed", c_maparray, "zeroed" },
};

/* Run the named case in a process of its own. */
static void run(const char *name)
{
	child(name, "", -1);
}

/* ------------------------------------------------------------------ */
/* 1. Granularity. */

static void gran(const char *sub, const CUmemAllocationProp *p, int opt)
{
	size_t g = 777;
	char b[160];

	snprintf(b, sizeof(b), "%s", sub);
	if (rr(b, cuMemGetAllocationGranularity(&g, p, (CUmemAllocationGranularity_flags)opt)) ==
	    CUDA_SUCCESS)
		ln(sk(b, "value"), "%zu", g);
}

static void s_gran(void)
{
	static const struct { const char *n; int lt; } locs[] = {
		{ "device", LT_DEV }, { "host", LT_HOST }, { "host_numa", LT_NUMA },
		{ "host_numa_current", LT_NUMA_CUR },
	};
	CUmemAllocationProp p;

	SEC("gran");
	for (size_t i = 0; i < sizeof(locs) / sizeof(locs[0]); i++) {
		p = prop(1, locs[i].lt, 0, HT_NONE);
		gran(fk("%s.min", locs[i].n), &p, 0);
		gran(fk("%s.rec", locs[i].n), &p, 1);
	}
	p = prop(1, LT_INVALID, 0, HT_NONE);
	gran("loctype0", &p, 0);
	p = prop(1, 99, 0, HT_NONE);
	gran("loctype99", &p, 0);
	p = prop(0, LT_DEV, 0, HT_NONE);
	gran("type0", &p, 0);
	p = prop(2, LT_DEV, 0, HT_NONE);
	gran("type2", &p, 0);
	p = prop(1, LT_DEV, 0, HT_NONE);
	gran("option2", &p, 2);
	p = prop(1, LT_DEV, 99, HT_NONE);
	gran("device99", &p, 0);
	p = prop(1, LT_DEV, -1, HT_NONE);
	gran("device_neg1", &p, 0);
	p = prop(1, LT_DEV, 0, HT_FD);
	gran("posix_fd.min", &p, 0);
	gran("posix_fd.rec", &p, 1);
	p = prop(1, LT_DEV, 0, HT_FABRIC);
	gran("fabric", &p, 0);
	p = prop(1, LT_HOST, 99, HT_NONE);
	gran("host.id99", &p, 0);
	p = prop(1, LT_NUMA, 99, HT_NONE);
	gran("host_numa99", &p, 0);
	p = prop(1, LT_DEV, 0, HT_NONE);
	p.allocFlags.compressionType = 1;
	gran("compressible.min", &p, 0);
	gran("compressible.rec", &p, 1);
	run("gran.null_prop");
	run("gran.null_out");
}

/* ------------------------------------------------------------------ */
/* 2. cuMemAddressReserve. */

static void reserve_free(const char *sub, size_t size, size_t align, CUdeviceptr hint,
			 unsigned long long flags)
{
	CUdeviceptr p = 0;
	char b[160], rel[64];

	snprintf(b, sizeof(b), "%s", sub);
	if (rr(b, cuMemAddressReserve(&p, size, align, hint, flags)) != CUDA_SUCCESS)
		return;
	aligned(b, p);
	if (hint)
		ln(sk(b, "where"), "%s", probe_rel(p, hint, rel, sizeof(rel)));
	rr(sk(b, "free"), cuMemAddressFree(p, size));
}

static void s_reserve(void)
{
	CUdeviceptr a = 0, b = 0, q = 0;
	char rel[64];

	SEC("reserve");
	reserve_free("size0", 0, 0, 0, 0);
	reserve_free("size4095", 4095, 0, 0, 0);
	reserve_free("size4096", 4096, 0, 0, 0);
	reserve_free("size64k", 65536, 0, 0, 0);
	reserve_free("size2m", M2, 0, 0, 0);
	reserve_free("size3m", 3 * MIB, 0, 0, 0);
	reserve_free("align0", M2, 0, 0, 0);
	reserve_free("align3", M2, 3, 0, 0);
	reserve_free("align4096", M2, 4096, 0, 0);
	reserve_free("align64k", M2, 65536, 0, 0);
	reserve_free("align3m", M2, 3 * MIB, 0, 0);
	reserve_free("align4m", M2, 4 * MIB, 0, 0);
	if (rr("align1g", cuMemAddressReserve(&q, M2, 1ULL << 30, 0, 0)) == CUDA_SUCCESS) {
		ln("align1g.aligned_1g", "%d", (q & ((1ULL << 30) - 1)) == 0);
		rr("align1g.free", cuMemAddressFree(q, M2));
	}
	q = 0;
	if (rr("align1t", cuMemAddressReserve(&q, M2, 1ULL << 40, 0, 0)) == CUDA_SUCCESS) {
		ln("align1t.aligned_1t", "%d", (q & ((1ULL << 40) - 1)) == 0);
		rr("align1t.free", cuMemAddressFree(q, M2));
	}
	reserve_free("flags1", M2, 0, 0, 1);
	reserve_free("size1t", 1ULL << 40, 0, 0, 0);
	reserve_free("size256t", 1ULL << 48, 0, 0, 0);

	/* Hints: a spot just freed, an occupied one, unaligned ones. */
	a = rsv(4 * MIB);
	MUST(cuMemAddressFree(a, 4 * MIB));
	q = 0;
	if (rr("hint.freed", cuMemAddressReserve(&q, 4 * MIB, 0, a, 0)) == CUDA_SUCCESS) {
		ln("hint.freed.hint_honoured", "%d", q == a);
		MUST(cuMemAddressFree(q, 4 * MIB));
	}
	reserve_free("hint.freed_plus2m", M2, 0, a + M2, 0);
	reserve_free("hint.unaligned1", M2, 0, a + 1, 0);
	reserve_free("hint.unaligned4096", M2, 0, a + 4096, 0);
	reserve_free("hint.unaligned64k", M2, 0, a + 65536, 0);
	reserve_free("hint.align_conflict", M2, 4 * MIB, a + M2, 0);
	b = rsv(M2);
	q = 0;
	if (rr("hint.occupied", cuMemAddressReserve(&q, M2, 0, b, 0)) == CUDA_SUCCESS) {
		ln("hint.occupied.hint_honoured", "%d", q == b);
		ln("hint.occupied.where", "%s", probe_rel(q, b, rel, sizeof(rel)));
		MUST(cuMemAddressFree(q, M2));
	}
	MUST(cuMemAddressFree(b, M2));
	run("reserve.null_ptr");
}

/* ------------------------------------------------------------------ */
/* 3. cuMemAddressFree. */

static void s_free(void)
{
	CUdeviceptr p, q = 0;

	SEC("free");
	p = rsv(4 * MIB);
	rr("wrong_size.smaller", cuMemAddressFree(p, M2));
	rr("wrong_size.larger", cuMemAddressFree(p, 8 * MIB));
	rr("wrong_size.unaligned", cuMemAddressFree(p, 4 * MIB - 4096));
	rr("interior", cuMemAddressFree(p + M2, M2));
	rr("interior.rest", cuMemAddressFree(p + M2, 4 * MIB - M2));
	rr("size0", cuMemAddressFree(p, 0));
	rr("whole", cuMemAddressFree(p, 4 * MIB));
	rr("twice", cuMemAddressFree(p, 4 * MIB));
	if (rr("rereserve", cuMemAddressReserve(&q, 4 * MIB, 0, p, 0)) == CUDA_SUCCESS) {
		ln("rereserve.hint_honoured", "%d", q == p);
		MUST(cuMemAddressFree(q, 4 * MIB));
	}
	rr("null", cuMemAddressFree(0, M2));
	/* Two reservations freed as one. */
	p = rsv(M2);
	q = 0;
	MUST(cuMemAddressReserve(&q, M2, 0, p + M2, 0));
	envl("two.adjacent", "%d", q == p + M2);
	if (q == p + M2) {
		rr("two.as_one", cuMemAddressFree(p, 4 * MIB));
		rr("two.first", cuMemAddressFree(p, M2));
		rr("two.second", cuMemAddressFree(q, M2));
	} else {
		cuMemAddressFree(p, M2);
		cuMemAddressFree(q, M2);
	}
	run("free.memalloc");
	run("free.mapped");
}

/* ------------------------------------------------------------------ */
/* 4. cuMemCreate. */

static void create(const char *sub, size_t size, const CUmemAllocationProp *p,
		   unsigned long long flags)
{
	char b[160];
	H h = 0;

	snprintf(b, sizeof(b), "%s", sub);
	if (rr(b, cuMemCreate(&h, size, p, flags)) != CUDA_SUCCESS)
		return;
	ln(sk(b, "handle_nonzero"), "%d", h != 0);
	props(sk(b, "props"), h);
	if (size && size % M2) {	/* how much of it can be mapped */
		CUdeviceptr r = rsv(8 * MIB);
		size_t up = (size + M2 - 1) & ~(M2 - 1);

		if (rr(sk(b, "map_size"), cuMemMap(r, size, 0, h, 0)) == CUDA_SUCCESS)
			cuMemUnmap(r, size);
		if (rr(sk(b, "map_rounded"), cuMemMap(r, up, 0, h, 0)) == CUDA_SUCCESS)
			cuMemUnmap(r, up);
		if (rr(sk(b, "map_rounded_more"), cuMemMap(r, up + M2, 0, h, 0)) == CUDA_SUCCESS)
			cuMemUnmap(r, up + M2);
		cuMemAddressFree(r, 8 * MIB);
	}
	rr(sk(b, "release"), cuMemRelease(h));
}

static void s_create(void)
{
	CUmemAllocationProp p;

	SEC("create");
	p = prop(1, LT_DEV, 0, HT_NONE);
	create("size0", 0, &p, 0);
	create("size4096", 4096, &p, 0);
	create("size2m", M2, &p, 0);
	create("size3m", 3 * MIB, &p, 0);
	create("flags1", M2, &p, 1);
	create("size16t", 1ULL << 44, &p, 0);
	p = prop(1, LT_DEV, 99, HT_NONE);
	create("device99", M2, &p, 0);
	p = prop(1, LT_DEV, -1, HT_NONE);
	create("device_neg1", M2, &p, 0);
	p = prop(1, LT_HOST, 0, HT_NONE);
	create("host", M2, &p, 0);
	create("host.size4096", 4096, &p, 0);
	p = prop(1, LT_HOST, 0, HT_FD);
	create("host.posix_fd", M2, &p, 0);
	p = prop(1, LT_HOST, 99, HT_NONE);
	create("host.id99", M2, &p, 0);
	p = prop(1, LT_NUMA, 0, HT_NONE);
	create("host_numa0", M2, &p, 0);
	p = prop(1, LT_NUMA, 0, HT_FD);
	create("host_numa0.posix_fd", M2, &p, 0);
	p = prop(1, LT_NUMA, 99, HT_NONE);
	create("host_numa99", M2, &p, 0);
	p = prop(1, LT_NUMA, -1, HT_NONE);
	create("host_numa_neg1", M2, &p, 0);
	p = prop(1, LT_NUMA_CUR, 0, HT_NONE);
	create("host_numa_current", M2, &p, 0);
	p = prop(1, LT_INVALID, 0, HT_NONE);
	create("loctype0", M2, &p, 0);
	p = prop(1, 99, 0, HT_NONE);
	create("loctype99", M2, &p, 0);
	p = prop(0, LT_DEV, 0, HT_NONE);
	create("type0", M2, &p, 0);
	p = prop(2, LT_DEV, 0, HT_NONE);
	create("type2", M2, &p, 0);
	p = prop(3, LT_DEV, 0, HT_NONE);
	create("type3", M2, &p, 0);
	p = prop(1, LT_DEV, 0, HT_FD);
	create("posix_fd", M2, &p, 0);
	p = prop(1, LT_DEV, 0, HT_FABRIC);
	create("fabric", M2, &p, 0);
	p = prop(1, LT_DEV, 0, HT_WIN32);
	create("win32", M2, &p, 0);
	p = prop(1, LT_DEV, 0, 4);
	create("win32_kmt", M2, &p, 0);
	p = prop(1, LT_DEV, 0, 0x10);
	create("handletype0x10", M2, &p, 0);
	p = prop(1, LT_DEV, 0, HT_FD | HT_FABRIC);
	create("posix_fd_fabric", M2, &p, 0);
	p = prop(1, LT_DEV, 0, HT_NONE);
	p.allocFlags.compressionType = 1;
	create("compression1", M2, &p, 0);
	p = prop(1, LT_DEV, 0, HT_NONE);
	p.allocFlags.gpuDirectRDMACapable = 1;
	create("rdma1", M2, &p, 0);
	p = prop(1, LT_DEV, 0, HT_NONE);
	p.allocFlags.usage = 1;
	create("usage1", M2, &p, 0);
	p = prop(1, LT_DEV, 0, HT_NONE);
	p.allocFlags.usage = 2;
	create("usage2", M2, &p, 0);
	p = prop(1, LT_DEV, 0, HT_NONE);
	p.allocFlags.usage = 4;
	create("usage4", M2, &p, 0);
	p = prop(1, LT_DEV, 0, HT_NONE);
	p.allocFlags.reserved[0] = 1;
	create("reserved1", M2, &p, 0);
	p = prop(1, LT_DEV, 0, HT_NONE);
	p.win32HandleMetaData = (void *)hb;
	create("win32meta", M2, &p, 0);
	run("create.null_prop");
	run("create.null_handle");
}

/* ------------------------------------------------------------------ */
/* 5. cuMemMap. */

/* Map, record, unmap again where it worked. */
static void try_map(const char *sub, CUdeviceptr p, size_t size, size_t off, H h)
{
	if (rr(sub, cuMemMap(p, size, off, h, 0)) == CUDA_SUCCESS)
		cuMemUnmap(p, size);
}

static void s_map(void)
{
	CUdeviceptr r, ref, q = 0, lo, hi;
	H h4 = mkdev(4 * MIB), h2 = mkdev(M2);

	SEC("map");
	ref = rsv(4 * MIB);
	/* ref: the whole allocation, a pattern over all of it. */
	MUST(cuMemMap(ref, 4 * MIB, 0, h4, 0));
	MUST(acc(ref, 4 * MIB, LT_DEV, 0, A_RW));
	MUST(wr(ref, 4 * MIB, 0x6001, 0));
	r = rsv(8 * MIB);
	if (rr("whole", cuMemMap(r, 4 * MIB, 0, h4, 0)) == CUDA_SUCCESS) {
		rr("whole.setaccess", acc(r, 4 * MIB, LT_DEV, 0, A_RW));
		chk("whole.read", r, 4 * MIB, 0x6001, 0);
		rr("whole.unmap", cuMemUnmap(r, 4 * MIB));
	}
	r = rsv(8 * MIB);
	if (rr("offset2m", cuMemMap(r, M2, M2, h4, 0)) == CUDA_SUCCESS) {
		rr("offset2m.setaccess", acc(r, M2, LT_DEV, 0, A_RW));
		/* data 1: the mapping shows the allocation from 2 MiB on */
		chk("offset2m.read", r, M2, 0x6001, M2 / 4);
		rr("offset2m.unmap", cuMemUnmap(r, M2));
	}
	r = rsv(8 * MIB);
	if (rr("offset2m.at2m", cuMemMap(r + M2, M2, M2, h4, 0)) == CUDA_SUCCESS) {
		rr("offset2m.at2m.setaccess", acc(r + M2, M2, LT_DEV, 0, A_RW));
		chk("offset2m.at2m.read", r + M2, M2, 0x6001, M2 / 4);
		rr("offset2m.at2m.unmap", cuMemUnmap(r + M2, M2));
	}
	r = rsv(8 * MIB);
	if (rr("partial", cuMemMap(r, M2, 0, h4, 0)) == CUDA_SUCCESS) {
		rr("partial.setaccess", acc(r, M2, LT_DEV, 0, A_RW));
		chk("partial.read", r, M2, 0x6001, 0);
		rr("partial.unmap", cuMemUnmap(r, M2));
	}
	/* Both halves of one allocation, swapped. */
	r = rsv(8 * MIB);
	if (rr("swapped.first", cuMemMap(r, M2, M2, h4, 0)) == CUDA_SUCCESS &&
	    rr("swapped.second", cuMemMap(r + M2, M2, 0, h4, 0)) == CUDA_SUCCESS) {
		rr("swapped.setaccess", acc(r, 4 * MIB, LT_DEV, 0, A_RW));
		chk("swapped.read_first", r, M2, 0x6001, M2 / 4);
		chk("swapped.read_second", r + M2, M2, 0x6001, 0);
		rr("swapped.unmap_both", cuMemUnmap(r, 4 * MIB));
	}
	r = rsv(8 * MIB);
	try_map("beyond", r, 4 * MIB, M2, h4);
	try_map("beyond_size", r, 6 * MIB, 0, h4);
	try_map("offset_past_end", r, M2, 4 * MIB, h4);
	try_map("unaligned_ptr4096", r + 4096, M2, 0, h4);
	try_map("unaligned_ptr64k", r + 65536, M2, 0, h4);
	try_map("unaligned_ptr4096.whole", r + 4096, 4 * MIB, 0, h4);
	try_map("unaligned_ptr64k.whole", r + 65536, 4 * MIB, 0, h4);
	try_map("unaligned_ptr1m.whole", r + MIB, 4 * MIB, 0, h4);
	try_map("size6m", r, 6 * MIB, 0, h4);
	try_map("size2m_of_2m", r, M2, 0, h2);
	try_map("size_unaligned_of_2m", r, M2 + 4096, 0, h2);
	try_map("size4096", r, 4096, 0, h4);
	try_map("size64k", r, 65536, 0, h4);
	try_map("size_unaligned", r, M2 + 4096, 0, h4);
	try_map("offset4096", r, M2, 4096, h4);
	try_map("offset64k", r, M2, 65536, h4);
	try_map("size0", r, 0, 0, h4);
	if (rr("flags1", cuMemMap(r, 4 * MIB, 0, h4, 1)) == CUDA_SUCCESS)
		cuMemUnmap(r, 4 * MIB);
	/* The 4 MiB after r + 8M: reserved (the next reservation) or not. */
	{
		CUdeviceptr nx = 0;

		if (cuMemAddressReserve(&nx, 8 * MIB, 0, r + 8 * MIB, 0) == CUDA_SUCCESS) {
			envl("past_reservation_end.next_adjacent", "%d", nx == r + 8 * MIB);
			if (nx == r + 8 * MIB)
				try_map("past_reservation_end.into_next", r + 6 * MIB, 4 * MIB, 0, h4);
			MUST(cuMemAddressFree(nx, 8 * MIB));
			if (nx == r + 8 * MIB) {
				/* r + 8M is unreserved now */
				try_map("past_reservation_end.unreserved", r + 6 * MIB, 4 * MIB, 0, h4);
				try_map("past_reservation_end.wholly_unreserved", r + 8 * MIB, 4 * MIB, 0, h4);
			}
		}
	}
	try_map("reservation_interior", r + 4 * MIB, M2, 0, h2);

	/* Overlaps. */
	r = rsv(8 * MIB);
	if (rr("overlap.base", cuMemMap(r, 4 * MIB, 0, h4, 0)) == CUDA_SUCCESS) {
		try_map("overlap.same", r, 4 * MIB, 0, h4);
		try_map("overlap.inside", r + M2, M2, 0, h2);
		try_map("overlap.tail", r + M2, 4 * MIB, 0, h4);
		try_map("overlap.head", r, M2, 0, h2);
		try_map("adjacent", r + 4 * MIB, M2, 0, h2);
		rr("overlap.base.unmap", cuMemUnmap(r, 4 * MIB));
	}

	/* Outside any reservation. */
	q = rsv(M2);
	MUST(cuMemAddressFree(q, M2));
	try_map("outside.freed", q, M2, 0, h2);
	try_map("outside.null", 0, M2, 0, h2);
	run("map.memalloc");

	/* Across two adjacent reservations. */
	lo = rsv(M2);
	hi = 0;
	MUST(cuMemAddressReserve(&hi, M2, 0, lo + M2, 0));
	if (hi != lo + M2) {
		CUdeviceptr t = 0;

		MUST(cuMemAddressReserve(&t, M2, 0, lo - M2, 0));
		if (t == lo - M2) {
			cuMemAddressFree(hi, M2);
			hi = lo;
			lo = t;
		} else {
			cuMemAddressFree(t, M2);
		}
	}
	envl("span.adjacent", "%d", hi == lo + M2);
	if (hi == lo + M2) {
		if (rr("span", cuMemMap(lo, 4 * MIB, 0, h4, 0)) == CUDA_SUCCESS) {
			rr("span.setaccess", acc(lo, 4 * MIB, LT_DEV, 0, A_RW));
			chk("span.read", lo, 4 * MIB, 0x6001, 0);
			rr("span.unmap", cuMemUnmap(lo, 4 * MIB));
		}
		/* Each half in its own reservation, then one call over both. */
		cuMemUnmap(lo, M2);
		cuMemUnmap(hi, M2);
		if (cuMemMap(lo, M2, 0, h4, 0) == CUDA_SUCCESS &&
		    cuMemMap(hi, M2, M2, h4, 0) == CUDA_SUCCESS) {
			rr("span.setaccess_two", acc(lo, 4 * MIB, LT_DEV, 0, A_RW));
			gacc("span.setaccess_two.get_hi", hi, LT_DEV, 0);
			rr("span.unmap_two", cuMemUnmap(lo, 4 * MIB));
			state("span.unmap_two.lo", lo);
			state("span.unmap_two.hi", hi);
		}
		cuMemUnmap(lo, M2);
		cuMemUnmap(hi, M2);
		rr("span.free_as_one", cuMemAddressFree(lo, 4 * MIB));
	}
	cuMemAddressFree(lo, M2);
	cuMemAddressFree(hi, M2);

	run("map.handle0");
	run("map.bogus_handle");
	run("map.released_handle");

	/* Aliases: one allocation at two addresses (ref and r). */
	r = rsv(8 * MIB);
	if (rr("alias", cuMemMap(r, 4 * MIB, 0, h4, 0)) == CUDA_SUCCESS) {
		rr("alias.setaccess", acc(r, 4 * MIB, LT_DEV, 0, A_RW));
		rr("alias.write", wr(r, 4 * MIB, 0x6002, 0));
		chk("alias.read_other", ref, 4 * MIB, 0x6002, 0);
		cuMemUnmap(r, 4 * MIB);
	}
	/* Twice in one reservation. */
	if (rr("alias_same_reservation", cuMemMap(r + 4 * MIB, M2, 0, h2, 0)) == CUDA_SUCCESS &&
	    rr("alias_same_reservation.second", cuMemMap(r + 6 * MIB, M2, 0, h2, 0)) ==
	    CUDA_SUCCESS) {
		rr("alias_same_reservation.setaccess", acc(r + 4 * MIB, 4 * MIB, LT_DEV, 0, A_RW));
		rr("alias_same_reservation.write", wr(r + 4 * MIB, M2, 0x6003, 0));
		chk("alias_same_reservation.read_other", r + 6 * MIB, M2, 0x6003, 0);
	}
	cuMemUnmap(r + 4 * MIB, M2);
	cuMemUnmap(r + 6 * MIB, M2);
	cuMemUnmap(ref, 4 * MIB);
	cuMemRelease(h4);
	cuMemRelease(h2);
}

/* ------------------------------------------------------------------ */
/* 6. cuMemUnmap.  A fresh 8 MiB reservation for each case. */

static CUdeviceptr map_at(CUdeviceptr r, size_t size, size_t off, H h)
{
	MUST(cuMemMap(r, size, off, h, 0));
	return r;
}

static void s_unmap(void)
{
	CUdeviceptr r, q;
	H h4 = mkdev(4 * MIB), a = mkdev(M2), b = mkdev(M2);

	SEC("unmap");
	/* 2 MiB of a 4 MiB mapping: the head, then the tail. */
	r = map_at(rsv(8 * MIB), 4 * MIB, 0, h4);
	MUST(acc(r, 4 * MIB, LT_DEV, 0, A_RW));
	MUST(wr(r, 4 * MIB, 0x7001, 0));
	rr("subrange.head", cuMemUnmap(r, M2));
	state("subrange.head.first", r);
	state("subrange.head.second", r + M2);
	chk("subrange.head.read_second", r + M2, M2, 0x7001, M2 / 4);
	rr("subrange.head.rest", cuMemUnmap(r + M2, M2));
	rr("subrange.head.whole", cuMemUnmap(r, 4 * MIB));
	try_map("subrange.head.remap", r, 4 * MIB, 0, h4);
	r = map_at(rsv(8 * MIB), 4 * MIB, 0, h4);
	rr("subrange.tail", cuMemUnmap(r + M2, M2));
	state("subrange.tail.first", r);
	state("subrange.tail.second", r + M2);
	rr("subrange.tail.whole", cuMemUnmap(r, 4 * MIB));

	/* Two whole mappings side by side, unmapped by one call. */
	r = rsv(8 * MIB);
	map_at(r, M2, 0, a);
	map_at(r + M2, M2, 0, b);
	rr("span2", cuMemUnmap(r, 4 * MIB));
	state("span2.first", r);
	state("span2.second", r + M2);
	/* The same, one allocation in two pieces. */
	r = rsv(8 * MIB);
	if (cuMemMap(r, M2, 0, h4, 0) == CUDA_SUCCESS &&
	    cuMemMap(r + M2, M2, M2, h4, 0) == CUDA_SUCCESS) {
		rr("span2_same_alloc", cuMemUnmap(r, 4 * MIB));
		state("span2_same_alloc.first", r);
		state("span2_same_alloc.second", r + M2);
	}

	r = rsv(8 * MIB);
	rr("hole", cuMemUnmap(r + 6 * MIB, M2));
	rr("whole_reservation_empty", cuMemUnmap(r, 8 * MIB));
	r = map_at(rsv(8 * MIB), M2, 0, a);
	rr("mapping_plus_hole", cuMemUnmap(r, 4 * MIB));
	state("mapping_plus_hole.first", r);
	r = rsv(8 * MIB);
	map_at(r + M2, M2, 0, a);
	rr("hole_plus_mapping", cuMemUnmap(r, 4 * MIB));
	state("hole_plus_mapping.second", r + M2);
	r = rsv(8 * MIB);
	map_at(r, M2, 0, a);
	map_at(r + 4 * MIB, M2, 0, b);
	rr("mapping_hole_mapping", cuMemUnmap(r, 6 * MIB));
	state("mapping_hole_mapping.first", r);
	state("mapping_hole_mapping.third", r + 4 * MIB);
	r = map_at(rsv(8 * MIB), 4 * MIB, 0, h4);
	rr("whole_reservation_one_mapping", cuMemUnmap(r, 8 * MIB));
	state("whole_reservation_one_mapping", r);

	r = map_at(rsv(8 * MIB), M2, 0, a);
	rr("size0", cuMemUnmap(r, 0));
	state("size0", r);
	rr("unaligned_ptr", cuMemUnmap(r + 4096, M2));
	rr("unaligned_size", cuMemUnmap(r, 4096));
	rr("unaligned_size_over", cuMemUnmap(r, M2 + 4096));
	state("unaligned", r);
	rr("once", cuMemUnmap(r, M2));
	rr("twice", cuMemUnmap(r, M2));
	rr("null", cuMemUnmap(0, M2));
	q = rsv(M2);
	MUST(cuMemAddressFree(q, M2));
	rr("freed_reservation", cuMemUnmap(q, M2));
	cuMemRelease(h4);
	cuMemRelease(a);
	cuMemRelease(b);
	run("unmap.memalloc");
}

/* ------------------------------------------------------------------ */
/* 7. cuMemSetAccess and 8. cuMemGetAccess. */

static void s_setaccess(void)
{
	CUdeviceptr r = rsv(8 * MIB), q = rsv(M2);
	H h4 = mkdev(4 * MIB), a = mkdev(M2);
	CUmemAccessDesc d[2];
	static const int flags[] = { 0, 1, 2, 3, 4, 7 };

	SEC("setaccess");
	/* r: h4 at [0, 4M), a at [4M, 6M), a hole at [6M, 8M). */
	MUST(cuMemMap(r, 4 * MIB, 0, h4, 0));
	MUST(cuMemMap(r + 4 * MIB, M2, 0, a, 0));
	rr("hole", acc(r + 6 * MIB, M2, LT_DEV, 0, A_RW));
	rr("empty_reservation", acc(q, M2, LT_DEV, 0, A_RW));
	memset(d, 0, sizeof(d));
	d[0].location = LOC(LT_DEV, 0);
	d[0].flags = (CUmemAccess_flags)A_RW;
	rr("count0", cuMemSetAccess(r, 4 * MIB, d, 0));
	gacc("count0.get", r, LT_DEV, 0);
	run("setaccess.null_desc");
	run("setaccess.null_desc_count0");
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		rr(fk("flags%d", flags[i]), acc(r, 4 * MIB, LT_DEV, 0, flags[i]));
		gacc(fk("flags%d.get", flags[i]), r, LT_DEV, 0);
	}
	/* RW, then NONE: allowed? */
	MUST(acc(r, 4 * MIB, LT_DEV, 0, A_RW));
	rr("rw_then_none", acc(r, 4 * MIB, LT_DEV, 0, A_NONE));
	gacc("rw_then_none.get", r, LT_DEV, 0);
	rr("none_then_read", acc(r, 4 * MIB, LT_DEV, 0, A_R));
	gacc("none_then_read.get", r, LT_DEV, 0);
	rr("read_then_rw", acc(r, 4 * MIB, LT_DEV, 0, A_RW));
	gacc("read_then_rw.get", r, LT_DEV, 0);
	rr("device99", acc(r, 4 * MIB, LT_DEV, 99, A_RW));
	rr("device_neg1", acc(r, 4 * MIB, LT_DEV, -1, A_RW));
	rr("host", acc(r, 4 * MIB, LT_HOST, 0, A_RW));
	gacc("host.get_host", r, LT_HOST, 0);
	gacc("host.get_device", r, LT_DEV, 0);
	rr("host_numa", acc(r, 4 * MIB, LT_NUMA, 0, A_RW));
	gacc("host_numa.get_host_numa", r, LT_NUMA, 0);
	rr("host_numa_current", acc(r, 4 * MIB, LT_NUMA_CUR, 0, A_RW));
	rr("loctype0", acc(r, 4 * MIB, LT_INVALID, 0, A_RW));
	rr("loctype99", acc(r, 4 * MIB, 99, 0, A_RW));
	gacc("after_bad_locations.get", r, LT_DEV, 0);

	/* Half of a mapping. */
	MUST(acc(r, 4 * MIB, LT_DEV, 0, A_RW));
	rr("half.first_read", acc(r, M2, LT_DEV, 0, A_R));
	gacc("half.first_read.get_first", r, LT_DEV, 0);
	gacc("half.first_read.get_second", r + M2, LT_DEV, 0);
	rr("half.second_none", acc(r + M2, M2, LT_DEV, 0, A_NONE));
	gacc("half.second_none.get_first", r, LT_DEV, 0);
	gacc("half.second_none.get_second", r + M2, LT_DEV, 0);
	MUST(acc(r, 4 * MIB, LT_DEV, 0, A_RW));
	MUST(wr(r, 4 * MIB, 0x8001, 0));
	rr("half.second_read", acc(r + M2, M2, LT_DEV, 0, A_R));
	chk("half.second_read.read_all", r, 4 * MIB, 0x8001, 0);
	MUST(acc(r, 4 * MIB, LT_DEV, 0, A_RW));

	/* Spans. */
	MUST(acc(r + 4 * MIB, M2, LT_DEV, 0, A_RW));
	rr("span2", acc(r + M2, 4 * MIB, LT_DEV, 0, A_R));
	gacc("span2.get_h4_first", r, LT_DEV, 0);
	gacc("span2.get_h4_second", r + M2, LT_DEV, 0);
	gacc("span2.get_a", r + 4 * MIB, LT_DEV, 0);
	rr("span_all", acc(r, 6 * MIB, LT_DEV, 0, A_RW));
	gacc("span_all.get_a", r + 4 * MIB, LT_DEV, 0);
	rr("mapping_plus_hole", acc(r + 4 * MIB, 4 * MIB, LT_DEV, 0, A_R));
	gacc("mapping_plus_hole.get_a", r + 4 * MIB, LT_DEV, 0);
	rr("whole_reservation", acc(r, 8 * MIB, LT_DEV, 0, A_R));
	gacc("whole_reservation.get", r, LT_DEV, 0);
	MUST(acc(r, 4 * MIB, LT_DEV, 0, A_RW));
	MUST(acc(r + 4 * MIB, M2, LT_DEV, 0, A_RW));
	rr("unaligned_ptr", acc(r + 4096, M2, LT_DEV, 0, A_R));
	rr("unaligned_size", acc(r, 4096, LT_DEV, 0, A_R));
	rr("unaligned_size_over", acc(r, M2 + 4096, LT_DEV, 0, A_R));
	rr("size0", acc(r, 0, LT_DEV, 0, A_R));
	gacc("unaligned.get", r, LT_DEV, 0);
	MUST(acc(r, 4 * MIB, LT_DEV, 0, A_RW));
	MUST(acc(r + 4 * MIB, M2, LT_DEV, 0, A_RW));
	/* Two descriptors, one location twice. */
	d[1].location = LOC(LT_DEV, 0);
	d[1].flags = (CUmemAccess_flags)A_R;
	rr("dup_desc", cuMemSetAccess(r, 4 * MIB, d, 2));
	gacc("dup_desc.get", r, LT_DEV, 0);
	d[1].location = LOC(LT_HOST, 0);
	d[1].flags = (CUmemAccess_flags)A_RW;
	rr("device_and_host", cuMemSetAccess(r, 4 * MIB, d, 2));
	gacc("device_and_host.get", r, LT_DEV, 0);
	{
		CUdeviceptr m = 0, dm = 0;

		MUST(cuMemAlloc(&dm, M2));
		MUST(cuMemAllocManaged(&m, M2, CU_MEM_ATTACH_GLOBAL));
		rr("null_ptr", acc(0, M2, LT_DEV, 0, A_RW));
		rr("host_malloc", acc((uintptr_t)hb & ~(M2 - 1), M2, LT_DEV, 0, A_RW));

		SEC("getaccess");
		/* A fresh mapping: access never granted. */
		{
			CUdeviceptr g = rsv(8 * MIB);
			H hg = mkdev(4 * MIB);

			MUST(cuMemMap(g, 4 * MIB, 0, hg, 0));
			gacc("never_granted", g, LT_DEV, 0);
			gacc("never_granted.interior", g + M2 + 10, LT_DEV, 0);
			gacc("never_granted.host", g, LT_HOST, 0);
			MUST(acc(g, 4 * MIB, LT_DEV, 0, A_RW));
			gacc("rw", g, LT_DEV, 0);
			gacc("interior", g + M2 + 10, LT_DEV, 0);
			gacc("last_byte", g + 4 * MIB - 1, LT_DEV, 0);
			gacc("end", g + 4 * MIB, LT_DEV, 0);
			gacc("unmapped_reserved", g + 6 * MIB, LT_DEV, 0);
			MUST(acc(g, 4 * MIB, LT_DEV, 0, A_R));
			gacc("read", g, LT_DEV, 0);
			gacc("read.host", g, LT_HOST, 0);
			gacc("read.host_numa", g, LT_NUMA, 0);
			MUST(acc(g, 4 * MIB, LT_DEV, 0, A_RW));
			gacc("host", g, LT_HOST, 0);
			gacc("host_numa", g, LT_NUMA, 0);
			gacc("host_numa_current", g, LT_NUMA_CUR, 0);
			gacc("loctype0", g, LT_INVALID, 0);
			gacc("loctype99", g, 99, 0);
			gacc("device99", g, LT_DEV, 99);
			gacc("device_neg1", g, LT_DEV, -1);
			gacc("memalloc", dm, LT_DEV, 0);
			gacc("managed", m, LT_DEV, 0);
			gacc("null_ptr", 0, LT_DEV, 0);
			gacc("host_malloc", (uintptr_t)hb, LT_DEV, 0);
			cuMemUnmap(g, 4 * MIB);
			gacc("after_unmap", g, LT_DEV, 0);
			cuMemAddressFree(g, 8 * MIB);
			cuMemRelease(hg);
		}
		run("getaccess.null_location");
		run("getaccess.null_flags");
		SEC("setaccess");
		cuMemFree(dm);
		cuMemFree(m);
	}
	cuMemUnmap(r, 4 * MIB);
	cuMemUnmap(r + 4 * MIB, M2);
	cuMemAddressFree(r, 8 * MIB);
	cuMemAddressFree(q, M2);
	cuMemRelease(h4);
	cuMemRelease(a);
	run("setaccess.memalloc");
	run("setaccess.managed");
}

/* ------------------------------------------------------------------ */
/* 9. Release and retain. */

static void retain(const char *sub, CUdeviceptr p, H orig, int release)
{
	char b[160];
	H g = 0;

	snprintf(b, sizeof(b), "%s", sub);
	if (rr(b, cuMemRetainAllocationHandle(&g, VP(p))) != CUDA_SUCCESS)
		return;
	ln(sk(b, "handle"), "%s", g == orig ? "same" : g ? "different" : "0");
	if (release)
		rr(sk(b, "release"), cuMemRelease(g));
}

static void s_release(void)
{
	CUdeviceptr r = rsv(8 * MIB), d = 0, m = 0;
	H h = mkdev(4 * MIB), g = 0, k1 = 0, k2 = 0;

	SEC("release");
	MUST(cuMemMap(r, 4 * MIB, 0, h, 0));
	MUST(acc(r, 4 * MIB, LT_DEV, 0, A_RW));
	MUST(wr(r, 4 * MIB, 0x9001, 0));
	retain("retain.start", r, h, 1);
	retain("retain.interior", r + M2 + 10, h, 1);
	retain("retain.last_byte", r + 4 * MIB - 1, h, 1);
	retain("retain.end", r + 4 * MIB, h, 1);
	retain("retain.unmapped_reserved", r + 6 * MIB, h, 1);
	if (cuMemMap(r + 4 * MIB, M2, M2, h, 0) == CUDA_SUCCESS) {
		retain("retain.offset_mapping", r + 4 * MIB, h, 1);
		MUST(cuMemUnmap(r + 4 * MIB, M2));
	}
	MUST(cuMemAlloc(&d, M2));
	MUST(cuMemAllocManaged(&m, M2, CU_MEM_ATTACH_GLOBAL));
	retain("retain.memalloc", d, h, 1);
	retain("retain.managed", m, h, 1);
	retain("retain.host_malloc", (uintptr_t)hb, h, 1);
	retain("retain.null", 0, h, 1);
	cuMemFree(d);
	cuMemFree(m);
	run("release.retain_null");
	/* Retained twice, kept: the mapping holds the allocation, the
	 * original handle and two retained ones. */
	MUST(cuMemRetainAllocationHandle(&k1, VP(r)));
	MUST(cuMemRetainAllocationHandle(&k2, VP(r + M2)));

	rr("while_mapped", cuMemRelease(h));
	chk("while_mapped.read", r, 4 * MIB, 0x9001, 0);
	rr("while_mapped.memsetd32", cuMemsetD32(r, 0x9002, MIB));
	memset(hb2, 0, 4 * MIB);
	if (rr("while_mapped.memsetd32.read", cuMemcpyDtoH(hb2, r, 4 * MIB)) == CUDA_SUCCESS)
		ln("while_mapped.memsetd32.data", "%d", all32(hb2, 4 * MIB, 0x9002));
	props("while_mapped.props", h);
	if (rr("after.retain", cuMemRetainAllocationHandle(&g, VP(r))) == CUDA_SUCCESS) {
		ln("after.retain.handle", "%s", g == h ? "same" : g ? "different" : "0");
		props("after.retain.props", g);
		rr("after.retain.release", cuMemRelease(g));
	}
	rr("keep1.release", cuMemRelease(k1));
	rr("keep2.release", cuMemRelease(k2));
	memset(hb2, 0, 4 * MIB);
	if (rr("after_all_releases.read2", cuMemcpyDtoH(hb2, r, 4 * MIB)) == CUDA_SUCCESS)
		ln("after_all_releases.read2.data", "%d", all32(hb2, 4 * MIB, 0x9002));
	rr("unmap", cuMemUnmap(r, 4 * MIB));
	retain("after_unmap.retain", r, h, 1);
	cuMemAddressFree(r, 8 * MIB);
	run("release.twice");
	run("release.handle0");
	run("release.bogus");
}

/* ------------------------------------------------------------------ */
/* 10. Properties, 11. export, 12. import. */

static void s_props(void)
{
	H h;

	SEC("props");
	h = mkdev(M2);
	props("device", h);
	cuMemRelease(h);
	h = mk(M2, LT_DEV, 0, HT_FD);
	props("posix_fd", h);
	cuMemRelease(h);
	if (rr("host.create", try_mk(&h, M2, LT_HOST, 0, HT_NONE)) == CUDA_SUCCESS) {
		props("host", h);
		cuMemRelease(h);
	}
	if (rr("host_numa.create", try_mk(&h, M2, LT_NUMA, 0, HT_NONE)) == CUDA_SUCCESS) {
		props("host_numa", h);
		cuMemRelease(h);
	}
	if (rr("host_numa_current.create", try_mk(&h, M2, LT_NUMA_CUR, 0, HT_NONE)) ==
	    CUDA_SUCCESS) {
		props("host_numa_current", h);
		cuMemRelease(h);
	}
	run("props.null_prop");
	run("props.handle0");
	run("props.bogus");
	run("props.released");
}

static void s_export_import(void)
{
	CUdeviceptr ra, rb, rx;
	H hd = mkdev(M2), hfd = mk(M2, LT_DEV, 0, HT_FD), hi = 0, h2 = 0, h3 = 0, hx, hh, g = 0;
	int fd = -1, fd2 = -1, fdx = -1, fdi = -1, t = -7;
	unsigned char buf[64];
	struct stat s1, s2;

	SEC("export");
	t = -7;
	rr("no_types", cuMemExportToShareableHandle(&t, hd, (CUmemAllocationHandleType)HT_FD, 0));
	ln("no_types.fd", "%s", t == -7 ? "untouched" : t < 0 ? "negative" : "set");
	if (rr("posix_fd", exp_fd(&fd, hfd)) == CUDA_SUCCESS)
		fd_info("posix_fd", fd);
	if (rr("again", exp_fd(&fd2, hfd)) == CUDA_SUCCESS) {
		ln("again.fd_different", "%d", fd2 != fd);
		ln("again.same_file", "%d", fstat(fd, &s1) == 0 && fstat(fd2, &s2) == 0 &&
		   s1.st_dev == s2.st_dev && s1.st_ino == s2.st_ino);
	}
	memset(buf, 0xAA, sizeof(buf));
	rr("fabric", cuMemExportToShareableHandle(buf, hfd, (CUmemAllocationHandleType)HT_FABRIC, 0));
	t = -7;
	rr("type_none", cuMemExportToShareableHandle(&t, hfd, (CUmemAllocationHandleType)HT_NONE, 0));
	memset(buf, 0xAA, sizeof(buf));
	rr("win32", cuMemExportToShareableHandle(buf, hfd, (CUmemAllocationHandleType)HT_WIN32, 0));
	t = -7;
	if (rr("flags1", cuMemExportToShareableHandle(&t, hfd, (CUmemAllocationHandleType)HT_FD,
	       1)) == CUDA_SUCCESS)
		close(t);
	if (try_mk(&hh, M2, LT_HOST, 0, HT_FD) == CUDA_SUCCESS) {
		if (rr("host", exp_fd(&t, hh)) == CUDA_SUCCESS) {
			fd_info("host", t);
			close(t);
		}
		cuMemRelease(hh);
	} else {
		ln("host", "not created");
	}
	if (try_mk(&hh, M2, LT_HOST, 0, HT_NONE) == CUDA_SUCCESS) {
		rr("host.no_types", exp_fd(&t, hh));
		cuMemRelease(hh);
	}
	if (try_mk(&hh, M2, LT_NUMA, 0, HT_FD) == CUDA_SUCCESS) {
		if (rr("host_numa", exp_fd(&t, hh)) == CUDA_SUCCESS)
			close(t);
		cuMemRelease(hh);
	}
	run("export.null_out");
	run("export.released");
	run("export.handle0");

	SEC("import");
	ra = rsv(M2);
	rb = rsv(4 * MIB);
	MUST(cuMemMap(ra, M2, 0, hfd, 0));
	MUST(acc(ra, M2, LT_DEV, 0, A_RW));
	MUST(wr(ra, M2, 0xA001, 0));
	if (rr("fd", imp_fd(&hi, fd)) == CUDA_SUCCESS) {
		CUmemAllocationProp p1, p2;

		ln("fd.handle", "%s", hi == hfd ? "same" : hi ? "different" : "0");
		props("fd.props", hi);
		memset(&p1, 0, sizeof(p1));
		memset(&p2, 0, sizeof(p2));
		cuMemGetAllocationPropertiesFromHandle(&p1, hfd);
		cuMemGetAllocationPropertiesFromHandle(&p2, hi);
		ln("fd.props_match", "%d", !memcmp(&p1, &p2, sizeof(p1)));
		if (rr("fd.map", cuMemMap(rb, M2, 0, hi, 0)) == CUDA_SUCCESS) {
			rr("fd.setaccess", acc(rb, M2, LT_DEV, 0, A_RW));
			chk("fd.read", rb, M2, 0xA001, 0);
			rr("fd.write", wr(rb, M2, 0xA002, 0));
			chk("fd.read_original", ra, M2, 0xA002, 0);
			retain("fd.retain", rb, hi, 1);
			retain("fd.retain_original_vs_import", ra, hi, 1);
			attrs("fd.pa", rb, rb);
			t = -7;
			if (rr("fd.reexport", exp_fd(&t, hi)) == CUDA_SUCCESS) {
				ln("fd.reexport.same_file", "%d", fstat(fd, &s1) == 0 &&
				   fstat(t, &s2) == 0 && s1.st_dev == s2.st_dev &&
				   s1.st_ino == s2.st_ino);
				close(t);
			}
		}
		if (rr("fd.map_second", cuMemMap(rb + M2, M2, 0, hi, 0)) == CUDA_SUCCESS)
			cuMemUnmap(rb + M2, M2);
	}
	t = -7;
	rr("type_none", cuMemImportFromShareableHandle(&g, VP((intptr_t)fd),
	   (CUmemAllocationHandleType)HT_NONE));
	rr("type_fd_fabric", cuMemImportFromShareableHandle(&g, VP((intptr_t)fd),
	   (CUmemAllocationHandleType)(HT_FD | HT_FABRIC)));
	/* The fd closed after import: the imported mapping stays. */
	close(fd);
	if (hi) {
		chk("after_close.read", rb, M2, 0xA002, 0);
		rr("after_close.release_import", cuMemRelease(hi));
		chk("after_close.release_import.read", rb, M2, 0xA002, 0);
	}
	cuMemUnmap(rb, M2);
	/* Two imports of one export (the fd's twin fd2). */
	if (fd2 >= 0) {
		if (rr("twice.first", imp_fd(&h2, fd2)) == CUDA_SUCCESS &&
		    rr("twice.second", imp_fd(&h3, fd2)) == CUDA_SUCCESS) {
			ln("twice.same", "%d", h2 == h3);
			ln("twice.same_as_original", "%d", h2 == hfd);
			rr("twice.release_first", cuMemRelease(h2));
			rr("twice.release_second", cuMemRelease(h3));
		}
		close(fd2);
	}
	cuMemUnmap(ra, M2);
	cuMemRelease(hfd);
	run("import.badfd");
	run("import.null_handle");
	run("import.fabric");
	run("import.win32");

	/* The exporter's handle released and unmapped before the import:
	 * does the fd keep the memory? */
	hx = mk(M2, LT_DEV, 0, HT_FD);
	rx = rsv(M2);
	MUST(cuMemMap(rx, M2, 0, hx, 0));
	MUST(acc(rx, M2, LT_DEV, 0, A_RW));
	MUST(wr(rx, M2, 0xA003, 0));
	MUST(exp_fd(&fdx, hx));
	MUST(cuMemUnmap(rx, M2));
	MUST(cuMemRelease(hx));
	g = 0;
	if (rr("orphan", imp_fd(&g, fdx)) == CUDA_SUCCESS) {
		props("orphan.props", g);
		rr("orphan.map", cuMemMap(rx, M2, 0, g, 0));
		rr("orphan.setaccess", acc(rx, M2, LT_DEV, 0, A_RW));
		chk("orphan.read", rx, M2, 0xA003, 0);
		cuMemUnmap(rx, M2);
		cuMemRelease(g);
	}
	close(fdx);
	/* The same with the fd closed too, through a dup. */
	hx = mk(M2, LT_DEV, 0, HT_FD);
	MUST(exp_fd(&fdx, hx));
	fdi = dup(fdx);
	close(fdx);
	MUST(cuMemRelease(hx));
	g = 0;
	if (rr("orphan_dup", imp_fd(&g, fdi)) == CUDA_SUCCESS)
		cuMemRelease(g);
	close(fdi);
	cuMemAddressFree(rx, M2);
	cuMemAddressFree(ra, M2);
	cuMemAddressFree(rb, 4 * MIB);
	cuMemRelease(hd);
}

/* ------------------------------------------------------------------ */
/* 13. Two processes. */

static void s_ipc(void)
{
	CUdeviceptr r = rsv(M2);
	H h = mk(M2, LT_DEV, 0, HT_FD);
	int fd = -1, cfd;
	char arg[64];

	SEC("ipc");
	MUST(cuMemMap(r, M2, 0, h, 0));
	MUST(acc(r, M2, LT_DEV, 0, A_RW));
	MUST(wr(r, M2, 0xB001, 0));
	MUST(cuCtxSynchronize());
	rr("export", exp_fd(&fd, h));
	cfd = dup(fd);		/* without FD_CLOEXEC */
	ln("dup_cloexec", "%d", !!(fcntl(cfd, F_GETFD) & FD_CLOEXEC));
	snprintf(arg, sizeof(arg), "%d:%u", cfd, 0xB001u);
	child("ipc.child", arg, cfd);
	/* The child wrote the pattern's complement in the high half. */
	chk("parent.read_child_write", r, M2, 0xB001u ^ 0xFFFF0000u, 0);
	cuMemUnmap(r, M2);
	cuMemRelease(h);
	close(fd);

	/* The parent lets go of everything before the child imports. */
	h = mk(M2, LT_DEV, 0, HT_FD);
	MUST(cuMemMap(r, M2, 0, h, 0));
	MUST(acc(r, M2, LT_DEV, 0, A_RW));
	MUST(wr(r, M2, 0xB002, 0));
	MUST(cuCtxSynchronize());
	rr("orphan.export", exp_fd(&fd, h));
	cfd = dup(fd);
	rr("orphan.unmap", cuMemUnmap(r, M2));
	rr("orphan.release", cuMemRelease(h));
	rr("orphan.free", cuMemAddressFree(r, M2));
	close(fd);
	snprintf(arg, sizeof(arg), "%d:%u", cfd, 0xB002u);
	/* the parent's last copy of the fd closes right after fork(), long
	 * before the child has initialised CUDA */
	child("ipc.orphan.child", arg, cfd);
}

/* ------------------------------------------------------------------ */
/* 14. Pointer attributes. */

static void s_pa(void)
{
	CUdeviceptr r = rsv(8 * MIB), r2, rh;
	H h = mkdev(4 * MIB), hf = mk(M2, LT_DEV, 0, HT_FD), hh = 0, h2 = mkdev(M2);
	unsigned long long v[3];
	CUpointer_attribute at[3] = {
		CU_POINTER_ATTRIBUTE_MAPPED, CU_POINTER_ATTRIBUTE_ACCESS_FLAGS,
		CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR,
	};
	void *data[3] = { &v[0], &v[1], &v[2] };
	char rel[64];

	SEC("pa");
	/* r: h at [2M, 6M) of an 8 MiB reservation. */
	MUST(cuMemMap(r + M2, 4 * MIB, 0, h, 0));
	attrs("noaccess", r + M2, r);
	attrs("noaccess.interior", r + 4 * MIB + 10, r);
	MUST(acc(r + M2, 4 * MIB, LT_DEV, 0, A_RW));
	attrs("rw", r + M2, r);
	attrs("rw.interior", r + 4 * MIB + 10, r);
	attrs("reserved", r, r);
	attrs("reserved.after", r + 6 * MIB + 100, r);
	MUST(acc(r + M2, 4 * MIB, LT_DEV, 0, A_R));
	attrs("read", r + M2, r);
	MUST(acc(r + M2, 4 * MIB, LT_DEV, 0, A_RW));
	memset(v, 0xAA, sizeof(v));
	if (rr("getattributes", cuPointerGetAttributes(3, at, data, r + 4 * MIB + 10)) ==
	    CUDA_SUCCESS) {
		ln("getattributes.mapped", "%llu", (v[0] >> 32) == 0xAAAAAAAAULL ?
		   v[0] & 0xffffffffULL : v[0]);
		ln("getattributes.access_flags", "%llu", (v[1] >> 32) == 0xAAAAAAAAULL ?
		   v[1] & 0xffffffffULL : v[1]);
		ln("getattributes.mapping_base", "%s", probe_rel(v[2], r, rel, sizeof(rel)));
	}
	memset(v, 0xAA, sizeof(v));
	if (rr("getattributes.reserved", cuPointerGetAttributes(3, at, data, r)) == CUDA_SUCCESS) {
		ln("getattributes.reserved.mapped", "%llu", (v[0] >> 32) == 0xAAAAAAAAULL ?
		   v[0] & 0xffffffffULL : v[0]);
		ln("getattributes.reserved.access_flags", "%llu", (v[1] >> 32) == 0xAAAAAAAAULL ?
		   v[1] & 0xffffffffULL : v[1]);
		ln("getattributes.reserved.mapping_base", "%s", probe_rel(v[2], r, rel, sizeof(rel)));
	}
	addr_range("addressrange.interior", r + 4 * MIB + 10, r);
	addr_range("addressrange.start", r + M2, r);
	addr_range("addressrange.reserved", r, r);
	addr_range("addressrange.reserved_after", r + 6 * MIB, r);

	/* The second half of h mapped again at r + 6M (offset 2M): a mapping
	 * of a part of an allocation. */
	if (rr("offset2m.map", cuMemMap(r + 6 * MIB, M2, M2, h, 0)) == CUDA_SUCCESS) {
		MUST(acc(r + 6 * MIB, M2, LT_DEV, 0, A_RW));
		attrs("offset2m", r + 6 * MIB + 10, r);
		addr_range("addressrange.offset2m", r + 6 * MIB + 10, r);
		ln("alias.buffer_id_same", "%d", attr_raw(7, r + M2) == attr_raw(7, r + 6 * MIB));
		ln("alias.block_id_same", "%d", attr_raw(20, r + M2) == attr_raw(20, r + 6 * MIB));
	}
	ln("alias.interior.buffer_id_same", "%d", attr_raw(7, r + M2) == attr_raw(7, r + 4 * MIB));
	/* h mapped whole a second time, in another reservation. */
	r2 = rsv(4 * MIB);
	if (rr("alias.map", cuMemMap(r2, 4 * MIB, 0, h, 0)) == CUDA_SUCCESS) {
		MUST(acc(r2, 4 * MIB, LT_DEV, 0, A_RW));
		ln("alias.whole.buffer_id_same", "%d", attr_raw(7, r + M2) == attr_raw(7, r2));
		ln("alias.whole.block_id_same", "%d", attr_raw(20, r + M2) == attr_raw(20, r2));
		cuMemUnmap(r2, 4 * MIB);
	}
	cuMemAddressFree(r2, 4 * MIB);
	/* Another allocation right after: same buffer id? */
	r2 = rsv(M2);
	MUST(cuMemMap(r2, M2, 0, h2, 0));
	MUST(acc(r2, M2, LT_DEV, 0, A_RW));
	ln("other_alloc.buffer_id_same", "%d", attr_raw(7, r + M2) == attr_raw(7, r2));
	ln("other_alloc.block_id_same", "%d", attr_raw(20, r + M2) == attr_raw(20, r2));
	cuMemUnmap(r2, M2);
	/* Exportable. */
	MUST(cuMemMap(r2, M2, 0, hf, 0));
	MUST(acc(r2, M2, LT_DEV, 0, A_RW));
	attrs("posix_fd", r2, r2);
	cuMemUnmap(r2, M2);
	/* Host-located, host and device access. */
	if (rr("host.create", try_mk(&hh, M2, LT_HOST, 0, HT_NONE)) == CUDA_SUCCESS) {
		rh = rsv(M2);
		rr("host.map", cuMemMap(rh, M2, 0, hh, 0));
		rr("host.setaccess_device", acc(rh, M2, LT_DEV, 0, A_RW));
		rr("host.setaccess_host", acc(rh, M2, LT_HOST, 0, A_RW));
		attrs("host", rh, rh);
		addr_range("addressrange.host", rh + 10, rh);
		addr_range("addressrange.host.start", rh, rh);
		cuMemUnmap(rh, M2);
		cuMemAddressFree(rh, M2);
		cuMemRelease(hh);
	}
	if (rr("host_numa.create", try_mk(&hh, M2, LT_NUMA, 0, HT_NONE)) == CUDA_SUCCESS) {
		rh = rsv(M2);
		rr("host_numa.map", cuMemMap(rh, M2, 0, hh, 0));
		rr("host_numa.setaccess_device", acc(rh, M2, LT_DEV, 0, A_RW));
		rr("host_numa.setaccess_host_numa", acc(rh, M2, LT_NUMA, 0, A_RW));
		attrs("host_numa", rh, rh);
		addr_range("addressrange.host_numa", rh + 10, rh);
		cuMemUnmap(rh, M2);
		cuMemAddressFree(rh, M2);
		cuMemRelease(hh);
	}
	cuMemUnmap(r + M2, 4 * MIB);
	cuMemUnmap(r + 6 * MIB, M2);
	attrs("after_unmap", r + M2, r);
	cuMemAddressFree(r, 8 * MIB);
	attrs("after_free", r + M2, r);
	cuMemAddressFree(r2, M2);
	cuMemRelease(h);
	cuMemRelease(hf);
	cuMemRelease(h2);
}

/* ------------------------------------------------------------------ */
/* 15. Copies and sets. */

static void s_copy(void)
{
	CUdeviceptr r = rsv(4 * MIB), r2 = rsv(4 * MIB), d = 0;
	H h = mkdev(4 * MIB);

	SEC("copy");
	MUST(cuMemMap(r, 4 * MIB, 0, h, 0));
	rr("alias.map", cuMemMap(r2, 4 * MIB, 0, h, 0));
	MUST(acc(r, 4 * MIB, LT_DEV, 0, A_RW));
	rr("alias.setaccess", acc(r2, 4 * MIB, LT_DEV, 0, A_RW));
	rr("rw.htod", wr(r, 4 * MIB, 0xC001, 0));
	chk("rw.dtoh", r, 4 * MIB, 0xC001, 0);
	chk("rw.dtoh.interior", r + M2 + 4096, 4096, 0xC001, (M2 + 4096) / 4);
	rr("memsetd32", cuMemsetD32(r, 0xC0C0C0C0u, MIB));
	memset(hb2, 0, 4 * MIB);
	if (rr("memsetd32.read", cuMemcpyDtoH(hb2, r, 4 * MIB)) == CUDA_SUCCESS)
		ln("memsetd32.data", "%d", all32(hb2, 4 * MIB, 0xC0C0C0C0u));
	rr("memsetd8", cuMemsetD8(r + 1, 0x5A, 4096));
	memset(hb2, 0, 8192);
	if (rr("memsetd8.read", cuMemcpyDtoH(hb2, r, 8192)) == CUDA_SUCCESS)
		ln("memsetd8.data", "%d", hb2[0] == 0xC0 && hb2[1] == 0x5A && hb2[4096] == 0x5A &&
		   hb2[4097] == 0xC0);
	rr("memsetd32async", cuMemsetD32Async(r, 0x12345678, MIB, s));
	rr("memsetd32async.sync", cuStreamSynchronize(s));
	pat(hb, 4 * MIB, 0xC002, 0);
	rr("htod_async", cuMemcpyHtoDAsync(r, hb, 4 * MIB, s));
	rr("htod_async.sync", cuStreamSynchronize(s));
	chk("htod_async.read", r, 4 * MIB, 0xC002, 0);
	pat(hb, M2, 0xC003, 0);
	rr("generic_htod", cuMemcpy(r, (uintptr_t)hb, M2));
	chk("generic_htod.read", r, M2, 0xC003, 0);
	/* DtoD between two aliases of one allocation. */
	MUST(wr(r, M2, 0xC004, 0));
	rr("dtod_alias", cuMemcpyDtoD(r2 + M2, r, M2));
	chk("dtod_alias.read", r + M2, M2, 0xC004, 0);
	rr("dtod_alias_overlap", cuMemcpyDtoD(r2 + 4096, r, 8192));
	rr("dtod_alias_overlap.sync", cuCtxSynchronize());
	MUST(cuMemAlloc(&d, M2));
	MUST(wr(d, M2, 0xC005, 0));
	rr("dtod_from_memalloc", cuMemcpyDtoD(r, d, M2));
	chk("dtod_from_memalloc.read", r2, M2, 0xC005, 0);
	rr("dtod_to_memalloc", cuMemcpyDtoD(d, r + M2, M2));
	chk("dtod_to_memalloc.read", d, M2, 0xC004, 0);
	cuMemFree(d);
	cuMemUnmap(r, 4 * MIB);
	cuMemUnmap(r2, 4 * MIB);
	cuMemAddressFree(r, 4 * MIB);
	cuMemAddressFree(r2, 4 * MIB);
	cuMemRelease(h);
	run("copy.noaccess.htod");
	run("copy.noaccess.dtoh");
	run("copy.noaccess.memset");
	run("copy.read.dtoh");
	run("copy.read.htod");
	run("copy.read.memset");
	run("copy.read.dtod");
	run("copy.protnone.htod");
	run("copy.protnone.dtoh");
	run("copy.cross");
	run("copy.hole.htod");
	run("copy.hole.dtoh");
	run("copy.hole.memset");
	run("copy.hole.dtod");
}

/* ------------------------------------------------------------------ */
/* 20. Device attributes. */

static void s_devattr(void)
{
	static const int da[] = { 102, 103, 104, 105, 107, 110, 112 };
	char name[128];

	SEC("devattr");
	for (int i = 0; i < (int)(sizeof(da) / sizeof(da[0])) + 21; i++) {
		int a = i < (int)(sizeof(da) / sizeof(da[0])) ? da[i] :
			115 + i - (int)(sizeof(da) / sizeof(da[0]));
		int v = -7;

		if (rr(fk("%d", a), cuDeviceGetAttribute(&v, (CUdevice_attribute)a, 0)) ==
		    CUDA_SUCCESS)
			envl(fk("%d.value", a), "%d", v);
	}
	if (cuDeviceGetName(name, sizeof(name), 0) == CUDA_SUCCESS)
		envl("device_name", "%s", name);
	envl("numa_nodes", "%d", probe_numa_nodes());
}

int main(int argc, char **argv)
{
	hb = malloc(8 * MIB);
	hb2 = malloc(8 * MIB);
	if (!hb || !hb2)
		return 3;
	memset(hb, 0, 8 * MIB);
	memset(hb2, 0, 8 * MIB);
	if (argc >= 3 && !strcmp(argv[1], "case")) {
		alarm(60);
		SEC(argv[2]);
		MUST(cuInit(0));
		MUST(cuDevicePrimaryCtxRetain(&ctx, 0));
		MUST(cuCtxSetCurrent(ctx));
		MUST(cuStreamCreate(&s, 0));
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			if (strcmp(cases[i].name, argv[2]))
				continue;
			cases[i].fn(cases[i].arg ? cases[i].arg : argc > 3 ? argv[3] : "");
			fflush(stdout);
			_exit(0);
		}
		fprintf(stderr, "unknown case %s\n", argv[2]);
		return 1;
	}
	MUST(cuInit(0));
	MUST(cuDevicePrimaryCtxRetain(&ctx, 0));
	MUST(cuCtxSetCurrent(ctx));
	MUST(cuStreamCreate(&s, 0));

	s_devattr();
	s_gran();
	s_reserve();
	s_free();
	s_create();
	s_map();
	s_unmap();
	s_setaccess();
	s_release();
	s_props();
	s_export_import();
	s_ipc();
	s_pa();
	s_copy();
	SEC("advise");
	run("advise");
	SEC("host");
	run("host.cpu");
	run("host_numa.cpu");
	run("host.devonly.read");
	run("host.noaccess.read");
	run("host.readonly.write");
	run("touch.dev.read");
	run("touch.dev.write");
	run("touch.dev.noaccess.read");
	run("touch.dev.hostaccess.read");
	run("touch.reserved.read");
	run("maparray.null");
	run("maparray.count0");
	run("maparray.zeroed");
	/* The parent's context after all of it. */
	SEC("end");
	synced("");
	return 0;
}
