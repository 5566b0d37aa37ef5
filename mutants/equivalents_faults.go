package mutants

import "gathermut/mutate/catalog"

// equivalentsFaults are the Go mutants of issue 36's fault operators
// (docs/faults.md) that cannot change behaviour, each with a reason that
// names its fault class. The assembly ones (asm-wide-tail) are in
// equivalents_asm.go.
func equivalentsFaults() []catalog.Equivalent {
	const neverBoth = "check order on edge inputs (docs/faults.md class 10): the two guards cannot both fire, "
	return []catalog.Equivalent{
		{
			Package: pkgGGUF, Func: "(*Builder).AddMeta", Operator: "guard-swap",
			Original:    "if key == \"\" {\n\t\treturn refuse(\"empty key\")\n\t}\n\tif b.keys[key] {\n\t\treturn refuse(\"key %q: duplicate key\", key)\n\t}",
			Replacement: "if b.keys[key] {\n\t\treturn refuse(\"key %q: duplicate key\", key)\n\t}\n\tif key == \"\" {\n\t\treturn refuse(\"empty key\")\n\t}",
			Reason: neverBoth + "b.keys records only keys AddMeta accepted, and the empty key is refused before it is recorded, " +
				"so b.keys[\"\"] is never true",
		},
		{
			Package: pkgGGUF, Func: "(*Builder).AddTensor", Operator: "guard-swap",
			Original:    "if name == \"\" {\n\t\treturn refuse(\"empty tensor name\")\n\t}\n\tif b.names[name] {\n\t\treturn refuse(\"tensor %q: duplicate tensor name\", name)\n\t}",
			Replacement: "if b.names[name] {\n\t\treturn refuse(\"tensor %q: duplicate tensor name\", name)\n\t}\n\tif name == \"\" {\n\t\treturn refuse(\"empty tensor name\")\n\t}",
			Reason: neverBoth + "b.names records only tensors AddTensor accepted, and the empty name is refused before it is " +
				"recorded, so b.names[\"\"] is never true",
		},
		{
			Package: pkgHipkern, Func: "Load", Operator: "guard-swap",
			Original:    "if loader.lib != nil {\n\t\treturn nil\n\t}\n\tif loader.fatal != nil {\n\t\treturn loader.fatal\n\t}",
			Replacement: "if loader.fatal != nil {\n\t\treturn loader.fatal\n\t}\n\tif loader.lib != nil {\n\t\treturn nil\n\t}",
			Reason: neverBoth + "Load (under loader.mu) sets loader.fatal only on a path that leaves loader.lib nil and sets " +
				"loader.lib only with fatal nil, and once either is set it returns before setting the other; the tests' " +
				"resetLoader and withLoader set lib and clear fatal, or clear both",
		},
		{
			Package: pkgEngine, Func: "silu", Operator: "neg-form",
			Original: "-x", Replacement: "0 - x",
			Reason: "NaN, infinity and signed zero (docs/faults.md class 3): -x and 0-x differ only in the sign of a zero and " +
				"of a NaN. expf(+0) and expf(-0) are both exactly 1 (k = 0, r = ±0, and the polynomial's last step is 1*r + 1 " +
				"= 1), and for a NaN x, x / (1 + expf(..)) is x's own NaN quieted whatever the divisor's NaN (DIVSS and " +
				"arm64's FDIV return the first operand's NaN when both are NaN), so silu's bits are the same for every x",
		},
		{
			Package: pkgEngine, Func: "testVocab", Operator: "neg-form",
			Original: "-float32(i - eosToken)", Replacement: "0 - float32(i-eosToken)",
			Reason: "NaN, infinity and signed zero (docs/faults.md class 3): -v and 0-v differ only for a zero or a NaN v, and " +
				"v = float32(i - eosToken) is a nonzero integer here: the default case never sees i == eosToken",
		},
	}
}

// equivalentsUnlockEarly are unlock-early's equivalent mutants: the moved
// statement is C.dlclose, which touches no Go memory (so no -race run can
// report it) and which serializes itself.
func equivalentsUnlockEarly() []catalog.Equivalent {
	const why = "races in shared state (docs/faults.md class 5) do not follow from moving C.dlclose out of callMu (and " +
		"openMu): it reads and writes no Go memory, glibc's dlopen and dlclose take the loader's own lock, and " +
		"dlclose only drops this cgoLib's reference; it unloads (running the library's destructors) only when it " +
		"is the last one, when no other cgoLib is left to be inside a library call that callMu would wait for. " +
		"openCount still changes under openMu, so an openLib beside it sees the same states in the same order"
	eq := func(orig, repl string) catalog.Equivalent {
		return catalog.Equivalent{Package: pkgHipkern, Func: "(*cgoLib).close", Operator: "unlock-early", Original: orig, Replacement: repl, Reason: why}
	}
	return []catalog.Equivalent{
		eq("openMu.Lock()\n\tdefer openMu.Unlock()\n\tcallMu.Lock()\n\tC.dlclose(l.handle)",
			"C.dlclose(l.handle)\n\topenMu.Lock()\n\tdefer openMu.Unlock()\n\tcallMu.Lock()"),
		eq("C.dlclose(l.handle)\n\tcallMu.Unlock()", "callMu.Unlock()\n\tC.dlclose(l.handle)"),
	}
}
