package skilltest

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/skillrun/skillrun/internal/termsafe"
)

// PrintResult prints one case's result as go test does: "ok" or "FAIL",
// the case, its time, and for a failure what did not hold, indented.
// verbose adds the grant and what the run printed. Names and outputs are
// the skill author's and the script's: terminal escapes are neutralised.
func PrintResult(w io.Writer, res *Result, verbose bool) {
	status := "ok  "
	if !res.Passed {
		status = "FAIL"
	}
	note := ""
	if len(res.Updated) > 0 {
		note = " (updated " + strings.Join(res.Updated, ", ") + ")"
	}
	fmt.Fprintf(w, "%s %s (%s)%s\n", status, termsafe.String(res.Case.ID), seconds(res.Elapsed), termsafe.String(note))
	for _, f := range res.Failures {
		fmt.Fprintln(w, termsafe.Text(indent(f)))
	}
	if verbose && (res.Case.Kind == KindScript || res.Case.Kind == KindCommand) {
		g, _ := json.Marshal(res.Granted)
		fmt.Fprintf(w, "    granted: %s; exit status %d\n", termsafe.String(string(g)), res.ExitCode)
		for _, s := range []struct{ name, text string }{{"stdout", res.Stdout}, {"stderr", res.Stderr}} {
			if s.text != "" {
				fmt.Fprintf(w, "    %s:\n%s\n", s.name, termsafe.Text(indent(indent(s.text))))
			}
		}
	}
}

// A Summary counts a run's results.
type Summary struct {
	Passed, Failed, Skipped int
	Elapsed                 time.Duration
}

// Summarize counts results.
func Summarize(results []*Result, elapsed time.Duration) Summary {
	s := Summary{Elapsed: elapsed}
	for _, r := range results {
		switch {
		case r.Skipped:
			s.Skipped++
		case r.Passed:
			s.Passed++
		default:
			s.Failed++
		}
	}
	return s
}

// PrintSummary prints the last line: "ok" with the count, or "FAIL" with
// how many failed.
func PrintSummary(w io.Writer, s Summary) {
	switch {
	case s.Failed > 0:
		fmt.Fprintf(w, "FAIL: %d of %d %s failed (%s)\n", s.Failed, s.Failed+s.Passed, plural(s.Failed+s.Passed, "case", "cases"), seconds(s.Elapsed))
	case s.Passed == 0:
		fmt.Fprintf(w, "ok: no cases to run (%s)\n", seconds(s.Elapsed))
	default:
		fmt.Fprintf(w, "ok: %d %s passed (%s)\n", s.Passed, plural(s.Passed, "case", "cases"), seconds(s.Elapsed))
	}
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.2fs", d.Seconds()) }

// jsonCase is one case in the --json report.
type jsonCase struct {
	ID        string   `json:"id"`
	Skill     string   `json:"skill"`
	Name      string   `json:"name"`
	File      string   `json:"file"`
	Kind      string   `json:"kind,omitempty"`
	Passed    bool     `json:"passed"`
	Failures  []string `json:"failures,omitempty"`
	ElapsedMS int64    `json:"elapsed_ms"`
	ExitCode  *int     `json:"exit_code,omitempty"`
	Stdout    string   `json:"stdout,omitempty"`
	Stderr    string   `json:"stderr,omitempty"`
	Updated   []string `json:"updated,omitempty"`
}

// WriteJSON writes the results as one JSON document.
func WriteJSON(w io.Writer, results []*Result, s Summary) error {
	doc := struct {
		Passed    bool       `json:"passed"`
		Cases     []jsonCase `json:"cases"`
		NPassed   int        `json:"n_passed"`
		NFailed   int        `json:"n_failed"`
		ElapsedMS int64      `json:"elapsed_ms"`
	}{Passed: s.Failed == 0, Cases: []jsonCase{}, NPassed: s.Passed, NFailed: s.Failed, ElapsedMS: s.Elapsed.Milliseconds()}
	for _, r := range results {
		if r.Skipped {
			continue
		}
		c := r.Case
		jc := jsonCase{ID: c.ID, Skill: c.Skill.Name, Name: c.Name, File: c.File, Kind: c.Kind, Passed: r.Passed,
			Failures: r.Failures, ElapsedMS: r.Elapsed.Milliseconds(), Stdout: r.Stdout, Stderr: r.Stderr, Updated: r.Updated}
		if c.Err == nil && (c.Kind == KindScript || c.Kind == KindCommand) {
			code := r.ExitCode
			jc.ExitCode = &code
		}
		doc.Cases = append(doc.Cases, jc)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// WriteJUnit writes the results as JUnit XML, one test suite a skill, as
// CI systems read it.
func WriteJUnit(w io.Writer, results []*Result, s Summary) error {
	type failure struct {
		Message string `xml:"message,attr"`
		Text    string `xml:",chardata"`
	}
	type testcase struct {
		Name      string   `xml:"name,attr"`
		Classname string   `xml:"classname,attr"`
		File      string   `xml:"file,attr,omitempty"`
		Time      string   `xml:"time,attr"`
		Failure   *failure `xml:"failure,omitempty"`
		SystemOut string   `xml:"system-out,omitempty"`
		SystemErr string   `xml:"system-err,omitempty"`
	}
	type testsuite struct {
		Name     string     `xml:"name,attr"`
		Tests    int        `xml:"tests,attr"`
		Failures int        `xml:"failures,attr"`
		Time     string     `xml:"time,attr"`
		Cases    []testcase `xml:"testcase"`
		elapsed  time.Duration
	}
	var suites []*testsuite
	bySkill := map[string]*testsuite{}
	for _, r := range results {
		if r.Skipped {
			continue
		}
		name := r.Case.Skill.Name
		ts := bySkill[name]
		if ts == nil {
			ts = &testsuite{Name: name}
			bySkill[name] = ts
			suites = append(suites, ts)
		}
		tc := testcase{Name: r.Case.Name, Classname: name, File: r.Case.File, Time: fmt.Sprintf("%.3f", r.Elapsed.Seconds()),
			SystemOut: xmlSafe(r.Stdout), SystemErr: xmlSafe(r.Stderr)}
		if !r.Passed {
			text := strings.Join(r.Failures, "\n")
			msg, _, _ := strings.Cut(text, "\n")
			tc.Failure = &failure{Message: xmlSafe(msg), Text: xmlSafe(text)}
			ts.Failures++
		}
		ts.Tests++
		ts.elapsed += r.Elapsed
		ts.Cases = append(ts.Cases, tc)
	}
	doc := struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Time     string       `xml:"time,attr"`
		Suites   []*testsuite `xml:"testsuite"`
	}{Tests: s.Passed + s.Failed, Failures: s.Failed, Time: fmt.Sprintf("%.3f", s.Elapsed.Seconds()), Suites: suites}
	for _, ts := range suites {
		ts.Time = fmt.Sprintf("%.3f", ts.elapsed.Seconds())
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// xmlSafe drops what XML 1.0 cannot hold (most control characters,
// invalid UTF-8), which a script's output may contain.
func xmlSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			return r
		case r < 0x20, r == 0xFFFD, r == 0xFFFE, r == 0xFFFF:
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, ""))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
