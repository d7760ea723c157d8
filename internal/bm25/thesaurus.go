package bm25

import (
	"slices"
	"sync"
)

// synonymGroups are words that name the same thing in the tasks people
// write: a query word also finds documents that use another word of its
// group, at expandWeight of that word's score, so the word the user wrote
// still counts most. Groups are small and about software work (files,
// media, messages, money, data, code); a word in two groups gets both.
// Words are stemmed like the index ("shortening" finds "shortener").
var synonymGroups = [][]string{
	{"link", "url", "hyperlink", "address"},
	{"address", "domain"},
	{"shorten", "short", "shortener", "compact"},
	{"malware", "virus", "antivirus", "malicious", "threat"},
	{"site", "website", "homepage", "webpage"},
	{"down", "outage", "downtime", "uptime", "offline", "unreachable"},
	{"alert", "notify", "notification", "alarm", "ping"},
	{"monitor", "watch", "uptime"},
	{"repo", "repository", "codebase"},
	{"doc", "document", "documentation", "docs"},
	{"spreadsheet", "sheet", "workbook", "xlsx", "excel"},
	{"slide", "presentation", "deck", "pptx", "powerpoint"},
	{"image", "picture", "photo", "img", "graphic"},
	{"video", "clip", "movie", "footage"},
	{"audio", "sound", "voice", "speech", "spoken"},
	{"narration", "narrate", "speech", "voiceover"},
	{"music", "song", "tune", "playlist"},
	{"chart", "graph", "plot", "visualization", "visualisation"},
	{"diagram", "flowchart", "schematic"},
	{"email", "mail", "inbox"},
	{"chat", "message", "messaging"},
	{"calendar", "agenda", "schedule", "appointment"},
	{"meeting", "appointment", "call"},
	{"bug", "defect", "issue"},
	{"ticket", "issue"},
	{"deploy", "deployment", "release", "ship", "publish"},
	{"database", "db", "sql"},
	{"warehouse", "analytics"},
	{"translate", "translation", "localize", "localization"},
	{"summarize", "summarise", "summary", "tldr", "digest"},
	{"fix", "repair", "debug"},
	{"speed", "performance", "fast", "faster", "slow", "latency", "optimize"},
	{"security", "vulnerability", "exploit", "secure"},
	{"password", "secret", "credential", "token"},
	{"money", "finance", "financial", "budget", "spending", "expense"},
	{"payment", "pay", "invoice", "billing", "bill"},
	{"accounting", "bookkeeping", "ledger"},
	{"customer", "client"},
	{"crm", "pipeline", "lead", "prospect"},
	{"contract", "agreement"},
	{"resume", "cv"},
	{"font", "typeface", "typography"},
	{"color", "colour", "palette"},
	{"animation", "animated", "gif"},
	{"folder", "directory"},
	{"storage", "drive", "cloud"},
	{"scrape", "scraper", "crawl", "crawler", "extract"},
	{"screenshot", "capture"},
	{"download", "save", "grab", "offline"},
	{"news", "stories", "headlines"},
	{"run", "running", "jog", "cycling", "ride", "workout", "exercise", "fitness"},
	{"test", "testing", "qa"},
	{"review", "feedback", "critique"},
	{"paper", "manuscript", "article", "publication"},
	{"dataset", "data"},
	{"container", "docker", "image"},
	{"todo", "task", "reminder"},
	{"note", "notes", "notebook"},
	{"artwork", "art", "painting", "paint", "poster"},
	{"cdn", "hosting", "host"},
	{"conference", "venue", "journal"},
	{"lab", "laboratory"},
	{"robot", "robotic", "automation"},
}

// expandWeight scales the score a synonym adds.
const expandWeight = 0.5

// synonyms maps a stem to the other stems of its groups, sorted.
var synonyms = sync.OnceValue(func() map[string][]string {
	m := map[string][]string{}
	for _, g := range synonymGroups {
		var stems []string
		for _, w := range g {
			stems = append(stems, Tokenize(w, nil)...)
		}
		for _, a := range stems {
			for _, b := range stems {
				if a != b && !slices.Contains(m[a], b) {
					m[a] = append(m[a], b)
				}
			}
		}
	}
	for _, v := range m {
		slices.Sort(v)
	}
	return m
})

// expand returns the query's terms (sorted, deduplicated; see Tokenize)
// with their weights: 1 for a word of the query, expandWeight for a
// synonym of one that the query does not have.
func expand(query string) (terms []string, weights []float64) {
	q := Tokenize(query, nil)
	slices.Sort(q)
	q = slices.Compact(q)
	w := make(map[string]float64, len(q))
	for _, t := range q {
		w[t] = 1
	}
	syn := synonyms()
	for _, t := range q {
		for _, s := range syn[t] {
			if _, ok := w[s]; !ok {
				w[s] = expandWeight
			}
		}
	}
	for t := range w {
		terms = append(terms, t)
	}
	slices.Sort(terms)
	weights = make([]float64, len(terms))
	for i, t := range terms {
		weights[i] = w[t]
	}
	return terms, weights
}
