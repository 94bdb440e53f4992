#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
# uvm suite "migrate": prefetch, discard and their batches, fences.
# Runs ./migrate with uvm.ko loaded as below (see uvm_module.sh).
exec "$(dirname "$0")/uvm_module.sh" migrate prefetch=0 thrashing=0
