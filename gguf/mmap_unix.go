//go:build unix

package gguf

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
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
	return mapOpen(fh)
}

// openFile is what mapOpen needs of an open *os.File. It lets tests supply
// the failures a real file cannot be made to show (a failing stat, an
// unmappable descriptor).
type openFile interface {
	io.Reader
	Stat() (fs.FileInfo, error)
	Fd() uintptr
}

// mapOpen maps the whole of fh read-only, or reads it where it cannot be
// mapped; the mapping outlives fh.
func mapOpen(fh openFile) ([]byte, func() error, error) {
	st, err := fh.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("not a regular file (%s)", st.Mode().Type())
	}
	size := st.Size()
	if int64(int(size)) != size {
		return nil, nil, errors.New("file too large to map") // only where int is 32 bits
	}
	data, err := syscall.Mmap(int(fh.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		// Some file systems cannot be mapped, and syscall.Mmap refuses
		// length 0: an empty file then fails to parse as truncated, and a
		// /proc file, which reports size 0, yields its real bytes.
		data, rerr := io.ReadAll(fh)
		return data, nil, rerr
	}
	return data, func() error { return syscall.Munmap(data) }, nil
}
