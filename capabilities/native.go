package capabilities

import (
	"path/filepath"

	"github.com/BurntSushi/toml"

	"github.com/skillrun/skillrun/internal/tomlx"
)

// A NativeGrant lets one skill's source scripts run as confined host
// processes (the native tier, package native) instead of in WebAssembly,
// for the scripts WebAssembly cannot host (compiled Python packages, host
// programs). Only the operator grants it, in the skill's own table of a
// policy:
//
//	[skills."pdf-tools"]
//	native = true
//	native_path = ["/usr/bin", "/bin"]   # where python3, node, bash and the programs they start are found
//
// Nothing a skill declares asks for it, and [default] cannot grant it:
// it is trust in one skill, bound to that skill's identity like the rest
// of its table ([Policy.Native]).
type NativeGrant struct {
	// Path are the folders programs are found in; nil means the native
	// tier's default (/usr/local/bin, /usr/bin, /bin).
	Path []string
}

// nativeKeys are the policy keys of a NativeGrant.
var nativeKeys = []string{"native", "native_path"}

// Native returns the native grant of the skill ref: its own table's,
// when the table says native = true and is bound to this skill (as for
// [Policy.Grant]); nil when none. The error says why a table that grants
// it is not this skill's.
func (p *Policy) Native(ref SkillRef) (*NativeGrant, error) {
	if p == nil {
		return nil, nil
	}
	ng, ok := p.Natives[ref.Name]
	if !ok {
		return nil, nil
	}
	if err := p.bound(ref); err != nil {
		return nil, err
	}
	return &ng, nil
}

// native takes the native keys out of a skill's table: whether it grants
// the native tier, and with what path.
func (d *policyDecoder) native(children map[string]toml.Primitive, key toml.Key) (NativeGrant, bool) {
	var ng NativeGrant
	on := false
	if prim, ok := children["native"]; ok {
		delete(children, "native")
		sub := append(key[:len(key):len(key)], "native")
		var v any
		_ = d.md.PrimitiveDecode(prim, &v)
		b, isBool := v.(bool)
		if !isBool {
			d.add(sub, "%s: expected true or false, found %s", sub, tomlx.DescribeValue(v))
		}
		on = b
	}
	if prim, ok := children["native_path"]; ok {
		delete(children, "native_path")
		sub := append(key[:len(key):len(key)], "native_path")
		var v any
		_ = d.md.PrimitiveDecode(prim, &v)
		list, isList := v.([]any)
		if !isList || len(list) > maxListLen {
			d.add(sub, "%s: expected a list of absolute folders, found %s", sub, tomlx.DescribeValue(v))
		}
		for _, e := range list {
			s, ok := e.(string)
			if !ok {
				d.add(sub, "%s: expected folder paths, found %s", sub, tomlx.DescribeValue(e))
				continue
			}
			if !filepath.IsAbs(s) || filepath.Clean(s) != s {
				d.add(sub, "%s: %q is not an absolute, clean folder path", sub, s)
				continue
			}
			ng.Path = append(ng.Path, s)
		}
		if !on {
			d.add(sub, "%s: native_path without native = true grants nothing", sub)
		}
	}
	return ng, on
}

// refuseNative reports the native keys in the [default] table: the
// native tier is trust in one skill, never in every skill.
func (d *policyDecoder) refuseNative(children map[string]toml.Primitive, key toml.Key) {
	for _, name := range nativeKeys {
		if _, ok := children[name]; ok {
			delete(children, name)
			sub := append(key[:len(key):len(key)], name)
			d.add(sub, "%s: the native tier is granted per skill, in its own [skills.NAME] table, never by default", sub)
		}
	}
}
