// The C library calls the reader makes, in one place: the scanner's byte search and
// comparison, the read-only file mappings it scans in place, and the POSIX thread that
// inflates a zip entry.
#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The C library's byte loops, for the scanner and the origin cache.
enum Platform {
  /// Whether the `count` bytes at `first` and `second` are the same (`memcmp`).
  @inline(__always)
  static func bytesEqual(_ first: UnsafeRawPointer, _ second: UnsafeRawPointer, count: Int) -> Bool {
    memcmp(first, second, count) == 0
  }

  /// The first `byte` among the `count` bytes at `start` (`memchr`), or `nil`.
  @inline(__always)
  static func firstByte(_ byte: UInt8, in start: UnsafeRawPointer, count: Int) -> UnsafeMutableRawPointer? {
    memchr(start, Int32(byte), count)
  }

  /// The size of a memory page, which a file mapping's offset is a multiple of.
  static let pageSize = max(Int(sysconf(Int32(_SC_PAGESIZE))), 4096)

  /// Maps `length` bytes of the file open as `descriptor`, from `offset` (a
  /// multiple of ``pageSize``), for reading only (`mmap`), or `nil` when the
  /// system will not (a file system without mappings, no address space left).
  ///
  /// On Linux the whole mapping is entered into the page table at once
  /// (`MAP_POPULATE`): the scanner reads every byte of it, and one call costs
  /// far less than the page faults of touching it (a third of the reader's
  /// system time on a 500 MB export). Its pages then count towards resident
  /// memory from the start, one window at a time.
  static func mapForReading(_ descriptor: Int32, offset: Int64, length: Int) -> UnsafeMutableRawPointer? {
    guard length > 0, let fileOffset = off_t(exactly: offset),
      let start = mmap(nil, length, PROT_READ, MAP_PRIVATE | populate, descriptor, fileOffset),
      start != UnsafeMutableRawPointer(bitPattern: -1)
    else { return nil }
    return start
  }

  /// The flag that fills a mapping's page table as it is made, where there is one.
  #if os(Linux)
    private static let populate = MAP_POPULATE
  #else
    private static let populate: Int32 = 0
  #endif

  /// Removes a mapping made by ``mapForReading(_:offset:length:)`` (`munmap`):
  /// its pages leave the process's resident memory (the file's stay cached).
  static func unmap(_ start: UnsafeMutableRawPointer, length: Int) {
    munmap(start, length)
  }

  /// `count` zeroed bytes (`calloc`): a large block comes straight from the
  /// system, so its pages cost memory only once written.
  static func zeroedBytes(_ count: Int) -> UnsafeMutablePointer<UInt8> {
    guard let block = calloc(count, 1) else { fatalError("out of memory allocating \(count) bytes") }
    return block.bindMemory(to: UInt8.self, capacity: count)
  }

  /// Frees a block from ``zeroedBytes(_:)``.
  static func freeZeroedBytes(_ block: UnsafeMutablePointer<UInt8>) {
    free(block)
  }

  /// The size of the open file `descriptor` now (`fstat`), or `nil`.
  static func currentSize(of descriptor: Int32) -> Int64? {
    var info = stat()
    guard fstat(descriptor, &info) == 0 else { return nil }
    return Int64(info.st_size)
  }
}

/// A POSIX thread that runs one closure and can be joined, so whoever stops a
/// pipeline knows that the producer, and everything it held, is gone.
final class ProducerThread {
  #if canImport(Darwin)
    private var handle: pthread_t?
  #else
    private var handle = pthread_t()
  #endif
  private var joined = false

  /// Starts `body` on a new thread.
  ///
  /// - Returns: `nil` when the system cannot create a thread.
  init?(_ body: @escaping @Sendable () -> Void) {
    final class Box {
      let body: @Sendable () -> Void
      init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    let context = Unmanaged.passRetained(Box(body)).toOpaque()
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setstacksize(&attributes, 1 << 20)
    #if canImport(Darwin)
      let status = pthread_create(
        &handle, &attributes,
        { context in
          Unmanaged<Box>.fromOpaque(context).takeRetainedValue().body()
          return nil
        }, context)
    #else
      let status = pthread_create(
        &handle, &attributes,
        { context in
          guard let context else { return nil }
          Unmanaged<Box>.fromOpaque(context).takeRetainedValue().body()
          return nil
        }, context)
    #endif
    guard status == 0 else {
      Unmanaged<Box>.fromOpaque(context).release()
      return nil
    }
  }

  /// Waits for the closure to return (once; later calls return at once).
  func join() {
    guard !joined else { return }
    joined = true
    #if canImport(Darwin)
      if let handle { pthread_join(handle, nil) }
    #else
      pthread_join(handle, nil)
    #endif
  }

  deinit { join() }
}
