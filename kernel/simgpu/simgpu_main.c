// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * simgpu_main.c - creation of the simulated GPUs, module parameters, ops.
 *
 * DOC: simulated GPU devices
 *
 * At module load simgpu_init() creates ``num_gpus`` simulated GPUs, each
 * with ``vidmem_mb`` MiB of vidmem, a fault buffer of
 * ``fault_buffer_entries`` entries, one copy engine and a warp workqueue, and
 * registers each with the core through uvm_gpu_register() and
 * &simgpu_gpu_ops.  The core assigns the GPU index; a table maps that index
 * back to the &struct simgpu so that VID addresses naming a peer GPU can be
 * resolved.  The parameters are validated before anything is created and are
 * read-only afterwards.
 *
 * simgpu_exit() tears down in three passes: drain every workqueue (warps,
 * copy engines; the core guarantees no VA space exists, so nothing new is
 * queued), then unregister every GPU, then free.  Draining first matters
 * because the last act of a stalling warp is uvm_gpu_fault_notify() on its
 * GPU; freeing only after every GPU is idle because a copy or an access of
 * one GPU may target the vidmem of another.
 *
 * Locking: simgpu_init() and simgpu_exit() run single-threaded.  The index
 * table is written at init (before the core can hand the GPU to any user)
 * and cleared at exit (after unregistering), read locklessly in between.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "uvm.h"
#include "simgpu_internal.h"

#define SIMGPU_NUM_GPUS_DEFAULT		2
#define SIMGPU_NUM_GPUS_MAX		UVM_MAX_GPUS

#define SIMGPU_VIDMEM_MB_DEFAULT	256
#define SIMGPU_VIDMEM_MB_MIN		4
#define SIMGPU_VIDMEM_MB_MAX		65536

#define SIMGPU_FAULT_ENTRIES_DEFAULT	1024
#define SIMGPU_FAULT_ENTRIES_MIN	64
#define SIMGPU_FAULT_ENTRIES_MAX	65536

#define SIMGPU_LAUNCH_TIMEOUT_DEFAULT	120
#define SIMGPU_LAUNCH_TIMEOUT_MAX	86400

/* Warps of one GPU running at once: per online CPU, bounded. */
#define SIMGPU_WARPS_PER_CPU		2
#define SIMGPU_WARPS_ACTIVE_MIN		4
#define SIMGPU_WARPS_ACTIVE_MAX		64

static unsigned int simgpu_num_gpus = SIMGPU_NUM_GPUS_DEFAULT;
module_param_named(num_gpus, simgpu_num_gpus, uint, 0444);
MODULE_PARM_DESC(num_gpus, "Number of simulated GPUs (default 2, 0..32)");

static unsigned int simgpu_vidmem_mb = SIMGPU_VIDMEM_MB_DEFAULT;
module_param_named(vidmem_mb, simgpu_vidmem_mb, uint, 0444);
MODULE_PARM_DESC(vidmem_mb,
		 "Vidmem per simulated GPU in MiB, even (default 256, 4..65536)");

static bool simgpu_vidmem_prealloc;
module_param_named(vidmem_prealloc, simgpu_vidmem_prealloc, bool, 0444);
MODULE_PARM_DESC(vidmem_prealloc,
		 "Back all vidmem with host pages at load instead of on first use (default N)");

static unsigned int simgpu_fault_entries = SIMGPU_FAULT_ENTRIES_DEFAULT;
module_param_named(fault_buffer_entries, simgpu_fault_entries, uint, 0444);
MODULE_PARM_DESC(fault_buffer_entries,
		 "Replayable fault buffer entries per GPU, a power of two (default 1024, 64..65536)");

unsigned int simgpu_launch_timeout_s = SIMGPU_LAUNCH_TIMEOUT_DEFAULT;
module_param_named(launch_timeout_s, simgpu_launch_timeout_s, uint, 0444);
MODULE_PARM_DESC(launch_timeout_s,
		 "Seconds after which a test launch is cancelled with -ETIMEDOUT, 0 for never (default 120, max 86400)");

bool simgpu_ce_inline = true;
module_param_named(ce_inline, simgpu_ce_inline, bool, 0444);
MODULE_PARM_DESC(ce_inline,
		 "Execute copy-engine work in the submitter's context when the engine is idle (default Y)");

static const struct uvm_gpu_ops simgpu_gpu_ops = {
	.vaspace_create	= simgpu_vaspace_create,
	.vaspace_destroy = simgpu_vaspace_destroy,
	.map		= simgpu_mmu_map,
	.unmap		= simgpu_mmu_unmap,
	.tlb_invalidate	= simgpu_mmu_tlb_invalidate,
	.fault_fetch	= simgpu_fault_fetch,
	.fault_replay	= simgpu_fault_replay,
	.fault_cancel	= simgpu_fault_cancel,
	.ce_submit	= simgpu_ce_submit,
	.ce_wait	= simgpu_ce_wait,
	.ce_done	= simgpu_ce_done,
	.vidmem_alloc	= simgpu_vidmem_alloc,
	.vidmem_free	= simgpu_vidmem_free,
	.sysmem_map	= simgpu_sysmem_map,
	.sysmem_unmap	= simgpu_sysmem_unmap,
	.access_counters_set = simgpu_access_counters_set,
	.access_counters_fetch = simgpu_access_counters_fetch,
};

/* GPUs in creation order, and by the core's GPU index. */
static struct simgpu *simgpu_devs[UVM_MAX_GPUS];
static u32 simgpu_nr_devs;
struct simgpu *simgpu_by_index[UVM_MAX_GPUS];

/**
 * simgpu_params_check() - validate the module parameters
 *
 * Context: module init.
 * Return: 0, or -EINVAL after logging which parameter is wrong.
 */
static int simgpu_params_check(void)
{
	if (simgpu_num_gpus > SIMGPU_NUM_GPUS_MAX) {
		pr_err(SIMGPU_PREFIX "num_gpus=%u: must be at most %u\n",
		       simgpu_num_gpus, SIMGPU_NUM_GPUS_MAX);
		return -EINVAL;
	}
	if (simgpu_vidmem_mb < SIMGPU_VIDMEM_MB_MIN ||
	    simgpu_vidmem_mb > SIMGPU_VIDMEM_MB_MAX ||
	    simgpu_vidmem_mb % (SIMGPU_CHUNK_SIZE >> 20)) {
		pr_err(SIMGPU_PREFIX "vidmem_mb=%u: must be even, %u..%u\n",
		       simgpu_vidmem_mb, SIMGPU_VIDMEM_MB_MIN,
		       SIMGPU_VIDMEM_MB_MAX);
		return -EINVAL;
	}
	if (simgpu_fault_entries < SIMGPU_FAULT_ENTRIES_MIN ||
	    simgpu_fault_entries > SIMGPU_FAULT_ENTRIES_MAX ||
	    !is_power_of_2(simgpu_fault_entries)) {
		pr_err(SIMGPU_PREFIX "fault_buffer_entries=%u: must be a power of two, %u..%u\n",
		       simgpu_fault_entries, SIMGPU_FAULT_ENTRIES_MIN,
		       SIMGPU_FAULT_ENTRIES_MAX);
		return -EINVAL;
	}
	if (simgpu_launch_timeout_s > SIMGPU_LAUNCH_TIMEOUT_MAX) {
		pr_err(SIMGPU_PREFIX "launch_timeout_s=%u: must be at most %u\n",
		       simgpu_launch_timeout_s, SIMGPU_LAUNCH_TIMEOUT_MAX);
		return -EINVAL;
	}
	return 0;
}

/**
 * simgpu_units_init() - create the units of a GPU
 * @sg: the GPU, zeroed except @sg->id
 *
 * Context: process, may sleep.
 * Return: 0 or -errno; on failure nothing is left allocated.
 */
static int simgpu_units_init(struct simgpu *sg)
{
	unsigned int max_active;
	int ret;

	ret = simgpu_vidmem_init(sg, (u64)simgpu_vidmem_mb << 20,
				 simgpu_vidmem_prealloc);
	if (ret)
		return ret;
	ret = simgpu_fault_buffer_init(sg, simgpu_fault_entries);
	if (ret)
		goto err_fini_vidmem;
	ret = simgpu_ce_init(sg);
	if (ret)
		goto err_fini_fault_buffer;

	max_active = clamp_t(unsigned int,
			     num_online_cpus() * SIMGPU_WARPS_PER_CPU,
			     SIMGPU_WARPS_ACTIVE_MIN, SIMGPU_WARPS_ACTIVE_MAX);
	sg->warp_wq = alloc_workqueue("simgpu%u_warps", WQ_UNBOUND, max_active,
				      sg->id);
	if (!sg->warp_wq) {
		ret = -ENOMEM;
		goto err_fini_ce;
	}
	return 0;

err_fini_ce:
	simgpu_ce_fini(sg);
err_fini_fault_buffer:
	simgpu_fault_buffer_fini(sg);
err_fini_vidmem:
	simgpu_vidmem_fini(sg);
	return ret;
}

/**
 * simgpu_quiesce() - wait until a GPU executes nothing
 * @sg: the GPU; no launch exists and the core submits no copy anymore
 *
 * Destroys the warp workqueue and the copy engine (both drain first).
 *
 * Context: process, may sleep.
 */
static void simgpu_quiesce(struct simgpu *sg)
{
	destroy_workqueue(sg->warp_wq);
	simgpu_ce_fini(sg);
}

/**
 * simgpu_units_fini() - undo simgpu_units_init()
 * @sg: the GPU, not registered
 *
 * Context: process, may sleep.
 */
static void simgpu_units_fini(struct simgpu *sg)
{
	simgpu_quiesce(sg);
	simgpu_fault_buffer_fini(sg);
	simgpu_vidmem_fini(sg);
}

/**
 * simgpu_props_fill() - describe a GPU to the core
 * @sg: the GPU
 * @props: filled in
 *
 * The UUID is stable across loads: a fixed RFC 9562 version 8 UUID whose
 * last byte is the creation order.
 *
 * Context: any.
 */
static void simgpu_props_fill(struct simgpu *sg, struct uvm_gpu_props *props)
{
	static const u8 uuid_base[16] = {
		's', 'i', 'm', 'g', 'p', 'u', 0x80, 0x00,
		0x80, 'u', 'v', 'm', 0x00, 0x00, 0x00, 0x00,
	};

	snprintf(sg->name, sizeof(sg->name), "UVM Simulated GPU");
	memset(props, 0, sizeof(*props));
	props->name = sg->name;
	memcpy(props->uuid, uuid_base, sizeof(props->uuid));
	props->uuid[15] = sg->id;
	props->vidmem_size = sg->vidmem.size;
	props->fault_buffer_entries = sg->fault.size;
	props->copy_engines = 1;
	props->page_sizes = SZ_4K | SZ_64K | SZ_2M;
	props->simulated = true;
}

/**
 * simgpu_create() - create and register simulated GPU number @id
 * @id: creation order
 *
 * Context: module init.
 * Return: 0 or -errno; on failure GPU @id is not left behind.
 */
static int simgpu_create(u32 id)
{
	struct uvm_gpu_props props;
	struct uvm_gpu *gpu;
	struct simgpu *sg;
	int ret;

	sg = kzalloc(sizeof(*sg), GFP_KERNEL);
	if (!sg)
		return -ENOMEM;
	sg->id = id;
	spin_lock_init(&sg->access.lock);
	ret = simgpu_units_init(sg);
	if (ret)
		goto err_free_sg;

	simgpu_props_fill(sg, &props);
	gpu = uvm_gpu_register(&simgpu_gpu_ops, sg, &props);
	if (IS_ERR(gpu)) {
		ret = PTR_ERR(gpu);
		goto err_fini_units;
	}
	sg->gpu = gpu;
	sg->index = uvm_gpu_index(gpu);
	if (WARN_ON(sg->index >= UVM_MAX_GPUS || simgpu_by_index[sg->index])) {
		ret = -EINVAL;
		goto err_unregister;
	}
	WRITE_ONCE(simgpu_by_index[sg->index], sg);
	simgpu_devs[simgpu_nr_devs++] = sg;
	return 0;

err_unregister:
	uvm_gpu_unregister(gpu);
err_fini_units:
	simgpu_units_fini(sg);
err_free_sg:
	kfree(sg);
	return ret;
}

/**
 * simgpu_destroy_all() - drain, unregister and free every created GPU
 *
 * Context: module init (error path) or exit.
 */
static void simgpu_destroy_all(void)
{
	u32 i;

	/* First drain: a warp's last act may be a fault notification. */
	for (i = 0; i < simgpu_nr_devs; i++)
		simgpu_quiesce(simgpu_devs[i]);
	for (i = simgpu_nr_devs; i-- > 0;) {
		uvm_gpu_unregister(simgpu_devs[i]->gpu);
		WRITE_ONCE(simgpu_by_index[simgpu_devs[i]->index], NULL);
	}
	for (i = 0; i < simgpu_nr_devs; i++) {
		simgpu_fault_buffer_fini(simgpu_devs[i]);
		simgpu_vidmem_fini(simgpu_devs[i]);
		kfree(simgpu_devs[i]);
		simgpu_devs[i] = NULL;
	}
	simgpu_nr_devs = 0;
}

/**
 * simgpu_init() - create and register the simulated GPUs
 *
 * Context: module init, process context.
 * Return: 0, -EINVAL for a bad module parameter, or -errno of the first GPU
 * that could not be created (no GPU is left registered then).
 */
int simgpu_init(void)
{
	int ret;
	u32 i;

	ret = simgpu_params_check();
	if (ret)
		return ret;
	ret = simgpu_pt_cache_init();
	if (ret)
		return ret;

	for (i = 0; i < simgpu_num_gpus; i++) {
		ret = simgpu_create(i);
		if (ret)
			goto err_destroy_gpus;
	}
	pr_info(SIMGPU_PREFIX "%u simulated GPU(s), %u MiB vidmem and %u fault entries each\n",
		simgpu_num_gpus, simgpu_vidmem_mb, simgpu_fault_entries);
	return 0;

err_destroy_gpus:
	pr_err(SIMGPU_PREFIX "creating GPU %u failed: %d\n", i, ret);
	simgpu_destroy_all();
	simgpu_pt_cache_exit();
	return ret;
}

/**
 * simgpu_exit() - unregister and free every simulated GPU
 *
 * Context: module exit, process context; the core guarantees that no VA
 * space (hence no launch, mapping or fault servicing) exists anymore.
 */
void simgpu_exit(void)
{
	simgpu_destroy_all();
	simgpu_pt_cache_exit();
}

/**
 * simgpu_stats_get() - counters of a simulated GPU
 * @gpu: a GPU registered by simgpu_init()
 * @stats: filled in
 *
 * The counters are read one by one, not as an atomic snapshot.
 *
 * Context: any process context.
 */
void simgpu_stats_get(struct uvm_gpu *gpu, struct simgpu_stats *stats)
{
	struct simgpu *sg = uvm_gpu_hw(gpu);
	struct simgpu_fault_buffer *fb = &sg->fault;

	memset(stats, 0, sizeof(*stats));
	spin_lock(&fb->lock);
	stats->faults_written = fb->written;
	stats->faults_dropped = fb->dropped;
	stats->replays = fb->replays;
	stats->cancels = fb->cancels;
	stats->warps_cancelled = fb->warps_cancelled;
	spin_unlock(&fb->lock);

	stats->tlb_invalidates = atomic64_read(&sg->tlb_invalidates);
	stats->ce_ops = atomic64_read(&sg->ce.ops);
	stats->ce_bytes_copied = atomic64_read(&sg->ce.bytes_copied);
	stats->ce_bytes_set = atomic64_read(&sg->ce.bytes_set);
	stats->ce_inline = atomic64_read(&sg->ce.inline_count);
	stats->launches = atomic64_read(&sg->launches);
	stats->vidmem_size = sg->vidmem.size;
	spin_lock(&sg->vidmem.lock);
	stats->vidmem_used = (u64)sg->vidmem.used * SIMGPU_CHUNK_SIZE;
	spin_unlock(&sg->vidmem.lock);
	stats->vidmem_backed = atomic64_read(&sg->vidmem.backed_pages) << PAGE_SHIFT;
}
