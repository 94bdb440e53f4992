// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * probe_planar - the video formats of CUDA arrays (NV12, P010, P016, NV16,
 * P210, P216, YUY2, Y210, Y216, AYUV, Y410, Y416, Y444_PLANAR8,
 * Y444_PLANAR10) through cuArray3DCreate with
 * CUDA_ARRAY3D_VIDEO_ENCODE_DECODE: which channel counts and dimensions each
 * takes, its descriptor, its planes (cuArrayGetPlane) and their
 * descriptors, and the data of each plane round-tripped, each plane apart
 * from the others.
 *
 *   probe_planar              runs every format, each in a process of its own
 *   probe_planar case NAME    runs one
 *
 * Descriptors print as "W,H,D fmt=0xNN ch=N flags=0xNN".  Data checks print
 * "ok" (what was written, read back), "mismatch", or "skipped" for a plane
 * whose format is no plain integer format.
 */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "probe.h"

static const char *argv0;
static CUcontext ctx;

static const struct {
	const char *name;
	CUarray_format f;
} formats[] = {
	{ "nv12", CU_AD_FORMAT_NV12 }, { "p010", CU_AD_FORMAT_P010 },
	{ "p016", CU_AD_FORMAT_P016 }, { "nv16", CU_AD_FORMAT_NV16 },
	{ "p210", CU_AD_FORMAT_P210 }, { "p216", CU_AD_FORMAT_P216 },
	{ "yuy2", CU_AD_FORMAT_YUY2 }, { "y210", CU_AD_FORMAT_Y210 },
	{ "y216", CU_AD_FORMAT_Y216 }, { "ayuv", CU_AD_FORMAT_AYUV },
	{ "y410", CU_AD_FORMAT_Y410 }, { "y416", CU_AD_FORMAT_Y416 },
	{ "y444p8", CU_AD_FORMAT_Y444_PLANAR8 }, { "y444p10", CU_AD_FORMAT_Y444_PLANAR10 },
};

static CUarray mk(size_t w, size_t h, size_t d, CUarray_format f, unsigned int ch,
		  unsigned int flags, CUresult *rp)
{
	CUDA_ARRAY3D_DESCRIPTOR ad;
	CUarray a = NULL;

	memset(&ad, 0, sizeof(ad));
	ad.Width = w;
	ad.Height = h;
	ad.Depth = d;
	ad.Format = f;
	ad.NumChannels = ch;
	ad.Flags = flags;
	*rp = cuArray3DCreate(&a, &ad);
	return *rp == CUDA_SUCCESS ? a : NULL;
}

static int desc3(const char *key, CUarray a, CUDA_ARRAY3D_DESCRIPTOR *d)
{
	CUresult r;

	memset(d, 0, sizeof(*d));
	r = cuArray3DGetDescriptor(d, a);
	if (r != CUDA_SUCCESS) {
		probe_res(fk("%s.desc3d", key), r);
		return 0;
	}
	probe_line(fk("%s.desc3d", key), "%zu,%zu,%zu fmt=0x%x ch=%u flags=0x%x", d->Width,
		   d->Height, d->Depth, (unsigned int)d->Format, d->NumChannels, d->Flags);
	return 1;
}

/* Bytes per element of a plain integer format, 0 for others. */
static size_t elem_of(const CUDA_ARRAY3D_DESCRIPTOR *d)
{
	switch (d->Format) {
	case CU_AD_FORMAT_UNSIGNED_INT8:
	case CU_AD_FORMAT_SIGNED_INT8:
		return d->NumChannels;
	case CU_AD_FORMAT_UNSIGNED_INT16:
	case CU_AD_FORMAT_SIGNED_INT16:
	case CU_AD_FORMAT_HALF:
		return 2 * d->NumChannels;
	case CU_AD_FORMAT_UNSIGNED_INT32:
	case CU_AD_FORMAT_SIGNED_INT32:
	case CU_AD_FORMAT_FLOAT:
		return 4 * d->NumChannels;
	default:
		return 0;
	}
}

static CUresult plane_copy(CUarray p, void *host, size_t row, size_t h, int to_array)
{
	CUDA_MEMCPY2D c;

	memset(&c, 0, sizeof(c));
	c.WidthInBytes = row;
	c.Height = h;
	if (to_array) {
		c.srcMemoryType = CU_MEMORYTYPE_HOST;
		c.srcHost = host;
		c.srcPitch = row;
		c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
		c.dstArray = p;
	} else {
		c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
		c.srcArray = p;
		c.dstMemoryType = CU_MEMORYTYPE_HOST;
		c.dstHost = host;
		c.dstPitch = row;
	}
	return cuMemcpy2D(&c);
}

/* One format: channel counts, dimensions, planes, data. */
static void one(size_t i)
{
	const char *n = formats[i].name;
	const CUarray_format f = formats[i].f;
	unsigned int good = 0;
	CUresult r;
	CUarray a;

	for (unsigned int ch = 1; ch <= 4; ch++) {
		a = mk(128, 64, 0, f, ch, CUDA_ARRAY3D_VIDEO_ENCODE_DECODE, &r);
		probe_res(fk("pl.%s.ch%u", n, ch), r);
		if (a) {
			if (!good)
				good = ch;
			cuArrayDestroy(a);
		}
	}
	a = mk(128, 64, 0, f, good ? good : 3, 0, &r);
	probe_res(fk("pl.%s.novideo", n), r);
	if (a)
		cuArrayDestroy(a);
	if (!good)
		return;
	{
		static const struct { const char *k; size_t w, h, d; } dims[] = {
			{ "w127", 127, 64, 0 }, { "h63", 128, 63, 0 }, { "w2h2", 2, 2, 0 },
			{ "w1h1", 1, 1, 0 }, { "3d", 128, 64, 2 }, { "1d", 128, 0, 0 },
			{ "w4096h2160", 4096, 2160, 0 },
		};

		for (size_t k = 0; k < sizeof(dims) / sizeof(dims[0]); k++) {
			a = mk(dims[k].w, dims[k].h, dims[k].d, f, good,
			       CUDA_ARRAY3D_VIDEO_ENCODE_DECODE, &r);
			probe_res(fk("pl.%s.%s", n, dims[k].k), r);
			if (a)
				cuArrayDestroy(a);
		}
		a = mk(128, 64, 4, f, good, CUDA_ARRAY3D_VIDEO_ENCODE_DECODE | CUDA_ARRAY3D_LAYERED,
		       &r);
		probe_res(fk("pl.%s.layered", n), r);
		if (a)
			cuArrayDestroy(a);
		a = mk(128, 64, 0, f, good, CUDA_ARRAY3D_VIDEO_ENCODE_DECODE |
		       CUDA_ARRAY3D_SURFACE_LDST, &r);
		probe_res(fk("pl.%s.surface", n), r);
		if (a)
			cuArrayDestroy(a);
	}

	a = mk(128, 64, 0, f, good, CUDA_ARRAY3D_VIDEO_ENCODE_DECODE, &r);
	if (!a)
		return;
	{
		CUDA_ARRAY3D_DESCRIPTOR d, pd[4];
		unsigned char *img[4] = { NULL }, *back;
		size_t row[4] = { 0 };
		unsigned int np = 0;

		desc3(fk("pl.%s", n), a, &d);
		for (unsigned int p = 0; p < 4; p++) {
			CUarray pl = NULL;
			const char *k = fk("pl.%s.plane%u", n, p);

			r = cuArrayGetPlane(&pl, a, p);
			probe_res(k, r);
			if (r != CUDA_SUCCESS)
				break;
			np++;
			if (!desc3(k, pl, &pd[p]))
				continue;
			row[p] = pd[p].Width * elem_of(&pd[p]);
			if (!row[p]) {
				probe_line(fk("%s.data", k), "skipped");
				continue;
			}
			img[p] = malloc(row[p] * pd[p].Height);
			back = malloc(row[p] * pd[p].Height);
			for (size_t b = 0; b < row[p] * pd[p].Height; b++)
				img[p][b] = (unsigned char)(b * 13 + p * 71 + 5);
			PR(fk("%s.write", k), plane_copy(pl, img[p], row[p], pd[p].Height, 1));
			memset(back, 0, row[p] * pd[p].Height);
			PR(fk("%s.read", k), plane_copy(pl, back, row[p], pd[p].Height, 0));
			probe_line(fk("%s.data", k), "%s",
				   memcmp(back, img[p], row[p] * pd[p].Height) ? "mismatch" : "ok");
			free(back);
		}
		/* every plane kept its own bytes */
		for (unsigned int p = 0; p < np; p++) {
			CUarray pl = NULL;

			if (!img[p] || cuArrayGetPlane(&pl, a, p) != CUDA_SUCCESS)
				continue;
			back = malloc(row[p] * pd[p].Height);
			memset(back, 0, row[p] * pd[p].Height);
			plane_copy(pl, back, row[p], pd[p].Height, 0);
			probe_line(fk("pl.%s.plane%u.after_all", n, p), "%s",
				   memcmp(back, img[p], row[p] * pd[p].Height) ? "mismatch" : "ok");
			free(back);
			free(img[p]);
		}
		probe_line(fk("pl.%s.planes", n), "%u", np);
		/* the array itself as a copy's side; a packed format's row */
		{
			static unsigned char buf[128 * 64 * 8 + 8];
			static const size_t rows[] = { 128, 255, 256, 257, 511, 512, 513,
						       1023, 1024, 1025 };

			r = plane_copy(a, buf, 128, 64, 1);
			probe_res(fk("pl.%s.whole.write", n), r);
			for (size_t k = 0; !np && k < sizeof(rows) / sizeof(rows[0]); k++)
				probe_res(fk("pl.%s.whole.row%zu", n, rows[k]),
					  plane_copy(a, buf, rows[k], 64, 1));
		}
	}
	PR(fk("pl.%s.destroy", n), cuArrayDestroy(a));
}

static void child(size_t i)
{
	probe_case(argv0, fk("pl.%s.exit", formats[i].name), fk("%zu", i), NULL, -1);
}

int main(int argc, char **argv)
{
	argv0 = argv[0];
	if (argc >= 3 && !strcmp(argv[1], "case")) {
		size_t i = (size_t)atoi(argv[2]);

		alarm(60);
		if (i >= sizeof(formats) / sizeof(formats[0]))
			return 1;
		MUST(cuInit(0));
		MUST(cuDevicePrimaryCtxRetain(&ctx, 0));
		MUST(cuCtxSetCurrent(ctx));
		one(i);
		fflush(stdout);
		_exit(0);
	}
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		child(i);
	return 0;
}
