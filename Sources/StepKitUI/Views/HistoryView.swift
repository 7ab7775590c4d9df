#if canImport(SwiftUI)
  import SwiftUI
  import StepKit
  #if canImport(Charts)
    import Charts
  #endif

  /// Daily steps for the last 7 or 30 days of the counter's calendar: a bar
  /// per day, the daily average as a rule, and an audio graph
  /// (`AXChartDescriptor`) and a VoiceOver label per bar; below, the detail
  /// of a chosen day (today first): each source's counted and raw steps
  /// (``SourceBreakdownView``).
  ///
  /// Swift Charts draws it on iOS 16, macOS 13 and watchOS 9 and later;
  /// earlier systems get plain SwiftUI bars with the same texts.
  ///
  /// ```swift
  /// HistoryView(counter: .shared, range: .month)
  /// ```
  @available(iOS 15.0, macOS 12.0, watchOS 8.0, *)
  @MainActor
  public struct HistoryView: View {
    private let loader: HistoryLoader
    private let showsAccessGuidance: Bool
    @State private var range: HistoryRange
    @State private var phase: HistoryPhase = .loading
    @State private var selectedDay: Date?
    @State private var breakdown: SourceBreakdownPhase?

    /// Creates the view.
    ///
    /// - Parameters:
    ///   - counter: Where the numbers come from.
    ///   - goal: The daily goal, drawn on the bars that reach it; 10,000 by default, `nil` for none.
    ///   - range: The range shown first; the last 7 days by default.
    ///   - formatting: The language and region; the person's by default.
    ///   - showsAccessGuidance: Whether an empty answer from Health brings the "access may be off"
    ///     guidance; pass `false` when a ``TodayView`` on the same screen shows it already.
    public init(
      counter: StepCounter, goal: Int? = TodayState.defaultGoal, range: HistoryRange = .week,
      formatting: StepFormatting = StepFormatting(), showsAccessGuidance: Bool = true
    ) {
      loader = HistoryLoader(counter: counter, goal: goal, formatting: formatting)
      self.showsAccessGuidance = showsAccessGuidance
      _range = State(initialValue: range)
    }

    /// The view.
    public var body: some View {
      VStack(alignment: .leading, spacing: 12) {
        rangePicker
        content
      }
      .task(id: range) {
        phase = await loader.load(range)
      }
    }

    @ViewBuilder private var rangePicker: some View {
      let picker = Picker(selection: $range) {
        ForEach(HistoryRange.allCases) { range in
          Text(range.title(in: loader.formatting.language)).tag(range)
        }
      } label: {
        Text(HistoryRange.pickerLabel(in: loader.formatting.language))
      }
      .labelsHidden()
      #if os(watchOS)
        picker
      #else
        picker.pickerStyle(.segmented)
      #endif
    }

    @ViewBuilder private var content: some View {
      switch phase {
      case .loading:
        ProgressView()
          .frame(maxWidth: .infinity, minHeight: 220)
      case .showing(let state):
        VStack(alignment: .leading, spacing: 8) {
          Text(state.title)
            .font(.title2.weight(.semibold))
            .accessibilityAddTraits(.isHeader)
          Text(state.averageText)
            .font(.subheadline)
            .foregroundColor(.secondary)
          if state.isEmpty {
            Text(state.emptyText)
              .foregroundColor(.secondary)
              .frame(maxWidth: .infinity, minHeight: 120)
          } else {
            chart(state)
              .frame(minHeight: 220)
              .accessibilityChartDescriptor(StepChartDescriptor(state: state))
          }
          Text(state.provenanceText)
            .font(.footnote)
            .foregroundColor(.secondary)
            .fixedSize(horizontal: false, vertical: true)
          if !state.isEmpty { detail(state) }
          if showsAccessGuidance, let guidance = state.guidance {
            AccessGuidanceView(guidance: guidance, counter: loader.counter, formatting: loader.formatting)
              .id(guidance)
          }
        }
      case .failed(let guidance):
        AccessGuidanceView(guidance: guidance, counter: loader.counter, formatting: loader.formatting)
          .id(guidance)
      }
    }

    /// The detail of one day (today first): where its steps came from.
    @ViewBuilder private func detail(_ state: HistoryState) -> some View {
      let day = state.bars.first { $0.day.start == selectedDay } ?? state.bars.last
      if let day {
        Picker(selection: Binding(get: { day.day.start }, set: { selectedDay = $0 })) {
          ForEach(state.bars) { bar in
            Text(bar.accessibilityLabel).tag(bar.day.start)
          }
        } label: {
          Text(loader.formatting.language.pick("Day", "日期", "日期"))
        }
        .pickerStyle(.menu)
        Group {
          switch breakdown {
          case .showing(let sources)?: SourceBreakdownView(state: sources)
          case .failed(let guidance)?:
            AccessGuidanceView(guidance: guidance, counter: loader.counter, formatting: loader.formatting)
          case .loading?, nil: ProgressView()
          }
        }
        .task(id: day.day) {
          breakdown = .loading
          breakdown = await loader.loadBreakdown(for: day.day)
        }
      }
    }

    @ViewBuilder private func chart(_ state: HistoryState) -> some View {
      #if canImport(Charts)
        if #available(iOS 16.0, macOS 13.0, watchOS 9.0, *) {
          StepBarChart(state: state)
        } else {
          StepBarsFallback(state: state)
        }
      #else
        StepBarsFallback(state: state)
      #endif
    }
  }

  #if canImport(Charts)
    /// The history drawn by Swift Charts.
    @available(iOS 16.0, macOS 13.0, watchOS 9.0, *)
    @MainActor
    struct StepBarChart: View {
      let state: HistoryState

      var body: some View {
        Chart {
          ForEach(state.bars) { bar in
            BarMark(
              x: .value("Day", bar.day.start, unit: .day, calendar: state.formatting.calendar),
              y: .value("Steps", bar.steps)
            )
            .foregroundStyle(bar.reachedGoal ? Color.green : Color.accentColor)
            .opacity(bar.isToday ? 0.7 : 1)
            .accessibilityLabel(bar.accessibilityLabel)
            .accessibilityValue(bar.accessibilityValue)
          }
          RuleMark(y: .value("Average", state.averageSteps))
            .foregroundStyle(Color.secondary)
            .lineStyle(StrokeStyle(lineWidth: 1, dash: [4, 3]))
            .annotation(position: .top, alignment: .leading) {
              Text(state.averageLabel)
                .font(.caption2)
                .foregroundColor(.secondary)
            }
            .accessibilityHidden(true)
        }
        .chartYScale(domain: 0...state.axisUpperBound)
        .chartXAxis {
          AxisMarks(values: state.bars.filter { $0.axisLabel != nil }.map(\.day.start)) { value in
            AxisGridLine()
            AxisValueLabel {
              if let date = value.as(Date.self),
                let label = state.bars.first(where: { $0.day.start == date })?.axisLabel
              {
                Text(label)
              }
            }
          }
        }
        .environment(\.calendar, state.formatting.calendar)
        .environment(\.locale, state.formatting.locale)
      }
    }
  #endif

  /// The history drawn with plain SwiftUI shapes (iOS 15, macOS 12, watchOS 8).
  @available(iOS 15.0, macOS 12.0, watchOS 8.0, *)
  @MainActor
  struct StepBarsFallback: View {
    let state: HistoryState
    @ScaledMetric(relativeTo: .caption2) private var labelHeight: CGFloat = 16

    var body: some View {
      GeometryReader { geometry in
        let plotHeight = max(0, geometry.size.height - labelHeight - 4)
        let top = Double(state.axisUpperBound)
        ZStack(alignment: .bottomLeading) {
          HStack(alignment: .bottom, spacing: state.bars.count > 10 ? 2 : 8) {
            ForEach(state.bars) { bar in
              VStack(spacing: 4) {
                RoundedRectangle(cornerRadius: 3, style: .continuous)
                  .fill(bar.reachedGoal ? Color.green : Color.accentColor)
                  .opacity(bar.isToday ? 0.7 : 1)
                  .frame(height: plotHeight * CGFloat(Double(bar.steps) / top))
                Text(bar.axisLabel ?? " ")
                  .font(.caption2)
                  .foregroundColor(.secondary)
                  .lineLimit(1)
                  .minimumScaleFactor(0.5)
                  .frame(height: labelHeight)
              }
              .frame(maxWidth: .infinity, maxHeight: .infinity, alignment: .bottom)
              .accessibilityElement(children: .ignore)
              .accessibilityLabel(Text(bar.accessibilityLabel))
              .accessibilityValue(Text(bar.accessibilityValue))
            }
          }
          Rectangle()
            .fill(Color.secondary)
            .frame(height: 1)
            .offset(y: -(labelHeight + 4 + plotHeight * CGFloat(Double(state.averageSteps) / top)))
            .accessibilityHidden(true)
        }
      }
    }
  }

  /// The history's audio graph: ``HistoryState/chartDescription`` as an `AXChartDescriptor`.
  @available(iOS 15.0, macOS 12.0, watchOS 8.0, *)
  struct StepChartDescriptor: AXChartDescriptorRepresentable {
    let state: HistoryState

    func makeChartDescriptor() -> AXChartDescriptor {
      let description = state.chartDescription
      let state = state
      let xAxis = AXCategoricalDataAxisDescriptor(
        title: description.xAxisTitle, categoryOrder: description.categories)
      let yAxis = AXNumericDataAxisDescriptor(
        title: description.yAxisTitle, range: description.yRange, gridlinePositions: []
      ) { value in
        state.spokenSteps(value)
      }
      let series = AXDataSeriesDescriptor(
        name: description.seriesName, isContinuous: false,
        dataPoints: description.points.map { AXDataPoint(x: $0.category, y: $0.value, label: $0.label) })
      return AXChartDescriptor(
        title: description.title, summary: description.summary, xAxis: xAxis, yAxis: yAxis,
        additionalAxes: [],
        series: [series])
    }
  }
#endif
