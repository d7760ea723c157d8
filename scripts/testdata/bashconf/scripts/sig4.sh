# kill to the shell itself ($$): traps run at the next command boundary,
# $? kept around them; ignored signals do nothing; |& keeps write order.
trap 'echo usr1 status=$?; (exit 42)' USR1
false
kill -USR1 $$
echo after=$?
bash -c "kill -USR1 $$"
echo after2=$?
bash -c 'trap "echo inner" USR1; kill -USR1 $$; echo inner done'
echo after3=$?
trap 'echo urg' URG
kill -URG $$
kill -s URG $$
trap '' USR2
kill -USR2 $$
echo ignored=$?
trap - USR2
kill -0 $$
echo zero=$?
kill -9 nope 2>/dev/null
echo bad=$?
{ echo job; } &
wait
echo job status=$?
{ echo out; echo err >&2; echo out2; } |& cat
