package goasm

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
)

// SchemaMutant is a mutant entering an assembly schema: its number and the
// mutant itself.
type SchemaMutant struct {
	Num    int
	Mutant Mutant
}

// Names are the Go package-level variables a schema's assembly reads: the
// running mutant's number (an int) and the hits (a []byte: its first word
// is the data pointer).
type Names struct {
	Active, Hits string
}

// Schema is an assembly file rendered with switches.
type Schema struct {
	Src []byte
	// SiteOf is each routine's coverage site (its index in the package's
	// hits), by routine name; a mutant's site is its routine's.
	SiteOf map[string]int
	// Routines lists, per mutant number, the routines its variants are in.
	Routines map[int][]string
}

// The scratch register of the dispatch at a routine's entry. In ABI0
// assembly no register carries a value into a routine (arguments and
// results are on the stack), so it is free there.
const scratch = "R11"

// Render returns f with every routine that holds a mutant made a
// dispatcher: at its entry it sets its coverage site in the hits (the
// first site is firstSite, one per routine, in file order) and, when the
// running mutant is one of its own, jumps to a copy of its body with that
// mutant made (labels renamed). A DATA mutant gets a copy of its symbol
// with the changed value, and a variant of every routine that reads the
// symbol, reading the copy. The original body stays first and unchanged,
// so an unmutated process runs the routine as written (plus the dispatch).
func Render(f *File, muts []SchemaMutant, names Names, firstSite int) (*Schema, error) {
	if !goName(names.Active) || !goName(names.Hits) {
		return nil, fmt.Errorf("goasm: the schema's Go variables are named %q and %q, want two identifiers", names.Active, names.Hits)
	}
	s := f.str()
	sch := &Schema{SiteOf: map[string]int{}, Routines: map[int][]string{}}
	variants := map[string][]variant{}
	var dataCopies []string
	for _, sm := range muts {
		if sm.Mutant.Operator == "asm-data" {
			copied, readers, err := f.dataVariant(sm)
			if err != nil {
				return nil, err
			}
			dataCopies = append(dataCopies, copied.data)
			for _, r := range readers {
				variants[r] = append(variants[r], copied.variant)
				sch.Routines[sm.Num] = append(sch.Routines[sm.Num], r)
			}
			continue
		}
		m := sm.Mutant
		if m.Routine == "" || f.routine(m.Routine) == nil {
			return nil, fmt.Errorf("goasm: mutant %d is not in a routine", sm.Num)
		}
		variants[m.Routine] = append(variants[m.Routine], variant{num: sm.Num, edit: &m})
		sch.Routines[sm.Num] = append(sch.Routines[sm.Num], m.Routine)
	}
	var out strings.Builder
	pos := 0
	site := firstSite
	for ri := range f.Routines {
		r := &f.Routines[ri]
		vs := variants[r.Name]
		if len(vs) == 0 {
			continue
		}
		sch.SiteOf[r.Name] = site
		out.WriteString(s[pos:r.Start])
		if err := f.writeDispatcher(&out, r, vs, names, site); err != nil {
			return nil, err
		}
		pos = r.End
		site++
	}
	out.WriteString(s[pos:])
	for _, d := range dataCopies {
		out.WriteString(d)
	}
	sch.Src = []byte(out.String())
	return sch, nil
}

// variant is one mutant's copy of a routine's body: an instruction
// mutant in the routine (edit), or the renaming of a DATA mutant's
// symbol to its copy (rename).
type variant struct {
	num    int
	edit   *Mutant
	rename map[string]string
}

// dataCopy is a DATA mutant's copy of its symbol (the directives that
// define it, changed) and the variant that reads the copy.
type dataCopy struct {
	data    string
	variant variant
}

// dataVariant makes the copy of the symbol a DATA mutant changes, named
// for the mutant (sym_gmN, keeping a file-local <> suffix), and returns it
// with the routines that read the symbol, each of which gets the variant.
func (f *File) dataVariant(sm SchemaMutant) (dataCopy, []string, error) {
	m := sm.Mutant
	ins := f.Instrs[m.Instr]
	sym := dataSymbol(ins.Operands[0].Text)
	if sym == "" {
		return dataCopy{}, nil, fmt.Errorf("goasm: mutant %d: no symbol in %q", sm.Num, ins.Operands[0].Text)
	}
	copySym := fmt.Sprintf("%s_gm%d", strings.TrimSuffix(sym, "<>"), sm.Num)
	if strings.HasSuffix(sym, "<>") {
		copySym += "<>"
	}
	data := copyData(f, sym, copySym, m)
	readers := f.readers(sym)
	if len(readers) == 0 {
		return dataCopy{}, nil, fmt.Errorf("goasm: mutant %d: no routine reads %s", sm.Num, sym)
	}
	return dataCopy{data: data, variant: variant{num: sm.Num, rename: map[string]string{sym: copySym}}}, readers, nil
}

// writeDispatcher writes routine r as a dispatcher: the entry sets
// coverage site site in the hits and jumps to the running mutant's
// variant when it is one of vs; the original body follows unchanged, then
// each variant's body under its label.
func (f *File) writeDispatcher(out *strings.Builder, r *Routine, vs []variant, names Names, site int) error {
	if err := f.checkEnd(r); err != nil {
		return err
	}
	if strings.Contains(r.Name, "<ABIInternal>") {
		// its arguments arrive in registers, R11 among them
		return fmt.Errorf("goasm: routine %s uses the register ABI: the dispatch's scratch register %s may hold an argument", r.Name, scratch)
	}
	fmt.Fprintf(out, "\t// gathermut schema: coverage site %d, then the running mutant's variant\n", site)
	fmt.Fprintf(out, "\tMOVQ ·%s(SB), %s\n\tTESTQ %s, %s\n\tJZ gm_nohits\n\tMOVB $1, %d(%s)\ngm_nohits:\n", names.Hits, scratch, scratch, scratch, site, scratch)
	fmt.Fprintf(out, "\tMOVQ ·%s(SB), %s\n", names.Active, scratch)
	for _, v := range vs {
		fmt.Fprintf(out, "\tCMPQ %s, $%d\n\tJEQ gm_v%d\n", scratch, v.num, v.num)
	}
	// a body at the file's end may lack its last newline: the variants
	// after it start on lines of their own
	out.WriteString(withNewline(f.str()[r.Start:r.End]))
	for _, v := range vs {
		fmt.Fprintf(out, "gm_v%d:\n", v.num)
		body, err := f.variantBody(r, v.num, v.edit, v.rename)
		if err != nil {
			return err
		}
		out.WriteString(withNewline(body))
	}
	return nil
}

// Sites returns how many coverage sites a schema of f with these mutants
// uses: one per routine that holds one.
func Sites(f *File, muts []SchemaMutant) int {
	set := map[string]bool{}
	for _, sm := range muts {
		if sm.Mutant.Operator == "asm-data" {
			for _, r := range f.readers(dataSymbol(f.Instrs[sm.Mutant.Instr].Operands[0].Text)) {
				set[r] = true
			}
			continue
		}
		set[sm.Mutant.Routine] = true
	}
	return len(set)
}

func (f *File) routine(name string) *Routine {
	for i := range f.Routines {
		if f.Routines[i].Name == name {
			return &f.Routines[i]
		}
	}
	return nil
}

// checkEnd refuses a routine whose last statement could fall through: a
// variant body follows it in the schema.
func (f *File) checkEnd(r *Routine) error {
	if r.Last < r.First {
		return fmt.Errorf("goasm: routine %s has no body", r.Name)
	}
	switch op := f.Instrs[r.Last].Op; op {
	case "RET", "JMP":
		return nil
	default:
		return fmt.Errorf("goasm: routine %s ends with %s, not RET or JMP: a copy after it would run on", r.Name, op)
	}
}

// variantBody is the routine's body with its labels renamed for mutant num,
// the instruction mutant made, and the symbols in rename replaced.
func (f *File) variantBody(r *Routine, num int, m *Mutant, rename map[string]string) (string, error) {
	s := f.str()
	type edit struct {
		start, end int
		text       string
	}
	var edits []edit
	suffix := fmt.Sprintf("_gm%d", num)
	for _, l := range f.Labels {
		if l.Routine == r.Name && l.Start >= r.Start && l.End <= r.End {
			edits = append(edits, edit{l.Start, l.Start + len(l.Name), l.Name + suffix})
		}
	}
	for i := r.First; i <= r.Last; i++ {
		ins := &f.Instrs[i]
		for _, k := range ins.LabelRefs {
			o := ins.Operands[k]
			edits = append(edits, edit{o.Start, o.End, o.Text + suffix})
		}
		if ins.Op == "DATA" || ins.Op == "GLOBL" {
			// data between a routine's instructions is defined once, by
			// the original: a copy's would be a second definition
			edits = append(edits, edit{ins.Start, ins.End, ""})
			continue
		}
		for sym, to := range rename {
			for _, o := range ins.Operands {
				if j := symbolIndex(o.Text, sym); j >= 0 {
					edits = append(edits, edit{o.Start + j, o.Start + j + len(sym), to})
				}
			}
		}
	}
	if m != nil {
		if m.Start < r.Start || m.End > r.End {
			return "", fmt.Errorf("goasm: mutant at %d outside routine %s", m.Start, r.Name)
		}
		// the mutant's edit wins over a label rename of the same operand
		kept := edits[:0]
		for _, e := range edits {
			if e.end <= m.Start || e.start >= m.End {
				kept = append(kept, e)
			}
		}
		edits = kept
		text := m.Text
		for _, k := range f.Instrs[m.Instr].LabelRefs {
			o := f.Instrs[m.Instr].Operands[k]
			if o.Start >= m.Start && o.End <= m.End {
				text = strings.Replace(text, o.Text, o.Text+suffix, 1)
			}
		}
		edits = append(edits, edit{m.Start, m.End, text})
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].start < edits[j].start })
	var b strings.Builder
	pos := r.Start
	for _, e := range edits {
		if e.start < pos {
			return "", fmt.Errorf("goasm: overlapping edits in routine %s", r.Name)
		}
		b.WriteString(s[pos:e.start])
		b.WriteString(e.text)
		pos = e.end
	}
	b.WriteString(s[pos:r.End])
	return b.String(), nil
}

// dataSymbol returns the symbol of a DATA target: c0F<>+8(SB)/8 -> c0F<>.
func dataSymbol(target string) string {
	t := target
	if i := strings.IndexAny(t, "+("); i >= 0 {
		t = t[:i]
	}
	return strings.TrimSpace(t)
}

func withNewline(s string) string {
	if s != "" && !strings.HasSuffix(s, "\n") {
		return s + "\n"
	}
	return s
}

// symbolIndex returns where the symbol sym is named in an operand's text,
// or -1: an occurrence not inside a longer name (mask is not named in
// mask16(SB) nor in ·mask(SB), tbl not in tbl<>(SB)).
func symbolIndex(text, sym string) int {
	for from := 0; from < len(text); {
		j := strings.Index(text[from:], sym)
		if j < 0 {
			return -1
		}
		j += from
		end := j + len(sym)
		before := j == 0 || !(isNameByte(text, j-1) || strings.HasSuffix(text[:j], "·"))
		after := end == len(text) || !(isNameByte(text, end) || text[end] == '<')
		if before && after {
			return j
		}
		from = j + 1
	}
	return -1
}

// goName reports whether s is a Go identifier (ASCII).
func goName(s string) bool {
	if s == "" || ('0' <= s[0] && s[0] <= '9') {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')) {
			return false
		}
	}
	return true
}

// readers returns the routines whose instructions name sym.
func (f *File) readers(sym string) []string {
	var out []string
	seen := map[string]bool{}
	for _, ins := range f.Instrs {
		if ins.Directive || ins.Routine == "" || seen[ins.Routine] {
			continue
		}
		for _, o := range ins.Operands {
			if symbolIndex(o.Text, sym) >= 0 {
				seen[ins.Routine] = true
				out = append(out, ins.Routine)
				break
			}
		}
	}
	return out
}

// copyData returns the DATA and GLOBL lines of sym renamed to to, with
// mutant m's value change made.
func copyData(f *File, sym, to string, m Mutant) string {
	s := f.str()
	var b strings.Builder
	b.WriteString("\n")
	for i, ins := range f.Instrs {
		if (ins.Op != "DATA" && ins.Op != "GLOBL") || len(ins.Operands) == 0 || dataSymbol(ins.Operands[0].Text) != sym {
			continue
		}
		line := s[ins.Start:ins.End]
		if i == m.Instr {
			line = s[ins.Start:m.Start] + m.Text + s[m.End:ins.End]
		}
		o := ins.Operands[0]
		j := strings.Index(o.Text, sym)
		start := o.Start - ins.Start + j
		line = line[:start] + to + line[start+len(sym):]
		b.WriteString(line + "\n")
	}
	return b.String()
}

// MutantAt rebuilds the mutant of operator op that replaces [start, end)
// with text (a mutant kept as an edit of the file, as a run's discovery
// stores it).
func (f *File) MutantAt(op string, start, end int, text string) (Mutant, error) {
	for i := range f.Instrs {
		ins := &f.Instrs[i]
		if start > ins.End {
			continue
		}
		// the statement's line, from its indentation on (found in place:
		// a copy of the file's prefix for every statement of every mutant
		// took minutes on decode_amd64.s)
		from := bytes.LastIndexByte(f.Src[:ins.Start], '\n') + 1
		if start < from || (end > ins.End && !f.sameRoutine(i, end)) {
			continue
		}
		routine := ins.Routine
		if ins.Op == "DATA" {
			routine = ""
		}
		s := string(f.Src)
		stop := max(ins.End, end)
		orig := s[from:stop]
		return Mutant{Operator: op, Routine: routine, Instr: i, Start: start, End: end, Text: text, Line: ins.Line,
			Original: strings.TrimSpace(orig), Replacement: strings.TrimSpace(orig[:start-from] + text + orig[end-from:])}, nil
	}
	return Mutant{}, fmt.Errorf("goasm: no statement holds [%d, %d)", start, end)
}

// sameRoutine reports whether byte offset end lies in the routine of
// statement i (an edit may span several statements of one routine).
func (f *File) sameRoutine(i, end int) bool {
	r := f.RoutineOf(i)
	return r != nil && end <= r.End
}
