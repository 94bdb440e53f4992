#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# uvm_module.sh PROGRAM [PARAM=VALUE...]
#
# Runs one uvm suite the way tools/testing/selftests/kselftest/module.sh runs
# a test module: load uvm.ko with the suite's parameters (modprobe, so the
# installed module: DKMS puts it in /lib/modules/$(uname -r)/updates/dkms),
# run PROGRAM from this directory, unload the module. A uvm.ko that was
# loaded before (at boot, by modules-load.d) is unloaded first and loaded
# again afterwards with its modprobe.d options.
#
# Exit status: PROGRAM's (0 pass, 1 fail, 4 skip); 4 (KSFT_SKIP) when not
# root, when no uvm module is installed, or when uvm.ko is in use; 1 when
# uvm.ko does not load with these parameters or does not unload after the
# suite. UVM_MODPROBE overrides the modprobe command.

modprobe=${UVM_MODPROBE:-modprobe}
dir=$(dirname "$0")
prog=${1:?usage: uvm_module.sh PROGRAM [PARAM=VALUE...]}
shift

say() {
	echo "# uvm_module.sh: $*"
}

skip() {
	say "$* [SKIP]"
	exit 4	# KSFT_SKIP
}

fail() {
	say "$* [FAIL]"
	exit 1
}

loaded() {
	[ -d /sys/module/uvm ]
}

[ "$(id -u)" = 0 ] || skip "needs root to load uvm.ko"
$modprobe -q -n uvm || skip "no uvm module installed for $(uname -r)"
[ -x "$dir/$prog" ] || fail "$dir/$prog is missing"

was_loaded=0
if loaded; then
	was_loaded=1
	$modprobe -q -r uvm || skip "uvm.ko is loaded and in use"
fi

$modprobe uvm "$@" || fail "modprobe uvm $*"
"$dir/$prog"
rc=$?
if ! $modprobe -r uvm; then
	say "modprobe -r uvm failed after $prog [FAIL]"
	rc=1
fi
if [ $was_loaded = 1 ] && ! $modprobe uvm; then
	say "reloading uvm.ko as it was before failed [FAIL]"
	rc=1
fi
exit $rc
