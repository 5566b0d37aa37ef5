package schedule

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"gathermut/mutate/mutant"
)

func TestByCost(t *testing.T) {
	ms := time.Millisecond
	pb := &PackageBaseline{Path: "m/p"}
	for _, c := range []struct {
		name    string
		tests   []string // "Name:ms", in the selection's (name) order
		killers bool
		want    []string // the processes, each "A,B"
	}{
		{"one test", []string{"TestA:900"}, false, []string{"TestA"}},
		{"all tiny", []string{"TestA:0", "TestB:10", "TestC:20"}, false, []string{"TestA,TestB,TestC"}},
		{"tiny then quick", []string{"TestA:120", "TestB:0", "TestC:90", "TestD:10"}, false, []string{"TestB,TestD", "TestA,TestC"}},
		{"tier bounds", []string{"TestA:25", "TestB:24", "TestC:250", "TestD:249"}, false, []string{"TestB", "TestA,TestD", "TestC"}},
		{"slow alone, quickest first", []string{"TestA:12000", "TestB:13000", "TestC:2900", "TestD:1500", "TestE:0"}, false,
			[]string{"TestE", "TestD", "TestC", "TestA", "TestB"}},
		{"equal slow keep the selection's order", []string{"TestB:300", "TestA:300", "TestC:40"}, false, []string{"TestC", "TestB", "TestA"}},
		{"only quick", []string{"TestA:100", "TestB:30"}, false, []string{"TestA,TestB"}},
		{"all three tiers", []string{"TestA:500", "TestB:5", "TestC:50"}, false, []string{"TestB", "TestC", "TestA"}},
		{"expected killers stay together", []string{"TestA:12000", "TestB:0", "TestC:90"}, true, []string{"TestA,TestB,TestC"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := pkgRun{pkg: pb}
			for _, s := range c.tests {
				name, n, _ := strings.Cut(s, ":")
				d, err := strconv.Atoi(n)
				if err != nil {
					t.Fatal(err)
				}
				p.tests = append(p.tests, &TestBaseline{Name: name, Elapsed: time.Duration(d) * ms})
			}
			var got []string
			total := 0
			for _, g := range byCost(p, c.killers) {
				if g.pkg != pb {
					t.Errorf("process of %v lost its package", g.names())
				}
				got = append(got, strings.Join(g.names(), ","))
				total += len(g.tests)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("byCost = %q, want %q", got, c.want)
			}
			if total != len(c.tests) {
				t.Errorf("byCost ran %d tests of %d", total, len(c.tests))
			}
		})
	}
}

func TestQueueKernelPreparation(t *testing.T) {
	ms := []mutant.Mutant{
		{ID: "k1", Kind: mutant.Kernel},
		{ID: "k2", Kind: mutant.Kernel},
		{ID: "g", Kind: mutant.Go, State: mutant.Invalid, Note: "decided without tests"},
	}
	for _, c := range []struct {
		name   string
		settle bool // the first kernel mutant settles the kernel before the next take
		want   []int
	}{
		{"while the kernel is prepared, others go first", false, []int{0, 2, 1}},
		{"once it is prepared, in order", true, []int{0, 1, 2}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := &Runner{}
			q := r.newQueue(ms)
			var got []int
			for {
				i, ok := q.next()
				if !ok {
					break
				}
				got = append(got, i)
				if c.settle {
					r.kernel.settled.Store(true)
				}
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("order %v, want %v", got, c.want)
			}
		})
	}
}
