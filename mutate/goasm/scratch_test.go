package goasm

import (
	"fmt"
	"os"
	"testing"
)

func TestScratch(t *testing.T) {
	src, _ := os.ReadFile("../../gather/decode_amd64.s")
	f, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := Mutants(f, Options{PerClass: 12})
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]int{}
	for _, m := range ms {
		by[m.Operator]++
	}
	t.Logf("%d routines, %d instrs, %d mutants %v", len(f.Routines), len(f.Instrs), len(ms), by)
	var sm []SchemaMutant
	for i, m := range ms {
		sm = append(sm, SchemaMutant{Num: i + 1, Mutant: m})
	}
	sch, err := Render(f, sm, Names{Active: "gathermutActive", Hits: "gathermutHits"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile("/tmp/ov/decode_amd64.s", sch.Src, 0o644)
	os.WriteFile("/tmp/ov/0_gathermut_schema.go", []byte(fmt.Sprintf(`package gather
import ("os";"strconv")
var gathermutActive = func() int { n, _ := strconv.Atoi(os.Getenv("GATHERMUT_MUTANT")); return n }()
var gathermutHits = make([]byte, %d)
`, len(sch.SiteOf))), 0o644)
	for i := 0; i < 10; i++ {
		t.Logf("%d %s %s -> %s", i*97+1, ms[i*97].Operator, ms[i*97].Original, ms[i*97].Replacement)
	}
}
