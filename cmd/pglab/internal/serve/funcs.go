package serve

import (
	"html/template"
	"strings"
)

// funcs are the templates' functions.
var funcs = template.FuncMap{
	"join": strings.Join,
}
