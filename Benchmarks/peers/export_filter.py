"""A file wrapper that removes what stock XML parsers reject in Apple Health exports.

The internal DTD subset (`<!DOCTYPE HealthData [ ... ]>`, broken in iOS 16) is cut out
once at the start, and vertical tabs (0x0B) are dropped: the usual recipe of the
Python tools that read exports.
"""


class ExportFilter:
    def __init__(self, path, chunk=1 << 20):
        self.file = open(path, "rb")
        self.chunk = chunk
        self.head_done = False
        self.pending = b""

    def read(self, size=-1):
        if not self.head_done:
            data = self.file.read(1 << 20)
            start = data.find(b"<!DOCTYPE")
            if start >= 0:
                end = data.find(b"]>", start)
                while end < 0:
                    more = self.file.read(1 << 20)
                    if not more:
                        break
                    data += more
                    end = data.find(b"]>", start)
                if end >= 0:
                    data = data[:start] + data[end + 2:]
            self.head_done = True
            self.pending = data
        if self.pending:
            data, self.pending = self.pending, b""
        else:
            data = self.file.read(size if size and size > 0 else self.chunk)
        return data.replace(b"\x0b", b"")

    def close(self):
        self.file.close()
