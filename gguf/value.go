package gguf

import "fmt"

// valueType is a GGUF metadata value type id.
type valueType uint32

const (
	valueUint8 valueType = iota
	valueInt8
	valueUint16
	valueInt16
	valueUint32
	valueInt32
	valueFloat32
	valueBool
	valueString
	valueArray
	valueUint64
	valueInt64
	valueFloat64
)

// maxArrayNesting is the deepest array-of-arrays the reader and the builder
// accept. Real files use one level; the bound keeps the recursion finite.
const maxArrayNesting = 16

// valueTypes names each value type and gives the fewest bytes one value of it
// takes in a file: a string is at least its u64 length, an array at least
// its u32 element type and u64 count. Counts read from a file are checked
// against these before anything is allocated.
var valueTypes = [...]struct {
	name     string
	minBytes int
}{
	valueUint8:   {"uint8", 1},
	valueInt8:    {"int8", 1},
	valueUint16:  {"uint16", 2},
	valueInt16:   {"int16", 2},
	valueUint32:  {"uint32", 4},
	valueInt32:   {"int32", 4},
	valueFloat32: {"float32", 4},
	valueBool:    {"bool", 1},
	valueString:  {"string", 8},
	valueArray:   {"array", 12},
	valueUint64:  {"uint64", 8},
	valueInt64:   {"int64", 8},
	valueFloat64: {"float64", 8},
}

func (v valueType) known() bool { return uint64(v) < uint64(len(valueTypes)) }

func (v valueType) String() string {
	if v.known() {
		return valueTypes[v].name
	}
	return fmt.Sprintf("value type %d", uint32(v))
}
