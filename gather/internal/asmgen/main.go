// Command asmgen generates package gather's AVX2 block decoders
// (decode_amd64.s and their Go declarations, decode_amd64_stubs.go) with
// avo. It is its own module so that package gather, and everything that
// imports it, does not depend on avo. Run it through go generate in
// package gather.
//
// Every decoder takes a whole run of blocks, func(packed []byte, out
// []float32), like the portable ones; it reads only the run's blocks
// (packed holds exactly len(out)/BlockElems of them) and writes only out.
// Each computes, per element, the float32 operations of the portable
// decoder in the same order, one rounding each (VCVTDQ2PS of an integer is
// exact, VMULPS/VADDPS/VSUBPS round once, there is no FMA), so the bits
// are the same; the tests compare both paths on every oracle case.
package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

func main() {
	cpuFeatures()
	constants()
	legacy()
	kquants()
	iquants()
	ternary()
	Generate()
}

// cpuFeatures emits hasAVX2F16C: CPUID and XGETBV say the CPU has AVX,
// AVX2 and F16C and the OS saves the YMM state.
func cpuFeatures() {
	TEXT("hasAVX2F16C", NOSPLIT, "func() bool")
	Doc("hasAVX2F16C reports whether the CPU has AVX, AVX2 and F16C and the OS saves the YMM registers.")
	ret := GP8()
	XORL(ret.As32(), ret.As32())
	// Leaf 0: the highest leaf must reach 7.
	XORL(EAX, EAX)
	XORL(ECX, ECX)
	CPUID()
	CMPL(EAX, U32(7))
	JB(LabelRef("no"))
	// Leaf 1, ECX: bit 27 OSXSAVE, 28 AVX, 29 F16C.
	MOVL(U32(1), EAX)
	XORL(ECX, ECX)
	CPUID()
	ANDL(U32(0x38000000), ECX)
	CMPL(ECX, U32(0x38000000))
	JNE(LabelRef("no"))
	// XCR0 bits 1 and 2: the OS saves the XMM and YMM state.
	XORL(ECX, ECX)
	XGETBV()
	ANDL(U32(6), EAX)
	CMPL(EAX, U32(6))
	JNE(LabelRef("no"))
	// Leaf 7, subleaf 0, EBX bit 5: AVX2.
	MOVL(U32(7), EAX)
	XORL(ECX, ECX)
	CPUID()
	BTL(U8(5), EBX)
	SETCS(ret)
	Label("no")
	Store(ret, ReturnIndex(0))
	RET()
}

// Constants in the read-only data section.
var (
	c0F      Mem // 32 bytes 0x0f
	c03      Mem // 32 bytes 0x03
	c01      Mem // 32 bytes 0x01
	c04      Mem // 32 bytes 0x04
	c08      Mem // 32 bytes 0x08
	c10      Mem // 32 bytes 0x10
	c20      Mem // 32 bytes 0x20
	bitSel   Mem // 1, 2, 4, ..., 128 repeated over 32 bytes
	qhSpread Mem // VPSHUFB pattern: byte j of each lane takes byte j/8 (lane 0) or 2+j/8 (lane 1)
	kvIQ4NL  Mem // kvalues_iq4nl, 16 int8
	kvMXFP4  Mem // kvalues_mxfp4, 16 int8
)

func constants() {
	c0F = splat("c0F", 0x0f)
	c03 = splat("c03", 0x03)
	c01 = splat("c01", 0x01)
	c04 = splat("c04", 0x04)
	c08 = splat("c08", 0x08)
	c10 = splat("c10", 0x10)
	c20 = splat("c20", 0x20)
	var sel, spread [32]byte
	for j := range 32 {
		sel[j] = 1 << (j % 8)
		spread[j] = byte(j / 8)
	}
	bitSel = bytesConst("bitSel", sel[:])
	qhSpread = bytesConst("qhSpread", spread[:])
	kvIQ4NL = bytesConst("kvIQ4NL", int8s(-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113))
	kvMXFP4 = bytesConst("kvMXFP4", int8s(0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12))
}

func int8s(v ...int) []byte {
	b := make([]byte, len(v))
	for i, x := range v {
		b[i] = byte(int8(x))
	}
	return b
}

func splat(name string, v byte) Mem {
	b := make([]byte, 32)
	for i := range b {
		b[i] = v
	}
	return bytesConst(name, b)
}

func bytesConst(name string, b []byte) Mem {
	m := GLOBL(name, RODATA|NOPTR)
	for i := 0; i < len(b); i += 8 {
		var w uint64
		for k := 7; k >= 0; k-- {
			w = w<<8 | uint64(b[i+k])
		}
		DATA(i, U64(w))
	}
	return m
}

// goVar is a package-level variable of package gather.
func goVar(name string) Mem { return NewDataAddr(Symbol{Name: "·" + name}, 0) }

// run emits a whole-run decoder: n = len(out) >> shift blocks of
// blockBytes bytes, each decoded by body into 4<<shift bytes of out. setup
// runs once before the loop (constants that stay in registers).
func run(name, doc string, shift, blockBytes int, setup func(), body func(src, dst GPVirtual)) {
	TEXT(name, NOSPLIT, "func(packed []byte, out []float32)")
	Doc(name+" "+doc, "It decodes len(out) elements of whole blocks from the front of packed.")
	src := GP64()
	dst := GP64()
	n := GP64()
	Load(Param("packed").Base(), src)
	Load(Param("out").Base(), dst)
	Load(Param("out").Len(), n)
	SHRQ(U8(shift), n)
	JZ(LabelRef("done"))
	if setup != nil {
		setup()
	}
	Label("block")
	body(src, dst)
	ADDQ(U32(blockBytes), src)
	ADDQ(U32(4<<shift), dst)
	DECQ(n)
	JNZ(LabelRef("block"))
	Label("done")
	VZEROUPPER()
	RET()
}

func at(r GPVirtual, off int) Mem { return Mem{Base: r, Disp: off} }

// f16Splat loads the binary16 at m and returns it widened to float32 in
// all eight lanes. VCVTPH2PS is exact; it sets the quiet bit of a
// signalling NaN, which the first arithmetic operation would set anyway.
func f16Splat(m Mem) VecVirtual {
	h := XMM()
	VPBROADCASTW(m, h)
	y := YMM()
	VCVTPH2PS(h, y)
	return y
}

// scaling is what is applied to the converted integers of a group:
// out = float(q)*mul, then +add or -sub when set.
type scaling struct {
	mul      Op
	add, sub Op
}

// emit8 converts the 8 bytes at src (an XMM's low 8 bytes or an m64),
// sign- or zero-extended, to float32, scales them and stores 32 bytes at
// dst.
func emit8(src Op, signed bool, s scaling, dst Mem) {
	v := YMM()
	if signed {
		VPMOVSXBD(src, v)
	} else {
		VPMOVZXBD(src, v)
	}
	VCVTDQ2PS(v, v)
	VMULPS(s.mul, v, v)
	if s.add != nil {
		VADDPS(s.add, v, v)
	}
	if s.sub != nil {
		VSUBPS(s.sub, v, v)
	}
	VMOVUPS(v, dst)
}

// emit16 is emit8 of the 16 bytes of an XMM into 64 bytes at dst.
func emit16(x Register, signed bool, s scaling, dst Mem) {
	emit8(x, signed, s, dst)
	t := XMM()
	VPSHUFD(U8(0x0e), x, t)
	emit8(t, signed, s, dst.Offset(32))
}

// emit32 is emit8 of the 32 bytes of a YMM into 128 bytes at dst.
func emit32(y VecVirtual, signed bool, s scaling, dst Mem) {
	emit16(y.AsX(), signed, s, dst)
	hi := XMM()
	VEXTRACTI128(U8(1), y, hi)
	emit16(hi, signed, s, dst.Offset(64))
}

// nibbles16 splits the 16 bytes at m into low and high nibbles.
func nibbles16(m Mem) (lo, hi VecVirtual) {
	x := XMM()
	VMOVDQU(m, x)
	lo, hi = XMM(), XMM()
	VPAND(c0F, x, lo)
	VPSRLW(U8(4), x, hi)
	VPAND(c0F, hi, hi)
	return lo, hi
}

// nibbles32 returns the 16 bytes at m as 32 nibbles: the low nibbles in
// the low lane, the high nibbles in the high lane (the split-halves order
// of the 32-element formats).
func nibbles32(m Mem) VecVirtual {
	t := YMM()
	VBROADCASTI128(m, t)
	s := YMM()
	VPSRLW(U8(4), t, s)
	VPBLENDD(U8(0xf0), s, t, t)
	VPAND(c0F, t, t)
	return t
}

// bitsTo32 returns 32 bytes whose byte j is 0xff when bit j of the
// little-endian u32 at m is set, else 0.
func bitsTo32(m Mem) VecVirtual {
	y := YMM()
	VPBROADCASTD(m, y)
	VPSHUFB(qhSpread, y, y)
	VPAND(bitSel, y, y)
	VPCMPEQB(bitSel, y, y)
	return y
}

func legacy() {
	run("decodeQ4_0AVX2", "decodes Q4_0 blocks: (nibble-8)·d.", 5, 18, nil, func(src, dst GPVirtual) {
		d := f16Splat(at(src, 0))
		lo, hi := nibbles16(at(src, 2))
		VPSUBB(c08.Offset(0), lo, lo)
		VPSUBB(c08, hi, hi)
		emit16(lo, true, scaling{mul: d}, at(dst, 0))
		emit16(hi, true, scaling{mul: d}, at(dst, 64))
	})
	run("decodeQ4_1AVX2", "decodes Q4_1 blocks: nibble·d + m.", 5, 20, nil, func(src, dst GPVirtual) {
		d := f16Splat(at(src, 0))
		m := f16Splat(at(src, 2))
		lo, hi := nibbles16(at(src, 4))
		emit16(lo, false, scaling{mul: d, add: m}, at(dst, 0))
		emit16(hi, false, scaling{mul: d, add: m}, at(dst, 64))
	})
	run("decodeQ5_0AVX2", "decodes Q5_0 blocks: (nibble | bit<<4) - 16, times d.", 5, 22, nil, func(src, dst GPVirtual) {
		d := f16Splat(at(src, 0))
		q := nibbles32(at(src, 6))
		h := bitsTo32(at(src, 2))
		VPAND(c10, h, h)
		VPOR(h, q, q)
		VPSUBB(c10, q, q)
		emit32(q, true, scaling{mul: d}, at(dst, 0))
	})
	run("decodeQ5_1AVX2", "decodes Q5_1 blocks: (nibble | bit<<4)·d + m.", 5, 24, nil, func(src, dst GPVirtual) {
		d := f16Splat(at(src, 0))
		m := f16Splat(at(src, 2))
		q := nibbles32(at(src, 8))
		h := bitsTo32(at(src, 4))
		VPAND(c10, h, h)
		VPOR(h, q, q)
		emit32(q, false, scaling{mul: d, add: m}, at(dst, 0))
	})
	run("decodeQ8_0AVX2", "decodes Q8_0 blocks: qs·d.", 5, 34, nil, func(src, dst GPVirtual) {
		d := f16Splat(at(src, 0))
		for i := range 4 {
			emit8(at(src, 2+8*i), true, scaling{mul: d}, at(dst, 32*i))
		}
	})
	run("decodeIQ4_NLAVX2", "decodes IQ4_NL blocks: d·kvalues[nibble].", 5, 18, nil, func(src, dst GPVirtual) {
		d := f16Splat(at(src, 0))
		lo, hi := nibbles16(at(src, 2))
		kv := XMM()
		VMOVDQU(kvIQ4NL, kv)
		VPSHUFB(lo, kv, lo)
		VPSHUFB(hi, kv, hi)
		emit16(lo, true, scaling{mul: d}, at(dst, 0))
		emit16(hi, true, scaling{mul: d}, at(dst, 64))
	})
	var scales GPVirtual
	run("decodeMXFP4AVX2", "decodes MXFP4 blocks: kvalues[nibble]·2^(e-128).", 5, 17, func() {
		scales = GP64()
		LEAQ(goVar("e8m0HalfTable"), scales)
	}, func(src, dst GPVirtual) {
		e := GP64()
		MOVBQZX(at(src, 0), e)
		s := YMM()
		VBROADCASTSS(Mem{Base: scales, Index: e, Scale: 4}, s)
		lo, hi := nibbles16(at(src, 1))
		kv := XMM()
		VMOVDQU(kvMXFP4, kv)
		VPSHUFB(lo, kv, lo)
		VPSHUFB(hi, kv, hi)
		emit16(lo, true, scaling{mul: s}, at(dst, 0))
		emit16(hi, true, scaling{mul: s}, at(dst, 64))
	})
}

func kquants() {
	run("decodeQ8_KAVX2", "decodes Q8_K blocks: d·qs with an f32 d.", 8, 292, nil, func(src, dst GPVirtual) {
		d := YMM()
		VBROADCASTSS(at(src, 0), d)
		for i := range 32 {
			emit8(at(src, 4+8*i), true, scaling{mul: d}, at(dst, 32*i))
		}
	})
}

func iquants() {}

func ternary() {
	run("decodeTQ2_0AVX2", "decodes TQ2_0 blocks: (code-1)·d.", 8, 66, nil, func(src, dst GPVirtual) {
		d := f16Splat(at(src, 64))
		for c := range 2 {
			q := YMM()
			VMOVDQU(at(src, 32*c), q)
			for l := range 4 {
				v := YMM()
				VPSRLW(U8(2*l), q, v)
				VPAND(c03, v, v)
				VPSUBB(c01, v, v)
				emit32(v, true, scaling{mul: d}, at(dst, 4*(128*c+32*l)))
			}
		}
	})
}

var _ = fmt.Sprint
