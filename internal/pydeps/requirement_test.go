package pydeps

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{"PyYAML": "pyyaml", "python_dotenv": "python-dotenv", "Foo.-_Bar": "foo-bar", "et_xmlfile": "et-xmlfile"} {
		assert.Equal(t, want, Normalize(in), "Normalize(%q)", in)
	}
}

func TestParseRequirement(t *testing.T) {
	for in, want := range map[string]Requirement{
		"PyYAML":                              {Name: "PyYAML"},
		"PyYAML >= 6.0, < 7":                  {Name: "PyYAML", Specifier: ">=6.0,<7"},
		"requests[socks,security]==2.32.3":    {Name: "requests", Specifier: "==2.32.3", Extras: []string{"socks", "security"}},
		"pypdf (>=3)":                         {Name: "pypdf", Specifier: ">=3"},
		`defusedxml; python_version >= "3.8"`: {Name: "defusedxml", Marker: `python_version >= "3.8"`},
		"typing_extensions >= 3.10.0.0; python_version < '3.10'": {Name: "typing_extensions", Specifier: ">=3.10.0.0", Marker: "python_version < '3.10'"},
	} {
		got, err := ParseRequirement(in)
		if !assert.NoError(t, err, "%q", in) {
			continue
		}
		assert.Equal(t, want.Name, got.Name, "%q: name", in)
		assert.Equal(t, want.Specifier, got.Specifier, "%q: specifier", in)
		assert.Equal(t, want.Marker, got.Marker, "%q: marker", in)
		if len(want.Extras) == 0 {
			assert.Empty(t, got.Extras, "%q: extras", in)
		} else {
			assert.Equal(t, want.Extras, got.Extras, "%q: extras", in)
		}
	}
	for _, bad := range []string{"", ">=1", "foo @ https://x/y.whl", "foo[bar", "foo bar", "foo; python_version >>> '3'", "foo; (os_name == 'posix'", "foo (>=1"} {
		_, err := ParseRequirement(bad)
		assert.Error(t, err, "ParseRequirement(%q) succeeded", bad)
	}
}

func TestMarkers(t *testing.T) {
	for m, want := range map[string]bool{
		`python_version >= "3.8"`:                                            true,
		`python_version < '3.10'`:                                            false,
		`python_full_version >= "3.11.1"`:                                    true,
		`sys_platform == "win32"`:                                            false,
		`sys_platform == "wasi" and os_name == "posix"`:                      true,
		`platform_machine == "x86_64" or platform_machine == "wasm32"`:       true,
		`implementation_name == "cpython"`:                                   true,
		`platform_python_implementation != "PyPy"`:                           true,
		`extra == "dev"`:                                                     false,
		`(python_version > "3" and sys_platform != "win32") or extra == 'x'`: true,
		`"linux" in sys_platform`:                                            false,
		`"wa" in sys_platform`:                                               true,
		`sys_platform not in "linux darwin"`:                                 true,
		`some_new_variable == "x"`:                                           false, // unknown: false
		`some_new_variable != "x"`:                                           false, // unknown: false either way
		`os.name == "posix"`:                                                 true,  // PEP 345 spelling
	} {
		got, err := EvalMarker(m, "")
		if assert.NoError(t, err, m) {
			assert.Equal(t, want, got, m)
		}
	}
	ok, _ := EvalMarker(`extra == "Fancy_Stuff"`, "fancy-stuff")
	assert.True(t, ok, "extras compare normalized")
}

func FuzzParseRequirement(f *testing.F) {
	for _, s := range []string{"PyYAML>=6.0,<7", "requests[socks]==2.*; python_version >= '3.8' and (os_name == 'posix' or extra == 'x')", "foo (>=1) ; sys_platform not in 'win32'", "a;b", "x[", "y; (((", `z; "a" < "b"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRequirement(s)
		if err != nil {
			return
		}
		if _, err := r.applies(""); err != nil {
			t.Fatalf("%q parsed but its marker does not evaluate: %v", s, err)
		}
		if _, err := ParseSpecifier(r.Specifier); err != nil {
			t.Fatalf("%q parsed but its specifier %q does not: %v", s, r.Specifier, err)
		}
		_ = r.String()
	})
}
