import Foundation

/// Hands out the parts of a tally one at a time, in order, to whichever
/// thread asks next: a thread that finishes early (a lighter part, a faster
/// core) takes more of them. Which thread takes a part never changes its
/// sums, which are added in order of part afterwards.
final class PartDispenser: @unchecked Sendable {
  // Safe to share: `next` is only read and written under `lock`.
  private let lock = NSLock()
  private var next = 0
  private let count: Int

  init(count: Int) { self.count = count }

  /// The next part no thread has taken, or `nil` when all are taken.
  func take() -> Int? {
    lock.lock()
    defer { lock.unlock() }
    guard next < count else { return nil }
    next += 1
    return next - 1
  }
}

/// A buffer threads write to at disjoint places.
struct SharedBuffer<Element>: @unchecked Sendable {
  // Safe to share: each thread writes only the slots of the parts a
  // ``PartDispenser`` handed to it alone, and the buffer is read only after
  // every thread has finished.
  let buffer: UnsafeMutableBufferPointer<Element>
}
