// Command gencodebooks writes gather/codebooks.go, the Go form of the GGML
// lookup tables kept as text in testdata/codebooks (one value per line, index
// 0 first).
//
// Usage, from the gather directory (see the go:generate line in dequant.go):
//
//	go run ./internal/gencodebooks -dir ../testdata/codebooks -out codebooks.go
//
// The build and the tests never run it: codebooks.go is committed, and a test
// in this package checks that it is exactly what the text tables produce.
package main
