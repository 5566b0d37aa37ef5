package report

import "fmt"

// ShardTimes sums the wall times of a merged report's parts (the total
// worker time: what the run cost, machine by machine) and finds the
// longest part (when the parts ran side by side, the run's wall time).
func ShardTimes(g Meta) (total float64, longest ShardInfo) {
	for _, sh := range g.Shards {
		total += sh.WallSeconds
		if sh.WallSeconds > longest.WallSeconds {
			longest = sh
		}
	}
	return total, longest
}

// ShardTimesText says it in one line: "total worker time 310.2 s over 3
// shards; longest shard 120.5 s (mutation-shard-1-of-3, shard 1/3)".
func ShardTimesText(g Meta) string {
	total, longest := ShardTimes(g)
	label := longest.Name
	if longest.Shard != "" {
		label += ", shard " + longest.Shard
	}
	return fmt.Sprintf("total worker time %.1f s over %d shards; longest shard %.1f s (%s)", total, len(g.Shards), longest.WallSeconds, label)
}
