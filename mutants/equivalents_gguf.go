package mutants

import "gathermut/mutate/catalog"

// equivalentsGGUF are the generic mutants of package gguf that cannot change
// behaviour, each with the reason.
func equivalentsGGUF() []catalog.Equivalent {
	return []catalog.Equivalent{
		{
			Package: pkgGGUF, Func: "(*decoder).metadata", Operator: "remove-stmt",
			Original: "f.keys = make([]string, 0, n)", Replacement: "",
			Reason: "a capacity hint: without it f.keys starts nil and the same appends give the same keys in the same order; " +
				"its only reader is MetaKeys, whose append([]string(nil), f.keys...) is nil for an empty nil or empty non-nil slice alike",
		},
		{
			Package: pkgGGUF, Func: "(*decoder).tensorInfos", Operator: "remove-stmt",
			Original: "f.tensors = make([]TensorInfo, 0, n)", Replacement: "",
			Reason: "a capacity hint: without it f.tensors starts nil and the same appends give the same infos; Data is set only after the last append, " +
				"through &f.tensors[i], so no reallocation can drop it; Tensors copies with append([]TensorInfo(nil), ...), nil for zero tensors either way",
		},
		{
			Package: pkgGGUF, Func: "Type.IsQuantized", Operator: "const-int",
			Original: "1", Replacement: "2",
			Reason: "tr.BlockElems > 2 and > 1 differ only for BlockElems == 2, and no type has it: the trait table (pinned entry by entry by TestTraitTable) " +
				"has BlockElems 1 for the element types and 32, 64, 128 or 256 for the block types; an unknown type is false through ok either way",
		},
	}
}
