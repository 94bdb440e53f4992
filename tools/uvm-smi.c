// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * uvm-smi - what the UVM driver is doing, from its generic netlink family.
 *
 *   uvm-smi [--json]                       GPUs, vidmem, who holds it
 *   uvm-smi ps [--pid P] [--json]          processes (VA spaces), counters
 *   uvm-smi top [-n N] [-d S] [--json]     live rates per process and GPU
 *   uvm-smi events [--pid P] [-n N] [-t S] [--json]   the event stream
 *   uvm-smi residency PID ADDR LEN [--64k] [--json]   where pages live
 *
 * Everything comes from the family "uvm" (uapi/uvm_netlink.h) through
 * libnl-genl-3; see uvm-smi(1) and Documentation/observability.rst.
 * Exit status: 0, 1 on errors (the message says which), 2 on bad usage.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sys/socket.h>

#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include "uvm.h"
#include "uvm_names.h"
#include "uvm_netlink.h"

#define MIB		(1024.0 * 1024.0)
#define MAX_VS		4096

static const char *const event_names[] = {
	[UVM_NL_EVENT_FAULT_BATCH] = "fault_batch",
	[UVM_NL_EVENT_FAULTS_FLUSHED] = "faults_flushed",
	[UVM_NL_EVENT_MIGRATION] = "migration",
	[UVM_NL_EVENT_EVICTION] = "eviction",
	[UVM_NL_EVENT_THRASHING] = "thrashing",
	[UVM_NL_EVENT_FATAL_FAULT] = "fatal_fault",
	[UVM_NL_EVENT_VA_SPACE_CREATE] = "va_space_create",
	[UVM_NL_EVENT_VA_SPACE_DESTROY] = "va_space_destroy",
};

static const char *const cause_names[] = {
	[UVM_NL_CAUSE_FAULT] = "fault",
	[UVM_NL_CAUSE_PREFETCH] = "prefetch",
	[UVM_NL_CAUSE_EVICTION] = "eviction",
	[UVM_NL_CAUSE_THRASHING] = "thrashing",
	[UVM_NL_CAUSE_ACCESS_COUNTER] = "access_counter",
	[UVM_NL_CAUSE_HMM] = "hmm",
	[UVM_NL_CAUSE_POLICY] = "policy",
	[UVM_NL_CAUSE_COPY] = "copy",
};

static const char *const access_names[] = { "?", "read", "write", "atomic" };
static const char *const thrash_names[] = { "?", "detected", "pinned", "throttled" };

#define NAME_OF(table, i) \
	((i) < sizeof(table) / sizeof(table[0]) && (table)[i] ? (table)[i] : "?")

/**
 * struct gpu - one GET_GPUS message
 */
struct gpu {
	uint32_t index;
	char name[64];
	uint8_t uuid[16];
	uint64_t vidmem_size, vidmem_used;
	uint64_t counters[UVM_NL_GPU_COUNTER_COUNT];
};

/**
 * struct vs - one GET_VA_SPACES message
 */
struct vs {
	uint64_t id;
	uint32_t pid, uid;
	char comm[32];
	uint64_t counters[UVM_COUNTER_COUNT];
	uint64_t vidmem[UVM_MAX_GPUS];
};

/**
 * struct state - what the queries gathered
 */
struct state {
	struct gpu gpus[UVM_MAX_GPUS];
	uint32_t ngpus;
	uint64_t events_sent, events_dropped;
	uint32_t event_access;
	struct vs *vs;
	uint32_t nvs;
};

static struct nl_sock *sk;
static int family;
static bool json;
static int nl_errno;	/* errno of the last NLMSG_ERROR */
static volatile sig_atomic_t stop;

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("uvm-smi: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static int error_cb(struct sockaddr_nl *nla, struct nlmsgerr *err, void *arg)
{
	(void)nla;
	(void)arg;
	nl_errno = -err->error;
	return NL_STOP;
}

/* Connect and resolve the family; dies with a clear message if absent. */
static void nl_open(void)
{
	sk = nl_socket_alloc();
	if (!sk || genl_connect(sk))
		die("cannot open a generic netlink socket");
	nl_socket_enable_msg_peek(sk);
	nl_socket_set_msg_buf_size(sk, 65536);
	family = genl_ctrl_resolve(sk, UVM_GENL_NAME);
	if (family < 0)
		die("no generic netlink family \"%s\": is uvm.ko loaded?", UVM_GENL_NAME);
}

/**
 * dump() - run one dump command, calling @cb for every message
 * @cmd:	UVM_NL_CMD_*
 * @fill:	adds request attributes (may be NULL)
 * @farg:	its argument
 * @cb:		message handler
 * @arg:	its argument
 *
 * Return: 0 or -errno (the kernel's answer).
 */
static int dump(uint8_t cmd, int (*fill)(struct nl_msg *, void *), void *farg,
		nl_recvmsg_msg_cb_t cb, void *arg)
{
	struct nl_msg *msg = nlmsg_alloc();
	struct nl_cb *c;
	int ret;

	if (!msg)
		return -ENOMEM;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, NLM_F_DUMP, cmd,
			 UVM_GENL_VERSION) || (fill && fill(msg, farg))) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	c = nl_cb_alloc(NL_CB_DEFAULT);
	nl_cb_set(c, NL_CB_VALID, NL_CB_CUSTOM, cb, arg);
	nl_cb_err(c, NL_CB_CUSTOM, error_cb, NULL);
	nl_errno = 0;
	ret = nl_send_auto(sk, msg);
	nlmsg_free(msg);
	if (ret >= 0)
		ret = nl_recvmsgs(sk, c);
	nl_cb_put(c);
	if (nl_errno)
		return -nl_errno;
	return ret < 0 ? -EIO : 0;
}

static struct nlattr **parse(struct nl_msg *msg, struct nlattr **tb)
{
	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, UVM_NL_A_MAX, NULL))
		return NULL;
	return tb;
}

static uint64_t get_u64(struct nlattr **tb, int a)
{
	return tb[a] ? nla_get_u64(tb[a]) : 0;
}

static uint32_t get_u32(struct nlattr **tb, int a)
{
	return tb[a] ? nla_get_u32(tb[a]) : 0;
}

/* Nested u64 values of types 1..n into @out[0..n-1]. */
static void get_nested(struct nlattr *nest, uint64_t *out, unsigned int n)
{
	struct nlattr *a;
	int rem;

	if (!nest)
		return;
	nla_for_each_nested(a, nest, rem) {
		unsigned int t = nla_type(a);

		if (t >= 1 && t <= n && nla_len(a) == 8)
			out[t - 1] = nla_get_u64(a);
	}
}

static int gpu_cb(struct nl_msg *msg, void *arg)
{
	struct state *st = arg;
	struct nlattr *tb[UVM_NL_A_MAX + 1];
	struct gpu *g;

	if (!parse(msg, tb) || !tb[UVM_NL_A_GPU_INDEX] || st->ngpus >= UVM_MAX_GPUS)
		return NL_SKIP;
	g = &st->gpus[st->ngpus++];
	memset(g, 0, sizeof(*g));
	g->index = get_u32(tb, UVM_NL_A_GPU_INDEX);
	if (tb[UVM_NL_A_GPU_NAME])
		snprintf(g->name, sizeof(g->name), "%s", nla_get_string(tb[UVM_NL_A_GPU_NAME]));
	if (tb[UVM_NL_A_GPU_UUID] && nla_len(tb[UVM_NL_A_GPU_UUID]) == 16)
		memcpy(g->uuid, nla_data(tb[UVM_NL_A_GPU_UUID]), 16);
	g->vidmem_size = get_u64(tb, UVM_NL_A_VIDMEM_SIZE);
	g->vidmem_used = get_u64(tb, UVM_NL_A_VIDMEM_USED);
	get_nested(tb[UVM_NL_A_GPU_COUNTERS], g->counters, UVM_NL_GPU_COUNTER_COUNT);
	st->events_sent = get_u64(tb, UVM_NL_A_EVENTS_SENT);
	st->events_dropped = get_u64(tb, UVM_NL_A_EVENTS_DROPPED);
	st->event_access = get_u32(tb, UVM_NL_A_EVENT_ACCESS);
	return NL_OK;
}

static int vs_cb(struct nl_msg *msg, void *arg)
{
	struct state *st = arg;
	struct nlattr *tb[UVM_NL_A_MAX + 1];
	struct vs *v;

	if (!parse(msg, tb) || !tb[UVM_NL_A_VA_SPACE] || st->nvs >= MAX_VS)
		return NL_SKIP;
	v = &st->vs[st->nvs++];
	memset(v, 0, sizeof(*v));
	v->id = get_u64(tb, UVM_NL_A_VA_SPACE);
	v->pid = get_u32(tb, UVM_NL_A_PID);
	v->uid = get_u32(tb, UVM_NL_A_UID);
	if (tb[UVM_NL_A_COMM])
		snprintf(v->comm, sizeof(v->comm), "%s", nla_get_string(tb[UVM_NL_A_COMM]));
	get_nested(tb[UVM_NL_A_COUNTERS], v->counters, UVM_COUNTER_COUNT);
	get_nested(tb[UVM_NL_A_VIDMEM], v->vidmem, UVM_MAX_GPUS);
	return NL_OK;
}

static int fill_pid(struct nl_msg *msg, void *arg)
{
	uint32_t pid = *(uint32_t *)arg;

	return pid ? nla_put_u32(msg, UVM_NL_A_PID, pid) : 0;
}

/* Gather GPUs and VA spaces (of @pid, or all visible when 0). */
static void gather(struct state *st, uint32_t pid)
{
	int ret;

	st->ngpus = 0;
	st->nvs = 0;
	ret = dump(UVM_NL_CMD_GET_GPUS, NULL, NULL, gpu_cb, st);
	if (ret)
		die("GET_GPUS: %s", strerror(-ret));
	ret = dump(UVM_NL_CMD_GET_VA_SPACES, fill_pid, &pid, vs_cb, st);
	if (ret)
		die("GET_VA_SPACES: %s", strerror(-ret));
}

static uint64_t vs_vidmem(const struct vs *v, uint32_t ngpus)
{
	uint64_t sum = 0;
	uint32_t g;

	for (g = 0; g < ngpus; g++)
		sum += v->vidmem[g];
	return sum;
}

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

static void json_uuid(const uint8_t *u)
{
	printf("\"%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x\"",
	       u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10],
	       u[11], u[12], u[13], u[14], u[15]);
}

static void json_vs(const struct vs *v, uint32_t ngpus)
{
	unsigned int i;

	printf("{\"va_space\": %" PRIu64 ", \"pid\": %u, \"uid\": %u, \"comm\": ",
	       v->id, v->pid, v->uid);
	json_str(v->comm);
	printf(", \"vidmem\": [");
	for (i = 0; i < ngpus; i++)
		printf("%s%" PRIu64, i ? ", " : "", v->vidmem[i]);
	printf("], \"counters\": {");
	for (i = 0; i < UVM_COUNTER_COUNT; i++)
		printf("%s\"%s\": %" PRIu64, i ? ", " : "", uvm_counter_name(i), v->counters[i]);
	printf("}}");
}

/* uvm-smi: GPUs and who holds their memory */
static int cmd_summary(void)
{
	struct state st = { .vs = calloc(MAX_VS, sizeof(struct vs)) };
	uint32_t g, i;
	bool any;

	if (!st.vs)
		die("out of memory");
	gather(&st, 0);
	if (json) {
		printf("{\"gpus\": [");
		for (g = 0; g < st.ngpus; g++) {
			const struct gpu *p = &st.gpus[g];

			printf("%s{\"index\": %u, \"name\": ", g ? ", " : "", p->index);
			json_str(p->name);
			printf(", \"uuid\": ");
			json_uuid(p->uuid);
			printf(", \"vidmem_size\": %" PRIu64 ", \"vidmem_used\": %" PRIu64
			       ", \"counters\": {", p->vidmem_size, p->vidmem_used);
			for (i = 0; i < UVM_NL_GPU_COUNTER_COUNT; i++)
				printf("%s\"%s\": %" PRIu64, i ? ", " : "",
				       uvm_gpu_counter_name(i), p->counters[i]);
			printf("}, \"processes\": [");
			for (any = false, i = 0; i < st.nvs; i++) {
				if (!st.vs[i].vidmem[g])
					continue;
				printf("%s{\"pid\": %u, \"va_space\": %" PRIu64
				       ", \"comm\": ", any ? ", " : "", st.vs[i].pid, st.vs[i].id);
				json_str(st.vs[i].comm);
				printf(", \"vidmem\": %" PRIu64 "}", st.vs[i].vidmem[g]);
				any = true;
			}
			printf("]}");
		}
		printf("], \"events_sent\": %" PRIu64 ", \"events_dropped\": %" PRIu64
		       ", \"event_access\": %u}\n", st.events_sent, st.events_dropped,
		       st.event_access);
		free(st.vs);
		return 0;
	}
	printf("GPU  NAME                      VIDMEM USED / SIZE       FAULTS   EVICTIONS\n");
	for (g = 0; g < st.ngpus; g++) {
		const struct gpu *p = &st.gpus[g];

		printf("%-4u %-24.24s %8.1f / %8.1f MiB %10" PRIu64 " %11" PRIu64 "\n",
		       p->index, p->name, p->vidmem_used / MIB, p->vidmem_size / MIB,
		       p->counters[UVM_NL_GPU_FAULTS], p->counters[UVM_NL_GPU_EVICTIONS]);
	}
	printf("\nProcesses holding vidmem:\nGPU  PID      VA SPACE  COMMAND           VIDMEM\n");
	for (any = false, g = 0; g < st.ngpus; g++) {
		for (i = 0; i < st.nvs; i++) {
			if (!st.vs[i].vidmem[g])
				continue;
			printf("%-4u %-8u %-9" PRIu64 " %-16.16s %8.1f MiB\n", g, st.vs[i].pid,
			       st.vs[i].id, st.vs[i].comm, st.vs[i].vidmem[g] / MIB);
			any = true;
		}
	}
	if (!any)
		printf("(none visible)\n");
	printf("\nevents: %" PRIu64 " sent, %" PRIu64 " dropped\n", st.events_sent,
	       st.events_dropped);
	free(st.vs);
	return 0;
}

/* uvm-smi ps: every visible VA space and its counters */
static int cmd_ps(uint32_t pid)
{
	struct state st = { .vs = calloc(MAX_VS, sizeof(struct vs)) };
	uint32_t i;

	if (!st.vs)
		die("out of memory");
	gather(&st, pid);
	if (json) {
		printf("{\"processes\": [");
		for (i = 0; i < st.nvs; i++) {
			printf("%s", i ? ", " : "");
			json_vs(&st.vs[i], st.ngpus);
		}
		printf("]}\n");
		free(st.vs);
		return 0;
	}
	printf("PID      VA SPACE  UID    COMMAND          GPU FAULTS  BATCHES  FATAL  "
	       "CPU FAULTS  H2D MiB  D2H MiB  EVICTED  VIDMEM MiB\n");
	for (i = 0; i < st.nvs; i++) {
		const struct vs *v = &st.vs[i];

		printf("%-8u %-9" PRIu64 " %-6u %-16.16s %10" PRIu64 " %8" PRIu64 " %6" PRIu64
		       " %11" PRIu64 " %8.1f %8.1f %8" PRIu64 " %11.1f\n",
		       v->pid, v->id, v->uid, v->comm, v->counters[UVM_COUNTER_GPU_FAULTS],
		       v->counters[UVM_COUNTER_GPU_FAULT_BATCHES],
		       v->counters[UVM_COUNTER_GPU_FATAL_FAULTS],
		       v->counters[UVM_COUNTER_CPU_FAULTS],
		       v->counters[UVM_COUNTER_BYTES_H2D] / MIB,
		       v->counters[UVM_COUNTER_BYTES_D2H] / MIB,
		       v->counters[UVM_COUNTER_PAGES_EVICTED], vs_vidmem(v, st.ngpus) / MIB);
	}
	free(st.vs);
	return 0;
}

static const struct vs *find_vs(const struct state *st, uint64_t id)
{
	uint32_t i;

	for (i = 0; i < st->nvs; i++)
		if (st->vs[i].id == id)
			return &st->vs[i];
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#define RATE(cur, old, c, dt)	((double)((cur)->c - ((old) ? (old)->c : 0)) / (dt))

/* One top frame: rates between two samples. */
static void top_frame(const struct state *a, const struct state *b, double dt,
		      unsigned int iter)
{
	uint32_t i, g;

	if (json) {
		printf("{\"iteration\": %u, \"interval_s\": %.3f, \"gpus\": [", iter, dt);
		for (g = 0; g < b->ngpus; g++) {
			const struct gpu *p = &b->gpus[g], *o = &a->gpus[g];

			printf("%s{\"index\": %u, \"faults_per_s\": %.1f, \"pages_in_per_s\": %.1f, "
			       "\"pages_out_per_s\": %.1f, \"evictions_per_s\": %.1f, "
			       "\"vidmem_used\": %" PRIu64 "}", g ? ", " : "", p->index,
			       RATE(p, o, counters[UVM_NL_GPU_FAULTS], dt),
			       RATE(p, o, counters[UVM_NL_GPU_PAGES_IN], dt),
			       RATE(p, o, counters[UVM_NL_GPU_PAGES_OUT], dt),
			       RATE(p, o, counters[UVM_NL_GPU_EVICTIONS], dt), p->vidmem_used);
		}
		printf("], \"processes\": [");
		for (i = 0; i < b->nvs; i++) {
			const struct vs *v = &b->vs[i], *o = find_vs(a, v->id);

			printf("%s{\"pid\": %u, \"va_space\": %" PRIu64 ", \"comm\": ",
			       i ? ", " : "", v->pid, v->id);
			json_str(v->comm);
			printf(", \"gpu_faults_per_s\": %.1f, \"cpu_faults_per_s\": %.1f, "
			       "\"h2d_bytes_per_s\": %.1f, \"d2h_bytes_per_s\": %.1f, "
			       "\"evicted_pages_per_s\": %.1f, \"vidmem\": %" PRIu64 "}",
			       RATE(v, o, counters[UVM_COUNTER_GPU_FAULTS], dt),
			       RATE(v, o, counters[UVM_COUNTER_CPU_FAULTS], dt),
			       RATE(v, o, counters[UVM_COUNTER_BYTES_H2D], dt),
			       RATE(v, o, counters[UVM_COUNTER_BYTES_D2H], dt),
			       RATE(v, o, counters[UVM_COUNTER_PAGES_EVICTED], dt),
			       vs_vidmem(v, b->ngpus));
		}
		printf("]}\n");
		fflush(stdout);
		return;
	}
	printf("uvm-smi top: iteration %u, %.1f s\n", iter, dt);
	printf("GPU  FAULTS/s   PAGES IN/s  PAGES OUT/s  EVICTIONS/s  VIDMEM MiB\n");
	for (g = 0; g < b->ngpus; g++) {
		const struct gpu *p = &b->gpus[g], *o = &a->gpus[g];

		printf("%-4u %9.1f %12.1f %12.1f %12.1f %11.1f\n", p->index,
		       RATE(p, o, counters[UVM_NL_GPU_FAULTS], dt),
		       RATE(p, o, counters[UVM_NL_GPU_PAGES_IN], dt),
		       RATE(p, o, counters[UVM_NL_GPU_PAGES_OUT], dt),
		       RATE(p, o, counters[UVM_NL_GPU_EVICTIONS], dt), p->vidmem_used / MIB);
	}
	printf("PID      COMMAND          GPU FAULTS/s  CPU FAULTS/s  H2D MiB/s  D2H MiB/s  "
	       "EVICTED/s  VIDMEM MiB\n");
	for (i = 0; i < b->nvs; i++) {
		const struct vs *v = &b->vs[i], *o = find_vs(a, v->id);

		printf("%-8u %-16.16s %12.1f %13.1f %10.2f %10.2f %10.1f %11.1f\n", v->pid,
		       v->comm, RATE(v, o, counters[UVM_COUNTER_GPU_FAULTS], dt),
		       RATE(v, o, counters[UVM_COUNTER_CPU_FAULTS], dt),
		       RATE(v, o, counters[UVM_COUNTER_BYTES_H2D], dt) / MIB,
		       RATE(v, o, counters[UVM_COUNTER_BYTES_D2H], dt) / MIB,
		       RATE(v, o, counters[UVM_COUNTER_PAGES_EVICTED], dt),
		       vs_vidmem(v, b->ngpus) / MIB);
	}
	printf("\n");
	fflush(stdout);
}

/* uvm-smi top: @iters frames (0: until interrupted), @delay seconds apart */
static int cmd_top(unsigned int iters, double delay)
{
	struct state s[2] = {
		{ .vs = calloc(MAX_VS, sizeof(struct vs)) },
		{ .vs = calloc(MAX_VS, sizeof(struct vs)) },
	};
	double t0, t1;
	unsigned int it;

	if (!s[0].vs || !s[1].vs)
		die("out of memory");
	gather(&s[0], 0);
	t0 = now_s();
	for (it = 1; !stop && (!iters || it <= iters); it++) {
		usleep((useconds_t)(delay * 1e6));
		gather(&s[it & 1], 0);
		t1 = now_s();
		top_frame(&s[!(it & 1)], &s[it & 1], t1 - t0, it);
		t0 = t1;
	}
	free(s[0].vs);
	free(s[1].vs);
	return 0;
}

/**
 * struct events_opts - what `uvm-smi events` prints
 */
struct events_opts {
	uint32_t pid;
	unsigned long count, seen;
	uint64_t last_seq, gaps;
};

static int event_cb(struct nl_msg *msg, void *arg)
{
	struct events_opts *o = arg;
	struct nlattr *tb[UVM_NL_A_MAX + 1];
	uint32_t type, pid;
	uint64_t seq;
	int a;

	if (!parse(msg, tb) || !tb[UVM_NL_A_EVENT])
		return NL_SKIP;
	type = get_u32(tb, UVM_NL_A_EVENT);
	pid = get_u32(tb, UVM_NL_A_PID);
	seq = get_u64(tb, UVM_NL_A_SEQ);
	if (o->last_seq && seq > o->last_seq + 1)
		o->gaps += seq - o->last_seq - 1;
	o->last_seq = seq;
	if (o->pid && pid != o->pid)
		return NL_OK;
	if (json) {
		printf("{\"event\": \"%s\", \"seq\": %" PRIu64 ", \"time_ns\": %" PRIu64,
		       NAME_OF(event_names, type), seq, get_u64(tb, UVM_NL_A_TIMESTAMP));
	} else {
		printf("%-16s seq=%" PRIu64, NAME_OF(event_names, type), seq);
	}
	for (a = UVM_NL_A_GPU_INDEX; a <= UVM_NL_A_MAX; a++) {
		const char *name = NULL;
		char val[80];

		if (!tb[a] || a == UVM_NL_A_EVENT || a == UVM_NL_A_SEQ || a == UVM_NL_A_TIMESTAMP)
			continue;
		switch (a) {
		case UVM_NL_A_GPU_INDEX: name = "gpu"; break;
		case UVM_NL_A_VA_SPACE: name = "va_space"; break;
		case UVM_NL_A_PID: name = "pid"; break;
		case UVM_NL_A_UID: name = "uid"; break;
		case UVM_NL_A_NPAGES: name = "pages"; break;
		case UVM_NL_A_BYTES: name = "bytes"; break;
		case UVM_NL_A_FAULTS: name = "faults"; break;
		case UVM_NL_A_DUPLICATES: name = "duplicates"; break;
		case UVM_NL_A_FATAL: name = "fatal"; break;
		case UVM_NL_A_DURATION: name = "duration_ns"; break;
		default: break;
		}
		if (name) {
			uint64_t v = nla_len(tb[a]) == 8 ? nla_get_u64(tb[a]) : nla_get_u32(tb[a]);

			snprintf(val, sizeof(val), "%" PRIu64, v);
		} else if (a == UVM_NL_A_SRC || a == UVM_NL_A_DST) {
			char proc[UVM_PROCESSOR_NAME_MAX];

			/* processor ids as names: src=cpu dst=gpu1 */
			name = a == UVM_NL_A_SRC ? "src" : "dst";
			uvm_processor_name(nla_get_u32(tb[a]), proc);
			snprintf(val, sizeof(val), json ? "\"%s\"" : "%s", proc);
		} else if (a == UVM_NL_A_ADDRESS) {
			name = "address";
			snprintf(val, sizeof(val), json ? "\"0x%" PRIx64 "\"" : "0x%" PRIx64,
				 nla_get_u64(tb[a]));
		} else if (a == UVM_NL_A_CAUSE || a == UVM_NL_A_ACCESS ||
			   a == UVM_NL_A_THRASHING || a == UVM_NL_A_COMM) {
			const char *s = a == UVM_NL_A_CAUSE ?
				NAME_OF(cause_names, nla_get_u32(tb[a])) :
				a == UVM_NL_A_ACCESS ? NAME_OF(access_names, nla_get_u32(tb[a])) :
				a == UVM_NL_A_THRASHING ?
				NAME_OF(thrash_names, nla_get_u32(tb[a])) : nla_get_string(tb[a]);

			name = a == UVM_NL_A_CAUSE ? "cause" : a == UVM_NL_A_ACCESS ? "access" :
			       a == UVM_NL_A_THRASHING ? "kind" : "comm";
			if (json) {
				printf(", \"%s\": ", name);
				json_str(s);
				continue;
			}
			snprintf(val, sizeof(val), "%s", s);
		} else {
			continue;
		}
		if (json)
			printf(", \"%s\": %s", name, val);
		else
			printf(" %s=%s", name, val);
	}
	if (json && tb[UVM_NL_A_COUNTERS]) {
		uint64_t c[UVM_COUNTER_COUNT] = { 0 };
		int i;

		get_nested(tb[UVM_NL_A_COUNTERS], c, UVM_COUNTER_COUNT);
		printf(", \"counters\": {");
		for (i = 0; i < UVM_COUNTER_COUNT; i++)
			printf("%s\"%s\": %" PRIu64, i ? ", " : "", uvm_counter_name(i), c[i]);
		printf("}");
	}
	printf(json ? "}\n" : "\n");
	fflush(stdout);
	o->seen++;
	if (o->count && o->seen >= o->count)
		stop = 1;
	return NL_OK;
}

/* uvm-smi events: print the stream until interrupted, -n events or -t s */
static int cmd_events(struct events_opts *o, double timeout)
{
	int grp, one = 1, rcvbuf = 8 << 20, ret;
	double end = timeout > 0 ? now_s() + timeout : 0;

	grp = genl_ctrl_resolve_grp(sk, UVM_GENL_NAME, UVM_GENL_MCGRP_EVENTS);
	if (grp < 0)
		die("no multicast group \"%s\"", UVM_GENL_MCGRP_EVENTS);
	ret = nl_socket_add_membership(sk, grp);
	if (ret)
		die("cannot join \"%s\": %s", UVM_GENL_MCGRP_EVENTS,
		    ret == -NLE_PERM ? "permission denied (needs CAP_SYS_ADMIN here)" :
		    nl_geterror(ret));
	/* Losses are counted by the driver (and seen as gaps in seq). */
	setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_BROADCAST_ERROR, &one,
		   sizeof(one));
	/* A big receive buffer (beyond rmem_max where allowed) loses less. */
	if (setsockopt(nl_socket_get_fd(sk), SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
		       sizeof(rcvbuf)))
		setsockopt(nl_socket_get_fd(sk), SOL_SOCKET, SO_RCVBUF, &rcvbuf,
			   sizeof(rcvbuf));
	nl_socket_disable_seq_check(sk);
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, event_cb, o);
	fprintf(stderr, "uvm-smi: listening\n");
	while (!stop) {
		struct pollfd pfd = { .fd = nl_socket_get_fd(sk), .events = POLLIN };
		int ms = 200;

		if (end) {
			double left = end - now_s();

			if (left <= 0)
				break;
			if (left < 0.2)
				ms = (int)(left * 1000) + 1;
		}
		if (poll(&pfd, 1, ms) <= 0)
			continue;
		ret = nl_recvmsgs_default(sk);
		if (ret == -NLE_NOMEM || ret == -NLE_MSG_OVERFLOW)
			fprintf(stderr, "uvm-smi: events lost (receive buffer full)\n");
	}
	if (o->gaps)
		fprintf(stderr, "uvm-smi: %" PRIu64 " events lost\n", o->gaps);
	return 0;
}

/**
 * struct residency - GET_RESIDENCY answers, gathered
 */
struct residency {
	uint64_t addr, npages, got;
	uint32_t page_size, ngpus;
	uint64_t vs;
	struct uvm_nl_page_state *pages;
};

static int residency_cb(struct nl_msg *msg, void *arg)
{
	struct residency *r = arg;
	struct nlattr *tb[UVM_NL_A_MAX + 1];
	uint64_t first, n;

	if (!parse(msg, tb) || !tb[UVM_NL_A_PAGES] || !tb[UVM_NL_A_ADDRESS])
		return NL_SKIP;
	r->page_size = get_u32(tb, UVM_NL_A_PAGE_SIZE);
	r->ngpus = get_u32(tb, UVM_NL_A_NUM_GPUS);
	r->vs = get_u64(tb, UVM_NL_A_VA_SPACE);
	first = (get_u64(tb, UVM_NL_A_ADDRESS) - r->addr) / r->page_size;
	n = nla_len(tb[UVM_NL_A_PAGES]) / sizeof(struct uvm_nl_page_state);
	if (first + n > r->npages)
		return NL_SKIP;
	memcpy(&r->pages[first], nla_data(tb[UVM_NL_A_PAGES]), n * sizeof(*r->pages));
	r->got += n;
	return NL_OK;
}

struct residency_req {
	uint32_t pid;
	uint64_t addr, len;
};

static int fill_residency(struct nl_msg *msg, void *arg)
{
	struct residency_req *q = arg;

	return nla_put_u32(msg, UVM_NL_A_PID, q->pid) ||
	       nla_put_u64(msg, UVM_NL_A_ADDRESS, q->addr) ||
	       nla_put_u64(msg, UVM_NL_A_LENGTH, q->len);
}

/* The map character of one page: where it lives. */
static char page_char(const struct uvm_nl_page_state *p)
{
	static const char gpu_chars[] = "0123456789ABCDEFGHIJKLMNOPQRSTUV";
	uint64_t res = p->resident;

	if (!res)
		return '.';
	if (res & (res - 1))
		return '*';
	if (res == 1)
		return 'C';
	return gpu_chars[__builtin_ctzll(res) - 1];
}

/* uvm-smi residency PID ADDR LEN */
static int cmd_residency(uint32_t pid, uint64_t addr, uint64_t len, bool per64k)
{
	struct residency_req q = { .pid = pid, .addr = addr, .len = len };
	uint64_t resident[UVM_MAX_GPUS + 1] = { 0 }, mapped[UVM_MAX_GPUS + 1] = { 0 };
	uint64_t none = 0, dup = 0, i, per, col = 0;
	char proc[UVM_PROCESSOR_NAME_MAX];
	struct residency r = { .addr = addr };
	long ps = sysconf(_SC_PAGESIZE);
	uint32_t p;
	int ret;

	if (addr % ps || len % ps || !len)
		die("ADDR and LEN must be multiples of the page size (%ld)", ps);
	r.npages = len / ps;
	r.page_size = ps;
	r.pages = calloc(r.npages, sizeof(*r.pages));
	if (!r.pages)
		die("out of memory");
	ret = dump(UVM_NL_CMD_GET_RESIDENCY, fill_residency, &q, residency_cb, &r);
	if (ret)
		die("residency of pid %u: %s", pid, strerror(-ret));
	for (i = 0; i < r.npages; i++) {
		const struct uvm_nl_page_state *s = &r.pages[i];

		if (!s->resident)
			none++;
		else if (s->resident & (s->resident - 1))
			dup++;
		for (p = 0; p <= r.ngpus && p <= UVM_MAX_GPUS; p++) {
			resident[p] += !!(s->resident & (1ULL << p));
			mapped[p] += !!(s->mapped_read & (1ULL << p));
		}
	}
	if (json) {
		printf("{\"pid\": %u, \"va_space\": %" PRIu64 ", \"address\": \"0x%" PRIx64
		       "\", \"length\": %" PRIu64 ", \"page_size\": %u, \"pages\": [",
		       pid, r.vs, addr, len, r.page_size);
		for (i = 0; i < r.npages; i++)
			printf("%s{\"resident\": %" PRIu64 ", \"read\": %" PRIu64 ", \"write\": %"
			       PRIu64 ", \"atomic\": %" PRIu64 "}", i ? ", " : "",
			       (uint64_t)r.pages[i].resident, (uint64_t)r.pages[i].mapped_read,
			       (uint64_t)r.pages[i].mapped_write,
			       (uint64_t)r.pages[i].mapped_atomic);
		printf("], \"totals\": {\"nowhere\": %" PRIu64 ", \"duplicated\": %" PRIu64
		       ", \"resident\": {", none, dup);
		for (p = 0; p <= r.ngpus; p++)
			printf("%s\"%s\": %" PRIu64, p ? ", " : "", uvm_processor_name(p, proc),
			       resident[p]);
		printf("}, \"mapped\": {");
		for (p = 0; p <= r.ngpus; p++)
			printf("%s\"%s\": %" PRIu64, p ? ", " : "", uvm_processor_name(p, proc),
			       mapped[p]);
		printf("}}}\n");
		free(r.pages);
		return 0;
	}
	per = per64k ? (65536 / ps ? 65536 / ps : 1) : 1;
	printf("pid %u, VA space %" PRIu64 ", 0x%" PRIx64 "-0x%" PRIx64 ", %" PRIu64
	       " pages, one character per %s\n", pid, r.vs, addr, addr + len, r.npages,
	       per64k ? "64 KiB" : "page");
	printf("(. nowhere, C CPU, 0-9 A-V GPU, * several copies, + mixed)\n");
	for (i = 0; i < r.npages; i += per) {
		char c = page_char(&r.pages[i]);
		uint64_t j;

		for (j = i + 1; j < i + per && j < r.npages; j++)
			if (page_char(&r.pages[j]) != c)
				c = '+';
		if (col == 0)
			printf("0x%012" PRIx64 " ", addr + i * ps);
		putchar(c);
		if (++col == 64) {
			putchar('\n');
			col = 0;
		}
	}
	if (col)
		putchar('\n');
	printf("totals: nowhere %" PRIu64 ", duplicated %" PRIu64 "\n", none, dup);
	printf("  resident: CPU %" PRIu64, resident[0]);
	for (p = 1; p <= r.ngpus; p++)
		printf(", GPU %u %" PRIu64, p - 1, resident[p]);
	printf("\n  mapped:   CPU %" PRIu64, mapped[0]);
	for (p = 1; p <= r.ngpus; p++)
		printf(", GPU %u %" PRIu64, p - 1, mapped[p]);
	printf("\n");
	free(r.pages);
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: uvm-smi [--json]\n"
		"       uvm-smi ps [--pid PID] [--json]\n"
		"       uvm-smi top [-n ITERATIONS] [-d SECONDS] [--json]\n"
		"       uvm-smi events [--pid PID] [-n COUNT] [-t SECONDS] [--json]\n"
		"       uvm-smi residency PID ADDR LEN [--64k] [--json]\n"
		"See uvm-smi(1).\n");
	exit(2);
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t parse_num(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end)
		usage();
	return v;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "pid", required_argument, NULL, 'p' },
		{ "64k", no_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct events_opts eo = { 0 };
	const char *cmd = "";
	double delay = 1.0, timeout = 0;
	unsigned long count = 0;
	bool per64k = false;
	uint32_t pid = 0;
	int opt;

	if (argc > 1 && argv[1][0] != '-') {
		cmd = argv[1];
		argv++;
		argc--;
	}
	while ((opt = getopt_long(argc, argv, "jp:kn:d:t:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'j': json = true; break;
		case 'p': pid = parse_num(optarg); break;
		case 'k': per64k = true; break;
		case 'n': count = parse_num(optarg); break;
		case 'd': delay = strtod(optarg, NULL); break;
		case 't': timeout = strtod(optarg, NULL); break;
		default: usage();
		}
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (!strcmp(cmd, "") || !strcmp(cmd, "gpus")) {
		nl_open();
		return cmd_summary();
	}
	if (!strcmp(cmd, "ps")) {
		nl_open();
		return cmd_ps(pid);
	}
	if (!strcmp(cmd, "top")) {
		if (delay <= 0)
			usage();
		nl_open();
		return cmd_top(count, delay);
	}
	if (!strcmp(cmd, "events")) {
		eo.pid = pid;
		eo.count = count;
		nl_open();
		return cmd_events(&eo, timeout);
	}
	if (!strcmp(cmd, "residency")) {
		if (argc - optind != 3)
			usage();
		nl_open();
		return cmd_residency(parse_num(argv[optind]), parse_num(argv[optind + 1]),
				     parse_num(argv[optind + 2]), per64k);
	}
	usage();
}
