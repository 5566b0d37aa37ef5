#!/usr/bin/env bash
# Prepares .devcarry/ for a GPU machine that has CUDA but no Go: a trimmed
# Go toolchain (bin, the standard library's sources, the compile, link, asm,
# cgo, cover and vet tools), the .mod files of the module's dependencies (so
# go needs no network there), a prebuilt test2json, the mutate command and
# hipkern/tools/gpu-session.sh (as .devcarry/gpu.sh). Run from the
# repository root: bash hipkern/tools/devcarry.sh; then send the checkout
# with .devcarry and run `bash .devcarry/gpu.sh` there (README.md here).
set -euo pipefail
root=$(go env GOROOT)
dst=.devcarry
mkdir -p "$dst"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/go/pkg/tool/linux_amd64"
(cd "$root" && tar cf - --exclude='*_test.go' --exclude=testdata --exclude=src/cmd bin src lib go.env VERSION pkg/include) | (cd "$tmp/go" && tar xf -)
for t in compile link asm cgo cover vet; do cp "$root/pkg/tool/linux_amd64/$t" "$tmp/go/pkg/tool/linux_amd64/"; done
(cd "$tmp" && tar cf - go) | xz -6 > "$dst/go.tar.xz"
mods=$(go env GOMODCACHE)/cache/download
rm -rf "$dst/modcache"
mkdir -p "$dst/modcache/cache/download"
(cd "$mods" && find . \( -name '*.mod' -o -name '*.info' \) | tar cf - -T -) | (cd "$dst/modcache/cache/download" && tar xf -)
go build -o "$dst/test2json" cmd/test2json
go build -o "$dst/mutate" ./mutate
cp hipkern/tools/gpu-session.sh "$dst/gpu.sh"
du -sh "$dst"
