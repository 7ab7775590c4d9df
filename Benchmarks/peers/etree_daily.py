"""Daily raw step sums with xml.etree.ElementTree iterparse + clear (standard library)."""
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict

from export_filter import ExportFilter

STEPS = "HKQuantityTypeIdentifierStepCount"
daily = defaultdict(float)
records = 0
depth = 0
root = None
for event, elem in ET.iterparse(ExportFilter(sys.argv[1]), events=("start", "end")):
    if event == "start":
        depth += 1
        if root is None:
            root = elem
        continue
    depth -= 1
    if depth == 1:
        if elem.tag == "Record":
            records += 1
            if elem.get("type") == STEPS:
                daily[elem.get("startDate")[:10]] += float(elem.get("value"))
        root.clear()
print(f"raw_steps={round(sum(daily.values()))} days={len(daily)} records={records}")
