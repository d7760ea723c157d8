#!/bin/bash
# The oracle: the same report, with awk.
cd /app && mkdir -p out
awk -F, 'NR>1 {s[$1]+=$4; t+=$4} END {
  print "# revenue by region\n\n| region | revenue | share |\n| ------ | ------: | ----: |"
  for (r in s) printf "| %s | %.2f | %.1f%% |\n", r, s[r], 100*s[r]/t
  printf "\nTotal: %.2f\n", t }' sales.csv > out/report.md
