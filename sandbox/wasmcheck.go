package sandbox

import (
	"errors"
	"fmt"
)

// The bounds pre-pass.
//
// wazero validates a module fully, but two things a module declares cost
// the host far more than the module's own size, and wazero bounds neither:
//
//   - Tables. A table is a slice of 8-byte references in Go's heap,
//     outside the linear memory that [RunConfig.Memory] caps. A table
//     declared with no maximum grows with table.grow until the process
//     dies (an 85-byte module reached 9 GB under a 16 MiB limit), and
//     wazero has no hook to refuse a grow: a declared maximum is the only
//     bound it enforces. So a module that grows tables must declare every
//     table's maximum, and the tables count against the run's memory
//     limit at their maxima (at their minima for a module that never
//     grows them: Go's linker declares no maximum and never grows).
//   - Nesting. wazero's compiler is slow on deeply nested blocks (60,000
//     nested empty blocks, 180 KB, compile for 10 s; 600 KB for minutes).
//     Real compilers nest a few hundred deep at most, so a depth over
//     maxNesting is refused before wazero sees the module.
//
// scanModule reads the sections it needs and each function body's
// instructions, which takes a few milliseconds per megabyte. Anything it
// cannot read is refused: wazero would refuse it too, and a pre-pass that
// let unknown bytes through could be walked past.

// Bounds of the pre-pass.
const (
	// maxNesting bounds the depth of nested blocks (block, loop, if, try)
	// in one function. The deepest real functions measured: skillrun's
	// shell (sh.wasm) 3,142 (gojq's init: Go's wasm backend nests one
	// block per call in a function, and that one makes about 3,000
	// calls), a Haskell Extism plugin 1,706, QuickJS (js.wasm) 1,307, Go
	// guests 549, CPython 3.11 276, Rust and C plugins under 40
	// (TestScanRealModules). wazero compiles 2,048 nested blocks in about
	// 60 ms, 4,096 in about 0.2 s, 8,000 in 0.7 s; maxNestingWork bounds
	// how many such functions one module may have.
	maxNesting = 4096
	// maxNestingWork bounds the sum over a module's functions of their
	// deepest nesting, squared: the compiler's time grows with the square
	// of the depth (wazero: 8 functions 8,000 deep, 7 s). QuickJS has
	// 17.6 Mi, a Go guest 2.9 Mi.
	maxNestingWork = 1 << 28
	// maxTables bounds the tables a module defines. Compilers emit one
	// (the indirect function table); reference-types code a few more.
	maxTables = 64
	// tableEntryBytes is what one table entry costs the host: wazero keeps
	// each reference as a uintptr.
	tableEntryBytes = 8
	// maxTableEntries bounds the entries of all a module's tables: 4 Mi
	// entries, 32 MiB of host memory. CPython's table has 4,191 entries,
	// a Go guest's about 6,300, QuickJS's 16,643.
	maxTableEntries = 4 << 20
)

// A boundError is a module refused by the pre-pass for a bound, not for
// being malformed.
type boundError struct{ msg string }

func (e *boundError) Error() string { return e.msg }

func boundf(format string, args ...any) error {
	return &boundError{fmt.Sprintf(format, args...)}
}

// moduleShape is what the pre-pass learned about a module.
type moduleShape struct {
	// tableBytes is the most host memory the module's tables can ever
	// take. Run counts it against the memory limit.
	tableBytes uint64
	// unsnapshottable, if not empty, says what state of the module an
	// instance's linear memory and exported globals do not hold, so a
	// snapshot of them would not restore it (snapshot.go).
	unsnapshottable string
	// mutableGlobals are the export names of the mutable globals, which
	// a snapshot saves and restores.
	mutableGlobals []string
}

// scanModule checks a module's tables and nesting depth before wazero
// compiles it; see above. The error names the bound and what to change.
func scanModule(wasm []byte) (moduleShape, error) {
	switch {
	case len(wasm) < 4 || string(wasm[:4]) != "\x00asm":
		return moduleShape{}, errors.New("invalid magic number") // as wazero says it
	case len(wasm) < 8 || string(wasm[4:8]) != "\x01\x00\x00\x00":
		return moduleShape{}, errors.New("invalid version header")
	}
	d := decoder{b: wasm[8:]}
	var sc scan
	for d.err == nil && len(d.b) > 0 {
		id := d.byte()
		size := d.u32()
		if d.err != nil || uint64(size) > uint64(len(d.b)) {
			return moduleShape{}, errors.New("a section is longer than the module")
		}
		body := decoder{b: d.b[:size]}
		d.skip(int(size))
		var err error
		switch id {
		case 2: // imports
			err = scanImports(&body)
		case 4: // tables
			err = sc.tables(&body)
		case 6: // globals
			err = sc.globals(&body)
		case 7: // exports
			err = sc.exports(&body)
		case 10: // code
			err = sc.code(&body)
		}
		if err == nil {
			err = body.err
		}
		if err != nil {
			return moduleShape{}, err
		}
	}
	if d.err != nil {
		return moduleShape{}, d.err
	}
	return sc.shape()
}

// scan is what scanModule collects across sections.
type scan struct {
	tableLimits []tableLimit
	flags       codeFlags
	nestingWork uint64
	mutable     []uint32          // the mutable globals
	exported    map[uint32]string // the exported globals' names
}

// codeFlags are what scanBody notes of the instructions.
type codeFlags struct {
	grows bool // a table.grow
	// state names the first instruction found that changes what a
	// snapshot does not hold: tables and dropped segments.
	state string
}

type tableLimit struct {
	min, max uint32
	hasMax   bool
}

// shape decides the tables' cost: a table that is never grown stays at
// its minimum; one that may be grown costs its maximum, and must have
// one.
func (sc *scan) shape() (moduleShape, error) {
	var entries uint64
	for i, t := range sc.tableLimits {
		switch {
		case !sc.flags.grows:
			entries += uint64(t.min)
		case !t.hasMax:
			return moduleShape{}, boundf("table %d declares no maximum size and the module grows tables (table.grow), "+
				"which could take the host's memory past any limit; declare a maximum for every table (wasm-ld: do not link with --growable-table)", i)
		default:
			entries += uint64(max(t.min, t.max))
		}
	}
	if entries > maxTableEntries {
		return moduleShape{}, boundf("the module's tables can hold %d entries (%s of host memory, outside the linear memory); skillrun allows at most %d in all",
			entries, size(entries*tableEntryBytes), maxTableEntries)
	}
	shape := moduleShape{tableBytes: entries * tableEntryBytes}
	for _, g := range sc.mutable {
		name, ok := sc.exported[g]
		if !ok {
			shape.unsnapshottable = fmt.Sprintf("mutable global %d is not exported (wasm-ld: --export=__stack_pointer)", g)
			break
		}
		shape.mutableGlobals = append(shape.mutableGlobals, name)
	}
	if sc.flags.state != "" {
		shape.unsnapshottable = "the code changes tables or segments (" + sc.flags.state + ")"
	}
	return shape, nil
}

// globals reads the global section: which globals are mutable.
func (sc *scan) globals(d *decoder) error {
	count := d.u32()
	for i := uint32(0); i < count && d.err == nil; i++ {
		d.leb(5) // value type
		if d.byte() == 1 {
			sc.mutable = append(sc.mutable, i)
		}
		// The initializer: a constant expression, up to its end.
		for d.err == nil {
			if len(d.b) == 0 {
				return fmt.Errorf("global %d: the initializer has no end", i)
			}
			op := d.byte()
			if op == 0x0b {
				break
			}
			if err := skipImmediates(d, op); err != nil {
				return fmt.Errorf("global %d: %w", i, err)
			}
		}
	}
	return nil
}

// exports reads the export section: which globals are exported.
func (sc *scan) exports(d *decoder) error {
	sc.exported = map[uint32]string{}
	count := d.u32()
	for i := uint32(0); i < count && d.err == nil; i++ {
		name := d.name()
		kind, index := d.byte(), d.u32()
		if _, dup := sc.exported[index]; kind == 3 && !dup {
			sc.exported[index] = name
		}
	}
	return nil
}

// scanImports refuses imported tables early: they are refused anyway (see
// checkModule), and an imported table's size is the host's to choose.
func scanImports(d *decoder) error {
	count := d.u32()
	for i := uint32(0); i < count && d.err == nil; i++ {
		mod, name := d.name(), d.name()
		switch kind := d.byte(); kind {
		case 0:
			d.u32()
		case 1:
			return boundf("the module imports table %s.%s; skillrun provides no tables", mod, name)
		case 2:
			d.limits()
		case 3:
			d.leb(5) // value type (a heap type may be an index)
			d.byte() // mutability
		default:
			return fmt.Errorf("import %s.%s has kind %#x, which is not a function, table, memory or global", mod, name, kind)
		}
	}
	return nil
}

// tables reads the table section.
func (sc *scan) tables(d *decoder) error {
	if sc.tableLimits != nil {
		return errors.New("the module has two table sections")
	}
	count := d.u32()
	if count > maxTables {
		return boundf("the module defines %d tables; skillrun allows at most %d", count, maxTables)
	}
	sc.tableLimits = make([]tableLimit, 0, count)
	for i := uint32(0); i < count && d.err == nil; i++ {
		d.leb(5) // reference type
		flags := d.byte()
		if flags&^1 != 0 {
			return fmt.Errorf("table %d has limits flags %#x; only 32-bit tables are supported", i, flags)
		}
		t := tableLimit{min: d.u32(), hasMax: flags&1 != 0}
		if t.hasMax {
			t.max = d.u32()
		}
		sc.tableLimits = append(sc.tableLimits, t)
	}
	return nil
}

// code checks the nesting depth of every function body and notes a
// table.grow.
func (sc *scan) code(d *decoder) error {
	count := d.u32()
	for i := uint32(0); i < count && d.err == nil; i++ {
		size := d.u32()
		if d.err != nil || uint64(size) > uint64(len(d.b)) {
			return fmt.Errorf("function body %d is longer than the code section", i)
		}
		fn := decoder{b: d.b[:size]}
		d.skip(int(size))
		deepest, err := scanBody(&fn, &sc.flags)
		sc.nestingWork += uint64(deepest) * uint64(deepest)
		if err == nil && sc.nestingWork > maxNestingWork {
			err = boundf("the module's nesting work (the sum over functions of their deepest nesting, squared) passes %d; skillrun refuses such modules, which take minutes to compile", maxNestingWork)
		}
		if err != nil {
			if b, ok := errors.AsType[*boundError](err); ok {
				return boundf("function body %d: %s", i, b.msg)
			}
			return fmt.Errorf("function body %d: %w", i, err)
		}
	}
	return nil
}

// scanBody reads one function body's locals and instructions, tracking
// the nesting depth of blocks, and notes in flags the instructions that
// change tables or drop segments.
func scanBody(d *decoder, flags *codeFlags) (deepest int, err error) {
	groups := d.u32()
	for i := uint32(0); i < groups && d.err == nil; i++ {
		d.u32()  // how many
		d.leb(5) // value type
	}
	depth := 0
	for d.err == nil {
		if len(d.b) == 0 {
			return deepest, errors.New("the body ends inside a block")
		}
		op := d.byte()
		switch {
		case op == 0x02 || op == 0x03 || op == 0x04 || op == 0x06: // block, loop, if, try
			d.leb(5) // block type
			depth++
		case op == 0x1f: // try_table
			d.leb(5)
			for n := d.u32(); n > 0 && d.err == nil; n-- {
				switch kind := d.byte(); kind {
				case 0, 1: // catch, catch_ref: tag and label
					d.u32()
					d.u32()
				default: // catch_all, catch_all_ref: label
					d.u32()
				}
			}
			depth++
		case op == 0x0b: // end
			depth--
			if depth < 0 {
				if len(d.b) != 0 {
					return deepest, errors.New("instructions after the function's end")
				}
				return deepest, d.err
			}
		case op == 0x18: // delegate ends a try
			d.u32()
			depth--
		default:
			if op == 0x26 && flags.state == "" {
				flags.state = "table.set"
			}
			if op == 0xfc && len(d.b) > 0 {
				// Sub-opcodes under 128 are one byte.
				if name := stateOps[d.b[0]]; name != "" && flags.state == "" {
					flags.state = name
				}
				flags.grows = flags.grows || d.b[0] == 15 // table.grow
			}
			if err := skipImmediates(d, op); err != nil {
				return deepest, err
			}
		}
		deepest = max(deepest, depth)
		if depth > maxNesting {
			return deepest, boundf("blocks nest more than %d deep; skillrun refuses deeper nesting, which makes compiling take minutes", maxNesting)
		}
	}
	return deepest, d.err
}

// stateOps are the 0xFC instructions that change state outside linear
// memory and globals, by sub-opcode.
var stateOps = map[byte]string{9: "data.drop", 12: "table.init", 13: "elem.drop", 14: "table.copy", 15: "table.grow", 17: "table.fill"}

// skipImmediates skips the immediates of instruction op (other than the
// block instructions scanBody handles).
func skipImmediates(d *decoder, op byte) error {
	switch {
	case op <= 0x01, op == 0x05, op == 0x0a, op == 0x0f, op == 0x19, op == 0x1a, op == 0x1b, op == 0xd1:
		// no immediates
	case op >= 0x45 && op <= 0xc4: // numeric
	case op == 0x07, op == 0x08, op == 0x09, op == 0x0c, op == 0x0d, op == 0x10, op == 0x12, op == 0x14, op == 0x15,
		op >= 0x20 && op <= 0x26, op == 0xd2:
		d.u32()
	case op == 0x11, op == 0x13: // call_indirect, return_call_indirect
		d.u32()
		d.u32()
	case op == 0x0e: // br_table
		for n := d.u32(); n > 0 && d.err == nil; n-- {
			d.u32()
		}
		d.u32()
	case op == 0x1c: // select t*
		for n := d.u32(); n > 0 && d.err == nil; n-- {
			d.leb(5)
		}
	case op >= 0x28 && op <= 0x3e:
		d.memarg()
	case op == 0x3f, op == 0x40: // memory.size, memory.grow
		d.u32()
	case op == 0x41:
		d.leb(5)
	case op == 0x42:
		d.leb(10)
	case op == 0x43:
		d.skip(4)
	case op == 0x44:
		d.skip(8)
	case op == 0xd0: // ref.null
		d.leb(5)
	case op == 0xfc:
		skipMisc(d, d.u32())
	case op == 0xfd:
		skipSIMD(d, d.u32())
	case op == 0xfe: // threads
		if sub := d.u32(); sub == 0x03 {
			d.byte() // atomic.fence
		} else {
			d.memarg()
		}
	default:
		return fmt.Errorf("opcode %#x is not a WebAssembly instruction skillrun knows", op)
	}
	return nil
}

// skipMisc skips the immediates of the 0xFC instruction sub.
func skipMisc(d *decoder, sub uint32) {
	switch {
	case sub <= 7: // saturating truncations
	case sub == 9, sub == 11, sub == 13, sub >= 15 && sub <= 17:
		d.u32()
	case sub == 8, sub == 10, sub == 12, sub == 14:
		d.u32()
		d.u32()
	default:
		d.fail(fmt.Errorf("instruction 0xfc %d is not one skillrun knows", sub))
	}
}

// skipSIMD skips the immediates of the 0xFD instruction sub.
func skipSIMD(d *decoder, sub uint32) {
	switch {
	case sub <= 11, sub == 92, sub == 93: // loads and stores
		d.memarg()
	case sub == 12, sub == 13: // v128.const, i8x16.shuffle
		d.skip(16)
	case sub >= 21 && sub <= 34: // extract and replace lane
		d.byte()
	case sub >= 84 && sub <= 91: // load and store lane
		d.memarg()
		d.byte()
	}
}

// leb skips a LEB128 number of at most n bytes.
func (d *decoder) leb(n int) {
	for i := 0; i < n; i++ {
		if d.byte()&0x80 == 0 {
			return
		}
	}
	d.fail(errors.New("LEB128 number too long"))
}

// memarg skips a memory argument: alignment (with a memory index when
// bit 6 is set, multi-memory) and offset (64-bit for memory64).
func (d *decoder) memarg() {
	if align := d.u32(); align&0x40 != 0 {
		d.u32()
	}
	d.leb(10)
}
