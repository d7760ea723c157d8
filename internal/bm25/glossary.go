package bm25

import (
	"slices"
	"strings"
)

// services says what well-known products and services do, in the words
// people use when they ask for the task rather than the product ("shorten
// a link", not "TinyURL"). Many published skills are thin wrappers named
// after a product, whose SKILL.md says little beyond its name; without
// this a search has no word to find them by. Keys are the product's name
// lowercased with spaces, hyphens and dots removed; the list favours
// services that skills and MCP servers commonly wrap, and says only what
// the product is for, never which skill wraps it. Names that are also
// common words ("Linear", "Notion", "Box", "Zoom", "Teams", "Outlook")
// are left out: a description using the word would gain a meaning it
// does not have.
var services = map[string]string{
	// Code, issues and delivery
	"github":     "git repository code hosting pull request issue",
	"gitlab":     "git repository code hosting merge request issue pipeline",
	"bitbucket":  "git repository code hosting pull request",
	"jira":       "issue tracker ticket bug project sprint",
	"sentry":     "error monitoring crash exception tracking",
	"datadog":    "monitoring metrics logs observability alert",
	"pagerduty":  "incident alert on-call paging outage",
	"vercel":     "deploy hosting website frontend",
	"netlify":    "deploy hosting website static site",
	"heroku":     "deploy hosting app platform",
	"cloudflare": "cdn dns domain website security",
	"dockerhub":  "container image registry docker repository",
	"docker":     "container image",
	"kubernetes": "container orchestration cluster deploy",
	// Monitoring and security
	"uptimerobot": "uptime monitor website down outage alert",
	"pingdom":     "uptime monitor website down outage alert",
	"statuspage":  "status page outage incident",
	"virustotal":  "malware virus antivirus scan file hash url threat",
	"shodan":      "internet scan exposed device port",
	// Links, media and files
	"tinyurl":     "url shortener short link",
	"bitly":       "url shortener short link",
	"cloudinary":  "image video media upload hosting transform cdn",
	"imgix":       "image media cdn transform",
	"dropbox":     "cloud storage file share folder sync",
	"googledrive": "cloud storage file share folder document",
	"onedrive":    "cloud storage file share folder",
	"youtube":     "video watch upload channel",
	"vimeo":       "video hosting",
	"twitch":      "live stream video",
	"spotify":     "music song playlist album artist listen",
	"soundcloud":  "music audio track",
	"elevenlabs":  "text to speech voice audio narration",
	// Office and productivity
	"googlecalendar": "calendar event meeting schedule appointment",
	"calendly":       "meeting schedule appointment booking",
	"gmail":          "email mail inbox message",
	"googlesheets":   "spreadsheet sheet table",
	"excel":          "spreadsheet workbook sheet cell formula",
	"googledocs":     "document text editing",
	"confluence":     "wiki documentation pages",
	"obsidian":       "notes markdown knowledge",
	"evernote":       "notes",
	"airtable":       "database spreadsheet table",
	"trello":         "kanban board task project",
	"asana":          "task project management",
	"todoist":        "todo task list",
	"miro":           "whiteboard diagram",
	"figma":          "design mockup interface prototype",
	"canva":          "graphic design poster",
	"slack":          "team chat message channel",
	"discord":        "chat community message channel",
	// Money and business
	"quickbooks": "accounting bookkeeping invoice payment expense",
	"xero":       "accounting bookkeeping invoice payment bank",
	"zohobooks":  "accounting bookkeeping invoice payment bill",
	"freshbooks": "accounting invoice billing",
	"ynab":       "budget budgeting personal finance spending money",
	"stripe":     "payment billing subscription charge",
	"paypal":     "payment money transfer",
	"shopify":    "online store ecommerce shop product order",
	"salesforce": "crm customer sales pipeline lead deal",
	"hubspot":    "crm marketing sales contact lead",
	"attio":      "crm customer contact company sales pipeline",
	"pipedrive":  "crm sales pipeline deal",
	"zendesk":    "customer support ticket help desk",
	"intercom":   "customer support chat",
	"mailchimp":  "email marketing newsletter campaign",
	"sendgrid":   "email sending",
	"twilio":     "sms text message phone call",
	// Data
	"snowflake":  "data warehouse sql analytics query",
	"bigquery":   "data warehouse sql analytics query",
	"redshift":   "data warehouse sql analytics",
	"databricks": "data lakehouse spark analytics",
	"postgres":   "database sql",
	"postgresql": "database sql",
	"mysql":      "database sql",
	"mongodb":    "database document nosql",
	"redis":      "cache key value store",
	// News, social and sport
	"hackernews": "tech news stories startup",
	"reddit":     "forum posts community discussion",
	"twitter":    "social posts tweets",
	"linkedin":   "professional network profile jobs",
	"strava":     "running cycling workout fitness activity exercise",
	"garmin":     "fitness activity workout",
	"fitbit":     "fitness activity sleep steps",
}

// Glossary returns what the well-known services named in texts do (see
// services), one string per service found, in the order first named. A
// service is found as a word ("Xero") or as two adjacent words written
// apart ("Google Calendar", "Docker Hub", "Hacker News").
func Glossary(texts ...string) []string {
	var out, seen []string
	add := func(key string) {
		if g, ok := services[key]; ok && !slices.Contains(seen, key) {
			seen = append(seen, key)
			out = append(out, g)
		}
	}
	for _, text := range texts {
		var prev string
		for w := range strings.FieldsFuncSeq(strings.ToLower(text), notWordRune) {
			add(w)
			if prev != "" {
				add(prev + w)
			}
			prev = w
		}
	}
	return out
}
