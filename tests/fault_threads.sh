#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
# uvm suite "fault_threads": the fault suite with 4 servicing workers per GPU.
# Runs ./fault with uvm.ko loaded as below (see uvm_module.sh).
exec "$(dirname "$0")/uvm_module.sh" fault fault_service_threads=4 fault_service_faults_per_thread=1 prefetch=0 thrashing=0
