#!/bin/bash
# Associative arrays: literals, +=, keys written like arithmetic, counts.
declare -A colors=([apple]=red [banana]=yellow)
colors+=([lemon]=yellow [lime]=green)
echo "${#colors[@]} entries"
for f in apple banana lemon lime; do echo "$f is ${colors[$f]}"; done
printf '%s\n' "${!colors[@]}" | sort | tr '\n' ' '; echo
declare -A pairs=(one 1 two 2 three)
echo "pairs: ${#pairs[@]} ${pairs[two]} <${pairs[three]}>"
declare -A m
m=(k1 v1 k2 v2)
echo "${m[k2]} ${#m[@]}"
declare -A a
a['p+1']=c
echo "${a[p+1]}"
i=1
a[i+1]=z
echo "${a[i+1]} ${a['i+1']}"
unset 'colors[lime]'
echo "${#colors[@]} after unset"
[[ -v colors[apple] ]] && echo "apple is set"
