/// A stream and its continuation, for code that must run on iOS 15 and 16
/// (`AsyncStream.makeStream` needs a newer standard library).
///
/// - Parameter type: The element type.
/// - Returns: The stream and the continuation that feeds it.
func makeAsyncStream<Element: Sendable>(of type: Element.Type = Element.self) -> (
  AsyncStream<Element>, AsyncStream<Element>.Continuation
) {
  var captured: AsyncStream<Element>.Continuation?
  let stream = AsyncStream<Element>(Element.self, bufferingPolicy: .unbounded) { captured = $0 }
  guard let continuation = captured else {
    // AsyncStream calls its build closure before returning.
    preconditionFailure("AsyncStream did not call its build closure")
  }
  return (stream, continuation)
}
