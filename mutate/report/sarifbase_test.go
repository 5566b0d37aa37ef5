package report_test

import (
	"encoding/json"
	"strings"
	"testing"

	"gathermut/mutate/internal/outcome"
	"gathermut/mutate/report"
)

// TestSARIFBase: every artifact location is relative to SRCROOT, which the
// run defines as the repository root (so a module in a subfolder of its
// repository is placed right), without an absolute path.
func TestSARIFBase(t *testing.T) {
	r := report.Build(dirtyMeta("sarif"), dirty(), report.Inputs{Sources: map[string]string{"p/p.go": "package p\n\nfunc F(a, b int) int {\n\treturn a + b\n}\n"}, Tests: testLocs})
	r.Decide(outcome.Conditions{})
	data, err := report.SARIF(r)
	if err != nil {
		t.Fatal(err)
	}
	readSARIF(t, data) // valid, and no path of the machine in it
	var l struct {
		Runs []struct {
			OriginalURIBaseIDs map[string]struct{ URI string } `json:"originalUriBaseIds"`
			Results            []struct {
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct {
							URI       string `json:"uri"`
							URIBaseID string `json:"uriBaseId"`
						} `json:"artifactLocation"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(data, &l); err != nil {
		t.Fatal(err)
	}
	run := l.Runs[0]
	if base, ok := run.OriginalURIBaseIDs["SRCROOT"]; !ok || base.URI != "" {
		t.Errorf("originalUriBaseIds %+v, want SRCROOT without an absolute uri", run.OriginalURIBaseIDs)
	}
	n := 0
	for _, res := range run.Results {
		for _, loc := range res.Locations {
			n++
			if a := loc.PhysicalLocation.ArtifactLocation; a.URIBaseID != "SRCROOT" || strings.HasPrefix(a.URI, "/") {
				t.Errorf("artifact location %+v, want a relative uri on SRCROOT", a)
			}
		}
	}
	if n == 0 {
		t.Errorf("no location in the log")
	}
}

// TestInformationURI: the tool's page is its package's documentation
// where its path can be fetched, else none.
func TestInformationURI(t *testing.T) {
	for _, c := range []struct{ pkg, want string }{
		{"example.com/gm/mutate", "https://pkg.go.dev/example.com/gm/mutate"},
		{"gathermut/mutate", ""},
		{"", ""},
	} {
		t.Run(c.pkg, func(t *testing.T) {
			if got := report.InformationURI(c.pkg); got != c.want {
				t.Errorf("InformationURI(%q) = %q, want %q", c.pkg, got, c.want)
			}
		})
	}
}
