import Foundation
import Testing

/// `stepkit sqlite` run again on the same export writes the same database, to
/// the byte: each run is its own process, so each has its own hash seed, and
/// nothing may depend on the order a dictionary's members come in.
@Suite("SQLite runs repeat")
struct SQLiteRepeatTests {
  @Test("five runs on one export, each in its own process, write the same bytes")
  func sameBytes() throws {
    try withScratchDirectory { directory in
      // Three counted sources, one of each class, of 0.2, 0.3 and 0.4 steps: the three
      // orders of adding them up give three different totals in binary floating point.
      let export = StepkitRunner.fixtures.appendingPathComponent("share-order.xml").path
      var databases: [Data] = []
      for run in 1...5 {
        let result = try StepkitRunner.run(["sqlite", export, "run\(run).db", "--quiet"], in: directory)
        #expect(result.exitCode == 0, "\(result.standardError)")
        databases.append(try Data(contentsOf: directory.appendingPathComponent("run\(run).db")))
      }
      #expect(Set(databases).count == 1)
      // The shares, worked out by hand: 0.2, 0.3 and 0.4 of 0.9 steps.
      let shares = try query(
        directory.appendingPathComponent("run1.db").path,
        "SELECT share_apple_watch, share_iphone, share_other FROM summary"
      ).first?.compactMap(Double.init)
      #expect(shares?.count == 3)
      for (share, expected) in zip(shares ?? [], [2.0 / 9, 3.0 / 9, 4.0 / 9]) {
        #expect(abs(share - expected) < 1e-12)
      }
    }
  }
}
