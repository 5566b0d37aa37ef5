package testbin

import (
	"encoding/json"
	"os"
	"sync"
	"time"
)

// ProcessLogVar names a file every test process the tool runs appends a
// line to (JSON: package, -test.run pattern, seconds, exit code, timed
// out), for finding where a run's time goes; unset, nothing is written.
// It is read once per process of the tool.
const ProcessLogVar = "GATHERMUT_PROCESS_LOG"

var processLog struct {
	once sync.Once
	mu   sync.Mutex
	f    *os.File
}

// processLine is one line of the process log.
type processLine struct {
	Package  string  `json:"package"`
	Run      string  `json:"run"`
	Seconds  float64 `json:"seconds"`
	Exit     int     `json:"exit"`
	TimedOut bool    `json:"timedOut,omitempty"`
}

// logProcess appends one test process to the process log, if one is set.
func logProcess(o Options, elapsed time.Duration, exit int, timedOut bool) {
	processLog.once.Do(func() {
		if path := os.Getenv(ProcessLogVar); path != "" {
			processLog.f, _ = os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		}
	})
	if processLog.f == nil {
		return
	}
	line, err := json.Marshal(processLine{Package: o.Package, Run: o.Run, Seconds: elapsed.Seconds(), Exit: exit, TimedOut: timedOut})
	if err != nil {
		return
	}
	processLog.mu.Lock()
	defer processLog.mu.Unlock()
	processLog.f.Write(append(line, '\n'))
}
