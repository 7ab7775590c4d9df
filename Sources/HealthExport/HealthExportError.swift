import Foundation
import StepKitCore

/// Everything that can go wrong while reading an Apple Health export.
///
/// Each case carries what a person needs to act on it: the file, the archive
/// entry, and where in it the problem lies. Descriptions exist in English
/// (``errorDescription``), Simplified Chinese (``chineseDescription``) and
/// Traditional Chinese (``description(in:)`` with `.traditionalChinese`).
public enum HealthExportError: Error, Equatable, Sendable, LocalizedError {
  /// The file could not be opened (missing, a directory, no permission).
  case cannotOpen(path: String, reason: String)
  /// Reading from an open file failed part way.
  case readFailed(path: String, reason: String)
  /// The file is not a zip archive (no end-of-central-directory record).
  case notAZip(path: String)
  /// The file starts as a zip archive but its end (the central directory) is missing: a download
  /// or copy that stopped part way.
  case incompleteZip(path: String, byteCount: Int64)
  /// The zip archive's structure is damaged or truncated at `byteOffset`.
  case corruptZip(path: String, detail: String, byteOffset: Int64)
  /// An entry uses a compression method other than stored (0) or deflate (8).
  case unsupportedCompression(entry: String, method: Int)
  /// An entry is encrypted; exports never are.
  case encryptedEntry(entry: String)
  /// The compressed data of an entry is invalid, or ends before the entry does.
  case corruptCompressedData(entry: String, detail: String)
  /// An entry's CRC-32 does not match its contents.
  case checksumMismatch(entry: String)
  /// The archive holds no Health export XML; `entries` lists what it holds.
  case noHealthExportXML(path: String, entries: [String])

  /// The XML is not well formed at `file:line:column`; `detail` says what was found.
  case malformedXML(file: String, line: Int, column: Int, detail: String)
  /// The XML ends at `file:line:column` before its elements are closed
  /// (an interrupted export or copy).
  case truncated(file: String, line: Int, column: Int)
  /// One tag, comment or declaration starting at `file:line:column` is larger
  /// than `limit` bytes, the most the reader holds in memory at once.
  case tokenTooLarge(file: String, line: Int, column: Int, limit: Int)
  /// The file is not an Apple Health export (no `<HealthData>` root element).
  case notAHealthExport(file: String)
  /// Every one of the export's `count` step and distance records is invalid;
  /// `examples` are the first few, with their locations and reasons.
  case noValidRecords(file: String, count: Int, examples: [InvalidSample])

  /// The English description.
  public var errorDescription: String? { description(in: .english) }

  /// The Simplified Chinese description.
  public var chineseDescription: String { description(in: .simplifiedChinese) }

  /// The description in `language`.
  ///
  /// - Parameters:
  ///   - language: The language to describe the error in (StepKitCore's
  ///     `StepKitLanguage`, shared with StepKit and the command).
  /// - Returns: One or two sentences naming the file and what is wrong.
  public func description(in language: StepKitLanguage) -> String {
    switch language {
    case .english, .simplifiedChinese: break
    case .traditionalChinese: return traditionalChineseDescription
    }
    let zh = language == .simplifiedChinese
    switch self {
    case .cannotOpen(let path, let reason):
      return zh ? "无法打开 \(path)：\(reason)" : "Cannot open \(path): \(reason)"
    case .readFailed(let path, let reason):
      return zh ? "读取 \(path) 失败：\(reason)" : "Reading \(path) failed: \(reason)"
    case .notAZip(let path):
      return zh
        ? "\(path) 不是 zip 压缩包（找不到中央目录结尾记录）。请选择“健康”App 导出的 export.zip 或解压后的 export.xml。"
        : "\(path) is not a zip archive (no end of central directory record). Choose the export.zip the Health app exported, or the unpacked export.xml."
    case .incompleteZip(let path, let byteCount):
      return zh
        ? "\(path) 是不完整的 zip 压缩包（\(byteCount) 字节后就结束了，缺少末尾的中央目录）：下载或复制很可能没有完成。请重新复制，或重新从“健康”App 导出。"
        : "\(path) is an incomplete zip archive (it ends after \(byteCount) bytes, without the central directory that closes every zip): the download or copy is probably incomplete. Copy it again, or export it again from the Health app."
    case .corruptZip(let path, let detail, let byteOffset):
      return zh
        ? "\(path) 已损坏（第 \(byteOffset) 字节）：\(detail)。请重新从“健康”App 导出。"
        : "\(path) is damaged at byte \(byteOffset): \(detail). Export it again from the Health app."
    case .unsupportedCompression(let entry, let method):
      return zh
        ? "\(entry) 使用了不支持的压缩方法 \(method)（只支持存储 0 和 deflate 8）。"
        : "\(entry) uses compression method \(method); only stored (0) and deflate (8) are supported."
    case .encryptedEntry(let entry):
      return zh ? "\(entry) 已加密，无法读取。" : "\(entry) is encrypted and cannot be read."
    case .corruptCompressedData(let entry, let detail):
      return zh
        ? "\(entry) 的压缩数据已损坏：\(detail)。请重新从“健康”App 导出。"
        : "The compressed data of \(entry) is damaged: \(detail). Export it again from the Health app."
    case .checksumMismatch(let entry):
      return zh
        ? "\(entry) 的 CRC-32 校验和不符，文件已损坏。请重新从“健康”App 导出。"
        : "The CRC-32 checksum of \(entry) does not match its contents; the file is damaged. Export it again from the Health app."
    case .malformedXML(let file, let line, let column, let detail):
      return zh
        ? "\(file):\(line):\(column)：XML 格式错误：\(detail)。"
        : "\(file):\(line):\(column): malformed XML: \(detail)."
    case .truncated(let file, let line, let column):
      return zh
        ? "\(file):\(line):\(column)：文件在元素闭合之前就结束了（导出或复制不完整）。请重新从“健康”App 导出。"
        : "\(file):\(line):\(column): the file ends before its elements are closed (an incomplete export or copy). Export it again from the Health app."
    case .tokenTooLarge(let file, let line, let column, let limit):
      return zh
        ? "\(file):\(line):\(column)：单个标签或注释超过 \(limit) 字节的上限，文件不是正常的“健康”导出。"
        : "\(file):\(line):\(column): a single tag or comment is larger than the \(limit)-byte limit; this is not a normal Health export."
    case .notAHealthExport(let file):
      return zh
        ? "\(file) 不是“健康”导出文件（没有 <HealthData> 根元素）。请选择“健康”App 导出的 export.zip 或 export.xml。"
        : "\(file) is not an Apple Health export (no <HealthData> root element). Choose the export.zip or export.xml the Health app exported."
    case .noValidRecords(let file, let count, let examples):
      let shown = examples.prefix(3).map(\.description).joined(separator: "; ")
      return zh
        ? "\(file) 中的 \(count) 条步数和距离记录全部无效，无法计数。前几条：\(shown)"
        : "\(file): none of its \(count) step and distance records can be counted. The first: \(shown)"
    case .noHealthExportXML(let path, let entries) where entries.isEmpty:
      return zh
        ? "\(path) 是一个空的 zip 压缩包，其中没有任何文件，也就没有“健康”导出的 XML。"
        : "\(path) is an empty zip archive: it holds no files, so no Health export XML (<HealthData>)."
    case .noHealthExportXML(let path, let entries):
      let list = entries.prefix(20).joined(separator: ", ")
      let more = entries.count > 20 ? (zh ? " 等 \(entries.count) 项" : " and \(entries.count - 20) more") : ""
      return zh
        ? "\(path) 中没有“健康”导出的 XML（<HealthData>）。其中包含：\(list)\(more)"
        : "\(path) holds no Health export XML (<HealthData>). It contains: \(list)\(more)"
    }
  }
}
