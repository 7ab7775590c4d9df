import Foundation

/// One piece of work run on a thread of its own while the caller does
/// something else; ``wait()`` hands over its result or its error.
///
/// What the work captures belongs to its thread until it returns, and to
/// whoever called ``wait()`` afterwards: the caller must leave it alone
/// meanwhile, which is why the work may capture values that are not `Sendable`.
final class BackgroundWork<Value>: @unchecked Sendable {
  // Safe to share: `outcome` is written once by the work's thread and read by the caller, both
  // under `condition`; the work and its result belong to one thread at a time (see above).
  private let condition = NSCondition()
  private var outcome: Result<Value, CommandError>?

  /// Starts `work` on a new thread.
  init(_ work: @escaping () throws(CommandError) -> Value) {
    let handed = Handed(work)
    let thread = Thread { [self] in
      let result = Result { () throws(CommandError) in try handed.work() }
      condition.lock()
      outcome = result
      condition.broadcast()
      condition.unlock()
    }
    // As the cohort's threads: the export reader's recursion stays well inside.
    thread.stackSize = 8 << 20
    thread.start()
  }

  /// Waits for the work to finish.
  ///
  /// - Returns: What it returned.
  /// - Throws: What it threw.
  func wait() throws(CommandError) -> Value {
    condition.lock()
    while outcome == nil { condition.wait() }
    let result = outcome!
    condition.unlock()
    return try result.get()
  }

  /// The work, handed to its thread (see ``BackgroundWork``).
  private final class Handed: @unchecked Sendable {
    // Safe to share: created by the caller and used only by the work's thread afterwards.
    let work: () throws(CommandError) -> Value
    init(_ work: @escaping () throws(CommandError) -> Value) { self.work = work }
  }
}
