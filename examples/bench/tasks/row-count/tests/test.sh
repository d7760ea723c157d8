#!/bin/bash

# Harbor's verifier contract: a reward in /logs/verifier/reward.txt.
if [ "$(tr -d " \n" < /app/answer.txt)" = 10 ]; then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
fi
