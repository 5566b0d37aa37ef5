package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"gathermut/mutate/internal/outcome"
	"gathermut/mutate/mutant"
	"gathermut/mutate/report"
	"gathermut/mutate/report/schematest"
)

const pSource = "package p\n\n// F adds.\nfunc F(a, b int) int {\n\treturn a + b\n}\n"

// TestHTMLSelfContained: every run's HTML page, beside its JSON, holds the
// viewer's script and the report (valid against the pinned schema), and
// loads nothing from anywhere.
func TestHTMLSelfContained(t *testing.T) {
	dir := t.TempDir()
	r := report.Build(dirtyMeta("page"), dirty(), report.Inputs{Sources: map[string]string{"p/p.go": pSource}, Tests: testLocs})
	r.Decide(outcome.Conditions{})
	jsonPath, _, err := report.Write(dir, r)
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(dir, "page.html"))
	if err != nil {
		t.Fatal(err)
	}
	if report.HTMLPath(jsonPath) != filepath.Join(dir, "page.html") {
		t.Errorf("HTMLPath(%s) = %s", jsonPath, report.HTMLPath(jsonPath))
	}
	viewer, err := os.ReadFile("viewer/mutation-test-elements.js")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(page, viewer) {
		t.Error("the page does not hold the viewer's script as it is")
	}
	if loads := regexp.MustCompile(`(?i)<(script|link|img|iframe)[^>]*\s(src|href)=`).FindAll(page, -1); len(loads) > 0 {
		t.Errorf("the page loads from elsewhere: %q", loads)
	}
	if err := schematest.ValidateHTML(page, paths.Root, paths.Temp, paths.Home); err != nil {
		t.Error(err)
	}
	data, err := schematest.HTMLReport(page)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte(`"gathermut":{"mutant"`)) || bytes.Contains(data, []byte("<")) {
		t.Error("the page's report holds the evidence, or a raw <")
	}
}

// browser is a Chromium or Chrome to render pages with: $GATHERMUT_BROWSER,
// else the first on PATH.
func browser(t *testing.T) string {
	t.Helper()
	if b := os.Getenv("GATHERMUT_BROWSER"); b != "" {
		return b
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no headless browser (chromium, google-chrome) on PATH: on Debian, apt-get install chromium")
	return ""
}

// probe, put first in a page's head, records the page's errors, the
// resources it loaded and, once the viewer has rendered want, the text
// of the viewer (through its shadow roots) into <pre id=probe>.
const probe = `<script>
(function () {
  var errors = [];
  window.addEventListener("error", function (e) { errors.push(String(e.message)); });
  window.addEventListener("unhandledrejection", function (e) { errors.push(String(e.reason)); });
  function text(n) {
    var s = "";
    if (n.shadowRoot) s += text(n.shadowRoot);
    for (var c = n.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 3) s += c.data + " ";
      else if (c.nodeType === 1 || c.nodeType === 11) s += text(c);
    }
    return s;
  }
  var tries = 0;
  function check() {
    var app = document.querySelector("mutation-test-report-app");
    var t = app ? text(app).replace(/\s+/g, " ") : "";
    if (t.indexOf(%q) < 0 && tries++ < 400) { setTimeout(check, 50); return; }
    var out = document.createElement("pre");
    out.id = "probe";
    var summary = document.getElementById("gathermut-summary");
    out.textContent = JSON.stringify({errors: errors, resources: performance.getEntriesByType("resource").map(function (e) { return e.name; }), text: t, summary: summary ? summary.innerText.replace(/\s+/g, " ") : ""});
    document.body.appendChild(out);
  }
  window.addEventListener("load", function () { setTimeout(check, 0); });
})();
</script>
`

type rendered struct {
	Errors    []string `json:"errors"`
	Resources []string `json:"resources"`
	Text      string   `json:"text"`
	Summary   string   `json:"summary"` // the page's own summary above the viewer, as shown
}

// render opens page from disk in a headless browser (a fresh profile,
// nothing reachable but the file) at the viewer's route fragment, and
// returns what the viewer shows once it shows want.
func render(t *testing.T, bin string, page []byte, fragment, want string) rendered {
	t.Helper()
	dir := t.TempDir()
	withProbe := bytes.Replace(page, []byte("<head>\n"), []byte("<head>\n"+fmt.Sprintf(probe, want)), 1)
	file := filepath.Join(dir, "page.html")
	if err := os.WriteFile(file, withProbe, 0o644); err != nil {
		t.Fatal(err)
	}
	// the deadline only keeps a broken browser from hanging the test
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--virtual-time-budget=30000",
		"--dump-dom", "file://"+filepath.ToSlash(file)+fragment)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, stderr.String())
	}
	m := regexp.MustCompile(`<pre id="probe">(.*?)</pre>`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("the page did not finish rendering (no probe in the DOM); browser said:\n%s", stderr.String())
	}
	var r rendered
	if err := json.Unmarshal([]byte(html.UnescapeString(string(m[1]))), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Errors) > 0 {
		t.Errorf("the page raised errors: %q", r.Errors)
	}
	if len(r.Resources) > 0 {
		t.Errorf("the page loaded resources: %q", r.Resources)
	}
	if !strings.Contains(r.Text, want) {
		t.Errorf("the viewer never showed %q; it shows:\n%.3000s", want, r.Text)
	}
	return r
}

// TestHTMLRendersInBrowser opens written pages from disk in a headless
// browser: the viewer renders the report's totals and a file's source
// with its mutants, raising no error and loading nothing; the committed
// GPU report of the row renders too.
func TestHTMLRendersInBrowser(t *testing.T) {
	bin := browser(t)
	dir := t.TempDir()
	r := report.Build(dirtyMeta("page"), dirty(), report.Inputs{Sources: map[string]string{"p/p.go": pSource}, Tests: testLocs})
	r.Decide(outcome.Conditions{})
	if _, _, err := report.Write(dir, r); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(dir, "page.html"))
	if err != nil {
		t.Fatal(err)
	}
	// the totals row of dirty()'s 10 mutants, in the viewer's columns:
	// score of total and of covered, killed 2 (one is the catalog's),
	// survived, timeout, no coverage, ignored, runtime error, compile
	// error 1 each, detected 3, undetected 2, total 10
	all := render(t, bin, page, "", "Mutation Score")
	for _, want := range []string{"All files 60.00 75.00 2 1 1 1 1 1 1 3 2 10 ", "Mutation report: page", "p/p.go", "k/k.hip"} {
		if !strings.Contains(all.Text, want) {
			t.Errorf("the overview lacks %q:\n%.2000s", want, all.Text)
		}
	}
	// above the viewer: the backends (Go, the kernel), the one not run
	for _, want := range []string{"Scores by backend", "go 8 2 1 1 1 1 0 1 1 60.0%", "kernel 1 0 0 0 0 0 1 0 0 n/a", "Not run: 1"} {
		if !strings.Contains(all.Summary, want) {
			t.Errorf("the page's summary lacks %q: %q", want, all.Summary)
		}
	}
	file := render(t, bin, page, "#mutant/p/p.go", "return a + b")
	for _, want := range []string{"func F(a, b int) int", "Killed", "Survived", "No coverage"} {
		if !strings.Contains(file.Text, want) {
			t.Errorf("the file view lacks %q:\n%.2000s", want, file.Text)
		}
	}

	committed, err := report.Read("../../reports/gather-row-gpu.json")
	if err != nil {
		t.Logf("no committed report to render: %v", err)
		return
	}
	page, err = report.HTML(committed)
	if err != nil {
		t.Fatal(err)
	}
	row := render(t, bin, page, "#mutant/gguf/types.go", "package gguf")
	if !strings.Contains(row.Text, "Killed") {
		t.Errorf("the row's gguf/types.go shows no killed mutant:\n%.2000s", row.Text)
	}
}

// TestHTMLShowsBackendsAndNotRun: above the viewer the page shows what
// the viewer cannot: the scores by backend when there is more than one,
// the mutants not run and why, the kernel mutants left to GPU runs; and
// its Tests tab lists files only (a crash outside any test sits under
// its package's directory, not its import path). A Go module's run (one
// backend, everything run) gets none of it.
func TestHTMLShowsBackendsAndNotRun(t *testing.T) {
	meta := dirtyMeta("page")
	meta.GPUOnly = []string{"kernel-bf16-truncates"}
	r := report.Build(meta, dirty(), report.Inputs{Sources: map[string]string{"p/p.go": pSource}, Tests: testLocs})
	page, err := report.HTML(r)
	if err != nil {
		t.Fatal(err)
	}
	text := string(page)
	section := regexp.MustCompile(`(?s)<section id="gathermut-summary".*?</section>`).FindString(text)
	if section == "" {
		t.Fatalf("no summary above the viewer:\n%.3000s", text[len(text)-3000:])
	}
	// dirty(): 9 Go mutants, 8 judged (1 killed, 1 timed out, 1 unviable, 1 killed
	// catalog, 1 survived, 1 not covered, 1 error, 1 ignored, 1
	// interrupted) and 1 kernel mutant not run
	for _, want := range []string{
		"<tr><td>go</td><td>8</td>",
		"<tr><td>kernel</td><td>1</td>",
		"<th>Not run</th>",
		"<b>Not run: 1</b>",
		"no compiler (none of nvcc, hipcc on PATH): 1",
		"<b>Left to GPU runs: 1 kernel mutant</b>",
		"kernel-bf16-truncates",
	} {
		if !strings.Contains(section, want) {
			t.Errorf("the summary lacks %q:\n%s", want, section)
		}
	}
	data, err := schematest.HTMLReport(page)
	if err != nil {
		t.Fatal(err)
	}
	var view report.Report
	if err := json.Unmarshal(data, &view); err != nil {
		t.Fatal(err)
	}
	for file := range view.TestFiles {
		if strings.HasPrefix(file, "gathermut/") {
			t.Errorf("the Tests tab lists %q as a file", file)
		}
	}

	var goOnly []mutant.Outcome
	for _, o := range dirty() {
		if o.Mutant.Kind == mutant.Go {
			goOnly = append(goOnly, o)
		}
	}
	plain, err := report.HTML(report.Build(dirtyMeta("page"), goOnly, report.Inputs{Sources: map[string]string{"p/p.go": pSource}, Tests: testLocs}))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(plain, []byte("gathermut-summary")) {
		t.Error("a run of one backend with everything run gets a summary above the viewer")
	}
}
