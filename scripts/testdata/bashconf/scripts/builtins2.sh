# builtins2: $- of the shell's command line (-c, -s, -i), -o with any set
# -o name, an interactive shell's options and set -u, commands before a
# syntax error running (with the EXIT trap), /bin/echo and friends,
# mapfile from a directory, and time reporting on standard error.

echo "flags: $-"
bash -o nounset -c 'echo "c: $-"'
echo 'echo "s: $-"' | bash
bash --rcfile /dev/null -i -c 'echo "i: $-"; test -o emacs; echo "emacs $?"; test -o vi; echo "vi $?"' 2>/dev/null
bash -o noglob -c 'shopt -po noglob'

bash -i -c 'set -u; echo before; echo $undefined_var; echo after
echo line2
' 2>/dev/null
echo "interactive status=$?"
bash -c 'set -u; echo before; echo $undefined_var; echo after
echo line2
' 2>/dev/null || echo "non-interactive: failed"

bash -c 'trap "echo exit trap" EXIT
echo first
for' 2>/dev/null
echo "syntax error status=$?"
bash -c 'trap "echo exit trap; exit 0" EXIT
for' 2>/dev/null
echo "syntax error, exit 0: $?"
bash -c 'echo a; for' 2>/dev/null
echo "same line: $?"

foo=$(/bin/echo -e 'a\nb\x01c'\'d)
printf 'pf %q\n' "$foo"
/usr/bin/printf '%s-' x y; echo
/usr/bin/test -n x && echo "test ok"
/bin/true && echo "true ok"

mkdir -p dir
mapfile lines < ./dir
echo "mapfile status=$? n=${#lines[@]}"

{ time echo hi | wc -c; } 2>/dev/null
