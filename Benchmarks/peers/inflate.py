"""Bare streaming inflate of an archive's Health export entry: the floor for reading export.zip."""
import struct
import sys
import zipfile
import zlib

path = sys.argv[1]
with zipfile.ZipFile(path) as archive:
    infos = [i for i in archive.infolist() if i.filename.endswith(".xml") and "export_cda" not in i.filename]
    info = max(infos, key=lambda i: i.file_size)
with open(path, "rb") as f:
    f.seek(info.header_offset)
    header = f.read(30)
    name_length, extra_length = struct.unpack("<HH", header[26:30])
    f.seek(info.header_offset + 30 + name_length + extra_length)
    remaining = info.compress_size
    inflater = zlib.decompressobj(-15)
    total = 0
    while remaining > 0:
        chunk = f.read(min(remaining, 1 << 20))
        if not chunk:
            break
        remaining -= len(chunk)
        total += len(inflater.decompress(chunk))
    total += len(inflater.flush())
print(f"inflated_bytes={total}")
