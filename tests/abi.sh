#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
# uvm suite "abi": layout of every uapi structure and ioctl number.
# Runs ./abi with uvm.ko loaded as below (see uvm_module.sh).
exec "$(dirname "$0")/uvm_module.sh" abi
