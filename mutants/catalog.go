package mutants

import (
	"strings"

	"gathermut/mutate/catalog"
)

// The row's packages.
const (
	pkgGGUF    = "gathermut/gguf"
	pkgGather  = "gathermut/gather"
	pkgEngine  = "gathermut/engine"
	pkgHipkern = "gathermut/hipkern"
)

// The tests the entries expect to kill them.
const (
	testReach         = pkgEngine + ".TestProductionReachability"
	testReachGPU      = pkgEngine + ".TestProductionReachabilityGPU"
	testKeepsQ8K      = pkgEngine + ".TestLoadKeepsQ8KEmbeddingPacked"
	testOracle        = pkgGather + ".TestDequantizeOracle"
	testMatrix        = pkgGather + ".TestEmbeddingMatrix"
	testBadIDs        = pkgGather + ".TestEmbeddingBadIDs"
	testBF16          = pkgGather + ".TestF32ToBF16"
	testQ8KTrait      = pkgGGUF + ".TestQ8KTrait"
	testQ8KMatrix     = pkgGGUF + ".TestOwnQuantBlocksRefusesQ8KMatrix"
	testNeverRepacks  = pkgGGUF + ".TestOwnQuantBlocksEmbeddingNeverRepacks"
	testGPUMatchesCPU = pkgHipkern + ".TestGPUGatherMatchesCPU"
	testGPUOracle     = pkgHipkern + ".TestGPUOracle"
	testGPUBadIDs     = pkgHipkern + ".TestGPUBadIDs"
	testGPUContinue   = pkgHipkern + ".TestGPUContinuation"
	testGPUBinding    = pkgHipkern + ".TestDeviceBinding"
)

// Catalog returns the row's catalog: the Go entries of every class, the
// per-codec decoder corruptions, the kernel entries with the recipe that
// rebuilds the kernel, and the equivalent generic mutants.
func Catalog() catalog.Catalog {
	var entries []catalog.Entry
	entries = append(entries, rowEntries()...)
	entries = append(entries, decoderEntries()...)
	entries = append(entries, edgeEntries()...)
	entries = append(entries, kernelEntries()...)
	entries = append(entries, asmEntries()...)
	return catalog.Catalog{Entries: entries, Equivalents: equivalents(), Kernel: kernelRecipe()}
}

// rowEntries are the Go entries of classes 1-3 and 5-12: registration,
// the production call site, residency, the gather's stride, id and bf16
// handling, the trait table and the materializer.
func rowEntries() []catalog.Entry {
	return []catalog.Entry{
		{
			ID: "cpu-quant-unregistered", Class: 1, Operator: catalog.DeleteCall,
			Target:  catalog.Target{Package: pkgGather, Func: "init", Match: "mustRegister(OpEmbeddingQuant, CPU, cpuQuant{})"},
			Killers: []string{testReach},
			Reason:  "without the CPU EmbeddingQuant provider the loader expands the table and the quant tier is never selected",
		},
		{
			ID: "gpu-quant-unregistered", Class: 1, Operator: catalog.DeleteCall,
			Target:  catalog.Target{Package: pkgHipkern, Func: "Load", Match: "register(gather.OpEmbeddingQuant, newProvider(lib, true, info.Devices))"},
			Killers: []string{testReachGPU},
			Reason:  "without the GPU EmbeddingQuant provider the GPU load expands the table and the GPU quant tier is never selected",
		},
		{
			ID: "embed-call-deleted", Class: 2, Operator: catalog.DeleteCall,
			Target:  catalog.Target{Package: pkgEngine, Func: "(*embedder).embed", Match: "gather.Embedding"},
			Killers: []string{testReach},
			Reason:  "the embed step no longer gathers: no selections, and the model sees zero embeddings",
		},
		{
			ID: "embedding-residency-expand", Class: 3, Operator: catalog.ReplaceExpr,
			Target:      catalog.Target{Package: pkgGGUF, Func: "Route", Match: "KeepPacked"},
			Replacement: "Expand",
			Killers:     []string{testReach},
			Reason:      "the loader expands every embedding table: the resident bytes and the serving tier change",
		},
		{
			ID: "row-stride-in-elements", Class: 5, Operator: catalog.ReplaceExpr,
			Target:      catalog.Target{Package: pkgGather, Func: "(*rowJob).quantRows", Match: "int(j.ids.at(int64(i))) * j.rowBytes"},
			Replacement: "int(j.ids.at(int64(i))) * j.hidden",
			Killers:     []string{testMatrix},
			Reason:      "rows other than row 0 are read from the wrong offset",
		},
		{
			ID: "ids-truncated-to-int32", Class: 6, Operator: catalog.ReplaceExpr,
			Target:      catalog.Target{Package: pkgGather, Func: "idView.at", Match: "int64(binary.LittleEndian.Uint64(v.data[8*i:]))"},
			Replacement: "int64(int32(binary.LittleEndian.Uint64(v.data[8*i:])))",
			Killers:     []string{testBadIDs},
			Reason:      "1<<32+1 would pass the bounds check as row 1",
		},
		{
			ID: "bf16-truncates", Class: 7, Operator: catalog.ReplaceExpr,
			Target:      catalog.Target{Package: pkgGather, Func: "F32ToBF16", Match: "uint16((u + 0x7fff + ((u >> 16) & 1)) >> 16)"},
			Replacement: "uint16(u >> 16)",
			Killers:     []string{testBF16},
			Reason:      "the tie and round-up cases come out truncated",
		},
		{
			ID: "id-bounds-check-deleted", Class: 8, Operator: catalog.DeleteCall,
			Target:  catalog.Target{Package: pkgGather, Func: "prepareRows", Match: "checkIDs"},
			Killers: []string{testBadIDs},
			Reason:  "bad ids are no longer reported (and read outside the table)",
		},
		{
			ID: "q8k-trait-removed", Class: 10, Operator: catalog.DeleteElement,
			Target:  catalog.Target{Package: pkgGGUF, Func: "ggmlTraits", Match: "TypeQ8_K"},
			Killers: []string{testQ8KTrait},
			Reason:  "Q8_K becomes an unknown type",
		},
		q8kGeometry("elems-255", "BlockElems", "255"),
		q8kGeometry("elems-128", "BlockElems", "128"),
		q8kGeometry("elems-512", "BlockElems", "512"),
		q8kGeometry("bytes-291", "BlockBytes", "291"),
		q8kGeometry("bytes-293", "BlockBytes", "293"),
		{
			ID: "materializer-matrix-role", Class: 11, Operator: catalog.ReplaceExpr,
			Target:      catalog.Target{Package: pkgEngine, Func: "keepPacked", Match: "gguf.OwnQuantBlocks(info, role, caps)"},
			Replacement: "gguf.OwnQuantBlocks(info, gguf.MatrixWeight, caps)",
			Killers:     []string{testKeepsQ8K},
			Reason:      "a Q8_K table asked for as a matrix is refused (no dot provider)",
		},
		{
			ID: "dot-requirement-weakened", Class: 11, Operator: catalog.ReplaceExpr,
			Target:      catalog.Target{Package: pkgGGUF, Func: "OwnQuantBlocks", Match: "!caps.CanDot(info.Type)"},
			Replacement: "false",
			Killers:     []string{testQ8KMatrix},
			Reason:      "a Q8_K matrix is accepted without a dot capability",
		},
		{
			ID: "embedding-role-repacks", Class: 12, Operator: catalog.ReplaceExpr,
			Target:      catalog.Target{Package: pkgGGUF, Func: "OwnQuantBlocks", Match: "role == MatrixWeight && caps.WantsRepack(info.Type)"},
			Replacement: "caps.WantsRepack(info.Type)",
			Killers:     []string{testNeverRepacks},
			Reason:      "an embedding table would be row-interleaved and its rows read wrong",
		},
	}
}

// q8kGeometry perturbs one field of the Q8_K trait entry (class 10).
func q8kGeometry(id, field, value string) catalog.Entry {
	return catalog.Entry{
		ID: "q8k-trait-" + id, Class: 10, Operator: catalog.ReplaceValue,
		Target:      catalog.Target{Package: pkgGGUF, Func: "ggmlTraits", Match: "TypeQ8_K", Field: field},
		Replacement: value,
		Killers:     []string{testQ8KTrait},
		Reason:      "Q8_K's geometry is 256 elements in 292 bytes",
	}
}

// corruption is one rewrite of a decoder: the part it breaks ("scale",
// "payload" or "codebook"), the source it matches and its replacement.
type corruption struct{ part, match, replacement string }

// codecCorruptions breaks one admitted codec's decoders: goFunc in package
// gather, and the kernel's device decoder (one text rewrite of
// hipkern/decoders.h).
type codecCorruptions struct {
	codec  string
	goFunc string
	goSide []corruption
	kernel corruption
}

// decoderCorruptions lists, per admitted codec, its corruptions. Every scale
// is doubled (or its exponent shifted), every payload misreads a bit field
// or an offset, every codebook lookup reads the neighbouring entry.
var decoderCorruptions = []codecCorruptions{
	{"Q4_0", "decodeQ4_0", []corruption{
		{"scale", "f16le(b, 0)", "2 * f16le(b, 0)"},
		{"payload", "q-8", "q-7"},
	}, corruption{"payload", "y[k] = gm_bytef(q, k, 8) * d;", "y[k] = gm_bytef(q, k, 7) * d;"}},
	{"Q5_0", "decodeQ5_0", []corruption{
		{"scale", "f16le(b, 0)", "2 * f16le(b, 0)"},
		{"payload", "qh>>j&1", "qh>>(j+1)&1"},
	}, corruption{"payload", "y[k] = gm_bytef(q, k, 16) * d;", "y[k] = gm_bytef(q, k, 15) * d;"}},
	{"Q8_0", "decodeQ8_0", []corruption{
		{"scale", "f16le(b, 0)", "2 * f16le(b, 0)"},
		{"payload", "int8(q)", "uint8(q)"},
	}, corruption{"payload", "const uint64_t qs = gm_take<N>(b, 2 + e0) ^ GM_TOP;", "const uint64_t qs = gm_take<N>(b, 2 + e0);"}},
	{"Q2_K", "decodeQ2_K", []corruption{
		{"scale", "f16le(b, 80)", "2 * f16le(b, 80)"},
		{"payload", "q>>2&3", "q>>2&1"},
	}, corruption{"scale", "const float dl = d * gm_float(sc & 15);", "const float dl = d * gm_float(sc & 7);"}},
	{"Q3_K", "decodeQ3_K", []corruption{
		{"scale", "f16le(b, 108)", "2 * f16le(b, 108)"},
		{"payload", "hb&1<<2", "(hb&1^1)<<2"},
	}, corruption{"payload", "const uint64_t q = low2 | hbit << 2;", "const uint64_t q = low2 | (hbit ^ GM_ONE) << 2;"}},
	{"Q4_K", "decodeQ4_K", []corruption{
		{"scale", "f16le(b, 0)", "2 * f16le(b, 0)"},
		{"payload", "q&15", "q&7"},
	}, corruption{"payload", "y[k] = d1 * gm_bytef(nib, k, 0) - m1;", "y[k] = d1 * gm_bytef(nib, k, 0) + m1;"}},
	{"Q5_K", "decodeQ5_K", []corruption{
		{"scale", "f16le(b, 0)", "2 * f16le(b, 0)"},
		{"payload", "qh[l]>>(2*c)&1", "qh[l]>>(2*c+1)&1"},
	}, corruption{"payload", "const uint64_t q = nib | (gm_take<N>(b, 16 + r) >> g & GM_ONE) << 4;", "const uint64_t q = nib | (gm_take<N>(b, 16 + r) >> g & GM_ONE) << 3;"}},
	{"Q6_K", "decodeQ6_K", []corruption{
		{"scale", "f16le(b, 208)", "2 * f16le(b, 208)"},
		{"payload", "int(a&15|hb&3<<4) - 32", "int(a&15|hb&3<<4) - 31"},
	}, corruption{"scale", "const float dl = d * gm_float((int8_t)b.u8(192 + (e0 >> 4)));", "const float dl = d * gm_float((uint8_t)b.u8(192 + (e0 >> 4)));"}},
	{"Q8_K", "decodeQ8_K", []corruption{
		{"scale", "math.Float32frombits(u32le(b, 0))", "2 * math.Float32frombits(u32le(b, 0))"},
		{"payload", "int8(q)", "uint8(q)"},
	}, corruption{"payload", "const uint64_t qs = gm_take<N>(b, 4 + e0) ^ GM_TOP;", "const uint64_t qs = gm_take<N>(b, 4 + e0);"}},
	{"IQ2_XXS", "decodeIQ2_XXS", []corruption{
		{"scale", "f16le(b, 0)", "2 * f16le(b, 0)"},
		{"payload", "w>>28", "w>>29"},
		{"codebook", "iq2xxsGrid[grp[l]]", "iq2xxsGrid[grp[l]^1]"},
	}, corruption{"codebook", "gm_iq2xxs_grid[b.u8(2 + 8 * g + l)]", "gm_iq2xxs_grid[b.u8(2 + 8 * g + l) ^ 1]"}},
	{"IQ2_XS", "decodeIQ2_XS", []corruption{
		{"scale", "f16le(b, 0)", "2 * f16le(b, 0)"},
		{"payload", "qs>>9", "qs>>10"},
		{"codebook", "iq2xsGrid[qs&511]", "iq2xsGrid[(qs&511)^1]"},
	}, corruption{"codebook", "gm_iq2xs_grid[qv & 511]", "gm_iq2xs_grid[(qv & 511) ^ 1]"}},
	{"IQ3_XXS", "decodeIQ3_XXS", []corruption{
		{"scale", "f16le(b, 0)", "2 * f16le(b, 0)"},
		{"payload", "w>>28", "w>>29"},
		{"codebook", "iq3xxsGrid[b[2+8*g+2*l]]", "iq3xxsGrid[b[2+8*g+2*l]^1]"},
	}, corruption{"codebook", "uint64_t grid = gm_iq3xxs_grid[b.u8(first)];", "uint64_t grid = gm_iq3xxs_grid[b.u8(first) ^ 1];"}},
	{"IQ1_S", "decodeIQ1_S", []corruption{
		{"scale", "f16le(b, 0)", "2 * f16le(b, 0)"},
		{"payload", "qh>>(3*l)&7", "qh>>(3*l)&3"},
		{"codebook", "iq1sGrid[idx]", "iq1sGrid[idx^1]"},
	}, corruption{"payload", "const float delta = (h & 0x8000) ? -GM_IQ1S_DELTA : GM_IQ1S_DELTA;", "const float delta = (h & 0x8000) ? GM_IQ1S_DELTA : -GM_IQ1S_DELTA;"}},
	{"IQ4_NL", "decodeIQ4_NL", []corruption{
		{"scale", "f16le(b, 0)", "2 * f16le(b, 0)"},
		{"payload", "b[2+j]", "b[2+(j^1)]"},
		{"codebook", "kvaluesIQ4NL[q]", "kvaluesIQ4NL[q^1]"},
	}, corruption{"codebook", "y[k] = d * gm_float(gm_kvalues_iq4nl[nib]);", "y[k] = d * gm_float(gm_kvalues_iq4nl[nib ^ 1]);"}},
	{"IQ3_S", "decodeIQ3_S", []corruption{
		{"scale", "f16le(b, 0)", "2 * f16le(b, 0)"},
		{"payload", "qh>>(2*l)&1", "qh>>(2*l+1)&1"},
		{"codebook", "iq3sGrid[idx1]", "iq3sGrid[idx1^1]"},
	}, corruption{"codebook", "uint64_t grid = gm_iq3s_grid[idx1];", "uint64_t grid = gm_iq3s_grid[idx1 ^ 1];"}},
	{"IQ2_S", "decodeIQ2_S", []corruption{
		{"scale", "f16le(b, 0)", "2 * f16le(b, 0)"},
		{"payload", "qh>>(2*l)&3", "qh>>(2*l)&1"},
		{"codebook", "iq2sGrid[idx]", "iq2sGrid[idx^1]"},
	}, corruption{"codebook", "gm_iq2s_grid[idx]", "gm_iq2s_grid[idx ^ 1]"}},
	{"IQ4_XS", "decodeIQ4_XS", []corruption{
		{"scale", "f16le(b, 0)", "2 * f16le(b, 0)"},
		{"payload", "sh>>(2*g)&3", "sh>>(2*g)&1"},
		{"codebook", "kvaluesIQ4NL[q]", "kvaluesIQ4NL[q^1]"},
	}, corruption{"scale", "const float dl = d * gm_float((int)ls - 32);", "const float dl = d * gm_float((int)ls - 31);"}},
	{"MXFP4", "decodeMXFP4", []corruption{
		{"scale", "e8m0HalfTable[b[0]]", "e8m0HalfTable[b[0]+1]"},
		{"payload", "b[1+j]", "b[1+(j^1)]"},
		{"codebook", "kvaluesMXFP4[q]", "kvaluesMXFP4[q^1]"},
	}, corruption{"codebook", "y[k] = gm_float(gm_kvalues_mxfp4[q]) * s;", "y[k] = gm_float(gm_kvalues_mxfp4[q ^ 1]) * s;"}},
	{"NVFP4", "decodeNVFP4", []corruption{
		{"scale", "ue4m3HalfTable[b[s]]", "ue4m3HalfTable[b[s]+1]"},
		{"payload", "b[4+8*s:]", "b[4+8*(s^1):]"},
		{"codebook", "kvaluesMXFP4[q]", "kvaluesMXFP4[q^1]"},
	}, corruption{"scale", "const float d = gm_ue4m3_half(b.u8(s));", "const float d = gm_ue4m3_half(b.u8(s ^ 1));"}},
	{"Q1_0", "decodeQ1_0", []corruption{
		{"scale", "f16le(b, 0)", "2 * f16le(b, 0)"},
		{"payload", "q>>i&1", "q>>(i^1)&1"},
	}, corruption{"payload", "y[k] = ((bits >> k) & 1) ? d : -d;", "y[k] = ((bits >> k) & 1) ? -d : d;"}},
	{"Q2_0", "decodeQ2_0", []corruption{
		{"scale", "f16le(b, 0)", "2 * f16le(b, 0)"},
		{"payload", "q>>2&3", "q>>3&3"},
	}, corruption{"payload", "y[k] = gm_float((int)((codes >> (2 * k)) & 3) - 1) * d;", "y[k] = gm_float((int)((codes >> (2 * k)) & 3) - 2) * d;"}},
	{"IQ1_XXXS", "decodeIQ1_XXXS", []corruption{
		{"scale", "f16le(b, 0)", "2 * f16le(b, 0)"},
		{"payload", "nib&8 != 0", "nib&4 != 0"},
		{"codebook", "iq1xxxsGrid[b[2+4*g+l]]", "iq1xxxsGrid[b[2+4*g+l]^1]"},
	}, corruption{"codebook", "gm_iq1_xxxs_grid[b.u8(2 + 4 * g + l)]", "gm_iq1_xxxs_grid[b.u8(2 + 4 * g + l) ^ 1]"}},
}

// decoderEntries expands class 4 for the Go decoders: each corruption is
// killed by the oracle test, which compares every decoded value with
// llama.cpp's reference decoder bit for bit.
func decoderEntries() []catalog.Entry {
	var entries []catalog.Entry
	for _, c := range decoderCorruptions {
		for _, k := range c.goSide {
			entries = append(entries, catalog.Entry{
				ID: "decode-" + strings.ToLower(c.codec) + "-" + k.part, Class: 4, Operator: catalog.ReplaceExpr,
				Target:      catalog.Target{Package: pkgGather, Func: c.goFunc, Match: k.match},
				Replacement: k.replacement,
				Killers:     []string{testOracle},
				Reason:      c.codec + " " + k.part + " corrupted: decoded values differ from llama.cpp's",
			})
		}
	}
	return entries
}

// kernelFile and kernelDecoders are the kernel sources the text entries
// rewrite.
const (
	kernelFile     = "hipkern/gather.hip"
	kernelDecoders = "hipkern/decoders.h"
)

// kernelEntries are the text rewrites of the HIP sources: the launch and
// error-record mechanics (classes 5-9 and 13) and one device-decoder
// corruption per admitted codec (class 4).
func kernelEntries() []catalog.Entry {
	entries := []catalog.Entry{
		kernelText("kernel-grid-stride-removed", 9, kernelFile,
			"row < a.n_ids; row += step) {",
			"row < a.n_ids; row += a.n_ids) {",
			"rows past the grid's first turn are never gathered", testGPUContinue),
		kernelText("kernel-row-stride-in-elements", 5, kernelFile,
			"const uint8_t* base = a.table + id * a.row_bytes;",
			"const uint8_t* base = a.table + id * a.hidden;",
			"rows other than row 0 are read from the wrong offset", testGPUMatchesCPU),
		kernelText("kernel-ids-truncated-to-int32", 6, kernelFile,
			"if (id_bytes == 8) return (int64_t)(aligned ? gm_load64(p) : gm_u64(p));",
			"if (id_bytes == 8) return (int64_t)(int32_t)(aligned ? gm_load64(p) : gm_u64(p));",
			"1<<32+1 would pass the bounds check as row 1", testGPUBadIDs),
		kernelText("kernel-bf16-truncates", 7, kernelDecoders,
			`asm("cvt.rn.bf16x2.f32 %0, %1, %2;"`,
			`asm("cvt.rz.bf16x2.f32 %0, %1, %2;"`,
			"bf16 output is truncated instead of rounded to nearest even (the NVIDIA rounding instruction)", testGPUMatchesCPU),
		kernelText("kernel-error-record-not-written", 8, kernelFile,
			"if (lane == 0) atomicMin(a.bad, (unsigned long long)row);",
			"if (lane == 0) (void)row;",
			"a bad id is skipped silently instead of being recorded", testGPUBadIDs),
		kernelText("kernel-error-record-not-read", 8, kernelFile,
			"if (first_bad != GM_NO_ERROR) {",
			"if (false) {",
			"the launcher never reports the recorded bad id", testGPUBadIDs),
		kernelText("kernel-device-binding-removed", 13, kernelFile,
			"  if (!gm_bind(device, err, errlen)) return GM_ERROR;\n  if (gm_grid(k, out_bf16, a, device, &grid, err, errlen) != GM_OK) return GM_ERROR;\n  if (!gm_temp_alloc(&a.bad, device, err, errlen)) return GM_ERROR;\n  status = gm_run(",
			"  if (gm_grid(k, out_bf16, a, device, &grid, err, errlen) != GM_OK) return GM_ERROR;\n  if (!gm_temp_alloc(&a.bad, device, err, errlen)) return GM_ERROR;\n  status = gm_run(",
			"the gather runs on the ambient device, not the tensors'", testGPUBinding),
	}
	for _, c := range decoderCorruptions {
		k := c.kernel
		entries = append(entries, kernelText("kernel-decode-"+strings.ToLower(c.codec)+"-"+k.part, 4, kernelDecoders,
			k.match, k.replacement, c.codec+" device "+k.part+" corrupted: GPU output differs from the CPU's and from llama.cpp's",
			testGPUMatchesCPU, testGPUOracle))
	}
	return entries
}

func kernelText(id string, class int, file, match, replacement, reason string, killers ...string) catalog.Entry {
	return catalog.Entry{
		ID: id, Class: class, Operator: catalog.KernelText,
		Target:      catalog.Target{File: file, Match: match},
		Replacement: replacement,
		Killers:     killers,
		Reason:      reason,
	}
}

// kernelRecipe rebuilds the kernel library from a copy of the sources with
// the build script (nvcc for the NVIDIA GPU present, hipcc for gfx1100) and
// points the hipkern tests at it.
func kernelRecipe() *catalog.Kernel {
	return &catalog.Kernel{
		Sources:        []string{"hipkern/*.hip", "hipkern/*.h", "hipkern/build.sh"},
		Entry:          "hipkern/gather.hip",
		Build:          []string{"bash", "{src}/hipkern/build.sh", "--src", "{src}/hipkern", "--out", "{out}"},
		LibEnv:         "GATHERMUT_HIPKERN_LIB",
		Package:        pkgHipkern,
		Tools:          []string{"nvcc", "hipcc"},
		Emulation:      []string{"bash", "{src}/hipkern/build.sh", "--compiler", "emulate", "--src", "{src}/hipkern", "--out", "{out}"},
		EmulationTools: []string{"c++"},
		EmulationEnv:   "GATHERMUT_HIPKERN_EMULATION",
	}
}

// equivalents are the generic-operator mutants that cannot change what the
// row computes, each with the reason, one file per package.
func equivalents() []catalog.Equivalent {
	var eq []catalog.Equivalent
	for _, part := range [][]catalog.Equivalent{equivalentsGGUF(), equivalentsGather(), equivalentsEngine(), equivalentsHipkern(), equivalentsKernel(), equivalentsAsm(), equivalentsFaults(), equivalentsUnlockEarly()} {
		eq = append(eq, part...)
	}
	return eq
}
