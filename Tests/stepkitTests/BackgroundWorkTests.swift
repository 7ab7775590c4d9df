import Foundation
import Testing

@testable import stepkit

/// ``BackgroundWork`` runs its closure on a thread of its own and hands over
/// what it returned or threw, once, to whoever waits.
@Suite("Background work: the result or the error, after the work")
struct BackgroundWorkTests {
  @Test("the value comes from another thread")
  func value() throws {
    let caller = pthread_self()
    let work = BackgroundWork { () throws(CommandError) -> (Bool, Int) in
      (pthread_equal(pthread_self(), caller) != 0, (1...1000).reduce(0, +))
    }
    let (onCaller, sum) = try work.wait()
    #expect(!onCaller)
    #expect(sum == 500_500)
    // A second wait hands over the same result.
    #expect(try work.wait().1 == 500_500)
  }

  @Test("an error thrown by the work is thrown by wait()")
  func error() {
    let work = BackgroundWork { () throws(CommandError) -> Int in throw .output("disk full") }
    #expect {
      _ = try work.wait()
    } throws: { error in
      guard case .output(let message) = error as? CommandError else { return false }
      return message == "disk full"
    }
  }

  @Test("what the work changes is the caller's once wait() returns")
  func handsOverState() throws {
    final class Box { var numbers: [Int] = [] }
    let box = Box()
    let work = BackgroundWork { () throws(CommandError) -> Int in
      for number in 0..<10_000 { box.numbers.append(number) }
      return box.numbers.count
    }
    #expect(try work.wait() == 10_000)
    #expect(box.numbers.count == 10_000)
    #expect(box.numbers.last == 9_999)
  }
}
