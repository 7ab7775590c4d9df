/// Builds a rowid table's b-tree bottom up from rows in ascending rowid
/// order: leaves are filled and appended as they fill, and each level of
/// interior pages is filled from the one below (sqlite.org/fileformat2.html,
/// section 1.6). Memory holds one leaf and two pages a level.
final class SQLiteTableTree {
  private let file: SQLitePageFile
  private let page: UnsafeMutableRawPointer
  private var leaf: SQLitePage.Builder
  private var lastRowid: Int64 = .min
  private var leavesWritten = 0
  /// Interior levels, from the leaves' parents up.
  private var levels: [InteriorLevel] = []
  /// The leaf cell being made; interior cells are made in ``interiorCell``.
  private var cell: [UInt8] = []
  private var interiorCell: [UInt8] = []

  init(file: SQLitePageFile) {
    self.file = file
    page = .allocate(byteCount: file.pageSize, alignment: 8)
    page.initializeMemory(as: UInt8.self, repeating: 0, count: file.pageSize)
    leaf = SQLitePage.Builder(page: page, size: file.pageSize, kind: .tableLeaf)
  }

  deinit { page.deallocate() }

  /// Appends a row; `rowid` must be greater than the last row's.
  func append(rowid: Int64, payload: UnsafeRawBufferPointer) throws(OutputFileError) {
    precondition(rowid > lastRowid, "rows go in in ascending rowid order")
    let local = SQLitePage.localSize(payload: payload.count, pageSize: file.pageSize, table: true)
    cell.removeAll(keepingCapacity: true)
    SQLiteRecordEncoder.appendVarint(UInt64(payload.count), to: &cell)
    SQLiteRecordEncoder.appendVarint(UInt64(bitPattern: rowid), to: &cell)
    cell.append(contentsOf: UnsafeRawBufferPointer(rebasing: payload[0..<local]))
    if local < payload.count {
      let first = try file.appendOverflow(payload, local: local)
      withUnsafeBytes(of: first.bigEndian) { cell.append(contentsOf: $0) }
    }
    if !leaf.fits(cell.count) { try writeLeaf() }
    _ = cell.withUnsafeBytes { leaf.add($0) }
    lastRowid = rowid
  }

  private func writeLeaf() throws(OutputFileError) {
    leaf.close()
    let number = try file.append(page)
    leavesWritten += 1
    try add(InteriorLevel.Entry(child: number, key: lastRowid), level: 0)
    page.initializeMemory(as: UInt8.self, repeating: 0, count: file.pageSize)
    leaf = SQLitePage.Builder(page: page, size: file.pageSize, kind: .tableLeaf)
  }

  private func add(_ entry: InteriorLevel.Entry, level: Int) throws(OutputFileError) {
    if level == levels.count { levels.append(InteriorLevel(pageSize: file.pageSize)) }
    if let full = levels[level].add(entry) { try write(full, level: level) }
  }

  private func write(_ entries: [InteriorLevel.Entry], level: Int) throws(OutputFileError) {
    var builder = SQLitePage.Builder(page: page, size: file.pageSize, kind: .tableInterior)
    page.initializeMemory(as: UInt8.self, repeating: 0, count: file.pageSize)
    for entry in entries.dropLast() {
      interiorCell.removeAll(keepingCapacity: true)
      withUnsafeBytes(of: entry.child.bigEndian) { interiorCell.append(contentsOf: $0) }
      SQLiteRecordEncoder.appendVarint(UInt64(bitPattern: entry.key), to: &interiorCell)
      let added = interiorCell.withUnsafeBytes { builder.add($0) }
      precondition(added, "an interior level hands over only what fits")
    }
    builder.close(right: entries.last!.child)
    let number = try file.append(page)
    try add(InteriorLevel.Entry(child: number, key: entries.last!.key), level: level + 1)
  }

  /// Writes what is left, level by level; returns the root page's number
  /// (a lone leaf, empty for a table without rows, or the top interior page).
  func finish() throws(OutputFileError) -> UInt32 {
    if leavesWritten == 0 {
      leaf.close()
      return try file.append(page)
    }
    try writeLeaf()
    var level = 0
    while true {
      if levels[level].received == 1, level + 1 == levels.count || levels[level + 1].received == 0 {
        return levels[level].onlyChild
      }
      let pages = levels[level].finish()
      for entries in pages { try write(entries, level: level) }
      level += 1
    }
  }

  /// One level of interior pages: the current page's entries and the full
  /// page before it, kept until the current one has two children, so that
  /// no interior page ends up with none but its right-most child.
  private struct InteriorLevel {
    /// A child page and the largest rowid under it.
    struct Entry {
      var child: UInt32
      var key: Int64
    }

    let pageSize: Int
    private var current: [Entry] = []
    private var held: [Entry]?
    /// The current page's bytes: header and cells for all entries but the last.
    private var used = 12
    private(set) var received = 0

    init(pageSize: Int) { self.pageSize = pageSize }

    /// The one child the level was given.
    var onlyChild: UInt32 { current[0].child }

    /// Adds an entry; returns a full page's entries to write, if one is ready.
    mutating func add(_ entry: Entry) -> [Entry]? {
      received += 1
      var ready: [Entry]?
      if let last = current.last {
        let cost = 2 + 4 + SQLiteRecordEncoder.varintLength(UInt64(bitPattern: last.key))
        if used + cost > pageSize {
          ready = held
          held = current
          current = []
          used = 12
        } else {
          used += cost
        }
      }
      current.append(entry)
      if ready != nil, current.count >= 1 { return ready }
      return nil
    }

    /// The pages left to write, in order: a current page of one child takes the held page's last.
    mutating func finish() -> [[Entry]] {
      if current.count == 1, var before = held {
        current.insert(before.removeLast(), at: 0)
        held = before
      }
      defer {
        current = []
        held = nil
      }
      return (held.map { [$0] } ?? []) + [current]
    }
  }
}

/// Builds an index's b-tree bottom up from its entries in ascending order
/// (each an index record: the indexed columns, then the rowid).
///
/// In an index b-tree every entry is stored once: an entry between two
/// leaves moves up into their parent as its divider, and so on up
/// (sqlite.org/fileformat2.html, section 1.6). Each level keeps its last
/// full page until the page after it has a cell of its own, so that no page
/// but the root is ever left without one.
final class SQLiteIndexTree {
  private let file: SQLitePageFile
  private let page: UnsafeMutableRawPointer
  /// Level 0 holds the leaves.
  private var levels: [Level] = []
  /// The entry's cell being made; a page's cells are laid out in ``pageCell``.
  private var cell: [UInt8] = []
  private var pageCell: [UInt8] = []

  init(file: SQLitePageFile) {
    self.file = file
    page = .allocate(byteCount: file.pageSize, alignment: 8)
    levels = [Level(pageSize: file.pageSize, leaf: true)]
  }

  deinit { page.deallocate() }

  /// Appends the next entry in order.
  func append(_ payload: UnsafeRawBufferPointer) throws(OutputFileError) {
    let local = SQLitePage.localSize(payload: payload.count, pageSize: file.pageSize, table: false)
    cell.removeAll(keepingCapacity: true)
    SQLiteRecordEncoder.appendVarint(UInt64(payload.count), to: &cell)
    cell.append(contentsOf: UnsafeRawBufferPointer(rebasing: payload[0..<local]))
    if local < payload.count {
      let first = try file.appendOverflow(payload, local: local)
      withUnsafeBytes(of: first.bigEndian) { cell.append(contentsOf: $0) }
    }
    try add(cell: cell, level: 0)
  }

  /// Writes what is left, level by level; returns the root page's number.
  func finish() throws(OutputFileError) -> UInt32 {
    var level = 0
    while true {
      let (pages, isRoot) = levels[level].finish(hasParent: level + 1 < levels.count)
      var last: UInt32 = 0
      for (index, page) in pages.enumerated() {
        last = try write(page, level: level)
        if index + 1 < pages.count || !isRoot { try addChild(last, level: level + 1) }
        if let divider = page.divider { try add(cell: divider, level: level + 1) }
      }
      if isRoot { return last }
      level += 1
    }
  }

  private func add(cell: [UInt8], level: Int) throws(OutputFileError) {
    if level == levels.count { levels.append(Level(pageSize: file.pageSize, leaf: false)) }
    guard let full = levels[level].add(cell: cell) else { return }
    let number = try write(full, level: level)
    try addChild(number, level: level + 1)
    try add(cell: full.divider!, level: level + 1)
  }

  private func addChild(_ child: UInt32, level: Int) throws(OutputFileError) {
    if level == levels.count { levels.append(Level(pageSize: file.pageSize, leaf: false)) }
    levels[level].add(child: child)
  }

  /// Writes one page of `level`; returns its number.
  private func write(_ contents: Level.Page, level: Int) throws(OutputFileError) -> UInt32 {
    page.initializeMemory(as: UInt8.self, repeating: 0, count: file.pageSize)
    let leaf = level == 0
    var builder = SQLitePage.Builder(
      page: page, size: file.pageSize, kind: leaf ? .indexLeaf : .indexInterior)
    for index in 0..<contents.cellCount {
      pageCell.removeAll(keepingCapacity: true)
      if !leaf { withUnsafeBytes(of: contents.children[index].bigEndian) { pageCell.append(contentsOf: $0) } }
      pageCell += contents.cell(index)
      let added = pageCell.withUnsafeBytes { builder.add($0) }
      precondition(added, "a level hands over only what fits")
    }
    builder.close(right: leaf ? 0 : contents.children.last!)
    return try file.append(page)
  }

  /// One level of the index: the page being filled, and the full page before
  /// it with the entry that follows it (its divider, bound for the parent).
  private struct Level {
    /// A page's cells in order, for an interior page its children (one more
    /// than the cells), and the entry that goes up after it.
    struct Page {
      /// The cells' bytes, one after another, and where each ends.
      var bytes: [UInt8] = []
      var ends: [Int] = []
      var children: [UInt32] = []
      var divider: [UInt8]?

      var cellCount: Int { ends.count }

      /// Cell `index`'s bytes.
      func cell(_ index: Int) -> ArraySlice<UInt8> {
        bytes[(index == 0 ? 0 : ends[index - 1])..<ends[index]]
      }

      mutating func append(_ cell: some Collection<UInt8>) {
        bytes.append(contentsOf: cell)
        ends.append(bytes.count)
      }

      mutating func removeLast() -> [UInt8] {
        let start = ends.count > 1 ? ends[ends.count - 2] : 0
        let cell = Array(bytes[start...])
        bytes.removeSubrange(start...)
        ends.removeLast()
        return cell
      }

      /// Puts `cell` before the others.
      mutating func prepend(_ cell: [UInt8]) {
        bytes.insert(contentsOf: cell, at: 0)
        ends = [cell.count] + ends.map { $0 + cell.count }
      }
    }

    let pageSize: Int
    let leaf: Bool
    private var current = Page()
    private var used: Int
    private var held: Page?

    init(pageSize: Int, leaf: Bool) {
      self.pageSize = pageSize
      self.leaf = leaf
      used = leaf ? 8 : 12
    }

    /// The bytes a cell takes on the page, with its pointer.
    private func cost(_ cell: [UInt8]) -> Int { 2 + cell.count + (leaf ? 0 : 4) }

    /// Adds the next child of an interior page.
    mutating func add(child: UInt32) { current.children.append(child) }

    /// Adds the next cell; returns the held page, with its divider, once the
    /// page after it has a cell.
    mutating func add(cell: [UInt8]) -> Page? {
      if used + cost(cell) <= pageSize {
        current.append(cell)
        used += cost(cell)
        guard current.cellCount == 1, let ready = held else { return nil }
        held = nil
        return ready
      }
      // Full: the page is held, and the cell goes up after it.
      precondition(held == nil && current.cellCount > 0)
      var full = current
      full.divider = cell
      held = full
      current = Page()
      used = leaf ? 8 : 12
      return nil
    }

    /// The pages left to write, in order, and whether the last is the root.
    /// A held page whose successor has no cell gives it its last entry: its
    /// divider moves down into the successor, and its last cell becomes the divider.
    mutating func finish(hasParent: Bool) -> (pages: [Page], isRoot: Bool) {
      guard var before = held else { return ([current], !hasParent) }
      var after = current
      if after.cellCount == 0 {
        after.prepend(before.divider!)
        before.divider = before.removeLast()
        if !leaf { after.children.insert(before.children.removeLast(), at: 0) }
      }
      return ([before, after], false)
    }
  }
}
