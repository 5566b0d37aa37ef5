package report

import (
	"fmt"
	"sort"
	"strings"

	"gathermut/mutate/mutant"
)

// Markdown renders the pull-request view of a report.
func Markdown(r *Report) string {
	g := r.Gathermut
	outcomes, _ := r.Outcomes()
	s := g.Summary
	var b strings.Builder
	fmt.Fprintf(&b, "# Mutation report: %s\n\n", g.Name)
	if g.Interrupted {
		b.WriteString("**Interrupted: this report is partial.**\n\n")
	}
	fmt.Fprintf(&b, "Exit %d: %s\n\n", g.ExitCode, g.Reason)
	b.WriteString("## Summary\n\n| | |\n|---|---|\n")
	row := func(k, v string) { fmt.Fprintf(&b, "| %s | %s |\n", k, v) }
	row("Mutants", fmt.Sprint(s.Total))
	for _, st := range mutant.Statuses {
		row(strings.ToUpper(string(st[:1]))+string(st[1:]), fmt.Sprint(s.Counts[st]))
	}
	row("Score", FormatScore(s)+" (killed + timed out) / (killed + timed out + survived)")
	if s.CatalogTotal > 0 {
		row("Catalog", fmt.Sprintf("%d entries, %d not killed by their expected test", s.CatalogTotal, len(s.CatalogFailures)))
	}
	row("Wall time", fmt.Sprintf("%.1f s", g.WallSeconds))
	if g.WallSeconds > 0 {
		row("Mutants per minute", fmt.Sprintf("%.1f", float64(s.Total)/g.WallSeconds*60))
	}
	row("-j", fmt.Sprint(g.Jobs))
	row("Machine", machine(g.Machine))
	row("Go", g.GoVersion)
	row("Tree before", "`"+g.TreeBefore+"`")
	after := "`" + g.TreeAfter + "`"
	if g.TreeAfter == g.TreeBefore {
		after += " (unchanged)"
	} else {
		after += " **changed: " + strings.Join(g.TreeChanged, ", ") + "**"
	}
	row("Tree after", after)
	row("Packages", "`"+strings.Join(g.Patterns, " ")+"`")
	if g.Shard != "" {
		row("Shard", g.Shard)
	}
	if len(g.Shards) > 0 {
		row("Merged from", strings.Join(g.Shards, ", "))
	}
	fmt.Fprintf(&b, "\nBaseline: %d tests in %d packages, run twice (alone with coverage, then together), %.1f s.", g.Baseline.Tests, g.Baseline.Packages, g.Baseline.Seconds)
	if len(g.Baseline.Flaky) > 0 {
		fmt.Fprintf(&b, " Flaky, excluded: %s.", strings.Join(g.Baseline.Flaky, ", "))
	}
	if len(g.Baseline.Failing) > 0 {
		fmt.Fprintf(&b, " **Failing: %s.**", strings.Join(g.Baseline.Failing, ", "))
	}
	if len(g.Baseline.Skipped) > 0 {
		fmt.Fprintf(&b, " Skipped: %s.", strings.Join(g.Baseline.Skipped, ", "))
	}
	b.WriteString("\n")

	table(&b, "By package", outcomes, func(o mutant.Outcome) string {
		if o.Mutant.Package == "" {
			return o.Mutant.File
		}
		return o.Mutant.Package
	})
	table(&b, "By operator", outcomes, func(o mutant.Outcome) string { return o.Mutant.Operator })
	catalogTable(&b, outcomes)

	section(&b, "Survivors", outcomes, func(o mutant.Outcome) bool { return o.Result.Status == mutant.Survived })
	section(&b, "Killed by an unexpected test", outcomes, func(o mutant.Outcome) bool {
		return o.Mutant.Catalog != nil && o.Result.Status == mutant.Killed && !o.Result.ExpectedKiller
	})
	section(&b, "Timed out", outcomes, func(o mutant.Outcome) bool { return o.Result.Status == mutant.TimedOut })
	section(&b, "Errors", outcomes, func(o mutant.Outcome) bool { return o.Result.Status == mutant.Error })
	list(&b, "Not run", outcomes, mutant.NotRun)
	list(&b, "Ignored (equivalent)", outcomes, mutant.Ignored)
	list(&b, "Unviable", outcomes, mutant.Unviable)
	return b.String()
}

func machine(m Machine) string {
	s := fmt.Sprintf("%s, %s/%s, %d cores", m.Hostname, m.OS, m.Arch, m.Cores)
	if m.CPU != "" {
		s += ", " + m.CPU
	}
	if len(m.GPUs) == 0 {
		s += "; GPU: none"
		if m.GPUNote != "" {
			s += " (" + m.GPUNote + ")"
		}
	}
	for _, g := range m.GPUs {
		s += fmt.Sprintf("; GPU: %s (%s)", g.Name, g.Arch)
	}
	return s
}

func table(b *strings.Builder, title string, outcomes []mutant.Outcome, key func(mutant.Outcome) string) {
	groups := map[string][]mutant.Outcome{}
	for _, o := range outcomes {
		groups[key(o)] = append(groups[key(o)], o)
	}
	var keys []string
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Fprintf(b, "\n## %s\n\n| | Mutants |", title)
	for _, st := range mutant.Statuses {
		fmt.Fprintf(b, " %s |", st)
	}
	b.WriteString(" Score |\n|---|---:|")
	for range mutant.Statuses {
		b.WriteString("---:|")
	}
	b.WriteString("---:|\n")
	for _, k := range keys {
		s := Summarize(groups[k])
		fmt.Fprintf(b, "| `%s` | %d |", k, s.Total)
		for _, st := range mutant.Statuses {
			fmt.Fprintf(b, " %d |", s.Counts[st])
		}
		fmt.Fprintf(b, " %s |\n", FormatScore(s))
	}
}

func catalogTable(b *strings.Builder, outcomes []mutant.Outcome) {
	var cat []mutant.Outcome
	for _, o := range outcomes {
		if o.Mutant.Catalog != nil {
			cat = append(cat, o)
		}
	}
	if len(cat) == 0 {
		return
	}
	b.WriteString("\n## Catalog\n\n| Entry | Class | Operator | Status | Killed by | Expected killer | Why |\n|---|---:|---|---|---|---|---|\n")
	for _, o := range cat {
		expected := "no"
		if o.Result.ExpectedKiller {
			expected = "yes"
		}
		fmt.Fprintf(b, "| `%s` | %d | %s | %s | %s | %s (%s) | %s |\n", o.Mutant.ID, o.Mutant.Catalog.Class, o.Mutant.Operator,
			o.Result.Status, cell(strings.Join(o.Result.KilledBy, ", ")), expected, cell(strings.Join(o.Mutant.Expected, ", ")), cell(o.Result.Why))
	}
}

func cell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ")
}

func section(b *strings.Builder, title string, outcomes []mutant.Outcome, keep func(mutant.Outcome) bool) {
	var picked []mutant.Outcome
	for _, o := range outcomes {
		if keep(o) {
			picked = append(picked, o)
		}
	}
	if len(picked) == 0 {
		return
	}
	fmt.Fprintf(b, "\n## %s (%d)\n", title, len(picked))
	for _, o := range picked {
		m, r := o.Mutant, o.Result
		fmt.Fprintf(b, "\n### `%s`\n\n%s:%d:%d in `%s`, %s: `%s` -> `%s`", m.ID, m.File, m.Pos.Line, m.Pos.Column, m.Func, m.Operator, oneLine(m.Original), oneLine(m.Replacement))
		if r.Why != "" {
			fmt.Fprintf(b, " (%s)", r.Why)
		}
		if len(r.KilledBy) > 0 {
			fmt.Fprintf(b, "; failing: %s", strings.Join(r.KilledBy, ", "))
		}
		fmt.Fprintf(b, "; %s, exit %d\n\n<details><summary>diff</summary>\n\n```diff\n%s```\n", r.Duration.Round(1e6), r.ExitCode, m.Diff)
		if len(r.Commands) > 0 {
			fmt.Fprintf(b, "\nCommands:\n\n```\n%s\n```\n", strings.Join(r.Commands, "\n"))
		}
		if r.Excerpt != "" {
			fmt.Fprintf(b, "\nExcerpt:\n\n```\n%s\n```\n", strings.TrimRight(r.Excerpt, "\n"))
		}
		b.WriteString("\n</details>\n")
	}
}

func list(b *strings.Builder, title string, outcomes []mutant.Outcome, st mutant.Status) {
	var lines []string
	for _, o := range outcomes {
		if o.Result.Status == st {
			lines = append(lines, fmt.Sprintf("- `%s` (%s:%d): %s", o.Mutant.ID, o.Mutant.File, o.Mutant.Pos.Line, oneLine(o.Result.Why)))
		}
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(b, "\n## %s (%d)\n\n%s\n", title, len(lines), strings.Join(lines, "\n"))
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}
