/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Module parameters with a range, checked on every write.
 */
#ifndef _UVM_PARAM_H_
#define _UVM_PARAM_H_

#include <linux/compiler.h>
#include <linux/moduleparam.h>

/**
 * struct uvm_param_uint - an unsigned module parameter limited to a range
 * @val:	the value: read it with uvm_param_get() (a write through
 *		/sys/module/uvm/parameters/ may change it at any time)
 * @min:	smallest value a write may set
 * @max:	largest value a write may set
 * @changed:	called after each successful write (under the kernel's
 *		parameter lock, which serialises writes), or NULL
 *
 * Declared with module_param_cb(name, &uvm_param_uint_ops, &param, perm):
 * a value that is not a number or lies outside [@min, @max] is refused with
 * -EINVAL and leaves @val as it was, whether it comes from insmod/modprobe
 * or from a write to sysfs.
 */
struct uvm_param_uint {
	unsigned int val;
	unsigned int min;
	unsigned int max;
	void (*changed)(void);
};

extern const struct kernel_param_ops uvm_param_uint_ops;

/**
 * uvm_param_get() - the current value of a ranged parameter
 * @p:	the parameter
 *
 * Context: any.
 * Return: a value within the parameter's range.
 */
static inline unsigned int uvm_param_get(const struct uvm_param_uint *p)
{
	return READ_ONCE(p->val);
}

#endif /* _UVM_PARAM_H_ */
