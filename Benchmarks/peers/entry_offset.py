"""Prints the data offset and compressed size of an archive's Health export XML entry."""
import struct
import sys
import zipfile

with zipfile.ZipFile(sys.argv[1]) as archive:
    infos = [i for i in archive.infolist() if i.filename.endswith(".xml") and "export_cda" not in i.filename]
    info = max(infos, key=lambda i: i.file_size)
with open(sys.argv[1], "rb") as f:
    f.seek(info.header_offset)
    name_length, extra_length = struct.unpack("<HH", f.read(30)[26:30])
print(info.header_offset + 30 + name_length + extra_length, info.compress_size)
