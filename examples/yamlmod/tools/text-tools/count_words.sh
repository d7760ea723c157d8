#!/bin/sh
# count_words: the number of words of .text in the JSON input on stdin.
n=$(jq -r '.text' | wc -w)
echo "{\"words\": $((n))}"
