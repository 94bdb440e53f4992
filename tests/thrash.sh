#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
# uvm suite "thrash": thrashing detection and mitigation.
# Runs ./thrash with uvm.ko loaded as below (see uvm_module.sh).
exec "$(dirname "$0")/uvm_module.sh" thrash prefetch=0
