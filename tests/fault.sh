#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
# uvm suite "fault": GPU faults: data, residency, counters, fatal faults.
# Runs ./fault with uvm.ko loaded as below (see uvm_module.sh).
exec "$(dirname "$0")/uvm_module.sh" fault prefetch=0 thrashing=0
