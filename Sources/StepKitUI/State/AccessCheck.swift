import Foundation
import StepKit

/// Checks the app's access and acts on guidance: the model of the access view.
public struct AccessCheck: Sendable {
  /// The counter whose sources are checked.
  public let counter: StepCounter
  /// The HealthKit types the app reads (and writes).
  public var request: AuthorizationRequest
  /// How texts are written.
  public var formatting: StepFormatting

  /// Creates a check.
  ///
  /// - Parameters:
  ///   - counter: The counter.
  ///   - request: What the app asks HealthKit for; steps and distance by default.
  ///   - formatting: The language.
  public init(
    counter: StepCounter, request: AuthorizationRequest = .stepsAndDistance,
    formatting: StepFormatting = StepFormatting()
  ) {
    self.counter = counter
    self.request = request
    self.formatting = formatting
  }

  /// Guidance for the counter's current access, or `nil` when nothing stands in the way.
  ///
  /// - Returns: See ``AccessGuidance/guidance(for:formatting:)``.
  public func guidance() async -> AccessGuidance? {
    AccessGuidance.guidance(for: await counter.authorizationStatus(for: request), formatting: formatting)
  }

  /// Shows the prompt a guidance's ``AccessGuidance/Action/requestHealthAccess``
  /// or ``AccessGuidance/Action/requestMotionAccess`` stands for, and
  /// returns the guidance that follows: `nil` when all is well, the error's
  /// guidance when the request failed. Opening a place is the view's part.
  ///
  /// - Parameter action: The action.
  /// - Returns: The guidance after the person answered.
  public func perform(_ action: AccessGuidance.Action) async -> AccessGuidance? {
    do {
      switch action {
      case .requestHealthAccess: try await counter.requestAuthorization(request)
      case .requestMotionAccess: try await counter.requestMotionAuthorization()
      case .open: break
      }
    } catch {
      return AccessGuidance(error: StepKitError.wrapping(error), formatting: formatting)
    }
    return await guidance()
  }
}
