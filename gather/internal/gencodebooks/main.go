package main

import (
	"bytes"
	"crypto/sha256"
	"flag"
	"fmt"
	"go/format"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// elem is how one element type is checked and written in each language.
type elem struct {
	goType, cType string
	bits          int    // width in bits of a decimal type (hex widths are hexDigits)
	signed        bool   // decimal tables only
	hexDigits     int    // 0: the file holds decimal; else exact 0x hex width
	cSuffix       string // C literal suffix of a hex value; decimals have none
	goPerLine     int    // values per line in the Go literal (gofmt keeps them)
	cPerLine      int    // values per line in the C initializer
}

var (
	u64 = elem{goType: "uint64", cType: "uint64_t", hexDigits: 16, cSuffix: "ull", goPerLine: 4, cPerLine: 4}
	u32 = elem{goType: "uint32", cType: "uint32_t", hexDigits: 8, cSuffix: "u", goPerLine: 6, cPerLine: 4}
	u8  = elem{goType: "uint8", cType: "uint8_t", bits: 8, goPerLine: 16, cPerLine: cDecimalPerLine}
	i8  = elem{goType: "int8", cType: "int8_t", bits: 8, signed: true, goPerLine: 8, cPerLine: cDecimalPerLine}
)

// cDecimalPerLine is the number of values per line of a decimal table in
// the C header (the int8 tables have 16 entries: one line).
const cDecimalPerLine = 16

// table is one lookup table: its source file, its name in each output, its
// element type and entry count, and the comment both outputs put above it.
type table struct {
	file   string
	goName string
	cName  string
	elem   elem
	count  int
	doc    string
}

// tables is the one list both outputs are written from, in output order.
var tables = []table{
	{"iq2xxs_grid.txt", "iq2xxsGrid", "gm_iq2xxs_grid", u64, 256, "IQ2_XXS grid: 8 unsigned bytes per entry, values {8, 25, 43}."},
	{"iq2xs_grid.txt", "iq2xsGrid", "gm_iq2xs_grid", u64, 512, "IQ2_XS grid: 8 unsigned bytes per entry, values {8, 25, 43}."},
	{"iq2s_grid.txt", "iq2sGrid", "gm_iq2s_grid", u64, 1024, "IQ2_S grid: 8 unsigned bytes per entry, values {8, 25, 43}."},
	{"iq3xxs_grid.txt", "iq3xxsGrid", "gm_iq3xxs_grid", u32, 256, "IQ3_XXS grid: 4 unsigned bytes per entry, values {4, 12, ..., 52, 62}."},
	{"iq3s_grid.txt", "iq3sGrid", "gm_iq3s_grid", u32, 512, "IQ3_S grid: 4 unsigned bytes per entry, values {1, 3, ..., 15}."},
	{"iq1s_grid.txt", "iq1sGrid", "gm_iq1s_grid", u64, 2048, "IQ1_S and IQ1_M grid: 8 int8 bytes per entry, values {-1, 0, 1}."},
	{"iq1_xxxs_grid.txt", "iq1xxxsGrid", "gm_iq1_xxxs_grid", u64, 256, "IQ1_XXXS grid (unsloth fork): 256 chosen IQ1_S grid entries."},
	{"ksigns_iq2xs.txt", "ksignsIQ2XS", "gm_ksigns_iq2xs", u8, 128, "Sign table: entry i is the 7-bit sign index i plus an even-parity bit 7."},
	{"kmask_iq2xs.txt", "kmaskIQ2XS", "gm_kmask_iq2xs", u8, 8, "Sign masks: entry j selects the sign bit of element j of a sub-group."},
	{"kvalues_iq4nl.txt", "kvaluesIQ4NL", "gm_kvalues_iq4nl", i8, 16, "IQ4_NL and IQ4_XS non-linear values."},
	{"kvalues_mxfp4.txt", "kvaluesMXFP4", "gm_kvalues_mxfp4", i8, 16, "MXFP4 values: E2M1 doubled; code 8 (E2M1 -0) is 0."},
}

// The IQ1 delta: IQ1S_DELTA is written out, and IQ1M_DELTA must equal it.
const (
	deltaFile      = "iq1s_delta.txt"
	deltaAgreeFile = "iq1m_delta.txt"
	deltaGoName    = "iq1sDelta"
	deltaCName     = "GM_IQ1S_DELTA"
)

// source is one parsed file: its values as written in the file (checked)
// and the sha256 of its bytes.
type source struct {
	values []string
	sum    [sha256.Size]byte
}

// exit ends the process; the command's tests replace it to read the status.
var exit = os.Exit

func main() {
	exit(run(os.Args[1:], os.Stderr))
}

// run is the command without the process: it returns the exit status, 2
// for bad usage and 1 for a failure, which it says on stderr.
func run(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("gencodebooks", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", "testdata/codebooks", "directory of the codebook text tables")
	goOut := fs.String("go", "gather/codebooks.go", "Go file to write")
	cOut := fs.String("header", "hipkern/codebooks.h", "C header to write")
	table := fs.String("codecs", "gather/codec.go", "Go file holding gather's codec table")
	codecsOut := fs.String("codecs-header", "hipkern/codecs.h", "C header of the kernel's codec list to write")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "gencodebooks: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	goSrc, cSrc, err := Generate(*dir)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	codecsSrc, err := GenerateCodecs(*table)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	if err := writeAll([]output{{*goOut, goSrc}, {*cOut, cSrc}, {*codecsOut, codecsSrc}}); err != nil {
		fmt.Fprintln(stderr, "gencodebooks:", err)
		return 1
	}
	return 0
}

// output is a file to write and its contents.
type output struct {
	path string
	data []byte
}

// writeAll writes every output, or none when one cannot be written: each
// goes first to a temporary file beside it (".NAME.new"), and only when all
// are written are they renamed into place. The temporary files never stay.
func writeAll(outs []output) error {
	var temps []string
	defer func() {
		for _, t := range temps {
			os.Remove(t) // an error: renamed into place already
		}
	}()
	for _, o := range outs {
		t := filepath.Join(filepath.Dir(o.path), "."+filepath.Base(o.path)+".new")
		if err := os.WriteFile(t, o.data, 0o644); err != nil {
			return fmt.Errorf("writing %s: %w", o.path, err)
		}
		temps = append(temps, t)
	}
	for i, o := range outs {
		if err := os.Rename(temps[i], o.path); err != nil {
			return fmt.Errorf("writing %s: %w", o.path, err)
		}
	}
	return nil
}

// Generate reads every table in dir, checks it, and returns the Go source
// (gofmt-ed) and the C header. It returns nothing but the error when any
// check fails.
func Generate(dir string) (goSrc, cSrc []byte, err error) {
	delta, deltaSums, err := readDelta(dir)
	if err != nil {
		return nil, nil, err
	}
	srcs := make([]source, len(tables))
	for i, t := range tables {
		if srcs[i], err = readTable(dir, t); err != nil {
			return nil, nil, err
		}
	}
	goSrc, err = writeGo(delta, deltaSums, srcs)
	if err != nil {
		return nil, nil, err
	}
	return goSrc, writeC(delta, deltaSums, srcs), nil
}

// readLines returns the lines of dir/file and the sha256 of its bytes. A
// line holds one value: the file must end with a newline, and no line may
// be empty.
func readLines(dir, file string) ([]string, [sha256.Size]byte, error) {
	data, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		return nil, [sha256.Size]byte{}, fmt.Errorf("gencodebooks: %w", err)
	}
	text, ok := strings.CutSuffix(string(data), "\n")
	if !ok {
		return nil, [sha256.Size]byte{}, fmt.Errorf("gencodebooks: %s: does not end with a newline", file)
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if l == "" {
			return nil, [sha256.Size]byte{}, fmt.Errorf("gencodebooks: %s line %d: empty", file, i+1)
		}
	}
	return lines, sha256.Sum256(data), nil
}

// readTable reads and checks one table's file.
func readTable(dir string, t table) (source, error) {
	lines, sum, err := readLines(dir, t.file)
	if err != nil {
		return source{}, err
	}
	if len(lines) != t.count {
		return source{}, fmt.Errorf("gencodebooks: %s: %d values, want %d", t.file, len(lines), t.count)
	}
	for i, s := range lines {
		if err := t.elem.check(s); err != nil {
			return source{}, fmt.Errorf("gencodebooks: %s line %d: %w", t.file, i+1, err)
		}
	}
	return source{values: lines, sum: sum}, nil
}

// hexRE matches lowercase hex digits.
var hexRE = regexp.MustCompile(`^[0-9a-f]+$`)

// check reports whether s is a value of e as the files write it: 0x and
// exactly hexDigits lowercase hex digits, or a decimal integer in range.
func (e elem) check(s string) error {
	if e.hexDigits != 0 {
		digits, ok := strings.CutPrefix(s, "0x")
		if !ok || len(digits) != e.hexDigits || !hexRE.MatchString(digits) {
			return fmt.Errorf("%q is not 0x and %d lowercase hex digits (%s)", s, e.hexDigits, e.goType)
		}
		return nil
	}
	var err error
	if e.signed {
		_, err = strconv.ParseInt(s, 10, e.bits)
	} else {
		_, err = strconv.ParseUint(s, 10, e.bits)
	}
	if err != nil {
		return fmt.Errorf("%q is not a decimal %s", s, e.goType)
	}
	return nil
}

// cLiteral writes a checked value as a C literal: hex grids take the
// suffix of their width; decimals (no suffix) stand as written.
func (e elem) cLiteral(s string) string {
	return s + e.cSuffix
}

// deltaSum is the sha256 of one delta file, for the outputs' records.
type deltaSum struct {
	file string
	sum  [sha256.Size]byte
}

// readDelta reads both delta files, each a single finite float32, requires
// them to be equal, and returns the value as a literal both languages
// accept, with the files' sums.
func readDelta(dir string) (string, []deltaSum, error) {
	delta, sum, err := readDeltaFile(dir, deltaFile)
	if err != nil {
		return "", nil, err
	}
	agree, agreeSum, err := readDeltaFile(dir, deltaAgreeFile)
	if err != nil {
		return "", nil, err
	}
	if delta != agree {
		return "", nil, fmt.Errorf("gencodebooks: %s holds %v and %s %v: ggml's IQ1_M decoder uses IQ1S_DELTA, so they must agree",
			deltaFile, delta, deltaAgreeFile, agree)
	}
	// Go's shortest float32 form (fmt's %v is strconv's 'g', -1, 32)
	lit := fmt.Sprint(delta)
	if !strings.ContainsAny(lit, ".e") {
		lit += ".0" // a C float literal needs a point or an exponent before the f
	}
	return lit, []deltaSum{sum, agreeSum}, nil
}

// readDeltaFile reads one delta file: a single finite float32.
func readDeltaFile(dir, file string) (float32, deltaSum, error) {
	lines, sum, err := readLines(dir, file)
	if err != nil {
		return 0, deltaSum{}, err
	}
	if len(lines) != 1 {
		return 0, deltaSum{}, fmt.Errorf("gencodebooks: %s: %d values, want 1", file, len(lines))
	}
	v, err := strconv.ParseFloat(lines[0], 32)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, deltaSum{}, fmt.Errorf("gencodebooks: %s: %q is not a finite float32", file, lines[0])
	}
	return float32(v), deltaSum{file, sum}, nil
}

// generatedLine is the first line of both outputs.
const generatedLine = "// Code generated by gencodebooks from testdata/codebooks; DO NOT EDIT.\n"

// writeGo returns the gofmt-ed Go source.
func writeGo(delta string, deltaSums []deltaSum, srcs []source) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(generatedLine)
	b.WriteString("// Regenerate with go generate in gather (see internal/gencodebooks).\n\n")
	b.WriteString("package gather\n\n")
	b.WriteString("// The GGML lookup tables (ggml-common.h; IQ1_XXXS from the unsloth fork),\n")
	b.WriteString("// in upstream order. Grid element j of an entry is byte j: (entry >> 8j) & 0xff.\n\n")
	fmt.Fprintf(&b, "// %s is IQ1S_DELTA, the offset added to an IQ1 grid value before scaling.\n//\n", deltaGoName)
	for _, d := range deltaSums {
		fmt.Fprintf(&b, "// %s sha256 %x\n", d.file, d.sum)
	}
	fmt.Fprintf(&b, "const %s = %s\n\n", deltaGoName, delta)
	for i, t := range tables {
		fmt.Fprintf(&b, "// %s\n//\n// %s sha256 %x\n", t.doc, t.file, srcs[i].sum)
		fmt.Fprintf(&b, "var %s = [%d]%s{\n", t.goName, t.count, t.elem.goType)
		for k, v := range srcs[i].values {
			b.WriteString(v)
			if k%t.elem.goPerLine == t.elem.goPerLine-1 || k == len(srcs[i].values)-1 {
				b.WriteString(",\n")
			} else {
				b.WriteString(", ")
			}
		}
		b.WriteString("}\n\n")
	}
	src, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("gencodebooks: formatting the Go source: %w", err)
	}
	return src, nil
}

// writeC returns the C header.
func writeC(delta string, deltaSums []deltaSum, srcs []source) []byte {
	var b bytes.Buffer
	b.WriteString(generatedLine)
	b.WriteString("// Regenerate with go generate in gather (see gather/internal/gencodebooks).\n")
	b.WriteString("// Device copies of the GGML lookup tables, in upstream order; gather/codebooks.go\n")
	b.WriteString("// holds the same values for the CPU decoders.\n")
	b.WriteString("#ifndef GATHERMUT_HIPKERN_CODEBOOKS_H\n#define GATHERMUT_HIPKERN_CODEBOOKS_H\n\n")
	b.WriteString("#include <stdint.h>\n\n")
	b.WriteString("// Device-global memory, not CUDA __constant__: grid lookups differ per\n")
	b.WriteString("// thread, and the constant cache serializes divergent addresses.\n")
	b.WriteString("#if defined(__HIPCC__) || defined(__CUDACC__)\n#define GM_TABLE __device__ const\n#else\n#define GM_TABLE static const\n#endif\n\n")
	for _, d := range deltaSums {
		fmt.Fprintf(&b, "// %s sha256 %x\n", d.file, d.sum)
	}
	fmt.Fprintf(&b, "#define %s %sf\n", deltaCName, delta)
	for i, t := range tables {
		fmt.Fprintf(&b, "\n// %s\n// %s sha256 %x\n", t.doc, t.file, srcs[i].sum)
		fmt.Fprintf(&b, "GM_TABLE %s %s[%d] = {\n", t.elem.cType, t.cName, t.count)
		vals := srcs[i].values
		for k := 0; k < len(vals); k += t.elem.cPerLine {
			line := make([]string, 0, t.elem.cPerLine)
			for _, v := range vals[k:min(k+t.elem.cPerLine, len(vals))] {
				line = append(line, t.elem.cLiteral(v))
			}
			fmt.Fprintf(&b, "    %s,\n", strings.Join(line, ", "))
		}
		b.WriteString("};\n")
	}
	b.WriteString("\n#endif  // GATHERMUT_HIPKERN_CODEBOOKS_H\n")
	return b.Bytes()
}
