#!/bin/bash
# envsubst replaces $NAME and ${NAME} with exported values (empty when
# unset), only those a SHELL-FORMAT names when one is given; nothing
# else of the shell's syntax.
export A=1 B='two words' EMPTY=
unset C
tmpl='a=$A b=${B} c=$C d=${D:-x} e=$ f=$$ g=${A}x h=\$A i=$9 j=${A k=$EMPTY| l=$A_B m=${A}${B}'
echo "$tmpl" | envsubst
echo "$tmpl" | envsubst '$A'
echo "$tmpl" | envsubst '${B} $C'
envsubst -v 'x $A ${B} $A'
envsubst --variables '$B'
printf 'no newline $A' | envsubst; echo
NOTEXPORTED=1; echo '[$NOTEXPORTED]' | envsubst
envsubst a b 2>/dev/null; echo "too many: $?"
envsubst -v 2>/dev/null; echo "missing: $?"
envsubst -x 2>/dev/null; echo "bad option: $?"
cat > tmpl.txt <<'T'
server {
  listen ${PORT};
  root $ROOT/html;
}
T
PORT=8080 ROOT=/srv envsubst '$PORT $ROOT' < tmpl.txt
