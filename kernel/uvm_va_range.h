/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Managed ranges created by mmap() of /dev/uvm.
 */
#ifndef _UVM_VA_RANGE_H_
#define _UVM_VA_RANGE_H_

#include <linux/interval_tree.h>
#include <linux/types.h>

struct uvm_va_space;
struct vm_area_struct;

/**
 * struct uvm_va_range - one managed range
 * @node:	in uvm_va_space.ranges; start and last are the range's first
 *		and last byte
 * @buffer_id:	unique id of the allocation (UVM_IOC_POINTER_INFO)
 *
 * A munmap() of part of a range shrinks or splits it; the pieces keep the
 * buffer id.
 */
struct uvm_va_range {
	struct interval_tree_node node;
	u64 buffer_id;
};

struct uvm_va_range *uvm_va_range_find(struct uvm_va_space *va_space, u64 addr);
int uvm_va_range_mmap(struct uvm_va_space *va_space, struct vm_area_struct *vma);
void uvm_va_range_unmap(struct uvm_va_space *va_space, u64 start, u64 end);
int uvm_va_range_check(struct uvm_va_space *va_space, u64 address, u64 length,
		       u64 *start, u64 *end);
int uvm_ioc_pointer_info(struct uvm_va_space *va_space, void *data);

#endif /* _UVM_VA_RANGE_H_ */
