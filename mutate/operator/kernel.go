package operator

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"gathermut/mutate/catalog"
	"gathermut/mutate/cxx"
	"gathermut/mutate/mutant"
)

// KernelSources reads the kernel recipe's sources (its module-relative
// globs), keyed by slash-separated module-relative path.
func KernelSources(root string, k *catalog.Kernel) (map[string][]byte, error) {
	files := map[string][]byte{}
	for _, glob := range k.Sources {
		matches, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(glob)))
		if err != nil {
			return nil, fmt.Errorf("kernel source glob %q: %w", glob, err)
		}
		for _, path := range matches {
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return nil, err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return nil, err
			}
			files[filepath.ToSlash(rel)] = data
		}
	}
	return files, nil
}

// KernelUnits preprocesses and parses the kernel's entry file in each build
// environment: the emulation's, nvcc's and hipcc's device passes.
func KernelUnits(files map[string][]byte, entry string) (map[string][]*cxx.Source, error) {
	out := map[string][]*cxx.Source{}
	for _, env := range []cxx.Env{cxx.Emulation, cxx.NVCC, cxx.HIPCC} {
		u, err := cxx.Preprocess(entry, files, env)
		if err != nil {
			return nil, fmt.Errorf("kernel %s (%s build): %w", entry, env.Name, err)
		}
		srcs, err := cxx.Parse(u)
		if err != nil {
			return nil, fmt.Errorf("kernel %s (%s build): %w", entry, env.Name, err)
		}
		out[env.Name] = srcs
	}
	return out, nil
}

// Compiled returns the builds whose parse of file holds the byte range
// [start, end) as code (not dropped by a conditional).
func Compiled(units map[string][]*cxx.Source, file string, start, end int) []string {
	var out []string
	for name, srcs := range units {
		for _, s := range srcs {
			if s.Name != file {
				continue
			}
			// the first token ending after start must overlap the range (an
			// insertion: hold start)
			i := sort.Search(len(s.Toks), func(i int) bool { return s.Toks[i].End > start })
			if i < len(s.Toks) && (s.Toks[i].Start < end || (end == start && s.Toks[i].Start <= start)) {
				out = append(out, name)
			}
		}
	}
	sort.Strings(out)
	return out
}

// GenerateKernel makes the generic mutants of the kernel's device code
// (package cxx's operators, named by ops: empty means all) in what the host
// emulation compiles, as mutants of kind Kernel in the recipe's package.
// keep filters by module-relative file (nil keeps all); a mutant that
// matches one of eqs (Package: the recipe's) is marked equivalent.
func GenerateKernel(root string, k *catalog.Kernel, ops []string, keep func(rel string) bool, eqs []catalog.Equivalent) ([]mutant.Mutant, error) {
	if k == nil || k.Entry == "" || (ops != nil && len(ops) == 0) {
		return nil, nil
	}
	files, err := KernelSources(root, k)
	if err != nil {
		return nil, err
	}
	units, err := KernelUnits(files, k.Entry)
	if err != nil {
		return nil, err
	}
	cms, err := cxx.Mutants(units[cxx.Emulation.Name], ops)
	if err != nil {
		return nil, err
	}
	var out []mutant.Mutant
	for _, cm := range cms {
		if keep != nil && !keep(cm.File) {
			continue
		}
		src := files[cm.File]
		edit := mutant.Edit{Start: cm.Edit.Start, End: cm.Edit.End, Text: cm.Edit.Text}
		text := string(src)
		pos := offsetPos(text, edit.Start)
		m := mutant.Mutant{
			Kind:        mutant.Kernel,
			Operator:    cm.Operator,
			Package:     k.Package,
			File:        cm.File,
			Func:        cm.Func,
			Pos:         pos,
			End:         offsetPos(text, edit.End),
			InBody:      true,
			BodyStart:   offsetPos(text, cm.Site.Probe),
			Original:    string(src[cm.Site.Start:cm.Site.End]),
			Replacement: cm.Site.Text,
			Edit:        &edit,
			ResultHash:  resultHash(src, edit),
			Diff:        mutant.EditDiff(cm.File, src, edit),
			Compiled:    Compiled(units, cm.File, edit.Start, edit.End),
		}
		m.ID = mutant.EditID(m.Operator, m.File, m.Pos, cm.Site.Text, edit)
		if reason, ok := matchEquivalent(eqs, m, src, edit.Start); ok {
			m.Decide(mutant.Equivalent, reason)
		}
		out = append(out, m)
	}
	return out, nil
}

// KernelOperatorNames returns the kernel operators among names (Go operator
// names that have a kernel twin, and the kernel's own): nil for every
// kernel operator (no names, or "default" or "all" among them), an empty
// slice for none.
func KernelOperatorNames(names []string) []string {
	if len(names) == 0 || slices.Contains(names, "default") || slices.Contains(names, "all") {
		return nil
	}
	out := []string{}
	for _, op := range cxx.Operators {
		if slices.Contains(names, op.Name) {
			out = append(out, op.Name)
		}
	}
	return out
}

func isKernelOperator(name string) bool {
	for _, op := range cxx.Operators {
		if op.Name == name {
			return true
		}
	}
	return false
}
