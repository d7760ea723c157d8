#!/bin/bash
# The report names every region with its revenue, and the total.
f=/app/out/report.md

# Harbor's verifier contract: a reward in /logs/verifier/reward.txt.
if test -f $f && grep -q "west .*232.30" $f && grep -q "south .*137.00" $f && grep -q "746.30" $f; then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
fi
