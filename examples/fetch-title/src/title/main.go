// Command title prints the <title> of a web page.
//
// Usage:
//
//	title URL
//
// It is the fetch-title skill's script. It has no network of its own: it
// asks the host to fetch URL with the http_fetch host function (package
// guest), which allows only the hosts the net grant names and checks every
// redirect again. It prints the page's title, with white space collapsed
// and the common HTML entities decoded, or exits 1 saying why there is
// none.
package main

import (
	"fmt"
	"html"
	"os"
	"strings"

	"github.com/skillrun/skillrun/guest"
)

// maxTitle bounds the title printed, in bytes.
const maxTitle = 1024

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: title URL")
		os.Exit(2)
	}
	url := os.Args[1]
	resp, err := guest.Fetch(&guest.FetchRequest{URL: url})
	if err != nil {
		fmt.Fprintf(os.Stderr, "title: fetching %s: %v\n", url, err)
		os.Exit(1)
	}
	if resp.Status < 200 || resp.Status > 299 {
		fmt.Fprintf(os.Stderr, "title: %s: HTTP status %d\n", url, resp.Status)
		os.Exit(1)
	}
	t, ok := title(string(resp.Body))
	if !ok {
		fmt.Fprintf(os.Stderr, "title: %s has no <title>\n", url)
		os.Exit(1)
	}
	fmt.Println(t)
}

// title returns the text of the first <title> element of page.
func title(page string) (string, bool) {
	lower := strings.ToLower(page)
	start := strings.Index(lower, "<title")
	if start < 0 {
		return "", false
	}
	open := strings.IndexByte(lower[start:], '>')
	if open < 0 {
		return "", false
	}
	start += open + 1
	end := strings.Index(lower[start:], "</title")
	if end < 0 {
		return "", false
	}
	t := strings.Join(strings.Fields(html.UnescapeString(page[start:start+end])), " ")
	if len(t) > maxTitle {
		t = strings.ToValidUTF8(t[:maxTitle], "") + "..."
	}
	return t, true
}
