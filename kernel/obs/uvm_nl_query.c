// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The netlink family's queries: GET_GPUS, GET_VA_SPACES, GET_RESIDENCY.
 *
 * DOC: Netlink queries
 *
 * Three dump commands answer queries: GET_GPUS (every GPU, its counters,
 * the family's event counters), GET_VA_SPACES (every VA space the reader
 * may see, its owner, counters and vidmem per GPU) and GET_RESIDENCY (the
 * residency of a range of one process's managed memory,
 * UVM_NL_RESIDENCY_CHUNK pages per message, computed by
 * uvm_va_space_residency() as the test ioctl's is).  Who sees a VA space is
 * the family's rule (uvm_nl_reader_sees(), uvm_nl.c).  The queries sit at
 * the top of the driver, beside the ioctls; the family and its events
 * (uvm_nl.c) sit below everything that sends events.
 *
 * Locking: the queries run without genl_mutex (parallel_ops).  GET_VA_SPACES
 * holds uvm_va_space_list_lock while it reads atomic counters and constant
 * fields; GET_RESIDENCY takes a VA space reference under that lock, drops
 * the lock, then reads residency under the VA space lock and block locks
 * (uvm_va_space_residency()).
 */
#include <linux/pid.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <net/genetlink.h>

#include "uvm_compat.h"
#include "uvm_gpu.h"
#include "uvm_netlink.h"
#include "uvm_nl.h"
#include "uvm_nl_query.h"
#include "uvm_pmm.h"
#include "uvm_test.h"
#include "uvm_va_space.h"

static_assert(sizeof(struct uvm_nl_page_state) == sizeof(struct uvm_test_page_state));
static_assert(offsetof(struct uvm_nl_page_state, mapped_atomic) ==
	      offsetof(struct uvm_test_page_state, mapped_atomic));

/**
 * uvm_nl_put_va_space() - the attributes naming a VA space in a reply
 * @skb:	the reply
 * @req:	the request
 * @va_space:	the VA space
 *
 * Return: 0 or -EMSGSIZE.
 */
static int uvm_nl_put_va_space(struct sk_buff *skb, const struct sk_buff *req,
			       const struct uvm_va_space *va_space)
{
	if (nla_put_u64_64bit(skb, UVM_NL_A_VA_SPACE, va_space->id, UVM_NL_A_PAD) ||
	    nla_put_u32(skb, UVM_NL_A_PID, uvm_nl_pid(va_space)) ||
	    nla_put_string(skb, UVM_NL_A_COMM, va_space->comm) ||
	    nla_put_u32(skb, UVM_NL_A_UID, uvm_nl_uid(req, va_space)))
		return -EMSGSIZE;
	return 0;
}

/* GET_GPUS */

/**
 * uvm_nl_fill_gpu() - one GPU's message
 * @skb:	the dump's buffer
 * @cb:		the dump
 * @gpu:	the GPU
 *
 * Return: 0 or -EMSGSIZE (nothing of the message is left in @skb).
 */
static int uvm_nl_fill_gpu(struct sk_buff *skb, struct netlink_callback *cb,
			   struct uvm_gpu *gpu)
{
	void *hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
				&uvm_nl_family, NLM_F_MULTI, UVM_NL_CMD_GET_GPUS);

	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, UVM_NL_A_GPU_INDEX, gpu->index) ||
	    nla_put_u32(skb, UVM_NL_A_NUM_GPUS, uvm_gpu_count) ||
	    nla_put_string(skb, UVM_NL_A_GPU_NAME, gpu->name) ||
	    nla_put(skb, UVM_NL_A_GPU_UUID, 16, gpu->props.uuid) ||
	    nla_put_u64_64bit(skb, UVM_NL_A_VIDMEM_SIZE, gpu->props.vidmem_size,
			      UVM_NL_A_PAD) ||
	    nla_put_u64_64bit(skb, UVM_NL_A_VIDMEM_USED, uvm_pmm_used_bytes(gpu),
			      UVM_NL_A_PAD) ||
	    nla_put_u32(skb, UVM_NL_A_PAGE_SIZE, PAGE_SIZE) ||
	    uvm_nl_put_u64s(skb, UVM_NL_A_GPU_COUNTERS, gpu->counters,
			    UVM_GPU_COUNTER_COUNT) ||
	    nla_put_u64_64bit(skb, UVM_NL_A_EVENTS_SENT,
			      atomic64_read(&uvm_nl_sent), UVM_NL_A_PAD) ||
	    nla_put_u64_64bit(skb, UVM_NL_A_EVENTS_DROPPED,
			      atomic64_read(&uvm_nl_dropped), UVM_NL_A_PAD) ||
	    (UVM_NL_EVENTS_ACCESS &&
	     nla_put_u32(skb, UVM_NL_A_EVENT_ACCESS, UVM_NL_EVENTS_ACCESS))) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/**
 * uvm_nl_get_gpus() - dump GET_GPUS: one message per GPU
 * @skb:	the buffer to fill
 * @cb:		the dump; args[0] is the next GPU index
 *
 * A request with UVM_NL_A_GPU_INDEX gets that GPU only (none if there is
 * no such GPU).
 *
 * Return: the buffer's length (0 ends the dump).
 */
static int uvm_nl_get_gpus(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nlattr **attrs = uvm_genl_dump_attrs(cb);
	u32 i = cb->args[0], only = U32_MAX;

	if (attrs[UVM_NL_A_GPU_INDEX])
		only = nla_get_u32(attrs[UVM_NL_A_GPU_INDEX]);
	for (; i < uvm_gpu_count; i++) {
		if (only != U32_MAX && i != only)
			continue;
		if (uvm_nl_fill_gpu(skb, cb, uvm_gpus[i]))
			break;
	}
	cb->args[0] = i;
	return skb->len;
}

/* GET_VA_SPACES */

/**
 * uvm_nl_fill_va_space() - one VA space's message
 * @skb:	the dump's buffer
 * @cb:		the dump
 * @va_space:	the VA space; uvm_va_space_list_lock held
 *
 * Return: 0 or -EMSGSIZE (nothing of the message is left in @skb).
 */
static int uvm_nl_fill_va_space(struct sk_buff *skb, struct netlink_callback *cb,
				struct uvm_va_space *va_space)
{
	void *hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
				&uvm_nl_family, NLM_F_MULTI,
				UVM_NL_CMD_GET_VA_SPACES);

	if (!hdr)
		return -EMSGSIZE;
	if (uvm_nl_put_va_space(skb, cb->skb, va_space) ||
	    nla_put_u32(skb, UVM_NL_A_NUM_GPUS, uvm_gpu_count) ||
	    uvm_nl_put_u64s(skb, UVM_NL_A_COUNTERS, va_space->counters,
			    UVM_COUNTER_COUNT) ||
	    uvm_nl_put_u64s(skb, UVM_NL_A_VIDMEM, va_space->vidmem, uvm_gpu_count)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/**
 * uvm_nl_get_va_spaces() - dump GET_VA_SPACES: one message per VA space
 * @skb:	the buffer to fill
 * @cb:		the dump; args[0] is the id of the last VA space sent
 *
 * VA spaces the reader may not see are left out; a request with
 * UVM_NL_A_PID gets that process's only (pid in the reader's namespace).
 *
 * Return: the buffer's length (0 ends the dump).
 */
static int uvm_nl_get_va_spaces(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nlattr **attrs = uvm_genl_dump_attrs(cb);
	struct uvm_va_space *va_space;
	struct pid *only = NULL;

	if (attrs[UVM_NL_A_PID]) {
		only = find_get_pid(nla_get_u32(attrs[UVM_NL_A_PID]));
		if (!only)
			return 0;
	}
	mutex_lock(&uvm_va_space_list_lock);
	list_for_each_entry(va_space, &uvm_va_space_list, node) {
		if (va_space->id <= cb->args[0] ||
		    (only && va_space->pid != only) ||
		    !uvm_nl_reader_sees(cb->skb, va_space))
			continue;
		if (uvm_nl_fill_va_space(skb, cb, va_space))
			break;
		cb->args[0] = va_space->id;
	}
	mutex_unlock(&uvm_va_space_list_lock);
	put_pid(only);
	return skb->len;
}

/* GET_RESIDENCY */

/**
 * uvm_nl_va_space_get() - find a VA space by id or by its owner's pid
 * @id:		the id, or 0 to look for @pid
 * @pid:	the owner (the first of its VA spaces), when @id is 0
 *
 * Return: the VA space with a reference (uvm_va_space_put()), or NULL.
 */
static struct uvm_va_space *uvm_nl_va_space_get(u64 id, struct pid *pid)
{
	struct uvm_va_space *va_space, *found = NULL;

	mutex_lock(&uvm_va_space_list_lock);
	list_for_each_entry(va_space, &uvm_va_space_list, node) {
		if (id ? va_space->id != id : va_space->pid != pid)
			continue;
		if (kref_get_unless_zero(&va_space->kref))
			found = va_space;
		break;
	}
	mutex_unlock(&uvm_va_space_list_lock);
	return found;
}

/**
 * uvm_nl_residency_start() - validate a GET_RESIDENCY request
 * @cb:		the dump; on success args[0] = 0 (next page), args[1] = the VA
 *		space's id, args[2] = first address, args[3] = pages
 *
 * Context: the requester's process, before the first dump call; an error
 * here is the request's answer.
 * Return: 0, -EINVAL for a bad or incomplete request, -ESRCH when the
 * process has no VA space, -EPERM when the reader may not see it.
 */
static int uvm_nl_residency_start(struct netlink_callback *cb)
{
	struct nlattr **attrs = uvm_genl_dump_attrs(cb);
	struct uvm_va_space *va_space;
	struct pid *pid = NULL;
	u64 addr, len, id = 0;
	int ret = 0;

	if (!attrs[UVM_NL_A_ADDRESS] || !attrs[UVM_NL_A_LENGTH] ||
	    (!attrs[UVM_NL_A_PID] && !attrs[UVM_NL_A_VA_SPACE]))
		return -EINVAL;
	addr = nla_get_u64(attrs[UVM_NL_A_ADDRESS]);
	len = nla_get_u64(attrs[UVM_NL_A_LENGTH]);
	if (!PAGE_ALIGNED(addr) || !PAGE_ALIGNED(len) || addr + len < addr ||
	    len >> PAGE_SHIFT > UVM_NL_RESIDENCY_MAX_PAGES)
		return -EINVAL;

	if (attrs[UVM_NL_A_VA_SPACE]) {
		id = nla_get_u64(attrs[UVM_NL_A_VA_SPACE]);
	} else {
		pid = find_get_pid(nla_get_u32(attrs[UVM_NL_A_PID]));
		if (!pid)
			return -ESRCH;
	}
	va_space = uvm_nl_va_space_get(id, pid);
	put_pid(pid);
	if (!va_space)
		return -ESRCH;
	if (attrs[UVM_NL_A_PID] && attrs[UVM_NL_A_VA_SPACE] &&
	    uvm_nl_pid(va_space) != nla_get_u32(attrs[UVM_NL_A_PID]))
		ret = -ESRCH;
	else if (!uvm_nl_reader_sees(cb->skb, va_space))
		ret = -EPERM;
	cb->args[0] = 0;
	cb->args[1] = va_space->id;
	cb->args[2] = addr;
	cb->args[3] = len >> PAGE_SHIFT;
	uvm_va_space_put(va_space);
	return ret;
}

/**
 * uvm_nl_fill_residency() - one message of UVM_NL_RESIDENCY_CHUNK pages
 * @skb:	the dump's buffer
 * @cb:		the dump
 * @va_space:	the VA space
 * @addr:	first page
 * @states:	the pages' states
 * @n:		pages
 *
 * Return: 0 or -EMSGSIZE (nothing of the message is left in @skb).
 */
static int uvm_nl_fill_residency(struct sk_buff *skb, struct netlink_callback *cb,
				 struct uvm_va_space *va_space, u64 addr,
				 const struct uvm_test_page_state *states, u32 n)
{
	void *hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
				&uvm_nl_family, NLM_F_MULTI,
				UVM_NL_CMD_GET_RESIDENCY);

	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u64_64bit(skb, UVM_NL_A_VA_SPACE, va_space->id, UVM_NL_A_PAD) ||
	    nla_put_u32(skb, UVM_NL_A_PID, uvm_nl_pid(va_space)) ||
	    nla_put_u64_64bit(skb, UVM_NL_A_ADDRESS, addr, UVM_NL_A_PAD) ||
	    nla_put_u32(skb, UVM_NL_A_PAGE_SIZE, PAGE_SIZE) ||
	    nla_put_u32(skb, UVM_NL_A_NUM_GPUS, uvm_gpu_count) ||
	    nla_put(skb, UVM_NL_A_PAGES, n * sizeof(*states), states)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/**
 * uvm_nl_get_residency() - dump GET_RESIDENCY, chunk after chunk
 * @skb:	the buffer to fill
 * @cb:		the dump (see uvm_nl_residency_start())
 *
 * The VA space is looked up again by id for each call: the dump holds no
 * reference between calls, and ends early when the VA space is gone.
 *
 * Return: the buffer's length (0 ends the dump) or -errno.
 */
static int uvm_nl_get_residency(struct sk_buff *skb, struct netlink_callback *cb)
{
	u64 next = cb->args[0], total = cb->args[3], addr;
	struct uvm_test_page_state *states;
	struct uvm_va_space *va_space;
	int ret = 0;
	u32 n;

	if (next >= total)
		return 0;
	va_space = uvm_nl_va_space_get(cb->args[1], NULL);
	if (!va_space)
		return 0;
	/* the owner may have hidden itself since the request (setuid, prctl) */
	if (!uvm_nl_reader_sees(cb->skb, va_space)) {
		ret = -EPERM;
		goto out_put;
	}
	states = kmalloc_array(UVM_NL_RESIDENCY_CHUNK, sizeof(*states), GFP_KERNEL);
	if (!states) {
		ret = -ENOMEM;
		goto out_put;
	}
	while (next < total) {
		n = min_t(u64, total - next, UVM_NL_RESIDENCY_CHUNK);
		addr = cb->args[2] + (next << PAGE_SHIFT);
		memset(states, 0, n * sizeof(*states));
		ret = uvm_va_space_residency(va_space, addr, n, states, NULL);
		if (ret || uvm_nl_fill_residency(skb, cb, va_space, addr, states, n))
			break;
		next += n;
	}
	cb->args[0] = next;
	kfree(states);
out_put:
	uvm_va_space_put(va_space);
	return ret ?: skb->len;
}

static const struct genl_ops uvm_nl_ops[] = {
	{
		.cmd = UVM_NL_CMD_GET_GPUS,
		.dumpit = uvm_nl_get_gpus,
	},
	{
		.cmd = UVM_NL_CMD_GET_VA_SPACES,
		.dumpit = uvm_nl_get_va_spaces,
	},
	{
		.cmd = UVM_NL_CMD_GET_RESIDENCY,
		.start = uvm_nl_residency_start,
		.dumpit = uvm_nl_get_residency,
	},
};

/**
 * uvm_nl_query_init() - register the netlink family with the queries
 *
 * Context: module init, before /dev/uvm exists.
 * Return: 0 or -errno.
 */
int __init uvm_nl_query_init(void)
{
	return uvm_nl_register(uvm_nl_ops, ARRAY_SIZE(uvm_nl_ops));
}

/**
 * uvm_nl_query_exit() - unregister the netlink family
 *
 * Context: module exit, after /dev/uvm is gone.
 */
void uvm_nl_query_exit(void)
{
	uvm_nl_unregister();
}
