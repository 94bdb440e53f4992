/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * vmm_peer.h - what the libuvm_vmm suite and its second process
 * (tests/vmm_peer.c) send each other over a Unix socket: a fixed message,
 * optionally with one file descriptor (SCM_RIGHTS), and the word pattern
 * both write and check.  Plain C, no CUDA types.
 */
#ifndef _VMM_PEER_H_
#define _VMM_PEER_H_

#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>

struct vmm_peer_msg {
	unsigned long long size;	/* bytes of the allocation */
	unsigned long long seed;	/* the pattern the memory holds */
	int status;			/* the reply: 0 or what failed */
	int pad;
};

/* Word i of pattern seed. */
static inline unsigned long long vmm_peer_word(unsigned long long seed, size_t i)
{
	return (seed + 1) * 0x9E3779B97F4A7C15ULL ^ (i * 0xBF58476D1CE4E5B9ULL);
}

static inline void vmm_peer_fill(unsigned long long *w, size_t bytes, unsigned long long seed)
{
	for (size_t i = 0; i < bytes / 8; i++)
		w[i] = vmm_peer_word(seed, i);
}

static inline int vmm_peer_check(const unsigned long long *w, size_t bytes,
				 unsigned long long seed)
{
	for (size_t i = 0; i < bytes / 8; i++)
		if (w[i] != vmm_peer_word(seed, i))
			return 0;
	return 1;
}

/* Send a message, with fd when fd >= 0; 0 or -1. */
static inline int vmm_peer_send(int sock, const struct vmm_peer_msg *m, int fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { (void *)m, sizeof(*m) };
	struct msghdr mh;

	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	if (fd >= 0) {
		struct cmsghdr *c;

		memset(&u, 0, sizeof(u));
		mh.msg_control = u.buf;
		mh.msg_controllen = sizeof(u.buf);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	return sendmsg(sock, &mh, 0) == (ssize_t)sizeof(*m) ? 0 : -1;
}

/* Receive a message and, when fd is not NULL, the descriptor sent with it
 * (-1 if none); 0 or -1. */
static inline int vmm_peer_recv(int sock, struct vmm_peer_msg *m, int *fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { m, sizeof(*m) };
	struct msghdr mh;
	struct cmsghdr *c;

	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = u.buf;
	mh.msg_controllen = sizeof(u.buf);
	if (recvmsg(sock, &mh, MSG_CMSG_CLOEXEC) != (ssize_t)sizeof(*m))
		return -1;
	if (fd) {
		*fd = -1;
		c = CMSG_FIRSTHDR(&mh);
		if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
			memcpy(fd, CMSG_DATA(c), sizeof(int));
	}
	return 0;
}

#endif /* _VMM_PEER_H_ */
