package capabilities

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/skillrun/skillrun/internal/units"
)

// A Size is an amount of memory or output in bytes, as written in the
// memory and output keys of skill.toml. The zero Size means "not declared".
//
// Its text form is a whole number followed by an optional unit, with at most
// one space between them: "64MiB", "512 KiB", "10MB", "100B" or "1024" (bytes).
// IEC units (KiB, MiB, GiB, TiB) are powers of 1024; SI units (kB or KB, MB,
// GB, TB) are powers of 1000. Fractions, negative numbers, zero and anything
// above 1 TiB are rejected: a limit written as "0" or "5PB" is a mistake,
// not a request.
type Size int64

// Sizes in bytes, for readable Go code: 64 * capabilities.MiB.
const (
	B   Size = 1
	KiB Size = 1 << 10
	MiB Size = 1 << 20
	GiB Size = 1 << 30
	TiB Size = 1 << 40
)

// maxSize is the largest Size accepted. No sandboxed script needs more than
// a tebibyte of memory or output; a larger number is a typo.
const maxSize = TiB

// sizeUnits lists every unit the parser accepts, in the order error
// messages name them.
var sizeUnits = []struct {
	name string
	mult Size
}{
	{"B", 1},
	{"KiB", KiB}, {"MiB", MiB}, {"GiB", GiB}, {"TiB", TiB},
	{"kB", 1000}, {"KB", 1000}, {"MB", 1000 * 1000}, {"GB", 1000 * 1000 * 1000},
	{"TB", 1000 * 1000 * 1000 * 1000},
}

// ParseSize parses the text form of a [Size].
func ParseSize(s string) (Size, error) {
	bad := func(format string, args ...any) (Size, error) {
		return 0, fmt.Errorf("invalid size %q: %s", s, fmt.Sprintf(format, args...))
	}
	if s == "" {
		return bad(`empty; write a number of bytes with a unit, such as "64MiB"`)
	}
	i := 0
	if s[0] == '-' || s[0] == '+' {
		i++
	}
	digits := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	num, rest := s[:i], s[i:]
	if i == digits {
		return bad(`must start with a whole number, such as "64MiB"`)
	}
	if strings.HasPrefix(rest, ".") || strings.HasPrefix(rest, ",") {
		return bad(`must be a whole number; use a smaller unit instead of a fraction, such as "1536KiB"`)
	}
	if s[0] == '-' {
		return bad("must be positive")
	}
	if s[0] == '+' {
		return bad("must be a plain whole number without a sign")
	}
	unit := strings.TrimPrefix(rest, " ")
	if unit != rest && (unit == "" || unit[0] == ' ') {
		return bad("write at most one space, and only between the number and its unit")
	}
	mult := Size(0)
	if unit == "" {
		mult = 1
	}
	for _, u := range sizeUnits {
		if u.name == unit {
			mult = u.mult
		}
	}
	if mult == 0 {
		return bad("unknown unit %q; use B, KiB, MiB, GiB, TiB, kB, MB, GB or TB", unit)
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || Size(n) > maxSize/mult {
		return bad("larger than the limit of %s", maxSize)
	}
	if n == 0 {
		return bad("must be positive")
	}
	return Size(n) * mult, nil
}

// UnmarshalText implements [encoding.TextUnmarshaler] with [ParseSize].
func (s *Size) UnmarshalText(text []byte) error {
	v, err := ParseSize(string(text))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// MarshalText implements [encoding.TextMarshaler]; the text is [Size.String].
func (s Size) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// String returns the size in the largest IEC unit that represents it
// exactly ("64MiB", "1536KiB"), or in bytes ("1000B"). The result parses back
// to the same Size.
func (s Size) String() string {
	if s < 0 {
		return strconv.FormatInt(int64(s), 10) + "B"
	}
	return units.Bytes(uint64(s))
}

// validate checks a Size built in Go code rather than parsed.
func (s Size) validate() error {
	if s < 0 {
		return fmt.Errorf("%d bytes: must be positive", int64(s))
	}
	if s > maxSize {
		return fmt.Errorf("%s is larger than the limit of %s", s, maxSize)
	}
	return nil
}

// A Duration is a time limit, as written in the timeout key of skill.toml:
// "10s", "1m30s", "500ms" ([time.ParseDuration] syntax). The zero Duration
// means "not declared". Parsed values are positive and at most 24 hours.
type Duration time.Duration

// maxDuration is the longest Duration accepted: a script that needs more
// than a day is better run some other way, and a larger value is a typo.
const maxDuration = Duration(24 * time.Hour)

// ParseDuration parses the text form of a [Duration].
func ParseDuration(s string) (Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("invalid duration %q: write a number with a unit, such as \"10s\" or \"1m30s\"", s)
	}
	if err := Duration(d).validate(); err != nil {
		return 0, fmt.Errorf("invalid duration %q: %w", s, err)
	}
	if d == 0 {
		return 0, fmt.Errorf("invalid duration %q: must be positive", s)
	}
	return Duration(d), nil
}

// UnmarshalText implements [encoding.TextUnmarshaler] with [ParseDuration].
func (d *Duration) UnmarshalText(text []byte) error {
	v, err := ParseDuration(string(text))
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// MarshalText implements [encoding.TextMarshaler]; the text is
// [Duration.String].
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// String formats the duration as [time.Duration.String] does ("1m30s"),
// which parses back to the same Duration.
func (d Duration) String() string { return time.Duration(d).String() }

// validate checks a Duration built in Go code rather than parsed.
func (d Duration) validate() error {
	if d < 0 {
		return fmt.Errorf("%s: must be positive", d)
	}
	if d > maxDuration {
		return fmt.Errorf("%s is longer than the limit of %s", d, maxDuration)
	}
	return nil
}
