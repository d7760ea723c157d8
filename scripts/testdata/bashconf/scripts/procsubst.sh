#!/bin/bash
# Process substitution: <(...) as a file argument and as a redirection.
diff <(printf 'a\nb\nc\n') <(printf 'a\nc\n')
echo "diff: $?"
while read -r l; do echo "got:$l"; done < <(printf 'x\ny\n')
paste <(seq 3) <(seq 4 6)
cat <(echo a) <(echo b) | wc -l
n=0
while read -r _; do n=$((n+1)); done < <(seq 10)
echo "counted in the current shell: $n"
sort -r <(printf 'b\na\nc\n')
f() { cat "$1"; }
f <(echo in-a-function)
x=$(cat <(echo in-a-substitution))
echo "x=$x"
comm -12 <(printf 'a\nb\nc\n') <(printf 'b\nc\nd\n')
mapfile -t lines < <(printf 'm1\nm2\n')
echo "mapfile: ${#lines[@]} ${lines[1]}"
readarray -t sorted < <(printf '3\n1\n2\n' | sort -n)
echo "sorted: ${sorted[*]}"
grep -c . <(printf 'g\n\ng\n')
