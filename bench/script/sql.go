package script

import (
	"strconv"
	"strings"
)

// sqlPart is a piece of SQL text: a literal, or a variable reference.
type sqlPart struct {
	lit  string
	slot int    // -1 for a literal
	raw  string // ":name", kept when the variable is not set (simple mode)
}

// bindSQL finds the variable references of an SQL command as pgbench's
// parseVariable does: a ':' followed by a letter, '_' or non-ASCII byte,
// then letters, digits, '_' and non-ASCII bytes. Other colons (as in "::")
// are left alone. Quotes are not considered: ':x' inside a string literal is
// a reference too, as in pgbench.
func (p *scriptParser) bindSQL(cmd *Command) {
	text := cmd.SQL
	var parts []sqlPart
	var ext strings.Builder
	last := 0
	i := 0
	for i < len(text) {
		j := strings.IndexByte(text[i:], ':')
		if j < 0 {
			break
		}
		i += j
		if i+1 < len(text) && isVarStart(text[i+1]) {
			end := i + 2
			for end < len(text) && isVarChar(text[end]) {
				end++
			}
			name := text[i+1 : end]
			if i > last {
				parts = append(parts, sqlPart{lit: text[last:i], slot: -1})
			}
			slot := p.syms.Intern(name)
			parts = append(parts, sqlPart{slot: slot, raw: text[i:end]})
			ext.WriteString(text[last:i])
			cmd.paramSlots = append(cmd.paramSlots, slot)
			cmd.paramNames = append(cmd.paramNames, name)
			ext.WriteByte('$')
			ext.WriteString(strconv.Itoa(len(cmd.paramSlots)))
			last = end
			i = end
			continue
		}
		for i < len(text) && text[i] == ':' {
			i++
		}
	}
	if last < len(text) {
		parts = append(parts, sqlPart{lit: text[last:], slot: -1})
	}
	ext.WriteString(text[last:])
	cmd.parts = parts
	cmd.paramSQL = ext.String()
}

// AppendSQL appends the command's text with variables substituted as in
// pgbench's simple query mode (assignVariables): each :name whose variable
// is set is replaced by the variable's text; references to unset variables
// are left as they are. It does not allocate when dst has room.
func (c *Command) AppendSQL(dst []byte, vars *Variables) []byte {
	for i := range c.parts {
		part := &c.parts[i]
		if part.slot < 0 {
			dst = append(dst, part.lit...)
			continue
		}
		if t, ok := vars.Text(part.slot); ok {
			dst = append(dst, t...)
		} else {
			dst = append(dst, part.raw...)
		}
	}
	return dst
}

// ParamSQL returns the command's text with each variable reference replaced
// by $1, $2, ... in order, as pgbench sends it in extended and prepared modes
// (parseQuery). Every reference gets its own parameter, even when a variable
// is used twice.
func (c *Command) ParamSQL() string { return c.paramSQL }

// NumParams returns the number of parameters of ParamSQL.
func (c *Command) NumParams() int { return len(c.paramSlots) }

// ParamNames returns the variable names of $1, $2, ... in order.
func (c *Command) ParamNames() []string { return c.paramNames }

// ParamSlots returns the variable slots of $1, $2, ... in order.
func (c *Command) ParamSlots() []int { return c.paramSlots }

// AppendParams appends the text values of $1, $2, ... (pgbench's
// getQueryParams): a nil entry for an unset variable, which is sent as SQL
// NULL. The slices point into vars and stay valid until the variables are
// next assigned. It does not allocate when dst has room.
func (c *Command) AppendParams(dst [][]byte, vars *Variables) [][]byte {
	for _, slot := range c.paramSlots {
		t, ok := vars.Text(slot)
		if !ok {
			t = nil
		}
		dst = append(dst, t)
	}
	return dst
}

// CheckParams returns a *TooManyParamsError if an SQL command has more than
// MaxParams variable references. pgbench checks this only in extended and
// prepared modes, after parsing all scripts; the engine calls it then.
func (s *Script) CheckParams() error {
	for _, c := range s.Commands {
		if c.Type == SQLCommand && len(c.paramSlots) > MaxParams {
			return &TooManyParamsError{SQL: c.SQL}
		}
	}
	return nil
}
