# Read-only memory maps, which published code uses to scan files
# (skillrun's mmap module reads the file instead: WASI cannot map), and
# Pillow's PDF writer, which imports mmap. packages_test.go compares
# stdout with a native run.
import mmap
import os
import re

from PIL import Image

with open("data.bin", "wb") as f:
    f.write(b"header\n%PDF-1.4 body\ntrailer\n")
with open("data.bin", "rb") as f:
    with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
        print(len(m), m[:6], m.find(b"body"), m.rfind(b"\n"), re.search(rb"%PDF-(\d\.\d)", m).group(1))
        print(m.readline(), m.read(4), m.tell(), m.size())
        m.seek(-8, os.SEEK_END)
        print(m.read())
        try:
            m[0] = 65
        except TypeError as e:
            print("TypeError", e)
    with mmap.mmap(f.fileno(), 5, access=mmap.ACCESS_READ, offset=0) as m:
        print(bytes(m))
Image.new("RGB", (16, 16), (0, 128, 255)).save("image.pdf")
with open("image.pdf", "rb") as f:
    print(f.read(8))
os.remove("image.pdf")
