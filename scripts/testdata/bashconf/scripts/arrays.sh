#!/bin/bash
# Arrays: element append, negative indexes, unset of elements, @Q,
# empty associative arrays, an associative array's string part.
a=(x y); a[1]+=z; echo "${a[@]}"
a=(1 '2 3'); a[-1]+=' 4'; printf '<%s>' "${a[@]}"; echo
a=(0 1 2 3 4); unset 'a[1]' 'a[4]'; a[-1]+=0; echo "${a[@]}"
(( a[-1] += 42 )); echo "${a[@]}"
echo "[${a[-9]}]" 2>/dev/null; echo "status $?"
echo "[$((a[-9]))]" 2>/dev/null
declare -A m; m[k]=foo; m[k]+=bar; m['k']+=baz; echo "${m[k]}"
s=ab; s[0]+=c; echo "$s"
b[0]=x; b[5]=y; [[ -v b[5] ]] && echo "b has 5"; [[ -v b[-1] ]] && echo "b has -1"
[[ -v b[-6] ]] && echo "b has -6"; [[ -v b[3] ]] || echo "b lacks 3"
declare -A e; printf '<%s>' "${e[@]}" "${!e[@]}"; echo "n=${#e[@]}"
declare -A u=([K]=v); unset -v 'u["K"]'; echo "len ${#u[@]}"
u=([K]=v); key=K; unset -v 'u[$key]'; echo "len ${#u[@]}"
c=(1); unset -v 'c[-2]' 2>/dev/null; echo "unset status $?"
c=(1 2 3); i=0; unset 'c[i++]'; echo "$i ${c[*]}"
q[0]=x; q[2]="it's"; echo "(${q[@]@Q})"; printf '<%s>' "${q[*]@Q}"; echo
t=abc; echo "${t@Q}" "[${nope@Q}]"
declare -A as; as[1]=1; as=string; echo "${as[1]} $as"; as+=X; echo "$as"
