package cxx

// SiteAt returns the site a schema can switch for a change of the bytes
// [start, end) of file to text: the smallest expression or statement of a
// parsed function body (device or host) that holds the whole range and can
// stand a switch (not a declaration, not in a constant expression). A
// change outside every parsed body, or only inside something that cannot
// be switched, has no site: false.
func SiteAt(srcs []*Source, file string, start, end int, text string) (Site, bool) {
	for _, s := range srcs {
		if s.Name != file {
			continue
		}
		for _, f := range s.Funcs {
			if f.Body == nil || start < f.Open || end > f.Close+1 {
				continue
			}
			w := &siteFinder{src: s, start: start, end: end}
			w.stmt(f.Body)
			if w.kind == "" {
				return Site{}, false
			}
			orig := string(s.Src[w.s:w.e])
			return Site{Kind: w.kind, Start: w.s, End: w.e, Probe: f.Open,
				Text: orig[:start-w.s] + text + orig[end-w.s:]}, true
		}
	}
	return Site{}, false
}

// siteFinder keeps the smallest switchable node holding [start, end).
type siteFinder struct {
	src        *Source
	start, end int
	kind       SiteKind
	s, e       int
}

func (w *siteFinder) holds(first, last int) (int, int, bool) {
	s, e := w.src.Toks[first].Start, w.src.Toks[last].End
	return s, e, s <= w.start && w.end <= e
}

func (w *siteFinder) take(kind SiteKind, s, e int) {
	if w.kind == "" || e-s < w.e-w.s {
		w.kind, w.s, w.e = kind, s, e
	}
}

func (w *siteFinder) stmt(st *Stmt) {
	if st == nil {
		return
	}
	s, e, ok := w.holds(st.First, st.Last)
	if !ok {
		return
	}
	switch st.Kind {
	case DeclStmt, CaseStmt, AsmStmt:
	default:
		w.take(StmtSite, s, e)
	}
	for _, c := range st.List {
		w.stmt(c)
	}
	w.stmt(st.Init)
	w.stmt(st.Body)
	w.stmt(st.Else)
	w.expr(st.Cond)
	w.expr(st.Post)
	if st.Kind != CaseStmt {
		w.expr(st.X)
	}
	for _, d := range st.Decls {
		if !st.DeclConst {
			w.expr(d.Init)
		}
	}
}

func (w *siteFinder) expr(x *Expr) {
	if x == nil || x.Const {
		return
	}
	s, e, ok := w.holds(x.First, x.Last)
	if !ok {
		return
	}
	if x.Kind != BracedExpr && x.Kind != TemplateExpr {
		w.take(ExprSite, s, e)
	}
	for _, c := range []*Expr{x.X, x.Y, x.Z} {
		w.expr(c)
	}
	for _, a := range x.Args {
		w.expr(a)
	}
}
