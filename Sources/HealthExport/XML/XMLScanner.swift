import StepKitCore

/// What ``XMLScanner/next()`` found.
enum XMLToken {
  /// A start tag (or an empty-element tag, see ``XMLScanner/isSelfClosing``).
  case startTag
  /// An end tag.
  case endTag
  /// The input ended after the root element was closed.
  case endOfInput
  /// A scanner that ``XMLScanner/stopsAtSeam`` reached the end of its range;
  /// `atTopLevel` when it ended there inside the root element only, with no
  /// markup unfinished.
  case endOfRange(atTopLevel: Bool)
}

/// A streaming, byte-level XML scanner with bounded memory.
///
/// It pulls bytes from a ``ByteChunkSource`` into one reusable buffer and
/// reports start and end tags; everything else (the XML declaration, the
/// internal DTD subset, comments, processing instructions, CDATA, character
/// data) is checked for its end and skipped. The DTD is never interpreted, so
/// entity declarations are never expanded.
///
/// A tag is always whole in the buffer when it is reported, so its attributes
/// can be read in place until the next call to ``next()``. A token that
/// straddles two reads is carried to the front of the buffer; one larger than
/// ``maximumTokenBytes`` is an error rather than unbounded growth. Elements
/// are tracked on a byte stack, not by recursion, so nesting depth costs only
/// the names' bytes.
///
/// Lines are counted once per buffer with a vectorisable loop (which also
/// counts stray control characters such as `\u{0B}`); columns are computed
/// only when a location is asked for.
struct XMLScanner: ~Copyable {
  /// The largest token (tag, comment, DTD) held in memory: 64 MiB.
  static let defaultMaximumTokenBytes = 64 << 20
  /// The buffer size used for reading: 4 MiB.
  static let defaultBufferBytes = 4 << 20
  /// Bytes kept readable (zeroed) after the buffer's capacity, so that word-wide
  /// searches (``ByteScanning/findNear(_:in:from:to:)``) may read past a token's end:
  /// what every source that lends its buffers leaves after them (``ReadSlack``).
  static let slack = ReadSlack.bytes

  private var source: any ByteChunkSource
  /// Set when the source lends its buffers: the scanner then reads them in place.
  private let carrier: ChunkCarrier?
  /// The name used in errors and locations.
  let fileName: String
  let maximumTokenBytes: Int

  // The buffer: bytes [0, end) are valid; scanning continues at `pos`.
  private(set) var buffer: UnsafeMutablePointer<UInt8>
  private var capacity: Int
  var end = 0
  private var pos = 0
  private var atEndOfSource = false
  /// The stream offset of `buffer[0]`.
  private(set) var bufferOffset: Int64 = 0

  // Line tracking: newlines and control characters are counted in [0, counted).
  private var counted = 0
  private var linesBeforeCounted = 0
  /// Stream offset of the byte after the last newline before `counted`.
  private var lineStartBeforeCounted: Int64 = 0
  /// Stream offset of the byte after the last newline before `buffer[0]`.
  private var lineStartBeforeBuffer: Int64 = 0
  /// Stray control characters seen so far (exact once the input is done).
  private(set) var controlCharacters = 0

  // The element stack, as names packed into one byte array.
  private var stackBytes: UnsafeMutablePointer<UInt8>
  private var stackBytesCapacity = 256
  private var stackByteCount = 0
  private var stackEnds: UnsafeMutablePointer<Int>
  private var stackEndsCapacity = 64
  /// How many elements are open.
  private(set) var depth = 0
  private var rootSeen = false
  private var rootClosed = false
  private var doctypeSeen = false
  private var started = false

  // The current tag.
  /// Index of the tag's `<`.
  private(set) var tagStart = 0
  /// The tag's name: `buffer[nameStart ..< nameEnd]`.
  private(set) var nameStart = 0
  private(set) var nameEnd = 0
  /// Index of the tag's closing `>` (for an empty-element tag, the `/` before it).
  private(set) var attributesEnd = 0
  /// Whether the start tag was an empty-element tag (`<Record … />`).
  private(set) var isSelfClosing = false

  // The current start tag's attributes, lexed with it (see `lexAttributes(from:)`).
  var attributeStorage: UnsafeMutablePointer<XMLAttribute>
  var attributeCapacity = AttributeTemplate.slots
  /// How many attributes the current start tag has (0 for an end tag),
  /// once ``readAttributes()`` was called.
  var attributeCount = 0
  /// Whether the current start tag's attributes are still to be lexed, from
  /// `pendingAttributes.start` to the `>` at `pendingAttributes.close`, with
  /// `pendingAttributes.quotes` double quotes between.
  var attributesPending = false
  var pendingAttributes = (start: 0, close: 0, quotes: 0)
  /// How recent start tags' attributes were written: ``AttributeTemplate/ways``
  /// per position, for ``AttributeTemplate/slots`` positions.
  var templates: UnsafeMutablePointer<AttributeTemplate>
  /// Per position, the way that matched last (tried first) and the one replaced next.
  var lastWays: UnsafeMutablePointer<UInt8>
  var nextWays: UnsafeMutablePointer<UInt8>
  /// Counts template replacements, so that a layout names its templates exactly.
  var templateEpoch: UInt32 = 0
  /// Which templates the current start tag's attributes matched, or `nil`
  /// when one of them matched none (see ``AttributeLayout``).
  var attributeLayout: AttributeLayout?
  /// The names of the last two start tags read the careful way (see
  /// `recentTagNameEnd(at:)`).
  private var lastTagName = TagName()
  private var previousTagName = TagName()

  /// The name of the start tags that are handed out before their attributes
  /// are lexed, inside the root element (see ``isDeferred``); none when empty.
  var deferredTagName = TagName()
  /// Whether the current start tag was handed out with only its name read:
  /// its caller then either reads the attributes itself and ends the tag with
  /// ``commitDeferredTag(close:selfClosing:)``, or has them lexed as any
  /// other tag's with ``lexDeferredTag()``.
  private(set) var isDeferred = false
  /// The stream offset of a deferred tag that did not end in the buffer: it
  /// is read again without being deferred.
  private var undeferredTagOffset: Int64 = -1
  /// A start tag is deferred only with this many bytes from its `<` in the
  /// buffer, so that whoever reads it need not look for the buffer's end.
  static let deferralWindow = 4096

  /// The version in a `<!-- HealthKit Export Version: N -->` comment before
  /// the root element, when there was one.
  private(set) var exportVersion: Int?

  /// Bytes pulled from the source so far.
  private(set) var bytesRead: Int64 = 0
  /// How many times the buffer was refilled (for progress checks).
  private(set) var refills = 0
  /// Whether the source ends at a seam between two stretches of the XML
  /// rather than at its end: the end is then reported as
  /// ``XMLToken/endOfRange(atTopLevel:)`` instead of being checked.
  var stopsAtSeam = false

  /// Where a scanner that starts part way through an export picks up: just
  /// after a newline, inside the root element only, outside any markup.
  struct ResumePoint: Sendable {
    /// The stream offset of the first byte the source delivers.
    var byteOffset: Int64
    /// Newlines before it (its line is `linesBefore + 1`).
    var linesBefore: Int
    /// Stray control characters counted before it.
    var controlCharactersBefore: Int
    /// The root element's name.
    var rootName: [UInt8]
    /// Whether a DOCTYPE declaration came before the root.
    var doctypeSeen: Bool
    /// The export version found before the root.
    var exportVersion: Int?
  }

  /// Creates a scanner reading `source`.
  ///
  /// - Parameters:
  ///   - source: Where the bytes come from.
  ///   - bufferBytes: The initial buffer size (tests use tiny ones).
  ///   - maximumTokenBytes: The largest token the buffer grows to hold.
  init(
    source: any ByteChunkSource, bufferBytes: Int = XMLScanner.defaultBufferBytes,
    maximumTokenBytes: Int = XMLScanner.defaultMaximumTokenBytes
  ) {
    self.source = source
    self.fileName = source.displayName
    self.maximumTokenBytes = max(maximumTokenBytes, 16)
    // A small input needs no more than its own size (plus room to see its end).
    // The expected size is a claim (a zip directory's), clamped before any arithmetic.
    let expected =
      source.expectedByteCount.map { Int(clamping: min(max($0, 0), Int64(bufferBytes))) + 16 } ?? bufferBytes
    capacity = max(min(bufferBytes, expected), 4)
    carrier = ChunkCarrier(source: source)
    buffer = carrier?.initialWindow ?? Self.allocateBuffer(capacity)
    stackBytes = .allocate(capacity: stackBytesCapacity)
    stackEnds = .allocate(capacity: stackEndsCapacity)
    attributeStorage = .allocate(capacity: attributeCapacity)
    let templateCount = AttributeTemplate.slots * AttributeTemplate.ways
    templates = .allocate(capacity: templateCount)
    templates.initialize(repeating: AttributeTemplate(), count: templateCount)
    lastWays = .allocate(capacity: AttributeTemplate.slots)
    lastWays.initialize(repeating: 0, count: AttributeTemplate.slots)
    nextWays = .allocate(capacity: AttributeTemplate.slots)
    nextWays.initialize(repeating: 0, count: AttributeTemplate.slots)
  }

  deinit {
    if carrier == nil { buffer.deallocate() }
    stackBytes.deallocate()
    stackEnds.deallocate()
    attributeStorage.deallocate()
    templates.deallocate()
    lastWays.deallocate()
    nextWays.deallocate()
  }

  /// A zeroed buffer of `capacity` bytes and ``slack`` more.
  private static func allocateBuffer(_ capacity: Int) -> UnsafeMutablePointer<UInt8> {
    let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity + slack)
    buffer.initialize(repeating: 0, count: capacity + slack)
    return buffer
  }

  /// The total the source expects to deliver, when known.
  var expectedByteCount: Int64? { source.expectedByteCount }

  /// Newlines counted so far: all of them once the input or range is done.
  var linesCounted: Int { linesBeforeCounted }

  /// What a scanner resuming right where this one stopped would need, given
  /// that it stopped at top level (``XMLToken/endOfRange(atTopLevel:)``).
  var resumePoint: ResumePoint {
    let rootLength = depth > 0 ? stackEnds[0] : 0
    return ResumePoint(
      byteOffset: bytesRead, linesBefore: linesBeforeCounted, controlCharactersBefore: controlCharacters,
      rootName: Array(UnsafeBufferPointer(start: stackBytes, count: rootLength)), doctypeSeen: doctypeSeen,
      exportVersion: exportVersion)
  }

  /// Lets a scanner that reported ``XMLToken/endOfRange(atTopLevel:)`` read
  /// on, once its source has been given more bytes: the scan continues where
  /// it stopped, an unfinished token included.
  mutating func readPastRangeEnd(stopsAtSeam: Bool) {
    atEndOfSource = false
    self.stopsAtSeam = stopsAtSeam
  }

  /// Starts the scan at `point` instead of at the start of the XML: the
  /// source's first byte is then taken to be `point.byteOffset`, inside the
  /// root element. Call it before the first ``next()``.
  mutating func resume(at point: ResumePoint) {
    precondition(!started && bytesRead == 0, "resume(at:) comes before the scan")
    started = true
    rootSeen = true
    doctypeSeen = point.doctypeSeen
    exportVersion = point.exportVersion
    bufferOffset = point.byteOffset
    bytesRead = point.byteOffset
    lineStartBeforeCounted = point.byteOffset
    lineStartBeforeBuffer = point.byteOffset
    linesBeforeCounted = point.linesBefore
    controlCharacters = point.controlCharactersBefore
    point.rootName.withUnsafeBufferPointer { name in
      if let base = name.baseAddress, stackBytesCapacity >= name.count {
        stackBytes.update(from: base, count: name.count)
      } else if let base = name.baseAddress {
        stackBytes.deallocate()
        stackBytes = .allocate(capacity: name.count)
        stackBytesCapacity = name.count
        stackBytes.update(from: base, count: name.count)
      }
    }
    stackByteCount = point.rootName.count
    stackEnds[0] = stackByteCount
    depth = 1
  }

  // MARK: - Tokens

  /// Scans to the next start or end tag.
  ///
  /// - Returns: The token; its bytes stay valid until the next call.
  /// - Throws: ``HealthExportError/malformedXML(file:line:column:detail:)``,
  ///   ``HealthExportError/truncated(file:line:column:)``,
  ///   ``HealthExportError/tokenTooLarge(file:line:column:limit:)``,
  ///   ``HealthExportError/notAHealthExport(file:)``, or a read error.
  mutating func next() throws -> XMLToken {
    if !started { try start() }
    while true {
      // The next tag is usually a line feed and an indent away: look near first, without a call.
      guard let lt = ByteScanning.findNear(ASCII.lessThan, in: buffer, from: pos, to: end) else {
        if depth == 0 { try checkOutsideText(from: pos, to: end) }
        pos = end
        if try !refill(keeping: end) { return try finish() }
        continue
      }
      if depth == 0 { try checkOutsideText(from: pos, to: lt) }
      pos = lt
      switch try scanMarkup(at: lt) {
      case .needMore:
        if try !refill(keeping: lt) {
          if stopsAtSeam { return .endOfRange(atTopLevel: false) }
          throw truncatedError()
        }
      case .skipped:
        continue
      case .startTag:
        _checkInvariants(atTag: true)
        return .startTag
      case .endTag:
        _checkInvariants(atTag: true)
        return .endTag
      }
    }
  }

  private enum MarkupResult { case needMore, skipped, startTag, endTag }

  private mutating func start() throws {
    started = true
    while end < 4 {
      if try !refill(keeping: 0) { break }
    }
    // Skip a UTF-8 byte order mark.
    if end >= 3, buffer[0] == 0xEF, buffer[1] == 0xBB, buffer[2] == 0xBF { pos = 3 }
    if pos == 0, end >= 4, let encoding = Self.wideEncoding(buffer[0], buffer[1], buffer[2], buffer[3]) {
      throw HealthExportError.malformedXML(
        file: fileName, line: 1, column: 1,
        detail: "the file is \(encoding) text, but a Health export is UTF-8; convert it first"
          + " (iconv -f \(encoding.split(separator: " ")[0]) -t UTF-8)")
    }
  }

  /// The encoding of a document starting with these four bytes, when it is
  /// UTF-16 or UTF-32 (a byte order mark, or `<` in two or four bytes):
  /// `UTF-16LE (little-endian)`; `nil` for anything else.
  static func wideEncoding(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) -> String? {
    switch (a, b, c, d) {
    case (0x00, 0x00, 0xFE, 0xFF), (0x00, 0x00, 0x00, 0x3C): return "UTF-32BE (big-endian)"
    case (0xFF, 0xFE, 0x00, 0x00), (0x3C, 0x00, 0x00, 0x00): return "UTF-32LE (little-endian)"
    case (0xFE, 0xFF, _, _), (0x00, 0x3C, 0x00, _): return "UTF-16BE (big-endian)"
    case (0xFF, 0xFE, _, _), (0x3C, 0x00, _, 0x00): return "UTF-16LE (little-endian)"
    default: return nil
    }
  }

  /// Refuses an XML declaration (`buffer[from ..< to]`, after `<?xml`) that
  /// names an encoding other than UTF-8 (or its subset ASCII): its text would
  /// be read wrong (`é` in ISO-8859-1 is not UTF-8).
  private func checkDeclaredEncoding(from: Int, to: Int) throws {
    let declaration = UnsafeBufferPointer(start: buffer + from, count: to - from)
    let key = Array("encoding".utf8)
    guard
      let at = (0...max(0, declaration.count - key.count)).first(where: { index in
        index + key.count <= declaration.count && declaration[index..<index + key.count].elementsEqual(key)
      })
    else { return }
    var i = at + key.count
    while i < declaration.count, ByteScanning.isSpace(declaration[i]) || declaration[i] == ASCII.equals {
      i += 1
    }
    guard i < declaration.count, declaration[i] == ASCII.quote || declaration[i] == UInt8(ascii: "'") else {
      return
    }
    let quote = declaration[i]
    let valueStart = i + 1
    var valueEnd = valueStart
    while valueEnd < declaration.count, declaration[valueEnd] != quote { valueEnd += 1 }
    let name = String(decoding: declaration[valueStart..<valueEnd], as: UTF8.self)
    guard !["utf-8", "utf8", "us-ascii", "ascii"].contains(name.lowercased()) else { return }
    throw malformed(
      at: from + valueStart,
      "the XML declares encoding \(name), but StepKit reads UTF-8 exports only (the Health app writes"
        + " UTF-8); convert it first (iconv -f \(name) -t UTF-8)")
  }

  private mutating func finish() throws -> XMLToken {
    advanceCount(to: end)
    if stopsAtSeam { return .endOfRange(atTopLevel: depth == 1) }
    if depth > 0 { throw truncatedError() }
    guard rootSeen else { throw HealthExportError.notAHealthExport(file: fileName) }
    return .endOfInput
  }

  private func truncatedError() -> HealthExportError {
    let (line, column) = peekLineAndColumn(at: end)
    return .truncated(file: fileName, line: line, column: column)
  }

  /// Text outside the root element may only be white space.
  private func checkOutsideText(from: Int, to: Int) throws {
    var i = from
    while i < to {
      let b = buffer[i]
      if b > ASCII.space {
        if !rootSeen { throw HealthExportError.notAHealthExport(file: fileName) }
        throw malformed(at: i, "text after the root element")
      }
      i += 1
    }
  }

  /// Looks at the markup starting at `buffer[lt] == "<"`.
  private mutating func scanMarkup(at lt: Int) throws -> MarkupResult {
    guard lt + 1 < end else { return .needMore }
    let b = buffer[lt + 1]
    if b == ASCII.slash {  // </
      return try scanEndTag(at: lt)
    }
    if b == ASCII.exclamationMark {  // <!
      return try scanDeclaration(at: lt)
    }
    if b == ASCII.questionMark {  // <?
      guard let close = findSequence(ASCII.questionMark, ASCII.greaterThan, from: lt + 2) else {
        return .needMore
      }
      if !rootSeen, close - lt > 5, buffer[lt + 2] == UInt8(ascii: "x"), buffer[lt + 3] == UInt8(ascii: "m"),
        buffer[lt + 4] == UInt8(ascii: "l"), ByteScanning.isSpace(buffer[lt + 5])
      {
        try checkDeclaredEncoding(from: lt + 5, to: close)
      }
      pos = close + 2
      return .skipped
    }
    return try scanStartTag(at: lt)
  }

  private mutating func scanStartTag(at lt: Int) throws -> MarkupResult {
    if deferTag(at: lt) { return .startTag }
    isDeferred = false
    let afterName: Int
    if let known = recentTagNameEnd(at: lt + 1) {
      afterName = known
    } else {
      var i = lt + 1
      guard ByteScanning.isNameStart(buffer[i]) else {
        throw malformed(at: lt, "'<' not followed by a name")
      }
      i += 1
      while i < end, ByteScanning.isNameByte(buffer[i]) { i += 1 }
      guard i < end else { return .needMore }
      let c = buffer[i]
      guard ByteScanning.isSpace(c) || c == ASCII.greaterThan || c == ASCII.slash else {
        throw malformed(at: i, "unexpected character in the name of a tag")
      }
      afterName = i
      previousTagName = lastTagName
      lastTagName = TagName(buffer + lt + 1, length: i - (lt + 1))
    }
    attributesPending = false
    guard let close = try lexAttributes(from: afterName) else { return .needMore }
    return try finishStartTag(at: lt, afterName: afterName, close: close)
  }

  /// Ends the start tag at `lt` whose name ends at `afterName` and whose `>` is at `close`.
  @inline(__always)
  private mutating func finishStartTag(at lt: Int, afterName: Int, close: Int) throws -> MarkupResult {
    let selfClosing = close > afterName && buffer[close - 1] == ASCII.slash
    if rootClosed { throw malformed(at: lt, "a second root element") }
    tagStart = lt
    nameStart = lt + 1
    nameEnd = afterName
    attributesEnd = selfClosing ? close - 1 : close
    isSelfClosing = selfClosing
    if depth == 0 {
      rootSeen = true
    }
    pos = close + 1
    if selfClosing {
      if depth == 0 { rootClosed = true }
    } else {
      pushName(from: nameStart, to: nameEnd)
    }
    return .startTag
  }

  // MARK: - Deferred start tags

  /// Hands out the start tag at `lt` deferred (see ``isDeferred``) when it
  /// is one of ``deferredTagName`` inside the root, with ``deferralWindow``
  /// bytes in the buffer; `false` for any other.
  @inline(__always)
  private mutating func deferTag(at lt: Int) -> Bool {
    let deferred = deferredTagName.length
    guard deferred > 0, depth == 1, end &- lt >= Self.deferralWindow,
      deferredTagName.matches(buffer + lt + 1),
      buffer[lt &+ 1 &+ deferred] == ASCII.space, bufferOffset + Int64(lt) != undeferredTagOffset
    else { return false }
    // Inside the root only: no second root to look for, and `pos` stays at the name until the tag is ended.
    isDeferred = true
    attributesPending = false
    attributeCount = 0
    attributeLayout = nil
    tagStart = lt
    nameStart = lt + 1
    nameEnd = lt &+ 1 &+ deferred
    attributesEnd = nameEnd
    isSelfClosing = false
    pos = nameEnd
    return true
  }

  /// Moves on to the next tag and hands it out deferred, as ``next()``
  /// would, when it is one to defer, with only character data (passed over
  /// inside the root) before it; otherwise `false`, and nothing moves.
  ///
  /// A caller that reads deferred tags itself goes from one to the next
  /// without the rest of ``next()``.
  @inline(__always)
  mutating func deferNextTag() -> Bool {
    guard depth == 1, let lt = ByteScanning.findNear(ASCII.lessThan, in: buffer, from: pos, to: end) else {
      return false
    }
    guard deferTag(at: lt) else { return false }
    _checkInvariants(atTag: true)
    return true
  }

  /// Lexes the deferred start tag's attributes, as those of a tag not
  /// deferred are, for a caller that did not read them itself.
  ///
  /// - Returns: `false` when the tag does not end in the buffer: the scanner
  ///   then goes back to its `<`, and the next ``next()`` reads it again, not
  ///   deferred.
  /// - Throws: What ``next()`` would have thrown for the tag.
  mutating func lexDeferredTag() throws -> Bool {
    precondition(isDeferred, "lexDeferredTag() follows a deferred start tag")
    isDeferred = false
    guard let close = try lexAttributes(from: nameEnd) else {
      undeferredTagOffset = bufferOffset + Int64(tagStart)
      pos = tagStart
      return false
    }
    _ = try finishStartTag(at: tagStart, afterName: nameEnd, close: close)
    return true
  }

  /// Ends the deferred start tag at `close`, its `>`, for a caller that read
  /// its attributes itself and checked every byte of it.
  ///
  /// The caller vouches for what the lexer would have checked: the bytes
  /// from the name to `close` are attributes written ` name="value"`, with no
  /// `"`, `<`, line feed or control character in any value, so the tag holds
  /// no line to count. ``attributeCount`` is 0 afterwards.
  ///
  /// - Parameters:
  ///   - close: The index of the tag's `>`, less than ``deferralWindow`` bytes after its `<`.
  ///   - selfClosing: Whether the tag ends with `/>`.
  // Out of line: inlined into the record loop, it cost the attribute lexer there registers.
  @inline(never)
  mutating func commitDeferredTag(close: Int, selfClosing: Bool) {
    precondition(isDeferred && close > nameEnd && close < tagStart + Self.deferralWindow)
    isDeferred = false
    passOverUncounted(to: close)
    attributesEnd = selfClosing ? close &- 1 : close
    isSelfClosing = selfClosing
    pos = close &+ 1
    if !selfClosing { pushName(from: nameStart, to: nameEnd) }
    _checkInvariants(atTag: true)
  }

  /// Ends the deferred start tag at `close` and its whole element, up to its
  /// end tag's `>` at `end`, for a caller that checked every byte of both
  /// and of what lies between; the scan goes on after `end`, the element closed.
  ///
  /// The caller vouches for the start tag as for
  /// ``commitDeferredTag(close:selfClosing:)``, and for the content: child
  /// elements that the lexer would pass over and that hold no line feed or
  /// control character, between them only spaces and `lines` line feeds,
  /// the last just before `lastLineStart`.
  mutating func commitDeferredElement(close: Int, end: Int, lines: Int, lastLineStart: Int) {
    precondition(isDeferred && close > nameEnd && end > close && end < tagStart + Self.deferralWindow)
    isDeferred = false
    let counting = counted <= tagStart
    passOverUncounted(to: close)
    if counting {
      linesBeforeCounted &+= lines
      if lines > 0 { lineStartBeforeCounted = bufferOffset &+ Int64(lastLineStart) }
      counted = end &+ 1
    }
    attributesEnd = close
    isSelfClosing = false
    pos = end &+ 1
    _checkInvariants(atTag: true)
  }

  /// Counts what lies before the current tag (usually a line feed and an
  /// indent) and passes over the tag, up to `close`, which holds no line.
  @inline(__always)
  private mutating func passOverUncounted(to close: Int) {
    // A location asked for inside the tag already counted past its start: the rest is counted later.
    guard counted <= tagStart else { return }
    advanceCountToTag()
    counted = close &+ 1
  }

  /// A line feed followed by seven spaces, as one little-endian word.
  private static let lineFeedAndSpaces: UInt64 = 0x2020_2020_2020_200A

  /// ``advanceCount(to:)`` up to the current tag's `<`, with one word
  /// compare for what usually lies before it: a line feed and at most seven
  /// spaces, which hold one line and no control character. Anything else is
  /// counted byte by byte, out of line.
  @inline(__always)
  private mutating func advanceCountToTag() {
    let gap = tagStart &- counted
    // 1 ... 8 bytes: the word read from `counted` ends before the tag's end, in the buffer.
    if UInt(bitPattern: gap &- 1) < 8 {
      let word = UInt64(littleEndian: UnsafeRawPointer(buffer + counted).loadUnaligned(as: UInt64.self))
      let mask = UInt64.max &>> UInt64(truncatingIfNeeded: 64 &- 8 &* gap)
      if (word ^ Self.lineFeedAndSpaces) & mask == 0 {
        linesBeforeCounted &+= 1
        lineStartBeforeCounted = bufferOffset &+ Int64(counted &+ 1)
        counted = tagStart
        return
      }
    }
    advanceCountOutOfLine(to: tagStart)
  }

  /// ``advanceCount(to:)``, kept out of the callers that inline the common case.
  @inline(never)
  private mutating func advanceCountOutOfLine(to index: Int) {
    advanceCount(to: index)
  }

  /// Where the name at `start` ends when it is one of the last two start
  /// tags' names followed by what may follow a name (white space, `>`, `/`);
  /// otherwise `nil`, for the careful walk.
  @inline(__always)
  private func recentTagNameEnd(at start: Int) -> Int? {
    @inline(__always) func knownEnd(of name: TagName) -> Int? {
      let after = start &+ name.length
      guard name.length > 0, after < end, name.matches(buffer + start) else { return nil }
      let c = buffer[after]
      return ByteScanning.isSpace(c) || c == ASCII.greaterThan || c == ASCII.slash ? after : nil
    }
    return knownEnd(of: lastTagName) ?? knownEnd(of: previousTagName)
  }

  private mutating func scanEndTag(at lt: Int) throws -> MarkupResult {
    // Usually the open element's name and `>` at once: compared in one go.
    if depth > 0 {
      let topStart = depth > 1 ? stackEnds[depth - 2] : 0
      let topLength = stackEnds[depth - 1] - topStart
      let close = lt &+ 2 &+ topLength
      if close < end, buffer[close] == ASCII.greaterThan,
        ByteScanning.equal(buffer + lt + 2, stackBytes + topStart, count: topLength)
      {
        return closeElement(endTagAt: lt, nameEnd: close, close: close, openNameStart: topStart)
      }
    }
    var i = lt + 2
    guard i < end else { return .needMore }
    guard ByteScanning.isNameStart(buffer[i]) else { throw malformed(at: lt, "'</' not followed by a name") }
    while i < end, ByteScanning.isNameByte(buffer[i]) { i += 1 }
    let nameEnd = i
    while i < end, ByteScanning.isSpace(buffer[i]) { i += 1 }
    guard i < end else { return .needMore }
    guard buffer[i] == ASCII.greaterThan else { throw malformed(at: i, "unexpected character in an end tag") }
    guard depth > 0 else {
      throw malformed(at: lt, "end tag </\(text(lt + 2, nameEnd))> with no open element")
    }
    let topStart = depth > 1 ? stackEnds[depth - 2] : 0
    let topLength = stackEnds[depth - 1] - topStart
    let length = nameEnd - (lt + 2)
    guard length == topLength, Platform.bytesEqual(buffer + lt + 2, stackBytes + topStart, count: length)
    else {
      let expected = String(
        decoding: UnsafeBufferPointer(start: stackBytes + topStart, count: topLength), as: UTF8.self)
      throw malformed(at: lt, "end tag </\(text(lt + 2, nameEnd))> does not match <\(expected)>")
    }
    return closeElement(endTagAt: lt, nameEnd: nameEnd, close: i, openNameStart: topStart)
  }

  /// Ends the open element at the end tag at `lt`, whose name ends at
  /// `nameEnd` and whose `>` is at `close`; `openNameStart` is where the
  /// element's name starts on the stack.
  @inline(__always)
  private mutating func closeElement(endTagAt lt: Int, nameEnd: Int, close: Int, openNameStart: Int)
    -> MarkupResult
  {
    tagStart = lt
    nameStart = lt + 2
    self.nameEnd = nameEnd
    attributesEnd = nameEnd
    isSelfClosing = false
    isDeferred = false
    attributeCount = 0
    attributesPending = false
    depth -= 1
    stackByteCount = openNameStart
    if depth == 0 { rootClosed = true }
    pos = close + 1
    return .endTag
  }

  /// `<!--`, `<![CDATA[`, `<!DOCTYPE`.
  private mutating func scanDeclaration(at lt: Int) throws -> MarkupResult {
    guard lt + 9 <= end || atEndOfSource else { return .needMore }
    if ByteScanning.matches(buffer, at: lt, limit: end, "<!--") {
      guard let close = findComment(from: lt + 4) else { return .needMore }
      if !rootSeen && exportVersion == nil { exportVersion = versionComment(lt + 4, close) }
      pos = close + 3
      return .skipped
    }
    if ByteScanning.matches(buffer, at: lt, limit: end, "<![CDATA[") {
      guard depth > 0 else { throw malformed(at: lt, "CDATA outside the root element") }
      guard let close = findCDATAEnd(from: lt + 9) else { return .needMore }
      pos = close + 3
      return .skipped
    }
    if ByteScanning.matches(buffer, at: lt, limit: end, "<!DOCTYPE") {
      guard !rootSeen, !doctypeSeen else {
        throw malformed(at: lt, "a DOCTYPE declaration in the wrong place")
      }
      guard let close = try findDoctypeEnd(from: lt + 9) else { return .needMore }
      doctypeSeen = true
      pos = close + 1
      return .skipped
    }
    guard lt + 9 <= end else { return .needMore }
    throw malformed(at: lt, "unexpected markup declaration")
  }

  /// The index of `-->` at or after `from`.
  private func findComment(from: Int) -> Int? {
    var i = from
    while let dash = ByteScanning.find(ASCII.hyphen, in: buffer, from: i, to: end) {
      if dash + 2 >= end { return nil }
      if buffer[dash + 1] == ASCII.hyphen && buffer[dash + 2] == ASCII.greaterThan { return dash }
      i = dash + 1
    }
    return nil
  }

  private func findCDATAEnd(from: Int) -> Int? {
    var i = from
    while let bracket = ByteScanning.find(ASCII.rightBracket, in: buffer, from: i, to: end) {
      if bracket + 2 >= end { return nil }
      if buffer[bracket + 1] == ASCII.rightBracket && buffer[bracket + 2] == ASCII.greaterThan {
        return bracket
      }
      i = bracket + 1
    }
    return nil
  }

  /// The index of a two-byte sequence at or after `from`.
  private func findSequence(_ first: UInt8, _ second: UInt8, from: Int) -> Int? {
    var i = from
    while let hit = ByteScanning.find(first, in: buffer, from: i, to: end) {
      if hit + 1 >= end { return nil }
      if buffer[hit + 1] == second { return hit }
      i = hit + 1
    }
    return nil
  }

  /// Finds the `>` that ends a DOCTYPE declaration without interpreting it.
  ///
  /// Inside the internal subset (`[ … ]`) quoted strings and comments are
  /// stepped over whole, and the subset ends at `]` followed by optional white
  /// space and `>`, so a declaration missing its own `>` (the iOS 16 export
  /// writes one) does not matter.
  private mutating func findDoctypeEnd(from: Int) throws -> Int? {
    var i = from
    var inSubset = false
    while i < end {
      let b = buffer[i]
      switch b {
      case ASCII.quote, ASCII.apostrophe:
        guard let close = ByteScanning.find(b, in: buffer, from: i + 1, to: end) else { return nil }
        i = close + 1
      case ASCII.leftBracket where !inSubset:
        inSubset = true
        i += 1
      case ASCII.rightBracket where inSubset:
        var j = i + 1
        while j < end, ByteScanning.isSpace(buffer[j]) { j += 1 }
        guard j < end else { return nil }
        if buffer[j] == ASCII.greaterThan { return j }
        i = j
      case ASCII.greaterThan where !inSubset:
        return i
      case ASCII.lessThan where inSubset:
        if ByteScanning.matches(buffer, at: i, limit: end, "<!--") {
          guard let close = findComment(from: i + 4) else { return nil }
          if exportVersion == nil { exportVersion = versionComment(i + 4, close) }
          i = close + 3
        } else {
          guard i + 4 <= end else { return nil }
          i += 1
        }
      default:
        i += 1
      }
    }
    return nil
  }

  /// The N of ` HealthKit Export Version: N ` in a comment's text.
  private func versionComment(_ from: Int, _ to: Int) -> Int? {
    let marker: StaticString = "HealthKit Export Version:"
    var i = from
    while i < to, ByteScanning.isSpace(buffer[i]) { i += 1 }
    guard ByteScanning.matches(buffer, at: i, limit: to, marker) else { return nil }
    i += marker.utf8CodeUnitCount
    while i < to, ByteScanning.isSpace(buffer[i]) { i += 1 }
    var value = 0
    var digits = 0
    while i < to, buffer[i] >= ASCII.zero, buffer[i] <= ASCII.nine, digits < 9 {
      value = value * 10 + Int(buffer[i] - ASCII.zero)
      digits += 1
      i += 1
    }
    return digits > 0 ? value : nil
  }

  // MARK: - The element stack

  private mutating func pushName(from: Int, to: Int) {
    let length = to - from
    if stackByteCount + length > stackBytesCapacity {
      let newCapacity = max(stackBytesCapacity * 2, stackByteCount + length)
      let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
      grown.update(from: stackBytes, count: stackByteCount)
      stackBytes.deallocate()
      stackBytes = grown
      stackBytesCapacity = newCapacity
    }
    if depth == stackEndsCapacity {
      let newCapacity = stackEndsCapacity * 2
      let grown = UnsafeMutablePointer<Int>.allocate(capacity: newCapacity)
      grown.update(from: stackEnds, count: depth)
      stackEnds.deallocate()
      stackEnds = grown
      stackEndsCapacity = newCapacity
    }
    (stackBytes + stackByteCount).update(from: buffer + from, count: length)
    stackByteCount += length
    stackEnds[depth] = stackByteCount
    depth += 1
  }

  // MARK: - Reading

  /// Moves `buffer[keep ..< end]` to the front, grows the buffer when that
  /// fills it, and reads more.
  ///
  /// - Returns: `false` when the source is exhausted and nothing was added.
  private mutating func refill(keeping keep: Int) throws -> Bool {
    if atEndOfSource { return false }
    advanceCount(to: keep)
    if let carrier { return try refill(keeping: keep, from: carrier) }
    if keep > 0 {
      let live = end - keep
      if live > 0 { buffer.update(from: buffer + keep, count: live) }
      end = live
      lineStartBeforeBuffer = lineStartBeforeCounted
      pos -= keep
      counted -= keep
      bufferOffset += Int64(keep)
    }
    if end == capacity {
      guard capacity < maximumTokenBytes else {
        let (line, column) = lineAndColumn(at: 0)
        throw HealthExportError.tokenTooLarge(
          file: fileName, line: line, column: column, limit: maximumTokenBytes)
      }
      let newCapacity = min(capacity * 2, maximumTokenBytes)
      let grown = Self.allocateBuffer(newCapacity)
      grown.update(from: buffer, count: end)
      buffer.deallocate()
      buffer = grown
      capacity = newCapacity
    }
    let got = try source.read(into: UnsafeMutableRawBufferPointer(start: buffer + end, count: capacity - end))
    refills += 1
    if got == 0 {
      atEndOfSource = true
      return false
    }
    end += got
    bytesRead += Int64(got)
    _checkInvariants(atTag: false)
    return true
  }

  /// ``refill(keeping:)`` over borrowed buffers: the same bookkeeping, with
  /// the window moved by `carrier` instead of bytes copied in.
  private mutating func refill(keeping keep: Int, from carrier: ChunkCarrier) throws -> Bool {
    switch try carrier.refill(window: buffer, keep: keep, end: end, maximumTokenBytes: maximumTokenBytes) {
    case .endOfSource:
      atEndOfSource = true
      return false
    case .tokenTooLarge:
      let (line, column) = lineAndColumn(at: keep)
      throw HealthExportError.tokenTooLarge(
        file: fileName, line: line, column: column, limit: maximumTokenBytes)
    case .window(let base, let newEnd):
      let live = end - keep
      if keep > 0 {
        lineStartBeforeBuffer = lineStartBeforeCounted
        pos -= keep
        counted -= keep
        bufferOffset += Int64(keep)
      }
      buffer = base
      end = newEnd
      refills += 1
      bytesRead += Int64(newEnd - live)
      _checkInvariants(atTag: false)
      return true
    }
  }

  // MARK: - Locations

  /// Counts lines and control characters up to buffer index `index`.
  @inline(__always)
  private mutating func advanceCount(to index: Int) {
    guard index > counted else { return }
    if index &- counted <= 16 {
      // A few bytes (between two records: a line feed and an indent), byte by byte.
      var i = counted
      while i < index {
        let b = buffer[i]
        if b == ASCII.lineFeed {
          linesBeforeCounted &+= 1
          lineStartBeforeCounted = bufferOffset &+ Int64(i &+ 1)
        } else if b < ASCII.space && b != ASCII.tab && b != ASCII.carriageReturn {
          controlCharacters &+= 1
        }
        i &+= 1
      }
      counted = index
      return
    }
    let (lines, controls) = ByteScanning.countLinesAndControls(buffer + counted, index - counted)
    if lines > 0 {
      linesBeforeCounted += lines
      if let start = ByteScanning.lineStart(buffer, before: index) {
        lineStartBeforeCounted = bufferOffset + Int64(start)
      }
    }
    controlCharacters += controls
    counted = index
  }

  /// The 1-based line and byte column of buffer index `index`.
  mutating func lineAndColumn(at index: Int) -> (line: Int, column: Int) {
    if index >= counted {
      advanceCount(to: index)
      return (linesBeforeCounted + 1, Int(bufferOffset + Int64(index) - lineStartBeforeCounted) + 1)
    }
    return lineAndColumn(behindCounted: index)
  }

  /// A location for buffer index `index`.
  mutating func location(at index: Int) -> SourceLocation {
    let (line, column) = lineAndColumn(at: index)
    return SourceLocation(file: fileName, line: line, column: column, byteOffset: bufferOffset + Int64(index))
  }

  /// The line and column of buffer index `index`, without moving the counted point.
  func peekLineAndColumn(at index: Int) -> (line: Int, column: Int) {
    if index >= counted {
      let (lines, _) = ByteScanning.countLinesAndControls(buffer + counted, index - counted)
      if lines > 0, let start = ByteScanning.lineStart(buffer, before: index) {
        return (linesBeforeCounted + lines + 1, index - start + 1)
      }
      return (linesBeforeCounted + 1, Int(bufferOffset + Int64(index) - lineStartBeforeCounted) + 1)
    }
    return lineAndColumn(behindCounted: index)
  }

  /// The line and column of buffer index `index` behind the counted point
  /// (still in the buffer), counted back from it.
  private func lineAndColumn(behindCounted index: Int) -> (line: Int, column: Int) {
    let (lines, _) = ByteScanning.countLinesAndControls(buffer + index, counted - index)
    let line = linesBeforeCounted - lines + 1
    if let start = ByteScanning.lineStart(buffer, before: index) {
      return (line, index - start + 1)
    }
    return (line, Int(bufferOffset + Int64(index) - lineStartBeforeBuffer) + 1)
  }

  /// A malformed-XML error at buffer index `index`.
  func malformed(at index: Int, _ detail: String) -> HealthExportError {
    let (line, column) = peekLineAndColumn(at: index)
    return .malformedXML(file: fileName, line: line, column: column, detail: detail)
  }

  /// The bytes `buffer[from ..< to]` as text (for messages).
  func text(_ from: Int, _ to: Int) -> String {
    let length = min(max(to - from, 0), 200)
    return String(decoding: UnsafeBufferPointer(start: buffer + from, count: length), as: UTF8.self)
  }

  /// `byte` as itself when printable ASCII, else as `\u{…}` (for messages).
  static func printable(_ byte: UInt8) -> String {
    byte >= ASCII.space && byte < 127 ? String(UnicodeScalar(byte)) : "\\u{\(String(byte, radix: 16))}"
  }

  // MARK: - Internal checks

  /// Checks the buffer, the line count, the element stack and the current
  /// tag against each other (with `STEPKIT_INTERNAL_CHECKS`; nothing
  /// otherwise): after every refill, with `atTag` after every tag handed out.
  @inline(__always)
  func _checkInvariants(atTag: Bool) {
    #if STEPKIT_INTERNAL_CHECKS
      _checkInvariantsInFull(atTag: atTag)
    #endif
  }

  #if STEPKIT_INTERNAL_CHECKS
    @inline(never)
    private func _checkInvariantsInFull(atTag: Bool) {
      precondition(0 <= pos && pos <= end, "the scan position \(pos) is outside the buffer's 0 ..< \(end)")
      precondition(carrier != nil || end <= capacity, "the buffer holds \(end) bytes in \(capacity)")
      precondition(
        bufferOffset + Int64(end) == bytesRead, "the buffer's offset and length miss the bytes read")
      precondition(0 <= counted && counted <= end, "lines are counted to \(counted), outside 0 ... \(end)")
      precondition(
        lineStartBeforeBuffer <= bufferOffset && lineStartBeforeCounted <= bufferOffset + Int64(counted),
        "a line starts after the bytes counted")
      // Word-wide searches read up to the slack past the end: the last byte of it must be readable
      // (AddressSanitizer stops here when it is not).
      precondition(buffer[end + Self.slack - 1] | 1 != 0)
      precondition(0 <= depth && depth <= stackEndsCapacity, "the element stack holds \(depth) names")
      precondition(stackByteCount <= stackBytesCapacity, "the element stack's names overflow it")
      // The names pushed last: a tag pushes or pops only the top one, and each name below was
      // checked while it was near the top (walking a 200,000-deep stack at every tag would make
      // a deep nest take quadratic time).
      let checked = min(depth, 64)
      var previous = depth > checked ? stackEnds[depth - checked - 1] : 0
      for index in depth - checked..<depth {
        precondition(stackEnds[index] > previous, "an empty or misordered name on the element stack")
        previous = stackEnds[index]
      }
      precondition(previous == stackByteCount, "the element stack's names do not end where its bytes do")
      precondition(attributeCount <= attributeCapacity, "more attributes than their storage holds")
      precondition(
        !rootClosed || depth == 0, "the root element is closed with \(depth) elements open")
      guard atTag else { return }
      precondition(
        tagStart <= nameStart && nameStart <= nameEnd && nameEnd <= end,
        "the current tag's name is outside it")
      precondition(!isDeferred || tagStart + Self.deferralWindow <= end, "a deferred tag without its window")
      if attributesPending {
        precondition(
          nameEnd <= pendingAttributes.start && pendingAttributes.start <= pendingAttributes.close
            && pendingAttributes.close < end, "pending attributes outside the tag")
      }
    }
  #endif

  // MARK: - Reading the current tag

  /// Whether the current tag's name is `name`.
  @inline(__always)
  func nameIs(_ name: StaticString) -> Bool {
    nameEnd - nameStart == name.utf8CodeUnitCount && ByteScanning.equal(buffer + nameStart, name)
  }

  /// The current tag's name as a `String`.
  var name: String { text(nameStart, nameEnd) }
}
