#!/bin/bash
# column, join and split as scripts use them.
printf 'name age city\nalice 30 paris\nbob 4 rome\n' | column -t
printf 'a:b:c\nlonger:x:y\n' | column -t -s: -o ' | '
printf 'one\ntwo\nthree\nfour\nfive\n' | column -c 30
printf '1 alice\n2 bob\n3 carol\n' > names.txt
printf '1 admin\n3 user\n4 guest\n' > roles.txt
join names.txt roles.txt
join -a1 -e NONE -o auto names.txt roles.txt
join -v2 names.txt roles.txt
printf 'id,n\n2,x\n1,y\n' > h.csv
printf 'id,m\n1,p\n2,q\n' > g.csv
join --header -t, <(head -1 h.csv; tail -n +2 h.csv | sort) g.csv
seq 1 10 > ten.txt
split -l 4 ten.txt part_
ls part_* | tr '\n' ' '; echo
cat part_ab
split -d -a 3 -b 5 ten.txt num_ --additional-suffix=.txt
ls num_* | tr '\n' ' '; echo
split -n l/3 ten.txt chunk_
wc -l chunk_* | tr -s ' '
split -l abc ten.txt 2>&1 | sed 's/^split: //'
join missing.txt names.txt 2>&1
echo "join of a missing file: $?"
