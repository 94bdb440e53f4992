#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
# uvm suite "vmm": virtual memory management (MEM_* ioctls).
# Runs ./vmm with uvm.ko loaded as below (see uvm_module.sh).
exec "$(dirname "$0")/uvm_module.sh" vmm vidmem_mb=64 prefetch=0 thrashing=0
