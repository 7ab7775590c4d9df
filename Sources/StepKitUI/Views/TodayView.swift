#if canImport(SwiftUI)
  import SwiftUI
  import StepKit

  /// Today's steps: the count in a goal ring, the distance, and where the
  /// number came from, kept current by ``StepCounter/todayStepUpdates()``
  /// (which starts the new day at midnight).
  ///
  /// ```swift
  /// TodayView(counter: .shared, goal: 8_000)
  /// ```
  ///
  /// When HealthKit returns nothing, or its prompt has not been shown yet,
  /// the view adds an ``AccessGuidanceView`` under the count; when counting
  /// fails, the guidance takes the count's place.
  @available(iOS 15.0, macOS 12.0, watchOS 8.0, *)
  @MainActor
  public struct TodayView: View {
    private let feed: TodayFeed
    @State private var phase: TodayPhase = .loading
    @State private var generation = 0

    /// Creates the view.
    ///
    /// - Parameters:
    ///   - counter: Where the numbers come from (``StepCounter/shared``, or one over a ``SimulatedStepSource``).
    ///   - goal: The daily goal; 10,000 steps by default.
    ///   - formatting: The language, region and calendar; the person's by default.
    public init(
      counter: StepCounter, goal: Int = TodayState.defaultGoal, formatting: StepFormatting = StepFormatting()
    ) {
      feed = TodayFeed(counter: counter, goal: goal, formatting: formatting)
    }

    /// The view.
    public var body: some View {
      content
        .frame(maxWidth: .infinity)
        .task(id: generation) {
          for await next in feed.phases() { phase = next }
        }
    }

    @ViewBuilder private var content: some View {
      switch phase {
      case .loading:
        ProgressView()
          .frame(minHeight: 200)
      case .showing(let state):
        VStack(spacing: 16) {
          Text(state.title)
            .font(.title2.weight(.semibold))
            .frame(maxWidth: .infinity, alignment: .leading)
            .accessibilityAddTraits(.isHeader)
          GoalRing(
            progress: state.ringProgress, value: state.stepsText, unit: state.unitText,
            isComplete: state.isGoalReached
          )
          .accessibilityElement(children: .ignore)
          .accessibilityLabel(Text(state.accessibilityLabel))
          VStack(spacing: 4) {
            Text(state.goalText)
              .font(.headline)
            if let distance = state.distanceText {
              Text(distance)
                .font(.subheadline)
                .foregroundColor(.secondary)
                .accessibilityHidden(true)
            }
          }
          .accessibilityElement(children: .combine)
          Text(state.provenanceText)
            .font(.footnote)
            .foregroundColor(.secondary)
            .multilineTextAlignment(.center)
            .fixedSize(horizontal: false, vertical: true)
          if let guidance = state.guidance {
            AccessGuidanceView(guidance: guidance, counter: feed.counter, formatting: feed.formatting) {
              generation += 1
            }
            .id(guidance)
          }
        }
      case .failed(let guidance):
        AccessGuidanceView(guidance: guidance, counter: feed.counter, formatting: feed.formatting) {
          generation += 1
        }
        .id(guidance)
      }
    }
  }
#endif
