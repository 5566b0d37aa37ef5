package engine

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"gathermut/gather"
	"gathermut/gguf"
	"gathermut/hipkern/hipkerntest"
)

// reachabilityPrompts are docs/row.md's prompts, each run for reachabilityTokens
// greedy tokens.
var reachabilityPrompts = [][]int32{{1, 0, 63, 127, 63}, {1, 127, 0, 127}}

const (
	reachabilityTokens  = 4
	reachabilityRepeats = 3
	// Each completion embeds its prompt once, then each fed-back token.
	embedCallsPerLoad = 2 * reachabilityTokens
)

// deviceMode is one device the reachability test runs on.
type deviceMode struct {
	name   string
	device string // Params.Device
	kind   gather.DeviceKind
}

var (
	cpuMode = deviceMode{name: "cpu", device: "cpu", kind: gather.CPU}
	gpuMode = deviceMode{name: "gpu", device: "gpu", kind: gather.GPU}
)

// armRun is what one fresh load produced: per prompt, the tokens and the bits
// of each step's logits.
type armRun struct {
	tokens [][]int32
	logits [][][]uint32
}

// runArm loads path on mode's device, completes both prompts with gather
// statistics reset at the load, and returns the outputs, the statistics and
// the embedding table's residency.
func runArm(t *testing.T, mode deviceMode, path string) (armRun, gather.Stats, gather.Stats, TensorResidency) {
	t.Helper()
	gather.ResetStats()
	e, err := Load(Params{ModelPath: path, Device: mode.device})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	var run armRun
	for _, p := range reachabilityPrompts {
		var steps [][]uint32
		toks, err := e.CompleteTokens(p, Sampling{MaxTokens: reachabilityTokens, IgnoreEOS: true,
			Logits: func(step int, logits []float32) {
				if step != len(steps) {
					t.Errorf("logits callback step %d, want %d", step, len(steps))
				}
				bits := make([]uint32, len(logits))
				for i, v := range logits {
					bits[i] = math.Float32bits(v)
				}
				steps = append(steps, bits)
			}})
		if err != nil {
			t.Fatal(err)
		}
		if len(toks) != reachabilityTokens || len(steps) != reachabilityTokens {
			t.Fatalf("prompt %v: %d tokens, %d logits callbacks, want %d", p, len(toks), len(steps), reachabilityTokens)
		}
		run.tokens = append(run.tokens, toks)
		run.logits = append(run.logits, steps)
	}
	return run, gather.ReadStats(gather.OpEmbeddingQuant, mode.kind), gather.ReadStats(gather.OpEmbeddingFloat, mode.kind),
		e.Residency()[embeddingTensor]
}

// TestProductionReachability is docs/row.md's production reachability test: for
// every admitted codec, the packed tiny model and its dense control, each
// loaded three times through Load and run through CompleteTokens, give the
// same tokens and bit-identical logits; the packed arm's embed step is
// served by the EmbeddingQuant provider (never declined, never a fallback)
// from a table that stays packed at exactly vocab*RowSizeBytes bytes, and
// the dense arm's by EmbeddingFloat. It fails if the embed step stops
// calling gather.Embedding, if the EmbeddingQuant registration is removed,
// or if the loader expands the table.
func TestProductionReachability(t *testing.T) {
	checkReachability(t, cpuMode)
}

// TestProductionReachabilityGPU is the same test with Params.Device "gpu":
// the packed table resident on the GPU and the embed step served by the
// GPU's EmbeddingQuant provider (hipkern). It also requires the GPU's
// tokens and logits to be bit-identical to the CPU's. Without a GPU
// library it runs on hipkern's host emulation where that can be built
// (the engine's GPU path is then tested, not a GPU), and skips, saying
// why, only where the emulation is not to be used here
// (hipkerntest.ErrNoEmulation); an emulation that fails otherwise fails it.
// Every run logs the library and device it ran on, so that a run on the
// emulation is never read as a GPU run.
func TestProductionReachabilityGPU(t *testing.T) {
	info, err := hipkerntest.Load()
	if errors.Is(err, hipkerntest.ErrNoEmulation) {
		t.Skipf("no GPU: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("engine GPU path on %v", info)
	checkReachability(t, gpuMode)
	t.Logf("ran on %v", info)
}

func checkReachability(t *testing.T, mode deviceMode) {
	gather.EnableStats(true)
	defer gather.EnableStats(false)
	hp := tinyModelHParams
	for _, codec := range gather.Admitted() {
		t.Run(codec.String(), func(t *testing.T) {
			rowBytes, err := gguf.RowSizeBytes(codec, int64(hp.hidden))
			if err != nil {
				t.Fatal(err)
			}
			arms := []struct {
				name  string
				dense bool
				want  TensorResidency
			}{
				{"packed", false, TensorResidency{Packed: true, Type: codec, Bytes: int64(hp.vocab) * rowBytes}},
				{"dense", true, TensorResidency{Packed: true, Type: gguf.TypeBF16, Bytes: int64(hp.vocab * hp.hidden * 2)}},
			}
			var ref *armRun
			for _, arm := range arms {
				path := filepath.Join(t.TempDir(), modelFileName(codec, arm.dense))
				writeTestModelFile(t, path, codec, arm.dense)
				for rep := range reachabilityRepeats {
					run, quant, float, res := runArm(t, mode, path)
					if res != arm.want {
						t.Errorf("%s load %d: token_embd residency %+v, want %+v", arm.name, rep, res, arm.want)
					}
					served, other := quant, float
					if arm.dense {
						served, other = float, quant
					}
					if served.Selections != embedCallsPerLoad || served.Declines != 0 || served.Fallbacks != 0 {
						t.Errorf("%s load %d: serving tier stats %+v, want %d selections, no declines, no fallbacks",
							arm.name, rep, served, embedCallsPerLoad)
					}
					if other.Selections != 0 {
						t.Errorf("%s load %d: the other tier was selected %d times", arm.name, rep, other.Selections)
					}
					if ref == nil {
						checkInformative(t, run)
						if mode.kind != gather.CPU {
							// The device's run must equal the CPU's, bit for bit.
							cpuRun, _, _, _ := runArm(t, cpuMode, path)
							compareRuns(t, "cpu packed load", cpuRun, run)
						}
						ref = &run
						continue
					}
					compareRuns(t, fmt.Sprintf("%s load %d", arm.name, rep), run, *ref)
				}
			}
		})
	}
}

// compareRuns fails unless run has the same tokens and bit-identical logits
// as ref (the first packed load).
func compareRuns(t *testing.T, what string, run, ref armRun) {
	t.Helper()
	for p := range ref.tokens {
		if !slices.Equal(run.tokens[p], ref.tokens[p]) {
			t.Errorf("%s prompt %d: tokens %v, first packed load %v", what, p, run.tokens[p], ref.tokens[p])
		}
		for s := range ref.logits[p] {
			if !slices.Equal(run.logits[p][s], ref.logits[p][s]) {
				t.Errorf("%s prompt %d step %d: logits differ from the first packed load", what, p, s)
			}
		}
	}
}

// checkInformative guards the comparison against a degenerate run (for
// example all-zero embeddings, which make every arm agree): the logits are
// finite, not all equal, and differ between the two prompts.
func checkInformative(t *testing.T, run armRun) {
	t.Helper()
	for p, steps := range run.logits {
		for s, bits := range steps {
			distinct := map[uint32]bool{}
			for _, b := range bits {
				v := math.Float32frombits(b)
				if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
					t.Fatalf("prompt %d step %d: logit %v", p, s, v)
				}
				distinct[b] = true
			}
			if len(distinct) < len(bits)/2 {
				t.Errorf("prompt %d step %d: only %d distinct logits of %d", p, s, len(distinct), len(bits))
			}
		}
	}
	if slices.Equal(run.logits[0][0], run.logits[1][0]) {
		t.Errorf("both prompts give the same first logits: the embeddings do not reach the model")
	}
}

func writeTestModelFile(t testing.TB, path string, codec gguf.Type, dense bool) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteTestModel(f, codec, dense); err != nil {
		f.Close()
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
