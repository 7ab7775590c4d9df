# Writes the stepkit command test fixtures (Tests/stepkitTests/Fixtures):
# python3 Scripts/make-cli-fixtures.py Tests/stepkitTests/Fixtures/watch-and-phone.xml
import os, random, sys, zipfile
W = '&lt;&lt;HKDevice: 0x282a45810&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,1, software:10.3&gt;'
P = '&lt;&lt;HKDevice: 0x6b879dfe0&gt;, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone16,2, software:17.3&gt;'
B = '&lt;&lt;HKDevice: 0x6b8700010&gt;, name:Mi Smart Band 7, manufacturer:Xiaomi, model:Band 7, hardware:M2129B1, software:2.1&gt;'
out = []
def rec(t, src, dev, s, e, v, unit, manual=None, extra=''):
    typ = 'HKQuantityTypeIdentifierStepCount' if t == 's' else 'HKQuantityTypeIdentifierDistanceWalkingRunning'
    d = f' device="{dev}"' if dev else ''
    head = f' <Record type="{typ}" sourceName="{src}" sourceVersion="10.3" unit="{unit}"{d} creationDate="{e}" startDate="{s}" endDate="{e}" value="{v}"{extra}'
    if manual is None:
        out.append(head + '/>')
    else:
        out.append(head + '>')
        out.append(f'  <MetadataEntry key="HKWasUserEntered" value="{manual}"/>')
        out.append(' </Record>')
watch = 'Ada’s Apple Watch'; phone = 'Ada’s iPhone'; band = 'Mi Fitness'
days = [('2026-03-06', '-0500'), ('2026-03-07', '-0500'), ('2026-03-08', '-0400'), ('2026-03-09', '-0400'), ('2026-03-11', '+0800')]

random.seed(7)
for i, (day, off) in enumerate(days):
    # Morning walk: phone and watch both count it.
    for (h, m1, m2, ws, ps) in [(8, 0, 10, 1200 + 37*i, 1150 + 41*i), (8, 10, 20, 980 + 11*i, 1010 + 13*i), (12, 30, 45, 1500 + 7*i, 1420 + 9*i), (18, 5, 25, 2100 + 19*i, 1990 + 23*i)]:
        s = f'{day} {h:02d}:{m1:02d}:00 {off}'; e = f'{day} {h:02d}:{m2:02d}:00 {off}'
        rec('s', watch, W, s, e, ws, 'count')
        rec('s', phone, P, f'{day} {h:02d}:{m1+2:02d}:00 {off}', f'{day} {h:02d}:{m2+3:02d}:00 {off}', ps, 'count')
        rec('d', watch, W, s, e, round(ws * 0.00072, 4), 'km')
        rec('d', phone, P, f'{day} {h:02d}:{m1+2:02d}:00 {off}', f'{day} {h:02d}:{m2+3:02d}:00 {off}', round(ps * 0.00045, 4), 'mi')
    # Phone alone in the afternoon (watch charging).
    rec('s', phone, P, f'{day} 15:00:00 {off}', f'{day} 15:40:00 {off}', 1830 + 29*i, 'count', manual='0')
    # The band overlaps the evening walk and adds a late stroll of its own.
    rec('s', band, B, f'{day} 18:00:00 {off}', f'{day} 18:30:00 {off}', 2400 + 17*i, 'count')
    rec('s', band, B, f'{day} 21:00:00 {off}', f'{day} 21:20:00 {off}', 900 + 3*i, 'count')
# A walk across midnight (split between days by time).
rec('s', watch, W, '2026-03-07 23:40:00 -0500', '2026-03-08 00:20:00 -0500', 1600, 'count')
# Hand-typed entries in the Health app.
rec('s', 'Health', None, '2026-03-07 10:00:00 -0500', '2026-03-07 11:00:00 -0500', 3000, 'count', manual='1')
rec('s', 'Health', None, '2026-03-09 08:00:00 -0400', '2026-03-09 09:00:00 -0400', 2500, 'count', manual='1')
rec('d', 'Health', None, '2026-03-09 08:00:00 -0400', '2026-03-09 09:00:00 -0400', 2, 'km', manual='1')
# Not steps: ignored.
out.append(f' <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="{watch}" unit="count/min" device="{W}" startDate="2026-03-06 08:05:00 -0500" endDate="2026-03-06 08:05:00 -0500" value="96"/>')
# Invalid records: counted and reported, never summed.
rec('s', phone, P, '2026-03-09 20:00:00 -0400', '2026-03-09 19:00:00 -0400', 500, 'count')
rec('s', phone, P, '2026-03-09 20:00:00 -0400', '2026-03-09 20:10:00 -0400', -40, 'count')
rec('s', phone, P, '2026-03-32 20:00:00 -0400', '2026-03-09 20:10:00 -0400', 40, 'count')
head = '''<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE HealthData [
<!-- HealthKit Export Version: 14 -->
<!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord|Audiogram|VisionPrescription)*)>
<!ATTLIST HealthData
  locale CDATA #REQUIRED
>
]>
<HealthData locale="en_US">
 <ExportDate value="2026-03-12 09:00:00 +0800"/>
 <Me HKCharacteristicTypeIdentifierDateOfBirth="1990-05-01" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexFemale" HKCharacteristicTypeIdentifierBloodType="HKBloodTypeNotSet" HKCharacteristicTypeIdentifierFitzpatrickSkinType="HKFitzpatrickSkinTypeNotSet" HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse="None"/>
'''

fixtures = os.path.dirname(os.path.abspath(sys.argv[1]))
src = (head + '\n'.join(out) + '\n</HealthData>\n').encode()
open(sys.argv[1], 'wb').write(src)
with zipfile.ZipFile(os.path.join(fixtures, 'localized-name.zip'), 'w', zipfile.ZIP_DEFLATED) as z:
    z.writestr('apple_health_export/export_cda.xml', '<?xml version="1.0"?><ClinicalDocument/>\n<ClinicalDocument/>\n')
    z.writestr('apple_health_export/导出.xml', src)
    z.writestr('apple_health_export/workout-routes/route_2026-03-06_8.00am.gpx', '<gpx/>\n')
lines = src.decode().split('\n')
# Cut inside the records: an interrupted copy.
open(os.path.join(fixtures, 'truncated.xml'), 'w').write(
    '\n'.join(lines[:40]) + '\n <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Ada')
bad = lines[:30] + [' <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Ada’s iPhone" <value="12"/>'] + lines[30:]
open(os.path.join(fixtures, 'malformed.xml'), 'w').write('\n'.join(bad))
open(os.path.join(fixtures, 'not-a-zip.zip'), 'w').write('This is a text file, not an archive.\n')
