// SPDX-License-Identifier: GPL-2.0 OR MIT
/* genl_info_dump(): a dump's attributes are in a struct genl_info (6.6+). */
#include <net/genetlink.h>

struct nlattr **uvm_conftest(struct netlink_callback *cb);
struct nlattr **uvm_conftest(struct netlink_callback *cb)
{
	return genl_info_dump(cb)->attrs;
}
