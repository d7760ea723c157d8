package capabilities

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseSize(t *testing.T) {
	tests := []struct {
		in      string
		want    Size
		wantErr string // exact error text; "" means success
	}{
		{in: "64MiB", want: 64 * MiB},
		{in: "1MiB", want: MiB},
		{in: "512KiB", want: 512 * KiB},
		{in: "1GiB", want: GiB},
		{in: "1TiB", want: TiB},
		{in: "10MB", want: 10_000_000},
		{in: "10kB", want: 10_000},
		{in: "10KB", want: 10_000},
		{in: "2GB", want: 2_000_000_000},
		{in: "1TB", want: 1_000_000_000_000},
		{in: "100B", want: 100},
		{in: "1024", want: 1024},
		{in: "64 MiB", want: 64 * MiB},
		{in: "007KiB", want: 7 * KiB},

		{in: "", wantErr: `invalid size "": empty; write a number of bytes with a unit, such as "64MiB"`},
		{in: "0", wantErr: `invalid size "0": must be positive`},
		{in: "0MiB", wantErr: `invalid size "0MiB": must be positive`},
		{in: "-1", wantErr: `invalid size "-1": must be positive`},
		{in: "-64MiB", wantErr: `invalid size "-64MiB": must be positive`},
		{in: "+64MiB", wantErr: `invalid size "+64MiB": must be a plain whole number without a sign`},
		{in: "1.5MiB", wantErr: `invalid size "1.5MiB": must be a whole number; use a smaller unit instead of a fraction, such as "1536KiB"`},
		{in: "1,5MiB", wantErr: `invalid size "1,5MiB": must be a whole number; use a smaller unit instead of a fraction, such as "1536KiB"`},
		{in: "MiB", wantErr: `invalid size "MiB": must start with a whole number, such as "64MiB"`},
		{in: " 64MiB", wantErr: `invalid size " 64MiB": must start with a whole number, such as "64MiB"`},
		{in: "64  MiB", wantErr: `invalid size "64  MiB": write at most one space, and only between the number and its unit`},
		{in: "64 ", wantErr: `invalid size "64 ": write at most one space, and only between the number and its unit`},
		{in: "64MiB ", wantErr: `invalid size "64MiB ": unknown unit "MiB "; use B, KiB, MiB, GiB, TiB, kB, MB, GB or TB`},
		{in: "64mib", wantErr: `invalid size "64mib": unknown unit "mib"; use B, KiB, MiB, GiB, TiB, kB, MB, GB or TB`},
		{in: "64M", wantErr: `invalid size "64M": unknown unit "M"; use B, KiB, MiB, GiB, TiB, kB, MB, GB or TB`},
		{in: "64Mb", wantErr: `invalid size "64Mb": unknown unit "Mb"; use B, KiB, MiB, GiB, TiB, kB, MB, GB or TB`},
		{in: "1e6", wantErr: `invalid size "1e6": unknown unit "e6"; use B, KiB, MiB, GiB, TiB, kB, MB, GB or TB`},
		{in: "2TiB", wantErr: `invalid size "2TiB": larger than the limit of 1TiB`},
		{in: "1025GiB", wantErr: `invalid size "1025GiB": larger than the limit of 1TiB`},
		{in: "1099511627777", wantErr: `invalid size "1099511627777": larger than the limit of 1TiB`},
		{in: "99999999999999999999999", wantErr: `invalid size "99999999999999999999999": larger than the limit of 1TiB`},
		{in: "9223372036854775807GiB", wantErr: `invalid size "9223372036854775807GiB": larger than the limit of 1TiB`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := unmarshalCase(t, tt.in, tt.want, tt.wantErr)
			if !ok {
				assert.Zero(t, got, "UnmarshalText(%q) changed the value on error", tt.in)
				return
			}
			back, err := ParseSize(got.String())
			if assert.NoError(t, err, "ParseSize(%q)", got.String()) {
				assert.Equal(t, got, back, "ParseSize(%q) (round trip)", got.String())
			}
		})
	}
}

func TestSizeString(t *testing.T) {
	tests := []struct {
		in   Size
		want string
	}{
		{0, "0B"},
		{1, "1B"},
		{1000, "1000B"},
		{1024, "1KiB"},
		{1536, "1536B"}, // 1.5KiB: not exact, so bytes
		{1536 * KiB, "1536KiB"},
		{64 * MiB, "64MiB"},
		{10_000_000, "10000000B"},
		{3 * GiB, "3GiB"},
		{TiB, "1TiB"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.in.String(), "Size(%d).String()", int64(tt.in))
		text, err := tt.in.MarshalText()
		if assert.NoError(t, err, "Size(%d).MarshalText()", int64(tt.in)) {
			assert.Equal(t, tt.want, string(text), "Size(%d).MarshalText()", int64(tt.in))
		}
	}
}

func TestSizeJSON(t *testing.T) {
	type limits struct {
		Memory Size `json:"memory,omitempty"`
		Output Size `json:"output,omitempty"`
	}
	b, err := json.Marshal(limits{Memory: 64 * MiB})
	require.NoError(t, err)
	assert.Equal(t, `{"memory":"64MiB"}`, string(b), "json.Marshal")
	var back limits
	if assert.NoError(t, json.Unmarshal(b, &back), "json.Unmarshal(%s)", b) {
		assert.Equal(t, 64*MiB, back.Memory, "json.Unmarshal(%s)", b)
	}
}

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in      string
		want    Duration
		wantErr string
	}{
		{in: "10s", want: Duration(10 * time.Second)},
		{in: "1m30s", want: Duration(90 * time.Second)},
		{in: "500ms", want: Duration(500 * time.Millisecond)},
		{in: "24h", want: maxDuration},
		{in: "1h", want: Duration(time.Hour)},

		{in: "", wantErr: `invalid duration "": write a number with a unit, such as "10s" or "1m30s"`},
		{in: "10", wantErr: `invalid duration "10": write a number with a unit, such as "10s" or "1m30s"`},
		{in: "ten seconds", wantErr: `invalid duration "ten seconds": write a number with a unit, such as "10s" or "1m30s"`},
		{in: "0s", wantErr: `invalid duration "0s": must be positive`},
		{in: "-1s", wantErr: `invalid duration "-1s": -1s: must be positive`},
		{in: "24h0m1s", wantErr: `invalid duration "24h0m1s": 24h0m1s is longer than the limit of 24h0m0s`},
		{in: "1000h", wantErr: `invalid duration "1000h": 1000h0m0s is longer than the limit of 24h0m0s`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := unmarshalCase(t, tt.in, tt.want, tt.wantErr)
			if !ok {
				return
			}
			text, err := got.MarshalText()
			require.NoError(t, err)
			back, err := ParseDuration(string(text))
			if assert.NoError(t, err, "ParseDuration(%q)", text) {
				assert.Equal(t, got, back, "ParseDuration(%q) (round trip)", text)
			}
		})
	}
}

func TestDurationString(t *testing.T) {
	assert.Equal(t, "1m30s", Duration(90*time.Second).String(), "String()")
}
