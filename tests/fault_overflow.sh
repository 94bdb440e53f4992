#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
# uvm suite "fault_overflow": the fault suite with a 64-entry fault buffer and batches of 16.
# Runs ./fault with uvm.ko loaded as below (see uvm_module.sh).
exec "$(dirname "$0")/uvm_module.sh" fault fault_buffer_entries=64 fault_batch_size=16 prefetch=0 thrashing=0
