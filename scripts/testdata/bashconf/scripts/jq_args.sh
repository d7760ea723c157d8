#!/bin/bash
# jq's options for values from the command line and files.
jq -n -c --arg x 1 --argjson y '{"a":2}' '[$x,$y]'
jq -n -c '$ARGS.positional' --args a b
jq -n -c '$ARGS.positional' --jsonargs 1 '{"b":2}' null
jq -n -c --arg k v '$ARGS.named'
jq -n -c '$ARGS.named' --args
printf 'raw text\n' > r.txt
printf '1 2' > s.json
jq -n -c --rawfile r r.txt --slurpfile s s.json '[$r,$s]'
jq -n -r --arg name "World" '"Hello, \($name)!"'
echo '{"a":1,"b":2}' > in.json
jq -c --arg k a '.[$k]' in.json
jq -r --args '$ARGS.positional[1]' in.json p0 p1 < /dev/null
jq -n '$missing' 2>/dev/null
echo "undefined variable: $?"
jq -n --argjson x '{bad' '$x' 2>/dev/null
echo "bad --argjson: $?"
jq -n --rawfile r nonexistent.txt '$r' 2>/dev/null
echo "missing --rawfile: $?"
# -n runs the filter once, whatever stdin holds; `inputs` reads it.
printf '1 2' > two.json
jq -n -c '.' < two.json
jq -n -c '[inputs]' < two.json
# input_filename names the file the current input came from.
printf '{"a":1}\n' > x1.json; printf '{"a":2}\n{"a":3}\n' > x2.json
jq -c '[input_filename, .a]' x1.json x2.json
echo '{"a":1}' | jq -c '[input_filename, .a]'
jq -n -c '[inputs | input_filename]' x1.json x2.json
jq -n -c 'input_filename' x1.json
jq -n -c 'input | input_filename' x1.json x2.json
jq -c -s 'input_filename' x1.json x2.json
jq -R 'input_filename' x1.json x2.json
jq -r 'input_filename' < x1.json
printf 'a\r\nb' | jq -R -c .
