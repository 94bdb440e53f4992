// SPDX-License-Identifier: GPL-2.0 OR MIT
/* <linux/unaligned.h> exists (6.12+, moved from <asm/unaligned.h>). */
#include <linux/types.h>
#include <linux/unaligned.h>

u64 uvm_conftest(const void *p);
u64 uvm_conftest(const void *p)
{
	return get_unaligned((const u64 *)p);
}
