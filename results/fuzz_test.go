package results

import (
	"net/url"
	"strings"
	"testing"
)

// FuzzRedactDSN builds DSNs around a fuzzed password, in both libpq forms
// and inside free text, and checks that the password never survives
// redaction (when it is not also part of the rest of the string) and that
// redacting twice changes nothing more.
func FuzzRedactDSN(f *testing.F) {
	for _, s := range [][2]string{
		{"sekret", "me"}, {"p@ss:w/rd", "u@x"}, {"a b'c\\", "postgres"}, {"xxxxxy", "u:1"},
		{"pässwörd", "ü"}, {"%41%42", "u"}, {"pw\"q", "u"}, {"s p a c e", "u"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pw, user string) {
		if len(pw) < 6 || user == "" || strings.ContainsAny(user, " \t\n\r\v\f='\\") || strings.ContainsAny(pw, "\t\n\r\v\f\x00") {
			return
		}
		if strings.Contains(url.PathEscape(user), url.QueryEscape(pw)) || strings.Contains(url.PathEscape(user), url.PathEscape(pw)) || strings.Contains(user, pw) {
			return // the password is part of the user name: nothing to tell apart
		}
		u := &url.URL{Scheme: "postgres", User: url.UserPassword(user, pw), Host: "h", Path: "/db"}
		quoted := "'" + strings.ReplaceAll(strings.ReplaceAll(pw, `\`, `\\`), `'`, `\'`) + "'"
		forms := []string{
			u.String(),
			"host=" + "h" + " password=" + quoted + " user=" + url.PathEscape(user),
			"password=" + quoted,
			"connect to " + u.String() + " failed",
			"postgres://" + url.PathEscape(user) + "@h/db?password=" + url.QueryEscape(pw),
		}
		for _, dsn := range forms {
			rest := strings.ReplaceAll(dsn, pw, "")
			rest = strings.ReplaceAll(rest, url.QueryEscape(pw), "")
			rest = strings.ReplaceAll(rest, url.UserPassword(user, pw).String(), "")
			got := RedactDSN(dsn)
			for _, enc := range []string{pw, url.QueryEscape(pw), url.PathEscape(pw)} {
				if strings.Contains(got, enc) && !strings.Contains(rest, enc) && !strings.Contains(Mask, enc) {
					t.Errorf("password %q survives in %q -> %q", pw, dsn, got)
				}
			}
			if again := RedactDSN(got); again != got {
				t.Errorf("not idempotent: %q -> %q -> %q", dsn, got, again)
			}
		}
	})
}
