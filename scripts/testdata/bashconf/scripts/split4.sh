# Unquoted $@, $* and ${a[@]} are joined with IFS's first character and
# split again, so a non-blank IFS character keeps empty elements as
# empty fields; "" is an empty quoted part of its field as '' is; a byte
# that is not UTF-8 reaches a nested python3 unchanged.
show() { printf '<%s>' "$@"; echo; }
set -- one '' two
IFS=zx
show $@
show $*
show =$@=
a=(q '' r)
show ${a[@]} ${a[*]}
set -- "" "" "" "" ""
IFS=x
show =$@=
show $*
set -- $*
show $*
IFS=', '
set -- "a " "" " b"
show $@ x$*y
IFS=
set -- a '' b
show $@ $*
unset IFS
A="   abc   def   "
show ""$A""
show ""$A $A""
set --
show ""$@ "$@"""
python3 -c 'import sys; print(ascii(sys.argv[1:]))' "$(printf '\377')" "$(printf '\0377')"
