package operator

import (
	"fmt"
	"testing"

	"gathermut/mutate/load"
)

func TestScratch(t *testing.T) {
	prog, err := load.Load("../testdata/fixture", "./...")
	if err != nil {
		t.Fatal(err)
	}
	ms, err := Generate(prog, Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		fmt.Printf("%-50s %-14s %q -> %q %s %v\n", m.ID, m.Func, m.Original, m.Replacement, m.Unviable, m.InBody)
	}
	fmt.Println(len(ms))
	for _, p := range prog.Targets {
		fmt.Println(p.Path, prog.Observers(p.Path), prog.Tests(p.Path))
	}
}
