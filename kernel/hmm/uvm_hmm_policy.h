/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Policy of pageable memory: VMA checks, advice, prefetch and discard.
 */
#ifndef _UVM_HMM_POLICY_H_
#define _UVM_HMM_POLICY_H_

#include <linux/errno.h>
#include <linux/types.h>

#include "uvm.h"
#include "uvm_va_range.h"

struct uvm_test_page_state;
struct uvm_va_space;

/* Operations of UVM_IOC_MIGRATE on pageable memory (values of UVM_MIGRATE_*). */
#define UVM_HMM_PREFETCH	UVM_MIGRATE_PREFETCH
#define UVM_HMM_DISCARD		UVM_MIGRATE_DISCARD

#if IS_ENABLED(CONFIG_HMM_MIRROR)

int uvm_hmm_check_range(struct uvm_va_space *va_space, u64 start, u64 end);
int uvm_hmm_migrate(struct uvm_va_space *va_space, u32 op, u64 start, u64 end,
		    const struct uvm_location *loc);
int uvm_hmm_advise(struct uvm_va_space *va_space, u64 start, u64 end,
		   u32 advice, const struct uvm_location *loc);
int uvm_hmm_page_states(struct uvm_va_space *va_space, u64 start, u64 npages,
			struct uvm_test_page_state *states);

#else /* !CONFIG_HMM_MIRROR */

static inline int uvm_hmm_check_range(struct uvm_va_space *va_space, u64 start,
				      u64 end)
{
	return -EINVAL;
}

static inline int uvm_hmm_migrate(struct uvm_va_space *va_space, u32 op,
				  u64 start, u64 end,
				  const struct uvm_location *loc)
{
	return -EINVAL;
}

static inline int uvm_hmm_advise(struct uvm_va_space *va_space, u64 start,
				 u64 end, u32 advice,
				 const struct uvm_location *loc)
{
	return 0;
}

static inline int uvm_hmm_page_states(struct uvm_va_space *va_space, u64 start,
				      u64 npages,
				      struct uvm_test_page_state *states)
{
	return -EOPNOTSUPP;
}

#endif /* CONFIG_HMM_MIRROR */

/**
 * uvm_hmm_check_user_range() - validate a user range of managed or pageable
 * memory
 * @va_space:	the VA space; its lock held
 * @address:	start as given
 * @length:	bytes as given
 * @start:	out: first byte, page aligned
 * @end:	out: last byte + 1, page aligned
 * @pageable:	as for uvm_va_range_check()
 *
 * uvm_va_range_check(), then, for pageable memory, the VMAs covering it
 * (uvm_hmm_check_range()).
 *
 * Return: 0 or -EINVAL.
 */
static inline int uvm_hmm_check_user_range(struct uvm_va_space *va_space, u64 address,
					   u64 length, u64 *start, u64 *end, bool *pageable)
{
	int ret = uvm_va_range_check(va_space, address, length, start, end, pageable);

	if (!ret && pageable && *pageable)
		ret = uvm_hmm_check_range(va_space, *start, *end);
	return ret;
}

#endif /* _UVM_HMM_POLICY_H_ */
