package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"gathermut/mutate/config"
	"gathermut/mutate/exitcode"
	"gathermut/mutate/internal/lab"
	"gathermut/mutate/report"
)

func main() {
	// A closed stdout (mutate list | head) makes writes fail with EPIPE
	// instead of killing the process, so that the command stops cleanly
	// and removes its temp dir. Child processes get the default back.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	err := run(os.Args[1:], os.Stdout, os.Stderr)
	code := finalLine(os.Stderr, err)
	os.Exit(int(code))
}

// finalLine prints the one line every command ends with, on stderr:
// "exit N: reason", so that the outcome and its code are visible even
// through "go run", which turns every non-zero status into 1. A reason of
// several lines (a build's output) is printed whole first, then its first
// line closes. Help prints none.
func finalLine(w io.Writer, err error) exitcode.Code {
	if err == nil {
		return exitcode.OK
	}
	code := exitcode.Of(err)
	reason := strings.TrimSpace(err.Error())
	if first, _, multi := strings.Cut(reason, "\n"); multi {
		fmt.Fprintln(w, "mutate: "+reason)
		reason = strings.TrimSpace(first)
	}
	if reason == "" {
		reason = code.String()
	}
	fmt.Fprintf(w, "exit %d: %s\n", code, reason)
	return code
}

// usage is the help text, with the defaults in force in the module at
// dir (its project file's, else those of a module without one) and the
// report folder a run there writes to; its exit-status part is rendered
// by package exitcode, the one home of the codes.
func usage(cfg config.Config) string {
	here, herr := lab.ModuleHere(cfg)
	d := describeDefaults(here, herr)
	var cmds strings.Builder
	for _, c := range commandHelp {
		cmds.WriteString(commandLine(c.cmd.String(), c.args, c.desc))
	}
	return "usage: mutate <command> [flags] [args]\n\ncommands:\n" + cmds.String() + d.rowText(rowCommands) +
		"  version                  print the version (also --version)\n\n" + d.intro + "\n\n" + flagsText(d) + exitcode.UsageText()
}

// commandUsage is one command's help (mutate list -h): its line, the
// module's defaults, the flags and the exit statuses.
func commandUsage(cfg config.Config) string {
	here, herr := lab.ModuleHere(cfg)
	d := describeDefaults(here, herr)
	line := "bench [loop|pair] [--set NAME] [packages]\n\n" + rowBenchDoc
	for _, c := range commandHelp {
		if c.cmd == cfg.Command {
			line = strings.TrimSpace(c.cmd.String()+" "+c.args) + "\n\n" + c.desc
		}
	}
	return "usage: mutate " + line + "\n\n" + d.intro + "\n\n" + flagsText(d) + exitcode.UsageText()
}

// commandHelp is each command's line in the help.
var commandHelp = []struct {
	cmd        config.Command
	args, desc string
}{
	{config.CmdAll, "[packages]", "run every mutant and write reports"},
	{config.CmdList, "[packages]", "list the mutants (--json: one JSON object per mutant)"},
	{config.CmdRun, "<id|glob> [pkgs]", "run the mutants whose id matches (* and ? match anything; a,b,c for several)"},
	{config.CmdDiff, "<id|glob> [pkgs]", "print the mutants' diffs"},
	{config.CmdMerge, "<report.json...>", "merge shard reports (refuses reports of different trees)"},
	{config.CmdOperators, "", "list the mutation operators: the default set, the opt-in ones, which run here"},
}

// commandLine is a command's line in the list of commands.
func commandLine(name, args, desc string) string {
	head := name
	if args != "" {
		head = fmt.Sprintf("%-5s %s", name, args)
	}
	return fmt.Sprintf("  %-24s %s\n", head, desc)
}

// rowBenchDoc is what bench does, for bench -h.
const rowBenchDoc = "seconds per mutant against gremlins and where the time goes; loop: the review loop; pair: two full runs side by side"

// rowCommands are the commands of a module with a catalog: the bench
// against gremlins and the project file's sets.
const rowCommands = `  bench                    seconds per mutant against gremlins, and where the time goes
  bench --set NAME [pkgs]  time the project file's set NAME (mutate-self: the tool on itself), by package
  bench loop               the review loop on a copy of the module: a full run, then --incremental
                           with no change, a comment-only change and one function rewritten
  bench pair               two full runs side by side: their times and whether their verdicts agree
`

// rowText is text in a module with a catalog (the row's words: GPU jobs,
// kernel code, the catalog, the bench), else nothing.
func (d helpDefaults) rowText(text string) string {
	if d.row {
		return text
	}
	return ""
}

// flagsText is the help's flags, with the defaults d.
func flagsText(d helpDefaults) string {
	langs := "go, asm"
	if d.row {
		langs += ", kernel"
	}
	return `flags (the defaults are those in force here):
  -j N                  parallel workers (default ` + fmt.Sprint(runtime.NumCPU()) + `, the CPUs here)
  --timeout F|D         each test's limit in one flag: a number (5, 5x) is --timeout-factor,
                        a duration (2s) is --timeout-floor
  --timeout-factor F    each test's timeout = F * its baseline time + floor (default 3)
  --timeout-floor D     constant part of each test's timeout (default auto: 5 times the slowest
                        start-up of a test binary, measured at the start of the run, at least 200ms)
  --strict-timeouts     a timed-out generic mutant fails the run (default: counted as detected)
` + d.rowText(`  --gpu-jobs N          test processes that use the GPU at once (default 2)
`) + `  --lang L              kinds of code the generic operators mutate: ` + langs + ` (default: all)
  --dir DIR             a directory of the module to test (default .)
  --report-dir DIR      where reports go (default ` + d.reportDir + `)
  --name NAME           report base name (default mutation, or the set's name; run: run)
  --set NAME            the settings of the project file's set NAME instead of its top level
` + d.rowText(`  --catalog PKG         catalog package, import path or ./dir (default `+d.catalog+`; empty: none)
  --only-catalog        only catalog mutants
`) + `  --in-diff REF         only mutants on lines changed since git REF
  --shard K/N           shard K (0..N-1) of N that split the mutants by expected work
  --operators LIST      comma-separated operators; default and all name sets (default ` + d.operators + `;
                        mutate operators lists them)
  --exclude GLOB        make no generic mutants in matching files (module-relative; repeatable;
                        added to ` + d.exclude + `)
  --threshold P         pass (exit 0) with survivors when the score is at least P percent (default ` + d.threshold + `)
  -v                    print each mutant's verdict on stderr as it finishes (a kill names its test)
  --no-schemata         build every mutant on its own instead of in one test binary per package
  --baseline-timeout D  the limit on one baseline test process (default 10m)
  --no-cache            neither read nor write the discovery and baseline caches
  --no-killer-map       do not run each mutant's likely killers first (the tests that killed it, or
                        mutants of its function, before); verdicts are the same, only slower
  --sarif FILE          also write the findings (survivors, mutants no test covers, catalog mutants
                        not killed by their expected test, errors) as SARIF 2.1.0, for code scanning
  --annotations github  also print the findings as GitHub workflow-command annotations on stdout
  --incremental[=FILE]  reuse the verdicts of earlier runs whose mutant, code paths and tests are
                        unchanged (cache in the user cache dir, or FILE); the report marks them
  --version             print the version

`
}

// helpDefaults are the help text's words for the defaults in force.
type helpDefaults struct {
	intro                                             string
	row                                               bool // a catalog: the row's words too
	reportDir, catalog, operators, exclude, threshold string
}

// describeDefaults words the defaults of the module here (herr: none found).
func describeDefaults(here lab.Here, herr error) helpDefaults {
	if herr != nil {
		return helpDefaults{
			intro:     "here: no module (" + herr.Error() + "); in a module without " + config.ProjectFile + "\nthe packages are ./... with no catalog",
			reportDir: "a folder of the module in the user cache dir",
			catalog:   "none", operators: "the default set", exclude: "the project file's", threshold: "none",
		}
	}
	c := here.Config
	d := helpDefaults{reportDir: c.ReportDir, catalog: "none", operators: "the default set", exclude: "none", threshold: "none"}
	origin := "no " + config.ProjectFile + ": the defaults of a module without one"
	if here.Project != nil {
		origin = "from its " + config.ProjectFile
	}
	d.intro = fmt.Sprintf("here: module %s (%s): packages %s", here.Module, origin, strings.Join(c.Patterns, " "))
	if c.Catalog != "" {
		d.catalog, d.row = c.Catalog, true
	}
	if len(c.Operators) > 0 {
		d.operators = strings.Join(c.Operators, ",")
	}
	if len(c.Exclude) > 0 {
		d.exclude = "those of " + config.ProjectFile + ": " + strings.Join(c.Exclude, " ")
	} else {
		d.exclude = "none from " + config.ProjectFile
	}
	if c.Threshold.Given {
		d.threshold = c.Threshold.String()
	}
	return d
}

// flags binds the command-line flags to a configuration.
func flags(c *config.Config, shard *string, operators *string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("mutate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&c.Jobs, "j", runtime.NumCPU(), "parallel workers")
	fs.Float64Var(&c.TimeoutFactor, "timeout-factor", c.TimeoutFactor, "each test's timeout = factor * its baseline time + floor")
	fs.Func("timeout-floor", "the constant part of each test's timeout (auto: from the test binaries' start-up)", floorFlag(&c.TimeoutFloor))
	fs.Func("timeout", "a factor (5, 5x: --timeout-factor) or a duration (2s: --timeout-floor)", timeoutFlag(c))
	fs.IntVar(&c.GPUJobs, "gpu-jobs", 2, "test processes that use the GPU at once (kernel mutants judged on a GPU, and the kernel package's tests)")
	fs.BoolVar(&c.StrictTimeouts, "strict-timeouts", false, "fail the run (exit 4) when a generic mutant times out, instead of counting it as detected")
	fs.StringVar(&c.Dir, "dir", c.Dir, "directory inside the module to test")
	fs.StringVar(&c.ReportDir, "report-dir", c.ReportDir, "where reports are written (relative to the current directory)")
	fs.StringVar(&c.Name, "name", "", "report base name (default: mutation, or mutation-shard-K-of-N)")
	fs.StringVar(&c.Set, "set", "", "the project file's named set of settings (and the reports' default name)")
	fs.BoolVar(&c.OnlyCatalog, "only-catalog", false, "only the catalog's mutants")
	fs.StringVar(&c.InDiff, "in-diff", "", "only mutants on lines changed since this git ref")
	fs.StringVar(shard, "shard", "", "run shard k of n (k in 0..n-1); shards split the mutants by expected work")
	fs.StringVar(&c.Catalog, "catalog", c.Catalog, "catalog package (import path, or ./dir in the module); empty: none")
	fs.StringVar(operators, "operators", "", "comma-separated operators (default: the module's; mutate operators lists them)")
	fs.Func("lang", "comma-separated kinds of code the generic operators mutate: go, asm, kernel (default: all)", func(s string) error {
		for _, l := range strings.Split(s, ",") {
			if l = strings.TrimSpace(l); l != "" {
				c.Languages = append(c.Languages, l)
			}
		}
		return nil
	})
	fs.BoolVar(&c.JSON, "json", false, "list: one JSON object per mutant and line")
	fs.BoolVar(&c.Verbose, "v", false, "print each mutant's verdict on stderr as it finishes")
	fs.Func("baseline-timeout", "the limit on one baseline test process", durationFlag(&c.BaselineTimeout))
	fs.BoolFunc("no-schemata", "build every mutant on its own (no mutant schemata)", func(string) error { c.Schemata = false; return nil })
	fs.BoolVar(&c.NoCache, "no-cache", false, "neither read nor write the discovery and baseline caches")
	fs.BoolVar(&c.NoKillerMap, "no-killer-map", false, "do not run each mutant's likely killers first (same verdicts, slower)")
	fs.Func("exclude", "make no generic mutants in files matching this glob", func(s string) error {
		for _, g := range strings.Split(s, ",") {
			if g = strings.TrimSpace(g); g != "" {
				if err := config.CheckGlob(g); err != nil {
					return err
				}
				c.Exclude = append(c.Exclude, g)
				c.Given.Exclude = append(c.Given.Exclude, g)
			}
		}
		return nil
	})
	fs.Func("threshold", "the minimum score in percent that passes (exit 0) despite survivors", func(s string) error {
		t, err := config.ParseThreshold(s)
		c.Threshold = t
		return err
	})
	fs.StringVar(&c.SARIF, "sarif", "", "also write the findings as SARIF 2.1.0 to this file")
	fs.StringVar(&c.Annotations, "annotations", "", "also print the findings as annotations: github (workflow commands on stdout)")
	fs.Var(optionalPath{&c.Incremental}, "incremental", "reuse the verdicts of earlier runs whose inputs are unchanged (--incremental=FILE for another cache file)")
	fs.Usage = func() { fmt.Fprint(stderr, commandUsage(*c)) }
	return fs
}

// optionalPath is a flag that is either given alone (--incremental: the
// default) or with a value (--incremental=FILE).
type optionalPath struct{ p *string }

func (o optionalPath) String() string {
	if o.p == nil {
		return ""
	}
	return *o.p
}

func (o optionalPath) Set(s string) error {
	switch s {
	case "true":
		*o.p = config.IncrementalDefault
	case "false", "":
		*o.p = ""
	default:
		*o.p = s
	}
	return nil
}

func (o optionalPath) IsBoolFlag() bool { return true }

func durationFlag(d *config.Duration) func(string) error {
	return func(s string) error {
		v, err := time.ParseDuration(s)
		if err != nil {
			return err
		}
		*d = config.Duration(v)
		return nil
	}
}

// floorFlag reads --timeout-floor: a duration, or "auto" (0: derived from
// the machine).
func floorFlag(d *config.Duration) func(string) error {
	return func(s string) error {
		if s == "auto" {
			*d = 0
			return nil
		}
		return durationFlag(d)(s)
	}
}

// timeoutFlag reads --timeout, the one flag for a test's limit, as the
// two it stands for: a number, with or without a trailing x, is the
// factor on the test's baseline time (--timeout-factor); a duration is
// the constant part (--timeout-floor). The limit stays one formula,
// factor * baseline time + floor, whichever flag sets its parts.
func timeoutFlag(c *config.Config) func(string) error {
	return func(s string) error {
		if f, err := strconv.ParseFloat(strings.TrimSuffix(s, "x"), 64); err == nil {
			if f <= 0 {
				return fmt.Errorf("a factor must be above 0, not %s", s)
			}
			c.TimeoutFactor = f
			return nil
		}
		if d, err := time.ParseDuration(s); err == nil && d > 0 {
			c.TimeoutFloor = config.Duration(d)
			return nil
		}
		return fmt.Errorf("%q is neither a factor (5, 5x) nor a duration (2s, 500ms)", s)
	}
}

// parseFlags accepts flags before, between and after positional arguments.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// parse turns a command line into a configuration and the positional
// arguments left after the command's own (merge's report files).
func parse(args []string, stderr io.Writer) (config.Config, []string, error) {
	cfg := config.Default()
	var err error
	if cfg.Command, err = config.ParseCommand(args[0]); err != nil {
		return cfg, nil, err
	}
	var shard, operators string
	fs := flags(&cfg, &shard, &operators, stderr)
	pos, err := parseFlags(fs, args[1:])
	if err != nil {
		return cfg, nil, err
	}
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "catalog":
			cfg.CatalogExplicit = true
			cfg.Given.Catalog = true
		case "operators":
			cfg.Given.Operators = true
		case "threshold":
			cfg.Given.Threshold = true
		case "report-dir":
			cfg.Given.ReportDir = true
		}
	})
	if cfg.Shard, err = config.ParseShard(shard); err != nil {
		return cfg, nil, err
	}
	for _, op := range strings.Split(operators, ",") {
		if op = strings.TrimSpace(op); op != "" {
			cfg.Operators = append(cfg.Operators, op)
		}
	}
	if err := cfg.Validate(); err != nil {
		return cfg, nil, err
	}
	if cfg.JSON && cfg.Command != config.CmdList {
		return cfg, nil, fmt.Errorf("--json is list's flag (%s writes its report as JSON already)", cfg.Command)
	}
	switch cfg.Command {
	case config.CmdRun, config.CmdDiff:
		if len(pos) == 0 {
			return cfg, nil, fmt.Errorf("%s needs a mutant id or glob", cfg.Command)
		}
		cfg.Select, pos = pos[0], pos[1:]
		cfg.Patterns = pos
	case config.CmdAll, config.CmdList, config.CmdBench:
		cfg.Patterns = pos
	}
	cfg.Given.Packages = len(cfg.Patterns) > 0
	return cfg, pos, nil
}

func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage(config.Default()))
		return exitcode.Fail(exitcode.Usage, "no command")
	}
	switch args[0] {
	case "help", "-h", "--help", "-help":
		fmt.Fprint(stdout, usage(config.Default()))
		return nil
	case "version", "--version", "-version":
		fmt.Fprintln(stdout, lab.VersionLine())
		return nil
	}
	if _, err := config.ParseCommand(args[0]); err != nil {
		fmt.Fprint(stderr, usage(config.Default()))
		return exitcode.Fail(exitcode.Usage, "unknown command %q", args[0])
	}
	cfg, pos, err := parse(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return exitcode.Fail(exitcode.Usage, "%v", err)
	}
	switch cfg.Command {
	case config.CmdMerge:
		return mergeCmd(cfg, pos, stdout)
	case config.CmdBench:
		return benchCmd(cfg, pos, stdout, stderr)
	case config.CmdOperators:
		return operatorsCmd(cfg, stdout)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return lab.Run(ctx, cfg, stdout, stderr)
}

func mergeCmd(cfg config.Config, files []string, stdout io.Writer) error {
	if len(files) == 0 {
		return exitcode.Fail(exitcode.Usage, "merge needs report files")
	}
	var reports []*report.Report
	for _, p := range files {
		r, err := report.Read(p)
		if err != nil {
			return exitcode.Fail(exitcode.Usage, "%v", err)
		}
		reports = append(reports, r)
	}
	name := cfg.Name
	if name == "" {
		name = "mutation"
	}
	merged, err := report.Merge(name, reports)
	if err != nil {
		return exitcode.Fail(exitcode.Usage, "%v", err)
	}
	dir := lab.ReportDirOutside(cfg)
	if here, err := lab.ModuleHere(cfg); err == nil {
		dir = here.Config.ReportDir
	}
	jsonPath, mdPath, err := report.Write(dir, merged)
	if err != nil {
		return exitcode.Fail(exitcode.Config, "%v", err)
	}
	fmt.Fprintf(stdout, "merged %d reports (%d mutants): %s, %s, %s\n", len(reports), merged.Gathermut.Summary.Total, jsonPath, mdPath, report.HTMLPath(jsonPath))
	if err := report.WriteExtras(cfg, merged, stdout); err != nil {
		return exitcode.Fail(exitcode.Config, "%v", err)
	}
	fmt.Fprintf(stdout, "merged: %s\n", report.ShardTimesText(merged.Gathermut))
	return &exitcode.Exit{Code: merged.Gathermut.ExitCode, Reason: merged.Gathermut.Reason}
}
