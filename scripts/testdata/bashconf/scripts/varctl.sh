# @ operators on lists and strings, bad substitutions, empty slice
# lengths, quoted parentheses in patterns, empty $HOME, bad for names.
x=x; empty=; a=(1 'b c'); declare -r ro=v
for op in Q E U u L a; do
  eval 'printf "<%s>" "$op" "${x@'$op'}" "${empty@'$op'}" "${undef@'$op'}" "${a[@]@'$op'}" "${a[*]@'$op'}" "${u[@]@'$op'}" "${u[*]@'$op'}"'
  echo
done
echo "${x@K}|${empty@k}|${undef@K}|${x@A}|${empty@A}|${undef@A}|${ro@A}|${ro@a}|${@@a}|"
printf '<%s>' "${@@Q}" "${*@U}"; echo
s=abc
echo "${s::}|${s:1:}|${a[@]::}|${a[@]:0:}|"
( echo ${#s:1}; echo not reached ); echo "status=$?"
( echo ${#s-x}; echo not reached ); echo "status=$?"
( echo ${s:}; echo not reached ); echo "status=$?"
[[ 'foo()' == *'()' ]] && echo paren1
shopt -s extglob
[[ 'foo()' == *'()' ]] && echo paren2
[[ 'a|b' == *'|'* ]] && echo bar
HOME=
[[ ~ ]]; echo "tilde=$?"
[[ $HOME == ~ ]]; echo "home=$?"
for - in a b; do echo body; done 2>/dev/null; echo "for=$?"
