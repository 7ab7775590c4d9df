"""Daily raw step sums with lxml iterparse + clear (the fastest common Python approach)."""
import sys
from collections import defaultdict

from lxml import etree

from export_filter import ExportFilter

STEPS = "HKQuantityTypeIdentifierStepCount"
daily = defaultdict(float)
records = 0
source = ExportFilter(sys.argv[1])
for _, elem in etree.iterparse(source, events=("end",), tag="Record", resolve_entities=False, huge_tree=True):
    parent = elem.getparent()
    if parent is not None and parent.tag == "HealthData":
        records += 1
        if elem.get("type") == STEPS:
            daily[elem.get("startDate")[:10]] += float(elem.get("value"))
        elem.clear()
        while elem.getprevious() is not None:
            del parent[0]
print(f"raw_steps={round(sum(daily.values()))} days={len(daily)} records={records}")
