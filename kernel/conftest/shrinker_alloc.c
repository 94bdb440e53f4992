// SPDX-License-Identifier: GPL-2.0 OR MIT
/* shrinker_alloc()/shrinker_register() exist (6.7+); register_shrinker() is gone. */
#include <linux/mm.h>
#include <linux/shrinker.h>

struct shrinker *uvm_conftest(void);
struct shrinker *uvm_conftest(void)
{
	struct shrinker *s = shrinker_alloc(0, "uvm-conftest");

	if (s)
		shrinker_register(s);
	return s;
}
