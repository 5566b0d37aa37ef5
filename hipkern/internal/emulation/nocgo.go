//go:build !cgo

package emulation

// haveCgo: without cgo hipkern loads no library, the emulation neither.
const haveCgo = false
