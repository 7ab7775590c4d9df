// The scanner's three attribute lexers: the walk of a tag written as expected
// (`lexExpectedAttributes`), the templates of the tags before it
// (`lexTemplatedAttributes`) and attribute by attribute (`lexAttributesOneByOne`),
// with what they share.
extension XMLScanner {
  /// Finds the end of the start tag whose name ends at `start`, checking
  /// its attributes' syntax.
  ///
  /// The common case takes one pass over the tag's bytes: up to the first
  /// `>` they hold no `<` and no `'`, and an even number of `"`, so that `>`
  /// lies outside every value and ends the tag. Its attributes are then
  /// lexed only when asked for (``readAttributes()``), most records being
  /// passed over on their type. Anything else is lexed now, with the
  /// templates or attribute by attribute (`lexAttributesOneByOne(from:)`).
  ///
  /// - Returns: The index of the closing `>`, or `nil` when the buffer ends first.
  mutating func lexAttributes(from start: Int) throws -> Int? {
    // Without a `>` the tag is not all here: wait for it, so that which path
    // judges a tag (and so which errors are found) never depends on where a
    // buffer happens to end.
    guard let gt = ByteScanning.find(ASCII.greaterThan, in: buffer, from: start, to: end) else {
      return nil
    }
    if let counts = ByteScanning.quotesUnlessLessThan(buffer + start, gt &- start), counts.quotes & 1 == 0 {
      if counts.apostrophes == 0 {
        attributesPending = true
        pendingAttributes = (start, gt, counts.quotes)
        return gt
      }
      if let close = lexTemplatedAttributes(from: start, to: gt, quotes: counts.quotes) { return close }
    }
    return try lexAttributesOneByOne(from: start)
  }

  /// Lexes the current start tag's attributes when finding its end left
  /// them for later; ``attributeCount``, ``attribute(_:)`` and
  /// ``attributeLayout`` describe the tag only after this call.
  ///
  /// A tag written as the ones before it is read with one compare per
  /// attribute: every attribute must start with a template's bytes (its
  /// white space, name, `=` and `"`, checked when the template was made) and
  /// its value end where the same position's value ended last time, or at
  /// the next `"`. When the quotes so found are all the tag's quotes, no
  /// value holds another. Anything else is lexed attribute by attribute,
  /// which also makes the templates.
  ///
  /// - Throws: ``HealthExportError/malformedXML(file:line:column:detail:)``.
  mutating func readAttributes() throws {
    guard attributesPending else { return }
    attributesPending = false
    let (start, gt, quotes) = pendingAttributes
    if lexTemplatedAttributes(from: start, to: gt, quotes: quotes) != nil { return }
    _ = try lexAttributesOneByOne(from: start)
  }

  /// Lexes the current start tag's attributes as ``readAttributes()`` does,
  /// and tells whether they are some of `expected`'s names in its order.
  ///
  /// A tag whose attributes are each written ` name="value"` (one space
  /// before, no space around `=`), with names from `expected` in its order
  /// and its `>` or `/>` right after the last value, is read straight from
  /// where its quotes lie: one compare per attribute for the bytes before the
  /// value, and the value's closing quote looked for first where the last
  /// value after the same name ended. When the quotes so found are all the
  /// tag's quotes (counted when its end was found), no value holds another,
  /// and the attributes are exactly the ones ``readAttributes()`` would lex.
  /// Any other tag (another order or name, white space of another kind,
  /// single quotes, a `<`) is read by ``readAttributes()``.
  ///
  /// - Parameters:
  ///   - expected: The names, and where their values ended last.
  ///   - first: The tag's first attribute when already read with
  ///     ``expectedAttribute(_:at:)``; used only if its name is `expected`'s first.
  /// - Returns: One bit per name of `expected` (bit `k` for name `k`), set for
  ///   the names the tag has (attribute `i` is then the `i`-th name set), or
  ///   `nil` when the tag is not written so and ``readAttributes()`` read it.
  /// - Throws: ``HealthExportError/malformedXML(file:line:column:detail:)``.
  @inline(__always)
  mutating func readAttributes(expecting expected: inout ExpectedAttributes, first: XMLAttribute?) throws
    -> UInt32?
  {
    if attributesPending, let present = lexExpectedAttributes(&expected, first: first) {
      attributesPending = false
      return present
    }
    try readAttributes()
    return nil
  }

  /// The walk of ``readAttributes(expecting:first:)``; `nil` when the tag is
  /// not written as it says.
  @inline(__always)
  mutating func lexExpectedAttributes(_ expected: inout ExpectedAttributes, first: XMLAttribute?)
    -> UInt32?
  {
    let quotes = pendingAttributes.quotes
    // The tag's `>`, or the `/` of `/>`: the last value's quote comes right before it.
    let stop = attributesEnd
    let raw = UnsafeRawPointer(buffer)
    let names = expected.names
    var i = pendingAttributes.start
    var slot = 0
    var index = 0
    var present: UInt32 = 0
    if let first, first.nameStart &- 1 == i,
      names[0].matches(raw.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)),
      first.valueStart &- i == names[0].length
    {
      attributeStorage.initialize(to: first)
      present = 1
      slot = 1
      index = 1
      i = first.valueEnd &+ 1
    }
    // Every read below starts before `stop`, inside the buffer: sixteen bytes reach into ``slack`` at most.
    while i < stop {
      // A wrong guess of the value's end leaves a quote uncounted, caught below.
      guard let (valueStart, close) = expected.attribute(at: i, in: buffer, slot: &slot, before: stop) else {
        return nil
      }
      // `index` <= `slot` < ``ExpectedAttributes/maximumCount``, within the storage's first capacity.
      (attributeStorage + index).initialize(
        to: XMLAttribute(
          nameStart: i &+ 1, nameEnd: valueStart &- 2, nameHasSpaces: false, valueStart: valueStart,
          valueEnd: close))
      present |= 1 &<< UInt32(truncatingIfNeeded: slot)
      slot &+= 1
      index &+= 1
      i = close &+ 1
    }
    // Two quotes found per attribute, in order: if they are all the tag's, no value holds one.
    guard i == stop, quotes == 2 &* index else { return nil }
    attributeCount = index
    attributeLayout = nil
    return present
  }

  /// The fast walk of ``lexAttributes(from:)`` over `buffer[start ..< gt]`,
  /// which holds `quotes` double quotes and no `<`; `nil` when the tag is
  /// not written as the templates say.
  @inline(__always)
  mutating func lexTemplatedAttributes(from start: Int, to gt: Int, quotes: Int) -> Int? {
    var i = start
    var index = 0
    var ways: UInt64 = 0
    // Up to here a template's full width can be read (see ``slack``).
    let fastLimit = end &+ Self.slack &- AttributeTemplate.width
    while index < AttributeTemplate.slots, i <= fastLimit, let way = matchingWay(at: i, slot: index) {
      let template = templates + (index &* AttributeTemplate.ways &+ way)
      guard template.pointee.quote == ASCII.quote else { return nil }
      let valueStart = i &+ template.pointee.length
      // Values at one position tend to keep their length (dates, a device): try it first. A wrong
      // guess (a quote further on) leaves a quote uncounted and fails below; one that lands on the
      // next attribute's opening quote is told by the `=` before it.
      var close = valueStart &+ template.pointee.valueLength
      if close >= gt || buffer[close] != ASCII.quote || buffer[close &- 1] == ASCII.equals {
        guard let found = ByteScanning.findShort(ASCII.quote, in: buffer, from: valueStart, to: gt) else {
          return nil
        }
        close = found
        template.pointee.valueLength = close &- valueStart
      }
      (attributeStorage + index).initialize(
        to: XMLAttribute(
          nameStart: i &+ template.pointee.nameStart, nameEnd: i &+ template.pointee.nameEnd,
          nameHasSpaces: template.pointee.nameHasSpaces, valueStart: valueStart, valueEnd: close))
      ways |= UInt64(truncatingIfNeeded: way) &<< (2 &* index)
      index &+= 1
      i = close &+ 1
      let after = buffer[i]
      if ByteScanning.isSpace(after) { continue }
      // Each attribute's two quotes were found in order: if they are all there are, none lies in a value.
      guard quotes == 2 &* index else { return nil }
      if after == ASCII.greaterThan, i == gt { return finishAttributes(index, ways: ways, true, close: gt) }
      if after == ASCII.slash, i &+ 1 == gt { return finishAttributes(index, ways: ways, true, close: gt) }
      return nil
    }
    return nil
  }

  /// Lexes a start tag's attributes one by one.
  ///
  /// What comes before each value (the white space, the name, `=` and the
  /// opening quote: ` sourceName="`) is compared in one go with what recent
  /// tags had at the same position: when it is the same,
  /// ``lexAttribute(at:limit:checkingValues:)`` already checked those very
  /// bytes, so only the value is left to look at, for its closing quote and
  /// any `<` in it. Anything else (another name, a prefix longer than a
  /// ``AttributeTemplate``, the buffer's end near) is lexed carefully and
  /// becomes a template for the next tags.
  ///
  /// - Returns: The index of the closing `>`, or `nil` when the buffer ends first.
  mutating func lexAttributesOneByOne(from start: Int) throws -> Int? {
    var i = start
    var index = 0
    // Two bits per position: the way each attribute matched.
    var ways: UInt64 = 0
    var templated = true
    // Up to here a template's full width can be read (see ``slack``).
    let fastLimit = end &+ Self.slack &- AttributeTemplate.width
    while true {
      if index < AttributeTemplate.slots, i <= fastLimit, let way = matchingWay(at: i, slot: index) {
        let template = templates + (index &* AttributeTemplate.ways &+ way)
        let valueStart = i &+ template.pointee.length
        let quote = template.pointee.quote
        // Values at one position tend to keep their length (dates, a device): try it first.
        var close = valueStart &+ template.pointee.valueLength
        if close >= end || buffer[close] != quote || !isPlainValue(from: valueStart, to: close, quote: quote)
        {
          guard let found = valueEnd(quote: quote, from: valueStart) else { return nil }
          close = found
          template.pointee.valueLength = close &- valueStart
        }
        let nameStart = i &+ template.pointee.nameStart
        let nameEnd = i &+ template.pointee.nameEnd
        if buffer[close] == ASCII.lessThan {
          throw attributeError(.lessThanInValue, at: close, name: nameStart..<nameEnd)
        }
        appendAttribute(
          XMLAttribute(
            nameStart: nameStart, nameEnd: nameEnd, nameHasSpaces: template.pointee.nameHasSpaces,
            valueStart: valueStart, valueEnd: close),
          at: index)
        ways |= UInt64(truncatingIfNeeded: way) &<< (2 &* index)
        index &+= 1
        i = close &+ 1
        guard i < end else { return nil }
        let after = buffer[i]
        if ByteScanning.isSpace(after) { continue }
        if after == ASCII.greaterThan { return finishAttributes(index, ways: ways, templated, close: i) }
        guard after == ASCII.slash else {
          throw attributeError(.noSpaceBetween, at: i, name: nameStart..<nameEnd)
        }
        guard i + 1 < end else { return nil }
        guard buffer[i + 1] == ASCII.greaterThan else {
          throw malformed(at: i, "'/' not followed by '>' in a tag")
        }
        return finishAttributes(index, ways: ways, templated, close: i + 1)
      }
      // Careful: white space, then the tag's end or an attribute, lexed in full.
      let prefixStart = i
      while i < end, ByteScanning.isSpace(buffer[i]) { i += 1 }
      guard i < end else { return nil }
      let c = buffer[i]
      if c == ASCII.greaterThan { return finishAttributes(index, ways: ways, templated, close: i) }
      if c == ASCII.slash {
        guard i + 1 < end else { return nil }
        guard buffer[i + 1] == ASCII.greaterThan else {
          throw malformed(at: i, "'/' not followed by '>' in a tag")
        }
        return finishAttributes(index, ways: ways, templated, close: i + 1)
      }
      guard let attribute = try lexAttribute(at: i, limit: end, checkingValues: true) else { return nil }
      appendAttribute(attribute, at: index)
      let template = AttributeTemplate(
        buffer + prefixStart, length: attribute.valueStart - prefixStart,
        name: (attribute.nameStart - prefixStart)..<(attribute.nameEnd - prefixStart),
        nameHasSpaces: attribute.nameHasSpaces)
      if index < AttributeTemplate.slots, template.length != Int.max {
        let way = Int(nextWays[index])
        nextWays[index] = UInt8((way + 1) % AttributeTemplate.ways)
        lastWays[index] = UInt8(way)
        templates[index * AttributeTemplate.ways + way] = template
        templateEpoch &+= 1
        ways |= UInt64(truncatingIfNeeded: way) &<< (2 &* index)
      } else {
        templated = false
      }
      index += 1
      i = attribute.valueEnd + 1
    }
  }

  /// The way of position `slot` whose template the bytes at `i` start with.
  @inline(__always)
  func matchingWay(at i: Int, slot: Int) -> Int? {
    let first = Int(lastWays[slot])
    let row = templates + slot &* AttributeTemplate.ways
    let available = end &- i
    if row[first].length <= available, row[first].matches(buffer + i) { return first }
    for way in 0..<AttributeTemplate.ways where way != first {
      if row[way].length <= available, row[way].matches(buffer + i) {
        lastWays[slot] = UInt8(way)
        return way
      }
    }
    return nil
  }

  /// Ends a tag's attributes: `count` of them, the tag closing at `close`.
  @inline(__always)
  mutating func finishAttributes(_ count: Int, ways: UInt64, _ templated: Bool, close: Int) -> Int {
    attributeCount = count
    attributeLayout = templated ? AttributeLayout(ways: ways, count: count, epoch: templateEpoch) : nil
    return close
  }

  @inline(__always)
  mutating func appendAttribute(_ attribute: XMLAttribute, at index: Int) {
    if index == attributeCapacity {
      let grown = UnsafeMutablePointer<XMLAttribute>.allocate(capacity: attributeCapacity * 2)
      grown.moveInitialize(from: attributeStorage, count: attributeCapacity)
      attributeStorage.deallocate()
      attributeStorage = grown
      attributeCapacity *= 2
    }
    (attributeStorage + index).initialize(to: attribute)
  }

  /// The index of the first `quote` or `<` at or after `start`, sixteen
  /// bytes at a time, or `nil` when the buffer ends first. It may read up to
  /// 15 bytes past the buffer's end, never past ``slack``.
  @inline(__always)
  func valueEnd(quote: UInt8, from start: Int) -> Int? {
    let raw = UnsafeRawPointer(buffer)
    let quotes = SIMD16<UInt8>(repeating: quote)
    let lessThan = SIMD16<UInt8>(repeating: ASCII.lessThan)
    var i = start
    while i < end {
      let v = raw.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
      // Each lane 0x00 or 0xFF, read as two words.
      let hits = unsafeBitCast(
        ByteScanning.lanes(v .== quotes) | ByteScanning.lanes(v .== lessThan), to: SIMD2<UInt64>.self)
      if hits[0] | hits[1] != 0 {
        let hit = i &+ ByteScanning.firstLane(hits)
        return hit < end ? hit : nil
      }
      i &+= 16
    }
    return nil
  }

  /// Whether `buffer[start ..< end]` holds no `quote` and no `<`, sixteen
  /// bytes at a time without an early exit (`end` < the buffer's end).
  @inline(__always)
  func isPlainValue(from start: Int, to end: Int, quote: UInt8) -> Bool {
    let quotes = SIMD16<UInt8>(repeating: quote)
    let lessThan = SIMD16<UInt8>(repeating: ASCII.lessThan)
    return ByteScanning.holdsNone(buffer, from: start, to: end) { v in
      ByteScanning.lanes(v .== quotes) | ByteScanning.lanes(v .== lessThan)
    }
  }

  /// Attribute `index` of the current start tag (`index < attributeCount`);
  /// its ranges stay valid until the next call to ``next()``.
  @inline(__always)
  func attribute(_ index: Int) -> XMLAttribute { attributeStorage[index] }
}
