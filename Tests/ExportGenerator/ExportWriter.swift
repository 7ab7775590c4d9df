import Foundation

/// How much happens in a day.
struct Density {
  var bouts: ClosedRange<Int>
  var watchPiece: ClosedRange<Int>
  var phonePiece: ClosedRange<Int>
  var heartRateEvery: ClosedRange<Int>?
  /// Seconds between heart-rate samples while walking.
  var walkingHeartRateEvery: ClosedRange<Int> = 20...60
  var activeEnergyEvery: ClosedRange<Int>?
  var basalEnergy: Bool
  var heartRateVariability: Bool
  /// Walking from morning to night in short bouts with short breaks (the phone and the
  /// watch counting nearly all day), instead of a few walks.
  var allDay = false
  /// The iPhone's gait and hearing records: walking speed and step length
  /// during walks, headphone audio exposure while listening.
  var mobilityAndHearing = false
  /// Active energy from the iPhone (overlapping the Watch's), a third-party
  /// app (in kJ) and typed-in entries (in Cal), and flights climbed from
  /// the iPhone, the Watch and the app, with their merged totals in
  /// ``ExportWriter/truth``.
  var energyAndFlights = false
  /// What years of a real history hold besides (`--long-history`): days without any sample,
  /// a long hike now and then, and a step app's whole-day record that raw sums count twice.
  var longHistory = false

  /// An Apple Watch wearer's mix: energy and heart rate dominate, steps are
  /// about a sixth of the records.
  static let watch = Density(
    bouts: 4...9, watchPiece: 60...420, phonePiece: 120...600, heartRateEvery: 180...420,
    activeEnergyEvery: 60...180, basalEnergy: true, heartRateVariability: true, mobilityAndHearing: true,
    energyAndFlights: true)
  /// An iPhone and a Watch carried all day: steps and distance nearly every record.
  static let dense = Density(
    bouts: 1...1, watchPiece: 45...240, phonePiece: 60...360, heartRateEvery: 1200...2400,
    walkingHeartRateEvery: 600...1500, activeEnergyEvery: nil, basalEnergy: false, heartRateVariability: true,
    allDay: true)
  static let demo = Density(
    bouts: 2...4, watchPiece: 600...1500, phonePiece: 900...1800, heartRateEvery: nil,
    activeEnergyEvery: nil, basalEnergy: false, heartRateVariability: false, energyAndFlights: true)
}

/// A source that writes records: its name (raw UTF-8, as exports carry it) and device.
struct GeneratedSource {
  var name: String
  var versions: [String]
  /// The device's fields after its address, as `HKDevice` describes them, or
  /// nil for a source without a device. `%v` stands for the software version.
  var deviceFields: String?
  /// The device's `creation date` field, written by iOS versions from `sinceMajorVersion` on.
  var creationDate: (sinceMajorVersion: Int, text: String)? = nil

  /// The software version on `date`: `versions` lists one per half year from 2021.
  func version(on date: CivilDate) -> String {
    let half = (date.year - 2021) * 2 + (date.month >= 9 ? 1 : 0)
    return versions[max(0, min(half, versions.count - 1))]
  }

  /// What follows the address in the escaped `device` attribute value
  /// (`&gt;, name:iPhone, …, software:17.1.2&gt;`), or nil.
  func deviceTail(on date: CivilDate) -> String? {
    guard let deviceFields else { return nil }
    let version = version(on: date)
    var fields = deviceFields.replacingOccurrences(of: "%v", with: version)
    if let creationDate, let major = Int(version.prefix { $0 != "." }),
      major >= creationDate.sinceMajorVersion
    {
      fields += ", creation date:" + creationDate.text
    }
    return "&gt;, " + fields + "&gt;"
  }
}

/// The start of a record up to its `creationDate` value, split around the
/// device's object address, which is new for every record, as in real exports.
struct RecordPrefix {
  /// ` <Record type="…" sourceName="…" sourceVersion="…"`, and ` device="&lt;&lt;HKDevice: ` when there is one.
  var head: [UInt8]
  /// `&gt;, name:…&gt;" unit="…" creationDate="` after the address, or nil without a device.
  var tail: [UInt8]?
  /// The ``ExportSection`` the element goes to when it is not nested in another.
  var section: Int
}

/// Makes an Apple Health export.xml day by day, writing each element to its section's sink
/// (one sink for all in time order), and tallies the raw steps it wrote per local day.
final class ExportWriter {
  struct DayTally {
    var date: String
    var rawSteps: Int
    var manualSteps: Int
    var stepSamples: Int
  }

  private let sections: SectionSinks
  /// The sink of the element being written.
  private var sink: ByteSink
  private var random: SeededRandom
  private let density: Density
  private let timeline: Timeline
  private let firstEpochDay: Int
  private(set) var tallies: [DayTally] = []
  /// The merged and raw totals of active energy and flights per local day.
  private(set) var truth = CumulativeTruth()
  private var day: DayContext
  private var dayTally = DayTally(date: "", rawSteps: 0, manualSteps: 0, stepSamples: 0)

  private let phone: GeneratedSource
  private let watch: GeneratedSource
  private let stepApp: GeneratedSource
  private let health: GeneratedSource
  private let scale: GeneratedSource
  private let headphones: GeneratedSource
  /// Draws the `HKDevice` addresses, apart from `random` so that the records stay the same.
  private var addressRandom: SeededRandom
  /// Draws the energy and flights that steps do not depend on, apart from
  /// `random` so that the step records stay the same.
  private var extraRandom: SeededRandom
  /// Draws ``Density/longHistory``'s days, apart from `random`.
  private var lifeRandom: SeededRandom
  private let fitnessApp: GeneratedSource

  init(sections: SectionSinks, seed: UInt64, density: Density, timeline: Timeline, firstEpochDay: Int) {
    self.sections = sections
    sink = sections.document
    random = SeededRandom(seed: seed)
    self.density = density
    self.timeline = timeline
    self.firstEpochDay = firstEpochDay
    day = DayContext(index: 0, firstEpochDay: firstEpochDay, zone: timeline.home)
    addressRandom = SeededRandom(seed: seed ^ 0xADD2E55)
    extraRandom = SeededRandom(seed: seed ^ 0xE4E2_6F11)
    lifeRandom = SeededRandom(seed: seed ^ 0x11FE_0F_DA75)
    fitnessApp = GeneratedSource(
      name: "Keep", versions: ["7.30.0", "7.52.1", "8.1.0", "8.4.2"], deviceFields: nil)
    let phone = GeneratedSource(
      name: "Lena’s iPhone",
      versions: [
        "14.4", "15.0.2", "15.4.1", "16.1", "16.5", "17.1.2", "17.5.1", "18.1", "18.3.2", "26.0.1", "26.2",
      ],
      deviceFields: "name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone14,2, software:%v")
    self.phone = phone
    watch = GeneratedSource(
      name: "Lena’s Apple Watch",
      versions: ["7.3", "8.0.1", "8.5", "9.1", "9.5", "10.1", "10.5", "11.1", "11.3", "26.0", "26.2"],
      deviceFields: "name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,1, software:%v")
    stepApp = GeneratedSource(
      name: "小米运动健康", versions: ["3.2.1", "3.8.0", "3.12.2", "3.18.0", "3.21.0", "3.24.1", "3.30.0"],
      deviceFields: nil)
    health = GeneratedSource(
      name: "Health",
      versions: [
        "14.4", "15.0.2", "15.4.1", "16.1", "16.5", "17.1.2", "17.5.1", "18.1", "18.3.2", "26.0.1", "26.2",
      ],
      deviceFields: nil)
    scale = GeneratedSource(
      name: "Health Mate", versions: ["6.2.0", "6.5.1"],
      deviceFields:
        "name:Withings BPM Connect, manufacturer:Withings, model:BPM Connect, hardware:BPM Connect, software:%v"
    )
    // Headphones: no hardware or software field; the `creation date` field from iOS 17 on.
    headphones = GeneratedSource(
      name: phone.name, versions: phone.versions,
      deviceFields:
        "name:AirPods Pro, manufacturer:Apple Inc., model:0x200e, localIdentifier:38:EC:0D:BF:32:C6-tacl",
      creationDate: (sinceMajorVersion: 17, text: "2020-06-01 06:06:25 +0000"))
  }

  // MARK: Document

  func writeHeader(brokenDTD: Bool, exportDay: CivilDate) {
    sink = sections.document
    sink.append(Array(ExportDTD.text(broken: brokenDTD).utf8))
    sink.append("<HealthData locale=\"de_DE\">\n <ExportDate value=\"")
    sink.append(exportDay.isoBytes)
    let offset = Timeline.offset(in: timeline.home, localEpoch: exportDay.daysSinceEpoch * 86400 + 33153)
    sink.append(" 09:12:33")
    sink.append(offsetBytes(offset))
    sink.append(
      "\"/>\n <Me HKCharacteristicTypeIdentifierDateOfBirth=\"1988-06-14\" HKCharacteristicTypeIdentifierBiologicalSex=\"HKBiologicalSexFemale\" HKCharacteristicTypeIdentifierBloodType=\"HKBloodTypeAPositive\" HKCharacteristicTypeIdentifierFitzpatrickSkinType=\"HKFitzpatrickSkinTypeNotSet\" HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse=\"None\"/>\n"
    )
  }

  /// Writes the sections (in type order) and the end of the document.
  func writeFooter() throws {
    try sections.finish()
    sections.document.append("</HealthData>\n")
  }

  // MARK: Days

  /// Writes every record of day `index`.
  func writeDay(_ index: Int) throws {
    day = DayContext(index: index, firstEpochDay: firstEpochDay, zone: timeline.zone(onDay: index))
    dayTally = DayTally(date: day.date.iso, rawSteps: 0, manualSteps: 0, stepSamples: 0)

    if density.longHistory, lifeRandom.chance(2) {
      // The phone left at home, the watch off: not one sample that day.
      truth.finishDay(day.date.iso)
      tallies.append(dayTally)
      return
    }
    let wearsWatch = !random.chance(8)
    let thirdPartyActive = random.chance(45)
    var bouts = makeBouts()
    if density.longHistory, lifeRandom.int(1...200) == 1 {
      // A day's hike: three to four and a half hours at a steady pace, 20,000 to 30,000 steps.
      let duration = lifeRandom.int(180...270) * 60
      let start = 8 * 3600 + lifeRandom.int(0...3600)
      bouts = bouts.filter { $0.start + $0.duration < start || $0.start > start + duration }
      bouts.append(Bout(start: start, duration: duration, steps: duration / 60 * lifeRandom.int(105...115)))
      bouts.sort { $0.start < $1.start }
    }
    if density.longHistory, lifeRandom.int(1...100) == 1 {
      // A step app importing a whole day as one record (what some band apps do): raw sums count
      // its 30,000-odd steps on top of the devices', the merge only where nothing else counted.
      let appPrefix = quantityPrefixes(stepApp)
      writeSteps(appPrefix, start: 60, end: 86_340, steps: lifeRandom.int(28_000...34_000))
    }

    let phonePrefix = quantityPrefixes(phone)
    let watchPrefix = quantityPrefixes(watch)
    let appPrefix = quantityPrefixes(stepApp)

    if random.chance(8) {
      // Walking home after midnight, phone only.
      let start = random.int(300...1500)
      writeSteps(phonePrefix, start: start, end: start + random.int(300...900), steps: random.int(300...1400))
    }
    for bout in bouts {
      if wearsWatch {
        writePieces(watchPrefix, bout: bout, pieceLength: density.watchPiece, shift: 0, variation: 3)
      }
      if random.chance(72) {
        writePieces(
          phonePrefix, bout: bout, pieceLength: density.phonePiece, shift: random.int(-40...40), variation: 8)
      }
      if thirdPartyActive {
        let steps = bout.steps * random.int(98...106) / 100
        writeSteps(appPrefix, start: bout.start - 30, end: bout.start + bout.duration + 30, steps: steps)
      }
    }
    if index % 9 == 4 {
      writeManualEntry()
    }
    try sections.flushIfNeeded()
    writeNoise(bouts: bouts, wearsWatch: wearsWatch)
    if density.energyAndFlights {
      writeEnergyAndFlights(bouts: bouts, wearsWatch: wearsWatch)
    }
    truth.finishDay(day.date.iso)
    tallies.append(dayTally)
    try sections.finishDay()
  }

  struct Bout {
    var start: Int
    var duration: Int
    var steps: Int
  }

  private func makeBouts() -> [Bout] {
    if density.allDay { return makeAllDayBouts() }
    let count = random.int(density.bouts)
    var slots = (0..<count).map { _ in random.int(7 * 3600...21 * 3600) }.sorted()
    var bouts: [Bout] = []
    var earliest = 7 * 3600
    for index in slots.indices {
      slots[index] = max(slots[index], earliest)
      let duration = random.int(3...30) * 60 + random.int(0...59)
      guard slots[index] + duration < 22 * 3600 + 1800 else { break }
      let cadence = random.int(85...125)  // steps per minute
      bouts.append(Bout(start: slots[index], duration: duration, steps: cadence * duration / 60))
      earliest = slots[index] + duration + random.int(300...3600)
    }
    return bouts
  }

  /// On the move from about 7:00 to 22:30: bouts of 5 to 40 minutes, breaks of 1 to 6.
  private func makeAllDayBouts() -> [Bout] {
    var bouts: [Bout] = []
    var start = random.int(6 * 3600 + 1800...7 * 3600 + 1800)
    let end = random.int(21 * 3600 + 1800...22 * 3600 + 1800)
    while start < end {
      let duration = min(random.int(5...40) * 60 + random.int(0...59), end - start)
      let cadence = random.int(40...115)
      bouts.append(Bout(start: start, duration: duration, steps: max(1, cadence * duration / 60)))
      start += duration + random.int(60...360)
    }
    return bouts
  }

  /// Step and distance record prefixes for a source on this day.
  private struct Prefixes {
    var steps: RecordPrefix
    var distance: RecordPrefix
  }

  private func quantityPrefixes(_ source: GeneratedSource) -> Prefixes {
    Prefixes(
      steps: prefix(
        type: "HKQuantityTypeIdentifierStepCount", source: source, unit: "count"),
      distance: prefix(
        type: "HKQuantityTypeIdentifierDistanceWalkingRunning", source: source, unit: "km"))
  }

  /// ` <Record type="…" sourceName="…" sourceVersion="…" device="…" unit="…" creationDate="`.
  private func prefix(
    type: String, source: GeneratedSource, unit: String, element: String = "Record"
  ) -> RecordPrefix {
    prefix(
      opening: " <\(element) type=\"\(type)\"", source: source, unit: unit,
      section: ExportSection.index(element: element, type: type))
  }

  /// `opening`, then ` sourceName="…" sourceVersion="…" device="…" unit="…" creationDate="`,
  /// without `device` for a source that has none and without `unit` when it is empty; the
  /// element goes to `section`.
  private func prefix(opening: String, source: GeneratedSource, unit: String = "", section: Int)
    -> RecordPrefix
  {
    var head = opening + " sourceName=\"\(source.name)\""
    head += " sourceVersion=\"\(source.version(on: day.date))\""
    var tail = ""
    let deviceTail = source.deviceTail(on: day.date)
    if let deviceTail {
      head += " device=\"&lt;&lt;HKDevice: "
      tail = deviceTail + "\""
    }
    if !unit.isEmpty { tail += " unit=\"\(unit)\"" }
    tail += " creationDate=\""
    guard deviceTail != nil else {
      return RecordPrefix(head: Array((head + tail).utf8), tail: nil, section: section)
    }
    return RecordPrefix(head: Array(head.utf8), tail: Array(tail.utf8), section: section)
  }

  /// Writes an element's start with a fresh device address, to its section's sink unless it is
  /// `nested` in another element (then to that element's).
  private func write(_ prefix: RecordPrefix, nested: Bool = false) {
    if !nested {
      sink = sections.sink(prefix.section)
      sections.beginElement(prefix.section)
    }
    sink.append(prefix.head)
    guard let tail = prefix.tail else { return }
    writeAddress()
    sink.append(tail)
  }

  /// A fresh `HKDevice` object address: `0x` and nine hexadecimal digits,
  /// 16-byte aligned (`0x282a45810`).
  private func writeAddress() {
    let address = 0x2_8000_0000 + (addressRandom.next() % 0x7FFF_FFFF) & ~0xF
    sink.append("0x")
    for shift in stride(from: 32, through: 0, by: -4) {
      let digit = UInt8(truncatingIfNeeded: address >> UInt64(shift) & 0xF)
      sink.append(byte: digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10)
    }
  }

  private func writePieces(
    _ prefixes: Prefixes, bout: Bout, pieceLength: ClosedRange<Int>, shift: Int, variation: Int
  ) {
    var start = bout.start + shift
    let end = bout.start + bout.duration + shift
    while start < end {
      let length = min(random.int(pieceLength), end - start)
      let nominal = bout.steps * length / max(bout.duration, 1)
      let steps = max(1, nominal * random.int((100 - variation)...(100 + variation / 2)) / 100)
      writeSteps(prefixes, start: start, end: start + length, steps: steps)
      start += length
    }
  }

  /// One step record and its distance record.
  private func writeSteps(_ prefixes: Prefixes, start: Int, end: Int, steps: Int) {
    let offset = day.offset(at: start)
    let creation = end + random.int(20...400)
    write(prefixes.steps)
    writeDates(creation: creation, start: start, end: end, offset: offset)
    sink.append(integer: steps)
    sink.append("\"/>\n")
    dayTally.rawSteps += steps
    dayTally.stepSamples += 1

    let centimetres = steps * random.int(68...79)  // stride length
    write(prefixes.distance)
    writeDates(creation: creation, start: start, end: end, offset: offset)
    sink.append(fixed: centimetres, decimals: 5)  // km with 5 decimals
    sink.append("\"/>\n")
  }

  /// `…" startDate="…" endDate="…" value="` after the creation date.
  private func writeDates(creation: Int, start: Int, end: Int, offset: Int) {
    writeCreationAndSpan(creation: creation, start: start, end: end, offset: offset)
    sink.append("\" value=\"")
  }

  /// `…" startDate="…" endDate="…` after `creationDate="`.
  private func writeCreationAndSpan(creation: Int, start: Int, end: Int, offset: Int) {
    sections.noteStart(Int64(day.date.daysSinceEpoch * 86400 + start - offset))
    writeDate(creation, offset: offset)
    sink.append("\" startDate=\"")
    writeSpan(start: start, end: end, offset: offset)
  }

  /// `…" endDate="…` after `startDate="`.
  private func writeSpan(start: Int, end: Int, offset: Int) {
    writeDate(start, offset: offset)
    sink.append("\" endDate=\"")
    writeDate(end, offset: offset)
  }

  private let offsetCache = OffsetCache()

  /// `YYYY-MM-DD HH:mm:ss ±HHMM` for a second of the current day (may spill into the next).
  private func writeDate(_ second: Int, offset: Int) {
    let dayShift = second >= 86400 ? second / 86400 : (second < 0 ? -1 : 0)
    let within = second - dayShift * 86400
    sink.append(day.dateBytes(shiftedBy: dayShift))
    sink.append(byte: UInt8(ascii: " "))
    sink.append(twoDigits: within / 3600)
    sink.append(byte: UInt8(ascii: ":"))
    sink.append(twoDigits: within / 60 % 60)
    sink.append(byte: UInt8(ascii: ":"))
    sink.append(twoDigits: within % 60)
    sink.append(offsetCache.bytes(offset))
  }

  private func writeManualEntry() {
    let start = random.int(17 * 3600...19 * 3600) / 60 * 60
    let end = start + 30 * 60
    let steps = random.int(5...30) * 100
    let offset = day.offset(at: start)
    let stepPrefix = prefix(
      type: "HKQuantityTypeIdentifierStepCount", source: health, unit: "count")
    write(stepPrefix)
    writeDates(creation: end + random.int(3600...7200), start: start, end: end, offset: offset)
    sink.append(integer: steps)
    sink.append("\">\n  <MetadataEntry key=\"HKWasUserEntered\" value=\"1\"/>\n </Record>\n")
    dayTally.rawSteps += steps
    dayTally.manualSteps += steps
    dayTally.stepSamples += 1
    if random.chance(50) {
      let distancePrefix = prefix(
        type: "HKQuantityTypeIdentifierDistanceWalkingRunning", source: health, unit: "km")
      write(distancePrefix)
      writeDates(creation: end + 7300, start: start, end: end, offset: offset)
      sink.append(fixed: steps * 72, decimals: 5)
      sink.append("\">\n  <MetadataEntry key=\"HKWasUserEntered\" value=\"1\"/>\n </Record>\n")
    }
  }

  // MARK: Noise

  private func writeNoise(bouts: [Bout], wearsWatch: Bool) {
    let isWalking: (Int) -> Bool = { second in
      bouts.contains { $0.start <= second && second < $0.start + $0.duration }
    }
    if wearsWatch, let every = density.heartRateEvery {
      let heartPrefix = prefix(
        type: "HKQuantityTypeIdentifierHeartRate", source: watch, unit: "count/min")
      var second = 6 * 3600 + random.int(0...600)
      while second < 86000 {
        let walking = isWalking(second)
        write(heartPrefix)
        writeDates(
          creation: second + random.int(1...300), start: second, end: second, offset: day.offset(at: second))
        sink.append(integer: walking ? random.int(95...135) : random.int(56...82))
        sink.append("\">\n  <MetadataEntry key=\"HKMetadataKeyHeartRateMotionContext\" value=\"")
        sink.append(integer: walking ? 2 : random.int(0...1))
        sink.append("\"/>\n </Record>\n")
        second += random.int(walking ? density.walkingHeartRateEvery : every)
      }
    }
    if wearsWatch, let every = density.activeEnergyEvery {
      let energyPrefix = prefix(
        type: "HKQuantityTypeIdentifierActiveEnergyBurned", source: watch, unit: "kcal")
      var second = 6 * 3600 + random.int(0...120)
      while second < 86000 {
        let length = random.int(45...70)
        write(energyPrefix)
        writeDates(
          creation: second + length + random.int(1...200), start: second, end: second + length,
          offset: day.offset(at: second))
        let millis = isWalking(second) ? random.int(3000...9000) : random.int(40...900)
        sink.append(fixed: millis, decimals: 3)
        sink.append("\"/>\n")
        addTruth(
          Self.activeEnergy, sourceClass: 2, start: second, end: second + length, value: Double(millis) / 1000
        )
        second += length + random.int(every)
      }
    }
    if density.basalEnergy {
      let basalPrefix = prefix(
        type: "HKQuantityTypeIdentifierBasalEnergyBurned", source: wearsWatch ? watch : phone, unit: "kcal")
      var second = random.int(0...600)
      while second < 86000 {
        write(basalPrefix)
        writeDates(creation: second + 1900, start: second, end: second + 1800, offset: day.offset(at: second))
        sink.append(fixed: random.int(28_000...36_000), decimals: 3)
        sink.append("\"/>\n")
        second += 1800
      }
    }
    if wearsWatch, density.heartRateVariability {
      writeHeartRateVariability()
    }
    if day.index % 7 == 2 {
      writeBloodPressure()
    }
    if wearsWatch, let longest = bouts.max(by: { $0.duration < $1.duration }), longest.duration > 20 * 60,
      day.index % 3 == 0
    {
      writeWorkout(longest)
    }
    if density.mobilityAndHearing {
      writeMobility(bouts: bouts)
      writeHeadphoneAudio()
    }
    writeActivitySummary(bouts: bouts)
  }

  // MARK: Energy and flights

  private static let activeEnergy = "HKQuantityTypeIdentifierActiveEnergyBurned"
  private static let flights = "HKQuantityTypeIdentifierFlightsClimbed"

  /// Notes a record for ``truth``; `start` and `end` are seconds of the local day.
  private func addTruth(
    _ type: String, sourceClass: Int, start: Int, end: Int, value: Double, userEntered: Bool = false
  ) {
    let offset = day.offset(at: start)
    truth.add(
      type,
      CumulativeTruth.Entry(
        sourceClass: sourceClass, start: start - offset, end: end - offset, value: value,
        userEntered: userEntered))
  }

  /// One record of `type` from `source` over `start..<end` (local seconds), its value
  /// `thousandths / 1000` in `unit`, with `HKWasUserEntered` when typed in.
  private func writeQuantity(
    _ type: String, source: GeneratedSource, unit: String, start: Int, end: Int, thousandths: Int,
    userEntered: Bool = false
  ) {
    write(prefix(type: type, source: source, unit: unit))
    writeDates(
      creation: end + extraRandom.int(5...600), start: start, end: end, offset: day.offset(at: start))
    sink.append(fixed: thousandths, decimals: 3)
    sink.append(
      userEntered ? "\">\n  <MetadataEntry key=\"HKWasUserEntered\" value=\"1\"/>\n </Record>\n" : "\"/>\n")
  }

  /// What a phone, a watch, a fitness app and a person typing write besides
  /// the Watch's own energy: the iPhone's active energy over each walk it
  /// noticed (overlapping the Watch's), a workout in the app in kJ, a typed-in
  /// meal-burn in Cal, and flights climbed from all three.
  private func writeEnergyAndFlights(bouts: [Bout], wearsWatch: Bool) {
    for bout in bouts {
      if extraRandom.chance(70) {
        let start = bout.start + extraRandom.int(-60...60)
        let end = start + bout.duration
        let thousandths = bout.duration * extraRandom.int(50...100)  // 3 to 6 kcal a minute
        writeQuantity(
          Self.activeEnergy, source: phone, unit: "kcal", start: start, end: end, thousandths: thousandths)
        addTruth(Self.activeEnergy, sourceClass: 3, start: start, end: end, value: Double(thousandths) / 1000)
      }
      if extraRandom.chance(40) {
        let flights = extraRandom.int(1...3)
        let start = bout.start + extraRandom.int(0...max(0, bout.duration - 120))
        let end = start + extraRandom.int(20...90)
        writeQuantity(
          Self.flights, source: phone, unit: "count", start: start, end: end, thousandths: flights * 1000)
        addTruth(Self.flights, sourceClass: 3, start: start, end: end, value: Double(flights))
        if wearsWatch {
          let shift = extraRandom.int(-30...30)
          let watchFlights = max(1, flights + extraRandom.int(-1...1))
          writeQuantity(
            Self.flights, source: watch, unit: "count", start: start + shift, end: end + shift,
            thousandths: watchFlights * 1000)
          addTruth(
            Self.flights, sourceClass: 2, start: start + shift, end: end + shift, value: Double(watchFlights))
        }
      }
    }
    if extraRandom.chance(30) {
      // A workout logged in the app, which writes energy in kJ and the floors of a stair session.
      let start = extraRandom.int(18 * 3600...20 * 3600)
      let end = start + extraRandom.int(20...45) * 60
      let kilojoules = extraRandom.int(400_000...1_200_000)
      writeQuantity(
        Self.activeEnergy, source: fitnessApp, unit: "kJ", start: start, end: end, thousandths: kilojoules)
      addTruth(
        Self.activeEnergy, sourceClass: 4, start: start, end: end, value: Double(kilojoules) / 1000 / 4.184)
      let floors = extraRandom.int(4...20)
      writeQuantity(
        Self.flights, source: fitnessApp, unit: "count", start: start, end: end, thousandths: floors * 1000)
      addTruth(Self.flights, sourceClass: 4, start: start, end: end, value: Double(floors))
    }
    if day.index % 11 == 6 {
      // Typed into Health by hand: food calories ("Cal") and a walk up a tower.
      let start = extraRandom.int(12 * 3600...14 * 3600) / 60 * 60
      let end = start + 1800
      let calories = extraRandom.int(150...400) * 1000
      writeQuantity(
        Self.activeEnergy, source: health, unit: "Cal", start: start, end: end, thousandths: calories,
        userEntered: true)
      addTruth(
        Self.activeEnergy, sourceClass: 1, start: start, end: end, value: Double(calories) / 1000,
        userEntered: true)
      let floors = extraRandom.int(5...30)
      writeQuantity(
        Self.flights, source: health, unit: "count", start: start, end: end, thousandths: floors * 1000,
        userEntered: true)
      addTruth(Self.flights, sourceClass: 1, start: start, end: end, value: Double(floors), userEntered: true)
    }
  }

  /// The iPhone's walking speed and step length: a few short samples during
  /// longer walks, in the units of a metric locale.
  private func writeMobility(bouts: [Bout]) {
    let speedPrefix = prefix(type: "HKQuantityTypeIdentifierWalkingSpeed", source: phone, unit: "km/hr")
    let lengthPrefix = prefix(type: "HKQuantityTypeIdentifierWalkingStepLength", source: phone, unit: "cm")
    for bout in bouts where bout.duration > 6 * 60 {
      for _ in 0..<random.int(1...3) {
        let start = bout.start + random.int(0...bout.duration - 60)
        let end = start + random.int(5...40)
        let offset = day.offset(at: start)
        let creation = end + random.int(60...900)
        write(speedPrefix)
        writeDates(creation: creation, start: start, end: end, offset: offset)
        sink.append(fixed: random.int(38_000...56_000), decimals: 4)  // km/hr
        sink.append("\"/>\n")
        write(lengthPrefix)
        writeDates(creation: creation, start: start, end: end, offset: offset)
        sink.append(integer: random.int(62...79))  // cm
        sink.append("\"/>\n")
      }
    }
  }

  /// Headphone audio levels the iPhone records while music plays through
  /// AirPods: a sample every few seconds to minutes over one or two sessions.
  private func writeHeadphoneAudio() {
    let audioPrefix = prefix(
      type: "HKQuantityTypeIdentifierHeadphoneAudioExposure", source: headphones, unit: "dBASPL")
    for _ in 0..<random.int(0...2) {
      var second = random.int(7 * 3600...21 * 3600)
      let sessionEnd = second + random.int(10...70) * 60
      while second < sessionEnd {
        let length = random.int(4...180)
        write(audioPrefix)
        writeDates(
          creation: second + length + random.int(30...600), start: second, end: second + length,
          offset: day.offset(at: second))
        sink.append(fixed: random.int(480_000...820_000), decimals: 4)  // dBASPL
        sink.append("\"/>\n")
        second += length + random.int(1...240)
      }
    }
  }

  private func writeHeartRateVariability() {
    let hrvPrefix = prefix(
      type: "HKQuantityTypeIdentifierHeartRateVariabilitySDNN", source: watch, unit: "ms")
    let start = random.int(1 * 3600...5 * 3600)
    let offset = day.offset(at: start)
    write(hrvPrefix)
    writeDates(creation: start + 70, start: start, end: start + 60, offset: offset)
    sink.append(fixed: random.int(20_000...90_000), decimals: 3)
    sink.append("\">\n  <HeartRateVariabilityMetadataList>\n")
    var second = start
    for _ in 0..<random.int(40...70) {
      sink.append("   <InstantaneousBeatsPerMinute bpm=\"")
      sink.append(integer: random.int(52...78))
      sink.append("\" time=\"")
      // Wall-clock time with centiseconds, as the export writes it (`1:23:45.67 AM`).
      let hour12 = second / 3600 % 12 == 0 ? 12 : second / 3600 % 12
      sink.append(integer: hour12)
      sink.append(byte: UInt8(ascii: ":"))
      sink.append(twoDigits: second / 60 % 60)
      sink.append(byte: UInt8(ascii: ":"))
      sink.append(twoDigits: second % 60)
      sink.append(byte: UInt8(ascii: "."))
      sink.append(twoDigits: random.int(0...99))
      sink.append(second / 3600 < 12 ? " AM\"/>\n" : " PM\"/>\n")
      second += 1
    }
    sink.append("  </HeartRateVariabilityMetadataList>\n </Record>\n")
  }

  private func writeBloodPressure() {
    let start = random.int(7 * 3600...8 * 3600)
    let offset = day.offset(at: start)
    let systolic = random.int(112...134)
    let diastolic = random.int(70...86)
    let systolicPrefix = prefix(
      type: "HKQuantityTypeIdentifierBloodPressureSystolic", source: scale, unit: "mmHg")
    let diastolicPrefix = prefix(
      type: "HKQuantityTypeIdentifierBloodPressureDiastolic", source: scale, unit: "mmHg")
    let link = "withings-bd2://timeline/measure?userid=17731&amp;date=\(day.date.iso)&amp;type=4"
    // Nested in the Correlation (indented), or at top level in their types' sections.
    func children(nested: Bool) {
      let indent: StaticString = nested ? " " : ""
      for (recordPrefix, value) in [(systolicPrefix, systolic), (diastolicPrefix, diastolic)] {
        sink.append(indent)
        write(recordPrefix, nested: nested)
        writeDates(creation: start + 40, start: start, end: start, offset: offset)
        sink.append(integer: value)
        sink.append("\">\n")
        sink.append(indent)
        sink.append("  <MetadataEntry key=\"Withings Link\" value=\"")
        sink.append(Array(link.utf8))
        sink.append("\"/>\n")
        sink.append(indent)
        sink.append(" </Record>\n")
      }
    }
    // The Correlation, then the same records at top level (as the DTD notes).
    write(
      prefix(
        type: "HKCorrelationTypeIdentifierBloodPressure", source: scale, unit: "", element: "Correlation"))
    writeCreationAndSpan(creation: start + 40, start: start, end: start, offset: offset)
    sink.append("\">\n  <MetadataEntry key=\"Withings Link\" value=\"")
    sink.append(Array(link.utf8))
    sink.append("\"/>\n")
    children(nested: true)
    sink.append(" </Correlation>\n")
    children(nested: false)
  }

  /// Exports from iOS 16 on (September 2022) write a workout's totals as
  /// `<WorkoutStatistics>` children; earlier ones as attributes of the workout.
  private var writesWorkoutStatistics: Bool { (day.date.year, day.date.month, day.date.day) >= (2022, 9, 12) }

  private func writeWorkout(_ bout: Bout) {
    let offset = day.offset(at: bout.start)
    let end = bout.start + bout.duration
    // Every sixth workout day a run, the rest walks; every other one paused for a minute.
    let running = day.index % 6 == 3
    let paused = day.index % 2 == 0
    let activity = running ? "HKWorkoutActivityTypeRunning" : "HKWorkoutActivityTypeWalking"
    var opening = " <Workout workoutActivityType=\"\(activity)\" duration=\""
    opening += String(format: "%.4f", Double(bout.duration) / 60)
    opening += "\" durationUnit=\"min\""
    if !writesWorkoutStatistics {
      opening += " totalDistance=\""
      opening += String(format: "%.4f", Double(bout.steps) * 0.74 / 1000)
      opening += "\" totalDistanceUnit=\"km\" totalEnergyBurned=\""
      opening += String(format: "%.4f", Double(bout.steps) * 0.045)
      opening += "\" totalEnergyBurnedUnit=\"kcal\""
    }
    write(
      prefix(
        opening: opening, source: watch, section: ExportSection.index(element: "Workout", type: activity)))
    writeCreationAndSpan(creation: end + 5, start: bout.start, end: end, offset: offset)
    sink.append(
      "\">\n  <MetadataEntry key=\"HKIndoorWorkout\" value=\"0\"/>\n  <MetadataEntry key=\"HKTimeZone\" value=\""
    )
    sink.append(Array(day.zone.identifier.utf8))
    sink.append("\"/>\n  <MetadataEntry key=\"HKWeatherTemperature\" value=\"")
    sink.append(integer: random.int(28...86))
    sink.append(" degF\"/>\n  <MetadataEntry key=\"HKWeatherHumidity\" value=\"")
    sink.append(integer: random.int(30...98) * 100)
    sink.append(" %\"/>\n  <WorkoutEvent type=\"HKWorkoutEventTypeSegment\" date=\"")
    writeDate(bout.start, offset: offset)
    sink.append("\" duration=\"")
    sink.append(fixed: bout.duration * 100 / 60, decimals: 2)
    sink.append("\" durationUnit=\"min\"/>\n")
    if paused {
      let pause = bout.start + bout.duration / 2
      sink.append("  <WorkoutEvent type=\"HKWorkoutEventTypePause\" date=\"")
      writeDate(pause, offset: offset)
      sink.append("\"/>\n  <WorkoutEvent type=\"HKWorkoutEventTypeResume\" date=\"")
      writeDate(pause + 60, offset: offset)
      sink.append("\"/>\n")
    }
    if writesWorkoutStatistics {
      writeWorkoutStatistics(
        "HKQuantityTypeIdentifierActiveEnergyBurned", bout: bout, offset: offset, sum: bout.steps * 45,
        decimals: 3, unit: "kcal")
      writeWorkoutStatistics(
        "HKQuantityTypeIdentifierStepCount", bout: bout, offset: offset, sum: bout.steps, decimals: 0,
        unit: "count")
      writeWorkoutStatistics(
        "HKQuantityTypeIdentifierDistanceWalkingRunning", bout: bout, offset: offset, sum: bout.steps * 74,
        decimals: 5, unit: "km")
      let average = running ? 152 : 108
      sink.append("  <WorkoutStatistics type=\"HKQuantityTypeIdentifierHeartRate\" startDate=\"")
      writeSpan(start: bout.start, end: bout.start + bout.duration, offset: offset)
      sink.append("\" average=\"")
      sink.append(integer: average)
      sink.append("\" minimum=\"")
      sink.append(integer: average - 31)
      sink.append("\" maximum=\"")
      sink.append(integer: average + 24)
      sink.append("\" unit=\"count/min\"/>\n")
    }
    sink.append("  <WorkoutRoute sourceName=\"")
    sink.append(Array(watch.name.utf8))
    sink.append("\" sourceVersion=\"")
    sink.append(Array(watch.version(on: day.date).utf8))
    sink.append("\" creationDate=\"")
    writeCreationAndSpan(creation: end + 9, start: bout.start, end: end, offset: offset)
    sink.append("\">\n   <FileReference path=\"/workout-routes/route_")
    sink.append(day.dateBytes)
    sink.append("_")
    let hour = bout.start / 3600
    sink.append(integer: hour % 12 == 0 ? 12 : hour % 12)
    sink.append(".")
    sink.append(twoDigits: bout.start / 60 % 60)
    sink.append(
      hour < 12
        ? "am.gpx\"/>\n  </WorkoutRoute>\n </Workout>\n" : "pm.gpx\"/>\n  </WorkoutRoute>\n </Workout>\n")
  }

  /// `  <WorkoutStatistics type="…" startDate="…" endDate="…" sum="…" unit="…"/>` over the
  /// whole workout, the sum being `sum / 10^decimals`.
  private func writeWorkoutStatistics(
    _ type: StaticString, bout: Bout, offset: Int, sum: Int, decimals: Int, unit: StaticString
  ) {
    sink.append("  <WorkoutStatistics type=\"")
    sink.append(type)
    sink.append("\" startDate=\"")
    writeSpan(start: bout.start, end: bout.start + bout.duration, offset: offset)
    sink.append("\" sum=\"")
    sink.append(fixed: sum, decimals: decimals)
    sink.append("\" unit=\"")
    sink.append(unit)
    sink.append("\"/>\n")
  }

  private func writeActivitySummary(bouts: [Bout]) {
    let exercise = bouts.reduce(0) { $0 + $1.duration } / 60
    sink = sections.sink(ExportSection.index(element: "ActivitySummary", type: ""))
    sink.append(" <ActivitySummary dateComponents=\"")
    sink.append(day.dateBytes)
    sink.append("\" activeEnergyBurned=\"")
    sink.append(fixed: random.int(150_000...750_000), decimals: 3)
    sink.append(
      "\" activeEnergyBurnedGoal=\"500\" activeEnergyBurnedUnit=\"Cal\" appleMoveTime=\"0\" appleMoveTimeGoal=\"0\" appleExerciseTime=\""
    )
    sink.append(integer: exercise)
    sink.append("\" appleExerciseTimeGoal=\"30\" appleStandHours=\"")
    sink.append(integer: random.int(6...14))
    sink.append("\" appleStandHoursGoal=\"12\"/>\n")
  }
}

/// ` +0100` texts by offset, built once each.
final class OffsetCache {
  private var cache: [Int: [UInt8]] = [:]

  func bytes(_ offset: Int) -> [UInt8] {
    if let bytes = cache[offset] { return bytes }
    let bytes = offsetBytes(offset)
    cache[offset] = bytes
    return bytes
  }
}
