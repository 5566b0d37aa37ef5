package gguf

import (
	"bytes"
	"fmt"
	"testing"
)

// padCounts are the padding lengths TestCountingWriterPad writes: none, a
// single byte (a tensor whose data ends one byte short of the alignment),
// and lengths on either side of the zeros buffer's 4096 bytes, where pad
// writes in pieces.
var padCounts = []uint64{0, 1, 2, 31, 4095, 4096, 4097, 8192, 8193}

// TestCountingWriterPad: pad(n) writes exactly n zero bytes and counts them.
func TestCountingWriterPad(t *testing.T) {
	for _, n := range padCounts {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			var buf bytes.Buffer
			cw := countingWriter{w: &buf}
			cw.pad(n)
			if cw.err != nil || cw.n != int64(n) || !bytes.Equal(buf.Bytes(), make([]byte, n)) {
				t.Errorf("pad(%d): wrote %d bytes (counted %d, error %v), want %d zeros", n, buf.Len(), cw.n, cw.err, n)
			}
		})
	}
}
