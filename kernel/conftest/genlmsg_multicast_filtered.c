// SPDX-License-Identifier: GPL-2.0 OR MIT
/* genlmsg_multicast_netns_filtered(): a multicast filtered per listener (6.9+). */
#include <net/genetlink.h>

static int uvm_conftest_filter(struct sock *dsk, struct sk_buff *skb, void *data)
{
	return 0;
}

int uvm_conftest(const struct genl_family *family, struct sk_buff *skb);
int uvm_conftest(const struct genl_family *family, struct sk_buff *skb)
{
	return genlmsg_multicast_netns_filtered(family, &init_net, skb, 0, 0,
						GFP_NOWAIT, uvm_conftest_filter,
						NULL);
}
