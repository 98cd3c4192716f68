package capture

import (
	"errors"
	"strconv"
)

// zoneOffsets are the UTC offsets, in seconds, of the time zone
// abbreviations PostgreSQL's logs commonly carry (log_timezone). Numeric
// ones ("+03", "-0530", "+05:30") are read as numbers.
var zoneOffsets = map[string]int64{
	"UTC": 0, "GMT": 0, "Z": 0, "UT": 0, "WET": 0, "WEST": 3600, "BST": 3600,
	"CET": 3600, "CEST": 7200, "MET": 3600, "MEST": 7200, "EET": 7200, "EEST": 10800,
	"MSK": 10800, "EST": -18000, "EDT": -14400, "CST": -21600, "CDT": -18000,
	"MST": -25200, "MDT": -21600, "PST": -28800, "PDT": -25200, "AKST": -32400,
	"AKDT": -28800, "HST": -36000, "JST": 32400, "KST": 32400, "HKT": 28800,
	"AWST": 28800, "ACST": 34200, "ACDT": 37800, "AEST": 36000, "AEDT": 39600,
	"NZST": 43200, "NZDT": 46800, "SAST": 7200, "PKT": 18000, "WIB": 25200,
}

// timeParser reads PostgreSQL's log timestamps, "2026-12-02 18:24:58.419 UTC"
// (%m, csvlog, jsonlog) or without milliseconds (%t, session start), into
// microseconds since the Unix epoch. It remembers the abbreviations it did
// not know (taken as UTC: offsets within a log stay right unless the zone
// changes in the middle, as at a daylight saving change).
type timeParser struct {
	unknown map[string]bool
}

// parse returns the time of s in microseconds since the epoch.
func (p *timeParser) parse(s string) (int64, error) {
	// 2006-01-02 15:04:05[.000] ZONE
	if len(s) < 19 || s[4] != '-' || s[7] != '-' || s[10] != ' ' || s[13] != ':' || s[16] != ':' {
		return 0, errNotTimestamp
	}
	var n [6]int64
	for i, at := range [6]int{0, 5, 8, 11, 14, 17} {
		w := 2
		if i == 0 {
			w = 4
		}
		v, ok := digits(s[at : at+w])
		if !ok {
			return 0, errNotTimestamp
		}
		n[i] = v
	}
	rest := s[19:]
	var us int64
	if len(rest) > 0 && rest[0] == '.' {
		j := 1
		for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
			j++
		}
		frac := rest[1:j]
		v, _ := digits(frac)
		for k := len(frac); k < 6; k++ {
			v *= 10
		}
		for k := len(frac); k > 6; k-- {
			v /= 10
		}
		us = v
		rest = rest[j:]
	}
	off := int64(0)
	if len(rest) > 1 && rest[0] == ' ' {
		off = p.zoneOffset(rest[1:])
	}
	days := daysFromCivil(n[0], n[1], n[2])
	secs := days*86400 + n[3]*3600 + n[4]*60 + n[5] - off
	return secs*1_000_000 + us, nil
}

// zoneOffset returns a zone's UTC offset in seconds.
func (p *timeParser) zoneOffset(z string) int64 {
	if off, ok := zoneOffsets[z]; ok {
		return off
	}
	if len(z) >= 2 && (z[0] == '+' || z[0] == '-') {
		if off, ok := numericZone(z[1:]); ok {
			if z[0] == '-' {
				return -off
			}
			return off
		}
	}
	if p.unknown == nil {
		p.unknown = map[string]bool{}
	}
	p.unknown[z] = true
	return 0
}

// numericZone reads "03", "0530", "05:30" as seconds.
func numericZone(s string) (int64, bool) {
	h, m := s, ""
	switch {
	case len(s) == 5 && s[2] == ':':
		h, m = s[:2], s[3:]
	case len(s) == 4:
		h, m = s[:2], s[2:]
	}
	hv, ok := digits(h)
	if !ok || len(h) > 2 {
		return 0, false
	}
	mv := int64(0)
	if m != "" {
		if mv, ok = digits(m); !ok {
			return 0, false
		}
	}
	return hv*3600 + mv*60, true
}

// digits reads a run of decimal digits.
func digits(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	var v int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	return v, true
}

// daysFromCivil returns the days since 1970-01-01 of a proleptic Gregorian
// date (Howard Hinnant's algorithm).
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// parseEpoch reads %n, seconds since the epoch with milliseconds
// ("1764699898.419").
func parseEpoch(s string) (int64, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, errNotTimestamp
	}
	return int64(f*1000+0.5) * 1000, nil
}

// errNotTimestamp is a field that is not a log time stamp (its text is not
// quoted: a file that is not a log may hold anything, passwords too).
var errNotTimestamp = errors.New("no log time stamp where one belongs")
