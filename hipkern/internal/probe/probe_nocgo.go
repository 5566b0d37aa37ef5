//go:build !cgo

package probe

import "errors"

// Lib needs cgo (dlopen); without it no library is loaded to probe.
type Lib struct{}

// Open fails: without cgo hipkern loads no library.
func Open(path string) (*Lib, error) { return nil, errors.New("hipkern probes: built without cgo") }

func (l *Lib) Close()                  {}
func (l *Lib) State() State            { return State{BoundDevice: -1} }
func (l *Lib) Reset()                  {}
func (l *Lib) InjectFailure(step int)  {}
func (l *Lib) SetDevice(dev int) error { return errors.New("hipkern probes: built without cgo") }
func (l *Lib) CurrentDevice() int      { return -1 }
func (l *Lib) BenchGather(Gather, int) (float64, error) {
	return 0, errors.New("hipkern probes: built without cgo")
}
func (l *Lib) BenchCopy(int, uint64, uint64, int64, int) (float64, error) {
	return 0, errors.New("hipkern probes: built without cgo")
}
