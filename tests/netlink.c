// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * netlink - the generic netlink family "uvm" (uapi/uvm_netlink.h).
 *
 * The family and its group exist with the declared version; GET_GPUS
 * agrees with GPU_INFO and sysfs; GET_VA_SPACES shows the caller's VA
 * spaces with its pid, comm, uid, the counters GET_COUNTERS reports and the
 * vidmem each GPU holds for it; GET_RESIDENCY equals the test residency
 * ioctl page for page, and refuses bad requests with exact errors; the
 * events of a known workload add up to the VA space's counters, fatal
 * faults and VA space lifetime are reported; an unprivileged user sees
 * only its own VA spaces; a listener that never reads loses events that are
 * counted exactly, without slowing the workload; the family comes back
 * after rmmod and insmod.
 */
#include <inttypes.h>
#include <pwd.h>

#include <netlink/genl/family.h>
#include <sys/prctl.h>

#include "kselftest_harness.h"
#include "uvm_test_util.h"
#include "uvm_nl_util.h"

#define NPAGES		64	/* pages of the workload's range */
#define NOBODY		65534

FIXTURE(netlink) {
	struct uvm_dev dev;
	struct uvm_nl nl;
	uint64_t ps;
	uint8_t *p;
	uint64_t len;
	uint64_t va_space;	/* our VA space's id */
};

/* The id of the VA space of @pid with the highest id (the newest). */
static uint64_t newest_va_space(struct uvm_nl *nl, uint32_t pid)
{
	struct uvm_nl_vss *vs = calloc(1, sizeof(*vs));
	uint64_t id = 0;
	unsigned int i;

	if (vs && !uvm_nl_va_spaces(nl, pid, vs))
		for (i = 0; i < vs->n; i++)
			if (vs->v[i].id > id)
				id = vs->v[i].id;
	free(vs);
	return id;
}

FIXTURE_SETUP(netlink)
{
	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, 2);
	self->ps = self->dev.page_size;
	ASSERT_EQ(0, uvm_nl_open(&self->nl));
	self->len = NPAGES * self->ps;
	/* In one 2 MiB block: the expected vidmem and events are per block. */
	self->p = uvm_mmap_block_aligned(&self->dev, self->len);
	ASSERT_NE(MAP_FAILED, self->p);
	self->va_space = newest_va_space(&self->nl, getpid());
	ASSERT_NE(0, self->va_space);
}

FIXTURE_TEARDOWN(netlink)
{
	if (self->p && self->p != MAP_FAILED)
		munmap(self->p, self->len);
	uvm_nl_close(&self->nl);
	uvm_dev_teardown(&self->dev);
}

/*
 * The workload: GPU 0 writes the range (CPU -> nothing, populated on GPU
 * 0), the CPU writes the first quarter first (so H2D copies happen), GPU 1
 * reads the second half (D2D), the CPU reads the last quarter (D2H).
 */
static int workload(struct uvm_dev *dev, uint8_t *p, uint64_t len)
{
	uint64_t q = len / 4;
	int ret;

	memset(p, 0x5a, q);
	ret = uvm_launch1(dev->fd, 0, 4, uvm_op_pattern(p, len, 7), NULL);
	if (!ret)
		ret = uvm_launch1(dev->fd, 1, 4, uvm_op_read(p + 2 * q, 2 * q, 8, NULL), NULL);
	if (!ret && *(volatile uint8_t *)(p + 3 * q) == 0xee)
		ret = -EINVAL;
	return ret;
}

/* The family is registered with its version and its events group. */
TEST_F(netlink, family)
{
	struct genl_family *f;
	struct nl_cache *cache;

	ASSERT_EQ(0, genl_ctrl_alloc_cache(self->nl.sk, &cache));
	f = genl_ctrl_search_by_name(cache, UVM_GENL_NAME);
	ASSERT_NE(NULL, f);
	ASSERT_EQ(UVM_GENL_VERSION, genl_family_get_version(f));
	ASSERT_EQ(UVM_NL_A_MAX, genl_family_get_maxattr(f));
	genl_family_put(f);
	nl_cache_free(cache);
	ASSERT_LE(0, genl_ctrl_resolve_grp(self->nl.sk, UVM_GENL_NAME, UVM_GENL_MCGRP_EVENTS));
}

/* GET_GPUS: one message per GPU, equal to GPU_INFO and the sysfs counters. */
TEST_F(netlink, get_gpus)
{
	struct uvm_nl_gpus *gs = calloc(1, sizeof(*gs));
	struct uvm_ioc_gpu_info info;
	char path[128], buf[64];
	uint32_t g, i;
	FILE *f;

	ASSERT_NE(NULL, gs);
	ASSERT_EQ(0, uvm_nl_gpus(&self->nl, 0, gs));
	ASSERT_EQ(self->dev.num_gpus, gs->n);
	for (g = 0; g < gs->n; g++) {
		const struct uvm_nl_gpu *x = &gs->g[g];

		ASSERT_EQ(0, uvm_gpu_info(self->dev.fd, g, &info));
		ASSERT_EQ(g, x->index);
		ASSERT_EQ(self->dev.num_gpus, x->num_gpus);
		ASSERT_EQ(self->ps, x->page_size);
		ASSERT_STREQ(info.name, x->name);
		ASSERT_EQ(0, memcmp(info.uuid, x->uuid, 16));
		ASSERT_EQ(info.vidmem_size, x->vidmem_size);
		ASSERT_EQ(info.vidmem_used, x->vidmem_used);
		ASSERT_EQ(UVM_NL_GPU_COUNTER_COUNT, x->ncounters);
		ASSERT_NE(UINT64_MAX, x->sent);
		ASSERT_NE(UINT64_MAX, x->dropped);
		ASSERT_NE(0, x->event_access);
		/* Nothing runs: the counters equal their sysfs files. */
		for (i = 0; i < UVM_NL_GPU_COUNTER_COUNT; i++) {
			snprintf(path, sizeof(path), UVM_SYSFS_GPU_FMT, g,
				 uvm_gpu_counter_name(i));
			f = fopen(path, "re");
			ASSERT_NE(NULL, f) TH_LOG("%s", path);
			ASSERT_NE(NULL, fgets(buf, sizeof(buf), f));
			fclose(f);
			ASSERT_EQ(strtoull(buf, NULL, 10), x->counters[i]) TH_LOG("%s", path);
		}
	}
	/* One GPU only; a GPU that does not exist: nothing. */
	ASSERT_EQ(0, uvm_nl_gpus(&self->nl, 2, gs));
	ASSERT_EQ(1, gs->n);
	ASSERT_EQ(1, gs->g[0].index);
	ASSERT_EQ(0, uvm_nl_gpus(&self->nl, self->dev.num_gpus + 1, gs));
	ASSERT_EQ(0, gs->n);
	free(gs);
}

/* GET_VA_SPACES: ours, with its owner, counters and vidmem per GPU. */
TEST_F(netlink, get_va_spaces)
{
	struct uvm_nl_vss *vs = calloc(1, sizeof(*vs));
	struct uvm_counters c;
	char comm[32] = "";
	uint32_t g;

	ASSERT_NE(NULL, vs);
	ASSERT_EQ(0, workload(&self->dev, self->p, self->len));
	ASSERT_EQ(0, uvm_counters(self->dev.fd, &c));
	ASSERT_EQ(0, uvm_nl_va_spaces(&self->nl, getpid(), vs));
	ASSERT_EQ(1, vs->n);
	ASSERT_EQ(self->va_space, vs->v[0].id);
	ASSERT_EQ((uint32_t)getpid(), vs->v[0].pid);
	ASSERT_EQ(geteuid(), vs->v[0].uid);
	prctl(PR_GET_NAME, comm);
	ASSERT_STREQ(comm, vs->v[0].comm);
	ASSERT_EQ(self->dev.num_gpus, vs->v[0].num_gpus);
	ASSERT_EQ(UVM_COUNTER_COUNT, vs->v[0].ncounters);
	ASSERT_EQ(0, memcmp(c.c, vs->v[0].counters, sizeof(c.c)));
	ASSERT_EQ(self->dev.num_gpus, vs->v[0].nvidmem);
	/* The only VA space: each GPU's vidmem in use is ours. */
	for (g = 0; g < self->dev.num_gpus; g++)
		ASSERT_EQ(uvm_vidmem_used(self->dev.fd, g), vs->v[0].vidmem[g]);
	ASSERT_EQ(UVM_VA_BLOCK_SIZE * uvm_blocks_spanned(self->p, self->len),
		  vs->v[0].vidmem[0]);

	/* Without a filter it is listed too; a pid without VA space: none. */
	ASSERT_EQ(0, uvm_nl_va_spaces(&self->nl, 0, vs));
	ASSERT_LE(1, vs->n);
	ASSERT_EQ(0, uvm_nl_va_spaces(&self->nl, 1, vs));
	ASSERT_EQ(0, vs->n);
	free(vs);
}

/**
 * struct res_dump - GET_RESIDENCY messages gathered
 */
struct res_dump {
	struct uvm_nl_page_state *pages;
	uint64_t addr, npages;
	unsigned int msgs, bad;
	uint64_t va_space;
};

static int res_cb(struct nl_msg *msg, void *arg)
{
	struct res_dump *r = arg;
	struct nlattr *tb[UVM_NL_A_MAX + 1];
	uint64_t first, n;

	r->msgs++;
	if (!uvm_nl_parse(msg, tb) || !tb[UVM_NL_A_PAGES] || !tb[UVM_NL_A_ADDRESS] ||
	    !tb[UVM_NL_A_PAGE_SIZE]) {
		r->bad++;
		return NL_SKIP;
	}
	r->va_space = uvm_nl_u64(tb, UVM_NL_A_VA_SPACE);
	first = (nla_get_u64(tb[UVM_NL_A_ADDRESS]) - r->addr) / nla_get_u32(tb[UVM_NL_A_PAGE_SIZE]);
	n = nla_len(tb[UVM_NL_A_PAGES]) / sizeof(struct uvm_nl_page_state);
	if (n > UVM_NL_RESIDENCY_CHUNK || first + n > r->npages) {
		r->bad++;
		return NL_SKIP;
	}
	memcpy(&r->pages[first], nla_data(tb[UVM_NL_A_PAGES]), n * sizeof(*r->pages));
	return NL_OK;
}

static int residency_dump(struct uvm_nl *nl, uint32_t pid, const void *addr, uint64_t len,
			  uint64_t ps, struct res_dump *r)
{
	struct uvm_nl_req req = {
		.pid = pid, .address = (uintptr_t)addr, .length = len,
		.has_address = true, .has_length = true,
	};

	memset(r, 0, sizeof(*r));
	r->addr = (uintptr_t)addr;
	r->npages = len / ps;
	r->pages = calloc(r->npages ? r->npages : 1, sizeof(*r->pages));
	if (!r->pages)
		return -ENOMEM;
	return uvm_nl_dump(nl, UVM_NL_CMD_GET_RESIDENCY, &req, res_cb, r);
}

/* GET_RESIDENCY: page for page what the test ioctl reports. */
TEST_F(netlink, residency)
{
	uint64_t npages, i;
	struct uvm_test_page_state *st;
	struct res_dump r;
	uint8_t *q;

	/* A range beyond our workload range too: two blocks and unmanaged. */
	q = uvm_mmap(&self->dev, 2 * UVM_VA_BLOCK_SIZE);
	ASSERT_NE(MAP_FAILED, q);
	ASSERT_EQ(0, workload(&self->dev, self->p, self->len));
	ASSERT_EQ(0, uvm_launch1(self->dev.fd, 1, 4,
				 uvm_op_pattern(q + UVM_VA_BLOCK_SIZE / 2, UVM_VA_BLOCK_SIZE, 3),
				 NULL));
	memset(q, 1, 5 * self->ps);

	npages = (2 * UVM_VA_BLOCK_SIZE) / self->ps + 100;	/* 100 pages past q */
	st = calloc(npages, sizeof(*st));
	ASSERT_NE(NULL, st);
	ASSERT_EQ(0, uvm_residency(self->dev.fd, q, npages * self->ps, st));
	ASSERT_EQ(0, residency_dump(&self->nl, getpid(), q, npages * self->ps, self->ps, &r));
	ASSERT_EQ(0, r.bad);
	ASSERT_EQ((npages + UVM_NL_RESIDENCY_CHUNK - 1) / UVM_NL_RESIDENCY_CHUNK, r.msgs);
	ASSERT_EQ(self->va_space, r.va_space);
	for (i = 0; i < npages; i++)
		ASSERT_EQ(0, memcmp(&st[i], &r.pages[i], sizeof(st[i]))) TH_LOG("page %llu",
			(unsigned long long)i);
	/* Spot checks of the meaning. */
	ASSERT_EQ(UVM_CPU_BIT, r.pages[0].resident);
	ASSERT_EQ(UVM_GPU_BIT(1), r.pages[UVM_VA_BLOCK_SIZE / 2 / self->ps].resident);
	ASSERT_EQ(0, r.pages[npages - 1].resident);
	free(r.pages);

	/* By VA space id instead of pid, one page. */
	{
		struct uvm_nl_req req = {
			.va_space = self->va_space, .address = (uintptr_t)self->p,
			.length = self->ps, .has_address = true, .has_length = true,
		};

		memset(&r, 0, sizeof(r));
		r.addr = (uintptr_t)self->p;
		r.npages = 1;
		r.pages = calloc(1, sizeof(*r.pages));
		ASSERT_EQ(0, uvm_nl_dump(&self->nl, UVM_NL_CMD_GET_RESIDENCY, &req, res_cb, &r));
		ASSERT_EQ(1, r.msgs);
		ASSERT_EQ(UVM_GPU_BIT(0), r.pages[0].resident);
		free(r.pages);
	}
	free(st);
	munmap(q, 2 * UVM_VA_BLOCK_SIZE);
}

/* GET_RESIDENCY refuses incomplete and malformed requests, exactly. */
TEST_F(netlink, residency_bad)
{
	struct uvm_nl_req req;
	struct res_dump r = { .npages = 0 };
	uintptr_t a = (uintptr_t)self->p;

#define RES_ERR(want, ...) do {							\
	req = (struct uvm_nl_req){ __VA_ARGS__ };				\
	ASSERT_EQ(want, uvm_nl_dump(&self->nl, UVM_NL_CMD_GET_RESIDENCY, &req,	\
				    res_cb, &r));				\
} while (0)

	RES_ERR(-EINVAL, .pid = getpid(), .has_address = true, .address = a);
	RES_ERR(-EINVAL, .pid = getpid(), .has_length = true, .length = self->ps);
	RES_ERR(-EINVAL, .has_address = true, .address = a, .has_length = true,
		.length = self->ps);
	RES_ERR(-EINVAL, .pid = getpid(), .has_address = true, .address = a + 1,
		.has_length = true, .length = self->ps);
	RES_ERR(-EINVAL, .pid = getpid(), .has_address = true, .address = a,
		.has_length = true, .length = self->ps + 1);
	/* Below the policy's minimum. */
	RES_ERR(-ERANGE, .pid = getpid(), .has_address = true, .address = a,
		.has_length = true, .length = 0);
	RES_ERR(-EINVAL, .pid = getpid(), .has_address = true, .address = -self->ps,
		.has_length = true, .length = 2 * self->ps);
	RES_ERR(-EINVAL, .pid = getpid(), .has_address = true, .address = 0,
		.has_length = true,
		.length = ((uint64_t)UVM_NL_RESIDENCY_MAX_PAGES + 1) * self->ps);
	/* An attribute the policy does not know, a type outside it. */
	RES_ERR(-EINVAL, .pid = getpid(), .has_address = true, .address = a,
		.has_length = true, .length = self->ps, .bogus_attr = UVM_NL_A_MAX + 1);
	/* pid 1 has no VA space; a VA space id that does not exist. */
	RES_ERR(-ESRCH, .pid = 1, .has_address = true, .address = a,
		.has_length = true, .length = self->ps);
	RES_ERR(-ESRCH, .va_space = UINT64_MAX, .has_address = true, .address = a,
		.has_length = true, .length = self->ps);
	/* A pid and a VA space id that disagree. */
	RES_ERR(-ESRCH, .pid = 1, .va_space = self->va_space, .has_address = true,
		.address = a, .has_length = true, .length = self->ps);
	ASSERT_EQ(0, r.msgs);
#undef RES_ERR
}

/* Join the events group, or skip when this kernel restricts it and we may not. */
static void join_events(struct __test_metadata *_metadata, struct uvm_nl *nl, int rcvbuf)
{
	int ret = uvm_nl_join_events(nl, rcvbuf);

	ASSERT_EQ(0, ret) TH_LOG("join events: %s", strerror(-ret));
}

/* Events of a known workload add up to the VA space's counters. */
TEST_F(netlink, events_match_counters)
{
	struct uvm_nl_events ev = { .max = 100000 };
	struct uvm_counters c, c0;
	struct uvm_nl_tally t;
	struct uvm_nl lis;
	uint64_t prev = 0;
	unsigned int i;
	int d = 0, tries;

	ev.e = calloc(ev.max, sizeof(*ev.e));
	ASSERT_NE(NULL, ev.e);
	ASSERT_EQ(0, uvm_nl_open(&lis));
	join_events(_metadata, &lis, 8 << 20);
	ASSERT_EQ(0, uvm_counters(self->dev.fd, &c0));
	ASSERT_EQ(0, workload(&self->dev, self->p, self->len));
	/* The events of the last batch may trail its counters by a moment. */
	for (tries = 0; tries < 20; tries++) {
		uvm_nl_recv_events(&lis, &ev, 100, NULL);
		ASSERT_EQ(0, uvm_counters(self->dev.fd, &c));
		c = uvm_counters_delta(&c0, &c);
		uvm_nl_tally(&ev, self->va_space, &t);
		d = uvm_nl_tally_differs(&t, &c);
		if (d < 0)
			break;
	}
	ASSERT_EQ(-1, d) {
		TH_LOG("%s: events %llu, counter %llu", uvm_counter_name(uvm_nl_tallied[d]),
		       (unsigned long long)t.c[uvm_nl_tallied[d]],
		       (unsigned long long)c.c[uvm_nl_tallied[d]]);
	}
	/* The workload did all of it. */
	ASSERT_LT(0, c.c[UVM_COUNTER_GPU_FAULTS]);
	ASSERT_LT(0, c.c[UVM_COUNTER_PAGES_H2D]);
	ASSERT_LT(0, c.c[UVM_COUNTER_PAGES_D2D]);
	ASSERT_LT(0, c.c[UVM_COUNTER_PAGES_D2H]);
	ASSERT_LT(0, t.events[UVM_NL_EVENT_FAULT_BATCH]);
	/* None lost, in order. */
	for (i = 0; i < ev.n; i++) {
		ASSERT_LT(prev, ev.e[i].seq);
		if (prev)
			ASSERT_EQ(prev + 1, ev.e[i].seq);
		prev = ev.e[i].seq;
		ASSERT_EQ((uint32_t)getpid(), ev.e[i].pid);
		if (ev.e[i].type == UVM_NL_EVENT_MIGRATION) {
			ASSERT_EQ(UVM_NL_CAUSE_FAULT, ev.e[i].cause);
			ASSERT_EQ(ev.e[i].npages * self->ps, ev.e[i].bytes);
			ASSERT_EQ(0, ev.e[i].address % UVM_VA_BLOCK_SIZE);
		}
	}
	uvm_nl_close(&lis);
	free(ev.e);
}

/* A prefetch's migration carries its cause; a fatal fault names us. */
TEST_F(netlink, events_cause_and_fatal)
{
	struct uvm_nl_events ev = { .max = 10000 };
	struct uvm_test_launch l;
	struct uvm_test_gpu_op op;
	struct uvm_nl lis;
	char comm[32] = "";
	uint8_t *hole;
	unsigned int i, pf = 0, npf = 0, fatal = 0;

	ev.e = calloc(ev.max, sizeof(*ev.e));
	ASSERT_NE(NULL, ev.e);
	ASSERT_EQ(0, uvm_nl_open(&lis));
	join_events(_metadata, &lis, 8 << 20);
	memset(self->p, 1, self->len);
	ASSERT_EQ(0, uvm_prefetch(self->dev.fd, self->p, self->len, UVM_LOC_GPU(1)));
	hole = mmap(NULL, self->ps, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, hole);
	munmap(hole, self->ps);
	op = uvm_op_read(hole, 8, 8, NULL);
	ASSERT_EQ(-EREMOTEIO, uvm_launch(self->dev.fd, 0, 1, &op, 1, &l));
	uvm_nl_recv_events(&lis, &ev, 300, NULL);
	prctl(PR_GET_NAME, comm);
	for (i = 0; i < ev.n; i++) {
		const struct uvm_nl_event *e = &ev.e[i];

		if (e->va_space != self->va_space)
			continue;
		if (e->type == UVM_NL_EVENT_MIGRATION && e->cause == UVM_NL_CAUSE_PREFETCH) {
			ASSERT_EQ(UVM_PROCESSOR_CPU, e->src);
			ASSERT_EQ(UVM_PROCESSOR_GPU(1), e->dst);
			pf += e->npages;
			npf++;
		}
		if (e->type == UVM_NL_EVENT_FATAL_FAULT) {
			ASSERT_EQ(0, e->gpu);
			ASSERT_EQ((uintptr_t)hole, e->address);
			ASSERT_EQ(UVM_NL_ACCESS_READ, e->access);
			ASSERT_STREQ(comm, e->comm);
			fatal++;
		}
	}
	/* Aggregated: the prefetch of one block's pages is one event. */
	ASSERT_EQ(NPAGES, pf);
	ASSERT_EQ(1, npf);
	ASSERT_EQ(1, fatal);
	uvm_nl_close(&lis);
	free(ev.e);
}

/* Opening and closing /dev/uvm are events; the last carries the counters. */
TEST_F(netlink, events_va_space_lifetime)
{
	struct uvm_nl_events ev = { .max = 1000 };
	struct uvm_counters c;
	struct uvm_nl lis;
	uint64_t id;
	unsigned int i, created = 0, destroyed = 0;
	int fd;

	ev.e = calloc(ev.max, sizeof(*ev.e));
	ASSERT_NE(NULL, ev.e);
	ASSERT_EQ(0, uvm_nl_open(&lis));
	join_events(_metadata, &lis, 0);
	fd = uvm_open();
	ASSERT_LE(0, fd);
	id = newest_va_space(&self->nl, getpid());
	ASSERT_LT(self->va_space, id);
	ASSERT_EQ(0, uvm_counters(fd, &c));
	close(fd);
	uvm_nl_recv_events(&lis, &ev, 300, NULL);
	for (i = 0; i < ev.n; i++) {
		if (ev.e[i].va_space != id)
			continue;
		ASSERT_EQ((uint32_t)getpid(), ev.e[i].pid);
		ASSERT_EQ(geteuid(), ev.e[i].uid);
		if (ev.e[i].type == UVM_NL_EVENT_VA_SPACE_CREATE) {
			ASSERT_EQ(0, destroyed);
			ASSERT_FALSE(ev.e[i].has_counters);
			created++;
		} else if (ev.e[i].type == UVM_NL_EVENT_VA_SPACE_DESTROY) {
			ASSERT_TRUE(ev.e[i].has_counters);
			ASSERT_EQ(0, memcmp(c.c, ev.e[i].counters, sizeof(c.c)));
			destroyed++;
		}
	}
	ASSERT_EQ(1, created);
	ASSERT_EQ(1, destroyed);
	uvm_nl_close(&lis);
	free(ev.e);
}

/* The child's part of the permission test; returns a code the parent checks. */
static int unprivileged_child(void *arg)
{
	struct uvm_nl_gpus *gs = calloc(1, sizeof(*gs));
	struct uvm_nl_vss *vs = calloc(1, sizeof(*vs));
	uint32_t parent = *(uint32_t *)arg, access;
	struct res_dump r;
	struct uvm_nl nl;
	uint8_t *p;
	int fd, ret;

	/* a process started as nobody: dumpable again after the switch */
	if (!gs || !vs || setgid(NOBODY) || setuid(NOBODY) || prctl(PR_SET_DUMPABLE, 1))
		return 10;
	if (uvm_nl_open(&nl))
		return 11;
	/* GPUs: open to everyone. */
	if (uvm_nl_gpus(&nl, 0, gs) || !gs->n)
		return 12;
	access = gs->g[0].event_access;
	/* Root's VA spaces: invisible, their residency refused. */
	if (uvm_nl_va_spaces(&nl, 0, vs) || vs->n != 0)
		return 13;
	if (uvm_nl_va_spaces(&nl, parent, vs) || vs->n != 0)
		return 14;
	if (residency_dump(&nl, parent, NULL, 4096, 4096, &r) != -EPERM)
		return 15;
	free(r.pages);
	/* Its own VA space: visible, with its uid, residency allowed. */
	fd = uvm_open();
	if (fd < 0)
		return 16;
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return 17;
	*p = 1;
	if (uvm_nl_va_spaces(&nl, 0, vs) || vs->n != 1 || vs->v[0].uid != NOBODY ||
	    vs->v[0].pid != (uint32_t)getpid())
		return 18;
	if (residency_dump(&nl, getpid(), p, 4096, 4096, &r) || r.pages[0].resident != UVM_CPU_BIT)
		return 19;
	free(r.pages);
	/* The events group: refused where joining needs CAP_SYS_ADMIN. */
	ret = uvm_nl_join_events(&nl, 0);
	if (access == UVM_NL_EVENT_ACCESS_ADMIN && ret != -EPERM)
		return 20;
	if (access == UVM_NL_EVENT_ACCESS_FILTERED) {
		struct uvm_nl_events ev = { .max = 1000 };
		unsigned int i, own = 0;

		ev.e = calloc(ev.max, sizeof(*ev.e));
		if (ret || !ev.e)
			return 21;
		/* Our own events arrive; root's (the parent is idle) do not. */
		munmap(p, 4096);
		close(fd);
		uvm_nl_recv_events(&nl, &ev, 300, NULL);
		for (i = 0; i < ev.n; i++) {
			if (ev.e[i].pid != (uint32_t)getpid())
				return 22;
			own++;
		}
		if (!own)
			return 23;
		free(ev.e);
	}
	uvm_nl_close(&nl);
	free(gs);
	free(vs);
	return 0;
}

/* An unprivileged user sees GPUs and its own VA spaces, never root's. */
TEST_F(netlink, unprivileged)
{
	uint32_t parent = getpid();

	if (geteuid() != 0)
		UVM_SKIP("needs root to become nobody");
	ASSERT_EQ(0, workload(&self->dev, self->p, self->len));
	ASSERT_EQ(0, uvm_run_child(unprivileged_child, &parent));
}

/*
 * Hidden as /proc/PID/maps hides a process: another process of the same
 * user does not see a VA space whose owner made itself non-dumpable (nor
 * its residency, nor its events), and sees it once the owner is dumpable
 * again.  The owner sees its own either way.
 */
struct hidden {
	int go[2], done[2];
};

static int hidden_owner(void *arg)
{
	struct hidden *h = arg;
	uint8_t *p;
	char c;
	int fd, i;

	if (setgid(NOBODY) || setuid(NOBODY))
		return 10;
	for (i = 0; i < 2; i++) {
		/* first non-dumpable (as after the uid switch), then dumpable */
		if (prctl(PR_SET_DUMPABLE, i))
			return 11;
		fd = uvm_open();
		p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (fd < 0 || p == MAP_FAILED)
			return 12;
		*p = 1;
		if (write(h->go[1], "x", 1) != 1 || read(h->done[0], &c, 1) != 1)
			return 13;
		munmap(p, 4096);
		close(fd);
	}
	return 0;
}

static int hidden_reader(void *arg)
{
	struct uvm_nl_vss *vs = calloc(1, sizeof(*vs));
	uint32_t owner = *(uint32_t *)arg;
	struct res_dump r;
	struct uvm_nl nl;

	if (!vs || setgid(NOBODY) || setuid(NOBODY) || prctl(PR_SET_DUMPABLE, 1) ||
	    uvm_nl_open(&nl))
		return 20;
	if (uvm_nl_va_spaces(&nl, owner, vs))
		return 20;
	if (vs->n)
		return 21;	/* sees it */
	free(vs);
	memset(&r, 0, sizeof(r));
	if (residency_dump(&nl, owner, NULL, 4096, 4096, &r) != -EPERM)
		return 22;
	free(r.pages);
	return 0;
}

TEST_F(netlink, non_dumpable_owner_hidden)
{
	struct uvm_nl_vss *vs = calloc(1, sizeof(*vs));
	struct hidden h;
	uint32_t owner;
	pid_t pid;
	char c;
	int i, ret;

	if (geteuid() != 0)
		UVM_SKIP("needs root to become nobody");
	ASSERT_NE(NULL, vs);
	ASSERT_EQ(0, pipe(h.go));
	ASSERT_EQ(0, pipe(h.done));
	fflush(NULL);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(hidden_owner(&h));
	owner = (uint32_t)pid;
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(1, read(h.go[0], &c, 1));
		/* root sees it always */
		ASSERT_EQ(0, uvm_nl_va_spaces(&self->nl, owner, vs));
		ASSERT_EQ(1U, vs->n);
		/* non-dumpable: not listed, residency refused; dumpable: listed */
		ret = uvm_run_child(hidden_reader, &owner);
		EXPECT_EQ(i == 0 ? 0 : 21, ret) TH_LOG("owner dumpable: %d", i);
		ASSERT_EQ(1, write(h.done[1], "x", 1));
	}
	EXPECT_EQ(0, uvm_wait_child(pid));
	free(vs);
}

/*
 * A listener that never reads loses events; the driver counts each loss
 * (sysfs and GET_GPUS agree), the listener finds exactly the others, and
 * the workload is not slowed into a timeout.
 */
TEST_F(netlink, drops_counted)
{
	struct uvm_nl_events ev = { .max = 100000 };
	struct uvm_nl_gpus *g0 = calloc(1, sizeof(*g0)), *g1 = calloc(1, sizeof(*g1));
	uint64_t sent, dropped, sysfs_dropped = 0, first, last;
	struct uvm_nl slow;
	bool overrun = false;
	unsigned int i;
	int fd, round;
	FILE *f;

	ev.e = calloc(ev.max, sizeof(*ev.e));
	ASSERT_NE(NULL, ev.e);
	ASSERT_NE(NULL, g0);
	ASSERT_NE(NULL, g1);
	ASSERT_EQ(0, uvm_nl_open(&slow));
	/* A small receive buffer: room for some events, not for the workload's. */
	join_events(_metadata, &slow, 16384);
	ASSERT_EQ(0, uvm_nl_gpus(&self->nl, 0, g0));
	/* A first marker event, then many while nobody reads. */
	fd = uvm_open();
	ASSERT_LE(0, fd);
	close(fd);
	for (round = 0; round < 4; round++) {
		ASSERT_EQ(0, uvm_discard(self->dev.fd, self->p, self->len));
		ASSERT_EQ(0, workload(&self->dev, self->p, self->len));
	}
	uvm_nl_recv_events(&slow, &ev, 200, &overrun);
	/* Drained: the last marker gets through. */
	fd = uvm_open();
	ASSERT_LE(0, fd);
	close(fd);
	uvm_nl_recv_events(&slow, &ev, 300, &overrun);
	ASSERT_EQ(0, uvm_nl_gpus(&self->nl, 0, g1));
	f = fopen("/sys/class/misc/uvm/events_dropped", "re");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(1, fscanf(f, "%" SCNu64, &sysfs_dropped));
	fclose(f);

	sent = g1->g[0].sent - g0->g[0].sent;
	dropped = g1->g[0].dropped - g0->g[0].dropped;
	ASSERT_EQ(g1->g[0].dropped, sysfs_dropped);
	ASSERT_TRUE(overrun);
	ASSERT_LT(0, dropped);
	ASSERT_EQ(sent, ev.n);
	ASSERT_LE(2, ev.n);
	first = ev.e[0].seq;
	last = ev.e[ev.n - 1].seq;
	ASSERT_EQ(UVM_NL_EVENT_VA_SPACE_CREATE, ev.e[0].type);
	ASSERT_EQ(UVM_NL_EVENT_VA_SPACE_DESTROY, ev.e[ev.n - 1].type) {
		for (i = 0; i < ev.n; i++)
			TH_LOG("event %u: type %u seq %llu", i, ev.e[i].type,
			       (unsigned long long)ev.e[i].seq);
		TH_LOG("sent %llu dropped %llu", (unsigned long long)sent,
		       (unsigned long long)dropped);
	}
	/* Every event between the markers was received or counted as lost. */
	ASSERT_EQ(last - first + 1, ev.n + dropped);
	for (i = 1; i < ev.n; i++)
		ASSERT_LT(ev.e[i - 1].seq, ev.e[i].seq);
	uvm_nl_close(&slow);
	free(ev.e);
	free(g0);
	free(g1);
}

/* rmmod and insmod: the family goes and comes back, and answers. */
TEST(reload)
{
	char ko[512], cmd[1200];
	const char *build = getenv("UVM_BUILD"), *kernel = getenv("UVM_KERNEL");
	struct uvm_nl_gpus *gs = calloc(1, sizeof(*gs));
	struct uvm_nl nl, old;
	int ret;

	if (!build || !kernel || geteuid() != 0)
		UVM_SKIP("needs root in the test guest (UVM_BUILD, UVM_KERNEL)");
	snprintf(ko, sizeof(ko), "%s/kernel/%s/uvm.ko", build, kernel);
	if (access(ko, R_OK))
		UVM_SKIP("no %s", ko);
	ASSERT_NE(NULL, gs);
	/* A member of the group across the reload does not pin the module. */
	ASSERT_EQ(0, uvm_nl_open(&old));
	ASSERT_EQ(0, uvm_nl_join_events(&old, 0));
	snprintf(cmd, sizeof(cmd), "rmmod uvm && insmod %s prefetch=0 thrashing=0", ko);
	ret = system(cmd);
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, uvm_nl_open(&nl));
	ASSERT_EQ(0, uvm_nl_gpus(&nl, 0, gs));
	ASSERT_LT(0, gs->n);
	ASSERT_EQ(0, gs->g[0].dropped);
	ASSERT_EQ(0, uvm_nl_join_events(&nl, 0));
	uvm_nl_close(&nl);
	uvm_nl_close(&old);
	free(gs);
}

TEST_HARNESS_MAIN
