#!/usr/bin/env bash
# One GPU session (prepared by hipkern/devcarry.sh, run as .devcarry/gpu.sh): toolchain, kernel build, GPU tests, engine GPU test,
# benchmark, and the catalog mutants (kernel ones included). Run from the
# repository root on the device machine; results go to $OUT.
set -uo pipefail
OUT=${OUT:-/tmp/out}
start=$(date +%s)
tar xJf .devcarry/go.tar.xz -C /tmp
# go tool test2json is built on demand from GOROOT/src/cmd, which the
# trimmed toolchain lacks: carry it prebuilt.
cp .devcarry/test2json /tmp/go/pkg/tool/linux_amd64/test2json
export PATH=/tmp/go/bin:$PATH GOMODCACHE=$PWD/.devcarry/modcache GOCACHE=/tmp/gocache GOPROXY=off GOFLAGS=-mod=mod GOTOOLCHAIN=local GATHERMUT_NO_EMULATION=1
{
	date -u +%Y-%m-%dT%H:%M:%SZ
	nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total --format=csv,noheader
	nvcc --version | tail -2
	go version
	git log -1 --format=%H 2>/dev/null || true
	nproc
} > "$OUT/env.txt" 2>&1
if [ "${ONLY_MUTATE:-}" != 1 ]; then
bash hipkern/build.sh > "$OUT/build.log" 2>&1; echo "build rc=$? t=$(($(date +%s)-start))" >> "$OUT/build.log"
go test -count=1 -v ./hipkern ./engine > "$OUT/tests.log" 2>&1; echo "tests rc=$? t=$(($(date +%s)-start))" >> "$OUT/tests.log"
go test -count=1 -run '^$' -bench 'GPU' -benchtime 20x ./hipkern > "$OUT/bench.log" 2>&1; echo "bench rc=$? t=$(($(date +%s)-start))" >> "$OUT/bench.log"
fi
left=$((560 - ($(date +%s) - start)))
timeout "$left" .devcarry/mutate all --only-catalog --name gather-row-gpu --report-dir "$OUT" -j 16 > "$OUT/mutate.log" 2>&1
echo "mutate rc=$? t=$(($(date +%s)-start))" >> "$OUT/mutate.log"
