// Measures how fast an export.zip's Health XML entry can be read:
//
//   swift build -c release --package-path Benchmarks --product zip-benchmark  (zlib)
//   swift build -c release --package-path Benchmarks --product zip-benchmark --traits ISAL \
//     --scratch-path Benchmarks/.build-isal
//   zip-benchmark export.zip [--runs N] [--only pipeline|scan|read]
//   zip-benchmark --crc [--runs N]      CRC-32 alone: MB/s of the package's own (CPU instructions
//                                       and slicing-by-16), zlib's crc32 and (with --traits
//                                       LIBDEFLATE) libdeflate's, over
//                                       64 MiB of export-like bytes held in memory
//
// For each run it prints MB/s of inflated output for
//   bare     — a plain zlib loop on this thread: pread 1 MiB, inflate into a 1 MiB buffer, no CRC
//              (the floor: zlib's own raw inflate speed for this entry);
//   bare_isal — the same loop over ISA-L's isal_inflate (builds with the ISAL trait only);
//   pipeline — ExportArchive.forEachChunk: inflate and CRC-32 on the producer thread into the
//              ring of 1 MiB buffers, nothing done with the bytes;
//   scan     — ExportReader.forEachRecord with no wanted types: the pipeline plus the XML scan
//              of every tag in place in the ring, on the consumer's thread;
//   read     — ExportReader.read: the scan plus decoding the step and distance records;
// and each one's ratio to bare zlib (the goal for read is ≥ 0.9, and with ISA-L ≥ 1.6 × zlib's).
// A second line gives each one's CPU seconds on the calling (consumer) thread and on the others
// (the inflating producer), and the ratio two idle cores would reach: bare's CPU time over the
// busier thread's. On a shared machine wall times swing; CPU times per thread hardly do.
// --only runs the bare loop and one of the others, so the closing peak_rss_mib is that one's.

import BenchmarkSupport
import CZlib
import Foundation
@_spi(Benchmarks) import HealthExport
import StepKitCore

#if ISAL && os(Linux)
  import CISAL
#endif
#if LIBDEFLATE && os(Linux)
  import CLibdeflate
#endif

/// Wall seconds, and CPU seconds of the whole process and of the calling thread.
struct Timing {
  var wall: Double
  var processCPU: Double
  var threadCPU: Double
  /// CPU seconds of the other threads (the inflating one).
  var otherCPU: Double { max(processCPU - threadCPU, 0) }
  /// The wall time two idle cores would need: the busier thread's CPU time.
  var busiestCPU: Double { max(threadCPU, otherCPU) }
}

func cpuSeconds(_ clock: clockid_t) -> Double {
  var time = timespec()
  clock_gettime(clock, &time)
  return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

func seconds(_ body: () throws -> Void) rethrows -> Timing {
  let process = cpuSeconds(CLOCK_PROCESS_CPUTIME_ID)
  let thread = cpuSeconds(CLOCK_THREAD_CPUTIME_ID)
  let start = DispatchTime.now().uptimeNanoseconds
  try body()
  return Timing(
    wall: Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9,
    processCPU: cpuSeconds(CLOCK_PROCESS_CPUTIME_ID) - process,
    threadCPU: cpuSeconds(CLOCK_THREAD_CPUTIME_ID) - thread)
}

/// Offset of the entry's data: the local header's own name and extra lengths.
func dataOffset(path: String, localHeaderOffset: Int64, descriptor: Int32) -> Int64 {
  var header = [UInt8](repeating: 0, count: 30)
  _ = header.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, 30, off_t(localHeaderOffset)) }
  let nameLength = Int64(header[26]) | Int64(header[27]) << 8
  let extraLength = Int64(header[28]) | Int64(header[29]) << 8
  return localHeaderOffset + 30 + nameLength + extraLength
}

/// Bytes of the file at `offset` (fewer at its end).
func readBytes(_ descriptor: Int32, at offset: Int64, count: Int) -> [UInt8] {
  var bytes = [UInt8](repeating: 0, count: count)
  let got = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, off_t(offset)) }
  return Array(bytes[..<max(got, 0)])
}

/// The local header offset of every entry, from the central directory (read
/// on its own: loading the archive whole would count its size as the reader's memory).
func localHeaderOffsets(path: String) -> [String: Int64] {
  let descriptor = open(path, O_RDONLY)
  guard descriptor >= 0 else { return [:] }
  defer { close(descriptor) }
  var info = stat()
  fstat(descriptor, &info)
  let size = Int64(info.st_size)
  func u16(_ bytes: [UInt8], _ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
  func u32(_ bytes: [UInt8], _ at: Int) -> Int64 { Int64(u16(bytes, at)) | Int64(u16(bytes, at + 2)) << 16 }
  func u64(_ bytes: [UInt8], _ at: Int) -> Int64 { u32(bytes, at) | u32(bytes, at + 4) << 32 }
  let tailStart = max(size - (1 << 16) - 22, 0)
  let tail = readBytes(descriptor, at: tailStart, count: Int(size - tailStart))
  var position = tail.count - 22
  while position > 0, u32(tail, position) != 0x0605_4b50 { position -= 1 }
  guard position >= 0 else { return [:] }
  var directory = u32(tail, position + 16)
  var directorySize = u32(tail, position + 12)
  if directory == 0xFFFF_FFFF, position >= 20, u32(tail, position - 20) == 0x0706_4b50 {
    let end64 = readBytes(descriptor, at: u64(tail, position - 12), count: 56)
    directorySize = u64(end64, 40)
    directory = u64(end64, 48)
  }
  let bytes = readBytes(descriptor, at: directory, count: Int(directorySize))
  var offsets: [String: Int64] = [:]
  var index = 0
  while index + 46 <= bytes.count, u32(bytes, index) == 0x0201_4b50 {
    let nameLength = u16(bytes, index + 28)
    let extraLength = u16(bytes, index + 30)
    let commentLength = u16(bytes, index + 32)
    let name = String(decoding: bytes[(index + 46)..<(index + 46 + nameLength)], as: UTF8.self)
    var offset = u32(bytes, index + 42)
    if offset == 0xFFFF_FFFF {
      // ZIP64 extra: the saturated fields in order; the offset is the last 8 bytes of the field.
      var extra = index + 46 + nameLength
      let end = extra + extraLength
      while extra + 4 <= end {
        let id = u16(bytes, extra)
        let fieldSize = u16(bytes, extra + 2)
        if id == 1 { offset = u64(bytes, extra + 4 + fieldSize - 8) }
        extra += 4 + fieldSize
      }
    }
    offsets[name] = offset
    index += 46 + nameLength + extraLength + commentLength
  }
  return offsets
}

/// An entry's compressed bytes, read with pread 1 MiB at a time into one input buffer, with
/// one output buffer beside it: what both bare loops work with, so that they differ only in
/// the inflater they call.
final class BareBuffers {
  static let chunk = 1 << 20
  let input = UnsafeMutablePointer<UInt8>.allocate(capacity: chunk)
  let output = UnsafeMutablePointer<UInt8>.allocate(capacity: chunk)
  private let descriptor: Int32
  private var offset: Int64
  private var remaining: Int64

  init(path: String, dataOffset: Int64, compressedSize: Int64) {
    descriptor = open(path, O_RDONLY)
    offset = dataOffset
    remaining = compressedSize
  }

  deinit {
    close(descriptor)
    input.deallocate()
    output.deallocate()
  }

  /// Reads the next chunk into ``input``: its size, or `nil` at the entry's end or a read error.
  func refill() -> Int? {
    guard remaining > 0 else { return nil }
    let got = pread(descriptor, input, Int(min(Int64(Self.chunk), remaining)), off_t(offset))
    guard got > 0 else { return nil }
    offset += Int64(got)
    remaining -= Int64(got)
    return got
  }
}

func bareInflate(path: String, dataOffset: Int64, compressedSize: Int64) -> Int64 {
  let buffers = BareBuffers(path: path, dataOffset: dataOffset, compressedSize: compressedSize)
  let chunk = BareBuffers.chunk
  let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
  stream.initialize(to: z_stream())
  defer {
    inflateEnd(stream)
    stream.deallocate()
  }
  inflateInit2_(stream, -15, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
  var produced: Int64 = 0
  var ended = false
  while !ended {
    if stream.pointee.avail_in == 0 {
      guard let got = buffers.refill() else { break }
      stream.pointee.next_in = buffers.input
      stream.pointee.avail_in = uInt(got)
    }
    stream.pointee.next_out = buffers.output
    stream.pointee.avail_out = uInt(chunk)
    let status = inflate(stream, Z_NO_FLUSH)
    produced += Int64(chunk - Int(stream.pointee.avail_out))
    if status == Z_STREAM_END { ended = true }
    if status != Z_OK && status != Z_STREAM_END && status != Z_BUF_ERROR { break }
  }
  return produced
}

#if ISAL && os(Linux)
  func bareISALInflate(path: String, dataOffset: Int64, compressedSize: Int64) -> Int64 {
    let buffers = BareBuffers(path: path, dataOffset: dataOffset, compressedSize: compressedSize)
    let chunk = BareBuffers.chunk
    let state = UnsafeMutablePointer<inflate_state>.allocate(capacity: 1)
    defer { state.deallocate() }
    isal_inflate_init(state)
    var produced: Int64 = 0
    while state.pointee.block_state != ISAL_BLOCK_FINISH {
      if state.pointee.avail_in == 0 {
        guard let got = buffers.refill() else { break }
        state.pointee.next_in = buffers.input
        state.pointee.avail_in = UInt32(got)
      }
      state.pointee.next_out = buffers.output
      state.pointee.avail_out = UInt32(chunk)
      let status = isal_inflate(state)
      produced += Int64(chunk - Int(state.pointee.avail_out))
      if status < 0 { break }
    }
    return produced
  }
#endif

var arguments = Array(CommandLine.arguments.dropFirst())
var runs = 3
if let index = arguments.firstIndex(of: "--runs"), index + 1 < arguments.count,
  let value = Int(arguments[index + 1])
{
  runs = value
  arguments.removeSubrange(index...(index + 1))
}
var onlyMode: String?
if let index = arguments.firstIndex(of: "--only"), index + 1 < arguments.count {
  onlyMode = arguments[index + 1]
  arguments.removeSubrange(index...(index + 1))
}
let only = onlyMode

/// `--crc`: each CRC-32 implementation over the same 64 MiB, 16 passes a run; all must agree.
func crcBenchmark(runs: Int) {
  let size = 64 << 20
  let line = Array(
    #"<Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Simon’s Apple Watch" unit="count/min" value="72" startDate="2019-06-11 15:00:00 +0100"/>\n"#
      .utf8)
  let bytes = (0..<size).map { line[$0 % line.count] &+ UInt8(truncatingIfNeeded: $0 >> 20) }
  var implementations: [(name: String, crc: (UInt32, UnsafeRawBufferPointer) -> UInt32)] = [
    ("slicing16", SlicingCRC32.update),
    (
      "zlib",
      { crc, buffer in
        UInt32(
          truncatingIfNeeded: CZlib.crc32(
            uLong(crc), buffer.baseAddress?.assumingMemoryBound(to: Bytef.self), uInt(buffer.count)))
      }
    ),
  ]
  if HardwareCRC32.isAvailable { implementations.insert(("hardware", HardwareCRC32.update), at: 0) }
  #if LIBDEFLATE && os(Linux)
    implementations.append(
      ("libdeflate", { crc, buffer in libdeflate_crc32(crc, buffer.baseAddress, buffer.count) }))
  #endif
  let passes = 16
  bytes.withUnsafeBytes { buffer in
    for run in 1...runs {
      var columns: [String] = []
      var values: Set<UInt32> = []
      for implementation in implementations {
        var crc: UInt32 = 0
        let timing = seconds {
          for _ in 0..<passes { crc = implementation.crc(crc, buffer) }
        }
        values.insert(crc)
        columns.append(
          String(
            format: "%@_mb_per_s=%.0f", implementation.name, Double(size * passes) / 1e6 / timing.threadCPU))
      }
      guard values.count == 1 else {
        FileHandle.standardError.write(Data("zip-benchmark: the CRC-32 implementations disagree\n".utf8))
        exit(1)
      }
      print("run=\(run) crc " + columns.joined(separator: " "))
    }
  }
}
if arguments.first == "--crc" {
  crcBenchmark(runs: runs)
  exit(0)
}

func wanted(_ name: String) -> Bool { only == nil || only == name }
guard let path = arguments.first else {
  FileHandle.standardError.write(
    Data(
      "usage: zip-benchmark export.zip [--runs N] [--only pipeline|scan|read]\n       zip-benchmark --crc [--runs N]\n"
        .utf8))
  exit(2)
}
do {
  let archive = try ExportArchive(path: path)
  let entry = try archive.healthExportEntry()
  guard let headerOffset = localHeaderOffsets(path: path)[entry.name] else {
    FileHandle.standardError.write(Data("zip-benchmark: cannot find \(entry.name)'s local header\n".utf8))
    exit(1)
  }
  let descriptor = open(path, O_RDONLY)
  let start = dataOffset(path: path, localHeaderOffset: headerOffset, descriptor: descriptor)
  close(descriptor)
  let megabytes = Double(entry.uncompressedSize) / 1e6
  print("entry=\(entry.name) compressed=\(entry.compressedSize) uncompressed=\(entry.uncompressedSize)")
  for run in 1...runs {
    var figures: [(name: String, seconds: Timing)] = []
    var bareBytes: Int64 = 0
    figures.append(
      (
        "bare",
        seconds {
          bareBytes = bareInflate(path: path, dataOffset: start, compressedSize: entry.compressedSize)
        }
      ))
    #if ISAL && os(Linux)
      var isalBytes: Int64 = 0
      figures.append(
        (
          "bare_isal",
          seconds {
            isalBytes = bareISALInflate(path: path, dataOffset: start, compressedSize: entry.compressedSize)
          }
        ))
      guard isalBytes == entry.uncompressedSize else {
        FileHandle.standardError.write(Data("zip-benchmark: ISA-L size mismatch \(isalBytes)\n".utf8))
        exit(1)
      }
    #endif
    guard bareBytes == entry.uncompressedSize else {
      FileHandle.standardError.write(Data("zip-benchmark: size mismatch \(bareBytes)\n".utf8))
      exit(1)
    }
    if wanted("pipeline") {
      var pipelineBytes: Int64 = 0
      figures.append(
        ("pipeline", try seconds { pipelineBytes = try archive.forEachChunk(of: entry) { _ in true } }))
      guard pipelineBytes == entry.uncompressedSize else {
        FileHandle.standardError.write(Data("zip-benchmark: size mismatch \(pipelineBytes)\n".utf8))
        exit(1)
      }
    }
    if wanted("scan") {
      figures.append(
        ("scan", try seconds { try ExportReader.forEachRecord(in: .path(path), types: []) { _ in } }))
    }
    var log = SampleLog()
    if wanted("read") {
      figures.append(("read", try seconds { _ = try ExportReader.read(.path(path), into: &log) }))
    }
    let bare = figures[0].seconds
    let columns = figures.map { figure in
      String(
        format: "%@_mb_per_s=%.0f %@_ratio=%.3f", figure.name, megabytes / figure.seconds.wall, figure.name,
        bare.wall / figure.seconds.wall)
    }
    print("run=\(run) " + columns.joined(separator: " ") + " samples=\(log.samples.count)")
    // CPU time per thread: steady on a busy machine, where wall time is not. The
    // projection is the busier thread's time, what two idle cores would take.
    let cpuColumns = figures.map { figure in
      String(
        format: "%@_cpu_consumer=%.3f %@_cpu_producer=%.3f %@_projected_ratio=%.3f", figure.name,
        figure.seconds.threadCPU, figure.name, figure.seconds.otherCPU, figure.name,
        bare.threadCPU / figure.seconds.busiestCPU)
    }
    print("run=\(run) cpu " + cpuColumns.joined(separator: " "))
  }
  print(String(format: "peak_rss_mib=%.1f", Double(peakResidentBytes()) / (1024 * 1024)))
} catch {
  FileHandle.standardError.write(Data("zip-benchmark: \(error.localizedDescription)\n".utf8))
  exit(1)
}
