package gather

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math/bits"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// leBytes returns a table's entries as little-endian bytes, the form its
// recorded checksum covers.
func leBytes[T uint64 | uint32 | uint8 | int8](table []T) []byte {
	var out []byte
	for _, v := range table {
		switch x := any(v).(type) {
		case uint64:
			out = binary.LittleEndian.AppendUint64(out, x)
		case uint32:
			out = binary.LittleEndian.AppendUint32(out, x)
		case uint8:
			out = append(out, x)
		case int8:
			out = append(out, byte(x))
		}
	}
	return out
}

// TestCodebookChecksums pins every table to the sha256 of its little-endian
// bytes, computed once from the text tables in testdata/codebooks, so a
// single changed entry fails.
func TestCodebookChecksums(t *testing.T) {
	for _, tc := range []struct {
		name  string
		bytes []byte
		size  int // bytes: entries times entry width
		want  string
	}{
		{"iq2xxsGrid", leBytes(iq2xxsGrid[:]), 2048, "05826b5d3e472a3a78f196be62ac78acf81df0f909626e12ab9fa2a5d490dd54"},
		{"iq2xsGrid", leBytes(iq2xsGrid[:]), 4096, "06e47aaca60b4dc1d9b5a3f34540437058a6b142b4d7a59d5ded769b4d1bf1de"},
		{"iq2sGrid", leBytes(iq2sGrid[:]), 8192, "e1aa1473412b0552c2174c30ef22ab4073f6a181b85a17056e8249bd2932fd88"},
		{"iq3xxsGrid", leBytes(iq3xxsGrid[:]), 1024, "46e35f5a997efdee6c99ce57854c8a0d4f0ff8ca57e5e8a60c0793ea580acf5d"},
		{"iq3sGrid", leBytes(iq3sGrid[:]), 2048, "bd1af4945a1717c65610b0284e4628b9a1ba3b306fae3a06f6e5f597356e349f"},
		{"iq1sGrid", leBytes(iq1sGrid[:]), 16384, "07540ffc1aeaf6ad4d97e96b0fcc765aae39671d4ae4a27bbd0e796fde167c6a"},
		{"iq1xxxsGrid", leBytes(iq1xxxsGrid[:]), 2048, "5155a3664bcbc95a38e2588cf91285a213f1a2edf64ccbdb7fb99042e4252a35"},
		{"ksignsIQ2XS", leBytes(ksignsIQ2XS[:]), 128, "a76742a603f8beca5212ecce0f1f02f11a4887fd2f7c8b15aca0ea3eb3380c31"},
		{"kmaskIQ2XS", leBytes(kmaskIQ2XS[:]), 8, "5ac9831b2e30eb285ef34f8501620f878432d5c04331ad1ae47f977a83ba41a5"},
		{"kvaluesIQ4NL", leBytes(kvaluesIQ4NL[:]), 16, "61aa47540aa024b5d6ddaa839b84ffe59f3d5a349af5c6c7ffcb5e0474b46163"},
		{"kvaluesMXFP4", leBytes(kvaluesMXFP4[:]), 16, "adf76b672d47eb7fc0afd4db132d548d59d3190aa0ad118fdbf569d5fd478f97"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sum := sha256.Sum256(tc.bytes)
			if got := hex.EncodeToString(sum[:]); got != tc.want {
				t.Errorf("sha256 %s, want %s", got, tc.want)
			}
			if n := len(tc.bytes); n != tc.size {
				t.Errorf("%d bytes, want %d", n, tc.size)
			}
		})
	}
}

// gridBytes returns element j of every entry: byte j, lowest first.
func gridBytes[T uint64 | uint32](table []T, width int) [][]uint8 {
	out := make([][]uint8, len(table))
	for i, e := range table {
		for j := range width {
			out[i] = append(out[i], uint8(uint64(e)>>(8*j)))
		}
	}
	return out
}

// checkGrid checks that a grid's entries are distinct and that its bytes
// form exactly the documented value set, each value used.
func checkGrid(t *testing.T, name string, entries [][]uint8, values []uint8) {
	t.Helper()
	allowed := map[uint8]bool{}
	for _, v := range values {
		allowed[v] = false
	}
	seen := map[string]int{}
	for i, e := range entries {
		if prev, dup := seen[string(e)]; dup {
			t.Errorf("%s[%d] repeats entry %d", name, i, prev)
		}
		seen[string(e)] = i
		for j, v := range e {
			used, ok := allowed[v]
			if !ok {
				t.Errorf("%s[%d] byte %d = %#x, not in %v", name, i, j, v, values)
			} else if !used {
				allowed[v] = true
			}
		}
	}
	for v, used := range allowed {
		if !used {
			t.Errorf("%s never uses value %#x", name, v)
		}
	}
}

// TestCodebookValueSets checks the documented properties of each grid
// (docs/codebooks.md): the byte value sets, IQ3_XXS's top value 62
// (not 60), distinct entries.
func TestCodebookValueSets(t *testing.T) {
	iq2 := []uint8{8, 25, 43}
	checkGrid(t, "iq2xxsGrid", gridBytes(iq2xxsGrid[:], 8), iq2)
	checkGrid(t, "iq2xsGrid", gridBytes(iq2xsGrid[:], 8), iq2)
	checkGrid(t, "iq2sGrid", gridBytes(iq2sGrid[:], 8), iq2)
	checkGrid(t, "iq3xxsGrid", gridBytes(iq3xxsGrid[:], 4), []uint8{4, 12, 20, 28, 36, 44, 52, 62})
	checkGrid(t, "iq3sGrid", gridBytes(iq3sGrid[:], 4), []uint8{1, 3, 5, 7, 9, 11, 13, 15})
	iq1 := []uint8{0xff, 0, 1}
	checkGrid(t, "iq1sGrid", gridBytes(iq1sGrid[:], 8), iq1)
	checkGrid(t, "iq1xxxsGrid", gridBytes(iq1xxxsGrid[:], 8), iq1)
}

// TestIQ3SGridFifteens pins the count doc.go gives for the known plugin
// disagreement: llama.cpp's iq3sGrid holds 15 (the plugin's 4x-scale grid
// has 62 there, not 60) in 150 byte positions of 146 entries.
func TestIQ3SGridFifteens(t *testing.T) {
	positions, entries := 0, 0
	for _, e := range iq3sGrid {
		n := 0
		for j := range 4 {
			if e>>(8*j)&0xff == 15 {
				n++
			}
		}
		positions += n
		if n > 0 {
			entries++
		}
	}
	if positions != 150 || entries != 146 {
		t.Errorf("15 in %d byte positions of %d entries, doc.go says 150 of 146", positions, entries)
	}
}

// TestIQ1XXXSGridIsIQ1SSubset checks that every iq1xxxsGrid entry is the
// iq1sGrid entry at the position testdata/codebooks records for it.
func TestIQ1XXXSGridIsIQ1SSubset(t *testing.T) {
	raw, err := os.ReadFile("../testdata/codebooks/iq1_xxxs_grid_iq1s_index.txt")
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Fields(string(raw))
	if len(fields) != len(iq1xxxsGrid) {
		t.Fatalf("%d positions for %d entries", len(fields), len(iq1xxxsGrid))
	}
	for i, f := range fields {
		pos, err := strconv.Atoi(f)
		if err != nil || pos < 0 || pos >= len(iq1sGrid) {
			t.Fatalf("position %d: %q", i, f)
		}
		if iq1xxxsGrid[i] != iq1sGrid[pos] {
			t.Errorf("iq1xxxsGrid[%d] = %#016x, iq1sGrid[%d] = %#016x", i, iq1xxxsGrid[i], pos, iq1sGrid[pos])
		}
	}
}

// TestSignTables checks ksigns (index in bits 0-6, bit 7 the even-parity
// bit) and kmask (1 << j).
func TestSignTables(t *testing.T) {
	for i, s := range ksignsIQ2XS {
		if int(s&127) != i || bits.OnesCount8(s)%2 != 0 {
			t.Errorf("ksignsIQ2XS[%d] = %#02x: want low 7 bits %#02x and even parity", i, s, i)
		}
	}
	for j, m := range kmaskIQ2XS {
		if m != 1<<j {
			t.Errorf("kmaskIQ2XS[%d] = %d, want %d", j, m, 1<<j)
		}
	}
}

// TestValueTables checks the non-linear tables against the values written
// in docs/codecs.md, and the IQ1 delta.
func TestValueTables(t *testing.T) {
	iq4nl := [16]int8{-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113}
	if kvaluesIQ4NL != iq4nl {
		t.Errorf("kvaluesIQ4NL = %v, want %v", kvaluesIQ4NL, iq4nl)
	}
	mxfp4 := [16]int8{0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12}
	if kvaluesMXFP4 != mxfp4 {
		t.Errorf("kvaluesMXFP4 = %v, want %v", kvaluesMXFP4, mxfp4)
	}
	if iq1sDelta != 0.125 {
		t.Errorf("iq1sDelta = %v, want 0.125", float32(iq1sDelta))
	}
}

// TestGridValues checks that every byte of every grid entry is one of the
// values whose products the portable decoders tabulate per group
// (iq2Values, iq3xxsValues, iq3sValues; -1, 0, 1 for the IQ1 grids).
func TestGridValues(t *testing.T) {
	check := func(name string, entries []uint64, bytesPer int, values []uint8) {
		t.Helper()
		for i, e := range entries {
			for j := range bytesPer {
				if v := uint8(e >> (8 * j)); !slices.Contains(values, v) {
					t.Fatalf("%s[%d] byte %d = %d, not in %v", name, i, j, v, values)
				}
			}
		}
	}
	wide := func(g []uint32) []uint64 {
		out := make([]uint64, len(g))
		for i, v := range g {
			out[i] = uint64(v)
		}
		return out
	}
	check("iq2xxsGrid", iq2xxsGrid[:], 8, iq2Values[:])
	check("iq2xsGrid", iq2xsGrid[:], 8, iq2Values[:])
	check("iq2sGrid", iq2sGrid[:], 8, iq2Values[:])
	check("iq3xxsGrid", wide(iq3xxsGrid[:]), 4, iq3xxsValues[:])
	check("iq3sGrid", wide(iq3sGrid[:]), 4, iq3sValues[:])
	check("iq1sGrid", iq1sGrid[:], 8, []uint8{0xff, 0, 1})
	check("iq1xxxsGrid", iq1xxxsGrid[:], 8, []uint8{0xff, 0, 1})
}
