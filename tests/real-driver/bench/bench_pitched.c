// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bench_pitched - what NVIDIA's driver does with the copy of
 * tools/uvm-bench-pitched: 64 MiB as cudaMemcpy2D of rows of W bytes at
 * pitch 2 W on both sides against one cudaMemcpy of the same bytes, device
 * to device and pinned host to device, timed with events (median of the
 * repetitions of 1D time / 2D time).
 *
 * Built and run on the device machine ("nvcc -O2 -x cu -o bench_pitched
 * bench_pitched.c"); its output is kept in ../results/bench_pitched.txt as
 * the reference for Documentation/memory.rst.  Not a probe: the realdriver
 * suite does not replay it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime_api.h>

#define MIB	(1ULL << 20)
#define REPS	7

static void check(cudaError_t e, const char *what)
{
	if (e != cudaSuccess) {
		fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
		exit(1);
	}
}

static int cmp(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return x < y ? -1 : x > y;
}

static float timed(cudaEvent_t a, cudaEvent_t b, int two_d, void *dst, const void *src,
		   size_t total, size_t w, enum cudaMemcpyKind kind)
{
	float ms;

	check(cudaEventRecord(a, 0), "record");
	if (two_d)
		check(cudaMemcpy2DAsync(dst, 2 * w, src, 2 * w, w, total / w, kind, 0), "2D");
	else
		check(cudaMemcpyAsync(dst, src, total, kind, 0), "1D");
	check(cudaEventRecord(b, 0), "record");
	check(cudaEventSynchronize(b), "sync");
	check(cudaEventElapsedTime(&ms, a, b), "elapsed");
	return ms;
}

int main(void)
{
	static const size_t widths[] = { 256, 4096, 65536 };
	size_t total = 64 * MIB, i, r;
	void *dsrc, *ddst, *hsrc;
	cudaEvent_t a, b;
	float ratio[REPS], t1[REPS], t2[REPS];
	int k;

	check(cudaMalloc(&dsrc, 2 * total), "cudaMalloc");
	check(cudaMalloc(&ddst, 2 * total), "cudaMalloc");
	check(cudaMallocHost(&hsrc, 2 * total), "cudaMallocHost");
	check(cudaEventCreate(&a), "event");
	check(cudaEventCreate(&b), "event");
	printf("%-16s %9s %9s %9s %7s\n", "copy", "row", "1D GB/s", "2D GB/s", "2D/1D");
	for (k = 0; k < 2; k++) {
		const void *src = k ? hsrc : dsrc;
		enum cudaMemcpyKind kind = k ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToDevice;

		for (i = 0; i < sizeof(widths) / sizeof(widths[0]); i++) {
			size_t w = widths[i];

			timed(a, b, 0, ddst, src, total, w, kind);	/* warm up */
			timed(a, b, 1, ddst, src, total, w, kind);
			for (r = 0; r < REPS; r++) {
				t1[r] = timed(a, b, 0, ddst, src, total, w, kind);
				t2[r] = timed(a, b, 1, ddst, src, total, w, kind);
				ratio[r] = t1[r] / t2[r];
			}
			qsort(ratio, REPS, sizeof(float), cmp);
			qsort(t1, REPS, sizeof(float), cmp);
			qsort(t2, REPS, sizeof(float), cmp);
			printf("%-16s %9zu %9.1f %9.1f %6.0f%%\n",
			       k ? "host -> device" : "device -> device", w,
			       total / (t1[REPS / 2] * 1e6), total / (t2[REPS / 2] * 1e6),
			       100 * ratio[REPS / 2]);
		}
	}
	return 0;
}
