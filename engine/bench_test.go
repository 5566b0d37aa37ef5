package engine

import (
	"path/filepath"
	"testing"

	"gathermut/gather"
	"gathermut/gguf"
)

// BenchmarkLoad opens, routes and assembles the packed tiny model.
func BenchmarkLoad(b *testing.B) {
	for _, codec := range gather.Admitted() {
		b.Run(codec.String(), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "model.gguf")
			writeTestModelFile(b, path, codec, false)
			for b.Loop() {
				e, err := Load(Params{ModelPath: path})
				if err != nil {
					b.Fatal(err)
				}
				e.Close()
			}
		})
	}
}

// BenchmarkCompleteTokens reports generated tokens per second: each call
// prefills docs/row.md's 5-token prompt and produces 8 tokens.
func BenchmarkCompleteTokens(b *testing.B) {
	for _, codec := range gather.Admitted() {
		b.Run(codec.String(), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "model.gguf")
			writeTestModelFile(b, path, codec, false)
			e, err := Load(Params{ModelPath: path})
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			s := Sampling{MaxTokens: 8, IgnoreEOS: true}
			n := 0
			for b.Loop() {
				toks, err := e.CompleteTokens(reachabilityPrompts[0], s)
				if err != nil {
					b.Fatal(err)
				}
				n += len(toks)
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "tokens/s")
		})
	}
}

// TestResidentBytes reports, per codec, the resident bytes of the packed
// table against its dense control and of the whole model (go test ./engine
// -run TestResidentBytes -v prints the table), and checks the table sizes.
func TestResidentBytes(t *testing.T) {
	hp := tinyModelHParams
	t.Logf("%-9s %12s %12s %7s %12s %12s", "codec", "table packed", "table dense", "ratio", "model packed", "model dense")
	for _, codec := range gather.Admitted() {
		var table, total [2]int64
		for i, dense := range []bool{false, true} {
			path := filepath.Join(t.TempDir(), "model.gguf")
			writeTestModelFile(t, path, codec, dense)
			e := mustLoad(t, path)
			for name, r := range e.Residency() {
				total[i] += r.Bytes
				if name == embeddingTensor {
					table[i] = r.Bytes
				}
			}
		}
		rowBytes, _ := gguf.RowSizeBytes(codec, int64(hp.hidden))
		if table[0] != int64(hp.vocab)*rowBytes || table[1] != int64(hp.vocab*hp.hidden*2) {
			t.Errorf("%v: table %d packed, %d dense bytes", codec, table[0], table[1])
		}
		if total[1]-total[0] != table[1]-table[0] {
			t.Errorf("%v: the models differ by %d bytes beyond the table", codec, total[1]-total[0]-(table[1]-table[0]))
		}
		t.Logf("%-9v %12d %12d %6.2fx %12d %12d", codec, table[0], table[1], float64(table[1])/float64(table[0]), total[0], total[1])
	}
}
