#!/bin/bash
# Redirections that fail: the command does not run, $? is 1, the message
# names the file (printed here without the script's path).
msg() { sed 's/^.*line [0-9]*: //'; }
echo x > missing-dir/f
echo "to a missing folder: $?"
cat < missing.txt
echo "from a missing file: $?"
echo hi 2>/dev/null > missing-dir/x
echo "after 2>/dev/null: $?"
{ echo hi > missing-dir/x; } 2>&1 | msg
{ cat < missing.txt; } 2>&1 | msg
{ echo never > missing-dir/y && echo ran; } 2>&1 | msg
{ echo a > ok.txt > missing-dir/z; } 2>&1 | msg
cat ok.txt
echo content > ok.txt
cat ok.txt < missing.txt 2>/dev/null || echo "cat did not run"
ls missing.txt 2>&1 >/dev/null | sed 's/^ls: //'
{ echo x >&8; } 2>&1 | msg
mkdir d
{ echo x > d; } 2>&1 | msg
