package main

import (
	"path"
	"strings"

	"github.com/dop251/goja"
)

// Node's path module (POSIX): Node's normalize keeps a trailing slash and
// "..", which path.Clean would not, so join and normalize are Node's.

// normalize is Node's path.normalize.
func normalize(p string) string {
	if p == "" {
		return "."
	}
	abs := strings.HasPrefix(p, "/")
	trailing := strings.HasSuffix(p, "/")
	var out []string
	for _, seg := range strings.Split(p, "/") {
		switch seg {
		case "", ".":
		case "..":
			if len(out) > 0 && out[len(out)-1] != ".." {
				out = out[:len(out)-1]
			} else if !abs {
				out = append(out, "..")
			}
		default:
			out = append(out, seg)
		}
	}
	s := strings.Join(out, "/")
	switch {
	case abs:
		s = "/" + s
	case s == "":
		s = "."
	}
	if trailing && s != "/" {
		s += "/"
	}
	return s
}

func (in *interp) pathModule() goja.Value {
	vm := in.vm
	o := vm.NewObject()
	set(o, "sep", "/")
	set(o, "delimiter", ":")
	set(o, "join", func(parts ...string) string {
		var keep []string
		for _, p := range parts {
			if p != "" {
				keep = append(keep, p)
			}
		}
		if len(keep) == 0 {
			return "."
		}
		return normalize(strings.Join(keep, "/"))
	})
	set(o, "resolve", func(parts ...string) string {
		p := workdir()
		for _, s := range parts {
			if s == "" {
				continue
			}
			if path.IsAbs(s) {
				p = s
			} else {
				p = p + "/" + s
			}
		}
		return path.Clean(p)
	})
	set(o, "normalize", normalize)
	set(o, "dirname", func(p string) string {
		if p == "" {
			return "."
		}
		p = strings.TrimRight(p, "/")
		if p == "" {
			return "/"
		}
		i := strings.LastIndex(p, "/")
		switch {
		case i < 0:
			return "."
		case i == 0:
			return "/"
		}
		return strings.TrimRight(p[:i], "/")
	})
	set(o, "basename", func(p string, ext ...string) string {
		p = strings.TrimRight(p, "/")
		b := p[strings.LastIndex(p, "/")+1:]
		if len(ext) > 0 && ext[0] != b {
			b = strings.TrimSuffix(b, ext[0])
		}
		return b
	})
	set(o, "extname", nodeExt)
	set(o, "isAbsolute", func(p string) bool { return strings.HasPrefix(p, "/") })
	set(o, "relative", func(from, to string) string {
		resolve, _ := goja.AssertFunction(o.Get("resolve"))
		fv, _ := resolve(o, vm.ToValue(from))
		tv, _ := resolve(o, vm.ToValue(to))
		f := strings.Split(strings.Trim(fv.String(), "/"), "/")
		t := strings.Split(strings.Trim(tv.String(), "/"), "/")
		if f[0] == "" {
			f = nil
		}
		if t[0] == "" {
			t = nil
		}
		i := 0
		for i < len(f) && i < len(t) && f[i] == t[i] {
			i++
		}
		var up []string
		for range f[i:] {
			up = append(up, "..")
		}
		return strings.Join(append(up, t[i:]...), "/")
	})
	parsed := func(root, dir, base, ext, name string) *goja.Object {
		r := vm.NewObject()
		for _, kv := range [][2]string{{"root", root}, {"dir", dir}, {"base", base}, {"ext", ext}, {"name", name}} {
			set(r, kv[0], kv[1])
		}
		return r
	}
	set(o, "parse", func(p string) *goja.Object {
		root := ""
		if strings.HasPrefix(p, "/") {
			root = "/"
		}
		trimmed := strings.TrimRight(p, "/")
		if trimmed == "" {
			return parsed(root, root, "", "", "")
		}
		i := strings.LastIndex(trimmed, "/")
		dir, base := "", trimmed[i+1:]
		switch {
		case i == 0:
			dir = "/"
		case i > 0:
			dir = trimmed[:i]
		}
		ext := nodeExt(base)
		return parsed(root, dir, base, ext, strings.TrimSuffix(base, ext))
	})
	set(o, "format", func(obj map[string]any) string {
		str := func(k string) string { s, _ := obj[k].(string); return s }
		dir := str("dir")
		if dir == "" {
			dir = str("root")
		}
		base := str("base")
		if base == "" {
			ext := str("ext")
			if ext != "" && !strings.HasPrefix(ext, ".") {
				ext = "." + ext
			}
			base = str("name") + ext
		}
		switch {
		case dir == "":
			return base
		case dir == str("root"):
			return dir + base
		}
		return dir + "/" + base
	})
	set(o, "toNamespacedPath", func(p string) string { return p })
	set(o, "posix", o)
	return o
}

// nodeExt is Node's path.extname: a leading dot does not start one.
func nodeExt(p string) string {
	b := strings.TrimRight(p, "/")
	b = b[strings.LastIndex(b, "/")+1:]
	i := strings.LastIndex(b, ".")
	if i <= 0 {
		return ""
	}
	return b[i:]
}
