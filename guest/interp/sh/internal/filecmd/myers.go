package filecmd

// diffLines compares two sequences of line ids and returns which lines
// of each are changed (not in the common subsequence). It uses Myers'
// O(ND) algorithm and then GNU diff's shift_boundaries, which slides
// each run of changes so that runs merge and end where GNU's do; that
// keeps hunks identical to GNU's output in the common cases (an inserted
// block of repeated lines, for example).
func diffLines(a, b []int) (changedA, changedB []bool) {
	n, m := len(a), len(b)
	// Trim the common prefix and suffix: cheap, and it keeps V small.
	pre := 0
	for pre < n && pre < m && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < n-pre && suf < m-pre && a[n-1-suf] == b[m-1-suf] {
		suf++
	}
	ca, cb := myers(a[pre:n-suf], b[pre:m-suf])
	changedA = make([]bool, n)
	changedB = make([]bool, m)
	copy(changedA[pre:], ca)
	copy(changedB[pre:], cb)
	shiftBoundaries(a, changedA, changedB)
	shiftBoundaries(b, changedB, changedA)
	return changedA, changedB
}

func myers(a, b []int) ([]bool, []bool) {
	n, m := len(a), len(b)
	ca, cb := make([]bool, n), make([]bool, m)
	if n == 0 || m == 0 {
		for i := range ca {
			ca[i] = true
		}
		for i := range cb {
			cb[i] = true
		}
		return ca, cb
	}
	max := n + m
	off := max + 1
	v := make([]int, 2*max+3)
	var trace [][]int
	for d := 0; d <= max; d++ {
		snap := make([]int, 2*d+3)
		copy(snap, v[off-d-1:off+d+2])
		trace = append(trace, snap)
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				backtrack(trace, d, n, m, ca, cb)
				return ca, cb
			}
		}
	}
	return ca, cb
}

// backtrack walks the saved V arrays from the end to mark the edits.
func backtrack(trace [][]int, d, x, y int, ca, cb []bool) {
	for ; d > 0; d-- {
		vs := trace[d] // V as it was before step d, indices k+d+1
		get := func(k int) int { return vs[k+d+1] }
		k := x - y
		var prevK int
		if k == -d || (k != d && get(k-1) < get(k+1)) {
			prevK = k + 1
		} else {
			prevK = k - 1
		}
		prevX := get(prevK)
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			x--
			y--
		}
		if x == prevX {
			cb[prevY] = true // insertion of b[prevY]
		} else {
			ca[prevX] = true // deletion of a[prevX]
		}
		x, y = prevX, prevY
	}
}

// shiftBoundaries is GNU diff's shift_boundaries for one file: equivs
// are its line ids, changed its flags, other the other file's flags.
func shiftBoundaries(equivs []int, changedFlags, otherFlags []bool) {
	n := len(equivs)
	// Work on copies with a false sentinel at each end, as GNU does.
	changed := make([]bool, n+2)
	copy(changed[1:], changedFlags)
	other := make([]bool, len(otherFlags)+2)
	copy(other[1:], otherFlags)
	ch := func(i int) bool { return changed[i+1] }
	set := func(i int, v bool) { changed[i+1] = v }
	oc := func(j int) bool { return j+1 >= 0 && j+1 < len(other) && other[j+1] }
	i, j := 0, 0
	for {
		for i < n && !ch(i) {
			for oc(j) {
				j++
			}
			j++
			i++
		}
		if i == n {
			break
		}
		start := i
		for i++; ch(i); i++ {
		}
		for oc(j) {
			j++
		}
		var corresponding int
		for {
			runlength := i - start
			for start > 0 && equivs[start-1] == equivs[i-1] {
				start--
				set(start, true)
				i--
				set(i, false)
				for ch(start - 1) {
					start--
				}
				for j--; oc(j); j-- {
				}
			}
			corresponding = n
			if oc(j - 1) {
				corresponding = i
			}
			for i != n && equivs[start] == equivs[i] {
				set(start, false)
				start++
				set(i, true)
				i++
				for ch(i) {
					i++
				}
				for j++; oc(j); j++ {
					corresponding = i
				}
			}
			if runlength == i-start {
				break
			}
		}
		for corresponding < i {
			start--
			set(start, true)
			i--
			set(i, false)
			for j--; oc(j); j-- {
			}
		}
	}
	copy(changedFlags, changed[1:n+1])
}
