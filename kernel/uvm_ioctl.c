// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Table-driven ioctl dispatch, for /dev/uvm's commands (uvm_main.c) and the
 * test commands (uvm_test.c).
 *
 * Locking: none; handlers take what they need.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/file.h>
#include <linux/fs.h>
#include <linux/nospec.h>
#include <linux/printk.h>
#include <linux/uaccess.h>

#include "uvm.h"
#include "uvm_ioctl.h"
#include "uvm_va_space.h"

/**
 * uvm_ioctl_dispatch() - run one ioctl from a table
 * @table:	commands, indexed by _IOC_NR(cmd) - @base
 * @count:	entries in @table
 * @base:	command number of entry 0
 * @va_space:	the VA space of the file
 * @cmd:	the command
 * @arg:	user pointer to the arguments
 *
 * The argument size is taken from @cmd: a caller built against an older
 * (smaller) structure is refused, a newer (larger) one is accepted when its
 * extra bytes are zero (copy_struct_from_user()).  Out-fields are copied
 * back on success, and on error for commands whose errors carry results.
 * A descriptor a command hands out is installed after the copy-out
 * succeeded (struct uvm_ioctl_file).
 *
 * Return: the handler's result, -ENOTTY for unknown commands, -EINVAL for a
 * short structure, -E2BIG for non-zero bytes past the known structure,
 * -EFAULT for bad pointers.
 */
long uvm_ioctl_dispatch(const struct uvm_ioctl_desc *table, unsigned int count,
			unsigned int base, struct uvm_va_space *va_space,
			unsigned int cmd, unsigned long arg)
{
	u64 args[UVM_IOCTL_MAX_ARGS / sizeof(u64)];
	void __user *uarg = (void __user *)arg;
	struct uvm_ioctl_file out = { .fd = -1 };
	const struct uvm_ioctl_desc *desc;
	unsigned int nr = _IOC_NR(cmd);
	size_t usize = _IOC_SIZE(cmd);
	size_t ksize;
	int ret;

	if (_IOC_TYPE(cmd) != UVM_IOC_MAGIC || nr < base || nr - base >= count)
		return -ENOTTY;
	desc = &table[array_index_nospec(nr - base, count)];
	if ((!desc->handler && !desc->handler_file) || _IOC_DIR(desc->cmd) != _IOC_DIR(cmd))
		return -ENOTTY;

	ksize = _IOC_SIZE(desc->cmd);
	if (usize < ksize)
		return -EINVAL;
	ret = copy_struct_from_user(args, ksize, uarg, usize);
	if (ret)
		return ret;

	ret = uvm_va_space_check_mm(va_space);
	if (ret)
		return ret;

	if (desc->handler_file)
		ret = desc->handler_file(va_space, args, &out);
	else
		ret = desc->handler(va_space, args);
	if ((!ret || (desc->flags & UVM_IOCTL_COPYOUT_ON_ERROR)) &&
	    copy_to_user(uarg, args, ksize))
		ret = -EFAULT;
	if (out.file) {
		if (ret) {
			fput(out.file);
			put_unused_fd(out.fd);
		} else {
			fd_install(out.fd, out.file);
		}
	}
	return ret;
}

/**
 * uvm_ioctl_table_check() - verify that a table is in command order
 * @table:	the table
 * @count:	entries
 * @base:	command number of entry 0
 *
 * Return: 0, or -EINVAL (with a message) for a misplaced entry.
 */
int uvm_ioctl_table_check(const struct uvm_ioctl_desc *table, unsigned int count,
			  unsigned int base)
{
	unsigned int i;

	for (i = 0; i < count; i++) {
		if (_IOC_NR(table[i].cmd) != base + i ||
		    _IOC_TYPE(table[i].cmd) != UVM_IOC_MAGIC) {
			pr_err("ioctl table: %s at position %u\n", table[i].name, i);
			return -EINVAL;
		}
	}
	return 0;
}
