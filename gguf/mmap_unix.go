//go:build unix

package gguf

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"syscall"
)

// mapFile maps path read-only. It returns the bytes and the function that
// releases them (nil when the bytes were read into memory instead).
func mapFile(path string) ([]byte, func() error, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("not a regular file (%s)", st.Mode().Type())
	}
	size := st.Size()
	if size == 0 {
		// mmap refuses length 0. Read instead: an empty file then fails to
		// parse as truncated, and a /proc-like file yields its real bytes.
		data, err := io.ReadAll(fh)
		return data, nil, err
	}
	if size > math.MaxInt {
		return nil, nil, errors.New("file too large to map")
	}
	data, err := syscall.Mmap(int(fh.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		// Some file systems cannot be mapped; reading still works.
		data, rerr := io.ReadAll(fh)
		return data, nil, rerr
	}
	return data, func() error { return syscall.Munmap(data) }, nil
}
