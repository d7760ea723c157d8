package textcmd

// versionCompare orders version strings as sort -V does, with gnulib's
// filevercmp: "." and ".." and dot-files first, file suffixes such as
// ".tar.gz" compared last, runs of digits compared as numbers, and "~"
// sorting before everything, even the end of the string.
func versionCompare(a, b string) int {
	switch {
	case a == "":
		if b == "" {
			return 0
		}
		return -1
	case b == "":
		return 1
	}
	if a[0] == '.' {
		if b[0] != '.' {
			return -1
		}
		if r, ok := dotOrder(a, b); ok {
			return r
		}
	} else if b[0] == '.' {
		return 1
	}
	ap, bp := filePrefixLen(a), filePrefixLen(b)
	r := verrevcmp(a[:ap], b[:bp])
	if r != 0 || ap == len(a) && bp == len(b) {
		return r
	}
	return verrevcmp(a, b)
}

// dotOrder puts "." first, then "..", for two names starting with dots.
func dotOrder(a, b string) (int, bool) {
	for _, special := range []string{".", ".."} {
		switch {
		case a == special && b == special:
			return 0, true
		case a == special:
			return -1, true
		case b == special:
			return 1, true
		}
	}
	return 0, false
}

// filePrefixLen is the length of s without its longest suffix matching
// (\.[A-Za-z~][A-Za-z0-9~]*)*$.
func filePrefixLen(s string) int {
	n := len(s)
	prefix := 0
	for i := 0; ; {
		if i == n {
			return prefix
		}
		i++
		prefix = i
		for i+1 < n && s[i] == '.' && (isAlpha(s[i+1]) || s[i+1] == '~') {
			for i += 2; i < n && (isAlpha(s[i]) || isDigit(s[i]) || s[i] == '~'); i++ {
			}
		}
	}
}

func verOrder(s string, pos int) int {
	if pos == len(s) {
		return 0
	}
	c := s[pos]
	switch {
	case isDigit(c):
		return 0
	case isAlpha(c):
		return int(c)
	case c == '~':
		return -1
	}
	return int(c) + 256
}

func verrevcmp(a, b string) int {
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		firstDiff := 0
		for i < len(a) && !isDigit(a[i]) || j < len(b) && !isDigit(b[j]) {
			ca, cb := verOrder(a, i), verOrder(b, j)
			if ca != cb {
				return ca - cb
			}
			i++
			j++
		}
		for i < len(a) && a[i] == '0' {
			i++
		}
		for j < len(b) && b[j] == '0' {
			j++
		}
		for i < len(a) && j < len(b) && isDigit(a[i]) && isDigit(b[j]) {
			if firstDiff == 0 {
				firstDiff = int(a[i]) - int(b[j])
			}
			i++
			j++
		}
		if i < len(a) && isDigit(a[i]) {
			return 1
		}
		if j < len(b) && isDigit(b[j]) {
			return -1
		}
		if firstDiff != 0 {
			return firstDiff
		}
	}
	return 0
}
