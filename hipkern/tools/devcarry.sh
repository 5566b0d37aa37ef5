#!/usr/bin/env bash
# Prepares .devcarry/ for a GPU machine that has CUDA but no Go: a trimmed
# Go toolchain (bin, the standard library's sources, the compile, link, asm,
# cgo, cover and vet tools), the .mod files of the module's dependencies and
# the sources of those the row's and the tool's tests import (so go needs
# no network there), a prebuilt test2json and covdata (go builds them on
# demand from GOROOT/src/cmd, which the trimmed toolchain lacks: the
# tool's nested-build tests run go tool covdata), the mutate command and
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
# The sources of the modules the row's tests import (mutants' tests load
# packages with golang.org/x/tools): their zips, not the whole cache.
for m in $(go list -deps -test -f '{{with .Module}}{{if .Version}}{{.Path}}@{{.Version}}{{end}}{{end}}' ./gather/... ./hipkern ./engine ./gguf ./mutants ./docs ./mutate/... | sort -u); do
	zip=$(go mod download -json "$m" | sed -n 's/^[[:space:]]*"Zip": "\(.*\)",$/\1/p')
	rel=${zip#"$mods"/}
	cp "$zip" "${zip%.zip}.ziphash" "$dst/modcache/cache/download/$(dirname "$rel")/"
done
go build -o "$dst/test2json" cmd/test2json
go build -o "$dst/covdata" cmd/covdata
go build -o "$dst/mutate" ./mutate
cp hipkern/tools/gpu-session.sh "$dst/gpu.sh"
du -sh "$dst"
