// The schema test's fixture (render_test.go): a program that calls the
// routines of fix_amd64.s on fixed inputs and prints the results.
package main

import "fmt"

func sumBytes(p *byte, n int) uint64
func mix(x uint64) uint64
func lookup(i int) uint64
func tail(x uint64) uint64
func unused() uint64

// initValue calls a routine while the package initializes, as the CPU
// feature check does: the schema's switch must be set by then.
var initValue = mix(7)

// dumpHits prints the schema's hits; the schema's support file sets it.
var dumpHits func()

func main() {
	buf := make([]byte, 80)
	for i := range buf {
		buf[i] = byte(i*29 + 3)
	}
	fmt.Println("sum", sumBytes(&buf[8], 0), sumBytes(&buf[8], 1), sumBytes(&buf[8], 17), sumBytes(&buf[20], 40))
	fmt.Println("mix", mix(0), mix(0x123456789abcdef), mix(^uint64(0)))
	fmt.Println("tail", tail(42))
	fmt.Print("lookup")
	for i := 0; i < 8; i++ {
		fmt.Print(" ", lookup(i))
	}
	fmt.Println()
	fmt.Println("init", initValue)
	if dumpHits != nil {
		dumpHits()
	}
}
