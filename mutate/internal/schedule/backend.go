package schedule

import (
	"context"
	"strings"

	"gathermut/mutate/mutant"
	"gathermut/mutate/operator"
)

// backend judges one runnable mutant: it builds what the mutant needs and
// runs the tests that can see it. This is the seam where other ways of
// judging plug in (a kernel on a host emulation, assembly mutants,
// mutants on GPU slots): a new backend, chosen by backendFor from what
// discovery knows of the mutant.
type backend interface {
	judge(ctx context.Context, m mutant.Mutant) mutant.Result
}

// backendFor picks a runnable mutant's backend: the kernel (its schema
// or a rebuild, on a GPU or the host emulation: kernel.go) for a kernel
// mutant, the Go tests (schema binary or a build of its own) for the rest,
// assembly mutants included (they are Go mutants of their package).
func (r *Runner) backendFor(m mutant.Mutant) backend {
	if m.Kind == mutant.Kernel {
		return kernelBackend{r}
	}
	return goTests{r}
}

// static is the verdict on a mutant discovery decided (its state is not
// Runnable), with no build and no test.
func static(m mutant.Mutant) mutant.Result {
	switch m.State {
	case mutant.Invalid:
		return mutant.Result{Status: mutant.Error, Why: m.Note}
	case mutant.Equivalent:
		return mutant.Result{Status: mutant.Ignored, Why: "equivalent: " + m.Note}
	}
	why := "does not type-check: " + firstLine(m.Note)
	if vet, ok := strings.CutPrefix(m.Note, operator.VetPrefix); ok {
		why = "fails the go vet checks go test runs: " + firstLine(vet)
	}
	return mutant.Result{Status: mutant.Unviable, Why: why, Excerpt: m.Note}
}
