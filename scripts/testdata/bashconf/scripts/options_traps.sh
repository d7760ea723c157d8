#!/bin/bash
# trap, set -o, shopt and noclobber as scripts use them.
cleanup() { echo "cleanup ran"; }
trap cleanup EXIT
trap 'echo interrupted' INT TERM
trap
trap -p INT
trap - TERM
trap -p TERM
set -euo pipefail
set -o | grep -E '^(errexit|nounset|pipefail|noclobber)\b' | tr -s ' \t' ' '
echo "flags: $-"
set +e
shopt -s nullglob
shopt -p nullglob failglob
shopt -q nullglob && echo "nullglob on"
shopt -q extglob || echo "extglob off"
echo first > out.txt
set -C
echo second > out.txt 2>/dev/null || echo "noclobber refused"
echo third >| out.txt
cat out.txt
set +C
( trap ) | head -2
