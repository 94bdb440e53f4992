/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copies and memsets through a GPU's copy engine.
 */
#ifndef _UVM_COPY_H_
#define _UVM_COPY_H_

struct uvm_va_space;

int uvm_ioc_copy(struct uvm_va_space *va_space, void *data);
int uvm_ioc_memset(struct uvm_va_space *va_space, void *data);
int uvm_ioc_copy_3d(struct uvm_va_space *va_space, void *data);
int uvm_ioc_memset_3d(struct uvm_va_space *va_space, void *data);
int uvm_ioc_copy_batch(struct uvm_va_space *va_space, void *data);
void uvm_copy_va_space_destroy(struct uvm_va_space *va_space);

#endif /* _UVM_COPY_H_ */
