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
    private var enabled = false

    /// Registers the observer and enables delivery; after access was first
    /// granted (when enabling failed before), it registers again.
    func start(_ counter: StepCounter) {
      guard !enabled else { return }
      registration?.cancel()
      let registration = counter.registerBackgroundDelivery(frequency: .hourly) { count in
        UserDefaults.standard.set(count.roundedSteps, forKey: BackgroundSteps.latestStepsKey)
      }
      self.registration = registration
      Task {
        do {
          try await registration.enabled()
          enabled = true
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
