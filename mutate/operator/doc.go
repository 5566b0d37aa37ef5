// Package operator makes mutants: the generic operators, the catalog
// operators, and the driver that applies them.
//
// Every rewrite works on a clone (github.com/go-toolsmith/astcopy) of one
// file's AST, never on the original: the driver finds the clone's copy of
// the node by its preorder index, replaces or deletes it with an
// astutil.Apply cursor and prints the clone with go/format. Positions come
// from the original file. The printed source is parsed again and
// type-checked in process (go/types over the package's other files and the
// mutated one, importing the same dependency types the loader produced); a
// mutant that does not type-check carries the error in Mutant.Unviable and
// is reported unviable without a build. A rewrite whose output equals the
// original (gofmt'd) file is dropped, and mutants with the same file and
// resulting source are produced once.
//
// # Generic operators
//
// Operators are data (Operator: name, doc, example, a Mutate function),
// run by one driver (Generate) over every non-test, non-generated file, in
// the spirit of go/analysis. Type information keeps them from producing
// code that cannot compile when a type-correct replacement exists. Names
// are stable: they appear in ids, reports, suppression comments and
// catalog Equivalents.
//
//	arith         a + b -> a - b, a - b -> a + b, a * b -> a / b, a / b -> a * b, a % b -> a * b;
//	              numeric operands only (no - on strings); no x / 0 for x * 0
//	boundary      i < n -> i <= n, <= -> <, > -> >=, >= -> >
//	negate        a == b -> a != b, != -> ==, < -> >=, <= -> >, > -> <=, >= -> <
//	logical       a && b -> a || b, || -> &&
//	bitwise       a & b -> a | b, | -> &, ^ -> &, &^ -> & (integers)
//	shift         a << n -> a >> n, >> -> <<
//	unary-not     !ok -> ok
//	unary-minus   -x -> x (numeric)
//	incdec        i++ -> i--, -- -> ++
//	assign        x += y -> x -= y (not on strings), -= -> +=, *= -> /=, /= -> *=, %= -> *=,
//	              |= -> &=, &= -> |=, ^= -> &=, &^= -> &=, <<= -> >>=, >>= -> <<=;
//	              and x op= y -> x = y where y is assignable to x (not for shifts)
//	const-int     256 -> 257 and 256 -> 255 (n+1 always, n-1 for n > 0); not in array lengths
//	const-float   0.5 -> 1.5 (x+1, kept a float literal; skipped where x+1 == x)
//	remove-stmt   n = n * 2 -> (removed): assignments other than := and "_ = x",
//	              ++/--, sends, defer, go, and expression statements that are not calls
//	remove-call   wg.Done() -> (removed): a call used as a statement
//	zero-return   return n, err -> return 0, err and return n, nil: each result that is not
//	              already zero becomes its type's zero value (0, "", false, nil, T{}, *new(T));
//	              error results included, since a swallowed error is the commonest gap
//	branch-if     if c { f() } -> if c { }
//	branch-true   if c { -> if true {
//	branch-false  if c { a() } else { b() } -> if false { ... (only with an else: without one
//	              it behaves like branch-if)
//	branch-else   if c { a() } else { b() } -> if c { a() }
//	branch-case   case 1: f() -> case 1:
//	loop-control  break -> continue, continue -> break (inside a loop of the same function)
//
// A mutant's reported range, and the range whose coverage decides which
// tests run it, is the node it changes; branch-else, branch-case and
// zero-return report the else branch, the case body and the one result.
//
// # Suppression
//
// A comment //gathermut:equivalent <reason> on a line, or alone on the line
// above, marks that line's generic mutants equivalent;
// //gathermut:equivalent(boundary,negate) <reason> limits it to those
// operators. Catalog Equivalents (Package required; Func, Operator,
// Original, Replacement match anything when empty) do the same. Either
// makes the mutant Ignored with its reason. A suppression without a reason,
// or naming an unknown operator, is an error.
//
// # Catalog operators
//
// Resolve turns a catalog.Entry into exactly one mutant, or fails when the
// target is missing, matches more than once, or the rewrite changes
// nothing. Target.Func names the scope: "Name", "(*T).Name", "T.Name",
// "init", or a package-level var/const; when several declarations share the
// name (several init functions) all are searched and the match must still
// be unique; Target.File narrows the search. Matches compare gofmt'd
// source: Match is parsed and printed first, so "x*f" matches "x * f".
// Catalog operators apply to generated files too.
//
//	delete-call     the one call in Func whose callee (gather.Embedding, mustRegister) or whole
//	                call text is Match: its statement is removed when it is an expression,
//	                defer or go statement; otherwise the call becomes the typed zero values of
//	                its results (err := check(x) -> err := error(nil); n, err := f() -> n, err :=
//	                int(0), error(nil))
//	delete-element  the element keyed Match (or the unkeyed element whose source is Match) of
//	                the composite literal in Func is removed
//	replace-value   the value of the element keyed Match (its field Field when set) becomes
//	                Replacement; with Match empty, the initializer of the var/const Func does
//	replace-expr    the one expression in Func whose source is Match becomes Replacement
//	kernel-text     the one occurrence of Match in the non-Go file Target.File becomes
//	                Replacement; not type-checked (the kernel build decides)
package operator
