#!/bin/bash
# timeout stops what it runs at its deadline: the shell's own commands
# where they wait, busy loops, and interpreters the command starts;
# status 124, or 128+signal with --preserve-status; otherwise the
# command's own status.
timeout 0.3 sleep 5; echo "sleep: $?"
timeout 0.3 bash -c 'while :; do :; done'; echo "busy loop: $?"
timeout 0.3 bash -c 'sleep 5; echo never'; echo "script: $?"
timeout 1 python3 -c 'import time; time.sleep(5); print("never")'; echo "python: $?"
timeout 5 python3 -c 'print("in time")'; echo "python in time: $?"
timeout -s KILL --preserve-status 0.3 sleep 5 2>/dev/null; echo "preserve KILL: $?"
timeout --preserve-status 0.3 sleep 5; echo "preserve TERM: $?"
timeout 5 false; echo "false: $?"
timeout 0 true; echo "no limit: $?"
timeout 5 sh -c 'exit 3'; echo "exit 3: $?"
timeout x sleep 1 2>/dev/null; echo "bad interval: $?"
timeout -s BOGUS 1 true 2>/dev/null; echo "bad signal: $?"
timeout 2>/dev/null; echo "no operands: $?"
echo in | timeout 5 cat; echo "stdin: $?"
