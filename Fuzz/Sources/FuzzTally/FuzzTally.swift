import Foundation
import StepKitCore

/// Draws samples and counting options from one input's bytes, counts them with
/// the engine (on one thread and on three) and with the naive reference count
/// written from COUNTING.md (Tests/StepKitCoreTests/Reference, linked here),
/// and stops at the first bucket, sample or source where they differ by more
/// than 1e-9 relative.
func fuzzTally(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
  var generator = ByteGenerator(bytes)
  let drawn = ReferenceCase.draw(using: &generator, maximumSamples: 60)
  for threads in [1, 3] {
    let differences = drawn.differences(recordsCountedValues: threads == 1) { log, options in
      log.tally(options, threads: threads)
    }
    if !differences.isEmpty {
      print("The engine and the reference count differ on \(threads) thread(s):\n\(drawn)")
      print(differences.prefix(12).joined(separator: "\n"))
      fatalError("the engine and the reference count differ")
    }
  }
  return 0
}
