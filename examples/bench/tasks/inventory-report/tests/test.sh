#!/bin/bash
f=/app/out/report.md

# Harbor's verifier contract: a reward in /logs/verifier/reward.txt.
if test -f $f && grep -q "tools .*332.00" $f && grep -q "paint .*300.00" $f && grep -q "821.00" $f; then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
fi
