// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * probe_profiler - the profiler controls with no profiler attached:
 * cuProfilerStart/Stop before cuInit, without a context, with one, twice in
 * a row, and after the context is gone; cudaProfilerStart/Stop as a
 * process's first runtime call (in a child that has not touched CUDA), the
 * context it leaves current, and the last error afterwards.
 */
#include <cudaProfiler.h>
#include <cuda_profiler_api.h>
#include <cuda_runtime_api.h>

#include "probe.h"

/* The runtime's half, in a fresh process: its first call is the profiler's. */
static void runtime_child(void)
{
	CUcontext ctx = (CUcontext)(uintptr_t)0x1234;

	RR("rt.stop.first", cudaProfilerStop());
	PR("rt.after_stop.cuCtxGetCurrent", cuCtxGetCurrent(&ctx));
	probe_line("rt.after_stop.current", "%s", ctx == NULL ? "null" :
		   ctx == (CUcontext)(uintptr_t)0x1234 ? "untouched" : "a context");
	RR("rt.start", cudaProfilerStart());
	RR("rt.start.again", cudaProfilerStart());
	ctx = (CUcontext)(uintptr_t)0x1234;
	PR("rt.after_start.cuCtxGetCurrent", cuCtxGetCurrent(&ctx));
	probe_line("rt.after_start.current", "%s", ctx == NULL ? "null" :
		   ctx == (CUcontext)(uintptr_t)0x1234 ? "untouched" : "a context");
	RR("rt.stop", cudaProfilerStop());
	RR("rt.stop.again", cudaProfilerStop());
	RR("rt.last_error", cudaGetLastError());
	RR("rt.device_reset", cudaDeviceReset());
	RR("rt.stop.after_reset", cudaProfilerStop());
	RR("rt.start.after_reset", cudaProfilerStart());
	RR("rt.stop.after_reset.started", cudaProfilerStop());
}

int main(void)
{
	CUcontext ctx = NULL;
	CUdevice dev = 0;
	int status = 0;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		runtime_child();
		fflush(stdout);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	probe_line("rt.child_exit", "%d", WIFEXITED(status) ? WEXITSTATUS(status) : -1);

	PR("drv.pre.start", cuProfilerStart());
	PR("drv.pre.stop", cuProfilerStop());
	MUST(cuInit(0));
	PR("drv.noctx.start", cuProfilerStart());
	PR("drv.noctx.stop", cuProfilerStop());
	MUST(cuDeviceGet(&dev, 0));
	MUST(cuDevicePrimaryCtxRetain(&ctx, dev));
	MUST(cuCtxSetCurrent(ctx));
	PR("drv.ctx.stop.first", cuProfilerStop());
	PR("drv.ctx.start", cuProfilerStart());
	PR("drv.ctx.start.again", cuProfilerStart());
	PR("drv.ctx.stop", cuProfilerStop());
	PR("drv.ctx.stop.again", cuProfilerStop());
	MUST(cuCtxSetCurrent(NULL));
	MUST(cuDevicePrimaryCtxRelease(dev));
	PR("drv.released.start", cuProfilerStart());
	PR("drv.released.stop", cuProfilerStop());
	return 0;
}
