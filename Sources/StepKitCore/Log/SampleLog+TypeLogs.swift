extension SampleLog {
  /// A log that collects several cumulative types in one read of an export:
  /// each type's records go into a log of its own (``typeLogs``), exactly as
  /// reading into a log whose ``countedType`` is that type would collect
  /// them (the same samples, origins and invalid records, in the same
  /// order); this log itself holds no samples.
  ///
  /// One read for all the types passes over the export's other records once,
  /// not once per type; each type's records are decoded as its own read
  /// would decode them. The counts the read returns (HealthExport's
  /// `ExportInfo`) are those of all the types together.
  ///
  /// ```swift
  /// var log = SampleLog(countingEach: [.activeEnergyBurned, .flightsClimbed])
  /// try ExportReader.read(.path("export.zip"), into: &log)
  /// let kcal = log.typeLogs[0].tally(CountingOptions()).total.steps
  /// ```
  ///
  /// - Parameters:
  ///   - types: The types, each once. With none, the log is an ordinary
  ///     one, which collects steps and distance, and ``typeLogs`` is empty.
  ///   - storage: How the logs keep their samples: its
  ///     ``SampleStorage/memoryBudget`` is shared out among the types' logs,
  ///     so that the sealed chunks they keep in memory stay within it
  ///     together, as one log's would (each log also fills a chunk of its own).
  public init(countingEach types: [CumulativeType], storage: SampleStorage = .standard) {
    self.init(storage: storage)
    var share = storage
    share.memoryBudget = storage.memoryBudget / max(types.count, 1)
    typeLogs = types.map { type in
      var log = SampleLog(storage: share)
      log.countedType = type
      return log
    }
  }

  /// Exchanges ``typeLogs`` with `logs`: a reader takes them out for the read
  /// (each in turn the log it appends to) and hands them back.
  @_spi(ExportReading)
  public mutating func exchangeTypeLogs(_ logs: inout [SampleLog]) {
    swap(&typeLogs, &logs)
  }

  /// How many origins this log holds, then each of its ``typeLogs``: what a
  /// reader that merges logs read in parallel checks against
  /// ``maximumOrigins``.
  @_spi(ExportReading)
  public var originCounts: [Int] {
    [origins.count] + typeLogs.map(\.origins.count)
  }
}
