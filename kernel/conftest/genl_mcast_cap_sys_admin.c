// SPDX-License-Identifier: GPL-2.0 OR MIT
/* GENL_MCAST_CAP_SYS_ADMIN: joining a multicast group needs CAP_SYS_ADMIN (6.6+, 6.1.y). */
#include <net/genetlink.h>

const struct genl_multicast_group uvm_conftest_group = {
	.name = "conftest",
	.flags = GENL_MCAST_CAP_SYS_ADMIN,
};
