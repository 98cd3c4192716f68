// Package serve is pglab's read-only web UI over a results store: the
// runs (/), one run with its report and the evidence behind it
// (/runs/{id}), and runs side by side (/compare?runs=A,B). Every page is a
// plain GET whose address is its permalink; pages are html/template
// output with the style sheet and one small script (table sorting) embedded
// in the binary, nothing fetched from elsewhere.
//
// The handler never writes: it refuses a store not opened with
// results.OpenReadOnly. It checks the Host header of every request
// against the names it was told to answer to (a page of another site that
// points its own name at 127.0.0.1 gets 421, not the runs), and with a
// token every request must carry it: an "Authorization: Bearer T" header,
// the cookie a "?token=T" link sets, or that link itself.
package serve

import (
	"crypto/subtle"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/pglab/pglab/report"
	"github.com/pglab/pglab/report/runs"
	"github.com/pglab/pglab/results"
)

//go:embed templates/*.html static/*
var assets embed.FS

// Options configure a Handler.
type Options struct {
	// Store is the results store, opened with results.OpenReadOnly.
	Store *results.Store
	// Token, when not empty, is required on every request.
	Token string
	// Hosts are the host names (without port) that requests may name in
	// their Host header; empty allows any (for a server reached by
	// names it cannot know, which then needs a Token).
	Hosts []string
	// Version is pglab's version, shown in the pages' footer.
	Version string
	// Now returns the current time, for "running for …" (time.Now when
	// nil); tests fix it.
	Now func() time.Time
	// Log receives one line per failed request (log.Default when nil).
	Log *log.Logger
	// Refresh is how often the page of a running run reloads itself
	// (5 s when 0).
	Refresh time.Duration
}

// Handler serves the pages. Make one with New.
type Handler struct {
	opts  Options
	mux   *http.ServeMux
	pages *template.Template
	cache summaryCache
}

// cookieName holds the token after a ?token= link.
const cookieName = "pglab_token"

// New returns the handler of the web UI over opts.Store.
func New(opts Options) (*Handler, error) {
	if opts.Store == nil {
		return nil, errors.New("serve: no results store")
	}
	if !opts.Store.ReadOnly() {
		return nil, errors.New("serve: the results store must be opened read-only (results.OpenReadOnly)")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Log == nil {
		opts.Log = log.Default()
	}
	if opts.Refresh <= 0 {
		opts.Refresh = 5 * time.Second
	}
	pages, err := template.New("pages").Funcs(funcs).ParseFS(assets, "templates/*.html")
	if err != nil {
		return nil, fmt.Errorf("serve: templates: %w", err)
	}
	h := &Handler{opts: opts, pages: pages}
	static, err := fs.Sub(assets, "static")
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", h.index)
	mux.HandleFunc("GET /runs/{id}", h.run)
	mux.HandleFunc("GET /runs/{id}/{file}", h.download)
	mux.HandleFunc("GET /runs/{id}/artefacts/{aid}", h.artefact)
	mux.HandleFunc("GET /compare", h.compare)
	mux.HandleFunc("GET /static/report.css", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/css; charset=utf-8")
		w.Header().Set("Cache-Control", "max-age=3600")
		fmt.Fprint(w, report.HTMLStyle())
	})
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=86400")
		w.WriteHeader(http.StatusNoContent)
	})
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		h.fail(w, r, http.StatusNotFound, "no page at "+r.URL.Path)
	})
	h.mux = mux
	return h, nil
}

// ServeHTTP checks the request's Host and token, then serves the page.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("X-Frame-Options", "DENY")
	if !h.hostAllowed(r.Host) {
		http.Error(w, "pglab serve: this server does not answer to host "+r.Host, http.StatusMisdirectedRequest)
		return
	}
	if h.opts.Token != "" && !h.authorized(w, r) {
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		hd.Set("Allow", "GET, HEAD")
		http.Error(w, "pglab serve is read-only: only GET and HEAD", http.StatusMethodNotAllowed)
		return
	}
	h.mux.ServeHTTP(w, r)
}

// hostAllowed reports whether a Host header names this server.
func (h *Handler) hostAllowed(host string) bool {
	if len(h.opts.Hosts) == 0 {
		return true
	}
	name := host
	if n, _, err := net.SplitHostPort(host); err == nil {
		name = n
	}
	name = strings.ToLower(strings.Trim(name, "[]"))
	for _, a := range h.opts.Hosts {
		if strings.EqualFold(strings.Trim(a, "[]"), name) {
			return true
		}
	}
	return false
}

// authorized checks the request's token; it answers the request itself
// (and returns false) when the token is missing or wrong, or when a
// ?token= link is turned into the cookie and a redirect to the same page
// without the token.
func (h *Handler) authorized(w http.ResponseWriter, r *http.Request) bool {
	if q := r.URL.Query(); q.Has("token") {
		if !h.tokenOK(q.Get("token")) {
			h.unauthorized(w)
			return false
		}
		http.SetCookie(w, &http.Cookie{Name: cookieName, Value: h.opts.Token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		q.Del("token")
		u := url.URL{Path: r.URL.Path, RawQuery: q.Encode()}
		http.Redirect(w, r, u.String(), http.StatusSeeOther)
		return false
	}
	if a := r.Header.Get("Authorization"); a != "" {
		scheme, tok, _ := strings.Cut(a, " ")
		if strings.EqualFold(scheme, "Bearer") && h.tokenOK(strings.TrimSpace(tok)) {
			return true
		}
		h.unauthorized(w)
		return false
	}
	if c, err := r.Cookie(cookieName); err == nil && h.tokenOK(c.Value) {
		return true
	}
	h.unauthorized(w)
	return false
}

func (h *Handler) tokenOK(t string) bool {
	return subtle.ConstantTimeCompare([]byte(t), []byte(h.opts.Token)) == 1
}

func (h *Handler) unauthorized(w http.ResponseWriter) {
	w.Header().Set("WWW-Authenticate", `Bearer realm="pglab"`)
	http.Error(w, "pglab serve needs its token: open the address with ?token=… once, or send Authorization: Bearer …", http.StatusUnauthorized)
}

// page is what every page template gets.
type page struct {
	Title   string
	Version string
	Store   string
	// Refresh is the seconds after which the page reloads (0: never).
	Refresh int
	Body    any
}

// render writes a page template.
func (h *Handler) render(w http.ResponseWriter, r *http.Request, name, title string, body any, refresh int) {
	var b strings.Builder
	p := page{Title: title, Version: h.opts.Version, Store: h.opts.Store.Location(), Refresh: refresh, Body: body}
	if err := h.pages.ExecuteTemplate(&b, name, p); err != nil {
		h.fail(w, r, http.StatusInternalServerError, "render "+name+": "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if refresh > 0 {
		w.Header().Set("Cache-Control", "no-store")
	}
	fmt.Fprint(w, b.String())
}

// fail answers with an error page and logs server errors.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, code int, msg string) {
	if code >= 500 {
		h.opts.Log.Printf("pglab serve: %s %s: %s", r.Method, r.URL.Path, msg)
	}
	var b strings.Builder
	p := page{Title: http.StatusText(code), Version: h.opts.Version, Store: h.opts.Store.Location(), Body: msg}
	if err := h.pages.ExecuteTemplate(&b, "error.html", p); err != nil {
		http.Error(w, msg, code)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	fmt.Fprint(w, b.String())
}

// lookupError answers for a run that could not be read: 404 for an
// unknown run, 400 for an ambiguous or malformed reference, 500 else.
func (h *Handler) lookupError(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case errors.Is(err, results.ErrNotFound):
		h.fail(w, r, http.StatusNotFound, err.Error())
	case errors.Is(err, results.ErrAmbiguous), errors.Is(err, runs.ErrRunTwice), strings.HasPrefix(err.Error(), "bad run ID"):
		h.fail(w, r, http.StatusBadRequest, err.Error())
	default:
		h.fail(w, r, http.StatusInternalServerError, err.Error())
	}
}
