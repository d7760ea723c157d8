#!/bin/bash

# Harbor's verifier contract: a reward in /logs/verifier/reward.txt.
if jq -e '.north == 30 and .south == 10 and .east == 40 and length == 3' /app/totals.json > /dev/null; then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
fi
