package schema_test

import (
	"go/parser"
	"go/token"
	"go/types"
	"testing"

	"gathermut/mutate/schema"
)

// TestSpell: a type is written as the file can name it (its package's
// import name, or nothing for its own), or not at all: an unexported type
// or field of another package, a package the file does not import (or
// imports blank or dot), a non-empty interface, a name that does not parse.
func TestSpell(t *testing.T) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "p.go", "package p\n\nimport (\n\t\"m/q\"\n\tr \"m/r\"\n\t_ \"m/u\"\n\t. \"m/d\"\n)\n", parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	p := types.NewPackage("m/p", "p")
	q := types.NewPackage("m/q", "q")
	named := spellNamed
	intT := types.Typ[types.Int]
	qD, qd := named(q, "D", types.Typ[types.Float64]), named(q, "d", intT)
	own := named(p, "own", intT)
	tp := types.NewTypeParam(types.NewTypeName(token.NoPos, q, "T", nil), types.NewInterfaceType(nil, nil))
	g := named(q, "G", types.NewStruct(nil, nil))
	g.SetTypeParams([]*types.TypeParam{tp})
	inst := func(arg types.Type) types.Type {
		it, err := types.Instantiate(nil, g, []types.Type{arg}, false)
		if err != nil {
			t.Fatal(err)
		}
		return it
	}
	field := spellField
	sig := func(params, results []types.Type) *types.Signature { return spellSig(p, params, results) }
	method := types.NewFunc(token.NoPos, p, "M", sig(nil, nil))
	for _, c := range []struct {
		name string
		typ  types.Type
		want string
	}{
		{"basic", intT, "int"},
		{"own", own, "own"},
		{"own-unexported-field", field(p, "f", own), "struct{f own}"},
		{"imported", qD, "q.D"},
		{"imported-unexported", qd, ""},
		{"renamed-import", named(types.NewPackage("m/r", "rr"), "R", intT), "r.R"},
		{"blank-import", named(types.NewPackage("m/u", "u"), "U", intT), ""},
		{"dot-import", named(types.NewPackage("m/d", "d"), "E", intT), ""},
		{"not-imported", named(types.NewPackage("m/z", "z"), "Z", intT), ""},
		{"generic", inst(qD), "q.G[q.D]"},
		{"generic-unexported-arg", inst(qd), ""},
		{"alias", types.NewAlias(types.NewTypeName(token.NoPos, q, "A", nil), intT), "q.A"},
		{"alias-unexported", types.NewAlias(types.NewTypeName(token.NoPos, q, "a", nil), intT), ""},
		{"pointer", types.NewPointer(qD), "*q.D"},
		{"pointer-unexported", types.NewPointer(qd), ""},
		{"slice-unexported", types.NewSlice(qd), ""},
		{"array-unexported", types.NewArray(qd, 2), ""},
		{"array", types.NewArray(qD, 2), "[2]q.D"},
		{"map-key-unexported", types.NewMap(qd, intT), ""},
		{"map-elem-unexported", types.NewMap(intT, qd), ""},
		{"map", types.NewMap(qD, own), "map[q.D]own"},
		{"chan-unexported", types.NewChan(types.SendRecv, qd), ""},
		{"func", sig([]types.Type{qD, intT}, []types.Type{own}), "func(q.D, int) own"},
		{"func-param-unexported", sig([]types.Type{intT, qd}, nil), ""},
		{"func-result-unexported", sig(nil, []types.Type{intT, qd}), ""},
		{"struct-field-unexported", field(q, "f", intT), ""},
		{"struct-field-type-unexported", field(p, "F", qd), ""},
		{"struct-exported-field", field(q, "F", qD), "struct{F q.D}"},
		{"empty-interface", types.NewInterfaceType(nil, nil), "interface{}"},
		{"interface", types.NewInterfaceType([]*types.Func{method}, nil), ""},
		{"cgo", named(p, "_Ctype_int", intT), "C.int"},
		{"cgo-pointer", types.NewPointer(named(p, "_Ctype_struct_x", intT)), "*C.struct_x"},
		{"no-parse", named(p, "a)", intT), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := schema.Spell(c.typ, p, file); got != c.want {
				t.Errorf("Spell(%s) = %q, want %q", c.typ, got, c.want)
			}
		})
	}
}

// spellNamed is a named type of pkg with underlying type u.
func spellNamed(pkg *types.Package, name string, u types.Type) *types.Named {
	return types.NewNamed(types.NewTypeName(token.NoPos, pkg, name, nil), u, nil)
}

// spellField is a struct with one field of pkg.
func spellField(pkg *types.Package, name string, typ types.Type) *types.Struct {
	return types.NewStruct([]*types.Var{types.NewField(token.NoPos, pkg, name, typ, false)}, nil)
}

// spellSig is a function type of package p with unnamed parameters and
// results.
func spellSig(p *types.Package, params, results []types.Type) *types.Signature {
	var ps, rs []*types.Var
	for _, x := range params {
		ps = append(ps, types.NewParam(token.NoPos, p, "", x))
	}
	for _, x := range results {
		rs = append(rs, types.NewParam(token.NoPos, p, "", x))
	}
	return types.NewSignatureType(nil, nil, nil, types.NewTuple(ps...), types.NewTuple(rs...), false)
}
