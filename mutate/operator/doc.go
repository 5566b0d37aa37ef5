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
// mutant that does not type-check is in state mutant.Unbuildable, the
// error in its Note, and is reported unviable without a build. A rewrite whose output equals the
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
//	const-int     256 -> 257 and 256 -> 255 (n+1 always, n-1 for n > 0); not in array lengths,
//	              not in tables nor where the value only tunes (below), not to a value the
//	              literal's type cannot hold (uint8 255 -> 256 would not compile), not where
//	              the callee's contract makes it the same call, not where every comparison
//	              the value reaches keeps its outcome (below)
//	const-float   0.5 -> 1.5 (x+1, kept a float literal; skipped where x+1 == x)
//	remove-stmt   n = n * 2 -> (removed): assignments other than := and "_ = x",
//	              ++/--, sends, defer, go, and expression statements that are not calls
//	remove-call   wg.Done() -> (removed): a call used as a statement
//	zero-return   return n, err -> return 0, err and return n, nil: each result that is not
//	              already zero becomes its type's zero value (0, "", false, nil, T{}, *new(T));
//	              error results included, since a swallowed error is the commonest gap;
//	              not a result discarded beside a non-nil error (below)
//	branch-if     if c { f() } -> if c { }
//	branch-true   if c { -> if true {
//	branch-false  if c { a() } else { b() } -> if false { ... (only with an else: without one
//	              it behaves like branch-if)
//	branch-else   if c { a() } else { b() } -> if c { a() }
//	branch-case   case 1: f() -> case 1:
//	loop-control  break -> continue, continue -> break (inside a loop of the same function)
//
// The fault operators (faults.go, issue 36) model the bugs the row's
// domain really gets (llama.cpp/ggml's history: a NaN's or a zero's sign,
// rounding order, races on shared counters, the order of checks on
// combined edge inputs, accelerated code installed without its CPU
// check). Each makes code that computes the same on ordinary inputs:
//
//	neg-form            -d -> 0 - d on floats, not constants: +0 where -d is -0. -1 * d is
//	                    not made: Go's compiler (and gcc's, clang's) rewrites a product
//	                    with -1 into the negation, even at -O0, so it is the same program
//	recip-div           x / n -> x * (1 / n) on floats: one ulp off (10/3 in float32);
//	                    not for a constant power of two, whose reciprocal is exact
//	fuse-product        float32(a*b) + c -> a*b + c: the explicit conversion rounds the
//	                    product and forbids its fusion into an FMA. gc fuses on arm64,
//	                    loong64, ppc64(le), riscv64, s390x and amd64 from GOAMD64=v3
//	                    (GOARCH, GOAMD64 from the environment); on any other target the
//	                    mutant is the same program and is Ignored with that reason
//	                    (Rewrite.Equivalent), so a run there still lists it
//	unlock-early        mu.Lock(); n++; mu.Unlock() -> mu.Lock(); mu.Unlock(); n++: a
//	                    simple statement (assignment other than :=, ++/--, call, send)
//	                    of a critical section moves after its Unlock of the same
//	                    receiver in the same list; under defer mu.Unlock() it moves
//	                    before the Lock (not above a name it uses). Only a concurrent
//	                    test under -race tells it apart
//	guard-swap          two adjacent if c { return ... } without else swap places; not
//	                    where they return the same, test one value against two
//	                    constants (disjoint), or where the first is the bare
//	                    if err != nil check of the call before (the value the next
//	                    guard reads means nothing beside the error, as discardedResults
//	                    says)
//	skip-feature-check  a CPU feature check becomes true on the install path: a bool
//	                    whose name (of an identifier, selector or call) holds avx, sse,
//	                    neon, fma, f16c, bmi, popcnt, simd, accel, sve, vnni, amx,
//	                    cpuhas or hascpu, either as a conjunct of an if whose body
//	                    assigns a func-typed variable, field or element (if hasAVX2 {
//	                    decode = decodeAVX2 }), or passed to a function of the package
//	                    that installs under that parameter (gather's
//	                    init() { setAccel(cpuHasAVX2) } -> setAccel(true), setAccel's
//	                    if on { c.fast = avx2Decoders[c.Type] }). A whole condition made
//	                    true is also branch-true's mutant: in the default set it is made
//	                    once (mutants with the same result are produced once)
//
// unlock-early and guard-swap reorder a statement list: the edit moves
// the statements' own text (comments between them stay in place), and the
// mutant's span is the statements that change places.
//
// All six are in the default set where they apply to the row (issue 36's
// ask), each for a class of real fault no other operator makes. On the
// row (go run ./mutate all --operators <the nine fault operators>
// -j 2 --no-cache, no catalog, the 2-core dev machine, amd64 v1) they
// made 72 Go mutants: neg-form 3 (1 killed), recip-div 3 (1 killed; three
// more of 1 / n, all survivors, are no longer made), fuse-product 22 (all
// Ignored: amd64 v1 does not fuse), unlock-early 7 (3 killed), guard-swap
// 36 (18 killed), skip-feature-check 1 (survived: no test runs init under
// a forced "no AVX2"). The survivors are the gaps the issue names (RMSNorm's
// ss / n, the order of the request checks, init's install path, the stats
// counters outside the lock, which only -race shows), and a few
// equivalents no syntactic rule tells apart (two guards no input meets
// both of: an empty key and a duplicate one). They stay default so that
// the report shows the gaps.
//
// Opt-in operators run only when named (--operators const-table, or
// "all"; "default" names the rest):
//
//	const-table   const-int on the elements and keys of a composite literal of
//	              16 or more elements: []int{1, 3, 7, 9, ...} -> []int{2, 3, 7, 9, ...}
//	const-tune    const-int on literals that only tune (tune.go): entries of package-level
//	              tables whose values the package does not compare or index with, make's
//	              capacities, map size hints and channel buffers, unexported constants
//	              used only as such sizes or array lengths (depths):
//	              make([]byte, 0, 64) -> make([]byte, 0, 65)
//
// A suppression or catalog Equivalent naming const-int covers const-table
// and const-tune mutants too (they were const-int's before they split
// off). This repository's .gathermut.json opts in to const-tune: the
// row's tables (codec traits, codebook values, scale tables, the test
// model's shape) are pinned bit for bit by its tests.
//
// A mutant's reported range, and the range whose coverage decides which
// tests run it, is the node it changes; branch-else, branch-case and
// zero-return report the else branch, the case body and the one result.
//
// # Default set: what the data said
//
// Every generic operator was run (this tool before these rules, -j 2,
// against each module's own tests) on three modules from the proxy and on
// this repository's full run of the row (5,591 mutants at tree ef22b553,
// where every survivor had since been killed or declared equivalent).
// Survivors include those no test covers; the share is of the mutants that
// ran (killed, survived, timed out):
//
//	                          mutants  killed  survived (not covered)  unviable  survived
//	google/btree v1.1.3           592     411       132 (38)                 44     24%
//	cespare/xxhash/v2 v2.3.0      342     263        69 (51)                  9     21%
//	google/uuid v1.6.0          1,686     804       558 (95)                300     40%
//	  const-int                 1,084     422       399 (25)                259     48%
//	    in literals of 16+        636     117       269 (0)                 250     70%
//	    of which table xvalues    511      46       231 (0)                 234
//	this repository (row)       5,591   5,132         0                     338      0%
//	  const-int                 2,051   1,958         0                      81
//	    in composite literals     297     297         0 (1-15 elements each)
//
// The other operators' survivors in btree and xxhash are spread thin
// (boundary 11 and 5, branch-if 26 and 7, zero-return 16 and 5, ...) and
// are equivalents of the module's own design (a B-tree's node-size
// invariants, free-list and copy-on-write paths that only save
// allocations, a callee that reads 8 of 9 bytes), which no syntactic rule
// tells from real gaps: the row's killed mutants sit in the same shapes.
// There, //gathermut:ignore and //gathermut:equivalent are the tools. Two
// places were noise in every module that had them, and are left out by
// default:
//
//   - integer literals in tables: every const-int mutant in a composite
//     literal of 16 or more elements (TableSize) came from uuid's lookup
//     tables, where 70% of those that ran survived (231 from the one
//     256-entry table xvalues: a hex table's 255 "not a digit" entries can
//     be any value a digit cannot be), while every one of the row's 297 in
//     smaller literals (struct fields, short lists) was killed. Such a table
//     is right or wrong as a whole and is checked, if at all, by a test of
//     the table; per-entry mutants add hundreds of survivors and
//     runs without information. They are the opt-in const-table operator.
//   - values the literal's type cannot hold: 252 of uuid's 259 unviable
//     const-int mutants were a byte's 255 made 256 (cannot compile); the
//     row had none. They are not made.
//
// Neither rule removes a mutant of the row (the same 5,970 mutants at this
// tree with or without them, gather/gathertest aside). uuid goes from
// 1,686 to 1,050 mutants; btree and xxhash are unchanged.
//
// A third rule follows Go's convention that a caller looks at no other
// result when the error is non-nil:
//
//   - results discarded beside a non-nil error: in a function whose last
//     result implements error, a return whose error is certainly non-nil
//     (a value of a concrete type such as &parseError{...}, a call of
//     fmt.Errorf or errors.New, or a variable v returned in the body of
//     "if v != nil" or "if ... && v != nil" that the body does not assign)
//     gets no generic mutant inside its other results, and zero-return does
//     not zero them: return 0, &geometryError{...} -> return 1, ... cannot
//     change a conforming caller. A result holding a call (other than a
//     conversion or len, cap, min, max, complex, real, imag) keeps its
//     mutants, since the call may have effects; the error result itself is
//     mutated as before (discardedResults).
//
// On the row (go run ./mutate list at tree a6edfb5, before and after) it
// removes 48 of 5,909 mutants: 42 const-int (40 of them 0 -> 1, and -1's
// 1 -> 0 and 1 -> 2), 5 zero-return and 1 unary-minus. In the full run m1 of the
// row, 5 of them survived (tensorGeometry's three 0 -> 1, readLines' two
// sum -> [32]byte{}), 1 was declared equivalent by hand (readID's 0 -> 1;
// the declaration is gone), and 42 were killed: 38 by tests that assert
// the value returned beside the error (TestRowSizeBytes: "returned 1 with
// its error", TestEncodeErrorResults, TestReadInt, ...), which still pin
// it, and cgoLib.gather's 4 by TestLibraryCalls. The rule trades those 42
// runs, which only checked the convention, for 6 survivors or hand-written
// equivalents that carried no information. On the foreign modules (same
// commands, -j 2, each module's own tests) it removes 16 of uuid's 1,050
// mutants, all survivors (Parse's and the constructors' uuid -> UUID{}
// beside an error; 9 ran, 7 no test covers), and none of btree's or
// xxhash's.
//
// # Less noise by default: values that only tune (issue 25)
//
// Run as a new user would (go run ./mutate all --dir <copy> -j 2
// --no-cache, each module's own tests, on the 2-core dev machine), on
// go-humanize v1.0.1, go-runewidth v0.0.16 and pkg/errors v0.9.1 (given a
// go.mod with go 1.13, and its TestStackTrace closure name accepting Go
// 1.22's TestStackTrace.TestStackTrace.func2.func3), with the operators
// of tree 2bbcfc8 (before) and with the rules below (after):
//
//	                       mutants        survived (not covered)   real gaps in a sample of 20 survivors
//	                       before  after  before     after          before          after
//	go-humanize v1.0.1       877    830   111 (5)    76 (5)         5 of 20         13 of 20
//	go-runewidth v0.0.16     454    434   111 (7)    91 (7)         10 of 20        13 of 20
//	pkg/errors v0.9.1        135    133     3 (0)     1 (0)         1 of 3 (all)    1 of 1 (all)
//	the row (default ops)  5,844  5,770     0          0            -               -
//
// A real gap is a mutant some input of the package's API tells apart and
// no test gives; noise is a mutant no input tells apart (an equivalent)
// or one only a test of the constant's exact value would (a power-of-ten
// multiplier off by one, a stack depth). Each sample is 20 survivors (all
// of pkg/errors'), drawn from the survivors sorted by id (Python's
// random.Random(25).shuffle, the first 20) and judged by reading the
// code; the commit that added this table lists them, one line each.
// Counted over the three modules, 27 of the 41 sampled survivors after
// are real gaps (65.9%; 16 of 43 before, 37%): the target of 2 in 3 is
// met by pkg/errors and missed by one survivor in each of the other two.
// Every real gap of the before samples is still made and still survives
// after (go-humanize's relative-time thresholds, {2 * time.Minute, ...}
// read as magnitudes[i].D > diff, are why a table's compared columns
// stay const-int's; go-runewidth's mblenTable 2 -> 1 crossings, why only
// the comparisons that keep their outcome go). What moved or went:
//
//   - const-tune (opt-in): go-humanize's renderFloatPrecisionMultipliers
//     (20 mutants, read only as a multiplier) and defaultMagnitudes' DivBy
//     column (18, a divisor of the %d argument); pkg/errors' callers depth
//     (2, an array length). On the row, 74 mutants of its tables (the
//     project file opts back in: go run ./mutate list gives the same
//     5,844 mutants as before).
//   - no mutant where the callee's documented contract makes it the same
//     call (sameCall): a negative count or precision of strings.Replace,
//     SplitN, strconv.FormatFloat, big.Float.Text, regexp's FindAll* to
//     another negative one, strconv.ParseFloat's bitSize 64 to 63 or 65
//     (go-humanize: 8 mutants, all survivors).
//   - no mutant of a literal the package only compares with constants,
//     whose comparisons all keep their outcome (sameOutcome): go-runewidth's
//     mblenTable, read as m, ok := t[k]; max = m; max > 1, keeps 2 -> 1
//     and loses 2 -> 3 (20 mutants, all survivors).
//   - results beside a package-level sentinel error (errors.New or
//     fmt.Errorf, never assigned) are discarded like those beside
//     fmt.Errorf (go-humanize: 1 mutant, a survivor).
//
// What the samples still call noise after are equivalents that no
// syntactic rule tells from real gaps: of const-int, a make length whose
// extra slot is never read, strings.Index(...) >= 0 made >= 1 where the
// index is never 0, 0x110000 made 0x110001 and then halved; of other
// operators, pos += x where pos is still 0, an early return the loop
// after it would reach anyway, a float result its one caller drops.
//
// # Suppression
//
// A comment //gathermut:equivalent <reason> on a line, or alone on the line
// above, marks that line's generic mutants equivalent;
// //gathermut:equivalent(boundary,negate) <reason> limits it to those
// operators. Catalog Equivalents (Package required; Func, Operator,
// Original, Replacement match anything when empty; Line, when set, must
// occur in the mutant's source line) do the same, for Go, assembly and
// kernel mutants alike. Either
// makes the mutant Ignored with its reason. A suppression without a reason,
// or naming an unknown operator, is an error.
//
// //gathermut:ignore <reason> (IgnorePrefix) goes further: in the doc
// comment of a func, of a var, const or type declaration or one of its
// specs (or on a spec's line), no generic mutant is made inside it; above
// the package clause, none in the file. It is for code not worth mutating
// (debugging aids, performance-only paths), where equivalent is for one
// mutant no test can tell apart. Anywhere else, or without a reason, it
// is an error. Generate counts what it took out (Stats).
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
