package host

import (
	"fmt"
	"unicode/utf8"
)

// MaxResultContent bounds the content of one tool result, and its
// structured value, where the tool builds them from what a stranger
// controls: a script's output, the rows of a database file, a model's
// reply, the results of the steps of a chain. A tool cuts what is over
// it, ending the content with [CutNotice], so that no file, guest or
// reply can make the host hold, or a client receive, an answer without
// bound.
const MaxResultContent = 1 << 20

// CutNotice is the marker that ends content cut at a bound: it says how
// many more bytes there were.
func CutNotice(more int64) string { return fmt.Sprintf("\n[cut: %d more bytes]", more) }

// BoundResult returns res with its content and its structured value each
// at most [MaxResultContent] bytes: content over it is cut at a UTF-8
// boundary and ends with [CutNotice]; a structured value over it, which
// cannot be cut and stay JSON, is replaced by a small object that says
// so. A result within bounds is returned as it is; nil stays nil.
//
// It is the last guard of a tool whose parts are bounded one by one;
// bounding while the result is built keeps memory small, which this
// cannot.
func BoundResult(res *ToolResult) *ToolResult {
	if res == nil || len(res.Content) <= MaxResultContent && len(res.Structured) <= MaxResultContent {
		return res
	}
	out := *res
	if len(out.Content) > MaxResultContent {
		out.Content = CutText(out.Content, MaxResultContent)
	}
	if len(out.Structured) > MaxResultContent {
		out.Structured = fmt.Appendf(nil, `{"cut":"the structured result was %d bytes, over the %d-byte limit; the content holds the result, cut if it too was over"}`,
			len(out.Structured), MaxResultContent)
	}
	return &out
}

// CutText returns s if it is at most limit bytes, or else its longest
// prefix that, with the [CutNotice] of what it leaves out appended, is
// at most limit bytes, cut at a UTF-8 boundary (only the notice, if the
// limit is smaller than that).
func CutText(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	n := max(limit-len(CutNotice(int64(len(s)))), 0)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + CutNotice(int64(len(s)-n))
}
