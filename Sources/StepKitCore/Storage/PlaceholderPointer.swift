extension UnsafeMutablePointer {
  /// A pointer that is never read or written: the first value of a pointer
  /// field that a hot loop uses without a check, until the first real buffer
  /// replaces it (`TailPointer` before a store's first chunk,
  /// `CountedPages` before its first page). It spares those loops an
  /// optional's test and unwrap.
  ///
  /// Why `0x10`: it is not null (so no optional is needed), it is aligned for
  /// every element type these fields hold, and it lies in the first page of
  /// the address space, which no platform maps, so a use that the code's
  /// reasoning missed faults at once instead of reading someone's memory.
  @inline(__always)
  static var placeholder: UnsafeMutablePointer {
    UnsafeMutablePointer(bitPattern: 0x10).unsafelyUnwrapped
  }
}
