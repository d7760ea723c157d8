"""Collect the TODO and FIXME lines of the workspace into out/todo.md."""
import os
import re

MARK = re.compile(r"\b(TODO|FIXME)\b")


def main():
    found = []
    for root, dirs, files in os.walk("."):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "out")
        for name in sorted(files):
            path = os.path.join(root, name)[2:]
            try:
                with open(path, encoding="utf-8") as f:
                    for n, line in enumerate(f, 1):
                        if MARK.search(line):
                            found.append(f"{path}:{n}: {line.strip()}")
            except (UnicodeDecodeError, OSError):
                continue
    os.makedirs("out", exist_ok=True)
    with open("out/todo.md", "w", encoding="utf-8") as f:
        f.write("# TODO list\n\n")
        f.writelines(f"- {item}\n" for item in found)
    print(f"{len(found)} items; wrote out/todo.md")


main()
