// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * simgpu_exec.c - warps of the simulated GPU executing access programs.
 *
 * DOC: simulated warps
 *
 * A launch runs its ops one after the other, with a barrier in between: the
 * launching thread starts the warps of an op, waits until every one has
 * ended, then starts the next op.  An op is a sequence of n accesses (access
 * k covers [address + k * stride, + access_size) clipped to the op), issued
 * in order 0..n-1 or in a seeded pseudo-random permutation of it.  Warp w
 * performs the accesses at positions w, w + num_warps, w + 2 * num_warps ...
 * of that order.
 *
 * The permutation needs no O(n) array: positions live in the smallest
 * power-of-two domain [0, 2^b) >= n, a keyed bijection of b-bit integers
 * (three rounds of add-key, multiply by an odd key, xorshift, all mod 2^b)
 * maps a position to an access index, and cycle walking (re-apply while the
 * result is >= n) turns it into a permutation of [0, n).  Since 2^b < 2n,
 * fewer than two rounds of walking are needed on average.
 *
 * Warps are state machines run as work items on the GPU's unbound warp
 * workqueue, which runs a few of them at a time (2 per online CPU, 4..64).
 * A run of a warp ends when:
 *
 *  - its share of the op is done, or the launch aborts: the warp ends
 *    (simgpu_launch_warp_done());
 *  - an access misses in the MMU: the warp records where it is and hands
 *    itself to the fault buffer (simgpu_fault_stall()); a replay queues it
 *    again and it retries that access;
 *  - it has run for a time slice (2 ms): it queues itself again at the tail,
 *    so that many warps and launches share the CPUs fairly.
 *
 * An access never crosses a page internally: it is split at page boundaries
 * and the warp remembers how many bytes of the current access are done, so
 * a fault in the middle of an access resumes after the part already
 * performed (an atomic add is never applied twice).  Each access translates
 * through the MMU with &simgpu_vaspace.tlb_sem held for read; a warp keeps
 * the semaphore across accesses but releases it as soon as a writer
 * (tlb_invalidate()) waits, and always before stalling or yielding.  While
 * it holds the semaphore without interruption a warp may reuse its last
 * translation (a one-entry TLB, &struct simgpu_utlb): the entry dies with
 * the hold, so an invalidation never leaves it stale.
 *
 * The launcher waits for an op killably, with the launch deadline
 * (``launch_timeout_s``).  On a fatal signal, a timeout or a cancelled
 * fault, it aborts: it sets &simgpu_launch.abort, ends its stalled warps
 * itself, and waits (uninterruptibly; running warps stop at their next
 * access) until no warp of the launch is active.  When
 * simgpu_launch_run_op() returns, nothing of the launch is referenced by the
 * GPU.
 *
 * Locking: &simgpu_launch.wq.lock protects &simgpu_launch.active; each warp
 * that ends decrements it under that lock, as its very last touch of the
 * launch, and the launcher takes the lock once after seeing zero, so no warp
 * still touches the launch when it returns.  &simgpu_launch.abort is set
 * under the fault lock (or before taking it) and read locklessly by warps;
 * a warp about to stall re-checks it under the fault lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/highmem.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/wait.h>

#include "uvm_compat.h"	/* get_unaligned() */
#include "simgpu_internal.h"

/* A warp runs at most this long before requeueing itself. */
#define SIMGPU_WARP_SLICE_NS		(2 * NSEC_PER_MSEC)
/* Accesses between two reads of the clock. */
#define SIMGPU_WARP_CLOCK_EVERY		16

enum simgpu_warp_status {
	SIMGPU_WARP_DONE,	/* share of the op done */
	SIMGPU_WARP_ABORT,	/* launch aborting */
	SIMGPU_WARP_FAULT,	/* an access missed */
	SIMGPU_WARP_YIELD,	/* time slice used up */
};

/**
 * simgpu_splitmix64() - next value of a splitmix64 generator
 * @state: generator state, advanced
 *
 * Context: any.
 * Return: a 64-bit pseudo-random value.
 */
static u64 simgpu_splitmix64(u64 *state)
{
	u64 z = (*state += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

/**
 * simgpu_perm_init() - set up the access order of an op
 * @perm: filled in
 * @n: number of accesses, > 0
 * @random: permute (UVM_TEST_ORDER_RANDOM)
 * @seed: seed of the permutation
 *
 * Context: any.
 */
void simgpu_perm_init(struct simgpu_perm *perm, u64 n, bool random, u32 seed)
{
	u64 state = seed;
	u32 bits = n > 1 ? fls64(n - 1) : 0;
	int i;

	perm->n = n;
	perm->random = random && n > 1;
	perm->mask = bits >= 64 ? U64_MAX : (1ULL << bits) - 1;
	perm->shift = max_t(u32, bits / 2, 1);
	for (i = 0; i < ARRAY_SIZE(perm->key); i++)
		perm->key[i] = simgpu_splitmix64(&state);
}

/**
 * simgpu_perm_round() - the keyed bijection of [0, 2^bits)
 * @perm: the permutation
 * @x: a value of the domain
 *
 * Each step is a bijection mod 2^bits: adding a key, multiplying by an odd
 * number, xoring with a right shift of itself.
 *
 * Context: any.
 * Return: the image of @x, in the domain.
 */
static u64 simgpu_perm_round(const struct simgpu_perm *perm, u64 x)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(perm->key); i++) {
		x = (x + perm->key[i]) & perm->mask;
		x = (x * (perm->key[i] | 1)) & perm->mask;
		x ^= x >> perm->shift;
	}
	return x;
}

/**
 * simgpu_perm_apply() - the access performed at a position of the order
 * @perm: the permutation
 * @pos: position, < @perm->n
 *
 * Context: any.
 * Return: the access index, < @perm->n; a bijection of [0, n).
 */
u64 simgpu_perm_apply(const struct simgpu_perm *perm, u64 pos)
{
	u64 x = pos;

	if (!perm->random)
		return pos;
	do {
		x = simgpu_perm_round(perm, x);
	} while (x >= perm->n);
	return x;
}

/**
 * simgpu_op_access() - the fault access type of an op type
 * @type: UVM_TEST_OP_*
 *
 * Context: any.
 * Return: enum uvm_fault_access.
 */
static u16 simgpu_op_access(u32 type)
{
	switch (type) {
	case UVM_TEST_OP_WRITE:
		return UVM_FAULT_ACCESS_WRITE;
	case UVM_TEST_OP_ATOMIC_ADD:
		return UVM_FAULT_ACCESS_ATOMIC;
	default:
		return UVM_FAULT_ACCESS_READ;
	}
}

/**
 * simgpu_words_checksum() - checksum terms of the words inside a piece
 * @src: bytes read (GPU memory or the copy in the data buffer)
 * @va: virtual address of @src[0]
 * @len: bytes
 *
 * Only naturally aligned 64-bit words entirely inside [va, va + len) count.
 *
 * Context: any.
 * Return: the wrapping sum of UVM_TEST_CHECKSUM_TERM over those words.
 */
static u64 simgpu_words_checksum(const u8 *src, u64 va, u32 len)
{
	u64 w = ALIGN(va, sizeof(u64)), end = va + len, sum = 0;

	for (; w + sizeof(u64) <= end; w += sizeof(u64))
		sum += UVM_TEST_CHECKSUM_TERM(get_unaligned((const u64 *)(src + (w - va))),
					      w);
	return sum;
}

/**
 * simgpu_words_write() - the word operations of a piece
 * @op: WRITE without data, or ATOMIC_ADD
 * @dst: mapped GPU memory, 8-byte aligned
 * @va: virtual address of @dst
 * @len: bytes, a multiple of 8
 *
 * Context: warp, under tlb_sem (read); does not sleep.
 */
static void simgpu_words_write(const struct uvm_test_gpu_op *op, u8 *dst,
			       u64 va, u32 len)
{
	u64 *word = (u64 *)dst, old;
	u32 i;

	for (i = 0; i < len / sizeof(u64); i++, va += sizeof(u64)) {
		if (op->type == UVM_TEST_OP_WRITE) {
			WRITE_ONCE(word[i], UVM_TEST_PATTERN_WORD(op->value, va));
			continue;
		}
		old = READ_ONCE(word[i]);
		while (!try_cmpxchg64(&word[i], &old, old + op->value))
			;
	}
}

/**
 * simgpu_warp_piece() - perform the part of an access inside one page
 * @warp: the warp
 * @page: the page, translated under tlb_sem
 * @va: virtual address of the first byte
 * @len: bytes, not crossing the page
 *
 * Context: warp, under tlb_sem (read); does not sleep.
 */
static void simgpu_warp_piece(struct simgpu_warp *warp, struct page *page,
			      u64 va, u32 len)
{
	struct simgpu_launch *launch = warp->launch;
	const struct uvm_test_gpu_op *op = launch->op;
	u8 *base = kmap_local_page(page);
	u8 *mem = base + offset_in_page(va);
	u8 *buf = NULL;

	if (launch->op_data)
		buf = launch->op_data + (va - op->address);

	switch (op->type) {
	case UVM_TEST_OP_READ:
		if (buf)
			memcpy(buf, mem, len);
		warp->checksum += simgpu_words_checksum(buf ?: mem, va, len);
		break;
	case UVM_TEST_OP_WRITE:
		if (buf)
			memcpy(mem, buf, len);
		else
			simgpu_words_write(op, mem, va, len);
		break;
	case UVM_TEST_OP_ATOMIC_ADD:
		simgpu_words_write(op, mem, va, len);
		break;
	}
	kunmap_local(base);
}

/**
 * struct simgpu_utlb - a warp's one-entry TLB
 * @page:	page of the last translation, NULL when empty
 * @vpn:	its virtual page number
 * @remote:	the translation points at system memory or a peer's vidmem
 *		(such accesses feed the access counters)
 *
 * Valid only while the warp holds tlb_sem without interruption since the
 * translation: emptied whenever the warp releases it, so tlb_invalidate()
 * (which takes tlb_sem for write) never leaves a stale entry in use.  All
 * accesses of a run have the op's access type, which the entry was checked
 * against.
 */
struct simgpu_utlb {
	struct page *page;
	u64 vpn;
	bool remote;
};

/**
 * simgpu_warp_translate() - translate through the warp's one-entry TLB
 * @warp: the warp
 * @utlb: its TLB
 * @va: virtual address
 *
 * Context: warp, under tlb_sem (read).
 * Return: the page, or NULL on a miss.
 */
static struct page *simgpu_warp_translate(struct simgpu_warp *warp,
					  struct simgpu_utlb *utlb, u64 va)
{
	struct simgpu_launch *launch = warp->launch;

	if (utlb->page && utlb->vpn == va >> PAGE_SHIFT)
		return utlb->page;
	utlb->page = simgpu_mmu_translate(launch->vs, va, launch->op_access,
					  &utlb->remote);
	utlb->vpn = va >> PAGE_SHIFT;
	return utlb->page;
}

/**
 * simgpu_warp_access() - perform (the rest of) one access
 * @warp: the warp; @warp->done bytes of the access are already done
 * @utlb: the warp's TLB
 * @start: virtual address of the access
 * @len: bytes of the access
 * @fault_va: on a miss, set to the address that missed
 *
 * Context: warp, under tlb_sem (read); does not sleep.
 * Return: true when the access is complete, false on a miss.
 */
static bool simgpu_warp_access(struct simgpu_warp *warp,
			       struct simgpu_utlb *utlb, u64 start, u32 len,
			       u64 *fault_va)
{
	struct page *page;
	u32 piece;
	u64 va;

	while (warp->done < len) {
		va = start + warp->done;
		piece = min_t(u64, len - warp->done,
			      PAGE_SIZE - offset_in_page(va));
		page = simgpu_warp_translate(warp, utlb, va);
		if (!page) {
			*fault_va = va;
			return false;
		}
		if (utlb->remote)
			simgpu_access_count(warp->launch->vs, va);
		simgpu_warp_piece(warp, page, va, piece);
		warp->done += piece;
	}
	return true;
}

/**
 * simgpu_warp_advance() - move a warp to its next position
 * @warp: the warp, its current access complete
 *
 * Context: warp.
 */
static void simgpu_warp_advance(struct simgpu_warp *warp)
{
	struct simgpu_launch *launch = warp->launch;
	u64 n = launch->perm.n;

	warp->done = 0;
	if (n - warp->next <= launch->num_warps)
		warp->next = n;
	else
		warp->next += launch->num_warps;
}

/**
 * simgpu_warp_run() - run a warp for at most one time slice
 * @warp: the warp
 * @fault_va: on %SIMGPU_WARP_FAULT, the address that missed
 *
 * Context: warp work item; takes and releases tlb_sem (read).
 * Return: why the run ended, enum simgpu_warp_status.
 */
static enum simgpu_warp_status simgpu_warp_run(struct simgpu_warp *warp,
					       u64 *fault_va)
{
	struct simgpu_launch *launch = warp->launch;
	const struct uvm_test_gpu_op *op = launch->op;
	struct rw_semaphore *tlb_sem = &launch->vs->tlb_sem;
	u64 deadline = ktime_get_ns() + SIMGPU_WARP_SLICE_NS;
	enum simgpu_warp_status status = SIMGPU_WARP_DONE;
	struct simgpu_utlb utlb = { };
	unsigned int count = 0;
	u64 start, k;
	u32 len;

	down_read(tlb_sem);
	while (warp->next < launch->perm.n) {
		if (READ_ONCE(launch->abort)) {
			status = SIMGPU_WARP_ABORT;
			break;
		}
		if (++count % SIMGPU_WARP_CLOCK_EVERY == 0 &&
		    ktime_get_ns() > deadline) {
			status = SIMGPU_WARP_YIELD;
			break;
		}
		if (rwsem_is_contended(tlb_sem)) {
			utlb.page = NULL;
			up_read(tlb_sem);
			down_read(tlb_sem);
		}
		k = simgpu_perm_apply(&launch->perm, warp->next);
		start = op->address + k * launch->op_stride;
		len = min_t(u64, op->access_size, op->address + op->length - start);
		if (!simgpu_warp_access(warp, &utlb, start, len, fault_va)) {
			status = SIMGPU_WARP_FAULT;
			break;
		}
		simgpu_warp_advance(warp);
	}
	up_read(tlb_sem);
	return status;
}

/**
 * simgpu_warp_work() - work function of a warp
 * @work: &simgpu_warp.work
 *
 * Runs the warp, then hands it on: to the fault buffer, back to the
 * workqueue, or to the launcher (ended).  Nothing of the warp or the launch
 * is touched after that.
 *
 * Context: warp workqueue.
 */
static void simgpu_warp_work(struct work_struct *work)
{
	struct simgpu_warp *warp = container_of(work, struct simgpu_warp, work);
	struct simgpu_launch *launch = warp->launch;
	u64 fault_va = 0;

	switch (simgpu_warp_run(warp, &fault_va)) {
	case SIMGPU_WARP_FAULT:
		simgpu_fault_stall(warp, fault_va, launch->op_access);
		break;
	case SIMGPU_WARP_YIELD:
		queue_work(launch->sg->warp_wq, &warp->work);
		break;
	default:
		simgpu_launch_warp_done(launch);
		break;
	}
}

/**
 * simgpu_launch_warp_done() - a warp of the current op has ended
 * @launch: its launch
 *
 * The last touch of the warp and of @launch by whoever ends the warp: the
 * launcher may free both once the count reaches zero.
 *
 * Context: any; takes &simgpu_launch.wq.lock (under the fault lock when
 * called from the fault buffer).
 */
void simgpu_launch_warp_done(struct simgpu_launch *launch)
{
	unsigned long flags;

	spin_lock_irqsave(&launch->wq.lock, flags);
	if (!WARN_ON_ONCE(!launch->active) && !--launch->active)
		wake_up_locked(&launch->wq);
	spin_unlock_irqrestore(&launch->wq.lock, flags);
}

/**
 * simgpu_launch_init() - initialise a zeroed launch
 * @launch: the launch, allocated with room for @num_warps warps
 * @sg: the GPU
 * @vs: the GPU VA space
 * @num_warps: number of warps
 *
 * Context: any.
 */
void simgpu_launch_init(struct simgpu_launch *launch, struct simgpu *sg,
			struct simgpu_vaspace *vs, u32 num_warps)
{
	struct simgpu_warp *warp;
	u32 i;

	launch->sg = sg;
	launch->vs = vs;
	launch->num_warps = num_warps;
	init_waitqueue_head(&launch->wq);
	atomic64_set(&launch->faults_raised, 0);
	for (i = 0; i < num_warps; i++) {
		warp = &launch->warps[i];
		INIT_WORK(&warp->work, simgpu_warp_work);
		INIT_LIST_HEAD(&warp->stall_node);
		warp->launch = launch;
		warp->id = i;
	}
	atomic64_inc(&sg->launches);
}

/**
 * simgpu_launch_settled() - may the launcher stop waiting for the op?
 * @launch: the launch
 *
 * Context: any; lockless.
 * Return: true when no warp is active or the launch failed.
 */
static bool simgpu_launch_settled(struct simgpu_launch *launch)
{
	return !READ_ONCE(launch->active) || READ_ONCE(launch->failed);
}

/**
 * simgpu_launch_wait() - wait killably until the op settles
 * @launch: the launch
 * @deadline: jiffies at which the launch times out (unless the timeout is 0)
 *
 * Context: the launching thread, may sleep.
 * Return: 0, -EINTR on a fatal signal, -ETIMEDOUT past @deadline.
 */
static int simgpu_launch_wait(struct simgpu_launch *launch,
			      unsigned long deadline)
{
	long left, ret;

	if (!simgpu_launch_timeout_s)
		return wait_event_killable(launch->wq,
					   simgpu_launch_settled(launch)) ?
		       -EINTR : 0;

	left = max_t(long, (long)(deadline - jiffies), 0);
	ret = wait_event_killable_timeout(launch->wq,
					  simgpu_launch_settled(launch), left);
	if (ret < 0)
		return -EINTR;
	if (!ret) {
		pr_warn_ratelimited(SIMGPU_PREFIX "GPU %u: launch of pid %d timed out after %us in op %u, cancelled\n",
				    launch->sg->id, task_pid_nr(current),
				    simgpu_launch_timeout_s, launch->op_index);
		return -ETIMEDOUT;
	}
	return 0;
}

/**
 * simgpu_launch_settle() - end the op: abort it on error, sync with warps
 * @launch: the launch
 * @err: result of simgpu_launch_wait()
 *
 * A cancelled fault turns the result into -EREMOTEIO.  On any error the
 * launch aborts: stalled warps are ended here, running and queued ones end
 * at their next access, and this waits (uninterruptibly, briefly) for them.
 *
 * Context: the launching thread, may sleep; takes the fault lock.
 * Return: 0, -EREMOTEIO, or @err.
 */
static int simgpu_launch_settle(struct simgpu_launch *launch, int err)
{
	struct simgpu_fault_buffer *fb = &launch->sg->fault;

	spin_lock(&fb->lock);
	if (launch->failed)
		err = -EREMOTEIO;
	if (err) {
		WRITE_ONCE(launch->abort, true);
		__simgpu_fault_unstall_launch(launch);
	}
	spin_unlock(&fb->lock);

	if (err)
		wait_event(launch->wq, !READ_ONCE(launch->active));
	/* The warp that ended last may still be releasing the lock. */
	spin_lock_irq(&launch->wq.lock);
	spin_unlock_irq(&launch->wq.lock);
	return err;
}

/**
 * simgpu_launch_run_op() - run one op of a launch to its barrier
 * @launch: the launch
 * @op: the op, validated
 * @op_index: its index in the program
 * @data: kernel copy of its data buffer, or NULL
 * @deadline: jiffies at which the launch times out
 * @checksum: READ: set to the op's checksum
 *
 * Context: the launching thread, process context, may sleep.
 * Return: 0 when every access completed; -EREMOTEIO when a fault of the
 * launch was cancelled (report in @launch); -EINTR on a fatal signal;
 * -ETIMEDOUT past @deadline.  In every case no warp of the launch is
 * active, stalled or queued on return.
 */
int simgpu_launch_run_op(struct simgpu_launch *launch,
			 const struct uvm_test_gpu_op *op, u32 op_index,
			 u8 *data, unsigned long deadline, u64 *checksum)
{
	u64 stride = op->stride ?: op->access_size;
	u64 n = div64_u64(op->length, stride) + !!(op->length % stride);
	u32 nr_warps = min_t(u64, n, launch->num_warps);
	struct simgpu_warp *warp;
	u64 sum = 0;
	u32 i;
	int ret;

	launch->op = op;
	launch->op_index = op_index;
	launch->op_data = data;
	launch->op_stride = stride;
	launch->op_access = simgpu_op_access(op->type);
	simgpu_perm_init(&launch->perm, n, op->order == UVM_TEST_ORDER_RANDOM,
			 op->seed);

	spin_lock_irq(&launch->wq.lock);
	launch->active = nr_warps;
	spin_unlock_irq(&launch->wq.lock);
	for (i = 0; i < nr_warps; i++) {
		warp = &launch->warps[i];
		warp->next = i;
		warp->done = 0;
		warp->checksum = 0;
		queue_work(launch->sg->warp_wq, &warp->work);
	}

	ret = simgpu_launch_wait(launch, deadline);
	ret = simgpu_launch_settle(launch, ret);
	if (ret)
		return ret;
	for (i = 0; i < nr_warps; i++)
		sum += launch->warps[i].checksum;
	*checksum = sum;
	return 0;
}
