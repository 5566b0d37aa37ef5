// Command tally prints the sum of its integer arguments. Its only test
// builds it with the go command and runs what it built, so a mutant here
// is seen only by a build that gets the mutant's overlay.
package main

import (
	"fmt"
	"os"
	"strconv"
)

// usage is the exit status of a bad argument.
const usage = 2 // want killed

func main() {
	sum := 0                        // want killed
	for _, a := range os.Args[1:] { // want killed
		n, err := strconv.Atoi(a)
		if err != nil { // want killed
			fmt.Fprintln(os.Stderr, "tally:", err) // want killed
			os.Exit(usage)                         // want killed
		}
		sum += n // want killed remove-stmt=unviable
	}
	fmt.Println("sum", sum) // want killed
}

// unused is never called: its mutants are not covered by any test.
func unused() int { return 1 } // want survived

var _ = unused
