#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
# uvm suite "isolation": passed descriptors, vidmem reuse across processes,
# test ioctls only when built in (4 MiB per GPU).
# Runs ./isolation with uvm.ko loaded as below (see uvm_module.sh).
exec "$(dirname "$0")/uvm_module.sh" isolation vidmem_mb=4 prefetch=0 thrashing=0
