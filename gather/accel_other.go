//go:build !amd64

package gather

// accelAvailable reports whether this machine has accelerated decoders:
// only amd64 has them (see accel_amd64.go); elsewhere every codec decodes
// with its portable decoder.
func accelAvailable() bool { return false }

// setAccel has nothing to install here.
func setAccel(bool) {}
