package script

import (
	"errors"
	"fmt"
)

// runOnce runs one transaction of s for one client the way pgbench's
// advanceConnectionState does for meta-commands, including the skipping of
// false \if branches. SQL commands are not sent: their simple-mode text is
// returned. It stands in for the engine in tests.
func runOnce(s *Script, env *Env) ([]string, error) {
	var sqls []string
	var cs CondStack
	i := 0
	skipping := false
	for i < len(s.Commands) {
		cmd := s.Commands[i]
		env.Command = i
		if skipping {
			if cmd.Type == MetaCommand && (cmd.Meta == MetaIf || cmd.Meta == MetaElif || cmd.Meta == MetaElse || cmd.Meta == MetaEndif) {
				switch cs.Peek() {
				case IfFalse:
					switch cmd.Meta {
					case MetaIf:
						cs.Push(IfIgnored)
						i++
					case MetaElif:
						skipping = false // evaluate it
					case MetaElse:
						cs.Poke(IfElseTrue)
						skipping = false
						i++
					case MetaEndif:
						cs.Pop()
						skipping = !cs.Active()
						i++
					}
				case IfIgnored, IfElseFalse:
					if cmd.Meta == MetaIf {
						cs.Push(IfIgnored)
					} else if cmd.Meta == MetaEndif {
						cs.Pop()
						skipping = !cs.Active()
					}
					i++
				default:
					return nil, errors.New("inconsistent conditional state")
				}
			} else {
				i++
			}
			continue
		}
		switch cmd.Type {
		case SQLCommand:
			sqls = append(sqls, string(cmd.AppendSQL(nil, env.Vars)))
		case MetaCommand:
			switch cmd.Meta {
			case MetaSet:
				if err := cmd.ExecSet(env); err != nil {
					return sqls, err
				}
			case MetaIf:
				b, err := cmd.EvalCondition(env)
				if err != nil {
					return sqls, err
				}
				if b {
					cs.Push(IfTrue)
				} else {
					cs.Push(IfFalse)
				}
			case MetaElif:
				if cs.Peek() == IfTrue {
					cs.Poke(IfIgnored)
				} else {
					b, err := cmd.EvalCondition(env)
					if err != nil {
						return sqls, err
					}
					if b {
						cs.Poke(IfTrue)
					} else {
						cs.Poke(IfFalse)
					}
				}
			case MetaElse:
				if cs.Peek() == IfTrue {
					cs.Poke(IfElseFalse)
				}
			case MetaEndif:
				cs.Pop()
			case MetaSleep:
				if _, err := cmd.SleepMicros(env.Vars); err != nil {
					return sqls, err
				}
			case MetaShell, MetaSetshell:
				if _, err := cmd.ShellCommand(env.Vars); err != nil {
					return sqls, err
				}
			}
		default:
			return sqls, fmt.Errorf("command %d has no type", i)
		}
		i++
		skipping = !cs.Active()
	}
	if !cs.Empty() {
		return sqls, errors.New("conditional stack not empty at end of script")
	}
	return sqls, nil
}
