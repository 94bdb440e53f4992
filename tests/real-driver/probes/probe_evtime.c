// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * probe_evtime - cuEventElapsedTime and cudaEventElapsedTime: two events
 * recorded on an idle stream 100 ms apart, the same event twice, the
 * order reversed, events around device memsets (pending, then the time
 * the work took, within the caller's wall time, the same when asked later), events never recorded, still pending,
 * made with CU_EVENT_DISABLE_TIMING, recorded on different streams, NULL
 * arguments.  Times are printed as ranges, never raw.
 */
#include <time.h>

#include <cuda_runtime_api.h>

#include "probe.h"

static const char *range(float ms)
{
	if (ms < 0)
		return ms > -150 && ms < -50 ? "about_minus_100ms" : "negative";
	if (ms == 0)
		return "zero";
	if (ms < 5)
		return "under_5ms";
	if (ms > 50 && ms < 150)
		return "about_100ms";
	return "other";
}

static void elapsed(const char *key, CUevent a, CUevent b)
{
	char k[128];
	float ms = -12345;
	CUresult r = cuEventElapsedTime(&ms, a, b);

	probe_res(key, r);
	snprintf(k, sizeof(k), "%s.value", key);
	probe_line(k, "%s", ms == -12345 ? "untouched" : range(ms));
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

int main(void)
{
	CUevent a, b, c, never, notime;
	CUstream s1, s2;
	CUcontext ctx;
	CUdeviceptr big;
	const size_t big_size = 128ULL << 20;
	struct timespec t0, t1;
	float ms = 0, ms2 = 0, wall;
	cudaEvent_t ra, rb;

	MUST(cuInit(0));
	MUST(cuCtxCreate(&ctx, NULL, 0, 0));
	MUST(cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
	MUST(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
	MUST(cuEventCreate(&a, 0));
	MUST(cuEventCreate(&b, 0));
	MUST(cuEventCreate(&c, 0));
	MUST(cuEventCreate(&never, 0));
	MUST(cuEventCreate(&notime, CU_EVENT_DISABLE_TIMING));
	MUST(cuMemAlloc(&big, big_size));

	/* Idle stream, 100 ms apart. */
	MUST(cuEventRecord(a, s1));
	MUST(cuEventSynchronize(a));
	sleep_ms(100);
	MUST(cuEventRecord(b, s1));
	MUST(cuEventSynchronize(b));
	elapsed("idle.a_b", a, b);
	elapsed("idle.b_a", b, a);
	elapsed("idle.a_a", a, a);
	/* Not recorded, disabled timing, NULL. */
	elapsed("never.start", never, b);
	elapsed("never.end", a, never);
	MUST(cuEventRecord(notime, s1));
	MUST(cuEventSynchronize(notime));
	elapsed("notime.start", notime, b);
	elapsed("notime.end", a, notime);
	PR("null.ms", cuEventElapsedTime(NULL, a, b));
	elapsed("null.start", NULL, b);
	elapsed("null.end", a, NULL);
	/* Around work: the time the work took, not when it was asked for. */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	MUST(cuEventRecord(a, s1));
	for (int i = 0; i < 8; i++)
		MUST(cuMemsetD8Async(big, (unsigned char)i, big_size, s1));
	MUST(cuEventRecord(b, s1));
	elapsed("pending.end", a, b);
	elapsed("pending.start", b, a);
	MUST(cuEventSynchronize(b));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	wall = (t1.tv_sec - t0.tv_sec) * 1e3f + (t1.tv_nsec - t0.tv_nsec) / 1e6f;
	probe_res("work.elapsed", cuEventElapsedTime(&ms, a, b));
	probe_line("work.elapsed.value", "%s", ms > 0 && ms <= wall + 0.5f ?
		   "positive_within_wall_time" : "other");
	sleep_ms(100);
	probe_res("work.elapsed.later", cuEventElapsedTime(&ms2, a, b));
	probe_line("work.elapsed.later.value", "%s", ms2 == ms ? "same" : "changed");
	/* Recorded on another stream, after the first finished. */
	MUST(cuEventRecord(c, s2));
	MUST(cuEventSynchronize(c));
	elapsed("streams.b_c", b, c);
	/* Re-recorded: the new time counts. */
	sleep_ms(100);
	MUST(cuEventRecord(a, s1));
	MUST(cuEventSynchronize(a));
	elapsed("rerecord.c_a", c, a);

	/* The runtime form. */
	ra = (cudaEvent_t)a;
	rb = (cudaEvent_t)b;
	probe_line("rt.elapsed", "%d", (int)cudaEventElapsedTime(&ms, ra, rb));
	probe_line("rt.elapsed.value", "%s", range(ms));
	probe_line("rt.elapsed.never", "%d", (int)cudaEventElapsedTime(&ms, (cudaEvent_t)never, rb));
	probe_line("rt.last_error", "%d", (int)cudaGetLastError());

	cuMemFree(big);
	cuEventDestroy(a);
	cuEventDestroy(b);
	cuEventDestroy(c);
	cuEventDestroy(never);
	cuEventDestroy(notime);
	cuStreamDestroy(s1);
	cuStreamDestroy(s2);
	cuCtxDestroy(ctx);
	return 0;
}
