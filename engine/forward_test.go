package engine

import (
	"encoding/binary"
	"math"
	"testing"

	"gathermut/gather"
	"gathermut/gguf"
)

// f32Weights encodes vals (rows x cols, row-major) as an F32 tensor.
func f32Weights(t *testing.T, rows, cols int, vals []float32) weights {
	t.Helper()
	b := make([]byte, 4*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	w, err := newWeights(gguf.TypeF32, rows, cols, b)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// halfWeights encodes vals as F16 or BF16; every value must be exact in the
// type (the tests pick small dyadic values), which this checks.
func halfWeights(t *testing.T, typ gguf.Type, rows, cols int, vals []float32) weights {
	t.Helper()
	b := make([]byte, 2*len(vals))
	for i, v := range vals {
		var h uint16
		if typ == gguf.TypeBF16 {
			h = uint16(math.Float32bits(v) >> 16)
		} else {
			h = exactHalf(t, v)
		}
		binary.LittleEndian.PutUint16(b[2*i:], h)
	}
	w, err := newWeights(typ, rows, cols, b)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vals {
		if got := w.at(i); got != v {
			t.Fatalf("%v cannot hold %v exactly (got %v)", typ, v, got)
		}
	}
	return w
}

// exactHalf finds the binary16 pattern of v by search (test-only, tiny).
func exactHalf(t *testing.T, v float32) uint16 {
	t.Helper()
	for h := 0; h < 1<<16; h++ {
		if f := gather.F16ToF32(uint16(h)); f == v && math.Signbit(float64(f)) == math.Signbit(float64(v)) {
			return uint16(h)
		}
	}
	t.Fatalf("%v is not a binary16 value", v)
	return 0
}

func ones(n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = 1
	}
	return v
}

func ulpDistance(a, b float32) int64 {
	ia, ib := int64(math.Float32bits(a)), int64(math.Float32bits(b))
	if (ia < 0x80000000) != (ib < 0x80000000) {
		return math.MaxInt64
	}
	if ia > ib {
		return ia - ib
	}
	return ib - ia
}

func TestExpf(t *testing.T) {
	// Over the whole finite range expf stays within one ulp of the float64
	// exponential rounded to float32 (subnormal results included).
	for x := float32(-103.9); x < 88.72; x += 0.0007 {
		want := float32(math.Exp(float64(x)))
		if d := ulpDistance(expf(x), want); d > 1 {
			t.Fatalf("expf(%v) = %v, want %v (%d ulps)", x, expf(x), want, d)
		}
	}
	special := []struct {
		x    float32
		want float32
	}{
		{0, 1},
		{88.73, float32(math.Inf(1))}, // overflows through the float64 scaling
		{100.5, float32(math.Inf(1))},
		{float32(math.Inf(1)), float32(math.Inf(1))},
		{-104, float32(math.Exp(-104))}, // subnormal 2^-150 region rounds to 2^-149 or 0
		{-120, 0},
		{float32(math.Inf(-1)), 0},
	}
	for _, tt := range special {
		if got := expf(tt.x); math.Float32bits(got) != math.Float32bits(tt.want) {
			t.Errorf("expf(%v) = %v, want %v", tt.x, got, tt.want)
		}
	}
	for _, x := range []float32{1, -1, 88.72, -87.3, 1e-7} {
		if d := ulpDistance(expf(x), float32(math.Exp(float64(x)))); d > 1 {
			t.Errorf("expf(%v) = %v, %d ulps from %v", x, expf(x), d, math.Exp(float64(x)))
		}
	}
	if got := expf(float32(math.NaN())); got == got {
		t.Errorf("expf(NaN) = %v, want NaN", got)
	}
}

// TestExpfBits pins expf's bits where they depend on its last coefficients:
// at each x the result is e^x correctly rounded, which a coefficient 1/n!
// off by one in n (1/719 or 1/721 for 1/720, 1/5039 or 1/5041 for 1/5040)
// misses by an ulp. A NaN argument comes back unchanged, signalling and
// negative ones included, rather than through the platform's NaN
// propagation.
func TestExpfBits(t *testing.T) {
	for _, tt := range []struct{ x, want uint32 }{
		{0xbd4526cd, 0x3f73f849}, // -0.0481327
		{0xbd436cef, 0x3f74129d}, // -0.0477113
		{0xbe001767, 0x3f61e627}, // -0.1250893
		{0xbe1afcd6, 0x3f5c0af9}, // -0.1513398
		{0x7f800001, 0x7f800001}, // signalling NaN
		{0xff800001, 0xff800001}, // negative signalling NaN
		{0xffc00123, 0xffc00123}, // negative quiet NaN with a payload
	} {
		x := math.Float32frombits(tt.x)
		if got := math.Float32bits(expf(x)); got != tt.want {
			t.Errorf("expf(%v = %#08x) = %#08x, want %#08x", x, tt.x, got, tt.want)
		}
		if want := math.Float32bits(float32(math.Exp(float64(x)))); x == x && want != tt.want {
			t.Errorf("x = %#08x: e^x rounds to %#08x, not the pinned %#08x", tt.x, want, tt.want)
		}
	}
}

func TestSqrtf(t *testing.T) {
	for _, tt := range []struct{ x, want float32 }{{16, 4}, {0.25, 0.5}, {2, float32(math.Sqrt2)}, {0, 0}} {
		if got := sqrtf(tt.x); got != tt.want {
			t.Errorf("sqrtf(%v) = %v, want %v", tt.x, got, tt.want)
		}
	}
}

func TestNewWeightsErrors(t *testing.T) {
	tests := []struct {
		typ  gguf.Type
		n    int
		want string
	}{
		{gguf.TypeQ8_0, 34, "weights of type Q8_0 cannot be multiplied (want F32, F16 or BF16)"},
		{gguf.TypeF32, 23, "F32 weights [2, 3] need 24 bytes, have 23"},
		{gguf.TypeF16, 13, "F16 weights [2, 3] need 12 bytes, have 13"},
		{gguf.TypeBF16, 0, "BF16 weights [2, 3] need 12 bytes, have 0"},
	}
	for _, tt := range tests {
		_, err := newWeights(tt.typ, 2, 3, make([]byte, tt.n))
		if err == nil || err.Error() != tt.want {
			t.Errorf("newWeights(%v, %d bytes) error = %v, want %q", tt.typ, tt.n, err, tt.want)
		}
	}
}

func TestWeightsMulVec(t *testing.T) {
	vals := []float32{1, -2, 0.5, 3, 0.25, -4}
	x := []float32{2, 1, -8}
	want := []float32{1*2 - 2*1 + 0.5*-8, 3*2 + 0.25*1 - 4*-8} // exact
	for _, typ := range []gguf.Type{gguf.TypeF32, gguf.TypeF16, gguf.TypeBF16} {
		var w weights
		if typ == gguf.TypeF32 {
			w = f32Weights(t, 2, 3, vals)
		} else {
			w = halfWeights(t, typ, 2, 3, vals)
		}
		got := make([]float32, 2)
		w.mulVec(got, x)
		for r := range want {
			if got[r] != want[r] {
				t.Errorf("%v: row %d = %v, want %v", typ, r, got[r], want[r])
			}
		}
	}
	// Summation runs in element order: 1 + 1e8 rounds to 1e8 in float32, so
	// the row sums to 0; any other order of these three terms gives 1.
	w := f32Weights(t, 1, 3, []float32{1, 1e8, -1e8})
	got := make([]float32, 1)
	w.mulVec(got, []float32{1, 1, 1})
	if got[0] != 0 {
		t.Errorf("element-order sum = %v, want 0", got[0])
	}
}

func TestRMSNorm(t *testing.T) {
	tests := []struct {
		name string
		x    []float32
		gain []float32
		eps  float32
		want []float32
	}{
		{"unit", []float32{1, 1, 1, 1}, ones(4), 0, []float32{1, 1, 1, 1}},
		{"gain", []float32{2, -2, 2, -2}, []float32{1, 0.5, 2, -1}, 0, []float32{1, -0.5, 2, 1}},
		// mean(x^2) = 12.5, + eps 3.5 = 16, scale 1/4
		{"eps", []float32{3, 4}, []float32{1, 2}, 3.5, []float32{0.75, 2}},
		{"zero", []float32{0, 0, 0, 0}, ones(4), 0.25, []float32{0, 0, 0, 0}},
		// mean 25/2 = 12.5: dividing by the width matters
		{"width", []float32{3, 4}, ones(2), 0, []float32{float32(float32(3) * (1 / float32(math.Sqrt(12.5)))), float32(float32(4) * (1 / float32(math.Sqrt(12.5))))}},
		// mean 14/3, divided once (llama.cpp's sum/ne00): 14*(1/3) is one ulp
		// above it in float32, and the outputs follow (rounding order)
		{"width 3", []float32{1, 2, 3}, ones(3), 0, rmsWant([]float32{1, 2, 3}, float32(14)/3)},
	}
	for _, tt := range tests {
		for _, typ := range []gguf.Type{gguf.TypeF32, gguf.TypeBF16, gguf.TypeF16} {
			var g weights
			if typ == gguf.TypeF32 {
				g = f32Weights(t, 1, len(tt.gain), tt.gain)
			} else {
				g = halfWeights(t, typ, 1, len(tt.gain), tt.gain)
			}
			got := make([]float32, len(tt.x))
			rmsNorm(got, tt.x, &g, tt.eps)
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(tt.want[i]) {
					t.Errorf("%s/%v: [%d] = %v, want %v", tt.name, typ, i, got[i], tt.want[i])
				}
			}
		}
	}
}

// rmsWant is x scaled by 1/sqrt(mean), each product rounded once.
func rmsWant(x []float32, mean float32) []float32 {
	scale := 1 / float32(math.Sqrt(float64(mean)))
	out := make([]float32, len(x))
	for i, v := range x {
		out[i] = float32(v * scale)
	}
	return out
}

// TestRoPETheta: theta_i = base^(-2i/dim) with the exponent one correctly
// rounded division (rounding order): at dim 10, -2*3*(1/10) is
// -0.6000000000000001, one ulp from -6/10, and so is the power.
func TestRoPETheta(t *testing.T) {
	tests := []struct {
		name string
		dim  int
		want []float64
	}{
		{"dim 4", 4, []float64{1, 0.01}},
		{"dim 10", 10, []float64{1, math.Pow(10000, -2.0/10), math.Pow(10000, -4.0/10), math.Pow(10000, -6.0/10), math.Pow(10000, -8.0/10)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRopeTable(tt.dim, 10000)
			if len(r.theta) != len(tt.want) {
				t.Fatalf("%d thetas, want %d", len(r.theta), len(tt.want))
			}
			for i, w := range tt.want {
				if math.Float64bits(r.theta[i]) != math.Float64bits(w) {
					t.Errorf("theta[%d] = %v, want %v", i, r.theta[i], w)
				}
			}
		})
	}
}

func TestRoPERotate(t *testing.T) {
	r := newRopeTable(4, 10000)
	if r.theta[0] != 1 || r.theta[1] != 0.01 {
		t.Fatalf("theta = %v, want [1 0.01]", r.theta)
	}
	r.grow(3)
	c1, s1 := float32(math.Cos(1)), float32(math.Sin(1))
	c2, s2 := float32(math.Cos(2)), float32(math.Sin(2))
	cs, ss := float32(math.Cos(0.02)), float32(math.Sin(0.02))
	tests := []struct {
		name string
		v    []float32 // a head of 6: dims 4 and 5 are past the rotated 4
		pos  int
		want []float32
	}{
		{"pos0 is identity", []float32{1, 2, 3, 4, 5, 6}, 0, []float32{1, 2, 3, 4, 5, 6}},
		// normal mode pairs (0,1) and (2,3); NEOX would pair (0,2) and (1,3)
		{"adjacent pairs", []float32{1, 0, 0, 0, 7, 8}, 1, []float32{c1, s1, 0, 0, 7, 8}},
		{"both elements", []float32{1, 2, 0, 3, 0, 0}, 2, []float32{
			float32(c2) - float32(2*s2), s2 + float32(2*c2),
			-float32(3 * ss), float32(3 * cs), 0, 0}},
	}
	for _, tt := range tests {
		v := append([]float32(nil), tt.v...)
		r.rotate(v, tt.pos)
		for i := range v {
			if math.Float32bits(v[i]) != math.Float32bits(tt.want[i]) {
				t.Errorf("%s: v[%d] = %v, want %v", tt.name, i, v[i], tt.want[i])
			}
		}
	}
	// grow is incremental and idempotent: a shorter request keeps the rows.
	r.grow(2)
	r.grow(5)
	if len(r.cos) != 5*2 || r.cos[2*4+1] != float32(math.Cos(0.04)) || r.sin[2*4] != float32(math.Sin(4)) {
		t.Errorf("after grow(5): %d entries, cos[4][1] = %v, sin[4][0] = %v", len(r.cos), r.cos[9], r.sin[8])
	}
}

// TestRoPETableRoundingIsStable backs the claim in doc.go that the tiny
// model's RoPE table has the same float32 bits on every platform: nudging
// each theta and each float64 cos/sin by a few float64 ulps (the most a
// different math library or a fused multiply-add can move them) never
// changes the float32 entry.
func TestRoPETableRoundingIsStable(t *testing.T) {
	r := newRopeTable(64, 1e6)
	r.grow(64)
	nudge := func(v float64, n int) float64 {
		for range n {
			v = math.Nextafter(v, math.Inf(1))
		}
		for range -n {
			v = math.Nextafter(v, math.Inf(-1))
		}
		return v
	}
	for pos := range 64 {
		for i, th := range r.theta {
			c, s := r.cos[pos*32+i], r.sin[pos*32+i]
			for _, n := range []int{-4, 4} {
				sn, cs := math.Sincos(float64(pos) * nudge(th, n))
				for _, m := range []int{-4, 0, 4} {
					if float32(nudge(cs, m)) != c || float32(nudge(sn, m)) != s {
						t.Fatalf("pos %d theta_%d: float32 rounding of cos/sin is not stable", pos, i)
					}
				}
			}
		}
	}
}

func TestKVHeadFor(t *testing.T) {
	tests := []struct {
		heads, kvHeads int
		want           []int
	}{
		{4, 1, []int{0, 0, 0, 0}},
		{4, 2, []int{0, 0, 1, 1}},
		{4, 4, []int{0, 1, 2, 3}},
		{6, 3, []int{0, 0, 1, 1, 2, 2}},
	}
	for _, tt := range tests {
		for h, want := range tt.want {
			if got := kvHeadFor(h, tt.heads, tt.kvHeads); got != want {
				t.Errorf("kvHeadFor(%d, %d, %d) = %d, want %d", h, tt.heads, tt.kvHeads, got, want)
			}
		}
	}
}

func TestAttendHead(t *testing.T) {
	nan := float32(math.NaN())
	// Two kv heads of width 2 per position (stride 4); the tests read head 1
	// (off 2). Position 2 is NaN: a query that sees 2 positions never reads it.
	keys := []float32{9, 9, 2, 7, 9, 9, 2, -3, nan, nan, nan, nan}
	values := []float32{9, 9, 2, 4, 9, 9, 6, 8, nan, nan, nan, nan}
	tests := []struct {
		name  string
		q     []float32
		n     int
		scale float32
		want  []float32
	}{
		// equal scores 2 and 2: weights 1/2, 1/2
		{"uniform", []float32{1, 0}, 2, 1, []float32{4, 6}},
		// huge equal scores only stay finite because the max is subtracted
		{"max subtracted", []float32{500, 0}, 2, 1, []float32{4, 6}},
		// one visible position: weight 1 whatever its score
		{"causal", []float32{1, 1}, 1, 1, []float32{2, 4}},
		// scores 2*7*40 and -3*40 apart by 400: the second weight underflows to 0
		{"dominant", []float32{0, 40}, 2, 1, []float32{2, 4}},
		// scale 0 makes the scores equal again
		{"scale", []float32{0, 40}, 2, 0, []float32{4, 6}},
	}
	for _, tt := range tests {
		out := make([]float32, 2)
		attendHead(out, tt.q, keys, values, 4, 2, tt.n, tt.scale, make([]float32, tt.n))
		for i := range out {
			if out[i] != tt.want[i] {
				t.Errorf("%s: out[%d] = %v, want %v", tt.name, i, out[i], tt.want[i])
			}
		}
	}
	// A non-trivial softmax against a float64 reference.
	q := []float32{0.5, -0.25}
	out := make([]float32, 2)
	attendHead(out, q, keys, values, 4, 2, 2, 0.5, make([]float32, 2))
	s0 := 0.5 * (0.5*2 - 0.25*7)
	s1 := 0.5 * (0.5*2 - 0.25*-3)
	p0 := 1 / (1 + math.Exp(s1-s0))
	want := []float64{p0*2 + (1-p0)*6, p0*4 + (1-p0)*8}
	for i := range out {
		if math.Abs(float64(out[i])-want[i]) > 1e-6 {
			t.Errorf("softmax: out[%d] = %v, want %v", i, out[i], want[i])
		}
	}
}

func TestSwiGLU(t *testing.T) {
	gate := []float32{0, 1, -1, 100, -200, 3}
	up := []float32{5, 2, 1, 0.5, 1, -1}
	dst := make([]float32, len(gate))
	swiglu(dst, gate, up)
	for i, g := range gate {
		want := float64(g) / (1 + math.Exp(-float64(g))) * float64(up[i])
		if math.Abs(float64(dst[i])-want) > 1e-6*math.Max(1, math.Abs(want)) {
			t.Errorf("swiglu(%v, %v) = %v, want %v", g, up[i], dst[i], want)
		}
	}
	if dst[3] != 50 || dst[0] != 0 {
		t.Errorf("swiglu saturation: got %v and %v, want 50 and 0", dst[3], dst[0])
	}
}

// tinyModel builds a random two-layer model small enough for a float64
// reference: hidden 16, 4 query heads in 2 groups sharing 2 kv heads of
// width 4, RoPE on the first 2 dims of each head, MLP 6, vocab 5.
func tinyModel(t *testing.T) *model {
	t.Helper()
	hp := hparams{context: 16, hidden: 16, layers: 2, ffn: 6, heads: 4, kvHeads: 2, headDim: 4,
		ropeDim: 2, vocab: 5, ropeBase: 10000, rmsEps: 1e-5}
	rng := splitMix64{state: 7}
	mat := func(rows, cols int) weights {
		v := make([]float32, rows*cols)
		for i := range v {
			v[i] = rng.weight() * 32 // [-0.5, 0.5)
		}
		return f32Weights(t, rows, cols, v)
	}
	gain := func(n int) weights {
		v := make([]float32, n)
		for i := range v {
			v[i] = 1 + rng.weight()*16
		}
		return f32Weights(t, 1, n, v)
	}
	m := &model{hp: hp, rope: newRopeTable(hp.ropeDim, hp.ropeBase)}
	for range hp.layers {
		m.layers = append(m.layers, layerWeights{
			attnNorm: gain(16), attnQ: mat(16, 16), attnK: mat(8, 16), attnV: mat(8, 16), attnOutput: mat(16, 16),
			ffnNorm: gain(16), ffnGate: mat(6, 16), ffnUp: mat(6, 16), ffnDown: mat(16, 6),
		})
	}
	m.outputNorm = gain(16)
	m.output = mat(5, 16)
	return m
}

func tinyEmbeddings(n int) [][]float32 {
	rng := splitMix64{state: 99}
	x := make([][]float32, n)
	for t := range x {
		x[t] = make([]float32, 16)
		for i := range x[t] {
			x[t][i] = rng.weight() * 64
		}
	}
	return x
}

func matF64(w *weights) [][]float64 {
	m := make([][]float64, w.rows)
	for r := range m {
		m[r] = make([]float64, w.cols)
		for c := range m[r] {
			m[r][c] = float64(w.at(r*w.cols + c))
		}
	}
	return m
}

func mulF64(w *weights, x []float64) []float64 {
	m := matF64(w)
	y := make([]float64, len(m))
	for r := range m {
		for c, v := range m[r] {
			y[r] += v * x[c]
		}
	}
	return y
}

func normF64(x []float64, g *weights, eps float64) []float64 {
	var ss float64
	for _, v := range x {
		ss += v * v
	}
	s := 1 / math.Sqrt(ss/float64(len(x))+eps)
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = v * s * float64(g.at(i))
	}
	return y
}

// referenceLogits is an independent float64 forward over the whole sequence
// with an explicit causal mask and no cache.
func referenceLogits(m *model, emb [][]float32) [][]float64 {
	hp := m.hp
	T := len(emb)
	x := make([][]float64, T)
	for t := range x {
		x[t] = make([]float64, hp.hidden)
		for i, v := range emb[t] {
			x[t][i] = float64(v)
		}
	}
	rope := func(v []float64, pos int) {
		for h := 0; h < len(v)/hp.headDim; h++ {
			for i := 0; i < hp.ropeDim/2; i++ {
				a := float64(pos) * math.Pow(float64(hp.ropeBase), -float64(2*i)/float64(hp.ropeDim))
				j := h*hp.headDim + 2*i
				x0, x1 := v[j], v[j+1]
				v[j], v[j+1] = x0*math.Cos(a)-x1*math.Sin(a), x0*math.Sin(a)+x1*math.Cos(a)
			}
		}
	}
	for l := range m.layers {
		lw := &m.layers[l]
		q, k, v := make([][]float64, T), make([][]float64, T), make([][]float64, T)
		for t := range x {
			h := normF64(x[t], &lw.attnNorm, float64(hp.rmsEps))
			q[t], k[t], v[t] = mulF64(&lw.attnQ, h), mulF64(&lw.attnK, h), mulF64(&lw.attnV, h)
			rope(q[t], t)
			rope(k[t], t)
		}
		for t := range x {
			attn := make([]float64, hp.qDim())
			for h := range hp.heads {
				kh := h * hp.kvHeads / hp.heads
				w := make([]float64, T)
				var sum float64
				for j := range T {
					if j > t {
						continue // causal mask
					}
					var dot float64
					for d := range hp.headDim {
						dot += q[t][h*hp.headDim+d] * k[j][kh*hp.headDim+d]
					}
					w[j] = math.Exp(dot / math.Sqrt(float64(hp.headDim)))
					sum += w[j]
				}
				for j := range T {
					for d := range hp.headDim {
						attn[h*hp.headDim+d] += w[j] / sum * v[j][kh*hp.headDim+d]
					}
				}
			}
			o := mulF64(&lw.attnOutput, attn)
			for i := range x[t] {
				x[t][i] += o[i]
			}
		}
		for t := range x {
			h := normF64(x[t], &lw.ffnNorm, float64(hp.rmsEps))
			g, u := mulF64(&lw.ffnGate, h), mulF64(&lw.ffnUp, h)
			for i := range g {
				g[i] = g[i] / (1 + math.Exp(-g[i])) * u[i]
			}
			d := mulF64(&lw.ffnDown, g)
			for i := range x[t] {
				x[t][i] += d[i]
			}
		}
	}
	out := make([][]float64, T)
	for t := range x {
		out[t] = mulF64(&m.output, normF64(x[t], &m.outputNorm, float64(hp.rmsEps)))
	}
	return out
}

func copyRows(x [][]float32) [][]float32 {
	y := make([][]float32, len(x))
	for i := range x {
		y[i] = append([]float32(nil), x[i]...)
	}
	return y
}

func logitRows(n, vocab int) [][]float32 {
	l := make([][]float32, n)
	for i := range l {
		l[i] = make([]float32, vocab)
	}
	return l
}

func TestForwardMatchesReference(t *testing.T) {
	m := tinyModel(t)
	emb := tinyEmbeddings(6)
	want := referenceLogits(m, emb)
	got := logitRows(6, 5)
	m.forward(newKVCache(m.hp, 6), copyRows(emb), got)
	for pos := range got {
		for v := range got[pos] {
			if d := math.Abs(float64(got[pos][v]) - want[pos][v]); d > 1e-5 {
				t.Errorf("pos %d logit %d = %v, reference %v", pos, v, got[pos][v], want[pos][v])
			}
		}
	}
}

// TestKVCacheIncremental: decoding one token at a time through the cache
// gives the bits of a from-scratch forward over the whole sequence, and a
// prefill of a prefix followed by single steps gives them too.
func TestKVCacheIncremental(t *testing.T) {
	m := tinyModel(t)
	emb := tinyEmbeddings(7)
	full := logitRows(7, 5)
	m.forward(newKVCache(m.hp, 7), copyRows(emb), full)
	for _, prefill := range []int{1, 3, 7} {
		c := newKVCache(m.hp, 7)
		got := logitRows(7, 5)
		m.forward(c, copyRows(emb[:prefill]), got[:prefill])
		for pos := prefill; pos < 7; pos++ {
			m.forward(c, copyRows(emb[pos:pos+1]), got[pos:pos+1])
		}
		if c.len != 7 {
			t.Errorf("prefill %d: cache holds %d positions, want 7", prefill, c.len)
		}
		for pos := range full {
			for v := range full[pos] {
				if math.Float32bits(got[pos][v]) != math.Float32bits(full[pos][v]) {
					t.Fatalf("prefill %d: pos %d logit %d = %v, full sequence %v", prefill, pos, v, got[pos][v], full[pos][v])
				}
			}
		}
	}
	// A row whose logits are not requested is still cached and advances.
	c := newKVCache(m.hp, 7)
	skip := logitRows(3, 5)
	skip[0], skip[1] = nil, nil
	m.forward(c, copyRows(emb[:3]), skip)
	for v := range skip[2] {
		if skip[2][v] != full[2][v] {
			t.Fatalf("logits of row 2 with rows 0-1 unrequested differ at %d", v)
		}
	}
}
