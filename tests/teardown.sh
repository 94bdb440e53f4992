#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
# uvm suite "teardown": munmap/close/exit/kill while GPUs access memory.
# Runs ./teardown with uvm.ko loaded as below (see uvm_module.sh).
exec "$(dirname "$0")/uvm_module.sh" teardown prefetch=0 thrashing=0
