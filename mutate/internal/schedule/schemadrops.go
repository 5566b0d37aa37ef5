package schedule

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"slices"

	"gathermut/mutate/internal/cache"
	"gathermut/mutate/testbin"
)

// Mutants the schema cannot switch. A schema build that fails drops the
// mutants its errors point into and builds again (newSchemaRun); on the
// row that is the constants whose mutated value is needed where only a
// constant will do (81 of 7,364), and every eager test binary (six) used
// to fail on them in its first round, each compiling the failing package
// again. Two things now spare that:
//
//   - the precheck: before the test binaries, one go build of the mutated
//     and observing packages alone (their tests are not compiled) with the schema finds
//     those errors once, drops the mutants, and builds again until the
//     packages compile (or an error points at no mutant: the test builds
//     then report it as before). What it compiles is in the build cache
//     for the test binaries.
//   - the drops are cached (kind schemaDropsKind) under the tool, the
//     module's root and the judged tree: a later run of the same tree
//     drops them before its first build. A cached drop that is no longer
//     needed only costs that mutant a build of its own; the verdict is the
//     same either way. --no-cache neither reads nor writes them.
const schemaDropsKind = "schema-drops"

// maxPrecheck bounds the precheck's builds, as the test builds' rounds.
const maxPrecheck = 8

type dropsEntry struct {
	Key     string            `json:"key"`
	Dropped map[string]string `json:"dropped"` // mutant id -> why
}

func (sr *schemaRun) dropsKey() string {
	if sr.s.cfg.NoCache || sr.tree == "" {
		return ""
	}
	sum := sha256.Sum256(fmt.Appendf(nil, "%s\x00%s\x00%s\x00%s", schemaDropsKind, cache.Tool(), sr.s.root, sr.tree))
	return hex.EncodeToString(sum[:])
}

// cachedDrops returns the drops an earlier run of the tree recorded, for
// the mutants of this run.
func (sr *schemaRun) cachedDrops() map[string]string {
	dropped := map[string]string{}
	key := sr.dropsKey()
	var e dropsEntry
	if key == "" || !cache.Read(schemaDropsKind, key, &e) || e.Key != key {
		return dropped
	}
	for id, why := range e.Dropped {
		if _, ok := sr.number[id]; ok {
			dropped[id] = why
		}
	}
	if len(dropped) > 0 {
		sr.s.progressf("mutate: %s cannot share a test binary (known from an earlier run of this tree): each gets a build of its own\n",
			countOf(len(dropped), "mutant", "mutants"))
	}
	return dropped
}

// cacheDrops records the drops of a schema that built, with those of
// earlier runs of the tree (a run of fewer mutants keeps the others').
func (sr *schemaRun) cacheDrops(dropped map[string]string) {
	key := sr.dropsKey()
	if key == "" {
		return
	}
	var old dropsEntry
	if !cache.Read(schemaDropsKind, key, &old) || old.Key != key {
		old = dropsEntry{}
	}
	e := dropsEntry{Key: key, Dropped: maps.Clone(dropped)}
	for id, why := range old.Dropped {
		if _, ok := e.Dropped[id]; !ok {
			e.Dropped[id] = why
		}
	}
	if maps.Equal(e.Dropped, old.Dropped) {
		return
	}
	_ = cache.Write(schemaDropsKind, key, e)
}

// precheck compiles the mutated packages with the schema, dropping the
// mutants the errors point into, until they compile; it returns the
// render that compiled, or nil when an error points at no mutant (the
// test builds then say what failed).
func (sr *schemaRun) precheck(ctx context.Context, dropped map[string]string, eager []string) (*render, error) {
	if len(sr.byPkg) == 0 {
		return nil, nil
	}
	// the observing packages too: one may need constant what a
	// mutated package exports (a package of test files alone has no
	// name: nothing to build)
	pkgs := slices.Sorted(maps.Keys(sr.byPkg))
	for _, p := range slices.Clone(pkgs) {
		for _, obs := range append(sr.s.prog.Observers(p), eager...) {
			if sr.s.prog.Name(obs) != "" && !slices.Contains(pkgs, obs) {
				pkgs = append(pkgs, obs)
			}
		}
	}
	for range maxPrecheck {
		r, err := sr.render(dropped)
		if err != nil {
			return nil, err
		}
		if err := sr.s.slots.acquire(ctx); err != nil {
			return nil, err
		}
		_, out, err := testbin.Go(ctx, sr.s.root, append([]string{"build", "-o", os.DevNull, "-overlay", r.overlay}, pkgs...)...)
		sr.s.slots.release()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err == nil {
			return r, nil
		}
		sr.rounds++
		n := r.dropFor(out, sr.s.root, dropped)
		if n == 0 {
			return nil, nil
		}
		sr.s.progressf("mutate: %s cannot share a test binary (their packages do not compile with them in it): each gets a build of its own\n",
			countOf(n, "mutant", "mutants"))
	}
	return nil, nil
}
