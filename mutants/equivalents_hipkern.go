package mutants

import "gathermut/mutate/catalog"

// equivalentsHipkern are the generic mutants of package hipkern that cannot change
// behaviour, each with the reason.
func equivalentsHipkern() []catalog.Equivalent {
	return []catalog.Equivalent{
		{
			Package: pkgHipkern, Func: "boolInt", Operator: "const-int",
			Original: "1", Replacement: "2",
			Reason: "boolInt's only use is the out_bf16 argument of gm_gather, which gather.hip reads only as a C " +
				"truth value (gm_prepare's out_bf16 ? 2 : 4, gm_launch's out_bf16 ? k->bf16 : k->f32): 1 and 2 select the same element " +
				"size and kernel",
		},
		{
			Package: pkgHipkern, Func: "thisFile", Operator: "const-int",
			Original: "0", Replacement: "1",
			Reason: "runtime.Caller(1) names the caller of thisFile instead of thisFile itself; its one caller is places " +
				"(through the sourceFile variable, which only tests replace), in locate.go too, so filepath.Dir of the file, " +
				"the only thing used, is the same directory, and the path is absolute or not alike",
		},
		{
			Package: pkgHipkern, Func: "openLib", Operator: "remove-stmt",
			Original: "defer C.free(unsafe.Pointer(cpath))", Replacement: "",
			Reason: "frees the C copy of the path after gm_open, which keeps no pointer to it (dlopen copies the name); without it " +
				"each openLib leaks len(path)+1 bytes of C heap, which no result, error, library state or later call reflects",
		},
	}
}
