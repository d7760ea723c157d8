#!/bin/bash
# Word expansion: "$@" among other quoted parts, the words of ${v:-word}
# and ${v+word}, \cX in $'...', brace expansion with empty alternatives
# and tildes, and a line continuation after a dollar sign.
show() { for a in "$@"; do printf '[%s]' "$a"; done; echo; }
show "-$@-" "x$@" "${@}y" "<$*>"
f() { show "-$@-"; show "a$@b$@c"; }
f
f ""
f 1 "2 3"
show 1 ${undefined:-"2 3" "4 5"} 6
show 1${undefined:-"2 3" "4 5"}6
IFS=_
show 1${undefined:-"2_3"x_x"4_5"}6
IFS=x
v=
echo ${v:-AxBxC} ${v:-AxBxC}x ${v:-"AxBxC"}x "${v:-AxBxC}"x
unset IFS
show ${v:-""} ${v:-} ${v:+""} ${v-""} a${nope-'' ''}b ${nope:-a\ b c}
w=val
show ${w:+"a b" c} ${w:-"x y"} ${w+$w "$w"}
printf %s $'\c0\c9-\ca\cZ\c-\c"' | od -An -tx1
show {X,,Y,} {X,,Y,}'' {,a}
HOME=/home/bob
show {foo~,~}/bar ~{/src,}
a=({foo~,~}/bar)
show "${a[@]}"
echo $\
? "$\
{HOME}" $\
((1 + 2))
touch foo.- c.C b-x
echo *.[C-D] *.[C\-D] *.[C'-'D] b\-*
case - in [a\-z]) echo dash matches ;; *) echo no match ;; esac
case b in [a\-z]) echo b matches ;; *) echo no match ;; esac
rm -f foo.- c.C b-x
