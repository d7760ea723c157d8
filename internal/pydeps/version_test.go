package pydeps

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestVersionOrder(t *testing.T) {
	// Ascending, from PEP 440's examples.
	order := []string{"1.0.dev456", "1.0a1", "1.0a2.dev456", "1.0a12.dev456", "1.0a12", "1.0b1.dev456", "1.0b2", "1.0b2.post345.dev456", "1.0b2.post345", "1.0rc1.dev456", "1.0rc1", "1.0", "1.0+abc.5", "1.0+abc.7", "1.0+5", "1.0.post456.dev34", "1.0.post456", "1.0.15", "1.1.dev1", "1.9", "1.10", "1!0.1"}
	for i := range order {
		for j := range order {
			a, err := ParseVersion(order[i])
			require.NoError(t, err)
			b, _ := ParseVersion(order[j])
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			assert.Equal(t, want, a.Compare(b), "compare(%s, %s)", a, b)
		}
	}
	for _, eq := range [][2]string{{"1.0", "1.0.0"}, {"1.0-RC1", "1.0rc1"}, {"v2", "2"}, {"1.0-1", "1.0.post1"}, {"1.0alpha", "1.0a0"}, {"1.0c3", "1.0rc3"}} {
		a, err1 := ParseVersion(eq[0])
		b, err2 := ParseVersion(eq[1])
		if assert.NoError(t, err1, eq[0]) && assert.NoError(t, err2, eq[1]) {
			assert.Zero(t, a.Compare(b), "%s != %s", eq[0], eq[1])
		}
	}
	for _, bad := range []string{"", "abc", "1.0-", "1..0", "1.0+", "99999999999999999999999"} {
		_, err := ParseVersion(bad)
		assert.Error(t, err, "ParseVersion(%q) succeeded", bad)
	}
}

func TestSpecifier(t *testing.T) {
	for _, tc := range []struct {
		spec, yes, no string
	}{
		{">=6.0,<7", "6.0 6.0.1 6.9", "5.9 7.0 7.0rc1 6.0rc1"},
		{"==1.4.*", "1.4 1.4.0 1.4.5 1.4.5.post1", "1.5 1.40 1.3"},
		{"!=1.4.*", "1.5 1.3", "1.4.2"},
		{"~=2.2", "2.2 2.3 2.9.1", "3.0 2.1"},
		{"~=1.4.5", "1.4.5 1.4.9", "1.5.0 1.4.4"},
		{"==1.0", "1.0 1.0.0 1.0+local", "1.0.post1"},
		{"==1.0+local", "1.0+local", "1.0"},
		{"<3.0", "2.9", "3.0rc1 3.0"},
		{">1.0", "1.1", "1.0 1.0.post1 1.0+x"},
		{"<=2", "2.0 2.0+x", "2.0.1"},
		{"===1.0", "1.0", "1.0.0"},
		{"", "1 0.0.1 9!9", ""},
	} {
		s, err := ParseSpecifier(tc.spec)
		require.NoError(t, err, "%q", tc.spec)
		for _, v := range strings.Fields(tc.yes) {
			assert.True(t, s.Contains(mustVersion(v)), "%q should contain %s", tc.spec, v)
		}
		for _, v := range strings.Fields(tc.no) {
			assert.False(t, s.Contains(mustVersion(v)), "%q should not contain %s", tc.spec, v)
		}
	}
	for _, bad := range []string{"1.0", ">=", "~=1", ">=1.*", "==1.0rc1.*", "<1.0+x", "=>1"} {
		_, err := ParseSpecifier(bad)
		assert.Error(t, err, "ParseSpecifier(%q) succeeded", bad)
	}
}

func FuzzParseVersion(f *testing.F) {
	for _, s := range []string{"1.0", "1!2.0.post3.dev4+local.7", "1.0-RC1", "v2", "1.0a", "0"} {
		f.Add(s, ">=1.0,!=1.4.*,~=1.2")
	}
	f.Fuzz(func(t *testing.T, v, spec string) {
		a, err := ParseVersion(v)
		if err != nil {
			return
		}
		if a.Compare(a) != 0 {
			t.Fatalf("%s != itself", v)
		}
		if s, err := ParseSpecifier(spec); err == nil {
			s.Contains(a)
			_ = s.String()
		}
		b := mustVersion("1.0")
		if a.Compare(b) != -b.Compare(a) {
			t.Fatalf("compare(%s, 1.0) not antisymmetric", v)
		}
	})
}
