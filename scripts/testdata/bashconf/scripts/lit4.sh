# [k]+=v in array literals, and assignments/expansions bash parses but
# fails to run (status 1, the rest of the line abandoned).
hello=100
a=([hello]=1 [hello]+=2)
echo "${!a[@]} ${a[@]}"
a+=([hello]+=:34 [hello]+=:56 [7]+=x)
echo "${!a[@]} ${a[@]}"
b=(1 2)
b=([1]+=x [0]+=y)
echo "${b[@]}"
declare -A m=([h]=X)
m=([h]+=2 [h]+=3)
echo "${m[h]}"
m+=([h]+=4 [k]+="q r")
echo "${m[h]} ${m[k]}"
c=(1 2 3)
c[]=42 2>/dev/null; echo same line
echo status=$? "${c[@]}"
echo ${c[]} 2>/dev/null; echo same line
echo status=$?
c[0]=(3 4) 2>/dev/null; echo same line
echo status=$? "${c[@]}"
echo "${c[0]}" "${c[0][0]}" 2>/dev/null; echo same line
echo status=$?
declare c[]=5 2>/dev/null
echo status=$? "${c[@]}"
