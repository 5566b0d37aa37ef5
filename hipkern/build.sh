#!/usr/bin/env bash
# build.sh: build the gather kernel library that the Go binding dlopens.
#
#   bash hipkern/build.sh [--src DIR] [--out FILE] [--compiler hipcc|nvcc|emulate]
#
# --src     directory holding gather.hip and its headers (default: this
#           script's directory); the mutation tool passes a temporary copy.
# --out     the shared library to write (default: build/libgathermut_hip.so
#           next to the sources of this script, i.e. hipkern/build/).
# --compiler picks the toolchain; by default hipcc (gfx1100) when hipcc and a
#           ROCm runtime are present, else nvcc for the NVIDIA GPU it finds.
#           "emulate" builds the sequential host emulation with c++ (for
#           developing the binding without a GPU; never GPU evidence).
#
# Floats: -ffp-contract=off (hipcc, c++) and -fmad=false (nvcc), so no
# multiply-add is fused and the output is bit-identical to the Go decoders.
# hipcc gets -nogpulib: the kernels call no device-library function (the
# gfx1100 compile check proves it), and Debian's ROCm ships no gfx1100
# device library. GM_PTXAS_VERBOSE=1 makes nvcc print each kernel's
# registers, stack frame and spills.
set -euo pipefail

# No external command runs before the compiler check (parameter expansion,
# not dirname), so the "no compiler" message comes out even on a bare PATH.
script="${BASH_SOURCE[0]}"
case "$script" in
*/*) here="$(cd "${script%/*}" && pwd)" ;;
*) here="$PWD" ;;
esac
src="$here"
out="$here/build/libgathermut_hip.so"
compiler=""

while [ $# -gt 0 ]; do
	case "$1" in
	--src) src="$2"; shift 2 ;;
	--out) out="$2"; shift 2 ;;
	--compiler) compiler="$2"; shift 2 ;;
	-h | --help) sed -n '2,16p' "$script"; exit 0 ;;
	*) echo "hipkern: build.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done

if [ ! -f "$src/gather.hip" ]; then
	echo "hipkern: build.sh: no gather.hip in $src" >&2
	exit 2
fi

have_rocm_runtime() {
	[ -e /opt/rocm/lib/libamdhip64.so ] || ldconfig -p 2>/dev/null | grep -q 'libamdhip64\.so'
}

if [ -z "$compiler" ]; then
	if command -v hipcc >/dev/null 2>&1 && have_rocm_runtime; then
		compiler=hipcc
	elif command -v nvcc >/dev/null 2>&1; then
		compiler=nvcc
	else
		echo "hipkern: build.sh: neither hipcc with a ROCm runtime nor nvcc found; cannot build the kernel library" >&2
		exit 1
	fi
fi

mkdir -p "$(dirname "$out")"
case "$compiler" in
hipcc)
	hipcc --offload-arch=gfx1100 -nogpulib -ffp-contract=off -fPIC -shared -O2 \
		-o "$out" "$src/gather.hip"
	echo "hipkern: built with hipcc for gfx1100: $out"
	;;
nvcc)
	arch=""
	if command -v nvidia-smi >/dev/null 2>&1; then
		cap="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n1 | tr -d ' .')"
		if [ -n "$cap" ]; then arch="sm_$cap"; fi
	fi
	if [ -n "$arch" ]; then
		archflag="-arch=$arch"
	else
		archflag="-arch=native"
		arch="native"
	fi
	verbose=()
	if [ "${GM_PTXAS_VERBOSE:-}" = 1 ]; then verbose=(-Xptxas -v); fi
	nvcc -x cu -O2 -fmad=false "$archflag" -shared -Xcompiler -fPIC \
		-Xptxas -warn-spills -Xptxas -warn-lmem-usage "${verbose[@]}" \
		-o "$out" "$src/gather.hip"
	echo "hipkern: built with nvcc for $arch: $out"
	;;
emulate)
	# -fsanitize=bounds with traps: an index past a local array of a
	# decoder or store (their chunk arrays are passed as float (&)[N]) stops
	# the process, as an out-of-bounds write would corrupt a GPU thread's
	# registers; no sanitizer runtime is needed in the dlopened library.
	c++ -x c++ -std=c++14 -DGM_HOST_EMULATION -O2 -ffp-contract=off -fPIC -shared \
		-fsanitize=bounds -fsanitize-undefined-trap-on-error \
		-Wall -Wno-unknown-pragmas -o "$out" "$src/gather.hip"
	echo "hipkern: built with c++ as a host emulation (no GPU): $out"
	;;
*)
	echo "hipkern: build.sh: unknown compiler $compiler (want hipcc, nvcc or emulate)" >&2
	exit 2
	;;
esac
