package schedule

import "maps"

// baselineCut reports whether a baseline of the run did not finish: one
// still running, or stopped by an error (an interrupt cancels it). With
// baselines started next to the mutants, an interrupt can cut them; the
// report then says the baseline was interrupted.
func (sr *schemaRun) baselineCut() bool {
	sr.mu.Lock()
	fs := maps.Clone(sr.baselines)
	sr.mu.Unlock()
	for _, f := range fs {
		if !f.done.Load() || f.err != nil {
			return true
		}
	}
	return false
}
