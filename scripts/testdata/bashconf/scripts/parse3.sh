# parse3: list words of ${v:-word}, dynamic declaration names, arrays
# before a command word.
a=(1 "2 3")
e=()
printf '<%s>' "${u[@]:-${a[@]}}" "${u:-x${a[@]}y}" "${a[@]:+${a[@]}}"; echo
printf '<%s>' "${u:-${e[@]}}" "${u:-x${e[@]}}"; echo
dyn=x
typeset s${dyn}+=foo
typeset s${dyn}+=bar
echo "sx=$sx"
y=1
B=(x   $y "a  b") printenv B
B=([k]=v [j]="$y") printenv B
a=1 b[0]=2 c=3 printenv a c 2>/dev/null
echo "b=${b-unset} rc=$?"
