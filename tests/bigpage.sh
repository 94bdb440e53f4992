#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
# uvm suite "bigpage": 64 KiB and 2 MiB GPU mappings.
# Runs ./bigpage with uvm.ko loaded as below (see uvm_module.sh).
exec "$(dirname "$0")/uvm_module.sh" bigpage vidmem_mb=4 prefetch=0 thrashing=0
