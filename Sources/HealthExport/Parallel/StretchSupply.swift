import StepKitCore

/// The stretches ``ParallelExportReader`` joins, in file order: a regular
/// file cut at seams found up front (``FileStretches``), or a zip entry's
/// bytes cut at seams as they are inflated (``InflatedStretches``).
///
/// Stretch 0 starts the XML (the header); every later one starts at a
/// candidate seam. The joining thread asks for them in order; it reads a
/// stretch itself when nobody scanned it ahead (``result(_:)`` is `nil`).
protocol StretchSupply: AnyObject {
  /// The bytes the XML is expected to hold (progress, the log's reservation).
  var expectedByteCount: Int64 { get }
  /// Whether threads scan stretches ahead of the joining one: without them a
  /// repair reads on to the end.
  var scansAhead: Bool { get }
  /// The stretches known so far: all of them once the end of the XML was reached.
  var knownCount: Int { get }
  /// Whether stretch `index` exists (waits until that is known).
  func hasStretch(_ index: Int) -> Bool
  /// Whether stretch `index`, which exists, is known to be the last (never waits).
  func isKnownLast(_ index: Int) -> Bool
  /// The offset of the first byte of stretch `index`, which exists.
  func start(of index: Int) -> Int64
  /// The offset just past stretch `index`, which exists.
  func end(of index: Int) -> Int64
  /// The bytes of stretch `index`, or from it on to the end when `toEnd`, to
  /// read front to back on one thread; ``ByteRangeSource/extend(to:)`` moves
  /// the end to a later stretch's end. A `consuming` reader never reads a
  /// stretch again once it has moved past it.
  func range(from index: Int, toEnd: Bool, consuming: Bool) -> any ByteRangeSource
  /// Starts scanning stretches 1 and later ahead, from `context`.
  func startScanning(context: ParallelExportReader.Context, settings: ParallelExportReader.Settings)
  /// Stops scanning ahead and waits for the scanning threads to end.
  func stopScanning()
  /// Has the stretches scanned ahead from now on numbered as `log` numbers
  /// origins (``SampleLog/init(numberingOriginsAs:)``), when it holds more
  /// than they would have started with, so that their blocks join `log`
  /// without being encoded again.
  func publishOrigins(of log: SampleLog)
  /// Stretch `index` as scanned ahead (waiting for it), or `nil` when nobody
  /// scanned it: the joining thread then reads it itself.
  func result(_ index: Int) -> ParallelExportReader.Chunk?
  /// Whether the joining thread, having read up to stretch `index` at top
  /// level, reads on into it because nobody scans it ahead (which it then
  /// never will): one scan goes on instead of a new one starting.
  func claimForReading(_ index: Int) -> Bool
  /// Whether ``claimForReading(_:)`` may let a repair read on past clean seams.
  var readsOnItself: Bool { get }
  /// Stretch `index`'s result will not be used (a repair reads it).
  func discard(_ index: Int)
  /// Every stretch before `index` is joined and will not be read again.
  func joined(before index: Int)
  /// After the last stretch is joined: the error the source found after
  /// the XML's last byte (a zip entry's checksum), if any.
  func verifyEnd() throws
}

/// A regular file's stretches, cut at seams found up front and scanned
/// ahead by worker threads, each reading its own byte range.
final class FileStretches: StretchSupply {
  private let file: any RandomAccessByteSource
  private let seams: [Int64]
  private let window: Int
  private var board: ChunkBoard?
  private var workers: [ProducerThread] = []

  /// Stretches of `file` starting at `seams` (the first 0), scanned ahead
  /// by up to `threads` threads, at most `threads + 1` ahead of the join.
  init(file: any RandomAccessByteSource, seams: [Int64], threads: Int) {
    self.file = file
    self.seams = seams
    window = threads + 1
  }

  deinit { stopScanning() }

  var expectedByteCount: Int64 { file.byteCount }
  var scansAhead: Bool { !workers.isEmpty }
  var knownCount: Int { seams.count }
  func hasStretch(_ index: Int) -> Bool { index < seams.count }
  func isKnownLast(_ index: Int) -> Bool { index == seams.count - 1 }
  func start(of index: Int) -> Int64 { seams[index] }
  func end(of index: Int) -> Int64 { index + 1 < seams.count ? seams[index + 1] : file.byteCount }

  func range(from index: Int, toEnd: Bool, consuming: Bool) -> any ByteRangeSource {
    file.range(from: seams[index], to: toEnd || isKnownLast(index) ? nil : seams[index + 1])
  }

  func startScanning(context: ParallelExportReader.Context, settings: ParallelExportReader.Settings) {
    let board = ChunkBoard(count: seams.count, window: window, origins: context.origins)
    self.board = board
    for _ in 0..<min(settings.threads, seams.count - 1) {
      let job = Job(file: file, seams: seams, context: context, settings: settings, board: board)
      guard let worker = ProducerThread({ job.run() }) else { break }
      workers.append(worker)
    }
    if workers.isEmpty { board.cancel() }
  }

  func stopScanning() {
    board?.cancel()
    for worker in workers { worker.join() }
  }

  func publishOrigins(of log: SampleLog) { board?.publishOrigins(of: log) }

  func result(_ index: Int) -> ParallelExportReader.Chunk? {
    guard let board, !workers.isEmpty else { return nil }
    return board.result(index)
  }

  func claimForReading(_ index: Int) -> Bool { false }
  var readsOnItself: Bool { false }
  func discard(_ index: Int) { _ = result(index) }
  func joined(before index: Int) {}
  func verifyEnd() throws {}

  /// One worker thread: scans stretches the board hands out until none are left.
  private final class Job: Sendable {
    let file: any RandomAccessByteSource
    let seams: [Int64]
    let context: ParallelExportReader.Context
    let settings: ParallelExportReader.Settings
    let board: ChunkBoard

    init(
      file: any RandomAccessByteSource, seams: [Int64], context: ParallelExportReader.Context,
      settings: ParallelExportReader.Settings, board: ChunkBoard
    ) {
      self.file = file
      self.seams = seams
      self.context = context
      self.settings = settings
      self.board = board
    }

    func run() {
      while let (index, origins) = board.take() {
        var context = context
        context.origins = origins
        board.deliver(
          index,
          ParallelExportReader.scanChunk(
            file, seams: seams, index: index, context: context, settings: settings))
      }
    }
  }
}
