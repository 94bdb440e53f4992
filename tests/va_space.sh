#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
# uvm suite "va_space": VA spaces, queries and bad input on every ioctl.
# Runs ./va_space with uvm.ko loaded as below (see uvm_module.sh).
exec "$(dirname "$0")/uvm_module.sh" va_space prefetch=0 thrashing=0
