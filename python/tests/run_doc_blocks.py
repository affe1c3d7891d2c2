"""Runs every ```python block of the given Markdown files, each as a program of its own in a
scratch folder (plots are written there). Exit status 1 names the first block that failed."""

import os
import re
import sys
import tempfile
import traceback

import matplotlib

matplotlib.use("Agg")


def blocks(path):
    text = open(path, encoding="utf-8").read()
    for match in re.finditer(r"^```python\n(.*?)^```", text, re.S | re.M):
        yield text.count("\n", 0, match.start()) + 2, match.group(1)


def main(paths):
    count = 0
    with tempfile.TemporaryDirectory() as scratch:
        os.chdir(scratch)
        for path in paths:
            for line, code in blocks(path):
                count += 1
                try:
                    exec(compile(code, "%s:%d" % (path, line), "exec"), {"__name__": "__main__"})
                except Exception:
                    traceback.print_exc()
                    print("FAILED: the block at %s:%d" % (path, line))
                    return 1
    if count == 0:
        print("no python blocks found in", paths)
        return 1
    print("%d python blocks ran" % count)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
