#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
# uvm suite "memory_copy": COPY and COPY_3D between every kind of memory, fences.
# Runs ./memory_copy with uvm.ko loaded as below (see uvm_module.sh).
exec "$(dirname "$0")/uvm_module.sh" memory_copy vidmem_mb=64 prefetch=0 thrashing=0
