#if canImport(SwiftUI)
  import SwiftUI
  import StepKit

  /// The history detail's rows: each source's counted and raw steps for one
  /// day (``SourceBreakdownState``), with the sum and why fewer count.
  @available(iOS 15.0, macOS 12.0, watchOS 8.0, *)
  @MainActor
  public struct SourceBreakdownView: View {
    private let state: SourceBreakdownState

    /// Creates the view.
    ///
    /// - Parameter state: The day's sources.
    public init(state: SourceBreakdownState) { self.state = state }

    /// The view.
    public var body: some View {
      VStack(alignment: .leading, spacing: 6) {
        Text(state.title)
          .font(.headline)
          .accessibilityAddTraits(.isHeader)
        if state.isEmpty {
          Text(state.emptyText)
            .foregroundColor(.secondary)
        } else {
          ForEach(state.rows) { row in
            HStack(alignment: .firstTextBaseline) {
              Text(row.name)
              Spacer(minLength: 8)
              Text(row.detail)
                .foregroundColor(.secondary)
                .multilineTextAlignment(.trailing)
            }
            .accessibilityElement(children: .ignore)
            .accessibilityLabel(Text(row.accessibilityLabel))
          }
          Text(state.totalText)
            .font(.subheadline.weight(.semibold))
          if let explanation = state.explanation {
            Text(explanation)
              .font(.footnote)
              .foregroundColor(.secondary)
              .fixedSize(horizontal: false, vertical: true)
          }
        }
      }
    }
  }
#endif
