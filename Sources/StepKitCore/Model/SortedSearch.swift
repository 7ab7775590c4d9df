extension RandomAccessCollection where Index == Int {
  /// The first index whose element's `key` is not below `value`, in a
  /// collection sorted by `key` (``endIndex`` when there is none): a binary
  /// search, as for the spans of a store's start counts or the blocks of a
  /// tally in order of start.
  @inline(__always)
  func firstIndex<Key: Comparable>(whereKey key: (Element) -> Key, isNotBelow value: Key) -> Int {
    var low = startIndex
    var high = endIndex
    while low < high {
      let middle = low + (high - low) / 2
      if key(self[middle]) < value { low = middle + 1 } else { high = middle }
    }
    return low
  }
}
