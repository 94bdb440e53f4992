#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
# uvm suite "oversub": oversubscription by eviction (16 MiB of vidmem per GPU).
# Runs ./oversub with uvm.ko loaded as below (see uvm_module.sh).
exec "$(dirname "$0")/uvm_module.sh" oversub vidmem_mb=16
