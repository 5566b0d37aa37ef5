//go:build !unix

package gguf

import "os"

// mapFile reads path into memory: this platform has no syscall.Mmap.
func mapFile(path string) ([]byte, func() error, error) {
	data, err := os.ReadFile(path)
	return data, nil, err
}
