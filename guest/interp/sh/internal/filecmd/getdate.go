package filecmd

import (
	"strconv"
	"strings"
	"time"
)

// parseDate parses a date -d string: a subset of GNU's getdate grammar
// that covers what scripts write. Supported items, in any order:
//
//	@SECONDS[.FRACTION]               seconds since the epoch
//	now, today, yesterday, tomorrow
//	YYYY-MM-DD, YYYY/MM/DD, MM/DD/YYYY, MM/DD, YYYYMMDD
//	Month D [YYYY], D Month [YYYY], Month D, YYYY  (names or abbreviations)
//	HH:MM[:SS[.FRAC]] [am|pm], H am|pm, and ISO's "T" between date and time
//	zones: Z, UTC, GMT, UT, +HH[:MM], +HHMM, and the sandbox's TZ name
//	weekday names (the next such day, today included)
//	relative: [+|-]N unit [ago], next/last/this unit, with units year,
//	month, fortnight, week, day, hour, minute (min), second (sec)
//
// A date without a time means midnight; relative items are added last,
// months and years by calendar (Jan 31 + 1 month = Mar 2, as GNU).
func parseDate(s string, now time.Time, loc *time.Location) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "@") {
		return parseEpoch(s[1:], loc)
	}
	p := &dateParser{toks: tokenizeDate(strings.ToLower(s)), loc: loc}
	if !p.parse() {
		return time.Time{}, false
	}
	zone := loc
	if p.hasZone {
		zone = time.FixedZone("", p.zoneOff)
	}
	base := now.In(zone)
	y, mo, d := base.Date()
	hh, mm, ss, ns := base.Hour(), base.Minute(), base.Second(), base.Nanosecond()
	if p.hasDate {
		if p.year >= 0 {
			y = p.year
		}
		mo, d = time.Month(p.month), p.day
		if p.month < 1 || p.month > 12 || p.day < 1 || p.day > daysIn(time.Month(p.month), y) {
			return time.Time{}, false
		}
	}
	if p.hasTime {
		hh, mm, ss, ns = p.hour, p.min, p.sec, p.nsec
	} else if p.hasDate || p.weekday >= 0 {
		hh, mm, ss, ns = 0, 0, 0, 0
	}
	t := time.Date(y, mo, d, hh, mm, ss, ns, zone)
	if p.weekday >= 0 && !p.hasDate {
		// A day name is that day this week, today included; "next" is
		// strictly after today and "last" strictly before.
		off := (p.weekday - int(t.Weekday()) + 7) % 7
		switch {
		case p.weekdayOrd > 0 && off == 0:
			off = 7
		case p.weekdayOrd < 0:
			off -= 7
		}
		t = t.AddDate(0, 0, off)
	}
	t = t.AddDate(p.relY, p.relM, p.relD)
	t = t.Add(time.Duration(p.relS)*time.Second + time.Duration(p.relNs))
	return t.In(loc), true
}

func parseEpoch(s string, loc *time.Location) (time.Time, bool) {
	sec, frac, _ := strings.Cut(s, ".")
	n, err := strconv.ParseInt(sec, 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	ns := int64(0)
	if frac != "" {
		f := (frac + "000000000")[:9]
		v, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return time.Time{}, false
		}
		ns = v
		if strings.HasPrefix(sec, "-") {
			ns = -ns
		}
	}
	return time.Unix(n, ns).In(loc), true
}

func daysIn(m time.Month, y int) int {
	return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// tokenizeDate splits a date string into numbers, words and single
// punctuation characters.
func tokenizeDate(s string) []string {
	var toks []string
	for i := 0; i < len(s); {
		c := s[i]
		j := i + 1
		switch {
		case c == ' ' || c == '\t' || c == ',':
			i++
			continue
		case c >= '0' && c <= '9':
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
		case c >= 'a' && c <= 'z':
			for j < len(s) && (s[j] >= 'a' && s[j] <= 'z' || s[j] == '.') {
				j++
			}
			// "Jan." is "jan".
			toks = append(toks, strings.TrimSuffix(s[i:j], "."))
			i = j
			continue
		}
		toks = append(toks, s[i:j])
		i = j
	}
	return toks
}

type dateParser struct {
	toks []string
	i    int
	loc  *time.Location

	hasDate, hasTime, hasZone bool
	year, month, day          int
	hour, min, sec, nsec      int
	zoneOff                   int
	weekday, weekdayOrd       int
	relY, relM, relD          int
	relS, relNs               int64
}

var monthNames = []string{"january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"}
var dayNames = []string{"sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"}

// lookupName finds a month or day name, full or abbreviated to three or
// more letters ("sept" and "wednes" too).
func lookupName(names []string, w string) int {
	if len(w) < 3 {
		return -1
	}
	for i, n := range names {
		if strings.HasPrefix(n, w) || (len(w) == 4 && w == "sept" && i == 8) || (w == "tues" && i == 2) || (w == "wednes" && i == 3) || (w == "thur" || w == "thurs") && i == 4 {
			return i
		}
	}
	return -1
}

func isNum(s string) bool { return s != "" && s[0] >= '0' && s[0] <= '9' }

func (p *dateParser) peek(k int) string {
	if p.i+k < len(p.toks) {
		return p.toks[p.i+k]
	}
	return ""
}

func (p *dateParser) parse() bool {
	p.year, p.weekday = -1, -1
	for p.i < len(p.toks) {
		if !p.item() {
			return false
		}
	}
	return true
}

func (p *dateParser) setDate(y, m, d int) bool {
	if p.hasDate {
		return false
	}
	p.hasDate, p.year, p.month, p.day = true, y, m, d
	return true
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// item consumes one item of the date string.
func (p *dateParser) item() bool {
	t := p.peek(0)
	switch {
	case t == "now":
		p.i++
		return true
	case t == "today":
		p.i++
		return true
	case t == "yesterday":
		p.i++
		p.relD--
		return true
	case t == "tomorrow":
		p.i++
		p.relD++
		return true
	case t == "t" && p.hasDate && isNum(p.peek(1)):
		p.i++
		return true
	case t == "z" || t == "utc" || t == "gmt" || t == "ut":
		p.i++
		p.hasZone, p.zoneOff = true, 0
		if s := p.peek(0); s == "+" || s == "-" {
			return p.zone()
		}
		return true
	case t == "ago":
		p.i++
		p.relY, p.relM, p.relD, p.relS, p.relNs = -p.relY, -p.relM, -p.relD, -p.relS, -p.relNs
		return true
	case t == "next" || t == "last" || t == "this":
		p.i++
		n := map[string]int{"next": 1, "last": -1, "this": 0}[t]
		if d := lookupName(dayNames, p.peek(0)); d >= 0 {
			p.i++
			p.weekday, p.weekdayOrd = d, n
			return true
		}
		return p.relative(int64(n))
	case t == "+" || t == "-":
		if p.hasTime && !p.hasZone && isNum(p.peek(1)) && p.unit(p.peek(2)) == "" {
			return p.zone()
		}
		sign := int64(1)
		if t == "-" {
			sign = -1
		}
		p.i++
		if !isNum(p.peek(0)) {
			return false
		}
		n, _ := strconv.ParseInt(p.peek(0), 10, 64)
		p.i++
		return p.relative(sign * n)
	case isNum(t):
		return p.number()
	}
	if m := lookupName(monthNames, t); m >= 0 {
		// Month D [YYYY]
		p.i++
		if !isNum(p.peek(0)) {
			return false
		}
		d := atoi(p.peek(0))
		p.i++
		y := -1
		if isNum(p.peek(0)) && p.peek(1) != ":" {
			y = atoi(p.peek(0))
			p.i++
		}
		return p.setDate(y, m+1, d)
	}
	if d := lookupName(dayNames, t); d >= 0 {
		p.i++
		p.weekday = d
		return true
	}
	if t == "am" || t == "pm" {
		return false
	}
	if name, _ := time.Now().In(p.loc).Zone(); t == strings.ToLower(name) {
		p.i++
		_, off := time.Now().In(p.loc).Zone()
		p.hasZone, p.zoneOff = true, off
		return true
	}
	if p.unit(t) != "" {
		return p.relative(1)
	}
	return false
}

// number handles items that start with a number.
func (p *dateParser) number() bool {
	t := p.peek(0)
	switch p.peek(1) {
	case "-":
		// YYYY-MM-DD or D-Mon-YYYY
		if isNum(p.peek(2)) && p.peek(3) == "-" && isNum(p.peek(4)) {
			y, m, d := atoi(t), atoi(p.peek(2)), atoi(p.peek(4))
			p.i += 5
			return p.setDate(y, m, d)
		}
		if m := lookupName(monthNames, p.peek(2)); m >= 0 && p.peek(3) == "-" && isNum(p.peek(4)) {
			d, y := atoi(t), atoi(p.peek(4))
			p.i += 5
			return p.setDate(y, m+1, d)
		}
	case "/":
		if !isNum(p.peek(2)) {
			return false
		}
		a, b := atoi(t), atoi(p.peek(2))
		if p.peek(3) == "/" && isNum(p.peek(4)) {
			c := atoi(p.peek(4))
			p.i += 5
			if len(t) >= 3 {
				return p.setDate(a, b, c)
			}
			if len(p.toks[p.i-1]) == 2 {
				c += 1900
				if c < 1969 {
					c += 100
				}
			}
			return p.setDate(c, a, b)
		}
		p.i += 3
		return p.setDate(-1, a, b)
	case ":":
		return p.clock()
	}
	if len(t) == 8 && !p.hasDate {
		p.i++
		return p.setDate(atoi(t[:4]), atoi(t[4:6]), atoi(t[6:]))
	}
	n := atoi(t)
	next := p.peek(1)
	if next == "am" || next == "pm" {
		p.i += 2
		return p.setClock(n, 0, 0, 0, next)
	}
	if m := lookupName(monthNames, next); m >= 0 {
		// D Month [YYYY]
		p.i += 2
		y := -1
		if isNum(p.peek(0)) && p.peek(1) != ":" {
			y = atoi(p.peek(0))
			p.i++
		}
		return p.setDate(y, m+1, n)
	}
	if p.unit(next) != "" {
		p.i++
		return p.relative(int64(n))
	}
	if p.hasDate && p.year < 0 && len(t) == 4 {
		p.i++
		p.year = n
		return true
	}
	if p.hasDate && !p.hasTime && len(t) == 4 {
		// A bare HHMM after a date.
		p.i++
		return p.setClock(n/100, n%100, 0, 0, "")
	}
	return false
}

// clock parses HH:MM[:SS[.FRAC]] [am|pm] [zone].
func (p *dateParser) clock() bool {
	h := atoi(p.peek(0))
	if !isNum(p.peek(2)) {
		return false
	}
	m := atoi(p.peek(2))
	p.i += 3
	s, ns := 0, 0
	if p.peek(0) == ":" && isNum(p.peek(1)) {
		s = atoi(p.peek(1))
		p.i += 2
		if p.peek(0) == "." && isNum(p.peek(1)) {
			ns = atoi((p.peek(1) + "000000000")[:9])
			p.i += 2
		}
	}
	ampm := ""
	if t := p.peek(0); t == "am" || t == "pm" {
		ampm = t
		p.i++
	}
	if !p.setClock(h, m, s, ns, ampm) {
		return false
	}
	if t := p.peek(0); (t == "+" || t == "-") && isNum(p.peek(1)) && p.unit(p.peek(2)) == "" {
		return p.zone()
	}
	return true
}

func (p *dateParser) setClock(h, m, s, ns int, ampm string) bool {
	if p.hasTime {
		return false
	}
	switch ampm {
	case "am", "pm":
		if h < 1 || h > 12 {
			return false
		}
		h %= 12
		if ampm == "pm" {
			h += 12
		}
	}
	if h > 23 || m > 59 || s > 60 {
		return false
	}
	p.hasTime, p.hour, p.min, p.sec, p.nsec = true, h, m, s, ns
	return true
}

// zone parses a numeric zone: +HH, +HHMM, +HH:MM.
func (p *dateParser) zone() bool {
	sign := 1
	if p.peek(0) == "-" {
		sign = -1
	}
	t := p.peek(1)
	p.i += 2
	var h, m int
	switch {
	case p.peek(0) == ":" && isNum(p.peek(1)):
		h, m = atoi(t), atoi(p.peek(1))
		p.i += 2
	case len(t) <= 2:
		h = atoi(t)
	case len(t) == 4:
		h, m = atoi(t[:2]), atoi(t[2:])
	default:
		return false
	}
	if h > 24 || m > 59 {
		return false
	}
	p.hasZone, p.zoneOff = true, sign*(h*3600+m*60)
	return true
}

// unit names the relative unit w stands for, or "".
func (p *dateParser) unit(w string) string {
	w = strings.TrimSuffix(w, "s")
	switch w {
	case "year", "month", "fortnight", "week", "day", "hour", "minute", "min", "second", "sec":
		return w
	}
	return ""
}

// relative consumes a unit and adds n of it.
func (p *dateParser) relative(n int64) bool {
	u := p.unit(p.peek(0))
	if u == "" {
		return false
	}
	p.i++
	switch u {
	case "year":
		p.relY += int(n)
	case "month":
		p.relM += int(n)
	case "fortnight":
		p.relD += 14 * int(n)
	case "week":
		p.relD += 7 * int(n)
	case "day":
		p.relD += int(n)
	case "hour":
		p.relS += 3600 * n
	case "minute", "min":
		p.relS += 60 * n
	case "second", "sec":
		p.relS += n
	}
	return true
}
