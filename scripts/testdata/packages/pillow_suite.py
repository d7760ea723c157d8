# Runs Pillow's Tests (the paths given) under pytest, from the pure-Python
# files of Debian's python3-pytest copied into _lib of the working
# directory. pytest's plugins that need what WASI lacks are off: fd-level
# capture and faulthandler (os.dup), the log-file handler (it opens
# /dev/null for writing); --basetemp spares tmp_path the user id WASI has
# not. Prints pytest's summary with a line per failure (-rfE).
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.getcwd(), "_lib"))
os.environ["COLUMNS"] = "400"  # whole reasons in the summary lines
import pytest  # noqa: E402

sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", "-p", "no:faulthandler", "-p", "no:logging",
                      "--capture=sys", "--basetemp=" + os.path.join(tempfile.gettempdir(), "pillow-tests-%d" % os.getpid()),
                      "-rfE", "--color=no"] + sys.argv[1:]))
