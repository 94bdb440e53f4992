/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * probe.h - helpers of the real-driver probes.
 *
 * A probe is a plain C program written against the cuda.h (and, for the
 * runtime probes, cuda_runtime_api.h) subset that libuvm implements.  The
 * same source builds against NVIDIA's headers and libcuda (recorded once on
 * a real GPU, results under ../results/) and against libuvm's headers (the
 * "realdriver" suite replays it and compares).
 *
 * Output: one observation per line, "key = value".  Keys starting with
 * "env." describe the machine (GPU name, memory sizes, versions) and are not
 * compared.  Values never contain raw addresses: pointers are printed
 * relative to something the probe knows ("base", "base+4096", "null",
 * "other").
 */
#ifndef PROBE_H
#define PROBE_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cuda.h>

#define PROBE_MIB (1ULL << 20)

static inline void probe_line(const char *key, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static inline void probe_line(const char *key, const char *fmt, ...)
{
	va_list ap;

	printf("%s = ", key);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/* "key = <number> <name>" for a CUresult. */
static inline void probe_res(const char *key, CUresult r)
{
	const char *name = NULL;

	if (cuGetErrorName(r, &name) != CUDA_SUCCESS || !name)
		name = "?";
	probe_line(key, "%d %s", (int)r, name);
}

/* Record a call: PR("ADV-03", cuMemAdvise(...)); */
#define PR(key, call) probe_res(key, (call))

/* Keys built on the fly: PRF(r, "RA.%d.size%zu", a, n). */
static inline void probe_resf(CUresult r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline void probe_resf(CUresult r, const char *fmt, ...)
{
	char key[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(key, sizeof(key), fmt, ap);
	va_end(ap);
	probe_res(key, r);
}

static inline void probe_linef(const char *val, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline void probe_linef(const char *val, const char *fmt, ...)
{
	char key[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(key, sizeof(key), fmt, ap);
	va_end(ap);
	probe_line(key, "%s", val);
}

/* Abort the probe when setup fails: the rest would be meaningless. */
#define MUST(call) do {							\
	CUresult must_r_ = (call);					\
	if (must_r_ != CUDA_SUCCESS) {					\
		probe_res("FATAL " #call, must_r_);			\
		exit(2);						\
	}								\
} while (0)

/* Describe an address relative to a known allocation. */
static inline const char *probe_rel(unsigned long long v, unsigned long long base,
			     char *buf, size_t len)
{
	if (v == 0)
		return "null";
	if (base && v >= base && v - base < (1ULL << 32)) {
		if (v == base)
			return "base";
		snprintf(buf, len, "base+%llu", v - base);
		return buf;
	}
	if (base && v < base && base - v < (1ULL << 32)) {
		snprintf(buf, len, "base-%llu", base - v);
		return buf;
	}
	if (v < 65536) {
		snprintf(buf, len, "%llu", v);
		return buf;
	}
	return "other";
}

/* Is @p inside an allocation of the driver? */
static inline int probe_is_alloc(CUdeviceptr p)
{
	CUdeviceptr b;
	size_t s;

	return cuMemGetAddressRange(&b, &s, p) == CUDA_SUCCESS;
}

/* Number of host NUMA nodes with memory ids 0..n-1 as the kernel lists them. */
static inline int probe_numa_nodes(void)
{
	FILE *f = fopen("/sys/devices/system/node/has_memory", "r");
	int a = 0, b = -1, n;

	if (!f)
		return 1;
	n = fscanf(f, "%d-%d", &a, &b);
	fclose(f);
	if (n == 2)
		return b + 1;
	return n == 1 ? a + 1 : 1;
}

#ifdef __CUDA_RUNTIME_API_H__
/* Runtime probes (cuda_runtime_api.h included first): "key = <number> <name>"
 * for a cudaError_t; RR("key", cudaCall(...)). */
static inline void rres(const char *key, cudaError_t e)
{
	const char *name = cudaGetErrorName(e);

	probe_line(key, "%d %s", (int)e, name ? name : "(null)");
}
#define RR(key, call) rres(key, (call))
#endif

/*
 * fk() - a formatted key or value, in one of 32 rotating buffers (enough for
 * the keys of one observation and its arguments).
 */
static inline const char *fk(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline const char *fk(const char *fmt, ...)
{
	static char buf[32][192];
	static unsigned int n;
	char *b = buf[n++ % 32];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b, sizeof(buf[0]), fmt, ap);
	va_end(ap);
	return b;
}

/*
 * probe_case() - run "@argv0 case @arg [@arg2]" (this program) in a process
 * of its own, closing @close_fd (if >= 0) in this one once forked, and
 * print "@key = exit N" (or "signal N", "status N", "fork failed"): a case
 * that may crash the driver or break the context.
 */
static inline void probe_case(const char *argv0, const char *key, const char *arg,
			      const char *arg2, int close_fd)
{
	char v[64];
	pid_t pid;
	int st = 0;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid == 0) {
		execl("/proc/self/exe", argv0, "case", arg, arg2, (char *)NULL);
		_exit(127);
	}
	if (close_fd >= 0)
		close(close_fd);
	if (pid < 0) {
		probe_line(key, "fork failed");
		return;
	}
	waitpid(pid, &st, 0);
	if (WIFEXITED(st))
		snprintf(v, sizeof(v), "exit %d", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		snprintf(v, sizeof(v), "signal %d", WTERMSIG(st));
	else
		snprintf(v, sizeof(v), "status %d", st);
	probe_line(key, "%s", v);
}

/* cuArray3DCreate of a descriptor; *@rp (may be NULL) gets its result. */
static inline CUarray mk3(size_t w, size_t h, size_t d, CUarray_format f, unsigned int ch,
			  unsigned int flags, CUresult *rp)
{
	CUDA_ARRAY3D_DESCRIPTOR ad;
	CUarray a = NULL;
	CUresult r;

	memset(&ad, 0, sizeof(ad));
	ad.Width = w;
	ad.Height = h;
	ad.Depth = d;
	ad.Format = f;
	ad.NumChannels = ch;
	ad.Flags = flags;
	r = cuArray3DCreate(&a, &ad);
	if (rp)
		*rp = r;
	return r == CUDA_SUCCESS ? a : NULL;
}

#endif /* PROBE_H */
