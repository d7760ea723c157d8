#!/bin/bash
# jq prints numbers as jq 1.6 does: as doubles, in the shortest digits
# that read back, with exponents (1e+17, 1e-05) past 15 places.
for n in 1000000 1e15 1e16 1e17 123456789012345678 12345678901234567890 1.5e16 0.0001 0.00001 1.23e-5 3.14159265358979323846 1e300 0.1 1e-7 123456.789e3 9007199254740993 1.0 2.50 1e1000 -1e1000; do printf '%s -> ' $n; echo "$n" | jq -c '., (. * 1), tostring'; done
jq -n -c '[1e17, 0.00001, 100000000000000000000, 1/3, 2/3*3, 10/4, 1e-7 * 1, 3.0]'
jq -n -r '"\(1e16) \(0.00001)"'
echo '{"price":"9.90","n":9.90,"q":2.50}' | jq -c '., .n * 2, (.q | tostring)'
jq -n -r '[0.1 + 0.2, 1e2, 5e-1, 12.0] | @csv'
