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

# The guest kernels. A "distro" kernel is a stock Debian image with its
# headers: from /boot and /usr/src (6.1, 6.12), or from the trixie tree of
# scripts/vm/trixie-root (7.3); a "debug" kernel is built by
# scripts/vm/debug-kernel from a Debian linux-source package. Each name maps
# to a kernel line.
UVM_KERNELS=(distro debug distro612 debug612 distro73 debug73)

# uvm_kernel_series KERNEL - the kernel line (6.1, 6.12, 7.3) of a guest kernel.
uvm_kernel_series() {
	case $1 in
	distro|debug) echo 6.1 ;;
	distro612|debug612) echo 6.12 ;;
	distro73|debug73) echo 7.3 ;;
	*) uvm_die "unknown kernel '$1' (${UVM_KERNELS[*]})" ;;
	esac
}

# The Debian mirror of the trixie tree (debootstrap, apt).
UVM_DEBIAN_MIRROR=${UVM_DEBIAN_MIRROR:-http://deb.debian.org/debian}

# uvm_trixie_root - the directory of the trixie tree (scripts/vm/trixie-root
# builds it): $UVM_CACHE/roots/trixie-<hash of its recipe>.
uvm_trixie_root() {
	local h
	h=$(sed -n '/^# BEGIN KEYED/,/^# END KEYED/p' "$UVM_SRC/scripts/vm/trixie-root" |
	    sha256sum | cut -c1-12)
	echo "$UVM_CACHE/roots/trixie-$h"
}

# uvm_kernel_root KERNEL - the tree KERNEL's packages live in: "" for the
# host's own (6.1, 6.12), the trixie tree for 7.x.
uvm_kernel_root() {
	case $(uvm_kernel_series "$1") in
	7.*) uvm_trixie_root ;;
	*) echo "" ;;
	esac
}

# uvm_as_root CMD... - run CMD as root (directly, or through sudo).
uvm_as_root() {
	if ((EUID == 0)); then
		"$@"
	else
		command -v sudo >/dev/null || uvm_die "need root or sudo for: $*"
		sudo "$@"
	fi
}

# uvm_in_root ROOT [DIR...] -- CMD... - run CMD chrooted in ROOT, in a mount
# namespace of its own where /proc and each host DIR (at the same path) are
# mounted; nothing stays mounted when it returns.
uvm_in_root() {
	local root=$1 binds=() d
	shift
	while (($#)) && [[ $1 != -- ]]; do
		binds+=("$(readlink -f "$1")")
		shift
	done
	shift
	for d in "${binds[@]}"; do uvm_as_root mkdir -p "$root$d"; done
	# shellcheck disable=SC2016
	uvm_as_root unshare --mount --propagation private -- bash -c '
		root=$1 n=$2
		shift 2
		for ((i = 0; i < n; i++)); do
			mount --bind "$1" "$root$1" || exit 1
			shift
		done
		mount -t proc proc "$root/proc" || exit 1
		exec chroot "$root" "$@"' uvm-in-root "$root" "${#binds[@]}" "${binds[@]}" "$@"
}

# uvm_is_debug KERNEL - true for a kernel built by scripts/vm/debug-kernel.
uvm_is_debug() { [[ $1 == debug* ]]; }

# uvm_distro_kver [KERNEL] - newest release of KERNEL's line (default:
# distro, 6.1) with both boot/vmlinuz-V and usr/src/linux-headers-V (under
# the kernel's root).  UVM_DISTRO_KVER (6.1), UVM_DISTRO612_KVER (6.12) and
# UVM_DISTRO73_KVER (7.3) override.
uvm_distro_kver() {
	local kernel=${1:-distro} series override root
	series=$(uvm_kernel_series "$kernel")
	case $kernel in
	distro) override=${UVM_DISTRO_KVER:-} ;;
	distro73) override=${UVM_DISTRO73_KVER:-} ;;
	*) override=${UVM_DISTRO612_KVER:-} ;;
	esac
	if [[ -n $override ]]; then
		echo "$override"
		return
	fi
	root=$(uvm_kernel_root "$kernel")
	local v best="" boot=$root$UVM_BOOT_DIR headers=$root$UVM_HEADERS_ROOT
	[[ -d $boot ]] || uvm_die "no $boot (run: ./scripts/uvm deps)"
	while read -r v; do
		[[ $v == "$series".* ]] || continue
		[[ -d $headers/linux-headers-$v ]] && best=$v
	done < <(find "$boot" -maxdepth 1 -name 'vmlinuz-*' -printf '%f\n' |
		 sed 's/^vmlinuz-//' | sort -V)
	[[ -n $best ]] || uvm_die "no $series kernel in $boot with matching headers in $headers (run: ./scripts/uvm deps)"
	echo "$best"
}

# uvm_distro_kdir [KERNEL] - kbuild directory of a distro kernel.
uvm_distro_kdir() {
	local k=${1:-distro}
	echo "$(uvm_kernel_root "$k")$UVM_HEADERS_ROOT/linux-headers-$(uvm_distro_kver "$k")"
}

# uvm_distro_image KERNEL - the boot image of a distro kernel.
uvm_distro_image() { echo "$(uvm_kernel_root "$1")$UVM_BOOT_DIR/vmlinuz-$(uvm_distro_kver "$1")"; }

# uvm_source_pkg KERNEL - the Debian linux-source package of KERNEL's line.
uvm_source_pkg() { echo "linux-source-$(uvm_kernel_series "$1")"; }

# uvm_source_tarball KERNEL - that package's kernel source tarball.
uvm_source_tarball() { echo "$(uvm_kernel_root "$1")/usr/src/$(uvm_source_pkg "$1").tar.xz"; }

# uvm_pkg_version KERNEL PKG - the installed version of PKG, in KERNEL's root.
uvm_pkg_version() {
	local root
	root=$(uvm_kernel_root "$1")
	dpkg-query --admindir="$root/var/lib/dpkg" -W -f='${Version}' "$2" 2>/dev/null
}

# uvm_debug_fragments KERNEL - the config fragments of a debug kernel, in
# the order they are merged: the shared one, then each line's own
# (scripts/debug-kernel-<line>.config: what that line renamed or added, which
# holds for the later lines too) up to KERNEL's line, oldest first.
uvm_debug_fragments() {
	local series f v
	series=$(uvm_kernel_series "$1")
	echo "$UVM_SRC/scripts/debug-kernel.config"
	for f in $(find "$UVM_SRC/scripts" -maxdepth 1 -name 'debug-kernel-*.config' | sort -V); do
		v=${f##*/debug-kernel-}
		v=${v%.config}
		[[ $(printf '%s\n' "$v" "$series" | sort -V | tail -n1) == "$series" ]] && echo "$f"
	done
}

# uvm_debug_key [KERNEL] - cache key of a debug kernel (default debug): hash
# of the config fragments, the base config recipe, the kernel builder script,
# the source package version and the compiler. Prints "<pkgversion>-<hash12>".
uvm_debug_key() {
	local kernel=${1:-debug} pkg pkgver gccver frags
	pkg=$(uvm_source_pkg "$kernel")
	pkgver=$(uvm_pkg_version "$kernel" "$pkg") ||
		uvm_die "$pkg is not installed (run: ./scripts/uvm deps)"
	pkgver=${pkgver//[~:+]/_}	# a plain path component for kbuild
	gccver=$(gcc -dumpfullversion 2>/dev/null || echo unknown)
	mapfile -t frags < <(uvm_debug_fragments "$kernel")
	local h
	h=$( { echo "base=tinyconfig arch=x86_64"
	       echo "pkg=$pkgver gcc=$gccver"
	       cat "${frags[@]}"
	       sed -n '/^# BEGIN KEYED/,/^# END KEYED/p' "$UVM_SRC/scripts/vm/debug-kernel"
	     } | sha256sum | cut -c1-12)
	echo "${pkgver}-$h"
}

# uvm_debug_dir [KERNEL] - cache directory of a debug kernel (default debug):
# $UVM_CACHE/kernels/<kernel>-<key>.
uvm_debug_dir() {
	local kernel=${1:-debug}
	echo "$UVM_CACHE/kernels/$kernel-$(uvm_debug_key "$kernel")"
}

# uvm_kernel_release KERNEL - the release (uname -r) of a guest kernel.
uvm_kernel_release() {
	if uvm_is_debug "$1"; then
		cat "$(uvm_debug_dir "$1")/kernelrelease"
	else
		uvm_distro_kver "$1"
	fi
}

# uvm_kvm_works - true when /dev/kvm is usable by QEMU (UVM_ACCEL=tcg|kvm
# forces the answer). The answer is cached for this process, and per host
# kernel and QEMU in the cache directory (the boot test below takes seconds).
uvm_kvm_works() {
	case ${UVM_ACCEL:-auto} in
	kvm) return 0 ;;
	tcg) return 1 ;;
	esac
	if [[ -z ${_UVM_KVM_OK:-} ]]; then
		local stamp k qv
		qv=$(qemu-system-x86_64 --version 2>/dev/null | head -n1 | tr -c 'a-zA-Z0-9.\n' _)
		stamp=$UVM_CACHE/accel-$(uname -r)-$qv
		if [[ -f $stamp ]]; then
			_UVM_KVM_OK=$(cat "$stamp")
		else
			_UVM_KVM_OK=no
			k=$(find /boot -maxdepth 1 -name 'vmlinuz-*' 2>/dev/null | sort | tail -n1)
			# A QEMU that cannot set up a KVM vCPU aborts at once (seen
			# on nested hosts: "failed to set MSR"); on some nested
			# hosts the vCPU starts but a Linux guest never gets
			# anywhere.  So boot a kernel without a root file system:
			# it panics and QEMU exits (-no-reboot), in a second or two
			# where KVM works.
			if [[ -r /dev/kvm && -w /dev/kvm && -n $k ]] &&
			   (echo quit | timeout 20 qemu-system-x86_64 -machine q35,accel=kvm \
				-cpu host -m 64 -nodefaults -display none -S \
				-monitor stdio) >/dev/null 2>&1 &&
			   timeout 30 qemu-system-x86_64 -machine q35,accel=kvm -cpu host -m 256 \
				-nodefaults -display none -no-reboot -kernel "$k" \
				-append "panic=-1 quiet" </dev/null >/dev/null 2>&1; then
				_UVM_KVM_OK=yes
			fi
			if [[ -n $k ]]; then
				mkdir -p "$UVM_CACHE"
				echo "$_UVM_KVM_OK" >"$stamp"
			fi
		fi
	fi
	[[ $_UVM_KVM_OK == yes ]]
}
