/* SPDX-License-Identifier: MIT */
/*
 * uvm_sim.h - libuvm's interface to the simulated GPUs of the uvm driver.
 *
 * Not part of CUDA.  Demos and tests use it where a CUDA program would
 * launch a kernel: a launch runs an "access program" (reads, writes and
 * atomics over ranges of the unified address space) on a simulated GPU,
 * through the driver's test ioctls (uapi/uvm_test.h), so GPU page faults,
 * migrations and mappings really happen.  It also reports per-page residency
 * and the driver's counters.
 *
 * Launches are stream ordered: a launch on a stream starts after the work
 * already queued on that stream (prefetches, discards, waits on events) and
 * the call returns when the launch has finished, so later work of any stream
 * sees its results.
 *
 * Available only when the module is built with its test ioctls
 * (uvmSimIsAvailable()); otherwise every call returns CUDA_ERROR_NOT_SUPPORTED.
 */
#ifndef UVM_SIM_H
#define UVM_SIM_H

#include "cuda.h"

#ifdef __cplusplus
extern "C" {
#endif

/* uvmSimOp::type */
typedef enum uvmSimOpType_enum {
	UVM_SIM_OP_READ = 1,		/* read; optional copy into data */
	UVM_SIM_OP_WRITE = 2,		/* write data, or the pattern of value */
	UVM_SIM_OP_ATOMIC_ADD = 3	/* 64-bit atomic add of value per word */
} uvmSimOpType;

/* uvmSimOp::order */
typedef enum uvmSimOrder_enum {
	UVM_SIM_ORDER_SEQUENTIAL = 1,
	UVM_SIM_ORDER_RANDOM = 2	/* a permutation seeded by seed */
} uvmSimOrder;

/*
 * One operation of an access program.  Access k covers
 * [address + k * stride, + accessSize) clipped to address + length.  Pattern
 * writes (data NULL), reads without data and atomics work on 64-bit words:
 * their address, length, stride and accessSize must be multiples of 8.
 */
typedef struct uvmSimOp_st {
	uvmSimOpType type;
	uvmSimOrder order;		/* 0 means sequential */
	CUdeviceptr address;
	size_t length;			/* bytes, > 0 */
	size_t stride;			/* 0: accessSize (dense) */
	unsigned int accessSize;	/* 1 .. 4096; 0 means 8 */
	unsigned int seed;
	unsigned long long value;	/* pattern seed / addend */
	void *data;			/* length bytes, or NULL */
	unsigned long long checksum;	/* out: READ checksum */
} uvmSimOp;

/* Where a launch ended, when it hit a fatal fault. */
typedef struct uvmSimLaunchInfo_st {
	CUdeviceptr faultAddress;	/* address of the fatal fault */
	unsigned int faultAccess;	/* uvmSimOpType of the access */
	unsigned int faultOp;		/* index of the op that faulted */
	unsigned long long faultsRaised; /* fault entries the launch wrote */
} uvmSimLaunchInfo;

/*
 * Per-page state: processor masks with bit 0 for the host and bit 1 + d for
 * device ordinal d.
 */
typedef struct uvmSimPageState_st {
	unsigned long long resident;	/* processors holding a valid copy */
	unsigned long long mappedRead;	/* mapped at least readable */
	unsigned long long mappedWrite;	/* mapped writable */
	unsigned long long mappedAtomic; /* mapped with atomics */
} uvmSimPageState;

#define UVM_SIM_HOST_BIT		(1ULL << 0)
#define UVM_SIM_DEVICE_BIT(dev)		(1ULL << (1 + (dev)))

/* Counters, indices of uvmSimGetCounters(); the values of uapi/uvm.h. */
#define UVM_SIM_COUNTER_GPU_FAULTS		0
#define UVM_SIM_COUNTER_CPU_FAULTS		5
#define UVM_SIM_COUNTER_PAGES_H2D		6
#define UVM_SIM_COUNTER_PAGES_D2H		7
#define UVM_SIM_COUNTER_PAGES_D2D		8
#define UVM_SIM_COUNTER_PAGES_DUPLICATED	17
#define UVM_SIM_COUNTER_PAGES_DISCARDED		18
#define UVM_SIM_COUNTER_PAGES_PREFETCHED	19

/* 1 when the driver has simulated GPUs and its test ioctls. */
CUresult uvmSimIsAvailable(int *available) UVM_NOEXCEPT;

/*
 * Run numOps operations on device dev with numWarps concurrent warps
 * (1 .. 1024), in stream order on hStream (NULL: the legacy stream).
 * Returns CUDA_SUCCESS, CUDA_ERROR_ILLEGAL_ADDRESS when an access hit no
 * mapping (info says where), CUDA_ERROR_INVALID_VALUE for malformed ops,
 * CUDA_ERROR_INVALID_DEVICE, CUDA_ERROR_LAUNCH_TIMEOUT.
 */
CUresult uvmSimLaunch(CUdevice dev, unsigned int numWarps, uvmSimOp *ops,
		      unsigned int numOps, CUstream hStream,
		      uvmSimLaunchInfo *info) UVM_NOEXCEPT;

/* Residency and mappings of the pages of [ptr, ptr + bytes), rounded out to
 * pages; states has room for numStates entries (one per page). */
CUresult uvmSimResidency(CUdeviceptr ptr, size_t bytes, uvmSimPageState *states,
			 size_t numStates) UVM_NOEXCEPT;

/* The driver's counters of this process; *count in: room, out: known. */
CUresult uvmSimGetCounters(unsigned long long *counters, unsigned int *count) UVM_NOEXCEPT;

/* The word a pattern WRITE stores at addr, and a READ checksum's term. */
unsigned long long uvmSimPatternWord(unsigned long long value, CUdeviceptr addr) UVM_NOEXCEPT;
unsigned long long uvmSimChecksumTerm(unsigned long long word, CUdeviceptr addr) UVM_NOEXCEPT;

/* The host page size the driver manages memory in. */
CUresult uvmSimPageSize(size_t *pageSize) UVM_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif /* UVM_SIM_H */
