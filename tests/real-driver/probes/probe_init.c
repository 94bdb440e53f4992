// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * probe_init - calls before cuInit, cuInit, devices and device attributes.
 */
#include "probe.h"

int main(void)
{
	CUdevice dev = 12345;
	CUcontext ctx = (CUcontext)(uintptr_t)0x1234;
	CUdeviceptr p = 0;
	size_t sz = 0, fr = 0;
	char name[256];
	int n = -7, v = -7, ver = -7;
	const char *s = NULL;

	/* Before cuInit. */
	PR("pre.cuDriverGetVersion", cuDriverGetVersion(&ver));
	probe_line("env.driver_version", "%d", ver);
	PR("pre.cuGetErrorName", cuGetErrorName(CUDA_ERROR_INVALID_VALUE, &s));
	probe_line("pre.cuGetErrorName.value", "%s", s ? s : "(null)");
	PR("pre.cuDeviceGetCount", cuDeviceGetCount(&n));
	probe_line("pre.cuDeviceGetCount.value", "%d", n);
	PR("pre.cuDeviceGet", cuDeviceGet(&dev, 0));
	PR("pre.cuDeviceGetAttribute", cuDeviceGetAttribute(&v,
	   CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, 0));
	PR("pre.cuDeviceGetName", cuDeviceGetName(name, sizeof(name), 0));
	PR("pre.cuDeviceTotalMem", cuDeviceTotalMem(&sz, 0));
	PR("pre.cuCtxGetCurrent", cuCtxGetCurrent(&ctx));
	probe_line("pre.cuCtxGetCurrent.value", "%s", ctx == NULL ? "null" :
		   ctx == (CUcontext)(uintptr_t)0x1234 ? "untouched" : "other");
	PR("pre.cuCtxSetCurrent.null", cuCtxSetCurrent(NULL));
	PR("pre.cuCtxSynchronize", cuCtxSynchronize());
	PR("pre.cuDevicePrimaryCtxRetain", cuDevicePrimaryCtxRetain(&ctx, 0));
	PR("pre.cuMemAllocManaged", cuMemAllocManaged(&p, 4096, CU_MEM_ATTACH_GLOBAL));
	PR("pre.cuMemFree.null", cuMemFree(0));
	PR("pre.cuMemGetInfo", cuMemGetInfo(&fr, &sz));
	PR("pre.cuPointerGetAttribute", cuPointerGetAttribute(&v,
	   CU_POINTER_ATTRIBUTE_IS_MANAGED, (CUdeviceptr)(uintptr_t)&v));
	PR("pre.cuMemAdvise", cuMemAdvise((CUdeviceptr)(uintptr_t)&v, 4,
	   CU_MEM_ADVISE_SET_READ_MOSTLY, (CUmemLocation){CU_MEM_LOCATION_TYPE_HOST, 0}));
	PR("pre.cuStreamQuery.null", cuStreamQuery(NULL));

	/* cuInit. */
	PR("init.flags1", cuInit(1));
	PR("init.flags0", cuInit(0));
	PR("init.again", cuInit(0));
	PR("init.flags1.after", cuInit(1));

	PR("dev.count", cuDeviceGetCount(&n));
	probe_line("env.device_count", "%d", n);
	PR("dev.get.0", cuDeviceGet(&dev, 0));
	probe_line("dev.get.0.value", "%d", dev);
	dev = 77;
	PR("dev.get.count", cuDeviceGet(&dev, n));
	probe_line("dev.get.count.value", "%s", dev == 77 ? "untouched" : "written");
	PR("dev.get.minus1", cuDeviceGet(&dev, -1));
	PR("dev.get.minus2", cuDeviceGet(&dev, -2));
	PR("dev.get.big", cuDeviceGet(&dev, 1000));

	memset(name, 'x', sizeof(name));
	PR("dev.name", cuDeviceGetName(name, sizeof(name), 0));
	probe_line("env.device_name", "%s", name);
	memset(name, 'x', sizeof(name));
	PR("dev.name.len4", cuDeviceGetName(name, 4, 0));
	probe_line("dev.name.len4.strlen", "%zu", strnlen(name, 8));
	memset(name, 'x', sizeof(name));
	PR("dev.name.len1", cuDeviceGetName(name, 1, 0));
	probe_line("dev.name.len1.strlen", "%zu", strnlen(name, 8));
	/* Lengths 0 and -1 crash NVIDIA's driver: probe_null runs them. */
	PR("dev.name.baddev", cuDeviceGetName(name, sizeof(name), n));
	PR("dev.name.cpu", cuDeviceGetName(name, sizeof(name), CU_DEVICE_CPU));

	sz = 0;
	PR("dev.totalmem", cuDeviceTotalMem(&sz, 0));
	probe_line("env.totalmem_mib", "%zu", sz >> 20);
	PR("dev.totalmem.baddev", cuDeviceTotalMem(&sz, n));
	PR("dev.totalmem.cpu", cuDeviceTotalMem(&sz, CU_DEVICE_CPU));

	/* Every attribute number 0..200: which are accepted, and their values. */
	for (int a = 0; a <= 200; a++) {
		v = -7;
		CUresult r = cuDeviceGetAttribute(&v, (CUdevice_attribute)a, 0);

		probe_resf(r, "devattr.%d", a);
		if (r == CUDA_SUCCESS) {
			char key[64];

			snprintf(key, sizeof(key), "env.devattr.%d.value", a);
			probe_line(key, "%d", v);
		}
	}
	/* The memory-related ones are compared. */
	static const struct { const char *name; int attr; } mem_attrs[] = {
		{ "UNIFIED_ADDRESSING", CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING },
		{ "MANAGED_MEMORY", CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY },
		{ "CONCURRENT_MANAGED_ACCESS", CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS },
		{ "CAN_MAP_HOST_MEMORY", CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY },
		{ "INTEGRATED", CU_DEVICE_ATTRIBUTE_INTEGRATED },
	};
	for (size_t i = 0; i < sizeof(mem_attrs) / sizeof(mem_attrs[0]); i++) {
		char key[96];

		v = -7;
		snprintf(key, sizeof(key), "devattr.%s", mem_attrs[i].name);
		PR(key, cuDeviceGetAttribute(&v, (CUdevice_attribute)mem_attrs[i].attr, 0));
		snprintf(key, sizeof(key), "devattr.%s.value", mem_attrs[i].name);
		probe_line(key, "%d", v);
	}
	v = -7;
	PR("devattr.PAGEABLE_MEMORY_ACCESS", cuDeviceGetAttribute(&v,
	   CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS, 0));
	probe_line("env.pma", "%d", v);
	PR("devattr.baddev", cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, n));
	PR("devattr.cpudev", cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY,
	   CU_DEVICE_CPU));
	PR("devattr.baddev.badattr", cuDeviceGetAttribute(&v, (CUdevice_attribute)100000, n));
	PR("devattr.neg", cuDeviceGetAttribute(&v, (CUdevice_attribute)-1, 0));
	PR("devattr.huge", cuDeviceGetAttribute(&v, (CUdevice_attribute)100000, 0));
	probe_line("env.numa_nodes", "%d", probe_numa_nodes());
	return 0;
}
