package script

// Symbols is the table of variable names of one benchmark run, shared by all
// its scripts and clients. Parsing a script interns every variable name the
// script reads or writes, so that evaluation works on integer slots instead of
// names. The engine adds its own names (scale, client_id, random_seed,
// default_seed, -D variables) through Variables.Define* or Intern.
//
// Symbols is not safe for concurrent modification: build it completely
// (parse all scripts, define the run's variables) and call Freeze before
// clients start. A frozen table never changes, so it is safe to share; names
// it lacks are then read by no script, and assigning them (Variables'
// Define* and StoreColumn) only checks the name and drops the value.
type Symbols struct {
	names  []string
	index  map[string]int
	frozen bool
}

// Freeze makes the table read-only: Intern no longer adds names and Parse
// refuses it.
func (s *Symbols) Freeze() { s.frozen = true }

// Frozen reports whether Freeze was called.
func (s *Symbols) Frozen() bool { return s.frozen }

// NewSymbols returns an empty symbol table.
func NewSymbols() *Symbols {
	return &Symbols{index: make(map[string]int)}
}

// Intern returns the slot of name, adding the name if it is new. On a
// frozen table it returns -1 for a new name.
func (s *Symbols) Intern(name string) int {
	if slot, ok := s.index[name]; ok {
		return slot
	}
	if s.frozen {
		return -1
	}
	slot := len(s.names)
	s.names = append(s.names, name)
	s.index[name] = slot
	return slot
}

// Lookup returns the slot of name and whether it exists.
func (s *Symbols) Lookup(name string) (int, bool) {
	slot, ok := s.index[name]
	return slot, ok
}

// lookupBytes is Lookup for a byte-slice name, without allocating.
func (s *Symbols) lookupBytes(name []byte) (int, bool) {
	slot, ok := s.index[string(name)]
	return slot, ok
}

// Name returns the name of a slot, or "" for an unknown slot.
func (s *Symbols) Name(slot int) string {
	if slot < 0 || slot >= len(s.names) {
		return ""
	}
	return s.names[slot]
}

// Len returns the number of names.
func (s *Symbols) Len() int { return len(s.names) }

// ValidVariableName reports whether name is a valid pgbench variable name
// (valid_variable_name): not empty, made of ASCII letters, digits, '_' and
// non-ASCII bytes, and not starting with a digit.
func ValidVariableName(name string) bool {
	if name == "" {
		return false
	}
	if !isVarStart(name[0]) {
		return false
	}
	for i := 1; i < len(name); i++ {
		if !isVarChar(name[i]) {
			return false
		}
	}
	return true
}

func validNameBytes(name []byte) bool {
	if len(name) == 0 || !isVarStart(name[0]) {
		return false
	}
	for _, c := range name[1:] {
		if !isVarChar(c) {
			return false
		}
	}
	return true
}

func isVarStart(c byte) bool {
	return c >= 0x80 || c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isVarChar(c byte) bool { return isVarStart(c) || isDigit(c) }
