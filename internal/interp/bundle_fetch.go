package interp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

// InstallBundleFrom installs interpreters from the bundle at source: a
// file, or an https URL (http only to a loopback address, for a mirror
// on the same machine). A download goes to a temporary file of dir
// first, bounded in size and redirects, and is verified as it unpacks
// (see [InstallBundle]).
func InstallBundleFrom(ctx context.Context, dir, source string, o *BundleOptions) ([]*Interpreter, error) {
	if !IsURL(source) {
		f, err := os.Open(source)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil && fi.IsDir() {
			return nil, fmt.Errorf("%s is a folder, not a bundle file", source)
		}
		return InstallBundle(dir, f, o)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, ".download-*.tar.gz")
	if err != nil {
		return nil, err
	}
	defer func() {
		_ = f.Close()
		_ = os.Remove(f.Name())
	}()
	if o != nil && o.Progress != nil {
		fmt.Fprintf(o.Progress, "skillrun: downloading %s\n", source)
	}
	if err := fetch(ctx, source, f, maxBundleDownload); err != nil {
		return nil, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return InstallBundle(dir, f, o)
}

// IsURL reports whether s names a bundle by URL rather than by file.
func IsURL(s string) bool {
	return strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://")
}

// checkFetchURL allows https anywhere and http only to a loopback host:
// a bundle's digest protects its content, and https its privacy and the
// download's integrity on the way.
func checkFetchURL(u *url.URL) error {
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		host := u.Hostname()
		if ip := net.ParseIP(host); host == "localhost" || (ip != nil && ip.IsLoopback()) {
			return nil
		}
		return fmt.Errorf("%s: http is allowed only to a loopback address; use https", u.Redacted())
	}
	return fmt.Errorf("%s: not an https URL", u.Redacted())
}

// fetch writes the body of a GET of rawURL to w: status 200 only, at
// most limit bytes, at most maxRedirects redirects, each checked as the
// first URL is.
func fetch(ctx context.Context, rawURL string, w io.Writer, limit int64) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return fmt.Errorf("bundle URL: %w", err)
	}
	if err := checkFetchURL(u); err != nil {
		return err
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.ResponseHeaderTimeout = time.Minute
	client := &http.Client{
		Transport: tr,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > maxRedirects {
				return fmt.Errorf("more than %d redirects", maxRedirects)
			}
			return checkFetchURL(req.URL)
		},
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("downloading the bundle: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("downloading the bundle from %s: %s", resp.Request.URL.Redacted(), resp.Status)
	}
	if resp.ContentLength > limit {
		return fmt.Errorf("the bundle at %s is %d bytes (at most %d)", resp.Request.URL.Redacted(), resp.ContentLength, limit)
	}
	n, err := io.Copy(w, io.LimitReader(resp.Body, limit+1))
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("downloading the bundle from %s: the connection ended after %d of %d bytes", resp.Request.URL.Redacted(), n, resp.ContentLength)
		}
		return fmt.Errorf("downloading the bundle from %s: %w", resp.Request.URL.Redacted(), err)
	}
	if n > limit {
		return fmt.Errorf("the bundle at %s is over %d bytes", resp.Request.URL.Redacted(), limit)
	}
	return nil
}
