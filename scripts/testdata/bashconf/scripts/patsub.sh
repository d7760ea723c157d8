#!/bin/bash
# Pattern replacement anchored at the start (/#) or the end (/%).
x=xx_xx
echo ${x/#xx/yy} ${x/%xx/yy} ${x//xx/yy} ${x/xx/yy}
a=(aa bb "")
printf '[%s]' "${a[@]/#/prefix-}"; echo
printf '[%s]' "${a[@]/%/-suffix}"; echo
f=path/to/file.txt
echo "${f/#path/root}" "${f/%.txt/.md}" "${f/%.csv/.md}"
s="hello world"
echo "${s/#hello/bye}" "${s/%world/there}" "${s/#h*o/H}" "${s/%o*/O}"
files=(a.c b.c c.h)
echo "${files[@]/%.c/.o}"
echo "${x//#/!}"
