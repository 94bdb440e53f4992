#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
# uvm suite "security": an unprivileged user's call sequences against the
# rights, limits and shared work of the node.
# Runs ./security with uvm.ko loaded as below (see uvm_module.sh).
exec "$(dirname "$0")/uvm_module.sh" security prefetch=0 thrashing=0
