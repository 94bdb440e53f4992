#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
# uvm suite "memory_strided": refused strided and batched copies and sets.
# Runs ./memory_strided with uvm.ko loaded as below (see uvm_module.sh).
exec "$(dirname "$0")/uvm_module.sh" memory_strided vidmem_mb=64 prefetch=0 thrashing=0
