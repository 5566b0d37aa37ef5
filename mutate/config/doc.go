// Package config is the typed configuration of one mutate run: what the
// command line asked for, with its defaults. The command parses its flags
// into a Config (the command itself a Command, not a string), the
// pipeline (mutate/internal/lab and its steps) runs from it, and the
// report carries it once, with the one command line rendered from it
// (Config.CommandLine), so a merge compares the settings that decide
// verdicts field by field instead of re-parsing flag strings. project.go
// reads a module's .gathermut.json and decides where its reports go
// (ReportDirFor: the flag, else the project file's reportDir, else a
// folder of the module in the user cache).
package config
