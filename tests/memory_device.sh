#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
# uvm suite "memory_device": device memory (mmap at UVM_MMAP_DEVICE).
# Runs ./memory_device with uvm.ko loaded as below (see uvm_module.sh).
exec "$(dirname "$0")/uvm_module.sh" memory_device vidmem_mb=64 prefetch=0 thrashing=0
