#!/bin/bash
# A script's own PYTHONPATH reaches the Python it starts, first on
# sys.path, as python3 puts it.
mkdir -p lib
echo 'NAME = "from lib"' > lib/helper_mod.py
PYTHONPATH=$PWD/lib python3 -c 'import helper_mod; print(helper_mod.NAME)'
export PYTHONPATH=$PWD/lib
python3 -c 'import os; import helper_mod; print(os.environ["PYTHONPATH"] == os.getcwd() + "/lib", helper_mod.NAME)'
typeset -rx OTHER=x/
python3 -c 'import os; print(os.environ.get("OTHER"))'
