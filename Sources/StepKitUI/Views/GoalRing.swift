#if canImport(SwiftUI)
  import SwiftUI

  /// The goal ring: a track and an arc filled to the fraction of the goal,
  /// with the count inside. Its line width and size follow Dynamic Type.
  @available(iOS 15.0, macOS 12.0, watchOS 8.0, *)
  @MainActor
  public struct GoalRing: View {
    /// How full the ring is, 0 to 1.
    public var progress: Double
    /// The count shown inside: `8,421`.
    public var value: String
    /// The unit under the count: `steps`.
    public var unit: String
    /// Whether the goal is reached (the arc turns green).
    public var isComplete: Bool

    @ScaledMetric(relativeTo: .largeTitle) private var diameter: CGFloat = 200
    @ScaledMetric(relativeTo: .largeTitle) private var lineWidth: CGFloat = 18

    /// Creates a ring.
    ///
    /// - Parameters:
    ///   - progress: How full, 0 to 1 (clamped).
    ///   - value: The count shown inside.
    ///   - unit: The unit under the count.
    ///   - isComplete: Whether the goal is reached.
    public init(progress: Double, value: String, unit: String, isComplete: Bool) {
      self.progress = progress
      self.value = value
      self.unit = unit
      self.isComplete = isComplete
    }

    /// The ring.
    public var body: some View {
      ZStack {
        Circle()
          .stroke(Color.primary.opacity(0.12), lineWidth: lineWidth)
        Circle()
          .trim(from: 0, to: min(1, max(0, progress)))
          .stroke(
            isComplete ? Color.green : Color.accentColor,
            style: StrokeStyle(lineWidth: lineWidth, lineCap: .round)
          )
          .rotationEffect(.degrees(-90))
          .animation(.easeOut(duration: 0.4), value: progress)
        VStack(spacing: 2) {
          Text(value)
            .font(.system(.largeTitle, design: .rounded).weight(.bold))
            .monospacedDigit()
            .minimumScaleFactor(0.5)
            .lineLimit(1)
          Text(unit)
            .font(.subheadline)
            .foregroundColor(.secondary)
        }
        .padding(lineWidth * 1.5)
      }
      // The ring grows with Dynamic Type up to what a phone's width holds; the count shrinks to fit.
      .frame(width: min(diameter, 300), height: min(diameter, 300))
      .padding(lineWidth / 2)
    }
  }
#endif
