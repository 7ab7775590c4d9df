#if ISAL && os(Linux)
  import CISAL

  /// A raw deflate (RFC 1951) decompressor over Intel ISA-L's igzip.
  ///
  /// The `inflate_state` (about 40 KB, holding the last 32 KiB of history)
  /// lives at a fixed heap address.
  final class ISALInflater: RawDeflateDecoder {
    private let state: UnsafeMutablePointer<inflate_state>
    private let entryName: String

    /// Prepares a raw inflater (no gzip or zlib wrapper; the CRC is checked by the caller).
    ///
    /// - Parameter entryName: The entry's name for errors.
    init(entryName: String) {
      state = .allocate(capacity: 1)
      isal_inflate_init(state)
      state.pointee.crc_flag = UInt32(ISAL_DEFLATE)
      self.entryName = entryName
    }

    deinit {
      state.deallocate()
    }

    // Follows RawInflater.inflate step for step on purpose: zlib's `z_stream` and
    // ISA-L's `inflate_state` share no type, so each adapter moves its own fields.
    func inflate(input: UnsafeRawBufferPointer, output: UnsafeMutableRawBufferPointer) throws
      -> InflateStep
    {
      let inCount = min(input.count, Int(UInt32.max))
      let outCount = min(output.count, Int(UInt32.max))
      guard outCount > 0 else { return InflateStep(consumed: 0, produced: 0, streamEnded: false) }
      // igzip checks every match distance against `total_out`, a 32-bit count:
      // keep it below the wrap (and above the 32 KiB window) for entries over 4 GiB.
      if state.pointee.total_out >= 1 << 31 { state.pointee.total_out = 1 << 20 }
      state.pointee.next_in = input.baseAddress.map {
        UnsafeMutablePointer(mutating: $0.assumingMemoryBound(to: UInt8.self))
      }
      state.pointee.avail_in = UInt32(inCount)
      state.pointee.next_out = output.baseAddress?.assumingMemoryBound(to: UInt8.self)
      state.pointee.avail_out = UInt32(outCount)
      let status = isal_inflate(state)
      let consumed = inCount - Int(state.pointee.avail_in)
      let produced = outCount - Int(state.pointee.avail_out)
      state.pointee.next_in = nil
      state.pointee.next_out = nil
      switch status {
      case ISAL_DECOMP_OK, ISAL_END_INPUT, ISAL_OUT_OVERFLOW:
        return InflateStep(
          consumed: consumed, produced: produced, streamEnded: state.pointee.block_state == ISAL_BLOCK_FINISH)
      case ISAL_NEED_DICT:
        throw HealthExportError.corruptCompressedData(
          entry: entryName, detail: "the deflate stream asks for a preset dictionary")
      case ISAL_INVALID_BLOCK:
        throw HealthExportError.corruptCompressedData(entry: entryName, detail: "invalid deflate block")
      case ISAL_INVALID_SYMBOL:
        throw HealthExportError.corruptCompressedData(entry: entryName, detail: "invalid deflate code")
      case ISAL_INVALID_LOOKBACK:
        throw HealthExportError.corruptCompressedData(
          entry: entryName, detail: "invalid distance too far back")
      default:
        throw HealthExportError.corruptCompressedData(entry: entryName, detail: "ISA-L status \(status)")
      }
    }
  }

  /// CRC-32 with ISA-L's folding implementation (the same value as zlib's `crc32`).
  func isalCRC32Update(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
    guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return crc }
    return crc32_gzip_refl(crc, base, UInt64(bytes.count))
  }
#endif
