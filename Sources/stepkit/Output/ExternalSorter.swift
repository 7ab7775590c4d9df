/// Index entries put in ascending key order in bounded memory: what an index b-tree of a database
/// written page by page is built from, one entry per row of its table.
///
/// Entries are copied into one buffer, laid out as ``EntryLayout`` says, and their offsets into an
/// array. When the entries held reach the memory budget, the offsets are sorted (`memcmp` on the
/// keys, the offset breaking ties, so that equal keys keep the order they came in) and the entries
/// are written in that order to a temporary file as one sorted run. Entries that arrive in key
/// order (each append is compared with the one before) are not sorted at all, and a run whose
/// first key is not below the last key of the run before it extends that run: input in key order
/// stays one run however long it is.
///
/// ``finish(_:)`` hands out the payloads straight from memory when nothing was spilled. Otherwise
/// it merges the runs with a binary heap of cursors, each reading its run through a buffer of its
/// own (at least ``minimumRunBuffer`` bytes) with `pread`. When the budget has room for fewer
/// buffers than there are runs, groups of neighbouring runs are merged into longer runs first,
/// appended to the same file. Runs stay in the order their entries were appended, and on equal
/// keys the earlier run's entry comes out first, so the whole sort is stable.
///
/// The temporary file is created with a unique name in the given directory, opened for reading
/// and writing and unlinked at once, so a killed process leaves nothing behind; its descriptor is
/// closed when the sorter goes. After an error the sorter's entries are not lost, but the sorter is
/// of no further use but to be discarded.
final class ExternalSorter {
  /// How one entry is laid out, in the buffer and in the temporary file alike: the key's byte
  /// count and the payload's, each a `UInt32` in the machine's byte order at any alignment, then
  /// the key's bytes, then the payload's.
  enum EntryLayout {
    /// The bytes before the key: the two counts.
    static let headerSize = 8
    /// Where the payload's count is.
    static let payloadCountOffset = 4

    /// The bytes an entry takes.
    @inline(__always)
    static func size(keyCount: Int, payloadCount: Int) -> Int { headerSize + keyCount + payloadCount }

    /// The bytes the entry at `entry` takes.
    @inline(__always)
    static func size(_ entry: UnsafeRawPointer) -> Int {
      size(keyCount: keyCount(entry), payloadCount: payloadCount(entry))
    }

    /// The byte count of the key of the entry at `entry`.
    @inline(__always)
    static func keyCount(_ entry: UnsafeRawPointer) -> Int { Int(entry.loadUnaligned(as: UInt32.self)) }

    /// The byte count of the payload of the entry at `entry`.
    @inline(__always)
    static func payloadCount(_ entry: UnsafeRawPointer) -> Int {
      Int(entry.loadUnaligned(fromByteOffset: payloadCountOffset, as: UInt32.self))
    }

    /// The key of the entry at `entry`.
    @inline(__always)
    static func key(_ entry: UnsafeRawPointer) -> UnsafeRawBufferPointer {
      UnsafeRawBufferPointer(start: entry + headerSize, count: keyCount(entry))
    }

    /// The payload of the entry at `entry`.
    @inline(__always)
    static func payload(_ entry: UnsafeRawPointer) -> UnsafeRawBufferPointer {
      UnsafeRawBufferPointer(start: entry + headerSize + keyCount(entry), count: payloadCount(entry))
    }

    /// Writes an entry of `key` and `payload` at `entry`, which has room for it.
    @inline(__always)
    static func write(
      key: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer, at entry: UnsafeMutableRawPointer
    ) {
      entry.storeBytes(of: UInt32(key.count), as: UInt32.self)
      entry.storeBytes(of: UInt32(payload.count), toByteOffset: payloadCountOffset, as: UInt32.self)
      if let base = key.baseAddress { (entry + headerSize).copyMemory(from: base, byteCount: key.count) }
      if let base = payload.baseAddress {
        (entry + headerSize + key.count).copyMemory(from: base, byteCount: payload.count)
      }
    }

    /// How the keys of the entries at `first` and `second` compare: bytewise (`memcmp`), and a key
    /// that is a prefix of the other first.
    ///
    /// - Returns: Less than zero, zero or more than zero as the first key orders before, with or
    ///   after the second.
    @inline(__always)
    static func compareKeys(_ first: UnsafeRawPointer, _ second: UnsafeRawPointer) -> Int {
      let firstCount = keyCount(first)
      let secondCount = keyCount(second)
      let order = Platform.compareBytes(first + headerSize, second + headerSize, min(firstCount, secondCount))
      return order != 0 ? Int(order) : firstCount - secondCount
    }

    /// How two keys compare, as ``compareKeys(_:_:)`` does; for keys not inside entries.
    static func compare(_ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer) -> Int {
      let common = min(first.count, second.count)
      if common > 0, let a = first.baseAddress, let b = second.baseAddress {
        let order = Platform.compareBytes(a, b, common)
        if order != 0 { return Int(order) }
      }
      return first.count - second.count
    }
  }

  /// The smallest buffer a run is read through in a merge.
  static let minimumRunBuffer = 32 << 10
  /// The largest buffer a run is read through: larger reads save little.
  static let maximumRunBuffer = 1 << 20
  /// The buffer entries are gathered in before they are written to the temporary file.
  static let writeBuffer = 64 << 10
  /// The first buffer for entries: it doubles as entries come, up to the budget.
  private static let initialCapacity = 16 << 10

  /// Where the temporary file goes, as given; errors name it.
  let directory: String
  /// The bytes of entries and their offsets held in memory before a run is spilled; also what
  /// the run buffers of a merge share.
  let memoryBudget: Int
  /// The number of entries appended.
  private(set) var count = 0

  // The entries held in memory: `bytes[0..<byteCount]`, at `offsets[0..<heldCount]`; both are
  // `nil` only when their capacity is 0.
  private var bytes: UnsafeMutableRawPointer?
  private var byteCapacity = 0
  private var byteCount = 0
  private var offsets: UnsafeMutablePointer<UInt32>?
  private var offsetCapacity = 0
  private var heldCount = 0
  /// Where the entry appended last starts, in `bytes`.
  private var lastOffset = 0
  /// Whether every entry held came in key order (then the offsets need no sort).
  private var heldInOrder = true

  /// The temporary file's descriptor, -1 until the first spill.
  private var descriptor: Int32 = -1
  /// The bytes written to the temporary file.
  private var fileEnd: Int64 = 0
  /// The sorted runs in the file, in the order their entries were appended.
  private var runs: [Range<Int64>] = []
  /// The last key of the last run spilled, to tell whether the next run extends it.
  private var lastSpilledKey: [UInt8] = []
  private var isFinished = false

  /// An empty sorter.
  ///
  /// - Parameters:
  ///   - memoryBudget: Bytes of entries (with 4 bytes for each one's offset) held in memory before
  ///     a sorted run is written to a temporary file. The merge's run buffers share the same
  ///     number of bytes, but never fewer than two buffers of ``minimumRunBuffer`` bytes.
  ///   - directory: Where the temporary file goes (the output database's directory); the file is
  ///     unlinked as soon as it is opened, so nothing is left behind if the process is killed.
  init(memoryBudget: Int, directory: String) {
    self.memoryBudget = min(max(memoryBudget, 1), Int(UInt32.max))
    self.directory = directory
  }

  deinit {
    bytes?.deallocate()
    offsets?.deallocate()
    if descriptor >= 0 { _ = Platform.close(descriptor) }
  }

  /// The temporary file's descriptor once there is one, for tests.
  var temporaryFileDescriptor: Int32? { descriptor >= 0 ? descriptor : nil }

  /// The number of sorted runs in the temporary file, for tests.
  var spilledRunCount: Int { runs.count }

  /// Adds one entry: `key` is compared bytewise (memcmp, then the shorter first); `payload` is
  /// carried along. Both are copied.
  ///
  /// - Throws: ``OutputFileError`` naming ``directory`` when a run could not be written to the
  ///   temporary file (or the file could not be made).
  func append(key: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer) throws(OutputFileError) {
    precondition(!isFinished, "ExternalSorter.append after finish")
    precondition(key.count <= Int(UInt32.max) && payload.count <= Int(UInt32.max), "an entry too large")
    let size = EntryLayout.size(keyCount: key.count, payloadCount: payload.count)
    if heldCount > 0 && byteCount + size + (heldCount + 1) * MemoryLayout<UInt32>.size > memoryBudget {
      try spill()
    }
    if byteCount + size > byteCapacity { growBytes(toHold: byteCount + size) }
    if heldCount == offsetCapacity { growOffsets() }
    let base = bytes.unsafelyUnwrapped
    let entry = base + byteCount
    EntryLayout.write(key: key, payload: payload, at: entry)
    if heldInOrder && heldCount > 0 && EntryLayout.compareKeys(base + lastOffset, entry) > 0 {
      heldInOrder = false
    }
    offsets.unsafelyUnwrapped[heldCount] = UInt32(truncatingIfNeeded: byteCount)
    lastOffset = byteCount
    byteCount += size
    heldCount += 1
    count += 1
  }

  /// Calls `body` with each payload in ascending key order; entries with equal keys come out in
  /// the order they were appended (stable). Can be called once.
  ///
  /// - Parameter body: Called with each payload; the bytes are valid during the call only.
  /// - Throws: ``OutputFileError`` naming ``directory`` when the temporary file could not be
  ///   written or read back, or what `body` throws.
  func finish(_ body: (UnsafeRawBufferPointer) throws(OutputFileError) -> Void) throws(OutputFileError) {
    precondition(!isFinished, "ExternalSorter.finish called twice")
    isFinished = true
    defer { releaseHeldMemory() }
    if runs.isEmpty {
      _checkInvariants()
      sortHeld()
      guard let bytes, let offsets else { return }
      for index in 0..<heldCount { try body(EntryLayout.payload(bytes + Int(offsets[index]))) }
      return
    }
    try spill()
    releaseHeldMemory()
    let finalFanIn = max(2, memoryBudget / Self.minimumRunBuffer)
    var runs = self.runs
    while runs.count > finalFanIn { runs = try mergeGroups(of: runs, downTo: finalFanIn) }
    try merge(runs[...], bufferSize: runBufferSize(runs: runs.count, room: memoryBudget)) {
      (entry, _) throws(OutputFileError) in
      try body(EntryLayout.payload(entry))
    }
  }

  // MARK: Memory

  @inline(never)
  private func growBytes(toHold needed: Int) {
    let capacity = max(needed, min(max(byteCapacity * 2, Self.initialCapacity), memoryBudget))
    let grown = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
    if let bytes {
      grown.copyMemory(from: bytes, byteCount: byteCount)
      bytes.deallocate()
    }
    bytes = grown
    byteCapacity = capacity
  }

  @inline(never)
  private func growOffsets() {
    let capacity = max(offsetCapacity * 2, 1024)
    let grown = UnsafeMutablePointer<UInt32>.allocate(capacity: capacity)
    if let offsets {
      grown.update(from: offsets, count: heldCount)
      offsets.deallocate()
    }
    offsets = grown
    offsetCapacity = capacity
  }

  private func releaseHeldMemory() {
    bytes?.deallocate()
    offsets?.deallocate()
    bytes = nil
    offsets = nil
    byteCapacity = 0
    offsetCapacity = 0
    byteCount = 0
    heldCount = 0
  }

  /// Puts the offsets of the entries held in key order, equal keys in the order they came.
  private func sortHeld() {
    guard !heldInOrder, let bytes, let offsets else { return }
    let base = UnsafeRawPointer(bytes)
    var held = UnsafeMutableBufferPointer(start: offsets, count: heldCount)
    held.sort { first, second in
      let order = EntryLayout.compareKeys(base + Int(first), base + Int(second))
      return order != 0 ? order < 0 : first < second
    }
    // The entry the next append is compared with is now the one with the largest key.
    lastOffset = Int(offsets[heldCount - 1])
    heldInOrder = true
  }

  // MARK: Runs

  /// Writes the entries held, sorted, to the temporary file as a run (or as the end of the run
  /// before, when they continue it) and empties the buffer.
  @inline(never)
  private func spill() throws(OutputFileError) {
    guard heldCount > 0, let bytes, let offsets else { return }
    _checkInvariants()
    let wasInOrder = heldInOrder
    sortHeld()
    if descriptor < 0 { try createFile() }
    let start = fileEnd
    if wasInOrder {
      try write(UnsafeRawBufferPointer(start: bytes, count: byteCount))
    } else {
      try writeGathered { add throws(OutputFileError) in
        for index in 0..<heldCount {
          let entry = bytes + Int(offsets[index])
          try add(entry, EntryLayout.size(entry))
        }
      }
    }
    let first = EntryLayout.key(bytes + Int(offsets[0]))
    let continues =
      runs.last?.upperBound == start
      && lastSpilledKey.withUnsafeBytes { EntryLayout.compare($0, first) <= 0 }
    if continues {
      runs[runs.count - 1] = runs[runs.count - 1].lowerBound..<fileEnd
    } else {
      runs.append(start..<fileEnd)
    }
    lastSpilledKey = Array(EntryLayout.key(bytes + Int(offsets[heldCount - 1])))
    byteCount = 0
    heldCount = 0
    heldInOrder = true
  }

  /// Writes the entries `produce` hands to its `add` (each an entry's start and size), in
  /// order, to the end of the temporary file, gathered into writes of up to ``writeBuffer``
  /// bytes; a larger entry is written on its own.
  private func writeGathered(
    _ produce: (_ add: (UnsafeRawPointer, Int) throws(OutputFileError) -> Void) throws(OutputFileError) ->
      Void
  ) throws(OutputFileError) {
    let gathered = UnsafeMutableRawPointer.allocate(byteCount: Self.writeBuffer, alignment: 8)
    defer { gathered.deallocate() }
    var used = 0
    try produce { entry, size throws(OutputFileError) in
      if used + size > Self.writeBuffer {
        try write(UnsafeRawBufferPointer(start: gathered, count: used))
        used = 0
      }
      if size > Self.writeBuffer {
        try write(UnsafeRawBufferPointer(start: entry, count: size))
      } else {
        (gathered + used).copyMemory(from: entry, byteCount: size)
        used += size
      }
    }
    try write(UnsafeRawBufferPointer(start: gathered, count: used))
  }

  /// Merges neighbouring runs in groups until no more than `fanIn` are left (or fewer merges in
  /// one pass could not get there), each group into a run at the end of the file.
  ///
  /// - Returns: The runs, merged groups in their places, still in the order of their entries.
  private func mergeGroups(of runs: [Range<Int64>], downTo fanIn: Int) throws(OutputFileError)
    -> [Range<Int64>]
  {
    let room = max(memoryBudget - Self.writeBuffer, 0)
    let groupSize = max(2, room / Self.minimumRunBuffer)
    var excess = runs.count - fanIn
    var merged: [Range<Int64>] = []
    var index = 0
    while index < runs.count {
      let size = min(groupSize, excess + 1, runs.count - index)
      guard size >= 2 else {
        merged.append(runs[index])
        index += 1
        continue
      }
      let start = fileEnd
      try writeGathered { add throws(OutputFileError) in
        try merge(runs[index..<index + size], bufferSize: runBufferSize(runs: size, room: room)) {
          (entry, size) throws(OutputFileError) in
          try add(entry, size)
        }
      }
      merged.append(start..<fileEnd)
      excess -= size - 1
      index += size
    }
    return merged
  }

  /// The buffer each of `runs` runs is read through when they share `room` bytes.
  private func runBufferSize(runs: Int, room: Int) -> Int {
    min(max(room / max(runs, 1), Self.minimumRunBuffer), Self.maximumRunBuffer)
  }

  /// Merges `group` (runs in the order of their entries) and calls `emit` with each entry, and its
  /// size, in ascending key order; on equal keys the earlier run's entry first.
  private func merge(
    _ group: ArraySlice<Range<Int64>>, bufferSize: Int,
    _ emit: (UnsafeRawPointer, Int) throws(OutputFileError) -> Void
  ) throws(OutputFileError) {
    let file = RunFile(descriptor: descriptor, directory: directory)
    var heap = RunHeap(capacity: group.count)
    defer { heap.release() }
    for run in group {
      let cursor = RunCursor(run: run, bufferSize: bufferSize)
      heap.add(cursor)
      if try heap.cursors[heap.added - 1].advance(file) { heap.push(heap.added - 1) }
    }
    while let top = heap.top {
      let cursor = heap.cursors[top]
      try emit(cursor.entry, cursor.entrySize)
      if try heap.cursors[top].advance(file) {
        heap.topMoved()
      } else {
        heap.popTop()
      }
    }
  }

  // MARK: The temporary file

  private func createFile() throws(OutputFileError) {
    let folder = directory.isEmpty ? "." : directory
    let prefix = (folder.hasSuffix("/") ? folder : folder + "/") + ".stepkit-sort-"
    for _ in 0..<100 {
      let path = prefix + Platform.randomSuffix()
      switch Platform.createPrivateFile(path) {
      case .success(let opened):
        if let error = Platform.unlinkFile(path) {
          _ = Platform.close(opened)
          throw RunFile.failure(directory: directory, "remove the name of", error.description)
        }
        descriptor = opened
        return
      case .failure(let error) where error.code == Platform.fileExistsErrorCode:
        continue
      case .failure(let error):
        throw RunFile.failure(directory: directory, "create", error.description)
      }
    }
    throw RunFile.failure(directory: directory, "create", "every name tried was taken")
  }

  private func write(_ data: UnsafeRawBufferPointer) throws(OutputFileError) {
    guard !data.isEmpty else { return }
    if let code = Platform.writeAll(descriptor, data, at: fileEnd) {
      throw RunFile.failure(directory: directory, "write", Platform.FileError(code).description)
    }
    fileEnd += Int64(data.count)
  }

  // MARK: Invariants

  /// Checks the entries held against their offsets (with `STEPKIT_INTERNAL_CHECKS`; nothing
  /// otherwise): that the offsets, in ascending order, tile the buffer entry by entry, that they
  /// are in key order when ``heldInOrder`` says so, and that the runs lie in the file.
  @inline(__always)
  func _checkInvariants() {
    #if STEPKIT_INTERNAL_CHECKS
      _checkInvariantsInFull()
    #endif
  }

  #if STEPKIT_INTERNAL_CHECKS
    @inline(never)
    private func _checkInvariantsInFull() {
      precondition(byteCount <= byteCapacity && heldCount <= offsetCapacity, "held past capacity")
      precondition(
        heldCount <= 1 || byteCount + heldCount * MemoryLayout<UInt32>.size <= memoryBudget,
        "held past the budget")
      if heldCount > 0, let bytes, let offsets {
        let held = UnsafeBufferPointer(start: offsets, count: heldCount)
        var expected = 0
        for offset in held.sorted() {
          precondition(Int(offset) == expected, "the entries do not tile the buffer")
          expected += EntryLayout.size(bytes + expected)
          precondition(expected <= byteCount, "an entry runs past the bytes held")
        }
        precondition(expected == byteCount, "bytes after the last entry")
        precondition(Int(held[heldCount - 1]) == lastOffset, "the last entry is lost")
        if heldInOrder {
          for index in 1..<heldCount {
            precondition(
              EntryLayout.compareKeys(bytes + Int(held[index - 1]), bytes + Int(held[index])) <= 0,
              "entries said to be in order are not")
          }
        }
      }
      var end: Int64 = 0
      for run in runs {
        precondition(run.lowerBound < run.upperBound && run.upperBound <= fileEnd, "a run outside the file")
        precondition(run.lowerBound >= end, "runs overlap")
        end = run.upperBound
      }
    }
  #endif
}

// MARK: - Merging

/// The temporary file as the merge reads it, and the errors it gives.
private struct RunFile {
  var descriptor: Int32
  var directory: String

  /// An error naming the directory and what failed: "cannot write the sort's temporary file in
  /// /data: No space left on device".
  static func failure(directory: String, _ operation: String, _ reason: String) -> OutputFileError {
    OutputFileError(
      path: directory, message: "cannot \(operation) the sort's temporary file in \(directory): \(reason)")
  }

  /// Fills `buffer` from `offset`; a read that fails or ends early is an error.
  func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(OutputFileError) {
    switch Platform.readAll(descriptor, into: buffer, at: offset) {
    case .success(let count) where count == buffer.count:
      return
    case .success(let count):
      throw Self.failure(
        directory: directory, "read",
        "it ended early (\(count) of \(buffer.count) bytes at offset \(offset))")
    case .failure(let error):
      throw Self.failure(directory: directory, "read", error.description)
    }
  }
}

/// One run of the temporary file read through a buffer of its own: the entry it is at
/// (`buffer[entryStart..<entryStart + entrySize]`) and the bytes after it read so far.
private struct RunCursor {
  var buffer: UnsafeMutableRawPointer
  var capacity: Int
  var entryStart = 0
  var entrySize = 0
  /// The end of the bytes read into `buffer`.
  var filled = 0
  /// The next byte of the run to read, in the file.
  var next: Int64
  /// The end of the run, in the file.
  let end: Int64

  init(run: Range<Int64>, bufferSize: Int) {
    buffer = .allocate(byteCount: bufferSize, alignment: 8)
    capacity = bufferSize
    next = run.lowerBound
    end = run.upperBound
  }

  /// The entry the cursor is at.
  var entry: UnsafeRawPointer { UnsafeRawPointer(buffer + entryStart) }

  /// Moves to the run's next entry (the first, the first time).
  ///
  /// - Returns: `false` at the end of the run.
  @inline(__always)
  mutating func advance(_ file: RunFile) throws(OutputFileError) -> Bool {
    entryStart += entrySize
    entrySize = 0
    if filled - entryStart < ExternalSorter.EntryLayout.headerSize {
      if filled == entryStart && next == end { return false }
      try refill(file, needing: ExternalSorter.EntryLayout.headerSize)
    }
    let size = ExternalSorter.EntryLayout.size(entry)
    if filled - entryStart < size { try refill(file, needing: size) }
    entrySize = size
    #if STEPKIT_INTERNAL_CHECKS
      precondition(entryStart + entrySize <= filled && filled <= capacity && next <= end, "a cursor is lost")
    #endif
    return true
  }

  /// Moves the bytes after `entryStart` to the front of the buffer (a larger one when `needing`
  /// bytes do not fit) and reads as much of the run after them as fits.
  @inline(never)
  private mutating func refill(_ file: RunFile, needing: Int) throws(OutputFileError) {
    let kept = filled - entryStart
    if needing > capacity {
      let grown = UnsafeMutableRawPointer.allocate(byteCount: max(needing, capacity * 2), alignment: 8)
      grown.copyMemory(from: buffer + entryStart, byteCount: kept)
      buffer.deallocate()
      buffer = grown
      capacity = max(needing, capacity * 2)
    } else if kept > 0 {
      buffer.copyMemory(from: buffer + entryStart, byteCount: kept)
    }
    entryStart = 0
    filled = kept
    let wanted = Int(min(Int64(capacity - kept), end - next))
    try file.read(into: UnsafeMutableRawBufferPointer(start: buffer + kept, count: wanted), at: next)
    next += Int64(wanted)
    filled += wanted
    if filled < needing {
      throw RunFile.failure(directory: file.directory, "read", "a run ends inside an entry")
    }
  }
}

/// The cursors of a merge and a binary heap of their indices, the cursor at the smallest key on
/// top; on equal keys the cursor of the earlier run (the smaller index).
private struct RunHeap {
  let cursors: UnsafeMutablePointer<RunCursor>
  private let heap: UnsafeMutablePointer<Int>
  /// The cursors made.
  private(set) var added = 0
  private var count = 0

  init(capacity: Int) {
    cursors = .allocate(capacity: capacity)
    heap = .allocate(capacity: capacity)
  }

  /// Frees the cursors' buffers and the heap.
  func release() {
    for index in 0..<added { cursors[index].buffer.deallocate() }
    cursors.deinitialize(count: added)
    cursors.deallocate()
    heap.deallocate()
  }

  /// Adds a cursor, not yet in the heap.
  mutating func add(_ cursor: RunCursor) {
    (cursors + added).initialize(to: cursor)
    added += 1
  }

  /// The index of the cursor at the smallest key, `nil` when the heap is empty.
  var top: Int? { count > 0 ? heap[0] : nil }

  @inline(__always)
  private func precedes(_ first: Int, _ second: Int) -> Bool {
    let order = ExternalSorter.EntryLayout.compareKeys(cursors[first].entry, cursors[second].entry)
    return order != 0 ? order < 0 : first < second
  }

  /// Puts the cursor at `index` in the heap.
  mutating func push(_ index: Int) {
    var child = count
    count += 1
    while child > 0 {
      let parent = (child - 1) / 2
      guard precedes(index, heap[parent]) else { break }
      heap[child] = heap[parent]
      child = parent
    }
    heap[child] = index
  }

  /// Takes the top cursor out of the heap (its run is over).
  mutating func popTop() {
    count -= 1
    if count > 0 {
      heap[0] = heap[count]
      topMoved()
    }
  }

  /// Moves the top cursor down to its place after it advanced.
  mutating func topMoved() {
    let moved = heap[0]
    var parent = 0
    while true {
      var child = 2 * parent + 1
      guard child < count else { break }
      if child + 1 < count && precedes(heap[child + 1], heap[child]) { child += 1 }
      guard precedes(heap[child], moved) else { break }
      heap[parent] = heap[child]
      parent = child
    }
    heap[parent] = moved
  }
}
