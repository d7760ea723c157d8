module extplugin

go 1.26

require github.com/extism/go-pdk v1.1.3
