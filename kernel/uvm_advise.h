/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The advice ioctls.
 */
#ifndef _UVM_ADVISE_H_
#define _UVM_ADVISE_H_

struct uvm_va_space;

int uvm_ioc_advise(struct uvm_va_space *va_space, void *data);
int uvm_ioc_range_query(struct uvm_va_space *va_space, void *data);

#endif /* _UVM_ADVISE_H_ */
