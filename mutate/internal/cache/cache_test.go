package cache

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadWrite(t *testing.T) {
	t.Setenv("GATHERMUT_CACHE", t.TempDir())
	type entry struct{ Key, Value string }
	var got entry
	if Read("kind", "abcd", &got) {
		t.Fatal("read an entry never written")
	}
	if err := Write("kind", "abcd", entry{"abcd", "v"}); err != nil {
		t.Fatal(err)
	}
	if !Read("kind", "abcd", &got) || got != (entry{"abcd", "v"}) {
		t.Errorf("read back %+v", got)
	}
	if Read("other", "abcd", &got) {
		t.Errorf("kinds share entries")
	}
	// a corrupt entry reads as none
	path := filepath.Join(Dir(), "kind", "ab", "abcd.json.gz")
	if err := os.WriteFile(path, []byte("not gzip"), 0o644); err != nil {
		t.Fatal(err)
	}
	if Read("kind", "abcd", &got) {
		t.Errorf("a corrupt entry read")
	}
	if id := Tool(); !strings.HasPrefix(id, Version+"-") || len(id) != len(Version)+1+24 {
		t.Errorf("tool id %q, want the version and 12 bytes of the binary's sha256", id)
	}
}
