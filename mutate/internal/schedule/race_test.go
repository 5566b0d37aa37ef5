package schedule

import (
	"slices"
	"testing"
)

// TestRaceArgs: a package named by the project file's race patterns, exactly
// or under a /... pattern, builds with -race; any other does not.
func TestRaceArgs(t *testing.T) {
	race := []string{"./gather", "./hipkern/...", "./engine/"}
	tests := []struct {
		pkg  string
		race []string
		want bool
	}{
		{"m/gather", race, true},
		{"m/gather/gathertest", race, false},
		{"m/gatherx", race, false},
		{"m/hipkern", race, true},
		{"m/hipkern/internal/probe", race, true},
		{"m/hipkernel", race, false},
		{"m/engine", race, true},
		{"m/gguf", race, false},
		{"m", []string{"./..."}, true},
		{"m/any/pkg", []string{"./..."}, true},
		{"m", []string{"."}, true},
		{"m/gguf", []string{"."}, false},
		{"m/gguf", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.pkg, func(t *testing.T) {
			got := raceArgs(tt.race, "m", tt.pkg)
			if want := []string{"-race"}; tt.want != slices.Equal(got, want) || !tt.want && got != nil {
				t.Errorf("raceArgs(%q, m, %s) = %q, want -race: %v", tt.race, tt.pkg, got, tt.want)
			}
		})
	}
}
