// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Ranged module parameters.
 *
 * DOC: Module parameters
 *
 * Every numeric parameter that can change at run time (mode 0644) is a
 * &struct uvm_param_uint with its range next to its default, and
 * &uvm_param_uint_ops checks each write, at load and through
 * /sys/module/uvm/parameters/, against that range: an operator cannot set a
 * value the driver was not written for, and a refused write changes
 * nothing.  Read-only parameters (0444) are checked once at load by their
 * file's *_params_check().
 *
 * Locking: the kernel serialises the set callbacks of a module's parameters
 * (kernel_param_lock()); readers use READ_ONCE() through uvm_param_get()
 * and take whatever value is current.
 */
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/sysfs.h>

#include "uvm_param.h"

/**
 * uvm_param_uint_set() - parse and range-check a write
 * @val:	the text written
 * @kp:		the parameter; @kp->arg is its &struct uvm_param_uint
 *
 * Context: process context, kernel parameter lock held.
 * Return: 0, or -EINVAL for text that is not a number or a number outside
 * the range (the value is unchanged then).
 */
static int uvm_param_uint_set(const char *val, const struct kernel_param *kp)
{
	struct uvm_param_uint *p = kp->arg;
	unsigned int n;

	if (kstrtouint(val, 0, &n) || n < p->min || n > p->max)
		return -EINVAL;
	WRITE_ONCE(p->val, n);
	if (p->changed)
		p->changed();
	return 0;
}

/**
 * uvm_param_uint_get() - print the current value
 * @buf:	the page-sized sysfs buffer
 * @kp:		the parameter
 *
 * Return: the number of characters written.
 */
static int uvm_param_uint_get(char *buf, const struct kernel_param *kp)
{
	const struct uvm_param_uint *p = kp->arg;

	return sysfs_emit(buf, "%u\n", uvm_param_get(p));
}

const struct kernel_param_ops uvm_param_uint_ops = {
	.set = uvm_param_uint_set,
	.get = uvm_param_uint_get,
};
