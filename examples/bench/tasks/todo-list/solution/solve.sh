#!/bin/bash
cd /app && mkdir -p out
grep -rn -E "TODO|FIXME" --include="*.md" --include="*.py" . | sed 's|^\./||' > out/todo.md
