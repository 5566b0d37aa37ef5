package operator

import (
	"fmt"
	"slices"
	"strings"

	"gathermut/mutate/catalog"
	"gathermut/mutate/goasm"
	"gathermut/mutate/load"
	"gathermut/mutate/mutant"
)

// AsmPerClass is how many mutants of each assembly operator a routine keeps
// by default (goasm.Options.PerClass): every routine gets every class that
// applies, at a cost that does not grow with the generator's unrolling.
const AsmPerClass = 12

// AsmConfig selects the assembly mutants.
type AsmConfig struct {
	Packages  []string              // import paths; empty: every target
	Files     func(rel string) bool // module-relative files; nil: all
	Operators []string              // goasm operator names; nil: all, empty: none
	PerClass  int                   // 0: AsmPerClass; negative: no limit
	// Equivalents are the catalog's declared equivalents (their Func is
	// the routine's name, without the package's middle dot).
	Equivalents []catalog.Equivalent
}

// AsmOperatorNames returns the assembly operators among names: nil (all)
// for no names, "default" or "all"; otherwise the asm-* names given
// (possibly none).
func AsmOperatorNames(names []string) []string {
	if len(names) == 0 || slices.Contains(names, "default") || slices.Contains(names, "all") {
		return nil
	}
	out := []string{}
	for _, op := range goasm.Operators {
		if slices.Contains(names, op.Name) {
			out = append(out, op.Name)
		}
	}
	return out
}

// GenerateAsm makes the mutants of the target packages' assembly files (the
// ones this GOARCH builds), as Go mutants of their package: they are built
// and observed like Go mutants, switched per routine in a schema (package
// goasm). No type check decides them: one that does not assemble is
// unviable at its build.
func GenerateAsm(prog *load.Program, cfg AsmConfig) ([]mutant.Mutant, error) {
	if cfg.Operators != nil && len(cfg.Operators) == 0 {
		return nil, nil
	}
	per := cfg.PerClass
	if per == 0 {
		per = AsmPerClass
	}
	var out []mutant.Mutant
	for _, pkg := range prog.Targets {
		if len(cfg.Packages) > 0 && !slices.Contains(cfg.Packages, pkg.Path) {
			continue
		}
		for _, file := range pkg.Asm {
			if cfg.Files != nil && !cfg.Files(file.Rel) {
				continue
			}
			f, err := goasm.Parse(file.Src)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", file.Rel, err)
			}
			ams, err := goasm.Mutants(f, goasm.Options{Operators: cfg.Operators, PerClass: max(per, 0)})
			if err != nil {
				return nil, fmt.Errorf("%s: %w", file.Rel, err)
			}
			text := string(file.Src)
			for _, am := range ams {
				edit := mutant.Edit{Start: am.Start, End: am.End, Text: am.Text}
				ins := f.Instrs[am.Instr]
				m := mutant.Mutant{
					Kind:        mutant.Go,
					Operator:    am.Operator,
					Package:     pkg.Path,
					File:        file.Rel,
					Func:        strings.TrimPrefix(am.Routine, "·"),
					Pos:         offsetPos(text, am.Start),
					End:         offsetPos(text, am.End),
					InBody:      true,
					Original:    am.Original,
					Replacement: am.Replacement,
					Edit:        &edit,
					ResultHash:  resultHash(file.Src, edit),
					Diff:        mutant.EditDiff(file.Rel, file.Src, edit),
					Schema:      &mutant.Site{Kind: mutant.AsmSite, Start: am.Start, End: am.End, Text: am.Text, Name: am.Routine, Probe: -1},
				}
				if r := f.RoutineOf(am.Instr); r != nil {
					m.BodyStart = offsetPos(text, r.Start)
					m.BodyEnd = offsetPos(text, r.End)
				} else if ins.Op == "DATA" {
					m.Func = "DATA " + strings.TrimSpace(ins.Operands[0].Text)
				}
				m.ID = mutant.EditID(m.Operator, m.File, m.Pos, am.Replacement, edit)
				if reason, ok := matchEquivalent(cfg.Equivalents, m, file.Src, am.Start); ok {
					m.Decide(mutant.Equivalent, reason)
				}
				out = append(out, m)
			}
		}
	}
	return out, nil
}

func isAsmOperator(name string) bool {
	for _, op := range goasm.Operators {
		if op.Name == name {
			return true
		}
	}
	return false
}
