# Runs lxml's own test modules (their test_suite() functions, as lxml's
# test.py does) from the package src/suite/lxmltests of the working
# directory (its doctests are in doc/, three folders up from the tests,
# as in lxml's source), and prints one line per module and a total:
#   MODULE run N failures F errors E skipped S
# then the failing tests' names and the first line of each reason.
import importlib
import io
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.getcwd(), "src", "suite"))

modules = sys.argv[1:]
total = [0, 0, 0, 0]
bad = []
for name in modules:
    try:
        suite = importlib.import_module("lxmltests." + name).test_suite()
    except Exception as e:
        print("%s not run: %s: %s" % (name, type(e).__name__, e))
        bad.append("%s: %s: %s" % (name, type(e).__name__, e))
        continue
    result = unittest.TextTestRunner(stream=io.StringIO(), verbosity=0).run(suite)
    counts = [result.testsRun, len(result.failures), len(result.errors), len(result.skipped)]
    total = [a + b for a, b in zip(total, counts)]
    print("%s run %d failures %d errors %d skipped %d" % ((name,) + tuple(counts)))
    for test, trace in result.failures + result.errors:
        bad.append("%s: %s" % (test.id(), trace.strip().splitlines()[-1]))
print("total run %d failures %d errors %d skipped %d" % tuple(total))
for line in bad:
    print("FAILED", line)
