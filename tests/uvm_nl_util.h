/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * uvm_nl_util.h - libnl helpers of the suites that use the netlink family.
 *
 * Include after uvm_test_util.h.  It provides:
 *
 *  - struct uvm_nl: a generic netlink socket with the family resolved
 *    (uvm_nl_open(), uvm_nl_close());
 *  - uvm_nl_dump(): one dump command, every message to a callback, the
 *    kernel's -errno returned;
 *  - parsed GET_GPUS and GET_VA_SPACES answers (uvm_nl_gpus(),
 *    uvm_nl_va_spaces());
 *  - the events group: join, receive with a timeout, and a summary of the
 *    events of one VA space in counter terms (struct uvm_nl_tally).
 *
 * Helpers never assert; tests do.
 */
#ifndef _UVM_NL_UTIL_H_
#define _UVM_NL_UTIL_H_

#include <poll.h>
#include <sys/socket.h>

#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include "uvm_netlink.h"

/**
 * struct uvm_nl - a socket talking to the family
 * @sk:		the libnl socket
 * @family:	the family's id
 * @err:	errno of the last NLMSG_ERROR received, 0 if none
 */
struct uvm_nl {
	struct nl_sock *sk;
	int family;
	int err;
};

/* Open a socket and resolve the family.  Return: 0 or -errno. */
static inline int uvm_nl_open(struct uvm_nl *nl)
{
	memset(nl, 0, sizeof(*nl));
	nl->sk = nl_socket_alloc();
	if (!nl->sk)
		return -ENOMEM;
	if (genl_connect(nl->sk)) {
		nl_socket_free(nl->sk);
		nl->sk = NULL;
		return -EIO;
	}
	nl_socket_enable_msg_peek(nl->sk);
	nl_socket_set_msg_buf_size(nl->sk, 65536);
	nl->family = genl_ctrl_resolve(nl->sk, UVM_GENL_NAME);
	if (nl->family < 0) {
		nl_socket_free(nl->sk);
		nl->sk = NULL;
		return -ENOENT;
	}
	return 0;
}

static inline void uvm_nl_close(struct uvm_nl *nl)
{
	if (nl->sk)
		nl_socket_free(nl->sk);
	nl->sk = NULL;
}

static inline int __uvm_nl_error_cb(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	(void)nla;
	((struct uvm_nl *)arg)->err = -e->error;
	return NL_STOP;
}

/* Request attributes of a dump: any of these that are non-zero are sent. */
struct uvm_nl_req {
	uint32_t gpu_index_plus1;	/* UVM_NL_A_GPU_INDEX + 1 */
	uint32_t pid;
	uint64_t va_space;
	uint64_t address, length;
	bool has_address, has_length;
	uint32_t bogus_attr;		/* an attribute type to add (u32 0) */
};

/**
 * uvm_nl_dump() - run a dump command
 * @nl:		the socket
 * @cmd:	UVM_NL_CMD_*
 * @req:	request attributes, or NULL
 * @cb:		called for each message
 * @arg:	its argument
 *
 * Return: 0, or the kernel's -errno, or -EIO.
 */
static inline int uvm_nl_dump(struct uvm_nl *nl, uint8_t cmd, const struct uvm_nl_req *req,
			      nl_recvmsg_msg_cb_t cb, void *arg)
{
	struct nl_msg *msg = nlmsg_alloc();
	struct nl_cb *c;
	int ret = 0;

	if (!msg)
		return -ENOMEM;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl->family, 0, NLM_F_DUMP, cmd,
			 UVM_GENL_VERSION))
		ret = -EMSGSIZE;
	if (!ret && req) {
		if (req->gpu_index_plus1)
			ret |= nla_put_u32(msg, UVM_NL_A_GPU_INDEX, req->gpu_index_plus1 - 1);
		if (req->pid)
			ret |= nla_put_u32(msg, UVM_NL_A_PID, req->pid);
		if (req->va_space)
			ret |= nla_put_u64(msg, UVM_NL_A_VA_SPACE, req->va_space);
		if (req->has_address)
			ret |= nla_put_u64(msg, UVM_NL_A_ADDRESS, req->address);
		if (req->has_length)
			ret |= nla_put_u64(msg, UVM_NL_A_LENGTH, req->length);
		if (req->bogus_attr)
			ret |= nla_put_u32(msg, req->bogus_attr, 0);
		ret = ret ? -EMSGSIZE : 0;
	}
	if (ret) {
		nlmsg_free(msg);
		return ret;
	}
	c = nl_cb_alloc(NL_CB_DEFAULT);
	nl_cb_set(c, NL_CB_VALID, NL_CB_CUSTOM, cb, arg);
	nl_cb_err(c, NL_CB_CUSTOM, __uvm_nl_error_cb, nl);
	nl->err = 0;
	ret = nl_send_auto(nl->sk, msg);
	nlmsg_free(msg);
	if (ret >= 0)
		ret = nl_recvmsgs(nl->sk, c);
	nl_cb_put(c);
	if (nl->err)
		return -nl->err;
	return ret < 0 ? -EIO : 0;
}

/* Parse a family message into @tb; false when malformed. */
static inline bool uvm_nl_parse(struct nl_msg *msg, struct nlattr **tb)
{
	return !genlmsg_parse(nlmsg_hdr(msg), 0, tb, UVM_NL_A_MAX, NULL);
}

static inline uint64_t uvm_nl_u64(struct nlattr **tb, int a)
{
	return tb[a] ? nla_get_u64(tb[a]) : UINT64_MAX;
}

static inline uint32_t uvm_nl_u32(struct nlattr **tb, int a)
{
	return tb[a] ? nla_get_u32(tb[a]) : UINT32_MAX;
}

/* Nested u64 values of types 1..@n into @out; returns how many were found. */
static inline unsigned int uvm_nl_nested(struct nlattr *nest, uint64_t *out, unsigned int n)
{
	unsigned int found = 0;
	struct nlattr *a;
	int rem;

	if (!nest)
		return 0;
	nla_for_each_nested(a, nest, rem) {
		unsigned int t = nla_type(a);

		if (t >= 1 && t <= n && nla_len(a) == 8) {
			out[t - 1] = nla_get_u64(a);
			found++;
		}
	}
	return found;
}

/* One GET_GPUS message */
struct uvm_nl_gpu {
	uint32_t index, num_gpus, page_size, event_access;
	char name[64];
	uint8_t uuid[16];
	uint64_t vidmem_size, vidmem_used, sent, dropped;
	uint64_t counters[UVM_NL_GPU_COUNTER_COUNT];
	unsigned int ncounters;
};

struct uvm_nl_gpus {
	struct uvm_nl_gpu g[UVM_MAX_GPUS];
	unsigned int n;
};

static inline int __uvm_nl_gpu_cb(struct nl_msg *msg, void *arg)
{
	struct uvm_nl_gpus *gs = arg;
	struct nlattr *tb[UVM_NL_A_MAX + 1];
	struct uvm_nl_gpu *g;

	if (!uvm_nl_parse(msg, tb) || gs->n >= UVM_MAX_GPUS)
		return NL_SKIP;
	g = &gs->g[gs->n++];
	memset(g, 0, sizeof(*g));
	g->index = uvm_nl_u32(tb, UVM_NL_A_GPU_INDEX);
	g->num_gpus = uvm_nl_u32(tb, UVM_NL_A_NUM_GPUS);
	g->page_size = uvm_nl_u32(tb, UVM_NL_A_PAGE_SIZE);
	g->event_access = tb[UVM_NL_A_EVENT_ACCESS] ? nla_get_u32(tb[UVM_NL_A_EVENT_ACCESS]) : 0;
	if (tb[UVM_NL_A_GPU_NAME])
		snprintf(g->name, sizeof(g->name), "%s", nla_get_string(tb[UVM_NL_A_GPU_NAME]));
	if (tb[UVM_NL_A_GPU_UUID] && nla_len(tb[UVM_NL_A_GPU_UUID]) == 16)
		memcpy(g->uuid, nla_data(tb[UVM_NL_A_GPU_UUID]), 16);
	g->vidmem_size = uvm_nl_u64(tb, UVM_NL_A_VIDMEM_SIZE);
	g->vidmem_used = uvm_nl_u64(tb, UVM_NL_A_VIDMEM_USED);
	g->sent = uvm_nl_u64(tb, UVM_NL_A_EVENTS_SENT);
	g->dropped = uvm_nl_u64(tb, UVM_NL_A_EVENTS_DROPPED);
	g->ncounters = uvm_nl_nested(tb[UVM_NL_A_GPU_COUNTERS], g->counters,
				     UVM_NL_GPU_COUNTER_COUNT);
	return NL_OK;
}

/* GET_GPUS (of one GPU when @gpu_plus1).  Return: 0 or -errno. */
static inline int uvm_nl_gpus(struct uvm_nl *nl, uint32_t gpu_plus1, struct uvm_nl_gpus *out)
{
	struct uvm_nl_req req = { .gpu_index_plus1 = gpu_plus1 };

	out->n = 0;
	return uvm_nl_dump(nl, UVM_NL_CMD_GET_GPUS, &req, __uvm_nl_gpu_cb, out);
}

/* One GET_VA_SPACES message */
struct uvm_nl_vs {
	uint64_t id;
	uint32_t pid, uid, num_gpus;
	char comm[32];
	uint64_t counters[UVM_COUNTER_COUNT];
	uint64_t vidmem[UVM_MAX_GPUS];
	unsigned int ncounters, nvidmem;
};

struct uvm_nl_vss {
	struct uvm_nl_vs v[64];
	unsigned int n;
};

static inline int __uvm_nl_vs_cb(struct nl_msg *msg, void *arg)
{
	struct uvm_nl_vss *vs = arg;
	struct nlattr *tb[UVM_NL_A_MAX + 1];
	struct uvm_nl_vs *v;

	if (!uvm_nl_parse(msg, tb) || vs->n >= 64)
		return NL_SKIP;
	v = &vs->v[vs->n++];
	memset(v, 0, sizeof(*v));
	v->id = uvm_nl_u64(tb, UVM_NL_A_VA_SPACE);
	v->pid = uvm_nl_u32(tb, UVM_NL_A_PID);
	v->uid = uvm_nl_u32(tb, UVM_NL_A_UID);
	v->num_gpus = uvm_nl_u32(tb, UVM_NL_A_NUM_GPUS);
	if (tb[UVM_NL_A_COMM])
		snprintf(v->comm, sizeof(v->comm), "%s", nla_get_string(tb[UVM_NL_A_COMM]));
	v->ncounters = uvm_nl_nested(tb[UVM_NL_A_COUNTERS], v->counters, UVM_COUNTER_COUNT);
	v->nvidmem = uvm_nl_nested(tb[UVM_NL_A_VIDMEM], v->vidmem, UVM_MAX_GPUS);
	return NL_OK;
}

/* GET_VA_SPACES (of process @pid when non-zero).  Return: 0 or -errno. */
static inline int uvm_nl_va_spaces(struct uvm_nl *nl, uint32_t pid, struct uvm_nl_vss *out)
{
	struct uvm_nl_req req = { .pid = pid };

	out->n = 0;
	return uvm_nl_dump(nl, UVM_NL_CMD_GET_VA_SPACES, &req, __uvm_nl_vs_cb, out);
}

/* The events group */

/*
 * Join "events" with a receive buffer of @rcvbuf bytes (0: the default),
 * asking for delivery errors (so that losses are counted by the driver).
 * Return: 0 or -errno (-EPERM when not allowed).
 */
static inline int uvm_nl_join_events(struct uvm_nl *nl, int rcvbuf)
{
	int grp = genl_ctrl_resolve_grp(nl->sk, UVM_GENL_NAME, UVM_GENL_MCGRP_EVENTS);
	int fd = nl_socket_get_fd(nl->sk), one = 1;

	if (grp < 0)
		return -ENOENT;
	if (rcvbuf && setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) &&
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)))
		return -errno;
	if (setsockopt(fd, SOL_NETLINK, NETLINK_BROADCAST_ERROR, &one, sizeof(one)))
		return -errno;
	if (setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &grp, sizeof(grp)))
		return -errno;
	nl_socket_disable_seq_check(nl->sk);
	return 0;
}

/**
 * struct uvm_nl_event - one event, the attributes the tests look at
 */
struct uvm_nl_event {
	uint32_t type, gpu, pid, src, dst, npages, cause, faults, dups, fatal, access, kind, uid;
	uint64_t seq, va_space, address, bytes;
	char comm[32];
	uint64_t counters[UVM_COUNTER_COUNT];
	bool has_counters;
};

struct uvm_nl_events {
	struct uvm_nl_event *e;
	unsigned int n, max;
};

static inline int __uvm_nl_event_cb(struct nl_msg *msg, void *arg)
{
	struct uvm_nl_events *ev = arg;
	struct nlattr *tb[UVM_NL_A_MAX + 1];
	struct uvm_nl_event *e;

	if (!uvm_nl_parse(msg, tb) || !tb[UVM_NL_A_EVENT] || ev->n >= ev->max)
		return NL_SKIP;
	e = &ev->e[ev->n++];
	memset(e, 0, sizeof(*e));
	e->type = uvm_nl_u32(tb, UVM_NL_A_EVENT);
	e->seq = uvm_nl_u64(tb, UVM_NL_A_SEQ);
	e->va_space = uvm_nl_u64(tb, UVM_NL_A_VA_SPACE);
	e->pid = uvm_nl_u32(tb, UVM_NL_A_PID);
	e->gpu = uvm_nl_u32(tb, UVM_NL_A_GPU_INDEX);
	e->src = uvm_nl_u32(tb, UVM_NL_A_SRC);
	e->dst = uvm_nl_u32(tb, UVM_NL_A_DST);
	e->npages = uvm_nl_u32(tb, UVM_NL_A_NPAGES);
	e->bytes = uvm_nl_u64(tb, UVM_NL_A_BYTES);
	e->cause = uvm_nl_u32(tb, UVM_NL_A_CAUSE);
	e->faults = uvm_nl_u32(tb, UVM_NL_A_FAULTS);
	e->dups = uvm_nl_u32(tb, UVM_NL_A_DUPLICATES);
	e->fatal = uvm_nl_u32(tb, UVM_NL_A_FATAL);
	e->access = uvm_nl_u32(tb, UVM_NL_A_ACCESS);
	e->kind = uvm_nl_u32(tb, UVM_NL_A_THRASHING);
	e->uid = uvm_nl_u32(tb, UVM_NL_A_UID);
	e->address = uvm_nl_u64(tb, UVM_NL_A_ADDRESS);
	if (tb[UVM_NL_A_COMM])
		snprintf(e->comm, sizeof(e->comm), "%s", nla_get_string(tb[UVM_NL_A_COMM]));
	e->has_counters = uvm_nl_nested(tb[UVM_NL_A_COUNTERS], e->counters,
					UVM_COUNTER_COUNT) == UVM_COUNTER_COUNT;
	return NL_OK;
}

/*
 * Receive events into @ev until @quiet_ms pass without one (or @ev is
 * full).  Return: events received this call; *@overrun set when the
 * socket reported lost events (ENOBUFS).
 */
static inline int __uvm_nl_any_seq(struct nl_msg *msg, void *arg)
{
	(void)msg;
	(void)arg;
	return NL_OK;
}

static inline unsigned int uvm_nl_recv_events(struct uvm_nl *nl, struct uvm_nl_events *ev,
					      int quiet_ms, bool *overrun)
{
	unsigned int before = ev->n;
	struct nl_cb *c = nl_cb_alloc(NL_CB_DEFAULT);

	/* Notifications carry sequence number 0. */
	nl_cb_set(c, NL_CB_SEQ_CHECK, NL_CB_CUSTOM, __uvm_nl_any_seq, NULL);
	nl_cb_set(c, NL_CB_VALID, NL_CB_CUSTOM, __uvm_nl_event_cb, ev);
	while (ev->n < ev->max) {
		struct pollfd pfd = { .fd = nl_socket_get_fd(nl->sk), .events = POLLIN };
		int ret;

		if (poll(&pfd, 1, quiet_ms) <= 0)
			break;
		ret = nl_recvmsgs(nl->sk, c);
		if (ret == -NLE_NOMEM && overrun)
			*overrun = true;
	}
	nl_cb_put(c);
	return ev->n - before;
}

/**
 * struct uvm_nl_tally - the events of one VA space in counter terms
 * @c:		what the events add up to, indexed like UVM_COUNTER_*
 *		(faults, duplicates, batches, replays, fatal, pages and bytes
 *		by direction, pages evicted)
 * @events:	events of the VA space by type
 */
struct uvm_nl_tally {
	uint64_t c[UVM_COUNTER_COUNT];
	unsigned int events[UVM_NL_EVENT_VA_SPACE_DESTROY + 1];
};

static inline void uvm_nl_tally(const struct uvm_nl_events *ev, uint64_t va_space,
				struct uvm_nl_tally *t)
{
	unsigned int i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < ev->n; i++) {
		const struct uvm_nl_event *e = &ev->e[i];

		if (e->va_space != va_space || e->type > UVM_NL_EVENT_VA_SPACE_DESTROY)
			continue;
		t->events[e->type]++;
		switch (e->type) {
		case UVM_NL_EVENT_FAULT_BATCH:
			t->c[UVM_COUNTER_GPU_FAULT_BATCHES]++;
			t->c[UVM_COUNTER_GPU_REPLAYS]++;
			t->c[UVM_COUNTER_GPU_FATAL_FAULTS] += e->fatal;
			/* fall through */
		case UVM_NL_EVENT_FAULTS_FLUSHED:
			t->c[UVM_COUNTER_GPU_FAULTS] += e->faults;
			t->c[UVM_COUNTER_GPU_FAULTS_DUP] += e->dups;
			break;
		case UVM_NL_EVENT_MIGRATION:
			if (e->src == UVM_PROCESSOR_CPU) {
				t->c[UVM_COUNTER_PAGES_H2D] += e->npages;
				t->c[UVM_COUNTER_BYTES_H2D] += e->bytes;
			} else if (e->dst == UVM_PROCESSOR_CPU) {
				t->c[UVM_COUNTER_PAGES_D2H] += e->npages;
				t->c[UVM_COUNTER_BYTES_D2H] += e->bytes;
			} else {
				t->c[UVM_COUNTER_PAGES_D2D] += e->npages;
				t->c[UVM_COUNTER_BYTES_D2D] += e->bytes;
			}
			break;
		case UVM_NL_EVENT_EVICTION:
			t->c[UVM_COUNTER_PAGES_EVICTED] += e->npages;
			break;
		default:
			break;
		}
	}
}

/* The counters an event tally must equal. */
static const unsigned int uvm_nl_tallied[] = {
	UVM_COUNTER_GPU_FAULTS, UVM_COUNTER_GPU_FAULTS_DUP, UVM_COUNTER_GPU_FAULT_BATCHES,
	UVM_COUNTER_GPU_REPLAYS, UVM_COUNTER_GPU_FATAL_FAULTS, UVM_COUNTER_PAGES_H2D,
	UVM_COUNTER_PAGES_D2H, UVM_COUNTER_PAGES_D2D, UVM_COUNTER_BYTES_H2D,
	UVM_COUNTER_BYTES_D2H, UVM_COUNTER_BYTES_D2D, UVM_COUNTER_PAGES_EVICTED,
};

/* Index (in uvm_nl_tallied) of the first tallied counter that differs, or -1. */
static inline int uvm_nl_tally_differs(const struct uvm_nl_tally *t, const struct uvm_counters *c)
{
	unsigned int i;

	for (i = 0; i < sizeof(uvm_nl_tallied) / sizeof(uvm_nl_tallied[0]); i++)
		if (t->c[uvm_nl_tallied[i]] != c->c[uvm_nl_tallied[i]])
			return (int)i;
	return -1;
}

#endif /* _UVM_NL_UTIL_H_ */
