# SPDX-License-Identifier: GPL-2.0 OR MIT
# shellcheck shell=bash
#
# Shared helpers for scripts/uvm and scripts/vm/*. Sourced, never executed.
#
# Paths:
#   UVM_SRC        repository root
#   UVM_BUILD      meson build directory (UVM_BUILD_DIR, default $UVM_SRC/build)
#   UVM_CACHE      cache outside the tree (UVM_CACHE_DIR, else $XDG_CACHE_HOME/uvm,
#                  else ~/.cache/uvm): debug kernels, initramfs images

UVM_SRC=${UVM_SRC:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
UVM_BUILD=${UVM_BUILD_DIR:-$UVM_SRC/build}
UVM_CACHE=${UVM_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/uvm}
UVM_JOBS=${UVM_JOBS:-$(nproc)}

# Where the distro kernel's headers and image live (overridable for tests).
UVM_BOOT_DIR=${UVM_BOOT_DIR:-/boot}
UVM_HEADERS_ROOT=${UVM_HEADERS_ROOT:-/usr/src}

uvm_log() { printf 'uvm: %s\n' "$*" >&2; }
uvm_die() { printf 'uvm: error: %s\n' "$*" >&2; exit 1; }

# uvm_distro_kver - newest kernel version of Debian 12's own line (6.1;
# UVM_DISTRO_LINE overrides) with both /boot/vmlinuz-V and
# /usr/src/linux-headers-V (UVM_DISTRO_KVER overrides).  Newer kernels from
# bookworm-backports installed beside it are not the distro kernel.
uvm_distro_kver() {
	if [[ -n ${UVM_DISTRO_KVER:-} ]]; then
		echo "$UVM_DISTRO_KVER"
		return
	fi
	local v best="" line=${UVM_DISTRO_LINE:-6.1}
	while read -r v; do
		[[ $v == "$line".* ]] || continue
		[[ -d $UVM_HEADERS_ROOT/linux-headers-$v ]] && best=$v
	done < <(find "$UVM_BOOT_DIR" -maxdepth 1 -name 'vmlinuz-*' -printf '%f\n' |
		 sed 's/^vmlinuz-//' | sort -V)
	[[ -n $best ]] || uvm_die "no kernel in $UVM_BOOT_DIR with matching headers in $UVM_HEADERS_ROOT (run: ./scripts/uvm deps)"
	echo "$best"
}

# uvm_distro_kdir - kbuild directory of the distro kernel.
uvm_distro_kdir() { echo "$UVM_HEADERS_ROOT/linux-headers-$(uvm_distro_kver)"; }

# uvm_debug_key - cache key of the debug kernel: hash of the config fragment,
# the base config recipe, the kernel builder script, the source package
# version and the compiler. Prints "<pkgversion>-<hash12>".
uvm_debug_key() {
	local pkgver gccver
	pkgver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null) ||
		uvm_die "linux-source-6.1 is not installed (run: ./scripts/uvm deps)"
	gccver=$(gcc -dumpfullversion 2>/dev/null || echo unknown)
	local h
	h=$( { echo "base=tinyconfig arch=x86_64"
	       echo "pkg=$pkgver gcc=$gccver"
	       cat "$UVM_SRC/scripts/debug-kernel.config"
	       sed -n '/^# BEGIN KEYED/,/^# END KEYED/p' "$UVM_SRC/scripts/vm/debug-kernel"
	     } | sha256sum | cut -c1-12)
	echo "${pkgver}-$h"
}

# uvm_debug_dir - cache directory of the current debug kernel.
uvm_debug_dir() { echo "$UVM_CACHE/kernels/debug-$(uvm_debug_key)"; }

# uvm_kvm_works - true when /dev/kvm is usable by QEMU (UVM_ACCEL=tcg|kvm
# forces the answer). The answer is cached for this process.
uvm_kvm_works() {
	case ${UVM_ACCEL:-auto} in
	kvm) return 0 ;;
	tcg) return 1 ;;
	esac
	if [[ -z ${_UVM_KVM_OK:-} ]]; then
		_UVM_KVM_OK=no
		# A QEMU that cannot set up a KVM vCPU aborts here (seen on
		# nested hosts: "failed to set MSR"); a working one quits cleanly.
		if [[ -r /dev/kvm && -w /dev/kvm ]] &&
		   (echo quit | timeout 20 qemu-system-x86_64 -machine q35,accel=kvm \
			-cpu host -m 64 -nodefaults -display none -S \
			-monitor stdio) >/dev/null 2>&1; then
			_UVM_KVM_OK=yes
		fi
	fi
	[[ $_UVM_KVM_OK == yes ]]
}
