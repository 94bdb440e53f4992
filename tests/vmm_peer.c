// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * vmm_peer - the other process of the libuvm_vmm suite's sharing tests.
 *
 * Written against cuda.h only.  The suite fork()s and exec()s it with one
 * end of a Unix socket pair; allocations travel as file descriptors
 * (cuMemExportToShareableHandle, SCM_RIGHTS), the rest as struct
 * vmm_peer_msg (tests/vmm_peer.h):
 *
 *   vmm_peer import SOCK      receive an exported allocation, import it,
 *                             map it, check that it holds the words of
 *                             pattern msg.seed, write those of msg.seed + 1,
 *                             reply with the result and exit
 *   vmm_peer export SOCK SIZE SEED WAIT
 *                             create SIZE bytes on device 0, write pattern
 *                             SEED, export it and send the descriptor; with
 *                             WAIT 1 wait for the suite's message first;
 *                             then unmap, release, close and exit
 *
 * Exit status 0 when everything went as expected; the reply's status is the
 * first failing CUresult (or -line for a data mismatch).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda.h>

#include "vmm_peer.h"

#define CHECK(call)							\
	do {								\
		CUresult r_ = (call);					\
		if (r_ != CUDA_SUCCESS) {				\
			fprintf(stderr, "vmm_peer: %s: %d\n", #call, r_); \
			return r_;					\
		}							\
	} while (0)

static int setup(void)
{
	CUcontext ctx;

	CHECK(cuInit(0));
	CHECK(cuDevicePrimaryCtxRetain(&ctx, 0));
	CHECK(cuCtxSetCurrent(ctx));
	return 0;
}

/* Reserve, map and give every device read-write access. */
static int map_all(CUmemGenericAllocationHandle h, size_t size, CUdeviceptr *va)
{
	CUmemAccessDesc acc[8];
	int n = 0;

	CHECK(cuDeviceGetCount(&n));
	if (n > 8)
		n = 8;
	for (int i = 0; i < n; i++) {
		acc[i].location.type = CU_MEM_LOCATION_TYPE_DEVICE;
		acc[i].location.id = i;
		acc[i].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	}
	CHECK(cuMemAddressReserve(va, size, 0, 0, 0));
	CHECK(cuMemMap(*va, size, 0, h, 0));
	CHECK(cuMemSetAccess(*va, size, acc, (size_t)n));
	return 0;
}

static int unmap_all(CUmemGenericAllocationHandle h, size_t size, CUdeviceptr va)
{
	CHECK(cuMemUnmap(va, size));
	CHECK(cuMemAddressFree(va, size));
	CHECK(cuMemRelease(h));
	return 0;
}

static int do_import(int sock)
{
	CUmemGenericAllocationHandle h = 0;
	struct vmm_peer_msg m;
	unsigned long long *buf;
	CUdeviceptr va = 0;
	int fd = -1, r;

	if (vmm_peer_recv(sock, &m, &fd) || fd < 0)
		return 2;
	if ((r = setup()))
		goto reply;
	r = cuMemImportFromShareableHandle(&h, (void *)(uintptr_t)fd,
					   CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
	close(fd);
	if (r || (r = map_all(h, m.size, &va)))
		goto reply;
	buf = malloc(m.size);
	if (!buf) {
		r = -__LINE__;
		goto reply;
	}
	if ((r = cuMemcpyDtoH(buf, va, m.size)) == CUDA_SUCCESS) {
		if (!vmm_peer_check(buf, m.size, m.seed))
			r = -__LINE__;
	}
	if (!r) {
		vmm_peer_fill(buf, m.size, m.seed + 1);
		r = cuMemcpyHtoD(va, buf, m.size);
	}
	free(buf);
	if (!r)
		r = unmap_all(h, m.size, va);
reply:
	m.status = r;
	vmm_peer_send(sock, &m, -1);
	return r ? 1 : 0;
}

static int do_export(int sock, size_t size, unsigned long long seed, int wait)
{
	CUmemGenericAllocationHandle h = 0;
	CUmemAllocationProp prop;
	struct vmm_peer_msg m;
	unsigned long long *buf;
	CUdeviceptr va = 0;
	int fd = -1, r;

	if ((r = setup()))
		return 1;
	memset(&prop, 0, sizeof(prop));
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = 0;
	CHECK(cuMemCreate(&h, size, &prop, 0));
	if ((r = map_all(h, size, &va)))
		return 1;
	buf = malloc(size);
	if (!buf)
		return 1;
	vmm_peer_fill(buf, size, seed);
	CHECK(cuMemcpyHtoD(va, buf, size));
	free(buf);
	CHECK(cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	memset(&m, 0, sizeof(m));
	m.size = size;
	m.seed = seed;
	if (vmm_peer_send(sock, &m, fd))
		return 1;
	if (wait && vmm_peer_recv(sock, &m, NULL))
		return 1;
	/* Everything of this process goes; the suite's import keeps the
	 * memory alive. */
	close(fd);
	return unmap_all(h, size, va) ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "import"))
		return do_import(atoi(argv[2]));
	if (argc == 6 && !strcmp(argv[1], "export"))
		return do_export(atoi(argv[2]), strtoull(argv[3], NULL, 0),
				 strtoull(argv[4], NULL, 0), atoi(argv[5]));
	fprintf(stderr, "usage: vmm_peer import SOCK | export SOCK SIZE SEED WAIT\n");
	return 2;
}
