#if canImport(SwiftUI)
  import StepKit
  import StepKitUI
  import SwiftUI

  /// A small step app: today's ring, the last 7 or 30 days, and what to do
  /// about access, over ``StepCounter/shared`` (HealthKit, then CoreMotion).
  ///
  /// Launched with `-StepKitDemo`, it runs on a simulated month of walking
  /// instead (the Simulator has no steps).
  @available(iOS 15.0, *)
  @main
  @MainActor
  struct StepCounterApp: App {
    #if canImport(UIKit) && os(iOS)
      @UIApplicationDelegateAdaptor(AppDelegate.self) private var appDelegate
    #endif

    var body: some Scene {
      WindowGroup {
        ContentView(counter: StepCounterApp.counter)
      }
    }

    /// The counter every screen reads.
    static let counter: StepCounter =
      ProcessInfo.processInfo.arguments.contains("-StepKitDemo") ? PreviewCounters.walker() : .shared
  }

  /// The three screens in tabs.
  @available(iOS 15.0, *)
  @MainActor
  struct ContentView: View {
    let counter: StepCounter
    private let formatting = StepFormatting()

    var body: some View {
      TabView {
        NavigationView {
          ScrollView {
            TodayView(counter: counter, goal: 10_000, formatting: formatting)
              .padding()
          }
          .navigationTitle(tab(.steps))
        }
        .navigationViewStyle(.stack)
        .tabItem { Label(tab(.today), systemImage: "figure.walk") }

        NavigationView {
          ScrollView {
            HistoryView(counter: counter, range: .week, formatting: formatting)
              .padding()
          }
          .navigationTitle(tab(.history))
        }
        .navigationViewStyle(.stack)
        .tabItem { Label(tab(.history), systemImage: "chart.bar") }

        NavigationView {
          AccessScreen(counter: counter, formatting: formatting)
            .navigationTitle(tab(.access))
        }
        .navigationViewStyle(.stack)
        .tabItem { Label(tab(.access), systemImage: "lock.shield") }
      }
    }

    private enum Tab { case steps, today, history, access }

    private func tab(_ tab: Tab) -> String {
      switch (tab, formatting.language) {
      case (.steps, .english): return "Steps"
      case (.steps, .simplifiedChinese): return "步数"
      case (.steps, .traditionalChinese): return "步數"
      case (.today, .english): return "Today"
      case (.today, .simplifiedChinese), (.today, .traditionalChinese): return "今天"
      case (.history, .english): return "History"
      case (.history, .simplifiedChinese): return "历史"
      case (.history, .traditionalChinese): return "歷史"
      case (.access, .english): return "Access"
      case (.access, .simplifiedChinese): return "权限"
      case (.access, .traditionalChinese): return "權限"
      }
    }
  }
#endif
