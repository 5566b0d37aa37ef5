package probe

// State is what the library's probes report.
type State struct {
	BoundDevice int   // the device the last entry point bound, -1 after Reset
	Launches    int64 // kernels launched since the library was loaded
	LastGrid    int64 // workgroups of the last launch
	LastGridCap int64 // the most workgroups the last launch could have had
	LiveTemps   int64 // temporaries (error records) allocated and not yet freed
}

// Gather is one gm_bench_gather's request: table, ids and out are device
// addresses, as in gm_gather.
type Gather struct {
	Dev           int
	TableType     int
	Table         uint64
	Vocab, Hidden int64
	IDs           uint64
	IDBytes       int
	NIDs          int64
	Out           uint64
	OutBF16       bool
}
