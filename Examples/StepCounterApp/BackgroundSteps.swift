#if canImport(SwiftUI) && canImport(UIKit) && os(iOS)
  import StepKit
  import UIKit

  /// Registers HealthKit background delivery at launch, so that HealthKit
  /// wakes the app when new steps are saved, and keeps following today's
  /// steps so that each wake-up delivers them.
  ///
  /// HealthKit relaunches a terminated app to deliver; the app must set up
  /// its observer again at every launch, which is why this starts from
  /// `application(_:didFinishLaunchingWithOptions:)` and not from a screen.
  /// The app needs the
  /// `com.apple.developer.healthkit.background-delivery` entitlement
  /// (`stepkit doctor Examples/StepCounterApp --background-delivery` checks it).
  @MainActor
  final class BackgroundSteps {
    static let shared = BackgroundSteps()

    /// The latest count delivered, for a widget or the next launch to show.
    static let latestStepsKey = "latestTodaySteps"
    private var following: Task<Void, Never>?

    /// Enables background delivery (once Health access was asked for) and
    /// follows today's steps.
    func start(_ counter: StepCounter) async {
      guard following == nil else { return }
      guard await counter.authorizationStatus().healthKit != .notRequested else {
        NSLog("Steps: Health access not asked yet; background delivery waits for it")
        return
      }
      do {
        try await counter.enableBackgroundDelivery(frequency: .hourly)
      } catch {
        NSLog("Steps: background delivery failed: %@", error.localizedDescription)
        return
      }
      following = Task {
        do {
          for try await count in counter.todayStepUpdates() {
            UserDefaults.standard.set(count.roundedSteps, forKey: Self.latestStepsKey)
          }
        } catch {
          NSLog("Steps: today's updates ended: %@", error.localizedDescription)
        }
      }
    }
  }

  /// Starts ``BackgroundSteps`` as the app launches.
  final class AppDelegate: NSObject, UIApplicationDelegate {
    func application(
      _ application: UIApplication,
      didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool {
      Task { @MainActor in await BackgroundSteps.shared.start(StepCounterApp.counter) }
      return true
    }
  }
#endif
