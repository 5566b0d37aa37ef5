//go:build cgo

package emulation

// haveCgo: hipkern can load a library (dlopen needs cgo), so the host
// emulation can run here.
const haveCgo = true
