// Command asmgen generates package gather's AVX2 block decoders
// (decode_amd64.s and their Go declarations, stubs_amd64.go) with
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
	spill, spillNext = AllocLocal(128), 0
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

// scaleStore8 converts the 8 dwords of v (integers) to float32 in place,
// scales them and stores 32 bytes at dst.
func scaleStore8(v VecVirtual, s scaling, dst Mem) {
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

// emit32r is emit32 of unsigned bytes with the bytes widened in registers
// (VPMOVZXBD of each quarter, reached by VEXTRACTI128 and VPSHUFD) instead
// of through a stack slot: shuffle micro-ops instead of a store.
func emit32r(y VecVirtual, s scaling, dst Mem) {
	_, hiLane := lanes(y)
	for i, x := range []Register{y.AsX(), hiLane} {
		a := YMM()
		VPMOVZXBD(x, a)
		t := XMM()
		VPSHUFD(U8(0x0e), x, t)
		b := YMM()
		VPMOVZXBD(t, b)
		scaleStore8(a, s, dst.Offset(64*i))
		scaleStore8(b, s, dst.Offset(64*i+32))
	}
}

// spill is a 128-byte stack buffer of the function being generated, used
// in 32-byte slots in turn: a vector of bytes is stored there and widened
// 8 bytes at a time by VPMOVZXBD/VPMOVSXBD from memory, which costs fewer
// shuffle micro-ops than extracting the bytes in registers.
var (
	spill     Mem
	spillNext int
)

func spillSlot() Mem {
	m := spill.Offset(32 * spillNext)
	spillNext = (spillNext + 1) % 4
	return m
}

// emit16 is emit8 of the 16 bytes of an XMM into 64 bytes at dst.
func emit16(x Register, signed bool, s scaling, dst Mem) {
	m := spillSlot()
	VMOVDQU(x, m)
	emit8(m, signed, s, dst)
	emit8(m.Offset(8), signed, s, dst.Offset(32))
}

// emit32 is emit8 of the 32 bytes of a YMM into 128 bytes at dst.
func emit32(y VecVirtual, signed bool, s scaling, dst Mem) {
	emit32s(y, signed, func(int) scaling { return s }, dst)
}

// emit32s is emit32 with the scaling of each 8 elements from sc(i),
// i = 0..3.
func emit32s(y VecVirtual, signed bool, sc func(i int) scaling, dst Mem) {
	m := spillSlot()
	VMOVDQU(y, m)
	for i := range 4 {
		emit8(m.Offset(8*i), signed, sc(i), dst.Offset(32*i))
	}
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

// Constants for the K- and I-quants, set by moreConstants.
var (
	c30      Mem // 32 bytes 0x30
	d32      Mem // 8 dwords 32
	f05      Mem // float32 0.5
	f025     Mem // float32 0.25
	signMask Mem // 256 entries of 8 dwords: lane j is 0x80000000 when bit j of the index is set
	pow3W    Mem // TQ1_0, 16-bit lanes: 5 rows of 16 words 3^n·256 (n = 0..4), then one row whose dword j holds 3^(j/4)·256 and 3^(2+j/4)·256
	c03W     Mem // 16 words 3
	tq1Codes Mem // 8 dwords -1, 0, 1, 0, 0, 0, 0, 0
	tq2Codes Mem // 8 dwords -1, 0, 1, 2, -1, 0, 1, 2
)

func moreConstants() {
	c30 = splat("c30", 0x30)
	var dw []byte
	for range 8 {
		dw = append(dw, 32, 0, 0, 0)
	}
	d32 = bytesConst("d32", dw)
	f05 = bytesConst("f05", []byte{0, 0, 0, 0x3f, 0, 0, 0, 0})
	f025 = bytesConst("f025", []byte{0, 0, 0x80, 0x3e, 0, 0, 0, 0})
	var masks []byte
	for i := range 256 {
		for j := range 8 {
			if i>>j&1 != 0 {
				masks = append(masks, 0, 0, 0, 0x80)
			} else {
				masks = append(masks, 0, 0, 0, 0)
			}
		}
	}
	signMask = bytesConst("signMask", masks)
	var p3 []byte
	dword := func(v uint32) {
		p3 = append(p3, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
	}
	pow3 := []uint32{1, 3, 9, 27, 81}
	for n := range 5 {
		for range 8 {
			dword(pow3[n]<<8 | pow3[n]<<24)
		}
	}
	for j := range 8 {
		dword(pow3[j/4]<<8 | pow3[2+j/4]<<24)
	}
	pow3W = bytesConst("pow3W", p3)
	p3 = nil
	for range 8 {
		dword(3 | 3<<16)
	}
	c03W = bytesConst("c03W", p3)
	p3 = nil
	for _, v := range []int32{-1, 0, 1, 0, 0, 0, 0, 0} {
		dword(uint32(v))
	}
	tq1Codes = bytesConst("tq1Codes", p3)
	p3 = nil
	for _, v := range []int32{-1, 0, 1, 2, -1, 0, 1, 2} {
		dword(uint32(v))
	}
	tq2Codes = bytesConst("tq2Codes", p3)
}

// bitTo moves bit k of every byte of y to bit `to` (other bits cleared),
// with the mask constant m (the byte 1<<to splatted).
func bitTo(y VecVirtual, k, to int, m Mem) VecVirtual {
	r := YMM()
	switch {
	case k > to:
		VPSRLW(U8(k-to), y, r)
		VPAND(m, r, r)
	case k < to:
		VPSLLW(U8(to-k), y, r)
		VPAND(m, r, r)
	default:
		VPAND(m, y, r)
	}
	return r
}

// lanes returns the low and high 16 bytes of y as XMMs.
func lanes(y VecVirtual) (lo, hi Register) {
	x := XMM()
	VEXTRACTI128(U8(1), y, x)
	return y.AsX(), x
}

// splatF32 broadcasts the float32 at m to eight lanes.
func splatF32(m Mem) VecVirtual {
	y := YMM()
	VBROADCASTSS(m, y)
	return y
}

// scaleVec8 converts the 8 bytes at m (unsigned, minus sub when sub is
// set) to float32 and multiplies them by the scalar d (lane 0 of a YMM
// splat), storing 8 floats at dst: the per-sub-block scales d·sc.
func scaleVec8(m Op, signed bool, sub *Mem, d VecVirtual, dst Mem) {
	v := YMM()
	if signed {
		VPMOVSXBD(m, v)
	} else {
		VPMOVZXBD(m, v)
	}
	if sub != nil {
		VPSUBD(*sub, v, v)
	}
	VCVTDQ2PS(v, v)
	VMULPS(d, v, v)
	VMOVUPS(v, dst)
}

func kquants() {
	moreConstants()

	// Q4_K and Q5_K share the unpacking of the 12 scale bytes at src+4
	// into 8 six-bit scales and 8 six-bit mins (ggml's utmp steps).
	// unpackK4 returns the 8 scales and the 8 mins in the low 8 bytes of
	// two XMMs, assembled in 64-bit registers (no narrow stores reloaded
	// wide, which would stall store forwarding).
	unpackK4 := func(src GPVirtual) (sc, mins VecVirtual) {
		u0, u1, u2 := GP64(), GP64(), GP64()
		MOVL(at(src, 4), u0.As32())
		MOVL(at(src, 8), u1.As32())
		MOVL(at(src, 12), u2.As32())
		t, v := GP64(), GP64()
		// mins 4-7: ((u2 >> 4) & 0x0f0f0f0f) | (((u1 >> 6) & 0x03030303) << 4)
		MOVL(u2.As32(), t.As32())
		SHRL(U8(4), t.As32())
		ANDL(U32(0x0f0f0f0f), t.As32())
		MOVL(u1.As32(), v.As32())
		SHRL(U8(6), v.As32())
		ANDL(U32(0x03030303), v.As32())
		SHLL(U8(4), v.As32())
		ORL(v.As32(), t.As32())
		SHLQ(U8(32), t)
		// mins 0-3: u1 & 0x3f3f3f3f
		ANDL(U32(0x3f3f3f3f), u1.As32())
		ORQ(u1, t)
		mins = XMM()
		VMOVQ(t, mins)
		// scales 4-7: (u2 & 0x0f0f0f0f) | (((u0 >> 6) & 0x03030303) << 4)
		ANDL(U32(0x0f0f0f0f), u2.As32())
		MOVL(u0.As32(), v.As32())
		SHRL(U8(6), v.As32())
		ANDL(U32(0x03030303), v.As32())
		SHLL(U8(4), v.As32())
		ORL(v.As32(), u2.As32())
		SHLQ(U8(32), u2)
		// scales 0-3: u0 & 0x3f3f3f3f
		ANDL(U32(0x3f3f3f3f), u0.As32())
		ORQ(u0, u2)
		sc = XMM()
		VMOVQ(u2, sc)
		return sc, mins
	}

	var frame Mem
	// Q4_K: each 8 bytes of a chunk are widened to dwords once; the low
	// nibbles are an AND, the high ones a shift (the dwords hold one byte),
	// so no byte vector is stored and reloaded.
	run("decodeQ4_KAVX2", "decodes Q4_K blocks: (d·sc)·nibble - dmin·m per 32-element group.", 8, 144, func() {
		frame = AllocLocal(80)
	}, func(src, dst GPVirtual) {
		d := f16Splat(at(src, 0))
		dmin := f16Splat(at(src, 2))
		sc, mins := unpackK4(src)
		scaleVec8(sc, false, nil, d, frame.Offset(0))
		scaleVec8(mins, false, nil, dmin, frame.Offset(32))
		for c := range 4 {
			var s [2]scaling
			for k := range s {
				s[k] = scaling{mul: splatF32(frame.Offset(4 * (2*c + k))), sub: splatF32(frame.Offset(32 + 4*(2*c+k)))}
			}
			for i := range 4 {
				x := YMM()
				VPMOVZXBD(at(src, 16+32*c+8*i), x)
				lo, hi := YMM(), YMM()
				VPAND(c0F, x, lo)
				VPSRLD(U8(4), x, hi)
				scaleStore8(lo, s[0], at(dst, 4*(64*c+8*i)))
				scaleStore8(hi, s[1], at(dst, 4*(64*c+32+8*i)))
			}
		}
	})
	// Q5_K: the 5-bit values of a group are assembled 32 bytes at a time
	// and widened to dwords in registers (emit32r).
	run("decodeQ5_KAVX2", "decodes Q5_K blocks: (d·sc)·(nibble + 16·bit) - dmin·m per 32-element group.", 8, 176, func() {
		frame = AllocLocal(80)
	}, func(src, dst GPVirtual) {
		d := f16Splat(at(src, 0))
		dmin := f16Splat(at(src, 2))
		sc, mins := unpackK4(src)
		scaleVec8(sc, false, nil, d, frame.Offset(0))
		scaleVec8(mins, false, nil, dmin, frame.Offset(32))
		qh := YMM()
		VMOVDQU(at(src, 16), qh)
		for c := range 4 {
			q := YMM()
			VMOVDQU(at(src, 48+32*c), q)
			lo, hi := YMM(), YMM()
			VPAND(c0F, q, lo)
			VPSRLW(U8(4), q, hi)
			VPAND(c0F, hi, hi)
			for k, v := range []VecVirtual{lo, hi} {
				g := 2*c + k
				VPOR(bitTo(qh, g, 4, c10), v, v)
				s := scaling{mul: splatF32(frame.Offset(4 * g)), sub: splatF32(frame.Offset(32 + 4*g))}
				emit32r(v, s, at(dst, 4*(64*c+32*k)))
			}
		}
	})
	run("decodeQ6_KAVX2", "decodes Q6_K blocks: (d·sc)·(6-bit q - 32) per 16 elements.", 8, 210, func() {
		frame = AllocLocal(64)
	}, func(src, dst GPVirtual) {
		d := f16Splat(at(src, 208))
		scaleVec8(at(src, 192), true, nil, d, frame.Offset(0))
		scaleVec8(at(src, 200), true, nil, d, frame.Offset(32))
		for h := range 2 {
			a, b, qh := YMM(), YMM(), YMM()
			VMOVDQU(at(src, 64*h), a)
			VMOVDQU(at(src, 64*h+32), b)
			VMOVDQU(at(src, 128+32*h), qh)
			for k := range 4 {
				low := YMM()
				src4 := a
				if k%2 == 1 {
					src4 = b
				}
				if k < 2 {
					VPAND(c0F, src4, low)
				} else {
					VPSRLW(U8(4), src4, low)
					VPAND(c0F, low, low)
				}
				// high 2 bits (qh >> 2k) & 3 go to bits 4-5.
				high := YMM()
				switch {
				case 2*k < 4:
					VPSLLW(U8(4-2*k), qh, high)
				case 2*k > 4:
					VPSRLW(U8(2*k-4), qh, high)
				default:
					VMOVDQU(qh, high)
				}
				VPAND(c30, high, high)
				VPOR(high, low, low)
				VPSUBB(c20, low, low)
				x0, x1 := lanes(low)
				for half, x := range []Register{x0, x1} {
					dl := splatF32(frame.Offset(4 * (8*h + 2*k + half)))
					emit16(x, true, scaling{mul: dl}, at(dst, 4*(128*h+32*k+16*half)))
				}
			}
		}
	})
	run("decodeQ3_KAVX2", "decodes Q3_K blocks: (d·(sc-32))·(2-bit q - 4·!hbit) per 16 elements.", 8, 110, func() {
		frame = AllocLocal(80)
	}, func(src, dst GPVirtual) {
		d := f16Splat(at(src, 108))
		// The 16 six-bit scales (ggml's aux steps), in two 64-bit halves.
		a0, a1, tmp := GP64(), GP64(), GP64()
		MOVL(at(src, 96), a0.As32())
		MOVL(at(src, 100), a1.As32())
		MOVL(at(src, 104), tmp.As32())
		var aux [4]GPVirtual
		for k, a := range []GPVirtual{a0, a1, a0, a1} {
			r, v := GP64(), GP64()
			MOVL(a.As32(), r.As32())
			if k >= 2 {
				SHRL(U8(4), r.As32())
			}
			ANDL(U32(0x0f0f0f0f), r.As32())
			MOVL(tmp.As32(), v.As32())
			if k > 0 {
				SHRL(U8(2*k), v.As32())
			}
			ANDL(U32(0x03030303), v.As32())
			SHLL(U8(4), v.As32())
			ORL(v.As32(), r.As32())
			aux[k] = r
		}
		for half := range 2 {
			SHLQ(U8(32), aux[2*half+1])
			ORQ(aux[2*half], aux[2*half+1])
			x := XMM()
			VMOVQ(aux[2*half+1], x)
			scaleVec8(x, false, &d32, d, frame.Offset(32*half))
		}
		hm := YMM()
		VMOVDQU(at(src, 0), hm)
		for h := range 2 {
			qs := YMM()
			VMOVDQU(at(src, 32+32*h), qs)
			for p := range 4 {
				low := YMM()
				if p > 0 {
					VPSRLW(U8(2*p), qs, low)
					VPAND(c03, low, low)
				} else {
					VPAND(c03, qs, low)
				}
				VPOR(bitTo(hm, 4*h+p, 2, c04), low, low)
				VPSUBB(c04, low, low)
				x0, x1 := lanes(low)
				for half, x := range []Register{x0, x1} {
					dl := splatF32(frame.Offset(4 * (8*h + 2*p + half)))
					emit16(x, true, scaling{mul: dl}, at(dst, 4*(128*h+32*p+16*half)))
				}
			}
		}
	})
	run("decodeQ2_KAVX2", "decodes Q2_K blocks: (d·sc)·q - dmin·m per 16 elements.", 8, 84, func() {
		frame = AllocLocal(128)
	}, func(src, dst GPVirtual) {
		d := f16Splat(at(src, 80))
		dmin := f16Splat(at(src, 82))
		sc := XMM()
		VMOVDQU(at(src, 0), sc)
		lo, hi := XMM(), XMM()
		VPAND(c0F, sc, lo)
		VPSRLW(U8(4), sc, hi)
		VPAND(c0F, hi, hi)
		for i, x := range []VecVirtual{lo, hi} {
			f := []VecVirtual{d, dmin}[i]
			for part := range 2 {
				v := YMM()
				if part == 0 {
					VPMOVZXBD(x, v)
				} else {
					t := XMM()
					VPSHUFD(U8(0x0e), x, t)
					VPMOVZXBD(t, v)
				}
				VCVTDQ2PS(v, v)
				VMULPS(f, v, v)
				VMOVUPS(v, frame.Offset(64*i+32*part))
			}
		}
		for h := range 2 {
			qs := YMM()
			VMOVDQU(at(src, 16+32*h), qs)
			for p := range 4 {
				q := YMM()
				if p > 0 {
					VPSRLW(U8(2*p), qs, q)
					VPAND(c03, q, q)
				} else {
					VPAND(c03, qs, q)
				}
				x0, x1 := lanes(q)
				for half, x := range []Register{x0, x1} {
					k := 8*h + 2*p + half
					dl := splatF32(frame.Offset(4 * k))
					ml := splatF32(frame.Offset(64 + 4*k))
					emit16(x, false, scaling{mul: dl, sub: ml}, at(dst, 4*(128*h+32*p+16*half)))
				}
			}
		}
	})
	run("decodeQ8_KAVX2", "decodes Q8_K blocks: d·qs with an f32 d.", 8, 292, nil, func(src, dst GPVirtual) {
		d := YMM()
		VBROADCASTSS(at(src, 0), d)
		for i := range 32 {
			emit8(at(src, 4+8*i), true, scaling{mul: d}, at(dst, 32*i))
		}
	})
}

// gridScale computes float32(d·(0.5+s))·mul for the integer s in the
// 32-bit register s, where d is lane 0 of a splat, and returns it splat.
func gridScale(d VecVirtual, s GPVirtual, mul Mem) VecVirtual {
	x := XMM()
	VXORPS(x, x, x)
	VCVTSI2SSL(s.As32(), x, x)
	VADDSS(f05, x, x)
	VMULSS(d.AsX(), x, x)
	VMULSS(mul, x, x)
	y := YMM()
	VBROADCASTSS(x, y)
	return y
}

// oddScale computes d·float32(2s+1) (IQ1 and IQ3_S sub-scales: 1+2s) for
// the integer s in a register, splat.
func oddScale(d VecVirtual, s GPVirtual) VecVirtual {
	t := GP32()
	LEAL(Mem{Base: s, Index: s, Scale: 1, Disp: 1}, t)
	x := XMM()
	VXORPS(x, x, x)
	VCVTSI2SSL(t, x, x)
	VMULSS(d.AsX(), x, x)
	y := YMM()
	VBROADCASTSS(x, y)
	return y
}

// gridOut8 stores 8 outputs from 8 grid bytes already widened to dwords in
// v: float(v)·db, then the sign flips of the sign byte in register signs.
func gridOut8(v VecVirtual, db VecVirtual, signs GPVirtual, masks GPVirtual, dst Mem) {
	VCVTDQ2PS(v, v)
	VMULPS(db, v, v)
	SHLQ(U8(5), signs)
	VXORPS(Mem{Base: masks, Index: signs, Scale: 1}, v, v)
	VMOVUPS(v, dst)
}

func iquants() {
	var grid, masks, ksigns GPVirtual
	setup := func(gridName string) func() {
		return func() {
			grid, masks, ksigns = GP64(), GP64(), GP64()
			LEAQ(goVar(gridName), grid)
			LEAQ(signMask, masks)
			LEAQ(goVar("ksignsIQ2XS"), ksigns)
		}
	}
	run("decodeIQ2_XXSAVX2", "decodes IQ2_XXS blocks: ((d·(0.5+s))·0.25)·grid, signed.", 8, 66, setup("iq2xxsGrid"), func(src, dst GPVirtual) {
		d := f16Splat(at(src, 0))
		for g := range 8 {
			w := GP32()
			MOVL(at(src, 2+8*g+4), w)
			s := GP32()
			MOVL(w, s)
			SHRL(U8(28), s)
			db := gridScale(d, s, f025)
			for l := range 4 {
				idx := GP64()
				MOVBQZX(at(src, 2+8*g+l), idx)
				v := YMM()
				VPMOVZXBD(Mem{Base: grid, Index: idx, Scale: 8}, v)
				si := GP64()
				MOVL(w, si.As32())
				if l > 0 {
					SHRL(U8(7*l), si.As32())
				}
				ANDL(U32(127), si.As32())
				sg := GP64()
				MOVBQZX(Mem{Base: ksigns, Index: si, Scale: 1}, sg)
				gridOut8(v, db, sg, masks, at(dst, 4*(32*g+8*l)))
			}
		}
	})
	run("decodeIQ2_XSAVX2", "decodes IQ2_XS blocks: ((d·(0.5+s))·0.25)·grid, signed.", 8, 74, setup("iq2xsGrid"), func(src, dst GPVirtual) {
		d := f16Splat(at(src, 0))
		for g := range 8 {
			sc := GP32()
			MOVBLZX(at(src, 66+g), sc)
			s0, s1 := GP32(), GP32()
			MOVL(sc, s0)
			ANDL(U32(15), s0)
			MOVL(sc, s1)
			SHRL(U8(4), s1)
			db := []VecVirtual{gridScale(d, s0, f025), gridScale(d, s1, f025)}
			for l := range 4 {
				q := GP64()
				MOVWQZX(at(src, 2+2*(4*g+l)), q)
				idx := GP64()
				MOVQ(q, idx)
				ANDQ(U32(511), idx)
				v := YMM()
				VPMOVZXBD(Mem{Base: grid, Index: idx, Scale: 8}, v)
				SHRQ(U8(9), q)
				sg := GP64()
				MOVBQZX(Mem{Base: ksigns, Index: q, Scale: 1}, sg)
				gridOut8(v, db[l/2], sg, masks, at(dst, 4*(32*g+8*l)))
			}
		}
	})
	run("decodeIQ2_SAVX2", "decodes IQ2_S blocks: ((d·(0.5+s))·0.25)·grid, signed.", 8, 82, setup("iq2sGrid"), func(src, dst GPVirtual) {
		d := f16Splat(at(src, 0))
		for g := range 8 {
			sc := GP32()
			MOVBLZX(at(src, 74+g), sc)
			s0, s1 := GP32(), GP32()
			MOVL(sc, s0)
			ANDL(U32(15), s0)
			MOVL(sc, s1)
			SHRL(U8(4), s1)
			db := []VecVirtual{gridScale(d, s0, f025), gridScale(d, s1, f025)}
			qh := GP64()
			MOVBQZX(at(src, 66+g), qh)
			for l := range 4 {
				idx, hb := GP64(), GP64()
				MOVQ(qh, hb)
				if l > 0 {
					SHRQ(U8(2*l), hb)
				}
				ANDQ(U32(3), hb)
				SHLQ(U8(8), hb)
				MOVBQZX(at(src, 2+4*g+l), idx)
				ORQ(hb, idx)
				v := YMM()
				VPMOVZXBD(Mem{Base: grid, Index: idx, Scale: 8}, v)
				sg := GP64()
				MOVBQZX(at(src, 34+4*g+l), sg)
				gridOut8(v, db[l/2], sg, masks, at(dst, 4*(32*g+8*l)))
			}
		}
	})
	// loadGrid4x2 widens two 4-byte grid entries (indices in registers) to
	// 8 dwords.
	loadGrid4x2 := func(i1, i2 GPVirtual) VecVirtual {
		x := XMM()
		VMOVD(Mem{Base: grid, Index: i1, Scale: 4}, x)
		VPINSRD(U8(1), Mem{Base: grid, Index: i2, Scale: 4}, x, x)
		v := YMM()
		VPMOVZXBD(x, v)
		return v
	}
	var f05m Mem
	run("decodeIQ3_XXSAVX2", "decodes IQ3_XXS blocks: ((d·(0.5+s))·0.5)·grid, signed.", 8, 98, func() {
		setup("iq3xxsGrid")()
		f05m = f05
	}, func(src, dst GPVirtual) {
		d := f16Splat(at(src, 0))
		for g := range 8 {
			w := GP32()
			MOVL(at(src, 66+4*g), w)
			s := GP32()
			MOVL(w, s)
			SHRL(U8(28), s)
			db := gridScale(d, s, f05m)
			for l := range 4 {
				i1, i2 := GP64(), GP64()
				MOVBQZX(at(src, 2+8*g+2*l), i1)
				MOVBQZX(at(src, 2+8*g+2*l+1), i2)
				v := loadGrid4x2(i1, i2)
				si := GP64()
				MOVL(w, si.As32())
				if l > 0 {
					SHRL(U8(7*l), si.As32())
				}
				ANDL(U32(127), si.As32())
				sg := GP64()
				MOVBQZX(Mem{Base: ksigns, Index: si, Scale: 1}, sg)
				gridOut8(v, db, sg, masks, at(dst, 4*(32*g+8*l)))
			}
		}
	})
	run("decodeIQ3_SAVX2", "decodes IQ3_S blocks: (d·(1+2s))·grid, signed.", 8, 110, setup("iq3sGrid"), func(src, dst GPVirtual) {
		d := f16Splat(at(src, 0))
		for g := range 8 {
			s := GP32()
			MOVBLZX(at(src, 106+g/2), s)
			if g%2 == 1 {
				SHRL(U8(4), s)
			}
			ANDL(U32(15), s)
			db := oddScale(d, s)
			qh := GP64()
			MOVBQZX(at(src, 66+g), qh)
			for l := range 4 {
				var idx [2]GPVirtual
				for k := range 2 {
					hb := GP64()
					MOVQ(qh, hb)
					if 2*l+k > 0 {
						SHRQ(U8(2*l+k), hb)
					}
					ANDQ(U32(1), hb)
					SHLQ(U8(8), hb)
					idx[k] = GP64()
					MOVBQZX(at(src, 2+8*g+2*l+k), idx[k])
					ORQ(hb, idx[k])
				}
				v := loadGrid4x2(idx[0], idx[1])
				sg := GP64()
				MOVBQZX(at(src, 74+4*g+l), sg)
				gridOut8(v, db, sg, masks, at(dst, 4*(32*g+8*l)))
			}
		}
	})

	// IQ1 codecs: dl·(grid + delta) with delta = ±0.125.
	iq1Out8 := func(idx GPVirtual, delta, dl VecVirtual, dst Mem) {
		v := YMM()
		VPMOVSXBD(Mem{Base: grid, Index: idx, Scale: 8}, v)
		VCVTDQ2PS(v, v)
		VADDPS(delta, v, v)
		VMULPS(dl, v, v)
		VMOVUPS(v, dst)
	}
	// deltaFor splats +0.125, or -0.125 when bit `bit` of r is set.
	deltaFor := func(r GPVirtual, bit int) VecVirtual {
		t := GP32()
		MOVL(r.As32(), t)
		if bit < 31 {
			SHLL(U8(31-bit), t)
		}
		ANDL(U32(0x80000000), t)
		ORL(U32(0x3e000000), t)
		x := XMM()
		VMOVD(t, x)
		y := YMM()
		VBROADCASTSS(x, y)
		return y
	}
	iq1Setup := func(gridName string) func() {
		return func() {
			grid = GP64()
			LEAQ(goVar(gridName), grid)
		}
	}
	run("decodeIQ1_SAVX2", "decodes IQ1_S blocks: (d·(2s+1))·(grid + delta).", 8, 50, iq1Setup("iq1sGrid"), func(src, dst GPVirtual) {
		d := f16Splat(at(src, 0))
		for g := range 8 {
			qh := GP64()
			MOVWQZX(at(src, 34+2*g), qh)
			s := GP64()
			MOVQ(qh, s)
			SHRQ(U8(12), s)
			ANDQ(U32(7), s)
			dl := oddScale(d, s)
			delta := deltaFor(qh, 15)
			for l := range 4 {
				hb, idx := GP64(), GP64()
				MOVQ(qh, hb)
				if l > 0 {
					SHRQ(U8(3*l), hb)
				}
				ANDQ(U32(7), hb)
				SHLQ(U8(8), hb)
				MOVBQZX(at(src, 2+4*g+l), idx)
				ORQ(hb, idx)
				iq1Out8(idx, delta, dl, at(dst, 4*(32*g+8*l)))
			}
		}
	})
	run("decodeIQ1_XXXSAVX2", "decodes IQ1_XXXS blocks: (d·(2s+1))·(grid + delta).", 8, 38, iq1Setup("iq1xxxsGrid"), func(src, dst GPVirtual) {
		d := f16Splat(at(src, 0))
		for g := range 8 {
			nib := GP64()
			MOVBQZX(at(src, 34+g/2), nib)
			if g%2 == 1 {
				SHRQ(U8(4), nib)
			}
			s := GP64()
			MOVQ(nib, s)
			ANDQ(U32(7), s)
			dl := oddScale(d, s)
			delta := deltaFor(nib, 3)
			for l := range 4 {
				idx := GP64()
				MOVBQZX(at(src, 2+4*g+l), idx)
				iq1Out8(idx, delta, dl, at(dst, 4*(32*g+8*l)))
			}
		}
	})
	run("decodeIQ1_MAVX2", "decodes IQ1_M blocks: (d·(2s+1))·(grid + delta), d from the scale words' top nibbles.", 8, 56, iq1Setup("iq1sGrid"), func(src, dst GPVirtual) {
		// d: the top nibbles of the four scale words at 48..55.
		h, t := GP32(), GP32()
		MOVWLZX(at(src, 48), h)
		SHRL(U8(12), h)
		for i := 1; i < 4; i++ {
			MOVWLZX(at(src, 48+2*i), t)
			SHRL(U8(12), t)
			SHLL(U8(4*i), t)
			ORL(t, h)
		}
		hx := XMM()
		VMOVD(h, hx)
		d := YMM()
		VCVTPH2PS(hx, d.AsX())
		for g := range 8 {
			sw := GP64()
			MOVWQZX(at(src, 48+2*(g/2)), sw)
			if g%2 == 1 {
				SHRQ(U8(6), sw)
			}
			s0, s1 := GP64(), GP64()
			MOVQ(sw, s0)
			ANDQ(U32(7), s0)
			MOVQ(sw, s1)
			SHRQ(U8(3), s1)
			ANDQ(U32(7), s1)
			dls := []VecVirtual{oddScale(d, s0), oddScale(d, s1)}
			for l := range 4 {
				nib := GP64()
				MOVBQZX(at(src, 32+2*g+l/2), nib)
				if l%2 == 1 {
					SHRQ(U8(4), nib)
				}
				delta := deltaFor(nib, 3)
				hb, idx := GP64(), GP64()
				MOVQ(nib, hb)
				ANDQ(U32(7), hb)
				SHLQ(U8(8), hb)
				MOVBQZX(at(src, 4*g+l), idx)
				ORQ(hb, idx)
				iq1Out8(idx, delta, dls[l/2], at(dst, 4*(32*g+8*l)))
			}
		}
	})
	run("decodeIQ4_XSAVX2", "decodes IQ4_XS blocks: (d·(ls-32))·kvalues[nibble].", 8, 136, nil, func(src, dst GPVirtual) {
		d := f16Splat(at(src, 0))
		sh := GP32()
		MOVWLZX(at(src, 2), sh)
		kv := XMM()
		VMOVDQU(kvIQ4NL, kv)
		for g := range 8 {
			ls, hb := GP32(), GP32()
			MOVBLZX(at(src, 4+g/2), ls)
			if g%2 == 1 {
				SHRL(U8(4), ls)
			}
			ANDL(U32(15), ls)
			MOVL(sh, hb)
			if g > 0 {
				SHRL(U8(2*g), hb)
			}
			ANDL(U32(3), hb)
			SHLL(U8(4), hb)
			ORL(hb, ls)
			SUBL(U8(32), ls)
			x := XMM()
			VXORPS(x, x, x)
			VCVTSI2SSL(ls, x, x)
			VMULSS(d.AsX(), x, x)
			dl := YMM()
			VBROADCASTSS(x, dl)
			lo, hi := nibbles16(at(src, 8+16*g))
			VPSHUFB(lo, kv, lo)
			VPSHUFB(hi, kv, hi)
			emit16(lo, true, scaling{mul: dl}, at(dst, 4*32*g))
			emit16(hi, true, scaling{mul: dl}, at(dst, 4*(32*g+16)))
		}
	})
}

func ternary() {
	// TQ2_0: the four values float32(code-1)·d, computed like the
	// portable decoder's table, are a per-block table repeated in both
	// halves of a YMM; VPERMPS reads the low 3 bits of each dword index,
	// so a code shifted down to bits 0-1 needs no mask (bit 2 only selects
	// the copy).
	run("decodeTQ2_0AVX2", "decodes TQ2_0 blocks: (code-1)·d.", 8, 66, nil, func(src, dst GPVirtual) {
		d := f16Splat(at(src, 64))
		table := YMM()
		VCVTDQ2PS(tq2Codes, table)
		VMULPS(d, table, table)
		for c := range 2 {
			for i := range 4 {
				x := YMM()
				VPMOVZXBD(at(src, 32*c+8*i), x)
				for l := range 4 {
					v := YMM()
					if l > 0 {
						VPSRLD(U8(2*l), x, v)
						VPERMPS(table, v, v)
					} else {
						VPERMPS(table, x, v)
					}
					VMOVUPS(v, at(dst, 4*(128*c+32*l+8*i)))
				}
			}
		}
	})
	// TQ1_0: digit n of byte q is ((q·3^n mod 256)·3) >> 8. With q
	// zero-extended in a 16-bit lane, VPMULLW by 3^n·256 leaves
	// (q·3^n mod 256)·256 in the lane, and VPMULHUW by 3 leaves the digit
	// (0..2). Each dword carries two bytes, q[j] in its low word and
	// q[j+8] in its high one, so one multiply pair gives 16 digits. A
	// digit then indexes a per-block table of the three values
	// float32(k-1)·d, computed like the portable decoder's products, so
	// VPERMPS (which reads the low 3 bits of a dword: the low word's
	// digit; VPSRLD by 16 brings the high word's down) gives the same bits
	// as converting and multiplying each element.
	run("decodeTQ1_0AVX2", "decodes TQ1_0 blocks: (base-3 digit - 1)·d.", 8, 54, nil, func(src, dst GPVirtual) {
		d := f16Splat(at(src, 52))
		table := YMM()
		VCVTDQ2PS(tq1Codes, table)
		VMULPS(d, table, table)
		three := YMM()
		VMOVDQU(c03W, three)
		// pair returns dwords lo[j] | hi[j]<<16 from two 8-byte groups.
		pair := func(lo, hi Op) VecVirtual {
			a, b := YMM(), YMM()
			VPMOVZXBD(lo, a)
			VPMOVZXBD(hi, b)
			VPSLLD(U8(16), b, b)
			VPOR(b, a, a)
			return a
		}
		// digits16 stores the low words' values at dstLo, the high
		// words' at dstHi.
		digits16 := func(q VecVirtual, mul Mem, dstLo, dstHi Mem) {
			v := YMM()
			VPMULLW(mul, q, v)
			VPMULHUW(three, v, v)
			a := YMM()
			VPERMPS(table, v, a)
			VMOVUPS(a, dstLo)
			VPSRLD(U8(16), v, v)
			VPERMPS(table, v, v)
			VMOVUPS(v, dstHi)
		}
		var q [3]VecVirtual
		for k := range q {
			q[k] = pair(at(src, 16*k), at(src, 16*k+8))
		}
		for n := range 5 {
			for k := range 2 {
				digits16(q[k], pow3W.Offset(32*n), at(dst, 4*(32*n+16*k)), at(dst, 4*(32*n+16*k+8)))
			}
			digits16(q[2], pow3W.Offset(32*n), at(dst, 4*(160+16*n)), at(dst, 4*(160+16*n+8)))
		}
		// qh: dword j holds qh[j%4] in both words; digit j/4 in the low
		// word (elements 240..247), digit 2+j/4 in the high one (248..255).
		t := XMM()
		VPBROADCASTD(at(src, 48), t)
		qt := YMM()
		VPMOVZXBD(t, qt)
		b := YMM()
		VPSLLD(U8(16), qt, b)
		VPOR(b, qt, qt)
		digits16(qt, pow3W.Offset(160), at(dst, 4*240), at(dst, 4*248))
	})
}
