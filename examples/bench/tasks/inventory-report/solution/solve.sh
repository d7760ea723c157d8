#!/bin/bash
cd /app && mkdir -p out
awk -F, 'NR>1 {s[$1]+=$4; t+=$4} END {
  print "| category | value |"
  for (c in s) printf "| %s | %.2f |\n", c, s[c]
  printf "\nTotal: %.2f\n", t }' inventory.csv > out/report.md
