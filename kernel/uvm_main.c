// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Module entry, /dev/uvm and its ioctls.
 *
 * DOC: Overview
 *
 * The driver gives GPUs one virtual address space with the CPU.  This file
 * is its top: the misc device /dev/uvm (open, release, mmap, which picks
 * the kind of allocation by file offset), the table of ioctls (dispatched
 * by uvm_ioctl.c) and module init and exit.  The layers below, the folders
 * that hold them and what each may call are written down once, in
 * kernel/LAYERS (checked by scripts/check-layers) and drawn in
 * Documentation/architecture.rst.
 *
 * Locking: none here; see uvm_lock.h for the order of the others.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/file.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/nospec.h>
#include <linux/sched/mm.h>
#include <linux/uaccess.h>

#include "simgpu/simgpu.h"
#include "uvm_advise.h"
#include "uvm_copy.h"
#include "uvm_device_range.h"
#include "uvm_events.h"
#include "uvm_fault.h"
#include "uvm_gpu.h"
#include "uvm_hmm.h"
#include "uvm_host_range.h"
#include "uvm_ioctl.h"
#include "uvm_test_ioctl.h"
#include "uvm_mem.h"
#include "uvm_migrate.h"
#include "uvm_nl.h"
#include "uvm_nl_query.h"
#include "uvm_page_pool.h"
#include "uvm_pin.h"
#include "uvm_perf_prefetch.h"
#include "uvm_queue.h"
#include "uvm_perf_thrash.h"
#include "uvm_va_block.h"
#include "uvm_va_policy.h"
#include "uvm_va_range.h"
#include "uvm_va_space.h"
#include "uvm_vmm.h"

/* VERSION (see kernel/Kbuild) and the uapi's API version are one number. */
static_assert(UVM_VERSION_MAJOR - UVM_API_VERSION_MAJOR == 0 &&
	      UVM_VERSION_MINOR - UVM_API_VERSION_MINOR == 0);

static_assert(sizeof(struct uvm_ioc_version) == 56);
static_assert(sizeof(struct uvm_ioc_gpu_info) == 152);
static_assert(sizeof(struct uvm_ioc_get_counters) == 16);
static_assert(sizeof(struct uvm_location) == 8);
static_assert(sizeof(struct uvm_ioc_advise) == 48);
static_assert(sizeof(struct uvm_range) == 16);
static_assert(sizeof(struct uvm_ioc_migrate) == 80);
static_assert(sizeof(struct uvm_ioc_fence_wait) == 24);
static_assert(sizeof(struct uvm_ioc_fence_time) == 32);
static_assert(sizeof(struct uvm_ioc_range_query) == 64);
static_assert(sizeof(struct uvm_ioc_pointer_info) == 56);
static_assert(sizeof(struct uvm_ioc_host_register) == 48);
static_assert(sizeof(struct uvm_ioc_host_unregister) == 32);
static_assert(sizeof(struct uvm_ioc_copy) == 56);
static_assert(sizeof(struct uvm_ioc_memset) == 56);
static_assert(sizeof(struct uvm_ioc_mem_create) == 48);
static_assert(sizeof(struct uvm_ioc_mem_release) == 16);
static_assert(sizeof(struct uvm_ioc_mem_props) == 56);
static_assert(sizeof(struct uvm_ioc_mem_export) == 40);
static_assert(sizeof(struct uvm_ioc_mem_import) == 32);
static_assert(sizeof(struct uvm_ioc_mem_map) == 56);
static_assert(sizeof(struct uvm_ioc_mem_unmap) == 40);
static_assert(sizeof(struct uvm_mem_access) == 16);
static_assert(sizeof(struct uvm_ioc_mem_set_access) == 56);
static_assert(sizeof(struct uvm_ioc_mem_query) == 128);
static_assert(sizeof(struct uvm_box) == 24);
static_assert(sizeof(struct uvm_ioc_copy_3d) == 96);
static_assert(sizeof(struct uvm_ioc_memset_3d) == 80);
static_assert(sizeof(struct uvm_copy_op) == 72);
static_assert(sizeof(struct uvm_ioc_copy_batch) == 48);

static int uvm_ioc_get_version(struct uvm_va_space *va_space, void *data)
{
	struct uvm_ioc_version *args = data;

	if (memchr_inv(args->reserved, 0, sizeof(args->reserved)))
		return -EINVAL;
	args->major = UVM_API_VERSION_MAJOR;
	args->minor = UVM_API_VERSION_MINOR;
	args->num_gpus = uvm_gpu_count;
	args->page_size = PAGE_SIZE;
	args->caps = (IS_ENABLED(CONFIG_UVM_TEST) ? UVM_CAP_TEST_IOCTLS : 0) |
		     UVM_CAP_VMM | UVM_CAP_COPY_3D | UVM_CAP_COPY_BATCH | UVM_CAP_FENCE_TIME |
		     uvm_hmm_caps();
	return 0;
}

/**
 * uvm_gpu_info() - fill the GPU_INFO ioctl answer
 * @gpu:	the GPU
 * @info:	out; @info->gpu_index is already set
 */
static void uvm_gpu_info(struct uvm_gpu *gpu, struct uvm_ioc_gpu_info *info)
{
	info->flags = gpu->props.simulated ? UVM_GPU_SIMULATED : 0;
	info->vidmem_size = gpu->props.vidmem_size;
	info->vidmem_used = uvm_pmm_used_bytes(gpu);
	info->fault_buffer_entries = gpu->props.fault_buffer_entries;
	info->fault_batch_size = uvm_fault_batch_size();
	info->copy_engines = gpu->props.copy_engines;
	memcpy(info->uuid, gpu->props.uuid, sizeof(info->uuid));
	strscpy(info->name, gpu->name, sizeof(info->name));
}

static int uvm_ioc_gpu_info(struct uvm_va_space *va_space, void *data)
{
	struct uvm_ioc_gpu_info *args = data;
	struct uvm_gpu *gpu;

	if (args->pad || memchr_inv(args->reserved, 0, sizeof(args->reserved)))
		return -EINVAL;
	gpu = uvm_gpu_get(args->gpu_index);
	if (!gpu)
		return -ENODEV;
	uvm_gpu_info(gpu, args);
	return 0;
}

static int uvm_ioc_get_counters(struct uvm_va_space *va_space, void *data)
{
	struct uvm_ioc_get_counters *args = data;
	u64 __user *out = u64_to_user_ptr(args->counters_ptr);
	u32 i, n = min_t(u32, args->count, UVM_COUNTER_COUNT);

	if (args->flags)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (put_user(atomic64_read(&va_space->counters[i]), &out[i]))
			return -EFAULT;
	args->count = UVM_COUNTER_COUNT;
	return 0;
}

static const struct uvm_ioctl_desc uvm_ioctls[] = {
	UVM_IOCTL(UVM_IOC_GET_VERSION, uvm_ioc_get_version, 0),
	UVM_IOCTL(UVM_IOC_GPU_INFO, uvm_ioc_gpu_info, 0),
	UVM_IOCTL(UVM_IOC_GET_COUNTERS, uvm_ioc_get_counters, 0),
	UVM_IOCTL(UVM_IOC_ADVISE, uvm_ioc_advise, 0),
	UVM_IOCTL(UVM_IOC_MIGRATE, uvm_ioc_migrate, UVM_IOCTL_COPYOUT_ON_ERROR),
	UVM_IOCTL(UVM_IOC_FENCE_WAIT, uvm_ioc_fence_wait, UVM_IOCTL_COPYOUT_ON_ERROR),
	UVM_IOCTL(UVM_IOC_RANGE_QUERY, uvm_ioc_range_query, 0),
	UVM_IOCTL(UVM_IOC_POINTER_INFO, uvm_ioc_pointer_info, 0),
	UVM_IOCTL(UVM_IOC_HOST_REGISTER, uvm_ioc_host_register, 0),
	UVM_IOCTL(UVM_IOC_HOST_UNREGISTER, uvm_ioc_host_unregister, 0),
	UVM_IOCTL(UVM_IOC_COPY, uvm_ioc_copy, UVM_IOCTL_COPYOUT_ON_ERROR),
	UVM_IOCTL(UVM_IOC_MEMSET, uvm_ioc_memset, UVM_IOCTL_COPYOUT_ON_ERROR),
	UVM_IOCTL(UVM_IOC_MEM_CREATE, uvm_ioc_mem_create, 0),
	UVM_IOCTL(UVM_IOC_MEM_RELEASE, uvm_ioc_mem_release, 0),
	UVM_IOCTL(UVM_IOC_MEM_PROPS, uvm_ioc_mem_props, 0),
	UVM_IOCTL_FILE(UVM_IOC_MEM_EXPORT, uvm_ioc_mem_export, 0),
	UVM_IOCTL(UVM_IOC_MEM_IMPORT, uvm_ioc_mem_import, 0),
	UVM_IOCTL(UVM_IOC_MEM_MAP, uvm_ioc_mem_map, 0),
	UVM_IOCTL(UVM_IOC_MEM_UNMAP, uvm_ioc_mem_unmap, 0),
	UVM_IOCTL(UVM_IOC_MEM_SET_ACCESS, uvm_ioc_mem_set_access,
		  UVM_IOCTL_COPYOUT_ON_ERROR),
	UVM_IOCTL(UVM_IOC_MEM_QUERY, uvm_ioc_mem_query, 0),
	UVM_IOCTL(UVM_IOC_COPY_3D, uvm_ioc_copy_3d, UVM_IOCTL_COPYOUT_ON_ERROR),
	UVM_IOCTL(UVM_IOC_MEMSET_3D, uvm_ioc_memset_3d, UVM_IOCTL_COPYOUT_ON_ERROR),
	UVM_IOCTL(UVM_IOC_COPY_BATCH, uvm_ioc_copy_batch, UVM_IOCTL_COPYOUT_ON_ERROR),
	UVM_IOCTL(UVM_IOC_FENCE_TIME, uvm_ioc_fence_time, 0),
};

static long uvm_unlocked_ioctl(struct file *filp, unsigned int cmd,
			       unsigned long arg)
{
	struct uvm_va_space *va_space = filp->private_data;

	if (_IOC_NR(cmd) >= UVM_TEST_IOC_BASE)
		return uvm_test_ioctl(va_space, cmd, arg);
	return uvm_ioctl_dispatch(uvm_ioctls, ARRAY_SIZE(uvm_ioctls), 0,
				  va_space, cmd, arg);
}

static int uvm_open(struct inode *inode, struct file *filp)
{
	struct uvm_va_space *va_space;

	va_space = uvm_va_space_create(inode);
	if (IS_ERR(va_space))
		return PTR_ERR(va_space);
	filp->private_data = va_space;
	/* CPU mappings of managed ranges live in the VA space's own mapping. */
	filp->f_mapping = &va_space->mapping;
	return 0;
}

static int uvm_release(struct inode *inode, struct file *filp)
{
	uvm_va_space_destroy(filp->private_data);
	return 0;
}

/**
 * uvm_mmap() - create the allocation of a new VMA of /dev/uvm
 * @filp:	the file
 * @vma:	the new VMA
 *
 * The file offset selects the kind: UVM_MMAP_MANAGED (0) creates managed
 * memory (uvm_va_range.c), UVM_MMAP_DEVICE(g) device memory of GPU g
 * (uvm_device_range.c), UVM_MMAP_RESERVE an address reservation
 * (uvm_vmm.c).  Registered host memory that a stale registration left at
 * these addresses is unregistered first (the process unmapped it without
 * unregistering).
 *
 * Context: mmap_lock held for write.
 * Return: 0, -EINVAL for a private or executable mapping or an unknown
 * offset, -ENODEV for a bad GPU, -ENOMEM.
 */
static int uvm_mmap(struct file *filp, struct vm_area_struct *vma)
{
	struct uvm_va_space *va_space = filp->private_data;
	u64 offset = (u64)vma->vm_pgoff << PAGE_SHIFT;
	int ret;

	ret = uvm_va_space_check_mm(va_space);
	if (ret)
		return ret;
	if (!(vma->vm_flags & VM_SHARED) || (vma->vm_flags & VM_EXEC))
		return -EINVAL;
	if (offset != UVM_MMAP_MANAGED && offset != UVM_MMAP_RESERVE &&
	    (offset & ~(0xffULL << 32)) != UVM_MMAP_DEVICE(0))
		return -EINVAL;

	down_write(&va_space->lock);
	ret = uvm_va_range_mmap_clear(va_space, vma);
	if (ret)
		goto out_unlock;
	if (offset == UVM_MMAP_RESERVE)
		ret = uvm_vmm_range_mmap(va_space, vma);
	else if (offset != UVM_MMAP_MANAGED)
		ret = uvm_device_range_mmap(va_space, vma, (offset >> 32) & 0xff);
	else
		ret = uvm_va_range_mmap_managed(va_space, vma);
out_unlock:
	up_write(&va_space->lock);
	return ret;
}

static const struct file_operations uvm_fops = {
	.owner = THIS_MODULE,
	.open = uvm_open,
	.release = uvm_release,
	.mmap = uvm_mmap,
	/* 2 MiB-aligned addresses: whole VA blocks and vidmem chunks. */
	.get_unmapped_area = thp_get_unmapped_area,
	.unlocked_ioctl = uvm_unlocked_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

atomic_long_t uvm_pinned_pages = ATOMIC_LONG_INIT(0);

/* /sys/class/misc/uvm/pinned_pages: user pages the driver holds pinned now */
static ssize_t pinned_pages_show(struct device *dev, struct device_attribute *attr,
				 char *buf)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(&uvm_pinned_pages));
}
static DEVICE_ATTR_RO(pinned_pages);

static struct attribute *uvm_misc_attrs[] = {
	&dev_attr_pinned_pages.attr,
	NULL
};

static const struct attribute_group uvm_misc_group = {
	.attrs = uvm_misc_attrs,
};

/* The attribute groups of /dev/uvm's device: ours and the netlink family's */
static const struct attribute_group *uvm_misc_groups[] = {
	&uvm_misc_group,
	&uvm_nl_attr_group,
	NULL
};

static struct miscdevice uvm_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = UVM_DEVICE_NAME,
	.fops = &uvm_fops,
	.mode = 0666,
	.groups = uvm_misc_groups,
};

/**
 * uvm_params_check() - validate the module parameters and ioctl tables
 *
 * Return: 0 or -EINVAL.
 */
static int __init uvm_params_check(void)
{
	int ret;

	ret = uvm_fault_params_check();
	if (!ret)
		ret = uvm_ioctl_table_check(uvm_ioctls, ARRAY_SIZE(uvm_ioctls), 0);
	if (!ret)
		ret = uvm_test_ioctl_check();
	return ret;
}

/**
 * uvm_core_init() - slab caches, the page pool's shrinker, the workqueue
 *
 * Return: 0 or -ENOMEM.
 */
static int __init uvm_core_init(void)
{
	int ret = uvm_va_block_init();

	if (ret)
		return ret;
	ret = uvm_page_pool_module_init();
	if (ret)
		goto err_block_exit;
	ret = uvm_queue_module_init();
	if (ret)
		goto err_pool_exit;
	return 0;

err_pool_exit:
	uvm_page_pool_module_exit();
err_block_exit:
	uvm_va_block_exit();
	return ret;
}

static void uvm_core_exit(void)
{
	uvm_queue_module_exit();
	uvm_page_pool_module_exit();
	uvm_va_block_exit();
}

/**
 * uvm_gpus_init() - the GPUs (simulated), then their device-private memory
 *
 * Return: 0 or -errno.
 */
static int __init uvm_gpus_init(void)
{
	int ret = simgpu_init();

	if (ret)
		return ret;
	ret = uvm_hmm_init();
	if (ret)
		simgpu_exit();
	return ret;
}

static void uvm_gpus_exit(void)
{
	uvm_hmm_exit();
	simgpu_exit();
}

static int __init uvm_init(void)
{
	int ret;

	ret = uvm_params_check();
	if (!ret)
		ret = uvm_core_init();
	if (ret)
		return ret;
	ret = uvm_gpus_init();
	if (ret)
		goto err_core_exit;
	ret = uvm_nl_query_init();
	if (ret)
		goto err_gpus_exit;
	ret = misc_register(&uvm_misc);
	if (ret)
		goto err_nl_exit;
	ret = uvm_gpu_sysfs_add_all(uvm_misc.this_device);
	if (ret)
		goto err_misc_deregister;

	pr_info("loaded: %u GPU(s), API %u.%u, netlink family %s v%u\n",
		uvm_gpu_count, UVM_API_VERSION_MAJOR, UVM_API_VERSION_MINOR,
		UVM_GENL_NAME, UVM_GENL_VERSION);
	return 0;

err_misc_deregister:
	misc_deregister(&uvm_misc);
err_nl_exit:
	uvm_nl_query_exit();
err_gpus_exit:
	uvm_gpus_exit();
err_core_exit:
	uvm_core_exit();
	return ret;
}

static void __exit uvm_exit(void)
{
	uvm_gpu_sysfs_remove_all();
	misc_deregister(&uvm_misc);
	uvm_nl_query_exit();
	uvm_gpus_exit();
	uvm_core_exit();
	pr_info("unloaded\n");
}

module_init(uvm_init);
module_exit(uvm_exit);
MODULE_LICENSE("Dual MIT/GPL");
MODULE_DESCRIPTION("Open Unified Virtual Memory driver with simulated GPUs");
MODULE_VERSION(UVM_VERSION);
