import Foundation
import StepKit

/// One source's row in the history detail: its steps that count and its own.
public struct SourceBreakdownRow: Sendable, Hashable, Identifiable {
  /// The source's name (`Apple Watch`, `iPhone`, an app).
  public var name: String
  /// Its steps after the merge, rounded.
  public var countedSteps: Int
  /// Its own steps before the merge, rounded.
  public var rawSteps: Int
  /// The row's value: `400 of 800 counted`, `1,000 counted`, `none of 250 counted`.
  public var detail: String
  /// What VoiceOver reads: `iPhone: 400 of 800 steps counted`.
  public var accessibilityLabel: String

  /// The source's name, which identifies the row.
  public var id: String { name }
}

/// What the history detail shows for one day: each source's counted and
/// raw steps, the answer to "why is my count lower than the other app's?".
public struct SourceBreakdownState: Sendable, Hashable {
  /// The day explained.
  public var day: DateInterval
  /// One row per source, most counted steps first.
  public var rows: [SourceBreakdownRow]
  /// The steps that count, the sum of the rows' counted steps.
  public var countedSteps: Int
  /// Every step recorded, the sum of the rows' raw steps.
  public var rawSteps: Int
  /// How texts are written.
  public var formatting: StepFormatting

  /// Creates the state from a breakdown.
  ///
  /// - Parameters:
  ///   - breakdown: ``StepCounter/sourceBreakdown(in:)`` of the day.
  ///   - formatting: The language, region and calendar.
  public init(breakdown: SourceBreakdown, formatting: StepFormatting) {
    day = breakdown.interval
    self.formatting = formatting
    let language = formatting.language
    rows = breakdown.sources.map { source in
      let counted = source.roundedCountedSteps
      let raw = source.roundedRawSteps
      let countedText = formatting.number(counted)
      let rawText = formatting.number(raw)
      let detail: String
      if counted == raw {
        detail = language.pick("\(countedText) counted", "计入 \(countedText)", "計入 \(countedText)")
      } else if counted == 0 {
        detail = language.pick("none of \(rawText) counted", "\(rawText) 步均未计入", "\(rawText) 步均未計入")
      } else {
        detail = language.pick(
          "\(countedText) of \(rawText) counted", "\(rawText) 步中计入 \(countedText)",
          "\(rawText) 步中計入 \(countedText)")
      }
      return SourceBreakdownRow(
        name: source.name, countedSteps: counted, rawSteps: raw, detail: detail,
        accessibilityLabel: language.pick(
          "\(source.name): \(countedText) of \(rawText) steps counted",
          "\(source.name)：\(rawText) 步中计入 \(countedText) 步", "\(source.name)：\(rawText) 步中計入 \(countedText) 步"
        ))
    }
    countedSteps = rows.reduce(0) { $0 + $1.countedSteps }
    rawSteps = rows.reduce(0) { $0 + $1.rawSteps }
  }

  private var language: StepKitLanguage { formatting.language }

  /// The section's title: `Sources, Sunday, November 29`.
  public var title: String {
    let day = formatting.spokenDay(day.start)
    return language.pick("Sources, \(day)", "数据来源：\(day)", "資料來源：\(day)")
  }

  /// The sum line: `1,400 of 2,600 recorded steps counted`.
  public var totalText: String {
    let counted = formatting.number(countedSteps)
    let raw = formatting.number(rawSteps)
    return language.pick(
      "\(counted) of \(raw) recorded steps counted", "记录的 \(raw) 步中计入 \(counted) 步",
      "記錄的 \(raw) 步中計入 \(counted) 步")
  }

  /// Why fewer steps count than were recorded, when they do; `nil` otherwise.
  public var explanation: String? {
    guard rawSteps > countedSteps else { return nil }
    return language.pick(
      "When devices and apps record the same minutes, only the one highest in Health's Data Sources "
        + "list counts, as in the Health app; typed-in steps do not count.",
      "多个设备或应用记录了同一时段时，只计入“健康”数据来源列表中排位最高的一个，与“健康”App 相同；手动输入的步数不计入。",
      "多個裝置或 App 記錄了同一時段時，只計入「健康」資料來源列表中排位最高的一個，與「健康」App 相同；手動輸入的步數不計入。")
  }

  /// What is shown when no source recorded steps that day: `No steps recorded.`
  public var emptyText: String { language.pick("No steps recorded.", "没有记录步数。", "沒有記錄步數。") }

  /// Whether no source has steps.
  public var isEmpty: Bool { rows.isEmpty }
}

/// What the history detail is showing.
public enum SourceBreakdownPhase: Sendable, Hashable {
  /// The sources are being read.
  case loading
  /// The sources.
  case showing(SourceBreakdownState)
  /// Reading failed; the guidance says why and what helps.
  case failed(AccessGuidance)
}

extension HistoryLoader {
  /// Reads each source's counted and raw steps for `day`.
  ///
  /// - Parameter day: The day (a bar's ``HistoryBar/day``).
  /// - Returns: The sources, or guidance when they could not be read.
  public func loadBreakdown(for day: DateInterval) async -> SourceBreakdownPhase {
    do {
      let part = day.clamped(toEnd: counter.clock.now())
      return .showing(
        SourceBreakdownState(breakdown: try await counter.sourceBreakdown(in: part), formatting: formatting))
    } catch {
      return .failed(AccessGuidance(error: StepKitError.wrapping(error), formatting: formatting))
    }
  }
}
