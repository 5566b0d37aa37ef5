//go:build unix

package gguf

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fakeFile is an openFile whose stat, descriptor and reads the test picks.
type fakeFile struct {
	io.Reader
	info    fs.FileInfo
	statErr error
	fd      uintptr
}

func (f *fakeFile) Stat() (fs.FileInfo, error) { return f.info, f.statErr }
func (f *fakeFile) Fd() uintptr                { return f.fd }

type fakeInfo struct {
	size int64
	mode fs.FileMode
}

func (i fakeInfo) Name() string       { return "fake" }
func (i fakeInfo) Size() int64        { return i.size }
func (i fakeInfo) Mode() fs.FileMode  { return i.mode }
func (i fakeInfo) ModTime() time.Time { return time.Time{} }
func (i fakeInfo) IsDir() bool        { return i.mode.IsDir() }
func (i fakeInfo) Sys() any           { return nil }

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("read failed") }

// badFd is a descriptor no file has: mmap refuses it.
const badFd = ^uintptr(0)

func TestMapOpen(t *testing.T) {
	content := []byte("GGUF and more")
	tests := []struct {
		name    string
		file    *fakeFile
		want    []byte
		wantErr string
	}{
		{"stat fails", &fakeFile{Reader: bytes.NewReader(content), statErr: errors.New("stat failed")}, nil, "stat failed"},
		{"not regular", &fakeFile{Reader: bytes.NewReader(content), info: fakeInfo{size: 13, mode: fs.ModeNamedPipe}, fd: badFd},
			nil, "not a regular file (p---------)"},
		{"unmappable: read instead", &fakeFile{Reader: bytes.NewReader(content), info: fakeInfo{size: 13}, fd: badFd}, content, ""},
		{"size 0: read instead", &fakeFile{Reader: bytes.NewReader(content), info: fakeInfo{size: 0}, fd: badFd}, content, ""},
		{"unmappable and unreadable", &fakeFile{Reader: failingReader{}, info: fakeInfo{size: 13}, fd: badFd}, nil, "read failed"},
	}
	for _, tt := range tests {
		data, release, err := mapOpen(tt.file)
		if release != nil {
			t.Errorf("%s: a release function for bytes that were not mapped", tt.name)
		}
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("%s: error %v, want %q", tt.name, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !bytes.Equal(data, tt.want) {
			t.Errorf("%s: %q, %v; want %q", tt.name, data, err, tt.want)
		}
	}
}

// TestMapFileRelease: the release function unmaps, and reports munmap's
// error (here: the mapping is already gone).
func TestMapFileRelease(t *testing.T) {
	path := writeFile(t, "r.gguf", pattern(100, 3))
	data, release, err := mapFile(path)
	must(t, err)
	if release == nil || !bytes.Equal(data, pattern(100, 3)) {
		t.Fatalf("mapFile: %d bytes, release %v", len(data), release != nil)
	}
	must(t, release())
	if err := release(); !errors.Is(err, syscall.EINVAL) {
		t.Errorf("second release: %v, want EINVAL", err)
	}
}

// openDescriptor reports whether any open descriptor of this process is path.
func openDescriptor(t *testing.T, path string) bool {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	for _, e := range entries {
		if target, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil && target == path {
			return true
		}
	}
	return false
}

// mapped reports whether this process has path mapped.
func mapped(t *testing.T, path string) bool {
	t.Helper()
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Skipf("no /proc/self/maps: %v", err)
	}
	for _, line := range strings.Split(string(maps), "\n") {
		if strings.HasSuffix(line, " "+path) {
			return true
		}
	}
	return false
}

// TestOpenLeavesNothingOpen: Open keeps no descriptor (the mapping outlives
// it), and its mapping lasts until Close, or not at all when the file does
// not parse.
func TestOpenLeavesNothingOpen(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs /proc/self")
	}
	// No GC during the test: a collected *os.File closes itself, which
	// would hide a descriptor Open forgot.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))

	b := NewBuilder()
	must(t, b.AddTensor("t", TypeF32, []uint64{4}, pattern(16, 1)))
	good := writeFile(t, "good.gguf", build(t, b))
	f, err := Open(good)
	must(t, err)
	if openDescriptor(t, good) {
		t.Error("Open left its descriptor open")
	}
	if !mapped(t, good) {
		t.Fatal("an open File is not mapped")
	}
	must(t, f.Close())
	if mapped(t, good) {
		t.Error("Close left the mapping")
	}

	bad := writeFile(t, "bad.gguf", header(1, 0, 0).b)
	if _, err := Open(bad); err == nil {
		t.Fatal("Open accepted version 1")
	}
	if openDescriptor(t, bad) || mapped(t, bad) {
		t.Errorf("a failed Open left the file open (%v) or mapped (%v)", openDescriptor(t, bad), mapped(t, bad))
	}
}
