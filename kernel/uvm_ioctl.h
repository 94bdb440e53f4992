/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Table-driven ioctl dispatch.
 */
#ifndef _UVM_IOCTL_H_
#define _UVM_IOCTL_H_

#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/types.h>

struct file;
struct uvm_va_space;

/**
 * struct uvm_ioctl_file - a descriptor an ioctl hands out
 * @file:	the file, NULL for none
 * @fd:		the descriptor reserved for it (get_unused_fd_flags())
 *
 * The dispatcher installs @file at @fd only once the results (holding @fd)
 * reached the caller; if they cannot be copied out, or the handler failed,
 * the file is released and the descriptor given back: a caller never holds
 * a descriptor it was not told about.
 */
struct uvm_ioctl_file {
	struct file *file;
	int fd;
};

/* struct uvm_ioctl_desc::flags */
#define UVM_IOCTL_COPYOUT_ON_ERROR	BIT(0)	/* errors carry out-fields */

/* Largest argument structure of any ioctl. */
#define UVM_IOCTL_MAX_ARGS	256

/**
 * struct uvm_ioctl_desc - one ioctl command
 * @cmd:	the command as the uapi header defines it
 * @handler:	called with the VA space and a zero-extended kernel copy of
 *		the arguments; returns 0 or -errno
 * @handler_file: instead of @handler, for commands that hand out a
 *		descriptor: also fills a struct uvm_ioctl_file
 * @flags:	UVM_IOCTL_*
 * @name:	for debugging
 */
struct uvm_ioctl_desc {
	unsigned int cmd;
	int (*handler)(struct uvm_va_space *va_space, void *args);
	int (*handler_file)(struct uvm_va_space *va_space, void *args,
			    struct uvm_ioctl_file *out);
	unsigned int flags;
	const char *name;
};

/* First command number of the test ioctls (uvm_test.h). */
#define UVM_TEST_IOC_BASE	0x80

/*
 * A table entry.  Tables list their commands in number order without gaps,
 * from their base: entry i is command number base + i
 * (uvm_ioctl_table_check() verifies it at load).
 */
#define UVM_IOCTL(_cmd, _handler, _flags)				\
	{ .cmd = _cmd, .handler = _handler, .flags = _flags, .name = #_cmd }

/* A table entry of a command that hands out a descriptor. */
#define UVM_IOCTL_FILE(_cmd, _handler, _flags)				\
	{ .cmd = _cmd, .handler_file = _handler, .flags = _flags, .name = #_cmd }

int uvm_ioctl_table_check(const struct uvm_ioctl_desc *table, unsigned int count,
			  unsigned int base);
long uvm_ioctl_dispatch(const struct uvm_ioctl_desc *table, unsigned int count,
			unsigned int base, struct uvm_va_space *va_space,
			unsigned int cmd, unsigned long arg);
#endif /* _UVM_IOCTL_H_ */
