// Command gencodebooks writes hipkern/codebooks.h, the device copy of the
// GGML lookup tables, from the plain-data codebooks (one value per line, in
// upstream order; see testdata/codebooks/README.md). From the module root:
//
//	go run ./hipkern/internal/gencodebooks [-src testdata/codebooks] [-out hipkern/codebooks.h]
//
// The header records the sha256 of every source file it was made from, and
// hipkern's TestCodebooksHeader recomputes those sums from the parsed
// header, so a hand edit or a stale header fails the tests without the
// source files. Its own test regenerates the header from testdata/codebooks
// and requires the committed one to be identical.
package main
