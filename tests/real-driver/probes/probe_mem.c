// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * probe_mem - cuMemAllocManaged, cuMemFree, cuMemGetAddressRange,
 * cuMemGetInfo and the pointer attributes of managed and foreign memory.
 */
#include "probe.h"

static int gvar;

/* Attributes 1..24, each read into a buffer pre-filled twice (0xAA, 0x55)
 * to learn how many bytes the driver writes. */
static void attr_all(const char *what, CUdeviceptr ptr, unsigned long long base,
		     CUcontext ctx)
{
	for (int a = 1; a <= 24; a++) {
		unsigned char b1[32], b2[32];
		unsigned long long v = 0;
		CUresult r1, r2;
		char key[128], rel[64];
		int width = 0;

		memset(b1, 0xAA, sizeof(b1));
		memset(b2, 0x55, sizeof(b2));
		r1 = cuPointerGetAttribute(b1, (CUpointer_attribute)a, ptr);
		r2 = cuPointerGetAttribute(b2, (CUpointer_attribute)a, ptr);
		snprintf(key, sizeof(key), "pa.%s.%d", what, a);
		probe_res(key, r1);
		if (r1 != r2) {
			snprintf(key, sizeof(key), "pa.%s.%d.unstable", what, a);
			probe_res(key, r2);
		}
		for (int i = 0; i < 32; i++)
			if (b1[i] != 0xAA || b2[i] != 0x55)
				width = i + 1;
		snprintf(key, sizeof(key), "pa.%s.%d.width", what, a);
		probe_line(key, "%d", width);
		if (r1 != CUDA_SUCCESS || width == 0)
			continue;
		memcpy(&v, b1, width < 8 ? width : 8);
		if (width == 4)
			v &= 0xffffffffULL;
		snprintf(key, sizeof(key), "pa.%s.%d.value", what, a);
		if (a == CU_POINTER_ATTRIBUTE_BUFFER_ID || a == CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID)
			probe_line(key, "%s", v ? "nonzero" : "0");
		else if (a == CU_POINTER_ATTRIBUTE_CONTEXT)
			probe_line(key, "%s", v == (uintptr_t)ctx ? "ctx" : v ? "other" : "null");
		else if (a == CU_POINTER_ATTRIBUTE_P2P_TOKENS)
			probe_line(key, "%s", "tokens");
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

int main(void)
{
	CUdeviceptr p = 0, q = 0, r = 0, base;
	CUcontext ctx;
	size_t fr = 0, tot = 0;
	unsigned long long id1 = 0, id2 = 0, id3 = 0;
	int stackvar = 0;
	unsigned int uv;
	char *heap = malloc(1 << 20);

	MUST(cuInit(0));
	MUST(cuDevicePrimaryCtxRetain(&ctx, 0));
	MUST(cuCtxSetCurrent(ctx));

	/* Defaults of a fresh allocation, before anything else touches it:
	 * SYNC_MEMOPS first (P2P_TOKENS sets it), then the tokens. */
	{
		unsigned int sm = 77;
		CUDA_POINTER_ATTRIBUTE_P2P_TOKENS tok;
		unsigned long long v;
		char rel[64];

		MUST(cuMemAllocManaged(&q, 4 << 20, CU_MEM_ATTACH_GLOBAL));
		PR("fresh.syncmemops", cuPointerGetAttribute(&sm, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, q));
		probe_line("fresh.syncmemops.value", "%u", sm);
		memset(&tok, 0xAA, sizeof(tok));
		PR("fresh.p2p", cuPointerGetAttribute(&tok, CU_POINTER_ATTRIBUTE_P2P_TOKENS, q));
		probe_line("env.fresh.p2p.token", "%llu", tok.p2pToken);
		probe_line("env.fresh.p2p.vaspace", "%u", tok.vaSpaceToken);
		sm = 77;
		PR("fresh.syncmemops.after_p2p", cuPointerGetAttribute(&sm,
		   CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, q));
		probe_line("fresh.syncmemops.after_p2p.value", "%u", sm);
		for (int at = 18; at <= 20; at++) {
			char key[64];

			v = 0;
			snprintf(key, sizeof(key), "fresh.4m.%d", at);
			PR(key, cuPointerGetAttribute(&v, (CUpointer_attribute)at, q + 12345));
			snprintf(key, sizeof(key), "fresh.4m.%d.value", at);
			if (at == 18)
				probe_line(key, "%llu", v);
			else if (at == 19)
				probe_line(key, "%s", probe_rel(v, q, rel, sizeof(rel)));
			else
				probe_line(key, "%s", v ? "nonzero" : "0");
		}
		cuMemFree(q);
		MUST(cuMemAllocManaged(&q, 1000, CU_MEM_ATTACH_GLOBAL));
		v = 0;
		PR("fresh.1000.18", cuPointerGetAttribute(&v, CU_POINTER_ATTRIBUTE_MAPPING_SIZE, q));
		probe_line("fresh.1000.18.value", "%llu", v);
		v = 0;
		PR("fresh.1000.19", cuPointerGetAttribute(&v, CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR,
		   q + 10));
		probe_line("fresh.1000.19.value", "%s", probe_rel(v, q, rel, sizeof(rel)));
		cuMemFree(q);
		q = 0;
		/* cuPointerGetAttributes of every attribute on a foreign pointer. */
		for (int at = 1; at <= 21; at++) {
			unsigned long long w = 0xAAAAAAAAAAAAAAAAULL;
			void *d[1] = { &w };
			CUpointer_attribute a1[1] = { (CUpointer_attribute)at };
			char key[64];
			CUresult r = cuPointerGetAttributes(1, a1, d, (uintptr_t)heap);

			snprintf(key, sizeof(key), "pas1.malloc.%d", at);
			probe_res(key, r);
			snprintf(key, sizeof(key), "pas1.malloc.%d.value", at);
			if (w == 0xAAAAAAAAAAAAAAAAULL)
				probe_line(key, "untouched");
			else if ((w >> 32) == 0xAAAAAAAAULL)
				probe_line(key, "w4:%d", (int)(unsigned int)w);
			else
				probe_line(key, "w8:%s", probe_rel(w, (uintptr_t)heap, rel,
					   sizeof(rel)));
		}
	}

	/* cuMemAllocManaged argument checks. */
	PR("alloc.size0", cuMemAllocManaged(&p, 0, CU_MEM_ATTACH_GLOBAL));
	probe_line("alloc.size0.ptr", "%s", p ? "set" : "null");
	PR("alloc.flags0", cuMemAllocManaged(&p, 4096, 0));
	PR("alloc.flags.host", cuMemAllocManaged(&q, 4096, CU_MEM_ATTACH_HOST));
	if (!q)
		probe_line("alloc.flags.host.ptr", "null");
	else
		PR("alloc.flags.host.free", cuMemFree(q));
	q = 0;
	PR("alloc.flags.single", cuMemAllocManaged(&q, 4096, CU_MEM_ATTACH_SINGLE));
	if (q)
		cuMemFree(q);
	q = 0;
	PR("alloc.flags.global_host", cuMemAllocManaged(&q, 4096, 3));
	if (q)
		cuMemFree(q);
	q = 0;
	PR("alloc.flags8", cuMemAllocManaged(&q, 4096, 8));
	if (q)
		cuMemFree(q);

	/* Alignment of the returned pointers. */
	for (size_t sz = 1; sz <= (4 << 20); sz *= 16) {
		char key[64];
		int tz;

		q = 0;
		snprintf(key, sizeof(key), "alloc.align.%zu", sz);
		PR(key, cuMemAllocManaged(&q, sz, CU_MEM_ATTACH_GLOBAL));
		tz = q ? __builtin_ctzll(q) : -1;
		snprintf(key, sizeof(key), "alloc.align.%zu.ge4k", sz);
		probe_line(key, "%d", tz >= 12);
		snprintf(key, sizeof(key), "env.alloc.align.%zu.log2", sz);
		probe_line(key, "%d", tz);
		if (q)
			cuMemFree(q);
	}

	/* cuMemGetAddressRange on a 1000-byte allocation. */
	MUST(cuMemAllocManaged(&p, 1000, CU_MEM_ATTACH_GLOBAL));
	base = p;
	addr_range("ar.base", p, base);
	addr_range("ar.last", p + 999, base);
	addr_range("ar.end", p + 1000, base);
	addr_range("ar.page", p + 4096, base);
	addr_range("ar.malloc", (CUdeviceptr)(uintptr_t)heap, base);
	addr_range("ar.null", 0, base);
	{
		CUdeviceptr b = 0;
		size_t s = 0;

		PR("ar.nullbase", cuMemGetAddressRange(NULL, &s, p + 10));
		probe_line("ar.nullbase.size", "%zu", s);
		PR("ar.nullsize", cuMemGetAddressRange(&b, NULL, p + 10));
		probe_line("ar.nullsize.base", "%s", b == p ? "base" : "other");
		PR("ar.bothnull", cuMemGetAddressRange(NULL, NULL, p + 10));
	}

	/* Pointer attributes. */
	attr_all("managed.base", p, base, ctx);
	attr_all("managed.interior", p + 500, base, ctx);
	attr_all("managed.end", p + 1000, base, ctx);
	attr_all("managed.page", p + 4096, base, ctx);
	attr_all("malloc", (CUdeviceptr)(uintptr_t)heap, (uintptr_t)heap, ctx);
	attr_all("stack", (CUdeviceptr)(uintptr_t)&stackvar, (uintptr_t)&stackvar, ctx);
	attr_all("global", (CUdeviceptr)(uintptr_t)&gvar, (uintptr_t)&gvar, ctx);
	attr_all("null", 0, 0, ctx);
	attr_all("one", 1, 0, ctx);

	/* cuPointerGetAttributes. */
	{
		CUpointer_attribute at[] = {
			CU_POINTER_ATTRIBUTE_CONTEXT, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
			CU_POINTER_ATTRIBUTE_DEVICE_POINTER, CU_POINTER_ATTRIBUTE_HOST_POINTER,
			CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, CU_POINTER_ATTRIBUTE_BUFFER_ID,
			CU_POINTER_ATTRIBUTE_IS_MANAGED, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
			CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE,
			CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, CU_POINTER_ATTRIBUTE_RANGE_SIZE,
			CU_POINTER_ATTRIBUTE_MAPPED, CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES,
			CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE,
		};
		enum { N = sizeof(at) / sizeof(at[0]) };
		unsigned long long vals[N];
		void *data[N];
		const CUdeviceptr ptrs[] = { p, p + 10, (uintptr_t)heap, 0 };
		const char *names[] = { "managed", "interior", "malloc", "null" };

		for (int k = 0; k < 4; k++) {
			char key[96], rel[64];

			for (int i = 0; i < N; i++) {
				vals[i] = 0xAAAAAAAAAAAAAAAAULL;
				data[i] = &vals[i];
			}
			snprintf(key, sizeof(key), "pas.%s", names[k]);
			PR(key, cuPointerGetAttributes(N, at, data, ptrs[k]));
			for (int i = 0; i < N; i++) {
				unsigned long long v = vals[i];

				snprintf(key, sizeof(key), "pas.%s.%d", names[k], (int)at[i]);
				if (v == 0xAAAAAAAAAAAAAAAAULL)
					probe_line(key, "untouched");
				else if ((v >> 32) == 0xAAAAAAAAULL)
					probe_line(key, "w4:%s", probe_rel(v & 0xffffffffULL,
						   ptrs[k], rel, sizeof(rel)));
				else if (at[i] == CU_POINTER_ATTRIBUTE_BUFFER_ID)
					probe_line(key, "%s", v ? "nonzero" : "0");
				else if (at[i] == CU_POINTER_ATTRIBUTE_CONTEXT)
					probe_line(key, "%s", v == (uintptr_t)ctx ? "ctx" :
						   v ? "other" : "null");
				else
					probe_line(key, "w8:%s", probe_rel(v, ptrs[k], rel,
						   sizeof(rel)));
			}
		}
		PR("pas.n0", cuPointerGetAttributes(0, at, data, p));
		{
			CUpointer_attribute bad[] = { CU_POINTER_ATTRIBUTE_IS_MANAGED,
				CU_POINTER_ATTRIBUTE_P2P_TOKENS };
			unsigned long long tok[4] = { 0 };
			unsigned int im = 77;
			void *d2[] = { &im, tok };

			PR("pas.p2p", cuPointerGetAttributes(2, bad, d2, p));
			probe_line("pas.p2p.first", "%u", im);
			bad[1] = (CUpointer_attribute)1000;
			im = 77;
			PR("pas.unknown", cuPointerGetAttributes(2, bad, d2, p));
			probe_line("pas.unknown.first", "%u", im);
			bad[1] = (CUpointer_attribute)0;
			PR("pas.zero", cuPointerGetAttributes(2, bad, d2, p));
			bad[1] = CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE;
			PR("pas.hwdecompress", cuPointerGetAttributes(2, bad, d2, p));
			bad[1] = CU_POINTER_ATTRIBUTE_ACCESS_FLAGS;
			PR("pas.accessflags", cuPointerGetAttributes(2, bad, d2, p));
			bad[1] = CU_POINTER_ATTRIBUTE_MAPPING_SIZE;
			PR("pas.mappingsize", cuPointerGetAttributes(2, bad, d2, p));
		}
	}

	/* cuPointerSetAttribute. */
	uv = 1;
	PR("psa.syncmemops.1", cuPointerSetAttribute(&uv, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, p));
	uv = 77;
	PR("psa.syncmemops.get1", cuPointerGetAttribute(&uv, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, p));
	probe_line("psa.syncmemops.get1.value", "%u", uv);
	uv = 77;
	PR("psa.syncmemops.get1.interior", cuPointerGetAttribute(&uv,
	   CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, p + 100));
	probe_line("psa.syncmemops.get1.interior.value", "%u", uv);
	uv = 0;
	PR("psa.syncmemops.0.interior", cuPointerSetAttribute(&uv,
	   CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, p + 100));
	uv = 77;
	PR("psa.syncmemops.get0", cuPointerGetAttribute(&uv, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, p));
	probe_line("psa.syncmemops.get0.value", "%u", uv);
	uv = 2;
	PR("psa.syncmemops.2", cuPointerSetAttribute(&uv, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, p));
	uv = 77;
	PR("psa.syncmemops.get2", cuPointerGetAttribute(&uv, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, p));
	probe_line("psa.syncmemops.get2.value", "%u", uv);
	uv = 1;
	PR("psa.ismanaged", cuPointerSetAttribute(&uv, CU_POINTER_ATTRIBUTE_IS_MANAGED, p));
	PR("psa.context", cuPointerSetAttribute(&uv, CU_POINTER_ATTRIBUTE_CONTEXT, p));
	PR("psa.bufferid", cuPointerSetAttribute(&uv, CU_POINTER_ATTRIBUTE_BUFFER_ID, p));
	PR("psa.unknown", cuPointerSetAttribute(&uv, (CUpointer_attribute)1000, p));
	PR("psa.malloc", cuPointerSetAttribute(&uv, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS,
	   (uintptr_t)heap));
	PR("psa.null", cuPointerSetAttribute(&uv, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, 0));
	PR("psa.end", cuPointerSetAttribute(&uv, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, p + 1000));

	/* Buffer ids: unique, never reused. */
	PR("bid.1", cuPointerGetAttribute(&id1, CU_POINTER_ATTRIBUTE_BUFFER_ID, p));
	PR("free.p", cuMemFree(p));
	PR("free.p.again", cuMemFree(p));
	attr_all("freed", p, p, ctx);
	addr_range("ar.freed", p, p);
	MUST(cuMemAllocManaged(&q, 1000, CU_MEM_ATTACH_GLOBAL));
	probe_line("env.bid.same_address", "%d", q == p);
	PR("bid.2", cuPointerGetAttribute(&id2, CU_POINTER_ATTRIBUTE_BUFFER_ID, q));
	probe_line("bid.2.differs", "%d", id2 != id1);
	probe_line("bid.2.greater", "%d", id2 > id1);
	MUST(cuMemAllocManaged(&r, 1000, CU_MEM_ATTACH_GLOBAL));
	PR("bid.3", cuPointerGetAttribute(&id3, CU_POINTER_ATTRIBUTE_BUFFER_ID, r));
	probe_line("bid.3.greater", "%d", id3 > id2);

	/* cuMemFree edge cases. */
	PR("free.null", cuMemFree(0));
	PR("free.interior", cuMemFree(q + 8));
	PR("free.malloc", cuMemFree((uintptr_t)heap));
	PR("free.stack", cuMemFree((uintptr_t)&stackvar));
	PR("free.one", cuMemFree(1));
	PR("free.q", cuMemFree(q));
	PR("free.r", cuMemFree(r));

	/* cuMemGetInfo. */
	PR("meminfo", cuMemGetInfo(&fr, &tot));
	probe_line("meminfo.free_le_total", "%d", fr <= tot);
	probe_line("env.meminfo.total_mib", "%zu", tot >> 20);
	{
		size_t dt = 0;

		cuDeviceTotalMem(&dt, 0);
		probe_line("meminfo.total_eq_devicetotal", "%d", dt == tot);
	}

	/* Large managed allocation within the card's memory; data survives. */
	{
		size_t big = 256ULL << 20;

		PR("alloc.256m", cuMemAllocManaged(&p, big, CU_MEM_ATTACH_GLOBAL));
		if (p) {
			memset((void *)(uintptr_t)p, 0x5a, big);
			probe_line("alloc.256m.data", "%d",
				   ((unsigned char *)(uintptr_t)p)[big - 1] == 0x5a);
			addr_range("ar.256m.mid", p + big / 2, p);
			PR("alloc.256m.free", cuMemFree(p));
		}
	}
	/* Contents of fresh managed memory. */
	{
		PR("alloc.fresh", cuMemAllocManaged(&p, 1 << 20, CU_MEM_ATTACH_GLOBAL));
		unsigned char *c = (unsigned char *)(uintptr_t)p;
		int zero = 1;

		for (int i = 0; i < (1 << 20); i++)
			zero &= c[i] == 0;
		probe_line("env.alloc.fresh.zero", "%d", zero);
		cuMemFree(p);
	}
	PR("ctx.release", cuDevicePrimaryCtxRelease(0));
	free(heap);
	return 0;
}
