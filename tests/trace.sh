#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
# uvm suite "trace": every tracepoint of system uvm fires (tracefs).
# Runs ./trace with uvm.ko loaded as below (see uvm_module.sh).
exec "$(dirname "$0")/uvm_module.sh" trace prefetch=0 vidmem_mb=4
