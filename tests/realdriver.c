// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * realdriver - replay the real-driver probes against libuvm.
 *
 * tests/real-driver/probes/ holds programs written against cuda.h (and
 * cuda_runtime_api.h) that were run once on a real NVIDIA GPU with CUDA 13;
 * what NVIDIA's driver answered is in tests/real-driver/results/.  Here the
 * same sources, built against libuvm, run in the guest and every observation
 * is compared: each TEST runs one probe and fails on any line whose value
 * differs, except the lines that describe the machine ("env.*") and the
 * known, documented differences of tests/real-driver/differences.txt.
 *
 * Module parameters: num_gpus=1, the real machine's GPU count.
 */
#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

#ifndef PROBE_DIR
#error PROBE_DIR must name the directory of the probe executables
#endif
#ifndef RESULTS_DIR
#error RESULTS_DIR must name tests/real-driver/results
#endif

struct kv {
	char *key;
	char *val;
};

struct kvlist {
	struct kv *v;
	size_t n, cap;
};

static void kv_add(struct kvlist *l, const char *key, const char *val)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 256;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
	}
	l->v[l->n].key = strdup(key);
	l->v[l->n].val = strdup(val);
	l->n++;
}

/* Parse "key = value" lines of a buffer. */
static void kv_parse(struct kvlist *l, char *buf)
{
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		char *sep = strstr(line, " = ");

		if (!sep) {
			/* A key with an empty value ends in " =". */
			size_t n = strlen(line);

			if (n > 2 && !strcmp(line + n - 2, " =")) {
				line[n - 2] = '\0';
				kv_add(l, line, "");
			}
			continue;
		}
		*sep = '\0';
		kv_add(l, line, sep + 3);
	}
}

static const char *kv_get(const struct kvlist *l, const char *key)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].key, key))
			return l->v[i].val;
	return NULL;
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = calloc(1, n + 1);
	if (fread(buf, 1, n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

/*
 * Run a probe, capturing its stdout; return its exit status the way the
 * recording script saw it (128 + signal for a signal).
 */
static int run_probe(const char *exe, const char *arg, char **out)
{
	size_t len = 0, cap = 65536;
	char *buf = malloc(cap);
	int pfd[2], st;
	pid_t pid;
	ssize_t n;

	if (pipe(pfd))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(pfd[1], 1);
		close(pfd[0]);
		close(pfd[1]);
		execl(exe, exe, arg, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	while ((n = read(pfd[0], buf + len, cap - len - 1)) > 0) {
		len += n;
		if (cap - len < 4096)
			buf = realloc(buf, cap *= 2);
	}
	close(pfd[0]);
	buf[len] = '\0';
	*out = buf;
	if (waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Known differences: "probe key-glob reason". */
static const char *known_difference(const char *probe, const char *key)
{
	static char reason[512];
	char path[4096], line[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/../differences.txt", RESULTS_DIR);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		char p[128], glob[256];
		int off = 0;

		if (line[0] == '#' || sscanf(line, "%127s %255s %n", p, glob, &off) < 2)
			continue;
		if (strcmp(p, probe) || fnmatch(glob, key, 0))
			continue;
		snprintf(reason, sizeof(reason), "%s", line + off);
		reason[strcspn(reason, "\n")] = '\0';
		fclose(f);
		return reason;
	}
	fclose(f);
	return NULL;
}

/*
 * Whether @key exists on one side only because the environment differs: an
 * "env.A.B.c" line with different values on the two sides (say, whether
 * the kernel placed a second reservation next to the first) makes the
 * probe print different "A.B.*" lines, and those cannot be compared.
 */
static bool env_dependent(const struct kvlist *want, const struct kvlist *got,
			  const char *key)
{
	for (size_t i = 0; i < want->n; i++) {
		const char *ek = want->v[i].key, *gv, *dot;

		if (strncmp(ek, "env.", 4))
			continue;
		dot = strrchr(ek, '.');
		gv = kv_get(got, ek);
		if (dot - (ek + 4) > 0 && !strncmp(key, ek + 4, dot + 1 - (ek + 4)) &&
		    (!gv || strcmp(gv, want->v[i].val)))
			return true;
	}
	return false;
}

/*
 * Compare what libuvm answered with what NVIDIA's driver answered.  Return
 * the number of unexplained differences; log each.  Lines that only one
 * side printed because an env.* condition differs are logged, not counted.
 */
static int compare(struct __test_metadata *_metadata, const char *probe,
		   const struct kvlist *want, const struct kvlist *got)
{
	int bad = 0, known = 0, same = 0;

	for (size_t i = 0; i < want->n; i++) {
		const char *key = want->v[i].key, *w = want->v[i].val;
		const char *g = kv_get(got, key), *why;

		if (!strncmp(key, "env.", 4))
			continue;
		if (g && !strcmp(g, w)) {
			same++;
			continue;
		}
		if (!g && env_dependent(want, got, key)) {
			known++;
			TH_LOG("environment-dependent %s: NVIDIA '%s', libuvm (missing)", key, w);
			continue;
		}
		why = known_difference(probe, key);
		if (why) {
			known++;
			TH_LOG("known difference %s: NVIDIA '%s', libuvm '%s' (%s)", key, w,
			       g ? g : "(missing)", why);
			continue;
		}
		bad++;
		TH_LOG("MISMATCH %s: NVIDIA '%s', libuvm '%s'", key, w, g ? g : "(missing)");
	}
	for (size_t i = 0; i < got->n; i++) {
		const char *key = got->v[i].key;

		if (!strncmp(key, "env.", 4) || kv_get(want, key))
			continue;
		if (env_dependent(want, got, key)) {
			known++;
			TH_LOG("environment-dependent %s = '%s' (NVIDIA's driver printed no such line)",
			       key, got->v[i].val);
		} else if (!known_difference(probe, key)) {
			bad++;
			TH_LOG("EXTRA %s = '%s' (NVIDIA's driver printed no such line)", key,
			       got->v[i].val);
		}
	}
	TH_LOG("%s: %d observations equal, %d known differences, %d mismatches", probe, same,
	       known, bad);
	return bad;
}

static void replay(struct __test_metadata *_metadata, const char *probe)
{
	struct kvlist want = {}, got = {};
	char path[4096], exe[4096], line[512];
	char *expected, *out;
	int rc;

	snprintf(path, sizeof(path), "%s/%s.txt", RESULTS_DIR, probe);
	snprintf(exe, sizeof(exe), "%s/%s", PROBE_DIR, probe);
	expected = read_file(path);
	ASSERT_NE(NULL, expected) TH_LOG("no recorded results %s", path);
	kv_parse(&want, expected);

	if (!strcmp(probe, "probe_null")) {
		/* One process per case, as the recording did. */
		char *list, *save = NULL;

		ASSERT_EQ(0, run_probe(exe, NULL, &list));
		for (char *c = strtok_r(list, "\n", &save); c; c = strtok_r(NULL, "\n", &save)) {
			rc = run_probe(exe, c, &out);
			kv_parse(&got, out);
			free(out);
			if (rc) {
				snprintf(line, sizeof(line), "%d", rc);
				snprintf(path, sizeof(path), "null.%s.exit", c);
				kv_add(&got, path, line);
			}
		}
		free(list);
	} else {
		rc = run_probe(exe, NULL, &out);
		kv_parse(&got, out);
		free(out);
		snprintf(line, sizeof(line), "%d", rc);
		kv_add(&got, "exit", line);
	}
	EXPECT_EQ(0, compare(_metadata, probe, &want, &got));
	free(expected);
}

/* A probe starts the driver many times (probe_null once per case): slow
 * under TCG with KASAN, hence the timeouts. */
FIXTURE(probe) {
	int unused;
};

FIXTURE_SETUP(probe)
{
}

FIXTURE_TEARDOWN(probe)
{
}

#define PROBE_TEST(name) \
	TEST_F_TIMEOUT(probe, name, 300) { (void)self; replay(_metadata, #name); }

/* Calls before cuInit, cuInit, devices, every device attribute number. */
PROBE_TEST(probe_init)
/* Contexts, primary contexts, streams, events, stream order. */
PROBE_TEST(probe_ctx)
/* Managed allocation, free, address ranges, pointer attributes. */
PROBE_TEST(probe_mem)
/* cuMemAdvise in both forms: ranges, advice values, locations, results. */
PROBE_TEST(probe_advise)
/* cuMemPrefetchAsync in both forms, the batch calls, last-prefetch. */
PROBE_TEST(probe_prefetch)
/* cuMemRangeGetAttribute(s): sizes, ranges, unknown attributes. */
PROBE_TEST(probe_rangeattr)
/* The runtime equivalents, the last error, error names. */
PROBE_TEST(probe_runtime)
/* cuGetErrorName/String of every code. */
PROBE_TEST(probe_errors)
/* A fork() child's calls. */
PROBE_TEST(probe_fork)
/* NULL pointers and handles, calls that may break the context, one
 * process per case. */
PROBE_TEST(probe_null)
/* cuMemAlloc, page-locked and registered host memory, copies and sets. */
PROBE_TEST(probe_devmem)
/* Placement of small allocations, every pointer attribute of every kind of
 * memory, host flags, which memory each copy and set accepts, the runtime
 * forms. */
PROBE_TEST(probe_copy)
/* Virtual memory management: granularity, reservations, physical
 * allocations, mappings, access, retain/release, properties, export and
 * import (also to a second process), pointer attributes, copies and sets,
 * host-located memory and CPU touches; crashing cases one process each. */
PROBE_TEST(probe_vmm)
/* A plain C program using only cuda_runtime_api.h: every function of the
 * runtime's Memory Management group, as an ordinary program calls them. */
PROBE_TEST(probe_rtprog)
/* Sparse and deferred-mapping arrays: tile shapes, mip tails, memory
 * requirements, cuMemMapArrayAsync with the data checked. */
PROBE_TEST(probe_sparse)
/* Pitched memory, every 2D/3D copy and set, peer copies and access. */
PROBE_TEST(probe_pitch)
/* CUDA arrays: formats, dimensions, flags, descriptors, planes, mipmaps,
 * every copy with arrays. */
PROBE_TEST(probe_array)
/* The video formats: channels, dimensions, planes, data per plane. */
PROBE_TEST(probe_planar)
/* Page-locked memory against RLIMIT_MEMLOCK, as nobody and as root. */
PROBE_TEST(probe_memlock)
/* The profiler controls with no profiler: driver, context, runtime. */
PROBE_TEST(probe_profiler)
/* cudaSetDeviceFlags/cudaGetDeviceFlags and the contexts' flags. */
PROBE_TEST(probe_devflags)
/* cuGetProcAddress and cudaGetDriverEntryPoint(ByVersion) of every function. */
PROBE_TEST(probe_procaddr)
/* cuEventElapsedTime: idle streams, pending work, the time work took. */
PROBE_TEST(probe_evtime)

TEST_HARNESS_MAIN
