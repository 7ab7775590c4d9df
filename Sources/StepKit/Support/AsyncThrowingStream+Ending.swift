extension AsyncThrowingStream where Failure == any Error {
  /// A stream built as `AsyncThrowingStream(build)` whose iteration ends at its
  /// first error: once `next()` has thrown, every later `next()` returns `nil`.
  ///
  /// `AsyncThrowingStream` promises that, but it does not keep it when
  /// `finish(throwing:)` races with a consumer waiting in `next()`: the
  /// waiting call throws the error, and the stream's terminal state still
  /// holds it, so the following `next()` throws it a second time (934 of
  /// 1,000 races in `StreamEndTests`, which counts them). A consumer
  /// that handles the error and asks again, as a `for try await` loop inside
  /// a retry does, would see one failure twice. Every live-update sequence of
  /// StepKit is made here.
  ///
  /// - Parameter build: Called once with the continuation, as the
  ///   initializer's closure is.
  /// - Returns: The stream; cancelling the consuming task ends it, and ends
  ///   the inner one (its `onTermination` runs).
  static func endingAtFirstError(_ build: (Continuation) -> Void) -> Self {
    AsyncThrowingStream(Element.self, build).endingAtFirstError()
  }

  /// This stream, ending at its first error (see
  /// ``endingAtFirstError(_:)``).
  func endingAtFirstError() -> Self {
    let cursor = FirstErrorCursor(makeAsyncIterator())
    return AsyncThrowingStream { try await cursor.next() }
  }
}

/// The iterator of a stream ending at its first error.
private final class FirstErrorCursor<Element>: @unchecked Sendable {
  // Safe to share: an `AsyncThrowingStream(unfolding:)` calls its closure from its one
  // consumer's `next()`, one call at a time (a stream allows a single consumer), so the
  // iterator and the flag are never used by two tasks at once.
  private var iterator: AsyncThrowingStream<Element, any Error>.Iterator
  private var ended = false

  init(_ iterator: AsyncThrowingStream<Element, any Error>.Iterator) {
    self.iterator = iterator
  }

  func next() async throws -> Element? {
    guard !ended else { return nil }
    do {
      guard let element = try await iterator.next() else {
        ended = true
        return nil
      }
      return element
    } catch {
      ended = true
      throw error
    }
  }
}
