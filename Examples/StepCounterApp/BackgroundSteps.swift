#if canImport(SwiftUI) && canImport(UIKit) && os(iOS)
  import StepKit
  import UIKit

  /// Registers HealthKit background delivery at launch, so that HealthKit
  /// wakes the app when new steps are saved and hands it today's count.
  ///
  /// HealthKit relaunches a terminated app to deliver, and delivers only to
  /// observers registered during that launch: this starts from
  /// `application(_:didFinishLaunchingWithOptions:)`, not from a screen.
  /// The app needs the `com.apple.developer.healthkit.background-delivery`
  /// entitlement (`stepkit doctor Examples/StepCounterApp --background-delivery` checks it).
  @MainActor
  final class BackgroundSteps {
    static let shared = BackgroundSteps()

    /// The latest count delivered, for a widget or the next launch to show.
    nonisolated static let latestStepsKey = "latestTodaySteps"

    private var registration: BackgroundDeliveryRegistration?

    /// Registers the observer and enables delivery, unless the observer
    /// registered earlier is still alive. At first launch it is registered
    /// before access was asked for, and HealthKit stops it with "not
    /// determined": after the person answers the prompt, calling this again
    /// registers a new one. A live observer (the one registered at launch,
    /// which background relaunches deliver to) is never replaced.
    func start(_ counter: StepCounter) {
      if let registration, registration.isObserving { return }
      registration?.cancel()
      let registration = counter.registerBackgroundDelivery(frequency: .hourly) { count in
        UserDefaults.standard.set(count.roundedSteps, forKey: BackgroundSteps.latestStepsKey)
      }
      self.registration = registration
      Task {
        do {
          try await registration.enabled()
        } catch {
          NSLog("Steps: background delivery not enabled: %@", error.localizedDescription)
        }
      }
    }
  }

  /// Registers ``BackgroundSteps`` as the app launches.
  final class AppDelegate: NSObject, UIApplicationDelegate {
    func application(
      _ application: UIApplication,
      didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool {
      BackgroundSteps.shared.start(StepCounterApp.counter)
      return true
    }
  }
#endif
