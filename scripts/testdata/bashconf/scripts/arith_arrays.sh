#!/bin/bash
# Arithmetic that assigns to array elements, and text evaluated as an
# expression (a variable's value, let's quoted arguments).
declare -A count
for w in apple pear apple fig apple; do (( count[$w]++ )); done
for k in apple fig pear; do echo "$k ${count[$k]}"; done
x=(1 2)
(( x[1] += 5 ))
let "x[0]=7"
echo "${x[@]} $(( x[0] * 2 ))"
a=()
(( a[3]=1 ))
echo "sparse: ${#a[@]} ${!a[*]}"
i=0
(( x[i++] *= 3 ))
echo "${x[@]} i=$i"
arr=(5 6 7)
(( arr[-1]++ ))
echo "${arr[@]}"
e="1+2"
echo $(( e * 2 ))
let "y=3" "z=y*2"
echo "$y $z"
p=q; q=r; r=5
echo $(( p + 1 ))
v=""
echo $(( v + 1 ))
n=0
for i in 1 2 3; do (( n += i )); done
(( n-- ))
echo "n=$n"
declare -A seen
while read -r w; do (( seen[$w]++ )) || true; done < <(printf 'x\ny\nx\n')
echo "x=${seen[x]} y=${seen[y]}"
