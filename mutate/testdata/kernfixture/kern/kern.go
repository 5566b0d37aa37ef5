// Package kern runs the fixture's kernel program (kernel.hip built with
// c++): the path in FIXTURE_KERN, as the mutation tool sets it for a
// kernel mutant.
//
//gathermut:ignore the fixture's Go code is not under test: its kernel is
package kern

import (
	"fmt"
	"os/exec"
	"strconv"
	"strings"
)

// Run runs program's function fn on args and returns what it prints.
func Run(program, fn string, args ...int) (int, error) {
	argv := []string{fn}
	for _, a := range args {
		argv = append(argv, strconv.Itoa(a))
	}
	out, err := exec.Command(program, argv...).Output()
	if err != nil {
		return 0, fmt.Errorf("kern: %s %v: %w", program, argv, err)
	}
	return strconv.Atoi(strings.TrimSpace(string(out)))
}
