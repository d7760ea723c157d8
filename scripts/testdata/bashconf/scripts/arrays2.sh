# Associative arrays list keys and values in bash's hash order.
declare -A m=([a]=1 [b]=2 [0]=3 [foo]=4 [k1]=5 [k2]=6 [world]=7)
echo "${!m[@]}"
echo "${m[@]}"
declare -p m
for k in "${!m[@]}"; do printf '%s=%s ' "$k" "${m[$k]}"; done
echo

# declare -A s+=(...) of a string keeps the string as element 0.
s=hello
declare -A s+=([a]=x)
declare -p s

# An indexed array cannot become associative, nor the reverse.
declare -a arr=(1 2 3)
eval 'declare -A arr=([x]=y)'
echo "status=$? ${arr[*]}"
declare -A arr 2>/dev/null
echo "status=$? ${arr[*]}"
declare -A as=([x]=y)
eval 'declare -a as=(1 2)' 2>/dev/null
echo "status=$? ${as[*]}"
f() { local -A arr=([k]=v); echo "${arr[k]}"; }
f

# An error that abandons a line inside eval ends only the eval.
eval 'echo $((1/0)); echo not here' 2>/dev/null; echo "after eval $?"

# Tildes after ':' in assignments expand.
HOME=/home/me
p=~/bin:~/lib:a~:~
echo "$p"
declare q=~:~
echo "$q"
ia=([2]=~ [4]=~:~/x)
echo "${ia[@]}"
r=~"":~
echo "$r"

# A negative length slicing an array fails the command.
a=(1 2 3 4 5)
echo "${a[@]: 1: -3}" 2>/dev/null; echo "not here"
echo "status=$?"
t=abcdef
echo "${t:1:-2} ${a[@]:1:2}"
