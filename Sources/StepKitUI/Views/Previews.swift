#if canImport(SwiftUI)
  import SwiftUI
  import StepKit

  /// The scenes the previews show, each driven by simulated sources
  /// (``PreviewCounters``): no device, no Health data, no prompt.
  @available(iOS 15.0, macOS 12.0, watchOS 8.0, *)
  @MainActor
  enum PreviewScenes {
    /// A walker two thirds of the way through the day.
    static func today(_ language: StepKitLanguage = .english) -> some View {
      TodayView(counter: PreviewCounters.walker(), formatting: StepFormatting(language: language))
        .padding()
    }

    /// Health returns nothing: the count is zero and the guidance explains why that may be.
    static func todayWithoutHealthData() -> some View {
      TodayView(counter: PreviewCounters.noHealthData(), formatting: StepFormatting(language: .english))
        .padding()
    }

    /// The last 7 or 30 days.
    static func history(_ range: HistoryRange, language: StepKitLanguage = .english) -> some View {
      HistoryView(
        counter: PreviewCounters.walker(), range: range, formatting: StepFormatting(language: language)
      )
      .padding()
    }

    /// The prompt not yet shown.
    static func accessNotAsked() -> some View {
      AccessGuidanceView(
        counter: PreviewCounters.notAskedYet(), formatting: StepFormatting(language: .english)
      )
      .padding()
    }

    /// Motion & Fitness turned off.
    static func accessMotionDenied(_ language: StepKitLanguage) -> some View {
      AccessGuidanceView(
        error: .motionNotAuthorized, counter: PreviewCounters.walker(),
        formatting: StepFormatting(language: language)
      )
      .padding()
    }
  }

  // `#Preview` needs Xcode 15 (SwiftUI 5); the scenes above build everywhere.
  #if canImport(SwiftUI, _version: 5.0)
    @available(iOS 15.0, macOS 12.0, watchOS 8.0, *)
    #Preview("Today") { PreviewScenes.today() }

    @available(iOS 15.0, macOS 12.0, watchOS 8.0, *)
    #Preview("Today, dark, largest text, Traditional Chinese") {
      PreviewScenes.today(.traditionalChinese)
        .preferredColorScheme(.dark)
        .environment(\.dynamicTypeSize, .accessibility3)
    }

    @available(iOS 15.0, macOS 12.0, watchOS 8.0, *)
    #Preview("Today without Health data") { PreviewScenes.todayWithoutHealthData() }

    @available(iOS 15.0, macOS 12.0, watchOS 8.0, *)
    #Preview("History, 7 days") { PreviewScenes.history(.week) }

    @available(iOS 15.0, macOS 12.0, watchOS 8.0, *)
    #Preview("History, 30 days, Simplified Chinese, dark") {
      PreviewScenes.history(.month, language: .simplifiedChinese)
        .preferredColorScheme(.dark)
    }

    @available(iOS 15.0, macOS 12.0, watchOS 8.0, *)
    #Preview("Access: not asked yet") { PreviewScenes.accessNotAsked() }

    @available(iOS 15.0, macOS 12.0, watchOS 8.0, *)
    #Preview("Access: Motion & Fitness off, Traditional Chinese") {
      PreviewScenes.accessMotionDenied(.traditionalChinese)
    }
  #endif
#endif
