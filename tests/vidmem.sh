#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
# uvm suite "vidmem": vidmem accounting and running out of it (4 MiB per GPU).
# Runs ./vidmem with uvm.ko loaded as below (see uvm_module.sh).
exec "$(dirname "$0")/uvm_module.sh" vidmem vidmem_mb=4 prefetch=0 thrashing=0
