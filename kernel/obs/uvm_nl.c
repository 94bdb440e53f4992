// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The generic netlink family "uvm": the family, who sees what, the event
 * stream.
 *
 * DOC: Netlink family
 *
 * uapi/uvm_netlink.h is the ABI.  Three dump commands answer queries
 * (uvm_nl_query.c, which registers the family with them).  The multicast
 * group "events" carries one message per fault batch and VA space, per
 * migration, eviction, thrashing decision, fatal fault and VA space
 * created or destroyed (uvm_events.h sends them).  This file is called
 * from the hot paths and calls nothing above it.
 *
 * Visibility: a VA space is visible to readers whose socket was opened
 * with the effective uid that opened the VA space and who may read the
 * owner's memory map by the credential rules of /proc/PID/maps (same
 * real, effective and saved ids, a dumpable owner), and to CAP_SYS_ADMIN.
 * Events: where the kernel can filter a multicast per listener
 * (genlmsg_multicast_netns_filtered()), anyone may join and receives the
 * events of the VA spaces it could list (by its socket's credentials), all
 * of them with CAP_PERFMON or CAP_SYS_ADMIN; elsewhere joining needs CAP_SYS_ADMIN
 * (GENL_MCAST_CAP_SYS_ADMIN).  Without either mechanism no event is sent.
 * GET_GPUS replies say which (UVM_NL_A_EVENT_ACCESS).  The family exists in
 * the initial network namespace only.
 *
 * Cost: an event is built only when the group has a listener (a bitmap
 * test); it is allocated and multicast with GFP_NOWAIT and never waits.
 * A listener whose receive buffer is full loses the event; when it asked
 * for delivery errors (NETLINK_BROADCAST_ERROR) the loss is reported here
 * and counted in uvm_nl_dropped, as are events that could not be
 * allocated.  Each event carries a sequence number, so a listener also
 * sees its own gaps.
 *
 * Locking: none of its own.  Events are sent from any context but hard
 * interrupts, under any lock of the driver (nothing here sleeps).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/device.h>
#include <linux/file.h>
#include <linux/net.h>
#include <linux/pid_namespace.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "uvm_compat.h"
#include "uvm_events.h"
#include "uvm_gpu.h"
#include "uvm_netlink.h"
#include "uvm_nl.h"
#include "uvm_va_space.h"

static_assert(UVM_NL_GPU_COUNTER_COUNT == UVM_GPU_COUNTER_COUNT);
static_assert(UVM_NL_GPU_FAULTS == UVM_GPU_FAULTS);
static_assert(UVM_NL_GPU_EVICTIONS == UVM_GPU_EVICTIONS);
static_assert(UVM_NL_GPU_FAULT_FETCH_NS == UVM_GPU_FETCH_NS);
static_assert(UVM_NL_GPU_FAULT_GROUPS_HELPED == UVM_GPU_FAULT_GROUPS_HELPED);
static_assert(UVM_NL_GPU_FAULT_GROUPS_DEFERRED == UVM_GPU_FAULT_GROUPS_DEFERRED);
static_assert(UVM_NL_ACCESS_ATOMIC == UVM_FAULT_ACCESS_ATOMIC);

/* The one multicast group's index in the family. */
#define UVM_NL_GROUP_EVENTS	0

/*
 * Payload room of an event: every event but one fits in 256 bytes (common
 * attributes 52, the largest set of its own 64); a VA space's destruction
 * carries its counters (4 + 12 per counter).  Small buffers keep the
 * receive buffer's accounting (truesize) of a listener low, so that it
 * holds hundreds of events.
 */
#define UVM_NL_EVENT_SIZE	256
#define UVM_NL_EVENT_SIZE_COUNTERS	(UVM_NL_EVENT_SIZE + 4 + 12 * UVM_COUNTER_COUNT)

static atomic64_t uvm_nl_seq = ATOMIC64_INIT(0);
atomic64_t uvm_nl_sent = ATOMIC64_INIT(0);
atomic64_t uvm_nl_dropped = ATOMIC64_INIT(0);
static bool uvm_nl_registered;

static const struct nla_policy uvm_nl_policy[UVM_NL_A_MAX + 1] = {
	[UVM_NL_A_PAD]		= { .type = NLA_UNSPEC },
	[UVM_NL_A_GPU_INDEX]	= NLA_POLICY_MAX(NLA_U32, UVM_MAX_GPUS - 1),
	[UVM_NL_A_GPU_NAME]	= { .type = NLA_NUL_STRING, .len = 63 },
	[UVM_NL_A_GPU_UUID]	= NLA_POLICY_EXACT_LEN(16),
	[UVM_NL_A_VIDMEM_SIZE]	= { .type = NLA_U64 },
	[UVM_NL_A_VIDMEM_USED]	= { .type = NLA_U64 },
	[UVM_NL_A_GPU_COUNTERS]	= { .type = NLA_NESTED },
	[UVM_NL_A_EVENTS_SENT]	= { .type = NLA_U64 },
	[UVM_NL_A_EVENTS_DROPPED] = { .type = NLA_U64 },
	[UVM_NL_A_VA_SPACE]	= NLA_POLICY_MIN(NLA_U64, 1),
	[UVM_NL_A_PID]		= NLA_POLICY_MIN(NLA_U32, 1),
	[UVM_NL_A_COMM]		= { .type = NLA_NUL_STRING, .len = TASK_COMM_LEN - 1 },
	[UVM_NL_A_UID]		= { .type = NLA_U32 },
	[UVM_NL_A_COUNTERS]	= { .type = NLA_NESTED },
	[UVM_NL_A_VIDMEM]	= { .type = NLA_NESTED },
	[UVM_NL_A_ADDRESS]	= { .type = NLA_U64 },
	[UVM_NL_A_LENGTH]	= NLA_POLICY_MIN(NLA_U64, 1),
	[UVM_NL_A_PAGE_SIZE]	= { .type = NLA_U32 },
	[UVM_NL_A_PAGES]	= { .type = NLA_BINARY },
	[UVM_NL_A_EVENT]	= NLA_POLICY_RANGE(NLA_U32, 1, UVM_NL_EVENT_VA_SPACE_DESTROY),
	[UVM_NL_A_SEQ]		= { .type = NLA_U64 },
	[UVM_NL_A_TIMESTAMP]	= { .type = NLA_U64 },
	[UVM_NL_A_SRC]		= NLA_POLICY_MAX(NLA_U32, UVM_MAX_GPUS),
	[UVM_NL_A_DST]		= NLA_POLICY_MAX(NLA_U32, UVM_MAX_GPUS),
	[UVM_NL_A_NPAGES]	= { .type = NLA_U32 },
	[UVM_NL_A_BYTES]	= { .type = NLA_U64 },
	[UVM_NL_A_CAUSE]	= NLA_POLICY_RANGE(NLA_U32, 1, UVM_NL_CAUSE_MAX),
	[UVM_NL_A_FAULTS]	= { .type = NLA_U32 },
	[UVM_NL_A_DUPLICATES]	= { .type = NLA_U32 },
	[UVM_NL_A_FATAL]	= { .type = NLA_U32 },
	[UVM_NL_A_DURATION]	= { .type = NLA_U64 },
	[UVM_NL_A_ACCESS]	= NLA_POLICY_RANGE(NLA_U32, 1, UVM_NL_ACCESS_ATOMIC),
	[UVM_NL_A_THRASHING]	= NLA_POLICY_RANGE(NLA_U32, 1, UVM_NL_THRASHING_THROTTLED),
	[UVM_NL_A_NUM_GPUS]	= { .type = NLA_U32 },
	[UVM_NL_A_EVENT_ACCESS]	= NLA_POLICY_RANGE(NLA_U32, 1, UVM_NL_EVENT_ACCESS_FILTERED),
};

/**
 * uvm_nl_listening() - does anybody listen to the events group?
 *
 * Context: any.
 * Return: true when the group has at least one member.
 */
bool uvm_nl_listening(void)
{
	return READ_ONCE(uvm_nl_registered) && UVM_NL_EVENTS_ACCESS &&
	       genl_has_listeners(&uvm_nl_family, &init_net, UVM_NL_GROUP_EVENTS);
}

/**
 * uvm_nl_creds_see() - may credentials read the owner's memory map?
 * @reader:	the reader's credentials (its socket's file)
 * @va_space:	the VA space
 *
 * The credential rules /proc/PID/maps follows (ptrace access for reading,
 * which modules cannot call): the reader's filesystem uid and gid equal the
 * owner's real, effective and saved ones (a setuid program, or one that
 * dropped privileges but kept them saved, stays hidden), and the owner is
 * dumpable (a process that made itself non-dumpable, or changed its
 * credentials, stays hidden too).
 *
 * Context: any (reads the owner's credentials under RCU).
 * Return: true when they may.
 */
static bool uvm_nl_creds_see(const struct cred *reader, const struct uvm_va_space *va_space)
{
	const struct cred *owner;
	struct task_struct *task;
	bool sees = false;

	if (!uid_eq(reader->euid, va_space->uid))
		return false;
	rcu_read_lock();
	task = pid_task(va_space->pid, PIDTYPE_TGID);
	if (task && uvm_task_dumpable(task, va_space->mm)) {
		owner = __task_cred(task);
		sees = uid_eq(reader->fsuid, owner->euid) && uid_eq(reader->fsuid, owner->suid) &&
		       uid_eq(reader->fsuid, owner->uid) && gid_eq(reader->fsgid, owner->egid) &&
		       gid_eq(reader->fsgid, owner->sgid) && gid_eq(reader->fsgid, owner->gid);
	}
	rcu_read_unlock();
	return sees;
}

/**
 * uvm_nl_reader_sees() - may a netlink reader see a VA space?
 * @skb:	the request (its socket carries the reader's credentials)
 * @va_space:	the VA space
 *
 * The owner itself; readers whose credentials uvm_nl_creds_see() lets
 * read the owner's memory map; CAP_SYS_ADMIN.
 *
 * Context: the reader's (a dump runs in its sendmsg/recvmsg).
 * Return: true when it may.
 */
bool uvm_nl_reader_sees(const struct sk_buff *skb,
			const struct uvm_va_space *va_space)
{
	const struct sock *sk = NETLINK_CB(skb).sk;
	struct task_struct *task;
	bool self;

	if (netlink_capable(skb, CAP_SYS_ADMIN))
		return true;
	rcu_read_lock();
	task = pid_task(va_space->pid, PIDTYPE_TGID);
	self = task && same_thread_group(task, current);
	rcu_read_unlock();
	if (self)
		return true;
	return sk && sk->sk_socket && sk->sk_socket->file &&
	       uvm_nl_creds_see(sk->sk_socket->file->f_cred, va_space);
}

/* The reader's view of a VA space's owner: pid in its namespace, uid. */
u32 uvm_nl_pid(const struct uvm_va_space *va_space)
{
	return pid_nr_ns(va_space->pid, task_active_pid_ns(current));
}

u32 uvm_nl_uid(const struct sk_buff *skb, const struct uvm_va_space *va_space)
{
	return from_kuid_munged(sk_user_ns(NETLINK_CB(skb).sk), va_space->uid);
}

/**
 * uvm_nl_put_u64s() - a nested attribute of u64 values, types 1..@n
 * @skb:	the message
 * @attr:	the nest's attribute type
 * @vals:	values, read with atomic64_read()
 * @n:		how many
 *
 * Return: 0 or -EMSGSIZE.
 */
int uvm_nl_put_u64s(struct sk_buff *skb, int attr, atomic64_t *vals, u32 n)
{
	struct nlattr *nest = nla_nest_start(skb, attr);
	u32 i;

	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < n; i++) {
		if (nla_put_u64_64bit(skb, i + 1, atomic64_read(&vals[i]), 0)) {
			nla_nest_cancel(skb, nest);
			return -EMSGSIZE;
		}
	}
	nla_nest_end(skb, nest);
	return 0;
}

static const struct genl_multicast_group uvm_nl_mcgrps[] = {
	[UVM_NL_GROUP_EVENTS] = {
		.name = UVM_GENL_MCGRP_EVENTS,
		.flags = UVM_NL_EVENTS_GROUP_FLAGS,
	},
};

struct genl_family uvm_nl_family = {
	.name = UVM_GENL_NAME,
	.version = UVM_GENL_VERSION,
	.maxattr = UVM_NL_A_MAX,
	.policy = uvm_nl_policy,
	.parallel_ops = true,
	.module = THIS_MODULE,
	.mcgrps = uvm_nl_mcgrps,
	.n_mcgrps = ARRAY_SIZE(uvm_nl_mcgrps),
};

/* Events */

/**
 * uvm_nl_event_begin() - start an event message
 * @type:	UVM_NL_EVENT_*
 * @va_space:	the VA space it concerns
 * @hdr:	out: the message header, for uvm_nl_event_send()
 *
 * Context: any but hard interrupt; never sleeps.
 * Return: the message, or NULL (counted as a drop).
 */
static struct sk_buff *uvm_nl_event_begin(u32 type, struct uvm_va_space *va_space,
					  void **hdr)
{
	size_t size = type == UVM_NL_EVENT_VA_SPACE_DESTROY ?
		      UVM_NL_EVENT_SIZE_COUNTERS : UVM_NL_EVENT_SIZE;
	struct sk_buff *skb = genlmsg_new(size, GFP_NOWAIT | __GFP_NOWARN);

	if (!skb)
		goto err_drop;
	*hdr = genlmsg_put(skb, 0, 0, &uvm_nl_family, 0, UVM_NL_CMD_EVENT);
	if (!*hdr ||
	    nla_put_u32(skb, UVM_NL_A_EVENT, type) ||
	    nla_put_u64_64bit(skb, UVM_NL_A_SEQ, atomic64_inc_return(&uvm_nl_seq),
			      UVM_NL_A_PAD) ||
	    nla_put_u64_64bit(skb, UVM_NL_A_TIMESTAMP, ktime_get_ns(), UVM_NL_A_PAD) ||
	    nla_put_u64_64bit(skb, UVM_NL_A_VA_SPACE, va_space->id, UVM_NL_A_PAD) ||
	    nla_put_u32(skb, UVM_NL_A_PID, va_space->tgid))
		goto err_free;
	return skb;

err_free:
	nlmsg_free(skb);
err_drop:
	atomic64_inc(&uvm_nl_dropped);
	return NULL;
}

/*
 * The per-listener filter: nonzero skips @dsk.  A listener sees the events
 * of VA spaces whose owner's memory map its socket's credentials may read
 * (uvm_nl_creds_see(), the rule of the queries), all with CAP_PERFMON or
 * CAP_SYS_ADMIN.
 */
static int __maybe_unused uvm_nl_event_filter(struct sock *dsk, struct sk_buff *skb,
					      void *data)
{
	const struct uvm_va_space *va_space = data;
	const struct file *file = dsk->sk_socket ? dsk->sk_socket->file : NULL;

	if (!file)
		return 1;
	if (uvm_nl_creds_see(file->f_cred, va_space))
		return 0;
	return !(file_ns_capable(file, &init_user_ns, CAP_PERFMON) ||
		 file_ns_capable(file, &init_user_ns, CAP_SYS_ADMIN));
}

/**
 * uvm_nl_event_send() - finish and multicast an event
 * @skb:	from uvm_nl_event_begin(), consumed
 * @hdr:	its header
 * @va_space:	the VA space it concerns (for the per-listener filter)
 *
 * -ESRCH (nobody took it: every listener filtered it out, or the last one
 * left) is neither sent nor dropped.
 */
static void uvm_nl_event_send(struct sk_buff *skb, void *hdr,
			      struct uvm_va_space *va_space)
{
	gfp_t gfp = GFP_NOWAIT | __GFP_NOWARN;
	int ret;

	genlmsg_end(skb, hdr);
#if UVM_NL_EVENTS_ACCESS == UVM_NL_EVENT_ACCESS_FILTERED
	ret = genlmsg_multicast_netns_filtered(&uvm_nl_family, &init_net, skb, 0,
					       UVM_NL_GROUP_EVENTS, gfp,
					       uvm_nl_event_filter, va_space);
#else
	ret = genlmsg_multicast(&uvm_nl_family, skb, 0, UVM_NL_GROUP_EVENTS, gfp);
#endif
	if (!ret)
		atomic64_inc(&uvm_nl_sent);
	else if (ret != -ESRCH)
		atomic64_inc(&uvm_nl_dropped);
}

/**
 * uvm_nl_event_finish() - send an event, or drop it if filling it failed
 * @skb:	from uvm_nl_event_begin(), consumed
 * @hdr:	its header
 * @va_space:	the VA space it concerns
 * @failed:	an attribute did not fit
 */
static void uvm_nl_event_finish(struct sk_buff *skb, void *hdr,
				struct uvm_va_space *va_space, bool failed)
{
	if (failed) {
		nlmsg_free(skb);
		atomic64_inc(&uvm_nl_dropped);
		return;
	}
	uvm_nl_event_send(skb, hdr, va_space);
}

/**
 * uvm_nl_event_fault_batch() - UVM_NL_EVENT_FAULT_BATCH
 * @gpu:	the GPU
 * @va_space:	the VA space
 * @faults:	fault entries of the VA space in the batch
 * @duplicates:	of those, merged
 * @fatal:	cancelled as fatal
 * @duration_ns: since the batch was fetched
 */
void uvm_nl_event_fault_batch(struct uvm_gpu *gpu, struct uvm_va_space *va_space,
			      u32 faults, u32 duplicates, u32 fatal, u64 duration_ns)
{
	struct sk_buff *skb;
	void *hdr;

	skb = uvm_nl_event_begin(UVM_NL_EVENT_FAULT_BATCH, va_space, &hdr);
	if (skb)
		uvm_nl_event_finish(skb, hdr, va_space,
				    nla_put_u32(skb, UVM_NL_A_GPU_INDEX, gpu->index) ||
				    nla_put_u32(skb, UVM_NL_A_FAULTS, faults) ||
				    nla_put_u32(skb, UVM_NL_A_DUPLICATES, duplicates) ||
				    nla_put_u32(skb, UVM_NL_A_FATAL, fatal) ||
				    nla_put_u64_64bit(skb, UVM_NL_A_DURATION, duration_ns,
						      UVM_NL_A_PAD));
}

/**
 * uvm_nl_event_faults_flushed() - UVM_NL_EVENT_FAULTS_FLUSHED
 * @gpu:	the GPU
 * @va_space:	the VA space
 * @faults:	entries of the VA space the flush dropped
 */
void uvm_nl_event_faults_flushed(struct uvm_gpu *gpu, struct uvm_va_space *va_space,
				 u32 faults)
{
	struct sk_buff *skb;
	void *hdr;

	skb = uvm_nl_event_begin(UVM_NL_EVENT_FAULTS_FLUSHED, va_space, &hdr);
	if (skb)
		uvm_nl_event_finish(skb, hdr, va_space,
				    nla_put_u32(skb, UVM_NL_A_GPU_INDEX, gpu->index) ||
				    nla_put_u32(skb, UVM_NL_A_FAULTS, faults) ||
				    nla_put_u32(skb, UVM_NL_A_DUPLICATES, faults));
}

/**
 * uvm_nl_event_migration() - UVM_NL_EVENT_MIGRATION
 * @va_space:	the VA space
 * @addr:	first page
 * @src:	source processor id
 * @dst:	destination processor id
 * @pages:	pages copied
 * @cause:	UVM_NL_CAUSE_*
 * @duration_ns: of the copies
 */
void uvm_nl_event_migration(struct uvm_va_space *va_space, u64 addr, u32 src,
			    u32 dst, u32 pages, u32 cause, u64 duration_ns)
{
	struct sk_buff *skb;
	void *hdr;

	skb = uvm_nl_event_begin(UVM_NL_EVENT_MIGRATION, va_space, &hdr);
	if (skb)
		uvm_nl_event_finish(skb, hdr, va_space,
				    nla_put_u64_64bit(skb, UVM_NL_A_ADDRESS, addr,
						      UVM_NL_A_PAD) ||
				    nla_put_u32(skb, UVM_NL_A_SRC, src) ||
				    nla_put_u32(skb, UVM_NL_A_DST, dst) ||
				    nla_put_u32(skb, UVM_NL_A_NPAGES, pages) ||
				    nla_put_u64_64bit(skb, UVM_NL_A_BYTES,
						      (u64)pages << PAGE_SHIFT,
						      UVM_NL_A_PAD) ||
				    nla_put_u32(skb, UVM_NL_A_CAUSE, cause) ||
				    nla_put_u64_64bit(skb, UVM_NL_A_DURATION, duration_ns,
						      UVM_NL_A_PAD));
}

/**
 * uvm_nl_event_eviction() - UVM_NL_EVENT_EVICTION
 * @gpu:	the GPU that made room
 * @va_space:	the VA space of the block
 * @addr:	the block
 * @pages:	pages that left @gpu (counted in PAGES_EVICTED)
 */
void uvm_nl_event_eviction(struct uvm_gpu *gpu, struct uvm_va_space *va_space,
			   u64 addr, u32 pages)
{
	struct sk_buff *skb;
	void *hdr;

	skb = uvm_nl_event_begin(UVM_NL_EVENT_EVICTION, va_space, &hdr);
	if (skb)
		uvm_nl_event_finish(skb, hdr, va_space,
				    nla_put_u32(skb, UVM_NL_A_GPU_INDEX, gpu->index) ||
				    nla_put_u64_64bit(skb, UVM_NL_A_ADDRESS, addr,
						      UVM_NL_A_PAD) ||
				    nla_put_u32(skb, UVM_NL_A_NPAGES, pages));
}

/**
 * uvm_nl_event_thrashing() - UVM_NL_EVENT_THRASHING
 * @va_space:	the VA space
 * @addr:	the block
 * @kind:	UVM_NL_THRASHING_*
 * @pages:	pages or accesses
 */
void uvm_nl_event_thrashing(struct uvm_va_space *va_space, u64 addr, u32 kind,
			    u32 pages)
{
	struct sk_buff *skb;
	void *hdr;

	skb = uvm_nl_event_begin(UVM_NL_EVENT_THRASHING, va_space, &hdr);
	if (skb)
		uvm_nl_event_finish(skb, hdr, va_space,
				    nla_put_u64_64bit(skb, UVM_NL_A_ADDRESS, addr,
						      UVM_NL_A_PAD) ||
				    nla_put_u32(skb, UVM_NL_A_THRASHING, kind) ||
				    nla_put_u32(skb, UVM_NL_A_NPAGES, pages));
}

/**
 * uvm_nl_event_fatal_fault() - UVM_NL_EVENT_FATAL_FAULT
 * @gpu:	the GPU
 * @va_space:	the VA space
 * @addr:	faulting address
 * @access:	UVM_NL_ACCESS_*
 */
void uvm_nl_event_fatal_fault(struct uvm_gpu *gpu, struct uvm_va_space *va_space,
			      u64 addr, u32 access)
{
	struct sk_buff *skb;
	void *hdr;

	skb = uvm_nl_event_begin(UVM_NL_EVENT_FATAL_FAULT, va_space, &hdr);
	if (skb)
		uvm_nl_event_finish(skb, hdr, va_space,
				    nla_put_u32(skb, UVM_NL_A_GPU_INDEX, gpu->index) ||
				    nla_put_string(skb, UVM_NL_A_COMM, va_space->comm) ||
				    nla_put_u64_64bit(skb, UVM_NL_A_ADDRESS, addr,
						      UVM_NL_A_PAD) ||
				    nla_put_u32(skb, UVM_NL_A_ACCESS, access));
}

/**
 * uvm_nl_event_va_space() - UVM_NL_EVENT_VA_SPACE_CREATE / _DESTROY
 * @va_space:	the VA space
 * @create:	created, else released (with its final counters)
 */
void uvm_nl_event_va_space(struct uvm_va_space *va_space, bool create)
{
	u32 type = create ? UVM_NL_EVENT_VA_SPACE_CREATE : UVM_NL_EVENT_VA_SPACE_DESTROY;
	struct sk_buff *skb;
	void *hdr;

	skb = uvm_nl_event_begin(type, va_space, &hdr);
	if (skb)
		uvm_nl_event_finish(skb, hdr, va_space,
				    nla_put_string(skb, UVM_NL_A_COMM, va_space->comm) ||
				    nla_put_u32(skb, UVM_NL_A_UID,
						from_kuid_munged(&init_user_ns,
								 va_space->uid)) ||
				    (!create &&
				     uvm_nl_put_u64s(skb, UVM_NL_A_COUNTERS,
						     va_space->counters,
						     UVM_COUNTER_COUNT)));
}

/* sysfs: the family's event counters, on /dev/uvm's device */

static ssize_t events_sent_show(struct device *dev, struct device_attribute *attr,
				char *buf)
{
	return sysfs_emit(buf, "%lld\n", atomic64_read(&uvm_nl_sent));
}

static ssize_t events_dropped_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%lld\n", atomic64_read(&uvm_nl_dropped));
}

static DEVICE_ATTR_RO(events_sent);
static DEVICE_ATTR_RO(events_dropped);

static struct attribute *uvm_nl_attrs[] = {
	&dev_attr_events_sent.attr,
	&dev_attr_events_dropped.attr,
	NULL,
};

/* One of the attribute groups of /dev/uvm's device (uvm_main.c lists them). */
const struct attribute_group uvm_nl_attr_group = {
	.attrs = uvm_nl_attrs,
};

/**
 * uvm_nl_register() - register the family with its query commands
 * @ops:	the commands (uvm_nl_query.c)
 * @n_ops:	how many
 *
 * Context: module init, before /dev/uvm exists.
 * Return: 0 or the -errno of genl_register_family().
 */
int __init uvm_nl_register(const struct genl_ops *ops, int n_ops)
{
	int ret;

	uvm_nl_family.ops = ops;
	uvm_nl_family.n_ops = n_ops;
	ret = genl_register_family(&uvm_nl_family);

	if (ret) {
		pr_err("generic netlink family %s: %d\n", UVM_GENL_NAME, ret);
		return ret;
	}
	if (!UVM_NL_EVENTS_ACCESS)
		pr_warn("this kernel cannot restrict the %s group: no events are sent\n",
			UVM_GENL_MCGRP_EVENTS);
	WRITE_ONCE(uvm_nl_registered, true);
	return 0;
}

/**
 * uvm_nl_unregister() - unregister the family
 *
 * Context: module exit, after /dev/uvm is gone (no VA space, no event).
 */
void uvm_nl_unregister(void)
{
	WRITE_ONCE(uvm_nl_registered, false);
	genl_unregister_family(&uvm_nl_family);
}
