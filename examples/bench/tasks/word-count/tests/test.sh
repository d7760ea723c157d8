#!/bin/bash
want=$(wc -w < /tests/notes.md | tr -d ' ')

# Harbor's verifier contract: a reward in /logs/verifier/reward.txt.
if [ "$(tr -d " \n" < /app/answer.txt)" = "$want" ]; then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
fi
