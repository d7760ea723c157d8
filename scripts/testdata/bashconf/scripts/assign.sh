# Declarations: combined flags, export -n and +x, bare names, dynamic
# scope of export, declaration builtins named by expansions.
typeset -ar ro=(3 4)
ro=(x) 2>/dev/null
echo "ro status=$? ${ro[*]}"
f() { declare -Ag dict; dict[k]=v; declare -g G=42; }
f
echo "dict=${dict[k]} G=$G"
export E=1
export -n E
env | grep -c '^E=' || true
export F=2
typeset +x F
env | grep -c '^F=' || true
foo=old
export -n foo=new
echo "foo=$foo"
declare x
declare -p x
declare -a arr1
declare -A dict1
readonly -a arr2
declare -p arr1 dict1 arr2
x=1
g() { local x; declare -p x; echo "[${x-unset}]"; }
g
var=b
b=global
h() { local a=loc $var c=loc; echo "$a [$b] $c"; }
h
inner() { export outer_var; env | grep '^outer_var='; }
outer() { local outer_var=X; inner; env | grep '^outer_var='; }
outer
typeset -a arr
arr=(1 2 3)
export arr
env | grep -c '^arr=' || true
words='a b c'
e=export
r=readonly
$e ex=$words
$r rd=$words
echo "[$ex] [$rd]"
d=declare
$d -p ex
