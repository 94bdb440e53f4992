// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * probe_copy - what probe_devmem left open about device memory, page-locked
 * and registered host memory, copies and sets: placement and alignment of
 * small cuMemAlloc requests, cuMemGetInfo, every pointer attribute of each
 * kind of memory, host flags and device pointers of every kind, registration
 * edge cases, which pointer kinds each copy and set accepts (with the data
 * checked), and the runtime equivalents.
 */
#include <sys/mman.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "probe.h"

#define KIB 1024ULL

static CUcontext ctx;

/* Attributes 1..21 of a pointer, as probe_mem prints them. */
static void attr_all(const char *what, CUdeviceptr ptr, unsigned long long base)
{
	for (int a = 1; a <= 21; a++) {
		unsigned char b1[32];
		unsigned long long v = 0;
		char key[128], rel[64];
		int width = 0;
		CUresult r;

		memset(b1, 0xAA, sizeof(b1));
		r = cuPointerGetAttribute(b1, (CUpointer_attribute)a, ptr);
		snprintf(key, sizeof(key), "cp.pa.%s.%d", what, a);
		probe_res(key, r);
		for (int i = 0; i < 32; i++)
			if (b1[i] != 0xAA)
				width = i + 1;
		if (r != CUDA_SUCCESS)
			continue;
		snprintf(key, sizeof(key), "cp.pa.%s.%d.width", what, a);
		probe_line(key, "%d", width);
		if (width == 0)
			continue;
		memcpy(&v, b1, width < 8 ? width : 8);
		if (width == 4)
			v &= 0xffffffffULL;
		snprintf(key, sizeof(key), "cp.pa.%s.%d.value", what, a);
		if (a == CU_POINTER_ATTRIBUTE_BUFFER_ID || a == CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID)
			probe_line(key, "%s", v ? "nonzero" : "0");
		else if (a == CU_POINTER_ATTRIBUTE_CONTEXT)
			probe_line(key, "%s", v == (uintptr_t)ctx ? "ctx" : v ? "other" : "null");
		else if (a == CU_POINTER_ATTRIBUTE_P2P_TOKENS)
			probe_line(key, "%s", "tokens");
		else if (a == CU_POINTER_ATTRIBUTE_MAPPING_SIZE)
			probe_line(key, "%llu", v);
		else
			probe_line(key, "%s", probe_rel(v, base, rel, sizeof(rel)));
	}
}

static void addr_range(const char *key, CUdeviceptr ptr, CUdeviceptr base)
{
	CUdeviceptr b = 0;
	size_t s = 0;
	char k[128], rel[64];

	PR(key, cuMemGetAddressRange(&b, &s, ptr));
	snprintf(k, sizeof(k), "%s.base", key);
	probe_line(k, "%s", probe_rel(b, base, rel, sizeof(rel)));
	snprintf(k, sizeof(k), "%s.size", key);
	probe_line(k, "%zu", s);
}

static void host_flags(const char *key, void *p)
{
	unsigned int f = 77;
	char k[128];

	PR(key, cuMemHostGetFlags(&f, p));
	snprintf(k, sizeof(k), "%s.value", key);
	probe_line(k, "%u", f);
}

static void host_devptr(const char *key, void *p, void *base)
{
	CUdeviceptr d = 0;
	char k[128], rel[64];

	PR(key, cuMemHostGetDevicePointer(&d, p, 0));
	snprintf(k, sizeof(k), "%s.value", key);
	probe_line(k, "%s", probe_rel(d, (uintptr_t)base, rel, sizeof(rel)));
}

/* Fill n bytes of device-visible memory through a copy and check them. */
static int dev_fill(CUdeviceptr d, unsigned char v, size_t n)
{
	unsigned char *h = malloc(n);
	CUresult r;

	memset(h, v, n);
	r = cuMemcpyHtoD(d, h, n);
	free(h);
	return r == CUDA_SUCCESS;
}

static int dev_check(CUdeviceptr d, unsigned char v, size_t n)
{
	unsigned char *h = malloc(n);
	int ok;

	memset(h, ~v, n);
	ok = cuMemcpyDtoH(h, d, n) == CUDA_SUCCESS;
	for (size_t i = 0; ok && i < n; i++)
		ok = h[i] == v;
	free(h);
	return ok;
}

static int buf_is(const void *p, unsigned char v, size_t n)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++)
		if (c[i] != v)
			return 0;
	return 1;
}

/* Small cuMemAlloc requests: where they land and how they are aligned. */
static void probe_placement(void)
{
	static const size_t sizes[] = { 1, 1, 100, 255, 256, 257, 511, 512, 513, 1000, 4096,
					65536, 1 << 20, 2 << 20, (2 << 20) + 1, 3 << 20 };
	enum { N = sizeof(sizes) / sizeof(sizes[0]) };
	CUdeviceptr d[N], base = 0, prev = 0;
	size_t fr0 = 0, fr1 = 0, tot = 0;
	int minlog = 64;

	PR("cp.meminfo.0", cuMemGetInfo(&fr0, &tot));
	for (int i = 0; i < N; i++) {
		char key[96], rel[64];
		int tz;

		d[i] = 0;
		snprintf(key, sizeof(key), "cp.place.%d.%zu", i, sizes[i]);
		PR(key, cuMemAlloc(&d[i], sizes[i]));
		if (!base)
			base = d[i];
		tz = d[i] ? __builtin_ctzll(d[i]) : -1;
		if (tz < minlog)
			minlog = tz;
		snprintf(key, sizeof(key), "cp.place.%d.align256", i);
		probe_line(key, "%d", tz >= 8);
		snprintf(key, sizeof(key), "env.cp.place.%d.log2", i);
		probe_line(key, "%d", tz);
		snprintf(key, sizeof(key), "env.cp.place.%d.at", i);
		probe_line(key, "%s", probe_rel(d[i], base, rel, sizeof(rel)));
		snprintf(key, sizeof(key), "env.cp.place.%d.after_prev", i);
		probe_line(key, "%s", prev ? probe_rel(d[i], prev, rel, sizeof(rel)) : "-");
		prev = d[i];
		snprintf(key, sizeof(key), "cp.place.%d.ar", i);
		addr_range(key, d[i] + sizes[i] - 1, d[i]);
		if (i == 0) {
			size_t f = 0;

			cuMemGetInfo(&f, &tot);
			probe_line("env.cp.meminfo.after_1byte_kib", "%lld",
				   ((long long)fr0 - (long long)f) / 1024);
		}
	}
	probe_line("env.cp.place.min_log2", "%d", minlog);
	PR("cp.meminfo.1", cuMemGetInfo(&fr1, &tot));
	probe_line("env.cp.meminfo.used_by_all_kib", "%lld", ((long long)fr0 - (long long)fr1) / 1024);
	probe_line("cp.meminfo.decreased", "%d", fr1 < fr0);
	{
		CUdeviceptr b = 0;
		size_t f2 = 0;

		PR("cp.alloc.64m", cuMemAlloc(&b, 64 << 20));
		cuMemGetInfo(&f2, &tot);
		probe_line("cp.meminfo.64m.at_least", "%d", fr1 - f2 >= (64 << 20));
		probe_line("env.cp.meminfo.64m.kib", "%lld", ((long long)fr1 - (long long)f2) / 1024);
		PR("cp.free.64m", cuMemFree(b));
		cuMemGetInfo(&f2, &tot);
		probe_line("env.cp.meminfo.64m.back_kib", "%lld", ((long long)f2 - (long long)fr1) / 1024);
	}
	/* Interior pointers: free and attributes. */
	PR("cp.free.interior", cuMemFree(d[9] + 8));
	attr_all("dev1000", d[9], d[9]);
	attr_all("dev1000.interior", d[9] + 999, d[9]);
	attr_all("dev1000.end", d[9] + 1000, d[9]);
	attr_all("dev3m", d[N - 1] + 12345, d[N - 1]);
	{
		unsigned long long b1 = 0, b2 = 0;

		cuPointerGetAttribute(&b1, CU_POINTER_ATTRIBUTE_BUFFER_ID, d[0]);
		cuPointerGetAttribute(&b2, CU_POINTER_ATTRIBUTE_BUFFER_ID, d[1]);
		probe_line("cp.bid.small_differ", "%d", b1 != b2);
		cuPointerGetAttribute(&b1, CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID, d[0]);
		cuPointerGetAttribute(&b2, CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID, d[1]);
		probe_line("cp.blockid.small_differ", "%d", b1 != b2);
	}
	/* A copy and a set running from one small allocation into the next. */
	{
		CUdeviceptr a = d[4], b = d[5];
		unsigned char *h = calloc(1, 8192);

		if (b > a && b - a < 4096) {
			PR("cp.straddle.next.htod", cuMemcpyHtoD(a, h, (b - a) + 16));
			PR("cp.straddle.next.memset", cuMemsetD8(a, 1, (b - a) + 16));
			PR("cp.straddle.next.sync", cuCtxSynchronize());
		} else {
			probe_line("cp.straddle.next.htod", "n/a");
		}
		free(h);
	}
	/* Too big. */
	{
		CUdeviceptr b = 0;

		PR("cp.alloc.huge", cuMemAlloc(&b, 1ULL << 50));
		PR("cp.alloc.sizemax", cuMemAlloc(&b, (size_t)-1));
		PR("cp.alloc.more_than_total", cuMemAlloc(&b, tot + (2 << 20)));
	}
	for (int i = 0; i < N; i++)
		if (d[i])
			cuMemFree(d[i]);
}

/* Page-locked and registered host memory. */
static void probe_host(CUdeviceptr dev, CUdeviceptr managed, char *heap)
{
	const size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	void *h1 = NULL, *h2 = NULL, *h0 = (void *)1;
	char *reg = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *ro = mmap(NULL, 1 << 16, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char rel[64];

	PR("cp.allochost.0", cuMemAllocHost(&h0, 0));
	probe_line("cp.allochost.0.ptr", "%s", h0 ? (h0 == (void *)1 ? "untouched" : "set") : "null");
	h0 = (void *)1;
	PR("cp.hostalloc.0", cuMemHostAlloc(&h0, 0, 0));
	probe_line("cp.hostalloc.0.ptr", "%s", h0 ? (h0 == (void *)1 ? "untouched" : "set") : "null");
	PR("cp.allochost.1000a", cuMemAllocHost(&h1, 1000));
	PR("cp.allochost.1000b", cuMemAllocHost(&h2, 1000));
	probe_line("env.cp.allochost.1000b.at", "%s",
		   probe_rel((uintptr_t)h2, (uintptr_t)h1, rel, sizeof(rel)));
	probe_line("env.cp.allochost.log2", "%d", __builtin_ctzll((uintptr_t)h2));
	probe_line("cp.allochost.pagealigned", "%d",
		   ((uintptr_t)h1 % pg) == 0 && ((uintptr_t)h2 % pg) == 0);
	attr_all("host1000", (uintptr_t)h1, (uintptr_t)h1);
	attr_all("host1000.end", (uintptr_t)h1 + 1000, (uintptr_t)h1);
	addr_range("cp.allochost.ar", (uintptr_t)h1 + 999, (uintptr_t)h1);
	host_flags("cp.hostflags.allochost.interior", (char *)h1 + 10);
	host_flags("cp.hostflags.allochost.end", (char *)h1 + 1000);
	host_devptr("cp.devptr.allochost.interior", (char *)h1 + 10, h1);
	PR("cp.allochost.register", cuMemHostRegister(h1, 1000, 0));
	PR("cp.allochost.unregister", cuMemHostUnregister(h1));
	PR("cp.allochost.free_as_device", cuMemFree((uintptr_t)h1));
	PR("cp.allochost.free", cuMemFreeHost(h1));
	PR("cp.allochost.free2", cuMemFreeHost(h2));
	PR("cp.allochost.huge", cuMemAllocHost(&h1, 1ULL << 50));
	h1 = NULL;
	PR("cp.hostalloc.huge", cuMemHostAlloc(&h1, 1ULL << 50, 0));
	for (unsigned int f = 0; f < 8; f++) {
		h1 = NULL;
		probe_resf(cuMemHostAlloc(&h1, 1000, f),
			   "cp.hostalloc.flags%u", f);
		if (!h1)
			continue;
		{
			unsigned int fl = 77;
			char k[64];

			cuMemHostGetFlags(&fl, h1);
			snprintf(k, sizeof(k), "cp.hostalloc.flags%u.get", f);
			probe_line(k, "%u", fl);
		}
		cuMemFreeHost(h1);
	}

	/* Flags and device pointers of every kind of memory. */
	host_flags("cp.hostflags.device", (void *)(uintptr_t)dev);
	host_flags("cp.hostflags.managed", (void *)(uintptr_t)managed);
	host_flags("cp.hostflags.malloc", heap);
	host_devptr("cp.devptr.device", (void *)(uintptr_t)dev, (void *)(uintptr_t)dev);
	host_devptr("cp.devptr.managed", (void *)(uintptr_t)managed, (void *)(uintptr_t)managed);
	host_devptr("cp.devptr.malloc", heap, heap);

	/* Registrations. */
	for (unsigned int f = 0; f < 16; f++) {
		CUresult r = cuMemHostRegister(reg, 1 << 16, f);
		char k[64];

		snprintf(k, sizeof(k), "cp.reg.flags%u", f);
		probe_res(k, r);
		if (r != CUDA_SUCCESS)
			continue;
		snprintf(k, sizeof(k), "cp.reg.flags%u.getflags", f);
		host_flags(k, reg + 100);
		snprintf(k, sizeof(k), "cp.reg.flags%u.unregister", f);
		PR(k, cuMemHostUnregister(reg));
	}
	PR("cp.reg.unaligned", cuMemHostRegister(reg + 100, 1000, 0));
	attr_all("reg.unaligned", (uintptr_t)reg + 100, (uintptr_t)reg + 100);
	attr_all("reg.unaligned.before", (uintptr_t)reg + 50, (uintptr_t)reg + 100);
	attr_all("reg.unaligned.after", (uintptr_t)reg + 1100, (uintptr_t)reg + 100);
	addr_range("cp.reg.unaligned.ar", (uintptr_t)reg + 500, (uintptr_t)reg + 100);
	host_flags("cp.reg.unaligned.flags.samepage_outside", reg + 2000);
	host_devptr("cp.reg.unaligned.devptr.interior", reg + 500, reg + 100);
	host_devptr("cp.reg.unaligned.devptr.samepage_outside", reg + 2000, reg + 100);
	PR("cp.reg.samepage.other_bytes", cuMemHostRegister(reg + 2000, 100, 0));
	PR("cp.reg.samepage.other_bytes.unregister", cuMemHostUnregister(reg + 2000));
	PR("cp.reg.nextpage", cuMemHostRegister(reg + pg, 100, 0));
	PR("cp.reg.nextpage.unregister", cuMemHostUnregister(reg + pg));
	PR("cp.reg.unaligned.freehost", cuMemFreeHost(reg + 100));
	PR("cp.reg.unaligned.memfree", cuMemFree((uintptr_t)reg + 100));
	PR("cp.reg.unaligned.unregister", cuMemHostUnregister(reg + 100));
	PR("cp.reg.device", cuMemHostRegister((void *)(uintptr_t)dev, 4096, 0));
	PR("cp.reg.readonly_mem", cuMemHostRegister(ro, 4096, 0));
	cuMemHostUnregister(ro);
	PR("cp.reg.readonly_mem.ro", cuMemHostRegister(ro, 4096, CU_MEMHOSTREGISTER_READ_ONLY));
	attr_all("reg.ro", (uintptr_t)ro, (uintptr_t)ro);
	host_flags("cp.reg.readonly_mem.ro.getflags", ro);
	{
		CUdeviceptr d2 = 0;

		/* Writes into it: probe_null (they may break the context). */
		MUST(cuMemAlloc(&d2, 4096));
		PR("cp.reg.ro.memcpy_from", cuMemcpyDtoD(d2, (uintptr_t)ro, 4096));
		PR("cp.reg.ro.memcpy_from.sync", cuCtxSynchronize());
		cuMemFree(d2);
	}
	PR("cp.reg.ro.unregister", cuMemHostUnregister(ro));
	/* Registered memory unmapped behind the driver's back, then used. */
	{
		char *g = mmap(NULL, 1 << 16, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);

		PR("cp.reg.gone", cuMemHostRegister(g, 1 << 16, 0));
		munmap(g, 1 << 16);
		PR("cp.reg.gone.unregister", cuMemHostUnregister(g));
	}
	munmap(ro, 1 << 16);
	munmap(reg, 1 << 20);
}

/* Which pointer kinds each copy and set accepts; the data checked. */
static void probe_copies(CUstream s)
{
	const size_t n = 64 * KIB;
	CUdeviceptr d = 0, d2 = 0, m = 0;
	void *pin = NULL;
	char *heap = malloc(n), *heap2 = malloc(n);
	char *reg = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	MUST(cuMemAlloc(&d, n));
	MUST(cuMemAlloc(&d2, n));
	MUST(cuMemAllocManaged(&m, n, CU_MEM_ATTACH_GLOBAL));
	MUST(cuMemAllocHost(&pin, n));
	MUST(cuMemHostRegister(reg, n, 0));

	/* Every "device" side of cuMemcpyHtoD, with pageable source. */
	memset(heap, 0x31, n);
	PR("cp.htod.dev", cuMemcpyHtoD(d, heap, n));
	probe_line("cp.htod.dev.data", "%d", dev_check(d, 0x31, n));
	PR("cp.htod.managed", cuMemcpyHtoD(m, heap, n));
	probe_line("cp.htod.managed.data", "%d", buf_is((void *)(uintptr_t)m, 0x31, n));
	PR("cp.htod.pinned", cuMemcpyHtoD((uintptr_t)pin, heap, n));
	probe_line("cp.htod.pinned.data", "%d", buf_is(pin, 0x31, n));
	PR("cp.htod.registered", cuMemcpyHtoD((uintptr_t)reg, heap, n));
	probe_line("cp.htod.registered.data", "%d", buf_is(reg, 0x31, n));
	/* Every "host" side of cuMemcpyHtoD (device memory: probe_null). */
	PR("cp.htod.src_pinned", cuMemcpyHtoD(d2, pin, n));
	PR("cp.htod.src_managed", cuMemcpyHtoD(d2, (void *)(uintptr_t)m, n));

	/* cuMemcpyDtoH: every source kind, every destination kind. */
	dev_fill(d, 0x42, n);
	memset(heap2, 0, n);
	PR("cp.dtoh.dev", cuMemcpyDtoH(heap2, d, n));
	probe_line("cp.dtoh.dev.data", "%d", buf_is(heap2, 0x42, n));
	PR("cp.dtoh.managed", cuMemcpyDtoH(heap2, m, n));
	PR("cp.dtoh.pinned", cuMemcpyDtoH(heap2, (uintptr_t)pin, n));
	PR("cp.dtoh.dst_managed", cuMemcpyDtoH((void *)(uintptr_t)m, d, n));
	probe_line("cp.dtoh.dst_managed.data", "%d", buf_is((void *)(uintptr_t)m, 0x42, n));
	PR("cp.dtoh.dst_pinned", cuMemcpyDtoH(pin, d, n));
	probe_line("cp.dtoh.dst_pinned.data", "%d", buf_is(pin, 0x42, n));
	PR("cp.dtoh.oob", cuMemcpyDtoH(heap2, d, n + 1));
	PR("cp.dtoh.oob_offset", cuMemcpyDtoH(heap2, d + 1, n));

	/* cuMemcpyDtoD. */
	dev_fill(d, 0x53, n);
	PR("cp.dtod.dev", cuMemcpyDtoD(d2, d, n));
	PR("cp.dtod.dev.sync", cuCtxSynchronize());
	probe_line("cp.dtod.dev.data", "%d", dev_check(d2, 0x53, n));
	PR("cp.dtod.to_managed", cuMemcpyDtoD(m, d, n));
	PR("cp.dtod.to_managed.sync", cuCtxSynchronize());
	probe_line("cp.dtod.to_managed.data", "%d", buf_is((void *)(uintptr_t)m, 0x53, n));
	PR("cp.dtod.to_pinned", cuMemcpyDtoD((uintptr_t)pin, d, n));
	PR("cp.dtod.to_pinned.sync", cuCtxSynchronize());
	probe_line("cp.dtod.to_pinned.data", "%d", buf_is(pin, 0x53, n));
	PR("cp.dtod.from_registered", cuMemcpyDtoD(d2, (uintptr_t)reg, n));
	PR("cp.dtod.sync", cuCtxSynchronize());
	PR("cp.dtod.self", cuMemcpyDtoD(d, d, n));
	dev_fill(d, 0, n);
	{
		unsigned char *h = malloc(n);

		for (size_t i = 0; i < n; i++)
			h[i] = (unsigned char)i;
		cuMemcpyHtoD(d, h, n);
		PR("cp.dtod.overlap_up", cuMemcpyDtoD(d + 100, d, 1000));
		PR("cp.dtod.overlap_up.sync", cuCtxSynchronize());
		cuMemcpyDtoH(h, d, n);
		probe_line("env.cp.dtod.overlap_up.memmove", "%d",
			   h[100] == 0 && h[1099] == (unsigned char)999);
		PR("cp.dtod.overlap_down", cuMemcpyDtoD(d, d + 100, 1000));
		PR("cp.dtod.overlap_down.sync", cuCtxSynchronize());
		free(h);
	}
	PR("cp.dtod.oob_dst", cuMemcpyDtoD(d2 + 1, d, n));
	PR("cp.dtod.oob_src", cuMemcpyDtoD(d2, d + 1, n));

	/* cuMemcpy: unified addressing decides. */
	memset(heap, 0x64, n);
	PR("cp.memcpy.h2d", cuMemcpy(d, (uintptr_t)heap, n));
	probe_line("cp.memcpy.h2d.data", "%d", dev_check(d, 0x64, n));
	memset(heap2, 0, n);
	PR("cp.memcpy.d2h", cuMemcpy((uintptr_t)heap2, d, n));
	probe_line("cp.memcpy.d2h.data", "%d", buf_is(heap2, 0x64, n));
	memset(heap2, 0, n);
	PR("cp.memcpy.h2h", cuMemcpy((uintptr_t)heap2, (uintptr_t)heap, n));
	probe_line("cp.memcpy.h2h.data", "%d", buf_is(heap2, 0x64, n));
	PR("cp.memcpy.m2d", cuMemcpy(d2, m, n));
	PR("cp.memcpy.d2m", cuMemcpy(m, d2, n));
	PR("cp.memcpy.d2m.sync", cuCtxSynchronize());
	PR("cp.memcpy.p2r", cuMemcpy((uintptr_t)reg, (uintptr_t)pin, n));
	PR("cp.memcpy.size0", cuMemcpy(d, (uintptr_t)heap, 0));
	PR("cp.memcpy.size0.null", cuMemcpy(0, 0, 0));
	PR("cp.memcpy.htod.size0.null", cuMemcpyHtoD(0, NULL, 0));
	PR("cp.memcpy.dtoh.size0.null", cuMemcpyDtoH(NULL, 0, 0));
	PR("cp.memcpy.dtod.size0.null", cuMemcpyDtoD(0, 0, 0));
	PR("cp.memcpy.dtod.size0.bad", cuMemcpyDtoD(1, 1, 0));
	PR("cp.memcpy.oob", cuMemcpy(d, (uintptr_t)heap, n + 1));
	PR("cp.memcpy.oob.sync", cuCtxSynchronize());

	/* Async forms: streams, pageable memory, the data after a sync. */
	memset(heap, 0x75, n);
	PR("cp.async.htod", cuMemcpyHtoDAsync(d, heap, n, s));
	memset(heap, 0x76, n);
	PR("cp.async.htod.sync", cuStreamSynchronize(s));
	probe_line("env.cp.async.htod.pageable_staged_at_call", "%d", dev_check(d, 0x75, n));
	memset(pin, 0x77, n);
	PR("cp.async.htod.pinned", cuMemcpyHtoDAsync(d, pin, n, s));
	PR("cp.async.htod.pinned.sync", cuStreamSynchronize(s));
	probe_line("cp.async.htod.pinned.data", "%d", dev_check(d, 0x77, n));
	memset(heap2, 0, n);
	PR("cp.async.dtoh", cuMemcpyDtoHAsync(heap2, d, n, s));
	PR("cp.async.dtoh.sync", cuStreamSynchronize(s));
	probe_line("cp.async.dtoh.data", "%d", buf_is(heap2, 0x77, n));
	PR("cp.async.dtod", cuMemcpyDtoDAsync(d2, d, n, s));
	PR("cp.async.generic", cuMemcpyAsync(m, d, n, s));
	PR("cp.async.generic.sync", cuStreamSynchronize(s));
	probe_line("cp.async.generic.data", "%d", buf_is((void *)(uintptr_t)m, 0x77, n));
	PR("cp.async.legacy", cuMemcpyAsync(d2, d, n, CU_STREAM_LEGACY));
	PR("cp.async.perthread", cuMemcpyAsync(d2, d, n, CU_STREAM_PER_THREAD));
	PR("cp.async.oob", cuMemcpyAsync(d2, d, n + 1, s));
	PR("cp.async.size0", cuMemcpyHtoDAsync(d, heap, 0, s));
	PR("cp.async.sync", cuCtxSynchronize());

	/* Memsets: every kind of destination, the values, alignment. */
	PR("cp.memset.d8.dev", cuMemsetD8(d, 0x81, n));
	PR("cp.memset.d8.dev.sync", cuCtxSynchronize());
	probe_line("cp.memset.d8.dev.data", "%d", dev_check(d, 0x81, n));
	PR("cp.memset.d8.managed", cuMemsetD8(m, 0x82, n));
	PR("cp.memset.d8.managed.sync", cuCtxSynchronize());
	probe_line("cp.memset.d8.managed.data", "%d", buf_is((void *)(uintptr_t)m, 0x82, n));
	PR("cp.memset.d8.pinned", cuMemsetD8((uintptr_t)pin, 0x83, n));
	probe_line("cp.memset.d8.pinned.data_nosync", "%d", buf_is(pin, 0x83, n));
	PR("cp.memset.d8.registered", cuMemsetD8((uintptr_t)reg, 0x84, n));
	PR("cp.memset.d8.registered.sync", cuCtxSynchronize());
	probe_line("cp.memset.d8.registered.data", "%d", buf_is(reg, 0x84, n));
	PR("cp.memset.d16", cuMemsetD16((uintptr_t)pin, 0x1234, n / 2));
	probe_line("cp.memset.d16.data", "%d", ((unsigned short *)pin)[7] == 0x1234 &&
		   ((unsigned short *)pin)[n / 2 - 1] == 0x1234);
	PR("cp.memset.d32", cuMemsetD32((uintptr_t)pin, 0x89abcdef, n / 4));
	probe_line("cp.memset.d32.data", "%d", ((unsigned int *)pin)[9] == 0x89abcdef &&
		   ((unsigned int *)pin)[n / 4 - 1] == 0x89abcdef);
	PR("cp.memset.d16.unaligned", cuMemsetD16(d + 1, 0, 4));
	PR("cp.memset.d32.unaligned2", cuMemsetD32(d + 2, 0, 4));
	PR("cp.memset.d16.count0.unaligned", cuMemsetD16(d + 1, 0, 0));
	PR("cp.memset.d8.count0", cuMemsetD8(d, 0, 0));
	PR("cp.memset.d8.count0.null", cuMemsetD8(0, 0, 0));
	PR("cp.memset.d8.count0.bad", cuMemsetD8(1, 0, 0));
	PR("cp.memset.d16.oob", cuMemsetD16(d, 0, n / 2 + 1));
	PR("cp.memset.d32.oob", cuMemsetD32(d, 0, n / 4 + 1));
	PR("cp.memset.d8.tail", cuMemsetD8(d + n / 2, 7, n / 2));
	PR("cp.memset.d8.tail.sync", cuCtxSynchronize());
	PR("cp.memset.async", cuMemsetD8Async(d, 0x91, n, s));
	PR("cp.memset.async.d16", cuMemsetD16Async(d2, 0x9293, n / 2, s));
	PR("cp.memset.async.d32", cuMemsetD32Async(m, 0x94959697, n / 4, s));
	PR("cp.memset.async.sync", cuStreamSynchronize(s));
	probe_line("cp.memset.async.data", "%d", dev_check(d, 0x91, n));
	probe_line("cp.memset.async.d32.data", "%d",
		   ((unsigned int *)(uintptr_t)m)[5] == 0x94959697);
	PR("cp.memset.async.oob", cuMemsetD8Async(d, 0, n + 1, s));
	PR("cp.memset.async.unaligned", cuMemsetD32Async(d + 1, 0, 1, s));
	PR("cp.memset.async.sync2", cuStreamSynchronize(s));

	/* Freed memory: probe_null. */
	cuMemHostUnregister(reg);
	cuMemFree(d2);
	cuMemFree(d);
	cuMemFree(m);
	cuMemFreeHost(pin);
	munmap(reg, n);
	free(heap);
	free(heap2);
}

static void ptrattr(const char *key, const void *p, const void *base)
{
	struct cudaPointerAttributes at;
	char k[128], r1[64], r2[64];
	cudaError_t e;

	memset(&at, 0xAA, sizeof(at));
	e = cudaPointerGetAttributes(&at, p);
	rres(key, e);
	snprintf(k, sizeof(k), "%s.fields", key);
	probe_line(k, "type=%d device=%d dev=%s host=%s", (int)at.type, at.device,
		   probe_rel((uintptr_t)at.devicePointer, (uintptr_t)base, r1, sizeof(r1)),
		   probe_rel((uintptr_t)at.hostPointer, (uintptr_t)base, r2, sizeof(r2)));
}

/* The runtime equivalents. */
static void probe_runtime(void)
{
	const size_t n = 64 * KIB;
	void *d = (void *)1, *h = NULL, *m = NULL, *dp = NULL;
	char *heap = malloc(n), *heap2 = malloc(n);
	char *reg = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cudaStream_t s = NULL;
	unsigned int fl;

	RR("rc.malloc.0", cudaMalloc(&d, 0));
	probe_line("rc.malloc.0.ptr", "%s", d ? (d == (void *)1 ? "untouched" : "set") : "null");
	RR("rc.malloc.null", cudaMalloc(NULL, 16));
	RR("rc.malloc.huge", cudaMalloc(&d, 1ULL << 50));
	RR("rc.malloc.huge.lasterror", cudaGetLastError());
	RR("rc.malloc", cudaMalloc(&d, n));
	RR("rc.mallochost.0", cudaMallocHost(&h, 0));
	probe_line("rc.mallochost.0.ptr", "%s", h ? "set" : "null");
	RR("rc.mallochost", cudaMallocHost(&h, n));
	fl = 77;
	RR("rc.hostgetflags.mallochost", cudaHostGetFlags(&fl, h));
	probe_line("rc.hostgetflags.mallochost.value", "%u", fl);
	RR("rc.hostalloc.flags8", cudaHostAlloc(&dp, 16, 8));
	RR("rc.hostalloc.flags8.lasterror", cudaGetLastError());
	dp = NULL;
	RR("rc.hostalloc.mapped", cudaHostAlloc(&dp, 16, cudaHostAllocMapped | cudaHostAllocPortable));
	fl = 77;
	RR("rc.hostgetflags.hostalloc", cudaHostGetFlags(&fl, dp));
	probe_line("rc.hostgetflags.hostalloc.value", "%u", fl);
	{
		void *dd = NULL;

		RR("rc.hostgetdeviceptr", cudaHostGetDevicePointer(&dd, dp, 0));
		probe_line("rc.hostgetdeviceptr.same", "%d", dd == dp);
		RR("rc.hostgetdeviceptr.flags1", cudaHostGetDevicePointer(&dd, dp, 1));
		RR("rc.hostgetdeviceptr.malloc", cudaHostGetDevicePointer(&dd, heap, 0));
		RR("rc.hostgetdeviceptr.device", cudaHostGetDevicePointer(&dd, d, 0));
		cudaGetLastError();
	}
	RR("rc.freehost.device", cudaFreeHost(d));
	RR("rc.free.host", cudaFree(dp));
	RR("rc.freehost.null", cudaFreeHost(NULL));
	RR("rc.freehost", cudaFreeHost(dp));
	cudaGetLastError();
	RR("rc.hostregister", cudaHostRegister(reg, n, cudaHostRegisterDefault));
	RR("rc.hostregister.again", cudaHostRegister(reg, n, 0));
	RR("rc.hostregister.again.lasterror", cudaGetLastError());
	fl = 77;
	RR("rc.hostgetflags.registered", cudaHostGetFlags(&fl, reg));
	probe_line("rc.hostgetflags.registered.value", "%u", fl);
	RR("rc.hostgetflags.malloc", cudaHostGetFlags(&fl, heap));
	RR("rc.hostregister.iomemory", cudaHostRegister(heap, 4096, cudaHostRegisterIoMemory));
	RR("rc.hostregister.readonly", cudaHostRegister(heap, 4096, cudaHostRegisterReadOnly));
	RR("rc.hostunregister.readonly", cudaHostUnregister(heap));
	RR("rc.hostunregister.never", cudaHostUnregister(heap + 8192));
	RR("rc.hostunregister.never.lasterror", cudaGetLastError());
	RR("rc.malloc.managed", cudaMallocManaged(&m, n, cudaMemAttachGlobal));

	ptrattr("rc.pa.device", d, d);
	ptrattr("rc.pa.device.interior", (char *)d + 100, d);
	ptrattr("rc.pa.host", h, h);
	ptrattr("rc.pa.host.interior", (char *)h + 100, h);
	ptrattr("rc.pa.registered", reg + 100, reg);
	ptrattr("rc.pa.managed", m, m);

	/* cudaMemcpy kinds. */
	memset(heap, 0x12, n);
	RR("rc.memcpy.h2d", cudaMemcpy(d, heap, n, cudaMemcpyHostToDevice));
	memset(heap2, 0, n);
	RR("rc.memcpy.d2h", cudaMemcpy(heap2, d, n, cudaMemcpyDeviceToHost));
	probe_line("rc.memcpy.d2h.data", "%d", buf_is(heap2, 0x12, n));
	RR("rc.memcpy.d2d", cudaMemcpy(h, d, n, cudaMemcpyDeviceToDevice));
	RR("rc.memcpy.h2h", cudaMemcpy(heap2, heap, n, cudaMemcpyHostToHost));
	RR("rc.memcpy.default.h2d", cudaMemcpy(d, heap, n, cudaMemcpyDefault));
	RR("rc.memcpy.default.h2h", cudaMemcpy(heap2, heap, n, cudaMemcpyDefault));
	RR("rc.memcpy.default.m2d", cudaMemcpy(d, m, n, cudaMemcpyDefault));
	/* Kinds that contradict the pointers: probe_null. */
	RR("rc.memcpy.kind5", cudaMemcpy(d, heap, n, (enum cudaMemcpyKind)5));
	RR("rc.memcpy.kind5.lasterror", cudaGetLastError());
	RR("rc.memcpy.kind-1", cudaMemcpy(d, heap, n, (enum cudaMemcpyKind)-1));
	cudaGetLastError();
	RR("rc.memcpy.size0", cudaMemcpy(NULL, NULL, 0, cudaMemcpyHostToDevice));
	RR("rc.memcpy.size0.kind5", cudaMemcpy(NULL, NULL, 0, (enum cudaMemcpyKind)5));
	cudaGetLastError();
	RR("rc.memcpy.oob", cudaMemcpy(d, heap, n + 1, cudaMemcpyHostToDevice));
	RR("rc.memcpy.oob.lasterror", cudaGetLastError());
	RR("rc.stream", cudaStreamCreate(&s));
	RR("rc.memcpyasync", cudaMemcpyAsync(d, h, n, cudaMemcpyHostToDevice, s));
	RR("rc.memcpyasync.stream0", cudaMemcpyAsync(d, h, n, cudaMemcpyDefault, 0));
	RR("rc.memcpyasync.kind5", cudaMemcpyAsync(d, h, n, (enum cudaMemcpyKind)5, s));
	cudaGetLastError();
	RR("rc.memcpyasync.sync", cudaStreamSynchronize(s));

	/* cudaMemset. */
	RR("rc.memset", cudaMemset(d, 0x1234, n));
	RR("rc.memset.sync", cudaDeviceSynchronize());
	memset(heap2, 0, n);
	cudaMemcpy(heap2, d, n, cudaMemcpyDeviceToHost);
	probe_line("rc.memset.data_low_byte", "%d", buf_is(heap2, 0x34, n));
	RR("rc.memset.unaligned", cudaMemset((char *)d + 1, 0, 3));
	RR("rc.memset.size0", cudaMemset(NULL, 0, 0));
	RR("rc.memset.oob", cudaMemset(d, 0, n + 1));
	RR("rc.memset.oob.lasterror", cudaGetLastError());
	RR("rc.memset.host", cudaMemset(h, 0x56, n));
	probe_line("rc.memset.host.data_nosync", "%d", buf_is(h, 0x56, n));
	RR("rc.memsetasync", cudaMemsetAsync(m, 0x66, n, s));
	RR("rc.memsetasync.sync", cudaStreamSynchronize(s));
	probe_line("rc.memsetasync.data", "%d", buf_is(m, 0x66, n));
	RR("rc.memsetasync.stream0", cudaMemsetAsync(d, 0, n, 0));
	RR("rc.memsetasync.sync0", cudaDeviceSynchronize());

	RR("rc.free.device", cudaFree(d));
	RR("rc.free.device.again", cudaFree(d));
	cudaGetLastError();
	RR("rc.free.interior", cudaFree((char *)m + 8));
	cudaGetLastError();
	RR("rc.free.managed", cudaFree(m));
	RR("rc.freehost.h", cudaFreeHost(h));
	RR("rc.freehost.h.again", cudaFreeHost(h));
	cudaGetLastError();
	RR("rc.hostunregister", cudaHostUnregister(reg));
	RR("rc.streamdestroy", cudaStreamDestroy(s));
	munmap(reg, n);
	free(heap);
	free(heap2);
}

int main(void)
{
	CUdeviceptr dev = 0, managed = 0;
	char *heap = malloc(1 << 20);
	CUstream s;
	int v = -1;

	MUST(cuInit(0));
	MUST(cuDevicePrimaryCtxRetain(&ctx, 0));
	MUST(cuCtxSetCurrent(ctx));
	MUST(cuStreamCreate(&s, 0));

	/* The attributes a program checks before using these calls. */
	static const CUdevice_attribute da[] = {
		CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY,
		CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED,
		CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED,
		CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM,
		CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING,
		CU_DEVICE_ATTRIBUTE_GPU_OVERLAP,
		CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT,
	};
	for (size_t i = 0; i < sizeof(da) / sizeof(da[0]); i++) {
		char k[64];

		v = -1;
		snprintf(k, sizeof(k), "cp.devattr.%d", (int)da[i]);
		PR(k, cuDeviceGetAttribute(&v, da[i], 0));
		snprintf(k, sizeof(k), "cp.devattr.%d.value", (int)da[i]);
		probe_line(k, "%d", v);
	}

	probe_placement();
	MUST(cuMemAlloc(&dev, 1 << 20));
	MUST(cuMemAllocManaged(&managed, 1 << 20, CU_MEM_ATTACH_GLOBAL));
	probe_host(dev, managed, heap);
	probe_copies(s);
	cuMemFree(dev);
	cuMemFree(managed);
	MUST(cuStreamDestroy(s));
	probe_runtime();
	free(heap);
	return 0;
}
