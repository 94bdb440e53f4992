#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
# uvm suite "policy": ADVISE, RANGE_QUERY and POINTER_INFO.
# Runs ./policy with uvm.ko loaded as below (see uvm_module.sh).
exec "$(dirname "$0")/uvm_module.sh" policy prefetch=0 thrashing=0
