#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
# uvm suite "hmm_inject": fault injection into the HMM paths (needs debugfs fault injection).
# Runs ./hmm_inject with uvm.ko loaded as below (see uvm_module.sh).
exec "$(dirname "$0")/uvm_module.sh" hmm_inject
