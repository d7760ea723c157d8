# Parameter expansion operators: the words of -/+ (quoting, laziness,
# lists), quoted patterns of removals and replacements, ${x////c}.
p() { printf '[%s]' "$@"; echo; }
v="a b c"
p ${u:-'a b c'} ${u:-"a b" c} ${u:-"$v"} ${u-A$v " $v"D E F}
p "${u:-'b'}" "${u-'$v'}" "${u-"$v"}" "${u-\}}" "${u-'}'}" "${u-\$\z}"
p ${a:-${a:-"1 2" "3 4"}5 "6 7"} ${u-''}
i=0; x=x
echo ${x:-$((i++))} $i ${undefined:-$((i++))} $i
set -- "" ""
IFS=
echo argv=${*-minus} argv=${*+plus} argv=${*:-minus} argv=${*:+plus}
a=("" "")
p ${a[*]:-empty} "${a[*]:-empty}" "${a[@]:-empty}"
IFS=' '
set --
echo argv=${@-minus} argv=${@+plus}
empty=() a2=('' x)
p "${empty[@]-minus}" "${empty[@]+plus}" "${a2[@]-minus}" "${a2[@]+plus}"
declare -A assoc=([k]=v)
echo ${assoc[@]-minus} ${assoc[@]+plus}
var='[foo]'
echo ${var#?} ${var#"?"} "${var#"?"}"
var='[a]foo[]'
echo ${var#[a]} ${var#"[a]"}
shopt -s extglob
x='foo()'
echo 1 ${x%*(foo|bar)'()'} 2 ${x##*(foo|bar)'()'}
x='a[[[---]]]b'
echo "${x//['[]']}"
x='/_/'
echo ${x////c} ${x//'/'/c}
x='slash / brace } hi'
echo ${x///}
h=/foo/bar
echo ${h////\\/} ${h//'/'/\\/}
