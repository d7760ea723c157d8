# errexit: a compound command's leftover failure does not exit; a
# subshell in a condition keeps errexit ignored.
set -e
{ test no = yes && echo hi; }
echo "brace status=$?"
if true; then false && true; fi
echo "if ok"
for i in 1; do false || false && true; done
echo "for ok"
if ( echo 1; false; echo 2; set -e; false; echo 3 ); then
  echo 4
fi
echo "after subshell"
( false && true ) || echo "subshell failed"
echo done
