extension SampleStore {
  /// Decodes blocks in any order, reading the spilled ones back through a
  /// few windows of the temporary file: what a merge that visits the log
  /// span of time by span of time reads with.
  ///
  /// A window holds ``windowBytes`` of one spilled chunk (and the rest of
  /// the last block starting in it). The reader keeps up to ``windowCount``
  /// (by default ``standardWindowCount``)
  /// of them and drops the one used longest ago, so a span whose blocks lie
  /// in a few stretches of the log (one per kind or source, each in order of
  /// time) reads each stretch back once.
  final class BlockReader {
    /// Bytes a window covers (blocks starting in it; it holds their ends too).
    static let windowBytes = 64 * 1024
    /// The most windows kept by default: 2 MiB.
    static let standardWindowCount = 32
    private static let windowCapacity = windowBytes + maximumBlockBytes + readSlack

    private struct Window {
      var key: Int
      var bytes: UnsafeMutablePointer<UInt8>
      var lastUse: Int
    }

    let store: SampleStore
    /// The most windows kept.
    let windowCount: Int
    private var windows: [Window] = []
    private var slotOfKey: [Int: Int] = [:]
    private var clock = 0
    private var lastKey = -1
    private var lastSlot = 0

    /// A reader of `store`'s blocks keeping up to `windowCount` windows.
    init(_ store: SampleStore, windowCount: Int = standardWindowCount) {
      self.store = store
      self.windowCount = max(1, windowCount)
    }

    deinit {
      for window in windows { window.bytes.deallocate() }
    }

    /// How many spilled windows are held, for tests.
    var heldWindows: Int { windows.count }

    /// Decodes block `block` in order, handing each sample and its index to `body`.
    @inline(__always)
    func decode<Failure: Error>(block: Int, _ body: (Int, StoredSample) throws(Failure) -> Void)
      throws(Failure)
    {
      let base = store.memoryBase(ofBlock: block) ?? spilledBase(ofBlock: block)
      try store.decode(block: block, at: base, body)
    }

    /// The first byte of spilled block `block`, read back when its window is not held.
    private func spilledBase(ofBlock block: Int) -> UnsafePointer<UInt8> {
      let info = store.info(ofBlock: block)
      let chunk = Int(info.chunk)
      let window = Int(info.offset) / Self.windowBytes
      let key = chunk << 8 | window
      let start = window * Self.windowBytes
      let slot = key == lastKey ? lastSlot : self.slot(key, chunk: chunk, start: start)
      lastKey = key
      lastSlot = slot
      clock += 1
      windows[slot].lastUse = clock
      return UnsafePointer(windows[slot].bytes + (Int(info.offset) - start))
    }

    /// The slot holding window `key`, reading it into a new or the
    /// least recently used slot when none does.
    private func slot(_ key: Int, chunk: Int, start: Int) -> Int {
      if let held = slotOfKey[key] { return held }
      let slot: Int
      if windows.count < windowCount {
        slot = windows.count
        windows.append(Window(key: key, bytes: .allocate(capacity: Self.windowCapacity), lastUse: 0))
      } else {
        slot = windows.indices.min { windows[$0].lastUse < windows[$1].lastUse }.unsafelyUnwrapped
        slotOfKey[windows[slot].key] = nil
        windows[slot].key = key
      }
      slotOfKey[key] = slot
      let sealed = store.sealedChunk(chunk)
      let count = min(Self.windowBytes + maximumBlockBytes, sealed.count - start)
      store.spillFile.unsafelyUnwrapped.read(
        into: windows[slot].bytes, count: count, at: sealed.fileOffset + Int64(start),
        capacity: Self.windowCapacity)
      _checkInvariants()
      return slot
    }

    /// Checks the windows against their index (with `STEPKIT_INTERNAL_CHECKS`;
    /// nothing otherwise): at most ``windowCount`` of them, each key held by
    /// exactly the slot the index names, each window inside a spilled chunk.
    @inline(__always)
    func _checkInvariants() {
      #if STEPKIT_INTERNAL_CHECKS
        precondition(windows.count <= windowCount, "more windows than allowed")
        precondition(slotOfKey.count == windows.count, "the window index and the windows differ")
        for (slot, window) in windows.enumerated() {
          precondition(slotOfKey[window.key] == slot, "window \(window.key) is not indexed at its slot")
          let chunk = window.key >> 8
          precondition(store.sealedChunk(chunk).memory == nil, "a window of a chunk in memory")
          precondition(
            (window.key & 0xFF) * Self.windowBytes < store.sealedChunk(chunk).count,
            "a window past its chunk's end")
          precondition(window.lastUse <= clock, "a window used in the future")
        }
      #endif
    }
  }
}
