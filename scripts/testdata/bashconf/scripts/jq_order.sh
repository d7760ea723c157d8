#!/bin/bash
# jq keeps each object's keys in the order they were inserted (input,
# object construction, +, *, assignments, add, match), sorting only for
# keys and -S; .[], to_entries, paths and keys_unsorted follow the order.
# Input that does not parse ends the values with status 4.
jq -c '{b:1,a:2}' <<< null
echo '{"z":1,"a":{"y":2,"b":3}}' | jq .
jq -n '$ARGS' --args a
jq -n --arg x 1 --arg a 2 '$ARGS'
jq -n -c '{"x":1,"x":2,"a":3}'
echo '{"b":1,"a":{"d":1,"c":2}}' | jq -S .
echo '{"b":1,"a":{"d":1,"c":2}}' | jq -S -c '.'
echo '[{"b":1,"a":2},{"a":3,"b":4}]' | jq -c '.[], (map(.c=1)), (reduce .[] as $x ({}; . + $x)), (group_by(.a)), sort, unique, (.[0] | del(.b) | .b = 7)'
jq -n -c 'reduce range(5) as $i ({}; .["k\(4-$i)"] = $i)'
jq -n -c '{} | .b = 1 | .a = 2 | del(.b) | .b = 3'
echo '{"b":[{"y":1,"x":2}],"a":1}' | jq -r '.[] | tostring'
echo '{"b":1,"a":2}' | jq -r '.[]'
echo '{"b":1,"a":2}' | jq -c 'with_entries(.value += 1)'
jq -n -c --argjson o '{"b":1,"a":2}' '$o'
echo '{"b":1,"a":2}' > o.json; jq -n -c --slurpfile s o.json '$s'
echo '{"b":{"d":1,"c":2},"a":2}' | jq -c '[leaf_paths]'
echo '{"b":1,"a":2}' | jq -c 'to_entries | map(select(.value > 1)) | from_entries'
echo '{"name":"x","id":1,"tags":["a"]}' | jq '{id, name, n: (.tags|length)}'
echo '{"b":1,"a":2}' | jq -c '. as $o | keys_unsorted | map({(.): $o[.]}) | add'
echo '{"b":1,"a":2} {"d":1,"c":2}' | jq -c -s 'add'
echo '{"b":1,"a":2}' | jq -c 'env | type'
echo '"{\"b\":1,\"a\":2}"' | jq -c 'fromjson'
echo '{"b":1,"a":2}' | jq -c '[to_entries[] | .key]'
echo '{"b":1,"a":2}' | jq -c 'delpaths([["b"]]) | .c = 1 | .b = 2'
echo '{"a":1}' | jq -c '.b.d = 1 | .b.c = 2'
echo '[3,1]' | jq -c '{b: .[0], a: .[1]} | to_entries'
echo '{"b":1,"a":2}' | jq -c 'with_entries(select(.key != "b")) + {"z":0, "b":1}'
echo '{"z":{"b":[{"y":1,"x":2}],"a":null},"m":"s"}' > nested.json
jq . nested.json
jq --indent 4 '.z' nested.json
jq -r 'to_entries[] | "\(.key)=\(.value)"' nested.json
jq -c 'paths' nested.json
jq -c 'tostream' nested.json
echo '{"b":1,"a":2}' | jq -c '. as $o | reduce keys_unsorted[] as $k ({}; .[$k] = $o[$k] * 10)'
printf '{"a":1}}' | jq -c '.a'; echo "unmatched: $?"
printf '[1,[2' | jq -c .; echo "truncated: $?"
printf '1 2 [' | jq -c -s .; echo "truncated slurp: $?"
# A key given twice keeps its first place and its last value, whatever
# the shapes of the two values.
echo '{"a":{"x":1,"y":2},"b":0,"a":[1,{"q":1,"p":2}]}' | jq -c '., .a[1]'
echo '{"k\u0065y":1,"a\"b":2,"":3}' | jq -c 'keys_unsorted'
