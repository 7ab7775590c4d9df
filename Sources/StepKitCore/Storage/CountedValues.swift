/// What each sample of a log counted for after the merge, by sample index
/// (``Tally/countedValues``).
///
/// The values are kept in pages of 8 192. A log within its memory budget
/// (``SampleStorage``) keeps them all in memory; a longer one keeps about
/// the budget's worth and the rest in an anonymous temporary file, so that
/// recording what every sample counted for never takes memory in
/// proportion to the history. Read them in order (`for value in values`, or
/// an iterator beside ``SampleLog/forEachEntry(_:)``): each page is read back
/// once. The subscript reads one value.
public struct CountedValues: Sendable, Sequence, Equatable, ExpressibleByArrayLiteral {
  let pages: CountedPages

  /// No values (a tally made without ``CountingOptions/recordsCountedValues``).
  public init() { self.init([]) }

  /// The given values, in memory.
  public init(_ values: [Double]) {
    let pages = CountedPages(count: values.count, residentLimit: .max, storage: .inMemory)
    for (index, value) in values.enumerated() where value != 0 { pages.add(value, at: index) }
    self.pages = pages
  }

  /// The given values, in memory.
  public init(arrayLiteral values: Double...) { self.init(values) }

  init(pages: CountedPages) { self.pages = pages }

  /// How many values there are: one per sample of the log, or none.
  public var count: Int { pages.count }

  /// Whether there are none.
  public var isEmpty: Bool { pages.count == 0 }

  /// The value of sample `index` (0 ..< ``count``).
  public subscript(index: Int) -> Double {
    precondition(index >= 0 && index < count, "counted value index \(index) out of range 0..<\(count)")
    return pages.value(at: index)
  }

  /// The first failure of the temporary file, or `nil`; with
  /// ``SampleStorageError/losesSamples``, the values read since are wrong.
  public var storageFailure: SampleStorageError? { pages.storageFailure }

  /// Reads the values in order, a page at a time.
  public struct Iterator: IteratorProtocol {
    let pages: CountedPages
    var index = 0
    var page: UnsafePointer<Double>?
    var buffer: PageBuffer?

    /// The next value, or `nil` after the last.
    public mutating func next() -> Double? {
      guard index < pages.count else { return nil }
      let offset = index & (CountedPages.pageValues - 1)
      if offset == 0 || page == nil {
        let own = buffer ?? PageBuffer()
        buffer = own
        page = pages.page(index >> CountedPages.pageShift, into: own.values)
      }
      index += 1
      return page.unsafelyUnwrapped[offset]
    }
  }

  /// Reads the values in order.
  public func makeIterator() -> Iterator { Iterator(pages: pages) }

  /// Whether both hold the same values.
  public static func == (lhs: CountedValues, rhs: CountedValues) -> Bool {
    lhs.count == rhs.count && lhs.elementsEqual(rhs)
  }
}

/// A page's worth of values read back from the temporary file.
final class PageBuffer {
  let values = UnsafeMutablePointer<Double>.allocate(capacity: CountedPages.pageValues)
  deinit { values.deallocate() }
}

/// The pages of ``CountedValues``: in memory up to a limit, in a
/// ``SpillFile`` beyond it, or not yet touched (all zeros).
final class CountedPages: @unchecked Sendable {
  // Safe to share: written only by the merge that fills it (`add`), before
  // its ``CountedValues`` is handed out; read only after.
  static let pageShift = 13
  static let pageValues = 1 << pageShift
  static let pageBytes = pageValues * MemoryLayout<Double>.stride

  let count: Int
  private let storage: SampleStorage
  /// The most pages kept in memory.
  private var residentLimit: Int
  private var resident: [UnsafeMutablePointer<Double>?]
  private var fileOffset: [Int64]
  private var lastUse: [Int]
  /// The pages in memory, in no order.
  private var residentPages: [Int] = []
  private var clock = 0
  private var lastPage = -1
  private var lastValues = UnsafeMutablePointer<Double>.placeholder
  private var file: SpillFile?
  private var writeFailure: SampleStorageError?

  /// Pages for `count` values, keeping at most `residentLimit` in memory.
  init(count: Int, residentLimit: Int, storage: SampleStorage) {
    self.count = count
    self.storage = storage
    let pageCount = (count + Self.pageValues - 1) >> Self.pageShift
    self.residentLimit = max(1, residentLimit)
    resident = Array(repeating: nil, count: pageCount)
    fileOffset = Array(repeating: -1, count: pageCount)
    lastUse = Array(repeating: 0, count: pageCount)
  }

  /// Pages for `count` values within `storage`'s memory budget.
  convenience init(count: Int, storage: SampleStorage) {
    let budgetPages = storage.memoryBudget / Self.pageBytes
    self.init(count: count, residentLimit: budgetPages, storage: storage)
  }

  deinit {
    for page in resident { page?.deallocate() }
  }

  var storageFailure: SampleStorageError? { file?.failure ?? writeFailure }

  /// Adds `value` to the value at `index`.
  @inline(__always)
  func add(_ value: Double, at index: Int) {
    let page = index >> Self.pageShift
    if page != lastPage {
      lastValues = writable(page)
      lastPage = page
    }
    lastValues[index & (Self.pageValues - 1)] += value
  }

  /// Page `page` in memory, read back or zeroed, making room for it.
  private func writable(_ page: Int) -> UnsafeMutablePointer<Double> {
    clock += 1
    lastUse[page] = clock
    if let values = resident[page] { return values }
    if residentPages.count >= residentLimit { evict() }
    let values = UnsafeMutablePointer<Double>.allocate(capacity: Self.pageValues)
    if fileOffset[page] >= 0, let file {
      file.read(into: values, count: Self.pageBytes, at: fileOffset[page], capacity: Self.pageBytes)
    } else {
      values.initialize(repeating: 0, count: Self.pageValues)
    }
    resident[page] = values
    residentPages.append(page)
    return values
  }

  /// Writes the page used longest ago to the file and frees it; when the
  /// file fails, keeps every page in memory from then on.
  private func evict() {
    let position = residentPages.indices.min { lastUse[residentPages[$0]] < lastUse[residentPages[$1]] }!
    let page = residentPages[position]
    let made: Result<SpillFile, SampleStorageError> =
      file.map { .success($0) }
      ?? SpillFile.create(in: storage.resolvedDirectory)
    switch made {
    case .failure(let failure):
      keepInMemory(failure)
    case .success(let spill):
      file = spill
      let values = resident[page].unsafelyUnwrapped
      if fileOffset[page] < 0 { fileOffset[page] = spill.reserve(Self.pageBytes) }
      if let failure = spill.write(values, count: Self.pageBytes, at: fileOffset[page]) {
        keepInMemory(failure)
        return
      }
      values.deallocate()
      resident[page] = nil
      residentPages.swapAt(position, residentPages.count - 1)
      residentPages.removeLast()
      if lastPage == page { lastPage = -1 }
    }
  }

  /// Keeps every page in memory from now on, because of `failure`.
  private func keepInMemory(_ failure: SampleStorageError) {
    writeFailure = writeFailure ?? failure
    residentLimit = .max
  }

  /// Page `page` to read: in memory, or read back into `buffer`.
  func page(_ page: Int, into buffer: UnsafeMutablePointer<Double>) -> UnsafePointer<Double> {
    if let values = resident[page] { return UnsafePointer(values) }
    if fileOffset[page] >= 0, let file {
      file.read(into: buffer, count: Self.pageBytes, at: fileOffset[page], capacity: Self.pageBytes)
    } else {
      buffer.update(repeating: 0, count: Self.pageValues)
    }
    return UnsafePointer(buffer)
  }

  /// The value at `index`.
  func value(at index: Int) -> Double {
    let page = index >> Self.pageShift
    let offset = index & (Self.pageValues - 1)
    if let values = resident[page] { return values[offset] }
    guard fileOffset[page] >= 0, let file else { return 0 }
    var value = 0.0
    file.read(
      into: &value, count: 8, at: fileOffset[page] + Int64(offset * 8), capacity: MemoryLayout<Double>.size)
    return value
  }
}
