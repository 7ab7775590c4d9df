import Foundation

extension StepCounter {
  /// Shows the Motion & Fitness prompt if it has not been shown yet, and
  /// returns the state after the person answered.
  ///
  /// CoreMotion has no request call of its own: ``MotionStepSource`` asks
  /// for the last minute of steps, which shows the prompt. A
  /// ``SimulatedStepSource`` used as the motion source moves to its
  /// ``SimulatedStepSource/answerToPrompt``.
  ///
  /// - Returns: The motion source's state afterwards.
  /// - Throws: ``StepKitError/sourceNotConfigured(_:)`` without a motion
  ///   source, ``StepKitError/missingUsageDescription(key:)`` or another
  ///   ``StepKitError`` from CoreMotion; a refusal is returned as
  ///   ``AuthorizationState/denied``, not thrown.
  @discardableResult
  public func requestMotionAuthorization() async throws -> AuthorizationState {
    switch motion {
    case let motion as MotionStepSource:
      return try await motion.requestAuthorization()
    case let simulated as SimulatedStepSource:
      try bundle.requireUsageDescriptions([InfoPlistKey.motionUsageDescription])
      try await simulated.requestAuthorization(.stepsAndDistance)
      return await simulated.authorizationState()
    case let other?:
      return await other.authorizationState()
    case nil:
      throw StepKitError.sourceNotConfigured(.motion)
    }
  }
}
