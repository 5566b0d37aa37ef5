package gguf

import "fmt"

// Open maps the GGUF file at path read-only and parses it. Where the file
// cannot be mapped (a platform without mmap, a file system that refuses it,
// a file such as those of /proc that reports size 0), its bytes are read into
// memory instead. The TensorInfo Data slices borrow the mapping and stay
// valid until Close. Errors name path.
//
// The mapping is shared with the file: a file truncated by another process
// while it is mapped makes later reads of its Data fault. Loaders should not
// overwrite model files in place.
func Open(path string) (*File, error) {
	data, release, err := mapFile(path)
	if err != nil {
		return nil, fmt.Errorf("gguf: %s: %w", path, err)
	}
	f, err := Parse(path, data)
	if err != nil {
		if release != nil {
			// The parse error is the one worth reporting.
			_ = release()
		}
		return nil, err
	}
	f.release = release
	return f, nil
}
