package report

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"

	"gathermut/mutate/config"
	"gathermut/mutate/mutant"
	"gathermut/mutate/operator"
)

// SARIFVersion is the SARIF version SARIF writes, and SARIFSchema the
// schema's address (OASIS, 2.1.0 with errata 01).
const (
	SARIFVersion = "2.1.0"
	SARIFSchema  = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)

// FingerprintKey names the partial fingerprint every result carries.
const FingerprintKey = "gathermutMutant/v1"

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool       sarifTool `json:"tool"`
	ColumnKind string    `json:"columnKind"`
	// OriginalURIBaseIDs defines SRCROOT, the base of every artifact's uri:
	// the root of the repository (the module's git work tree), which a
	// consumer such as code scanning knows as its checkout.
	OriginalURIBaseIDs map[string]sarifBase `json:"originalUriBaseIds"`
	Results            []sarifResult        `json:"results"`
	Properties         map[string]any       `json:"properties,omitempty"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri,omitempty"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string         `json:"id"`
	ShortDescription     sarifText      `json:"shortDescription"`
	FullDescription      *sarifText     `json:"fullDescription,omitempty"`
	Help                 *sarifText     `json:"help,omitempty"`
	DefaultConfiguration sarifConfig    `json:"defaultConfiguration"`
	Properties           map[string]any `json:"properties,omitempty"`
}

type sarifConfig struct {
	Level string `json:"level"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifText         `json:"message"`
	Locations           []sarifLocation   `json:"locations,omitempty"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	Properties          map[string]any    `json:"properties"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId"`
}

// sarifBase is an entry of originalUriBaseIds: no uri (the repository's
// place differs on every machine), what it stands for.
type sarifBase struct {
	Description sarifText `json:"description"`
}

// srcRoot is the uriBaseId of every artifact location.
const srcRoot = "SRCROOT"

// InformationURI is the tool's page for SARIF's informationUri: its
// package's documentation on pkg.go.dev when its import path starts with a
// domain (a module the go command can fetch), else "" (a checkout only,
// with no public page: the field is left out).
func InformationURI(pkg string) string {
	first, _, _ := strings.Cut(pkg, "/")
	if !strings.Contains(first, ".") {
		return ""
	}
	return "https://pkg.go.dev/" + pkg
}

// toolPackage is the running tool's main package, for InformationURI.
func toolPackage() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		return bi.Path
	}
	return ""
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn"`
	EndLine     int `json:"endLine"`
	EndColumn   int `json:"endColumn"`
}

// SARIF renders a report's findings as a SARIF 2.1.0 log: one result per
// finding (Findings), at its place in the file, with ruleId the operator
// or the catalog id, level error for a catalog mutant not killed by its
// expected test and for an error, warning for a survivor, and the
// partial fingerprint FingerprintKey (see fingerprint) so that code
// scanning keeps a survivor's identity across runs. Paths are relative
// to the repository root (Finding.Path), so GitHub places them; columns
// are in Unicode code points.
func SARIF(r *Report) ([]byte, error) {
	findings, err := Findings(r)
	if err != nil {
		return nil, err
	}
	g := r.Gathermut
	run := sarifRun{
		Tool:               sarifTool{Driver: sarifDriver{Name: "gathermut mutate", Version: g.Version, InformationURI: InformationURI(toolPackage()), Rules: []sarifRule{}}},
		ColumnKind:         "unicodeCodePoints",
		OriginalURIBaseIDs: map[string]sarifBase{srcRoot: {Description: sarifText{Text: "the root of the repository (the git work tree holding the module); every uri is relative to it"}}},
		Results:            []sarifResult{},
		Properties:         map[string]any{"report": g.Name + ".json", "treeBefore": g.TreeBefore, "exitCode": g.ExitCode, "reason": g.Reason},
	}
	ruleIndex := map[string]int{}
	var ruleIDs []string
	for _, f := range findings {
		if _, ok := ruleIndex[f.RuleID]; !ok {
			ruleIndex[f.RuleID] = -1
			ruleIDs = append(ruleIDs, f.RuleID)
		}
	}
	sort.Strings(ruleIDs)
	rules := map[string]sarifRule{}
	for _, f := range findings {
		if _, ok := rules[f.RuleID]; !ok {
			rules[f.RuleID] = ruleFor(f)
		}
	}
	for i, id := range ruleIDs {
		ruleIndex[id] = i
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, rules[id])
	}
	for _, f := range findings {
		res := sarifResult{
			RuleID:              f.RuleID,
			RuleIndex:           ruleIndex[f.RuleID],
			Level:               f.Level,
			Message:             sarifText{Text: f.Message()},
			PartialFingerprints: map[string]string{FingerprintKey: f.Fingerprint},
			Properties: map[string]any{
				"mutantId": f.Mutant.ID,
				"status":   string(f.Result.Status),
				"finding":  string(f.Kind),
				"rerun":    f.Rerun,
			},
		}
		if f.Mutant.Diff != "" {
			res.Properties["diff"] = f.Mutant.Diff
		}
		if f.Path != "" {
			loc := sarifLocation{PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifact{URI: uriPath(f.Path), URIBaseID: srcRoot}}}
			if f.Region.Start.Line > 0 {
				loc.PhysicalLocation.Region = &sarifRegion{StartLine: f.Region.Start.Line, StartColumn: f.Region.Start.Column,
					EndLine: f.Region.End.Line, EndColumn: f.Region.End.Column}
			}
			res.Locations = []sarifLocation{loc}
		}
		run.Results = append(run.Results, res)
	}
	data, err := marshalPlain(sarifLog{Schema: SARIFSchema, Version: SARIFVersion, Runs: []sarifRun{run}})
	if err != nil {
		return nil, fmt.Errorf("report: sarif: %w", err)
	}
	return append(data, '\n'), nil
}

func ruleFor(f Finding) sarifRule {
	rule := sarifRule{ID: f.RuleID, DefaultConfiguration: sarifConfig{Level: f.Level}}
	if c := f.Mutant.Catalog; c != nil {
		rule.ShortDescription = sarifText{Text: fmt.Sprintf("catalog mutant %s (class %d)", c.ID, c.Class)}
		if c.Reason != "" {
			rule.FullDescription = &sarifText{Text: c.Reason}
		}
		rule.Help = &sarifText{Text: "A catalog mutant must be killed by its expected test (" + strings.Join(mutant.TestIDStrings(f.Mutant.Expected), ", ") +
			"): make that test fail under the mutant, or change the catalog entry."}
		rule.Properties = map[string]any{"catalogClass": c.Class}
		return rule
	}
	rule.ShortDescription = sarifText{Text: "mutation operator " + f.RuleID}
	if op, ok := operator.OperatorByName(f.RuleID); ok {
		rule.ShortDescription = sarifText{Text: f.RuleID + ": " + op.Doc}
		rule.FullDescription = &sarifText{Text: op.Doc + " (" + op.Example + ")"}
	}
	rule.Help = &sarifText{Text: "A surviving mutant is a change to the code that no test noticed: add a test that fails under it, " +
		"or record why no input can tell it apart (//gathermut:equivalent <reason> on the line)."}
	return rule
}

// uriPath escapes what a relative URI reference cannot hold as it is
// (RFC 3986); / stays a separator.
func uriPath(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', strings.IndexByte("-._~/!$&'()*+,;=:@", c) >= 0:
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// WriteSARIF writes SARIF(r) to path (its directory is made).
func WriteSARIF(path string, r *Report) error {
	data, err := SARIF(r)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("report: sarif: %w", err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("report: sarif: %w", err)
	}
	return nil
}

// GitHubAnnotations prints one workflow command per finding (Findings), in
// the same order and with the same places and messages as the SARIF
// results: ::error for a catalog mutant not killed by its expected test
// and for an error, ::warning for a survivor. GitHub shows them on the
// lines of the pull request's diff.
func GitHubAnnotations(w io.Writer, r *Report) error {
	findings, err := Findings(r)
	if err != nil {
		return err
	}
	for _, f := range findings {
		var props []string
		if f.Path != "" {
			props = append(props, "file="+escapeProperty(f.Path))
			if f.Region.Start.Line > 0 {
				props = append(props, fmt.Sprintf("line=%d", f.Region.Start.Line), fmt.Sprintf("col=%d", f.Region.Start.Column))
				if f.Region.End.Line > 0 {
					props = append(props, fmt.Sprintf("endLine=%d", f.Region.End.Line))
					if f.Region.End.Line == f.Region.Start.Line {
						props = append(props, fmt.Sprintf("endColumn=%d", f.Region.End.Column))
					}
				}
			}
		}
		props = append(props, "title="+escapeProperty("mutant "+f.Mutant.ID+" "+string(f.Kind)))
		if _, err := fmt.Fprintf(w, "::%s %s::%s\n", f.Level, strings.Join(props, ","), escapeData(f.Message())); err != nil {
			return fmt.Errorf("report: annotations: %w", err)
		}
	}
	return nil
}

// escapeData escapes a workflow command's message: %, CR and LF.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a workflow command's property value: what
// escapeData does, and : and , which end a property.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// WriteExtras writes what the configuration asks for besides the JSON,
// markdown and HTML reports: the SARIF log (--sarif FILE, relative to the
// current directory) and the GitHub annotations (--annotations github, on
// w).
func WriteExtras(c config.Config, r *Report, w io.Writer) error {
	if c.SARIF != "" {
		if err := WriteSARIF(c.SARIF, r); err != nil {
			return err
		}
	}
	if c.Annotations == config.AnnotationsGitHub {
		return GitHubAnnotations(w, r)
	}
	return nil
}
