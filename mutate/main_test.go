package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"gathermut/mutate/config"
	"gathermut/mutate/exitcode"
)

// TestDocExitStatus: the exit statuses in the command's doc are the ones
// package exitcode renders, so the doc cannot drift from the codes.
func TestDocExitStatus(t *testing.T) {
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for _, line := range strings.Split(strings.TrimSuffix(exitcode.DocText(), "\n"), "\n") {
		switch {
		case line == "":
			want.WriteString("//\n")
		case strings.HasPrefix(line, "\t"):
			want.WriteString("//" + line + "\n")
		default:
			want.WriteString("// " + line + "\n")
		}
	}
	if !strings.Contains(string(src), "// # Exit status\n//\n"+want.String()) {
		t.Errorf("mutate/doc.go's exit status section is not exitcode.DocText(); want:\n%s", want.String())
	}
	if !strings.HasSuffix(usage(), exitcode.UsageText()) {
		t.Errorf("usage does not end with the exit statuses")
	}
}

func TestParse(t *testing.T) {
	var stderr bytes.Buffer
	cfg, _, err := parse([]string{"run", "arith:*", "./gguf/...", "-j", "3", "--shard", "1/4", "--operators", "arith, negate", "--timeout-floor", "3s", "--catalog="}, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Command != "run" || cfg.Select != "arith:*" || strings.Join(cfg.Patterns, " ") != "./gguf/..." || cfg.Jobs != 3 ||
		cfg.Shard != (config.Shard{K: 1, N: 4}) || strings.Join(cfg.Operators, ",") != "arith,negate" || cfg.TimeoutFloor.String() != "3s" ||
		cfg.Catalog != "" || !cfg.CatalogExplicit {
		t.Errorf("config %+v", cfg)
	}
	for _, bad := range [][]string{{"all", "--shard", "3/3"}, {"all", "-j", "0"}, {"run"}, {"all", "--timeout-floor", "soon"}} {
		if _, _, err := parse(bad, &stderr); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}
