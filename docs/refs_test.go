package docs

import (
	"fmt"
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// A reference is a path-like word ending in ".md" (a document, wherever it
// is named), a Markdown link's target, or a mention of the shared folder
// that once sat beside the checkout.
var (
	docRE    = regexp.MustCompile(`[A-Za-z0-9_.][A-Za-z0-9_./-]*\.md\b`)
	linkRE   = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	sharedRE = regexp.MustCompile(`(^|[^A-Za-z0-9_/.-])((?:\.\./)*shared/(?:docs|codebooks|oracle)\b|\.\./shared\b)`)
	urlRE    = regexp.MustCompile(`[a-z]+://\S+`)
)

// finding is one reference that does not resolve inside the repository.
type finding struct {
	file string // relative to the root, slash-separated
	line int
	ref  string
	why  string
}

func (f finding) String() string { return fmt.Sprintf("%s:%d: %s: %s", f.file, f.line, f.ref, f.why) }

// generated are paths the documents name as what a command writes, not as
// documents of the repository: the README says where go run ./mutate all
// puts its report, the book (docs/mutate) where run <id> puts its own
// (run.md).
var generated = map[string]bool{"reports/mutation.md": true, "run.md": true}

// skipDirs are not read: version control, the mutation reports (which quote
// the source as it was when they ran), and build outputs.
var skipDirs = map[string]bool{".git": true, "reports": true, "build": true, "node_modules": true, "vendor": true}

// scanTree returns every reference of the files under root that does not
// resolve to a file or folder inside root.
func scanTree(root string) ([]finding, error) {
	var out []finding
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (skipDirs[d.Name()] || strings.HasPrefix(d.Name(), ".") && d.Name() != ".ci") {
				return filepath.SkipDir
			}
			return nil
		}
		texts, err := readTexts(path)
		if err != nil || texts == nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		for _, tx := range texts {
			out = append(out, checkText(root, filepath.Dir(path), filepath.ToSlash(rel), tx, strings.HasSuffix(path, ".md"))...)
		}
		return nil
	})
	return out, err
}

// text is a piece of a file that may hold references, and the line it
// starts on.
type text struct {
	s    string
	line int
}

// readTexts returns what to read of a file: a Go file's comments (its
// strings are data, not references), the whole of a Markdown file, a C or
// HIP source or a script; nothing for other files.
func readTexts(path string) ([]text, error) {
	ext := filepath.Ext(path)
	script := filepath.Base(filepath.Dir(path)) == ".ci"
	if ext != ".go" && ext != ".md" && ext != ".h" && ext != ".hip" && ext != ".sh" && !script {
		return nil, nil
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if ext != ".go" {
		return []text{{string(src), 1}}, nil
	}
	fset := token.NewFileSet()
	var s scanner.Scanner
	s.Init(fset.AddFile(path, -1, len(src)), src, nil, scanner.ScanComments)
	var texts []text
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			return texts, nil
		}
		if tok == token.COMMENT {
			texts = append(texts, text{lit, fset.Position(pos).Line})
		}
	}
}

// checkText returns the references in tx (of the file rel, in folder dir)
// that do not resolve; links are Markdown's only.
func checkText(root, dir, rel string, tx text, markdown bool) []finding {
	var out []finding
	for i, line := range strings.Split(tx.s, "\n") {
		at := func(ref, why string) { out = append(out, finding{rel, tx.line + i, ref, why}) }
		for _, m := range sharedRE.FindAllStringSubmatch(line, -1) {
			at(m[2], "points outside the repository, into the shared folder beside a checkout")
		}
		line = urlRE.ReplaceAllString(line, "")
		var refs []string
		if markdown {
			for _, m := range linkRE.FindAllStringSubmatch(line, -1) {
				if target, _, _ := strings.Cut(m[1], "#"); target != "" {
					refs = append(refs, target)
				}
			}
			line = linkRE.ReplaceAllString(line, "]")
		}
		refs = append(refs, docRE.FindAllString(line, -1)...)
		for _, ref := range refs {
			if generated[ref] {
				continue
			}
			if why := resolve(root, dir, ref); why != "" {
				at(ref, why)
			}
		}
	}
	return out
}

// resolve says why ref does not name something inside root, or "" when it
// does: it is taken from the referring file's folder, and a bare path also
// from the root.
func resolve(root, dir, ref string) string {
	candidates := []string{filepath.Join(dir, filepath.FromSlash(ref))}
	if !strings.HasPrefix(ref, "./") && !strings.HasPrefix(ref, "../") {
		candidates = append(candidates, filepath.Join(root, filepath.FromSlash(ref)))
	}
	for _, c := range candidates {
		r, err := filepath.Rel(root, c)
		if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return "points outside the repository"
		}
		if _, err := os.Stat(c); err == nil {
			return ""
		}
	}
	return "no such file in the repository"
}

// TestDocumentReferences: every document that a Go comment, a Markdown
// file, a C or HIP source or a script of this repository names, and every
// Markdown link, resolves to a file inside the repository; nothing points
// into the shared folder beside a checkout.
func TestDocumentReferences(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("the module root %s: %v", root, err)
	}
	found, err := scanTree(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Error(f)
	}
}

// TestScanTree: the scanner finds what it must on a small tree of its own.
func TestScanTree(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"README.md":         "See [the docs](docs/a.md#part), [gone](docs/gone.md) and [a folder](docs/).\nAlso docs/a.md, https://example.com/x/README.md and ROW.md; reports/mutation.md is written.\n",
		"docs/a.md":         "Up: [top](../README.md), [outside](../../x.md), ../shared/docs/ROW.md, shared/oracle.\n",
		"docs/b.md":         "a.md, ./a.md, [anchor only](#x), missing/c.md\n",
		"pkg/x.go":          "package pkg\n\n// See docs/a.md and codecs.md.\nvar s = \"docs/none.md\" // a string, then a comment: docs/b.md\n\n/* ROW.md's order */\n",
		"pkg/data.txt":      "docs/none.md in a file of another kind\n",
		"pkg/k.h":           "// layouts in shared/docs/codecs.md\n",
		".ci/run":           "# see docs/run.md\n",
		"reports/r.md":      "ROW.md, quoted from an old diff\n",
		".hidden/h.md":      "nowhere.md\n",
		"pkg/testdata/t.md": "[ok](../x.go)\n",
	}
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	found, err := scanTree(root)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range found {
		got = append(got, f.String())
	}
	const missing, outside, shared = "no such file in the repository", "points outside the repository",
		"points outside the repository, into the shared folder beside a checkout"
	want := []string{
		".ci/run:1: docs/run.md: " + missing,
		"README.md:1: docs/gone.md: " + missing,
		"README.md:2: ROW.md: " + missing,
		"docs/a.md:1: ../../x.md: " + outside,
		"docs/a.md:1: ../shared/docs/ROW.md: " + missing,
		"docs/a.md:1: ../shared/docs: " + shared,
		"docs/a.md:1: shared/oracle: " + shared,
		"docs/b.md:1: missing/c.md: " + missing,
		"pkg/k.h:1: shared/docs/codecs.md: " + missing,
		"pkg/k.h:1: shared/docs: " + shared,
		"pkg/x.go:3: codecs.md: " + missing,
		"pkg/x.go:6: ROW.md: " + missing,
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
