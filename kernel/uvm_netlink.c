// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The generic netlink family "uvm": queries and the event stream.
 *
 * DOC: Netlink family
 *
 * uapi/uvm_netlink.h is the ABI.  Three dump commands answer queries:
 * GET_GPUS (every GPU, its counters, the family's event counters),
 * GET_VA_SPACES (every VA space the reader may see, its owner, counters and
 * vidmem per GPU) and GET_RESIDENCY (the residency of a range of one
 * process's managed memory, UVM_NL_RESIDENCY_CHUNK pages per message,
 * computed by uvm_va_space_residency() as the test ioctl's is).  The
 * multicast group "events" carries one message per fault batch and VA
 * space, per migration, eviction, thrashing decision, fatal fault and VA
 * space created or destroyed (uvm_events.h sends them).
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
 * Locking: the queries run without genl_mutex (parallel_ops).  GET_VA_SPACES
 * holds uvm_va_space_list_lock while it reads atomic counters and constant
 * fields; GET_RESIDENCY takes a VA space reference under that lock, drops
 * the lock, then reads residency under the VA space lock and block locks
 * (uvm_va_space_residency()).  Events are sent from any context but hard
 * interrupts, under any lock of the driver (nothing here sleeps).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/device.h>
#include <linux/file.h>
#include <linux/net.h>
#include <linux/pid_namespace.h>
#include <linux/sched/coredump.h>
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
#include "uvm_test.h"
#include "uvm_va_space.h"

static_assert(sizeof(struct uvm_nl_page_state) == sizeof(struct uvm_test_page_state));
static_assert(offsetof(struct uvm_nl_page_state, mapped_atomic) ==
	      offsetof(struct uvm_test_page_state, mapped_atomic));
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
static atomic64_t uvm_nl_sent = ATOMIC64_INIT(0);
static atomic64_t uvm_nl_dropped = ATOMIC64_INIT(0);
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

static struct genl_family uvm_nl_family;

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

	if (!uid_eq(reader->euid, va_space->uid) ||
	    get_dumpable(va_space->mm) != SUID_DUMP_USER)
		return false;
	rcu_read_lock();
	task = pid_task(va_space->pid, PIDTYPE_TGID);
	if (task) {
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
static bool uvm_nl_reader_sees(const struct sk_buff *skb,
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
static u32 uvm_nl_pid(const struct uvm_va_space *va_space)
{
	return pid_nr_ns(va_space->pid, task_active_pid_ns(current));
}

static u32 uvm_nl_uid(const struct sk_buff *skb, const struct uvm_va_space *va_space)
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
static int uvm_nl_put_u64s(struct sk_buff *skb, int attr, atomic64_t *vals, u32 n)
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

static const struct genl_multicast_group uvm_nl_mcgrps[] = {
	[UVM_NL_GROUP_EVENTS] = {
		.name = UVM_GENL_MCGRP_EVENTS,
		.flags = UVM_NL_EVENTS_GROUP_FLAGS,
	},
};

static struct genl_family uvm_nl_family = {
	.name = UVM_GENL_NAME,
	.version = UVM_GENL_VERSION,
	.maxattr = UVM_NL_A_MAX,
	.policy = uvm_nl_policy,
	.parallel_ops = true,
	.module = THIS_MODULE,
	.ops = uvm_nl_ops,
	.n_ops = ARRAY_SIZE(uvm_nl_ops),
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
 * uvm_nl_init() - register the family
 *
 * Context: module init, before /dev/uvm exists.
 * Return: 0 or the -errno of genl_register_family().
 */
int __init uvm_nl_init(void)
{
	int ret = genl_register_family(&uvm_nl_family);

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
 * uvm_nl_exit() - unregister the family
 *
 * Context: module exit, after /dev/uvm is gone (no VA space, no event).
 */
void uvm_nl_exit(void)
{
	WRITE_ONCE(uvm_nl_registered, false);
	genl_unregister_family(&uvm_nl_family);
}
