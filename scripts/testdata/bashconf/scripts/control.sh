# Pipelines, PIPESTATUS, lastpipe, break/continue and return as bash has them.
false
echo "simple: ${PIPESTATUS[*]}"
(exit 3) | (exit 4) | true
echo "pipe: ${PIPESTATUS[*]}"
! (exit 5)
echo "negated: ${PIPESTATUS[*]}"
false; if true; then :; fi
echo "if: ${PIPESTATUS[*]}"
echo hi | read line
echo "no lastpipe: [$line]"
shopt -s lastpipe
echo hi | read line
echo "lastpipe: [$line]"
i=0
printf '%s\n' a b c | while read -r l; do i=$((i + 1)); done
echo "count: $i"
shopt -u lastpipe
set -o pipefail
(exit 2) | (exit 3) | true
echo "pipefail: $?"
set +o pipefail
for i in 1 2; do
  if true; then break; echo never; fi
done
echo "after break: $i"
for i in 1 2 3; do
  while break; do echo never; done
  for j in a b; do
    [ "$j" = b ] && continue 2
    echo "$i$j"
  done
  echo never
done
for i in 1 2; do for j in 1 2; do break 9; done; echo never; done
echo "break 9: $i $j"
f() { break; }
for i in 1 2; do f 2>/dev/null; echo "func break $i"; done
g() { (exit 42); return; }
g
echo "return: $?"
h() ( return 7; )
h
echo "subshell return: $?"
k() { ( return 3 ); echo "after subshell return: $?"; }
k
