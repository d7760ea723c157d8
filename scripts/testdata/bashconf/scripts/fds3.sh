# Here-document delimiters holding expansions are literal text.
cat <<${a}
here
${a}
cat <<$(a)
body $1
$(a)
cat <<a$b
in $2
a$b
# FUNCNAME: the running functions, innermost first, then main.
inner() { echo "${FUNCNAME[@]}" "$FUNCNAME"; local r=FUNCNAME; echo "${!r}"; }
outer() { inner; ( inner ); }
outer
echo "[${FUNCNAME[*]}]"
# ${x@Q} writes control characters in octal, as set and printf %q do.
x=$(printf 'a\nb\001c\033d'\''e')
echo "${x@Q}"
printf '%q\n' "$x"
declare -p x
