// Package config is the typed configuration of one mutate run: what the
// command line asked for, with its defaults. The command parses its flags
// into a Config, the pipeline (mutate/internal/lab) runs from it, and the
// report carries it whole, so a merge compares the settings that decide
// verdicts field by field instead of re-parsing flag strings.
package config
