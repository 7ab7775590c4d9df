/// A database file written page by page, in SQLite's file format
/// (sqlite.org/fileformat2.html), for b-trees built bottom up: every page but
/// the first is appended once, complete, in the order it is finished; page 1
/// (the file header and `sqlite_schema`) is written last, over its place.
///
/// The file is then an ordinary SQLite database: SQLite opens it, checks it
/// (`PRAGMA integrity_check`) and adds to it.
final class SQLitePageFile {
  /// Bytes a page: 16 KiB, as the rest of the database is written.
  let pageSize: Int
  /// The database as errors name it (the command line's name, not the temporary file's).
  let path: String
  private let descriptor: Int32
  /// Pages waiting to be written, in order, after the last written.
  private let buffer: UnsafeMutableRawPointer
  private let bufferPages = 64
  @exclusivity(unchecked) private var buffered = 0
  /// The pages in the file, page 1 counted.
  @exclusivity(unchecked) private(set) var pageCount: UInt32 = 1
  /// Where the bytes written but not yet handed to ``Platform/startWriteback(_:from:count:)``
  /// start: page 2 at first (page 1 is written last).
  @exclusivity(unchecked) private var writebackStart: Int64
  /// Bytes handed to the disk's writeback at a time.
  private static let writebackBytes: Int64 = 8 << 20

  /// Opens `file`, an empty file, for writing.
  ///
  /// - Parameters:
  ///   - name: The database as errors name it; `file` by default.
  /// - Throws: ``OutputFileError`` when it cannot be opened.
  init(path file: String, name: String? = nil, pageSize: Int = 16384) throws(OutputFileError) {
    precondition(pageSize >= 512 && pageSize <= 32768 && pageSize & (pageSize - 1) == 0)
    path = name ?? file
    self.pageSize = pageSize
    switch Platform.openForWriting(file) {
    case .success(let descriptor): self.descriptor = descriptor
    case .failure(let error): throw OutputFileError(path: path, message: error.description)
    }
    buffer = .allocate(byteCount: pageSize * bufferPages, alignment: 64)
    writebackStart = Int64(pageSize)
  }

  deinit {
    _ = Platform.close(descriptor)
    buffer.deallocate()
  }

  /// The number the next appended page gets.
  var nextPage: UInt32 { pageCount + 1 }

  /// Appends a page of ``pageSize`` bytes; returns its number.
  @discardableResult
  func append(_ page: UnsafeRawPointer) throws(OutputFileError) -> UInt32 {
    if buffered == bufferPages { try flush() }
    (buffer + buffered * pageSize).copyMemory(from: page, byteCount: pageSize)
    buffered += 1
    pageCount += 1
    return pageCount
  }

  /// Writes the buffered pages.
  private func flush() throws(OutputFileError) {
    guard buffered > 0 else { return }
    let first = Int(pageCount) - buffered + 1
    if let error = Platform.writeAll(
      descriptor, UnsafeRawBufferPointer(start: buffer, count: buffered * pageSize),
      at: Int64((first - 1) * pageSize))
    {
      throw OutputFileError(path: path, message: Platform.FileError(error).description)
    }
    buffered = 0
    // The file is flushed to disk before it replaces the target: written out a piece at a time
    // while the rest is made, it leaves the flush little to wait for.
    let end = Int64(pageCount) * Int64(pageSize)
    if end - writebackStart >= Self.writebackBytes {
      Platform.startWriteback(descriptor, from: writebackStart, count: end - writebackStart)
      writebackStart = end
    }
  }

  /// Writes the payload bytes after the first `local` as a chain of overflow
  /// pages (each a 4-byte next page number, 0 for the last, then content);
  /// returns the first page's number.
  func appendOverflow(_ payload: UnsafeRawBufferPointer, local: Int) throws(OutputFileError) -> UInt32 {
    let first = nextPage
    let room = pageSize - 4
    let page = UnsafeMutableRawPointer.allocate(byteCount: pageSize, alignment: 8)
    defer { page.deallocate() }
    var offset = local
    while offset < payload.count {
      let count = min(room, payload.count - offset)
      page.initializeMemory(as: UInt8.self, repeating: 0, count: pageSize)
      let next = offset + count < payload.count ? nextPage + 1 : 0
      SQLitePage.put32(next, at: 0, in: page)
      (page + 4).copyMemory(from: payload.baseAddress! + offset, byteCount: count)
      try append(page)
      offset += count
    }
    return first
  }

  /// The `sqlite_schema` rows (type, name, table name, SQL) of `table`,
  /// made by the statement `create`, and of the indexes made by `indexes`
  /// (one `CREATE INDEX name ON …` a line), in that order: each statement as
  /// SQLite keeps it, without `IF NOT EXISTS` or the closing semicolon.
  static func schemaRows(table: String, create: String, indexes: String)
    -> [(type: String, name: String, table: String, sql: String)]
  {
    func stored(_ sql: some StringProtocol) -> String {
      var text = sql.replacingOccurrences(of: "IF NOT EXISTS ", with: "")
      while text.last == ";" || text.last == "\n" { text.removeLast() }
      return text
    }
    let indexRows = indexes.split(separator: "\n").map { line in
      let sql = stored(line)
      // `CREATE INDEX name ON table (…)`
      return (type: "index", name: String(sql.split(separator: " ")[2]), table: table, sql: sql)
    }
    return [(type: "table", name: table, table: table, sql: stored(create))] + indexRows
  }

  /// Writes page 1: the 100-byte file header, then `sqlite_schema` as one
  /// table leaf holding `schema` (type, name, table name, root page, SQL).
  ///
  /// - Throws: ``OutputFileError`` when a write fails or the rows do not fit on the page.
  func finish(schema: [(type: String, name: String, table: String, root: UInt32, sql: String)])
    throws(OutputFileError)
  {
    try flush()
    let page = UnsafeMutableRawPointer.allocate(byteCount: pageSize, alignment: 8)
    defer { page.deallocate() }
    page.initializeMemory(as: UInt8.self, repeating: 0, count: pageSize)
    let header = Array("SQLite format 3".utf8) + [0]
    page.copyMemory(from: header, byteCount: 16)
    SQLitePage.put16(pageSize == 65536 ? 1 : pageSize, at: 16, in: page)
    let fixed: [(Int, UInt8)] = [(18, 1), (19, 1), (20, 0), (21, 64), (22, 32), (23, 32)]
    for (offset, value) in fixed { page.storeBytes(of: value, toByteOffset: offset, as: UInt8.self) }
    SQLitePage.put32(1, at: 24, in: page)  // file change counter
    SQLitePage.put32(pageCount, at: 28, in: page)  // pages in the file, valid while 92 equals 24
    SQLitePage.put32(1, at: 40, in: page)  // schema cookie
    SQLitePage.put32(4, at: 44, in: page)  // schema format
    SQLitePage.put32(1, at: 56, in: page)  // UTF-8
    SQLitePage.put32(1, at: 92, in: page)  // version-valid-for
    SQLitePage.put32(3_040_001, at: 96, in: page)
    var leaf = SQLitePage.Builder(page: page, size: pageSize, headerOffset: 100, kind: .tableLeaf)
    var encoder = SQLiteRecordEncoder()
    var cell = ByteBuffer()
    for (index, row) in schema.enumerated() {
      encoder.reset()
      for text in [row.type, row.name, row.table] {
        var text = text
        text.withUTF8 { encoder.text($0) }
      }
      encoder.integer(Int64(row.root))
      var sql = row.sql
      sql.withUTF8 { encoder.text($0) }
      encoder.finish()
      cell.removeAll()
      cell.appendVarint(UInt64(encoder.bytes.count))
      cell.appendVarint(UInt64(index + 1))
      cell.append(encoder.bytes)
      guard encoder.bytes.count <= pageSize - 35, leaf.add(cell.bytes) else {
        throw OutputFileError(path: path, message: "the schema does not fit on the first page")
      }
    }
    leaf.close()
    if let error = Platform.writeAll(descriptor, UnsafeRawBufferPointer(start: page, count: pageSize), at: 0)
    {
      throw OutputFileError(path: path, message: Platform.FileError(error).description)
    }
  }
}

/// One b-tree page being filled (sqlite.org/fileformat2.html, section 1.6):
/// a header, the 2-byte cell pointers after it in key order, and the cells
/// from the page's end towards them.
enum SQLitePage {
  /// The four kinds of b-tree page, by their first byte.
  enum Kind: UInt8 {
    case indexInterior = 2
    case tableInterior = 5
    case indexLeaf = 10
    case tableLeaf = 13

    /// Interior pages carry the right-most child's number in 4 more bytes.
    var headerSize: Int { self == .indexInterior || self == .tableInterior ? 12 : 8 }
  }

  /// Fills one page in memory: cells go in with ``add(_:)`` while they fit.
  struct Builder {
    let page: UnsafeMutableRawPointer
    let size: Int
    let headerOffset: Int
    let kind: Kind
    private(set) var cellCount = 0
    /// Where the lowest cell starts.
    private var contentStart: Int

    init(page: UnsafeMutableRawPointer, size: Int, headerOffset: Int = 0, kind: Kind) {
      self.page = page
      self.size = size
      self.headerOffset = headerOffset
      self.kind = kind
      contentStart = size
    }

    /// Whether a cell of `count` bytes still fits.
    func fits(_ count: Int) -> Bool {
      headerOffset + kind.headerSize + 2 * (cellCount + 1) <= contentStart - count
    }

    /// Adds a cell after the others in key order, if it fits.
    mutating func add(_ cell: UnsafeRawBufferPointer) -> Bool {
      guard fits(cell.count) else { return false }
      contentStart -= cell.count
      (page + contentStart).copyMemory(from: cell.baseAddress!, byteCount: cell.count)
      put16(contentStart, at: headerOffset + kind.headerSize + 2 * cellCount, in: page)
      cellCount += 1
      return true
    }

    /// Takes the last cell added off the page; returns its bytes.
    mutating func removeLast() -> [UInt8] {
      precondition(cellCount > 0)
      let pointers = headerOffset + kind.headerSize
      let end =
        cellCount > 1
        ? Int(
          UInt16(
            bigEndian: page.loadUnaligned(fromByteOffset: pointers + 2 * (cellCount - 2), as: UInt16.self)))
        : size
      let cell = Array(UnsafeRawBufferPointer(start: page + contentStart, count: end - contentStart))
      contentStart = end
      cellCount -= 1
      return cell
    }

    /// Writes the header: kind, no free blocks, the cell count, the content
    /// start, and for an interior page `right`; zeroes the free space
    /// between the cell pointers and the cells, which may hold an earlier page's bytes.
    func close(right: UInt32 = 0) {
      let gapStart = headerOffset + kind.headerSize + 2 * cellCount
      (page + gapStart).initializeMemory(as: UInt8.self, repeating: 0, count: contentStart - gapStart)
      let h = headerOffset
      page.storeBytes(of: kind.rawValue, toByteOffset: h, as: UInt8.self)
      put16(0, at: h + 1, in: page)
      put16(cellCount, at: h + 3, in: page)
      put16(contentStart == 65536 ? 0 : contentStart, at: h + 5, in: page)
      page.storeBytes(of: 0 as UInt8, toByteOffset: h + 7, as: UInt8.self)
      if kind.headerSize == 12 { put32(right, at: h + 8, in: page) }
    }
  }

  /// Stores a big-endian 16-bit number.
  @inline(__always)
  static func put16(_ value: Int, at offset: Int, in page: UnsafeMutableRawPointer) {
    page.storeBytes(of: UInt16(truncatingIfNeeded: value).bigEndian, toByteOffset: offset, as: UInt16.self)
  }

  /// Stores a big-endian 32-bit number.
  @inline(__always)
  static func put32(_ value: UInt32, at offset: Int, in page: UnsafeMutableRawPointer) {
    page.storeBytes(of: value.bigEndian, toByteOffset: offset, as: UInt32.self)
  }

  /// How many payload bytes a cell keeps on its page; the rest goes to
  /// overflow pages (sqlite.org/fileformat2.html, section 1.6, "Cell Payload
  /// Overflow Pages").
  ///
  /// - Parameters:
  ///   - payload: The payload's size.
  ///   - pageSize: The usable size of a page (no reserved bytes).
  ///   - table: A table b-tree leaf; otherwise an index b-tree page.
  static func localSize(payload: Int, pageSize: Int, table: Bool) -> Int {
    let u = pageSize
    let x = table ? u - 35 : (u - 12) * 64 / 255 - 23
    guard payload > x else { return payload }
    let m = (u - 12) * 32 / 255 - 23
    let k = m + (payload - m) % (u - 4)
    return k <= x ? k : m
  }
}
