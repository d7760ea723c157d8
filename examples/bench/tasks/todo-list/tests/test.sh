#!/bin/bash
f=/app/out/todo.md

# Harbor's verifier contract: a reward in /logs/verifier/reward.txt.
if test -f $f && grep -q "notes.md:13" $f && grep -q "src/main.py:1" $f && grep -q "src/util.py:2" $f; then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
fi
