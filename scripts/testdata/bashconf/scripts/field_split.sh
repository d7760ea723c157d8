#!/bin/bash
# Field splitting on IFS characters other than blanks: empty fields kept,
# as CSV-splitting scripts need.
show() { printf '[%s]' "$@"; echo " $#"; }
IFS=,
line="a,,b,"
show $line
for col in $line; do echo "col=<$col>"; done
x=",a"
show $x
a="x,y"; b="z,"
show $a$b
show pre$(echo ",a,b")
set -- "a,b" ",c"
show $@
IFS=' ,'
x=' ,a , b,,c '
show $x
IFS=:
p="/bin::/usr/bin:"
show $p
IFS=';'
for kv in "k1=v1;k2=;k3=v3"; do :; done
kvs="k1=v1;k2=;k3=v3"
for kv in $kvs; do echo "${kv%%=*} -> ${kv#*=}"; done
IFS=$' \t\n'
x="a  b   c"
show $x
while IFS=, read -r n v rest; do echo "$n|$v|$rest"; done <<'CSV'
name,value,extra,more
empty,,x
CSV
