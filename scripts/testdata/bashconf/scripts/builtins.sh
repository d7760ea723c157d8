# builtins: getopts, shift, eval/source options, history, set's - and +,
# set's listing of control characters, and set -o posix's special builtins.

set -- -ab -c foo x
while getopts abc: o; do echo "opt=$o arg=${OPTARG-unset} ind=$OPTIND"; done
echo "end ind=$OPTIND"
set --
getopts ab o; echo "status=$? o=$o ind=$OPTIND"
set -- -h -c
while getopts hc: o 2>/dev/null; do echo "o=$o ind=$OPTIND"; done
OPTIND=1
set -- -c
getopts :c: o; echo "silent o=$o arg=$OPTARG"
OPTIND=1
set -- -a -- -c operand
while getopts a o; do echo "o=$o"; done
shift $((OPTIND - 1)); echo "rest: $*"
OPTIND=1
set -- -c foo
getopts c: bad-name 2>/dev/null; echo "status=$? arg=$OPTARG ind=$OPTIND"

set -- a b
shift 3 2>/dev/null; echo "shift 3: $? $#"
shift ZZZ 2>/dev/null; echo "shift ZZZ: $? $#"
shift -1 2>/dev/null; echo "shift -1: $? $#"
shift -- 1; echo "shift -- 1: $? $*"

eval -z 2>/dev/null; echo "eval -z: $?"
eval -- echo eval ok
echo 'echo sourced' > src.sh
source -- src.sh

history; echo "history: $?"
history -5 2>/dev/null; echo "history -5: $?"
history f 2>/dev/null; echo "history f: $?"

set -- 1 2 3
set -u; echo "after set -u: $#"; set +u
set - a b; echo "set -: $*"
set +; echo "set +: $*"
set + -; echo "set + -: $*"
set --; echo "set --: $#"

ctl=$'a\nb\001c\'d'
set | grep '^ctl='

(
  set -o posix
  foo=bar :
  echo "posix foo=$foo"
  z=Z builtin :
  echo "posix z=$z"
  eval() { echo function; }
  echo not reached
)
echo "posix function status: $?"
eval() { echo "function $*"; }
eval x
(set -o posix; eval echo builtin eval)
