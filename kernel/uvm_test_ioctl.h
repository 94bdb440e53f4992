/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The test and simulation ioctls (uvm_test.c, with CONFIG_UVM_TEST).
 */
#ifndef _UVM_TEST_IOCTL_H_
#define _UVM_TEST_IOCTL_H_

#include <linux/errno.h>

struct uvm_va_space;

#ifdef CONFIG_UVM_TEST
long uvm_test_ioctl(struct uvm_va_space *va_space, unsigned int cmd,
		    unsigned long arg);
int uvm_test_ioctl_check(void);
#else
static inline int uvm_test_ioctl_check(void)
{
	return 0;
}

static inline long uvm_test_ioctl(struct uvm_va_space *va_space,
				  unsigned int cmd, unsigned long arg)
{
	return -ENOTTY;
}
#endif

#endif /* _UVM_TEST_IOCTL_H_ */
