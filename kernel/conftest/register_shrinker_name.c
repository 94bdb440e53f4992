// SPDX-License-Identifier: GPL-2.0 OR MIT
/* register_shrinker() takes a name (6.0 .. 6.6). */
#include <linux/mm.h>
#include <linux/shrinker.h>

int uvm_conftest(struct shrinker *s);
int uvm_conftest(struct shrinker *s)
{
	return register_shrinker(s, "uvm-%s", "conftest");
}
