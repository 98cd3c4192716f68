package script

// IfState is the state of one \if level, as fe_utils/conditional.h's
// ifState, which pgbench uses to run and to check conditionals.
type IfState uint8

// The states of an \if level.
const (
	IfNone      IfState = iota // not inside an \if
	IfTrue                     // in a true branch: run commands
	IfFalse                    // no true branch yet: skip, and evaluate \elif
	IfIgnored                  // a branch was taken, or the \if is skipped
	IfElseTrue                 // in an \else that runs
	IfElseFalse                // in an \else that is skipped
)

// CondStack is a stack of \if states. The zero value is an empty stack.
// pgbench's engine keeps one per client; it must be empty at the end of each
// script (a parsed script's nesting is always balanced).
type CondStack struct {
	states []IfState
}

// Push enters a new \if level.
func (s *CondStack) Push(st IfState) { s.states = append(s.states, st) }

// Pop leaves the current level; it returns false if the stack was empty.
func (s *CondStack) Pop() bool {
	if len(s.states) == 0 {
		return false
	}
	s.states = s.states[:len(s.states)-1]
	return true
}

// Peek returns the current level's state, IfNone when empty.
func (s *CondStack) Peek() IfState {
	if len(s.states) == 0 {
		return IfNone
	}
	return s.states[len(s.states)-1]
}

// Poke replaces the current level's state; it returns false if empty.
func (s *CondStack) Poke(st IfState) bool {
	if len(s.states) == 0 {
		return false
	}
	s.states[len(s.states)-1] = st
	return true
}

// Empty reports whether no \if is open.
func (s *CondStack) Empty() bool { return len(s.states) == 0 }

// Depth returns the number of open \if levels.
func (s *CondStack) Depth() int { return len(s.states) }

// Reset empties the stack (pgbench does so after an error).
func (s *CondStack) Reset() { s.states = s.states[:0] }

// Active reports whether commands run at this point: the stack is empty or
// the current level is IfTrue or IfElseTrue (conditional_active).
func (s *CondStack) Active() bool {
	st := s.Peek()
	return st == IfNone || st == IfTrue || st == IfElseTrue
}
