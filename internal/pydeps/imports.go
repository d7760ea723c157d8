package pydeps

import (
	"strings"
)

// moduleDists maps a top-level import name to the distribution that
// provides it, for the modules whose distribution is named otherwise
// (import yaml, pip install PyYAML) or that skills import most; each
// entry was checked against the distribution's own top-level modules.
// It is the only place an undeclared import becomes a package: a module
// missing here is not guessed to come from a distribution of its own
// name (anyone may publish a package named like an import), it is
// reported in [Need.Unknown] for a declaration or the operator to name.
var moduleDists = map[string]string{
	"yaml":               "PyYAML",
	"docx":               "python-docx",
	"pptx":               "python-pptx",
	"PyPDF2":             "PyPDF2",
	"pypdf":              "pypdf",
	"openpyxl":           "openpyxl",
	"et_xmlfile":         "et-xmlfile",
	"defusedxml":         "defusedxml",
	"dotenv":             "python-dotenv",
	"requests":           "requests",
	"bs4":                "beautifulsoup4",
	"jinja2":             "Jinja2",
	"markupsafe":         "MarkupSafe",
	"markdown":           "Markdown",
	"dateutil":           "python-dateutil",
	"frontmatter":        "python-frontmatter",
	"toml":               "toml",
	"tomli":              "tomli",
	"tomli_w":            "tomli-w",
	"tomlkit":            "tomlkit",
	"jsonschema":         "jsonschema",
	"chardet":            "chardet",
	"charset_normalizer": "charset-normalizer",
	"PIL":                "Pillow",
	"numpy":              "numpy",
	"pandas":             "pandas",
	"lxml":               "lxml",
	"matplotlib":         "matplotlib",
	"scipy":              "scipy",
	"sklearn":            "scikit-learn",
	"cv2":                "opencv-python",
	"fitz":               "PyMuPDF",
	"pymupdf":            "PyMuPDF",
	"pdfplumber":         "pdfplumber",
	"pdfminer":           "pdfminer.six",
	"pdf2image":          "pdf2image",
	"pypdfium2":          "pypdfium2",
	"pytesseract":        "pytesseract",
	"reportlab":          "reportlab",
	"xlsxwriter":         "XlsxWriter",
	"xlrd":               "xlrd",
	"xlwt":               "xlwt",
	"odf":                "odfpy",
	"ebooklib":           "EbookLib",
	"markdownify":        "markdownify",
	"html2text":          "html2text",
	"mistune":            "mistune",
	"pygments":           "Pygments",
	"docutils":           "docutils",
	"xmltodict":          "xmltodict",
	"feedparser":         "feedparser",
	"attr":               "attrs",
	"attrs":              "attrs",
	"pydantic":           "pydantic",
	"click":              "click",
	"typer":              "typer",
	"rich":               "rich",
	"tqdm":               "tqdm",
	"tabulate":           "tabulate",
	"pytz":               "pytz",
	"tzdata":             "tzdata",
	"six":                "six",
	"certifi":            "certifi",
	"idna":               "idna",
	"urllib3":            "urllib3",
	"httpx":              "httpx",
	"aiohttp":            "aiohttp",
	"simplejson":         "simplejson",
	"ruamel":             "ruamel.yaml",
	"pkg_resources":      "setuptools",
	"setuptools":         "setuptools",
	"packaging":          "packaging",
	"typing_extensions":  "typing_extensions",
	"magic":              "python-magic",
	"slugify":            "python-slugify",
	"jwt":                "PyJWT",
	"Crypto":             "pycryptodome",
	"Cryptodome":         "pycryptodomex",
	"nacl":               "PyNaCl",
	"OpenSSL":            "pyOpenSSL",
	"serial":             "pyserial",
	"git":                "GitPython",
	"github":             "PyGithub",
	"pymysql":            "PyMySQL",
	"MySQLdb":            "mysqlclient",
	"psycopg2":           "psycopg2",
	"sqlalchemy":         "SQLAlchemy",
	"flask":              "Flask",
	"werkzeug":           "Werkzeug",
	"regex":              "regex",
	"emoji":              "emoji",
	"unidecode":          "Unidecode",
	"anthropic":          "anthropic",
	"openai":             "openai",
	"sympy":              "sympy",
	"networkx":           "networkx",
	"seaborn":            "seaborn",
	"plotly":             "plotly",
	"graphviz":           "graphviz",
	"pydub":              "pydub",
	"mutagen":            "mutagen",
	"qrcode":             "qrcode",
	"barcode":            "python-barcode",
	"docx2txt":           "docx2txt",
	"mammoth":            "mammoth",
	"pptx2txt":           "pptx2txt",
	"playwright":         "playwright",
	"selenium":           "selenium",
	"websocket":          "websocket-client",
	"google":             "", // a namespace shared by many distributions: not guessable
	"mcp":                "mcp",
	"fastmcp":            "fastmcp",
	"pyperclip":          "pyperclip",
	"colorama":           "colorama",
	"termcolor":          "termcolor",
	"pyparsing":          "pyparsing",
	"soupsieve":          "soupsieve",
	"html5lib":           "html5lib",
	"webencodings":       "webencodings",
	"cssselect":          "cssselect",
	"natsort":            "natsort",
	"arrow":              "arrow",
	"pendulum":           "pendulum",
	"babel":              "Babel",
	"fpdf":               "fpdf2",
	"weasyprint":         "weasyprint",
	"pikepdf":            "pikepdf",
	"camelot":            "camelot-py",
	"tabula":             "tabula-py",
}

// DistributionFor returns the distribution that provides a top-level
// module, from the reviewed table; ("", false) for a module the table
// does not know, or knows to be shared by many distributions (the
// google namespace). It never guesses.
func DistributionFor(module string) (dist string, known bool) {
	d := moduleDists[module]
	return d, d != ""
}

// An importStmt is one top-level module an import statement names.
type importStmt struct {
	module string // top-level name: "x" for "import x.y as z"
	line   int
}

// findImports returns the absolute imports of a Python source, one per
// top-level module name and statement, in order. It reads logical lines
// the way Python's tokenizer would (strings, comments, brackets and
// backslash continuations), so that text inside docstrings or comments
// ("from mylib import x" in a usage example) does not count; it does not
// parse Python otherwise, so an import anywhere (inside a function, a
// try block, behind "if TYPE_CHECKING:") counts.
func findImports(src []byte) []importStmt {
	var out []importStmt
	for _, ll := range logicalLines(string(src)) {
		for stmt := range strings.SplitSeq(ll.text, ";") {
			out = append(out, parseImport(strings.TrimSpace(stmt), ll.line)...)
		}
	}
	return out
}

// parseImport reads one simple statement.
func parseImport(stmt string, line int) []importStmt {
	// "if x: import y" and "try: import y" put a statement after a colon.
	if i := strings.LastIndexByte(stmt, ':'); i >= 0 && !strings.HasPrefix(stmt, "import") && !strings.HasPrefix(stmt, "from") {
		head := strings.Fields(stmt[:i])
		if len(head) > 0 && compoundKeywords[head[0]] {
			stmt = strings.TrimSpace(stmt[i+1:])
		}
	}
	f := strings.Fields(strings.NewReplacer("(", " ", ")", " ", ",", " , ").Replace(stmt))
	if len(f) < 2 {
		return nil
	}
	var out []importStmt
	switch f[0] {
	case "import":
		// import a.b as c, d
		expect := true
		for _, w := range f[1:] {
			switch {
			case w == ",":
				expect = true
			case expect:
				if m := topLevel(w); m != "" {
					out = append(out, importStmt{module: m, line: line})
				}
				expect = false
			}
		}
	case "from":
		if len(f) < 4 || f[2] != "import" || strings.HasPrefix(f[1], ".") {
			return nil // relative, or not an import
		}
		if m := topLevel(f[1]); m != "" {
			out = append(out, importStmt{module: m, line: line})
		}
	}
	return out
}

var compoundKeywords = map[string]bool{"if": true, "elif": true, "else": true, "try": true, "except": true, "finally": true, "with": true, "for": true, "while": true}

// topLevel returns the first dotted component if it is an identifier.
func topLevel(dotted string) string {
	m, _, _ := strings.Cut(dotted, ".")
	if m == "" || !isIdentifier(m) {
		return ""
	}
	return m
}

func isIdentifier(s string) bool {
	for i, r := range s {
		ok := r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 0x7f || (i > 0 && r >= '0' && r <= '9')
		if !ok {
			return false
		}
	}
	return s != ""
}

// A logicalLine is Python source text from one statement line, with
// string literals blanked out and comments removed.
type logicalLine struct {
	text string
	line int // 1-based line where it starts
}

// logicalLines splits Python source into logical lines.
func logicalLines(src string) []logicalLine {
	var (
		out   []logicalLine
		cur   strings.Builder
		depth int
		line  = 1
		start = 1
	)
	flush := func() {
		if t := strings.TrimSpace(cur.String()); t != "" {
			out = append(out, logicalLine{text: t, line: start})
		}
		cur.Reset()
	}
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '\\' && i+1 < len(src) && src[i+1] == '\n':
			i += 2
			line++
			cur.WriteByte(' ')
		case c == '\\' && i+2 < len(src) && src[i+1] == '\r' && src[i+2] == '\n':
			i += 3
			line++
			cur.WriteByte(' ')
		case c == '\n':
			i++
			line++
			if depth == 0 {
				flush()
				start = line
			} else {
				cur.WriteByte(' ')
			}
		case c == '(' || c == '[' || c == '{':
			depth++
			cur.WriteByte(c)
			i++
		case (c == ')' || c == ']' || c == '}') && depth > 0:
			depth--
			cur.WriteByte(c)
			i++
		case c == '"' || c == '\'':
			// A string literal (its prefix letters were written already):
			// skip to its end, counting lines, and leave a placeholder.
			quote := src[i : i+1]
			if strings.HasPrefix(src[i:], strings.Repeat(quote, 3)) {
				quote = strings.Repeat(quote, 3)
			}
			j := i + len(quote)
			for j < len(src) {
				if src[j] == '\\' {
					if j+1 < len(src) && src[j+1] == '\n' {
						line++
					}
					j += 2
					continue
				}
				if strings.HasPrefix(src[j:], quote) {
					j += len(quote)
					break
				}
				if src[j] == '\n' {
					if len(quote) == 1 {
						break // unterminated: Python would fail; stop at the line end
					}
					line++
				}
				j++
			}
			i = min(j, len(src))
			cur.WriteString(`""`)
		default:
			cur.WriteByte(c)
			i++
		}
	}
	flush()
	return out
}
