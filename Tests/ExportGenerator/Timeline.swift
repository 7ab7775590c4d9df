import Foundation

/// Where the person is each day (home in Europe/Berlin, trips elsewhere) and
/// the UTC offset their phone records, DST included.
struct Timeline {
  struct Trip {
    var firstDay: Int
    var lastDay: Int
    var zone: TimeZone
  }

  let home: TimeZone
  private(set) var trips: [Trip] = []

  /// A timeline with trips spread over `days`, or the given trips.
  init(home: TimeZone, days: Int, random: inout SeededRandom, fixedTrips: [Trip]? = nil) {
    self.home = home
    if let fixedTrips {
      trips = fixedTrips
      return
    }
    let destinations = ["Asia/Shanghai", "America/New_York", "Asia/Tokyo", "Asia/Kolkata", "Asia/Shanghai"]
    var day = random.int(40...90)
    var index = 0
    while day < days {
      let length = random.int(5...12)
      if let zone = TimeZone(identifier: destinations[index % destinations.count]) {
        trips.append(Trip(firstDay: day, lastDay: day + length - 1, zone: zone))
      }
      index += 1
      day += length + random.int(70...130)
    }
  }

  /// The zone the person is in on day `index`.
  func zone(onDay index: Int) -> TimeZone {
    for trip in trips where trip.firstDay <= index && index <= trip.lastDay { return trip.zone }
    return home
  }

  /// The UTC offset in `zone` at a local wall-clock time (seconds since 1970 as if UTC).
  static func offset(in zone: TimeZone, localEpoch: Int) -> Int {
    let guess = zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(localEpoch)))
    return zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(localEpoch - guess)))
  }
}

/// One local day: its date text and offsets, computed once.
struct DayContext {
  let index: Int
  let date: CivilDate
  let dateBytes: [UInt8]
  let zone: TimeZone
  let morningOffset: Int
  let eveningOffset: Int
  private let epochDay: Int

  init(index: Int, firstEpochDay: Int, zone: TimeZone) {
    self.index = index
    epochDay = firstEpochDay + index
    date = CivilDate(daysSinceEpoch: epochDay)
    dateBytes = date.isoBytes
    self.zone = zone
    morningOffset = Timeline.offset(in: zone, localEpoch: epochDay * 86400)
    eveningOffset = Timeline.offset(in: zone, localEpoch: epochDay * 86400 + 86399)
  }

  /// The offset at `second` of the local day (DST days ask the time-zone database).
  func offset(at second: Int) -> Int {
    if morningOffset == eveningOffset { return morningOffset }
    return Timeline.offset(in: zone, localEpoch: epochDay * 86400 + second)
  }

  /// The date bytes of a day `shift` days away.
  func dateBytes(shiftedBy shift: Int) -> [UInt8] {
    shift == 0 ? dateBytes : CivilDate(daysSinceEpoch: epochDay + shift).isoBytes
  }
}
