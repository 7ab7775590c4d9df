/// Builds a rowid table's b-tree bottom up from rows in ascending rowid
/// order: leaves are filled and appended as they fill, and each level of
/// interior pages is filled from the one below (sqlite.org/fileformat2.html,
/// section 1.6). Memory holds one leaf and two pages a level.
final class SQLiteTableTree {
  private let file: SQLitePageFile
  private let page: UnsafeMutableRawPointer
  @exclusivity(unchecked) private var leaf: SQLitePage.Builder
  @exclusivity(unchecked) private var lastRowid: Int64 = .min
  /// Interior levels, from the leaves' parents up (none until a leaf is written).
  @exclusivity(unchecked) private var levels: [InteriorLevel] = []
  /// The leaf cell being made; interior cells are made in ``interiorCell``.
  @exclusivity(unchecked) private var cell = ByteBuffer()
  @exclusivity(unchecked) private var interiorCell = ByteBuffer()

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
    cell.removeAll()
    cell.appendVarint(UInt64(payload.count))
    cell.appendVarint(UInt64(bitPattern: rowid))
    cell.append(UnsafeRawBufferPointer(rebasing: payload[0..<local]))
    if local < payload.count { cell.append(bigEndian: try file.appendOverflow(payload, local: local)) }
    if !leaf.fits(cell.count) { try writeLeaf() }
    _ = leaf.add(cell.bytes)
    lastRowid = rowid
  }

  private func writeLeaf() throws(OutputFileError) {
    leaf.close()
    let number = try file.append(page)
    try add(InteriorLevel.Entry(child: number, key: lastRowid), level: 0)
    leaf = SQLitePage.Builder(page: page, size: file.pageSize, kind: .tableLeaf)
  }

  private func add(_ entry: InteriorLevel.Entry, level: Int) throws(OutputFileError) {
    if level == levels.count { levels.append(InteriorLevel(pageSize: file.pageSize)) }
    if let full = levels[level].add(entry) { try write(full, level: level) }
  }

  private func write(_ entries: [InteriorLevel.Entry], level: Int) throws(OutputFileError) {
    var builder = SQLitePage.Builder(page: page, size: file.pageSize, kind: .tableInterior)
    for entry in entries.dropLast() {
      interiorCell.removeAll()
      interiorCell.append(bigEndian: entry.child)
      interiorCell.appendVarint(UInt64(bitPattern: entry.key))
      let added = builder.add(interiorCell.bytes)
      precondition(added, "an interior level hands over only what fits")
    }
    builder.close(right: entries.last!.child)
    let number = try file.append(page)
    try add(InteriorLevel.Entry(child: number, key: entries.last!.key), level: level + 1)
  }

  /// Writes what is left, level by level; returns the root page's number
  /// (a lone leaf, empty for a table without rows, or the top interior page).
  func finish() throws(OutputFileError) -> UInt32 {
    if levels.isEmpty {
      leaf.close()
      return try file.append(page)
    }
    try writeLeaf()
    var level = 0
    while true {
      // A level given one child never filled a page, so nothing is above it.
      if levels[level].received == 1 { return levels[level].onlyChild }
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
        let cost = 2 + 4 + ByteBuffer.varintLength(UInt64(bitPattern: last.key))
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
      return ready
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
/// but the root is ever left without one. Leaves are filled in place; the
/// interior levels, one page for every hundred leaves or so, keep their cells as arrays.
final class SQLiteIndexTree {
  private let file: SQLitePageFile
  /// The leaf being filled, and the full one before it while it waits for its successor's first cell.
  @exclusivity(unchecked) private var leaf: SQLitePage.Builder
  @exclusivity(unchecked) private var held: SQLitePage.Builder?
  /// The entry after the held leaf, bound for the parent as its divider.
  @exclusivity(unchecked) private var candidate = ByteBuffer()
  /// The interior levels, the leaves' parents first.
  @exclusivity(unchecked) private var levels: [Level] = []
  @exclusivity(unchecked) private var cell = ByteBuffer()
  @exclusivity(unchecked) private var pageCell = ByteBuffer()
  /// The two leaf buffers (the leaf being filled uses one, the held leaf the
  /// other) and the buffer interior pages are laid out in.
  private let buffers: (UnsafeMutableRawPointer, UnsafeMutableRawPointer, interior: UnsafeMutableRawPointer)

  init(file: SQLitePageFile) {
    self.file = file
    func page() -> UnsafeMutableRawPointer {
      let page = UnsafeMutableRawPointer.allocate(byteCount: file.pageSize, alignment: 8)
      page.initializeMemory(as: UInt8.self, repeating: 0, count: file.pageSize)
      return page
    }
    buffers = (page(), page(), page())
    leaf = SQLitePage.Builder(page: buffers.0, size: file.pageSize, kind: .indexLeaf)
  }

  deinit {
    buffers.0.deallocate()
    buffers.1.deallocate()
    buffers.interior.deallocate()
  }

  /// Appends the next entry in order.
  func append(_ payload: UnsafeRawBufferPointer) throws(OutputFileError) {
    let local = SQLitePage.localSize(payload: payload.count, pageSize: file.pageSize, table: false)
    cell.removeAll()
    cell.appendVarint(UInt64(payload.count))
    cell.append(UnsafeRawBufferPointer(rebasing: payload[0..<local]))
    if local < payload.count { cell.append(bigEndian: try file.appendOverflow(payload, local: local)) }
    if held != nil {
      // The leaf after the held one gets its first cell: the held leaf and its divider go up.
      _ = leaf.add(cell.bytes)
      try writeHeld(divider: candidate.bytes)
      return
    }
    if leaf.add(cell.bytes) { return }
    // Full: it waits for the next entry, and this one goes up after it.
    let next = leaf.page == buffers.0 ? buffers.1 : buffers.0
    held = leaf
    leaf = SQLitePage.Builder(page: next, size: file.pageSize, kind: .indexLeaf)
    candidate.removeAll()
    candidate.append(cell.bytes)
  }

  /// Writes the held leaf; its number and `divider` go to the parent.
  private func writeHeld(divider: UnsafeRawBufferPointer) throws(OutputFileError) {
    guard let page = held else { return }
    page.close()
    let number = try file.append(page.page)
    held = nil
    try addChild(number, level: 0)
    try add(cell: divider, level: 0)
  }

  /// Writes what is left, level by level; returns the root page's number.
  func finish() throws(OutputFileError) -> UInt32 {
    if held != nil {
      // No entry came after the divider: it goes down into the last leaf,
      // and the held leaf's last entry goes up in its place.
      let last = held!.removeLast()
      _ = leaf.add(candidate.bytes)
      try withBytes(last) { last throws(OutputFileError) in try writeHeld(divider: last) }
    }
    leaf.close()
    let lastLeaf = try file.append(leaf.page)
    guard !levels.isEmpty else { return lastLeaf }
    try addChild(lastLeaf, level: 0)
    var level = 0
    while true {
      let (pages, isRoot) = levels[level].finish(hasParent: level + 1 < levels.count)
      var last: UInt32 = 0
      for (index, page) in pages.enumerated() {
        last = try write(page)
        if index + 1 < pages.count || !isRoot { try addChild(last, level: level + 1) }
        if let divider = page.divider {
          try withBytes(divider) { divider throws(OutputFileError) in try add(cell: divider, level: level + 1)
          }
        }
      }
      if isRoot { return last }
      level += 1
    }
  }

  private func add(cell: UnsafeRawBufferPointer, level: Int) throws(OutputFileError) {
    if level == levels.count { levels.append(Level(pageSize: file.pageSize)) }
    guard let full = levels[level].add(cell: cell) else { return }
    let number = try write(full)
    try addChild(number, level: level + 1)
    try withBytes(full.divider!) { divider throws(OutputFileError) in try add(cell: divider, level: level + 1)
    }
  }

  private func addChild(_ child: UInt32, level: Int) throws(OutputFileError) {
    if level == levels.count { levels.append(Level(pageSize: file.pageSize)) }
    levels[level].add(child: child)
  }

  /// Writes one interior page; returns its number.
  private func write(_ contents: Level.Page) throws(OutputFileError) -> UInt32 {
    var builder = SQLitePage.Builder(page: buffers.interior, size: file.pageSize, kind: .indexInterior)
    for index in 0..<contents.cellCount {
      pageCell.removeAll()
      pageCell.append(bigEndian: contents.children[index])
      contents.cell(index).withUnsafeBytes { pageCell.append($0) }
      let added = builder.add(pageCell.bytes)
      precondition(added, "a level hands over only what fits")
    }
    builder.close(right: contents.children.last!)
    return try file.append(buffers.interior)
  }

  /// One interior level of the index: the page being filled, and the full
  /// page before it with the entry that follows it (its divider, bound for the parent).
  private struct Level {
    /// A page's cells in order, its children (one more than the cells), and the entry that goes up after it.
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

      mutating func append(_ cell: UnsafeRawBufferPointer) {
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
    private var current = Page()
    private var used = 12
    private var held: Page?

    init(pageSize: Int) { self.pageSize = pageSize }

    /// Adds the next child.
    mutating func add(child: UInt32) { current.children.append(child) }

    /// Adds the next cell; returns the held page, with its divider, once the
    /// page after it has a cell.
    mutating func add(cell: UnsafeRawBufferPointer) -> Page? {
      let cost = 2 + 4 + cell.count
      if used + cost <= pageSize {
        current.append(cell)
        used += cost
        guard current.cellCount == 1, let ready = held else { return nil }
        held = nil
        return ready
      }
      // Full: the page is held, and the cell goes up after it.
      precondition(held == nil && current.cellCount > 0)
      var full = current
      full.divider = Array(cell)
      held = full
      current = Page()
      used = 12
      return nil
    }

    /// The pages left to write, in order, and whether the last is the root.
    /// A held page whose successor has no cell gives it its last child and
    /// entry: its divider moves down into the successor, and its last cell becomes the divider.
    mutating func finish(hasParent: Bool) -> (pages: [Page], isRoot: Bool) {
      guard var before = held else { return ([current], !hasParent) }
      var after = current
      if after.cellCount == 0 {
        after.prepend(before.divider!)
        before.divider = before.removeLast()
        after.children.insert(before.children.removeLast(), at: 0)
      }
      return ([before, after], false)
    }
  }
}
