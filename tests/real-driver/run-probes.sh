#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# run-probes.sh OUTDIR - build the probes against NVIDIA's CUDA and run them
# on the real GPU of this machine; one results file per probe in OUTDIR.
#
# Used on the device machine (an H100/H200 with CUDA 13).  The results are
# committed under tests/real-driver/results/; the "realdriver" suite builds
# the same probes against libuvm and compares.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: run-probes.sh OUTDIR}
CUDA=${CUDA_HOME:-/usr/local/cuda}
mkdir -p "$out" "$out/bin"
export LD_LIBRARY_PATH=$CUDA/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

{
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "host kernel: $(uname -r)"
	nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv,noheader 2>&1 |
		sed 's/^/gpu: /'
	"$CUDA/bin/nvcc" --version 2>&1 | grep -i release | sed 's/^/nvcc: /'
	grep -m1 'define CUDA_VERSION' "$CUDA/include/cuda.h" | sed 's/^/cuda.h: /'
	echo "numa nodes with memory: $(cat /sys/devices/system/node/has_memory 2>/dev/null)"
	echo "cpus: $(nproc)"
	ls -l /dev/nvidia-uvm 2>&1 | sed 's/^/uvm node: /'
	grep -H . /sys/module/nvidia_uvm/parameters/* 2>/dev/null | sed 's|.*/parameters/|nvidia_uvm param: |'
} >"$out/environment.txt"

for src in "$here"/probes/probe_*.c; do
	name=$(basename "$src" .c)
	if ! gcc -std=gnu11 -O1 -Wall -I"$CUDA/include" -o "$out/bin/$name" "$src" \
		-L"$CUDA/lib64" -L"$CUDA/lib64/stubs" -lcudart -lcuda -ldl \
		>"$out/$name.compile.txt" 2>&1; then
		echo "COMPILE FAILED: $name"
		cat "$out/$name.compile.txt"
		continue
	fi
	rm -f "$out/$name.compile.txt"
	if [[ $name == probe_null ]]; then
		: >"$out/$name.txt"
		for c in $("$out/bin/$name"); do
			timeout 60 "$out/bin/$name" "$c" >>"$out/$name.txt" 2>>"$out/$name.stderr"
			rc=$?
			((rc == 0)) || echo "null.$c.exit = $rc" >>"$out/$name.txt"
		done
	else
		timeout 300 "$out/bin/$name" >"$out/$name.txt" 2>"$out/$name.stderr"
		rc=$?
		echo "exit = $rc" >>"$out/$name.txt"
	fi
	[[ -s $out/$name.stderr ]] || rm -f "$out/$name.stderr"
	echo "$name: $(wc -l <"$out/$name.txt") lines, exit $rc"
done
