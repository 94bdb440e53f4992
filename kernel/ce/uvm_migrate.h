/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Explicit migration: prefetch and discard batches.
 */
#ifndef _UVM_MIGRATE_H_
#define _UVM_MIGRATE_H_

struct uvm_va_space;

int uvm_ioc_migrate(struct uvm_va_space *va_space, void *data);

#endif /* _UVM_MIGRATE_H_ */
