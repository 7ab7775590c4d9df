extension AsyncThrowingStream.Continuation where Element: Equatable & Sendable, Failure == any Error {
  /// The live-update loop the step sources share: for each of `events`,
  /// yields what `next` makes of it unless that equals the value yielded
  /// before; then finishes, when `events` end or with the first error `next`
  /// throws.
  ///
  /// - Parameters:
  ///   - events: What wakes the loop (a change, a midnight).
  ///   - next: The value for one event, today's count.
  func yieldChanges<Event>(for events: AsyncStream<Event>, _ next: (Event) async throws -> Element) async {
    var last: Element?
    do {
      for await event in events {
        let value = try await next(event)
        if value != last {
          last = value
          yield(value)
        }
      }
      finish()
    } catch {
      finish(throwing: error)
    }
  }
}
