#!/bin/bash
cd /app && jq 'group_by(.region) | map({(.[0].region): (map(.amount) | add)}) | add' orders.json > totals.json
