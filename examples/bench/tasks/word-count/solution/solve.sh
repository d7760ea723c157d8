#!/bin/bash
cd /app && wc -w < notes.md | tr -d ' ' > answer.txt
