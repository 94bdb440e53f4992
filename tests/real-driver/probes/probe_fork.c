// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * probe_fork - what a fork() child gets from the driver API after the
 * parent initialised it and allocated managed memory.
 */
#include <sys/wait.h>
#include <unistd.h>

#include "probe.h"

#define LOC(t, i) ((CUmemLocation){ (CUmemLocationType)(t), (i) })

static void child(CUdeviceptr p, CUcontext ctx)
{
	CUdeviceptr q = 0, b = 0;
	CUcontext c = NULL;
	CUstream s = NULL;
	size_t sz, fr;
	int n = -7, v = -7, ver = -7;

	PR("child.cuDriverGetVersion", cuDriverGetVersion(&ver));
	PR("child.cuDeviceGetCount", cuDeviceGetCount(&n));
	probe_line("child.cuDeviceGetCount.value", "%d", n);
	PR("child.cuDeviceGetAttribute", cuDeviceGetAttribute(&v,
	   CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, 0));
	PR("child.cuCtxGetCurrent", cuCtxGetCurrent(&c));
	probe_line("child.cuCtxGetCurrent.value", "%s", c == ctx ? "parent" : c ? "other" : "null");
	PR("child.cuCtxSynchronize", cuCtxSynchronize());
	PR("child.cuMemAllocManaged", cuMemAllocManaged(&q, 4096, CU_MEM_ATTACH_GLOBAL));
	PR("child.cuMemGetAddressRange", cuMemGetAddressRange(&b, &sz, p));
	PR("child.cuPointerGetAttribute", cuPointerGetAttribute(&v,
	   CU_POINTER_ATTRIBUTE_IS_MANAGED, p));
	PR("child.cuMemAdvise", cuMemAdvise(p, 4096, CU_MEM_ADVISE_SET_READ_MOSTLY, LOC(2, 0)));
	PR("child.cuMemPrefetchAsync", cuMemPrefetchAsync(p, 4096, LOC(2, 0), 0, NULL));
	PR("child.cuMemRangeGetAttribute", cuMemRangeGetAttribute(&v, 4,
	   CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, p, 4096));
	PR("child.cuMemGetInfo", cuMemGetInfo(&fr, &sz));
	PR("child.cuStreamCreate", cuStreamCreate(&s, 0));
	PR("child.cuMemFree", cuMemFree(p));
	PR("child.cuInit", cuInit(0));
	PR("child.cuDeviceGetCount.afterinit", cuDeviceGetCount(&n));
	PR("child.cuDevicePrimaryCtxRetain", cuDevicePrimaryCtxRetain(&c, 0));
	PR("child.cuMemAllocManaged.afterinit", cuMemAllocManaged(&q, 4096,
	   CU_MEM_ATTACH_GLOBAL));
}

int main(void)
{
	CUdeviceptr p = 0;
	CUcontext ctx;
	pid_t pid;
	int st;

	MUST(cuInit(0));
	MUST(cuDevicePrimaryCtxRetain(&ctx, 0));
	MUST(cuCtxSetCurrent(ctx));
	MUST(cuMemAllocManaged(&p, 1 << 20, CU_MEM_ATTACH_GLOBAL));
	memset((void *)(uintptr_t)p, 3, 1 << 20);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		child(p, ctx);
		fflush(stdout);
		_exit(0);
	}
	waitpid(pid, &st, 0);
	probe_line("child.exit", "%s", WIFEXITED(st) ? "exited" : "signalled");
	probe_line("child.status", "%d", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
	/* The parent still works. */
	PR("parent.cuMemAdvise", cuMemAdvise(p, 4096, CU_MEM_ADVISE_SET_READ_MOSTLY, LOC(2, 0)));
	probe_line("parent.data", "%d", ((unsigned char *)(uintptr_t)p)[100] == 3);
	PR("parent.cuMemFree", cuMemFree(p));
	return 0;
}
