package schematest

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"gathermut/mutate/report"
)

// SchemaTag is the mutation-testing-elements release the stored schema
// comes from.
const SchemaTag = "v3.9.0"

//go:embed testdata/mutation-testing-report-schema.json
var schemaJSON []byte

var (
	compileOnce sync.Once
	compiled    *jsonschema.Schema
	compileErr  error
)

func schema() (*jsonschema.Schema, error) {
	compileOnce.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
		if err != nil {
			compileErr = fmt.Errorf("schematest: read the schema: %w", err)
			return
		}
		c := jsonschema.NewCompiler()
		const url = "https://stryker-mutator.io/mutation-testing-report-schema-" + SchemaTag + ".json"
		if err := c.AddResource(url, doc); err != nil {
			compileErr = fmt.Errorf("schematest: %w", err)
			return
		}
		compiled, compileErr = c.Compile(url)
	})
	return compiled, compileErr
}

// Validate checks a JSON report: the schema, then that every killedBy and
// coveredBy id names a test of testFiles, then that no string holds an
// absolute path (the given ones, and anything report.AbsolutePath finds).
func Validate(data []byte, forbidden ...string) error {
	sch, err := schema()
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("schematest: not JSON: %w", err)
	}
	if err := sch.Validate(inst); err != nil {
		return fmt.Errorf("schematest: not a valid mutation-testing report (schema %s): %w", SchemaTag, err)
	}
	var r report.Report
	if err := json.Unmarshal(data, &r); err != nil {
		return fmt.Errorf("schematest: %w", err)
	}
	tests := map[string]bool{}
	for _, tf := range r.TestFiles {
		for _, t := range tf.Tests {
			if tests[t.ID] {
				return fmt.Errorf("schematest: test id %s is in testFiles twice", t.ID)
			}
			tests[t.ID] = true
		}
	}
	for path, f := range r.Files {
		for _, m := range f.Mutants {
			for _, id := range append(append([]string(nil), m.KilledBy...), m.CoveredBy...) {
				if !tests[id] {
					return fmt.Errorf("schematest: %s: mutant %s names test %q, which is not in testFiles", path, m.ID, id)
				}
			}
		}
	}
	text := string(data)
	for _, p := range forbidden {
		if p != "" && strings.Contains(text, p) {
			return fmt.Errorf("schematest: the report names %s", p)
		}
	}
	if slices.Contains(forbidden, skipPaths) {
		return nil
	}
	var strs []string
	collectStrings(inst, &strs)
	for _, s := range strs {
		for _, loc := range report.AbsolutePath.FindAllStringIndex(s, -1) {
			if !systemPath(s[loc[0]:]) {
				return fmt.Errorf("schematest: an absolute path in the report: %q", excerpt(s, loc[0]))
			}
		}
	}
	return nil
}

// ValidateSchema checks a JSON report against the schema, and that every
// killedBy and coveredBy id names a test of testFiles, without Validate's
// search for absolute paths: for a report of a real run, whose tests'
// messages may name paths of their own (/nonexistent/lib.so).
func ValidateSchema(data []byte) error {
	return Validate(data, skipPaths)
}

// skipPaths, given to Validate as a forbidden string, leaves out the
// search for absolute paths (no report holds it).
const skipPaths = "\x00schematest: no path check\x00"

// systemPath reports whether the match at the start of s (AbsolutePath's,
// with the character before the slash) names a file of the kernel's own
// file systems (/proc, /sys, /dev), the same on every machine: a test's
// output may name /proc/cpuinfo without naming a checkout or a temp dir.
func systemPath(s string) bool {
	i := strings.IndexByte(s, '/')
	for _, p := range []string{"/proc/", "/sys/", "/dev/"} {
		if i >= 0 && strings.HasPrefix(s[i:], p) {
			return true
		}
	}
	return false
}

//go:embed testdata/sarif-schema-2.1.0.json
var sarifSchemaJSON []byte

var (
	sarifOnce     sync.Once
	sarifCompiled *jsonschema.Schema
	sarifErr      error
)

// ValidateSARIF checks a SARIF log against the official SARIF 2.1.0
// schema (pinned in testdata/), then that no string holds an absolute
// path.
func ValidateSARIF(data []byte) error {
	sarifOnce.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(sarifSchemaJSON))
		if err != nil {
			sarifErr = fmt.Errorf("schematest: read the SARIF schema: %w", err)
			return
		}
		c := jsonschema.NewCompiler()
		const url = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
		if err := c.AddResource(url, doc); err != nil {
			sarifErr = fmt.Errorf("schematest: %w", err)
			return
		}
		sarifCompiled, sarifErr = c.Compile(url)
	})
	if sarifErr != nil {
		return sarifErr
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("schematest: SARIF: not JSON: %w", err)
	}
	if err := sarifCompiled.Validate(inst); err != nil {
		return fmt.Errorf("schematest: not a valid SARIF 2.1.0 log: %w", err)
	}
	var strs []string
	collectStrings(inst, &strs)
	for _, s := range strs {
		if loc := report.AbsolutePath.FindStringIndex(s); loc != nil {
			return fmt.Errorf("schematest: an absolute path in the SARIF log: %q", excerpt(s, loc[0]))
		}
	}
	return nil
}

// HTMLReport returns the report a page written by report.HTML carries.
func HTMLReport(page []byte) ([]byte, error) {
	const open = `<script type="application/json" id="gathermut-report">`
	i := bytes.Index(page, []byte(open))
	if i < 0 {
		return nil, fmt.Errorf("schematest: the page carries no report")
	}
	data := page[i+len(open):]
	j := bytes.Index(data, []byte("</script>"))
	if j < 0 {
		return nil, fmt.Errorf("schematest: the page's report element does not end")
	}
	return data[:j], nil
}

// ValidateHTML checks the report a page carries as Validate does.
func ValidateHTML(page []byte, forbidden ...string) error {
	data, err := HTMLReport(page)
	if err != nil {
		return err
	}
	if err := Validate(data, forbidden...); err != nil {
		return fmt.Errorf("the page's report: %w", err)
	}
	return nil
}

// ValidateFile reads and validates a report file.
func ValidateFile(path string, forbidden ...string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := Validate(data, forbidden...); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// codeKeys hold source code (the original files, a mutant's text and
// diff), not anything the tool wrote about the machine it ran on.
var codeKeys = map[string]bool{"source": true, "diff": true, "original": true, "replacement": true, "text": true, "description": true, "match": true}

// collectStrings gathers the string values of a decoded JSON document,
// except those under codeKeys.
func collectStrings(v any, out *[]string) {
	switch x := v.(type) {
	case string:
		*out = append(*out, x)
	case []any:
		for _, e := range x {
			collectStrings(e, out)
		}
	case map[string]any:
		for k, e := range x {
			if _, ok := e.(string); ok && codeKeys[k] {
				continue
			}
			collectStrings(e, out)
		}
	}
}

func excerpt(s string, at int) string {
	from, to := max(at-40, 0), min(at+80, len(s))
	return s[from:to]
}
