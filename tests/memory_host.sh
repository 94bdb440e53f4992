#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
# uvm suite "memory_host": registered host memory (HOST_REGISTER/UNREGISTER).
# Runs ./memory_host with uvm.ko loaded as below (see uvm_module.sh).
exec "$(dirname "$0")/uvm_module.sh" memory_host vidmem_mb=64 prefetch=0 thrashing=0
