// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * smi - uvm-smi against a known workload in this process.
 *
 * The summary lists every GPU and this process holding its vidmem; ps shows
 * this process with the counters GET_COUNTERS reports; top prints the
 * number of frames asked for; events prints the workload's batches and
 * migrations with counts equal to the counters, their processors by name
 * (src=cpu dst=gpu0); residency draws the map of
 * pages the workload placed and their totals; errors and bad usage end
 * with statuses 1 and 2.  Text and JSON output both.
 */
#include <sys/prctl.h>

#include "kselftest_harness.h"
#include "uvm_test_util.h"

#ifndef UVM_SMI
#define UVM_SMI "uvm-smi"
#endif

#define NPAGES	16

FIXTURE(smi) {
	struct uvm_dev dev;
	uint64_t ps;
	uint8_t *p;
	uint64_t len;
	char comm[32];
};

FIXTURE_SETUP(smi)
{
	uvm_dev_setup(&self->dev, UVM_NEED_TEST_IOCTLS, 2);
	if (access(UVM_SMI, X_OK))
		UVM_SKIP("%s is not built", UVM_SMI);
	self->ps = self->dev.page_size;
	self->len = NPAGES * self->ps;
	self->p = uvm_mmap_block_aligned(&self->dev, self->len);
	ASSERT_NE(MAP_FAILED, self->p);
	prctl(PR_GET_NAME, self->comm);
}

FIXTURE_TEARDOWN(smi)
{
	if (self->p && self->p != MAP_FAILED)
		munmap(self->p, self->len);
	uvm_dev_teardown(&self->dev);
}

/*
 * The workload: the CPU writes the second half, GPU 0 writes the first
 * half (populated there), GPU 1 reads the last quarter (copies from the
 * CPU), the CPU reads the first page back (copied from GPU 0).
 */
static int workload(struct uvm_dev *dev, uint8_t *p, uint64_t len)
{
	int ret;

	memset(p + len / 2, 3, len / 2);
	ret = uvm_launch1(dev->fd, 0, 4, uvm_op_pattern(p, len / 2, 9), NULL);
	if (!ret)
		ret = uvm_launch1(dev->fd, 1, 2, uvm_op_read(p + 3 * len / 4, len / 4, 8, NULL),
				  NULL);
	if (!ret && *(volatile uint64_t *)p != uvm_pattern_word(9, p))
		ret = -EINVAL;
	return ret;
}

/**
 * run() - run uvm-smi, capture its output
 * @args:	arguments (a shell word list)
 * @out:	output (stdout and stderr), malloc()ed, NUL-terminated
 *
 * Return: its exit status, or -1.
 */
static int run(const char *args, char **out)
{
	char cmd[512];
	size_t cap = 1 << 16, n = 0, r;
	FILE *f;
	int st;

	snprintf(cmd, sizeof(cmd), "%s %s 2>&1", UVM_SMI, args);
	*out = malloc(cap);
	if (!*out)
		return -1;
	fflush(NULL);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while ((r = fread(*out + n, 1, cap - n - 1, f)) > 0) {
		n += r;
		if (n + 1 == cap) {
			cap *= 2;
			*out = realloc(*out, cap);
			if (!*out)
				return -1;
		}
	}
	(*out)[n] = 0;
	st = pclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The number after "key": in @s (JSON), or UINT64_MAX. */
static uint64_t json_num(const char *s, const char *key)
{
	char k[64];
	const char *p;

	snprintf(k, sizeof(k), "\"%s\": ", key);
	p = strstr(s, k);
	return p ? strtoull(p + strlen(k), NULL, 10) : UINT64_MAX;
}

/* The string value of "key" in @s into @out (empty when absent). */
static void json_str(const char *s, const char *key, char *out, size_t len)
{
	char k[64];
	const char *p, *e;

	snprintf(k, sizeof(k), "\"%s\": \"", key);
	p = strstr(s, k);
	e = p ? strchr(p + strlen(k), '"') : NULL;
	if (!e || (size_t)(e - p - strlen(k)) >= len) {
		*out = 0;
		return;
	}
	p += strlen(k);
	memcpy(out, p, e - p);
	out[e - p] = 0;
}

static unsigned int count_of(const char *s, const char *what)
{
	unsigned int n = 0;

	for (; (s = strstr(s, what)); s += strlen(what))
		n++;
	return n;
}

/* The summary: every GPU, and this process holding GPU 0's vidmem. */
TEST_F(smi, summary)
{
	char *out, want[128];
	uint64_t used = 0;

	ASSERT_EQ(0, workload(&self->dev, self->p, self->len));
	ASSERT_EQ(0, run("--json", &out));
	ASSERT_EQ(self->dev.num_gpus, count_of(out, "\"vidmem_size\": "));
	snprintf(want, sizeof(want), "{\"pid\": %d, ", getpid());
	ASSERT_NE(NULL, strstr(out, want)) TH_LOG("%s", out);
	used = uvm_vidmem_used(self->dev.fd, 0);
	snprintf(want, sizeof(want), "\"vidmem\": %llu}", (unsigned long long)used);
	ASSERT_NE(NULL, strstr(out, want)) TH_LOG("%s", out);
	ASSERT_NE(UINT64_MAX, json_num(out, "events_dropped"));
	free(out);

	ASSERT_EQ(0, run("", &out));
	ASSERT_NE(NULL, strstr(out, "GPU  NAME")) TH_LOG("%s", out);
	ASSERT_NE(NULL, strstr(out, "UVM Simulated GPU"));
	snprintf(want, sizeof(want), "%-4u %-8d", 0, getpid());
	ASSERT_NE(NULL, strstr(out, want)) TH_LOG("%s", out);
	ASSERT_NE(NULL, strstr(out, "events: "));
	free(out);
}

/* ps: this process with the counters GET_COUNTERS reports. */
TEST_F(smi, ps)
{
	struct uvm_counters c;
	char *out, args[64], want[128];

	ASSERT_EQ(0, workload(&self->dev, self->p, self->len));
	ASSERT_EQ(0, uvm_counters(self->dev.fd, &c));
	snprintf(args, sizeof(args), "ps --json --pid %d", getpid());
	ASSERT_EQ(0, run(args, &out));
	ASSERT_EQ(1, count_of(out, "\"va_space\": "));
	snprintf(want, sizeof(want), "\"pid\": %d, ", getpid());
	ASSERT_NE(NULL, strstr(out, want));
	snprintf(want, sizeof(want), "\"comm\": \"%s\"", self->comm);
	ASSERT_NE(NULL, strstr(out, want)) TH_LOG("%s", out);
	ASSERT_EQ(c.c[UVM_COUNTER_GPU_FAULTS], json_num(out, uvm_counter_name(UVM_COUNTER_GPU_FAULTS)));
	ASSERT_EQ(c.c[UVM_COUNTER_PAGES_H2D], json_num(out, uvm_counter_name(UVM_COUNTER_PAGES_H2D)));
	ASSERT_EQ(c.c[UVM_COUNTER_PAGES_D2H], json_num(out, uvm_counter_name(UVM_COUNTER_PAGES_D2H)));
	free(out);

	ASSERT_EQ(0, run("ps", &out));
	snprintf(want, sizeof(want), "%-8d ", getpid());
	ASSERT_NE(NULL, strstr(out, want)) TH_LOG("%s", out);
	ASSERT_NE(NULL, strstr(out, self->comm));
	free(out);
}

/* top: exactly the frames asked for, with rates. */
TEST_F(smi, top)
{
	char *out;

	ASSERT_EQ(0, run("top -n 2 -d 0.2 --json", &out));
	ASSERT_EQ(2, count_of(out, "{\"iteration\": "));
	ASSERT_NE(NULL, strstr(out, "{\"iteration\": 2, "));
	ASSERT_EQ(2 * self->dev.num_gpus, count_of(out, "\"faults_per_s\": "));
	free(out);
	ASSERT_EQ(0, run("top -n 1 -d 0.1", &out));
	ASSERT_EQ(1, count_of(out, "uvm-smi top: iteration"));
	ASSERT_NE(NULL, strstr(out, "FAULTS/s"));
	free(out);
}

/**
 * struct ev_tally - what `uvm-smi events --json` printed, summed
 */
struct ev_tally {
	uint64_t faults, dups, batches, h2d, d2h, d2d, lines, other_pid;
};

static void tally_events(const char *out, int pid, struct ev_tally *t)
{
	const char *l = out;

	memset(t, 0, sizeof(*t));
	for (; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		char line[2048];
		const char *e = strchr(l, '\n');
		size_t n = e ? (size_t)(e - l) : strlen(l);
		char src[UVM_PROCESSOR_NAME_MAX], dst[UVM_PROCESSOR_NAME_MAX], cpu[8];
		uint64_t pages;

		if (n >= sizeof(line) || strncmp(l, "{\"event\"", 8))
			continue;
		memcpy(line, l, n);
		line[n] = 0;
		t->lines++;
		if (json_num(line, "pid") != (uint64_t)pid)
			t->other_pid++;
		if (strstr(line, "\"fault_batch\"") || strstr(line, "\"faults_flushed\"")) {
			t->faults += json_num(line, "faults");
			t->dups += json_num(line, "duplicates");
			t->batches += !!strstr(line, "\"fault_batch\"");
		} else if (strstr(line, "\"migration\"")) {
			json_str(line, "src", src, sizeof(src));
			json_str(line, "dst", dst, sizeof(dst));
			uvm_processor_name(UVM_PROCESSOR_CPU, cpu);
			pages = json_num(line, "pages");
			if (!strcmp(src, cpu))
				t->h2d += pages;
			else if (!strcmp(dst, cpu))
				t->d2h += pages;
			else
				t->d2d += pages;
		}
	}
}

/* events: the workload's batches and migrations, equal to its counters. */
TEST_F(smi, events)
{
	struct uvm_counters c0, c;
	struct ev_tally t;
	char cmd[256], *out;
	size_t cap = 1 << 20, n = 0, r;
	FILE *f;
	int st;

	out = malloc(cap);
	ASSERT_NE(NULL, out);
	snprintf(cmd, sizeof(cmd), "%s events --json --pid %d -t 4 2>&1", UVM_SMI, getpid());
	fflush(NULL);
	f = popen(cmd, "r");
	ASSERT_NE(NULL, f);
	/* Its first line says it has joined. */
	ASSERT_NE(NULL, fgets(out, cap, f));
	ASSERT_NE(NULL, strstr(out, "listening")) TH_LOG("%s", out);
	ASSERT_EQ(0, uvm_counters(self->dev.fd, &c0));
	ASSERT_EQ(0, workload(&self->dev, self->p, self->len));
	ASSERT_EQ(0, uvm_counters(self->dev.fd, &c));
	c = uvm_counters_delta(&c0, &c);
	while ((r = fread(out + n, 1, cap - n - 1, f)) > 0)
		n += r;
	out[n] = 0;
	st = pclose(f);
	ASSERT_TRUE(WIFEXITED(st));
	ASSERT_EQ(0, WEXITSTATUS(st));
	tally_events(out, getpid(), &t);
	ASSERT_EQ(0, t.other_pid);
	ASSERT_EQ(NULL, strstr(out, "lost")) TH_LOG("%s", out);
	ASSERT_EQ(c.c[UVM_COUNTER_GPU_FAULTS], t.faults) TH_LOG("%s", out);
	ASSERT_EQ(c.c[UVM_COUNTER_GPU_FAULTS_DUP], t.dups);
	ASSERT_EQ(c.c[UVM_COUNTER_GPU_FAULT_BATCHES], t.batches);
	ASSERT_EQ(c.c[UVM_COUNTER_PAGES_H2D], t.h2d);
	ASSERT_EQ(c.c[UVM_COUNTER_PAGES_D2H], t.d2h);
	ASSERT_EQ(c.c[UVM_COUNTER_PAGES_D2D], t.d2d);
	ASSERT_LT(0, t.h2d);
	ASSERT_LT(0, t.d2h);
	free(out);

	/* Text: one line per event. */
	ASSERT_EQ(0, run("events -n 1 -t 3 --pid 1", &out));
	ASSERT_NE(NULL, strstr(out, "listening"));
	free(out);

	/*
	 * Processors by name: the workload again moves page 0 from the CPU to
	 * GPU 0 and the last quarter from GPU 1 to the CPU.
	 */
	out = malloc(cap);
	ASSERT_NE(NULL, out);
	snprintf(cmd, sizeof(cmd), "%s events --pid %d -t 4 2>&1", UVM_SMI, getpid());
	fflush(NULL);
	f = popen(cmd, "r");
	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, fgets(out, cap, f));
	ASSERT_NE(NULL, strstr(out, "listening")) TH_LOG("%s", out);
	ASSERT_EQ(0, workload(&self->dev, self->p, self->len));
	n = 0;
	while ((r = fread(out + n, 1, cap - n - 1, f)) > 0)
		n += r;
	out[n] = 0;
	st = pclose(f);
	ASSERT_TRUE(WIFEXITED(st));
	ASSERT_EQ(0, WEXITSTATUS(st));
	ASSERT_NE(NULL, strstr(out, " src=cpu dst=gpu0 ")) TH_LOG("%s", out);
	ASSERT_NE(NULL, strstr(out, " src=gpu1 dst=cpu ")) TH_LOG("%s", out);
	free(out);
}

/* residency: the map and the totals of what the workload placed. */
TEST_F(smi, residency)
{
	char args[128], *out, map[NPAGES + 1];
	unsigned int i;

	ASSERT_EQ(0, workload(&self->dev, self->p, self->len));
	/* First page back on the CPU; first half GPU 0; 3/4.. read by GPU 1. */
	for (i = 0; i < NPAGES; i++)
		map[i] = i == 0 ? 'C' : i < NPAGES / 2 ? '0' : i < 3 * NPAGES / 4 ? 'C' : '1';
	map[NPAGES] = 0;
	snprintf(args, sizeof(args), "residency %d %p %llu", getpid(), self->p,
		 (unsigned long long)self->len);
	ASSERT_EQ(0, run(args, &out));
	ASSERT_NE(NULL, strstr(out, map)) TH_LOG("want %s in\n%s", map, out);
	ASSERT_NE(NULL, strstr(out, "resident: CPU 5, GPU 0 7, GPU 1 4")) TH_LOG("%s", out);
	free(out);

	snprintf(args, sizeof(args), "residency %d %p %llu --json", getpid(), self->p,
		 (unsigned long long)self->len);
	ASSERT_EQ(0, run(args, &out));
	ASSERT_EQ(NPAGES, count_of(out, "{\"resident\": "));
	ASSERT_NE(NULL, strstr(out, "\"resident\": {\"cpu\": 5, \"gpu0\": 7, \"gpu1\": 4}"))
		TH_LOG("%s", out);
	ASSERT_EQ(0, json_num(out, "nowhere"));
	free(out);

	/* Per 64 KiB: one character for all 16 pages (4 KiB pages): mixed. */
	if (self->ps == 4096) {
		snprintf(args, sizeof(args), "residency %d %p %llu --64k", getpid(), self->p,
			 (unsigned long long)self->len);
		ASSERT_EQ(0, run(args, &out));
		ASSERT_NE(NULL, strstr(out, " +\n")) TH_LOG("%s", out);
		free(out);
	}
}

/* Errors: status 1 with a message; bad usage: status 2. */
TEST_F(smi, errors)
{
	char *out;

	ASSERT_EQ(1, run("residency 1 0 4096", &out));
	ASSERT_NE(NULL, strstr(out, "No such process")) TH_LOG("%s", out);
	free(out);
	ASSERT_EQ(1, run("residency 1 1 4096", &out));
	free(out);
	ASSERT_EQ(2, run("bogus", &out));
	ASSERT_NE(NULL, strstr(out, "usage:"));
	free(out);
	ASSERT_EQ(2, run("residency 1", &out));
	free(out);
}

TEST_HARNESS_MAIN
