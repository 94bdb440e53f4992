// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * vmm_program - a plain CUDA driver-API program using virtual memory
 * management, built against libuvm with nothing but its include directory
 * and -luvm:
 *
 *     cc -I libuvm/include vmm_program.c -L build/libuvm -luvm
 *
 * It does what a program with a growable buffer shared with another process
 * does: reserve 1 GiB of address space, grow a buffer into it 2 MiB at a
 * time (cuMemCreate, cuMemMap, cuMemSetAccess for every device), fill it,
 * export the allocations as POSIX file descriptors to a second process (this
 * program re-executed, over a Unix socket) that imports and maps them into a
 * reservation of its own, checks the bytes and writes new ones, which the
 * first process checks.  Only cuda.h names.  Output is TAP.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cuda.h>

#define MIB (1ULL << 20)
#define STEPS 8		/* the buffer grows to STEPS pieces */

static int tests, failed;
static const char *prefix = "";	/* the second process reports as comments */

static void ok(int cond, const char *what)
{
	tests++;
	if (!cond)
		failed++;
	printf("%s%sok %d %s\n", prefix, cond ? "" : "not ", tests, what);
	fflush(stdout);
}

#define CHECK(call) ok((call) == CUDA_SUCCESS, #call)

static unsigned char byte_at(size_t i, int round)
{
	return (unsigned char)(i * 131 + (i >> 12) + round * 17);
}

static int send_fds(int sock, const int *fds, int n)
{
	char buf[CMSG_SPACE(sizeof(int) * STEPS)];
	struct iovec iov = { &n, sizeof(n) };
	struct msghdr mh;
	struct cmsghdr *c;

	memset(&mh, 0, sizeof(mh));
	memset(buf, 0, sizeof(buf));
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = buf;
	mh.msg_controllen = CMSG_SPACE(sizeof(int) * n);
	c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int) * n);
	memcpy(CMSG_DATA(c), fds, sizeof(int) * n);
	return sendmsg(sock, &mh, 0) == sizeof(n) ? 0 : -1;
}

static int recv_fds(int sock, int *fds)
{
	char buf[CMSG_SPACE(sizeof(int) * STEPS)];
	int n = 0;
	struct iovec iov = { &n, sizeof(n) };
	struct msghdr mh;
	struct cmsghdr *c;

	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = buf;
	mh.msg_controllen = sizeof(buf);
	if (recvmsg(sock, &mh, 0) != sizeof(n) || n < 1 || n > STEPS)
		return -1;
	c = CMSG_FIRSTHDR(&mh);
	if (!c || c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(sizeof(int) * n))
		return -1;
	memcpy(fds, CMSG_DATA(c), sizeof(int) * n);
	return n;
}

/* Access for every device over [va, va + size). */
static CUresult all_devices_rw(CUdeviceptr va, size_t size, int ndev)
{
	CUmemAccessDesc acc[8];

	for (int d = 0; d < ndev && d < 8; d++) {
		acc[d].location.type = CU_MEM_LOCATION_TYPE_DEVICE;
		acc[d].location.id = d;
		acc[d].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	}
	return cuMemSetAccess(va, size, acc, (size_t)(ndev < 8 ? ndev : 8));
}

/* The second process: import the pieces, map them one after the other,
 * check round 1, write round 2. */
static int child(int sock)
{
	CUmemGenericAllocationHandle h[STEPS];
	CUdeviceptr va = 0;
	CUcontext ctx;
	int fds[STEPS], n, ndev = 0, good = 1;
	size_t gran = 0, size;
	CUmemAllocationProp prop;
	unsigned char *buf;

	prefix = "# second process: ";
	CHECK(cuInit(0));
	CHECK(cuDeviceGetCount(&ndev));
	CHECK(cuDevicePrimaryCtxRetain(&ctx, 0));
	CHECK(cuCtxSetCurrent(ctx));
	n = recv_fds(sock, fds);
	ok(n == STEPS, "child: received every descriptor");
	if (n != STEPS)
		return 1;
	CHECK(cuMemImportFromShareableHandle(&h[0], (void *)(uintptr_t)fds[0],
					     CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
	CHECK(cuMemGetAllocationPropertiesFromHandle(&prop, h[0]));
	CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
	size = gran * STEPS;
	CHECK(cuMemAddressReserve(&va, size, 0, 0, 0));
	for (int i = 0; i < n; i++) {
		if (i)
			good &= cuMemImportFromShareableHandle(&h[i], (void *)(uintptr_t)fds[i],
					CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) == CUDA_SUCCESS;
		close(fds[i]);
		good &= cuMemMap(va + i * gran, gran, 0, h[i], 0) == CUDA_SUCCESS;
		good &= cuMemRelease(h[i]) == CUDA_SUCCESS;
	}
	ok(good, "child: imported and mapped every piece");
	CHECK(all_devices_rw(va, size, ndev));
	buf = malloc(size);
	CHECK(cuMemcpyDtoH(buf, va, size));
	good = 1;
	for (size_t i = 0; i < size && good; i++)
		good = buf[i] == byte_at(i, 1);
	ok(good, "child: the parent's bytes");
	for (size_t i = 0; i < size; i++)
		buf[i] = byte_at(i, 2);
	CHECK(cuMemcpyHtoD(va, buf, size));
	free(buf);
	CHECK(cuMemUnmap(va, size));
	CHECK(cuMemAddressFree(va, size));
	if (write(sock, &good, sizeof(good)) != sizeof(good))
		return 1;
	return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
	const size_t reserve = 1ULL << 30;
	CUmemGenericAllocationHandle h[STEPS];
	CUmemAllocationProp prop;
	CUdeviceptr va = 0;
	CUcontext ctx;
	int ndev = 0, vmm = 0, posix = 0, fds[STEPS], sv[2], st = -1, reply = 0, good;
	size_t gran = 0, size = 0;
	unsigned char *buf;
	pid_t pid;

	if (argc == 3 && !strcmp(argv[1], "child"))
		return child(atoi(argv[2]));

	printf("TAP version 13\n1..23\n");
	CHECK(cuInit(0));
	CHECK(cuDeviceGetCount(&ndev));
	CHECK(cuDeviceGetAttribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 0));
	CHECK(cuDeviceGetAttribute(&posix,
				   CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, 0));
	if (!vmm || !posix) {
		printf("# SKIP no virtual memory management in this driver\n");
		return 4;
	}
	CHECK(cuDevicePrimaryCtxRetain(&ctx, 0));
	CHECK(cuCtxSetCurrent(ctx));

	memset(&prop, 0, sizeof(prop));
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = 0;
	CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
	ok(gran && reserve % gran == 0, "the granularity divides the reservation");

	/* A growable buffer: 1 GiB of addresses, backed piece by piece. */
	CHECK(cuMemAddressReserve(&va, reserve, 0, 0, 0));
	good = 1;
	for (int i = 0; i < STEPS; i++) {
		good &= cuMemCreate(&h[i], gran, &prop, 0) == CUDA_SUCCESS;
		good &= cuMemMap(va + size, gran, 0, h[i], 0) == CUDA_SUCCESS;
		good &= all_devices_rw(va + size, gran, ndev) == CUDA_SUCCESS;
		size += gran;
		/* The grown buffer is used whole at every step. */
		good &= cuMemsetD8(va, (unsigned char)i, size) == CUDA_SUCCESS;
	}
	ok(good, "grew the buffer 2 MiB at a time, access for every device");
	buf = malloc(size);
	CHECK(cuMemcpyDtoH(buf, va, size));
	good = 1;
	for (size_t i = 0; i < size && good; i++)
		good = buf[i] == STEPS - 1;
	ok(good, "a set over the whole buffer, across the pieces");
	for (size_t i = 0; i < size; i++)
		buf[i] = byte_at(i, 1);
	CHECK(cuMemcpyHtoD(va, buf, size));

	/* Share it: every piece as a file descriptor. */
	good = 1;
	for (int i = 0; i < STEPS; i++)
		good &= cuMemExportToShareableHandle(&fds[i], h[i],
						     CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
						     0) == CUDA_SUCCESS;
	ok(good, "exported every piece");
	ok(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair");
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		char arg[16];

		close(sv[0]);
		snprintf(arg, sizeof(arg), "%d", sv[1]);
		execl("/proc/self/exe", argv[0], "child", arg, (char *)NULL);
		_exit(127);
	}
	close(sv[1]);
	ok(send_fds(sv[0], fds, STEPS) == 0, "sent the descriptors");
	for (int i = 0; i < STEPS; i++)
		close(fds[i]);
	ok(read(sv[0], &reply, sizeof(reply)) == sizeof(reply) && reply == 1,
	   "the second process checked and rewrote the buffer");
	ok(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	   "the second process succeeded");
	close(sv[0]);

	CHECK(cuMemcpyDtoH(buf, va, size));
	good = 1;
	for (size_t i = 0; i < size && good; i++)
		good = buf[i] == byte_at(i, 2);
	ok(good, "the second process's bytes");
	free(buf);

	/* Tear down: one unmap for all pieces, the handles, the addresses. */
	CHECK(cuMemUnmap(va, size));
	good = 1;
	for (int i = 0; i < STEPS; i++)
		good &= cuMemRelease(h[i]) == CUDA_SUCCESS;
	ok(good, "released every piece");
	CHECK(cuMemAddressFree(va, reserve));
	cuDevicePrimaryCtxRelease(0);
	printf("# %d of %d failed\n", failed, tests);
	return failed ? 1 : 0;
}
