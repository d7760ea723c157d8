package wire

// Formatting without strconv or fmt (see the package comment).

func itoa(v uint64) string {
	if v == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for v > 0 {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
	}
	return string(b[i:])
}

func octal(v uint32) string {
	b := []byte{'0', '0', '0', '0'}
	for i := 3; i > 0; i-- {
		b[i] = byte('0' + v&7)
		v >>= 3
	}
	return string(b)
}

func hex64(v uint64) string {
	const digits = "0123456789abcdef"
	var b [16]byte
	for i := 15; i >= 0; i-- {
		b[i] = digits[v&15]
		v >>= 4
	}
	return string(b[:])
}

// fnv64a is the 64-bit FNV-1a hash of s (hash/fnv's): it names a
// build's socket.
func fnv64a(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}
