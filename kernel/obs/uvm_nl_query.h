/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The netlink family's query commands.
 */
#ifndef _UVM_NL_QUERY_H_
#define _UVM_NL_QUERY_H_

int uvm_nl_query_init(void);
void uvm_nl_query_exit(void);

#endif /* _UVM_NL_QUERY_H_ */
