// SPDX-License-Identifier: MIT
/*
 * sim.h - the simulated GPU's test ABI (uapi/uvm_test.h) as libuvm reaches
 * it: only sim.cpp (uvmSim*) includes it; no production path uses the test
 * ioctls.
 */
#ifndef LIBUVM_SIM_H
#define LIBUVM_SIM_H

#include "common.h"

#include "uvm_test.h"

namespace uvm {

/* The ABI of uapi/uvm_test.h, checked here as the module checks it. */
static_assert(sizeof(struct uvm_test_gpu_op) == 80);
static_assert(sizeof(struct uvm_test_launch) == 80);
static_assert(sizeof(struct uvm_test_residency) == 32);

} // namespace uvm

#endif /* LIBUVM_SIM_H */
