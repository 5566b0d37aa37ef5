package engine

import (
	"encoding/binary"
	"fmt"
	"math"

	"gathermut/gather"
	"gathermut/gguf"
)

// hparams are the model's hyperparameters, read from the llama.* metadata.
type hparams struct {
	context  int // positions a sequence may hold
	hidden   int // embedding width
	layers   int
	ffn      int // MLP width
	heads    int // query heads
	kvHeads  int // key/value heads (grouped-query attention)
	headDim  int // hidden / heads
	ropeDim  int // leading dimensions of each head that RoPE rotates
	vocab    int
	ropeBase float32
	rmsEps   float32
}

func (hp hparams) qDim() int  { return hp.heads * hp.headDim }
func (hp hparams) kvDim() int { return hp.kvHeads * hp.headDim }

// weights is one dense tensor the forward pass reads: rows x cols elements of
// F32, F16 or BF16, little-endian, row-major (GGUF dims [cols, rows]). The
// bytes are read in place, as stored in the file or as expanded once at load.
type weights struct {
	typ  gguf.Type
	rows int
	cols int
	data []byte
}

// newWeights checks that data holds rows x cols elements of a dense type the
// forward pass can read.
func newWeights(typ gguf.Type, rows, cols int, data []byte) (weights, error) {
	var size int
	switch typ {
	case gguf.TypeF32:
		size = 4
	case gguf.TypeF16, gguf.TypeBF16:
		size = 2
	default:
		return weights{}, fmt.Errorf("weights of type %v cannot be multiplied (want F32, F16 or BF16)", typ)
	}
	if want := rows * cols * size; len(data) != want {
		return weights{}, fmt.Errorf("%v weights [%d, %d] need %d bytes, have %d", typ, rows, cols, want, len(data))
	}
	return weights{typ: typ, rows: rows, cols: cols, data: data}, nil
}

// at returns element i of the row-major data.
func (w *weights) at(i int) float32 {
	switch w.typ {
	case gguf.TypeF32:
		return math.Float32frombits(binary.LittleEndian.Uint32(w.data[4*i:]))
	case gguf.TypeF16:
		return gather.F16ToF32(binary.LittleEndian.Uint16(w.data[2*i:]))
	default:
		return gather.BF16ToF32(binary.LittleEndian.Uint16(w.data[2*i:]))
	}
}

// dotRow returns row r of w dotted with x (len(x) == w.cols), summed in
// element order with every product rounded to float32 first.
func (w *weights) dotRow(r int, x []float32) float32 {
	var acc float32
	switch w.typ {
	case gguf.TypeF32:
		row := w.data[4*r*w.cols : 4*(r+1)*w.cols]
		for c, xv := range x {
			acc += float32(math.Float32frombits(binary.LittleEndian.Uint32(row[4*c:])) * xv)
		}
	case gguf.TypeF16:
		row := w.data[2*r*w.cols : 2*(r+1)*w.cols]
		for c, xv := range x {
			acc += float32(gather.F16ToF32(binary.LittleEndian.Uint16(row[2*c:])) * xv)
		}
	default:
		row := w.data[2*r*w.cols : 2*(r+1)*w.cols]
		for c, xv := range x {
			acc += float32(gather.BF16ToF32(binary.LittleEndian.Uint16(row[2*c:])) * xv)
		}
	}
	return acc
}

// mulVec sets dst = W x: dst[r] is row r dotted with x.
func (w *weights) mulVec(dst, x []float32) {
	for r := range dst {
		dst[r] = w.dotRow(r, x)
	}
}

// rmsNorm sets dst = x / sqrt(mean(x^2) + eps) * gain, elementwise in
// float32 with the sum of squares taken in element order.
func rmsNorm(dst, x []float32, gain *weights, eps float32) {
	var ss float32
	for _, v := range x {
		ss += float32(v * v)
	}
	mean := ss / float32(len(x))
	scale := 1 / sqrtf(mean+eps)
	for i, v := range x {
		dst[i] = float32(float32(v*scale) * gain.at(i))
	}
}

// ropeTable holds cos and sin of pos * theta_i for the positions seen so far,
// theta_i = base^(-2i/dim) for i < dim/2. Angles are float64 (Go's math.Pow
// and math.Sincos), rounded once to float32; rows are added on demand so a
// large context costs nothing until it is used.
type ropeTable struct {
	dim   int
	theta []float64
	cos   []float32 // [pos*dim/2 + i]
	sin   []float32
}

func newRopeTable(dim int, base float32) *ropeTable {
	r := &ropeTable{dim: dim, theta: make([]float64, dim/2)}
	for i := range r.theta {
		r.theta[i] = math.Pow(float64(base), -2*float64(i)/float64(dim))
	}
	return r
}

// ropeEntry is cos and sin of the angle pos*theta, rounded to float32.
func ropeEntry(pos int, theta float64) (c, s float32) {
	sn, cs := math.Sincos(float64(pos) * theta)
	return float32(cs), float32(sn)
}

// grow makes the table cover positions [0, n).
func (r *ropeTable) grow(n int) {
	for pos := len(r.cos) / len(r.theta); pos < n; pos++ {
		for _, th := range r.theta {
			c, s := ropeEntry(pos, th)
			r.cos = append(r.cos, c)
			r.sin = append(r.sin, s)
		}
	}
}

// rotate applies RoPE in llama's normal (non-NEOX) mode to one head v at
// position pos: each adjacent pair (v[2i], v[2i+1]) with 2i < dim turns by
// pos*theta_i; dimensions past dim are left alone. The table must cover pos.
func (r *ropeTable) rotate(v []float32, pos int) {
	half := len(r.theta)
	cs := r.cos[pos*half : (pos+1)*half]
	sn := r.sin[pos*half : (pos+1)*half]
	for i := range half {
		x0, x1 := v[2*i], v[2*i+1]
		v[2*i] = float32(x0*cs[i]) - float32(x1*sn[i])
		v[2*i+1] = float32(x0*sn[i]) + float32(x1*cs[i])
	}
}

// kvHeadFor maps query head h to the key/value head it shares in grouped
// attention: consecutive groups of heads/kvHeads query heads share one.
func kvHeadFor(h, heads, kvHeads int) int {
	return h / (heads / kvHeads)
}

// attendHead computes one head's attention output over the first n cached
// positions, which is the causal mask: a query at position p sees n = p+1
// positions and nothing after them. keys and values hold one row of stride
// per position; the head's slice starts at off. scores needs n entries.
func attendHead(out, q, keys, values []float32, stride, off, n int, scale float32, scores []float32) {
	hd := len(q)
	best := negInf
	for j := range n {
		k := keys[j*stride+off : j*stride+off+hd]
		var dot float32
		for d, qv := range q {
			dot += float32(qv * k[d])
		}
		s := float32(dot * scale)
		scores[j] = s
		if s > best {
			best = s
		}
	}
	var sum float32
	for j := range n {
		e := expf(scores[j] - best)
		scores[j] = e
		sum += e
	}
	inv := 1 / sum
	clear(out)
	for j := range n {
		p := float32(scores[j] * inv)
		v := values[j*stride+off : j*stride+off+hd]
		for d := range out {
			out[d] += float32(p * v[d])
		}
	}
}

// swiglu sets dst = silu(gate) * up, elementwise.
func swiglu(dst, gate, up []float32) {
	for i, g := range gate {
		dst[i] = float32(silu(g) * up[i])
	}
}

// layerWeights are one transformer block's tensors.
type layerWeights struct {
	attnNorm, attnQ, attnK, attnV, attnOutput weights
	ffnNorm, ffnGate, ffnUp, ffnDown          weights
}

// model is the forward pass: weights, hyperparameters and the RoPE table.
type model struct {
	hp         hparams
	layers     []layerWeights
	outputNorm weights
	output     weights
	rope       *ropeTable
}

// kvCache holds every layer's rotated keys and values, one row of kvDim per
// position.
type kvCache struct {
	keys, values [][]float32
	len          int
}

func newKVCache(hp hparams, positions int) *kvCache {
	c := &kvCache{keys: make([][]float32, hp.layers), values: make([][]float32, hp.layers)}
	for l := range c.keys {
		c.keys[l] = make([]float32, positions*hp.kvDim())
		c.values[l] = make([]float32, positions*hp.kvDim())
	}
	return c
}

// forward runs the rows of x (embeddings of consecutive tokens, which it
// overwrites with the residual stream) at positions c.len, c.len+1, ...
// through the model and appends their keys and values to c. Where logits[t]
// is not nil it receives the vocab logits of row t. Each row's arithmetic is
// the same whether it runs in a batch or alone, so a prefill of T tokens
// gives the bits of T single-token steps.
func (m *model) forward(c *kvCache, x [][]float32, logits [][]float32) {
	hp := m.hp
	pos0 := c.len
	m.rope.grow(pos0 + len(x))
	norm := make([]float32, hp.hidden)
	q := make([][]float32, len(x))
	for t := range q {
		q[t] = make([]float32, hp.qDim())
	}
	attn := make([]float32, hp.qDim())
	proj := make([]float32, hp.hidden)
	gate := make([]float32, hp.ffn)
	up := make([]float32, hp.ffn)
	scores := make([]float32, pos0+len(x))
	scale := 1 / sqrtf(float32(hp.headDim))
	kvDim := hp.kvDim()
	for l := range m.layers {
		lw := &m.layers[l]
		keys, values := c.keys[l], c.values[l]
		for t, row := range x {
			pos := pos0 + t
			rmsNorm(norm, row, &lw.attnNorm, hp.rmsEps)
			lw.attnQ.mulVec(q[t], norm)
			k := keys[pos*kvDim : (pos+1)*kvDim]
			lw.attnK.mulVec(k, norm)
			lw.attnV.mulVec(values[pos*kvDim:(pos+1)*kvDim], norm)
			for h := range hp.heads {
				m.rope.rotate(q[t][h*hp.headDim:(h+1)*hp.headDim], pos)
			}
			for h := range hp.kvHeads {
				m.rope.rotate(k[h*hp.headDim:(h+1)*hp.headDim], pos)
			}
		}
		for t, row := range x {
			for h := range hp.heads {
				off := kvHeadFor(h, hp.heads, hp.kvHeads) * hp.headDim
				attendHead(attn[h*hp.headDim:(h+1)*hp.headDim], q[t][h*hp.headDim:(h+1)*hp.headDim],
					keys, values, kvDim, off, pos0+t+1, scale, scores)
			}
			lw.attnOutput.mulVec(proj, attn)
			for i := range row {
				row[i] += proj[i]
			}
		}
		for _, row := range x {
			rmsNorm(norm, row, &lw.ffnNorm, hp.rmsEps)
			lw.ffnGate.mulVec(gate, norm)
			lw.ffnUp.mulVec(up, norm)
			swiglu(gate, gate, up)
			lw.ffnDown.mulVec(proj, gate)
			for i := range row {
				row[i] += proj[i]
			}
		}
	}
	c.len += len(x)
	for t, row := range x {
		if logits[t] == nil {
			continue
		}
		rmsNorm(norm, row, &m.outputNorm, hp.rmsEps)
		m.output.mulVec(logits[t], norm)
	}
}
