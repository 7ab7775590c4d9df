#if canImport(SwiftUI)
  import SwiftUI
  import StepKit
  #if canImport(UIKit)
    import UIKit
  #endif

  /// Explains what access is missing and where to fix it, with the one
  /// button that helps: the system prompt while it can still be shown, the
  /// Health app (Sharing › Apps) for Health read access, or the app's own
  /// Settings page for Motion & Fitness.
  ///
  /// ```swift
  /// AccessGuidanceView(counter: .shared)                          // checks access itself
  /// AccessGuidanceView(error: error, counter: .shared)            // explains a StepKitError
  /// ```
  ///
  /// Checking itself, it shows nothing while access is fine, and checks
  /// again whenever the app comes back to the foreground (from Settings or
  /// Health). `onResolved` runs when a prompt was answered or the person came
  /// back, so the screen around it can read the steps again.
  @available(iOS 15.0, macOS 12.0, watchOS 8.0, *)
  @MainActor
  public struct AccessGuidanceView: View {
    private let check: AccessCheck
    private let checksItself: Bool
    private let onResolved: (() -> Void)?
    @State private var guidance: AccessGuidance?
    @State private var isWorking = false
    @Environment(\.openURL) private var openURL
    @Environment(\.scenePhase) private var scenePhase

    /// Creates a view that checks the counter's access itself.
    ///
    /// - Parameters:
    ///   - counter: The counter whose sources are checked.
    ///   - request: What the app asks HealthKit for; steps and distance by default.
    ///   - formatting: The language; the person's by default.
    ///   - onResolved: Runs after a prompt was answered or the app returned to the foreground.
    public init(
      counter: StepCounter, request: AuthorizationRequest = .stepsAndDistance,
      formatting: StepFormatting = StepFormatting(), onResolved: (() -> Void)? = nil
    ) {
      check = AccessCheck(counter: counter, request: request, formatting: formatting)
      checksItself = true
      self.onResolved = onResolved
      _guidance = State(initialValue: nil)
    }

    /// Creates a view for given guidance.
    ///
    /// - Parameters:
    ///   - guidance: What to explain (from ``AccessGuidance/noDataMayMeanDeniedAccess(formatting:)``,
    ///     ``AccessGuidance/health(_:formatting:)``, ``AccessGuidance/init(error:formatting:)``, …).
    ///   - counter: The counter a request button asks.
    ///   - formatting: The language of what follows a request.
    ///   - onResolved: Runs after a prompt was answered or the app returned to the foreground.
    public init(
      guidance: AccessGuidance, counter: StepCounter, formatting: StepFormatting = StepFormatting(),
      onResolved: (() -> Void)? = nil
    ) {
      check = AccessCheck(counter: counter, formatting: formatting)
      checksItself = false
      self.onResolved = onResolved
      _guidance = State(initialValue: guidance)
    }

    /// Creates a view that explains a StepKit error.
    ///
    /// - Parameters:
    ///   - error: The error.
    ///   - counter: The counter a request button asks.
    ///   - formatting: The language.
    ///   - onResolved: Runs after a prompt was answered or the app returned to the foreground.
    public init(
      error: StepKitError, counter: StepCounter, formatting: StepFormatting = StepFormatting(),
      onResolved: (() -> Void)? = nil
    ) {
      self.init(
        guidance: AccessGuidance(error: error, formatting: formatting), counter: counter,
        formatting: formatting,
        onResolved: onResolved)
    }

    /// Creates a view that explains a HealthKit authorization state.
    ///
    /// - Parameters:
    ///   - healthState: HealthKit's state for the steps request.
    ///   - counter: The counter a request button asks.
    ///   - formatting: The language.
    ///   - onResolved: Runs after a prompt was answered or the app returned to the foreground.
    public init(
      healthState: AuthorizationState, counter: StepCounter, formatting: StepFormatting = StepFormatting(),
      onResolved: (() -> Void)? = nil
    ) {
      self.init(
        guidance: AccessGuidance.health(healthState, formatting: formatting), counter: counter,
        formatting: formatting, onResolved: onResolved)
    }

    /// The view.
    public var body: some View {
      Group {
        if let guidance {
          card(guidance)
        }
      }
      .task {
        if checksItself { guidance = await check.guidance() }
      }
      .onChange(of: scenePhase) { phase in
        guard phase == .active else { return }
        Task {
          if checksItself { guidance = await check.guidance() }
          onResolved?()
        }
      }
    }

    private func card(_ guidance: AccessGuidance) -> some View {
      VStack(alignment: .leading, spacing: 10) {
        Label {
          Text(guidance.title)
            .font(.headline)
        } icon: {
          Image(systemName: guidance.canRequestAccess ? "figure.walk" : "exclamationmark.circle")
            .foregroundColor(.accentColor)
        }
        .accessibilityAddTraits(.isHeader)
        Text(guidance.message)
          .font(.subheadline)
          .fixedSize(horizontal: false, vertical: true)
        if let hint = guidance.hint {
          Text(hint)
            .font(.subheadline)
            .foregroundColor(.secondary)
            .fixedSize(horizontal: false, vertical: true)
        }
        if let action = guidance.action, let title = guidance.actionTitle {
          Button {
            perform(action)
          } label: {
            Text(title)
              .frame(maxWidth: .infinity)
          }
          .buttonStyle(.borderedProminent)
          .disabled(isWorking)
        }
      }
      .padding()
      .frame(maxWidth: .infinity, alignment: .leading)
      .background(
        RoundedRectangle(cornerRadius: 14, style: .continuous)
          .fill(Color.primary.opacity(0.06))
      )
      .accessibilityElement(children: .contain)
    }

    private func perform(_ action: AccessGuidance.Action) {
      switch action {
      case .open(let place):
        open(place)
      case .requestHealthAccess, .requestMotionAccess:
        isWorking = true
        Task {
          let next = await check.perform(action)
          guidance = next
          isWorking = false
          if next == nil || checksItself { onResolved?() }
        }
      }
    }

    private func open(_ place: AccessGuidance.Place) {
      let settings = Self.appSettingsURL
      switch place {
      case .appSettings:
        openURL(settings)
      case .healthApp:
        // Without the Health app (deleted, or an iPad without it), its scheme opens nothing: Settings then.
        openURL(place.url) { opened in
          if !opened { openURL(settings) }
        }
      }
    }

    /// The app's page in Settings: UIKit's `UIApplication.openSettingsURLString`.
    @MainActor private static var appSettingsURL: URL {
      #if canImport(UIKit) && !os(watchOS)
        if let url = URL(string: UIApplication.openSettingsURLString) { return url }
      #endif
      return AccessGuidance.Place.appSettings.url
    }
  }
#endif
