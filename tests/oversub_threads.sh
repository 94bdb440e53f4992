#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
# uvm suite "oversub_threads": oversubscription with 4 servicing workers per GPU.
# Runs ./oversub with uvm.ko loaded as below (see uvm_module.sh).
exec "$(dirname "$0")/uvm_module.sh" oversub vidmem_mb=16 fault_service_threads=4 fault_service_faults_per_thread=1
