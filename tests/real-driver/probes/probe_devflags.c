// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * probe_devflags - cudaSetDeviceFlags/cudaGetDeviceFlags: the flags of a
 * fresh process, every flag and some combinations, before and after the
 * primary context is active, what the driver API sees of them
 * (cuDevicePrimaryCtxGetState, cuCtxGetFlags), and the other way round;
 * a context made with cuCtxCreate.
 * Each case runs in its own child process, a fresh runtime.
 */
#include <cuda_runtime_api.h>

#include "probe.h"

static void get(const char *key)
{
	unsigned int f = 0xdeadbeef;
	char k[128];

	snprintf(k, sizeof(k), "%s.get", key);
	rres(k, cudaGetDeviceFlags(&f));
	snprintf(k, sizeof(k), "%s.get.value", key);
	probe_line(k, "0x%x", f);
}

static void set(const char *key, unsigned int flags)
{
	char k[128];

	snprintf(k, sizeof(k), "%s.set", key);
	rres(k, cudaSetDeviceFlags(flags));
	get(key);
	snprintf(k, sizeof(k), "%s.last_error", key);
	rres(k, cudaGetLastError());
}

static void driver_view(const char *key)
{
	unsigned int f = 0xdeadbeef;
	int active = -1;
	char k[128];

	snprintf(k, sizeof(k), "%s.primary_state", key);
	probe_res(k, cuDevicePrimaryCtxGetState(0, &f, &active));
	snprintf(k, sizeof(k), "%s.primary_state.value", key);
	probe_line(k, "0x%x active %d", f, active);
	f = 0xdeadbeef;
	snprintf(k, sizeof(k), "%s.ctx_flags", key);
	probe_res(k, cuCtxGetFlags(&f));
	snprintf(k, sizeof(k), "%s.ctx_flags.value", key);
	probe_line(k, "0x%x", f);
}

static void case_fresh(void)
{
	get("fresh");
	rres("fresh.get.null", cudaGetDeviceFlags(NULL));
	rres("fresh.last_error", cudaGetLastError());
	driver_view("fresh");
}

static void case_values(void)
{
	static const unsigned int v[] = { 0x0, 0x1, 0x2, 0x4, 0x8, 0x10, 0x20, 0x40, 0x80,
					  0x3, 0x5, 0x6, 0x7, 0xc, 0x1f, 0xff, 0x100,
					  0xffffffff };
	char k[64];

	for (unsigned int i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		snprintf(k, sizeof(k), "values.0x%x", v[i]);
		set(k, v[i]);
	}
	driver_view("values.end");
}

static void case_before_active(void)
{
	set("before", cudaDeviceScheduleSpin);
	driver_view("before");
	rres("before.cudaFree0", cudaFree(0));
	get("before.active");
	driver_view("before.active");
}

static void case_active(void)
{
	rres("active.cudaFree0", cudaFree(0));
	get("active");
	driver_view("active");
	set("active.blocking", cudaDeviceScheduleBlockingSync);
	driver_view("active.blocking");
	set("active.lmem", cudaDeviceLmemResizeToMax);
	driver_view("active.lmem");
	rres("active.reset", cudaDeviceReset());
	get("active.after_reset");
	driver_view("active.after_reset");
}

static void case_driver(void)
{
	MUST(cuInit(0));
	probe_res("driver.primary_set_flags",
		  cuDevicePrimaryCtxSetFlags(0, CU_CTX_SCHED_YIELD | CU_CTX_LMEM_RESIZE_TO_MAX));
	get("driver");
	driver_view("driver");
}

/* A context of the driver API's own: its flags and the runtime's view. */
static void case_created(void)
{
	CUcontext c = NULL;
	unsigned int f = 0xdeadbeef;

	MUST(cuInit(0));
	probe_res("created.create", cuCtxCreate(&c, NULL, CU_CTX_SCHED_SPIN, 0));
	probe_res("created.ctx_flags", cuCtxGetFlags(&f));
	probe_line("created.ctx_flags.value", "0x%x", f);
	get("created");
	set("created.yield", cudaDeviceScheduleYield);
	driver_view("created.yield");
	f = 0xdeadbeef;
	probe_res("created.destroy", cuCtxDestroy(c));
	probe_res("created.after_destroy.ctx_flags", cuCtxGetFlags(&f));
	get("created.after_destroy");
}

static void run(const char *name, void (*fn)(void))
{
	int status = 0;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		fn();
		fflush(stdout);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	probe_line(name, "exit %d", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

int main(void)
{
	run("case.fresh", case_fresh);
	run("case.values", case_values);
	run("case.before_active", case_before_active);
	run("case.active", case_active);
	run("case.driver", case_driver);
	run("case.created", case_created);
	return 0;
}
