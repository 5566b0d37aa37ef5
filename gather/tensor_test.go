package gather

import (
	"math"
	"testing"

	"gathermut/gguf"
)

func TestTensorBytes(t *testing.T) {
	for _, c := range []struct {
		t     gguf.Type
		shape []int64
		want  int64
		err   string
	}{
		{gguf.TypeF32, []int64{3, 5}, 60, ""},
		{gguf.TypeF16, []int64{3, 5}, 30, ""},
		{gguf.TypeBF16, []int64{7}, 14, ""},
		{gguf.TypeI32, []int64{4}, 16, ""},
		{gguf.TypeI64, []int64{4}, 32, ""},
		{gguf.TypeF32, nil, 4, ""},
		{gguf.TypeF32, []int64{2, 3, 4}, 96, ""},
		{gguf.TypeQ8_0, []int64{4, 64}, 4 * 2 * 34, ""},
		{gguf.TypeQ4_K, []int64{3, 512}, 3 * 2 * 144, ""},
		{gguf.TypeMXFP4, []int64{2, 3, 32}, 6 * 17, ""},
		{gguf.TypeIQ1_XXXS, []int64{256}, 38, ""},
		{gguf.TypeQ4_K, []int64{0, 256}, 0, ""},
		{gguf.TypeQ4_K, []int64{5, 0}, 0, ""},
		{gguf.TypeF32, []int64{0, 1 << 62}, 0, ""},
		{gguf.TypeF32, []int64{1 << 62, 0}, 0, ""},
		{gguf.TypeF32, []int64{1 << 61}, 0, "gather: F32 tensor [2305843009213693952]: byte size overflows int64"},
		{gguf.TypeI8, []int64{math.MaxInt64}, math.MaxInt64, ""},
		{gguf.TypeF16, []int64{1 << 31, 1 << 31}, 0, "gather: F16 tensor [2147483648 2147483648]: byte size overflows int64"},
		{gguf.TypeQ8_0, []int64{1 << 58, 64}, 0, "gather: Q8_0 tensor [288230376151711744 64]: byte size overflows int64"},
		{gguf.TypeQ4_K, []int64{3, 100}, 0, "gather: Q4_K tensor [3 100]: gguf: Q4_K row of 100 elements is not whole blocks of 256"},
		{gguf.TypeQ4_K, nil, 0, "gather: Q4_K tensor has no dimensions: a packed tensor needs a row width"},
		{gguf.TypeF32, []int64{3, -1}, 0, "gather: F32 tensor [3 -1]: negative dimension"},
		{gguf.TypeQ8_0, []int64{-1, 0}, 0, "gather: Q8_0 tensor [-1 0]: negative dimension"},
		{gguf.Type(99), []int64{3}, 0, "gather: tensor [3]: unknown ggml type id 99"},
	} {
		got, err := (&Tensor{Type: c.t, Shape: c.shape}).Bytes()
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if got != c.want || msg != c.err {
			t.Errorf("%v %v: Bytes() = %d, %q; want %d, %q", c.t, c.shape, got, msg, c.want, c.err)
		}
	}
}

func TestNewHostTensor(t *testing.T) {
	shape := []int64{2, 32}
	data := make([]byte, 68)
	x, err := NewHostTensor(gguf.TypeQ8_0, shape, data)
	if err != nil {
		t.Fatal(err)
	}
	if x.Type != gguf.TypeQ8_0 || x.Device != Host || x.Strides != nil || len(x.Data) != 68 || &x.Data[0] != &data[0] || x.Rank() != 2 {
		t.Fatalf("tensor %+v", x)
	}
	shape[0] = 5
	if x.Shape[0] != 2 {
		t.Fatal("the shape was not copied")
	}
	for _, c := range []struct {
		t     gguf.Type
		shape []int64
		n     int
		want  string
	}{
		{gguf.TypeQ8_0, []int64{2, 32}, 67, "gather: Q8_0 tensor [2 32]: data holds 67 bytes, the tensor takes 68"},
		{gguf.TypeQ8_0, []int64{2, 32}, 69, "gather: Q8_0 tensor [2 32]: data holds 69 bytes, the tensor takes 68"},
		{gguf.TypeQ8_0, []int64{2, 31}, 68, "gather: Q8_0 tensor [2 31]: gguf: Q8_0 row of 31 elements is not whole blocks of 32"},
		{gguf.TypeF32, []int64{-2}, 0, "gather: F32 tensor [-2]: negative dimension"},
	} {
		x, err := NewHostTensor(c.t, c.shape, make([]byte, c.n))
		if x != nil || err == nil || err.Error() != c.want {
			t.Errorf("NewHostTensor(%v, %v, %d bytes) = %v, %v; want %s", c.t, c.shape, c.n, x, err, c.want)
		}
	}
	if x, err := NewHostTensor(gguf.TypeF32, []int64{0, 4}, nil); err != nil || x.Data != nil {
		t.Fatalf("empty tensor: %v, %v", x, err)
	}
}

func TestContiguous(t *testing.T) {
	for _, c := range []struct {
		shape, strides []int64
		want           bool
	}{
		{[]int64{3, 4}, nil, true},
		{[]int64{3, 4}, []int64{4, 1}, true},
		{[]int64{3, 4}, []int64{8, 1}, false},
		{[]int64{3, 4}, []int64{4, 2}, false},
		{[]int64{3, 4}, []int64{1, 3}, false},
		{[]int64{3, 4}, []int64{1}, false},
		{[]int64{3, 4}, []int64{}, false},
		{[]int64{3, 4}, []int64{4, 1, 1}, false},
		{[]int64{1, 4}, []int64{99, 1}, true}, // size-1 dim: any stride
		{[]int64{3, 1}, []int64{1, -7}, true},
		{[]int64{1, 1}, []int64{0, 0}, true},
		{[]int64{2, 1, 4}, []int64{4, 0, 1}, true},
		{[]int64{2, 1, 4}, []int64{8, 4, 1}, false},
		{[]int64{2, 3, 4}, []int64{12, 4, 1}, true},
		{[]int64{2, 3, 4}, []int64{12, 3, 1}, false},
		{[]int64{0, 4}, []int64{7, 7}, true}, // no elements
		{[]int64{4, 0}, []int64{1, 1}, true},
		{[]int64{7}, []int64{1}, true},
		{[]int64{7}, []int64{2}, false},
		{nil, []int64{}, true},
	} {
		x := &Tensor{Shape: c.shape, Strides: c.strides}
		if got := x.Contiguous(); got != c.want {
			t.Errorf("shape %v strides %v: Contiguous() = %v, want %v", c.shape, c.strides, got, c.want)
		}
	}
}

func TestDeviceString(t *testing.T) {
	for d, want := range map[Device]string{Host: "cpu:0", {Kind: GPU, Ordinal: 3}: "gpu:3", {}: ":0"} {
		if got := d.String(); got != want {
			t.Errorf("%#v.String() = %q, want %q", d, got, want)
		}
	}
	if Host != (Device{Kind: CPU, Ordinal: 0}) || CPU != "cpu" || GPU != "gpu" {
		t.Fatal("Host, CPU or GPU changed")
	}
	if OpEmbeddingFloat != "EmbeddingFloat" || OpEmbeddingQuant != "EmbeddingQuant" {
		t.Fatal("op names changed")
	}
}
