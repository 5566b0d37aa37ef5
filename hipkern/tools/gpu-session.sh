#!/usr/bin/env bash
# One GPU session (prepared by hipkern/tools/devcarry.sh, run as .devcarry/gpu.sh):
# toolchain, kernel build, the hipkern and engine GPU tests, the anchor-shape
# benchmark (with PyTorch's embedding of the expanded bf16 table beside it,
# where PyTorch is installed), and the catalog mutants (kernel ones
# included). Run from the repository root on the device machine; results go
# to $OUT (7 files: env.txt, build.log, tests.log, bench.log, mutate.log and
# the catalog report's .json and .md; the device machine returns at most 8).
# It ends within 9 minutes: the mutation run gets
# the time the steps before it left. ONLY_MUTATE=1 runs the mutation run
# alone, NO_MUTATE=1 everything but it. The tests find the library that
# build.sh writes (hipkern/build/libgathermut_hip.so) by hipkern's
# tests-only rule (build/ beside the package source); the mutation run
# names each kernel it builds in GATHERMUT_HIPKERN_LIB.
set -uo pipefail
OUT=${OUT:-/tmp/out}
start=$(date +%s)
tar xJf .devcarry/go.tar.xz -C /tmp
# go tool test2json and covdata are built on demand from GOROOT/src/cmd,
# which the trimmed toolchain lacks: they are carried prebuilt.
cp .devcarry/test2json /tmp/go/pkg/tool/linux_amd64/test2json
cp .devcarry/covdata /tmp/go/pkg/tool/linux_amd64/covdata
export PATH=/tmp/go/bin:$PATH GOMODCACHE=$PWD/.devcarry/modcache GOCACHE=/tmp/gocache GOPROXY=off GOFLAGS=-mod=mod GOTOOLCHAIN=local GATHERMUT_NO_EMULATION=1
{
	date -u +%Y-%m-%dT%H:%M:%SZ
	nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader
	nvcc --version | tail -2
	go version
	git log -1 --format=%H 2>/dev/null || true
	nproc
	sha256sum hipkern/gather.hip hipkern/decoders.h hipkern/compat.h hipkern/codebooks.h hipkern/codecs.h hipkern/build.sh
} > "$OUT/env.txt" 2>&1
elapsed() { echo $(($(date +%s) - start)); }
if [ "${ONLY_MUTATE:-}" != 1 ]; then
	GM_PTXAS_VERBOSE=1 bash hipkern/build.sh > "$OUT/build.log" 2>&1
	echo "build rc=$? t=$(elapsed)" >> "$OUT/build.log"
	go test -count=1 -v ./hipkern ./engine > "$OUT/tests.log" 2>&1
	echo "tests rc=$? t=$(elapsed)" >> "$OUT/tests.log"
	go test -count=1 -run '^$' -bench 'GPUAnchor' -benchtime 20x ./hipkern > "$OUT/bench.log" 2>&1
	echo "bench rc=$? t=$(elapsed)" >> "$OUT/bench.log"
	if python3 -c 'import torch' 2>/dev/null; then
		timeout 60 python3 - >> "$OUT/bench.log" 2>&1 <<'PY'
# The PyTorch baseline: what a user does instead of the packed gather, timed at
# the anchor shape of hipkern's BenchmarkGPUAnchor: torch.nn.functional.
# embedding on the table expanded to bf16 (151,936 x 4,096), 65,536 uniform
# random ids, int32 and int64; and a device-to-device copy of the output's
# bytes. Mean of 20 back-to-back calls (CUDA events around them, after a
# warm-up) and median of 21 calls timed one by one, in microseconds.
import statistics

import torch

VOCAB, HIDDEN, IDS = 151936, 4096, 65536


def timed(fn, n):
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(n):
        fn()
    stop.record()
    stop.synchronize()
    return start.elapsed_time(stop) * 1e3 / n


def row(name, fn, nbytes):
    fn()
    torch.cuda.synchronize()
    mean = timed(fn, 20)
    med = statistics.median(timed(fn, 1) for _ in range(21))
    print(f"| {name} | {mean:.1f} | {med:.1f} | {nbytes / mean / 1e6:.2f} |")


g = torch.Generator(device="cuda").manual_seed(14)
table = torch.randn(VOCAB, HIDDEN, device="cuda", generator=g).to(torch.bfloat16)
ids64 = torch.randint(0, VOCAB, (IDS,), device="cuda", generator=g)
ids32 = ids64.to(torch.int32)
out = torch.empty(IDS, HIDDEN, device="cuda", dtype=torch.bfloat16)
src = torch.randn(IDS, HIDDEN, device="cuda", generator=g).to(torch.bfloat16)
nbytes = 2 * IDS * HIDDEN * 2
print(f"\ntorch {torch.__version__} on {torch.cuda.get_device_name()}: {IDS} ids into {VOCAB} x {HIDDEN} bf16")
print("| what | mean µs | median µs | TB/s (rows read + out written, mean) |")
print("|---|---:|---:|---:|")
row("torch.nn.functional.embedding, int32 ids", lambda: torch.nn.functional.embedding(ids32, table), nbytes)
row("torch.nn.functional.embedding, int64 ids", lambda: torch.nn.functional.embedding(ids64, table), nbytes)
row("out.copy_(src), 512 MiB device to device", lambda: out.copy_(src), nbytes)
PY
		echo "torch rc=$? t=$(elapsed)" >> "$OUT/bench.log"
	fi
fi
if [ "${NO_MUTATE:-}" = 1 ]; then
	exit 0
fi
# The catalog on the GPU, as a new user runs it (-j JOBS, default 16: every
# CPU), then again with -j 4 (COMPARE_JOBS; 0 skips it): the verdicts must
# be the same (GPU slots bound the processes on the GPU, whatever -j).
left=$((540 - $(elapsed)))
jobs=${JOBS:-16}
rep=$(mktemp -d)  # the HTML report stays there: $OUT returns at most 8 files
timeout "$left" .devcarry/mutate all --only-catalog --name gather-row-gpu --report-dir "$rep" -j "$jobs" --no-cache > "$OUT/mutate.log" 2>&1
echo "mutate -j $jobs rc=$? t=$(elapsed)" >> "$OUT/mutate.log"
cp "$rep"/gather-row-gpu.{json,md} "$OUT/"
compare=${COMPARE_JOBS:-4}
if [ "$compare" != 0 ]; then
	left=$((540 - $(elapsed)))
	mkdir -p /tmp/cmp
	timeout "$left" .devcarry/mutate all --only-catalog --name gather-row-gpu-j$compare --report-dir /tmp/cmp -j "$compare" --no-cache > /tmp/cmp/mutate.log 2>&1
	echo "mutate -j $compare rc=$? t=$(elapsed)" >> /tmp/cmp/mutate.log
	{ echo "--- the -j $compare run:"; cat /tmp/cmp/mutate.log; } >> "$OUT/mutate.log"
	# one line per mutant: id, status, expected killer, in both runs
	for f in "$OUT/gather-row-gpu.json" "/tmp/cmp/gather-row-gpu-j$compare.json"; do
		python3 -c 'import json,sys
r=json.load(open(sys.argv[1]))
for f in r["files"].values():
    for m in f["mutants"]:
        g=m.get("gathermut",{}).get("result",{})
        print(m["id"], m["status"], g.get("expectedKiller",False))' "$f" | sort > "$f.verdicts" 2>/dev/null
	done
	if cmp -s "$OUT/gather-row-gpu.json.verdicts" "/tmp/cmp/gather-row-gpu-j$compare.json.verdicts"; then
		echo "verdicts -j $jobs and -j $compare: identical ($(wc -l < "$OUT/gather-row-gpu.json.verdicts") mutants)" >> "$OUT/mutate.log"
	else
		echo "verdicts -j $jobs and -j $compare differ:" >> "$OUT/mutate.log"
		diff "$OUT/gather-row-gpu.json.verdicts" "/tmp/cmp/gather-row-gpu-j$compare.json.verdicts" >> "$OUT/mutate.log"
	fi
	rm -f "$OUT/gather-row-gpu.json.verdicts"
fi
