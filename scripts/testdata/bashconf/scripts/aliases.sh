#!/bin/bash
# Aliases in a script: expand_aliases, listings, errors, recursion.
shopt -s expand_aliases
alias hi='echo hello world'
hi
echo hi
alias echo_x='echo X' echo_y='echo Y'
echo_x
echo_y
unalias echo_x
echo_x 2>/dev/null
echo "unaliased: $?"
alias e=echo ll='ls -1'
alias e ll
alias | wc -l
alias nonexistentZZZ 2>/dev/null
echo "alias of nothing: $?"
unalias nonexistentZZZ 2>/dev/null
echo "unalias of nothing: $?"
alias sq="echo it's"
alias sq
alias hi2='echo hello world '
alias punct='!!!'
hi2 punct
alias hi3='e_ nested'
alias e_='echo __'
hi3
x=early
alias echo_v='echo $x'
x=late
echo_v
unalias -a
alias | wc -l
