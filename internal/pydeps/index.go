package pydeps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// maxIndexPage bounds a project page: PyPI's largest (botocore, with
// thousands of files) are a few MiB of HTML or JSON.
const maxIndexPage = 64 << 20

// acceptIndex asks for PEP 691 JSON first and takes PEP 503 HTML too.
const acceptIndex = "application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html;q=0.2, text/html;q=0.01"

// A distFile is one file a project page lists (or a find-links folder
// holds).
type distFile struct {
	Filename       string
	URL            string // absolute http(s) URL, or a local path for find-links
	SHA256         string // lower-case hex from the index; "" when it gave none
	Yanked         bool
	RequiresPython string
	Local          bool // from find-links
}

// errNotFound marks a project the index does not have.
var errNotFound = errors.New("not found")

// fetchProject fetches a project's page from a PEP 503/691 simple index
// and returns the files it lists.
func fetchProject(ctx context.Context, client *http.Client, indexURL, name string) ([]distFile, error) {
	pageURL := strings.TrimRight(indexURL, "/") + "/" + Normalize(name) + "/"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, pageURL, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", acceptIndex)
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return nil, fmt.Errorf("%s: %w on %s", name, errNotFound, redact(indexURL))
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", redact(pageURL), resp.Status)
	}
	pageURL = redact(pageURL)
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxIndexPage+1))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", pageURL, err)
	}
	if len(body) > maxIndexPage {
		return nil, fmt.Errorf("GET %s: page larger than %d MiB", pageURL, maxIndexPage>>20)
	}
	base := resp.Request.URL // after redirects, which relative links follow
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	var files []distFile
	switch ct {
	case "application/vnd.pypi.simple.v1+json":
		files, err = parseJSONPage(body, base)
	case "application/vnd.pypi.simple.v1+html", "text/html", "":
		files, err = parseHTMLPage(body, base)
	default:
		err = fmt.Errorf("content type %q is neither PEP 691 JSON nor HTML", ct)
	}
	if err != nil {
		return nil, fmt.Errorf("GET %s: not a simple index page: %w", pageURL, err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: %s lists no files (is %s a PEP 503 simple index?)", name, pageURL, redact(indexURL))
	}
	return files, nil
}

// parseJSONPage reads a PEP 691 project page.
func parseJSONPage(body []byte, base *url.URL) ([]distFile, error) {
	var page struct {
		Meta struct {
			APIVersion string `json:"api-version"`
		} `json:"meta"`
		Files []struct {
			Filename       string            `json:"filename"`
			URL            string            `json:"url"`
			Hashes         map[string]string `json:"hashes"`
			RequiresPython *string           `json:"requires-python"`
			Yanked         json.RawMessage   `json:"yanked"`
		} `json:"files"`
	}
	if err := json.Unmarshal(body, &page); err != nil {
		return nil, err
	}
	if major, _, _ := strings.Cut(page.Meta.APIVersion, "."); major != "1" {
		return nil, fmt.Errorf("unsupported PEP 691 api-version %q", page.Meta.APIVersion)
	}
	var files []distFile
	for _, f := range page.Files {
		u, err := base.Parse(f.URL)
		if err != nil {
			continue
		}
		// yanked is false, true, or a reason string (which means true).
		var yb bool
		var ys string
		yanked := json.Unmarshal(f.Yanked, &yb) == nil && yb || json.Unmarshal(f.Yanked, &ys) == nil
		df := distFile{
			Filename: f.Filename,
			URL:      u.String(),
			SHA256:   strings.ToLower(f.Hashes["sha256"]),
			Yanked:   yanked,
		}
		if f.RequiresPython != nil {
			df.RequiresPython = *f.RequiresPython
		}
		files = append(files, df)
	}
	return files, nil
}

// The page patterns are compiled on first use: most commands never read
// an index page, and every command pays a package-level compile at start.
var (
	anchorRE = lazyRegexp(`(?is)<a\s([^>]*)>(.*?)</a\s*>`)
	attrRE   = lazyRegexp(`(?s)([a-zA-Z_:][-a-zA-Z0-9_:.]*)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>` + "`" + `]+)))?`)
	tagRE    = lazyRegexp(`<[^>]*>`)
)

// parseHTMLPage reads a PEP 503 project page: one anchor per file, the
// file name as its text, the sha256 in the URL fragment, PEP 592's
// data-yanked and PEP 503's data-requires-python attributes.
func parseHTMLPage(body []byte, base *url.URL) ([]distFile, error) {
	var files []distFile
	pageBase, err := htmlBase(body, base)
	if err != nil {
		return nil, err
	}
	for _, m := range anchorRE().FindAllSubmatch(body, -1) {
		attrs := map[string]string{}
		present := map[string]bool{}
		for _, a := range attrRE().FindAllSubmatch(m[1], -1) {
			key := strings.ToLower(string(a[1]))
			present[key] = true
			attrs[key] = html.UnescapeString(string(a[2]) + string(a[3]) + string(a[4]))
		}
		href := attrs["href"]
		if href == "" {
			continue
		}
		u, err := pageBase.Parse(href)
		if err != nil {
			continue
		}
		df := distFile{
			Filename:       strings.TrimSpace(html.UnescapeString(tagRE().ReplaceAllString(string(m[2]), ""))),
			Yanked:         present["data-yanked"],
			RequiresPython: attrs["data-requires-python"],
		}
		if algo, sum, ok := strings.Cut(u.Fragment, "="); ok && algo == "sha256" {
			df.SHA256 = strings.ToLower(sum)
		}
		u.Fragment = ""
		df.URL = u.String()
		if df.Filename == "" {
			df.Filename = path.Base(u.Path)
		}
		files = append(files, df)
	}
	return files, nil
}

var baseRE = lazyRegexp(`(?is)<base\s[^>]*href\s*=\s*["']([^"']*)["']`)

// htmlBase honours a <base href> element, which PEP 503 pages may use.
func htmlBase(body []byte, base *url.URL) (*url.URL, error) {
	m := baseRE().FindSubmatch(body)
	if m == nil {
		return base, nil
	}
	u, err := base.Parse(html.UnescapeString(string(m[1])))
	if err != nil {
		return base, err
	}
	return u, nil
}

// findLinks lists the wheels of a local folder, for offline use and for
// tests; their hashes are computed when they are copied into the cache.
func findLinks(dir string) ([]distFile, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("find-links: %w", err)
	}
	var files []distFile
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".whl") {
			files = append(files, distFile{Filename: e.Name(), URL: filepath.Join(dir, e.Name()), Local: true})
		}
	}
	return files, nil
}
