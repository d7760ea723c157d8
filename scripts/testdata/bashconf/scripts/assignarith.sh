# Arithmetic that bash parses only when it runs, and unset of a caller's
# local (skillrun: shellpatch/syntax/assignarith.go,
# shellpatch/interp/assignarith.go).
base=16
echo "dyn base: $(( ${base}#ff ))"
foo=bar
echo "dyn name: $(( x$foo[2] = 7 )) ${xbar[2]} $(( x$foo[2]++ )) ${xbar[2]}"
(( ))
echo "empty cmd: $?"
echo "empty exp: $(( ))"
a=9
(( (a + 2) = 3 )) 2>/dev/null
echo "not an lvalue: $? a=$a"
(( b[1][2] = 3 )) 2>/dev/null
echo "two subscripts: $?"
(( c = 3 + 4  # no comments here
)) 2>/dev/null
echo "comment: $? [$c]"
echo "multiline: $((
1 +
2 + \
3
))"
f() { echo "in f: $(( 1 + 2.5 ))"; }
f 2>/dev/null
echo "after float: $?"
echo "nested: $(( $(( 2 * 3 )) + $(echo 4) )) $(( (1 + 2) * 3 ))"
if ((1 < 2)); then echo "cmd ok"; fi
arr=(a b c d)
echo "slice: ${arr[@]: } | ${arr[@]: :2} |"

unlocal() { unset "$@"; }
level2() {
  local hello=yy
  echo "level2=$hello"
  unlocal hello
  echo "level2=$hello"
}
level1() {
  local hello=xx
  level2
  echo "level1=$hello"
  unlocal hello
  echo "level1=$hello"
  level2
}
hello=global
level1
g() { local z=1; unset z; echo "own local: [${z-unset}]"; }
z=outer
g
echo "z=$z"
h() { local q=1; ( unlocal q; echo "subshell: [${q-unset}]" ); echo "h: [$q]"; }
h
ble/foo() { echo hi; }
declare -F ble/foo
echo "declare -F: $?"
