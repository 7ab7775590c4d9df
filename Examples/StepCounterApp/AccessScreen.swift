#if canImport(SwiftUI)
  import StepKit
  import StepKitUI
  import SwiftUI

  /// What the app may read, and what to do about what it may not.
  @available(iOS 15.0, *)
  @MainActor
  struct AccessScreen: View {
    let counter: StepCounter
    let formatting: StepFormatting
    @State private var status: AuthorizationStatus?

    var body: some View {
      List {
        Section {
          AccessGuidanceView(counter: counter, formatting: formatting) {
            Task { await refresh() }
          }
          .listRowInsets(EdgeInsets())
        }
        if let status {
          Section {
            row("Health", status.healthKit)
            row("Motion & Fitness", status.motion)
          }
        }
      }
      .task { await refresh() }
    }

    private func row(_ name: String, _ state: AuthorizationState?) -> some View {
      VStack(alignment: .leading, spacing: 2) {
        Text(name).font(.headline)
        Text(state?.explanation ?? "Not used by this app.")
          .font(.subheadline)
          .foregroundColor(.secondary)
      }
      .accessibilityElement(children: .combine)
    }

    private func refresh() async {
      let previous = status
      status = await counter.authorizationStatus()
      #if canImport(UIKit) && os(iOS)
        // Access changed (the prompt was just answered): an observer HealthKit stopped before
        // is registered again; the launch observer, while alive, is kept.
        if status != previous { BackgroundSteps.shared.start(counter) }
      #endif
    }
  }
#endif
