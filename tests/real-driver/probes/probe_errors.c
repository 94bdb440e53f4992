// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * probe_errors - cuGetErrorName / cuGetErrorString of every code, and of
 * codes that do not exist.
 */
#include "probe.h"

int main(void)
{
	const char *s = (const char *)0x1, *t = (const char *)0x1;
	CUresult r;

	r = cuGetErrorName((CUresult)12345, &s);
	probe_res("err.name.unknown", r);
	probe_line("err.name.unknown.value", "%s", s == NULL ? "null" :
		   s == (const char *)0x1 ? "untouched" : s);
	r = cuGetErrorString((CUresult)12345, &t);
	probe_res("err.string.unknown", r);
	probe_line("err.string.unknown.value", "%s", t == NULL ? "null" :
		   t == (const char *)0x1 ? "untouched" : t);
	s = (const char *)0x1;
	r = cuGetErrorName((CUresult)-1, &s);
	probe_res("err.name.neg", r);
	probe_line("err.name.neg.value", "%s", s == NULL ? "null" :
		   s == (const char *)0x1 ? "untouched" : s);
	for (int e = 0; e <= 1100; e++) {
		char key[64];

		s = t = NULL;
		if (cuGetErrorName((CUresult)e, &s) != CUDA_SUCCESS)
			continue;
		cuGetErrorString((CUresult)e, &t);
		snprintf(key, sizeof(key), "err.%d", e);
		probe_line(key, "%s | %s", s, t ? t : "(null)");
	}
	return 0;
}
