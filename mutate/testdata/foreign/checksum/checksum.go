// Package checksum is written the way code found in the wild sometimes is:
// not gofmt-clean (odd spacing, blank lines, one-line bodies), with a
// lookup table. Positions in reports must still be those of this file.
package checksum



import "errors"

// weights is a lookup table: const-int leaves its elements alone (tables
// are const-table's, an opt-in operator).
var weights = []int{ 1,3,7,9, 1,3,7,9,
	1,3,7,9,  1,3,7,9 }


// ErrEmpty is returned for no input.
var   ErrEmpty = errors.New("checksum: empty input")

// Sum is the weighted sum of the bytes modulo 97.
func Sum(data []byte)(int,error){
    if len(data)==0 {return 0,ErrEmpty} // want killed
	total:=0 // want killed
	for i,b := range data {
		total  +=  weights[i%16]*int(b) // want killed remove-stmt=unviable
	}


	return total%97,nil // want killed
}

// Valid reports whether sum is the checksum of data.
func Valid(data []byte, sum int) bool { s, err := Sum(data); return err==nil&&s==sum } // want killed zero-return=unviable

//gathermut:ignore a debugging aid, not on any decision path
func Dump(data []byte) string { out:=""; for _,b:=range data { out+=string("0123456789abcdef"[b>>4]) }; return out }
