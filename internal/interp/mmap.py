# skillrun's mmap for CPython on WASI, which has no mmap module (WASI
# preview 1 cannot map files). Published code imports it at top level
# (Pillow's PdfParser, pandas' io.common) and maps files to read them:
# this module reads the file into memory instead, so ACCESS_READ maps
# work (slicing, find, regular expressions, read and seek). Writable and
# anonymous maps cannot be emulated faithfully: they raise OSError with
# a message that says why, at the call, not at import.
import os as _os

ACCESS_DEFAULT, ACCESS_READ, ACCESS_WRITE, ACCESS_COPY = 0, 1, 2, 3
PROT_READ, PROT_WRITE, PROT_EXEC = 1, 2, 4
MAP_SHARED, MAP_PRIVATE = 1, 2
PAGESIZE = ALLOCATIONGRANULARITY = 65536
error = OSError

_WHY = "skillrun runs Python scripts in a WebAssembly sandbox, where files cannot be mapped"


class mmap(bytes):
    """A read-only map of a file: its bytes, read when mapped."""

    def __new__(cls, fileno, length, flags=MAP_SHARED, prot=PROT_READ | PROT_WRITE, access=ACCESS_DEFAULT, offset=0,
                **kwargs):
        # A default map would be writable: it is read-only here, and a
        # write says why.
        would_write = access == ACCESS_DEFAULT and bool(prot & PROT_WRITE)
        if access == ACCESS_DEFAULT:
            access = ACCESS_READ
        if access != ACCESS_READ:
            raise OSError(95, "mmap: only read-only maps (access=ACCESS_READ) are available: " + _WHY)
        if fileno == -1:
            raise OSError(95, "mmap: anonymous maps are not available: " + _WHY)
        if length < 0 or offset < 0:
            raise OverflowError("memory mapped length must be positive")
        size = _os.fstat(fileno).st_size
        if offset > size or (length and offset + length > size):
            raise ValueError("mmap length is greater than file size")
        if size == 0 or (length == 0 and offset == size):
            raise ValueError("cannot mmap an empty file")
        pos = _os.lseek(fileno, 0, _os.SEEK_CUR)
        try:
            _os.lseek(fileno, offset, _os.SEEK_SET)
            want = length or size - offset
            chunks = []
            while want > 0:
                b = _os.read(fileno, min(want, 1 << 20))
                if not b:
                    break
                chunks.append(b)
                want -= len(b)
        finally:
            _os.lseek(fileno, pos, _os.SEEK_SET)
        self = super().__new__(cls, b"".join(chunks))
        self._pos = 0
        self._closed = False
        self._would_write = would_write
        return self

    @property
    def closed(self):
        return self._closed

    def close(self):
        self._closed = True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def size(self):
        return len(self)

    def tell(self):
        return self._pos

    def seek(self, pos, whence=0):
        base = {0: 0, 1: self._pos, 2: len(self)}[whence]
        if not 0 <= base + pos <= len(self):
            raise ValueError("seek out of range")
        self._pos = base + pos

    def read(self, n=None):
        end = len(self) if n is None or n < 0 else min(len(self), self._pos + n)
        out = bytes(self[self._pos:end])
        self._pos = end
        return out

    def read_byte(self):
        if self._pos >= len(self):
            raise ValueError("read byte out of range")
        self._pos += 1
        return self[self._pos - 1]

    def readline(self):
        i = self.find(b"\n", self._pos)
        return self.read(-1 if i < 0 else i + 1 - self._pos)

    def flush(self, *args):
        pass

    def madvise(self, *args):
        pass

    def _readonly(self, *args, **kwargs):
        msg = "mmap can't modify a readonly memory map."
        if self._would_write:
            msg += " " + _WHY + ": maps are read-only copies of the file."
        raise TypeError(msg)

    write = write_byte = move = resize = __setitem__ = _readonly
