// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * probe_pitch - pitched memory and the 2D/3D copies and sets: the pitch
 * that cuMemAllocPitch, cudaMallocPitch and cudaMalloc3D choose, every 2D
 * and 3D copy between device, pageable, page-locked and managed memory with
 * offsets and pitches wider than the rows (the data checked byte for byte,
 * including that nothing outside the rectangle is written), what each
 * invalid geometry, memory type and kind answers, copies that run past an
 * allocation, overlapping copies, the 2D/3D sets, peer copies on the one
 * device, the layout of the copy structures, and the runtime's last error.
 *
 *   probe_pitch              runs every section, each in a process of its own
 *   probe_pitch case NAME    runs one section ("sec.NAME") or case
 *
 * Every case that may crash the driver (NULL structures or pointers, memory
 * types and kinds that contradict the pointers) or break the context (copies
 * and sets past the end of an allocation) runs in a process of its own:
 * this program again, started with "case NAME", which initialises CUDA
 * afresh.  The parent records how it ended: "pitch.NAME.exit = exit N" or
 * "= signal N".
 *
 * Data checks print "ok" (the destination holds exactly what the copy should
 * have written, and nothing else changed), "untouched" (the destination is
 * as it was before the call) or "mismatch".
 */
#include <stddef.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cuda_runtime.h>

#include "probe.h"

#define BUFN (64 * 1024)
#define M2 (2 * PROBE_MIB)
#define VP(p) ((void *)(uintptr_t)(p))

static const char *argv0;
static CUcontext ctx;
static CUstream st;
static size_t maxpitch;

/* ------------------------------------------------------------------ */
/* Keys and results. */

/* ------------------------------------------------------------------ */
/* Buffers of every kind of memory, BUFN bytes each. */

enum { K_DEV, K_PAGE, K_PIN, K_MAN };

struct buf {
	int kind;
	unsigned char *h;	/* CPU address (host kinds, managed) */
	CUdeviceptr d;		/* device address (all but pageable) */
};

static struct buf mkbuf(int kind)
{
	struct buf b = { kind, NULL, 0 };

	switch (kind) {
	case K_DEV:
		MUST(cuMemAlloc(&b.d, BUFN));
		break;
	case K_PAGE:
		b.h = aligned_alloc(4096, BUFN);
		b.d = (uintptr_t)b.h;
		break;
	case K_PIN:
		MUST(cuMemAllocHost((void **)&b.h, BUFN));
		b.d = (uintptr_t)b.h;
		break;
	case K_MAN:
		MUST(cuMemAllocManaged(&b.d, BUFN, CU_MEM_ATTACH_GLOBAL));
		b.h = VP(b.d);
		break;
	}
	return b;
}

static void *bptr(const struct buf *b)
{
	return b->kind == K_DEV ? VP(b->d) : (void *)b->h;
}

static void bwrite(const struct buf *b, const unsigned char *img)
{
	if (b->kind == K_DEV) {
		MUST(cuMemcpyHtoD(b->d, img, BUFN));
	} else {
		MUST(cuCtxSynchronize());
		memcpy(b->h, img, BUFN);
	}
}

static void bread(const struct buf *b, unsigned char *img)
{
	memset(img, 0x5a, BUFN);
	if (b->kind == K_DEV) {
		cuMemcpyDtoH(img, b->d, BUFN);
	} else {
		cuCtxSynchronize();
		memcpy(img, b->h, BUFN);
	}
}

static unsigned char src_img[BUFN], init_img[BUFN], exp_img[BUFN], got_img[BUFN];

static void images(void)
{
	for (size_t i = 0; i < BUFN; i++)
		src_img[i] = (unsigned char)(i * 131u + (i >> 8) * 7u + 1u);
	memset(init_img, 0xee, BUFN);
}

static const char *classify(const unsigned char *got, const unsigned char *exp,
			    const unsigned char *init)
{
	if (!memcmp(got, exp, BUFN))
		return "ok";
	if (!memcmp(got, init, BUFN))
		return "untouched";
	return "mismatch";
}

/* ------------------------------------------------------------------ */
/* Copy geometry: positions, pitches and slice heights of both sides, the
 * extent (width in bytes). */

struct geo {
	size_t sx, sy, sz, sp, sh;
	size_t dx, dy, dz, dp, dh;
	size_t w, h, d;
};

static const struct geo G2 = { 3, 2, 0, 128, 10, 5, 1, 0, 160, 9, 100, 7, 1 };
static const struct geo G3 = { 3, 2, 1, 128, 10, 5, 1, 0, 160, 9, 100, 7, 2 };

/* A slice height of 0 taken literally (slices on top of each other)
 * rather than as the copy's height. */
static int literal_h0;

/* The destination image a copy should leave: memmove semantics. */
static void expect(unsigned char *exp, const unsigned char *dinit, const unsigned char *src,
		   const struct geo *g)
{
	size_t sh = g->sh || literal_h0 ? g->sh : g->h, dh = g->dh || literal_h0 ? g->dh : g->h;

	memcpy(exp, dinit, BUFN);
	for (size_t z = 0; z < g->d; z++)
		for (size_t y = 0; y < g->h; y++)
			for (size_t x = 0; x < g->w; x++) {
				size_t so = (g->sz + z) * sh * g->sp + (g->sy + y) * g->sp + g->sx + x;
				size_t d = (g->dz + z) * dh * g->dp + (g->dy + y) * g->dp + g->dx + x;

				if (so < BUFN && d < BUFN)
					exp[d] = src[so];
			}
}

enum api { CU2D, CU2DU, CU2DA, CU3D, CU3DA, RT2D, RT2DA, RT3D, RT3DA,
	   CUP3D, CUP3DA, RTP3D, RTP3DA, NAPI };
static const char *const api_name[NAPI] = {
	"cu2d", "cu2dunaligned", "cu2dasync", "cu3d", "cu3dasync",
	"rt2d", "rt2dasync", "rt3d", "rt3dasync",
	"cupeer3d", "cupeer3dasync", "rtpeer3d", "rtpeer3dasync",
};

static int api_async(int a)
{
	return a == CU2DA || a == CU3DA || a == RT2DA || a == RT3DA || a == CUP3DA || a == RTP3DA;
}

static int api_rt(int a)
{
	return a >= RT2D && a <= RT3DA ? 1 : a == RTP3D || a == RTP3DA;
}

/* How the memory types are chosen. */
enum { M_NAT, M_UNI, M_MANHOST };
/* Extra changes to the call. */
enum { T_NONE, T_RES0, T_LOD, T_XSIZE_LT_W, T_XSIZE0, T_SRCTYPE0, T_SRCTYPE99, T_DSTTYPE99 };

static CUmemorytype mtype(const struct buf *b, int mode)
{
	if (mode == M_UNI)
		return CU_MEMORYTYPE_UNIFIED;
	if (b->kind == K_PAGE || b->kind == K_PIN || (b->kind == K_MAN && mode == M_MANHOST))
		return CU_MEMORYTYPE_HOST;
	return CU_MEMORYTYPE_DEVICE;
}

static void fill2d(CUDA_MEMCPY2D *c, const struct buf *s, const struct buf *d,
		   const struct geo *g, int mode)
{
	memset(c, 0, sizeof(*c));
	c->srcXInBytes = g->sx;
	c->srcY = g->sy;
	c->srcMemoryType = mtype(s, mode);
	if (c->srcMemoryType == CU_MEMORYTYPE_HOST)
		c->srcHost = s->h;
	else
		c->srcDevice = s->d;
	c->srcPitch = g->sp;
	c->dstXInBytes = g->dx;
	c->dstY = g->dy;
	c->dstMemoryType = mtype(d, mode);
	if (c->dstMemoryType == CU_MEMORYTYPE_HOST)
		c->dstHost = d->h;
	else
		c->dstDevice = d->d;
	c->dstPitch = g->dp;
	c->WidthInBytes = g->w;
	c->Height = g->h;
}

static void fill3d(CUDA_MEMCPY3D *c, const struct buf *s, const struct buf *d,
		   const struct geo *g, int mode)
{
	memset(c, 0, sizeof(*c));
	c->srcXInBytes = g->sx;
	c->srcY = g->sy;
	c->srcZ = g->sz;
	c->srcMemoryType = mtype(s, mode);
	if (c->srcMemoryType == CU_MEMORYTYPE_HOST)
		c->srcHost = s->h;
	else
		c->srcDevice = s->d;
	c->srcPitch = g->sp;
	c->srcHeight = g->sh;
	c->dstXInBytes = g->dx;
	c->dstY = g->dy;
	c->dstZ = g->dz;
	c->dstMemoryType = mtype(d, mode);
	if (c->dstMemoryType == CU_MEMORYTYPE_HOST)
		c->dstHost = d->h;
	else
		c->dstDevice = d->d;
	c->dstPitch = g->dp;
	c->dstHeight = g->dh;
	c->WidthInBytes = g->w;
	c->Height = g->h;
	c->Depth = g->d;
}

static void fill3dpeer(CUDA_MEMCPY3D_PEER *c, const struct buf *s, const struct buf *d,
		       const struct geo *g)
{
	memset(c, 0, sizeof(*c));
	c->srcXInBytes = g->sx;
	c->srcY = g->sy;
	c->srcZ = g->sz;
	c->srcMemoryType = mtype(s, M_NAT);
	if (c->srcMemoryType == CU_MEMORYTYPE_HOST)
		c->srcHost = s->h;
	else
		c->srcDevice = s->d;
	c->srcContext = ctx;
	c->srcPitch = g->sp;
	c->srcHeight = g->sh;
	c->dstXInBytes = g->dx;
	c->dstY = g->dy;
	c->dstZ = g->dz;
	c->dstMemoryType = mtype(d, M_NAT);
	if (c->dstMemoryType == CU_MEMORYTYPE_HOST)
		c->dstHost = d->h;
	else
		c->dstDevice = d->d;
	c->dstContext = ctx;
	c->dstPitch = g->dp;
	c->dstHeight = g->dh;
	c->WidthInBytes = g->w;
	c->Height = g->h;
	c->Depth = g->d;
}

static void fillrt3d(struct cudaMemcpy3DParms *p, const struct buf *s, const struct buf *d,
		     const struct geo *g, enum cudaMemcpyKind kind)
{
	memset(p, 0, sizeof(*p));
	p->srcPtr = make_cudaPitchedPtr(bptr(s), g->sp, g->sp, g->sh);
	p->srcPos = make_cudaPos(g->sx, g->sy, g->sz);
	p->dstPtr = make_cudaPitchedPtr(bptr(d), g->dp, g->dp, g->dh);
	p->dstPos = make_cudaPos(g->dx, g->dy, g->dz);
	p->extent = make_cudaExtent(g->w, g->h, g->d);
	p->kind = kind;
}

static void tweak_types(CUmemorytype *s, CUmemorytype *d, int tw)
{
	if (tw == T_SRCTYPE0)
		*s = (CUmemorytype)0;
	else if (tw == T_SRCTYPE99)
		*s = (CUmemorytype)99;
	else if (tw == T_DSTTYPE99)
		*d = (CUmemorytype)99;
}

/* Issue one copy and print its result under key. */
static void do_copy(const char *key, int api, const struct buf *s, const struct buf *d,
		    const struct geo *g, int mode, enum cudaMemcpyKind kind, int tw)
{
	unsigned char *sb = bptr(s), *db = bptr(d);
	CUDA_MEMCPY2D c2;
	CUDA_MEMCPY3D c3;
	CUDA_MEMCPY3D_PEER cp;
	struct cudaMemcpy3DParms p3;
	struct cudaMemcpy3DPeerParms pp;

	switch (api) {
	case CU2D:
	case CU2DU:
	case CU2DA:
		fill2d(&c2, s, d, g, mode);
		tweak_types(&c2.srcMemoryType, &c2.dstMemoryType, tw);
		PR(key, api == CU2D ? cuMemcpy2D(&c2) : api == CU2DU ? cuMemcpy2DUnaligned(&c2) :
		   cuMemcpy2DAsync(&c2, st));
		break;
	case CU3D:
	case CU3DA:
		fill3d(&c3, s, d, g, mode);
		tweak_types(&c3.srcMemoryType, &c3.dstMemoryType, tw);
		if (tw == T_RES0)
			c3.reserved0 = &c3;
		if (tw == T_LOD)
			c3.srcLOD = 1;
		PR(key, api == CU3D ? cuMemcpy3D(&c3) : cuMemcpy3DAsync(&c3, st));
		break;
	case CUP3D:
	case CUP3DA:
		fill3dpeer(&cp, s, d, g);
		PR(key, api == CUP3D ? cuMemcpy3DPeer(&cp) : cuMemcpy3DPeerAsync(&cp, st));
		break;
	case RT2D:
		RR(key, cudaMemcpy2D(db + g->dy * g->dp + g->dx, g->dp, sb + g->sy * g->sp + g->sx,
				     g->sp, g->w, g->h, kind));
		break;
	case RT2DA:
		RR(key, cudaMemcpy2DAsync(db + g->dy * g->dp + g->dx, g->dp,
					  sb + g->sy * g->sp + g->sx, g->sp, g->w, g->h, kind, st));
		break;
	case RT3D:
	case RT3DA:
		fillrt3d(&p3, s, d, g, kind);
		if (tw == T_XSIZE_LT_W)
			p3.srcPtr.xsize = g->w - 1;
		if (tw == T_XSIZE0)
			p3.srcPtr.xsize = 0;
		RR(key, api == RT3D ? cudaMemcpy3D(&p3) : cudaMemcpy3DAsync(&p3, st));
		break;
	case RTP3D:
	case RTP3DA:
		memset(&pp, 0, sizeof(pp));
		pp.srcPtr = make_cudaPitchedPtr(sb, g->sp, g->sp, g->sh);
		pp.srcPos = make_cudaPos(g->sx, g->sy, g->sz);
		pp.srcDevice = 0;
		pp.dstPtr = make_cudaPitchedPtr(db, g->dp, g->dp, g->dh);
		pp.dstPos = make_cudaPos(g->dx, g->dy, g->dz);
		pp.dstDevice = 0;
		pp.extent = make_cudaExtent(g->w, g->h, g->d);
		RR(key, api == RTP3D ? cudaMemcpy3DPeer(&pp) : cudaMemcpy3DPeerAsync(&pp, st));
		break;
	}
}

/*
 * A copy with the data checked: src filled with the pattern, dst with 0xee
 * (where s == d, one buffer holding the pattern), the call, a sync, the
 * whole destination compared.  envdata: the data line is "env." (overlaps,
 * whose result the documents leave undefined).
 */
static void run_copy(const char *key, int api, const struct buf *s, const struct buf *d,
		     const struct geo *g, int mode, enum cudaMemcpyKind kind, int tw, int envdata)
{
	const unsigned char *dinit = s == d ? src_img : init_img;
	const char *res;
	char k[256];

	snprintf(k, sizeof(k), "%s", key);
	bwrite(s, src_img);
	if (s != d)
		bwrite(d, init_img);
	do_copy(k, api, s, d, g, mode, kind, tw);
	if (api_rt(api))
		RR(fk("%s.sync", k), api_async(api) ? cudaStreamSynchronize(st) : cudaDeviceSynchronize());
	else
		PR(fk("%s.sync", k), api_async(api) ? cuStreamSynchronize(st) : cuCtxSynchronize());
	cudaGetLastError();
	bread(d, got_img);
	expect(exp_img, dinit, src_img, g);
	res = classify(got_img, exp_img, dinit);
	if (!strcmp(res, "mismatch") && g->d > 1 && (!g->sh || !g->dh)) {
		/* "slice_stride0": every slice read from (written to) the
		 * first, a slice height of 0 taken as is */
		literal_h0 = 1;
		expect(exp_img, dinit, src_img, g);
		literal_h0 = 0;
		if (!memcmp(got_img, exp_img, BUFN))
			res = "slice_stride0";
	}
	probe_line(fk("%s%s.data", envdata ? "env." : "", k), "%s", res);
}

/* ------------------------------------------------------------------ */
/* Process set-up and cases in processes of their own. */

static void setup(void)
{
	int v = 0;

	MUST(cuInit(0));
	MUST(cuDevicePrimaryCtxRetain(&ctx, 0));
	MUST(cuCtxSetCurrent(ctx));
	MUST(cuStreamCreate(&st, 0));
	cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MAX_PITCH, 0);
	maxpitch = (size_t)v;
	images();
}

static void child(const char *name)
{
	probe_case(argv0, fk("pitch.%s.exit", name), name, NULL, -1);
}

/* After a case that may break the context: does it still work? */
static void after(const char *key)
{
	CUdeviceptr p = 0;
	CUresult r = cuMemAlloc(&p, 4096);

	if (r == CUDA_SUCCESS)
		r = cuMemsetD8(p, 1, 4096);
	if (r == CUDA_SUCCESS)
		r = cuCtxSynchronize();
	PR(fk("%s.after", key), r);
}

/* ------------------------------------------------------------------ */
/* Sections. */

static void s_attrs(void)
{
	static const CUdevice_attribute da[] = {
		CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT,
		CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT,
		CU_DEVICE_ATTRIBUTE_MAX_PITCH,
		CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_WIDTH,
		CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT,
		CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH,
		CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING,
		CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS,
		CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS,
	};
	struct cudaDeviceProp prop;
	char name[128];
	int v, n = -1;

	for (size_t i = 0; i < sizeof(da) / sizeof(da[0]); i++) {
		v = -7;
		PR(fk("pitch.devattr.%d", (int)da[i]), cuDeviceGetAttribute(&v, da[i], 0));
		probe_line(fk("pitch.devattr.%d.value", (int)da[i]), "%d", v);
	}
	v = -7;
	RR("pitch.rtattr.texpitchalign", cudaDeviceGetAttribute(&v, cudaDevAttrTexturePitchAlignment, 0));
	probe_line("pitch.rtattr.texpitchalign.value", "%d", v);
	v = -7;
	RR("pitch.rtattr.maxpitch", cudaDeviceGetAttribute(&v, cudaDevAttrMaxPitch, 0));
	probe_line("pitch.rtattr.maxpitch.value", "%d", v);
	memset(&prop, 0, sizeof(prop));
	RR("pitch.prop", cudaGetDeviceProperties(&prop, 0));
	probe_line("pitch.prop.texturePitchAlignment", "%zu", prop.texturePitchAlignment);
	probe_line("pitch.prop.textureAlignment", "%zu", prop.textureAlignment);
	probe_line("pitch.prop.memPitch", "%zu", prop.memPitch);
	probe_line("pitch.prop.unifiedAddressing", "%d", prop.unifiedAddressing);
	RR("pitch.devicecount", cudaGetDeviceCount(&n));
	probe_line("pitch.devicecount.value", "%d", n);
	if (cuDeviceGetName(name, sizeof(name), 0) == CUDA_SUCCESS)
		probe_line("env.pitch.device_name", "%s", name);
}

#define SZ(t) probe_line("pitch.sizeof." #t, "%zu", sizeof(t))
#define OFF(t, f) probe_line("pitch.offsetof." #t "." #f, "%zu", offsetof(t, f))

static void s_layout(void)
{
	struct cudaExtent e;
	struct cudaPos p;
	struct cudaPitchedPtr pp;
	char x;

	SZ(CUDA_MEMCPY2D);
	SZ(CUDA_MEMCPY3D);
	SZ(CUDA_MEMCPY3D_PEER);
	SZ(struct cudaMemcpy3DParms);
	SZ(struct cudaMemcpy3DPeerParms);
	SZ(struct cudaPitchedPtr);
	SZ(struct cudaExtent);
	SZ(struct cudaPos);
	SZ(CUmemorytype);
	SZ(enum cudaMemcpyKind);

	OFF(CUDA_MEMCPY2D, srcXInBytes);
	OFF(CUDA_MEMCPY2D, srcY);
	OFF(CUDA_MEMCPY2D, srcMemoryType);
	OFF(CUDA_MEMCPY2D, srcHost);
	OFF(CUDA_MEMCPY2D, srcDevice);
	OFF(CUDA_MEMCPY2D, srcArray);
	OFF(CUDA_MEMCPY2D, srcPitch);
	OFF(CUDA_MEMCPY2D, dstXInBytes);
	OFF(CUDA_MEMCPY2D, dstY);
	OFF(CUDA_MEMCPY2D, dstMemoryType);
	OFF(CUDA_MEMCPY2D, dstHost);
	OFF(CUDA_MEMCPY2D, dstDevice);
	OFF(CUDA_MEMCPY2D, dstArray);
	OFF(CUDA_MEMCPY2D, dstPitch);
	OFF(CUDA_MEMCPY2D, WidthInBytes);
	OFF(CUDA_MEMCPY2D, Height);

	OFF(CUDA_MEMCPY3D, srcXInBytes);
	OFF(CUDA_MEMCPY3D, srcY);
	OFF(CUDA_MEMCPY3D, srcZ);
	OFF(CUDA_MEMCPY3D, srcLOD);
	OFF(CUDA_MEMCPY3D, srcMemoryType);
	OFF(CUDA_MEMCPY3D, srcHost);
	OFF(CUDA_MEMCPY3D, srcDevice);
	OFF(CUDA_MEMCPY3D, srcArray);
	OFF(CUDA_MEMCPY3D, reserved0);
	OFF(CUDA_MEMCPY3D, srcPitch);
	OFF(CUDA_MEMCPY3D, srcHeight);
	OFF(CUDA_MEMCPY3D, dstXInBytes);
	OFF(CUDA_MEMCPY3D, dstY);
	OFF(CUDA_MEMCPY3D, dstZ);
	OFF(CUDA_MEMCPY3D, dstLOD);
	OFF(CUDA_MEMCPY3D, dstMemoryType);
	OFF(CUDA_MEMCPY3D, dstHost);
	OFF(CUDA_MEMCPY3D, dstDevice);
	OFF(CUDA_MEMCPY3D, dstArray);
	OFF(CUDA_MEMCPY3D, reserved1);
	OFF(CUDA_MEMCPY3D, dstPitch);
	OFF(CUDA_MEMCPY3D, dstHeight);
	OFF(CUDA_MEMCPY3D, WidthInBytes);
	OFF(CUDA_MEMCPY3D, Height);
	OFF(CUDA_MEMCPY3D, Depth);

	OFF(CUDA_MEMCPY3D_PEER, srcContext);
	OFF(CUDA_MEMCPY3D_PEER, srcPitch);
	OFF(CUDA_MEMCPY3D_PEER, dstContext);
	OFF(CUDA_MEMCPY3D_PEER, Depth);

	OFF(struct cudaMemcpy3DParms, srcArray);
	OFF(struct cudaMemcpy3DParms, srcPos);
	OFF(struct cudaMemcpy3DParms, srcPtr);
	OFF(struct cudaMemcpy3DParms, dstArray);
	OFF(struct cudaMemcpy3DParms, dstPos);
	OFF(struct cudaMemcpy3DParms, dstPtr);
	OFF(struct cudaMemcpy3DParms, extent);
	OFF(struct cudaMemcpy3DParms, kind);
	OFF(struct cudaMemcpy3DPeerParms, srcDevice);
	OFF(struct cudaMemcpy3DPeerParms, dstArray);
	OFF(struct cudaMemcpy3DPeerParms, dstDevice);
	OFF(struct cudaMemcpy3DPeerParms, extent);
	OFF(struct cudaPitchedPtr, ptr);
	OFF(struct cudaPitchedPtr, pitch);
	OFF(struct cudaPitchedPtr, xsize);
	OFF(struct cudaPitchedPtr, ysize);

	e = make_cudaExtent(11, 22, 33);
	probe_line("pitch.make_cudaExtent", "%zu,%zu,%zu", e.width, e.height, e.depth);
	p = make_cudaPos(44, 55, 66);
	probe_line("pitch.make_cudaPos", "%zu,%zu,%zu", p.x, p.y, p.z);
	pp = make_cudaPitchedPtr(&x, 512, 77, 88);
	probe_line("pitch.make_cudaPitchedPtr", "ptr=%s,%zu,%zu,%zu", pp.ptr == &x ? "same" : "other",
		   pp.pitch, pp.xsize, pp.ysize);
	probe_line("pitch.enum.CU_MEMORYTYPE", "host=%d device=%d array=%d unified=%d",
		   CU_MEMORYTYPE_HOST, CU_MEMORYTYPE_DEVICE, CU_MEMORYTYPE_ARRAY,
		   CU_MEMORYTYPE_UNIFIED);
}

static void alloc_info(const char *key, CUdeviceptr p)
{
	CUdeviceptr b = 0;
	size_t s = 0;

	if (cuMemGetAddressRange(&b, &s, p) == CUDA_SUCCESS)
		probe_line(fk("%s.size", key), "%zu", s);
	else
		probe_line(fk("%s.size", key), "none");
	probe_line(fk("%s.align512", key), "%d", (p & 511) == 0);
}

static void s_alloc(void)
{
	static const size_t widths[] = { 1, 7, 64, 100, 511, 512, 513, 1000, 4096, 65536, 1 << 20 };
	static const size_t heights[] = { 1, 3, 1000 };
	static const unsigned int esz[] = { 4, 8, 16 };
	static const unsigned int badesz[] = { 0, 1, 2, 3, 5, 32, 64 };
	static const struct { size_t w, h, d; } ext[] = {
		{ 1, 1, 1 }, { 100, 3, 2 }, { 512, 4, 4 }, { 513, 1, 1 }, { 4096, 16, 8 },
		{ 65536, 2, 2 }, { 0, 0, 0 }, { 0, 1, 1 }, { 1, 0, 1 }, { 1, 1, 0 }, { 100, 0, 0 },
		{ 100, 3, 0 }, { 0, 3, 2 },
	};
	CUdeviceptr p;
	size_t pitch;
	CUresult r;

	for (size_t e = 0; e < sizeof(esz) / sizeof(esz[0]); e++)
		for (size_t w = 0; w < sizeof(widths) / sizeof(widths[0]); w++)
			for (size_t h = 0; h < sizeof(heights) / sizeof(heights[0]); h++) {
				const char *k = fk("pitch.allocpitch.e%u.w%zu.h%zu", esz[e], widths[w],
						   heights[h]);

				p = 0;
				pitch = 12345;
				r = cuMemAllocPitch(&p, &pitch, widths[w], heights[h], esz[e]);
				probe_res(k, r);
				if (r != CUDA_SUCCESS)
					continue;
				probe_line(fk("%s.pitch", k), "%zu", pitch);
				alloc_info(k, p);
				cuMemFree(p);
			}
	for (size_t e = 0; e < sizeof(badesz) / sizeof(badesz[0]); e++) {
		const char *k = fk("pitch.allocpitch.e%u.w100.h3", badesz[e]);

		p = 0;
		pitch = 12345;
		r = cuMemAllocPitch(&p, &pitch, 100, 3, badesz[e]);
		probe_res(k, r);
		probe_line(fk("%s.pitch", k), "%zu", pitch);
		if (r == CUDA_SUCCESS)
			cuMemFree(p);
	}
	{
		static const struct { const char *n; size_t w, h; } odd[] = {
			{ "w0", 0, 3 }, { "h0", 100, 0 }, { "w0h0", 0, 0 },
			{ "w_maxpitch", 0, 1 }, { "w_maxpitch1", 1, 1 }, { "w2g", 1ULL << 31, 1 },
			{ "w1t", 1ULL << 40, 1 }, { "h1t", 100, 1ULL << 40 },
		};

		for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
			size_t w = odd[i].w;
			const char *k = fk("pitch.allocpitch.%s", odd[i].n);

			if (!strncmp(odd[i].n, "w_maxpitch", 10))
				w += maxpitch;
			p = 0;
			pitch = 12345;
			r = cuMemAllocPitch(&p, &pitch, w, odd[i].h, 4);
			probe_res(k, r);
			probe_line(fk("%s.pitch", k), "%zu", pitch);
			probe_line(fk("%s.ptr", k), "%s", p ? "set" : "null");
			if (r == CUDA_SUCCESS && p)
				cuMemFree(p);
		}
		for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
			size_t w = odd[i].w;
			const char *k = fk("pitch.mallocpitch.%s", odd[i].n);
			void *q = NULL;
			cudaError_t er;

			if (!strncmp(odd[i].n, "w_maxpitch", 10))
				w += maxpitch;
			pitch = 12345;
			er = cudaMallocPitch(&q, &pitch, w, odd[i].h);
			rres(k, er);
			probe_line(fk("%s.pitch", k), "%zu", pitch);
			probe_line(fk("%s.ptr", k), "%s", q ? "set" : "null");
			if (er == cudaSuccess && q)
				cudaFree(q);
			cudaGetLastError();
		}
	}
	for (size_t w = 0; w < sizeof(widths) / sizeof(widths[0]); w++)
		for (size_t h = 0; h < sizeof(heights) / sizeof(heights[0]); h++) {
			const char *k = fk("pitch.mallocpitch.w%zu.h%zu", widths[w], heights[h]);
			void *q = NULL;
			cudaError_t er;

			pitch = 12345;
			er = cudaMallocPitch(&q, &pitch, widths[w], heights[h]);
			rres(k, er);
			if (er != cudaSuccess)
				continue;
			probe_line(fk("%s.pitch", k), "%zu", pitch);
			alloc_info(k, (uintptr_t)q);
			cudaFree(q);
		}
	for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
		const char *k = fk("pitch.malloc3d.%zux%zux%zu", ext[i].w, ext[i].h, ext[i].d);
		struct cudaPitchedPtr pp;
		cudaError_t er;

		memset(&pp, 0xab, sizeof(pp));
		er = cudaMalloc3D(&pp, make_cudaExtent(ext[i].w, ext[i].h, ext[i].d));
		rres(k, er);
		cudaGetLastError();
		probe_line(fk("%s.ptr", k), "%s", pp.ptr == NULL ? "null" :
			   (uintptr_t)pp.ptr == 0xababababababababULL ? "untouched" : "set");
		probe_line(fk("%s.pitch", k), "%zu", pp.pitch);
		probe_line(fk("%s.xsize", k), "%zu", pp.xsize);
		probe_line(fk("%s.ysize", k), "%zu", pp.ysize);
		if (er != cudaSuccess || !pp.ptr || (uintptr_t)pp.ptr == 0xababababababababULL)
			continue;
		alloc_info(k, (uintptr_t)pp.ptr);
		probe_line(fk("env.%s.align4096", k), "%d", ((uintptr_t)pp.ptr & 4095) == 0);
		probe_line(fk("env.%s.align2m", k), "%d", ((uintptr_t)pp.ptr & (M2 - 1)) == 0);
		cudaFree(pp.ptr);
	}
}

/* Every API between every pair of kinds. */
static struct buf dev1, dev2, page1, page2, pin, man;

static void mkbufs(void)
{
	dev1 = mkbuf(K_DEV);
	dev2 = mkbuf(K_DEV);
	page1 = mkbuf(K_PAGE);
	page2 = mkbuf(K_PAGE);
	pin = mkbuf(K_PIN);
	man = mkbuf(K_MAN);
}

static const struct {
	const char *n;
	struct buf *s, *d;
	enum cudaMemcpyKind kind;
} pairs[] = {
	{ "d2d", &dev1, &dev2, cudaMemcpyDeviceToDevice },
	{ "h2d", &page1, &dev1, cudaMemcpyHostToDevice },
	{ "p2d", &pin, &dev1, cudaMemcpyHostToDevice },
	{ "d2p", &dev1, &pin, cudaMemcpyDeviceToHost },
	{ "d2h", &dev1, &page1, cudaMemcpyDeviceToHost },
	{ "m2d", &man, &dev1, cudaMemcpyDeviceToDevice },
	{ "d2m", &dev1, &man, cudaMemcpyDeviceToDevice },
	{ "h2h", &page1, &page2, cudaMemcpyHostToHost },
	{ "h2m", &page1, &man, cudaMemcpyHostToDevice },
};
#define NPAIRS (sizeof(pairs) / sizeof(pairs[0]))

static int api_3d(int a)
{
	return a == CU3D || a == CU3DA || a == RT3D || a == RT3DA || a >= CUP3D;
}

static void s_copy(void)
{
	mkbufs();
	for (size_t i = 0; i < NPAIRS; i++)
		for (int a = CU2D; a <= RT3DA; a++)
			run_copy(fk("pitch.copy.%s.%s", api_name[a], pairs[i].n), a, pairs[i].s,
				 pairs[i].d, api_3d(a) ? &G3 : &G2, M_NAT, cudaMemcpyDefault, T_NONE, 0);
	/* CU_MEMORYTYPE_UNIFIED for both sides. */
	for (size_t i = 0; i < NPAIRS; i++) {
		if (pairs[i].s->kind == K_PAGE || pairs[i].d->kind == K_PAGE)
			continue;	/* pageable memory as UNIFIED: a case of its own */
		run_copy(fk("pitch.copy.unified.cu2d.%s", pairs[i].n), CU2D, pairs[i].s, pairs[i].d,
			 &G2, M_UNI, cudaMemcpyDefault, T_NONE, 0);
		run_copy(fk("pitch.copy.unified.cu3d.%s", pairs[i].n), CU3D, pairs[i].s, pairs[i].d,
			 &G3, M_UNI, cudaMemcpyDefault, T_NONE, 0);
	}
	/* Managed memory given as CU_MEMORYTYPE_HOST. */
	run_copy("pitch.copy.managed_as_host.cu2d.m2d", CU2D, &man, &dev1, &G2, M_MANHOST,
		 cudaMemcpyDefault, T_NONE, 0);
	run_copy("pitch.copy.managed_as_host.cu2d.d2m", CU2D, &dev1, &man, &G2, M_MANHOST,
		 cudaMemcpyDefault, T_NONE, 0);
	/* The runtime with the kind that matches the pointers. */
	for (size_t i = 0; i < NPAIRS; i++) {
		run_copy(fk("pitch.copy.kind.rt2d.%s", pairs[i].n), RT2D, pairs[i].s, pairs[i].d,
			 &G2, M_NAT, pairs[i].kind, T_NONE, 0);
		run_copy(fk("pitch.copy.kind.rt3d.%s", pairs[i].n), RT3D, pairs[i].s, pairs[i].d,
			 &G3, M_NAT, pairs[i].kind, T_NONE, 0);
	}
	/* Kinds that contradict memory every side can reach anyway. */
	run_copy("pitch.copy.kind.rt2d.d2d_pinned_src", RT2D, &pin, &dev1, &G2, M_NAT,
		 cudaMemcpyDeviceToDevice, T_NONE, 0);
	run_copy("pitch.copy.kind.rt2d.h2d_managed_src", RT2D, &man, &dev1, &G2, M_NAT,
		 cudaMemcpyHostToDevice, T_NONE, 0);
	run_copy("pitch.copy.kind.rt2d.d2h_managed_dst", RT2D, &dev1, &man, &G2, M_NAT,
		 cudaMemcpyDeviceToHost, T_NONE, 0);
	run_copy("pitch.copy.kind.rt2d.h2h_pinned", RT2D, &pin, &page1, &G2, M_NAT,
		 cudaMemcpyHostToHost, T_NONE, 0);
	run_copy("pitch.copy.kind.rt2d.kind5", RT2D, &dev1, &dev2, &G2, M_NAT,
		 (enum cudaMemcpyKind)5, T_NONE, 0);
	run_copy("pitch.copy.kind.rt2d.kind-1", RT2D, &dev1, &dev2, &G2, M_NAT,
		 (enum cudaMemcpyKind)-1, T_NONE, 0);
	run_copy("pitch.copy.kind.rt3d.kind5", RT3D, &dev1, &dev2, &G3, M_NAT,
		 (enum cudaMemcpyKind)5, T_NONE, 0);
	/* The peer forms with pitched geometry. */
	for (int a = CUP3D; a <= RTP3DA; a++) {
		run_copy(fk("pitch.copy.%s.d2d", api_name[a]), a, &dev1, &dev2, &G3, M_NAT,
			 cudaMemcpyDefault, T_NONE, 0);
		run_copy(fk("pitch.copy.%s.p2d", api_name[a]), a, &pin, &dev1, &G3, M_NAT,
			 cudaMemcpyDefault, T_NONE, 0);
	}
}

/* Invalid (or borderline) geometries, device to device. */
static void s_copyerr(void)
{
	static const int apis[] = { CU2D, CU2DU, CU2DA, CU3D, CU3DA, RT2D, RT2DA, RT3D, RT3DA };
	struct {
		const char *n;
		struct geo g;
		int only3d;
		int tw;
	} cs[] = {
		{ "valid", G3, 0, T_NONE },
		{ "spitch_lt_w", G3, 0, T_NONE },
		{ "dpitch_lt_w", G3, 0, T_NONE },
		{ "spitch_eq_w", G3, 0, T_NONE },
		{ "w0", G3, 0, T_NONE },
		{ "h0", G3, 0, T_NONE },
		{ "d0", G3, 1, T_NONE },
		{ "sx_beyond_pitch", G3, 0, T_NONE },
		{ "dx_beyond_pitch", G3, 0, T_NONE },
		{ "pitch_odd", G3, 0, T_NONE },
		{ "dpitch_odd", G3, 0, T_NONE },
		{ "pitch_maxpitch", G3, 0, T_NONE },
		{ "pitch_maxpitch1", G3, 0, T_NONE },
		{ "sheight_lt_h", G3, 1, T_NONE },
		{ "dheight_lt_h", G3, 1, T_NONE },
		{ "sheight0_d2", G3, 1, T_NONE },
		{ "sheight0_d1", G3, 1, T_NONE },
		{ "reserved0", G3, 1, T_RES0 },
		{ "srclod1", G3, 1, T_LOD },
		{ "xsize_lt_w", G3, 1, T_XSIZE_LT_W },
		{ "xsize0", G3, 1, T_XSIZE0 },
		{ "fits_lastrow", G3, 0, T_NONE },
	};

	mkbufs();
	for (size_t i = 0; i < sizeof(cs) / sizeof(cs[0]); i++) {
		struct geo *g = &cs[i].g;
		const char *n = cs[i].n;

		if (!strcmp(n, "spitch_lt_w"))
			g->sp = g->w - 1;
		else if (!strcmp(n, "dpitch_lt_w"))
			g->dp = g->w - 1;
		else if (!strcmp(n, "spitch_eq_w")) {
			g->sp = g->w;	/* rows packed: from x 0 */
			g->sx = 0;
		}
		else if (!strcmp(n, "w0"))
			g->w = 0;
		else if (!strcmp(n, "h0"))
			g->h = 0;
		else if (!strcmp(n, "d0"))
			g->d = 0;
		else if (!strcmp(n, "sx_beyond_pitch"))
			g->sx = 60;
		else if (!strcmp(n, "dx_beyond_pitch"))
			g->dx = 100;
		else if (!strcmp(n, "pitch_odd"))
			g->sp = g->dp = 1001;
		else if (!strcmp(n, "dpitch_odd"))
			g->dp = 1001;
		else if (!strncmp(n, "pitch_maxpitch", 14)) {
			/* one row at the start: nothing beyond it is touched */
			g->sp = maxpitch + (n[14] == '1');
			g->sy = g->sz = 0;
			g->h = g->d = 1;
		} else if (!strcmp(n, "sheight_lt_h"))
			g->sh = g->h - 1;
		else if (!strcmp(n, "dheight_lt_h"))
			g->dh = g->h - 1;
		else if (!strcmp(n, "sheight0_d2"))
			g->sh = 0;
		else if (!strcmp(n, "sheight0_d1")) {
			g->sh = 0;
			g->sz = 0;
			g->d = 1;
		} else if (!strcmp(n, "fits_lastrow")) {
			/* rows of 4096 from 3900 bytes in: the last row ends 96
			 * bytes before the end of the 64 KiB allocation,
			 * Height * pitch from the start would not fit */
			g->dx = 3900;
			g->dy = g->dz = 0;
			g->dp = 4096;
			g->dh = 16;
			g->h = 16;
			g->d = 1;
			g->sp = 128;
			g->sy = g->sz = 0;
		}
		for (size_t a = 0; a < sizeof(apis) / sizeof(apis[0]); a++) {
			if (cs[i].only3d && !api_3d(apis[a]))
				continue;
			if ((cs[i].tw == T_RES0 || cs[i].tw == T_LOD) && api_rt(apis[a]))
				continue;
			if ((cs[i].tw == T_XSIZE_LT_W || cs[i].tw == T_XSIZE0) && !api_rt(apis[a]))
				continue;
			{
				/* the 2D forms: one slice */
				struct geo g2 = *g;

				if (!api_3d(apis[a])) {
					g2.sz = g2.dz = 0;
					g2.d = 1;
				}
				run_copy(fk("pitch.err.%s.%s", api_name[apis[a]], n), apis[a], &dev1,
					 &dev2, &g2, M_NAT, cudaMemcpyDefault, cs[i].tw, 0);
			}
		}
	}
	/* A pitch past the driver's maximum with a 2-row copy is the
	 * pitch_maxpitch1 case above with one row; the "huge height" that
	 * overflows is a case of its own. */
}

/* Copies inside one allocation. */
static void s_overlap(void)
{
	struct geo cols = { 0, 0, 0, 512, 10, 256, 0, 0, 512, 10, 200, 7, 1 };
	struct geo over = { 0, 0, 0, 512, 10, 10, 0, 0, 512, 10, 200, 7, 1 };
	struct geo overback = { 10, 0, 0, 512, 10, 0, 0, 0, 512, 10, 200, 7, 1 };
	struct geo rows = { 0, 0, 0, 512, 10, 0, 1, 0, 512, 10, 200, 7, 1 };
	struct geo rowsback = { 0, 1, 0, 512, 10, 0, 0, 0, 512, 10, 200, 7, 1 };
	struct geo same = { 0, 0, 0, 512, 10, 0, 0, 0, 512, 10, 200, 7, 1 };
	static const int apis[] = { CU2D, CU2DA, CU3D, RT2D, RT3D };

	mkbufs();
	for (size_t a = 0; a < sizeof(apis) / sizeof(apis[0]); a++) {
		const char *n = api_name[apis[a]];

		run_copy(fk("pitch.overlap.%s.disjoint_columns", n), apis[a], &dev1, &dev1, &cols,
			 M_NAT, cudaMemcpyDefault, T_NONE, 0);
		run_copy(fk("pitch.overlap.%s.bytes_forward", n), apis[a], &dev1, &dev1, &over,
			 M_NAT, cudaMemcpyDefault, T_NONE, 1);
		run_copy(fk("pitch.overlap.%s.bytes_backward", n), apis[a], &dev1, &dev1, &overback,
			 M_NAT, cudaMemcpyDefault, T_NONE, 1);
		run_copy(fk("pitch.overlap.%s.rows_forward", n), apis[a], &dev1, &dev1, &rows,
			 M_NAT, cudaMemcpyDefault, T_NONE, 1);
		run_copy(fk("pitch.overlap.%s.rows_backward", n), apis[a], &dev1, &dev1, &rowsback,
			 M_NAT, cudaMemcpyDefault, T_NONE, 1);
		run_copy(fk("pitch.overlap.%s.self", n), apis[a], &dev1, &dev1, &same,
			 M_NAT, cudaMemcpyDefault, T_NONE, 0);
	}
	/* Host to host, overlapping, through the driver. */
	run_copy("pitch.overlap.cu2d.host_bytes_forward", CU2D, &page1, &page1, &over, M_NAT,
		 cudaMemcpyDefault, T_NONE, 1);
}

/* ------------------------------------------------------------------ */
/* Sets. */

enum { S_D8, S_D16, S_D32, S_D8A, S_D16A, S_D32A, S_RT2D, S_RT2DA, S_RT3D, S_RT3DA, NSET };
static const char *const set_name[NSET] = {
	"d2d8", "d2d16", "d2d32", "d2d8async", "d2d16async", "d2d32async",
	"rt2d", "rt2dasync", "rt3d", "rt3dasync",
};

static int set_esz(int f)
{
	return f == S_D16 || f == S_D16A ? 2 : f == S_D32 || f == S_D32A ? 4 : 1;
}

static int set_rt(int f)
{
	return f >= S_RT2D;
}

static int set_async(int f)
{
	return f == S_D8A || f == S_D16A || f == S_D32A || f == S_RT2DA || f == S_RT3DA;
}

/*
 * A set of w bytes (w / esz elements) by h rows (by d slices of sh rows,
 * the 3D forms) at offset off of buffer b, pitch p; value v (the low bytes
 * of v for the narrower forms).  The whole buffer checked.
 */
static void run_set(const char *key, int f, const struct buf *b, size_t off, size_t p,
		    size_t w, size_t h, size_t d, size_t sh, unsigned int v)
{
	int e = set_esz(f);
	CUdeviceptr dp = b->d + off;
	unsigned char pat[4];
	CUresult r = CUDA_SUCCESS;
	cudaError_t er = cudaSuccess;

	bwrite(b, init_img);
	for (int i = 0; i < 4; i++)
		pat[i] = (unsigned char)(v >> (8 * (i % e)));
	switch (f) {
	case S_D8: r = cuMemsetD2D8(dp, p, (unsigned char)v, w, h); break;
	case S_D16: r = cuMemsetD2D16(dp, p, (unsigned short)v, w / 2, h); break;
	case S_D32: r = cuMemsetD2D32(dp, p, v, w / 4, h); break;
	case S_D8A: r = cuMemsetD2D8Async(dp, p, (unsigned char)v, w, h, st); break;
	case S_D16A: r = cuMemsetD2D16Async(dp, p, (unsigned short)v, w / 2, h, st); break;
	case S_D32A: r = cuMemsetD2D32Async(dp, p, v, w / 4, h, st); break;
	case S_RT2D: er = cudaMemset2D(VP(dp), p, (int)v, w, h); break;
	case S_RT2DA: er = cudaMemset2DAsync(VP(dp), p, (int)v, w, h, st); break;
	case S_RT3D:
	case S_RT3DA: {
		struct cudaPitchedPtr pp = make_cudaPitchedPtr(VP(dp), p, w, sh);
		struct cudaExtent ex = make_cudaExtent(w, h, d);

		er = f == S_RT3D ? cudaMemset3D(pp, (int)v, ex) : cudaMemset3DAsync(pp, (int)v, ex, st);
		break;
	}
	}
	if (set_rt(f)) {
		rres(key, er);
		RR(fk("%s.sync", key), set_async(f) ? cudaStreamSynchronize(st) : cudaDeviceSynchronize());
		cudaGetLastError();
	} else {
		probe_res(key, r);
		PR(fk("%s.sync", key), set_async(f) ? cuStreamSynchronize(st) : cuCtxSynchronize());
	}
	bread(b, got_img);
	memcpy(exp_img, init_img, BUFN);
	if (f != S_RT3D && f != S_RT3DA) {
		d = 1;
		sh = h;
	}
	for (size_t z = 0; z < d; z++)
		for (size_t y = 0; y < h; y++)
			for (size_t x = 0; x < (w / e) * e; x++) {
				size_t o = off + (z * sh + y) * p + x;

				if (o < BUFN)
					exp_img[o] = pat[x % 4];
			}
	probe_line(fk("%s.data", key), "%s", classify(got_img, exp_img, init_img));
	{
		/* the bytes after each row up to the next, alone */
		int pad = 1;

		if (p > w)
			for (size_t z = 0; z < d; z++)
				for (size_t y = 0; y < h; y++)
					for (size_t x = w; x < p; x++) {
						size_t o = off + (z * sh + y) * p + x;

						if (o < BUFN && got_img[o] != 0xee)
							pad = 0;
					}
		probe_line(fk("%s.padding_untouched", key), "%d", pad);
	}
}

static void s_memset(void)
{
	static const unsigned int val[NSET] = {
		0xa5, 0xa1b2, 0xc3d4e5f6, 0x5a, 0xb1a2, 0xf6e5d4c3, 0x1a5, 0x3c, 0x77, 0x1ff,
	};

	mkbufs();
	for (int f = 0; f < NSET; f++) {
		const char *n = set_name[f];
		int e = set_esz(f);

		/* 100 bytes by 7 rows of 160, one row and 4 bytes in; the 3D
		 * forms 2 slices of 9 rows */
		run_set(fk("pitch.set.%s", n), f, &dev1, 164, 160, 100, 7, 2, 9, val[f]);
		run_set(fk("pitch.set.%s.managed", n), f, &man, 164, 160, 100, 7, 2, 9, val[f]);
		run_set(fk("pitch.set.%s.pinned", n), f, &pin, 164, 160, 100, 7, 2, 9, val[f]);
		run_set(fk("pitch.set.%s.packed", n), f, &dev1, 0, 100, 100, 7, 2, 7, val[f]);
		run_set(fk("pitch.set.%s.pitch_lt_w", n), f, &dev1, 164, 100 - e, 100, 7, 2, 9, val[f]);
		run_set(fk("pitch.set.%s.w0", n), f, &dev1, 164, 160, 0, 7, 2, 9, val[f]);
		run_set(fk("pitch.set.%s.h0", n), f, &dev1, 164, 160, 100, 0, 2, 9, val[f]);
		run_set(fk("pitch.set.%s.pitch_odd", n), f, &dev1, 164, 161, 100, 7, 2, 9, val[f]);
		run_set(fk("pitch.set.%s.pitch_2mod4", n), f, &dev1, 164, 162, 100, 7, 2, 9, val[f]);
		run_set(fk("pitch.set.%s.addr_odd", n), f, &dev1, 165, 160, 100, 7, 2, 9, val[f]);
		run_set(fk("pitch.set.%s.addr_2mod4", n), f, &dev1, 166, 160, 100, 7, 2, 9, val[f]);
		run_set(fk("pitch.set.%s.w_odd", n), f, &dev1, 164, 160, 101, 7, 2, 9, val[f]);
		run_set(fk("pitch.set.%s.fits_lastrow", n), f, &dev1, 3900, 4096, 100, 16, 1, 16,
			val[f]);
		if (f == S_RT3D || f == S_RT3DA) {
			run_set(fk("pitch.set.%s.d0", n), f, &dev1, 164, 160, 100, 7, 0, 9, val[f]);
			run_set(fk("pitch.set.%s.ysize_lt_h", n), f, &dev1, 164, 160, 100, 7, 2, 6,
				val[f]);
			run_set(fk("pitch.set.%s.ysize0_d1", n), f, &dev1, 164, 160, 100, 7, 1, 0,
				val[f]);
		}
	}
	/* The value's other bytes: the runtime takes an int. */
	run_set("pitch.set.rt2d.value_neg", S_RT2D, &dev1, 164, 160, 100, 7, 1, 7, (unsigned int)-2);
	run_set("pitch.set.rt2d.value_big", S_RT2D, &dev1, 164, 160, 100, 7, 1, 7, 0x12345678);
}

/* ------------------------------------------------------------------ */
/* Peer copies on the one device. */

static void s_peer(void)
{
	const size_t n = 4096;
	static const int bad[] = { 1, 99, -1 };
	int v = -7;

	mkbufs();
	/* linear: the data, the size 0 */
	bwrite(&dev1, src_img);
	bwrite(&dev2, init_img);
	PR("pitch.peer.cu", cuMemcpyPeer(dev2.d, ctx, dev1.d + 8, ctx, n));
	PR("pitch.peer.cu.sync", cuCtxSynchronize());
	bread(&dev2, got_img);
	memcpy(exp_img, init_img, BUFN);
	memcpy(exp_img, src_img + 8, n);
	probe_line("pitch.peer.cu.data", "%s", classify(got_img, exp_img, init_img));
	bwrite(&dev2, init_img);
	PR("pitch.peer.cuasync", cuMemcpyPeerAsync(dev2.d, ctx, dev1.d + 8, ctx, n, st));
	PR("pitch.peer.cuasync.sync", cuStreamSynchronize(st));
	bread(&dev2, got_img);
	probe_line("pitch.peer.cuasync.data", "%s", classify(got_img, exp_img, init_img));
	bwrite(&dev2, init_img);
	RR("pitch.peer.rt", cudaMemcpyPeer(VP(dev2.d), 0, VP(dev1.d + 8), 0, n));
	bread(&dev2, got_img);
	probe_line("pitch.peer.rt.data", "%s", classify(got_img, exp_img, init_img));
	bwrite(&dev2, init_img);
	RR("pitch.peer.rtasync", cudaMemcpyPeerAsync(VP(dev2.d), 0, VP(dev1.d + 8), 0, n, st));
	RR("pitch.peer.rtasync.sync", cudaStreamSynchronize(st));
	bread(&dev2, got_img);
	probe_line("pitch.peer.rtasync.data", "%s", classify(got_img, exp_img, init_img));
	/* other memory: page-locked, managed */
	bwrite(&pin, init_img);
	PR("pitch.peer.cu.to_pinned", cuMemcpyPeer(pin.d, ctx, dev1.d + 8, ctx, n));
	bread(&pin, got_img);
	probe_line("pitch.peer.cu.to_pinned.data", "%s", classify(got_img, exp_img, init_img));
	bwrite(&man, init_img);
	PR("pitch.peer.cu.to_managed", cuMemcpyPeer(man.d, ctx, dev1.d + 8, ctx, n));
	PR("pitch.peer.cu.to_managed.sync", cuCtxSynchronize());
	bread(&man, got_img);
	probe_line("pitch.peer.cu.to_managed.data", "%s", classify(got_img, exp_img, init_img));
	bwrite(&man, init_img);
	RR("pitch.peer.rt.to_managed", cudaMemcpyPeer(VP(man.d), 0, VP(dev1.d + 8), 0, n));
	bread(&man, got_img);
	probe_line("pitch.peer.rt.to_managed.data", "%s", classify(got_img, exp_img, init_img));
	/* size 0 */
	PR("pitch.peer.cu.count0", cuMemcpyPeer(dev2.d, ctx, dev1.d, ctx, 0));
	PR("pitch.peer.cuasync.count0", cuMemcpyPeerAsync(dev2.d, ctx, dev1.d, ctx, 0, st));
	RR("pitch.peer.rt.count0", cudaMemcpyPeer(VP(dev2.d), 0, VP(dev1.d), 0, 0));
	RR("pitch.peer.rtasync.count0", cudaMemcpyPeerAsync(VP(dev2.d), 0, VP(dev1.d), 0, 0, st));
	/* out of bounds of the allocation */
	PR("pitch.peer.cu.oob", cuMemcpyPeer(dev2.d, ctx, dev1.d + 8, ctx, BUFN));
	RR("pitch.peer.rt.oob", cudaMemcpyPeer(VP(dev2.d), 0, VP(dev1.d + 8), 0, BUFN));
	cudaGetLastError();
	PR("pitch.peer.oob.sync", cuCtxSynchronize());
	/* device ordinals that do not exist */
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct cudaMemcpy3DPeerParms pp;

		RR(fk("pitch.peer.rt.dstdev%d", bad[i]),
		   cudaMemcpyPeer(VP(dev2.d), bad[i], VP(dev1.d), 0, n));
		RR(fk("pitch.peer.rt.dstdev%d.lasterror", bad[i]), cudaGetLastError());
		RR(fk("pitch.peer.rt.srcdev%d", bad[i]),
		   cudaMemcpyPeer(VP(dev2.d), 0, VP(dev1.d), bad[i], n));
		cudaGetLastError();
		RR(fk("pitch.peer.rtasync.dstdev%d", bad[i]),
		   cudaMemcpyPeerAsync(VP(dev2.d), bad[i], VP(dev1.d), 0, n, st));
		cudaGetLastError();
		RR(fk("pitch.peer.rt.bothdev%d.count0", bad[i]),
		   cudaMemcpyPeer(VP(dev2.d), bad[i], VP(dev1.d), bad[i], 0));
		cudaGetLastError();
		memset(&pp, 0, sizeof(pp));
		pp.srcPtr = make_cudaPitchedPtr(VP(dev1.d), 128, 128, 10);
		pp.dstPtr = make_cudaPitchedPtr(VP(dev2.d), 160, 160, 9);
		pp.extent = make_cudaExtent(100, 7, 2);
		pp.srcDevice = 0;
		pp.dstDevice = bad[i];
		RR(fk("pitch.peer.rt3d.dstdev%d", bad[i]), cudaMemcpy3DPeer(&pp));
		cudaGetLastError();
		pp.srcDevice = bad[i];
		pp.dstDevice = 0;
		RR(fk("pitch.peer.rt3d.srcdev%d", bad[i]), cudaMemcpy3DPeer(&pp));
		cudaGetLastError();
		RR(fk("pitch.peer.rt3dasync.srcdev%d", bad[i]), cudaMemcpy3DPeerAsync(&pp, st));
		cudaGetLastError();
	}
	/* a device ordinal that disagrees with where the memory is: 0 is the
	 * only device; a pinned pointer named as device 0's */
	bwrite(&pin, init_img);
	RR("pitch.peer.rt.pinned_dst", cudaMemcpyPeer(pin.h, 0, VP(dev1.d + 8), 0, n));
	bread(&pin, got_img);
	probe_line("pitch.peer.rt.pinned_dst.data", "%s", classify(got_img, exp_img, init_img));
	/* peer access to oneself */
	v = -7;
	RR("pitch.peer.canaccess.0_0", cudaDeviceCanAccessPeer(&v, 0, 0));
	probe_line("pitch.peer.canaccess.0_0.value", "%d", v);
	v = -7;
	RR("pitch.peer.canaccess.0_1", cudaDeviceCanAccessPeer(&v, 0, 1));
	probe_line("pitch.peer.canaccess.0_1.value", "%d", v);
	cudaGetLastError();
	v = -7;
	PR("pitch.peer.cucanaccess.0_0", cuDeviceCanAccessPeer(&v, 0, 0));
	probe_line("pitch.peer.cucanaccess.0_0.value", "%d", v);
	v = -7;
	PR("pitch.peer.cucanaccess.0_1", cuDeviceCanAccessPeer(&v, 0, 1));
	probe_line("pitch.peer.cucanaccess.0_1.value", "%d", v);
	RR("pitch.peer.enable.0", cudaDeviceEnablePeerAccess(0, 0));
	RR("pitch.peer.enable.0.lasterror", cudaGetLastError());
	RR("pitch.peer.enable.1", cudaDeviceEnablePeerAccess(1, 0));
	cudaGetLastError();
	RR("pitch.peer.disable.0", cudaDeviceDisablePeerAccess(0));
	cudaGetLastError();
	PR("pitch.peer.cuenable.self", cuCtxEnablePeerAccess(ctx, 0));
	PR("pitch.peer.cudisable.self", cuCtxDisablePeerAccess(ctx));
	v = -7;
	RR("pitch.peer.p2pattr.0_0",
	   cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrAccessSupported, 0, 0));
	probe_line("pitch.peer.p2pattr.0_0.value", "%d", v);
	cudaGetLastError();
}

/* ------------------------------------------------------------------ */
/* The runtime's last error after a failing 2D call. */

static void s_lasterror(void)
{
	void *a = NULL, *b = NULL;

	RR("pitch.le.malloc", cudaMalloc(&a, BUFN));
	RR("pitch.le.malloc2", cudaMalloc(&b, BUFN));
	RR("pitch.le.start", cudaGetLastError());
	RR("pitch.le.cpy2d_pitch_lt_w", cudaMemcpy2D(b, 99, a, 128, 100, 4, cudaMemcpyDefault));
	RR("pitch.le.peek1", cudaPeekAtLastError());
	RR("pitch.le.peek2", cudaPeekAtLastError());
	RR("pitch.le.get1", cudaGetLastError());
	RR("pitch.le.get2", cudaGetLastError());
	RR("pitch.le.fail_then_ok.fail", cudaMemcpy2D(b, 128, a, 99, 100, 4, cudaMemcpyDefault));
	RR("pitch.le.fail_then_ok.ok", cudaMemcpy2D(b, 128, a, 128, 100, 4, cudaMemcpyDefault));
	RR("pitch.le.fail_then_ok.get", cudaGetLastError());
	RR("pitch.le.fail_then_ok.get2", cudaGetLastError());
	RR("pitch.le.memset2d_pitch_lt_w", cudaMemset2D(b, 99, 0, 100, 4));
	RR("pitch.le.memset2d.get", cudaGetLastError());
	{
		struct cudaMemcpy3DParms p;

		memset(&p, 0, sizeof(p));
		p.srcPtr = make_cudaPitchedPtr(a, 99, 99, 4);
		p.dstPtr = make_cudaPitchedPtr(b, 128, 128, 4);
		p.extent = make_cudaExtent(100, 4, 1);
		p.kind = cudaMemcpyDefault;
		RR("pitch.le.cpy3d_pitch_lt_w", cudaMemcpy3D(&p));
		RR("pitch.le.cpy3d.get", cudaGetLastError());
		p.kind = (enum cudaMemcpyKind)7;
		p.srcPtr.pitch = 128;
		RR("pitch.le.cpy3d_kind7", cudaMemcpy3D(&p));
		RR("pitch.le.cpy3d_kind7.get", cudaGetLastError());
	}
	{
		CUDA_MEMCPY2D c;

		memset(&c, 0, sizeof(c));
		c.srcMemoryType = c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
		c.srcDevice = (uintptr_t)a;
		c.dstDevice = (uintptr_t)b;
		c.srcPitch = 99;
		c.dstPitch = 128;
		c.WidthInBytes = 100;
		c.Height = 4;
		PR("pitch.le.driver_fail", cuMemcpy2D(&c));
		RR("pitch.le.driver_fail.rt_get", cudaGetLastError());
	}
	RR("pitch.le.sync", cudaDeviceSynchronize());
	cudaFree(a);
	cudaFree(b);
}

/* ------------------------------------------------------------------ */
/* Cases in processes of their own. */

static CUDA_MEMCPY2D c2_d2d(CUdeviceptr s, CUdeviceptr d)
{
	CUDA_MEMCPY2D c;

	memset(&c, 0, sizeof(c));
	c.srcMemoryType = c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
	c.srcDevice = s;
	c.dstDevice = d;
	c.srcPitch = 128;
	c.dstPitch = 160;
	c.WidthInBytes = 100;
	c.Height = 7;
	return c;
}

static void c_allocpitch_null_dptr(void)
{
	size_t p = 12345;

	PR("pitch.allocpitch.null_dptr", cuMemAllocPitch(NULL, &p, 100, 3, 4));
	probe_line("pitch.allocpitch.null_dptr.pitch", "%zu", p);
}

static void c_allocpitch_null_pitch(void)
{
	CUdeviceptr d = 0;

	PR("pitch.allocpitch.null_pitch", cuMemAllocPitch(&d, NULL, 100, 3, 4));
	probe_line("pitch.allocpitch.null_pitch.ptr", "%s", d ? "set" : "null");
}

static void c_mallocpitch_null_ptr(void)
{
	size_t p = 12345;

	RR("pitch.mallocpitch.null_ptr", cudaMallocPitch(NULL, &p, 100, 3));
	probe_line("pitch.mallocpitch.null_ptr.pitch", "%zu", p);
}

static void c_mallocpitch_null_pitch(void)
{
	void *q = NULL;

	RR("pitch.mallocpitch.null_pitch", cudaMallocPitch(&q, NULL, 100, 3));
	probe_line("pitch.mallocpitch.null_pitch.ptr", "%s", q ? "set" : "null");
}

static void c_malloc3d_null(void)
{
	RR("pitch.malloc3d.null", cudaMalloc3D(NULL, make_cudaExtent(100, 3, 2)));
}

static void c_cpy2d_null(void)
{
	PR("pitch.cpy2d.null", cuMemcpy2D(NULL));
	PR("pitch.cpy2d.null.unaligned", cuMemcpy2DUnaligned(NULL));
	PR("pitch.cpy2d.null.async", cuMemcpy2DAsync(NULL, st));
	after("pitch.cpy2d.null");
}

static void c_cpy3d_null(void)
{
	PR("pitch.cpy3d.null", cuMemcpy3D(NULL));
	PR("pitch.cpy3d.null.async", cuMemcpy3DAsync(NULL, st));
	after("pitch.cpy3d.null");
}

static void c_cpy3dpeer_null(void)
{
	PR("pitch.cpy3dpeer.null", cuMemcpy3DPeer(NULL));
	after("pitch.cpy3dpeer.null");
}

static void c_cpy3dpeerasync_null(void)
{
	PR("pitch.cpy3dpeerasync.null", cuMemcpy3DPeerAsync(NULL, st));
	after("pitch.cpy3dpeerasync.null");
}

static void c_rt_cpy3d_null(void)
{
	RR("pitch.rt.cpy3d.null", cudaMemcpy3D(NULL));
	RR("pitch.rt.cpy3d.null.async", cudaMemcpy3DAsync(NULL, st));
	RR("pitch.rt.cpy3d.null.peer", cudaMemcpy3DPeer(NULL));
	RR("pitch.rt.cpy3d.null.peerasync", cudaMemcpy3DPeerAsync(NULL, st));
	RR("pitch.rt.memset3d.null_ptr",
	   cudaMemset3D(make_cudaPitchedPtr(NULL, 128, 100, 4), 0, make_cudaExtent(100, 4, 2)));
	after("pitch.rt.cpy3d.null");
}

static void c_cpy2d_src_devnull(void)
{
	struct buf d = mkbuf(K_DEV);
	CUDA_MEMCPY2D c = c2_d2d(0, d.d);

	PR("pitch.cpy2d.src_devnull", cuMemcpy2D(&c));
	PR("pitch.cpy2d.src_devnull.sync", cuCtxSynchronize());
	after("pitch.cpy2d.src_devnull");
}

static void c_cpy2d_dst_devnull(void)
{
	struct buf s = mkbuf(K_DEV);
	CUDA_MEMCPY2D c = c2_d2d(s.d, 0);

	PR("pitch.cpy2d.dst_devnull", cuMemcpy2D(&c));
	PR("pitch.cpy2d.dst_devnull.sync", cuCtxSynchronize());
	after("pitch.cpy2d.dst_devnull");
}

static void c_cpy2d_dst_hostnull(void)
{
	struct buf s = mkbuf(K_DEV);
	CUDA_MEMCPY2D c = c2_d2d(s.d, 0);

	c.dstMemoryType = CU_MEMORYTYPE_HOST;
	c.dstHost = NULL;
	PR("pitch.cpy2d.dst_hostnull", cuMemcpy2D(&c));
	PR("pitch.cpy2d.dst_hostnull.sync", cuCtxSynchronize());
	after("pitch.cpy2d.dst_hostnull");
}

static void c_cpy2d_src_hostnull(void)
{
	struct buf d = mkbuf(K_DEV);
	CUDA_MEMCPY2D c = c2_d2d(0, d.d);

	c.srcMemoryType = CU_MEMORYTYPE_HOST;
	c.srcHost = NULL;
	PR("pitch.cpy2d.src_hostnull", cuMemcpy2D(&c));
	PR("pitch.cpy2d.src_hostnull.sync", cuCtxSynchronize());
	after("pitch.cpy2d.src_hostnull");
}

static void c_rt_cpy2d_nulls(void)
{
	struct buf d = mkbuf(K_DEV);

	RR("pitch.rt.cpy2d.src_null", cudaMemcpy2D(VP(d.d), 160, NULL, 128, 100, 7,
						   cudaMemcpyDefault));
	cudaGetLastError();
	RR("pitch.rt.cpy2d.src_null.sync", cudaDeviceSynchronize());
	RR("pitch.rt.cpy2d.dst_null", cudaMemcpy2D(NULL, 160, VP(d.d), 128, 100, 7,
						   cudaMemcpyDefault));
	cudaGetLastError();
	RR("pitch.rt.cpy2d.dst_null.sync", cudaDeviceSynchronize());
	RR("pitch.rt.cpy2d.both_null.w0", cudaMemcpy2D(NULL, 160, NULL, 128, 0, 7,
						       cudaMemcpyDefault));
	cudaGetLastError();
	after("pitch.rt.cpy2d.nulls");
}

static void type_case(const char *key, int tw, int api)
{
	mkbufs();
	run_copy(key, api, &dev1, &dev2, api_3d(api) ? &G3 : &G2, M_NAT, cudaMemcpyDefault, tw, 0);
	after(key);
}

static void c_cpy2d_src_type0(void)
{
	type_case("pitch.cpy2d.src_type0", T_SRCTYPE0, CU2D);
}

static void c_cpy2d_src_type99(void)
{
	type_case("pitch.cpy2d.src_type99", T_SRCTYPE99, CU2D);
}

static void c_cpy2d_dst_type99(void)
{
	type_case("pitch.cpy2d.dst_type99", T_DSTTYPE99, CU2D);
}

static void c_cpy3d_src_type99(void)
{
	type_case("pitch.cpy3d.src_type99", T_SRCTYPE99, CU3D);
}

static void c_cpy2d_unified_pageable(void)
{
	mkbufs();
	run_copy("pitch.cpy2d.unified_pageable_src", CU2D, &page1, &dev1, &G2, M_UNI,
		 cudaMemcpyDefault, T_NONE, 0);
	run_copy("pitch.cpy2d.unified_pageable_dst", CU2D, &dev1, &page1, &G2, M_UNI,
		 cudaMemcpyDefault, T_NONE, 0);
	run_copy("pitch.cpy2d.unified_pageable_both", CU2D, &page1, &page2, &G2, M_UNI,
		 cudaMemcpyDefault, T_NONE, 0);
	run_copy("pitch.cpy3d.unified_pageable_src", CU3D, &page1, &dev1, &G3, M_UNI,
		 cudaMemcpyDefault, T_NONE, 0);
	after("pitch.cpy2d.unified_pageable");
}

/* A device pointer given as CU_MEMORYTYPE_HOST. */
static void c_cpy2d_hosttype_devptr(void)
{
	struct buf s = mkbuf(K_DEV), d = mkbuf(K_DEV);
	CUDA_MEMCPY2D c = c2_d2d(s.d, d.d);

	c.srcMemoryType = CU_MEMORYTYPE_HOST;
	c.srcHost = VP(s.d);
	c.srcDevice = 0;
	PR("pitch.cpy2d.hosttype_devptr", cuMemcpy2D(&c));
	PR("pitch.cpy2d.hosttype_devptr.sync", cuCtxSynchronize());
	after("pitch.cpy2d.hosttype_devptr");
}

/* A pageable pointer given as CU_MEMORYTYPE_DEVICE. */
static void c_cpy2d_devtype_hostptr(void)
{
	struct buf s = mkbuf(K_PAGE), d = mkbuf(K_DEV);
	CUDA_MEMCPY2D c = c2_d2d(s.d, d.d);

	PR("pitch.cpy2d.devtype_hostptr", cuMemcpy2D(&c));
	PR("pitch.cpy2d.devtype_hostptr.sync", cuCtxSynchronize());
	after("pitch.cpy2d.devtype_hostptr");
}

static void c_cpy2d_array_null(void)
{
	struct buf d = mkbuf(K_DEV);
	CUDA_MEMCPY2D c = c2_d2d(0, d.d);

	c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
	c.srcArray = NULL;
	PR("pitch.cpy2d.array_null", cuMemcpy2D(&c));
	PR("pitch.cpy2d.array_null.sync", cuCtxSynchronize());
	after("pitch.cpy2d.array_null");
}

/*
 * Past the end of a 2 MiB cuMemAlloc: rows of 4096 bytes, the first 4 of 8
 * inside, or (lastrow) all rows inside but the last, which runs 50 bytes
 * past the end.
 */
static void oob_case(const char *key, int what)
{
	CUdeviceptr big = 0, s = 0, end;
	CUresult r = CUDA_SUCCESS;
	cudaError_t er = cudaSuccess;
	int rt = 0;

	MUST(cuMemAlloc(&big, M2));
	MUST(cuMemAlloc(&s, BUFN));
	end = big + M2;
	switch (what) {
	case 0: {	/* cu2d dst */
		CUDA_MEMCPY2D c = c2_d2d(s, end - 4 * 4096);

		c.dstPitch = 4096;
		c.Height = 8;
		r = cuMemcpy2D(&c);
		break;
	}
	case 1: {	/* cu2d src */
		CUDA_MEMCPY2D c = c2_d2d(end - 4 * 4096, s);

		c.srcPitch = 4096;
		c.Height = 8;
		r = cuMemcpy2D(&c);
		break;
	}
	case 2: {	/* cu2dasync dst */
		CUDA_MEMCPY2D c = c2_d2d(s, end - 4 * 4096);

		c.dstPitch = 4096;
		c.Height = 8;
		r = cuMemcpy2DAsync(&c, st);
		break;
	}
	case 3: {	/* cu3d dst: the second slice past the end */
		CUDA_MEMCPY3D c;

		memset(&c, 0, sizeof(c));
		c.srcMemoryType = c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
		c.srcDevice = s;
		c.srcPitch = 128;
		c.srcHeight = 8;
		c.dstDevice = end - 6 * 4096;
		c.dstPitch = 4096;
		c.dstHeight = 8;
		c.WidthInBytes = 100;
		c.Height = 4;
		c.Depth = 2;
		r = cuMemcpy3D(&c);
		break;
	}
	case 4:		/* rt2d dst */
		rt = 1;
		er = cudaMemcpy2D(VP(end - 4 * 4096), 4096, VP(s), 128, 100, 8, cudaMemcpyDefault);
		break;
	case 5: {	/* rt3d dst */
		struct cudaMemcpy3DParms p;

		memset(&p, 0, sizeof(p));
		p.srcPtr = make_cudaPitchedPtr(VP(s), 128, 128, 8);
		p.dstPtr = make_cudaPitchedPtr(VP(end - 6 * 4096), 4096, 4096, 8);
		p.extent = make_cudaExtent(100, 4, 2);
		p.kind = cudaMemcpyDefault;
		rt = 1;
		er = cudaMemcpy3D(&p);
		break;
	}
	case 6:		/* cuMemsetD2D8 */
		r = cuMemsetD2D8(end - 4 * 4096, 4096, 1, 100, 8);
		break;
	case 7:		/* cudaMemset2D */
		rt = 1;
		er = cudaMemset2D(VP(end - 4 * 4096), 4096, 1, 100, 8);
		break;
	case 8: {	/* cu2d dst, the last row 50 bytes past */
		CUDA_MEMCPY2D c = c2_d2d(s, end - 7 * 4096 - 50);

		c.dstPitch = 4096;
		c.Height = 8;
		r = cuMemcpy2D(&c);
		break;
	}
	case 9:		/* cuMemsetD2D32, the last row 48 bytes past */
		r = cuMemsetD2D32(end - 7 * 4096 - 48, 4096, 1, 25, 8);
		break;
	case 10: {	/* cu2d: a huge height whose rows overflow */
		CUDA_MEMCPY2D c = c2_d2d(s, big);

		c.dstPitch = 4096;
		c.Height = (SIZE_MAX / 4096) + 2;
		r = cuMemcpy2D(&c);
		break;
	}
	case 11:	/* rt2d: the same */
		rt = 1;
		er = cudaMemcpy2D(VP(big), 4096, VP(s), 128, 100, (SIZE_MAX / 4096) + 2,
				  cudaMemcpyDefault);
		break;
	case 12: {	/* cu2d: a pitch past the maximum, 2 rows */
		CUDA_MEMCPY2D c = c2_d2d(s, big);

		c.dstPitch = maxpitch + 1;
		c.Height = 2;
		r = cuMemcpy2D(&c);
		break;
	}
	}
	if (rt) {
		rres(key, er);
		RR(fk("%s.lasterror", key), cudaGetLastError());
		RR(fk("%s.sync", key), cudaDeviceSynchronize());
	} else {
		probe_res(key, r);
		PR(fk("%s.sync", key), cuCtxSynchronize());
	}
	after(key);
}

static void c_oob_cpy2d_dst(void) { oob_case("pitch.oob.cu2d_dst", 0); }
static void c_oob_cpy2d_src(void) { oob_case("pitch.oob.cu2d_src", 1); }
static void c_oob_cpy2dasync_dst(void) { oob_case("pitch.oob.cu2dasync_dst", 2); }
static void c_oob_cpy3d_dst(void) { oob_case("pitch.oob.cu3d_dst", 3); }
static void c_oob_rt2d_dst(void) { oob_case("pitch.oob.rt2d_dst", 4); }
static void c_oob_rt3d_dst(void) { oob_case("pitch.oob.rt3d_dst", 5); }
static void c_oob_memsetd2d8(void) { oob_case("pitch.oob.memsetd2d8", 6); }
static void c_oob_rtmemset2d(void) { oob_case("pitch.oob.rtmemset2d", 7); }
static void c_oob_cpy2d_lastrow(void) { oob_case("pitch.oob.cu2d_lastrow", 8); }
static void c_oob_memsetd2d32_lastrow(void) { oob_case("pitch.oob.memsetd2d32_lastrow", 9); }
static void c_huge_height_cu2d(void) { oob_case("pitch.hugeheight.cu2d", 10); }
static void c_huge_height_rt2d(void) { oob_case("pitch.hugeheight.rt2d", 11); }
static void c_maxpitch1_rows2(void) { oob_case("pitch.maxpitch1_rows2.cu2d", 12); }

/* cudaMemcpy2D with a kind that contradicts the pointers. */
static void kind_case(const char *key, int sk, int dk, enum cudaMemcpyKind kind)
{
	struct buf s = mkbuf(sk), d = mkbuf(dk);

	bwrite(&s, src_img);
	bwrite(&d, init_img);
	RR(key, cudaMemcpy2D((char *)bptr(&d) + 160, 160, bptr(&s), 128, 100, 7, kind));
	RR(fk("%s.lasterror", key), cudaGetLastError());
	RR(fk("%s.sync", key), cudaDeviceSynchronize());
	bread(&d, got_img);
	expect(exp_img, init_img, src_img,
	       &(struct geo){ 0, 0, 0, 128, 7, 0, 1, 0, 160, 8, 100, 7, 1 });
	probe_line(fk("%s.data", key), "%s", classify(got_img, exp_img, init_img));
	after(key);
}

static void c_kind_h2d_devptrs(void)
{
	kind_case("pitch.kind.rt2d.h2d_devptrs", K_DEV, K_DEV, cudaMemcpyHostToDevice);
}

static void c_kind_d2h_devptrs(void)
{
	kind_case("pitch.kind.rt2d.d2h_devptrs", K_DEV, K_DEV, cudaMemcpyDeviceToHost);
}

static void c_kind_h2h_devptrs(void)
{
	kind_case("pitch.kind.rt2d.h2h_devptrs", K_DEV, K_DEV, cudaMemcpyHostToHost);
}

static void c_kind_d2d_pageable(void)
{
	kind_case("pitch.kind.rt2d.d2d_pageable", K_PAGE, K_PAGE, cudaMemcpyDeviceToDevice);
}

static void c_kind_d2h_hostsrc(void)
{
	kind_case("pitch.kind.rt2d.d2h_pageable_src", K_PAGE, K_DEV, cudaMemcpyDeviceToHost);
}

static void c_kind_h2d_pageable_dst(void)
{
	kind_case("pitch.kind.rt2d.h2d_pageable_dst", K_DEV, K_PAGE, cudaMemcpyHostToDevice);
}

static void c_memset2d_pageable(void)
{
	struct buf b = mkbuf(K_PAGE);

	memset(b.h, 0xee, BUFN);
	PR("pitch.memsetd2d8.pageable", cuMemsetD2D8(b.d, 160, 1, 100, 7));
	PR("pitch.memsetd2d8.pageable.sync", cuCtxSynchronize());
	probe_line("pitch.memsetd2d8.pageable.written", "%d", b.h[0] == 1);
	RR("pitch.rt.memset2d.pageable", cudaMemset2D(b.h, 160, 2, 100, 7));
	RR("pitch.rt.memset2d.pageable.sync", cudaDeviceSynchronize());
	cudaGetLastError();
	probe_line("pitch.rt.memset2d.pageable.written", "%d", b.h[0] == 2);
	after("pitch.memset2d.pageable");
}

static void c_peer_null_dst(void)
{
	struct buf s = mkbuf(K_DEV);

	PR("pitch.peer.cu.null_dst", cuMemcpyPeer(0, ctx, s.d, ctx, 4096));
	PR("pitch.peer.cu.null_dst.sync", cuCtxSynchronize());
	after("pitch.peer.cu.null_dst");
}

static void c_peer_null_src(void)
{
	struct buf d = mkbuf(K_DEV);

	PR("pitch.peer.cu.null_src", cuMemcpyPeer(d.d, ctx, 0, ctx, 4096));
	PR("pitch.peer.cu.null_src.sync", cuCtxSynchronize());
	after("pitch.peer.cu.null_src");
}

static void c_peer_null_ctx(void)
{
	struct buf s = mkbuf(K_DEV), d = mkbuf(K_DEV);

	PR("pitch.peer.cu.null_dstctx", cuMemcpyPeer(d.d, NULL, s.d, ctx, 4096));
	PR("pitch.peer.cu.null_srcctx", cuMemcpyPeer(d.d, ctx, s.d, NULL, 4096));
	PR("pitch.peer.cu.null_bothctx", cuMemcpyPeer(d.d, NULL, s.d, NULL, 4096));
	PR("pitch.peer.cu.null_ctx.sync", cuCtxSynchronize());
	after("pitch.peer.cu.null_ctx");
}

static void c_peer_count0_null(void)
{
	PR("pitch.peer.cu.count0_null", cuMemcpyPeer(0, ctx, 0, ctx, 0));
	RR("pitch.peer.rt.count0_null", cudaMemcpyPeer(NULL, 0, NULL, 0, 0));
	after("pitch.peer.count0_null");
}

static void c_peer_rt_nulls(void)
{
	struct buf s = mkbuf(K_DEV);

	RR("pitch.peer.rt.null_dst", cudaMemcpyPeer(NULL, 0, VP(s.d), 0, 4096));
	RR("pitch.peer.rt.null_dst.lasterror", cudaGetLastError());
	RR("pitch.peer.rt.null_src", cudaMemcpyPeer(VP(s.d), 0, NULL, 0, 4096));
	RR("pitch.peer.rt.null_src.lasterror", cudaGetLastError());
	RR("pitch.peer.rt.nulls.sync", cudaDeviceSynchronize());
	after("pitch.peer.rt.nulls");
}

static void c_peer_pageable(void)
{
	struct buf s = mkbuf(K_PAGE), d = mkbuf(K_DEV);

	memcpy(s.h, src_img, BUFN);
	PR("pitch.peer.cu.pageable_src", cuMemcpyPeer(d.d, ctx, s.d, ctx, 4096));
	PR("pitch.peer.cu.pageable_src.sync", cuCtxSynchronize());
	RR("pitch.peer.rt.pageable_src", cudaMemcpyPeer(VP(d.d), 0, s.h, 0, 4096));
	RR("pitch.peer.rt.pageable_src.sync", cudaDeviceSynchronize());
	cudaGetLastError();
	after("pitch.peer.pageable");
}

/* ------------------------------------------------------------------ */

static const struct {
	const char *name;
	void (*fn)(void);
} cases[] = {
	{ "sec.attrs", s_attrs },
	{ "sec.layout", s_layout },
	{ "sec.alloc", s_alloc },
	{ "sec.copy", s_copy },
	{ "sec.copyerr", s_copyerr },
	{ "sec.overlap", s_overlap },
	{ "sec.memset", s_memset },
	{ "sec.peer", s_peer },
	{ "sec.lasterror", s_lasterror },
	{ "allocpitch.null_dptr", c_allocpitch_null_dptr },
	{ "allocpitch.null_pitch", c_allocpitch_null_pitch },
	{ "mallocpitch.null_ptr", c_mallocpitch_null_ptr },
	{ "mallocpitch.null_pitch", c_mallocpitch_null_pitch },
	{ "malloc3d.null", c_malloc3d_null },
	{ "cpy2d.null", c_cpy2d_null },
	{ "cpy3d.null", c_cpy3d_null },
	{ "cpy3dpeer.null", c_cpy3dpeer_null },
	{ "cpy3dpeerasync.null", c_cpy3dpeerasync_null },
	{ "rt.cpy3d.null", c_rt_cpy3d_null },
	{ "cpy2d.src_devnull", c_cpy2d_src_devnull },
	{ "cpy2d.dst_devnull", c_cpy2d_dst_devnull },
	{ "cpy2d.src_hostnull", c_cpy2d_src_hostnull },
	{ "cpy2d.dst_hostnull", c_cpy2d_dst_hostnull },
	{ "rt.cpy2d.nulls", c_rt_cpy2d_nulls },
	{ "cpy2d.src_type0", c_cpy2d_src_type0 },
	{ "cpy2d.src_type99", c_cpy2d_src_type99 },
	{ "cpy2d.dst_type99", c_cpy2d_dst_type99 },
	{ "cpy3d.src_type99", c_cpy3d_src_type99 },
	{ "cpy2d.unified_pageable", c_cpy2d_unified_pageable },
	{ "cpy2d.hosttype_devptr", c_cpy2d_hosttype_devptr },
	{ "cpy2d.devtype_hostptr", c_cpy2d_devtype_hostptr },
	{ "cpy2d.array_null", c_cpy2d_array_null },
	{ "oob.cu2d_dst", c_oob_cpy2d_dst },
	{ "oob.cu2d_src", c_oob_cpy2d_src },
	{ "oob.cu2dasync_dst", c_oob_cpy2dasync_dst },
	{ "oob.cu3d_dst", c_oob_cpy3d_dst },
	{ "oob.rt2d_dst", c_oob_rt2d_dst },
	{ "oob.rt3d_dst", c_oob_rt3d_dst },
	{ "oob.memsetd2d8", c_oob_memsetd2d8 },
	{ "oob.rtmemset2d", c_oob_rtmemset2d },
	{ "oob.cu2d_lastrow", c_oob_cpy2d_lastrow },
	{ "oob.memsetd2d32_lastrow", c_oob_memsetd2d32_lastrow },
	{ "hugeheight.cu2d", c_huge_height_cu2d },
	{ "hugeheight.rt2d", c_huge_height_rt2d },
	{ "maxpitch1_rows2.cu2d", c_maxpitch1_rows2 },
	{ "kind.h2d_devptrs", c_kind_h2d_devptrs },
	{ "kind.d2h_devptrs", c_kind_d2h_devptrs },
	{ "kind.h2h_devptrs", c_kind_h2h_devptrs },
	{ "kind.d2d_pageable", c_kind_d2d_pageable },
	{ "kind.d2h_pageable_src", c_kind_d2h_hostsrc },
	{ "kind.h2d_pageable_dst", c_kind_h2d_pageable_dst },
	{ "memset2d.pageable", c_memset2d_pageable },
	{ "peer.null_dst", c_peer_null_dst },
	{ "peer.null_src", c_peer_null_src },
	{ "peer.null_ctx", c_peer_null_ctx },
	{ "peer.count0_null", c_peer_count0_null },
	{ "peer.rt_nulls", c_peer_rt_nulls },
	{ "peer.pageable", c_peer_pageable },
};

int main(int argc, char **argv)
{
	argv0 = argv[0];
	if (argc >= 3 && !strcmp(argv[1], "case")) {
		alarm(90);
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			if (strcmp(cases[i].name, argv[2]))
				continue;
			setup();
			cases[i].fn();
			fflush(stdout);
			_exit(0);
		}
		fprintf(stderr, "unknown case %s\n", argv[2]);
		return 1;
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		child(cases[i].name);
	return 0;
}
