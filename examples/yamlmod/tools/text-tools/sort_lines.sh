#!/bin/sh
# sort_lines: the lines of .text in the JSON input on stdin, sorted;
# Z to A when .reverse is true.
input=$(cat)
order=
if [ "$(printf '%s' "$input" | jq -r '.reverse')" = true ]; then
  order=-r
fi
printf '%s' "$input" | jq -r '.text' | sort $order
