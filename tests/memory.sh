#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
# uvm suite "memory": device and registered host memory, COPY and MEMSET.
# Runs ./memory with uvm.ko loaded as below (see uvm_module.sh).
exec "$(dirname "$0")/uvm_module.sh" memory vidmem_mb=64 prefetch=0 thrashing=0
