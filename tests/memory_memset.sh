#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
# uvm suite "memory_memset": MEMSET and MEMSET_3D on every kind of memory.
# Runs ./memory_memset with uvm.ko loaded as below (see uvm_module.sh).
exec "$(dirname "$0")/uvm_module.sh" memory_memset vidmem_mb=64 prefetch=0 thrashing=0
