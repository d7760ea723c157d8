# Words are expanded before redirections and declarations assign.
x=$(echo bare >&2) 2>/dev/null
echo "x=[$x]" 2>&1
readonly ro=$(echo decl >&2; echo v) 2>/dev/null
echo "ro=$ro"
echo out=$(echo call >&2; echo o) 2>/dev/null
f() { echo "in f: $(echo fn-err >&2)"; }
f 2>/dev/null
export A=1 b=$A c=$(echo "[$A]")
echo "b=[$b] c=$c"
g() { local p=1 q=$p; echo "q=[$q]"; }
g
shopt -s expand_aliases
alias e=export r=readonly
words='a b c'
e ex=$words
r ro2=$words
printf '<%s>\n' "$ex" "$ro2"
e ap=x
e ap+=$words
echo "ap=$ap"
