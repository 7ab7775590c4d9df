"""Writes the first ~N bytes of an export, cut after a whole top-level element and closed."""
import sys

source, target, limit = sys.argv[1], sys.argv[2], int(sys.argv[3])
with open(source, "rb") as f:
    data = f.read(limit)
cut = data.rfind(b"\n <")
data = data[: cut + 1] if cut > 0 else data
with open(target, "wb") as f:
    f.write(data + b"</HealthData>\n")
