# Redirection targets are expanded as bash expands them: globbed, split,
# brace-expanded, and ambiguous when not one field.
touch one-bar
echo hi > one-*
cat one-bar
echo escaped > one-\*
cat one-\*
f='foo bar'
echo hi > $f 2>/dev/null
echo "split status=$?"
{ echo hi > a-{x,y}; } 2>/dev/null
echo "brace status=$?"
empty=
{ echo hi > $empty; } 2>/dev/null
echo "empty status=$?"
touch two-bar two-baz
{ echo hi > two-*; } 2>/dev/null
echo "two matches status=$?"
echo hi > zz-*-xx
echo zz*
# 1>&word with a file name is &>word.
echo dup 1>&dupfile
cat dupfile
# {var} descriptors stay open after their command.
echo {v}>/dev/null
first=$v
echo {v}>/dev/null
echo "next fd: $((v - first))"
# xtrace writes where stderr was before the command's redirections.
( set -x; printf 'aaaa' > /dev/null 2> trace.txt ) 2>/dev/null
echo "trace: [$(cat trace.txt)]"
# failglob: a pattern matching nothing fails the command line.
printf 'shopt -s failglob\necho nomatch*\necho "status=$?"\necho hi > nomatch*\necho "status=$?"\n' > fg.sh
bash fg.sh 2>/dev/null
echo "all: $(ls | tr '\n' ' ')"
