/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * probe_memlock - page-locked host memory against RLIMIT_MEMLOCK.
 *
 * Each case runs in a fork child that sets RLIMIT_MEMLOCK, becomes user
 * 65534 (losing CAP_IPC_LOCK) unless the case keeps root, initialises the
 * driver and asks for page-locked memory: cuMemHostRegister of malloc'd
 * memory, cuMemHostAlloc and cuMemAllocHost, of sizes below and above the
 * limit, and what the process's VmPin and VmLck say afterwards.  Run as
 * root (it needs to become someone else).
 */
#include <grp.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "probe.h"

#define KIB	1024ULL

/* VmPin or VmLck of this process in KiB, -1 when unknown. */
static long status_kib(const char *field)
{
	char line[256], want[32];
	long kib = -1;
	FILE *f = fopen("/proc/self/status", "r");

	snprintf(want, sizeof(want), "%s: %%ld kB", field);
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, want, &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib;
}

/* One case: @limit_kib (0: unlimited), as nobody unless @root. */
static void memlock_case(const char *name, unsigned long long limit_kib, int root)
{
	const unsigned long long sizes[] = { 32 * KIB, 256 * KIB, 4096 * KIB, 65536 * KIB };
	char key[128];
	int status, i;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct rlimit lim = { RLIM_INFINITY, RLIM_INFINITY };
		CUcontext ctx;
		CUdevice dev;

		if (limit_kib)
			lim.rlim_cur = lim.rlim_max = limit_kib * KIB;
		if (setrlimit(RLIMIT_MEMLOCK, &lim))
			_exit(10);
		if (!root && (setgroups(0, NULL) || setgid(65534) || setuid(65534)))
			_exit(11);
		snprintf(key, sizeof(key), "ml.%s.init", name);
		PR(key, cuInit(0));
		if (cuDeviceGet(&dev, 0) || cuDevicePrimaryCtxRetain(&ctx, dev) ||
		    cuCtxSetCurrent(ctx))
			_exit(12);
		for (i = 0; i < (int)(sizeof(sizes) / sizeof(sizes[0])); i++) {
			void *p = mmap(NULL, sizes[i], PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0), *q = NULL;
			CUresult r;

			snprintf(key, sizeof(key), "ml.%s.register.%llukib", name, sizes[i] / KIB);
			r = cuMemHostRegister(p, sizes[i], 0);
			probe_res(key, r);
			snprintf(key, sizeof(key), "ml.%s.register.%llukib.vmpin_kib", name,
				 sizes[i] / KIB);
			probe_line(key, "%ld", status_kib("VmPin"));
			snprintf(key, sizeof(key), "ml.%s.register.%llukib.vmlck_kib", name,
				 sizes[i] / KIB);
			probe_line(key, "%ld", status_kib("VmLck"));
			if (r == CUDA_SUCCESS)
				cuMemHostUnregister(p);
			munmap(p, sizes[i]);

			snprintf(key, sizeof(key), "ml.%s.hostalloc.%llukib", name, sizes[i] / KIB);
			r = cuMemHostAlloc(&q, sizes[i], 0);
			probe_res(key, r);
			if (r == CUDA_SUCCESS)
				cuMemFreeHost(q);
			q = NULL;
			snprintf(key, sizeof(key), "ml.%s.allochost.%llukib", name, sizes[i] / KIB);
			r = cuMemAllocHost(&q, sizes[i]);
			probe_res(key, r);
			if (r == CUDA_SUCCESS)
				cuMemFreeHost(q);
		}
		_exit(0);
	}
	snprintf(key, sizeof(key), "ml.%s.exit", name);
	if (pid < 0)
		probe_line(key, "fork failed");
	else if (waitpid(pid, &status, 0) == pid && WIFEXITED(status))
		probe_line(key, "%d", WEXITSTATUS(status));
	else
		probe_line(key, "signal");
}

int main(void)
{
	if (geteuid() != 0) {
		probe_line("ml.skipped", "needs root");
		return 0;
	}
	memlock_case("nobody_64kib", 64, 0);
	memlock_case("nobody_8mib", 8192, 0);
	memlock_case("nobody_unlimited", 0, 0);
	memlock_case("root_64kib", 64, 1);
	return 0;
}
