package pgserver

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Version is a PostgreSQL release number such as 17.10. Patch is only used
// by pre-10 style numbers and by npm package versions (17.10.0).
type Version struct {
	Major int
	Minor int
	Patch int
}

// String formats v as PostgreSQL does ("17.10").
func (v Version) String() string {
	if v.Patch != 0 {
		return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)
	}
	return fmt.Sprintf("%d.%d", v.Major, v.Minor)
}

// Less reports whether v sorts before w.
func (v Version) Less(w Version) bool {
	if v.Major != w.Major {
		return v.Major < w.Major
	}
	if v.Minor != w.Minor {
		return v.Minor < w.Minor
	}
	return v.Patch < w.Patch
}

// VersionSpec is what a user asks for: a major version ("17"), picking the
// newest build available, or an exact release ("17.10" or "17.10.0").
type VersionSpec struct {
	Major int
	Minor int // -1 when only the major was given
}

// String formats the spec as the user would type it.
func (s VersionSpec) String() string {
	if s.Minor < 0 {
		return strconv.Itoa(s.Major)
	}
	return fmt.Sprintf("%d.%d", s.Major, s.Minor)
}

// Matches reports whether v satisfies the spec.
func (s VersionSpec) Matches(v Version) bool {
	return v.Major == s.Major && (s.Minor < 0 || v.Minor == s.Minor)
}

// MinMajor is the oldest major version pglab works with.
const MinMajor = 13

var specRE = regexp.MustCompile(`^(\d{1,2})(?:\.(\d{1,3})(?:\.0)?)?$`)

// ParseVersionSpec parses "17", "17.10" or "17.10.0". Versions before 10
// (two-part majors) are not supported.
func ParseVersionSpec(s string) (VersionSpec, error) {
	t := strings.TrimSpace(s)
	t = strings.TrimPrefix(strings.TrimPrefix(t, "pg"), "PG")
	m := specRE.FindStringSubmatch(t)
	if m == nil {
		return VersionSpec{}, fmt.Errorf("invalid PostgreSQL version %q: want a major version such as 17 or a release such as 17.10", s)
	}
	major, _ := strconv.Atoi(m[1])
	if major < MinMajor {
		return VersionSpec{}, fmt.Errorf("PostgreSQL %s is not supported: pglab works with PostgreSQL %d and later", t, MinMajor)
	}
	spec := VersionSpec{Major: major, Minor: -1}
	if m[2] != "" {
		spec.Minor, _ = strconv.Atoi(m[2])
	}
	return spec, nil
}

var serverVersionRE = regexp.MustCompile(`\(PostgreSQL\)\s+(\d+)(?:\.(\d+))?(?:\.(\d+))?`)

// ParseVersionSpecs reads the versions of a command line's arguments,
// each one version or a comma-separated list ("16 17", "16,17"), in order;
// the first that does not parse is the error.
func ParseVersionSpecs(args []string) ([]VersionSpec, error) {
	specs := make([]VersionSpec, 0, len(args))
	for _, a := range args {
		for _, part := range strings.Split(a, ",") {
			spec, err := ParseVersionSpec(part)
			if err != nil {
				return nil, err
			}
			specs = append(specs, spec)
		}
	}
	return specs, nil
}

// parseServerVersion reads the output of `postgres --version`, e.g.
// "postgres (PostgreSQL) 17.10" or "postgres (PostgreSQL) 15.18 (Debian ...)".
func parseServerVersion(out string) (Version, error) {
	m := serverVersionRE.FindStringSubmatch(out)
	if m == nil {
		return Version{}, fmt.Errorf("unrecognised version output %q", strings.TrimSpace(out))
	}
	var v Version
	v.Major, _ = strconv.Atoi(m[1])
	if m[2] != "" {
		v.Minor, _ = strconv.Atoi(m[2])
	}
	if m[3] != "" {
		v.Patch, _ = strconv.Atoi(m[3])
	}
	return v, nil
}
