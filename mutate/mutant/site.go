package mutant

// SiteKind is how a mutant is switched in its package's schema.
type SiteKind string

const (
	// ExprSite: an expression becomes a called func literal that returns
	// the mutated or the original expression.
	ExprSite SiteKind = "expr"
	// StmtSite: a statement (or a case body, a list of statements) becomes
	// an if/else chain over the mutated and original statements.
	StmtSite SiteKind = "stmt"
	// BlockSite: a block (an if's body) becomes a block holding an if/else
	// over the mutated and the original block.
	BlockSite SiteKind = "block"
	// ConstSite: a constant that no code uses where a constant is required
	// becomes a variable initialized by an ExprSite-like switch.
	ConstSite SiteKind = "const"
	// UsesSite: a constant that cannot become a variable stays a constant,
	// and each of its uses (the largest constant expression around it) is
	// an ExprSite switching to the value the mutated constant gives it.
	UsesSite SiteKind = "uses"
	// AsmSite: an assembly mutant; the schema switches its whole routine
	// (package goasm): Name is the routine, [Start, End) the edit.
	AsmSite SiteKind = "asm"
	// KernelExprSite, KernelStmtSite: a kernel mutant's expression or
	// statement in the kernel schema (package cxx): [Start, End) the
	// range, Text its text under the mutant, Probe the function body's
	// opening brace.
	KernelExprSite SiteKind = "kernel-expr"
	KernelStmtSite SiteKind = "kernel-stmt"
)

// Statement positions of a StmtSite.
const (
	InList = "list" // an element of a statement list (or a labeled statement's body)
	InElse = "else" // the else of an if: the chain is wrapped in a block
	InFunc = "func" // a simple statement (for post, if init): the chain runs in a called func literal
)

// Site is how a mutant enters its package's schema: one instrumented copy
// of the package's files in which each mutant sits behind a run-time
// switch. Offsets are bytes of the file on disk. A mutant that cannot be
// switched has Kind "" and says why in Fallback; it is built on its own,
// and Probe (when not -1) is the offset of the statement before which the
// schema counts its coverage.
type Site struct {
	Kind  SiteKind `json:"kind,omitempty"`
	Start int      `json:"start"` // the switched range [Start, End)
	End   int      `json:"end"`
	Form  string   `json:"form,omitempty"` // StmtSite: InList, InElse or InFunc
	Type  string   `json:"type,omitempty"` // ExprSite, ConstSite: the value's type, spelled for the file
	Text  string   `json:"text,omitempty"` // the range's text under this mutant (ConstSite: the value's)
	// ConstSite: the constant's name and its value's range; [Start, End)
	// is then the spec (or the whole declaration) the variable replaces.
	Name       string `json:"name,omitempty"`
	ValueStart int    `json:"valueStart,omitempty"`
	ValueEnd   int    `json:"valueEnd,omitempty"`
	Block      bool   `json:"block,omitempty"` // ConstSite: the spec sits in a parenthesized block with others

	Probe    int    `json:"probe"`
	Fallback string `json:"fallback,omitempty"`

	// Uses are the switched sites of a UsesSite mutant.
	Uses []UseSite `json:"uses,omitempty"`

	// Readers are set for a mutant of a package-level variable or constant
	// whose every reader is a function of the package: where those
	// functions' bodies start. Its value is computed when the binary
	// starts, so by its own site every test would cover it; a test covers
	// it when it runs one of its readers.
	Readers []Probe `json:"readers"` // null: every test covers it; []: no function reads it
}

// Probe is a place in a file of the package where the schema counts a
// coverage hit.
type Probe struct {
	File string `json:"file"`
	At   int    `json:"at"`
}

// Switched reports whether the mutant runs in the schema binary.
func (s *Site) Switched() bool { return s != nil && s.Kind != "" }

// UseSite is one switched use of a constant: an ExprSite in File.
type UseSite struct {
	File  string `json:"file"`
	Start int    `json:"start"`
	End   int    `json:"end"`
	Type  string `json:"type"`
	Text  string `json:"text"`
}
