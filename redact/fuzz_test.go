package redact

import (
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// dsnForm is a connection string built around a password: before + secret +
// after, where secret is the password as that form writes it, and masked is
// what the redacted string holds in its place.
type dsnForm struct{ before, secret, after, masked string }

// dsnForms writes user and pw in every form a DSN takes: a URL, key=value
// strings with a quoted value, a URL inside free text, and a query parameter.
func dsnForms(user, pw string) []dsnForm {
	userURL := url.User(user).String()
	pwURL := strings.TrimPrefix(url.UserPassword("", pw).String(), ":")
	quoted := "'" + strings.ReplaceAll(strings.ReplaceAll(pw, `\`, `\\`), `'`, `\'`) + "'"
	return []dsnForm{
		{"postgres://" + userURL + ":", pwURL, "@h/db", Mask},
		{"host=h password=", quoted, " user=" + url.PathEscape(user), "'" + Mask + "'"},
		{"password=", quoted, "", "'" + Mask + "'"},
		{"connect to postgres://" + userURL + ":", pwURL, "@h/db failed", Mask},
		{"postgres://" + url.PathEscape(user) + "@h/db?password=", url.QueryEscape(pw), "", Mask},
	}
}

// plainName is a user name that no redaction rule can mistake for anything.
var plainName = regexp.MustCompile(`^[A-Za-z0-9]+$`)

// FuzzDSN builds DSNs around a fuzzed password and user name and checks
// that redaction leaves no copy of the password that the rest of the string
// does not explain: with a plain user name the result is exactly the string
// with the password replaced by Mask; with any other user name (which may
// make the redactor hide more than the password) no occurrence of the
// password is added to what the expected string holds. Redacting twice
// changes nothing more.
func FuzzDSN(f *testing.F) {
	for _, s := range [][2]string{
		{"sekret", "me"}, {"p@ss:w/rd", "u@x"}, {"a b'c\\", "postgres"}, {"xxxxxy", "u:1"},
		{"pässwörd", "ü"}, {"%41%42", "u"}, {"pw\"q", "u"}, {"s p a c e", "u"},
		{"000000", "0@000000"}, {"a://b@c", "u"}, {"x y://z", "u"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pw, user string) {
		if len(pw) < 6 || user == "" || strings.ContainsAny(user, " \t\n\r\v\f='\\") || strings.ContainsAny(pw, "\t\n\r\v\f\x00") {
			return
		}
		for _, form := range dsnForms(user, pw) {
			dsn := form.before + form.secret + form.after
			want := form.before + form.masked + form.after
			got := DSN(dsn)
			if plainName.MatchString(user) && got != want {
				t.Errorf("DSN(%q) = %q, want %q", dsn, got, want)
			}
			// A mask put where the redactor hid more than the password can
			// join text into a new copy only through the mask's own letters.
			if !strings.ContainsAny(pw, Mask) {
				for _, s := range []string{pw, form.secret} {
					if strings.Count(got, s) > strings.Count(want, s) {
						t.Errorf("password %q survives in %q -> %q", pw, dsn, got)
					}
				}
			}
			if again := DSN(got); again != got {
				t.Errorf("not idempotent: %q -> %q -> %q", dsn, got, again)
			}
		}
	})
}
