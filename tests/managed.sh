#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
# uvm suite "managed": managed memory (mmap of /dev/uvm) on the CPU.
# Runs ./managed with uvm.ko loaded as below (see uvm_module.sh).
exec "$(dirname "$0")/uvm_module.sh" managed prefetch=0 thrashing=0
