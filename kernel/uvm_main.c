// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * uvm_main.c - module entry, /dev/uvm (placeholder while the core lands).
 */
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/fs.h>

#include "uvm.h"

static const struct file_operations uvm_fops = {
	.owner = THIS_MODULE,
};

static struct miscdevice uvm_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = UVM_DEVICE_NAME,
	.fops = &uvm_fops,
	.mode = 0666,
};

static int __init uvm_init(void)
{
	return misc_register(&uvm_misc);
}

static void __exit uvm_exit(void)
{
	misc_deregister(&uvm_misc);
}

module_init(uvm_init);
module_exit(uvm_exit);
MODULE_LICENSE("Dual MIT/GPL");
MODULE_DESCRIPTION("Open Unified Virtual Memory driver with simulated GPUs");
