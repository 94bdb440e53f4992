// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * GPU registration, the GPU table and the GPUs' sysfs view.
 *
 * DOC: GPUs
 *
 * A backend registers each GPU it drives with uvm_gpu_register()
 * (uvm_bringup.c) at module load, before /dev/uvm exists, and unregisters
 * it at module exit, after /dev/uvm is gone and no VA space remains.  The
 * GPU table uvm_gpus[] is therefore written only while nothing else runs
 * and is read without a lock.
 *
 * Each GPU appears in sysfs as a device, /sys/class/misc/uvm/gpuN (a child
 * of /dev/uvm's device: udev sees it), with its properties and its
 * counters (faults, duplicates, batches, replays, fatal faults, overflows,
 * pages copied in and out, vidmem in use, batches serviced by several
 * workers and the groups helpers serviced); every file is described in
 * Documentation/ABI/testing/sysfs-class-misc-uvm.
 *
 * Locking: none of its own; the counters are atomics, uvm_pmm has its
 * own leaf lock, instances is an xarray.
 */
#include <linux/device.h>
#include <linux/err.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "uvm_gpu.h"

struct uvm_gpu *uvm_gpus[UVM_MAX_GPUS];
u32 uvm_gpu_count;

/**
 * uvm_gpu_alloc() - a new GPU, not yet in the table
 * @ops:	backend operations, must stay valid until the GPU is freed
 * @hw:		backend private data, returned by uvm_gpu_hw()
 * @props:	properties; copied
 *
 * Context: module init, process context.
 * Return: the GPU, or ERR_PTR(-ENOSPC) when the table is full,
 * ERR_PTR(-EINVAL) for bad properties, ERR_PTR(-ENOMEM).
 */
struct uvm_gpu *uvm_gpu_alloc(const struct uvm_gpu_ops *ops, void *hw,
			      const struct uvm_gpu_props *props)
{
	struct uvm_gpu *gpu;

	if (uvm_gpu_count >= UVM_MAX_GPUS)
		return ERR_PTR(-ENOSPC);
	if (!props->vidmem_size || !IS_ALIGNED(props->vidmem_size, UVM_VA_BLOCK_SIZE))
		return ERR_PTR(-EINVAL);

	gpu = kzalloc(sizeof(*gpu), GFP_KERNEL);
	if (!gpu)
		return ERR_PTR(-ENOMEM);

	gpu->index = uvm_gpu_count;
	gpu->ops = ops;
	gpu->hw = hw;
	gpu->props = *props;
	gpu->props.page_sizes |= PAGE_SIZE;
	strscpy(gpu->name, props->name ? props->name : "GPU", sizeof(gpu->name));
	gpu->props.name = gpu->name;
	uvm_pmm_init(&gpu->pmm, props->vidmem_size >> UVM_VA_BLOCK_SHIFT);
	xa_init_flags(&gpu->instances, XA_FLAGS_ALLOC1);
	return gpu;
}

/**
 * uvm_gpu_add() - enter a GPU from uvm_gpu_alloc() in the GPU table
 * @gpu:	the GPU; its index is the next free slot
 */
void uvm_gpu_add(struct uvm_gpu *gpu)
{
	uvm_gpus[uvm_gpu_count++] = gpu;
}

/**
 * uvm_gpu_remove() - take the GPU added last out of the table and free it
 * @gpu:	the GPU
 *
 * GPUs are removed in reverse order of registration, at module exit, when
 * no VA space exists any more.
 */
void uvm_gpu_remove(struct uvm_gpu *gpu)
{
	WARN_ON(uvm_gpus[uvm_gpu_count - 1] != gpu);
	uvm_gpus[--uvm_gpu_count] = NULL;
	uvm_gpu_free(gpu);
}

/**
 * uvm_gpu_free() - free a GPU that is not in the table
 * @gpu:	the GPU
 */
void uvm_gpu_free(struct uvm_gpu *gpu)
{
	WARN_ON(!xa_empty(&gpu->instances));
	WARN_ON(gpu->pmm.used_chunks);
	xa_destroy(&gpu->instances);
	kfree(gpu);
}

/**
 * uvm_gpu_hw() - the backend's private data of a GPU
 * @gpu:	the GPU
 *
 * Return: the @hw passed to uvm_gpu_register().
 */
void *uvm_gpu_hw(struct uvm_gpu *gpu)
{
	return gpu->hw;
}

/**
 * uvm_gpu_index() - a GPU's index
 * @gpu:	the GPU
 *
 * Return: 0-based index; the processor id is index + 1.
 */
u32 uvm_gpu_index(struct uvm_gpu *gpu)
{
	return gpu->index;
}

/* sysfs */

/**
 * struct uvm_gpu_dev - the sysfs device of a GPU
 * @dev:	/sys/class/misc/uvm/gpuN, a child of /dev/uvm's device, so udev
 *		sees it come and go (uevents)
 * @gpu:	the GPU; outlives the device (removed first at exit)
 *
 * Separate from struct uvm_gpu so that the device's lifetime rules never
 * free the GPU.
 */
struct uvm_gpu_dev {
	struct device dev;
	struct uvm_gpu *gpu;
};

static inline struct uvm_gpu *to_uvm_gpu(struct device *dev)
{
	return container_of(dev, struct uvm_gpu_dev, dev)->gpu;
}

static ssize_t index_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	return sysfs_emit(buf, "%u\n", to_uvm_gpu(dev)->index);
}

static ssize_t name_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%s\n", to_uvm_gpu(dev)->name);
}

static ssize_t uuid_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%pUb\n", to_uvm_gpu(dev)->props.uuid);
}

static ssize_t vidmem_size_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n", to_uvm_gpu(dev)->props.vidmem_size);
}

static ssize_t vidmem_used_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n", uvm_pmm_used_bytes(to_uvm_gpu(dev)));
}

static ssize_t fault_buffer_entries_show(struct device *dev,
					 struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n",
			  to_uvm_gpu(dev)->props.fault_buffer_entries);
}

static ssize_t copy_engines_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", to_uvm_gpu(dev)->props.copy_engines);
}

static ssize_t simulated_show(struct device *dev, struct device_attribute *attr,
			      char *buf)
{
	return sysfs_emit(buf, "%d\n", to_uvm_gpu(dev)->props.simulated ? 1 : 0);
}

static DEVICE_ATTR_RO(index);
static DEVICE_ATTR_RO(name);
static DEVICE_ATTR_RO(uuid);
static DEVICE_ATTR_RO(vidmem_size);
static DEVICE_ATTR_RO(vidmem_used);
static DEVICE_ATTR_RO(fault_buffer_entries);
static DEVICE_ATTR_RO(copy_engines);
static DEVICE_ATTR_RO(simulated);

/**
 * struct uvm_gpu_counter_attr - a sysfs file showing one GPU counter
 * @attr:	the attribute
 * @counter:	enum uvm_gpu_counter
 */
struct uvm_gpu_counter_attr {
	struct device_attribute attr;
	enum uvm_gpu_counter counter;
};

static ssize_t uvm_gpu_counter_show(struct device *dev,
				    struct device_attribute *attr, char *buf)
{
	struct uvm_gpu_counter_attr *ca =
		container_of(attr, struct uvm_gpu_counter_attr, attr);

	return sysfs_emit(buf, "%lld\n",
			  atomic64_read(&to_uvm_gpu(dev)->counters[ca->counter]));
}

#define UVM_GPU_COUNTER_ATTR(_name, _counter)				\
	static struct uvm_gpu_counter_attr uvm_gpu_attr_##_name = {	\
		.attr = __ATTR(_name, 0444, uvm_gpu_counter_show, NULL),	\
		.counter = _counter,					\
	}

UVM_GPU_COUNTER_ATTR(faults, UVM_GPU_FAULTS);
UVM_GPU_COUNTER_ATTR(faults_duplicate, UVM_GPU_FAULTS_DUP);
UVM_GPU_COUNTER_ATTR(fault_batches, UVM_GPU_FAULT_BATCHES);
UVM_GPU_COUNTER_ATTR(replays, UVM_GPU_REPLAYS);
UVM_GPU_COUNTER_ATTR(fatal_faults, UVM_GPU_FATAL_FAULTS);
UVM_GPU_COUNTER_ATTR(fault_overflows, UVM_GPU_FAULT_OVERFLOWS);
UVM_GPU_COUNTER_ATTR(pages_in, UVM_GPU_PAGES_IN);
UVM_GPU_COUNTER_ATTR(pages_out, UVM_GPU_PAGES_OUT);
UVM_GPU_COUNTER_ATTR(evictions, UVM_GPU_EVICTIONS);
UVM_GPU_COUNTER_ATTR(faults_flushed, UVM_GPU_FAULTS_FLUSHED);
UVM_GPU_COUNTER_ATTR(fault_fetch_ns, UVM_GPU_FETCH_NS);
UVM_GPU_COUNTER_ATTR(fault_coalesce_ns, UVM_GPU_COALESCE_NS);
UVM_GPU_COUNTER_ATTR(fault_service_ns, UVM_GPU_SERVICE_NS);
UVM_GPU_COUNTER_ATTR(fault_replay_ns, UVM_GPU_REPLAY_NS);
UVM_GPU_COUNTER_ATTR(access_notifications, UVM_GPU_ACCESS_NOTIFICATIONS);
UVM_GPU_COUNTER_ATTR(maps_2m, UVM_GPU_MAPS_2M);
UVM_GPU_COUNTER_ATTR(maps_64k, UVM_GPU_MAPS_64K);
UVM_GPU_COUNTER_ATTR(pte_splits, UVM_GPU_SPLITS);
UVM_GPU_COUNTER_ATTR(fault_batches_parallel, UVM_GPU_FAULT_BATCHES_PARALLEL);
UVM_GPU_COUNTER_ATTR(fault_groups_helped, UVM_GPU_FAULT_GROUPS_HELPED);
UVM_GPU_COUNTER_ATTR(fault_groups_deferred, UVM_GPU_FAULT_GROUPS_DEFERRED);

static struct attribute *uvm_gpu_attrs[] = {
	&dev_attr_index.attr,
	&dev_attr_name.attr,
	&dev_attr_uuid.attr,
	&dev_attr_vidmem_size.attr,
	&dev_attr_vidmem_used.attr,
	&dev_attr_fault_buffer_entries.attr,
	&dev_attr_copy_engines.attr,
	&dev_attr_simulated.attr,
	&uvm_gpu_attr_faults.attr.attr,
	&uvm_gpu_attr_faults_duplicate.attr.attr,
	&uvm_gpu_attr_fault_batches.attr.attr,
	&uvm_gpu_attr_replays.attr.attr,
	&uvm_gpu_attr_fatal_faults.attr.attr,
	&uvm_gpu_attr_fault_overflows.attr.attr,
	&uvm_gpu_attr_pages_in.attr.attr,
	&uvm_gpu_attr_pages_out.attr.attr,
	&uvm_gpu_attr_evictions.attr.attr,
	&uvm_gpu_attr_faults_flushed.attr.attr,
	&uvm_gpu_attr_fault_fetch_ns.attr.attr,
	&uvm_gpu_attr_fault_coalesce_ns.attr.attr,
	&uvm_gpu_attr_fault_service_ns.attr.attr,
	&uvm_gpu_attr_fault_replay_ns.attr.attr,
	&uvm_gpu_attr_access_notifications.attr.attr,
	&uvm_gpu_attr_maps_2m.attr.attr,
	&uvm_gpu_attr_maps_64k.attr.attr,
	&uvm_gpu_attr_pte_splits.attr.attr,
	&uvm_gpu_attr_fault_batches_parallel.attr.attr,
	&uvm_gpu_attr_fault_groups_helped.attr.attr,
	&uvm_gpu_attr_fault_groups_deferred.attr.attr,
	NULL,
};
ATTRIBUTE_GROUPS(uvm_gpu);

static void uvm_gpu_dev_release(struct device *dev)
{
	kfree(container_of(dev, struct uvm_gpu_dev, dev));
}

static const struct device_type uvm_gpu_dev_type = {
	.name = "uvm_gpu",
	.groups = uvm_gpu_groups,
	.release = uvm_gpu_dev_release,
};

/**
 * uvm_gpu_sysfs_add_all() - show every registered GPU under @parent
 * @parent:	/dev/uvm's device
 *
 * Each GPU becomes a device gpuN below @parent, with the attributes
 * documented in Documentation/ABI/testing/sysfs-class-misc-uvm.
 *
 * Return: 0 or -errno; on failure nothing is left added.
 */
int uvm_gpu_sysfs_add_all(struct device *parent)
{
	struct uvm_gpu_dev *gd;
	u32 i;
	int ret;

	for (i = 0; i < uvm_gpu_count; i++) {
		gd = kzalloc(sizeof(*gd), GFP_KERNEL);
		if (!gd) {
			ret = -ENOMEM;
			goto err_remove_added;
		}
		gd->gpu = uvm_gpus[i];
		device_initialize(&gd->dev);
		gd->dev.parent = parent;
		gd->dev.type = &uvm_gpu_dev_type;
		ret = dev_set_name(&gd->dev, "gpu%u", i);
		if (!ret)
			ret = device_add(&gd->dev);
		if (ret) {
			put_device(&gd->dev);
			goto err_remove_added;
		}
		uvm_gpus[i]->dev = &gd->dev;
	}
	return 0;

err_remove_added:
	uvm_gpu_sysfs_remove_all();
	return ret;
}

/**
 * uvm_gpu_sysfs_remove_all() - remove the GPUs' sysfs devices
 */
void uvm_gpu_sysfs_remove_all(void)
{
	u32 i;

	for (i = 0; i < uvm_gpu_count; i++) {
		if (!uvm_gpus[i]->dev)
			continue;
		device_unregister(uvm_gpus[i]->dev);
		uvm_gpus[i]->dev = NULL;
	}
}
