import Foundation
import Testing

@testable import stepkit

/// The external sorter of index entries against a naive reference: Swift's `sorted` on the keys as
/// `[UInt8]`, equal keys in the order they were appended.
@Suite("External sorter", .hangLimit(minutes: 2))
struct ExternalSorterTests {
  /// One entry as the tests write it.
  struct Entry {
    var key: [UInt8]
    var payload: [UInt8]
  }

  /// The payloads in the order a stable sort by key gives: the reference.
  static func reference(_ entries: [Entry]) -> [[UInt8]] {
    entries.enumerated().sorted { first, second in
      if first.element.key == second.element.key { return first.offset < second.offset }
      return first.element.key.lexicographicallyPrecedes(second.element.key)
    }.map(\.element.payload)
  }

  /// Where `payloads` first differ from `expected`, or `nil` when they are the same: a short
  /// message instead of a diff of many thousand arrays.
  static func mismatch(_ payloads: [[UInt8]], _ expected: [[UInt8]]) -> String? {
    if let index = zip(payloads, expected).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset
    {
      return "payload \(index) is \(payloads[index]), expected \(expected[index])"
    }
    return payloads.count == expected.count ? nil : "\(payloads.count) payloads, expected \(expected.count)"
  }

  /// Random entries: keys of 0–40 bytes built from a few shared prefixes and a small alphabet
  /// (0x00 and 0xFF among it), a third of them repeating an earlier key; each payload starts with
  /// its entry's number, so that any two payloads differ.
  static func randomEntries(_ count: Int, seed: UInt64) -> [Entry] {
    var random = SeededGenerator(state: seed)
    let alphabet: [UInt8] = [0x00, 0x01, 0x61, 0x62, 0x7F, 0x80, 0xFE, 0xFF]
    let prefixes: [[UInt8]] = [
      [], [0x61], [0x61, 0x62, 0x63, 0x64], [0x00, 0x00], [0xFF], Array("index-key".utf8),
    ]
    var entries: [Entry] = []
    entries.reserveCapacity(count)
    for number in 0..<count {
      let key: [UInt8]
      if !entries.isEmpty && Int.random(in: 0..<3, using: &random) == 0 {
        key = entries[Int.random(in: 0..<entries.count, using: &random)].key
      } else {
        var built = prefixes[Int.random(in: 0..<prefixes.count, using: &random)]
        let length = Int.random(in: 0...40, using: &random)
        while built.count < length {
          built.append(alphabet[Int.random(in: 0..<alphabet.count, using: &random)])
        }
        key = Array(built.prefix(length))
      }
      var payload = withUnsafeBytes(of: UInt32(number).littleEndian) { Array($0) }
      for _ in 0..<Int.random(in: 0...20, using: &random) {
        payload.append(UInt8.random(in: 0...255, using: &random))
      }
      entries.append(Entry(key: key, payload: payload))
    }
    return entries
  }

  /// Appends one entry to `sorter`.
  static func append(_ entry: Entry, to sorter: ExternalSorter) throws(OutputFileError) {
    // `Array.withUnsafeBytes` rethrows untyped errors: the typed one goes round it in a `Result`.
    let appended = entry.key.withUnsafeBytes { key in
      entry.payload.withUnsafeBytes { payload in
        Result { () throws(OutputFileError) in try sorter.append(key: key, payload: payload) }
      }
    }
    try appended.get()
  }

  /// Appends `entries` to `sorter` and collects what ``ExternalSorter/finish(_:)`` hands out.
  static func sort(_ entries: [Entry], with sorter: ExternalSorter) throws(OutputFileError) -> [[UInt8]] {
    for entry in entries {
      try Self.append(entry, to: sorter)
    }
    var payloads: [[UInt8]] = []
    try sorter.finish { payload in payloads.append(Array(payload)) }
    return payloads
  }

  /// Sorts `entries` with a budget of `budget` bytes in a scratch directory, checks that the
  /// directory stays empty, and returns the payloads and the number of runs spilled.
  static func sort(_ entries: [Entry], budget: Int) throws -> (payloads: [[UInt8]], runs: Int) {
    try withScratchDirectory { directory in
      let sorter = ExternalSorter(memoryBudget: budget, directory: directory.path)
      let payloads = try sort(entries, with: sorter)
      #expect(sorter.count == entries.count)
      #expect(try contents(directory).isEmpty)
      return (payloads, sorter.spilledRunCount)
    }
  }

  /// The bytes of `text`.
  static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

  // MARK: Against the reference

  /// A budget, how many entries, how many runs must spill, and whether there are more than the
  /// merge has buffers for (so that groups of runs are merged first).
  struct Case: Sendable, CustomTestStringConvertible {
    var budget: Int
    var count: Int
    var runs: ClosedRange<Int>
    var grouped: Bool
    var seed: UInt64
    var testDescription: String { "\(count) entries, budget \(budget), runs \(runs)" }
  }

  @Test(
    "Payloads come out in the order of a stable sort by key, spilled or not",
    arguments: [
      // Everything in memory: no file at all.
      Case(budget: 1 << 30, count: 5_000, runs: 0...0, grouped: false, seed: 1),
      // One spill while appending, one more at the end.
      Case(budget: 150_000, count: 5_000, runs: 2...2, grouped: false, seed: 2),
      // A few runs, merged in one pass by six buffers.
      Case(budget: 200_000, count: 15_000, runs: 3...6, grouped: false, seed: 3),
      // Many more runs than two 32 KiB buffers: merged in pairs, pass after pass.
      Case(budget: 40_000, count: 40_000, runs: 30...100, grouped: true, seed: 4),
      // More runs than the nine buffers 300 000 bytes make: groups of up to seven merged first.
      Case(budget: 300_000, count: 80_000, runs: 10...40, grouped: true, seed: 5),
      // Every entry spilled on its own (neighbours in key order join one run).
      Case(budget: 1, count: 300, runs: 100...300, grouped: true, seed: 6),
    ])
  func againstReference(_ test: Case) throws {
    let entries = Self.randomEntries(test.count, seed: test.seed)
    let (payloads, runs) = try Self.sort(entries, budget: test.budget)
    #expect(test.runs.contains(runs))
    #expect((runs > max(2, test.budget / ExternalSorter.minimumRunBuffer)) == test.grouped)
    #expect(Self.mismatch(payloads, Self.reference(entries)) == nil)
  }

  @Test("Input already in key order stays one run however often it spills")
  func alreadySorted() throws {
    let keys = Self.randomEntries(20_000, seed: 7).map(\.key).sorted { $0.lexicographicallyPrecedes($1) }
    let entries = keys.enumerated().map { Entry(key: $0.element, payload: Self.bytes("\($0.offset)")) }
    for budget in [1 << 30, 50_000, 1] {
      let (payloads, runs) = try Self.sort(entries, budget: budget)
      #expect(runs == (budget == 1 << 30 ? 0 : 1))
      #expect(Self.mismatch(payloads, Self.reference(entries)) == nil)
      #expect(Self.mismatch(payloads, entries.map(\.payload)) == nil)
    }
  }

  @Test("Input in reverse key order comes out reversed, equal keys still in the order appended")
  func reverseSorted() throws {
    var entries: [Entry] = []
    for number in (0..<10_000).reversed() {
      let key = Self.bytes(String(format: "%06d", number / 2))
      entries.append(Entry(key: key, payload: Self.bytes("\(number)")))
    }
    for budget in [1 << 30, 30_000] {
      let (payloads, runs) = try Self.sort(entries, budget: budget)
      #expect((runs == 0) == (budget == 1 << 30))
      #expect(Self.mismatch(payloads, Self.reference(entries)) == nil)
      // Keys 000000, 000000, 000001, …: appended as 1, 0, 3, 2, …
      #expect(payloads.prefix(4) == [Self.bytes("1"), Self.bytes("0"), Self.bytes("3"), Self.bytes("2")])
    }
  }

  @Test("Mostly in key order, as a table's rows give: every thousandth entry out of place")
  func mostlySorted() throws {
    var random = SeededGenerator(state: 8)
    var entries: [Entry] = []
    for number in 0..<50_000 {
      let value = number % 1_000 == 999 ? Int.random(in: 0..<50_000, using: &random) : number
      let key = withUnsafeBytes(of: UInt64(value).bigEndian) { Array($0) }
      let payload = Self.bytes(String(repeating: "p", count: 60) + "\(number)")
      entries.append(Entry(key: key, payload: payload))
    }
    let (payloads, runs) = try Self.sort(entries, budget: 1 << 20)
    #expect(runs >= 2)
    #expect(Self.mismatch(payloads, Self.reference(entries)) == nil)
  }

  // MARK: Edges

  @Test("An empty sorter hands out nothing, spilled or not")
  func empty() throws {
    for budget in [1 << 30, 1] {
      let (payloads, runs) = try Self.sort([], budget: budget)
      #expect(payloads.isEmpty)
      #expect(runs == 0)
    }
  }

  @Test("A single entry comes out once, empty key and payload too")
  func singleEntry() throws {
    for entry in [Entry(key: Self.bytes("k"), payload: Self.bytes("v")), Entry(key: [], payload: [])] {
      let (payloads, runs) = try Self.sort([entry], budget: 1)
      #expect(payloads == [entry.payload])
      #expect(runs == 0)
    }
  }

  @Test("A key that is a prefix of another comes first; 0x00 and 0xFF compare as unsigned bytes")
  func prefixesAndExtremeBytes() throws {
    let keys: [[UInt8]] = [
      Self.bytes("abc"), [0xFF], Self.bytes("ab"), [], [0x61, 0x00], [0x00], Self.bytes("a"), [0xFF, 0xFF],
      [0x00, 0x00], [0x61, 0xFF], [0x7F], [0x80], Self.bytes("ab"),
    ]
    let entries = keys.enumerated().map { Entry(key: $0.element, payload: [UInt8($0.offset)]) }
    let expected: [[UInt8]] = [
      [3], [5], [8], [6], [4], [2], [12], [0], [9], [10], [11], [1], [7],
    ]
    for budget in [1 << 30, 1, 40] {
      let (payloads, _) = try Self.sort(entries, budget: budget)
      #expect(payloads == expected)
      #expect(Self.mismatch(payloads, Self.reference(entries)) == nil)
    }
  }

  @Test("Entries larger than a run's read buffer are written and merged whole")
  func largeEntries() throws {
    var random = SeededGenerator(state: 9)
    var entries: [Entry] = []
    for number in 0..<24 {
      let key = [UInt8(Int.random(in: 0..<6, using: &random))]
      let size = number % 3 == 0 ? 100_000 + number : 10
      let payload = (0..<size).map { UInt8(truncatingIfNeeded: $0 &+ number) }
      entries.append(Entry(key: key, payload: payload))
    }
    for budget in [1 << 30, 150_000, 1] {
      let (payloads, runs) = try Self.sort(entries, budget: budget)
      #expect((runs > 0) == (budget != 1 << 30))
      #expect(Self.mismatch(payloads, Self.reference(entries)) == nil)
    }
  }

  @Test("count is the number of entries appended")
  func countsAppends() throws {
    try withScratchDirectory { directory in
      let sorter = ExternalSorter(memoryBudget: 100, directory: directory.path)
      #expect(sorter.count == 0)
      for entry in Self.randomEntries(50, seed: 10) {
        try Self.append(entry, to: sorter)
      }
      #expect(sorter.count == 50)
      #expect(sorter.spilledRunCount > 0)
    }
  }

  @Test("What the body throws ends the finish with that error")
  func bodyErrors() throws {
    let entries = Self.randomEntries(100, seed: 11)
    for budget in [1 << 30, 200] {
      try withScratchDirectory { directory in
        let sorter = ExternalSorter(memoryBudget: budget, directory: directory.path)
        var calls = 0
        let stop = OutputFileError(path: "out.db", message: "stop")
        let error = #expect(throws: OutputFileError.self) {
          for entry in entries {
            try Self.append(entry, to: sorter)
          }
          try sorter.finish { (_) throws(OutputFileError) in
            calls += 1
            if calls == 3 { throw stop }
          }
        }
        #expect(error == stop)
        #expect(calls == 3)
      }
    }
  }

  // MARK: The temporary file

  @Test("The temporary file is unlinked as soon as it is made: the directory stays empty")
  func temporaryFileIsGone() throws {
    try withScratchDirectory { directory in
      let sorter = ExternalSorter(memoryBudget: 1_000, directory: directory.path)
      let entries = Self.randomEntries(2_000, seed: 12)
      for entry in entries.prefix(1_000) {
        try Self.append(entry, to: sorter)
      }
      #expect(sorter.spilledRunCount > 0)
      let descriptor = try #require(sorter.temporaryFileDescriptor)
      var info = stat()
      #expect(fstat(descriptor, &info) == 0)
      #expect(info.st_nlink == 0)
      #expect(info.st_size > 0)
      #expect(info.st_mode & 0o077 == 0)
      #expect(try contents(directory).isEmpty)
    }
  }

  @Test("A directory that does not exist fails the first spill with an error naming it")
  func missingDirectory() throws {
    try withScratchDirectory { scratch in
      let missing = scratch.appendingPathComponent("gone").path
      // What fits in memory needs no file.
      let held = ExternalSorter(memoryBudget: 1 << 20, directory: missing)
      let payloads = try Self.sort(Self.randomEntries(10, seed: 13), with: held)
      #expect(payloads.count == 10)

      let sorter = ExternalSorter(memoryBudget: 1, directory: missing)
      let error = #expect(throws: OutputFileError.self) {
        _ = try Self.sort(Self.randomEntries(10, seed: 13), with: sorter)
      }
      #expect(error?.path == missing)
      #expect(
        error?.message == "cannot create the sort's temporary file in \(missing): No such file or directory")
      #expect(error?.description.contains(missing) == true)
    }
  }

  #if os(Linux)
    @Test("A full disk while spilling is an error naming the directory and the write")
    func fullDisk() throws {
      try withScratchDirectory { directory in
        let sorter = ExternalSorter(memoryBudget: 200, directory: directory.path)
        let entries = Self.randomEntries(200, seed: 14)
        var error: OutputFileError?
        for (number, entry) in entries.enumerated() {
          if number == 100 {
            // Writes to the sort's file now go to /dev/full, which answers ENOSPC.
            let full = open("/dev/full", O_WRONLY)
            try #require(full >= 0)
            let descriptor = try #require(sorter.temporaryFileDescriptor)
            #expect(dup2(full, descriptor) == descriptor)
            close(full)
          }
          do throws(OutputFileError) {
            try Self.append(entry, to: sorter)
          } catch let failure {
            error = failure
            break
          }
        }
        #expect(error?.path == directory.path)
        #expect(
          error?.message
            == "cannot write the sort's temporary file in \(directory.path): No space left on device")
      }
    }
  #endif

  @Test("A temporary file cut short is an error when the merge reads it back")
  func shortRead() throws {
    try withScratchDirectory { directory in
      let sorter = ExternalSorter(memoryBudget: 100_000, directory: directory.path)
      let entries = Self.randomEntries(20_000, seed: 15)
      for entry in entries {
        try Self.append(entry, to: sorter)
      }
      let descriptor = try #require(sorter.temporaryFileDescriptor)
      var delivered = 0
      let error = #expect(throws: OutputFileError.self) {
        // Runs longer than their read buffers: refilled after the file is cut.
        try sorter.finish { _ in
          if delivered == 0 { #expect(ftruncate(descriptor, 0) == 0) }
          delivered += 1
        }
      }
      #expect(error?.path == directory.path)
      #expect(
        error?.message.hasPrefix("cannot read the sort's temporary file in \(directory.path): it ended early")
          == true)
      #expect(delivered < entries.count)
    }
  }
}
