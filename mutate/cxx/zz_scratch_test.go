package cxx

import "testing"

func TestZZScratch(t *testing.T) {
	src := hostMarkers + `
#define GM_DEVI GM_DEV
#define GM_DEVII GM_DEVI
#define GM_WRAP(x) GM_DEVII x
namespace std { template <class T, int N> struct array { T v[N]; }; template <class A, class B> struct pair { A a; B b; }; }
template <typename T, int N = sizeof(std::array<T, 4>)> GM_DEV T nest_sizeof(T x) { return x * N; }
template <typename T, typename U = std::pair<T, std::array<T, 4>>> GM_DEV T nest_shift(T x) { return x + 1; }
template <typename T, int N = (3 > 2)> GM_DEV T nest_paren(T x) { return x - N; }
template <typename T, template <typename> class C = std::array> GM_DEV T nest_tt(T x) { return x; }
GM_DEVII int deep_macro(int a) { return a + 1; }
GM_WRAP(int) wrapped(int a) { return a + 2; }
template <typename T, int N = sizeof(std::array<T, 4>)> int host_nest(T x) { return x; }
GM_DEV int after(int a) { return a < 3 ? a : 3; }
`
	for _, env := range []Env{Emulation, NVCC, HIPCC} {
		srcs := parseOne(t, src, env)
		for _, f := range srcs[0].Funcs {
			t.Logf("%s: %s device=%v err=%v", env.Name, f.Name, f.Device, f.BodyErr)
		}
		ms, err := Mutants(srcs, nil)
		t.Logf("mutants %d err %v", len(ms), err)
	}
}
