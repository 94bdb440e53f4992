// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libuvm_vmm - virtual memory management through libuvm: cuMemAddressReserve,
 * cuMemCreate, cuMemMap, cuMemSetAccess and the rest of the group, on the
 * driver's MEM_* ioctls (uapi/uvm.h, API 1.3).
 *
 * Every function's happy path and errors (the codes are NVIDIA's, recorded in
 * tests/real-driver/results/probe_vmm.txt, which the realdriver suite
 * replays as a whole; here what one GPU cannot show), and what the memory
 * does: a reservation grown 2 MiB at a time, one allocation at two
 * addresses (copies and simulated launches), access rights enforced on a
 * launch, host-located memory used by the CPU and a GPU, a peer GPU, the
 * pointer attributes, release and unmap while in use, and sharing with a
 * second process (tests/vmm_peer.c) by file descriptor over a Unix socket.
 *
 * Each test runs in its own process (the harness forks).  Module
 * parameters: the defaults (2 GPUs, 256 MiB of vidmem each).
 */
#include <libgen.h>
#include <limits.h>
#include <sys/socket.h>

#include "kselftest_harness.h"

#include "libuvm_test.h"
#include "vmm_peer.h"

#define GRAN (2 * MIB)
#define GIB (1ULL << 30)

static CUmemAllocationProp prop_dev(int dev, CUmemAllocationHandleType types)
{
	CUmemAllocationProp p;

	memset(&p, 0, sizeof(p));
	p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	p.requestedHandleTypes = types;
	p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	p.location.id = dev;
	return p;
}

static CUmemAllocationProp prop_host(void)
{
	CUmemAllocationProp p = prop_dev(0, CU_MEM_HANDLE_TYPE_NONE);

	p.location.type = CU_MEM_LOCATION_TYPE_HOST;
	return p;
}

static CUmemAccessDesc access_desc(CUmemLocationType type, int id, CUmemAccess_flags flags)
{
	CUmemAccessDesc d;

	memset(&d, 0, sizeof(d));
	d.location.type = type;
	d.location.id = id;
	d.flags = flags;
	return d;
}

/* Give devices 0 .. n - 1 flags over [va, va + size). */
static CUresult set_access_all(CUdeviceptr va, size_t size, int n, CUmemAccess_flags flags)
{
	CUmemAccessDesc d[8];

	for (int i = 0; i < n && i < 8; i++)
		d[i] = access_desc(CU_MEM_LOCATION_TYPE_DEVICE, i, flags);
	return cuMemSetAccess(va, size, d, (size_t)n);
}

/* The access flags of a location, or ~0 on error. */
static unsigned long long get_access(CUmemLocationType type, int id, CUdeviceptr va)
{
	CUmemLocation l = { type, id };
	unsigned long long f = ~0ULL;

	return cuMemGetAccess(&f, &l, va) == CUDA_SUCCESS ? f : ~0ULL;
}

/* Fill [va, va + size) with pattern seed through a copy; check it back. */
static int put_pattern(CUdeviceptr va, size_t size, unsigned long long seed)
{
	unsigned long long *b = malloc(size);
	int ok = b != NULL;

	if (ok) {
		vmm_peer_fill(b, size, seed);
		ok = cuMemcpyHtoD(va, b, size) == CUDA_SUCCESS;
	}
	free(b);
	return ok;
}

static int has_pattern(CUdeviceptr va, size_t size, unsigned long long seed)
{
	unsigned long long *b = malloc(size);
	int ok = b && cuMemcpyDtoH(b, va, size) == CUDA_SUCCESS && vmm_peer_check(b, size, seed);

	free(b);
	return ok;
}

/* A simulated GPU writes pattern value over [p, p + size); its result. */
static CUresult gpu_write_on(int dev, CUdeviceptr p, size_t size, unsigned long long value,
			     uvmSimLaunchInfo *info)
{
	uvmSimOp op;

	memset(&op, 0, sizeof(op));
	op.type = UVM_SIM_OP_WRITE;
	op.address = p;
	op.length = size;
	op.accessSize = 8;
	op.value = value;
	return uvmSimLaunch(dev, 16, &op, 1, NULL, info);
}

/* The checksum a GPU read of pattern value written at p gives. */
static unsigned long long pattern_checksum(unsigned long long value, CUdeviceptr p, size_t size)
{
	unsigned long long sum = 0;

	for (size_t i = 0; i < size / 8; i++)
		sum += uvmSimChecksumTerm(uvmSimPatternWord(value, p + 8 * i), p + 8 * i);
	return sum;
}

FIXTURE(vmm) {
	struct lib l;
	int vmm;
};

FIXTURE_SETUP(vmm)
{
	ASSERT_EQ(CUDA_SUCCESS, lib_init(&self->l));
	ASSERT_EQ(CUDA_SUCCESS, cuDeviceGetAttribute(&self->vmm,
		  CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 0));
	if (!self->vmm)
		SKIP(return, "the driver has no virtual memory management (UVM_CAP_VMM)");
}

FIXTURE_TEARDOWN(vmm)
{
}

/* An allocation of size bytes on dev, mapped read-write for every device in
 * a reservation of its own. */
static CUdeviceptr map_new(struct __test_metadata *_metadata, struct lib *l, int dev,
			   size_t size, CUmemGenericAllocationHandle *h)
{
	CUmemAllocationProp p = prop_dev(dev, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
	CUdeviceptr va = 0;

	EXPECT_EQ(CUDA_SUCCESS, cuMemCreate(h, size, &p, 0));
	EXPECT_EQ(CUDA_SUCCESS, cuMemAddressReserve(&va, size, 0, 0, 0));
	EXPECT_EQ(CUDA_SUCCESS, cuMemMap(va, size, 0, *h, 0));
	EXPECT_EQ(CUDA_SUCCESS, set_access_all(va, size, l->ndev,
					       CU_MEM_ACCESS_FLAGS_PROT_READWRITE));
	return va;
}

static void unmap_free(struct __test_metadata *_metadata, CUdeviceptr va, size_t size,
		       CUmemGenericAllocationHandle h)
{
	EXPECT_EQ(CUDA_SUCCESS, cuMemUnmap(va, size));
	EXPECT_EQ(CUDA_SUCCESS, cuMemAddressFree(va, size));
	EXPECT_EQ(CUDA_SUCCESS, cuMemRelease(h));
}

/* Device attributes: VMM, POSIX file descriptors and host locations follow
 * UVM_CAP_VMM; the GPU memory attributes stay. */
TEST(attributes)
{
	struct uvm_ioc_version ver;
	int v = -1, n = 0;

	ASSERT_EQ(CUDA_SUCCESS, cuInit(0));
	ASSERT_EQ(0, driver_info(&ver, 0, NULL));
	ASSERT_EQ(CUDA_SUCCESS, cuDeviceGetCount(&n));
	for (int d = 0; d < n; d++) {
		ASSERT_EQ(CUDA_SUCCESS, cuDeviceGetAttribute(&v,
			  CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, d));
		ASSERT_EQ(!!(ver.caps & UVM_CAP_VMM), v);
		ASSERT_EQ(CUDA_SUCCESS, cuDeviceGetAttribute(&v,
			  CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, d));
		ASSERT_EQ(!!(ver.caps & UVM_CAP_VMM), v);
		ASSERT_EQ(CUDA_SUCCESS, cuDeviceGetAttribute(&v,
			  CU_DEVICE_ATTRIBUTE_HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, d));
		ASSERT_EQ(!!(ver.caps & UVM_CAP_VMM), v);
		ASSERT_EQ(CUDA_SUCCESS, cuDeviceGetAttribute(&v,
			  CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_HANDLE_SUPPORTED, d));
		ASSERT_EQ(0, v);
		ASSERT_EQ(CUDA_SUCCESS, cuDeviceGetAttribute(&v,
			  CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED, d));
		ASSERT_EQ(0, v);
	}
}

/* Before cuInit every call of the group is NOT_INITIALIZED. */
TEST(before_init)
{
	CUmemAllocationProp p = prop_dev(0, CU_MEM_HANDLE_TYPE_NONE);
	CUmemGenericAllocationHandle h = 0;
	CUmemLocation l = { CU_MEM_LOCATION_TYPE_DEVICE, 0 };
	unsigned long long f;
	CUdeviceptr va = 0;
	size_t g = 0;
	int fd = -1;

	ASSERT_EQ(CUDA_ERROR_NOT_INITIALIZED, cuMemAddressReserve(&va, GRAN, 0, 0, 0));
	ASSERT_EQ(CUDA_ERROR_NOT_INITIALIZED, cuMemAddressFree(va, GRAN));
	ASSERT_EQ(CUDA_ERROR_NOT_INITIALIZED, cuMemCreate(&h, GRAN, &p, 0));
	ASSERT_EQ(CUDA_ERROR_NOT_INITIALIZED, cuMemRelease(h));
	ASSERT_EQ(CUDA_ERROR_NOT_INITIALIZED, cuMemMap(va, GRAN, 0, h, 0));
	ASSERT_EQ(CUDA_ERROR_NOT_INITIALIZED, cuMemUnmap(va, GRAN));
	ASSERT_EQ(CUDA_ERROR_NOT_INITIALIZED, cuMemGetAccess(&f, &l, va));
	ASSERT_EQ(CUDA_ERROR_NOT_INITIALIZED, cuMemGetAllocationGranularity(&g, &p,
		  CU_MEM_ALLOC_GRANULARITY_MINIMUM));
	ASSERT_EQ(CUDA_ERROR_NOT_INITIALIZED, cuMemGetAllocationPropertiesFromHandle(&p, h));
	ASSERT_EQ(CUDA_ERROR_NOT_INITIALIZED, cuMemExportToShareableHandle(&fd, h,
		  CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	ASSERT_EQ(CUDA_ERROR_NOT_INITIALIZED, cuMemImportFromShareableHandle(&h,
		  (void *)(uintptr_t)0, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
	ASSERT_EQ(CUDA_ERROR_NOT_INITIALIZED, cuMemRetainAllocationHandle(&h, (void *)va));
}

/* Granularity: 2 MiB, minimum and recommended; NVIDIA's driver does not
 * look at the properties, only at the option. */
TEST_F(vmm, granularity)
{
	CUmemAllocationProp p = prop_dev(0, CU_MEM_HANDLE_TYPE_NONE);
	size_t g = 0;

	ASSERT_EQ(CUDA_SUCCESS, cuMemGetAllocationGranularity(&g, &p,
		  CU_MEM_ALLOC_GRANULARITY_MINIMUM));
	ASSERT_EQ(GRAN, g);
	g = 0;
	ASSERT_EQ(CUDA_SUCCESS, cuMemGetAllocationGranularity(&g, &p,
		  CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
	ASSERT_EQ(GRAN, g);
	p = prop_host();
	ASSERT_EQ(CUDA_SUCCESS, cuMemGetAllocationGranularity(&g, &p,
		  CU_MEM_ALLOC_GRANULARITY_MINIMUM));
	ASSERT_EQ(GRAN, g);
	/* "vmm.gran.device99", "type0": not looked at. */
	p = prop_dev(self->l.ndev, CU_MEM_HANDLE_TYPE_FABRIC);
	p.type = CU_MEM_ALLOCATION_TYPE_INVALID;
	g = 0;
	ASSERT_EQ(CUDA_SUCCESS, cuMemGetAllocationGranularity(&g, &p,
		  CU_MEM_ALLOC_GRANULARITY_MINIMUM));
	ASSERT_EQ(GRAN, g);
	/* Errors. */
	p = prop_dev(0, CU_MEM_HANDLE_TYPE_NONE);
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemGetAllocationGranularity(NULL, &p,
		  CU_MEM_ALLOC_GRANULARITY_MINIMUM));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemGetAllocationGranularity(&g, NULL,
		  CU_MEM_ALLOC_GRANULARITY_MINIMUM));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemGetAllocationGranularity(&g, &p,
		  (CUmemAllocationGranularity_flags)2));
}

/* Reservations: sizes, alignments, hints; freeing exactly one reservation. */
TEST_F(vmm, reserve_free)
{
	CUdeviceptr va = 0, vb = 0, hint;

	ASSERT_EQ(CUDA_SUCCESS, cuMemAddressReserve(&va, GRAN, 0, 0, 0));
	ASSERT_NE(0, va);
	ASSERT_EQ(0, va % GRAN);
	ASSERT_EQ(CUDA_SUCCESS, cuMemAddressReserve(&vb, 64 * MIB, 0, 0, 0));
	ASSERT_EQ(0, vb % GRAN);
	ASSERT_TRUE(vb + 64 * MIB <= va || va + GRAN <= vb);
	/* The reservation is not memory anybody else can take. */
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemAddressFree(vb, 32 * MIB));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemAddressFree(vb + GRAN, 64 * MIB - GRAN));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemAddressFree(vb, 128 * MIB));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAddressFree(vb, 64 * MIB));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemAddressFree(vb, 64 * MIB));
	/* Alignment: any power of two, 1 GiB included; below 2 MiB it is
	 * 2 MiB.  Without one, a reservation is aligned to its size (up to
	 * 1 GiB). */
	ASSERT_EQ(CUDA_SUCCESS, cuMemAddressReserve(&vb, 4 * MIB, GIB, 0, 0));
	ASSERT_EQ(0, vb % GIB);
	ASSERT_EQ(CUDA_SUCCESS, cuMemAddressFree(vb, 4 * MIB));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAddressReserve(&vb, GRAN, PAGE, 0, 0));
	ASSERT_EQ(0, vb % GRAN);
	ASSERT_EQ(CUDA_SUCCESS, cuMemAddressFree(vb, GRAN));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAddressReserve(&vb, 8 * MIB, 0, 0, 0));
	ASSERT_EQ(0, vb % (8 * MIB));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAddressFree(vb, 8 * MIB));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAddressReserve(&vb, 4 * MIB, 0, 0, 0));
	ASSERT_EQ(0, vb % (4 * MIB));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAddressFree(vb, 4 * MIB));
	/* A free, aligned hint is honoured. */
	hint = vb;
	ASSERT_EQ(CUDA_SUCCESS, cuMemAddressReserve(&vb, 4 * MIB, 0, hint, 0));
	ASSERT_EQ(hint, vb);
	/* A taken one is not: another address. */
	ASSERT_EQ(CUDA_SUCCESS, cuMemAddressReserve(&va, 4 * MIB, 0, hint, 0));
	ASSERT_NE(hint, va);
	ASSERT_EQ(CUDA_SUCCESS, cuMemAddressFree(va, 4 * MIB));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAddressFree(vb, 4 * MIB));
	/* Errors. */
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemAddressReserve(NULL, GRAN, 0, 0, 0));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemAddressReserve(&va, 0, 0, 0, 0));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemAddressReserve(&va, PAGE, 0, 0, 0));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemAddressReserve(&va, 3 * MIB, 0, 0, 0));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemAddressReserve(&va, GRAN, 0, 0, 1));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemAddressReserve(&va, GRAN, 3 * MIB, 0, 0));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemAddressReserve(&va, GRAN, 0, hint + PAGE, 0));
	/* A hint that the alignment asked for contradicts. */
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemAddressReserve(&va, GRAN, 4 * MIB,
							       hint + GRAN, 0));
	/* More than the address space. */
	ASSERT_EQ(CUDA_ERROR_OUT_OF_MEMORY, cuMemAddressReserve(&va, 1ULL << 48, 0, 0, 0));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemAddressFree(0, GRAN));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemAddressFree((uintptr_t)&va, GRAN));
	/* Other memory of libuvm is no reservation. */
	va = managed(GRAN);
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemAddressFree(va, GRAN));
	ASSERT_EQ(CUDA_SUCCESS, cuMemFree(va));
}

/* Physical allocations: locations, sizes, handle types, flags; release. */
TEST_F(vmm, create_release)
{
	CUmemAllocationProp p = prop_dev(0, CU_MEM_HANDLE_TYPE_NONE);
	CUmemGenericAllocationHandle h = 0, h2 = 0;
	unsigned long long used = vidmem_used(0);

	ASSERT_EQ(CUDA_SUCCESS, cuMemCreate(&h, 4 * MIB, &p, 0));
	ASSERT_NE(0, h);
	ASSERT_EQ(used + 4 * MIB, vidmem_used(0));
	ASSERT_EQ(CUDA_SUCCESS, cuMemCreate(&h2, GRAN, &p, 0));
	ASSERT_NE(h, h2);
	ASSERT_EQ(CUDA_SUCCESS, cuMemRelease(h2));
	ASSERT_EQ(CUDA_SUCCESS, cuMemRelease(h));
	ASSERT_EQ(used, vidmem_used(0));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemRelease(h));
	/* Every GPU and the host. */
	for (int d = 0; d < self->l.ndev; d++) {
		p = prop_dev(d, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
		ASSERT_EQ(CUDA_SUCCESS, cuMemCreate(&h, GRAN, &p, 0));
		ASSERT_EQ(CUDA_SUCCESS, cuMemRelease(h));
	}
	p = prop_host();
	ASSERT_EQ(CUDA_SUCCESS, cuMemCreate(&h, GRAN, &p, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuMemRelease(h));
	/* Errors. */
	p = prop_dev(0, CU_MEM_HANDLE_TYPE_NONE);
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemCreate(NULL, GRAN, &p, 0));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemCreate(&h, GRAN, NULL, 0));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemCreate(&h, 0, &p, 0));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemCreate(&h, GRAN + PAGE, &p, 0));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemCreate(&h, GRAN, &p, 1));
	p.location.id = self->l.ndev;
	ASSERT_EQ(CUDA_ERROR_INVALID_DEVICE, cuMemCreate(&h, GRAN, &p, 0));
	p = prop_dev(0, CU_MEM_HANDLE_TYPE_NONE);
	p.type = CU_MEM_ALLOCATION_TYPE_INVALID;
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemCreate(&h, GRAN, &p, 0));
	p = prop_dev(0, CU_MEM_HANDLE_TYPE_NONE);
	p.location.type = CU_MEM_LOCATION_TYPE_INVALID;
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemCreate(&h, GRAN, &p, 0));
	p.location.type = CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT;
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemCreate(&h, GRAN, &p, 0));
	p.location.type = CU_MEM_LOCATION_TYPE_HOST_NUMA;
	p.location.id = 99;
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemCreate(&h, GRAN, &p, 0));
	/* Host memory is not shareable as HOST; no fabric, no Windows. */
	p = prop_host();
	p.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemCreate(&h, GRAN, &p, 0));
	p = prop_dev(0, CU_MEM_HANDLE_TYPE_FABRIC);
	ASSERT_EQ(CUDA_ERROR_NOT_PERMITTED, cuMemCreate(&h, GRAN, &p, 0));
	p = prop_dev(0, CU_MEM_HANDLE_TYPE_WIN32);
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemCreate(&h, GRAN, &p, 0));
	p = prop_dev(0, CU_MEM_HANDLE_TYPE_NONE);
	p.allocFlags.reserved[2] = 1;
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemCreate(&h, GRAN, &p, 0));
	p = prop_dev(0, CU_MEM_HANDLE_TYPE_NONE);
	p.win32HandleMetaData = &p;
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemCreate(&h, GRAN, &p, 0));
	/* Handles that are none. */
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemRelease(0));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemRelease(12345));
	/* More than the GPU has. */
	p = prop_dev(0, CU_MEM_HANDLE_TYPE_NONE);
	ASSERT_EQ(CUDA_ERROR_OUT_OF_MEMORY, cuMemCreate(&h, 64 * GIB, &p, 0));
	ASSERT_EQ(used, vidmem_used(0));
}

/* Properties of a handle: what it was created with; host memory is on a
 * node; the allocation flags come back. */
TEST_F(vmm, properties)
{
	CUmemAllocationProp p = prop_dev(self->l.ndev - 1, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
	CUmemAllocationProp q;
	CUmemGenericAllocationHandle h = 0;

	ASSERT_EQ(CUDA_SUCCESS, cuMemCreate(&h, 6 * MIB, &p, 0));
	memset(&q, 0xa5, sizeof(q));
	ASSERT_EQ(CUDA_SUCCESS, cuMemGetAllocationPropertiesFromHandle(&q, h));
	ASSERT_EQ(CU_MEM_ALLOCATION_TYPE_PINNED, q.type);
	ASSERT_EQ(CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, q.requestedHandleTypes);
	ASSERT_EQ(CU_MEM_LOCATION_TYPE_DEVICE, q.location.type);
	ASSERT_EQ(self->l.ndev - 1, q.location.id);
	ASSERT_EQ(NULL, q.win32HandleMetaData);
	ASSERT_EQ(0, q.allocFlags.compressionType);
	ASSERT_EQ(0, q.allocFlags.usage);
	ASSERT_EQ(0, q.allocFlags.reserved[3]);
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemGetAllocationPropertiesFromHandle(NULL, h));
	ASSERT_EQ(CUDA_SUCCESS, cuMemRelease(h));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemGetAllocationPropertiesFromHandle(&q, h));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemGetAllocationPropertiesFromHandle(&q, 0));
	/* Host memory: HOST reads back as HOST_NUMA of the node it is on. */
	p = prop_host();
	p.location.id = 99;	/* ignored */
	ASSERT_EQ(CUDA_SUCCESS, cuMemCreate(&h, GRAN, &p, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuMemGetAllocationPropertiesFromHandle(&q, h));
	ASSERT_EQ(CU_MEM_LOCATION_TYPE_HOST_NUMA, q.location.type);
	ASSERT_EQ(0, q.location.id);
	ASSERT_EQ(CU_MEM_HANDLE_TYPE_NONE, q.requestedHandleTypes);
	ASSERT_EQ(CUDA_SUCCESS, cuMemRelease(h));
	/* Compression and RDMA flags are reported back; usage is not (a tile
	 * pool, "vmm.create.usage1"); handle types the driver does not know
	 * are dropped. */
	p = prop_dev(0, (CUmemAllocationHandleType)0x10);
	p.allocFlags.compressionType = CU_MEM_ALLOCATION_COMP_GENERIC;
	p.allocFlags.gpuDirectRDMACapable = 1;
	p.allocFlags.usage = CU_MEM_CREATE_USAGE_TILE_POOL;
	ASSERT_EQ(CUDA_SUCCESS, cuMemCreate(&h, GRAN, &p, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuMemGetAllocationPropertiesFromHandle(&q, h));
	ASSERT_EQ(CU_MEM_ALLOCATION_COMP_GENERIC, q.allocFlags.compressionType);
	ASSERT_EQ(1, q.allocFlags.gpuDirectRDMACapable);
	ASSERT_EQ(0, q.allocFlags.usage);
	ASSERT_EQ(CU_MEM_HANDLE_TYPE_NONE, q.requestedHandleTypes);
	ASSERT_EQ(CUDA_SUCCESS, cuMemRelease(h));
}

/* Mapping and unmapping: whole allocations only, alignment, bounds,
 * overlaps, unknown handles; unmapping whole mappings, and nothing. */
TEST_F(vmm, map_unmap)
{
	CUmemAllocationProp p = prop_dev(0, CU_MEM_HANDLE_TYPE_NONE);
	CUmemGenericAllocationHandle h = 0, h2 = 0;
	CUdeviceptr va = 0;

	ASSERT_EQ(CUDA_SUCCESS, cuMemCreate(&h, 4 * MIB, &p, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuMemCreate(&h2, GRAN, &p, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAddressReserve(&va, 16 * MIB, 0, 0, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuMemMap(va, 4 * MIB, 0, h, 0));
	/* The same bytes again, an overlap: mapped already. */
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemMap(va, 4 * MIB, 0, h, 0));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemMap(va + GRAN, GRAN, 0, h2, 0));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemMap(va + GRAN, 4 * MIB, 0, h, 0));
	/* Right after it: fine.  And the same allocation once more. */
	ASSERT_EQ(CUDA_SUCCESS, cuMemMap(va + 4 * MIB, GRAN, 0, h2, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuMemMap(va + 8 * MIB, 4 * MIB, 0, h, 0));
	/* Part of an allocation: not supported, whatever else is wrong. */
	ASSERT_EQ(CUDA_ERROR_NOT_SUPPORTED, cuMemMap(va + 12 * MIB, GRAN, GRAN, h, 0));
	ASSERT_EQ(CUDA_ERROR_NOT_SUPPORTED, cuMemMap(va + 12 * MIB, GRAN, 0, h, 0));
	ASSERT_EQ(CUDA_ERROR_NOT_SUPPORTED, cuMemMap(va + 12 * MIB + PAGE, GRAN, 0, h, 0));
	ASSERT_EQ(CUDA_ERROR_NOT_SUPPORTED, cuMemMap(va + 12 * MIB, PAGE, 0, h2, 0));
	ASSERT_EQ(CUDA_ERROR_NOT_SUPPORTED, cuMemMap(va + 12 * MIB, GRAN, PAGE, h2, 0));
	ASSERT_EQ(CUDA_ERROR_NOT_SUPPORTED, cuMemMap(va + 12 * MIB, 6 * MIB, 0, h, 0));
	/* Alignment, flags, sizes, addresses. */
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemMap(va + 12 * MIB + PAGE, GRAN, 0, h2, 0));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemMap(va + 12 * MIB, GRAN, 0, h2, 1));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemMap(va + 12 * MIB, 0, 0, h2, 0));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemMap(0, GRAN, 0, h2, 0));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemMap((uintptr_t)&p & ~(GRAN - 1), GRAN, 0, h2, 0));
	/* Beyond the reservation's end. */
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemMap(va + 14 * MIB, 4 * MIB, 0, h, 0));
	/* Not a handle: CUDA_ERROR_INVALID_VALUE, as for handle 0. */
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemMap(va + 12 * MIB, GRAN, 0, 0, 0));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemMap(va + 12 * MIB, GRAN, 0, h2 + 12345, 0));
	/* Unmap: whole mappings only, aligned. */
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemUnmap(va, GRAN));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemUnmap(va + GRAN, GRAN));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemUnmap(va + PAGE, 4 * MIB));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemUnmap(va, 0));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemUnmap(va, PAGE));	/* rounds down to 0 */
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemUnmap(0, GRAN));
	/* The size rounds down: 4 MiB + a page is the first mapping. */
	ASSERT_EQ(CUDA_SUCCESS, cuMemUnmap(va, 4 * MIB + PAGE));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemRetainAllocationHandle(&h2, (void *)(uintptr_t)va));
	/* Nothing mapped: nothing to do. */
	ASSERT_EQ(CUDA_SUCCESS, cuMemUnmap(va, 4 * MIB));
	ASSERT_EQ(CUDA_SUCCESS, cuMemUnmap(va + 12 * MIB, 4 * MIB));
	ASSERT_EQ(CUDA_SUCCESS, cuMemUnmap(va + 4 * MIB, GRAN));
	ASSERT_EQ(CUDA_SUCCESS, cuMemUnmap(va + 8 * MIB, 4 * MIB));
	ASSERT_EQ(CUDA_SUCCESS, cuMemRelease(h));
	ASSERT_EQ(CUDA_SUCCESS, cuMemRelease(h2));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAddressFree(va, 16 * MIB));
	/* No reservation there any more. */
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemUnmap(va, GRAN));
}

/* Access: none after mapping, what was set, per device and per whole
 * mapping; errors change nothing. */
TEST_F(vmm, set_get_access)
{
	CUmemGenericAllocationHandle a = 0, b = 0;
	CUmemAllocationProp p = prop_dev(0, CU_MEM_HANDLE_TYPE_NONE);
	CUmemAccessDesc d[2];
	CUmemLocation l = { CU_MEM_LOCATION_TYPE_DEVICE, 0 };
	unsigned long long f = 7;
	CUdeviceptr va = 0;
	const int last = self->l.ndev - 1;

	/* a at [0, 2M), b at [2M, 4M), a hole at [4M, 8M). */
	ASSERT_EQ(CUDA_SUCCESS, cuMemCreate(&a, GRAN, &p, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuMemCreate(&b, GRAN, &p, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAddressReserve(&va, 8 * MIB, 0, 0, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuMemMap(va, GRAN, 0, a, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuMemMap(va + GRAN, GRAN, 0, b, 0));
	ASSERT_EQ(CU_MEM_ACCESS_FLAGS_PROT_NONE, get_access(CU_MEM_LOCATION_TYPE_DEVICE, 0, va));
	/* Both mappings in one call, two devices. */
	d[0] = access_desc(CU_MEM_LOCATION_TYPE_DEVICE, 0, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
	d[1] = access_desc(CU_MEM_LOCATION_TYPE_DEVICE, last, CU_MEM_ACCESS_FLAGS_PROT_READ);
	ASSERT_EQ(CUDA_SUCCESS, cuMemSetAccess(va, 4 * MIB, d, 2));
	ASSERT_EQ(CU_MEM_ACCESS_FLAGS_PROT_READ,
		  get_access(CU_MEM_LOCATION_TYPE_DEVICE, last, va + 3 * MIB));
	if (last)
		ASSERT_EQ(CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
			  get_access(CU_MEM_LOCATION_TYPE_DEVICE, 0, va + GRAN));
	/* One mapping: the second loses device 0's write. */
	d[0].flags = CU_MEM_ACCESS_FLAGS_PROT_READ;
	ASSERT_EQ(CUDA_SUCCESS, cuMemSetAccess(va + GRAN, GRAN, d, 1));
	ASSERT_EQ(CU_MEM_ACCESS_FLAGS_PROT_READ, get_access(CU_MEM_LOCATION_TYPE_DEVICE, 0,
							    va + GRAN));
	/* A later descriptor for the same device wins. */
	d[0].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	d[1] = access_desc(CU_MEM_LOCATION_TYPE_DEVICE, 0, CU_MEM_ACCESS_FLAGS_PROT_NONE);
	ASSERT_EQ(CUDA_SUCCESS, cuMemSetAccess(va, GRAN, d, 2));
	ASSERT_EQ(CU_MEM_ACCESS_FLAGS_PROT_NONE, get_access(CU_MEM_LOCATION_TYPE_DEVICE, 0, va));
	/* Errors of cuMemSetAccess: nothing changes. */
	d[0] = access_desc(CU_MEM_LOCATION_TYPE_DEVICE, 0, (CUmemAccess_flags)2);
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemSetAccess(va, 4 * MIB, d, 1));
	d[0] = access_desc(CU_MEM_LOCATION_TYPE_DEVICE, self->l.ndev,
			   CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemSetAccess(va, 4 * MIB, d, 1));
	d[0] = access_desc(CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT, 0,
			   CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemSetAccess(va, 4 * MIB, d, 1));
	/* The host has no access to GPU memory; as with NVIDIA's driver, the
	 * descriptors before the host's still apply. */
	d[0] = access_desc(CU_MEM_LOCATION_TYPE_DEVICE, 0, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
	d[1] = access_desc(CU_MEM_LOCATION_TYPE_HOST, 0, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
	ASSERT_EQ(CUDA_ERROR_NOT_SUPPORTED, cuMemSetAccess(va, 4 * MIB, &d[1], 1));
	ASSERT_EQ(CU_MEM_ACCESS_FLAGS_PROT_NONE, get_access(CU_MEM_LOCATION_TYPE_DEVICE, 0, va));
	ASSERT_EQ(CUDA_ERROR_NOT_SUPPORTED, cuMemSetAccess(va, GRAN, d, 2));
	ASSERT_EQ(CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
		  get_access(CU_MEM_LOCATION_TYPE_DEVICE, 0, va));
	ASSERT_EQ(CU_MEM_ACCESS_FLAGS_PROT_READ, get_access(CU_MEM_LOCATION_TYPE_DEVICE, 0,
							    va + GRAN));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemSetAccess(va, 4 * MIB, NULL, 1));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemSetAccess(va, 4 * MIB, d, 0));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemSetAccess(va, 0, d, 1));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemSetAccess(0, GRAN, d, 1));
	/* Not whole mappings, or not mapped. */
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemSetAccess(va, GRAN / 2, d, 1));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemSetAccess(va + PAGE, GRAN, d, 1));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemSetAccess(va, 8 * MIB, d, 1));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemSetAccess(va + 4 * MIB, GRAN, d, 1));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemSetAccess((uintptr_t)&f & ~(GRAN - 1), GRAN, d, 1));
	ASSERT_EQ(CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
		  get_access(CU_MEM_LOCATION_TYPE_DEVICE, 0, va));
	ASSERT_EQ(CU_MEM_ACCESS_FLAGS_PROT_READ, get_access(CU_MEM_LOCATION_TYPE_DEVICE, 0,
							    va + GRAN));
	/* Errors of cuMemGetAccess. */
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemGetAccess(NULL, &l, va));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemGetAccess(&f, NULL, va));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemGetAccess(&f, &l, va + 4 * MIB));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemGetAccess(&f, &l, (uintptr_t)&f));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemGetAccess(&f, &l, 0));
	l.id = self->l.ndev;
	ASSERT_EQ(CUDA_ERROR_INVALID_DEVICE, cuMemGetAccess(&f, &l, va));
	l.type = CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT;
	l.id = 0;
	ASSERT_EQ(CUDA_ERROR_INVALID_DEVICE, cuMemGetAccess(&f, &l, va));
	/* Other memory of CUDA: no access, no error. */
	{
		CUdeviceptr m = managed(GRAN);

		l.type = CU_MEM_LOCATION_TYPE_DEVICE;
		f = 7;
		ASSERT_EQ(CUDA_SUCCESS, cuMemGetAccess(&f, &l, m));
		ASSERT_EQ(0, f);
		ASSERT_EQ(CUDA_SUCCESS, cuMemFree(m));
	}
	ASSERT_EQ(CUDA_SUCCESS, cuMemUnmap(va, 4 * MIB));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAddressFree(va, 8 * MIB));
	ASSERT_EQ(CUDA_SUCCESS, cuMemRelease(a));
	ASSERT_EQ(CUDA_SUCCESS, cuMemRelease(b));
}

/* Reserve 1 GiB and grow into it 2 MiB at a time: every step is one new
 * allocation mapped after the last, usable at once, and copies and sets
 * run over the whole grown span across mappings. */
TEST_F_TIMEOUT(vmm, grow, 300)
{
	enum { STEPS = 24 };
	CUmemGenericAllocationHandle h[STEPS];
	CUmemAllocationProp p = prop_dev(0, CU_MEM_HANDLE_TYPE_NONE);
	unsigned long long used = vidmem_used(0);
	CUdeviceptr va = 0, base = 0;
	size_t size = 0;

	ASSERT_EQ(CUDA_SUCCESS, cuMemAddressReserve(&va, GIB, 0, 0, 0));
	for (int i = 0; i < STEPS; i++) {
		ASSERT_EQ(CUDA_SUCCESS, cuMemCreate(&h[i], GRAN, &p, 0));
		ASSERT_EQ(CUDA_SUCCESS, cuMemMap(va + i * GRAN, GRAN, 0, h[i], 0));
		ASSERT_EQ(CUDA_SUCCESS, set_access_all(va + i * GRAN, GRAN, self->l.ndev,
						       CU_MEM_ACCESS_FLAGS_PROT_READWRITE));
		/* The handle is not needed any more: the mapping keeps it. */
		ASSERT_EQ(CUDA_SUCCESS, cuMemRelease(h[i]));
		ASSERT_EQ(CUDA_SUCCESS, cuMemsetD32(va + i * GRAN, 0x1000 + i, GRAN / 4));
		size += GRAN;
		ASSERT_EQ(CUDA_SUCCESS, cuMemGetAddressRange(&base, NULL, va + size - 1));
		ASSERT_EQ(va + i * GRAN, base);
	}
	ASSERT_EQ(used + STEPS * GRAN, vidmem_used(0));
	for (int i = 0; i < STEPS; i++) {
		unsigned int w = 0;

		ASSERT_EQ(CUDA_SUCCESS, cuMemcpyDtoH(&w, va + i * GRAN + GRAN - 4, 4));
		ASSERT_EQ(0x1000u + i, w);
	}
	/* One copy and one set over all of it, across every mapping. */
	ASSERT_TRUE(put_pattern(va, size, 42));
	ASSERT_TRUE(has_pattern(va, size, 42));
	ASSERT_EQ(CUDA_SUCCESS, cuMemsetD8(va + GRAN - 1, 0x5a, 2));
	ASSERT_TRUE(device_bytes_are(va + GRAN - 1, 0x5a, 2));
	/* Beyond what is mapped: refused. */
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemsetD8(va + size - 1, 0, 2));
	/* One unmap for all of it. */
	ASSERT_EQ(CUDA_SUCCESS, cuMemUnmap(va, size));
	ASSERT_EQ(used, vidmem_used(0));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAddressFree(va, GIB));
}

/* One allocation at several addresses: what is written through one is read
 * through the others, by copies. */
TEST_F(vmm, alias_memcpy)
{
	CUmemGenericAllocationHandle h = 0;
	CUdeviceptr a, b = 0;

	a = map_new(_metadata, &self->l, 0, 4 * MIB, &h);
	/* Twice more, in one reservation. */
	ASSERT_EQ(CUDA_SUCCESS, cuMemAddressReserve(&b, 8 * MIB, 0, 0, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuMemMap(b, 4 * MIB, 0, h, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuMemMap(b + 4 * MIB, 4 * MIB, 0, h, 0));
	ASSERT_EQ(CUDA_SUCCESS, set_access_all(b, 8 * MIB, self->l.ndev,
					       CU_MEM_ACCESS_FLAGS_PROT_READWRITE));
	ASSERT_TRUE(put_pattern(a, 4 * MIB, 7));
	ASSERT_TRUE(has_pattern(b, 4 * MIB, 7));
	ASSERT_TRUE(has_pattern(b + 4 * MIB, 4 * MIB, 7));
	ASSERT_TRUE(put_pattern(b + 4 * MIB + GRAN, GRAN, 8));
	ASSERT_TRUE(has_pattern(a + GRAN, GRAN, 8));
	ASSERT_TRUE(has_pattern(b + GRAN, GRAN, 8));
	/* A device-to-device copy from one alias onto another. */
	ASSERT_EQ(CUDA_SUCCESS, cuMemcpyDtoD(b, a + GRAN, GRAN));
	ASSERT_EQ(CUDA_SUCCESS, cuCtxSynchronize());
	ASSERT_TRUE(has_pattern(a, GRAN, 8));
	ASSERT_TRUE(has_pattern(b + 4 * MIB, GRAN, 8));
	ASSERT_EQ(CUDA_SUCCESS, cuMemUnmap(b, 8 * MIB));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAddressFree(b, 8 * MIB));
	ASSERT_TRUE(has_pattern(a, GRAN, 8));
	unmap_free(_metadata, a, 4 * MIB, h);
}

/* One allocation at two addresses, by simulated launches: a GPU writes
 * through one, the other GPU reads through the other. */
TEST_F_TIMEOUT(vmm, alias_launch, 300)
{
	CUmemGenericAllocationHandle h = 0, h2 = 0;
	CUdeviceptr a, b;
	unsigned long long sum = 0;
	int other = self->l.ndev - 1;

	if (!self->l.sim)
		SKIP(return, "no simulated GPU launches");
	a = map_new(_metadata, &self->l, 0, 4 * MIB, &h);
	ASSERT_EQ(CUDA_SUCCESS, cuMemRetainAllocationHandle(&h2, (void *)(uintptr_t)a));
	ASSERT_EQ(h, h2);
	b = 0;
	ASSERT_EQ(CUDA_SUCCESS, cuMemAddressReserve(&b, 4 * MIB, 0, 0, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuMemMap(b, 4 * MIB, 0, h2, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuMemRelease(h2));
	ASSERT_EQ(CUDA_SUCCESS, set_access_all(b, 4 * MIB, self->l.ndev,
					       CU_MEM_ACCESS_FLAGS_PROT_READWRITE));
	ASSERT_EQ(CUDA_SUCCESS, gpu_write_on(0, a, 4 * MIB, 11, NULL));
	/* The words were written at a's addresses: read them through b. */
	ASSERT_EQ(CUDA_SUCCESS, gpu_read(other, b, 4 * MIB, NULL, &sum));
	{
		unsigned long long want = 0;

		for (size_t i = 0; i < 4 * MIB / 8; i++)
			want += uvmSimChecksumTerm(uvmSimPatternWord(11, a + 8 * i), b + 8 * i);
		ASSERT_EQ(want, sum);
	}
	/* And the other way round, checked by a copy. */
	ASSERT_EQ(CUDA_SUCCESS, gpu_write_on(other, b + GRAN, GRAN, 12, NULL));
	ASSERT_EQ(CUDA_SUCCESS, gpu_read(0, b + GRAN, GRAN, NULL, &sum));
	ASSERT_EQ(pattern_checksum(12, b + GRAN, GRAN), sum);
	{
		unsigned long long w = 0;

		ASSERT_EQ(CUDA_SUCCESS, cuMemcpyDtoH(&w, a + GRAN + 64, 8));
		ASSERT_EQ(uvmSimPatternWord(12, b + GRAN + 64), w);
	}
	ASSERT_EQ(CUDA_SUCCESS, cuMemUnmap(b, 4 * MIB));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAddressFree(b, 4 * MIB));
	unmap_free(_metadata, a, 4 * MIB, h);
}

/* Access rights are enforced on launches: a read-only GPU reads, its write
 * is a fatal fault; no access at all, even a read is; restored rights work
 * again. */
TEST_F_TIMEOUT(vmm, access_launch, 300)
{
	CUmemGenericAllocationHandle h = 0;
	uvmSimLaunchInfo info;
	unsigned long long sum = 0;
	CUdeviceptr va;

	if (!self->l.sim)
		SKIP(return, "no simulated GPU launches");
	va = map_new(_metadata, &self->l, 0, 4 * MIB, &h);
	ASSERT_EQ(CUDA_SUCCESS, gpu_write_on(0, va, 4 * MIB, 5, NULL));
	ASSERT_EQ(CUDA_SUCCESS, set_access_all(va, 4 * MIB, self->l.ndev,
					       CU_MEM_ACCESS_FLAGS_PROT_READ));
	ASSERT_EQ(CUDA_SUCCESS, gpu_read(0, va, 4 * MIB, NULL, &sum));
	ASSERT_EQ(pattern_checksum(5, va, 4 * MIB), sum);
	memset(&info, 0, sizeof(info));
	ASSERT_EQ(CUDA_ERROR_ILLEGAL_ADDRESS, gpu_write_on(0, va + GRAN, PAGE, 6, &info));
	ASSERT_EQ(va + GRAN, info.faultAddress & ~(PAGE - 1));
	ASSERT_EQ(UVM_SIM_OP_WRITE, info.faultAccess);
	/* Nothing was written. */
	ASSERT_EQ(CUDA_SUCCESS, gpu_read(0, va + GRAN, GRAN, NULL, &sum));
	ASSERT_EQ(pattern_checksum(5, va + GRAN, GRAN), sum);
	/* Copies by device 0 into it are refused as the launch was. */
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemsetD8(va, 1, 1));
	/* No access: a read faults too. */
	ASSERT_EQ(CUDA_SUCCESS, set_access_all(va, 4 * MIB, 1, CU_MEM_ACCESS_FLAGS_PROT_NONE));
	ASSERT_EQ(CUDA_ERROR_ILLEGAL_ADDRESS, gpu_read(0, va, PAGE, NULL, &sum));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemcpyDtoH(&sum, va, 8));
	/* Read-write again. */
	ASSERT_EQ(CUDA_SUCCESS, set_access_all(va, 4 * MIB, self->l.ndev,
					       CU_MEM_ACCESS_FLAGS_PROT_READWRITE));
	ASSERT_EQ(CUDA_SUCCESS, gpu_write_on(0, va, 4 * MIB, 6, NULL));
	ASSERT_EQ(CUDA_SUCCESS, gpu_read(0, va, 4 * MIB, NULL, &sum));
	ASSERT_EQ(pattern_checksum(6, va, 4 * MIB), sum);
	unmap_free(_metadata, va, 4 * MIB, h);
}

/* Host-located memory: the CPU loads and stores it where it has access, a
 * GPU sees the CPU's bytes and the CPU the GPU's. */
TEST_F_TIMEOUT(vmm, host_located, 300)
{
	CUmemAllocationProp p = prop_host();
	CUmemGenericAllocationHandle h = 0;
	CUmemAccessDesc d[2];
	unsigned long long *w, sum = 0;
	CUdeviceptr va = 0, base = 7;
	size_t size = 0;

	ASSERT_EQ(CUDA_SUCCESS, cuMemCreate(&h, 4 * MIB, &p, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAddressReserve(&va, 4 * MIB, 0, 0, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuMemMap(va, 4 * MIB, 0, h, 0));
	ASSERT_EQ(CU_MEM_ACCESS_FLAGS_PROT_NONE, get_access(CU_MEM_LOCATION_TYPE_HOST_NUMA, 0, va));
	d[0] = access_desc(CU_MEM_LOCATION_TYPE_HOST, 0, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
	d[1] = access_desc(CU_MEM_LOCATION_TYPE_DEVICE, 0, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
	ASSERT_EQ(CUDA_SUCCESS, cuMemSetAccess(va, 4 * MIB, d, 2));
	ASSERT_EQ(CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
		  get_access(CU_MEM_LOCATION_TYPE_HOST_NUMA, 0, va));
	/* HOST_NUMA_CURRENT names no accessor. */
	d[0].location.type = CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT;
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemSetAccess(va, 4 * MIB, d, 1));
	ASSERT_EQ(CU_MEMORYTYPE_HOST, ptr_attr(CU_POINTER_ATTRIBUTE_MEMORY_TYPE, va));
	ASSERT_EQ(va + 8, ptr_attr(CU_POINTER_ATTRIBUTE_HOST_POINTER, va + 8));
	/* NVIDIA's driver gives host memory no base here. */
	ASSERT_EQ(CUDA_SUCCESS, cuMemGetAddressRange(&base, &size, va + 8));
	ASSERT_EQ(0, base);
	ASSERT_EQ(4 * MIB, size);
	w = (unsigned long long *)(uintptr_t)va;
	ASSERT_EQ(0, w[0]);	/* zeroed */
	vmm_peer_fill(w, 4 * MIB, 3);
	ASSERT_TRUE(has_pattern(va, 4 * MIB, 3));
	if (self->l.sim) {
		ASSERT_EQ(CUDA_SUCCESS, gpu_read(0, va, 4 * MIB, NULL, &sum));
		ASSERT_EQ(checksum_of(w, va, 4 * MIB), sum);
		ASSERT_EQ(CUDA_SUCCESS, gpu_write_on(0, va + GRAN, GRAN, 9, NULL));
		ASSERT_EQ(uvmSimPatternWord(9, va + GRAN + 8), w[GRAN / 8 + 1]);
		ASSERT_EQ(vmm_peer_word(3, 1), w[1]);
	}
	/* A synchronous set of host memory is done when it returns. */
	ASSERT_EQ(CUDA_SUCCESS, cuMemsetD32(va, 0x600d, 2));
	ASSERT_EQ(0x0000600d0000600dULL, w[0]);
	/* The CPU loses its write: loads still work.  HOST_NUMA reports the
	 * host's own right; HOST, as NVIDIA's driver answers it, what the host
	 * or the current device may do. */
	d[0] = access_desc(CU_MEM_LOCATION_TYPE_HOST_NUMA, 0, CU_MEM_ACCESS_FLAGS_PROT_READ);
	ASSERT_EQ(CUDA_SUCCESS, cuMemSetAccess(va, 4 * MIB, d, 1));
	ASSERT_EQ(vmm_peer_word(3, 1), w[1]);
	ASSERT_EQ(CU_MEM_ACCESS_FLAGS_PROT_READ, get_access(CU_MEM_LOCATION_TYPE_HOST_NUMA, 0, va));
	ASSERT_EQ(CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
		  get_access(CU_MEM_LOCATION_TYPE_HOST, 0, va));
	unmap_free(_metadata, va, 4 * MIB, h);
}

static int cpu_store(void *arg)
{
	*(volatile unsigned long long *)arg = 1;
	return 0;
}

/* The CPU may not touch GPU memory, host memory without access, a
 * reservation, nor write where it may only read: SIGSEGV, as with
 * NVIDIA's driver ("vmm.touch.*", "vmm.host.*"). */
TEST_F(vmm, cpu_no_access)
{
	CUmemAllocationProp p = prop_host();
	CUmemGenericAllocationHandle h = 0, hd = 0;
	CUmemAccessDesc d = access_desc(CU_MEM_LOCATION_TYPE_HOST, 0, CU_MEM_ACCESS_FLAGS_PROT_READ);
	CUdeviceptr va = 0, vd, vr = 0;

	ASSERT_EQ(CUDA_SUCCESS, cuMemCreate(&h, GRAN, &p, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAddressReserve(&va, GRAN, 0, 0, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuMemMap(va, GRAN, 0, h, 0));
	/* Mapped, but no host access yet. */
	ASSERT_EQ(128 + SIGSEGV, in_child(cpu_store, (void *)(uintptr_t)va));
	/* Read-only for the host: loads work, stores fault. */
	ASSERT_EQ(CUDA_SUCCESS, cuMemSetAccess(va, GRAN, &d, 1));
	ASSERT_EQ(0, *(volatile unsigned long long *)(uintptr_t)va);
	ASSERT_EQ(128 + SIGSEGV, in_child(cpu_store, (void *)(uintptr_t)va));
	/* GPU memory, and a bare reservation. */
	vd = map_new(_metadata, &self->l, 0, GRAN, &hd);
	ASSERT_EQ(128 + SIGSEGV, in_child(cpu_store, (void *)(uintptr_t)vd));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAddressReserve(&vr, GRAN, 0, 0, 0));
	ASSERT_EQ(128 + SIGSEGV, in_child(cpu_store, (void *)(uintptr_t)vr));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAddressFree(vr, GRAN));
	unmap_free(_metadata, vd, GRAN, hd);
	unmap_free(_metadata, va, GRAN, h);
}

/* Peer access: device 1 reads and writes device 0's allocation. */
TEST_F_TIMEOUT(vmm, peer, 300)
{
	CUmemGenericAllocationHandle h = 0;
	CUmemAllocationProp p = prop_dev(0, CU_MEM_HANDLE_TYPE_NONE);
	CUmemAccessDesc d;
	unsigned long long sum = 0, used0 = vidmem_used(0), used1;
	CUdeviceptr va = 0;

	if (self->l.ndev < 2)
		SKIP(return, "one GPU");
	used1 = vidmem_used(1);
	ASSERT_EQ(CUDA_SUCCESS, cuMemCreate(&h, 4 * MIB, &p, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAddressReserve(&va, 4 * MIB, 0, 0, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuMemMap(va, 4 * MIB, 0, h, 0));
	/* Only device 1 gets access; the memory stays on device 0. */
	d = access_desc(CU_MEM_LOCATION_TYPE_DEVICE, 1, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
	ASSERT_EQ(CUDA_SUCCESS, cuMemSetAccess(va, 4 * MIB, &d, 1));
	ASSERT_EQ(used0 + 4 * MIB, vidmem_used(0));
	ASSERT_EQ(used1, vidmem_used(1));
	/* A copy by device 0's engine needs device 0's access. */
	ASSERT_NE(CUDA_SUCCESS, cuMemsetD8(va, 1, 1));
	ASSERT_EQ(CU_MEM_ACCESS_FLAGS_PROT_NONE, get_access(CU_MEM_LOCATION_TYPE_DEVICE, 0, va));
	if (self->l.sim) {
		ASSERT_EQ(CUDA_SUCCESS, gpu_write_on(1, va, 4 * MIB, 21, NULL));
		ASSERT_EQ(CUDA_SUCCESS, gpu_read(1, va, 4 * MIB, NULL, &sum));
		ASSERT_EQ(pattern_checksum(21, va, 4 * MIB), sum);
		ASSERT_EQ(CUDA_ERROR_ILLEGAL_ADDRESS, gpu_read(0, va, PAGE, NULL, &sum));
		ASSERT_EQ(used1, vidmem_used(1));
	}
	/* Device 0 too; its copy engine reads what device 1 wrote. */
	d.location.id = 0;
	ASSERT_EQ(CUDA_SUCCESS, cuMemSetAccess(va, 4 * MIB, &d, 1));
	if (self->l.sim) {
		unsigned long long wd = 0;

		ASSERT_EQ(CUDA_SUCCESS, cuMemcpyDtoH(&wd, va + 8, 8));
		ASSERT_EQ(uvmSimPatternWord(21, va + 8), wd);
	}
	unmap_free(_metadata, va, 4 * MIB, h);
	ASSERT_EQ(used0, vidmem_used(0));
}

/* A handle released while mapped: the mapping keeps the memory until it
 * goes. */
TEST_F(vmm, release_while_mapped)
{
	CUmemGenericAllocationHandle h = 0, h2 = 0;
	unsigned long long used = vidmem_used(0);
	CUdeviceptr va;

	va = map_new(_metadata, &self->l, 0, 4 * MIB, &h);
	ASSERT_TRUE(put_pattern(va, 4 * MIB, 31));
	ASSERT_EQ(CUDA_SUCCESS, cuMemRelease(h));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemRelease(h));
	ASSERT_TRUE(has_pattern(va, 4 * MIB, 31));
	ASSERT_EQ(used + 4 * MIB, vidmem_used(0));
	/* Retaining brings a handle back: the same value. */
	ASSERT_EQ(CUDA_SUCCESS, cuMemRetainAllocationHandle(&h2, (void *)(uintptr_t)(va + GRAN)));
	ASSERT_EQ(h, h2);
	ASSERT_EQ(CUDA_SUCCESS, cuMemRelease(h2));
	ASSERT_EQ(CUDA_SUCCESS, cuMemUnmap(va, 4 * MIB));
	ASSERT_EQ(used, vidmem_used(0));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAddressFree(va, 4 * MIB));
}

/* A reservation with mappings in it is not freed; once they are gone it
 * is. */
TEST_F(vmm, free_while_mapped)
{
	CUmemGenericAllocationHandle h = 0;
	unsigned long long used = vidmem_used(0);
	CUdeviceptr va, again = 0;

	va = map_new(_metadata, &self->l, 0, 4 * MIB, &h);
	ASSERT_TRUE(put_pattern(va, 4 * MIB, 91));
	ASSERT_EQ(CUDA_SUCCESS, cuMemRelease(h));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemAddressFree(va, 4 * MIB));
	ASSERT_TRUE(has_pattern(va, 4 * MIB, 91));
	ASSERT_EQ(used + 4 * MIB, vidmem_used(0));
	ASSERT_EQ(CUDA_SUCCESS, cuMemUnmap(va, 4 * MIB));
	ASSERT_EQ(used, vidmem_used(0));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAddressFree(va, 4 * MIB));
	/* The addresses are free again: a hint gets them. */
	ASSERT_EQ(CUDA_SUCCESS, cuMemAddressReserve(&again, 4 * MIB, 0, va, 0));
	ASSERT_EQ(va, again);
	ASSERT_EQ(CUDA_SUCCESS, cuMemAddressFree(again, 4 * MIB));
}

/* One cuMemUnmap over several mappings and holes between them. */
TEST_F(vmm, unmap_span)
{
	CUmemAllocationProp p = prop_dev(0, CU_MEM_HANDLE_TYPE_NONE);
	CUmemGenericAllocationHandle h[3];
	unsigned long long used = vidmem_used(0);
	CUdeviceptr va = 0;

	ASSERT_EQ(CUDA_SUCCESS, cuMemAddressReserve(&va, 32 * MIB, 0, 0, 0));
	for (int i = 0; i < 3; i++) {
		ASSERT_EQ(CUDA_SUCCESS, cuMemCreate(&h[i], 4 * MIB, &p, 0));
		ASSERT_EQ(CUDA_SUCCESS, cuMemMap(va + i * 8 * MIB, 4 * MIB, 0, h[i], 0));
		ASSERT_EQ(CUDA_SUCCESS, cuMemRelease(h[i]));
	}
	ASSERT_EQ(used + 12 * MIB, vidmem_used(0));
	/* A span that cuts the last mapping is refused whole. */
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemUnmap(va, 18 * MIB));
	ASSERT_EQ(used + 12 * MIB, vidmem_used(0));
	ASSERT_EQ(CUDA_SUCCESS, cuMemUnmap(va, 20 * MIB));
	ASSERT_EQ(used, vidmem_used(0));
	ASSERT_EQ(~0ULL, ptr_attr(CU_POINTER_ATTRIBUTE_MAPPED, va + 16 * MIB));
	/* Nothing is mapped there any more: nothing to do. */
	ASSERT_EQ(CUDA_SUCCESS, cuMemUnmap(va, 32 * MIB));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAddressFree(va, 32 * MIB));
}

/* cuMemRetainAllocationHandle: the handle of any mapped byte, one more
 * reference each time; nothing mapped, no handle. */
TEST_F(vmm, retain)
{
	CUmemGenericAllocationHandle h = 0, r = 0;
	CUdeviceptr va;

	va = map_new(_metadata, &self->l, 0, 4 * MIB, &h);
	ASSERT_EQ(CUDA_SUCCESS, cuMemRetainAllocationHandle(&r, (void *)(uintptr_t)(va + 4 * MIB - 1)));
	ASSERT_EQ(h, r);
	ASSERT_EQ(CUDA_SUCCESS, cuMemRetainAllocationHandle(&r, (void *)(uintptr_t)va));
	ASSERT_EQ(CUDA_SUCCESS, cuMemRelease(h));
	ASSERT_EQ(CUDA_SUCCESS, cuMemRelease(h));
	/* One reference left: the creation's. */
	ASSERT_EQ(CUDA_SUCCESS, cuMemRelease(h));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemRelease(h));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemRetainAllocationHandle(NULL, (void *)(uintptr_t)va));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemRetainAllocationHandle(&r, &r));
	ASSERT_EQ(CUDA_SUCCESS, cuMemUnmap(va, 4 * MIB));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemRetainAllocationHandle(&r, (void *)(uintptr_t)va));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAddressFree(va, 4 * MIB));
}

/* Pointer attributes and cuMemGetAddressRange of VMM memory: the range is
 * the reservation, the mapping the cuMemMap, access the current device's. */
TEST_F(vmm, pointer_attributes)
{
	CUmemAllocationProp p = prop_dev(self->l.ndev - 1, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
	CUpointer_attribute at[3] = { CU_POINTER_ATTRIBUTE_MAPPED,
				      CU_POINTER_ATTRIBUTE_ACCESS_FLAGS,
				      CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR };
	unsigned long long v[3] = { 7, 7, 7 };
	void *data[3] = { &v[0], &v[1], &v[2] };
	CUmemGenericAllocationHandle h = 0;
	CUdeviceptr va = 0, base = 0, m = va + 2 * GRAN;
	size_t size = 0;
	CUmemAccessDesc d;
	struct cudaPointerAttributes ra;

	ASSERT_EQ(CUDA_SUCCESS, cuMemCreate(&h, 4 * MIB, &p, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAddressReserve(&va, 16 * MIB, 0, 0, 0));
	m = va + 2 * GRAN;
	ASSERT_EQ(CUDA_SUCCESS, cuMemMap(m, 4 * MIB, 0, h, 0));
	/* No access for the current device: no device pointer. */
	ASSERT_EQ(~0ULL, ptr_attr(CU_POINTER_ATTRIBUTE_DEVICE_POINTER, m));
	ASSERT_EQ(0, ptr_attr(CU_POINTER_ATTRIBUTE_ACCESS_FLAGS, m));
	d = access_desc(CU_MEM_LOCATION_TYPE_DEVICE, 0, CU_MEM_ACCESS_FLAGS_PROT_READ);
	ASSERT_EQ(CUDA_SUCCESS, cuMemSetAccess(m, 4 * MIB, &d, 1));
	ASSERT_EQ(CUDA_SUCCESS, cuMemGetAddressRange(&base, &size, m + 12345));
	ASSERT_EQ(m, base);
	ASSERT_EQ(4 * MIB, size);
	ASSERT_EQ(CUDA_ERROR_NOT_FOUND, cuMemGetAddressRange(&base, &size, va));
	ASSERT_EQ(0, ptr_attr(CU_POINTER_ATTRIBUTE_CONTEXT, m));
	ASSERT_EQ(CU_MEMORYTYPE_DEVICE, ptr_attr(CU_POINTER_ATTRIBUTE_MEMORY_TYPE, m));
	ASSERT_EQ(m + 5, ptr_attr(CU_POINTER_ATTRIBUTE_DEVICE_POINTER, m + 5));
	ASSERT_EQ(~0ULL, ptr_attr(CU_POINTER_ATTRIBUTE_HOST_POINTER, m));
	ASSERT_EQ(self->l.ndev - 1, (int)ptr_attr(CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, m + MIB));
	ASSERT_EQ(1, ptr_attr(CU_POINTER_ATTRIBUTE_MAPPED, m));
	ASSERT_EQ(0, ptr_attr(CU_POINTER_ATTRIBUTE_IS_MANAGED, m));
	ASSERT_EQ(0, ptr_attr(CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, m));
	ASSERT_EQ(0, ptr_attr(CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE, m));
	ASSERT_EQ(CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
		  ptr_attr(CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES, m));
	ASSERT_EQ(CU_MEM_ACCESS_FLAGS_PROT_READ, ptr_attr(CU_POINTER_ATTRIBUTE_ACCESS_FLAGS, m));
	ASSERT_EQ(va, ptr_attr(CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, m + 3 * MIB));
	ASSERT_EQ(16 * MIB, ptr_attr(CU_POINTER_ATTRIBUTE_RANGE_SIZE, m + 3 * MIB));
	ASSERT_EQ(m, ptr_attr(CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR, m + 3 * MIB));
	ASSERT_EQ(4 * MIB, ptr_attr(CU_POINTER_ATTRIBUTE_MAPPING_SIZE, m + 3 * MIB));
	ASSERT_NE(0, ptr_attr(CU_POINTER_ATTRIBUTE_BUFFER_ID, m));
	ASSERT_EQ(ptr_attr(CU_POINTER_ATTRIBUTE_BUFFER_ID, m),
		  ptr_attr(CU_POINTER_ATTRIBUTE_BUFFER_ID, m + 3 * MIB));
	ASSERT_NE(0, ptr_attr(CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID, m));
	ASSERT_EQ(CUDA_SUCCESS, cuPointerGetAttributes(3, at, data, m + 10));
	ASSERT_EQ(1, v[0] & 0xffffffff);
	ASSERT_EQ(1, v[1] & 0xffffffff);
	ASSERT_EQ(m, v[2]);
	/* The runtime's view: device memory of its device. */
	ASSERT_EQ(cudaSuccess, cudaPointerGetAttributes(&ra, (void *)(uintptr_t)m));
	ASSERT_EQ(cudaMemoryTypeDevice, ra.type);
	ASSERT_EQ(self->l.ndev - 1, ra.device);
	ASSERT_EQ(NULL, ra.hostPointer);
	/* A reserved address with nothing mapped is no memory. */
	ASSERT_EQ(~0ULL, ptr_attr(CU_POINTER_ATTRIBUTE_MEMORY_TYPE, va));
	ASSERT_EQ(CUDA_SUCCESS, cuPointerGetAttributes(3, at, data, va));
	ASSERT_EQ(0, v[0] & 0xffffffff);
	ASSERT_EQ(0, v[2]);
	ASSERT_EQ(CUDA_SUCCESS, cuMemUnmap(m, 4 * MIB));
	ASSERT_EQ(~0ULL, ptr_attr(CU_POINTER_ATTRIBUTE_MAPPED, m));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAddressFree(va, 16 * MIB));
	ASSERT_EQ(CUDA_SUCCESS, cuMemRelease(h));
}

/* Managed-memory calls refuse VMM memory. */
TEST_F(vmm, managed_calls)
{
	CUmemGenericAllocationHandle h = 0;
	CUdeviceptr va;
	int v = 0;

	va = map_new(_metadata, &self->l, 0, 4 * MIB, &h);
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemAdvise(va, GRAN, CU_MEM_ADVISE_SET_READ_MOSTLY,
							DEV(0)));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemPrefetchAsync(va, GRAN, DEV(0), 0, self->l.s));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemRangeGetAttribute(&v, 4,
		  CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, va, GRAN));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemFree(va));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemHostRegister((void *)(uintptr_t)va, PAGE, 0));
	unmap_free(_metadata, va, 4 * MIB, h);
}

/* Export and import within one process: a second handle of the same
 * memory. */
TEST_F(vmm, export_import_self)
{
	CUmemGenericAllocationHandle h = 0, h2 = 0, hn = 0;
	CUmemAllocationProp p = prop_dev(0, CU_MEM_HANDLE_TYPE_NONE), q;
	CUdeviceptr va, vb = 0;
	int fd = -1, fd2 = -1;

	va = map_new(_metadata, &self->l, 0, 4 * MIB, &h);
	ASSERT_TRUE(put_pattern(va, 4 * MIB, 51));
	ASSERT_EQ(CUDA_SUCCESS, cuMemExportToShareableHandle(&fd, h,
		  CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	ASSERT_LE(0, fd);
	ASSERT_EQ(CUDA_SUCCESS, cuMemImportFromShareableHandle(&h2, (void *)(uintptr_t)fd,
		  CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
	ASSERT_NE(h, h2);
	/* An import reports no handle types and is not exported again. */
	ASSERT_EQ(CUDA_SUCCESS, cuMemGetAllocationPropertiesFromHandle(&q, h2));
	ASSERT_EQ(CU_MEM_LOCATION_TYPE_DEVICE, q.location.type);
	ASSERT_EQ(CU_MEM_HANDLE_TYPE_NONE, q.requestedHandleTypes);
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemExportToShareableHandle(&fd2, h2,
		  CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	ASSERT_EQ(0, close(fd));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAddressReserve(&vb, 4 * MIB, 0, 0, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuMemMap(vb, 4 * MIB, 0, h2, 0));
	ASSERT_EQ(CUDA_SUCCESS, set_access_all(vb, 4 * MIB, self->l.ndev,
					       CU_MEM_ACCESS_FLAGS_PROT_READWRITE));
	ASSERT_TRUE(has_pattern(vb, 4 * MIB, 51));
	ASSERT_EQ(ptr_attr(CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID, va),
		  ptr_attr(CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID, vb));
	ASSERT_EQ(0, ptr_attr(CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES, vb));
	/* Retained through the import's mapping: the import's handle. */
	{
		CUmemGenericAllocationHandle r = 0;

		ASSERT_EQ(CUDA_SUCCESS, cuMemRetainAllocationHandle(&r, (void *)(uintptr_t)vb));
		ASSERT_EQ(h2, r);
		ASSERT_EQ(CUDA_SUCCESS, cuMemRelease(r));
	}
	ASSERT_NE(ptr_attr(CU_POINTER_ATTRIBUTE_BUFFER_ID, va),
		  ptr_attr(CU_POINTER_ATTRIBUTE_BUFFER_ID, vb));
	ASSERT_EQ(CUDA_SUCCESS, cuMemRelease(h2));
	ASSERT_EQ(CUDA_SUCCESS, cuMemUnmap(vb, 4 * MIB));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAddressFree(vb, 4 * MIB));
	/* Errors. */
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemExportToShareableHandle(NULL, h,
		  CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemExportToShareableHandle(&fd, h,
		  CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 1));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemExportToShareableHandle(&fd, h,
		  CU_MEM_HANDLE_TYPE_FABRIC, 0));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemExportToShareableHandle(&fd, 0,
		  CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	/* Created without the type: not exportable, fd untouched. */
	ASSERT_EQ(CUDA_SUCCESS, cuMemCreate(&hn, GRAN, &p, 0));
	fd = -7;
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemExportToShareableHandle(&fd, hn,
		  CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	ASSERT_EQ(-7, fd);
	ASSERT_EQ(CUDA_SUCCESS, cuMemRelease(hn));
	/* Descriptors that are no exported allocation: CUDA_ERROR_UNKNOWN. */
	ASSERT_EQ(CUDA_ERROR_UNKNOWN, cuMemImportFromShareableHandle(&h2, (void *)(uintptr_t)999,
		  CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
	ASSERT_EQ(CUDA_ERROR_UNKNOWN, cuMemImportFromShareableHandle(&h2, (void *)(intptr_t)-1,
		  CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	ASSERT_EQ(CUDA_ERROR_UNKNOWN, cuMemImportFromShareableHandle(&h2, (void *)(uintptr_t)fd,
		  CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemImportFromShareableHandle(&h2,
		  (void *)(uintptr_t)fd, CU_MEM_HANDLE_TYPE_NONE));
	ASSERT_EQ(CUDA_ERROR_NOT_SUPPORTED, cuMemImportFromShareableHandle(&h2,
		  (void *)(uintptr_t)fd, CU_MEM_HANDLE_TYPE_FABRIC));
	close(fd);
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemImportFromShareableHandle(NULL,
		  (void *)(uintptr_t)0, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
	unmap_free(_metadata, va, 4 * MIB, h);
}

/* The path of tests/vmm_peer next to this executable. */
static const char *peer_path(void)
{
	static char path[PATH_MAX];
	char self_path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self_path, sizeof(self_path) - 1);

	if (n < 0)
		return "vmm_peer";
	self_path[n] = '\0';
	snprintf(path, sizeof(path), "%s/vmm_peer", dirname(self_path));
	return path;
}

/* fork + exec vmm_peer with one end of a socket pair; the other in *sock. */
static pid_t start_peer(int *sock, const char *mode, const char *a1, const char *a2,
			const char *a3)
{
	int sv[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return -1;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		char fdarg[16];
		int fd = dup(sv[1]);	/* without CLOEXEC */

		snprintf(fdarg, sizeof(fdarg), "%d", fd);
		execl(peer_path(), "vmm_peer", mode, fdarg, a1, a2, a3, (char *)NULL);
		_exit(127);
	}
	close(sv[1]);
	*sock = sv[0];
	return pid;
}

static int wait_peer(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Two processes: this one exports, the peer imports, maps, sets access,
 * checks this process's bytes and writes its own, which this one sees. */
TEST_F_TIMEOUT(vmm, two_processes, 300)
{
	CUmemGenericAllocationHandle h = 0;
	struct vmm_peer_msg m;
	CUdeviceptr va;
	int fd = -1, sock = -1;
	pid_t pid;

	va = map_new(_metadata, &self->l, 0, 8 * MIB, &h);
	ASSERT_TRUE(put_pattern(va, 8 * MIB, 61));
	ASSERT_EQ(CUDA_SUCCESS, cuMemExportToShareableHandle(&fd, h,
		  CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	pid = start_peer(&sock, "import", NULL, NULL, NULL);
	ASSERT_LT(0, pid);
	memset(&m, 0, sizeof(m));
	m.size = 8 * MIB;
	m.seed = 61;
	ASSERT_EQ(0, vmm_peer_send(sock, &m, fd));
	ASSERT_EQ(0, close(fd));
	ASSERT_EQ(0, vmm_peer_recv(sock, &m, NULL));
	ASSERT_EQ(0, m.status);
	ASSERT_EQ(0, wait_peer(pid));
	ASSERT_TRUE(has_pattern(va, 8 * MIB, 62));
	close(sock);
	unmap_free(_metadata, va, 8 * MIB, h);
}

/* The exporter goes first: the peer creates, exports and sends, this
 * process imports and maps, then the peer unmaps, releases, closes and
 * exits; the memory stays for this process. */
TEST_F_TIMEOUT(vmm, exporter_exits_first, 300)
{
	CUmemGenericAllocationHandle h = 0;
	unsigned long long used = vidmem_used(0), sum = 0;
	struct vmm_peer_msg m;
	CUdeviceptr va = 0;
	int fd = -1, sock = -1;
	pid_t pid;

	pid = start_peer(&sock, "export", "0x600000", "71", "1");
	ASSERT_LT(0, pid);
	ASSERT_EQ(0, vmm_peer_recv(sock, &m, &fd));
	ASSERT_LE(0, fd);
	ASSERT_EQ(6 * MIB, m.size);
	ASSERT_EQ(CUDA_SUCCESS, cuMemImportFromShareableHandle(&h, (void *)(uintptr_t)fd,
		  CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
	ASSERT_EQ(0, close(fd));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAddressReserve(&va, 6 * MIB, 0, 0, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuMemMap(va, 6 * MIB, 0, h, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuMemRelease(h));
	ASSERT_EQ(CUDA_SUCCESS, set_access_all(va, 6 * MIB, self->l.ndev,
					       CU_MEM_ACCESS_FLAGS_PROT_READWRITE));
	/* Let the exporter tear everything down and exit. */
	ASSERT_EQ(0, vmm_peer_send(sock, &m, -1));
	ASSERT_EQ(0, wait_peer(pid));
	close(sock);
	ASSERT_EQ(used + 6 * MIB, vidmem_used(0));
	ASSERT_TRUE(has_pattern(va, 6 * MIB, 71));
	ASSERT_TRUE(put_pattern(va, 6 * MIB, 72));
	ASSERT_TRUE(has_pattern(va, 6 * MIB, 72));
	if (self->l.sim) {
		ASSERT_EQ(CUDA_SUCCESS, gpu_write_on(self->l.ndev - 1, va, 6 * MIB, 73, NULL));
		ASSERT_EQ(CUDA_SUCCESS, gpu_read(0, va, 6 * MIB, NULL, &sum));
		ASSERT_EQ(pattern_checksum(73, va, 6 * MIB), sum);
	}
	ASSERT_EQ(CUDA_SUCCESS, cuMemUnmap(va, 6 * MIB));
	ASSERT_EQ(used, vidmem_used(0));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAddressFree(va, 6 * MIB));
}

/* The exporter exits before the descriptor is even received: the file in
 * flight keeps the memory. */
TEST_F_TIMEOUT(vmm, import_after_exporter_exit, 300)
{
	CUmemGenericAllocationHandle h = 0;
	struct vmm_peer_msg m;
	CUdeviceptr va = 0;
	int fd = -1, sock = -1;
	pid_t pid;

	pid = start_peer(&sock, "export", "0x200000", "81", "0");
	ASSERT_LT(0, pid);
	ASSERT_EQ(0, wait_peer(pid));
	ASSERT_EQ(0, vmm_peer_recv(sock, &m, &fd));
	ASSERT_LE(0, fd);
	close(sock);
	ASSERT_EQ(CUDA_SUCCESS, cuMemImportFromShareableHandle(&h, (void *)(uintptr_t)fd,
		  CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
	ASSERT_EQ(0, close(fd));
	ASSERT_EQ(CUDA_SUCCESS, cuMemAddressReserve(&va, GRAN, 0, 0, 0));
	ASSERT_EQ(CUDA_SUCCESS, cuMemMap(va, GRAN, 0, h, 0));
	ASSERT_EQ(CUDA_SUCCESS, set_access_all(va, GRAN, 1, CU_MEM_ACCESS_FLAGS_PROT_READ));
	ASSERT_TRUE(has_pattern(va, GRAN, 81));
	unmap_free(_metadata, va, GRAN, h);
}

/* cuMemMapArrayAsync with nothing to map (sparse arrays: libuvm_sparse). */
TEST_F(vmm, map_array)
{
	CUarrayMapInfo mi;

	memset(&mi, 0, sizeof(mi));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemMapArrayAsync(&mi, 1, self->l.s));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemMapArrayAsync(&mi, 0, self->l.s));
	ASSERT_EQ(CUDA_ERROR_INVALID_VALUE, cuMemMapArrayAsync(NULL, 1, self->l.s));
	ASSERT_EQ(CUDA_ERROR_INVALID_HANDLE, cuMemMapArrayAsync(&mi, 1, (CUstream)(uintptr_t)8));
	ASSERT_EQ(CUDA_SUCCESS, cuStreamSynchronize(self->l.s));
}

TEST_HARNESS_MAIN
