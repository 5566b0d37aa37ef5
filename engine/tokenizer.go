package engine

import "fmt"

// The test model's tokenizer metadata. The engine itself works on token ids;
// these tables exist so other GGUF tools accept the files as a llama
// (SentencePiece-style) vocabulary.

// Token types as GGUF/llama.cpp number them.
const (
	tokenNormal  int32 = 1
	tokenUnknown int32 = 2
	tokenControl int32 = 3
)

// Special token ids of the test vocabulary.
const (
	unkToken = 0
	bosToken = 1
	eosToken = 2
)

// testVocab returns the n token strings, scores and types of the test
// vocabulary: "<unk>", "<s>", "</s>", then "tok003", "tok004", ... Scores
// fall with the id like SentencePiece log-probabilities; specials score 0.
func testVocab(n int) (tokens []string, scores []float32, types []int32) {
	tokens = make([]string, n)
	scores = make([]float32, n)
	types = make([]int32, n)
	for i := range tokens {
		switch i {
		case unkToken:
			tokens[i], types[i] = "<unk>", tokenUnknown
		case bosToken:
			tokens[i], types[i] = "<s>", tokenControl
		case eosToken:
			tokens[i], types[i] = "</s>", tokenControl
		default:
			tokens[i], types[i] = fmt.Sprintf("tok%03d", i), tokenNormal
			scores[i] = -float32(i - eosToken)
		}
	}
	return tokens, scores, types
}
