package hipkern

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// codebookSums are the sha256 sums of the plain-data codebook files
// (testdata/codebooks, one value per line, upstream order) that codebooks.h
// must reproduce, recorded here so that this test reads only the header.
var codebookSums = map[string]struct {
	table string // C array in codebooks.h ("" for the delta macro)
	ctype string
	count int
	sum   string
}{
	"iq2xxs_grid.txt":   {"gm_iq2xxs_grid", "uint64_t", 256, "24f3c08dc3ded1983ef03460a9938fe175172f37ba2ce3b426bd68b4471989af"},
	"iq2xs_grid.txt":    {"gm_iq2xs_grid", "uint64_t", 512, "dfe163fffb1df95ff4beb5a38974a8482d78943df21c288f517016de5f02f293"},
	"iq2s_grid.txt":     {"gm_iq2s_grid", "uint64_t", 1024, "a44ea975337294b46367bdf617fa9b0e33949c4ee6e2b37a574f479698fbaf08"},
	"iq3xxs_grid.txt":   {"gm_iq3xxs_grid", "uint32_t", 256, "1a5cdcdc683b721428ba3b2ce166a2630fa0054c468f33a8d9395bc0a8450d26"},
	"iq3s_grid.txt":     {"gm_iq3s_grid", "uint32_t", 512, "4af655e61ddd6cdb9a401f0c2c90037790df1c759727568fa2c1113c363bc0f9"},
	"iq1s_grid.txt":     {"gm_iq1s_grid", "uint64_t", 2048, "4adc51f7aa164eea276cb742bf87ead05f472b90c0362b1c5f1491f9aecd669e"},
	"iq1_xxxs_grid.txt": {"gm_iq1_xxxs_grid", "uint64_t", 256, "de5509654f602ba0a95eda6ced57ed9578670d13c009ff99da74f26f4418be17"},
	"ksigns_iq2xs.txt":  {"gm_ksigns_iq2xs", "uint8_t", 128, "ea9acf1293e1ed1b7b975b15ad547b39ef7e91322c99293931de20a1b5675b89"},
	"kmask_iq2xs.txt":   {"gm_kmask_iq2xs", "uint8_t", 8, "6f9ce7287bc4c230684191a00b15625f2a83745d9e75053e8a2759b347f7bea0"},
	"kvalues_iq4nl.txt": {"gm_kvalues_iq4nl", "int8_t", 16, "2d6a4f3d3a9ee36bce8c78e4f2641381e2630c89cc046be0c8a23bc3a5cf8601"},
	"kvalues_mxfp4.txt": {"gm_kvalues_mxfp4", "int8_t", 16, "1bd6290c462849939481849aabc017ff4917d458e4a08a88c1d10e9db5a142ed"},
	"iq1s_delta.txt":    {"", "float", 1, "aa16dc62964603368c83dc333c72917f78951f86060b28005d0dc0ce50dd0ec2"},
}

var (
	tableRE = regexp.MustCompile(`(?s)GM_TABLE (\w+) (\w+)\[(\d+)\] = \{(.*?)\};`)
	deltaRE = regexp.MustCompile(`#define GM_IQ1S_DELTA ([0-9.]+)f\n`)
	sumRE   = regexp.MustCompile(`// (\S+\.txt) sha256 ([0-9a-f]{64})\n`)
)

// gatherLESums are the sha256 sums of the little-endian bytes of gather's Go
// tables, as gather's TestCodebookChecksums records them: the device tables
// must be the same bytes as the CPU decoders'.
var gatherLESums = map[string]string{
	"gm_iq2xxs_grid":   "05826b5d3e472a3a78f196be62ac78acf81df0f909626e12ab9fa2a5d490dd54",
	"gm_iq2xs_grid":    "06e47aaca60b4dc1d9b5a3f34540437058a6b142b4d7a59d5ded769b4d1bf1de",
	"gm_iq2s_grid":     "e1aa1473412b0552c2174c30ef22ab4073f6a181b85a17056e8249bd2932fd88",
	"gm_iq3xxs_grid":   "46e35f5a997efdee6c99ce57854c8a0d4f0ff8ca57e5e8a60c0793ea580acf5d",
	"gm_iq3s_grid":     "bd1af4945a1717c65610b0284e4628b9a1ba3b306fae3a06f6e5f597356e349f",
	"gm_iq1s_grid":     "07540ffc1aeaf6ad4d97e96b0fcc765aae39671d4ae4a27bbd0e796fde167c6a",
	"gm_iq1_xxxs_grid": "5155a3664bcbc95a38e2588cf91285a213f1a2edf64ccbdb7fb99042e4252a35",
	"gm_ksigns_iq2xs":  "a76742a603f8beca5212ecce0f1f02f11a4887fd2f7c8b15aca0ea3eb3380c31",
	"gm_kmask_iq2xs":   "5ac9831b2e30eb285ef34f8501620f878432d5c04331ad1ae47f977a83ba41a5",
	"gm_kvalues_iq4nl": "61aa47540aa024b5d6ddaa839b84ffe59f3d5a349af5c6c7ffcb5e0474b46163",
	"gm_kvalues_mxfp4": "adf76b672d47eb7fc0afd4db132d548d59d3190aa0ad118fdbf569d5fd478f97",
}

// TestCodebooksHeader parses codebooks.h, writes each table back in the
// codebook files' text form (fixed-width 0x hex for the grids, decimal for
// the byte tables) and checks its sha256 against the sum of the source file,
// both as recorded here and as the generator wrote it in the header; and it
// checks the sha256 of each table's little-endian bytes against gather's
// recorded sums for its Go tables. A hand edit, a stale header or a
// generator that changes a value fails it.
func TestCodebooksHeader(t *testing.T) {
	b, err := os.ReadFile("codebooks.h")
	if err != nil {
		t.Fatal(err)
	}
	h := string(b)
	inHeader := map[string]string{}
	for _, m := range sumRE.FindAllStringSubmatch(h, -1) {
		inHeader[m[1]] = m[2]
	}
	tables := map[string][]string{}
	types := map[string]string{}
	for _, m := range tableRE.FindAllStringSubmatch(h, -1) {
		var vals []string
		for _, v := range strings.Split(m[4], ",") {
			if v = strings.TrimSpace(v); v != "" {
				vals = append(vals, v)
			}
		}
		n, _ := strconv.Atoi(m[3])
		if n != len(vals) {
			t.Errorf("%s is declared [%d] but holds %d values", m[2], n, len(vals))
		}
		tables[m[2]], types[m[2]] = vals, m[1]
	}
	if len(tables) != len(codebookSums)-1 {
		t.Errorf("codebooks.h has %d tables, want %d", len(tables), len(codebookSums)-1)
	}
	for file, want := range codebookSums {
		var text strings.Builder
		if want.table == "" {
			m := deltaRE.FindStringSubmatch(h)
			if m == nil {
				t.Errorf("codebooks.h has no GM_IQ1S_DELTA")
				continue
			}
			text.WriteString(m[1] + "\n")
		} else {
			vals, ok := tables[want.table]
			if !ok {
				t.Errorf("codebooks.h has no table %s", want.table)
				continue
			}
			if types[want.table] != want.ctype || len(vals) != want.count {
				t.Errorf("%s is %s[%d], want %s[%d]", want.table, types[want.table], len(vals), want.ctype, want.count)
			}
			var le []byte
			for _, v := range vals {
				s, err := canonical(want.ctype, v)
				if err != nil {
					t.Fatalf("%s: %v", want.table, err)
				}
				text.WriteString(s + "\n")
				le = appendLE(le, want.ctype, v)
			}
			if got := fmt.Sprintf("%x", sha256.Sum256(le)); got != gatherLESums[want.table] {
				t.Errorf("%s: little-endian sha256 %s, gather's Go table has %s", want.table, got, gatherLESums[want.table])
			}
		}
		got := fmt.Sprintf("%x", sha256.Sum256([]byte(text.String())))
		if got != want.sum {
			t.Errorf("%s in codebooks.h: sha256 %s, the source %s has %s", want.table, got, file, want.sum)
		}
		if inHeader[file] != want.sum {
			t.Errorf("codebooks.h records sha256 %q for %s, want %s", inHeader[file], file, want.sum)
		}
	}
}

// canonical turns a C literal of codebooks.h back into the codebook files'
// text form.
func canonical(ctype, lit string) (string, error) {
	switch ctype {
	case "uint64_t", "uint32_t":
		digits := strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(lit, "0x"), "ull"), "u")
		bits, width := 64, 16
		if ctype == "uint32_t" {
			bits, width = 32, 8
		}
		v, err := strconv.ParseUint(digits, 16, bits)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("0x%0*x", width, v), nil
	case "uint8_t":
		v, err := strconv.ParseUint(lit, 10, 8)
		return strconv.FormatUint(v, 10), err
	case "int8_t":
		v, err := strconv.ParseInt(lit, 10, 8)
		return strconv.FormatInt(v, 10), err
	}
	return "", fmt.Errorf("unknown C type %s", ctype)
}

// appendLE appends a C literal of ctype as little-endian bytes.
func appendLE(b []byte, ctype, lit string) []byte {
	switch ctype {
	case "uint64_t", "uint32_t":
		digits := strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(lit, "0x"), "ull"), "u")
		v, _ := strconv.ParseUint(digits, 16, 64)
		if ctype == "uint32_t" {
			return binary.LittleEndian.AppendUint32(b, uint32(v))
		}
		return binary.LittleEndian.AppendUint64(b, v)
	}
	v, _ := strconv.ParseInt(lit, 10, 16)
	return append(b, byte(v))
}
