/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The generic netlink family "uvm": registration, visibility, events.
 */
#ifndef _UVM_NL_H_
#define _UVM_NL_H_

#include <linux/atomic.h>
#include <linux/types.h>

struct genl_family;
struct genl_ops;
struct sk_buff;
struct uvm_gpu;
struct uvm_va_space;
struct attribute_group;

extern struct genl_family uvm_nl_family;
extern atomic64_t uvm_nl_sent;
extern atomic64_t uvm_nl_dropped;

int uvm_nl_register(const struct genl_ops *ops, int n_ops);
void uvm_nl_unregister(void);
extern const struct attribute_group uvm_nl_attr_group;

bool uvm_nl_listening(void);
void uvm_nl_event_fault_batch(struct uvm_gpu *gpu, struct uvm_va_space *va_space,
			      u32 faults, u32 duplicates, u32 fatal, u64 duration_ns);
void uvm_nl_event_faults_flushed(struct uvm_gpu *gpu, struct uvm_va_space *va_space,
				 u32 faults);
void uvm_nl_event_migration(struct uvm_va_space *va_space, u64 addr, u32 src,
			    u32 dst, u32 pages, u32 cause, u64 duration_ns);
void uvm_nl_event_eviction(struct uvm_gpu *gpu, struct uvm_va_space *va_space,
			   u64 addr, u32 pages);
void uvm_nl_event_thrashing(struct uvm_va_space *va_space, u64 addr, u32 kind,
			    u32 pages);
void uvm_nl_event_fatal_fault(struct uvm_gpu *gpu, struct uvm_va_space *va_space,
			      u64 addr, u32 access);
void uvm_nl_event_va_space(struct uvm_va_space *va_space, bool create);

bool uvm_nl_reader_sees(const struct sk_buff *skb,
			const struct uvm_va_space *va_space);
u32 uvm_nl_pid(const struct uvm_va_space *va_space);
u32 uvm_nl_uid(const struct sk_buff *skb, const struct uvm_va_space *va_space);
int uvm_nl_put_u64s(struct sk_buff *skb, int attr, atomic64_t *vals, u32 n);

#endif /* _UVM_NL_H_ */
