package catalog

// Operator names a catalog operator; the value is the name used in mutant
// ids and reports.
type Operator string

// The catalog operators. Their exact semantics are documented in package
// gathermut/mutate/operator.
const (
	DeleteCall    Operator = "delete-call"    // delete the one call matching Target.Match inside Target.Func
	DeleteElement Operator = "delete-element" // delete the element keyed Target.Match from the composite literal in Target.Func (a func or a package-level var)
	ReplaceValue  Operator = "replace-value"  // replace the value of the element keyed Target.Match (and its field Target.Field if set), or of the const/var Target.Func when Match is empty
	ReplaceExpr   Operator = "replace-expr"   // replace the one expression whose source equals Target.Match inside Target.Func
	KernelText    Operator = "kernel-text"    // replace the one occurrence of Target.Match in the non-Go file Target.File
	AsmText       Operator = "asm-text"       // replace the one occurrence of Target.Match in the assembly file Target.File of Target.Package
)

// Target says where an entry's mutation applies; it must resolve to exactly
// one place.
type Target struct {
	Package string // import path, e.g. "gathermut/gguf" (Go operators)
	File    string // module-relative path (kernel-text; optional for Go to disambiguate)
	Func    string // "Route", "(*File).Tensor", "init", or a package-level var/const name
	Match   string // source text (gofmt form) of the call / key / expression; exact text for kernel-text
	Field   string // struct field name for ReplaceValue
}

// Entry is one catalog mutant.
type Entry struct {
	ID          string   // stable, e.g. "q8k-trait-removed"
	Class       int      // docs/row.md mutation class 1..13
	Operator    Operator //
	Target      Target   //
	Replacement string   // replacement source (ReplaceValue, ReplaceExpr, KernelText)
	Killers     []string // expected killing tests, "pkgpath.TestName" (top-level test)
	Reason      string   // one line: why this test must kill it
}

// Equivalent declares mutants that cannot change behaviour. Every field but
// Package and Reason matches anything when empty.
type Equivalent struct {
	Package, Func, Operator, Original, Replacement string
	// Line, when set, must occur in the source line the mutant starts on
	// (as written, spaces included): it tells apart two mutants a function
	// holds with the same original and replacement, e.g. the 15 of a mask
	// of an element offset from the 15 of a nibble mask.
	Line   string
	Reason string // required
}

// Kernel is the recipe for rebuilding and testing a non-Go library.
type Kernel struct {
	Sources []string // module-relative globs copied into the temp build dir
	Build   []string // argv run in the module root; {src} = temp copy root, {out} = output lib path
	LibEnv  string   // env var the tests read the library path from
	Package string   // Go package whose tests kill kernel mutants
	Tools   []string // compilers; at least one must be on PATH, else "not run: no compiler"
	// Entry is the module-relative file a build compiles (the others are
	// included by it): generic kernel mutants are made in the device code
	// it reaches, and a kernel schema starts with its switches there.
	// Empty: only the catalog's kernel-text entries.
	Entry string
	// Emulation builds the kernel as a host emulation ({src}, {out} as in
	// Build), with one of EmulationTools on PATH; EmulationEnv names the
	// variable the tests read that library's path from. Where no GPU runs,
	// kernel mutants are judged there.
	Emulation      []string
	EmulationTools []string
	EmulationEnv   string
}

// Catalog is what a catalog package's Catalog function returns.
type Catalog struct {
	Entries     []Entry
	Equivalents []Equivalent
	Kernel      *Kernel
}
