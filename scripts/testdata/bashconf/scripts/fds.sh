#!/bin/bash
# Descriptors above 2: exec-opened, duplicated, moved, {var}, <>, read -u.
exec 3>out.txt
echo one >&3
echo two 1>&3
exec 3>&-
cat out.txt

printf 'l1\nl2\nl3\n' > in.txt
exec 4<in.txt
read -r a <&4
read -r -u 4 b
read -u4 c
exec 4<&-
echo "$a|$b|$c"
read -u 4 d 2>/dev/null
echo "read from a closed descriptor: $?"

exec {fd}>named.txt
echo "allocated from 10: $(( fd >= 10 ))"
echo named >&"$fd"
exec {fd}>&-
cat named.txt

exec 3>&1
out=$( { echo to-stdout; echo to-stderr >&2; } 2>&1 1>&3 )
exec 3>&-
echo "captured: $out"

{ echo swapped-out; echo swapped-err >&2; } 3>&1 1>&2 2>&3 2>/dev/null

echo hello >&5 2>/dev/null
echo "write to a closed descriptor: $?"

echo first > rw.txt
echo second >> rw.txt
exec 3<> rw.txt
read -r line <&3
echo "line=$line"
echo CONTENTS >&3
exec 3>&-
cat rw.txt

exec 5>moved.txt
echo hello5 >&5
exec 6>&5-
echo world5 >&5 2>/dev/null
echo world6 >&6
exec 6>&-
cat moved.txt

# A descriptor given to one command only.
echo temporary 7>tmp7.txt >&7
echo after >&7 2>/dev/null || echo "7 closed again"
cat tmp7.txt

# A here-document on another descriptor.
while read -r -u 9 x; do echo "heredoc:$x"; done 9<<END
p
q
END
