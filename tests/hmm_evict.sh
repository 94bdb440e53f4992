#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
# uvm suite "hmm_evict": device-private pages with 8 MiB of vidmem per GPU.
# Runs ./hmm_evict with uvm.ko loaded as below (see uvm_module.sh).
exec "$(dirname "$0")/uvm_module.sh" hmm_evict vidmem_mb=8
